"""The dashboard's gatekeeping: PIN throttling, same-origin checks, security headers, limits.

Why each piece (after Home Assistant's login ban and OctoPrint's CSRF protection):

- **PIN throttle.** A 6-digit PIN falls to 10**6 tries; unthrottled HTTP did 10,000 in 9 s. Each
  client (its address) gets :data:`FREE_TRIES` wrong PINs, then every further wrong PIN doubles
  the wait before the next try (1 s, 2 s, 4 s, ... up to 15 min): at most 10 tries in the first
  minute, and a lockout is logged. A try during the wait is answered 429 with ``Retry-After`` and
  is not even checked.
- **Origins.** A web page elsewhere may make the visitor's browser POST to the table (a form or
  a ``text/plain`` fetch needs no preflight). A state-changing request is refused unless its
  ``Origin`` (or, without one, its ``Referer``) is the dashboard itself; with neither header (not
  a browser, or a browser hiding it) it must be JSON, which no cross-site form can send. The
  dashboard itself is: the configured public address, or the address the request came to when it
  is an IP address, ``localhost`` or a ``.local`` name: a DNS-rebinding attacker's own name never
  matches, because it is neither.
- **Hosts.** For the same reason a request naming another host (``Host: attacker.example``) is
  refused outright: links and QR codes are built from the configured public address, never from
  the Host header.
- **Headers.** CSP (scripts from the dashboard only, no framing), X-Frame-Options, nosniff, and
  no Referer (a player's page has their token in its address).
- **A player's link is theirs alone, even to the PIN holder.** The PIN holder shows each player
  their link (QR code), so the link's token alone cannot keep a player's secret bets from them.
  The first browser that opens the link with a device id (random, kept in that browser's
  storage, sent as ``X-Pyramid-Device``) claims it (:class:`LinkClaims`); from then on the
  token gives the player's private view, and acts for the player, only with that device id.
  Anyone else with the link, the PIN holder included, sees the public table. The PIN holder can
  release a claim (a lost phone), but only in the open: the release is logged and every screen
  says so. A release hands the link over rather than freeing it: it makes a one-time claim code
  that only the table's screen shows (in a new link and QR code, ``?claim=``), and only a device
  that opens the link with that code takes it, atomically (of two devices racing, one gets
  it). Whoever else kept the old link (the lost phone's finder, a photo of the QR code) cannot
  claim it. A request with no device id at all (a script) is served only while the link was
  never claimed (before the player first opens it, when it holds no secret yet), never after a
  release.
"""

from __future__ import annotations

import collections
import hashlib
import hmac
import ipaddress
import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from hub.store import Store

log = logging.getLogger(__name__)

__all__ = [
    "FREE_TRIES",
    "PinThrottle",
    "origin_allowed",
    "host_allowed",
    "SECURITY_HEADERS",
    "LinkClaims",
    "device_id_ok",
    "claim_code_ok",
]

FREE_TRIES = 5
MAX_WAIT_S = 15 * 60
MAX_CLIENTS = 10_000

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'; object-src 'none'"
)

SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
}


@dataclass
class _Client:
    failures: int = 0
    until: float = 0.0  # monotonic time before which no try is checked
    # the wrong PINs already counted (hashed): a page repeating a stale PIN on each of its
    # requests is one wrong guess, not many, so it does not lock its own table out
    tried: set[str] = field(default_factory=set)


class PinThrottle:
    """Wrong PINs per client, with an exponential wait after :data:`FREE_TRIES`."""

    def __init__(
        self, free: int = FREE_TRIES, max_wait: float = MAX_WAIT_S, clock: object = None
    ) -> None:
        self.free = free
        self.max_wait = max_wait
        self._clock = clock if callable(clock) else time.monotonic
        self._clients: collections.OrderedDict[str, _Client] = collections.OrderedDict()
        self._lock = threading.Lock()
        self.lockouts = 0

    def _now(self) -> float:
        return float(self._clock())

    def retry_after(self, client: str) -> float:
        """Seconds ``client`` must wait before its next PIN is checked (0: go ahead)."""
        with self._lock:
            c = self._clients.get(client)
            return 0.0 if c is None else max(0.0, c.until - self._now())

    def check(self, client: str, given: str, pin: str) -> tuple[bool, float]:
        """(right?, seconds to wait) for one try; a try during the wait is not checked."""
        with self._lock:
            c = self._clients.get(client)
            now = self._now()
            if c is not None and c.until > now:
                return False, c.until - now
            ok = hmac.compare_digest(given.encode(), pin.encode())
            if ok:
                self._clients.pop(client, None)
                return True, 0.0
            if c is None:
                c = self._clients[client] = _Client()
                while len(self._clients) > MAX_CLIENTS:
                    self._clients.popitem(last=False)
            self._clients.move_to_end(client)
            digest = hmac.new(b"pin-tries", given.encode(), "sha256").hexdigest()[:16]
            if digest in c.tried:
                return False, 0.0  # the same wrong PIN again: no new guess
            if len(c.tried) < 1000:
                c.tried.add(digest)
            c.failures += 1
            if c.failures >= self.free:
                wait = min(self.max_wait, 2.0 ** (c.failures - self.free))
                c.until = now + wait
                self.lockouts += 1
                log.warning(
                    "dashboard: %d wrong PINs from %s: locked out for %.0f s",
                    c.failures,
                    client,
                    wait,
                )
            return False, 0.0


def _is_local_name(host: str) -> bool:
    """An IP address, ``localhost`` or an mDNS ``.local`` name: names a DNS-rebinding attacker
    cannot point at the table."""
    host = host.strip("[]").lower()
    if host in ("localhost",) or host.endswith(".local") or host.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def host_allowed(host_header: str, public_hosts: frozenset[str]) -> bool:
    """Is ``Host:`` one of the dashboard's own names?"""
    name = urlsplit(f"//{host_header}").hostname or ""
    return bool(name) and (name.lower() in public_hosts or _is_local_name(name))


def origin_allowed(origin: str, host_header: str, public_origins: frozenset[str]) -> bool:
    """Is ``origin`` (scheme://host[:port]) the dashboard itself?"""
    origin = origin.strip().rstrip("/").lower()
    if origin in public_origins:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False  # "null" (a sandboxed frame, a file) and anything odd
    return parts.netloc == host_header.lower() and _is_local_name(parts.hostname)


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else "null"


def device_id_ok(device: str | None) -> bool:
    """A device id as the page makes it: 16 to 64 letters, digits, ``-`` or ``_``."""
    return (
        isinstance(device, str)
        and 16 <= len(device) <= 64
        and all(c.isascii() and (c.isalnum() or c in "-_") for c in device)
    )


RELEASED = "released"  # a link the table released: the next device claims it, no script reads it
#: a link released with a claim code: ``released:<sha256 of the code>``; only that code claims it
RELEASED_FOR = RELEASED + ":"


def claim_code_ok(code: str | None) -> bool:
    """A claim code as :meth:`LinkClaims.release` makes it: 16 to 64 URL-safe characters."""
    return device_id_ok(code)


class LinkClaims:
    """Which device a player's link belongs to, per game (see the module docstring).

    Kept in the event log's ``meta`` (hashed: the file holds no device id), so a restarted hub
    keeps every claim. ``store`` is a :class:`hub.store.Store`."""

    def __init__(self, store: Store, table_id: str) -> None:
        self.store = store
        self.table_id = table_id

    def _key(self, game_id: str, player: str) -> str:
        return f"link_claim/{self.table_id}/{game_id}/{player}"

    @staticmethod
    def _hash(device: str) -> str:
        return hashlib.sha256(f"pyramid-device\0{device}".encode()).hexdigest()

    def claimed(self, game_id: str, player: str) -> bool:
        held = self.store.get_meta(self._key(game_id, player))
        return held not in (None, "", RELEASED) and not str(held).startswith(RELEASED_FOR)

    def allows(
        self, game_id: str, player: str, device: str | None, claim: str | None = None
    ) -> bool:
        """May this device use the player's link? A link never opened is claimed by the first
        valid device id it is opened with; a released one only with the release's claim code.
        Either claim is atomic in the log's file: of two devices racing, exactly one gets it,
        whichever process or worker serves them. A request without a device id is served only
        while the link was never claimed."""
        key = self._key(game_id, player)
        if not device_id_ok(device):
            return not self.store.get_meta(key)  # never claimed: it holds no secret yet
        assert device is not None
        mine = self._hash(device)
        free: tuple[str, ...] = ("", RELEASED)
        if claim_code_ok(claim):
            assert claim is not None
            free += (RELEASED_FOR + self._hash(claim),)
        held, took = self.store.claim_meta(key, mine, free=free)
        if took:
            log.info("dashboard: %s's link of game %s claimed by a device", player, game_id)
        return took or hmac.compare_digest(held, mine)

    def release(self, game_id: str, player: str) -> str:
        """Hand the link over: forget its device and make a one-time claim code (returned, kept
        only as its hash); the next device to open the link with it claims the link."""
        code = secrets.token_urlsafe(18)
        self.store.set_meta(self._key(game_id, player), RELEASED_FOR + self._hash(code))
        return code

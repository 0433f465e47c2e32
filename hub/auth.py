"""Who may change the game: the table's PIN, or a player's own token (their private link).

Why tokens are derived, not stored: a token is ``HMAC(table secret, table / game / player)``, so
it survives restarts without a table of tokens, is different for every game (a link from last
week's game does not work in tonight's), and can be checked in constant time. The secret is made
once per table and kept in the store's ``meta``.

Access levels, as used by :mod:`hub.requests`:

- ``table``: the PIN was given (or the table has no PIN, or the caller is the in-process firmware).
  Anything goes.
- ``player``: a valid token for one player: that player's own actions and secret bet colours.
- ``guest``: nothing else: guests see, they do not change.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from hub.store import Store

__all__ = ["Access", "Authority", "AuthError"]


class AuthError(ValueError):
    """A request that is not allowed: ``reason`` is a machine code, str() a sentence."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class Access:
    level: str  # "table" | "player" | "guest"
    player: str | None = None

    @property
    def is_table(self) -> bool:
        return self.level == "table"

    def may_act_for(self, player: str) -> bool:
        return self.level == "table" or (self.level == "player" and self.player == player)


GUEST = Access("guest")
TABLE = Access("table")


class Authority:
    """Checks PINs and player tokens for one table."""

    def __init__(self, table_id: str, store: Store, pin: str | None = None) -> None:
        if pin is not None and (not str(pin).strip() or len(str(pin)) > 64):
            raise ValueError("the PIN must be 1 to 64 characters")
        self.table_id = table_id
        self.pin = None if pin is None else str(pin)
        key = f"auth_secret/{table_id}"
        secret = store.get_meta(key)
        if secret is None:
            secret = secrets.token_hex(32)
            store.set_meta(key, secret)
        self._secret = bytes.fromhex(secret)

    def token(self, game_id: str, player: str) -> str:
        """The private token of ``player`` in ``game_id`` (url-safe, 22 characters)."""
        msg = f"{self.table_id}\x00{game_id}\x00{player}".encode()
        digest = hmac.new(self._secret, msg, hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def check(self, auth: Any, game_id: str | None, players: list[str] | tuple[str, ...]) -> Access:
        """Resolve the ``auth`` part of a request to an :class:`Access`.

        ``auth`` is None, or a dict with ``pin`` and/or ``token`` (strings), or
        ``{"local": True}`` from in-process callers (the firmware on the same Pi). A wrong PIN or
        an unknown token raises :class:`AuthError`: a caller who tried and failed is told so,
        rather than silently treated as a guest.
        """
        if auth is None:
            auth = {}
        if not isinstance(auth, dict):
            raise AuthError('auth must be an object like {"pin": "1234"}', "bad_auth")
        if auth.get("local") is True:
            return TABLE
        pin = auth.get("pin")
        token = auth.get("token")
        if pin is not None:
            if not isinstance(pin, str | int) or isinstance(pin, bool):
                raise AuthError("the PIN must be a string", "bad_auth")
            if self.pin is None or hmac.compare_digest(str(pin).encode(), self.pin.encode()):
                return TABLE
            raise AuthError("wrong PIN", "wrong_pin")
        if token is not None:
            if not isinstance(token, str):
                raise AuthError("the token must be a string", "bad_auth")
            if game_id is not None:
                for name in players:
                    if hmac.compare_digest(token.encode(), self.token(game_id, name).encode()):
                        return Access("player", name)
            raise AuthError("this player link is not valid for the current game", "bad_token")
        if self.pin is None:
            return TABLE  # an open table: no PIN was set, anyone at the table may play
        return GUEST

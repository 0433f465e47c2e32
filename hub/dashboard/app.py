"""The Flask dashboard of one table: pages, JSON endpoints, the live stream and the taps.

Why it is thin: every tap goes through the session's one command dispatcher (:mod:`hub.requests`,
shared with MQTT), so a rule, a refusal or an authorisation check exists once. The dashboard only
turns HTTP into ``session.request(cmd, payload, auth)`` and the answer back into HTTP; the page
shows the hub's own sentence when something is refused.

Auth travels in headers (``X-Pyramid-Pin``, ``X-Pyramid-Token``), or for the stream and the
player's page in the URL (EventSource cannot set headers; the token *is* the player's link).
Wrong PINs are throttled, other origins and hosts refused, and every answer carries the security
headers: :mod:`hub.dashboard.guard` says why.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, abort, jsonify, render_template, request, url_for

from hub.dashboard import guard
from hub.dashboard.live import Live, page_event, redact_advice
from hub.dashboard.qr import qr_svg
from hub.dashboard.setup_page import SetupDesk, add_setup_routes, registered_setup_desk
from hub.dashboard.sse import parse_last_id
from hub.wire import Answer

if TYPE_CHECKING:
    from hub.auth import Access
    from hub.session import TableSession

log = logging.getLogger(__name__)

__all__ = ["create_app", "EXTENSION"]

EXTENSION = "pyramid_dashboard"
HERE = Path(__file__).parent
AUTH_ERRORS = {
    "wrong_pin": 403,
    "bad_token": 403,
    "bad_auth": 400,
    "forbidden": 403,
    "pin_required": 401,
    "guest": 401,
    "cross_origin": 403,
    "unknown_host": 421,
    "stale": 409,
    "request_id_reused": 409,
    "secret_bet": 403,
}
MAX_BODY = 64 * 1024
MAX_STREAMS = 32  # open live streams (each holds a server thread): a table has a dozen phones
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def create_app(
    session: TableSession,
    *,
    heartbeat_s: float = 15.0,
    retry_ms: int = 2000,
    url_prefix: str = "",
    public_url: str | None = None,
    max_streams: int = MAX_STREAMS,
    throttle: guard.PinThrottle | None = None,
    setup: SetupDesk | None = None,
) -> Flask:
    """A Flask app showing ``session``'s table and passing taps to its dispatcher.

    ``heartbeat_s`` is the SSE comment interval; ``retry_ms`` what EventSource waits before it
    reconnects; ``url_prefix`` mounts the dashboard below a path (behind a reverse proxy).
    ``public_url`` is the address players open (``http://192.168.1.20:8080``): the players'
    links and QR codes are built from it, and it is an accepted origin. Without it, links use the
    address the server listens on (never the request's Host header). ``max_streams`` caps the
    open live streams (more are answered 503 with Retry-After). ``setup`` runs the camera's
    set-up page (default: the desk the `pyramid` command registered, if any; see
    :mod:`hub.dashboard.setup_page`).
    """
    live = Live(session, heartbeat_s=heartbeat_s, retry_ms=retry_ms)
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.config["PUBLIC_URL"] = public_url.rstrip("/") if public_url else None
    app.extensions[EXTENSION] = live
    pins = throttle or guard.PinThrottle()
    app.extensions["pyramid_pin_throttle"] = pins
    claims = guard.LinkClaims(session.store, session.table_id)  # a link is one device's
    streams = threading.BoundedSemaphore(max_streams)
    bp = Blueprint(
        "dashboard",
        __name__,
        template_folder="templates",
        static_folder="static",
        static_url_path="/static",
    )

    # -- the gate -----------------------------------------------------------------------------

    def public_origins() -> frozenset[str]:
        url = app.config.get("PUBLIC_URL")
        return frozenset({guard.origin_of(url).lower()}) if url else frozenset()

    def public_hosts() -> frozenset[str]:
        url = app.config.get("PUBLIC_URL")
        host = urlsplit(url).hostname if url else None
        return frozenset({host.lower()}) if host else frozenset()

    @app.before_request
    def gate() -> Response | None:
        host = request.headers.get("Host", "")
        if not guard.host_allowed(host, public_hosts()):
            return _error(
                f"this hub does not answer to the name {host[:64]!r}: open the "
                "address it prints (or set its public address)",
                "unknown_host",
            )
        if request.method in UNSAFE_METHODS:
            origin = request.headers.get("Origin")
            if origin is None and request.headers.get("Referer"):
                origin = guard.origin_of(request.headers["Referer"])
            if origin is not None:
                if not guard.origin_allowed(origin, host, public_origins()):
                    log.warning(
                        "dashboard: refused a %s %s from the origin %r",
                        request.method,
                        request.path,
                        origin[:100],
                    )
                    return _error("a change from another web site is refused", "cross_origin")
            elif not request.is_json:
                return _error(
                    "a change is sent as JSON (Content-Type: application/json)", "cross_origin"
                )
        pin = request.headers.get("X-Pyramid-Pin")
        table_pin = getattr(session.authority, "pin", None)
        if pin and table_pin is not None:
            client = request.remote_addr or "?"
            ok, wait = pins.check(client, pin, table_pin)
            if wait > 0:
                resp = _error(
                    f"too many wrong PINs: try again in {int(wait) + 1} s",
                    "too_many_tries",
                    status=429,
                )
                resp.headers["Retry-After"] = str(int(wait) + 1)
                return resp
            if not ok:
                return _error("wrong PIN", "wrong_pin")
        return None

    @app.after_request
    def headers(resp: Response) -> Response:
        for k, v in guard.SECURITY_HEADERS.items():
            resp.headers.setdefault(k, v)
        if request.path.startswith(f"{url_prefix}/p/"):
            resp.headers["Cache-Control"] = "no-store"  # a player's own page
        return resp

    def link_base() -> str:
        url = app.config.get("PUBLIC_URL")
        if url:
            return str(url)
        # the address this server listens on, from the socket, never from the Host header
        name = request.environ.get("SERVER_NAME", "127.0.0.1")
        port = request.environ.get("SERVER_PORT", "80")
        if name in ("0.0.0.0", "::", ""):
            name = "127.0.0.1"
        return f"http://{name}:{port}"

    # -- helpers ------------------------------------------------------------------------------

    def auth_of() -> dict[str, Any]:
        auth: dict[str, Any] = {}
        pin = request.headers.get("X-Pyramid-Pin")
        token = request.headers.get("X-Pyramid-Token") or request.args.get("token")
        if pin:
            auth["pin"] = pin
        if token and device_may_use(token):
            auth["token"] = token
        return auth

    def device_may_use(token: str) -> bool:
        """A player's token counts only from the device that claimed the link (guard.py): on
        any other (the PIN holder's included) it is a guest's request."""
        from hub.auth import AuthError

        try:
            access = session.authority.check({"token": token}, session.game_id, session.players())
        except AuthError:
            return True  # a wrong token is refused as such by the normal path
        gid = session.game_id
        if access.level != "player" or access.player is None or gid is None:
            return True
        device = request.headers.get("X-Pyramid-Device") or request.args.get("device")
        claim = request.headers.get("X-Pyramid-Claim") or request.args.get("claim")
        if claims.allows(gid, access.player, device, claim):
            return True
        request.environ["pyramid.claimed_elsewhere"] = access.player
        return False

    def access_of() -> Access:
        """The caller's Access; a wrong PIN or token answers 403 with the reason."""
        from hub.auth import AuthError

        try:
            return session.authority.check(auth_of(), session.game_id, session.players())
        except AuthError as exc:
            abort(_error(str(exc), exc.reason))

    def command(cmd: str, payload: dict[str, Any]) -> Response:
        # applied once (hub.requests): the tap's Idempotency-Key, and the seq its screen showed
        sent = body() if request.get_data(cache=True).strip() else {}
        rid = request.headers.get("Idempotency-Key") or sent.get("request_id")
        if "expected_seq" in sent:
            payload = {**payload, "expected_seq": sent["expected_seq"]}
        answer = session.request(
            cmd,
            payload,
            auth_of(),
            channel="http",
            request_id=rid,
            asked={"path": request.path, "body": sent},
        )
        typed = Answer.from_payload(answer)
        if not typed.ok:
            return _error(
                _sentence(typed.error or "the hub refused"),
                typed.reason or "refused",
                extra=typed.to_payload(),
            )
        # players' tokens only through the QR endpoint; a player's private view is theirs
        return jsonify(typed.without({"tokens"}).to_payload())

    def body() -> dict[str, Any]:
        from hub.jsonsafe import JsonError, loads

        try:
            data = loads(request.get_data(cache=True), max_bytes=MAX_BODY)
        except JsonError as exc:
            abort(_error(str(exc), exc.reason))
        if not isinstance(data, dict):
            abort(_error("the request body must be a JSON object", "bad_payload"))
        return data

    def page(token: str | None = None, game_id: str | None = None) -> str:
        root = url_for("dashboard.index")
        return render_template(
            "index.html", token=token, game_id=game_id, root=root, game_scripts=game_scripts()
        )

    # -- pages --------------------------------------------------------------------------------

    @bp.get("/")
    def index() -> str:
        return page()

    @bp.get("/p/<token>")
    def player_page(token: str) -> str:
        return page(token=token)

    @bp.get("/games/<game_id>")
    def archive_page(game_id: str) -> str:
        return page(game_id=game_id)

    # -- reading ------------------------------------------------------------------------------

    @bp.get("/api/whoami")
    def whoami() -> Response:
        access = access_of()
        out = {
            "auth": {"role": access.level, "player": access.player},
            "table": session.table_id,
            "game_id": session.game_id,
        }
        elsewhere = request.environ.get("pyramid.claimed_elsewhere")
        if elsewhere:
            out["claimed_elsewhere"] = elsewhere
            out["message"] = (
                f"{elsewhere}'s link is open on another device, so here it shows "
                "the table as everyone sees it. If that device is lost, the table "
                "can release the link (everyone is told)."
            )
        return jsonify(out)

    @bp.get("/api/state")
    def state() -> Response:
        access = access_of()
        return jsonify(live.snapshot(access.player if access.level == "player" else None))

    @bp.get("/api/stream")
    def stream() -> Response:
        access = access_of()
        player = access.player if access.level == "player" else None
        last = parse_last_id(request.headers.get("Last-Event-ID"), request.args.get("last"))
        if not streams.acquire(blocking=False):
            resp = _error(
                "too many open live views of this table: try again shortly",
                "too_many_streams",
                status=503,
            )
            resp.headers["Retry-After"] = "5"
            return resp

        resp = Response(
            _Counted(live.stream(last, player), streams.release), mimetype="text/event-stream"
        )
        resp.headers["Cache-Control"] = "no-cache, no-transform"
        resp.headers["X-Accel-Buffering"] = "no"  # nginx in front must not buffer the stream
        return resp

    @bp.get("/api/odds")
    def odds() -> Response:
        game_id = request.args.get("game")
        if game_id and game_id != session.game_id:
            return jsonify({"seq": -1, "odds": None, "advice": None})
        access = access_of()
        snap = session.snapshot(log=False, derived=True)
        view = snap.get("game") or {}
        current = view.get("current_player")
        advice = snap.get("advice") or []
        if not (access.level == "player" and access.player == current):
            advice = redact_advice(advice)
        elif session.with_advice and access.player is not None:
            # the player's own link on their turn: advice from what they alone know too (the
            # colours of their own bets, which tile values and the bets' words count)
            own = _own_advice(session, access.player, snap["seq"])
            advice = advice if own is None else own
        return jsonify(
            {
                "seq": snap["seq"],
                "odds": snap.get("odds"),
                "advice": {"player": current, "actions": advice},
            }
        )

    @bp.get("/api/camera")
    def camera() -> Response:
        """The table camera's health from the firmware's retained status: whether it gives
        frames and, when not, why (``fault``: import, busy, absent, out_of_memory, failed) in
        the firmware's own words. Public: it says nothing about the game."""
        access_of()
        fw = dict(getattr(session, "firmware", None) or {})
        fault = fw.get("camera_fault")
        return jsonify(
            {
                "camera": {
                    "state": fw.get("state"),
                    "source": fw.get("camera"),
                    "fps": fw.get("camera_fps"),
                    "fault": fault,
                    "message": fw.get("last_error") if fault else None,
                    "received": fw.get("received"),
                }
            }
        )

    @bp.get("/api/setup")
    def setup_reading() -> Response:
        """The camera's latest setup reading (not an event: the new-game dialog asks for it)."""
        access_of()
        return jsonify({"setup_reading": session.setup_reading})

    @bp.get("/api/games")
    def games() -> Response:
        return jsonify({"games": session.games(), "current": session.game_id})

    @bp.get("/api/games/<game_id>")
    def game(game_id: str) -> Response:
        from hub.session import RequestError

        try:
            g = session.past_game(game_id)
        except RequestError as exc:
            return _error(str(exc), exc.reason, status=404)
        return jsonify(
            {
                "game_id": g["game_id"],
                "seq": g["seq"],
                "log": [page_event(e) for e in g["log"]],
                "state": {
                    "seq": g["seq"],
                    "game_id": g["game_id"],
                    "status": g["status"],
                    "view": g["game"],
                    "legal": [],
                    "pending": [],
                },
            }
        )

    @bp.get("/api/crops/<crop_id>")
    def crop(crop_id: str) -> Response:
        jpeg = session.crop(crop_id)
        if jpeg is None:
            return _error(f"there is no crop {crop_id!r}", "unknown_crop", status=404)
        resp = Response(jpeg, mimetype="image/jpeg")
        resp.headers["Cache-Control"] = "public, max-age=86400, immutable"
        return resp

    @bp.get("/api/players/<name>/link")
    def player_link(name: str) -> Response:
        """A player's own link and its QR code: for the table (PIN) or that player only."""
        access = access_of()
        if not access.may_act_for(name):
            return _error(
                "only the table (with its PIN) can show a player's own link",
                "pin_required" if access.level == "guest" else "forbidden",
            )
        from hub.session import RequestError

        try:
            token = session.player_token(name)
        except RequestError as exc:
            return _error(str(exc), exc.reason, status=404)
        url = link_base() + url_for("dashboard.player_page", token=token)
        return jsonify({"player": name, "url": url, "svg": qr_svg(url)})

    @bp.post("/api/players/<name>/release")
    def release_link(name: str) -> Response:
        """Hand a player's link to another device (a lost phone): the table's PIN, and in the
        open: the release is logged, so every screen says so. The answer is the link with a
        one-time claim code and its QR code: only the device that opens it takes the link."""
        access = access_of()
        if not access.is_table:
            return _error(
                "only the table (with its PIN) can release a player's link",
                "pin_required" if access.level == "guest" else "forbidden",
            )
        if name not in session.players() or session.game_id is None:
            return _error(
                f"there is no player called {name!r} in this game", "unknown_player", status=404
            )
        with session.lock:
            code = claims.release(session.game_id, name)
            seqs = session.log([{"type": "link_released", "player": name}], {"cmd": "release_link"})
            token = session.player_token(name)
        # the link handed over: only a device that opens it with this code takes it (guard.py)
        url = link_base() + url_for("dashboard.player_page", token=token, claim=code)
        return jsonify(
            {"ok": True, "player": name, "seq": seqs[-1], "url": url, "svg": qr_svg(url)}
        )

    @bp.get("/api/join")
    def join() -> Response:
        """The table's address and its QR code, for the shared screen: a phone scans it to
        watch. The address is the configured public one (what the hub and the demo print), else
        the one this server listens on."""
        url = link_base().rstrip("/") + url_for("dashboard.index")
        return jsonify({"url": url, "svg": qr_svg(url, title="scan to watch this table")})

    # -- taps ---------------------------------------------------------------------------------

    @bp.post("/api/action")
    def action() -> Response:
        data = body()
        act = data.get("action")
        if not isinstance(act, str) or not act.strip() or len(act) > 64:
            return _error('say which action, like "leg:blue" or "roll"', "bad_payload")
        player = data.get("player")
        if player is None and session.driver.everyone_acts:
            # everyone acts at once: the action names its player (or is the table's)
            access = access_of()
            payload: dict[str, str | None] = {"action": act}
            if access.level == "player":
                payload["player"] = access.player
            return command("action", payload)
        if player is None:
            access = access_of()
            player = access.player if access.level == "player" else _current(session)
            if player is None:  # say why there is nobody to play for
                if session.game is None:
                    return _error(
                        "no game is being played at this table: start one first", "no_game"
                    )
                return _error("the race is over: start another game", "game_over")
        return command("action", {"player": player, "action": act})

    @bp.post("/api/confirm")
    def confirm() -> Response:
        data = body()
        fields = ("prompt", "colour", "face", "accept", "dismiss")
        payload: dict[str, Any] = {k: data[k] for k in fields if k in data}
        return command("confirm", payload)

    @bp.post("/api/undo")
    def undo() -> Response:
        return command("undo", {})

    @bp.post("/api/games")
    def start_game() -> Response:
        data = body()
        from hub.games_glue import GAMES

        fields = {"game", "players", "setup", "setup_id", "seed", "first_player", "abandon"}
        for drv in GAMES.values():  # the chosen game's settings (the dispatcher refuses others)
            fields |= drv.settings
        payload: dict[str, Any] = {k: data[k] for k in sorted(fields) if k in data}
        if payload.get("setup") in ("random", None):
            payload.pop("setup", None)  # the hub rolls it ("camera" goes on: the camera's read)
        return command("start_game", payload)

    add_setup_routes(
        bp,
        setup if setup is not None else registered_setup_desk(),
        access_of=access_of,
        body=body,
        error=_error,
    )
    app.register_blueprint(bp, url_prefix=url_prefix or None)

    @app.errorhandler(404)
    def not_found(_exc: Exception) -> Response:
        return _error("no such page of the hub", "not_found", status=404)

    @app.errorhandler(405)
    def not_allowed(_exc: Exception) -> Response:
        return _error("this address does not take that method", "bad_method", status=405)

    @app.errorhandler(413)
    def too_big(_exc: Exception) -> Response:
        return _error("the request is too large", "too_large", status=413)

    return app


class _Counted:
    """A stream that gives its slot back once, when the server closes it (even if the client
    left before the first byte: a generator not yet started would skip its ``finally``)."""

    def __init__(self, inner: Iterator[str], release: Callable[[], object]) -> None:
        self._inner = inner
        self._release: Callable[[], object] | None = release

    def __iter__(self) -> Iterator[str]:
        return self._inner

    def close(self) -> None:
        try:
            close = getattr(self._inner, "close", None)
            if close is not None:
                close()
        finally:
            release, self._release = self._release, None
            if release is not None:
                release()


def game_scripts() -> list[str]:
    """The games' own dashboard scripts, from their drivers (Driver.dashboard_script), in the
    games' order: the page loads each, before dashboard.js."""
    from hub.games_glue import GAMES

    return [s for s in (GAMES[kind].dashboard_script() for kind in GAMES) if s]


def _own_advice(session: TableSession, player: str, seq: int) -> list[dict[str, Any]] | None:
    """The advice for ``player``'s own link on their turn at position ``seq`` (the game's
    driver decides what the player alone knows adds), or None: the shared advice stands.
    Advice is a comfort: a failure is logged and the shared advice shown instead."""
    with session.lock:
        game = session.game
        if game is None or session.seq != seq or game.current_player != player:
            return None
        state, drv = game.state, session.driver
    try:
        own: list[dict[str, Any]] | None = drv.own_advice(state, player)
    except Exception:
        log.exception("the own advice failed at seq %s", seq)
        return None
    return own


def _current(session: TableSession) -> str | None:
    game = session.game
    return None if game is None else game.current_player


def _sentence(text: str) -> str:
    """Hub messages start lower-case (they also go into logs); on a page they read as sentences."""
    text = str(text).strip()
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    if text and text[-1] not in ".!?":
        text += "."
    return text


def _error(
    message: str, reason: str, *, status: int | None = None, extra: dict[str, Any] | None = None
) -> Response:
    code = status or AUTH_ERRORS.get(reason, 400)
    payload = {"ok": False, "error": reason, "message": _sentence(message)}
    if extra:
        payload.update({k: v for k, v in extra.items() if k not in ("ok", "error", "message")})
        payload["error"] = reason
    resp = Response(json.dumps(payload), status=code, mimetype="application/json")
    return resp

"""The Flask dashboard of one table: pages, JSON endpoints, the live stream and the taps.

Why it is thin: every tap goes through the session's one command dispatcher (:mod:`hub.requests`,
shared with MQTT), so a rule, a refusal or an authorisation check exists once. The dashboard only
turns HTTP into ``session.request(cmd, payload, auth)`` and the answer back into HTTP; the page
shows the hub's own sentence when something is refused.

Auth travels in headers (``X-Pyramid-Pin``, ``X-Pyramid-Token``), or for the stream and the
player's page in the URL (EventSource cannot set headers; the token *is* the player's link).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, abort, jsonify, render_template, request, url_for

from hub.dashboard.live import Live, page_event, redact_advice
from hub.dashboard.qr import qr_svg
from hub.dashboard.sse import parse_last_id

log = logging.getLogger(__name__)

__all__ = ["create_app", "EXTENSION"]

EXTENSION = "pyramid_dashboard"
HERE = Path(__file__).parent
AUTH_ERRORS = {"wrong_pin": 403, "bad_token": 403, "bad_auth": 400, "forbidden": 403,
               "pin_required": 401, "guest": 401}
MAX_BODY = 64 * 1024


def create_app(
    manager_or_session: Any,
    *,
    heartbeat_s: float = 15.0,
    retry_ms: int = 2000,
    url_prefix: str = "",
) -> Flask:
    """A Flask app showing ``manager_or_session``'s table (a TableSession, or a manager with a
    ``.session``) and passing taps to its dispatcher.

    ``heartbeat_s`` is the SSE comment interval; ``retry_ms`` what EventSource waits before it
    reconnects; ``url_prefix`` mounts the dashboard below a path (behind a reverse proxy).
    """
    session = getattr(manager_or_session, "session", manager_or_session)
    live = Live(session, heartbeat_s=heartbeat_s, retry_ms=retry_ms)
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.extensions[EXTENSION] = live
    bp = Blueprint("dashboard", __name__, template_folder="templates", static_folder="static",
                   static_url_path="/static")

    # -- helpers ------------------------------------------------------------------------------

    def auth_of() -> dict[str, Any]:
        auth: dict[str, Any] = {}
        pin = request.headers.get("X-Pyramid-Pin")
        token = request.headers.get("X-Pyramid-Token") or request.args.get("token")
        if pin:
            auth["pin"] = pin
        if token:
            auth["token"] = token
        return auth

    def access_of() -> Any:
        """The caller's Access; a wrong PIN or token answers 403 with the reason."""
        from hub.auth import AuthError

        try:
            return session.authority.check(auth_of(), session.game_id, _players(session))
        except AuthError as exc:
            abort(_error(str(exc), exc.reason))

    def command(cmd: str, payload: dict[str, Any]) -> Response:
        answer = session.request(cmd, payload, auth_of(), channel="http")
        if not isinstance(answer, dict) or not answer.get("ok"):
            answer = answer if isinstance(answer, dict) else {}
            return _error(_sentence(answer.get("error") or "the hub refused"),
                          str(answer.get("reason") or "refused"), extra=answer)
        out = {k: v for k, v in answer.items() if k != "tokens"}  # tokens only via QR endpoint
        return jsonify(out)

    def body() -> dict[str, Any]:
        data = request.get_json(silent=True, force=True)
        if not isinstance(data, dict):
            abort(_error("the request body must be a JSON object", "bad_payload"))
        return data

    def page(token: str | None = None, game_id: str | None = None) -> str:
        root = url_for("dashboard.index")
        return render_template("index.html", token=token, game_id=game_id, root=root)

    # -- pages --------------------------------------------------------------------------------

    @bp.get("/")
    def index() -> str:
        return page()

    @bp.get("/p/<token>")
    def player_page(token: str) -> Any:
        return page(token=token)

    @bp.get("/games/<game_id>")
    def archive_page(game_id: str) -> Any:
        return page(game_id=game_id)

    # -- reading ------------------------------------------------------------------------------

    @bp.get("/api/whoami")
    def whoami() -> Response:
        access = access_of()
        return jsonify({"auth": {"role": access.level, "player": access.player},
                        "table": session.table_id, "game_id": session.game_id})

    @bp.get("/api/state")
    def state() -> Response:
        access = access_of()
        return jsonify(live.snapshot(access.player if access.level == "player" else None))

    @bp.get("/api/stream")
    def stream() -> Response:
        access = access_of()
        player = access.player if access.level == "player" else None
        last = parse_last_id(request.headers.get("Last-Event-ID"), request.args.get("last"))
        resp = Response(live.stream(last, player), mimetype="text/event-stream")
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
        return jsonify({"seq": snap["seq"], "odds": snap.get("odds"),
                        "advice": {"player": current, "actions": advice}})

    @bp.get("/api/camera")
    def camera() -> Response:
        """The table camera's health from the firmware's retained status: whether it gives
        frames and, when not, why (``fault``: import, busy, absent, out_of_memory, failed) in
        the firmware's own words. Public: it says nothing about the game."""
        access_of()
        fw = dict(getattr(session, "firmware", None) or {})
        fault = fw.get("camera_fault")
        return jsonify({"camera": {
            "state": fw.get("state"), "source": fw.get("camera"), "fps": fw.get("camera_fps"),
            "fault": fault, "message": fw.get("last_error") if fault else None,
            "received": fw.get("received")}})

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
            g = _past_game(session, game_id)
        except RequestError as exc:
            return _error(str(exc), exc.reason, status=404)
        return jsonify({"game_id": g["game_id"], "seq": g["seq"],
                        "log": [page_event(e) for e in g["log"]],
                        "state": {"seq": g["seq"], "game_id": g["game_id"], "status": g["status"],
                                  "view": g["game"], "legal": [], "pending": []}})

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
            return _error("only the table (with its PIN) can show a player's own link",
                          "pin_required" if access.level == "guest" else "forbidden")
        from hub.session import RequestError

        try:
            token = session.player_token(name)
        except RequestError as exc:
            return _error(str(exc), exc.reason, status=404)
        url = request.host_url.rstrip("/") + url_for("dashboard.player_page", token=token)
        return jsonify({"player": name, "url": url, "svg": qr_svg(url)})

    # -- taps ---------------------------------------------------------------------------------

    @bp.post("/api/action")
    def action() -> Response:
        data = body()
        act = data.get("action")
        if not isinstance(act, str) or not act.strip() or len(act) > 64:
            return _error("say which action, like \"leg:blue\" or \"roll\"", "bad_payload")
        player = data.get("player")
        if player is None and session.driver.everyone_acts:
            # everyone acts at once: the action names its player (or is the table's)
            access = access_of()
            payload = {"action": act}
            if access.level == "player":
                payload["player"] = access.player
            return command("action", payload)
        if player is None:
            access = access_of()
            player = access.player if access.level == "player" else _current(session)
            if player is None:  # say why there is nobody to play for
                if session.game is None:
                    return _error("no game is being played at this table: start one first",
                                  "no_game")
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

    app.register_blueprint(bp, url_prefix=url_prefix or None)

    @app.errorhandler(404)
    def not_found(_exc: Exception) -> Any:
        return _error("no such page of the hub", "not_found", status=404)

    @app.errorhandler(405)
    def not_allowed(_exc: Exception) -> Any:
        return _error("this address does not take that method", "bad_method", status=405)

    @app.errorhandler(413)
    def too_big(_exc: Exception) -> Any:
        return _error("the request is too large", "too_large", status=413)

    return app


def _players(session: Any) -> list[str]:
    rec = getattr(session, "record", None)
    return [] if rec is None else list(rec.params.get("players", []))


def _past_game(session: Any, game_id: str) -> dict[str, Any]:
    """``TableSession.game(game_id)``: the instance attribute ``game`` (the live Game) shadows
    the method of the same name, so it is looked up on the class."""
    method = getattr(session, "past_game", None) or getattr(type(session), "game", None)
    if method is None or not callable(method):
        raise RuntimeError("the session cannot rebuild past games")
    if getattr(method, "__self__", None) is session:
        return method(game_id)  # type: ignore[no-any-return]
    return method(session, game_id)  # type: ignore[no-any-return]


def _current(session: Any) -> str | None:
    game = getattr(session, "game", None)
    return None if game is None else game.current_player


def _sentence(text: str) -> str:
    """Hub messages start lower-case (they also go into logs); on a page they read as sentences."""
    text = str(text).strip()
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    if text and text[-1] not in ".!?":
        text += "."
    return text


def _error(message: str, reason: str, *, status: int | None = None,
           extra: dict[str, Any] | None = None) -> Response:
    code = status or AUTH_ERRORS.get(reason, 400)
    payload = {"ok": False, "error": reason, "message": _sentence(message)}
    if extra:
        payload.update({k: v for k, v in extra.items() if k not in ("ok", "error", "message")})
        payload["error"] = reason
    resp = Response(json.dumps(payload), status=code, mimetype="application/json")
    return resp

"""The one command dispatcher, shared by MQTT ``request/<cmd>`` and the dashboard's HTTP posts.

Why one: the same command must be checked the same way whichever door it came in by. A request
is validated (shape, types, sizes), authorised (table PIN, a player's own token, or the firmware
in-process), then applied by the session. The answer is always a JSON-safe dict:

    {"ok": true, "cmd": "action", "seq": 42, ...}
    {"ok": false, "cmd": "action", "error": "It is Bob's turn, not Ann's.",
     "reason": "not_your_turn"}

Malformed input, a wrong PIN or a guest changes nothing at all. A well-formed, authorised action
the rules refuse also changes nothing in the game, but is logged as an ``action_refused`` event so
every screen at the table can say why.

Applied once: a request may carry a ``request_id`` (MQTT: in the payload; HTTP: the
``Idempotency-Key`` header). The id is logged in the same SQLite transaction as the events the
request causes (:meth:`hub.store.Store.append`), so a hub killed after applying a request and
before acknowledging it finds the id on restart; a repeat of the id is answered with the first
answer (``"replayed": true``) and changes nothing. An id sent again with a different request is
refused (``request_id_reused``).

A refusal is an answer too, and kept like one: a request the table judged and refused (the
rules, a stale tap, no game, nothing to undo: :class:`RequestError` and :class:`IllegalAction`)
keeps its id with its refusal, so the same id sent again gets the same refusal (``"replayed":
true``) and is never applied later by accident, when the table has moved on to a state where it
would pass (an ``undo`` refused with "nothing to undo", resent after the next move, would take
that move back). To try again after a refusal is a new request, with a new id. Not kept, because
the table never judged them: a malformed request (the same bytes are refused the same way
anyway), a refused authentication (a guest must not be able to write to the table's database;
the fingerprint names who asked, so the same id with the right PIN is another request), and an
internal error (nothing was decided; a resend is judged).

Stale taps: ``action``, ``confirm`` and ``undo`` may carry ``expected_seq``, the table's seq the
screen was drawn at. When a move, an undo or a new game was logged after it, the request is
refused with a sentence ("Bob has already moved: ...", reason ``stale``) and changes nothing: a
double tap on the shared screen never plays for the next player or takes back two actions.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from hub import observing
from hub.auth import Access, AuthError, Authority
from hub.bus import Envelope
from hub.errors import RequestError
from hub.games.common import IllegalAction
from hub.games.kinds import DEFAULT_GAME
from hub.games_glue import GAMES
from hub.observations import DieFrame
from hub.prompts import Prompt
from hub.store import RequestMark, Store
from hub.wire import (
    DICE_READING_FIELDS,
    NUMERAL_SHADES,
    OBSERVATION_FIELDS,
    OBSERVATION_REQUIRED,
    Answer,
    EventType,
)

log = logging.getLogger(__name__)


class TableSession(observing.ObservedTable, Protocol):
    """What the commands need of a table (``hub.session.TableSession``): its public API only
    (the observations' needs included: :mod:`hub.observing`)."""

    authority: Authority
    pending: dict[str, Prompt]
    table_id: str
    store: Store
    request_mark: RequestMark | None

    def players(self) -> list[str]: ...
    def player_token(self, name: str) -> str: ...
    def snapshot(self, *, log: bool = True, derived: bool = True) -> dict[str, Any]: ...
    def player_snapshot(self, token: str) -> dict[str, Any]: ...
    def past_game(self, game_id: str) -> dict[str, Any]: ...
    def games(self) -> list[dict[str, Any]]: ...
    def events_since(self, seq: int = 0, limit: int | None = None) -> list[Envelope]: ...
    def cmd_start_game(self, p: dict[str, Any], access: Access) -> dict[str, Any]: ...
    def cmd_action(self, player: str | None, action: str, access: Access) -> dict[str, Any]: ...
    def cmd_confirm(self, p: dict[str, Any], access: Access) -> dict[str, Any]: ...
    def cmd_undo(self, access: Access) -> dict[str, Any]: ...


__all__ = ["COMMANDS", "dispatch", "error"]

MAX_TEXT = 64
MAX_CROP_B64 = 2_000_000
CHANNELS = ("local", "mqtt", "http")


class _Bad(ValueError):
    def __init__(self, message: str, reason: str = "bad_payload") -> None:
        super().__init__(message)
        self.reason = reason


def error(cmd: str, message: str, reason: str, **extra: Any) -> dict[str, Any]:
    """A refusal's payload (:meth:`hub.wire.Answer.refusal`): ``message`` for people,
    ``reason`` for programs."""
    return Answer.refusal(cmd, message, reason, **extra).to_payload()


# -- validation helpers -------------------------------------------------------------------------


def _keys(
    p: Mapping[str, Any], allowed: set[str], required: frozenset[str] | set[str] = frozenset()
) -> None:
    unknown = sorted(set(p) - allowed - {"transaction"})
    if unknown:
        expected = ", ".join(sorted(allowed)) or "none"
        raise _Bad(f"unknown field {unknown[0]!r} (expected: {expected})")
    missing = sorted(required - set(p))
    if missing:
        raise _Bad(f"missing field {missing[0]!r}")


def _text(p: Mapping[str, Any], key: str, *, optional: bool = False) -> str | None:
    v = p.get(key)
    if v is None and optional:
        return None
    if not isinstance(v, str) or not v.strip() or len(v) > MAX_TEXT:
        raise _Bad(f"{key!r} must be a non-empty text of at most {MAX_TEXT} characters")
    return v


def _int(p: Mapping[str, Any], key: str, lo: int, hi: int) -> int:
    v = p.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _Bad(f"{key!r} must be a whole number from {lo} to {hi}")
    return v


def _bool(p: Mapping[str, Any], key: str) -> bool:
    v = p.get(key, False)
    if not isinstance(v, bool):
        raise _Bad(f"{key!r} must be true or false")
    return v


# -- the commands -------------------------------------------------------------------------------

START_FIELDS = {"game", "players", "setup", "setup_id", "seed", "first_player", "abandon"}


def _start_game(s: TableSession, p: Mapping[str, Any], a: Access) -> dict[str, Any]:
    _need_table(a)
    kind = p.get("game", DEFAULT_GAME.value)
    if not isinstance(kind, str) or kind not in GAMES:
        raise _Bad(
            f"unknown game {str(kind)[:MAX_TEXT]!r}: one of {', '.join(GAMES)}", "unknown_game"
        )
    drv = GAMES[kind]
    game_settings = drv.settings
    _keys(p, START_FIELDS | game_settings, {"players"})
    players = p["players"]
    if not isinstance(players, list) or not 2 <= len(players) <= 8:
        raise _Bad("'players' must be a list of 2 to 8 names, in seating order")
    for name in players:
        if not isinstance(name, str) or not name.strip() or len(name) > 32:
            raise _Bad("every player name must be a text of 1 to 32 characters")
        if any(c in name for c in "/+#\x00"):
            raise _Bad(f"the name {name!r} may not contain / + # (they are MQTT topic characters)")
    setup = p.get("setup")
    if "setup_id" in p and setup != "camera":
        raise _Bad('\'setup_id\' goes with "setup": "camera" (the reading shown)')
    if "setup_id" in p:
        _int(p, "setup_id", 1, 2**53)
    try:
        drv.validate_setup(setup)
    except ValueError as exc:
        raise _Bad(str(exc)) from None
    seed = p.get("seed")
    if seed is not None and (
        isinstance(seed, bool)
        or not isinstance(seed, int | str)
        or (isinstance(seed, str) and len(seed) > MAX_TEXT)
    ):
        raise _Bad("'seed' must be a number or a short text")
    first = p.get("first_player", drv.default_first_player)
    if first is not None and (isinstance(first, bool) or not isinstance(first, int | str)):
        raise _Bad("'first_player' is a seat number or a player's name")
    if len(repr(p)) > 20_000:
        raise _Bad("the start request is too large")
    settings = {k: p[k] for k in game_settings if k in p}
    common = {k: p[k] for k in START_FIELDS if k in p}
    return s.cmd_start_game(
        {
            **common,
            "game": kind,
            "first_player": first,
            "settings": settings,
            "abandon": _bool(p, "abandon"),
        },
        a,
    )


def _action(s: TableSession, p: Mapping[str, Any], a: Access) -> dict[str, Any]:
    if s.driver.everyone_acts and s.game is not None:
        return _action_for_all(s, p, a)
    _keys(p, {"player", "action"}, {"player", "action"})
    player = _text(p, "player")
    action = _text(p, "action")
    assert player is not None and action is not None
    if player not in s.players():
        raise _Bad(f"there is no player called {player!r} in this game", "unknown_player")
    if not a.may_act_for(player):
        raise AuthError(
            f"only {player}'s own link or the table PIN can play for {player}",
            "forbidden" if a.level == "player" else "pin_required",
        )
    return s.cmd_action(player, action, a)


def _action_for_all(s: TableSession, p: Mapping[str, Any], a: Access) -> dict[str, Any]:
    """Marco Polo II: everyone acts at once, so ``player`` is who the action is for (named in
    ``dice:``/``comp:``/``score:`` actions): their own link or the PIN; ``round`` and ``finish``
    are the table's (PIN)."""
    _keys(p, {"player", "action"}, {"action"})
    action = _text(p, "action")
    assert action is not None
    named = s.driver.acting_player(action)
    player = _text(p, "player", optional=True) or named
    if player is not None and player not in s.players():
        raise _Bad(f"there is no player called {player!r} in this game", "unknown_player")
    if named is not None and player != named:
        raise _Bad(f"the action is for {named}, not {player}", "forbidden")
    if player is None:
        _need_table(a)
    elif not a.may_act_for(player):
        raise AuthError(
            f"only {player}'s own link or the table PIN can play for {player}",
            "forbidden" if a.level == "player" else "pin_required",
        )
    return s.cmd_action(player, action, a)


def _confirm(s: TableSession, p: Mapping[str, Any], a: Access) -> dict[str, Any]:
    _keys(p, {"prompt", "accept", "colour", "face", "dismiss", "shade"}, {"prompt"})
    pid = _text(p, "prompt")
    q: dict[str, Any] = {
        "prompt": pid,
        "accept": _bool(p, "accept"),
        "dismiss": _bool(p, "dismiss"),
    }
    if "colour" in p:  # the game's driver says which colours its prompt takes
        if not isinstance(p["colour"], str) or len(p["colour"]) > MAX_TEXT:
            raise _Bad("'colour' must be a colour name", "bad_colour")
        q["colour"] = p["colour"]
    if "face" in p:  # 1 to 3 on a Camel Up die, 1 to 6 on the horse race's
        q["face"] = _int(p, "face", 1, 6)
    if "shade" in p:  # the second edition's grey die: its numeral's colour (the driver checks)
        if not isinstance(p["shade"], str) or len(p["shade"]) > MAX_TEXT:
            raise _Bad("'shade' must be black or white", "bad_payload")
        q["shade"] = p["shade"]
    prompt = s.pending.get(pid or "")
    if not a.is_table and not (
        prompt is not None
        and prompt.get("kind") == "bet_colour"
        and a.player == prompt.get("player")
    ):
        raise AuthError(
            "confirming needs the table PIN", "forbidden" if a.level == "player" else "pin_required"
        )
    return s.cmd_confirm(q, a)


def _undo(s: TableSession, p: Mapping[str, Any], a: Access) -> dict[str, Any]:
    _need_table(a)
    _keys(p, set())
    return s.cmd_undo(a)


def _observe_release(s: TableSession, p: Mapping[str, Any], a: Access) -> dict[str, Any]:
    _need_table(a)
    _keys(p, set(OBSERVATION_FIELDS["release"]))
    if "ts" in p and (isinstance(p["ts"], bool) or not isinstance(p["ts"], int | float)):
        raise _Bad("'ts' is a Unix time in seconds")
    return observing.release(s, dict(p))


def _observe_die(s: TableSession, p: Mapping[str, Any], a: Access) -> dict[str, Any]:
    _need_table(a)
    _keys(p, set(OBSERVATION_FIELDS["die"]))
    _mode(p)
    if "of" in p:
        _int(p, "of", 0, 16)
    if "index" in p:
        _int(p, "index", 0, 15)
        if "of" in p and p["index"] >= p["of"]:
            raise _Bad("'index' counts the dice of the setup pass from 0: below 'of'")
    for key in ("confidence", "colour_confidence", "face_confidence", "shade_confidence", "ts"):
        v = p.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)):
            raise _Bad(f"{key!r} must be a number")
    shade_conf = p.get("shade_confidence")
    if shade_conf is not None and not 0 <= shade_conf <= 1:
        raise _Bad("'shade_confidence' is between 0 and 1")
    if p.get("shade") is not None and p["shade"] not in NUMERAL_SHADES:
        raise _Bad(f"'shade' (the grey die's numeral) is {' or '.join(NUMERAL_SHADES)}, or null")
    if "frame" in p and p["frame"] not in [f.value for f in DieFrame]:
        raise _Bad(f"'frame' (what the die was read from) is {', '.join(DieFrame)}")
    if p.get("colour") is not None and not isinstance(p["colour"], str):
        raise _Bad("'colour' must be a colour name or null")
    face = p.get("face")
    if face is not None and (isinstance(face, bool) or not isinstance(face, int)):
        raise _Bad("'face' must be a whole number or null")
    crop = p.get("crop_b64", p.get("crop_jpeg"))
    if crop is not None and not isinstance(crop, str | bytes | bytearray):
        raise _Bad("the crop is a JPEG, as bytes or base64 text")
    if isinstance(crop, str | bytes | bytearray) and len(crop) > MAX_CROP_B64:
        raise _Bad("the crop image is too large (2 MB at most)")
    return observing.die(s, dict(p))


def _observe_track(s: TableSession, p: Mapping[str, Any], a: Access) -> dict[str, Any]:
    _need_table(a)
    _keys(p, set(OBSERVATION_FIELDS["track"]), set(OBSERVATION_REQUIRED["track"]))
    _mode(p)
    if (
        "note" in p
        and p["note"] is not None
        and (not isinstance(p["note"], str) or len(p["note"]) > 200)
    ):
        raise _Bad("'note' is a short text")
    return observing.track(s, dict(p))


MAX_READINGS = 64


def _observe_dice(s: TableSession, p: Mapping[str, Any], a: Access) -> dict[str, Any]:
    """Every die reading of one camera frame (Marco Polo II's round start)."""
    _need_table(a)
    _keys(p, set(OBSERVATION_FIELDS["dice"]), set(OBSERVATION_REQUIRED["dice"]))
    readings = p["readings"]
    if not isinstance(readings, list) or len(readings) > MAX_READINGS:
        raise _Bad(f"'readings' is a list of at most {MAX_READINGS} die readings")
    clean = []
    for r in readings:
        if not isinstance(r, Mapping):
            raise _Bad('each reading is {"colour", "face", "confidence", "box"}')
        unknown = sorted(set(r) - set(DICE_READING_FIELDS))
        if unknown:
            raise _Bad(f"unknown reading field {unknown[0]!r} (colour, face, confidence, box)")
        colour, face, conf, box = (r.get(k) for k in ("colour", "face", "confidence", "box"))
        if colour is not None and (not isinstance(colour, str) or len(colour) > MAX_TEXT):
            raise _Bad("a reading's 'colour' is a colour name or null")
        if face is not None and (isinstance(face, bool) or not isinstance(face, int)):
            raise _Bad("a reading's 'face' is a whole number or null")
        if conf is not None and (isinstance(conf, bool) or not isinstance(conf, int | float)):
            raise _Bad("a reading's 'confidence' is a number or null")
        if box is not None and (
            not isinstance(box, list)
            or len(box) != 4
            or any(isinstance(v, bool) or not isinstance(v, int | float) for v in box)
        ):
            raise _Bad("a reading's 'box' is [x, y, w, h]")
        clean.append(
            {
                "colour": colour,
                "face": face,
                "confidence": conf,
                "box": tuple(box) if box is not None else None,
            }
        )
    return observing.dice(s, {"readings": clean})


def _mode(p: Mapping[str, Any]) -> None:
    """``mode`` of a reading: "setup" (the starting roll or track) or the firmware's play mode."""
    mode = p.get("mode")
    if mode is not None and (not isinstance(mode, str) or len(mode) > MAX_TEXT):
        raise _Bad("'mode' is \"setup\" for the starting roll, else the play mode's name")


def _observe_status(s: TableSession, p: Mapping[str, Any], a: Access) -> dict[str, Any]:
    _need_table(a)
    if len(repr(p)) > 10_000:
        raise _Bad("the status is too large")
    return observing.status(s, dict(p))


def _snapshot(s: TableSession, p: Mapping[str, Any], a: Access) -> dict[str, Any]:
    _keys(p, {"log", "game_id"})
    if p.get("game_id") is not None:
        return {"snapshot": s.past_game(_text(p, "game_id") or "")}
    if a.level == "player" and a.player is not None:
        snap = s.snapshot(log=_bool(p, "log"))
        snap["me"] = a.player
        return {"snapshot": snap, "private": s.player_snapshot(s.player_token(a.player))}
    return {"snapshot": s.snapshot(log=_bool(p, "log") if "log" in p else True)}


def _games(s: TableSession, p: Mapping[str, Any], a: Access) -> dict[str, Any]:
    _keys(p, set())
    return {"games": s.games()}


def _tokens(s: TableSession, p: Mapping[str, Any], a: Access) -> dict[str, Any]:
    _need_table(a)
    _keys(p, set())
    return {"tokens": {n: s.player_token(n) for n in s.players()}}


def _need_table(a: Access) -> None:
    if not a.is_table:
        raise AuthError(
            "this needs the table PIN", "forbidden" if a.level == "player" else "pin_required"
        )


Handler = Callable[["TableSession", Mapping[str, Any], Access], dict[str, Any]]

COMMANDS: dict[str, Handler] = {
    "start_game": _start_game,
    "action": _action,
    "confirm": _confirm,
    "undo": _undo,
    "observe_release": _observe_release,
    "observe_die": _observe_die,
    "observe_track": _observe_track,
    "observe_status": _observe_status,
    "observe_dice": _observe_dice,
    "snapshot": _snapshot,
    "games": _games,
    "tokens": _tokens,
}

#: Commands a device on the MQTT broker may send without a PIN: the broker's own credentials
#: are the gate for the firmware (it does not know the table PIN). See docs/mqtt.md.
MQTT_TRUSTED = frozenset(
    {"observe_release", "observe_die", "observe_track", "observe_status", "observe_dice"}
)


#: Commands that change the table: their ``request_id`` is logged, their repeats answered again.
MUTATING = frozenset(
    {
        "start_game",
        "action",
        "confirm",
        "undo",
        "observe_release",
        "observe_die",
        "observe_track",
        "observe_dice",
    }
)

#: Commands a screen sends with the ``expected_seq`` it was drawn at.
SEQ_CHECKED = frozenset({"action", "confirm", "undo"})

#: Logged events that do not change what a tap on the screen means (readings, prompts,
#: refusals): a tap drawn before them is still the tap its player meant.
NOT_STALE = frozenset(
    {
        EventType.DIE_RELEASED,
        EventType.VISION_UNCERTAIN,
        EventType.TRACK_MISMATCH,
        EventType.ACTION_REFUSED,
        EventType.BET_PENDING,
        EventType.PROMPT_DISMISSED,
        EventType.ROLL_UNCERTAIN,
        EventType.DICE_UNCERTAIN,
        EventType.CORRECTION,
        EventType.LINK_RELEASED,
    }
)

MAX_REQUEST_ID = 64


def request_id_error(rid: Any) -> str | None:
    """Why ``rid`` is not a request id (None when it is one): a text of 1 to 64 letters,
    digits and ``-_.:``."""
    if (
        not isinstance(rid, str)
        or not 0 < len(rid) <= MAX_REQUEST_ID
        or not all(c.isascii() and (c.isalnum() or c in "-_.:") for c in rid)
    ):
        return (
            f"'request_id' is a text of 1 to {MAX_REQUEST_ID} letters, digits and -_.: "
            "(one per request, the same when the request is sent again)"
        )
    return None


def _fingerprint(cmd: str, payload: Any, access: Access) -> str:
    """What a request asked, and who asked: the same id sent again must be the same request."""
    import hashlib
    import json

    try:
        body = json.dumps(payload, sort_keys=True, default=repr)
    except TypeError:  # keys of mixed types (a track's spaces)
        body = repr(payload)
    who = f"{access.level}:{access.player or ''}"
    return hashlib.sha256(f"{cmd}\0{who}\0{body}".encode()).hexdigest()


def _repeat(cmd: str, mark: RequestMark, session: TableSession) -> dict[str, Any] | None:
    """The answer to a request id already applied (None: not applied yet)."""
    done = session.store.applied_request(session.table_id, mark.request_id)
    if done is None:
        return None
    if done.fingerprint != mark.fingerprint or done.cmd != cmd:
        return error(
            cmd,
            f"the request id {mark.request_id!r} was already used for another "
            "request: nothing was done (send a new id with each new request)",
            "request_id_reused",
            request_id=mark.request_id,
        )
    if done.answer is not None:
        return Answer.from_payload(done.answer).replay(mark.request_id).to_payload()
    applied = Answer(
        cmd,
        True,
        seq=done.seq,
        fields={
            "message": "This request was already applied (before the hub restarted); "
            "nothing was done again."
        },
    )
    return applied.replay(mark.request_id).to_payload()


def _check_fresh(
    session: TableSession, expected: Any, cmd: str, payload: Mapping[str, Any]
) -> None:
    """Refuse a tap drawn before a move, an undo or a new game (see the module docstring).

    In a game where everyone acts at once (Marco Polo II's round), another player's action
    meanwhile does not make a player's own action stale: only their own, or the table's (a new
    round, an undo, the end), does."""
    if isinstance(expected, bool) or not isinstance(expected, int) or expected < 0:
        raise _Bad("'expected_seq' is the table's seq the screen showed (a whole number)")
    now = session.seq
    if expected == now:
        return
    if expected > now:
        raise RequestError(
            f"this screen shows seq {expected} but the table is at {now}: reload the page", "stale"
        )
    own: str | None = None
    if cmd == "action" and session.driver.everyone_acts:
        action = payload.get("action")
        own = payload.get("player") or (
            session.driver.acting_player(action) if isinstance(action, str) else None
        )
    for env in session.events_since(expected):
        kind = env.type
        if kind in NOT_STALE:
            continue
        mover = env.event.get("player") or env.event.get("by")
        if own is not None and isinstance(mover, str) and mover != own and kind != EventType.UNDO:
            continue  # someone else's own action, in a game where all act at once
        if kind == EventType.UNDO:
            sentence = "The last action was just taken back"
        elif kind in (EventType.GAME_ABANDONED, EventType.GAME_STARTED):
            sentence = "Another game has started"
        elif isinstance(mover, str) and mover and mover != "table":
            sentence = f"{mover} has already moved"
        else:
            sentence = "The game has moved on"
        raise RequestError(
            f"{sentence}: nothing was done (the {cmd} was tapped on a screen "
            "drawn before it). Look at the table again.",
            "stale",
        )


def _no_secret_for_the_table(session: TableSession, payload: Mapping[str, Any]) -> None:
    """The table's PIN never names a player's secret (an overall bet's colour): the player
    chooses it on their own page. Otherwise the PIN holder could place bets for another player
    and read the refusals ("the orange card is already played") to learn that player's bets."""
    action = payload.get("action")
    if isinstance(action, str) and session.driver.public_action(action) != action:
        raise AuthError(
            "the colour of an overall bet is its player's secret: tap the bet on "
            "the table's screen, and the player chooses the colour on their own page",
            "secret_bet",
        )


def dispatch(
    session: TableSession,
    cmd: Any,
    payload: Any,
    auth: Any = None,
    *,
    channel: str = "local",
    trust_mqtt_observations: bool = True,
    request_id: str | None = None,
    asked: Any = None,
) -> dict[str, Any]:
    """Validate, authorise and apply one command; always answer a dict, never raise.

    ``request_id`` (or a ``request_id`` field of the payload) makes a changing command applied
    once: see the module docstring. ``asked`` is what the client sent, when the payload was
    completed for it (HTTP fills in whose turn it is): a repeat is the same request when it
    asked the same, whatever the table's state meanwhile."""
    name = cmd if isinstance(cmd, str) else repr(cmd)
    if not isinstance(cmd, str) or cmd not in COMMANDS:
        return error(
            name[:MAX_TEXT],
            f"unknown command {name[:MAX_TEXT]!r} (one of {', '.join(COMMANDS)})",
            "bad_command",
        )
    if payload is None:
        payload = {}
    if not isinstance(payload, Mapping):
        return error(cmd, "the request must be a JSON object", "bad_payload")
    payload = dict(payload)
    in_body = payload.pop("request_id", None)
    rid = request_id if request_id is not None else in_body
    if rid is not None and (why := request_id_error(rid)) is not None:
        return error(cmd, why, "bad_request_id")
    expected = payload.pop("expected_seq", None) if cmd in SEQ_CHECKED else None
    with session.lock:
        before = session.seq
        marks: list[RequestMark] = []
        answer = _apply(
            session,
            cmd,
            payload,
            auth,
            channel,
            trust_mqtt_observations,
            rid,
            expected,
            marks,
            payload if asked is None else asked,
        )
        if marks:  # applied, or judged and refused: the first answer, for a repeat of the id
            try:
                session.store.keep_answer(
                    session.table_id,
                    marks[0],
                    answer,
                    session.seq if session.seq != before else None,
                )
            except Exception:  # the request is applied (and its id logged with its events)
                log.exception("cannot keep the answer of request %s", marks[0].request_id)
        if rid is not None:
            answer = Answer.from_payload(answer).with_request_id(rid).to_payload()
        return answer


def _apply(
    session: TableSession,
    cmd: str,
    payload: dict[str, Any],
    auth: Any,
    channel: str,
    trust_mqtt_observations: bool,
    rid: str | None,
    expected: Any,
    marks: list[RequestMark],
    asked: Any,
) -> dict[str, Any]:
    """Authorise and run one command under the table's lock; a request applied now (not a
    repeat) leaves its :class:`RequestMark` in ``marks``."""
    before = session.seq
    try:
        if channel == "local" and auth is None:
            auth = {"local": True}
        elif isinstance(auth, Mapping) and auth.get("local") and channel != "local":
            raise AuthError("only the hub's own process may act as local", "bad_auth")
        access = session.authority.check(auth, session.game_id, session.players())
        if (
            channel == "mqtt"
            and trust_mqtt_observations
            and cmd in MQTT_TRUSTED
            and access.level == "guest"
        ):
            access = Access("table")
        mark = None
        if rid is not None and cmd in MUTATING:
            mark = RequestMark(rid, cmd, _fingerprint(cmd, asked, access))
            repeat = _repeat(cmd, mark, session)
            if repeat is not None:
                return repeat
            marks.append(mark)
        if expected is not None:
            _check_fresh(session, expected, cmd, payload)
        if cmd == "action" and channel != "local" and access.is_table:
            _no_secret_for_the_table(session, payload)
        session.request_mark = mark
        try:
            result = COMMANDS[cmd](session, payload, access)
        finally:
            session.request_mark = None
        return Answer.done(cmd, session.seq, result).to_payload()
    except (AuthError, _Bad) as exc:
        marks.clear()  # not judged by the table: nothing to keep (see the module docstring)
        return error(cmd, str(exc), getattr(exc, "reason", "bad_payload"))
    except RequestError as exc:
        extra = {} if exc.seq is None else {"seq": exc.seq}
        return error(cmd, str(exc), exc.reason, **extra)
    except IllegalAction as exc:
        return error(cmd, str(exc), exc.reason)
    except Exception as exc:  # a bug must answer, not kill the MQTT loop or the HTTP worker
        log.exception("command %s failed", cmd)
        if session.seq == before:
            marks.clear()  # nothing was decided: a resend is judged afresh
        return error(cmd, f"internal error: {type(exc).__name__}", "internal")

"""The horse race's driver, and its camera: a die reading becomes a roll, a track reading the horse
it went to.

Pure: readings and the state in, a decision out; the session logs it. The rule is the same as
Camel Up's: the hub never guesses. A die the camera is not sure of (no face, a face off the die,
a confidence under the table's threshold) becomes a person prompt; a track that does not show
exactly one not-yet-moved horse advanced by the roll is reported as a mismatch, and the roller
(or anyone with the PIN) gives the roll to a horse on the dashboard.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hub.auth import Access
from hub.errors import RequestError
from hub.games.common import IllegalAction
from hub.games.horserace import Action, Assign, Roll, State, assignment_from_track, roll_from_die
from hub.games.horserace.camera import positions_from_reading
from hub.games.horserace.settings import DIE_FACES
from hub.games.kinds import GameKind
from hub.games_glue.base import TO_MOVE, Driver, EngineGame, Payload, Sensor, Table, bad_settings
from hub.observations import frame_doubt
from hub.prompts import Prompt

__all__ = ["DRIVER", "HorseRace", "TrackDecision", "judge_roll", "judge_track"]


def judge_roll(reading: Mapping[str, Any], threshold: float) -> tuple[Roll | None, list[str]]:
    """(the roll, []) for a reading the hub may play, else (None, the problems in sentences)."""
    face = reading.get("face")
    conf = reading.get("confidence")
    problems: list[str] = []
    if face is None:
        problems.append(
            "the camera read no face" + (f" ({reading['reason']})" if reading.get("reason") else "")
        )
    elif not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= DIE_FACES:
        problems.append(f"a die shows 1 to {DIE_FACES}, not {face!r}")
    if conf is None:
        problems.append("the reading has no confidence")
    elif conf < threshold:
        problems.append(f"confidence {conf:.2f} is below {threshold:.2f}")
    doubt = frame_doubt(reading)  # a preview fallback: never played on its own (issue 14)
    if doubt is not None:
        problems.append(doubt)
    if problems:
        return None, problems
    try:
        return roll_from_die(reading, threshold), []
    except IllegalAction as exc:  # the engine's own doubt
        return None, [str(exc)]


@dataclass(frozen=True)
class TrackDecision:
    """``kind``: "assign" (play ``action``), "match" (the track is as the game says),
    "waiting" (a roll in hand, no horse moved yet) or "mismatch" (``differences``)."""

    kind: str
    action: Assign | None = None
    differences: list[str] = field(default_factory=list)


def _seen(reading: Mapping[Any, Any]) -> dict[str, int]:
    try:
        return positions_from_reading(reading)
    except (TypeError, ValueError):
        raise IllegalAction(
            "bad_track",
            "a track reading is {space: [horses]} or {horse: space} with whole-number spaces",
        ) from None


def judge_track(
    state: State, track: Mapping[Any, Any], uncertain: list[Any] | None = None
) -> TrackDecision:
    """What a still track means for the game. ``uncertain`` spaces (the reader's doubts) make
    anything but a plain match a mismatch: a doubtful space is never read as a move."""
    seen = _seen(track)
    length = state.settings.track_length
    differs = []
    for h, horse in enumerate(state.horses):
        if h in state.podium:
            continue
        now = min(seen.get(horse, length), length)
        before = min(state.positions[h], length)
        if now != before:
            differs.append(f"{horse}: the game has {before}, the camera saw {now}")
    unknown = sorted(set(seen) - set(state.horses))
    differs += [f"{h} is not a horse of this race" for h in unknown]
    if not differs:
        return TrackDecision("waiting" if state.roll is not None else "match")
    if uncertain:
        return TrackDecision(
            "mismatch",
            differences=[
                *differs,
                f"the camera is unsure of space(s) {', '.join(map(str, uncertain))}",
            ],
        )
    if state.roll is None or state.phase != "running" or state.finished:
        return TrackDecision("mismatch", differences=differs)
    try:
        return TrackDecision("assign", action=assignment_from_track(state, seen))
    except IllegalAction as exc:
        return TrackDecision("mismatch", differences=[str(exc)])


#: a game of the horse race, as its driver sees it
ThisGame = EngineGame[State, Action]


class HorseRace(Driver[State, Action]):
    kind = GameKind.HORSERACE
    package = "hub.games.horserace"
    title = "the horse race"
    script = "horserace.js"
    settings = frozenset(
        {"races", "track_length", "next_starter", "score_table", "horses", "tokens"}
    )

    def check_settings(self, given: Mapping[str, Any]) -> dict[str, Any]:
        from hub.games.horserace import Settings

        data = super().check_settings(given)
        for key in ("races", "track_length", "tokens"):
            v = data.get(key)
            if key in data and (isinstance(v, bool) or not isinstance(v, int)):
                raise bad_settings(f"{key!r} must be a whole number, not {v!r}")
        if "score_table" in data:
            rows = data["score_table"]
            if (
                not isinstance(rows, list)
                or not all(isinstance(r, list) for r in rows)
                or any(isinstance(v, bool) for r in rows for v in r)
            ):
                raise bad_settings(
                    "'score_table' is a list of rows of whole numbers, one row per podium place"
                )
        if "horses" in data and (
            not isinstance(data["horses"], list)
            or not all(isinstance(h, str) for h in data["horses"])
        ):
            raise bad_settings("'horses' is a list of horse names")
        if "next_starter" in data and not isinstance(data["next_starter"], str):
            raise bad_settings('\'next_starter\' is "leader" or "rotate"')
        if data.get("track_length", 30) > 200 or data.get("races", 1) > 20:
            raise bad_settings("the track is at most 200 spaces and a game at most 20 races")
        try:
            settings = Settings.from_json(data)
        except (TypeError, ValueError) as exc:
            if isinstance(exc, IllegalAction):
                raise
            raise bad_settings(f"the horse race's settings are not right: {exc}") from None
        full = settings.to_json()
        return {k: full[k] for k in data}  # only what was given: defaults stay the engine's

    def new(self, params: Mapping[str, Any]) -> ThisGame:
        from hub.games.horserace import Game

        first = params.get("first_player")
        return Game.new(
            params["players"],
            seed=params.get("seed"),
            first_player=first,
            **dict(params.get("settings") or {}),
        )

    def players(self, game: ThisGame) -> list[str]:
        return list(game.state.players)

    def annotate(self, event: dict[str, Any], cause: Mapping[str, Any]) -> dict[str, Any]:
        """A roll: its crop and confidence, and whether the camera or a person read it."""
        if event.get("type") == "die_rolled" and cause.get("cmd") in ("observe_die", "confirm"):
            return {
                **event,
                "crop": cause.get("crop"),
                "confidence": cause.get("confidence"),
                "read": "vision" if cause["cmd"] == "observe_die" else "confirmed",
            }
        return event

    def default_actor(self, game: ThisGame) -> str | None:
        """A roll entered with no player is the player to move's."""
        return game.current_player

    def confirm(
        self, table: Table, game: ThisGame, prompt: Prompt, p: Payload, access: Access
    ) -> dict[str, Any]:
        """A person says what the die shows (or accepts the camera's reading)."""
        if prompt["kind"] != "roll_reading":
            return super().confirm(table, game, prompt, p, access)
        pid = prompt["id"]
        reading = prompt.get("reading", {})
        face = p.get("face", reading.get("face"))
        if not p.get("accept") and "face" not in p:
            raise RequestError("say accept, or give the face seen", "bad_payload")
        if not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= DIE_FACES:
            raise RequestError(
                f"the reading cannot be accepted as it is (face {face}): give "
                f"the face seen, 1 to {DIE_FACES}",
                "bad_face",
            )
        act = self.parse_action(f"roll:{face}")
        player = game.current_player
        try:
            events = self.check(game, act, player)
        except IllegalAction as exc:
            raise RequestError(str(exc), exc.reason) from None
        correction = {
            "type": "correction",
            "prompt": pid,
            "face": face,
            "read": {"face": reading.get("face")},
            "changed": face != reading.get("face"),
            "by": access.player or "table",
        }
        return table.play(
            act,
            player,
            events,
            {
                "cmd": "confirm",
                "action": str(act),
                "player": player,
                "resolves": sorted({pid, *self.answered(game, table.pending, events)}),
                "crop": prompt.get("crop"),
                "confidence": reading.get("confidence"),
            },
            before=[("hub", correction)],
        )

    def observe_die(self, table: Table, game: ThisGame, p: Payload) -> dict[str, Any]:
        """A die read by the camera: the roll, or a person prompt (never a guess)."""
        crop_id = table.keep_crop(p)
        player = game.current_player
        roll, problems = judge_roll(p, table.threshold)
        if roll is not None:
            try:
                events = self.check(game, roll, player)
            except IllegalAction as exc:  # a readable die the rules refuse (no roll due now)
                problems = [str(exc)]
            else:
                return table.play(
                    roll,
                    player,
                    events,
                    {
                        "cmd": "observe_die",
                        "action": str(roll),
                        "player": player,
                        "crop": crop_id,
                        "confidence": p.get("confidence"),
                        "resolves": self.answered(game, table.pending, events),
                    },
                )
        pid = table.next_prompt()
        ev = {
            "type": "roll_uncertain",
            "prompt": pid,
            "player": player,
            "reading": {"face": p.get("face"), "confidence": p.get("confidence")},
            "problems": problems,
            "crop": crop_id,
        }
        table.log([ev], {"cmd": "observe_die", "crop": crop_id})
        return {"uncertain": True, "prompt": pid, "problems": problems}

    def observe_track(self, table: Table, game: ThisGame, p: Payload) -> dict[str, Any]:
        """A still track: the horse the roll in hand went to, or what differs."""
        try:
            decision = judge_track(game.state, p["track"], p.get("uncertain"))
        except IllegalAction as exc:
            raise RequestError(str(exc), "bad_payload") from None
        if decision.kind in ("match", "waiting"):
            return {"match": True, **({"waiting": True} if decision.kind == "waiting" else {})}
        if decision.kind == "assign" and decision.action is not None and table.active:
            act = decision.action
            player = game.current_player
            try:
                events = self.check(game, act, player)
            except IllegalAction as exc:
                decision = TrackDecision("mismatch", differences=[str(exc)])
            else:
                out = table.play(
                    act,
                    player,
                    events,
                    {"cmd": "observe_track", "action": str(act), "player": player},
                )
                return {"match": True, "action": str(act), **out}
        ev = {"type": "track_mismatch", "differences": list(decision.differences), "spaces": []}
        table.log([ev], {"cmd": "observe_track"})
        return {"match": False, "differences": ev["differences"]}

    def sensors(self) -> list[Sensor]:
        return [TO_MOVE]

    def derived(self, state: State, player: str | None, odds: bool, advice: bool) -> dict[str, Any]:
        """The podium odds as ``odds``, and as ``advice`` the roll in hand's choices
        (``advise_roll``: each horse's expected points per player with the standard error) and
        what a token is worth now (``bet_values``), both Monte Carlo, ~0.1 s together, so they
        are computed in the odds worker, off the request path, like Camel Up's."""
        from hub.games.horserace import advise_roll, bet_values

        if state.finished or not (odds or advice):
            return {"odds": None, "advice": []}
        bets = bet_values(state)
        roll = advise_roll(state) if state.phase == "running" and state.roll is not None else None
        out: dict[str, Any] = {
            "odds": {"podium": bets["podium_odds"]} if odds else None,
            "advice": [],
        }
        if advice:
            out["advice"] = {
                "game": str(self.kind),
                "player": state.current_player(),
                "roll": roll,
                "bets": bets if state.phase == "betting" else None,
            }
        return out


DRIVER = HorseRace()

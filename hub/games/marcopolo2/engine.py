"""The Marco Polo II assistant as a small event-sourced game, driven like the other two.

It does not play Marco Polo II: it keeps the round count, each round's dice per player with the
total and the compensation owed and taken, and at the end the score sheets and the result.

Actions and notation (``str(action)`` round-trips through ``parse_action``):
- ``dice:<player>:3,5,6,1,2`` or ``dice:<player>:3,5,6,1,2+4`` — the player's dice this round
  (own colour, then black dice after ``+``), as the camera read them or a person entered them;
- ``comp:<player>:<coins>`` — the player takes that many coins and the rest as camels;
- ``round`` — the next round starts (5 rounds);
- ``score:<player>:coins=23,pepper=2,...`` — the player's final score sheet (zero entries may be
  left out; see ``scoring.ScoreSheet``);
- ``finish`` — score the game once every sheet is in: the ``game_over`` event.

Events: game_started {players, colours, rounds, setup, banner_table}, round_started {round},
dice_read {round, player, colour, faces, black, total, owed}, compensation_taken {round, player,
coins, camels}, sheet_entered {player, sheet}, game_over (``scoring.final_scoring``'s result).

Settled here: a round cannot end while someone is owed compensation and has not chosen coins or
camels (the companion's job is that nobody forgets it); a player's dice can be re-read until they
have taken their compensation (undo that first); sheets are entered in round 5 only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hub.games.common import Event, EventSourcedGame, IllegalAction, check_player_names
from hub.games.marcopolo2.dice import compensation, split_compensation
from hub.games.marcopolo2.scoring import ScoreSheet, final_scoring
from hub.games.marcopolo2.setup import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    PLAYER_COLOURS,
    ROUNDS,
    setup_for,
)


@dataclass(frozen=True)
class ReadDice:
    player: str
    faces: tuple[int, ...]
    black: tuple[int, ...] = ()

    def __str__(self) -> str:
        text = f"dice:{self.player}:{','.join(map(str, self.faces))}"
        return text + (f"+{','.join(map(str, self.black))}" if self.black else "")


@dataclass(frozen=True)
class Compensate:
    player: str
    coins: int

    def __str__(self) -> str:
        return f"comp:{self.player}:{self.coins}"


@dataclass(frozen=True)
class NextRound:
    def __str__(self) -> str:
        return "round"


@dataclass(frozen=True)
class EnterSheet:
    player: str
    sheet: tuple[tuple[str, int], ...]  # (entry, value) pairs, hashable and ordered

    def __str__(self) -> str:
        return f"score:{self.player}:" + ",".join(f"{k}={v}" for k, v in self.sheet)


@dataclass(frozen=True)
class Finish:
    def __str__(self) -> str:
        return "finish"


Action = ReadDice | Compensate | NextRound | EnterSheet | Finish


def _ints(text: str, whole: str) -> tuple[int, ...]:
    if not text:
        return ()
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise IllegalAction(
            "bad_action", f"'{whole}': dice are numbers separated by commas."
        ) from None


def parse_action(text: str) -> Action:
    if not isinstance(text, str):
        raise IllegalAction("bad_action", f"An action is text like 'round', not {text!r}.")
    parts = text.strip().split(":")
    head = parts[0].lower()
    if head == "round" and len(parts) == 1:
        return NextRound()
    if head == "finish" and len(parts) == 1:
        return Finish()
    if head == "dice" and len(parts) == 3 and parts[2]:
        own, _, black = parts[2].partition("+")
        return ReadDice(parts[1], _ints(own, text), _ints(black, text))
    if head == "comp" and len(parts) == 3:
        try:
            return Compensate(parts[1], int(parts[2]))
        except ValueError:
            raise IllegalAction("bad_action", f"'{text}': coins are a number.") from None
    if head == "score" and len(parts) == 3:
        pairs = []
        for item in filter(None, parts[2].split(",")):
            key, eq, value = item.partition("=")
            try:
                pairs.append((key.strip(), int(value)))
            except ValueError:
                raise IllegalAction("bad_action", f"'{text}': entries are name=number.") from None
            if not eq:
                raise IllegalAction("bad_action", f"'{text}': entries are name=number.")
        return EnterSheet(parts[1], tuple(pairs))
    raise IllegalAction(
        "bad_action",
        f"'{text}' is not a Marco Polo II assistant action; use "
        "dice:<player>:<faces>[+<black>], comp:<player>:<coins>, round, "
        "score:<player>:<entry>=<n>,... or finish.",
    )


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    colours: dict[str, str]
    banner_table: tuple[int, ...] | None = None
    round: int = 0
    dice: dict[str, dict[str, Any]] = field(default_factory=dict)  # this round
    compensation: dict[str, dict[str, int]] = field(default_factory=dict)  # this round
    history: tuple[dict[str, Any], ...] = ()  # earlier rounds: {round, dice, compensation}
    sheets: dict[str, dict[str, Any]] = field(default_factory=dict)
    result: dict[str, Any] | None = None

    @property
    def finished(self) -> bool:
        return self.result is not None

    def pending_compensation(self) -> list[str]:
        return [p for p, d in self.dice.items() if d["owed"] and p not in self.compensation]


def initial(event: Event) -> State:
    if event.get("type") != "game_started" or event.get("game") != "marcopolo2":
        raise IllegalAction("bad_log", "A Marco Polo II log must begin with its game_started.")
    table = event.get("banner_table")
    return State(
        players=tuple(event["players"]),
        colours=dict(event["colours"]),
        banner_table=tuple(table) if table is not None else None,
    )


def apply(state: State, event: Event) -> State:
    kind = event.get("type")
    if kind == "round_started":
        history = state.history
        if state.round:
            history += (
                {"round": state.round, "dice": state.dice, "compensation": state.compensation},
            )
        return replace(state, round=event["round"], dice={}, compensation={}, history=history)
    if kind == "dice_read":
        keep = {k: event[k] for k in ("colour", "faces", "black", "total", "owed")}
        return replace(state, dice={**state.dice, event["player"]: keep})
    if kind == "compensation_taken":
        return replace(
            state,
            compensation={
                **state.compensation,
                event["player"]: {"coins": event["coins"], "camels": event["camels"]},
            },
        )
    if kind == "sheet_entered":
        return replace(state, sheets={**state.sheets, event["player"]: dict(event["sheet"])})
    if kind == "game_over":
        return replace(state, result=dict(event))
    raise IllegalAction("bad_log", f"Unknown Marco Polo II event type {kind!r}.")


def _player(state: State, name: str) -> str:
    if name not in state.players:
        raise IllegalAction(
            "unknown_player",
            f"'{name}' is not playing; the players are {', '.join(state.players)}.",
        )
    return name


def decide(state: State, action: Action | str) -> list[Event]:
    if isinstance(action, str):
        action = parse_action(action)
    if state.finished:
        raise IllegalAction("game_over", "The game is scored: no more actions.")
    if isinstance(action, ReadDice):
        p = _player(state, action.player)
        if p in state.compensation:
            raise IllegalAction(
                "already_compensated",
                f"{p} has taken compensation for these dice; undo that before correcting the dice.",
            )
        faces, black = list(action.faces), list(action.black)
        if not faces and not black:
            raise IllegalAction("bad_dice", f"No dice given for {p}.")
        for f in faces + black:
            if not isinstance(f, int) or not 1 <= f <= 6:
                raise IllegalAction("bad_face", f"A die shows 1 to 6, not {f!r}.")
        total = sum(faces) + sum(black)
        return [
            {
                "type": "dice_read",
                "round": state.round,
                "player": p,
                "colour": state.colours[p],
                "faces": faces,
                "black": black,
                "total": total,
                "owed": compensation(total),
            }
        ]
    if isinstance(action, Compensate):
        p = _player(state, action.player)
        if p not in state.dice:
            raise IllegalAction("no_dice", f"{p}'s dice are not read yet this round.")
        if p in state.compensation:
            raise IllegalAction("already_compensated", f"{p} has already been compensated.")
        owed = state.dice[p]["owed"]
        if not owed:
            raise IllegalAction(
                "nothing_owed", f"{p}'s dice total {state.dice[p]['total']}: nothing is owed."
            )
        split = split_compensation(owed, action.coins)
        return [{"type": "compensation_taken", "round": state.round, "player": p, **split}]
    if isinstance(action, NextRound):
        if state.round >= ROUNDS:
            raise IllegalAction("last_round", f"Round {ROUNDS} is the last; finish and score.")
        pending = state.pending_compensation()
        if pending:
            raise IllegalAction(
                "compensation_pending",
                f"{', '.join(pending)} must still choose coins or camels for their compensation.",
            )
        return [{"type": "round_started", "round": state.round + 1}]
    if isinstance(action, EnterSheet):
        p = _player(state, action.player)
        if state.round < ROUNDS:
            raise IllegalAction(
                "too_early", f"Final scoring is after round {ROUNDS}; this is round {state.round}."
            )
        sheet = ScoreSheet.from_json(dict(action.sheet), p)
        if sheet.banners is not None and sheet.banner_points is None and state.banner_table is None:
            raise IllegalAction(
                "no_banner_table",
                f"{p}: a banner count needs the banner table setting; enter banner_points instead.",
            )
        entered = {k: v for k, v in sheet.to_json().items() if v}
        return [{"type": "sheet_entered", "player": p, "sheet": entered}]
    if isinstance(action, Finish):
        if state.round < ROUNDS:
            raise IllegalAction("too_early", f"The game ends after round {ROUNDS}.")
        missing = [p for p in state.players if p not in state.sheets]
        if missing:
            raise IllegalAction(
                "sheets_missing", f"Score sheets still missing: {', '.join(missing)}."
            )
        return [final_scoring({p: state.sheets[p] for p in state.players}, state.banner_table)]
    raise IllegalAction("bad_action", f"{action!r} is not a Marco Polo II assistant action.")


class Game(EventSourcedGame[State]):
    """The Marco Polo II assistant's log, state, undo and replay.

    >>> g = Game.new(["Ann", "Bob"])
    >>> g.play("dice:Ann:1,2,3,1,2")[0]["owed"]
    6
    >>> g.play("comp:Ann:4")[0]["camels"]
    2
    """

    _ACTION_STARTS = frozenset(
        {"round_started", "dice_read", "compensation_taken", "sheet_entered", "game_over"}
    )

    _apply = staticmethod(apply)
    _initial = staticmethod(initial)

    def _decide(self, state: State, action: Any, player: str | None) -> list[Event]:
        return decide(state, action)

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        colours: Sequence[str] | Mapping[str, str] | None = None,
        banner_table: Sequence[int] | None = None,
    ) -> Game:
        """Start the assistant for 2 to 4 players; colours default to blue, yellow, green, red
        in seat order. Begins at round 1."""
        names = check_player_names(players, MIN_PLAYERS, MAX_PLAYERS)
        if colours is None:
            cmap = dict(zip(names, PLAYER_COLOURS, strict=False))
        elif isinstance(colours, Mapping):
            cmap = dict(colours)
        else:
            cmap = dict(zip(names, colours, strict=False))
        if (
            sorted(cmap) != sorted(names)
            or len(set(cmap.values())) != len(names)
            or not set(cmap.values()) <= set(PLAYER_COLOURS)
        ):
            raise IllegalAction(
                "bad_colours",
                f"Each player needs a different colour from {', '.join(PLAYER_COLOURS)}.",
            )
        if banner_table is not None and any(not isinstance(v, int) or v < 0 for v in banner_table):
            raise IllegalAction("bad_settings", "The banner table is whole numbers >= 0.")
        events: list[Event] = [
            {
                "type": "game_started",
                "game": "marcopolo2",
                "players": names,
                "colours": cmap,
                "rounds": ROUNDS,
                "setup": setup_for(len(names)),
                "banner_table": list(banner_table) if banner_table is not None else None,
            },
            {"type": "round_started", "round": 1},
        ]
        game = cls.__new__(cls)
        game._load(events)
        game._marks, game._stack = [], []  # the first round is part of the setup
        return game

    @classmethod
    def replay(cls, events: Sequence[Event]) -> Game:
        game = cls.__new__(cls)
        game._load(list(events))
        if len(game._marks) and game._marks[0] == 1:  # round 1 belongs to the setup
            game._marks.pop(0)
            game._stack.pop(0)
        return game

    def check(self, action: Action | str, player: str | None = None) -> list[Event]:
        """Everyone acts at once: ``player`` is ignored (the action names whose it is)."""
        return decide(self._state, action)

    @property
    def finished(self) -> bool:
        return self._state.finished

    @property
    def current_player(self) -> str | None:
        """Everyone acts at once in this assistant: there is no player to move."""
        return None

    def legal_actions(self) -> list[Action]:
        """The actions that need no numbers from the table: pending compensation choices (all
        coins or all camels shown as the two ends), the next round, or finish."""
        s = self._state
        if s.finished:
            return []
        out: list[Action] = []
        for p in s.pending_compensation():
            owed = s.dice[p]["owed"]
            out += [Compensate(p, owed), Compensate(p, 0)]
        if s.round < ROUNDS and not out:
            out.append(NextRound())
        if s.round == ROUNDS and all(p in s.sheets for p in s.players):
            out.append(Finish())
        return out

"""What both editions of Camel Up share, written once: whose turn it is, the game-over reveal of
the overall piles, a track's validation, the tile rules' refusals, the secret parts of the views
and the game's shell (start event, replay, the player to move).

Each edition keeps its own rules, state and words where they differ and passes them here as
values: its camels, its tile (:class:`TileRules`: the first edition's desert tile, the second's
spectator tile), the name of its cards (:class:`Hand`). Nothing here asks which edition it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Self, TypeVar

from hub.games.camelup.model import PILES, SPACES, overall_payout
from hub.games.common import EventSourcedGame, IllegalAction

Event = dict[str, Any]
S = TypeVar("S")

__all__ = [
    "CamelUpGame",
    "Hand",
    "TileRules",
    "check_stacks",
    "game_over",
    "player_to_move",
    "public_event",
    "tile_placements",
    "tile_refusal",
    "with_all_secrets",
    "with_own_secrets",
]


# -- whose turn -------------------------------------------------------------------------------
def player_to_move(state: Any, player: str | None) -> str:
    """The name of the player to move, checked against ``player`` (who says they act, if
    given); IllegalAction once the race is over or out of turn."""
    if state.finished or state.current is None:
        raise IllegalAction("game_over", "The race is over: no more actions this game.")
    mover: str = state.players[state.current].name
    if player is not None and player != mover:
        if player not in state.names:
            raise IllegalAction("unknown_player", f"There is no player called {player!r} here.")
        raise IllegalAction("not_your_turn", f"It is {mover}'s turn, not {player}'s.")
    return mover


# -- the end of the race ----------------------------------------------------------------------
def game_over(state: Any, order: list[str], money: dict[str, int]) -> Event:
    """The game_over event from the race's final ranking ``order`` (racing camels, winner
    first): the winner pile then the loser pile, card by card in the order placed; a correct
    card pays by how many correct ones came before it, a wrong one costs 1 (never below 0).
    ``state`` needs ``overall``, ``players`` and ``names``."""
    result = {"winner": order[0], "loser": order[-1]}
    money = dict(money)
    revealed = []
    for pile in PILES:
        correct = 0
        for i, colour in state.overall[pile]:
            name = state.players[i].name
            if colour == result[pile]:
                payout = overall_payout(correct)
                correct += 1
            else:
                payout = -min(1, money[name])
            money[name] += payout
            revealed.append(
                {
                    "pile": pile,
                    "player": name,
                    "colour": colour,
                    "correct": colour == result[pile],
                    "payout": payout,
                }
            )
    best = max(money.values())
    return {
        "type": "game_over",
        "winner": order[0],
        "loser": order[-1],
        "ranking": order,
        "overall": revealed,
        "money": money,
        "winners": [n for n in state.names if money[n] == best],
    }


# -- a track ----------------------------------------------------------------------------------
def check_stacks(
    track: Mapping[Any, Sequence[str]],
    camels: Sequence[str],
    count: str,
    unknown: Callable[[str], str],
) -> dict[int, tuple[str, ...]]:
    """A validated copy of a track {space: [camels bottom to top]} holding each of ``camels``
    (``count`` of them, in words) once, on spaces 1..16; IllegalAction("bad_setup") if not,
    with ``unknown(camel)`` as the sentence for a camel the edition does not have."""
    out: dict[int, tuple[str, ...]] = {}
    seen: list[str] = []
    for raw_space, stack in track.items():
        try:
            space = int(raw_space)
        except (TypeError, ValueError):
            raise IllegalAction("bad_setup", f"{raw_space!r} is not a space number.") from None
        if not 1 <= space <= SPACES:
            raise IllegalAction("bad_setup", f"Space {space} is not on the track (1 to {SPACES}).")
        for camel in stack:
            if camel not in camels:
                raise IllegalAction("bad_setup", unknown(camel))
        seen += list(stack)
        if stack:
            out[space] = tuple(stack)
    if sorted(seen) != sorted(camels):
        raise IllegalAction(
            "bad_setup",
            f"The track must hold each of the {count} camels exactly "
            f"once, got {', '.join(seen) or 'none'}.",
        )
    return out


# -- the tile each player may put on the track ------------------------------------------------
@dataclass(frozen=True)
class TileRules:
    """An edition's tile: its name and sides, the refusal codes, and the one rule in which the
    editions differ. ``turn_over_in_place``: the own tile may be turned to its other side where
    it lies (first edition's desert tile); otherwise it may only move to a different space
    (second edition's spectator tile: the rulebook's "a different space")."""

    name: str
    sides: tuple[str, ...]  # the first is the one named first in its refusal
    goes_on: str  # the end of the "holds a camel" sentence: where tiles go instead
    turn_over_in_place: bool
    off_track: str
    space_one: str
    on_camel: str
    occupied: str
    adjacent: str
    own_here: str

    def own_here_sentence(self, space: int, side: str) -> str:
        if self.turn_over_in_place:
            return f"Your tile already lies on space {space} with the {side} side up."
        return (
            f"Your tile already lies on space {space}; "
            "a tile can only be moved to a different space."
        )

    def own_here_refused(self, here_side: str, side: str) -> bool:
        """Whether the owner's tile lying on the space with ``here_side`` up forbids placing it
        there with ``side`` up."""
        return not self.turn_over_in_place or here_side == side


def tile_refusal(
    rules: TileRules,
    tiles: Mapping[int, tuple[str, int]],
    track: Mapping[int, tuple[str, ...]],
    names: Sequence[str],
    owner: int,
    space: object,
    side: str,
) -> IllegalAction | None:
    """Why player ``owner`` may not put their tile on ``space`` with ``side`` up, or None.

    ``tiles``: {space: (side, owner)} of the tiles on the track. The own tile is picked up
    first, so where it lay blocks nothing but itself."""
    if side not in rules.sides:
        return IllegalAction(
            "bad_action",
            f"A {rules.name} tile shows {rules.sides[0]} or {rules.sides[1]}, not {side!r}.",
        )
    if not isinstance(space, int) or isinstance(space, bool) or not 1 <= space <= SPACES:
        return IllegalAction(
            rules.off_track, f"Space {space!r} is not on the track (spaces 1 to {SPACES})."
        )
    if space == 1:
        return IllegalAction(rules.space_one, f"A {rules.name} tile may not go on space 1.")
    if track.get(space):
        return IllegalAction(
            rules.on_camel,
            f"Space {space} holds a camel; {rules.name} tiles go on {rules.goes_on}.",
        )
    here = tiles.get(space)
    if here is not None and here[1] != owner:
        return IllegalAction(
            rules.occupied, f"Space {space} already holds {names[here[1]]}'s {rules.name} tile."
        )
    if here is not None and rules.own_here_refused(here[0], side):
        return IllegalAction(rules.own_here, rules.own_here_sentence(space, side))
    for near in (space - 1, space + 1):
        other = tiles.get(near)
        if other is not None and other[1] != owner:
            return IllegalAction(
                rules.adjacent,
                f"Space {space} is next to {names[other[1]]}'s tile on space {near}.",
            )
    return None


def tile_placements(
    rules: TileRules,
    tiles: Mapping[int, tuple[str, int]],
    track: Mapping[int, tuple[str, ...]],
    me: int,
) -> list[tuple[int, str]]:
    """The (space, side) placements :func:`tile_refusal` lets ``me`` make, space by space and
    side by side, without building a refusal for each of the others (legal_actions runs on
    every bot turn; a test keeps the two in step)."""
    out = []
    for space in range(2, SPACES + 1):
        if track.get(space):
            continue
        here = tiles.get(space)
        if here is not None and here[1] != me:
            continue
        before, after = tiles.get(space - 1), tiles.get(space + 1)
        if (before is not None and before[1] != me) or (after is not None and after[1] != me):
            continue
        out += [
            (space, side)
            for side in rules.sides
            if here is None or not rules.own_here_refused(here[0], side)
        ]
    return out


# -- what each audience may see ---------------------------------------------------------------
@dataclass(frozen=True)
class Hand:
    """An edition's overall-bet cards in a player's hand: their key in the views (race_cards,
    finish_cards), the camels they name in order, and where a player state keeps them."""

    key: str
    camels: tuple[str, ...]
    of: Callable[[Any], frozenset[str]]


def public_event(event: dict[str, Any]) -> dict[str, Any]:
    """An event as everyone may see it: an overall bet without its colour."""
    if event.get("type") == "overall_bet_placed":
        return {k: v for k, v in event.items() if k != "colour"}
    return dict(event)


def with_own_secrets(view: dict[str, Any], state: Any, name: str, hand: Hand) -> dict[str, Any]:
    """A public ``view`` plus what ``name`` alone knows: their cards and their bets' colours."""
    me = state.index(name)
    view["me"] = name
    view[hand.key] = [c for c in hand.camels if c in hand.of(state.players[me])]
    view["my_bets"] = [
        {"pile": pile, "colour": c} for pile in PILES for i, c in state.overall[pile] if i == me
    ]
    return view


def with_all_secrets(view: dict[str, Any], state: Any, hand: Hand) -> dict[str, Any]:
    """A public ``view`` plus every secret: for the hub's own use and for after the game."""
    view["overall"] = {
        pile: [{"player": state.players[i].name, "colour": c} for i, c in state.overall[pile]]
        for pile in PILES
    }
    for p in state.players:
        view["holdings"][p.name][hand.key] = [c for c in hand.camels if c in hand.of(p)]
    return view


# -- the game ---------------------------------------------------------------------------------
class CamelUpGame(EventSourcedGame[S], Generic[S]):
    """An edition's game: the shared event-sourced shell (play, undo) with what both editions
    do alike: actions given in notation, the start event, replay, the player to move.

    An edition sets ``_parse`` (notation to action), ``_rules`` (the rules' ``apply``),
    ``_legal`` (its ``legal_actions``), ``_apply``/``_initial`` (its fold) and
    ``_START_KEYS`` (what its game_started event says before the players, e.g. the edition)."""

    _START_KEYS: Mapping[str, Any] = {}

    @staticmethod
    def _parse(text: str) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    @staticmethod
    def _rules(state: Any, action: Any, player: str | None) -> list[Event]:  # pragma: no cover
        raise NotImplementedError

    @staticmethod
    def _legal(state: Any) -> list[Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def __init__(self, start_event: Event) -> None:
        super().__init__([start_event], self._initial(start_event))

    def _decide(self, state: S, action: Any, player: str | None) -> list[Event]:
        if isinstance(action, str):
            action = self._parse(action)
        return self._rules(state, action, player)

    @classmethod
    def _start(
        cls,
        names: list[str],
        start: Mapping[int, tuple[str, ...]],
        first_player: int | str,
        seed: int | str | None,
    ) -> Self:
        """The game from its checked players and starting track: the first player named or
        numbered, the game_started event written."""
        if isinstance(first_player, str):
            if first_player not in names:
                raise IllegalAction(
                    "unknown_player", f"There is no player called {first_player!r}."
                )
            first_player = names.index(first_player)
        if not 0 <= first_player < len(names):
            raise IllegalAction("bad_setup", f"No player number {first_player}.")
        event = {
            "type": "game_started",
            **cls._START_KEYS,
            "players": names,
            "track": {str(s): list(st) for s, st in sorted(start.items())},
            "first_player": first_player,
            "seed": seed,
        }
        return cls(event)

    @classmethod
    def replay(cls, events: Iterable[Event]) -> Self:
        """Rebuild a game from its log; the state is exactly the one the log folds to."""
        events = list(events)
        game = cls(events[0])
        game._load(events)
        return game

    @property
    def finished(self) -> bool:
        return bool(self.state.finished)  # type: ignore[attr-defined]

    @property
    def current_player(self) -> str | None:
        s: Any = self.state
        return None if s.current is None else str(s.players[s.current].name)

    def legal_actions(self) -> list[Any]:
        return self._legal(self.state)

"""The horse-race state and the fold that rebuilds it from the event log.

The state is immutable; ``apply(state, event)`` returns the next one. Everything a screen or the
advisor needs is here or derived from here; nothing is stored beside the log.

Events (JSON-safe dicts with "type"; players and horses by name; spaces are ints, 0 = start):
- game_started  {players, first_player, settings}
- race_started  {race, first_player}
- round_started {race, round, active_player, betting: bool (False once a horse has finished)}
- bet_placed    {player, horse, slot (0 = top circle), tokens_left}
- bet_passed    {player}
- die_rolled    {player, face, source: "table" | "engine"}
- horse_moved   {player, horse, face, from, to, place: podium place 1.. or None}
- race_scored   {race, podium: [horses], awards: [{player, horse, place, slot, points}],
                 changes: {player: points this race}, points: {player: total}}
- game_over     {points: {player: total}, money: (the same map, the name the hub's score
                 publisher reads for Camel Up), winners: [names sharing the most points], races}
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from hub.games.common import Event, IllegalAction
from hub.games.horserace.settings import Settings


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    settings: Settings
    first_player: int  # who started the first race
    race: int = 0  # 1-based once a race has started
    race_starter: int = 0  # player index who started this race
    round: int = 0
    active: int = 0  # the player who runs the horses this round
    phase: str = "betting"  # "betting" | "running" | "over"
    queue: tuple[int, ...] = ()  # players still to bet this phase, head = to act
    tokens: tuple[int, ...] = ()
    columns: tuple[tuple[int, ...], ...] = ()  # per horse: player indices, top circle first
    positions: tuple[int, ...] = ()
    moved: frozenset[int] = frozenset()  # horse indices moved this round
    podium: tuple[int, ...] = ()  # horse indices in order of arrival
    roll: int | None = None  # the roll in hand (running phase)
    points: tuple[int, ...] = ()  # totals over scored races
    results: tuple[dict[str, Any], ...] = ()  # race_scored events so far
    result: dict[str, Any] | None = None  # the game_over event once finished

    # -- derived ---------------------------------------------------------------------------
    @property
    def horses(self) -> tuple[str, ...]:
        return self.settings.horses

    @property
    def finished(self) -> bool:
        return self.phase == "over"

    @property
    def betting_open(self) -> bool:
        """Bets close for good as soon as the first horse has finished."""
        return not self.podium

    def racing(self) -> list[int]:
        """Horse indices still on the track."""
        return [h for h in range(len(self.horses)) if h not in self.podium]

    def unmoved(self) -> list[int]:
        """Horses still racing that have not moved this round."""
        return [h for h in self.racing() if h not in self.moved]

    def can_bet(self, p: int) -> bool:
        return self.tokens[p] > 0 and any(len(c) < self.settings.column_size for c in self.columns)

    def current_player(self) -> str | None:
        if self.phase == "betting":
            return self.players[self.queue[0]]
        if self.phase == "running":
            return self.players[self.active]
        return None

    def horse_index(self, horse: str) -> int:
        try:
            return self.horses.index(horse)
        except ValueError:
            raise IllegalAction(
                "unknown_horse",
                f"There is no horse '{horse}'; the horses are {', '.join(self.horses)}.",
            ) from None

    def player_index(self, name: str) -> int:
        try:
            return self.players.index(name)
        except ValueError:
            raise IllegalAction(
                "unknown_player",
                f"'{name}' is not playing; the players are {', '.join(self.players)}.",
            ) from None


def _betting_queue(state: State, order: list[int]) -> tuple[int, ...]:
    return tuple(p for p in order if state.can_bet(p))


def initial(event: Event) -> State:
    """The state right after ``game_started``, before the first race is set up."""
    if event.get("type") != "game_started":
        raise IllegalAction("bad_log", "A horse-race log must begin with game_started.")
    settings = Settings.from_json(event["settings"])
    players = tuple(event["players"])
    return State(
        players=players,
        settings=settings,
        first_player=players.index(event["first_player"]),
        points=tuple(0 for _ in players),
        phase="over",
    )


def apply(state: State, event: Event) -> State:
    """Fold one event. Events are facts already checked by the engine, so this only records."""
    kind = event.get("type")
    s = state
    if kind == "race_started":
        starter = s.players.index(event["first_player"])
        return replace(
            s,
            race=event["race"],
            race_starter=starter,
            round=0,
            active=starter,
            phase="betting",
            queue=(),
            tokens=tuple(s.settings.tokens for _ in s.players),
            columns=tuple(() for _ in s.horses),
            positions=tuple(0 for _ in s.horses),
            moved=frozenset(),
            podium=(),
            roll=None,
        )
    if kind == "round_started":
        active = s.players.index(event["active_player"])
        s = replace(s, round=event["round"], active=active, moved=frozenset(), roll=None)
        queue: tuple[int, ...] = ()
        if event["betting"]:
            n = len(s.players)
            queue = _betting_queue(s, [(active + i) % n for i in range(n)])
        return replace(s, queue=queue, phase="betting" if queue else "running")
    if kind in ("bet_placed", "bet_passed"):
        p = s.players.index(event["player"])
        if kind == "bet_placed":
            h = s.horses.index(event["horse"])
            cols = list(s.columns)
            cols[h] = cols[h] + (p,)
            toks = list(s.tokens)
            toks[p] -= 1
            s = replace(s, columns=tuple(cols), tokens=tuple(toks))
        queue = _betting_queue(s, list(s.queue[1:]))
        return replace(s, queue=queue, phase="betting" if queue else "running")
    if kind == "die_rolled":
        return replace(s, roll=event["face"])
    if kind == "horse_moved":
        h = s.horses.index(event["horse"])
        pos = list(s.positions)
        pos[h] = event["to"]
        podium = s.podium + ((h,) if event["place"] is not None else ())
        return replace(s, positions=tuple(pos), moved=s.moved | {h}, podium=podium, roll=None)
    if kind == "race_scored":
        points = tuple(event["points"][p] for p in s.players)
        return replace(s, points=points, results=s.results + (dict(event),), phase="over", queue=())
    if kind == "game_over":
        return replace(s, phase="over", result=dict(event))
    raise IllegalAction("bad_log", f"Unknown horse-race event type {kind!r}.")

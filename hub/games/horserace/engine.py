"""The horse-race rules: state + action -> events, and the Game object the hub drives.

A race is rounds of two phases. Betting: from the active player clockwise, each player who still
has a token (and a free circle exists) bets once or passes; a token goes in the highest free circle
of the chosen horse's column. Running: the active player rolls and gives each roll to a horse not
yet moved this round until every horse still racing has moved. A horse reaching or passing the
finish leaves the track for the next podium place; betting closes for good once the first horse has
finished; the race ends when the podium is full and is scored by the table.

Settled here where the seed is silent:
- Players with no token left (or no free circle anywhere) are skipped in the betting phase rather
  than asked to pass; with no one able to bet, the round goes straight to running.
- Horses crossing the line in the same round arrive in the order they were moved (the order the
  roller chose), which is the physical order of arrival at the table.
- The race ends the moment the last podium place is taken, even mid-round.
- The next race starts by itself after a race is scored, with the starter from the house rule.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from hub.games.common import Event, EventSourcedGame, IllegalAction, check_player_names
from hub.games.horserace.actions import Action, Assign, Bet, Pass, Roll, parse_action
from hub.games.horserace.settings import DIE_FACES, MAX_PLAYERS, MIN_PLAYERS, Settings
from hub.games.horserace.state import State, apply, initial

ACTION_STARTS = frozenset({"bet_placed", "bet_passed", "die_rolled", "horse_moved"})


def _mover(state: State, player: str | None) -> int:
    if state.finished:
        raise IllegalAction("game_over", "The game is over: no more actions.")
    current = state.current_player()
    assert current is not None
    if player is not None and player != current:
        state.player_index(player)  # unknown_player first
        raise IllegalAction("not_your_turn", f"It is {current}'s turn, not {player}'s.")
    return state.players.index(current)


def decide(
    state: State, action: Action, player: str | None = None, rng: random.Random | None = None
) -> list[Event]:
    """The events ``action`` causes, or IllegalAction with the reason. Pure: ``rng`` is used only
    for an engine roll (``Roll()``)."""
    if isinstance(action, str):
        action = parse_action(action)
    p = _mover(state, player)
    name = state.players[p]
    if isinstance(action, Bet):
        return _bet(state, p, action)
    if isinstance(action, Pass):
        if state.phase != "betting":
            raise IllegalAction(
                "wrong_phase", "Passing is for the betting phase; now the horses run."
            )
        return [{"type": "bet_passed", "player": name}]
    if isinstance(action, Roll):
        return _roll(state, p, action, rng)
    if isinstance(action, Assign):
        return _assign(state, p, action)
    raise IllegalAction("bad_action", f"{action!r} is not a horse-race action.")


def _bet(state: State, p: int, action: Bet) -> list[Event]:
    h = state.horse_index(action.horse)
    if not state.betting_open:
        raise IllegalAction("betting_closed", "No more bets: a horse has already finished.")
    if state.phase != "betting":
        raise IllegalAction(
            "wrong_phase", "Bets are placed in the betting phase, before the horses run this round."
        )
    if state.tokens[p] == 0:  # pragma: no cover - such players are skipped by the queue
        raise IllegalAction("no_tokens", f"{state.players[p]} has no bet token left.")
    slot = len(state.columns[h])
    if slot >= state.settings.column_size:
        raise IllegalAction(
            "column_full",
            f"The {action.horse} horse's column is full; choose another horse or pass.",
        )
    return [
        {
            "type": "bet_placed",
            "player": state.players[p],
            "horse": action.horse,
            "slot": slot,
            "tokens_left": state.tokens[p] - 1,
        }
    ]


def _roll(state: State, p: int, action: Roll, rng: random.Random | None) -> list[Event]:
    if state.phase != "running":
        raise IllegalAction("wrong_phase", "The die is rolled after everyone has bet or passed.")
    if state.roll is not None:
        raise IllegalAction(
            "roll_in_hand", f"A {state.roll} is already rolled: give it to a horse first."
        )
    if action.face is None:
        face = (rng or random.Random()).randint(1, DIE_FACES)
        source = "engine"
    else:
        if not isinstance(action.face, int) or not 1 <= action.face <= DIE_FACES:
            raise IllegalAction("bad_face", f"The die shows 1 to {DIE_FACES}, not {action.face!r}.")
        face, source = action.face, "table"
    return [{"type": "die_rolled", "player": state.players[p], "face": face, "source": source}]


def _assign(state: State, p: int, action: Assign) -> list[Event]:
    h = state.horse_index(action.horse)
    if state.phase != "running":
        raise IllegalAction("wrong_phase", "Horses move in the running phase, after the bets.")
    if state.roll is None:
        raise IllegalAction("no_roll", "Roll the die first, then choose the horse.")
    if h in state.podium:
        raise IllegalAction("horse_finished", f"The {action.horse} horse has already finished.")
    if h in state.moved:
        raise IllegalAction(
            "horse_already_moved",
            f"The {action.horse} horse has already moved this round; choose one that has not.",
        )
    s = state.settings
    frm = state.positions[h]
    to = frm + state.roll
    place = len(state.podium) + 1 if to >= s.track_length else None
    moved_event: Event = {
        "type": "horse_moved",
        "player": state.players[p],
        "horse": action.horse,
        "face": state.roll,
        "from": frm,
        "to": to,
        "place": place,
    }
    events = [moved_event]
    after = apply(state, moved_event)
    if len(after.podium) >= s.podium_size:
        events += _end_race(after)
    elif not after.unmoved():
        n = len(state.players)
        events.append(
            {
                "type": "round_started",
                "race": after.race,
                "round": after.round + 1,
                "active_player": state.players[(after.active + 1) % n],
                "betting": after.betting_open,
            }
        )
    return events


def race_awards(state: State) -> list[dict[str, Any]]:
    """Each scoring token of a full podium: the table's value for its place and circle."""
    table = state.settings.score_table
    awards = []
    for place, h in enumerate(state.podium[: len(table)], start=1):
        for slot, p in enumerate(state.columns[h]):
            awards.append(
                {
                    "player": state.players[p],
                    "horse": state.horses[h],
                    "place": place,
                    "slot": slot,
                    "points": table[place - 1][slot],
                }
            )
    return awards


def next_race_starter(state: State, points: Sequence[int]) -> int:
    """The house rule for who starts the next race (see settings)."""
    n = len(state.players)
    order = [(state.race_starter + 1 + i) % n for i in range(n)]
    if state.settings.next_starter == "rotate":
        return order[0]
    best = max(points)
    return next(p for p in order if points[p] == best)


def _end_race(state: State) -> list[Event]:
    awards = race_awards(state)
    changes = {name: 0 for name in state.players}
    for a in awards:
        changes[a["player"]] += a["points"]
    points = {name: state.points[i] + changes[name] for i, name in enumerate(state.players)}
    events: list[Event] = [
        {
            "type": "race_scored",
            "race": state.race,
            "podium": [state.horses[h] for h in state.podium],
            "awards": awards,
            "changes": changes,
            "points": points,
        }
    ]
    if state.race >= state.settings.races:
        best = max(points.values())
        events.append(
            {
                "type": "game_over",
                "points": dict(points),
                "money": dict(points),
                "winners": [n for n in state.players if points[n] == best],
                "races": state.race,
            }
        )
    else:
        starter = state.players[next_race_starter(state, [points[n] for n in state.players])]
        events += _start_race(state.race + 1, starter)
    return events


def _start_race(race: int, starter: str) -> list[Event]:
    return [
        {"type": "race_started", "race": race, "first_player": starter},
        {
            "type": "round_started",
            "race": race,
            "round": 1,
            "active_player": starter,
            "betting": True,
        },
    ]


def legal_actions(state: State) -> list[Action]:
    """What the player to move may do. In the running phase with no roll in hand this lists the
    engine roll only; an observed ``Roll(face)`` for faces 1..6 is equally legal."""
    if state.finished:
        return []
    if state.phase == "betting":
        free = [
            Bet(h)
            for i, h in enumerate(state.horses)
            if len(state.columns[i]) < state.settings.column_size
        ]
        return [*free, Pass()]
    if state.roll is None:
        return [Roll()]
    return [Assign(state.horses[h]) for h in state.unmoved()]


class Game(EventSourcedGame[State]):
    """One horse-race game (one or more races): log, state, undo, replay.

    >>> g = Game.new(["Ann", "Bob"], first_player="Ann")
    >>> [e["type"] for e in g.play("bet:blue")]
    ['bet_placed']
    >>> g.current_player
    'Bob'
    """

    _ACTION_STARTS = ACTION_STARTS

    _apply = staticmethod(apply)
    _initial = staticmethod(initial)

    def _decide(self, state: State, action: Any, player: str | None) -> list[Event]:
        # Derived from (seed, log length), not a running generator, so a game replayed from its
        # log after a crash rolls exactly what the uninterrupted game would have.
        seed = self._log[0].get("seed")
        rng = random.Random(f"horserace/{seed}/{len(self._log)}") if seed is not None else None
        return decide(state, action, player, rng)

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        *,
        seed: int | str | None = None,
        first_player: str | int | None = None,
        settings: Settings | None = None,
        **setting_overrides: Any,
    ) -> Game:
        """Start a game. ``first_player`` (name or index) or, if None, drawn from ``seed``
        (the rules: the first player is chosen at random). Settings may be given whole or as
        keyword overrides (``track_length=20, races=3``)."""
        names = check_player_names(players, MIN_PLAYERS, MAX_PLAYERS)
        if settings is None:
            settings = Settings.from_json(setting_overrides)
        elif setting_overrides:
            raise IllegalAction("bad_settings", "Give settings whole or as keywords, not both.")
        settings.validate()
        if first_player is None:
            first = random.Random(f"horserace/{seed}/first").randrange(len(names))
        elif isinstance(first_player, int) and not isinstance(first_player, bool):
            if not 0 <= first_player < len(names):
                raise IllegalAction("unknown_player", f"There is no player number {first_player}.")
            first = first_player
        elif first_player in names:
            first = names.index(first_player)
        else:
            raise IllegalAction("unknown_player", f"There is no player called {first_player!r}.")
        events: list[Event] = [
            {
                "type": "game_started",
                "players": names,
                "first_player": names[first],
                "settings": settings.to_json(),
                "seed": seed,
            }
        ]
        events += _start_race(1, names[first])
        return cls.replay(events)

    @classmethod
    def replay(cls, events: Sequence[Event]) -> Game:
        """Rebuild a game from its log: the state is exactly what the log folds to."""
        game = cls.__new__(cls)
        game._load(list(events))
        return game

    def check(self, action: Action | str, player: str | None = None) -> list[Event]:
        """The events ``action`` would cause, without playing it (raises if illegal)."""
        return self._decide(self._state, action, player)

    @property
    def finished(self) -> bool:
        return self._state.finished

    @property
    def current_player(self) -> str | None:
        return self._state.current_player()

    def legal_actions(self) -> list[Action]:
        return legal_actions(self._state)

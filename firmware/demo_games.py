"""The demo table's bots for the horse race and Marco Polo II.

Why a module of its own: the demo's Camel Up table drives dice through the mock slider and the
rendered camera; the other two games are started from the dashboard's "+ New game" at the same
table, and the demo must then play *them* (before, its Camel Up loop read the horse race's state
as a Camel Up one and crashed). These bots play through the hub's one command dispatcher, as a
person with the table's PIN would from the page, so the log, MQTT and the dashboard show a normal
game. A seat a person plays (``seat``) is never played by a bot: the bots wait for the page.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from hub.games.camelup.model import MAX_PLAYERS as CAMELUP_MAX
from hub.games.camelup2.model import MAX_PLAYERS as CAMELUP2_MAX
from hub.games.horserace.settings import MAX_PLAYERS as HORSERACE_MAX
from hub.games.kinds import GameKind
from hub.games.marcopolo2.setup import MAX_PLAYERS as MARCOPOLO2_MAX

__all__ = ["DemoGame", "DemoPlay", "OtherGameBots", "demo_game", "demo_players", "seat_seed"]

#: a seat's bot: (the engine's state, the player to move) -> the action it plays
SeatBot = Callable[[Any, str], Any]


class DemoPlay(Enum):
    """How the demo plays a game."""

    #: the demo table's own loop: a bot's die goes through the mock slider and the rendered
    #: camera, the track is rendered and read (Camel Up, :class:`firmware.demo.DemoTable`)
    CAMERA = "camera"
    #: one bot per seat, advisor and random in turn round the table, through the dispatcher
    SEAT_BOTS = "seat_bots"
    #: every player's dice each round, compensation, the score sheets (Marco Polo II)
    ROUNDS = "rounds"


def _camelup2_bot(seed: Any, state: Any, player: str, samples: int) -> SeatBot:
    from hub.games.camelup2.bots import make_bot

    seat_no = list(state.names).index(player)
    kind = "advisor" if seat_no % 2 == 0 else "random"
    chooser = make_bot(kind, f"{seed}/{seat_no}")

    def seat_bot(state: Any, _player: str) -> Any:
        return chooser(state)

    return seat_bot


def seat_seed(seed: Any, seat_no: int) -> int:
    """A seat's bot's integer seed from the demo's seed: the same in every process (Python's
    ``hash`` of a text is not: it is salted per process, so ``--seed`` did not repeat a horse
    race before)."""
    return zlib.crc32(f"{seed}/{seat_no}".encode()) & 0xFFFFFF


def _horserace_bot(seed: Any, state: Any, player: str, samples: int) -> SeatBot:
    from hub.games.horserace.bots import make_bot

    seat_no = state.players.index(player)
    kind = "advisor" if seat_no % 2 == 0 else "random"
    return make_bot(kind, seat_seed(seed, seat_no), samples=samples)


@dataclass(frozen=True)
class DemoGame:
    """What the demo needs to know of one game: the demo asks this, never the game's name."""

    game: GameKind
    max_players: int  # the engine's own limit: the demo seats its first names up to it
    play: DemoPlay
    #: the bot of a seat (SEAT_BOTS): (seed, state, player, samples) -> that seat's bot
    seat_bot: Callable[[Any, Any, str, int], SeatBot] | None = None


#: the games the demo plays, and how
DEMO_GAMES: dict[GameKind, DemoGame] = {
    g.game: g
    for g in (
        DemoGame(GameKind.CAMELUP, CAMELUP_MAX, DemoPlay.CAMERA),
        DemoGame(GameKind.CAMELUP2, CAMELUP2_MAX, DemoPlay.SEAT_BOTS, _camelup2_bot),
        DemoGame(GameKind.HORSERACE, HORSERACE_MAX, DemoPlay.SEAT_BOTS, _horserace_bot),
        DemoGame(GameKind.MARCOPOLO2, MARCOPOLO2_MAX, DemoPlay.ROUNDS),
    )
}


def demo_game(game: str) -> DemoGame:
    """How the demo plays ``game`` (a GameKind value: the session's ``kind``)."""
    return DEMO_GAMES[GameKind(game)]


def demo_players(names: list[str], game: str) -> list[str]:
    """The demo's seats for ``game``: as many of ``names`` as the game takes.

    >>> demo_players(["Ada", "Bo", "Cy", "Di", "Eli"], "marcopolo2")
    ['Ada', 'Bo', 'Cy', 'Di']
    """
    return list(names[: demo_game(game).max_players])


class OtherGameBots:
    """Plays one move at a time of a game the demo does not play through the camera (the second
    edition, the horse race, Marco Polo II) at ``session``'s table.

    :meth:`step` plays one move if a bot has one and answers True; False means the game waits
    for a person (the seat ``seat``) or is over.
    """

    def __init__(
        self,
        session: Any,
        seed: Any,
        auth: dict[str, Any] | None,
        seat: str | None = None,
        samples: int = 200,
    ) -> None:
        self.session = session
        self.seed = seed
        self.auth = auth
        self.seat = seat
        self.samples = samples
        self._bots: dict[tuple[str | None, str], SeatBot] = {}
        self.moves = 0
        self.refusals = 0

    def _rng(self, *parts: Any) -> random.Random:
        return random.Random("/".join(str(p) for p in ("demo-other", self.seed, *parts)))

    def _act(self, action: str, player: str | None = None) -> bool:
        payload: dict[str, Any] = {"action": action}
        if player is not None:
            payload["player"] = player
        answer = self.session.request("action", payload, self.auth)
        if not answer.get("ok"):
            self.refusals += 1
            return False
        self.moves += 1
        return True

    def step(self) -> bool:
        game = self.session.game
        if game is None or game.finished or not self.session.active:
            return False
        how = demo_game(self.session.kind)
        if how.play is DemoPlay.SEAT_BOTS:
            return self._seat_bots(game, how)
        if how.play is DemoPlay.ROUNDS:
            return self._marcopolo2(game)
        return False  # a camera game: the demo table plays it

    # -- a bot per seat: advisor and random bots in turn round the table -----------------------
    def _seat_bots(self, game: Any, how: DemoGame) -> bool:
        player = game.current_player
        if player is None or player == self.seat or how.seat_bot is None:
            return False
        key = (self.session.game_id, player)
        bot = self._bots.get(key)
        if bot is None:
            bot = self._bots[key] = how.seat_bot(self.seed, game.state, player, self.samples)
        return self._act(str(bot(game.state, player)), player)

    # -- Marco Polo II: every player's dice each round, compensation, the sheets, finish --------
    def _marcopolo2(self, game: Any) -> bool:
        from hub.games.marcopolo2 import ROUNDS

        s = game.state
        bots = [p for p in s.players if p != self.seat]
        rng = self._rng(self.session.game_id, s.round, self.moves)
        for p in bots:
            if s.round and p not in s.dice:
                faces = ",".join(str(rng.randint(1, 6)) for _ in range(5))
                return self._act(f"dice:{p}:{faces}")
        for p in s.pending_compensation():
            if p in bots:
                owed = int(s.dice[p]["owed"])
                return self._act(f"comp:{p}:{rng.randint(0, owed)}")
        everyone_in = all(p in s.dice for p in s.players) and not s.pending_compensation()
        if s.round < ROUNDS:
            return everyone_in and self._act("round")
        for p in bots:
            if p not in s.sheets:
                # a short sheet: an action is at most 64 characters
                sheet = {
                    "coins": rng.randint(5, 30),
                    "camels": rng.randint(0, 8),
                    "pepper": rng.randint(0, 4),
                    "silk": rng.randint(0, 4),
                    "contracts": rng.randint(0, 6),
                }
                return self._act(f"score:{p}:" + ",".join(f"{k}={v}" for k, v in sheet.items()))
        if all(p in s.sheets for p in s.players):
            return self._act("finish")
        return False

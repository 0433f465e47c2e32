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
from collections.abc import Callable
from typing import Any

__all__ = ["OtherGameBots", "demo_players"]

#: how many players each game takes at most (the demo seats its first names)
MAX_PLAYERS = {"camelup": 8, "camelup2": 8, "horserace": 5, "marcopolo2": 4}


def demo_players(names: list[str], game: str) -> list[str]:
    """The demo's seats for ``game``: as many of ``names`` as the game takes.

    >>> demo_players(["Ada", "Bo", "Cy", "Di", "Eli"], "marcopolo2")
    ['Ada', 'Bo', 'Cy', 'Di']
    """
    return list(names[: MAX_PLAYERS.get(game, len(names))])


class OtherGameBots:
    """Plays one move at a time of the horse race or Marco Polo II at ``session``'s table.

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
        self._bots: dict[tuple[str | None, str], Callable[[Any, str], Any]] = {}
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
        if self.session.kind == "horserace":
            return self._horserace(game)
        if self.session.kind == "camelup2":
            return self._camelup2(game)
        if self.session.kind == "marcopolo2":
            return self._marcopolo2(game)
        return False

    # -- Camel Up's second edition: the advisor (quick mode) and random bots in turn ------------
    def _camelup2(self, game: Any) -> bool:
        from hub.games.camelup2.bots import make_bot

        player = game.current_player
        if player is None or player == self.seat:
            return False
        key = (self.session.game_id, player)
        bot = self._bots.get(key)
        if bot is None:
            seat_no = list(game.state.names).index(player)
            kind = "advisor" if seat_no % 2 == 0 else "random"
            chooser = make_bot(kind, f"{self.seed}/{seat_no}")

            def seat_bot(state: Any, _player: str, chooser: Any = chooser) -> Any:
                return chooser(state)

            bot = self._bots[key] = seat_bot
        return self._act(str(bot(game.state, player)), player)

    # -- the horse race -----------------------------------------------------------------------
    def _horserace(self, game: Any) -> bool:
        from hub.games.horserace.bots import make_bot

        player = game.current_player
        if player is None or player == self.seat:
            return False
        key = (self.session.game_id, player)
        bot = self._bots.get(key)
        if bot is None:  # advisor and random bots in turn round the table
            seat_no = game.state.players.index(player)
            kind = "advisor" if seat_no % 2 == 0 else "random"
            bot = self._bots[key] = make_bot(
                kind, hash((str(self.seed), seat_no)) & 0xFFFFFF, samples=self.samples
            )
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

"""A seeded simulated table: a deterministic driver playing a whole game through a TableSession.

Why it exists: the crash test and the benchmarks need a game that goes through every door of the
hub (player actions by request, the camera's die readings, unsure readings confirmed by a person,
track reads) and that can be killed at any moment and picked up again. Every decision is a pure
function of (seed, the game's state, the pending prompts), never of a generator that runs along:
after a restart the driver makes exactly the choices it would have made, so a killed-and-resumed
game must equal the uninterrupted one event for event.

    python -m hub.simtable --db var/sim.db --table t1 --seed 7
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from hub.games.camelup import (
    COLOURS,
    Action,
    BetOverall,
    GameState,
    PlaceDesert,
    ReleaseDie,
    TakeLegTile,
)
from hub.session import TableSession
from hub.store import Store

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]


def _rng(seed: int | str, state: GameState, salt: str) -> random.Random:
    return random.Random(f"simtable/{seed}/{state.actions}/{salt}")


def step(session: TableSession, seed: int | str, pin: str | None = None) -> dict[str, Any] | None:
    """Make one move of the simulated table; None once the game is over."""
    auth = {"pin": pin} if pin else None
    game = session.game
    if game is None or not session.active:
        return None
    state: GameState = game.state  # the simulated table plays Camel Up
    rng = _rng(seed, state, f"{len(session.pending)}")
    for prompt in session.pending.values():
        if prompt["kind"] == "die_reading":  # a person looks at the crop and answers
            colour = rng.choice(list(state.dice_left))
            return session.request(
                "confirm",
                {"prompt": prompt["id"], "colour": colour, "face": rng.choice((1, 2, 3))},
                auth,
            )
        if prompt["kind"] == "bet_colour":
            player = prompt["player"]
            assert player is not None  # a bet_colour prompt names whose bet it is
            token = session.player_token(player)
            cards = [c for c in COLOURS if c in state.players[state.index(player)].race_cards]
            return session.request(
                "confirm", {"prompt": prompt["id"], "colour": rng.choice(cards)}, {"token": token}
            )
    player = game.current_player
    legal = game.legal_actions()
    kinds: dict[type, list[Action]] = {}
    for a in legal:
        kinds.setdefault(type(a), []).append(a)
    roll = rng.random()
    if roll < 0.55 and ReleaseDie in kinds:
        how = rng.random()
        if how < 0.4:
            return session.request("action", {"player": player, "action": "roll"}, auth)
        # the camera: release, read the die (sometimes unsure). A hub killed between the two
        # comes back with the release logged: the die is then read, not released again.
        last = session.store.events(session.table_id, since=session.seq - 1)
        if not last or last[-1].type != "die_released":
            session.observe("release", {"ts": 0.0})
        colour, face = rng.choice(list(state.dice_left)), rng.choice((1, 2, 3))
        conf = 0.97 if how < 0.85 else 0.55
        return session.observe("die", {"colour": colour, "face": face, "confidence": conf})
    if roll < 0.8 and TakeLegTile in kinds:
        return session.request(
            "action", {"player": player, "action": str(rng.choice(kinds[TakeLegTile]))}, auth
        )
    if roll < 0.9 and BetOverall in kinds:
        pile = rng.choice(("winner", "loser"))
        return session.request("action", {"player": player, "action": f"bet:{pile}"}, auth)
    if PlaceDesert in kinds and rng.random() < 0.5:
        return session.request(
            "action", {"player": player, "action": str(rng.choice(kinds[PlaceDesert]))}, auth
        )
    if rng.random() < 0.03:  # now and then someone tries to play out of turn
        other = next(p for p in state.names if p != player)
        return session.request("action", {"player": other, "action": "roll"}, auth)
    return session.request("action", {"player": player, "action": "roll"}, auth)


def play(
    session: TableSession,
    seed: int | str,
    *,
    players: list[str] | None = None,
    pin: str | None = None,
    max_steps: int = 5000,
    delay: float = 0.0,
    progress: Callable[[int], object] | None = None,
) -> int:
    """Start (unless a game is on) and play the game to its end; return the steps made."""
    if not session.active and (session.game is None or not session.game.finished):
        session.start_game(players or PLAYERS, seed=seed)
    steps = 0
    while steps < max_steps:
        if step(session, seed, pin) is None:
            break
        steps += 1
        if progress is not None:
            progress(steps)
        if delay:
            time.sleep(delay)
    return steps


def comparable_log(session: TableSession, game_id: str | None = None) -> list[dict[str, Any]]:
    """A game's full log (type + fields, wall-clock times removed) for event-for-event checks."""
    gid = game_id or session.game_id
    out = []
    for e in session.store.events(session.table_id, game_id=gid):
        ev = {k: v for k, v in e.event.items() if k not in ("at", "ts")}
        out.append({"seq": e.seq, "origin": e.origin, **ev})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hub.simtable", description=__doc__)
    ap.add_argument("--db", required=True)
    ap.add_argument("--table", default="sim")
    ap.add_argument("--seed", default="7")
    ap.add_argument("--delay", type=float, default=0.0, help="seconds between moves")
    args = ap.parse_args(argv)
    store = Store(args.db)
    session = TableSession(args.table, store, odds=False, advice=False)
    print(f"ready {session.seq}", flush=True)
    play(
        session,
        args.seed,
        delay=args.delay,
        progress=lambda n: print(f"step {n} {session.seq}", flush=True),
    )
    session.close()
    print(f"done {session.seq}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

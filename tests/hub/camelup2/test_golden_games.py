"""Seeded second-edition games play exactly as recorded: every action and the whole event log.

``golden/games.json`` holds six seeded games (the advisor bot against random bots, 3 to 6
players, partnerships possible from six), each with every action taken, the final money and the
SHA-256 of the event log. It was recorded before the two editions' shared code moved into
``hub.games.camelup_common`` and checked again after: a change to the rules, the refusals that
shape the legal actions, the setup or the bots' advisor shows here, action by action, so the
first difference is named. ``python -m tests.hub.camelup2.test_golden_games`` records it anew
(only for an intended change of the rules, said in the commit).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from hub.games.camelup2 import Game
from hub.games.camelup2.bots import make_bot

GOLDEN_FILE = Path(__file__).parent / "golden" / "games.json"
SEEDS = [(0, 3), (1, 4), (2, 5), (3, 6), (4, 3), (5, 6)]  # (seed, players)


def play(seed: int, players: int) -> dict[str, Any]:
    kinds = ["advisor"] + ["random"] * (players - 1)
    names = [f"{k}-{i}" for i, k in enumerate(kinds)]
    game = Game.new(names, seed=seed, first_player=seed % players)
    bots = [make_bot(k, f"{seed}/{i}") for i, k in enumerate(kinds)]
    actions = []
    while not game.finished:
        i = game.state.current
        assert i is not None
        action = bots[i](game.state)
        actions.append(str(action))
        game.play(action)
    log = json.dumps(game.log, sort_keys=True).encode()
    return {
        "seed": seed,
        "players": players,
        "actions": actions,
        "money": game.log[-1]["money"],
        "log_sha256": hashlib.sha256(log).hexdigest(),
    }


GOLDEN = json.loads(GOLDEN_FILE.read_text()) if GOLDEN_FILE.exists() else {"games": []}


@pytest.mark.parametrize("recorded", GOLDEN["games"], ids=lambda g: f"seed{g['seed']}")
def test_a_seeded_game_plays_as_recorded(recorded: dict[str, Any]) -> None:
    got = play(recorded["seed"], recorded["players"])
    for n, (want, have) in enumerate(zip(recorded["actions"], got["actions"], strict=False)):
        assert have == want, f"action {n}: {have} where the recording has {want}"
    assert len(got["actions"]) == len(recorded["actions"])
    assert got["money"] == recorded["money"]
    assert got["log_sha256"] == recorded["log_sha256"]


def test_the_recording_covers_every_seed() -> None:
    assert [(g["seed"], g["players"]) for g in GOLDEN["games"]] == SEEDS


if __name__ == "__main__":
    GOLDEN_FILE.write_text(json.dumps({"games": [play(s, n) for s, n in SEEDS]}, indent=1) + "\n")

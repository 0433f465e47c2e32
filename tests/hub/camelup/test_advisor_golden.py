"""The advisor bot chooses exactly what it chose before the odds kernel was made faster.

``golden/advisor_choices.json`` holds, for eight seeded games (the advisor against random bots,
and two advisors against one random bot), every action the advisor bot took and the final
money, recorded with the advisor as it was before the merged leg kernel and its speed-ups. A
change that moves any expected value enough to reorder two actions changes a choice here, and
the game then diverges: the comparison is action by action, so the first difference is named.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hub.games.camelup import Game
from hub.games.camelup.bots import make_bot

GOLDEN = json.loads((Path(__file__).parent / "golden" / "advisor_choices.json").read_text())


def play(seed: int, kinds: list[str]) -> tuple[list[str], dict[str, int]]:
    names = [f"{k}-{i}" for i, k in enumerate(kinds)]
    game = Game.new(names, seed=seed, first_player=seed % len(names))
    bots = [make_bot(k, f"{seed}/{i}") for i, k in enumerate(kinds)]
    choices = []
    while not game.finished:
        i = game.state.current
        assert i is not None
        action = bots[i](game.state)
        if kinds[i] == "advisor":
            choices.append(str(action))
        game.play(action)
    return choices, game.log[-1]["money"]


@pytest.mark.parametrize("recorded", GOLDEN["games"], ids=lambda g: f"seed{g['seed']}")
def test_the_advisor_bot_makes_the_recorded_choices(recorded: dict) -> None:
    choices, money = play(recorded["seed"], recorded["bots"])
    want = recorded["advisor_choices"]
    for n, (got, expected) in enumerate(zip(choices, want, strict=False)):
        assert got == expected, (
            f"choice {n} of seed {recorded['seed']}: {got} instead of {expected}"
        )
    assert len(choices) == len(want)
    assert money == recorded["money"]

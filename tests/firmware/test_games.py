"""firmware.games: one profile per game, and no branch on a game's name elsewhere in the firmware.

Why a static test: the watch loop and the demo used to compare ``self.game == MARCOPOLO2`` or
``session.kind == "camelup"`` in a dozen places, and a new game meant finding them all. Now what
a game changes is its profile (firmware.games.GameProfile, firmware.demo_games.DemoGame); this
test fails on a comparison with a game's name (a literal, a GameKind member, or the firmware's
CAMELUP/HORSERACE/... aliases) anywhere else in firmware/.
"""

from __future__ import annotations

import ast
from pathlib import Path

from firmware import games
from firmware.demo_games import DEMO_GAMES, DemoPlay, demo_players
from hub.games.kinds import GameKind

REPO = Path(__file__).resolve().parents[2]
PROFILE_MODULES = {"games.py", "demo_games.py"}
ALIASES = {k.name for k in GameKind}  # CAMELUP, CAMELUP2, HORSERACE, MARCOPOLO2


def _names_a_game(node: ast.expr) -> bool:
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names_a_game(e) for e in node.elts)
    if isinstance(node, ast.Constant):
        return node.value in {k.value for k in GameKind}
    if isinstance(node, ast.Name):
        return node.id in ALIASES
    if isinstance(node, ast.Attribute):
        return node.attr in ALIASES
    return False


def test_no_branch_on_a_games_name_in_the_firmware_outside_its_profiles() -> None:
    offenders = []
    for path in sorted((REPO / "firmware").rglob("*.py")):
        if path.name in PROFILE_MODULES:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and any(
                _names_a_game(side) for side in [node.left, *node.comparators]
            ):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []


def test_the_check_sees_a_branch() -> None:
    """The scan above is not blind: each form it looks for is caught."""
    for text in ('game == "horserace"', "self.game != MARCOPOLO2", "k in (GameKind.CAMELUP,)"):
        (node,) = [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Compare)]
        assert any(_names_a_game(s) for s in [node.left, *node.comparators]), text
    (node,) = [n for n in ast.walk(ast.parse("kind == 'release'")) if isinstance(n, ast.Compare)]
    assert not any(_names_a_game(s) for s in [node.left, *node.comparators])


def test_every_game_has_a_profile_and_a_demo() -> None:
    assert set(games.PROFILES) == set(GameKind) == set(DEMO_GAMES)
    for kind, profile in games.PROFILES.items():
        assert games.profile(kind.value) is profile
        assert profile.frame_dice is not profile.reveal_zone
        # a game read in the zone has faces to read; one whose colour matters, its colours
        assert profile.die_faces and (profile.face_only or profile.dice_colours)
    assert [k for k, p in games.PROFILES.items() if p.starting_roll] == [GameKind.CAMELUP]
    assert [k for k, p in games.PROFILES.items() if p.frame_dice] == [GameKind.MARCOPOLO2]
    assert games.PROFILES[GameKind.HORSERACE].die_faces == (1, 2, 3, 4, 5, 6)
    assert games.PROFILES[GameKind.HORSERACE].face_only
    # only Camel Up is played through the slider and the camera by the demo
    camera = [k for k, d in DEMO_GAMES.items() if d.play is DemoPlay.CAMERA]
    assert camera == [GameKind.CAMELUP]
    assert all(
        (d.seat_bot is not None) == (d.play is DemoPlay.SEAT_BOTS) for d in DEMO_GAMES.values()
    )


def test_the_demo_seats_as_many_as_each_engine_takes() -> None:
    names = [f"P{i}" for i in range(10)]
    assert {k.value: len(demo_players(names, k.value)) for k in GameKind} == {
        "camelup": 8,
        "camelup2": 8,
        "horserace": 5,
        "marcopolo2": 4,
    }


def test_a_demo_seed_repeats_the_horse_races_bots_in_another_process() -> None:
    """``pyramid demo --seed 7`` plays the same horse race in every run: the seats' seeds do
    not depend on the process's salted ``hash``."""
    import json
    import os
    import subprocess
    import sys

    code = "from firmware.demo_games import seat_seed; print([seat_seed(7, n) for n in range(5)])"
    seeds = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": salt},
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for salt in ("1", "2")
    }
    assert len(seeds) == 1
    (line,) = seeds
    assert len(set(json.loads(line))) == 5  # five seats, five different bots

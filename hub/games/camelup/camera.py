"""Camel Up at the camera: judging what the camera saw against what the game allows. Pure, no I/O.

Why here and not in vision: vision never knows the game (ARCHITECTURE.md, "Layers"). The
hub does: which dice are still in the pyramid, which faces a die has, where every camel should
stand. A die reading becomes a move only when it is confident *and* fits the game; otherwise a
person is asked. A track reading is compared space by space, skipping the spaces the reader was
unsure of.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from hub.games.common import IllegalAction

from .model import COLOURS, FACES, SPACES

__all__ = [
    "DieVerdict",
    "judge_die",
    "compare_track",
    "describe_stack",
    "TrackError",
    "parse_track_reading",
    "setup_from_dice",
    "setup_from_track",
    "START_SPACES",
]

#: Where the setup roll puts the camels (a die shows 1, 2 or 3).
START_SPACES = tuple(FACES)


class TrackError(IllegalAction):
    """A track reading that is not shaped like one (reason code ``bad_payload``)."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_payload", message)


@dataclass(frozen=True)
class DieVerdict:
    ok: bool
    colour: str | None
    face: int | None
    confidence: float
    reading: dict[str, Any]
    problems: list[str] = field(default_factory=list)
    inferred: bool = False  # the colour came from the game (the last die of a leg)

    def refused(self, why: str) -> DieVerdict:
        return replace(self, ok=False, problems=[*self.problems, why])


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def judge_die(reading: Mapping[str, Any], dice_left: list[str], threshold: float) -> DieVerdict:
    """Decide whether a die reading can be played as it is.

    ``reading``: {"colour": str|None, "face": int|None, "confidence": 0..1, optionally
    "colour_confidence" and "face_confidence"}. With one die left in the pyramid its colour is
    known, so only the face (and its confidence) matters.

    >>> judge_die({"colour": "blue", "face": 2, "confidence": 0.95}, ["blue", "red"], 0.8).ok
    True
    >>> judge_die({"colour": "blue", "face": 2, "confidence": 0.95}, ["green"], 0.8).colour
    'green'
    """
    colour = reading.get("colour")
    face = reading.get("face")
    conf = _num(reading.get("confidence"))
    face_conf = _num(reading.get("face_confidence"))
    shown_colour = colour if isinstance(colour, str) else None
    shown_face = face if isinstance(face, int) and not isinstance(face, bool) else None
    shown: dict[str, Any] = {"colour": shown_colour, "face": shown_face, "confidence": conf}
    problems: list[str] = []
    inferred = False
    if len(dice_left) == 1 and colour != dice_left[0]:
        colour, inferred = dice_left[0], True
        if face_conf is not None:
            conf = face_conf
    if conf is None or not 0.0 <= conf <= 1.0:
        problems.append("no confidence between 0 and 1 was given")
        conf = 0.0
    if colour is None:
        problems.append("no colour was read")
    elif colour not in COLOURS:
        problems.append(f"{colour!r} is not a camel colour")
    elif colour not in dice_left:
        problems.append(f"{colour} was already rolled this leg")
    if face is None:
        problems.append("no face was read")
    elif not isinstance(face, int) or isinstance(face, bool) or face not in FACES:
        problems.append(f"face {face!r} is not 1, 2 or 3")
    if conf < threshold:
        problems.append(f"confidence {conf:.2f} is below {threshold:.2f}")
    if not problems:
        return DieVerdict(True, str(colour), shown_face, conf, shown, problems, inferred)
    return DieVerdict(False, shown_colour, shown_face, conf, shown, problems, inferred)


def describe_stack(stack: list[str]) -> str:
    """ "green under white" for [green, white] (bottom to top); "nothing" for an empty space."""
    return " under ".join(stack) if stack else "nothing"


def _space(raw: Any) -> int:
    try:
        space = int(raw)
    except (TypeError, ValueError):
        raise TrackError(f"{raw!r} is not a space number") from None
    if isinstance(raw, bool) or not 1 <= space <= SPACES:
        raise TrackError(f"space {raw!r} is not on the track (1 to {SPACES})")
    return space


def parse_track_reading(
    p: Mapping[str, Any],
) -> tuple[dict[int, list[str]], set[int], dict[int, str] | None]:
    """Check a track reading's shape; return (stacks, uncertain spaces, desert or None)."""
    track = p.get("track")
    if not isinstance(track, Mapping):
        raise TrackError('a track reading needs "track": {space: [colours bottom to top]}')
    stacks: dict[int, list[str]] = {}
    seen: list[str] = []
    for raw, stack in track.items():
        space = _space(raw)
        if not isinstance(stack, list) or not all(isinstance(c, str) for c in stack):
            raise TrackError(f"space {space}: a stack is a list of colours")
        for c in stack:
            if c not in COLOURS:
                raise TrackError(f"space {space}: {c!r} is not a camel colour")
        seen += stack
        if stack:
            stacks[space] = list(stack)
    if len(seen) != len(set(seen)):
        raise TrackError("a camel was seen on two spaces at once")
    raw_unsure = p.get("uncertain", [])
    if not isinstance(raw_unsure, list):
        raise TrackError('"uncertain" is a list of space numbers')
    uncertain = {_space(s) for s in raw_unsure}
    desert = p.get("desert")
    deserts: dict[int, str] | None = None
    if desert is not None:
        if not isinstance(desert, Mapping):
            raise TrackError('"desert" is {space: "oasis"|"mirage"}')
        deserts = {}
        for raw, side in desert.items():
            if side not in ("oasis", "mirage"):
                raise TrackError(f"space {raw}: a desert tile is oasis or mirage, not {side!r}")
            deserts[_space(raw)] = side
    return stacks, uncertain, deserts


def compare_track(
    engine_track: Mapping[str, list[str]],
    engine_desert: Mapping[str, Mapping[str, Any]],
    reading: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """What differs between the engine's track and a reading, space by space.

    Each difference is {"space": n, "text": "space 7: expected green under white, saw white
    under green"}. Spaces the reader marked uncertain are not compared; desert tiles only if the
    reading has a "desert" map. Raises TrackError when the reading is malformed.
    """
    stacks, uncertain, deserts = parse_track_reading(reading)
    diffs: list[dict[str, Any]] = []
    for space in range(1, SPACES + 1):
        if space in uncertain:
            continue
        expected = list(engine_track.get(str(space), []))
        seen = stacks.get(space, [])
        if expected != seen:
            diffs.append(
                {
                    "space": space,
                    "text": f"space {space}: expected "
                    f"{describe_stack(expected)}, saw {describe_stack(seen)}",
                }
            )
        if deserts is not None:
            want = engine_desert.get(str(space), {}).get("side")
            got = deserts.get(space)
            if want != got:
                diffs.append(
                    {
                        "space": space,
                        "text": f"space {space}: expected "
                        f"{'an ' + want if want else 'no'} desert tile, saw "
                        f"{'an ' + got if got else 'none'}".replace("an mirage", "a mirage"),
                    }
                )
    return diffs


# -- the setup roll, read before a game starts -----------------------------------------------------


def _track_json(track: Mapping[int, list[str]]) -> dict[str, list[str]]:
    return {str(space): list(stack) for space, stack in sorted(track.items())}


def _missing(seen: list[str]) -> list[str]:
    return [c for c in COLOURS if c not in seen]


def setup_from_dice(dice: list[Mapping[str, Any] | None], threshold: float) -> dict[str, Any]:
    """A setup reading from the dice of the setup roll, in roll order (None: a die not received).

    The stacking follows the rules' setup (``hub.games.camelup.setup_track``): camels whose dice
    show the same face stack in roll order, the first at the bottom. The camera sees the five
    dice at once, so its "roll order" is only the order it read them in: a shared space gets a
    note saying so (a track read shows the stacks as the players built them, and is preferred).
    Returns {"source": "dice", "track", "complete", "problems", "notes", "dice"}.
    """
    problems: list[str] = []
    track: dict[int, list[str]] = {}
    roll: list[list[Any]] = []
    seen: list[str] = []
    for i, d in enumerate(dice, 1):
        if d is None:
            problems.append(f"die {i} was not received")
            continue
        colour, face = d.get("colour"), d.get("face")
        conf = _num(d.get("confidence"))
        if not isinstance(colour, str) or colour not in COLOURS:
            why = d.get("reason")
            problems.append(
                f"die {i}: no camel colour was read" + (f" ({why})" if why else "")
                if colour is None
                else f"die {i}: {colour!r} is not a camel colour"
            )
            continue
        if colour in seen:
            problems.append(f"{colour} was read twice")
            continue
        seen.append(colour)
        if isinstance(face, bool) or face not in FACES:
            problems.append(
                f"die {i} ({colour}): "
                + ("no face was read" if face is None else f"face {face!r} is not 1, 2 or 3")
            )
            continue
        if conf is None or conf < threshold:
            problems.append(
                f"die {i} ({colour} {face}): confidence "
                f"{'unknown' if conf is None else f'{conf:.2f}'} is below "
                f"{threshold:.2f}"
            )
        track.setdefault(int(face), []).append(colour)
        roll.append([colour, int(face)])
    if len(dice) != len(COLOURS):
        problems.insert(0, f"the camera read {len(dice)} dice, not {len(COLOURS)}")
    missing = _missing(seen)
    if missing:
        problems.append(f"no die read for {', '.join(missing)}")
    notes = [
        f"space {s}: {describe_stack(st)} stacked in the order the dice were read; check "
        "the stack on the board"
        for s, st in sorted(track.items())
        if len(st) > 1
    ]
    return {
        "source": "dice",
        "track": _track_json(track),
        "complete": not problems,
        "problems": problems,
        "notes": notes,
        "dice": roll,
    }


def setup_from_track(reading: Mapping[str, Any]) -> dict[str, Any]:
    """A setup reading from a track read taken while no game is running.

    Complete when each of the five camels is seen exactly once, all on spaces 1 to 3 (where the
    setup roll puts them), and none of those spaces was uncertain. Raises TrackError when the
    reading is malformed (as :func:`compare_track` does).
    Returns {"source": "track", "track", "complete", "problems", "notes"}.
    """
    stacks, uncertain, _desert = parse_track_reading(reading)
    problems: list[str] = []
    why = reading.get("reason")
    if why:
        problems.append(f"the track was not read: {why}")
    seen = [c for stack in stacks.values() for c in stack]
    off = {s: st for s, st in stacks.items() if s not in START_SPACES}
    for space, stack in sorted(off.items()):
        problems.append(
            f"space {space}: {describe_stack(stack)} (at the start every camel "
            "stands on space 1, 2 or 3)"
        )
    missing = _missing(seen)
    if missing:
        problems.append(f"not seen on the track: {', '.join(missing)}")
    unsure = sorted(s for s in uncertain if s in START_SPACES or missing)
    if unsure:
        problems.append(
            "the camera was unsure of space"
            + ("s " if len(unsure) > 1 else " ")
            + ", ".join(map(str, unsure))
        )
    return {
        "source": "track",
        "track": _track_json(stacks),
        "complete": not problems,
        "problems": problems,
        "notes": [],
    }

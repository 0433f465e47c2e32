"""The table's open prompts (a question for a person), rebuilt from the log like everything else.

Why from the log: a prompt is opened by a hub event (``vision_uncertain``, ``bet_pending`` ...)
and closed by a later one (``prompt_dismissed``, or the batch whose ``cause.resolves`` names it),
so after a restart the open prompts are exactly those the log left open. Which hub event opens
which kind of prompt is :data:`PROMPT_EVENTS`; a game with a prompt of its own adds it through its
driver's :meth:`hub.games_glue.Driver.prompt_of`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, NotRequired, TypedDict

__all__ = ["Prompt", "PromptKind", "PROMPT_EVENTS", "prompt_of", "track_prompt"]

#: What a person is asked: a die the camera doubted (Camel Up), a roll it doubted (the horse
#: race), a frame's dice it could not all read (Marco Polo II), an overall bet's secret colour.
PromptKind = Literal["die_reading", "roll_reading", "dice_check", "bet_colour"]


class Prompt(TypedDict):
    """One open prompt as the snapshot shows it: its id (``p<seq>``), kind and seq, and the
    fields of the event that opened it that its kind has."""

    id: str
    kind: PromptKind
    seq: int
    player: NotRequired[str | None]
    #: what the camera read (colour, face, confidence): die_reading, roll_reading
    reading: NotRequired[dict[str, Any]]
    problems: NotRequired[list[str]]
    crop: NotRequired[str | None]
    expected_colours: NotRequired[list[str]]
    #: dice_check: the round, the players to enter, why, and what was read
    round: NotRequired[int | None]
    players: NotRequired[list[str]]
    needs_person: NotRequired[list[dict[str, Any]]]
    read: NotRequired[dict[str, Any]]
    #: bet_colour: the pile ("winner" or "loser")
    pile: NotRequired[str]


def _die_reading(ev: Mapping[str, Any], seq: int) -> Prompt:
    return {
        "id": ev["prompt"],
        "kind": "die_reading",
        "seq": seq,
        "player": ev.get("player"),
        "reading": ev.get("reading", {}),
        "problems": ev.get("problems", []),
        "crop": ev.get("crop"),
        "expected_colours": ev.get("expected_colours", []),
    }


def _roll_reading(ev: Mapping[str, Any], seq: int) -> Prompt:
    return {
        "id": ev["prompt"],
        "kind": "roll_reading",
        "seq": seq,
        "player": ev.get("player"),
        "reading": ev.get("reading", {}),
        "problems": ev.get("problems", []),
        "crop": ev.get("crop"),
    }


def _dice_check(ev: Mapping[str, Any], seq: int) -> Prompt:
    return {
        "id": ev["prompt"],
        "kind": "dice_check",
        "seq": seq,
        "round": ev.get("round"),
        "players": ev.get("players", []),
        "needs_person": ev.get("needs_person", []),
        "read": ev.get("read", {}),
    }


def _bet_colour(ev: Mapping[str, Any], seq: int) -> Prompt:
    return {
        "id": ev["prompt"],
        "kind": "bet_colour",
        "seq": seq,
        "player": ev["player"],
        "pile": ev["pile"],
    }


#: hub event type -> the prompt it opens
PROMPT_EVENTS: dict[str, Callable[[Mapping[str, Any], int], Prompt]] = {
    "vision_uncertain": _die_reading,
    "roll_uncertain": _roll_reading,
    "dice_uncertain": _dice_check,
    "bet_pending": _bet_colour,
}


def prompt_of(ev: Mapping[str, Any], seq: int) -> Prompt | None:
    """The prompt a logged event opens, or None."""
    make = PROMPT_EVENTS.get(str(ev.get("type")))
    return None if make is None else make(ev, seq)


def track_prompt(
    pending: dict[str, Prompt],
    ev: Mapping[str, Any],
    seq: int,
    opens: Callable[[Mapping[str, Any], int], Prompt | None] = prompt_of,
) -> None:
    """Update the open prompts for one logged event (``opens``: the game's driver's)."""
    t = ev.get("type")
    prompt = opens(ev, seq)
    if prompt is not None:
        pending[prompt["id"]] = prompt
    elif t == "prompt_dismissed":
        pending.pop(ev.get("prompt", ""), None)
    elif t in ("game_started", "game_abandoned"):
        pending.clear()

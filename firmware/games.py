"""Which game the table plays, and what that changes for the camera: pure functions.

Why a module of its own: the same pyramid, camera and buttons serve three games (docs/games.md),
and what the watch loop does with a slider press or a confirm press depends on the game:

* Camel Up: the slider releases a die; the die in the reveal zone is read (colour and face 1..3,
  among the dice still in the pyramid), then the track.
* Camel Up, second edition: the same, among its six dice (five racing colours and the grey die
  that moves a crazy camel); the grey die has no pips: it is found against the empty zone and
  read by its numeral (vision.dice.greydie: the numeral's shade, black or white, which names
  the crazy camel, and its value 1..3), and the hub's camelup2 driver plays it as read when
  the reader is sure, else asks a person. The grey die's reference colour is added to the
  palette when the table's has none (:func:`palette_for`). Its starting position is entered,
  not read.
* the horse race: the slider (or a hand) drops one ordinary six-sided die in the zone; its face
  1..6 is read, no colour (the hub's ``observe_die`` for the horse race takes ``face`` and
  ``confidence``, and the colour would only be a second thing to be unsure of), then the track
  (the hub gives the roll to the horse that moved).
* Marco Polo II: everyone rolls their dice on their own board at once; the confirm button reads
  every die of one still frame and sends them in one ``observe_dice``. The slider does nothing.

The game comes from the hub's retained ``state`` (``state.game.game``), unless the table's
config names it (``[table] game``): a table that only ever plays one game, or a hub too old to
name it. With neither (no game started yet, the hub not heard from), the table is Camel Up's:
that is what the pyramid is for, and the starting roll is read before any game exists.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hub import wire
from hub.games.camelup.model import COLOURS
from hub.games.camelup.model import FACES as CAMEL_FACES
from hub.games.camelup2.model import DICE as DICE2
from hub.games.camelup2.model import GREY
from hub.games.horserace.settings import DIE_FACES as HORSE_FACES
from hub.games.kinds import GameKind

if TYPE_CHECKING:
    from vision.palette import Palette

CAMELUP, HORSERACE, MARCOPOLO2 = GameKind.CAMELUP, GameKind.HORSERACE, GameKind.MARCOPOLO2
CAMELUP2 = GameKind.CAMELUP2
AUTO = "auto"
DEFAULT_GAME = CAMELUP

#: the grey die's body under neutral light (8-bit BGR), until the table's set-up teaches it: a
#: mid grey, between the palette's white and black
GREY_DIE_BGR: tuple[int, int, int] = (128, 128, 128)


@dataclass(frozen=True)
class GameProfile:
    """What one game changes for the camera and the buttons: the watch loop asks its game's
    profile, never which game it is (a new game is a new profile in :data:`PROFILES`)."""

    game: GameKind
    #: the slider releases one die, read in the reveal zone (the zone and the board's markers
    #: are watched); False: the confirm button reads every die of one still frame instead
    reveal_zone: bool
    #: setup mode reads this game's starting roll in the reveal zone
    starting_roll: bool
    #: the faces the die reader may answer for a die in the reveal zone
    die_faces: tuple[int, ...]
    #: the colours of the pyramid's dice (the engine's own list); None: a die's colour does not
    #: matter, only its face is sent (the horse race)
    dice_colours: tuple[str, ...] | None
    #: a colour the shipped palette lacks that this game's dice have (the second edition's grey
    #: die), with its body's BGR, added when the table's palette does not name it
    extra_die: tuple[str, tuple[int, int, int]] | None = None

    @property
    def face_only(self) -> bool:
        """A die of this game is its face alone: its colour is neither read nor sent."""
        return self.dice_colours is None

    @property
    def frame_dice(self) -> bool:
        """The confirm button reads every die of one frame (the slider does nothing)."""
        return not self.reveal_zone


#: the games this firmware serves, and how (see the module docstring)
PROFILES: dict[GameKind, GameProfile] = {
    p.game: p
    for p in (
        GameProfile(CAMELUP, True, True, CAMEL_FACES, COLOURS),
        GameProfile(CAMELUP2, True, False, CAMEL_FACES, DICE2, (GREY, GREY_DIE_BGR)),
        GameProfile(HORSERACE, True, False, tuple(range(1, HORSE_FACES + 1)), None),
        # its dice are read whole-frame, never in the zone: the zone's faces are Camel Up's
        GameProfile(MARCOPOLO2, False, False, CAMEL_FACES, None),
    )
}

#: the games this firmware serves (the hub's may be more: a game it does not know is None)
GAMES: tuple[str, ...] = tuple(g.value for g in PROFILES)

#: the faces the die reader may answer, per game read one die at a time
DIE_FACES: dict[str, tuple[int, ...]] = {
    g: p.die_faces for g, p in PROFILES.items() if p.reveal_zone
}

#: the colours of the pyramid's dice, per game whose dice have colours (the engines' own lists):
#: a die is read among the ones the hub says are left, else among these
DICE_COLOURS: dict[str, tuple[str, ...]] = {
    g: p.dice_colours for g, p in PROFILES.items() if p.dice_colours is not None
}

#: Camel Up's dice: the starting roll is five of them, so it is read among these colours alone
#: (as the reveal zone is; a general palette would leave a teal-lit blue between blue and purple)
SETUP_COLOURS = COLOURS

#: the fields of one reading the hub's observe_dice takes (hub/requests.py refuses any other)
DICE_READING_FIELDS = tuple(wire.DICE_READING_FIELDS)


def profile(game: str) -> GameProfile:
    """The profile of ``game`` (a name this firmware serves: firmware.config validated it, and
    :func:`table_game` answers only these)."""
    return PROFILES[GameKind(game)]


def game_of_state(state: Any) -> str | None:
    """The game the hub's public state names, or None (no game, or not a state at all).

    ``state`` is the retained ``camelup/<table>/state`` payload, parsed: ``{"game": {"game":
    "horserace", ...}, ...}``. A game view without a ``game`` field is Camel Up's (hubs before
    the other games); a name this firmware does not know is None (the config's fallback)."""
    if not isinstance(state, Mapping):
        return None
    view = state.get("game")
    if not isinstance(view, Mapping):
        return None
    name = view.get("game", CAMELUP)
    return name if name in GAMES else None


def table_game(configured: str, from_hub: str | None) -> str:
    """The game the loop serves now: the config's, unless it says "auto"; then the hub's; then
    Camel Up. ``configured`` has been validated (firmware.config)."""
    if configured != AUTO:
        return configured
    return from_hub if from_hub in GAMES else DEFAULT_GAME


def horse_race_die(reading: Mapping[str, Any]) -> dict[str, Any]:
    """A zone reading as the horse race's ``observe_die`` wants it: face and confidence, no colour.

    The reader still classifies the colour (it tells it whether the pips are dark or light), but
    a horse-race die has no colour that matters: the confidence is the face's alone, so a die of
    a colour outside Camel Up's palette is not sent to a person for its colour. The reader's
    reason is kept only when there is no face (it is then why; otherwise it is about colour)."""
    face = reading.get("face")
    face_conf = reading.get("face_confidence")
    if face_conf is None:
        face_conf = reading.get("confidence", 0.0)
    out = {k: v for k, v in reading.items() if k not in ("colour", "colour_confidence")}
    out.update(
        colour=None,
        face=face,
        confidence=float(face_conf) if face is not None else 0.0,
        face_confidence=float(face_conf),
        reason=reading.get("reason") if face is None else None,
    )
    return out


def dice_frame_readings(readings: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Full-frame readings (firmware.readers.die_to_dict) as observe_dice's list: only the fields
    the hub takes, the box as [x, y, w, h] in the frame's pixels (or None)."""
    out = []
    for r in readings:
        box = r.get("box")
        out.append(
            {
                "colour": r.get("colour"),
                "face": r.get("face"),
                "confidence": float(r.get("confidence") or 0.0),
                "box": [int(v) for v in box] if box is not None else None,
            }
        )
    return out


def dice_colours(game: str, left: list[str] | None) -> list[str] | None:
    """The colours a die of ``game`` is read among: the dice the hub says are left, else all the
    game's dice; None for a game whose die has no colour that matters (the horse race)."""
    colours = profile(game).dice_colours
    if colours is None:
        return None
    return list(left) if left is not None else list(colours)


def palette_for(game: str, palette: Palette | None) -> Palette | None:
    """The palette a die of ``game`` is read with: the table's (None: the shipped one), with the
    grey die's reference colour added for the second edition when it has none (a taught
    palette that names grey keeps its own)."""
    extra = profile(game).extra_die
    if extra is None:
        return palette
    from vision.palette import Palette, bgr_to_lab, default_palette

    name, bgr = extra
    base = palette or default_palette()
    if name in base.colours:
        return base
    return Palette({**base.colours, name: bgr_to_lab(bgr)}, base.source, dict(base.meta))

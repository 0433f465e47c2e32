"""The board in a camera frame: geometry from hardware/board.yaml, ArUco markers, homography, pose.

Why a camera pose and not only a homography: the homography maps the board's *surface* to the
image, but the camels stand on it. To read a stack we must know where a point 18 mm or 72 mm
above a space lands in the frame, and that needs the camera's rotation and focal length. Both
follow from the homography of a plane seen by a pinhole camera whose principal point is the image
centre (Zhang's two constraints give the focal length; the columns of K^-1 H give the rotation).
When the camera looks nearly straight down those constraints are ill-conditioned, and we fall
back on the field of view written in board.yaml.

Board coordinates: millimetres on the board's surface, x to the right, y down the board's own
picture (see board.yaml); heights are millimetres above the surface.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import yaml

__all__ = [
    "BoardGeometry",
    "BoardLocation",
    "BoardNotFound",
    "CameraPose",
    "camel_colours_bgr",
    "detect_markers",
    "load_geometry",
    "locate_board",
    "marker_white_mask",
    "reveal_zone_in_image",
]

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "hardware" / "board.yaml"
# 1: the original file (markers upright, on the board's margin); 2: adds ``version``, a marker's
# optional angle (``[x, y, angle_deg]``) and marker cards beside a board with no margin
SUPPORTED_VERSIONS = (1, 2)
# a board file's optional ``board.thickness`` (mm of the board's top above the cards' table):
# a game board is a few millimetres of cardboard; more than this is a typo
MAX_BOARD_HEIGHT_MM = 20.0

# The first-edition board's 16 spaces: the outer ring of a 5 x 5 grid, as [row, column] cells
# from space 1 (row 0 is the top row, spaces 1-5 left to right), the form a board file's
# ``track.cells`` takes.
RING_5X5_CELLS: tuple[tuple[int, int], ...] = (
    (0, 0),
    (0, 1),
    (0, 2),
    (0, 3),
    (0, 4),
    (1, 4),
    (2, 4),
    (3, 4),
    (4, 4),
    (4, 3),
    (4, 2),
    (4, 1),
    (4, 0),
    (3, 0),
    (2, 0),
    (1, 0),
)


def ring_5x5_cells() -> list[list[int]]:
    """``RING_5X5_CELLS`` as the lists a board file holds (a fresh copy each call)."""
    return [list(c) for c in RING_5X5_CELLS]


class BoardNotFound(ValueError):
    """The frame does not show enough of the board to read it; ``str(err)`` says why."""


@dataclass(frozen=True, eq=False)  # hashed by identity: load_geometry caches it
class BoardGeometry:
    """Everything about the physical board the vision code needs, in board millimetres."""

    width: float
    height: float
    dictionary: str
    marker_size: float
    marker_border: float
    min_markers: int
    marker_centres: dict[int, tuple[float, float]]
    cell: float
    space_centres: dict[int, tuple[float, float]]
    camel_length: float
    camel_width: float
    camel_height: float
    max_stack: int
    colours: dict[str, tuple[int, int, int]]  # RGB
    tile_size: float
    tile_colours: dict[str, tuple[int, int, int]]  # RGB, oasis / mirage
    pyramid_centre: tuple[float, float]
    pyramid_size: float
    reveal_zone: tuple[tuple[float, float], ...]
    die_size: float
    hfov_deg: float
    # version 2: a marker may lie turned on the table (degrees, clockwise in board mm); old
    # files have none and every marker upright
    marker_angles: dict[int, float] = field(default_factory=dict)
    version: int = 1
    track_origin: tuple[float, float] = (0.0, 0.0)
    # mm of the board's top above the table the marker cards lie on (``board.thickness``): a
    # camera sees the board's spaces and the camels standing on them from a plane that high, so
    # treating board and cards as one plane shifts the spaces and the camels' bands by a
    # parallax that changes whenever the camera moves. 0 when the file does not say (version 1:
    # the markers are stuck on the board itself)
    board_height: float = 0.0

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> BoardGeometry:
        """Build from a parsed board.yaml; a missing key raises ValueError naming it."""
        try:
            m, tr, cam = doc["markers"], doc["track"], doc["camel"]
            ox, oy = (float(v) for v in tr["origin"])
            cell = float(tr["cell"])
            cells = tr["cells"]
            if len(cells) != int(tr["spaces"]):
                raise ValueError(f"track.cells has {len(cells)} entries for {tr['spaces']} spaces")
            centres = {
                i + 1: (ox + (c + 0.5) * cell, oy + (r + 0.5) * cell)
                for i, (r, c) in enumerate(cells)
            }
            version = int(doc.get("version", 1))
            if version not in SUPPORTED_VERSIONS:
                raise ValueError(
                    f"board geometry: version {version} is not one of {SUPPORTED_VERSIONS}"
                )
            placements: dict[int, tuple[float, float]] = {}
            angles: dict[int, float] = {}
            for k, v in m["placements"].items():
                if len(v) not in (2, 3):
                    raise ValueError(f"markers.placements[{k}]: [x, y] or [x, y, angle_deg]")
                placements[int(k)] = (float(v[0]), float(v[1]))
                if len(v) == 3 and float(v[2]) != 0.0:
                    angles[int(k)] = float(v[2])
            if len(placements) < 3:
                raise ValueError("markers.placements needs at least 3 markers")
            try:
                board_height = float(doc["board"].get("thickness", 0.0))
            except (TypeError, ValueError):
                raise ValueError(
                    f"board.thickness: a number of mm, not {doc['board']['thickness']!r}"
                ) from None
            if not 0.0 <= board_height <= MAX_BOARD_HEIGHT_MM:
                raise ValueError(
                    f"board.thickness is {board_height} mm; a board lies "
                    f"0-{MAX_BOARD_HEIGHT_MM:.0f} mm above the table its marker cards lie on"
                )
            return cls(
                width=float(doc["board"]["width"]),
                height=float(doc["board"]["height"]),
                dictionary=str(m["dictionary"]),
                marker_size=float(m["size"]),
                marker_border=float(m["white_border"]),
                min_markers=int(m.get("min_seen", 3)),
                marker_centres=placements,
                cell=cell,
                space_centres=centres,
                camel_length=float(cam["length"]),
                camel_width=float(cam["width"]),
                camel_height=float(cam["height"]),
                max_stack=int(cam["max_stack"]),
                colours={k: tuple(int(x) for x in v) for k, v in cam["colours"].items()},  # type: ignore[misc]
                tile_size=float(doc["desert_tile"]["size"]),
                tile_colours={
                    k: tuple(int(x) for x in v)  # type: ignore[misc]
                    for k, v in doc["desert_tile"]["colours"].items()
                },
                pyramid_centre=tuple(float(v) for v in doc["pyramid"]["centre"]),  # type: ignore[arg-type]
                pyramid_size=float(doc["pyramid"]["size"]),
                reveal_zone=tuple((float(x), float(y)) for x, y in doc["reveal_zone"]["polygon"]),
                die_size=float(doc["reveal_zone"]["die_size"]),
                hfov_deg=float(doc["camera"]["hfov_deg"]),
                marker_angles=angles,
                version=version,
                track_origin=(ox, oy),
                board_height=board_height,
            )
        except KeyError as exc:
            raise ValueError(f"board geometry: missing key {exc}") from exc

    # --- derived geometry -------------------------------------------------------------------
    @property
    def spaces(self) -> list[int]:
        return sorted(self.space_centres)

    def marker_corners(self, marker_id: int, grow: float = 0.0) -> np.ndarray:
        """Corners of the marker's black square, in OpenCV's order (TL, TR, BR, BL), 4x2 mm.

        ``grow``: mm added on every side (the white border's outer edge is ``marker_border``).
        A marker card lying turned (version 2's angle) has its corners turned with it."""
        cx, cy = self.marker_centres[marker_id]
        s = self.marker_size / 2 + grow
        sq = np.array([[-s, -s], [s, -s], [s, s], [-s, s]])
        a = np.deg2rad(self.marker_angles.get(marker_id, 0.0))
        if a:
            c, n = np.cos(a), np.sin(a)
            sq = sq @ np.array([[c, -n], [n, c]]).T
        return sq + [cx, cy]

    @property
    def margin(self) -> float:
        """The board's width outside the ring of spaces (mm): 0 on the first edition's board,
        whose spaces run to its edge (the marker cards then lie on the table beside it)."""
        ox, oy = self.track_origin
        return float(min(ox, oy, self.width - ox - 5 * self.cell, self.height - oy - 5 * self.cell))

    def marker_point(self, marker_id: int, local: np.ndarray) -> np.ndarray:
        """Board mm of points given in the marker's own frame (mm from its centre, upright)."""
        cx, cy = self.marker_centres[marker_id]
        a = np.deg2rad(self.marker_angles.get(marker_id, 0.0))
        c, n = np.cos(a), np.sin(a)
        rot = np.array([[c, -n], [n, c]])
        return np.asarray(np.asarray(local, np.float64).reshape(-1, 2) @ rot.T + [cx, cy])

    def space_polygon(self, space: int) -> np.ndarray:
        cx, cy = self.space_centres[space]
        s = self.cell / 2
        return np.array([[cx - s, cy - s], [cx + s, cy - s], [cx + s, cy + s], [cx - s, cy + s]])

    def direction(self, space: int) -> tuple[float, float]:
        """Unit vector of travel on ``space``: camels stand lengthwise along it."""
        n = len(self.space_centres)
        a = np.asarray(self.space_centres[space])
        b = np.asarray(self.space_centres[space % n + 1])
        if space == n:  # the finish runs on past space 16, the same way as from 15 to 16
            b = a + (a - np.asarray(self.space_centres[n - 1]))
        d = (b - a) / np.linalg.norm(b - a)
        return float(d[0]), float(d[1])

    def aruco_dictionary(self) -> cv2.aruco.Dictionary:
        name = self.dictionary
        if not hasattr(cv2.aruco, name):
            raise ValueError(f"board geometry: unknown ArUco dictionary {name!r}")
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


@lru_cache(maxsize=8)
def _load_cached(path: str, mtime: float) -> BoardGeometry:
    with open(path, encoding="utf-8") as fh:
        doc = yaml.safe_load(fh)
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: not a board geometry (expected a YAML mapping)")
    return BoardGeometry.from_dict(doc)


def load_geometry(path: str | Path | None = None) -> BoardGeometry:
    """The board geometry of ``path`` (default: the packaged hardware/board.yaml)."""
    p = Path(path) if path is not None else DEFAULT_PATH
    return _load_cached(str(p), p.stat().st_mtime)


def camel_colours_bgr(geometry: BoardGeometry | None = None) -> dict[str, tuple[int, int, int]]:
    """The five camel colours as 8-bit BGR, from board.yaml: the one place they are written.

    The game's dice share the camels' colours, so the dice renderer and the default dice
    palette take them from here too (edit board.yaml, and camels and dice change together)."""
    geo = geometry or load_geometry()
    return {name: (rgb[2], rgb[1], rgb[0]) for name, rgb in geo.colours.items()}


# --- the camera ---------------------------------------------------------------------------
@dataclass(frozen=True)
class CameraPose:
    """A pinhole camera over the board: x_img ~ K (R X + t), X in board mm with z = -height.

    The board frame has x right, y down the board's picture and z into the table, so it is
    right-handed and a camel's top at height h has z = -h.
    """

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray

    @property
    def centre(self) -> np.ndarray:
        """The camera's position in board coordinates (z negative: above the board)."""
        return np.asarray(-self.R.T @ self.t)

    @property
    def homography(self) -> np.ndarray:
        """Board surface (mm) -> image pixels."""
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        return np.asarray(H / H[2, 2])

    def project(self, xy: np.ndarray, height: np.ndarray | float = 0.0) -> np.ndarray:
        """Image pixels (N x 2) of board points ``xy`` (N x 2 mm) at ``height`` mm above it."""
        xy = np.asarray(xy, np.float64).reshape(-1, 2)
        z = -np.broadcast_to(np.asarray(height, np.float64), (len(xy),))
        pts = np.column_stack([xy, z])
        cam = pts @ self.R.T + self.t
        uvw = cam @ self.K.T
        return np.asarray(uvw[:, :2] / uvw[:, 2:3])

    def raised(self, height: float) -> CameraPose:
        """The same camera over a frame ``height`` mm higher (same x, y; z = 0 on the plane
        ``height`` above this one): the marker cards' pose -> the board top's."""
        return CameraPose(K=self.K, R=self.R, t=np.asarray(self.t - height * self.R[:, 2]))

    @classmethod
    def from_homography(
        cls, H: np.ndarray, image_size: tuple[int, int], hfov_deg: float
    ) -> CameraPose:
        """Decompose a board->image homography (square pixels, centred principal point)."""
        w, h = image_size
        T = np.array([[1.0, 0, -w / 2], [0, 1.0, -h / 2], [0, 0, 1.0]])
        G = T @ H
        f = _focal_from_homography(G)
        if f is None or not (0.3 * w < f < 4.0 * w):
            f = (w / 2) / np.tan(np.deg2rad(hfov_deg) / 2)
        K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
        M = np.linalg.inv(K) @ H
        lam = 2.0 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
        if M[2, 2] * lam < 0:  # the board must lie in front of the camera
            lam = -lam
        r1, r2, t = M[:, 0] * lam, M[:, 1] * lam, M[:, 2] * lam
        R0 = np.column_stack([r1, r2, np.cross(r1, r2)])
        U, _, Vt = np.linalg.svd(R0)
        R = U @ Vt
        if np.linalg.det(R) < 0:
            R = U @ np.diag([1.0, 1.0, -1.0]) @ Vt
        return cls(K=K, R=R, t=t)


def _focal_from_homography(G: np.ndarray) -> float | None:
    """Focal length (px) from Zhang's constraints on a centred homography, or None if unsure.

    r1 . r2 = 0 and |r1| = |r2| with r_i ~ K^-1 g_i give two estimates of f^2; each needs the
    board to be seen obliquely (g_i[2] not ~ 0), so each is weighted by its denominator.
    """
    s = float(np.abs(G[:2, :2]).max())
    g1, g2 = G[:, 0] / s, G[:, 1] / s
    ests: list[tuple[float, float]] = []  # (f^2, weight)
    den1 = g1[2] * g2[2]
    den2 = g2[2] ** 2 - g1[2] ** 2
    for num, den in (
        (-(g1[0] * g2[0] + g1[1] * g2[1]), den1),
        ((g1[0] ** 2 + g1[1] ** 2) - (g2[0] ** 2 + g2[1] ** 2), den2),
    ):
        if abs(den) > 1e-12 and num / den > 0:
            ests.append((num / den, abs(den)))
    if not ests or max(wt for _, wt in ests) < 1e-9:
        return None
    f2 = sum(v * wt for v, wt in ests) / sum(wt for _, wt in ests)
    return float(np.sqrt(f2))


# --- markers ------------------------------------------------------------------------------
@lru_cache(maxsize=8)
def _detector(
    dictionary: str, wide: bool = False, centres: bool = False
) -> cv2.aruco.ArucoDetector:
    """``wide``: OpenCV's three adaptive-threshold windows (3, 13, 23 px) instead of one.
    ``centres``: each cell's bit read from its middle half only (OpenCV's default ignores
    only its outer 13 %): out of focus, a small card's cells bleed into each other."""
    geo_dict = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    params = cv2.aruco.DetectorParameters()
    if centres:
        params.perspectiveRemoveIgnoredMarginPerCell = 0.25
    if not wide:
        # one adaptive-threshold window instead of three: the markers' size in the frame is
        # known well enough (a board filling the frame), and it is most of the detection time
        params.adaptiveThreshWinSizeMin = 7
        params.adaptiveThreshWinSizeMax = 7
        params.adaptiveThreshWinSizeStep = 10
    return cv2.aruco.ArucoDetector(geo_dict, params)


def _gray(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim not in (2, 3):
        raise ValueError(
            f"expected a uint8 grey or BGR image, got {getattr(image, 'shape', type(image))}"
        )
    if image.ndim == 3:
        if image.shape[2] != 3:
            raise ValueError(f"expected 3 channels, got {image.shape[2]}")
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return image


def detect_markers(
    image: np.ndarray, geometry: BoardGeometry | None = None
) -> dict[int, np.ndarray]:
    """The board's markers seen in ``image``: id -> 4x2 corners (TL, TR, BR, BL) in pixels.

    Ids that are not on the board are ignored (a stray marker on the table must not move it).
    """
    geo = geometry or load_geometry()
    gray = _gray(image)
    want = len(geo.marker_centres)
    cheap = 0.5 if min(gray.shape) >= 480 else 1.0
    # a small or blurred card (a lens out of focus, a soft camera) can be lost at one scale
    # or window and seen at another, and which one differs card by card. Tries run from the
    # cheapest to the dearest until every card has been seen by one of them; the try that saw
    # the most gives the corners (the first of them on a tie: corners move by a tenth of a
    # pixel between tries, and the reader is sensitive to that), and the cards it missed are
    # taken from the others, in order
    tries = [
        (cheap, False, False),
        (1.0, False, False),
        (cheap, True, False),
        (1.0, True, False),
        (1.0, True, True),
    ]
    seen: list[dict[int, np.ndarray]] = []
    for scale, wide, centres in dict.fromkeys(tries):
        seen.append(_detect(gray, geo, scale, wide, centres))
        if len(set().union(*seen)) >= want:
            break
    most = max(range(len(seen)), key=lambda i: len(seen[i]))  # the first of the largest
    found = dict(seen[most])
    for other in seen:
        for mid, corners in other.items():
            if mid not in found and not _overlaps(corners, found.values()):
                found[mid] = corners
    return found


def _overlaps(corners: np.ndarray, others: Iterable[np.ndarray]) -> bool:
    """Whether ``corners``' centre lies within another found marker: one card decoded as two
    ids at two scales must not count twice."""
    cx, cy = (float(v) for v in corners.mean(axis=0))
    return any(
        cv2.pointPolygonTest(o.astype(np.float32).reshape(-1, 1, 2), (cx, cy), False) >= 0
        for o in others
    )


def _detect(
    gray: np.ndarray, geo: BoardGeometry, scale: float, wide: bool = False, centres: bool = False
) -> dict[int, np.ndarray]:
    """Detect at ``scale`` (half resolution is 4x cheaper), then refine corners at full size."""
    small = (
        gray
        if scale == 1.0
        else cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    )
    corners, ids, _ = _detector(geo.dictionary, wide, centres).detectMarkers(small)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for c, raw in zip(corners, ids.ravel(), strict=False):
        mid = int(raw)
        if mid in geo.marker_centres and mid not in found:
            found[mid] = (np.asarray(c, np.float64).reshape(4, 2) + 0.5) / scale - 0.5
    if found:
        pts = np.concatenate([found[i] for i in sorted(found)]).astype(np.float32)
        side = min(float(np.linalg.norm(found[i][0] - found[i][2])) for i in found) / 1.41
        win = int(max(2, min(6, side / 12)))
        cv2.cornerSubPix(
            gray,
            pts.reshape(-1, 1, 2),
            (win, win),
            (-1, -1),
            (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 20, 0.03),
        )
        for j, i in enumerate(sorted(found)):
            found[i] = pts[4 * j : 4 * j + 4].astype(np.float64)
    return found


@dataclass(frozen=True)
class BoardLocation:
    """Where the board is in one frame."""

    pose: CameraPose
    homography: np.ndarray  # board mm -> image px
    markers: dict[int, np.ndarray] = field(default_factory=dict)  # id -> 4x2 px corners
    reprojection_error: float = 0.0  # px, RMS over the marker corners
    image_size: tuple[int, int] = (0, 0)  # (w, h)
    board_height: float = 0.0  # mm of the board's top above the cards (the geometry's)

    def to_image(self, xy: np.ndarray, height: np.ndarray | float = 0.0) -> np.ndarray:
        """Image px of board points ``xy`` (mm) at ``height`` mm above the board's top."""
        return self.pose.project(xy, height)

    def cards_to_image(self, xy: np.ndarray) -> np.ndarray:
        """Image px of points on the marker cards (board mm): they lie ``board_height`` below
        the board's top, on the table."""
        return self.pose.project(xy, -self.board_height)


def locate_board(
    image: np.ndarray,
    geometry: BoardGeometry | None = None,
    markers: dict[int, np.ndarray] | None = None,
) -> BoardLocation:
    """Find the board: markers -> homography -> camera pose. Raises BoardNotFound with a reason."""
    geo = geometry or load_geometry()
    gray = _gray(image)
    h, w = gray.shape
    if float(gray.mean()) < 8.0 and int(gray.max()) < 40:
        raise BoardNotFound("the frame is black: is the camera covered or failing?")
    seen = markers if markers is not None else detect_markers(gray, geo)
    if len(seen) < geo.min_markers:
        ids = sorted(seen)
        raise BoardNotFound(
            f"saw {len(seen)} board marker(s) {ids}, need {geo.min_markers} of "
            f"{sorted(geo.marker_centres)}: is the board in view and are the markers uncovered?"
        )
    src = np.concatenate([geo.marker_corners(i) for i in sorted(seen)])
    dst = np.concatenate([seen[i] for i in sorted(seen)])
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None or not np.all(np.isfinite(H)):
        raise BoardNotFound("the markers do not fit a board: the homography is degenerate")
    proj = cv2.perspectiveTransform(src.reshape(-1, 1, 2), H).reshape(-1, 2)
    err = float(np.sqrt(np.mean(np.sum((proj - dst) ** 2, axis=1))))
    if err > 4.0:
        raise BoardNotFound(
            f"the markers do not lie where board.yaml puts them (fit error {err:.1f} px): "
            "is a marker moved, or the board bent?"
        )
    pose = CameraPose.from_homography(H, (w, h), geo.hfov_deg)
    if geo.board_height:
        pose = pose.raised(geo.board_height)  # the cards' plane -> the board's top
        H = pose.homography
    return BoardLocation(
        pose=pose,
        homography=H / H[2, 2],
        markers=seen,
        reprojection_error=err,
        image_size=(w, h),
        board_height=geo.board_height,
    )


def reveal_zone_in_image(
    location: BoardLocation, geometry: BoardGeometry | None = None
) -> np.ndarray:
    """The reveal zone's polygon in image pixels (4x2), to point the dice reader at it."""
    geo = geometry or load_geometry()
    return location.to_image(np.asarray(geo.reveal_zone))


def reveal_zone_box(
    location: BoardLocation, geometry: BoardGeometry | None = None, margin_mm: float = 0.0
) -> tuple[int, int, int, int]:
    """Bounding box (x, y, w, h) in pixels of the reveal zone grown by ``margin_mm``, clipped."""
    geo = geometry or load_geometry()
    poly = np.asarray(geo.reveal_zone)
    c = poly.mean(axis=0)
    grown = c + (poly - c) * (1 + 0.0) + np.sign(poly - c) * margin_mm
    # a die standing in the zone reaches up one die size: include its top
    pts = np.concatenate([location.to_image(grown), location.to_image(grown, geo.die_size)])
    x0, y0 = np.floor(pts.min(axis=0)).astype(int)
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int)
    w, h = location.image_size
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, w), min(y1, h)
    return int(x0), int(y0), int(max(x1 - x0, 0)), int(max(y1 - y0, 0))


def marker_white_mask(
    shape: tuple[int, ...],
    location: BoardLocation,
    geometry: BoardGeometry | None = None,
    marker_id: int | None = None,
) -> np.ndarray:
    """Boolean mask of the markers' white borders (the white-balance reference), inner 80 %.

    Pass ``marker_id`` for one marker only. Feed ``image[mask]`` to a white-balance function.
    """
    geo = geometry or load_geometry()
    mask = np.zeros(shape[:2], np.uint8)
    ids = [marker_id] if marker_id is not None else sorted(location.markers)
    b = geo.marker_border
    for i in ids:
        if i not in geo.marker_centres:
            raise ValueError(f"marker {i} is not on the board")
        po = location.cards_to_image(geo.marker_corners(i, 0.85 * b))
        pi = location.cards_to_image(geo.marker_corners(i, 0.2 * b))
        cv2.fillConvexPoly(mask, np.round(po).astype(np.int32), 1)
        cv2.fillConvexPoly(mask, np.round(pi).astype(np.int32), 0)
    return mask.astype(bool)


def stack_region(
    pose: CameraPose, geometry: BoardGeometry, space: int, levels: int | None = None
) -> np.ndarray:
    """Image polygon (convex hull, N x 2 px) where a stack of ``levels`` camels on ``space`` shows.

    The footprint is grown to cover camels placed a little off-centre. The track reader looks
    only here for that space, so a hand inside this polygon makes the space unreadable; the
    renderer uses the same polygon to say which spaces a hand covers.
    """
    n = geometry.max_stack if levels is None else levels
    cx, cy = geometry.space_centres[space]
    r = 0.5 * max(geometry.camel_length, geometry.camel_width) + 6.0
    sq = np.array([[-r, -r], [r, -r], [r, r], [-r, r]]) + [cx, cy]
    top = (n + 0.3) * geometry.camel_height
    pts = np.concatenate([pose.project(sq, 0.0), pose.project(sq, top)]).astype(np.float32)
    return cv2.convexHull(pts).reshape(-1, 2).astype(np.float64)

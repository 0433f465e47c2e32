"""The demo table: a whole Camel Up table on one machine, with no hardware.

Why it exists: it is what a newcomer sees first (`make demo`), and it is the one place where every
part of the product runs together exactly as it does at a real table. Bot players sit at the
table; when a bot takes a pyramid tile the demo does what a person does — it pushes the pyramid's
slider (a gpiozero mock pin) and a die lands in the reveal zone (a rendered camera frame). From
there nothing is simulated: the real watch loop sees the edge, waits for the frame to settle, the
real vision reads the die, the reading goes to the hub session through the in-process sink, the
hub judges it, logs it, publishes it over MQTT and pushes it to the dashboard.

The die's colour and face come from the demo's seeded generator (among the dice still in the
pyramid); the engine learns them only from the vision read. When vision abstains or reads
something the game cannot accept, the hub raises ``vision_uncertain`` and the demo answers the
prompt as a person would (with the true die). When vision reads a wrong die confidently, the
hub accepts it; the demo then does what a person looking at the dashboard would do — undo, and
enter the die seen. Both are counted. After each move the board is rendered again (a hand moves
the camel, then lets go) and the loop reads the track; a ``track_mismatch`` is logged and counted.

Pieces: :class:`BoardCamera` renders the table as the camera sees it (one camera pose and one lamp
per game; the same image is handed out until the scene changes, so frames settle);
:class:`ObservingSession` sits between the sink and the session and records the hub's answers;
:class:`DemoPolicy` wraps the bots so every kind of action appears in every game;
:class:`DemoTable` drives games; :func:`run_demo` wires it all to a broker and the dashboard.
"""

from __future__ import annotations

import json
import logging
import random
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import reduce
from pathlib import Path
from typing import Any

import numpy as np

from hub.games.kinds import DEFAULT_GAME
from hub.wire import Answer, EventType

log = logging.getLogger(__name__)

NAMES = ("Ada", "Bo", "Cy", "Di", "Eli", "Flo", "Gus", "Hal")
SPACES = 16  # camels past the finish line are off the board the camera sees
#: the kinds of action a game must show (the dashboard, MQTT and the log name them so)
KINDS = ("leg", "desert", "pyramid", "bet:winner", "bet:loser")
HUMAN_PACE_S = 2.0  # one move every ~2 s: a table a person can follow on the dashboard
#: leader's space from which the demo policy starts playing the kinds of action not seen yet
FORCE_FROM_SPACE = 7
#: fields the watch loop adds that the hub's observe_* commands do not take (see ObservingSession)


class DemoError(RuntimeError):
    """The demo cannot run (no broker, bad options); the message says why."""


# --- the camera's view --------------------------------------------------------------------------
FULL_SIZE = (4608, 2592)  # the Camera Module 3's full resolution, the die reader's stream


class BoardCamera:
    """Renders the board as the table's camera sees it, and hands out the current frame.

    One camera pose, one lamp and one table per game (a real camera does not move between dice,
    nor does the lamp): every render of a game draws the same scene (table grain, lamp
    direction, lighting, blur) and only its own sensor noise, so two frames differ where the
    table changed (a die landed, a camel moved, a hand) and nowhere else — what the watch loop's
    settle machine expects of a camera. :meth:`frame` returns the same image object until
    :meth:`show` is given another, so the watch loop sees a still scene settle.

    :meth:`zone` is the camera's full-resolution stream (``FrameSource.capture_zone``): the box
    of the frame shown, rendered at FULL_SIZE with the same scene (the pose's intrinsics scaled
    and shifted to the window, as vision.render.zone does), so the die reader reads the demo's
    dice at the resolution the product reads them.
    """

    def __init__(
        self, seed: Any, size: tuple[int, int] = (1280, 720), full_size: tuple[int, int] = FULL_SIZE
    ) -> None:
        from vision.board import load_geometry

        self.size = size
        self.full_size = full_size
        self.geometry = load_geometry()
        self._seed = seed
        self._lock = threading.Lock()
        self._image: np.ndarray | None = None
        self._scene: tuple[Any, ...] | None = None  # what the shown image is a render of
        self._scenes: dict[int, tuple[np.ndarray, tuple[Any, ...]]] = {}  # id -> (image, scene)
        self._zones: dict[tuple[Any, ...], np.ndarray] = {}  # clean full-res windows, cached
        self._count = 0
        self.renders = 0
        self.zone_renders = 0
        self.render_ms: list[float] = []
        self.new_game(0)

    def new_game(self, game_no: int) -> None:
        """A new pose and lamp, drawn from the seed and the game's number."""
        from dataclasses import replace

        from vision.render.board import sample_pose
        from vision.render.effects import EffectParams

        rng = np.random.default_rng(_seed_int(self._seed, "camera", game_no))
        self.pose = sample_pose(rng, self.geometry, self.size)
        lamp = EffectParams.sample(rng, self.size, glare_probability=0.0)
        # the lamp, the optics and the codec are fixed for the game; the noise is per frame
        self.effects = replace(lamp, noise_sigma=max(lamp.noise_sigma, 0.5))
        self._scene_seed = _seed_int(self._seed, "scene", game_no)
        self._game = game_no
        with self._lock:
            self._zones.clear()

    def _scene_streams(self) -> SceneStreams:
        """The scene's streams: one per part, fresh for every frame (so an unchanged part is
        drawn the same every time)."""
        return SceneStreams(self._scene_seed)

    def _scene_rng(self) -> np.random.Generator:
        """``render_board_scene``'s own generator: with ``streams`` given it draws nothing from
        it; seeded all the same, so a frame depends only on the scene."""
        return np.random.default_rng(self._scene_seed)

    def render(
        self,
        track: dict[int, tuple[str, ...]] | dict[int, list[str]],
        desert: dict[int, str],
        die: tuple[str, int] | None = None,
    ) -> np.ndarray:
        """One frame: the camels on the board's 16 spaces, the desert tiles, the die if any."""
        from vision.render.board import render_board_scene
        from vision.render.effects import apply_effects

        on_board = {int(s): list(c) for s, c in track.items() if 1 <= int(s) <= SPACES and c}
        tiles = {int(s): side for s, side in desert.items() if int(s) not in on_board}
        with self._lock:
            self._count += 1
            n = self._count
        scene = (
            self._game,
            tuple((k, tuple(v)) for k, v in sorted(on_board.items())),
            tuple(sorted(tiles.items())),
            die,
        )
        t0 = time.perf_counter()
        image, _ = render_board_scene(
            self._scene_rng(),
            track=on_board,
            desert=tiles,
            die=die,
            size=self.size,
            pose=self.pose,
            geometry=self.geometry,
            effects=False,
            streams=self._scene_streams(),
        )
        noise = np.random.default_rng(_seed_int(self._seed, "frame", self._game, n))
        image = apply_effects(image, self.effects, noise)
        self.render_ms.append((time.perf_counter() - t0) * 1000)
        self.renders += 1
        self._remember(image, scene)
        return image

    def _remember(self, image: np.ndarray, scene: tuple[Any, ...]) -> None:
        with self._lock:
            self._scenes[id(image)] = (image, scene)  # the image is kept: its id stays its own
            while len(self._scenes) > 8:
                del self._scenes[next(iter(self._scenes))]

    def zone(self, box: tuple[int, int, int, int]) -> tuple[np.ndarray, float] | None:
        """``box`` of the frame shown now, as the full-resolution stream sees it (the
        RenderedSource's ``zone`` callable): (BGR window, full-resolution px per frame px)."""
        from dataclasses import replace

        from vision.board import CameraPose
        from vision.render.board import render_board_scene
        from vision.render.effects import apply_effects

        with self._lock:
            scene = self._scene
            self._count += 1
            n = self._count
        if scene is None:
            return None
        game, track, tiles, die = scene
        if game != self._game:
            return None
        fx, pose = self.effects, self.pose
        W, H = self.full_size
        s = W / self.size[0]
        x, y, w, h = (int(v) for v in box)
        x0, y0 = max(int(x * s), 0), max(int(y * s), 0)
        x1, y1 = min(int((x + w) * s), W), min(int((y + h) * s), H)
        if x1 - x0 < 8 or y1 - y0 < 8:
            return None
        key = (scene, x0, y0, x1, y1)
        with self._lock:
            clean = self._zones.get(key)
        if clean is None:
            A = np.array([[s, 0, -x0], [0, s, -y0], [0, 0, 1.0]])
            window = CameraPose(K=A @ pose.K, R=pose.R, t=pose.t)
            clean, _ = render_board_scene(
                self._scene_rng(),
                track={k: list(v) for k, v in track},
                desert=dict(tiles),
                die=die,
                size=(x1 - x0, y1 - y0),
                pose=window,
                geometry=self.geometry,
                effects=False,
                streams=self._scene_streams(),
            )
            self.zone_renders += 1
            with self._lock:
                self._zones[key] = clean
                while len(self._zones) > 8:  # a few scenes' windows (~1 MB each)
                    del self._zones[next(iter(self._zones))]
        # the lamp's gradient is a slope across the whole frame: over the window it is smaller;
        # a small lens is softer per pixel at its full resolution (as vision.render.zone)
        fx_zone = replace(
            fx,
            gradient=fx.gradient * max(x1 - x0, y1 - y0) / max(W, H),
            blur_sigma=fx.blur_sigma * 2.0,
            motion_length=fx.motion_length * 2.0,
        )
        noise = np.random.default_rng(_seed_int(self._seed, "zone", self._game, n))
        return apply_effects(clean, fx_zone, noise), s

    def with_hand(self, image: np.ndarray, space: int, seed: int) -> np.ndarray:
        """The frame with a person's arm over ``space`` (moving a camel): the loop sees motion."""
        from vision.render.hands import draw_hand

        space = min(max(int(space), 1), SPACES)
        c = self.geometry.space_centres[space]
        a, b = self.pose.project(np.array([c, [c[0] + 10.0, c[1]]]), 0.0)
        out = image.copy()
        draw_hand(
            out,
            np.random.default_rng(seed),
            (float(a[0]), float(a[1])),
            float(np.linalg.norm(b - a)) / 10.0,
        )
        with self._lock:
            known = self._scenes.get(id(image))
        if known is not None:  # the hand is over the track, not the reveal zone
            self._remember(out, known[1])
        return out

    def show(self, image: np.ndarray) -> None:
        with self._lock:
            self._image = image
            known = self._scenes.get(id(image))
            self._scene = known[1] if known is not None else None

    def frame(self) -> np.ndarray | None:
        """What the camera sees now (the RenderedSource's callable)."""
        with self._lock:
            return self._image


class SceneStreams:
    """A random generator per part of one scene (``render_board_scene``'s ``streams``).

    Why: ``render_board_scene`` draws the desert tiles' jitter, then the table, the lamp's
    direction, the camels' placement and the die from ONE generator, so the number of tiles on
    the board shifted everything drawn after them: when a leg ended and the tiles went back to
    the players, the table's colour and grain changed over the whole frame. The watch loop's
    settle machine (rightly) took that for a hand over the table and the track waited its
    timeout. Here each part of the scene gets a stream of its own, seeded by the scene and the
    part's name (and, for a tile or a camel stack, its space), asked for by name: a tile placed
    changes that tile, a camel moved changes its stacks, and nothing else.
    """

    def __init__(self, seed: int) -> None:
        self._seed = seed
        self._streams: dict[tuple[str, int | None], np.random.Generator] = {}

    def __call__(self, part: str, space: int | None = None) -> np.random.Generator:
        key = (part, space)
        stream = self._streams.get(key)
        if stream is None:
            parts = (part,) if space is None else (part, space)
            stream = self._streams[key] = np.random.default_rng(_seed_int(self._seed, *parts))
        return stream


def _seed_int(*parts: Any) -> int:
    """A stable 64-bit seed from any parts (Python's hash() of text changes per process)."""
    import hashlib

    digest = hashlib.sha256("/".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "little")


# --- the hub's answers to the firmware -----------------------------------------------------------
class ObservingSession:
    """Stands between the firmware's InProcessSink and the session; keeps the hub's answers.

    Why: the demo must know what the hub made of each observation (a die played, a prompt, a
    track that matched or not) to answer as a person would; the hub's answer to ``observe`` says
    exactly that, and nothing in the sink or the session has to change for the demo.
    """

    def __init__(self, session: Any) -> None:
        self.session = session
        self.answers: list[tuple[str, dict[str, Any], Answer]] = []
        self.times: list[float] = []  # time.monotonic() of each answer, for latency figures
        self._cond = threading.Condition()

    @property
    def game(self) -> Any:
        """The session's game: the in-process sink reads the dice left in it for the reader."""
        return self.session.game

    def observe(self, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self.session.observe(kind, data)
        if kind != "status":
            with self._cond:
                self.answers.append((kind, data, Answer.from_payload(answer)))
                self.times.append(time.monotonic())
                self._cond.notify_all()
        return answer

    def mark(self) -> int:
        with self._cond:
            return len(self.answers)

    def wait_for(
        self, kind: str, since: int, timeout: float, stop: threading.Event | None = None
    ) -> tuple[dict[str, Any], Answer] | None:
        """The first (payload, the hub's answer) of ``kind`` after answer number ``since``, or
        None."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for k, data, answer in self.answers[since:]:
                    if k == kind:
                        return data, answer
                remaining = deadline - time.monotonic()
                if remaining <= 0 or (stop is not None and stop.is_set()):
                    return None
                self._cond.wait(min(remaining, 0.2))


# --- the players ---------------------------------------------------------------------------------
def kind_of(action: Any) -> str:
    """One of KINDS for an engine action."""
    from hub.games.camelup import BetOverall, PlaceDesert, ReleaseDie, TakeLegTile

    if isinstance(action, TakeLegTile):
        return "leg"
    if isinstance(action, PlaceDesert):
        return "desert"
    if isinstance(action, ReleaseDie):
        return "pyramid"
    if isinstance(action, BetOverall):
        return f"bet:{action.pile}"
    raise TypeError(f"not a Camel Up action: {action!r}")


def bot_kinds(players: int) -> list[str]:
    """Advisor and random bots in turn around the table (seat 0 follows the advisor)."""
    return ["advisor" if i % 2 == 0 else "random" for i in range(players)]


class DemoPolicy:
    """The bots, plus a small rule so that every kind of action appears in every game.

    The advisor rarely bets on the overall winner early and the random bot mostly places desert
    tiles, so a game could end without, say, a loser bet. Once the leading camel has reached
    space FORCE_FROM_SPACE, a player whose bot would do something already seen this game plays
    a kind not seen yet instead (the advisor's best move of that kind, else a seeded choice).
    Such turns never release a die, so the race cannot end while kinds are missing: each forced
    turn removes one missing kind, and at most four are needed.
    """

    def __init__(
        self, bots: list[Callable[[Any], Any]], seed: Any, kinds: list[str] | None = None
    ) -> None:
        self.bots = bots
        self.bot_kinds = kinds or ["random"] * len(bots)
        self.seed = seed
        self.used: Counter[str] = Counter()
        self.forced: Counter[str] = Counter()

    def new_game(self) -> None:
        self.used = Counter()

    def missing(self) -> list[str]:
        return [k for k in KINDS if k != "pyramid" and not self.used[k]]

    def choose(self, state: Any) -> Any:
        from hub.games.camelup import legal_actions

        choice = self.bots[state.current](state)
        missing = self.missing()
        leader = max((s for s in state.track), default=0)
        rng = random.Random(f"demo-policy/{self.seed}/{state.actions}")
        if missing and kind_of(choice) not in missing and leader >= FORCE_FROM_SPACE:
            legal = legal_actions(state)
            for kind in missing:
                options = [a for a in legal if kind_of(a) == kind]
                if kind.startswith("bet:"):  # the engine lists one bet per card in hand
                    options = [
                        a
                        for a in options
                        if getattr(a, "colour", None) in state.players[state.current].race_cards
                    ]
                if options:
                    self.forced[kind] += 1
                    return self._best(state, options, rng)
        return choice

    @staticmethod
    def _best(state: Any, options: list[Any], rng: random.Random) -> Any:
        try:
            from hub.games.camelup.advisor import advise

            wanted = {str(a) for a in options}
            for row in advise(state):
                if row["action"] in wanted:
                    return next(a for a in options if str(a) == row["action"])
        except Exception as exc:  # no race table yet: any option of the kind will do
            log.debug("advisor unavailable for the demo policy: %s", exc)
        return rng.choice(options)

    def played(self, action: Any) -> None:
        self.used[kind_of(action)] += 1


# --- the table -----------------------------------------------------------------------------------
@dataclass
class DemoStats:
    """What happened, for the summary line and the tests."""

    games: int = 0
    moves: int = 0
    releases: int = 0  # slider presses = dice released by the bots
    read_by_vision: int = 0  # dice the hub played straight from the vision read, right
    vision_prompts: int = 0  # vision_uncertain prompts answered with the true die
    misreads_corrected: int = 0  # confident wrong reads: undone and entered by hand
    entered_by_hand: int = 0  # no answer from the loop at all: the die typed in
    track_reads: int = 0
    track_mismatches: int = 0
    refusals: int = 0  # actions the hub refused (should stay 0)
    scenes_ahead: int = 0  # releases whose frames were rendered ahead (no wait for the renderer)
    kinds: Counter[str] = field(default_factory=Counter)
    forced: Counter[str] = field(default_factory=Counter)
    winners: list[str] = field(default_factory=list)
    game_ids: list[str] = field(default_factory=list)
    per_game_kinds: list[dict[str, int]] = field(default_factory=list)
    die_ms: list[float] = field(default_factory=list)  # slider edge -> hub's answer (in process)

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k not in ("die_ms",)}
        d["kinds"] = dict(self.kinds)
        d["forced"] = dict(self.forced)
        if self.die_ms:
            d["die_ms_median"] = round(float(np.median(self.die_ms)), 1)
        return d


@dataclass
class DemoOptions:
    players: int = 4
    seed: Any = 1
    pace_s: float = HUMAN_PACE_S  # seconds per move; 0 = as fast as it goes
    games: int | None = None  # None: play until stopped
    table: str = "demo"
    pin: str = "1234"
    fps: float = 30.0
    size: tuple[int, int] = (1280, 720)
    game: str = DEFAULT_GAME.value  # the game the demo starts (a GameKind value)
    seat: str | None = None  # a seat a person plays from the page (the bots wait for them)
    pause_after_leg: bool = False  # hold the bots after each leg until ``resume`` is set
    resume: threading.Event | None = None
    qr: bool = False  # draw the dashboard's address as a QR code in the terminal
    # a line for every move (the command line's -v): the terminal otherwise says only what a
    # person needs (the address, each game's start and end) and anything that goes wrong
    moves: bool = True


class DemoTable:
    """Bot players, the mock pyramid and the rendered camera around one hub session."""

    def __init__(
        self,
        session: Any,
        options: DemoOptions,
        *,
        pin_factory: Any = None,
        stop: threading.Event | None = None,
        on_move: Callable[[str], None] | None = None,
    ) -> None:
        from firmware.camera import CameraSupervisor
        from firmware.config import WatchConfig
        from firmware.devices import Devices
        from firmware.frames import RenderedSource
        from firmware.health import Health
        from firmware.palette import TablePalette
        from firmware.readers import Readers
        from firmware.sinks import InProcessSink
        from firmware.watch import WatchLoop
        from hardware.pinmap import load_pinmap
        from hub.games.camelup.bots import make_bot

        if not 2 <= options.players <= len(NAMES):
            raise DemoError(f"--players must be 2 to {len(NAMES)}, not {options.players}")
        self.session = session
        self.opt = options
        self.stop_event = stop or threading.Event()
        self.on_move = on_move or (lambda text: None)
        self.stats = DemoStats()
        self.names = list(NAMES[: options.players])
        if options.seat is not None and options.seat not in self.names:
            self.names[0] = options.seat  # the person sits first, under their own name
        self.kinds = bot_kinds(options.players)
        self.policy = DemoPolicy(
            [make_bot(k, f"{options.seed}/{i}") for i, k in enumerate(self.kinds)],
            options.seed,
            self.kinds,
        )
        self.auth = {"pin": options.pin} if options.pin else None
        self.camera_view = BoardCamera(options.seed, options.size)
        self.observed = ObservingSession(session)
        from firmware.demo_games import OtherGameBots

        self.others = OtherGameBots(session, options.seed, self.auth, seat=options.seat)
        self._game_id: str | None = None
        self.link_base: str | None = None  # the dashboard's address, for the seat's own link
        # renders run one at a time beside the table; the next die's two scenes are rendered
        # ahead (see _speculate), so a release waits for the slider and vision, not the renderer
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="demo-render")
        self._spec: tuple[Any, Future[np.ndarray], Future[np.ndarray], Any] | None = None
        self.spec_hits = 0
        self._opened: list[Callable[[], None]] = []
        try:
            self.devices = Devices(
                load_pinmap(), pin_factory=pin_factory, factory_mode="mock", chirps=False
            )
            self._opened.append(self.devices.close)
            self.sink = InProcessSink(self.observed)
            self.camera = CameraSupervisor(
                lambda: RenderedSource(
                    self.camera_view.frame,
                    fps=options.fps,
                    name="demo-render",
                    zone=self.camera_view.zone,
                ),
                freeze_timeout_s=30.0,
            )  # no frame until the first render: not a frozen camera
            self.loop = WatchLoop(
                self.camera,
                self.sink,
                devices=self.devices,
                table=options.table,
                config=WatchConfig(
                    die_timeout_s=10.0, track_timeout_s=8.0, status_interval_s=5.0, chirps=False
                ),
                health=Health(options.table),
                readers=Readers(),
                # the rendered dice have the shipped colours, whatever this machine has taught
                palette=TablePalette.shipped(),
            )
        except BaseException:
            self.close()
            raise

    # -- life -------------------------------------------------------------------------------
    def start(self) -> DemoTable:
        self.camera.start()
        self._opened.append(self.camera.stop)
        self.loop.start()
        self._opened.append(self.loop.stop)
        return self

    def close(self) -> None:
        for close in reversed(self._opened):
            try:
                close()
            except Exception:
                log.exception("while stopping the demo table")
        self._opened = []
        self._drop_speculation()
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- games ------------------------------------------------------------------------------
    def play_game(self, game: str | None = None) -> str | None:
        """Start a game (``game``: camelup, horserace or marcopolo2; default the options') and
        play it to the end; the winners' names (None if stopped first)."""
        from firmware.demo_games import demo_players

        kind = game or self.opt.game
        n = self.stats.games + 1
        names = demo_players(self.names, kind)
        answer = self.session.start_game(
            names, seed=f"{self.opt.seed}/{n}", abandon=True, game=kind
        )
        self.on_move(
            f"game {answer['game_id']} ({kind}): "
            + ", ".join(
                f"{name} ({'you' if name == self.opt.seat else bot})"
                for name, bot in zip(names, self.kinds, strict=False)
            )
        )
        return self.play_current()

    def play_current(self) -> str | None:
        """Play the game in play at the table to its end, whichever game it is: one started here
        or from the dashboard's "+ New game" (which may replace it while it is played: the loop
        follows the table's current game). The winners' names, or None if stopped first."""
        last = 0.0
        while not self.stop_event.is_set():
            game = self.session.game
            if game is None or game.finished or not self.session.active:
                break
            if self.session.game_id != self._game_id:
                self._begin()
            wait = last + self.opt.pace_s - time.monotonic()
            if wait > 0 and self.stop_event.wait(wait):
                break
            seq = self.session.seq
            if not self._camera_game():
                played = self.others.step()
                self.stats.moves += int(played)
            elif game.current_player == self.opt.seat:
                played = False
            else:
                leg = game.state.leg
                try:
                    self._turn()
                except Exception:
                    if self.session.game_id == self._game_id:
                        raise
                    # the page started another game in the middle of this move: follow it
                    log.info("the game changed during a move", exc_info=True)
                played = True
                game = self.session.game
                if (
                    self.opt.pause_after_leg
                    and game is not None
                    and not game.finished
                    and self._camera_game()
                    and game.state.leg != leg
                ):
                    self._pause(f"leg {leg} over")
            if played:
                last = time.monotonic()
            else:  # a person's move (or nothing to do): wait for the table to change
                self._wait_change(seq)
        game = self.session.game
        if game is None or not game.finished:
            return None
        self.stats.games += 1
        winners = _winners(self.session)
        self.stats.winners.append(", ".join(winners))
        camera_game = self._camera_game()
        if camera_game:
            self.stats.per_game_kinds.append(dict(self.policy.used))
        result = getattr(game.state, "result", None) if camera_game else None
        self.on_move(
            f"game over: {', '.join(winners)} won; camels {' > '.join(result.get('ranking', []))}"
            if result
            else f"game over: {', '.join(winners) or 'nobody'} won"
        )
        return ", ".join(winners)

    def _begin(self) -> None:
        """A game the loop has not seen yet (started here or from the page)."""
        self._game_id = self.session.game_id
        self.stats.game_ids.append(self._game_id)
        self._drop_speculation()
        players = self.session.record.params.get("players", []) if self.session.record else []
        if self.opt.seat in players and self.link_base:
            token = self.session.player_token(self.opt.seat)
            self.on_move(
                f"your seat, {self.opt.seat}: {self.link_base}/p/{token}  "
                f"(the table's page with the PIN answers the dice the camera doubts)"
            )
        if self._camera_game():
            self.camera_view.new_game(len(self.stats.game_ids))
            self.policy.new_game()
            self._show_board()
            self._speculate()
        else:  # the camera still looks at the table (an empty Camel Up board)
            self.camera_view.show(self.camera_view.render({}, {}))

    def _camera_game(self) -> bool:
        """The table's game is played here, through the slider and the camera (Camel Up); any
        other is played by :class:`firmware.demo_games.OtherGameBots`."""
        from firmware.demo_games import DemoPlay, demo_game

        return demo_game(self.session.kind).play is DemoPlay.CAMERA

    def _wait_change(self, seq: int, timeout: float = 0.25) -> None:
        """Until the table's log moves past ``seq`` (a person acted) or ``timeout``."""
        end = time.monotonic() + timeout
        while self.session.seq == seq and not self.stop_event.is_set():
            if (
                self.stop_event.wait(min(0.05, max(end - time.monotonic(), 0.0)))
                or time.monotonic() >= end
            ):
                return

    def _pause(self, what: str) -> None:
        """--pause-after-leg: hold the bots until the person says go on (``opt.resume``)."""
        resume = self.opt.resume
        if resume is None:
            return
        resume.clear()
        self.on_move(f"{what}: paused. Press Enter here to play on.")
        while not self.stop_event.is_set() and not resume.wait(0.2):
            pass

    def _turn(self) -> None:
        from hub.games.camelup import ReleaseDie

        game = self.session.game
        state = game.state
        player = game.current_player
        action = self.policy.choose(state)
        if isinstance(action, ReleaseDie):
            self._release(player)
        else:
            auth = self.auth
            if kind_of(action).startswith("bet:"):  # a bet's colour is secret: the player's link
                auth = {"token": self.session.player_token(player)}
            answer = self.session.request("action", {"player": player, "action": str(action)}, auth)
            if not answer.get("ok"):
                self.stats.refusals += 1
                log.warning("the hub refused %s for %s: %s", action, player, answer.get("error"))
                return
            if self.opt.moves:
                self.on_move(f"{player}: {_shown(action)}")
            if kind_of(action) == "desert":  # the tile is on the table now: the camera sees it
                self._show_board()
        self.policy.played(action)
        self._speculate()  # a desert tile or a moved camel changes the next die's scenes
        self.stats.kinds[kind_of(action)] += 1
        self.stats.forced = Counter(self.policy.forced)
        self.stats.moves += 1

    # -- a die, the product's way -----------------------------------------------------------
    def _release(self, player: str) -> None:
        from hub.games.camelup import ReleaseDie, fold

        game = self.session.game
        before = game.state
        colour, face = self._next_die(before)
        rng = random.Random(f"demo-hand/{self.opt.seed}/{self.stats.games}/{before.actions}")
        spec, self._spec = self._spec, None
        if spec is not None and spec[0] == _scene_key(before, (colour, face)):
            self.spec_hits += 1
            self.stats.scenes_ahead += 1
            _, die_future, after_frame, after = spec
            die_frame = die_future.result()
        else:
            if spec is not None:
                spec[1].cancel()
                spec[2].cancel()
            # what the table will look like once the camel is moved (the person moves the
            # true die)
            after = reduce(fold, game.check(ReleaseDie(colour, face), player), before)
            die_frame = self.camera_view.render(before.track, before.desert_sides(), (colour, face))
            after_frame = self._pool.submit(
                self.camera_view.render, after.track, after.desert_sides()
            )
        self.camera_view.show(die_frame)  # the die lands in the reveal zone...
        mark = self.observed.mark()
        t0 = time.monotonic()
        self._press_slider()  # ...as the slider is pushed
        self.stats.releases += 1
        got = self.observed.wait_for(
            "die", mark, self.loop.cfg.die_timeout_s + 10.0, self.stop_event
        )
        if got is not None:
            self.stats.die_ms.append((time.monotonic() - t0) * 1000)
        elif self.stop_event.is_set():
            # Ctrl-C while the loop was reading: the move ends here. Entering the die by hand
            # now would play a move after the person asked the table to stop (and warn of a
            # watch loop that was only being stopped)
            return
        how = self._settle_die(player, colour, face, got)
        if self.opt.moves:
            self.on_move(f"{player}: pyramid -> {colour} {face} ({how})")
        # a hand moves the camel, then lets go; the loop reads the track once it is still
        mark = self.observed.mark()
        image = after_frame.result()
        moved = next((s for s, st in after.track.items() if colour in st), 1)
        self.camera_view.show(self.camera_view.with_hand(image, moved, rng.randrange(1 << 30)))
        self.stop_event.wait(0.6 if self.opt.pace_s else 0.15)
        self.camera_view.show(image)
        got = self.observed.wait_for(
            "track", mark, self.loop.cfg.track_timeout_s + 10.0, self.stop_event
        )
        if got is not None:
            self.stats.track_reads += 1
            answer = got[1]
            if not answer.fields.get("match", False):
                self.stats.track_mismatches += 1
                log.info("track mismatch: %s", answer.fields.get("differences") or answer.error)

    def _next_die(self, state: Any) -> tuple[str, int]:
        """The die the pyramid will release next: seeded, among the dice left, and known ahead
        (it depends on the leg and the dice left, not on who releases it or when)."""
        rng = random.Random(
            f"demo-die/{self.opt.seed}/{self.stats.games}/{state.leg}/{len(state.dice_left)}"
        )
        return rng.choice(list(state.dice_left)), rng.choice((1, 2, 3))

    def _speculate(self) -> None:
        """Render the next release's two scenes (die landed; camel moved) in the background."""
        from hub.games.camelup import ReleaseDie, fold

        game = self.session.game
        if game is None or game.finished or not self.session.active:
            return
        state = game.state
        if not hasattr(state, "dice_left"):  # another game was started from the page
            return
        die = self._next_die(state)
        key = _scene_key(state, die)
        if self._spec is not None and self._spec[0] == key:
            return
        self._drop_speculation()
        after = reduce(fold, game.check(ReleaseDie(*die), game.current_player), state)
        self._spec = (
            key,
            self._pool.submit(self.camera_view.render, state.track, state.desert_sides(), die),
            self._pool.submit(self.camera_view.render, after.track, after.desert_sides()),
            after,
        )

    def _drop_speculation(self) -> None:
        if self._spec is not None:
            self._spec[1].cancel()
            self._spec[2].cancel()
            self._spec = None

    def _press_slider(self) -> None:
        pin = self.devices.slider.pin
        pin.drive_low()  # the switch closes to GND: pressed
        threading.Timer(0.08, pin.drive_high).start()

    def _settle_die(
        self, player: str, colour: str, face: int, got: tuple[dict[str, Any], Answer] | None
    ) -> str:
        """Make the hub's game hold the true die, as a person at the table would."""
        answer = got[1] if got is not None else None
        if answer is not None and answer.ok and answer.fields.get("uncertain"):
            prompt = str(answer.fields.get("prompt"))
            if self.opt.seat is not None:  # a person is at the table: the prompt is theirs
                self.stats.vision_prompts += 1
                return self._wait_answer(prompt)
            if self.opt.pace_s:  # leave the prompt on the dashboard long enough to be seen
                self.stop_event.wait(min(1.5, self.opt.pace_s))
            self.stats.vision_prompts += 1
            res = self.session.request(
                "confirm", {"prompt": prompt, "colour": colour, "face": face}, self.auth
            )
            if not res.get("ok"):
                return self._enter(player, colour, face, f"confirm refused: {res.get('error')}")
            return "asked a person"
        if answer is not None and answer.ok:
            events = answer.fields.get("events", [])
            read = next((e for e in events if e.get("type") == EventType.DIE_READ), None)
            if read is not None and (read.get("colour"), read.get("face")) == (colour, face):
                self.stats.read_by_vision += 1
                return "read by vision"
            if read is not None:  # a confident misread: undo it and enter what was seen
                self.stats.misreads_corrected += 1
                undo = self.session.request("undo", {}, self.auth)
                if not undo.get("ok"):
                    log.warning("cannot undo a misread: %s", undo.get("error"))
                    return "misread, left as read"
                self._enter(player, colour, face, None)
                return f"misread as {read.get('colour')} {read.get('face')}, corrected"
        why = "no answer from the watch loop" if answer is None else answer.error
        return self._enter(player, colour, face, why)

    def _wait_answer(self, prompt: str) -> str:
        """Until a person answers the die prompt ``prompt`` on the page (or the game moves on)."""
        game_id = self.session.game_id
        while not self.stop_event.is_set() and self.session.game_id == game_id:
            if prompt not in getattr(self.session, "pending", {}):
                return "answered by a person"
            self.stop_event.wait(0.1)
        return "left unanswered"

    def _enter(self, player: str, colour: str, face: int, why: str | None) -> str:
        if why is not None:
            self.stats.entered_by_hand += 1
            log.warning("die entered by hand: %s", why)
        res = self.session.request(
            "action", {"player": player, "action": f"roll:{colour}:{face}"}, self.auth
        )
        if not res.get("ok"):
            self.stats.refusals += 1
            log.warning("the hub refused the entered die: %s", res.get("error"))
        return f"entered by hand ({why})" if why else "entered by hand"

    def _show_board(self) -> None:
        state = self.session.game.state
        if not hasattr(state, "desert_sides"):  # another game was started from the page
            return
        self.camera_view.show(self.camera_view.render(state.track, state.desert_sides()))


def _scene_key(state: Any, die: tuple[str, int]) -> tuple[Any, ...]:
    return (
        tuple(sorted((s, tuple(c)) for s, c in state.track.items())),
        tuple(sorted(state.desert_sides().items())),
        die,
    )


def _winners(session: Any) -> list[str]:
    for e in reversed(session.engine_log()):
        if e.get("type") == "game_over":
            winners = e.get("winners") or []
            return list(winners) if isinstance(winners, list) else [str(winners)]
    return []


def _shown(action: Any) -> str:
    text = str(action)
    return "bet:" + text.split(":")[1] if text.startswith("bet:") else text  # colour is secret


# --- an MQTT spectator ---------------------------------------------------------------------------
class Spectator:
    """Watches the table over MQTT like a phone or Home Assistant would: counts the events that
    arrive and keeps the retained state, so the demo can say what reached the broker and wait,
    before it stops, until everything it logged has."""

    def __init__(self, url: str, table: str) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        from hub.wire import Topics, parse_broker_url

        cfg = parse_broker_url(url)
        self.topics = Topics(table)
        self.base = self.topics.base
        self.seqs: list[int] = []
        self.types: Counter[str] = Counter()
        self.state: dict[str, Any] | None = None
        self._cond = threading.Condition()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"pyramid-demo-spectator-{table}-{random.getrandbits(24):x}",
        )
        if cfg.username:
            self.client.username_pw_set(cfg.username, cfg.secret)
        if cfg.use_tls:
            import ssl

            self.client.tls_set(cert_reqs=ssl.CERT_REQUIRED)
        self.client.on_connect = lambda c, *_: c.subscribe(
            [(self.topics.event, 1), (self.topics.state, 1)]
        )
        self.client.on_message = self._message
        self.client.connect_async(cfg.host, cfg.port, 30)
        self.client.loop_start()

    def _message(self, client: Any, userdata: Any, msg: Any) -> None:
        try:
            data = json.loads(msg.payload or b"null")
        except ValueError:
            return
        with self._cond:
            if msg.topic.endswith("/event") and isinstance(data, dict):
                self.seqs.append(int(data.get("seq", 0)))
                self.types[str(data.get("event_type"))] += 1
            elif msg.topic.endswith("/state") and isinstance(data, dict):
                self.state = data
            self._cond.notify_all()

    def wait_caught_up(self, seq: int, timeout: float = 10.0) -> bool:
        """Until an event with ``seq`` and a state at least that recent have arrived."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not (
                self.seqs
                and max(self.seqs) >= seq
                and self.state is not None
                and int(self.state.get("seq", 0)) >= seq
            ):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return True

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


# --- the whole demo ------------------------------------------------------------------------------
def lan_address() -> str:
    """This machine's address on the local network (see hub.commands.serve.lan_address)."""
    from hub.commands.serve import lan_address as lan

    return lan()


@dataclass
class DemoResult:
    stats: DemoStats
    mqtt_events: int | None = None
    mqtt_gaps: int | None = None
    final_status: str | None = None
    interrupted: bool = False

    def summary(self) -> dict[str, Any]:
        d = self.stats.to_dict()
        d.update(
            mqtt_events=self.mqtt_events,
            mqtt_gaps=self.mqtt_gaps,
            final_status=self.final_status,
            interrupted=self.interrupted,
        )
        return d


def run_demo(
    options: DemoOptions,
    *,
    broker: str | None = None,
    mqtt: bool = True,
    http_host: str = "0.0.0.0",
    http_port: int = 8080,
    db: str | None = None,
    stop: threading.Event | None = None,
    out: Callable[[str], None] = print,
    odds: bool = True,
) -> DemoResult:
    """Wire a session, the broker, the bridge, the dashboard and the demo table; play; stop.

    Raises DemoError when something cannot start. ``stop`` (Ctrl-C) ends the current move and
    closes everything in order.
    """
    from hub.bus import EventBus
    from hub.commands.serve import ServiceError, start_services
    from hub.session import TableSession
    from hub.store import Store, StoreError
    from hub.wire import Topics

    stop = stop or threading.Event()
    tmp = None
    if db is None:
        tmp = tempfile.TemporaryDirectory(prefix="pyramid-demo-")
        db = str(Path(tmp.name) / "demo.db")
    bus = EventBus(options.table)
    worker = None
    if odds:  # as `pyramid hub` does: odds in a second process, off the event path
        from hub.derived import DerivedWorker

        worker = DerivedWorker().start()
    try:
        store = Store(Path(db))
        session = TableSession(
            options.table,
            store,
            bus,
            pin=options.pin or None,
            odds=odds,
            advice=odds,
            derived=worker,
        )
    except (StoreError, ValueError) as exc:
        bus.close()
        if worker is not None:
            worker.close()
        raise DemoError(str(exc)) from exc
    services = spectator = table = None
    result = DemoResult(DemoStats())
    try:
        try:
            services = start_services(
                session,
                broker=broker,
                broker_port=0,
                mqtt=mqtt,
                http_host=http_host,
                http_port=http_port,
                state_odds=odds,
            )
        except ServiceError as exc:
            raise DemoError(str(exc)) from exc
        if services.broker_url:
            if services.broker is not None:  # the embedded broker: watch as the read-only user
                from hub.mqtt.access import Role

                spectator = Spectator(services.broker.url_for(Role.READER), options.table)
                shown = f"mqtt://{services.broker.host}:{services.broker.port}"
            else:
                spectator = Spectator(services.broker_url, options.table)
                bridge = services.bridge
                shown = bridge.config.display_url if bridge else services.broker_url
            out(f"MQTT: {shown} topics {Topics(options.table).topic('#')}")
        if services.server is not None:
            out(f"dashboard: {services.public_url}/  PIN: {options.pin or '(none)'}")
            if options.qr:  # a phone on the same Wi-Fi scans it off the terminal
                from hub.dashboard.qr import qr_text

                out(
                    "scan to open the dashboard on a phone:\n"
                    + qr_text(f"{services.public_url}/").rstrip("\n")
                )
        table = DemoTable(session, options, stop=stop, on_move=out).start()
        result.stats = table.stats
        if services.server is not None:
            table.link_base = services.public_url
        kind = options.game
        started = False
        while not stop.is_set() and (options.games is None or table.stats.games < options.games):
            if session.active:  # a game started from the page: play it
                kind = session.kind
                table.play_current()
            elif options.seat is not None and started:
                # a person is at the table: the next game starts from the page's button
                stop.wait(0.25)
                continue
            else:
                started = True
                table.play_game(kind)
            if options.games is None and options.seat is None and not stop.is_set():
                # the podium stays up a moment before the next race (a new game from the page
                # starts at once)
                end = time.monotonic() + 8.0
                while not stop.is_set() and not session.active and time.monotonic() < end:
                    stop.wait(0.2)
        result.interrupted = stop.is_set()
        if spectator is not None and services is not None and services.bridge is not None:
            services.bridge.flush(10.0)
            spectator.wait_caught_up(session.seq, 15.0)
    finally:
        if table is not None:
            table.close()
        if spectator is not None:
            with spectator._cond:
                seqs = list(spectator.seqs)
                state = spectator.state
            result.mqtt_events = len(seqs)
            result.mqtt_gaps = sum(1 for a, b in zip(seqs, seqs[1:], strict=False) if b != a + 1)
            result.final_status = None if state is None else state.get("status")
            spectator.close()
        if services is not None:
            services.close()
        session.close()
        bus.close()
        store.close()
        if worker is not None:
            worker.close()
        if tmp is not None:
            tmp.cleanup()
    return result

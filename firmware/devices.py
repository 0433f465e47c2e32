"""The parts wired to the Pi, through gpiozero, from the pin map.

Wiring (BCM numbers from hardware/pinmap.yaml; see hardware/README.md for the drawing):

* the pyramid slider's lever microswitch: GPIO -> switch -> GND (internal pull-up). Pushing the
  slider drops a die and closes the switch: that press is "the pyramid released a die".
* the confirm button: same wiring.
* the status LED: an RGB LED, each leg through a resistor to its GPIO, common cathode to GND.
* the light ring: a PWM GPIO drives a logic-level MOSFET that switches the LED ring's supply.
* the buzzer: a passive piezo between a GPIO and GND; it sounds the PWM frequency.

Every device closes with ``close()`` or a ``with`` block. Off a Raspberry Pi, gpiozero's mock pins
are chosen by :func:`choose_pin_factory` (and it says so in the log), unless
``GPIOZERO_PIN_FACTORY`` names a factory, which is respected.
"""

from __future__ import annotations

import contextlib
import enum
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from firmware.debounce import Change, Debouncer
from hardware.pinmap import ButtonPins, LightRingPins, PinMap, RgbLedPins

log = logging.getLogger(__name__)


def is_raspberry_pi(model_file: str = "/proc/device-tree/model") -> bool:
    """True on a Raspberry Pi (its device tree names the model)."""
    try:
        return Path(model_file).read_bytes().startswith(b"Raspberry Pi")
    except OSError:
        return False


def _mock_factory() -> Any:
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    # PWM-capable mock pins: the light ring and the buzzer need PWM; plain MockPin refuses it
    pin_class = os.environ.get("GPIOZERO_MOCK_PIN_CLASS") or MockPWMPin
    return MockFactory(pin_class=pin_class)


def choose_pin_factory(mode: str = "auto") -> tuple[Any, str]:
    """The pin factory to use and a sentence saying which and why.

    Order: an already installed ``Device.pin_factory`` (tests install a MockFactory) wins; then
    ``GPIOZERO_PIN_FACTORY`` if set (``mock`` gets PWM-capable mock pins); then real pins on a
    Raspberry Pi; otherwise mock pins, because nothing physical is attached.
    """
    from gpiozero import Device

    if Device.pin_factory is not None:
        name = type(Device.pin_factory).__name__
        return Device.pin_factory, f"pin factory already installed: {name}"
    env = os.environ.get("GPIOZERO_PIN_FACTORY")
    if mode == "mock" or (env or "").lower() == "mock":
        return _mock_factory(), "gpiozero mock pins (asked for): nothing physical is driven"
    if env:
        return None, f"pin factory from GPIOZERO_PIN_FACTORY={env}"
    if mode == "real" or is_raspberry_pi():
        return None, "real GPIO pins (gpiozero's default factory on a Raspberry Pi)"
    return _mock_factory(), (
        "not a Raspberry Pi (no 'Raspberry Pi' in /proc/device-tree/model): "
        "using gpiozero mock pins, nothing physical is driven"
    )


class DebouncedButton:
    """A switch to GND with our own debounce (see firmware.debounce).

    ``when_pressed`` / ``when_released`` receive the time (``clock()``, by default
    ``time.monotonic()``) of the edge that started the change. They run in a GPIO or timer thread:
    keep them short. ``clock`` is injectable so that tests can date a bounce burst exactly instead
    of trusting the scheduler to toggle a mock pin within a millisecond.
    """

    def __init__(
        self,
        pins: ButtonPins,
        *,
        name: str,
        pin_factory: Any = None,
        mode: str = "lockout",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # gpiozero's Button is this same DigitalInputDevice plus a hold-timer thread; we use no
        # when_held, and that thread makes close() wait up to hold_time while pressed
        from gpiozero import DigitalInputDevice

        self.name = name
        self.when_pressed: Callable[[float], None] | None = None
        self.when_released: Callable[[float], None] | None = None
        self.presses = 0
        self._pressed_event = threading.Event()
        # bounce_time=None: gpiozero reports every edge; debouncing is ours
        self._button = DigitalInputDevice(
            pins.pin, pull_up=pins.pull_up, bounce_time=None, pin_factory=pin_factory
        )
        self._debouncer = Debouncer(
            pins.debounce_ms / 1000.0,
            self._changed,
            initial=bool(self._button.is_active),
            mode=mode,
            clock=clock,
            name=f"debounce-{name}",
        )
        self._button.when_activated = lambda: self._debouncer.edge(True)
        self._button.when_deactivated = lambda: self._debouncer.edge(False)

    @property
    def is_pressed(self) -> bool:
        return self._debouncer.level

    @property
    def pin(self) -> Any:
        return self._button.pin

    def _changed(self, change: Change) -> None:
        callback = self.when_pressed if change.level else self.when_released
        if change.level:
            self.presses += 1
            self._pressed_event.set()
        if callback is not None:
            try:
                callback(change.t)
            except Exception:  # a bad callback must not kill the GPIO thread
                log.exception("%s: callback failed", self.name)

    def wait_for_press(self, timeout: float | None = None) -> bool:
        ok = self._pressed_event.wait(timeout)
        self._pressed_event.clear()
        return ok

    def close(self) -> None:
        self._button.when_activated = None
        self._button.when_deactivated = None
        self._debouncer.close()
        self._button.close()


class LedState(enum.Enum):
    """What the status LED tells a person at the table."""

    OFF = "off"
    READY = "ready"  # steady green: waiting for a die
    READING = "reading"  # steady blue: a die or the track is being watched
    ATTENTION = "attention"  # blinking yellow: a person must look (dashboard prompt)
    ERROR = "error"  # fast blinking red: the camera or the broker is failing


# colour (r, g, b as 0/1) and blink (on, off seconds) or None for steady
LED_PATTERNS: dict[LedState, tuple[tuple[int, int, int], tuple[float, float] | None]] = {
    LedState.OFF: ((0, 0, 0), None),
    LedState.READY: ((0, 1, 0), None),
    LedState.READING: ((0, 0, 1), None),
    LedState.ATTENTION: ((1, 1, 0), (0.5, 0.5)),
    LedState.ERROR: ((1, 0, 0), (0.15, 0.15)),
}


class StatusLed:
    """The RGB status LED. Switched on/off per colour (pwm=False): three software-PWM pins would
    cost CPU on the Pi for colours nobody needs; the states differ by colour and blinking."""

    def __init__(self, pins: RgbLedPins, *, pin_factory: Any = None) -> None:
        from gpiozero import RGBLED

        self._led = RGBLED(
            pins.red,
            pins.green,
            pins.blue,
            active_high=pins.active_high,
            pwm=False,
            pin_factory=pin_factory,
        )
        self.state = LedState.OFF

    def show(self, state: LedState) -> None:
        if state == self.state:
            return
        colour, blink = LED_PATTERNS[state]
        self.state = state
        if blink is None:
            self._led.color = colour
        else:
            self._led.blink(
                on_time=blink[0],
                off_time=blink[1],
                on_color=colour,
                off_color=(0, 0, 0),
                background=True,
            )

    @property
    def color(self) -> tuple[float, float, float]:
        return tuple(self._led.color)

    def close(self) -> None:
        self._led.close()


class LightRing:
    """The LED ring over the reveal zone, on (at the pin map's brightness) while reading.

    Besides ``on()``/``off()`` (the watch loop's: on while reading), the ring can be *held* on:
    by the camera while it measures exposure and white balance (``with ring.hold():``), and by
    the set-up (``lease(seconds)``, through the watch service: `pyramid camera light on`). While
    anything holds it the ring stays on, whatever ``off()`` says; when the last hold ends it goes
    back to what the loop last asked for. Why: the exposure is locked for the ring's light, so it
    must be measured, and set-up frames taken, with the ring on, without the loop's idle
    ``off()`` switching it off in the middle."""

    def __init__(self, pins: LightRingPins, *, pin_factory: Any = None) -> None:
        from gpiozero import PWMLED

        self.brightness = pins.brightness
        self._led = PWMLED(pins.pin, frequency=pins.frequency, pin_factory=pin_factory)
        self._lock = threading.Lock()
        self._wanted = 0.0
        self._holds = 0
        self._leases: list[threading.Timer] = []

    def _apply(self) -> None:
        self._led.value = self.brightness if self._holds else self._wanted

    def on(self) -> None:
        with self._lock:
            self._wanted = self.brightness
            self._apply()

    def off(self) -> None:
        with self._lock:
            self._wanted = 0.0
            self._apply()

    def _take(self) -> None:
        with self._lock:
            self._holds += 1
            self._apply()

    def _give(self) -> None:
        with self._lock:
            self._holds = max(self._holds - 1, 0)
            self._apply()

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """The ring on for the ``with`` block, whatever ``off()`` is called meanwhile."""
        self._take()
        try:
            yield
        finally:
            self._give()

    def lease(self, seconds: float) -> None:
        """Hold the ring on for ``seconds`` (the set-up's "light on"), or until ``end_leases``."""
        timer = threading.Timer(seconds, self._expire)
        timer.daemon = True
        with self._lock:
            self._leases.append(timer)
        self._take()
        timer.start()

    def _expire(self) -> None:
        with self._lock:
            mine = [t for t in self._leases if t is threading.current_thread()]
            for t in mine:
                self._leases.remove(t)
        if mine:
            self._give()

    def end_leases(self) -> int:
        """End every lease (the set-up's "light off"); how many there were."""
        with self._lock:
            leases, self._leases = self._leases, []
        for t in leases:
            t.cancel()
            self._give()
        return len(leases)

    @property
    def held(self) -> bool:
        return self._holds > 0

    @property
    def is_on(self) -> bool:
        return bool(self._led.value > 0)

    @property
    def value(self) -> float:
        return float(self._led.value)

    def close(self) -> None:
        self.end_leases()
        self._led.close()


# (frequency Hz, seconds); frequency 0 = a pause
CHIRP_READ = ((2200, 0.05), (3000, 0.07))  # short and rising: a die was read
CHIRP_LOOK = ((700, 0.18), (0, 0.08), (700, 0.18), (0, 0.08), (700, 0.18))  # low triple: look
CHIRP_ERROR = ((400, 0.6),)  # one long low tone


class Buzzer:
    """A passive piezo playing short tunes in its own thread, so the watch loop never waits."""

    def __init__(self, pin: int, *, pin_factory: Any = None, enabled: bool = True) -> None:
        from gpiozero import PWMOutputDevice

        self.enabled = enabled
        self.played: list[tuple[tuple[int, float], ...]] = []
        self._dev = PWMOutputDevice(pin, frequency=1000, initial_value=0, pin_factory=pin_factory)
        self._queue: queue.Queue[tuple[tuple[int, float], ...] | None] = queue.Queue(maxsize=4)
        self._idle = threading.Event()
        self._idle.set()
        self._thread = threading.Thread(target=self._run, name="buzzer", daemon=True)
        self._thread.start()

    def play(self, tune: tuple[tuple[int, float], ...]) -> None:
        if not self.enabled:
            return
        try:
            self._idle.clear()
            self._queue.put_nowait(tune)
        except queue.Full:  # a backlog of chirps helps nobody
            log.debug("buzzer busy, tune dropped")

    def chirp_read(self) -> None:
        self.play(CHIRP_READ)

    def chirp_look(self) -> None:
        self.play(CHIRP_LOOK)

    def chirp_error(self) -> None:
        self.play(CHIRP_ERROR)

    def wait_idle(self, timeout: float = 5.0) -> bool:
        return self._idle.wait(timeout)

    def _run(self) -> None:
        while True:
            tune = self._queue.get()
            if tune is None:
                return
            try:
                for freq, seconds in tune:
                    if freq > 0:
                        self._dev.frequency = freq
                        self._dev.value = 0.5  # a square wave: loudest for a piezo
                    else:
                        self._dev.value = 0
                    time.sleep(seconds)
                self._dev.value = 0
                self.played.append(tune)
            except Exception:  # closed under us, or a pin error: never kill the loop
                log.exception("buzzer failed")
            finally:
                if self._queue.empty():
                    self._idle.set()

    def close(self) -> None:
        try:
            self._queue.put_nowait(None)
        except queue.Full:
            pass
        self._thread.join(timeout=2.0)
        self._dev.close()


class Devices:
    """Every part of the pin map, opened together and closed together."""

    def __init__(
        self,
        pinmap: PinMap,
        *,
        pin_factory: Any = None,
        factory_mode: str = "auto",
        debounce_mode: str = "lockout",
        chirps: bool = True,
        debounce_clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if pin_factory is None:
            pin_factory, why = choose_pin_factory(factory_mode)
            log.info("GPIO: %s", why)
            self.factory_description = why
        else:
            self.factory_description = f"given pin factory: {type(pin_factory).__name__}"
        self.pinmap = pinmap
        self.pin_factory = pin_factory
        opened: list[Any] = []
        try:
            self.slider = DebouncedButton(
                pinmap.slider,
                name="slider",
                pin_factory=pin_factory,
                mode=debounce_mode,
                clock=debounce_clock,
            )
            opened.append(self.slider)
            self.confirm = DebouncedButton(
                pinmap.confirm,
                name="confirm",
                pin_factory=pin_factory,
                mode=debounce_mode,
                clock=debounce_clock,
            )
            opened.append(self.confirm)
            self.status = StatusLed(pinmap.status_led, pin_factory=pin_factory)
            opened.append(self.status)
            self.light = LightRing(pinmap.light_ring, pin_factory=pin_factory)
            opened.append(self.light)
            self.buzzer = Buzzer(pinmap.buzzer.pin, pin_factory=pin_factory, enabled=chirps)
            opened.append(self.buzzer)
        except Exception:
            for dev in reversed(opened):
                dev.close()
            raise
        self._opened = opened

    def close(self) -> None:
        for dev in reversed(self._opened):
            try:
                dev.close()
            except Exception:
                log.exception("closing %r failed", dev)
        self._opened = []

    def __enter__(self) -> Devices:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

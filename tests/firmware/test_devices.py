"""The parts on gpiozero mock pins: switches with our debounce, LED states, light ring, buzzer."""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest

from firmware.devices import (
    CHIRP_LOOK,
    CHIRP_READ,
    Devices,
    LedState,
    choose_pin_factory,
    is_raspberry_pi,
)
from hardware.pinmap import load_pinmap


@pytest.fixture()
def devices(mock_factory):
    with Devices(load_pinmap(), pin_factory=mock_factory) as devs:
        yield devs


class FakeClock:
    """The debouncer's clock, set by the test: each mock-pin edge is dated exactly, so a loaded
    machine that stretches the toggles cannot turn one bounce burst into two presses."""

    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture()
def clocked(mock_factory):
    clock = FakeClock()
    with Devices(load_pinmap(), pin_factory=mock_factory, debounce_clock=clock) as devs:
        yield devs, clock


def bounce(
    pin, clock: FakeClock, start: float, final_low: bool, edges: int = 7, gap: float = 0.0005
) -> None:
    """Toggle a mock pin like a real switch's contacts (edges ``gap`` s apart on the debouncer's
    clock), ending at the final level."""
    for i in range(edges):
        clock.t = start + i * gap
        (pin.drive_low if (i % 2 == 0) == final_low else pin.drive_high)()
    clock.t = start + edges * gap
    (pin.drive_low if final_low else pin.drive_high)()


def test_one_bouncy_press_is_one_press(clocked) -> None:
    devices, clock = clocked
    presses: list[float] = []
    releases: list[float] = []
    devices.slider.when_pressed = presses.append
    devices.slider.when_released = releases.append
    pin = devices.slider.pin
    bounce(pin, clock, 100.0, final_low=True)
    assert presses == [100.0]  # lockout: at the burst's first edge, at once
    assert devices.slider.is_pressed
    bounce(pin, clock, 100.5, final_low=False)
    time.sleep(0.1)  # give the timer thread a chance to (wrongly) report more
    assert presses == [100.0] and releases == [100.5]
    assert not devices.slider.is_pressed


def test_two_real_presses_are_two(clocked) -> None:
    devices, clock = clocked
    pin = devices.slider.pin
    for start in (100.0, 100.2, 100.4, 100.6):  # press, release, press, release: 200 ms apart
        bounce(pin, clock, start, final_low=start in (100.0, 100.4))
    time.sleep(0.05)
    assert devices.slider.presses == 2


def test_a_short_tap_is_released_by_the_timer_in_real_time(mock_factory) -> None:
    """The real clock and the timer thread: a release inside the bounce window is not lost, it is
    reported once the line has been quiet. The debounce is long (300 ms) so that a loaded machine
    cannot stretch the burst (toggled with no sleeps) across it."""
    pm = load_pinmap()
    pm = dataclasses.replace(pm, slider=dataclasses.replace(pm.slider, debounce_ms=300))
    with Devices(pm, pin_factory=mock_factory) as devs:
        released = threading.Event()
        devs.slider.when_released = lambda t: released.set()
        pin = devs.slider.pin
        for i in range(7):
            (pin.drive_low if i % 2 == 0 else pin.drive_high)()
        assert devs.slider.presses == 1 and devs.slider.is_pressed
        pin.drive_high()  # let go at once: inside the 300 ms window
        assert not released.is_set()
        assert released.wait(2.0)
        assert devs.slider.presses == 1 and not devs.slider.is_pressed


def test_hold_mode_ignores_a_spike(mock_factory) -> None:
    clock = FakeClock()
    with Devices(
        load_pinmap(), pin_factory=mock_factory, debounce_mode="hold", debounce_clock=clock
    ) as devs:
        pin = devs.slider.pin
        pin.drive_low()
        clock.t += 0.001
        pin.drive_high()  # a spike far shorter than 40 ms
        clock.t += 1.0
        time.sleep(0.1)
        assert devs.slider.presses == 0
        pin.drive_low()
        clock.t += 0.02  # held only half the debounce: not yet
        time.sleep(0.1)
        assert devs.slider.presses == 0
        clock.t += 0.03  # now held 50 ms
        deadline = time.monotonic() + 2.0
        while devs.slider.presses == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert devs.slider.presses == 1


def test_confirm_button_wait_for_press(devices) -> None:
    threading.Timer(0.05, devices.confirm.pin.drive_low).start()
    assert devices.confirm.wait_for_press(timeout=2.0)


def test_status_led_states(devices, mock_factory) -> None:
    pm = devices.pinmap
    red, green, blue = (
        mock_factory.pin(p) for p in (pm.status_led.red, pm.status_led.green, pm.status_led.blue)
    )
    devices.status.show(LedState.READY)
    assert (red.state, green.state, blue.state) == (False, True, False)
    devices.status.show(LedState.READING)
    assert (red.state, green.state, blue.state) == (False, False, True)
    devices.status.show(LedState.ERROR)  # fast red blink
    seen = set()
    for _ in range(40):
        seen.add((red.state, green.state, blue.state))
        time.sleep(0.01)
    assert seen == {(True, False, False), (False, False, False)}


def test_light_ring_pwm(devices, mock_factory) -> None:
    pin = mock_factory.pin(devices.pinmap.light_ring.pin)
    devices.light.on()
    assert pin.state == pytest.approx(0.8) and pin.frequency == 1000
    devices.light.off()
    assert pin.state == 0 and not devices.light.is_on


def test_buzzer_plays_two_different_chirps(devices, mock_factory) -> None:
    pin = mock_factory.pin(devices.pinmap.buzzer.pin)
    devices.buzzer.chirp_read()
    assert devices.buzzer.wait_idle(2.0)
    devices.buzzer.chirp_look()
    assert devices.buzzer.wait_idle(3.0)
    assert devices.buzzer.played == [CHIRP_READ, CHIRP_LOOK]
    assert CHIRP_READ != CHIRP_LOOK
    assert pin.state == 0  # silent afterwards


def test_off_a_pi_mock_pins_are_chosen_and_said(monkeypatch, tmp_path) -> None:
    from gpiozero import Device

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.4\0")
    assert is_raspberry_pi(str(model))
    assert not is_raspberry_pi(str(tmp_path / "none"))
    if is_raspberry_pi():
        pytest.skip("this machine is a Raspberry Pi")
    factory, why = choose_pin_factory()
    assert type(factory).__name__ == "MockFactory" and "not a Raspberry Pi" in why
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    factory, why = choose_pin_factory()
    assert factory is None and "GPIOZERO_PIN_FACTORY=lgpio" in why
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    factory, why = choose_pin_factory()
    assert type(factory).__name__ == "MockFactory"


def test_devices_close_frees_the_pins(mock_factory) -> None:
    pm = load_pinmap()
    Devices(pm, pin_factory=mock_factory).close()
    with Devices(pm, pin_factory=mock_factory):  # would raise GPIOPinInUse if not freed
        pass

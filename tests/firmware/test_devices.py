"""The parts on gpiozero mock pins: switches with our debounce, LED states, light ring, buzzer."""

from __future__ import annotations

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
from firmware.pinmap import load_pinmap


@pytest.fixture()
def devices(mock_factory):
    with Devices(load_pinmap(), pin_factory=mock_factory) as devs:
        yield devs


def bounce(pin, final_low: bool, edges: int = 6, gap: float = 0.0005) -> None:
    """Toggle a mock pin quickly, like a real switch's contacts, ending at the final level."""
    for i in range(edges):
        (pin.drive_low if (i % 2 == 0) == final_low else pin.drive_high)()
        time.sleep(gap)
    (pin.drive_low if final_low else pin.drive_high)()


def test_one_bouncy_press_is_one_press(devices) -> None:
    presses: list[float] = []
    releases: list[float] = []
    devices.slider.when_pressed = presses.append
    devices.slider.when_released = releases.append
    pin = devices.slider.pin
    t0 = time.monotonic()
    bounce(pin, final_low=True)
    time.sleep(0.1)
    assert len(presses) == 1 and presses[0] >= t0
    assert devices.slider.is_pressed
    bounce(pin, final_low=False)
    time.sleep(0.1)
    assert len(presses) == 1 and len(releases) == 1
    assert not devices.slider.is_pressed


def test_two_real_presses_are_two(devices) -> None:
    pin = devices.slider.pin
    for _ in range(2):
        bounce(pin, final_low=True)
        time.sleep(0.08)
        bounce(pin, final_low=False)
        time.sleep(0.08)
    assert devices.slider.presses == 2


def test_hold_mode_ignores_a_spike(mock_factory) -> None:
    with Devices(load_pinmap(), pin_factory=mock_factory, debounce_mode="hold") as devs:
        pin = devs.slider.pin
        pin.drive_low()
        pin.drive_high()  # a spike far shorter than 40 ms
        time.sleep(0.1)
        assert devs.slider.presses == 0
        pin.drive_low()
        time.sleep(0.1)
        assert devs.slider.presses == 1


def test_confirm_button_wait_for_press(devices) -> None:
    threading.Timer(0.05, devices.confirm.pin.drive_low).start()
    assert devices.confirm.wait_for_press(timeout=2.0)


def test_status_led_states(devices, mock_factory) -> None:
    pm = devices.pinmap
    red, green, blue = (mock_factory.pin(p) for p in
                        (pm.status_led.red, pm.status_led.green, pm.status_led.blue))
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

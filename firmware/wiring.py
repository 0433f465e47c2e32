"""Draw the wiring diagram (SVG) of the table from the pin map.

Why generated: hardware/wiring.svg is what a hobbyist solders from, and hardware/pinmap.yaml is
what the firmware drives. Drawing the first from the second (and a test that the committed
drawing equals a fresh one) means the two can never disagree: move a wire in the YAML and the
picture follows.

The drawing is plain SVG text with no randomness and no timestamps, so the same pin map always
gives the same bytes. Layout: the 40-pin header in the middle as a pinout table (pin 1 top left),
each part beside the header column its signal pins are on, and every wire its own vertical lane
so that no two wires run on top of each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from hardware.pinmap import HEADER, PHYSICAL, PinMap, validate_pinmap

# Series resistors and the like: the values the build guide tells people to use, with why.
RESISTORS = {
    # red LED ~2.0 V forward: (3.3 - 2.0) / 220 = 6 mA, well inside a GPIO's budget
    "led_red": "220 Ω",
    # green/blue ~3.0 V forward leave 0.3 V: 100 Ω gives 2-3 mA, still clearly lit
    "led_green": "100 Ω",
    "led_blue": "100 Ω",
    # gate resistor: tames the ringing of the gate's charge current on a long wire
    "gate": "100 Ω",
    # piezo is a capacitor: limits the pin's current at each edge
    "buzzer": "100 Ω",
    # the slider's cable runs out to the pyramid and is handled: protects the pin from ESD
    # and from a wire touching 5 V; with the ~50 kΩ pull-up a closed switch still reads 0.07 V
    "slider": "1 kΩ",
}

_COLOURS = {
    "GND": "#222222",
    "5V": "#d62728",
    "3V3": "#e08a00",
    "slider": "#1f77b4",
    "confirm": "#9467bd",
    "led_red": "#ff6f61",
    "led_green": "#2ca02c",
    "led_blue": "#3b5bdb",
    "light_ring": "#17becf",
    "buzzer": "#8c564b",
}

# geometry of the drawing (px)
_ROW = 24
_TOP = 120
_WIDTH = 1200
_PIN_L, _PIN_R = 585, 615  # centres of the odd and even pin columns
_EDGE_L, _EDGE_R = 480, 720  # where wires leave the pinout table
_BOX_W = 230
_BOX_L = 40  # left parts' x
_BOX_R = _WIDTH - 40 - _BOX_W  # right parts' x
# x range of the wires' vertical lanes (box side, table side); the 80 px between a box and its
# lanes hold the resistors
_LANES_L = (_BOX_L + _BOX_W + 80, _EDGE_L - 16)
_LANES_R = (_BOX_R - 80, _EDGE_R + 16)
_TERM_DY = 28


@dataclass
class _Terminal:
    label: str
    pin: int  # physical pin
    colour: str
    resistor: str | None = None
    y: float = 0.0


@dataclass
class _Part:
    title: str
    subtitle: list[str]
    terminals: list[_Terminal]
    side: str = "L"
    y: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def height(self) -> float:
        return 44 + 14 * len(self.subtitle) + _TERM_DY * len(self.terminals) + 14 * len(self.notes)


@dataclass
class _Wire:
    pin: int
    term: _Terminal
    side: str
    lane: float = 0.0


def _side(pin: int) -> str:
    return "L" if pin % 2 else "R"


def _pin_y(pin: int) -> float:
    return _TOP + ((pin - 1) // 2) * _ROW


def _nearest(kind: str, near_pin: int, side: str, taken: set[int], given: int | None = None) -> int:
    """The pin map's own `given` pin, else the header pin carrying `kind` (GND, 5V) nearest
    `near_pin`, same side and unused first."""
    if given is not None:
        taken.add(given)
        return given
    pins = [p for p, what in HEADER.items() if what == kind]

    def key(p: int) -> tuple[bool, bool, float, int]:
        return (_side(p) != side, p in taken, abs(_pin_y(p) - _pin_y(near_pin)), p)

    choice = min(pins, key=key)
    taken.add(choice)
    return choice


def _parts(pm: PinMap) -> list[_Part]:
    taken: set[int] = set()
    c = _COLOURS
    phys = PHYSICAL

    def part(title: str, subtitle: list[str], terms: list[_Terminal], notes: list[str]) -> _Part:
        signal = [t.pin for t in terms if isinstance(HEADER[t.pin], int)]
        left = sum(1 for p in signal if _side(p) == "L")
        return _Part(title, subtitle, terms, "L" if left * 2 >= len(signal) else "R", notes=notes)

    out: list[_Part] = []
    s = phys[pm.slider.pin]
    out.append(
        part(
            "Slider microswitch",
            ["lever microswitch on the pyramid", "closes while the slider is pushed"],
            [
                _Terminal(f"NO ← GPIO{pm.slider.pin}", s, c["slider"], RESISTORS["slider"]),
                _Terminal(
                    "COM ← GND", _nearest("GND", s, _side(s), taken, pm.slider.ground), c["GND"]
                ),
            ],
            [f"internal pull-up, debounce {pm.slider.debounce_ms} ms"],
        )
    )
    b = phys[pm.confirm.pin]
    out.append(
        part(
            "Confirm button",
            ["momentary push button, 12 mm"],
            [
                _Terminal(f"1 ← GPIO{pm.confirm.pin}", b, c["confirm"]),
                _Terminal(
                    "2 ← GND", _nearest("GND", b, _side(b), taken, pm.confirm.ground), c["GND"]
                ),
            ],
            [f"internal pull-up, debounce {pm.confirm.debounce_ms} ms"],
        )
    )
    led = pm.status_led
    r = phys[led.red]
    out.append(
        part(
            "Status LED",
            ["RGB, 5 mm, common cathode"],
            [
                _Terminal(f"R ← GPIO{led.red}", r, c["led_red"], RESISTORS["led_red"]),
                _Terminal(
                    f"G ← GPIO{led.green}", phys[led.green], c["led_green"], RESISTORS["led_green"]
                ),
                _Terminal(
                    f"B ← GPIO{led.blue}", phys[led.blue], c["led_blue"], RESISTORS["led_blue"]
                ),
                _Terminal(
                    "K (long leg) ← GND",
                    _nearest("GND", phys[led.blue], _side(r), taken, led.ground),
                    c["GND"],
                ),
            ],
            ["active high: GPIO on = colour lit"],
        )
    )
    g = phys[pm.light_ring.pin]
    out.append(
        part(
            "Light ring",
            ["logic-level N-MOSFET (AO3400A or", "IRLZ44N) switching a 5 V LED ring"],
            [
                _Terminal(f"gate ← GPIO{pm.light_ring.pin}", g, c["light_ring"], RESISTORS["gate"]),
                _Terminal(
                    "source ← GND",
                    _nearest("GND", g, _side(g), taken, pm.light_ring.ground),
                    c["GND"],
                ),
                _Terminal(
                    "ring + ← 5V", _nearest("5V", g, _side(g), set(), pm.light_ring.supply), c["5V"]
                ),
            ],
            [
                "drain → ring −",
                "100 kΩ gate → source (off at boot)",
                f"PWM {pm.light_ring.frequency:g} Hz, brightness {pm.light_ring.brightness:g}",
            ],
        )
    )
    z = phys[pm.buzzer.pin]
    out.append(
        part(
            "Buzzer",
            ["passive piezo transducer"],
            [
                _Terminal(f"+ ← GPIO{pm.buzzer.pin}", z, c["buzzer"], RESISTORS["buzzer"]),
                _Terminal(
                    "− ← GND", _nearest("GND", z, _side(z), taken, pm.buzzer.ground), c["GND"]
                ),
            ],
            ["PWM tones (no magnetic buzzer:", "its coil needs a transistor)"],
        )
    )
    return out


def _place(parts: list[_Part]) -> float:
    """Stack the parts of each side near their pins without overlap; return the lowest y."""
    bottom = _pin_y(40) + 40.0
    for side in ("L", "R"):
        mine = [p for p in parts if p.side == side]
        for p in mine:
            p.terminals.sort(key=lambda t: (_pin_y(t.pin), t.label))
        mine.sort(key=lambda p: sum(_pin_y(t.pin) for t in p.terminals) / len(p.terminals))
        y = _TOP - 40.0
        for p in mine:
            want = sum(_pin_y(t.pin) for t in p.terminals) / len(p.terminals) - p.height / 2
            p.y = max(y, want)
            y = p.y + p.height + 24
            first = p.y + 36 + 14 * len(p.subtitle)
            for i, t in enumerate(p.terminals):
                t.y = first + i * _TERM_DY
                # never share a y with a pin row: two wires would run on one line
                if any(abs(t.y - _pin_y(q)) < 3 for q in HEADER):
                    t.y += 6
            bottom = max(bottom, y)
    return bottom


def _crossings(wires: list[_Wire]) -> int:
    """How many times these wires (each: pin row -> lane -> terminal) cross one another."""
    n = 0
    for i, a in enumerate(wires):
        for b in wires[i + 1 :]:
            for w, o in ((a, b), (b, a)):
                lo, hi = sorted((_pin_y(o.pin), o.term.y))
                # w's pin-row segment spans the x from the table to w's lane
                if _nearer_table(o.lane, w.lane, w.side) and lo < _pin_y(w.pin) < hi:
                    n += 1
                # w's terminal segment spans the x from w's lane to the box
                if _nearer_table(w.lane, o.lane, w.side) and lo < w.term.y < hi:
                    n += 1
    return n


def _nearer_table(x: float, than: float, side: str) -> bool:
    return x > than if side == "L" else x < than


def _assign_lanes(wires: list[_Wire], side: str) -> None:
    """Order the wires' lanes to keep crossings few: a sort, then swaps while they help."""
    if not wires:
        return
    box_x, table_x = _LANES_L if side == "L" else _LANES_R

    def down_first(w: _Wire) -> tuple[int, float, int]:
        # wires going down: the lower its pin, the nearer the table; going up: the reverse
        py = _pin_y(w.pin)
        return (0, -py, w.pin) if w.term.y >= py else (1, py, w.pin)

    order = sorted(wires, key=down_first)
    step = (table_x - box_x) / max(len(order) - 1, 1) if len(order) > 1 else 0.0

    def apply(seq: list[_Wire]) -> int:
        for k, w in enumerate(seq):
            w.lane = round(table_x - k * step, 1)
        return _crossings(seq)

    best = apply(order)
    improved = True
    while improved and best:
        improved = False
        for i in range(len(order)):
            for j in range(i + 1, len(order)):
                order[i], order[j] = order[j], order[i]
                score = apply(order)
                if score < best:
                    best, improved = score, True
                else:
                    order[i], order[j] = order[j], order[i]
    apply(order)


def _text(
    x: float,
    y: float,
    s: str,
    size: int = 12,
    anchor: str = "start",
    weight: str = "normal",
    fill: str = "#222222",
) -> str:
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}" '
        f'font-weight="{weight}" fill="{fill}">{escape(s)}</text>'
    )


def _header_svg(used: dict[int, str]) -> list[str]:
    out = [
        f'<rect x="{_EDGE_L}" y="{_TOP - 16}" width="{_EDGE_R - _EDGE_L}" '
        f'height="{20 * _ROW + 8}" rx="6" fill="#f4f1ea" stroke="#555555"/>',
        f'<rect x="{_PIN_L - 13}" y="{_TOP - 13}" width="{_PIN_R - _PIN_L + 26}" '
        f'height="{20 * _ROW + 2}" rx="3" fill="#2b2b2b"/>',
        _text(
            (_EDGE_L + _EDGE_R) / 2,
            _TOP - 24,
            "Pi 40-pin header, from above, USB ports down",
            12,
            "middle",
            "bold",
        ),
    ]
    for pin, what in HEADER.items():
        x = _PIN_L if pin % 2 else _PIN_R
        y = _pin_y(pin)
        label = f"GPIO{what}" if isinstance(what, int) else what
        colour = _COLOURS.get(str(what), "#888888") if not isinstance(what, int) else "#888888"
        if pin in used:
            colour = used[pin]
        shape = (
            f'<rect x="{x - 8}" y="{y - 8}" width="16" height="16" fill="#d9b44a"/>'
            if pin == 1
            else f'<circle cx="{x}" cy="{y}" r="8" fill="#d9b44a"/>'
        )
        out.append(shape)
        out.append(_text(x, y + 3.5, str(pin), 9, "middle", "bold", "#000000"))
        weight = "bold" if pin in used else "normal"
        fill = colour if pin in used else "#666666"
        if pin % 2:
            out.append(_text(_PIN_L - 20, y + 4, label, 11, "end", weight, fill))
        else:
            out.append(_text(_PIN_R + 20, y + 4, label, 11, "start", weight, fill))
    out.append(
        _text(_EDGE_L + 4, _TOP + 20 * _ROW + 8, "pin 1 (square) is at the end away", 9, "start")
    )
    out.append(
        _text(
            _EDGE_L + 4,
            _TOP + 20 * _ROW + 20,
            "from the USB ports; even pins on the board edge",
            9,
            "start",
        )
    )
    return out


def _resistor_svg(x: float, y: float, value: str, colour: str) -> list[str]:
    return [
        f'<rect x="{x - 22:g}" y="{y - 8:g}" width="44" height="16" rx="2" fill="#fff8e1" '
        f'stroke="{colour}" stroke-width="2"/>',
        _text(x, y + 4, value, 10, "middle", "bold"),
    ]


def wiring_svg(pinmap: PinMap | Mapping[str, Any]) -> str:
    """The wiring diagram of a pin map (a PinMap or the parsed YAML) as SVG text.

    Raises hardware.pinmap.PinMapError for a pin map that fails validation.
    """
    pm = pinmap if isinstance(pinmap, PinMap) else validate_pinmap(pinmap)
    parts = _parts(pm)
    bottom = _place(parts)
    wires: dict[str, list[_Wire]] = {"L": [], "R": []}
    for p in parts:
        for t in p.terminals:
            wires[p.side].append(_Wire(t.pin, t, p.side))
    for side, ws in wires.items():
        _assign_lanes(ws, side)

    used = {t.pin: t.colour for p in parts for t in p.terminals}
    legend_y = bottom + 10
    height = legend_y + 170
    body: list[str] = []
    body.append(_text(_WIDTH / 2, 36, "Camel Pyramid: wiring", 22, "middle", "bold"))
    body.append(
        _text(
            _WIDTH / 2,
            58,
            "generated from hardware/pinmap.yaml by `pyramid wiring`: "
            "edit the YAML, not this drawing",
            12,
            "middle",
        )
    )
    body.append(
        _text(
            _WIDTH / 2,
            76,
            "GPIO numbers are BCM; numbers in the circles are physical header pins",
            12,
            "middle",
        )
    )
    body += _header_svg(used)

    for side, ws in wires.items():
        edge = _EDGE_L if side == "L" else _EDGE_R
        box_edge = _BOX_L + _BOX_W if side == "L" else _BOX_R
        for w in ws:
            py, ty = _pin_y(w.pin), w.term.y
            pin_x = _PIN_L if w.pin % 2 else _PIN_R
            # a wire to a pin of the other column (e.g. 5 V for a part on the left) starts at the
            # pin itself; one to its own column starts at the table's edge
            start = edge if _side(w.pin) == side else pin_x
            points = [(start, py), (w.lane, py), (w.lane, ty), (box_edge, ty)]
            pts = " ".join(f"{x:g},{y:g}" for x, y in points)
            width = 3 if w.term.colour in (_COLOURS["GND"], _COLOURS["5V"]) else 2.5
            body.append(
                f'<polyline points="{pts}" fill="none" stroke="{w.term.colour}" '
                f'stroke-width="{width}" stroke-linejoin="round"/>'
            )
            body.append(f'<circle cx="{start}" cy="{py}" r="3.5" fill="{w.term.colour}"/>')
            if w.term.resistor:
                body += _resistor_svg((w.lane + box_edge) / 2, ty, w.term.resistor, w.term.colour)

    for p in parts:
        x = _BOX_L if p.side == "L" else _BOX_R
        body.append(
            f'<rect x="{x}" y="{p.y:g}" width="{_BOX_W}" height="{p.height:g}" rx="8" '
            f'fill="#ffffff" stroke="#444444" stroke-width="1.5"/>'
        )
        body.append(_text(x + 10, p.y + 20, p.title, 14, "start", "bold"))
        for i, line in enumerate(p.subtitle):
            body.append(_text(x + 10, p.y + 36 + 14 * i, line, 11, "start", fill="#555555"))
        for t in p.terminals:
            tx, anchor = (x + _BOX_W - 8, "end") if p.side == "L" else (x + 8, "start")
            body.append(_text(tx, t.y + 4, t.label, 12, anchor, "bold", t.colour))
            cx = x + _BOX_W if p.side == "L" else x
            body.append(f'<circle cx="{cx}" cy="{t.y:g}" r="4" fill="{t.colour}"/>')
        base = p.y + 36 + 14 * len(p.subtitle) + _TERM_DY * len(p.terminals) - 6
        for i, line in enumerate(p.notes):
            body.append(_text(x + 10, base + 14 * i, line, 11, "start", fill="#555555"))

    body += _legend(legend_y)
    svg = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{height:g}" '
        f'viewBox="0 0 {_WIDTH} {height:g}" font-family="DejaVu Sans, Arial, sans-serif">',
        f'<rect width="{_WIDTH}" height="{height:g}" fill="#ffffff"/>',
        *body,
        "</svg>",
    ]
    return "\n".join(svg) + "\n"


def _legend(y: float) -> list[str]:
    out = [_text(40, y + 16, "Wires", 13, "start", "bold")]
    items = [
        ("GND", "ground"),
        ("5V", "5 V (LED ring only)"),
        ("slider", "slider switch"),
        ("confirm", "confirm button"),
        ("light_ring", "MOSFET gate (PWM)"),
        ("buzzer", "piezo (PWM)"),
        ("led_red", "LED red"),
        ("led_green", "LED green"),
        ("led_blue", "LED blue"),
    ]
    for i, (key, label) in enumerate(items):
        x = 40 + (i % 3) * 260
        yy = y + 36 + (i // 3) * 20
        out.append(
            f'<line x1="{x}" y1="{yy - 4}" x2="{x + 30}" y2="{yy - 4}" '
            f'stroke="{_COLOURS[key]}" stroke-width="3"/>'
        )
        out.append(_text(x + 38, yy, label, 11))
    notes = [
        "Switches close to GND and use the Pi's internal pull-ups: no pull-up resistors.",
        "The camera uses the CSI ribbon connector, not this header. Power the Pi from its "
        "own 5 V USB-C supply (Pi 4: 3 A; Pi 5: 5 A).",
        "LED ring current comes from the 5 V pins (through the Pi's supply): keep it under "
        "1 A, or feed the ring from the supply directly, grounds joined.",
    ]
    for i, line in enumerate(notes):
        out.append(_text(40, y + 112 + 16 * i, line, 11))
    return out


TABLE_BEGIN = (
    "<!-- wiring table: generated from pinmap.yaml by "
    "`pyramid wiring --readme hardware/README.md`; edit pinmap.yaml, not this -->"
)
TABLE_END = "<!-- end of the wiring table -->"


def wiring_table(pinmap: PinMap | Mapping[str, Any]) -> str:
    """The build guide's wiring table (Markdown), from the same parts as the drawing: GPIO,
    header pin, the ground (or 5 V) pin and what goes in between, for every wire."""
    pm = pinmap if isinstance(pinmap, PinMap) else validate_pinmap(pinmap)
    rows = [
        "| part | GPIO (BCM) | header pin | ground pin | in between |",
        "| --- | --- | --- | --- | --- |",
    ]
    for part in _parts(pm):
        signal = [t for t in part.terminals if isinstance(HEADER[t.pin], int)]
        power = [t for t in part.terminals if not isinstance(HEADER[t.pin], int)]
        gnd = [t for t in power if HEADER[t.pin] == "GND"]
        five = [t for t in power if HEADER[t.pin] == "5V"]
        gpio = " / ".join(str(HEADER[t.pin]) for t in signal)
        pins = " / ".join(str(t.pin) for t in signal)
        between = " / ".join(t.resistor or "none" for t in signal)
        extra = {"Slider microswitch": "", "Light ring": "; 100 kΩ gate to source"}
        ground = " / ".join(str(t.pin) for t in gnd)
        rows.append(
            f"| {part.title.lower()} | {gpio} | {pins} | {ground} | "
            f"{between}{extra.get(part.title, '')} |"
        )
        for t in five:
            rows.append(
                f"| {part.title.lower()} + | 5 V | {t.pin} | | ring − to the MOSFET's drain |"
            )
    return "\n".join(rows) + "\n"


def replace_table(readme: str, table: str) -> str:
    """``readme`` with the text between the table's markers replaced by ``table``; ValueError
    when the markers are missing."""
    try:
        a = readme.index(TABLE_BEGIN) + len(TABLE_BEGIN)
        b = readme.index(TABLE_END, a)
    except ValueError as exc:
        raise ValueError("no wiring-table markers in the build guide") from exc
    return readme[:a] + "\n" + table + readme[b:]

"""Can this Python environment run the table on a Pi? ``python -m firmware.pi_env``.

install-pi.sh runs it in the venv it has just made and stops, naming the cause, unless every
check passes; ``make pi-check`` runs it in an emulated Raspberry Pi OS. Why a module rather
than a line of shell: each check says what it found (version and where it was imported from)
and what is wrong, and the tests run the same code.

Checks: numpy is a 1.x (apt's picamera2 and simplejpeg are compiled against Debian's numpy
1.24; a numpy 2 in the venv hides it and they fail to import) and, with
``--expect-debian-numpy``, is Debian's own from the system site packages; OpenCV imports, is
4.7 or later and has ``cv2.aruco.ArucoDetector`` (the board markers); the project imports;
with ``--need-picamera2``, ``import picamera2`` works, else the cause is named
(firmware.camera_fault).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from dataclasses import asdict, dataclass
from typing import Any

DEBIAN_SITE = "/usr/lib/python3/dist-packages"


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def _version_tuple(text: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in text.split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits) if digits else 0)
    return tuple(out)


def check_numpy(expect_debian: bool) -> Check:
    try:
        import numpy
    except Exception as exc:  # noqa: BLE001 - any failure is the finding
        return Check("numpy", False, f"does not import: {type(exc).__name__}: {exc}")
    where = str(getattr(numpy, "__file__", "?"))
    found = f"numpy {numpy.__version__} from {where}"
    if _version_tuple(numpy.__version__) >= (2,):
        return Check(
            "numpy",
            False,
            f"{found}: numpy 2 hides Debian's 1.24, which apt's "
            "picamera2 and simplejpeg are built against (use the constraints file)",
        )
    if expect_debian and not where.startswith(DEBIAN_SITE):
        return Check("numpy", False, f"{found}: not Debian's python3-numpy ({DEBIAN_SITE})")
    return Check("numpy", True, found)


def check_opencv() -> Check:
    try:
        import cv2
    except Exception as exc:  # noqa: BLE001
        return Check("opencv", False, f"does not import: {type(exc).__name__}: {exc}")
    found = f"OpenCV {cv2.__version__} from {getattr(cv2, '__file__', '?')}"
    if _version_tuple(cv2.__version__) < (4, 7):
        return Check("opencv", False, f"{found}: 4.7 or later is needed (ArucoDetector)")
    if not hasattr(getattr(cv2, "aruco", None), "ArucoDetector"):
        return Check("opencv", False, f"{found}: no cv2.aruco.ArucoDetector")
    return Check("opencv", True, f"{found}, cv2.aruco.ArucoDetector present")


def check_gpiozero(model: str | None = None, version: str | None = None) -> Check:
    """gpiozero must find a Pi 5's header GPIOs: 2.0.1 as released (Debian's python3-gpiozero)
    opens gpiochip4 on a Pi 5 whatever the kernel, and kernels since 6.6.45 moved those GPIOs to
    gpiochip0 (gpiozero issue 1166); 2.0.1.post3 (the constraints' pin) opens gpiochip4 only
    where it exists, else gpiochip0."""
    try:
        import gpiozero
    except Exception as exc:  # noqa: BLE001
        return Check("gpiozero", False, f"does not import: {type(exc).__name__}: {exc}")
    if version is None:
        from importlib import metadata

        try:
            version = metadata.version("gpiozero")
        except metadata.PackageNotFoundError:
            version = "?"
    found = f"gpiozero {version} from {getattr(gpiozero, '__file__', '?')}"
    if model is None:
        try:
            model = open("/proc/device-tree/model", "rb").read().decode(errors="replace")
        except OSError:
            model = ""
    pi5 = model.startswith("Raspberry Pi 5")
    if pi5 and version.split("+")[0] == "2.0.1":
        return Check(
            "gpiozero",
            False,
            f"{found}: on a Pi 5 it opens gpiochip4, which newer "
            "kernels no longer have; install the constraints' 2.0.1.post3",
        )
    return Check("gpiozero", True, found)


def check_project() -> Check:
    names = ("hub.cli", "vision.markers", "firmware.watch", "firmware.frames", "hardware.pinmap")
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001
            return Check("project", False, f"{name} does not import: {type(exc).__name__}: {exc}")
    return Check("project", True, f"imports: {', '.join(names)}")


def check_picamera2() -> Check:
    from firmware.camera_fault import CameraFault, describe

    try:
        import picamera2
    except Exception as exc:  # noqa: BLE001 - "numpy.dtype size changed" is a ValueError
        return Check("picamera2", False, describe(CameraFault.IMPORT, exc))
    return Check("picamera2", True, f"picamera2 from {getattr(picamera2, '__file__', '?')}")


def resolution_problems(report: dict[str, Any]) -> list[str]:
    """What is wrong with a pip install report (``pip install --dry-run --report``) for the Pi:
    a numpy 2, an OpenCV outside 4.7..4.10 (4.11 and later need numpy 2; before 4.7 there is no
    ArucoDetector), or a second OpenCV distribution beside the headless one (two packages that
    both install ``cv2``). Empty: the resolution is one the Pi can run."""
    chosen = {
        str(item["metadata"]["name"]).lower().replace("_", "-"): str(item["metadata"]["version"])
        for item in report.get("install", [])
    }
    problems: list[str] = []
    numpy = chosen.get("numpy")
    if numpy is not None and _version_tuple(numpy) >= (2,):
        problems.append(f"numpy {numpy} chosen: numpy 2 hides Debian's 1.24 (picamera2 breaks)")
    cv = chosen.get("opencv-python-headless")
    if cv is None:
        problems.append("no opencv-python-headless chosen")
    elif not (4, 7) <= _version_tuple(cv) < (4, 11):
        problems.append(
            f"opencv-python-headless {cv} chosen: needs 4.7 <= version < 4.11 "
            "(ArucoDetector, built for numpy 1.x)"
        )
    for other in ("opencv-python", "opencv-contrib-python", "opencv-contrib-python-headless"):
        if other in chosen:
            problems.append(f"{other} {chosen[other]} chosen beside the headless OpenCV")
    return problems


def run_checks(*, need_picamera2: bool, expect_debian_numpy: bool) -> list[Check]:
    checks = [check_numpy(expect_debian_numpy), check_opencv(), check_gpiozero(), check_project()]
    if need_picamera2:
        checks.append(check_picamera2())
    return checks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m firmware.pi_env",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--need-picamera2", action="store_true", help="fail unless picamera2 imports (on the Pi)"
    )
    parser.add_argument(
        "--expect-debian-numpy",
        action="store_true",
        help=f"fail unless numpy is Debian's, from {DEBIAN_SITE}",
    )
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")
    args = parser.parse_args(argv)
    checks = run_checks(
        need_picamera2=args.need_picamera2, expect_debian_numpy=args.expect_debian_numpy
    )
    if args.json:
        print(
            json.dumps(
                {"python": sys.version.split()[0], "checks": [asdict(c) for c in checks]}, indent=2
            )
        )
    else:
        for c in checks:
            print(f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}")
    return 0 if all(c.ok for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())

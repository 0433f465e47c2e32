"""Why a camera cannot be used, as a value: the status topic and the dashboard name the cause.

Why: a camera that fails to open was reported as "cannot open the camera" and retried forever,
whatever the reason, so a person at the table could not tell a library that does not import
(retrying never helps: the install is broken) from a camera another program holds (close it),
a ribbon that is not seated (no camera found) or buffers that do not fit the memory the kernel
reserves for the camera (CMA). :func:`classify` reads the exception picamera2 raised, at the
stage it was raised, and gives a :class:`CameraFault`; the code decides on the enum, people read
its sentence (:data:`ADVICE`).

The messages matched are picamera2's and libcamera's own (raspberrypi/picamera2):
``Picamera2()`` with no camera raises ``IndexError`` from ``global_camera_info()[n]`` (newer
releases: "no cameras"), a camera held by another process fails with "Failed to acquire
camera: Device or resource busy" (libcamera: "Pipeline handler in use by another process"),
and buffers that do not fit raise ``OSError(ENOMEM)`` "Cannot allocate memory" or "Failed to
allocate buffers". An import that fails with "numpy.dtype size changed" is the numpy-2-in-the-
venv breakage of issue 14: ``ValueError`` at import time, not ``ImportError``.
"""

from __future__ import annotations

import errno

from hub import wire

# the enum is the wire's (its values travel in the status payload, ``camera_fault``): one
# definition, in hub.wire, beside the status message that carries it
CameraFault = wire.CameraFault


ADVICE: dict[CameraFault, str] = {
    CameraFault.IMPORT: (
        "the camera library does not import: run the install again (make install-pi), "
        "it checks picamera2 and numpy in the venv"
    ),
    CameraFault.BUSY: (
        "another program holds the camera (rpicam-still, a second pyramid watch?): close it; "
        "pyramid calibrate asks this service for frames instead"
    ),
    CameraFault.ABSENT: (
        "no camera found: check the ribbon (contacts and latch, both ends) and that "
        "rpicam-hello --list-cameras lists it with the service stopped"
    ),
    CameraFault.OUT_OF_MEMORY: (
        "the camera's buffers do not fit the kernel's camera memory (CMA): see "
        "docs/running-on-the-pi.md, 'Camera memory'"
    ),
    CameraFault.FAILED: "the camera failed; the message says how",
}

_BUSY = (
    "resource busy",
    "in use by another process",
    "failed to acquire camera",
    "returned unexpected code: -16",
)
_ABSENT = ("no cameras", "no camera", "camera(s) not found", "list index out of range")
_MEMORY = (
    "cannot allocate memory",
    "failed to allocate",
    "out of memory",
    "dmaheap allocation failure",
    "enomem",
)


def classify(exc: BaseException, stage: str) -> CameraFault:
    """The fault behind ``exc``, raised while ``stage`` ("import", "open", "configure",
    "start", "read"). Looks through the exception's chain (picamera2 wraps some in a
    RuntimeError)."""
    if stage == "import":
        return CameraFault.IMPORT
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        text = f"{type(e).__name__}: {e}".lower()
        if isinstance(e, MemoryError) or (isinstance(e, OSError) and e.errno == errno.ENOMEM):
            return CameraFault.OUT_OF_MEMORY
        if isinstance(e, OSError) and e.errno == errno.EBUSY:
            return CameraFault.BUSY
        if any(m in text for m in _MEMORY):
            return CameraFault.OUT_OF_MEMORY
        if any(m in text for m in _BUSY):
            return CameraFault.BUSY
        if isinstance(e, IndexError) and stage == "open":
            return CameraFault.ABSENT
        if any(m in text for m in _ABSENT):
            return CameraFault.ABSENT
        e = e.__cause__ or e.__context__
    return CameraFault.FAILED


def describe(fault: CameraFault, exc: BaseException) -> str:
    """One line for the status and the log: the cause, what to do, and the library's words."""
    return f"camera {fault.value}: {ADVICE[fault]} ({type(exc).__name__}: {exc})"

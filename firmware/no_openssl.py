"""`pyramid watch` without OpenSSL when its broker speaks plain MQTT (issue 14: peak memory).

Why: two imports load OpenSSL's libcrypto into the watch although a table on the Pi's own
broker (``mqtt://127.0.0.1``) never encrypts or hashes anything with it: numpy (``numpy.random``
imports ``secrets``, then ``hmac``, ``hashlib`` and its OpenSSL back end ``_hashlib``) and
paho-mqtt (``import ssl``, for a TLS it may never use). Measured by ``bench/firmware.py`` (the
Pi-pinned numpy and OpenCV, single runs on a loaded machine): libcrypto alone is 3.3 MB of the
watch's resident memory, and the watch's peak fell by 4.5-5.7 MB in every mode without it.

- ``hashlib_without_openssl``: ``hashlib`` and ``hmac`` use CPython's own md5, sha1, sha2, sha3
  and blake2 (what they use on a Python built without OpenSSL), which give the same digests.
  Called before numpy is imported; TLS still works (``ssl`` loads OpenSSL itself).
- ``plain_mqtt_ssl``: for a plain broker only, ``ssl`` is a stand-in that holds the exception
  classes paho names in its socket code's ``except`` clauses (with ``ssl = None``, as paho
  allows, any socket error there became an AttributeError) and nothing else: anything else
  asked of it is an AttributeError that says why. An ``mqtts://`` broker gets the real ``ssl``.

Both change nothing once the real module is loaded (a test process, a caller that came first).
"""

from __future__ import annotations

import sys
import types
from typing import NoReturn

STAND_IN = "firmware.no_openssl: plain MQTT"  # the stand-in ssl's __doc__ starts with this


def hashlib_without_openssl() -> bool:
    """Make ``hashlib`` use CPython's own hashes (call before numpy is imported); whether it
    took effect (False: ``hashlib`` or ``_hashlib`` was already imported)."""
    if "_hashlib" in sys.modules or "hashlib" in sys.modules:
        return False
    sys.modules["_hashlib"] = None  # type: ignore[assignment]  # import _hashlib: ImportError
    return True


class SSLError(OSError):
    pass


class SSLWantReadError(SSLError):
    pass


class SSLWantWriteError(SSLError):
    pass


class CertificateError(ValueError):
    pass


def _refuse(name: str) -> NoReturn:
    raise AttributeError(
        f"ssl.{name}: this `pyramid watch` runs without OpenSSL because its broker is plain "
        "MQTT (firmware/no_openssl.py); give an mqtts:// broker to use TLS"
    )


def plain_mqtt_ssl(use_tls: bool) -> bool:
    """For a plain broker (``use_tls`` False), the stand-in ``ssl`` (call before paho-mqtt is
    imported); whether it was installed (False: TLS, or ``ssl`` already imported)."""
    if use_tls or "ssl" in sys.modules:
        return False
    mod = types.ModuleType("ssl", f"{STAND_IN}: no OpenSSL in this process")
    for cls in (SSLError, SSLWantReadError, SSLWantWriteError, CertificateError):
        setattr(mod, cls.__name__, cls)
    mod.__dict__["__getattr__"] = _refuse  # PEP 562: every other name asked of it
    sys.modules["ssl"] = mod
    return True

"""Who may do what on the broker: the table's MQTT users, their passwords and the ACL.

Why the broker is the gate: a PIN or a token sent in a payload is read by every client that can
subscribe to the topic, so secrets cannot travel on MQTT. Instead each party connects with its own
user and mosquitto's ACL decides what it may publish and read (mosquitto.conf(5): ``password_file``,
``acl_file``, ``allow_anonymous false``):

- ``hub``: the only writer of ``state``, ``available``, ``event``, ``score/#``, ``leg/#`` and the
  Home Assistant discovery; it reads the requests.
- ``firmware``: publishes its observations (``request/observe_*``) and its retained
  ``firmware/status``; reads the public ``state`` (which dice are left) and its own answers.
- ``control``: a trusted remote controller of the table (another app at the table, the tests): may
  send any request and reads the answers sent to its own client id.
- ``reader``: dashboards, Home Assistant, a league view: reads the public topics only (and may
  publish Home Assistant's ``homeassistant/status`` birth message).

Answers go to ``<prefix>/<table>/reply/<client id>/<cmd>``: the ACL pattern ``%c`` lets only the
client with that id read them (mosquitto refuses a client id with ``/``, ``+`` or ``#`` in a
pattern). ``response/<cmd>`` is kept for answers without secrets to clients that name no reply
topic, and only ``firmware`` and ``control`` may read it.

Passwords are random (128 bits), generated the first time a table's broker is configured, and kept
in a JSON file readable by its owner only (0600). The password file holds only PBKDF2-SHA512
hashes in mosquitto's own ``$7$`` format, so no ``mosquitto_passwd`` is needed to write it.
"""

from __future__ import annotations

import base64
import contextlib
import enum
import hashlib
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

__all__ = [
    "OBSERVATIONS",
    "MAX_PACKET_SIZE",
    "BrokerCredentials",
    "Role",
    "acl_text",
    "mosquitto_hash",
    "password_file_text",
    "security_conf",
    "write_private",
]

#: The largest MQTT packet the broker takes (mosquitto ``max_packet_size``): a die crop is a few
#: kB; a bigger message is refused by the broker before any client sees it.
MAX_PACKET_SIZE = 1024 * 1024

#: The requests the firmware may send.
OBSERVATIONS = ("observe_release", "observe_die", "observe_track", "observe_dice", "observe_status")

PBKDF2_ITERATIONS = 101  # mosquitto_passwd's default; the passwords are random, not guessable


class Role(enum.Enum):
    """The parties on a table's broker (each is one MQTT user)."""

    HUB = "hub"
    FIRMWARE = "firmware"
    CONTROL = "control"
    READER = "reader"


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable and writable by its owner only (0600), atomically:
    the file never exists with wider permissions, not even for a moment."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@dataclass(frozen=True)
class BrokerCredentials:
    """The username and password of each :class:`Role` of one table's broker."""

    users: dict[Role, tuple[str, str]]

    @classmethod
    def generate(cls) -> BrokerCredentials:
        return cls({role: (role.value, secrets.token_urlsafe(16)) for role in Role})

    @classmethod
    def load_or_create(cls, path: str | Path) -> BrokerCredentials:
        """The credentials kept in ``path``; made (random) and written 0600 the first time.

        A file that others may read is tightened to 0600 rather than trusted as it is.
        """
        p = Path(path)
        if p.exists():
            if p.stat().st_mode & 0o077:
                os.chmod(p, 0o600)
            try:
                data = json.loads(p.read_text(encoding="utf-8"))
                users = {
                    Role(k): (str(v["username"]), str(v["password"]))
                    for k, v in data["users"].items()
                }
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{p}: not a broker credentials file ({exc})") from exc
            missing = [r.value for r in Role if r not in users]
            if not missing:
                return cls(users)
            fresh = cls.generate().users
            users.update({r: fresh[r] for r in Role if r not in users})
            creds = cls(users)
        else:
            creds = cls.generate()
        creds.save(p)
        return creds

    def save(self, path: str | Path) -> None:
        data = {
            "users": {r.value: {"username": u, "password": pw} for r, (u, pw) in self.users.items()}
        }
        write_private(Path(path), json.dumps(data, indent=2) + "\n")

    def username(self, role: Role) -> str:
        return self.users[role][0]

    def password(self, role: Role) -> str:
        return self.users[role][1]

    def url(self, role: Role, host: str, port: int, *, tls: bool = False) -> str:
        """``mqtt://user:password@host:port`` for ``role`` (what ``--broker`` takes)."""
        user, pw = self.users[role]
        scheme = "mqtts" if tls else "mqtt"
        return f"{scheme}://{quote(user, safe='')}:{quote(pw, safe='')}@{host}:{port}"


def mosquitto_hash(
    password: str, salt: bytes | None = None, iterations: int = PBKDF2_ITERATIONS
) -> str:
    """mosquitto 2's ``$7$`` password hash: PBKDF2-HMAC-SHA512 with a 12-byte salt, base64."""
    salt = salt if salt is not None else secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations)
    return f"$7${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def password_file_text(creds: BrokerCredentials) -> str:
    """The ``password_file`` for mosquitto: one ``user:hash`` line per role."""
    return "".join(f"{u}:{mosquitto_hash(pw)}\n" for u, pw in creds.users.values())


def acl_text(
    creds: BrokerCredentials, prefix: str = "camelup", discovery_prefix: str = "homeassistant"
) -> str:
    """The ``acl_file`` for mosquitto (see the module's docstring for who may do what).

    Topics are written with ``+`` for the table, so one broker serves many tables (a café).
    Anything not granted is refused: mosquitto drops a refused publish (MQTT 5 clients get
    reason 0x87) and never delivers a message to a client that may not read its topic.
    """
    t = f"{prefix}/+"
    public = [
        f"{t}/available",
        f"{t}/state",
        f"{t}/event",
        f"{t}/score/+",
        f"{t}/leg/+/tally",
        f"{t}/firmware/status",
    ]
    lines = [
        "# written by camel-pyramid: who may publish and read what (hub/mqtt/access.py)",
        "# no anonymous section: anonymous clients are refused (allow_anonymous false)",
        "",
    ]
    lines += [
        f"user {creds.username(Role.HUB)}",
        f"topic readwrite {prefix}/#",
        f"topic readwrite {discovery_prefix}/#",
        "",
    ]
    lines += [f"user {creds.username(Role.FIRMWARE)}"]
    lines += [f"topic write {t}/request/{cmd}" for cmd in OBSERVATIONS]
    lines += [
        f"topic readwrite {t}/firmware/status",
        f"topic read {t}/state",
        f"topic read {t}/available",
    ]
    lines += [f"topic read {t}/response/{cmd}" for cmd in OBSERVATIONS]
    lines += [""]
    lines += [
        f"user {creds.username(Role.CONTROL)}",
        f"topic write {t}/request/+",
        f"topic read {t}/response/+",
    ]
    lines += [f"topic read {topic}" for topic in public]
    lines += [f"topic read {discovery_prefix}/#", ""]
    lines += [f"user {creds.username(Role.READER)}"]
    lines += [f"topic read {topic}" for topic in public]
    lines += [f"topic read {discovery_prefix}/#", f"topic write {discovery_prefix}/status", ""]
    lines += [
        "# every client: the answers addressed to its own client id, and nobody else's",
        f"pattern read {t}/reply/%c/#",
        "",
    ]
    return "\n".join(lines)


def security_conf(password_file: Path, acl_file: Path) -> str:
    """The security part of a mosquitto.conf: no anonymous clients, users with passwords, the
    ACL, a packet size limit. Shared by the embedded broker and the Pi's install."""
    return (
        f"allow_anonymous false\n"
        f"password_file {password_file}\n"
        f"acl_file {acl_file}\n"
        f"max_packet_size {MAX_PACKET_SIZE}\n"
    )

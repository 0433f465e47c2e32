"""`pyramid broker-config`: configure a system mosquitto (the Pi's) with the table's users and ACL.

Why a command and not a shipped config file: the passwords are made on this machine, the first
time (kept 0600 in ``--users``, beside the event log), and the password file holds only their
hashes. The same :mod:`hub.mqtt.access` writes the embedded broker's config, so the Pi's broker
and the demo's have the same users and ACL. The install script (firmware/install/broker.sh) runs
it as root, then gives the password file and ACL to the mosquitto group and restarts mosquitto.

Written: ``--users`` (created once, 0600, owned by ``--owner``), ``--passwd`` and ``--acl``
(0640), and ``--conf`` (a mosquitto.conf drop-in: a listener, no anonymous clients, the files
above, a packet size limit).
"""

from __future__ import annotations

import argparse
import os
import pwd
import sys
from pathlib import Path

from hub.mqtt.access import (
    BrokerCredentials,
    acl_text,
    password_file_text,
    security_conf,
    write_private,
)

HELP = "write the table's MQTT users, password file and ACL for a system mosquitto"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--users",
        required=True,
        type=Path,
        help="the users and passwords (JSON, 0600; made if missing)",
    )
    parser.add_argument("--passwd", type=Path, default=Path("/etc/mosquitto/camel-pyramid.passwd"))
    parser.add_argument("--acl", type=Path, default=Path("/etc/mosquitto/camel-pyramid.acl"))
    parser.add_argument(
        "--conf", type=Path, default=Path("/etc/mosquitto/conf.d/camel-pyramid.conf")
    )
    parser.add_argument(
        "--listen",
        default="1883",
        help="the listener: a port (all addresses, so Home Assistant on the LAN "
        "can read) or 'PORT ADDRESS' (default 1883)",
    )
    parser.add_argument("--owner", default=None, help="the user who runs the hub: owns --users")
    parser.add_argument("--prefix", default="camelup", help="the topic prefix (default camelup)")


def run(args: argparse.Namespace) -> int:
    try:
        creds = BrokerCredentials.load_or_create(args.users)
        if args.owner:
            pw = pwd.getpwnam(args.owner)
            os.chown(args.users, pw.pw_uid, pw.pw_gid)
        write_private(args.passwd, password_file_text(creds))
        write_private(args.acl, acl_text(creds, args.prefix))
        for p in (args.passwd, args.acl):
            os.chmod(p, 0o640)  # the install gives them to the mosquitto group
        conf = (
            "# written by `pyramid broker-config` (camel-pyramid): users, ACL, limits\n"
            f"listener {args.listen}\n" + security_conf(args.passwd, args.acl)
        )
        args.conf.parent.mkdir(parents=True, exist_ok=True)
        args.conf.write_text(conf, encoding="utf-8")
        os.chmod(args.conf, 0o644)
    except (OSError, ValueError, KeyError) as exc:
        print(f"broker-config: {exc}", file=sys.stderr)
        return 1
    print(f"mosquitto configured: {args.conf} (users in {args.users})")
    return 0

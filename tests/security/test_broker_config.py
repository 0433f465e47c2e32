"""`pyramid broker-config` (the Pi's install): a real mosquitto run with the files it writes
refuses anonymous clients and lets each user do only what the ACL grants; the firmware finds its
user in the same users file."""

from __future__ import annotations

import getpass
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from firmware.config import BrokerConfig
from hub.mqtt.access import BrokerCredentials, Role
from hub.mqtt.broker import find_mosquitto, free_port

pytestmark = [
    pytest.mark.security,
    pytest.mark.broker,
    pytest.mark.skipif(find_mosquitto() is None, reason="mosquitto is not installed"),
]

REPO = Path(__file__).resolve().parents[2]


def test_the_installed_broker_has_users_and_acl(tmp_path: Path) -> None:
    from tests.security.test_broker_acl import Client

    port = free_port()
    etc = tmp_path / "etc"
    users = tmp_path / "data" / "broker-users.json"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "hub.cli",
            "broker-config",
            "--users",
            str(users),
            "--passwd",
            str(etc / "pw"),
            "--acl",
            str(etc / "acl"),
            "--conf",
            str(etc / "conf.d" / "camel-pyramid.conf"),
            "--listen",
            f"{port} 127.0.0.1",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert stat.S_IMODE(os.stat(users).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(etc / "pw").st_mode) == 0o640
    creds = BrokerCredentials.load_or_create(users)
    assert creds.password(Role.HUB) not in (etc / "pw").read_text()  # only hashes there
    # the Pi's mosquitto.conf includes conf.d; run as this user (not as root's "mosquitto")
    main = tmp_path / "mosquitto.conf"
    main.write_text(f"user {getpass.getuser()}\npersistence false\ninclude_dir {etc / 'conf.d'}\n")
    proc = subprocess.Popen(
        [find_mosquitto() or "mosquitto", "-c", str(main)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(0.5)

        class Broker:  # what Client needs of a broker
            def url_for(self, role: Role) -> str:
                return creds.url(role, "127.0.0.1", port)

        Broker.port = port  # type: ignore[attr-defined]
        anon = Client(Broker(), None)
        reader = Client(Broker(), Role.READER)
        fw_cfg = BrokerConfig(url=f"mqtt://127.0.0.1:{port}", users_file=str(users))
        assert (fw_cfg.username, fw_cfg.secret) == (
            creds.username(Role.FIRMWARE),
            creds.password(Role.FIRMWARE),
        )
        try:
            assert anon.done.wait(5) and not anon.connected.is_set()
            assert reader.connected.wait(5)
        finally:
            anon.close()
            reader.close()
    finally:
        proc.terminate()
        proc.wait(5)

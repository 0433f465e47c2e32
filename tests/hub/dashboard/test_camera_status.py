"""The dashboard says why the camera cannot be used, from the firmware's retained status."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.browser import wait_js

from .conftest import Table


def test_the_camera_fault_reaches_the_dashboard_api(table: Table) -> None:
    client = table.app.test_client()
    assert client.get("/api/camera").get_json()["camera"]["fault"] is None  # nothing heard yet
    table.session.request(
        "observe_status",
        {
            "state": "camera_error",
            "camera": None,
            "camera_fault": "busy",
            "last_error": "cannot open the camera: camera busy: another program holds the camera",
        },
        None,
        channel="mqtt",
    )
    cam = client.get("/api/camera").get_json()["camera"]
    assert cam["fault"] == "busy" and "another program holds the camera" in cam["message"]
    table.session.request(
        "observe_status",
        {
            "state": "ready",
            "camera": "picamera2",
            "camera_fault": None,
            "camera_fps": 14.2,
            "last_error": "an old one",
        },
        None,
        channel="mqtt",
    )
    cam = client.get("/api/camera").get_json()["camera"]
    assert cam["fault"] is None and cam["message"] is None and cam["fps"] == 14.2
    page = client.get("/").get_data(as_text=True)
    assert 'id="camera-alert"' in page


@pytest.mark.browser
def test_a_person_sees_why_the_camera_is_not_reading(
    served: Table, browser: Any, screenshot_dir: Path
) -> None:

    from .test_browser import PHONE, close, open_page

    served.session.request(
        "observe_status",
        {
            "state": "camera_error",
            "camera": None,
            "camera_fault": "absent",
            "last_error": (
                "cannot open the camera: camera absent: no camera found: check the ribbon"
            ),
        },
        None,
        channel="mqtt",
    )
    page = open_page(browser, served.url, viewport=PHONE)
    try:
        wait_js(page, "document.body.dataset.cameraFault === 'absent'", timeout=10_000)
        banner = page.locator("#camera-alert")
        assert banner.is_visible()
        assert banner.inner_text() == "Camera: no camera found (check the ribbon)."
        assert "camera absent" in (banner.get_attribute("title") or "")
        page.screenshot(path=str(screenshot_dir / "camera-absent.png"))
        served.session.request(
            "observe_status",
            {"state": "ready", "camera": "picamera2", "camera_fault": None},
            None,
            channel="mqtt",
        )
        wait_js(page, "document.body.dataset.cameraFault === ''", timeout=12_000)
        assert not banner.is_visible()
    finally:
        close(page)  # no page error, nothing blocked by the page's CSP

"""The dashboard says why the camera cannot be used, from the firmware's retained status."""

from __future__ import annotations

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

"""The live dashboard for phones and tablets: Flask pages, Server-Sent Events and taps.

``create_app(session)`` gives the Flask app of one table. Everything the page needs is served
from this package (HTML, CSS, plain JavaScript, QR codes drawn by segno): the table's Wi-Fi may
have no internet.
"""

from hub.dashboard.app import create_app

__all__ = ["create_app"]

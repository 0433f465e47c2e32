"""The one exception an illegal action raises, shared by every game the table serves.

Like python-chess's ``IllegalMoveError(ValueError)``: a machine-readable ``reason`` for the hub,
the MQTT answer and the tests, and a sentence a player at the table understands as ``str(exc)``.
"""

from hub.games.common import IllegalAction

__all__ = ["IllegalAction"]

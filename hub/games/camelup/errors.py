"""The one exception an illegal action raises.

Like python-chess's ``IllegalMoveError(ValueError)``: a machine-readable ``reason`` for the hub,
the MQTT answer and the tests, and a sentence a player at the table understands as ``str(exc)``.
"""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action the rules forbid (or one that cannot even be read). The state is unchanged."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"reason": self.reason, "error": self.message}

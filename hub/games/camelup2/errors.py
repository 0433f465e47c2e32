"""The refusal type, shared with every game of the table (``IllegalAction(reason, sentence)``)."""

from hub.games.common import IllegalAction

__all__ = ["IllegalAction"]

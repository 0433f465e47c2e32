"""Hardware data shipped with the package: board geometry and the pin map (YAML)."""

from importlib.resources import files
from importlib.resources.abc import Traversable


def data_path(name: str) -> Traversable:
    """The path of a data file of this folder (board.yaml, pinmap.yaml, ...)."""
    return files(__name__) / name

"""Hardware data shipped with the package: board geometry and the pin map (YAML)."""

from importlib.resources import files


def data_path(name: str):
    """The path of a data file of this folder (board.yaml, pinmap.yaml, ...)."""
    return files(__name__) / name

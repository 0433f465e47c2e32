"""The die reader's colours: the table's taught palette when there is one, else the shipped one.

Why: the dice's colours under this table's lamp are what `pyramid calibrate IMAGE` measures and
stores (``palette.json``: ``$PYRAMID_HOME/palette.json``, else
``~/.config/camel-pyramid/palette.json``; vision.palette). The watch service is the one that
reads dice, so it must use that file, and say which palette it uses (``palette``,
``palette_file`` and ``palette_error`` in its status): a person looking at a misread die first
wants to know whether the table was taught at all.

The set-up runs while the service runs (`pyramid calibrate watch:` takes its frame from this
very process), so the file is looked at again before every read, by its modification time and
size (a ``stat``, no parsing while it is unchanged). A file that cannot be read or parsed
changes nothing: the palette in use stays (the last good one, or the shipped one) and the status
says why the file is not used. A file that is removed brings the shipped palette back.

vision is imported on first use, as firmware.readers does.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hub.wire import PaletteSource

if TYPE_CHECKING:
    from vision.palette import Palette

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PaletteStatus:
    """Which palette the die reader uses, as the status reports it."""

    source: PaletteSource
    file: str | None = None  # the taught palette's file, when it is the table's
    error: str | None = None  # why the table's file is not used (it exists but is bad)

    def fields(self) -> dict[str, Any]:
        """The status's palette fields (hub.wire.FirmwareStatus)."""
        return {"palette": self.source, "palette_file": self.file, "palette_error": self.error}


class TablePalette:
    """The palette the die reader is given (``current()``), reloaded when its file changes.

    ``path``: the palette file; None or "" is where `pyramid calibrate` stores it."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self._path = Path(path) if path else None
        self._fixed = False  # shipped(): never looks for a file
        self._palette: Palette | None = None  # None: the shipped palette
        self._seen: tuple[int, int] | None = None  # (mtime_ns, size) of the file last looked at
        self._status = PaletteStatus(PaletteSource.DEFAULT)

    @classmethod
    def shipped(cls) -> TablePalette:
        """Always the shipped palette, whatever is stored (the demo renders the shipped
        colours: a real table's taught palette would misname them)."""
        out = cls()
        out._fixed = True
        return out

    @property
    def path(self) -> Path:
        if self._path is not None:
            return self._path
        from vision.palette import default_path

        return default_path()

    def current(self) -> Palette | None:
        """The taught palette, or None for the shipped one (what vision's readers default to)."""
        self.refresh()
        return self._palette

    def status(self) -> PaletteStatus:
        self.refresh()
        return self._status

    def refresh(self) -> None:
        """Look at the file again; load it if it changed since it was last looked at."""
        if self._fixed:
            return
        path = self.path
        try:
            st = path.stat()
        except FileNotFoundError:
            if self._seen is not None or self._palette is not None:
                log.info("palette: %s is gone; the shipped palette is used", path)
            self._palette, self._seen = None, None
            self._status = PaletteStatus(PaletteSource.DEFAULT)
            return
        except OSError as exc:
            self._refused(path, f"cannot look at {path}: {exc}")
            return
        seen = (st.st_mtime_ns, st.st_size)
        if seen == self._seen:
            return
        self._seen = seen
        from vision.palette import load_palette

        try:
            palette = load_palette(path)
        except (OSError, ValueError) as exc:
            self._refused(path, str(exc))
            return
        self._palette = palette
        self._status = PaletteStatus(PaletteSource.TABLE, str(path))
        log.info("palette: the table's, from %s (%s)", path, ", ".join(palette.colours))

    def _refused(self, path: Path, why: str) -> None:
        """A bad file changes nothing but the status: the palette in use stays."""
        log.warning("palette: %s is not used: %s", path, why)
        source = PaletteSource.TABLE if self._palette is not None else PaletteSource.DEFAULT
        self._status = PaletteStatus(source, self._status.file if self._palette else None, why)

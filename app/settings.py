"""Persistent preferences (QSettings): recent files, window layout, view toggles, the
folders last used for saving and exporting, the size of plot exports."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow

MAX_RECENT = 10
LAYOUT_VERSION = 2  # 2: the right column reaches the status bar


class Settings:
    """Thin typed access to the application's QSettings."""

    def __init__(self) -> None:
        self.qs = QSettings()

    # -- recent files -------------------------------------------------------------------------

    def recent_files(self) -> list[str]:
        value = self.qs.value("recent_files", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or []) if v]

    def add_recent(self, path: str | Path) -> list[str]:
        path = str(Path(path).resolve())
        files = [f for f in self.recent_files() if f != path]
        files.insert(0, path)
        del files[MAX_RECENT:]
        self.qs.setValue("recent_files", files)
        return files

    def remove_recent(self, path: str | Path) -> None:
        path = str(Path(path).resolve())
        self.qs.setValue("recent_files", [f for f in self.recent_files() if f != path])

    def clear_recent(self) -> None:
        self.qs.setValue("recent_files", [])

    # -- layout -------------------------------------------------------------------------------

    def save_layout(self, window: QMainWindow) -> None:
        self.qs.setValue("window/geometry", window.saveGeometry())
        self.qs.setValue("window/state", window.saveState(LAYOUT_VERSION))

    def restore_layout(self, window: QMainWindow) -> bool:
        geometry = self.qs.value("window/geometry")
        state = self.qs.value("window/state")
        restored = False
        if isinstance(geometry, QByteArray | bytes) and geometry:
            restored = window.restoreGeometry(QByteArray(geometry))
        if isinstance(state, QByteArray | bytes) and state:
            restored = window.restoreState(QByteArray(state), LAYOUT_VERSION) or restored
        return restored

    # -- view toggles ---------------------------------------------------------------------------

    def view_flag(self, name: str, default: bool = True) -> bool:
        value = self.qs.value(f"view/{name}", default)
        if isinstance(value, str):
            return value.lower() in ("true", "1", "yes")
        return bool(value)

    def set_view_flag(self, name: str, value: bool) -> None:
        self.qs.setValue(f"view/{name}", bool(value))

    # -- folders and export size ---------------------------------------------------------------

    def folder(self, kind: str) -> Path | None:
        """The folder last used for ``kind`` (``"models"``, ``"exports"``), if any."""
        value = self.qs.value(f"folders/{kind}", "")
        return Path(str(value)) if value else None

    def set_folder(self, kind: str, folder: str | Path) -> None:
        self.qs.setValue(f"folders/{kind}", str(Path(folder).resolve()))

    def export_size(self) -> tuple[int, int] | None:
        """The pixel size of the last plot export."""
        value = self.qs.value("export/plot_size", "")
        try:
            width, height = (int(v) for v in str(value).split("x"))
        except ValueError:
            return None
        return width, height

    def set_export_size(self, size: tuple[int, int]) -> None:
        self.qs.setValue("export/plot_size", f"{int(size[0])}x{int(size[1])}")

    def sync(self) -> None:
        self.qs.sync()

"""The height of the Plots dock: a share of the window that follows its resizing, and the
"maximise plots" state in which the plots fill the window.

Qt keeps a dock's height in pixels when the window grows (the central widget takes the
rest), so a 1400 × 880 layout left a 110 px plot strip on a larger screen. Here the dock
keeps ``fraction`` of the window height: set when the user drags the splitter, re-applied
after each window resize. Maximised, the central widget (3D view, playback bar) and the
other docks are hidden and the plots arranged in a grid; the previous layout comes back
exactly (``QMainWindow.saveState``).
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QDockWidget, QMainWindow

#: Default share of the window height for the plots.
DEFAULT_FRACTION = 0.3
MIN_FRACTION, MAX_FRACTION = 0.12, 0.75
#: Plot columns when maximised (None: all plots side by side, the strip layout).
MAXIMISED_COLUMNS = 2


class PlotDockSizer(QObject):
    """Keeps ``dock`` (a bottom dock of ``window``) at ``fraction`` of the window height."""

    maximised_changed = Signal(bool)

    def __init__(self, window: QMainWindow, dock: QDockWidget, panel) -> None:
        super().__init__(window)
        self.window = window
        self.dock = dock
        self.panel = panel  # the PlotsPanel: arranged in a grid when maximised
        self.fraction = DEFAULT_FRACTION
        self.maximised = False
        self._saved_state: QByteArray | None = None
        self._applying = False
        self._applied_height = -1
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.apply)
        dock.installEventFilter(self)
        window.installEventFilter(self)

    def apply(self) -> None:
        """Give the dock its share of the window now."""
        dock, window = self.dock, self.window
        if self.maximised or dock.isFloating() or not dock.isVisible():
            return
        self._applying = True
        try:
            window.resizeDocks(
                [dock], [round(self.fraction * window.height())], Qt.Orientation.Vertical
            )
        finally:
            self._applying = False
        self._applied_height = window.height()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
        if event.type() != QEvent.Type.Resize:
            return False
        if watched is self.window:
            self._timer.start()  # after Qt has laid the docks out for the new size
        elif (
            watched is self.dock
            and not self._applying
            and not self.maximised
            and not self.dock.isFloating()
            and self.window.height() == self._applied_height
        ):  # the user dragged the splitter
            share = self.dock.height() / max(self.window.height(), 1)
            self.fraction = min(max(share, MIN_FRACTION), MAX_FRACTION)
        return False

    def set_maximised(self, on: bool) -> None:
        """Plots fill the window (``on``) or go back to the layout they had before."""
        if on == self.maximised:
            return
        window = self.window
        if on:
            self._saved_state = window.saveState()
            self.maximised = True
            window.centralWidget().hide()
            for dock in window.findChildren(QDockWidget):
                if dock is not self.dock and not dock.isFloating():
                    dock.hide()
            self.dock.show()
            self.panel.set_columns(MAXIMISED_COLUMNS)
        else:
            self.maximised = False
            self.panel.set_columns(None)
            window.centralWidget().show()
            if self._saved_state is not None:
                window.restoreState(self._saved_state)
            self._saved_state = None
            self._timer.start()
        self.maximised_changed.emit(on)

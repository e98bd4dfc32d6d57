"""A progress bar that schedules its repaint instead of repainting at once.

``QProgressBar.setValue`` repaints synchronously. In a window that holds the 3D view (a
``QOpenGLWidget``) every repaint composes the whole window through OpenGL, which under Mesa's
software renderer costs tens of milliseconds (measured: most of the GUI thread's time during a
run went to those repaints). Here ``setValue`` only marks the bar dirty, so it is drawn in the
same composition as the next viewport frame.
"""

from __future__ import annotations

from PySide6.QtWidgets import QProgressBar


class ProgressBar(QProgressBar):
    """``QProgressBar`` whose ``setValue`` (from Python) defers the repaint to the event loop."""

    def setValue(self, value: int) -> None:  # noqa: N802 (Qt name)
        if value == self.value():
            return
        self.setUpdatesEnabled(False)  # QWidget.repaint() does nothing while this is off
        try:
            super().setValue(value)
        finally:
            self.setUpdatesEnabled(True)
        self.update()

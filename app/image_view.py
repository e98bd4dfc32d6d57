"""The 3D view as an image: VTK renders off screen, the widget paints the pixels with QPainter.

Why not pyvistaqt's ``QtInteractor`` (a ``QOpenGLWidget``): with one in it, Qt composes the
*whole* top-level window through OpenGL on every repaint of any widget, which under Mesa's
software renderer costs more than the 3D render itself (measured on a 1600×1000 window: a
status label's repaint 34 ms CPU, a viewport frame 71 ms of which 21 ms is VTK's render).
Why not a native child window (VTK's ``QVTKRenderWindowInteractor``; tried and removed):
VTK's buffer swap into an X window cost as much again as the render (40 ms a frame,
measured), Qt's ``grab()`` left it out, and it crashed under pytest-qt.

Here the main window stays a plain raster window: VTK renders into its own off-screen
framebuffer, the pixels are read back once a render (``vtkRenderWindow.GetRGBACharPixelData``,
≈ 1 ms for a 1000×900 view in software GL) and painted like any image, so a label or a plot
repaints only its own rectangle, ``QWidget.grab()`` contains the 3D view and no OpenGL
context is ever bound to a Qt window. Mouse events are handed to a
``vtkGenericRenderWindowInteractor`` (VTK's camera styles; keys are left to Qt's shortcuts).

``ImageInteractor`` has pyvista's ``BasePlotter`` API (``add_mesh``, ``camera``,
``screenshot`` …). ``update()`` schedules a paint that renders first (one render a frame);
``render()`` renders now and repaints from the new pixels.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import vtkmodules.vtkRenderingOpenGL2  # noqa: F401 (the OpenGL render window)
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QImage, QMouseEvent, QPainter, QWheelEvent
from PySide6.QtWidgets import QWidget
from pyvista.plotting.plotter import BasePlotter
from pyvista.plotting.render_window_interactor import RenderWindowInteractor
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkCommonCore import vtkUnsignedCharArray
from vtkmodules.vtkRenderingCore import vtkRenderWindow
from vtkmodules.vtkRenderingUI import vtkGenericRenderWindowInteractor

_BUTTON_EVENTS = {
    Qt.MouseButton.LeftButton: ("LeftButtonPressEvent", "LeftButtonReleaseEvent"),
    Qt.MouseButton.MiddleButton: ("MiddleButtonPressEvent", "MiddleButtonReleaseEvent"),
    Qt.MouseButton.RightButton: ("RightButtonPressEvent", "RightButtonReleaseEvent"),
}


@contextlib.contextmanager
def no_base_plotter_init() -> Iterator[None]:
    """PySide6 continues the cooperative ``__init__`` chain past the Qt base into
    ``BasePlotter.__init__`` (without arguments); it is called explicitly afterwards."""
    original = BasePlotter.__init__
    BasePlotter.__init__ = lambda *args, **kwargs: None
    try:
        yield
    finally:
        BasePlotter.__init__ = original


class ImageInteractor(QWidget, BasePlotter):
    """A pyvista plotter rendered off screen and painted into a plain ``QWidget``."""

    def __init__(self, parent: QWidget | None = None, multi_samples: int = 0) -> None:
        with no_base_plotter_init():
            QWidget.__init__(self, parent)
        BasePlotter.__init__(self)
        # every pixel is painted from the image: no background fill before paintEvent
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.WheelFocus)
        self.ren_win = vtkRenderWindow()
        self.ren_win.SetOffScreenRendering(True)
        self.ren_win.SetMultiSamples(multi_samples)
        for renderer in self.renderers:
            renderer.view_isometric()
            self.ren_win.AddRenderer(renderer)
        interactor = vtkGenericRenderWindowInteractor()
        interactor.SetRenderWindow(self.ren_win)
        self._off_screen = False
        self.iren: Any = RenderWindowInteractor(self, interactor=interactor)
        self.iren.interactor.RemoveObservers("MouseMoveEvent")
        self.iren.initialize()
        self.enable_trackball_style()
        self._first_time = False  # BasePlotter renders only after this
        self._closed = False
        self._dirty = True  # the image is older than the scene: render before painting
        self._painting = False
        self._pixels: np.ndarray | None = None  # the QImage's memory (top row first)
        self._image: QImage | None = None
        self._array = vtkUnsignedCharArray()
        self._resize_render_window()
        self.ren_win.AddObserver("EndEvent", self._capture)

    # -- rendering -----------------------------------------------------------------------------

    def render(self) -> None:
        """Render now (``BasePlotter.render``) and repaint from the new pixels."""
        if self._closed:
            return
        BasePlotter.render(self)

    def update(self, *_args: Any) -> None:
        """Schedule a paint that renders the scene first (``QWidget.update`` for Qt)."""
        self._dirty = True
        QWidget.update(self)

    def _pixel_size(self) -> tuple[int, int]:
        ratio = self.devicePixelRatioF()
        return max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio))

    def _resize_render_window(self) -> None:
        width, height = self._pixel_size()
        if tuple(self.ren_win.GetSize()) != (width, height):
            self.ren_win.SetSize(width, height)
            self.iren.interactor.UpdateSize(width, height)
            self._dirty = True

    def _capture(self, *_args: Any) -> None:
        """After each render of the window: keep its pixels as the image to paint."""
        if any(r.GetSelector() is not None for r in self.renderers):
            self._dirty = True  # a picking pass (colour-coded ids), not a picture
            return
        width, height = self.ren_win.GetSize()
        self.ren_win.GetRGBACharPixelData(0, 0, width - 1, height - 1, 0, self._array)
        flat = vtk_to_numpy(self._array)
        if flat.size != width * height * 4:
            return
        self._pixels = np.ascontiguousarray(flat.reshape(height, width, 4)[::-1])
        image = QImage(self._pixels.data, width, height, 4 * width, QImage.Format.Format_RGBX8888)
        image.setDevicePixelRatio(width / max(self.width(), 1))
        self._image = image
        self._dirty = False
        if not self._painting:
            QWidget.update(self)

    def paintEvent(self, _event: Any) -> None:  # noqa: N802 (Qt override)
        self._resize_render_window()
        if self._dirty or self._image is None:
            self._painting = True
            try:
                self.render()
            finally:
                self._painting = False
        painter = QPainter(self)
        try:
            if self._image is None:
                painter.fillRect(self.rect(), Qt.GlobalColor.black)
            else:
                painter.drawImage(0, 0, self._image)
        finally:
            painter.end()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        self._resize_render_window()
        super().resizeEvent(event)

    # -- mouse -----------------------------------------------------------------------------------

    def _send(self, event: QMouseEvent | QWheelEvent, vtk_event: str, repeat: int = 0) -> None:
        if self._closed:
            return
        ratio = self.devicePixelRatioF()
        pos = event.position()
        modifiers = event.modifiers()
        self.iren.interactor.SetEventInformationFlipY(
            round(pos.x() * ratio),
            round(pos.y() * ratio),
            int(bool(modifiers & Qt.KeyboardModifier.ControlModifier)),
            int(bool(modifiers & Qt.KeyboardModifier.ShiftModifier)),
            chr(0),
            repeat,
            None,
        )
        self.iren.interactor.InvokeEvent(vtk_event)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt override)
        names = _BUTTON_EVENTS.get(event.button())
        if names:
            repeat = int(event.type() == QEvent.Type.MouseButtonDblClick)
            self._send(event, names[0], repeat)

    mouseDoubleClickEvent = mousePressEvent  # noqa: N815 (Qt override)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt override)
        names = _BUTTON_EVENTS.get(event.button())
        if names:
            self._send(event, names[1])

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt override)
        self._send(event, "MouseMoveEvent")

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 (Qt override)
        delta = event.angleDelta().y()
        if delta:
            self._send(event, "MouseWheelForwardEvent" if delta > 0 else "MouseWheelBackwardEvent")

    # -- pyvista plumbing ------------------------------------------------------------------------

    def _check_has_ren_win(self) -> None:
        if self.render_window is not None:
            self.render_window.MakeCurrent()
        BasePlotter._check_has_ren_win(self)

    def closeEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        self.close()
        super().closeEvent(event)

    def close(self) -> None:
        """Release VTK's render window and OpenGL context (once)."""
        if getattr(self, "_closed", True):
            return
        self._closed = True
        BasePlotter.close(self)
        self._image = None
        self._pixels = None

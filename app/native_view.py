"""The 3D view as a native child window: VTK draws straight into it with its own OpenGL
context, and the rest of the main window stays a plain raster window.

Why not pyvistaqt's ``QtInteractor`` (a ``QOpenGLWidget``): with a ``QOpenGLWidget`` in it,
Qt composes the *whole* top-level window through OpenGL on every repaint of any widget (a
label, a plot, the viewport). Under Mesa's software renderer that composition cost about as
much as the 3D render itself (measured ≈ 30 ms a time on a 1600×1000 window, loaded
machine), so each viewport frame and each plot or status update paid it. In a native window
VTK's buffer swap only touches the view's own pixels and the raster widgets repaint their
own rectangles (≈ 0.3 ms for a label, measured).

``NativeInteractor`` is VTK's own ``QVTKRenderWindowInteractor`` (``QWidget`` base) with
pyvista's ``BasePlotter`` API (``add_mesh``, ``camera``, ``screenshot`` …), the subset of
pyvistaqt's set-up that the workbench needs. ``update()`` schedules a paint, and the paint
renders (one render a frame).

Experimental, chosen with ``BIELA_VIEWPORT=native`` (``app.viewport.make_interactor``). Not
working yet: under pytest-qt, ``QWidget.grab()`` of the main window came back all black and
once crashed (segmentation fault) reading that pixmap; in a plain script the same grab, with
the view painted in by ``Viewport.paint_into``, is correct. It is not the default: VTK's
buffer swap into the X window costs about as much as the render (measured 40 ms a frame
against 27 ms for ``app.image_view``, the default, which has none of these problems).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from PySide6.QtWidgets import QWidget
from pyvista.plotting.plotter import BasePlotter
from pyvista.plotting.render_window_interactor import RenderWindowInteractor
from vtkmodules.qt.QVTKRenderWindowInteractor import QVTKRenderWindowInteractor


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


class NativeInteractor(QVTKRenderWindowInteractor, BasePlotter):
    """A pyvista plotter drawn by VTK into a native child window of the Qt layout."""

    #: ``Viewport.paint_into`` draws the view into window grabs (Qt's grab leaves it out).
    native_window = True

    def __init__(self, parent: QWidget | None = None, multi_samples: int = 0) -> None:
        with no_base_plotter_init():
            QVTKRenderWindowInteractor.__init__(self, parent)
        BasePlotter.__init__(self)
        self.interactor = self
        self.ren_win = self.GetRenderWindow()
        self.ren_win.SetMultiSamples(multi_samples)
        for renderer in self.renderers:
            renderer.view_isometric()
            self.ren_win.AddRenderer(renderer)
        self._off_screen = False
        self.iren: Any = RenderWindowInteractor(self, interactor=self.ren_win.GetInteractor())
        self.iren.interactor.RemoveObservers("MouseMoveEvent")
        self.iren.initialize()
        self.enable_trackball_style()
        self._first_time = False  # BasePlotter renders only after this
        self._closed = False

    def render(self) -> None:
        """Render now (``BasePlotter.render``); nothing once closed."""
        if self._closed:
            return
        BasePlotter.render(self)

    def _check_has_ren_win(self) -> None:
        if self.render_window is not None:
            self.render_window.MakeCurrent()
        BasePlotter._check_has_ren_win(self)

    def closeEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        self.close()
        super().closeEvent(event)

    def close(self) -> None:
        """Release VTK's window and OpenGL context (once)."""
        if getattr(self, "_closed", True):
            return
        self._closed = True
        BasePlotter.close(self)
        with contextlib.suppress(Exception):
            self.Finalize()

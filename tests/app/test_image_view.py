"""The default 3D view (``app.image_view``): rendered off screen, painted as an image.

What it must keep from pyvistaqt's widget: the view is in window grabs, the mouse turns the
camera, clicks pick. What it adds: repainting a label does not re-render the 3D scene.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[2]


def grab_array(widget) -> np.ndarray:
    from PySide6.QtGui import QImage

    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    width, height = image.width(), image.height()
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(height, image.bytesPerLine())
    return rows[:, : 3 * width].reshape(height, width, 3).copy()


@pytest.fixture
def four_bar(main_window, qtbot):
    from app.image_view import ImageInteractor

    assert isinstance(main_window.plotter, ImageInteractor), main_window.viewport.unavailable
    assert main_window.open_model(ROOT / "examples" / "four_bar_spatial.json", ask=False)
    qtbot.wait(50)
    return main_window


def test_window_grab_contains_the_rendered_view(four_bar, qtbot):
    from PySide6.QtCore import QPoint

    window = four_bar
    viewport = window.viewport
    view = viewport.image()  # rendered pixels, from VTK
    assert view.astype(float).var() > 10, "blank render"
    shot = grab_array(window)  # what Qt paints, the way a window screenshot sees it
    corner = window.plotter.mapTo(window, QPoint(0, 0))
    h, w = view.shape[:2]
    inside = shot[corner.y() : corner.y() + h, corner.x() : corner.x() + w]
    assert inside.shape == view.shape
    # the same picture (not black, not a stale frame): at most a few pixels differ
    differ = np.any(np.abs(inside.astype(int) - view.astype(int)) > 8, axis=2).mean()
    assert differ < 0.01, f"{differ:.1%} of the view's pixels differ from the render"


def test_left_drag_turns_the_camera_and_the_picture(four_bar, qtbot):
    from PySide6.QtCore import QPoint, Qt

    window = four_bar
    plotter = window.plotter
    before_camera = np.array(plotter.camera.position)
    before = grab_array(plotter)
    center = QPoint(plotter.width() // 2, plotter.height() // 2)
    qtbot.mousePress(plotter, Qt.MouseButton.LeftButton, pos=center)
    for step in range(1, 6):
        qtbot.mouseMove(plotter, center + QPoint(20 * step, 5 * step))
    qtbot.mouseRelease(plotter, Qt.MouseButton.LeftButton, pos=center + QPoint(100, 25))
    qtbot.wait(50)
    after_camera = np.array(plotter.camera.position)
    assert np.linalg.norm(after_camera - before_camera) > 1e-3 * np.linalg.norm(before_camera)
    after = grab_array(plotter)
    assert np.any(before != after, axis=2).sum() > 100, "the painted view did not follow"
    # a drag is not a click: nothing got selected
    assert window.viewport.selected is None


def test_repainting_a_label_does_not_render_the_scene(four_bar, qtbot):
    window = four_bar
    viewport = window.viewport
    viewport.render_now()
    qtbot.wait(50)
    rendered = viewport.frames_rendered
    for i in range(5):
        window.time_label.setText(f"t = {i}")
        window.progress.setValue(100 * i)
        window.time_label.repaint()
        qtbot.wait(5)
    assert viewport.frames_rendered == rendered

"""The workbench as a new user meets it, under a real X server: the model locked while a run
streams, New and Open starting clean, readable plots, joint axes from the work plane, the
start view and building aids, typed joint points, a camera that keeps the mechanism in
view, flexible deformation drawn larger, and the small things (messages, wording, export
folders, the time slider, example titles, the title after Save As, the step-size warning).
Each test clicks, types or runs and checks what the user sees."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from app.builder.editor import EditRefused
from app.builder.picking import project
from app.plots import NO_RESULTS

pytestmark = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
Y = (0.0, 1.0, 0.0)

#: A box coasting along x at 2 m/s without gravity: 4 m in 2 s, far out of its first view.
COASTING_BOX = {
    "biela": 1,
    "name": "Coasting box",
    "gravity": [0, 0, 0],
    "bodies": [
        {
            "name": "cart",
            "mass": 1.0,
            "inertia": [0.01, 0.01, 0.01],
            "position": [0, 0, 0],
            "velocity": [2, 0, 0],
            "shapes": [{"type": "box", "center": [0, 0, 0], "size": [0.2, 0.2, 0.2]}],
        }
    ],
    "solver": {"analysis": "dynamic", "dt": 0.01, "t_end": 2.0, "output_dt": 0.02},
}


@pytest.fixture(scope="module")
def window(qapp):
    """One workbench for the module (building VTK windows is the slow part)."""
    from app.main_window import MainWindow

    w = MainWindow()
    w.resize(1400, 880)
    w.show()
    qapp.processEvents()
    yield w
    if w.runner.running:
        w.runner.wait()
    w.document.undo_stack.setClean()
    w.close()


@pytest.fixture
def workbench(window, qtbot, message_boxes):
    """The shared window: no run going, no unsaved changes, normal layout, Select tool."""
    if window.runner.running:
        window.runner.wait()
        qtbot.waitUntil(lambda: not window.runner.running, timeout=10_000)
    window.document.undo_stack.setClean()
    window.plot_sizer.set_maximised(False)
    window.resize(1400, 880)
    qtbot.wait(50)
    yield window
    if window.runner.running:
        window.stop_simulation()
        qtbot.waitUntil(lambda: not window.runner.running, timeout=30_000)
    window.build.set_tool("select")
    window.document.undo_stack.setClean()


def run_and_wait(qtbot, window, timeout_ms: int = 180_000, **overrides):
    with qtbot.waitSignal(window.run_finished, timeout=timeout_ms) as blocker:
        assert window.run_simulation(**overrides)
    return blocker.args[0]


def click_button(qtbot, window, action) -> None:
    """Click the toolbar button of ``action`` (main or Build toolbars)."""
    build = window.build
    for toolbar in (window.toolbar, build.actions_toolbar, build.toolbar, build.options_toolbar):
        button = toolbar.widgetForAction(action)
        if button is not None and button.isVisible():
            qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
            return
    raise AssertionError(f"no visible toolbar button for {action.text()}")


def view_pixel(window, point) -> QPoint:
    plotter = window.viewport.plotter
    x, y = project(plotter, point)
    assert 0 <= x < plotter.width() and 0 <= y < plotter.height(), (point, x, y)
    return QPoint(round(x), round(y))


def click_point(qtbot, window, point, button=Qt.MouseButton.LeftButton) -> None:
    qtbot.mouseClick(window.viewport.plotter, button, pos=view_pixel(window, point))


def type_at(qtbot, window, text: str) -> None:
    """Type coordinates in the Build options' "at" field and press Enter."""
    field = window.build.coordinates
    field.clear()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def plot_pixel(plot, x: float, y: float) -> QPoint:
    """Where the data point (x, y) of a plot is drawn, in its widget's pixels."""
    scene_pos = plot.view.mapViewToScene(QPointF(x, y))
    return plot.widget.mapFromScene(scene_pos)


def grab(widget) -> np.ndarray:
    from PySide6.QtGui import QImage

    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    w, h = image.width(), image.height()
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(h, image.bytesPerLine())
    return rows[:, : 3 * w].reshape(h, w, 3).copy()


def shoot(window, screenshot_dir, name: str) -> None:
    window.viewport.render_now()
    window.grab().save(str(screenshot_dir / name), "PNG")


# -- editing during a run ------------------------------------------------------------------------


def test_the_model_is_locked_while_a_run_streams_and_playback_moves_the_mechanism_after(
    qtbot, workbench, message_boxes, screenshot_dir
):
    from app.builder import shapes
    from solver.model.io import model_to_json

    window = workbench
    build = window.build
    assert window.open_model(EXAMPLES / "four_bar_spatial.json")
    before = model_to_json(window.document.model)
    assert window.run_simulation(formulation="lagrange_baumgarte", t_end=60.0)
    qtbot.waitUntil(
        lambda: window.run_data is not None and len(window.run_data) > 5, timeout=60_000
    )

    box_button = build.toolbar.widgetForAction(build.tool_actions["box"])
    assert not box_button.isEnabled()
    qtbot.mouseClick(box_button, Qt.MouseButton.LeftButton)
    assert build.tools.tool == "select"
    assert not build.coordinates.isEnabled() and not build.form.isEnabled()
    assert not window.undo_action.isEnabled() and not build.delete_action.isEnabled()
    assert "locked while the run streams" in build.problems.text()
    with pytest.raises(EditRefused, match="locked while the run streams"):
        build.editor.add(shapes.box("extra", (0.5, 0.5, 0.5), (0.1, 0.1, 0.1)))
    click_point(qtbot, window, (0.0, 0.0, 0.0), Qt.MouseButton.RightButton)
    menu = build.tools.context_menu
    assert [a.text() for a in menu.actions()][0].startswith("Not now: the model is locked")
    menu.close()
    assert model_to_json(window.document.model) == before
    shoot(window, screenshot_dir, "locked_during_run.png")

    with qtbot.waitSignal(window.run_finished, timeout=30_000):
        window.stop_simulation()
    # the Edit panel drops the lock's note at once, before the model check comes back
    assert "locked" not in build.problems.text()
    run = window.run_data
    assert model_to_json(run.model) == before  # the results belong to this model
    assert box_button.isEnabled() and build.coordinates.isEnabled()
    assert window.undo_action.isEnabled() is window.document.undo_stack.canUndo()

    # after Stop, playback moves the mechanism with the time
    images = []
    for t in (0.0, float(run.t[-1])):
        window.show_time(t)
        window.viewport.render_now()
        assert window.viewport._current_row[0] == pytest.approx(run.t[run.index_at(t)])
        images.append(window.viewport.image())
    assert np.any(images[0] != images[1], axis=2).sum() > 50


# -- New and Open ------------------------------------------------------------------------------------


def test_new_and_open_reset_results_plots_status_and_messages(qtbot, workbench):
    window = workbench
    assert window.open_model(EXAMPLES / "pendulum.json")
    assert run_and_wait(qtbot, window, t_end=0.5).status == "ok"
    window.plots.add_quantity("bob.x")
    energy = window.plots.energy
    energy.view.sigRangeChangedManually.emit([True, True])  # as a wheel zoom does
    energy.view.setXRange(0.1, 0.2, padding=0)
    assert window.plots.info.text().startswith("51 frames")
    assert window.time_label.text() != "t = –" and window.progress.value() == 1000
    assert "Simple pendulum" in window.messages.toPlainText()

    click_button(qtbot, window, window.new_action)
    assert window.plots.info.text() == NO_RESULTS
    assert [p.spec.key for p in window.plots.plots] == ["energy", "constraints"]
    assert all(p.points() == 0 for p in window.plots.plots)
    assert all(not p.user_range and p.view.autoRangeEnabled()[0] for p in window.plots.plots)
    assert (window.time_label.text(), window.wall_label.text()) == ("t = –", "wall –")
    assert (window.rtf_label.text(), window.newton_label.text()) == ("RTF –", "Newton –")
    assert window.fps_label.text() == "" and window.progress.value() == 0
    text = window.messages.toPlainText()
    assert "Simple pendulum" not in text and "degrees of freedom" not in text
    assert window.messages.lines()[-1] == "new model"
    assert not window.playback.isEnabled()

    title = "Planar four-bar (Villar Alegría (2018) §1.5)"
    action = next(a for a in window.examples_menu.actions() if a.text() == title)
    action.trigger()
    text = window.messages.toPlainText()
    assert 'model "Planar four-bar' in text and "new model" not in text
    assert window.windowTitle().startswith("Planar four-bar")


# -- plots ------------------------------------------------------------------------------------------


def test_legends_sit_beside_the_data_and_show_every_curve(qtbot, workbench, screenshot_dir):
    window = workbench
    assert window.open_model(EXAMPLES / "pendulum.json")
    assert run_and_wait(qtbot, window, t_end=1.0).status == "ok"
    qtbot.wait(100)
    for plot in window.plots.plots:
        legend = plot.legend.sceneBoundingRect()
        assert not legend.intersects(plot.view.sceneBoundingRect()), plot.spec.key
        assert plot.widget.sceneRect().contains(legend), plot.spec.key
        labels = [label.text for _sample, label in plot.legend.items]
        assert labels == [name for _key, name in plot.spec.curves]
        for _sample, label in plot.legend.items:
            assert label.isVisible()
            assert plot.widget.sceneRect().contains(label.sceneBoundingRect())
    assert window.plots_dock.height() >= 0.25 * window.height()
    shoot(window, screenshot_dir, "plots_after_run.png")


def test_the_plot_strip_keeps_its_share_when_the_window_grows(qtbot, workbench):
    window = workbench
    share = window.plots_dock.height() / window.height()
    assert 0.25 <= share <= 0.35
    window.resize(1600, 1100)
    qtbot.waitUntil(lambda: abs(window.plots_dock.height() / window.height() - share) < 0.03)
    # the user drags the separator: that share is kept from then on
    window.resizeDocks([window.plots_dock], [450], Qt.Orientation.Vertical)
    qtbot.wait(50)
    dragged = window.plots_dock.height() / window.height()
    window.resize(1300, 800)
    qtbot.waitUntil(lambda: abs(window.plots_dock.height() / window.height() - dragged) < 0.03)


def test_a_click_on_a_plot_seeks_and_autoscale_undoes_a_zoom(qtbot, workbench):
    from PySide6.QtCore import QPointF as P
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    window = workbench
    assert window.open_model(EXAMPLES / "four_bar_planar.json")  # kinematic
    assert run_and_wait(qtbot, window, t_end=3.0).status == "ok"
    run = window.run_data
    plot = window.plots.constraints
    (_x0, _x1), (y0, y1) = plot.view.viewRange()
    pos = plot_pixel(plot, 0.3, 0.5 * (y0 + y1))
    qtbot.mouseClick(plot.widget.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert abs(window.playback.index - run.index_at(0.3)) <= 1
    assert window.plots.energy.cursor.value() == pytest.approx(0.3, abs=0.02)
    assert window.viewport._current_row[0] == pytest.approx(0.3, abs=0.02)

    # a plot added after the run spans the whole run at once (not the 0 … 1 s of an empty
    # plot, then more as the view repaints)
    added = window.plots.add_quantity("P2.x")
    (a0, a1), _ = added.view.viewRange()
    assert a0 <= 0.0 and a1 >= 3.0
    # an x-y plot (its x far from the empty plot's 0 … 1): drawn whole, and a click seeks
    # to the time of the nearest point
    xy = window.plots.add_quantity("P2.y", "P2.x")
    qtbot.wait(100)
    (x0, x1), _ = xy.view.viewRange()
    assert x0 <= run.quantity("P2.x").min() and run.quantity("P2.x").max() <= x1
    from PySide6.QtGui import QColor

    color = QColor(xy.spec.colors[0])
    rgb = [color.red(), color.green(), color.blue()]
    drawn = (np.linalg.norm(grab(xy.widget).astype(float) - rgb, axis=2) < 40).sum()
    assert drawn > 200, drawn  # the curve is drawn (an x-y curve clipped to x drew nothing)
    index = 40
    target = plot_pixel(xy, run.quantity("P2.x")[index], run.quantity("P2.y")[index])
    qtbot.mouseClick(xy.widget.viewport(), Qt.MouseButton.LeftButton, pos=target)
    # the crank turns round: the same point comes back, and any of its times will do
    seeked = window.playback.index
    px, py = run.quantity("P2.x"), run.quantity("P2.y")
    assert abs(px[seeked] - px[index]) < 0.05 and abs(py[seeked] - py[index]) < 0.05
    assert seeked != 0 and window.viewport._current_row[0] == pytest.approx(run.t[seeked])

    energy = window.plots.energy
    full = energy.view.viewRange()[0]
    center = plot_pixel(energy, 0.5, float(np.mean(energy.view.viewRange()[1])))
    for _ in range(3):  # the wheel zooms in
        event = QWheelEvent(
            P(center),
            P(energy.widget.viewport().mapToGlobal(center)),
            QPoint(0, 0),
            QPoint(0, 120),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QApplication.sendEvent(energy.widget.viewport(), event)
    zoomed = energy.view.viewRange()[0]
    assert energy.user_range and zoomed[1] - zoomed[0] < 0.8 * (full[1] - full[0])
    window.plots.refresh()  # a refresh keeps the user's zoom
    assert energy.view.viewRange()[0] == pytest.approx(zoomed)
    qtbot.mouseClick(window.plots.autoscale_button, Qt.MouseButton.LeftButton)
    assert energy.view.viewRange()[0] == pytest.approx(full, abs=0.02)
    assert not energy.user_range


def test_plot_export_at_a_chosen_size_without_the_cursor(qtbot, workbench, tmp_path):
    from PIL import Image
    from PySide6.QtWidgets import QDialogButtonBox

    from app.theme import CURSOR_COLOR

    window = workbench
    assert window.open_model(EXAMPLES / "pendulum.json")
    assert run_and_wait(qtbot, window, t_end=1.0).status == "ok"
    window.show_time(0.5)
    plot = window.plots.constraints  # orange and blue curves: the cursor is the red line

    def export(name: str, width: int, height: int, cursor: bool) -> np.ndarray:
        dialog = window.export_plot_dialog(plot)
        dialog.path_edit.setText(str(tmp_path / name))
        dialog.width_box.setValue(width)
        dialog.height_box.setValue(height)
        dialog.cursor_box.setChecked(cursor)
        save = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save)
        qtbot.mouseClick(save, Qt.MouseButton.LeftButton)
        with Image.open(tmp_path / name) as image:
            assert image.size == (width, height)
            return np.asarray(image.convert("RGB"), dtype=float)

    def cursor_columns(pixels: np.ndarray) -> int:
        from PySide6.QtGui import QColor

        c = QColor(CURSOR_COLOR)
        near = np.linalg.norm(pixels - [c.red(), c.green(), c.blue()], axis=2) < 60
        return int((near.sum(axis=0) > 0.4 * len(pixels)).sum())

    plain = export("constraints.png", 900, 500, cursor=False)
    assert cursor_columns(plain) == 0
    marked = export("with_cursor.png", 900, 500, cursor=True)
    assert cursor_columns(marked) >= 1
    big = export("big.png", 2400, 1000, cursor=False)
    assert big.shape[:2] == (1000, 2400)
    assert (tmp_path / "constraints.png").exists() and plot.cursor.isVisible()  # on screen


def test_maximised_plots_fill_the_window_in_a_grid_and_come_back(qtbot, workbench, screenshot_dir):
    window = workbench
    assert window.open_model(EXAMPLES / "pendulum.json")
    assert run_and_wait(qtbot, window, t_end=3.0).status == "ok"
    window.plots.add_quantity("bob.x")
    xy = window.plots.add_quantity("bob.y", "bob.x")  # x swings back and forth
    window.show_time(1.2)
    before = window.plots_dock.height()
    qtbot.mouseClick(window.plots.maximise_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.plots_dock.height() > 0.8 * window.height())
    assert not window.centralWidget().isVisible() and not window.solver_dock.isVisible()
    rows = window.plots.rows()
    assert [row.count() for row in rows] == [2, 2]
    assert window.maximise_plots_action.isChecked()
    qtbot.wait(100)
    shoot(window, screenshot_dir, "plots_maximised.png")
    from PySide6.QtGui import QColor

    color = QColor(xy.spec.colors[0])
    rgb = [color.red(), color.green(), color.blue()]
    drawn = (np.linalg.norm(grab(xy.widget).astype(float) - rgb, axis=2) < 40).sum()
    assert drawn > 500, drawn  # the whole curve, not only its legend
    window.maximise_plots_action.trigger()  # View ▸ Maximise plots again
    qtbot.waitUntil(lambda: abs(window.plots_dock.height() - before) < 10)
    assert window.centralWidget().isVisible() and window.solver_dock.isVisible()
    assert [row.count() for row in window.plots.rows()] == [4]
    window.plots.remove_user_plots()


# -- building --------------------------------------------------------------------------------------


def two_spheres(qtbot, window) -> None:
    """New, then two spheres typed in: "s1" at (0.3, 0, 0), "s2" at (0.6, 0, 0.2)."""
    click_button(qtbot, window, window.new_action)
    click_button(qtbot, window, window.build.tool_actions["sphere"])
    type_at(qtbot, window, "0.3, 0, 0")
    type_at(qtbot, window, "0.6, 0, 0.2")
    assert [b.name for b in window.document.model.bodies] == ["sphere1", "sphere2"]


def test_a_joint_s_axis_is_the_work_plane_normal_unless_face_is_chosen(qtbot, workbench):
    window = workbench
    build = window.build
    two_spheres(qtbot, window)
    assert build.tools.axis_mode == "plane" and build.axis_actions["plane"].isChecked()
    # a point on the first sphere's surface, off its centre: its face normal is oblique
    surface = np.array([0.3, 0.0, 0.0]) + 0.05 * np.array([0.373, -0.697, 0.612]) / 0.999
    click_button(qtbot, window, build.tool_actions["revolute"])
    click_point(qtbot, window, surface)
    point, axis = build.tools.axis_preview  # the arrow, shown before the second click
    assert np.allclose(axis, Y) and len(build.tools._markers) == 2
    click_point(qtbot, window, (0.6, 0.0, 0.2))
    joint = window.document.model.joints[-1]
    assert (joint.type, joint.body1, joint.body2) == ("revolute", "sphere1", "sphere2")
    assert joint.axis == Y
    assert build.tools.axis_preview is None

    click_button(qtbot, window, build.axis_actions["face"])
    click_button(qtbot, window, build.tool_actions["revolute"])
    click_point(qtbot, window, surface)
    _point, preview = build.tools.axis_preview
    click_point(qtbot, window, (0.6, 0.0, 0.2))
    joint = window.document.model.joints[-1]
    axis = np.asarray(joint.axis)
    assert np.allclose(axis, preview) and abs(np.linalg.norm(axis) - 1) < 1e-12
    radial = (surface - (0.3, 0.0, 0.0)) / np.linalg.norm(surface - (0.3, 0.0, 0.0))
    assert abs(axis @ Y) < 0.95 and axis @ radial > 0.9  # the sphere's facet, not the plane
    click_button(qtbot, window, build.axis_actions["plane"])


def test_new_starts_in_an_iso_view_of_the_grid_with_origin_cursor_and_rubber_band(
    qtbot, workbench, screenshot_dir
):
    window = workbench
    viewport = window.viewport
    click_button(qtbot, window, window.new_action)
    camera = viewport.plotter.camera
    direction = np.asarray(camera.position) - np.asarray(camera.focal_point)
    direction /= np.linalg.norm(direction)
    elevation = np.degrees(np.arcsin(direction[2]))
    assert 20 < elevation < 50  # not edge-on
    assert abs(direction[0]) > 0.3 and abs(direction[1]) > 0.3  # isometric
    assert np.allclose(camera.focal_point, 0.0, atol=1e-9)
    # the 2 m floor grid is in view and fills a good part of it
    corners = [view_pixel(window, (x, y, 0.0)) for x in (-1, 1) for y in (-1, 1)]
    xs = [c.x() for c in corners]
    assert max(xs) - min(xs) > 0.4 * viewport.plotter.width()
    for name in ("origin_x", "origin_y", "origin_z"):
        assert viewport.plotter.actors[name].GetVisibility()
    assert window.toggle_actions["origin"].isChecked()

    # the cursor's position on the work plane (XZ) in the status bar
    qtbot.mouseMove(viewport.plotter, view_pixel(window, (0.2, 0.0, 0.1)))
    qtbot.waitUntil(lambda: window.status.cursor.text().startswith("x 0.200  y 0.000  z 0.100"))

    # a rod: a line follows the cursor from the first click to the second
    click_button(qtbot, window, window.build.tool_actions["rod"])
    click_point(qtbot, window, (0.0, 0.0, 0.0))
    qtbot.mouseMove(viewport.plotter, view_pixel(window, (0.4, 0.0, 0.2)))
    qtbot.waitUntil(lambda: window.build.tools.band_points() is not None)
    np.testing.assert_allclose(window.build.tools.band_points(), [(0, 0, 0), (0.4, 0, 0.2)])
    shoot(window, screenshot_dir, "rubber_band.png")
    click_point(qtbot, window, (0.4, 0.0, 0.2))
    assert window.build.tools.band_points() is None
    rod = window.document.model.bodies[-1]
    assert (rod.shapes[0].start, rod.shapes[0].end) == ((0.0, 0.0, 0.0), (0.4, 0.0, 0.2))


def test_typed_coordinates_with_a_joint_tool_place_the_joint_not_a_box(qtbot, workbench):
    window = workbench
    build = window.build
    two_spheres(qtbot, window)
    click_button(qtbot, window, build.tool_actions["revolute"])
    type_at(qtbot, window, "0.3, 0, 0")  # the first sphere's centre
    assert window.document.model.joints == [] and build.tools.pending
    type_at(qtbot, window, "0.6, 0, 0.2")  # the second sphere
    model = window.document.model
    assert [b.name for b in model.bodies] == ["sphere1", "sphere2"]  # no box
    joint = model.joints[0]
    assert (joint.type, joint.body1, joint.body2) == ("revolute", "sphere1", "sphere2")
    assert (joint.point, joint.axis) == ((0.3, 0.0, 0.0), Y)
    # a point off every body is ground
    type_at(qtbot, window, "0.6, 0, 0.2")
    type_at(qtbot, window, "-0.5, 0, 0.5")
    joint = window.document.model.joints[1]
    assert (joint.body1, joint.body2, joint.point) == ("ground", "sphere2", (0.6, 0.0, 0.2))
    # with the Select tool typing places nothing, and says why
    click_button(qtbot, window, build.tool_actions["select"])
    type_at(qtbot, window, "1, 1, 1")
    assert len(window.document.model.bodies) == 2
    assert "choose a Build tool" in window.statusBar().currentMessage()


# -- the camera and flexible bodies -------------------------------------------------------------


def test_fit_during_runs_keeps_the_mechanism_in_view_and_follow_body_tracks_it(
    qtbot, workbench, tmp_path, write_model
):
    window = workbench
    viewport = window.viewport
    path = write_model(tmp_path / "coasting.json", COASTING_BOX)
    assert window.open_model(path)
    assert window.fit_run_action.isChecked()
    assert run_and_wait(qtbot, window).status == "ok"
    run = window.run_data
    end = run.row(len(run) - 1)
    assert end[run.columns.index("cart.x")] == pytest.approx(4.0, abs=1e-6)
    assert viewport.points_in_view([end[1:4]], margin=1.0)  # it drove 20 sizes away

    window.fit_run_action.setChecked(False)
    window.reset()
    window.fit_action.trigger()  # F: the box at t = 0
    focal = np.asarray(viewport.plotter.camera.focal_point).copy()
    assert run_and_wait(qtbot, window).status == "ok"
    np.testing.assert_allclose(viewport.plotter.camera.focal_point, focal)  # not refitted
    assert not viewport.points_in_view([end[1:4]])
    window.fit_run_action.setChecked(True)

    window.show_time(0.0)
    window._fill_follow_menu()
    action = next(a for a in window.follow_menu.actions() if a.text() == "cart")
    action.trigger()
    offsets = []
    for t in (0.0, 1.0, 2.0):
        window.show_time(t)
        window.viewport.render_now()
        row = run.row(run.index_at(t))
        offsets.append(np.asarray(viewport.plotter.camera.focal_point) - row[1:4])
    np.testing.assert_allclose(offsets[1], offsets[0], atol=1e-9)
    np.testing.assert_allclose(offsets[2], offsets[0], atol=1e-9)
    assert viewport.points_in_view([run.row(len(run) - 1)[1:4]])
    window.follow_body(None)


def test_flexible_deformation_is_drawn_larger_on_request(qtbot, workbench, screenshot_dir):
    from app import scene

    window = workbench
    assert window.open_model(EXAMPLES / "ancf_cantilever_e1.json")
    assert window.deformation_menu.isEnabled()
    assert run_and_wait(qtbot, window, t_end=0.3).status == "ok"
    viewport = window.viewport
    body, line, _tube = viewport.flexible[0]

    def bending() -> float:
        window.viewport.render_now()
        drawn = np.asarray(line.points)
        reference = scene.node_curve(viewport.cmap, viewport.reference, body)
        rot, shift = scene.rigid_fit(reference, drawn)
        return float(np.abs(drawn - (reference @ rot.T + shift)).max())

    true = bending()
    assert true > 1e-7  # small: invisible at × 1
    next(a for a in window.deformation_menu.actions() if a.text() == "× 100").trigger()
    assert viewport.deformation_scale == 100.0
    assert bending() == pytest.approx(100 * true, rel=0.02)
    shoot(window, screenshot_dir, "cantilever_deformation_x100.png")
    window.deformation_actions[1.0].trigger()
    assert bending() == pytest.approx(true, rel=1e-6)


# -- small things -----------------------------------------------------------------------------------


def test_messages_show_the_newest_line_in_a_panel_of_useful_size(qtbot, workbench):
    window = workbench
    assert window.messages_dock.height() >= 250 and window.messages_dock.width() >= 250
    for k in range(120):
        window.log_message(f"line {k}")
    bar = window.messages.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == bar.maximum()
    bar.setValue(0)  # the user scrolls up; a new message brings the newest line back
    window.log_message("the newest")
    assert bar.value() == bar.maximum()
    assert window.messages.lines()[-1] == "the newest"


def test_one_frame_is_one_frame(qtbot, workbench):
    window = workbench
    assert window.open_model(EXAMPLES / "four_bar_planar.json")
    with qtbot.waitSignal(window.run_finished, timeout=60_000):
        window.assemble_action.trigger()
    assert "done: 1 frame in" in window.statusBar().currentMessage()
    assert window.plots.info.text().startswith("1 frame, ")
    assert "1 frames" not in window.messages.toPlainText()


def test_an_error_names_the_file_once(workbench, invalid_model_file, message_boxes):
    window = workbench
    assert not window.open_model(invalid_model_file)
    ((_kind, _title, text),) = [m for m in message_boxes if m[0] == "critical"]
    assert text.count("broken.json") == 1
    assert window.messages.lines()[-1].count("broken.json") == 1


def test_export_dialogs_start_in_the_last_export_folder(qtbot, workbench, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    window = workbench
    starts: list[Path] = []
    answers = [tmp_path / "results" / "run.csv", tmp_path / "results" / "view.png"]
    (tmp_path / "results").mkdir()

    def ask(parent, title, start, filters):
        starts.append(Path(start).parent)
        return str(answers.pop(0)), filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(ask))
    window.settings.qs.remove("folders/exports")
    assert window.open_model(EXAMPLES / "pendulum.json")
    assert run_and_wait(qtbot, window, t_end=0.1).status == "ok"
    window.export_csv_action.trigger()
    assert starts[0].resolve() != EXAMPLES.resolve()  # never into the shipped examples
    assert (tmp_path / "results" / "run.csv").exists()
    window.export_screenshot_action.trigger()
    assert starts[1] == (tmp_path / "results").resolve()
    dialog = window.export_plot_dialog(window.plots.energy)
    assert Path(dialog.path_edit.text()).parent == (tmp_path / "results").resolve()
    dialog.reject()


def test_the_time_slider_jumps_to_the_click(qtbot, workbench):
    from PySide6.QtWidgets import QStyle, QStyleOptionSlider

    window = workbench
    assert window.open_model(EXAMPLES / "pendulum.json")
    assert run_and_wait(qtbot, window, t_end=2.0).status == "ok"
    slider = window.playback.slider
    option = QStyleOptionSlider()
    slider.initStyleOption(option)
    groove = slider.style().subControlRect(
        QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderGroove, slider
    )
    window.show_time(0.0)
    x = groove.left() + round(0.8 * groove.width())
    qtbot.mouseClick(slider, Qt.MouseButton.LeftButton, pos=QPoint(x, groove.center().y()))
    n = len(window.run_data)
    assert abs(window.playback.index - 0.8 * (n - 1)) <= 0.03 * n  # not a page step


def test_save_as_names_a_new_model_after_its_file(qtbot, workbench, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    window = workbench
    two_spheres(qtbot, window)
    assert window.windowTitle() == "Untitled * — Biela"
    target = tmp_path / "my_rig.json"
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), ""))
    )
    window.save_as_action.trigger()
    assert window.windowTitle() == "my_rig — Biela"
    assert window.open_model(target)
    assert window.windowTitle() == "my_rig — Biela"


def test_the_title_s_modified_mark_gives_no_qt_warnings(qtbot, workbench, qtlog, tmp_path):
    window = workbench
    assert window.open_model(EXAMPLES / "pendulum.json")
    window.document.set_solver("dt", 0.002)
    assert window.windowTitle().startswith("Simple pendulum (IFToMM A01) *")
    window.document.save(tmp_path / "p.json")
    window.undo_action.trigger()
    click_button(qtbot, window, window.new_action)
    warnings = [r.message for r in qtlog.records if "setWindowModified" in r.message]
    assert warnings == []


def test_a_stable_step_that_drifts_badly_is_warned_about(qtbot, workbench):
    window = workbench
    assert window.open_model(EXAMPLES / "pendulum.json")
    outcome = run_and_wait(qtbot, window, dt=0.2, t_end=10.0)
    assert outcome.status == "ok"
    summary = outcome.summary
    assert summary["dt"] < summary["dt_max_estimate"]  # stable …
    assert summary["max_energy_drift"] > 0.5  # … but 1.6 J of drift
    text = window.statusBar().currentMessage()
    assert "warning: the energy drifted by" in text
    assert f"largest stable step ≈ {summary['dt_max_estimate']:.3g} s" in text
    assert "try Δt ≤" in text
    assert any("energy drifted" in line for line in window.messages.lines())
    outcome = run_and_wait(qtbot, window, dt=0.01, t_end=2.0)
    assert outcome.status == "ok"
    assert "warning" not in window.statusBar().currentMessage()


def test_passive_freedoms_of_the_solver_s_check_are_not_counted_while_building(qtbot, workbench):
    """The spatial four-bar's coupler spins freely between its two spherical joints: the
    solver's check names that passive freedom, and the builder's DOF leaves it out."""
    from solver import CheckReport

    if not hasattr(CheckReport, "passive_freedoms"):
        pytest.skip("this solver's check does not report passive freedoms yet")
    window = workbench
    assert window.open_model(EXAMPLES / "four_bar_spatial.json")
    qtbot.waitUntil(lambda: window.build.report is not None)
    report = window.build.report
    assert report.passive and "coupler" in report.passive[0]
    assert report.active_dof == report.dof - 1 == 0  # the motor drives the crank
    assert window.dof_label.text() == f"DOF 0 (Grübler {report.grubler}, 1 passive)"
    assert "coupler" in window.build.problems.text()
    assert "passive freedom" in window.dof_label.toolTip()

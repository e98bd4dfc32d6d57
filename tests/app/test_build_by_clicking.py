"""Acceptance of model building by mouse: a planar four-bar built only with mouse clicks on the
toolbar and the 3D view (at the screen projections of its points), run in the GUI, DOF 1, moving;
the saved file gives the same results in the CLI; undo of every step empties the model and redo
restores it exactly."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from solver.model.io import load_model, model_to_json

pytestmark = pytest.mark.gui

A = (0.0, 0.0, 0.0)
B = (0.2, 0.0, 0.4)
C = (0.9, 0.0, 0.5)
D = (1.0, 0.0, 0.0)
EMPTY = (-0.3, 0.0, -0.2)  # a spot of the work plane away from the links: ground


def click_tool(qtbot, window, action) -> None:
    """Click the toolbar button of ``action``."""
    build = window.build
    for toolbar in (window.toolbar, build.actions_toolbar, build.toolbar, build.options_toolbar):
        button = toolbar.widgetForAction(action)
        if button is not None and button.isVisible():
            qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
            return
    raise AssertionError(f"no visible toolbar button for {action.text()}")


def click_point(qtbot, window, point, button=Qt.MouseButton.LeftButton) -> None:
    """Click the 3D view where the global ``point`` is drawn."""
    from app.builder.picking import project

    plotter = window.viewport.plotter
    x, y = project(plotter, point)
    assert 0 <= x < plotter.width() and 0 <= y < plotter.height(), (point, x, y)
    qtbot.mouseClick(plotter, button, pos=QPoint(round(x), round(y)))


def mid(p, q):
    return tuple((np.asarray(p) + np.asarray(q)) / 2)


def build_four_bar(qtbot, window, last_joint: str, shot=None) -> list[str]:
    """Click a four-bar together; returns the undo texts of the steps. ``shot``: a PNG path
    for a screenshot of the build in progress (the first revolute half-placed)."""
    build = window.build
    click_tool(qtbot, window, window.new_action)
    click_tool(qtbot, window, build.tool_actions["rod"])
    for p, q in ((A, B), (B, C), (C, D)):
        click_point(qtbot, window, p)
        click_point(qtbot, window, q)
    click_tool(qtbot, window, build.axis_actions["Y"])
    click_tool(qtbot, window, build.tool_actions["revolute"])
    click_point(qtbot, window, A)  # the crank's end …
    if shot is not None:
        qtbot.wait(200)  # layout, live check
        window.viewport.render_now()
        window.grab().save(str(shot), "PNG")
    click_point(qtbot, window, EMPTY)  # … to ground
    click_point(qtbot, window, B)  # crank-coupler
    click_point(qtbot, window, mid(B, C))
    click_point(qtbot, window, C)  # coupler-rocker
    click_point(qtbot, window, mid(C, D))
    click_tool(qtbot, window, build.tool_actions[last_joint])
    click_point(qtbot, window, D)  # rocker to ground
    click_point(qtbot, window, EMPTY)
    click_tool(qtbot, window, build.tool_actions["select"])
    stack = window.document.undo_stack
    return [stack.text(i) for i in range(stack.count())]


def run_in_gui(qtbot, window, t_end="0.2", dt="0.01"):
    panel = window.solver_panel
    for edit, text in ((panel.dt, dt), (panel.t_end, t_end)):
        edit.setText(text)
        edit.editingFinished.emit()
    with qtbot.waitSignal(window.run_finished, timeout=120_000) as blocker:
        click_tool(qtbot, window, window.run_action)
    return blocker.args[0]


def test_four_bar_by_clicking_runs_and_matches_cli(
    qtbot, main_window, tmp_path, screenshot_dir, message_boxes
):
    window = main_window
    steps = build_four_bar(qtbot, window, "point_on_line", screenshot_dir / "build_in_progress.png")
    model = window.document.model
    assert [b.name for b in model.bodies] == ["rod1", "rod2", "rod3"]
    rods = {b.name: (b.shapes[0].start, b.shapes[0].end) for b in model.bodies}
    assert rods == {"rod1": (A, B), "rod2": (B, C), "rod3": (C, D)}
    joints = [(j.type, j.body1, j.body2, j.point, j.axis) for j in model.joints]
    y = (0.0, 1.0, 0.0)
    assert joints == [
        ("revolute", "ground", "rod1", A, y),
        ("revolute", "rod1", "rod2", B, y),
        ("revolute", "rod2", "rod3", C, y),
        ("point_on_line", "ground", "rod3", D, y),
    ]
    qtbot.waitUntil(lambda: window.build.report is not None)
    report = window.build.report
    assert (report.dof, report.grubler, report.redundant) == (1, 1, 0)
    assert window.dof_label.text() == "DOF 1 (Grübler 1)"
    window.viewport.render_now()
    window.grab().save(str(screenshot_dir / "build_four_bar_by_clicking.png"), "PNG")

    # right-click the coupler's middle ▸ "Trace this point of rod2" (clicked in the menu)
    click_point(qtbot, window, mid(B, C), Qt.MouseButton.RightButton)
    menu = window.build.tools.context_menu
    qtbot.waitExposed(menu)
    action = next(a for a in menu.actions() if a.text() == "Trace this point of rod2")
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())
    assert [(o.name, o.body, o.point) for o in window.document.model.outputs] == [
        ("P1", "rod2", mid(B, C))
    ]

    outcome = run_in_gui(qtbot, window)
    assert outcome.status == "ok", outcome.message
    trace = next(p for p in window.plots.plots if p.spec.key == "trace_P1")
    x_data, _ = trace.curves["P1.x"].getData()
    assert len(x_data) == len(outcome.result.data) > 10
    result = outcome.result
    x = result.data[:, result.columns.index("rod1.x")]
    z = result.data[:, result.columns.index("rod1.z")]
    assert abs(result.data[-1, 0] - 0.2) < 1e-9
    assert np.hypot(x[-1] - x[0], z[-1] - z[0]) > 1e-3  # it falls under gravity

    path = tmp_path / "four_bar_built.json"
    window.document.save(path)
    assert load_model(path) == window.document.model
    gui_csv = tmp_path / "gui.csv"
    window.export_csv(gui_csv)
    cli_csv = tmp_path / "cli.csv"
    from solver import cli as solver_cli  # the command line's own code, in this process

    assert solver_cli.main(["run", str(path), "--csv", str(cli_csv), "-q"]) == 0
    gui = np.loadtxt(gui_csv, delimiter=",", skiprows=1)
    cli = np.loadtxt(cli_csv, delimiter=",", skiprows=1)
    assert gui_csv.read_text().splitlines()[0] == cli_csv.read_text().splitlines()[0]
    assert gui.shape == cli.shape
    assert np.abs(gui - cli).max() <= 1e-12

    # undo every step: the empty model; redo: the identical model
    built = model_to_json(window.document.model)
    stack = window.document.undo_stack
    assert len(steps) == 7 and stack.count() == 7 + 1 + 2  # a trace, dt and t_end
    while stack.canUndo():
        window.undo_action.trigger()
    m = window.document.model
    assert (m.bodies, m.joints, m.drivers, m.forces, m.outputs) == ([], [], [], [], [])
    while stack.canRedo():
        window.redo_action.trigger()
    assert model_to_json(window.document.model) == built


def test_redundant_four_bar_is_flagged_and_runs(qtbot, main_window, message_boxes):
    """Four revolute joints in 3D: DOF 1 but 3 redundant equations, shown in the status bar,
    the tree and the 3D view with an explanation; it runs with central differences."""
    from app.builder.controller import FLAG_COLOR

    window = main_window
    build_four_bar(qtbot, window, "revolute")
    qtbot.waitUntil(lambda: window.build.report is not None)
    report = window.build.report
    assert (report.dof, report.grubler, report.redundant) == (1, -2, 3)
    assert window.dof_label.text() == "DOF 1 (Grübler -2, 3 redundant)"
    window.tree.clearSelection()  # a selected item is drawn in the selection colour
    for name in ("J1", "J2", "J3", "J4"):
        node = window.tree.item_for("joint", name)
        assert node.foreground(0).color().name() == FLAG_COLOR
        assert "3 redundant constraint equations" in node.toolTip(0)
        actors = window.viewport.items[("joint", name)].actors
        assert all(a.prop.color.hex_rgb == FLAG_COLOR for a in actors)
    assert "central_differences" in window.build.problems.text()

    window.solver_panel.formulation.setCurrentIndex(
        window.solver_panel.formulation.findData("central_differences")
    )
    outcome = run_in_gui(qtbot, window, t_end="0.1")
    assert outcome.status == "ok", outcome.message
    z = outcome.result.data[:, outcome.result.columns.index("rod2.z")]
    assert abs(z[-1] - z[0]) > 1e-3

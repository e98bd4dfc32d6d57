"""The workbench under a real X server: runs in a worker thread, live plots,
an animated viewport, playback, exports, and the document rules (invalid model, unsaved
changes, recent files)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

gui = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))

#: How each example runs (at least) 0.2 s of simulated time quickly in the tests: fully driven models
#: kinematically (their own setting), rigid models with a fast formulation, the rest with
#: their own settings. The Andrews squeezer needs Δt ≤ 1e-4 s (stiff spring, 0.05 s run):
#: 0.2 s of it takes minutes with any formulation, so it runs 5 ms.
RUNS: dict[str, dict] = {
    "andrews_squeezer": {"formulation": "lagrange_baumgarte", "dt": 1e-4, "t_end": 0.005},
    "four_bar_spatial": {"formulation": "lagrange_baumgarte"},
    # 2 steps of 0.1 s barely move it; 2 s (20 steps) shows the motion
    "stiff_pendulum": {"t_end": 2.0},
    # spins in place until the force pulse at 0.6 s tips it (5 mm by 1 s)
    "spinning_top": {"dt": 2e-3, "t_end": 1.0},
}
T_END = 0.2


def run_settings(path: Path) -> dict:
    return {"t_end": T_END, **RUNS.get(path.stem, {})}


def moved_less_than_a_pixel(window, run) -> bool:
    """True when no body point moved by 1/1000 of the model's size between the first and the
    last frame (below a pixel on screen)."""
    from app import scene

    cmap = run.cmap
    cols = [i + k for i in [*cmap.rigid.values(), *cmap.point.values()] for k in range(3)]
    cols += [ix + k for nodes in cmap.nodes.values() for ix, _ in nodes for k in range(3)]
    motion = np.abs(run.data[-1, cols] - run.data[0, cols]).max() if cols else 0.0
    return motion < 1e-3 * scene.model_scale(window.document.model)


def image_array(image) -> np.ndarray:
    from PySide6.QtGui import QImage

    image = image.convertToFormat(QImage.Format.Format_RGB888)
    h, w = image.height(), image.width()
    data = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    # a copy: the array must not outlive the converted image's buffer
    return data.reshape(h, image.bytesPerLine())[:, : 3 * w].reshape(h, w, 3).copy()


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
    """The shared window, without a run going and with no unsaved changes."""
    if window.runner.running:
        window.runner.wait()
        qtbot.waitUntil(lambda: not window.runner.running, timeout=10_000)
    window.document.undo_stack.setClean()
    yield window
    if window.runner.running:
        window.stop_simulation()
        qtbot.waitUntil(lambda: not window.runner.running, timeout=30_000)
    window.document.undo_stack.setClean()


def run_and_wait(qtbot, window, timeout_ms: int = 120_000, **overrides):
    with qtbot.waitSignal(window.run_finished, timeout=timeout_ms) as blocker:
        assert window.run_simulation(**overrides)
    return blocker.args[0]


# -- every example ---------------------------------------------------------------------------


@gui
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_opens_runs_plots_and_animates(qtbot, workbench, message_boxes, path):
    window = workbench
    assert window.open_model(path), message_boxes
    assert window.tree.topLevelItemCount() >= 2
    settings = run_settings(path)
    outcome = run_and_wait(qtbot, window, **settings)

    assert outcome.status == "ok", outcome.message
    run = window.run_data
    assert run is not None and run.result is not None
    assert run.t[-1] == pytest.approx(settings["t_end"], abs=1e-9)
    assert run.t[-1] >= 0.2 - 1e-9 or path.stem == "andrews_squeezer"
    assert len(run) == len(run.result)
    # live plots have points
    assert window.plots.energy.points() == len(run) >= 2
    assert window.plots.constraints.points() == len(run)
    # the viewport is not blank and changes between two times
    window.show_time(0.0)
    window.viewport.render_now()
    first = window.viewport.image()
    window.show_time(float(run.t[-1]))
    window.viewport.render_now()
    last = window.viewport.image()
    assert first.astype(float).var() > 10, "blank viewport"
    changed = np.any(first != last, axis=2).sum()
    if moved_less_than_a_pixel(window, run):
        # e.g. the ANCF cantilever: its tip moves 0.06 mm in 0.2 s; the drawn tube must
        # still follow the nodes.
        assert window.viewport.flexible, "a still model that is not flexible"
    else:
        assert changed > 20, f"the mechanism did not move on screen ({changed} pixels changed)"
    assert not [m for m in message_boxes if m[0] in ("critical", "warning")], message_boxes


# -- run control ----------------------------------------------------------------------------


@gui
def test_pause_resume_and_stop_mid_run(qtbot, workbench, message_boxes):
    window = workbench
    assert window.open_model(ROOT / "examples" / "four_bar_spatial.json")
    assert window.run_simulation(formulation="lagrange_baumgarte", t_end=60.0)
    qtbot.waitUntil(
        lambda: window.run_data is not None and len(window.run_data) > 3, timeout=60_000
    )
    assert not window.run_action.isEnabled() and window.stop_action.isEnabled()

    window.pause_simulation()
    assert window.pause_action.text().replace("&", "") == "Resume"
    qtbot.wait(400)  # a batch already in flight may still arrive
    paused_at = len(window.run_data)
    qtbot.wait(700)
    assert len(window.run_data) == paused_at, "frames arrived while paused"
    assert window.runner.running

    window.resume_simulation()
    qtbot.waitUntil(lambda: len(window.run_data) > paused_at + 2, timeout=60_000)

    with qtbot.waitSignal(window.run_finished, timeout=30_000) as blocker:
        window.stop_simulation()
    outcome = blocker.args[0]
    assert outcome.status == "cancelled"
    run = window.run_data
    assert len(run) > paused_at + 2
    assert len(run.result) == len(run)
    assert run.t[-1] < 60.0
    assert window.run_action.isEnabled() and window.export_csv_action.isEnabled()
    assert window.playback.isEnabled()
    assert not [m for m in message_boxes if m[0] in ("critical", "warning")]


def _stop_a_long_run(qtbot, window, stop):
    """Start a long run of the spatial four-bar, call ``stop()`` once frames stream, and
    return the outcome."""
    assert window.open_model(ROOT / "examples" / "four_bar_spatial.json")
    assert window.run_simulation(formulation="lagrange_baumgarte", t_end=60.0)
    qtbot.waitUntil(
        lambda: window.run_data is not None and len(window.run_data) > 3, timeout=60_000
    )
    with qtbot.waitSignal(window.run_finished, timeout=30_000) as blocker:
        stop()
    return blocker.args[0]


@gui
def test_runs_share_one_solver_process_and_a_lost_one_is_replaced(qtbot, workbench, message_boxes):
    """The solver process serves one run after another (its start-up is paid once); a run
    stopped mid-way leaves it ready for the next; a process that dies mid-run is one line
    for the user, and the next run starts a new one."""
    import signal

    window = workbench
    assert window.open_model(ROOT / "examples" / "pendulum.json")
    assert run_and_wait(qtbot, window, t_end=0.05).status == "ok"
    server = window.runner.server
    pid, runs = server.pid, server.runs
    assert server.process.is_alive()  # idle, waiting for the next run

    assert _stop_a_long_run(qtbot, window, window.stop_simulation).status == "cancelled"
    assert window.open_model(ROOT / "examples" / "pendulum.json")
    outcome = run_and_wait(qtbot, window, t_end=0.05)
    assert outcome.status == "ok", outcome.message
    assert window.run_data.t[-1] == pytest.approx(0.05)  # not stopped by the earlier stop
    assert window.runner.server is server and server.pid == pid and server.runs == runs + 2

    outcome = _stop_a_long_run(qtbot, window, lambda: os.kill(pid, signal.SIGKILL))
    assert outcome.status == "error"
    assert outcome.message == "the solver process ended unexpectedly (exit code -9)"
    assert message_boxes[-1][1:] == ("Cannot run the analysis", outcome.message)
    assert window.open_model(ROOT / "examples" / "pendulum.json")
    assert run_and_wait(qtbot, window, t_end=0.05).status == "ok"
    assert window.runner.server.pid != pid and window.runner.server.runs == 1


@gui
def test_closing_the_window_ends_its_solver_process(qtbot, pendulum_file):
    from app.main_window import MainWindow

    window = MainWindow(model_path=None)
    qtbot.addWidget(window)
    window.show()
    assert window.open_model(pendulum_file)
    assert run_and_wait(qtbot, window, t_end=0.05).status == "ok"
    process = window.runner.server.process
    assert process.is_alive()
    window.close()
    assert not process.is_alive() and window.runner.server is None


@gui
def test_model_tree_click_is_handled_within_200_ms_during_a_long_run(qtbot, workbench):
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    window = workbench
    assert window.open_model(ROOT / "examples" / "four_bar_spatial.json")
    assert window.run_simulation(formulation="lagrange_baumgarte", t_end=60.0)
    qtbot.waitUntil(
        lambda: window.run_data is not None and len(window.run_data) > 3, timeout=60_000
    )
    tree = window.tree
    delays = []
    for category, name in (
        ("body", "coupler"),
        ("joint", "J3"),
        ("body", "follower"),
        ("force", "S1"),
    ):
        item = tree.item_for(category, name)
        tree.scrollToItem(item)  # the dock may be short: click where the item is shown
        pos = QPointF(tree.visualItemRect(item).center())
        seen: dict[str, float] = {}

        def on_selected(c, n, name=name, seen=seen):
            if n == name:
                seen.setdefault("t", time.perf_counter())

        tree.item_selected.connect(on_selected)
        start = time.perf_counter()
        for kind, buttons in (
            (QEvent.Type.MouseButtonPress, Qt.MouseButton.LeftButton),
            (QEvent.Type.MouseButtonRelease, Qt.MouseButton.NoButton),
        ):
            event = QMouseEvent(
                kind,
                pos,
                tree.viewport().mapToGlobal(pos),
                Qt.MouseButton.LeftButton,
                buttons,
                Qt.KeyboardModifier.NoModifier,
            )
            QApplication.postEvent(tree.viewport(), event)  # queued, as a real click is
        qtbot.waitUntil(lambda seen=seen: "t" in seen, timeout=5_000)
        tree.item_selected.disconnect(on_selected)
        delays.append(seen["t"] - start)
        assert window.viewport.selected == (category, name)
        assert window.properties.target is not None and window.properties.target.name == name
        qtbot.wait(150)
    assert window.runner.running, "the run should still be going"
    # The typical click (median of four) within 200 ms; none may wait much longer (a click
    # that lands while a software-GL frame and the window composition are under way waits
    # for them, ~100 ms more on a loaded 2-core machine).
    typical, worst = float(np.median(delays)), max(delays)
    load = os.getloadavg()[0] / (os.cpu_count() or 1)
    if (typical >= 0.2 or worst >= 0.5) and load > 2.0:
        # Software OpenGL on a machine running other jobs: every frame and every window
        # composition is several times slower than on an idle one; the figure is not the GUI's.
        pytest.skip(
            f"machine overloaded (load {load:.1f} per core): click took {worst * 1000:.0f} ms"
        )
    assert typical < 0.2, f"clicks handled after {[round(d * 1000) for d in delays]} ms"
    assert worst < 0.5, f"clicks handled after {[round(d * 1000) for d in delays]} ms"


# -- results ---------------------------------------------------------------------------------


@gui
@pytest.mark.parametrize(
    ("example", "options"),
    [
        ("double_four_bar", ["--t-end", "0.2"]),
        ("four_bar_planar", ["--t-end", "0.2"]),
        ("heavy_top", ["--t-end", "0.2"]),
    ],
)
def test_exported_csv_equals_the_cli(qtbot, workbench, tmp_path, capsys, example, options):
    window = workbench
    path = ROOT / "examples" / f"{example}.json"
    assert window.open_model(path)
    outcome = run_and_wait(qtbot, window, t_end=float(options[1]))
    assert outcome.status == "ok", outcome.message
    gui_csv = window.export_csv(tmp_path / "gui.csv")

    cli_csv = tmp_path / "cli.csv"
    from app.launcher import main as biela  # the `biela` command, in this process

    code = biela(["run", str(path), *options, "--csv", str(cli_csv), "-q"])
    assert code == 0, capsys.readouterr().err
    gui_lines = gui_csv.read_text().splitlines()
    cli_lines = cli_csv.read_text().splitlines()
    assert gui_lines[0] == cli_lines[0], "different columns"
    assert len(gui_lines) == len(cli_lines)
    gui_data = np.array([[float(v) for v in line.split(",")] for line in gui_lines[1:]])
    cli_data = np.array([[float(v) for v in line.split(",")] for line in cli_lines[1:]])
    assert np.abs(gui_data - cli_data).max() <= 1e-12


@gui
def test_solver_failure_shows_time_and_cause_and_keeps_results(qtbot, workbench, message_boxes):
    window = workbench
    assert window.open_model(ROOT / "examples" / "pendulum.json")
    outcome = run_and_wait(qtbot, window, formulation="augmented_lagrangian", dt=0.5, t_end=5.0)
    if outcome.status != "failed":
        pytest.skip(f"this solver version no longer fails on the test case ({outcome.status})")
    warnings = [m for m in message_boxes if m[0] == "warning"]
    assert len(warnings) == 1
    _, title, text = warnings[0]
    assert title == "Simulation failed"
    assert "t = " in text and outcome.message in text
    run = window.run_data
    assert len(run) >= 1 and len(run.result) == len(run)
    assert f"{len(run)} frames" in text
    assert window.export_csv_action.isEnabled()  # the results so far can be exported
    assert window.playback.isEnabled() or len(run) == 1


def unavailable_solver(model, overrides, conn, resume, stop):
    """A solver process whose formulation is not available (runs in the child process)."""
    from solver import ModelError

    error = ModelError("solver", '"penalty" is not available in this version', "formulation")
    conn.send(("done", "error", str(error), None, {}))
    conn.close()


@gui
def test_unavailable_formulation_gives_one_line_and_keeps_document(
    qtbot, workbench, message_boxes, monkeypatch
):
    window = workbench
    monkeypatch.setattr(window, "solver_target", unavailable_solver)
    assert window.open_model(ROOT / "examples" / "pendulum.json")
    model = window.document.model
    outcome = run_and_wait(qtbot, window, formulation="penalty", t_end=0.2)
    assert outcome.status == "error"
    critical = [m for m in message_boxes if m[0] == "critical"]
    assert len(critical) == 1
    assert "not available" in critical[0][2] and "\n" not in critical[0][2]
    assert window.document.model is model
    assert window.run_action.isEnabled()


# -- document rules --------------------------------------------------------------------------


@gui
def test_invalid_model_gives_the_cli_check_message_and_keeps_document(
    workbench, invalid_model_file, message_boxes
):
    window = workbench
    assert window.open_model(ROOT / "examples" / "pendulum.json")
    model, title = window.document.model, window.windowTitle()
    assert not window.open_model(invalid_model_file)
    done = subprocess.run(
        [sys.executable, "-m", "app", "check", str(invalid_model_file)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    critical = [m for m in message_boxes if m[0] == "critical"]
    assert [text for _, _, text in critical] == [done.stderr.strip()]
    assert window.document.model is model
    assert window.windowTitle() == title
    assert window.tree.item_for("body", "bob") is not None


@gui
def test_unsaved_changes_are_asked_about_on_new_open_and_quit(
    qtbot, workbench, pendulum_file, monkeypatch, message_boxes
):
    from PySide6.QtGui import QCloseEvent
    from PySide6.QtWidgets import QMessageBox

    from solver import load_model

    window = workbench
    assert window.open_model(pendulum_file)
    model = window.document.model
    window.document.set_solver("dt", 0.002)  # as the solver panel does
    assert window.document.is_modified
    assert window.windowTitle().startswith("Pendulum *")
    assert window.solver_panel.dt.text() == "0.002"

    asked: list[str] = []
    answers: list = []

    def question(parent, title, text, *args, **kwargs):
        asked.append(title)
        return answers.pop(0)

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    Button = QMessageBox.StandardButton

    answers[:] = [Button.Cancel, Button.Cancel, Button.Cancel]
    assert not window.open_model(ROOT / "examples" / "heavy_top.json")
    assert not window.new_model()
    event = QCloseEvent()
    window.closeEvent(event)
    assert not event.isAccepted() and window.isVisible()
    assert asked == ["Unsaved changes"] * 3
    assert window.document.model is model

    window.undo_action.trigger()  # undo brings back the saved state: nothing to ask
    assert not window.document.is_modified and model.solver.dt == 0.001
    window.redo_action.trigger()
    answers[:] = [Button.Save]
    assert window.new_model()
    assert load_model(pendulum_file).solver.dt == 0.002  # saved before the new model
    assert window.document.model.name == "Untitled"


@gui
def test_recent_files_and_layout_persist(qtbot, workbench, pendulum_file):
    from app.main_window import MainWindow

    window = workbench
    assert window.open_model(pendulum_file)
    assert window.settings.recent_files()[0] == str(pendulum_file.resolve())
    window.messages_dock.hide()
    window.settings.save_layout(window)
    try:
        other = MainWindow()
        qtbot.addWidget(other)
        other.show()
        qtbot.waitExposed(other)
        recent = [a.text() for a in other.recent_menu.actions()]
        assert recent[0] == "pendulum.json"
        assert other.messages_dock.isHidden()
        assert not other.tree_dock.isHidden()
        other.close()
    finally:
        window.messages_dock.show()
        window.settings.save_layout(window)


# -- playback, plots, viewport, exports --------------------------------------------------------


@gui
def test_playback_moves_mechanism_and_plot_cursors(qtbot, workbench):
    window = workbench
    assert window.open_model(ROOT / "examples" / "pendulum.json")
    outcome = run_and_wait(qtbot, window, t_end=1.0)
    assert outcome.status == "ok"
    run = window.run_data
    bar = window.playback
    assert bar.isEnabled() and bar.index == len(run) - 1

    window.show_time(0.5)
    assert bar.index == run.index_at(0.5)
    assert window.plots.energy.cursor.value() == pytest.approx(0.5, abs=0.011)
    assert window.plots.constraints.cursor.value() == pytest.approx(0.5, abs=0.011)
    qtbot.wait(50)
    assert window.viewport._current_row is not None
    assert window.viewport._current_row[0] == pytest.approx(run.t[bar.index])

    bar.set_speed(10.0)
    bar.loop_box.setChecked(False)
    bar.set_index(0)
    bar.play()
    assert bar.playing
    qtbot.waitUntil(lambda: not bar.playing, timeout=3_000)  # 1 s at 10× ends in 0.1 s
    assert bar.index == len(run) - 1

    bar.loop_box.setChecked(True)
    bar.set_speed(0.25)
    bar.play()
    qtbot.wait(300)
    assert bar.playing and 0 < bar.index < len(run) - 1  # looped back to the start
    bar.stop()


@gui
def test_viewport_renders_at_most_60_fps_and_drops_stale_frames(qtbot, workbench):
    window = workbench
    assert window.open_model(ROOT / "examples" / "pendulum.json")
    assert run_and_wait(qtbot, window, t_end=0.5).status == "ok"
    run = window.run_data
    viewport = window.viewport
    qtbot.wait(100)
    before = viewport.frames_rendered
    start = time.perf_counter()
    for i in range(len(run)):
        viewport.show_row(run.row(i))
        if i % 10 == 0:
            qtbot.wait(1)
    qtbot.wait(300)
    elapsed = time.perf_counter() - start
    rendered = viewport.frames_rendered - before
    assert 1 <= rendered <= 60 * elapsed + 2  # not one render per row
    assert np.array_equal(viewport._current_row, run.row(len(run) - 1))


@gui
def test_click_on_a_body_selects_it_in_the_tree(qtbot, workbench):
    from PySide6.QtCore import QPoint, Qt

    window = workbench
    assert window.open_model(ROOT / "examples" / "pendulum.json")
    plotter = window.plotter
    plotter.render()
    bob = np.asarray(window.document.model.bodies[0].position, float)
    renderer = plotter.renderer
    renderer.SetWorldPoint(*bob, 1.0)
    renderer.WorldToDisplay()
    x, y, _ = renderer.GetDisplayPoint()
    ratio = plotter.devicePixelRatioF()
    pos = QPoint(int(round(x / ratio)), int(round(plotter.height() - y / ratio)))
    qtbot.mouseClick(plotter, Qt.MouseButton.LeftButton, pos=pos)
    assert window.tree.selected() == ("body", "bob")
    assert window.viewport.selected == ("body", "bob")
    assert window.properties.target.name == "bob"
    # a click on empty space clears the selection
    qtbot.mouseClick(plotter, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    assert window.tree.selected() is None


@gui
def test_add_plot_and_exports(qtbot, workbench, tmp_path, screenshot_dir):
    from PIL import Image

    window = workbench
    assert window.open_model(ROOT / "examples" / "four_bar_planar.json")
    assert run_and_wait(qtbot, window, t_end=0.4).status == "ok"
    run = window.run_data
    assert "crank.angle" in run.quantities() and "P1.speed" in run.quantities()
    against_time = window.plots.add_quantity("P1.y")
    xy = window.plots.add_quantity("P1.y", "P1.x")
    angle = window.plots.add_quantity("crank.angle")
    try:
        for plot in (against_time, xy, angle):
            assert plot.points() == len(run)
        window.show_time(0.2)
        assert against_time.cursor.value() == pytest.approx(0.2, abs=1e-9)
        assert xy.marker.isVisible()

        png = window.plots.energy.export(tmp_path / "energy.png")
        svg = window.plots.constraints.export(tmp_path / "constraints.svg")
        assert Image.open(png).size[0] >= 1200
        assert "<svg" in svg.read_text()

        shot = window.export_screenshot(tmp_path / "view.png")
        assert Image.open(shot).size[0] > 100
        movie = window.export_movie(tmp_path / "motion.gif", fps=10)
        with Image.open(movie) as gif:
            assert gif.n_frames >= 3
        import imageio

        from app import export

        video = window.export_movie(tmp_path / "motion.mp4", fps=10)
        with imageio.get_reader(video, format="FFMPEG") as reader:
            frames = [np.asarray(f) for f in reader]
        assert len(frames) == len(export.movie_times(run, 10, window.playback.speed))
        assert frames[0].shape[1] >= 100 and frames[0].shape[1] % 2 == 0
        assert np.abs(frames[-1].astype(int) - frames[0].astype(int)).max() > 50  # it moves
        window.grab().save(str(screenshot_dir / "workbench_four_bar_planar.png"), "PNG")
    finally:
        window.plots.remove_user_plots()


@gui
def test_property_edit_is_undoable_and_check_and_assemble_report(qtbot, workbench, message_boxes):
    window = workbench
    assert window.open_model(ROOT / "examples" / "four_bar_spatial.json")
    window.tree.select("body", "crank")
    panel = window.properties
    rows = {
        panel.topLevelItem(i).text(0): panel.topLevelItem(i)
        for i in range(panel.topLevelItemCount())
    }
    assert rows["mass"].text(1) == "0.5"
    rows["mass"].setText(1, "0.75")  # as the editor does on commit
    crank = window.document.model.body("crank")
    assert crank.mass == 0.75 and window.document.is_modified
    window.undo_action.trigger()
    assert crank.mass == 0.5 and not window.document.is_modified

    assert window.check_model()
    kind, title, text = message_boxes[-1]
    assert (kind, title) == ("information", "Model check")
    assert "degrees of freedom (rank of the constraint Jacobian): 1" in text

    # the label as the run leaves it (the live check, scheduled when the run unlocks the
    # model, then shows its own count of active and passive freedoms)
    shown = []

    def record(_outcome):
        shown.append(window.dof_label.text())

    window.run_finished.connect(record)
    try:
        with qtbot.waitSignal(window.run_finished, timeout=60_000) as blocker:
            window.assemble_action.trigger()
    finally:
        window.run_finished.disconnect(record)
    assert blocker.args[0].status == "ok"
    assert blocker.args[0].summary["dof"] == 1
    assert len(window.run_data) == 1
    assert shown == ["DOF 1"]


@gui
def test_solver_panel_shows_the_solver_s_parameter_list(workbench):
    """The formulation parameters in the solver panel are the solver's public list."""
    from PySide6.QtWidgets import QComboBox, QLineEdit

    from solver import formulation_parameters

    window = workbench
    assert window.open_model(ROOT / "examples" / "pendulum.json")
    panel = window.solver_panel
    for name in ("penalty", "null_space", "central_differences"):
        window.document.set_solver("formulation", name)
        params = formulation_parameters(name)
        assert list(panel.param_widgets) == [p.name for p in params]
        for p in params:
            widget = panel.param_widgets[p.name]
            assert widget.toolTip() == p.description
            if p.kind == "choice":
                assert isinstance(widget, QComboBox)
                assert [widget.itemData(i) for i in range(1, widget.count())] == list(p.choices)
            else:
                assert isinstance(widget, QLineEdit)
                expected = "solver default" if p.default is None else f"{p.default:g}"
                assert widget.placeholderText() == expected
    # an edit goes to the model's solver.parameters
    widget = panel.param_widgets["rank_tolerance"]
    widget.setText("1e-07")
    widget.editingFinished.emit()
    assert window.document.model.solver.parameters["rank_tolerance"] == 1e-7
    window.document.undo_stack.setClean()


@gui
def test_body_actors_share_one_motion_matrix_per_body(workbench):
    """A frame moves each body's actors through one shared vtkMatrix4x4 = T(t)·T(0)⁻¹,
    re-attached if something (a drag in the builder) replaced an actor's matrix."""
    from app import scene
    from solver import simulate

    window = workbench
    assert window.open_model(ROOT / "examples" / "four_bar_planar.json")
    model = window.document.model
    result = simulate(model, t_end=0.05)
    viewport = window.viewport
    viewport.set_columns(list(result.columns))
    row = np.asarray(result.data)[-1]
    viewport.render_now(row)
    cmap = scene.ColumnMap.from_columns(list(result.columns))
    moving = [g for g in viewport.glyphs if g.body is not None]
    assert moving
    for glyph in moving:
        shared = viewport._motion[glyph.body.name]
        expected = scene.motion_matrix(cmap, row, glyph.body)
        got = np.array([[shared.GetElement(i, j) for j in range(4)] for i in range(4)])
        assert np.allclose(got, expected, atol=1e-12)
        for actor in glyph.actors:
            assert actor.GetUserMatrix() is shared
    actor = moving[0].actors[0]
    actor.user_matrix = np.eye(4)  # as a drag does
    assert actor.GetUserMatrix() is not viewport._motion[moving[0].body.name]
    viewport.render_now(row)
    assert actor.GetUserMatrix() is viewport._motion[moving[0].body.name]


@gui
def test_step_above_the_stability_estimate_warns_in_the_status_bar(qtbot, workbench):
    """The stability monitor's warning reaches the status bar and the log; a
    step below the estimate gives none."""
    window = workbench
    assert window.open_model(ROOT / "examples" / "stiff_pendulum.json")
    outcome = run_and_wait(qtbot, window, dt=0.79, t_end=8.0)
    assert outcome.status == "ok"
    text = window.statusBar().currentMessage()
    assert "warning: dt = 0.79 s exceeds" in text and "0.7825" in text
    outcome = run_and_wait(qtbot, window, dt=0.5, t_end=8.0)
    assert outcome.status == "ok"
    assert "warning" not in window.statusBar().currentMessage()


@gui
def test_the_view_shows_steps_between_outputs(qtbot, workbench, message_boxes):
    """With a large output interval the live view still moves: the solver process sends
    the latest step at most every 40 ms between outputs ("preview"), the view shows it,
    and the run's data keeps only the output rows."""
    window = workbench
    assert window.open_model(ROOT / "examples" / "double_four_bar.json")
    previews = []
    window.runner.preview_ready.connect(previews.append)
    shown = []
    show_row = window.viewport.show_row
    window.viewport.show_row = lambda row: (shown.append(float(row[0])), show_row(row))[1]
    try:
        outcome = run_and_wait(
            qtbot, window, formulation="central_differences", dt=1e-4, t_end=1.0, output_dt=0.5
        )  # 10 000 steps: long enough for several previews however fast the steps are
    finally:
        window.viewport.show_row = show_row
        window.runner.preview_ready.disconnect(previews.append)
    assert outcome.status == "ok", outcome.message
    np.testing.assert_allclose(window.run_data.t, [0.0, 0.5, 1.0], atol=1e-12)  # outputs only
    times = [float(row[0]) for row in previews]
    assert len(times) >= 5, times
    assert all(0.0 < t < 1.0 and abs(t - 0.5) > 1e-9 for t in times)
    assert times == sorted(times)
    assert set(times) <= set(shown)  # each went to the view

"""The workbench's "Add plot…" offers the reactions, efforts, accelerations and joint
coordinates of every joint, driver and body, computed from the finished run; File ▸ Import
opens MUBODYNA folders, MJCF and URDF files. Real clicks and dialogs under Xvfb."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from solver import ResultRequest, load_model, simulate

gui = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]
MUBODYNA = ROOT / "tests" / "importers" / "data" / "mubodyna"
MJCF = ROOT / "tests" / "importers" / "data" / "mjcf"


@pytest.fixture(scope="module")
def window(qapp):
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


def _run(qtbot, window, **overrides):
    with qtbot.waitSignal(window.run_finished, timeout=300_000):
        assert window.run_simulation(**overrides)
    qtbot.waitUntil(lambda: not window.runner.running, timeout=30_000)


def _choose_in_add_plot(monkeypatch, y: str, seen: dict):
    """Answer the Add plot dialog as a user would: pick ``y`` in its list, press OK."""
    from app.plots import AddPlotDialog

    def exec_(dialog):
        items = [dialog.y_box.itemData(i) for i in range(dialog.y_box.count())]
        seen["items"] = items
        dialog.y_box.setCurrentIndex(items.index(y))
        return True

    monkeypatch.setattr(AddPlotDialog, "exec", exec_)


@gui
def test_reaction_force_plot_from_the_add_plot_dialog(
    qtbot, window, tmp_path, monkeypatch, message_boxes, screenshot_dir
):
    path = shutil.copy(ROOT / "examples" / "four_bar_spatial.json", tmp_path / "four_bar.json")
    assert window.open_model(path, ask=False)
    _run(qtbot, window, t_end=1.0, output_dt=0.01)
    run = window.run_data
    assert "reaction.J3.Fz" not in run.columns  # the model requests nothing
    seen: dict = {}
    _choose_in_add_plot(monkeypatch, "reaction.J3.Fz", seen)
    before = len(window.plots.plots)
    window.plots.add_button.click()  # "Add plot…"
    qtbot.waitUntil(lambda: len(window.plots.plots) == before + 1, timeout=30_000)
    assert message_boxes == []
    # every joint's reaction, the motor's effort, accelerations and joint coordinates offered
    for name in (
        "reaction.J1.Fx",
        "reaction.J4.Tz_body",
        "effort.motor.torque",
        "crank.alphax",
        "joint.J3.angle",
    ):
        assert name in seen["items"], name
    plot = window.plots.plots[-1]
    assert plot.spec.title == "reaction.J3.Fz"
    assert "N" in plot.spec.y_label
    # the values are those of a headless run that requests the reactions
    model = load_model(path)
    model.requests = [ResultRequest("reactions", ("J3",))]
    ref = simulate(model, t_end=1.0, output_dt=0.01)
    ours = run.quantity("reaction.J3.Fz")
    assert len(ours) == len(ref) and np.abs(ours).max() > 1.0
    np.testing.assert_allclose(ours, ref.column("reaction.J3.Fz"), rtol=1e-6, atol=1e-6)
    assert run.columns[-12:][0] == "reaction.J3.Fx"  # the whole reaction of J3 was added
    # what the user sees: the curve drawn from the run
    window.show_time(0.62)
    for _ in range(10):
        qtbot.wait(20)
    window.viewport.render_now()
    image = window.grab()
    assert image.save(str(screenshot_dir / "reaction_plot.png"), "PNG")


@gui
def test_file_import_opens_a_mubodyna_folder(qtbot, window, tmp_path, message_boxes):
    import app.importing as importing

    titles = [a.text() for a in window.menuBar().actions()[0].menu().actions()]
    assert "&Import…" in titles
    source = tmp_path / "Fourbar3"
    shutil.copytree(MUBODYNA / "four_bar", source)
    assert importing.import_into(window, source, tmp_path / "fourbar.json")
    model = window.document.model
    assert [b.name for b in model.bodies] == ["B1", "B2", "B3"]
    assert window.document.path == tmp_path / "fourbar.json"
    log = window.messages.toPlainText()
    assert "warning: inFuncts.m: the elements are listed in Funct, not Functs" in log
    assert message_boxes == []


@gui
def test_file_import_of_mjcf_with_a_mesh_and_a_bad_folder(qtbot, window, tmp_path, message_boxes):
    import app.importing as importing

    (tmp_path / "tet.obj").write_text(
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
    )
    (tmp_path / "m.xml").write_text(
        '<mujoco><asset><mesh name="tet" file="tet.obj" scale="0.1 0.1 0.1"/></asset>'
        '<worldbody><body name="b" pos="0 0 1"><freejoint/>'
        '<geom type="mesh" mesh="tet" mass="1"/></body></worldbody></mujoco>'
    )
    out = tmp_path / "out" / "m.json"
    out.parent.mkdir()
    assert importing.import_into(window, tmp_path / "m.xml", out)
    shape = window.document.model.bodies[0].shapes[0]
    assert shape.type == "mesh" and (out.parent / shape.file).exists()
    # a folder that is not a MUBODYNA model: one message, the model stays open
    empty = tmp_path / "empty"
    empty.mkdir()
    assert not importing.import_into(window, empty, tmp_path / "x.json")
    assert message_boxes and message_boxes[-1][0] == "critical"
    assert "is not a MUBODYNA model folder" in message_boxes[-1][2]
    assert window.document.path == out

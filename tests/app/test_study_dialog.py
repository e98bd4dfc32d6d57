"""Simulate ▸ Study…: fill the dialog, run on a local cluster, rows appear, open a case."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui

SHORT = {
    "formulation": "null_space",
    "dt": 0.002,
    "t_end": 0.1,
    "output_dt": 0.01,
    "tolerance": 1e-12,
}


@pytest.fixture
def study_window(main_window, tmp_path, pendulum_data, write_model, message_boxes):
    pendulum_data["solver"] = dict(SHORT)
    pendulum_data["outputs"] = [{"name": "P", "body": "bob", "point": [1, 0, 0]}]
    assert main_window.open_model(write_model(tmp_path / "pendulum.json", pendulum_data))
    return main_window


def _find(tree, key):
    from app.study_dialog import KEY_ROLE

    items = tree.findItems(
        key.split(".")[-1], Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive
    )
    return next(i for i in items if i.data(0, KEY_ROLE) == key)


def test_study_dialog_runs_a_comparison_and_opens_a_case(
    study_window, qtbot, tmp_path, screenshot_dir
):
    window = study_window
    sim_menu = next(
        a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "Simulate"
    )
    assert window.study_action in sim_menu.actions()
    window.study_action.trigger()
    dialog = window.study_dialog
    qtbot.waitExposed(dialog)

    # keys from the model tree: double-click a field to add it with its current value
    item = _find(dialog.tree, "solver.dt")
    assert item.text(1) == "0.002"
    dialog.tree.itemDoubleClicked.emit(item, 0)
    assert dialog.keys.item(0, 0).text() == "solver.dt"
    assert dialog.keys.item(0, 2).text() == "0.002"
    dialog.keys.item(0, 2).setText("0.001, 0.002")
    dialog.tree.itemDoubleClicked.emit(_find(dialog.tree, "solver.formulation"), 0)
    dialog.keys.item(1, 2).setText("penalty, null_space")
    dialog.reference.setCurrentIndex(1)  # auto
    dialog.workers.setValue(2)

    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    assert dialog.running and not dialog.run_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.results.rowCount() >= 1, timeout=240_000)  # rows as they arrive
    with qtbot.waitSignal(dialog.study_finished, timeout=240_000):
        pass
    assert dialog.status == "done", dialog.error.text()
    assert dialog.results.rowCount() == 4
    headers = [
        dialog.results.horizontalHeaderItem(c).text() for c in range(dialog.results.columnCount())
    ]
    column = {name: c for c, name in enumerate(headers)}
    cells = [[dialog.results.item(r, c).text() for c in range(len(headers))] for r in range(4)]
    assert [(r[column["solver.dt"]], r[column["solver.formulation"]]) for r in cells] == [
        ("0.001", "penalty"), ("0.001", "null_space"), ("0.002", "penalty"), ("0.002", "null_space")
    ]  # fmt: skip
    assert all(r[column["status"]] == "ok" for r in cells)
    assert cells[0][column["reference_distance"]] == "0"  # the reference: smallest dt, first
    assert all(float(r[column["reference_distance"]]) > 0 for r in cells[1:])
    assert "reference: case 0" in dialog.progress.text()
    assert dialog.plot.isVisible() and set(dialog.plotted) == {"penalty", "null_space"}

    # export the table
    path = dialog.export(tmp_path / "table.csv")
    with open(path, newline="", encoding="utf-8") as fh:
        exported = list(csv.DictReader(fh))
    assert [r["status"] for r in exported] == ["ok"] * 4 and "final.bob.x" in exported[0]

    # a row opens that case in the 3D view: its frames, at the last one
    dialog.results.selectRow(3)
    qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    run = window.run_data
    assert run is not None and len(run) == 11  # t = 0, 0.01, ..., 0.1
    assert run.t[-1] == pytest.approx(0.1)
    final_x = float(exported[3]["final.bob.x"])
    assert run.data[-1, run.columns.index("bob.x")] == pytest.approx(final_x, rel=1e-12)
    assert window.playback.slider.value() == len(run) - 1
    assert "study case 3" in window.statusBar().currentMessage()
    qtbot.wait(200)
    dialog.grab().save(str(screenshot_dir / "study_dialog.png"))
    window.grab().save(str(screenshot_dir / "study_case_opened.png"))
    assert np.isfinite(run.data).all()
    dialog.close()


def test_study_dialog_names_a_refused_value_and_runs_nothing(study_window, qtbot):
    window = study_window
    window.study_action.trigger()
    dialog = window.study_dialog
    row = dialog.add_key("bodies.bob.mass", "values", "1, -2")
    assert row == 0
    assert dialog.start() is False
    assert not dialog.running
    assert dialog.error.text().startswith("key bodies.bob.mass: value -2 is refused:")
    dialog.add_key("bodies.bob.mass", "uniform", "2, 1")
    assert dialog.start() is False
    assert "uniform(2, 1) needs a < b" in dialog.error.text()
    json.dumps(dialog.specification()[1])  # the distributions are plain text
    dialog.close()


def test_a_cluster_lost_mid_study_is_an_error_in_the_dialog_not_a_wait(
    study_window, qtbot, monkeypatch
):
    """The workers of the study's Dask cluster go while its cases run: once none came back
    for the watch's time limit the dialog says so, the cases not run are rows that say
    why, and the dialog can run again."""
    import logging

    from distributed import LocalCluster

    from solver.studies import engine

    monkeypatch.setattr(engine, "LOST_TIMEOUT", 2.0)
    # the uncompiled solver: the worker starts in a second, and the cases never end anyway
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR,
                           env={"BIELA_JIT": "0"})  # fmt: skip
    try:
        window = study_window
        window.study_action.trigger()
        dialog = window.study_dialog
        dialog.add_key("solver.t_end", "values", "1000, 1001")
        dialog.remote.setChecked(True)
        dialog.address.setText(cluster.scheduler_address)
        qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
        assert dialog.running
        qtbot.waitUntil(lambda: "warm_up" in dialog.study.timing, timeout=120_000)
        qtbot.wait(300)  # the cases run
        with qtbot.waitSignal(dialog.study_finished, timeout=60_000):
            cluster.scale(0)
        assert dialog.status == "error"
        assert dialog.error.text() == "study: the cluster was lost: no Dask worker left for 2 s"
        assert dialog.results.rowCount() == 2
        assert [r["message"] for r in dialog.study.completed_rows()] == [
            "not run: the cluster was lost: no Dask worker left for 2 s"
        ] * 2
        assert dialog.run_button.isEnabled() and not dialog.running
        dialog.close()
    finally:
        cluster.close()

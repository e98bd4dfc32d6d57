"""Simulate ▸ Study…: parameter studies, Monte Carlo samples and formulation comparisons.

The dialog builds a ``solver.Study`` from the document's model: keys chosen from a tree of
the model's fields (double-click adds one), each with values (a grid) or a distribution
(uniform or normal, drawn ``samples`` times from ``seed``); local worker processes or a
Dask scheduler address. A ``StudyRunner`` iterates the study in a QThread and hands each
row to the GUI thread, where the results table fills as cases complete; with a reference
the work-precision plot (distance from the reference against CPU time, log–log, one line
per formulation) is drawn when the study ends. A row opens that case in the 3D view (its
model and its frames, playable); the table exports as CSV. The solver is used through its
public API only; nothing here renders from the runner's thread.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt, QThread, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.rundata import RunData
from app.theme import TRACE_PALETTE
from solver.model import ModelError, write_model
from solver.studies import Study, default_workers, get_value, leaf_keys, parse_values

KINDS = ("values", "uniform", "normal")
#: Result columns the table shows (the export has them all).
SHOWN = (
    "status", "wall_time_s", "cpu_time_s", "steps", "newton_iterations", "max_energy_drift",
    "max_constraint_position", "reference_distance", "final.t", "message",
)  # fmt: skip
KEY_ROLE = Qt.ItemDataRole.UserRole
#: Milliseconds to wait for the study's thread to end once its study has ended, and, when
#: the dialog or the window closes during a study, for the stopped study to end.
THREAD_END_MS = 10_000
STOP_WAIT_MS = 60_000


class StudyRunner(QObject):
    """Iterates a ``Study`` in its own thread; ``row_ready(dict)`` per case as it completes,
    ``finished(str)`` at the end (empty, or the one-line reason the study stopped)."""

    row_ready = Signal(object)
    finished = Signal(str)

    def __init__(self, study: Study) -> None:
        super().__init__()
        self.study = study

    def run(self) -> None:
        message = ""
        try:
            for row in self.study:
                self.row_ready.emit(dict(row))
        except ModelError as exc:  # no scheduler, no workers
            message = str(exc)
        except Exception as exc:  # a bug or a lost cluster: one line, the GUI stays alive
            message = f"{type(exc).__name__}: {exc}"
        self.finished.emit(message)
        self.thread().quit()


class StudyDialog(QDialog):
    """The study dialog of ``window`` (a ``MainWindow``)."""

    study_finished = Signal()

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.setObjectName("studyDialog")
        self.setWindowTitle("Study")
        self.resize(1100, 720)
        self.study: Study | None = None
        self.thread: QThread | None = None
        self.runner: StudyRunner | None = None
        self._started = 0.0
        self.status = ""
        self._lingering: list[QThread] = []

        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Model field", "Value"])
        self.tree.setColumnWidth(0, 200)
        self.tree.itemDoubleClicked.connect(self._tree_activated)
        self.keys = QTableWidget(0, 3)
        self.keys.setHorizontalHeaderLabels(["Key", "Kind", "Values (v1, v2, …) or a, b / μ, σ"])
        self.keys.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.keys.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.ResizeToContents
        )
        add = QPushButton("Add key →")
        add.clicked.connect(lambda: self._tree_activated(self.tree.currentItem()))
        remove = QPushButton("Remove key")
        remove.clicked.connect(self._remove_key)

        self.samples = QSpinBox(minimum=1, maximum=100_000, value=8)
        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1, value=1)
        self.reference = QComboBox()
        self.reference.addItems(["none", "auto (smallest Δt)"])
        self.local = QRadioButton("Local workers")
        self.remote = QRadioButton("Dask scheduler")
        self.local.setChecked(True)
        where = QButtonGroup(self)
        where.addButton(self.local)
        where.addButton(self.remote)
        self.workers = QSpinBox(minimum=1, maximum=256, value=default_workers())
        self.address = QLineEdit(placeholderText="tcp://host:8786")
        self.run_button = QPushButton("Run study")
        self.run_button.clicked.connect(self.start)
        self.stop_button = QPushButton("Stop")
        self.stop_button.clicked.connect(self.stop)
        self.export_button = QPushButton("Export table…")
        self.export_button.clicked.connect(self.export_dialog)
        self.open_button = QPushButton("Open case")
        self.open_button.clicked.connect(lambda: self.open_case(self.results.currentRow()))
        self.progress = QLabel("")
        self.error = QLabel("")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c0392b")

        self.results = QTableWidget(0, 0)
        self.results.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.results.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.results.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.results.cellDoubleClicked.connect(lambda row, _col: self.open_case(row))
        self.plot = pg.PlotWidget(title="Work–precision")
        self.plot.setLogMode(x=True, y=True)
        self.plot.setLabel("bottom", "CPU time (s)")
        self.plot.setLabel("left", "distance from the reference (m)")
        self.plot.addLegend()
        self.plot.hide()

        self._layout(add, remove)
        self.set_model(window.document.model)
        self._update_buttons()

    # -- layout -----------------------------------------------------------------------------

    def _layout(self, add: QPushButton, remove: QPushButton) -> None:
        options = QGroupBox("Samples and cluster")
        form = QFormLayout(options)
        form.addRow("Samples (distributions)", self.samples)
        form.addRow("Seed", self.seed)
        form.addRow("Reference", self.reference)
        local_row = QHBoxLayout()
        local_row.addWidget(self.local)
        local_row.addWidget(self.workers)
        remote_row = QHBoxLayout()
        remote_row.addWidget(self.remote)
        remote_row.addWidget(self.address)
        form.addRow(local_row)
        form.addRow(remote_row)
        right = QWidget()
        rv = QVBoxLayout(right)
        rv.addWidget(QLabel("Keys of the study (values: a grid; uniform/normal: drawn)"))
        rv.addWidget(self.keys, 1)
        kb = QHBoxLayout()
        kb.addWidget(add)
        kb.addWidget(remove)
        kb.addStretch(1)
        rv.addLayout(kb)
        rv.addWidget(options)
        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(self.tree)
        top.addWidget(right)
        top.setSizes([380, 700])
        buttons = QHBoxLayout()
        for b in (self.run_button, self.stop_button, self.export_button, self.open_button):
            buttons.addWidget(b)
        buttons.addWidget(self.progress, 1)
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(self.results)
        bottom.addWidget(self.plot)
        bottom.setSizes([700, 380])
        outer = QSplitter(Qt.Orientation.Vertical)
        outer.addWidget(top)
        holder = QWidget()
        hv = QVBoxLayout(holder)
        hv.setContentsMargins(0, 0, 0, 0)
        hv.addLayout(buttons)
        hv.addWidget(self.error)
        hv.addWidget(bottom, 1)
        outer.addWidget(holder)
        layout = QVBoxLayout(self)
        layout.addWidget(outer)

    # -- keys -------------------------------------------------------------------------------

    def set_model(self, model: Any) -> None:
        """Fill the key tree from ``model`` (the document's)."""
        self.tree.clear()
        self._data = write_model(model) if model is not None else None
        if self._data is None:
            return
        nodes: dict[str, QTreeWidgetItem] = {}
        for key in leaf_keys(self._data):
            parts = key.split(".")
            parent = None
            for depth in range(1, len(parts) + 1):
                path = ".".join(parts[:depth])
                if path not in nodes:
                    item = QTreeWidgetItem([parts[depth - 1]])
                    (
                        parent.addChild(item)
                        if parent is not None
                        else self.tree.addTopLevelItem(item)
                    )
                    nodes[path] = item
                parent = nodes[path]
            parent.setData(0, KEY_ROLE, key)
            try:
                parent.setText(1, _text(get_value(self._data, key)))
            except ModelError:
                parent.setText(1, "(default)")
        for name in ("solver",):
            if name in nodes:
                nodes[name].setExpanded(True)

    def _tree_activated(self, item: QTreeWidgetItem | None) -> None:
        key = item.data(0, KEY_ROLE) if item is not None else None
        if key:
            self.add_key(key, "values", item.text(1) if item.text(1) != "(default)" else "")

    def add_key(self, key: str, kind: str = "values", text: str = "") -> int:
        """Add (or update) the row of ``key``; returns its row."""
        for row in range(self.keys.rowCount()):
            if self.keys.item(row, 0).text() == key:
                break
        else:
            row = self.keys.rowCount()
            self.keys.insertRow(row)
            name = QTableWidgetItem(key)
            name.setFlags(name.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.keys.setItem(row, 0, name)
            combo = QComboBox()
            combo.addItems(KINDS)
            self.keys.setCellWidget(row, 1, combo)
        self.keys.cellWidget(row, 1).setCurrentText(kind)
        self.keys.setItem(row, 2, QTableWidgetItem(text))
        return row

    def _remove_key(self) -> None:
        row = self.keys.currentRow()
        if row >= 0:
            self.keys.removeRow(row)

    def specification(self) -> tuple[dict, dict]:
        """``(vary, sample)`` of the keys table (``StudyError`` naming a bad key)."""
        vary, sample = {}, {}
        for row in range(self.keys.rowCount()):
            key = self.keys.item(row, 0).text()
            kind = self.keys.cellWidget(row, 1).currentText()
            text = self.keys.item(row, 2).text() if self.keys.item(row, 2) else ""
            if kind == "values":
                vary[key] = parse_values(key, text)
            else:
                sample[key] = f"{kind}({text})"
        return vary, sample

    # -- running ----------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.thread is not None

    def start(self) -> bool:
        """Run the study of the dialog's settings; False (and the reason shown) if refused."""
        if self.running or self.window.document.model is None:
            return False
        self.error.setText("")
        try:
            vary, sample = self.specification()
            study = Study(
                self.window.document.model,
                vary=vary,
                sample=sample,
                samples=self.samples.value() if sample else None,
                seed=self.seed.value() if sample else None,
                reference="auto" if self.reference.currentIndex() == 1 else None,
                keep_runs=True,
                workers=self.workers.value() if self.local.isChecked() else None,
                scheduler=self.address.text().strip() if self.remote.isChecked() else None,
            )
            if self.remote.isChecked() and not self.address.text().strip():
                raise ModelError("study", "give the address of the Dask scheduler")
        except ModelError as exc:
            self.error.setText(str(exc))
            return False
        self.study = study
        self.status = "running"
        self._columns = ["case", *study.keys, *(["sample"] if sample else []), *SHOWN]
        if not study.with_reference:
            self._columns.remove("reference_distance")
        self.results.clear()
        self.results.setRowCount(0)
        self.results.setColumnCount(len(self._columns))
        self.results.setHorizontalHeaderLabels(self._columns)
        self.plot.clear()
        self.plot.setVisible(study.with_reference)
        thread = QThread()
        thread.setObjectName("biela-study")
        runner = StudyRunner(study)
        runner.moveToThread(thread)
        thread.started.connect(runner.run)
        runner.row_ready.connect(self._row_ready)
        runner.finished.connect(self._finished)
        self.thread, self.runner = thread, runner
        self._started = time.perf_counter()
        thread.start()
        self._show_progress()
        self._update_buttons()
        return True

    def stop(self) -> None:
        if self.study is not None:
            self.study.cancel()

    def _row_ready(self, row: dict) -> None:
        n = self.results.rowCount()
        self.results.insertRow(n)
        self._fill_row(n, row)
        self._show_progress()

    def _fill_row(self, n: int, row: dict) -> None:
        for c, name in enumerate(self._columns):
            item = QTableWidgetItem(_text(row.get(name)))
            item.setData(KEY_ROLE, row["case"])
            if name == "status" and row.get("status") != "ok":
                item.setForeground(Qt.GlobalColor.red)
            self.results.setItem(n, c, item)

    def _finished(self, message: str) -> None:
        thread = self.thread
        self.thread = self.runner = None
        if thread is not None:
            thread.quit()
            if not thread.wait(THREAD_END_MS):  # its run() has returned: never expected
                self._lingering.append(thread)  # a QThread must not be destroyed running
        study = self.study
        # the final rows, in case order, with the reference distances
        rows = study.completed_rows() if study is not None else []
        self.results.setRowCount(len(rows))
        for n, row in enumerate(rows):
            self._fill_row(n, row)
        self.results.resizeColumnsToContents()
        if message:
            self.error.setText(message)
        self.status = "error" if message else ("cancelled" if study and study.cancelled else "done")
        self._show_progress()
        self._plot(rows)
        self._update_buttons()
        self.study_finished.emit()

    def _show_progress(self) -> None:
        study = self.study
        if study is None:
            return
        elapsed = time.perf_counter() - self._started if self.running else study.elapsed
        text = f"{study.done}/{len(study)} cases, {study.failures} failed, {elapsed:.1f} s"
        if study.reference_case is not None:
            text += f"; reference: case {study.reference_case}"
        self.progress.setText(text if self.running else f"{self.status}: {text}")

    def _plot(self, rows: list[dict]) -> None:
        self.plot.clear()
        if self.study is None or not self.study.with_reference:
            return
        series: dict[str, list[tuple[float, float]]] = {}
        for row in rows:
            x, y = row.get("cpu_time_s"), row.get("reference_distance")
            if row.get("status") == "ok" and _positive(x) and _positive(y):
                series.setdefault(str(row.get("solver.formulation", "cases")), []).append((x, y))
        for i, (name, points) in enumerate(sorted(series.items())):
            points.sort()
            color = TRACE_PALETTE[i % len(TRACE_PALETTE)]
            self.plot.plot([p[0] for p in points], [p[1] for p in points], name=name,
                           pen=pg.mkPen(color, width=2), symbol="o", symbolBrush=color)  # fmt: skip
        self.plotted = series

    def _update_buttons(self) -> None:
        has_rows = self.study is not None and self.study.done > 0
        self.run_button.setEnabled(not self.running)
        self.stop_button.setEnabled(self.running)
        self.export_button.setEnabled(has_rows and not self.running)
        self.open_button.setEnabled(has_rows)

    # -- results ----------------------------------------------------------------------------

    def case_of_row(self, row: int) -> int | None:
        item = self.results.item(row, 0) if row >= 0 else None
        return item.data(KEY_ROLE) if item is not None else None

    def open_case(self, row: int) -> bool:
        """Show the case of results row ``row`` in the window's 3D view: its model and its
        frames, at the last frame (playable). False when it has no frames."""
        index = self.case_of_row(row)
        study = self.study
        if index is None or study is None or index not in study.runs:
            return False
        columns, rows = study.runs[index]
        if len(rows) == 0:
            return False
        window = self.window
        window.playback.stop()
        model_dir = window.document.path.parent if window.document.path else None
        case_model = study.case_model(index)
        window.viewport.set_model(case_model, model_dir)
        run = RunData(columns)
        run.append(rows)
        run.model = case_model  # the view and playback stay bound to the case's model
        outcome = study.outcomes[index]
        run.status, run.message = outcome.status, outcome.message
        run.wall_time = float(outcome.summary.get("wall_time_s") or 0.0)
        window.run_data = run
        window.plots.set_run(run)
        window.viewport.set_trace_data(None)
        window.viewport.set_columns(run.columns)
        window.plots.refresh()
        window.playback.set_run(run)
        window.playback.set_index(len(run) - 1)
        label = study.cases[index].label()
        window.statusBar().showMessage(f"study case {index}: {label} ({outcome.status})", 15_000)
        window.log_message(f"study case {index} shown: {label}")
        return True

    def export(self, path: str | Path) -> Path:
        """Write the table (every column) as CSV."""
        from solver.studies import write_csv

        write_csv(path, self.study.completed_rows())
        return Path(path)

    def export_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Export study table", "study.csv", "CSV (*.csv)"
        )
        if path:
            try:
                self.export(path)
            except OSError as exc:
                self.error.setText(f"cannot write {path}: {exc.strerror}")

    def closeEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        self.stop()
        if self.thread is not None:
            self.thread.wait(STOP_WAIT_MS)
        super().closeEvent(event)


def _positive(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def install_study(window: Any, menu: Any) -> Any:
    """Add Simulate ▸ Study… to ``menu`` of ``window``; returns the action."""
    action = menu.addAction("S&tudy…")
    action.setObjectName("studyAction")
    action.setStatusTip("Run the model for a grid of values or random draws, on Dask")

    def show() -> None:
        dialog = getattr(window, "study_dialog", None)
        if dialog is None:
            dialog = window.study_dialog = StudyDialog(window)
        elif not dialog.running:
            dialog.set_model(window.document.model)
        dialog.show()
        dialog.raise_()

    action.triggered.connect(show)
    window.study_action = action
    window.installEventFilter(_StopOnClose(window))
    return action


class _StopOnClose(QObject):
    """Stops a running study (and waits for its thread) when the window closes."""

    def eventFilter(self, obj: Any, event: Any) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Close:
            dialog = getattr(obj, "study_dialog", None)
            if dialog is not None and dialog.running:
                dialog.stop()
                dialog.thread.wait(STOP_WAIT_MS)
        return False

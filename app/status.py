"""The permanent fields of the status bar: cursor position, simulated time, wall time,
real-time factor, Newton iterations, degrees of freedom, viewport frame rate and progress."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from app.progress import ProgressBar
from app.rundata import RunData

EMPTY = {"time": "t = –", "wall": "wall –", "rtf": "RTF –", "newton": "Newton –"}


class StatusFields:
    """The labels and the progress bar, added to ``bar`` as permanent widgets."""

    def __init__(self, bar: QStatusBar, parent: QWidget) -> None:
        self.cursor = QLabel("", parent)
        self.cursor.setObjectName("cursorReadout")
        self.time = QLabel(EMPTY["time"], parent)
        self.wall = QLabel(EMPTY["wall"], parent)
        self.rtf = QLabel(EMPTY["rtf"], parent)
        self.newton = QLabel(EMPTY["newton"], parent)
        self.dof = QLabel("DOF –", parent)
        self.fps = QLabel("", parent)
        self.progress = ProgressBar(parent)
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(True)
        self.progress.setFormat("%p%")
        self.progress.setValue(0)
        for widget, tip in (
            (self.cursor, "Cursor on the work plane (what a click would place), m"),
            (self.time, "Simulated time"),
            (self.wall, "Wall-clock time of the run"),
            (self.rtf, "Real-time factor: simulated seconds per wall second"),
            (self.newton, "Newton iterations: last step / total"),
            (self.dof, "Degrees of freedom (rank of the constraint Jacobian)"),
            (self.fps, "Viewport frames per second"),
        ):
            widget.setToolTip(tip)
            bar.addPermanentWidget(widget)
        bar.addPermanentWidget(self.progress)

    def reset(self) -> None:
        """No run: every run figure blank (the DOF belong to the model and stay)."""
        self.time.setText(EMPTY["time"])
        self.wall.setText(EMPTY["wall"])
        self.rtf.setText(EMPTY["rtf"])
        self.newton.setText(EMPTY["newton"])
        self.fps.setText("")
        self.progress.setValue(0)

    def show_run(self, run: RunData, t_end: float) -> None:
        """The figures of ``run`` at its newest frame; progress against ``t_end`` (s)."""
        if len(run) == 0:
            return
        t = float(run.t[-1])
        wall = max(run.wall_time, 1e-9)
        self.time.setText(f"t = {t:.4f} s")
        self.wall.setText(f"wall {wall:.2f} s")
        self.rtf.setText(f"RTF {t / wall:.3g}×")
        its = run.iterations
        self.newton.setText(f"Newton {int(its[-1])} / {int(its.sum())}")
        if t_end > 0:
            self.progress.setValue(int(1000 * min(1.0, t / t_end)))

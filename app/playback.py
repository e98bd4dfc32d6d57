"""Playback of a finished (or stopped) run: time slider, play/pause, speed, loop.

The bar advances simulated time by ``speed ×`` the wall time elapsed, so playback runs at the
chosen real-time factor whatever the output interval and the frame rate; it emits
``index_changed`` with the frame to show.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QToolButton,
    QWidget,
)

from app.rundata import RunData

SPEEDS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
TICK_MS = 16  # ≤ 60 updates a second; the viewport drops what it cannot draw


class TimeSlider(QSlider):
    """A horizontal slider that jumps to the clicked position (Qt's default steps a page
    towards it) and can be dragged on from there."""

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        if event.button() == Qt.MouseButton.LeftButton and self.maximum() > self.minimum():
            option = QStyleOptionSlider()
            self.initStyleOption(option)
            style = self.style()
            groove = style.subControlRect(
                QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderGroove, self
            )
            handle = style.subControlRect(
                QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderHandle, self
            )
            pos = event.position().toPoint()
            if not handle.contains(pos):
                span = max(groove.width() - handle.width(), 1)
                x = pos.x() - groove.x() - handle.width() // 2
                self.setValue(
                    QStyle.sliderValueFromPosition(
                        self.minimum(), self.maximum(), x, span, option.upsideDown
                    )
                )
        super().mousePressEvent(event)


class PlaybackBar(QWidget):
    """Slider over the frames of ``RunData`` with play/pause, speed and loop."""

    index_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run: RunData | None = None
        #: Asked before each playback step: False skips it (the view is still drawing), so
        #: the bar, the plots and the view move together at the rate the view can draw.
        self.ready = None
        self.index = 0
        self._sim_time = 0.0
        self._last_tick = 0.0
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        style = self.style()
        self.play_button = QToolButton(self)
        self.play_button.setObjectName("playButton")
        self.play_button.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
        self.play_button.setToolTip("Play / pause the results (Space)")
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self._toggled)
        layout.addWidget(self.play_button)
        self.start_button = QToolButton(self)
        self.start_button.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_MediaSkipBackward))
        self.start_button.setToolTip("Go to t = 0")
        self.start_button.clicked.connect(lambda: self.set_index(0))
        layout.addWidget(self.start_button)
        self.slider = TimeSlider(Qt.Orientation.Horizontal, self)
        self.slider.setObjectName("timeSlider")
        self.slider.setRange(0, 0)
        self.slider.valueChanged.connect(self._slider_moved)
        layout.addWidget(self.slider, 1)
        self.time_label = QLabel("t = 0 s", self)
        self.time_label.setMinimumWidth(120)
        self.time_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.time_label)
        layout.addWidget(QLabel("Speed", self))
        self.speed_box = QComboBox(self)
        self.speed_box.setObjectName("speedBox")
        for s in SPEEDS:
            self.speed_box.addItem(f"{s:g}×", s)
        self.speed_box.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_box.setToolTip("Playback speed: simulated seconds per wall-clock second")
        layout.addWidget(self.speed_box)
        self.loop_box = QCheckBox("Loop", self)
        self.loop_box.setChecked(True)
        layout.addWidget(self.loop_box)
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self.setEnabled(False)

    # -- state ---------------------------------------------------------------------------------

    @property
    def speed(self) -> float:
        return float(self.speed_box.currentData())

    def set_speed(self, speed: float) -> None:
        i = self.speed_box.findData(speed)
        if i >= 0:
            self.speed_box.setCurrentIndex(i)

    @property
    def playing(self) -> bool:
        return self._timer.isActive()

    def set_run(self, run: RunData | None, follow: bool = False) -> None:
        """Results to play; ``follow``: during a run, keep the slider at the newest frame."""
        self.stop()
        self.run = run
        self.update_range(follow)
        self.setEnabled(run is not None and len(run) > 0)

    def update_range(self, follow: bool = False) -> None:
        n = len(self.run) if self.run is not None else 0
        with QSignalBlocker(self.slider):
            self.slider.setRange(0, max(n - 1, 0))
            if follow and n:
                self.slider.setValue(n - 1)
                self.index = n - 1
        self.setEnabled(n > 0)
        self._update_label()

    def set_index(self, index: int) -> None:
        """Show frame ``index`` (clamped); emits ``index_changed``."""
        if self.run is None or len(self.run) == 0:
            return
        index = min(max(int(index), 0), len(self.run) - 1)
        self.index = index
        self._sim_time = float(self.run.t[index])
        with QSignalBlocker(self.slider):
            self.slider.setValue(index)
        self._update_label()
        self.index_changed.emit(index)

    def set_time(self, t: float) -> None:
        if self.run is not None and len(self.run):
            self.set_index(self.run.index_at(t))

    # -- play ------------------------------------------------------------------------------------

    def play(self) -> None:
        if self.run is None or len(self.run) < 2:
            return
        if self.index >= len(self.run) - 1:
            self.set_index(0)
        self._sim_time = float(self.run.t[self.index])
        self._last_tick = time.perf_counter()
        self._timer.start()
        with QSignalBlocker(self.play_button):
            self.play_button.setChecked(True)
        self.play_button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPause))

    def stop(self) -> None:
        self._timer.stop()
        with QSignalBlocker(self.play_button):
            self.play_button.setChecked(False)
        self.play_button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))

    def toggle(self) -> None:
        if self.playing:
            self.stop()
        else:
            self.play()

    def _toggled(self, checked: bool) -> None:
        if checked:
            self.play()
        else:
            self.stop()

    def _tick(self) -> None:
        run = self.run
        if run is None or len(run) < 2:
            self.stop()
            return
        if self.ready is not None and not self.ready():
            return  # simulated time catches up at the next step (wall clock based)
        now = time.perf_counter()
        self._sim_time += (now - self._last_tick) * self.speed
        self._last_tick = now
        t_end = float(run.t[-1])
        if self._sim_time > t_end:
            if self.loop_box.isChecked():
                span = t_end - float(run.t[0])
                self._sim_time = float(run.t[0]) + ((self._sim_time - t_end) % max(span, 1e-12))
            else:
                self.set_index(len(run) - 1)
                self.stop()
                return
        sim_time = self._sim_time
        self.set_index(run.index_at(sim_time))
        self._sim_time = sim_time

    def _slider_moved(self, value: int) -> None:
        self.set_index(value)

    def _update_label(self) -> None:
        if self.run is None or len(self.run) == 0:
            self.time_label.setText("t = 0 s")
            return
        t = float(self.run.t[min(self.index, len(self.run) - 1)])
        self.time_label.setText(f"t = {t:.4f} / {float(self.run.t[-1]):.4f} s")

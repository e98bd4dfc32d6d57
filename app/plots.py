"""Live plots (pyqtgraph): energies, constraint errors on a log axis, and user-added plots.

The panel draws from ``RunData`` when ``refresh()`` is called (the main window calls it at a
bounded rate during a run), so a burst of frames costs one redraw. Every plot against time
has a time cursor; dragging it, or clicking the plot, asks for that time
(``time_requested``); on an x-y plot a click asks for the time of the nearest point. The
legends sit beside the data, the axes fit the data until the user zooms or pans (Autoscale
or a double click fits them again), and the panes are resizable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app import scene
from app.run_report import count
from app.rundata import RunData
from app.theme import (
    CONSTRAINT_COLORS,
    CURSOR_COLOR,
    ENERGY_COLORS,
    PLOT_BACKGROUND,
    PLOT_FOREGROUND,
    PLOT_GRID_ALPHA,
    TRACE_PALETTE,
)

pg.setConfigOptions(antialias=True, background=PLOT_BACKGROUND, foreground=PLOT_FOREGROUND)

#: Smallest value drawn on a log axis (an exactly satisfied constraint shows here).
LOG_FLOOR = 1e-18

ENERGY_CURVES = (
    ("energy.kinetic", "kinetic T"),
    ("energy.potential", "potential V"),
    ("energy.elastic", "elastic Vₑ"),
    ("energy.work", "work W"),
    ("energy.total", "total T+V+Vₑ−W"),
)
CONSTRAINT_CURVES = (
    ("constraint.position", "‖Φ‖ (m, rad)"),
    ("constraint.velocity", "‖Φ̇‖ (m/s, rad/s)"),
)
TIME = "t"
NO_RESULTS = "No results yet: Simulate ▸ Run (F5)"
#: Pixel size of a plot export unless chosen otherwise.
DEFAULT_EXPORT_SIZE = (1200, 800)


@dataclass
class PlotSpec:
    """One plot: curves ``(y quantity, legend)`` against ``x`` (``"t"`` or a quantity)."""

    key: str
    title: str
    curves: list[tuple[str, str]]
    x: str = TIME
    log_y: bool = False
    y_label: str = ""
    colors: list[str] = field(default_factory=list)


class Plot:
    """A plot pane: a PlotItem with its curves and time cursor, and the legend beside it
    (outside the data: a legend over the curves hid the newest values at the right edge)."""

    def __init__(self, spec: PlotSpec, seek) -> None:
        self.spec = spec
        self.run: RunData | None = None
        self._seek = seek  # called with a time (s) when the user drags the cursor or clicks
        self.widget = pg.GraphicsLayoutWidget()
        self.widget.setObjectName(f"plot_{spec.key}")
        self.widget.setMinimumSize(240, 150)
        self.widget.ci.setContentsMargins(2, 2, 2, 2)
        item = self.item = self.widget.addPlot(row=0, col=0)
        item.setTitle(spec.title, size="10pt")
        item.showGrid(x=True, y=True, alpha=PLOT_GRID_ALPHA)
        item.setLabel("bottom", scene.label_of(spec.x) if spec.x != TIME else "time t (s)")
        item.setLabel("left", spec.y_label)
        if spec.x == TIME:
            # Clipping and peak downsampling assume x sorted: against time only (an x-y
            # plot clipped this way drew nothing).
            item.setClipToView(True)
            item.setDownsampling(auto=True, mode="peak")
        for side in ("left", "bottom"):
            axis = item.getAxis(side)
            axis.enableAutoSIPrefix(False)
            # The axes draw the grid across the plot. Cached as pixmaps, a moving time cursor
            # repaints from them instead of drawing ticks, labels and grid again (measured:
            # 21 → 7 ms CPU a cursor step for the two default plots; exports are unchanged).
            axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        if spec.log_y:
            item.setLogMode(y=True)
        self.legend = pg.LegendItem(offset=None, labelTextSize="8pt", verSpacing=0)
        self.legend.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.widget.ci.addItem(self.legend, row=0, col=1)
        self.widget.ci.layout.setAlignment(
            self.legend, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft
        )
        self.curves: dict[str, Any] = {}
        for index, (name, legend) in enumerate(spec.curves):
            color = spec.colors[index] if index < len(spec.colors) else TRACE_PALETTE[index % 7]
            width = 2.2 if name == "energy.total" else 1.6
            curve = item.plot([], [], pen=pg.mkPen(color, width=width))
            # Cached as a pixmap, a curve is not drawn again when only the time cursor moves
            # (measured: 24 → 6 ms CPU a cursor step with 1 250-point curves).
            curve.curve.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            self.legend.addItem(curve, legend)
            self.curves[name] = curve
        self.cursor = None
        self.marker = None
        if spec.x == TIME:
            self.cursor = pg.InfiniteLine(
                pos=0.0, angle=90, movable=True, pen=pg.mkPen(CURSOR_COLOR, width=1.5)
            )
            self.cursor.setHoverPen(pg.mkPen(CURSOR_COLOR, width=3))
            self.cursor.setVisible(False)
            self.cursor.sigDragged.connect(lambda line: seek(float(line.value())))
            item.addItem(self.cursor, ignoreBounds=True)
        else:
            self.marker = pg.ScatterPlotItem(size=9, brush=pg.mkBrush(CURSOR_COLOR), pen=None)
            self.marker.setVisible(False)
            item.addItem(self.marker)
        #: the user zoomed or panned: refreshes keep that range until ``autoscale``
        self.user_range = False
        self.view.sigRangeChangedManually.connect(self._range_changed_by_user)
        item.hideButtons()  # the panel's Autoscale button and a double click do it
        self.widget.scene().sigMouseClicked.connect(self._clicked)

    def _range_changed_by_user(self, *_args) -> None:
        self.user_range = True

    @property
    def view(self) -> Any:
        return self.item.getViewBox()

    def refresh(self, run: RunData | None) -> None:
        self.run = run
        if run is None or len(run) == 0:
            for curve in self.curves.values():
                curve.setData([], [])
            if not self.user_range:  # an empty plot: 0 … 1 (a log axis 1e-16 … 1e-6)
                self.view.setXRange(0.0, 1.0, padding=0.02)
                if self.spec.log_y:
                    self.view.setYRange(np.log10(LOG_FLOOR) + 2, -6, padding=0)
                else:
                    self.view.setYRange(0.0, 1.0, padding=0.02)
                self.view.enableAutoRange()  # the first data fits again
            return
        try:
            x = run.t if self.spec.x == TIME else run.quantity(self.spec.x)
            for name, curve in self.curves.items():
                y = run.quantity(name)
                if self.spec.log_y:
                    y = np.maximum(np.abs(y), LOG_FLOOR)
                curve.setData(x, y)
        except KeyError:
            return  # a quantity the current run does not have (another model)
        if self.spec.log_y and not self.user_range:
            self._log_range()
        # Fit the range now rather than when the plot paints: pyqtgraph fits it in the paint,
        # whose region then misses the axes, so every refresh painted the plot twice
        # (measured: 4 paints for 2 plots, ≈ 60 → 35 ms CPU a refresh).
        self.view.updateAutoRange()
        self.view.updateMatrix()

    def autoscale(self) -> None:
        """Fit both axes to the data again (after a zoom or pan) and keep fitting."""
        self.user_range = False
        self.view.enableAutoRange()
        if self.points() == 0:
            self.refresh(self.run)  # the default ranges of an empty plot
            return
        # The whole curves' bounds, set at once: autorange alone would first fit the part
        # of the curves clipped to the zoomed view.
        xs = np.concatenate([np.asarray(c.xData, float) for c in self._drawn()])
        self.view.setXRange(float(np.nanmin(xs)), float(np.nanmax(xs)))
        if self.spec.log_y:
            self._log_range()
        else:
            ys = np.concatenate([np.asarray(c.yData, float) for c in self._drawn()])
            self.view.setYRange(float(np.nanmin(ys)), float(np.nanmax(ys)))
        self.view.enableAutoRange()
        self.view.updateAutoRange()
        if self.spec.log_y:
            self._log_range()

    def _drawn(self) -> list[Any]:
        return [c for c in self.curves.values() if c.xData is not None and len(c.xData)]

    def _log_range(self) -> None:
        """At least six decades on a log axis, so that a flat 1e-16 does not fill the plot."""
        top, bottom = [], []
        for curve in self.curves.values():
            if curve.yData is not None and len(curve.yData):
                finite = np.asarray(curve.yData)
                top.append(float(finite.max()))
                bottom.append(float(finite.min()))
        if not top:
            return
        hi = np.log10(max(max(top), LOG_FLOOR))
        lo = np.log10(max(min(bottom), LOG_FLOOR))
        if hi - lo < 6:
            hi = max(hi + 1, lo + 6)
        self.view.setYRange(lo, hi, padding=0.04)  # (y autorange off: refit at each refresh)

    def _clicked(self, event: Any) -> None:
        """A click in the data area seeks there (a time, or the nearest point of an x-y
        plot); a double click fits the axes to the data again."""
        if event.button() != Qt.MouseButton.LeftButton:
            return
        pos = event.scenePos()
        if not self.view.sceneBoundingRect().contains(pos):
            return
        if event.double():
            self.autoscale()
            return
        run = self.run
        if run is None or len(run) == 0:
            return
        point = self.view.mapSceneToView(pos)
        if self.spec.x == TIME:
            self._seek(float(point.x()))
            return
        index = self._nearest(pos)
        if index is not None:
            self._seek(float(run.t[index]))

    def _nearest(self, scene_pos: Any) -> int | None:
        """Index of the frame drawn nearest to a scene point (pixels), on the first curve."""
        curve = next(iter(self.curves.values()), None)
        if curve is None or curve.xData is None or not len(curve.xData):
            return None
        x = np.asarray(curve.xData, float)
        y = np.asarray(curve.yData, float)
        if self.spec.log_y:
            y = np.log10(np.maximum(y, LOG_FLOOR))
        (x0, x1), (y0, y1) = self.view.viewRange()
        rect = self.view.sceneBoundingRect()
        px = (x - x0) / max(x1 - x0, 1e-300) * rect.width()
        py = (y - y0) / max(y1 - y0, 1e-300) * rect.height()
        cx = scene_pos.x() - rect.left()
        cy = rect.bottom() - scene_pos.y()
        return int(np.argmin((px - cx) ** 2 + (py - cy) ** 2))

    def set_cursor(self, run: RunData | None, index: int | None) -> None:
        if run is None or index is None or len(run) == 0:
            if self.cursor is not None:
                self.cursor.setVisible(False)
            if self.marker is not None:
                self.marker.setVisible(False)
            return
        if self.cursor is not None:
            self.cursor.setVisible(True)
            self.cursor.setValue(float(run.t[index]))
        elif self.marker is not None:
            try:
                x = run.quantity(self.spec.x)[index]
                name = next(iter(self.curves))
                y = run.quantity(name)[index]
            except (KeyError, StopIteration):
                return
            self.marker.setData([x], [y])
            self.marker.setVisible(True)

    def points(self) -> int:
        """Number of points drawn by the first curve (tests)."""
        curve = next(iter(self.curves.values()), None)
        if curve is None or curve.xData is None:
            return 0
        return len(curve.xData)

    def export(
        self,
        path: str | Path,
        size: tuple[int, int] = DEFAULT_EXPORT_SIZE,
        cursor_index: int | None = None,
    ) -> Path:
        """Write the plot as PNG or SVG (by the suffix) at ``size`` pixels, without the time
        cursor unless ``cursor_index`` is given; the current zoom is kept."""
        from app.plot_export import export_plot

        return export_plot(self, path, size, cursor_index)


class AddPlotDialog(QDialog):
    """Choose a quantity to plot against time or against another quantity."""

    def __init__(self, quantities: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add plot")
        form = QFormLayout(self)
        self.y_box = QComboBox(self)
        self.x_box = QComboBox(self)
        plottable = [q for q in quantities if q != TIME]
        for q in plottable:
            self.y_box.addItem(scene.label_of(q), q)
        self.x_box.addItem("time t (s)", TIME)
        for q in plottable:
            self.x_box.addItem(scene.label_of(q), q)
        form.addRow("Quantity (vertical axis)", self.y_box)
        form.addRow("Against (horizontal axis)", self.x_box)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def choice(self) -> tuple[str, str]:
        return self.y_box.currentData(), self.x_box.currentData()


class PlotsPanel(QWidget):
    """The plots dock: energies, constraint errors and added plots, in resizable panes (side
    by side, or in a grid of ``columns`` when the panel is maximised)."""

    time_requested = Signal(float)
    add_plot_requested = Signal()
    maximise_requested = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run: RunData | None = None
        self.plots: list[Plot] = []
        self.columns: int | None = None
        self._index: int | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.setSpacing(2)
        bar = QHBoxLayout()
        self.info = QLabel(NO_RESULTS, self)
        self.info.setObjectName("plotInfo")
        bar.addWidget(self.info, 1)
        self.autoscale_button = self._button(
            "Autoscale", "Fit every plot to its data again (or double-click a plot)"
        )
        self.autoscale_button.clicked.connect(self.autoscale)
        self.maximise_button = self._button(
            "Maximise", "Plots fill the window (again: back to the 3D view)"
        )
        self.maximise_button.setObjectName("maximisePlots")
        self.maximise_button.setCheckable(True)
        self.maximise_button.toggled.connect(self.maximise_requested)
        self.add_button = self._button(
            "Add plot…", "Plot any quantity of the results against time or another"
        )
        self.add_button.clicked.connect(self.add_plot_requested)
        for button in (self.autoscale_button, self.maximise_button, self.add_button):
            bar.addWidget(button)
        layout.addLayout(bar)
        self.grid = QSplitter(Qt.Orientation.Vertical, self)
        self.grid.setObjectName("plotGrid")
        self.grid.setChildrenCollapsible(False)
        layout.addWidget(self.grid, 1)
        self.energy = self.add(
            PlotSpec(
                "energy",
                "Energy",
                list(ENERGY_CURVES),
                y_label="energy (J)",
                colors=[ENERGY_COLORS[n.split(".")[1]] for n, _ in ENERGY_CURVES],
            )
        )
        self.constraints = self.add(
            PlotSpec(
                "constraints",
                "Constraint error",
                list(CONSTRAINT_CURVES),
                log_y=True,
                y_label="max |Φ|, max |Φ̇|",
                colors=[CONSTRAINT_COLORS["position"], CONSTRAINT_COLORS["velocity"]],
            )
        )

    def _button(self, text: str, tip: str) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(tip)
        return button

    # -- panes -----------------------------------------------------------------------------

    def set_columns(self, columns: int | None) -> None:
        """Arrange the panes in rows of ``columns`` (None: one row)."""
        self.columns = columns
        self._arrange()
        with QSignalBlocker(self.maximise_button):
            self.maximise_button.setChecked(columns is not None)

    def rows(self) -> list[QSplitter]:
        return [self.grid.widget(i) for i in range(self.grid.count())]

    def _arrange(self) -> None:
        per_row = self.columns or max(len(self.plots), 1)
        needed = max(1, -(-len(self.plots) // per_row))
        rows = self.rows()
        while len(rows) < needed:
            row = QSplitter(Qt.Orientation.Horizontal, self.grid)
            row.setChildrenCollapsible(False)
            self.grid.addWidget(row)
            rows.append(row)
        for k, plot in enumerate(self.plots):
            row = rows[k // per_row]
            position = k % per_row
            if row.indexOf(plot.widget) != position:
                row.insertWidget(position, plot.widget)
        for row in rows[needed:]:
            row.setParent(None)
            row.deleteLater()
        for row in self.rows():  # equal panes
            count = row.count()
            if count:
                row.setSizes([1000] * count)
        self.grid.setSizes([1000] * self.grid.count())

    def add(self, spec: PlotSpec) -> Plot:
        plot = Plot(spec, self.time_requested.emit)
        self.plots.append(plot)
        self._arrange()
        plot.refresh(self.run)
        plot.autoscale()  # fitted to the whole run at once
        plot.set_cursor(self.run, self._index)
        return plot

    def add_quantity(self, y: str, x: str = TIME) -> Plot:
        """A new plot of quantity ``y`` against ``x`` (time by default)."""
        title = y if x == TIME else f"{y} vs {x}"
        n = len(self.plots)
        return self.add(
            PlotSpec(
                f"user{n}",
                title,
                [(y, y)],
                x=x,
                y_label=scene.label_of(y),
                colors=[TRACE_PALETTE[n % len(TRACE_PALETTE)]],
            )
        )

    def remove_user_plots(self) -> None:
        for plot in self.plots[2:]:
            plot.widget.setParent(None)
            plot.widget.deleteLater()
        del self.plots[2:]
        self._arrange()

    # -- data --------------------------------------------------------------------------------

    def set_run(self, run: RunData | None) -> None:
        """Plot ``run`` (None: no results; the axes fit the data again either way)."""
        self.run = run
        self._index = None
        self.refresh()
        self.autoscale()
        self.set_cursor(None)

    def refresh(self) -> None:
        for plot in self.plots:
            plot.refresh(self.run)
        run = self.run
        if run is not None and len(run):
            self.info.setText(f"{count(len(run), 'frame')}, t = {run.t[0]:.4g} … {run.t[-1]:.4g} s")
        else:
            self.info.setText(NO_RESULTS)

    def autoscale(self) -> None:
        for plot in self.plots:
            plot.autoscale()

    def set_cursor(self, index: int | None) -> None:
        self._index = index
        for plot in self.plots:
            plot.set_cursor(self.run, index)

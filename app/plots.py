"""Live plots (pyqtgraph): energies, constraint errors on a log axis, and user-added plots.

The panel draws from ``RunData`` when ``refresh()`` is called (the main window calls it at a
bounded rate during a run), so a burst of frames costs one redraw. Every plot against time
has a time cursor; dragging it asks for that time (``time_requested``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app import scene
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
    """A PlotWidget with its curves and time cursor."""

    def __init__(self, spec: PlotSpec, on_cursor_dragged) -> None:
        self.spec = spec
        self.widget = pg.PlotWidget()
        self.widget.setObjectName(f"plot_{spec.key}")
        self.widget.setMinimumSize(220, 150)
        item = self.widget.getPlotItem()
        item.setTitle(spec.title, size="10pt")
        item.showGrid(x=True, y=True, alpha=PLOT_GRID_ALPHA)
        item.setLabel("bottom", scene.label_of(spec.x) if spec.x != TIME else "time t (s)")
        item.setLabel("left", spec.y_label)
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
        self.legend = item.addLegend(offset=(-8, 8), labelTextSize="8pt")
        self.legend.setBrush(pg.mkBrush(255, 255, 255, 200))
        self.curves: dict[str, Any] = {}
        for index, (name, legend) in enumerate(spec.curves):
            color = spec.colors[index] if index < len(spec.colors) else TRACE_PALETTE[index % 7]
            width = 2.2 if name == "energy.total" else 1.6
            curve = item.plot([], [], pen=pg.mkPen(color, width=width), name=legend)
            # Cached as a pixmap, a curve is not drawn again when only the time cursor moves
            # (measured: 24 → 6 ms CPU a cursor step with 1 250-point curves).
            curve.curve.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            self.curves[name] = curve
        self.cursor = None
        self.marker = None
        if spec.x == TIME:
            self.cursor = pg.InfiniteLine(
                pos=0.0, angle=90, movable=True, pen=pg.mkPen(CURSOR_COLOR, width=1.5)
            )
            self.cursor.setHoverPen(pg.mkPen(CURSOR_COLOR, width=3))
            self.cursor.setVisible(False)
            self.cursor.sigDragged.connect(lambda line: on_cursor_dragged(float(line.value())))
            item.addItem(self.cursor, ignoreBounds=True)
        else:
            self.marker = pg.ScatterPlotItem(size=9, brush=pg.mkBrush(CURSOR_COLOR), pen=None)
            self.marker.setVisible(False)
            item.addItem(self.marker)

    def refresh(self, run: RunData | None) -> None:
        if run is None or len(run) == 0:
            for curve in self.curves.values():
                curve.setData([], [])
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
        if self.spec.log_y:
            self._log_range()
        # Fit the range now rather than when the plot paints: pyqtgraph fits it in the paint,
        # whose region then misses the axes, so every refresh painted the plot twice
        # (measured: 4 paints for 2 plots, ≈ 60 → 35 ms CPU a refresh).
        view = self.widget.getPlotItem().getViewBox()
        view.updateAutoRange()
        view.updateMatrix()

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
        self.widget.getPlotItem().setYRange(lo, hi, padding=0.04)

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

    def export(self, path: str | Path) -> Path:
        """Write the plot as PNG or SVG, by the file's suffix."""
        from pyqtgraph.exporters import ImageExporter

        path = Path(path)
        item = self.widget.getPlotItem()
        if path.suffix.lower() == ".svg":
            self._export_svg(path)
        else:
            exporter = ImageExporter(item)
            width = max(int(item.boundingRect().width()), 400)
            exporter.parameters()["width"] = max(width, 1200)
            exporter.export(str(path))
        return path

    def _export_svg(self, path: Path) -> None:
        """Vector SVG through Qt's SVG painter (pyqtgraph's SVG exporter fails on some
        log-axis paths)."""
        from PySide6.QtCore import QRect, QSize
        from PySide6.QtGui import QPainter
        from PySide6.QtSvg import QSvgGenerator

        size = self.widget.size()
        generator = QSvgGenerator()
        generator.setFileName(str(path))
        generator.setSize(QSize(size.width(), size.height()))
        generator.setViewBox(QRect(0, 0, size.width(), size.height()))
        generator.setTitle(self.spec.title)
        generator.setDescription("Biela plot")
        painter = QPainter(generator)
        try:
            self.widget.render(painter)
        finally:
            painter.end()


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
    """The plots dock: energies, constraint errors, added plots side by side."""

    time_requested = Signal(float)
    add_plot_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run: RunData | None = None
        self.plots: list[Plot] = []
        self._index: int | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.setSpacing(2)
        bar = QHBoxLayout()
        self.info = QLabel("No results yet: Simulate ▸ Run (F5)", self)
        self.info.setObjectName("plotInfo")
        bar.addWidget(self.info, 1)
        self.add_button = QToolButton(self)
        self.add_button.setText("Add plot…")
        self.add_button.setToolTip("Plot any quantity of the results against time or another")
        self.add_button.clicked.connect(self.add_plot_requested)
        bar.addWidget(self.add_button)
        layout.addLayout(bar)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setChildrenCollapsible(False)
        layout.addWidget(self.splitter, 1)
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

    def add(self, spec: PlotSpec) -> Plot:
        plot = Plot(spec, self.time_requested.emit)
        self.plots.append(plot)
        self.splitter.addWidget(plot.widget)
        plot.refresh(self.run)
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

    def set_run(self, run: RunData | None) -> None:
        self.run = run
        self._index = None
        self.refresh()
        self.set_cursor(None)

    def refresh(self) -> None:
        for plot in self.plots:
            plot.refresh(self.run)
        if self.run is not None and len(self.run):
            self.info.setText(
                f"{len(self.run)} frames, t = {self.run.t[0]:.4g} … {self.run.t[-1]:.4g} s"
            )

    def set_cursor(self, index: int | None) -> None:
        self._index = index
        for plot in self.plots:
            plot.set_cursor(self.run, index)

"""Plot exports at a chosen pixel size (PNG, or SVG for vector), without the time cursor.

The pane on screen is not resized: a copy of the plot (same curves, the same zoom when the
user zoomed) is drawn off screen at the requested size. Text scales with the image above
``BASE_WIDTH`` pixels, so a large export reads like the pane.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QSpinBox,
    QToolButton,
    QWidget,
)

from app.theme import PLOT_BACKGROUND

#: Exports up to this width keep the pane's text size; wider ones scale it.
BASE_WIDTH = 1200
MIN_SIZE, MAX_SIZE = 200, 8000
FORMATS = "PNG image (*.png);;SVG vector image (*.svg)"


def export_plot(plot: Any, path: str | Path, size: tuple[int, int], cursor: int | None) -> Path:
    """Write ``plot`` (an ``app.plots.Plot``) to ``path`` (``.svg``: vector, else PNG) at
    ``size`` = (width, height) pixels; the time cursor at frame ``cursor`` (None: none)."""
    from app.plots import Plot

    path = Path(path)
    width, height = (min(max(int(v), MIN_SIZE), MAX_SIZE) for v in size)
    scale = max(1.0, width / BASE_WIDTH)
    copy = Plot(plot.spec, lambda _t: None)
    try:
        copy.refresh(plot.run)
        copy.autoscale()  # the whole curves (no event loop runs to widen a partial fit)
        if plot.user_range:  # keep the user's zoom
            (x0, x1), (y0, y1) = plot.view.viewRange()
            copy.user_range = True
            copy.view.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
        copy.set_cursor(plot.run, cursor)
        logical = QSize(round(width / scale), round(height / scale))
        copy.widget.resize(logical)
        if path.suffix.lower() == ".svg":
            _write_svg(copy.widget, path, logical, plot.spec.title)
        else:
            image = QImage(width, height, QImage.Format.Format_ARGB32)
            image.fill(QColor(PLOT_BACKGROUND))
            painter = QPainter(image)
            try:
                painter.setRenderHint(QPainter.RenderHint.Antialiasing)
                painter.scale(scale, scale)
                copy.widget.render(painter)
            finally:
                painter.end()
            if not image.save(str(path), "PNG"):
                raise OSError(f"cannot write {path}")
    finally:
        copy.widget.deleteLater()
    return path


def _write_svg(widget: QWidget, path: Path, size: QSize, title: str) -> None:
    """Vector SVG through Qt's SVG painter (pyqtgraph's SVG exporter fails on some log-axis
    paths)."""
    from PySide6.QtSvg import QSvgGenerator

    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(size)
    generator.setViewBox(QRect(0, 0, size.width(), size.height()))
    generator.setTitle(title)
    generator.setDescription("Biela plot")
    painter = QPainter(generator)
    try:
        widget.render(painter)
    finally:
        painter.end()


class PlotExportDialog(QDialog):
    """File, size in pixels and whether to draw the time cursor."""

    def __init__(self, title: str, path: Path, size: tuple[int, int], parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Export plot: {title}")
        form = QFormLayout(self)
        row = QHBoxLayout()
        self.path_edit = QLineEdit(str(path), self)
        self.path_edit.setObjectName("exportPath")
        self.path_edit.setMinimumWidth(360)
        browse = QToolButton(self)
        browse.setText("…")
        browse.setToolTip("Choose the file")
        browse.clicked.connect(self._browse)
        row.addWidget(self.path_edit, 1)
        row.addWidget(browse)
        form.addRow("File (.png or .svg)", row)
        self.width_box = self._spin(size[0], "exportWidth")
        self.height_box = self._spin(size[1], "exportHeight")
        form.addRow("Width (px)", self.width_box)
        form.addRow("Height (px)", self.height_box)
        self.cursor_box = QCheckBox("Draw the time cursor", self)
        self.cursor_box.setObjectName("exportCursor")
        form.addRow(self.cursor_box)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _spin(self, value: int, name: str) -> QSpinBox:
        box = QSpinBox(self)
        box.setObjectName(name)
        box.setRange(MIN_SIZE, MAX_SIZE)
        box.setSingleStep(100)
        box.setValue(int(value))
        box.setAlignment(Qt.AlignmentFlag.AlignRight)
        return box

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export plot", self.path_edit.text(), FORMATS)
        if path:
            self.path_edit.setText(path)

    def choice(self) -> tuple[Path, tuple[int, int], bool]:
        """``(path, (width, height), draw the cursor)``; a path without .png/.svg gets .png."""
        path = Path(self.path_edit.text().strip())
        if path.suffix.lower() not in (".png", ".svg"):
            path = path.with_suffix(".png")
        return path, (self.width_box.value(), self.height_box.value()), self.cursor_box.isChecked()

"""A time-function editor that previews f(t): for drivers, forces and torques.

The text is a number (constant), an expression in ``t`` (``2*pi*t``, ``0.1*sin(3*t)``) or
the JSON form of any time function of the model format (``{"smooth_step": {...}}``,
``{"polynomial": [...]}``, ``{"table": ...}``); it is read by the model reader, so what the
editor accepts is exactly what a file accepts.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from solver.model import ModelError
from solver.model.functions import TimeFunction, parse_function

TEMPLATES = {
    "constant": "1.0",
    "expression": "2*pi*t",
    "polynomial": '{"polynomial": [0, 1, 0.5]}',
    "smooth_step": '{"smooth_step": {"t0": 0, "f0": 0, "t1": 1, "f1": 1}}',
    "smooth_bump": '{"smooth_bump": {"t0": 0, "f0": 0, "tmax": 0.5, "fmax": 1, "t1": 1, "f1": 0}}',
    "table": '{"table": [[0, 0], [0.5, 1], [1, 0]], "interpolation": "linear"}',
}
ERROR_STYLE = "color: #b3261e;"


def parse_function_text(text: str, where: str = "", field: str = "function") -> TimeFunction:
    """A time function from the editor's text; ``ModelError`` naming what is wrong."""
    text = text.strip()
    if not text:
        raise ModelError(where, "is empty; give a number or an expression in t", field)
    try:
        return parse_function(float(text), where, field)
    except ValueError:
        pass
    if text[0] in "{[":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ModelError(where, f"is not valid JSON: {exc.msg}", field) from None
        return parse_function(data, where, field)
    return parse_function({"expression": text}, where, field)


def function_text(function: TimeFunction | float | None) -> str:
    """The editor's text for a function (the inverse of ``parse_function_text``)."""
    if function is None:
        return ""
    if isinstance(function, int | float):
        return f"{float(function):g}"
    spec = function.to_json()
    if isinstance(spec, int | float):
        return f"{float(spec):g}"
    if isinstance(spec, dict) and set(spec) == {"expression"}:
        return str(spec["expression"])
    return json.dumps(spec)


class FunctionEdit(QWidget):
    """Text of f(t), a template chooser, the reason when invalid and a preview plot."""

    changed = Signal()

    def __init__(self, text: str = "0", t_end: float = 1.0, parent: QWidget | None = None):
        super().__init__(parent)
        self.t_end = max(float(t_end), 1e-6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.kind = QComboBox(self)
        self.kind.addItem("template…", None)
        for key in TEMPLATES:
            self.kind.addItem(key.replace("_", " "), key)
        self.kind.activated.connect(self._template)
        self.edit = QLineEdit(text, self)
        self.edit.setObjectName("functionText")
        self.edit.setPlaceholderText("number, expression in t, or JSON time function")
        self.edit.textChanged.connect(self._update)
        row.addWidget(self.edit, 1)
        row.addWidget(self.kind)
        layout.addLayout(row)
        self.error = QLabel("", self)
        self.error.setObjectName("functionError")
        self.error.setStyleSheet(ERROR_STYLE)
        self.error.setWordWrap(True)
        layout.addWidget(self.error)
        self.plot = pg.PlotWidget(self)
        self.plot.setMinimumHeight(140)
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.setLabel("bottom", "t (s)")
        self.plot.setLabel("left", "f(t)")
        self.curve = self.plot.plot([], [], pen=pg.mkPen("#2f6fb3", width=2))
        layout.addWidget(self.plot)
        self._function: TimeFunction | None = None
        self._update()

    def _template(self, index: int) -> None:
        key = self.kind.itemData(index)
        if key:
            self.edit.setText(TEMPLATES[key])
        self.kind.setCurrentIndex(0)

    def _update(self) -> None:
        try:
            function = parse_function_text(self.edit.text())
            t = np.linspace(0.0, self.t_end, 201)
            values = np.broadcast_to(np.asarray(function(t), float), t.shape)
            if not np.all(np.isfinite(values)):
                raise ModelError("", "is not finite on [0, t_end]", "function")
        except ModelError as error:
            self._function = None
            self.error.setText(str(error))
            self.curve.setData([], [])
        else:
            self._function = function
            self.error.setText("")
            self.curve.setData(t, values)
        self.changed.emit()

    def function(self) -> TimeFunction | None:
        """The function typed, or None when the text is invalid (``error`` says why)."""
        return self._function

    def preview(self) -> tuple[np.ndarray, np.ndarray]:
        """The previewed samples (t, f(t))."""
        x, y = self.curve.getData()
        return (np.asarray(x if x is not None else []), np.asarray(y if y is not None else []))


class ItemDialog(QDialog):
    """A small form dialog: named fields (line edits, combos, function editors)."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setObjectName("buildItemDialog")
        layout = QVBoxLayout(self)
        self.form = QFormLayout()
        layout.addLayout(self.form)
        self.fields: dict[str, Any] = {}
        self.message = QLabel("", self)
        self.message.setObjectName("dialogError")
        self.message.setStyleSheet(ERROR_STYLE)
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.on_accept = None  # callable returning an error message or None

    def add(self, key: str, label: str, widget: QWidget) -> QWidget:
        self.fields[key] = widget
        widget.setObjectName(f"dialog_{key}")
        self.form.addRow(label, widget)
        return widget

    def text(self, key: str) -> str:
        widget = self.fields[key]
        if isinstance(widget, QComboBox):
            return str(widget.currentData() if widget.currentData() is not None else "")
        if isinstance(widget, FunctionEdit):
            return widget.edit.text()
        return widget.text()

    def accept(self) -> None:
        if self.on_accept is not None:
            problem = self.on_accept(self)
            if problem:
                self.message.setText(problem)
                return
        super().accept()

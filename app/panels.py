"""Docks beside the viewport: model tree, property panel, solver panel.

The panels show the ``Document``'s model and send edits to it (undoable); they never run
anything themselves.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QDoubleValidator, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.document import CATEGORIES, Document, find_item, items_of
from solver import formulation_parameters
from solver.model import description as d
from solver.model.errors import ModelError
from solver.model.functions import TimeFunction

ROLE = Qt.ItemDataRole.UserRole

#: Fields of model items the property panel lets the user edit (numbers, colours, names
#: of nothing structural): editing them cannot break references between items.
EDITABLE_NUMBERS = {
    "mass",
    "stiffness",
    "damping",
    "free_length",
    "free_angle",
    "length",
    "radius",
    "exponent",
    "restitution",
    "density",
}
EDITABLE_TEXT = {"color"}


def format_value(value: Any) -> str:
    """A model value as the property panel shows it."""
    if isinstance(value, TimeFunction):
        spec = value.to_json()
        if isinstance(spec, dict) and len(spec) == 1:
            ((kind, arg),) = spec.items()
            return f"{kind}: {json.dumps(arg) if not isinstance(arg, str) else arg}"
        return json.dumps(spec)
    if isinstance(value, tuple | list) and any(isinstance(v, TimeFunction) for v in value):
        return "(" + ", ".join(format_value(v) for v in value) + ")"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, tuple | list) and value and all(isinstance(v, int | float) for v in value):
        return "(" + ", ".join(f"{float(v):.6g}" for v in value) + ")"
    if isinstance(value, tuple | list) and value and all(isinstance(v, tuple) for v in value):
        return "; ".join(format_value(v) for v in value)
    return str(value)


class ModelTree(QTreeWidget):
    """Bodies, flexible bodies, joints, drivers, forces, contacts, outputs."""

    item_selected = Signal(str, str)  # category, name ("", "" when nothing)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelTree")
        self.setColumnCount(2)
        self.setHeaderLabels(["Item", "Type"])
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setAlternatingRowColors(True)
        self.setUniformRowHeights(True)
        self.itemSelectionChanged.connect(self._selection_changed)
        self._items: dict[tuple[str, str], QTreeWidgetItem] = {}

    def set_model(self, model: d.Model | None) -> None:
        with QSignalBlocker(self):
            self.clear()
            self._items.clear()
            if model is None:
                return
            bold = QFont(self.font())
            bold.setBold(True)
            for category, title in CATEGORIES:
                members = items_of(model, category)
                if not members and category in ("flexible", "contact", "driver", "output"):
                    continue
                if not members and category == "body" and items_of(model, "flexible"):
                    continue
                top = QTreeWidgetItem([f"{title} ({len(members)})", ""])
                top.setFont(0, bold)
                top.setFlags(top.flags() & ~Qt.ItemFlag.ItemIsSelectable)
                self.addTopLevelItem(top)
                for member in members:
                    kind = getattr(member, "type", "") or category
                    if category == "driver":
                        kind = f"drives {member.joint}"
                    elif category == "output":
                        kind = f"on {member.body}"
                    child = QTreeWidgetItem([member.name, kind])
                    child.setData(0, ROLE, (category, member.name))
                    top.addChild(child)
                    self._items[(category, member.name)] = child
                top.setExpanded(True)

    def item_for(self, category: str, name: str) -> QTreeWidgetItem | None:
        return self._items.get((category, name))

    def select(self, category: str, name: str) -> None:
        """Select an item (emits ``item_selected``); unknown → clear the selection."""
        item = self._items.get((category, name))
        if item is None:
            self.clearSelection()
            return
        self.setCurrentItem(item)
        self.scrollToItem(item)

    def selected(self) -> tuple[str, str] | None:
        items = self.selectedItems()
        if not items:
            return None
        data = items[0].data(0, ROLE)
        return tuple(data) if data else None

    def _selection_changed(self) -> None:
        key = self.selected()
        self.item_selected.emit(*(key or ("", "")))


class PropertyPanel(QTreeWidget):
    """The selected item's fields; numbers such as mass and stiffness are editable.

    ``validate(target, field, value)`` (optional) returns why a value is refused, or None;
    a refused value leaves the model unchanged and is reported by ``refused(reason)``."""

    refused = Signal(str)
    validate = None

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("propertyPanel")
        self.document = document
        self.setColumnCount(2)
        self.setHeaderLabels(["Property", "Value"])
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.setAlternatingRowColors(True)
        self.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.key: tuple[str, str] | None = None
        self.target: Any | None = None
        self._filling = False
        self.itemChanged.connect(self._edited)
        document.changed.connect(lambda _field: self.refresh())
        document.replaced.connect(lambda: self.show_item(None, None))

    def show_item(self, category: str | None, name: str | None) -> None:
        model = self.document.model
        self.key = (category, name) if category and name else None
        self.target = find_item(model, category, name) if model and self.key else None
        self.refresh()

    def refresh(self) -> None:
        self._filling = True
        try:
            self.clear()
            if self.target is None:
                return
            self._fill(self.invisibleRootItem(), self.target, editable=True)
            self.expandAll()
        finally:
            self._filling = False

    def _fill(self, parent: QTreeWidgetItem, obj: Any, editable: bool) -> None:
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if value is None or f.name == "warnings" or (isinstance(value, list) and not value):
                continue
            label = f.name.replace("_", " ")
            if dataclasses.is_dataclass(value) and not isinstance(value, TimeFunction):
                child = QTreeWidgetItem([label, ""])
                parent.addChild(child)
                self._fill(child, value, editable=False)
                continue
            if isinstance(value, list) and all(dataclasses.is_dataclass(v) for v in value):
                group = QTreeWidgetItem([label, f"{len(value)}"])
                parent.addChild(group)
                for i, v in enumerate(value):
                    child = QTreeWidgetItem([f"[{i}] {getattr(v, 'type', '')}", ""])
                    group.addChild(child)
                    self._fill(child, v, editable=False)
                continue
            row = QTreeWidgetItem([label, format_value(value)])
            row.setData(1, ROLE, f.name)
            if editable and (
                (f.name in EDITABLE_NUMBERS and isinstance(value, int | float))
                or f.name in EDITABLE_TEXT
            ):
                row.setFlags(row.flags() | Qt.ItemFlag.ItemIsEditable)
                row.setToolTip(1, "Double-click to edit (Edit ▸ Undo reverts)")
            parent.addChild(row)

    def _edited(self, row: QTreeWidgetItem, column: int) -> None:
        if self._filling or column != 1 or self.target is None:
            return
        field = row.data(1, ROLE)
        text = row.text(1).strip()
        old = getattr(self.target, field, None)
        try:
            value: Any = float(text) if field in EDITABLE_NUMBERS else text
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError
        except ValueError:
            self.refresh()
            return
        name = getattr(self.target, "name", "")
        if value != old:
            problem = self.validate(self.target, field, value) if self.validate else None
            if problem:  # refused with the reason; the model is unchanged
                self.refresh()
                self.refused.emit(problem)
                return
            self.document.set_field(self.target, field, value, f"Set {name}.{field}")
        else:
            self.refresh()


class SolverPanel(QWidget):
    """Analysis, coordinates, formulation, steps and tolerances, formulation parameters."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("solverPanel")
        self.document = document
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        general = QGroupBox("Analysis", self)
        form = QFormLayout(general)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.analysis = self._combo(d.ANALYSES, "analysis")
        self.coordinates = self._combo(d.COORDINATES, "coordinates")
        self.formulation = self._combo(d.FORMULATIONS, "formulation")
        form.addRow("Analysis", self.analysis)
        form.addRow("Coordinates", self.coordinates)
        form.addRow("Formulation", self.formulation)
        self.dt = self._number("dt", "time step (s)")
        self.t_end = self._number("t_end", "end time (s)")
        self.output_dt = self._number("output_dt", "output interval (s); blank = every step")
        self.tolerance = self._number("tolerance", "Newton tolerance")
        form.addRow("Time step Δt (s)", self.dt)
        form.addRow("End time (s)", self.t_end)
        form.addRow("Output interval (s)", self.output_dt)
        form.addRow("Tolerance", self.tolerance)
        layout.addWidget(general)
        self.params_box = QGroupBox("Formulation parameters", self)
        self.params_form = QFormLayout(self.params_box)
        self.params_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        layout.addWidget(self.params_box)
        self.param_widgets: dict[str, QWidget] = {}
        self.note = QLabel("", self)
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #5a6270;")
        layout.addWidget(self.note)
        layout.addStretch(1)
        document.replaced.connect(self.refresh)
        document.changed.connect(lambda _field: self.refresh())
        self.refresh()

    def _combo(self, choices, field: str) -> QComboBox:
        box = QComboBox(self)
        box.setObjectName(f"solver_{field}")
        for c in choices:
            box.addItem(c, c)
        box.currentIndexChanged.connect(lambda _i, b=box, f=field: self._set(f, b.currentData()))
        return box

    def _number(self, field: str, tip: str) -> QLineEdit:
        edit = QLineEdit(self)
        edit.setObjectName(f"solver_{field}")
        edit.setToolTip(tip)
        validator = QDoubleValidator(0.0, 1e12, 12, edit)
        validator.setNotation(QDoubleValidator.Notation.ScientificNotation)
        edit.setValidator(validator)
        edit.editingFinished.connect(lambda e=edit, f=field: self._number_edited(f, e))
        return edit

    def _set(self, field: str, value: Any) -> None:
        if self._refreshing or self.document.model is None:
            return
        self.document.set_solver(field, value)

    def _number_edited(self, field: str, edit: QLineEdit) -> None:
        if self._refreshing or self.document.model is None:
            return
        text = edit.text().strip()
        if not text and field == "output_dt":
            self.document.set_solver(field, None)
            return
        try:
            value = float(text)
        except ValueError:
            self.refresh()
            return
        if value <= 0 or not math.isfinite(value):
            self.refresh()
            return
        self.document.set_solver(field, value)

    _refreshing = False

    def refresh(self) -> None:
        model = self.document.model
        self.setEnabled(model is not None)
        self._refreshing = True
        try:
            s = model.solver if model is not None else d.SolverSettings()
            for box, value in (
                (self.analysis, s.analysis),
                (self.coordinates, s.coordinates),
                (self.formulation, s.formulation),
            ):
                i = box.findData(value)
                box.setCurrentIndex(max(i, 0))
            self.dt.setText(f"{s.dt:g}")
            self.t_end.setText(f"{s.t_end:g}")
            self.output_dt.setText("" if s.output_dt is None else f"{s.output_dt:g}")
            self.tolerance.setText(f"{s.tolerance:g}")
            self.formulation.setEnabled(s.analysis == "dynamic")
            self._build_parameters(s)
            steps = s.t_end / s.dt if s.dt > 0 else 0
            self.note.setText(f"{steps:,.0f} steps of {s.dt:g} s to t = {s.t_end:g} s.")
        finally:
            self._refreshing = False

    _params_for: tuple[str, str] | None = None

    def _build_parameters(self, s: d.SolverSettings) -> None:
        if self._params_for == (s.formulation, s.analysis) and self.param_widgets:
            self._update_parameters(s)  # never delete the widget whose signal is running
            return
        self._params_for = (s.formulation, s.analysis)
        while self.params_form.rowCount():
            self.params_form.removeRow(0)
        self.param_widgets.clear()
        try:  # the solver's public list: key, default, description, unit, choices
            spec = formulation_parameters(s.formulation)
        except ModelError:
            spec = ()
        self.params_box.setVisible(s.analysis == "dynamic")
        if not spec:
            self.params_form.addRow(QLabel("none", self.params_box))
            return
        for param in spec:
            key, default = param.name, param.default
            label = QLabel(f"{key} ({param.unit})" if param.unit else key, self.params_box)
            label.setToolTip(param.description)
            value = s.parameters.get(key)
            if param.kind == "choice":
                widget = QComboBox(self.params_box)
                widget.addItem(f"default ({default})", None)
                for choice in param.choices:
                    widget.addItem(choice, choice)
                widget.setCurrentIndex(max(widget.findData(value), 0) if value else 0)
                widget.currentIndexChanged.connect(
                    lambda _i, w=widget, k=key: self._param(k, w.currentData())
                )
            else:
                widget = QLineEdit(self.params_box)
                widget.setPlaceholderText("solver default" if default is None else f"{default:g}")
                widget.setText("" if value is None else f"{value:g}")
                widget.editingFinished.connect(lambda w=widget, k=key: self._param_text(k, w))
            widget.setObjectName(f"param_{key}")
            widget.setToolTip(param.description)
            self.param_widgets[key] = widget
            self.params_form.addRow(label, widget)

    def _update_parameters(self, s: d.SolverSettings) -> None:
        for key, widget in self.param_widgets.items():
            value = s.parameters.get(key)
            with QSignalBlocker(widget):
                if isinstance(widget, QComboBox):
                    widget.setCurrentIndex(max(widget.findData(value), 0) if value else 0)
                else:
                    widget.setText("" if value is None else f"{value:g}")

    def _param(self, key: str, value: Any) -> None:
        if not self._refreshing:
            self.document.set_parameter(key, value)

    def _param_text(self, key: str, edit: QLineEdit) -> None:
        if self._refreshing:
            return
        text = edit.text().strip()
        if not text:
            self.document.set_parameter(key, None)
            return
        try:
            value = float(text)
        except ValueError:
            self.refresh()
            return
        self.document.set_parameter(key, value)

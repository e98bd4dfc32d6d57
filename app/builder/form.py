"""The item editor: every field of the selected item, with units, validated as you type.

Each field is a line edit (or a choice of names and kinds). While typing, the value is
parsed and the whole model is validated with it (the model reader's rules, ``edits``); an
invalid value turns the field red and shows the reason under the form, and on Enter it is
refused: the model is left unchanged and the field shows the model's value again, with the
reason kept on screen. A valid value on Enter (or when the field loses focus) becomes one
undoable edit.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.builder import shapes
from app.builder.editor import EditRefused, ModelEditor, find, value_at, with_value
from app.builder.function_editor import function_text, parse_function_text
from solver.model import ModelError
from solver.model import description as d
from solver.model.functions import TimeFunction

ERROR_STYLE = "QLineEdit { border: 2px solid #b3261e; background: #fdecea; }"
#: Units shown after field labels.
UNITS = {
    "mass": "kg",
    "inertia": "kg·m²",
    "position": "m",
    "velocity": "m/s",
    "angular_velocity": "rad/s",
    "point": "m",
    "point1": "m",
    "point2": "m",
    "center": "m",
    "start": "m",
    "end": "m",
    "size": "m",
    "radius": "m",
    "length": "m",
    "free_length": "m",
    "free_angle": "rad",
    "stiffness": "N/m or N·m/rad",
    "damping": "N·s/m or N·m·s/rad",
    "density": "kg/m³",
    "gravity": "m/s²",
    "E": "Pa",
    "E1": "Pa",
    "E2": "Pa",
    "velocity_tolerance": "m/s",
}
#: Fields that name something: field → (what, includes ground / empty).
REFERENCES = {
    "body": "body",
    "body1": "body",
    "body2": "body",
    "joint": "joint",
}
CHOICES = {
    ("joint", "type"): d.JOINT_TYPES,
    ("force", "type"): tuple(t for t in d.FORCE_TYPES if t != "contact"),
    ("force", "frame"): ("", *d.FRAMES),
    ("contact", "model"): ("", *d.CONTACT_MODELS),
    ("joint", "slip"): ("", *d.ROLLING_SLIP),
    ("driver", "coordinate"): ("", "angle", "displacement"),
    ("shape", "type"): d.SHAPE_TYPES,
}
READ_ONLY = {"type"}  # for bodies: a rigid body does not become a point mass here


def parse_numbers(text: str, count: tuple[int, ...]) -> tuple[float, ...]:
    """``"1, 2, 3"`` (commas, semicolons or spaces; brackets allowed) → floats."""
    cleaned = text.replace("[", " ").replace("]", " ").replace("(", " ").replace(")", " ")
    parts = [p for p in cleaned.replace(";", ",").replace(",", " ").split() if p]
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        raise ValueError("give numbers separated by commas") from None
    if len(values) not in count:
        raise ValueError(f"give {' or '.join(str(c) for c in count)} numbers")
    if not all(math.isfinite(v) for v in values):
        raise ValueError("numbers must be finite")
    return values


def annotation_kind(annotation: str) -> str:
    """The editing kind of a dataclass field from its (string) annotation."""
    a = str(annotation)
    if "tuple[TimeFunction" in a:
        return "vector_functions"
    if a.startswith("tuple[str"):
        return "names"
    if "TimeFunction" in a:
        return "function"
    if "Mat3" in a:
        return "mat3"
    if "Quat" in a:
        return "quat"
    if "tuple[Vec3, Vec3]" in a:
        return "points2"
    if "Vec3" in a:
        return "vec3"
    if a.startswith("float") or a.startswith("int | float"):
        return "float"
    if a.startswith("int"):
        return "int"
    if a.startswith("str"):
        return "str"
    if a.startswith("list[Shape]"):
        return "shapes"
    if a.startswith("dict"):
        return "skip"
    return "object"


def parse_value(kind: str, text: str, optional: bool, where: str, field: str) -> Any:
    """The value typed for a field of ``kind``; ``ValueError``/``ModelError`` with the reason."""
    text = text.strip()
    if not text:
        if optional:
            return None
        raise ValueError("cannot be empty")
    if kind == "float":
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f'"{text}" is not a number') from None
        if not math.isfinite(value):
            raise ValueError("must be finite")
        return value
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            raise ValueError(f'"{text}" is not a whole number') from None
    if kind == "vec3":
        return parse_numbers(text, (3,))
    if kind == "quat":
        return parse_numbers(text, (4,))
    if kind == "mat3":
        v = parse_numbers(text, (3, 6, 9))
        if len(v) == 3:
            return ((v[0], 0.0, 0.0), (0.0, v[1], 0.0), (0.0, 0.0, v[2]))
        if len(v) == 6:  # Ixx Iyy Izz Ixy Ixz Iyz
            return ((v[0], v[3], v[4]), (v[3], v[1], v[5]), (v[4], v[5], v[2]))
        return (v[0:3], v[3:6], v[6:9])
    if kind == "points2":
        v = parse_numbers(text, (6,))
        return (v[0:3], v[3:6])
    if kind == "function":
        return parse_function_text(text, where, field)
    if kind == "names":
        return tuple(p.strip() for p in text.split(",") if p.strip())
    if kind == "vector_functions":
        parts = [p for p in text.split(";")]
        if len(parts) == 1:
            parts = [p for p in text.split(",")]
        if len(parts) != 3:
            raise ValueError("give three components separated by ';' (numbers or expressions)")
        return tuple(parse_function_text(p, where, f"{field}[{k}]") for k, p in enumerate(parts))
    return text


def _num(v: Any) -> str:
    """The shortest text that reads back as exactly this float (an untouched field that
    loses focus must not change the model)."""
    return repr(float(v) + 0.0)


def format_field(kind: str, value: Any) -> str:
    if value is None:
        return ""
    if kind == "float":
        return _num(value)
    if kind in ("vec3", "quat"):
        return ", ".join(_num(v) for v in value)
    if kind == "mat3":
        m = [[float(x) for x in row] for row in value]
        if all(m[i][j] == 0 for i in range(3) for j in range(3) if i != j):
            return ", ".join(_num(m[i][i]) for i in range(3))
        return "; ".join(", ".join(_num(x) for x in row) for row in m)
    if kind == "points2":
        return "; ".join(", ".join(_num(x) for x in p) for p in value)
    if kind == "function":
        return function_text(value)
    if kind == "vector_functions":
        return "; ".join(function_text(v) for v in value)
    if kind == "names":
        return ", ".join(value)
    return str(value)


def share_choices(joint_type: str) -> list[str]:
    """The ``share`` values of a joint type as the editor offers them: none, then every
    non-empty combination of what it can share (``"point, axis"``)."""
    items = d.SHARE_ITEMS.get(joint_type, ())
    combos = [
        ", ".join(x for k, x in enumerate(items) if mask >> k & 1)
        for mask in range(1, 2 ** len(items))
    ]
    return ["", *sorted(combos, key=lambda c: (c.count(","), c))]


@dataclasses.dataclass
class Row:
    path: tuple
    kind: str
    optional: bool
    widget: QWidget
    where: str


class ItemForm(QWidget):
    """The editor of one model item (see the module docstring)."""

    committed = Signal(str, str)  # category, name after an edit (the name may have changed)

    def __init__(self, editor: ModelEditor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("itemForm")
        self.editor = editor
        self.key: tuple[str, str] | None = None
        self.rows: dict[tuple, Row] = {}
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        self.title = QLabel("Select an item to edit it", self)
        self.title.setObjectName("itemFormTitle")
        self.title.setStyleSheet("font-weight: bold;")
        outer.addWidget(self.title)
        self.error = QLabel("", self)
        self.error.setObjectName("itemFormError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b3261e;")
        outer.addWidget(self.error)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        self.body = QWidget(scroll)
        self.layout_ = QVBoxLayout(self.body)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        scroll.setWidget(self.body)
        outer.addWidget(scroll, 1)
        self.recompute = QPushButton("Recompute mass and inertia from the shapes", self)
        self.recompute.setObjectName("recomputeMass")
        self.recompute.clicked.connect(self._recompute)
        outer.addWidget(self.recompute)
        self.recompute.hide()
        self.density = shapes.STEEL

    # -- showing -------------------------------------------------------------------------------

    def item(self) -> Any | None:
        model = self.editor.document.model
        if self.key is None or model is None:
            return None
        try:
            return find(model, *self.key)
        except KeyError:
            return None

    def show_item(self, category: str | None, name: str | None) -> None:
        self.key = (category, name) if category and name else None
        self.error.setText("")
        self.rebuild()

    def rebuild(self) -> None:
        for row in self.rows.values():
            row.widget.blockSignals(True)
        while self.layout_.count():
            w = self.layout_.takeAt(0).widget()
            if w is not None:
                w.hide()  # gone from the screen now, not when the event loop deletes it
                w.deleteLater()
        self.rows.clear()
        item = self.item()
        if item is None:
            self.title.setText("Select an item to edit it")
            self.recompute.hide()
            return
        category = self.key[0]
        self.title.setText(f"{category.capitalize()} {item.name}")
        box = QWidget(self.body)
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._add_fields(form, item, (), category, f'{category} "{item.name}"')
        self.layout_.addWidget(box)
        self.layout_.addStretch(1)
        self.recompute.setVisible(
            isinstance(item, d.RigidBody)
            and any(s.type in ("box", "cylinder", "rod", "sphere") for s in item.shapes)
        )

    def _add_fields(
        self, form: QFormLayout, obj: Any, prefix: tuple, category: str, where: str
    ) -> None:
        for f in dataclasses.fields(obj):
            if f.name in ("warnings",):
                continue
            value = getattr(obj, f.name)
            path = (*prefix, f.name)
            kind = annotation_kind(f.type)
            optional = "None" in str(f.type)
            label = f.name.replace("_", " ")
            if f.name in UNITS:
                label += f" ({UNITS[f.name]})"
            if kind == "skip":
                continue
            if f.name == "share" and getattr(obj, "type", None) not in d.SHARE_ITEMS:
                continue  # only spherical, revolute, universal and fixed joints share
            if kind == "shapes":
                for i, shape in enumerate(value):
                    group = QGroupBox(f"shape {i}: {shape.type}", self.body)
                    sub = QFormLayout(group)
                    self._add_fields(sub, shape, (*path, i), "shape", f"{where} shapes[{i}]")
                    form.addRow(group)
                continue
            if kind == "object":
                if value is None:
                    continue
                group = QGroupBox(label, self.body)
                sub = QFormLayout(group)
                self._add_fields(sub, value, path, f.name, f"{where} {f.name}")
                form.addRow(group)
                continue
            widget = self._widget(category, f.name, kind, value, optional, path)
            self.rows[path] = Row(path, kind, optional, widget, where)
            form.addRow(label, widget)

    def _widget(
        self, category: str, field: str, kind: str, value: Any, optional: bool, path: tuple
    ) -> QWidget:
        choices = CHOICES.get((category, field))
        if (category, field) == ("joint", "share"):
            choices = share_choices(self.item().type)
        model = self.editor.document.model
        if field in REFERENCES and category != "shape":
            what = REFERENCES[field]
            if what == "body":
                choices = ([""] if optional else []) + [d.GROUND] + [b.name for b in model.bodies]
            else:
                choices = [j.name for j in model.joints]
        if choices is not None and not (category == "body" and field in READ_ONLY):
            box = QComboBox(self.body)
            box.setObjectName("field_" + "_".join(str(p) for p in path))
            for c in choices:
                box.addItem(c or "(none)", c)
            current = "" if value is None else format_field(kind, value)
            index = box.findData(current)
            if index < 0:
                box.addItem(current, current)
                index = box.count() - 1
            box.setCurrentIndex(index)
            box.activated.connect(lambda _i, p=path: self._commit(p))
            return box
        edit = QLineEdit(format_field(kind, value), self.body)
        edit.setCursorPosition(0)
        edit.setObjectName("field_" + "_".join(str(p) for p in path))
        if category == "body" and field in READ_ONLY:
            edit.setReadOnly(True)
        edit.setToolTip(_tip(kind))
        edit.textEdited.connect(lambda _t, p=path: self._typed(p))
        edit.editingFinished.connect(lambda p=path: self._commit(p))
        return edit

    # -- editing -------------------------------------------------------------------------------

    def _text(self, row: Row) -> str:
        if isinstance(row.widget, QComboBox):
            return str(row.widget.currentData() or "")
        return row.widget.text()

    def candidate(self, path: tuple) -> tuple[Any, Any]:
        """``(new item, value)`` for the text in the field at ``path``; raises with the reason."""
        row = self.rows[path]
        item = self.item()
        field = ".".join(str(p) for p in path)
        try:
            value = parse_value(row.kind, self._text(row), row.optional, row.where, field)
        except ModelError as error:
            raise EditRefused(str(error), field, error.reason) from None
        except ValueError as error:
            raise EditRefused(f"{row.where}: {field} {error}", field, str(error)) from None
        new = with_value(item, path, value)
        self.editor.trial(lambda m: _replace_in(m, self.key, new))  # the reader's verdict
        return new, value

    def _typed(self, path: tuple) -> None:
        row = self.rows.get(path)
        if row is None or self.item() is None:
            return
        try:
            self.candidate(path)
        except EditRefused as error:
            row.widget.setStyleSheet(ERROR_STYLE)
            row.widget.setToolTip(str(error))
            self.error.setText(str(error))
            return
        row.widget.setStyleSheet("")
        row.widget.setToolTip(_tip(row.kind))
        self.error.setText("")

    def _commit(self, path: tuple) -> bool:
        """Apply the field at ``path`` (Enter, focus out, a choice): True if applied."""
        row = self.rows.get(path)
        item = self.item()
        if row is None or item is None:
            return False
        try:
            new, value = self.candidate(path)
            if value_at(item, path) == value:
                row.widget.setStyleSheet("")
                return False
            category, name = self.key
            self.editor.replace(category, name, new)
        except EditRefused as error:
            self.error.setText(f"Refused: {error}")
            self._restore(row, item)
            return False
        self.key = (self.key[0], new.name)
        self.error.setText("")
        self.committed.emit(*self.key)
        return True

    def _restore(self, row: Row, item: Any) -> None:
        row.widget.blockSignals(True)
        try:
            value = value_at(item, row.path)
            if isinstance(row.widget, QComboBox):
                row.widget.setCurrentIndex(
                    max(
                        row.widget.findData("" if value is None else format_field(row.kind, value)),
                        0,
                    )
                )
            else:
                row.widget.setText(format_field(row.kind, value))
            row.widget.setStyleSheet("")
        finally:
            row.widget.blockSignals(False)

    def set_field(self, path: tuple, text: str) -> bool:
        """Type ``text`` into the field at ``path`` and press Enter (scripting and tests)."""
        row = self.rows[path]
        if isinstance(row.widget, QComboBox):
            row.widget.setCurrentIndex(row.widget.findData(text))
        else:
            row.widget.setText(text)
            self._typed(path)
        return self._commit(path)

    def _recompute(self) -> None:
        item = self.item()
        if not isinstance(item, d.RigidBody):
            return
        try:
            new = shapes.recomputed(item, self.density)
            self.editor.replace("body", item.name, new)
        except (ValueError, EditRefused) as error:
            self.error.setText(f"Refused: {error}")


def _replace_in(model: d.Model, key: tuple[str, str], new: Any) -> None:
    from app.builder.editor import LISTS, rename_references

    category, name = key
    items = getattr(model, LISTS[category])
    old = find(model, category, name)
    if new.name != name:
        used = {
            it.name
            for k in ("bodies", "joints", "drivers", "forces", "outputs")
            for it in getattr(model, k)
        }
        if new.name in used or new.name == d.GROUND:
            raise EditRefused(f'name "{new.name}" is already used', "name")
        rename_references(model, category, name, new.name)
    items[items.index(old)] = new


def _tip(kind: str) -> str:
    return {
        "vec3": "x, y, z",
        "quat": "Euler parameters e0, e1, e2, e3",
        "mat3": "Ixx, Iyy, Izz (principal) or the 9 entries row by row",
        "points2": "x1, y1, z1; x2, y2, z2",
        "function": "number, expression in t, or JSON time function",
        "vector_functions": "three components separated by ';' (numbers or expressions in t)",
    }.get(kind, "Enter applies; Edit ▸ Undo reverts")


__all__ = ["ItemForm", "parse_value", "format_field", "Qt", "TimeFunction"]

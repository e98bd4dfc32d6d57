"""The open document: a model description, its file, and an undo stack of edits.

Opening validates like ``biela check`` (load, then validate and assemble) and raises
``DocumentError`` with the same one-line message, so the caller can keep the current
document. Edits go through ``QUndoCommand``\\ s; the document is modified while the undo
stack is not at its clean index.
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from solver import AssemblyError, ModelError, check, load_model, save_model
from solver.model import description as d

#: Categories of the model tree: (key, title, attribute of the model).
CATEGORIES = (
    ("body", "Bodies"),
    ("flexible", "Flexible bodies"),
    ("joint", "Joints"),
    ("driver", "Drivers"),
    ("force", "Forces"),
    ("contact", "Contacts"),
    ("output", "Outputs"),
)


#: The name of a new model until it is saved under a file name.
UNTITLED = "Untitled"


class DocumentError(Exception):
    """A model that cannot be opened; ``str()`` is the one-line message of ``biela check``."""


def check_message(path: Path, error: BaseException) -> str:
    """The message ``biela check`` prints for ``error`` raised while checking ``path``."""
    if isinstance(error, ModelError):
        text = str(error)
        return text if path.name in text or str(path) in text else f"{path.name}: {text}"
    if isinstance(error, OSError):
        return f"{path}: {error.strerror or error}"
    return f"{path.name}: {error}"


def load_checked(path: str | Path) -> tuple[d.Model, Any]:
    """Load and check a model file: ``(model, check report)``; ``DocumentError`` if invalid."""
    path = Path(path)
    try:
        model = load_model(path)
        report = check(model)
    except (ModelError, OSError) as error:
        raise DocumentError(check_message(path, error)) from None
    except (
        AssemblyError,
        RuntimeError,
        ArithmeticError,
        ValueError,
        np.linalg.LinAlgError,
    ) as error:
        # joints that cannot be closed, or a numerical problem: one line, as the CLI prints it
        raise DocumentError(check_message(path, error)) from None
    return model, report


def items_of(model: d.Model, category: str) -> list[Any]:
    """The model items shown under a model-tree category."""
    if category == "body":
        return [b for b in model.bodies if not isinstance(b, d.FlexibleBody)]
    if category == "flexible":
        return [b for b in model.bodies if isinstance(b, d.FlexibleBody)]
    if category == "joint":
        return list(model.joints)
    if category == "driver":
        return list(model.drivers)
    if category == "force":
        return [f for f in model.forces if f.type != "contact"]
    if category == "contact":
        return [f for f in model.forces if f.type == "contact"]
    if category == "output":
        return list(model.outputs)
    raise KeyError(category)


def find_item(model: d.Model, category: str, name: str) -> Any | None:
    return next((it for it in items_of(model, category) if it.name == name), None)


class SetFieldCommand(QUndoCommand):
    """Set ``target.<field> = value`` on a dataclass of the model (undoable)."""

    def __init__(self, document: Document, target: Any, field: str, value: Any, text: str):
        super().__init__(text)
        self.document = document
        self.target = target
        self.field = field
        self.value = value
        self.old = copy.deepcopy(getattr(target, field))
        self._where: tuple[str, str] | None = None
        model = document.model
        for key in ("bodies", "joints", "drivers", "forces", "outputs"):
            if model is not None and any(it is target for it in getattr(model, key)):
                self._where = (key, target.name)

    def _current_target(self) -> Any:
        """The target in the model as it is now: structural edits (``app.builder``) restore
        copies of items, so a model item is found again by its list and name."""
        model = self.document.model
        if self._where is None or model is None:
            return self.target
        key, name = self._where
        return next((it for it in getattr(model, key) if it.name == name), self.target)

    def _set(self, value: Any) -> None:
        setattr(self._current_target(), self.field, copy.deepcopy(value))
        self.document.changed.emit(self.field)

    def redo(self) -> None:
        self._set(self.value)

    def undo(self) -> None:
        self._set(self.old)


class Document(QObject):
    """The model being worked on. Signals: ``replaced`` (a new model), ``changed`` (an edit,
    with the field name), ``modified_changed(bool)``, ``path_changed``."""

    replaced = Signal()
    changed = Signal(str)
    modified_changed = Signal(bool)
    path_changed = Signal()
    lock_changed = Signal(str)  # why edits are refused ("" = unlocked)
    refused = Signal(str)  # an edit refused while locked: the reason

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model: d.Model | None = None
        self.path: Path | None = None
        self.report: Any | None = None  # the CheckReport of the model as opened
        self.locked = ""  # while set (the reason), the model is not edited
        self.undo_stack = QUndoStack(self)
        # a bound slot (not a lambda): Qt drops the connection when the document is deleted
        self.undo_stack.cleanChanged.connect(self._clean_changed)

    def _clean_changed(self, clean: bool) -> None:
        self.modified_changed.emit(not clean)

    # -- state -------------------------------------------------------------------------------

    @property
    def is_modified(self) -> bool:
        return self.model is not None and not self.undo_stack.isClean()

    @property
    def name(self) -> str | None:
        if self.model is None:
            return None
        if self.model.name and self.model.name != UNTITLED:
            return self.model.name
        return self.path.stem if self.path else UNTITLED  # a new model: its file's name

    # -- file operations ---------------------------------------------------------------------

    def set_locked(self, reason: str) -> None:
        """Refuse edits while ``reason`` is set (a run streams); ``""`` unlocks."""
        if reason != self.locked:
            self.locked = reason
            self.lock_changed.emit(reason)

    def new(self) -> None:
        """An empty model (no file yet)."""
        self._replace(d.Model(name=UNTITLED), None, None)

    def open(self, path: str | Path) -> None:
        """Make the model at ``path`` the document; ``DocumentError`` keeps the current one."""
        path = Path(path)
        model, report = load_checked(path)
        self._replace(model, path, report)

    def save(self, path: str | Path | None = None) -> Path:
        """Write the model (to ``path``, or its own file); raises ``OSError``/``ModelError``."""
        if self.model is None:
            raise ValueError("no model to save")
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("no file name")
        save_model(self.model, target)
        if target != self.path:
            self.path = target
            self.path_changed.emit()
        self.undo_stack.setClean()
        return target

    def recheck(self) -> Any:
        """``check`` the current model (after edits); raises ``DocumentError``."""
        if self.model is None:
            raise DocumentError("no model")
        try:
            self.report = check(self.model)
        except Exception as error:  # same one line as the CLI, never a traceback
            raise DocumentError(check_message(self.path or Path("model"), error)) from None
        return self.report

    def _replace(self, model: d.Model, path: Path | None, report: Any | None) -> None:
        self.model = model
        self.path = path
        self.report = report
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self.replaced.emit()
        self.path_changed.emit()
        self.modified_changed.emit(False)

    # -- edits -------------------------------------------------------------------------------

    def set_field(self, target: Any, field: str, value: Any, text: str | None = None) -> None:
        """Undoable ``target.field = value`` (no-op when equal)."""
        if getattr(target, field) == value:
            return
        if self.locked:
            self.refused.emit(self.locked)
            return
        label = text or f"Set {field}"
        self.undo_stack.push(SetFieldCommand(self, target, field, value, label))

    def set_solver(self, field: str, value: Any) -> None:
        """Undoable change of a solver setting (``dt``, ``formulation``, ...)."""
        if self.model is None:
            return
        if field not in {f.name for f in dataclasses.fields(d.SolverSettings)}:
            raise KeyError(field)
        self.set_field(self.model.solver, field, value, f"Set solver {field}")

    def set_parameter(self, key: str, value: Any) -> None:
        """Undoable change of one formulation parameter (``None`` removes it)."""
        if self.model is None:
            return
        params = dict(self.model.solver.parameters)
        if value is None:
            params.pop(key, None)
        else:
            params[key] = value
        self.set_field(self.model.solver, "parameters", params, f"Set parameter {key}")

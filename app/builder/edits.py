"""Undoable edits of a model's items, validated before they are applied.

Every structural edit (add, remove, modify, rename, move) is a ``ModelEdit``: a snapshot of
the model's items before and after. The "after" snapshot is the candidate model read back
through the JSON reader (``model_to_json`` → ``model_from_data``), so an edit that the file
format would refuse is refused here with the reader's message (naming the item and field)
and nothing is half-applied; and what is in the document is exactly what a saved file loads.
The solver settings are not part of the snapshot: the solver panel edits them on its own.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

from PySide6.QtGui import QUndoCommand

from solver.model import ModelError
from solver.model import description as d
from solver.model.io import model_from_data, model_to_json

#: The parts of a model that an edit snapshot holds.
SNAPSHOT_FIELDS = (
    "name",
    "gravity",
    "description",
    "bodies",
    "joints",
    "drivers",
    "forces",
    "outputs",
)
#: Field name sent with ``Document.changed`` after a structural edit.
CHANGED_FIELD = "model"


class EditRefused(Exception):
    """An edit the model format refuses; ``str()`` names the item and field and the reason."""

    def __init__(self, message: str, field: str = "", reason: str = "") -> None:
        super().__init__(message)
        self.field = field
        self.reason = reason or message


@dataclass
class Snapshot:
    """Deep copies of the model's items (see ``SNAPSHOT_FIELDS``)."""

    values: dict[str, Any]

    @classmethod
    def of(cls, model: d.Model) -> Snapshot:
        return cls({k: copy.deepcopy(getattr(model, k)) for k in SNAPSHOT_FIELDS})

    def apply_to(self, model: d.Model) -> None:
        for key, value in self.values.items():
            setattr(model, key, copy.deepcopy(value))


def validated(candidate: d.Model) -> d.Model:
    """``candidate`` as the file reader returns it after a save; ``EditRefused`` if invalid."""
    try:
        return model_from_data(json.loads(model_to_json(candidate)))
    except ModelError as error:
        raise EditRefused(str(error), error.field, error.reason) from None
    except (TypeError, ValueError, AttributeError) as error:  # a value of the wrong kind
        raise EditRefused(f"invalid value: {error}") from None


class ModelEdit(QUndoCommand):
    """Replace the model's items by ``after``; undo puts ``before`` back."""

    def __init__(self, document: Any, before: Snapshot, after: Snapshot, text: str) -> None:
        super().__init__(text)
        self.document = document
        self.before = before
        self.after = after

    def _apply(self, snapshot: Snapshot) -> None:
        model = self.document.model
        if model is None:
            return
        snapshot.apply_to(model)
        self.document.changed.emit(CHANGED_FIELD)

    def redo(self) -> None:
        self._apply(self.after)

    def undo(self) -> None:
        self._apply(self.before)

"""The error of a study that cannot start: a key, a value or a setting, named."""

from __future__ import annotations

from solver.model.errors import ModelError


class StudyError(ModelError):
    """A study refused before anything runs. ``key`` is the key at fault (may be empty);
    the message names it: ``key bodies.bob.mass: mass must be positive (got -1)``."""

    def __init__(self, key: str, reason: str, keys: list[str] | None = None) -> None:
        if keys and len(keys) > 1:
            location = f"keys {', '.join(keys)}"
        else:
            location = f"key {key}" if key else "study"
        super().__init__(location, reason)
        self.key = key

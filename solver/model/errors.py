"""Errors raised while reading or validating a model description."""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` safe to show on a terminal: control, format and unpaired surrogate
    characters (ESC, DEL, bidirectional overrides, ``\\ud800`` …) become Python escapes
    such as ``\\x1b``, so a name in a model file cannot move the cursor or recolour the
    screen. Ordinary text, including non-ASCII letters, is unchanged."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class ModelError(ValueError):
    """An invalid model: the message names the item and the field.

    ``location`` is the path of the offending item, e.g. ``joints[2] "J3"``;
    ``field`` the offending field (may be empty); ``reason`` the plain-language cause.
    ``str(error)`` is a single line suitable for the command line, e.g.
    ``joints[2] "J3": body2 "crank2" does not exist`` (location, then field, then reason).
    """

    def __init__(self, location: str, reason: str, field: str = "") -> None:
        self.location = location
        self.field = field
        self.reason = reason
        super().__init__(self.message)

    @property
    def message(self) -> str:
        detail = f"{self.field} {self.reason}" if self.field else self.reason
        return printable(f"{self.location}: {detail}" if self.location else detail)

    def with_file(self, filename: str) -> ModelError:
        """Return a copy whose message starts with the file name."""
        loc = f"{filename}: {self.location}" if self.location else filename
        return ModelError(loc, self.reason, self.field)


class ModelWarning(UserWarning):
    """A model issue that was corrected automatically (e.g. a quaternion normalised)."""


class UnsupportedFeature(ModelError):
    """A valid model uses something this version of the solver cannot compute yet."""

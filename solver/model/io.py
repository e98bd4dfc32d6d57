"""Load and save model files (JSON, ``"biela": 1``).

``load_model`` reads, type-checks and validates a file; every mistake raises
``ModelError`` whose message starts with the file name and names the item and field,
e.g. ``model.json: joints[2] "J3": body2 "crank2" does not exist``. Malformed JSON is
reported with its line and column. Nothing in a model file is ever executed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from solver.model.description import Model
from solver.model.errors import ModelError
from solver.model.reader import read_model
from solver.model.validation import validate_model
from solver.model.writer import write_model

#: Refuse files larger than this (bytes): a model is text, not data.
MAX_FILE_SIZE = 64 * 1024 * 1024


def model_from_data(data: Any) -> Model:
    """Read and validate parsed JSON data (raises ``ModelError``)."""
    model = read_model(data)
    validate_model(model)
    return model


def parse_model_text(text: str, filename: str = "<model>") -> Model:
    """Parse JSON text into a validated ``Model`` (errors start with ``filename``)."""
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise ModelError(
            filename, f"is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except ValueError as exc:  # NaN / Infinity literals
        raise ModelError(filename, f"is not valid JSON: {exc}") from None
    except RecursionError:
        raise ModelError(filename, "is not valid JSON: nested too deeply") from None
    try:
        return model_from_data(data)
    except ModelError as exc:
        raise exc.with_file(filename) from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed (JSON numbers must be finite)")


def load_model(path: str | os.PathLike) -> Model:
    """Load, check and validate a model file."""
    path = Path(path)
    name = path.name
    try:
        size = path.stat().st_size
        if size > MAX_FILE_SIZE:
            raise ModelError(
                name,
                f"is {size / 1e6:.0f} MB; a model file must be under {MAX_FILE_SIZE // 2**20} MiB",
            )
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ModelError(str(path), "does not exist") from None
    except IsADirectoryError:
        raise ModelError(str(path), "is a folder, not a model file") from None
    except PermissionError:
        raise ModelError(str(path), "cannot be read (permission denied)") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ModelError(
            name, f"is not UTF-8 text (byte {exc.start}); save it as UTF-8 JSON"
        ) from None
    return parse_model_text(text, name)


def _format(value: Any, indent: int, depth: int) -> str:
    """JSON with short vectors and small items on one line, the rest indented by 2."""
    flat = json.dumps(value, ensure_ascii=False)
    scalars = isinstance(value, list) and all(not isinstance(v, dict | list) for v in value)
    if not isinstance(value, dict | list) or (
        len(flat) + indent <= 100
        and (scalars or depth >= 3 or isinstance(value, list) and depth >= 2)
    ):
        return flat
    pad, inner = " " * indent, " " * (indent + 2)
    if isinstance(value, list):
        items = [inner + _format(v, indent + 2, depth + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]" if items else "[]"
    items = [
        f"{inner}{json.dumps(k, ensure_ascii=False)}: {_format(v, indent + 2, depth + 1)}"
        for k, v in value.items()
    ]
    return "{\n" + ",\n".join(items) + "\n" + pad + "}" if items else "{}"


def model_to_json(model: Model) -> str:
    """The JSON text of ``model`` (readable: vectors and small items on one line)."""
    return _format(write_model(model), 0, 0) + "\n"


def save_model(model: Model, path: str | os.PathLike) -> None:
    """Write ``model`` to ``path`` atomically (a temporary file, then a rename)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(model_to_json(model), encoding="utf-8")
    os.replace(tmp, path)

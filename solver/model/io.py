"""Load and save model files (JSON, ``"biela": 1``).

``load_model`` reads, type-checks and validates a file; every mistake raises
``ModelError`` whose message starts with the file name and names the item and field,
e.g. ``model.json: joints[2] "J3": body2 "crank2" does not exist``. Malformed JSON is
reported with its line and column. Nothing in a model file is ever executed.
"""

from __future__ import annotations

import json
import os
import stat
import sys
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
    duplicates: list[tuple[dict, str]] = []
    try:
        data = json.loads(
            text, parse_constant=_refuse_constant, object_pairs_hook=_unique_keys(duplicates)
        )
    except json.JSONDecodeError as exc:
        raise ModelError(
            filename, f"is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except ValueError as exc:  # NaN / Infinity literals, integers of over 4300 digits
        if "integer string conversion" in str(exc):
            reason = f"has a number of more than {sys.get_int_max_str_digits()} digits"
        else:
            reason = f"is not valid JSON: {exc}"
        raise ModelError(filename, reason) from None
    except RecursionError:
        raise ModelError(filename, "is not valid JSON: nested too deeply") from None
    try:
        if duplicates:
            raise duplicate_key_error(data, *duplicates[0])
        return model_from_data(data)
    except ModelError as exc:
        raise exc.with_file(filename) from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed (JSON numbers must be finite)")


def _unique_keys(duplicates: list[tuple[dict, str]]):
    """A ``json`` object hook that builds plain dicts and notes each object in which a key
    appears twice (JSON allows it, and the last value would silently win)."""

    def build(pairs: list[tuple[str, Any]]) -> dict:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            key = next(k for k, _ in pairs if k in seen or seen.add(k))
            duplicates.append((obj, key))
        return obj

    return build


def duplicate_key_error(data: Any, obj: dict, key: str) -> ModelError:
    """The error for ``key`` given twice in ``obj``, naming the item as the reader would
    (``bodies[0] "bob": mass``, ``solver: dt``)."""
    where, prefix = "model", ""
    stack: list[tuple[Any, str, str]] = [(data, "model", "")]
    while stack:  # iterative: a model may nest deeply
        node, at, pre = stack.pop()
        if node is obj:
            where, prefix = at, pre
            break
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, dict | list):
                    if node is data and k == "solver":
                        stack.append((v, "solver", ""))
                    else:
                        stack.append((v, at, f"{pre}{k}."))
        elif isinstance(node, list):
            kind = pre[:-1] if at == "model" else ""
            for i, v in enumerate(node):
                if kind:  # an item of a top-level list: bodies[0] "bob"
                    name = v.get("name") if isinstance(v, dict) else None
                    label = f'{kind}[{i}] "{name}"' if isinstance(name, str) else f"{kind}[{i}]"
                    stack.append((v, label, ""))
                else:
                    stack.append((v, at, f"{pre[:-1]}[{i}]."))
    return ModelError(
        where, "is given twice in one object; JSON keys must be unique (remove one)", prefix + key
    )


#: What a path that is not a regular file is, for the message.
_FILE_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
)


def read_model_bytes(path: str | os.PathLike) -> bytes:
    """The bytes of a model file, at most ``MAX_FILE_SIZE``: a regular file only (a device
    such as ``/dev/zero`` never ends, a named pipe may never be written), opened without
    blocking and read no further than the limit whatever size it claims. Every failure is a
    ``ModelError`` naming the path."""
    where = str(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise ModelError(where, "does not exist") from None
    except IsADirectoryError:
        raise ModelError(where, "is a folder, not a model file") from None
    except PermissionError:
        raise ModelError(where, "cannot be read (permission denied)") from None
    except OSError as exc:  # a symbolic-link loop, a name too long, an I/O error, ...
        raise ModelError(where, f"cannot be read ({exc.strerror or exc})") from None
    except ValueError:  # a NUL character in the path
        raise ModelError(where, "is not a valid file name") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise ModelError(where, "is a folder, not a model file")
        if not stat.S_ISREG(info.st_mode):
            kind = next((k for test, k in _FILE_KINDS if test(info.st_mode)), "not a file")
            raise ModelError(where, f"is {kind}, not a model file (give a JSON file)")
        if info.st_size > MAX_FILE_SIZE:
            raise _too_large(where, info.st_size)
        os.set_blocking(fd, True)
        chunks, size = [], 0
        while size <= MAX_FILE_SIZE:
            chunk = os.read(fd, min(1 << 20, MAX_FILE_SIZE + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_FILE_SIZE:  # larger than it said (a file being written, /proc)
            raise _too_large(where, size, more=True)
        return b"".join(chunks)
    except OSError as exc:
        raise ModelError(where, f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def _too_large(where: str, size: int, more: bool = False) -> ModelError:
    what = "more than " if more else ""
    return ModelError(
        where,
        f"is {what}{size / 1e6:.0f} MB; a model file must be under {MAX_FILE_SIZE // 2**20} MiB",
    )


def load_model(path: str | os.PathLike) -> Model:
    """Load, check and validate a model file."""
    raw = read_model_bytes(path)
    name = Path(path).name
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

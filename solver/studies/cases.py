"""The cases of a study: a full grid of the varied keys, times N sampled draws.

``make_cases(data, vary, sample, samples, seed)`` sets every key on a copy of the model's
JSON data and re-reads the copy through the model reader and validation, exactly as a file
would be read (:func:`solver.model.model_from_data`): a value the format refuses stops the
study before anything runs, with the key named. The grid's last key varies fastest; with
both ``vary`` and ``sample``, every grid point runs the same N draws (common random numbers,
so grid points compare on equal draws). Draw ``j`` uses its own generator from
``numpy.random.SeedSequence(seed).spawn(N)[j]``: reproducible for a seed, whatever the
number of workers or the order in which cases finish.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solver.model import Model, ModelError, model_from_data
from solver.studies.errors import StudyError
from solver.studies.keys import set_value, split_key
from solver.studies.values import Distribution, parse_distribution

#: Refuse studies larger than this many cases (a typo such as --samples 1e9).
MAX_CASES = 100_000


@dataclass
class Case:
    """One run of a study: ``index`` from 0, the ``values`` of its keys (in key order), the
    validated ``model``; ``sample`` is the draw number (``None`` without ``sample``)."""

    index: int
    values: dict[str, Any]
    model: Model
    sample: int | None = None
    data: dict = field(default_factory=dict, repr=False)

    def label(self) -> str:
        return ", ".join(f"{k}={_short(v)}" for k, v in self.values.items())


def _short(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _check_key(key: str) -> None:
    parts = split_key(key)
    if parts[-1] == "name":
        raise StudyError(key, "names cannot be varied (the result columns are named after them)")
    if parts[0] == "biela":
        raise StudyError(key, "the format version cannot be varied")


def _validate(data: dict, keys: list[str], values: list[Any], what: str = "") -> Model:
    """The model of ``data``, or a ``StudyError`` naming the keys whose values it refuses."""
    try:
        return model_from_data(data)
    except ModelError as exc:
        shown = ", ".join(_short(v) for v in values)
        if len(keys) == 1:
            reason = f"{what}value {shown} is refused: {exc}"
        else:
            reason = f"{what}values {shown} are refused together: {exc}"
        raise StudyError(keys[0], reason, keys) from None


def make_cases(
    data: dict,
    defaults: dict | None = None,
    vary: dict[str, list[Any]] | None = None,
    sample: dict[str, Any] | None = None,
    samples: int | None = None,
    seed: int | None = None,
) -> tuple[list[Case], int | None]:
    """The validated cases, and the seed used (drawn when ``None`` and ``sample`` is given).

    ``data`` is the model file's JSON data, ``defaults`` the model writer's data of the same
    model (fills fields the file leaves out)."""
    vary = dict(vary or {})
    sample = dict(sample or {})
    if not vary and not sample:
        raise StudyError("", "nothing to vary: give at least one key to vary or to sample")
    for key in [*vary, *sample]:
        _check_key(key)
    both = set(vary) & set(sample)
    if both:
        raise StudyError(sorted(both)[0], "is both varied and sampled")
    grid_values: list[list[Any]] = []
    for key, values in vary.items():
        values = list(values) if isinstance(values, list | tuple | np.ndarray) else [values]
        if not values:
            raise StudyError(key, "has no values")
        values = [v.item() if isinstance(v, np.generic) else v for v in values]
        for value in values:  # each value on its own: the error names the key and the value
            _validate(set_value(data, key, value, defaults), [key], [value])
        grid_values.append(values)
    dists = {key: parse_distribution(key, spec) for key, spec in sample.items()}
    if dists:
        if samples is None or isinstance(samples, bool) or int(samples) != samples or samples < 1:
            raise StudyError(
                "", f"samples must be a whole number ≥ 1 with sampled keys (got {samples!r})"
            )
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % (2**63))
        draws = _draws(dists, int(samples), seed)
        for j, draw in enumerate(draws):
            for key, value in zip(dists, draw, strict=True):
                _validate(set_value(data, key, value, defaults), [key], [value], f"sample {j}: ")
    else:
        if samples is not None:
            raise StudyError("", "samples is given without a sampled key")
        draws = [None]
    total = int(np.prod([len(v) for v in grid_values])) * len(draws)
    if total > MAX_CASES:
        raise StudyError("", f"{total} cases is more than {MAX_CASES}")
    keys = [*vary, *dists]
    cases: list[Case] = []
    for point in itertools.product(*grid_values):
        for j, draw in enumerate(draws):
            values = [*point, *(draw or [])]
            case_data = data
            for key, value in zip(keys, values, strict=True):
                case_data = set_value(case_data, key, value, defaults)
            model = _validate(case_data, keys, values, f"case {len(cases)}: ")
            cases.append(
                Case(
                    len(cases),
                    dict(zip(keys, values, strict=True)),
                    model,
                    j if draw is not None else None,
                    case_data,
                )  # fmt: skip
            )
    return cases, seed if dists else None


def _draws(dists: dict[str, Distribution], n: int, seed: int) -> list[list[float]]:
    out = []
    for child in np.random.SeedSequence(seed).spawn(n):
        rng = np.random.default_rng(child)
        out.append([dist.draw(rng) for dist in dists.values()])
    return out

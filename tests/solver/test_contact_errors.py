"""Invalid contacts exit 1 with one line naming the contact and the field, in both
``biela check`` and ``biela run`` (acceptance of contact input checks: a sphere with zero radius, a
plane with a zero normal, a negative stiffness), for sphere–plane and sphere–sphere contacts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solver.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def contact_model(example: str) -> dict:
    data = json.loads((EXAMPLES / f"{example}.json").read_text())
    data["solver"]["t_end"] = 0.01
    return data


CASES = {  # example, change to forces[0], words the message must hold
    "plane: zero sphere radius": ("ball_drop", lambda f: f["sphere"].update(radius=0), "radius"),
    "plane: negative sphere radius": (
        "ball_drop",
        lambda f: f["sphere"].update(radius=-0.05),
        "radius",
    ),
    "plane: zero normal": ("ball_drop", lambda f: f["plane"].update(normal=[0, 0, 0]), "normal"),
    "plane: negative stiffness": (
        "ball_drop",
        lambda f: (f.pop("materials"), f.update(stiffness=-1e9)),
        "stiffness",
    ),
    "sphere2: zero radius": ("newtons_cradle", lambda f: f["sphere2"].update(radius=0), "radius"),
    "sphere2: negative stiffness": (
        "newtons_cradle",
        lambda f: (f.pop("materials"), f.update(stiffness=-5e9)),
        "stiffness",
    ),
    "sphere2: negative Young's modulus": (
        "newtons_cradle",
        lambda f: f["materials"].update(E2=-2.1e11),
        "E2",
    ),
}


@pytest.mark.parametrize("command", ["check", "run"])
@pytest.mark.parametrize("case", list(CASES))
def test_invalid_contact_exit_1_naming_it(case, command, tmp_path, capsys):
    example, change, field = CASES[case]
    data = contact_model(example)
    change(data["forces"][0])
    name = data["forces"][0]["name"]
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    assert main([command, str(path)]) == 1
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert f'forces[0] "{name}"' in lines[0] and field in lines[0]
    assert "Traceback" not in captured.err and captured.out == ""

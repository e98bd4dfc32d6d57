"""Conflicting no-slip conditions of wheels are refused before the run (Villar Alegría (2018) §2.2).

On the tricycle of Villar Alegría (2018) §3.3 the two rear wheels share one rigid axle: their
lateral no-slip rows impose the same thing (the axle's velocity along itself), so choosing both
wheels without lateral slip (MUBODYNA 'nz' + 'nz', or 'xyz') makes the velocity rows dependent.
The thesis's rule (one rear wheel 'nz', the other 'z') is the consistent choice.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from solver import check, simulate
from solver.analysis.kinematics import assemble
from solver.analysis.rolling_consistency import rolling_consistency
from solver.cli import main as cli_main
from solver.mechanics.constraints.rolling import MUBODYNA_DISK, SLIP_ROWS
from solver.mechanics.system import MultibodySystem
from solver.model import ModelError, model_from_data

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tricycle.json"
SLIPS = ("none", "lateral", "longitudinal", "free")


def tricycle(front="none", left="longitudinal", right="free", t_end=0.1) -> dict:
    data = json.loads(EXAMPLE.read_text())
    slips = {"front_disk": front, "rear_left_disk": left, "rear_right_disk": right}
    for j in data["joints"]:
        if j["name"] in slips:
            j["slip"] = slips[j["name"]]
    data["solver"]["t_end"] = t_end
    data["solver"]["parameters"].update({"rtol": 1e-6, "atol": 1e-8})
    return data


def rank(a) -> int:
    s = np.linalg.svd(a, compute_uv=False)
    return int(np.sum(s > 1e-9 * s[0]))


def test_mubodyna_disk_types_map_to_slip_options():
    # 'nz' refuses slip along the disc normal (the axle): only the lateral row
    assert SLIP_ROWS[MUBODYNA_DISK["nz"]] == (False, True)
    assert SLIP_ROWS[MUBODYNA_DISK["tz"]] == (True, False)
    assert SLIP_ROWS[MUBODYNA_DISK["xyz"]] == (True, True)
    assert SLIP_ROWS[MUBODYNA_DISK["z"]] == (False, False)
    slips = {j.name: j.slip for j in model_from_data(tricycle()).joints}
    # the thesis's tricycle: J5 'xyz', J6 'nz', J7 'z'
    assert (slips["front_disk"], slips["rear_left_disk"], slips["rear_right_disk"]) == (
        MUBODYNA_DISK["xyz"],
        MUBODYNA_DISK["nz"],
        MUBODYNA_DISK["z"],
    )


@pytest.mark.parametrize(("left", "right"), list(itertools.product(SLIPS, SLIPS)))
def test_dependent_rows_are_the_rank_deficit(left, right):
    """The check agrees with rank [Φ_q; B] − rank Φ_q, computed here by SVD, and finds a
    conflict exactly when both rear wheels refuse lateral slip."""
    system = MultibodySystem(model_from_data(tricycle("none", left, right)))
    q = assemble(system, system.q0).q
    h = system.constraints(q, None, 0.0).phi_q
    b, _ = system.velocity_constraints(q, np.zeros(system.n))
    deficit = system.m_nh - (rank(np.vstack([h, b])) - rank(h))
    result = rolling_consistency(system, q)
    assert len(result.dependent) == deficit
    both_lateral = SLIP_ROWS[left][1] and SLIP_ROWS[right][1]
    assert deficit == (1 if both_lateral else 0)
    if both_lateral:
        assert result.involved == ["rear_left_disk", "rear_right_disk"]
        assert result.dependent == [("rear_right_disk", "lateral")]


@pytest.mark.parametrize(
    ("left", "right", "fix"),
    [("longitudinal", "longitudinal", "free"), ("none", "none", "lateral")],
)
def test_check_names_the_wheels_and_the_fix(left, right, fix):
    """MUBODYNA 'nz'+'nz' and 'xyz'+'xyz' on the rear axle: a model error naming both
    rear wheels and the slip option that resolves it; with that fix the model checks."""
    with pytest.raises(ModelError) as err:
        check(model_from_data(tricycle("none", left, right)))
    text = str(err.value)
    assert "\n" not in text
    assert text.startswith('joints "rear_left_disk", "rear_right_disk":')
    assert "not independent" in text
    assert f'"slip": "{fix}" on "rear_right_disk" (it has "{right}")' in text
    assert "front_disk" not in text
    report = check(model_from_data(tricycle("none", left, fix)))
    assert report.redundant == 0


def test_simulate_refuses_before_the_first_step():
    sim = simulate(model_from_data(tricycle("none", "none", "none")), stream=True)
    with pytest.raises(ModelError, match='"slip": "lateral" on "rear_right_disk"'):
        next(iter(sim))
    assert len(sim.result) == 0


def test_the_suggested_fix_runs():
    result = simulate(model_from_data(tricycle("none", "none", "lateral", t_end=0.2)))
    assert result.status == "ok", result.message
    assert result.column("constraint.velocity").max() < 1e-6


@pytest.mark.parametrize("command", ["check", "run"])
def test_cli_exit_1_with_one_line(command, tmp_path, capsys):
    path = tmp_path / "tricycle_nz_nz.json"
    path.write_text(json.dumps(tricycle("none", "longitudinal", "longitudinal")))
    assert cli_main([command, str(path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert '"rear_left_disk", "rear_right_disk"' in err[0]
    assert '"slip": "free" on "rear_right_disk"' in err[0]


def test_a_no_slip_row_that_repeats_the_joints_alone():
    """A wheel whose rolling is already fixed by the joints (its body welded to ground):
    the row adds nothing; the message names that one disc."""
    data = tricycle("none", "longitudinal", "free")
    data["joints"].append(
        {"name": "weld", "type": "fixed", "body1": "ground", "body2": "rear_right_wheel"}
    )
    data["joints"] = [j for j in data["joints"] if j["name"] != "rear_right_axle"]
    for j in data["joints"]:
        if j["name"] == "rear_right_disk":
            j["slip"] = "lateral"
    with pytest.raises(ModelError) as err:
        check(model_from_data(data))
    assert str(err.value).startswith('joint "rear_right_disk": ')
    assert '"slip": "free" on "rear_right_disk" (it has "lateral")' in str(err.value)

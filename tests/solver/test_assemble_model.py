"""``solver.assemble_model``: the poses that close every joint at t = 0 (what a model editor's
"close gaps" applies), and the counts ``check`` keeps on an ``AssemblyError``."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from solver import Assembly, AssemblyError, assemble_model, check, load_model
from solver.model.mass_properties import rotation_matrix

#: A 0.5 m rod pinned at the origin about y; a distance joint of 0.25 m from (0.5, 0, 0.3)
#: to its free end, which the file places 0.3 m away: a gap of 5 cm.
ARM = {
    "biela": 1,
    "name": "arm with a gap",
    "gravity": [0, 0, -9.81],
    "bodies": [
        {
            "name": "arm",
            "type": "rigid",
            "mass": 1.0,
            "inertia": [0.001, 0.02, 0.02],
            "position": [0.25, 0, 0],
        }
    ],
    "joints": [
        {
            "name": "pin",
            "type": "revolute",
            "body1": "ground",
            "body2": "arm",
            "point": [0, 0, 0],
            "axis": [0, 1, 0],
        },
        {
            "name": "tie",
            "type": "distance",
            "body1": "ground",
            "body2": "arm",
            "point1": [0.5, 0, 0.3],
            "point2": [0.5, 0, 0],
            "length": 0.25,
        },
    ],
}


def write(tmp_path, data):
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    return load_model(path)


def test_assembled_poses_close_the_gap_at_the_nearest_solution(tmp_path):
    model = write(tmp_path, ARM)
    assembly = assemble_model(model)
    assert isinstance(assembly, Assembly)
    assert assembly.iterations >= 1 and assembly.residual <= model.solver.tolerance
    pose = assembly.poses["arm"]
    rot = rotation_matrix(pose.orientation)
    assert np.linalg.norm(pose.orientation) == pytest.approx(1.0, abs=1e-12)
    centre0 = np.array([0.25, 0.0, 0.0])

    def moved(p):
        return rot @ (np.asarray(p, float) - centre0) + pose.position

    # The end (0.5 cos θ, 0, 0.5 sin θ) at 0.25 m from (0.5, 0, 0.3):
    # 0.5 cos θ + 0.3 sin θ = 0.5275, the root nearest to θ = 0 (Newton from the file).
    r, phi = math.hypot(0.5, 0.3), math.atan2(0.3, 0.5)
    theta = phi - math.acos(0.5275 / r)
    np.testing.assert_allclose(moved((0, 0, 0)), (0, 0, 0), atol=1e-9)
    np.testing.assert_allclose(
        moved((0.5, 0, 0)), (0.5 * math.cos(theta), 0, 0.5 * math.sin(theta)), atol=1e-9
    )
    np.testing.assert_allclose(rot[:, 1], (0, 1, 0), atol=1e-9)  # it turned about the pin


def test_a_closed_model_assembles_in_zero_iterations_at_the_file_s_poses(tmp_path):
    data = json.loads(json.dumps(ARM))
    data["joints"][1]["length"] = 0.3
    model = write(tmp_path, data)
    assembly = assemble_model(model)
    assert assembly.iterations == 0
    np.testing.assert_allclose(assembly.poses["arm"].position, (0.25, 0, 0), atol=1e-15)
    np.testing.assert_allclose(assembly.poses["arm"].orientation, (1, 0, 0, 0), atol=1e-15)


def test_point_masses_get_a_position_only(tmp_path):
    data = {
        "biela": 1,
        "name": "bob",
        "bodies": [{"name": "bob", "type": "point_mass", "mass": 1, "position": [0.8, 0, 0]}],
        "joints": [
            {
                "name": "bar",
                "type": "distance",
                "body1": "ground",
                "body2": "bob",
                "point1": [0, 0, 0],
                "point2": [0.8, 0, 0],
                "length": 1.0,
            }
        ],
    }
    model = write(tmp_path, data)
    pose = assemble_model(model).poses["bob"]
    assert pose.orientation is None
    assert np.linalg.norm(pose.position) == pytest.approx(1.0, abs=1e-9)


def test_unreachable_joints_raise_with_the_counts_of_check(tmp_path):
    data = json.loads(json.dumps(ARM))
    data["joints"][1]["point1"] = [0.5, 0, 3.0]  # 3 m away, 0.25 m tie: out of reach
    model = write(tmp_path, data)
    with pytest.raises(AssemblyError) as caught:
        assemble_model(model)
    assert any(item.endswith("tie") for item in caught.value.items)
    with pytest.raises(AssemblyError) as caught:
        check(model)
    report = caught.value.report
    assert report is not None and report.mobility is None
    assert report.grubler_dof == 6 - 5 - 1

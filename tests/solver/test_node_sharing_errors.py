"""Bad ``share`` requests: one message naming the joint and the field, from the reader, the
system and the command line (exit 1)."""

from __future__ import annotations

import copy
import json

import pytest

from solver.cli import main
from solver.mechanics.system import MultibodySystem
from solver.model import ModelError, model_from_data
from solver.model.errors import UnsupportedFeature

BEAM3D = {
    "name": "b",
    "type": "ancf_beam3d",
    "points": [[1, 0, 0], [2, 0, 0]],
    "elements": 2,
    "material": {"E": 1e9, "nu": 0, "density": 1000},
    "section": {"shape": "circle", "radius": 0.01},
}
BEAM2D = {**BEAM3D, "type": "ancf_beam2d", "name": "p"}


def base(joint, coordinates="natural", beam=BEAM3D, extra=()):
    return {
        "biela": 1,
        "bodies": [
            {"name": "r", "mass": 1, "inertia": [1, 1, 1], "position": [0.5, 0, 0]},
            copy.deepcopy(beam),
            *extra,
        ],
        "joints": [{"name": "J", "body1": "r", "body2": beam["name"], **joint}],
        "solver": {"coordinates": coordinates},
    }


SPHERICAL = {"type": "spherical", "point": [1, 0, 0], "share": True}


def _error(data, cls=ModelError):
    with pytest.raises(cls) as exc:
        MultibodySystem(model_from_data(data))
    return exc.value


@pytest.mark.parametrize(
    ("joint", "field", "words"),
    [
        (
            {"type": "prismatic", "point": [1, 0, 0], "axis": [1, 0, 0], "share": True},
            "share",
            "is not a field of prismatic joints",
        ),
        ({**SPHERICAL, "share": []}, "share", "true, false or a list"),
        ({**SPHERICAL, "share": "yes"}, "share", "true, false or a list"),
        ({**SPHERICAL, "share": ["axis"]}, "share[0]", "cannot be shared by a spherical joint"),
        (
            {
                "type": "revolute",
                "point": [1, 0, 0],
                "axis": [0, 0, 1],
                "share": ["point", "point"],
            },
            "share[1]",
            "twice",
        ),
        ({**SPHERICAL, "point": [1.3, 0, 0]}, "point", "not a node"),
    ],
)
def test_reader_refuses(joint, field, words):
    with pytest.raises(ModelError) as exc:
        model_from_data(base(joint))
    assert exc.value.field == field and 'joints[0] "J"' in str(exc.value)
    assert words in str(exc.value)


@pytest.mark.parametrize(
    ("bodies", "words"),
    [
        (("ground", "b"), 'joins ground and "b" (ancf_beam3d)'),
        (("r", "m"), 'joins "r" (rigid) and "m" (point_mass)'),
        (("r", "r2"), 'joins "r" (rigid) and "r2" (rigid)'),
    ],
)
def test_share_needs_a_rigid_body_and_a_flexible_node(bodies, words):
    extra = (
        {"name": "m", "type": "point_mass", "mass": 1, "position": [1, 0, 0]},
        {"name": "r2", "mass": 1, "inertia": [1, 1, 1], "position": [1.5, 0, 0]},
    )
    data = base(SPHERICAL, extra=extra)
    data["joints"][0]["body1"], data["joints"][0]["body2"] = bodies
    with pytest.raises(ModelError) as exc:
        model_from_data(data)
    assert exc.value.field == "share" and words in str(exc.value)


@pytest.mark.parametrize(
    ("coordinates", "beam", "words"),
    [
        ("reference_point", BEAM3D, 'the run uses "reference_point"'),
        (
            "natural",
            BEAM2D,
            'needs "natural_planar" coordinates for the nodes of "p" (ancf_beam2d)',
        ),
        (
            "natural_planar",
            BEAM3D,
            'needs "natural" coordinates for the nodes of "b" (ancf_beam3d)',
        ),
    ],
)
def test_share_needs_matching_natural_coordinates(coordinates, beam, words):
    data = base(SPHERICAL, coordinates, beam)
    err = _error(data)
    assert err.field == "share" and 'joints[0] "J"' in str(err) and words in str(err)


def test_a_shared_axis_must_be_a_section_slope():
    joint = {"type": "revolute", "point": [1, 0, 0], "axis": [1, 0, 0], "share": ["point", "axis"]}
    err = _error(base(joint))
    assert (
        err.field == "share" and "is not a section axis" in str(err) and "r_y [0, 1, 0]" in str(err)
    )
    planar = {"type": "revolute", "point": [1, 0, 0], "axis": [0, 0, 1], "share": ["axis"]}
    err = _error(base(planar, "natural_planar", {**BEAM2D, "element": "continuum"}))
    assert err.field == "share" and "is not a section axis" in str(err)


def test_a_node_tied_to_two_rigid_bodies_that_cannot_both_hold_it():
    """Planar body "q" takes two pins first (its two entities), then a third at the node
    that "r" already holds: that node cannot be both r's basic point and a combination of q's."""
    beam = lambda name, a, b: {**BEAM2D, "name": name, "points": [a, b], "elements": 1}  # noqa: E731
    data = {
        "biela": 1,
        "bodies": [
            {"name": "r", "mass": 1, "inertia": [1, 1, 1], "position": [0.5, 0, 0]},
            {"name": "q", "mass": 1, "inertia": [1, 1, 1], "position": [1, 0.5, 0]},
            beam("p", [1, 0, 0], [2, 0, 0]),
            beam("x", [1, 1, 0], [2, 1, 0]),
            beam("y", [0, 1, 0], [0, 2, 0]),
        ],
        "joints": [
            {
                "name": "QX",
                "type": "spherical",
                "body1": "q",
                "body2": "x",
                "point": [1, 1, 0],
                "share": True,
            },
            {
                "name": "QY",
                "type": "spherical",
                "body1": "q",
                "body2": "y",
                "point": [0, 1, 0],
                "share": True,
            },
            {
                "name": "RP",
                "type": "spherical",
                "body1": "r",
                "body2": "p",
                "point": [1, 0, 0],
                "share": True,
            },
            {
                "name": "QP",
                "type": "spherical",
                "body1": "q",
                "body2": "p",
                "point": [1, 0, 0],
                "share": True,
            },
        ],
        "solver": {"coordinates": "natural_planar"},
    }
    err = _error(data)
    assert err.field == "share" and 'joints[3] "QP"' in str(err)
    assert 'joint "RP" already gives it' in str(err)


def test_sliding_along_a_beam_with_an_eliminated_node_is_refused():
    """The arm's pivot and tip are its basic points; the beam is shared at the arm's middle
    (a combination of them), and a point mass slides along that beam."""
    data = {
        "biela": 1,
        "bodies": [
            {"name": "arm", "mass": 1, "inertia": [1e-3, 0.1, 0.1], "position": [0.5, 0, 0]},
            {**BEAM3D, "points": [[0.5, 0, 0], [0.5, 0, -1]]},
            {"name": "ring", "type": "point_mass", "mass": 0.1, "position": [0.5, 0, -0.25]},
            {**BEAM3D, "name": "tipbeam", "points": [[1, 0, 0], [1, 0, -1]]},
        ],
        "joints": [
            {
                "name": "pivot",
                "type": "revolute",
                "body1": "ground",
                "body2": "arm",
                "point": [0, 0, 0],
                "axis": [0, 1, 0],
            },
            {
                "name": "T",
                "type": "spherical",
                "body1": "arm",
                "body2": "tipbeam",
                "point": [1, 0, 0],
                "share": True,
            },
            {
                "name": "M",
                "type": "spherical",
                "body1": "arm",
                "body2": "b",
                "point": [0.5, 0, 0],
                "share": True,
            },
            {
                "name": "S",
                "type": "sliding",
                "body1": "b",
                "body2": "ring",
                "point": [0.5, 0, -0.25],
            },
        ],
        "solver": {"coordinates": "natural"},
    }
    err = _error(data, UnsupportedFeature)
    assert err.field == "body1" and 'joints[3] "S"' in str(err) and 'joint "M"' in str(err)


def test_cli_exit_1_naming_the_joint(tmp_path, capsys):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(base(SPHERICAL, "reference_point")))
    assert main(["run", str(path), "--t-end", "0.01"]) == 1
    err = capsys.readouterr().err
    assert 'joints[0] "J": share needs the rigid bodies in natural' in err and err.count("\n") == 1
    assert main(["check", str(path)]) == 1
    # the same file runs when the command line asks for natural coordinates
    capsys.readouterr()
    out = tmp_path / "out.csv"
    code = main(
        [
            "run",
            str(path),
            "--coordinates",
            "natural",
            "--t-end",
            "0.002",
            "--dt",
            "0.001",
            "--csv",
            str(out),
            "-q",
        ]
    )
    assert code == 0, capsys.readouterr().err

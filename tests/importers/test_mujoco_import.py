"""MJCF and URDF import through MuJoCo, cross-checked against MuJoCo's own simulation of
the same files (RK4, Δt = 0.1 ms, no damping or armature, contacts off): the site
positions agree within 1e-5 m over 2 s."""

from __future__ import annotations

import json
from pathlib import Path

import mujoco
import numpy as np
import pytest

from solver import simulate
from solver.importers import import_model
from solver.importers.common import ImportError_
from solver.model import model_from_data, model_to_json
from tests.solver.test_no_qt_import import imported_after

DATA = Path(__file__).parent / "data" / "mjcf"


def _mujoco_sites(path: Path, times: np.ndarray) -> np.ndarray:
    """Site positions (len(times), nsite, 3) from MuJoCo's RK4 run from keyframe 0."""
    m = mujoco.MjModel.from_xml_path(str(path))
    assert m.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4
    data = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, data, 0)
    mujoco.mj_forward(m, data)
    out = []
    for t in times:
        while data.time < t - 0.5 * m.opt.timestep:
            mujoco.mj_step(m, data)
        mujoco.mj_forward(m, data)
        out.append(data.site_xpos.copy())
    return np.array(out)


def _biela_sites(model, names, t_end: float, every: float) -> np.ndarray:
    result = simulate(
        model,
        formulation="lagrange_baumgarte",
        dt=every,
        t_end=t_end,
        output_dt=every,
        parameters={"integrator": "DOP853", "rtol": 1e-11, "atol": 1e-13},
    )
    assert result.status == "ok", result.message
    cols = [[result.column(f"{n}.{c}") for c in "xyz"] for n in names]
    return np.transpose(np.array(cols), (2, 0, 1)), result


@pytest.mark.parametrize("file", ["three_link_arm.xml", "spinning_body.xml"])
def test_imported_model_moves_like_mujoco(file):
    imported = import_model(DATA / file)
    model = imported.model
    names = [o.name for o in model.outputs]
    m = mujoco.MjModel.from_xml_path(str(DATA / file))
    assert names == [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_SITE, i) for i in range(m.nsite)]
    times = np.round(np.arange(0.0, 2.0 + 1e-9, 0.1), 10)
    theirs = _mujoco_sites(DATA / file, times)
    ours, result = _biela_sites(model, names, 2.0, 0.1)
    assert ours.shape == theirs.shape
    travel = np.abs(theirs - theirs[0]).max()
    assert travel > 0.3  # the points really move
    assert np.abs(ours - theirs).max() < 1e-5
    assert result.summary["max_energy_drift"] < 1e-6


def test_three_link_arm_import_maps_bodies_joints_and_shapes():
    imported = import_model(DATA / "three_link_arm.xml")
    model = imported.model
    assert [b.name for b in model.bodies] == ["upper", "fore", "hand"]
    assert [(j.name, j.type, j.body1, j.body2) for j in model.joints] == [
        ("shoulder", "revolute", "ground", "upper"),
        ("elbow", "revolute", "upper", "fore"),
        ("wrist", "revolute", "fore", "hand"),
    ]
    upper = model.bodies[0]
    assert upper.mass == pytest.approx(1.2)
    kinds = [s.type for s in upper.shapes]
    assert kinds == ["cylinder", "sphere", "sphere"]  # the capsule
    assert [s.type for s in model.bodies[2].shapes] == ["cylinder", "sphere"]
    assert model.gravity == (0.0, 0.0, -9.81)
    assert model.solver.dt == pytest.approx(1e-4)
    assert any("world body left out" in w for w in imported.warnings)
    # the imported model is a valid Biela file that reads back equal
    again = model_from_data(json.loads(model_to_json(model)))
    assert again == model


def test_urdf_import():
    imported = import_model(DATA / "two_link.urdf")
    model = imported.model
    assert [(j.name, j.type, j.body1, j.body2) for j in model.joints] == [
        ("shoulder", "revolute", "ground", "link1"),
        ("elbow", "revolute", "link1", "link2"),
    ]
    link1 = model.body("link1")
    assert link1.mass == 1.0
    assert link1.position == pytest.approx((0.25, 0.0, 1.0))
    assert sorted(np.diag(np.array(link1.inertia))) == pytest.approx([0.001, 0.021, 0.021])
    assert [s.type for s in link1.shapes] == ["cylinder"]
    assert model.joint("elbow").point == pytest.approx((0.5, 0.0, 1.0))
    assert imported.warnings == [
        'two_link.urdf: joint "shoulder" of body "link1": range (joint limit) left out: '
        "Biela joints have no limits"
    ]
    assert simulate(model, t_end=0.05).status == "ok"


def test_what_is_left_out_is_named_once_each(tmp_path):
    xml = """<mujoco model="many">
      <worldbody>
        <body name="a" pos="0 0 1"><joint name="j" type="hinge" axis="0 1 0" range="-1 1"
              armature="0.1" damping="0.5" stiffness="2"/>
          <geom type="box" size="0.1 0.1 0.1" mass="1"/>
          <site name="s" pos="0 0 0"/></body>
        <body name="b" pos="1 0 1"><joint name="k" type="slide" axis="1 0 0"/>
          <geom type="ellipsoid" size="0.1 0.2 0.3" mass="1"/><site name="s2"/></body>
      </worldbody>
      <tendon><spatial name="t"><site site="s"/><site site="s2"/></spatial></tendon>
      <actuator><motor joint="j"/></actuator>
      <equality><joint joint1="j" joint2="k"/></equality>
    </mujoco>"""
    path = tmp_path / "many.xml"
    path.write_text(xml)
    imported = import_model(path)
    text = "\n".join(imported.warnings)
    for phrase in (
        "tendon(s) left out",
        "actuator(s) left out",
        "equality constraint(s) left out",
        "contact parameters of 2 colliding geom(s) left out",
        "range (joint limit) left out",
        "armature left out",
        "ellipsoid drawn as its bounding sphere",
    ):
        assert text.count(phrase) == 1, phrase
    springs = [f for f in imported.model.forces if f.type == "rotational_spring_damper"]
    assert [(f.joint, f.stiffness, f.damping) for f in springs] == [("j", 2.0, 0.5)]


def test_mesh_geoms_become_obj_files(tmp_path):
    (tmp_path / "tet.obj").write_text(
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
    )
    (tmp_path / "m.xml").write_text(
        """<mujoco><asset><mesh name="tet" file="tet.obj" scale="0.1 0.1 0.1"/></asset>
        <worldbody><body name="b" pos="0 0 1"><freejoint/>
        <geom type="mesh" mesh="tet" mass="1"/></body></worldbody></mujoco>"""
    )
    imported = import_model(tmp_path / "m.xml")
    shape = imported.model.bodies[0].shapes[0]
    assert shape.type == "mesh" and shape.file in imported.files
    lines = imported.files[shape.file].decode().splitlines()
    verts = np.array([[float(x) for x in ln.split()[1:]] for ln in lines if ln.startswith("v ")])
    assert len(verts) == 4
    # the tetrahedron's corners at their places at t = 0 (global, m)
    assert np.allclose(sorted(verts[:, 2]), [1.0, 1.0, 1.0, 1.1], atol=1e-9)


@pytest.mark.parametrize(
    ("xml", "message"),
    [
        (
            "<mujoco><worldbody><body name='a'><joint type='hinge'/><joint type='slide' axis='0 1 0'/>"
            "<geom size='0.1' mass='1'/></body></worldbody></mujoco>",
            'body "a": joint has 2 joints',
        ),
        (
            "<mujoco><worldbody><body name='a'><joint type='hinge'/><body name='b'>"
            "<joint type='hinge' axis='1 0 0'/><geom size='0.1' mass='1'/></body></body>"
            "</worldbody></mujoco>",
            "MuJoCo cannot load it",
        ),
        ("<mujoco><worldbody><bodyy/></worldbody></mujoco>", "MuJoCo cannot load it"),
    ],
)
def test_bad_files_are_refused_naming_the_element(tmp_path, xml, message):
    path = tmp_path / "bad.xml"
    path.write_text(xml)
    with pytest.raises(ImportError_) as err:
        import_model(path)
    assert message in str(err.value)
    assert str(err.value).startswith("bad.xml")


def test_importing_an_mjcf_file_needs_no_numba():
    """Building a model (its orientations from rotation matrices, Shepperd's method) runs
    the compiled kernel's source as plain Python: ``biela import`` does not pay Numba's
    import (0.3 s), and both ways give the same Euler parameters."""
    got = imported_after(
        f"""
        import json, sys
        from solver.importers import import_model
        imported = import_model({str(DATA / "three_link_arm.xml")!r})
        print(json.dumps({{"bodies": len(imported.model.bodies),
                          "numba": "numba" in sys.modules}}))
        """
    )
    assert got == {"bodies": 3, "numba": False}
    from solver.kernels.rotations import quaternion_into
    from solver.mechanics.rotations import quaternion_from_matrix, rotation_matrix

    rng = np.random.default_rng(4)
    for k in [0, 1, 2, 3] * 5:  # each branch: the trace or one diagonal entry the largest
        p = 0.3 * rng.standard_normal(4)
        p[k] += 2.0 * rng.choice([-1.0, 1.0])
        p /= np.linalg.norm(p)
        rot = rotation_matrix(p)
        compiled = np.empty(4)
        quaternion_into(rot, compiled, np.int64(0))
        plain = quaternion_from_matrix(rot)
        np.testing.assert_allclose(plain, p * np.sign(p[0]), atol=1e-12)
        np.testing.assert_allclose(compiled, plain, rtol=0.0, atol=1e-15)

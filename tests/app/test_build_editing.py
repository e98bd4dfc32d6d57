"""Building by mouse: the edit model (undoable, validated), the item editor refusing invalid values
in place, the right-click menu (driver with a previewed time function, trace), delete with
dependents, typed placement, Assemble closing a gap, generators and mesh mass properties."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from app.builder import shapes
from app.builder.editor import EditRefused
from app.builder.edits import validated
from app.builder.picking import project, snap_points, snap_to_grid
from solver import check
from solver.model import description as d
from solver.model.io import model_to_json

pytestmark = pytest.mark.gui
Y = (0.0, 1.0, 0.0)


def four_bar(editor) -> None:
    """The four-bar of the clicking test, made through the editor (7 undoable edits)."""
    a, b, c, e = (0.0, 0.0, 0.0), (0.2, 0.0, 0.4), (0.9, 0.0, 0.5), (1.0, 0.0, 0.0)
    for name, p, q in (("crank", a, b), ("coupler", b, c), ("rocker", c, e)):
        editor.add(shapes.rod(name, p, q, 0.015))
    editor.add(d.Joint("A", "revolute", "ground", "crank", point=a, axis=Y))
    editor.add(d.Joint("B", "revolute", "crank", "coupler", point=b, axis=Y))
    editor.add(d.Joint("C", "revolute", "coupler", "rocker", point=c, axis=Y))
    editor.add(d.Joint("D", "point_on_line", "ground", "rocker", point=e, axis=Y))


@pytest.fixture
def built(qtbot, main_window, message_boxes):
    window = main_window
    window.document.new()
    four_bar(window.build.editor)
    qtbot.waitUntil(lambda: window.build.report is not None)
    return window


def test_typed_invalid_values_are_refused_in_place(qtbot, built):
    window = built
    form = window.build.form
    stack = window.document.undo_stack
    window.tree.select("body", "crank")
    assert form.title.text() == "Body crank"
    count, before = stack.count(), model_to_json(window.document.model)

    mass = form.rows[("mass",)].widget
    mass.clear()
    qtbot.keyClicks(mass, "-2")  # as typed: red at once, with the reason
    assert "mass must be positive (got -2)" in form.error.text()
    assert "b3261e" in mass.styleSheet()
    qtbot.keyClick(mass, Qt.Key.Key_Return)  # refused: nothing applied
    assert form.error.text().startswith("Refused:")
    assert "mass must be positive" in form.error.text()
    assert stack.count() == count and model_to_json(window.document.model) == before
    assert float(mass.text()) == window.document.model.body("crank").mass

    assert not form.set_field(("mass",), "heavy")
    assert '"heavy" is not a number' in form.error.text()
    assert not form.set_field(("inertia",), "1, 2")
    assert "give 3 or 6 or 9 numbers" in form.error.text()

    window.tree.select("joint", "B")
    assert not form.set_field(("axis",), "0, 0, 0")
    assert "axis has zero length" in form.error.text()
    assert not form.set_field(("name",), "crank")
    assert "already used" in form.error.text()
    assert stack.count() == count and model_to_json(window.document.model) == before

    # valid values: one undoable edit each; a rename updates the references
    assert form.set_field(("point",), "0.2, 0, 0.41")
    assert window.document.model.joint("B").point == (0.2, 0.0, 0.41)
    window.tree.select("body", "crank")
    assert form.set_field(("name",), "driver_link")
    model = window.document.model
    assert model.joint("A").body2 == "driver_link" and model.joint("B").body1 == "driver_link"
    assert form.set_field(("shapes", 0, "radius"), "0.02")
    assert model.body("driver_link").shapes[0].radius == 0.02
    assert stack.count() == count + 3
    for _ in range(3):
        window.undo_action.trigger()
    assert model_to_json(window.document.model) == before


def test_every_edit_undoes_and_redoes(qtbot, built):
    window = built
    editor = window.build.editor
    doc = window.document
    stack = doc.undo_stack
    snapshots = [model_to_json(doc.model)]
    editor.move_body("rocker", (0.0, 0.0, 0.1))  # a move, then Close gaps
    assert doc.model.body("rocker").shapes[0].start == (0.9, 0.0, 0.6)
    snapshots.append(model_to_json(doc.model))
    assert doc.model.body("rocker").position[2] == pytest.approx(0.35)
    window.undo_action.trigger()
    assert doc.model.body("rocker").shapes[0].start == (0.9, 0.0, 0.5)
    window.redo_action.trigger()
    rot = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # 90° about z
    editor.move_body("crank", (0.0, 0.0, 0.0), rot, (0.0, 0.0, 0.0))
    assert np.allclose(doc.model.body("crank").shapes[0].end, (0.0, 0.2, 0.4))
    snapshots.append(model_to_json(doc.model))
    editor.add(
        d.Joint(
            "tie",
            "distance",
            "ground",
            "coupler",
            point1=(0.5, 0.0, 3.0),
            point2=(0.55, 0.0, 0.45),
            length=0.1,
        )
    )  # out of reach
    qtbot.waitUntil(lambda: window.build.report is not None)
    report = window.build.report
    assert report.conflicting_items and window.dof_label.text().startswith("DOF ?")
    flagged = report.flagged()
    assert any(key[0] == "joint" for key in flagged) and "cannot assemble" in report.error
    node = window.tree.item_for("joint", next(k for k in flagged if k[0] == "joint")[1])
    assert "cannot assemble" in node.toolTip(0)
    window.undo_action.trigger()
    editor.add(d.Output("P", "coupler", (0.5, 0.0, 0.45)))
    editor.add(d.Driver("motor", "A", shapes_constant(1.0)))
    editor.add(
        d.Force(
            "k",
            "spring_damper",
            body1="ground",
            point1=(0.5, 0, 1.0),
            body2="coupler",
            point2=(0.5, 0, 0.45),
            stiffness=100.0,
            damping=1.0,
            free_length=0.5,
        )
    )
    snapshots.append(model_to_json(doc.model))
    # delete a body with dependents: they go too (or are attached to ground)
    window.build.tools.ask_dependents = lambda *a: "delete"
    assert window.build.tools.delete("body", "coupler"), window.statusBar().currentMessage()
    m = doc.model
    assert [j.name for j in m.joints] == ["A", "D"]
    assert m.outputs == [] and m.forces == [] and [x.name for x in m.drivers] == ["motor"]
    snapshots.append(model_to_json(doc.model))
    window.undo_action.trigger()
    window.build.tools.ask_dependents = lambda *a: "ground"
    assert window.build.tools.delete("body", "coupler")
    m = doc.model
    assert (m.joint("B").body1, m.joint("B").body2) == ("crank", "ground")
    assert (m.joint("C").body1, m.joint("C").body2) == ("ground", "rocker")
    assert m.forces == [] and m.outputs == []  # a spring from ground to ground goes
    window.build.tools.ask_dependents = lambda *a: None  # Cancel: nothing happens
    count = stack.count()
    assert not window.build.tools.delete("body", "crank")
    assert stack.count() == count

    while stack.canUndo():
        window.undo_action.trigger()
    m = doc.model
    assert (m.bodies, m.joints, m.drivers, m.forces, m.outputs) == ([], [], [], [], [])
    while stack.canRedo():
        window.redo_action.trigger()
    redone = model_to_json(doc.model)
    assert validated(doc.model) == doc.model
    assert redone != snapshots[-1]  # the last state is the "ground" deletion
    window.undo_action.trigger()  # back before the deletion (with its re-attachment)
    assert model_to_json(doc.model) == snapshots[3]


def shapes_constant(value: float):
    from solver.model.functions import Constant

    return Constant(value)


def test_context_menu_driver_with_preview_and_trace(qtbot, built):
    window = built
    tools = window.build.tools
    plotter = window.viewport.plotter
    window.build.frame_work_plane()
    # right-click on the joint at A: "Add driver on A…"
    x, y = project(plotter, (0.0, 0.0, 0.0))
    qtbot.mouseClick(plotter, Qt.MouseButton.RightButton, pos=QPoint(round(x), round(y)))
    menu = tools.context_menu
    texts = [a.text() for a in menu.actions()]
    assert any(t.startswith("Add driver on A") for t in texts), texts
    next(a for a in menu.actions() if a.text().startswith("Add driver on A")).trigger()
    menu.close()
    dialog = tools.dialog
    f = dialog.fields["f"]
    f.edit.setText("2*pi*t + sin(")
    assert "expression" in f.error.text() or f.function() is None
    f.edit.setText("3*t")
    t, values = f.preview()
    assert len(t) == 201 and np.allclose(values, 3 * t)
    dialog.accept()
    assert window.document.model.drivers[0].joint == "A"
    assert float(window.document.model.drivers[0].function(0.5)) == 1.5
    # right-click on the coupler's midpoint: trace it
    p = (0.55, 0.0, 0.45)
    x, y = project(plotter, p)
    qtbot.mouseClick(plotter, Qt.MouseButton.RightButton, pos=QPoint(round(x), round(y)))
    menu = tools.context_menu
    trace = next(a for a in menu.actions() if a.text().startswith("Trace this point of coupler"))
    trace.trigger()
    menu.close()
    out = window.document.model.outputs[0]
    assert out.body == "coupler" and np.allclose(out.point, p)  # snapped to the rod centre
    plot = window.plots.plots[-1]  # … and its plot, filled by the next run
    assert plot.spec.key == f"trace_{out.name}"
    assert [c[0] for c in plot.spec.curves] == [f"{out.name}.{a}" for a in "xyz"]
    qtbot.waitUntil(lambda: window.build.report is not None)
    assert window.build.report.dof == 0  # driven


def test_typed_placement_and_snapping(qtbot, main_window, message_boxes):
    window = main_window
    build = window.build
    build.set_tool("sphere")
    build.coordinates.setText("0.1, 0.2, 0.3")
    assert build.place_typed()
    body = window.document.model.bodies[0]
    assert body.shapes[0].center == (0.1, 0.2, 0.3)
    r = build.tools.size / 2
    mass = shapes.STEEL * 4 / 3 * np.pi * r**3
    assert body.mass == pytest.approx(mass, rel=1e-12)
    assert body.inertia[0][0] == pytest.approx(0.4 * mass * r * r, rel=1e-12)
    build.set_tool("rod")
    build.coordinates.setText("0, 0, 0; 0.5, 0, 0")
    assert build.place_typed()
    build.coordinates.setText("0, 0, 0; 0, 0, 0")
    assert not build.place_typed()  # a rod needs two points: refused, nothing added
    assert len(window.document.model.bodies) == 2
    points = {tuple(np.round(s.point, 12)): s.bodies for s in snap_points(window.document.model)}
    assert points[(0.0, 0.0, 0.0)] == ("rod1",) and points[(0.5, 0.0, 0.0)] == ("rod1",)
    assert points[(0.25, 0.0, 0.0)] == ("rod1",) and points[(0.1, 0.2, 0.3)] == ("sphere1",)
    p = snap_to_grid(np.array([0.123, 0.0, -0.051]), 0.05, (0, 1, 0))
    assert np.allclose(p, [0.1, 0.0, -0.05])
    build.set_tool("select")


def test_generators_give_valid_models(qtbot, main_window, message_boxes):
    from app.builder.generators_dialog import GENERATORS, generate

    expected = {
        "pendulum": 3,
        "four_bar": 1,
        "slider_crank": 0,
        "n_four_bar": 1,
        "spatial_slider_crank": 1,
    }
    for kind in GENERATORS:
        report = check(generate(kind))
        assert report.dof == expected[kind] and report.redundant == 0, kind
    assert check(generate("n_four_bar", n=4)).dof == 1
    assert len(generate("pendulum", n=5).bodies) == 5
    with pytest.raises(ValueError, match="do not close"):
        generate("four_bar", crank=0.1, coupler=0.1, rocker=0.1, ground=2.0)

    window = main_window
    dialog = window.build.generators_dialog()
    dialog.kind.setCurrentIndex(dialog.kind.findData("n_four_bar"))
    dialog.inputs["n_four_bar"]["n"].setValue(3)
    dialog.accept()
    model = window.document.model
    assert len(model.bodies) == 7 and model.gravity == (0.0, -9.81, 0.0)
    assert window.document.undo_stack.count() == 1  # one undoable "Generate" edit
    qtbot.waitUntil(lambda: window.build.report is not None)
    assert window.build.report.dof == 1


def test_mesh_body_mass_properties(tmp_path):
    import pyvista

    path = tmp_path / "block.stl"
    pyvista.Box(bounds=(0, 0.2, 0, 0.1, 0, 0.3)).triangulate().save(str(path))
    body = shapes.mesh_body("block", path, 1000.0)
    mass = 1000.0 * 0.2 * 0.1 * 0.3
    assert body.mass == pytest.approx(mass, rel=1e-6)  # STL stores float32
    assert np.allclose(body.position, (0.1, 0.05, 0.15), atol=1e-7)
    expected = mass / 12 * np.array([0.1**2 + 0.3**2, 0.2**2 + 0.3**2, 0.2**2 + 0.1**2])
    assert np.allclose(np.diag(body.inertia), expected, rtol=1e-6)
    assert np.allclose(np.asarray(body.inertia) - np.diag(expected), 0, atol=1e-7)
    with pytest.raises(ValueError, match="does not enclose"):
        shapes.mesh_mass_properties(
            np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], float), np.array([[0, 1, 2]]), 1.0
        )


def test_refused_edit_leaves_model_untouched(qtbot, built):
    editor = built.build.editor
    before = model_to_json(built.document.model)
    with pytest.raises(EditRefused, match="does not exist"):
        editor.add(d.Joint("E", "revolute", "ground", "nothing", point=(0, 0, 0), axis=Y))
    with pytest.raises(EditRefused, match="mass must be positive"):
        editor.add(d.RigidBody("bad", -1.0, ((1, 0, 0), (0, 1, 0), (0, 0, 1))))
    assert model_to_json(built.document.model) == before


def test_close_gaps_moves_bodies_to_the_assembled_configuration(qtbot, main_window, message_boxes):
    """A distance joint 5 cm short: the live check warns that the model had to be assembled;
    Close gaps rotates the pendulum until the joint closes and reports the residual."""
    window = main_window
    window.document.new()
    editor = window.build.editor
    editor.add(shapes.rod("arm", (0.0, 0.0, 0.0), (0.5, 0.0, 0.0), 0.01))
    editor.add(d.Joint("pin", "revolute", "ground", "arm", point=(0, 0, 0), axis=Y))
    editor.add(
        d.Joint(
            "tie",
            "distance",
            "ground",
            "arm",
            point1=(0.5, 0.0, 0.3),
            point2=(0.5, 0.0, 0.0),
            length=0.25,
        )
    )
    qtbot.waitUntil(lambda: window.build.report is not None)
    assert any("was assembled" in w for w in window.build.report.warnings)
    assert "was assembled" in window.build.problems.text()
    residual = window.build.assemble_model()
    assert residual is not None and residual < 1e-9
    qtbot.waitUntil(lambda: window.build.report is not None)
    assert window.build.report.dof == 0 and not window.build.report.warnings
    m = window.document.model
    tie = m.joint("tie")
    end = np.asarray(m.body("arm").shapes[0].end)
    assert np.allclose(tie.point2, end, atol=1e-12)
    assert np.linalg.norm(end - tie.point1) == pytest.approx(0.25, abs=1e-9)
    assert np.linalg.norm(end) == pytest.approx(0.5, abs=1e-12)  # it turned about the pin
    window.undo_action.trigger()
    assert m.body("arm").shapes[0].end == (0.5, 0.0, 0.0)


def test_property_panel_refuses_invalid_numbers_too(qtbot, built):
    window = built
    window.tree.select("body", "crank")
    panel = window.properties
    rows = {
        panel.topLevelItem(i).text(0): panel.topLevelItem(i)
        for i in range(panel.topLevelItemCount())
    }
    mass = window.document.model.body("crank").mass
    count = window.document.undo_stack.count()
    rows["mass"].setText(1, "-1")  # as the panel's editor does on commit
    assert window.document.model.body("crank").mass == mass
    assert window.document.undo_stack.count() == count
    assert "mass must be positive" in window.build.form.error.text()


def test_spring_distance_and_trace_tools_by_clicking(qtbot, built):
    window = built
    build = window.build
    plotter = window.viewport.plotter
    build.frame_work_plane()

    def click(p):
        x, y = project(plotter, p)
        qtbot.mouseClick(plotter, Qt.MouseButton.LeftButton, pos=QPoint(round(x), round(y)))

    build.set_tool("spring")
    click((0.2, 0.0, 0.4))  # the crank's end (snaps; shared with the coupler)
    click((1.0, 0.0, 0.0))  # the rocker's end at D
    spring = window.document.model.forces[0]
    assert spring.type == "spring_damper" and {spring.body1, spring.body2} <= {
        "crank",
        "coupler",
        "rocker",
    }
    assert spring.body1 != spring.body2
    assert spring.free_length == pytest.approx(np.hypot(0.8, 0.4), abs=1e-12)
    build.set_tool("distance")
    click((0.1, 0.0, 0.2))  # the crank's centre
    click((0.95, 0.0, 0.25))  # the rocker's centre
    tie = window.document.model.joints[-1]
    assert (tie.type, tie.body1, tie.body2) == ("distance", "crank", "rocker")
    assert np.allclose(tie.point1, (0.1, 0.0, 0.2)) and np.allclose(tie.point2, (0.95, 0, 0.25))
    build.set_tool("trace")
    click((0.55, 0.0, 0.45))
    out = window.document.model.outputs[-1]
    assert out.body == "coupler" and np.allclose(out.point, (0.55, 0.0, 0.45))
    build.set_tool("select")
    qtbot.waitUntil(lambda: window.build.report is not None)
    assert window.build.report.dof == 0  # the distance joint locks the four-bar


def test_move_tool_drags_and_rotates_a_body(qtbot, built):
    window = built
    build = window.build
    plotter = window.viewport.plotter
    build.frame_work_plane()
    build.set_tool("move")

    def at(p):
        x, y = project(plotter, p)
        return QPoint(round(x), round(y))

    left = Qt.MouseButton.LeftButton
    qtbot.mousePress(plotter, left, pos=at((0.95, 0.0, 0.25)))
    qtbot.mouseMove(plotter, at((1.0, 0.0, 0.3)))
    qtbot.mouseRelease(plotter, left, pos=at((1.05, 0.0, 0.35)))
    rocker = window.document.model.body("rocker")
    assert np.allclose(rocker.shapes[0].start, (1.0, 0.0, 0.6), atol=1e-12)
    assert np.allclose(rocker.position, (1.05, 0.0, 0.35), atol=1e-12)
    window.undo_action.trigger()
    assert window.document.model.body("rocker").position == pytest.approx((0.95, 0.0, 0.25))

    # Shift+drag: a quarter turn about the work plane's normal through the centre of mass
    shift = Qt.KeyboardModifier.ShiftModifier
    qtbot.mousePress(plotter, left, shift, at((0.375, 0.0, 0.425)))  # on the coupler
    qtbot.mouseRelease(plotter, left, shift, at((0.5, 0.0, 0.6)))  # a quarter turn on
    coupler = window.document.model.body("coupler")
    start, end = np.asarray(coupler.shapes[0].start), np.asarray(coupler.shapes[0].end)
    assert np.linalg.norm(end - start) == pytest.approx(np.hypot(0.7, 0.1), abs=1e-12)
    assert np.allclose(coupler.position, (0.55, 0.0, 0.45), atol=1e-12)
    assert abs((end - start)[0]) < abs((end - start)[2])  # now nearly vertical
    build.set_tool("select")


def test_joint_axis_from_face_normal_and_from_two_points(qtbot, built):
    window = built
    build = window.build
    plotter = window.viewport.plotter
    build.coordinates.setText("0.5, 0, 0.9")
    build.set_tool("box")
    assert build.place_typed()
    build.frame_work_plane()

    def click(p):
        x, y = project(plotter, p)
        qtbot.mouseClick(plotter, Qt.MouseButton.LeftButton, pos=QPoint(round(x), round(y)))

    build.set_axis_mode("normal")
    build.set_tool("revolute")
    click((0.5, 0.0, 0.9))  # the box's centre, seen through its front face (normal −y)
    click((0.2, 0.0, 1.1))  # empty grid: ground
    joint = window.document.model.joints[-1]
    assert (joint.body1, joint.body2, joint.point) == ("ground", "box1", (0.5, 0.0, 0.9))
    assert np.allclose(joint.axis, (0.0, -1.0, 0.0))

    build.set_axis_mode("two points")
    build.set_tool("cylindrical")
    click((0.5, 0.0, 0.9))
    click((0.2, 0.0, 1.1))
    assert window.document.model.joints[-1].type == "revolute"  # waiting for the axis
    click((0.0, 0.0, 1.2))
    click((0.3, 0.0, 1.6))
    joint = window.document.model.joints[-1]
    assert joint.type == "cylindrical"
    assert np.allclose(joint.axis, (0.6, 0.0, 0.8))
    build.set_tool("select")


def test_force_dialog_and_mesh_body(qtbot, built, tmp_path):
    import pyvista

    window = built
    tools = window.build.tools
    from app.builder.picking import Pick

    dialog = tools.force_dialog(Pick(np.array([0.55, 0.0, 0.45]), "coupler"), "force")
    dialog.fields["v2"].edit.setText("-10*sin(t) +")  # invalid: refused with the reason
    dialog.accept()
    assert dialog.isVisible() and "vector[2]" in dialog.message.text()
    assert window.document.model.forces == []
    dialog.fields["v2"].edit.setText("-10*sin(t)")
    dialog.accept()
    force = window.document.model.forces[0]
    assert (force.type, force.body, force.point) == ("force", "coupler", (0.55, 0.0, 0.45))
    assert float(force.vector[2](np.pi / 2)) == pytest.approx(-10.0)

    path = tmp_path / "block.stl"
    pyvista.Box(bounds=(2, 2.2, 0, 0.1, 0, 0.3)).triangulate().save(str(path))
    name = window.build.add_mesh(path)
    body = window.document.model.body(name)
    assert body.shapes[0].type == "mesh" and body.mass == pytest.approx(7800 * 0.006, rel=1e-6)
    saved = tmp_path / "with_mesh.json"
    window.document.save(saved)
    from solver import load_model

    assert load_model(saved).body(name).mass == body.mass

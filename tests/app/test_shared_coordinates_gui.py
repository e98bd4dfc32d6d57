"""The workbench with shared coordinates: the Fig. 4.2 chain opens, its joints show what they
share and can stop sharing (an undoable, validated edit), it runs and draws the bar and the
links, and the requested reactions of the shared pins are plotted."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gui
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ancf_shared_chain.json"


def test_share_field_runs_and_reactions(qtbot, main_window, message_boxes, tmp_path):
    window = main_window
    assert window.open_model(EXAMPLE), message_boxes
    form = window.build.form
    window.tree.select("joint", "J1")
    assert form.title.text() == "Joint J1"
    box = form.rows[("share",)].widget
    assert box.currentText() == "point"
    assert [box.itemText(i) for i in range(box.count())] == [
        "(none)",
        "axis",
        "point",
        "point, axis",
    ]
    stack = window.document.undo_stack
    count = stack.count()
    assert form.set_field(("share",), "")  # the pin as equations
    assert window.document.model.joint("J1").share is None
    assert stack.count() == count + 1
    stack.undo()
    assert window.document.model.joint("J1").share == ("point",)
    window.tree.select("joint", "J2")
    assert form.rows[("share",)].widget.currentText() == "point"

    with qtbot.waitSignal(window.run_finished, timeout=120_000) as blocker:
        assert window.run_simulation(t_end=0.3)
    outcome = blocker.args[0]
    assert outcome.status == "ok", outcome.message
    run = window.run_data
    assert run.t[-1] == pytest.approx(0.3)
    columns = run.result.columns
    assert "bar.n0.x" in columns and "link1.e3" in columns and "reaction.J1.Fy" in columns
    # the bar's first node is link1's pin: the same point in both columns' worlds
    node = run.data[:, [columns.index("bar.n0.x"), columns.index("bar.n0.y")]]
    link = run.data[:, [columns.index(f"link1.{a}") for a in ("x", "y", "e0", "e3")]]
    theta = 2 * np.arctan2(link[:, 3], link[:, 2])
    pin = link[:, :2] + 0.15 * np.column_stack([np.cos(theta), np.sin(theta)])
    assert node == pytest.approx(pin, abs=1e-9)
    reaction = run.data[:, columns.index("reaction.J1.Fy")]
    assert np.abs(reaction).max() > 0.1  # the kick pulls the bar through the pin
    window.show_time(0.3)
    window.viewport.render_now()
    image = window.viewport.image()
    assert image.astype(float).var() > 10
    shot = Path(os.environ.get("BIELA_SCREENSHOTS", tmp_path)) / "shared_chain.png"
    window.grab().save(str(shot))
    assert shot.stat().st_size > 10_000
    assert not [m for m in message_boxes if m[0] in ("critical", "warning")], message_boxes

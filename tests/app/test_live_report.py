"""The builder's live report (app.builder.live_check.LiveReport): what the status bar and the
Edit panel say about the degrees of freedom. Plain Python, no display needed."""

from __future__ import annotations


def test_the_builder_s_dof_leaves_passive_freedoms_out():
    from app.builder.live_check import LiveReport

    report = LiveReport(grubler=1, dof=1, passive=["coupler spin about J1–J2"], active_dof=0)
    assert report.passive_count == 1
    assert report.status() == "DOF 0 (Grübler 1, 1 passive)"
    assert report.passive_text().startswith("1 passive freedom: coupler spin about J1–J2 (")
    plain = LiveReport(grubler=1, dof=1, active_dof=1)
    assert plain.status() == "DOF 1 (Grübler 1)" and plain.passive_text() == ""

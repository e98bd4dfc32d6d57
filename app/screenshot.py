"""Save real screenshots of the workbench (the README's and the documentation's).

    xvfb-run -a -s "-screen 0 1600x1000x24" python -m app.screenshot \\
        [--scene readme|default|running|plots|build|all] [--model FILE] [--out FILE]
        [--plot reaction.J3.Fz ...]

Each run starts from a fresh settings folder (a temporary one unless ``--settings``), so a
layout saved by an earlier session does not change the pictures. Scenes:

- ``readme`` (``resources/screenshots/workbench.png``): a model (the spatial four-bar) run
  to ``--t-end`` in the solver process, a plot of an output point added (or of each
  ``--plot`` quantity, e.g. a joint's reaction), a body selected, the time set back to 62 %;
- ``default``: the window as it opens, without a model;
- ``running``: the tricycle while its run streams (live plots, traces, the view fitting);
- ``plots``: the plot panes maximised after a run, with two added plots;
- ``build``: a double pendulum built from scratch with clicks on the toolbar and the 3D
  view (two rods, two revolute joints, a traced tip), then run;
- ``all``: every scene into ``resources/screenshots/``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "resources" / "screenshots"
FILES = {
    "readme": "workbench.png",
    "default": "default_window.png",
    "running": "streaming_run.png",
    "plots": "plots_maximised.png",
    "build": "build_double_pendulum.png",
}


def _wait(app, seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.01)


def _run(app, window, timeout: float = 600.0, **overrides) -> bool:
    """Run the model with ``overrides`` and wait for the end (True: frames came)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    window.run_finished.connect(loop.quit)
    window.run_simulation(**overrides)
    QTimer.singleShot(int(timeout * 1000), loop.quit)
    loop.exec()
    window.run_finished.disconnect(loop.quit)
    run = window.run_data
    return run is not None and len(run) > 0


def _save(app, window, out: Path) -> bool:
    for _ in range(20):
        app.processEvents()
    window.viewport.render_now()
    app.processEvents()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not window.grab().save(str(out), "PNG"):
        print(f"cannot write {out}", file=sys.stderr)
        return False
    print(out)
    return True


def scene_readme(
    app, window, out: Path, model: str, t_end: float, formulation, plots: list[str]
) -> bool:
    if not window.open_model(model, ask=False):
        return False
    overrides = {"t_end": t_end, **({"formulation": formulation} if formulation else {})}
    if not _run(app, window, **overrides):
        return False
    document = window.document.model
    if plots:
        from app import result_quantities

        run = window.run_data
        result_quantities.ensure(document, run, plots, document.solver.analysis)
        for quantity in plots:
            window.plots.add_quantity(quantity)
    elif document.outputs:
        window.plots.add_quantity(f"{document.outputs[0].name}.z")
    if document.bodies:
        window.tree.select("body", document.bodies[0].name)
    window.show_time(float(window.run_data.t[-1]) * 0.62)
    return _save(app, window, out)


def scene_default(app, window, out: Path) -> bool:
    return _save(app, window, out)


def scene_running(app, window, out: Path) -> bool:
    """The tricycle while its run streams: grabbed once it has driven a while."""
    if not window.open_model(ROOT / "examples" / "tricycle.json", ask=False):
        return False
    window.run_simulation(t_end=4.0)
    deadline = time.perf_counter() + 600
    while time.perf_counter() < deadline:
        run = window.run_data
        if run is not None and len(run) and float(run.t[-1]) >= 2.4:
            break
        app.processEvents()
        time.sleep(0.01)
    window._refresh_live()
    window.plots.refresh()
    saved = _save(app, window, out)
    window.stop_simulation()
    while window.runner.running:
        app.processEvents()
        time.sleep(0.01)
    return saved


def scene_plots(app, window, out: Path) -> bool:
    if not window.open_model(ROOT / "examples" / "four_bar_spatial.json", ask=False):
        return False
    if not _run(app, window, t_end=3.0):
        return False
    window.plots.add_quantity("P5.z")
    window.plots.add_quantity("P5.z", "P5.x")
    window.plot_sizer.set_maximised(True)
    window.show_time(1.2)
    return _save(app, window, out)


def scene_build(app, window, out: Path) -> bool:
    """A double pendulum from scratch, every step a click (or typed numbers)."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    from app.builder.picking import project

    build = window.build
    plotter = window.viewport.plotter

    def click_action(action) -> None:
        action.trigger()
        _wait(app, 0.05)

    def click(point) -> None:
        x, y = project(plotter, point)
        QTest.mouseClick(plotter, Qt.MouseButton.LeftButton, pos=QPoint(round(x), round(y)))
        _wait(app, 0.1)

    click_action(window.new_action)
    click_action(build.tool_actions["rod"])
    a, b, c = (0.0, 0.0, 0.0), (0.3, 0.0, -0.3), (0.7, 0.0, -0.3)
    for p, q in ((a, b), (b, c)):
        click(p)
        click(q)
    click_action(build.tool_actions["revolute"])  # axis: the XZ plane's normal, y
    click(a)  # the first rod's end …
    click((-0.3, 0.0, 0.2))  # … to ground
    click(b)  # rod1–rod2
    click((0.5, 0.0, -0.3))
    click_action(build.tool_actions["trace"])
    click(c)
    click_action(build.tool_actions["select"])
    panel = window.solver_panel
    panel.t_end.setText("3")
    panel.t_end.editingFinished.emit()
    if not _run(app, window):
        return False
    window.viewport.fit()
    window.tree.select("body", "rod2")
    window.show_time(1.9)
    return _save(app, window, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", default="readme", choices=[*FILES, "all"])
    parser.add_argument("--model", default=str(ROOT / "examples" / "four_bar_spatial.json"))
    parser.add_argument("--out", default=None, help="the PNG (default: resources/screenshots/)")
    parser.add_argument("--t-end", type=float, default=2.0, help="readme: simulated time (s)")
    parser.add_argument("--formulation", default=None, help="readme: override the formulation")
    parser.add_argument("--size", default="1600x1000", help="window size WxH")
    parser.add_argument("--settings", default=None, help="settings folder (default: a new one)")
    parser.add_argument(
        "--plot",
        action="append",
        default=[],
        metavar="QUANTITY",
        help="readme: plot this quantity (e.g. reaction.J3.Fz; repeatable) instead of the "
        "first output point",
    )
    args = parser.parse_args(argv)

    os.environ.setdefault("QT_API", "pyside6")
    from PySide6.QtCore import QSettings

    from app.application import get_application
    from app.main_window import MainWindow
    from app.theme import apply_style

    app = get_application()
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    folder = args.settings or tempfile.mkdtemp(prefix="biela-screenshot-settings-")
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, folder)
    apply_style(app)
    width, height = (int(v) for v in args.size.split("x"))
    scenes = list(FILES) if args.scene == "all" else [args.scene]
    ok = True
    for name in scenes:
        QSettings().clear()  # every scene from the default layout
        window = MainWindow()
        window.resize(width, height)
        window.show()
        _wait(app, 0.3)
        out = Path(args.out) if args.out and args.scene != "all" else SHOTS / FILES[name]
        if name == "readme":
            done = scene_readme(
                app, window, out, args.model, args.t_end, args.formulation, args.plot
            )
        else:
            done = globals()[f"scene_{name}"](app, window, out)
        if not done:
            print(f"{name}: no screenshot", file=sys.stderr)
            ok = False
        window.document.undo_stack.setClean()
        window.close()
        window.deleteLater()
        _wait(app, 0.2)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

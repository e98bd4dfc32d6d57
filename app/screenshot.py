"""Save a real screenshot of the workbench running a model (for the README).

    xvfb-run -a -s "-screen 0 1600x1000x24" python -m app.screenshot \
        [--model examples/four_bar_spatial.json] [--out resources/screenshots/workbench.png]
        [--plot reaction.J3.Fz ...]

Opens the model, runs it in the worker thread (live plots, animated viewport), adds a plot
of an output point, selects a body, stops at ``--t-end`` and grabs the whole window.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(ROOT / "examples" / "four_bar_spatial.json"))
    parser.add_argument("--out", default=str(ROOT / "resources" / "screenshots" / "workbench.png"))
    parser.add_argument("--t-end", type=float, default=2.0, help="simulated time to run (s)")
    parser.add_argument("--formulation", default=None, help="override the model's formulation")
    parser.add_argument("--size", default="1600x1000", help="window size WxH")
    parser.add_argument(
        "--plot",
        action="append",
        default=[],
        metavar="QUANTITY",
        help="plot this quantity (e.g. reaction.J3.Fz; repeatable) instead of the first output point",
    )
    args = parser.parse_args(argv)

    os.environ.setdefault("QT_API", "pyside6")
    from PySide6.QtCore import QEventLoop, QTimer

    from app.application import get_application
    from app.main_window import MainWindow
    from app.theme import apply_style

    app = get_application()
    apply_style(app)
    window = MainWindow()
    width, height = (int(v) for v in args.size.split("x"))
    window.resize(width, height)
    window.show()
    app.processEvents()
    if not window.open_model(args.model, ask=False):
        print(f"cannot open {args.model}", file=sys.stderr)
        return 1

    loop = QEventLoop()
    outcome = {}

    def finished(result):
        outcome["result"] = result
        loop.quit()

    window.run_finished.connect(finished)
    overrides = {"t_end": args.t_end}
    if args.formulation:
        overrides["formulation"] = args.formulation
    window.run_simulation(**overrides)
    QTimer.singleShot(600_000, loop.quit)
    loop.exec()
    run = window.run_data
    if run is None or len(run) == 0:
        print(f"the run produced no frames: {outcome}", file=sys.stderr)
        return 1
    model = window.document.model
    if args.plot:
        from app import result_quantities

        result_quantities.ensure(model, run, args.plot, model.solver.analysis)
        for quantity in args.plot:
            window.plots.add_quantity(quantity)
    elif model.outputs:
        window.plots.add_quantity(f"{model.outputs[0].name}.z")
    if model.bodies:
        window.tree.select("body", model.bodies[0].name)
    window.show_time(float(run.t[-1]) * 0.62)
    for _ in range(20):
        app.processEvents()
    window.viewport.render_now()
    app.processEvents()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not window.grab().save(str(out), "PNG"):
        print(f"cannot write {out}", file=sys.stderr)
        return 1
    print(f"{out}: {run.status}, {len(run)} frames to t = {float(run.t[-1]):.3f} s")
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Solver speed inside the workbench vs headless, and the viewport's frame rate.

    xvfb-run -a -s "-screen 0 1600x1000x24" python benchmarks/gui_speed.py \
        [--model examples/double_four_bar.json] [--dt 1e-3] [--t-end 2] [--output-dt H]

Runs the same model and settings headless (``simulate``) and in the workbench (solver
process + live plots + animated viewport) and prints both wall times, their ratio and the
frames per second the viewport rendered during the GUI run, with the GUI process's CPU time
per rendered frame (all its threads; unlike wall times it hardly depends on the machine's
load, which is printed too). ``BIELA_VIEWPORT=opengl`` measures pyvistaqt's widget.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=str(ROOT / "examples" / "double_four_bar.json"))
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--t-end", type=float, default=2.0)
    parser.add_argument("--formulation", default=None)
    parser.add_argument(
        "--output-dt",
        type=float,
        default=None,
        help="output interval (s; default the model's): the solver's row rate bounds the "
        "frame rate while streaming, since a row is drawn at most once",
    )
    args = parser.parse_args()
    overrides = {"dt": args.dt, "t_end": args.t_end}
    if args.formulation:
        overrides["formulation"] = args.formulation
    if args.output_dt:
        overrides["output_dt"] = args.output_dt

    from solver import load_model, simulate

    model = load_model(args.model)
    start = time.perf_counter()
    result = simulate(model, **overrides)
    headless = time.perf_counter() - start
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(
        f"headless: {result.status}, {len(result)} frames, {headless:.2f} s "
        f"(solver {result.summary['wall_time_s']:.2f} s)"
    )

    os.environ.setdefault("QT_API", "pyside6")
    from PySide6.QtCore import QEventLoop, QTimer

    from app.application import get_application
    from app.main_window import MainWindow
    from app.theme import apply_style
    from benchmarks.gui_profile import isolate_settings

    app = get_application()
    isolate_settings(app)
    apply_style(app)
    window = MainWindow()
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    window.open_model(args.model, ask=False)
    loop = QEventLoop()
    window.run_finished.connect(lambda _outcome: loop.quit())
    rendered = window.viewport.frames_rendered
    first_frame: list[float] = []
    window.runner.frames_ready.connect(
        lambda _b: first_frame.append(time.perf_counter()) if not first_frame else None
    )
    start = time.perf_counter()
    cpu = time.process_time()
    window.run_simulation(**overrides)
    QTimer.singleShot(1_800_000, loop.quit)
    loop.exec()
    end = time.perf_counter()
    cpu = time.process_time() - cpu
    outcome = window.last_outcome
    frames = window.viewport.frames_rendered - rendered
    streaming = end - (first_frame[0] if first_frame else start)
    solver_wall = float(outcome.summary.get("wall_time_s") or outcome.wall_time)
    print(
        f"gui:      {outcome.status}, {len(window.run_data)} frames, {end - start:.2f} s "
        f"from Run (solver {solver_wall:.2f} s, process start included in the former)"
    )
    print(f"solver speed in the GUI: {result.summary['wall_time_s'] / solver_wall:.0%} of headless")
    print(
        f"viewport: {frames} frames in {streaming:.2f} s of streaming = "
        f"{frames / max(streaming, 1e-9):.1f} fps; GUI process CPU {cpu / (end - start):.2f} "
        f"cores, {1e3 * cpu / max(frames, 1):.1f} ms per frame"
    )
    # the solver's output rate bounds the streaming frame rate: a row is drawn at most once
    rows = len(window.run_data)
    print(
        f"          the solver sent {rows / max(streaming, 1e-9):.1f} rows/s; "
        f"{min(frames, rows) / max(rows, 1):.0%} of the rows were drawn"
    )
    # playback: frames are all there, so this is what the viewport itself sustains
    window.playback.set_speed(1.0)
    window.playback.loop_box.setChecked(True)
    rendered = window.viewport.frames_rendered
    window.playback.set_index(0)
    window.playback.play()
    start = time.perf_counter()
    cpu = time.process_time()
    QTimer.singleShot(4000, loop.quit)
    loop.exec()
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    window.playback.stop()
    played = window.viewport.frames_rendered - rendered
    print(
        f"playback: {played} frames in {seconds:.2f} s = {played / seconds:.1f} fps; "
        f"GUI process CPU {cpu / seconds:.2f} cores, {1e3 * cpu / max(played, 1):.1f} ms per frame"
    )
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

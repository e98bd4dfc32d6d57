"""Where the GUI thread's time goes during a run and during playback.

    xvfb-run -a -s "-screen 0 1600x1000x24" python benchmarks/gui_profile.py \
        [--model examples/double_four_bar.json] [--dt 1e-3] [--t-end 2] [--top 30]

``--top 0``: no cProfile (its overhead inflates Python-heavy calls such as pyqtgraph's several
times), only the timers below.

Profiles the main (GUI) thread with cProfile while the workbench streams a run and then plays
it back, and prints the time of the scene update (``Viewport._apply``), the render (VTK
Start/End events), the viewport's paint (render and image), the plot refreshes and paints and
the CPU time of the GUI process per rendered frame. All times are CPU times, not wall times,
so they hardly depend on the machine's load: the GUI thread's own for the Python-side calls,
the whole process's (Mesa's rasteriser threads included) for the VTK render, the viewport's
paint and cProfile's listing. Timed calls nest (a paint includes its render).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def isolate_settings(app) -> None:
    """The default window layout, not the one the user last saved (plots dock shown)."""
    import tempfile

    from PySide6.QtCore import QSettings

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    folder = tempfile.mkdtemp(prefix="biela-bench-settings-")
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, folder)
    app.setOrganizationName("BielaBenchmark")


class Timer:
    """Wraps ``obj.name`` (an object's or a class's) and accumulates the CPU time of its calls:
    the GUI thread's own (``clock=time.thread_time``) or the whole process's (for VTK, whose
    software rasteriser runs in threads of its own)."""

    def __init__(self, obj, name: str, clock=time.thread_time) -> None:
        self.calls = 0
        self.total = 0.0
        original = getattr(obj, name)

        def wrapped(*args, **kwargs):
            start = clock()
            try:
                return original(*args, **kwargs)
            finally:
                self.total += clock() - start
                self.calls += 1

        setattr(obj, name, wrapped)

    def __str__(self) -> str:
        mean = 1e3 * self.total / max(self.calls, 1)
        return f"{self.calls:5d} calls, {1e3 * self.total:8.1f} ms CPU, {mean:6.2f} ms each"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default=str(ROOT / "examples" / "double_four_bar.json"))
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--t-end", type=float, default=2.0)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--playback-s", type=float, default=4.0)
    args = parser.parse_args()

    os.environ.setdefault("QT_API", "pyside6")
    from PySide6.QtCore import QEventLoop, QTimer

    from app.application import get_application
    from app.image_view import ImageInteractor
    from app.main_window import MainWindow
    from app.theme import apply_style

    app = get_application()
    isolate_settings(app)
    apply_style(app)
    from pyqtgraph.widgets.GraphicsView import GraphicsView  # imported by app: same Qt binding

    # Qt's virtual paintEvent: wrapped before the widgets exist (the binding caches overrides)
    paints = {
        "plot paints": Timer(GraphicsView, "paintEvent"),
        "viewport paints": Timer(ImageInteractor, "paintEvent", time.process_time),
    }
    window = MainWindow()
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    window.open_model(args.model, ask=False)
    vp = window.viewport
    timers = {
        "scene update (_apply)": Timer(vp, "_apply"),
        "plots.refresh": Timer(window.plots, "refresh"),
        "frames handler": Timer(window, "_run_frames"),
        "playback show_index": Timer(window, "_show_index"),
        "plot cursors": Timer(window, "_update_cursors"),
        "live status labels": Timer(window, "_update_status"),
        **paints,
    }
    renders = {"n": 0, "total": 0.0}

    def started(*_a):
        renders["start"] = time.process_time()

    def ended(*_a):
        renders["n"] += 1
        renders["total"] += time.process_time() - renders.get("start", time.process_time())

    if vp.plotter is not None:
        vp.plotter.ren_win.AddObserver("StartEvent", started)
        vp.plotter.ren_win.AddObserver("EndEvent", ended)

    loop = QEventLoop()
    window.run_finished.connect(lambda _o: loop.quit())

    def report(title: str, profile: cProfile.Profile, wall: float, cpu: float, frames: int):
        print(f"\n===== {title}: {frames} frames in {wall:.2f} s = {frames / wall:.1f} fps")
        print(f"GUI process CPU {cpu:.2f} s = {1e3 * cpu / max(frames, 1):.1f} ms per frame")
        print(
            f"render: {renders['n']} renders, {1e3 * renders['total']:.0f} ms, "
            f"{1e3 * renders['total'] / max(renders['n'], 1):.1f} ms each"
        )
        for name, timer in timers.items():
            print(f"{name:24s} {timer}")
        if args.top:
            stats = pstats.Stats(profile)
            stats.sort_stats("tottime").print_stats(args.top)
            stats.sort_stats("cumulative").print_stats(args.top)
        for timer in timers.values():
            timer.calls, timer.total = 0, 0.0
        renders["n"], renders["total"] = 0, 0.0

    profile = cProfile.Profile(time.process_time)
    rendered = vp.frames_rendered
    cpu0 = time.process_time()
    start = time.perf_counter()
    if args.top:
        profile.enable()
    window.run_simulation(dt=args.dt, t_end=args.t_end)
    QTimer.singleShot(1_800_000, loop.quit)
    loop.exec()
    profile.disable()
    report(
        "streaming",
        profile,
        time.perf_counter() - start,
        time.process_time() - cpu0,
        vp.frames_rendered - rendered,
    )
    outcome = window.last_outcome
    print(f"solver wall time in the GUI: {outcome.summary.get('wall_time_s')}")

    window.playback.set_speed(1.0)
    window.playback.loop_box.setChecked(True)
    window.playback.set_index(0)
    profile = cProfile.Profile(time.process_time)
    rendered = vp.frames_rendered
    cpu0 = time.process_time()
    start = time.perf_counter()
    if args.top:
        profile.enable()
    window.playback.play()
    QTimer.singleShot(int(1000 * args.playback_s), loop.quit)
    loop.exec()
    profile.disable()
    window.playback.stop()
    report(
        "playback",
        profile,
        time.perf_counter() - start,
        time.process_time() - cpu0,
        vp.frames_rendered - rendered,
    )
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Biela against Exudyn and the published timings of Urkullu (2019) and Saura et al.: one command,
CSV + Markdown report.

    python -m benchmarks.run [--quick] [--out benchmarks/results] [--sections ...]

Sections (``--sections peer,precision,slider,reference``, all by default):

* ``peer``: the same models in Biela and Exudyn (``benchmarks.exudyn_models``), same Δt
  and end time, run alternately (Exudyn, Biela, Exudyn, Biela, …) so that the machine's
  drift cancels: A01 pendulum, A02 double four-bar, A04 Bricard (10 s at 1 ms) and the
  spatial chain of N bars with spherical joints (N = 1, 4, 16, 64, 256; 1 s at 1 ms).
  Per model and formulation: wall and CPU time per step (the best of the repeats), the
  ratio Biela/Exudyn, Newton iterations per step, energy drift, constraint error and the
  largest difference of the bodies' final centre-of-mass positions between the two codes.
* ``precision``: time to precision: for A01, A02, A04 and each formulation, Δt is swept
  from large to small and the first Δt whose 10 s run meets the IFToMM criterion (energy
  drift below 5e-5 J for A01, 0.1 J for A02, 1e-3 J for A04) gives the least CPU time
  (cost grows as Δt shrinks, so the largest passing Δt is the cheapest).
* ``slider``: Saura et al. Table 1's protocol on the scalable slider-crank (natural coordinates,
  R-matrix dynamics, Δt = 5 ms, ``benchmarks.slider_crank_scaling``), per-step CPU time for
  the global (GLOB) and structural-group (TOP) methods against Saura et al.'s figures, with a
  least-squares fit of the cost in k.
* ``reference``: Urkullu's C timings of DIMCD (A01 10 s in 0.23 s, A02 0.26 s, Bricard 0.32 s)
  next to Biela's central_differences on the same runs.

``--quick`` runs shorter versions (fewer N, shorter end times, fewer Δt and formulations,
smaller k and fewer steps; times per step are still comparable). Options set each of these
(``--iftomm-t-end``, ``--chain-n``, ``--slider-k``, …; see ``--help``); the command line is
written into the report. ``--keep`` reports the CSVs already in ``--out`` for the sections
not run this time (so one section can be rerun alone). CPU time is the process
time of this single-threaded run (BLAS limited to one thread, like Exudyn's default);
wall time is also given. The machine, its load average before and after, and the date are
written with the results. Benchmarks are not part of the test suite.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import csv  # noqa: E402
import datetime  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from benchmarks.chain import chain_model  # noqa: E402
from solver.analysis.compiled_steps import compiled_stepper  # noqa: E402
from solver.analysis.formulations import formulation_class  # noqa: E402
from solver.analysis.simulate import Simulation, settings_with  # noqa: E402
from solver.analysis.warmup import warm  # noqa: E402
from solver.kernels import jit  # noqa: E402
from solver.model import load_model  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FORMULATIONS = (
    "central_differences",
    "augmented_lagrangian",
    "null_space",
    "penalty",
    "lagrange_baumgarte",
)
#: IFToMM criteria (max energy drift over 10 s, J)
CRITERIA = {"A01": 5e-5, "A02": 0.1, "A04": 1e-3}
IFTOMM = {"A01": "pendulum.json", "A02": "double_four_bar.json", "A04": "bricard.json"}
#: non-default parameters, as the validation tests use them: the penalty formulation passes
#: A02's singular positions only with stiffer constraints (ω = 100; the default 10 fails)
PARAMETERS = {("A02", "penalty"): {"omega": 100.0}}
#: Urkullu (2019) ch. 8 (Urkullu, DIMCD in C, Core i7-3770): 10 s runs, CPU seconds and the step
#: used
#: command-line overrides of the protocol's end times and step counts
OPTIONS: dict = {}
C_TIMINGS = {"A01": (0.23, 1e-3), "A02": (0.26, 15e-3), "A04": (0.32, 10e-3)}


# ---- one run of each code --------------------------------------------------------------
def run_biela(model, formulation: str, dt: float, t_end: float, parameters=None) -> dict:
    """Time one Biela run (model set-up excluded) and collect its accuracy."""
    settings = settings_with(
        model,
        analysis="dynamic",
        formulation=formulation,
        dt=dt,
        t_end=t_end,
        output_dt=0.01,
        parameters=parameters,
    )
    sim = Simulation(model, settings)
    path = "system"  # each step through the system's methods
    if formulation in ("central_differences", "augmented_lagrangian") and jit.ENABLED:
        stepper = compiled_stepper(
            sim.system, settings, formulation_class(formulation)(sim.system, settings)
        )
        path = "compiled" if stepper is not None else "system"
    c0, w0 = time.process_time(), time.perf_counter()
    c1, w1 = c0, w0
    for _ in sim:  # the time of the last frame: the run's summary (DOF analysis) is excluded
        c1, w1 = time.process_time(), time.perf_counter()
    cpu, wall = c1 - c0, w1 - w0
    r = sim.result
    s = r.summary
    steps = max(1, int(s["steps"]))
    final = {}
    if r.status == "ok" and len(r):
        row, cols = r.rows[-1], r.columns
        for name in sim.system.slots:
            i = cols.index(f"{name}.x")
            final[name] = np.asarray(row[i : i + 3], float)
    return {
        "code": "biela",
        "formulation": formulation,
        "path": path,
        "status": r.status,
        "message": r.message or "",
        "steps": steps,
        "cpu_s": cpu,
        "wall_s": wall,
        "newton_per_step": s["newton_iterations"] / steps,
        "energy_drift": s["max_energy_drift"],
        "constraint_error": s["max_constraint_position"],
        "final": final,
    }


def redundant(model) -> bool:
    """Whether the model's joints are redundant at t = 0 (Exudyn then needs its
    pseudo-inverse solver)."""
    from solver.analysis.mobility import mobility
    from solver.mechanics.system import MultibodySystem

    key = id(model)
    if key not in _REDUNDANT:
        system = MultibodySystem(model)
        # a dense SVD: only for the small models (the chains are not redundant)
        _REDUNDANT[key] = system.n <= 300 and mobility(system, system.q0).redundant > 0
    return _REDUNDANT[key]


_REDUNDANT: dict[int, bool] = {}


def run_exudyn(model, dt: float, t_end: float, sparse: bool) -> dict:
    """Time one Exudyn run without sensors, then repeat it with sensors for the accuracy."""
    from benchmarks import exudyn_models as em

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        case = em.build(model)
        ss = em.settings(dt, t_end, sparse, redundant=redundant(model))
        c0, w0 = time.process_time(), time.perf_counter()
        try:
            ok = bool(case.mbs.SolveDynamic(ss))
            message = ""
        except Exception as exc:  # Exudyn raises SolverError when Newton fails
            ok, message = False, str(exc)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    return {
        "code": "exudyn",
        "formulation": "generalized_alpha",
        "status": "ok" if ok else "failed",
        "message": message,
        "steps": int(round(t_end / dt)),
        "cpu_s": cpu,
        "wall_s": wall,
        "newton_per_step": float("nan"),
        "energy_drift": float("nan"),
        "constraint_error": float("nan"),
        "final": {},
    }


def exudyn_accuracy(model, dt: float, t_end: float, sparse: bool) -> dict:
    """Energy drift, joint error and final positions of an Exudyn run with sensors."""
    from benchmarks import exudyn_models as em

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        case = em.build(model, accuracy=True)
        ss = em.settings(dt, t_end, sparse, redundant=redundant(model))
        try:
            case.mbs.SolveDynamic(ss)
            ok = True
        except Exception:
            ok = False
    if not ok:
        return {}
    acc = em.accuracy(case)
    final = {
        b.name: np.asarray(case.mbs.GetSensorStoredData(s)[-1, 1:4])
        for b, s in zip(model.bodies, case.com_sensors, strict=True)
    }
    return {**acc, "final": final}


# ---- sections --------------------------------------------------------------------------
def peer_cases(quick: bool):
    """(label, model, t_end, formulations, exudyn sparse?)"""
    t_if = OPTIONS.get("iftomm_t_end") or (2.0 if quick else 10.0)
    forms = OPTIONS.get("formulations") or (
        ("central_differences", "augmented_lagrangian") if quick else FORMULATIONS
    )
    cases = [
        (f"{k} {IFTOMM[k][:-5]}", load_model(EXAMPLES / IFTOMM[k]), t_if, forms, False)
        for k in ("A01", "A02", "A04")
    ]
    ns = OPTIONS.get("chain_n") or ((1, 4, 16) if quick else (1, 4, 16, 64, 256))
    t_chain = OPTIONS.get("chain_t_end") or (0.2 if quick else 1.0)
    for n in ns:
        # central differences take a dense SVD of Φ_q every Newton iteration: up to N = 16
        cforms = ("augmented_lagrangian",) + (("central_differences",) if n <= 16 else ())
        t_n = OPTIONS.get("large_chain_t_end") or t_chain if n >= 64 else t_chain
        cases.append((f"chain N={n}", chain_model(n), t_n, cforms, n >= 64))
    return cases


def section_peer(quick: bool, repeats: int, log) -> list[dict]:
    rows = []
    dt = 1e-3
    for label, model, t_end, forms, sparse in peer_cases(quick):
        acc = exudyn_accuracy(model, dt, t_end, sparse)
        for form in forms:
            best = {}
            # alternate: Exudyn, Biela, Exudyn, Biela, ... (the 10 s IFToMM runs once less)
            reps = repeats if label.startswith("chain") else max(1, repeats - 1)
            for _ in range(reps):
                for res in (
                    run_exudyn(model, dt, t_end, sparse),
                    run_biela(model, form, dt, t_end, PARAMETERS.get((label[:3], form))),
                ):
                    key = res["code"]
                    if key not in best or res["cpu_s"] < best[key]["cpu_s"]:
                        best[key] = res
            ex, bi = best["exudyn"], best["biela"]
            ex.update({k: v for k, v in acc.items()})
            diff = float("nan")
            if bi["final"] and ex["final"]:
                diff = max(
                    float(np.linalg.norm(bi["final"][k] - ex["final"][k])) for k in bi["final"]
                )
            for res in (ex, bi):
                rows.append(
                    {
                        "model": label,
                        "n_coordinates": _n_coordinates(model),
                        "dt": dt,
                        "t_end": t_end,
                        "code": res["code"],
                        "path": res.get("path", ""),
                        "formulation": res["formulation"] if res["code"] == "exudyn" else form,
                        "status": res["status"],
                        "cpu_per_step_us": 1e6 * res["cpu_s"] / res["steps"],
                        "wall_per_step_us": 1e6 * res["wall_s"] / res["steps"],
                        "ratio_cpu": (bi["cpu_s"] / ex["cpu_s"]) if res["code"] == "biela" else 1.0,
                        "newton_per_step": res["newton_per_step"],
                        "energy_drift": res["energy_drift"],
                        "constraint_error": res["constraint_error"],
                        "final_position_difference": diff,
                        "message": res["message"][:120],
                    }
                )
            log(
                f"{label:22s} {form:22s} Biela {rows[-1]['cpu_per_step_us']:9.1f} us/step "
                f"Exudyn {rows[-2]['cpu_per_step_us']:8.1f} us/step ratio {rows[-1]['ratio_cpu']:6.1f}"
                f" drift {bi['energy_drift'] or float('nan'):.2e} / {ex['energy_drift']:.2e}"
            )
    return rows


def _n_coordinates(model) -> int:
    from solver.mechanics.system import MultibodySystem

    return MultibodySystem(model).n


def section_precision(quick: bool, log) -> list[dict]:
    rows = []
    dts = OPTIONS.get("precision_dt") or (
        (5e-3, 2e-3, 1e-3) if quick else (10e-3, 5e-3, 2e-3, 1e-3, 0.5e-3)
    )
    keys = OPTIONS.get("precision_models") or (("A01",) if quick else ("A01", "A02", "A04"))
    forms = OPTIONS.get("formulations") or (
        ("central_differences", "augmented_lagrangian") if quick else FORMULATIONS
    )
    for key in keys:
        model = load_model(EXAMPLES / IFTOMM[key])
        crit = CRITERIA[key]
        for code_form in (*forms, "exudyn"):
            found = None
            tried = []
            path = ""
            for dt in dts:
                if code_form == "exudyn":
                    res = run_exudyn(model, dt, 10.0, False)
                    acc = exudyn_accuracy(model, dt, 10.0, False) if res["status"] == "ok" else {}
                    drift = acc.get("energy_drift", float("nan"))
                else:
                    res = run_biela(model, code_form, dt, 10.0, PARAMETERS.get((key, code_form)))
                    drift = res["energy_drift"] if res["status"] == "ok" else float("nan")
                    path = res["path"]
                tried.append(f"{dt * 1e3:g} ms: {drift:.2e} J")
                if res["status"] == "ok" and drift is not None and drift < crit:
                    found = (dt, res["cpu_s"], drift)
                    break
            rows.append(
                {
                    "model": key,
                    "criterion_J": crit,
                    "code": "exudyn" if code_form == "exudyn" else "biela",
                    "path": path,
                    "formulation": "generalized_alpha" if code_form == "exudyn" else code_form,
                    "dt_passing": found[0] if found else float("nan"),
                    "cpu_s": found[1] if found else float("nan"),
                    "energy_drift": found[2] if found else float("nan"),
                    "sweep": "; ".join(tried),
                }
            )
            log(
                f"precision {key} {code_form:22s} {rows[-1]['dt_passing']} s -> {rows[-1]['cpu_s']:.2f} s CPU"
            )
    return rows


def section_slider(quick: bool, log) -> list[dict]:
    from benchmarks import slider_crank_scaling as scs

    ks = OPTIONS.get("slider_k") or ((1, 9, 36) if quick else scs.KS)
    steps = OPTIONS.get("slider_steps") or (24 if quick else 240)
    rows = []
    for k in ks:
        case = scs.Case(k)
        for j, method in enumerate(("GLOB", "TOP")):
            cpu = min(
                scs.run_dynamics(case, method, "MATR", steps)[0] for _ in range(1 if quick else 2)
            )
            ref = scs.TABLE1.get(k, (float("nan"),) * 6)[4 + j]
            rows.append(
                {
                    "k": k,
                    "n_coordinates": case.dyn_system.n,
                    "method": method,
                    "steps": steps,
                    "cpu_per_step_ms": 1e3 * cpu / steps,
                    "table1_per_step_ms": 1e3 * ref / scs.PROTOCOL_STEPS,
                }
            )
            log(
                f"slider-crank k={k:3d} {method} {rows[-1]['cpu_per_step_ms']:.3f} ms/step "
                f"(Saura et al.: {rows[-1]['table1_per_step_ms']:.3f})"
            )
    return rows


def section_reference(peer: list[dict], quick: bool, log) -> list[dict]:
    rows = []
    labels = {"A01": "A01 pendulum", "A02": "A02 double_four_bar", "A04": "A04 bricard"}
    for key, (cpu, dt_c) in C_TIMINGS.items():
        model = load_model(EXAMPLES / IFTOMM[key])
        for form in ("central_differences", "augmented_lagrangian"):
            hit = [
                r
                for r in peer
                if r["model"] == labels[key] and r["formulation"] == form and r["code"] == "biela"
            ]
            if hit:
                per_step = hit[0]["cpu_per_step_us"] * 1e-6
                wall_step = hit[0]["wall_per_step_us"] * 1e-6
            else:
                res = run_biela(model, form, 1e-3, 1.0 if quick else 10.0)
                per_step, wall_step = res["cpu_s"] / res["steps"], res["wall_s"] / res["steps"]
            rows.append(
                {
                    "model": key,
                    "formulation": form,
                    "biela_10s_at_1ms_cpu_s": per_step * 10000,
                    "biela_10s_at_1ms_wall_s": wall_step * 10000,
                    "c_dimcd_cpu_s": cpu,
                    "c_dimcd_dt": dt_c,
                    "c_dimcd_per_step_us": 1e6 * cpu / (10.0 / dt_c),
                }
            )
            log(
                f"reference {key} {form}: 10 s at 1 ms = {per_step * 1e4:.2f} s CPU (Urkullu's C: {cpu} s at {dt_c * 1e3:g} ms)"
            )
    return rows


# ---- output ----------------------------------------------------------------------------
def write_csv(path: Path, rows: list[dict]) -> None:
    if not rows:
        return
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})


def machine_info() -> dict:
    import exudyn
    import scipy

    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(
                line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")
            )
    except (OSError, StopIteration):
        pass
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "exudyn": exudyn.__version__,
        "load_before": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def _code(row: dict) -> str:
    """``biela (compiled)``, ``biela`` or ``exudyn``."""
    return row["code"] + (" (compiled)" if row.get("path") == "compiled" else "")


def _fmt(x, spec=".3g"):
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "–"
    return format(x, spec)


def plots(out: Path, peer, slider, precision) -> list[str]:
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made = []
    chain = [r for r in peer if r["model"].startswith("chain")]
    if chain:
        fig, ax = plt.subplots(figsize=(6, 4))
        for code, form in {(r["code"], r["formulation"]) for r in chain}:
            pts = sorted(
                (int(r["model"].split("=")[1]), r["cpu_per_step_us"])
                for r in chain
                if r["code"] == code and r["formulation"] == form and r["status"] == "ok"
            )
            if pts:
                ax.loglog(*zip(*pts, strict=True), "o-", label=f"{code} {form}")
        ax.set_xlabel("N (bars)")
        ax.set_ylabel("CPU time per step (µs)")
        ax.set_title("Spherical chain, Δt = 1 ms")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "chain_per_step.png", dpi=110)
        plt.close(fig)
        made.append("chain_per_step.png")
    bi = [r for r in peer if r["code"] == "biela"]
    if bi:
        fig, ax = plt.subplots(figsize=(7, 0.35 * len(bi) + 1.2))
        labels = [f"{r['model']} · {r['formulation']}" for r in bi]
        ax.barh(range(len(bi)), [r["ratio_cpu"] for r in bi])
        ax.set_yticks(range(len(bi)), labels, fontsize=7)
        ax.set_xscale("log")
        ratios = [r["ratio_cpu"] for r in bi]
        ticks = [
            x
            for x in (0.125, 0.25, 0.5, 1, 2, 4, 8, 16, 32)
            if 0.5 * min(ratios) < x < 2 * max(ratios)
        ]
        ax.set_xticks(ticks, [f"{x:g}" for x in ticks])  # plain numbers, no minor labels
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_xlabel("CPU time ratio Biela / Exudyn (same run)")
        ax.axvline(1.0, color="k", lw=0.8)
        fig.tight_layout()
        fig.savefig(out / "ratio.png", dpi=110)
        plt.close(fig)
        made.append("ratio.png")
    if slider:
        fig, ax = plt.subplots(figsize=(6, 4))
        for method in ("GLOB", "TOP"):
            pts = [
                (r["k"], r["cpu_per_step_ms"], r["table1_per_step_ms"])
                for r in slider
                if r["method"] == method
            ]
            k, ours, ref = zip(*pts, strict=True)
            ax.plot(k, ours, "o-", label=f"Biela {method}")
            ax.plot(k, ref, "x--", label=f"Saura et al. Table 1 {method}")
        ax.set_xlabel("k (dyads)")
        ax.set_ylabel("CPU ms per step (R matrix, Δt = 5 ms)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "slider_crank.png", dpi=110)
        plt.close(fig)
        made.append("slider_crank.png")
    return made


def report(out: Path, info, peer, precision, slider, reference, figures, quick) -> str:
    lines = [
        "# Biela benchmarks",
        "",
        f"Generated by `{OPTIONS.get('command', 'python -m benchmarks.run').strip()}` on {info['date']}: "
        f"{info['cpu']}, {info['cores']} cores; Python {info['python']}, NumPy {info['numpy']}, "
        f"SciPy {info['scipy']}, Exudyn {info['exudyn']}. Load average (1, 5, 15 min) before: "
        f"{info['load_before']}, after: {info['load_after']} (the machine is shared: times are "
        "noisy; CPU time is less affected by the load than wall time, and every Biela run "
        "alternates with an Exudyn run of the same case).",
        "",
        *(
            [f"Sections not rerun this time come from earlier runs: {info['earlier_runs']}.", ""]
            if info.get("earlier_runs")
            else []
        ),
        "Exudyn: implicit generalized-α (its default solver; ρ∞ = 0.9, index 3, its default "
        "Newton settings), fixed step, no sensors in the timed run, dense LU below N = 64 "
        "and sparse LU (Eigen) from N = 64 on. Biela: `simulate` as a user calls it, its "
        "time loop's energies and constraint errors at every step included; model set-up "
        "excluded in both. `biela (compiled)`: the Numba-compiled steps of `solver.compiled` "
        "(every model these runs use; compiled or loaded from the cache before the timing, in "
        f"{info.get('compile_s', '–')} s this time), `biela`: the NumPy path.",
        "",
    ]
    if peer:
        lines += [
            "## Same models, same Δt: Biela vs Exudyn",
            "",
            "| model | n | t_end | code / formulation | status | CPU µs/step | wall µs/step | "
            "Biela/Exudyn (CPU) | Newton it./step | energy drift (J) | constraint error | "
            "Δ final CoM vs Exudyn (m) |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        ex_ok = True
        for r in peer:
            if r["code"] == "exudyn":
                ex_ok = r["status"] == "ok"
            ratio = _fmt(r["ratio_cpu"], ".1f") if r["code"] == "biela" and ex_ok else ""
            if r["code"] == "biela" and not ex_ok:
                ratio = "– (Exudyn failed)"
            lines.append(
                f"| {r['model']} | {r['n_coordinates']} | {r['t_end']:g} s | {_code(r)} "
                f"{r['formulation']} | {r['status']} | {_fmt(r['cpu_per_step_us'], '.1f')} | "
                f"{_fmt(r['wall_per_step_us'], '.1f')} | "
                f"{ratio} | "
                f"{_fmt(r['newton_per_step'], '.2f')} | {_fmt(r['energy_drift'], '.2e')} | "
                f"{_fmt(r['constraint_error'], '.1e')} | "
                f"{_fmt(r['final_position_difference'], '.1e') if r['code'] == 'biela' else ''} |"
            )
        lines += [
            "",
            "Constraint error: Biela's max |Φ| over all rows and output steps; Exudyn's largest "
            "distance between the two ends of a joint (sampled every 10 ms). Energy drift: "
            "max |E(t) − E(0)| over the output steps (10 ms).",
            "",
        ]
    if reference:
        lines += [
            "## Reference rows: Urkullu's DIMCD in C",
            "",
            "| model | Biela formulation | Biela 10 s at 1 ms, CPU (s) | wall (s) | "
            "Urkullu's C DIMCD (s) | its Δt | its µs/step |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in reference:
            lines.append(
                f"| {r['model']} | {r['formulation']} | {r['biela_10s_at_1ms_cpu_s']:.2f} | "
                f"{r['biela_10s_at_1ms_wall_s']:.2f} | {r['c_dimcd_cpu_s']} | "
                f"{r['c_dimcd_dt'] * 1e3:g} ms | {r['c_dimcd_per_step_us']:.0f} |"
            )
        lines.append("")
    if precision:
        lines += [
            "## Time to precision (IFToMM criterion on the energy drift over 10 s)",
            "",
            "| model | criterion (J) | code / formulation | largest passing Δt | CPU (s) | drift (J) |"
            " sweep (Δt: drift) |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in precision:
            lines.append(
                f"| {r['model']} | {r['criterion_J']:g} | {_code(r)} {r['formulation']} | "
                f"{_fmt(r['dt_passing'] * 1e3 if np.isfinite(r['dt_passing']) else float('nan'), 'g')} ms | "
                f"{_fmt(r['cpu_s'], '.2f')} | {_fmt(r['energy_drift'], '.2e')} | {r['sweep']} |"
            )
        lines.append("")
    if slider:
        lines += [
            "## Saura et al. Table 1 protocol: scalable slider-crank, R-matrix dynamics",
            "",
            "| k | n | method | steps timed | CPU ms/step | Saura et al. Table 1 ms/step |",
            "|---|---|---|---|---|---|",
        ]
        for r in slider:
            lines.append(
                f"| {r['k']} | {r['n_coordinates']} | {r['method']} | {r['steps']} | "
                f"{r['cpu_per_step_ms']:.3f} | {r['table1_per_step_ms']:.3f} |"
            )
        for method in ("GLOB", "TOP"):
            pts = np.array(
                [(r["k"], r["cpu_per_step_ms"]) for r in slider if r["method"] == method]
            )
            if len(pts) >= 2:
                slope, icept = np.polyfit(pts[:, 0], pts[:, 1], 1)
                loglog = (
                    np.polyfit(np.log(pts[1:, 0]), np.log(pts[1:, 1]), 1)[0]
                    if len(pts) > 2
                    else float("nan")
                )
                lines.append(
                    f"\n{method}: least-squares fit {icept:.3f} + {slope:.4f}·k ms/step; "
                    f"log-log slope over k ≥ {int(pts[1, 0])}: {loglog:.2f} (1 = linear)."
                )
        lines.append("")
    for f in figures:
        lines += [f"![{f}]({f})", ""]
    text = "\n".join(lines)
    (out / "report.md").write_text(text)
    return text


def read_csv(path: Path) -> list[dict]:
    """Rows of a CSV written by :func:`write_csv`, numbers converted back."""
    if not path.exists():
        return []

    def value(text):
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                pass
        return text

    with open(path, newline="") as fh:
        return [{k: value(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def _earlier(rows: list[dict]) -> str:
    row = rows[0] if rows else {}
    text = f"{row.get('date', '?')} (load {row.get('load_before', '?')} / {row.get('load_after', '?')}; {row.get('command', '?')})"
    return "; ".join(x for x in (row.get("earlier_runs", ""), text) if x)


def _ints(text):
    return tuple(int(x) for x in text.split(",")) if text else None


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter runs, fewer cases")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    parser.add_argument("--sections", default="peer,precision,slider,reference")
    parser.add_argument("--repeats", type=int, default=None, help="alternating repeats (peer)")
    parser.add_argument("--iftomm-t-end", type=float, help="end time of the A01/A02/A04 peer runs")
    parser.add_argument("--chain-t-end", type=float, help="end time of the chain runs")
    parser.add_argument("--large-chain-t-end", type=float, help="end time for N >= 64")
    parser.add_argument("--slider-steps", type=int, help="slider-crank steps timed per k")
    parser.add_argument("--slider-k", help="comma-separated k of the slider-crank")
    parser.add_argument(
        "--keep", action="store_true", help="report the CSVs of sections not run this time"
    )
    parser.add_argument("--chain-n", help="comma-separated N of the chain")
    parser.add_argument("--formulations", help="comma-separated Biela formulations")
    parser.add_argument("--precision-models", help="comma-separated: A01,A02,A04")
    parser.add_argument("--precision-dt", help="comma-separated steps (s) of the sweep")
    args = parser.parse_args(argv)
    OPTIONS.update(
        iftomm_t_end=args.iftomm_t_end,
        chain_t_end=args.chain_t_end,
        large_chain_t_end=args.large_chain_t_end,
        slider_steps=args.slider_steps,
        slider_k=_ints(args.slider_k),
        chain_n=_ints(args.chain_n),
        formulations=tuple(args.formulations.split(",")) if args.formulations else None,
        precision_models=tuple(args.precision_models.split(",")) if args.precision_models else None,
        precision_dt=tuple(map(float, args.precision_dt.split(","))) if args.precision_dt else None,
        command="python -m benchmarks.run " + " ".join(argv if argv is not None else sys.argv[1:]),
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sections = set(args.sections.split(","))
    repeats = args.repeats or (1 if args.quick else 2)
    info = machine_info()
    info["command"] = OPTIONS["command"].strip()
    os.environ.setdefault("BIELA_COMPILED", "1")
    if jit.ENABLED:  # compiled before the timing starts (or loaded from the cache)
        info["compile_s"] = f"{warm():.1f}"

    def log(msg):
        print(msg, flush=True)

    results = {}
    for name, csv_name, run in (
        ("peer", "peer.csv", lambda: section_peer(args.quick, repeats, log)),
        ("reference", "reference.csv", lambda: section_reference(results["peer"], args.quick, log)),
        ("precision", "precision.csv", lambda: section_precision(args.quick, log)),
        ("slider", "slider_crank.csv", lambda: section_slider(args.quick, log)),
    ):
        if name in sections:
            results[name] = run()
            write_csv(out / csv_name, results[name])
        else:  # keep the figures of an earlier run in the report
            results[name] = read_csv(out / csv_name) if args.keep else []
    peer, reference = results["peer"], results["reference"]
    precision, slider = results["precision"], results["slider"]
    info["load_after"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    if args.keep and (out / "machine.csv").exists():
        info["earlier_runs"] = _earlier(read_csv(out / "machine.csv"))
    write_csv(out / "machine.csv", [info])
    figures = plots(out, peer, slider, precision)
    report(out, info, peer, precision, slider, reference, figures, args.quick)
    log(f"report: {out / 'report.md'}")


if __name__ == "__main__":
    main()

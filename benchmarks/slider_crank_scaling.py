"""Saura et al.'s protocol on the scalable spatial slider-crank: global vs structural groups.

    python -m benchmarks.slider_crank_scaling [--k 1,9,18,36,72,144,288,400]
        [--steps 24000] [--repeats 3] [--columns KIN,PEN,MATR] [--check]

For every k (``solver.generators.slider_crank``; natural coordinates with shared points and
vectors) and both methods — GLOB: all equations in one group, sparse LU (Saura et al.'s global
method, MA28 there); TOP: the structural groups of ``solver.analysis.structural_groups`` —
it times, in CPU seconds of this process (``time.process_time``, BLAS on one thread),
the time loop only (model generation, assembly and structural analysis excluded):

* KIN: ``--steps`` kinematic analyses (position, velocity, acceleration) at Δθ = 30°,
  crank at 24 rad/s (Saura et al.: 2000 turns = 24 000 analyses);
* PEN / MATR: ``--steps`` dynamic steps of dt = 0.005 s with the penalty formulation
  (α = 1e7, ξ = 1, ω = 10) or the R matrix, trapezoidal rule, corrector tolerance 1e-5,
  Newton tolerance 1e-10 (Saura et al.: 24 000 steps over 120 s).

The structural groups run their compiled kernels (``solver.analysis.group_kernels``,
compiled or loaded by an untimed run first).
Each figure is the mean of ``--repeats`` runs. With fewer than 24 000 steps the table
also gives the time scaled to 24 000 (the cost per step is stationary), next to Saura et al.'s
Table 1 (Fortran, MA28, Core i5-2400). ``--check`` first runs Saura et al.'s check runs (k = 10,
18, 36: slider displacement, velocity and acceleration in kinematics; crank angle and
corrector iterations in dynamics) and prints the largest GLOB-TOP differences.
TOP uses Saura et al.'s groups (the crank, then the k dyads); ``--blocks`` uses the irreducible
blocks of the block-triangular form instead (three levels: slider points across their
lines with the crank, slider points along them, rod orientations).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from solver.analysis.dynamic import initial_state  # noqa: E402
from solver.analysis.group_dynamics import GroupPenalty, GroupRMatrix  # noqa: E402
from solver.analysis.group_evaluation import RowSet  # noqa: E402
from solver.analysis.group_kinematics import GroupKinematics  # noqa: E402
from solver.analysis.kinematics import assemble  # noqa: E402
from solver.analysis.structural_groups import (  # noqa: E402
    choose_inputs,
    decompose,
    global_decomposition,
)
from solver.generators.slider_crank import SPEED, slider_crank_model  # noqa: E402
from solver.mechanics.system import MultibodySystem  # noqa: E402
from solver.model import model_from_data  # noqa: E402

KS = (1, 9, 18, 36, 72, 144, 288, 400)
PROTOCOL_STEPS = 24000
DT = 0.005
KIN_STEP = math.radians(30.0) / SPEED
TOL_NR, TOL_CORRECTOR, PENALTY = 1e-10, 1e-5, 1e7

#: Saura et al. Table 1, CPU seconds: k → (GLOB_KIN, TOP_KIN, GLOB pen, TOP pen, GLOB matR, TOP
#: matR)
TABLE1 = {
    1: (0.354, 0.315, 0.390, 0.285, 0.696, 0.473),
    9: (2.583, 1.844, 3.198, 1.783, 3.785, 2.574),
    18: (5.171, 3.564, 7.691, 4.654, 7.233, 4.898),
    36: (10.607, 7.004, 19.266, 10.582, 14.607, 9.922),
    72: (22.508, 13.883, 64.324, 24.445, 31.065, 18.923),
    144: (50.431, 27.642, 202.359, 56.815, 64.355, 37.482),
    288: (122.757, 55.161, 672.505, 130.391, 134.275, 75.574),
    400: (194.205, 76.564, 1256.135, 193.53, 191.720, 104.848),
}
COLUMNS = ("KIN", "PEN", "MATR")


class Case:
    """The slider-crank with k dyads: kinematic and dynamic systems and their groups."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.kin_system = MultibodySystem(
            model_from_data(slider_crank_model(k, driven=True)), "natural"
        )
        self.q_kin = assemble(self.kin_system, self.kin_system.q0).q
        self.dyn_system = MultibodySystem(model_from_data(slider_crank_model(k)), "natural")
        self.state0 = initial_state(self.dyn_system, TOL_NR, 25)
        self.inputs = choose_inputs(self.dyn_system, self.state0.q)

    #: TOP groups: body groups (Saura et al.'s crank and dyads) or the irreducible blocks
    merge = True

    def decomposition(self, kind: str, method: str):
        if kind == "KIN":
            s, q, inputs = self.kin_system, self.q_kin, []
        else:
            s, q, inputs = self.dyn_system, self.state0.q, self.inputs
        if method == "TOP":
            return decompose(s, q, inputs, merge=self.merge)
        return global_decomposition(s, inputs)

    def slider(self, system, x: np.ndarray, rates: bool) -> float:
        kind = system.kinds[0]
        info = kind.infos[system.slots["slider1"].index]
        a_g = info.frame.point_coefficients(np.zeros(3))
        return float((a_g @ kind.entity_values(info, x, rates))[0])


def run_kinematics(case: Case, method: str, steps: int, record: bool = False):
    s = case.kin_system
    kin = GroupKinematics(s, case.decomposition("KIN", method), TOL_NR, 25)
    q, qd, qdd = case.q_kin, np.zeros(s.n), np.zeros(s.n)
    out = []
    start = time.process_time()
    for k in range(steps):
        t = k * KIN_STEP
        guess = q + qd * KIN_STEP + 0.5 * qdd * KIN_STEP**2 if k else q
        q, _ = kin.position(guess, t)
        qd = kin.velocity()
        qdd = kin.acceleration(q, qd, t)
        if record:
            out.append(
                (case.slider(s, q, False), case.slider(s, qd, True), case.slider(s, qdd, True))
            )
    return time.process_time() - start, np.array(out)


def run_dynamics(case: Case, method: str, column: str, steps: int, record: bool = False):
    s = case.dyn_system
    dec = case.decomposition("DIN", method)
    if column == "PEN":
        stepper = GroupPenalty(s, dec, PENALTY, corrector_tolerance=TOL_CORRECTOR)
    else:
        stepper = GroupRMatrix(s, dec, TOL_NR, 25, corrector_tolerance=TOL_CORRECTOR)
    state = stepper.start(case.state0)
    crank = RowSet(s, [], case.inputs)
    out = []
    start = time.process_time()
    for _ in range(steps):
        state = stepper.step(state, DT)
        if record:
            theta = crank.evaluate(state.q, None, 0.0, np.zeros(1)).phi[0]
            out.append((theta, state.carry.corrector_iterations))
    elapsed = time.process_time() - start
    if record:
        out = np.array(out)
        out[:, 0] = np.unwrap(out[:, 0])
    return elapsed, np.array(out)


def check_runs(steps: int) -> None:
    print(f"check runs ({steps} steps): largest GLOB - TOP differences")
    for k in (10, 18, 36):
        case = Case(k)
        _, a = run_kinematics(case, "GLOB", steps, True)
        _, b = run_kinematics(case, "TOP", steps, True)
        d = np.abs(a - b).max(axis=0)
        print(
            f"  k = {k:3d} KIN: slider x {d[0]:.2e} m, v {d[1]:.2e} m/s, a {d[2]:.2e} m/s²"
            f" (|a| up to {np.abs(a[:, 2]).max():.1f})"
        )
        for column in ("PEN", "MATR"):
            _, a = run_dynamics(case, "GLOB", column, steps, True)
            _, b = run_dynamics(case, "TOP", column, steps, True)
            print(
                f"  k = {k:3d} {column:4s}: crank angle {np.abs(a[:, 0] - b[:, 0]).max():.2e} rad"
                f" (θ = {b[-1, 0]:.4f} at t = {steps * DT:g} s), corrector iterations "
                f"GLOB {int(a[:, 1].sum())} TOP {int(b[:, 1].sum())}"
            )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", default=",".join(map(str, KS)))
    parser.add_argument("--steps", type=int, default=PROTOCOL_STEPS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--columns", default=",".join(COLUMNS))
    parser.add_argument("--check", action="store_true", help="Saura et al.'s check runs first")
    parser.add_argument("--check-steps", type=int, default=400)
    parser.add_argument(
        "--blocks", action="store_true", help="TOP on the irreducible blocks, not body groups"
    )
    args = parser.parse_args(argv)
    Case.merge = not args.blocks
    warm_up = Case(2)  # compile (or load) the kernels before any timing
    run_kinematics(warm_up, "TOP", 2)
    for column in ("PEN", "MATR"):
        run_dynamics(warm_up, "TOP", column, 2)
    if args.check:
        check_runs(args.check_steps)
    scale = PROTOCOL_STEPS / args.steps
    columns = args.columns.split(",")
    print(
        f"CPU seconds for {args.steps} steps (mean of {args.repeats})"
        + (f"; [×{scale:g}: scaled to {PROTOCOL_STEPS}]" if scale != 1 else "")
        + "; Saura et al. Table 1 in parentheses"
    )
    index = {"KIN": (0, 1), "PEN": (2, 3), "MATR": (4, 5)}
    header = f"{'k':>4} {'n':>6} {'m':>6}"
    for c in columns:
        header += f" {'GLOB_' + c:>24} {'TOP_' + c:>24}"
    print(header)
    for k in map(int, args.k.split(",")):
        case = Case(k)
        line = f"{k:>4} {case.dyn_system.n:>6} {case.dyn_system.m:>6}"
        for c in columns:
            for j, method in enumerate(("GLOB", "TOP")):
                times = []
                for _ in range(args.repeats):
                    if c == "KIN":
                        times.append(run_kinematics(case, method, args.steps)[0])
                    else:
                        times.append(run_dynamics(case, method, c, args.steps)[0])
                mean = float(np.mean(times))
                ref = TABLE1.get(k, (math.nan,) * 6)[index[c][j]]
                cell = f"{mean:.2f}" + (f" [{mean * scale:.1f}]" if scale != 1 else "")
                line += f" {cell + f' ({ref:g})':>24}"
        print(line, flush=True)


if __name__ == "__main__":
    main()

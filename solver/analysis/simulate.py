"""The time loop behind ``solver.simulate``: settings, output sampling, cancellation.

``simulate(model, ...)`` runs the analysis named in the model's solver settings (or the
keyword overrides) and returns a ``Result``; ``stream=True`` returns a ``Simulation``
instead, whose iteration yields output ``Frame``\\ s as they are computed (what the GUI
worker consumes) and whose ``result`` holds everything afterwards. A failure does not
raise: the result keeps the frames computed so far, ``status`` becomes ``"failed"`` and
``message`` says when, why and what to try.
"""

from __future__ import annotations

import importlib
import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, replace

import numpy as np

from solver.analysis.blas_threads import single_blas_thread
from solver.analysis.dynamic import dynamic_frames
from solver.analysis.errors import NonFiniteFunction, SimulationError
from solver.analysis.formulations import formulation_class
from solver.analysis.kinematic import kinematic_frames
from solver.analysis.kinematics import AssemblyError, assemble
from solver.analysis.mass_check import check_mass
from solver.analysis.mobility import mobility
from solver.analysis.step_control import StepControl
from solver.kernels.cache_loading import load_seconds
from solver.mechanics.system import MultibodySystem
from solver.model import description as d
from solver.model.errors import ModelError, UnsupportedFeature
from solver.model.validation import check_settings
from solver.results import Frame, Result

ANALYSES_AVAILABLE = ("dynamic", "kinematic", "static", "modes", "assembly")


def settings_with(
    model: d.Model,
    *,
    source: str = "simulate()",
    names: dict[str, str] | None = None,
    **overrides,
) -> d.SolverSettings:
    """The model's solver settings with the non-``None`` keyword overrides applied, checked
    by the model format's rules (``check_settings``: a ``ModelError`` names the field).

    An error in an override is located at ``source`` and names it as ``names`` says (the
    command line passes ``"command line"`` and ``{"dt": "--dt", ...}``); by default as
    the keyword argument of ``simulate()``. A ``dt`` given without ``output_dt`` raises
    the file's output interval to ``dt`` where it was smaller (every step an output)."""
    given = {k: v for k, v in overrides.items() if v is not None}
    values = {k: v for k, v in asdict(model.solver).items() if v is not None}
    params = given.pop("parameters", None)
    values.update(given)
    # the file's output interval was chosen for the file's dt: with a larger dt given
    # instead, every step is an output (an output_dt given too must fit the rules)
    out, dt = values.get("output_dt"), given.get("dt")
    numbers = isinstance(out, float | int) and isinstance(dt, float | int)
    if numbers and "output_dt" not in given and out < dt:
        values["output_dt"] = dt
    if params is not None:
        merged = {**model.solver.parameters, **params} if isinstance(params, dict) else params
        values["parameters"] = merged  # not a dict: refused by the rules, naming it
        given["parameters"] = params
    labels = {k: (names or {}).get(k, k) for k in given}
    settings = check_settings(values, labels, source)
    if settings.output_dt is None:
        settings.output_dt = settings.dt
    return settings


class _Mark:
    """The start of a stretch of a run's computing: the clock, and the time spent loading
    compiled kernels from the cache so far (``cache_loading.load_seconds``)."""

    def __init__(self) -> None:
        self.clock = time.perf_counter()
        self.loads = load_seconds()

    def close(self, busy: float, loading: float) -> tuple[float, float, None]:
        """``(busy, loading, None)`` with this stretch added: its computing without the
        loading of kernels, and that loading."""
        loaded = load_seconds() - self.loads
        return busy + max(0.0, time.perf_counter() - self.clock - loaded), loading + loaded, None


class Simulation:
    """One run of an analysis; iterate for frames, ``cancel()`` from any thread."""

    def __init__(self, model: d.Model, settings: d.SolverSettings) -> None:
        self.model = model
        check_settings(settings)  # settings built by hand follow the rules too
        if settings.output_dt is None:
            settings = replace(settings, output_dt=settings.dt)
        self.settings = settings
        self._check_available()
        self.system = MultibodySystem(model, settings.coordinates)
        if self.system.sparse:  # its matrices and solves are SciPy's: imported with it
            importlib.import_module("scipy.sparse.linalg")
        self.result = Result.for_system(self.system)
        self.requested = None
        if model.requests:
            from solver.analysis.outputs import RequestedOutputs

            self.requested = RequestedOutputs(model, self.system, settings.analysis)
            self.result.columns += self.requested.columns
            self.result.n_requested = len(self.requested.columns)
        self._cancel = threading.Event()
        self.wall_time = 0.0  # s: the run's computing (``summary["wall_time_s"]``)
        self.load_time = 0.0  # s: loading compiled kernels during it (``load_time_s``)
        self._first_q = None
        self.monitor = None
        #: called with every step's ``Frame`` that is not an output while iterating: a front-end
        #: may show states between outputs (the workbench's live view); must be cheap.
        self.on_step: Callable[[Frame], None] | None = None

    def _check_available(self) -> None:
        """Refuse now, not when iteration starts, what this version cannot run: an unknown
        analysis, a formulation whose implementation is missing, an orientation set the
        formulation does not integrate (``UnsupportedFeature``)."""
        s = self.settings
        if s.analysis not in ANALYSES_AVAILABLE:
            raise UnsupportedFeature(
                "solver",
                f'"{s.analysis}" is not available in this version '
                f"(available: {', '.join(ANALYSES_AVAILABLE)})",
                "analysis",
            )
        if s.analysis != "dynamic" or s.parameters.get("group_method") == "structural_groups":
            return
        formulation_class(s.formulation)
        if s.orientation != "euler_parameters" and s.formulation != "central_differences":
            raise UnsupportedFeature(
                "solver",
                f'"{s.orientation}" orientation parameters are available with the '
                f"central_differences formulation only in this version, not {s.formulation}",
                "orientation",
            )

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def _steps(self, every: int = 1, sample: int = 0) -> Iterator[tuple[Frame, int]]:
        """The analysis's ``(frame, step)``; a dynamic run's compiled steps may leave out
        the frames of steps other than every ``every``-th and ``sample``-th
        (``dynamic_frames``)."""
        s = self.settings
        if s.parameters.get("group_method") == "structural_groups" and s.analysis in (
            "dynamic",
            "kinematic",
        ):
            from solver.analysis.structural_groups import structural_group_frames

            return structural_group_frames(
                self.system, s, lambda message: setattr(self.result, "message", message)
            )
        if s.analysis == "dynamic":
            if s.orientation != "euler_parameters" and s.formulation != "central_differences":
                raise UnsupportedFeature(
                    "solver",
                    f'"{s.orientation}" orientation parameters are available with the '
                    f"central_differences formulation only in this version, not {s.formulation}",
                    "orientation",
                )
            check_mass(self.system, self.system.q0)
            return dynamic_frames(self.system, s, every=every, sample=sample)
        if s.analysis == "kinematic":
            return kinematic_frames(self.system, s.dt, s.t_end, s.tolerance, s.max_iterations)
        if s.analysis == "assembly":
            return self._assembly()
        if s.analysis == "static":
            from solver.analysis.statics import static_frames

            return static_frames(self.system, s)
        if s.analysis == "modes":
            from solver.analysis.modes import modes_frames

            return modes_frames(self.system, s, self.result)
        raise UnsupportedFeature(
            "solver",
            f'"{s.analysis}" is not available in this version (available: {", ".join(ANALYSES_AVAILABLE)})',
            "analysis",
        )

    def _assembly(self) -> Iterator[tuple[Frame, int]]:
        from solver.analysis.kinematics import consistent_velocities

        sysm = self.system
        try:
            res = assemble(
                sysm,
                sysm.q0,
                0.0,
                tol=self.settings.tolerance,
                max_iterations=self.settings.max_iterations,
            )
        except AssemblyError as exc:
            raise SimulationError(
                0.0, str(exc), "correct the initial positions or the joint data"
            ) from None
        qd = consistent_velocities(sysm, res.q, sysm.qd0, 0.0)
        c = sysm.constraints(res.q, qd, 0.0)
        yield (
            Frame(
                0.0,
                res.q,
                qd,
                sysm.kinetic_energy(res.q, qd),
                sysm.gravitational_energy(res.q),
                sysm.elastic_energy(res.q),
                0.0,
                float(abs(c.phi).max()) if len(c.phi) else 0.0,
                float(abs(c.phi_q @ qd + c.phi_t).max()) if len(c.phi) else 0.0,
                res.iterations,
            ),
            0,
        )

    def _requested(self, frame: Frame, fallback: bool = False) -> np.ndarray | None:
        """The requested quantities at ``frame`` (None when the model requests none);
        ``fallback``: NaN where they cannot be computed (the state a run failed after)."""
        if self.requested is None:
            return None
        try:
            return self.requested.values(frame.t, frame.q, frame.qd)
        except (np.linalg.LinAlgError, FloatingPointError, ValueError, NonFiniteFunction):
            if not fallback:
                raise
            return None

    def __iter__(self) -> Iterator[Frame]:
        s = self.settings
        every = max(1, int(round(s.output_dt / s.dt)))
        # wall time counts the computing only: the time the consumer keeps a frame (a paused
        # workbench, a slow writer) is left out, and so is the loading of compiled kernels
        # from the cache (the process's start-up, paid by its first run: ``load_time_s``)
        busy = loading = 0.0
        mark = _Mark()
        steps = iterations = 0
        last = None
        self.step_control = StepControl()  # the record of retried steps
        if s.analysis == "dynamic" and s.parameters.get("group_method") != "structural_groups":
            from solver.analysis.stability import StabilityMonitor

            self.monitor = StabilityMonitor(self.system, s)
        # dense systems: small matrices, one BLAS thread (SciPy's too once something loads
        # it: refreshed after each frame; the compiled augmented Lagrangian's only then)
        dynamic = s.formulation if s.analysis == "dynamic" else ""
        threads = single_blas_thread(self.system, dynamic)
        threads.__enter__()
        try:
            self.system.check_functions(0.0, 0.0)  # drivers and forces usable at t = 0
            # the frames this loop reads: the outputs' (every step's for a preview), the
            # stability monitor's samples of a conditionally stable scheme (an
            # unconditionally stable one is settled by the first frame)
            monitor = self.monitor
            sample = (
                monitor.stride
                if monitor is not None and monitor.active and not math.isinf(monitor.constant)
                else 0
            )
            for frame, k in self._steps(1 if self.on_step is not None else every, sample):
                threads.refresh()
                steps, iterations = k, iterations + frame.iterations
                if frame.substep is not None:
                    self.step_control.record(frame.t - s.dt, frame.substep)
                if self.monitor is not None:
                    self.monitor.observe(frame, k)
                if self.on_step is not None and k % every:
                    self.on_step(frame)
                if self._first_q is None:
                    self._first_q = frame.q
                last = frame
                if k % every == 0:
                    out = self.result.append(self.system, frame, self._requested(frame))
                    busy, loading, mark = mark.close(busy, loading)
                    yield out
                    mark = _Mark()
                    last = None
                if self._cancel.is_set():
                    self.result.status, self.result.message = (
                        "cancelled",
                        f"cancelled at t = {frame.t:.6g} s",
                    )
                    break
            if last is not None:  # always keep the final instant
                out = self.result.append(self.system, last, self._requested(last))
                busy, loading, mark = mark.close(busy, loading)
                yield out
                mark = _Mark()
        except (
            SimulationError,
            NonFiniteFunction,
            np.linalg.LinAlgError,
            FloatingPointError,
            ValueError,  # non-finite values met by a checking routine (SciPy's solvers)
        ) as exc:
            if isinstance(exc, ModelError):  # refused when the steps start: the caller's
                raise
            if not isinstance(exc, NonFiniteFunction):  # caused by a driver's or force's?
                exc = self._function_cause(exc, last)
            if isinstance(exc, ValueError):
                raise
            if isinstance(exc, NonFiniteFunction):  # a driver's or force's function
                exc = exc.simulation_error()
            elif not isinstance(exc, SimulationError):  # a matrix-level failure in a step
                stats = self.result.statistics
                t = last.t if last is not None else (float(stats.last[0]) if stats.frames else 0.0)
                exc = SimulationError(
                    t,
                    f"numerical failure after this time ({type(exc).__name__}: {exc})",
                    "reduce dt, try another formulation, or check the masses, inertias and joints",
                )
            self.result.status, self.result.message = "failed", exc.message
            if last is not None:  # keep the last state computed before the failure
                self.result.append(self.system, last, self._requested(last, fallback=True))
        finally:
            threads.__exit__(None, None, None)
            if mark is not None:  # not closed by the consumer while it held a frame
                busy, loading, mark = mark.close(busy, loading)
            self.wall_time = busy
            self.load_time = loading
            self._summarise(steps, iterations)

    def _function_cause(self, exc: Exception, last: Frame | None) -> Exception:
        """The ``NonFiniteFunction`` of a driver or force that is not finite over the
        failed step, else ``exc`` itself."""
        stats = self.result.statistics
        t = getattr(exc, "t", None)
        if t is None:
            t = last.t if last is not None else (float(stats.last[0]) if stats.frames else 0.0)
        try:
            self.system.check_functions(float(t), float(t) + self.settings.dt)
        except NonFiniteFunction as cause:
            return cause
        return exc

    def _summarise(self, steps: int, iterations: int) -> None:
        r = self.result
        s = self.settings
        stats = r.statistics
        summary = {
            "model": self.model.name,
            "analysis": s.analysis,
            "formulation": s.formulation if s.analysis == "dynamic" else None,
            "coordinates": s.coordinates,
            "dt": s.dt,
            "t_end": s.t_end,
            "output_dt": s.output_dt,
            "status": r.status,
            "message": r.message,
            "steps": steps,
            "frames": len(r),
            "wall_time_s": self.wall_time,
            "load_time_s": self.load_time,
            "newton_iterations": iterations,
            "max_constraint_position": stats.max_constraint_position if stats.frames else None,
            "max_constraint_velocity": stats.max_constraint_velocity if stats.frames else None,
            "max_energy_drift": stats.max_energy_drift if stats.frames else None,
        }
        if s.analysis == "dynamic":
            control = getattr(self, "step_control", StepControl()).summary(s.dt)
            summary["retried_steps"] = control["retried_steps"]
            summary["smallest_substep"] = control["smallest_substep"]
            if "warning" in control:
                summary["warnings"] = [control["warning"]]
            r.stability = self.monitor.report() if self.monitor is not None else None
            summary["dt_max_estimate"] = r.stability["dt_max_estimate"] if r.stability else None
            summary["orientation"] = s.orientation
        if r.n_requested and len(r):
            summary["requested"] = stats.peaks()
        if getattr(r, "modes", None) is not None:
            summary["modes"] = r.modes.table()
        try:
            q = self._first_q if self._first_q is not None else self.system.q0
            mob = mobility(self.system, q)
            summary["dof"], summary["redundant_constraints"] = mob.dof, mob.redundant
            summary["passive_freedoms"] = [f.describe() for f in mob.passive]
        except (NonFiniteFunction, np.linalg.LinAlgError, ValueError):
            # a driver unusable at t = 0 (the run's message says which), a broken state
            summary["dof"] = summary["redundant_constraints"] = None
        r.summary = summary


def simulate(
    model: d.Model,
    *,
    analysis: str | None = None,
    formulation: str | None = None,
    coordinates: str | None = None,
    dt: float | None = None,
    t_end: float | None = None,
    output_dt: float | None = None,
    tolerance: float | None = None,
    max_iterations: int | None = None,
    parameters: dict | None = None,
    orientation: str | None = None,
    stream: bool = False,
):
    """Run an analysis; ``Result`` (or a ``Simulation`` to iterate when ``stream``).

    The keyword arguments override the model's solver settings and follow the model
    format's rules (``ModelError`` names the argument, e.g. ``simulate(): dt must be
    positive (got 0)``).

    ``orientation`` overrides ``solver.orientation`` (the rotation parameters integrated by
    ``central_differences``: ``euler_parameters``, ``euler_zxz``, ``rodrigues``, ``gibbs``).
    """
    settings = settings_with(
        model,
        analysis=analysis,
        formulation=formulation,
        coordinates=coordinates,
        dt=dt,
        t_end=t_end,
        output_dt=output_dt,
        tolerance=tolerance,
        max_iterations=max_iterations,
        parameters=parameters,
        orientation=orientation,
    )
    sim = Simulation(model, settings)
    if stream:
        return sim
    for _ in sim:
        pass
    return sim.result

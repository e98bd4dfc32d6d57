"""The structural-group (topological) method of Saura et al. (§3.1–3.3): structural analysis.

A mechanism is split into an ordered set of small kinematically determined groups; each
is solved from the coordinates of the groups before it (its inputs ``h``) and from the
DOF inputs. ``decompose`` finds them from the structure of the constraint equations,
which the body/joint graph defines: every row of ``Φ`` belongs to a body (rigid-body
conditions) or a joint, every coordinate to the basic points and vectors of bodies.

* **DOF inputs.** In a kinematic analysis the drivers are the inputs: the model is
  square. In a dynamic analysis each of the g degrees of freedom gets an *input row*:
  the relative coordinate of a joint (``group_evaluation.input_candidates``: joints to
  ground first, in model order), equal to an independent coordinate ``z`` — Saura et al.'s crank
  angle. Candidates are taken while they raise the structural rank, until the
  equations are square.
* **Groups.** A perfect matching of rows to coordinates (Hopcroft–Karp) and the strongly
  connected components of the row dependency graph give the block-triangular form of
  ``Φ_q``: its irreducible diagonal blocks are the finest decomposition that exists.
  Blocks whose coordinates belong to the same body are then joined (cycles this creates
  are joined too), giving body groups like Saura et al.'s Assur groups — for the slider-crank the
  crank "(1,1)" and k dyads "(2,0)" — unless a group would exceed ``MERGE_MAX``
  coordinates (then the blocks stay). A group's level is one more than the highest
  level it depends on; the groups of one level are mutually independent and are solved
  together (``group_kinematics``).
* **Fallback.** No decomposition exists when the equations cannot be made square
  structurally (redundant constraints, e.g. Bricard's mechanism; a free body with no
  joint coordinate to take as input, e.g. a top on a ball joint), or when a group is
  singular at the initial configuration. ``NoDecomposition`` says why; the analysis then
  runs with the global method, with that message.

A group is reported with the bodies its equations constrain and its DOF inputs, in Saura et al.'s
notation "(bodies, DOF)".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching

from solver.analysis.group_evaluation import InputRow, RowSet, input_candidates

#: body groups larger than this (coordinates) are not formed; the blocks are kept
MERGE_MAX = 24


class NoDecomposition(Exception):
    """The structural-group decomposition does not exist (the message says why)."""


@dataclass
class StructuralGroup:
    index: int
    rows: np.ndarray  # system rows; m + i is input row i
    cols: np.ndarray  # its dependent coordinates
    level: int = 0
    depends: list[int] = field(default_factory=list)
    bodies: tuple[str, ...] = ()
    inputs: tuple[int, ...] = ()
    #: its irreducible blocks ``(rows, cols, internal level)``: a group is block-triangular
    #: itself, and its linear systems are solved block by block
    parts: list = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.parts:
            self.parts = [(self.rows, self.cols, 0)]

    @property
    def label(self) -> str:
        return f"({len(self.bodies)},{len(self.inputs)})"


@dataclass
class Decomposition:
    groups: list[StructuralGroup]
    inputs: list[InputRow]
    levels: list[list[int]]
    method: str = "structural_groups"

    def summary(self) -> str:
        sizes = [len(g.cols) for g in self.groups]
        return (
            f"{len(self.groups)} structural groups on {len(self.levels)} levels "
            f"(largest {max(sizes) if sizes else 0} coordinates); DOF inputs: "
            + (", ".join(r.label for r in self.inputs) or "the drivers")
        )


def column_owners(system) -> list[str]:
    """For each coordinate, the body it belongs to (first user of a shared entity)."""
    owners = [""] * system.n
    for name, slot in system.slots.items():
        if slot.owner is None:
            owners[slot.offset : slot.offset + slot.size] = [name] * slot.size
    for kind in system.kinds:
        layout = getattr(kind, "layout", None)
        if layout is None:
            continue
        for ent in layout.entities:
            if not ent.fixed:
                c = kind.offset + ent.col
                owners[c : c + 3] = [ent.bodies[0]] * 3
    return owners


def _structure(system, q: np.ndarray, inputs: list[InputRow], t: float):
    """Rows (system + inputs), columns and the structural non-zeros of the Jacobian."""
    rows = RowSet(system, np.arange(system.m), inputs)
    rng = np.random.default_rng(12345)
    scale = 1e-3 * max(1.0, float(np.abs(q).max()) if len(q) else 1.0)
    nz = np.zeros(len(rows.entry_rows), bool)
    z = rng.standard_normal(len(inputs))
    for _ in range(2):
        qq = q + scale * rng.standard_normal(len(q))
        nz |= rows.evaluate(qq, None, t, z).values != 0.0
    r, c = rows.entry_rows[nz], rows.entry_cols[nz]
    pat = sp.csr_matrix((np.ones(len(r)), (r, c)), shape=(rows.n_rows, system.n))
    pat.data[:] = 1.0
    return rows, pat


def _structural_rank(pat) -> int:
    if pat.shape[0] == 0:
        return 0
    match = maximum_bipartite_matching(sp.csr_matrix(pat), perm_type="column")
    return int(np.sum(match >= 0))


def require_natural(system) -> None:
    """``NoDecomposition`` unless every body has natural coordinates (or is a point mass)."""
    if len(system.rigid) or any(k.kind != "natural" for k in system.kinds):
        raise NoDecomposition(
            "the structural-group method needs natural coordinates for every body "
            '(coordinates "natural"; no flexible bodies)'
        )


def choose_inputs(system, q: np.ndarray, t: float = 0.0) -> list[InputRow]:
    """Input rows that make the equations structurally square (see the module docstring);
    ``NoDecomposition`` when there are none."""
    require_natural(system)
    need = system.n - system.m
    if need < 0:
        raise NoDecomposition(
            f"the model has {system.m - system.n} more constraint equations than "
            "coordinates (redundant constraints)"
        )
    if need == 0:
        return []
    _, base = _structure(system, q, [], t)
    rank = _structural_rank(base)
    if rank < system.m:
        raise NoDecomposition("the constraint equations are structurally redundant")
    chosen: list[InputRow] = []
    for cand in input_candidates(system.model):
        if len(chosen) == need:
            break
        try:
            _, pat = _structure(system, q, [*chosen, cand], t)
        except NotImplementedError:
            continue
        r = _structural_rank(pat)
        if r > rank:
            chosen.append(cand)
            rank = r
    if len(chosen) < need:
        raise NoDecomposition(
            f"no set of joint coordinates can serve as the {need} DOF input(s) (the model "
            "has degrees of freedom that are not the coordinate of a revolute, prismatic or "
            "cylindrical joint)"
        )
    return chosen


def decompose(
    system, q: np.ndarray, inputs: list[InputRow], t: float = 0.0, merge: bool = True
) -> Decomposition:
    """The ordered structural groups of ``system`` with DOF ``inputs`` at configuration
    ``q`` (assembled); ``NoDecomposition`` if there is none. ``merge=False`` keeps the
    irreducible blocks instead of the body groups."""
    require_natural(system)
    m, n = system.m, system.n
    if m + len(inputs) != n:
        raise NoDecomposition(
            f"{m} constraint equations and {len(inputs)} DOF inputs for {n} coordinates: "
            "the equations are not square"
        )
    try:
        rows, pat = _structure(system, q, inputs, t)
    except NotImplementedError as exc:
        raise NoDecomposition(
            f"{exc}: the structural-group method needs natural coordinates"
        ) from None
    match = maximum_bipartite_matching(pat, perm_type="column")  # column of each row
    if np.any(match < 0):
        raise NoDecomposition(
            "the constraint equations are structurally singular (redundant constraints)"
        )
    row_of_col = np.empty(n, np.int64)
    row_of_col[match] = np.arange(n)
    coo = pat.tocoo()
    dep = row_of_col[coo.col]
    graph = sp.csr_matrix((np.ones(len(dep)), (coo.row, dep)), shape=(n, n))
    n_blocks, label = connected_components(graph, directed=True, connection="strong")
    owners = column_owners(system)
    fine = label
    if merge:
        label = _merge_by_body(label, n_blocks, coo.row, dep, match, owners)
        n_blocks = int(label.max()) + 1 if n else 0
    parts = _parts(fine, label, n_blocks, coo.row, dep)
    # group dependencies and levels (longest path to a group without dependencies)
    a, b = label[coo.row], label[dep]
    edges = np.unique(np.stack([a[a != b], b[a != b]], axis=1), axis=0)
    deps: list[list[int]] = [[] for _ in range(n_blocks)]
    for x, y in edges:
        deps[x].append(int(y))
    level = _levels(deps)
    bodies_of_row = row_bodies(system, inputs)
    groups: list[StructuralGroup] = []
    members: list[list[int]] = [[] for _ in range(n_blocks)]
    for r in range(n):
        members[label[r]].append(r)
    order = sorted(range(n_blocks), key=lambda k: (level[k], min(match[members[k]])))
    new_index = {blk: i for i, blk in enumerate(order)}
    values = rows.evaluate(q, None, t, np.zeros(len(inputs))).values
    for blk in order:
        rr = np.array(members[blk], np.int64)
        cc = np.sort(match[rr])
        g = StructuralGroup(
            new_index[blk],
            rr,  # local row index of RowSet == system row, inputs after the m rows
            cc,
            level[blk],
            sorted(new_index[x] for x in deps[blk]),
            tuple(dict.fromkeys(b for r in rr for b in bodies_of_row[r])),
            tuple(int(r) - m for r in rr if r >= m),
            [(np.array(pr, np.int64), np.sort(match[pr]), lv) for pr, lv in parts[blk]],
        )
        groups.append(g)
    # every group must be regular at q (its Jacobian block)
    for g in groups:
        if len(g.cols) > 200:
            continue
        sel = np.isin(rows.entry_rows, g.rows) & np.isin(rows.entry_cols, g.cols)
        jac = np.zeros((len(g.rows), len(g.cols)))
        ri = np.searchsorted(np.sort(g.rows), rows.entry_rows[sel])
        ci = np.searchsorted(g.cols, rows.entry_cols[sel])
        np.add.at(jac, (ri, ci), values[sel])
        s = np.linalg.svd(jac, compute_uv=False)
        if s[-1] <= 1e-10 * max(1.0, s[0]):
            raise NoDecomposition(
                f"structural group {g.index} (bodies {', '.join(g.bodies)}) is singular at "
                "the initial configuration"
            )
    levels: list[list[int]] = []
    for g in groups:
        while len(levels) <= g.level:
            levels.append([])
        levels[g.level].append(g.index)
    return Decomposition(groups, list(inputs), levels)


def global_decomposition(system, inputs: list[InputRow]) -> Decomposition:
    """The global method as a decomposition: one group holding every equation and every
    coordinate (solved with a sparse LU)."""
    n = system.n
    if system.m + len(inputs) != n:
        raise NoDecomposition("the equations are not square")
    g = StructuralGroup(
        0,
        np.arange(n, dtype=np.int64),
        np.arange(n, dtype=np.int64),
        0,
        [],
        tuple(system.slots),
        tuple(range(len(inputs))),
    )
    return Decomposition([g], list(inputs), [[0]], method="global")


def row_bodies(system, inputs: list[InputRow]) -> list[tuple[str, ...]]:
    """The bodies each row (inputs after the system rows) constrains."""
    joints = {j.name: j for j in system.model.joints}
    drivers = {dr.name: joints[dr.joint] for dr in system.model.drivers}

    def of_joint(j) -> tuple[str, ...]:
        return tuple(b for b in (j.body1, j.body2) if b in system.slots)

    out = []
    for r in range(system.m):
        kind, _, name = system.joint_of_row(r).partition(":")
        if kind == "joint" and name in joints:
            out.append(of_joint(joints[name]))
        elif kind == "driver" and name in drivers:
            out.append(of_joint(drivers[name]))
        else:
            out.append((name,) if name in system.slots else ())
    return out + [of_joint(row.joint) for row in inputs]


def _merge_by_body(label, n_blocks, rows, deps_rows, match, owners):
    """Irreducible blocks joined into body groups: blocks whose coordinates belong to the
    same body form one group (Saura et al.'s Assur groups: a slider-crank dyad instead of its
    slider point and rod orientation), cycles of the merged graph joined too. Kept only
    while every group stays small (``MERGE_MAX`` coordinates); else the blocks."""
    n = len(label)
    uf = list(range(n_blocks))

    def find(i):
        while uf[i] != i:
            uf[i] = uf[uf[i]]
            i = uf[i]
        return i

    first: dict[str, int] = {}
    for r in range(n):
        blk, owner = int(label[r]), owners[int(match[r])]
        if owner in first:
            a, b = find(blk), find(first[owner])
            if a != b:
                uf[max(a, b)] = min(a, b)
        else:
            first[owner] = blk
    roots = np.array([find(i) for i in range(n_blocks)])
    _, merged = np.unique(roots, return_inverse=True)
    new = merged[label]
    k = int(new.max()) + 1 if n else 0
    a, b = new[rows], new[deps_rows]
    keep = a != b
    graph = sp.csr_matrix((np.ones(int(keep.sum())), (a[keep], b[keep])), shape=(k, k))
    _, scc = connected_components(graph, directed=True, connection="strong")
    final = scc[new]
    sizes = np.bincount(final)
    if sizes.max(initial=0) > max(MERGE_MAX, np.bincount(label).max(initial=0)):
        return label
    return final


def _parts(fine, label, n_groups, rows, deps_rows):
    """For each group, its fine blocks as ``(rows, internal level)`` in solving order."""
    n_fine = int(fine.max()) + 1 if len(fine) else 0
    group_of_fine = np.zeros(n_fine, np.int64)
    group_of_fine[fine] = label
    a, b = fine[rows], fine[deps_rows]
    same = (a != b) & (group_of_fine[a] == group_of_fine[b])
    edges = np.unique(np.stack([a[same], b[same]], axis=1), axis=0)
    deps: list[list[int]] = [[] for _ in range(n_fine)]
    for x, y in edges:
        deps[x].append(int(y))
    level = _levels(deps)
    members: list[list[int]] = [[] for _ in range(n_fine)]
    for r, f in enumerate(fine):
        members[f].append(r)
    out: list[list] = [[] for _ in range(n_groups)]
    for f in sorted(range(n_fine), key=lambda f: (level[f], members[f][0])):
        out[group_of_fine[f]].append((members[f], level[f]))
    return out


def _levels(deps: list[list[int]]) -> list[int]:
    """Longest-path level of each node of a DAG given as dependency lists."""
    n = len(deps)
    level = [-1] * n
    for start in range(n):
        if level[start] >= 0:
            continue
        stack = [(start, 0)]
        while stack:
            node, k = stack.pop()
            if k < len(deps[node]):
                stack.append((node, k + 1))
                child = deps[node][k]
                if level[child] < 0:
                    stack.append((child, 0))
            else:
                level[node] = 1 + max((level[c] for c in deps[node]), default=-1)
    return level


# ---- analyses (``solver.parameters.group_method = "structural_groups"``) ------------------
def structural_group_frames(system, settings, note=None):
    """Frames of a kinematic or dynamic analysis by the structural-group method, or by the
    global method (with ``note(message)``) where it does not apply."""
    from solver.analysis.dynamic import dynamic_frames
    from solver.analysis.kinematic import kinematic_frames

    def fallback(reason: str):
        if note is not None:
            note(f"structural groups not used: {reason}; solved with the global method")
        if settings.analysis == "kinematic":
            return kinematic_frames(
                system, settings.dt, settings.t_end, settings.tolerance, settings.max_iterations
            )
        return dynamic_frames(system, settings)

    try:
        plan = _plan(system, settings)
    except NoDecomposition as exc:
        yield from fallback(str(exc))
        return
    if note is not None:
        note(plan.summary)
    yield from plan.frames()


def _plan(system, settings):
    from solver.analysis.group_analysis import DynamicPlan, KinematicPlan

    if settings.analysis == "kinematic":
        return KinematicPlan(system, settings)
    if settings.analysis != "dynamic":
        raise NoDecomposition(f"the {settings.analysis} analysis has no structural-group form")
    params = settings.parameters
    method = params.get("method", "newmark")
    if settings.formulation == "null_space" and method != "r_matrix":
        raise NoDecomposition('the null_space formulation needs "method": "r_matrix"')
    if settings.formulation not in ("penalty", "null_space"):
        raise NoDecomposition(
            f"the {settings.formulation} formulation has no structural-group form (penalty "
            "and null_space with method r_matrix have)"
        )
    return DynamicPlan(system, settings)

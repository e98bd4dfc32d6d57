"""Body-axes forces and torques on natural-coordinate bodies (a ``ForceSet`` group).

The group holds each load's body data for the kernels (:meth:`NaturalLoads.arrays`, the
``nl_*`` fields of ``solver.kernels.system.SystemArrays``), which evaluate it: the
equations are in :mod:`solver.kernels.natural_loads`. Global forces at a point need
nothing special (a ``force`` on the point's marker).
"""

from __future__ import annotations

import numpy as np

from solver.kernels.natural_loads import BODY_TORQUE, FORCE, TORQUE


class NaturalLoads:
    """Body-axes point forces, global and body-axes torques on natural-coordinate bodies."""

    def __init__(self) -> None:
        self._items: list[dict] = []

    def __len__(self) -> int:
        return len(self._items)

    def _body(self, slot) -> dict:
        """The columns of the body's four entities (−1 for a fixed one), the fixed entities'
        values and the axes coefficients X (3, 4)."""
        kind, info = slot.owner, slot.owner.infos[slot.index]
        cols = []
        fixed = np.zeros((4, 3))
        for i, e in enumerate(info.entities):
            c = kind._col(e)
            cols += [c, c + 1, c + 2] if c >= 0 else [-1, -1, -1]
            if c < 0:
                fixed[i] = kind.layout.entities[e].value
        return {"cols": cols, "fixed": fixed, "axes": info.frame.axes_coefficients(), "info": info}

    def add_force(self, slot, point, vector) -> None:
        """A force (N, components of time functions) given in body axes at the global point
        ``point`` (m, at t = 0)."""
        item = self._body(slot)
        info = item["info"]
        item.update(type=FORCE, vector=tuple(vector))
        item["c"] = info.frame.point_coefficients(info.local_point(point))
        self._items.append(item)

    def add_torque(self, slot, vector, body_frame: bool) -> None:
        """A torque (N·m) given globally or, with ``body_frame``, in body axes."""
        item = self._body(slot)
        item.update(type=BODY_TORQUE if body_frame else TORQUE, vector=tuple(vector))
        item["c"] = np.zeros(4)
        self._items.append(item)

    def arrays(self, function_index) -> dict:
        """The ``nl_*`` kernel arrays; ``function_index`` maps a time function (or None) to
        its index in the system's table."""
        it = self._items
        return {
            "nl_type": np.array([x["type"] for x in it], np.int64),
            "nl_cols": np.array([x["cols"] for x in it], np.int64).reshape(-1, 12),
            "nl_fixed": np.array([x["fixed"] for x in it], float).reshape(-1, 4, 3),
            "nl_axes": np.array([x["axes"] for x in it], float).reshape(-1, 3, 4),
            "nl_c": np.array([x["c"] for x in it], float).reshape(-1, 4),
            "nl_func": np.array(
                [[function_index(v) for v in x["vector"]] for x in it], np.int64
            ).reshape(-1, 3),
        }

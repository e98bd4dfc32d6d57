"""Body-axes forces and torques on natural-coordinate bodies (a ``ForceSet`` group).

A body's axes are linear in its entities, ``a_k = Σ_i X_ki e_i`` (``Frame.axes_coefficients``),
and a body point is ``P = Σ_i c_i e_i``. With ``E`` the four entities:

* force ``f̄`` in body axes at P: ``f = Σ_k f̄_k a_k = Σ_j w_j e_j`` (``w = Xᵀ f̄``), so
  ``Q_i = c_i f`` and ``∂Q_i/∂e_j = c_i w_j I``; power ``f·Ṗ``;
* torque ``n`` (global) or ``n̄`` (body axes, ``n = Σ_j w_j e_j``, ``w = Xᵀ n̄``): the virtual
  rotation of an orthonormal frame is ``δθ = ½ Σ_k a_k × δa_k``, so ``n·δθ = Σ_i δe_i·Q_i``
  with ``Q_i = ½ n × v_i``, ``v_i = Σ_j (XᵀX)_ij e_j``; ``∂Q_i/∂e_j = ½ ((XᵀX)_ij ñ − w_j ṽ_i)``
  (the second term for body axes only); power ``n·ω`` with ``ω = ½ Σ_k a_k × ȧ_k``.

Global forces at a point need nothing special (a ``force`` on the point's marker).
"""

from __future__ import annotations

import numpy as np

from solver.mechanics.rotations import skew


def _vectors(functions) -> list:
    return [tuple(v) for v in functions]


class NaturalLoads:
    """Body-axes point forces and torques on natural-coordinate bodies."""

    def __init__(self) -> None:
        self._items: list[dict] = []

    def __len__(self) -> int:
        return len(self._items)

    def _body(self, slot) -> dict:
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
        """A force given in body axes at the global point ``point`` (t = 0)."""
        item = self._body(slot)
        info = item["info"]
        item.update(kind="force", vector=tuple(vector), body=True)
        item["c"] = info.frame.point_coefficients(info.local_point(point))
        self._items.append(item)

    def add_torque(self, slot, vector, body_frame: bool) -> None:
        item = self._body(slot)
        item.update(kind="torque", vector=tuple(vector), body=bool(body_frame))
        item["c"] = np.zeros(4)
        self._items.append(item)

    def freeze(self, markers=None) -> None:
        from solver.mechanics.forces.time_values import TimeValues

        it = self._items
        self.cols = np.array([x["cols"] for x in it], np.int64).reshape(-1, 12)
        self.fixed = np.array([x["fixed"] for x in it]).reshape(-1, 4, 3)
        self.axes = np.array([x["axes"] for x in it]).reshape(-1, 3, 4)
        self.c = np.array([x["c"] for x in it]).reshape(-1, 4)
        self.is_force = np.array([x["kind"] == "force" for x in it], bool)
        self.body = np.array([x["body"] for x in it], bool)
        self.parts = [TimeValues([x["vector"][k] for x in it]) for k in range(3)]
        self.gram = np.einsum("mki,mkj->mij", self.axes, self.axes)  # XᵀX

    # ---- evaluation -------------------------------------------------------------------------
    def _entities(self, x: np.ndarray, rates: bool) -> np.ndarray:
        ext = np.append(x, 0.0)
        e = ext[self.cols].reshape(-1, 4, 3)
        return e if rates else e + self.fixed

    def _loads(self, q: np.ndarray, t: float):
        """Entities, the load vectors (global), ``w`` and ``Q`` per item ``(m, 4, 3)``."""
        e = self._entities(q, False)
        vec = np.stack([p(t) for p in self.parts], axis=1)
        w = np.einsum("mki,mk->mi", self.axes, vec)  # body-axes components → entity weights
        glob = np.where(self.body[:, None], np.einsum("mi,mij->mj", w, e), vec)
        qf = np.zeros_like(e)
        f = self.is_force
        qf[f] = self.c[f][:, :, None] * glob[f][:, None, :]
        tq = ~f
        if tq.any():
            v = np.einsum("mij,mjk->mik", self.gram[tq], e[tq])
            qf[tq] = 0.5 * np.cross(glob[tq][:, None, :], v)
        return e, glob, w, qf

    def add_terms(self, acc, q: np.ndarray, t: float) -> None:
        e, glob, w, qf = self._loads(q, t)
        acc.add_vector(self.cols, qf.reshape(-1, 12))
        if not acc.jacobians:
            return
        m = len(self)
        eye = np.eye(3)
        blocks = np.zeros((m, 4, 3, 4, 3))
        f = self.is_force & self.body
        if f.any():
            cw = np.einsum("mi,mj->mij", self.c[f], w[f])
            blocks[f] = cw[:, :, None, :, None] * eye[None, None, :, None, :]
        tq = ~self.is_force
        if tq.any():
            nt = skew(glob[tq])  # (mt, 3, 3)
            blocks[tq] += 0.5 * np.einsum("mij,mab->miajb", self.gram[tq], nt)
            bt = tq & self.body
            if bt.any():
                v = np.einsum("mij,mjk->mik", self.gram[bt], e[bt])
                vt = skew(v.reshape(-1, 3)).reshape(-1, 4, 3, 3)
                blocks[bt] -= 0.5 * np.einsum("mj,miab->miajb", w[bt], vt)
        acc.add_kq(self.cols, self.cols, blocks.reshape(m, 12, 12))

    def power(self, q: np.ndarray, qd: np.ndarray, t: float) -> float:
        e, glob, _, _ = self._loads(q, t)
        ed = self._entities(qd, True)
        f = self.is_force
        p = float(np.sum(glob[f] * np.einsum("mi,mij->mj", self.c[f], ed[f])))
        tq = ~f
        if tq.any():
            a = np.einsum("mki,mij->mkj", self.axes[tq], e[tq])
            ad = np.einsum("mki,mij->mkj", self.axes[tq], ed[tq])
            omega = 0.5 * np.cross(a, ad).sum(axis=1)
            p += float(np.sum(glob[tq] * omega))
        return p

"""The path of a closed belt wrapped around circles in the plane z = 0.

The belt runs counter-clockwise (about +z) around the circles on their outside, in the
order given, and leaves each circle along the outer common tangent to the next: circle i
(centre c_i, radius R_i) to circle j along the line that touches both where their outward
normal is ``u(φ) = (cos φ, sin φ)`` with ``φ = atan2(c_j − c_i) − acos((R_i − R_j)/|c_j − c_i|)``,
a span of length ``√(|c_j − c_i|² − (R_i − R_j)²)``; it wraps circle j counter-clockwise from
that angle to the angle of the next span. The arcs of a convex loop listed in order turn
through 2π in all; anything else (circles listed clockwise, a circle inside the loop)
is refused. One circle: the belt is the circle, starting at its lowest point.

The path starts where the belt leaves the first circle (at its lowest point for a
single circle) and runs counter-clockwise: the first span, the arc on the second circle, …,
the arc on the first circle. ``nodes(n)`` places n nodes at equal arc lengths from the
start, with the unit tangent and the inward normal ``Ĩ t`` (the left side) at each.
"""

from __future__ import annotations

import math

import numpy as np

#: how closely the arcs must add up to a full turn (rad)
TURN_TOLERANCE = 1e-9


class LoopPathError(ValueError):
    """The circles do not make a convex loop (the message says why)."""


class LoopPath:
    """Spans and arcs of the belt around ``circles`` (objects with ``center`` and
    ``radius``, or ``(center, radius)`` pairs)."""

    def __init__(self, circles) -> None:
        cs = []
        for c in circles:
            center, radius = (c.center, c.radius) if hasattr(c, "center") else c
            cs.append((float(center[0]), float(center[1]), float(radius)))
        if not cs:
            raise LoopPathError("must list at least one circle")
        self.circles = cs
        n = len(cs)
        # pieces: ("line", start, direction, length) and ("arc", centre, radius, φ0, Δφ)
        self.pieces: list[tuple] = []
        if n == 1:
            x, y, r = cs[0]
            self.pieces.append(("arc", (x, y), r, -0.5 * math.pi, 2.0 * math.pi))
        else:
            angles = []
            for i in range(n):
                xi, yi, ri = cs[i]
                xj, yj, rj = cs[(i + 1) % n]
                dist = math.hypot(xj - xi, yj - yi)
                if dist <= abs(ri - rj) + 1e-12 * max(dist, 1.0):
                    raise LoopPathError(
                        f"{i + 1} and {(i + 1) % n + 1}: one lies inside the other, so no "
                        "straight span joins them"
                    )
                angles.append(math.atan2(yj - yi, xj - xi) - math.acos((ri - rj) / dist))
            turn = 0.0
            for i in range(n):
                xi, yi, ri = cs[i]
                xj, yj, rj = cs[(i + 1) % n]
                phi = angles[i]
                u = (math.cos(phi), math.sin(phi))
                start = (xi + ri * u[0], yi + ri * u[1])
                end = (xj + rj * u[0], yj + rj * u[1])
                length = math.hypot(end[0] - start[0], end[1] - start[1])
                direction = ((end[0] - start[0]) / length, (end[1] - start[1]) / length)
                self.pieces.append(("line", start, direction, length))
                arc = (angles[(i + 1) % n] - phi) % (2.0 * math.pi)
                turn += arc
                self.pieces.append(("arc", (xj, yj), rj, phi, arc))
            if abs(turn - 2.0 * math.pi) > TURN_TOLERANCE:
                raise LoopPathError(
                    "are not listed counter-clockwise round a convex loop (each with the "
                    "belt on its outside)"
                )
        self.lengths = np.array(
            [p[3] if p[0] == "line" else p[2] * p[4] for p in self.pieces], float
        )
        self.length = float(self.lengths.sum())
        self.starts = np.concatenate([[0.0], np.cumsum(self.lengths)[:-1]])

    def at(self, s) -> tuple[np.ndarray, np.ndarray]:
        """Positions ``(k, 2)`` and unit tangents ``(k, 2)`` at arc lengths ``s`` (m, taken
        modulo the path length)."""
        s = np.atleast_1d(np.asarray(s, float)) % self.length
        pos = np.zeros((len(s), 2))
        tan = np.zeros((len(s), 2))
        which = np.clip(np.searchsorted(self.starts, s, side="right") - 1, 0, len(self.pieces) - 1)
        for k, (sk, p) in enumerate(zip(s, which, strict=True)):
            piece = self.pieces[p]
            local = sk - self.starts[p]
            if piece[0] == "line":
                _, start, direction, _ = piece
                pos[k] = (start[0] + local * direction[0], start[1] + local * direction[1])
                tan[k] = direction
            else:
                _, centre, radius, phi0, _ = piece
                phi = phi0 + local / radius
                pos[k] = (centre[0] + radius * math.cos(phi), centre[1] + radius * math.sin(phi))
                tan[k] = (-math.sin(phi), math.cos(phi))
        return pos, tan

    def nodes(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(positions (n, 3), tangents (n, 3), inward normals (n, 3))`` of n nodes at equal
        arc lengths from the start (z = 0)."""
        pos, tan = self.at(np.arange(n) * self.length / n)
        normal = np.column_stack([-tan[:, 1], tan[:, 0]])
        pad = np.zeros((n, 1))
        return np.hstack([pos, pad]), np.hstack([tan, pad]), np.hstack([normal, pad])

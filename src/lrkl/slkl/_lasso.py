"""SLKL's ``active_set`` solver: F's minimum as the lasso ``‖y − C_S w‖² + 2√ν‖w‖₁`` at
``μ_m = |w_m|/√ν`` (:mod:`lrkl.slkl._solver`), solved on working sets of coordinates by linear
solves with ``B_WW``; the coordinate loop then starts from its μ.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from typing import Any

from lrkl._backend import host_namespace
from lrkl._linalg import NotPositiveDefiniteError, cho_factor, cho_solve, solve
from lrkl.slkl._coordinate import SLKLState
from lrkl.slkl._problems import DirectProblem, GramProblem

__all__: list[str] = []


# --------------------------------------------------------------------------- the active-set solver

#: Ridge of the working-set systems, relative to max(diag B): the candidate columns of a smooth
#: kernel are nearly dependent (cond(B_AA) reaches 1e8 at the optimum on the benchmark panel)
#: and a batch of new columns can make B_WW singular. Iterative refinement against the unridged
#: B_WW removes the ridge's bias wherever B_WW determines the solution.
_RIDGE = 1e-10

#: At most this many steps of iterative refinement per working-set solve. Each step divides the
#: error along an eigenvalue λ of B_WW by (λ + ρ)/ρ: two steps left 3e-3 of ν in the optimality
#: conditions where λ is near ρ, and the coordinate polish then stopped at its tolerance instead
#: of the solution (a fit moved by 2e-4 of its spread when X was scaled by 1e-3).
_MAX_REFINE = 50

#: Inverse updates between recomputations of H from a Cholesky factor: at least this many, and
#: at least k (an O(k³) recomputation then costs about what the O(k²) updates since the last did).
_REFACTOR_EVERY = 50


def _bordered(A: Any, E: Any, D: Any) -> Any:
    """The symmetric block matrix ``[[A, E], [Eᵀ, D]]``."""
    hxp = host_namespace()
    return hxp.concat([hxp.concat([A, E], axis=1), hxp.concat([E.T, D], axis=1)])


class _WorkingSet:
    """The working set W of :func:`_solve_lasso`: its rows ``B_{W,S}`` and the inverse
    ``H = (B_WW + ρI)⁻¹``, kept up to date by bordering (additions) and Schur complements
    (removals) in O(k²) per coordinate, and recomputed from a Cholesky factor every
    ``max(_REFACTOR_EVERY, k)`` updates so that rounding cannot drift.

    The rows live in a store that only grows (doubling) and is compacted when it is full: a
    removal copies no row.
    """

    def __init__(self, M: int, ridge: float) -> None:
        hxp = host_namespace()
        self.members: list[int] = []  # candidate numbers, in the order of H
        self.slots: list[int] = []  # their rows in the store
        self.store = hxp.zeros((16, M), dtype=hxp.float64)
        self.used = 0
        self.B_WW = hxp.zeros((0, 0), dtype=hxp.float64)
        self.H = hxp.zeros((0, 0), dtype=hxp.float64)
        self.ridge = ridge
        self.updates = 0

    @property
    def rows(self) -> Any:
        """``B_{W,S}`` (a copy), in the order of the members."""
        return self.store[self.slots, :]

    def correlations(self, w: Any) -> Any:
        """``B_{S,W} w_W`` for a host vector ``w`` over all M candidates."""
        hxp = host_namespace()
        v = hxp.zeros(self.used, dtype=hxp.float64)
        v[self.slots] = w[self.members]
        return v @ self.store[: self.used, :]

    def add(self, new: list[int], rows: Any) -> None:
        """Append the coordinates ``new`` with their rows ``B_{new,S}``."""
        hxp = host_namespace()
        q = len(new)
        if self.used + q > self.store.shape[0]:
            live = self.store[self.slots, :]
            capacity = max(2 * (len(self.slots) + q), 16)
            self.store = hxp.zeros((capacity, self.store.shape[1]), dtype=hxp.float64)
            self.store[: len(self.slots), :] = live
            self.slots, self.used = list(range(len(self.slots))), len(self.slots)
        E = rows[:, self.members].T  # B_{W,new}
        HE = self.H @ E
        schur = rows[:, new] + self.ridge * hxp.eye(q) - E.T @ HE
        self.B_WW = _bordered(self.B_WW, E, rows[:, new])
        self.store[self.used : self.used + q, :] = rows
        self.slots += list(range(self.used, self.used + q))
        self.used += q
        self.members = self.members + new
        self.updates += q
        if self._refactor_due():
            self.refactor()
            return
        try:
            S_inv = solve(schur, hxp.eye(q), xp=hxp, assume_a="pos")
        except NotPositiveDefiniteError:  # rounding in H: start again from B_WW
            self.refactor()
            return
        corner = -HE @ S_inv
        self.H = _bordered(self.H - corner @ HE.T, corner, S_inv)

    def drop(self, keep: Any) -> None:
        """Keep the members where the boolean mask ``keep`` holds (the order of the members may
        change). One removal, the usual case, swaps the member with the last and updates H in
        place; several take one Schur complement."""
        hxp = host_namespace()
        dropped = hxp.nonzero(~keep)[0]
        self.updates += len(dropped)
        if len(dropped) == 1:
            j, last = int(dropped[0]), len(self.members) - 1
            for order in (self.members, self.slots):
                order[j] = order[last]
                del order[last]
            for A in (self.H, self.B_WW):
                A[[j, last], :] = A[[last, j], :]
                A[:, [j, last]] = A[:, [last, j]]
            h = self.H[:last, last].copy()
            h_last = float(self.H[last, last])
            self.H, self.B_WW = self.H[:last, :last], self.B_WW[:last, :last]
            if self._refactor_due():
                self.refactor()
            else:
                self.H -= (h[:, None] * h[None, :]) / h_last
            return
        kept = hxp.nonzero(keep)[0]
        self.members = [self.members[i] for i in kept]
        self.slots = [self.slots[i] for i in kept]
        self.B_WW = self.B_WW[kept[:, None], kept[None, :]]
        if self._refactor_due():
            self.refactor()
            return
        H_KD = self.H[kept[:, None], dropped[None, :]]
        H_DD = self.H[dropped[:, None], dropped[None, :]]
        H_KK = self.H[kept[:, None], kept[None, :]]
        self.H = H_KK - H_KD @ solve(H_DD, H_KD.T, xp=hxp, assume_a="pos")

    def _refactor_due(self) -> bool:
        return self.updates >= max(_REFACTOR_EVERY, len(self.members))

    def refactor(self) -> None:
        """``H`` from a Cholesky factor of ``B_WW + ρI``."""
        hxp = host_namespace()
        k = len(self.members)
        self.updates = 0
        factor = cho_factor(self.B_WW + self.ridge * hxp.eye(k), xp=hxp)
        self.H = cho_solve(factor, hxp.eye(k), xp=hxp)

    def solve(self, target: Any) -> Any:
        """``B_WW⁻¹ target`` by ``H``, refined against the unridged ``B_WW`` while the
        corrections shrink (by a tenth at least) and still move ``x`` (by more than 1e-14 of
        it); at most :data:`_MAX_REFINE` steps."""
        x, previous = self.H @ target, math.inf
        for _ in range(_MAX_REFINE):
            step = self.H @ (target - self.B_WW @ x)
            x = x + step
            square = float(step @ step)
            if square <= 1e-28 * float(x @ x) or not square < 0.81 * previous:
                break
            previous = square
        return x


def _fixed_signs(ws: _WorkingSet, w: Any, sign: Any, target: Any, max_solves: int) -> int:
    """Minimise the lasso on the working set with the signs fixed, updating ``w`` and ``sign``
    in place; return the number of solves (at most ``max_solves``).

    Each solve gives the minimiser ``B_WW⁻¹ target_W`` (``target = b − √ν s``); when it would
    change signs, w steps towards it up to the first zero crossing and the coordinates that
    reach zero leave W.
    """
    hxp = host_namespace()
    for solves in range(1, max_solves + 1):
        idx = hxp.asarray(ws.members, dtype=hxp.int64)
        w_new = ws.solve(target[idx])
        crossing = w_new * sign[idx] <= 0.0
        if not hxp.any(crossing):
            w[idx] = w_new
            return solves
        old = w[idx]
        gap = hxp.where(crossing, old - w_new, 1.0)  # 0 only where both are 0
        steps = hxp.where(crossing & (gap != 0.0), old / gap, 0.0)
        steps[~crossing] = math.inf
        t = float(hxp.min(steps))
        w[idx] = old + t * (w_new - old)
        keep = steps > t
        w[idx[~keep]] = 0.0
        sign[idx[~keep]] = 0.0
        ws.drop(keep)
        if not ws.members:
            return solves
    return max_solves


def _solve_lasso(
    problem: GramProblem | DirectProblem,
    nu: float,
    tol: float,
    max_solves: int,
    callback: Callable[[SLKLState], Any] | None,
    start: Any,
    host_work: Callable[[], contextlib.AbstractContextManager],
) -> tuple[Any, dict[int, Any], int, bool]:
    """Minimise F through its equivalent lasso by an active-set method. Returns μ, the rows
    ``B_{m,S}`` of its support, the number of solves and whether the callback stopped it.

    For fixed μ, ``yᵀ(I + C D Cᵀ)⁻¹y = min_w ‖y − Cw‖² + Σ_m w_m²/μ_m`` (D = diag μ), and
    minimising ``w_m²/μ_m + νμ_m`` over μ_m gives ``2√ν|w_m|`` at ``μ_m = |w_m|/√ν``: F's
    minimum is that of the lasso ``‖y − C_S w‖² + 2√ν‖w‖₁``, and its optimality conditions
    ``|c_mᵀr| = √ν`` (w_m ≠ 0), ``|c_mᵀr| ≤ √ν`` (w_m = 0), with ``r = y − C_S w = K⁻¹y``, are
    F's ``a_m² = ν`` and ``a_m² ≤ ν``.

    The method (Osborne, Presnell & Turlach 2000, with batches): on a working set W with fixed
    signs s the lasso is the quadratic ``‖y − C_W w‖² + 2√ν sᵀw``, minimised by one solve with
    ``B_WW``; if the minimiser changes a sign, step to the first zero crossing (the objective
    decreases along the segment) and drop that coordinate; once the signs hold, add the
    inactive coordinates that violate ``a_m² ≤ ν(1 + tol)`` — as many as W has, at least one,
    the largest violations first, each with the sign of its ``a_m``. A coordinate needs its
    row ``B_{m,S}`` (:meth:`GramProblem.cross_rows`) when it enters W. ``start`` (host, shape
    (M,)) is a sign-consistent w to start from, or None; the host work runs inside
    ``host_work()`` (a BLAS thread limit), the products over the rows outside it.
    """
    hxp = host_namespace()
    M, b = problem.M, problem.b
    lam = math.sqrt(nu)
    w = hxp.zeros(M, dtype=hxp.float64) if start is None else hxp.asarray(start, copy=True)
    sign = hxp.sign(w)
    ws = _WorkingSet(M, _RIDGE * float(hxp.max(problem.diag_B)))
    solves, stopped = 0, False

    def entering(a: Any) -> list[int]:
        """The inactive coordinates to add, largest violation first, with their signs set."""
        excess = (a * a - nu) / nu
        excess[ws.members] = -math.inf
        order = hxp.argsort(-excess)[: max(1, len(ws.members))]
        chosen = [int(m) for m in order if excess[m] > tol]
        sign[chosen] = hxp.sign(a[chosen])
        return chosen

    new = [int(m) for m in hxp.nonzero(w)[0]] or entering(b.copy())
    try:
        while new and solves < max_solves:
            rows = problem.cross_rows(new)
            with host_work():
                ws.add(new, rows)
                solves += _fixed_signs(ws, w, sign, b - lam * sign, max_solves - solves)
                a = b - ws.correlations(w)
            if callback is not None:
                w_W = w[ws.members]
                objective = problem.yy - float((2.0 * b[ws.members] - ws.B_WW @ w_W) @ w_W)
                objective += 2.0 * lam * float(hxp.sum(hxp.abs(w_W)))
                if callback(SLKLState(solves, objective, len(ws.members), hxp.abs(w) / lam)):
                    stopped = True
                    break
            new = entering(a)
    except NotPositiveDefiniteError:  # a singular working set: the coordinate polish goes on
        pass
    support = dict(zip(ws.members, ws.rows, strict=True))
    return hxp.abs(w) / lam, support, solves, stopped

"""The state and moves of SLKL's coordinate solver (Algorithm 2; :mod:`lrkl.slkl._solver`):
μ, the active set A and ``G = (D⁻¹ + B_AA)⁻¹`` updated by the paper's four cases (24)–(27), the
step rules and the coordinate selection.
"""

from __future__ import annotations

import math
import random
from typing import Any, NamedTuple

from lrkl._backend import host_namespace
from lrkl._linalg import NotPositiveDefiniteError, eigh, solve
from lrkl.slkl._problems import DirectProblem, GramProblem

__all__ = [
    "SELECTIONS",
    "STEPS",
    "SLKLState",
]


SELECTIONS = ("random", "cyclic", "greedy")
STEPS = ("newton", "exact", "paper")


class SLKLState(NamedTuple):
    """What a callback sees at each objective check (every ``check_every`` iterations).

    ``weights`` is a host (NumPy) copy of μ; returning ``True`` from the callback stops the fit.
    """

    iteration: int
    objective: float
    n_active: int
    weights: Any  # shape: (M,), host float64


class _CoordinateState:
    """μ, the active set A (slots 0..m0−1) and G = (D⁻¹ + B_AA)⁻¹ in preallocated host storage.

    A removal moves the last slot into the freed one, so the active entries stay contiguous;
    storage grows by doubling when full (a logarithmic number of times, never per iteration).
    """

    def __init__(
        self, problem: GramProblem | DirectProblem, *, greedy: bool, capacity: int
    ) -> None:
        hxp = host_namespace()
        self.problem = problem
        self.M = problem.M
        self.mu = hxp.zeros(self.M, dtype=hxp.float64)
        self.slot = hxp.full(self.M, -1, dtype=hxp.int64)
        self.m0 = 0
        self.greedy = greedy
        self.capacity = 0
        self.G = hxp.zeros((0, 0), dtype=hxp.float64)
        self.act = hxp.zeros(0, dtype=hxp.int64)
        self.z = hxp.zeros(0, dtype=hxp.float64)  # b_A
        self.P = hxp.zeros((0, self.M), dtype=hxp.float64) if greedy else None  # B_{A,S}
        self.updates = 0  # G updates since the last refresh
        self._grow(max(1, min(self.M, capacity)))

    def _grow(self, capacity: int) -> None:
        hxp = host_namespace()
        k = self.capacity
        G = hxp.zeros((capacity, capacity), dtype=hxp.float64)
        G[:k, :k] = self.G
        act = hxp.zeros(capacity, dtype=hxp.int64)
        act[:k] = self.act
        z = hxp.zeros(capacity, dtype=hxp.float64)
        z[:k] = self.z
        if self.P is not None:
            P = hxp.zeros((capacity, self.M), dtype=hxp.float64)
            P[:k, :] = self.P
            self.P = P
        self.G, self.act, self.z, self.capacity = G, act, z, capacity
        self.problem.reserve(capacity)

    def _add(self, m: int, mu_new: float, row: Any = None) -> int:
        if self.m0 == self.capacity:
            self._grow(min(self.M, 2 * self.capacity))
        j = self.m0
        self.act[j] = m
        self.slot[m] = j
        self.z[j] = self.problem.b[m]
        self.mu[m] = mu_new
        self.problem.store(j, m)
        if self.P is not None:
            self.P[j, :] = self.problem.cross_row(m, j) if row is None else row
        self.m0 += 1
        return j

    def set_weight(self, m: int, mu_new: float, w: Any, u: Any, q: float) -> int:
        """Set ``μ_m = mu_new`` and update G by (24)–(27); return the case number.

        ``w = B_{A,m}``, ``u = G w`` and ``q = B_mm − wᵀu`` are those of the current state (the
        iteration has them already).
        """
        mu_old = float(self.mu[m])
        if mu_old == 0.0 and mu_new == 0.0:  # case 1, (24)
            return 1
        self.updates += 1
        if mu_old == 0.0 and self.m0 == self.capacity:
            self._grow(min(self.M, 2 * self.capacity))
        k = self.m0
        G = self.G[:k, :k]
        if mu_old == 0.0:  # case 4, (27): bordered inverse with s = 1/(1/μ + q)
            s = 1.0 / (1.0 / mu_new + q)
            G += s * (u[:, None] * u[None, :])
            self.G[k, :k] = -s * u
            self.G[:k, k] = -s * u
            self.G[k, k] = s
            self._add(m, mu_new)
            return 4
        j = int(self.slot[m])
        g = G[:, j].copy()
        if mu_new == 0.0:  # case 3, (26): the limit Δ → ∞ of case 2, then drop slot j
            G -= (g[:, None] * g[None, :]) / g[j]
            last = k - 1
            if j != last:
                G[j, :] = G[last, :]
                G[:, j] = G[:, last]
                G[j, j] = G[last, last]
                moved = int(self.act[last])
                self.act[j] = moved
                self.slot[moved] = j
                self.z[j] = self.z[last]
                if self.P is not None:
                    self.P[j, :] = self.P[last, :]
                self.problem.move(last, j)
            self.G[last, :k] = 0.0
            self.G[:k, last] = 0.0
            self.slot[m] = -1
            self.mu[m] = 0.0
            self.m0 = last
            return 3
        delta = 1.0 / mu_new - 1.0 / mu_old  # case 2, (25)
        G -= (delta / (1.0 + delta * g[j])) * (g[:, None] * g[None, :])
        self.mu[m] = mu_new
        return 2

    def refresh(self) -> None:
        """Recompute G = (D⁻¹ + B_AA)⁻¹ from scratch so rounding drift cannot accumulate."""
        hxp = host_namespace()
        k = self.m0
        self.updates = 0
        if k == 0:
            return
        act = self.act[:k]
        B_AA = self.P[:k, act] if self.P is not None else self.problem.active_gram(self.act, k)
        A = B_AA + _diag_matrix(1.0 / self.mu[act])
        A = (A + A.T) / 2.0
        try:
            self.G[:k, :k] = solve(A, hxp.eye(k, dtype=hxp.float64), xp=hxp, assume_a="pos")
        except NotPositiveDefiniteError:
            self.G[:k, :k] = _floored_inverse(A)

    def warm_start(self, mu0: Any, rows: dict[int, Any] | None = None) -> None:
        """Activate the positive entries of ``mu0`` and build G from scratch. Greedy selection
        keeps the rows ``B_{A,S}``: those in ``rows`` (m → row) are used, the others computed
        in one batch."""
        positive = [m for m in range(self.M) if mu0[m] > 0.0]
        known = dict(rows or {})
        missing = [m for m in positive if m not in known]
        if self.P is not None and missing:
            known.update(zip(missing, self.problem.cross_rows(missing), strict=True))
        for m in positive:
            self._add(m, float(mu0[m]), known.get(m))
        self.refresh()

    def derivatives(self) -> Any:
        """``a = C_Sᵀ K⁻¹ y = b − B_{S,A} G b_A`` for every candidate (host, shape (M,)).

        O(M·m0) from the kept rows ``B_{A,S}`` (greedy) or B (Gram form); one O(nM) pass over
        the active and candidate columns in the direct form.
        """
        k = self.m0
        if k == 0:
            return self.problem.b.copy()
        g = self.G[:k, :k] @ self.z[:k]
        if self.P is not None:
            return self.problem.b - g @ self.P[:k, :]
        return self.problem.b - self.problem.correlations(self.act, k, g)

    def violations(self, nu: float) -> Any:
        """How far each coordinate is from the optimality conditions of F, in units of ν.

        F is convex in μ ≥ 0 and ``∂F/∂μ_m = ν − a_m²``: optimal when ``a_m² = ν`` wherever
        μ_m > 0 and ``a_m² ≤ ν`` wherever μ_m = 0. The violation is ``|a_m² − ν|/ν`` on the
        active coordinates and ``max(0, a_m² − ν)/ν`` on the others.
        """
        hxp = host_namespace()
        a = self.derivatives()
        grad = nu - a * a
        score = hxp.where(self.mu > 0.0, hxp.abs(grad), hxp.clip(-grad, min=0.0))
        return score / nu

    def objective(self, nu: float) -> float:
        """``F(μ) = yᵀy − b_Aᵀ G b_A + ν Σμ`` in O(m0²)."""
        hxp = host_namespace()
        k = self.m0
        z = self.z[:k]
        return float(self.problem.yy - z @ (self.G[:k, :k] @ z) + nu * hxp.sum(self.mu))

    def signed_coef(self) -> Any:
        """The lasso coefficients ``w = μ ⊙ a`` of the current μ (host, shape (M,)): on the
        active set ``μ_A a_A = G b_A`` (see :meth:`dual`), zero elsewhere."""
        hxp = host_namespace()
        k = self.m0
        w = hxp.zeros(self.M, dtype=hxp.float64)
        w[self.act[:k]] = self.G[:k, :k] @ self.z[:k]
        return w

    def dual(self) -> Any:
        """Per active slot, ``μ_m a_m / √k(x_m, x_m) = (G b_A)_m / √k(x_m, x_m)``.

        Because ``B_AA G = I − D⁻¹G``, the derivative ``a_A = b_A − B_AA G b_A`` equals
        ``(G b_A)/μ_A``, so the dual coefficient of (16)–(17) needs no product with B.
        """
        hxp = host_namespace()
        k = self.m0
        return (self.G[:k, :k] @ self.z[:k]) / hxp.sqrt(self.problem.k_diag[self.act[:k]])


def _floored_inverse(A: Any) -> Any:
    """``A⁻¹`` of a symmetric ``A`` that is positive definite in exact arithmetic but singular
    as rounded, its eigenvalues floored at ``k·eps·max λ`` (the rounding of ``A``).

    ``A = B_AA + D⁻¹`` is singular in float64 when the weights μ are so large (ν far below
    ν_max: a path down to ``eps=1e-300``) that ``D⁻¹`` is below the rounding of a singular
    ``B_AA``; the floor is the smallest change of ``A`` that float64 can represent.
    """
    hxp = host_namespace()
    w, U = eigh(A, xp=hxp)
    floor = A.shape[0] * float(hxp.finfo(hxp.float64).eps) * max(float(hxp.max(w)), 0.0)
    w = hxp.where(w > floor, w, floor) if floor > 0 else hxp.ones_like(w)
    return (U / w) @ U.T


def _diag_matrix(d: Any) -> Any:
    hxp = host_namespace()
    out = hxp.zeros((d.shape[0], d.shape[0]), dtype=hxp.float64)
    out[hxp.arange(d.shape[0]), hxp.arange(d.shape[0])] = d
    return out


# --------------------------------------------------------------------------- steps and selection


def _step(step: str, mu: float, a: float, q: float, nu: float) -> float:
    """The new μ_m from the derivatives ``a = yᵀK⁻¹c_m`` and ``q = c_mᵀK⁻¹c_m``."""
    a2 = a * a
    if step == "exact":
        if q <= 0.0:
            return 0.0
        return max(0.0, mu + (math.sqrt(a2 / nu) - 1.0) / q)
    h = (2.0 if step == "newton" else 1.0) * a2 * q
    if h <= 0.0:
        return 0.0
    return max(0.0, mu + (a2 - nu) / h)


class _Selector:
    """Coordinate choice: ``random`` (uniform, the paper's), ``cyclic`` (fresh permutation each
    pass) or ``greedy`` (Gauss–Southwell: the largest projected-gradient magnitude)."""

    def __init__(self, selection: str, M: int, seed: int) -> None:
        self.selection = selection
        self.M = M
        self.rng = random.Random(seed)
        self.order: list[int] = []

    def next(self, state: _CoordinateState, nu: float) -> tuple[int, float]:
        """The next coordinate, and its optimality violation (greedy only; ``inf`` otherwise):
        greedy picks the largest violation, which is then the violation of the whole μ."""
        if self.selection == "random":
            return self.rng.randrange(self.M), math.inf
        if self.selection == "cyclic":
            if not self.order:
                self.order = list(range(self.M))
                self.rng.shuffle(self.order)
            return self.order.pop(), math.inf
        score = state.violations(nu)
        m = int(host_namespace().argmax(score))
        return m, float(score[m])

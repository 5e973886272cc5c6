"""SLKL: stochastic low-rank kernel learning (Machart et al., ICML 2011), as pure functions.

The problem (eq. 14 with λ = 1, Proposition 3) is

    min_{μ ≥ 0}  F(μ) = yᵀ (I + Σ_m μ_m c_m c_mᵀ)⁻¹ y + ν Σ_m μ_m,

over the M rank-1 Nyström kernels c_m c_mᵀ of the candidate set S, where
``c_m = k(X, x_m) / √k(x_m, x_m)``. Two solvers (:func:`solve_slkl`'s ``solver``):

- ``active_set``: F's minimum is that of the lasso ``‖y − C_S w‖² + 2√ν‖w‖₁`` at
  ``μ_m = |w_m|/√ν`` (:func:`_active_set`), solved on working sets of coordinates by linear
  solves with ``B_WW``, then handed to the coordinate loop below as a warm start;
- ``coordinate``, the paper's: each iteration picks one coordinate m, reads

    a_m = yᵀ K⁻¹ c_m = b_m − b_Aᵀ G B_{A,m},      q_m = c_mᵀ K⁻¹ c_m = B_mm − B_{m,A} G B_{A,m},

with ``K = I + C_A D C_Aᵀ``, ``G = (D⁻¹ + C_AᵀC_A)⁻¹`` over the active set A, ``B = C_SᵀC_S`` and
``b = C_Sᵀ y``, moves μ_m and updates G by the four cases (24)–(27) of the paper.

Everything an iteration needs is ``b_m``, ``B_mm`` and the m0 products ``B_{A,m}``: the two forms
differ only in where those come from, so they give the same iterates for the same seed.

- ``direct`` (the paper's): ``B_{A,m} = C_Aᵀ c_m`` is one O(n·m0) GEMV over the active columns,
  which are kept (m0 of them) on the data's device; the candidate columns are precomputed
  (memory O(nM)) or evaluated from the kernel when needed (memory O(n·m0)).
- ``gram``: B and b are accumulated in one blocked pass over the rows (O(nM²) as a GEMM, memory
  O(M²)); after it an iteration costs O(m0²) and never touches the n rows again.

Where each computation runs: the coordinate state (μ, G, the active set) is small and sequential
(a branch per iteration on whether μ_m is or becomes zero), so it lives on the host in float64,
whatever the data's namespace and device. The only per-iteration traffic is, in the direct form,
the m0 products ``C_Aᵀ c_m`` computed on the device and copied to the host with
:func:`lrkl._backend.to_numpy` (one synchronisation per iteration, which the branch needs anyway);
the gram form copies B and b to the host once, after the pass over the rows.

Step rules (``step``):

- ``newton``: Proposition 2/eq. (19), ``μ ← (μ − F'/F'')₊`` with ``F' = ν − a²`` and
  ``F'' = 2 a² q``;
- ``exact``: F along one coordinate is exactly ``φ(t) = −a² t/(1 + t q) + ν t``, minimised at
  ``t* = (|a|/√ν − 1)/q``, so ``μ ← (μ + t*)₊``;
- ``paper``: Algorithm 2 as printed, with ``F'' = a² q`` (the factor 2 of Proposition 2 dropped).
  Its doubled step can increase F; it is kept only for comparison.
"""

from __future__ import annotations

import contextlib
import functools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, NamedTuple

from threadpoolctl import ThreadpoolController

from lrkl._backend import device_of, from_host, host_namespace, to_numpy
from lrkl._checks import check_number, check_option
from lrkl._dask import check_rows, is_dask_array, row_sums, take_rows
from lrkl._linalg import NotPositiveDefiniteError, cho_factor, cho_solve, eigh, solve
from lrkl.kernels import (
    COLUMNS,
    DEFAULT_MAX_ENTRIES,
    DEFAULT_MEMORY_BUDGET,
    Kernel,
    precompute_columns,
    row_slices,
)

__all__ = [
    "MODES",
    "SELECTIONS",
    "SOLVERS",
    "STEPS",
    "STOPS",
    "SLKLResult",
    "SLKLState",
    "choose_mode",
    "nu_max",
    "slkl_problem",
    "slkl_problems",
    "solve_slkl",
]

Array = Any

MODES = ("auto", "direct", "gram")
SOLVERS = ("active_set", "coordinate")
SELECTIONS = ("random", "cyclic", "greedy")
STEPS = ("newton", "exact", "paper")
STOPS = ("kkt", "objective")


class SLKLState(NamedTuple):
    """What a callback sees at each objective check (every ``check_every`` iterations).

    ``weights`` is a host (NumPy) copy of μ; returning ``True`` from the callback stops the fit.
    """

    iteration: int
    objective: float
    n_active: int
    weights: Any  # shape: (M,), host float64


class SLKLResult(NamedTuple):
    """The outcome of :func:`solve_slkl`.

    ``weights`` (μ, one per candidate) and ``dual_coef`` (one per support entry, so that
    ``f(x) = Σ_j dual_coef[j] k(x_{support[j]}, x)``) are in the data's namespace and dtype;
    ``support`` holds the positions in the candidate set with μ > 0, in increasing order.
    """

    weights: Array  # shape: (M,)
    support: tuple[int, ...]
    dual_coef: Array  # shape: (m0,)
    objective: float
    objective_history: tuple[float, ...]
    n_active_history: tuple[int, ...]
    iteration_history: tuple[int, ...]
    n_iter: int
    converged: bool
    mode: str
    intercept: float  # b, 0 unless the problem was built with fit_intercept
    kkt_violation: float  # max_m of the optimality violation at the returned μ, in units of ν


# ------------------------------------------------------------------ problems (column oracles)


def choose_mode(
    n: int, M: int, *, itemsize: int = 8, memory_budget: int = DEFAULT_MEMORY_BUDGET
) -> str:
    """The form ``mode="auto"`` runs: ``gram`` whenever its M×M matrix fits the budget.

    The Gram pass costs one O(nM²) GEMM; afterwards each coordinate iteration is O(m0²)
    instead of the direct form's O(n·m0), and the paper's runs need tens of M iterations, so
    the pass is repaid long before convergence (see the benchmarks). The active-set solver
    needs the rows of B of the coordinates that ever enter its working set; on the benchmark
    panel they are 60–85 % of the M candidates, so one GEMM for all of B is cheaper than the
    O(nM)-per-row products that computing them on demand costs. Only when M² entries exceed
    ``memory_budget`` bytes does ``direct`` run.
    """
    return "gram" if M * M * itemsize <= memory_budget else "direct"


def _column_block(
    kernel: Kernel, X: Array, centres: Array, scale: Array, *, xp: ModuleType
) -> Array:
    """``k(X, centres) / √k(centres, centres)``: normalised candidate columns, n × m."""
    return kernel._evaluate(X, centres, xp=xp) * scale[None, :]


@dataclass
class _Problem:
    """What both forms share: sizes, ``yᵀy``, ``b = C_Sᵀy``, ``diag(B)`` and the kernel diagonal.

    With an intercept, the columns and ``y`` are centred (``C ← C − 1 c̄ᵀ``, ``y ← y − ȳ``):
    everything here is of the centred quantities, and the direct form subtracts ``n c̄_a c̄_m``
    from the products of its raw device columns.
    """

    n: int
    M: int
    yy: float
    b: Any  # shape: (M,), host
    diag_B: Any  # shape: (M,), host
    k_diag: Any  # shape: (M,), host, k(x_m, x_m)
    mean: Any  # shape: (M,), host, column means c̄ (zeros without an intercept)
    y_mean: float  # ȳ (0 without an intercept)
    xp: ModuleType
    device: Any
    dtype: Any

    mode = "abstract"

    def reserve(self, capacity: int) -> None:
        """Make room for ``capacity`` active columns (no-op unless columns live on the device)."""

    def store(self, slot: int, m: int) -> None:
        """Candidate ``m`` becomes active in ``slot``."""

    def move(self, src: int, dst: int) -> None:
        """The active column in ``src`` moves to ``dst`` (after a removal)."""


@dataclass
class GramProblem(_Problem):
    """The Gram form: ``B = C_SᵀC_S`` (M×M) and ``b = C_Sᵀ y`` on the host."""

    B: Any = None  # shape: (M, M), host float64

    mode = "gram"

    def products(self, m: int, slot: int, act: Any, k: int) -> Any:
        """``B_{A,m}`` for the ``k`` active candidates ``act[:k]``."""
        return self.B[act[:k], m]

    def cross_row(self, m: int, slot: int) -> Any:
        """``B_{m,S}``: products of column m with every candidate column."""
        return self.B[m, :]

    def cross_rows(self, ms: Sequence[int]) -> Any:
        """``B_{ms,S}`` (host, len(ms) × M)."""
        return self.B[list(ms), :]

    def correlations(self, act: Any, k: int, g: Any) -> Any:
        """``B_{S,A} g`` for a host vector ``g`` over the ``k`` active candidates: O(M·m0)."""
        return self.B[:, act[:k]] @ g

    def active_gram(self, act: Any, k: int) -> Any:
        """``B_{A,A}``."""
        idx = act[:k]
        return self.B[idx[:, None], idx[None, :]]


@dataclass
class DirectProblem(_Problem):
    """The direct form: candidate columns on the data's device, active ones copied into storage."""

    X: Array = None  # shape: (n, d)
    centres: Array = None  # shape: (M, d)
    scale: Array = None  # shape: (M,), 1/√k(x_m, x_m)
    kernel: Kernel = None
    columns: Array = None  # shape: (M, n), rows c_m, or None (evaluated on the fly)
    active: Array = None  # shape: (capacity, n), rows c_m of the active set

    mode = "direct"

    def column(self, m: int, slot: int) -> Array:
        """``c_m`` on the device (``slot`` ≥ 0 when active): a stored row or a kernel evaluation."""
        if slot >= 0:
            return self.active[slot, :]
        if self.columns is not None:
            return self.columns[m, :]
        xp = self.xp
        block = _column_block(
            self.kernel, self.X, self.centres[m : m + 1, :], self.scale[m : m + 1], xp=xp
        )
        return block[:, 0]

    def products(self, m: int, slot: int, act: Any, k: int) -> Any:
        """``C_Aᵀ c_m``: the O(n·m0) GEMV of an iteration, copied to the host."""
        if k == 0:
            return host_namespace().zeros(0, dtype=host_namespace().float64)
        raw = _host(self.active[:k, :] @ self.column(m, slot))
        return raw - self.n * self.mean[act[:k]] * self.mean[m]

    def cross_row(self, m: int, slot: int) -> Any:
        """``c_mᵀ C_S`` (O(nM)): stored columns, or kernel blocks under the memory budget."""
        return self.cross_rows([m])[0]

    def cross_rows(self, ms: Sequence[int]) -> Any:
        """``B_{ms,S} = C_msᵀ C_S`` (host, len(ms) × M), centred: one GEMM over the stored
        columns, or over kernel blocks computed under the memory budget."""
        xp, hxp = self.xp, host_namespace()
        idx = from_host(hxp.asarray(list(ms), dtype=hxp.int64), xp=xp, device=self.device)
        if self.columns is not None:
            raw = xp.take(self.columns, idx, axis=0) @ xp.matrix_transpose(self.columns)
        else:
            raw = xp.zeros((len(ms), self.M), dtype=self.dtype, device=self.device)
            for rows in row_slices(self.n, self.M):
                block = _column_block(self.kernel, self.X[rows, :], self.centres, self.scale, xp=xp)
                raw += xp.matrix_transpose(xp.take(block, idx, axis=1)) @ block
        return _host(raw) - self.n * (self.mean[list(ms)][:, None] * self.mean[None, :])

    def correlations(self, act: Any, k: int, g: Any) -> Any:
        """``B_{S,A} g`` for a host vector ``g``: ``C_Sᵀ v`` with ``v = C_A g`` (centred), O(nM).

        With an intercept ``v`` sums to zero, so centring the candidate columns changes nothing.
        """
        xp = self.xp
        g_device = from_host(g, xp=xp, device=self.device, dtype=self.dtype)
        v = g_device @ self.active[:k, :] - float(self.mean[act[:k]] @ g)
        return self._cross(v)

    def _cross(self, v: Array) -> Any:
        """``C_Sᵀ v`` of the raw candidate columns, on the host: stored columns, or kernel blocks
        under the memory budget."""
        xp = self.xp
        if self.columns is not None:
            return _host(self.columns @ v)
        out = xp.zeros(self.M, dtype=self.dtype, device=self.device)
        for rows in row_slices(self.n, self.M):
            out += v[rows] @ _column_block(
                self.kernel, self.X[rows, :], self.centres, self.scale, xp=xp
            )
        return _host(out)

    def active_gram(self, act: Any, k: int) -> Any:
        """``C_AᵀC_A`` (O(n·m0²)), for the periodic refresh of G."""
        xp = self.xp
        C = self.active[:k, :]
        mean = self.mean[act[:k]]
        return _host(C @ xp.matrix_transpose(C)) - self.n * (mean[:, None] * mean[None, :])

    def reserve(self, capacity: int) -> None:
        xp = self.xp
        if self.active is not None and self.active.shape[0] >= capacity:
            return
        grown = xp.zeros((capacity, self.n), dtype=self.dtype, device=self.device)
        if self.active is not None:
            grown[: self.active.shape[0], :] = self.active
        self.active = grown

    def store(self, slot: int, m: int) -> None:
        self.active[slot, :] = self.column(m, -1)

    def move(self, src: int, dst: int) -> None:
        self.active[dst, :] = self.active[src, :]


def _host(a: Array) -> Any:
    """Copy a device array to the host as float64: the one deliberate transfer of the loop."""
    hxp = host_namespace()
    if isinstance(a, int | float):  # NumPy reductions return host scalars already
        return hxp.asarray(a, dtype=hxp.float64)
    return hxp.astype(hxp.asarray(to_numpy(a)), hxp.float64)


def slkl_problem(
    X: Array, y: Array, candidates: Sequence[int], /, **options: Any
) -> GramProblem | DirectProblem:
    """Prepare an SLKL problem: one blocked pass over the rows of ``X``.

    ``y`` has shape (n,); ``options`` are those of :func:`slkl_problems`, which this is for a
    single target.

    Returns
    -------
    GramProblem or DirectProblem
        Reusable for several ν (see :func:`solve_slkl`): the pass over the rows is not repeated.
    """
    xp = options["xp"]
    (problem,) = slkl_problems(X, xp.reshape(y, (-1, 1)), candidates, **options)
    return problem


def slkl_problems(
    X: Array,
    Y: Array,
    candidates: Sequence[int],
    /,
    *,
    kernel: Kernel,
    mode: str = "auto",
    columns: str = "auto",
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    max_entries: int = DEFAULT_MAX_ENTRIES,
    fit_intercept: bool = False,
    xp: ModuleType,
) -> list[GramProblem | DirectProblem]:
    """One SLKL problem per column of ``Y`` from a single blocked pass over the rows of ``X``.

    The candidate columns, B (or the stored columns) and the column means are shared; only
    ``b = C_Sᵀy``, ``yᵀy`` and ȳ differ from target to target, and they are accumulated for all
    the targets in the same pass (one GEMM with the columns of ``Y``).

    Parameters
    ----------
    X, Y : arrays of shape (n, d) and (n, t)
        Validated training data, in namespace ``xp``.
    candidates : sequence of int
        The M row numbers of ``X`` forming the candidate set S.
    kernel : Kernel
        The base kernel k.
    mode : {"auto", "direct", "gram"}
        The form (see the module docstring); ``auto`` uses :func:`choose_mode`.
    columns : {"auto", "precomputed", "on_the_fly"}
        Direct form only: keep all M columns (memory O(nM)) or evaluate them when needed
        (memory O(n·m0)); ``auto``: :func:`lrkl.kernels.precompute_columns`.
    memory_budget : int
        Bytes allowed for the M×M Gram matrix or the n×M stored columns.
    max_entries : int
        Entries of one kernel block in the pass over the rows.
    fit_intercept : bool
        Centre the columns and the targets: the kernel ridge model with an unpenalised bias
        (:mod:`lrkl.kernel_ridge._solvers`), whose bias :attr:`SLKLResult.intercept` gives.

    Returns
    -------
    list of GramProblem or DirectProblem
        One per column of ``Y``, each reusable for several ν (see :func:`solve_slkl`).
    """
    check_option(mode, MODES, name="mode")
    check_option(columns, COLUMNS, name="columns")
    n, M, k = X.shape[0], len(candidates), Y.shape[1]
    itemsize = 4 if X.dtype == xp.float32 else 8
    if mode == "auto":
        mode = choose_mode(n, M, itemsize=itemsize, memory_budget=memory_budget)
    chunked = is_dask_array(X)
    if chunked and mode != "gram":
        msg = (
            f"mode must be 'gram' (or 'auto' with M² entries within memory_budget) for a Dask X, "
            f"received mode={mode!r} for M = {M}: the direct form makes a pass over the rows in "
            "every iteration"
        )
        raise ValueError(msg)
    hxp = host_namespace()
    if chunked:
        X, Y = check_rows(X, Y)
        centres = take_rows(X, candidates)
        device = device_of(centres)
    else:
        device = device_of(X)
        idx = from_host(hxp.asarray(list(candidates), dtype=hxp.int64), xp=xp, device=device)
        centres = xp.take(X, idx, axis=0)
    k_diag = kernel._diag(centres, xp=xp)
    scale = 1.0 / xp.sqrt(k_diag)
    keep = mode == "direct" and precompute_columns(columns, n * M, X, memory_budget)
    stored = xp.zeros((M, n), dtype=X.dtype, device=device) if keep else None

    def accumulate(X_rows: Array, Y_rows: Array) -> tuple[Array, ...]:
        """``b = C_SᵀY``, the column sums, ``B`` (or its diagonal), ``Σ y²`` and ``Σ y`` over
        these rows, one kernel block at a time (storing the columns if ``keep``)."""
        b = xp.zeros((k, M), dtype=X.dtype, device=device)
        column_sum = xp.zeros(M, dtype=X.dtype, device=device)
        B = xp.zeros((M, M) if mode == "gram" else M, dtype=X.dtype, device=device)
        for rows in row_slices(X_rows.shape[0], M, max_entries):
            block = _column_block(kernel, X_rows[rows, :], centres, scale, xp=xp)  # (rows, M)
            b += xp.matrix_transpose(Y_rows[rows, :]) @ block
            column_sum += xp.sum(block, axis=0)
            if mode == "gram":
                B += xp.matrix_transpose(block) @ block
            else:
                B += xp.sum(block * block, axis=0)
            if stored is not None:
                stored[:, rows] = xp.matrix_transpose(block)
        return b, column_sum, B, xp.sum(Y_rows * Y_rows, axis=0), xp.sum(Y_rows, axis=0)

    b, column_sum, B, y_squares, y_sum = row_sums(accumulate, X, Y) if chunked else accumulate(X, Y)
    diag_B = xp.linalg.diagonal(B) if mode == "gram" else B
    B = B if mode == "gram" else None
    b, diag_B, yy = _host(b), _host(diag_B), _host(y_squares)
    mean, y_mean = hxp.zeros(M, dtype=hxp.float64), hxp.zeros(k, dtype=hxp.float64)
    if fit_intercept:
        mean, y_mean = _host(column_sum) / n, _host(y_sum) / n
        b = b - n * (y_mean[:, None] * mean[None, :])
        diag_B, yy = diag_B - n * mean * mean, yy - n * y_mean**2
    common = dict(n=n, M=M, diag_B=diag_B, k_diag=_host(k_diag), mean=mean)
    common.update(xp=xp, device=device, dtype=X.dtype)
    targets = [dict(b=b[j], yy=float(yy[j]), y_mean=float(y_mean[j])) for j in range(k)]
    if B is not None:
        B_host = _host(B) - n * (mean[:, None] * mean[None, :])
        # Symmetric by construction; the diagonal from the same GEMM keeps both forms consistent.
        B_host = (B_host + B_host.T) / 2.0
        return [GramProblem(**common, **target, B=B_host) for target in targets]
    form = dict(X=X, centres=centres, scale=scale, kernel=kernel, columns=stored)
    return [DirectProblem(**common, **target, **form) for target in targets]


# --------------------------------------------------------------------------- the active set and G


def nu_max(problem: GramProblem | DirectProblem) -> float:
    """The smallest ν at which μ = 0 is optimal: ``max_m (c_mᵀy)²``.

    At μ = 0 the partial derivative of F (λ = 1) along μ_m is ``ν − (c_mᵀy)²``, so no weight
    leaves zero once ν reaches the largest ``(c_mᵀy)²``: the natural top of a path of ν, as
    ``LassoCV`` takes its largest α from the data.
    """
    return float(max(problem.b**2))


class _ActiveSet:
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

    def next(self, state: _ActiveSet, nu: float) -> tuple[int, float]:
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


# --------------------------------------------------------------------------- the active-set solver

#: Ridge of the working-set systems, relative to max(diag B): the candidate columns of a smooth
#: kernel are nearly dependent (cond(B_AA) reaches 1e8 at the optimum on the benchmark panel)
#: and a batch of new columns can make B_WW singular. Two steps of iterative refinement against
#: the unridged B_WW remove the ridge's bias wherever B_WW determines the solution.
_RIDGE = 1e-10

#: Inverse updates between recomputations of H from a Cholesky factor: at least this many, and
#: at least k (an O(k³) recomputation then costs about what the O(k²) updates since the last did).
_REFACTOR_EVERY = 50


def _bordered(A: Any, E: Any, D: Any) -> Any:
    """The symmetric block matrix ``[[A, E], [Eᵀ, D]]``."""
    hxp = host_namespace()
    return hxp.concat([hxp.concat([A, E], axis=1), hxp.concat([E.T, D], axis=1)])


class _WorkingSet:
    """The working set W of :func:`_active_set`: its rows ``B_{W,S}`` and the inverse
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
        """``B_WW⁻¹ target`` by ``H``, refined twice against the unridged ``B_WW``."""
        B_WW = self.B_WW
        x = self.H @ target
        for _ in range(2):
            x = x + self.H @ (target - B_WW @ x)
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


def _active_set(
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


# --------------------------------------------------------------------------- the solver


def solve_slkl(
    problem: GramProblem | DirectProblem,
    /,
    *,
    nu: float,
    solver: str = "coordinate",
    step: str = "newton",
    selection: str = "random",
    tol: float = 1e-4,
    stop: str = "objective",
    max_iter: int | None = None,
    seed: int = 0,
    mu0: Any = None,
    callback: Callable[[SLKLState], Any] | None = None,
    check_every: int | None = None,
    refresh_every: int | None = None,
    host_threads: int | None = -1,
) -> SLKLResult:
    """Minimise F(μ) of eq. (14) (λ = 1) on a prepared problem.

    Parameters
    ----------
    problem : GramProblem or DirectProblem
        From :func:`slkl_problem`.
    nu : float
        The ℓ1 weight ν > 0.
    solver : {"coordinate", "active_set"}
        ``coordinate``: the paper's coordinate descent, configured by ``step`` and
        ``selection``. ``active_set``: :func:`_active_set` on F's equivalent lasso, then greedy
        exact coordinate steps from its solution until ``stop`` holds (usually none: the
        active set ends with every violation below ``tol``); ``step``, ``selection`` and
        ``seed`` are not used. Its ``n_iter`` counts the linear solves and the coordinate steps.
    step : {"newton", "exact", "paper"}
        Coordinate step (see the module docstring).
    selection : {"random", "cyclic", "greedy"}
        Coordinate choice.
    tol : float
        The tolerance of the stopping rule ``stop``.
    stop : {"objective", "kkt"}
        ``objective``, the paper's rule: stop when ``F(μ^{k−M}) − F(μ^k) < tol·F(μ^{k−M})``,
        checked every M iterations. ``kkt``: stop when the largest violation of the optimality
        conditions (:meth:`_ActiveSet.violations`: ``a_m² = ν`` where μ_m > 0, ``a_m² ≤ ν``
        where μ_m = 0) is at most ``tol·ν``; checked at every iteration with greedy selection,
        which computes it anyway, and every M iterations otherwise (O(M·m0) in the Gram form,
        one O(nM) pass in the direct form). Greedy selection also stops, under either rule,
        when every violation is exactly zero. ``kkt`` with greedy or cyclic selection gives up,
        unconverged, when M iterations no longer decrease F (by 1e-14 of it): the violation is
        then at the problem's rounding floor.
    max_iter : int, optional
        Iteration cap (default ``1000·M``); for ``active_set``, on its solves and coordinate
        steps together.
    seed : int
        Seed of the coordinate choice: the same seed gives the same iterates in both forms.
    mu0 : host array of shape (M,), optional
        Warm start (non-negative); default μ = 0 as in Algorithm 2.
    callback : callable, optional
        Called with an :class:`SLKLState` at every objective check; returning ``True`` stops.
    check_every : int, optional
        Iterations between objective checks (recorded history and callback); default M. The
        stopping rule always compares objectives M iterations apart.
    refresh_every : int, optional
        G updates between recomputations of G from scratch; default ``max(1000, 16·m0)``, which
        bounds the refresh's O(n·m0²) (direct) or O(m0³) cost to a few percent of the updates'.
    host_threads : int or None, default -1
        BLAS threads for the host state during the loop (``None``: leave the library's setting).
        The default, -1, means 1 in the Gram form and ``None`` in the direct form, whose
        active-set solves still run on 1 thread. The host work of an iteration is a few small
        GEMVs or an m0 × m0 update: threading them costs more in synchronisation than it gains,
        and on a loaded machine it is several times slower (measured: 23 s against 4.7 s for
        abalone, M = 3000). The direct form's products over the n rows keep the library's
        threads.

    Returns
    -------
    SLKLResult
    """
    M = problem.M
    check_option(solver, SOLVERS, name="solver")
    check_option(step, STEPS, name="step")
    check_option(selection, SELECTIONS, name="selection")
    check_option(stop, STOPS, name="stop")
    check_number(nu, name="nu", strict=True)
    check_number(tol, name="tol")
    max_iter = 1000 * M if max_iter is None else int(max_iter)
    check_every = M if check_every is None else max(1, int(check_every))
    if solver == "active_set":
        step, selection = "exact", "greedy"
    host_work = functools.partial(_blas_limit, 1 if host_threads == -1 else host_threads)
    if host_threads == -1:
        host_threads = 1 if isinstance(problem, GramProblem) else None
    limits = _blas_limit(host_threads)
    capacity = M if isinstance(problem, GramProblem) else min(M, 64)
    n_solves = 0
    with limits:
        if solver == "active_set":
            start = None
            if mu0 is not None:  # its lasso coefficients: G from μ0, no rows of B needed
                warm = _ActiveSet(problem, greedy=False, capacity=capacity)
                warm.warm_start(mu0)
                start = warm.signed_coef()
            mu, rows, n_solves, stopped = _active_set(
                problem, nu, tol, max_iter, callback, start, host_work
            )
            state = _ActiveSet(problem, greedy=True, capacity=capacity)
            state.warm_start(mu, rows)
            max_iter = 0 if stopped else max(0, max_iter - n_solves)
        else:
            state = _ActiveSet(problem, greedy=selection == "greedy", capacity=capacity)
            if mu0 is not None:
                state.warm_start(mu0)
        selector = _Selector(selection, M, seed)
        result = _loop(
            problem,
            state,
            selector,
            nu,
            step,
            tol,
            stop,
            max_iter,
            check_every,
            refresh_every,
            callback,
        )
    if not n_solves:
        return result
    return result._replace(
        n_iter=result.n_iter + n_solves,
        iteration_history=tuple(i + n_solves for i in result.iteration_history),
    )


def _iterate(
    problem: GramProblem | DirectProblem, state: _ActiveSet, m: int, nu: float, step: str
) -> int:
    """One coordinate update of μ_m and G; returns the case (24)–(27) it took."""
    k = state.m0
    # Greedy keeps B_{A,S} for its scores, so w is a read; otherwise the form computes it.
    if state.P is not None:
        w = state.P[:k, m]
    else:
        w = problem.products(m, int(state.slot[m]), state.act, k)
    u = state.G[:k, :k] @ w
    a = float(problem.b[m] - state.z[:k] @ u)
    q = float(problem.diag_B[m] - w @ u)
    mu_new = _step(step, float(state.mu[m]), a, q, nu)
    return state.set_weight(m, mu_new, w, u, q)


@functools.cache
def _blas_controller() -> ThreadpoolController:
    """The loaded BLAS libraries, inspected once (a fresh inspection costs about a millisecond)."""
    return ThreadpoolController()


def _blas_limit(threads: int | None) -> contextlib.AbstractContextManager:
    """BLAS limited to ``threads`` threads inside the context (``None``: unchanged)."""
    if threads is None:
        return contextlib.nullcontext()
    return _blas_controller().limit(limits=threads, user_api="blas")


#: ``stop="kkt"`` gives up (unconverged) when M greedy or cyclic iterations decrease F by at most
#: this fraction: the optimality violation then sits at the rounding floor of the problem (a tiny
#: ν/ν_max, a near-interpolating fit), above ``tol``, and further steps only churn.
_STALL = 1e-14


def _loop(
    problem: GramProblem | DirectProblem,
    state: _ActiveSet,
    selector: _Selector,
    nu: float,
    step: str,
    tol: float,
    stop: str,
    max_iter: int,
    check_every: int,
    refresh_every: int | None,
    callback: Callable[[SLKLState], Any] | None,
) -> SLKLResult:
    """The coordinate iterations of :func:`solve_slkl`, with its stopping rule and checks."""
    hxp = host_namespace()
    M = problem.M
    objective = state.objective(nu)
    history, actives, iters = [objective], [state.m0], [0]
    last_rule = objective  # F(μ^{k−M})
    converged, k = False, 0
    if callback is not None and callback(SLKLState(0, objective, state.m0, state.mu.copy())):
        max_iter = 0
    while k < max_iter:
        m, score = selector.next(state, nu)
        if score <= 0.0 or (stop == "kkt" and score <= tol):
            converged = True
            break
        _iterate(problem, state, m, nu, step)
        k += 1
        limit = refresh_every if refresh_every is not None else max(1000, 16 * state.m0)
        if state.updates >= limit:
            state.refresh()
        if k % check_every == 0 or k % M == 0:
            objective = state.objective(nu)
            if k % check_every == 0:
                history.append(objective)
                actives.append(state.m0)
                iters.append(k)
                if callback is not None and callback(
                    SLKLState(k, objective, state.m0, state.mu.copy())
                ):
                    break
            if k % M == 0:
                if stop == "objective" and last_rule - objective < tol * last_rule:
                    converged = True
                    break
                # (Greedy's score is the largest violation already, tested every iteration.)
                if stop == "kkt" and math.isinf(score) and hxp.max(state.violations(nu)) <= tol:
                    converged = True
                    break
                # Greedy or cyclic steps visit every violation within M steps; random ones may not.
                stalled = last_rule - objective <= _STALL * abs(last_rule)
                if stop == "kkt" and stalled and selector.selection != "random":
                    break  # F no longer moves: the violation is at the rounding floor
                last_rule = objective
    if state.updates:
        state.refresh()
    objective = state.objective(nu)
    if iters[-1] != k:
        history.append(objective)
        actives.append(state.m0)
        iters.append(k)

    xp, device, dtype = problem.xp, problem.device, problem.dtype
    k0 = state.m0
    order = hxp.argsort(state.act[:k0])
    support = tuple(int(i) for i in state.act[:k0][order])
    dual = state.dual()[order]
    rows = hxp.asarray(support, dtype=hxp.int64)
    centred_sum = hxp.sum(dual * hxp.sqrt(problem.k_diag[rows]) * problem.mean[rows])
    return SLKLResult(
        weights=from_host(state.mu, xp=xp, device=device, dtype=dtype),
        support=support,
        dual_coef=from_host(dual, xp=xp, device=device, dtype=dtype),
        objective=objective,
        objective_history=tuple(history),
        n_active_history=tuple(actives),
        iteration_history=tuple(iters),
        n_iter=k,
        converged=converged,
        mode=problem.mode,
        intercept=problem.y_mean - float(centred_sum),
        kkt_violation=float(hxp.max(state.violations(nu))),
    )

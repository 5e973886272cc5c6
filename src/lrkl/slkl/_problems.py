"""SLKL's problem forms (:mod:`lrkl.slkl._solver` describes the algorithm): the column oracles
that give an iteration ``b_m``, ``B_mm`` and ``B_{A,m}``.

- :class:`DirectProblem` (the paper's): ``B_{A,m} = C_Aᵀ c_m``, one O(n·m0) product over the
  active columns per iteration, the candidate columns stored or evaluated on demand;
- :class:`GramProblem`: ``B = C_SᵀC_S`` and ``b = C_Sᵀy`` from one blocked pass over the rows,
  after which an iteration never touches the n rows;

and :func:`nu_max`, the ν above which μ = 0 is optimal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from lrkl._backend import device_of, from_host, host_namespace, index_array, to_numpy
from lrkl._checks import check_option
from lrkl._executor import executor_for
from lrkl._typing import Array
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
    "DirectProblem",
    "GramProblem",
    "choose_mode",
    "nu_max",
    "slkl_problem",
    "slkl_problems",
]


MODES = ("auto", "direct", "gram")


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
        xp = self.xp
        idx = index_array(ms, xp=xp, device=self.device)
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
    run = executor_for(X, xp=xp)
    if mode != "gram":
        run.require_in_memory(
            f"mode must be 'gram' (or 'auto' with M² entries within memory_budget) for a Dask X, "
            f"received mode={mode!r} for M = {M}: the direct form makes a pass over the rows in "
            "every iteration"
        )
    hxp = host_namespace()
    centres = run.take(X, candidates)
    device = device_of(centres)
    k_diag = kernel._diag(centres, xp=xp)
    # k(c, c) = 0 makes c's column 0 (a PSD kernel): it gets weight 0, not 0/0
    positive = k_diag > 0
    scale = xp.where(positive, 1.0 / xp.sqrt(xp.where(positive, k_diag, 1.0)), 0.0)
    keep = mode == "direct" and precompute_columns(columns, n * M, X, memory_budget)
    stored = xp.zeros((M, n), dtype=X.dtype, device=device) if keep else None
    filled = [0]  # X's rows stored so far: a stored X is in memory, its blocks come in order
    # With an intercept, y enters shifted by the mean of its first block, so that an offset
    # of y cancels exactly (y − shift) before anything is squared or summed: Cᵀy − n·ȳ·c̄
    # lost every digit of a float32 y at 1e5 with a spread of 5 (R² −10 where float64 gave 0.96)
    shift = None
    if fit_intercept:
        shift = run.first(lambda X_rows, Y_rows: xp.mean(Y_rows, axis=0), X, Y)

    def accumulate(X_rows: Array, Y_rows: Array) -> tuple[Array, ...]:
        """``b = C_SᵀY``, the column sums, ``B`` (or its diagonal), ``Σ y²`` and ``Σ y`` over
        these rows, one kernel block at a time (storing the columns if ``keep``)."""
        b = xp.zeros((k, M), dtype=X.dtype, device=device)
        column_sum = xp.zeros(M, dtype=X.dtype, device=device)
        B = xp.zeros((M, M) if mode == "gram" else M, dtype=X.dtype, device=device)
        Y_rows = Y_rows if shift is None else Y_rows - shift
        for rows in row_slices(X_rows.shape[0], M, max_entries):
            block = _column_block(kernel, X_rows[rows, :], centres, scale, xp=xp)  # (rows, M)
            b += xp.matrix_transpose(Y_rows[rows, :]) @ block
            column_sum += xp.sum(block, axis=0)
            if mode == "gram":
                B += xp.matrix_transpose(block) @ block
            else:
                B += xp.sum(block * block, axis=0)
            if stored is not None:
                start = filled[0] + rows.start
                stored[:, start : start + block.shape[0]] = xp.matrix_transpose(block)
        filled[0] += X_rows.shape[0]
        return b, column_sum, B, xp.sum(Y_rows * Y_rows, axis=0), xp.sum(Y_rows, axis=0)

    b, column_sum, B, y_squares, y_sum = run.sum(accumulate, X, Y)
    diag_B = xp.linalg.diagonal(B) if mode == "gram" else B
    B = B if mode == "gram" else None
    b, diag_B, yy = _host(b), _host(diag_B), _host(y_squares)
    mean, y_mean = hxp.zeros(M, dtype=hxp.float64), hxp.zeros(k, dtype=hxp.float64)
    if fit_intercept:
        mean, shifted_mean = _host(column_sum) / n, _host(y_sum) / n
        b = b - n * (shifted_mean[:, None] * mean[None, :])
        diag_B, yy = diag_B - n * mean * mean, yy - n * shifted_mean**2
        y_mean = _host(shift) + shifted_mean
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


def nu_max(problem: GramProblem | DirectProblem) -> float:
    """The smallest ν at which μ = 0 is optimal: ``max_m (c_mᵀy)²``.

    At μ = 0 the partial derivative of F (λ = 1) along μ_m is ``ν − (c_mᵀy)²``, so no weight
    leaves zero once ν reaches the largest ``(c_mᵀy)²``: the natural top of a path of ν, as
    ``LassoCV`` takes its largest α from the data.
    """
    return float(max(problem.b**2))

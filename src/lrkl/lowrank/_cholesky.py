"""Pivoted Cholesky columns: the step shared by ICD, CSI and Mklaren."""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from lrkl._backend import (
    check_array,
    check_consistent_length,
    device_of,
    index_array,
    widest_float,
)
from lrkl._checks import check_integer, check_namespace
from lrkl._executor import executor_for
from lrkl._typing import Array
from lrkl.kernels import Kernel, check_kernel
from lrkl.lowrank._factor import LowRankFactor, _as_dtype

# --------------------------------------------------------------------------- Cholesky columns


def _cholesky_column(
    col: Array,  # shape: (n,), column `pivot` of K (or of a residual of K)
    G: Array,  # shape: (n, cols)
    d: Array,  # shape: (n,)
    pivot: int,
    k: int,
    start: int = 0,
    *,
    xp: ModuleType,
) -> Array:
    """``(col − G[:, start:k] G[i, start:k]ᵀ) / sqrt(d_i)`` with the exact zeros of icd_column."""
    if k > start:
        col = col - G[:, start:k] @ G[pivot, start:k]
    return scaled_column(col, d, d[pivot], pivot, xp=xp)


def scaled_column(
    col: Array,  # shape: (n,), the residual kernel column of the pivot
    d: Array,  # shape: (n,), the residual diagonal
    d_pivot: Array | float,  # shape: (), the pivot's residual (a float once read on the host)
    pivot: int | None,
    *,
    xp: ModuleType,
) -> Array:
    """``col / sqrt(d_pivot)``, exactly 0 where ``d ≤ 0`` and exactly ``sqrt(d_pivot)`` at the
    pivot (its row among these, or None when these rows are a chunk without it).

    ``d_pivot`` stays on the device unless the caller has read it already (ICD, whose pivot
    search reads it): then the scalars are Python floats, the same values (a float64 square root
    rounded to float32 is float32's own), without a device operation each."""
    if isinstance(d_pivot, float):
        root = math.sqrt(d_pivot) if d_pivot > 0 else 0.0
        scale = 1.0 / root if root > 0 else 0.0
    else:
        positive = d_pivot > 0
        root = xp.sqrt(xp.where(positive, d_pivot, 1.0))
        scale = _as_dtype(xp.where(positive, 1.0 / root, 0.0), col.dtype, xp=xp)
        root = _as_dtype(xp.where(positive, root, 0.0), col.dtype, xp=xp)
    g = xp.where(d > 0, col * scale, 0.0)
    if pivot is not None:
        # The pivot entry is sqrt(d_i) exactly (0 when d_i ≤ 0), not (K_ii − ‖G_i‖²)/sqrt(d_i).
        g[pivot] = root
    return g


def icd_column(
    kernel: Kernel,
    X: Array,  # shape: (n, dim)
    G: Array,  # shape: (n, cols), columns [0, k) hold the current Cholesky columns
    d: Array,  # shape: (n,), residual diagonal diag(K − G Gᵀ), exactly 0 at chosen pivots
    pivot: int,
    k: int,
    *,
    xp: ModuleType,
) -> Array:
    """One pivoted-Cholesky column: ``g = (K[:, i] − G[:, :k] G[i, :k]ᵀ) / sqrt(d_i)``.

    This is step 2 of the incomplete Cholesky decomposition (:ref:`mklaren-icd`, eq. 2) for pivot
    ``i = pivot``, evaluating only column ``i`` of the kernel matrix (``n`` kernel values) and
    costing ``O(n k)`` flops. Neither ``G`` nor ``d`` is modified: the caller stores ``g`` as
    column ``k`` of ``G`` and updates the residual diagonal, ``d ← d − g²`` then ``d[i] ← 0``.

    Exact values, by construction rather than by round-off:

    - ``g[i] = sqrt(d_i)`` (the diagonal of ``L = G[S, :]`` is the square root of the residual);
    - ``g[j] = 0`` wherever ``d_j ≤ 0``, by **masking with the residual diagonal**. Chosen pivots
      have ``d_j = 0`` exactly (the caller sets it), so the new column is exactly zero there and
      ``G[S, :]`` stays exactly lower triangular in pivot order. Any other point with a
      non-positive residual gets 0 too, which is its exact value: the residual kernel is positive
      semi-definite, so ``|E_ji| ≤ sqrt(E_jj E_ii) = 0``;
    - ``g = 0`` (the whole column) when ``d_i ≤ 0``: nothing is left to explain at that pivot.

    No value is read back to the host by the computation, so :func:`_icd_column` (what ICD, CSI
    and Mklaren call) runs on any device without a sync; this public function first validates
    its arguments: ``kernel`` a Kernel (its ``"scale"`` widths resolved on ``X``), ``X``, ``G``
    and ``d`` finite arrays of ``xp`` with the same number of rows ``n`` (2-D, 2-D and 1-D),
    ``pivot`` an integer in ``[0, n)`` and ``k`` one in ``[0, cols]``; anything else is refused
    with a ValueError or TypeError naming the argument.

    Parameters
    ----------
    kernel : Kernel
        The kernel; ``kernel._evaluate(X, X[i:i+1], xp=xp)`` gives column ``i`` of ``K``.
    X : array, shape (n, dim)
        Training inputs (finite, same namespace as ``G``).
    G : array, shape (n, cols)
        Factor under construction; only ``G[:, :k]`` is read.
    d : array, shape (n,)
        Residual diagonal ``diag(K − G[:, :k] G[:, :k]ᵀ)`` with ``d = 0`` at chosen pivots.
    pivot : int
        Row index ``i`` of the new pivot, a Python int in ``[0, n)``.
    k : int
        Number of columns of ``G`` already computed (the new column gets index ``k``).
    xp : namespace
        The array namespace of ``X``, ``G`` and ``d``.

    Returns
    -------
    array, shape (n,)
        The new column ``g`` in the dtype of ``G``.

    Examples
    --------
    >>> import array_api_strict as xp
    >>> from lrkl.kernels import Linear
    >>> X = xp.asarray([[1.0], [2.0]])
    >>> G = xp.zeros((2, 1), dtype=xp.float64)
    >>> d = xp.asarray([1.0, 4.0])
    >>> icd_column(Linear(), X, G, d, 1, 0, xp=xp)
    Array([1., 2.], dtype=array_api_strict.float64)
    """
    check_namespace(xp)
    X = check_array(X, name="X", xp=xp)
    G = check_array(G, name="G", xp=xp)
    d = check_array(d, name="d", ndim=1, dtype=G.dtype, xp=xp)
    check_consistent_length(X=X, G=G, d=d)
    kernel = check_kernel(kernel, X)
    pivot = check_integer(pivot, name="pivot", low=0, high=X.shape[0] - 1)
    k = check_integer(k, name="k", low=0, high=G.shape[1])
    return _icd_column(kernel, X, G, d, pivot, k, xp=xp)


def _icd_column(
    kernel: Kernel,
    X: Array,  # shape: (n, dim), validated
    G: Array,  # shape: (n, cols)
    d: Array,  # shape: (n,)
    pivot: int,
    k: int,
    *,
    xp: ModuleType,
) -> Array:
    """:func:`icd_column` on trusted inputs."""
    i = int(pivot)
    col = _as_dtype(kernel._evaluate(X, X[i : i + 1, ...], xp=xp)[:, 0], G.dtype, xp=xp)
    return _cholesky_column(col, G, d, i, k, xp=xp)


def residual_dtype(dtype: Any, *, xp: ModuleType, device: Any) -> Any:
    """The dtype of a pivoted Cholesky's residual diagonal for inputs of ``dtype``: at least
    float64 where the device has it. The pivots are its largest entries: in float32, ``1 − k²``
    rounds to 1 for every kernel value ``k < 2.4e-4``, so after one Gaussian pivot the far points
    tie and the argmax took the first row where float64 takes the farthest (another factor, R²
    0.80 against 0.89)."""
    return widest_float(xp, device) if xp.finfo(dtype).bits < 64 else dtype


def _diagonal(kernel: Kernel, X: Array, *, xp: ModuleType) -> Array:
    """A fresh, writable copy of ``diag K`` in :func:`residual_dtype`; for a Dask ``X``,
    computed in one graph that also checks X for NaN and infinity."""
    wide = residual_dtype(X.dtype, xp=xp, device=device_of(X))

    def diagonal(rows: Array) -> Array:
        return xp.asarray(_as_dtype(kernel._diag(rows, xp=xp), wide, xp=xp), copy=True)

    return executor_for(X, xp=xp).gather(diagonal, X, tail=(), dtype=wide, check_finite=True)


def residual_tolerance(tol: float, d: Array, dtype: Any, *, xp: ModuleType) -> float:
    """The stopping tolerance on the residual diagonal: ``tol``, raised to LAPACK's
    rank-revealing floor ``n · ε · max diag K`` (``ε`` of ``dtype``, the dtype of the columns,
    as ``?pstrf`` takes it) so that a factor stops at the same numerical rank in float32 as in
    float64, instead of factorising rounding error (the diagonal itself may be kept wider:
    :func:`residual_dtype`)."""
    floor = d.shape[0] * xp.finfo(dtype).eps * float(xp.max(xp.abs(d)))
    require_psd(d, floor, xp=xp)
    return max(tol, floor)


def require_psd(d: Array, tol: Array | float, *, xp: ModuleType) -> None:
    """Raise if the residual diagonal ``d`` of a pivoted Cholesky factorisation is negative
    beyond ``tol`` (a number, or one per row): the factorised matrix is then not positive
    semi-definite (a Schur complement of a PSD matrix has a non-negative diagonal). One
    reduction, no ``O(n³)`` test: negative curvature is caught on the way, at the step that
    meets it."""
    if bool(xp.any(d < -tol)):
        i = int(xp.argmin(d))
        not_psd(float(d[i]), i, float(_at(tol, i)))


def not_psd(value: float, row: int, tol: float) -> None:
    """Raise the ValueError of a negative residual diagonal ``value`` at ``row``."""
    msg = (
        "the kernel matrix is not positive semi-definite: its pivoted Cholesky factorisation "
        f"met a negative residual diagonal {value:.3g} at row {row}, beyond its rounding "
        f"tolerance {tol:.3g}; a kernel (a Precomputed matrix or function in particular) must "
        "give positive semi-definite matrices"
    )
    raise ValueError(msg)


def _at(tol: Array | float, i: int) -> Array | float:
    return tol[i] if hasattr(tol, "shape") and tol.ndim == 1 else tol


def remove_column(
    d: Array,
    g: Array,
    pivot: int | None,
    tol: float,
    *,
    xp: ModuleType,
    check_psd: bool = False,
    d_pivot: Array | float | None = None,
    amplification: float = 1.0,
) -> Array:
    """The residual diagonal after the Cholesky column ``g`` at ``pivot``: ``d − g²``, set to
    exactly 0 at the pivot and wherever it falls to ``tol`` or below (nothing left to explain:
    a later column there would be round-off divided by round-off). ``pivot`` is None for a chunk
    of rows without the pivot.

    With ``check_psd``, a residual below its rounding tolerance is negative curvature: the
    kernel matrix is not positive semi-definite, and a ValueError says so
    (:func:`require_psd`). That tolerance is ``tol · (1 + 2 √(d_j / d_p))`` at row ``j`` for
    the pivot residual ``d_p`` (``d[pivot]``, or ``d_pivot`` for a chunk of rows without the
    pivot): with an error ``δ ≤ tol`` in the residual kernel value ``E_jp``,
    ``g_j² = (E_jp + δ)² / d_p`` exceeds ``d_j ≥ E_jp² / d_p`` by at most
    ``δ (2 √(d_j d_p) + δ) / d_p``. The bound ``δ ≤ tol`` holds while every pivot so far was
    the largest residual (ICD); a pivot chosen for something else (CSI, Mklaren) with a small
    residual amplifies the rounding of the later columns by up to ``max d / d_p``, and a PSD
    matrix can then show negative residuals far beyond ``tol``: the tolerance is multiplied by
    ``amplification``, the product of those ratios over the pivots so far
    (:func:`pivot_amplification`), so that negative curvature beyond every rounding is still
    refused, whatever chose the pivots."""
    if pivot is not None:
        d_pivot = d[pivot]
    check = check_psd and d_pivot is not None
    if check:
        # d_p ≤ 0 gives a zero column (scaled_column): then nothing changes and nothing is bound
        tiny = xp.finfo(d.dtype).smallest_normal
        d_p = xp.clip(xp.asarray(d_pivot, dtype=d.dtype, device=device_of(d)), min=tiny)
        rounding = tol * amplification * (1.0 + 2.0 * xp.sqrt(xp.clip(d, min=0.0) / d_p))
    d = d - g * g
    if check:
        require_psd(d, rounding, xp=xp)
    d = xp.where(d > tol, d, 0.0)
    if pivot is not None:
        d[pivot] = 0.0
    return d


def pivot_amplification(amplification: float, d: Array, pivot: int, *, xp: ModuleType) -> float:
    """``amplification · max(1, max d / d_pivot)``: how far the rounding of the residuals may
    have grown once ``pivot`` is taken (1 while every pivot is the largest residual; inf, no
    check, past a pivot of zero residual). :func:`remove_column` scales its PSD tolerance by
    it."""
    d_p, top = float(d[pivot]), float(xp.max(d))
    if d_p <= 0.0:
        return math.inf
    return amplification * max(1.0, top / d_p)


# --------------------------------------------------------------------------- look-ahead


class KernelColumns:
    """Columns ``K[:, i]`` of one kernel on ``X``, each evaluated once and kept until dropped.

    The look-ahead of CSI and Mklaren recomputes the same few Cholesky columns in a new order at
    every step; their kernel columns come from here, so a kept pivot costs no new kernel values.
    For a Dask ``X`` the columns are computed on its row chunks (one graph per call) and come
    back to this process.
    """

    def __init__(self, kernel: Kernel, X: Array, *, xp: ModuleType) -> None:
        self.kernel, self.X, self.xp = kernel, X, xp
        self._columns: dict[int, Array] = {}

    def get(self, pivots: Sequence[int]) -> Array:
        """``K[:, pivots]``, shape (n, len(pivots)); the missing columns in one kernel call."""
        X, xp = self.X, self.xp
        missing = [i for i in pivots if i not in self._columns]
        if missing:
            run = executor_for(X, xp=xp)
            block = run.gather(
                self._block(run.take(X, missing)), X, tail=(len(missing),), dtype=X.dtype
            )
            for j, i in enumerate(missing):
                self._columns[i] = block[:, j]
        return xp.stack([self._columns[i] for i in pivots], axis=1)

    def _block(self, rows: Array) -> Any:
        """The kernel block ``k(·, rows)`` of some rows of X, as a function of those rows."""
        kernel, dtype, xp = self.kernel, self.X.dtype, self.xp
        return lambda X_rows: _as_dtype(kernel._evaluate(X_rows, rows, xp=xp), dtype, xp=xp)

    def keep(self, pivots: Sequence[int]) -> None:
        """Drop every column but those of ``pivots``."""
        wanted = set(pivots)
        self._columns = {i: c for i, c in self._columns.items() if i in wanted}


def lookahead_columns(
    columns: KernelColumns,
    G: Array,  # shape: (n, k), the committed Cholesky columns
    d: Array,  # shape: (n,), residual diagonal of G, 0 at its pivots and at or below tol
    order: Sequence[int],
    n_steps: int,
    tol: float,
    *,
    xp: ModuleType,
) -> tuple[Array, list[int], Array]:
    """Up to ``n_steps`` further pivoted-Cholesky columns after ``G``: the look-ahead of CSI and
    Mklaren (:ref:`mklaren-csi`).

    The pivots are those of ``order`` whose running residual is still above ``tol`` (the first
    one must be), then greedily the largest running residual, until none above ``tol`` is left.
    The residual kernel columns of ``order`` are formed as one block, ``K[:, W] − G G[W, :]ᵀ``
    (one GEMM), then finished one by one against the new columns only.

    Returns
    -------
    new : array, shape (n, n_steps)
        The new columns, all-zero after the last pivot.
    pivots : list of int
        Their pivots, at most ``n_steps``.
    d : array, shape (n,)
        The residual diagonal after ``G`` and the new columns.
    """
    n = G.shape[0]
    # Columns stored as rows: new[:, :j] is then a contiguous (Fortran-order) block for BLAS.
    new_t = xp.zeros((n_steps, n), dtype=G.dtype, device=device_of(G))
    new = xp.matrix_transpose(new_t)
    known = list(order)
    if known:
        block = columns.get(known)
        if G.shape[1] > 0:
            rows = xp.take(G, index_array(known, xp=xp, device=device_of(G)), axis=0)
            block = block - G @ xp.matrix_transpose(rows)
    d = xp.asarray(d, copy=True)
    pivots: list[int] = []
    j = 0  # the next entry of `order`
    while len(pivots) < n_steps:
        while j < len(known) and pivots and not float(d[known[j]]) > tol:
            j += 1  # explained by the new columns already: no column needed
        if j < len(known):
            pivot, col = known[j], block[:, j]
            j += 1
        else:
            pivot = int(xp.argmax(d))
            if not float(d[pivot]) > tol:
                break
            col = columns.get([pivot])[:, 0]
            if G.shape[1] > 0:
                col = col - G @ G[pivot, :]
        g = _cholesky_column(col, new, d, pivot, len(pivots), xp=xp)
        new_t[len(pivots), :] = g
        d = remove_column(d, g, pivot, tol, xp=xp)
        pivots.append(pivot)
    return new, pivots, d


def _factor(
    G: Array, pivots: list[int], X: Array, kernel: Kernel, d: Array, method: str, *, xp: ModuleType
) -> LowRankFactor:
    return LowRankFactor(
        G=G,
        pivots=tuple(pivots),
        landmarks=executor_for(X, xp=xp).take(X, pivots),
        kernel=kernel,
        L=xp.take(G, index_array(pivots, xp=xp, device=device_of(G)), axis=0),
        projection=None,
        residual=d,
        method=method,
    )

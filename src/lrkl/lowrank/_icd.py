"""Pivoted incomplete Cholesky decomposition (Fine & Scheinberg 2001)."""

from __future__ import annotations

import math
from types import ModuleType

from lrkl._backend import device_of
from lrkl._checks import check_number
from lrkl._executor import at_the_door, executor_for
from lrkl._typing import Array
from lrkl.kernels import Kernel, check_kernel
from lrkl.lowrank._cholesky import (
    _diagonal,
    not_psd,
    remove_column,
    residual_dtype,
    scaled_column,
)
from lrkl.lowrank._factor import LowRankFactor, _as_dtype, _check_rank

# --------------------------------------------------------------------------- ICD


def icd(kernel: Kernel, X: Array, /, rank: int, *, tol: float = 1e-10) -> LowRankFactor:
    """Pivoted incomplete Cholesky decomposition of ``K = k(X, X)`` (:ref:`mklaren-icd`).

    At each step the pivot is the point of largest residual diagonal ``d_i`` (the first on
    ties) and its column is :func:`icd_column`. The decomposition stops early, with fewer than
    ``rank`` columns, when ``max_i d_i ≤ tol``: the remaining trace error is then at most
    ``n · tol``.

    Parameters
    ----------
    kernel : Kernel
        The kernel to approximate.
    X : array, shape (n, dim)
        Training inputs.
    rank : int
        Number of columns, ``1 ≤ rank ≤ n``.
    tol : float, default 1e-10
        Stop when every residual diagonal entry is ``≤ tol`` (the reference's ε).

    Returns
    -------
    LowRankFactor
        ``G`` (n × r, ``r ≤ rank``), the pivots in order, ``L = G[pivots]`` and the residual
        diagonal.

    Notes
    -----
    ``O(n r²)`` flops, ``n r`` kernel evaluations plus the diagonal, ``O(n r)`` memory; one
    host read per step (the pivot index and its residual).

    A row-chunked Dask ``X`` is decomposed with one Dask graph per pivot: each row chunk keeps
    its rows of ``X``, ``G`` and ``d`` where they were computed (on the workers), and only the
    chunk's largest residual with its row of ``X`` and ``G`` comes back to this process. The
    factor's ``G`` and ``residual`` are then Dask arrays over those chunks; ``L`` and the
    landmarks are in memory. NaN or infinity in ``X`` raise a ValueError after the first graph.

    Examples
    --------
    >>> import array_api_strict as xp
    >>> from lrkl.kernels import Linear
    >>> X = xp.asarray([[1.0, 0.0], [0.0, 2.0], [1.0, 2.0]])
    >>> f = icd(Linear(), X, 3)
    >>> f.rank, f.pivots
    (2, (2, 1))
    """
    run, X = at_the_door(X)
    xp = run.xp
    kernel = check_kernel(kernel, X)
    rank = _check_rank(rank, X.shape[0])
    tol = check_number(tol, name="tol")
    return _icd([kernel], X, [rank], tol, xp=xp)[0]


def _icd(
    kernels: list[Kernel], X: Array, ranks: list[int], tol: float, *, xp: ModuleType
) -> list[LowRankFactor]:
    """:func:`icd` of every kernel on X's row blocks, all kernels in one pass per pivot
    (:meth:`~lrkl._executor.InMemory.step`; one Dask graph per pivot on a Dask ``X``).

    A block's state is its rows of ``X`` and its first row, and per kernel its rows of ``G``
    (written one column per step) and ``d``; its summary is, per kernel, its largest residual
    with that row of ``X`` and ``G``. A kernel's next pivot is the largest over the summaries
    (the first block on ties, as argmax).
    """
    run = executor_for(X, xp=xp)
    dtype, n, q = X.dtype, X.shape[0], len(kernels)

    def peak(X_b: Array, G_b: Array, d_b: Array, offset: int) -> tuple:
        if d_b.shape[0] == 0:
            return -math.inf, -1, X_b[:0], G_b[:0]
        i = int(xp.argmax(d_b))
        # a copy of G's row: G_b is written later
        return float(d_b[i]), offset + i, X_b[i, :], xp.asarray(G_b[i, :], copy=True)

    def start(block: tuple[Array, int]) -> tuple[tuple, list]:
        X_b, offset = block
        factors, summary = [], []
        for kernel, rank in zip(kernels, ranks, strict=True):
            G_b = xp.zeros((X_b.shape[0], rank), dtype=dtype, device=device_of(X_b))
            d_b = _diagonal(kernel, X_b, xp=xp)
            factors.append((G_b, d_b))
            extremes = None  # the largest |d| and the smallest d with its row
            if d_b.shape[0]:
                low = int(xp.argmin(d_b))
                extremes = (float(xp.max(xp.abs(d_b))), float(d_b[low]), offset + low)
            summary.append((peak(X_b, G_b, d_b, offset), extremes))
        return (X_b, offset, factors), summary

    def step(state: tuple, moves: list[tuple | None], tols: list[float]) -> tuple[tuple, list]:
        X_b, offset, factors = state
        updated, peaks = [], []
        for kernel, (G_b, d_b), move, tol in zip(kernels, factors, moves, tols, strict=True):
            if move is not None:
                x_p, g_p, d_p, pivot, k = move
                col = _as_dtype(kernel._evaluate(X_b, x_p[None, :], xp=xp)[:, 0], dtype, xp=xp)
                if k > 0:
                    col = col - G_b[:, :k] @ g_p[:k]
                local = pivot - offset if 0 <= pivot - offset < X_b.shape[0] else None
                g = scaled_column(col, d_b, d_p, local, xp=xp)  # d_p: read by the pivot search
                G_b[:, k] = g  # columns < k are only read: a retried step writes the same column
                check = not kernel.psd_by_construction
                d_b = remove_column(d_b, g, local, tol, xp=xp, check_psd=check, d_pivot=d_p)
            updated.append((G_b, d_b))
            peaks.append(None if move is None else peak(X_b, G_b, d_b, offset))  # None: as was
        return (X_b, offset, updated), peaks

    states, summaries = run.start(start, X)
    eps = xp.finfo(dtype).eps
    tols = []
    for j in range(q):  # LAPACK's rank-revealing floor n·ε·max|diag K| (residual_tolerance)
        extremes = [summary[j][1] for summary in summaries if summary[j][1] is not None]
        floor = n * eps * max(top for top, _, _ in extremes)
        _, low, row = min(extremes, key=lambda e: e[1])
        if low < -floor:
            not_psd(low, row, floor)
        tols.append(max(tol, floor))
    peaks = [[entry[0] for entry in summary] for summary in summaries]
    pivots: list[list[int]] = [[] for _ in range(q)]
    landmarks: list[list[Array]] = [[] for _ in range(q)]
    Ls = [xp.zeros((rank, rank), dtype=dtype, device=device_of(X)) for rank in ranks]
    while True:
        moves: list[tuple | None] = []
        for j in range(q):
            k = len(pivots[j])
            d_p, pivot, x_p, g_p = max((p[j] for p in peaks), key=lambda p: p[0])
            if k == ranks[j] or not d_p > tols[j]:  # done: nothing changes it any more
                moves.append(None)
                continue
            Ls[j][k, :k] = g_p[:k]
            Ls[j][k, k] = d_p**0.5
            moves.append((x_p, g_p, d_p, pivot, k))
            pivots[j].append(pivot)
            landmarks[j].append(x_p)
        if all(move is None for move in moves):
            break
        states, new_peaks = run.step(step, states, moves, tols)
        peaks = [
            [old if new is None else new for old, new in zip(before, after, strict=True)]
            for before, after in zip(peaks, new_peaks, strict=True)
        ]
    wide = residual_dtype(dtype, xp=xp, device=device_of(X))
    factors = []
    for j, kernel in enumerate(kernels):
        r = len(pivots[j])

        def columns(state: tuple, j: int = j, r: int = r) -> Array:
            G_b = state[2][j][0]  # the first r columns (a copy: the rest is freed)
            return G_b if r == G_b.shape[1] else xp.asarray(G_b[:, :r], copy=True)

        factors.append(
            LowRankFactor(
                G=run.stack(states, columns, (r,), dtype),
                pivots=tuple(pivots[j]),
                landmarks=(
                    xp.stack(landmarks[j])
                    if r
                    else xp.zeros((0, X.shape[1]), dtype=dtype, device=device_of(X))
                ),
                kernel=kernel,
                L=xp.asarray(Ls[j][:r, :r], copy=True),
                projection=None,
                residual=run.stack(states, lambda state, j=j: state[2][j][1], (), wide),
                method="icd",
            )
        )
    return factors

"""Pivoted incomplete Cholesky decomposition (Fine & Scheinberg 2001)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from lrkl._backend import check_array, device_of, ensure_array, get_namespace, require_finite
from lrkl._checks import check_number
from lrkl._dask import (
    check_rows,
    chunk_namespace,
    is_dask_array,
    row_chunks,
    stack_chunks,
    step_chunks,
)
from lrkl._validation import check_kernel
from lrkl.kernels import Kernel
from lrkl.lowrank._cholesky import (
    _diagonal,
    _factor,
    _icd_column,
    remove_column,
    residual_tolerance,
    scaled_column,
)
from lrkl.lowrank._factor import LowRankFactor, _as_dtype, _check_rank

Array = Any


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
    if is_dask_array(X):  # validated by the first pass over its chunks
        X, _ = check_rows(X)
        xp = chunk_namespace(X)
    else:
        X = ensure_array(X, name="X")  # lists are taken as NumPy, as the estimators take them
        xp = get_namespace(X)
        X = check_array(X, name="X", xp=xp)
    kernel = check_kernel(kernel, X)
    rank = _check_rank(rank, X.shape[0])
    tol = check_number(tol, name="tol")
    if is_dask_array(X):
        return chunked_icd([kernel], X, [rank], tol, xp=xp)[0]
    return _icd(kernel, X, rank, tol, xp=xp)


def _icd(kernel: Kernel, X: Array, rank: int, tol: float, *, xp: ModuleType) -> LowRankFactor:
    n = X.shape[0]
    G = xp.zeros((n, rank), dtype=X.dtype, device=device_of(X))
    d = _diagonal(kernel, X, xp=xp)
    tol = residual_tolerance(tol, d, X.dtype, xp=xp)
    pivots: list[int] = []
    for k in range(rank):
        i = int(xp.argmax(d))
        if not float(d[i]) > tol:
            break
        g = _icd_column(kernel, X, G, d, i, k, xp=xp)
        G[:, k] = g
        d = remove_column(d, g, i, tol, xp=xp, check_psd=not kernel.psd_by_construction)
        pivots.append(i)
    r = len(pivots)
    if r < rank:
        G = xp.asarray(G[:, :r], copy=True)
    return _factor(G, pivots, X, kernel, d, "icd", xp=xp)


def chunked_icd(
    kernels: list[Kernel], X: Array, ranks: list[int], tol: float, *, xp: ModuleType
) -> list[LowRankFactor]:
    """:func:`_icd` of every kernel on a row-chunked Dask ``X``: one graph per pivot for all
    kernels at once (:func:`step_chunks`).

    A chunk's state is its rows of ``X`` and its first row, and per kernel its rows of ``G``
    (written one column per step) and ``d``; its summary is, per kernel, its largest residual
    with that row of ``X`` and ``G``. A kernel's next pivot is the largest over the summaries
    (the first chunk on ties, as argmax).
    """
    dtype = X.dtype

    def peak(X_c: Array, G_c: Array, d_c: Array, offset: int) -> tuple:
        if d_c.shape[0] == 0:
            return -float("inf"), -1, X_c[:0], G_c[:0]
        i = int(xp.argmax(d_c))
        # a copy of G's row: G_c is written later
        return float(d_c[i]), offset + i, X_c[i, :], xp.asarray(G_c[i, :], copy=True)

    def start(chunk: tuple[Array, int]) -> tuple[tuple, tuple]:
        X_c, offset = chunk
        factors = [
            (xp.zeros((X_c.shape[0], rank), dtype=dtype), _diagonal(kernel, X_c, xp=xp))
            for kernel, rank in zip(kernels, ranks, strict=True)
        ]
        peaks = [peak(X_c, G_c, d_c, offset) for G_c, d_c in factors]
        return (X_c, offset, factors), (peaks, bool(xp.all(xp.isfinite(X_c))))

    def step(state: tuple, moves: list[tuple | None], tols: list[float]) -> tuple[tuple, tuple]:
        X_c, offset, factors = state
        updated, peaks = [], []
        for kernel, (G_c, d_c), move, tol in zip(kernels, factors, moves, tols, strict=True):
            if move is not None:
                x_p, g_p, d_p, pivot, k = move
                col = _as_dtype(kernel._evaluate(X_c, x_p[None, :], xp=xp)[:, 0], dtype, xp=xp)
                if k > 0:
                    col = col - G_c[:, :k] @ g_p[:k]
                local = pivot - offset if 0 <= pivot - offset < X_c.shape[0] else None
                g = scaled_column(col, d_c, xp.asarray(d_p, dtype=d_c.dtype), local, xp=xp)
                G_c[:, k] = g  # columns < k are only read: a retried step writes the same column
                check = not kernel.psd_by_construction
                d_c = remove_column(d_c, g, local, tol, xp=xp, check_psd=check, d_pivot=d_p)
            updated.append((G_c, d_c))
            peaks.append(peak(X_c, G_c, d_c, offset))
        return (X_c, offset, updated), (peaks, True)

    states, summaries = step_chunks(start, row_chunks(X))
    require_finite(all(finite for _, finite in summaries), name="X")
    n, q = X.shape[0], len(kernels)
    eps = xp.finfo(dtype).eps
    tols = [max(tol, n * eps * max(peaks[j][0] for peaks, _ in summaries)) for j in range(q)]
    pivots: list[list[int]] = [[] for _ in range(q)]
    landmarks: list[list[Array]] = [[] for _ in range(q)]
    Ls = [xp.zeros((rank, rank), dtype=dtype) for rank in ranks]
    while True:
        moves: list[tuple | None] = []
        for j in range(q):
            k = len(pivots[j])
            d_p, pivot, x_p, g_p = max((peaks[j] for peaks, _ in summaries), key=lambda p: p[0])
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
        states, summaries = step_chunks(step, states, moves, tols)
    factors = []
    rows, meta = X.chunks[0], X._meta
    for j, kernel in enumerate(kernels):
        r = len(pivots[j])
        G = stack_chunks([state[0][2][j][0] for state in states], rows, (ranks[j],), meta)
        d = stack_chunks([state[0][2][j][1] for state in states], rows, (), meta.reshape((0,)))
        factors.append(
            LowRankFactor(
                G=G[:, :r],
                pivots=tuple(pivots[j]),
                landmarks=xp.stack(landmarks[j]) if r else xp.zeros((0, X.shape[1]), dtype=dtype),
                kernel=kernel,
                L=xp.asarray(Ls[j][:r, :r], copy=True),
                projection=None,
                residual=d,
                method="icd",
            )
        )
    return factors

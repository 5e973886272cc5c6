"""Pivoted incomplete Cholesky decomposition (Fine & Scheinberg 2001)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from lrkl._backend import check_array, device_of, get_namespace
from lrkl._checks import check_number
from lrkl._validation import check_kernel
from lrkl.kernels import Kernel
from lrkl.lowrank._cholesky import (
    _diagonal,
    _factor,
    icd_column,
    remove_column,
    residual_tolerance,
)
from lrkl.lowrank._factor import LowRankFactor, _check_rank

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

    Examples
    --------
    >>> import array_api_strict as xp
    >>> from lrkl.kernels import Linear
    >>> X = xp.asarray([[1.0, 0.0], [0.0, 2.0], [1.0, 2.0]])
    >>> f = icd(Linear(), X, 3)
    >>> f.rank, f.pivots
    (2, (2, 1))
    """
    xp = get_namespace(X)
    X = check_array(X, name="X", xp=xp)
    kernel = check_kernel(kernel, X)
    rank = _check_rank(rank, X.shape[0])
    tol = check_number(tol, name="tol")
    return _icd(kernel, X, rank, tol, xp=xp)


def _icd(kernel: Kernel, X: Array, rank: int, tol: float, *, xp: ModuleType) -> LowRankFactor:
    n = X.shape[0]
    G = xp.zeros((n, rank), dtype=X.dtype, device=device_of(X))
    d = _diagonal(kernel, X, xp=xp)
    tol = residual_tolerance(tol, d, xp=xp)
    pivots: list[int] = []
    for k in range(rank):
        i = int(xp.argmax(d))
        if not float(d[i]) > tol:
            break
        g = icd_column(kernel, X, G, d, i, k, xp=xp)
        G[:, k] = g
        d = remove_column(d, g, i, tol, xp=xp)
        pivots.append(i)
    r = len(pivots)
    if r < rank:
        G = xp.asarray(G[:, :r], copy=True)
    return _factor(G, pivots, X, kernel, d, "icd", xp=xp)

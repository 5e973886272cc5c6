"""The low-rank factor type, its out-of-sample map and the checks shared by the methods."""

from __future__ import annotations

import numbers
from types import ModuleType
from typing import Any, NamedTuple

from lrkl._backend import check_array, device_of, ensure_array, get_namespace
from lrkl._checks import check_namespace
from lrkl._executor import executor_for, in_memory
from lrkl._linalg import solve_triangular
from lrkl._typing import Array
from lrkl.kernels import Kernel

# --------------------------------------------------------------------------- result


class LowRankFactor(NamedTuple):
    """A low-rank approximation ``G Gᵀ ≈ K`` of one kernel matrix, and its out-of-sample map.

    Attributes
    ----------
    G : array, shape (n, r), or None
        The factor (features of the training points). For a Dask ``X`` a Dask array over X's
        row chunks (as is ``residual``): lazy for Nyström, the chunks kept on the workers for
        ICD. Those two are not pickled (they belong to the cluster and the fit's graph): after
        unpickling they are None, and the factor still maps new points.
    pivots : tuple of int
        The ``m`` training rows the approximation is built on: ICD and CSI pivots in the order
        they were chosen (``m = r``), or the Nyström landmarks (``m ≥ r``).
    landmarks : array, shape (m, dim)
        ``X[pivots]``, kept so that new points can be mapped without the training data.
    kernel : Kernel
        The approximated kernel.
    L : array, shape (r, r), or None
        ICD and CSI: ``G[pivots, :]``, lower triangular with ``L Lᵀ = K[S, S]``; new points get
        ``g(x) = L^{−1} k(S, x)``. ``None`` for Nyström.
    projection : array, shape (m, r), or None
        Nyström: ``G = K[:, S] @ projection``; new points get ``g(x) = projectionᵀ k(S, x)``.
        In at least float64 (the widest float of the device) whatever ``G``'s dtype: ``K[:, S]``
        and the product are computed in it, and the features rounded to ``G``'s dtype.
        ``None`` for ICD and CSI.
    residual : array, shape (n,), or None
        ``diag(K − G Gᵀ)``; its sum is the trace error of the approximation.
    method : str
        ``"icd"``, ``"csi"`` or ``"nystrom"``.
    """

    G: Array  # shape: (n, r)
    pivots: tuple[int, ...]
    landmarks: Array  # shape: (m, dim)
    kernel: Kernel
    L: Array | None  # shape: (r, r)
    projection: Array | None  # shape: (m, r)
    residual: Array  # shape: (n,)
    method: str

    @property
    def rank(self) -> int:
        """The number of columns ``r`` of ``G`` (ICD and CSI may stop below the request)."""
        return int((self.L if self.L is not None else self.projection).shape[1])

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle without a Dask ``G`` and ``residual``: they reference the fit's graph (lazy
        over the training data) or its cluster (persisted chunks)."""
        return type(self), tuple(
            self._replace(G=in_memory(self.G), residual=in_memory(self.residual))
        )

    def _astype(self, dtype: Any, *, xp: ModuleType) -> LowRankFactor:
        """This factor with ``G`` and the map of new points (landmarks, ``L``) in ``dtype``;
        the residual diagonal and Nyström's projection stay in their own (at least float64:
        the projection's large entries would amplify the rounding of a float32 kernel block)."""

        def cast(a: Array | None) -> Array | None:
            return None if a is None else _as_dtype(a, dtype, xp=xp)

        return self._replace(G=cast(self.G), landmarks=cast(self.landmarks), L=cast(self.L))

    def transform(self, X: Array, /) -> Array:
        """Features ``g(x)`` of new points (the rows of ``X``), shape ``(m, r)``;
        ``transform(X_train) ≈ G``.

        ICD and CSI: ``g(x) = L^{−1} k(S, x)`` by a triangular solve; Nyström:
        ``g(x) = projectionᵀ k(S, x)``. Costs ``O(m r (dim + r))``.
        """
        X = ensure_array(X, name="X")  # lists are taken as NumPy, as the estimators take them
        xp = get_namespace(X, self.landmarks)  # G may be a lazy Dask array (Nyström)
        X = check_array(X, name="X", xp=xp, dtype=self.landmarks.dtype)
        if X.shape[1] != self.landmarks.shape[1]:
            msg = (
                f"X must have {self.landmarks.shape[1]} features like the training data, "
                f"received shape {tuple(X.shape)}"
            )
            raise ValueError(msg)
        return self._transform(X, xp=xp)

    def _transform(self, X: Array, /, *, xp: ModuleType, dtype: Any = None) -> Array:
        """:meth:`transform` of a validated ``X`` (in the landmarks' dtype and namespace), the
        features in ``dtype`` (``None``: X's), each row block rounded to it as it is made."""
        dtype = X.dtype if dtype is None else dtype
        if self.L is not None:
            G = _cholesky_features(self.kernel, self.landmarks, self.L, X, xp=xp)
            return _as_dtype(G, dtype, xp=xp)
        S_wide = _as_dtype(self.landmarks, self.projection.dtype, xp=xp)
        m, r = self.projection.shape

        def features(rows: Array) -> Array:
            G_rows = projected_rows(self.kernel, rows, S_wide, self.projection, xp=xp)
            return _as_dtype(G_rows, dtype, xp=xp)

        run = executor_for(X, xp=xp, row_work=m + 2 * r)
        return run.map(features, X, tail=(r,), dtype=dtype)


def projected_rows(
    kernel: Kernel, rows: Array, S_wide: Array, projection: Array, *, xp: ModuleType
) -> Array:
    """Nyström features ``k(rows, S) @ projection`` of some rows, computed in the projection's
    dtype (at least float64 from a fit, ``S_wide`` the landmarks in it) whatever the rows': the
    projection's large entries would amplify a float32 kernel block's rounding."""
    wide = projection.dtype
    block = kernel._evaluate(_as_dtype(rows, wide, xp=xp), S_wide, xp=xp)
    return _as_dtype(block, wide, xp=xp) @ projection


# --------------------------------------------------------------------------- validation


def _check_rank(rank: Any, n: int, name: str = "rank", bound: str = "n_samples") -> int:
    integer = isinstance(rank, numbers.Integral) and not isinstance(rank, bool)
    if not integer or not 1 <= rank <= n:
        rows = " (the rows of X)" if bound == "n_samples" else ""
        msg = f"{name} must be an integer between 1 and {bound}={n}{rows}, received {rank!r}"
        raise ValueError(msg)
    return int(rank)


def _as_dtype(a: Array, dtype: Any, *, xp: ModuleType) -> Array:
    return a if a.dtype == dtype else xp.astype(a, dtype)


def cholesky_features(
    kernel: Kernel,
    landmarks: Array,  # shape: (r, dim), the pivot rows X[S] in pivot order
    L: Array,  # shape: (r, r), lower triangular G[S, :]
    Z: Array,  # shape: (m, dim)
    *,
    xp: ModuleType,
) -> Array:
    """Out-of-sample Cholesky features ``g(z) = L^{−1} k(S, z)`` (eqs. 19–21), shape ``(m, r)``.

    ``L`` may hold zero columns (a pivot whose residual was ``≤ 0``, which :func:`icd_column`
    turns into a zero column): the matching feature is then exactly 0 and that pivot is left out
    of the solve, which is what the training factor holds too. Costs ``O(m r (dim + r))``.

    ``kernel`` must be a Kernel, ``landmarks`` (``r × dim``), ``L`` (``r × r``, its lower
    triangle is read) and ``Z`` (``m × dim``) finite arrays of ``xp``; anything else is refused
    with a ValueError or TypeError naming the argument.
    """
    check_namespace(xp)
    if not isinstance(kernel, Kernel):
        msg = f"kernel must be an lrkl.kernels.Kernel, received {type(kernel).__name__}"
        raise TypeError(msg)
    if kernel._scaled_parameters():
        msg = (
            f"kernel must have its widths set, received {kernel!r}: resolve 'scale' on the "
            "training inputs first (kernel.resolve(X), as the factor that gave L did)"
        )
        raise ValueError(msg)
    landmarks = check_array(landmarks, name="landmarks", min_rows=0, xp=xp)
    L = check_array(L, name="L", ndim=2, min_rows=0, xp=xp)
    r = landmarks.shape[0]
    if tuple(L.shape) != (r, r):
        msg = f"L must have shape ({r}, {r}), one row per landmark, received {tuple(L.shape)}"
        raise ValueError(msg)
    Z = check_array(Z, name="Z", dtype=L.dtype, xp=xp)
    if Z.shape[1] != landmarks.shape[1]:
        msg = (
            f"Z must have {landmarks.shape[1]} features like the landmarks, received shape "
            f"{tuple(Z.shape)}"
        )
        raise ValueError(msg)
    return _cholesky_features(kernel, landmarks, L, Z, xp=xp)


def _cholesky_features(
    kernel: Kernel,
    landmarks: Array,  # shape: (r, dim), the pivot rows X[S] in pivot order
    L: Array,  # shape: (r, r), lower triangular G[S, :]
    Z: Array,  # shape: (m, dim), validated
    *,
    xp: ModuleType,
) -> Array:
    """:func:`cholesky_features` on trusted inputs."""
    r = L.shape[0]
    if r == 0:
        return xp.zeros((Z.shape[0], 0), dtype=L.dtype, device=device_of(L))
    rhs = _as_dtype(kernel._evaluate(landmarks, Z, xp=xp), L.dtype, xp=xp)  # shape: (r, m)
    ok = xp.linalg.diagonal(L) > 0
    eye = xp.eye(r, dtype=L.dtype, device=device_of(L))
    L = xp.where(ok[:, None], L, eye)
    rhs = xp.where(ok[:, None], rhs, xp.zeros_like(rhs))
    return xp.matrix_transpose(solve_triangular(L, rhs, xp=xp, lower=True))

"""Low-rank approximations of one kernel matrix: pivoted incomplete Cholesky, CSI and Nyström.

Every method returns a :class:`LowRankFactor`: a factor ``G`` (n × r) with ``G Gᵀ ≈ K``, the
training rows it was built from (pivots or landmarks), and what is needed to map new points to
the same features (:meth:`LowRankFactor.transform`). The kernel matrix is never formed: only its
diagonal and single columns or ``n × m`` blocks ``K[:, S]`` are evaluated.

- :func:`icd`: pivoted incomplete Cholesky decomposition (Fine & Scheinberg 2001), the greedy
  pivot of largest residual diagonal (MKLAREN.md §1);
- :func:`csi`: Cholesky with side information (Bach & Jordan 2005), pivots chosen by the
  predicted decrease of ``λ tr(K − GGᵀ) + μ ‖Y − QQᵀY‖²`` estimated with look-ahead columns
  (MKLAREN.md §8);
- :func:`nystrom`: the Nyström method on uniformly sampled landmarks, either the full
  pseudo-inverse square root ``G = K[:, S] W^{−1/2}`` (scikit-learn's ``Nystroem``) or the rank-R
  form ``V = C L D^{−1/2}`` of the ℓp-MKL paper (top-R eigenpairs of ``W = K[S, S]``).

ICD and CSI factors are pivoted Cholesky factors: with ``L = G[S, :]`` (lower triangular in pivot
order, ``L Lᵀ = K[S, S]``), ``G = K[:, S] L^{−ᵀ}`` and ``G Gᵀ`` is the Nyström approximation on
the pivots. A new point therefore gets the features ``g(x) = L^{−1} k(S, x)`` (eqs. 19–21 of
the Mklaren paper), one triangular solve.

The module also holds the centered-alignment weights of Cortes, Mohri & Rostamizadeh (2012)
computed from factors (:func:`factor_alignment`, :func:`alignment_weights`), which need only
``r × r`` products of centred factors.

Examples
--------
>>> import array_api_strict as xp
>>> from lrkl.kernels import Gaussian
>>> X = xp.reshape(xp.linspace(0.0, 1.0, 20), (20, 1))
>>> f = icd(Gaussian(gamma=1.0), X, 5)
>>> f.G.shape, f.pivots[:2]
((20, 5), (0, 19))
>>> bool(xp.max(xp.abs(f.transform(X) - f.G)) < 1e-10)
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NamedTuple

from sklearn.utils import check_random_state

from lrkl._backend import check_array, check_consistent_length, device_of, get_namespace
from lrkl._linalg import eigh, lstsq, solve_triangular
from lrkl.kernels import Kernel

__all__ = [
    "LowRankFactor",
    "alignment_weights",
    "cholesky_features",
    "csi",
    "factor_alignment",
    "icd",
    "icd_column",
    "nystrom",
]

Array = Any

#: Eigenvalue floor of the full Nyström form, as in scikit-learn's ``Nystroem`` (MKLAREN.md §9).
NYSTROM_EIGENVALUE_FLOOR = 1e-12


# --------------------------------------------------------------------------- result


class LowRankFactor(NamedTuple):
    """A low-rank approximation ``G Gᵀ ≈ K`` of one kernel matrix, and its out-of-sample map.

    Attributes
    ----------
    G : array, shape (n, r)
        The factor (features of the training points).
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
        ``None`` for ICD and CSI.
    residual : array, shape (n,)
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
        return int(self.G.shape[1])

    def transform(self, Z: Array, /) -> Array:
        """Features ``g(z)`` of new points, shape ``(m, r)``; ``transform(X_train) ≈ G``.

        ICD and CSI: ``g(z) = L^{−1} k(S, z)`` by a triangular solve; Nyström:
        ``g(z) = projectionᵀ k(S, z)``. Costs ``O(m r (dim + r))``.
        """
        xp = get_namespace(Z, self.G)
        Z = check_array(Z, name="Z", xp=xp, dtype=self.G.dtype)
        if Z.shape[1] != self.landmarks.shape[1]:
            msg = (
                f"Z must have {self.landmarks.shape[1]} features like the training data, "
                f"received shape {tuple(Z.shape)}"
            )
            raise ValueError(msg)
        if self.L is not None:
            return cholesky_features(self.kernel, self.landmarks, self.L, Z, xp=xp)
        block = _as_dtype(self.kernel._evaluate(Z, self.landmarks, xp=xp), self.G.dtype, xp=xp)
        return block @ self.projection


# --------------------------------------------------------------------------- validation


def _check_rank(rank: Any, n: int, name: str = "rank", bound: str = "n_samples") -> int:
    if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= n:
        msg = f"{name} must be an integer between 1 and {bound}={n}, received {rank!r}"
        raise ValueError(msg)
    return int(rank)


def _check_kernel(kernel: Any) -> Kernel:
    if not isinstance(kernel, Kernel):
        msg = f"kernel must be an lrkl.kernels.Kernel, received {type(kernel).__name__}"
        raise TypeError(msg)
    return kernel


def _check_nonnegative(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        msg = f"{name} must be a finite number >= 0, received {value!r}"
        raise ValueError(msg)
    if not math.isfinite(value):
        msg = f"{name} must be a finite number >= 0, received {value!r}"
        raise ValueError(msg)
    return float(value)


def _as_dtype(a: Array, dtype: Any, *, xp: ModuleType) -> Array:
    return a if a.dtype == dtype else xp.astype(a, dtype)


def _index(indices: Sequence[int], *, xp: ModuleType, device: Any) -> Array:
    return xp.asarray(list(indices), dtype=xp.int64, device=device)


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
    d_i = d[pivot]
    positive = d_i > 0
    root = xp.sqrt(xp.where(positive, d_i, xp.ones_like(d_i)))
    scale = xp.where(positive, 1.0 / root, xp.zeros_like(d_i))
    g = xp.where(d > 0, col * scale, xp.zeros_like(col))
    # The pivot entry is sqrt(d_i) exactly (0 when d_i ≤ 0), not (K_ii − ‖G_i‖²)/sqrt(d_i).
    g[pivot] = xp.where(positive, root, xp.zeros_like(d_i))
    return g


def icd_column(
    kernel: Kernel,
    X: Array,  # shape: (n, dim), validated
    G: Array,  # shape: (n, cols), columns [0, k) hold the current Cholesky columns
    d: Array,  # shape: (n,), residual diagonal diag(K − G Gᵀ), exactly 0 at chosen pivots
    pivot: int,
    k: int,
    *,
    xp: ModuleType,
) -> Array:
    """One pivoted-Cholesky column: ``g = (K[:, i] − G[:, :k] G[i, :k]ᵀ) / sqrt(d_i)``.

    This is step 2 of the incomplete Cholesky decomposition (MKLAREN.md §1, eq. 2) for pivot
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

    No value is read back to the host, so the function runs on any device without a sync.

    Parameters
    ----------
    kernel : Kernel
        The kernel; ``kernel._evaluate(X, X[i:i+1], xp=xp)`` gives column ``i`` of ``K``.
    X : array, shape (n, dim)
        Training inputs, already validated (finite, floating, same namespace as ``G``).
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
    i = int(pivot)
    col = _as_dtype(kernel._evaluate(X, X[i : i + 1, ...], xp=xp)[:, 0], G.dtype, xp=xp)
    return _cholesky_column(col, G, d, i, k, xp=xp)


def cholesky_features(
    kernel: Kernel,
    landmarks: Array,  # shape: (r, dim), the pivot rows X[S] in pivot order
    L: Array,  # shape: (r, r), lower triangular G[S, :]
    Z: Array,  # shape: (m, dim), validated
    *,
    xp: ModuleType,
) -> Array:
    """Out-of-sample Cholesky features ``g(z) = L^{−1} k(S, z)`` (eqs. 19–21), shape ``(m, r)``.

    ``L`` may hold zero columns (a pivot whose residual was ``≤ 0``, which :func:`icd_column`
    turns into a zero column): the matching feature is then exactly 0 and that pivot is left out
    of the solve, which is what the training factor holds too. Costs ``O(m r (dim + r))``.
    """
    r = L.shape[0]
    if r == 0:
        return xp.zeros((Z.shape[0], 0), dtype=L.dtype, device=device_of(L))
    rhs = _as_dtype(kernel._evaluate(landmarks, Z, xp=xp), L.dtype, xp=xp)  # shape: (r, m)
    ok = xp.linalg.diagonal(L) > 0
    eye = xp.eye(r, dtype=L.dtype, device=device_of(L))
    L = xp.where(ok[:, None], L, eye)
    rhs = xp.where(ok[:, None], rhs, xp.zeros_like(rhs))
    return xp.matrix_transpose(solve_triangular(L, rhs, xp=xp, lower=True))


def _diagonal(kernel: Kernel, X: Array, *, xp: ModuleType) -> Array:
    """A fresh, writable copy of ``diag K`` in the dtype of ``X``."""
    return xp.asarray(_as_dtype(kernel._diag(X, xp=xp), X.dtype, xp=xp), copy=True)


def _factor(
    G: Array, pivots: list[int], X: Array, kernel: Kernel, d: Array, method: str, *, xp: ModuleType
) -> LowRankFactor:
    idx = _index(pivots, xp=xp, device=device_of(X))
    return LowRankFactor(
        G=G,
        pivots=tuple(pivots),
        landmarks=xp.take(X, idx, axis=0),
        kernel=kernel,
        L=xp.take(G, idx, axis=0),
        projection=None,
        residual=d,
        method=method,
    )


# --------------------------------------------------------------------------- ICD


def icd(kernel: Kernel, X: Array, /, rank: int, *, tol: float = 1e-10) -> LowRankFactor:
    """Pivoted incomplete Cholesky decomposition of ``K = k(X, X)`` (MKLAREN.md §1).

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
    kernel = _check_kernel(kernel)
    X = check_array(X, name="X", xp=xp)
    rank = _check_rank(rank, X.shape[0])
    tol = _check_nonnegative("tol", tol)
    return _icd(kernel, X, rank, tol, xp=xp)


def _icd(kernel: Kernel, X: Array, rank: int, tol: float, *, xp: ModuleType) -> LowRankFactor:
    n = X.shape[0]
    G = xp.zeros((n, rank), dtype=X.dtype, device=device_of(X))
    d = _diagonal(kernel, X, xp=xp)
    pivots: list[int] = []
    for k in range(rank):
        i = int(xp.argmax(d))
        if not float(d[i]) > tol:
            break
        g = icd_column(kernel, X, G, d, i, k, xp=xp)
        G[:, k] = g
        d = d - g * g
        d[i] = 0.0
        pivots.append(i)
    r = len(pivots)
    if r < rank:
        G = xp.asarray(G[:, :r], copy=True)
    return _factor(G, pivots, X, kernel, d, "icd", xp=xp)


# --------------------------------------------------------------------------- Nyström


def nystrom(
    kernel: Kernel,
    X: Array,
    /,
    n_landmarks: int,
    *,
    rank: int | None = None,
    landmarks: Sequence[int] | None = None,
    random_state: Any = None,
) -> LowRankFactor:
    """Nyström approximation of ``K = k(X, X)`` on ``m`` uniformly sampled landmarks ``S``.

    With ``C = K[:, S]`` (n × m) and ``W = K[S, S] = U diag(s) Uᵀ``:

    - ``rank=None``: ``G = C U diag(max(s, 1e-12))^{−1/2} Uᵀ`` (n × m), the symmetric
      pseudo-inverse square root with an eigenvalue floor that scikit-learn's ``Nystroem`` and
      the Mklaren experiments use (MKLAREN.md §9);
    - ``rank=R``: ``G = C U_R D_R^{−1/2}`` (n × R) with the ``R`` largest eigenpairs of ``W``,
      the ℓp-MKL paper's ``V = C L D^{−1/2}``, so ``G Gᵀ = C W_R^† Cᵀ``; eigenvalues below
      ``m · ε · s_max`` count as zero and give zero columns (a true pseudo-inverse).

    Either way ``G Gᵀ = C W^{-1} Cᵀ`` when ``W`` is well conditioned and ``R = m``, which is the
    ICD approximation on the same pivots.

    Parameters
    ----------
    kernel : Kernel
        The kernel to approximate.
    X : array, shape (n, dim)
        Training inputs.
    n_landmarks : int
        Number of landmarks ``m``, ``1 ≤ m ≤ n``.
    rank : int or None, default None
        ``R ≤ m`` for the rank-R pseudo-inverse form; ``None`` for the full form.
    landmarks : sequence of int, optional
        The landmark rows themselves (``m`` distinct indices); default: uniform without
        replacement, the first ``m`` entries of ``check_random_state(random_state).permutation(n)``
        (with ``random_state=42`` these are the landmarks of the Mklaren experiments, shared by
        all kernels).
    random_state : int, RandomState or None
        Seed of the landmark sample.

    Returns
    -------
    LowRankFactor
        ``G``, the landmarks, ``projection`` (m × r) with ``G = C @ projection`` and the
        residual diagonal.

    Notes
    -----
    ``n m`` kernel evaluations, ``O(n m r + m³)`` flops, ``O(n m)`` memory.

    Examples
    --------
    >>> import array_api_strict as xp
    >>> from lrkl.kernels import Gaussian
    >>> X = xp.reshape(xp.linspace(0.0, 1.0, 10), (10, 1))
    >>> f = nystrom(Gaussian(gamma=1.0), X, 4, rank=2, random_state=0)
    >>> f.G.shape, f.projection.shape, len(f.pivots)
    ((10, 2), (4, 2), 4)
    """
    xp = get_namespace(X)
    kernel = _check_kernel(kernel)
    X = check_array(X, name="X", xp=xp)
    n = X.shape[0]
    m = _check_rank(n_landmarks, n, "n_landmarks")
    if rank is not None:
        rank = _check_rank(rank, m, "rank", "n_landmarks")
    if landmarks is None:
        chosen = [int(i) for i in check_random_state(random_state).permutation(n)[:m]]
    else:
        chosen = _check_landmarks(landmarks, n, m)
    return _nystrom(kernel, X, chosen, rank, xp=xp)


def _check_landmarks(landmarks: Sequence[int], n: int, m: int) -> list[int]:
    try:
        chosen = [int(i) for i in landmarks]
        if any(float(i) != float(j) for i, j in zip(chosen, landmarks, strict=True)):
            raise ValueError
    except (TypeError, ValueError):
        msg = f"landmarks must be a sequence of integer row numbers, received {landmarks!r}"
        raise ValueError(msg) from None
    if len(chosen) != m or len(set(chosen)) != m or not all(0 <= i < n for i in chosen):
        msg = (
            f"landmarks must hold n_landmarks={m} distinct row numbers in [0, {n - 1}], "
            f"received {landmarks!r}"
        )
        raise ValueError(msg)
    return chosen


def _nystrom(
    kernel: Kernel, X: Array, chosen: list[int], rank: int | None, *, xp: ModuleType
) -> LowRankFactor:
    dev = device_of(X)
    idx = _index(chosen, xp=xp, device=dev)
    S = xp.take(X, idx, axis=0)
    C = _as_dtype(kernel._evaluate(X, S, xp=xp), X.dtype, xp=xp)  # shape: (n, m)
    W = xp.take(C, idx, axis=0)
    W = 0.5 * (W + xp.matrix_transpose(W))
    s, U = eigh(W, xp=xp)  # ascending
    m = len(chosen)
    if rank is None:
        scale = 1.0 / xp.sqrt(xp.clip(s, min=NYSTROM_EIGENVALUE_FLOOR))
        projection = (U * scale[None, :]) @ xp.matrix_transpose(U)
    else:
        s_top = xp.flip(s[m - rank :], axis=0)
        U_top = xp.flip(U[:, m - rank :], axis=1)
        cutoff = m * xp.finfo(X.dtype).eps * xp.max(xp.abs(s))
        keep = s_top > cutoff
        scale = xp.where(keep, 1.0 / xp.sqrt(xp.where(keep, s_top, xp.ones_like(s_top))), 0.0)
        projection = U_top * scale[None, :]
    G = C @ projection
    residual = _diagonal(kernel, X, xp=xp) - xp.sum(G * G, axis=1)
    return LowRankFactor(
        G=G,
        pivots=tuple(chosen),
        landmarks=S,
        kernel=kernel,
        L=None,
        projection=projection,
        residual=residual,
        method="nystrom",
    )


# --------------------------------------------------------------------------- CSI


def csi(
    kernel: Kernel,
    X: Array,
    y: Array,
    /,
    rank: int,
    *,
    kappa: float = 0.99,
    lookahead: int = 10,
    centering: bool = True,
    tol: float = 1e-10,
    gain_tol: float = 0.0,
) -> LowRankFactor:
    """Cholesky decomposition with side information (Bach & Jordan 2005), MKLAREN.md §8.

    A pivoted incomplete Cholesky factor ``G`` of ``K`` whose pivots are chosen greedily to
    decrease

    ``J(G) = λ tr(K − G Gᵀ) + μ ‖Y − Q Qᵀ Y‖²_F``,  ``λ = (1 − κ)/tr K``,  ``μ = κ/‖Y‖²_F``,

    where ``Q R`` is the thin QR of the (centred, with ``centering``) factor ``P G`` and ``Y`` the
    (centred) targets: the factor explains the kernel *and* the targets.

    The gain of every candidate pivot ``i`` would need its exact new column ``E[:, i]/√d_i``
    (``E`` the residual kernel), ``O(n²)`` kernel values per step. As in Bach & Jordan, ``δ``
    look-ahead columns ``Ĝ`` (further steps of an ordinary pivoted Cholesky) approximate
    ``E ≈ Ĝ Ĝᵀ``; with ``b_i = Ĝ[i]ᵀ`` and ``Q̂ R̂`` the part of ``P Ĝ`` orthogonal to ``Q``:

    - ``ΔJ_K(i) = (b_iᵀ Ĝᵀ Ĝ b_i + η_i) / d_i``, ``η_i = d_i² − (d_i − d̂_i)²`` for ``i`` outside
      the look-ahead (it puts back the exact diagonal ``E_ii = d_i``), 0 inside;
    - ``ΔJ_Y(i) = ‖Yᵀ Q̂ R̂ b_i‖² / ‖R̂ b_i‖²`` (0 when ``R̂ b_i`` vanishes);

    and the pivot maximises ``λ ΔJ_K + μ ΔJ_Y`` over points with ``d_i > tol``. The chosen pivot
    moves to the front of the look-ahead; if it was one of the look-ahead pivots, one more
    look-ahead pivot (largest look-ahead residual ``d̂``) is added, otherwise the look-ahead
    pivots are kept. A Cholesky factor is unique given its pivot order, so instead of
    Bach & Jordan's adjacent transpositions with Givens rotations this implementation recomputes
    the ``δ + 1`` columns in the new order from cached kernel columns: the same factor, at
    ``O(n δ (k + δ))`` flops per step and no new kernel evaluations for kept pivots.

    Parameters
    ----------
    kernel : Kernel
        The kernel to approximate.
    X : array, shape (n, dim)
        Training inputs.
    y : array, shape (n,) or (n, t)
        Targets (side information).
    rank : int
        Number of columns, ``1 ≤ rank ≤ n``.
    kappa : float, default 0.99
        Trade-off ``κ ∈ [0, 1]`` between the kernel (0) and the targets (1).
    lookahead : int, default 10
        Number of look-ahead columns ``δ ≥ 0`` (``δ ≥ n`` makes every predicted gain exact).
    centering : bool, default True
        Centre the factor and the targets in ``J`` (for models with an intercept).
    tol : float, default 1e-10
        Points with residual diagonal ``≤ tol`` are not candidates; stop when none is left.
    gain_tol : float, default 0.0
        Stop after a column whose exact gain ``λ ‖g‖² + μ ‖qᵀ Y‖²`` is below ``gain_tol`` (the
        reference's ``tol``; the Mklaren experiments used 1e-4). The column is kept.

    Returns
    -------
    LowRankFactor
        As :func:`icd`: ``G`` (n × r, ``r ≤ rank``), the pivots in order, ``L = G[pivots]``.

    Notes
    -----
    The choice of each pivot costs ``O(n δ (k + δ + t))``; in total ``O(n r δ (r + δ))`` flops,
    ``O(n (r + δ))`` kernel evaluations and memory. Ties go to the lowest index (the reference
    Octave code prefers earlier indices unless a later one is larger by a factor 1/0.99; that
    quirk is not reproduced).

    Examples
    --------
    >>> import array_api_strict as xp
    >>> from lrkl.kernels import Gaussian
    >>> X = xp.reshape(xp.linspace(-1.0, 1.0, 30), (30, 1))
    >>> f = csi(Gaussian(gamma=2.0), X, X[:, 0] ** 3, 4, lookahead=5)
    >>> f.rank
    4
    """
    xp = get_namespace(X, y)
    kernel = _check_kernel(kernel)
    X = check_array(X, name="X", xp=xp)
    y = check_array(y, name="y", xp=xp, ndim=(1, 2), dtype=X.dtype)
    check_consistent_length(X=X, y=y)
    rank = _check_rank(rank, X.shape[0])
    kappa = _check_nonnegative("kappa", kappa)
    if kappa > 1:
        msg = f"kappa must be in [0, 1], received {kappa!r}"
        raise ValueError(msg)
    if isinstance(lookahead, bool) or not isinstance(lookahead, int) or lookahead < 0:
        msg = f"lookahead must be an integer >= 0, received {lookahead!r}"
        raise ValueError(msg)
    tol = _check_nonnegative("tol", tol)
    gain_tol = _check_nonnegative("gain_tol", gain_tol)
    Y = y[:, None] if y.ndim == 1 else y
    return _csi(kernel, X, Y, rank, kappa, lookahead, bool(centering), tol, gain_tol, xp=xp)


class _ColumnCache:
    """Kernel columns ``K[:, i]`` of the current pivots of the look-ahead, evaluated once each."""

    def __init__(self, kernel: Kernel, X: Array, *, xp: ModuleType) -> None:
        self.kernel, self.X, self.xp = kernel, X, xp
        self.columns: dict[int, Array] = {}

    def get(self, i: int) -> Array:
        if i not in self.columns:
            X, xp = self.X, self.xp
            col = self.kernel._evaluate(X, X[i : i + 1, ...], xp=xp)[:, 0]
            self.columns[i] = _as_dtype(col, X.dtype, xp=xp)
        return self.columns[i]

    def keep(self, pivots: list[int]) -> None:
        wanted = set(pivots)
        for i in [i for i in self.columns if i not in wanted]:
            del self.columns[i]


def _orthogonalise(A: Array, Q: Array, *, xp: ModuleType) -> Array:
    """``(I − Q Qᵀ) A`` for orthonormal ``Q``, applied twice (classical Gram–Schmidt, reorth.)."""
    if Q.shape[1] == 0:
        return A
    for _ in range(2):
        A = A - Q @ (xp.matrix_transpose(Q) @ A)
    return A


def _csi(
    kernel: Kernel,
    X: Array,
    Y: Array,  # shape: (n, t)
    rank: int,
    kappa: float,
    lookahead: int,
    centering: bool,
    tol: float,
    gain_tol: float,
    *,
    xp: ModuleType,
) -> LowRankFactor:
    n, dev, dt = X.shape[0], device_of(X), X.dtype
    if centering:
        Y = Y - xp.mean(Y, axis=0)
    d = _diagonal(kernel, X, xp=xp)
    trace, y_norm2 = float(xp.sum(d)), float(xp.sum(Y * Y))
    lam = (1.0 - kappa) / trace if trace > 0 else 0.0
    mu = kappa / y_norm2 if y_norm2 > 0 else 0.0

    width = min(n, rank + lookahead + 1)
    G = xp.zeros((n, width), dtype=dt, device=dev)  # [0, k) committed, [k, k + δ') look-ahead
    Q = xp.zeros((n, rank), dtype=dt, device=dev)  # orthonormal basis of P G[:, :k]
    Y_res = Y  # (I − Q Qᵀ) P Y, the part of the targets the factor does not explain yet
    cache = _ColumnCache(kernel, X, xp=xp)
    pivots: list[int] = []

    def center(A: Array) -> Array:
        return A - xp.mean(A, axis=0) if centering else A

    def cholesky_block(order: list[int], k: int, d: Array, grow: int) -> tuple[list[int], Array]:
        """Columns ``k, k+1, ...`` for the pivots ``order`` and then ``grow`` greedy pivots."""
        d_adv = xp.asarray(d, copy=True)
        done: list[int] = []
        if order:
            # The committed columns' part of every column at once: one GEMM, not one per column.
            E = xp.stack([cache.get(w) for w in order], axis=1)  # shape: (n, len(order))
            if k > 0:
                rows = xp.take(G, _index(order, xp=xp, device=dev), axis=0)[:, :k]
                E = E - G[:, :k] @ xp.matrix_transpose(rows)
        for j, w in enumerate(order + [-1] * grow):
            if k + len(done) >= width:
                break
            if w < 0:
                w = int(xp.argmax(d_adv))
                if not float(d_adv[w]) > tol:
                    break
                col, start = cache.get(w), 0
            elif done and not float(d_adv[w]) > tol:
                continue  # explained by the new pivot already: no look-ahead column needed
            else:
                col, start = E[:, j], k
            g = _cholesky_column(col, G, d_adv, w, k + len(done), start, xp=xp)
            G[:, k + len(done)] = g
            d_adv = d_adv - g * g
            d_adv[w] = 0.0
            done.append(w)
        return done, d_adv

    window, d_adv = cholesky_block([], 0, d, lookahead)
    for k in range(rank):
        candidate = d > tol
        if not bool(xp.any(candidate)):
            break
        score = _csi_scores(
            G[:, k : k + len(window)], Q[:, :k], Y_res, d, d_adv, lam, mu, center, xp=xp
        )
        score = xp.where(candidate, score, -xp.inf)
        i = int(xp.argmax(score))
        if not float(score[i]) > 0:  # no information (e.g. κ = 1, δ = 0): the ICD pivot
            i = int(xp.argmax(xp.where(candidate, d, -xp.inf)))
        if i in window:
            # d_adv is exactly 0 at the pivots and at the look-ahead pivots.
            order = [i] + [w for w in window if w != i]
            extra = int(xp.argmax(d_adv))
            if float(d_adv[extra]) > tol:
                order.append(extra)
        else:
            order = [i, *window]
        done, d_adv = cholesky_block(order, k, d, 0)
        window = done[1:]
        cache.keep(window)

        g = G[:, k]
        d = d - g * g
        d[i] = 0.0
        pivots.append(i)
        q = _orthogonalise(center(g[:, None]), Q[:, :k], xp=xp)[:, 0]
        norm = xp.sqrt(xp.sum(q * q))
        q = xp.where(norm > 1e-12 * xp.sqrt(xp.sum(g * g)), q / norm, xp.zeros_like(q))
        Q[:, k] = q
        qY = q @ Y_res
        Y_res = Y_res - q[:, None] * qY[None, :]
        if gain_tol > 0:
            gain = lam * float(xp.sum(g * g)) + mu * float(xp.sum(qY * qY))
            if gain < gain_tol:
                break
    r = len(pivots)
    G = xp.asarray(G[:, :r], copy=True)
    return _factor(G, pivots, X, kernel, d, "csi", xp=xp)


def _csi_scores(
    B: Array,  # shape: (n, δ'), the look-ahead columns Ĝ
    Q: Array,  # shape: (n, k), orthonormal basis of the committed centred columns
    Y_res: Array,  # shape: (n, t), (I − Q Qᵀ) P Y
    d: Array,  # shape: (n,), residual diagonal of the committed factor
    d_adv: Array,  # shape: (n,), residual diagonal after the look-ahead columns too
    lam: float,
    mu: float,
    center: Any,
    *,
    xp: ModuleType,
) -> Array:
    """Predicted gains ``λ ΔJ_K(i) + μ ΔJ_Y(i)`` of every point (MKLAREN.md §8, step 2).

    ``η_i = d_i² − (d_i − d̂_i)²`` needs no look-ahead mask: ``d̂`` is exactly 0 at the look-ahead
    pivots, where it gives 0. Without look-ahead (``δ = 0``) ``ΔJ_K(i) = d_i``, the ICD rule.

    ``ΔJ_Y(i) = ‖Yᵀ B⊥ b_i‖² / ‖B⊥ b_i‖²`` with ``B⊥ = (I − QQᵀ) P B = Q̂ R̂`` needs no QR:
    ``B⊥ᵀ P Y = Bᵀ Y_res`` and ``B⊥ᵀ B⊥ = (PB)ᵀ(PB) − (QᵀB)ᵀ(QᵀB)`` (the columns of ``Q`` are
    centred), ``O(n δ (k + δ + t))`` in matrix products.
    """
    eta = d * d - (d - d_adv) ** 2
    safe_d = xp.where(d > 0, d, xp.ones_like(d))
    if B.shape[1] == 0:
        return lam * eta / safe_d
    Bt = xp.matrix_transpose(B)
    gain_K = (xp.sum((B @ (Bt @ B)) * B, axis=1) + eta) / safe_d

    Bc = center(B)
    QB = xp.matrix_transpose(Q) @ B  # shape: (k, δ')
    S = xp.matrix_transpose(Bc) @ Bc - xp.matrix_transpose(QB) @ QB  # B⊥ᵀ B⊥
    num = xp.sum((B @ (Bt @ Y_res)) ** 2, axis=1)
    den = xp.sum((B @ S) * B, axis=1)
    small = den <= 1e-12 * xp.max(den)
    gain_Y = xp.where(small, xp.zeros_like(den), num / xp.where(small, xp.ones_like(den), den))
    return lam * gain_K + mu * gain_Y


# --------------------------------------------------------------------------- centred alignment


def factor_alignment(factors: Sequence[Array], y: Array, /) -> tuple[Array, Array]:
    """Centred-alignment statistics of kernels given by factors ``K_q ≈ G_q G_qᵀ``.

    ``a_q = ⟨P K_q P, y yᵀ⟩_F = ‖G_qcᵀ y‖²`` and ``M_ql = ⟨P K_q P, P K_l P⟩_F =
    ‖G_qcᵀ G_lc‖²_F`` with ``G_qc = P G_q`` the column-centred factors (MKLAREN.md §10,
    low-rank variants); ``y`` of shape ``(n, t)`` uses ``Y Yᵀ``. Costs ``O(n (Σ r_q)²)``, no
    ``n × n`` matrix; with rank-one factors (one feature per kernel) ``M = (G_cᵀ G_c)²``
    elementwise.

    Returns
    -------
    a : array, shape (p,)
    M : array, shape (p, p)
    """
    if len(factors) == 0:
        msg = "factors must hold at least one factor, received an empty sequence"
        raise ValueError(msg)
    xp = get_namespace(y, *factors)
    G = xp.concat([f[:, None] if f.ndim == 1 else f for f in factors], axis=1)
    G = check_array(G, name="factors", xp=xp)
    y = check_array(y, name="y", xp=xp, ndim=(1, 2), dtype=G.dtype)
    check_consistent_length(factors=G, y=y)
    Y = y[:, None] if y.ndim == 1 else y
    sizes = [1 if f.ndim == 1 else f.shape[1] for f in factors]
    Gc = G - xp.mean(G, axis=0)
    gram = xp.matrix_transpose(Gc) @ Gc  # shape: (R, R), R = Σ r_q
    cy = xp.sum((xp.matrix_transpose(Gc) @ Y) ** 2, axis=1)  # shape: (R,)
    bounds = [0]
    for s in sizes:
        bounds.append(bounds[-1] + s)
    p = len(sizes)
    if all(s == 1 for s in sizes):
        return cy, gram * gram
    a = xp.stack([xp.sum(cy[bounds[q] : bounds[q + 1]]) for q in range(p)])
    rows = []
    for q in range(p):
        block = gram[bounds[q] : bounds[q + 1], :] ** 2
        rows.append(xp.stack([xp.sum(block[:, bounds[j] : bounds[j + 1]]) for j in range(p)]))
    return a, xp.stack(rows)


def alignment_weights(a: Array, M: Array, /, method: str) -> Array:
    """Kernel weights of centred-alignment MKL (Cortes, Mohri & Rostamizadeh 2012).

    - ``"align"``: ``η = a / Σ a`` (each kernel on its own; the reference code's form, without
      the ``‖K_c‖_F`` normalisation of ρ);
    - ``"alignf"``: ``η = M⁻¹a / ‖M⁻¹a‖₂``, the unconstrained maximiser of the alignment of
      ``Σ η_q K_qc`` with ``y yᵀ`` (minimum-norm least squares when ``M`` is singular); weights
      may be negative;
    - ``"alignfc"``: ``v* = argmin_{v ≥ 0} vᵀ M v − 2 vᵀ a``, ``η = v* / ‖v*‖₁``: the
      constrained QP, solved exactly by an active-set (Lawson–Hanson) method on the ``p × p``
      system.

    Parameters
    ----------
    a : array, shape (p,)
        ``a_q = ⟨K_qc, y yᵀ⟩_F``.
    M : array, shape (p, p)
        ``M_ql = ⟨K_qc, K_lc⟩_F`` (symmetric positive semi-definite).
    method : {"align", "alignf", "alignfc"}

    Returns
    -------
    array, shape (p,)
        The weights ``η`` (all zero if ``a = 0``).

    Examples
    --------
    >>> import array_api_strict as xp
    >>> a = xp.asarray([1.0, 2.0])
    >>> M = xp.asarray([[1.0, 0.0], [0.0, 4.0]])
    >>> alignment_weights(a, M, "alignfc")
    Array([0.66666667, 0.33333333], dtype=array_api_strict.float64)
    """
    xp = get_namespace(a, M)
    a = check_array(a, name="a", xp=xp, ndim=1)
    M = check_array(M, name="M", xp=xp, dtype=a.dtype)
    p = a.shape[0]
    if tuple(M.shape) != (p, p):
        msg = f"M must have shape ({p}, {p}) to match a, received {tuple(M.shape)}"
        raise ValueError(msg)
    if method == "align":
        total = xp.sum(a)
        return xp.where(total > 0, a / xp.where(total > 0, total, 1.0), 0.0)
    if method == "alignf":
        v = lstsq(M, a, xp=xp)
        norm = xp.sqrt(xp.sum(v * v))
        return xp.where(norm > 0, v / xp.where(norm > 0, norm, 1.0), 0.0)
    if method == "alignfc":
        v = _nonnegative_qp(M, a, xp=xp)
        total = xp.sum(v)
        return xp.where(total > 0, v / xp.where(total > 0, total, 1.0), 0.0)
    msg = f"method must be one of 'align', 'alignf', 'alignfc', received {method!r}"
    raise ValueError(msg)


def _nonnegative_qp(M: Array, a: Array, *, xp: ModuleType) -> Array:
    """``argmin_{v ≥ 0} vᵀ M v − 2 aᵀ v`` by Lawson–Hanson's active-set method on the Gram form.

    ``M = Bᵀ B`` makes this the NNLS problem ``min ‖B v − c‖`` with ``Bᵀ c = a``; the method
    only ever needs ``M`` and ``a``. Each outer step frees the variable with the largest
    negative-gradient entry ``w = a − M v``; the inner loop keeps the free set's least-squares
    solution feasible. It terminates in finitely many steps; the loop runs on the host over
    ``p × p`` data (small and sequential).
    """
    p = a.shape[0]
    v = xp.zeros_like(a)
    scale = max(float(xp.max(xp.abs(a))), float(xp.max(xp.abs(M))))
    if scale == 0.0:
        return v
    eye = xp.eye(p, dtype=a.dtype, device=device_of(a))
    tol = 10 * p * float(xp.finfo(a.dtype).eps) * scale
    free: list[int] = []
    for _ in range(3 * p + 10):
        w = a - M @ v
        for f in free:
            w[f] = -xp.inf
        j = int(xp.argmax(w))
        if not float(w[j]) > tol:
            break
        free.append(j)
        for _ in range(3 * p + 10):
            idx = _index(free, xp=xp, device=device_of(a))
            expand = xp.take(eye, idx, axis=1)  # shape: (p, |free|), v = expand @ v_free
            sub = xp.take(xp.take(M, idx, axis=0), idx, axis=1)
            z = lstsq(sub, xp.take(a, idx), xp=xp)
            if bool(xp.all(z > 0)):
                v = expand @ z
                break
            # Move from v towards z until the first free variable reaches 0; drop those at 0.
            v_free = xp.take(v, idx)
            blocking = z <= 0
            ratio = xp.where(blocking, v_free / xp.where(blocking, v_free - z, 1.0), xp.inf)
            step = xp.min(ratio)
            v_free = v_free + step * (z - v_free)
            dropped = (ratio <= step) | (v_free <= 0)
            v_free = xp.where(dropped, xp.zeros_like(v_free), v_free)
            v = expand @ v_free
            keep = [not bool(dropped[t]) for t in range(len(free))]
            free = [f for f, kept in zip(free, keep, strict=True) if kept]
            if not free:
                break
    return v

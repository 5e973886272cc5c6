"""The Nyström method on uniformly sampled landmarks (Williams & Seeger 2001)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

from sklearn.utils import check_random_state

from lrkl._backend import device_of
from lrkl._distances import neg_squared_distances, stacked_gaussians
from lrkl._executor import at_the_door, executor_for, row_slices
from lrkl._linalg import eigh, indefinite_threshold, sum_each_row
from lrkl._typing import Array
from lrkl.kernels import Gaussian, Kernel, check_kernel
from lrkl.lowrank._cholesky import residual_dtype
from lrkl.lowrank._factor import LowRankFactor, _as_dtype, _check_rank


def landmark_jitter(W: Array, /, *, xp: ModuleType) -> float:
    """``δ = m · ε · ‖W‖_∞`` for the m × m landmark block ``W`` (ε of its dtype): the one
    regularisation ``W + δ I`` of the full Nyström form, which the in-memory features
    (:func:`nystrom`) and the preconditioned-CG solver (:mod:`lrkl.kernel_ridge._pcg`) share, so
    that they solve one problem. ``‖W‖_∞`` (the largest absolute row sum) bounds W's largest
    eigenvalue, and ``m · ε · ‖W‖_∞`` the rounding of its eigenvalues: δ is relative to W's
    scale and at the level of that rounding, where W's directions are noise."""
    m = W.shape[0]
    if m == 0:
        return 0.0
    norm = max(  # by blocks of rows: no m × m temporary (pcg's m reaches 2e4)
        float(xp.max(xp.sum(xp.abs(W[rows, ...]), axis=1))) for rows in row_slices(m, m)
    )
    return m * float(xp.finfo(W.dtype).eps) * norm


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

    - ``rank=None``: ``G = C (W + δI)^{−1/2}`` (n × m), ``C U diag(max(s, 0) + δ)^{−1/2} Uᵀ``
      with ``δ = m · ε · ‖W‖_∞`` (:func:`landmark_jitter`, ε of float64): W regularised at the
      level of its rounding, relative to its scale, as the preconditioned-CG solver's
      ``chol(W + δI)`` is, so that the two solve one problem (earlier versions floored the
      eigenvalues at ``max(m · ε · s_max, 1e-12)``, scikit-learn's ``Nystroem``'s 1e-12);
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
    run, X = at_the_door(X)
    xp = run.xp
    kernel = check_kernel(kernel, X)
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


def _require_psd_landmarks(s: Array, cutoff: Array, *, xp: ModuleType) -> None:
    """Raise if the landmark block ``W`` has an eigenvalue below ``−cutoff``, beyond its
    rounding (:func:`~lrkl.kernel_ridge._solvers.indefinite_threshold`): the kernel matrix is
    then not positive semi-definite, and the pseudo-inverse would silently turn that negative
    curvature into a huge positive one."""
    if bool(s[0] < -cutoff):
        msg = (
            "the kernel matrix is not positive semi-definite: the Nyström landmark block "
            f"K[S, S] has the eigenvalue {float(s[0]):.3g}, beyond the rounding tolerance "
            f"{float(cutoff):.3g}; a kernel (a Precomputed matrix or function in particular) "
            "must give positive semi-definite matrices"
        )
        raise ValueError(msg)


def _nystrom(
    kernel: Kernel,
    X: Array,
    chosen: list[int],
    rank: int | None,
    *,
    xp: ModuleType,
    dtype: Any = None,
) -> LowRankFactor:
    """:func:`nystrom` on trusted inputs, on the rows ``chosen``; the factor ``G`` in ``dtype``
    (``None``: X's), each row block rounded to it as it is made."""
    run = executor_for(X, xp=xp)
    S = run.take(X, chosen)  # the landmarks, in memory
    # The m × m block and its eigenpairs in at least float64 (O(m² d + m³), small against C):
    # in float32 the eigenvectors of W's small eigenvalues are rounding noise, and W^{-1/2}
    # amplifies them in every feature (a float32 fit moved by several times its spread).
    wide = residual_dtype(X.dtype, xp=xp, device=device_of(X))
    S_wide = _as_dtype(S, wide, xp=xp)
    # Already wide: W is evaluated as a cross block k(S, S′), as C = k(X, S) is (not the
    # symmetric product, which rounds differently), so that with a GEMM whose rounding does not
    # depend on the number of rows (OpenBLAS's) W is C's landmark rows bit for bit.
    S_cols = S_wide if wide != X.dtype else xp.asarray(S, copy=True)
    W = _as_dtype(kernel._evaluate(S_wide, S_cols, xp=xp), wide, xp=xp)
    projection = _projection(W, rank, X.dtype, xp=xp)

    def blocks(rows: Array) -> Iterator[Array]:
        yield kernel._evaluate(rows, S_wide, xp=xp)

    (G,), (diagonal,) = _row_pass([kernel], blocks, [projection], X, wide, dtype, xp=xp)
    return LowRankFactor(
        G=G,
        pivots=tuple(chosen),
        landmarks=S,
        kernel=kernel,
        L=None,
        projection=projection,
        residual=diagonal,
        method="nystrom",
    )


def _nystrom_gaussians(
    kernels: list[Gaussian],
    X: Array,
    chosen: list[list[int]],
    ranks: list[int | None],
    *,
    xp: ModuleType,
    dtype: Any = None,
) -> list[LowRankFactor]:
    """:func:`_nystrom` of several Gaussian kernels, kernel ``q`` on the rows ``chosen[q]`` at
    rank ``ranks[q]``, in one pass over the rows, each row block's distances to every kernel's
    landmarks in one GEMM (:func:`gaussian_blocks`)."""
    run = executor_for(X, xp=xp)
    wide = residual_dtype(X.dtype, xp=xp, device=device_of(X))
    shared = all(rows == chosen[0] for rows in chosen)
    S = [run.take(X, rows) for rows in (chosen[:1] if shared else chosen)]
    S_wide = [_as_dtype(S_q, wide, xp=xp) for S_q in S]
    blocks = gaussian_blocks(kernels, S_wide[0] if shared else S_wide, xp=xp)
    # W: the landmarks' own blocks, evaluated as C's rows are (the same expansion, a row count
    # apart), so that W is C's landmark rows up to that GEMM's rounding
    if shared:
        W = [_as_dtype(block, wide, xp=xp) for block in blocks(S_wide[0])]
    else:
        W = [_as_dtype(list(blocks(S_q))[q], wide, xp=xp) for q, S_q in enumerate(S_wide)]
    projections = [
        _projection(W_q, rank, X.dtype, xp=xp) for W_q, rank in zip(W, ranks, strict=True)
    ]
    # held per row: the distances and one kernel's block at a time, or every kernel's block
    # (and its exp off NumPy)
    width = 2 * sum(S_q.shape[0] for S_q in S)
    G, diagonals = _row_pass(kernels, blocks, projections, X, wide, dtype, xp=xp, width=width)
    return [
        LowRankFactor(
            G=G[q],
            pivots=tuple(chosen[q]),
            landmarks=S[0] if shared else S[q],
            kernel=kernel,
            L=None,
            projection=projections[q],
            residual=diagonals[q],
            method="nystrom",
        )
        for q, kernel in enumerate(kernels)
    ]


def _transform_gaussians(factors: list[LowRankFactor], X: Array, dtype: Any, *, xp: ModuleType):
    """The stacked out-of-sample features of the Nyström ``factors`` of several Gaussian kernels
    (:func:`_nystrom_gaussians`'s) in one pass over X's rows, the distances to every kernel's
    landmarks in one GEMM per row block."""
    wide = factors[0].projection.dtype
    shared = all(f.pivots == factors[0].pivots for f in factors)
    landmarks = [_as_dtype(f.landmarks, wide, xp=xp) for f in (factors[:1] if shared else factors)]
    kernels = [f.kernel for f in factors]
    blocks = gaussian_blocks(kernels, landmarks[0] if shared else landmarks, xp=xp)
    projections = [f.projection for f in factors]
    ranks = [P.shape[1] for P in projections]

    def features(rows: Array) -> Array:
        each = blocks(_as_dtype(rows, wide, xp=xp))
        products = [next(each) @ P for P in projections]
        return _as_dtype(xp.concat(products, axis=1), dtype, xp=xp)

    width = 2 * sum(S.shape[0] for S in landmarks)  # as in _nystrom_gaussians
    run = executor_for(X, xp=xp, row_work=width + 2 * sum(ranks))
    return run.map(features, X, tail=(sum(ranks),), dtype=dtype)


def gaussian_blocks(kernels: list[Gaussian], landmarks: Array | list[Array], *, xp: ModuleType):
    """``blocks(rows) → [k_q(rows, S_q)]`` for Gaussian kernels on their landmarks: ``landmarks``
    one array that every kernel shares, or one per kernel.

    Shared: ``−γ_max‖x − s‖²`` in one translation-invariant GEMM expansion
    (:func:`lrkl._distances.neg_squared_distances`, at the largest γ, whose rounding it checks),
    then ``exp`` of it scaled by each kernel's ``γ_q/γ_max ≤ 1``, one kernel's block at a time.
    One per kernel: every kernel's block from one GEMM against all the landmarks
    (:func:`lrkl._distances.stacked_gaussians`), or each kernel's own expansion for a block
    past its limit. Ten kernels' factors of rank 100 on 10⁵ rows, best of three: on two threads
    0.81 s against 1.08 s for a GEMM per kernel at d = 10, 1.13 s against 1.67 s at d = 123;
    on one core 1.05 s against 0.95 s at d = 10 (the block of every kernel's values, held
    at once, leaves the cache), 1.57 s against 1.97 s at d = 123."""
    gammas = [float(k.gamma) for k in kernels]
    top = max(gammas)
    if not isinstance(landmarks, list):

        def shared(rows_wide: Array) -> Iterator[Array]:  # one kernel's block at a time
            distances = neg_squared_distances(rows_wide, landmarks, top, xp=xp)
            for gamma in gammas:
                yield xp.exp(distances * (gamma / top))

        return shared
    stacked = stacked_gaussians(landmarks, gammas, xp=xp)
    bounds = [0]
    for S in landmarks:
        bounds.append(bounds[-1] + S.shape[0])

    def own(rows_wide: Array) -> Iterator[Array]:
        values = None if stacked is None else stacked(rows_wide)
        for q, (kernel, S) in enumerate(zip(kernels, landmarks, strict=True)):
            if values is None:
                yield kernel._evaluate(rows_wide, S, xp=xp)
            else:
                yield values[:, bounds[q] : bounds[q + 1]]

    return own


def _projection(W: Array, rank: int | None, dtype: Any, *, xp: ModuleType) -> Array:
    """The Nyström projection of the landmark block ``W`` (wide): ``(W + δI)^{−1/2}`` for
    ``rank=None``, else ``U_R D_R^{−1/2}`` of W's top ``R`` eigenpairs, directions below the
    rounding of W's dtype dropped; a W indefinite beyond the rounding of ``dtype`` (X's) is
    refused."""
    W = 0.5 * (W + xp.matrix_transpose(W))
    s, U = eigh(W, xp=xp)  # ascending
    m = W.shape[0]
    s_max = xp.max(xp.abs(s))
    _require_psd_landmarks(s, indefinite_threshold(s_max, dtype, xp=xp), xp=xp)
    # C = k(X, S) and its product with the projection are computed in W's dtype (wide) too, and
    # only the features rounded to X's dtype: the projection's large entries (W's small
    # eigenvalues to the power −1/2) would amplify a float32 C's rounding (LowRankMKLClassifier()
    # on float32 data was up to 1.9e-2 of its spread from the float64 fit of the same values,
    # with this floor at float32's m·ε·s_max; 1.6e-6 so). Directions of W below its rounding
    # are noise.
    noise = m * xp.finfo(W.dtype).eps * s_max
    if rank is None:  # W + δI: the problem the pcg solver's chol(W + δI) solves
        zero = xp.zeros((), dtype=s.dtype, device=device_of(s))
        shifted = xp.maximum(s, zero) + landmark_jitter(W, xp=xp)
        positive = shifted > 0  # all but where W = 0 (a kernel zero on the landmarks): G = 0
        scale = xp.where(positive, 1.0 / xp.sqrt(xp.where(positive, shifted, 1.0)), 0.0)
        return (U * scale[None, :]) @ xp.matrix_transpose(U)
    s_top = xp.flip(s[m - rank :], axis=0)
    U_top = xp.flip(U[:, m - rank :], axis=1)
    keep = s_top > noise
    scale = xp.where(keep, 1.0 / xp.sqrt(xp.where(keep, s_top, xp.ones_like(s_top))), 0.0)
    return U_top * scale[None, :]


def _row_pass(
    kernels: list[Kernel],
    blocks,
    projections: list[Array],
    X: Array,
    wide: Any,
    dtype: Any,
    *,
    xp: ModuleType,
    width: int | None = None,
) -> tuple[list[Array], list[Array]]:
    """One pass over X's rows: each kernel's features ``blocks(rows)[q] @ projections[q]`` in
    ``dtype`` (None: X's) and ``diag(K − G Gᵀ)`` in ``wide``; ``width`` landmark columns per
    row block (default: the projections')."""
    dtype = X.dtype if dtype is None else dtype
    ranks = [P.shape[1] for P in projections]
    width = sum(P.shape[0] for P in projections) if width is None else width

    def features(rows: Array) -> tuple[Array, ...]:
        rows_wide = _as_dtype(rows, wide, xp=xp)
        out, residuals = [], []
        each = blocks(rows_wide)  # (not zipped: zip's tuple would hold each block a step on)
        for kernel, P in zip(kernels, projections, strict=True):
            block = next(each)
            G_rows = _as_dtype(block, wide, xp=xp) @ P
            del block  # freed before the next allocations (held on, it cost 30 % in page faults)
            diagonal = _as_dtype(kernel._diag(rows, xp=xp), wide, xp=xp)  # rows checked
            residuals.append(diagonal - sum_each_row(G_rows * G_rows, xp=xp))
            out.append(_as_dtype(G_rows, dtype, xp=xp))
        return (*out, *residuals)

    run = executor_for(X, xp=xp, row_work=width + 3 * sum(ranks))  # blocks, G in two dtypes
    specs = [((r,), dtype) for r in ranks] + [((), wide)] * len(ranks)
    results = run.map_many(features, X, *specs)
    return list(results[: len(ranks)]), list(results[len(ranks) :])

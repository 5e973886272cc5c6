"""Regularised kernel least squares with a bias term (Prato & Zanni 2012): the solver layer.

The model is ``f(x) = Σ_i c_i k(x_i, x) + b``. The paper regularises it in three ways, which give
three different estimates:

- **RLS** with the bias unpenalised, system (7): ``(K + αI) c + b 1 = y``, ``1ᵀc = 0``; with the
  bias penalised, system (8): ``(K + 11ᵀ + αI) c = y``, ``b = 1ᵀc``; or without a bias,
  ``(K + αI) c = y``. One eigendecomposition of ``K`` (or ``K + 11ᵀ``) serves every ``α``:
  ``O(n²)`` per ``α`` after it, and the training residual is ``α c`` (``O(n)``);
- **Tikhonov** on the rectangular system ``K̃ c̃ = y``, ``K̃ = [K 1]``, ``c̃ = (c, b)``:
  ``(K̃ᵀK̃ + αI) c̃ = K̃ᵀy``, from the thin SVD of ``K̃`` with zero singular values skipped; for a
  kernel given as a low-rank factor ``K = G Gᵀ`` the SVD comes from ``G`` in ``O(n r²)``;
- **CGLS** on ``K̃ c̃ = y`` exactly as the paper prints it, the iteration count ``t`` being the
  regularisation parameter; every iterate is kept, so one run gives the whole ``t``-path. The
  products with ``K`` come from a stored matrix or from kernel blocks computed on the fly.

``alpha`` is scikit-learn's: the paper's ``nλ``. Set-up functions build a problem
(``rls_problem``, ``tikhonov_problem``, ``kernel_operator``), ``solve_*`` solves it at one ``α``
and ``*_path`` at a whole grid of them, with the exact leave-one-out errors of every ``α``. With
``bias=False`` Tikhonov and CGLS act on ``K`` alone (the column of ones dropped).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NamedTuple

from lrkl._backend import device_of, get_namespace, require_device_memory
from lrkl._checks import check_number, check_option
from lrkl._executor import executor_for
from lrkl._linalg import eigh, orthogonalise, qr, svd
from lrkl._typing import Array
from lrkl.kernel_ridge._solvers import (
    EighSolver,
    RidgeCoefficients,
    _make_solver,
    _solve_dual,
    _weigh_kernel,
)
from lrkl.kernels import Kernel

__all__ = [
    "BIASES",
    "CGLSPath",
    "KernelOperator",
    "RLSProblem",
    "RegularizationPath",
    "TikhonovProblem",
    "kernel_operator",
    "rls_path",
    "rls_problem",
    "solve_cgls",
    "solve_rls",
    "solve_tikhonov",
    "tikhonov_path",
    "tikhonov_problem",
    "tikhonov_problem_from_factor",
]


#: The bias of RLS: Prato & Zanni's system (7), system (8), or none.
BIASES = ("unpenalized", "penalized", None)


class RegularizationPath(NamedTuple):
    """Fits along a grid of ``m`` values of ``α``: row ``j`` is the fit at the ``j``-th."""

    coef: Array  # shape: (m, n)
    intercept: Array  # shape: (m,)
    loo_mse: Array | None  # shape: (m,), exact leave-one-out mean squared errors (or None)


def _grid(alphas: Sequence[float], like: Array, xp: ModuleType) -> Array:
    """The grid as a row of the dtype and device of ``like``, every value checked ``> 0``."""
    values = [check_number(a, name="alphas", strict=True) for a in alphas]
    return xp.asarray(values, dtype=like.dtype, device=device_of(like))[None, :]


def _loo_mse(residual: Array, one_minus_leverage: Array, xp: ModuleType) -> Array:
    """Mean of ``(r_i / (1 − H_ii))²`` per column; ``1 − H_ii`` floored at the smallest normal
    number (an interpolating fit gets a huge error, not NaN)."""
    tiny = xp.finfo(residual.dtype).smallest_normal
    loo = residual / xp.where(one_minus_leverage > tiny, one_minus_leverage, tiny)
    return xp.mean(loo * loo, axis=0)


# --------------------------------------------------------------------------- RLS, (7) and (8)


class RLSProblem(NamedTuple):
    """An RLS system set up for every ``α``: a solver of ``K`` (bias unpenalised or none) or of
    ``K + 11ᵀ`` (bias penalised), weighted by ``S = diag(√w)`` on both sides for sample
    weights ``w``."""

    solver: Any  # a CholeskySolver (one α) or an EighSolver (paths)
    bias: str | None
    sqrt_weight: Array | None  # shape: (n,)
    xp: ModuleType


def rls_problem(
    K: Array,
    /,
    bias: str | None,
    *,
    solver: str = "eigh",
    sqrt_weight: Array | None = None,
    xp: ModuleType,
) -> RLSProblem:
    """Set up RLS on the kernel matrix ``K`` (n × n) for one of :data:`BIASES`: ``"eigh"``
    (one eigendecomposition for every ``α``, and paths) or ``"cholesky"`` (one ``α``)."""
    check_option(bias, BIASES, name="bias")
    S = K + 1.0 if bias == "penalized" else K  # K + 11ᵀ
    return RLSProblem(
        _make_solver(_weigh_kernel(S, sqrt_weight), solver, xp=xp), bias, sqrt_weight, xp
    )


def solve_rls(problem: RLSProblem, y: Array, alpha: float, /) -> RidgeCoefficients:
    """``(c, b)`` of RLS at ``α``: system (7), (8), or ``(K + αI) c = y`` without a bias.

    ``O(n²)`` after an eigendecomposition (two products with the eigenvectors), ``O(n³/3)``
    with a Cholesky solver. Without weights the training residual ``y − K c − b 1`` is ``α c``
    in all three cases. With weights the system of (8) is ``(S(K + 11ᵀ)S + αI) c̃ = S y``,
    ``c = S c̃`` (as :func:`~lrkl.kernel_ridge.solve_dual` does for (7)).
    """
    alpha = check_number(alpha, name="alpha", strict=True)
    xp, root = problem.xp, problem.sqrt_weight
    if problem.bias == "penalized":
        if root is None:
            coef = problem.solver.solve(y, alpha)
        else:
            scale = root if y.ndim == 1 else root[:, None]
            coef = scale * problem.solver.solve(scale * y, alpha)
        return RidgeCoefficients(coef, xp.sum(coef, axis=0))
    return _solve_dual(
        problem.solver,
        y,
        alpha,
        fit_intercept=problem.bias == "unpenalized",
        xp=xp,
        sqrt_weight=root,
    )


def rls_path(
    problem: RLSProblem, y: Array, alphas: Sequence[float], /, *, loo: bool = True
) -> RegularizationPath:
    """RLS at every ``α`` of ``alphas`` from the problem's eigendecomposition ``Q Λ Qᵀ``, with
    the exact leave-one-out errors (``loo``); ``y`` of shape (n,), no sample weights.

    With ``A = Q (Λ + α)⁻¹ Qᵀ`` every quantity is a product of ``Q`` with an ``n × m`` matrix,
    one GEMM per quantity for the whole grid (``O(n² m)``): ``A y``, ``A 1`` (system (7)) and
    ``diag(A) = (Q∘Q)(Λ + α)⁻¹``. The residual of every system is ``α c``, and ``I − H`` is
    ``α A`` for (8) and no bias, ``α (A − A11ᵀA / 1ᵀA1)`` for (7), so the leave-one-out
    residual is ``c_i / diag(A)_i`` or ``c_i / (diag(A)_i − (A1)_i² / 1ᵀA1)``.
    """
    solver, xp = problem.solver, problem.xp
    if not isinstance(solver, EighSolver) or problem.sqrt_weight is not None:
        msg = "rls_path needs an unweighted problem set up with solver='eigh'"
        raise ValueError(msg)
    Q = solver.U
    n = Q.shape[0]
    grid = _grid(alphas, Q, xp)
    # K is PSD, and eigenvalues within its rounding (k · eps · max|λ|, the solver's cutoff, as
    # the Tikhonov path drops singular values) are zero: a float32 kernel of low rank has
    # eigenvalues of ~1e-6 · max|λ| made of rounding alone, whose directions then entered
    # H = K (K + αI)⁻¹ at α of their size and made a spurious minimum of the leave-one-out
    # errors (KernelRidgeCV(Polynomial(2)) on float32 X chose α = 1.5e-6 where float64 chose
    # 0.61, 6.5 % of the prediction spread apart).
    clipped = xp.where(solver.eigenvalues > solver.cutoff, solver.eigenvalues, 0.0)
    inverse = 1.0 / (clipped[:, None] + grid)  # shape: (n, m)
    Qt = xp.matrix_transpose(Q)
    coef = Q @ (inverse * (Qt @ y)[:, None])  # A y, shape: (n, m)
    if problem.bias == "unpenalized":
        ones = xp.ones(n, dtype=Q.dtype, device=device_of(Q))
        A1 = Q @ (inverse * (Qt @ ones)[:, None])
        total = xp.sum(A1, axis=0)
        intercept = xp.sum(coef, axis=0) / total
        coef = coef - A1 * intercept[None, :]
    elif problem.bias == "penalized":
        intercept = xp.sum(coef, axis=0)
    else:
        intercept = xp.zeros(grid.shape[1], dtype=Q.dtype, device=device_of(Q))
    loo_mse = None
    if loo:
        diag = (Q * Q) @ inverse
        if problem.bias == "unpenalized":
            diag = diag - A1 * A1 / total[None, :]
        loo_mse = _loo_mse(coef, diag, xp)
    return RegularizationPath(xp.matrix_transpose(coef), intercept, loo_mse)


# --------------------------------------------------------------------------- Tikhonov


class TikhonovProblem(NamedTuple):
    """The thin SVD ``K̃ = U diag(s) Vᵀ`` of ``K̃ = [K 1]`` (or of ``K`` without a bias),
    nonzero singular values only."""

    U: Array  # shape: (n, k)
    s: Array  # shape: (k,)
    Vt: Array  # shape: (k, n + 1), or (k, n) without a bias
    sqrt_weight: Array | None = None  # shape: (n,), √w for sample weights w


def _weighted(problem: TikhonovProblem, y: Array) -> Array:
    """``S y``: the right-hand side of the weighted system."""
    if problem.sqrt_weight is None:
        return y
    return problem.sqrt_weight * y if y.ndim == 1 else problem.sqrt_weight[:, None] * y


def _split(c_tilde: Array, n: int) -> RidgeCoefficients:
    """``(c, b)`` of ``c̃`` (rows ``0 … n``); ``b = 0`` when ``c̃`` has no bias row."""
    if c_tilde.shape[0] == n + 1:
        return RidgeCoefficients(c_tilde[:n, ...], c_tilde[n, ...])
    xp = get_namespace(c_tilde)
    return RidgeCoefficients(c_tilde, xp.zeros_like(c_tilde[0, ...]))


def _nonzero(
    U: Array, s: Array, Vt: Array, size: int, sqrt_weight: Array | None, *, xp: ModuleType
) -> TikhonovProblem:
    """The singular triplets (``s`` descending) with ``s > size · eps · max s`` (the others are
    zero up to rounding): views, no copy of ``U`` or ``Vt``."""
    cutoff = size * xp.finfo(s.dtype).eps * float(s[0]) if s.shape[0] else 0.0
    k = int(xp.sum(xp.astype(s > cutoff, xp.int64)))
    return TikhonovProblem(U[:, :k], s[:k], Vt[:k, :], sqrt_weight)


def tikhonov_problem(
    K: Array, /, *, bias: bool = True, sqrt_weight: Array | None = None, xp: ModuleType
) -> TikhonovProblem:
    """Set up Tikhonov on ``K̃ = [K 1]`` (or ``K``) by its thin SVD (``O(n³)``); with sample
    weights ``w`` on ``S K̃``, ``S = diag(√w)`` (the solve then takes ``S y``)."""
    n = K.shape[0]
    if not bias and sqrt_weight is None:  # the caller's K, which the SVD must not destroy
        U, s, Vt = svd(K, xp=xp)
        return _nonzero(U, s, Vt, n, None, xp=xp)
    # K̃ is written as the rows of a new array holding K̃ᵀ: K̃ is then Fortran-ordered, which
    # SciPy hands to LAPACK without a copy, and the SVD may destroy it. The peak is 6 n² with
    # gesdd's workspace of 3 n² (8 n² for a C-ordered K̃ beside K).
    Kt = xp.empty((n + int(bias), n), dtype=K.dtype, device=device_of(K))
    if sqrt_weight is None:
        Kt[:n, :] = xp.matrix_transpose(K)
    else:
        Kt[:n, :] = xp.matrix_transpose(K) * sqrt_weight[None, :]
    if bias:
        Kt[n, :] = 1.0 if sqrt_weight is None else sqrt_weight
    del K  # freed here when the caller passed a temporary (the estimators do)
    U, s, Vt = svd(xp.matrix_transpose(Kt), xp=xp, overwrite=True)
    return _nonzero(U, s, Vt, Kt.shape[0], sqrt_weight, xp=xp)


def tikhonov_problem_from_factor(
    G: Array, /, *, bias: bool = True, sqrt_weight: Array | None = None, xp: ModuleType
) -> TikhonovProblem:
    """Set up Tikhonov on ``K̃ = [G Gᵀ 1]`` (or ``G Gᵀ``) from the factor ``G`` (n × r) in
    ``O(n r²)``, without forming ``n × n``.

    ``K̃ = F H`` with ``F = [G 1]`` and ``H = blockdiag(Gᵀ, 1)`` (``F = G``, ``H = Gᵀ`` without
    a bias). With ``F = Q R`` (thin QR) and the SVD ``R H = W diag(s) Vᵀ`` of an
    ``(r+1) × (n+1)`` matrix, ``K̃ = (Q W) diag(s) Vᵀ``; ``W`` and ``s`` come from
    ``(R H)(R H)ᵀ = R blockdiag(GᵀG, 1) Rᵀ``, ``(r+1) × (r+1)``, and
    ``Vᵀ = diag(1/s) Wᵀ R H``. With sample weights, ``F`` becomes ``S F``.
    """
    n, r = G.shape
    dev = device_of(G)
    extra = int(bias)  # the column of ones
    F = xp.concat([G, xp.ones((n, extra), dtype=G.dtype, device=dev)], axis=1)
    Q, R = qr(F if sqrt_weight is None else sqrt_weight[:, None] * F, xp=xp)
    HHt = xp.zeros((r + extra, r + extra), dtype=G.dtype, device=dev)
    HHt[:r, :r] = xp.matrix_transpose(G) @ G
    if bias:
        HHt[r, r] = 1.0
    w, W = eigh(R @ HHt @ xp.matrix_transpose(R), xp=xp)
    w, W = xp.flip(w), xp.flip(W, axis=1)  # descending, as _nonzero takes them
    s = xp.sqrt(xp.where(w > 0, w, xp.zeros_like(w)))
    W, s, _, _ = _nonzero(W, s, xp.matrix_transpose(W), n + extra, None, xp=xp)
    WtR = xp.matrix_transpose(W) @ R  # shape: (k, r + extra)
    Vt = xp.concat([WtR[:, :r] @ xp.matrix_transpose(G), WtR[:, r:]], axis=1) / s[:, None]
    return TikhonovProblem(Q @ W, s, Vt, sqrt_weight)


def solve_tikhonov(problem: TikhonovProblem, y: Array, alpha: float, /) -> RidgeCoefficients:
    """``c̃ = Σ_{s_i ≠ 0} s_i (u_iᵀy) / (s_i² + α) v_i``, returned as ``(c, b)``: ``O(n k)``."""
    alpha = check_number(alpha, name="alpha", strict=True)
    U, s, Vt = problem.U, problem.s, problem.Vt
    xp = get_namespace(s)
    y = _weighted(problem, y)
    Y = y[:, None] if y.ndim == 1 else y
    scaled = (s / (s * s + alpha))[:, None] * (xp.matrix_transpose(U) @ Y)  # shape: (k, t)
    c_tilde = xp.matrix_transpose(Vt) @ scaled  # shape: (n + 1, t) or (n, t)
    return _split(c_tilde[:, 0] if y.ndim == 1 else c_tilde, U.shape[0])


def tikhonov_path(
    problem: TikhonovProblem, y: Array, alphas: Sequence[float], /, *, loo: bool = True
) -> RegularizationPath:
    """Tikhonov at every ``α`` of ``alphas`` from the one SVD, with the exact leave-one-out
    errors (``loo``); ``y`` of shape (n,).

    Leaving out row ``i`` of ``K̃ c̃ = y`` is leaving out one observation of a ridge regression
    on the rows of ``K̃``, whose hat matrix is ``U diag(s²/(s² + α)) Uᵀ``: its diagonal for
    every ``α`` is ``(U∘U) φ`` with the filter factors ``φ`` (``k × m``), one GEMM.
    """
    if problem.sqrt_weight is not None:
        msg = "tikhonov_path needs an unweighted problem"
        raise ValueError(msg)
    U, s, Vt = problem.U, problem.s, problem.Vt
    xp = get_namespace(s)
    grid = _grid(alphas, s, xp)
    denominator = (s * s)[:, None] + grid  # shape: (k, m)
    Uy = (xp.matrix_transpose(U) @ y)[:, None]
    coef, intercept = _split(xp.matrix_transpose(Vt) @ (s[:, None] / denominator * Uy), U.shape[0])
    loo_mse = None
    if loo:
        filters = (s * s)[:, None] / denominator
        residual = y[:, None] - U @ (filters * Uy)
        loo_mse = _loo_mse(residual, 1.0 - (U * U) @ filters, xp)
    return RegularizationPath(xp.matrix_transpose(coef), intercept, loo_mse)


# --------------------------------------------------------------------------- CGLS


class KernelOperator:
    """Products ``K v`` of the kernel matrix on the training rows: from a stored ``K``, or
    computed on the fly over X's row blocks (:mod:`lrkl._executor`; on Dask one graph per CGLS
    iteration holds both of its products), each in kernel blocks of at most ``max_entries``
    values (memory ``O(max_entries)``, never ``n²``). The vectors (length n) stay in memory.

    Each row block's product sees the whole ``X`` (on Dask gathered on the workers once per
    graph), so that every entry of ``K v`` is summed in the same order whatever the blocks:
    CGLS amplifies rounding, and a sum split over column blocks would move the iterates by 1e-9
    after a few iterations.
    """

    def __init__(
        self,
        *,
        K: Array | None = None,
        kernel: Kernel | None = None,
        X: Array | None = None,
        max_entries: int = 2**24,
        xp: ModuleType,
    ) -> None:
        self.K, self.kernel, self.X, self.max_entries, self.xp = K, kernel, X, max_entries, xp
        self.n = K.shape[0] if K is not None else X.shape[0]
        self.run = executor_for(K if K is not None else X, xp=xp)

    def matvec(self, v: Array) -> Array:
        """``K v`` for ``v`` of shape (n,)."""
        return self.run.compute(self._product(v, self.run.whole(self.X)))[0]

    def _product(self, v: Any, X_all: Any) -> Any:
        """``K v`` (lazily on Dask; ``v`` in memory or a task's result) against ``X_all``."""
        if self.K is not None:
            return self.K @ v
        # a module-level function of the kernel: a task ships neither the operator nor X's graph
        product = functools.partial(_rows_product, self.kernel, self.max_entries)
        return self.run.rows_apply(product, self.X, X_all, v)

    def cgls_step(
        self, d: Array, r: Array, gg: float, *, bias: bool, root: Array | None
    ) -> tuple[float, Array, Array]:
        """One CGLS iteration's two products: ``q = K̃ d``, the step ``‖K̃ᵀr‖² / ‖q‖²``, the new
        residual ``r − step q`` and ``K̃ᵀ`` of it (``K̃ = S [K 1]``, ``S = diag(root)``)."""
        xp, n, run = self.xp, self.n, self.run
        X_all = run.whole(self.X)  # gathered once for both products
        q = self._product(d[:n], X_all)
        update = run.call(_cgls_residual, gg, q, r, d[n] if bias else None, root)
        g = self._product(run.call(_weighted_residual, update, root), X_all)
        (step, r), g = run.compute(update, g)
        weighted = r if root is None else root * r
        return float(step), r, xp.concat([g, xp.reshape(xp.sum(weighted), (1,))]) if bias else g


def _rows_product(kernel: Kernel, max_entries: int, rows: Array, X_all: Array, v: Array) -> Array:
    """``k(rows, X) v``: the rows of ``K v`` of the points ``rows``, in kernel blocks."""
    xp = get_namespace(rows)
    out = xp.zeros(rows.shape[0], dtype=v.dtype, device=device_of(v))
    for part, block in kernel._blocks(rows, X_all, max_entries, xp=xp):
        out[part] = block @ v
    return out


def _cgls_residual(
    gg: float, Kd: Array, r: Array, d_bias: Any, root: Array | None
) -> tuple[float, Array]:
    """CGLS's step ``‖K̃ᵀr‖² / ‖q‖²`` along ``q = K̃ d = S (K d + d_bias)`` and the new residual
    ``r − step q``."""
    q = Kd if d_bias is None else Kd + d_bias
    q = q if root is None else root * q
    qq = float(q @ q)
    # q = 0: the direction is rounding in K̃'s null space (a constant X): no step along it
    step = gg / qq if qq > 0 else 0.0
    return step, r - step * q


def _weighted_residual(update: tuple[float, Array], root: Array | None) -> Array:
    """``S r`` of CGLS's new residual (``K̃ᵀ r = (K S r, 1ᵀ S r)``)."""
    r = update[1]
    return r if root is None else root * r


def kernel_operator(
    X: Array, kernel: Kernel, /, *, store: bool, max_entries: int = 2**24, xp: ModuleType
) -> KernelOperator:
    """Set up the products with ``K = k(X, X)``: stored (one n × n evaluation) or on the fly
    (for a Dask ``X``, one graph per CGLS iteration over its row chunks)."""
    if store:
        return KernelOperator(K=kernel._evaluate(X, X, xp=xp), xp=xp)
    return KernelOperator(kernel=kernel, X=X, max_entries=max_entries, xp=xp)


class CGLSPath(NamedTuple):
    """The CGLS iterates ``t = 1 … n_iter``: row ``t − 1`` of ``coef`` is ``c^(t)``."""

    coef: Array  # shape: (n_iter, n)
    intercept: Array  # shape: (n_iter,)
    residual_norm: Array  # shape: (n_iter,), ‖y − K̃ c̃^(t)‖


def solve_cgls(
    operator: KernelOperator,
    y: Array,
    n_iter: int,
    /,
    *,
    bias: bool = True,
    sqrt_weight: Array | None = None,
) -> CGLSPath:
    """CGLS on ``K̃ c̃ = y`` (``K c = y`` without a ``bias``) from ``c̃^(0) = 0``, as printed by
    Prato & Zanni (their §3), with every iterate kept: two products with ``K`` per iteration.

    ``K̃ d = K d_{:n} + d_n 1`` and ``K̃ᵀ r = (K r, 1ᵀr)`` (``K`` is symmetric). Stops early, with
    the last iterate repeated, if ``K̃ᵀ r`` vanishes to its rounding, ``√(n+1)·ε·‖K̃‖·‖r‖`` with
    ``‖K̃‖`` estimated from below by the products (the least-squares solution is reached; a
    step past it would divide rounding by rounding: a constant X gave coefficients of 1e12).
    With sample weights ``w`` it runs on ``S K̃ c̃ = S y``, ``S = diag(√w)``; ``residual_norm``
    is then the weighted one.

    The normal-equation residuals ``K̃ᵀ r^(t)``, orthogonal in exact arithmetic, are
    reorthogonalised against the earlier ones (as Hansen's ``cgls`` with ``reorth``): a kernel
    matrix is ill-conditioned, plain CGLS loses that orthogonality within ten iterations, and
    its iterates then followed the last bits of the data (moving by 3e-2 of the spread when X
    moved by 1e-16). ``O(n t)`` flops and ``n t`` memory more, against ``O(n²)`` per product.
    """
    if not isinstance(n_iter, int) or isinstance(n_iter, bool) or n_iter < 1:
        msg = f"n_iter must be an integer >= 1, received {n_iter!r}"
        raise ValueError(msg)
    xp = operator.xp
    n = operator.n
    size = n + int(bias)
    require_device_memory(
        n_iter * size * xp.finfo(y.dtype).bits // 8,
        y,
        what=f"solve_cgls keeps every iterate, n_iter = {n_iter} iterates of {size} coefficients",
        advice=f"The least-squares solution is reached within {size + 1} iterations.",
    )
    run_iter = min(n_iter, size + 1)  # then K̃ᵀr is rounding: the later iterates repeat
    root = sqrt_weight
    y = y if root is None else root * y
    c = xp.zeros(size, dtype=y.dtype, device=device_of(y))
    r = y  # y − K̃ c̃^(0)
    weighted = r if root is None else root * r
    g = operator.matvec(weighted)  # K̃ᵀ r^(0)
    g = xp.concat([g, xp.reshape(xp.sum(weighted), (1,))]) if bias else g
    d = g
    gg = float(g @ g)
    # ‖K̃‖ from below (‖K̃ᵀr‖/‖r‖, then ‖K̃d‖/‖d‖ at each step): K̃ᵀr within rounding of it
    # (√size·ε·‖K̃‖·‖r‖) has vanished, and a step along it would divide rounding by rounding
    eps_size = math.sqrt(size) * float(xp.finfo(y.dtype).eps)
    r_norm = math.sqrt(float(r @ r))
    scale = math.sqrt(gg) / r_norm if r_norm > 0 else 0.0
    basis = xp.zeros((run_iter + 1, size), dtype=y.dtype, device=device_of(y))  # K̃ᵀ r^(t)/‖·‖
    if gg > 0:
        basis[0, :] = g / math.sqrt(gg)
    iterates = xp.zeros((n_iter, size), dtype=y.dtype, device=device_of(y))
    norms = xp.zeros(n_iter, dtype=y.dtype, device=device_of(y))
    for i in range(run_iter):
        if gg > 0:
            step, r, g = operator.cgls_step(d, r, gg, bias=bias, root=root)
            if step > 0:
                scale = max(scale, math.sqrt(gg / step / float(d @ d)))
            c = c + step * d
            g = orthogonalise(g, basis[: i + 1, :], xp=xp)
            gg_new = float(g @ g)
            r_norm = math.sqrt(float(r @ r))
            if gg_new <= (eps_size * scale * r_norm) ** 2:
                gg_new = 0.0  # the least-squares solution, to rounding: the iterates stay
            if gg_new > 0:
                basis[i + 1, :] = g / math.sqrt(gg_new)
            d = g + (gg_new / gg) * d
            gg = gg_new
        iterates[i, :] = c
        norms[i] = r_norm
    iterates[run_iter:, :] = c
    norms[run_iter:] = r_norm
    coef, intercept = _split(xp.matrix_transpose(iterates), n)
    return CGLSPath(xp.matrix_transpose(coef), intercept, norms)

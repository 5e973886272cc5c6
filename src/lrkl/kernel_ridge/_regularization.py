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
(``rls_problem``, ``tikhonov_problem``, ``kernel_operator``), ``solve_*`` solves it.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

from lrkl._backend import device_of, get_namespace
from lrkl._checks import check_number, check_option
from lrkl._linalg import eigh, qr, svd
from lrkl.kernel_ridge._solvers import RidgeCoefficients, make_solver, solve_dual
from lrkl.kernels import Kernel

__all__ = [
    "BIASES",
    "CGLSPath",
    "KernelOperator",
    "RLSProblem",
    "TikhonovProblem",
    "kernel_operator",
    "rls_problem",
    "solve_cgls",
    "solve_rls",
    "solve_tikhonov",
    "tikhonov_problem",
    "tikhonov_problem_from_factor",
]

Array = Any

#: The bias of RLS: Prato & Zanni's system (7), system (8), or none.
BIASES = ("unpenalized", "penalized", None)


# --------------------------------------------------------------------------- RLS, (7) and (8)


class RLSProblem(NamedTuple):
    """An RLS system set up for every ``α``: the eigendecomposition of ``K`` (bias unpenalised
    or none) or of ``K + 11ᵀ`` (bias penalised)."""

    solver: Any  # an EighSolver
    bias: str | None
    xp: ModuleType


def rls_problem(K: Array, /, bias: str | None, *, xp: ModuleType) -> RLSProblem:
    """Set up RLS on the kernel matrix ``K`` (n × n) for one of :data:`BIASES`."""
    check_option(bias, BIASES, name="bias")
    S = K + 1.0 if bias == "penalized" else K  # K + 11ᵀ
    return RLSProblem(make_solver(S, "eigh", xp=xp), bias, xp)


def solve_rls(problem: RLSProblem, y: Array, alpha: float, /) -> RidgeCoefficients:
    """``(c, b)`` of RLS at ``α``: system (7), (8), or ``(K + αI) c = y`` without a bias.

    ``O(n²)`` (two products with the eigenvectors). The training residual ``y − K c − b 1`` is
    ``α c`` in all three cases.
    """
    alpha = check_number(alpha, name="alpha", strict=True)
    xp = problem.xp
    if problem.bias == "penalized":
        coef = problem.solver.solve(y, alpha)
        return RidgeCoefficients(coef, xp.sum(coef, axis=0))
    return solve_dual(problem.solver, y, alpha, fit_intercept=problem.bias == "unpenalized", xp=xp)


# --------------------------------------------------------------------------- Tikhonov


class TikhonovProblem(NamedTuple):
    """The thin SVD ``K̃ = U diag(s) Vᵀ`` of ``K̃ = [K 1]``, nonzero singular values only."""

    U: Array  # shape: (n, k)
    s: Array  # shape: (k,)
    Vt: Array  # shape: (k, n + 1)


def _nonzero(U: Array, s: Array, Vt: Array, size: int, *, xp: ModuleType) -> TikhonovProblem:
    """The singular triplets with ``s > size · eps · max s`` (the others are zero up to
    rounding), largest first."""
    order = xp.argsort(s, descending=True)
    U, s, Vt = xp.take(U, order, axis=1), xp.take(s, order), xp.take(Vt, order, axis=0)
    cutoff = size * xp.finfo(s.dtype).eps * float(s[0]) if s.shape[0] else 0.0
    k = int(xp.sum(xp.astype(s > cutoff, xp.int64)))
    return TikhonovProblem(U[:, :k], s[:k], Vt[:k, :])


def tikhonov_problem(K: Array, /, *, xp: ModuleType) -> TikhonovProblem:
    """Set up Tikhonov on ``K̃ = [K 1]`` by its thin SVD (``O(n³)``)."""
    n = K.shape[0]
    ones = xp.ones((n, 1), dtype=K.dtype, device=device_of(K))
    U, s, Vt = svd(xp.concat([K, ones], axis=1), xp=xp)
    return _nonzero(U, s, Vt, n + 1, xp=xp)


def tikhonov_problem_from_factor(G: Array, /, *, xp: ModuleType) -> TikhonovProblem:
    """Set up Tikhonov on ``K̃ = [G Gᵀ 1]`` from the factor ``G`` (n × r) in ``O(n r²)``,
    without forming ``n × n``.

    ``K̃ = F H`` with ``F = [G 1]`` and ``H = blockdiag(Gᵀ, 1)``. With ``F = Q R`` (thin QR) and
    the SVD ``R H = W diag(s) Vᵀ`` of an ``(r+1) × (n+1)`` matrix, ``K̃ = (Q W) diag(s) Vᵀ``;
    ``W`` and ``s`` come from ``(R H)(R H)ᵀ = R blockdiag(GᵀG, 1) Rᵀ``, ``(r+1) × (r+1)``, and
    ``Vᵀ = diag(1/s) Wᵀ R H``.
    """
    n, r = G.shape
    dev = device_of(G)
    ones = xp.ones((n, 1), dtype=G.dtype, device=dev)
    Q, R = qr(xp.concat([G, ones], axis=1), xp=xp)
    HHt = xp.zeros((r + 1, r + 1), dtype=G.dtype, device=dev)
    HHt[:r, :r] = xp.matrix_transpose(G) @ G
    HHt[r, r] = 1.0
    w, W = eigh(R @ HHt @ xp.matrix_transpose(R), xp=xp)
    s = xp.sqrt(xp.where(w > 0, w, xp.zeros_like(w)))
    W, s, _ = _nonzero(W, s, xp.matrix_transpose(W), n + 1, xp=xp)
    WtR = xp.matrix_transpose(W) @ R  # shape: (k, r + 1)
    Vt = xp.concat([WtR[:, :r] @ xp.matrix_transpose(G), WtR[:, r:]], axis=1) / s[:, None]
    return TikhonovProblem(Q @ W, s, Vt)


def solve_tikhonov(problem: TikhonovProblem, y: Array, alpha: float, /) -> RidgeCoefficients:
    """``c̃ = Σ_{s_i ≠ 0} s_i (u_iᵀy) / (s_i² + α) v_i``, returned as ``(c, b)``: ``O(n k)``."""
    alpha = check_number(alpha, name="alpha", strict=True)
    U, s, Vt = problem
    xp = get_namespace(s)
    Y = y[:, None] if y.ndim == 1 else y
    scaled = (s / (s * s + alpha))[:, None] * (xp.matrix_transpose(U) @ Y)  # shape: (k, t)
    c_tilde = xp.matrix_transpose(Vt) @ scaled  # shape: (n + 1, t)
    if y.ndim == 1:
        c_tilde = c_tilde[:, 0]
    return RidgeCoefficients(c_tilde[:-1, ...], c_tilde[-1, ...])


# --------------------------------------------------------------------------- CGLS


class KernelOperator:
    """Products ``K v`` of the kernel matrix on the training rows: from a stored ``K``, or
    computed on the fly in row blocks of at most ``max_entries`` kernel values (memory
    ``O(max_entries)``, never ``n²``)."""

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

    def matvec(self, v: Array) -> Array:
        """``K v`` for ``v`` of shape (n,)."""
        if self.K is not None:
            return self.K @ v
        xp = self.xp
        out = xp.zeros(self.n, dtype=v.dtype, device=device_of(v))
        for rows, block in self.kernel.blocks(self.X, self.X, max_entries=self.max_entries):
            out[rows] = block @ v
        return out


def kernel_operator(
    X: Array, kernel: Kernel, /, *, store: bool, max_entries: int = 2**24, xp: ModuleType
) -> KernelOperator:
    """Set up the products with ``K = k(X, X)``: stored (one n × n evaluation) or on the fly."""
    if store:
        return KernelOperator(K=kernel(X, X), xp=xp)
    return KernelOperator(kernel=kernel, X=X, max_entries=max_entries, xp=xp)


class CGLSPath(NamedTuple):
    """The CGLS iterates ``t = 1 … n_iter``: row ``t − 1`` of ``coef`` is ``c^(t)``."""

    coef: Array  # shape: (n_iter, n)
    intercept: Array  # shape: (n_iter,)
    residual_norm: Array  # shape: (n_iter,), ‖y − K̃ c̃^(t)‖


def solve_cgls(operator: KernelOperator, y: Array, n_iter: int, /) -> CGLSPath:
    """CGLS on ``K̃ c̃ = y`` from ``c̃^(0) = 0``, as printed by Prato & Zanni (their §3), with every
    iterate kept: two products with ``K`` per iteration.

    ``K̃ d = K d_{:n} + d_n 1`` and ``K̃ᵀ r = (K r, 1ᵀr)`` (``K`` is symmetric). Stops early, with
    the last iterate repeated, if ``K̃ᵀ r`` vanishes (the least-squares solution is reached).
    """
    if not isinstance(n_iter, int) or isinstance(n_iter, bool) or n_iter < 1:
        msg = f"n_iter must be an integer >= 1, received {n_iter!r}"
        raise ValueError(msg)
    xp = operator.xp
    n = operator.n

    def K_tilde(d: Array) -> Array:
        return operator.matvec(d[:n]) + d[n]

    def K_tilde_t(r: Array) -> Array:
        return xp.concat([operator.matvec(r), xp.reshape(xp.sum(r), (1,))])

    c = xp.zeros(n + 1, dtype=y.dtype, device=device_of(y))
    r = y  # y − K̃ c̃^(0)
    g = K_tilde_t(r)  # K̃ᵀ r^(i−1)
    d = g
    gg = float(xp.sum(g * g))
    iterates = xp.zeros((n_iter, n + 1), dtype=y.dtype, device=device_of(y))
    norms = xp.zeros(n_iter, dtype=y.dtype, device=device_of(y))
    for i in range(n_iter):
        if gg > 0:
            Kd = K_tilde(d)
            step = gg / float(xp.sum(Kd * Kd))
            c = c + step * d
            r = r - step * Kd
            g = K_tilde_t(r)
            gg_new = float(xp.sum(g * g))
            d = g + (gg_new / gg) * d
            gg = gg_new
        iterates[i, :] = c
        norms[i] = xp.sqrt(xp.sum(r * r))
    return CGLSPath(iterates[:, :n], iterates[:, n], norms)

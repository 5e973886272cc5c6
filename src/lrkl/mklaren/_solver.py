"""Mklaren: multiple kernel learning with least-angle regression (Stražar & Curk 2016).

The pure algorithm over arrays; :class:`lrkl.MklarenRegressor` is the estimator around it. The
mathematics, and which of the paper's and the reference code's choices are followed where the two
disagree, is on the documentation page :ref:`mklaren-math`; equation numbers refer to the paper.

Outline of :func:`solve_mklaren` (``K`` iterations, ``p`` kernels, ``n`` training points):

- every kernel keeps an incomplete Cholesky factor of its own (its exact columns, in the order
  they were selected) and ``δ`` *look-ahead* columns, the next ``δ`` columns of the same pivoted
  Cholesky decomposition (:ref:`mklaren-lookahead`);
- at each iteration the correlations with the residual of every inactive pivot of every kernel are
  *approximated* from the look-ahead columns in ``O(δ)`` each (eqs. 13–16), and the (kernel,
  pivot) that least-angle regression would add next is chosen (eq. 11);
- its exact Cholesky column (eq. 17) is centred, normalised and augmented for the ℓ2 penalty (eq.
  27), and one LAR step is taken on the augmented regression line (eqs. 8–11);
- after the last column joins, the regression line is the ridge fit on the selected columns, and
  ``β`` follows from eq. (18).

The bisector uses a Cholesky factor ``L`` of the Gram matrix ``HᵀH`` that grows by one row per
iteration, ``O(nK + K²)``, the rank-one update the paper suggests (:ref:`mklaren-deviations`);
``Lᵀ`` is also the
``R`` of the thin QR of eq. (18). An iteration costs ``O(npδ + nδ(k_q + δ) + nK)``, linear in
``n`` and ``p``. It reads one integer (the selected kernel and pivot) and one number (a degeneracy
check) back to the host, plus one integer when the look-ahead needs a new pivot; everything else
stays on the arrays' device.

Where :ref:`mklaren-deviations` leaves a choice: the step-length rule, the λ term of the candidate
scores
(``scoring="reference"``) and the look-ahead refresh follow the reference code; the first pivot
maximises ``|c|`` as in the paper (``first_pivot="signed"`` for the code's rule); ties go to the
largest residual diagonal. Where the reference code would fail or pick an active pivot, lrkl
instead takes a plain ICD step (the largest residual diagonal) when no candidate qualifies, stops
early when every kernel's residual is exhausted (below ``1e-10`` of its largest diagonal entry)
or when a new column lies in the span of the previous ones, and handles ``K = 1``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import NamedTuple

from lrkl._backend import device_of, index_array
from lrkl._linalg import qr, solve_triangular
from lrkl._typing import Array
from lrkl.kernels import Kernel
from lrkl.lowrank._cholesky import (
    KernelColumns,
    _diagonal,
    lookahead_columns,
    pivot_amplification,
    remove_column,
    residual_tolerance,
)
from lrkl.lowrank._factor import _cholesky_features

__all__ = [
    "FIRST_PIVOT_RULES",
    "LAMBDA_SCORINGS",
    "MklarenFit",
    "candidate_correlations",
    "chol_blocks",
    "dual_coefficients",
    "kernel_columns",
    "kernel_weights",
    "mklaren_predict",
    "out_of_sample_features",
    "solve_mklaren",
]


#: ``"abs"``: the first pivot maximises ``|c_i|`` (LAR, the paper); ``"signed"``: it maximises
#: ``c_i`` and must be positive (the reference code).
FIRST_PIVOT_RULES = ("abs", "signed")
#: ``"reference"``: the code's ℓ2 term in the candidate scores (§4, §12.7); ``"consistent"``: the
#: scores of the exact augmented columns, ``b·v_r / (√(b M b) √(1 + λ))``.
LAMBDA_SCORINGS = ("reference", "consistent")

# Kernels whose largest candidate correlation is below this do not propose a pivot (reference).
_MIN_CORRELATION = 1e-12
# Relative width of a tie between candidate scores; ties go to the largest residual diagonal.
_TIE_RTOL = 1e-9
# Residual diagonal entries at or below this count as exhausted: the default tol of ICD and CSI.
_RESIDUAL_TOL = 1e-10
# A new column whose Gram pivot 1 − ‖l‖² is below this lies in the span of the previous ones.
_MIN_GRAM_PIVOT = 1e-10


class MklarenFit(NamedTuple):
    """The result of :func:`solve_mklaren`.

    ``K'`` is the number of columns actually selected: the requested rank unless every kernel ran
    out of pivots or a new column lay in the span of the previous ones.
    """

    bias: Array  # shape: (), the training mean of y
    columns: Array  # shape: (n, K'), raw Cholesky columns g_t in the order of selection
    kernel_of: tuple[int, ...]  # kernel index of column t
    pivot_of: tuple[int, ...]  # training row (pivot) of column t
    col_mean: Array  # shape: (K',), mean of g_t over the training points
    col_norm: Array  # shape: (K',), ‖P g_t‖, the norm of the centred column
    beta: Array  # shape: (K',), β* of eq. (18), on the augmented unit columns
    fitted: Array  # shape: (n,), bias + μ[:n], the training fit
    alpha: float  # the ℓ2 parameter λ the fit used


class _KernelState:
    """Incomplete Cholesky state of one kernel: pivots, residual diagonal, look-ahead pivots."""

    def __init__(self, kernel: Kernel, X: Array, *, xp: ModuleType) -> None:
        diag = _diagonal(kernel, X, xp=xp)  # in residual_dtype: float32 pivots would tie
        # ICD's and CSI's tolerance rule: residuals at or below it are exhausted, exactly 0.
        self.tol = residual_tolerance(_RESIDUAL_TOL, diag, X.dtype, xp=xp)
        self.d = xp.where(diag > self.tol, diag, xp.zeros_like(diag))  # shape: (n,), 0 at pivots
        self.pivots: list[int] = []  # S, in order of selection
        self.columns: list[int] = []  # indices t of its columns in the combined matrix
        self.lookahead: list[int] = []  # W, the pivots of the look-ahead columns
        # A negative residual beyond its rounding, amplified by the pivots that were not the
        # largest residual, proves the kernel matrix is not PSD (remove_column's check_psd).
        self.check_psd = not kernel.psd_by_construction  # a closed-form kernel needs no check
        self.amplification = 1.0
        # Kernel columns K[:, w] of the look-ahead pivots: a refresh re-uses all but one.
        self.kernel_columns = KernelColumns(kernel, X, xp=xp)


# --------------------------------------------------------------------------- candidate scores


def candidate_correlations(
    lookahead: Array,  # shape: (p, δ, n), look-ahead Cholesky columns of every kernel
    r: Array,  # shape: (n + K,), augmented residual
    u: Array,  # shape: (n + K,), augmented bisector
    *,
    alpha: float,
    scoring: str = "reference",
    xp: ModuleType,
) -> tuple[Array, Array, Array]:
    """Approximate correlations ``c`` with ``r`` and ``a`` with ``u`` of every candidate column.

    Candidate ``i`` of kernel ``q`` is the unit, centred, ℓ2-augmented version of its next
    Cholesky column, approximated from the look-ahead columns ``Ĝ = lookahead[q]ᵀ`` as
    ``Ĝ bᵢ`` with ``bᵢ = Ĝ[i, :]`` (eq. 13; the factor ``1/√dᵢ`` cancels in the
    normalisation). With ``M = ĜᵀPĜ``, ``v_r = ĜᵀPr`` and ``v_u = ĜᵀPu`` (eqs. 14–16):

    - ``scoring="reference"`` (:ref:`mklaren-lookahead`): ``N = √(bᵀMb + λ(1 − 1/(n+K)))``,
      ``c = (bᵀv_r − √λ r̄)/N``, ``a = (bᵀv_u − √λ ū)/N`` with means over all ``n + K`` entries;
    - ``scoring="consistent"`` (:ref:`mklaren-deviations`): ``N = √(bᵀMb)``, ``c =
      bᵀv_r/(N√(1+λ))``, likewise ``a``.

    When the look-ahead spans the whole residual kernel (``δ`` at least its rank) these are the
    exact correlations. Candidates with ``N = 0`` get ``c = a = 0``. Costs ``O(npδ²)``; inside
    :func:`solve_mklaren` the ``bᵀMb`` of kernels whose look-ahead did not change are re-used and
    an iteration costs ``O(npδ)``.

    Returns
    -------
    c, a, norm : arrays of shape (p, n)
        The correlations and the norm ``N`` (0 marks a candidate without a direction).
    """
    total = r.shape[0]
    p = lookahead.shape[0]
    quad = xp.stack([_quadratic_form(lookahead[q, ...], xp=xp) for q in range(p)], axis=0)
    num_r, num_u = _projections(lookahead, r, u, xp=xp)
    return _correlations(quad, num_r, num_u, r, u, alpha=alpha, scoring=scoring, total=total, xp=xp)


def _quadratic_form(look: Array, *, xp: ModuleType) -> Array:
    """``bᵢᵀ M bᵢ = ‖P Ĝ bᵢ‖²`` for every row ``bᵢ`` of one kernel's look-ahead ``Ĝᵀ (δ, n)``."""
    n = look.shape[1]
    mean = xp.mean(look, axis=1)
    centred = look @ xp.matrix_transpose(look) - n * (mean[:, None] * mean[None, :])  # M
    return xp.sum((centred @ look) * look, axis=0)


def _projections(lookahead: Array, r: Array, u: Array, *, xp: ModuleType) -> tuple[Array, Array]:
    """``bᵢᵀ ĜᵀP r`` and ``bᵢᵀ ĜᵀP u`` for every row and kernel, ``(p, n)`` each, ``O(npδ)``.

    Two batched products over the kernels, ``ĜᵀP[r, u]`` (``(δ, n) @ (n, 2)``) and then
    ``(2, δ) @ (δ, n)``: BLAS-friendly with the look-ahead stored as ``(p, δ, n)``.
    """
    n = lookahead.shape[2]
    v = xp.stack([r[:n], u[:n]], axis=1)
    v = v - xp.mean(v, axis=0)
    proj = xp.matmul(lookahead, v)  # shape: (p, δ, 2)
    out = xp.matmul(xp.matrix_transpose(proj), lookahead)  # shape: (p, 2, n)
    return out[:, 0, :], out[:, 1, :]


def _correlations(
    quad: Array,
    num_r: Array,
    num_u: Array,
    r: Array,
    u: Array,
    *,
    alpha: float,
    scoring: str,
    total: int,
    xp: ModuleType,
) -> tuple[Array, Array, Array]:
    quad = xp.clip(quad, min=0.0)
    if scoring == "reference":
        root = math.sqrt(alpha)
        num_r = num_r - root * xp.mean(r)
        num_u = num_u - root * xp.mean(u)
        norm = xp.sqrt(quad + alpha * (1.0 - 1.0 / total))
        scale = norm
    else:
        norm = xp.sqrt(quad)
        scale = norm * math.sqrt(1.0 + alpha)
    ok = norm > 0
    safe = xp.where(ok, scale, xp.ones_like(scale))
    zero = xp.zeros_like(quad)
    return xp.where(ok, num_r / safe, zero), xp.where(ok, num_u / safe, zero), norm


def _step_lengths(c: Array, a: Array, big_c: Array, big_a: Array, *, xp: ModuleType) -> Array:
    """LAR step ``min(γ⁻, γ⁺)`` under the reference's min⁺ rule (:ref:`mklaren-lar`, §12.6).

    ``γ⁻ = (C − c)/(A − a)``, ``γ⁺ = (C + c)/(A + a)``; a ratio whose denominator is ``≤ 0`` or
    whose value is exactly 0 is discarded (``+∞``); negative ratios are kept, because with
    approximate candidates ``c > C`` happens and only a backward step keeps the active
    correlations equal.
    """
    inf = xp.full_like(c, math.inf)
    out = inf
    for num, den in ((big_c - c, big_a - a), (big_c + c, big_a + a)):
        ok = den > 0
        ratio = num / xp.where(ok, den, xp.ones_like(den))
        out = xp.minimum(out, xp.where(ok & (ratio != 0), ratio, inf))
    return out


def _select(
    score: Array,  # shape: (p, n), smaller is better, +inf for candidates that do not qualify
    d: Array,  # shape: (p, n), residual diagonals
    *,
    xp: ModuleType,
) -> tuple[int, int] | None:
    """``(kernel, pivot)`` of the selected candidate, or ``None`` when there is none.

    Within a kernel, scores within ``_TIE_RTOL`` of its best tie and the largest residual
    diagonal wins (§12.9: with ``δ = 1`` all candidates of a kernel tie exactly); across kernels
    the smallest score wins and the first kernel on a tie. When no score is finite, the candidate
    with the largest residual diagonal is taken (a plain ICD step: nothing is left to explain, the
    approximation still improves). Computed on the device; one integer is read back.
    """
    p, n = score.shape
    best = xp.min(score, axis=1)  # shape: (p,)
    finite = xp.isfinite(best)
    width = _TIE_RTOL * xp.where(finite, xp.abs(best), xp.zeros_like(best)) + 1e-300
    ties = (score <= (best + width)[:, None]) & xp.isfinite(score)
    neg = xp.full_like(d, -math.inf)
    pivot_q = xp.argmax(xp.where(ties, d, neg), axis=1)  # shape: (p,)
    kernel = xp.argmin(best)
    chosen = kernel * n + xp.take(pivot_q, kernel[None], axis=0)[0]
    flat_d = xp.reshape(d, (p * n,))  # kernel-major: the first kernel wins ties
    fallback = xp.argmax(flat_d)
    none = xp.full_like(fallback, -1)
    idx = int(xp.where(xp.any(finite), chosen, xp.where(xp.max(flat_d) > 0, fallback, none)))
    return None if idx < 0 else divmod(idx, n)


# --------------------------------------------------------------------------- Cholesky steps


def _refresh(
    state: _KernelState, exact: Array, pivot: int, delta: int, *, xp: ModuleType
) -> tuple[Array, Array]:
    """Exact column at ``pivot`` and the new look-ahead of one kernel (§4, update steps 1–2).

    As the reference code does (:ref:`mklaren-deviations`): the old look-ahead pivots are kept in
    their order behind the new pivot; if the new pivot was one of them, one pivot is appended,
    the largest residual diagonal *before* the update outside ``S ∪ W``.
    """
    old = state.lookahead
    order = [pivot, *(w for w in old if w != pivot)]
    if pivot in old:
        masked = xp.asarray(state.d, copy=True)
        for w in old:
            masked[w] = -math.inf
        extra = int(xp.argmax(masked))
        if float(masked[extra]) > 0:
            order.append(extra)
    cols, pivots, _ = lookahead_columns(
        state.kernel_columns, exact, state.d, order, delta + 1, state.tol, xp=xp
    )
    state.lookahead = pivots[1:]
    state.kernel_columns.keep(state.lookahead)
    return cols[:, 0], cols[:, 1:]


# --------------------------------------------------------------------------- the algorithm


def solve_mklaren(
    kernels: Sequence[Kernel],
    X: Array,  # shape: (n, dim), validated
    y: Array,  # shape: (n,), validated
    n_components: int,
    *,
    lookahead: int = 10,
    alpha: float = 0.0,
    first_pivot: str = "abs",
    scoring: str = "reference",
    callback: Callable[[int, int, int, Array], None] | None = None,
    xp: ModuleType,
) -> MklarenFit:
    """Mklaren on validated arrays (:ref:`mklaren-algorithm`).

    Parameters
    ----------
    kernels : sequence of Kernel
        The ``p`` kernels, all evaluated on ``X``.
    X : array, shape (n, dim)
        Training inputs, finite and floating.
    y : array, shape (n,)
        Training targets in the dtype of ``X``.
    n_components : int
        Total rank ``K``: the number of iterations, i.e. of Cholesky columns over all kernels.
    lookahead : int
        Look-ahead ``δ``: the number of further Cholesky columns per kernel that approximate the
        candidates.
    alpha : float
        ℓ2 parameter ``λ ≥ 0`` (augmentation, §5).
    first_pivot : {"abs", "signed"}
        See :data:`FIRST_PIVOT_RULES`.
    scoring : {"reference", "consistent"}
        See :data:`LAMBDA_SCORINGS`.
    callback : callable, optional
        Called after iteration ``t`` as ``callback(t, kernel, pivot, fitted)`` with the training
        fit ``bias + μ[:n]`` at that point (the LAR knot where column ``t + 1`` enters).
    xp : namespace
        The array namespace of ``X`` and ``y``.

    Returns
    -------
    MklarenFit
    """
    n = X.shape[0]
    dtype, device = X.dtype, device_of(X)
    total = n + n_components
    bias = xp.mean(y)
    r = xp.zeros(total, dtype=dtype, device=device)
    r[:n] = y - bias
    mu = xp.zeros_like(r)
    u = xp.zeros_like(r)
    Ht = xp.zeros((n_components, total), dtype=dtype, device=device)  # Hᵀ: row t is column h_t
    L = xp.zeros((n_components, n_components), dtype=dtype, device=device)  # Cholesky factor of HᵀH
    columns_t = xp.zeros((n_components, n), dtype=dtype, device=device)  # raw column g_t in row t
    col_mean = xp.zeros(n_components, dtype=dtype, device=device)
    col_norm = xp.zeros(n_components, dtype=dtype, device=device)
    scale = 1.0 / math.sqrt(1.0 + alpha)
    aug = math.sqrt(alpha) * scale

    states = [_KernelState(kernel, X, xp=xp) for kernel in kernels]
    empty = xp.zeros((n, 0), dtype=dtype, device=device)
    looks = []
    for state in states:
        cols, state.lookahead, _ = lookahead_columns(
            state.kernel_columns, empty, state.d, [], lookahead, state.tol, xp=xp
        )
        looks.append(cols)
    ahead = xp.stack([xp.matrix_transpose(look) for look in looks], axis=0)  # (p, δ, n)
    del looks
    # bᵀMb changes only for the kernel whose look-ahead is refreshed.
    quad = xp.stack([_quadratic_form(ahead[q, ...], xp=xp) for q in range(len(kernels))])
    d = xp.stack([state.d for state in states], axis=0)  # shape: (p, n)
    big_c = big_a = None
    kernel_of: list[int] = []
    pivot_of: list[int] = []

    for t in range(n_components):
        num_r, num_u = _projections(ahead, r, u, xp=xp)
        c, a, norm = _correlations(
            quad, num_r, num_u, r, u, alpha=alpha, scoring=scoring, total=total, xp=xp
        )
        eligible = (d > 0) & (norm > 0)
        proposes = xp.max(xp.where(eligible, xp.abs(c), xp.zeros_like(c)), axis=1)
        eligible = eligible & (proposes > _MIN_CORRELATION)[:, None]
        if t == 0:
            value = xp.abs(c) if first_pivot == "abs" else c
            score = xp.where(eligible & (value > 0), -value, xp.full_like(c, math.inf))
        else:
            gamma = _step_lengths(c, a, big_c, big_a, xp=xp)
            score = xp.where(eligible, gamma, xp.full_like(gamma, math.inf))
        chosen = _select(score, d, xp=xp)
        if chosen is None:
            break  # every kernel is exhausted: its residual diagonal is zero
        q, pivot = chosen
        state = states[q]
        exact = xp.matrix_transpose(_take_rows(columns_t, state.columns, xp=xp))
        g, new_look = _refresh(state, exact, pivot, lookahead, xp=xp)

        # The new unit column h_t = [P g/‖P g‖; √λ e_t]/√(1 + λ) (eqs. 4 and 27).
        g_mean = xp.mean(g)
        g_norm = xp.linalg.vector_norm(g - g_mean)
        h = xp.zeros(total, dtype=dtype, device=device)
        h[:n] = (g - g_mean) * (scale / xp.where(g_norm > 0, g_norm, xp.ones_like(g_norm)))
        h[n + t] = aug
        cross = Ht[:t, :] @ h  # shape: (t,)
        row = solve_triangular(L[:t, :t], cross, xp=xp, lower=True) if t > 0 else cross
        pivot2 = xp.sum(h * h) - xp.sum(row * row)
        if not bool((g_norm > 0) & (pivot2 > _MIN_GRAM_PIVOT)):
            break  # the column adds no direction: with λ = 0 the Gram matrix would be singular

        # Commit the column to the kernel's decomposition (§4, update step 3).
        if state.check_psd:  # a reduction and a read-back: only where a check is due
            state.amplification = pivot_amplification(state.amplification, state.d, pivot, xp=xp)
        check = state.check_psd and math.isfinite(state.amplification)
        state.d = remove_column(
            state.d, g, pivot, state.tol, xp=xp, check_psd=check, amplification=state.amplification
        )
        d[q, :] = state.d
        state.pivots.append(pivot)
        state.columns.append(t)
        ahead[q, :, :] = xp.matrix_transpose(new_look)
        quad[q, :] = _quadratic_form(ahead[q, ...], xp=xp)
        columns_t[t, :] = g
        col_mean[t] = g_mean
        col_norm[t] = g_norm
        Ht[t, :] = h
        L[t, :t] = row
        L[t, t] = xp.sqrt(pivot2)
        kernel_of.append(q)
        pivot_of.append(pivot)

        if t > 0:
            # Step along the old bisector until the new column is as correlated as the others.
            corr = Ht[: t + 1, :] @ r
            a_new = xp.sum(h * u)[None]
            big_c = xp.max(xp.abs(corr[:t]))
            gamma = _step_lengths(corr[t:], a_new, big_c, big_a, xp=xp)[0]
            gamma = xp.where(xp.isfinite(gamma), gamma, xp.zeros_like(gamma))
            mu = mu + gamma * u
            r = r - gamma * u
        u, big_a, big_c = _bisector(Ht[: t + 1, :], L[: t + 1, : t + 1], r, xp=xp)
        if t == n_components - 1:
            mu = mu + (big_c / big_a) * u
            r = r - (big_c / big_a) * u
        if callback is not None:
            callback(t, q, pivot, bias + mu[:n])

    used = len(kernel_of)
    if 0 < used < n_components:
        # Stopped early: finish with the least-squares step on the columns that were selected.
        mu = mu + (big_c / big_a) * u
    beta = _coefficients(Ht[:used, :], L[:used, :used], mu, xp=xp)
    return MklarenFit(
        bias=bias,
        columns=xp.matrix_transpose(columns_t[:used, :]),
        kernel_of=tuple(kernel_of),
        pivot_of=tuple(pivot_of),
        col_mean=col_mean[:used],
        col_norm=col_norm[:used],
        beta=beta,
        fitted=bias + mu[:n],
        alpha=float(alpha),
    )


def _bisector(
    Ht: Array,  # shape: (t, n + K), active unit columns as rows
    L: Array,  # shape: (t, t), Cholesky factor of HᵀH
    r: Array,
    *,
    xp: ModuleType,
) -> tuple[Array, Array, Array]:
    """Equiangular unit vector ``u``, its correlation ``A`` and ``C = max|Hᵀr|`` (eq. 10).

    With the signs ``s = sign(Hᵀr)``: ``z = (HᵀH)⁻¹s``, ``A = (sᵀz)^(−1/2)``, ``u = A H z``
    (the signed Gram matrix ``diag(s) HᵀH diag(s)`` needs no factor of its own). Two
    triangular solves with the factor kept up to date, ``O(t² + (n + K)t)``.
    """
    corr = Ht @ r
    s = xp.where(corr >= 0, xp.ones_like(corr), -xp.ones_like(corr))
    half = solve_triangular(L, s, xp=xp, lower=True)
    z = solve_triangular(L, half, xp=xp, lower=True, trans=True)
    big_a = 1.0 / xp.sqrt(xp.sum(s * z))
    u = big_a * (z @ Ht)
    return u, big_a, xp.max(xp.abs(corr))


def _coefficients(Ht: Array, L: Array, mu: Array, *, xp: ModuleType) -> Array:
    """``β* = R⁻¹Qᵀμ`` of eq. (18) for the thin QR ``H = QR``.

    ``R = Lᵀ`` is the factor of ``HᵀH = LLᵀ`` kept up to date during the iterations (the R of
    the thin QR up to the signs of its rows, which cancel), so ``β* = L⁻ᵀL⁻¹Hᵀμ`` costs
    ``O((n + K)K)`` instead of a new ``O((n + K)K²)`` factorisation.
    """
    if Ht.shape[0] == 0:
        return xp.zeros(0, dtype=mu.dtype, device=device_of(mu))
    half = solve_triangular(L, Ht @ mu, xp=xp, lower=True)
    return solve_triangular(L, half, xp=xp, lower=True, trans=True)


# --------------------------------------------------------------------------- prediction


def _take_rows(A: Array, rows: Sequence[int], *, xp: ModuleType) -> Array:
    """``A[rows, :]`` for a host list of row indices (possibly empty)."""
    if not rows:
        return A[:0, :]
    return xp.take(A, index_array(rows, xp=xp, device=device_of(A)), axis=0)


def _take_columns(A: Array, cols: Sequence[int], *, xp: ModuleType) -> Array:
    """``A[:, cols]`` for a host list of column indices (possibly empty)."""
    if not cols:
        return A[:, :0]
    return xp.take(A, index_array(cols, xp=xp, device=device_of(A)), axis=1)


def kernel_columns(fit: MklarenFit, q: int) -> list[int]:
    """Indices ``t`` of the columns of kernel ``q``, in the order of selection."""
    return [t for t, k in enumerate(fit.kernel_of) if k == q]


def out_of_sample_features(
    kernels: Sequence[Kernel],
    pivot_X: Sequence[Array],  # per kernel, shape: (k_q, dim), the training rows at its pivots
    chol: Sequence[Array],  # per kernel, shape: (k_q, k_q), L_q = G_q[S_q, :]
    Xnew: Array,  # shape: (m, dim)
    *,
    xp: ModuleType,
) -> list[Array]:
    """Cholesky features ``g_q(x) = L_q⁻¹ k_q(S_q, x)`` of new points (eqs. 19–21), per kernel.

    ``L_q`` is the factor's pivot block, lower triangular in pivot order with
    ``L_q L_qᵀ = K_SS``: one triangular solve (:func:`lrkl.lowrank.cholesky_features`),
    ``O(k_q²)`` per point. For a training point the result is its row of the training factor.
    """
    return [
        _cholesky_features(kernel, Xs, Lq, Xnew, xp=xp)
        for kernel, Xs, Lq in zip(kernels, pivot_X, chol, strict=True)
    ]


def _unit_weights(fit: MklarenFit) -> Array:
    """``β'_t = β*_t / (‖Pg_t‖√(1+λ))``: the weights of the raw (centred) Cholesky columns."""
    return fit.beta / (fit.col_norm * math.sqrt(1.0 + fit.alpha))


def mklaren_predict(
    fit: MklarenFit,
    features: Sequence[Array],  # per kernel, shape: (m, k_q), from out_of_sample_features
    *,
    xp: ModuleType,
) -> Array:
    """``ŷ(x) = ȳ + Σ_t z_t(x) β*_t`` with ``z_t = (g_t(x) − ḡ_t)/(‖Pg_t‖√(1+λ))`` (eq. 22)."""
    m = features[0].shape[0]
    out = xp.zeros(m, dtype=fit.beta.dtype, device=device_of(fit.beta)) + fit.bias
    weights = _unit_weights(fit)
    for q, feats in enumerate(features):
        cols = kernel_columns(fit, q)
        if not cols:
            continue
        idx = index_array(cols, xp=xp, device=device_of(fit.beta))
        centred = feats - xp.take(fit.col_mean, idx)[None, :]
        out = out + xp.matmul(centred, xp.take(weights, idx))
    return out


def chol_blocks(fit: MklarenFit, n_kernels: int, *, xp: ModuleType) -> list[Array]:
    """``L_q = G_q[S_q, :]`` for every kernel (lower triangular in the order of its pivots)."""
    out = []
    for q in range(n_kernels):
        cols = kernel_columns(fit, q)
        Gq = _take_columns(fit.columns, cols, xp=xp)
        rows = index_array([fit.pivot_of[t] for t in cols], xp=xp, device=device_of(fit.columns))
        out.append(xp.take(Gq, rows, axis=0))
    return out


def kernel_weights(fit: MklarenFit, n_kernels: int, *, xp: ModuleType) -> Array:
    """``‖G_q β'_q‖`` per kernel: the size of each kernel's part of the training fit."""
    weights = _unit_weights(fit)
    parts = []
    for q in range(n_kernels):
        cols = kernel_columns(fit, q)
        beta_q = xp.take(weights, index_array(cols, xp=xp, device=device_of(weights)))
        parts.append(xp.linalg.vector_norm(_take_columns(fit.columns, cols, xp=xp) @ beta_q))
    return xp.stack(parts)


def dual_coefficients(fit: MklarenFit, n_kernels: int, *, xp: ModuleType) -> Array:
    """Least-norm dual coefficients ``α_q`` of every kernel (eqs. 23–25), shape ``(p, n)``.

    With ``β'_q = β*_q / (‖Pg_t‖√(1+λ))`` the training fit is ``const + Σ_q G_q β'_q``, and
    ``α_q = G_q (G_qᵀG_q)⁻¹ β'_q`` is the smallest ``α_q`` with ``G_qᵀα_q = β'_q``, so that
    ``(G_q G_qᵀ) α_q = G_q β'_q``: the dual of the kernel's part of the fit in its low-rank
    kernel. With an explicit feature map ``Φ_q`` the primal weights are ``w_q = Φ_qᵀ α_q``
    (eq. 26).
    """
    n = fit.columns.shape[0]
    out = xp.zeros((n_kernels, n), dtype=fit.columns.dtype, device=device_of(fit.columns))
    weights = _unit_weights(fit)
    for q in range(n_kernels):
        cols = kernel_columns(fit, q)
        if not cols:
            continue
        Q, R = qr(_take_columns(fit.columns, cols, xp=xp), xp=xp)
        beta_q = xp.take(weights, index_array(cols, xp=xp, device=device_of(fit.columns)))
        # G(GᵀG)⁻¹β' = Q R⁻ᵀ β' with G = QR, avoiding the normal equations.
        out[q, :] = xp.matmul(Q, solve_triangular(R, beta_q, xp=xp, lower=False, trans=True))
    return out

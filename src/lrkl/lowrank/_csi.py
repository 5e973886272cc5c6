"""Cholesky with side information (Bach & Jordan 2005)."""

from __future__ import annotations

import math
import numbers
from types import ModuleType
from typing import Any

from lrkl._backend import (
    check_array,
    check_consistent_length,
    device_of,
    ensure_array,
    get_namespace,
)
from lrkl._checks import check_bool, check_number
from lrkl._distances import power_of_two_scaled
from lrkl._executor import at_the_door, executor_for
from lrkl._linalg import orthogonalise
from lrkl._typing import Array
from lrkl.kernels import Kernel, check_kernel
from lrkl.lowrank._cholesky import (
    KernelColumns,
    _diagonal,
    _factor,
    lookahead_columns,
    pivot_amplification,
    remove_column,
    residual_tolerance,
)
from lrkl.lowrank._factor import (
    LowRankFactor,
    _as_dtype,
    _check_rank,
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
    """Cholesky decomposition with side information (Bach & Jordan 2005), :ref:`mklaren-csi`.

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

    With a row-chunked Dask ``X``, the diagonal and every kernel column are evaluated on X's
    chunks (for each new pivot one small graph fetches its row and one computes its column:
    about ``2 (r + δ)`` graphs), while ``y``, the factor and the rest of the state
    (n × (r + δ + t)) live in this process: X need not fit here, the factor must. ``G`` and
    ``residual`` are returned in X's row chunks, like the other factors of a Dask ``X``.

    Examples
    --------
    >>> import array_api_strict as xp
    >>> from lrkl.kernels import Gaussian
    >>> X = xp.reshape(xp.linspace(-1.0, 1.0, 30), (30, 1))
    >>> f = csi(Gaussian(gamma=2.0), X, X[:, 0] ** 3, 4, lookahead=5)
    >>> f.rank
    4
    """
    run, X = at_the_door(X)  # the kernel columns on X's blocks, the CSI state here
    xp = run.xp
    y = ensure_array(run.compute(y)[0], name="y")  # lists are taken as NumPy, as X is
    run.checked(get_namespace, X, y)  # one array library (refused by name)
    kernel = check_kernel(kernel, X)
    y = check_array(y, name="y", xp=xp, ndim=(1, 2), dtype=X.dtype)
    check_consistent_length(X=X, y=y)
    rank = _check_rank(rank, X.shape[0])
    kappa = check_number(kappa, name="kappa")
    if kappa > 1:
        msg = f"kappa must be in [0, 1], received {kappa!r}"
        raise ValueError(msg)
    integer = isinstance(lookahead, numbers.Integral) and not isinstance(lookahead, bool)
    if not integer or lookahead < 0:
        msg = f"lookahead must be an integer >= 0, received {lookahead!r}"
        raise ValueError(msg)
    lookahead = int(lookahead)
    centering = check_bool(centering, name="centering")
    tol = check_number(tol, name="tol")
    gain_tol = check_number(gain_tol, name="gain_tol")
    return _csi(kernel, X, y, rank, kappa, lookahead, centering, tol, gain_tol, xp=xp)


def _csi(
    kernel: Kernel,
    X: Array,
    y: Array,  # shape: (n,) or (n, t), in memory (computed here when Dask)
    rank: int,
    kappa: float,
    lookahead: int,
    centering: bool,
    tol: float,
    gain_tol: float,
    *,
    xp: ModuleType,
) -> LowRankFactor:
    """:func:`csi` on validated inputs (what :class:`LowRankFeatures` calls); a Dask ``X`` gives
    ``G`` and the residual in its row chunks, like every factor of a Dask ``X``."""
    run = executor_for(X, xp=xp)
    Y = _as_dtype(run.compute(y)[0], X.dtype, xp=xp)
    Y = Y[:, None] if Y.ndim == 1 else Y
    n, dev, dt = X.shape[0], device_of(Y), X.dtype  # Y: in memory when X is a Dask array
    if centering:
        Y = Y - xp.mean(Y, axis=0)
    # The pivots do not depend on Y's scale (μ = κ/‖Y‖² against ‖·ᵀY‖²): Y divided by a power
    # of two near its largest value (exact), so that ‖Y‖² neither under- nor overflows.
    Y, _ = power_of_two_scaled(Y, xp=xp)
    d = _diagonal(kernel, X, xp=xp)
    tol = residual_tolerance(tol, d, X.dtype, xp=xp)
    trace, y_norm2 = float(xp.sum(d)), float(xp.sum(Y * Y))
    lam = (1.0 - kappa) / trace if trace > 0 else 0.0
    mu = kappa / y_norm2 if y_norm2 > 0 else 0.0

    width = min(n, rank + lookahead + 1)
    G = xp.zeros((n, width), dtype=dt, device=dev)  # [0, k) committed, then the look-ahead
    Q = xp.zeros((n, rank), dtype=dt, device=dev)  # orthonormal basis of P G[:, :k]
    Y_res = Y  # (I − Q Qᵀ) P Y, the part of the targets the factor does not explain yet
    columns = KernelColumns(kernel, X, xp=xp)
    pivots: list[int] = []

    def center(A: Array) -> Array:
        return A - xp.mean(A, axis=0) if centering else A

    def look_ahead(order: list[int], k: int, n_steps: int) -> tuple[list[int], Array]:
        """Columns ``k, k+1, ...`` of ``G`` for the pivots ``order``, then greedy ones."""
        new, done, d_adv = lookahead_columns(columns, G[:, :k], d, order, n_steps, tol, xp=xp)
        G[:, k : k + n_steps] = new
        return done, d_adv

    window, d_adv = look_ahead([], 0, min(lookahead, width))
    check_psd = not kernel.psd_by_construction  # a closed-form kernel needs no PSD check
    amplification = 1.0  # of the residuals' rounding by pivots that are not the largest
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
        # The chosen pivot first, the other look-ahead pivots behind it; a greedy pivot fills
        # the place of a chosen look-ahead pivot (d_adv is exactly 0 at every look-ahead pivot).
        order = [i] + [w for w in window if w != i]
        done, d_adv = look_ahead(order, k, min(lookahead + 1, width - k))
        window = done[1:]
        columns.keep(window)

        g = G[:, k]
        # negative curvature is told from the residuals' rounding, amplified by small pivots
        if check_psd:  # a reduction and a read-back per pivot: only where a check is due
            amplification = pivot_amplification(amplification, d, i, xp=xp)
        check = check_psd and math.isfinite(amplification)
        d = remove_column(d, g, i, tol, xp=xp, check_psd=check, amplification=amplification)
        pivots.append(i)
        q = orthogonalise(center(g[:, None])[:, 0], xp.matrix_transpose(Q[:, :k]), xp=xp)
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
    factor = _factor(G, pivots, X, kernel, d, "csi", xp=xp)
    return factor._replace(G=run.rows_like(factor.G, X), residual=run.rows_like(factor.residual, X))


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
    """Predicted gains ``λ ΔJ_K(i) + μ ΔJ_Y(i)`` of every point (:ref:`mklaren-csi`, step 2).

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

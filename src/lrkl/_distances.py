"""Squared distances and spreads of rows, exact at any offset and scale: what the stationary
kernels (:mod:`lrkl.kernels`) and their ``gamma="scale"`` compute from.

Rows are centred before anything is squared, so that nothing cancels at large offsets
(``X + 1e8``), and scaled by ``√γ`` or a power of two, so that nothing under- or overflows at
extreme scales (``X · 1e±150``).
"""

from __future__ import annotations

import math
import warnings
from types import ModuleType
from typing import Any

from lrkl._backend import check_array, device_of, ensure_array, get_namespace, move_to
from lrkl._linalg import nonpositive_expansion, sum_each_row
from lrkl._typing import Array

__all__ = [
    "centred",
    "neg_squared_distances",
    "power_of_two_scaled",
    "row_mean",
    "scale_error",
    "scaled_variance",
    "stacked_gaussians",
    "variance_weights",
]


def centred(X: Array, Z: Array, scale: float, *, xp: ModuleType) -> tuple[Array, Array]:
    """``scale·(X − c)`` and ``scale·(Z − c)`` about the centre ``c`` of Z's rows (their mean).

    What a stationary kernel computes from these is translation-invariant in floating point:
    the differences to ``c`` are exact or nearly (Sterbenz) whatever the offset of the data,
    and the scaling comes after them, so that ``γ‖x − z‖²`` never squares a tiny or a huge
    number (``scale = √γ`` brings the rows to unit size).
    """
    centre = row_mean(Z, xp=xp)
    Xc = X - centre
    if scale != 1.0:
        Xc *= scale  # in place: the block's one copy
    if Z is X:
        return Xc, Xc
    Zc = Z - centre
    if scale != 1.0:
        Zc *= scale
    return Xc, Zc


def row_mean(Z: Array, *, xp: ModuleType) -> Array:
    """The mean of Z's rows, shape (1, dim), summed over ``Z·2⁻ᵏ`` (``2ᵏ ≥`` rows: exact, the
    same mean bit for bit) so that rows near the dtype's largest value do not overflow the sum
    (rows at ±finfo.max gave k = 1 for points 2·finfo.max apart). The mean, not the midrange:
    with an outlier the midrange puts every other row half the range away, where the expansion
    cancels."""
    k = math.frexp(Z.shape[0])[1]
    centre = xp.sum(Z * math.ldexp(1.0, -k), axis=0, keepdims=True) / Z.shape[0]
    return centre * math.ldexp(1.0, k)


def neg_squared_distances(
    X: Array, Z: Array, gamma: float, *, xp: ModuleType, exp: bool = False
) -> Array:
    """``−γ‖x_i − z_j‖²`` (``≤ 0``), translation-invariant in floating point; with ``exp``,
    ``exp(−γ‖x_i − z_j‖²)`` (the Gaussian kernel), computed in the same pass.

    The rows are centred about the mean of Z's rows and scaled by ``√(2γ)`` (:func:`centred`)
    before the GEMM expansion ``2xᵀz − ‖x‖² − ‖z‖²``, so that nothing cancels at large offsets
    (``X + 1e8``) and nothing under- or overflows at extreme scales (``X · 1e±150`` with
    ``γ = 1/Var(X)``). The ``n × m`` block is formed once by the GEMM and updated in place: it
    is memory traffic, not arithmetic, that a block of kernel values costs
    (:func:`lrkl._linalg.nonpositive_expansion`: on NumPy, chunk by chunk while in cache).
    """
    if Z.shape[0] == 1 and Z is not X:  # one column (a pivot's): the differences themselves
        return _finish(_distances_to_row(X, Z, gamma, xp=xp), exp, xp=xp)
    root = math.sqrt(2.0 * gamma)
    if root >= float(xp.finfo(X.dtype).max):  # √(2γ) itself is not a number of the dtype
        return _finish(_distances_far(X, Z, gamma, xp=xp), exp, xp=xp)
    with warnings.catch_warnings():  # an overflow to inf here is told from the norms below
        warnings.simplefilter("ignore", RuntimeWarning)
        A, B = centred(X, Z, root, xp=xp)
        half_norms_A = 0.5 * sum_each_row(A * A, xp=xp)
        half_norms_B = half_norms_A if B is A else 0.5 * sum_each_row(B * B, xp=xp)
    if _beyond_expansion(float(xp.max(half_norms_A) + xp.max(half_norms_B)), A.dtype, xp=xp):
        return _finish(_distances_far(X, Z, gamma, xp=xp), exp, xp=xp)
    return nonpositive_expansion(A, B, half_norms_A, half_norms_B, exp=exp, xp=xp)


def _beyond_expansion(largest_norms: float, dtype: Any, *, xp: ModuleType) -> bool:
    """Whether half squared norms summing to ``largest_norms`` (the largest of each side) are
    past the GEMM expansion's limit, ``1e-3/ε``: beyond it the expansion's rounding (ε times the
    norms) moves the exponent by more than 1e-3, and a point's distance to itself is no longer 0;
    further on the norms overflow. NaN (from NaN in X) is not past it and gives NaN, which the
    callers refuse by name."""
    return largest_norms * float(xp.finfo(dtype).eps) >= 1e-3


def _finish(d: Array, exp: bool, *, xp: ModuleType) -> Array:
    return xp.exp(d) if exp else d


def stacked_gaussians(landmarks: list[Array], gammas: list[float], *, xp: ModuleType):
    """``blocks(X) → [exp(−γ_q‖x_i − z‖²)]`` for the landmarks ``landmarks[q]`` of every Gaussian
    kernel ``q`` (width ``gammas[q]``), stacked by columns: one GEMM per block of rows, against
    all the landmarks at once; None where that expansion does not hold (then each kernel's
    block is :func:`neg_squared_distances`' own).

    The rows and the landmarks are centred about the landmarks' mean and scaled by ``√(2γ)``,
    ``γ`` the largest width, as :func:`neg_squared_distances` does; each kernel's ratio
    ``γ_q/γ ≤ 1`` and the norms go into the GEMM's operands, ``[a, ½‖a‖², 1]`` against
    ``[r b, −r, −r ½‖b‖²]``, so that the GEMM writes ``−γ_q‖x − z‖²`` itself and only ``exp``
    is left (on NumPy in cache-resident chunks). ``blocks`` returns None for a block of rows
    whose norms, or the landmarks', pass :func:`neg_squared_distances`' limit of the expansion
    at the largest width (one far row sends its block, one far landmark every block, to the
    kernels' own evaluations: the same values, without the shared GEMM). A block holds two
    values per row and landmark at most (one on NumPy).
    """
    top = max(gammas)
    root = math.sqrt(2.0 * top)
    Z = xp.concat(landmarks, axis=0)
    if root >= float(xp.finfo(Z.dtype).max):
        return None
    dev = device_of(Z)
    ratios = xp.concat(
        [
            xp.full((S.shape[0], 1), gamma / top, dtype=Z.dtype, device=dev)
            for S, gamma in zip(landmarks, gammas, strict=True)
        ]
    )
    with warnings.catch_warnings():  # an overflow to inf is told from the norms, as there
        warnings.simplefilter("ignore", RuntimeWarning)
        centre = row_mean(Z, xp=xp)
        B = (Z - centre) * root
        half_B = 0.5 * sum_each_row(B * B, xp=xp)[:, None]
    largest_B = float(xp.max(half_B))
    B_aug = xp.concat([B * ratios, -ratios, -ratios * half_B], axis=1)

    def blocks(X: Array) -> Array | None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            A = (X - centre) * root
            half_A = 0.5 * sum_each_row(A * A, xp=xp)[:, None]
        if _beyond_expansion(float(xp.max(half_A)) + largest_B, A.dtype, xp=xp):
            return None  # (neg_squared_distances' far path)
        A_aug = xp.concat([A, half_A, xp.ones_like(half_A)], axis=1)
        return nonpositive_expansion(A_aug, B_aug, None, None, exp=True, xp=xp)

    return blocks


def _distances_to_row(X: Array, z: Array, gamma: float, *, xp: ModuleType) -> Array:
    """``−γ‖x_i − z‖²`` for one row ``z`` (shape (1, dim)), as an (n, 1) block: the differences
    scaled by ``√γ`` and squared, no expansion (one pass, exact in the differences, so neither
    an offset nor a scale of 1e±300 costs digits; an overflow is −inf, a kernel value of 0).
    ICD, CSI and Mklaren evaluate one such column per pivot."""
    root = math.sqrt(gamma)
    with warnings.catch_warnings():  # past the range: inf, whose negative is a kernel value 0
        warnings.simplefilter("ignore", RuntimeWarning)
        D = X - z
        if root < float(xp.finfo(X.dtype).max):
            D *= root
            D *= D  # in place: the column's one temporary
            return -sum_each_row(D, xp=xp)[:, None]
        D *= D
        squared = sum_each_row(D, xp=xp)[:, None]  # γ is past the dtype: any distance is ∞
        return xp.where(squared > 0, -(squared * gamma), xp.zeros_like(squared))


def _distances_far(X: Array, Z: Array, gamma: float, *, xp: ModuleType) -> Array:
    """:func:`neg_squared_distances` where ``γ‖x‖²`` is beyond ``1e-3/ε`` or overflows
    (``X · 1e300``, ``γ = 1e300``): the expansion on the rows scaled by ``2⁻ᵉ`` (exact), then
    centred, distances below its rounding set to 0, then times ``γ·4ᵉ`` (capped at the dtype's
    largest value), so that distinct points give ``−inf`` or a huge negative number (a kernel
    value of 0) and equal ones exactly 0, where the unscaled expansion gave ``inf − inf = NaN``."""
    # The rows as given, scaled by 2⁻ᵉ before they are centred: neither the centre nor the
    # differences to it can overflow then (centred first, rows at ±finfo.max became inf, and
    # inf − inf distances gave k = 1 between distant points)
    same = Z is X
    largest = float(xp.max(xp.abs(X))) if same else float(xp.max(xp.abs(xp.concat([X, Z]))))
    e = math.frexp(largest)[1] if largest > 0 else 0
    X_scaled = X * math.ldexp(1.0, -e)
    A, B = centred(X_scaled, X_scaled if same else Z * math.ldexp(1.0, -e), 1.0, xp=xp)
    norms_A = sum_each_row(A * A, xp=xp)
    norms_B = norms_A if B is A else sum_each_row(B * B, xp=xp)
    d = 2.0 * (A @ xp.matrix_transpose(B)) - norms_A[:, None] - norms_B[None, :]
    rounding = 4.0 * xp.finfo(d.dtype).eps * (norms_A[:, None] + norms_B[None, :])
    d = xp.where(d < -rounding, d, xp.zeros_like(d))
    # γ·4ᵉ, capped at the dtype's largest value (d is 0 or at least its rounding below 0, so a
    # capped product is still far below the exponent's range): no inf factor, so 0 stays 0.
    largest_log2 = math.log2(float(xp.finfo(d.dtype).max))
    factor_log2 = math.log2(gamma) + 2.0 * e
    factor = (
        float(xp.finfo(d.dtype).max) if factor_log2 >= largest_log2 else math.ldexp(gamma, 2 * e)
    )
    with warnings.catch_warnings():  # a product past the range is −inf: a kernel value of 0
        warnings.simplefilter("ignore", RuntimeWarning)
        return d * factor


def power_of_two_scaled(X: Array, *, xp: ModuleType) -> tuple[Array, int]:
    """``X · 2⁻ᵉ`` with ``2ᵉ`` the power of two just above ``max |X|`` (exact: no rounding), and
    ``e``; ``e = 0`` for an all-zero ``X``."""
    largest = float(xp.max(xp.abs(X)))
    if largest == 0.0:
        return X, 0
    e = math.frexp(largest)[1]
    half = -e // 2  # two factors, each representable even in float32 at its extremes
    return X * math.ldexp(1.0, half) * math.ldexp(1.0, -e - half), e


def scaled_variance(X: Array, weights: Array | None, *, xp: ModuleType) -> tuple[float, int]:
    """``(v, e)`` with ``Var(X) = v · 4ᵉ``: the variance over all entries of ``X`` (rows weighted
    by ``weights``, summing to 1), free of over- and underflow at any scale and of
    cancellation at any offset.

    X is scaled by a power of two near its largest magnitude, centred (two passes), and the
    mean of the deviations is subtracted once more (the corrected two-pass algorithm of Chan,
    Golub & LeVeque), so that an offset of ``10⁸`` times the spread costs no digits.
    """
    Xs, e = power_of_two_scaled(X, xp=xp)
    if weights is None:
        D = Xs - xp.mean(Xs)
        v = float(xp.mean(D * D)) - float(xp.mean(D)) ** 2
    else:
        D = Xs - xp.sum(weights @ Xs) / X.shape[1]
        v = float(xp.sum(weights @ (D * D)) / X.shape[1])
        v -= float(xp.sum(weights @ D) / X.shape[1]) ** 2
    return max(v, 0.0), e


def variance_weights(sample_weight: Any, X: Array, *, xp: ModuleType) -> Array:
    """``sample_weight`` checked (one finite weight ``≥ 0`` per row of ``X``, not all zero) and
    normalised to sum to 1: divided by its maximum first, so that weights of 1e300 do not
    overflow the sum."""
    w = ensure_array(sample_weight, name="sample_weight")
    if get_namespace(w) is not xp:
        w = move_to(w, like=X)
    w = check_array(w, name="sample_weight", xp=xp, ndim=1, dtype=X.dtype)
    if w.shape[0] != X.shape[0]:
        msg = (
            f"sample_weight must have one entry per row of X ({X.shape[0]}), received shape "
            f"{tuple(w.shape)}"
        )
        raise ValueError(msg)
    top = float(xp.max(w))
    if float(xp.min(w)) < 0 or not top > 0:
        msg = (
            "sample_weight must be >= 0 with at least one positive weight, received a minimum "
            f"of {float(xp.min(w)):.4g} and a maximum of {top:.4g}"
        )
        raise ValueError(msg)
    w = w / top
    return w / xp.sum(w)


def scale_error(X: Array, *, xp: ModuleType, gamma: float) -> ValueError:
    """The error for a ``gamma="scale"`` width out of float64's normal range."""
    largest = float(xp.max(xp.abs(X)))
    msg = (
        f"X's scale is out of range for gamma='scale': with max |X| = {largest:.3g}, the width "
        f"it takes from X (1 / (n_features · Var(X)), or · Std(X) for the Laplacian kernel) "
        f"is {gamma:g}, not a normal float64 (the Gaussian and polynomial kernels handle "
        "|X| from about 1e-150 to 1e150); rescale X, for example with "
        "sklearn.preprocessing.StandardScaler"
    )
    return ValueError(msg)

"""The scale of the targets and of the sample weights, taken out before anything is squared.

Every ridge-family fit squares ``y`` somewhere (a validation error, an alignment ``yᵀK y``,
SLKL's ``(c_mᵀy)²``) and sums the sample weights: at ``y · 1e±200`` or weights of ``1e300``
those overflow or underflow although the model itself is well defined. The estimators divide
``y`` (and the weights) by a power of two near their largest magnitude first, so that every
intermediate is of unit scale, and multiply the fitted coefficients back. A power of two makes
both divisions exact: a fit of ``2^k · y`` gives exactly ``2^k`` times the coefficients, the
same α and the same pivots, and a ``y`` already of unit scale is fitted bit for bit as before.

The model is equivariant: ridge regression (any α) is linear in ``y``; weights ``w / s`` with
the penalty ``α / s`` give the same minimiser as ``w`` with ``α``.
"""

from __future__ import annotations

import math
import sys
from types import ModuleType

from lrkl._backend import to_numpy
from lrkl._executor import executor_for
from lrkl._typing import Array

__all__ = ["power_of_two_scale", "scale_errors", "weight_scale"]


def power_of_two_scale(values: Array, /, *, xp: ModuleType) -> float:
    """``2^e`` with ``max |values| / 2^e`` in ``[1, 2)``; 1.0 when ``values`` is empty, all
    zero or not finite (the caller's checks report the latter).

    One reduction and one host transfer of a scalar (a compute for a Dask array).
    """
    if math.prod(values.shape) == 0:
        return 1.0
    (top,) = executor_for(values, xp=xp).compute(xp.max(xp.abs(values)))
    top = float(to_numpy(top))
    if not (math.isfinite(top) and top > 0.0):
        return 1.0
    _, exponent = math.frexp(top)  # top = m · 2^exponent, m in [0.5, 1)
    return math.ldexp(1.0, exponent - 1)


def weight_scale(
    sample_weight: Array | None, alpha: float, /, *, xp: ModuleType
) -> tuple[Array | None, float, float]:
    """Sample weights of largest value in ``[1, 2)``, the penalty that keeps the minimiser, and
    the scale ``s`` taken out: ``(w / s, α / s, s)``; ``(None, α / c, c)`` for weights all
    equal to ``c``.

    ``Σ_i w_i (y_i − f(x_i))² + α‖f‖²`` divided by ``s`` has the same minimiser. ``α / s`` is
    floored at the smallest normal float64 (weights beyond ``α · 1e308``): below it the penalty
    is already far under the rounding of the weighted kernel, and the solvers treat it as the
    minimum-norm limit (:class:`lrkl.kernel_ridge._solvers.CholeskySolver`). Where ``α / s``
    leaves float64 (subnormal weights) it is 1e300: the penalty is then 1e300 times the data
    term, and the fit its limit, the intercept alone, to rounding (``α / s`` was ``inf``).
    """
    if sample_weight is None:
        return None, alpha, 1.0
    scale = power_of_two_scale(sample_weight, xp=xp)
    weights = sample_weight / scale
    # Equal weights c are no weights with the penalty α / c: they take the unweighted path, so
    # that unit weights fit bit for bit as None does. (The weighted path's means w @ Z / Σw and
    # √w-scaled rows round differently from the plain ones; at a small α a ridge amplifies that
    # rounding: LowRankRidgeCV's predictions with np.ones(n) moved by 2e-9 of their spread.)
    low, high = executor_for(weights, xp=xp).compute(xp.min(weights), xp.max(weights))
    low, high = float(to_numpy(low)), float(to_numpy(high))
    if low == high and high > 0:
        scale = scale * high  # exact: c = high · 2^e
        weights = None
    inner = alpha / scale
    if inner == math.inf:  # only past float64: the penalty's limit, to rounding
        inner = _HUGE
    return weights, max(inner, _TINY) if alpha > 0 else alpha, scale


def scale_errors(
    per_fold: list[list[float]] | tuple[tuple[float, ...], ...], factor: float, /
) -> tuple[tuple[float, ...], ...]:
    """Validation errors computed on ``y / s`` back in the units of ``y²`` (``factor = s``):
    exact for a power of two, ``inf`` where ``s²·e`` leaves float64."""
    return tuple(tuple(e * factor * factor for e in row) for row in per_fold)


_TINY = 2.0**-1022  # the smallest normal float64
_HUGE = 1e300  # α / s past it: the penalty's limit (the intercept alone), to rounding


def require_representable(
    alphas: tuple[float, ...], internal: tuple[float, ...], w_scale: float
) -> None:
    """Refuse an α grid that the scale of the weights (``w_scale``, the grid's unit) takes
    outside the floats: the grid as given (or reported in ``alphas_``) and the one fitted must
    both be distinct finite normal numbers, or the choice would be reported as another α. (With
    unit weights they are one grid, and repeated tiny values of a tiny ``eps`` are harmless.)"""
    if w_scale == 1.0:
        return
    tiny = sys.float_info.min
    for grid in (alphas, internal):
        if len(set(grid)) < len(grid) or not all(tiny <= a < math.inf for a in grid):
            msg = (
                f"sample_weight's scale ({w_scale:.3g}: weights are compared with the α grid "
                f"in their units) takes the α grid [{min(alphas):.3g}, {max(alphas):.3g}] out "
                "of the float64 range, where its values are no longer distinct finite normal "
                "numbers: rescale sample_weight (only its ratios matter to the fit, with α "
                "scaled alike), or give a grid well inside that range (alphas, or a larger eps)"
            )
            raise ValueError(msg)

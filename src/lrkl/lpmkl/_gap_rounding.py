"""Duality gaps read at the precision of their arithmetic.

The relative gaps of :func:`lrkl.lpmkl.duality_gap` and :func:`lrkl.lpmkl.mkl_duality_gap`
are differences of nearly equal sums. Where the problem's scale puts the optimum's gap below
the rounding of those sums (``eta`` or ``alpha_scale`` far from 1: ``P`` and ``D`` of order
``1/eta``, the hinge sum's terms of order ``C``), the computed gap is only the last bits of the
BLAS kernel, and a stopping rule on it converged on one CPU and ran to ``max_iter`` on another.
Here a gap within the rounding of its own terms reads as zero: "no gap this arithmetic can tell
apart from none". Both gaps, and so both stopping rules (GFB's ``stop="gap"`` and the MKL
alternation's ``stop="mkl_gap"``), take it from here.
"""

from __future__ import annotations

from types import ModuleType

from lrkl._typing import Array
from lrkl.lpmkl._losses import cost_sum

#: A gap within ``ROUNDING_FACTOR · eps`` times the sum of its terms' magnitudes reads as zero:
#: a margin over one rounding per term for the few operations each term takes.
ROUNDING_FACTOR = 16


def loss_term(
    decision: Array, intercept: Array, y: Array, C: float | Array, loss: str, *, xp: ModuleType
) -> tuple[Array, Array]:
    """A gap's loss term, ``Σ_i C_i max(0, 1 − y_i (g_i + b))`` (``loss="hinge"``) or its square
    (``"squared_hinge"``), and the magnitude its rounding scales with: ``Σ_i C_i (1 + |g_i| +
    |b|)`` (squared for the squared hinge) over the rows whose margin is not above 1 by more
    than that rounding (a clipped term is exactly zero). ``C`` is one cost or one per row."""
    slack = 1.0 - y * (decision + intercept)
    terms = 1.0 + xp.abs(decision) + xp.abs(intercept)
    near = slack > -ROUNDING_FACTOR * xp.finfo(terms.dtype).eps * terms
    xi = xp.clip(slack, min=0.0)
    if loss == "squared_hinge":
        xi, terms = xi * xi, terms * terms
    return cost_sum(C, xi, xp=xp), cost_sum(C, xp.where(near, terms, 0.0), xp=xp)


def relative_gap(primal: Array, dual: Array, magnitude: Array, *, xp: ModuleType) -> float:
    """``(P − D) / max(|P|, |D|)``, or 0 where ``|P − D|`` is within ``ROUNDING_FACTOR · eps ·
    magnitude``, ``magnitude`` being the sum of the absolute values of the terms of ``P`` and
    ``D``."""
    difference = primal - dual
    rounding = ROUNDING_FACTOR * xp.finfo(difference.dtype).eps * magnitude
    scale = xp.maximum(xp.abs(primal), xp.abs(dual))
    relative = difference / xp.where(scale > 0, scale, 1.0)
    return float(xp.where(xp.abs(difference) <= rounding, 0.0, relative))  # one device sync

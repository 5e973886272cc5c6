"""The two SVM losses of the ℓp-MKL problem and what differs between them.

- ``"hinge"`` (the paper's): ``C Σ_i max(0, 1 − y_i f(x_i))``; the dual (4) keeps α in the box
  ``[0, C]``.
- ``"squared_hinge"`` (scikit-learn's ``LinearSVC`` default, Keerthi & DeCoste 2005):
  ``C Σ_i max(0, 1 − y_i f(x_i))²``; its dual is (4) without the upper bound on α and with
  ``‖α‖²/(4C)`` added, and at the optimum ``α_i = 2C max(0, 1 − y_i f(x_i))``. The primal is
  once differentiable, so Newton's method solves it in steps that do not grow with ``C``
  (:mod:`lrkl.lpmkl._newton`).

Newton's method sees a loss of the slack ``ξ = 1 − y f`` as a :class:`Piecewise` quadratic:
the squared hinge (:data:`SQUARED_HINGE`), or the hinge smoothed over ``|ξ| ≤ h``
(:func:`smoothed_hinge`, Chapelle 2007's Huber loss), which it follows to the hinge as ``h``
shrinks.

Both intercepts are the minimisers of the loss over ``b`` for fixed decision values. With sample
weights ``w`` each row has its own cost ``C w_i`` in place of ``C`` (:meth:`SVMProblem.costs
<lrkl.lpmkl.SVMProblem.costs>`): every function here takes ``C`` as a number or as those
per-row costs.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import NamedTuple

from lrkl._backend import device_of
from lrkl._typing import Array

__all__ = [
    "LOSSES",
    "SOLVER_LOSSES",
    "SQUARED_HINGE",
    "Piecewise",
    "alpha_bound",
    "best_intercept",
    "check_solver_loss",
    "cost_sum",
    "dual_penalty",
    "line_minimum",
    "smoothed_hinge",
]

LOSSES = ("squared_hinge", "hinge")

#: Rounding margin (units of eps per term) under which a sum of costs counts as zero.
ROUNDING = 4

#: The losses each SVM solver of :data:`lrkl.lpmkl.SVM_SOLVERS` solves.
SOLVER_LOSSES = {
    "newton": ("squared_hinge", "hinge"),
    "gfb": ("hinge",),
    "gfb_naive": ("hinge",),
    "interior_point": ("hinge",),
    "liblinear": ("hinge",),
}


class Piecewise(NamedTuple):
    """A convex loss ``L(ξ)`` of the slack, 0 for ``ξ`` below its first knot, whose derivative
    is ``slopes[k] + curvatures[k]·ξ`` on segment ``k`` (between ``knots[k−1]`` and
    ``knots[k]``, the first and last unbounded) and continuous; one segment at most is curved
    (the Hessian's rows, all of the same curvature)."""

    knots: tuple[float, ...]
    slopes: tuple[float, ...]  # one per segment: len(knots) + 1
    curvatures: tuple[float, ...]

    def segment(self, xi: Array, *, xp: ModuleType) -> Array:
        """The segment of each slack (a knot belongs to the segment below it)."""
        index = xp.zeros(xi.shape, dtype=xp.int32, device=device_of(xi))
        for knot in self.knots:
            index = index + xp.astype(xi > knot, xp.int32)
        return index

    def _pick(self, values: tuple[float, ...], segment: Array, *, xp: ModuleType) -> Array:
        out = xp.zeros(segment.shape, dtype=xp.float64, device=device_of(segment))
        for k, value in enumerate(values):
            if value != 0.0:
                out = xp.where(segment == k, value, out)
        return out

    def value(self, xi: Array, *, xp: ModuleType, segment: Array | None = None) -> Array:
        """``L(ξ)``: on segment k, ``offset_k + slopes[k] ξ + curvatures[k] ξ²/2`` with the
        offsets that make it continuous (0 on the first segment); ``segment``, when given,
        is :meth:`segment` of ``xi`` (not computed again)."""
        offsets, offset = [0.0], 0.0
        for k, knot in enumerate(self.knots):
            offset += (self.slopes[k] - self.slopes[k + 1]) * knot
            offset += (self.curvatures[k] - self.curvatures[k + 1]) * knot * knot / 2.0
            offsets.append(offset)
        segment = self.segment(xi, xp=xp) if segment is None else segment
        pick = self._pick
        return (
            pick(tuple(offsets), segment, xp=xp)
            + pick(self.slopes, segment, xp=xp) * xi
            + pick(self.curvatures, segment, xp=xp) * (0.5 * xi * xi)
        )

    def derivative(self, xi: Array, *, xp: ModuleType, segment: Array | None = None) -> Array:
        """``L'(ξ)`` (``segment`` as in :meth:`value`)."""
        segment = self.segment(xi, xp=xp) if segment is None else segment
        pick = self._pick
        return pick(self.slopes, segment, xp=xp) + pick(self.curvatures, segment, xp=xp) * xi

    @property
    def curvature(self) -> float:
        """``L''`` on the curved segment."""
        return max(self.curvatures)

    def curved(self, xi: Array, *, xp: ModuleType, segment: Array | None = None) -> Array:
        """Whether each slack lies on the curved segment (the Hessian's rows; ``segment`` as in
        :meth:`value`)."""
        k = self.curvatures.index(self.curvature)
        return (self.segment(xi, xp=xp) if segment is None else segment) == k


#: ``max(0, ξ)²``.
SQUARED_HINGE = Piecewise((0.0,), (0.0, 0.0), (0.0, 2.0))


def smoothed_hinge(h: float) -> Piecewise:
    """The hinge ``max(0, ξ)`` smoothed over ``|ξ| ≤ h`` (Chapelle 2007): ``(ξ + h)²/(4h)``
    there, 0 below, ``ξ`` above; it exceeds the hinge by at most ``h/4``, at ``ξ = 0``."""
    return Piecewise((-h, h), (0.0, 0.5, 1.0), (0.0, 0.5 / h, 0.0))


def check_solver_loss(solver: str, loss: str) -> None:
    """A ValueError naming both unless ``solver`` solves ``loss``."""
    allowed = SOLVER_LOSSES[solver]
    if loss not in allowed:
        others = [name for name, losses in SOLVER_LOSSES.items() if loss in losses]
        msg = (
            f"solver={solver!r} solves loss in {allowed}, received loss={loss!r}: use a solver "
            f"among {tuple(others)} or loss={allowed[0]!r}"
        )
        raise ValueError(msg)


def alpha_bound(C: float | Array, loss: str, *, xp: ModuleType) -> float | Array:
    """The upper end of α's box in the dual: ``C`` for the hinge, none for its square (0 on a
    row of cost 0)."""
    if loss == "hinge":
        return C
    return math.inf if isinstance(C, float) else xp.where(C > 0.0, xp.full_like(C, math.inf), 0.0)


def cost_sum(C: float | Array, values: Array, *, xp: ModuleType) -> Array:
    """``Σ_i C_i values_i``: ``C Σ_i values_i`` for one cost."""
    return C * xp.sum(values) if isinstance(C, float) else xp.sum(C * values)


def dual_penalty(alpha: Array, C: float | Array, loss: str, *, xp: ModuleType) -> Array:
    """The dual's extra term ``Σ_i α_i²/(4C_i)`` of the squared hinge (0 for the hinge)."""
    if loss == "hinge":
        return xp.zeros((), dtype=alpha.dtype, device=device_of(alpha))
    if isinstance(C, float):
        return xp.sum(alpha / (4.0 * C) * alpha)
    positive = C > 0.0  # (α/4C)·α: α²/(4C) underflows where C, and α = 2Cξ, are tiny
    return xp.sum(xp.where(positive, alpha / (4.0 * xp.where(positive, C, 1.0)) * alpha, 0.0))


def best_intercept(
    decision: Array, y: Array, C: float | Array, loss: str, *, xp: ModuleType
) -> Array:
    """The intercept ``b`` minimising the loss of ``decision + b`` (both labels present, with
    positive cost)."""
    if loss == "hinge":
        if isinstance(C, float):
            return _hinge_intercept(decision, y, xp=xp)
        return _weighted_hinge_intercept(decision, y, C, xp=xp)
    slack = 1.0 - y * decision  # the loss is Σ C_i max(0, slack_i − t y_i)² at b = t
    toward = -1.0 if float(cost_sum(C, y * xp.clip(slack, min=0.0), xp=xp)) < 0.0 else 1.0
    t = line_minimum(0.0, 0.0, slack, toward * y, C, xp=xp)
    return xp.asarray(toward * t, dtype=decision.dtype, device=device_of(decision))


def _feasible(alpha: Array, y: Array, C: float | Array, loss: str, *, xp: ModuleType) -> Array:
    """``alpha`` clipped to the box (``[0, C]``, or ``α ≥ 0`` for the squared hinge) and made to
    satisfy ``yᵀα = 0`` by scaling down the class with the larger sum (which stays in the box):
    a dual-feasible point near ``alpha``."""
    alpha = xp.clip(alpha, min=0.0, max=alpha_bound(C, loss, xp=xp))
    positive = y > 0
    total_pos = xp.sum(xp.where(positive, alpha, 0.0))
    total_neg = xp.sum(xp.where(positive, 0.0, alpha))
    scale_pos = xp.where(
        total_pos > total_neg, total_neg / xp.where(total_pos > 0, total_pos, 1.0), 1.0
    )
    scale_neg = xp.where(
        total_neg > total_pos, total_pos / xp.where(total_neg > 0, total_neg, 1.0), 1.0
    )
    return alpha * xp.where(positive, scale_pos, scale_neg)


def _hinge_intercept(decision: Array, y: Array, *, xp: ModuleType) -> Array:
    """The middle of the interval of minimisers of ``Σ_i max(0, 1 − y_i (g_i + b))``: its
    breakpoints are ``y_i − g_i`` and its slope ``−n₊`` on the left, each breakpoint adding 1
    (:func:`lrkl.lpmkl.hinge_intercept`)."""
    t = xp.sort(y - decision)
    n_pos = int(xp.sum(xp.astype(y > 0, xp.int64)))
    return 0.5 * (t[n_pos - 1] + t[n_pos])


def _weighted_hinge_intercept(decision: Array, y: Array, C: Array, *, xp: ModuleType) -> Array:
    """The middle of the interval of minimisers of ``Σ_i C_i max(0, 1 − y_i (g_i + b))``: its
    slope is ``−Σ_{y_i = 1} C_i`` left of every breakpoint ``y_i − g_i`` and each adds ``C_i``;
    with unit costs, :func:`_hinge_intercept`."""
    t = y - decision
    order = xp.argsort(t)
    t = xp.take(t, order)
    slope = xp.cumulative_sum(xp.take(C, order)) - xp.sum(xp.where(y > 0, C, 0.0))
    # a slope within the rounding of these sums is zero (equal costs: the unweighted middle)
    rounding = ROUNDING * t.shape[0] * xp.finfo(C.dtype).eps * float(xp.sum(C))
    flat = xp.abs(slope) <= rounding
    k = int(xp.argmax(xp.astype((slope >= 0.0) | flat, xp.int32)))  # slope right of t[k] ≥ 0
    if bool(flat[k]) and k + 1 < t.shape[0]:
        return 0.5 * (t[k] + t[k + 1])
    return t[k]


def line_minimum(
    a: float,
    c: float,
    r: Array,
    s: Array,
    C: float | Array,
    *,
    loss: Piecewise = SQUARED_HINGE,
    xp: ModuleType,
) -> float:
    """The exact minimiser over ``t ≥ 0`` of the convex piecewise quadratic
    ``φ(t) = a t + ½ c t² + Σ_i C_i L(r_i − t s_i)`` (``L`` the :class:`Piecewise` ``loss``,
    by default ``max(0, ξ)²``), for a descent direction (``φ'(0) ≤ 0``; 0 where φ does not
    decrease).

    ``φ'`` is piecewise linear and non-decreasing: term ``i`` changes segment where
    ``r_i − t s_i`` crosses a knot ``κ``, at ``t = (r_i − κ)/s_i > 0``, downwards (``s_i > 0``)
    or upwards. One sort of those breakpoints, then a bisection for the first at which
    ``φ' ≥ 0``, each probe's ``φ'`` summed directly over the terms (sums carried from one
    breakpoint to the next cancel where the costs dwarf the curvature ``c``: at ``C = 1e15``
    they lose it); the zero lies in the segment that ends there. ``O(K n log(K n))`` for K
    knots, in ``r``'s dtype.
    """
    # the segment just after t = 0: a term on a knot moves to the side its direction takes it
    start = loss.segment(r, xp=xp)
    for k, knot in enumerate(loss.knots):
        start = xp.where((r == knot) & (s < 0.0), k + 1, start)
    Cs = C * s  # term i's part of φ' on segment k: −C s (slopes[k] + curvatures[k] (r − t s))

    def derivative(segment: Array) -> tuple[float, float]:  # φ' = slope + curve·t there
        slopes = xp.astype(loss._pick(loss.slopes, segment, xp=xp), r.dtype)
        curvatures = xp.astype(loss._pick(loss.curvatures, segment, xp=xp), r.dtype)
        slope = a - xp.sum(Cs * (slopes + curvatures * r))
        return float(slope), float(c + xp.sum(Cs * s * curvatures))

    def derivative_at(t: float) -> float:  # φ' is continuous: either side of a knot will do
        slope, curve = derivative(loss.segment(r - t * s, xp=xp))
        return slope + curve * t

    taus = []
    for knot in loss.knots:
        crossing = ((s > 0.0) & (r > knot)) | ((s < 0.0) & (r < knot))
        taus.append(xp.where(crossing, (r - knot) / xp.where(crossing, s, 1.0), math.inf))
    tau = xp.sort(xp.concat(taus))
    lo, hi = 0, int(xp.sum(xp.astype(xp.isfinite(tau), xp.int32)))  # bisect tau[:count]
    count = hi
    while lo < hi:  # the first breakpoint with φ' ≥ 0, or count if none
        mid = (lo + hi) // 2
        if derivative_at(float(tau[mid])) >= 0.0:
            hi = mid
        else:
            lo = mid + 1
    begin = 0.0 if lo == 0 else float(tau[lo - 1])
    if lo == count:  # past every breakpoint a term has left along its direction
        end = math.inf
        segment = xp.where(s > 0.0, 0, xp.where(s < 0.0, len(loss.knots), start))
    else:
        end = float(tau[lo])
        segment = start if lo == 0 else loss.segment(r - 0.5 * (begin + end) * s, xp=xp)
    slope, curve = derivative(segment)
    if curve <= 0.0:  # φ' constant on the segment
        if math.isinf(end) and slope < 0.0:  # φ' < 0 for ever: not a well-posed problem
            msg = "the line search found no minimum: the objective is unbounded below"
            raise ValueError(msg)
        return begin if slope >= 0.0 else end
    return min(max(-slope / curve, begin), end)

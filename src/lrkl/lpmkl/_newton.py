"""The SVM of problem (4) by Newton's method in the primal: the squared hinge (Keerthi & DeCoste
2005; Chapelle 2007) and the hinge through a smoothing continuation (Chapelle 2007).

For kernel weights ``d`` the SVM is linear on the stacked features
``Z = [√d_1 V_1 … √d_m V_m]`` (n × Σ R_k)::

    min_{v, b}  ½ ‖v‖² + C Σ_i w_i ξ_i²,   ξ_i = max(0, 1 − y_i (z_iᵀ v + b))

and its function is ``f_k = √d_k v_k`` on kernel ``k`` (``w_k`` of :class:`SVMSolution`). The
objective (``w`` the sample weights, ones by default) is once differentiable and piecewise
quadratic: on the set ``S`` of rows with ``ξ_i > 0`` it is the quadratic whose Hessian is
``I + 2C Z_SᵀW_SZ_S`` (bordered by the intercept's row ``2C [Z_SᵀW_S1; Σ_S w_i]``). Each step
solves that system — the minimiser of the quadratic of the current ``S`` — and moves to the
exact minimum along the step (:func:`lrkl.lpmkl._losses.line_minimum`); when ``S`` does not
change the point is the exact optimum, which takes a finite number of steps, in practice a few
whatever ``C`` (GFB's iterations grow with ``C``).

``Z_SᵀW_SZ_S = D^{1/2} (VᵀWV)_S D^{1/2}`` with ``D`` the kernel weights repeated per column, so
the Gram ``VᵀWV`` of the unweighted features is formed once per problem (kept in the state
across weight updates) and each step forms the Gram of ``S`` or of its complement, whichever has
fewer rows, in blocks of rows — ``O(min(|S|, n − |S|)·(Σ R_k)²)``, the step's cost — accumulated
in float64 whatever the features' dtype, as are the system and its solve. A warm start keeps the
previous solution's function (``w``), so the margins, and ``S``, start where the last weights
left them.

The hinge is not differentiable at the margin. It is smoothed over ``|ξ| ≤ h`` to
``(ξ + h)²/(4h)`` (:func:`lrkl.lpmkl._losses.smoothed_hinge`), whose Hessian is
``I + (C/2h) Z_QᵀW_QZ_Q`` over the rows ``Q`` in that band: the same steps, with ``Q`` for
``S``, three segments instead of two in the line search, and an exact optimum when no slack
changes segment. ``h`` starts at :data:`FIRST_SMOOTHING` and shrinks tenfold, each level
warm-started from the last, until the hinge's own duality gap at the point found (with
``α = C w L_h'(ξ)``, which lies in the hinge's box) is within ``tol``; the intercept is then the
hinge's best for the decision values. A warm start resumes at the last ``h``.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any, NamedTuple

from lrkl._backend import device_of
from lrkl._checks import check_integer, check_namespace, check_number
from lrkl._linalg import NotPositiveDefiniteError, cho_factor, cho_solve
from lrkl._typing import Array
from lrkl.lpmkl._gap_rounding import ROUNDING_FACTOR, loss_term, relative_gap
from lrkl.lpmkl._losses import (
    SQUARED_HINGE,
    Piecewise,
    _feasible,
    best_intercept,
    check_solver_loss,
    dual_penalty,
    line_minimum,
    smoothed_hinge,
)
from lrkl.lpmkl._problem import (
    SVMProblem,
    SVMSolution,
    check_problem,
    check_weights,
)

__all__ = ["NewtonState", "solve_newton_svm"]

#: Entries (rows × Σ R_k) of one float64 block of the stacked features.
BLOCK_ENTRIES = 1 << 22

#: A Newton decrement below this share of the objective is rounding (float64's, with the
#: margin of :mod:`lrkl.lpmkl._gap_rounding`): the point is the optimum this arithmetic gives,
#: and ``tol=0`` stops there instead of at ``max_iter``, whatever the BLAS kernel.
ROUNDING = ROUNDING_FACTOR * 2.0**-52

#: The hinge's first smoothing width h (of the slack, whose scale is the margin's 1), and the
#: factor that takes it to the next (the continuation of Chapelle 2007); the hinge's gap at
#: the smoothed optimum is about proportional to h.
FIRST_SMOOTHING = 0.5
SMOOTHING_FACTOR = 0.1


class NewtonState(NamedTuple):
    """What a warm start keeps: the last function's weights and intercept, and the Gram
    ``[V_1 … V_m]ᵀ (W / max W) [V_1 … V_m]`` of the problem (float64; the weights over their
    largest, so that it stays finite whatever their scale), formed once, with the sample
    weights ``W`` it was formed with (a problem with other weights forms its own)."""

    w: Array  # shape: (m, R), float64
    intercept: float
    gram: Array  # shape: (m·R, m·R), float64
    sample_weight: Array | None = None
    features: Array | None = None  # the problem's V the Gram was formed from
    smoothing: float | None = None  # the hinge's last smoothing h (None: the squared hinge)


def gram_only(state: object) -> NewtonState | None:
    """A cold start that lends ``state``'s Gram to another problem on the same features and
    sample weights (the other classes of one-vs-rest, whose problems differ in ``y`` only): its
    iterates are a cold start's, without forming the Gram again. None unless ``state`` is
    Newton's."""
    if not isinstance(state, NewtonState):
        return None
    return state._replace(w=0.0 * state.w, intercept=0.0, smoothing=None)


def solve_newton_svm(
    problem: SVMProblem,
    d: Array,
    /,
    *,
    tol: float = 1e-6,
    max_iter: int = 500,
    state: NewtonState | None = None,
    xp: ModuleType,
) -> SVMSolution:
    """Solve problem (4) for the kernel weights ``d`` by Newton's method in the primal, with
    the problem's loss: the squared hinge, or the hinge through a smoothing continuation.

    The squared hinge stops after a step whose Newton decrement ``−gᵀδ`` (twice the decrease
    the quadratic model of the step's start predicts: a measure of how far that point was, not
    a bound) was at most ``2·tol`` times the objective there (or within its rounding), or after
    a step that leaves the set of margin violators unchanged (then the point is the exact
    optimum); ``alpha`` is ``2C max(0, 1 − y f(x))``, the dual point of the optimum. The hinge
    solves each smoothing exactly and stops when the hinge's relative duality gap, between the
    solution's primal point and ``alpha`` (the smoothed loss's derivative, in the box), is at
    most ``tol``. Either stops after ``max_iter`` steps in all (then ``converged`` is False).
    ``state`` (a previous solution's) warm-starts from its function (and the hinge from its
    smoothing), and reuses its Gram where it is of the same features and sample weights.

    ``d`` holds one finite weight ≥ 0 per kernel, ``tol`` ≥ 0, ``max_iter`` ≥ 1; anything else
    is refused with a ValueError or TypeError naming it.
    """
    check_namespace(xp)
    check_problem(problem)
    check_solver_loss("newton", problem.loss)
    d = check_weights(d, problem, xp=xp)
    tol = check_number(tol, name="tol")
    max_iter = check_integer(max_iter, name="max_iter")
    if state is not None and not isinstance(state, NewtonState):
        msg = f"state must be a NewtonState or None, received {type(state).__name__}"
        raise TypeError(msg)
    return _solve_newton_svm(problem, d, state=state, tol=tol, max_iter=max_iter, xp=xp)


def _blocks(V: Array, rows: Array | None, *, xp: ModuleType):
    """Row blocks ``(m, rows, R)`` of the features (all rows, or ``rows``), in float64: views of
    float64 features, copies only where the rows are taken or the dtype widened."""
    m, n, R = V.shape
    count = n if rows is None else int(rows.shape[0])
    step = max(1, BLOCK_ENTRIES // max(1, m * R))  # R = 0: kernels zero on the data
    for start in range(0, count, step):
        stop = min(start + step, count)
        part = V[:, start:stop, :] if rows is None else xp.take(V, rows[start:stop], axis=1)
        yield start, stop, xp.astype(part, xp.float64, copy=False)


def _gram(V: Array, rows: Array | None, weights: Array | None, *, xp: ModuleType) -> Array:
    """``Z_rowsᵀ diag(w) Z_rows`` of the unweighted stacked features (``w`` the float64 sample
    weights of all rows, or None for ones), float64: one GEMM per block of the stacked rows."""
    m, _, R = V.shape
    total = xp.zeros((m * R, m * R), dtype=xp.float64, device=device_of(V))
    for start, stop, part in _blocks(V, rows, xp=xp):
        block = xp.reshape(xp.permute_dims(part, (1, 0, 2)), (stop - start, m * R))
        scaled = block
        if weights is not None:
            index = slice(start, stop) if rows is None else rows[start:stop]
            row_weights = weights[index] if rows is None else xp.take(weights, index)
            scaled = block * row_weights[:, None]
        total = total + xp.matrix_transpose(block) @ scaled
    return total


def _hessian_factor(
    V: Array,
    gram: Array,
    violators: Array,
    weights: Array | None,
    root: Array,
    ridge: float,
    scale: float,
    *,
    xp: ModuleType,
) -> tuple[Any, bool]:
    """The Cholesky factor of ``ridge·I + scale·D^{1/2} Z_SᵀW_SZ_S D^{1/2}``, the Gram of ``S``
    formed from its rows or as the full Gram minus its complement's, whichever has fewer rows,
    and whether it is that Hessian's. The difference carries the full Gram's rounding: where
    that makes the Hessian indefinite (a very large ``C``), the Gram of ``S`` is formed from its
    rows after all; where even that fails (the Gram's rounding past the ridge: the Hessian is
    singular in float64), the ridge is raised to that rounding: a positive definite matrix
    whose step is a descent direction, but not Newton's (False)."""
    n = V.shape[1]
    count = int(xp.sum(xp.astype(violators, xp.int64)))
    identity = xp.eye(gram.shape[0], dtype=xp.float64, device=device_of(V))

    def factor(gram_s: Array, ridge: float = ridge):
        scaled = scale * (root[:, None] * gram_s * root[None, :])
        return cho_factor(ridge * identity + scaled, xp=xp)

    rows = xp.nonzero(violators)[0]
    if 2 * count > n:
        try:
            return factor(gram - _gram(V, xp.nonzero(~violators)[0], weights, xp=xp)), True
        except NotPositiveDefiniteError:
            pass
    gram_s = _gram(V, rows, weights, xp=xp)
    try:
        return factor(gram_s), True
    except NotPositiveDefiniteError:
        largest = scale * float(xp.max(root * xp.linalg.diagonal(gram_s) * root))
        rounding = ROUNDING * gram_s.shape[0] * largest
        return factor(gram_s, max(ridge, rounding)), False


def _products(V: Array, U: Array, *, xp: ModuleType) -> Array:
    """``[V_1 … V_m]ᵀ U`` for a float64 ``U`` of shape (n, k), float64 (m·R, k): one pass."""
    m, _, R = V.shape
    total = xp.zeros((m, R, U.shape[1]), dtype=xp.float64, device=device_of(V))
    for start, stop, block in _blocks(V, None, xp=xp):
        total = total + xp.matrix_transpose(block) @ U[start:stop, :]
    return xp.reshape(total, (m * R, U.shape[1]))


def _times(V: Array, x: Array, *, xp: ModuleType) -> Array:
    """``[V_1 … V_m] x`` for a float64 ``x`` of length m·R, float64 (n,)."""
    m, _, R = V.shape
    x = xp.reshape(x, (m, R, 1))
    return xp.concat([xp.sum(block @ x, axis=0)[:, 0] for _, _, block in _blocks(V, None, xp=xp)])


def _solve_newton_svm(
    problem: SVMProblem,
    d: Array,
    *,
    state: NewtonState | None,
    tol: float,
    max_iter: int,
    xp: ModuleType,
) -> SVMSolution:
    """:func:`solve_newton_svm` on trusted inputs."""
    V = problem.V
    m, _, R = V.shape
    dev = device_of(V)
    f64 = xp.float64
    root = xp.reshape(
        xp.broadcast_to(xp.sqrt(xp.astype(d, f64))[:, None], (m, R)), (m * R,)
    )  # √d per stacked column
    weights, C = None, problem.C
    if problem.sample_weight is not None:  # C·w_i as (C·max w)·(w_i / max w): every weight ≤ 1,
        # so that the weighted Gram and products stay finite when the weights are huge
        weights = xp.astype(problem.sample_weight, f64)
        C = problem.largest_cost(xp=xp)
        weights = weights / float(xp.max(weights))
    same_problem = (
        state is not None and state.features is V and state.sample_weight is problem.sample_weight
    )
    gram = state.gram if same_problem else _gram(V, None, weights, xp=xp)
    if state is None:
        v = xp.zeros(m * R, dtype=f64, device=dev)
        b = 0.0
    else:  # the last function, f_k = √d_k v_k, in the new weights' coordinates
        w = xp.reshape(state.w, (m * R,))
        v = xp.where(root > 0.0, w / xp.where(root > 0.0, root, 1.0), 0.0)
        b = state.intercept
    steps = _Steps(problem, C, gram, root, weights, xp)
    if problem.loss == "squared_hinge":
        v, b, n_iter, converged = steps.run(SQUARED_HINGE, v, b, tol, max_iter)
        return steps.solution(SQUARED_HINGE, v, b, n_iter, converged, None, state=(gram, V))
    # The hinge: smoothed over |ξ| ≤ h, each h solved exactly (the decrement, whose curvature
    # holds on the band only, is no measure here) from the last, h shrinking until the hinge's
    # own duality gap at the smoothed solution's point is within tol.
    smoothing = FIRST_SMOOTHING if state is None or state.smoothing is None else state.smoothing
    n_iter, best, best_gap = 0, None, math.inf
    while True:
        loss = smoothed_hinge(smoothing)
        steps.capped = False
        v, b, taken, exact = steps.run(loss, v, b, 0.0, max_iter - n_iter)
        n_iter += taken
        if steps.capped and best is not None:
            break  # C/(2h) magnifies the Gram's rounding past the identity: h is too small
        # the solution in float64, its gap measured so (float32 features: their own rounding)
        solution = steps.solution(loss, v, b, n_iter, exact, smoothing, state=(gram, V), wide=True)
        gap = _primal_gap(problem, d, solution, xp=xp)
        if gap >= best_gap:
            break  # the gap, about proportional to h, no longer falls: rounding, not h, rules
        best, best_gap = solution, gap
        if gap <= tol or n_iter >= max_iter:
            break
        smoothing *= SMOOTHING_FACTOR  # (a larger jump costs more steps than it saves)
    return _narrowed(best, V.dtype, xp=xp)._replace(n_iter=n_iter, converged=best_gap <= tol)


def _narrowed(solution: SVMSolution, dtype: Any, *, xp: ModuleType) -> SVMSolution:
    """``solution``'s arrays in ``dtype`` (the features')."""
    alpha, w, decision, intercept = (
        xp.astype(a, dtype)
        for a in (solution.alpha, solution.w, solution.decision, solution.intercept)
    )
    return solution._replace(alpha=alpha, w=w, decision=decision, intercept=intercept)


class _Steps:
    """Newton steps on one problem for fixed kernel weights (``root``: √d per stacked column),
    for any :class:`~lrkl.lpmkl._losses.Piecewise` loss of the slack; ``decision`` follows the
    iterate."""

    def __init__(
        self, problem: SVMProblem, C: float, gram: Array, root: Array, weights, xp
    ) -> None:
        """``C`` and ``weights`` (float64, or None) give row ``i`` the problem's cost ``C w_i``."""
        self.V, self.gram, self.root, self.weights, self.xp = problem.V, gram, root, weights, xp
        self.C, self.sample_weight, self.given_C = C, problem.sample_weight, problem.C
        self.y = xp.astype(problem.y, xp.float64)
        self.decision: Array | None = None
        self.capped = False  # whether a step's Hessian had its curvature cut (_hessian_factor)

    def weighted(self, u: Array) -> Array:
        return u if self.weights is None else u * self.weights

    def run(
        self, loss: Piecewise, v: Array, b: float, tol: float, max_iter: int
    ) -> tuple[Array, float, int, bool]:
        """Steps from ``(v, b)`` until a step leaves every slack on its segment (the exact
        optimum), the decrement is within ``tol`` (or rounding) of the objective, or
        ``max_iter``: the point, the steps taken and whether it converged."""
        xp, V, root, y, weighted = self.xp, self.V, self.root, self.y, self.weighted
        # The objective over max(C, 1) (C the largest row cost, the weights at most 1),
        # ½ ‖v‖²/C + Σ w L(ξ) past C = 1: the same minimiser, with every quantity of the
        # iteration of order 1 whatever C (at C = 1e300 the gradient and the step's products
        # would overflow)
        ridge = 1.0 / max(self.C, 1.0)
        C = self.C * ridge
        kappa = loss.curvature
        if self.decision is None:
            self.decision = _times(V, root * v, xp=xp)
        decision = self.decision
        converged = False
        n_iter = 0
        slack = 1.0 - y * (decision + b)
        last_objective = math.inf
        for _ in range(max_iter):
            n_iter += 1
            segment = loss.segment(slack, xp=xp)
            slope = loss.derivative(slack, xp=xp, segment=segment)  # L'(ξ)
            curved = loss.curved(slack, xp=xp, segment=segment)
            objective = 0.5 * ridge * float(xp.sum(v * v)) + C * float(
                xp.sum(weighted(loss.value(slack, xp=xp, segment=segment)))
            )
            if last_objective - objective <= ROUNDING * abs(objective):
                break  # the last step gained nothing this arithmetic resolves: stalled
            # the gradient's and the Hessian's border's products in one pass
            inside = weighted(xp.astype(curved, xp.float64))
            products = _products(V, xp.stack([weighted(y * slope), inside], axis=1), xp=xp)
            grad_v = ridge * v - C * root * products[:, 0]
            grad_b = -C * float(xp.sum(weighted(y * slope)))
            factor, exact = _hessian_factor(
                V, self.gram, curved, self.weights, root, ridge, C * kappa, xp=xp
            )
            self.capped = self.capped or not exact
            last_objective = objective
            scale = C * kappa
            border = scale * root * products[:, 1]
            p = cho_solve(factor, grad_v, xp=xp)
            q = cho_solve(factor, border, xp=xp)
            corner = scale * float(xp.sum(inside))  # the intercept's own curvature
            schur = corner - float(xp.sum(border * q))
            newton = exact and schur > ROUNDING * corner  # else not the quadratic's minimiser
            if schur > ROUNDING * corner:
                step_b = (float(xp.sum(border * p)) - grad_b) / schur
            else:  # the intercept's column is (nearly) in the others' span, or b has no
                # curvature (no row on the curved segment): a step of b alone, scaled by it or
                # by one row's, which the exact line search then sizes
                step_b = -grad_b / (corner if corner > 0.0 else scale)
            step_v = -(p + q * step_b)
            decrement = -(float(xp.sum(grad_v * step_v)) + grad_b * step_b)
            size = max(
                float(xp.max(xp.abs(step_v))) if math.prod(step_v.shape) else 0.0, abs(step_b)
            )
            if size > 2.0**256:  # (a singular Hessian's step at a huge C) scaled by a power of
                # two, exactly, so that its squares in the line search stay finite
                unit = math.ldexp(1.0, -math.frexp(size)[1])
                step_v, step_b = step_v * unit, step_b * unit
            step_decision = _times(V, root * step_v, xp=xp)
            scaled_step = math.sqrt(ridge) * step_v  # (step_v alone can square past the range)
            t = line_minimum(
                float(xp.sum((ridge * v) * step_v)),
                float(xp.sum(scaled_step * scaled_step)),
                slack,
                y * (step_decision + step_b),
                C if self.weights is None else C * self.weights,
                loss=loss,
                xp=xp,
            )
            v = v + t * step_v
            b = b + t * step_b
            decision = decision + t * step_decision
            slack = 1.0 - y * (decision + b)
            if decrement <= 2.0 * max(tol, ROUNDING) * objective:
                converged = True  # the model's predicted decrease within tol: the end is taken
                break
            if newton and bool(xp.all(loss.segment(slack, xp=xp) == segment)):
                converged = True  # no slack changed segment: the quadratic's minimum, exactly
                break
        self.decision = decision
        return v, b, n_iter, converged

    def solution(
        self,
        loss: Piecewise,
        v: Array,
        b: float,
        n_iter: int,
        converged: bool,
        smoothing: float | None,
        *,
        state: tuple[Array, Array],
        wide: bool = False,
    ) -> SVMSolution:
        """The SVM solution at ``(v, b)``: ``α = C w L'(ξ)``, the dual point of the optimum of
        ``loss``; the intercept of the hinge (``smoothing`` given) is the hinge's own best for
        these decision values."""
        xp, C = self.xp, self.C
        if not math.isfinite(b):
            msg = f"the Newton iteration diverged (C={self.given_C!r}): the intercept became {b}"
            raise ValueError(msg)
        slack = 1.0 - self.y * (self.decision + b)
        alpha = C * self.weighted(loss.derivative(slack, xp=xp))
        intercept = b
        if smoothing is not None:
            costs = C if self.weights is None else C * self.weights
            intercept = float(best_intercept(self.decision, self.y, costs, "hinge", xp=xp))
        m, _, R = self.V.shape
        w = xp.reshape(self.root * v, (m, R))
        dtype, dev = (xp.float64 if wide else self.V.dtype), device_of(self.V)
        gram, V = state
        return SVMSolution(
            xp.astype(alpha, dtype),
            xp.astype(w, dtype),
            xp.astype(self.decision, dtype),
            xp.asarray(intercept, dtype=dtype, device=dev),
            n_iter,
            converged,
            NewtonState(w, b, gram, self.sample_weight, V, smoothing),
        )


def _primal_gap(problem: SVMProblem, d: Array, solution: SVMSolution, *, xp: ModuleType) -> float:
    """The relative duality gap of the SVM (4) for ``d`` between the solution's own primal
    point, ``P = ½ Σ_k ‖w_k‖²/d_k + C Σ_i ξ_i²`` (squared hinge; ``ξ_i`` for the hinge) at its
    ``w`` and intercept, and the dual at its ``alpha`` made feasible,
    ``D = 1ᵀα − ½ αᵀYK_dYα − ‖α‖²/(4C)`` (without the last term for the hinge); in float64.

    A primal method's ``α = 2Cξ`` is only as accurate as ``ξ`` times ``2C``: the function
    ``K_dYα`` it implies (what :func:`lrkl.lpmkl.duality_gap` measures from ``α`` alone) can be
    far from the solution's at a large ``C`` even when the solution is within ``tol``; its own
    ``w`` is the primal point to measure."""
    f64 = xp.float64  # in float64 whatever the features' dtype, as Newton's arithmetic is
    m, _, R = problem.V.shape
    # P and D over the largest row cost (at least 1), as the iteration's objective: α_i ≤ C w_i,
    # and the squares of α or of Vᵀyα would overflow at C = 1e300 or w_i = 1e300
    unit = 1.0 / max(problem.largest_cost(xp=xp), 1.0)
    y = xp.astype(problem.y, f64)
    costs = problem.costs()
    costs = costs * unit if isinstance(costs, float) else xp.astype(costs, f64) * unit
    d = xp.astype(d, f64)
    alpha = _feasible(xp.astype(solution.alpha, f64) * unit, y, costs, problem.loss, xp=xp)
    w = xp.astype(solution.w, f64)
    positive = d > 0
    norms2 = xp.sum(w * w, axis=1)
    regulariser = 0.5 * unit * xp.sum(xp.where(positive, norms2 / xp.where(positive, d, 1.0), 0.0))
    decision = xp.astype(solution.decision, f64)
    intercept = xp.astype(solution.intercept, f64)
    loss, loss_magnitude = loss_term(decision, intercept, y, costs, problem.loss, xp=xp)
    products = xp.reshape(_products(problem.V, (y * alpha)[:, None], xp=xp), (m, R))
    quadratic = 0.5 * xp.sum(d[:, None] * products * products) / unit
    penalty = dual_penalty(alpha, costs, problem.loss, xp=xp)
    primal = regulariser + loss
    dual = xp.sum(alpha) - quadratic - penalty
    magnitude = regulariser + loss_magnitude + xp.sum(alpha) + quadratic + penalty
    return relative_gap(primal, dual, magnitude, xp=xp)

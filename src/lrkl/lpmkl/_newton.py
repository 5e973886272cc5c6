"""The SVM of problem (4) with the squared hinge, by Newton's method in the primal (Keerthi &
DeCoste 2005; Chapelle 2007).

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
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import NamedTuple

from lrkl._backend import device_of
from lrkl._checks import check_integer, check_namespace, check_number
from lrkl._linalg import NotPositiveDefiniteError, cho_factor, cho_solve
from lrkl._typing import Array
from lrkl.lpmkl._gap_rounding import ROUNDING_FACTOR, loss_term, relative_gap
from lrkl.lpmkl._losses import _feasible, check_solver_loss, dual_penalty, line_minimum
from lrkl.lpmkl._problem import (
    SVMProblem,
    SVMSolution,
    _kernel_products,
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


class NewtonState(NamedTuple):
    """What a warm start keeps: the last function's weights and intercept, and the Gram
    ``[V_1 … V_m]ᵀ W [V_1 … V_m]`` of the problem (float64), formed once, with the sample
    weights ``W`` it was formed with (a problem with other weights forms its own)."""

    w: Array  # shape: (m, R), float64
    intercept: float
    gram: Array  # shape: (m·R, m·R), float64
    sample_weight: Array | None = None
    features: Array | None = None  # the problem's V the Gram was formed from


def gram_only(state: object) -> NewtonState | None:
    """A cold start that lends ``state``'s Gram to another problem on the same features and
    sample weights (the other classes of one-vs-rest, whose problems differ in ``y`` only): its
    iterates are a cold start's, without forming the Gram again. None unless ``state`` is
    Newton's."""
    if not isinstance(state, NewtonState):
        return None
    return state._replace(w=0.0 * state.w, intercept=0.0)


def solve_newton_svm(
    problem: SVMProblem,
    d: Array,
    /,
    *,
    tol: float = 1e-6,
    max_iter: int = 50,
    state: NewtonState | None = None,
    xp: ModuleType,
) -> SVMSolution:
    """Solve problem (4) with the squared hinge (``svm_problem(..., loss="squared_hinge")``) for
    the kernel weights ``d`` by Newton's method in the primal.

    Stops after a step whose Newton decrement ``−gᵀδ`` (twice the decrease the quadratic model
    of the step's start predicts: a measure of how far that point was, not a bound) was at most
    ``2·tol`` times the objective there (or within its rounding), or after a step that leaves
    the set of margin violators unchanged (then the point is the exact optimum), or after
    ``max_iter`` steps (then ``converged`` is False). ``alpha`` is ``2C max(0, 1 − y f(x))``,
    the dual point of the optimum; ``state`` (a previous solution's) warm-starts from its
    function, and reuses its Gram where it is of the same features and sample weights.

    ``problem`` has the squared hinge, ``d`` holds one finite weight ≥ 0 per kernel, ``tol`` ≥ 0,
    ``max_iter`` ≥ 1; anything else is refused with a ValueError or TypeError naming it.
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
    """Row blocks of the stacked features ``[V_1 … V_m]`` (all rows, or ``rows``), in float64."""
    m, n, R = V.shape
    count = n if rows is None else int(rows.shape[0])
    step = max(1, BLOCK_ENTRIES // (m * R))
    for start in range(0, count, step):
        stop = min(start + step, count)
        part = V[:, start:stop, :] if rows is None else xp.take(V, rows[start:stop], axis=1)
        block = xp.reshape(xp.permute_dims(part, (1, 0, 2)), (stop - start, m * R))
        yield start, stop, xp.astype(block, xp.float64)


def _gram(V: Array, rows: Array | None, weights: Array | None, *, xp: ModuleType) -> Array:
    """``Z_rowsᵀ diag(w) Z_rows`` of the unweighted stacked features (``w`` the float64 sample
    weights of all rows, or None for ones), float64."""
    D = V.shape[0] * V.shape[2]
    total = xp.zeros((D, D), dtype=xp.float64, device=device_of(V))
    for start, stop, block in _blocks(V, rows, xp=xp):
        scaled = block
        if weights is not None:
            index = slice(start, stop) if rows is None else rows[start:stop]
            part = weights[index] if rows is None else xp.take(weights, index)
            scaled = block * part[:, None]
        total = total + xp.matrix_transpose(block) @ scaled
    return total


def _hessian_factor(
    V: Array,
    gram: Array,
    violators: Array,
    weights: Array | None,
    root: Array,
    scale: float,
    *,
    xp: ModuleType,
):
    """The Cholesky factor of ``I + scale·D^{1/2} Z_SᵀW_SZ_S D^{1/2}``, the Gram of ``S`` formed
    from its rows or as the full Gram minus its complement's, whichever has fewer rows. The
    difference carries the full Gram's rounding: where that makes the Hessian indefinite (a
    very large ``C``), the Gram of ``S`` is formed from its rows after all."""
    n = V.shape[1]
    count = int(xp.sum(xp.astype(violators, xp.int64)))
    identity = xp.eye(gram.shape[0], dtype=xp.float64, device=device_of(V))

    def factor(gram_s: Array):
        return cho_factor(identity + scale * (root[:, None] * gram_s * root[None, :]), xp=xp)

    rows = xp.nonzero(violators)[0]
    if 2 * count <= n:
        return factor(_gram(V, rows, weights, xp=xp))
    try:
        return factor(gram - _gram(V, xp.nonzero(~violators)[0], weights, xp=xp))
    except NotPositiveDefiniteError:
        return factor(_gram(V, rows, weights, xp=xp))


def _products(V: Array, U: Array, *, xp: ModuleType) -> Array:
    """``[V_1 … V_m]ᵀ U`` for a float64 ``U`` of shape (n, k), float64 (m·R, k): one pass."""
    total = xp.zeros((V.shape[0] * V.shape[2], U.shape[1]), dtype=xp.float64, device=device_of(V))
    for start, stop, block in _blocks(V, None, xp=xp):
        total = total + xp.matrix_transpose(block) @ U[start:stop, :]
    return total


def _times(V: Array, x: Array, *, xp: ModuleType) -> Array:
    """``[V_1 … V_m] x`` for a float64 ``x`` of length m·R, float64 (n,)."""
    return xp.concat([block @ x for _, _, block in _blocks(V, None, xp=xp)])


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
    C = problem.C
    y = xp.astype(problem.y, f64)
    weights = None if problem.sample_weight is None else xp.astype(problem.sample_weight, f64)

    def weighted(u: Array) -> Array:
        return u if weights is None else u * weights

    root = xp.reshape(
        xp.broadcast_to(xp.sqrt(xp.astype(d, f64))[:, None], (m, R)), (m * R,)
    )  # √d per stacked column
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
    decision = _times(V, root * v, xp=xp)
    converged = False
    n_iter = 0
    slack = 1.0 - y * (decision + b)
    for _ in range(max_iter):
        n_iter += 1
        violators = slack > 0.0
        xi = xp.where(violators, slack, 0.0)
        objective = 0.5 * float(xp.sum(v * v)) + C * float(xp.sum(weighted(xi * xi)))
        # the gradient's and the Hessian's border's products in one pass
        inside = weighted(xp.astype(violators, f64))
        products = _products(V, xp.stack([weighted(y * xi), inside], axis=1), xp=xp)
        grad_v = v - 2.0 * C * root * products[:, 0]
        border = 2.0 * C * root * products[:, 1]
        grad_b = -2.0 * C * float(xp.sum(weighted(y * xi)))
        factor = _hessian_factor(V, gram, violators, weights, root, 2.0 * C, xp=xp)
        p = cho_solve(factor, grad_v, xp=xp)
        q = cho_solve(factor, border, xp=xp)
        corner = 2.0 * C * float(xp.sum(inside))  # the intercept's own curvature
        schur = corner - float(xp.sum(border * q))
        if schur > ROUNDING * corner:
            step_b = (float(xp.sum(border * p)) - grad_b) / schur
        else:  # the intercept's column is (nearly) in the others' span: a step of b alone
            step_b = -grad_b / corner if corner > 0.0 else 0.0
        step_v = -(p + q * step_b)
        decrement = -(float(xp.sum(grad_v * step_v)) + grad_b * step_b)
        step_decision = _times(V, root * step_v, xp=xp)
        t = line_minimum(
            float(xp.sum(v * step_v)),
            float(xp.sum(step_v * step_v)),
            slack,
            y * (step_decision + step_b),
            C if weights is None else C * weights,
            xp=xp,
        )
        v = v + t * step_v
        b = b + t * step_b
        decision = decision + t * step_decision
        slack = 1.0 - y * (decision + b)
        if decrement <= 2.0 * max(tol, ROUNDING) * objective:
            converged = True  # the model's predicted decrease within tol: the step's end is taken
            break
        if bool(xp.all((slack > 0.0) == violators)):
            converged = True  # S unchanged along the step: it minimised S's quadratic, exactly
            break
    if not math.isfinite(b):
        msg = f"the Newton iteration diverged (C={C!r}): the intercept became {b}"
        raise ValueError(msg)
    alpha = 2.0 * C * weighted(xp.clip(slack, min=0.0))
    w = xp.reshape(root * v, (m, R))
    dtype = V.dtype
    return SVMSolution(
        xp.astype(alpha, dtype),
        xp.astype(w, dtype),
        xp.astype(decision, dtype),
        xp.asarray(b, dtype=dtype, device=dev),
        n_iter,
        converged,
        NewtonState(w, b, gram, problem.sample_weight, V),
    )


def _primal_gap(problem: SVMProblem, d: Array, solution: SVMSolution, *, xp: ModuleType) -> float:
    """The relative duality gap of the squared-hinge SVM (4) for ``d`` between the solution's
    own primal point, ``P = ½ Σ_k ‖w_k‖²/d_k + C Σ_i ξ_i²`` at its ``w`` and intercept, and
    the dual at its ``alpha`` made feasible, ``D = 1ᵀα − ½ αᵀYK_dYα − ‖α‖²/(4C)``.

    A primal method's ``α = 2Cξ`` is only as accurate as ``ξ`` times ``2C``: the function
    ``K_dYα`` it implies (what :func:`lrkl.lpmkl.duality_gap` measures from ``α`` alone) can be
    far from the solution's at a large ``C`` even when the solution is within ``tol``; its own
    ``w`` is the primal point to measure."""
    y = problem.y
    alpha = _feasible(solution.alpha, y, problem.costs(), problem.loss, xp=xp)
    positive = d > 0
    norms2 = xp.sum(solution.w * solution.w, axis=1)
    regulariser = 0.5 * xp.sum(xp.where(positive, norms2 / xp.where(positive, d, 1.0), 0.0))
    loss, loss_magnitude = loss_term(
        solution.decision, solution.intercept, y, problem.costs(), problem.loss, xp=xp
    )
    products = _kernel_products(problem, alpha, xp=xp)
    quadratic = 0.5 * xp.sum(d[:, None] * products * products)
    penalty = dual_penalty(alpha, problem.costs(), problem.loss, xp=xp)
    primal = regulariser + loss
    dual = xp.sum(alpha) - quadratic - penalty
    magnitude = regulariser + loss_magnitude + xp.sum(alpha) + quadratic + penalty
    return relative_gap(primal, dual, magnitude, xp=xp)

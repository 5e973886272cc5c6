"""ℓp-norm MKL (Kloft et al. 2011) over low-rank kernels: alternate the SVM for fixed weights
and the closed-form weight update, eq. (3) of Rakotomamonjy & Chanda.

With the SVM's solution ``f = Σ_k f_k + b``, ``f_k = d_k Σ_i α_i y_i K_k(x_i, ·)``, the weights
minimising the MKL primal ``½ Σ_k ‖f_k‖²/d_k + C Σ_i ξ_i`` over ``‖d‖_p ≤ 1`` for fixed ``f`` are

    d_k = ‖f_k‖^{2/(p+1)} / (Σ_j ‖f_j‖^{2p/(p+1)})^{1/p}

with ``‖f_k‖² = d_k² αᵀ Y K_k Y α = ‖w_k‖²``, ``w_k = d_k V_kᵀ Y α``. The paper's eq. (5) writes
``‖f_k‖² = d_k αᵀ Y V_k V_kᵀ Y α``, a factor ``d_k`` short: iterated, it converges to
``d ∝ (αᵀYK_kYα)^{1/p}`` instead of the optimum's ``d ∝ (αᵀYK_kYα)^{1/(p−1)}``, and the MKL
objective need not decrease (``paper_norms=True`` reproduces it; :ref:`lpmkl-erratum`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

from lrkl._backend import check_array, device_of
from lrkl._checks import check_bool, check_integer, check_namespace, check_number, check_option
from lrkl._typing import Array
from lrkl.lpmkl._gap_rounding import loss_term, relative_gap
from lrkl.lpmkl._gfb import _duality_gap, _solve_gfb_svm
from lrkl.lpmkl._losses import _feasible, best_intercept, check_solver_loss, dual_penalty
from lrkl.lpmkl._newton import NewtonState, _primal_gap, _solve_newton_svm
from lrkl.lpmkl._problem import (
    SVMProblem,
    SVMSolution,
    _kernel_products,
    check_problem,
    check_solution,
    check_weights,
)

__all__ = [
    "MKL_STOPS",
    "SVM_SOLVERS",
    "MKLResult",
    "MKLState",
    "lp_weights",
    "mkl_duality_gap",
    "mkl_objective",
    "solve_lp_mkl",
]


def lp_weights(norms2: Array, p: float, *, xp: ModuleType) -> Array:
    """Eq. (3): the weights ``d`` with ``‖d‖_p = 1`` that minimise ``Σ_k ‖f_k‖²/d_k`` for the
    squared norms ``norms2 = (‖f_1‖², …, ‖f_m‖²)`` (finite, non-negative); uniform when every
    ``f_k`` is zero. ``p ≥ 1``."""
    check_namespace(xp)
    check_number(p, name="p", low=1.0)
    norms2 = check_array(norms2, name="norms2", ndim=1, xp=xp)
    if not bool(xp.all(norms2 >= 0.0)):
        msg = "norms2 must hold squared norms (>= 0), received a negative value"
        raise ValueError(msg)
    return _lp_weights(norms2, float(p), xp=xp)


def _lp_weights(norms2: Array, p: float, *, xp: ModuleType) -> Array:
    """:func:`lp_weights` on trusted inputs."""
    m = norms2.shape[0]
    powered = norms2 ** (1.0 / (p + 1.0))  # ‖f_k‖^{2/(p+1)}
    total = xp.sum(powered**p) ** (1.0 / p)
    if float(total) == 0.0:
        return xp.full(m, float(m) ** (-1.0 / p), dtype=norms2.dtype, device=device_of(norms2))
    return powered / total


def mkl_objective(solution: SVMSolution, problem: SVMProblem, d: Array, *, xp: ModuleType) -> float:
    """The MKL primal ``½ Σ_k ‖f_k‖²/d_k + C Σ_i max(0, 1 − y_i f(x_i))`` at a solution (a
    kernel with ``d_k = 0`` contributes nothing), the loss squared for the squared hinge.

    ``problem`` comes from :func:`lrkl.lpmkl.svm_problem`, ``solution`` is an
    :class:`~lrkl.lpmkl.SVMSolution` of it (finite arrays of the problem's shapes) and ``d``
    holds one finite weight ≥ 0 per kernel; anything else is refused with a ValueError or
    TypeError naming the argument.
    """
    check_namespace(xp)
    d = check_weights(d, problem, xp=xp)
    check_solution(solution, problem, xp=xp)
    return _mkl_objective(solution, problem, d, xp=xp)


def _mkl_objective(
    solution: SVMSolution, problem: SVMProblem, d: Array, *, xp: ModuleType
) -> float:
    """:func:`mkl_objective` on trusted inputs."""
    norms2 = xp.sum(solution.w * solution.w, axis=1)
    positive = d > 0
    ratio = xp.where(positive, norms2 / xp.where(positive, d, 1.0), 0.0)
    loss, _ = loss_term(
        solution.decision, solution.intercept, problem.y, problem.costs(), problem.loss, xp=xp
    )
    return float(0.5 * xp.sum(ratio) + loss)


def _power_mean_norm(values: Array, power: float, *, xp: ModuleType) -> Array:
    """``(Σ_k v_k^power)^{1/power}`` of non-negative ``values``, scaled by their maximum so that
    no power over- or underflows; ``power = inf`` is the maximum."""
    top = xp.max(values)
    if power == float("inf"):
        return top
    ratio = values / xp.where(top > 0, top, 1.0)
    return top * xp.sum(ratio**power) ** (1.0 / power)


def mkl_duality_gap(
    problem: SVMProblem, solution: SVMSolution, p: float, *, eta: float = 0.0, xp: ModuleType
) -> float:
    """The relative duality gap ``(P − D) / max(|P|, |D|)`` of the ℓp-MKL problem at an SVM
    solution (its ``alpha`` and its function ``f_k = w_k``), whatever weights it was solved for.

    By the minimax theorem the MKL problem ``min_{‖d‖_p ≤ 1} max_α 1ᵀα − ½ αᵀY(K_d + ηI)Yα``
    has the dual ``D(α) = 1ᵀα − η/2 ‖α‖² − ½ ‖q(α)‖_{p*}``, ``q_k = ‖V_kᵀYα‖²``,
    ``1/p + 1/p* = 1``, at ``alpha`` made feasible (the box and ``yᵀα = 0``). The primal ``P`` is
    the MKL primal at the solution's function with its best weights (eq. (3)) and intercept,
    ``½ (Σ_k ‖f_k‖^{2p/(p+1)})^{(p+1)/p} + η/2 ‖α‖² + C Σ_i max(0, 1 − y_i f(x_i))``. Every such
    pair has ``D ≤ D* = P* ≤ P``: the gap bounds how far the fit is from the MKL optimum, and it
    goes to zero as the alternation converges, whatever path the iterates took. It is the
    certificate of :func:`solve_lp_mkl`'s ``stop="mkl_gap"``; a gap within the rounding of its
    own terms is 0 (``lrkl.lpmkl._gap_rounding``). Two passes over the features and a sort.
    """
    check_namespace(xp)
    check_problem(problem)
    check_number(p, name="p", low=1.0)
    check_number(eta, name="eta")
    check_solution(solution, problem, need_alpha=True, xp=xp)
    return _mkl_duality_gap(problem, solution, float(p), eta=float(eta), xp=xp)


def _mkl_duality_gap(
    problem: SVMProblem, solution: SVMSolution, p: float, *, eta: float = 0.0, xp: ModuleType
) -> float:
    """:func:`mkl_duality_gap` on trusted inputs."""
    y = problem.y
    # P and D over the largest row cost (at least 1): α_i ≤ C w_i, and α² or (V_kᵀYα)² would
    # overflow at C = 1e300 or w_i = 1e300
    unit = 1.0 / max(problem.largest_cost(xp=xp), 1.0)
    costs = problem.costs() * unit
    alpha = _feasible(solution.alpha * unit, problem.y, costs, problem.loss, xp=xp)
    products = _kernel_products(problem, alpha, xp=xp)  # V_kᵀYα, (m, R)
    conjugate = float("inf") if p == 1.0 else p / (p - 1.0)

    def eta_term(a: Array) -> Array | float:  # η/2 ‖α‖² of a scaled α (0 without η)
        return 0.5 * eta * xp.sum(a * a) / unit if eta > 0.0 else 0.0

    quadratic = (
        eta_term(alpha)
        + dual_penalty(alpha, costs, problem.loss, xp=xp)
        + 0.5 * _power_mean_norm(xp.sum(products * products, axis=1), conjugate, xp=xp) / unit
    )
    dual = xp.sum(alpha) - quadratic
    decision = solution.decision + eta * y * solution.alpha
    intercept = best_intercept(decision, y, costs, problem.loss, xp=xp)
    loss, loss_magnitude = loss_term(decision, intercept, y, costs, problem.loss, xp=xp)
    norms2 = xp.sum(solution.w * solution.w, axis=1)  # ‖f_k‖²
    regulariser = 0.5 * unit * _power_mean_norm(norms2, p / (p + 1.0), xp=xp)
    # the function's own ηI part: its weights are the solution's α, not the feasible one's
    penalty = eta_term(solution.alpha * unit)
    primal = regulariser + penalty + loss
    magnitude = xp.sum(alpha) + quadratic + regulariser + penalty + loss_magnitude
    return relative_gap(primal, dual, magnitude, xp=xp)


def _gfb(variant: str) -> Callable[..., SVMSolution]:
    return functools.partial(_solve_gfb_svm, variant=variant)


def _solution_gap(
    problem: SVMProblem, d: Array, solution: SVMSolution, eta: float, *, xp: ModuleType
) -> float:
    """The relative duality gap of the SVM (4) for ``d`` at a solver's solution: from its dual
    point (:func:`lrkl.lpmkl.duality_gap`; GFB, the interior point), between its primal and
    dual points for Newton's (a primal method); NaN without a dual point (liblinear)."""
    if solution.alpha is None:
        return math.nan
    if isinstance(solution.state, NewtonState):
        return _primal_gap(problem, d, solution, xp=xp)
    return _duality_gap(problem, d, solution.alpha, eta=eta, xp=xp)


def _newton(problem, d, *, state, tol, max_iter, eta, xp, stop="change", alpha_scale=1.0):
    return _solve_newton_svm(problem, d, state=state, tol=tol, max_iter=max_iter, xp=xp)


def _host(name: str) -> Callable[..., SVMSolution]:
    def solve(problem, d, *, state, tol, max_iter, eta, xp, stop="change", alpha_scale=1.0):
        from lrkl.lpmkl import _host_solvers

        return getattr(_host_solvers, name)(
            problem, d, state=state, tol=tol, max_iter=max_iter, eta=eta, xp=xp
        )

    return solve


#: The stopping rules of :func:`solve_lp_mkl` (``"gap"`` and ``"change"`` are also GFB's own).
MKL_STOPS = ("mkl_gap", "gap", "change")

#: The share of the last MKL duality gap to which ``stop="mkl_gap"`` solves each SVM (and of
#: ``mkl_tol``, the least it asks): small enough that the SVM's own gap does not hold the MKL
#: gap above ``mkl_tol``, large enough that early SVMs, whose weights will move, stay cheap.
GAP_SHARE = 0.25

#: ``stop="mkl_gap"`` gives up (not converged) when the MKL gap after an update is not below
#: ``STALL_FACTOR`` times its value ``STALL_UPDATES`` updates earlier: a gap that no longer
#: shrinks is one the arithmetic cannot resolve (a problem scaled near the floating-point
#: limits), and more updates would only spend ``max_iter`` SVM iterations each. The gap is
#: not monotone: at ``p = 1`` a converging fit's rose from 3.0e-3 to 4.8e-3 and took 17 updates
#: to fall below 3.0e-3 again, which a window of 10 updates took for a stall (it stopped at
#: 4.3e-3; with 30 it reaches ``mkl_tol`` in 64 updates).
STALL_UPDATES = 30
STALL_FACTOR = 0.9

#: ``stop="mkl_gap"`` solves each SVM to at most this share of the previous SVM's tolerance:
#: the tolerances fall even while the MKL gap does not. A loose first SVM (squared hinge at
#: C = 10⁴) left the gap near 1, so every later SVM was asked for ``GAP_SHARE`` again, took one
#: Newton step, and the gap never fell (objective 34 % above the optimum, "not converged").
TOL_SHRINK = 0.5

#: The solvers of problem (4) for fixed weights, by name: ``solve(problem, d, *, state, tol,
#: max_iter, eta, xp, stop="change", alpha_scale=1.0) -> SVMSolution``; ``stop`` and
#: ``alpha_scale`` are GFB's (:func:`lrkl.lpmkl.solve_gfb_svm`); Newton's method (both losses,
#: :func:`lrkl.lpmkl.solve_newton_svm`) takes ``tol`` as its relative Newton decrement (squared
#: hinge) or relative duality gap (hinge); the last
#: two stop by their own criteria and run on NumPy only.
SVM_SOLVERS: dict[str, Callable[..., SVMSolution]] = {
    "newton": _newton,
    "gfb": _gfb("split"),
    "gfb_naive": _gfb("naive"),
    "interior_point": _host("interior_point"),
    "liblinear": _host("liblinear"),
}


class MKLState(NamedTuple):
    """What a ``callback`` receives after each SVM solve and weight update."""

    n_iter: int  # outer iterations so far
    weights: Array  # the weights the SVM was solved with
    objective: float  # the MKL primal there
    weight_change: float  # max |Δd| of the update
    svm_iterations: int  # iterations of this SVM solve
    duality_gap: float = float("nan")  # the relative MKL gap (stop="mkl_gap"), else NaN


class MKLResult(NamedTuple):
    """The fitted ℓp-MKL model: ``weights`` (the ``d`` its SVM was solved with) and that SVM's
    ``solution``; ``objectives`` holds the MKL primal after every SVM solve."""

    weights: Array  # shape: (m,)
    solution: SVMSolution
    objectives: tuple[float, ...]
    n_iter: int
    svm_iterations: int
    converged: bool
    #: why an unconverged loop stopped: "max_outer_iter", "stalled" (the MKL gap stopped
    #: shrinking), "max_iter" (the loop's rule held but the last SVM stopped at its own cap)
    #: or "callback"; None where it converged
    stopped_by: str | None = None


def stops_on_gap(stop: str, solver: str) -> bool:
    """Whether the MKL loop stops on its duality gap: ``stop="mkl_gap"`` with a (resolved)
    solver that gives a dual point, every one but liblinear."""
    return stop == "mkl_gap" and solver != "liblinear"


def check_solver(solver: str, loss: str, eta: float) -> str:
    """``solver`` resolved (:func:`_resolved_solver`), if it solves ``loss`` and ``eta`` is 0
    with the squared hinge and with Newton's method; else a ValueError naming them."""
    solver = _resolved_solver(solver, loss, eta)
    check_solver_loss(solver, loss)
    if eta != 0.0 and (loss == "squared_hinge" or solver == "newton"):
        why = (
            "with loss='squared_hinge' (whose dual already holds ‖α‖²/(4C))"
            if loss == "squared_hinge"
            else "with solver='newton' (η is a term of GFB's dual: use solver='gfb')"
        )
        msg = f"eta must be 0 {why}, received eta={eta!r}"
        raise ValueError(msg)
    return solver


def _resolved_solver(solver: str, loss: str, eta: float = 0.0) -> str:
    """``solver``, with ``"auto"`` resolved: Newton's method, except for the hinge with an
    ``eta`` (Remark 1's term of the dual), which is GFB's."""
    if solver != "auto":
        return solver
    return "gfb" if loss == "hinge" and eta != 0.0 else "newton"


#: The largest ``max_outer_iter`` of :func:`solve_lp_mkl` and ``LowRankMKLClassifier``: ``p = 1``
#: takes a few hundred updates; past ten thousand the weights no longer move in float64.
MAX_OUTER_ITER = 10_000


def solve_lp_mkl(
    problem: SVMProblem,
    p: float,
    /,
    *,
    solver: str = "auto",
    tol: float = 1e-4,
    weight_tol: float = 1e-4,
    mkl_tol: float = 1e-3,
    max_iter: int = 3000,
    max_outer_iter: int = 100,
    eta: float = 0.0,
    stop: str = "mkl_gap",
    alpha_scale: float | str = 1.0,
    weights: Array | None = None,
    paper_norms: bool = False,
    callback: Callable[[MKLState], bool] | None = None,
    xp: ModuleType,
) -> MKLResult:
    """Algorithm 1: alternate the SVM (4) for fixed ``d`` and the update (3), from ``weights``
    (default uniform, ``‖d‖_p = 1``), warm-starting each SVM from the last one's state.

    ``solver`` names one of :data:`SVM_SOLVERS` that solves the problem's loss
    (:data:`lrkl.lpmkl._losses.SOLVER_LOSSES`); ``"auto"`` is Newton's method (GFB for the
    hinge with an ``eta``).

    The stopping rule, ``stop``:

    - ``"mkl_gap"`` (the default, as in :class:`lrkl.LowRankMKLClassifier`): stop when the
      relative MKL duality gap (:func:`mkl_duality_gap`) is at most ``mkl_tol``. Each SVM is
      solved to a relative duality gap of ``GAP_SHARE`` times the last MKL gap, or
      ``TOL_SHRINK`` times the last SVM's tolerance where that is smaller (at least
      ``GAP_SHARE·mkl_tol``; by GFB's own ``stop="gap"``, by the interior point's tolerance, by
      Newton's decrement):
      inexact while the weights move, exact as they settle, so the weights are updated from
      solutions accurate enough to move them the right way, and the gap, a certificate, goes
      to zero whatever rounding the iterates carry. ``tol`` and ``weight_tol`` are not used.
      liblinear gives no dual point: with it each SVM stops at liblinear's ``tol`` and the
      loop when the MKL objective's relative change over an update is at most ``mkl_tol``
      (a rule on the objective, which the optimum fixes, not on the weights, which it may not).
    - ``"change"`` (the paper's rules, which give ``tol`` and ``weight_tol`` their meaning; the
      default until issue 33): each SVM stops by the relative change of its objective (``tol``,
      :func:`lrkl.lpmkl.solve_gfb_svm`), the loop when ``max |Δd| < weight_tol``. The weights then
      move by the SVM's inexactness as well as by the update, so whether and when the rule
      holds depends on the last bits of the arithmetic: the same fit can stop, or run to
      ``max_outer_iter``, on different CPUs' BLAS kernels; ``"mkl_gap"`` does not.
    - ``"gap"``: each SVM stops at the relative SVM duality gap ``tol`` (GFB's ``stop="gap"``),
      the loop when ``max |Δd| < weight_tol``.

    All stop after ``max_outer_iter`` updates (at most ``MAX_OUTER_ITER`` = 10 000: with
    ``weight_tol=0`` or ``tol=0``, which floating point cannot meet, the loop runs to that cap;
    unbounded, ``max_outer_iter=10**9`` ran for hours on 40 rows), or when ``callback``
    returns True; ``"mkl_gap"`` also gives up when ``STALL_UPDATES`` updates have not shrunk
    the gap by a tenth.
    ``max_iter`` and ``alpha_scale`` are the SVM solver's (:data:`SVM_SOLVERS`). The model
    returned is the last SVM's, with the weights it was solved for.
    """
    check_namespace(xp)
    check_number(p, name="p", low=1.0)
    check_option(solver, ("auto", *SVM_SOLVERS), name="solver")
    check_option(stop, MKL_STOPS, name="stop")
    check_number(tol, name="tol")  # 0: run to the iteration caps
    check_number(weight_tol, name="weight_tol")
    check_number(mkl_tol, name="mkl_tol")
    check_integer(max_iter, name="max_iter")
    check_integer(max_outer_iter, name="max_outer_iter", high=MAX_OUTER_ITER)
    check_number(eta, name="eta")
    if alpha_scale != "auto":
        check_number(alpha_scale, name="alpha_scale", strict=True)
    check_problem(problem)
    solver = check_solver(solver, problem.loss, eta)
    if weights is not None:
        weights = check_weights(weights, problem, name="weights", xp=xp)
    if callback is not None and not callable(callback):
        msg = f"callback must be callable or None, received {callback!r}"
        raise TypeError(msg)
    return _solve_lp_mkl(
        problem,
        float(p),
        solver=solver,
        tol=float(tol),
        weight_tol=float(weight_tol),
        mkl_tol=float(mkl_tol),
        max_iter=int(max_iter),
        max_outer_iter=int(max_outer_iter),
        eta=float(eta),
        stop=stop,
        alpha_scale=alpha_scale,
        weights=weights,
        paper_norms=check_bool(paper_norms, name="paper_norms"),
        callback=callback,
        xp=xp,
    )


def _solve_lp_mkl(
    problem: SVMProblem,
    p: float,
    /,
    *,
    solver: str = "auto",
    tol: float = 1e-4,
    weight_tol: float = 1e-4,
    mkl_tol: float = 1e-3,
    max_iter: int = 3000,
    max_outer_iter: int = 100,
    eta: float = 0.0,
    stop: str = "mkl_gap",
    alpha_scale: float | str = 1.0,
    weights: Array | None = None,
    paper_norms: bool = False,
    callback: Callable[[MKLState], bool] | None = None,
    state: Any = None,
    xp: ModuleType,
) -> MKLResult:
    """:func:`solve_lp_mkl` on trusted inputs, the first SVM warm-started from ``state`` (a
    previous solution's of the same problem, up to ``C`` and the labels' weights' cost)."""
    solver = _resolved_solver(solver, problem.loss, eta)
    m = problem.V.shape[0]
    dtype = problem.V.dtype
    if weights is None:
        d = xp.full(m, float(m) ** (-1.0 / p), dtype=dtype, device=device_of(problem.V))
    else:
        d = weights
    solve = SVM_SOLVERS[solver]
    certified = stops_on_gap(stop, solver)
    objectives: list[float] = []
    svm_iterations = 0
    converged = False
    solution = None
    n_iter = 0
    gap = 1.0  # the MKL gap before the first solve, for the first SVM's tolerance
    gaps: list[float] = []
    svm_tol = math.inf  # the first SVM's: GAP_SHARE · gap
    rule_held = False
    for n_iter in range(1, max_outer_iter + 1):
        if certified:
            svm_tol = max(min(GAP_SHARE * gap, TOL_SHRINK * svm_tol), GAP_SHARE * mkl_tol)
        solution = solve(
            problem,
            d,
            state=state,
            tol=svm_tol if certified else tol,
            max_iter=max_iter,
            eta=eta,
            stop="gap" if certified else ("change" if stop == "mkl_gap" else stop),
            alpha_scale=alpha_scale,
            xp=xp,
        )
        state = solution.state
        svm_iterations += solution.n_iter
        objectives.append(_mkl_objective(solution, problem, d, xp=xp))
        if not math.isfinite(objectives[-1]):
            msg = (
                f"the MKL objective became {objectives[-1]} after {n_iter} weight updates: the "
                f"SVM solver {solver!r} diverged (eta={eta!r}, alpha_scale={alpha_scale!r}, "
                f"C={problem.C!r})"
            )
            raise ValueError(msg)
        if certified:
            gap = _mkl_duality_gap(problem, solution, p, eta=eta, xp=xp)
            gaps.append(gap)
        norms2 = xp.sum(solution.w * solution.w, axis=1)  # ‖f_k‖²
        if paper_norms:  # eq. (5) as printed: ‖f_k‖²/d_k
            positive = d > 0
            norms2 = xp.where(positive, norms2 / xp.where(positive, d, 1.0), 0.0)
        new = _lp_weights(norms2, p, xp=xp)
        change = float(xp.max(xp.abs(new - d)))
        halt = callback is not None and callback(
            MKLState(
                n_iter, d, objectives[-1], change, solution.n_iter, gap if certified else math.nan
            )
        )
        if certified:
            rule_held = gap <= mkl_tol
        elif stop == "mkl_gap":  # liblinear, no dual point: the objective's relative change
            last = objectives[-2:]
            rule_held = len(last) == 2 and abs(last[1] - last[0]) <= mkl_tol * abs(last[1])
        else:
            rule_held = change < weight_tol
        if rule_held:  # (a certified gap holds whatever the last SVM's own rule said)
            converged = certified or solution.converged
            break
        stalled = len(gaps) > STALL_UPDATES and not gap < STALL_FACTOR * gaps[-1 - STALL_UPDATES]
        if halt or stalled:
            break
        d = new
    stopped_by = None  # why an unconverged loop stopped
    if not converged and rule_held:
        stopped_by = "max_iter"
    elif not converged:
        stopped_by = "callback" if halt else "stalled" if stalled else "max_outer_iter"
    result = MKLResult(d, solution, tuple(objectives), n_iter, svm_iterations, converged)
    return result._replace(stopped_by=stopped_by)

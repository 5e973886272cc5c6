"""The SVM over a sum of low-rank kernels, problem (6) of Rakotomamonjy & Chanda, by generalized
forward-backward splitting (GFB, Raguet, Fadili & Peyré 2013).

For labels ``y ∈ {−1, 1}ⁿ``, kernel weights ``d`` and per-kernel features ``V_k`` (n × R,
``K_k ≈ V_k V_kᵀ``), problem (4) is the SVM dual over ``K_d = Σ d_k V_k V_kᵀ``::

    min_α ½ αᵀ Y K_d Y α − 1ᵀα   s.t.  yᵀα = 0,  0 ≤ α ≤ C

and (6) its split form over ``z = [γ_1; …; γ_m; α]``::

    min_z ½ Σ_k ‖γ_k‖² + η/2 ‖α‖² − 1ᵀα   s.t.  γ_k = √d_k V_kᵀ Y α  (k = 1 … m),
                                               yᵀα = 0,  0 ≤ α ≤ C

(``η ≥ 0`` is Remark 1's strong-convexity term). GFB keeps one auxiliary vector ``Z_i`` per
constraint set and iterates, with step ``ζ`` and relaxation ``λ``::

    Z_i ← Z_i + λ (P_i(2z − Z_i − ζ ∇F₀(z)) − z),    z ← mean_i Z_i

where ``P_i`` is the projection onto set ``i``. ``"split"`` uses the paper's ``m + 2`` sets —
one affine set per kernel, ``yᵀα = 0`` and the box; ``"naive"`` the two sets "all ``R·m + 1``
equalities at once" and the box.

Each kernel's features are rotated once to orthogonal columns (``V_k ← V_k Q_k`` with
``V_kᵀV_k = Q_k diag(s_k) Q_kᵀ``), which changes neither ``V_k V_kᵀ`` nor the GFB iterates (up
to the same rotation of ``γ_k``); then ``A_k A_kᵀ = I + d_k diag(s_k)`` and the projection onto
kernel ``k``'s affine set costs two products with ``V_k`` and no solve, for every ``d``.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any, NamedTuple

from lrkl._backend import check_array, device_of
from lrkl._checks import check_integer, check_namespace, check_number, check_option
from lrkl._linalg import cho_factor, cho_solve
from lrkl._typing import Array
from lrkl.lpmkl._gap_rounding import loss_term, relative_gap
from lrkl.lpmkl._losses import (
    _feasible,
    _hinge_intercept,
    best_intercept,
    check_solver_loss,
    dual_penalty,
)
from lrkl.lpmkl._problem import (
    SVMProblem,
    SVMSolution,
    _decision,
    _kernel_products,
    check_labels,
    check_problem,
    check_solution,
    check_weights,
)

__all__ = [
    "AUTO_SCALE_CONSTANT",
    "GFBState",
    "auto_alpha_scale",
    "dual_solution",
    "duality_gap",
    "hinge_intercept",
    "solve_gfb_svm",
    "svm_dual_objective",
]


VARIANTS = ("split", "naive")
BOX_UPDATES = ("gfb", "paper")
STOPS = ("change", "gap")
#: The constant c of ``alpha_scale="auto"`` (:func:`auto_alpha_scale`), chosen among 0.1, 0.3 and 1
#: by iterations to relative duality gaps of 1e-2 and 1e-3 on svmguide1, mushrooms, magic and
#: adult at C = 0.1 … 1000 (``benchmarks/scripts/lpmkl_targets.py scale``, docs/lpmkl.rst).
AUTO_SCALE_CONSTANT = 1.0
#: Iterations between two duality-gap checks of ``stop="gap"`` (each costs about one
#: iteration: two passes over the features and a sort for the intercept).
GAP_EVERY = 10


class GFBState(NamedTuple):
    """The GFB auxiliary variables, one row per constraint set (for warm starts), with α's in
    units of ``alpha_scale`` (:func:`solve_gfb_svm`)."""

    Z_gamma: Array  # shape: (n_sets, m, R)
    Z_alpha: Array  # shape: (n_sets, n)
    alpha_scale: float = 1.0


def auto_alpha_scale(
    problem: SVMProblem, d: Array, *, constant: float = AUTO_SCALE_CONSTANT, xp: ModuleType
) -> float:
    """The unit ``t`` of α in which GFB converges fast: ``t = min(1, (c·λ/C)^{−1/4})``, with
    ``λ = Σ_k d_k max(s_k)`` (an upper bound on the largest eigenvalue of ``K_d``, close to it
    when the kernels' top eigenvectors are alike, as for Gaussian kernels of several widths)
    and c = ``constant`` (:data:`AUTO_SCALE_CONSTANT`, the one ``alpha_scale="auto"`` uses);
    with sample weights ``C`` is the largest box, ``C·max w``.

    GFB on ``β = α/t`` is GFB in another metric: the curvature becomes ``t²·Y K_d Y`` against
    a linear term ``t·1``, while the step stays ζ = 1. As for the penalty of ADMM, the iteration
    is fastest when that curvature is about 1 in the middle (geometrically) of the spectrum
    that matters, ``t⁴ λ_max λ_eff ≈ 1``; the box makes ``λ_eff`` fall like 1/C, hence the
    rule. It is a heuristic, fitted on a panel; ``t = 1`` (the paper's iteration) once
    ``C ≥ c·λ``.

    ``problem`` comes from :func:`svm_problem`, ``d`` holds one finite weight ≥ 0 per kernel
    and ``constant`` is a finite number > 0; anything else is refused with a ValueError or
    TypeError naming the argument.
    """
    check_namespace(xp)
    d = check_weights(d, problem, xp=xp)
    constant = check_number(constant, name="constant", strict=True)
    return _auto_alpha_scale(problem, d, constant=constant, xp=xp)


def _auto_alpha_scale(
    problem: SVMProblem, d: Array, *, constant: float = AUTO_SCALE_CONSTANT, xp: ModuleType
) -> float:
    """:func:`auto_alpha_scale` on trusted inputs."""
    bound = float(xp.sum(d * xp.max(problem.s, axis=1)))
    if bound <= 0.0:
        return 1.0
    # C·max w, the largest box: the rule's C where sample weights scale the boxes
    return min(1.0, (constant * bound / problem.largest_cost(xp=xp)) ** -0.25)


def hinge_intercept(decision: Array, y: Array, *, xp: ModuleType) -> Array:
    """The intercept ``b`` the KKT conditions give for the decision values ``g``: the minimiser of
    the hinge loss ``Σ_i max(0, 1 − y_i (g_i + b))``, the middle of its interval of minimisers.

    The loss is piecewise linear with breakpoints ``t_i = y_i − g_i`` and slope ``−n₊`` on the
    left; each breakpoint adds 1, so the slope vanishes between the ``n₊``-th and ``(n₊+1)``-th.
    At an exact SVM solution with a margin support vector this is the ``b`` of ``y_i f(x_i) = 1``.

    ``decision`` is a finite 1-D array and ``y`` holds one label −1 or 1 per decision value,
    both labels present (with one class the minimisers are a half-line without a middle);
    anything else is refused with a ValueError or TypeError naming the argument.
    """
    check_namespace(xp)
    decision = check_array(decision, name="decision", ndim=1, xp=xp)
    y = check_array(y, name="y", ndim=1, dtype=decision.dtype, xp=xp)
    if y.shape[0] != decision.shape[0]:
        msg = (
            f"y must hold one label per decision value ({decision.shape[0]}), received shape "
            f"{tuple(y.shape)}"
        )
        raise ValueError(msg)
    check_labels(y, both=True, xp=xp)
    return _hinge_intercept(decision, y, xp=xp)


class _Projections(NamedTuple):
    """The constraint sets of one GFB variant for fixed ``d``: ``apply`` projects row ``i`` of
    ``(W_gamma, W_alpha)`` onto set ``i``; the box is the last set."""

    n_sets: int
    apply: Any


def _split_projections(problem: SVMProblem, d: Array, *, xp: ModuleType) -> _Projections:
    m = problem.V.shape[0]
    n = problem.V.shape[1]
    root_d = xp.sqrt(d)
    inv = 1.0 / (1.0 + d[:, None] * problem.s)  # (A_k A_kᵀ)⁻¹, diagonal: shape (m, R)
    own = xp.eye(m, dtype=problem.V.dtype, device=device_of(d))[:, :, None]  # row k owns γ_k
    y = problem.y

    def apply(Wg: Array, Wa: Array) -> tuple[Array, Array]:
        # kernel k: residual A_k v = γ_k − √d_k V_kᵀ Y α, then v − A_kᵀ (A_k A_kᵀ)⁻¹ A_k v
        gamma_k = xp.sum(Wg[:m, ...] * own, axis=1)
        Vty = (xp.matrix_transpose(problem.V) @ (y * Wa[:m, ...])[:, :, None])[..., 0]
        u = inv * (gamma_k - root_d[:, None] * Vty)
        Pg_k = Wg[:m, ...] - own * u[:, None, :]
        Pa_k = Wa[:m, ...] + y * (root_d[:, None] * (problem.V @ u[:, :, None])[..., 0])
        # yᵀα = 0 (yᵀy = n), then the box on α
        a = Wa[m, ...]
        Pa_y = a - y * (xp.sum(y * a) / n)
        Pa_box = xp.clip(Wa[m + 1, ...], min=0.0, max=problem.costs())
        Pg = xp.concat([Pg_k, Wg[m:, ...]], axis=0)
        Pa = xp.concat([Pa_k, Pa_y[None, :], Pa_box[None, :]], axis=0)
        return Pg, Pa

    return _Projections(m + 2, apply)


def _naive_projections(problem: SVMProblem, d: Array, *, xp: ModuleType) -> _Projections:
    m, n, R = problem.V.shape
    root_d = xp.sqrt(d)
    V = xp.reshape(xp.permute_dims(problem.V, (1, 0, 2)), (n, m * R))  # stacked [V_1 … V_m]
    scale = xp.reshape(xp.broadcast_to(root_d[:, None], (m, R)), (m * R,))
    Bt = V * scale[None, :]  # (D^{1/2} Vᵀ)ᵀ, so that B = D^{1/2} Vᵀ Y = Btᵀ Y
    By = xp.sum(Bt, axis=0)  # B y = D^{1/2} Vᵀ 1
    dev = device_of(d)
    top = xp.eye(m * R, dtype=V.dtype, device=dev) + xp.matrix_transpose(Bt) @ Bt
    gram = xp.concat(
        [
            xp.concat([top, -By[:, None]], axis=1),
            xp.concat([-By[None, :], xp.full((1, 1), float(n), dtype=V.dtype, device=dev)], axis=1),
        ],
        axis=0,
    )
    factor = cho_factor(gram, xp=xp)  # A Aᵀ, (R·m + 1)², factorised once per d
    y = problem.y

    def apply(Wg: Array, Wa: Array) -> tuple[Array, Array]:
        g = xp.reshape(Wg[0, ...], (m * R,))
        a = Wa[0, ...]
        residual = xp.concat([g - xp.matrix_transpose(Bt) @ (y * a), xp.sum(y * a)[None]])
        u = cho_solve(factor, residual, xp=xp)
        Pg = xp.reshape(g - u[: m * R], (1, m, R))
        Pa = a + y * (Bt @ u[: m * R]) - y * u[m * R]
        Pa_box = xp.clip(Wa[1, ...], min=0.0, max=problem.costs())
        return xp.concat([Pg, Wg[1:, ...]], axis=0), xp.stack([Pa, Pa_box])

    return _Projections(2, apply)


def solve_gfb_svm(
    problem: SVMProblem,
    d: Array,
    /,
    *,
    variant: str = "split",
    box_update: str = "gfb",
    eta: float = 0.0,
    step: float | None = None,
    relaxation: float = 1.0,
    tol: float = 1e-4,
    max_iter: int = 3000,
    stop: str = "change",
    alpha_scale: float | str = 1.0,
    state: GFBState | None = None,
    xp: ModuleType,
) -> SVMSolution:
    """Solve problem (6) for the kernel weights ``d`` by GFB.

    Parameters
    ----------
    problem : SVMProblem
        From :func:`svm_problem`.
    d : array, shape (m,)
        Kernel weights, ≥ 0.
    variant : {"split", "naive"}
        The paper's ``m + 2`` sets (Algorithm 2), or all equalities as one affine set whose
        ``(R·m + 1)²`` system is factorised once.
    box_update : {"gfb", "paper"}
        ``"gfb"`` updates the box's auxiliary variable as every other (Raguet et al.);
        ``"paper"`` sets it to the projection itself, as Algorithm 2's line 20 prints.
    eta : float
        Remark 1's ``η/2 ‖α‖²``.
    step, relaxation : float
        ``ζ ∈ (0, 2/L)`` with ``L = max(1, η t²)`` (``t`` the unit of α below), and
        ``λ ∈ (0, 1]``; the paper takes 1 and 1. ``step=None`` means ``1/L``: the paper's 1
        unless ``η t² > 1``, where a unit step diverges.
    tol, max_iter : float, int
        The stopping tolerance, and the iteration cap (the paper: 1e-4 and 3000).
    stop : {"change", "gap"}
        ``"change"`` (the paper's §5.1) stops when the objective of (6) at ``z`` changes by
        less than ``tol`` relative to its value in one iteration; ``"gap"`` when the relative
        duality gap (:func:`duality_gap`, checked every ``GAP_EVERY`` iterations) is below
        ``tol``, a bound on the distance to the optimum that a warm start cannot fool.
    alpha_scale : float or "auto"
        The unit ``t > 0`` of α in which the iteration runs: GFB on the same problem in the
        variables ``(γ, α/t)``, whose box is ``[0, C/t]`` and linear term ``t·1``. ``1.0`` is the
        paper's iteration; ``"auto"`` is :func:`auto_alpha_scale`, which at C ≤ 10 reaches a
        given duality gap in several times fewer iterations (docs/lpmkl.rst).
    state : GFBState, optional
        Auxiliary variables to start from (a warm start); zeros otherwise.

    Returns
    -------
    SVMSolution
        ``alpha`` is ``z``'s α projected on the box; ``w`` and ``decision`` are computed from it.
    """
    check_namespace(xp)
    check_option(variant, VARIANTS, name="variant")
    check_option(box_update, BOX_UPDATES, name="box_update")
    check_option(stop, STOPS, name="stop")
    d = check_weights(d, problem, xp=xp)
    check_solver_loss("gfb" if variant == "split" else "gfb_naive", problem.loss)
    check_number(eta, name="eta")
    check_number(tol, name="tol")
    check_integer(max_iter, name="max_iter", low=0)  # 0: the starting point's solution
    if step is not None:
        check_number(step, name="step", strict=True)
    check_number(relaxation, name="relaxation", strict=True)
    if relaxation > 1.0:
        msg = f"relaxation must be in (0, 1], received {relaxation!r}"
        raise ValueError(msg)
    if alpha_scale != "auto":
        check_number(alpha_scale, name="alpha_scale", strict=True)
    if state is not None and not isinstance(state, GFBState):
        msg = f"state must be a GFBState or None, received {type(state).__name__}"
        raise TypeError(msg)
    return _solve_gfb_svm(
        problem,
        d,
        variant=variant,
        box_update=box_update,
        eta=float(eta),
        step=step,
        relaxation=float(relaxation),
        tol=float(tol),
        max_iter=int(max_iter),
        stop=stop,
        alpha_scale=alpha_scale,
        state=state,
        xp=xp,
    )


def _solve_gfb_svm(
    problem: SVMProblem,
    d: Array,
    /,
    *,
    variant: str = "split",
    box_update: str = "gfb",
    eta: float = 0.0,
    step: float | None = None,
    relaxation: float = 1.0,
    tol: float = 1e-4,
    max_iter: int = 3000,
    stop: str = "change",
    alpha_scale: float | str = 1.0,
    state: GFBState | None = None,
    xp: ModuleType,
) -> SVMSolution:
    """:func:`solve_gfb_svm` on trusted inputs."""
    m, n, R = problem.V.shape
    dev = device_of(d)
    dtype = problem.V.dtype
    t = _auto_alpha_scale(problem, d, xp=xp) if alpha_scale == "auto" else float(alpha_scale)
    if not (0.0 < t * t < math.inf and math.isfinite(problem.C / t)):
        msg = (
            f"alpha_scale must be a positive number whose square and C/alpha_scale are finite "
            f"floats (about 1e-150 to 1e150), received {alpha_scale!r}"
        )
        raise ValueError(msg)
    # In β = α/t: γ_k = √(t² d_k) V_kᵀYβ, 0 ≤ β ≤ C/t, objective ½‖γ‖² + ηt²/2‖β‖² − t·1ᵀβ.
    projections = (_split_projections if variant == "split" else _naive_projections)(
        problem._replace(C=problem.C / t), t * t * d, xp=xp
    )
    sets = projections.n_sets
    if step is None:
        step = 1.0 / max(1.0, eta * t * t)
    if state is None or state.Z_alpha.shape[0] != sets:
        state = GFBState(
            xp.zeros((sets, m, R), dtype=dtype, device=dev),
            xp.zeros((sets, n), dtype=dtype, device=dev),
            t,
        )
    Zg, Za = state.Z_gamma, state.Z_alpha * (state.alpha_scale / t)
    gamma, beta = xp.mean(Zg, axis=0), xp.mean(Za, axis=0)
    previous = None
    converged = False
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        # ∇F₀(z) = [γ; ηt²β − t]
        Wg = 2.0 * gamma - Zg - step * gamma
        Wa = 2.0 * beta - Za - step * t * (eta * t * beta - 1.0)
        Pg, Pa = projections.apply(Wg, Wa)
        Zg = Zg + relaxation * (Pg - gamma)
        Za = Za + relaxation * (Pa - beta)
        if box_update == "paper":
            Za = xp.concat([Za[:-1, ...], Pa[-1:, ...]], axis=0)
        gamma, beta = xp.mean(Zg, axis=0), xp.mean(Za, axis=0)
        if stop == "gap":
            if n_iter % GAP_EVERY:
                continue
            gap = _duality_gap(problem, d, t * beta, eta=eta, xp=xp)
            _require_finite(gap, n_iter, eta, t)
            if gap <= tol:
                converged = True
                break
            continue
        objective = float(  # (6) at α = tβ
            0.5 * xp.sum(gamma * gamma) + 0.5 * eta * t * t * xp.sum(beta * beta) - t * xp.sum(beta)
        )
        _require_finite(objective, n_iter, eta, t)
        if previous is not None and abs(objective - previous) <= tol * abs(previous):
            converged = True
            break
        previous = objective
    alpha = t * beta
    alpha = (
        _feasible(alpha, problem.y, problem.costs(), problem.loss, xp=xp)
        if stop == "gap"
        else xp.clip(alpha, min=0.0, max=problem.costs())
    )
    return dual_solution(problem, d, alpha, n_iter, converged, GFBState(Zg, Za, t), xp=xp)


def _require_finite(value: float, n_iter: int, eta: float, alpha_scale: float) -> None:
    """Stop an iteration whose state over- or underflowed with an error naming the parameters
    that scale it, instead of iterating on NaN."""
    if not math.isfinite(value):
        msg = (
            f"GFB's iterates became non-finite ({value}) at iteration {n_iter}: the problem's "
            f"scale overflows the floating-point range (eta={eta!r}, alpha_scale={alpha_scale!r}"
            "); use smaller values"
        )
        raise ValueError(msg)


def duality_gap(
    problem: SVMProblem, d: Array, alpha: Array, *, eta: float = 0.0, xp: ModuleType
) -> float:
    """The relative duality gap ``(P − D) / max(|P|, |D|)`` of problem (4) at ``alpha``, first
    made dual-feasible (:func:`lrkl.lpmkl._losses._feasible`).

    ``D = 1ᵀα − ½αᵀY(K_d + ηI)Yα`` is (4)'s objective negated; ``P`` is the primal of the SVM
    with kernel ``K_d + ηI``, ``½‖f‖² + C Σ_i max(0, 1 − y_i f(x_i))``, at the function
    ``f = Σ_j α_j y_j (K_d + ηI)(x_j, ·) + b`` with the intercept of the KKT conditions. For
    the squared hinge, ``P``'s loss is squared, ``D`` has ``−‖α‖²/(4C)`` and no upper bound. Any
    such pair has ``D ≤ D* = P* ≤ P``, so the gap bounds how far both are from the optimum. A
    gap within the rounding of its own terms is 0 (``lrkl.lpmkl._gap_rounding``). Costs two
    passes over the features and a sort.

    ``problem`` comes from :func:`svm_problem`, ``d`` holds one finite weight ≥ 0 per kernel,
    ``alpha`` is a finite 1-D array of one value per training row and ``eta`` a finite number
    ≥ 0; anything else is refused with a ValueError or TypeError naming the argument.
    """
    check_namespace(xp)
    d = check_weights(d, problem, xp=xp)
    alpha = _check_alpha(alpha, problem, xp=xp)
    eta = check_number(eta, name="eta")
    return _duality_gap(problem, d, alpha, eta=eta, xp=xp)


def _check_alpha(alpha: Any, problem: SVMProblem, *, xp: ModuleType) -> Array:
    """``alpha`` checked as a finite 1-D array of one value per row of ``problem``."""
    alpha = check_array(alpha, name="alpha", ndim=1, dtype=problem.V.dtype, xp=xp)
    n = problem.V.shape[1]
    if alpha.shape[0] != n:
        msg = (
            f"alpha must hold one value per training row ({n}), received shape {tuple(alpha.shape)}"
        )
        raise ValueError(msg)
    return alpha


def _duality_gap(
    problem: SVMProblem, d: Array, alpha: Array, *, eta: float = 0.0, xp: ModuleType
) -> float:
    """:func:`duality_gap` on trusted inputs."""
    y = problem.y
    alpha = _feasible(alpha, problem.y, problem.costs(), problem.loss, xp=xp)
    decision = _decision(problem, d[:, None] * _kernel_products(problem, alpha, xp=xp), xp=xp)
    decision = decision + eta * y * alpha
    quadratic = xp.sum(y * alpha * decision)
    intercept = best_intercept(decision, y, problem.costs(), problem.loss, xp=xp)
    loss, loss_magnitude = loss_term(decision, intercept, y, problem.costs(), problem.loss, xp=xp)
    penalty = dual_penalty(alpha, problem.costs(), problem.loss, xp=xp)
    primal = 0.5 * quadratic + loss
    dual = xp.sum(alpha) - 0.5 * quadratic - penalty
    magnitude = xp.abs(quadratic) + xp.sum(alpha) + penalty + loss_magnitude
    return relative_gap(primal, dual, magnitude, xp=xp)


def dual_solution(
    problem: SVMProblem,
    d: Array,
    alpha: Array,
    n_iter: int,
    converged: bool,
    state: Any,
    *,
    xp: ModuleType,
) -> SVMSolution:
    """The solution record of a box-feasible ``alpha``: primal weights, training decision values
    and the intercept of the KKT conditions (:func:`hinge_intercept`)."""
    w = d[:, None] * _kernel_products(problem, alpha, xp=xp)
    decision = _decision(problem, w, xp=xp)
    intercept = best_intercept(decision, problem.y, problem.costs(), problem.loss, xp=xp)
    return SVMSolution(alpha, w, decision, intercept, n_iter, converged, state)


def svm_dual_objective(solution: SVMSolution, problem: SVMProblem, *, xp: ModuleType) -> float:
    """The objective of (4), ``½ αᵀ Y K_d Y α − 1ᵀα``, at the solution's ``alpha``.

    ``problem`` comes from :func:`svm_problem` and ``solution`` is an :class:`SVMSolution` of
    it with a dual point ``alpha`` (finite arrays of the problem's shapes); anything else is
    refused with a ValueError or TypeError naming the argument.
    """
    check_namespace(xp)
    check_problem(problem)
    check_solution(solution, problem, need_alpha=True, xp=xp)
    return _svm_dual_objective(solution, problem, xp=xp)


def _svm_dual_objective(solution: SVMSolution, problem: SVMProblem, *, xp: ModuleType) -> float:
    """:func:`svm_dual_objective` on trusted inputs."""
    alpha = solution.alpha
    return float(0.5 * xp.sum(problem.y * alpha * solution.decision) - xp.sum(alpha))

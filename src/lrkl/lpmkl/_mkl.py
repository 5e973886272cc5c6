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
from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

from lrkl._backend import device_of
from lrkl.lpmkl._gfb import SVMProblem, SVMSolution, gfb_svm

__all__ = ["SVM_SOLVERS", "MKLResult", "MKLState", "lp_mkl", "lp_weights", "mkl_objective"]

Array = Any


def lp_weights(norms2: Array, p: float, *, xp: ModuleType) -> Array:
    """Eq. (3): the weights ``d`` with ``‖d‖_p = 1`` that minimise ``Σ_k ‖f_k‖²/d_k`` for the
    squared norms ``norms2 = (‖f_1‖², …, ‖f_m‖²)``; uniform when every ``f_k`` is zero."""
    m = norms2.shape[0]
    powered = norms2 ** (1.0 / (p + 1.0))  # ‖f_k‖^{2/(p+1)}
    total = xp.sum(powered**p) ** (1.0 / p)
    if float(total) == 0.0:
        return xp.full(m, float(m) ** (-1.0 / p), dtype=norms2.dtype, device=device_of(norms2))
    return powered / total


def mkl_objective(solution: SVMSolution, problem: SVMProblem, d: Array, *, xp: ModuleType) -> float:
    """The MKL primal ``½ Σ_k ‖f_k‖²/d_k + C Σ_i max(0, 1 − y_i f(x_i))`` at a solution (a
    kernel with ``d_k = 0`` contributes nothing)."""
    norms2 = xp.sum(solution.w * solution.w, axis=1)
    positive = d > 0
    ratio = xp.where(positive, norms2 / xp.where(positive, d, 1.0), 0.0)
    margins = problem.y * (solution.decision + solution.intercept)
    hinge = xp.sum(xp.clip(1.0 - margins, min=0.0))
    return float(0.5 * xp.sum(ratio) + problem.C * hinge)


def _gfb(variant: str) -> Callable[..., SVMSolution]:
    return functools.partial(gfb_svm, variant=variant)


def _host(name: str) -> Callable[..., SVMSolution]:
    def solve(problem, d, *, state, tol, max_iter, eta, xp, stop="change", alpha_scale=1.0):
        from lrkl.lpmkl import _host_solvers

        return getattr(_host_solvers, name)(
            problem, d, state=state, tol=tol, max_iter=max_iter, eta=eta, xp=xp
        )

    return solve


#: The solvers of problem (4) for fixed weights, by name: ``solve(problem, d, *, state, tol,
#: max_iter, eta, xp, stop="change", alpha_scale=1.0) -> SVMSolution``; ``stop`` and
#: ``alpha_scale`` are GFB's (:func:`lrkl.lpmkl.gfb_svm`), the other two stop by their own
#: criteria and run on NumPy only.
SVM_SOLVERS: dict[str, Callable[..., SVMSolution]] = {
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


class MKLResult(NamedTuple):
    """The fitted ℓp-MKL model: ``weights`` (the ``d`` its SVM was solved with) and that SVM's
    ``solution``; ``objectives`` holds the MKL primal after every SVM solve."""

    weights: Array  # shape: (m,)
    solution: SVMSolution
    objectives: tuple[float, ...]
    n_iter: int
    svm_iterations: int
    converged: bool


def lp_mkl(
    problem: SVMProblem,
    p: float,
    /,
    *,
    solver: str = "gfb",
    tol: float = 1e-4,
    weight_tol: float = 1e-4,
    max_iter: int = 3000,
    max_outer_iter: int = 100,
    eta: float = 0.0,
    stop: str = "change",
    alpha_scale: float | str = 1.0,
    weights: Array | None = None,
    paper_norms: bool = False,
    callback: Callable[[MKLState], bool] | None = None,
    xp: ModuleType,
) -> MKLResult:
    """Algorithm 1: alternate the SVM (4) for fixed ``d`` and the update (3), from ``weights``
    (default uniform, ``‖d‖_p = 1``), warm-starting each SVM from the last one's state; stop when
    ``max |Δd| < weight_tol`` (the paper's rule), after ``max_outer_iter`` updates, or when
    ``callback`` returns True.

    ``tol``, ``max_iter``, ``stop`` and ``alpha_scale`` are the SVM solver's
    (:data:`SVM_SOLVERS`). The model
    returned is the last SVM's, with the weights it was solved for.
    """
    m = problem.V.shape[0]
    dtype = problem.V.dtype
    if weights is None:
        d = xp.full(m, float(m) ** (-1.0 / p), dtype=dtype, device=device_of(problem.V))
    else:
        d = weights
    solve = SVM_SOLVERS[solver]
    state = None
    objectives: list[float] = []
    svm_iterations = 0
    converged = False
    solution = None
    n_iter = 0
    for n_iter in range(1, max_outer_iter + 1):
        solution = solve(
            problem,
            d,
            state=state,
            tol=tol,
            max_iter=max_iter,
            eta=eta,
            stop=stop,
            alpha_scale=alpha_scale,
            xp=xp,
        )
        state = solution.state
        svm_iterations += solution.n_iter
        objectives.append(mkl_objective(solution, problem, d, xp=xp))
        norms2 = xp.sum(solution.w * solution.w, axis=1)  # ‖f_k‖²
        if paper_norms:  # eq. (5) as printed: ‖f_k‖²/d_k
            positive = d > 0
            norms2 = xp.where(positive, norms2 / xp.where(positive, d, 1.0), 0.0)
        new = lp_weights(norms2, p, xp=xp)
        change = float(xp.max(xp.abs(new - d)))
        halt = callback is not None and callback(
            MKLState(n_iter, d, objectives[-1], change, solution.n_iter)
        )
        if change < weight_tol:
            converged = True
            break
        if halt:
            break
        d = new
    return MKLResult(d, solution, tuple(objectives), n_iter, svm_iterations, converged)

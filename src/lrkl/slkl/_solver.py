"""SLKL: stochastic low-rank kernel learning (Machart et al., ICML 2011), as pure functions.

The problem (eq. 14 with λ = 1, Proposition 3) is

    min_{μ ≥ 0}  F(μ) = yᵀ (I + Σ_m μ_m c_m c_mᵀ)⁻¹ y + ν Σ_m μ_m,

over the M rank-1 Nyström kernels c_m c_mᵀ of the candidate set S, where
``c_m = k(X, x_m) / √k(x_m, x_m)``. Two solvers (:func:`solve_slkl`'s ``solver``):

- ``active_set``: F's minimum is that of the lasso ``‖y − C_S w‖² + 2√ν‖w‖₁`` at
  ``μ_m = |w_m|/√ν`` (:func:`_solve_lasso`), solved on working sets of coordinates by linear
  solves with ``B_WW``, then handed to the coordinate loop below as a warm start;
- ``coordinate``, the paper's: each iteration picks one coordinate m, reads

    a_m = yᵀ K⁻¹ c_m = b_m − b_Aᵀ G B_{A,m},      q_m = c_mᵀ K⁻¹ c_m = B_mm − B_{m,A} G B_{A,m},

with ``K = I + C_A D C_Aᵀ``, ``G = (D⁻¹ + C_AᵀC_A)⁻¹`` over the active set A, ``B = C_SᵀC_S`` and
``b = C_Sᵀ y``, moves μ_m and updates G by the four cases (24)–(27) of the paper.

Everything an iteration needs is ``b_m``, ``B_mm`` and the m0 products ``B_{A,m}``: the two forms
differ only in where those come from, so they give the same iterates for the same seed.

- ``direct`` (the paper's): ``B_{A,m} = C_Aᵀ c_m`` is one O(n·m0) GEMV over the active columns,
  which are kept (m0 of them) on the data's device; the candidate columns are precomputed
  (memory O(nM)) or evaluated from the kernel when needed (memory O(n·m0)).
- ``gram``: B and b are accumulated in one blocked pass over the rows (O(nM²) as a GEMM, memory
  O(M²)); after it an iteration costs O(m0²) and never touches the n rows again.

Where each computation runs: the coordinate state (μ, G, the active set) is small and sequential
(a branch per iteration on whether μ_m is or becomes zero), so it lives on the host in float64,
whatever the data's namespace and device. The only per-iteration traffic is, in the direct form,
the m0 products ``C_Aᵀ c_m`` computed on the device and copied to the host with
:func:`lrkl._backend.to_numpy` (one synchronisation per iteration, which the branch needs anyway);
the gram form copies B and b to the host once, after the pass over the rows.

Step rules (``step``):

- ``newton``: Proposition 2/eq. (19), ``μ ← (μ − F'/F'')₊`` with ``F' = ν − a²`` and
  ``F'' = 2 a² q``;
- ``exact``: F along one coordinate is exactly ``φ(t) = −a² t/(1 + t q) + ν t``, minimised at
  ``t* = (|a|/√ν − 1)/q``, so ``μ ← (μ + t*)₊``;
- ``paper``: Algorithm 2 as printed, with ``F'' = a² q`` (the factor 2 of Proposition 2 dropped).
  Its doubled step can increase F; it is kept only for comparison.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, NamedTuple

from lrkl._backend import from_host, host_namespace
from lrkl._checks import check_number, check_option
from lrkl._threads import blas_limit
from lrkl._typing import Array
from lrkl.slkl._coordinate import SELECTIONS, STEPS, SLKLState, _CoordinateState, _Selector, _step
from lrkl.slkl._lasso import _solve_lasso
from lrkl.slkl._problems import (
    DirectProblem,
    GramProblem,
)

__all__ = [
    "SOLVERS",
    "STOPS",
    "SLKLResult",
    "solve_slkl",
]


SOLVERS = ("active_set", "coordinate")
STOPS = ("kkt", "objective")


class SLKLResult(NamedTuple):
    """The outcome of :func:`solve_slkl`.

    ``weights`` (μ, one per candidate) and ``dual_coef`` (one per support entry, so that
    ``f(x) = Σ_j dual_coef[j] k(x_{support[j]}, x)``) are in the data's namespace and dtype;
    ``support`` holds the positions in the candidate set with μ > 0, in increasing order.
    """

    weights: Array  # shape: (M,)
    support: tuple[int, ...]
    dual_coef: Array  # shape: (m0,)
    objective: float
    objective_history: tuple[float, ...]
    n_active_history: tuple[int, ...]
    iteration_history: tuple[int, ...]
    n_iter: int
    converged: bool
    mode: str
    intercept: float  # b, 0 unless the problem was built with fit_intercept
    kkt_violation: float  # max_m of the optimality violation at the returned μ, in units of ν


# --------------------------------------------------------------------------- the solver


def solve_slkl(
    problem: GramProblem | DirectProblem,
    /,
    *,
    nu: float,
    solver: str = "coordinate",
    step: str = "newton",
    selection: str = "random",
    tol: float = 1e-4,
    stop: str = "objective",
    max_iter: int | None = None,
    seed: int = 0,
    mu0: Any = None,
    callback: Callable[[SLKLState], Any] | None = None,
    check_every: int | None = None,
    refresh_every: int | None = None,
    host_threads: int | None = -1,
) -> SLKLResult:
    """Minimise F(μ) of eq. (14) (λ = 1) on a prepared problem.

    Parameters
    ----------
    problem : GramProblem or DirectProblem
        From :func:`slkl_problem`.
    nu : float
        The ℓ1 weight ν > 0.
    solver : {"coordinate", "active_set"}
        ``coordinate``: the paper's coordinate descent, configured by ``step`` and
        ``selection``. ``active_set``: :func:`_solve_lasso` on F's equivalent lasso, then greedy
        exact coordinate steps from its solution until ``stop`` holds (usually none: the
        active set ends with every violation below ``tol``); ``step``, ``selection`` and
        ``seed`` are not used. Its ``n_iter`` counts the linear solves and the coordinate steps.
    step : {"newton", "exact", "paper"}
        Coordinate step (see the module docstring).
    selection : {"random", "cyclic", "greedy"}
        Coordinate choice.
    tol : float
        The tolerance of the stopping rule ``stop``.
    stop : {"objective", "kkt"}
        ``objective``, the paper's rule: stop when ``F(μ^{k−M}) − F(μ^k) < tol·F(μ^{k−M})``,
        checked every M iterations. ``kkt``: stop when the largest violation of the optimality
        conditions (:meth:`_CoordinateState.violations`: ``a_m² = ν`` where μ_m > 0, ``a_m² ≤ ν``
        where μ_m = 0) is at most ``tol·ν``; checked at every iteration with greedy selection,
        which computes it anyway, and every M iterations otherwise (O(M·m0) in the Gram form,
        one O(nM) pass in the direct form). Greedy selection also stops, under either rule,
        when every violation is exactly zero. ``kkt`` with greedy or cyclic selection gives up,
        unconverged, when M iterations no longer decrease F (by 1e-14 of it): the violation is
        then at the problem's rounding floor.
    max_iter : int, optional
        Iteration cap (default ``1000·M``); for ``active_set``, on its solves and coordinate
        steps together.
    seed : int
        Seed of the coordinate choice: the same seed gives the same iterates in both forms.
    mu0 : host array of shape (M,), optional
        Warm start (non-negative); default μ = 0 as in Algorithm 2.
    callback : callable, optional
        Called with an :class:`SLKLState` at every objective check; returning ``True`` stops.
    check_every : int, optional
        Iterations between objective checks (recorded history and callback); default M. The
        stopping rule always compares objectives M iterations apart.
    refresh_every : int, optional
        G updates between recomputations of G from scratch; default ``max(1000, 16·m0)``, which
        bounds the refresh's O(n·m0²) (direct) or O(m0³) cost to a few percent of the updates'.
    host_threads : int or None, default -1
        BLAS threads for the host state during the loop (``None``: leave the library's setting).
        The default, -1, means 1 in the Gram form and ``None`` in the direct form, whose
        active-set solves still run on 1 thread. The host work of an iteration is a few small
        GEMVs or an m0 × m0 update: threading them costs more in synchronisation than it gains,
        and on a loaded machine it is several times slower (measured: 23 s against 4.7 s for
        abalone, M = 3000). The direct form's products over the n rows keep the library's
        threads.

    Returns
    -------
    SLKLResult
    """
    M = problem.M
    check_option(solver, SOLVERS, name="solver")
    check_option(step, STEPS, name="step")
    check_option(selection, SELECTIONS, name="selection")
    check_option(stop, STOPS, name="stop")
    check_number(nu, name="nu", strict=True)
    check_number(tol, name="tol")
    max_iter = 1000 * M if max_iter is None else int(max_iter)
    check_every = M if check_every is None else max(1, int(check_every))
    if solver == "active_set":
        step, selection = "exact", "greedy"
    host_work = functools.partial(blas_limit, 1 if host_threads == -1 else host_threads)
    if host_threads == -1:
        host_threads = 1 if isinstance(problem, GramProblem) else None
    limits = blas_limit(host_threads)
    capacity = M if isinstance(problem, GramProblem) else min(M, 64)
    n_solves = 0
    with limits:
        if solver == "active_set":
            start = None
            if mu0 is not None:  # its lasso coefficients: G from μ0, no rows of B needed
                warm = _CoordinateState(problem, greedy=False, capacity=capacity)
                warm.warm_start(mu0)
                start = warm.signed_coef()
            mu, rows, n_solves, stopped = _solve_lasso(
                problem, nu, tol, max_iter, callback, start, host_work
            )
            state = _CoordinateState(problem, greedy=True, capacity=capacity)
            state.warm_start(mu, rows)
            max_iter = 0 if stopped else max(0, max_iter - n_solves)
        else:
            state = _CoordinateState(problem, greedy=selection == "greedy", capacity=capacity)
            if mu0 is not None:
                state.warm_start(mu0)
        selector = _Selector(selection, M, seed)
        result = _loop(
            problem,
            state,
            selector,
            nu,
            step,
            tol,
            stop,
            max_iter,
            check_every,
            refresh_every,
            callback,
        )
    if not n_solves:
        return result
    return result._replace(
        n_iter=result.n_iter + n_solves,
        iteration_history=tuple(i + n_solves for i in result.iteration_history),
    )


def _iterate(
    problem: GramProblem | DirectProblem, state: _CoordinateState, m: int, nu: float, step: str
) -> int:
    """One coordinate update of μ_m and G; returns the case (24)–(27) it took."""
    k = state.m0
    # Greedy keeps B_{A,S} for its scores, so w is a read; otherwise the form computes it.
    if state.P is not None:
        w = state.P[:k, m]
    else:
        w = problem.products(m, int(state.slot[m]), state.act, k)
    u = state.G[:k, :k] @ w
    a = float(problem.b[m] - state.z[:k] @ u)
    q = float(problem.diag_B[m] - w @ u)
    mu_new = _step(step, float(state.mu[m]), a, q, nu)
    return state.set_weight(m, mu_new, w, u, q)


#: ``stop="kkt"`` gives up (unconverged) when M greedy or cyclic iterations decrease F by at most
#: this fraction: the optimality violation then sits at the rounding floor of the problem (a tiny
#: ν/ν_max, a near-interpolating fit), above ``tol``, and further steps only churn.
_STALL = 1e-14


def _loop(
    problem: GramProblem | DirectProblem,
    state: _CoordinateState,
    selector: _Selector,
    nu: float,
    step: str,
    tol: float,
    stop: str,
    max_iter: int,
    check_every: int,
    refresh_every: int | None,
    callback: Callable[[SLKLState], Any] | None,
) -> SLKLResult:
    """The coordinate iterations of :func:`solve_slkl`, with its stopping rule and checks."""
    hxp = host_namespace()
    M = problem.M
    objective = state.objective(nu)
    history, actives, iters = [objective], [state.m0], [0]
    last_rule = objective  # F(μ^{k−M})
    converged, k = False, 0
    if callback is not None and callback(SLKLState(0, objective, state.m0, state.mu.copy())):
        max_iter = 0
    while k < max_iter:
        m, score = selector.next(state, nu)
        if score <= 0.0 or (stop == "kkt" and score <= tol):
            converged = True
            break
        _iterate(problem, state, m, nu, step)
        k += 1
        limit = refresh_every if refresh_every is not None else max(1000, 16 * state.m0)
        if state.updates >= limit:
            state.refresh()
        if k % check_every == 0 or k % M == 0:
            objective = state.objective(nu)
            if k % check_every == 0:
                history.append(objective)
                actives.append(state.m0)
                iters.append(k)
                if callback is not None and callback(
                    SLKLState(k, objective, state.m0, state.mu.copy())
                ):
                    break
            if k % M == 0:
                if stop == "objective" and last_rule - objective < tol * last_rule:
                    converged = True
                    break
                # (Greedy's score is the largest violation already, tested every iteration.)
                if stop == "kkt" and math.isinf(score) and hxp.max(state.violations(nu)) <= tol:
                    converged = True
                    break
                # Greedy or cyclic steps visit every violation within M steps; random ones may not.
                stalled = last_rule - objective <= _STALL * abs(last_rule)
                if stop == "kkt" and stalled and selector.selection != "random":
                    break  # F no longer moves: the violation is at the rounding floor
                last_rule = objective
    if state.updates:
        state.refresh()
    objective = state.objective(nu)
    if iters[-1] != k:
        history.append(objective)
        actives.append(state.m0)
        iters.append(k)

    xp, device, dtype = problem.xp, problem.device, problem.dtype
    k0 = state.m0
    order = hxp.argsort(state.act[:k0])
    support = tuple(int(i) for i in state.act[:k0][order])
    dual = state.dual()[order]
    rows = hxp.asarray(support, dtype=hxp.int64)
    centred_sum = hxp.sum(dual * hxp.sqrt(problem.k_diag[rows]) * problem.mean[rows])
    return SLKLResult(
        weights=from_host(state.mu, xp=xp, device=device, dtype=dtype),
        support=support,
        dual_coef=from_host(dual, xp=xp, device=device, dtype=dtype),
        objective=objective,
        objective_history=tuple(history),
        n_active_history=tuple(actives),
        iteration_history=tuple(iters),
        n_iter=k,
        converged=converged,
        mode=problem.mode,
        intercept=problem.y_mean - float(centred_sum),
        kkt_violation=float(hxp.max(state.violations(nu))),
    )

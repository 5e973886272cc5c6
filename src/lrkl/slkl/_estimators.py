"""SLKL estimators (scikit-learn compatible) and the SLKL paper's Unif baseline (§5.3).

- :class:`SLKLRegressor`: stochastic low-rank kernel learning, eq. (14), predicting by (16)–(17);
- :class:`SLKLClassifier`: the same on ±1 labels, one-vs-rest, one pass for all classes;
- :func:`slkl_path`: SLKL over a grid of ν with warm starts; :class:`SLKLRegressorCV` picks ν by
  cross-validation over that path;
- :class:`UniformRankOneRidge` (Unif): kernel ridge regression on the uniform combination of the
  same M rank-1 kernels. The paper's KRRn and KRRM are :class:`lrkl.KernelRidge` and
  :class:`lrkl.KernelRidgeSubset`.

Every estimator takes arrays of any array-API library and returns results of the same library,
on the same device; the numerical work lives in :mod:`lrkl.slkl._solver`.

Defaults (``mode="auto"``, ``solver="active_set"``) come from the panel of
``benchmarks/scripts/slkl_panel.py``: the Gram form and an active-set solver of F's equivalent
lasso reach the paper's algorithm's objective (direct, random, Newton) to 10⁻⁶ tens to
hundreds of times sooner; see the class docstring.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, NamedTuple

from sklearn.model_selection import check_cv
from sklearn.utils import check_random_state
from sklearn.utils.parallel import Parallel, delayed

from lrkl._backend import device_of, from_host, host_namespace, index_array, to_numpy
from lrkl._base import MONITOR_CONSTRAINTS, LRKLClassifier
from lrkl._dask import is_dask_array, take_rows
from lrkl._validation import (
    KERNEL_CONSTRAINT,
    Interval,
    StrOptions,
    check_classification_X_y,
    check_grid,
    check_kernel,
    check_n_columns,
    check_predict_X,
    check_X_y,
    choose_from_grid,
    log_grid,
    validate_params,
)
from lrkl.kernel_ridge._estimators import KernelExpansionRegressor, sample_rows
from lrkl.kernel_ridge._predict import predict_dual
from lrkl.kernel_ridge._scaling import power_of_two_scale, scale_errors
from lrkl.kernel_ridge._solvers import PrimalProblem, _make_solver, _solve_primal
from lrkl.kernels import Kernel
from lrkl.slkl._solver import (
    DEFAULT_MEMORY_BUDGET,
    MODES,
    SELECTIONS,
    SOLVERS,
    STEPS,
    STOPS,
    SLKLResult,
    SLKLState,
    nu_max,
    slkl_problem,
    slkl_problems,
    solve_slkl,
)

__all__ = [
    "SLKLClassifier",
    "SLKLPath",
    "SLKLRegressor",
    "SLKLRegressorCV",
    "UniformRankOneRidge",
    "slkl_path",
]

Array = Any

#: Constraints of the parameters SLKLRegressor, SLKLRegressorCV and slkl_path share.
_SOLVER_CONSTRAINTS: dict = {
    "kernel": KERNEL_CONSTRAINT,
    "n_columns": [Interval(numbers.Integral, 1, None, closed="left"), None],
    "mode": [StrOptions(set(MODES))],
    "solver": [StrOptions(set(SOLVERS))],
    "selection": [StrOptions(set(SELECTIONS)), None],
    "step": [StrOptions(set(STEPS)), None],
    "stop": [StrOptions(set(STOPS))],
    "tol": [Interval(numbers.Real, 0, None, closed="left")],
    "max_iter": [Interval(numbers.Integral, 1, None, closed="left"), None],
    "random_state": ["random_state"],
    "fit_intercept": ["boolean"],
    "memory_budget": [Interval(numbers.Integral, 1, None, closed="left")],
}


def _prepare(
    X: Array,
    Y: Array,
    n_columns: int | None,
    kernel: Kernel,
    mode: str,
    memory_budget: int,
    fit_intercept: bool,
    rng: Any,
    *,
    owner: str,
    xp: ModuleType,
) -> tuple[list[Any], list[int], int]:
    """Draw S, then one pass over the rows with the resolved ``kernel`` for the problems of all
    the columns of ``Y`` (n × t); also the seed of the coordinate draws."""
    M = check_n_columns(n_columns, X.shape[0], owner=owner)
    candidates = sample_rows(X.shape[0], M, rng)
    seed = int(rng.randint(2**31 - 1))
    problems = slkl_problems(
        X,
        Y,
        candidates,
        kernel=kernel,
        mode=mode,
        memory_budget=memory_budget,
        fit_intercept=fit_intercept,
        xp=xp,
    )
    return problems, candidates, seed


def _solver_options(solver: str, selection: str | None, step: str | None) -> dict[str, str]:
    """``solver``, ``selection`` and ``step`` for :func:`solve_slkl`: the coordinate options
    default to greedy selection and exact steps, and are refused with the active set, which
    would not use them."""
    if solver == "active_set":
        given = {k: v for k, v in (("selection", selection), ("step", step)) if v is not None}
        if given:
            names = " and ".join(f"{k}={v!r}" for k, v in given.items())
            msg = (
                f"{names} configure solver='coordinate' only; received solver='active_set'. "
                "Set solver='coordinate' to use them, or leave them None."
            )
            raise ValueError(msg)
    return {"solver": solver, "selection": selection or "greedy", "step": step or "exact"}


#: The smallest ν / ν_max lrkl solves for: below it the ℓ1 weight √ν of F's lasso form is
#: within 1e4 of float64's rounding of the correlations c_mᵀr that it is compared with, the
#: optimality conditions cannot be resolved, and the solver stalls (40 rows: 0.3 s at 1e-24,
#: 8 s at 1e-31, minutes at 1e-300).
NU_RATIO_FLOOR = 1e-24


def _internal_nu(nu: float, y_scale: float, top: float, *, name: str) -> float:
    """The ν of the problem on ``y / y_scale`` for the user's ν on ``y`` (ν scales with y²,
    F = yᵀK⁻¹y + νΣμ), checked to be a normal float64 and at least ``NU_RATIO_FLOOR·ν_max``
    (``top``: ν_max on ``y / y_scale``)."""
    inner = nu / y_scale / y_scale
    if not (math.isfinite(inner) and inner >= 2.0**-1022):
        msg = (
            f"{name} = {nu:.4g} is out of float64's range at the scale of y (max |y| about "
            f"{y_scale:.3g}): ν scales with y², so it must lie within about "
            f"[{y_scale * y_scale * 2.0**-1022:.3g}, {y_scale * y_scale * 2.0**1023:.3g}]; "
            f"leave {name} at None for the data-scaled default, or rescale y"
        )
        raise ValueError(msg)
    if inner < NU_RATIO_FLOOR * top:
        msg = (
            f"{name} = {nu:.4g} is {inner / top:.2g} of ν_max = max_m (c_mᵀy)², below the "
            f"{NU_RATIO_FLOOR:g} that float64 resolves (the ℓ1 weight √ν would be within "
            f"rounding of the correlations): {name} must be at least "
            f"{NU_RATIO_FLOOR * top * y_scale * y_scale:.4g}"
        )
        raise ValueError(msg)
    return inner


def _rescaled(result: SLKLResult, y_scale: float) -> SLKLResult:
    """A solution on ``y / y_scale`` in the units of ``y``: μ and the violation (in units of ν)
    do not change, the dual coefficients and the bias scale with y, F with y²."""
    square = y_scale * y_scale
    return result._replace(
        dual_coef=result.dual_coef * y_scale,
        intercept=result.intercept * y_scale,
        objective=result.objective * square,
        objective_history=tuple(f * square for f in result.objective_history),
    )


def _default_nu(problem: Any) -> float:
    """``DEFAULT_NU_RATIO·ν_max``; 1 when y is constant after centring (ν_max = 0, every ν
    gives μ = 0)."""
    return DEFAULT_NU_RATIO * nu_max(problem) or 1.0


class _SLKLFit:
    """The parameters of :class:`SLKLRegressor` and :class:`SLKLClassifier`, and their fit: one
    candidate set and one pass over the rows for every target, then one solve per target."""

    _parameter_constraints: dict = {
        **_SOLVER_CONSTRAINTS,
        "nu": [Interval(numbers.Real, 0, None, closed="neither"), None],
        **MONITOR_CONSTRAINTS,
    }

    def __init__(
        self,
        kernel: Kernel | str | None = None,
        n_columns: int | None = None,
        nu: float | None = None,
        *,
        mode: str = "auto",
        solver: str = "active_set",
        selection: str | None = None,
        step: str | None = None,
        stop: str = "kkt",
        tol: float = 1e-3,
        max_iter: int | None = None,
        random_state: Any = None,
        callback: Callable[[SLKLState], Any] | None = None,
        verbose: int = 0,
        fit_intercept: bool = True,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ) -> None:
        self.kernel = kernel
        self.n_columns = n_columns
        self.nu = nu
        self.mode = mode
        self.solver = solver
        self.selection = selection
        self.step = step
        self.stop = stop
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose
        self.fit_intercept = fit_intercept
        self.memory_budget = memory_budget

    def _fit_targets(
        self, X: Array, Y: Array, *, xp: ModuleType
    ) -> tuple[list[SLKLResult], list[int], Kernel, list[float]]:
        """Solve eq. (14) for each column of ``Y`` (n × t) on one candidate set: the results,
        the candidates, the resolved kernel and each target's ν."""
        solver = _solver_options(self.solver, self.selection, self.step)
        kernel = check_kernel(self.kernel, X)
        # F on y of unit scale (ν_max = max (c_mᵀy)² overflows at y · 1e200): an exact power
        # of 2, ν divided by its square; the results come back in the units of y.
        y_scale = power_of_two_scale(Y, xp=xp)
        Y = Y / y_scale
        problems, candidates, seed = _prepare(
            X,
            Y,
            self.n_columns,
            kernel,
            self.mode,
            self.memory_budget,
            self.fit_intercept,
            check_random_state(self.random_state),
            owner=type(self).__name__,
            xp=xp,
        )
        monitor = self._monitor(
            lambda s: f"iteration {s.iteration}: F = {s.objective:.10g}, m0 = {s.n_active}"
        )
        asked_to_stop = []

        def callback(state: SLKLState) -> bool:
            stop = monitor(state)
            asked_to_stop.append(stop)
            return stop

        results, nus = [], []
        for problem in problems:
            if self.nu is not None:
                nu = _internal_nu(float(self.nu), y_scale, nu_max(problem), name="nu")
            else:
                nu = _default_nu(problem)
            result = solve_slkl(
                problem,
                nu=nu,
                seed=seed,
                callback=None if monitor is None else callback,
                **solver,
                stop=self.stop,
                tol=float(self.tol),
                max_iter=self.max_iter,
            )
            if not result.converged and not any(asked_to_stop):
                self._warn_not_converged(
                    result.n_iter,
                    "increase max_iter or tol"
                    if result.n_iter >= (self.max_iter or 1000 * problem.M)
                    else f"F stalled with an optimality violation of {result.kkt_violation:.2g}·ν "
                    f"at ν = {nu * y_scale * y_scale:.3g} ({nu / nu_max(problem):.1e} of ν_max): "
                    "increase tol or nu",
                )
            results.append(_rescaled(result, y_scale))
            nus.append(nu * y_scale * y_scale)
        return results, candidates, kernel, nus


def _store_expansion(
    estimator: Any,
    results: list[SLKLResult],
    X: Array,
    candidates: list[int],
    kernel: Kernel,
    *,
    xp: ModuleType,
) -> None:
    """The kernel expansion of one SLKL solution per target on one candidate set, as fitted
    attributes: one target gives 1-D ``dual_coef_``/``weights_`` and a scalar ``intercept_``;
    t targets put their centres together (the union of the supports, a class's inactive centres
    weighing zero) with one column of ``dual_coef_`` and one row of ``weights_`` each."""
    device = device_of(X)
    if len(results) == 1:
        (result,) = results
        support, dual = result.support, result.dual_coef
        weights = result.weights
        intercept = xp.asarray(result.intercept, dtype=X.dtype, device=device)
    else:
        hxp = host_namespace()
        support = sorted(set().union(*(r.support for r in results)))
        position = {m: i for i, m in enumerate(support)}
        host_dual = hxp.zeros((len(support), len(results)), dtype=hxp.float64)
        for j, result in enumerate(results):
            host_dual[[position[m] for m in result.support], j] = to_numpy(result.dual_coef)
        dual = from_host(host_dual, xp=xp, device=device, dtype=X.dtype)
        weights = xp.stack([r.weights for r in results])
        host_intercept = hxp.asarray([r.intercept for r in results], dtype=hxp.float64)
        intercept = from_host(host_intercept, xp=xp, device=device, dtype=X.dtype)
    rows = [candidates[j] for j in support]
    centres = (  # first: a Dask graph that fails must leave the estimator unfitted
        take_rows(X, rows)
        if is_dask_array(X)
        else xp.take(X, index_array(rows, xp=xp, device=device), axis=0)
    )
    estimator.kernel_ = kernel
    estimator.candidates_ = index_array(candidates, xp=xp, device=device)
    estimator.weights_ = weights
    estimator.support_ = index_array(support, xp=xp, device=device)
    estimator.centres_ = centres
    estimator.dual_coef_ = dual
    estimator.intercept_ = intercept
    estimator.n_iter_ = max(r.n_iter for r in results)
    estimator.kkt_violation_ = max(r.kkt_violation for r in results)
    estimator.mode_ = results[0].mode
    estimator.n_features_in_ = X.shape[1]


class _SLKLModel(KernelExpansionRegressor):
    """The fitted attributes of one SLKL solution, shared by SLKLRegressor and SLKLRegressorCV."""

    def _store(
        self, result: SLKLResult, X: Array, candidates: list[int], kernel: Kernel, *, xp: ModuleType
    ) -> None:
        _store_expansion(self, [result], X, candidates, kernel, xp=xp)
        self.objective_ = result.objective
        self.objective_history_ = result.objective_history
        self.n_active_history_ = result.n_active_history
        self.iteration_history_ = result.iteration_history


class SLKLRegressor(_SLKLFit, _SLKLModel):
    """Stochastic low-rank kernel learning (Machart et al., ICML 2011).

    Learns a sparse conical combination ``Σ_m μ_m c_m c_mᵀ`` of the rank-1 Nyström kernels of
    ``n_columns`` random training points (the candidate set S) by coordinate descent on eq. (14)
    with λ = 1, and predicts with ``f(x) = Σ_{m∈A} μ_m a_m k(x_m, x)/√k(x_m, x_m)`` (16)–(17):
    only the m0 active centres are kept, not the training set.

    Parameters
    ----------
    kernel : lrkl.kernels.Kernel, {"rbf", "laplacian", "linear", "poly"} or None, default=None
        The base kernel; ``None`` means ``Gaussian(gamma="scale")``, the width taken from the
        training data.
    n_columns : int, default=None
        M, the size of the candidate set; ``None`` means min(n_samples, 1000) (the Gram form
        costs one O(nM²) pass, then work in M; fewer candidates make a poorer model).
    nu : float, default=None
        ν > 0, the weight of ``Σ μ_m`` (only λν matters, Proposition 3, so λ = 1). ``None``
        means ``1e-5·ν_max``, ``ν_max = max_m (c_mᵀy)²`` the smallest ν at which every weight is
        zero: a default that follows the scale of y (ν scales with y², and the fit is computed
        on y brought to unit scale, so that it is equivariant in y). A given ν must be at least
        ``1e-24·ν_max`` (below it float64 cannot resolve F's optimality conditions) and a
        float64 at y's scale squared (a ValueError otherwise). The best ratio depends
        on the noise (from 1e-4 on diabetes to below 1e-8 on friedman1), so no fixed default
        is best everywhere: :class:`SLKLRegressorCV` chooses it. The paper's ν = 0.01 suits its
        targets of unit scale.
    mode : {"auto", "direct", "gram"}, default="auto"
        ``gram`` builds ``B = C_SᵀC_S`` in one pass (O(nM²)), then iterates in O(m0²);
        ``direct`` is the paper's O(n·m0) per iteration; ``auto`` takes ``gram`` whenever its
        M×M matrix fits ``memory_budget``.
    solver : {"active_set", "coordinate"}, default="active_set"
        ``active_set``: F's minimum is that of the lasso ``‖y − C_S w‖² + 2√ν‖w‖₁`` with
        ``μ_m = |w_m|/√ν`` (see the user guide), solved by an active-set method: a linear solve
        on a working set of centres per step, centres added in batches where the optimality
        conditions fail and dropped where a sign would change; then greedy exact coordinate
        steps until ``stop`` holds (usually none are needed). ``coordinate``: the paper's
        coordinate descent, configured by ``selection`` and ``step``.
    selection : {"random", "cyclic", "greedy"}, default=None
        ``solver="coordinate"`` only (an error with the active set); ``None`` means
        ``"greedy"``. Coordinate choice: the paper's uniform draw, a fresh permutation per pass,
        or Gauss–Southwell (largest projected gradient, O(m0·M) per iteration).
    step : {"newton", "exact", "paper"}, default=None
        ``solver="coordinate"`` only (an error with the active set); ``None`` means
        ``"exact"``. Proposition 2's Newton step, the closed-form coordinate minimiser, or
        Algorithm 2 as printed (factor 2 missing; kept for comparison, it can increase F).
    stop : {"kkt", "objective"}, default="kkt"
        ``kkt``: stop when the largest violation of the optimality conditions of F (convex in
        μ ≥ 0: ``a_m² = ν`` where μ_m > 0, ``a_m² ≤ ν`` where μ_m = 0, with
        ``a_m = yᵀK⁻¹c_m``) is at most ``tol·ν``. ``objective``: the paper's rule
        ``F(μ^{k−M}) − F(μ^k) < tol·F(μ^{k−M})`` (with the paper's tol = 1e-4 it stops with
        a fifth more active centres than the optimum has, on the 2-D sinc).
    tol : float, default=1e-3
        The tolerance of ``stop``. ``kkt`` with 1e-3 stopped within 2e-7 of the optimal F and
        with m0 within 3 % of the optimum's on every problem of the SLKL benchmark panel.
    max_iter : int, default=None
        Iteration cap (the active set's linear solves and coordinate steps together); ``None``
        means ``1000·M``.
    random_state : int, RandomState or None, default=None
        Draws S and the coordinate sequence.
    callback : callable, default=None
        ``callback(state)`` at every objective check (after each batch of the active set, every
        M coordinate steps), ``state`` having ``iteration``, ``objective``, ``n_active`` and
        ``weights``; returning True stops the fit. The active set reports the lasso objective
        of its current w, an upper bound on F at its μ that is equal at the optimum.
    verbose : int, default=0
        Print the objective and m0 at every check when > 0.
    fit_intercept : bool, default=True
        Fit an unpenalised bias, the same model as every lrkl estimator (the columns and y are
        centred; see :mod:`lrkl.kernel_ridge`); ``False`` is the paper's model.
    memory_budget : int, default=2**30
        Bytes for the M×M Gram matrix (``auto``) or the n×M stored columns (``direct``).

    Attributes
    ----------
    candidates_ : array of shape (M,)
        Training row numbers forming S.
    weights_ : array of shape (M,)
        μ, one weight per candidate.
    support_ : array of shape (m0,)
        Positions in ``candidates_`` with μ > 0.
    centres_ : array of shape (m0, n_features)
        The active training points ``X[candidates_[support_]]``.
    dual_coef_ : array of shape (m0,)
        ``μ_m a_m / √k(x_m, x_m)`` for the active centres.
    intercept_ : array of shape ()
        The bias b (0 unless ``fit_intercept``).
    nu_ : float
        The ν of the fit (``nu``, or the default computed from y), in the units of ``y²``:
        ``inf`` (or 0) where that leaves float64 (``|y|`` beyond about 1e154, or below
        1e-154; the fit runs on ``y`` brought to unit scale).
    objective_ : float
        F at the returned μ.
    objective_history_, n_active_history_, iteration_history_ : tuple
        F, m0 and the iteration number at each objective check.
    n_iter_ : int
        Iterations run.
    kkt_violation_ : float
        The largest violation of the optimality conditions at the returned μ, in units of ν
        (0 at the optimum; see ``stop``).
    mode_ : str
        The form that ran.
    n_features_in_ : int

    Notes
    -----
    The defaults were chosen from the panel of ``benchmarks/scripts/slkl_panel.py`` (five
    problems, three draws of S each): the active-set solver needs a few hundred linear solves
    where greedy coordinate descent needs thousands of steps, and the Gram form turns each of
    them into host work on M × m0 matrices after a single GEMM over the rows.

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import SLKLRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-5, 5, (300, 2))
    >>> y = np.sinc(np.linalg.norm(X, axis=1) / np.pi)
    >>> model = SLKLRegressor(n_columns=100, nu=0.01, random_state=0).fit(X, y)
    >>> bool(np.mean((model.predict(X) - y) ** 2) < 1e-3)
    True
    >>> model.centres_.shape[0] == model.support_.shape[0] < 100
    True
    """

    def fit(self, X: Array, y: Array) -> SLKLRegressor:
        """Draw S, minimise F(μ) and keep the active centres.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()
        xp, X, y = check_X_y(X, y, owner=self, min_samples=2, dask=True)
        (result,), candidates, kernel, (nu,) = self._fit_targets(X, y[:, None], xp=xp)
        self._store(result, X, candidates, kernel, xp=xp)
        self.nu_ = nu
        return self


class SLKLClassifier(_SLKLFit, LRKLClassifier):
    """SLKL classification by regression on ±1 labels (Machart et al. 2011, §5.3–5.4).

    Two classes: one SLKL regression on targets +1 (``classes_[1]``) and −1. More classes:
    one-vs-rest, one regression per class on +1 for the class and −1 for the rest; the class
    of the largest score wins. Least squares on such labels is the paper's reading of
    classification, equivalent to Fisher's discriminant (Duda & Hart). All the classes share
    one candidate set S and one pass over the rows: B = C_SᵀC_S (or the stored columns) is
    built once, b = C_SᵀY for every class in the same GEMM, then one small solve per class.

    There is no ``predict_proba``: the scores are least-squares fits to ±1, not probabilities
    (wrap the classifier in scikit-learn's ``CalibratedClassifierCV`` for those).

    Parameters
    ----------
    kernel, n_columns, mode, solver, selection, step, stop, tol, max_iter, random_state, callback
    verbose, fit_intercept, memory_budget
        As for :class:`SLKLRegressor`.
    nu : float, default=None
        ν > 0 for every class; ``None`` means ``1e-5·ν_max`` of each class's regression, as
        for :class:`SLKLRegressor`.

    Attributes
    ----------
    classes_ : array of shape (n_classes,)
    candidates_ : array of shape (M,)
        Training row numbers forming S.
    weights_ : array of shape (M,) or (n_classes, M)
        μ per candidate (one row per class with more than two classes).
    support_ : array of shape (m0,)
        Positions in ``candidates_`` active (μ > 0) for at least one class.
    centres_ : array of shape (m0, n_features)
        The training points ``X[candidates_[support_]]``.
    dual_coef_ : array of shape (m0,) or (m0, n_classes)
        Dual coefficients of the centres (zero where a class leaves a centre inactive).
    intercept_ : array of shape () or (n_classes,)
    nu_ : tuple of float
        ν of each regression.
    n_iter_ : int
        The largest iteration count of the regressions.
    kkt_violation_ : float
        The largest optimality violation of the regressions, in units of ν.
    mode_ : str
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import SLKLClassifier
    >>> from sklearn.datasets import load_digits
    >>> X, y = load_digits(return_X_y=True)
    >>> model = SLKLClassifier(n_columns=300, random_state=0).fit(X[:1200], y[:1200])
    >>> bool(model.score(X[1200:], y[1200:]) > 0.9)
    True
    """

    def fit(self, X: Array, y: Array) -> SLKLClassifier:
        """Draw S, then fit one SLKL regression per column of the ±1 targets.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)
            Class labels (numbers or strings), at least two classes.

        Returns
        -------
        self
        """
        self._validate_params()
        xp, X, classes, codes = check_classification_X_y(X, y, owner=self, dask=True)
        device = device_of(X)
        targets = self._sign_targets(codes, classes.shape[0])
        Y = from_host(targets, xp=xp, device=device, dtype=X.dtype)
        results, candidates, kernel, nus = self._fit_targets(X, Y, xp=xp)
        _store_expansion(self, results, X, candidates, kernel, xp=xp)
        self.nu_ = tuple(nus)
        self._set_classes(classes, xp=xp, device=device)
        return self

    def _decision(self, X: Array, method: str) -> Array:
        """``Σ_j dual_coef_[j] k(centres_[j], x) + intercept_``, in row blocks."""
        xp, X = check_predict_X(self, X, like="dual_coef_", method=method)
        kernel, centres = self.kernel_, self.centres_
        return predict_dual(
            lambda rows: kernel._evaluate(rows, centres, xp=xp),
            X,
            self.dual_coef_,
            self.intercept_,
            xp=xp,
        )


class SLKLPath(NamedTuple):
    """SLKL solutions along a grid of ν (:func:`slkl_path`), in the order of ``nus``."""

    nus: tuple[float, ...]
    candidates: Array  # shape: (M,), training row numbers of S
    weights: Array  # shape: (len(nus), M)
    objectives: tuple[float, ...]
    n_active: tuple[int, ...]
    n_iter: tuple[int, ...]
    results: tuple[SLKLResult, ...]


@validate_params(
    {
        "X": ["array-like"],
        "y": ["array-like"],
        "nus": ["array-like"],
        **_SOLVER_CONSTRAINTS,
    },
    prefer_skip_nested_validation=True,
)
def slkl_path(
    X: Array,
    y: Array,
    nus: Sequence[float],
    /,
    *,
    kernel: Kernel | None = None,
    n_columns: int | None = None,
    mode: str = "auto",
    solver: str = "active_set",
    selection: str | None = None,
    step: str | None = None,
    stop: str = "kkt",
    tol: float = 1e-3,
    max_iter: int | None = None,
    random_state: Any = None,
    fit_intercept: bool = True,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> SLKLPath:
    """SLKL for each ν of ``nus`` on one candidate set, each solve warm-started from the last.

    The pass over the rows (the Gram matrix, or the stored columns) is made once for the whole
    path. The solves run from the largest ν to the smallest (sparse to dense, so each warm start
    is close), and the results are returned in the order of ``nus``.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
    y : array of shape (n_samples,)
    nus : sequence of float
        Values of ν > 0.
    kernel, n_columns, mode, solver, selection, step, stop, tol, max_iter, random_state
    fit_intercept
    memory_budget
        As for :class:`SLKLRegressor`.

    Returns
    -------
    SLKLPath

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import slkl_path
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-5, 5, (200, 2))
    >>> y = np.sinc(np.linalg.norm(X, axis=1) / np.pi)
    >>> path = slkl_path(X, y, [1.0, 0.1, 0.01], n_columns=50, random_state=0)
    >>> path.n_active[0] <= path.n_active[1] <= path.n_active[2]
    True
    """
    options = _solver_options(solver, selection, step)
    xp, X, y = check_X_y(X, y, owner="slkl_path", min_samples=2)
    nus = check_grid(nus, name="nus")
    kernel = check_kernel(kernel, X)
    rng = check_random_state(random_state)
    (problem,), candidates, seed = _prepare(
        X,
        xp.reshape(y, (-1, 1)),
        n_columns,
        kernel,
        mode,
        memory_budget,
        fit_intercept,
        rng,
        owner="slkl_path",
        xp=xp,
    )
    results: dict[int, SLKLResult] = {}
    mu0 = None
    for i in sorted(range(len(nus)), key=lambda i: -nus[i]):
        result = solve_slkl(
            problem,
            nu=nus[i],
            seed=seed,
            mu0=mu0,
            **options,
            stop=stop,
            tol=float(tol),
            max_iter=max_iter,
        )
        results[i] = result
        mu0 = to_numpy(result.weights).astype("float64")
    ordered = tuple(results[i] for i in range(len(nus)))
    return SLKLPath(
        nus=nus,
        candidates=index_array(candidates, xp=xp, device=device_of(X)),
        weights=xp.stack([r.weights for r in ordered]),
        objectives=tuple(r.objective for r in ordered),
        n_active=tuple(len(r.support) for r in ordered),
        n_iter=tuple(r.n_iter for r in ordered),
        results=ordered,
    )


#: ``SLKLRegressor``'s default ν as a fraction of ν_max: the best worst case of a fixed ratio on
#: the panel of ``benchmarks/scripts/defaults.py`` at M = 1000 (1e-7 … 3e-5 tried: worst R² gap to
#: scikit-learn's KernelRidge −0.32, −0.15, −0.10, −0.039, −0.041).
DEFAULT_NU_RATIO = 1e-5


def nu_grid(nu_top: float, n_nus: int, eps: float) -> tuple[float, ...]:
    """``n_nus`` values of ν from ``nu_top`` down to ``eps·nu_top``, logarithmically spaced."""
    return log_grid(nu_top, n_nus, eps)


def _fold_errors(
    X: Array,
    y: Array,
    train: Any,
    test: Any,
    nus: tuple[float, ...],
    seed: int,
    n_columns: int,
    options: dict,
    *,
    xp: ModuleType,
) -> list[float]:
    """Validation MSE of the SLKL path fitted on ``train``, one value per ν."""
    device = device_of(X)
    tr = index_array(train.tolist(), xp=xp, device=device)
    te = index_array(test.tolist(), xp=xp, device=device)
    X_tr, y_tr = xp.take(X, tr, axis=0), xp.take(y, tr, axis=0)
    X_te, y_te = xp.take(X, te, axis=0), xp.take(y, te, axis=0)
    M = min(n_columns, X_tr.shape[0])
    path = slkl_path(X_tr, y_tr, nus, n_columns=M, random_state=seed, **options)
    kernel = options["kernel"]
    errors = []
    for result in path.results:
        rows = xp.take(path.candidates, index_array(result.support, xp=xp, device=device))
        centres = xp.take(X_tr, rows, axis=0)
        pred = predict_dual(
            lambda block, c=centres: kernel._evaluate(block, c, xp=xp),
            X_te,
            result.dual_coef,
            xp.asarray(result.intercept, dtype=X.dtype, device=device),
            xp=xp,
        )
        errors.append(float(to_numpy(xp.mean((pred - y_te) ** 2))))
    return errors


class SLKLRegressorCV(_SLKLModel):
    """SLKL with ν chosen by cross-validation over a warm-started path (:func:`slkl_path`).

    The default grid comes from the data, as ``LassoCV``'s: ``n_nus`` values from
    ``ν_max = max_m (c_mᵀy)²`` — the smallest ν at which every weight is zero, so the model is
    the mean of y — down to ``eps·ν_max``. The kernel width (``"scale"``) and ν_max are taken
    from all the training data; each fold then fits its own path, and the chosen ν is refitted
    on all the data from the pass over the rows already made for ν_max. A choice on either end
    of the grid gets a warning (the bottom only while the validation error still falls there by
    more than 1 %): the best ν may lie outside it.

    Parameters
    ----------
    nus : sequence of float, default=None
        Grid of ν; ``None`` means the data-scaled grid of ``n_nus`` and ``eps``.
    n_nus : int, default=17
        Number of values of the default grid, at most 1 000: each ν is a solve per fold (1.7 s
        for 1 000 on 40 rows and 3 folds), and consecutive values are then within 6 % of each
        other even at ``eps=1e-24`` (``n_nus=10**6`` ran for hours on 40 rows).
    eps : float, default=1e-8
        Ratio ``ν_min / ν_max`` of the default grid, in ``[1e-24, 1)``: below ``1e-24`` the
        ℓ1 weight √ν is within rounding of the correlations it is compared with, F's
        optimality conditions cannot be resolved in float64 and the solver stalls. ``nus``
        below ``1e-24·ν_max`` are refused likewise.
    cv : int or cross-validation splitter, default=5
        As in scikit-learn (``KFold`` for an int).
    n_jobs : int, default=None
        Folds fitted in parallel (joblib; ``None`` means 1 unless in a ``parallel_backend``).
    kernel, n_columns, mode, solver, selection, step, stop, tol, max_iter, random_state
    fit_intercept
        As for :class:`SLKLRegressor`.
    memory_budget : int, default=2**30
        As for :class:`SLKLRegressor`.

    Attributes
    ----------
    nu_ : float
        The ν with the lowest mean validation MSE.
    nus_ : tuple of float
        The grid, from the largest ν to the smallest.
    nu_max_ : float
        ``max_m (c_mᵀy)²`` on all the training data.
    mse_path_ : tuple of tuple of float
        Validation MSE, one row per ν, one column per fold.

        ``nu_``, ``nus_``, ``nu_max_`` and ``mse_path_`` are in the units of ``y²`` (``inf``
        where that leaves float64, for ``|y|`` beyond about 1e154): the path is computed on
        ``y`` brought to unit scale, so that the choice does not depend on y's scale.
    candidates_, weights_, support_, centres_, dual_coef_, intercept_, kernel_, objective_
    n_iter_, mode_, n_features_in_
        Of the refit on all the data with ``nu_``, as for :class:`SLKLRegressor`.

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import SLKLRegressorCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-5, 5, (200, 2))
    >>> y = np.sinc(np.linalg.norm(X, axis=1) / np.pi) + 0.3 * rng.standard_normal(200)
    >>> model = SLKLRegressorCV(n_columns=50, cv=3, random_state=0).fit(X, y)
    >>> bool(model.nu_ in model.nus_ and model.nus_[0] == model.nu_max_)
    True
    """

    _parameter_constraints: dict = {
        **_SOLVER_CONSTRAINTS,
        "nus": ["array-like", None],
        "n_nus": [Interval(numbers.Integral, 1, 1_000, closed="both")],
        "eps": [Interval(numbers.Real, NU_RATIO_FLOOR, 1, closed="left")],
        "cv": ["cv_object"],
        "n_jobs": [numbers.Integral, None],
    }

    def __init__(
        self,
        nus: Sequence[float] | None = None,
        *,
        n_nus: int = 17,
        eps: float = 1e-8,
        cv: Any = 5,
        n_jobs: int | None = None,
        kernel: Kernel | str | None = None,
        n_columns: int | None = None,
        mode: str = "auto",
        solver: str = "active_set",
        selection: str | None = None,
        step: str | None = None,
        stop: str = "kkt",
        tol: float = 1e-3,
        max_iter: int | None = None,
        random_state: Any = None,
        fit_intercept: bool = True,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ) -> None:
        self.nus = nus
        self.n_nus = n_nus
        self.eps = eps
        self.cv = cv
        self.n_jobs = n_jobs
        self.kernel = kernel
        self.n_columns = n_columns
        self.mode = mode
        self.solver = solver
        self.selection = selection
        self.step = step
        self.stop = stop
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.memory_budget = memory_budget

    def fit(self, X: Array, y: Array, groups: Array | None = None) -> SLKLRegressorCV:
        """Cross-validate ν over the path, then refit on all the data.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Group labels for a group splitter (``GroupKFold``, ...).

        Returns
        -------
        self
        """
        self._validate_params()
        solver = _solver_options(self.solver, self.selection, self.step)
        xp, X, y = check_X_y(X, y, owner=self, min_samples=2)
        # The path and its validation errors on y of unit scale (an exact power of 2): ν_max
        # and the MSE would overflow at y · 1e200. ν scales with y².
        y_scale = power_of_two_scale(y, xp=xp)
        square = y_scale * y_scale
        y = y / y_scale
        kernel = check_kernel(self.kernel, X)
        rng = check_random_state(self.random_state)
        options = dict(
            kernel=kernel,
            mode=self.mode,
            solver=self.solver,
            selection=self.selection,
            step=self.step,
            stop=self.stop,
            tol=self.tol,
            max_iter=self.max_iter,
            fit_intercept=self.fit_intercept,
            memory_budget=self.memory_budget,
        )
        (problem,), candidates, seed = _prepare(
            X,
            xp.reshape(y, (-1, 1)),
            self.n_columns,
            kernel,
            self.mode,
            self.memory_budget,
            self.fit_intercept,
            rng,
            owner=type(self).__name__,
            xp=xp,
        )
        top = nu_max(problem)
        if self.nus is not None:
            nus = check_grid(self.nus, name="nus")
            internal = tuple(_internal_nu(v, y_scale, top, name="nus") for v in nus)
        else:
            # y constant after centring: ν_max = 0 and every ν gives μ = 0
            internal = nu_grid(top, self.n_nus, self.eps) if top > 0 else (1.0,)
            nus = tuple(v * square for v in internal)
        y_host = to_numpy(y)
        folds = list(check_cv(self.cv).split(to_numpy(X), y_host, groups))
        seeds = rng.randint(2**31 - 1, size=len(folds))
        per_fold = Parallel(n_jobs=self.n_jobs)(
            delayed(_fold_errors)(X, y, train, test, internal, int(s), problem.M, options, xp=xp)
            for (train, test), s in zip(folds, seeds, strict=True)
        )
        finite = all(math.isfinite(v) and v > 0 for v in nus)
        best, mse_path = choose_from_grid(
            type(self).__name__,
            "nu",
            nus if finite else internal,  # the user's units where float64 holds them
            per_fold,
            top="every weight zero: the model is the mean of y",
            advice="nus" if self.nus is not None else "eps or n_nus",
        )
        j = (nus if finite else internal).index(best)
        self.nu_, self.nus_, self.nu_max_ = nus[j], nus, top * square
        self.mse_path_ = scale_errors(mse_path, y_scale)
        result = solve_slkl(
            problem,
            nu=internal[j],
            seed=seed,
            **solver,
            stop=self.stop,
            tol=float(self.tol),
            max_iter=self.max_iter,
        )
        self._store(_rescaled(result, y_scale), X, candidates, kernel, xp=xp)
        return self


class UniformRankOneRidge(KernelExpansionRegressor):
    """Kernel ridge regression on the uniform combination of M rank-1 kernels: the paper's Unif.

    The kernel is ``K̃ = Σ_{m∈S} w c_m c_mᵀ`` over ``n_columns`` random training points, with
    the same weight ``w`` for every m (the paper's reproduction takes ``1/M``, a convex
    combination as in the ensemble-Nyström view the paper builds on), and λ = 1 as in SLKL.
    The fit uses the Gram form of SLKL (one pass for ``B = C_SᵀC_S``, then an M × M solve):
    SLKL with μ fixed, which is ridge regression on the M normalised columns with penalty
    ``1/w`` (the primal solver of :mod:`lrkl.kernel_ridge`).

    Parameters
    ----------
    kernel : lrkl.kernels.Kernel, {"rbf", "laplacian", "linear", "poly"} or None, default=None
        ``None`` means ``Gaussian(gamma="scale")``, the width taken from the training data.
    n_columns : int, default=None
        M; ``None`` means min(n_samples, 1000).
    weight : float, default=1.0
        The common weight; the SLKL paper's reproduction uses 1/M (a convex combination).
    random_state : int, RandomState or None, default=None
    fit_intercept : bool, default=True
        Fit an unpenalised bias (``False``: the paper's model).

    Attributes
    ----------
    candidates_ : array of shape (M,)
    centres_ : array of shape (M, n_features)
    dual_coef_ : array of shape (M,)
    intercept_ : array of shape ()
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import UniformRankOneRidge
    >>> X = np.linspace(-3, 3, 100)[:, None]
    >>> UniformRankOneRidge(n_columns=20, random_state=0).fit(X, np.sin(X[:, 0])).dual_coef_.shape
    (20,)
    """

    _parameter_constraints: dict = {
        "kernel": KERNEL_CONSTRAINT,
        "n_columns": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "weight": [Interval(numbers.Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
        "fit_intercept": ["boolean"],
    }

    def __init__(
        self,
        kernel: Kernel | str | None = None,
        n_columns: int | None = None,
        weight: float = 1.0,
        *,
        random_state: Any = None,
        fit_intercept: bool = True,
    ) -> None:
        self.kernel = kernel
        self.n_columns = n_columns
        self.weight = weight
        self.random_state = random_state
        self.fit_intercept = fit_intercept

    def fit(self, X: Array, y: Array) -> UniformRankOneRidge:
        """Solve ``(B + I/w) g = b`` on the normalised columns and predict by (16)–(17).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()
        xp, X, y = check_X_y(X, y, owner=self, min_samples=2)
        y_scale = power_of_two_scale(y, xp=xp)  # exact: the fit is linear in y
        y = y / y_scale
        M = check_n_columns(self.n_columns, X.shape[0], owner=type(self).__name__)
        weight = float(self.weight)
        self.kernel_ = check_kernel(self.kernel, X)
        rows = sample_rows(X.shape[0], M, self.random_state)
        problem = slkl_problem(
            X, y, rows, kernel=self.kernel_, mode="gram", fit_intercept=self.fit_intercept, xp=xp
        )
        # SLKL's Gram form holds the (centred) statistics of the primal ridge on its columns.
        hxp = host_namespace()
        primal = PrimalProblem(
            problem.B, problem.b, hxp.asarray(problem.mean), hxp.asarray(problem.y_mean)
        )
        fit = _solve_primal(
            primal, _make_solver(primal.gram, "cholesky", xp=hxp), 1.0 / weight, xp=hxp
        )
        # Column c_m = k(·, x_m)/√k(x_m, x_m): the dual coefficient of centre m is g_m/√k_mm.
        device = device_of(X)
        self.candidates_ = index_array(rows, xp=xp, device=device)
        self.centres_ = xp.take(X, self.candidates_, axis=0)
        dual = fit.coef / hxp.sqrt(problem.k_diag) * y_scale
        self.dual_coef_ = from_host(dual, xp=xp, device=device, dtype=X.dtype)
        intercept = fit.intercept * y_scale
        self.intercept_ = from_host(intercept, xp=xp, device=device, dtype=X.dtype)
        self.n_features_in_ = X.shape[1]
        return self

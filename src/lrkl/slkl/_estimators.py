"""SLKL estimators (scikit-learn compatible) at one ν, and what the path and its CV share.

- :class:`SLKLRegressor`: stochastic low-rank kernel learning, eq. (14), predicting by (16)–(17);
- :class:`SLKLClassifier`: the same on ±1 labels, one-vs-rest, one pass for all classes;
- over a grid of ν: :func:`lrkl.slkl.slkl_path` and :class:`lrkl.SLKLRegressorCV`
  (:mod:`lrkl.slkl._path`); the paper's Unif baseline: :class:`lrkl.UniformRankOneRidge`
  (:mod:`lrkl.slkl._uniform`). The paper's KRRn and KRRM are :class:`lrkl.KernelRidge` and
  :class:`lrkl.KernelRidgeSubset`.

Every estimator takes arrays of any array-API library and returns results of the same library,
on the same device; the numerical work lives in :mod:`lrkl.slkl._solver`
and the modules it names.

Defaults (``mode="auto"``, ``solver="active_set"``) come from the panel of
``benchmarks/scripts/slkl_panel.py``: the Gram form and an active-set solver of F's equivalent
lasso reach the paper's algorithm's objective (direct, random, Newton) to 10⁻⁶ tens to
hundreds of times sooner; see the class docstring.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from types import ModuleType
from typing import Any, ClassVar

from sklearn.utils import check_random_state

from lrkl._backend import device_of, from_host, host_namespace, index_array, to_numpy
from lrkl._base import MONITOR_CONSTRAINTS, LRKLClassifier
from lrkl._executor import executor_for
from lrkl._typing import Array
from lrkl._validation import (
    KERNEL_CONSTRAINT,
    Interval,
    StrOptions,
    check_classification_X_y,
    check_n_columns,
    check_predict_X,
    check_X_y,
)
from lrkl.kernel_ridge._base import KernelExpansionRegressor, predict_dual, sample_rows
from lrkl.kernel_ridge._scaling import power_of_two_scale
from lrkl.kernels import DEFAULT_MEMORY_BUDGET, Kernel, check_kernel
from lrkl.slkl._coordinate import SELECTIONS, STEPS, SLKLState
from lrkl.slkl._problems import MODES, nu_max, slkl_problems
from lrkl.slkl._solver import SOLVERS, STOPS, SLKLResult, solve_slkl

__all__ = ["SLKLClassifier", "SLKLRegressor"]


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


#: ``SLKLRegressor``'s default ν as a fraction of ν_max: the best worst case of a fixed ratio on
#: the panel of ``benchmarks/scripts/defaults.py`` at M = 1000 (1e-7 … 3e-5 tried: worst R² gap to
#: scikit-learn's KernelRidge −0.32, −0.15, −0.10, −0.039, −0.041).
DEFAULT_NU_RATIO = 1e-5


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
    attributes: one target gives 1-D ``dual_coef_``/``kernel_weights_`` and a scalar ``intercept_``;
    t targets put their centres together (the union of the supports, a class's inactive centres
    weighing zero) with one column of ``dual_coef_`` and one row of ``kernel_weights_`` each."""
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
    # first: a Dask graph that fails must leave the estimator unfitted
    centres = executor_for(X, xp=xp).take(X, rows)
    estimator.kernel_ = kernel
    estimator.candidates_ = index_array(candidates, xp=xp, device=device)
    estimator.kernel_weights_ = weights
    estimator.support_ = index_array(support, xp=xp, device=device)
    estimator.centers_ = centres
    estimator.dual_coef_ = dual
    estimator.intercept_ = intercept
    estimator.n_iter_ = max(r.n_iter for r in results)
    estimator.kkt_violation_ = max(r.kkt_violation for r in results)
    estimator.mode_ = results[0].mode
    estimator.n_features_in_ = X.shape[1]


class _SLKLModel(KernelExpansionRegressor):
    """The fitted attributes of one SLKL solution, shared by SLKLRegressor and SLKLRegressorCV."""

    _renamed_attributes: ClassVar[dict[str, str]] = {
        "centres_": "centers_",
        "weights_": "kernel_weights_",
    }
    _model_arrays = (*KernelExpansionRegressor._model_arrays, "kernel_weights_")

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
    kernel_weights_ : array of shape (M,)
        μ, one weight per candidate.
    support_ : array of shape (m0,)
        Positions in ``candidates_`` with μ > 0.
    centers_ : array of shape (m0, n_features)
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
    >>> model.centers_.shape[0] == model.support_.shape[0] < 100
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
        xp, X, y = check_X_y(X, y, owner=self, min_samples=2, lazy=True)
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
    kernel_weights_ : array of shape (M,) or (n_classes, M)
        μ per candidate (one row per class with more than two classes).
    support_ : array of shape (m0,)
        Positions in ``candidates_`` active (μ > 0) for at least one class.
    centers_ : array of shape (m0, n_features)
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

    _renamed_attributes: ClassVar[dict[str, str]] = {
        "centres_": "centers_",
        "weights_": "kernel_weights_",
    }

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
        xp, X, classes, codes = check_classification_X_y(X, y, owner=self, lazy=True)
        device = device_of(X)
        targets = self._sign_targets(codes, classes.shape[0])
        Y = from_host(targets, xp=xp, device=device, dtype=X.dtype)
        results, candidates, kernel, nus = self._fit_targets(X, Y, xp=xp)
        _store_expansion(self, results, X, candidates, kernel, xp=xp)
        self.nu_ = tuple(nus)
        self._set_classes(classes, xp=xp, device=device)
        return self

    def _decision(self, X: Array, method: str) -> Array:
        """``Σ_j dual_coef_[j] k(centers_[j], x) + intercept_``, in row blocks."""
        xp, X = check_predict_X(self, X, like="dual_coef_", method=method)
        kernel, centres = self.kernel_, self.centers_
        return predict_dual(
            lambda rows: kernel._evaluate(rows, centres, xp=xp),
            X,
            self.dual_coef_,
            self.intercept_,
            xp=xp,
        )

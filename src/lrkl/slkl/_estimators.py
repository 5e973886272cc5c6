"""SLKL estimators (scikit-learn compatible) and the baselines of the SLKL paper (§5.3).

- :class:`SLKLRegressor`: stochastic low-rank kernel learning, eq. (14), predicting by (16)–(17);
- :func:`slkl_path`: SLKL over a grid of ν with warm starts; :class:`SLKLRegressorCV` picks ν by
  cross-validation over that path;
- :class:`KernelRidgeExact` (the paper's KRRn), :class:`KernelRidgeSubset` (KRRM) and
  :class:`UniformRankOneRidge` (Unif): kernel ridge regression with the paper's λ = 1 on all n
  points, on M random points, and on the uniform combination of the same M rank-1 kernels.

Every estimator takes arrays of any array-API library and returns results of the same library,
on the same device; the numerical work lives in :mod:`lrkl.slkl._solver`.

Defaults (``mode="auto"``, ``selection="greedy"``, ``step="exact"``) come from the measurements
in ``benchmarks/benchmarks/bench_slkl.py``: at n = 10⁴, M = 1000 the Gram form with greedy
selection and exact coordinate steps reaches the paper's algorithm's objective (direct, random,
Newton) to 10⁻⁶ hundreds of times sooner; see the class docstring.
"""

from __future__ import annotations

import math
import numbers
import sys
import warnings
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, NamedTuple

from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import check_cv
from sklearn.utils import check_random_state

from lrkl._backend import device_of, from_host, host_namespace, to_numpy
from lrkl._linalg import solve
from lrkl._validation import check_kernel, check_predict_X, check_X_y
from lrkl.kernels import Gaussian, Kernel
from lrkl.slkl._solver import (
    DEFAULT_MEMORY_BUDGET,
    MODES,
    SELECTIONS,
    STEPS,
    SLKLResult,
    SLKLState,
    slkl_problem,
    slkl_solve,
)

__all__ = [
    "KernelRidgeExact",
    "KernelRidgeSubset",
    "SLKLPath",
    "SLKLRegressor",
    "SLKLRegressorCV",
    "UniformRankOneRidge",
    "slkl_path",
]

Array = Any


# --------------------------------------------------------------------------- validation helpers


def _kernel(kernel: Kernel | None) -> Kernel:
    return check_kernel(kernel, default=Gaussian(sigma2=1.0))


def _scalar(x: Any) -> float:
    """A 0-D array (or NumPy scalar) as a Python float: one deliberate host read."""
    return float(x) if isinstance(x, numbers.Real) else float(to_numpy(x))


def _positive(name: str, value: Any) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or value <= 0:
        msg = f"{name} must be a finite number > 0, received {value!r}"
        raise ValueError(msg)
    return float(value)


def _choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    if value not in allowed:
        msg = f"{name} must be one of {tuple(allowed)}, received {value!r}"
        raise ValueError(msg)
    return value


def _n_columns(value: Any, n: int) -> int:
    """M: ``None`` means min(n, 256); otherwise an integer in [1, n]."""
    if value is None:
        return min(n, 256)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= n:
        msg = f"n_columns must be an integer in [1, n_samples = {n}], received {value!r}"
        raise ValueError(msg)
    return int(value)


def _max_iter(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        msg = f"max_iter must be None or an integer >= 1, received {value!r}"
        raise ValueError(msg)
    return int(value)


def _tol(value: Any) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or value < 0:
        msg = f"tol must be a finite number >= 0, received {value!r}"
        raise ValueError(msg)
    return float(value)


def _budget(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        msg = f"memory_budget must be an integer number of bytes >= 1, received {value!r}"
        raise ValueError(msg)
    return int(value)


def _sample(n: int, M: int, rng: Any) -> list[int]:
    """M distinct row numbers drawn uniformly, in increasing order."""
    return sorted(int(i) for i in rng.choice(n, size=M, replace=False))


def _index(values: Sequence[int], *, xp: ModuleType, device: Any) -> Array:
    hxp = host_namespace()
    return from_host(hxp.asarray(list(values), dtype=hxp.int64), xp=xp, device=device)


def _centre_y(y: Array, fit_intercept: bool, *, xp: ModuleType) -> tuple[Array, float]:
    if not fit_intercept:
        return y, 0.0
    mean = _scalar(xp.mean(y))
    return y - mean, mean


def _predict_dual(
    kernel: Kernel, X: Array, centres: Array, dual: Array, intercept: float, *, xp: ModuleType
) -> Array:
    """``Σ_j dual[j] k(centres[j], x) + intercept`` for each row, in blocks of rows."""
    out = xp.zeros(X.shape[0], dtype=X.dtype, device=device_of(X))
    if centres.shape[0] == 0:
        return out + intercept
    centres = xp.astype(centres, X.dtype)
    dual = xp.astype(dual, X.dtype)
    for rows, block in kernel.blocks(X, centres):
        out[rows] = block @ dual
    return out + intercept


class _RegressorBase(RegressorMixin, BaseEstimator):
    """Shared tags and ``predict`` of the kernel expansions ``Σ_j dual_coef_[j] k(centre_j, x)``."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.array_api_support = True
        tags.input_tags.allow_nan = False
        return tags

    def predict(self, X: Array) -> Array:
        """Predict targets for the rows of ``X`` (same namespace and device as ``X``).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples,)
        """
        xp, X = check_predict_X(self, X, like="dual_coef_")
        return _predict_dual(
            self.kernel_, X, self.centres_, self.dual_coef_, self.intercept_, xp=xp
        )


# --------------------------------------------------------------------------- SLKL


class SLKLRegressor(_RegressorBase):
    """Stochastic low-rank kernel learning (Machart et al., ICML 2011).

    Learns a sparse conical combination ``Σ_m μ_m c_m c_mᵀ`` of the rank-1 Nyström kernels of
    ``n_columns`` random training points (the candidate set S) by coordinate descent on eq. (14)
    with λ = 1, and predicts with ``f(x) = Σ_{m∈A} μ_m a_m k(x_m, x)/√k(x_m, x_m)`` (16)–(17):
    only the m0 active centres are kept, not the training set.

    Parameters
    ----------
    kernel : lrkl.kernels.Kernel, default=None
        The base kernel; ``None`` means ``Gaussian(sigma2=1.0)``.
    n_columns : int, default=None
        M, the size of the candidate set; ``None`` means min(n_samples, 256).
    nu : float, default=0.01
        ν > 0, the weight of ``Σ μ_m`` (only λν matters, Proposition 3, so λ = 1).
    mode : {"auto", "direct", "gram"}, default="auto"
        ``gram`` builds ``B = C_SᵀC_S`` in one pass (O(nM²)), then iterates in O(m0²);
        ``direct`` is the paper's O(n·m0) per iteration; ``auto`` takes ``gram`` whenever its
        M×M matrix fits ``memory_budget``.
    selection : {"random", "cyclic", "greedy"}, default="greedy"
        Coordinate choice: the paper's uniform draw, a fresh permutation per pass, or
        Gauss–Southwell (largest projected gradient, O(m0·M) per iteration).
    step : {"newton", "exact", "paper"}, default="exact"
        Proposition 2's Newton step, the closed-form coordinate minimiser, or Algorithm 2 as
        printed (factor 2 missing; kept for comparison, it can increase F).
    tol : float, default=1e-4
        ε of the paper's stopping rule ``F(μ^{k−M}) − F(μ^k) < ε F(μ^{k−M})``.
    max_iter : int, default=None
        Iteration cap; ``None`` means ``1000·M``.
    random_state : int, RandomState or None, default=None
        Draws S and the coordinate sequence.
    callback : callable, default=None
        ``callback(state)`` at every objective check (every M iterations), ``state`` having
        ``iteration``, ``objective``, ``n_active`` and ``weights``; returning True stops the fit.
    verbose : int, default=0
        Print the objective and m0 at every check when > 0.
    fit_intercept : bool, default=False
        False as in the paper; True centres y and adds its mean back.
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
    intercept_ : float
        Mean of y when ``fit_intercept``, else 0.
    objective_ : float
        F at the returned μ.
    objective_history_, n_active_history_, iteration_history_ : tuple
        F, m0 and the iteration number at each objective check.
    n_iter_ : int
        Iterations run.
    mode_ : str
        The form that ran.
    n_features_in_ : int

    Notes
    -----
    The defaults were chosen from the measurements of ``bench_slkl.py``: greedy selection needs
    far fewer iterations than random ones, exact steps fewer than Newton steps, and the Gram form
    turns each of them into O(m0·M) host work after a single GEMM over the rows.

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

    def __init__(
        self,
        kernel: Kernel | None = None,
        n_columns: int | None = None,
        nu: float = 0.01,
        *,
        mode: str = "auto",
        selection: str = "greedy",
        step: str = "exact",
        tol: float = 1e-4,
        max_iter: int | None = None,
        random_state: Any = None,
        callback: Callable[[SLKLState], Any] | None = None,
        verbose: int = 0,
        fit_intercept: bool = False,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ) -> None:
        self.kernel = kernel
        self.n_columns = n_columns
        self.nu = nu
        self.mode = mode
        self.selection = selection
        self.step = step
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose
        self.fit_intercept = fit_intercept
        self.memory_budget = memory_budget

    def _options(self) -> dict[str, Any]:
        return dict(
            step=_choice("step", self.step, STEPS),
            selection=_choice("selection", self.selection, SELECTIONS),
            tol=_tol(self.tol),
            max_iter=_max_iter(self.max_iter),
        )

    def _monitor(self) -> Callable[[SLKLState], Any] | None:
        if not self.verbose and self.callback is None:
            return None

        def monitor(state: SLKLState) -> bool:
            if self.verbose:
                print(
                    f"[SLKL] iteration {state.iteration}: F = {state.objective:.10g}, "
                    f"m0 = {state.n_active}",
                    file=sys.stderr,
                )
            return bool(self.callback(state)) if self.callback is not None else False

        return monitor

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
        xp, X, y = check_X_y(X, y, owner=type(self).__name__, min_samples=2)
        nu = _positive("nu", self.nu)
        options = self._options()
        mode = _choice("mode", self.mode, MODES)
        M = _n_columns(self.n_columns, X.shape[0])
        kernel = _kernel(self.kernel)
        rng = check_random_state(self.random_state)
        candidates = _sample(X.shape[0], M, rng)
        seed = int(rng.randint(2**31 - 1))
        y, intercept = _centre_y(y, self.fit_intercept, xp=xp)
        problem = slkl_problem(
            X,
            y,
            candidates,
            kernel=kernel,
            mode=mode,
            memory_budget=_budget(self.memory_budget),
            xp=xp,
        )
        result = slkl_solve(problem, nu=nu, seed=seed, callback=self._monitor(), **options)
        self._store(result, X, candidates, kernel, intercept, xp=xp)
        if not result.converged and result.n_iter >= (options["max_iter"] or 1000 * M):
            warnings.warn(
                f"SLKL stopped after max_iter = {result.n_iter} iterations before the stopping "
                f"rule (tol = {self.tol}) held; increase max_iter or tol",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def _store(
        self,
        result: SLKLResult,
        X: Array,
        candidates: list[int],
        kernel: Kernel,
        intercept: float,
        *,
        xp: ModuleType,
    ) -> None:
        device = device_of(X)
        self.kernel_ = kernel
        self.candidates_ = _index(candidates, xp=xp, device=device)
        self.weights_ = result.weights
        self.support_ = _index(result.support, xp=xp, device=device)
        rows = _index([candidates[j] for j in result.support], xp=xp, device=device)
        self.centres_ = xp.take(X, rows, axis=0)
        self.dual_coef_ = result.dual_coef
        self.intercept_ = intercept
        self.objective_ = result.objective
        self.objective_history_ = result.objective_history
        self.n_active_history_ = result.n_active_history
        self.iteration_history_ = result.iteration_history
        self.n_iter_ = result.n_iter
        self.mode_ = result.mode
        self.n_features_in_ = X.shape[1]


class SLKLPath(NamedTuple):
    """SLKL solutions along a grid of ν (:func:`slkl_path`), in the order of ``nus``."""

    nus: tuple[float, ...]
    candidates: Array  # shape: (M,), training row numbers of S
    weights: Array  # shape: (len(nus), M)
    objectives: tuple[float, ...]
    n_active: tuple[int, ...]
    n_iter: tuple[int, ...]
    results: tuple[SLKLResult, ...]


def slkl_path(
    X: Array,
    y: Array,
    nus: Sequence[float],
    /,
    *,
    kernel: Kernel | None = None,
    n_columns: int | None = None,
    mode: str = "auto",
    selection: str = "greedy",
    step: str = "exact",
    tol: float = 1e-4,
    max_iter: int | None = None,
    random_state: Any = None,
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
    kernel, n_columns, mode, selection, step, tol, max_iter, random_state, memory_budget
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
    xp, X, y = check_X_y(X, y, owner="slkl_path", min_samples=2)
    nus = tuple(_positive("nus", nu) for nu in nus)
    if not nus:
        msg = "nus must hold at least one value of nu, received an empty sequence"
        raise ValueError(msg)
    M = _n_columns(n_columns, X.shape[0])
    rng = check_random_state(random_state)
    candidates = _sample(X.shape[0], M, rng)
    seed = int(rng.randint(2**31 - 1))
    problem = slkl_problem(
        X,
        y,
        candidates,
        kernel=_kernel(kernel),
        mode=_choice("mode", mode, MODES),
        memory_budget=_budget(memory_budget),
        xp=xp,
    )
    options = dict(
        step=_choice("step", step, STEPS),
        selection=_choice("selection", selection, SELECTIONS),
        tol=_tol(tol),
        max_iter=_max_iter(max_iter),
    )
    results: dict[int, SLKLResult] = {}
    mu0 = None
    for i in sorted(range(len(nus)), key=lambda i: -nus[i]):
        result = slkl_solve(problem, nu=nus[i], seed=seed, mu0=mu0, **options)
        results[i] = result
        mu0 = to_numpy(result.weights).astype("float64")
    ordered = tuple(results[i] for i in range(len(nus)))
    return SLKLPath(
        nus=nus,
        candidates=_index(candidates, xp=xp, device=device_of(X)),
        weights=xp.stack([r.weights for r in ordered]),
        objectives=tuple(r.objective for r in ordered),
        n_active=tuple(len(r.support) for r in ordered),
        n_iter=tuple(r.n_iter for r in ordered),
        results=ordered,
    )


class SLKLRegressorCV(_RegressorBase):
    """SLKL with ν chosen by cross-validation over a warm-started path (:func:`slkl_path`).

    Parameters
    ----------
    nus : sequence of float, default=None
        Grid of ν; ``None`` means 8 values from 1 down to 1e-4, logarithmically spaced.
    cv : int or cross-validation splitter, default=5
        As in scikit-learn (``KFold`` for an int).
    kernel, n_columns, mode, selection, step, tol, max_iter, random_state, fit_intercept
        As for :class:`SLKLRegressor`.
    memory_budget : int, default=2**30
        As for :class:`SLKLRegressor`.

    Attributes
    ----------
    nu_ : float
        The ν with the lowest mean validation MSE.
    nus_ : tuple of float
        The grid.
    mse_path_ : tuple of tuple of float
        Validation MSE, one row per ν, one column per fold.
    estimator_ : SLKLRegressor
        Refitted on all the data with ``nu_``; its fitted attributes (``weights_``,
        ``dual_coef_``, ``support_``, ...) are mirrored here.

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import SLKLRegressorCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-5, 5, (200, 2))
    >>> y = np.sinc(np.linalg.norm(X, axis=1) / np.pi) + 0.05 * rng.standard_normal(200)
    >>> model = SLKLRegressorCV(nus=[1.0, 0.1, 0.01], n_columns=50, cv=3, random_state=0)
    >>> model.fit(X, y).nu_ in (1.0, 0.1, 0.01)
    True
    """

    def __init__(
        self,
        nus: Sequence[float] | None = None,
        *,
        cv: Any = 5,
        kernel: Kernel | None = None,
        n_columns: int | None = None,
        mode: str = "auto",
        selection: str = "greedy",
        step: str = "exact",
        tol: float = 1e-4,
        max_iter: int | None = None,
        random_state: Any = None,
        fit_intercept: bool = False,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ) -> None:
        self.nus = nus
        self.cv = cv
        self.kernel = kernel
        self.n_columns = n_columns
        self.mode = mode
        self.selection = selection
        self.step = step
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.memory_budget = memory_budget

    def fit(self, X: Array, y: Array) -> SLKLRegressorCV:
        """Cross-validate ν over the path, then refit on all the data.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)

        Returns
        -------
        self
        """
        xp, X, y = check_X_y(X, y, owner=type(self).__name__, min_samples=2)
        nus = tuple(10.0 ** (-4.0 * i / 7.0) for i in range(8)) if self.nus is None else self.nus
        nus = tuple(_positive("nus", nu) for nu in nus)
        kernel = _kernel(self.kernel)
        rng = check_random_state(self.random_state)
        n = X.shape[0]
        device = device_of(X)
        splitter = check_cv(self.cv)
        errors: list[list[float]] = [[] for _ in nus]
        for train, test in splitter.split(to_numpy(X)):
            tr = _index(train.tolist(), xp=xp, device=device)
            te = _index(test.tolist(), xp=xp, device=device)
            X_tr, y_tr = xp.take(X, tr, axis=0), xp.take(y, tr, axis=0)
            X_te, y_te = xp.take(X, te, axis=0), xp.take(y, te, axis=0)
            y_fit, intercept = _centre_y(y_tr, self.fit_intercept, xp=xp)
            M = min(_n_columns(self.n_columns, n), X_tr.shape[0])
            path = slkl_path(
                X_tr,
                y_fit,
                nus,
                kernel=kernel,
                n_columns=M,
                mode=self.mode,
                selection=self.selection,
                step=self.step,
                tol=self.tol,
                max_iter=self.max_iter,
                random_state=rng,
                memory_budget=_budget(self.memory_budget),
            )
            for i, result in enumerate(path.results):
                rows = xp.take(path.candidates, _index(result.support, xp=xp, device=device))
                pred = _predict_dual(
                    kernel, X_te, xp.take(X_tr, rows, axis=0), result.dual_coef, intercept, xp=xp
                )
                errors[i].append(_scalar(xp.mean((pred - y_te) ** 2)))
        means = [sum(e) / len(e) for e in errors]
        best = min(range(len(nus)), key=means.__getitem__)
        self.nu_ = nus[best]
        self.nus_ = nus
        self.mse_path_ = tuple(tuple(e) for e in errors)
        self.estimator_ = SLKLRegressor(
            kernel=kernel,
            n_columns=self.n_columns,
            nu=self.nu_,
            mode=self.mode,
            selection=self.selection,
            step=self.step,
            tol=self.tol,
            max_iter=self.max_iter,
            random_state=rng,
            fit_intercept=self.fit_intercept,
            memory_budget=_budget(self.memory_budget),
        ).fit(X, y)
        for name in (
            "kernel_",
            "candidates_",
            "weights_",
            "support_",
            "centres_",
            "dual_coef_",
            "intercept_",
            "objective_",
            "n_iter_",
            "mode_",
            "n_features_in_",
        ):
            setattr(self, name, getattr(self.estimator_, name))
        return self


# --------------------------------------------------------------------------- baselines


def _ridge_dual(kernel: Kernel, X: Array, y: Array, alpha: float, *, xp: ModuleType) -> Array:
    """``(K + αI)⁻¹ y``: exact kernel ridge regression, forming the n × n Gram matrix on purpose."""
    K = kernel(X, X)
    n = X.shape[0]
    K = K + alpha * xp.eye(n, dtype=X.dtype, device=device_of(X))
    return solve(K, y, xp=xp, assume_a="pos")


class KernelRidgeExact(_RegressorBase):
    """Exact kernel ridge regression on all n points: the paper's KRRn (eqs. 8–10).

    ``f(x) = Σ_i α_i k(x_i, x)`` with ``α = (K + αI)⁻¹ y``; the paper's λ = 1 is ``alpha=1``.
    It forms the n × n Gram matrix (O(n²) memory, O(n³) time): the reference, not a method
    for large n.

    Parameters
    ----------
    kernel : lrkl.kernels.Kernel, default=None
        ``None`` means ``Gaussian(sigma2=1.0)``.
    alpha : float, default=1.0
        The ridge λ > 0.
    fit_intercept : bool, default=False
        True centres y and adds its mean back.

    Attributes
    ----------
    centres_ : array of shape (n_samples, n_features)
    dual_coef_ : array of shape (n_samples,)
    intercept_ : float
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import KernelRidgeExact
    >>> X = np.linspace(-3, 3, 50)[:, None]
    >>> model = KernelRidgeExact(alpha=1e-3).fit(X, np.sin(X[:, 0]))
    >>> bool(abs(model.predict(np.array([[1.0]]))[0] - np.sin(1.0)) < 1e-2)
    True
    """

    def __init__(
        self, kernel: Kernel | None = None, alpha: float = 1.0, *, fit_intercept: bool = False
    ) -> None:
        self.kernel = kernel
        self.alpha = alpha
        self.fit_intercept = fit_intercept

    def fit(self, X: Array, y: Array) -> KernelRidgeExact:
        """Solve ``(K + αI) α = y``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)

        Returns
        -------
        self
        """
        xp, X, y = check_X_y(X, y, owner=type(self).__name__, min_samples=2)
        alpha = _positive("alpha", self.alpha)
        self.kernel_ = _kernel(self.kernel)
        y, self.intercept_ = _centre_y(y, self.fit_intercept, xp=xp)
        self.centres_ = X
        self.dual_coef_ = _ridge_dual(self.kernel_, X, y, alpha, xp=xp)
        self.n_features_in_ = X.shape[1]
        return self


class KernelRidgeSubset(_RegressorBase):
    """Exact kernel ridge regression on ``n_columns`` random training points: the paper's KRRM.

    Parameters
    ----------
    kernel : lrkl.kernels.Kernel, default=None
        ``None`` means ``Gaussian(sigma2=1.0)``.
    n_columns : int, default=None
        M, the number of points kept; ``None`` means min(n_samples, 256).
    alpha : float, default=1.0
        The ridge λ > 0.
    random_state : int, RandomState or None, default=None
    fit_intercept : bool, default=False

    Attributes
    ----------
    candidates_ : array of shape (M,)
        Training row numbers kept.
    centres_ : array of shape (M, n_features)
    dual_coef_ : array of shape (M,)
    intercept_ : float
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import KernelRidgeSubset
    >>> X = np.linspace(-3, 3, 200)[:, None]
    >>> model = KernelRidgeSubset(n_columns=40, alpha=1e-3, random_state=0)
    >>> model.fit(X, np.sin(X[:, 0])).centres_.shape
    (40, 1)
    """

    def __init__(
        self,
        kernel: Kernel | None = None,
        n_columns: int | None = None,
        alpha: float = 1.0,
        *,
        random_state: Any = None,
        fit_intercept: bool = False,
    ) -> None:
        self.kernel = kernel
        self.n_columns = n_columns
        self.alpha = alpha
        self.random_state = random_state
        self.fit_intercept = fit_intercept

    def fit(self, X: Array, y: Array) -> KernelRidgeSubset:
        """Draw M points and solve kernel ridge regression on them.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)

        Returns
        -------
        self
        """
        xp, X, y = check_X_y(X, y, owner=type(self).__name__, min_samples=2)
        alpha = _positive("alpha", self.alpha)
        M = _n_columns(self.n_columns, X.shape[0])
        self.kernel_ = _kernel(self.kernel)
        rows = _sample(X.shape[0], M, check_random_state(self.random_state))
        self.candidates_ = _index(rows, xp=xp, device=device_of(X))
        X = xp.take(X, self.candidates_, axis=0)
        y = xp.take(y, self.candidates_, axis=0)
        y, self.intercept_ = _centre_y(y, self.fit_intercept, xp=xp)
        self.centres_ = X
        self.dual_coef_ = _ridge_dual(self.kernel_, X, y, alpha, xp=xp)
        self.n_features_in_ = X.shape[1]
        return self


class UniformRankOneRidge(_RegressorBase):
    """Kernel ridge regression on the uniform combination of M rank-1 kernels: the paper's Unif.

    The kernel is ``K̃ = Σ_{m∈S} w c_m c_mᵀ`` over ``n_columns`` random training points, with
    the same weight ``w`` for every m (``None``: ``1/M``, a convex combination as in the
    ensemble-Nyström view the paper builds on), and λ = 1 as in SLKL. The fit uses the Gram
    form of SLKL (one pass for ``B = C_SᵀC_S``, then an M × M solve): SLKL with μ fixed.

    Parameters
    ----------
    kernel : lrkl.kernels.Kernel, default=None
        ``None`` means ``Gaussian(sigma2=1.0)``.
    n_columns : int, default=None
        M; ``None`` means min(n_samples, 256).
    weight : float, default=None
        The common weight; ``None`` means 1/M.
    random_state : int, RandomState or None, default=None
    fit_intercept : bool, default=False

    Attributes
    ----------
    candidates_ : array of shape (M,)
    centres_ : array of shape (M, n_features)
    dual_coef_ : array of shape (M,)
    intercept_ : float
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import UniformRankOneRidge
    >>> X = np.linspace(-3, 3, 100)[:, None]
    >>> UniformRankOneRidge(n_columns=20, random_state=0).fit(X, np.sin(X[:, 0])).dual_coef_.shape
    (20,)
    """

    def __init__(
        self,
        kernel: Kernel | None = None,
        n_columns: int | None = None,
        weight: float | None = None,
        *,
        random_state: Any = None,
        fit_intercept: bool = False,
    ) -> None:
        self.kernel = kernel
        self.n_columns = n_columns
        self.weight = weight
        self.random_state = random_state
        self.fit_intercept = fit_intercept

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # With weights 1/M the kernel is heavily shrunk: a poor fit is the point of the baseline.
        tags.regressor_tags.poor_score = True
        return tags

    def fit(self, X: Array, y: Array) -> UniformRankOneRidge:
        """Solve ``(D⁻¹ + B) g = b`` with ``D = w I`` and predict by (16)–(17).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)

        Returns
        -------
        self
        """
        xp, X, y = check_X_y(X, y, owner=type(self).__name__, min_samples=2)
        M = _n_columns(self.n_columns, X.shape[0])
        weight = 1.0 / M if self.weight is None else _positive("weight", self.weight)
        self.kernel_ = _kernel(self.kernel)
        rows = _sample(X.shape[0], M, check_random_state(self.random_state))
        y, self.intercept_ = _centre_y(y, self.fit_intercept, xp=xp)
        problem = slkl_problem(X, y, rows, kernel=self.kernel_, mode="gram", xp=xp)
        hxp = host_namespace()
        A = problem.B + hxp.eye(M, dtype=hxp.float64) / weight
        # With μ = w for every m, μ_m a_m = (G b)_m (see lrkl.slkl._solver._ActiveSet.dual).
        dual = solve(A, problem.b, xp=hxp, assume_a="pos") / hxp.sqrt(problem.k_diag)
        device = device_of(X)
        self.candidates_ = _index(rows, xp=xp, device=device)
        self.centres_ = xp.take(X, self.candidates_, axis=0)
        self.dual_coef_ = from_host(dual, xp=xp, device=device, dtype=X.dtype)
        self.n_features_in_ = X.shape[1]
        return self

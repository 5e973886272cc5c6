"""Exact kernel ridge regression on the n × n kernel matrix, with Prato & Zanni's (2012) three
regularisations of ``f(x) = Σ_i c_i k(x_i, x) + b`` and their whole paths.

- :class:`KernelRidge`: RLS with the bias unpenalised (system (7)), penalised (system (8)) or
  none; Tikhonov on ``K̃ c̃ = y``, ``K̃ = [K 1]``; or CGLS on it stopped after ``t`` iterations;
- :class:`KernelRidgeCV`: the same with ``α`` (or ``t``) chosen on a whole path, by exact
  leave-one-out from one factorisation or by K-fold;
- :class:`KernelRidgeSubset`: RLS on ``M`` random points (the SLKL paper's KRRM).

The solvers are in :mod:`lrkl.kernel_ridge._regularization`.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import Any, ClassVar

from sklearn.model_selection import KFold

from lrkl._backend import device_of, index_array, to_numpy, widened
from lrkl._executor import executor_for
from lrkl._model_selection import check_groups, choose_from_grid, cv_folds, fold_rows
from lrkl._typing import Array
from lrkl._validation import (
    KERNEL_CONSTRAINT,
    Hidden,
    Interval,
    StrOptions,
    check_n_columns,
    check_sample_weight,
    check_X_y,
)
from lrkl.kernel_ridge._base import KernelExpansionRegressor, sample_rows
from lrkl.kernel_ridge._methods import (
    KERNEL_RIDGE_METHODS,
    PAPER_LAMBDAS,
    MethodSettings,
    path_mse,
    regularization_path,
)
from lrkl.kernel_ridge._scaling import power_of_two_scale, scale_errors, weight_scale
from lrkl.kernel_ridge._solvers import RidgeCoefficients
from lrkl.kernels import COLUMNS, DEFAULT_MEMORY_BUDGET, Kernel, check_kernel

__all__ = [
    "METHODS",
    "PAPER_LAMBDAS",
    "KernelRidge",
    "KernelRidgeCV",
    "KernelRidgeSubset",
    "path_mse",
    "regularization_path",
]


#: Prato & Zanni's regularisations (:data:`~lrkl.kernel_ridge.KERNEL_RIDGE_METHODS`).
METHODS = tuple(KERNEL_RIDGE_METHODS)


#: ``bias`` (deprecated) as the two switches that replace it: (fit_intercept, penalize_intercept).
_BIAS_SWITCHES = {"unpenalized": (True, None), "penalized": (True, True), None: (False, None)}


def _rescaled(fit: RidgeCoefficients, y_scale: float) -> RidgeCoefficients:
    """The coefficients of a fit on ``y / y_scale`` in the units of ``y``."""
    return RidgeCoefficients(fit.coef * y_scale, fit.intercept * y_scale)


def _intercept_switches(estimator: Any) -> tuple[bool, bool | None]:
    """``(fit_intercept, penalize_intercept)``, from ``bias`` (warned) where it is given."""
    bias = estimator.bias
    if isinstance(bias, str) and bias == "deprecated":
        return estimator.fit_intercept, estimator.penalize_intercept
    new = {"unpenalized": "fit_intercept=True", "penalized": "penalize_intercept=True"}
    msg = (
        f"{type(estimator).__name__}(bias=...) is deprecated and will be removed: use "
        f"{new.get(bias, 'fit_intercept=False')} (received bias={bias!r}, which overrides "
        "fit_intercept and penalize_intercept)"
    )
    warnings.warn(msg, FutureWarning, stacklevel=3)
    return _BIAS_SWITCHES[bias]


class KernelRidge(KernelExpansionRegressor):
    """Exact kernel ridge regression with a bias, regularised in one of Prato & Zanni's three
    ways: ``f(x) = Σ_i c_i k(x_i, x) + b``.

    - ``method="rls"``: regularised least squares, ``(K + αI) c + b 1 = y`` with ``1ᵀc = 0``
      (the default: an unpenalised intercept, their system (7));
      ``(K + 11ᵀ + αI) c = y``, ``b = 1ᵀc`` (``penalize_intercept=True``, system (8): a
      penalty ``α b²`` too); or ``(K + αI) c = y`` (``fit_intercept=False``). Without an
      intercept this is the SLKL paper's KRRn (its λ = 1 is ``alpha=1``) and scikit-learn's
      ``KernelRidge``.
    - ``method="tikhonov"``: Tikhonov on the rectangular system ``K̃ c̃ = y``, ``K̃ = [K 1]``,
      ``c̃ = (c, b)``: ``(K̃ᵀK̃ + αI) c̃ = K̃ᵀy``, from the thin SVD of ``K̃``. When the kernel
      has an explicit feature map ``Φ`` with ``r < n`` columns (:meth:`Kernel.feature_map
      <lrkl.kernels.Kernel.feature_map>`: the linear kernel with ``d < n``, a polynomial
      kernel of low degree) the SVD comes from ``[Φ(X) 1]`` in ``O(n r²)`` without
      ``n × n``; so it does for any low-rank factor, with ``kernel="linear"`` on the features
      of :class:`lrkl.lowrank.LowRankFeatures` in a pipeline.
    - ``method="cg"``: ``max_iter`` iterations of CGLS on ``K̃ c̃ = y`` from ``c̃ = 0``; the
      iteration count is the regulariser (``alpha`` is not used). ``O(t n²)``.

    The three give different estimates. ``alpha`` is scikit-learn's: the papers' ``nλ``. RLS
    and Tikhonov form the n × n matrix (a clear :class:`MemoryError` if it cannot fit); CGLS
    may compute its products with ``K`` on the fly in blocks, so that only time grows with
    ``n²``. For a whole path of ``α`` or ``t`` with leave-one-out, use :class:`KernelRidgeCV`.

    Parameters
    ----------
    kernel : lrkl.kernels.Kernel, {"rbf", "laplacian", "linear", "poly"} or None, default=None
        ``None`` means ``Gaussian(gamma="scale")``, the width taken from the training data.
    alpha : float, default=1.0
        The penalty ``α > 0`` of RLS and Tikhonov.
    method : {"rls", "tikhonov", "cg"}, default="rls"
        The regularisation (:data:`lrkl.kernel_ridge.KERNEL_RIDGE_METHODS`).
    fit_intercept : bool, default=True
        Fit the intercept ``b`` (``False``: ``f(x) = Σ_i c_i k(x_i, x)``, on ``K`` alone).
    penalize_intercept : bool or None, default=None
        RLS: ``False`` or ``None`` is system (7), ``b`` unpenalised (the same model as every
        lrkl estimator's ``fit_intercept=True``); ``True`` is system (8), a penalty ``α b²``.
        Tikhonov and CG act on ``[K 1]``, where ``b`` is a coefficient of ``c̃``, penalised by
        Tikhonov and regularised by the early stop of CG as ``c`` is: ``None`` or ``True``,
        and ``False`` is refused (an unpenalised ``b`` is ``method="rls"``). ``True`` without
        an intercept is refused.
    bias : {"unpenalized", "penalized"} or None
        Deprecated: ``"unpenalized"`` is ``fit_intercept=True``, ``"penalized"`` is
        ``penalize_intercept=True``, ``None`` is ``fit_intercept=False``. Given, it overrides
        both and warns (FutureWarning).
    max_iter : int, default=50
        CG: the number of iterations ``t ≥ 1``, the regulariser (more iterations fit the
        training data more closely). The default is the end of the paper's grid
        ``t = 1 … 50``: on its eight data sets (3 splits, Gaussian and linear kernels, raw
        targets) the test error at ``t = 50`` is 2.4 % above that of the best ``t ≤ 200`` in
        the median and 1.42× it at worst (bodyfat, Gaussian kernel); ``t = 10`` is 1.33×
        in the median and up to 3 900× (bodyfat, linear kernel): docs, "Performance". No
        fixed ``t`` suits every set: on scikit-learn's diabetes (331 training rows) ``t = 50``
        overfits (test R² −0.12 to 0.03 over 3 splits, against 0.25 to 0.41 at ``t = 10``).
        To choose ``t`` from the data, use :class:`KernelRidgeCV` (it chose 7 to 9 there). At
        most ``n + 1`` iterations run: CGLS reaches the least-squares solution by then.
    solver : {"auto", "cholesky", "eigh"}, default="auto"
        RLS: one Cholesky factorisation of ``K + αI`` (``"auto"``: ``O(n³/3)``) or an
        eigendecomposition of ``K`` (``O(n³)``, about 8× slower, but every other ``α`` after it
        costs ``O(n²)``: what :class:`KernelRidgeCV` uses).
    columns : {"auto", "precomputed", "on_the_fly"}, default="auto"
        CG: products with ``K`` precomputed, or with blocks of ``K`` computed again in every
        product (memory of one block, 32 MiB); ``"auto"`` precomputes ``K`` when it fits
        ``memory_budget`` and a quarter of the device's memory
        (:func:`lrkl.kernels.precompute_columns`, as SLKL's ``columns``).
    memory_budget : int, default=2**30
        CG: bytes ``columns="auto"`` allows for ``K``.

    Attributes
    ----------
    centers_ : array of shape (n_samples, n_features)
    dual_coef_ : array of shape (n_samples,) or (n_samples, n_targets)
    intercept_ : array of shape () or (n_targets,)
    kernel_ : Kernel
    n_iter_ : int
        CG only: the iterations run.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import KernelRidge
    >>> X = np.linspace(-3, 3, 50)[:, None]
    >>> model = KernelRidge(alpha=1e-3).fit(X, np.sin(X[:, 0]))
    >>> bool(abs(model.predict(np.array([[1.0]]))[0] - np.sin(1.0)) < 1e-2)
    True
    >>> cg = KernelRidge(method="cg", max_iter=20).fit(X, np.sin(X[:, 0]))
    >>> bool(abs(cg.predict(np.array([[1.0]]))[0] - np.sin(1.0)) < 1e-2)
    True
    """

    _renamed_attributes: ClassVar[dict[str, str]] = {"centres_": "centers_"}

    _parameter_constraints: dict = {
        "kernel": KERNEL_CONSTRAINT,
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "method": [StrOptions(set(METHODS))],
        "fit_intercept": ["boolean"],
        "penalize_intercept": ["boolean", None],
        "bias": [
            StrOptions({"unpenalized", "penalized"}),
            Hidden(StrOptions({"deprecated"})),
            None,
        ],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "solver": [StrOptions({"auto", "cholesky", "eigh"})],
        "columns": [StrOptions(set(COLUMNS))],
        "memory_budget": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        kernel: Kernel | str | None = None,
        alpha: float = 1.0,
        *,
        method: str = "rls",
        fit_intercept: bool = True,
        penalize_intercept: bool | None = None,
        max_iter: int = 50,
        solver: str = "auto",
        columns: str = "auto",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        bias: str | None = "deprecated",
    ) -> None:
        self.kernel = kernel
        self.alpha = alpha
        self.method = method
        self.fit_intercept = fit_intercept
        self.penalize_intercept = penalize_intercept
        self.bias = bias
        self.max_iter = max_iter
        self.solver = solver
        self.columns = columns
        self.memory_budget = memory_budget

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True  # one factorisation serves every target
        return tags

    def fit(self, X: Array, y: Array, sample_weight: Array | None = None) -> KernelRidge:
        """Solve the regularised system of ``method``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : array of shape (n_samples,) or float, default=None
            Weights ``w_i ≥ 0`` of the squared errors ``Σ_i w_i (y_i − f(x_i))²``: for RLS
            the system of (7) becomes ``(K + αW⁻¹) c + b 1 = y``
            (:func:`lrkl.kernel_ridge.solve_dual`); Tikhonov and CG act on ``S K̃ c̃ = S y``,
            ``S = diag(√w)``.

        Returns
        -------
        self
        """
        self._validate_params()
        method = KERNEL_RIDGE_METHODS[self.method]
        owner = type(self).__name__
        form = method.intercept_form(*_intercept_switches(self), owner=owner)
        xp, X, y = check_X_y(
            X, y, owner=self, multi_output=True, min_samples=2, lazy=method.takes_lazy
        )
        run = executor_for(X, xp=xp)
        if sample_weight is not None or self.columns == "precomputed":
            run.require_in_memory(
                "KernelRidge(method='cg') on a Dask X computes its kernel products on the "
                "fly and takes no sample_weight: columns must be 'auto' or 'on_the_fly', "
                f"received columns={self.columns!r}"
                + ("" if sample_weight is None else " and a sample_weight")
            )
        (y,) = run.compute(y)  # the CG vectors (length n) live in this process
        sample_weight = check_sample_weight(sample_weight, X, owner=self)
        # Unit-scale y and weights before anything is squared (_scaling): an exact power of 2.
        sample_weight, alpha, _ = weight_scale(sample_weight, float(self.alpha), xp=xp)
        y_scale = power_of_two_scale(y, xp=xp)
        y = y / y_scale
        kernel = check_kernel(self.kernel, X, sample_weight=sample_weight)
        root = None if sample_weight is None else xp.sqrt(sample_weight)
        solver = "cholesky" if self.solver == "auto" else self.solver
        settings = MethodSettings(solver, self.columns, self.memory_budget, owner)
        problem = method._set_up(X, kernel, form, settings, xp=xp, root=root)
        value = method.value(alpha, self.max_iter, X.shape[0])
        fit = method._solve(problem, y, value, form, root=root, xp=xp)
        self._store_fit(X, kernel, _rescaled(fit, y_scale))
        for attribute, fitted in method.fitted(value).items():  # CG: n_iter_
            setattr(self, attribute, fitted)
        return self

    def _store_fit(self, X: Array, kernel: Kernel, fit: RidgeCoefficients) -> None:
        (centres,) = executor_for(X).compute(X)  # every row is a centre
        self.kernel_ = kernel
        self.centers_ = centres
        self.dual_coef_, self.intercept_ = fit
        self.n_features_in_ = X.shape[1]


class KernelRidgeCV(KernelRidge):
    """:class:`KernelRidge` with ``α`` (RLS, Tikhonov) or the iteration count ``t`` (CG) chosen
    on a whole path, as scikit-learn's ``RidgeCV`` does for linear ridge.

    - RLS and Tikhonov, ``cv=None``: one eigendecomposition of ``K`` (of ``K + 11ᵀ`` for
      system (8)) or one SVD of ``K̃`` gives every ``α`` of the grid and its exact
      leave-one-out error, for about the time of one fit by the same factorisation (the
      grid costs a few GEMMs of ``n × n`` by ``n × 100``). Leaving out a point removes it from
      the kernel expansion for RLS, and its equation (row of ``K̃``) for Tikhonov.
    - CG: one CGLS run per fold gives every ``t = 1 … max_iter``; K-fold (``cv=None`` means
      5 folds).
    - ``cv`` an int or splitter: K-fold for every method, one factorisation per fold.

    The model kept is the path's point at the chosen value, fitted on all the data (for RLS
    and Tikhonov it comes from the same factorisation; CG runs again to ``n_iter_``). A choice
    on an end of the grid gets a warning. Single-output ``y`` only, no sample weights. The fit is
    computed in float64 whatever the input's float dtype, and the model kept in the input's
    (float32 data: float64's memory during the fit; see the precision policy in the docs).

    Parameters
    ----------
    kernel, method, fit_intercept, penalize_intercept, solver, columns, memory_budget, bias
        As for :class:`KernelRidge` (``solver`` is not used: paths need the eigendecomposition).
    alphas : sequence of float, default=None
        The grid of ``α > 0`` for RLS and Tikhonov; ``None`` means the paper's: ``α = nλ`` for
        100 values of ``λ`` geometric in ``[1e-10, 1e5]``.
    max_iter : int, default=50
        CG: the grid ``t = 1 … max_iter`` (the paper's 50), at most ``n + 1``.
    cv : None, int or cross-validation splitter, default=None
        ``None``: exact leave-one-out for RLS and Tikhonov, 5-fold for CG; otherwise as in
        scikit-learn (``KFold`` for an int).

    Attributes
    ----------
    alpha_ : float
        RLS, Tikhonov: the ``α`` with the lowest mean validation MSE.
    alphas_ : tuple of float
        RLS, Tikhonov: the grid, largest first.
    n_iter_ : int
        CG: the chosen ``t``.
    n_iters_ : tuple of int
        CG: the grid ``1 … min(max_iter, n + 1)``.
    mse_path_ : tuple of tuple of float
        Validation MSE, one row per grid value, one column per fold (one for leave-one-out).
    centers_, dual_coef_, intercept_, kernel_, n_features_in_
        Of the model at the chosen value, as for :class:`KernelRidge`.

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import KernelRidgeCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, size=(200, 1))
    >>> y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=200)
    >>> model = KernelRidgeCV().fit(X, y)
    >>> len(model.alphas_), bool(model.score(X, y) > 0.95)
    (100, True)
    """

    _parameter_constraints: dict = {
        **KernelRidge._parameter_constraints,
        "alphas": ["array-like", None],
        "cv": ["cv_object", None],
    }
    del _parameter_constraints["alpha"]

    def __init__(
        self,
        kernel: Kernel | str | None = None,
        *,
        method: str = "rls",
        fit_intercept: bool = True,
        penalize_intercept: bool | None = None,
        alphas: Sequence[float] | None = None,
        max_iter: int = 50,
        cv: Any = None,
        solver: str = "auto",
        columns: str = "auto",
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
        bias: str | None = "deprecated",
    ) -> None:
        self.kernel = kernel
        self.method = method
        self.fit_intercept = fit_intercept
        self.penalize_intercept = penalize_intercept
        self.bias = bias
        self.alphas = alphas
        self.max_iter = max_iter
        self.cv = cv
        self.solver = solver
        self.columns = columns
        self.memory_budget = memory_budget

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = False
        return tags

    def fit(self, X: Array, y: Array, groups: Array | None = None) -> KernelRidgeCV:
        """Compute the path, choose ``α`` or ``t`` on it, and keep the model there.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)
        groups : array of shape (n_samples,), default=None
            Group labels for a group splitter (``GroupKFold``, ...).

        Returns
        -------
        self : KernelRidgeCV
        """
        self._validate_params()
        method = KERNEL_RIDGE_METHODS[self.method]
        form = method.intercept_form(*_intercept_switches(self), owner=type(self).__name__)
        xp, X, y = check_X_y(X, y, owner=self, min_samples=3)
        groups = check_groups(groups, X.shape[0])
        # In float64, the model kept in X's dtype: the grid reaches α at which a float32 solve
        # amplifies K's rounding (R² 0.989 against float64's 0.779, the same values, at α = 5e-9).
        model_dtype = X.dtype
        X, y = widened(X, y, xp=xp)
        # The path and its validation errors on y of unit scale (_scaling): no MSE overflows.
        y_scale = power_of_two_scale(y, xp=xp)
        y = y / y_scale
        kernel = check_kernel(self.kernel, X)
        grid, name, advice = method.search_grid(
            X.shape[0], alphas=self.alphas, max_iter=self.max_iter
        )
        loo = self.cv is None and method.whole_path_at_once
        path = None
        if method.whole_path_at_once:
            path = self._path(X, y, kernel, grid, method, form, loo=loo, xp=xp)
        if loo:
            per_fold = [[float(e) for e in to_numpy(path.loo_mse)]]
        else:
            folds = cv_folds(KFold(5) if self.cv is None else self.cv, X, y, groups)
            per_fold = [
                self._fold_errors(X, y, train, test, grid, method, form, xp=xp)
                for train, test in folds
            ]
        best, mse_path = choose_from_grid(
            type(self).__name__,
            name,
            grid,
            per_fold,
            top=method.largest_value_is,
            advice=advice,
        )
        j = grid.index(best)
        if path is None:  # the path to the chosen value only
            path = self._path(X, y, kernel, grid[: j + 1], method, form, loo=False, xp=xp)
        fit = RidgeCoefficients(path.coef[j, :], path.intercept[j])
        self._store_fit(X, kernel, _rescaled(fit, y_scale))
        self._keep_model_in(model_dtype, xp=xp)
        self.mse_path_ = scale_errors(mse_path, y_scale)
        setattr(self, f"{name}_", best)  # alpha_ and alphas_, or CG's n_iter_ and n_iters_
        setattr(self, f"{name}s_", grid)
        return self

    def _path(
        self,
        X: Array,
        y: Array,
        kernel: Kernel,
        grid: Sequence[float],
        method: Any,
        form: Any,
        *,
        loo: bool,
        xp: Any,
    ) -> Any:
        owner = type(self).__name__
        settings = MethodSettings("eigh", self.columns, self.memory_budget, owner)
        return method._fit_path(X, y, kernel, grid, form, settings, loo=loo, xp=xp)

    def _fold_errors(
        self,
        X: Array,
        y: Array,
        train: Any,
        test: Any,
        grid: Sequence[float],
        method: Any,
        form: Any,
        *,
        xp: Any,
    ) -> list[float]:
        """Validation MSE of the path fitted on ``train``, one value per grid point."""
        (X_tr, X_te), (y_tr, y_te) = fold_rows(train, test, X, y, xp=xp)
        kernel = check_kernel(self.kernel, X_tr)
        path = self._path(X_tr, y_tr, kernel, grid, method, form, loo=False, xp=xp)
        mse = path_mse(path, kernel, X_tr, X_te, y_te, xp=xp)
        return [float(e) for e in to_numpy(mse)]


class KernelRidgeSubset(KernelExpansionRegressor):
    """Exact kernel ridge regression on ``n_columns`` random training points: the SLKL paper's
    KRRM (RLS, system (7) with ``fit_intercept``, on the kept points).

    Parameters
    ----------
    kernel : lrkl.kernels.Kernel, {"rbf", "laplacian", "linear", "poly"} or None, default=None
        ``None`` means ``Gaussian(gamma="scale")``, the width taken from the training data.
    n_columns : int, default=None
        M, the number of points kept; ``None`` means min(n_samples, 1000) (the cost is
        O(M³ + nM): M is cheap here, and a small subset makes a poor model).
    alpha : float, default=1.0
        The ridge penalty α > 0.
    random_state : int, RandomState or None, default=None
    fit_intercept : bool, default=True
        Fit an unpenalised bias (``False``: the paper's model, ``b = 0``).

    Attributes
    ----------
    candidates_ : array of shape (M,)
        Training row numbers kept.
    centers_ : array of shape (M, n_features)
    dual_coef_ : array of shape (M,) or (M, n_targets)
    intercept_ : array of shape () or (n_targets,)
    kernel_ : Kernel
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import KernelRidgeSubset
    >>> X = np.linspace(-3, 3, 200)[:, None]
    >>> model = KernelRidgeSubset(n_columns=40, alpha=1e-3, random_state=0)
    >>> model.fit(X, np.sin(X[:, 0])).centers_.shape
    (40, 1)
    """

    _renamed_attributes: ClassVar[dict[str, str]] = {"centres_": "centers_"}

    _parameter_constraints: dict = {
        "kernel": KERNEL_CONSTRAINT,
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "n_columns": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        kernel: Kernel | str | None = None,
        n_columns: int | None = None,
        alpha: float = 1.0,
        *,
        random_state: Any = None,
        fit_intercept: bool = True,
    ) -> None:
        self.kernel = kernel
        self.n_columns = n_columns
        self.alpha = alpha
        self.random_state = random_state
        self.fit_intercept = fit_intercept

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def fit(self, X: Array, y: Array, sample_weight: Array | None = None) -> KernelRidgeSubset:
        """Draw M points and solve kernel ridge regression on them.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : array of shape (n_samples,) or float, default=None
            Weights of the squared errors; those of the M kept points enter the fit.

        Returns
        -------
        self
        """
        self._validate_params()
        xp, X, y = check_X_y(X, y, owner=self, multi_output=True, min_samples=2)
        sample_weight = check_sample_weight(sample_weight, X, owner=self)
        sample_weight, alpha, _ = weight_scale(sample_weight, float(self.alpha), xp=xp)
        y_scale = power_of_two_scale(y, xp=xp)
        M = check_n_columns(self.n_columns, X.shape[0], owner=type(self).__name__)
        rows = sample_rows(X.shape[0], M, self.random_state)
        kernel = check_kernel(self.kernel, X, sample_weight=sample_weight)
        candidates = index_array(rows, xp=xp, device=device_of(X))
        X = xp.take(X, candidates, axis=0)
        y = xp.take(y, candidates, axis=0) / y_scale
        root = None
        if sample_weight is not None:
            weights = xp.take(sample_weight, candidates, axis=0)
            if not bool(xp.any(weights > 0)):
                msg = (
                    f"sample_weight is 0 on all {M} rows that {type(self).__name__} sampled "
                    "(n_columns): nothing to fit; give more rows a positive weight or raise "
                    "n_columns"
                )
                raise ValueError(msg)
            root = xp.sqrt(weights)
        rls = KERNEL_RIDGE_METHODS["rls"]
        form = rls.intercept_form(bool(self.fit_intercept), None, owner=type(self).__name__)
        settings = MethodSettings("cholesky", owner=type(self).__name__)
        problem = rls._set_up(X, kernel, form, settings, xp=xp, root=root)
        fit = _rescaled(rls._solve(problem, y, alpha, form, root=root, xp=xp), y_scale)
        self.dual_coef_, self.intercept_ = fit
        self.kernel_, self.centers_, self.n_features_in_ = kernel, X, X.shape[1]
        self.candidates_ = candidates
        return self

"""Kernel ridge regression on low-rank features: :class:`LowRankRidge` (and
:class:`LowRankRidgeCV`), ridge regression on the stacked low-rank features of several kernels
(:class:`lrkl.lowrank.LowRankFeatures`), the Mklaren paper's ``RidgeLowRank``. The exact
estimators on the n × n kernel matrix are in :mod:`lrkl.kernel_ridge._exact`.

``fit_intercept=True`` means here what it means in every estimator (the exceptions are
``KernelRidge``'s, see :mod:`lrkl.kernel_ridge`): an unpenalised bias ``b``,
``(K + αI) c + b 1 = y`` with ``1ᵀ c = 0`` (see :mod:`lrkl.kernel_ridge._solvers`). ``intercept_``
is an array of shape () (or (n_targets,)) in the namespace and on the device of ``X``.
"""

from __future__ import annotations

import math
import numbers
import statistics
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NamedTuple

from sklearn.utils import check_random_state

from lrkl._backend import device_of, index_array, to_numpy, widened
from lrkl._base import LRKLRegressor
from lrkl._executor import executor_for, rowwise
from lrkl._model_selection import (
    check_grid,
    check_groups,
    choose_from_grid,
    cv_folds,
    fold_rows,
    log_grid,
)
from lrkl._typing import Array
from lrkl._validation import (
    Interval,
    StrOptions,
    check_predict_X,
    check_sample_weight,
    check_X_y,
)
from lrkl.kernel_ridge._budget import rank_within_budget
from lrkl.kernel_ridge._scaling import power_of_two_scale, scale_errors, weight_scale
from lrkl.kernel_ridge._solvers import (
    PrimalProblem,
    _make_solver,
    _primal_loo_statistics,
    _primal_problem,
    _solve_primal,
)
from lrkl.kernel_ridge._width_search import (
    GAMMA_FACTORS,
    WIDTH_SEARCH_ROWS,
    chosen_width,
    search_rows,
    search_widths,
)
from lrkl.kernels import Gaussian, Kernel
from lrkl.lowrank._factor import _as_dtype
from lrkl.lowrank._features import METHODS, LowRankFeatures

__all__ = ["GAMMA_FACTORS", "LowRankRidge", "LowRankRidgeCV"]


class _Path(NamedTuple):
    """One width's fit along the α grid (:meth:`_LowRankRidgeModel._path`)."""

    features: LowRankFeatures
    problem: PrimalProblem
    solver: Any
    alphas: tuple[float, ...]  # as given (or in the units of the weights)
    internal: tuple[float, ...]  # on the unit-scale weights
    per_fold: list[list[float]]  # validation MSE, one list per fold, one value per α
    mean: tuple[float, ...]  # its mean over the folds, per α
    spread: tuple[float, ...]  # the standard error of that mean, per α


class _LowRankRidgeModel:
    """The fit, the α path and the scores of ridge regression on stacked low-rank features,
    shared by :class:`LowRankRidge`, :class:`LowRankRidgeCV` and their classifiers
    (:mod:`lrkl.kernel_ridge._low_rank_classifiers`), which validate their inputs and call
    these on the validated ``X``, targets ``y`` (1-D or 2-D) and weights."""

    def _fit_one(self, X: Array, y: Array, sample_weight: Array | None, *, xp: Any) -> None:
        """Fit at ``self.alpha``."""
        # Unit-scale y and weights before anything is squared (_scaling): an exact power of 2.
        sample_weight, alpha, _ = weight_scale(sample_weight, float(self.alpha), xp=xp)
        y_scale = power_of_two_scale(y, xp=xp)
        y = y / y_scale
        features = self._feature_map(X)
        problem = _primal_problem(
            features._build(X, y, xp=xp, owner=type(self).__name__),
            y,
            fit_intercept=self.fit_intercept,
            xp=xp,
            sample_weight=sample_weight,
        )
        solver = _make_solver(problem.gram, "cholesky" if alpha > 0 else "eigh", xp=xp)
        self._store(features, X, problem, solver, alpha, y_scale, xp=xp)

    def _fit_path(
        self,
        X: Array,
        y: Array,
        sample_weight: Any,
        groups: Any,
        *,
        labels: Any,
        xp: Any,
    ) -> None:
        """Choose ``α`` on its path by validation MSE of ``y`` and refit with it (the
        ``LowRankRidgeCV`` family): folds stratified by ``labels`` when given (classifiers)."""
        # In float64, the model kept in X's dtype: at rank=None the tolerance, not the rank,
        # ends each factor, and float32's floor n·ε·max K_ii ended it early (18 columns against
        # 26 on 30 rows of float16 data: test R² 0.079 from the float64 fit of the same values).
        model_dtype = X.dtype
        X, y = widened(X, y, xp=xp)
        sample_weight = check_sample_weight(sample_weight, X, owner=self)
        # Unit-scale y and weights before anything is squared (_scaling): the path and its
        # validation errors run on y / y_scale, and on w / w_scale with every α / w_scale.
        sample_weight, _, w_scale = weight_scale(sample_weight, 1.0, xp=xp)
        y_scale = power_of_two_scale(y, xp=xp)
        y = y / y_scale
        widths = search_widths(self._kernels(), self.gamma_factors, X)
        maps_held = 1 if len(widths) == 1 else 2  # the best width's features and the current's
        random_state = self.random_state  # one draw of the landmarks for every width
        if not isinstance(random_state, numbers.Integral):
            random_state = int(check_random_state(random_state).randint(2**31 - 1))
        folds = None  # split once: a generator of folds is read once, folds name X's rows
        if self.cv is not None:
            target = y if labels is None else labels
            folds = cv_folds(self.cv, X, target, groups, classifier=labels is not None)
        subsample = None  # where there are many rows, the widths are compared on a subsample
        if len(widths) > 1 and X.shape[0] > WIDTH_SEARCH_ROWS and not executor_for(X).lazy:
            weights = None if sample_weight is None else to_numpy(sample_weight)
            subsample = search_rows(X.shape[0], WIDTH_SEARCH_ROWS, random_state, weights, folds)

        def on(subsample: tuple[list[int], Any] | None) -> tuple[Any, ...]:
            """X, y, the weights and the folds of the subsample's rows (None: all rows)."""
            if subsample is None:
                return X, y, sample_weight, folds
            index = index_array(subsample[0], xp=xp, device=device_of(X))
            taken = [
                None if a is None else xp.take(a, index, axis=0) for a in (X, y, sample_weight)
            ]
            return (*taken, subsample[1])

        def path(i: int, data: tuple[Any, ...], maps: int) -> _Path:
            X_i, y_i, w_i, folds = data
            return self._path(widths[i], X_i, y_i, w_i, w_scale, folds, random_state, maps, xp=xp)

        # Every width's errors, but the features and factors of one width only (the choice so
        # far), so that the search holds at most two widths' n × k features at once.
        paths: list[_Path] = []
        held = None
        searched = on(subsample)
        with warnings.catch_warnings():
            for i in range(len(widths)):
                if i == 1:  # a clipped rank was said once, at the first width
                    warnings.filterwarnings("ignore", ".*exceeds n_samples", UserWarning)
                current = path(i, searched, maps_held)
                paths.append(current._replace(features=None, problem=None, solver=None))
                if chosen_width(paths, self.gamma_factors) == i:
                    held = (i, current)
                del current
            best = chosen_width(paths, self.gamma_factors)
            if subsample is None and held[0] == best:
                chosen = held[1]
            else:  # a dropped width (rare), or the chosen one on all the rows: one map held
                held = None
                chosen = path(best, on(None), 1)
        alphas = chosen.alphas
        self.alpha_, mse_path = choose_from_grid(
            type(self).__name__,
            "alpha",
            alphas,
            chosen.per_fold,
            top="every direction of the features shrunk by at least a half",
            advice="alphas" if self.alphas is not None else "eps or n_alphas",
        )
        self.mse_path_ = scale_errors(mse_path, y_scale)
        self.alphas_ = alphas
        self.width_search_ = None
        if widths[0] is not None:
            self.width_search_ = {
                "gamma": tuple(float(kernels[0].gamma) for kernels in widths),
                "alphas": tuple(path.alphas for path in paths),
                "mse": scale_errors([path.mean for path in paths], y_scale),
                "rows": X.shape[0] if subsample is None else len(subsample[0]),
            }
        alpha = chosen.internal[alphas.index(self.alpha_)]
        self._store(chosen.features, X, chosen.problem, chosen.solver, alpha, y_scale, xp=xp)
        self._keep_model_in(model_dtype, xp=xp)

    def _path(
        self,
        kernels: list[Kernel] | None,
        X: Array,
        y: Array,
        sample_weight: Array | None,
        w_scale: float,
        folds: list[tuple[Any, Any]] | None,
        random_state: int,
        held: int,
        *,
        xp: Any,
    ) -> _Path:
        """The features of ``kernels`` (None: the estimator's), their ridge problem and its
        eigendecomposition, the α grid (as given and internal) and its validation errors: exact
        leave-one-out, or on ``folds``; ``held`` widths' features are in memory at once."""
        features = self._feature_map(X, kernels, random_state, held=held)
        Z = features._build(X, y, xp=xp, owner=type(self).__name__)
        problem = _primal_problem(
            Z, y, fit_intercept=self.fit_intercept, xp=xp, sample_weight=sample_weight
        )
        solver = _make_solver(problem.gram, "eigh", xp=xp)
        if self.alphas is not None:
            alphas = check_grid(self.alphas, name="alphas")
            internal = tuple(a / w_scale for a in alphas)
        else:
            top = float(xp.max(solver.eigenvalues)) if solver.eigenvalues.shape[0] else 0.0
            internal = log_grid(top, self.n_alphas, self.eps) if top > 0 else (1.0,)
            alphas = tuple(a * w_scale for a in internal)
        if folds is None:
            loo, loo_spread = _primal_loo_statistics(
                Z,
                y,
                problem,
                solver,
                internal,
                fit_intercept=self.fit_intercept,
                xp=xp,
                sample_weight=sample_weight,
            )
            per_fold = [loo]
            spread = loo_spread
        else:
            per_fold = [
                self._fold_errors(
                    kernels, random_state, held, X, y, sample_weight, train, test, internal, xp=xp
                )
                for train, test in folds
            ]
            spread = [  # the standard error of the mean over the folds
                statistics.stdev(errors) / math.sqrt(len(errors)) if len(errors) > 1 else 0.0
                for errors in zip(*per_fold, strict=True)
            ]
        mean = tuple(sum(errors) / len(errors) for errors in zip(*per_fold, strict=True))
        return _Path(features, problem, solver, alphas, internal, per_fold, mean, tuple(spread))

    def _fold_errors(
        self,
        kernels: list[Kernel] | None,
        random_state: int,
        held: int,
        X: Array,
        y: Array,
        sample_weight: Array | None,
        train: Any,
        test: Any,
        alphas: tuple[float, ...],
        *,
        xp: Any,
    ) -> list[float]:
        """Validation MSE (weighted when weights are given) of the features and the ridge
        path fitted on ``train``, one value per ``α``."""
        (X_tr, X_te), (y_tr, y_te), (w_tr, w_te) = fold_rows(
            train, test, X, y, sample_weight, xp=xp
        )
        if w_te is not None and not float(xp.sum(w_te)) > 0:
            msg = (
                "sample_weight must give each cv fold's test rows a positive total weight, "
                f"received weights of 0 on all {w_te.shape[0]} test rows of a fold: choose "
                "other folds (cv), or drop the rows of weight 0"
            )
            raise ValueError(msg)
        features = self._feature_map(X_tr, kernels, random_state, held=held)
        Z = features._build(X_tr, y_tr, xp=xp, owner=type(self).__name__)
        Z_te = features._transform(X_te, xp=xp)
        problem = _primal_problem(
            Z, y_tr, fit_intercept=self.fit_intercept, xp=xp, sample_weight=w_tr
        )
        solver = _make_solver(problem.gram, "eigh", xp=xp)
        errors = []
        for alpha in alphas:
            coef, intercept = _solve_primal(problem, solver, alpha, xp=xp)
            sq = (Z_te @ coef + intercept - y_te) ** 2
            sq = sq if sq.ndim == 1 else xp.mean(sq, axis=1)
            mean = xp.mean(sq) if w_te is None else xp.sum(w_te * sq) / xp.sum(w_te)
            errors.append(float(mean))
        return errors

    def _kernels(self) -> Sequence[Kernel | str]:
        """The kernels fitted: the estimator's, or one Gaussian kernel of the data's width."""
        return [Gaussian()] if self.kernels is None else self.kernels

    def _feature_map(
        self,
        X: Array,
        kernels: list[Kernel] | None = None,
        random_state: Any = None,
        *,
        held: int = 1,
    ) -> LowRankFeatures:
        """The unfitted feature map of this estimator's parameters for the rows ``X`` (of
        ``kernels`` and ``random_state`` instead of the estimator's when given), whose rank fits
        the memory budget with ``held`` such feature maps in memory at once."""
        kernels = self._kernels() if kernels is None else kernels
        owner, budget = type(self).__name__, self.memory_budget
        return LowRankFeatures(
            kernels,
            rank_within_budget(self.rank, X, len(kernels), held, memory_budget=budget, owner=owner),
            self.method,
            lookahead=self.lookahead,
            kappa=self.kappa,
            gain_tol=self.gain_tol,
            tol=self.tol,
            random_state=self.random_state if random_state is None else random_state,
        )

    def _store(
        self,
        features: LowRankFeatures,
        X: Array,
        problem: PrimalProblem,
        solver: Any,
        alpha: float,
        y_scale: float,
        *,
        xp: Any,
    ) -> None:
        coef, intercept = _solve_primal(problem, solver, alpha, xp=xp)
        self.coef_, self.intercept_ = coef * y_scale, intercept * y_scale
        self.features_ = features
        self.factors_ = features.factors_
        self.rank_ = features.rank_
        self.kernels_ = features.kernels_
        self.n_features_in_ = X.shape[1]

    def _keep_model_in(self, dtype: Any, *, xp: ModuleType) -> None:
        """The fitted model (features and coefficients) in ``dtype``, the input's, after a fit
        computed in a wider one (:func:`lrkl._backend.widened`), as
        :meth:`~lrkl.kernel_ridge._base.KernelExpansionRegressor._keep_model_in` does."""
        self.features_._keep_model_in(dtype, xp=xp)
        self.factors_ = self.features_.factors_
        self.coef_, self.intercept_ = (
            _as_dtype(a, dtype, xp=xp) for a in (self.coef_, self.intercept_)
        )

    @rowwise
    def features(self, X: Array) -> Array:
        """The stacked low-rank features ``[g_1(x), …, g_p(x)]`` of new points.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape ``(n_samples, sum(rank_))``
            On the training points, the stacked factors ``[G_1, …, G_p]``.
        """
        xp, X = check_predict_X(self, X, like="coef_", method="features")
        return self.features_._transform(X, xp=xp)

    def _scores(self, X: Array, method: str) -> Array:
        """``[g_1(x), …, g_p(x)] coef_ + intercept_`` for the rows of ``X``."""
        xp, X = check_predict_X(self, X, like="coef_", method=method)
        return self.features_._transform(X, xp=xp) @ self.coef_ + self.intercept_


class LowRankRidge(_LowRankRidgeModel, LRKLRegressor):
    """Ridge regression on the low-rank factors of several kernels (``RidgeLowRank``).

    Each kernel ``q`` is approximated on its own by ``G_q`` (n × r) — pivoted incomplete
    Cholesky, Cholesky with side information or Nyström — and ridge regression with an
    unpenalised intercept is fitted on ``[G_1, …, G_p]`` (:class:`lrkl.lowrank.LowRankFeatures`;
    the factors are neither centred per kernel nor normalised, as the Mklaren paper's comparison
    does). New points get the factors' out-of-sample features. The kernel matrices are never
    formed: ``O(n p r²)`` for ICD and Nyström, more for CSI, then ``O(n (p r)²)`` for the ridge.

    Parameters
    ----------
    kernels : list of Kernel, default=None
        The kernels (Kernel objects or names such as ``"rbf"``); ``None`` means one Gaussian
        kernel of the data's width, ``Gaussian(gamma="scale")`` (earlier versions: seven
        Gaussians ``γ₀·2⁻³, …, γ₀·2³``, which ``lrkl.kernels.default_kernels(X)`` gives for the
        rows ``X``). ``kernels_`` holds the fitted ones, their widths resolved.
    rank : int, list of int or None, default=None
        Rank ``r`` per kernel (one for all, or one per kernel), at most ``n_samples``; ``None``
        means ``min(n_samples, 1000)``, fewer where their features would exceed
        ``memory_budget``. ICD and CSI may return fewer columns when a kernel's residual runs
        out.
    method : {"nystrom", "icd", "csi"}, default="nystrom"
        The approximation: Nyström on uniformly drawn landmarks (the centres), pivoted
        incomplete Cholesky, or Cholesky with side information (earlier versions: ``"icd"``).
    alpha : float, default=1.0
        Ridge penalty ``α ≥ 0`` (``0``: minimum-norm least squares). An ``α`` below the
        rounding of a singular ``ZᵀZ`` (``1e-300``) gives the same minimum-norm solution: the
        Cholesky solve falls back to the eigendecomposition
        (:class:`lrkl.kernel_ridge.CholeskySolver`).
    fit_intercept : bool, default=True
        Fit an unpenalised intercept (scikit-learn's ``Ridge``, as the paper does).
    lookahead : int, default=10
        CSI: look-ahead columns ``δ``.
    kappa : float, default=0.99
        CSI: trade-off between the kernel (0) and the targets (1).
    gain_tol : float, default=0.0
        CSI: stop a kernel's decomposition after a column of smaller exact gain (the Mklaren
        experiments' CSI used 1e-4).
    tol : float, default=1e-10
        ICD and CSI: stop when the residual diagonal is at most ``tol`` everywhere; the first
        column of each kernel is always taken (:class:`lrkl.lowrank.LowRankFeatures`).
    random_state : int, RandomState or None, default=None
        Nyström: seed of the landmarks, shared by all kernels (``random_state=42`` gives the
        landmarks of the Mklaren paper's experiments).
    memory_budget : int or None, default=None
        Bytes the in-memory features (``n_samples × sum(rank)`` values) may take; ``None``
        means half of the memory of X's device (the host's for NumPy arrays). A default rank is
        cut to fit it; a given rank whose features exceed it raises a MemoryError before
        anything is allocated. A Dask ``X``'s features are computed in passes and not held.

    Attributes
    ----------
    features_ : lrkl.lowrank.LowRankFeatures
        The fitted feature map.
    factors_ : list of lrkl.lowrank.LowRankFactor
        One factor per kernel (``features_.factors_``).
    rank_ : tuple of int
        Number of columns of each kernel's factor.
    coef_ : array of shape ``(sum(rank_),)`` or ``(sum(rank_), n_targets)``
        Ridge coefficients of the stacked features.
    intercept_ : array of shape () or (n_targets,)
    kernels_ : list of Kernel
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import LowRankRidge
    >>> from lrkl.kernels import Gaussian, Linear
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    >>> model = LowRankRidge(alpha=1e-3).fit(X, y)  # one Gaussian, min(n, 1000) centres
    >>> model.rank_, round(model.kernels_[0].gamma, 3)  # the width of gamma="scale"
    ((200,), 0.335)
    >>> bool(model.score(X, y) > 0.95)
    True
    >>> icd = LowRankRidge([Linear(), Gaussian(gamma=0.5)], rank=10, method="icd").fit(X, y)
    >>> icd.rank_  # ICD stops at the linear kernel's rank
    (3, 10)
    """

    _parameter_constraints: dict = {
        **LowRankFeatures._parameter_constraints,
        "method": [StrOptions(set(METHODS))],
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "memory_budget": [Interval(numbers.Integral, 1, None, closed="left"), None],
    }
    del _parameter_constraints["n_landmarks"]

    def __init__(
        self,
        kernels: Sequence[Kernel] | None = None,
        rank: int | Sequence[int] | None = None,
        method: str = "nystrom",
        alpha: float = 1.0,
        *,
        fit_intercept: bool = True,
        lookahead: int = 10,
        kappa: float = 0.99,
        gain_tol: float = 0.0,
        tol: float = 1e-10,
        random_state: Any = None,
        memory_budget: int | None = None,
    ) -> None:
        self.kernels = kernels
        self.rank = rank
        self.method = method
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.lookahead = lookahead
        self.kappa = kappa
        self.gain_tol = gain_tol
        self.tol = tol
        self.random_state = random_state
        self.memory_budget = memory_budget

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def fit(self, X: Array, y: Array, sample_weight: Array | None = None) -> LowRankRidge:
        """Approximate each kernel and fit the ridge regression on the stacked factors.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : array of shape (n_samples,) or float, default=None
            Weights of the squared errors in the ridge regression (weighted centring, as
            scikit-learn's ``Ridge``); the low-rank factors themselves are unweighted.

        Returns
        -------
        self : LowRankRidge
        """
        self._validate_params()
        xp, X, y = check_X_y(X, y, owner=self, multi_output=True, dask=True)
        if sample_weight is not None:
            executor_for(X, xp=xp).require_in_memory(
                f"{type(self).__name__} takes no sample_weight with a Dask X"
            )
        self._fit_one(X, y, check_sample_weight(sample_weight, X, owner=self), xp=xp)
        return self

    @rowwise
    def predict(self, X: Array) -> Array:
        """Predict targets for the rows of ``X`` (same namespace and device as ``X``).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples,) or (n_samples, n_targets)
        """
        return self._scores(X, "predict")


class LowRankRidgeCV(LowRankRidge):
    """:class:`LowRankRidge` with ``α`` chosen by cross-validation over a whole path, as
    scikit-learn's ``RidgeCV``.

    The features are built once and ``Z_cᵀZ_c = V Λ Vᵀ`` factorised once; with ``cv=None`` the
    exact leave-one-out error of every ``α`` then costs ``O(n k)``
    (:func:`lrkl.kernel_ridge.primal_loo_errors`), so a path of 30 values costs little more than
    one fit. The default grid comes from the data: ``n_alphas`` values from ``λ_max``, the
    largest eigenvalue of ``Z_cᵀZ_c`` (there every direction of the features is shrunk by at
    least a half), down to ``eps·λ_max``. A choice on an end of the grid gets a warning.

    Leave-one-out keeps the features of all the rows: with ``method="csi"``, whose pivots look
    at ``y``, it is optimistic; ``cv=5`` refits the features on each training fold.

    Parameters
    ----------
    kernels, rank, method, fit_intercept, lookahead, kappa, gain_tol, tol, random_state
    memory_budget
        As for :class:`LowRankRidge`; the width search holds two widths' features at once.
    alphas : sequence of float, default=None
        Grid of ``α > 0``; ``None`` means the data-scaled grid of ``n_alphas`` and ``eps``.
    n_alphas : int, default=30
        Number of values of the default grid, at most 10 000: consecutive values are then
        within 0.2 % of each other at ``eps=1e-8`` (more cannot change the choice, only the
        time; ``n_alphas=10**9`` ran for hours on 40 rows).
    eps : float, default=1e-8
        Ratio ``α_min / α_max`` of the default grid, in (0, 1).
    cv : None, int or cross-validation splitter, default=None
        ``None``: exact leave-one-out on the features of all the rows; otherwise as in
        scikit-learn (``KFold`` for an int), with the features refitted per fold.
    gamma_factors : sequence of float or None, default=(0.25, 0.5, 1, 2, 4)
        The width search: with one kernel whose ``gamma`` is ``"scale"`` (such as
        ``kernels=["rbf"]``), its features and α path are computed at ``γ = f·γ₀`` for each
        factor ``f`` (``γ₀`` the ``"scale"`` width). The width is the one nearest ``γ₀`` whose
        best validation error is within one standard error of the best of all (widths whose
        errors differ by less than their noise are not told apart: on small data the extreme
        ones overfit the choice), and its α the one of lowest error; ``kernels_`` holds the
        kernel with the chosen ``γ``. Up to 1 000 rows it costs one fit of the features and
        one path per factor (five times one width's fit at the default) and holds two widths'
        features at most (a width dropped for another, then chosen after all, is computed
        again); beyond, the widths are compared on a uniform subsample of 1 000 rows (drawn
        with the landmarks' seed; ``cv``'s folds restricted to it) and the path is computed
        once more, at the chosen width, on all the rows. Every width uses the same Nyström
        landmarks, and ``γ₀`` comes from all the rows of ``fit`` (with ``cv``, each fold
        searches those widths).
        ``None`` (or a fixed ``gamma``, or several kernels) fits the kernels as given.

    Attributes
    ----------
    alpha_ : float
        The ``α`` with the lowest mean validation MSE.
    alphas_ : tuple of float
        The grid, from the largest ``α`` to the smallest.
    mse_path_ : tuple of tuple of float
        Validation MSE, one row per ``α``, one column per fold (one column for leave-one-out),
        at the chosen width.
    width_search_ : dict or None
        With a width search: ``"gamma"``, the widths searched; ``"alphas"``, each width's α
        grid; ``"mse"``, each width's mean validation MSE per α; ``"rows"``, the number of rows
        they were compared on. None without one.
    features_, factors_, rank_, coef_, intercept_, kernels_, n_features_in_
        Of the refit on all the data with ``alpha_``, as for :class:`LowRankRidge`.

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import LowRankRidgeCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3))
    >>> y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=300)
    >>> model = LowRankRidgeCV(["rbf"], rank=40).fit(X, y)
    >>> bool(model.alpha_ in model.alphas_ and model.score(X, y) > 0.95)
    True
    """

    _parameter_constraints: dict = {
        **LowRankRidge._parameter_constraints,
        "alphas": ["array-like", None],
        "n_alphas": [Interval(numbers.Integral, 1, 10_000, closed="both")],
        "eps": [Interval(numbers.Real, 0, 1, closed="neither")],
        "cv": ["cv_object", None],
        "gamma_factors": ["array-like", None],
    }
    del _parameter_constraints["alpha"]

    def __init__(
        self,
        kernels: Sequence[Kernel] | None = None,
        rank: int | Sequence[int] | None = None,
        method: str = "nystrom",
        alphas: Sequence[float] | None = None,
        *,
        n_alphas: int = 30,
        eps: float = 1e-8,
        cv: Any = None,
        gamma_factors: Sequence[float] | None = GAMMA_FACTORS,
        fit_intercept: bool = True,
        lookahead: int = 10,
        kappa: float = 0.99,
        gain_tol: float = 0.0,
        tol: float = 1e-10,
        random_state: Any = None,
        memory_budget: int | None = None,
    ) -> None:
        self.kernels = kernels
        self.rank = rank
        self.method = method
        self.alphas = alphas
        self.n_alphas = n_alphas
        self.eps = eps
        self.cv = cv
        self.gamma_factors = gamma_factors
        self.fit_intercept = fit_intercept
        self.lookahead = lookahead
        self.kappa = kappa
        self.gain_tol = gain_tol
        self.tol = tol
        self.random_state = random_state
        self.memory_budget = memory_budget

    def fit(
        self,
        X: Array,
        y: Array,
        sample_weight: Array | None = None,
        groups: Array | None = None,
    ) -> LowRankRidgeCV:
        """Build the features, choose ``α`` on its path, and refit with it.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : array of shape (n_samples,) or float, default=None
            As for :meth:`LowRankRidge.fit`; the validation errors are weighted means.
        groups : array of shape (n_samples,), default=None
            Group labels for a group splitter (``GroupKFold``, ...).

        Returns
        -------
        self : LowRankRidgeCV
        """
        self._validate_params()
        xp, X, y = check_X_y(X, y, owner=self, multi_output=True, min_samples=2, dask=True)
        groups = check_groups(groups, X.shape[0])
        if self.cv is not None or sample_weight is not None:
            executor_for(X, xp=xp).require_in_memory(
                f"{type(self).__name__} with a Dask X takes cv=None (exact leave-one-out, one "
                f"graph) and no sample_weight, received cv={self.cv!r} and "
                f"sample_weight={'given' if sample_weight is not None else None}"
            )
        self._fit_path(X, y, sample_weight, groups, labels=None, xp=xp)
        return self

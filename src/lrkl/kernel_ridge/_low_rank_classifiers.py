"""Ridge classifiers on low-rank features: :class:`LowRankRidgeClassifier` and
:class:`LowRankRidgeClassifierCV`, scikit-learn's ``RidgeClassifier(CV)`` on the stacked
low-rank features of :class:`~lrkl.kernel_ridge.LowRankRidge`.

The labels become ±1 targets, one column per class (one column, +1 for ``classes_[1]``, with
two classes); one feature map and one factorisation of ``ZᵀZ`` serve every column, and each
column's ridge regression is the regressor's. A row goes to the class of the largest score.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

from lrkl._backend import device_of, from_host
from lrkl._base import LRKLClassifier
from lrkl._executor import executor_for
from lrkl._model_selection import check_groups
from lrkl._typing import Array
from lrkl._validation import (
    StrOptions,
    check_class_sample_weight,
    check_classification_X_y,
)
from lrkl.kernel_ridge._low_rank import GAMMA_FACTORS, LowRankRidge, LowRankRidgeCV
from lrkl.kernel_ridge._low_rank_model import _LowRankRidgeModel
from lrkl.kernel_ridge._pcg import PCG_MAX_ITER, PCG_TOL
from lrkl.kernels import Kernel

__all__ = ["LowRankRidgeClassifier", "LowRankRidgeClassifierCV"]

_CLASS_WEIGHT = {"class_weight": [dict, StrOptions({"balanced"}), None]}


class LowRankRidgeClassifier(_LowRankRidgeModel, LRKLClassifier):
    """Ridge classification on the low-rank factors of several kernels.

    scikit-learn's ``RidgeClassifier`` on :class:`LowRankRidge`'s features: the labels become
    ±1 targets (one column per class, or one column with +1 for ``classes_[1]`` when there are
    two), ridge regression with an unpenalised intercept is fitted to every column on one feature
    map and one factorisation, and ``predict`` gives the class of the largest score (the sign of
    the one score with two classes). Labels may be numbers or strings.

    Parameters
    ----------
    kernels, rank, method, alpha, fit_intercept, lookahead, kappa, gain_tol, tol, random_state
    memory_budget, centers, solver, pcg_tol, pcg_max_iter, kernel_dtype, verbose, centres
        As for :class:`LowRankRidge` (with ``solver="pcg"`` every class's ±1 targets share
        each pass over the rows).
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes in the squared loss, multiplying ``sample_weight``:
        ``{label: weight}``, or ``"balanced"`` for ``n_samples / (n_classes · count)``
        (scikit-learn's ``compute_sample_weight``). The low-rank factors are unweighted.

    Attributes
    ----------
    classes_ : array of shape (n_classes,)
        The class labels, sorted.
    coef_ : array of shape ``(sum(rank_),)`` or ``(sum(rank_), n_classes)``
        Ridge coefficients of the stacked features: one column per class, or one for two
        classes (direct; pcg: ``dual_coef_`` of shape (M,) or (M, n_classes)).
    intercept_ : array of shape () or (n_classes,)
    solver_, features_, factors_, rank_, centers_, dual_coef_, n_iter_, kernels_
    n_features_in_
        As for :class:`LowRankRidge`.

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import LowRankRidgeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 > 1.4, "out", "in")
    >>> model = LowRankRidgeClassifier(["rbf"], rank=30, alpha=1e-3).fit(X, y)
    >>> model.classes_.tolist()
    ['in', 'out']
    >>> bool(model.score(X, y) > 0.9)
    True
    """

    _parameter_constraints: dict = {**LowRankRidge._parameter_constraints, **_CLASS_WEIGHT}

    def __init__(
        self,
        kernels: Sequence[Kernel] | None = None,
        rank: int | Sequence[int] | None = None,
        method: str = "nystrom",
        alpha: float = 1.0,
        *,
        fit_intercept: bool = True,
        class_weight: dict | str | None = None,
        lookahead: int = 10,
        kappa: float = 0.99,
        gain_tol: float = 0.0,
        tol: float = 1e-10,
        random_state: Any = None,
        memory_budget: int | None = None,
        centers: str = "uniform",
        solver: str = "auto",
        pcg_tol: float = PCG_TOL,
        pcg_max_iter: int = PCG_MAX_ITER,
        kernel_dtype: str | None = None,
        verbose: int = 0,
        centres: str = "deprecated",
    ) -> None:
        self.kernels = kernels
        self.rank = rank
        self.method = method
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.class_weight = class_weight
        self.lookahead = lookahead
        self.kappa = kappa
        self.gain_tol = gain_tol
        self.tol = tol
        self.random_state = random_state
        self.memory_budget = memory_budget
        self.centers = centers
        self.centres = centres
        self.solver = solver
        self.pcg_tol = pcg_tol
        self.pcg_max_iter = pcg_max_iter
        self.kernel_dtype = kernel_dtype
        self.verbose = verbose

    def fit(self, X: Array, y: Array, sample_weight: Array | None = None):
        """Approximate each kernel and fit one ridge regression per column of ±1 targets.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)
            Class labels (numbers or strings), at least two classes.
        sample_weight : array of shape (n_samples,) or float, default=None
            Weights of the squared errors, multiplied by ``class_weight``'s.

        Returns
        -------
        self
        """
        self._validate_params()
        xp, X, targets, weights, classes, _ = self._targets(X, y, sample_weight)
        self._fit_one(X, targets, weights, xp=xp)
        self._set_classes(classes, xp=xp, device=device_of(X))
        return self

    def _targets(
        self, X: Any, y: Any, sample_weight: Any
    ) -> tuple[ModuleType, Array, Array, Array | None, Any, Any]:
        """Namespace, validated ``X``, the ±1 targets (1-D for two classes), the sample weights
        times the class weights, the sorted labels and each row's class number (on the
        host)."""
        xp, X, classes, codes = check_classification_X_y(X, y, owner=self, lazy=True)
        cv = getattr(self, "cv", None)
        if sample_weight is not None or self.class_weight is not None or cv is not None:
            executor_for(X, xp=xp).require_in_memory(
                f"{type(self).__name__} with a Dask X takes no sample_weight or class_weight "
                "(and cv=None: exact leave-one-out, or pcg's hold-out), received "
                f"sample_weight={'given' if sample_weight is not None else None}, "
                f"class_weight={self.class_weight!r}" + (f", cv={cv!r}" if cv is not None else "")
            )
        device = device_of(X)
        targets = from_host(
            self._sign_targets(codes, classes.shape[0]), xp=xp, device=device, dtype=X.dtype
        )
        if targets.shape[1] == 1:
            targets = targets[:, 0]
        targets = executor_for(X, xp=xp).rows_like(targets, X)  # a Dask X's: in its row chunks
        weights = check_class_sample_weight(
            self.class_weight, sample_weight, X, classes, codes, owner=self
        )
        return xp, X, targets, weights, classes, codes

    def _decision(self, X: Array, method: str) -> Array:
        return self._scores(X, method)


class LowRankRidgeClassifierCV(LowRankRidgeClassifier):
    """:class:`LowRankRidgeClassifier` with ``α`` chosen by cross-validation: the validation
    error is the mean squared error of the ±1 targets (every class's column), by exact
    leave-one-out with ``cv=None`` (:class:`LowRankRidgeCV`; scikit-learn's
    ``RidgeClassifierCV`` chooses by the same criterion there), else on folds that an int makes
    stratified (``StratifiedKFold``) -- where scikit-learn's ``RidgeClassifierCV`` scores
    accuracy instead, lrkl keeps the squared error, which varies smoothly with ``α``.

    Parameters
    ----------
    kernels, rank, method, fit_intercept, lookahead, kappa, gain_tol, tol, random_state
    memory_budget
        As for :class:`LowRankRidge`.
    alphas, n_alphas, eps, cv, gamma_factors, centers, solver, pcg_tol, pcg_max_iter,
    kernel_dtype, verbose, centres
        As for :class:`LowRankRidgeCV` (the width search and pcg's hold-out included).
    class_weight
        As for :class:`LowRankRidgeClassifier`.

    Attributes
    ----------
    alpha_ : float
        The ``α`` with the lowest mean validation MSE of the ±1 targets.
    alphas_ : tuple of float
        The grid, from the largest ``α`` to the smallest.
    mse_path_ : tuple of tuple of float
        Validation MSE, one row per ``α``, one column per fold (one for leave-one-out), at the
        chosen width.
    width_search_ : dict or None
        As for :class:`LowRankRidgeCV`.
    classes_, coef_, intercept_, solver_, features_, factors_, rank_, centers_, dual_coef_
    n_iter_, kernels_, n_features_in_
        Of the refit on all the data with ``alpha_``, as for
        :class:`LowRankRidgeClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import LowRankRidgeClassifierCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> y = (X[:, 0] ** 2 + X[:, 1] ** 2 > 1.4).astype(int)
    >>> model = LowRankRidgeClassifierCV(["rbf"], rank=30).fit(X, y)
    >>> bool(model.alpha_ in model.alphas_ and model.score(X, y) > 0.9)
    True
    """

    _parameter_constraints: dict = {**LowRankRidgeCV._parameter_constraints, **_CLASS_WEIGHT}

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
        class_weight: dict | str | None = None,
        lookahead: int = 10,
        kappa: float = 0.99,
        gain_tol: float = 0.0,
        tol: float = 1e-10,
        random_state: Any = None,
        memory_budget: int | None = None,
        centers: str = "uniform",
        solver: str = "auto",
        pcg_tol: float = PCG_TOL,
        pcg_max_iter: int = PCG_MAX_ITER,
        kernel_dtype: str | None = None,
        verbose: int = 0,
        centres: str = "deprecated",
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
        self.class_weight = class_weight
        self.lookahead = lookahead
        self.kappa = kappa
        self.gain_tol = gain_tol
        self.tol = tol
        self.random_state = random_state
        self.memory_budget = memory_budget
        self.centers = centers
        self.centres = centres
        self.solver = solver
        self.pcg_tol = pcg_tol
        self.pcg_max_iter = pcg_max_iter
        self.kernel_dtype = kernel_dtype
        self.verbose = verbose

    def fit(
        self,
        X: Array,
        y: Array,
        sample_weight: Array | None = None,
        groups: Array | None = None,
    ):
        """Build the features, choose ``α`` on its path, and refit with it.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)
            Class labels (numbers or strings), at least two classes.
        sample_weight : array of shape (n_samples,) or float, default=None
            As for :meth:`LowRankRidgeClassifier.fit`; the validation errors are weighted
            means.
        groups : array of shape (n_samples,), default=None
            Group labels for a group splitter (``GroupKFold``, ...).

        Returns
        -------
        self
        """
        self._validate_params()
        xp, X, targets, weights, classes, codes = self._targets(X, y, sample_weight)
        groups = check_groups(groups, X.shape[0])
        self._fit_path(X, targets, weights, groups, labels=codes, xp=xp)
        self._set_classes(classes, xp=xp, device=device_of(X))
        return self

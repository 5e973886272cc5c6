"""The Mklaren estimator: scikit-learn conventions around :mod:`lrkl._mklaren`."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import Any

from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from lrkl._backend import check_array, check_consistent_length, ensure_array, get_namespace
from lrkl._mklaren import (
    FIRST_PIVOT_RULES,
    LAMBDA_SCORINGS,
    chol_blocks,
    dual_coefficients,
    kernel_columns,
    kernel_weights,
    mklaren_fit,
    mklaren_predict,
    out_of_sample_features,
)
from lrkl.kernels import Gaussian, Kernel

__all__ = ["MklarenRegressor", "default_kernels"]

Array = Any


def default_kernels() -> list[Kernel]:
    """The paper's seven Gaussian kernels ``exp(−θ‖x − z‖²)``, ``θ = 2⁻³, 2⁻², …, 2³``."""
    return [Gaussian(gamma=2.0**e) for e in range(-3, 4)]


def _as_array(x: Any, name: str) -> Array:
    """:func:`lrkl._backend.ensure_array`, with scikit-learn's message for a missing ``y``."""
    if x is None:
        msg = f"this estimator requires {name} to be passed, but the target {name} is None"
        raise ValueError(msg)
    return ensure_array(x, name=name)


def _check_X(X: Any, *, dtype: Any = None) -> tuple[Any, Array]:
    """Namespace and validated ``X`` (2-D, at least one row and one feature, finite)."""
    X = _as_array(X, "X")
    xp = get_namespace(X)
    if X.ndim == 1:
        msg = (
            f"Expected a 2-D array for X, got a 1-D array of shape {tuple(X.shape)}. Reshape your "
            "data either using array.reshape(-1, 1) if your data has a single feature or "
            "array.reshape(1, -1) if it contains a single sample."
        )
        raise ValueError(msg)
    if X.ndim == 2 and X.shape[1] == 0:
        msg = f"0 feature(s) (shape=({X.shape[0]}, 0)) while a minimum of 1 is required."
        raise ValueError(msg)
    return xp, check_array(X, name="X", xp=xp, dtype=dtype)


class MklarenRegressor(RegressorMixin, BaseEstimator):
    """Multiple kernel learning with least-angle regression (Mklaren; Stražar & Curk 2016).

    Builds incomplete Cholesky factors of several kernels at once. At each of ``rank``
    iterations, the (kernel, pivot) whose next Cholesky column least-angle regression would add to
    the model is chosen, with the candidates' correlations approximated from ``delta`` look-ahead
    columns per kernel. The final model is ridge regression (penalty ``lbd``, unpenalised
    intercept) on the selected centred, unit-norm Cholesky columns, and new points are mapped to
    those columns by the incomplete-Cholesky / Nyström equivalence. The kernel matrices are never
    formed: the cost is linear in the number of samples and of kernels.

    Parameters
    ----------
    kernels : list of Kernel, default=None
        The candidate kernels (objects of :mod:`lrkl.kernels`). ``None`` means the paper's seven
        Gaussian kernels, ``θ ∈ {2⁻³, …, 2³}`` (see :func:`default_kernels`).
    rank : int, default=14
        Total rank ``K``: the number of Cholesky columns selected over all kernels.
    delta : int, default=10
        Number of look-ahead columns ``δ`` per kernel.
    lbd : float, default=0.0
        ℓ2 regularisation ``λ ≥ 0``.
    first_pivot : {"abs", "signed"}, default="abs"
        ``"abs"``: the first pivot maximises the absolute correlation (least-angle regression,
        as in the paper); ``"signed"``: the largest positive correlation (reference code).
    scoring : {"reference", "consistent"}, default="reference"
        How ``λ`` enters the approximate candidate correlations: as the reference code does, or
        exactly as in the augmented columns (MKLAREN.md §12.7). Irrelevant when ``lbd=0``.

    Attributes
    ----------
    kernels_ : list of Kernel
        The kernels used.
    selected_ : tuple of (int, int)
        ``(kernel index, pivot row)`` of each selected Cholesky column, in the order of selection.
    rank_ : tuple of int
        Number of columns of each kernel. Their sum ``n_components_`` is ``rank`` unless the
        kernels' residuals ran out, or a column added no new direction, before that.
    n_components_ : int
        Number of selected columns.
    pivots_ : tuple of tuple of int
        Pivot rows of each kernel, in order.
    pivot_X_ : list of array
        The training rows at each kernel's pivots, shape ``(rank_[q], n_features_in_)``.
    chol_ : list of array
        ``L_q = G_q[S_q, :]``, lower-triangular ``(rank_[q], rank_[q])`` pivot blocks.
    columns_ : array of shape (n_samples, n_components_)
        The raw Cholesky columns on the training points, in the order of selection.
    coef_ : array of shape (n_components_,)
        Regression coefficients ``β*`` of the augmented unit columns (eq. 18).
    intercept_ : array of shape ()
        The training mean of ``y``.
    dual_coef_ : array of shape (n_kernels, n_samples)
        Least-norm dual coefficients ``α_q`` per kernel (eqs. 23–25); with an explicit feature
        map ``Φ_q`` the primal weights are ``Φ_qᵀ α_q`` (eq. 26).
    kernel_weights_ : array of shape (n_kernels,)
        ``‖G_q β'_q‖``, the size of each kernel's part of the training fit.
    fitted_ : array of shape (n_samples,)
        The training fit.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import MklarenRegressor
    >>> from lrkl.kernels import Gaussian, Linear
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 3))
    >>> y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    >>> model = MklarenRegressor([Linear(), Gaussian(gamma=0.5)], rank=8, delta=5, lbd=0.01)
    >>> model = model.fit(X, y)
    >>> model.n_components_, sum(model.rank_)
    (8, 8)
    >>> bool(model.score(X, y) > 0.9)
    True
    """

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn's convention)
        "kernels": [list, tuple, None],
        "rank": [Interval(numbers.Integral, 1, None, closed="left")],
        "delta": [Interval(numbers.Integral, 1, None, closed="left")],
        "lbd": [Interval(numbers.Real, 0, None, closed="left")],
        "first_pivot": [StrOptions(set(FIRST_PIVOT_RULES))],
        "scoring": [StrOptions(set(LAMBDA_SCORINGS))],
    }

    def __init__(
        self,
        kernels: Sequence[Kernel] | None = None,
        rank: int = 14,
        delta: int = 10,
        lbd: float = 0.0,
        *,
        first_pivot: str = "abs",
        scoring: str = "reference",
    ) -> None:
        self.kernels = kernels
        self.rank = rank
        self.delta = delta
        self.lbd = lbd
        self.first_pivot = first_pivot
        self.scoring = scoring

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.single_output = True
        tags.target_tags.multi_output = False
        return tags

    def _checked_kernels(self) -> list[Kernel]:
        kernels = default_kernels() if self.kernels is None else list(self.kernels)
        if not kernels:
            msg = "kernels must hold at least one Kernel, received an empty sequence"
            raise ValueError(msg)
        for q, kernel in enumerate(kernels):
            if not isinstance(kernel, Kernel):
                msg = (
                    f"kernels must hold lrkl.kernels.Kernel objects, received "
                    f"{type(kernel).__name__} at position {q}"
                )
                raise TypeError(msg)
        return kernels

    def fit(self, X: Array, y: Array) -> MklarenRegressor:
        """Select ``rank`` Cholesky columns over the kernels and fit the regression.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
            Training inputs (any array-API namespace; the fit stays in it and on its device).
        y : array of shape (n_samples,)
            Training targets.

        Returns
        -------
        self : MklarenRegressor
        """
        self._validate_params()
        kernels = self._checked_kernels()
        _, X = _check_X(X)
        y = _as_array(y, "y")
        xp = get_namespace(X, y)
        y = self._check_y(y, dtype=X.dtype, xp=xp)
        check_consistent_length(X=X, y=y)
        result = mklaren_fit(
            kernels,
            X,
            y,
            int(self.rank),
            delta=int(self.delta),
            lbd=float(self.lbd),
            first_pivot=self.first_pivot,
            scoring=self.scoring,
            xp=xp,
        )
        self._store(result, kernels, X, xp=xp)
        return self

    @staticmethod
    def _check_y(y: Array, *, dtype: Any, xp: Any) -> Array:
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; it is raveled.",
                DataConversionWarning,
                stacklevel=3,
            )
            y = y[:, 0]
        return check_array(y, name="y", xp=xp, ndim=1, dtype=dtype)

    def _store(self, result: Any, kernels: list[Kernel], X: Array, *, xp: Any) -> None:
        p = len(kernels)
        self._fit_result = result
        self.kernels_ = kernels
        self.n_features_in_ = X.shape[1]
        self.selected_ = tuple(zip(result.kernel_of, result.pivot_of, strict=True))
        self.n_components_ = len(result.kernel_of)
        self.rank_ = tuple(result.kernel_of.count(q) for q in range(p))
        self.pivots_ = tuple(
            tuple(result.pivot_of[t] for t in kernel_columns(result, q)) for q in range(p)
        )
        self.pivot_X_ = [
            xp.take(X, xp.asarray(list(piv), dtype=xp.int64, device=X.device), axis=0)
            for piv in self.pivots_
        ]
        self.chol_ = chol_blocks(result, p, xp=xp)
        self.columns_ = result.columns
        self.coef_ = result.beta
        self.intercept_ = result.bias
        self.fitted_ = result.fitted
        self.dual_coef_ = dual_coefficients(result, p, xp=xp)
        self.kernel_weights_ = kernel_weights(result, p, xp=xp)

    def cholesky_features(self, X: Array) -> Array:
        """The raw Cholesky features of new points, one column per selected column.

        Column ``t`` is ``g_t(x)``, the out-of-sample value of the ``t``-th selected Cholesky
        column (eqs. 19–21); on the training points it reproduces ``columns_``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples, n_components_)
        """
        check_is_fitted(self)
        xp, feats = self._features(X)
        # Kernel-major blocks back into the order of selection.
        order = [t for q in range(len(feats)) for t in kernel_columns(self._fit_result, q)]
        inverse = sorted(range(len(order)), key=order.__getitem__)
        stacked = xp.concat(feats, axis=1)
        return xp.take(stacked, xp.asarray(inverse, dtype=xp.int64, device=stacked.device), axis=1)

    def predict(self, X: Array) -> Array:
        """Predict with the fitted model (eq. 22).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples,)
            In the namespace and on the device of ``X``.
        """
        check_is_fitted(self)
        xp, feats = self._features(X)
        return mklaren_predict(self._fit_result, feats, xp=xp)

    def _features(self, X: Array) -> tuple[Any, list[Array]]:
        xp, X = _check_X(X, dtype=self.coef_.dtype)
        get_namespace(X, self.coef_)  # refuses data from another array library
        if X.shape[1] != self.n_features_in_:
            msg = (
                f"X has {X.shape[1]} features, but MklarenRegressor is expecting "
                f"{self.n_features_in_} features as input"
            )
            raise ValueError(msg)
        return xp, out_of_sample_features(self.kernels_, self.pivot_X_, self.chol_, X, xp=xp)

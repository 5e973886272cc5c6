"""The Mklaren estimator: scikit-learn conventions around :mod:`lrkl.mklaren._solver`."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from sklearn.utils.validation import check_is_fitted

from lrkl._backend import device_of, index_array, widened
from lrkl._base import LRKLRegressor
from lrkl._executor import rowwise
from lrkl._typing import Array
from lrkl._validation import (
    Interval,
    StrOptions,
    check_predict_X,
    check_X_y,
    clip_to_samples,
)
from lrkl.kernel_ridge._scaling import power_of_two_scale
from lrkl.kernels import Kernel, check_kernels
from lrkl.lowrank._factor import _as_dtype
from lrkl.mklaren._solver import (
    FIRST_PIVOT_RULES,
    LAMBDA_SCORINGS,
    chol_blocks,
    dual_coefficients,
    kernel_columns,
    kernel_weights,
    mklaren_predict,
    out_of_sample_features,
    solve_mklaren,
)

__all__ = ["MklarenRegressor"]

#: The default total rank (fewer when there are fewer samples).
DEFAULT_N_COMPONENTS = 200


class MklarenRegressor(LRKLRegressor):
    """Multiple kernel learning with least-angle regression (Mklaren; Stražar & Curk 2016).

    Builds incomplete Cholesky factors of several kernels at once. At each of ``n_components``
    iterations, the (kernel, pivot) whose next Cholesky column least-angle regression would add to
    the model is chosen, with the candidates' correlations approximated from ``lookahead``
    look-ahead columns per kernel. The final model is ridge regression (penalty ``alpha``,
    unpenalised intercept) on the selected centred, unit-norm Cholesky columns, and new points are
    mapped to those columns by the incomplete-Cholesky / Nyström equivalence. The kernel matrices
    are never formed: the cost is linear in the number of samples and of kernels.

    Parameters
    ----------
    kernels : list of Kernel, default=None
        The candidate kernels (Kernel objects or names such as ``"rbf"``); ``None`` means seven
        Gaussian kernels ``γ₀·2⁻³, …, γ₀·2³`` around the width ``γ₀`` of
        ``Gaussian(gamma="scale")`` (:func:`lrkl.kernels.Kernel.resolve`).
        (The paper's ``θ ∈ {2⁻³, …, 2³}`` suit its unit-norm rows; pass them explicitly to
        reproduce it.)
    n_components : int, default=None
        Total rank ``K``: the number of Cholesky columns selected over all kernels (the paper's
        ``rank``; ``rank_`` tells how many each kernel got); ``None`` means min(n_samples, 200).
    lookahead : int, default=10
        Number of look-ahead columns ``δ`` per kernel.
    alpha : float, default=0.1
        ℓ2 regularisation ``λ ≥ 0`` (the paper's λ), on unit-norm columns. No single value suits
        every data set (on standardised features: friedman1 wants 0.01, diabetes 1), so search
        it (``GridSearchCV`` over ``alpha``) when the default model is not good enough.
    first_pivot : {"abs", "signed"}, default="abs"
        ``"abs"``: the first pivot maximises the absolute correlation (least-angle regression,
        as in the paper); ``"signed"``: the largest positive correlation (reference code).
    scoring : {"reference", "consistent"}, default="reference"
        How ``λ`` enters the approximate candidate correlations: as the reference code does, or
        exactly as in the augmented columns. Irrelevant when ``alpha=0``.

    Attributes
    ----------
    kernels_ : list of Kernel
        The kernels used.
    selected_ : tuple of (int, int)
        ``(kernel index, pivot row)`` of each selected Cholesky column, in the order of selection.
    rank_ : tuple of int
        Number of columns of each kernel. Their sum ``n_components_`` is ``n_components`` unless the
        kernels' residuals ran out, or a column added no new direction, before that.
    n_components_ : int
        Number of selected columns.
    pivots_ : tuple of tuple of int
        Pivot rows of each kernel, in order.
    pivot_X_ : list of array
        The training rows at each kernel's pivots, shape ``(rank_[q], n_features_in_)``.
    chol_ : list of array
        ``L_q = G_q[S_q, :]``, lower-triangular ``(rank_[q], rank_[q])`` pivot blocks.
    columns_ : array of shape ``(n_samples, n_components_)``
        The raw Cholesky columns on the training points, in the order of selection.
    coef_ : array of shape ``(n_components_,)``
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
    >>> kernels = [Linear(), Gaussian(gamma=0.5)]
    >>> model = MklarenRegressor(kernels, n_components=8, lookahead=5, alpha=0.01)
    >>> model = model.fit(X, y)
    >>> model.n_components_, sum(model.rank_)
    (8, 8)
    >>> bool(model.score(X, y) > 0.9)
    True
    """

    _parameter_constraints: dict = {
        "kernels": [list, tuple, None],
        "n_components": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "lookahead": [Interval(numbers.Integral, 1, None, closed="left")],
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "first_pivot": [StrOptions(set(FIRST_PIVOT_RULES))],
        "scoring": [StrOptions(set(LAMBDA_SCORINGS))],
    }

    def __init__(
        self,
        kernels: Sequence[Kernel] | None = None,
        n_components: int | None = None,
        lookahead: int = 10,
        alpha: float = 0.1,
        *,
        first_pivot: str = "abs",
        scoring: str = "reference",
    ) -> None:
        self.kernels = kernels
        self.n_components = n_components
        self.lookahead = lookahead
        self.alpha = alpha
        self.first_pivot = first_pivot
        self.scoring = scoring

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.single_output = True
        tags.target_tags.multi_output = False
        return tags

    def fit(self, X: Array, y: Array) -> MklarenRegressor:
        """Select ``n_components`` Cholesky columns over the kernels and fit the regression.

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
        xp, X, y = check_X_y(X, y, owner=self)
        # In float64, the model kept in X's dtype: the least-angle rule compares correlations of
        # unit-norm columns whose residual norms run down to the floor n·ε·max K_ii, and
        # float32's rounding flipped the choices (float16 data: test R² 9.9e-3 apart from the
        # float64 fit of the same values; 4e-7 of the spread with this).
        model_dtype = X.dtype
        X, y = widened(X, y, xp=xp)
        kernels = check_kernels(self.kernels, X)
        n = X.shape[0]
        n_components = (
            min(n, DEFAULT_N_COMPONENTS)
            if self.n_components is None
            else clip_to_samples(
                self.n_components, n, name="n_components", owner=type(self).__name__
            )
        )
        # Unit-scale y (an exact power of 2, as the ridge family does): the pivot rule compares
        # correlations with absolute floors, which y · 1e-20 fell below.
        y_scale = power_of_two_scale(y, xp=xp)
        result = solve_mklaren(
            kernels,
            X,
            y / y_scale,
            n_components,
            # At most n pivots exist, so the columns past n would be zero: clipping changes
            # nothing but the n_steps × n allocation (no warning, unlike a clipped rank).
            lookahead=min(int(self.lookahead), n),
            alpha=float(self.alpha),
            first_pivot=self.first_pivot,
            scoring=self.scoring,
            xp=xp,
        )
        self._store(result, y_scale, kernels, X, xp=xp)
        self._keep_model_in(model_dtype, xp=xp)
        return self

    def _store(
        self, unit: Any, y_scale: float, kernels: list[Kernel], X: Array, *, xp: Any
    ) -> None:
        """The fitted attributes from the fit ``unit`` of ``y / y_scale``: what is linear in y
        is scaled back after anything is squared (a norm of y · 1e200 overflows)."""
        p = len(kernels)
        result = unit._replace(
            bias=unit.bias * y_scale, beta=unit.beta * y_scale, fitted=unit.fitted * y_scale
        )
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
            xp.take(X, index_array(piv, xp=xp, device=device_of(X)), axis=0) for piv in self.pivots_
        ]
        self.chol_ = chol_blocks(result, p, xp=xp)
        self.columns_ = result.columns
        self.coef_ = result.beta
        self.intercept_ = result.bias
        self.fitted_ = result.fitted
        self.dual_coef_ = dual_coefficients(unit, p, xp=xp) * y_scale
        self.kernel_weights_ = kernel_weights(unit, p, xp=xp) * y_scale

    def _keep_model_in(self, dtype: Any, *, xp: ModuleType) -> None:
        """The fitted model in ``dtype``, the input's, after a fit computed in a wider one
        (:func:`lrkl._backend.widened`): it then costs and answers as that dtype."""

        def cast(a: Array) -> Array:
            return _as_dtype(a, dtype, xp=xp)

        fit = self._fit_result
        arrays = ("bias", "columns", "col_mean", "col_norm", "beta", "fitted")
        fit = self._fit_result = fit._replace(**{name: cast(getattr(fit, name)) for name in arrays})
        self.columns_, self.coef_, self.intercept_, self.fitted_ = (
            fit.columns,
            fit.beta,
            fit.bias,
            fit.fitted,
        )
        self.pivot_X_ = [cast(a) for a in self.pivot_X_]
        self.chol_ = [cast(a) for a in self.chol_]
        self.dual_coef_, self.kernel_weights_ = cast(self.dual_coef_), cast(self.kernel_weights_)

    def cholesky_features(self, X: Array) -> Array:
        """The raw Cholesky features of new points, one column per selected column.

        Column ``t`` is ``g_t(x)``, the out-of-sample value of the ``t``-th selected Cholesky
        column (eqs. 19–21); on the training points it reproduces ``columns_``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape ``(n_samples, n_components_)``
        """
        check_is_fitted(self)
        xp, feats = self._features(X)
        # Kernel-major blocks back into the order of selection.
        order = [t for q in range(len(feats)) for t in kernel_columns(self._fit_result, q)]
        inverse = sorted(range(len(order)), key=order.__getitem__)
        stacked = xp.concat(feats, axis=1)
        return xp.take(stacked, index_array(inverse, xp=xp, device=device_of(stacked)), axis=1)

    @rowwise
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
        xp, X = check_predict_X(self, X, like="coef_")
        return xp, out_of_sample_features(self.kernels_, self.pivot_X_, self.chol_, X, xp=xp)

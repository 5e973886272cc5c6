"""Exact kernel ridge regression on a weighted sum of several kernels (forms ``n × n``).

- :class:`UniformKernelRidge`: unit weights (the Mklaren paper's "uniform");
- the base of :class:`lrkl.AlignmentKernelRidge`, whose weights come from centred alignment.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from types import ModuleType
from typing import ClassVar

from lrkl._backend import device_of
from lrkl._typing import Array
from lrkl._validation import (
    Interval,
    check_dense_kernel_size,
    check_sample_weight,
    check_X_y,
)
from lrkl.kernel_ridge._base import KernelExpansionRegressor
from lrkl.kernel_ridge._scaling import power_of_two_scale, weight_scale
from lrkl.kernel_ridge._solvers import _make_solver, _solve_dual, _weigh_kernel
from lrkl.kernels import Kernel, check_kernels
from lrkl.lowrank._factor import _as_dtype

__all__ = ["CombinedKernelRidge", "KernelCentering", "UniformKernelRidge"]


class KernelCentering:
    """Training statistics that centre a kernel in feature space: ``P K P`` and its test rows.

    ``K_c(x, x_j) = k(x, x_j) − mean_l k(x, x_l) − mean_i K_ij + mean K``.
    """

    def __init__(self, K: Array, *, xp: ModuleType) -> None:
        self.column_means = xp.mean(K, axis=0)  # shape: (n,)
        self.grand_mean = xp.mean(self.column_means)

    def train(self, K: Array, *, xp: ModuleType) -> Array:
        row_means = self.column_means  # K is symmetric
        return K - row_means[:, None] - (self.column_means - self.grand_mean)[None, :]

    def test(self, block: Array, *, xp: ModuleType) -> Array:
        row_means = xp.mean(block, axis=1)
        return block - row_means[:, None] - self.column_means[None, :] + self.grand_mean


class CombinedKernelRidge(KernelExpansionRegressor):
    """Exact kernel ridge regression on ``Σ_q η_q K_q`` (each ``K_q`` centred when the weights
    say so); subclasses give the weights."""

    _renamed_attributes: ClassVar[dict[str, str]] = {"centring_": "centering_"}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def _weights(
        self, Ks: list[Array], y: Array, y_scale: float, *, xp: ModuleType
    ) -> tuple[Array, bool]:
        """The weights ``η`` and whether the kernels are centred, from ``y / y_scale``."""
        raise NotImplementedError

    def fit(self, X: Array, y: Array, sample_weight: Array | None = None):
        """Weigh the kernels and fit kernel ridge regression on their combination.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : array of shape (n_samples,) or float, default=None
            Weights of the squared errors in the ridge solve
            (:func:`lrkl.kernel_ridge.solve_dual`); the kernel weights and the centring do not
            use them.

        Returns
        -------
        self
        """
        self._validate_params()
        xp, X, y = check_X_y(X, y, owner=self, multi_output=True)
        sample_weight = check_sample_weight(sample_weight, X, owner=self)
        # Unit-scale y and weights before anything is squared (the alignments ⟨K_c, y yᵀ⟩):
        # an exact power of 2 (lrkl.kernel_ridge._scaling).
        sample_weight, alpha, _ = weight_scale(sample_weight, float(self.alpha), xp=xp)
        y_scale = power_of_two_scale(y, xp=xp)
        y = y / y_scale
        kernels = check_kernels(self.kernels, X, sample_weight=sample_weight)
        check_dense_kernel_size(
            X.shape[0],
            X,
            owner=type(self).__name__,
            alternative="LowRankRidge or MklarenRegressor",
            count=len(kernels) + 3,  # K_q, their sum, a term, its factor: measured at n = 1000
        )
        Ks = [_as_dtype(kernel._evaluate(X, X, xp=xp), X.dtype, xp=xp) for kernel in kernels]
        weights, centred = self._weights(Ks, y, y_scale, xp=xp)
        centring = [KernelCentering(K, xp=xp) for K in Ks] if centred else None
        combined = xp.zeros_like(Ks[0])
        for q, K in enumerate(Ks):
            combined = combined + weights[q] * (centring[q].train(K, xp=xp) if centred else K)
        del Ks
        # alignf's weights may be negative: the combination is then indefinite.
        positive = not centred or bool(xp.all(weights >= 0))
        root = None if sample_weight is None else xp.sqrt(sample_weight)
        solver = _make_solver(
            _weigh_kernel(combined, root), "cholesky" if positive else "eigh", xp=xp
        )
        dual, intercept = _solve_dual(
            solver, y, alpha, fit_intercept=self.fit_intercept, xp=xp, sqrt_weight=root
        )
        self.dual_coef_, self.intercept_ = dual * y_scale, intercept * y_scale
        self.kernel_weights_ = weights
        self.centering_ = centring
        self.X_fit_ = X
        self.kernels_ = kernels
        self.n_features_in_ = X.shape[1]
        return self

    def _kernel_block(self, X: Array, *, xp: ModuleType) -> Array:
        """``Σ_q η_q k_q(X, X_fit)`` (centred with the training statistics when fitted so)."""
        block = None
        for q, kernel in enumerate(self.kernels_):
            part = _as_dtype(kernel._evaluate(X, self.X_fit_, xp=xp), X.dtype, xp=xp)
            if self.centering_ is not None:
                part = self.centering_[q].test(part, xp=xp)
            part = self.kernel_weights_[q] * part
            block = part if block is None else block + part
        return block


class UniformKernelRidge(CombinedKernelRidge):
    """Exact kernel ridge regression on the uniform sum of several kernels ("uniform").

    Fits ``(K + αI) c + b 1 = y`` with ``K = Σ_q K_q`` over the training points (unit weights,
    no centring) and predicts ``Σ_q k_q(x, X_fit) c + b``. This is an explicitly exact method:
    it forms the ``n × n`` matrix and costs ``O(p n² d + n³)``.

    Parameters
    ----------
    kernels : list of Kernel, default=None
        The kernels (Kernel objects or names such as ``"rbf"``); ``None`` means seven Gaussian
        kernels ``γ₀·2⁻³, …, γ₀·2³`` around the width ``γ₀`` of ``Gaussian(gamma="scale")``
        (:func:`lrkl.kernels.Kernel.resolve`).
    alpha : float, default=1.0
        Ridge penalty ``α > 0``.
    fit_intercept : bool, default=True
        Fit an unpenalised intercept ``b`` (with ``1ᵀ c = 0``). The Mklaren experiments' uniform
        baseline used scikit-learn's ``KernelRidge``, i.e. ``fit_intercept=False``.

    Attributes
    ----------
    dual_coef_ : array of shape (n_samples,) or (n_samples, n_targets)
    intercept_ : array of shape () or (n_targets,)
    kernel_weights_ : array of shape (n_kernels,)
        All ones.
    X_fit_ : array of shape (n_samples, n_features)
    kernels_ : list of Kernel
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import UniformKernelRidge
    >>> from lrkl.kernels import Gaussian, Linear
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 3))
    >>> y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    >>> model = UniformKernelRidge([Linear(), Gaussian(gamma=0.5)], alpha=0.1).fit(X, y)
    >>> bool(model.score(X, y) > 0.95)
    True
    """

    _parameter_constraints: dict = {
        "kernels": [list, tuple, None],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
    }

    def __init__(
        self,
        kernels: Sequence[Kernel] | None = None,
        alpha: float = 1.0,
        *,
        fit_intercept: bool = True,
    ) -> None:
        self.kernels = kernels
        self.alpha = alpha
        self.fit_intercept = fit_intercept

    def _weights(
        self, Ks: list[Array], y: Array, y_scale: float, *, xp: ModuleType
    ) -> tuple[Array, bool]:
        return xp.ones(len(Ks), dtype=Ks[0].dtype, device=device_of(Ks[0])), False

"""The SLKL paper's Unif baseline (§5.3): :class:`UniformRankOneRidge`, kernel ridge regression
on the uniform combination of SLKL's M rank-1 kernels."""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

from lrkl._backend import device_of, from_host, host_namespace, index_array
from lrkl._typing import Array
from lrkl._validation import (
    KERNEL_CONSTRAINT,
    Interval,
    check_n_columns,
    check_X_y,
)
from lrkl.kernel_ridge._base import KernelExpansionRegressor, sample_rows
from lrkl.kernel_ridge._scaling import power_of_two_scale
from lrkl.kernel_ridge._solvers import PrimalProblem, _make_solver, _solve_primal
from lrkl.kernels import Kernel, check_kernel
from lrkl.slkl._problems import slkl_problem

__all__ = ["UniformRankOneRidge"]


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
    centers_ : array of shape (M, n_features)
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

    _renamed_attributes: ClassVar[dict[str, str]] = {"centres_": "centers_"}

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
        self.centers_ = xp.take(X, self.candidates_, axis=0)
        positive = problem.k_diag > 0  # a centre with k_mm = 0 has a zero column: weight 0
        root = hxp.sqrt(hxp.where(positive, problem.k_diag, 1.0))
        dual = hxp.where(positive, fit.coef / root, 0.0) * y_scale
        self.dual_coef_ = from_host(dual, xp=xp, device=device, dtype=X.dtype)
        intercept = fit.intercept * y_scale
        self.intercept_ = from_host(intercept, xp=xp, device=device, dtype=X.dtype)
        self.n_features_in_ = X.shape[1]
        return self

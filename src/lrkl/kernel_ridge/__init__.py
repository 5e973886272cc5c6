"""Kernel ridge regression: one solver core (:data:`KERNEL_RIDGE_SOLVERS`) and its estimators.

``fit_intercept=True`` means one model in every lrkl estimator: ``f(x) = Σ_i c_i k(x_i, x) + b``
with the bias ``b`` unpenalised, i.e. ``(K + αI) c + b 1 = y`` and ``1ᵀ c = 0`` (Prato & Zanni's
system (7)); on explicit features, ridge regression on the centred features and targets.
"""

from lrkl.kernel_ridge._combined import UniformKernelRidge
from lrkl.kernel_ridge._estimators import LowRankRidge, LowRankRidgeCV
from lrkl.kernel_ridge._kernel_ridge import KernelRidge, KernelRidgeCV, KernelRidgeSubset
from lrkl.kernel_ridge._solvers import (
    KERNEL_RIDGE_SOLVERS,
    PrimalProblem,
    RidgeCoefficients,
    make_solver,
    primal_loo_errors,
    primal_problem,
    solve_dual,
    solve_primal,
    weigh_kernel,
)

__all__ = [
    "KERNEL_RIDGE_SOLVERS",
    "KernelRidge",
    "KernelRidgeCV",
    "KernelRidgeSubset",
    "LowRankRidge",
    "LowRankRidgeCV",
    "PrimalProblem",
    "RidgeCoefficients",
    "UniformKernelRidge",
    "make_solver",
    "primal_loo_errors",
    "primal_problem",
    "solve_dual",
    "solve_primal",
    "weigh_kernel",
]

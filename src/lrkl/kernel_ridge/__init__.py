"""Kernel ridge regression: one solver core (:data:`KERNEL_RIDGE_SOLVERS`), Prato & Zanni's three
regularisations of the exact estimators (:data:`KERNEL_RIDGE_METHODS`), and the estimators.

``fit_intercept=True`` means one model in every lrkl estimator: ``f(x) = Σ_i c_i k(x_i, x) + b``
with the bias ``b`` unpenalised, i.e. ``(K + αI) c + b 1 = y`` and ``1ᵀ c = 0`` (Prato & Zanni's
system (7)); on explicit features, ridge regression on the centred features and targets. The
exceptions are said where they are: ``KernelRidge(penalize_intercept=True)`` (system (8)) and
``KernelRidge(method="tikhonov")`` / ``"cg"``, whose intercept is a coefficient of ``[K 1]``,
penalised or regularised with the others.
"""

from lrkl.kernel_ridge._combined import UniformKernelRidge
from lrkl.kernel_ridge._exact import KernelRidge, KernelRidgeCV, KernelRidgeSubset
from lrkl.kernel_ridge._low_rank import LowRankRidge, LowRankRidgeCV
from lrkl.kernel_ridge._low_rank_classifiers import (
    LowRankRidgeClassifier,
    LowRankRidgeClassifierCV,
)
from lrkl.kernel_ridge._methods import KERNEL_RIDGE_METHODS
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
    "KERNEL_RIDGE_METHODS",
    "KERNEL_RIDGE_SOLVERS",
    "KernelRidge",
    "KernelRidgeCV",
    "KernelRidgeSubset",
    "LowRankRidge",
    "LowRankRidgeCV",
    "LowRankRidgeClassifier",
    "LowRankRidgeClassifierCV",
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

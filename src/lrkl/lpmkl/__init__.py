"""ℓp-norm multiple kernel learning with low-rank kernels (Rakotomamonjy & Chanda): the SVM
over ``Σ_k d_k V_k V_kᵀ`` by generalized forward-backward splitting, the ℓp weight update, and
:class:`LowRankMKLClassifier`."""

from lrkl.lpmkl._estimator import LowRankMKLClassifier
from lrkl.lpmkl._gfb import (
    GFBState,
    SVMProblem,
    SVMSolution,
    auto_alpha_scale,
    duality_gap,
    gfb_svm,
    hinge_intercept,
    svm_dual_objective,
    svm_problem,
)
from lrkl.lpmkl._mkl import (
    SVM_SOLVERS,
    MKLResult,
    MKLState,
    lp_mkl,
    lp_weights,
    mkl_duality_gap,
    mkl_objective,
)

__all__ = [
    "SVM_SOLVERS",
    "GFBState",
    "LowRankMKLClassifier",
    "MKLResult",
    "MKLState",
    "SVMProblem",
    "SVMSolution",
    "auto_alpha_scale",
    "duality_gap",
    "gfb_svm",
    "hinge_intercept",
    "lp_mkl",
    "lp_weights",
    "mkl_duality_gap",
    "mkl_objective",
    "svm_dual_objective",
    "svm_problem",
]

"""ℓp-norm multiple kernel learning with low-rank kernels (Rakotomamonjy & Chanda): the SVM
over ``Σ_k d_k V_k V_kᵀ`` by Newton's method (squared hinge, or the hinge smoothed) or
generalized forward-backward splitting (the paper's, hinge), the ℓp weight update, and
:class:`LowRankMKLClassifier`."""

from lrkl._base import old_module_names
from lrkl.lpmkl._cv import LowRankMKLClassifierCV
from lrkl.lpmkl._estimator import LowRankMKLClassifier
from lrkl.lpmkl._gfb import (
    GFBState,
    auto_alpha_scale,
    duality_gap,
    hinge_intercept,
    solve_gfb_svm,
    svm_dual_objective,
)
from lrkl.lpmkl._mkl import (
    SVM_SOLVERS,
    MKLResult,
    MKLState,
    lp_weights,
    mkl_duality_gap,
    mkl_objective,
    solve_lp_mkl,
)
from lrkl.lpmkl._newton import NewtonState, solve_newton_svm
from lrkl.lpmkl._problem import SVMProblem, SVMSolution, svm_problem

__all__ = [
    "SVM_SOLVERS",
    "GFBState",
    "LowRankMKLClassifier",
    "LowRankMKLClassifierCV",
    "MKLResult",
    "MKLState",
    "NewtonState",
    "SVMProblem",
    "SVMSolution",
    "auto_alpha_scale",
    "duality_gap",
    "hinge_intercept",
    "lp_weights",
    "mkl_duality_gap",
    "mkl_objective",
    "solve_gfb_svm",
    "solve_lp_mkl",
    "solve_newton_svm",
    "svm_dual_objective",
    "svm_problem",
]

#: The solvers' old names (issue 34: named like the other solvers, ``solve_*``), for one release.
__getattr__ = old_module_names(
    __name__,
    {"gfb_svm": (__name__, "solve_gfb_svm"), "lp_mkl": (__name__, "solve_lp_mkl")},
)

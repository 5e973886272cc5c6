"""Problem (4) by existing CPU solvers, for comparison with GFB: an interior-point QP solver
(Clarabel) on the split form (6), and liblinear (scikit-learn's ``LinearSVC``) on the stacked
features ``[√d_1 V_1 … √d_m V_m]``. Both take NumPy arrays only: they are host libraries.

- **Clarabel** (``pip install "clarabel>=0.11"``; Apache-2.0) is a maintained primal-dual
  interior-point solver for convex QPs and cone programs, with a sparse LDLᵀ of the KKT system
  (faer's supernodal one, from 0.11): problem (6)
  has a diagonal Hessian and a dense ``(R·m + 1) × (R·m + n)`` equality block, which it takes as
  given (the paper used its own Mehrotra predictor-corrector, which it did not publish). It is
  chosen over cvxopt for its maintained wheels and its support of an explicit ``tol``.
- **liblinear** solves ``min ½‖v‖² + C Σ_i max(0, 1 − y_i (zᵢᵀ v + b))`` by dual coordinate
  descent, where ``zᵢ`` stacks ``√d_k V_k(xᵢ)``: with ``v_k = w_k/√d_k`` this is exactly the
  primal of (4), except that liblinear regularises the intercept as an extra feature of value
  ``intercept_scaling`` (its penalty ``b²/(2 s²)``), so it drops the constraint ``yᵀα = 0``;
  with ``s = INTERCEPT_SCALING`` that penalty is small against the data term.
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

import numpy as np
import scipy.sparse

from lrkl._typing import Array
from lrkl.lpmkl._gfb import dual_solution
from lrkl.lpmkl._problem import SVMProblem, SVMSolution

__all__ = [
    "CLARABEL_MIN_VERSION",
    "INTERCEPT_SCALING",
    "interior_point",
    "liblinear",
    "require_clarabel",
]


#: ``intercept_scaling`` of the ``liblinear`` solver: the intercept's penalty is ``b²/(2·s²)``.
INTERCEPT_SCALING = 10.0


#: The oldest Clarabel the interior point accepts: from 0.11 its LDLᵀ is faer's supernodal one;
#: older ones factorise (6)'s dense equality block by QDLDL, hours where faer takes minutes.
CLARABEL_MIN_VERSION = (0, 11)


def require_clarabel() -> ModuleType:
    """Clarabel, or an ImportError naming the version needed, the one found and the install
    line (pyproject's ``qp`` extra asks for the same version)."""
    wanted = ".".join(map(str, CLARABEL_MIN_VERSION))
    try:
        import clarabel
    except ImportError:
        found = "none installed"
    else:
        version = tuple(int(part) for part in clarabel.__version__.split(".")[:2])
        if version >= CLARABEL_MIN_VERSION:
            return clarabel
        found = f"found clarabel {clarabel.__version__}"
    msg = (
        f"solver='interior_point' needs clarabel>={wanted} (its faer factorisation), {found}: "
        f'pip install "clarabel>={wanted}"'
    )
    raise ImportError(msg)


def _require_numpy(problem: SVMProblem, solver: str) -> None:
    if not isinstance(problem.V, np.ndarray):
        msg = (
            f"solver={solver!r} runs on NumPy arrays only (a CPU library), received "
            f"{type(problem.V).__module__}.{type(problem.V).__name__}; use solver='gfb', "
            "which runs on every array-API backend"
        )
        raise TypeError(msg)


def interior_point(
    problem: SVMProblem,
    d: Array,
    *,
    state: Any,
    tol: float,
    max_iter: int,
    eta: float,
    xp: ModuleType,
) -> SVMSolution:
    """Problem (6) by Clarabel's interior-point method, to relative gap and feasibility ``tol``
    (``state`` is ignored: interior-point methods do not warm-start)."""
    _require_numpy(problem, "interior_point")
    clarabel = require_clarabel()

    m, n, R = problem.V.shape
    k = m * R
    stacked = np.transpose(problem.V, (1, 0, 2)).reshape(n, k)
    B = (stacked * np.repeat(np.sqrt(d), R)[None, :]).T * problem.y[None, :]  # D^{1/2} Vᵀ Y
    identity_n = scipy.sparse.identity(n, format="csc")
    A = scipy.sparse.bmat(
        [
            [scipy.sparse.identity(k), scipy.sparse.csc_matrix(-B)],
            [None, scipy.sparse.csc_matrix(problem.y[None, :])],
            [None, -identity_n],
            [None, identity_n],
        ],
        format="csc",
    )
    b = np.concatenate([np.zeros(k + 1 + n), np.broadcast_to(problem.costs(), (n,))])
    P = scipy.sparse.diags(np.concatenate([np.ones(k), np.full(n, eta)]), format="csc")
    q = np.concatenate([np.zeros(k), -np.ones(n)])
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.max_iter = int(max_iter)
    settings.tol_gap_rel = settings.tol_gap_abs = settings.tol_feas = float(tol)
    # faer's supernodal LDLᵀ: the R·m columns of B make the KKT matrix's Schur complement dense,
    # which QDLDL (the default) factorises column by column: at n = 500, R = 500, m = 10,
    # 53 s against 14.9 s, and over 50 min at n = 2000.
    settings.direct_solve_method = "faer"
    cones = [clarabel.ZeroConeT(k + 1), clarabel.NonnegativeConeT(2 * n)]
    result = clarabel.DefaultSolver(P, q, A, b, cones, settings).solve()
    converged = result.status in (clarabel.SolverStatus.Solved, clarabel.SolverStatus.AlmostSolved)
    # in the features' dtype, as every solver's solution (Clarabel works in float64)
    alpha = np.clip(np.asarray(result.x[k:]), 0.0, problem.costs()).astype(problem.V.dtype)
    return dual_solution(problem, d, alpha, int(result.iterations), converged, None, xp=xp)


def liblinear(
    problem: SVMProblem,
    d: Array,
    *,
    state: Any,
    tol: float,
    max_iter: int,
    eta: float,
    xp: ModuleType,
) -> SVMSolution:
    """The primal of (4) by scikit-learn's ``LinearSVC`` (hinge loss, dual coordinate descent) on
    the stacked ``√d_k V_k``; ``state`` and ``eta`` are ignored, and ``alpha`` is not returned."""
    _require_numpy(problem, "liblinear")
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    m, n, R = problem.V.shape
    root_d = np.sqrt(d)
    Z = np.transpose(problem.V * root_d[:, None, None], (1, 0, 2)).reshape(n, m * R)
    svc = LinearSVC(
        C=problem.C,
        loss="hinge",
        dual=True,
        tol=tol,
        max_iter=int(max_iter),
        intercept_scaling=INTERCEPT_SCALING,
        random_state=0,  # liblinear's order of the coordinates: the same fit on every call
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        svc.fit(Z, problem.y, sample_weight=problem.sample_weight)
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    coef = svc.coef_[0].astype(Z.dtype)  # in the features' dtype (liblinear's is float64)
    w = root_d[:, None] * coef.reshape(m, R)
    decision = Z @ coef
    intercept = np.asarray(svc.intercept_[0], dtype=Z.dtype)
    return SVMSolution(None, w, decision, intercept, int(svc.n_iter_), converged, None)

"""Nyström centres drawn by approximate ridge leverage scores: the ``centers="leverage"`` rule
of the low-rank ridge estimators (:mod:`lrkl.kernel_ridge._low_rank_model`).

The ridge leverage score of row ``i`` at ``α`` is ``τ_i = w_i z̃_iᵀ (Z̃ᵀ W Z̃ + α I)⁻¹ z̃_i``,
where ``z̃_i`` is the row's features, centred (weighted) when an intercept is fitted: the
diagonal of the ridge hat matrix, the weight row ``i`` gets in its own fitted value. Rows that
few others explain (sparse regions, the edges of the data) have large scores. The scores are
computed on the features of uniform centres (the two-pass approximation of Alaoui & Mahoney
2015, of which Rudi et al. 2018's BLESS is the multi-scale refinement); the new centres are
drawn without replacement with probabilities proportional to them (Efraimidis & Spirakis'
weighted sampling: the ``m`` largest keys ``log(u_i) / τ_i``, ``u_i`` uniform).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
from sklearn.utils import check_random_state

from lrkl._backend import to_numpy
from lrkl._executor import executor_for
from lrkl._typing import Array
from lrkl.kernel_ridge._solvers import EighSolver, PrimalProblem, _make_solver

#: The values of the estimators' ``centers`` parameter.
CENTRES = ("uniform", "leverage")


def ridge_leverage(
    Z: Array,  # shape: (n, k), the features ``problem`` was built from
    problem: PrimalProblem,
    alpha: float,
    *,
    xp: ModuleType,
    sample_weight: Array | None = None,
    solver: EighSolver | None = None,
) -> Array:
    """The ridge leverage scores ``τ`` (shape ``(n,)``) of the rows of ``Z`` at ``alpha``, in
    one pass over its row blocks (directions of ``Z̃ᵀ W Z̃ + α I`` with eigenvalue 0 count 0),
    from ``solver``, the eigendecomposition of ``problem.gram`` where the caller has it."""
    if solver is None:
        solver = _make_solver(problem.gram, "eigh", xp=xp)
    shifted = xp.where(solver.eigenvalues > 0, solver.eigenvalues, 0.0) + alpha
    inverse = xp.where(shifted > 0, 1.0 / xp.where(shifted > 0, shifted, 1.0), 0.0)

    def scores(rows: Array) -> Array:
        P = (rows - problem.feature_mean) @ solver.U
        return (P * P) @ inverse

    run = executor_for(Z, xp=xp, row_work=2 * Z.shape[1])
    (tau,) = run.compute(run.map(scores, Z, tail=(), dtype=Z.dtype))
    return tau if sample_weight is None else sample_weight * tau


def draw_centres(scores: Any, m: int, random_state: Any) -> list[int]:
    """``m`` distinct row numbers drawn without replacement with probabilities proportional to
    ``scores`` (rows of score 0 only once every other row is drawn), in the order drawn: the
    first ``r`` are themselves such a draw of ``r`` (the centres of a kernel of rank ``r``)."""
    tau = np.asarray(to_numpy(scores), dtype=np.float64)
    u = 1.0 - check_random_state(random_state).random_sample(tau.shape[0])  # in (0, 1]
    keys = np.full(tau.shape[0], -np.inf)
    positive = tau > 0
    keys[positive] = np.log(u[positive]) / tau[positive]
    return [int(i) for i in np.argsort(-keys, kind="stable")[:m]]

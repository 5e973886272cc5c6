"""scikit-learn's estimator checks on every SLKL estimator and baseline (NumPy input)."""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from lrkl import (
    KernelRidgeExact,
    KernelRidgeSubset,
    SLKLRegressor,
    SLKLRegressorCV,
    UniformRankOneRidge,
)

ESTIMATORS = [
    SLKLRegressor(),
    SLKLRegressor(mode="direct", selection="random", step="newton"),
    SLKLRegressorCV(nus=[1.0, 0.1, 0.01], cv=3),
    KernelRidgeExact(),
    KernelRidgeSubset(),
    UniformRankOneRidge(),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible(estimator, check):
    check(estimator)

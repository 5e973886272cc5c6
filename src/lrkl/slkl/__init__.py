"""Stochastic low-rank kernel learning (Machart et al., ICML 2011): solver and estimators."""

from lrkl.slkl._estimators import (
    SLKLClassifier,
    SLKLPath,
    SLKLRegressor,
    SLKLRegressorCV,
    UniformRankOneRidge,
    slkl_path,
)

__all__ = [
    "SLKLClassifier",
    "SLKLPath",
    "SLKLRegressor",
    "SLKLRegressorCV",
    "UniformRankOneRidge",
    "slkl_path",
]

"""Stochastic low-rank kernel learning (Machart et al., ICML 2011): solver and estimators."""

from lrkl.slkl._estimators import SLKLClassifier, SLKLRegressor
from lrkl.slkl._path import SLKLPath, SLKLRegressorCV, slkl_path
from lrkl.slkl._uniform import UniformRankOneRidge

__all__ = [
    "SLKLClassifier",
    "SLKLPath",
    "SLKLRegressor",
    "SLKLRegressorCV",
    "UniformRankOneRidge",
    "slkl_path",
]

"""lrkl: low-rank kernel learning on any array-API backend (NumPy, CuPy, PyTorch)."""

from lrkl import kernels
from lrkl._mklaren_estimators import MklarenRegressor
from lrkl._slkl_estimators import (
    KernelRidgeExact,
    KernelRidgeSubset,
    SLKLRegressor,
    SLKLRegressorCV,
    UniformRankOneRidge,
    slkl_path,
)

__all__ = [
    "KernelRidgeExact",
    "KernelRidgeSubset",
    "MklarenRegressor",
    "SLKLRegressor",
    "SLKLRegressorCV",
    "UniformRankOneRidge",
    "kernels",
    "slkl_path",
]
__version__ = "0.1.0.dev0"

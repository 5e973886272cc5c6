"""lrkl: low-rank kernel learning on any array-API backend (NumPy, CuPy, PyTorch)."""

from lrkl import kernels, lowrank, lpmkl
from lrkl.alignment import AlignmentKernelRidge
from lrkl.kernel_ridge import (
    KernelRidge,
    KernelRidgeCV,
    KernelRidgeSubset,
    LowRankRidge,
    LowRankRidgeClassifier,
    LowRankRidgeClassifierCV,
    LowRankRidgeCV,
    UniformKernelRidge,
)
from lrkl.lpmkl import LowRankMKLClassifier, LowRankMKLClassifierCV
from lrkl.mklaren import MklarenRegressor
from lrkl.slkl import SLKLClassifier, SLKLRegressor, SLKLRegressorCV, UniformRankOneRidge, slkl_path

__all__ = [
    "AlignmentKernelRidge",
    "KernelRidge",
    "KernelRidgeCV",
    "KernelRidgeSubset",
    "LowRankMKLClassifier",
    "LowRankMKLClassifierCV",
    "LowRankRidge",
    "LowRankRidgeCV",
    "LowRankRidgeClassifier",
    "LowRankRidgeClassifierCV",
    "MklarenRegressor",
    "SLKLClassifier",
    "SLKLRegressor",
    "SLKLRegressorCV",
    "UniformKernelRidge",
    "UniformRankOneRidge",
    "kernels",
    "lowrank",
    "lpmkl",
    "slkl_path",
]
__version__ = "0.1.0.dev0"

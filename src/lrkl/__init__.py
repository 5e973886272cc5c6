"""lrkl: low-rank kernel learning on any array-API backend (NumPy, CuPy, PyTorch)."""

from lrkl import kernels
from lrkl._mklaren_estimators import MklarenRegressor

__all__ = ["MklarenRegressor", "kernels"]
__version__ = "0.1.0.dev0"

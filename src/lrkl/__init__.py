"""lrkl: low-rank kernel learning on any array-API backend (NumPy, CuPy, PyTorch)."""

from lrkl import kernels

__all__ = ["kernels"]
__version__ = "0.1.0.dev0"

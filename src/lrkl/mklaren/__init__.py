"""Mklaren: multiple kernel learning with least-angle regression (Stražar & Curk 2016)."""

from lrkl.mklaren._estimator import MklarenRegressor

__all__ = ["MklarenRegressor"]

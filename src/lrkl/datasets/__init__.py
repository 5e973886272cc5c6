"""Data sets of the papers lrkl reproduces: generators, and loaders of the bundled files."""

from lrkl.datasets._slkl import RegressionDataset, load_abalone, load_boston, make_sinc

__all__ = ["RegressionDataset", "load_abalone", "load_boston", "make_sinc"]

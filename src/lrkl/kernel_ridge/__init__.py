"""Kernel ridge regression: the solver core and the estimators built on it."""

"""The synthetic problems of the benchmarks, as NumPy arrays: one definition each, seeded."""

from __future__ import annotations

import numpy as np


def gaussian_inputs(n, n_features, seed=0):
    """``n`` standard normal rows."""
    return np.random.default_rng(seed).standard_normal((n, n_features))


def sinc_2d(n, seed=0):
    """Inputs uniform on [−5, 5]² and ``sinc(‖x‖/π)`` plus noise of sd 0.1: SLKL's §5.1 problem at
    any n."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-5.0, 5.0, (n, 2))
    return X, np.sinc(np.linalg.norm(X, axis=1) / np.pi) + 0.1 * rng.standard_normal(n)


def smooth_regression(n, n_features=8, seed=0):
    """Standard normal inputs and a smooth target ``sin x₀ + x₁ x₂`` plus noise of sd 0.1."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, n_features))
    return X, np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.standard_normal(n)


def mklaren_regression(n, n_features=5, seed=0):
    """Centred inputs scaled to the Mklaren data sets' row norms (columns of norm √(n/100)) and
    ``sin 3x₀ + x₁`` plus noise of sd 0.1."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, n_features))
    X = (X - X.mean(axis=0)) / np.linalg.norm(X - X.mean(axis=0), axis=0) * np.sqrt(n / 100)
    return X, np.sin(3 * X[:, 0]) + X[:, 1] + 0.1 * rng.standard_normal(n)

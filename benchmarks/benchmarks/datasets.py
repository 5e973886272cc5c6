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


def median_sigma2(X, seed=0):
    """Half the median squared distance between (at most 1000) rows: the median heuristic σ²."""
    rows = np.random.default_rng(seed).choice(len(X), min(len(X), 1000), replace=False)
    d2 = ((X[rows, None] - X[None, rows]) ** 2).sum(-1)
    return float(np.median(d2[d2 > 0]) / 2)


def slkl_panel(names=None):
    """SLKL's benchmark panel as ``{name: (X, y, σ², M)}``: the 2-D sinc of §5.1 (n = 10⁴,
    M = 1000, σ² = 1), boston and abalone (the first of the paper's splits, Table 1's σ²,
    M = 350 and 1000) and synthetic problems in 5 and 20 dimensions (n = 10⁴, M = 1000,
    ``sin x₀ + cos(x₁x₂)/2`` plus noise of sd 0.1, median-heuristic σ²). ``names`` selects some."""
    from lrkl.datasets import load_abalone, load_boston, make_sinc

    makers = {"sinc": lambda: (*make_sinc(10_000, 1, random_state=0)[:2], 1.0, 1000)}
    for data, M in ((load_boston, 350), (load_abalone, 1000)):
        makers[data.__name__.removeprefix("load_")] = lambda data=data, M=M: _split(data(), M)
    for d in (5, 20):
        makers[f"synthetic {d}-D"] = lambda d=d: _synthetic(d)
    return {name: make() for name, make in makers.items() if names is None or name in names}


def _split(data, M):
    X, y, _, _ = data.split(random_state=0)
    return X, y, data.sigma2, M


def _synthetic(d):
    rng = np.random.default_rng(d)
    X = rng.standard_normal((10_000, d))
    y = np.sin(X[:, 0]) + 0.5 * np.cos(X[:, 1] * X[:, 2 % d]) + 0.1 * rng.standard_normal(10_000)
    return X, y, median_sigma2(X), 1000


def candidate_draw(n, M, draw):
    """Draw ``draw`` of the candidate set: M sorted row numbers out of n."""
    return sorted(np.random.default_rng(draw).choice(n, M, replace=False).tolist())

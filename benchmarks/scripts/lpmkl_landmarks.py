"""Landmarks shared by all kernels against each kernel its own, for LowRankMKLClassifier (ten
Gaussians γ = 2^k/d, k = −4 … 5, on standardised X; Newton on the squared hinge, p = 2, C = 1):
test accuracy and fit time on the paper's sets and on the synthetic problem of the MKL-at-scale
issue (X ~ N(0, I₁₀), y = sin(2x₀) + x₁x₂ + 0.3ε > 0).

    LRKL_DATA=... python benchmarks/scripts/lpmkl_landmarks.py --n 4000 --seeds 0 1 2
    python benchmarks/scripts/lpmkl_landmarks.py --sets synthetic --n 100000 --seeds 0
"""

from __future__ import annotations

import argparse
import time
import warnings

import _report
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from lrkl import LowRankMKLClassifier
from lrkl.datasets import load_lpmkl
from lrkl.kernels import Gaussian


def synthetic(n, seed):
    """n + min(n, 20 000) rows of the issue's synthetic problem."""
    rng = np.random.default_rng(seed)
    total = n + min(n, 20_000)
    X = rng.standard_normal((total, 10))
    y = (np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.standard_normal(total) > 0).astype(int)
    return X[:n], X[n:], y[:n], y[n:]


def split(name, n, seed):
    """n training rows of a set, the test rows the rest (at most n)."""
    if name == "synthetic":
        return synthetic(n, seed)
    data = load_lpmkl(name)
    n = min(n, data.X.shape[0] // 2)
    X_train, X_rest, y_train, y_rest = train_test_split(
        data.X, data.y, train_size=n, random_state=seed, stratify=data.y
    )
    return X_train, X_rest[:n], y_train, y_rest[:n]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=["svmguide1", "magic", "adult", "mushrooms"])
    parser.add_argument("--n", type=int, default=4000)
    parser.add_argument("--ranks", nargs="+", type=int, default=[50, 100])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--C", type=float, default=1.0)
    _report.add_rst_argument(parser, "lpmkl_landmarks")
    args = parser.parse_args()
    with _report.capture(args.rst):
        panel(args)


def panel(args):
    """One line per set, seed and rank: both schemes' test accuracy and fit seconds."""
    print("set | n | R | seed | shared acc | own acc | shared s | own s")
    for name in args.sets:
        for seed in args.seeds:
            X_train, X_test, y_train, y_test = split(name, args.n, seed)
            scaler = StandardScaler().fit(X_train)
            X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
            d = X_train.shape[1]
            kernels = [Gaussian(gamma=2.0**k / d) for k in range(-4, 6)]
            for R in args.ranks:
                cells = []
                for shared in (True, False):
                    model = LowRankMKLClassifier(
                        kernels, rank=R, C=args.C, shared_landmarks=shared, random_state=seed
                    )
                    start = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        model.fit(X_train, y_train)
                    seconds = time.perf_counter() - start
                    cells.append((model.score(X_test, y_test), seconds))
                print(
                    f"{name} | {len(y_train)} | {R} | {seed} | {cells[0][0]:.4f} | "
                    f"{cells[1][0]:.4f} | {cells[0][1]:.1f} | {cells[1][1]:.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()

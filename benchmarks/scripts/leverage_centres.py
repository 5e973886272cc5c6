"""Uniform Nyström centres against centres drawn by approximate ridge leverage scores, on the
regression panel's sets of more than 1 000 training rows (below, every row is a centre).

Per set and seed (the protocol of ``defaults.py``: a shuffle, the first 2/3 train, at most
8 000 rows, standardised features, raw ``y``): ``LowRankRidgeCV()`` at its defaults chooses the
width ``γ`` and ``α`` on uniform centres; then, at that ``γ``, two feature maps of 1 000 centres
are fitted by scikit-learn's ``RidgeCV`` (the same α grid, leave-one-out):

- ``uniform``: the 1 000 centres drawn uniformly (another draw than the search's);
- ``leverage``: 1 000 centres drawn without replacement with probabilities proportional to the
  rows' ridge leverage scores ``τ_i = z_iᵀ (ZᵀZ + αI)⁻¹ z_i``, approximated on the uniform
  features ``Z`` at the chosen ``α`` (the two-pass approximation of Alaoui & Mahoney 2015, of
  which Rudi et al.'s BLESS is the multi-scale refinement).

Prints the mean test R² of each and the difference per set.

    LRKL_DATA=... python benchmarks/scripts/leverage_centres.py --seeds 3
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np
from defaults import REGRESSION_SETS, load, split
from sklearn.linear_model import RidgeCV
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

import lrkl
from lrkl.kernels import Gaussian
from lrkl.lowrank import nystrom

CENTRES = 1000


def _fit_score(kernel, X, y, T, t, landmarks, alphas) -> float:
    factor = nystrom(kernel, X, CENTRES, landmarks=landmarks)
    ridge = RidgeCV(alphas=alphas).fit(factor.G, y)
    return float(ridge.score(factor.transform(T), t))


def one(name: str, seed: int) -> tuple[float, float] | None:
    X, y = load(name)
    X, T, y, t = split(X, y, seed, 8000, binarise=False)
    if X.shape[0] <= CENTRES:
        return None
    scaler = StandardScaler().fit(X)
    X, T = scaler.transform(X), scaler.transform(T)
    search = lrkl.LowRankRidgeCV(random_state=seed).fit(X, y)
    kernel = Gaussian(gamma=float(search.kernels_[0].gamma))
    alphas = np.asarray(search.alphas_)
    rng = np.random.default_rng(seed + 1)
    uniform = [int(i) for i in rng.permutation(X.shape[0])[:CENTRES]]
    Z = nystrom(kernel, X, CENTRES, landmarks=uniform).G
    Zc = Z - Z.mean(axis=0)
    gram = Zc.T @ Zc + search.alpha_ * np.eye(CENTRES)
    tau = np.einsum("ij,ji->i", Zc, np.linalg.solve(gram, Zc.T))
    p = np.maximum(tau, 0.0) / np.maximum(tau, 0.0).sum()
    leverage = [int(i) for i in rng.choice(X.shape[0], CENTRES, replace=False, p=p)]
    return (
        _fit_score(kernel, X, y, T, t, uniform, alphas),
        _fit_score(kernel, X, y, T, t, leverage, alphas),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    print(f"mean test R² over {args.seeds} seeds")
    print(f"{'set':11s} {'uniform':>8s} {'leverage':>9s} {'diff':>8s}")
    with threadpool_limits(1):
        for name in REGRESSION_SETS:
            runs = [r for seed in range(args.seeds) if (r := one(name, seed)) is not None]
            if not runs:
                continue
            u, lev = (statistics.mean(col) for col in zip(*runs, strict=True))
            print(f"{name:11s} {u:8.4f} {lev:9.4f} {lev - u:+8.4f}", flush=True)


if __name__ == "__main__":
    main()

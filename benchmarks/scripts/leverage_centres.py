"""Uniform Nyström centres against centres drawn by ridge leverage scores (``centers=``), on
the regression panel's sets of more than 1 000 training rows (below, every row is a centre).

Per set and seed (the protocol of ``defaults.py``: a shuffle, the first 2/3 train, at most
8 000 rows, standardised features, raw ``y``, one BLAS thread): ``LowRankRidgeCV()`` at its
defaults and ``LowRankRidgeCV(centers="leverage")``, both with ``random_state`` = the seed, so
that the leverage fit starts from the uniform fit's centres, width and α. Prints per set the mean
test R² of each over the seeds, their mean difference, the worst and the best seed's difference,
and the mean fit seconds of each.

    LRKL_DATA=... python benchmarks/scripts/leverage_centres.py --seeds 5
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

from defaults import REGRESSION_SETS, load, split
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

import lrkl

CENTRES = 1000


def one(name: str, seed: int) -> list[tuple[float, float]] | None:
    """(test R², fit seconds) of uniform and of leverage centres on one split."""
    X, y = load(name)
    X, T, y, t = split(X, y, seed, 8000, binarise=False)
    if X.shape[0] <= CENTRES:
        return None
    scaler = StandardScaler().fit(X)
    X, T = scaler.transform(X), scaler.transform(T)
    runs = []
    for centres in ("uniform", "leverage"):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = lrkl.LowRankRidgeCV(random_state=seed, centers=centres).fit(X, y)
        runs.append((float(model.score(T, t)), time.perf_counter() - start))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    print(f"test R² over {args.seeds} seeds (difference: leverage − uniform)")
    header = ("set", "uniform", "leverage", "mean diff", "worst", "best", "s uniform", "s lev")
    print("{:11s} {:>8s} {:>9s} {:>9s} {:>8s} {:>8s} {:>9s} {:>6s}".format(*header))
    with threadpool_limits(1):
        for name in REGRESSION_SETS:
            runs = [r for seed in range(args.seeds) if (r := one(name, seed)) is not None]
            if not runs:
                continue
            diffs = [lev[0] - uni[0] for uni, lev in runs]
            uniform, leverage = (statistics.mean(r[k][0] for r in runs) for k in (0, 1))
            seconds = (statistics.mean(r[k][1] for r in runs) for k in (0, 1))
            print(
                f"{name:11s} {uniform:8.4f} {leverage:9.4f} {statistics.mean(diffs):+9.4f}"
                f" {min(diffs):+8.4f} {max(diffs):+8.4f} {next(seconds):9.2f}"
                f" {next(seconds):6.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()

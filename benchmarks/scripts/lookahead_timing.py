"""Fit time of Mklaren and CSI in two checkouts of lrkl (best of 3 runs, alternating between
the checkouts), for a change to the look-ahead Cholesky they share.

    git worktree add /tmp/old REV
    python benchmarks/scripts/lookahead_timing.py /tmp/old .
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

BENCHMARKS = pathlib.Path(__file__).resolve().parents[1]

#: Runs in a fresh interpreter with one checkout's ``src`` first on the path.
MEASURE = f"""
import json, sys, time
sys.path.insert(0, {str(BENCHMARKS)!r})
from benchmarks.datasets import mklaren_regression, smooth_regression
from lrkl import MklarenRegressor, lowrank
from lrkl.kernels import Gaussian

def seconds(fit):
    start = time.perf_counter()
    fit()
    return time.perf_counter() - start

out = {{}}
kernels = [Gaussian(gamma=2.0**e) for e in range(-3, 4)]
for seed in (0, 1):
    for n, K in ((2000, 98), (10000, 14), (10000, 98)):
        X, y = mklaren_regression(n, seed=seed)
        model = MklarenRegressor(kernels, n_components=K, lookahead=10, alpha=1.0)
        out[f"mklaren n={{n}} K={{K}} seed={{seed}}"] = seconds(lambda: model.fit(X, y))
    for n in (10000, 100000):
        X, y = smooth_regression(n, seed=seed)
        fit = lambda: lowrank.csi(Gaussian(gamma=1 / 8), X, y, 50, lookahead=10)
        out[f"csi n={{n}} r=50 seed={{seed}}"] = seconds(fit)
print(json.dumps(out))
"""


def measure(tree: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(pathlib.Path(tree, "src").resolve())}
    run = subprocess.run(
        [sys.executable, "-c", MEASURE], cwd=tree, env=env, capture_output=True, text=True
    )
    if run.returncode:
        raise SystemExit(run.stderr)
    return json.loads(run.stdout)


def main() -> None:
    trees = {"before": sys.argv[1], "after": sys.argv[2]}
    best: dict[tuple[str, str], float] = {}
    for _ in range(3):
        for label, tree in trees.items():
            for case, seconds in measure(tree).items():
                best[label, case] = min(best.get((label, case), float("inf")), seconds)
    for case in sorted({case for _, case in best}):
        before, after = best["before", case], best["after", case]
        ratio = after / before
        print(f"{case:28s} before {before:7.3f} s  after {after:7.3f} s  ratio {ratio:5.2f}")


if __name__ == "__main__":
    main()

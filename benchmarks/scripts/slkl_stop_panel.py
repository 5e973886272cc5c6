"""Where SLKL's stopping rules stop, against the optimum, on a panel of problems and draws.

    python benchmarks/scripts/slkl_stop_panel.py

ν = 0.01, three draws of the candidate set S per problem: the 2-D sinc of §5.1 (n = 10⁴,
M = 1000, σ² = 1), boston and abalone (the paper's splits, Table 1's σ², M = 350 and 1000), and
two synthetic problems in 5 and 20 dimensions (n = 10⁴, M = 1000, σ² = half the median squared
distance). The optimum is the Gram form, greedy, exact steps run to a violation of 1e-8 (or
300·M iterations); each rule's objective gap and m0 are printed beside it. Not an asv benchmark:
a one-off table for the documentation.
"""

from __future__ import annotations

import time

import array_api_compat.numpy as xp
import numpy as np

from lrkl.datasets import load_abalone, load_boston, make_sinc
from lrkl.kernels import Gaussian
from lrkl.slkl._solver import slkl_problem, solve_slkl

NU = 0.01


def _median_sigma2(X: np.ndarray) -> float:
    rows = np.random.default_rng(0).choice(len(X), min(len(X), 1000), replace=False)
    d2 = ((X[rows, None] - X[None, rows]) ** 2).sum(-1)
    return float(np.median(d2[d2 > 0]) / 2)


def _problems() -> list[tuple[str, np.ndarray, np.ndarray, float, int]]:
    X, y, _, _ = make_sinc(10_000, 1, random_state=0)
    out = [("sinc", X, y, 1.0, 1000)]
    for data, M in ((load_boston(), 350), (load_abalone(), 1000)):
        X, y, _, _ = data.split(random_state=0)
        out.append((data.name, X, y, data.sigma2, M))
    for d in (5, 20):
        rng = np.random.default_rng(d)
        X = rng.standard_normal((10_000, d))
        y = (
            np.sin(X[:, 0])
            + 0.5 * np.cos(X[:, 1] * X[:, 2 % d])
            + 0.1 * rng.standard_normal(10_000)
        )
        out.append((f"synthetic {d}-D", X, y, _median_sigma2(X), 1000))
    return out


def main() -> None:
    rules = [("kkt", 1e-1), ("kkt", 1e-2), ("kkt", 1e-3), ("objective", 1e-4)]
    print(
        "| problem | draw | m0* | " + " | ".join(f"{s} {t:g}: gap, m0, s" for s, t in rules) + " |"
    )
    for name, X, y, sigma2, M in _problems():
        for draw in range(3):
            S = sorted(np.random.default_rng(draw).choice(len(X), M, replace=False).tolist())
            problem = slkl_problem(X, y, S, kernel=Gaussian(sigma2=sigma2), mode="gram", xp=xp)
            options = dict(nu=NU, selection="greedy", step="exact")
            best = solve_slkl(problem, **options, stop="kkt", tol=1e-8, max_iter=300 * M)
            cells = []
            for stop, tol in rules:
                start = time.perf_counter()
                result = solve_slkl(problem, **options, stop=stop, tol=tol)
                seconds = time.perf_counter() - start
                gap = (result.objective - best.objective) / best.objective
                cells.append(f"{gap:.1e}, {len(result.support)}, {seconds:.2f}")
            print(
                f"| {name} | {draw} | {len(best.support)} | " + " | ".join(cells) + " |", flush=True
            )


if __name__ == "__main__":
    main()

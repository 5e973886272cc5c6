"""SLKL's solvers on a panel of problems and draws: time and iterations to relative objective
gaps of 1e-4, 1e-6 and 1e-9 against the paper's algorithm, and where each stopping rule stops.

    python benchmarks/scripts/slkl_panel.py [--draws 3] [--cap 120] [--problems sinc boston]

ν = 0.01; the problems are ``slkl_panel`` of ``benchmarks/benchmarks/datasets.py`` (2-D sinc,
boston, abalone, synthetic 5-D and 20-D), each with ``--draws`` draws of the candidate set S
and of the coordinate sequence (draw d seeds both; boston's M = n makes its S the same in every
draw, so only the coordinates differ).
Every configuration starts from the data (its pass over the rows is timed) and is followed
through its callback: the time and iteration count at which F first falls within a gap of F*,
F* being the smallest F any run reached. A run stops at F ≤ F₀(1 + 1e-10), F₀ from the
active-set solver at tol 1e-9, or after ``--cap`` seconds (a gap it has not reached prints
as ``>cap``). Then the default (``SLKLRegressor``'s solver settings: active set, Gram form,
``stop="kkt"``, tol = 1e-3) and the paper's rule (objective, 1e-4) run to their own stops:
their gap to F* and m0 beside the optimum's. Not an asv benchmark (the paper's algorithm takes
minutes per problem); ``bench_slkl.Panel`` tracks the default's times and iterations.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import array_api_compat.numpy as xp

from lrkl.kernels import Gaussian
from lrkl.slkl._problems import slkl_problem
from lrkl.slkl._solver import solve_slkl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import _report

from benchmarks.datasets import candidate_draw, slkl_panel

NU = 0.01
GAPS = (1e-4, 1e-6, 1e-9)
PAPER = "paper (direct, random, newton)"
DEFAULT = "default (active set, gram)"
CONFIGS = {
    PAPER: dict(mode="direct", selection="random", step="newton", check_every=50),
    "gram, greedy, exact": dict(mode="gram", selection="greedy", step="exact", check_every=10),
    DEFAULT: dict(mode="gram", solver="active_set"),
    "active set, direct": dict(mode="direct", solver="active_set"),
}


def trajectory(X, y, S, kernel, f_zero, cap, seed, config):
    """``[(seconds, iteration, F)]`` of one configuration from the data until F ≤ F₀(1 + 1e-10)
    or ``cap`` seconds, and the final F; ``seed`` draws the coordinates of random selection."""
    config = dict(config)
    mode = config.pop("mode")
    points = []
    start = time.perf_counter()
    problem = slkl_problem(X, y, S, kernel=kernel, mode=mode, xp=xp)

    def monitor(state):
        points.append((time.perf_counter() - start, state.iteration, state.objective))
        return state.objective <= f_zero * (1 + 1e-10) or points[-1][0] > cap

    result = solve_slkl(
        problem, nu=NU, tol=0.0, max_iter=10**9, callback=monitor, seed=seed, **config
    )
    points.append((time.perf_counter() - start, result.n_iter, result.objective))
    return points


def first_within(points, f_star, gap):
    """(seconds, iterations) at which F first came within ``gap`` of F*, or None."""
    return next(((t, k) for t, k, f in points if f <= f_star * (1 + gap)), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--cap", type=float, default=120.0, help="seconds per run")
    parser.add_argument("--problems", nargs="*", default=None)
    _report.add_rst_argument(parser, "slkl_panel")
    args = parser.parse_args()
    with _report.capture(args.rst):
        panel(args)


def panel(args: argparse.Namespace) -> None:
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; nu = {NU}")
    ratios = {gap: [] for gap in GAPS}
    for name, (X, y, sigma2, M) in slkl_panel(args.problems).items():
        kernel = Gaussian(sigma2=sigma2)
        for draw in range(args.draws):
            S = candidate_draw(len(X), M, draw)
            problem = slkl_problem(X, y, S, kernel=kernel, mode="gram", xp=xp)
            f_zero = solve_slkl(
                problem, nu=NU, solver="active_set", stop="kkt", tol=1e-9, max_iter=20 * M
            ).objective
            runs = {
                c: trajectory(X, y, S, kernel, f_zero, args.cap, draw, o)
                for c, o in CONFIGS.items()
            }
            f_star = min(f for points in runs.values() for _, _, f in points)
            print(f"\n{name} (n = {len(X)}, M = {M}), draw {draw}: F* = {f_star:.12g}")
            print("| configuration | " + " | ".join(f"{g:g}: s (iterations)" for g in GAPS) + " |")
            print("|---|" + "---|" * len(GAPS))
            for config, points in runs.items():
                cells = []
                for gap in GAPS:
                    hit = first_within(points, f_star, gap)
                    cells.append(
                        f">{points[-1][0]:.1f}" if hit is None else f"{hit[0]:.3f} ({hit[1]})"
                    )
                print(f"| {config} | " + " | ".join(cells) + " |")
            for gap in GAPS:
                paper, ours = (first_within(runs[c], f_star, gap) for c in (PAPER, DEFAULT))
                if ours is not None:
                    bound = "" if paper is not None else ">="
                    seconds = paper[0] if paper is not None else runs[PAPER][-1][0]
                    ratios[gap].append((seconds / ours[0], bound, f"{name} {draw}"))
            optimum = solve_slkl(problem, nu=NU, solver="active_set", stop="kkt", tol=1e-9,
                                 max_iter=20 * M)  # fmt: skip
            m0_star = len(optimum.support)
            for label, options in (
                ("default stop (kkt 1e-3)", dict(solver="active_set", stop="kkt", tol=1e-3)),
                ("paper's stop (objective 1e-4), paper's algorithm",
                 dict(selection="random", step="newton", stop="objective", tol=1e-4)),
            ):  # fmt: skip
                result = solve_slkl(problem, nu=NU, seed=draw, **options)
                gap = (result.objective - f_star) / f_star
                print(
                    f"{label}: gap {gap:.1e}, m0 {len(result.support)} "
                    f"(optimum {m0_star}, {100 * (len(result.support) / m0_star - 1):+.0f} %)"
                )
    print("\nratio paper / default, time to the gap (worst, best over the panel):")
    for gap, values in ratios.items():
        values.sort()
        worst, best = values[0], values[-1]
        print(
            f"  {gap:g}: worst {worst[1]}{worst[0]:.0f}x ({worst[2]}), "
            f"best {best[1]}{best[0]:.0f}x ({best[2]}); all: "
            + ", ".join(f"{b}{r:.0f}" for r, b, _ in values)
        )


if __name__ == "__main__":
    main()

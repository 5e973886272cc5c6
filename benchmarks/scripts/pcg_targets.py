"""Issue 36's targets for Nyström kernel ridge by preconditioned CG (``solver="pcg"``).

- ``agree``: ``LowRankRidge(kernels=[Gaussian()], method="nystrom", rank=1000, random_state=0)``
  with ``solver="features"`` and ``solver="pcg"``, X standardised, raw y, on every regression set of
  the data home: the largest difference of their predictions on the training rows over the
  spread of the direct ones (target: 1e-6), and pcg's iterations (target: at most 50), at
  α = 1 and α = 0.1.
- ``mnist``: ``LowRankRidgeCV(kernels=[Gaussian(gamma=γ₀)], method="nystrom", rank=M,
  solver="pcg", memory_budget=10 GiB, random_state=0)`` on MNIST's 60 000 training rows
  (pixels / 255 in float32, ±1 targets of the 10 classes), argmax of ``predict`` on the 10 000
  test rows (target at M = 20 000: at most 1.6 % test error, fit at most 10 minutes, peak memory
  of the process at most 12 GiB).
- ``synthetic``: ``LowRankRidge(kernels=[Gaussian()], method="nystrom", rank=M, solver="pcg")``
  on n rows of X ~ N(0, I₁₀) in float32, y = sin(2x₀) + x₁x₂ + 0.3ε (issue 36's problem): test
  R² on 10⁵ rows, fit time, iterations, time per iteration, peak memory.

    LRKL_DATA=... python benchmarks/scripts/pcg_targets.py agree --rst
    LRKL_DATA=... python benchmarks/scripts/pcg_targets.py mnist --centres 5000 10000 --rst
    python benchmarks/scripts/pcg_targets.py synthetic --centres 5000 --budget 1 --rst
"""

from __future__ import annotations

import argparse
import io
import sys
import time
import warnings

import _report
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import r2_score
from sklearn.preprocessing import StandardScaler

from lrkl import LowRankRidge, LowRankRidgeCV
from lrkl.kernel_ridge._pcg import factor_bytes
from lrkl.kernels import Gaussian


def agree() -> None:
    from defaults import REGRESSION_SETS, load

    print(
        "solver=features vs pcg predictions on the training rows (X standardised, raw y), rank 1000"
    )
    print(f"{'set':11s} {'n':>6s} {'alpha':>6s} {'iters':>6s} {'max |diff| / spread':>20s}")
    worst, most = 0.0, 0
    for name in REGRESSION_SETS:
        X, y = load(name)
        X = StandardScaler().fit_transform(X)
        for alpha in (1.0, 0.1):
            kw = {"kernels": [Gaussian()], "rank": min(1000, X.shape[0]), "random_state": 0}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # rank clipped to n_samples
                direct = LowRankRidge(alpha=alpha, **kw).fit(X, y)
                pcg = LowRankRidge(alpha=alpha, solver="pcg", **kw).fit(X, y)
            p, q = direct.predict(X), pcg.predict(X)
            relative = float(np.max(np.abs(p - q)) / np.ptp(p))
            worst, most = max(worst, relative), max(most, pcg.n_iter_)
            print(f"{name:11s} {X.shape[0]:6d} {alpha:6g} {pcg.n_iter_:6d} {relative:20.2e}")
    print(f"worst: {worst:.2e} of the spread; most iterations: {most}")


def _time_parts() -> dict[str, list[float]]:
    """Wrap the pcg module's parts with timers (``--parts``): name → [seconds, calls]."""
    import lrkl.kernel_ridge._pcg as pcg

    totals: dict[str, list[float]] = {}

    def timed(owner: object, attribute: str, name: str) -> None:
        fn = getattr(owner, attribute)

        def wrapper(*args: object, **kwargs: object) -> object:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                entry = totals.setdefault(name, [0.0, 0])
                entry[0] += time.perf_counter() - start
                entry[1] += 1

        setattr(owner, attribute, wrapper)

    system = pcg.NystromSystem
    timed(system, "__init__", "the system: cache, K_MM, T, T Tᵀ (once)")
    timed(pcg, "cholesky_into", "blocked Cholesky: T once, then A per α")
    timed(pcg, "upper_gram", "T Tᵀ")
    timed(system, "solve", "CG solves, each with its A")
    timed(system, "normal_product", "passes over the rows (one per iteration)")
    timed(pcg, "solve_triangular", "triangular solves (four per iteration)")
    timed(system, "weighted", "right-hand sides (a pass per set of weights)")
    timed(system, "squared_errors", "validation errors (one pass)")
    return totals


def _by_time(item: tuple[str, list[float]]) -> float:
    return -item[1][0]


def _cache_word(rows: int, centres: int, budget: float, kernel_dtype: str | None) -> str:
    """Whether float32 rows' kernel blocks (in ``kernel_dtype``, None: float64) fit the budget
    beside the factors, and their dtype."""
    itemsize = 4 if kernel_dtype == "float32" else 8
    needed = factor_bytes(centres, 4) + itemsize * rows * centres
    where = "cached" if budget * 2**30 >= needed else "recomputed"
    return f"{where}, {kernel_dtype or 'float64'}"


def mnist(centres: int, budget: float, kernel_dtype: str | None) -> None:
    from lrkl.datasets import load_mnist

    digits = load_mnist()
    X = np.asarray(digits.X_train, dtype=np.float32)
    X_test = np.asarray(digits.X_test, dtype=np.float32)
    labels = np.asarray(digits.y_train)
    gamma = 1.0 / (X.shape[1] * float(X.var()))
    Y = -np.ones((X.shape[0], 10))
    Y[np.arange(X.shape[0]), labels] = 1.0
    model = LowRankRidgeCV(
        kernels=[Gaussian(gamma=gamma)],
        method="nystrom",
        rank=centres,
        solver="pcg",
        memory_budget=int(budget * 2**30),
        kernel_dtype=kernel_dtype,
        random_state=0,
    )
    start = time.perf_counter()
    model.fit(X, Y)
    seconds = time.perf_counter() - start
    error = float(np.mean(np.argmax(model.predict(X_test), axis=1) != digits.y_test))
    print(
        f"MNIST, 60 000 rows float32, M = {centres}, gamma = {gamma:.5f}, budget {budget} GiB "
        f"(kernel blocks {_cache_word(X.shape[0], centres, budget, kernel_dtype)})"
    )
    print(f"alphas {', '.join(f'{a:.3g}' for a in model.alphas_)}")
    print(f"hold-out MSE {', '.join(f'{row[0]:.4f}' for row in model.mse_path_)}")
    print(f"chosen alpha {model.alpha_:.3g}; final fit {model.n_iter_} iterations")
    peak = _report.peak_gib()
    print(f"test error {100 * error:.2f} %; fit {seconds:.0f} s; peak memory so far {peak:.2f} GiB")


class _Stamps(io.TextIOBase):
    """A stand-in for stderr that keeps each line ``verbose`` writes with its time."""

    def __init__(self) -> None:
        self.start, self.lines = time.perf_counter(), []

    def write(self, text: str) -> int:
        if text.strip():
            self.lines.append((time.perf_counter() - self.start, text.strip()))
        return len(text)

    def iterations(self) -> list[float]:
        """When each pcg iteration was reported, in seconds from the start."""
        return [t for t, line in self.lines if "] pcg iteration" in line]


def _fit_stamped(model: LowRankRidge, X: object, y: object) -> tuple[float, list[float]]:
    """Fit with ``verbose=1``; the fit's seconds and the times of its pcg iterations."""
    stamps, stderr = _Stamps(), sys.stderr
    sys.stderr = stamps
    try:
        model.set_params(verbose=1).fit(X, y)
    finally:
        sys.stderr = stderr
    return time.perf_counter() - stamps.start, stamps.iterations()


def _on_dask(workers: int, model: LowRankRidge, X: np.ndarray, y: np.ndarray) -> tuple:
    """The fit on a local Dask cluster of ``workers`` one-thread processes, X in chunks of
    5·10⁵ rows persisted on it; also the workers' peak memory (GiB)."""
    import dask.array as da
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, host="127.0.0.1", dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        X_chunks = da.from_array(X, chunks=(500_000, X.shape[1])).persist()
        y_chunks = da.from_array(y, chunks=500_000).persist()
        distributed.wait([X_chunks, y_chunks])
        seconds, iterations = _fit_stamped(model, X_chunks, y_chunks)
        peaks = list(client.run(_report.peak_gib).values())
    return seconds, iterations, peaks


def synthetic(
    rows: int,
    centres: int,
    budget: float,
    workers: int,
    iterations: int | None,
    kernel_dtype: str | None,
) -> None:
    rng = np.random.default_rng(7)
    X = rng.standard_normal((rows + 100_000, 10), dtype=np.float32)
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.standard_normal(X.shape[0])
    X, X_test, y, y_test = X[:rows], X[rows:], y[:rows], y[rows:]
    model = LowRankRidge(
        kernels=[Gaussian()],
        method="nystrom",
        rank=centres,
        solver="pcg",
        memory_budget=int(budget * 2**30),
        kernel_dtype=kernel_dtype,
    )
    if iterations is not None:  # a cap for timing the iterations: the fit does not converge
        model.set_params(pcg_max_iter=iterations)
        warnings.simplefilter("ignore", ConvergenceWarning)
    before = _report.peak_gib()
    if workers:
        seconds, iterations, peaks = _on_dask(workers, model, X, y)
        where = f"on Dask, {workers} worker process(es) of one thread"
    else:
        seconds, iterations = _fit_stamped(model, X, y)
        where = "in memory"
    score = r2_score(y_test, model.predict(X_test))
    cached = _cache_word(rows, centres, 0 if workers else budget, kernel_dtype)
    steps = np.diff(iterations)
    print(
        f"synthetic, {rows} rows of 10 features in float32, M = {centres}, alpha = 1, "
        f"memory_budget {budget} GiB (kernel blocks {cached}), {where}"
    )
    print(
        f"test R² {score:.4f}; fit {seconds:.0f} s, {model.n_iter_} iterations; set-up to the "
        f"first iteration {iterations[0]:.0f} s, per iteration median {np.median(steps):.1f} s "
        f"(range {steps.min():.1f}-{steps.max():.1f})"
    )
    print(
        f"peak memory of this process so far {_report.peak_gib():.2f} GiB ({before:.2f} GiB "
        "before the fit, with the data)"
        + (f"; workers' peaks {', '.join(f'{p:.2f}' for p in peaks)} GiB" if workers else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", choices=["agree", "mnist", "synthetic"])
    parser.add_argument("--centres", type=int, nargs="+", default=[20_000])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--budget", type=float, default=10.0, help="memory_budget in GiB")
    parser.add_argument("--parts", action="store_true", help="time the pcg solver's parts")
    parser.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=[0],
        help="synthetic: fit on a local Dask cluster of so many (0: in memory), one fit each",
    )
    parser.add_argument(
        "--kernel-dtype", choices=["float32"], help="the estimator's kernel_dtype (default None)"
    )
    parser.add_argument(
        "--iterations", type=int, help="synthetic: pcg_max_iter, to time a few iterations"
    )
    _report.add_rst_argument(parser, "pcg_{target}")
    args = parser.parse_args()
    with _report.capture(args.rst, target=args.target):
        if args.target == "agree":
            agree()
        elif args.target == "mnist":
            parts = _time_parts() if args.parts else None
            for centres in args.centres:
                mnist(centres, args.budget, args.kernel_dtype)
                for name, (seconds, calls) in sorted((parts or {}).items(), key=_by_time):
                    print(f"  {seconds:7.1f} s in {calls:4d} calls: {name}")
                (parts or {}).clear()
        else:
            for centres in args.centres:
                for workers in args.workers:
                    synthetic(
                        args.rows,
                        centres,
                        args.budget,
                        workers,
                        args.iterations,
                        args.kernel_dtype,
                    )


if __name__ == "__main__":
    main()

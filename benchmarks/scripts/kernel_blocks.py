"""What a Gaussian kernel block costs in each precision: the whole matrix ``K(X, Z)`` of ``X``
(20 000 × 10) against ``Z`` (1 000 × 10), best of 9, in float64, in float32, and in float32
computed through float64 (the inputs cast up, the block cast back): what accumulating the
distances in float64 would cost a float32 fit (docs/kernels.rst, the precision policy).

    OPENBLAS_NUM_THREADS=1 python benchmarks/scripts/kernel_blocks.py --rst
"""

from __future__ import annotations

import argparse

import _report
import numpy as np

from lrkl.kernels import Gaussian


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--centers", type=int, default=1_000)
    parser.add_argument("--repeats", type=int, default=9)
    _report.add_rst_argument(parser, "gaussian_blocks")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(args.n, 10)), rng.normal(size=(args.centers, 10))
    kernel = Gaussian(gamma=0.1)
    X32, Z32 = X.astype(np.float32), Z.astype(np.float32)
    runs = {
        "float64": lambda: kernel(X, Z),
        "float32": lambda: kernel(X32, Z32),
        "float32 through float64": lambda: kernel(
            X32.astype(np.float64), Z32.astype(np.float64)
        ).astype(np.float32),
    }
    with _report.capture(args.rst):
        print(f"K(X, Z), X {args.n} x 10, Z {args.centers} x 10, best of {args.repeats}")
        seconds = {name: _report.best_of(args.repeats, run)[1] for name, run in runs.items()}
        for name, value in seconds.items():
            print(f"{name:24s} {value:.4f} s  ({value / seconds['float32']:.2f} x float32)")


if __name__ == "__main__":
    main()

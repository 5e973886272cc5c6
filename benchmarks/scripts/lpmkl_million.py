"""LowRankMKLClassifier at a million rows: the MKL-at-scale issue's target problem.

1.2e6 rows of X ~ N(0, I₁₀) in float32 drawn with ``default_rng(7)``, the last 2e5 for testing,
y = sin(2x₀) + x₁x₂ + 0.3ε > 0; ten Gaussian kernels γ = 2^k/10 (k = −4 … 5), rank 100 each,
C = 1, the estimator's defaults otherwise. Prints the fit time, the peak resident memory of the
process (``ru_maxrss``, which includes the 0.05 GB of data) and the test accuracy.

    python benchmarks/scripts/lpmkl_million.py                # 1e6 training rows
    python benchmarks/scripts/lpmkl_million.py --n 100000     # a smaller run of the same
    python benchmarks/scripts/lpmkl_million.py --float64      # X in float64, float32 features

``--float64`` draws the same values and passes them in float64 with ``feature_dtype="float32"``:
what a float64 user does at this size (float64 features alone would be 7.5 GiB).
"""

from __future__ import annotations

import argparse
import resource
import time

import _report
import numpy as np

from lrkl import LowRankMKLClassifier
from lrkl.kernels import Gaussian


def data(n_train, n_test, seed=7):
    rng = np.random.default_rng(seed)
    total = n_train + n_test
    X = rng.standard_normal((total, 10), dtype=np.float32)
    noise = rng.standard_normal(total, dtype=np.float32)
    y = (np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * noise > 0).astype(int)
    return X[:n_train], X[n_train:], y[:n_train], y[n_train:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--n-test", type=int, default=200_000)
    parser.add_argument("--shared-landmarks", action="store_true")
    parser.add_argument("--float64", action="store_true", help="float64 X, float32 features")
    _report.add_rst_argument(parser, "lpmkl_million")
    args = parser.parse_args()
    with _report.capture(args.rst):
        X_train, X_test, y_train, y_test = data(args.n, args.n_test)
        feature_dtype = None
        if args.float64:
            X_train, X_test = X_train.astype(np.float64), X_test.astype(np.float64)
            feature_dtype = "float32"
        kernels = [Gaussian(gamma=2.0**k / 10) for k in range(-4, 6)]
        model = LowRankMKLClassifier(
            kernels,
            rank=100,
            C=1.0,
            shared_landmarks=args.shared_landmarks,
            feature_dtype=feature_dtype,
            random_state=0,
        )
        start = time.perf_counter()
        model.fit(X_train, y_train)
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB → GiB
        accuracy = model.score(X_test, y_test)
        print(
            f"n={args.n} {X_train.dtype} X, features {feature_dtype or X_train.dtype}, "
            f"10 kernels x rank 100, C=1, shared_landmarks="
            f"{args.shared_landmarks}: fit {seconds:.1f} s, peak memory {peak:.2f} GiB, test "
            f"accuracy {accuracy:.4f} ({model.n_iter_} weight updates, {model.n_svm_iter_} "
            f"Newton steps, weights {np.round(model.kernel_weights_, 3).tolist()})"
        )


if __name__ == "__main__":
    main()

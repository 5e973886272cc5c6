"""Every lrkl regressor with its default parameters, as a scikit-learn user first tries it.

Each estimator runs inside ``make_pipeline(StandardScaler(), estimator)`` on raw ``y``, beside
scikit-learn's ``KernelRidge(kernel="rbf")`` with its defaults, on a panel of data sets and
random splits; the table gives the mean test R² over the splits and the worst gap to
scikit-learn's. The target: no default more than 0.05 R² below ``KernelRidge``'s.

    python benchmarks/scripts/defaults.py [--seeds 3] [--n 3000]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import load_diabetes, make_friedman1, make_regression
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import lrkl
from lrkl.datasets import load_abalone, load_boston

ESTIMATORS = {
    "sklearn KernelRidge(rbf)": lambda: KernelRidge(kernel="rbf"),
    "SLKLRegressor": lrkl.SLKLRegressor,
    "SLKLRegressorCV": lrkl.SLKLRegressorCV,
    "KernelRidge": lrkl.KernelRidge,
    "KernelRidgeSubset": lrkl.KernelRidgeSubset,
    "UniformRankOneRidge": lrkl.UniformRankOneRidge,
    "LowRankRidge": lrkl.LowRankRidge,
    "LowRankRidgeCV": lrkl.LowRankRidgeCV,
    "UniformKernelRidge": lrkl.UniformKernelRidge,
    "AlignmentKernelRidge": lrkl.AlignmentKernelRidge,
    "MklarenRegressor": lrkl.MklarenRegressor,
}


def panel(n: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The data sets: (X, raw y)."""
    abalone, boston = load_abalone(), load_boston()
    return {
        "diabetes": load_diabetes(return_X_y=True),
        "friedman1": make_friedman1(n_samples=n, noise=1.0, random_state=0),
        "make_regression": make_regression(
            n_samples=n, n_features=8, n_informative=6, noise=20.0, random_state=0
        ),
        "abalone": (abalone.X, abalone.y),
        "boston": (boston.X, boston.y),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="random splits per data set")
    parser.add_argument("--n", type=int, default=3000, help="samples of the generated data sets")
    args = parser.parse_args()
    data = panel(args.n)
    r2: dict[tuple[str, str], list[float]] = {}
    seconds: dict[str, float] = dict.fromkeys(ESTIMATORS, 0.0)
    for name, (X, y) in data.items():
        for seed in range(args.seeds):
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=seed)
            for label, make in ESTIMATORS.items():
                model = make_pipeline(StandardScaler(), make())
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(X_tr, y_tr)
                seconds[label] += time.perf_counter() - start
                r2.setdefault((name, label), []).append(r2_score(y_te, model.predict(X_te)))
    names = list(data)
    print(f"test R² (mean over {args.seeds} splits), n_train: ", end="")
    print(", ".join(f"{k} {int(0.75 * data[k][0].shape[0])}" for k in names))
    print(
        f"{'estimator':26s}"
        + "".join(f"{k:>16s}" for k in names)
        + f"{'worst gap':>11s}{'fit s':>8s}"
    )
    reference = "sklearn KernelRidge(rbf)"
    for label in ESTIMATORS:
        means = [float(np.mean(r2[name, label])) for name in names]
        gaps = [float(np.min(np.subtract(r2[name, label], r2[name, reference]))) for name in names]
        worst = min(gaps)
        flag = "" if label == reference or worst >= -0.05 else "  MISSED"
        print(
            f"{label:26s}"
            + "".join(f"{m:16.3f}" for m in means)
            + f"{worst:11.3f}{seconds[label]:8.1f}{flag}"
        )


if __name__ == "__main__":
    main()

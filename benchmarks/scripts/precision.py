"""How far a fit on float32 (or float16) data is from the float64 fit of the same rounded values,
for every public estimator at its defaults: the measured side of the precision policy
(docs/backend.rst, "Precision policy").

Data drawn as the property tests draw them (``tests/test_properties.py``): 30–60 training rows
(``--rows``; the precision test draws 30–300) and 15 test rows, 2–4 normal features,
``y = sin x₀ + x₁ + 0.1·noise`` (classifiers: ``y`` split at its median into two labels). Per
draw and dtype ``t``, ``X``, ``y`` and the test rows are rounded to ``t``; the reference is the
fit on those values in float64. Reported per estimator: the largest and the median over the
draws of the largest difference of the outputs (predictions; decision values for classifiers;
``F Fᵀ`` of the test rows' features for LowRankFeatures) over their spread in the reference, and
the largest difference of the test score (R² or accuracy).

    python benchmarks/scripts/precision.py --draws 40 --rst
    python benchmarks/scripts/precision.py --draws 10 --rows 100 300 --rst precision_rows300
"""

from __future__ import annotations

import argparse
import warnings

import _report
import numpy as np
from sklearn.base import is_classifier

import lrkl
from lrkl.lowrank import LowRankFeatures

DEFAULTS = {
    "AlignmentKernelRidge()": lambda: lrkl.AlignmentKernelRidge(),
    'AlignmentKernelRidge(method="alignf")': lambda: lrkl.AlignmentKernelRidge(method="alignf"),
    "KernelRidge()": lambda: lrkl.KernelRidge(),
    "KernelRidgeCV()": lambda: lrkl.KernelRidgeCV(),
    "KernelRidgeSubset()": lambda: lrkl.KernelRidgeSubset(random_state=0),
    "LowRankFeatures()": lambda: LowRankFeatures(),
    "LowRankMKLClassifier()": lambda: lrkl.LowRankMKLClassifier(random_state=0),
    "LowRankRidge()": lambda: lrkl.LowRankRidge(),
    "LowRankRidgeCV()": lambda: lrkl.LowRankRidgeCV(),
    "LowRankRidgeClassifier()": lambda: lrkl.LowRankRidgeClassifier(),
    "LowRankRidgeClassifierCV()": lambda: lrkl.LowRankRidgeClassifierCV(),
    "MklarenRegressor()": lambda: lrkl.MklarenRegressor(),
    "SLKLClassifier()": lambda: lrkl.SLKLClassifier(random_state=0),
    "SLKLRegressor()": lambda: lrkl.SLKLRegressor(random_state=0),
    "SLKLRegressorCV()": lambda: lrkl.SLKLRegressorCV(random_state=0),
    "UniformKernelRidge()": lambda: lrkl.UniformKernelRidge(),
    "UniformRankOneRidge()": lambda: lrkl.UniformRankOneRidge(random_state=0),
}


def _draw(seed: int, n: int, d: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    X, T = rng.standard_normal((n, d)), rng.standard_normal((15, d))
    y, y_test = (np.sin(Z[:, 0]) + Z[:, 1] for Z in (X, T))
    return X, y + 0.1 * rng.standard_normal(n), T, y_test


def _outputs(model, T: np.ndarray, y_test: np.ndarray) -> tuple[np.ndarray, float]:
    """The compared output on the test rows (float64) and the test score."""
    if isinstance(model, LowRankFeatures):
        F = np.asarray(model.transform(T), dtype=np.float64)
        return F @ F.T, float("nan")
    out = model.decision_function(T) if is_classifier(model) else model.predict(T)
    return np.asarray(out, dtype=np.float64), float(model.score(T, y_test))


def _gap(make, dtype, X, y, T, y_test) -> tuple[float, float]:
    """(output difference over the reference's spread, score difference)."""
    Xr, yr, Tr = X.astype(dtype), y.astype(dtype), T.astype(dtype)
    if is_classifier(make()):
        cut = float(np.median(yr))
        yr, y_test = np.where(yr > cut, "b", "a"), np.where(y_test > cut, "b", "a")
    y_wide = yr if yr.dtype.kind == "U" else yr.astype(np.float64)
    fitted = make().fit(Xr.astype(np.float64), y_wide)
    reference, ref_score = _outputs(fitted, Tr.astype(np.float64), y_test)
    got, score = _outputs(make().fit(Xr, yr), Tr, y_test)
    spread = float(np.ptp(reference)) or 1.0
    return float(np.max(np.abs(got - reference))) / spread, abs(score - ref_score)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rows",
        type=int,
        nargs=2,
        default=(30, 60),
        metavar=("LOW", "HIGH"),
        help="training rows drawn uniformly in [LOW, HIGH] (default: the property tests' 30 60)",
    )
    _report.add_rst_argument(parser, "precision")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    low, high = args.rows
    draws = [
        (int(rng.integers(2**32)), int(rng.integers(low, high + 1)), int(rng.integers(2, 5)))
        for _ in range(args.draws)
    ]
    with _report.capture(args.rst):
        print(
            f"{args.draws} draws (seed {args.seed}, {low}–{high} rows); output gap / spread, score"
        )
        print(f"{'estimator':38s} {'dtype':8s} {'worst':>9s} {'median':>9s} {'score':>9s}")
        for name, make in DEFAULTS.items():
            for dtype in (np.float32, np.float16):
                gaps = []
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # convergence, a choice on a grid end
                    for seed, n, d in draws:
                        gaps.append(_gap(make, dtype, *_draw(seed, n, d)))
                out, score = np.array(gaps).T
                worst_score = "—" if np.all(np.isnan(score)) else f"{np.nanmax(score):9.1e}"
                print(
                    f"{name:38s} {np.dtype(dtype).name:8s} {out.max():9.1e} "
                    f"{np.median(out):9.1e} {worst_score:>9s}",
                    flush=True,
                )


if __name__ == "__main__":
    main()

"""Test R² of KernelRidge(CV)(method="cg") fitted on float32 data against the float64 fit of the
same rounded values (docs/backend.rst, the precision policy): four draws of 300 rows.

    python benchmarks/scripts/cg_float32.py
"""

from __future__ import annotations

import warnings

import numpy as np

from lrkl import KernelRidge, KernelRidgeCV


def main() -> None:
    warnings.simplefilter("ignore")
    for seed in range(4):
        rng = np.random.default_rng(seed)
        X, Xt = rng.normal(size=(300, 4)), rng.normal(size=(300, 4))
        y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=300)
        yt = np.sin(2 * Xt[:, 0]) + Xt[:, 1] * Xt[:, 2]
        X32, Xt32, y32 = X.astype(np.float32), Xt.astype(np.float32), y.astype(np.float32)
        for est in (KernelRidgeCV(method="cg"), KernelRidge(method="cg")):
            r64 = est.fit(X32.astype(float), y32.astype(float)).score(Xt32.astype(float), yt)
            r32 = est.fit(X32, y32).score(Xt32, yt.astype(np.float32))
            print(f"seed {seed} {type(est).__name__}: R² float64 {r64:.4f}, float32 {r32:.4f}")


if __name__ == "__main__":
    main()

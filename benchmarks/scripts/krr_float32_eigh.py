"""Is KernelRidgeCV's eigendecomposition a part that float32 data must compute in float64?

KernelRidgeCV chooses α by exact leave-one-out from one eigendecomposition ``K = U diag(s) Uᵀ``
(O(n³), most of its time) and computes the whole fit in float64 for float32 data
(docs/backend.rst, "Precision policy"). The cheaper alternative kept only the
eigendecomposition in float32: ``K`` computed exactly from the float32-rounded data, rounded to
float32 and decomposed in float32, the leave-one-out errors over the paper's grid
``α = n·λ, λ ∈ [1e-10, 1e5]`` and the coefficients in float64. This script measures how far
that puts the predictions from the all-float64 fit, for targets ``y = sin x₀ + x₁ + σ·noise``
at several noise levels σ (one Gaussian kernel, ``γ = 1/(d·Var X)``, ``y`` centred in place of
the intercept; 30–300 training rows and 15 test rows, 2–4 features):

    python benchmarks/scripts/krr_float32_eigh.py --draws 20
"""

from __future__ import annotations

import argparse

import numpy as np
import scipy.linalg
import scipy.spatial

LAMBDAS = np.logspace(-10, 5, 100)


def _gaussian(A: np.ndarray, B: np.ndarray, gamma: float) -> np.ndarray:
    return np.exp(-gamma * scipy.spatial.distance.cdist(A, B, "sqeuclidean"))


def _loo_fit(K: np.ndarray, y: np.ndarray, dtype: type) -> np.ndarray:
    """Dual coefficients at the λ of lowest leave-one-out error, with ``K``'s eigenpairs
    computed in ``dtype`` and everything else in float64."""
    s, U = (a.astype(np.float64) for a in scipy.linalg.eigh(K.astype(dtype)))
    Uy, UU, n = U.T @ y, U * U, len(y)
    errors = []
    for lam in LAMBDAS:
        shrink = s / (s + n * lam)
        residual = (y - U @ (shrink * Uy)) / (1.0 - UU @ shrink)
        errors.append(np.mean(residual**2))
    lam = LAMBDAS[int(np.nanargmin(errors))]
    return U @ (Uy / (s + n * lam))


def _gap(seed: int, noise: float) -> float:
    """The largest prediction difference over the float64 predictions' spread."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(30, 301)), int(rng.integers(2, 5))
    X, T = (rng.standard_normal((m, d)).astype(np.float32).astype(np.float64) for m in (n, 15))
    y = np.sin(X[:, 0]) + X[:, 1] + noise * rng.standard_normal(n)
    y = y.astype(np.float32).astype(np.float64)
    y = y - y.mean()
    gamma = 1.0 / (d * X.var())
    K, K_test = _gaussian(X, X, gamma), _gaussian(T, X, gamma)
    wide, low = (K_test @ _loo_fit(K, y, dtype) for dtype in (np.float64, np.float32))
    return float(np.max(np.abs(low - wide)) / np.ptp(wide))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--noise", type=float, nargs="+", default=[0.0, 1e-3, 1e-2, 1e-1])
    args = parser.parse_args()
    print(f"{args.draws} draws; prediction gap / spread of the float32-eigh fit")
    print(f"{'noise':>7s} {'worst':>9s} {'median':>9s} {'>1e-3':>6s}")
    for noise in args.noise:
        gaps = np.array([_gap(seed, noise) for seed in range(args.draws)])
        print(f"{noise:7.0e} {gaps.max():9.1e} {np.median(gaps):9.1e} {np.sum(gaps > 1e-3):6d}")


if __name__ == "__main__":
    main()

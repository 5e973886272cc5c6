"""The speed and memory targets of the Prato & Zanni issue, measured side by side.

    python benchmarks/scripts/krr_targets.py path      # 100-λ path with LOO vs one λ
    python benchmarks/scripts/krr_targets.py sklearn   # KernelRidgeCV vs GridSearchCV, cpusmall
    python benchmarks/scripts/krr_targets.py factor    # TIKH linear, poly: factor vs full SVD
    python benchmarks/scripts/krr_targets.py memory    # CG on the fly, n = 1e5: peak memory
    python benchmarks/scripts/krr_targets.py cg-default  # CG's test error against t: a default

Each prints one line per measurement. Timings are wall-clock seconds, best of ``--repeat``.
"""

from __future__ import annotations

import argparse
import resource
import time
import warnings

import _report
import numpy as np
from sklearn.kernel_ridge import KernelRidge as SklearnKernelRidge
from sklearn.model_selection import GridSearchCV

from lrkl import KernelRidge, KernelRidgeCV
from lrkl.datasets import PRATO_ZANNI_DATASETS, load_prato_zanni
from lrkl.kernel_ridge._exact import PAPER_LAMBDAS
from lrkl.kernel_ridge._methods import path_mse, regularization_path
from lrkl.kernel_ridge._regularization import (
    kernel_operator,
    solve_cgls,
    tikhonov_problem,
    tikhonov_problem_from_factor,
)
from lrkl.kernels import Gaussian, Linear, Polynomial


def _split(name, seed):
    data = load_prato_zanni(name)
    return data, data.split(random_state=seed)


def path(args):
    """Whole 100-λ path with exact LOO against one λ, RLS (7) and TIKH, Gaussian kernel."""
    import array_api_compat.numpy as xp

    from lrkl.kernel_ridge._methods import regularization_path

    for name in args.datasets:
        for seed in range(args.seeds):
            data, (X, y, _, _) = _split(name, seed)
            kernel = Gaussian(sigma2=data.sigma2)
            grid = tuple(X.shape[0] * lam for lam in PAPER_LAMBDAS)
            for method, one in (("rls", "eigh"), ("tikhonov", None)):
                _, t_path = _report.best_of(
                    args.repeat,
                    regularization_path,
                    X,
                    y,
                    kernel,
                    grid,
                    method=method,
                    bias="unpenalized",
                    loo=True,
                    xp=xp,
                )
                _, t_one = _report.best_of(
                    args.repeat,
                    regularization_path,
                    X,
                    y,
                    kernel,
                    grid[50:51],
                    method=method,
                    bias="unpenalized",
                    xp=xp,
                )
                line = (
                    f"{name} seed {seed} n {X.shape[0]} {method}: path {t_path:.3f}s, one λ "
                    f"{t_one:.3f}s, ratio {t_path / t_one:.3f}"
                )
                if one == "eigh":
                    model = KernelRidge(kernel, alpha=grid[50])
                    _, t_chol = _report.best_of(args.repeat, model.fit, X, y)
                    line += (
                        f"; one λ by Cholesky {t_chol:.3f}s, path / Cholesky {t_path / t_chol:.2f}"
                    )
                print(line, flush=True)


def sklearn(args):
    """KernelRidgeCV (100 λ, exact LOO) against GridSearchCV(sklearn KernelRidge) over the same
    λ, 5-fold, on cpusmall's 2/3 split (no bias in either: ``fit_intercept=False``)."""
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        data, (X, y, T, yt) = _split("cpusmall", seed)
        gamma = 1.0 / (2.0 * data.sigma2)
        grid = [X.shape[0] * lam for lam in PAPER_LAMBDAS]
        ours = KernelRidgeCV(Gaussian(gamma=gamma), fit_intercept=False, alphas=grid)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            _, t_ours = _report.best_of(1, ours.fit, X, y)
        err_ours = float(np.mean((ours.predict(T) - yt) ** 2))
        sub = grid[:: args.stride]
        search = GridSearchCV(
            SklearnKernelRidge(kernel="rbf", gamma=gamma),
            {"alpha": sub},
            cv=5,
            scoring="neg_mean_squared_error",
        )
        _, t_sk = _report.best_of(1, search.fit, X, y)
        err_sk = float(np.mean((search.predict(T) - yt) ** 2))
        scale = len(grid) / len(sub)
        print(
            f"cpusmall seed {seed} n {X.shape[0]}: KernelRidgeCV {t_ours:.1f}s (alpha_ "
            f"{ours.alpha_:.3g}, test MSE {err_ours:.4g}); GridSearchCV over {len(sub)} λ "
            f"{t_sk:.1f}s (alpha {search.best_params_['alpha']:.3g}, test MSE {err_sk:.4g}), "
            f"for 100 λ {t_sk * scale:.1f}s{' (extrapolated)' if scale > 1 else ''}; speed-up "
            f"{t_sk * scale / t_ours:.1f}×, error ratio {err_ours / err_sk:.4f}",
            flush=True,
        )


def factor(args):
    """Tikhonov through the kernel's feature map against the full thin SVD of ``[K 1]``: the
    linear kernel and polynomial kernels of degree 2 and 3 (γ = 1/d, c₀ = 1), cpusmall."""
    import array_api_compat.numpy as xp

    data = load_prato_zanni("cpusmall")
    X = data.X[: args.n]
    d = X.shape[1]
    kernels = {
        "linear": Linear(),
        "poly2": Polynomial(degree=2, gamma=1 / d, coef0=1.0),
        "poly3": Polynomial(degree=3, gamma=1 / d, coef0=1.0),
    }
    for name in args.kernels:
        kernel = kernels[name]
        _, t_factor = _report.best_of(
            args.repeat, lambda k=kernel: tikhonov_problem_from_factor(k.feature_map(X), xp=xp)
        )
        _, t_full = _report.best_of(1, lambda k=kernel: tikhonov_problem(k(X, X), xp=xp))
        print(
            f"cpusmall n {X.shape[0]} {name} ({kernel.feature_map(X[:1]).shape[1]} features): "
            f"factor {t_factor:.4f}s, full SVD {t_full:.1f}s, ratio {t_full / t_factor:.0f}×",
            flush=True,
        )


def memory(args):
    """CG on the fly with a Gaussian kernel at n = 1e5: peak resident memory of the process."""
    import array_api_compat.numpy as xp

    rng = np.random.default_rng(0)
    X = rng.standard_normal((args.n, 8))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(args.n)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    operator = kernel_operator(X, Gaussian(gamma=0.125), store=False, xp=xp)
    start = time.perf_counter()
    solve_cgls(operator, y, args.iterations)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        f"CG on the fly n {args.n}: {args.iterations} iteration(s) {seconds:.1f}s "
        f"({seconds / args.iterations:.1f}s each); peak RSS {peak / 2**20:.2f} GiB "
        f"(before CG {before / 2**20:.2f} GiB); K would take {args.n**2 * 8 / 2**30:.0f} GiB",
        flush=True,
    )


def cg_default(args):
    """KernelRidge(method="cg")'s test error at t = 5 … 200 over its best t ≤ 200, on the eight
    sets, ``--seeds`` splits each, Gaussian (gamma="scale") and linear kernels, raw targets."""
    import array_api_compat.numpy as xp

    candidates, rows = (5, 10, 20, 30, 50, 100, 200), []
    for name in PRATO_ZANNI_DATASETS:
        data = load_prato_zanni(name)
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            X, y, X_test, y_test = data.split(random_state=seed)
            for kernel in (Gaussian(gamma="scale").resolve(X), Linear()):
                path = regularization_path(
                    X, y, kernel, range(max(candidates)), method="cg", bias="unpenalized", xp=xp
                )
                mse = np.asarray(path_mse(path, kernel, X, X_test, y_test, xp=xp))
                rows.append([mse[t - 1] / mse.min() for t in candidates])
                print(
                    f"{name} {type(kernel).__name__} seed {seed}: best t {mse.argmin() + 1}; "
                    + " ".join(f"t={t} {r:.3f}" for t, r in zip(candidates, rows[-1], strict=True)),
                    flush=True,
                )
    ratios = np.array(rows)
    for j, t in enumerate(candidates):
        print(
            f"t = {t}: error / best, median {np.median(ratios[:, j]):.3f}, worst "
            f"{ratios[:, j].max():.3f}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("target", choices=("path", "sklearn", "factor", "memory", "cg-default"))
    parser.add_argument("--datasets", nargs="+", default=["abalone", "cpusmall", "space_ga", "mg"])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--stride", type=int, default=1, help="sklearn: time every stride-th λ")
    parser.add_argument("--n", type=int, default=None)
    parser.add_argument("--iterations", type=int, default=1)
    parser.add_argument(
        "--kernels", nargs="+", default=["linear", "poly2", "poly3"], help="factor: the kernels"
    )
    _report.add_rst_argument(parser, "krr_targets_{target}")
    args = parser.parse_args()
    if args.n is None:
        args.n = {"factor": 8192, "memory": 100_000}.get(args.target, 0)
    with _report.capture(args.rst, target=args.target.replace("-", "_")):
        globals()[args.target.replace("-", "_")](args)


if __name__ == "__main__":
    main()

"""``lrkl reproduce krr``: Prato & Zanni (2012), regularised kernel ridge regression with a bias.

The paper has no tables: its figures show test errors and times of RLS (systems (7) and (8)),
Tikhonov (TIKH) and CG on eight data sets with the linear and the Gaussian kernel, and test
error against λ or t; its four conclusions are the claims checked here.

Protocol: features standardised, target in its units; random 2/3 train, 1/3 test splits
(seeds 0, 1, …); the paper's 100 λ geometric in [1e-10, 1e5] (``α = nλ``) for RLS and TIKH,
t = 1 … 50 for CG. The Gaussian kernel is ``exp(−‖x − z‖²/d)`` (σ² = d/2, what
``gamma="scale"`` gives on standardised features; the paper does not give its σ). The
baselines are scikit-learn's ``KernelRidge`` (no bias) over λ = 1e5, 1e4, …, 1e-10 and
scikit-learn's ``SVR`` (libsvm; the paper used SVMlight) over the paper's 5 × 5 grid of
(C, ε) in [1, 500] × [1e-3, 1e-1].

Each method gets two errors: **best**, the lowest test MSE over its grid or path (what the
paper's figures show), and **chosen**, the test MSE at the value lrkl's ``KernelRidgeCV``
chooses from the training split alone (exact leave-one-out for RLS and TIKH, 5-fold for CG).
Times are those of the whole grid or path: one factorisation with the leave-one-out errors
for RLS and TIKH, one CGLS run of 50 iterations for CG (CG's 5-fold choice is timed
separately), every fit of the grid for the two scikit-learn baselines.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.kernel_ridge import KernelRidge as SklearnKernelRidge
from sklearn.svm import SVR

from lrkl import KernelRidgeCV
from lrkl._backend import to_numpy
from lrkl.datasets import PRATO_ZANNI_DATASETS, load_prato_zanni
from lrkl.experiments._common import (
    RunSettings,
    add_backend_argument,
    add_datasets_argument,
    format_table,
    mean_std,
    output_dir,
    progress,
    require_plotting,
)
from lrkl.kernel_ridge._exact import PAPER_LAMBDAS
from lrkl.kernel_ridge._methods import path_mse, regularization_path
from lrkl.kernels import Gaussian, Kernel, Linear

DESCRIPTION = "Regularised KRR with a bias (Prato & Zanni 2012): errors, times, curves, verdicts"

#: Our methods: (label, method, bias).
METHODS = (
    ("RLS (7)", "rls", "unpenalized"),
    ("RLS (8)", "rls", "penalized"),
    ("TIKH", "tikhonov", "penalized"),
    ("CG", "cg", "penalized"),
)
BASELINES = ("sklearn KRR", "SVR")
KERNELS = ("linear", "gaussian")
CG_ITERATIONS = 50
SKLEARN_LAMBDAS = tuple(10.0**e for e in range(5, -11, -1))
SVR_GRID = tuple(
    (C, eps)
    for C in np.geomspace(1, 500, 5).tolist()
    for eps in np.geomspace(1e-3, 1e-1, 5).tolist()
)
#: The relative margin of the flatness measure: the share of a curve within 10 % of its minimum.
FLAT_MARGIN = 1.1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lrkl reproduce krr``."""
    parser.add_argument(
        "--splits",
        type=int,
        default=None,
        help="random splits per data set (default: 3; 1 with --quick)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one split, at most 600 training rows per data set, SVR on its 3 corner settings",
    )
    add_datasets_argument(parser, PRATO_ZANNI_DATASETS, "the data sets to run")
    add_backend_argument(parser)


def _kernel(name: str, sigma2: float) -> Kernel:
    return Linear() if name == "linear" else Gaussian(sigma2=sigma2)


def _one_split(data: Any, split: int, kernel_name: str, settings: KRRSettings) -> dict:
    """Errors, times and curves of every method on one split with one kernel."""
    xp, timer = settings.xp, settings.timed
    X_tr, y_tr, X_te, y_te = data.split(random_state=split)
    if settings.cap is not None:
        X_tr, y_tr = X_tr[: settings.cap], y_tr[: settings.cap]
    n = X_tr.shape[0]
    kernel = _kernel(kernel_name, data.sigma2)
    Xb, yb, Tb = (settings.put(a) for a in (X_tr, y_tr, X_te))
    out: dict[str, dict[str, Any]] = {}
    for label, method, bias in METHODS:
        grid = (
            tuple(range(1, CG_ITERATIONS + 1))
            if method == "cg"
            else tuple(n * lam for lam in PAPER_LAMBDAS)
        )
        path, seconds = timer(
            regularization_path,
            Xb,
            yb,
            kernel,
            grid,
            method=method,
            bias=bias,
            loo=method != "cg",
            xp=xp,
        )
        curve = to_numpy(path_mse(path, kernel, Xb, Tb, settings.put(y_te), xp=xp))
        if method == "cg":
            search = KernelRidgeCV(kernel, method="cg", max_iter=CG_ITERATIONS)
            model, chosen_seconds = timer(search.fit, Xb, yb)
            chosen = curve[model.n_iter_ - 1]
        else:
            chosen = curve[int(np.argmin(to_numpy(path.loo_mse)))]
            chosen_seconds = seconds
        out[label] = {
            "best": float(curve.min()),
            "chosen": float(chosen),
            "seconds": seconds,
            "chosen_seconds": chosen_seconds,
            "curve": curve,
        }
    gamma = getattr(kernel, "gamma", None)
    sk_kernel = (
        {"kernel": "linear"} if kernel_name == "linear" else {"kernel": "rbf", "gamma": gamma}
    )
    errors, start = [], time.perf_counter()
    for lam in SKLEARN_LAMBDAS:
        model = SklearnKernelRidge(alpha=n * lam, **sk_kernel).fit(X_tr, y_tr)
        errors.append(float(np.mean((model.predict(X_te) - y_te) ** 2)))
    out["sklearn KRR"] = {"best": min(errors), "seconds": time.perf_counter() - start}
    grid = [SVR_GRID[i] for i in (0, 12, 24)] if settings.quick else SVR_GRID
    errors, start = [], time.perf_counter()
    for C, eps in grid:
        model = SVR(C=C, epsilon=eps, **sk_kernel).fit(X_tr, y_tr)
        errors.append(float(np.mean((model.predict(X_te) - y_te) ** 2)))
    out["SVR"] = {"best": min(errors), "seconds": time.perf_counter() - start}
    out["n_train"] = n
    return out


def _flatness(curve: np.ndarray) -> float:
    """The share of a curve's points within ``FLAT_MARGIN`` of its minimum."""
    return float(np.mean(curve <= FLAT_MARGIN * curve.min()))


def _mean(results: list[dict], label: str, key: str) -> float:
    return float(np.mean([r[label][key] for r in results]))


def _tables(results: dict) -> str:
    """The error and time tables, one row per (data set, kernel)."""
    labels = [m[0] for m in METHODS] + list(BASELINES)
    err_rows, time_rows = [], []
    for (name, kernel_name), runs in results.items():
        head = [name, kernel_name, runs[0]["n_train"]]
        err_rows.append(
            head
            + [mean_std([r[lab]["best"] for r in runs]) for lab in labels]
            + [mean_std([r[m[0]]["chosen"] for r in runs]) for m in METHODS]
        )
        time_rows.append(
            head
            + [f"{_mean(runs, lab, 'seconds'):.3g}" for lab in labels]
            + [f"{_mean(runs, 'CG', 'chosen_seconds'):.3g}"]
        )
    err = format_table(
        [
            "data",
            "kernel",
            "n_train",
            *(f"{lab} best" for lab in labels),
            *(f"{m[0]} chosen" for m in METHODS),
        ],
        err_rows,
    )
    tim = format_table(
        ["data", "kernel", "n_train", *(f"{lab} s" for lab in labels), "CG 5-fold s"], time_rows
    )
    return (
        f"Test MSE (mean ± std over splits)\n\n{err}\n\nSeconds per grid or path (mean)\n\n{tim}\n"
    )


def _verdicts(results: dict) -> str:
    """The paper's four conclusions, each measured on this run."""
    lines = []
    ours = [m[0] for m in METHODS]
    faster = [
        (k, min(_mean(r, lab, "seconds") for lab in ours) < _mean(r, "SVR", "seconds"))
        for k, r in results.items()
    ]
    won = sum(ok for _, ok in faster)
    # The fastest of ours whose best test error reaches SVR's, against SVR's whole grid.
    sooner = []
    for r in results.values():
        reach = [lab for lab in ours if _mean(r, lab, "best") <= _mean(r, "SVR", "best")]
        if reach:
            sooner.append(
                _mean(r, "SVR", "seconds") / min(_mean(r, lab, "seconds") for lab in reach)
            )
    lines.append(
        f"1. 'Regularization approaches are faster than SVM': the fastest of RLS/TIKH/CG beats "
        f"SVR's 5×5 grid on {won} of {len(faster)} (data, kernel) pairs. One of them reaches "
        f"SVR's best test error on {len(sooner)} of {len(faster)} pairs"
        + (
            f", sooner by {min(sooner):.3g}× (worst) to {max(sooner):.3g}× (best). "
            if sooner
            else ". "
        )
        + ("HOLDS." if won == len(faster) else "DOES NOT HOLD everywhere.")
    )
    lin = {k[0]: r for k, r in results.items() if k[1] == "linear"}
    gau = {k[0]: r for k, r in results.items() if k[1] == "gaussian"}
    tikh_lin = [
        n for n, r in lin.items() if _mean(r, "TIKH", "seconds") < _mean(r, "RLS (7)", "seconds")
    ]
    tikh_gau = [
        n for n, r in gau.items() if _mean(r, "TIKH", "seconds") > _mean(r, "RLS (7)", "seconds")
    ]
    lines.append(
        f"2. 'TIKH outperforms RLS for rank-deficient kernels, while it becomes heavier if the "
        f"full SVD has to be computed': TIKH is faster than RLS (7) with the linear kernel on "
        f"{len(tikh_lin)} of {len(lin)} sets and slower with the Gaussian on {len(tikh_gau)} of "
        f"{len(gau)}. "
        + ("HOLDS." if len(tikh_lin) == len(lin) and len(tikh_gau) == len(gau) else "PARTLY.")
    )
    cg_fastest = [
        k
        for k, r in results.items()
        if all(_mean(r, "CG", "seconds") < _mean(r, lab, "seconds") for lab in ours[:3])
    ]
    large = [k for k, r in results.items() if r[0]["n_train"] >= 1000]
    cg_large = [k for k in large if k in cg_fastest]
    lines.append(
        f"3. 'CG is always the faster': CG's 50-iteration path is faster than RLS (7), RLS (8) and "
        f"TIKH on {len(cg_fastest)} of {len(results)} (data, kernel) pairs, and on "
        f"{len(cg_large)} of {len(large)} with n_train ≥ 1000. "
        + ("HOLDS." if len(cg_fastest) == len(results) else "HOLDS ONLY IN PART.")
    )
    flat_tikh = flat_cg = 0
    for r in gau.values():
        rls = np.mean([_flatness(s["RLS (7)"]["curve"]) for s in r])
        flat_tikh += np.mean([_flatness(s["TIKH"]["curve"]) for s in r]) > rls
        flat_cg += np.mean([_flatness(s["CG"]["curve"]) for s in r]) > rls
    lines.append(
        f"4. 'TIKH and CG provide flatter error vs λ / t curves': with the Gaussian kernel, the "
        f"share of the grid within {FLAT_MARGIN - 1:.0%} of the lowest test error is larger than "
        f"RLS (7)'s for TIKH on {flat_tikh} of {len(gau)} sets and for CG on {flat_cg} of "
        f"{len(gau)}. " + ("HOLDS." if flat_tikh == flat_cg == len(gau) else "PARTLY.")
    )
    return "\n".join(lines) + "\n"


def _figures(results: dict, out: Path) -> list[Path]:
    """Test error against λ (RLS, TIKH) and against t (CG), Gaussian kernel, first split."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gau = {k[0]: r[0] for k, r in results.items() if k[1] == "gaussian"}
    paths = []
    for which, labels, xlabel, fname in (
        ("λ", ("RLS (7)", "RLS (8)", "TIKH"), "λ", "krr_error_vs_lambda.png"),
        ("t", ("CG",), "t (CG iterations)", "krr_error_vs_t.png"),
    ):
        cols = min(4, len(gau))
        rows = -(-len(gau) // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3 * rows), squeeze=False)
        for ax, (name, r) in zip(axes.flat, gau.items(), strict=False):
            for label in labels:
                curve = r[label]["curve"]
                x = PAPER_LAMBDAS if which == "λ" else range(1, len(curve) + 1)
                ax.plot(x, curve, label=label)
            if which == "λ":
                ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(name)
            ax.set_xlabel(xlabel)
            ax.set_ylabel("test MSE")
        for ax in list(axes.flat)[len(gau) :]:
            ax.set_visible(False)
        axes.flat[0].legend()
        fig.tight_layout()
        path = out / fname
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)
    return paths


@dataclass(frozen=True)
class KRRSettings(RunSettings):
    """One run of ``lrkl reproduce krr``."""

    splits: int  # random splits per data set
    cap: int | None  # at most this many training rows (--quick)
    datasets: tuple[str, ...]


def _settings(args: argparse.Namespace) -> KRRSettings:
    return KRRSettings(
        **RunSettings.common(args),
        splits=args.splits if args.splits is not None else (1 if args.quick else 3),
        cap=600 if args.quick else None,
        datasets=tuple(args.datasets),
    )


def run(args: argparse.Namespace) -> int:
    """Run the experiment and write ``krr.md`` and the figures to ``--out``."""
    require_plotting()
    settings = _settings(args)
    jobs = [
        (name, s, k) for name in settings.datasets for k in KERNELS for s in range(settings.splits)
    ]
    loaded = {name: load_prato_zanni(name) for name in settings.datasets}
    results: dict[tuple[str, str], list[dict]] = {}
    for name, s, k in progress(jobs, len(jobs), "krr"):
        results.setdefault((name, k), []).append(_one_split(loaded[name], s, k, settings))
    out = output_dir(settings.out)
    quick_note = " (quick: at most 600 training rows)" if settings.cap else ""
    report = (
        f"# Prato & Zanni (2012), reproduced by lrkl on {settings.backend}\n\n"
        f"{settings.splits} split(s) per data set{quick_note}.\n\n"
        + _tables(results)
        + "\n## The paper's conclusions, measured\n\n"
        + _verdicts(results)
    )
    (out / "krr.md").write_text(report, encoding="utf-8")
    figures = _figures(results, out)
    sys.stdout.write(report)
    sys.stdout.write("\nWrote " + ", ".join(str(p) for p in [out / "krr.md", *figures]) + "\n")
    return 0

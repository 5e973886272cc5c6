"""``lrkl reproduce lp-mkl``: ℓp-norm MKL with low-rank kernels (Rakotomamonjy & Chanda).

The paper's experiments (§5): 70/30 stratified splits; Gaussian kernels with σ log-spaced in
[1, 100] (``γ = 1/(2σ²)``) on standardised features; C = 1000; the MKL loop stops when no
weight changes by more than 1e-4, each SVM solve when its objective changes by less than 1e-4
relative, or after 3000 iterations. Regenerated here:

- **Figures 1–4**: test accuracy and time (low-rank features included) against the rank, for
  p = 2 with 50 kernels (Figures 1–2, the paper's text) and p = 1.1 with 20 kernels (Figures
  3–4, their captions), beside the exact full-kernel MKL (``SVC(kernel="precomputed")``
  alternated with eq. (3): the problem SMO-MKL solves) where its ``m`` kernel matrices fit in
  ``--exact-memory``;
- **Figure 5**: time against the number of kernels at rank 100;
- **Figure 6**: GFB against the interior-point method (Clarabel) on problem (6) at R = 500,
  m = 10, ``d_k = 1/m``, against the number of training rows;
- **Figure 7**: split against naive GFB on problem (6) at m = 20, R = 500;
- **the solvers table**: GFB, liblinear and the interior point inside the MKL loop, C = 1 and
  C = 1000, accuracy and time.

Training sets are capped at ``--max-train`` rows (the paper's full sets, up to 34 000
training rows with 50 kernels, are hours of a two-core machine); ``--quick`` shrinks every
size and kernel count so that the whole run takes about a minute. ``lpmkl.md`` is rewritten
after every split and section, so a run stopped midway keeps what it measured; the figures are
drawn at the end.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

from lrkl._backend import to_numpy
from lrkl.datasets import LPMKL_DATASETS, get_data_home, load_lpmkl
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
from lrkl.kernels import Gaussian, Kernel
from lrkl.lowrank import LowRankFeatures
from lrkl.lpmkl import SVM_SOLVERS, LowRankMKLClassifier, svm_problem
from lrkl.lpmkl._gfb import _svm_dual_objective
from lrkl.lpmkl._host_solvers import require_clarabel

DESCRIPTION = "ℓp-norm MKL with low-rank kernels (Rakotomamonjy & Chanda): Figures 1–7"

C_PAPER = 1000.0
TOL_PAPER = 1e-4
#: (p, number of kernels) of Figures 1–2 and 3–4.
SWEEPS = ((2.0, 50), (1.1, 20))


class Sizes(NamedTuple):
    """Every size of one run of the experiment."""

    runs: int
    max_train: int
    max_test: int
    ranks: tuple[int, ...]
    sweeps: tuple[tuple[float, int], ...]
    kernel_counts: tuple[int, ...]  # Figure 5
    kernel_count_rank: int
    solver_rows: tuple[int, ...]  # Figures 6 and 7
    ip_rank: int
    naive_rank: int
    solver_table: tuple[int, int, int, tuple[float, ...]]  # n, m, R, C values


FULL = Sizes(
    runs=3,
    max_train=2000,
    max_test=5000,
    ranks=(10, 25, 50, 100),
    sweeps=SWEEPS,
    kernel_counts=(5, 10, 20, 50),
    kernel_count_rank=100,
    solver_rows=(500, 1000, 2000),
    ip_rank=500,
    naive_rank=500,
    solver_table=(1000, 10, 40, (1.0, C_PAPER)),
)
QUICK = Sizes(
    runs=1,
    max_train=300,
    max_test=1000,
    ranks=(10, 40),
    sweeps=((2.0, 10), (1.1, 5)),
    kernel_counts=(2, 5, 10),
    kernel_count_rank=20,
    solver_rows=(200, 400),
    ip_rank=100,
    naive_rank=25,
    solver_table=(300, 5, 20, (1.0,)),
)


def paper_kernels(m: int) -> list[Kernel]:
    """The paper's ``m`` Gaussian kernels, σ log-spaced in [1, 100] (``γ = 1/(2σ²)``)."""
    return [Gaussian(gamma=1.0 / (2.0 * s**2)) for s in np.logspace(0, 2, m)]


def full_kernel_mkl(
    Ks: list[np.ndarray],
    y: np.ndarray,
    C: float,
    p: float,
    *,
    weight_tol: float = TOL_PAPER,
    svc_tol: float = 1e-3,
    max_iter: int = 200,
) -> tuple[np.ndarray, SVC, int]:
    """Exact ℓp-MKL on full kernel matrices (what SMO-MKL solves): ``SVC(kernel="precomputed")``
    on ``Σ d_k K_k`` alternated with eq. (3), ``‖f_k‖² = d_k² αᵀYK_kYα``, from ``d_k = m^{−1/p}``
    until no weight changes by more than ``weight_tol``.

    Returns the weights, the last SVC (fitted on the kernel of the weights before the last
    update, which differ by at most ``weight_tol``) and the number of weight updates.
    """
    m = len(Ks)
    d = np.full(m, m ** (-1.0 / p))
    for iteration in range(1, max_iter + 1):
        svc = SVC(kernel="precomputed", C=C, tol=svc_tol).fit(
            sum(dk * K for dk, K in zip(d, Ks, strict=True)), y
        )
        beta = np.zeros(len(y))
        beta[svc.support_] = svc.dual_coef_[0]  # y_i α_i
        norms2 = np.array([dk**2 * beta @ K @ beta for dk, K in zip(d, Ks, strict=True)])
        new = norms2 ** (1 / (p + 1)) / np.sum(norms2 ** (p / (p + 1))) ** (1 / p)
        converged = np.max(np.abs(new - d)) < weight_tol
        if converged:
            return d, svc, iteration
        d = new
    return d, svc, max_iter


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lrkl reproduce lp-mkl``."""
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one run, 300 training rows, 10 and 5 kernels, small ranks: about a minute",
    )
    add_datasets_argument(
        parser,
        LPMKL_DATASETS,
        "the data sets of Figures 1–4 (those missing from the data home are skipped)",
    )
    parser.add_argument("--runs", type=int, default=None, help="splits per data set (default 3)")
    parser.add_argument(
        "--max-train", type=int, default=None, help="training rows per split (default 2000)"
    )
    parser.add_argument(
        "--ranks", type=int, nargs="+", default=None, help="ranks R (default 10 25 50 100)"
    )
    parser.add_argument(
        "--exact-memory",
        type=float,
        default=4.0,
        help="GiB the exact MKL's m kernel matrices may take; larger problems skip it",
    )
    add_backend_argument(parser)


#: Each data set read once per command, however many splits and sections use it.
_load = functools.lru_cache(maxsize=None)(load_lpmkl)


def _split(name: str, run: int, sizes: Sizes) -> tuple[np.ndarray, ...]:
    """The 70/30 stratified split of ``run``, training and test rows capped."""
    data = _load(name)
    X_tr, X_te, y_tr, y_te = train_test_split(
        data.X, data.y, test_size=0.3, stratify=data.y, random_state=run
    )
    train, test = slice(sizes.max_train), slice(sizes.max_test)
    return X_tr[train], y_tr[train], X_te[test], y_te[test]


def _low_rank(split, kernels, R, p, C, solver, run, settings: LpMKLSettings) -> dict:
    """Fit ``LowRankMKLClassifier`` with the paper's settings (its stopping rule, and GFB in the
    paper's unit of α): seconds, accuracy, updates."""
    X_tr, y_tr, X_te, y_te = (settings.put(a) for a in split)
    model = LowRankMKLClassifier(
        kernels,
        rank=R,
        p=p,
        C=C,
        loss="hinge",
        shared_landmarks=True,
        solver=solver,
        tol=TOL_PAPER,
        stop="change",
        alpha_scale=1.0,
        random_state=run,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # non-convergence is reported in the table
        _, seconds = settings.timed(model.fit, X_tr, y_tr)
    accuracy = float(np.mean(to_numpy(model.predict(X_te)) == to_numpy(y_te)))
    return {
        "seconds": seconds,
        "accuracy": accuracy,
        "updates": model.n_iter_,
        "gap": model.duality_gap_,
    }


def _exact(split, kernels, p, C, memory_gib) -> dict | None:
    """The exact full-kernel MKL, or None when its kernel matrices exceed ``memory_gib``."""
    X_tr, y_tr, X_te, y_te = split
    if len(kernels) * X_tr.shape[0] ** 2 * 8 > memory_gib * 2**30:
        return None
    y_pm = np.where(y_tr > 0, 1.0, -1.0)
    start = time.perf_counter()
    Ks = [k(X_tr, X_tr) for k in kernels]
    d, svc, updates = full_kernel_mkl(Ks, y_pm, C, p)
    del Ks
    K_test = sum(dk * k(X_te, X_tr) for dk, k in zip(d, kernels, strict=True))
    accuracy = float(np.mean(svc.predict(K_test) == np.where(y_te > 0, 1.0, -1.0)))
    return {"seconds": time.perf_counter() - start, "accuracy": accuracy, "updates": updates}


def _rank_sweeps(settings: LpMKLSettings, results: dict, done: Any) -> None:
    """Figures 1–4 into ``results``: {(p, m, name): {"exact": [...], R: [...]}} over the runs;
    ``done()`` after each split."""
    sizes = settings.sizes
    jobs = [
        (p, m, name, run)
        for p, m in sizes.sweeps
        for name in settings.names
        for run in range(sizes.runs)
    ]
    for p, m, name, run in progress(jobs, len(jobs), "figures 1-4"):
        split = _split(name, run, sizes)
        kernels = paper_kernels(m)
        cell = results.setdefault((p, m, name), {"n_train": split[0].shape[0]})
        exact = _exact(split, kernels, p, C_PAPER, settings.exact_memory)
        if exact is not None:
            cell.setdefault("exact", []).append(exact)
        for R in sizes.ranks:
            if split[0].shape[0] >= R:
                fit = _low_rank(split, kernels, R, p, C_PAPER, "gfb", run, settings)
                cell.setdefault(R, []).append(fit)
        done()


def _kernel_counts(settings: LpMKLSettings) -> dict:
    """Figure 5: seconds of the low-rank and the exact MKL against m (p = 2, first split)."""
    sizes = settings.sizes
    split = _split(settings.names[0], 0, sizes)
    R = min(sizes.kernel_count_rank, split[0].shape[0])
    out = {}
    for m in progress(sizes.kernel_counts, len(sizes.kernel_counts), "figure 5"):
        kernels = paper_kernels(m)
        out[m] = {
            "low-rank": _low_rank(split, kernels, R, 2.0, C_PAPER, "gfb", 0, settings),
            "exact": _exact(split, kernels, 2.0, C_PAPER, settings.exact_memory),
        }
    return out


def _problem(X: np.ndarray, y: np.ndarray, m: int, R: int, seed: int, settings: LpMKLSettings):
    """Problem (6) on ``m`` paper kernels of rank ``R`` (Nyström), C = 1000."""
    Xb = settings.put(X)
    features = LowRankFeatures(paper_kernels(m), rank=R, method="nystrom", random_state=seed)
    factors = [f.G for f in features.fit(Xb).factors_]
    labels = settings.put(np.where(y > 0, 1.0, -1.0))
    return svm_problem(factors, labels, C_PAPER, xp=settings.xp)


def _solve(problem, m: int, solver: str, settings: LpMKLSettings, **options) -> dict:
    xp = settings.xp
    d = settings.put(np.full(m, 1.0 / m))
    solver_fn = SVM_SOLVERS[solver]
    solution, seconds = settings.timed(solver_fn, problem, d, state=None, eta=0.0, xp=xp, **options)
    objective = _svm_dual_objective(solution, problem, xp=xp)
    return {"seconds": seconds, "objective": objective, "iterations": solution.n_iter}


def _problem_six(settings: LpMKLSettings, out: dict, done: Any) -> None:
    """Figures 6 and 7 on problem (6), d_k = 1/m, against the number of training rows, into
    ``out = {"ip": {}, "naive": {}}``; ``done()`` after each size."""
    sizes = settings.sizes
    data = _load(settings.names[0])
    for n in progress(sizes.solver_rows, len(sizes.solver_rows), "figures 6-7"):
        X, _, y, _ = train_test_split(data.X, data.y, train_size=n, stratify=data.y, random_state=0)
        problem = _problem(X, y, 10, min(sizes.ip_rank, n), 0, settings)
        row = {"gfb": _solve(problem, 10, "gfb", settings, tol=TOL_PAPER, max_iter=3000)}
        if settings.with_ip:
            # The paper stopped its IP within 0.1 % of GFB's objective: a 1e-3 relative gap.
            row["ip"] = _solve(problem, 10, "interior_point", settings, tol=1e-3, max_iter=200)
        out["ip"][n] = row
        problem = _problem(X, y, 20, min(sizes.naive_rank, n), 0, settings)
        out["naive"][n] = {
            variant: _solve(problem, 20, variant, settings, tol=TOL_PAPER, max_iter=3000)
            for variant in ("gfb", "gfb_naive")
        }
        done()


def _solver_table(settings: LpMKLSettings) -> list[list[Any]]:
    """GFB, liblinear and the interior point inside the MKL loop, on the first split."""
    n, m, R, Cs = settings.sizes.solver_table
    split = _split(settings.names[0], 0, settings.sizes._replace(max_train=n))
    with_ip = settings.with_ip
    solvers = ("gfb", "liblinear", "interior_point") if with_ip else ("gfb", "liblinear")
    rows = []
    for C in progress(Cs, len(Cs), "solvers"):
        for solver in solvers:
            if solver != "gfb" and settings.xp.__name__.split(".")[-1] != "numpy":
                continue  # the host solvers take NumPy arrays only
            fit = _low_rank(split, paper_kernels(m), R, 2.0, C, solver, 0, settings)
            rows.append(
                [
                    f"{C:g}",
                    solver,
                    f"{fit['accuracy']:.4f}",
                    f"{fit['seconds']:.3g}",
                    fit["updates"],
                ]
            )
    return rows


def _have(name: str) -> bool:
    try:
        _load(name)
    except FileNotFoundError:
        return False
    return True


def _sweep_table(results: dict, ranks: tuple[int, ...]) -> str:
    header = ["p", "m", "data", "n_train", "exact acc", "exact s"]
    for R in ranks:
        header += [f"R={R} acc", f"R={R} s", f"R={R} updates", f"R={R} gap"]
    rows = []
    for (p, m, name), cell in results.items():
        exact = cell.get("exact")
        row = [f"{p:g}", m, name, cell["n_train"]]
        row += (
            [mean_std([e["accuracy"] for e in exact]), mean_std([e["seconds"] for e in exact])]
            if exact
            else ["—", "—"]
        )
        for R in ranks:
            fits = cell.get(R)
            row += (
                [
                    mean_std([f["accuracy"] for f in fits]),
                    mean_std([f["seconds"] for f in fits]),
                    max(f["updates"] for f in fits),
                    f"{max(f['gap'] for f in fits):.2g}",
                ]
                if fits
                else ["—", "—", "—", "—"]
            )
        rows.append(row)
    return format_table(header, rows)


def _verdicts(results: dict, counts: dict, six: dict | None, ranks: tuple[int, ...]) -> str:
    """The targets, measured: worst and best ratios over the cells of this run."""
    lines = []
    gaps, speedups = [], []
    for cell in results.values():
        exact = cell.get("exact")
        for R in (R for R in ranks if R >= 100 and R in cell):
            if exact:
                acc = np.mean([e["accuracy"] for e in exact])
                gaps.append(100 * (acc - np.mean([f["accuracy"] for f in cell[R]])))
                speedups.append(
                    np.mean([e["seconds"] for e in exact])
                    / np.mean([f["seconds"] for f in cell[R]])
                )
    if gaps:
        lines.append(
            f"- Low-rank MKL (R ≥ 100) against the exact MKL: accuracy lower by {min(gaps):+.2f} "
            f"to {max(gaps):+.2f} points (target: within 1), time ratio exact/low-rank "
            f"{min(speedups):.3g}× (worst) to {max(speedups):.3g}× (best) (target: ≥ 10×)."
        )
    else:
        lines.append(
            "- Low-rank MKL against the exact MKL: no cell with R ≥ 100 and the exact MKL."
        )
    six = six or {"ip": {}, "naive": {}}
    ip = [r["ip"]["seconds"] / r["gfb"]["seconds"] for r in six["ip"].values() if "ip" in r]
    if ip:
        lines.append(
            f"- Figure 6, interior point / GFB time on problem (6): {min(ip):.3g}× (worst) to "
            f"{max(ip):.3g}× (best) (paper: 1.1–8×)."
        )
    naive = [r["gfb_naive"]["seconds"] / r["gfb"]["seconds"] for r in six["naive"].values()]
    if naive:
        lines.append(
            f"- Figure 7, naive / split GFB time: {min(naive):.3g}× (worst) to "
            f"{max(naive):.3g}× (best) (paper: 10–1000×)."
        )
    ratios = [
        c["exact"]["seconds"] / c["low-rank"]["seconds"] for c in counts.values() if c["exact"]
    ]
    if ratios:
        lines.append(
            f"- Figure 5, exact / low-rank time over m = {', '.join(map(str, counts))}: "
            + ", ".join(f"{r:.3g}×" for r in ratios)
            + "."
        )
    return "\n".join(lines) + "\n"


def _figures(results: dict, counts: dict, six: dict, sizes: Sizes, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    for p, m in sizes.sweeps:
        cells = {name: c for (pp, mm, name), c in results.items() if (pp, mm) == (p, m)}
        if not cells:
            continue
        fig, axes = plt.subplots(2, len(cells), figsize=(3.5 * len(cells), 6), squeeze=False)
        for j, (name, cell) in enumerate(cells.items()):
            ranks = [R for R in sizes.ranks if R in cell]
            for row, key in enumerate(("accuracy", "seconds")):
                ax = axes[row, j]
                ax.plot(
                    ranks,
                    [np.mean([f[key] for f in cell[R]]) for R in ranks],
                    "o-",
                    label="low-rank (GFB)",
                )
                if cell.get("exact"):
                    ax.axhline(
                        np.mean([e[key] for e in cell["exact"]]),
                        color="k",
                        ls="--",
                        label="exact MKL",
                    )
                ax.set_xlabel("rank R")
                ax.set_ylabel("test accuracy" if key == "accuracy" else "seconds")
                if key == "seconds":
                    ax.set_yscale("log")
            axes[0, j].set_title(f"{name} (n={cell['n_train']})")
        axes[0, 0].legend()
        fig.suptitle(f"p = {p:g}, {m} kernels, C = 1000")
        fig.tight_layout()
        path = out / f"figure{'1' if p == 2.0 else '3'}_p{p:g}.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)

    panels = (
        (
            "figure5_kernels.png",
            "number of kernels m",
            list(counts),
            {
                "low-rank (GFB)": [c["low-rank"]["seconds"] for c in counts.values()],
                "exact MKL": [
                    c["exact"]["seconds"] if c["exact"] else np.nan for c in counts.values()
                ],
            },
        ),
        (
            "figure6_gfb_vs_ip.png",
            "training rows",
            list(six["ip"]),
            {
                "GFB": [r["gfb"]["seconds"] for r in six["ip"].values()],
                "interior point": [
                    r["ip"]["seconds"] if "ip" in r else np.nan for r in six["ip"].values()
                ],
            },
        ),
        (
            "figure7_split_vs_naive.png",
            "training rows",
            list(six["naive"]),
            {
                "GFB (split)": [r["gfb"]["seconds"] for r in six["naive"].values()],
                "GFB merged constraints": [
                    r["gfb_naive"]["seconds"] for r in six["naive"].values()
                ],
            },
        ),
    )
    for fname, xlabel, x, curves in panels:
        fig, ax = plt.subplots(figsize=(4.5, 3.5))
        for label, ys in curves.items():
            ax.plot(x, ys, "o-", label=label)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("seconds")
        ax.set_yscale("log")
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / fname, dpi=100)
        plt.close(fig)
        paths.append(out / fname)
    return paths


NOT_RECOVERABLE = """\
The paper's figures are images whose values its text does not give. Not recoverable from the
text: the accuracies and times plotted in Figures 1–7; the ranks on the x-axes of Figures 1–4;
the number N_n of Nyström landmarks; the training sizes of Figures 6 and 7; SMO-MKL's version and
cache size; the machine. Figures 1–2 use the 50 kernels of §5 (their captions do not say),
Figures 3–4 say 20 kernels. Here N_n = R (``V_k = C_k W_k^{−1/2}``, the same kernel as the
paper's form with N_n = R), one landmark draw shared by the kernels, and the exact MKL is
scikit-learn's SVC alternated with eq. (3) — the problem SMO-MKL solves, not SMO-MKL itself.
"""


PENDING = "Not measured yet: the run is still going, or was stopped before this section.\n"


def _report(parts: dict, settings: LpMKLSettings) -> str:
    """``lpmkl.md`` from the sections measured so far (``parts``)."""
    sizes, names, missing = settings.sizes, settings.names, settings.missing
    n, m, R, _ = sizes.solver_table
    counts, six = parts.get("counts"), parts.get("six")
    count_rows = [
        [m_, f"{c['low-rank']['seconds']:.3g}", f"{c['low-rank']['accuracy']:.4f}"]
        + (
            [f"{c['exact']['seconds']:.3g}", f"{c['exact']['accuracy']:.4f}"]
            if c["exact"]
            else ["—", "—"]
        )
        for m_, c in (counts or {}).items()
    ]

    def solves(rows: dict, keys: tuple[str, str]) -> list[list[Any]]:
        return [
            [
                n_,
                *(
                    f"{r[k]['seconds']:.3g} ({r[k]['iterations']} it, obj {r[k]['objective']:.6g})"
                    if k in r
                    else "—"
                    for k in keys
                ),
            ]
            for n_, r in rows.items()
        ]

    def section(ready: bool, text: Any) -> str:
        return text() if ready else PENDING

    return "\n".join(
        [
            f"# Rakotomamonjy & Chanda, ℓp-MKL with low-rank kernels: lrkl on {settings.backend}",
            "",
            f"{sizes.runs} run(s); at most {sizes.max_train} training and {sizes.max_test} test "
            f"rows per split; C = 1000; GFB and MKL tolerances 1e-4 (the paper's)."
            + (f" Not in the data home, skipped: {', '.join(missing)}." if missing else ""),
            "",
            "## Figures 1–4: accuracy and seconds against the rank (mean ± std over runs)",
            "",
            "`updates`: weight updates (the most over runs; 500 is the cap); `gap`: the relative "
            "duality gap of the last SVM (the largest over runs), how far GFB stopped by the "
            "paper's rule is from that SVM's optimum.",
            "",
            section(bool(parts["results"]), lambda: _sweep_table(parts["results"], sizes.ranks)),
            "",
            f"## Figure 5: seconds against the number of kernels ({names[0]}, "
            f"R = {sizes.kernel_count_rank}, p = 2)",
            "",
            section(
                counts is not None,
                lambda: format_table(
                    ["m", "low-rank s", "low-rank acc", "exact s", "exact acc"], count_rows
                ),
            ),
            "",
            f"## Figure 6: GFB (tol 1e-4) against the interior point (Clarabel, gap 1e-3) on "
            f"problem (6) ({names[0]}, m = 10, R = {sizes.ip_rank}, d_k = 1/m)",
            "",
            section(
                bool(six and six["ip"]),
                lambda: format_table(
                    ["n", "GFB s", "interior point s"], solves(six["ip"], ("gfb", "ip"))
                ),
            ),
            "",
            f"## Figure 7: split against naive GFB on problem (6) ({names[0]}, m = 20, "
            f"R = {sizes.naive_rank})",
            "",
            section(
                bool(six and six["naive"]),
                lambda: format_table(
                    ["n", "split s", "naive s"], solves(six["naive"], ("gfb", "gfb_naive"))
                ),
            ),
            "",
            f"## Solvers inside the MKL loop ({names[0]}, n = {n}, m = {m}, R = {R}, p = 2)",
            "",
            section(
                "solvers" in parts,
                lambda: format_table(
                    ["C", "solver", "test acc", "seconds", "weight updates"], parts["solvers"]
                ),
            ),
            "",
            "## The targets, measured",
            "",
            _verdicts(parts["results"], counts or {}, six, sizes.ranks),
            "## What the paper's text does not give",
            "",
            NOT_RECOVERABLE,
        ]
    )


@dataclass(frozen=True)
class LpMKLSettings(RunSettings):
    """One run of ``lrkl reproduce lp-mkl``."""

    sizes: Sizes
    exact_memory: float  # GiB the exact MKL's kernel matrices may take
    names: tuple[str, ...]  # the data sets run (in the data home)
    missing: tuple[str, ...]  # the data sets asked for and not in the data home
    with_ip: bool  # whether the interior point (Clarabel) runs


def _settings(args: argparse.Namespace) -> LpMKLSettings:
    common = RunSettings.common(args)
    sizes = QUICK if args.quick else FULL
    sizes = sizes._replace(
        runs=args.runs or sizes.runs,
        max_train=args.max_train or sizes.max_train,
        ranks=tuple(args.ranks) if args.ranks else sizes.ranks,
    )
    names = tuple(name for name in args.datasets if _have(name))
    missing = tuple(name for name in args.datasets if name not in names)
    if not names:
        msg = (
            f"lrkl: none of {args.datasets} is in the data home {get_data_home()} (set LRKL_DATA; "
            f"svmguide1 is bundled)"
        )
        raise SystemExit(msg)
    skip_ip = None  # why the interior point cannot run here, if it cannot
    if common["xp"].__name__.split(".")[-1] != "numpy":
        skip_ip = f"Clarabel takes NumPy arrays, the backend is {args.backend}"
    else:
        try:
            require_clarabel()
        except ImportError as exc:
            skip_ip = str(exc)
    if skip_ip is not None:
        print(f"the interior point (Figure 6, solver table) skipped: {skip_ip}", file=sys.stderr)
    return LpMKLSettings(
        **common,
        sizes=sizes,
        exact_memory=args.exact_memory,
        names=names,
        missing=missing,
        with_ip=skip_ip is None,
    )


def run(args: argparse.Namespace) -> int:
    """Run the experiment and write ``lpmkl.md`` and the figures to ``--out``."""
    require_plotting()
    settings = _settings(args)

    # The report is rewritten after every split and section: a long run stopped midway keeps
    # what it measured. The figures come at the end.
    out = output_dir(settings.out)
    parts: dict = {"results": {}}

    def write() -> str:
        report = _report(parts, settings)
        (out / "lpmkl.md").write_text(report, encoding="utf-8")
        return report

    _rank_sweeps(settings, parts["results"], write)
    parts["counts"] = _kernel_counts(settings)
    write()
    parts["six"] = {"ip": {}, "naive": {}}
    _problem_six(settings, parts["six"], write)
    parts["solvers"] = _solver_table(settings)
    report = write()
    figures = _figures(parts["results"], parts["counts"], parts["six"], settings.sizes, out)
    sys.stdout.write(report)
    sys.stdout.write("\nWrote " + ", ".join(str(p) for p in [out / "lpmkl.md", *figures]) + "\n")
    return 0

"""``lrkl reproduce slkl``: Tables 2–3, Figures 1–3 and §5.4 of Machart et al. (ICML 2011).

Protocol (§5): λ = 1, the Gaussian kernel with Table 1's σ², features standardised,
targets in their units, no intercept. The paper's "± 0" for KRRn shows that each data set was
split once and the runs vary only the candidate set S (and the coordinate sequence); this
reproduction does the same (split seed 0). The paper does not give ν for Table 2; ν = 0.01 (its
value for the sinc figures) is used throughout and printed. SLKL runs with the library defaults
(Gram form, the active-set solver, stopped on the optimality conditions at 1e-3) unless
``--solver paper`` asks for the paper's algorithm (direct form, random selection, Newton steps,
its stopping rule with ε = 10⁻⁴); Figures 1 and 3 always show the paper's
algorithm, since they are about its iterations.

Classification (Table 3, §5.4) is :class:`lrkl.SLKLClassifier`: regression on ±1 labels, one
against the rest for each digit, the largest score winning; ν = 0.01 and no intercept as in
Table 2. USPS (Table 3) uses σ² = 64 on pixels in [−1, 1] (Table 1); beside it, the Nyström
classifier of Williams & Seeger as kernel ridge on the Nyström features of the same M centres
(λ = 1, SLKL's), and kernel ridge on all 7291 digits as the floor of least squares on ±1 labels
with this kernel. MNIST (§5.4) uses raw pixels in [0, 1] with ``gamma="scale"``: the paper's
histogram-of-gradient features (Maji & Malik 2009) come from no maintained package. Both sets
are read from the data home and skipped, with a message, when absent.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lrkl import (
    KernelRidge,
    KernelRidgeSubset,
    SLKLClassifier,
    SLKLRegressor,
    UniformRankOneRidge,
)
from lrkl._backend import host_namespace, to_numpy
from lrkl._linalg import solve
from lrkl.datasets import load_abalone, load_boston, load_mnist, load_usps, make_sinc
from lrkl.experiments._common import (
    RunSettings,
    add_backend_argument,
    format_table,
    output_dir,
    progress,
    require_plotting,
)
from lrkl.kernels import Gaussian
from lrkl.slkl._problems import slkl_problem
from lrkl.slkl._solver import SLKLResult, solve_slkl

DESCRIPTION = "SLKL (Machart et al. 2011): Tables 2-3, Figures 1-3 and section 5.4"

#: Table 2 of the paper: {data set: {row: [value per M]}} with the M of each column.
PAPER_M = {"sinc": (256, 512, 1000), "boston": (128, 256, 350), "abalone": (512, 1024, 3000)}
PAPER_TABLE2 = {
    "sinc": {
        "KRRn": ("0.009 ± 0",) * 3,
        "KRRM": ("0.0146 ± 1e-3", "0.0124 ± 7e-4", "0.0099 ± 0"),
        "Unif": ("0.0124 ± 1e-4", "0.0124 ± 3e-5", "0.0124 ± 0"),
        "SLKL": ("0.0106 ± 4e-4", "0.0103 ± 2e-4", "0.0104 ± 1e-4"),
        "m0": ("83", "108", "139"),
    },
    "boston": {
        "KRRn": ("10.17 ± 0",) * 3,
        "KRRM": ("33.27 ± 7.8", "16.89 ± 3.27", "10.17 ± 0"),
        "Unif": ("149.7 ± 5.57", "147.84 ± 2.24", "147.72 ± 0"),
        "SLKL": ("20.17 ± 2.3", "13.1 ± 0.87", "11.43 ± 0.06"),
        "m0": ("108", "161", "184"),
    },
    "abalone": {
        "KRRn": ("6.91 ± 0",) * 3,
        "KRRM": ("6.14 ± 0.25", "5.51 ± 0.09", "5.25 ± 0"),
        "Unif": ("10.04 ± 0.17", "9.96 ± 0.06", "9.99 ± 0"),
        "SLKL": ("5.04 ± 0.08", "4.94 ± 0.03", "4.95 ± 0.004"),
        "m0": ("(not legible)", "(not legible)", "253"),
    },
}
NU = 0.01
ROWS = ("KRRn", "KRRM", "Unif", "SLKL", "m0")

#: Table 3 of the paper: test errors out of 2007 (mean ± std over runs) and SLKL's m0. The
#: SLKL cell at M = 256 is empty in the paper's text.
PAPER_TABLE3_M = (64, 256, 1024)
PAPER_TABLE3 = {
    "Nyst": ("101.3 ± 22.9", "34.5 ± 3.0", "35.9 ± 2.0"),
    "SLKL": ("76.3 ± 9.9", "(not in the text)", "41.5 ± 3.9"),
    "m0": ("61", "(not in the text)", "515"),
}
USPS_SIGMA2 = 64.0
MNIST_M = 1000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lrkl reproduce slkl``."""
    parser.add_argument(
        "--runs",
        type=int,
        default=None,
        help="runs per setting (default: 20, as in the paper; 2 with --quick)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="few runs and a small Figure 2 grid: well under two minutes",
    )
    parser.add_argument(
        "--solver",
        choices=("default", "paper"),
        default="default",
        help="SLKL configuration for Table 2: the library defaults, or the paper's algorithm",
    )
    parser.add_argument("--nu", type=float, default=NU, help="nu for Table 2")
    add_backend_argument(parser)


def _datasets() -> dict[str, tuple[np.ndarray, ...]]:
    """Each data set's fixed split and σ²: (X_train, y_train, X_test, y_test, sigma2)."""
    out = {"sinc": (*make_sinc(random_state=0), 1.0)}
    for data in (load_boston(), load_abalone()):
        out[data.name] = (*data.split(random_state=0), data.sigma2)
    return out


@dataclass(frozen=True)
class SLKLSettings(RunSettings):
    """One run of ``lrkl reproduce slkl``."""

    runs: int  # runs per setting
    solver: str  # "paper" or "lrkl"
    nu: float  # ν of Table 2


def _settings(args: argparse.Namespace) -> SLKLSettings:
    return SLKLSettings(
        **RunSettings.common(args),
        runs=args.runs if args.runs is not None else (2 if args.quick else 20),
        solver=args.solver,
        nu=args.nu,
    )


def _mse(model: Any, X: Any, y: np.ndarray) -> float:
    """Test MSE, computed on the host from the copied predictions."""
    return float(np.mean((to_numpy(model.predict(X)) - y) ** 2))


#: The paper's model: no bias term (every estimator below is given it explicitly).
PAPER = {"fit_intercept": False}


def _slkl(solver: str, **params: Any) -> SLKLRegressor:
    if solver == "paper":
        params.update(mode="direct", solver="coordinate", selection="random", step="newton")
        params.update(stop="objective", tol=1e-4)
    return SLKLRegressor(**params, **PAPER)


def _table2(settings: SLKLSettings, data: dict) -> dict:
    """MSE of KRRn, KRRM, Unif and SLKL, and SLKL's m0: {(name, M): {row: [per run]}}."""
    jobs = [(name, M, r) for name in PAPER_M for M in PAPER_M[name] for r in range(settings.runs)]
    results: dict[tuple[str, int], dict[str, list[float]]] = {}
    krrn: dict[str, float] = {}
    for name, M, r in progress(jobs, len(jobs), "Table 2"):
        X_tr, y_tr, X_te, y_te, sigma2 = data[name]
        X_tr, y_tr, X_te = (settings.put(a) for a in (X_tr, y_tr, X_te))
        kernel = Gaussian(sigma2=sigma2)
        if name not in krrn:  # one split, so KRRn does not vary over the runs
            krrn_model = KernelRidge(kernel, fit_intercept=False).fit(X_tr, y_tr)
            krrn[name] = _mse(krrn_model, X_te, y_te)
        row = results.setdefault((name, M), {key: [] for key in ROWS})
        row["KRRn"].append(krrn[name])
        subset = KernelRidgeSubset(kernel, M, random_state=r, **PAPER).fit(X_tr, y_tr)
        row["KRRM"].append(_mse(subset, X_te, y_te))
        unif = UniformRankOneRidge(kernel, M, 1.0 / M, random_state=r, **PAPER)
        unif.fit(X_tr, y_tr)
        row["Unif"].append(_mse(unif, X_te, y_te))
        model = _slkl(settings.solver, kernel=kernel, n_columns=M, nu=settings.nu, random_state=r)
        model.fit(X_tr, y_tr)
        row["SLKL"].append(_mse(model, X_te, y_te))
        row["m0"].append(float(model.support_.shape[0]))
    return results


def _format_table2(results: dict) -> str:
    blocks = []
    for name, Ms in PAPER_M.items():
        header = ["", *(f"M={M} (lrkl)" for M in Ms), *(f"M={M} (paper)" for M in Ms)]
        rows = []
        for key in ROWS:
            ours = [_mean_std(results[(name, M)][key], key == "m0") for M in Ms]
            rows.append([key, *ours, *PAPER_TABLE2[name][key]])
        blocks.append(f"### {name}\n\n{format_table(header, rows)}")
    return "\n\n".join(blocks)


def _mean_std(values: list[float], integer: bool) -> str:
    mean, std = float(np.mean(values)), float(np.std(values))
    if integer:
        return f"{mean:.0f} ± {std:.0f}"
    return f"{mean:.4g} ± {std:.2g}"


def _sinc_runs(settings: SLKLSettings, data: dict, runs: int, M: int = 1000) -> list[SLKLResult]:
    """The paper's algorithm on sinc, ν = 0.01, M = 1000: histories for Figures 1 and 3.

    The objective is recorded every 20 iterations (the estimator records it every M), through
    the algorithm's functions directly.
    """
    X_tr, y_tr = (settings.put(a) for a in data["sinc"][:2])
    n = data["sinc"][0].shape[0]
    results = []
    for r in progress(range(runs), runs, "Figures 1, 3"):
        rng = np.random.default_rng(r)
        S = sorted(rng.choice(n, size=min(M, n), replace=False).tolist())
        problem = slkl_problem(
            X_tr, y_tr, S, kernel=Gaussian(sigma2=1.0), mode="direct", xp=settings.xp
        )
        results.append(
            solve_slkl(problem, nu=NU, step="newton", selection="random", seed=r, check_every=20)
        )
    return results


def _figure2_grid(settings: SLKLSettings, data: dict, runs: int) -> dict:
    """m0 at convergence against M for several ν (sinc), averaged over runs."""
    quick = settings.quick
    Ms = (100, 250, 500, 1000) if quick else (50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000)
    nus = (0.001, 0.01, 0.1) if quick else (0.0001, 0.001, 0.01, 0.1, 1.0)
    X_tr, y_tr = (settings.put(a) for a in data["sinc"][:2])
    jobs = [(nu, M, r) for nu in nus for M in Ms for r in range(runs)]
    m0: dict[tuple[float, int], list[int]] = {}
    for nu, M, r in progress(jobs, len(jobs), "Figure 2"):
        model = SLKLRegressor(Gaussian(sigma2=1.0), M, nu, random_state=r, **PAPER)
        model.fit(X_tr, y_tr)
        m0.setdefault((nu, M), []).append(int(model.support_.shape[0]))
    return {"Ms": Ms, "nus": nus, "m0": m0}


def _signs(y: np.ndarray) -> np.ndarray:
    """One column per digit: +1 for that digit, −1 for the rest."""
    return np.where(y[:, None] == np.arange(10), 1.0, -1.0)


def _nystrom_errors(
    kernel: Gaussian, X: Any, y: np.ndarray, X_test: Any, y_test: np.ndarray, centres: np.ndarray
) -> int:
    """Williams & Seeger's Nyström classifier: kernel ridge (λ = 1) with the Nyström kernel of
    the given centres, ``(CᵀC + W) a = CᵀY``, one column of ±1 per digit."""
    C = to_numpy(kernel(X, X[centres]))
    W = C[centres]
    coef = np.linalg.lstsq(C.T @ C + W, C.T @ _signs(y), rcond=None)[0]
    scores = to_numpy(kernel(X_test, X[centres])) @ coef
    return int(np.sum(np.argmax(scores, axis=1) != y_test))


def _table3(settings: SLKLSettings, Ms: tuple[int, ...]) -> str | None:
    """Table 3 on USPS: SLKL's and the Nyström classifier's test errors, SLKL's m0."""
    try:
        data = load_usps()
    except FileNotFoundError as exc:
        print(f"Table 3 skipped: {exc}", file=sys.stderr)
        return None
    kernel = Gaussian(sigma2=USPS_SIGMA2)
    X, X_test = settings.put(data.X_train), settings.put(data.X_test)
    rows: dict[int, dict[str, list[float]]] = {
        M: {"SLKL": [], "m0": [], "Nyst": [], "s": [], "binary": []} for M in Ms
    }
    runs = settings.runs
    jobs = [(M, r) for M in Ms for r in range(runs)]
    for M, r in progress(jobs, len(jobs), "Table 3 (USPS)"):
        model = SLKLClassifier(kernel, M, NU, random_state=r, **PAPER)
        _, seconds = settings.timed(model.fit, X, data.y_train)
        scores = to_numpy(model.decision_function(X_test))
        errors = int(np.sum(np.argmax(scores, axis=1) != data.y_test))
        truth = data.y_test[:, None] == np.arange(10)
        rows[M]["binary"].append(np.sum((scores > 0) != truth, axis=0))
        rows[M]["SLKL"].append(errors)
        rows[M]["s"].append(seconds)
        rows[M]["m0"].append(float(np.mean(np.sum(to_numpy(model.kernel_weights_) > 0, axis=1))))
        centres = to_numpy(model.candidates_)
        rows[M]["Nyst"].append(
            _nystrom_errors(kernel, data.X_train, data.y_train, data.X_test, data.y_test, centres)
        )
    # Kernel ridge on every training digit: one factorisation of K + I for the ten classes.
    K = kernel(data.X_train, data.X_train)
    K[np.diag_indices_from(K)] += 1.0
    coef = solve(K, _signs(data.y_train), xp=host_namespace(), assume_a="pos")
    scores = kernel(data.X_test, data.X_train) @ coef
    floor = int(np.sum(np.argmax(scores, axis=1) != data.y_test))
    header = ["", *(f"M={M} (lrkl)" for M in Ms), *(f"M={M} (paper)" for M in PAPER_TABLE3_M)]
    body = []
    for key, label in (("Nyst", "Nyst"), ("SLKL", "SLKL"), ("m0", "m0 per digit")):
        ours = [_mean_std(rows[M][key], integer=key == "m0") for M in Ms]
        body.append([label, *ours, *PAPER_TABLE3[key]])
    for label, stat in (("median", np.median), ("largest", np.max)):
        binary = [f"{np.mean([stat(b) for b in rows[M]['binary']]):.1f}" for M in Ms]
        body.append([f"SLKL, {label} one-vs-rest task", *binary, "", "", ""])
    body.append(["SLKL fit (s)", *(f"{np.mean(rows[M]['s']):.1f}" for M in Ms), "", "", ""])
    return (
        f"# SLKL Table 3: test errors on USPS (2007 digits), mean ± std over {runs} runs\n\n"
        f"σ² = {USPS_SIGMA2:g}, ν = {NU}, λ = 1, no intercept, one regression per digit.\n\n"
        f"{format_table(header, body)}\n\n"
        f"Kernel ridge on all 7291 training digits (λ = 1, the same kernel and labels): "
        f"{floor} errors. The one-vs-rest rows count the errors of the digit-against-the-rest "
        f"tasks on their own (the sign of each score).\n"
    )


def _mnist(settings: SLKLSettings) -> str | None:
    """§5.4: SLKL one-vs-all on MNIST's 60 000 digits at M = 1000: fit time and test error."""
    try:
        data = load_mnist()
    except FileNotFoundError as exc:
        print(f"MNIST (§5.4) skipped: {exc}", file=sys.stderr)
        return None
    X, X_test = settings.put(data.X_train), settings.put(data.X_test)
    model = SLKLClassifier(Gaussian(), MNIST_M, NU, random_state=0, **PAPER)
    print("§5.4 (MNIST): fitting ten digits on 60 000 rows", file=sys.stderr)
    _, seconds = settings.timed(model.fit, X, data.y_train)
    error = float(np.mean(to_numpy(model.predict(X_test)) != data.y_test))
    m0 = float(np.mean(np.sum(to_numpy(model.kernel_weights_) > 0, axis=1)))
    rows = [
        ["test error", f"{100 * error:.2f} %", "about 2 % (HOG features)"],
        ["fit, all ten digits (s)", f"{seconds:.1f}", ""],
        ["m0 per digit", f"{m0:.0f}", ""],
    ]
    return (
        f"# SLKL §5.4: MNIST, M = {MNIST_M}, one against the rest\n\n"
        f"Raw pixels in [0, 1], γ = {model.kernel_.gamma:.4g} (gamma='scale'), ν = {NU}.\n\n"
        f"{format_table(['', 'lrkl', 'paper'], rows)}\n"
    )


def _figures(out: Path, models: list[SLKLResult], grid: dict) -> list[Path]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(
            "matplotlib is not installed (pip install 'lrkl[plot]'): figures skipped",
            file=sys.stderr,
        )
        return []
    paths = []

    def save(fig: Any, name: str) -> None:
        path = out / name
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
        paths.append(path)

    def history(attr: str, ylabel: str, title: str, name: str, log: bool) -> None:
        fig, ax = plt.subplots(figsize=(6, 4))
        for result in models:
            ax.plot(result.iteration_history, getattr(result, attr), lw=1, alpha=0.8)
        ax.set_xlabel("iteration")
        ax.set_ylabel(ylabel)
        if log:
            ax.set_yscale("log")
        ax.set_title(title)
        save(fig, name)

    history(
        "objective_history",
        "objective F(μ)",
        f"Figure 1: sinc, ν = {NU}, M = 1000 ({len(models)} runs)",
        "figure1_objective.png",
        log=True,
    )
    fig, ax = plt.subplots(figsize=(6, 4))
    for nu in grid["nus"]:
        means = [np.mean(grid["m0"][(nu, M)]) for M in grid["Ms"]]
        ax.plot(grid["Ms"], means, marker="o", label=f"ν = {nu:g}")
    ax.set_xlabel("M")
    ax.set_ylabel("m0 = ‖μ*‖₀")
    ax.set_title("Figure 2: zero-norm of μ* against M (sinc)")
    ax.legend()
    save(fig, "figure2_m0_vs_M.png")
    history(
        "n_active_history",
        "m0",
        f"Figure 3: m0 along the iterations, sinc, ν = {NU}, M = 1000",
        "figure3_m0_iterations.png",
        log=False,
    )
    return paths


def run(args: argparse.Namespace, *, datasets: Callable[[], dict] = _datasets) -> int:
    """Regenerate Table 2 (printed beside the paper's numbers) and Figures 1–3 (PNG)."""
    settings = _settings(args)
    runs, quick = settings.runs, settings.quick
    if runs < 1:
        print(f"--runs must be >= 1, received {runs}", file=sys.stderr)
        return 2
    require_plotting()
    out = output_dir(settings.out)
    data = datasets()
    results = _table2(settings, data)
    fig_runs = min(runs, 3) if quick else runs
    models = _sinc_runs(settings, data, fig_runs)
    grid = _figure2_grid(settings, data, 1 if quick else min(runs, 5))
    table = _format_table2(results)
    table3 = _table3(settings, PAPER_TABLE3_M[:2] if quick else PAPER_TABLE3_M)
    mnist = None if quick else _mnist(settings)
    solver = (
        "paper (direct, random, newton)"
        if settings.solver == "paper"
        else "lrkl defaults (auto mode, active set, KKT stop 1e-3)"
    )
    text = (
        f"# SLKL Table 2: test MSE, mean ± std over {runs} runs (ν = {settings.nu}, SLKL solver: "
        f"{solver}, backend: {settings.backend})\n\n{table}\n"
    )
    (out / "table2.md").write_text(text, encoding="utf-8")
    print(text)
    for path in _figures(out, models, grid):
        print(f"wrote {path}")
    print(f"wrote {out / 'table2.md'}")
    for name, section in (("table3.md", table3), ("mnist.md", mnist)):
        if section is not None:
            (out / name).write_text(section, encoding="utf-8")
            print(section)
            print(f"wrote {out / name}")
    if quick:
        print("MNIST (§5.4) runs without --quick")
    return 0

"""The targets of the ℓp-MKL issue, measured side by side (LRKL_DATA must point at the data home
for the sets that are not bundled).

    python benchmarks/scripts/lpmkl_targets.py ip         # GFB vs interior point, R=500, m=10
    python benchmarks/scripts/lpmkl_targets.py naive      # split vs naive GFB, m=20, R=500
    python benchmarks/scripts/lpmkl_targets.py exact      # low-rank vs full-kernel MKL
    python benchmarks/scripts/lpmkl_targets.py exact --kernel-set powers  # ten γ = 2^k/d
    python benchmarks/scripts/lpmkl_targets.py liblinear  # GFB vs liblinear at equal accuracy
    python benchmarks/scripts/lpmkl_targets.py scale      # GFB's alpha_scale: 1 against "auto"
    python benchmarks/scripts/lpmkl_targets.py fits --Cs 1 10 100  # the same, whole default fits
    python benchmarks/scripts/lpmkl_targets.py tolerance  # the SVM's tolerance, unit and solver
    python benchmarks/scripts/lpmkl_targets.py gap --Cs 1 1000  # how far each stop rule ends

Each prints one line per measurement: wall-clock seconds of the solve (the features are built
once beforehand and timed apart), the objective of (4) at the solution, and test accuracy.
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import _report
import array_api_compat.numpy as xp
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from lrkl import LowRankMKLClassifier
from lrkl.datasets import load_lpmkl
from lrkl.experiments.lpmkl import full_kernel_mkl, paper_kernels
from lrkl.kernels import Gaussian
from lrkl.lowrank import LowRankFeatures
from lrkl.lpmkl import (
    SVM_SOLVERS,
    auto_alpha_scale,
    duality_gap,
    solve_gfb_svm,
    svm_dual_objective,
    svm_problem,
)

#: The model the GFB studies below measured (the defaults before Newton's method): the paper's
#: hinge by GFB and landmarks shared by all kernels.
PAPER_MODEL = {"loss": "hinge", "solver": "gfb", "shared_landmarks": True}


def _subset(name, n, seed):
    data = load_lpmkl(name)
    X, _, y, _ = train_test_split(data.X, data.y, train_size=n, random_state=seed, stratify=data.y)
    return X, np.where(y > 0, 1.0, -1.0)


def _problem(X, y, m, R, C, seed):
    start = time.perf_counter()
    features = LowRankFeatures(paper_kernels(m), rank=R, method="nystrom", random_state=seed)
    factors = [f.G for f in features.fit(X).factors_]
    problem = svm_problem(factors, y, C, xp=xp)
    return problem, time.perf_counter() - start


def ip(args):
    """Figure 6: problem (6) at R = 500, m = 10, d_k = 1/m; GFB to a 1e-4 relative change
    (the paper's), interior point (Clarabel) to a 1e-3 relative gap (the paper stopped its IP
    within 0.1 % of GFB's objective)."""
    m, R = 10, 500
    for name in args.datasets:
        for n in args.sizes:
            for seed in args.seeds:
                X, y = _subset(name, n, seed)
                problem, setup = _problem(X, y, m, R, 1000.0, seed)
                d = np.full(m, 1.0 / m)
                rows = {}
                for label, solver, tol, max_iter in [
                    ("gfb 1e-4", "gfb", 1e-4, 3000),
                    ("gfb 1e-6", "gfb", 1e-6, 30000),
                    ("ip 1e-3", "interior_point", 1e-3, 200),
                ]:
                    start = time.perf_counter()
                    solution = SVM_SOLVERS[solver](
                        problem, d, state=None, tol=tol, max_iter=max_iter, eta=0.0, xp=xp
                    )
                    seconds = time.perf_counter() - start
                    rows[label] = seconds
                    objective = svm_dual_objective(solution, problem, xp=xp)
                    print(
                        f"ip {name} n={n} seed={seed} {label}: {seconds:.2f} s, "
                        f"{solution.n_iter} it, objective {objective:.6g} (features {setup:.1f} s)",
                        flush=True,
                    )
                print(
                    f"ip {name} n={n} seed={seed} RATIO ip/gfb(1e-4) "
                    f"{rows['ip 1e-3'] / rows['gfb 1e-4']:.2f}, ip/gfb(1e-6) "
                    f"{rows['ip 1e-3'] / rows['gfb 1e-6']:.2f}",
                    flush=True,
                )


def naive(args):
    """Figure 7: split against naive GFB at m = 20, R = 500, d_k = 1/m, tol 1e-4."""
    m, R = 20, 500
    for name in args.datasets:
        for n in args.sizes:
            for seed in args.seeds:
                X, y = _subset(name, n, seed)
                problem, _ = _problem(X, y, m, R, 1000.0, seed)
                d = np.full(m, 1.0 / m)
                times = {}
                for variant in ("split", "naive"):
                    start = time.perf_counter()
                    solution = solve_gfb_svm(problem, d, variant=variant, tol=1e-4, xp=xp)
                    times[variant] = time.perf_counter() - start
                    objective = svm_dual_objective(solution, problem, xp=xp)
                    print(
                        f"naive {name} n={n} seed={seed} {variant}: {times[variant]:.2f} s, "
                        f"{solution.n_iter} it, objective {objective:.6g}",
                        flush=True,
                    )
                print(f"naive {name} n={n} seed={seed} RATIO {times['naive'] / times['split']:.1f}")


def _kernel_set(args, X_train):
    """``--kernel-set``: the paper's ``--kernels`` Gaussians, or ten Gaussians ``γ = 2^k/d``
    (k = −4 … 5, the issue's check on unseen data; X is then standardised)."""
    if args.kernel_set == "paper":
        return paper_kernels(args.kernels)
    d = X_train.shape[1]
    return [Gaussian(gamma=2.0**k / d) for k in range(-4, 6)]


#: What ``exact`` fits beside the exact MKL (``--fits``): the default (Newton, squared hinge),
#: Newton on the hinge (the exact MKL's loss) and GFB on the hinge.
EXACT_FITS = {
    "newton": {},  # the default: squared hinge
    "newton_hinge": {"loss": "hinge"},
    "gfb_hinge": {"loss": "hinge", "solver": "gfb"},
}


def exact(args):
    """Low-rank MKL (the ``--fits`` of :data:`EXACT_FITS`) against the exact full-kernel MKL
    (SVC alternated with eq. (3)), 70/30, each C of ``--C`` (the paper's 1000 by default),
    ``--sizes[0]`` rows drawn per seed."""
    for name, seed, C in itertools.product(args.datasets, args.seeds, args.C):
        X, y = _subset(name, args.sizes[0], seed)
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=seed)
        if args.kernel_set == "powers":
            scaler = StandardScaler().fit(X_train)
            X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
        kernels = _kernel_set(args, X_train)
        start = time.perf_counter()
        Ks = [k(X_train, X_train) for k in kernels]
        d, svc, _ = full_kernel_mkl(Ks, y_train, C, args.p)
        K_test = sum(dk * k(X_test, X_train) for dk, k in zip(d, kernels, strict=True))
        accuracy = np.mean(svc.predict(K_test) == y_test)
        full = time.perf_counter() - start
        head = f"exact {name} n={len(y_train)} m={len(kernels)} C={C:g} seed={seed}"
        print(f"{head} full MKL: {full:.2f} s, acc {accuracy:.4f}", flush=True)
        for R in args.ranks:
            for label in args.fits:
                params = EXACT_FITS[label]
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    clf = LowRankMKLClassifier(
                        kernels, rank=R, p=args.p, C=C, random_state=seed, **params
                    ).fit(X_train, y_train)
                low = time.perf_counter() - start
                print(
                    f"{head} low-rank R={R} {label}: {low:.2f} s, acc "
                    f"{clf.score(X_test, y_test):.4f}, updates {clf.n_iter_}, SVM iterations "
                    f"{clf.n_svm_iter_}, RATIO full/low {full / low:.1f}",
                    flush=True,
                )


def liblinear(args):
    """GFB against liblinear inside the MKL loop, 70/30, m kernels, rank R, both C."""
    m = args.kernels
    for name in args.datasets:
        for seed in args.seeds:
            X, y = _subset(name, args.sizes[0], seed)
            X_train, X_test, y_train, y_test = train_test_split(
                X, y, test_size=0.3, random_state=seed
            )
            for C in (1.0, 1000.0):
                for solver in ("gfb", "liblinear"):
                    start = time.perf_counter()
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        clf = LowRankMKLClassifier(
                            paper_kernels(m),
                            rank=args.ranks[0],
                            p=args.p,
                            C=C,
                            **{**PAPER_MODEL, "solver": solver},
                            random_state=seed,
                        ).fit(X_train, y_train)
                    seconds = time.perf_counter() - start
                    print(
                        f"liblinear {name} n={len(y_train)} seed={seed} C={C:g} {solver}: "
                        f"{seconds:.2f} s, acc {clf.score(X_test, y_test):.4f}, "
                        f"objective {clf.objectives_[-1]:.6g}, {clf.n_iter_} updates, "
                        f"{clf.n_svm_iter_} SVM it, warned {bool(caught)}",
                        flush=True,
                    )


def scale(args):
    """GFB's iterations to relative duality gaps of 1e-2 and 1e-3 (cap 3000) with
    ``alpha_scale`` 1 (the paper's) and ``"auto"`` for each ``--constants`` value, at
    d_k = m^{-1/2} (the MKL loop's start at p = 2), for C in ``--Cs``."""
    m, R = args.kernels, args.ranks[0]
    counts = {}
    for name in args.datasets:
        for n in args.sizes:
            for seed in args.seeds:
                X, y = _subset(name, n, seed)
                for C in args.Cs:
                    problem, _ = _problem(X, y, m, R, C, seed)
                    d = np.full(m, m**-0.5)
                    cells = []
                    for constant in (None, *args.constants):
                        label = "1" if constant is None else f"auto c={constant:g}"
                        scale = (
                            1.0
                            if constant is None
                            else auto_alpha_scale(problem, d, constant=constant, xp=xp)
                        )
                        hits = _iterations_to_gaps(problem, d, scale)
                        counts.setdefault(label, []).append(hits)
                        cells.append(f"{label}: " + "/".join(str(h or ">3000") for h in hits))
                    print(f"scale {name} n={n} seed={seed} C={C:g} | " + " | ".join(cells))
    for label, rows in counts.items():
        totals = [sum(min(row[i] or 3000, 3000) for row in rows) for i in range(2)]
        missed = [sum(row[i] is None for row in rows) for i in range(2)]
        print(
            f"scale TOTAL {label}: iterations to 1e-2 / 1e-3 {totals[0]} / {totals[1]} "
            f"(cap counted as 3000; not reached {missed[0]} / {missed[1]} of {len(rows)})"
        )


def fits(args):
    """``make_pipeline(StandardScaler(), LowRankMKLClassifier(C=C, alpha_scale=…))`` with
    otherwise default parameters, ``alpha_scale`` 1 against ``"auto"``: fit time, test accuracy
    (70/30) and the final duality gap on scikit-learn's breast cancer, digits, moons and a
    ``make_classification`` set, and 1500 rows of each of ``--datasets``."""
    from sklearn.datasets import load_breast_cancer, load_digits, make_classification, make_moons
    from sklearn.pipeline import make_pipeline

    sets = {
        "breast_cancer": load_breast_cancer(return_X_y=True),
        "digits": load_digits(return_X_y=True),
        "moons": make_moons(600, noise=0.25, random_state=0),
        "synthetic": make_classification(1500, 20, n_informative=8, random_state=0),
    }
    for name in args.datasets:
        data = load_lpmkl(name)
        rows = np.random.default_rng(0).choice(len(data.y), 1500, replace=False)
        sets[name] = (data.X[rows], data.y[rows])
    for name, (X, y) in sets.items():
        for seed in args.seeds:
            split = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
            X_train, X_test, y_train, y_test = split
            for C in args.Cs:
                cells = []
                for scale in (1.0, "auto"):
                    model = LowRankMKLClassifier(
                        C=C, alpha_scale=scale, **PAPER_MODEL, random_state=seed
                    )
                    pipeline = make_pipeline(StandardScaler(), model)
                    start = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        pipeline.fit(X_train, y_train)
                    seconds = time.perf_counter() - start
                    cells.append(
                        f"{scale}: {seconds:.2f}s acc {pipeline.score(X_test, y_test):.3f} "
                        f"gap {model.duality_gap_:.1e} upd {model.n_iter_} it {model.n_svm_iter_}"
                    )
                print(f"fits {name} seed {seed} C={C:g} | " + " | ".join(cells), flush=True)


def _synthetic_split(seed):
    """1050 standardised training and 450 test rows of ``make_classification(1500, 20,
    n_informative=8)``: the set of the tolerance and gap tables."""
    from sklearn.datasets import make_classification

    X, y = make_classification(1500, 20, n_informative=8, random_state=seed)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y
    )
    scaler = StandardScaler().fit(X_train)
    return scaler.transform(X_train), scaler.transform(X_test), y_train, y_test


def _timed_fit(model, X, y):
    """``model`` fitted (warnings silenced; whether it converged is in its attributes), the
    seconds it took and the relative MKL gap of its last update (NaN unless
    ``stop="mkl_gap"``)."""
    states = []
    model.set_params(callback=states.append)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    return model, time.perf_counter() - start, states[-1].duality_gap if states else float("nan")


def tolerance(args):
    """LowRankMKLClassifier (the default seven Gaussians, R = 100, p = 2, C = 1) on the
    synthetic set under each SVM tolerance, unit of α and solver: fit time, final MKL objective,
    the last SVM's relative duality gap, the MKL gap and test accuracy."""
    settings = {
        'stop="change", tol 1e-4, alpha_scale=1 (the paper\'s)': dict(
            stop="change", tol=1e-4, alpha_scale=1.0
        ),
        'stop="change", tol 1e-6, alpha_scale=1': dict(stop="change", tol=1e-6, alpha_scale=1.0),
        'stop="change", tol 1e-6, alpha_scale="auto"': dict(stop="change", tol=1e-6),
        'stop="mkl_gap", mkl_tol 1e-3 (default)': {},
        'solver="liblinear", its tol 1e-4': dict(solver="liblinear", tol=1e-4),
    }
    print("setting | seed | fit s | MKL objective | SVM gap | MKL gap | test acc | SVM iters")
    for seed in args.seeds:
        X_train, X_test, y_train, y_test = _synthetic_split(seed)
        for label, params in settings.items():
            model = LowRankMKLClassifier(rank=100, **{**PAPER_MODEL, **params}, random_state=seed)
            model, seconds, mkl_gap = _timed_fit(model, X_train, y_train)
            print(
                f"{label} | {seed} | {seconds:.2f} | {model.objectives_[-1]:.6g} | "
                f"{model.duality_gap_:.1e} | {mkl_gap:.1e} | "
                f"{model.score(X_test, y_test):.3f} | {model.n_svm_iter_}",
                flush=True,
            )


def gap(args):
    """Where each stopping rule ends (the default seven Gaussians, R = 100, p = 2) against a
    reference fit to an MKL gap of 1e-6, for C in ``--Cs``: the final MKL objective, the
    largest weight difference from the reference's and the fit time, on the synthetic set and
    on 1050 rows of each of ``--datasets``."""
    rules = {
        "change 1e-4, alpha_scale=1 (the paper's)": dict(stop="change", tol=1e-4, alpha_scale=1.0),
        "change 1e-6 (the former default)": dict(stop="change", tol=1e-6),
        "mkl_gap 1e-3 (default)": {},
    }
    sets = {"synthetic": _synthetic_split(0)[::2]}
    for name in args.datasets:
        sets[name] = _subset(name, 1050, 0)
    print("set | C | rule | fit s | MKL objective | reference's | max |d - d_ref| | MKL gap")
    for name, (X, y) in sets.items():
        for C in args.Cs:
            reference, _, _ = _timed_fit(
                LowRankMKLClassifier(
                    rank=100,
                    C=C,
                    mkl_tol=1e-6,
                    **PAPER_MODEL,
                    max_iter=100_000,
                    max_outer_iter=10_000,
                    random_state=0,
                ),
                X,
                y,
            )
            for rule, params in rules.items():
                model = LowRankMKLClassifier(rank=100, C=C, **PAPER_MODEL, random_state=0, **params)
                model, seconds, mkl_gap = _timed_fit(model, X, y)
                change = float(np.max(np.abs(model.kernel_weights_ - reference.kernel_weights_)))
                print(
                    f"{name} | {C:g} | {rule} | {seconds:.2f} | {model.objectives_[-1]:.6g} | "
                    f"{reference.objectives_[-1]:.6g} | {change:.1e} | {mkl_gap:.1e}",
                    flush=True,
                )


def _iterations_to_gaps(problem, d, alpha_scale, gaps=(1e-2, 1e-3), cap=3000):
    """Iterations of GFB from zero until the relative duality gap first falls below each of
    ``gaps`` (checked every 10), or None."""
    hits, state, done = [None] * len(gaps), None, 0
    while done < cap and None in hits:
        solution = solve_gfb_svm(
            problem, d, tol=0.0, max_iter=10, state=state, alpha_scale=alpha_scale, xp=xp
        )
        state, done = solution.state, done + 10
        gap = duality_gap(problem, d, solution.alpha, xp=xp)
        hits = [h if h is not None or gap > g else done for h, g in zip(hits, gaps, strict=True)]
    return hits


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", choices=[*TARGETS])
    parser.add_argument("--datasets", nargs="+", default=["svmguide1", "magic"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[1000, 2000])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    parser.add_argument("--ranks", nargs="+", type=int, default=[100])
    parser.add_argument("--kernels", type=int, default=10)
    parser.add_argument("--kernel-set", choices=["paper", "powers"], default="paper")
    parser.add_argument("--p", type=float, default=2.0)
    parser.add_argument(
        "--C", nargs="+", type=float, default=[1000.0], help="the Cs of the 'exact' comparison"
    )
    parser.add_argument("--fits", nargs="+", choices=[*EXACT_FITS], default=[*EXACT_FITS])
    parser.add_argument("--Cs", nargs="+", type=float, default=[0.1, 1.0, 10.0, 100.0, 1000.0])
    parser.add_argument("--constants", nargs="+", type=float, default=[0.1])
    _report.add_rst_argument(parser, "lpmkl_targets_{target}")
    args = parser.parse_args()
    with _report.capture(args.rst, target=args.target):
        TARGETS[args.target](args)


TARGETS = {
    "ip": ip,
    "naive": naive,
    "exact": exact,
    "liblinear": liblinear,
    "scale": scale,
    "fits": fits,
    "tolerance": tolerance,
    "gap": gap,
}

if __name__ == "__main__":
    main()

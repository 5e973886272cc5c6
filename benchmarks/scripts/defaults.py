"""The defaults on held-out data: lrkl's estimators as a scikit-learn user first tries them.

    python benchmarks/scripts/defaults.py regression [--seeds 5] [--sets mpg,boston] [--out F]
    python benchmarks/scripts/defaults.py classification [--seeds 5] [--models ...] [--out F]
    python benchmarks/scripts/defaults.py report F [--rst]      # the table of a run
    python benchmarks/scripts/defaults.py every [--seeds 3]     # every regressor at its defaults

``regression`` and ``classification`` run the panel of issue 35. Every model is fitted inside
``make_pipeline(StandardScaler(), model)`` on raw ``y``, with one BLAS thread (threadpoolctl);
per seed the rows are shuffled, the first 2/3 train (at most 8 000 rows for regression, 4 000
for classification) and the last 1/3 test; classification binarises ``y`` at the training median
(svmguide1, ionosphere, magic and mushrooms keep their two classes). The kernel peers are
scikit-learn's ``KernelRidge(kernel="rbf")``, its grid search, ``Nystroem(1000)`` + ``RidgeCV``,
himalaya's ``KernelRidgeCV(kernel="rbf")`` (regression); ``SVC()``, its grid search,
``Nystroem(1000)`` + ``LogisticRegression``, MKLpy's ``EasyMKL`` on seven Gaussian kernels
(classification); the dense ones only up to 4 000 training rows. Each fit appends one JSON line
to ``--out`` (a run resumes where it stopped); ``report`` counts, per lrkl model, the sets where
its mean score over the seeds is within 0.005 of the best peer's or better, and its median fit
time over the reference peer's (``Nystroem(1000)+RidgeCV``, ``GridSearchCV(SVC)``), with the worst
set beside the best. The data sets are read from lrkl's data home (``LRKL_DATA``): the ``.npz``
files of ``../shared/data``. himalaya and MKLpy come with ``pip install himalaya MKLpy torch``;
a model whose library is missing is left out with a line saying so.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import time
import warnings
from collections.abc import Callable

import _report
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_diabetes, make_friedman1, make_regression
from sklearn.kernel_approximation import Nystroem
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import LogisticRegression, RidgeCV
from sklearn.metrics import r2_score
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

import lrkl
from lrkl.datasets import load_abalone, load_boston
from lrkl.datasets._home import data_file
from lrkl.kernels import default_kernels

#: The regression sets (data-home folder, file); the classification panel binarises them.
REGRESSION_SETS = {
    "abalone": ("abalone", "abalone.npz"),
    "boston": ("boston", "boston.npz"),
    "bodyfat": ("bodyfat", "bodyfat_scale.npz"),
    "cpusmall": ("cpusmall", "cpusmall.npz"),
    "comp-activ": ("comp-activ", "comp-activ_cpu.npz"),
    "kin": ("kin", "kin-8fm.npz"),
    "pumadyn": ("pumadyn", "pumadyn-8fm.npz"),
    "bank": ("bank", "bank-8fm.npz"),
    "mg": ("mg", "mg_scale.npz"),
    "mpg": ("mpg", "mpg_scale.npz"),
    "space_ga": ("space_ga", "space_ga_scale.npz"),
    "triazines": ("triazines", "triazines_scale.npz"),
    "diabetes": ("diabetes", "diabetes_sklearn_raw.npz"),
}
#: Two-class sets of their own, added to the classification panel.
CLASSIFICATION_SETS = {
    "svmguide1": ("svmguide1", "svmguide1.npz"),
    "ionosphere": ("ionosphere", "ionosphere_uci_layout.npz"),
    "magic": ("magic", "magic.npz"),
    "mushrooms": ("mushrooms", "mushrooms_onehot.npz"),
}
CAP = {"regression": 8_000, "classification": 4_000}
DENSE_CAP = 4_000  # the peers that form n × n
NYSTROEM = {"n_components": 1000, "random_state": 0}


class EasyMKLPeer(ClassifierMixin, BaseEstimator):
    """MKLpy's ``EasyMKL()`` on seven Gaussian kernels ``γ₀·2^k``, ``k = −3…3``,
    ``γ₀ = 1/(d·Var X)``, as a scikit-learn classifier."""

    def fit(self, X, y):
        import torch
        from MKLpy.algorithms import EasyMKL

        gamma = 1.0 / (X.shape[1] * X.var())
        self.gammas_ = [gamma * 2.0**k for k in range(-3, 4)]
        self.X_ = torch.tensor(X)
        self.classes_ = np.unique(y)
        self.model_ = EasyMKL().fit(self._kernels(self.X_), torch.tensor(y))
        return self

    def _kernels(self, T):
        from MKLpy.metrics.pairwise import rbf_kernel

        return [rbf_kernel(T, self.X_, gamma=g) for g in self.gammas_]

    def predict(self, X):
        import torch

        return np.asarray(self.model_.predict(self._kernels(torch.tensor(X))))


def _himalaya(fit_intercept: bool) -> BaseEstimator:
    from himalaya.kernel_ridge import KernelRidgeCV as HimalayaKernelRidgeCV

    if fit_intercept:
        return HimalayaKernelRidgeCV(kernel="rbf", fit_intercept=True)
    return HimalayaKernelRidgeCV(kernel="rbf")


def peers(task: str, d: int) -> dict[str, tuple[Callable[[], BaseEstimator], int | None]]:
    """The kernel peers of ``task`` on ``d`` features: (factory, largest training size)."""
    widths = [f / d for f in (0.25, 0.5, 1.0, 2.0, 4.0)]
    if task == "regression":
        return {
            "sklearn KernelRidge(rbf)": (lambda: KernelRidge(kernel="rbf"), DENSE_CAP),
            "GridSearchCV(KernelRidge)": (
                lambda: GridSearchCV(
                    KernelRidge(kernel="rbf"),
                    {"alpha": np.logspace(-4, 1, 6), "gamma": widths},
                    cv=3,
                ),
                DENSE_CAP,
            ),
            "Nystroem(1000)+RidgeCV": (
                lambda: make_pipeline(Nystroem(**NYSTROEM), RidgeCV(alphas=np.logspace(-6, 3, 19))),
                None,
            ),
            "himalaya KernelRidgeCV": (lambda: _himalaya(False), DENSE_CAP),
            "himalaya KernelRidgeCV(intercept)": (lambda: _himalaya(True), DENSE_CAP),
        }
    gammas = ["scale", *(f / d for f in (0.25, 0.5, 2.0, 4.0))]
    return {
        "SVC()": (SVC, None),
        "GridSearchCV(SVC)": (
            lambda: GridSearchCV(SVC(), {"C": [0.1, 1, 10, 100], "gamma": gammas}, cv=3),
            None,
        ),
        "Nystroem(1000)+LogisticRegression": (
            lambda: make_pipeline(Nystroem(**NYSTROEM), LogisticRegression()),
            None,
        ),
        "MKLpy EasyMKL": (EasyMKLPeer, DENSE_CAP),
    }


class FormerDefault(BaseEstimator):
    """``estimator`` (a LowRankRidge-family class) as its defaults were before issue 35: seven
    Gaussian widths ``γ₀·2⁻³ … γ₀·2³`` around the training rows' ``γ₀`` (resolved in ``fit``,
    as the former ``kernels=None`` was), ICD of rank ``min(n, 100)`` each, no width search."""

    def __init__(self, estimator: type = lrkl.LowRankRidgeCV) -> None:
        self.estimator = estimator

    def fit(self, X, y):
        kernels = default_kernels(X)
        self.model_ = self.estimator(kernels, 100, "icd", gamma_factors=None).fit(X, y)
        return self

    def predict(self, X):
        return self.model_.predict(X)

    def score(self, X, y):
        return self.model_.score(X, y)


class FormerDefaultClassifier(ClassifierMixin, FormerDefault):
    """:class:`FormerDefault` of ``LowRankRidgeClassifierCV``."""

    def __init__(self, estimator: type = lrkl.LowRankRidgeClassifierCV) -> None:
        self.estimator = estimator


#: A width grid shifted toward wide kernels (γ₀/16 … 2γ₀), against the default γ₀/4 … 4γ₀.
WIDE_FACTORS = (1 / 16, 1 / 4, 1 / 2, 1.0, 2.0)

#: lrkl's candidates per task (``--models`` picks among them and the peers).
LRKL = {
    "regression": {
        "LowRankRidgeCV()": lrkl.LowRankRidgeCV,
        "LowRankRidgeCV(7 widths, icd 100)": FormerDefault,
        "LowRankRidgeCV(rbf, nystrom 1000)": lambda: lrkl.LowRankRidgeCV(
            ["rbf"], rank=1000, method="nystrom", random_state=0
        ),
        "LowRankRidgeCV(centers='leverage')": lambda: lrkl.LowRankRidgeCV(centers="leverage"),
        "LowRankRidgeCV(gamma_factors 1/16..2)": lambda: lrkl.LowRankRidgeCV(
            gamma_factors=WIDE_FACTORS
        ),
    },
    "classification": {
        "LowRankRidgeClassifierCV()": lrkl.LowRankRidgeClassifierCV,
        "LowRankRidgeClassifierCV(7 widths, icd 100)": FormerDefaultClassifier,
        "LowRankRidgeClassifierCV(rbf, nystrom 1000)": lambda: lrkl.LowRankRidgeClassifierCV(
            ["rbf"], rank=1000, method="nystrom", random_state=0
        ),
        "LowRankRidgeClassifierCV(centers='leverage')": lambda: lrkl.LowRankRidgeClassifierCV(
            centers="leverage"
        ),
        "LowRankRidgeClassifierCV(gamma_factors 1/16..2)": lambda: lrkl.LowRankRidgeClassifierCV(
            gamma_factors=WIDE_FACTORS
        ),
        "LowRankMKLClassifier()": lambda: lrkl.LowRankMKLClassifier(random_state=0),
        "LowRankMKLClassifierCV()": lambda: lrkl.LowRankMKLClassifierCV(random_state=0),
        "LowRankMKLClassifierCV(rbf, nystrom 1000)": lambda: lrkl.LowRankMKLClassifierCV(
            ["rbf"], rank=1000, random_state=0
        ),
    },
}
REFERENCE = {"regression": "Nystroem(1000)+RidgeCV", "classification": "GridSearchCV(SVC)"}


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) of a panel set, from the data home."""
    folder, file = {**REGRESSION_SETS, **CLASSIFICATION_SETS}[name]
    with np.load(data_file(folder, file, name=name)) as z:
        if "X" in z:
            return z["X"].astype(np.float64), z["y"].astype(np.float64)
        X = np.concatenate([z["X_train"], z["X_test"]]).astype(np.float64)
        return X, np.concatenate([z["y_train"], z["y_test"]]).astype(np.float64)


def split(X, y, seed: int, cap: int, binarise: bool):
    """The protocol's shuffle: the first 2/3 train (at most ``cap`` rows), the last 1/3 test;
    ``binarise`` puts y at the training median into two classes."""
    order = np.random.default_rng(seed).permutation(X.shape[0])
    n_test = X.shape[0] // 3
    train, test = order[: X.shape[0] - n_test][:cap], order[X.shape[0] - n_test :]
    y_train, y_test = y[train], y[test]
    if binarise:
        median = np.median(y_train)
        y_train, y_test = (y_train > median).astype(int), (y_test > median).astype(int)
    return X[train], X[test], y_train, y_test


def run(task: str, sets: list[str], seeds: int, names: list[str] | None, out: pathlib.Path):
    done = set()
    if out.exists():
        done = {(r["set"], r["seed"], r["model"]) for r in map(json.loads, out.open())}
    for name in sets:
        X, y = load(name)
        binarise = task == "classification" and name not in CLASSIFICATION_SETS
        models = {k: (v, None) for k, v in LRKL[task].items()} | peers(task, X.shape[1])
        for seed in range(seeds):
            X_tr, X_te, y_tr, y_te = split(X, y, seed, CAP[task], binarise)
            for label, (make, cap) in models.items():
                if (names and label not in names) or (name, seed, label) in done:
                    continue
                if cap is not None and X_tr.shape[0] > cap:
                    continue
                try:
                    model = make_pipeline(StandardScaler(), make())
                except ImportError as exc:
                    print(f"{label}: left out ({exc})", flush=True)
                    continue
                start = time.perf_counter()
                with warnings.catch_warnings(), threadpool_limits(1):
                    warnings.simplefilter("ignore")
                    model.fit(X_tr, y_tr)
                seconds = time.perf_counter() - start
                score = model.score(X_te, y_te) if task == "classification" else None
                if score is None:
                    score = r2_score(y_te, model.predict(X_te))
                row = dict(set=name, seed=seed, model=label, score=float(score), fit_s=seconds)
                row["n_train"] = int(X_tr.shape[0])
                with out.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(f"{name:11s} {seed} {label:45s} {score:7.4f} {seconds:8.2f} s", flush=True)


def report(path: pathlib.Path, tolerance: float = 0.005) -> None:
    rows = [json.loads(line) for line in path.open()]
    classifiers = set(LRKL["classification"]) | set(peers("classification", 1))
    task = "classification" if any(r["model"] in classifiers for r in rows) else "regression"
    mean: dict[tuple[str, str], list[float]] = {}
    fit: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        mean.setdefault((r["set"], r["model"]), []).append(r["score"])
        fit.setdefault((r["set"], r["model"]), []).append(r["fit_s"])
    sets = sorted({r["set"] for r in rows})
    peer_names = set(peers(task, 1))
    seeds = len({r["seed"] for r in rows})
    models = [m for m in dict.fromkeys(r["model"] for r in rows)]
    print(f"{task}: {len(sets)} sets, {seeds} seeds; mean test score and fit seconds per set of")
    for k, m in enumerate(models, 1):
        print(f"  [{k}] {m}")
    print(
        f"{'set':11s} {'n':>5s} " + " ".join(f"{f'[{k}]':>14s}" for k in range(1, len(models) + 1))
    )
    for s in sets:
        n = max(r["n_train"] for r in rows if r["set"] == s)
        cells = [
            f"{np.mean(mean[s, m]):.3f} {np.mean(fit[s, m]):6.2f}s" if (s, m) in mean else "—"
            for m in models
        ]
        print(f"{s:11s} {n:5d} " + " ".join(f"{c:>14s}" for c in cells))
    print()
    print(f"within {tolerance} of the best peer's mean score, and fit time over {REFERENCE[task]}")
    print(f"{'model':45s} {'within':>7s} {'median time ratio':>18s}  worst set / best set")
    for label in LRKL[task]:
        gaps, ratios = [], []
        for s in sets:
            scores = [np.mean(v) for (t, m), v in mean.items() if t == s and m in peer_names]
            if (s, label) not in mean or not scores:  # a set without a peer: nothing to compare
                continue
            best = max(scores)
            gaps.append((np.mean(mean[s, label]) - best, s))
            if (s, REFERENCE[task]) in fit:
                ratios.append(np.mean(fit[s, label]) / np.mean(fit[s, REFERENCE[task]]))
        if not gaps:
            continue
        within = sum(g >= -tolerance for g, _ in gaps)
        (worst, w_set), (top, t_set) = min(gaps), max(gaps)
        ratio = statistics.median(ratios) if ratios else float("nan")
        print(
            f"{label:45s} {within:3d}/{len(gaps):<3d} {ratio:18.2f}  "
            f"{w_set} {worst:+.3f} / {t_set} {top:+.3f}"
        )


def every(seeds: int, n: int) -> None:
    """Every lrkl regressor at its defaults beside scikit-learn's ``KernelRidge(rbf)``."""
    estimators = {
        "sklearn KernelRidge(rbf)": lambda: KernelRidge(kernel="rbf"),
        **{
            name: getattr(lrkl, name)
            for name in lrkl.__all__
            if isinstance(getattr(lrkl, name), type)
            and issubclass(getattr(lrkl, name), BaseEstimator)
            and "Classifier" not in name
        },
    }
    abalone, boston = load_abalone(), load_boston()
    data = {
        "diabetes": load_diabetes(return_X_y=True),
        "friedman1": make_friedman1(n_samples=n, noise=1.0, random_state=0),
        "make_regression": make_regression(
            n_samples=n, n_features=8, n_informative=6, noise=20.0, random_state=0
        ),
        "abalone": (abalone.X, abalone.y),
        "boston": (boston.X, boston.y),
    }
    r2: dict[tuple[str, str], list[float]] = {}
    for name, (X, y) in data.items():
        for seed in range(seeds):
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=seed)
            for label, make in estimators.items():
                model = make_pipeline(StandardScaler(), make())
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(X_tr, y_tr)
                r2.setdefault((name, label), []).append(r2_score(y_te, model.predict(X_te)))
    print(f"{'estimator':26s}" + "".join(f"{k:>16s}" for k in data) + f"{'worst gap':>11s}")
    for label in estimators:
        means = [float(np.mean(r2[name, label])) for name in data]
        worst = min(
            float(np.min(np.subtract(r2[name, label], r2[name, "sklearn KernelRidge(rbf)"])))
            for name in data
        )
        print(f"{label:26s}" + "".join(f"{m:16.3f}" for m in means) + f"{worst:11.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for task in ("regression", "classification"):
        p = sub.add_parser(task)
        p.add_argument("--seeds", type=int, default=5)
        p.add_argument("--sets", help="comma-separated names (default: the whole panel)")
        p.add_argument("--models", help="model labels separated by semicolons (default: all)")
        p.add_argument("--out", type=pathlib.Path, default=pathlib.Path(f"defaults_{task}.jsonl"))
    p = sub.add_parser("report")
    p.add_argument("path", type=pathlib.Path)
    _report.add_rst_argument(p, "defaults_{task}")
    p = sub.add_parser("every")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--n", type=int, default=3000)
    args = parser.parse_args()
    if args.command == "report":
        task = args.path.stem.split("_")[-1]
        with _report.capture(args.rst, task=task):
            report(args.path)
    elif args.command == "every":
        every(args.seeds, args.n)
    else:
        sets = list(REGRESSION_SETS)
        if args.command == "classification":
            sets += list(CLASSIFICATION_SETS)
        sets = args.sets.split(",") if args.sets else sets
        names = args.models.split(";") if args.models else None
        run(args.command, sets, args.seeds, names, args.out)


if __name__ == "__main__":
    main()

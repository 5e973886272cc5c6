"""LowRankMKLClassifier's stopping rules side by side: the certified MKL duality gap
(``stop="mkl_gap"``, ``mkl_tol`` 1e-3, the default) against the paper's pair of rules
(``stop="change"``, tol 1e-6, the default before it), on a panel of sets, sizes, C and seeds.

Each row fits both on the same split in the same process, one after the other, and reports fit
time, test accuracy, outer updates, SVM iterations and whether the rule held. Data: svmguide1 is
bundled; mushrooms,
magic and adult are read from the data home (``LRKL_DATA``), and skipped when absent.

    python benchmarks/scripts/lpmkl_stop_panel.py [--n 2000] [--seeds 3]
"""

from __future__ import annotations

import argparse
import time
import warnings

import _report
import numpy as np
from lpmkl_targets import PAPER_MODEL
from sklearn.exceptions import ConvergenceWarning

from lrkl import LowRankMKLClassifier
from lrkl.datasets import load_lpmkl

RULES = {"mkl_gap 1e-3": {"stop": "mkl_gap"}, "change 1e-6": {"stop": "change"}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--sets", default="svmguide1,mushrooms,magic,adult")
    parser.add_argument("--C", default="1,100")
    _report.add_rst_argument(parser, "lpmkl_stop_panel")
    args = parser.parse_args()
    with _report.capture(args.rst):
        panel(args)


def panel(args: argparse.Namespace) -> None:
    print("set | C | seed | rule | fit s | test acc | updates | SVM iters | converged")
    for name in args.sets.split(","):
        try:
            data = load_lpmkl(name)
        except (FileNotFoundError, OSError) as exc:
            print(f"{name}: skipped ({exc})")
            continue
        for C in (float(c) for c in args.C.split(",")):
            for seed in range(args.seeds):
                rng = np.random.default_rng(seed)
                order = rng.permutation(data.X.shape[0])
                n = min(args.n, data.X.shape[0] // 2)
                train, test = order[:n], order[n : 2 * n]
                for rule, params in RULES.items():
                    model = LowRankMKLClassifier(
                        rank=50, C=C, **PAPER_MODEL, random_state=seed, **params
                    )
                    start = time.perf_counter()
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always", ConvergenceWarning)
                        model.fit(data.X[train], data.y[train])
                    seconds = time.perf_counter() - start
                    converged = not any(w.category is ConvergenceWarning for w in caught)
                    accuracy = model.score(data.X[test], data.y[test])
                    print(
                        f"{name} | {C:g} | {seed} | {rule} | {seconds:.2f} | {accuracy:.4f} | "
                        f"{model.n_iter_} | {model.n_svm_iter_} | {converged}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()

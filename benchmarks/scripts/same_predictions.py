"""Whether a refactoring kept every result: the predictions of each public estimator, fitted in
float64 with each of its string options in turn, saved at one commit and compared at another.

    PYTHONPATH=OLD/src python benchmarks/scripts/same_predictions.py --save base.pkl
    python benchmarks/scripts/same_predictions.py --compare base.pkl [--rtol 1e-12]

``--save`` fits, at the commit on ``PYTHONPATH``, every estimator that ``lrkl`` exports, with
its own defaults but explicit kernels, ranks and seeds (defaults that a later commit changes on
purpose would otherwise count as a difference), and once more for each value of each string
option (``method``, ``solver``, ``mode``, …) that it accepts; it keeps each fit's parameters,
as that commit's ``get_params`` gives them, and its predictions (``decision_function`` for a
classifier). ``--compare`` refits with the saved parameters (a name renamed since is taken by
its deprecated alias; a parameter added since at :data:`OLD_MODEL`'s value) and prints, per
fit, the largest difference relative to the largest saved value; it exits with 1 where one is
beyond ``--rtol``. One BLAS thread on both sides. The script itself must run at both commits
(Python 3.11, the commit's lrkl): copy it out of the tree to run it at an older one.
"""

from __future__ import annotations

import argparse
import inspect
import pathlib
import pickle
import warnings

import numpy as np
from sklearn.base import BaseEstimator, is_classifier
from sklearn.utils._param_validation import StrOptions
from threadpoolctl import threadpool_limits

import lrkl
from lrkl.kernels import Gaussian, Linear

#: Options whose values are models or solvers (a kernel's name is left out: it is a kernel).
OPTIONS = (
    "method",
    "solver",
    "mode",
    "bias",
    "loss",
    "stop",
    "selection",
    "step",
    "scoring",
    "first_pivot",
    "columns",
)
#: What each estimator gets instead of a default that a later commit may change on purpose.
EXPLICIT = {
    "kernel": Gaussian(gamma=0.5),
    "kernels": [Gaussian(gamma=0.25), Gaussian(gamma=2.0), Linear()],
    "rank": 20,
    "n_columns": 30,
    "n_components": 15,
    "n_landmarks": 60,
    "random_state": 0,
}

#: Parameters added since a save, at the value that gives the saved commit's model where their
#: default does not (``LowRankMKLClassifier``'s became the squared hinge and a Nyström draw per
#: kernel).
OLD_MODEL = {"loss": "hinge", "shared_landmarks": True}


def _data():
    """Training rows with regression targets and binary labels, and test rows:
    (X, y, labels, X_test)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 3))
    Xt = rng.standard_normal((60, 3))
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.standard_normal(150)
    return X, y, (y > np.median(y)).astype(int), Xt


def _choices(cls):
    """``{option: its string values}`` of the estimator class ``cls``."""
    return {
        key: sorted(constraint.options)
        for key, constraints in getattr(cls, "_parameter_constraints", {}).items()
        if key in OPTIONS
        for constraint in constraints
        if isinstance(constraint, StrOptions)
    }


def _fits():
    """(estimator name, candidate parameters) for every fit ``--save`` makes: each candidate
    list holds the parameters of one value of one option, then the same with each other value
    of each other option (``selection="greedy"`` needs ``solver="coordinate"``); the first that
    fits is kept."""
    for name in lrkl.__all__:
        cls = getattr(lrkl, name)
        if not (inspect.isclass(cls) and issubclass(cls, BaseEstimator)):
            continue
        defaults = cls().get_params(deep=False)
        base = {**defaults, **{k: v for k, v in EXPLICIT.items() if k in defaults}}
        yield name, [base]
        choices = _choices(cls)
        for key, values in choices.items():
            for value in values:
                if value == base[key]:
                    continue
                variant = {**base, key: value}
                partners = [
                    {**variant, other: v}
                    for other, others in choices.items()
                    if other != key
                    for v in others
                    if v != base[other]
                ]
                yield name, [variant, *partners]


def _predict(name, params, data):
    X, y, labels, Xt = data
    cls = getattr(lrkl, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(**params)
        if is_classifier(model):
            return np.asarray(model.fit(X, labels).decision_function(Xt), dtype=float)
        return np.asarray(model.fit(X, y).predict(Xt), dtype=float)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", type=pathlib.Path)
    group.add_argument("--compare", type=pathlib.Path)
    parser.add_argument("--rtol", type=float, default=1e-12)
    args = parser.parse_args(argv)
    data = _data()
    with threadpool_limits(1):
        if args.save:
            saved = []
            for name, candidates in _fits():
                for params in candidates:
                    try:
                        saved.append((name, params, _predict(name, params, data)))
                        break
                    except Exception:  # an option this estimator refuses in this combination
                        continue
                else:
                    options = {k: v for k, v in candidates[0].items() if k in OPTIONS}
                    print(f"{name} {options}: not fitted with any other option")
            args.save.write_bytes(pickle.dumps(saved))
            print(f"{len(saved)} fits saved to {args.save}")
            return 0
        worst, failed = [], 0
        for name, params, before in pickle.loads(args.compare.read_bytes()):
            accepted = getattr(lrkl, name)().get_params(deep=False)
            params = {
                **{k: v for k, v in OLD_MODEL.items() if k in accepted and k not in params},
                **params,
            }
            options = {k: v for k, v in params.items() if k in OPTIONS}
            try:
                after = _predict(name, params, data)
            except Exception as error:
                print(f"{name} {options}: refused now ({type(error).__name__}: {error})")
                failed += 1
                continue
            scale = max(float(np.max(np.abs(before))), np.finfo(float).tiny)
            diff = float(np.max(np.abs(after - before))) / scale
            worst.append((diff, name, options))
            failed += diff > args.rtol
        for diff, name, options in sorted(worst, key=lambda row: -row[0]):
            flag = "  BEYOND" if diff > args.rtol else ""
            print(f"{diff:9.2e}  {name} {options}{flag}")
        print(f"{len(worst)} fits compared; {failed} beyond {args.rtol:g} or refused")
        return int(failed > 0)


if __name__ == "__main__":
    raise SystemExit(main())

"""Sweep of malformed, extreme and edge inputs over lrkl's public API (issue 33, "Done when").

Every public estimator (``lrkl.__all__`` and ``LowRankFeatures``), the kernels and the public
functional API (``lrkl.lowrank``, ``lrkl.kernel_ridge``, ``lrkl.alignment``, ``lrkl.lpmkl``) get
malformed X / y / sample_weight, extreme scales and translations, every dtype, constructor values at
their bounds and at 1e±300, awkward labels and refits with changed shapes. Each case ends in one
class:

- ``OK``: the call returned finite results that agree with the case's reference, or it refused with
  a ValueError / TypeError / NotFittedError / MemoryError whose message names the argument;
- ``UNNAMED``: a ValueError / TypeError whose message does not name the argument;
- ``FOREIGN``: any other exception (LinAlgError, IndexError, KeyError, ZeroDivisionError, …) or a
  NumPy / SciPy-internal message (conversion, broadcasting, zero-size array);
- ``SILENT-WRONG``: a model returned with non-finite predictions, predictions off their reference
  (the fit on the unperturbed data for scales, the fit on ``(X + c) − c`` for translations, the
  float64 fit of the same rounded values for dtypes, the array fit for lists / DataFrames), or
  invalid input accepted;
- ``BROKEN``: a fit that raised changed the estimator (a fresh one got fitted attributes, a fitted
  one predicts differently);
- ``SLOW``: the case ran past the time limit (killed by the watchdog).

Cases run in forked worker processes that the parent kills when one runs past ``--timeout``.

    OPENBLAS_NUM_THREADS=1 python benchmarks/scripts/input_sweep.py            # ~3000 cases
    OPENBLAS_NUM_THREADS=1 python benchmarks/scripts/input_sweep.py --quick    # every 8th case
    python benchmarks/scripts/input_sweep.py --only KernelRidgeCV --show 50
"""

from __future__ import annotations

import argparse
import collections
import math
import multiprocessing
import os
import re
import sys
import time
import traceback
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Any

# One BLAS thread per worker, set before NumPy loads its BLAS.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.utils._param_validation import Interval  # noqa: E402

import lrkl  # noqa: E402
from lrkl import alignment, kernel_ridge, lowrank, lpmkl  # noqa: E402
from lrkl.kernels import Gaussian, Laplacian, Linear, Polynomial, Precomputed  # noqa: E402
from lrkl.lowrank import LowRankFeatures  # noqa: E402

CLASSES = ("OK", "UNNAMED", "FOREIGN", "SILENT-WRONG", "BROKEN", "SLOW")

#: Messages that come from inside NumPy / SciPy / pandas, not from lrkl's validation.
FOREIGN_MESSAGES = re.compile(
    r"could not convert|inhomogeneous|could not be broadcast|setting an array element|"
    r"zero-size array|invalid literal|unhashable|not supported between instances|"
    r"object arrays are not supported|Unable to allocate|cannot convert float NaN|"
    r"index .* is out of bounds|boolean value of NA|float\(\) argument|"
    r"Cannot cast array|ufunc|array must not contain infs or NaNs|leading minor|"
    r"singular matrix|SVD did not converge|math domain error|division by zero",
    re.IGNORECASE,
)

N, D, NT = 40, 3, 10
RNG = np.random.default_rng(0)
X0 = RNG.normal(size=(N, D))
XT0 = RNG.normal(size=(NT, D))
Y0 = np.sin(X0[:, 0]) + X0[:, 1]
YT0 = np.sin(XT0[:, 0]) + XT0[:, 1]
YC0 = (np.median(Y0) < Y0).astype(int)

CLASSIFIERS = {
    "LowRankMKLClassifier",
    "LowRankRidgeClassifier",
    "LowRankRidgeClassifierCV",
    "SLKLClassifier",
}
#: Estimators whose pivots (or landmarks) may change with the last bits of the data; for dtypes
#: their test score is compared (within 0.01) when their predictions differ.
PIVOTED = {
    "LowRankRidge",
    "LowRankRidgeCV",
    "LowRankRidgeClassifier",
    "LowRankRidgeClassifierCV",
    "LowRankFeatures",
    "MklarenRegressor",
}
#: Estimators that stop on a tolerance: their references agree to about that tolerance.
ITERATIVE = {"LowRankMKLClassifier", "SLKLClassifier", "SLKLRegressor", "SLKLRegressorCV"}
SINGLE_KERNEL = {
    "KernelRidge",
    "KernelRidgeCV",
    "KernelRidgeSubset",
    "SLKLClassifier",
    "SLKLRegressor",
    "SLKLRegressorCV",
    "UniformRankOneRidge",
}
ESTIMATORS = sorted(
    [n for n in lrkl.__all__ if isinstance(getattr(lrkl, n), type)] + ["LowRankFeatures"]
)
FAST_PARAMS: dict[str, dict[str, Any]] = {
    "LowRankMKLClassifier": {"rank": 5, "random_state": 0},
    "SLKLClassifier": {"random_state": 0},
    "SLKLRegressor": {"random_state": 0},
    "SLKLRegressorCV": {"random_state": 0, "cv": 3, "n_nus": 6},
    "KernelRidgeSubset": {"random_state": 0},
    "UniformRankOneRidge": {"random_state": 0},
    "LowRankRidge": {"random_state": 0},
    "LowRankRidgeCV": {"random_state": 0},
    "LowRankRidgeClassifier": {"random_state": 0},
    "LowRankRidgeClassifierCV": {"random_state": 0},
    "LowRankFeatures": {"random_state": 0},
}


def estimator_class(name: str) -> type:
    return LowRankFeatures if name == "LowRankFeatures" else getattr(lrkl, name)


def make(name: str, kernels: Any = "stationary", **params: Any) -> Any:
    """An estimator on the sweep's default kernels: a Gaussian (one-kernel estimators) or a
    Gaussian and a Laplacian, both translation-invariant and ``gamma="scale"``."""
    if kernels == "stationary":
        kernels = [Gaussian()] if name in SINGLE_KERNEL else [Gaussian(), Laplacian()]
    elif not isinstance(kernels, list):
        kernels = [kernels]
    key = "kernel" if name in SINGLE_KERNEL else "kernels"
    value = kernels[0] if name in SINGLE_KERNEL else list(kernels)
    return estimator_class(name)(**{key: value, **FAST_PARAMS.get(name, {}), **params})


def outputs(est: Any, X: Any) -> np.ndarray:
    """What a fitted estimator answers on X: decision values for classifiers, the Gram of the
    features for LowRankFeatures (invariant to the factor's rotation), predictions otherwise."""
    if isinstance(est, LowRankFeatures):
        F = np.asarray(est.transform(X), dtype=np.float64)
        return F @ F.T
    if hasattr(est, "decision_function"):
        labels = np.asarray(est.predict(X))
        if not set(labels.tolist()) <= set(np.asarray(est.classes_).tolist()):
            msg = f"predict returned labels outside classes_: {sorted(set(labels.tolist()))}"
            raise SilentWrong(msg)
        return np.asarray(est.decision_function(X), dtype=np.float64)
    return np.asarray(est.predict(X), dtype=np.float64)


class SilentWrong(Exception):
    """Raised by a check when a returned result is wrong."""


@dataclass
class Outcome:
    cls: str
    message: str = ""


@dataclass
class Case:
    target: str  # estimator, kernel or function
    kind: str  # what was perturbed
    run: Callable[[], Outcome] = field(repr=False)


def refusal(exc: BaseException, names: tuple[str, ...]) -> Outcome:
    text = f"{type(exc).__name__}: {exc}".replace("\n", " ")[:300]
    if isinstance(exc, NotFittedError):
        return Outcome("OK", text)
    if isinstance(exc, np.linalg.LinAlgError) or not isinstance(
        exc, (ValueError, TypeError, MemoryError)
    ):
        return Outcome("FOREIGN", text)
    if FOREIGN_MESSAGES.search(str(exc)):
        return Outcome("FOREIGN", text)
    if any(re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?![A-Za-z_])", str(exc)) for n in names):
        return Outcome("OK", text)
    return Outcome("UNNAMED", text)


def compare(got: np.ndarray, ref: np.ndarray, tol: float, what: str) -> None:
    if got.shape != ref.shape:
        msg = f"{what}: output shape {got.shape}, reference {ref.shape}"
        raise SilentWrong(msg)
    spread = float(np.ptp(ref)) if ref.size else 0.0
    scale = max(spread, float(np.max(np.abs(ref))) * 1e-12 if ref.size else 0.0, 1e-300)
    err = float(np.max(np.abs(got - ref))) if ref.size else 0.0
    if not err <= tol * scale:
        msg = f"{what}: off by {err:.3g} at a spread of {spread:.3g} (tolerance {tol:g})"
        raise SilentWrong(msg)


def quiet(fn: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def snapshot(est: Any) -> dict[str, Any]:
    return dict(vars(est))


def same_state(before: dict[str, Any], est: Any) -> bool:
    after = vars(est)
    return before.keys() == after.keys() and all(after[k] is v for k, v in before.items())


def estimator_case(
    name: str,
    fit_args: Callable[[], tuple],
    Xt: Callable[[], Any] | None = None,
    *,
    names: tuple[str, ...] = ("X", "y"),
    reference: Callable[[], np.ndarray] | None = None,
    tol: float = 1e-6,
    must_refuse: bool = False,
    factory: Callable[[], Any] | None = None,
    score: tuple[Callable[[], Any], Any] | None = None,
    base: tuple[tuple, Any] | None = None,
) -> Callable[[], Outcome]:
    """Fit ``factory()`` on ``fit_args()``; answer on ``Xt()``; check the class of the outcome.

    A fit that raises is also tried on an estimator fitted on the base data, which must predict
    as before (all-or-nothing fit)."""
    factory = factory or (lambda: make(name))

    def run() -> Outcome:
        args = fit_args()
        try:
            est = factory()  # a kernel's constructor refuses its own parameters
        except Exception as exc:
            return refusal(exc, names)
        before = snapshot(est)
        try:
            quiet(lambda: est.fit(*args))
        except Exception as exc:  # every exception is classified
            outcome = refusal(exc, names)
            if not same_state(before, est):
                return Outcome(
                    "BROKEN", f"a failed first fit changed the estimator; {outcome.message}"
                )
            fitted = factory()
            base_args, base_Xt = base or ((X0, YC0 if name in CLASSIFIERS else Y0), XT0)
            try:
                quiet(lambda: fitted.fit(*base_args))
            except Exception:  # an invalid parameter: no fitted state to keep
                return outcome
            p0 = outputs(fitted, base_Xt)
            state = snapshot(fitted)
            try:
                quiet(lambda: fitted.fit(*args))
            except Exception:
                if not same_state(state, fitted) or not np.array_equal(
                    outputs(fitted, base_Xt), p0
                ):
                    return Outcome("BROKEN", f"a failed refit changed the model; {outcome.message}")
            return outcome
        if must_refuse:
            return Outcome("SILENT-WRONG", "invalid input accepted without an error")
        if Xt is None:
            return Outcome("OK")
        try:
            got = quiet(lambda: outputs(est, Xt()))
        except SilentWrong as exc:
            return Outcome("SILENT-WRONG", str(exc))
        except Exception as exc:
            out = refusal(exc, ("X",))
            if out.cls == "OK":
                out = Outcome("UNNAMED", f"predict on valid X refused: {out.message}")
            return out
        if not np.all(np.isfinite(got)):
            return Outcome("SILENT-WRONG", "non-finite predictions")
        if reference is not None:
            try:
                compare(got, reference(), tol, "predictions")
            except SilentWrong as exc:
                if score is None:
                    return Outcome("SILENT-WRONG", str(exc))
                # pivoted methods: the test score within 0.01 instead
                Xs, ys = score
                ref_est = factory()
                ref_args = score_reference_args(args)
                quiet(lambda: ref_est.fit(*ref_args))
                s1 = quiet(lambda: est.score(Xs(), ys))
                s0 = quiet(lambda: ref_est.score(np.asarray(Xs(), dtype=np.float64), ys))
                if not abs(s1 - s0) <= 0.01:
                    return Outcome("SILENT-WRONG", f"{exc}; test score {s1:.4f} vs {s0:.4f}")
        return Outcome("OK")

    return run


def score_reference_args(args: tuple) -> tuple:
    return tuple(np.asarray(a, dtype=np.float64) if isinstance(a, np.ndarray) else a for a in args)


def reference_fit(name: str, X: Any, y: Any, Xt: Any, factory: Callable[[], Any] | None = None):
    def ref() -> np.ndarray:
        est = (factory or (lambda: make(name)))()
        quiet(lambda: est.fit(X, y))
        return outputs(est, Xt)

    return ref


# ---------------------------------------------------------------------------------------------
# estimator cases


def malformed_cases(name: str) -> list[Case]:
    cls = name in CLASSIFIERS
    y = YC0 if cls else Y0
    base = reference_fit(name, X0, y, XT0)
    cases: list[tuple[str, Callable[[], Outcome]]] = []

    def bad_X(kind: str, X: Callable[[], Any], **kw: Any) -> None:
        kw.setdefault("must_refuse", True)
        cases.append((f"X {kind}", estimator_case(name, lambda: (X(), y), names=("X",), **kw)))

    def bad_y(kind: str, yy: Callable[[], Any], **kw: Any) -> None:
        kw.setdefault("must_refuse", True)
        cases.append((f"y {kind}", estimator_case(name, lambda: (X0, yy()), names=("y",), **kw)))

    def with_nan(v: float) -> np.ndarray:
        X = X0.copy()
        X[3, 1] = v
        return X

    for v in (np.nan, np.inf, -np.inf):
        bad_X(f"holds {v}", lambda v=v: with_nan(v))
    bad_X("text object array", lambda: np.where(X0 > 2, "u", X0.astype(str)).astype(object))
    bad_X("text str array (words)", lambda: np.where(X0 > 1, "high", X0.astype(str)))
    # numbers written as text are numbers (lrkl converts them as NumPy does): the array's fit
    bad_X(
        "str array of numbers",
        lambda: X0.astype(str),
        must_refuse=False,
        Xt=lambda: XT0.astype(str),
        reference=base,
        tol=1e-12,
    )
    bad_X(
        "numeric object array",
        lambda: X0.astype(object),
        must_refuse=False,
        Xt=lambda: XT0,
        reference=base,
        tol=1e-12,
    )
    bad_X(
        "list of lists",
        lambda: X0.tolist(),
        must_refuse=False,
        Xt=lambda: XT0.tolist(),
        reference=base,
        tol=1e-12,
    )
    bad_X("dict", lambda: {i: row for i, row in enumerate(X0)})
    bad_X("ragged list", lambda: [list(r) for r in X0[:-1]] + [[1.0]])
    bad_X("complex", lambda: X0 + 1j)
    bad_X(
        "masked, no mask",
        lambda: np.ma.masked_array(X0),
        must_refuse=False,
        Xt=lambda: XT0,
        reference=base,
        tol=1e-12,
    )
    bad_X("masked entries", lambda: np.ma.masked_array(X0, mask=X0 > 1.5))
    bad_X(
        "DataFrame numeric",
        lambda: pd.DataFrame(X0, columns=list("abc")),
        must_refuse=False,
        Xt=lambda: pd.DataFrame(XT0, columns=list("abc")),
        reference=base,
        tol=1e-12,
    )
    bad_X(
        "DataFrame Float64 (nullable)",
        lambda: pd.DataFrame(X0).astype("Float64"),
        must_refuse=False,
        Xt=lambda: XT0,
        reference=base,
        tol=1e-12,
    )
    bad_X("DataFrame with pd.NA", lambda: pd.DataFrame(X0).astype("Float64").mask(X0 > 1.5))

    def text_frame() -> pd.DataFrame:
        df = pd.DataFrame(X0, columns=list("abc"))
        df["b"] = np.where(X0[:, 1] > 0, "p", "n")
        return df

    def cat_frame() -> pd.DataFrame:
        df = pd.DataFrame(X0, columns=list("abc"))
        df["c"] = pd.Categorical(np.where(X0[:, 2] > 0, "p", "n"))
        return df

    bad_X("DataFrame with text", text_frame)
    bad_X("DataFrame with categorical", cat_frame)
    bad_X("empty", lambda: np.empty((0, D)))
    bad_X("no columns", lambda: np.empty((N, 0)))
    bad_X("1-D", lambda: X0[:, 0])
    bad_X("3-D", lambda: X0.reshape(N, D, 1))
    bad_X("wrong length", lambda: X0[:-3])
    bad_X("single sample", lambda: X0[:1], must_refuse=False, Xt=lambda: XT0) if not cls else None
    bad_X("two samples", lambda: X0[:2], must_refuse=False, Xt=lambda: XT0) if not cls else None
    bad_X(
        "one constant column",
        lambda: np.c_[X0[:, :2], np.full(N, 3.0)],
        must_refuse=False,
        Xt=lambda: np.c_[XT0[:, :2], np.full(NT, 3.0)],
    )
    bad_X("all constant", lambda: np.full((N, D), 2.5), must_refuse=False, Xt=lambda: XT0)
    bad_X("all zero", lambda: np.zeros((N, D)), must_refuse=False, Xt=lambda: XT0)
    bad_X("duplicated rows", lambda: np.r_[X0[:20], X0[:20]], must_refuse=False, Xt=lambda: XT0)
    bad_X("one huge entry 1e300", lambda: with_nan(1e300), must_refuse=False, Xt=lambda: XT0)
    bad_X("one tiny entry 1e-300", lambda: with_nan(1e-300), must_refuse=False, Xt=lambda: XT0)
    bad_X(
        "Fortran order",
        lambda: np.asfortranarray(X0),
        must_refuse=False,
        Xt=lambda: XT0,
        reference=base,
        tol=1e-12,
    )
    bad_X(
        "non-contiguous view",
        lambda: np.c_[X0, X0][:, ::2][:, :D],
        must_refuse=False,
        Xt=lambda: XT0,
        reference=reference_fit(name, np.c_[X0, X0][:, ::2][:, :D], y, XT0),
        tol=1e-12,
    )

    if name != "LowRankFeatures":
        for v in (np.nan, np.inf):

            def ynan(v: float = v) -> np.ndarray:
                out = y.astype(float)
                out[5] = v
                return out

            bad_y(f"holds {v}", ynan)
        bad_y("wrong length", lambda: y[:-3])
        bad_y("empty", lambda: y[:0])
        multi = name in {  # multi-output regressors
            "AlignmentKernelRidge",
            "KernelRidge",
            "KernelRidgeSubset",
            "LowRankRidge",
            "LowRankRidgeCV",
            "UniformKernelRidge",
        }
        bad_y("2-D (n, 2)", lambda: np.c_[y, y], must_refuse=not multi)
        bad_y("dict", lambda: dict(enumerate(y)))
        bad_y("ragged", lambda: [[v] for v in y[:-1]] + [[1, 2]])
        bad_y("object with None", lambda: np.r_[y.astype(object)[:-1], [None]])
        bad_y("3-D", lambda: y.reshape(N, 1, 1))
        bad_y("scalar", lambda: 1.0)
        bad_y(
            "list", lambda: y.tolist(), must_refuse=False, Xt=lambda: XT0, reference=base, tol=1e-12
        )
        bad_y(
            "pandas Series",
            lambda: pd.Series(y),
            must_refuse=False,
            Xt=lambda: XT0,
            reference=base,
            tol=1e-12,
        )
        bad_y("column (n, 1)", lambda: y.reshape(-1, 1), must_refuse=False, Xt=lambda: XT0)
        if not cls:
            bad_y("text", lambda: np.where(y > 1, "high", y.astype(str)))
            bad_y("pd.NA", lambda: pd.Series(y).astype("Float64").mask(y > 1.2))
            bad_y("complex", lambda: y + 1j)
            bad_y("constant", lambda: np.full(N, 2.0), must_refuse=False, Xt=lambda: XT0)
            bad_y(
                "int",
                lambda: np.round(3 * y).astype(int),
                must_refuse=False,
                Xt=lambda: XT0,
                reference=reference_fit(name, X0, np.round(3 * y), XT0),
                tol=1e-9,
            )
            bad_y(
                "bool",
                lambda: y > 0,
                must_refuse=False,
                Xt=lambda: XT0,
                reference=reference_fit(name, X0, (y > 0).astype(float), XT0),
                tol=1e-9,
            )
            bad_y(
                "float32",
                lambda: y.astype(np.float32),
                must_refuse=False,
                Xt=lambda: XT0,
                reference=reference_fit(name, X0, y.astype(np.float32).astype(float), XT0),
                tol=1e-4,
            )
        else:
            bad_y("one class", lambda: np.zeros(N, dtype=int))
            bad_y("str/int mixed", lambda: np.array(["a" if v else 1 for v in y], dtype=object))
            bad_y(
                "None among labels",
                lambda: np.array([None if i == 3 else v for i, v in enumerate(y)], dtype=object),
            )
            bad_y("NaN label", lambda: np.where(np.arange(N) == 3, np.nan, y.astype(float)))
            mapped = lambda labels: (  # noqa: E731
                lambda: (
                    np.asarray(labels, dtype=object)[y]
                    if isinstance(labels[0], str)
                    else np.asarray(labels)[y]
                )
            )
            for labels in (["a", "b"], [-1, 1], [10**18, -(10**18)], [0.0, 2.0], [True, False]):
                # decision values follow classes_'s order: compare with the 0/1 fit, sign
                # flipped when the order of classes_ reverses
                flip = -1.0 if sorted(labels) != list(labels) else 1.0
                bad_y(
                    f"labels {labels}",
                    mapped(labels),
                    must_refuse=False,
                    Xt=lambda: XT0,
                    reference=lambda flip=flip: flip * base(),
                    tol=1e-9,
                )
            bad_y(
                "three classes",
                lambda: np.digitize(Y0, np.quantile(Y0, [1 / 3, 2 / 3])),
                must_refuse=False,
                Xt=lambda: XT0,
            )

    # sample weights
    import inspect

    if "sample_weight" in inspect.signature(estimator_class(name).fit).parameters:

        def bad_w(kind: str, w: Callable[[], Any], **kw: Any) -> None:
            kw.setdefault("must_refuse", True)
            cases.append(
                (
                    f"sample_weight {kind}",
                    estimator_case(name, lambda: (X0, y, w()), names=("sample_weight",), **kw),
                )
            )

        def wv(i: int, v: float) -> np.ndarray:
            w = np.ones(N)
            w[i] = v
            return w

        bad_w("NaN", lambda: wv(2, np.nan))
        bad_w("inf", lambda: wv(2, np.inf))
        bad_w("negative", lambda: wv(2, -1.0))
        bad_w("all zero", lambda: np.zeros(N))
        bad_w("text", lambda: np.full(N, "a"))
        bad_w("wrong length", lambda: np.ones(N - 1))
        bad_w("2-D", lambda: np.ones((N, 2)))
        bad_w(
            "ones", lambda: np.ones(N), must_refuse=False, Xt=lambda: XT0, reference=base, tol=1e-9
        )
        bad_w(
            "ones as list",
            lambda: [1.0] * N,
            must_refuse=False,
            Xt=lambda: XT0,
            reference=base,
            tol=1e-9,
        )
        bad_w("scalar 1", lambda: 1.0, must_refuse=False, Xt=lambda: XT0)
        bad_w(
            "int",
            lambda: np.arange(N) % 3 + 1,
            must_refuse=False,
            Xt=lambda: XT0,
            reference=lambda: outputs(
                quiet(lambda: make(name).fit(X0, y, (np.arange(N) % 3 + 1).astype(float))), XT0
            ),
            tol=1e-9,
        )
        for k in (-300, -200, 200, 300):
            bad_w(f"all 1e{k}", lambda k=k: np.full(N, 10.0**k), must_refuse=False, Xt=lambda: XT0)
        bad_w(
            "mixed 1e-300 / 1e300",
            lambda: np.where(np.arange(N) % 2, 1e-300, 1e300),
            must_refuse=False,
            Xt=lambda: XT0,
        )
        # a zero weight drops the row in the exact methods (the low-rank ones still pivot on it)
        exact = name in {"KernelRidge", "UniformKernelRidge"}
        bad_w(
            "one zero",
            lambda: wv(0, 0.0),
            must_refuse=False,
            Xt=lambda: XT0,
            reference=reference_fit(name, X0[1:], y[1:], XT0) if exact else None,
            tol=1e-6,
        )

    # predict-time malformed input on a fitted estimator
    def predict_case(kind: str, Xt: Callable[[], Any]) -> Callable[[], Outcome]:
        def run() -> Outcome:
            est = quiet(lambda: make(name).fit(X0, y))
            p0 = outputs(est, XT0)
            try:
                quiet(lambda: outputs(est, Xt()))
            except SilentWrong as exc:
                return Outcome("SILENT-WRONG", str(exc))
            except Exception as exc:
                out = refusal(exc, ("X",))
                if not np.array_equal(outputs(est, XT0), p0):
                    return Outcome("BROKEN", "a failed predict changed the model")
                return out
            return Outcome("SILENT-WRONG", "predict accepted invalid X")

        return run

    cases.append(("predict X wrong columns", predict_case("cols", lambda: XT0[:, :2])))
    cases.append(("predict X NaN", predict_case("nan", lambda: np.where(XT0 > 1, np.nan, XT0))))
    cases.append(
        ("predict X text", predict_case("text", lambda: np.where(XT0 > 1, "high", XT0.astype(str))))
    )
    cases.append(("predict X 1-D", predict_case("1d", lambda: XT0[:, 0])))
    cases.append(("predict X ragged", predict_case("ragged", lambda: [[1.0, 2.0], [1.0]])))

    # unfitted estimator
    def unfitted() -> Outcome:
        try:
            outputs(make(name), XT0)
        except Exception as exc:
            return refusal(exc, ())
        return Outcome("SILENT-WRONG", "an unfitted estimator predicted")

    cases.append(("predict before fit", unfitted))

    # refits with changed shapes
    def refit(first: tuple, second: tuple, Xt: np.ndarray) -> Callable[[], Outcome]:
        def run() -> Outcome:
            est = quiet(lambda: make(name).fit(*first))
            quiet(lambda: est.fit(*second))
            fresh = quiet(lambda: make(name).fit(*second))
            try:
                compare(outputs(est, Xt), outputs(fresh, Xt), 1e-12, "refit vs fresh fit")
            except SilentWrong as exc:
                return Outcome("SILENT-WRONG", str(exc))
            return Outcome("OK")

        return run

    X5 = np.c_[X0, X0[:, :2] ** 2]
    XT5 = np.c_[XT0, XT0[:, :2] ** 2]
    cases.append(("refit 3 → 5 columns", refit((X0, y), (X5, y), XT5)))
    cases.append(("refit 5 → 3 columns", refit((X5, y), (X0, y), XT0)))
    cases.append(("refit 40 → 15 rows", refit((X0, y), (X0[:15], y[:15]), XT0)))
    cases.append(("refit float32 → float64", refit((X0.astype(np.float32), y), (X0, y), XT0)))
    if cls:
        y3 = np.digitize(Y0, np.quantile(Y0, [1 / 3, 2 / 3]))
        cases.append(("refit 2 → 3 classes", refit((X0, y), (X0, y3), XT0)))
        ys = np.where(y == 1, "p", "n")
        cases.append(("refit int → str labels", refit((X0, y), (X0, ys), XT0)))

    return [Case(name, kind, run) for kind, run in cases]


def scale_cases(name: str) -> list[Case]:
    """X · 10^k, X + 10^k, y · 10^k, dtypes, for each kernel family where the reference holds."""
    cls = name in CLASSIFIERS
    y = YC0 if cls else Y0
    out: list[Case] = []
    tol = 1e-3 if name in ITERATIVE else 1e-6
    ks = (-300, -250, -200, -150, -100, -50, -20, -8, -3, 3, 8, 20, 50, 100, 150, 200, 250, 300)
    for kname, kernels in (
        ("Gaussian", [Gaussian()]),
        ("Laplacian", [Laplacian()]),
        ("Polynomial", [Polynomial(degree=2)]),
    ):
        if name not in SINGLE_KERNEL and kname == "Gaussian":
            kernels = [Gaussian(), Laplacian()]
            kname = "Gaussian+Laplacian"

        def factory(kernels: list = kernels) -> Any:
            return make(name, kernels)

        base = reference_fit(name, X0, y, XT0, factory)
        for k in ks:
            s = 10.0**k
            out.append(
                Case(
                    name,
                    f"{kname}: X * 1e{k}",
                    estimator_case(
                        name,
                        lambda s=s: (X0 * s, y),
                        lambda s=s: XT0 * s,
                        names=("X",),
                        reference=base,
                        tol=tol,
                        factory=factory,
                    ),
                )
            )
            if kname != "Polynomial":  # translation-invariant kernels only
                c = 10.0**k if k > 0 else -(10.0**-k)
                if abs(k) <= 20:
                    Xc, XTc = X0 + c, XT0 + c
                    out.append(
                        Case(
                            name,
                            f"{kname}: X + {c:g}",
                            estimator_case(
                                name,
                                lambda Xc=Xc: (Xc, y),
                                lambda XTc=XTc: XTc,
                                names=("X",),
                                reference=reference_fit(name, Xc - c, y, XTc - c, factory),
                                tol=tol,
                                factory=factory,
                            ),
                        )
                    )
            if not cls and name != "LowRankFeatures" and kname != "Polynomial":
                ref = (lambda s=s, base=base: s * base()) if name != "LowRankFeatures" else base
                out.append(
                    Case(
                        name,
                        f"{kname}: y * 1e{k}",
                        estimator_case(
                            name,
                            lambda s=s: (X0, y * s),
                            lambda: XT0,
                            names=("y",),
                            reference=ref,
                            tol=tol,
                            factory=factory,
                        ),
                    )
                )
        # dtypes against the float64 fit of the same rounded values
        score = (lambda: XT0, YT0) if (name in PIVOTED and not cls) else None
        for dt, dtol in ((np.float16, 1e-3), (np.float32, 1e-3)):
            Xr = X0.astype(dt)
            XTr = XT0.astype(dt)
            out.append(
                Case(
                    name,
                    f"{kname}: X {np.dtype(dt).name}",
                    estimator_case(
                        name,
                        lambda Xr=Xr: (Xr, y),
                        lambda XTr=XTr: XTr,
                        names=("X",),
                        reference=reference_fit(
                            name, Xr.astype(float), y, XTr.astype(float), factory
                        ),
                        tol=max(dtol, tol),
                        factory=factory,
                        score=score,
                    ),
                )
            )
        for c in (10.0, 100.0, 1000.0):
            if kname == "Polynomial":
                break
            Xr = (X0 + c).astype(np.float32)
            XTr = (XT0 + c).astype(np.float32)
            out.append(
                Case(
                    name,
                    f"{kname}: X float32 + {c:g}",
                    estimator_case(
                        name,
                        lambda Xr=Xr: (Xr, y),
                        lambda XTr=XTr: XTr,
                        names=("X",),
                        reference=reference_fit(
                            name, Xr.astype(float) - c, y, XTr.astype(float) - c, factory
                        ),
                        tol=max(1e-3, tol),
                        factory=factory,
                        score=score,
                    ),
                )
            )
        Xi, XTi = np.round(2 * X0), np.round(2 * XT0)
        for dt in (np.int64, np.int32, np.uint8):
            if dt == np.uint8:
                Xi, XTi = Xi - Xi.min() + 1, XTi - Xi.min() + 1
            out.append(
                Case(
                    name,
                    f"{kname}: X {np.dtype(dt).name}",
                    estimator_case(
                        name,
                        lambda Xi=Xi, dt=dt: (Xi.astype(dt), y),
                        lambda XTi=XTi, dt=dt: XTi.astype(dt),
                        names=("X",),
                        reference=reference_fit(name, Xi, y, XTi, factory),
                        tol=tol,
                        factory=factory,
                    ),
                )
            )
        Xb, XTb = X0 > 0, XT0 > 0
        out.append(
            Case(
                name,
                f"{kname}: X bool",
                estimator_case(
                    name,
                    lambda Xb=Xb: (Xb, y),
                    lambda XTb=XTb: XTb,
                    names=("X",),
                    reference=reference_fit(name, Xb.astype(float), y, XTb.astype(float), factory),
                    tol=tol,
                    factory=factory,
                ),
            )
        )
    return out


def kernel_cases(name: str) -> list[Case]:
    """The estimator on every kernel, including Precomputed (PSD, not PSD, bad rows)."""
    cls = name in CLASSIFIERS
    y = YC0 if cls else Y0
    out: list[Case] = []
    Xall = np.r_[X0, XT0]
    K = np.exp(-0.5 * ((Xall[:, None, :] - Xall[None, :, :]) ** 2).sum(-1))
    idx = np.arange(N + NT).reshape(-1, 1)
    Itr, Ite = idx[:N], idx[N:]
    kernels = {
        "Gaussian(0.5)": Gaussian(0.5),
        "Laplacian(0.5)": Laplacian(0.5),
        "Linear": Linear(),
        "Polynomial(2)": Polynomial(degree=2),
        "Polynomial(3, 0.1, 0)": Polynomial(3, 0.1, 0.0),
    }
    for kname, kern in kernels.items():
        out.append(
            Case(
                name,
                f"kernel {kname}",
                estimator_case(
                    name, lambda: (X0, y), lambda: XT0, factory=lambda kern=kern: make(name, kern)
                ),
            )
        )
    pre = Precomputed(matrix=K)
    pbase = ((Itr, y), Ite)
    out.append(
        Case(
            name,
            "Precomputed PSD",
            estimator_case(
                name,
                base=pbase,
                fit_args=lambda: (Itr, y),
                Xt=lambda: Ite,
                factory=lambda: make(name, pre),
                reference=reference_fit(name, X0, y, XT0, lambda: make(name, Gaussian(0.5))),
                tol=1e-3 if name in ITERATIVE else 1e-6,
            ),
        )
    )
    neg = K - 1.5 * np.eye(N + NT)
    out.append(
        Case(
            name,
            "Precomputed K − 1.5 I (not PSD)",
            estimator_case(
                name,
                base=pbase,
                fit_args=lambda: (Itr, y),
                Xt=lambda: Ite,
                factory=lambda: make(name, Precomputed(matrix=neg)),
                names=("matrix", "kernel", "Precomputed", "positive"),
                must_refuse=True,
            ),
        )
    )
    neg2 = -K
    out.append(
        Case(
            name,
            "Precomputed −K (not PSD)",
            estimator_case(
                name,
                base=pbase,
                fit_args=lambda: (Itr, y),
                Xt=lambda: Ite,
                factory=lambda: make(name, Precomputed(matrix=neg2)),
                names=("matrix", "kernel", "Precomputed", "positive"),
                must_refuse=True,
            ),
        )
    )
    out.append(
        Case(
            name,
            "Precomputed rows out of range",
            estimator_case(
                name,
                base=pbase,
                fit_args=lambda: (Itr + 20, y),
                Xt=lambda: Ite,
                factory=lambda: make(name, pre),
                names=("X",),
                must_refuse=True,
            ),
        )
    )
    out.append(
        Case(
            name,
            "Precomputed fractional rows",
            estimator_case(
                name,
                base=pbase,
                fit_args=lambda: (Itr + 0.5, y),
                Xt=lambda: Ite,
                factory=lambda: make(name, pre),
                names=("X",),
                must_refuse=True,
            ),
        )
    )
    out.append(
        Case(
            name,
            "Precomputed 2 columns of rows",
            estimator_case(
                name,
                base=pbase,
                fit_args=lambda: (np.c_[Itr, Itr], y),
                Xt=lambda: Ite,
                factory=lambda: make(name, pre),
                names=("X",),
                must_refuse=True,
            ),
        )
    )
    out.append(
        Case(
            name,
            "Precomputed function wrong shape",
            estimator_case(
                name,
                lambda: (X0, y),
                lambda: XT0,
                factory=lambda: make(name, Precomputed(function=lambda A, B: np.ones((2, 2)))),
                names=("function",),
                must_refuse=True,
            ),
        )
    )
    out.append(
        Case(
            name,
            "Precomputed function",
            estimator_case(
                name,
                lambda: (X0, y),
                lambda: XT0,
                factory=lambda: make(name, Precomputed(function=lambda A, B: Gaussian(0.5)(A, B))),
                reference=reference_fit(name, X0, y, XT0, lambda: make(name, Gaussian(0.5))),
                tol=1e-3 if name in ITERATIVE else 1e-9,
            ),
        )
    )
    return out


def interval_values(iv: Interval) -> list[Any]:
    integral = issubclass(iv.type, int) if isinstance(iv.type, type) else False
    if iv.type.__name__ == "Integral":
        integral = True
    cands: list[Any] = []
    if integral:
        lo = iv.left if iv.left is not None else -(2**62)
        cands += [lo - 1, lo, lo + 1, 10**6, 10**9, 2**62, 2**63 + 5, np.int64(lo + 1)]
        if iv.right is not None:
            cands += [iv.right, iv.right + 1]
    else:
        cands += [-1e300, -1.0, 0.0, 5e-324, 1e-300, 1e-12, 1e12, 1e300, math.inf, math.nan]
        for b in (iv.left, iv.right):
            if b is not None:
                cands += [b, b + 1e-12 * max(1, abs(b)), b - 1e-12 * max(1, abs(b))]
    seen, vals = set(), []
    for v in cands:
        key = (type(v).__name__, repr(v))
        if key not in seen:
            seen.add(key)
            vals.append(v)
    return vals


def param_cases(name: str) -> list[Case]:
    cls = name in CLASSIFIERS
    y = YC0 if cls else Y0
    out: list[Case] = []
    for param, constraints in estimator_class(name)._parameter_constraints.items():
        for iv in constraints:
            if not isinstance(iv, Interval):
                continue
            for v in interval_values(iv):
                allowed = any(c.is_satisfied_by(v) for c in constraints if isinstance(c, Interval))
                if param == "memory_budget" and allowed and v < 10**6:
                    allowed_note = " (tiny budget)"
                else:
                    allowed_note = ""
                out.append(
                    Case(
                        name,
                        f"{param}={v!r}{allowed_note}",
                        estimator_case(
                            name,
                            lambda: (X0, y),
                            lambda: XT0,
                            names=(param,),
                            must_refuse=not allowed,
                            factory=lambda param=param, v=v: make(name, **{param: v}),
                        ),
                    )
                )
    # list-valued parameters
    extra: dict[str, list[Any]] = {
        "alphas": [[1e-300, 1e300], [0.0], [-1.0], [np.nan], [], [[1.0, 2.0]]],
        "nus": [[1e-300, 1e300], [0.0], [-1.0], [np.nan], []],
        "rank": [[1], [10**9], [0], [1, 2, 3], []],
    }
    params = estimator_class(name)._parameter_constraints
    for param, values in extra.items():
        if param not in params:
            continue
        for v in values:
            out.append(
                Case(
                    name,
                    f"{param}={v!r}",
                    estimator_case(
                        name,
                        lambda: (X0, y),
                        lambda: XT0,
                        names=(param,),
                        factory=lambda param=param, v=v: make(name, **{param: v}),
                    ),
                )
            )
    # kernel parameters at their extremes, through the estimator
    kernel_params: list[tuple[str, Callable[[], Any]]] = []
    for g in (5e-324, 1e-300, 1e-12, 1e12, 1e300):
        kernel_params += [
            (f"Gaussian({g:g})", lambda g=g: Gaussian(g)),
            (f"Laplacian({g:g})", lambda g=g: Laplacian(g)),
            (f"Polynomial(2, {g:g})", lambda g=g: Polynomial(2, g)),
        ]
    for deg in (1, 50, 10**3, 10**9):
        kernel_params.append((f"Polynomial({deg})", lambda deg=deg: Polynomial(deg)))
    for c0 in (-1e300, -1.0, 1e300):
        kernel_params.append(
            (f"Polynomial(2, coef0={c0:g})", lambda c0=c0: Polynomial(2, coef0=c0))
        )
    kernel_params.append(("Gaussian(np.float32(0.5))", lambda: Gaussian(np.float32(0.5))))
    kernel_params.append(("Polynomial(np.int64(2))", lambda: Polynomial(np.int64(2))))
    for kname, kern in kernel_params:
        out.append(
            Case(
                name,
                f"kernel {kname}",
                estimator_case(
                    name,
                    lambda: (X0, y),
                    lambda: XT0,
                    names=("gamma", "degree", "coef0", "kernel"),
                    factory=lambda kern=kern: make(name, kern()),
                ),
            )
        )
    return out


# ---------------------------------------------------------------------------------------------
# kernels and functional API


def call_case(
    target: str,
    fn: Callable[[], Any],
    *,
    names: tuple[str, ...],
    must_refuse: bool = False,
    check: Callable[[Any], None] | None = None,
    same_as: Callable[[], Any] | None = None,
) -> Callable[[], Outcome]:
    """``fn()`` classified; ``same_as()`` is the call on the plain float64 array of the same
    numbers, which an equivalent input (a list, a DataFrame, numbers written as text) must
    reproduce."""

    def run() -> Outcome:
        try:
            result = quiet(fn)
        except Exception as exc:
            return refusal(exc, names)
        if must_refuse:
            return Outcome("SILENT-WRONG", "invalid input accepted without an error")
        try:
            finite(result)
            if check is not None:
                check(result)
            if same_as is not None:
                same_result(result, quiet(same_as))
        except SilentWrong as exc:
            return Outcome("SILENT-WRONG", str(exc))
        return Outcome("OK")

    return run


def same_result(got: Any, ref: Any, depth: int = 0) -> None:
    """Raise :class:`SilentWrong` unless ``got`` holds the numbers of ``ref`` (to 1e-12 of its
    largest magnitude): arrays, tuples of them (a factor), kernels (by their parameters)."""
    if isinstance(ref, np.ndarray) or isinstance(got, np.ndarray):
        g, r = np.asarray(got, dtype=np.float64), np.asarray(ref, dtype=np.float64)
        if g.shape != r.shape or not np.allclose(g, r, rtol=0, atol=1e-12 * np.abs(r).max()):
            msg = "the result differs from that of the same numbers in a float64 array"
            raise SilentWrong(msg)
    elif isinstance(ref, tuple) and depth < 3:
        for g, r in zip(got, ref, strict=True):
            same_result(g, r, depth + 1)
    elif isinstance(ref, lrkl.kernels.Kernel) and repr(got) != repr(ref):
        msg = f"resolved to {got!r}, the float64 array's to {ref!r}"
        raise SilentWrong(msg)


def finite(result: Any, depth: int = 0, field: str | None = None) -> None:
    """Raise SilentWrong for a non-finite value anywhere in ``result`` (arrays, floats, tuples,
    objects' attributes, three levels deep); ``field`` is the attribute holding ``result``."""
    if depth > 3:
        return
    if isinstance(result, np.ndarray):
        # the one all-NaN vector that is a "not computed" marker: MKLState.duality_gap, which
        # only stop="mkl_gap" fills
        marker = field == "duality_gap" and result.ndim == 1 and np.isnan(result).all()
        if result.dtype.kind in "fc" and not np.all(np.isfinite(result)) and not marker:
            msg = f"non-finite values in the result{'' if field is None else f' ({field})'}"
            raise SilentWrong(msg)
        return
    if isinstance(result, float) and not math.isfinite(result):
        msg = f"non-finite result {result}{'' if field is None else f' ({field})'}"
        raise SilentWrong(msg)
    if isinstance(result, tuple):
        names = getattr(result, "_fields", (None,) * len(result))
        for name, part in zip(names, result, strict=True):
            finite(part, depth + 1, name)
    elif (
        hasattr(result, "__dict__")
        and not callable(result)
        and not isinstance(result, types.ModuleType)
    ):
        for name, part in vars(result).items():
            finite(part, depth + 1, name)


def bad_arrays() -> list[tuple[str, Callable[[], Any], bool]]:
    """(kind, X, must refuse)."""

    def put(v: float) -> np.ndarray:
        X = X0.copy()
        X[1, 2] = v
        return X

    return [
        ("NaN", lambda: put(np.nan), True),
        ("inf", lambda: put(np.inf), True),
        # Numbers written as text are numbers for the kernels and the functions too, as for the
        # estimators (lrkl's one conversion, ``ensure_array``; scikit-learn's check_array takes
        # an object array of numeric strings the same way): one policy for the whole API. They
        # must give the result of the same numbers in an array (EQUIVALENT); words are refused.
        ("numeric text", lambda: X0.astype(str), False),
        ("text (words)", lambda: np.where(X0 > 1, "high", X0.astype(str)), True),
        ("object text", lambda: np.where(X0 > 1, "u", X0).astype(object), True),
        ("ragged", lambda: [list(r) for r in X0[:-1]] + [[1.0]], True),
        ("dict", lambda: dict(enumerate(X0)), True),
        ("masked entries", lambda: np.ma.masked_array(X0, mask=X0 > 1.5), True),
        ("DataFrame text", lambda: pd.DataFrame({"a": X0[:, 0], "b": ["u"] * N}), True),
        ("DataFrame pd.NA", lambda: pd.DataFrame(X0).astype("Float64").mask(X0 > 1.5), True),
        ("empty", lambda: np.empty((0, D)), True),
        ("1-D", lambda: X0[:, 0], True),
        ("3-D", lambda: X0.reshape(N, D, 1), True),
        ("complex", lambda: X0 + 1j, True),
        ("list", lambda: X0.tolist(), False),
        ("DataFrame", lambda: pd.DataFrame(X0), False),
        ("float16", lambda: X0.astype(np.float16), False),
        ("float32", lambda: X0.astype(np.float32), False),
        ("int", lambda: np.round(X0).astype(int), False),
        ("bool", lambda: X0 > 0, False),
        ("single row", lambda: X0[:1], False),
        ("X * 1e300", lambda: X0 * 1e300, False),
        ("X * 1e-300", lambda: X0 * 1e-300, False),
        ("X + 1e8", lambda: X0 + 1e8, False),
        ("X + 1e300", lambda: X0 + 1e300, False),
    ]


#: Inputs of :func:`bad_arrays` that hold the numbers of ``X0`` exactly.
EQUIVALENT = {"numeric text", "list", "DataFrame"}


def kernel_api_cases() -> list[Case]:
    out: list[Case] = []
    Kg = Gaussian(0.5)(X0)
    kernels = {
        "Gaussian": lambda: Gaussian(),
        "Laplacian": lambda: Laplacian(),
        "Linear": lambda: Linear(),
        "Polynomial": lambda: Polynomial(2),
        "Precomputed(function)": lambda: Precomputed(function=lambda A, B: Gaussian(0.5)(A, B)),
    }
    for kname, kern in kernels.items():
        for kind, X, refuse in bad_arrays():
            out.append(
                Case(
                    kname,
                    f"resolve(X {kind})",
                    call_case(
                        kname,
                        lambda kern=kern, X=X: kern().resolve(X()),
                        names=("X",),
                        must_refuse=refuse,
                        same_as=(lambda kern=kern: kern().resolve(X0))
                        if kind in EQUIVALENT
                        else None,
                    ),
                )
            )
            out.append(
                Case(
                    kname,
                    f"k(X {kind}, Z)",
                    call_case(
                        kname,
                        lambda kern=kern, X=X: kern().resolve(X0)(X(), XT0),
                        names=("X",),
                        must_refuse=refuse,
                        same_as=(lambda kern=kern: kern().resolve(X0)(X0, XT0))
                        if kind in EQUIVALENT
                        else None,
                    ),
                )
            )
            out.append(
                Case(
                    kname,
                    f"diag(X {kind})",
                    call_case(
                        kname,
                        lambda kern=kern, X=X: kern().resolve(X0).diag(X()),
                        names=("X",),
                        must_refuse=refuse,
                        same_as=(lambda kern=kern: kern().resolve(X0).diag(X0))
                        if kind in EQUIVALENT
                        else None,
                    ),
                )
            )
        out.append(
            Case(
                kname,
                "k(X, Z) with other column counts",
                call_case(
                    kname,
                    lambda kern=kern: kern().resolve(X0)(X0, XT0[:, :2]),
                    names=("Z", "X"),
                    must_refuse=True,
                ),
            )
        )
        out.append(
            Case(
                kname,
                "k(X) before resolve",
                call_case(kname, lambda kern=kern: kern()(X0), names=("gamma", "resolve", "scale")),
            )
        )
        for wkind, w, refuse in (
            ("negative", lambda: -np.ones(N), True),
            ("NaN", lambda: np.where(np.arange(N) == 1, np.nan, 1.0), True),
            ("wrong length", lambda: np.ones(N - 1), True),
            ("all zero", lambda: np.zeros(N), True),
            ("text", lambda: np.full(N, "a"), True),
            ("1e300", lambda: np.full(N, 1e300), False),
            ("list", lambda: [1.0] * N, False),
        ):
            out.append(
                Case(
                    kname,
                    f"resolve(sample_weight {wkind})",
                    call_case(
                        kname,
                        lambda kern=kern, w=w: kern().resolve(X0, sample_weight=w()),
                        names=("sample_weight",),
                        must_refuse=refuse,
                    ),
                )
            )
    # constructors
    for kname, ctor, params in (
        (
            "Gaussian",
            Gaussian,
            {
                "gamma": [
                    0,
                    -1.0,
                    np.nan,
                    np.inf,
                    "foo",
                    None,
                    [1.0],
                    1e-300,
                    1e300,
                    np.float32(0.5),
                    True,
                ]
            },
        ),
        ("Gaussian", lambda **kw: Gaussian(**kw), {"sigma2": [0.0, -1.0, np.nan, 1e-300, 1e300]}),
        ("Laplacian", Laplacian, {"gamma": [0, -1.0, np.nan, np.inf, "foo", 1e300]}),
        (
            "Polynomial",
            Polynomial,
            {
                "degree": [0, -1, 1.5, np.int64(2), 10**9, 2**70, "2", True],
                "coef0": [np.nan, np.inf, -1e300, "a"],
                "gamma": [0, np.nan, -1.0],
            },
        ),
    ):
        for p, values in params.items():
            for v in values:

                def ctor_case(ctor=ctor, p=p, v=v) -> Any:
                    k = ctor(**{p: v})
                    return k.resolve(X0)(X0, XT0)

                out.append(
                    Case(kname, f"{kname}({p}={v!r})", call_case(kname, ctor_case, names=(p,)))
                )
    for kind, M in (
        ("NaN", lambda: np.where(np.eye(N) > 0, np.nan, Kg)),
        ("non-square", lambda: Kg[:, :-1]),
        ("1-D", lambda: Kg[0]),
        ("text", lambda: Kg.astype(str)),  # numbers written as text: taken, as by every kernel
        ("words", lambda: np.full(Kg.shape, "a")),
        ("list", lambda: Kg.tolist()),
    ):
        out.append(
            Case(
                "Precomputed",
                f"Precomputed(matrix {kind})",
                call_case(
                    "Precomputed",
                    lambda M=M: Precomputed(matrix=M())(np.arange(5).reshape(-1, 1)),
                    names=("matrix",),
                    must_refuse=kind not in ("list", "text"),
                ),
            )
        )
    pre = Precomputed(matrix=Kg)
    for kind, rows, refuse in (
        ("out of range", lambda: np.array([[0], [N]]), True),
        ("negative", lambda: np.array([[-1], [0]]), True),
        ("fractional", lambda: np.array([[0.5], [1.0]]), True),
        ("NaN", lambda: np.array([[np.nan], [1.0]]), True),
        ("2 columns", lambda: np.array([[0, 1], [1, 2]]), True),
        ("float integral", lambda: np.array([[0.0], [3.0]]), False),
        ("list", lambda: [[0], [3]], False),
        ("huge", lambda: np.array([[2**62]]), True),
    ):
        out.append(
            Case(
                "Precomputed",
                f"rows {kind}",
                call_case(
                    "Precomputed", lambda rows=rows: pre(rows()), names=("X",), must_refuse=refuse
                ),
            )
        )
        out.append(
            Case(
                "Precomputed",
                f"diag rows {kind}",
                call_case(
                    "Precomputed",
                    lambda rows=rows: pre.diag(rows()),
                    names=("X",),
                    must_refuse=refuse,
                ),
            )
        )
    for kind, f, d in (
        ("function wrong shape", lambda A, B: np.ones((2, 2)), None),
        ("function NaN", lambda A, B: np.full((A.shape[0], B.shape[0]), np.nan), None),
        ("function returns list", lambda A, B: Gaussian(0.5)(A, B).tolist(), None),
        ("diagonal wrong shape", lambda A, B: Gaussian(0.5)(A, B), lambda A: np.ones(3)),
    ):
        out.append(
            Case(
                "Precomputed",
                kind,
                call_case(
                    "Precomputed",
                    lambda f=f, d=d: (
                        Precomputed(function=f, diagonal=d)(X0, XT0),
                        Precomputed(function=f, diagonal=d).diag(X0),
                    ),
                    names=("function", "diagonal"),
                    must_refuse=True,
                ),
            )
        )
    return out


def lowrank_cases() -> list[Case]:
    out: list[Case] = []
    g = Gaussian(0.5)
    Kg = g(X0)

    def pre_neg() -> Precomputed:  # refused by Precomputed itself (a negative diagonal)
        return Precomputed(matrix=Kg - 1.5 * np.eye(N))

    idx = np.arange(N).reshape(-1, 1)

    def check_factor(f: Any) -> None:
        G = np.asarray(f.G if hasattr(f, "G") else f[0], dtype=float)
        if G.ndim != 2 or (G.shape[0] != N and G.shape[0] != 1):
            msg = f"factor of shape {G.shape}"
            raise SilentWrong(msg)

    fns = {
        "icd": lambda X, **kw: lowrank.icd(g, X, kw.pop("rank", 5), **kw),
        "csi": lambda X, **kw: lowrank.csi(g, X, kw.pop("y", Y0), kw.pop("rank", 5), **kw),
        "nystrom": lambda X, **kw: lowrank.nystrom(
            g, X, kw.pop("n_landmarks", 5), random_state=0, **kw
        ),
    }
    for fname, fn in fns.items():
        for kind, X, refuse in bad_arrays():
            out.append(
                Case(
                    fname,
                    f"X {kind}",
                    call_case(
                        fname,
                        lambda fn=fn, X=X: fn(X()),
                        names=("X",),
                        must_refuse=refuse,
                        same_as=(lambda fn=fn: fn(X0)) if kind in EQUIVALENT else None,
                    ),
                )
            )
        rank_name = "n_landmarks" if fname == "nystrom" else "rank"
        for r, refuse in (
            (0, True),
            (-1, True),
            (1, False),
            (N, False),
            (N + 1, False),
            (10**9, False),
            (2**63 + 1, False),
            (1.5, True),
            ("3", True),
            (np.int64(3), False),
            (None, True),
        ):
            out.append(
                Case(
                    fname,
                    f"{rank_name}={r!r}",
                    call_case(
                        fname,
                        lambda fn=fn, r=r, rank_name=rank_name: fn(X0, **{rank_name: r}),
                        names=(rank_name,),
                        must_refuse=refuse,
                    ),
                )
            )
        if fname != "nystrom":
            for t, refuse in (
                (-1.0, True),
                (np.nan, True),
                (0.0, False),
                (1e-300, False),
                (1e300, False),
                (np.inf, True),
            ):
                out.append(
                    Case(
                        fname,
                        f"tol={t!r}",
                        call_case(
                            fname,
                            lambda fn=fn, t=t: fn(X0, tol=t),
                            names=("tol",),
                            must_refuse=refuse,
                        ),
                    )
                )
        for kname, kern in (
            ("Linear", Linear()),
            ("Polynomial", Polynomial(2)),
            ("Laplacian", Laplacian(0.5)),
        ):
            out.append(
                Case(
                    fname,
                    f"kernel {kname}",
                    call_case(
                        fname,
                        lambda fname=fname, kern=kern: {
                            "icd": lambda: lowrank.icd(kern, X0, 5),
                            "csi": lambda: lowrank.csi(kern, X0, Y0, 5),
                            "nystrom": lambda: lowrank.nystrom(kern, X0, 5, random_state=0),
                        }[fname](),
                        names=("X",),
                    ),
                )
            )
        out.append(
            Case(
                fname,
                "Precomputed not PSD",
                call_case(
                    fname,
                    lambda fname=fname: {
                        "icd": lambda: lowrank.icd(pre_neg(), idx, N),
                        "csi": lambda: lowrank.csi(pre_neg(), idx, Y0, N),
                        "nystrom": lambda: lowrank.nystrom(pre_neg(), idx, N, random_state=0),
                    }[fname](),
                    names=("matrix", "kernel", "positive", "Precomputed"),
                    must_refuse=True,
                ),
            )
        )
        out.append(
            Case(
                fname,
                "kernel not a Kernel",
                call_case(
                    fname,
                    lambda fname=fname: {
                        "icd": lambda: lowrank.icd("rbf", X0, 5),
                        "csi": lambda: lowrank.csi("rbf", X0, Y0, 5),
                        "nystrom": lambda: lowrank.nystrom("rbf", X0, 5),
                    }[fname](),
                    names=("kernel",),
                ),
            )
        )
    for kind, y, refuse in (
        ("NaN", lambda: np.where(np.arange(N) == 1, np.nan, Y0), True),
        ("wrong length", lambda: Y0[:-1], True),
        ("numeric text", lambda: Y0.astype(str), False),
        ("text (words)", lambda: np.where(Y0 > 1, "high", Y0.astype(str)), True),
        ("2-D", lambda: np.c_[Y0, Y0], False),
        ("list", lambda: Y0.tolist(), False),
        ("y * 1e300", lambda: Y0 * 1e300, False),
        ("y * 1e-300", lambda: Y0 * 1e-300, False),
        ("constant", lambda: np.ones(N), False),
    ):
        out.append(
            Case(
                "csi",
                f"y {kind}",
                call_case(
                    "csi",
                    lambda y=y: lowrank.csi(g, X0, y(), 5),
                    names=("y", "Y"),
                    must_refuse=refuse,
                    same_as=(lambda: lowrank.csi(g, X0, Y0, 5)) if kind == "numeric text" else None,
                ),
            )
        )
    for p, values in (
        ("kappa", [(-0.1, True), (0.0, False), (1.0, False), (1.1, True), (np.nan, True)]),
        ("lookahead", [(0, False), (-1, True), (10**9, False), (2**62, False), (1.5, True)]),
        ("centering", [("yes", True), (1, True), (False, False)]),
        ("gain_tol", [(-1.0, True), (1e300, False), (np.nan, True)]),
    ):
        for v, refuse in values:
            out.append(
                Case(
                    "csi",
                    f"{p}={v!r}",
                    call_case(
                        "csi",
                        lambda p=p, v=v: lowrank.csi(g, X0, Y0, 5, **{p: v}),
                        names=(p,),
                        must_refuse=refuse,
                    ),
                )
            )
    for kind, kw, refuse in (
        ("rank > n_landmarks", {"rank": 10}, False),
        ("rank 0", {"rank": 0}, True),
        ("landmarks out of range", {"landmarks": [0, N]}, True),
        ("landmarks negative", {"landmarks": [-1, 2]}, True),
        ("landmarks duplicated", {"landmarks": [1, 1, 2]}, False),
        ("landmarks text", {"landmarks": ["a"]}, True),
        ("landmarks empty", {"landmarks": []}, True),
        ("landmarks float", {"landmarks": [0.5, 1.0]}, True),
    ):
        out.append(
            Case(
                "nystrom",
                kind,
                call_case(
                    "nystrom",
                    lambda kw=kw: lowrank.nystrom(g, X0, 5, random_state=0, **kw),
                    names=("rank", "landmarks", "n_landmarks"),
                    must_refuse=refuse,
                ),
            )
        )
    # LowRankFactor.transform
    fac = lowrank.icd(g, X0, 5)
    for kind, X, refuse in bad_arrays():
        out.append(
            Case(
                "LowRankFactor",
                f"transform(X {kind})",
                call_case(
                    "LowRankFactor",
                    lambda X=X: fac.transform(X()),
                    names=("X",),
                    must_refuse=refuse,
                    same_as=(lambda: fac.transform(X0)) if kind in EQUIVALENT else None,
                ),
            )
        )
    return out


def ridge_cases() -> list[Case]:
    out: list[Case] = []
    K = Gaussian(0.5)(X0)
    xp = np
    make_solver, solve_dual, primal_problem = (
        kernel_ridge.make_solver,
        kernel_ridge.solve_dual,
        kernel_ridge.primal_problem,
    )
    solvers = (
        sorted(kernel_ridge.KERNEL_RIDGE_SOLVERS)
        if isinstance(kernel_ridge.KERNEL_RIDGE_SOLVERS, dict)
        else list(kernel_ridge.KERNEL_RIDGE_SOLVERS)
    )
    for s in [*solvers, "nope"]:
        for kind, S, refuse in (
            ("ok", lambda: K, False),
            ("NaN", lambda: np.where(np.eye(N) > 0, np.nan, K), True),
            ("non-square", lambda: K[:, :-1], True),
            ("1-D", lambda: K[0], True),
            ("not PSD", lambda: K - 2 * np.eye(N), False),
            ("1e300", lambda: K * 1e300, False),
            ("1e-300", lambda: K * 1e-300, False),
            ("list", lambda: K.tolist(), False),
            ("empty", lambda: np.empty((0, 0)), True),
        ):
            out.append(
                Case(
                    "make_solver",
                    f"{s}: S {kind}",
                    call_case(
                        "make_solver",
                        lambda s=s, S=S: make_solver(S(), s, xp=xp),
                        names=("S", "solver"),
                        must_refuse=refuse or s == "nope",
                    ),
                )
            )
        for kind, alpha, refuse in (
            ("-1", -1.0, True),
            ("nan", np.nan, True),
            ("inf", np.inf, True),
            ("0", 0.0, False),
            ("1e-300", 1e-300, False),
            ("1e300", 1e300, False),
            ("text", "a", True),
        ):
            if s == "nope":
                continue
            out.append(
                Case(
                    "solve_dual",
                    f"{s}: alpha {kind}",
                    call_case(
                        "solve_dual",
                        lambda s=s, alpha=alpha: solve_dual(
                            make_solver(K, s, xp=xp), Y0, alpha, fit_intercept=True, xp=xp
                        ),
                        names=("alpha",),
                        must_refuse=refuse,
                    ),
                )
            )
        if s == "nope":
            continue
        for kind, y, w, refuse in (
            ("y wrong length", Y0[:-1], None, True),
            ("y NaN", np.where(np.arange(N) == 1, np.nan, Y0), None, True),
            ("y 2-D", np.c_[Y0, Y0], None, False),
            ("y * 1e300", Y0 * 1e300, None, False),
            ("sqrt_weight negative", Y0, -np.ones(N), True),
            ("sqrt_weight NaN", Y0, np.where(np.arange(N) == 1, np.nan, 1.0), True),
            ("sqrt_weight wrong length", Y0, np.ones(N - 1), True),
            ("sqrt_weight 1e300", Y0, np.full(N, 1e300), False),
        ):
            out.append(
                Case(
                    "solve_dual",
                    f"{s}: {kind}",
                    call_case(
                        "solve_dual",
                        lambda s=s, y=y, w=w: solve_dual(
                            make_solver(K, s, xp=xp),
                            y,
                            1.0,
                            fit_intercept=True,
                            xp=xp,
                            sqrt_weight=w,
                        ),
                        names=("y", "sqrt_weight"),
                        must_refuse=refuse,
                    ),
                )
            )
    Z = (
        lowrank.icd(Gaussian(0.5), X0, 5).G
        if hasattr(lowrank.icd(Gaussian(0.5), X0, 5), "G")
        else None
    )
    if Z is None:
        Z = np.asarray(lowrank.LowRankFeatures(rank=5).fit_transform(X0))
    for kind, ZZ, y, w, refuse in (
        ("ok", Z, Y0, None, False),
        ("Z NaN", np.where(Z > 0.5, np.nan, Z), Y0, None, True),
        ("Z 1-D", Z[:, 0], Y0, None, True),
        ("Z text", Z.astype(str), Y0, None, True),
        ("y wrong length", Z, Y0[:-1], None, True),
        ("y NaN", Z, np.where(np.arange(N) == 1, np.nan, Y0), None, True),
        ("weights negative", Z, Y0, -np.ones(N), True),
        ("weights NaN", Z, Y0, np.where(np.arange(N) == 1, np.nan, 1.0), True),
        ("weights wrong length", Z, Y0, np.ones(N - 1), True),
        ("weights 1e300", Z, Y0, np.full(N, 1e300), False),
        ("weights zero", Z, Y0, np.zeros(N), True),
        ("Z list", Z.tolist(), Y0, None, False),
    ):
        out.append(
            Case(
                "primal_problem",
                kind,
                call_case(
                    "primal_problem",
                    lambda ZZ=ZZ, y=y, w=w: primal_problem(
                        ZZ, y, fit_intercept=True, xp=xp, sample_weight=w
                    ),
                    names=("Z", "y", "sample_weight"),
                    must_refuse=refuse,
                ),
            )
        )
    return out


def alignment_cases() -> list[Case]:
    out: list[Case] = []
    Ks = [Gaussian(0.5)(X0), Laplacian(0.5)(X0)]
    for kind, KK, y, refuse in (
        ("ok", Ks, Y0, False),
        ("K NaN", [np.where(np.eye(N) > 0, np.nan, Ks[0]), Ks[1]], Y0, True),
        ("mismatched shapes", [Ks[0], Ks[1][:-1, :-1]], Y0, True),
        ("non-square", [Ks[0][:, :-1]], Y0, True),
        ("empty list", [], Y0, True),
        ("y wrong length", Ks, Y0[:-1], True),
        ("y NaN", Ks, np.where(np.arange(N) == 1, np.nan, Y0), True),
        ("y constant", Ks, np.ones(N), False),
        ("y * 1e300", Ks, Y0 * 1e300, False),
        ("K list", [k.tolist() for k in Ks], Y0, False),
        ("K 1e300", [k * 1e300 for k in Ks], Y0, False),
        ("K numeric text", [k.astype(str) for k in Ks], Y0, False),
        ("K text (words)", [np.where(k > 0.9, "high", k.astype(str)) for k in Ks], Y0, True),
        ("y * 1e-300", Ks, Y0 * 1e-300, False),
        ("K 1e150", [k * 1e150 for k in Ks], Y0, False),
        ("not a list", Ks[0], Y0, False),
    ):
        out.append(
            Case(
                "kernel_alignment",
                kind,
                call_case(
                    "kernel_alignment",
                    lambda KK=KK, y=y: alignment.kernel_alignment(KK, y),
                    names=("Ks", "y", "K"),
                    must_refuse=refuse,
                ),
            )
        )
    a, M = alignment.kernel_alignment(Ks, Y0)
    for method in ("align", "alignf", "alignfc", "nope"):
        for kind, aa, MM, refuse in (
            ("ok", a, M, False),
            ("a NaN", np.full_like(a, np.nan), M, True),
            ("M NaN", a, np.full_like(M, np.nan), True),
            ("a negative", -a, M, False),
            ("shape mismatch", a[:1], M, True),
            ("a zero", np.zeros_like(a), M, False),
        ):
            out.append(
                Case(
                    "alignment_weights",
                    f"{method}: {kind}",
                    call_case(
                        "alignment_weights",
                        lambda aa=aa, MM=MM, method=method: alignment.alignment_weights(
                            aa, MM, method
                        ),
                        names=("a", "M", "method"),
                        must_refuse=refuse or method == "nope",
                    ),
                )
            )
    G = (
        [
            np.asarray(lowrank.icd(Gaussian(0.5), X0, 5).G),
            np.asarray(lowrank.icd(Linear(), X0, 3).G),
        ]
        if hasattr(lowrank.icd(Linear(), X0, 3), "G")
        else None
    )
    if G is not None:
        for kind, GG, y, refuse in (
            ("ok", G, Y0, False),
            ("NaN", [np.full_like(G[0], np.nan), G[1]], Y0, True),
            ("rows mismatch", [G[0], G[1][:-1]], Y0, True),
            ("list", [g.tolist() for g in G], Y0, False),
            ("y wrong length", G, Y0[:-1], True),
        ):
            out.append(
                Case(
                    "factor_alignment",
                    kind,
                    call_case(
                        "factor_alignment",
                        lambda GG=GG, y=y: alignment.factor_alignment(GG, y),
                        names=("factors", "y"),
                        must_refuse=refuse,
                    ),
                )
            )
    return out


def svm_features() -> tuple[list[np.ndarray], np.ndarray]:
    """Two kernels' Nyström features of X0 and the labels ±1 of YC0: the SVM cases' data."""
    F = [
        np.asarray(lowrank.nystrom(Gaussian(0.5), X0, 5, random_state=0).transform(X0)),
        np.asarray(lowrank.nystrom(Linear(), X0, 3, random_state=0).transform(X0)),
    ]
    return F, np.where(YC0 == 1, 1.0, -1.0)


def lpmkl_cases() -> list[Case]:
    out: list[Case] = []
    xp = np
    F, ys = svm_features()
    for kind, FF, y, C, refuse in (
        ("ok", F, ys, 1.0, False),
        ("C 0", F, ys, 0.0, True),
        ("C -1", F, ys, -1.0, True),
        ("C nan", F, ys, np.nan, True),
        ("C 1e300", F, ys, 1e300, False),
        ("C 1e-300", F, ys, 1e-300, False),
        ("labels 0/1", F, YC0.astype(float), 1.0, True),
        ("labels NaN", F, np.where(np.arange(N) == 1, np.nan, ys), 1.0, True),
        ("features NaN", [np.full_like(F[0], np.nan), F[1]], ys, 1.0, True),
        ("rows mismatch", [F[0][:-1], F[1]], ys, 1.0, True),
        ("features 1-D", [F[0][:, 0]], ys, 1.0, True),
        ("empty list", [], ys, 1.0, True),
        ("features list", [f.tolist() for f in F], ys, 1.0, False),
        ("one class", F, np.ones(N), 1.0, False),
    ):
        out.append(
            Case(
                "svm_problem",
                kind,
                call_case(
                    "svm_problem",
                    lambda FF=FF, y=y, C=C: lpmkl.svm_problem(FF, y, C, xp=xp),
                    names=("C", "y", "features"),
                    must_refuse=refuse,
                ),
            )
        )
    prob = lpmkl.svm_problem(F, ys, 1.0, xp=xp)
    d = np.full(2, 0.5)
    for kind, dd, kw, refuse in (
        ("ok", d, {}, False),
        ("d negative", -d, {}, True),
        ("d NaN", np.full(2, np.nan), {}, True),
        ("d wrong length", d[:1], {}, True),
        ("d zero", np.zeros(2), {}, False),
        ("d 1e300", np.full(2, 1e300), {}, False),
        ("variant nope", d, {"variant": "nope"}, True),
        ("box_update nope", d, {"box_update": "nope"}, True),
        ("stop nope", d, {"stop": "nope"}, True),
        ("max_iter 0", d, {"max_iter": 0}, False),
        ("max_iter -1", d, {"max_iter": -1}, True),
        ("max_iter 1e9 tol 0", d, {"max_iter": 10**9, "tol": 0.0}, False),
        ("eta 1e300", d, {"eta": 1e300}, False),
        ("eta -1", d, {"eta": -1.0}, True),
        ("step 0", d, {"step": 0.0}, True),
        ("step 1e300", d, {"step": 1e300}, False),
        ("step nan", d, {"step": np.nan}, True),
        ("relaxation 0", d, {"relaxation": 0.0}, True),
        ("relaxation 2", d, {"relaxation": 2.0}, True),
        ("alpha_scale 1e300", d, {"alpha_scale": 1e300}, False),
        ("alpha_scale 1e-300", d, {"alpha_scale": 1e-300}, False),
        ("alpha_scale nope", d, {"alpha_scale": "nope"}, True),
        ("tol nan", d, {"tol": np.nan}, True),
    ):
        out.append(
            Case(
                "solve_gfb_svm",
                kind,
                call_case(
                    "solve_gfb_svm",
                    lambda dd=dd, kw=kw: lpmkl.solve_gfb_svm(prob, dd, xp=xp, **kw),
                    names=("d", *kw.keys(), "eta", "alpha_scale"),
                    must_refuse=refuse,
                ),
            )
        )
    for kind, p, kw, refuse in (
        ("p 2", 2.0, {}, False),
        ("p 1", 1.0, {}, False),
        ("p 0.5", 0.5, {}, True),
        ("p 1e300", 1e300, {}, False),
        ("p inf", np.inf, {}, False),
        ("p nan", np.nan, {}, True),
        ("solver nope", 2.0, {"solver": "nope"}, True),
        ("stop gap", 2.0, {"stop": "gap"}, False),
        ("stop nope", 2.0, {"stop": "nope"}, True),
        ("max_outer_iter 0", 2.0, {"max_outer_iter": 0}, True),
        (
            "max_outer_iter 1e9, tol 0",
            2.0,
            {"max_outer_iter": 10**9, "tol": 0.0, "weight_tol": 0.0, "max_iter": 20},
            False,
        ),
        ("eta 1e300", 2.0, {"eta": 1e300}, False),
        ("weights negative", 2.0, {"weights": -np.ones(2)}, True),
        ("weights wrong length", 2.0, {"weights": np.ones(3)}, True),
    ):
        out.append(
            Case(
                "solve_lp_mkl",
                kind,
                call_case(
                    "solve_lp_mkl",
                    lambda p=p, kw=kw: lpmkl.solve_lp_mkl(prob, p, xp=xp, **kw),
                    names=("p", *kw.keys()),
                    must_refuse=refuse,
                ),
            )
        )
    for kind, n2, p, refuse in (
        ("ok", np.array([1.0, 2.0]), 2.0, False),
        ("p -1", np.array([1.0, 2.0]), -1.0, True),
        ("p 0", np.array([1.0, 2.0]), 0.0, True),
        ("p 1", np.array([1.0, 2.0]), 1.0, False),
        ("p inf", np.array([1.0, 2.0]), np.inf, False),
        ("norms NaN", np.array([np.nan, 2.0]), 2.0, True),
        ("norms negative", np.array([-1.0, 2.0]), 2.0, True),
        ("norms zero", np.zeros(2), 2.0, False),
        ("norms 1e300", np.array([1e300, 1e-300]), 2.0, False),
        ("norms 2-D", np.ones((2, 2)), 2.0, True),
    ):
        out.append(
            Case(
                "lp_weights",
                kind,
                call_case(
                    "lp_weights",
                    lambda n2=n2, p=p: lpmkl.lp_weights(n2, p, xp=xp),
                    names=("p", "norms2"),
                    must_refuse=refuse,
                ),
            )
        )
    sol = lpmkl.solve_gfb_svm(prob, d, xp=xp)
    for kind, p, kw, refuse in (
        ("ok", 2.0, {}, False),
        ("p 0.5", 0.5, {}, True),
        ("eta -1", 2.0, {"eta": -1.0}, True),
        ("eta 1e300", 2.0, {"eta": 1e300}, False),
        ("solution None", 2.0, {"solution": None}, True),
    ):
        out.append(
            Case(
                "mkl_duality_gap",
                kind,
                call_case(
                    "mkl_duality_gap",
                    lambda p=p, kw=kw: lpmkl.mkl_duality_gap(
                        prob,
                        kw.pop("solution", sol) if "solution" in kw else sol,
                        p,
                        xp=xp,
                        **{k: v for k, v in kw.items() if k != "solution"},
                    ),
                    names=("p", "eta", "solution"),
                    must_refuse=refuse,
                ),
            )
        )
    return out


def wrapper_cases() -> list[Case]:
    """The solver-level functions that validate and call a private core: the ℓp-MKL helpers
    (duality gaps, objectives, the intercept, the α unit), the primal ridge pieces and the
    Cholesky steps of ``lrkl.lowrank``."""
    out: list[Case] = []
    xp = np

    def add(target: str, kind: str, fn: Callable[[], Any], names: tuple[str, ...], refuse: bool):
        out.append(Case(target, kind, call_case(target, fn, names=names, must_refuse=refuse)))

    F, ys = svm_features()
    prob = lpmkl.svm_problem(F, ys, 1.0, xp=xp)
    d = np.full(2, 0.5)
    sol = lpmkl.solve_gfb_svm(prob, d, xp=xp)
    nan_row = np.where(np.arange(N) == 1, np.nan, 1.0)
    for kind, dd, alpha, eta, refuse in (
        ("ok", d, sol.alpha, 0.0, False),
        ("d negative", -d, sol.alpha, 0.0, True),
        ("d NaN", d * np.nan, sol.alpha, 0.0, True),
        ("d wrong length", d[:1], sol.alpha, 0.0, True),
        ("alpha NaN", d, sol.alpha * nan_row, 0.0, True),
        ("alpha wrong length", d, sol.alpha[:-1], 0.0, True),
        ("alpha 2-D", d, sol.alpha[:, None], 0.0, True),
        ("alpha outside the box", d, sol.alpha + 10.0, 0.0, False),
        ("eta -1", d, sol.alpha, -1.0, True),
        ("eta nan", d, sol.alpha, np.nan, True),
    ):
        add(
            "duality_gap",
            kind,
            lambda dd=dd, alpha=alpha, eta=eta: lpmkl.duality_gap(prob, dd, alpha, eta=eta, xp=xp),
            ("d", "alpha", "eta"),
            refuse,
        )
    for kind, ss, dd, refuse in (
        ("ok", sol, d, False),
        ("d zero", sol, np.zeros(2), False),
        ("d negative", sol, -d, True),
        ("d wrong length", sol, np.ones(3), True),
        ("solution None", None, d, True),
        ("solution w NaN", sol._replace(w=sol.w * np.nan), d, True),
        ("solution decision short", sol._replace(decision=sol.decision[:-1]), d, True),
    ):
        add(
            "mkl_objective",
            kind,
            lambda ss=ss, dd=dd: lpmkl.mkl_objective(ss, prob, dd, xp=xp),
            ("d", "solution", "solution.w", "solution.decision"),
            refuse,
        )
    for kind, ss, refuse in (
        ("ok", sol, False),
        ("solution None", None, True),
        ("alpha None", sol._replace(alpha=None), True),
        ("alpha NaN", sol._replace(alpha=sol.alpha * nan_row), True),
    ):
        add(
            "svm_dual_objective",
            kind,
            lambda ss=ss: lpmkl.svm_dual_objective(ss, prob, xp=xp),
            ("solution", "solution.alpha"),
            refuse,
        )
    g = np.asarray(sol.decision)
    for kind, gg, y, refuse in (
        ("ok", g, ys, False),
        ("labels 0/1", g, (ys + 1) / 2, True),
        ("one class", g, np.ones(N), True),
        ("y wrong length", g, ys[:-1], True),
        ("decision NaN", g * nan_row, ys, True),
        ("decision 1e300", g * 1e300, ys, False),
        ("decision 2-D", g[:, None], ys, True),
    ):
        add(
            "hinge_intercept",
            kind,
            lambda gg=gg, y=y: lpmkl.hinge_intercept(gg, y, xp=xp),
            ("decision", "y"),
            refuse,
        )
    for kind, dd, c, refuse in (
        ("ok", d, 1.0, False),
        ("d zero", np.zeros(2), 1.0, False),
        ("d negative", -d, 1.0, True),
        ("constant 0", d, 0.0, True),
        ("constant nan", d, np.nan, True),
        ("constant text", d, "a", True),
    ):
        add(
            "auto_alpha_scale",
            kind,
            lambda dd=dd, c=c: lpmkl.auto_alpha_scale(prob, dd, constant=c, xp=xp),
            ("d", "constant"),
            refuse,
        )

    Z = np.asarray(lowrank.icd(Gaussian(0.5), X0, 5).G)
    primal = kernel_ridge.primal_problem(Z, Y0, fit_intercept=True, xp=xp)
    chol = kernel_ridge.make_solver(primal.gram, "cholesky", xp=xp)
    eigh = kernel_ridge.make_solver(primal.gram, "eigh", xp=xp)
    for kind, pp, solver, alpha, refuse in (
        ("ok", primal, chol, 1.0, False),
        ("eigh, alpha 0", primal, eigh, 0.0, False),
        ("alpha -1", primal, chol, -1.0, True),
        ("alpha nan", primal, chol, np.nan, True),
        ("alpha 1e300", primal, chol, 1e300, False),
        ("problem tuple", tuple(primal), chol, 1.0, True),
        ("problem NaN", primal._replace(rhs=primal.rhs * np.nan), chol, 1.0, True),
        ("solver a matrix", primal, primal.gram, 1.0, True),
        (
            "solver of another order",
            primal,
            kernel_ridge.make_solver(np.eye(3), "eigh", xp=xp),
            1.0,
            True,
        ),
    ):
        add(
            "solve_primal",
            kind,
            lambda pp=pp, solver=solver, alpha=alpha: kernel_ridge.solve_primal(
                pp, solver, alpha, xp=xp
            ),
            ("problem", "problem.rhs", "solver", "alpha"),
            refuse,
        )
    for kind, ZZ, y, solver, alphas, w, refuse in (
        ("ok", Z, Y0, eigh, [0.1, 1.0], None, False),
        ("weighted", Z, Y0, eigh, [0.1, 1.0], np.linspace(0.5, 2.0, N), False),
        ("alphas empty", Z, Y0, eigh, [], None, True),
        ("alphas 0", Z, Y0, eigh, [0.0], None, True),
        ("alphas nan", Z, Y0, eigh, [np.nan], None, True),
        ("alphas 1e300", Z, Y0, eigh, [1e300], None, False),
        ("cholesky solver", Z, Y0, chol, [1.0], None, True),
        ("Z NaN", Z * np.nan, Y0, eigh, [1.0], None, True),
        ("Z wrong columns", Z[:, :-1], Y0, eigh, [1.0], None, True),
        ("y wrong length", Z, Y0[:-1], eigh, [1.0], None, True),
        ("y 2-D", Z, np.c_[Y0, Y0], eigh, [1.0], None, True),
        ("weights negative", Z, Y0, eigh, [1.0], -np.ones(N), True),
        ("weights zero", Z, Y0, eigh, [1.0], np.zeros(N), True),
    ):
        add(
            "primal_loo_errors",
            kind,
            lambda ZZ=ZZ, y=y, solver=solver, alphas=alphas, w=w: kernel_ridge.primal_loo_errors(
                ZZ, y, primal, solver, alphas, fit_intercept=True, xp=xp, sample_weight=w
            ),
            ("Z", "y", "solver", "alphas", "sample_weight"),
            refuse,
        )
    K = Gaussian(0.5)(X0)
    for kind, KK, w, refuse in (
        ("ok", K, np.ones(N), False),
        ("no weights", K, None, False),
        ("lists", K.tolist(), [1.0] * N, False),
        ("K NaN", np.where(np.eye(N) > 0, np.nan, K), None, True),
        ("K non-square", K[:, :-1], None, True),
        ("K 1-D", K[0], None, True),
        ("weights negative", K, -np.ones(N), True),
        ("weights zero", K, np.zeros(N), True),
        ("weights NaN", K, nan_row, True),
        ("weights wrong length", K, np.ones(N - 1), True),
    ):
        add(
            "weigh_kernel",
            kind,
            lambda KK=KK, w=w: kernel_ridge.weigh_kernel(KK, w),
            ("K", "sqrt_weight"),
            refuse,
        )

    fac = lowrank.icd(Gaussian(0.5), X0, 5)
    G0 = np.zeros((N, 3))
    for kind, kernel, X, G, dd, pivot, k, refuse in (
        ("ok", Gaussian(0.5), X0, G0, np.ones(N), 1, 0, False),
        ("kernel a name", "rbf", X0, G0, np.ones(N), 1, 0, False),
        ("kernel an object", object(), X0, G0, np.ones(N), 1, 0, True),
        ("X NaN", Gaussian(0.5), X0 * np.nan, G0, np.ones(N), 1, 0, True),
        ("d wrong length", Gaussian(0.5), X0, G0, np.ones(N - 1), 1, 0, True),
        ("G wrong rows", Gaussian(0.5), X0, G0[:-1], np.ones(N), 1, 0, True),
        ("pivot n", Gaussian(0.5), X0, G0, np.ones(N), N, 0, True),
        ("pivot -1", Gaussian(0.5), X0, G0, np.ones(N), -1, 0, True),
        ("pivot 1.5", Gaussian(0.5), X0, G0, np.ones(N), 1.5, 0, True),
        ("k beyond G", Gaussian(0.5), X0, G0, np.ones(N), 1, 4, True),
    ):
        add(
            "icd_column",
            kind,
            lambda kernel=kernel, X=X, G=G, dd=dd, pivot=pivot, k=k: lowrank.icd_column(
                kernel, X, G, dd, pivot, k, xp=xp
            ),
            ("kernel", "X", "G", "d", "pivot", "k"),
            refuse,
        )
    for kind, kernel, S, L, Zn, refuse in (
        ("ok", fac.kernel, fac.landmarks, fac.L, XT0, False),
        ("kernel a name", "rbf", fac.landmarks, fac.L, XT0, True),
        ("L wrong shape", fac.kernel, fac.landmarks, fac.L[:-1], XT0, True),
        ("L NaN", fac.kernel, fac.landmarks, fac.L * np.nan, XT0, True),
        ("Z wrong columns", fac.kernel, fac.landmarks, fac.L, XT0[:, :-1], True),
        ("Z NaN", fac.kernel, fac.landmarks, fac.L, XT0 * np.nan, True),
        ("Z 1-D", fac.kernel, fac.landmarks, fac.L, XT0[0], True),
    ):
        add(
            "cholesky_features",
            kind,
            lambda kernel=kernel, S=S, L=L, Zn=Zn: lowrank.cholesky_features(
                kernel, S, L, Zn, xp=xp
            ),
            ("kernel", "landmarks", "L", "Z"),
            refuse,
        )
    return out


def build_cases() -> list[Case]:
    cases: list[Case] = []
    for name in ESTIMATORS:
        cases += malformed_cases(name)
        cases += scale_cases(name)
        cases += kernel_cases(name)
        cases += param_cases(name)
    cases += kernel_api_cases()
    cases += lowrank_cases()
    cases += ridge_cases()
    cases += alignment_cases()
    cases += lpmkl_cases()
    cases += wrapper_cases()
    return cases


# ---------------------------------------------------------------------------------------------
# runner: forked workers under a watchdog


def run_one(case: Case) -> Outcome:
    try:
        return case.run()
    except Exception as exc:  # a bug in the check itself, or in a reference fit
        tb = traceback.format_exception(exc)[-1].strip()
        return Outcome("FOREIGN", f"(in the check or its reference) {tb[:300]}")


def worker(conn: Any, cases: list[Case]) -> None:
    while True:
        i = conn.recv()
        if i is None:
            return
        start = time.perf_counter()
        out = run_one(cases[i])
        conn.send((i, out.cls, out.message, time.perf_counter() - start))


def run_all(cases: list[Case], order: list[int], jobs: int, timeout: float) -> dict[int, tuple]:
    ctx = multiprocessing.get_context("fork")
    results: dict[int, tuple] = {}
    pending = list(reversed(order))
    slots: list[dict[str, Any]] = []

    def start() -> dict[str, Any]:
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=worker, args=(child, cases), daemon=True)
        proc.start()
        return {"proc": proc, "conn": parent, "case": None, "since": 0.0}

    def feed(slot: dict[str, Any]) -> None:
        if pending:
            slot["case"] = pending.pop()
            slot["since"] = time.monotonic()
            slot["conn"].send(slot["case"])
        else:
            slot["case"] = None

    for _ in range(max(1, jobs)):
        slot = start()
        slots.append(slot)
        feed(slot)
    done, total, t0 = 0, len(order), time.monotonic()
    while any(s["case"] is not None for s in slots):
        busy = [s for s in slots if s["case"] is not None]
        ready = wait([s["conn"] for s in busy], timeout=0.5)
        now = time.monotonic()
        for s in busy:
            if s["conn"] in ready:
                try:
                    i, cls, msg, secs = s["conn"].recv()
                except EOFError:  # the worker died (segfault, os._exit)
                    i, cls, msg, secs = s["case"], "FOREIGN", "the process died", now - s["since"]
                    s.update(start())
                results[i] = (cls, msg, secs)
                done += 1
                feed(s)
            elif now - s["since"] > timeout:
                results[s["case"]] = ("SLOW", f"killed after {timeout:g} s", now - s["since"])
                s["proc"].kill()
                s["proc"].join()
                s.update(start())
                done += 1
                feed(s)
        if done and done % 200 == 0:
            print(f"  {done}/{total} cases, {time.monotonic() - t0:.0f} s", file=sys.stderr)
    for s in slots:
        if s["proc"].is_alive():
            s["conn"].send(None)
            s["proc"].join(timeout=5)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="run every 8th case only")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per case (20)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (1)")
    parser.add_argument("--only", default="", help="targets whose name contains this")
    parser.add_argument("--kind", default="", help="cases whose kind contains this")
    parser.add_argument("--show", type=int, default=200, help="failure messages to list")
    args = parser.parse_args(argv)

    cases = build_cases()
    order = [i for i, c in enumerate(cases) if args.only in c.target and args.kind in c.kind]
    if args.quick:
        order = order[::8]
    print(f"{len(order)} cases of {len(cases)}", file=sys.stderr)
    t0 = time.monotonic()
    results = run_all(cases, order, args.jobs, args.timeout)
    elapsed = time.monotonic() - t0

    table: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    totals: collections.Counter = collections.Counter()
    failures: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    for i in order:
        cls, msg, _ = results[i]
        case = cases[i]
        table[case.target][cls] += 1
        totals[cls] += 1
        if cls != "OK":
            key = (cls, re.sub(r"[-+]?\d[\d.e+-]*", "#", msg)[:160])
            failures[key].append(f"{case.target} | {case.kind}")

    width = max(len(t) for t in table) + 2
    print(f"\n{'target':<{width}}" + "".join(f"{c:>14}" for c in CLASSES))
    for target in sorted(table):
        print(f"{target:<{width}}" + "".join(f"{table[target][c]:>14}" for c in CLASSES))
    print(f"{'TOTAL':<{width}}" + "".join(f"{totals[c]:>14}" for c in CLASSES))
    print(f"\n{len(order)} cases in {elapsed:.0f} s")
    print(f"\n{len(failures)} distinct failure messages:")
    for n, ((cls, msg), where) in enumerate(sorted(failures.items(), key=lambda kv: kv[0])):
        if n >= args.show:
            print(f"... {len(failures) - n} more")
            break
        print(f"\n[{cls}] ×{len(where)} {msg}")
        for w in where[:6]:
            print(f"    {w}")
        if len(where) > 6:
            print(f"    … {len(where) - 6} more")
    bad = sum(totals[c] for c in CLASSES if c not in ("OK", "UNNAMED"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

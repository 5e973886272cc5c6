"""Properties a user relies on, over every public estimator (issue 33), each checked by hypothesis
against a stated reference and tolerance.

Data: 30 to 60 training rows and 15 test rows of 2 to 4 normal features, ``y = sin x₀ + x₁`` plus
noise (two classes split at the median for classifiers, three at the terciles where asked).
What is compared (:func:`_output`): ``predict`` of a regressor, ``decision_function`` of a
classifier, and ``G Gᵀ`` of a transformer's features ``G`` of the test rows (the features are
defined up to a rotation, the kernel approximation is not). "Of the spread" means divided by the
peak-to-peak range of the reference's output.

- translation of X (stationary kernels only): the fit on ``X + c`` against the fit on
  ``(X + c) − c`` — the same rounded values, so only the floating point of the offset differs;
- scale of X with ``gamma="scale"``: the fit on ``10^k X`` against the fit on ``X``, and a clear
  ValueError about X's scale where ``γ`` itself is not a float64;
- float16 and float32 against the float64 fit of the same rounded values;
- list, pandas and NumPy inputs give identical outputs;
- a fit that raises leaves the estimator exactly (deeply) as it was;
- a classifier's ``predict`` never turns a NaN or infinite score into a label.

The scale of ``y`` is tested in ``tests/test_scale.py``. Every kernel here has ``gamma="scale"``
(stationary and scale-free): the Linear and Polynomial kernels of ``test_common.ESTIMATORS`` are
not translation-invariant, so the multi-kernel estimators take a Gaussian and a Laplacian kernel.
Examples are derandomized so that a run is reproducible.
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, is_classifier
from sklearn.utils.validation import has_fit_parameter

import lrkl
from lrkl import (
    AlignmentKernelRidge,
    KernelRidge,
    KernelRidgeCV,
    KernelRidgeSubset,
    LowRankMKLClassifier,
    LowRankMKLClassifierCV,
    LowRankRidge,
    LowRankRidgeClassifier,
    LowRankRidgeClassifierCV,
    LowRankRidgeCV,
    MklarenRegressor,
    SLKLClassifier,
    SLKLRegressor,
    SLKLRegressorCV,
    UniformKernelRidge,
    UniformRankOneRidge,
)
from lrkl.kernels import Gaussian, Laplacian
from lrkl.lowrank import LowRankFeatures


def _kernels() -> list:
    return [Gaussian(), Laplacian()]


#: Every public estimator, in the configurations of test_common.ESTIMATORS (small ranks and
#: iteration counts: each fit takes milliseconds), with stationary "scale" kernels.
ESTIMATORS: dict[str, Callable[[], BaseEstimator]] = {
    "KernelRidge": lambda: KernelRidge(),
    "KernelRidge-penalized-eigh": lambda: KernelRidge(penalize_intercept=True, solver="eigh"),
    "KernelRidge-tikhonov": lambda: KernelRidge(method="tikhonov"),
    "KernelRidge-cg": lambda: KernelRidge(method="cg", max_iter=10, columns="on_the_fly"),
    "KernelRidgeCV": lambda: KernelRidgeCV(),
    "KernelRidgeCV-tikhonov": lambda: KernelRidgeCV(method="tikhonov", cv=3),
    "KernelRidgeCV-cg": lambda: KernelRidgeCV(method="cg", max_iter=8),
    "KernelRidgeSubset": lambda: KernelRidgeSubset(n_columns=15, random_state=0),
    "UniformRankOneRidge": lambda: UniformRankOneRidge(n_columns=15, random_state=0),
    "LowRankRidge-icd": lambda: LowRankRidge(_kernels(), rank=5, method="icd"),
    "LowRankRidge-csi": lambda: LowRankRidge(_kernels(), rank=5, method="csi", lookahead=2),
    "LowRankRidge-nystrom": lambda: LowRankRidge(
        _kernels(), rank=5, method="nystrom", random_state=0
    ),
    "LowRankRidge-pcg": lambda: LowRankRidge(_kernels()[:1], rank=10, solver="pcg", random_state=0),
    "LowRankRidgeCV": lambda: LowRankRidgeCV(_kernels(), rank=5, method="icd", n_alphas=5),
    "LowRankRidgeClassifier": lambda: LowRankRidgeClassifier(_kernels(), rank=5, method="icd"),
    "LowRankRidgeClassifier-nystrom": lambda: LowRankRidgeClassifier(
        _kernels(), rank=5, method="nystrom", class_weight="balanced", random_state=0
    ),
    "LowRankRidgeClassifierCV": lambda: LowRankRidgeClassifierCV(
        _kernels(), rank=5, method="icd", n_alphas=5
    ),
    "LowRankFeatures-icd": lambda: LowRankFeatures(_kernels(), rank=5),
    "LowRankFeatures-nystrom": lambda: LowRankFeatures(
        _kernels(), rank=5, method="nystrom", n_landmarks=10, random_state=0
    ),
    "UniformKernelRidge": lambda: UniformKernelRidge(_kernels()),
    "AlignmentKernelRidge-align": lambda: AlignmentKernelRidge(_kernels(), method="align"),
    "AlignmentKernelRidge-alignf": lambda: AlignmentKernelRidge(_kernels(), method="alignf"),
    "AlignmentKernelRidge-alignfc": lambda: AlignmentKernelRidge(_kernels(), method="alignfc"),
    "MklarenRegressor": lambda: MklarenRegressor(_kernels(), n_components=8, lookahead=3),
    "SLKLRegressor": lambda: SLKLRegressor(n_columns=15, random_state=0),
    "SLKLRegressor-direct": lambda: SLKLRegressor(n_columns=15, mode="direct", random_state=0),
    "SLKLRegressorCV": lambda: SLKLRegressorCV(n_nus=4, cv=3, n_columns=15, random_state=0),
    "SLKLClassifier": lambda: SLKLClassifier(n_columns=15, random_state=0),
    "LowRankMKLClassifier": lambda: LowRankMKLClassifier(_kernels(), rank=5, random_state=0),
    "LowRankMKLClassifier-gfb_naive": lambda: LowRankMKLClassifier(
        _kernels(), rank=5, p=1.2, loss="hinge", solver="gfb_naive", random_state=0
    ),
    "LowRankMKLClassifierCV": lambda: LowRankMKLClassifierCV(
        _kernels(), rank=5, Cs=(0.1, 10.0), random_state=0
    ),
}

#: Every public estimator at its defaults (a seed fixed where it has one): the configurations a
#: user starts from, with the default kernel lists and ``rank=None`` where that is the default.
DEFAULTS: dict[str, Callable[[], BaseEstimator]] = {
    "AlignmentKernelRidge-defaults": lambda: AlignmentKernelRidge(),
    "AlignmentKernelRidge-alignf-defaults": lambda: AlignmentKernelRidge(method="alignf"),
    "KernelRidgeSubset-defaults": lambda: KernelRidgeSubset(random_state=0),
    "LowRankFeatures-defaults": lambda: LowRankFeatures(),
    "LowRankMKLClassifier-defaults": lambda: LowRankMKLClassifier(random_state=0),
    "LowRankRidge-defaults": lambda: LowRankRidge(random_state=0),
    "LowRankRidgeCV-defaults": lambda: LowRankRidgeCV(random_state=0),
    "LowRankRidgeClassifier-defaults": lambda: LowRankRidgeClassifier(random_state=0),
    "LowRankRidgeClassifierCV-defaults": lambda: LowRankRidgeClassifierCV(random_state=0),
    "MklarenRegressor-defaults": lambda: MklarenRegressor(),
    "SLKLClassifier-defaults": lambda: SLKLClassifier(random_state=0),
    "SLKLRegressor-defaults": lambda: SLKLRegressor(random_state=0),
    "SLKLRegressorCV-defaults": lambda: SLKLRegressorCV(random_state=0),
    "UniformKernelRidge-defaults": lambda: UniformKernelRidge(),
    "UniformRankOneRidge-defaults": lambda: UniformRankOneRidge(random_state=0),
}
ESTIMATORS.update(DEFAULTS)

NAMES = sorted(ESTIMATORS)
CLASSIFIERS = [name for name in NAMES if is_classifier(ESTIMATORS[name]())]

#: Where a discrete choice (an iteration count) may flip under
#: float32 round-off, so that the test score — not the predictions — is held within 0.01 of
#: float64's (docs/backend.rst, "Precision policy"). The CV estimators and MklarenRegressor are
#: not here: they fit in float64 (their grid point, its least-angle pivots).
PIVOTED = {
    "KernelRidge-cg": "CGLS: the iteration count is the regulariser, and float32 CGLS drifts",
}

#: At ``rank=None`` (its default) LowRankFeatures keeps the columns above the input dtype's
#: floor ``n·ε·max diag K`` (ICD's residual): in float32 that rank is a knife edge — a float32
#: offset or the float64 fit of the same values keeps another — and the out-of-sample features
#: move with it. Held, in float32, to ``G Gᵀ`` of the training rows within 1e-3 of the spread
#: (both approximate ``K`` to their floor there). docs/backend.rst, "Precision policy".
RANK_FROM_FLOOR = {"LowRankFeatures-defaults": "ICD at rank=None"}

#: Reproducible runs; no shrinking, which would cost seconds per expected failure on every run.
#: LRKL_PROPERTY_EXAMPLES=30 searches deeper (about ten times longer).
EXAMPLES = settings(
    max_examples=int(os.environ.get("LRKL_PROPERTY_EXAMPLES", "3")),
    derandomize=True,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
)


def test_every_public_estimator_is_covered():
    public = {getattr(lrkl, name) for name in lrkl.__all__}
    public = {c for c in public if isinstance(c, type) and issubclass(c, BaseEstimator)}
    public.add(LowRankFeatures)
    assert {type(make()) for make in ESTIMATORS.values()} == public


# --------------------------------------------------------------------------- helpers


def _make_data(seed: int, n: int, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
    rng = np.random.default_rng(seed)
    X, T = rng.standard_normal((n, d)), rng.standard_normal((15, d))
    y, y_test = (np.sin(Z[:, 0]) + Z[:, 1] for Z in (X, T))
    return X, y + 0.1 * rng.standard_normal(n), T, y_test


@st.composite
def datasets(draw: Any, rows: tuple[int, int] = (30, 60)) -> tuple[np.ndarray, ...]:
    """(X, y, X_test, y_test) of one draw with ``rows`` (bounds) training rows; y holds float
    targets, turned into labels by :func:`_target` for classifiers."""
    return _make_data(
        draw(st.integers(0, 2**32 - 1)), draw(st.integers(*rows)), draw(st.integers(2, 4))
    )


def _target(name: str, y: np.ndarray, n_classes: int = 2) -> np.ndarray:
    if name not in CLASSIFIERS:
        return y
    edges = np.quantile(y, np.linspace(0, 1, n_classes + 1)[1:-1])
    return np.asarray(["a", "b", "c"])[np.searchsorted(edges, y)]


def _fit(name: str, X: Any, y: Any, **kwargs: Any) -> BaseEstimator:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence, a choice on a grid end: not tested here
        return ESTIMATORS[name]().fit(X, y, **kwargs)


def _output(model: BaseEstimator, X: Any) -> np.ndarray:
    if hasattr(model, "decision_function"):
        return np.asarray(model.decision_function(X), dtype=np.float64)
    if hasattr(model, "transform"):
        G = np.asarray(model.transform(X), dtype=np.float64)
        return G @ G.T
    return np.asarray(model.predict(X), dtype=np.float64)


def _assert_close(got: np.ndarray, expected: np.ndarray, tolerance: float) -> None:
    """Largest difference within ``tolerance`` times the spread of ``expected``."""
    assert np.all(np.isfinite(got))
    error = float(np.max(np.abs(got - expected)) / np.ptp(expected))
    assert error <= tolerance, f"{error:.3g} of the spread > {tolerance:g}"


# --------------------------------------------------------------------------- 1. translation of X


@pytest.mark.parametrize("name", NAMES)
@EXAMPLES
@given(data=datasets(), log_offset=st.floats(0, 8), sign=st.sampled_from([-1.0, 1.0]))
@example(data=_make_data(1, 40, 3), log_offset=8.0, sign=1.0)  # the bound, both ways
@example(data=_make_data(2, 40, 3), log_offset=8.0, sign=-1.0)
def test_translation_float64(name, data, log_offset, sign):
    """The fit on ``X + c`` (float64, ``|c|`` up to 1e8 times the spread of X) predicts at
    ``T + c`` what the fit on ``(X + c) − c`` predicts at ``(T + c) − c``, within 1e-6 of the
    spread. One offset for every column: ``gamma="scale"`` takes the variance over all entries,
    which a per-column offset would change."""
    X, y, T, _ = data
    c = sign * 10.0**log_offset * np.ptp(X)
    Xc, Tc = X + c, T + c
    y = _target(name, y)
    expected = _output(_fit(name, Xc - c, y), Tc - c)
    got = _output(_fit(name, Xc, y), Tc)
    _assert_close(got, expected, 1e-6)


@pytest.mark.parametrize("name", NAMES)
@EXAMPLES
@given(data=datasets(), log_offset=st.floats(0, 3), sign=st.sampled_from([-1.0, 1.0]))
@example(data=_make_data(1, 40, 3), log_offset=3.0, sign=1.0)  # the bound, both ways
@example(data=_make_data(2, 40, 3), log_offset=3.0, sign=-1.0)
@example(data=_make_data(4, 52, 2), log_offset=3.0, sign=1.0)  # SLKLRegressorCV: 9e-3 in float32
@example(data=_make_data(38, 43, 2), log_offset=0.0, sign=1.0)  # KernelRidgeCV: 4e-3 in float32
def test_translation_float32(name, data, log_offset, sign):
    """float32, ``|c|`` up to 1e3 times the spread (what 24 bits hold; at least twice every
    ``|x|``, so that the moved-back values are exact in float32): within 1e-3 of the spread of
    the float32 fit of the same rounded values moved back (:data:`RANK_FROM_FLOOR`: its rule)."""
    X, y, T, y_test = data
    # c representable in float32 and beyond twice every |x|: X + c − c is then exact in float32
    c = sign * max(10.0**log_offset * np.ptp(X), 2 * np.max(np.abs(np.r_[X, T])))
    c = float(np.float32(c))
    Xc, Tc = (X + c).astype(np.float32), (T + c).astype(np.float32)
    back, T_back = ((Z.astype(np.float64) - c).astype(np.float32) for Z in (Xc, Tc))
    assert np.array_equal(back.astype(np.float64) + c, Xc.astype(np.float64))  # exact
    y = _target(name, y)
    y = y if name in CLASSIFIERS else y.astype(np.float32)
    low, reference = (_fit(name, Xc, y), Xc, Tc), (_fit(name, back, y), back, T_back)
    _assert_low_precision_close(name, low, reference, _target(name, y_test), RANK_FROM_FLOOR)


# --------------------------------------------------------------------------- 2. scale of X


@pytest.mark.parametrize("name", NAMES)
@EXAMPLES
@given(data=datasets(), k=st.integers(-150, 150))
@example(data=_make_data(1, 40, 3), k=150)  # the bounds
@example(data=_make_data(2, 40, 3), k=-150)
@example(data=_make_data(10, 53, 2), k=-3)  # SLKLRegressorCV-defaults was 1.9e-4 away
def test_scale_of_x(name, data, k):
    """``gamma="scale"`` makes every kernel here a function of ``x / scale(X)``: the fit on
    ``10^k X`` predicts at ``10^k T`` what the fit on ``X`` predicts at ``T``, within 1e-6 of
    the spread (``10^k X`` is rounded, the only difference)."""
    X, y, T, _ = data
    y = _target(name, y)
    s = 10.0**k
    expected = _output(_fit(name, X, y), T)
    got = _output(_fit(name, s * X, y), s * T)
    _assert_close(got, expected, 1e-6)


@pytest.mark.parametrize("name", NAMES)
@EXAMPLES
@given(data=datasets(), k=st.integers(155, 300), sign=st.sampled_from([-1, 1]))
@example(data=_make_data(1, 40, 3), k=155, sign=1)  # the bound, both ways
@example(data=_make_data(2, 40, 3), k=155, sign=-1)
def test_scale_of_x_out_of_range_is_a_clear_error(name, data, k, sign):
    """Beyond about 1e±154 the width ``γ ∝ 1/Var(X)`` (``Var X`` up to 1e±308) is not a float64:
    a ValueError about X (1e±150 itself fits: the test above)."""
    X, y, _, _ = data
    with pytest.raises(ValueError, match="X's scale is out of range for gamma='scale'"):
        _fit(name, X * 10.0 ** (sign * k), _target(name, y))


# --------------------------------------------------------------------------- 3. precision


@pytest.mark.parametrize(
    ("name", "dtype"),
    [(name, dtype) for dtype in ("float16", "float32") for name in NAMES],
)
@EXAMPLES
@given(data=datasets(rows=(30, 300)))
@example(data=_make_data(6, 40, 3))  # float32 ICD pivots tied here while d was float32
@example(data=_make_data(209, 55, 2))  # KernelRidgeCV-tikhonov: R² 0.989 float32, 0.779 float64
@example(data=_make_data(19, 40, 2))  # LowRankRidgeCV-defaults was R² 0.086 apart in float32
@example(data=_make_data(46, 30, 2))  # LowRankRidgeCV-defaults was R² 0.079 apart in float16
@example(data=_make_data(1301514362, 40, 2))  # LowRankMKLClassifier-defaults: a label, float32
@example(data=_make_data(11, 200, 2))  # LowRankMKLClassifier-defaults: 3e-2 while C was float32
def test_precision_against_float64(name, dtype, data):
    """float16 (computed in float32) and float32 against the float64 fit of the same rounded
    values: within 1e-3 of the spread, or for :data:`PIVOTED` estimators the test score within
    0.01. Extends tests/test_inputs.py's float16 test (one fixed data set) to drawn data and
    float32."""
    X, y, T, y_test = data
    y, y_test = _target(name, y), _target(name, y_test)
    Xl, Tl = X.astype(dtype), T.astype(dtype)
    yl = y if name in CLASSIFIERS else y.astype(dtype)
    X64, T64 = Xl.astype(np.float64), Tl.astype(np.float64)
    low = (_fit(name, Xl, yl), Xl, Tl)
    full = (_fit(name, X64, yl if name in CLASSIFIERS else yl.astype(np.float64)), X64, T64)
    _assert_low_precision_close(name, low, full, y_test, {**PIVOTED, **RANK_FROM_FLOOR})


def _assert_low_precision_close(
    name: str, low: tuple, reference: tuple, y_test: Any, by_score: dict[str, str]
) -> None:
    """``low`` and ``reference`` are (model, its training X, the test rows): outputs within 1e-3
    of the spread; for ``by_score`` estimators the test score within 0.01, and for a
    transformer among them ``G Gᵀ`` of the training rows within 1e-3 of the spread."""
    (model, X_fit, T), (ref, X_ref, T_ref) = low, reference
    if name not in by_score:
        _assert_close(_output(model, T), _output(ref, T_ref), 1e-3)
    elif hasattr(model, "transform"):
        _assert_close(_output(model, X_fit), _output(ref, X_ref), 1e-3)
    else:
        scores = [model.score(T, y_test), ref.score(T_ref, y_test)]
        assert abs(scores[0] - scores[1]) <= 0.01, by_score[name]


# --------------------------------------------------------------------------- 4. input kinds


@pytest.mark.parametrize("name", NAMES)
@EXAMPLES
@given(data=datasets(), integer_column=st.booleans())
def test_list_dataframe_and_array_give_identical_outputs(name, data, integer_column):
    """The same numbers as a NumPy array, nested lists, or a pandas DataFrame (and Series for
    y), with a column of integers or not: bit-identical outputs."""
    pd = pytest.importorskip("pandas")
    X, y, T, _ = data
    y = _target(name, y)
    if integer_column:
        X[:, 0], T[:, 0] = np.round(3 * X[:, 0]), np.round(3 * T[:, 0])
    columns = [f"x{j}" for j in range(X.shape[1])]

    def frame(Z):
        f = pd.DataFrame(Z, columns=columns)
        return f.astype({"x0": np.int64}) if integer_column else f

    expected = _output(_fit(name, X, y), T)
    from_lists = _output(_fit(name, X.tolist(), y.tolist()), T.tolist())
    from_pandas = _output(_fit(name, frame(X), pd.Series(y)), frame(T))
    np.testing.assert_array_equal(from_lists, expected)
    np.testing.assert_array_equal(from_pandas, expected)


# --------------------------------------------------------------------------- 5. all-or-nothing


def _assert_deep_equal(a: Any, b: Any, path: str = "") -> None:
    """Equal values all the way down: arrays by value and dtype, objects by their attributes."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} became {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, path
        assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"), f"{path} changed in place"
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), f"{path}: keys {set(a) ^ set(b)}"
        for key in a:
            _assert_deep_equal(a[key], b[key], f"{path}[{key!r}]")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), path
        for i, (u, v) in enumerate(zip(a, b, strict=True)):
            _assert_deep_equal(u, v, f"{path}[{i}]")
    elif isinstance(a, np.random.Generator):
        _assert_deep_equal(a.bit_generator.state, b.bit_generator.state, path)
    elif isinstance(a, np.random.RandomState):
        _assert_deep_equal(a.get_state(legacy=False), b.get_state(legacy=False), path)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b), path
    elif hasattr(a, "__dict__") and not callable(a) and not isinstance(a, type):
        _assert_deep_equal(vars(a), vars(b), f"{path}.")
    else:
        assert a == b, f"{path}: {a!r} became {b!r}"


@contextlib.contextmanager
def _kernels_fail_at(call: int) -> Iterator[list[int]]:
    """Kernel evaluations raise from the ``call``-th on (a solver-level failure late in a fit,
    after validation and after any fitted attribute may have been set); yields the count."""
    count = [0]
    originals = {
        (cls, attr): getattr(cls, attr)
        for cls in (Gaussian, Laplacian)
        for attr in ("_evaluate", "_diag", "_feature_map")
        if attr in vars(cls)
    }

    def counting(original):
        def wrapper(*args, **kwargs):
            count[0] += 1
            if count[0] >= call:
                raise _Boom(f"kernel evaluation {count[0]} failed")
            return original(*args, **kwargs)

        return wrapper

    try:
        for (cls, attr), original in originals.items():
            setattr(cls, attr, counting(original))
        yield count
    finally:
        for (cls, attr), original in originals.items():
            setattr(cls, attr, original)


class _Boom(RuntimeError):
    pass


def _failing_fit(name: str, X: np.ndarray, y: np.ndarray, kind: str, where: float):
    """(X, y, fit keywords, expected exception) of one fit that must raise; ``where`` in
    [0, 1) picks the entry."""
    n, d = X.shape
    i, j = int(where * n), int(where * n * d) % d
    X, y = X.copy(), y.copy()
    if kind == "non-finite X":
        X[i, j] = [np.nan, np.inf, -np.inf][i % 3]
        return X, y, {}, ValueError
    if kind == "short y":
        return X, y[: max(i, 1)], {}, ValueError
    if kind == "bad y":
        if name in CLASSIFIERS:
            return X, np.full(n, "a"), {}, ValueError  # one class
        y[i] = np.nan
        return X, y, {}, ValueError
    if kind == "negative weight":
        w = np.ones(n)
        w[i] = -1.0
        return X, y, {"sample_weight": w}, ValueError
    raise AssertionError(kind)


KINDS = ["non-finite X", "short y", "bad y", "negative weight", "kernel", "kernel-refit"]


@pytest.mark.parametrize("name", NAMES)
@settings(EXAMPLES, max_examples=6)
@given(data=datasets(), kind=st.sampled_from(KINDS), where=st.floats(0, 1, exclude_max=True))
def test_failed_fit_leaves_the_estimator_deeply_unchanged(name, data, kind, where):
    """A fit that raises — on an entry of the input, or at a drawn kernel evaluation inside the
    solver — leaves the estimator equal to what it was all the way down (every attribute,
    nested kernels and arrays by value: nothing mutated in place), fitted or not; the refit
    case also predicts bit for bit as before. tests/test_inputs.py checks that no attribute is
    replaced after fixed bad inputs and a failure at the first kernel evaluation."""
    X, y, T, _ = data
    y = _target(name, y)
    model = _fit(name, X, y)
    fresh = ESTIMATORS[name]()
    expected = _output(model, T)
    if kind == "negative weight" and not has_fit_parameter(model, "sample_weight"):
        kind = "non-finite X"
    if name.startswith("LowRankFeatures") and kind in ("short y", "bad y"):
        kind = "non-finite X"  # y is not used
    for estimator in (fresh, model):
        before = copy.deepcopy(vars(estimator))
        if kind.startswith("kernel"):
            Xf = X[::-1] if kind == "kernel-refit" else X  # other data: a different fit
            with _kernels_fail_at(1_000_000) as count:
                _fit(name, Xf, y[::-1] if kind == "kernel-refit" else y)
            with _kernels_fail_at(1 + int(where * count[0])), pytest.raises(_Boom):
                _fit_into(estimator, Xf, y[::-1] if kind == "kernel-refit" else y)
        else:
            bad_X, bad_y, kwargs, error = _failing_fit(name, X, y, kind, where)
            with pytest.raises(error):
                _fit_into(estimator, bad_X, bad_y, **kwargs)
        _assert_deep_equal(before, vars(estimator), type(estimator).__name__)
    np.testing.assert_array_equal(_output(model, T), expected)


def _fit_into(estimator: BaseEstimator, X: Any, y: Any, **kwargs: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator.fit(X, y, **kwargs)


# --------------------------------------------------------------------------- 6. NaN labels


@pytest.mark.parametrize("name", CLASSIFIERS)
@EXAMPLES
@given(
    data=datasets(),
    n_classes=st.sampled_from([2, 3]),
    rows=st.sets(st.integers(0, 14), min_size=1, max_size=3),
    value=st.sampled_from([np.nan, np.inf, -np.inf]),
)
def test_a_non_finite_score_never_becomes_a_label(name, data, n_classes, rows, value):
    """Scores that are NaN or infinite in some rows (a model or an X that overflowed) make
    ``predict`` raise, with two classes (sign) and three (argmax, which NumPy gives to NaN);
    the model itself is untouched."""
    X, y, T, _ = data
    y = _target(name, y, n_classes)
    model = _fit(name, X, y)
    labels = model.predict(T)
    original = model._decision

    def corrupted(Z, method):
        scores = np.array(original(Z, method), dtype=np.float64)
        scores[sorted(rows)] = value
        return scores

    model._decision = corrupted
    with pytest.raises(ValueError, match="decision values of X are not finite"):
        model.predict(T)
    del model._decision
    np.testing.assert_array_equal(model.predict(T), labels)

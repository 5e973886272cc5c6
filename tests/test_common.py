"""What every public estimator shares: scikit-learn's estimator checks, parameter validation with
scikit-learn's ``InvalidParameterError``, and one meaning of ``fit_intercept``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

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
from lrkl._backend import to_numpy
from lrkl.kernels import Gaussian, Linear
from lrkl.lowrank import LowRankFeatures

TWO_KERNELS = [Gaussian(gamma=0.1), Linear()]

#: One instance (or a few configurations) of every public estimator.
ESTIMATORS = [
    SLKLRegressor(),
    SLKLRegressor(mode="direct", solver="coordinate", selection="random", step="newton"),
    SLKLRegressor(mode="direct"),
    SLKLRegressorCV(n_nus=4, cv=3),
    SLKLClassifier(),
    SLKLClassifier(
        mode="direct", solver="coordinate", selection="random", step="newton", stop="objective"
    ),
    KernelRidge(),
    KernelRidge(method="rls", penalize_intercept=True, solver="eigh"),
    KernelRidge(method="tikhonov"),
    KernelRidge(method="cg", columns="on_the_fly"),
    KernelRidgeCV(),
    KernelRidgeCV(method="tikhonov", cv=3),
    KernelRidgeCV(method="cg", max_iter=8),
    KernelRidgeSubset(),
    UniformRankOneRidge(),
    LowRankRidge(TWO_KERNELS, rank=[3, 10], method="icd"),
    LowRankRidge(TWO_KERNELS, rank=[3, 10], method="csi", lookahead=2),
    LowRankRidge(TWO_KERNELS, rank=[3, 10], method="nystrom", random_state=0),
    LowRankRidge(TWO_KERNELS, rank=[3, 10], random_state=0, centers="leverage"),
    LowRankRidge(random_state=0, solver="pcg"),
    LowRankRidgeCV(random_state=0, solver="pcg"),
    LowRankRidgeClassifierCV(random_state=0, solver="pcg"),
    LowRankRidgeCV(TWO_KERNELS, rank=[3, 10], n_alphas=5),
    LowRankRidgeClassifier(TWO_KERNELS, rank=[3, 10]),
    LowRankRidgeClassifier(
        TWO_KERNELS, rank=[3, 10], method="nystrom", class_weight="balanced", random_state=0
    ),
    LowRankRidgeClassifierCV(TWO_KERNELS, rank=[3, 10], n_alphas=5),
    LowRankRidgeClassifierCV(TWO_KERNELS, rank=[3, 5], n_alphas=5, cv=3),
    LowRankRidgeClassifierCV(rank=10, n_alphas=5, random_state=0, centers="leverage"),
    LowRankFeatures(TWO_KERNELS, rank=[3, 10]),
    LowRankFeatures(TWO_KERNELS, rank=3, method="nystrom", n_landmarks=8, random_state=0),
    UniformKernelRidge(TWO_KERNELS),
    *(AlignmentKernelRidge(TWO_KERNELS, method=m) for m in ("align", "alignf", "alignfc")),
    MklarenRegressor(n_components=10, lookahead=5),
    LowRankMKLClassifier(TWO_KERNELS, rank=5, random_state=0),
    LowRankMKLClassifier(TWO_KERNELS, rank=5, loss="hinge", random_state=0),
    LowRankMKLClassifier(
        [Gaussian(gamma=0.1), Gaussian(gamma=1.0)], rank=5, feature_dtype="float32", random_state=0
    ),
    LowRankMKLClassifierCV(TWO_KERNELS, rank=5, Cs=(0.1, 10.0), random_state=0),
    LowRankMKLClassifier(
        TWO_KERNELS, rank=5, p=1.2, loss="hinge", solver="gfb_naive", random_state=0
    ),
]


#: Weights equal repeated rows in the ridge solve (tests/test_first_hour.py), but not in what
#: these estimators build from the rows before it, which the weights do not enter.
_NOT_REPETITION = "check_sample_weight_equivalence_on_dense_data"


#: (KernelRidgeSubset passes: on the checks' 15 rows its default subset is every row; alignfc
#: passes: on the checks' data it puts all weight on one kernel.)
def expected_failed_checks(estimator):
    if isinstance(estimator, LowRankRidge | LowRankRidgeClassifier | LowRankMKLClassifier):
        # (the SVM itself: integer weights equal repeated rows, tests/test_lpmkl_newton.py)
        why = "the low-rank factors are built on the unweighted rows (pivots, landmarks)"
    elif isinstance(estimator, AlignmentKernelRidge) and estimator.method != "alignfc":
        why = "the kernel weights come from the unweighted alignment"
    elif isinstance(estimator, KernelRidge) and estimator.method == "tikhonov":
        why = "one basis function per row: a repeated row is a new column of K̃ too"
        return {
            "check_non_transformer_estimators_n_iter": "Tikhonov is a direct solve",
            _NOT_REPETITION: why,
        }
    elif isinstance(estimator, KernelRidge) and estimator.method == "cg":
        return {_NOT_REPETITION: "one basis function per row: a repeated row is a new column"}
    elif isinstance(estimator, KernelRidge) and estimator.method != "cg":
        why = "max_iter is CG's iteration count; RLS and Tikhonov are direct solves"
        return {"check_non_transformer_estimators_n_iter": why}
    else:
        return {}
    return {_NOT_REPETITION: why}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        # On the checks' random data the best ν often lies on an end of the grid, which
        # SLKLRegressorCV warns about by design (tested in test_slkl.py).
        warnings.filterwarnings("ignore", "SLKLRegressorCV chose nu", UserWarning)
        warnings.filterwarnings("ignore", "LowRankRidge(Classifier)?CV chose alpha", UserWarning)
        warnings.filterwarnings("ignore", "KernelRidgeCV chose", UserWarning)
        warnings.filterwarnings("ignore", "LowRankMKLClassifierCV chose C", UserWarning)
        check(estimator)


#: A value of a parameter of each estimator class that its constraints refuse.
INVALID = [
    (SLKLRegressor, {"fit_intercept": "yes"}),
    (SLKLRegressor, {"verbose": "loud"}),
    (SLKLRegressorCV, {"cv": "five"}),
    (SLKLClassifier, {"stop": "gap"}),
    (KernelRidge, {"alpha": 0.0}),
    (KernelRidge, {"method": "svd"}),
    (KernelRidge, {"penalize_intercept": "yes"}),
    (KernelRidge, {"max_iter": 0}),
    (KernelRidgeCV, {"columns": "cached"}),
    (KernelRidgeSubset, {"n_columns": 0}),
    (UniformRankOneRidge, {"weight": -1.0}),
    (LowRankRidge, {"method": "svd"}),
    (LowRankRidge, {"solver": "lbfgs"}),
    (LowRankRidge, {"pcg_tol": 0.0}),
    (LowRankRidgeCV, {"pcg_max_iter": 0}),
    (LowRankRidgeClassifier, {"verbose": "loud"}),
    (LowRankRidgeCV, {"n_alphas": 0}),
    (LowRankRidgeClassifier, {"class_weight": "even"}),
    (LowRankRidgeClassifierCV, {"cv": "five"}),
    (LowRankFeatures, {"kappa": 2.0}),
    (UniformKernelRidge, {"fit_intercept": 1.5}),
    (AlignmentKernelRidge, {"method": "best"}),
    (MklarenRegressor, {"lookahead": 0}),
    (LowRankMKLClassifier, {"p": 0.5}),
    (LowRankMKLClassifierCV, {"Cs": 1.0}),
]


@pytest.mark.parametrize(("cls", "params"), INVALID, ids=lambda v: getattr(v, "__name__", str(v)))
def test_invalid_parameters_raise_sklearns_error(cls, params):
    X = np.random.default_rng(0).normal(size=(20, 2))
    name = next(iter(params))
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of {cls.__name__}"):
        cls(**params).fit(X, X[:, 0])


def test_every_public_estimator_is_covered():
    from sklearn.base import BaseEstimator

    import lrkl

    public = {
        getattr(lrkl, name)
        for name in lrkl.__all__
        if isinstance(getattr(lrkl, name), type) and issubclass(getattr(lrkl, name), BaseEstimator)
    } | {LowRankFeatures}
    assert public == {type(e) for e in ESTIMATORS}
    assert public == {cls for cls, _ in INVALID}


def test_one_intercept_model(backend):
    """KernelRidge() and UniformKernelRidge with one kernel are one model."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = 3.0 + np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    X_test = rng.normal(size=(15, 3))
    kernel = Gaussian(gamma=0.3)
    exact = KernelRidge(kernel, alpha=0.5)
    uniform = UniformKernelRidge([kernel], alpha=0.5)
    Xb, yb = backend.asarray(X), backend.asarray(y)
    exact.fit(Xb, yb)
    uniform.fit(Xb, yb)
    assert exact.intercept_.shape == uniform.intercept_.shape == ()
    np.testing.assert_allclose(to_numpy(exact.intercept_), to_numpy(uniform.intercept_), rtol=1e-10)
    Xt = backend.asarray(X_test)
    np.testing.assert_allclose(
        to_numpy(exact.predict(Xt)), to_numpy(uniform.predict(Xt)), rtol=1e-10, atol=1e-12
    )


# --------------------------------------------------------------------------- one door

#: lrkl's validation and conversion functions of an array (module, name).
_VALIDATORS = [
    ("lrkl._backend", "check_array"),
    ("lrkl._backend", "ensure_array"),
    ("lrkl._validation", "check_X"),
    ("lrkl._validation", "check_X_y"),
    ("lrkl._validation", "check_classification_X_y"),
    ("lrkl._validation", "check_predict_X"),
    ("lrkl._executor", "at_the_door"),
]


def _host_view(a):
    """The NumPy array holding ``a``'s data (the same memory), or None."""
    if isinstance(a, np.ndarray):
        return a
    inner = getattr(a, "_array", None)  # array_api_strict
    if isinstance(inner, np.ndarray):
        return inner
    if type(a).__module__ == "torch" and hasattr(a, "detach"):  # a tensor, not a torch.dtype
        return a.detach().numpy()
    return None


def _of_X(a, X):
    """Whether ``a`` is ``X``, a view of it (a row slice) or rows taken from it: an array of
    X's 7 columns (no other array of these fits has 7 columns)."""
    shape = getattr(a, "shape", None)  # (a module's ``shape`` is a function)
    if isinstance(shape, tuple) and len(shape) == 2 and shape[1] == X.shape[1]:
        return True
    view = _host_view(a)
    return view is not None and np.shares_memory(view, X)


def _count_validations(monkeypatch, calls):
    """Wrap every validator wherever lrkl imported it; ``calls`` gets the name of each outermost
    call (not one validator inside another) that receives the array ``calls.X`` or rows of it
    (:func:`_of_X`)."""
    import functools
    import sys

    originals = {id(getattr(sys.modules[m], name)): name for m, name in _VALIDATORS}
    depth = [0]

    def wrap(name, function):
        @functools.wraps(function)
        def counted(*args, **kwargs):
            if depth[0] == 0 and any(_of_X(a, calls.X) for a in (*args, *kwargs.values())):
                calls.append(name)
            depth[0] += 1
            try:
                return function(*args, **kwargs)
            finally:
                depth[0] -= 1

        return counted

    for module_name, module in list(sys.modules.items()):
        if module_name == "lrkl" or module_name.startswith("lrkl."):
            for attr, value in list(vars(module).items()):
                if callable(value) and id(value) in originals:
                    monkeypatch.setattr(module, attr, wrap(originals[id(value)], value))


class _Calls(list):
    X = None


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
@pytest.mark.filterwarnings("ignore:.*chose:UserWarning")  # grid ends on these 40 rows
def test_one_validation_of_X_per_call(estimator, backend, monkeypatch):
    """``fit`` and ``predict`` (``transform``) validate and convert X once, at their door; what
    they call inside trusts it (no second check_array of X or of its row slices)."""
    from sklearn.base import clone

    if backend.name == "cupy":
        pytest.skip("the count reads the arrays' memory through NumPy")
    rng = np.random.default_rng(0)
    X, X_new = rng.normal(size=(40, 7)), rng.normal(size=(9, 7))
    y = np.sin(X[:, 0]) + X[:, 1]
    if "Classifier" in type(estimator).__name__:
        y = (y > np.median(y)).astype(np.int64)
    X, X_new, y = backend.asarray(X), backend.asarray(X_new), backend.asarray(y)
    estimator = clone(estimator)
    calls = _Calls()
    _count_validations(monkeypatch, calls)
    calls.X = _host_view(X)
    estimator.fit(X, y)
    assert calls == [calls[0]], f"fit validated X {len(calls)} times: {calls}"
    calls.clear()
    calls.X = _host_view(X_new)
    getattr(estimator, "predict", getattr(estimator, "transform", None))(X_new)
    assert calls == [calls[0]], f"predict validated X {len(calls)} times: {calls}"


# --------------------------------------------------------------------------- row blocks


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
@pytest.mark.filterwarnings("ignore:.*chose:UserWarning")
def test_in_memory_row_blocks_change_results_by_rounding_only(estimator, monkeypatch):
    """Every pass over the rows gives the same model on blocks of 7 rows as on one block of all
    40 (the in-memory executor under a memory budget), up to rounding."""
    from sklearn.base import clone

    from lrkl import _executor

    rng = np.random.default_rng(0)
    X, X_new = rng.normal(size=(40, 5)), rng.normal(size=(9, 5))
    y = np.sin(X[:, 0]) + X[:, 1]
    if "Classifier" in type(estimator).__name__:
        y = (y > np.median(y)).astype(np.int64)
    method = "predict" if hasattr(estimator, "predict") else "transform"
    estimator = clone(estimator)
    if "random_state" in estimator.get_params():  # the same draws on both sides
        estimator.set_params(random_state=0)
    if estimator.get_params().get("method") == "cg":
        # CGLS amplifies rounding (1e-3 after 40 iterations here): a few iterations, as on Dask
        estimator.set_params(max_iter=5)
    one_block = getattr(clone(estimator).fit(X, y), method)(X_new)
    monkeypatch.setattr(_executor, "IN_MEMORY_BLOCK_ROWS", 7)
    in_blocks = getattr(clone(estimator).fit(X, y), method)(X_new)
    np.testing.assert_allclose(in_blocks, one_block, rtol=1e-9, atol=1e-9)

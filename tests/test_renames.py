"""Renamed public names (issue 34): the old name still reads, warns once, and is the new one."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from lrkl import (
    KernelRidge,
    KernelRidgeCV,
    KernelRidgeSubset,
    LowRankMKLClassifier,
    LowRankRidge,
    LowRankRidgeClassifier,
    LowRankRidgeClassifierCV,
    LowRankRidgeCV,
    SLKLClassifier,
    SLKLRegressor,
    SLKLRegressorCV,
    UniformKernelRidge,
    UniformRankOneRidge,
)
from lrkl._base import _warn_renamed
from lrkl.kernels import Gaussian, Linear

RENAMED = [
    (KernelRidge(), "centres_", "centers_"),
    (KernelRidgeCV(), "centres_", "centers_"),
    (KernelRidgeSubset(n_columns=10, random_state=0), "centres_", "centers_"),
    (UniformRankOneRidge(n_columns=10, random_state=0), "centres_", "centers_"),
    (SLKLRegressor(n_columns=10, random_state=0), "centres_", "centers_"),
    (SLKLRegressor(n_columns=10, random_state=0), "weights_", "kernel_weights_"),
    (SLKLRegressorCV(n_columns=10, n_nus=3, random_state=0), "weights_", "kernel_weights_"),
    (SLKLClassifier(n_columns=10, random_state=0), "centres_", "centers_"),
    (SLKLClassifier(n_columns=10, random_state=0), "weights_", "kernel_weights_"),
    (
        LowRankMKLClassifier(kernels=[Gaussian(0.5), Linear()], rank=5, random_state=0),
        "weights_",
        "kernel_weights_",
    ),
    (UniformKernelRidge(kernels=[Gaussian(0.5), Linear()]), "centring_", "centering_"),
]


def _data(classifier: bool):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.sin(X[:, 0]) + X[:, 1]
    return X, (y > np.median(y)).astype(int) if classifier else y


@pytest.mark.parametrize(("estimator", "old", "new"), RENAMED, ids=lambda v: str(v)[:40])
def test_old_attribute_name_warns_once_and_reads_the_new(estimator, old, new):
    classifier = type(estimator).__name__.endswith("Classifier")
    estimator.fit(*_data(classifier))
    _warn_renamed.cache_clear()
    with pytest.warns(
        FutureWarning, match=rf"{type(estimator).__name__}\.{old} is now .*{new}"
    ) as seen:
        value = getattr(estimator, old)
    assert seen[0].filename == __file__  # it points at the line that read the old name
    assert value is getattr(estimator, new)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(estimator, old)  # once: the second read is silent
    assert old not in vars(estimator)


def test_names_that_never_existed_stay_missing():
    model = KernelRidge().fit(*_data(False))
    with pytest.raises(AttributeError, match="no attribute 'weights_'"):
        model.weights_  # noqa: B018
    with pytest.raises(AttributeError, match="centers_"):
        KernelRidge().centres_  # noqa: B018  (not fitted: the new name is the one missing)


@pytest.mark.parametrize(
    "estimator", [LowRankRidge, LowRankRidgeCV, LowRankRidgeClassifier, LowRankRidgeClassifierCV]
)
def test_centres_is_a_deprecated_spelling_of_centers(estimator):
    X, y = _data(classifier=estimator.__name__.endswith(("Classifier", "ClassifierCV")))

    def scores(model):
        return model.decision_function(X) if hasattr(model, "classes_") else model.predict(X)

    with pytest.warns(FutureWarning, match=r"\(centres=\.\.\.\) is deprecated.*centers=") as seen:
        old = estimator(rank=20, random_state=0, centres="leverage").fit(X, y)
    future = [w for w in seen if issubclass(w.category, FutureWarning)]
    assert len(future) == 1 and future[0].filename == __file__  # once, at the user's fit
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        new = estimator(rank=20, random_state=0, centers="leverage").fit(X, y)
        uniform = estimator(rank=20, random_state=0).fit(X, y)
    np.testing.assert_array_equal(scores(old), scores(new))
    assert not np.array_equal(scores(new), scores(uniform))  # the leverage draw was taken


# --------------------------------------------------------------------------- bias → two switches

BIAS_SPELLINGS = [
    ("unpenalized", {}),
    ("penalized", {"penalize_intercept": True}),
    (None, {"fit_intercept": False}),
]


@pytest.mark.parametrize("estimator", [KernelRidge, KernelRidgeCV])
@pytest.mark.parametrize("method", ["rls", "tikhonov", "cg"])
@pytest.mark.parametrize(("bias", "new"), BIAS_SPELLINGS)
@pytest.mark.filterwarnings("ignore:KernelRidgeCV chose:UserWarning")
def test_bias_is_a_deprecated_spelling_of_the_intercept_switches(estimator, method, bias, new):
    X, y = _data(classifier=False)
    y = y + 3.0  # an intercept to fit
    with pytest.warns(FutureWarning, match=r"bias=\.\.\.\) is deprecated"):
        old = estimator(Gaussian(0.5), method=method, bias=bias).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        renamed = estimator(Gaussian(0.5), method=method, **new).fit(X, y)
    np.testing.assert_array_equal(old.predict(X), renamed.predict(X))
    np.testing.assert_array_equal(old.intercept_, renamed.intercept_)


@pytest.mark.parametrize("method", ["tikhonov", "cg"])
def test_an_unpenalized_intercept_is_refused_where_the_method_has_none(method):
    X, y = _data(classifier=False)
    with pytest.raises(ValueError, match=r"penalize_intercept must be True or None.*method='rls'"):
        KernelRidge(method=method, penalize_intercept=False).fit(X, y)
    KernelRidge(method=method, penalize_intercept=True).fit(X, y)  # its own model, said


@pytest.mark.parametrize("method", ["rls", "tikhonov", "cg"])
def test_a_penalty_without_an_intercept_is_refused(method):
    X, y = _data(classifier=False)
    with pytest.raises(ValueError, match="penalize_intercept=True needs fit_intercept=True"):
        KernelRidge(method=method, fit_intercept=False, penalize_intercept=True).fit(X, y)


def test_penalize_intercept_false_is_rls_system_7():
    X, y = _data(classifier=False)
    y = y + 3.0
    default = KernelRidge(Gaussian(0.5)).fit(X, y)
    explicit = KernelRidge(Gaussian(0.5), penalize_intercept=False).fit(X, y)
    penalized = KernelRidge(Gaussian(0.5), penalize_intercept=True).fit(X, y)
    np.testing.assert_array_equal(default.predict(X), explicit.predict(X))
    assert abs(float(penalized.intercept_) - float(default.intercept_)) > 1e-6


@pytest.mark.parametrize(("old", "new"), [("gfb_svm", "solve_gfb_svm"), ("lp_mkl", "solve_lp_mkl")])
def test_old_solver_names_warn_and_are_the_new_ones(old, new):
    import lrkl.lpmkl
    from lrkl._base import _warn_renamed

    _warn_renamed.cache_clear()  # it warns once per name and process

    with pytest.warns(
        FutureWarning, match=rf"lrkl\.lpmkl\.{old} is now lrkl\.lpmkl\.{new}"
    ) as seen:
        function = getattr(lrkl.lpmkl, old)
    assert seen[0].filename == __file__
    assert function is getattr(lrkl.lpmkl, new)
    assert old not in lrkl.lpmkl.__all__

"""A scikit-learn user's first hour: each finding of that report, as a test that failed before."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_friedman1
from sklearn.kernel_ridge import KernelRidge as SklearnKernelRidge
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import has_fit_parameter

from lrkl import (
    AlignmentKernelRidge,
    KernelRidge,
    KernelRidgeCV,
    KernelRidgeSubset,
    LowRankRidge,
    LowRankRidgeCV,
    MklarenRegressor,
    SLKLRegressor,
    SLKLRegressorCV,
    UniformKernelRidge,
    UniformRankOneRidge,
    _backend,
)
from lrkl._backend import to_numpy
from lrkl._validation import InvalidParameterError
from lrkl.kernels import Gaussian, Precomputed


@pytest.fixture(scope="module")
def friedman():
    X, y = make_friedman1(n_samples=600, noise=1.0, random_state=0)
    return X[:450], y[:450], X[450:], y[450:]


def _r2(model, data):
    X, y, X_test, y_test = data
    return make_pipeline(StandardScaler(), model).fit(X, y).score(X_test, y_test)


@pytest.mark.parametrize(
    "make",
    [
        KernelRidge,
        KernelRidgeSubset,
        UniformRankOneRidge,
        LowRankRidge,
        LowRankRidgeCV,
        SLKLRegressor,
        SLKLRegressorCV,
    ],
    ids=lambda c: c.__name__,
)
def test_defaults_are_as_good_as_sklearns_kernel_ridge(friedman, make):
    reference = _r2(SklearnKernelRidge(kernel="rbf"), friedman)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", ".* chose (nu|alpha)", UserWarning)
        assert _r2(make(), friedman) > reference - 0.05


def test_default_nu_follows_the_scale_of_y(friedman):
    """ν's default is a fraction of ν_max ∝ y²: y in other units gives the same model, scaled."""
    X, y, X_test, _ = friedman
    small = SLKLRegressor(random_state=0).fit(X, y)
    large = SLKLRegressor(random_state=0).fit(X, 1000.0 * y)
    np.testing.assert_allclose(large.nu_, 1e6 * small.nu_, rtol=1e-10)
    np.testing.assert_allclose(large.predict(X_test), 1000.0 * small.predict(X_test), rtol=1e-6)


def test_kernel_parameters_are_searchable_and_clone(friedman):
    X, y, _, _ = friedman
    search = GridSearchCV(KernelRidge(Gaussian(gamma=1.0)), {"kernel__gamma": [0.05, 0.5]})
    search.fit(X[:100], y[:100])
    assert search.best_params_["kernel__gamma"] in (0.05, 0.5)
    assert search.best_estimator_.kernel_.gamma == search.best_params_["kernel__gamma"]
    K = Precomputed(matrix=np.eye(3))
    assert clone(KernelRidge(K)).kernel == K
    assert clone(Gaussian(gamma=0.3)) == Gaussian(gamma=0.3)


@pytest.mark.parametrize("kernel", ["rbf", None])
def test_a_kernel_by_name_or_default_is_searchable(friedman, kernel):
    X, y, _, _ = friedman
    model = KernelRidge(kernel)
    search = GridSearchCV(model, {"kernel__gamma": [0.05, 0.5]}, cv=3).fit(X[:90], y[:90])
    assert search.best_estimator_.kernel == Gaussian(gamma=search.best_params_["kernel__gamma"])
    assert model.kernel == kernel  # the search set the parameters of clones only


def test_kernel_names_and_scale(friedman):
    X, y, _, _ = friedman
    model = KernelRidge("rbf").fit(X, y)
    assert model.kernel_.gamma == pytest.approx(1.0 / (X.shape[1] * X.var()))
    with pytest.raises(InvalidParameterError, match="'kernel' parameter"):
        KernelRidge("gauss").fit(X, y)
    with pytest.raises(ValueError, match=r"takes gamma from the training data"):
        Gaussian()(X)


def test_nu_grid_starts_at_nu_max_where_every_weight_is_zero(friedman):
    X, y, _, _ = friedman
    X = StandardScaler().fit_transform(X[:200])
    y = y[:200]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "SLKLRegressorCV chose nu", UserWarning)
        cv = SLKLRegressorCV(n_nus=5, cv=GroupKFold(3), n_jobs=2, random_state=0)
        cv.fit(X, y, groups=np.arange(200) % 3)
    assert cv.nus_[0] == cv.nu_max_ and cv.nus_[-1] == pytest.approx(1e-8 * cv.nu_max_)
    top = SLKLRegressor(nu=cv.nu_max_ * 1.001, random_state=0).fit(X, y)
    below = SLKLRegressor(nu=cv.nu_max_ * 0.9, random_state=0).fit(X, y)
    assert top.support_.shape[0] == 0 < below.support_.shape[0]


def test_nu_at_the_top_of_the_grid_warns():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(80, 3)), rng.normal(size=80)  # no signal: the mean is best
    with pytest.warns(UserWarning, match="largest value"):
        SLKLRegressorCV(n_nus=4, cv=3, random_state=0).fit(X, y)


def test_dataframes_set_and_check_feature_names(friedman):
    pd = pytest.importorskip("pandas")
    X, y, _, _ = friedman
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    model = KernelRidgeSubset(n_columns=50, random_state=0).fit(frame, y)
    assert list(model.feature_names_in_) == list(frame.columns)
    with pytest.raises(ValueError, match="feature names"):
        model.predict(frame[frame.columns[::-1]])


def test_y_follows_x_and_predict_checks_the_namespace_first():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 2)), rng.normal(size=40)
    model = KernelRidge().fit(X, torch.asarray(y))
    assert isinstance(model.dual_coef_, np.ndarray)
    with pytest.raises(ValueError, match=r"KernelRidge.predict\(\) must use the same"):
        model.predict(torch.asarray(X))


@pytest.mark.parametrize(
    ("model", "name"),
    [
        (SLKLRegressor(n_columns=500), "n_columns=500"),
        (KernelRidgeSubset(n_columns=500), "n_columns=500"),
        (LowRankRidge(["rbf"], rank=500), "LowRankRidge: rank=500"),  # in its own name
        (MklarenRegressor(["rbf"], n_components=500), "n_components=500"),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, str) else v,
)
def test_sizes_above_n_samples_are_clipped_with_a_warning(model, name):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 2)), rng.normal(size=60)
    with pytest.warns(UserWarning, match=f"{name} exceeds n_samples=60"):
        model.fit(X, y)


def test_errors_name_the_argument():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    with pytest.raises(ValueError, match="y must hold numbers, received text such as 'a'"):
        KernelRidge().fit(X, ["a"] * 30)
    with pytest.raises(ValueError, match="MultiOutputRegressor"):
        SLKLRegressor().fit(X, rng.normal(size=(30, 2)))
    with pytest.raises(InvalidParameterError, match="'nus' parameter"):
        SLKLRegressorCV(nus=0.1).fit(X, X[:, 0])
    with pytest.raises(InvalidParameterError, match="'callback' parameter"):
        SLKLRegressor(callback=5).fit(X, X[:, 0])


def test_cli_version_and_module():
    out = subprocess.run(
        [sys.executable, "-m", "lrkl", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("lrkl ")


def test_missing_matplotlib_is_answered_before_any_work(monkeypatch):
    from lrkl.experiments._common import require_plotting

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(SystemExit, match=r"pip install 'lrkl\[plot\]'"):
        require_plotting()


# --------------------------------------------------------------------------- sample weights

REPEATABLE = [
    lambda: KernelRidge(Gaussian(gamma=0.5), alpha=0.3),
    lambda: KernelRidge(Gaussian(gamma=0.5), alpha=0.3, penalize_intercept=True),
    lambda: UniformKernelRidge([Gaussian(gamma=0.5), Gaussian(gamma=2.0)], alpha=0.3),
    # ICD: its pivots are rows whatever their copies (Nyström's landmarks are a draw of rows)
    lambda: LowRankRidge([Gaussian(gamma=0.5)], rank=40, method="icd", alpha=0.3),
]


@pytest.fixture
def weighted_data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=40)
    counts = rng.integers(0, 4, size=40)
    counts[0] = 1
    return X, y, counts


@pytest.mark.parametrize("make", REPEATABLE, ids=lambda f: type(f()).__name__)
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_integer_weights_equal_repeated_rows(backend, weighted_data, make, fit_intercept):
    """A weight of k is k copies of the row (0 drops it): the weighted loss is the same sum."""
    X, y, counts = weighted_data
    model = make().set_params(fit_intercept=fit_intercept)
    if not fit_intercept and isinstance(model, KernelRidge):
        model.set_params(penalize_intercept=None)  # no intercept to penalise
    weighted = clone(model).fit(
        backend.asarray(X), backend.asarray(y), sample_weight=backend.asarray(counts * 1.0)
    )
    repeated = clone(model).fit(
        backend.asarray(np.repeat(X, counts, axis=0)), backend.asarray(np.repeat(y, counts))
    )
    Xb = backend.asarray(X)
    np.testing.assert_allclose(
        to_numpy(weighted.predict(Xb)), to_numpy(repeated.predict(Xb)), atol=1e-8
    )


def test_weights_match_sklearn(weighted_data):
    X, y, _ = weighted_data
    w = np.random.default_rng(4).uniform(0.0, 2.0, size=40)
    krr = KernelRidge(Gaussian(gamma=0.5), alpha=0.3, fit_intercept=False)
    ref = SklearnKernelRidge(alpha=0.3, kernel="rbf", gamma=0.5).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(krr.fit(X, y, sample_weight=w).predict(X), ref.predict(X))
    subset = KernelRidgeSubset(Gaussian(gamma=0.5), n_columns=25, alpha=0.3, random_state=0)
    subset.fit(X, y, sample_weight=w)
    rows = subset.candidates_
    ref = SklearnKernelRidge(alpha=0.3, kernel="rbf", gamma=0.5)
    ref.fit(X[rows], y[rows] - subset.intercept_, sample_weight=w[rows])
    np.testing.assert_allclose(subset.predict(X), ref.predict(X) + subset.intercept_, atol=1e-10)
    lowrank = LowRankRidge([Gaussian(gamma=0.5)], rank=12, alpha=0.3).fit(X, y, sample_weight=w)
    ridge = Ridge(alpha=0.3).fit(lowrank.features(X), y, sample_weight=w)
    np.testing.assert_allclose(lowrank.coef_, ridge.coef_, atol=1e-10)
    np.testing.assert_allclose(lowrank.intercept_, ridge.intercept_, atol=1e-10)


def test_bad_weights_and_estimators_without_weights(weighted_data):
    X, y, _ = weighted_data
    with pytest.raises(ValueError, match="sample_weight must be >= 0, received a minimum of -1"):
        KernelRidge().fit(X, y, sample_weight=-np.ones(40))
    with pytest.raises(ValueError, match="at least one positive weight, received all zeros"):
        UniformKernelRidge().fit(X, y, sample_weight=0.0)
    with pytest.raises(ValueError, match=r"one entry per sample \(40\), received shape \(3,\)"):
        LowRankRidge().fit(X, y, sample_weight=np.ones(3))
    for est in (SLKLRegressor(), SLKLRegressorCV(), MklarenRegressor(), UniformRankOneRidge()):
        assert not has_fit_parameter(est, "sample_weight")
    for est in (KernelRidge(), KernelRidgeSubset(), LowRankRidge(), UniformKernelRidge()):
        assert has_fit_parameter(est, "sample_weight")


def test_dense_methods_check_their_size_first(monkeypatch):
    monkeypatch.setattr(_backend, "device_memory", lambda x: 2**20)  # a 1 MiB device
    X = np.random.default_rng(0).normal(size=(400, 2))  # K: 1.2 MiB in float64
    for model, alternative in [
        (KernelRidge(), "LowRankRidge"),
        (KernelRidge(method="tikhonov"), "LowRankRidge"),
        (KernelRidgeCV(), "LowRankRidge"),
        (UniformKernelRidge(["rbf"]), "LowRankRidge"),
        (AlignmentKernelRidge(["rbf", "laplacian"]), "LowRankRidge"),
    ]:
        with pytest.raises(MemoryError, match=rf"GiB .* 0\.0 GiB of memory .*{alternative}"):
            model.fit(X, X[:, 0])
        assert not hasattr(model, "dual_coef_")
    KernelRidge().fit(X[:200], X[:200, 0])  # K and its factor, 0.6 MiB: fits
    with pytest.raises(MemoryError, match="2 matrices of n × n"):  # 1.4 MiB: the peak counts
        KernelRidge().fit(X[:300], X[:300, 0])


def test_progress_bars_stay_quiet_in_a_log(capsys):
    from lrkl.experiments._common import progress

    assert list(progress(range(3), 3, "runs")) == [0, 1, 2]
    assert capsys.readouterr().err == ""  # stderr is not a terminal here: no \r lines

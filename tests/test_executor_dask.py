"""Row-chunked Dask input on a local ``dask.distributed`` cluster (two worker processes,
loopback only): each Dask path against the in-memory NumPy run, refusals, and a worker killed in
the middle of a pass."""

from __future__ import annotations

import functools
import os
import pickle

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from lrkl import (  # noqa: E402
    KernelRidge,
    LowRankMKLClassifier,
    LowRankMKLClassifierCV,
    LowRankRidge,
    LowRankRidgeClassifier,
    LowRankRidgeClassifierCV,
    LowRankRidgeCV,
    MklarenRegressor,
    SLKLClassifier,
    SLKLRegressor,
)
from lrkl.kernels import Gaussian, Precomputed  # noqa: E402
from lrkl.lowrank import LowRankFeatures  # noqa: E402

CHUNK = 170  # rows per chunk: 600 rows make 4 chunks, the last one short


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",  # any free port: no warning when 8787 is taken
            death_timeout=60,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.fixture
def data(rng):
    X = rng.standard_normal((600, 4))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.standard_normal(600) + 2.0
    return X, y, da.from_array(X, chunks=(CHUNK, 2)), da.from_array(y, chunks=CHUNK)


def test_slkl_regressor_on_dask_equals_numpy(client, data):
    X, y, Xd, yd = data
    ref = SLKLRegressor(n_columns=150, random_state=0).fit(X, y)
    model = SLKLRegressor(n_columns=150, random_state=0).fit(Xd, yd)
    assert model.mode_ == "gram"
    assert isinstance(model.centers_, np.ndarray)
    np.testing.assert_array_equal(model.support_, ref.support_)
    np.testing.assert_allclose(model.dual_coef_, ref.dual_coef_, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(model.intercept_, ref.intercept_, rtol=1e-10)
    predicted = model.predict(Xd)
    assert isinstance(predicted, da.Array)  # lazy: no gather
    assert predicted.chunks == (Xd.chunks[0],)
    np.testing.assert_allclose(predicted.compute(), ref.predict(X), rtol=1e-10, atol=1e-10)


def test_slkl_classifier_on_dask_equals_numpy(client, data):
    X, y, Xd, _ = data
    labels = np.array(["low", "mid", "high"])[np.digitize(y, [1.6, 2.4])]
    ref = SLKLClassifier(n_columns=120, random_state=1).fit(X, labels)
    model = SLKLClassifier(n_columns=120, random_state=1).fit(
        Xd, da.from_array(labels, chunks=CHUNK)
    )
    np.testing.assert_array_equal(model.classes_, ref.classes_)
    scores = model.decision_function(Xd)
    assert scores.chunks == (Xd.chunks[0], (3,))
    np.testing.assert_allclose(scores.compute(), ref.decision_function(X), atol=1e-10)
    np.testing.assert_array_equal(model.predict(Xd).compute(), ref.predict(X))


@pytest.mark.parametrize(
    ("make", "method"),
    [
        (lambda: KernelRidge(Gaussian(gamma=0.3)), "predict"),
        (lambda: LowRankRidge(rank=20), "predict"),
        (lambda: MklarenRegressor(n_components=10), "predict"),
        (lambda: LowRankFeatures(rank=15), "transform"),
        (lambda: LowRankMKLClassifier(rank=10, n_landmarks=30, random_state=0), "predict"),
        (
            lambda: LowRankMKLClassifier(rank=10, n_landmarks=30, random_state=0),
            "decision_function",
        ),
    ],
)
def test_prediction_maps_over_the_row_chunks(client, data, make, method):
    X, y, Xd, _ = data
    target = y > 2.0 if "MKL" in repr(make()) else y
    model = make().fit(X[:200], target[:200])
    out = getattr(model, method)(Xd)
    assert isinstance(out, da.Array)
    assert out.chunks[0] == Xd.chunks[0]
    expected = getattr(model, method)(X)
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(out.compute(), expected, rtol=1e-10, atol=1e-12)
    else:
        np.testing.assert_array_equal(out.compute(), expected)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_nystrom_lowrank_ridge_on_dask_equals_numpy(client, data, fit_intercept):
    X, y, Xd, _ = data
    Y = np.stack([y, y**2], axis=1)  # two targets
    Yd = da.from_array(Y, chunks=(CHUNK, 2))
    kernels = [Gaussian(gamma=0.2), Gaussian(gamma=1.0)]
    params = dict(rank=25, method="nystrom", alpha=0.1, random_state=0)
    ref = LowRankRidge(kernels, fit_intercept=fit_intercept, **params).fit(X, Y)
    model = LowRankRidge(kernels, fit_intercept=fit_intercept, **params).fit(Xd, Yd)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(model.intercept_, ref.intercept_, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(model.predict(Xd).compute(), ref.predict(X), atol=1e-9)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_cg_kernel_ridge_on_dask_equals_numpy_one_graph_per_iteration(
    client, data, monkeypatch, fit_intercept
):
    from lrkl import _executor

    X, y, Xd, _ = data
    Y = np.stack([y, np.cos(X[:, 1])], axis=1)
    # CGLS amplifies rounding: a few iterations, so that the sums' order does not matter
    params = dict(kernel=Gaussian(gamma=0.3), method="cg", max_iter=5, fit_intercept=fit_intercept)
    ref = KernelRidge(**params).fit(X, Y)
    graphs = []
    compute = _executor.dask_compute  # the executor's passes that come back to this process
    monkeypatch.setattr(_executor, "dask_compute", lambda *a: graphs.append(1) or compute(*a))
    model = KernelRidge(**params).fit(Xd, da.from_array(Y, chunks=(CHUNK, 2)))
    # y into memory, the rows as centres, and per target: K̃ᵀy, then one graph per iteration
    assert len(graphs) == 2 + 2 * (1 + 5)
    assert isinstance(model.centers_, np.ndarray)
    np.testing.assert_allclose(model.dual_coef_, ref.dual_coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.intercept_, ref.intercept_, rtol=1e-10)
    np.testing.assert_allclose(model.predict(Xd).compute(), ref.predict(X), atol=1e-10)


def test_cg_on_dask_is_cgls_with_the_products_in_row_chunks(client, data):
    import array_api_compat.numpy as xp

    from lrkl.kernel_ridge._regularization import KernelOperator, kernel_operator, solve_cgls

    X, y, Xd, _ = data
    kernel = Gaussian(gamma=0.3)
    ref = solve_cgls(KernelOperator(kernel=kernel, X=X, max_entries=CHUNK * 600, xp=xp), y, 30)
    path = solve_cgls(kernel_operator(Xd, kernel, store=False, xp=xp), y, 30)
    np.testing.assert_allclose(path.coef, ref.coef, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(path.intercept, ref.intercept, rtol=1e-10, atol=1e-12)


def test_cg_on_dask_refuses_stored_columns_and_weights(data):
    _, y, Xd, yd = data
    with pytest.raises(ValueError, match=r"columns must be 'auto' or 'on_the_fly'"):
        KernelRidge(method="cg", columns="precomputed").fit(Xd, yd)
    with pytest.raises(ValueError, match=r"sample_weight"):
        KernelRidge(method="cg").fit(Xd, yd, sample_weight=np.ones_like(y))


def test_nystrom_features_on_dask_are_lazy_and_equal_numpy(client, data):
    X, _, Xd, _ = data
    params = dict(kernels=[Gaussian(gamma=0.5)], rank=20, method="nystrom", n_landmarks=40)
    ref = LowRankFeatures(**params, random_state=3).fit(X)
    features = LowRankFeatures(**params, random_state=3)
    G = features.fit_transform(Xd)
    assert isinstance(G, da.Array)
    assert features.factors_[0].pivots == ref.factors_[0].pivots
    np.testing.assert_allclose(G.compute(), ref.factors_[0].G, atol=1e-10)
    residual = features.factors_[0].residual.compute()
    np.testing.assert_allclose(residual, ref.factors_[0].residual, atol=1e-10)
    np.testing.assert_allclose(features.transform(Xd).compute(), ref.transform(X), atol=1e-10)


def test_icd_on_dask_equals_numpy_with_one_graph_per_pivot(client, data, monkeypatch):
    from lrkl import _executor
    from lrkl.lowrank import icd

    X, _, Xd, _ = data
    kernel = Gaussian(gamma=0.5)
    ref = icd(kernel, X, 40)
    graphs = []
    step = _executor.step_chunks  # the executor's one graph per step
    monkeypatch.setattr(_executor, "step_chunks", lambda *a: graphs.append(1) or step(*a))
    factor = icd(kernel, Xd, 40)
    assert len(graphs) == 1 + 40  # the diagonal, then one graph per pivot
    assert factor.pivots == ref.pivots
    assert isinstance(factor.G, da.Array) and factor.G.chunks[0] == Xd.chunks[0]
    np.testing.assert_allclose(factor.G.compute(), ref.G, atol=1e-10)
    np.testing.assert_allclose(factor.residual.compute(), ref.residual, atol=1e-10)
    np.testing.assert_allclose(factor.L, ref.L, atol=1e-10)
    np.testing.assert_array_equal(factor.landmarks, ref.landmarks)


def test_icd_on_dask_stops_at_the_numerical_rank_like_numpy(client, data):
    from lrkl.kernels import Linear
    from lrkl.lowrank import icd

    X, _, Xd, _ = data
    factor, ref = icd(Linear(), Xd, 10), icd(Linear(), X, 10)
    assert factor.rank == ref.rank == 4  # four features: rank 4
    np.testing.assert_allclose(factor.G.compute(), ref.G, atol=1e-10)


def test_icd_features_of_several_kernels_share_one_graph_per_pivot(client, data, monkeypatch):
    from lrkl import _executor
    from lrkl.kernels import Linear

    X, _, Xd, _ = data
    params = dict(kernels=[Linear(), Gaussian(gamma=0.5), Gaussian(gamma=2.0)], rank=[10, 30, 20])
    ref = LowRankFeatures(**params).fit(X)
    graphs = []
    step = _executor.step_chunks  # the executor's one graph per step
    monkeypatch.setattr(_executor, "step_chunks", lambda *a: graphs.append(1) or step(*a))
    features = LowRankFeatures(**params).fit(Xd)
    assert features.rank_ == ref.rank_ == (4, 30, 20)  # the linear kernel stops at rank 4
    assert len(graphs) == 1 + 30  # the diagonals, then one graph per pivot of all kernels
    for factor, expected in zip(features.factors_, ref.factors_, strict=True):
        assert factor.pivots == expected.pivots
        np.testing.assert_allclose(factor.G.compute(), expected.G, atol=1e-10)
    np.testing.assert_allclose(features.transform(Xd).compute(), ref.transform(X), atol=1e-10)


def test_icd_lowrank_ridge_on_dask_equals_numpy(client, data):
    X, y, Xd, _ = data
    Y = np.stack([y, y**2], axis=1)
    params = dict(kernels=[Gaussian(gamma=0.2), Gaussian(gamma=1.0)], rank=25, alpha=0.1)
    params["method"] = "icd"
    ref = LowRankRidge(**params).fit(X, Y)
    model = LowRankRidge(**params).fit(Xd, da.from_array(Y, chunks=(CHUNK, 2)))
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(model.intercept_, ref.intercept_, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(model.predict(Xd).compute(), ref.predict(X), atol=1e-9)


def test_lowrank_ridge_cv_on_dask_equals_numpy(client, data):
    X, y, Xd, yd = data
    params = dict(kernels=[Gaussian(gamma=0.5)], rank=30, n_alphas=8, method="icd")
    ref = LowRankRidgeCV(**params).fit(X, y)
    model = LowRankRidgeCV(**params).fit(Xd, yd)
    # The same α of the grid; the grid itself comes from sums over chunks, equal to rounding.
    assert np.argmin(model.mse_path_) == np.argmin(ref.mse_path_)
    np.testing.assert_allclose(model.alphas_, ref.alphas_, rtol=1e-12)
    assert model.alpha_ == pytest.approx(ref.alpha_, rel=1e-12)
    np.testing.assert_allclose(model.mse_path_, ref.mse_path_, rtol=1e-10)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-9, atol=1e-10)
    with pytest.raises(ValueError, match=r"takes cv=None.*received cv=3"):
        LowRankRidgeCV(**params, cv=3).fit(Xd, yd)


@pytest.mark.parametrize("bad", [None, "X", "y"])
def test_the_width_search_on_dask_compares_the_subsample_of_the_in_memory_fit(client, rng, bad):
    """Above WIDTH_SEARCH_ROWS rows the widths are compared on a subsample: a Dask X drew
    none and compared them on every row, so that its choice could differ from the in-memory
    fit's. Non-finite values among the subsample's rows are refused by name."""
    n = 1200
    X = rng.normal(size=(n, 3))
    y = np.sin(2 * X[:, 0]) + X[:, 1] + 0.3 * rng.normal(size=n)
    params = dict(rank=40, random_state=0)
    if bad == "X":
        X[:200, 1] = np.nan  # rows of the subsample among them
    elif bad == "y":
        y[:200] = np.inf
    lazy = da.from_array(X, chunks=(300, -1)), da.from_array(y, chunks=300)
    if bad is not None:
        with pytest.raises(ValueError, match=rf"\b{bad}\b.* must contain only finite values"):
            LowRankRidgeCV(**params).fit(*lazy)
        return
    ref = LowRankRidgeCV(**params).fit(X, y)
    model = LowRankRidgeCV(**params).fit(*lazy)
    assert model.width_search_["rows"] == ref.width_search_["rows"] == 1000
    np.testing.assert_allclose(model.width_search_["mse"], ref.width_search_["mse"], rtol=1e-10)
    assert model.kernels_[0].gamma == pytest.approx(ref.kernels_[0].gamma, rel=1e-12)
    assert model.alpha_ == pytest.approx(ref.alpha_, rel=1e-12)
    predicted = model.predict(da.from_array(X, chunks=(300, -1))).compute()
    np.testing.assert_allclose(predicted, ref.predict(X), atol=1e-9)


@pytest.mark.parametrize("method", ["icd", "csi", "nystrom"])
def test_a_model_fitted_on_dask_pickles_without_the_cluster(client, data, method):
    X, _, Xd, yd = data
    model = LowRankRidge([Gaussian(gamma=0.5)], rank=10, method=method, random_state=0)
    model.fit(Xd, yd)
    blob = pickle.dumps(model)
    assert len(blob) < 20_000  # neither the training rows nor the factor's n rows
    loaded = pickle.loads(blob)
    assert loaded.factors_[0].G is None and loaded.factors_[0].residual is None
    assert loaded.rank_ == (10,) and loaded.factors_[0].rank == 10
    np.testing.assert_allclose(loaded.predict(X), model.predict(X), rtol=1e-12, atol=1e-12)


def test_csi_on_dask_evaluates_its_kernel_columns_on_the_chunks(client, data, monkeypatch):
    from lrkl import _executor
    from lrkl.lowrank import csi

    X, y, Xd, yd = data
    kernel = Gaussian(gamma=0.5)
    ref = csi(kernel, X, y, 30, lookahead=5)
    graphs = []
    compute = _executor.dask_compute  # the executor's passes that come back to this process
    monkeypatch.setattr(_executor, "dask_compute", lambda *a: graphs.append(1) or compute(*a))
    factor = csi(kernel, Xd, yd, 30, lookahead=5)
    # y into memory, the diagonal, then one per new kernel column
    assert 2 + 30 <= len(graphs) <= 2 + 30 + 5
    assert factor.pivots == ref.pivots
    assert isinstance(factor.G, da.Array) and factor.G.chunks[0] == Xd.chunks[0]
    np.testing.assert_allclose(factor.G.compute(), ref.G, atol=1e-10)
    np.testing.assert_allclose(factor.L, ref.L, atol=1e-10)
    np.testing.assert_array_equal(factor.landmarks, ref.landmarks)


def test_csi_lowrank_ridge_on_dask_equals_numpy(client, data):
    X, y, Xd, yd = data
    params = dict(kernels=[Gaussian(gamma=0.2), Gaussian(gamma=1.0)], rank=20, method="csi")
    ref = LowRankRidge(**params).fit(X, y)
    model = LowRankRidge(**params).fit(Xd, yd)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(model.predict(Xd).compute(), ref.predict(X), atol=1e-9)


@pytest.mark.parametrize("cls", [LowRankRidgeClassifier, LowRankRidgeClassifierCV])
def test_lowrank_ridge_classifiers_on_dask_equal_numpy(client, data, cls):
    X, y, Xd, _ = data
    labels = np.array(["low", "mid", "high"])[np.digitize(y, [1.6, 2.4])]
    params = dict(kernels=[Gaussian(gamma=0.5)], rank=30, method="nystrom", random_state=0)
    ref = cls(**params).fit(X, labels)
    model = cls(**params).fit(Xd, da.from_array(labels, chunks=CHUNK))
    np.testing.assert_array_equal(model.classes_, ref.classes_)
    scores = model.decision_function(Xd)
    assert scores.chunks == (Xd.chunks[0], (3,))
    np.testing.assert_allclose(scores.compute(), ref.decision_function(X), atol=1e-9)
    np.testing.assert_array_equal(model.predict(Xd).compute(), ref.predict(X))
    with pytest.raises(ValueError, match=r"takes no sample_weight or class_weight.*balanced"):
        cls(**params, class_weight="balanced").fit(Xd, labels)


@pytest.mark.parametrize(
    "make",
    [
        lambda: LowRankMKLClassifier(rank=10, random_state=0),
        lambda: LowRankMKLClassifier(rank=10, method="icd", class_weight="balanced"),
        lambda: LowRankMKLClassifier(rank=10, method="csi", feature_dtype="float32"),
        lambda: LowRankMKLClassifierCV(rank=10, Cs=(0.1, 1.0, 10.0), random_state=0),
    ],
)
@pytest.mark.filterwarnings("ignore:LowRankMKLClassifierCV chose C")  # a grid end: by design
def test_lowrank_mkl_on_dask_equals_numpy(client, data, make):
    """The features computed on the chunks, the MKL in memory: the in-memory fit's model."""
    X, y, Xd, _ = data
    labels = np.array(["low", "mid", "high"])[np.digitize(y, [1.6, 2.4])]
    weights = np.arange(600) % 3  # zeros among them
    ref = make().fit(X, labels, sample_weight=weights)
    model = make().fit(
        Xd, da.from_array(labels, chunks=CHUNK), sample_weight=da.from_array(weights, CHUNK)
    )
    np.testing.assert_array_equal(model.classes_, ref.classes_)
    atol = 1e-4 if model.feature_dtype == "float32" else 1e-9
    np.testing.assert_allclose(model.kernel_weights_, ref.kernel_weights_, atol=atol)
    scores = model.decision_function(Xd)
    assert scores.chunks == (Xd.chunks[0], (3,))
    np.testing.assert_allclose(scores.compute(), ref.decision_function(X), atol=atol)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))


@pytest.mark.parametrize(
    "make",
    [
        lambda: KernelRidge(),
        lambda: MklarenRegressor(n_components=5),
    ],
)
def test_fit_refuses_dask_where_the_algorithm_needs_x_in_memory(data, make):
    _, _, Xd, yd = data
    model = make()
    with pytest.raises(TypeError, match=rf"{type(model).__name__}\.fit does not accept Dask"):
        model.fit(Xd, yd)
    assert not hasattr(model, "n_features_in_")  # refused before anything is recorded


def test_slkl_direct_form_is_refused_for_dask(data):
    _, _, Xd, yd = data
    model = SLKLRegressor(n_columns=50, mode="direct")
    with pytest.raises(ValueError, match=r"mode must be 'gram'.*received mode='direct'"):
        model.fit(Xd, yd)
    assert not hasattr(model, "dual_coef_")


#: Estimators that fit a Dask X and y in passes over the chunks (regressors: y is read lazily).
_LAZY_REGRESSORS = [
    lambda: SLKLRegressor(n_columns=50, kernel=Gaussian(gamma=0.3), random_state=0),
    lambda: LowRankRidge([Gaussian(gamma=0.3)], rank=10, method="nystrom", random_state=0),
    lambda: LowRankRidge([Gaussian(gamma=0.3)], rank=10, method="icd"),
    lambda: LowRankRidge([Gaussian(gamma=0.3)], rank=10, method="csi"),
    lambda: KernelRidge(Gaussian(gamma=0.3), method="cg", max_iter=5),
]


@pytest.mark.parametrize(
    "make", [*_LAZY_REGRESSORS, lambda: LowRankMKLClassifier(rank=10, random_state=0)]
)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_dask_x_raises_and_leaves_the_model_unfitted(client, data, make, bad):
    """An infinite row passed SLKL's Gram pass with a fixed γ (the Gaussian maps it to 0), and
    ``KernelRidge(method="cg")`` fitted it."""
    X, y, _, _ = data
    X = X.copy()
    X[450, 2] = bad  # in the third chunk
    model = make()
    target = y > 2.0 if "MKL" in repr(model) else y
    with pytest.raises(ValueError, match="X must contain only finite values"):
        model.fit(da.from_array(X, chunks=CHUNK), da.from_array(target, chunks=CHUNK))
    assert not hasattr(model, "dual_coef_") and not hasattr(model, "coef_")


@pytest.mark.parametrize("make", _LAZY_REGRESSORS)
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_dask_y_raises_and_leaves_the_model_unfitted(client, data, make, bad):
    """``KernelRidge(method="cg")`` fitted a NaN y to an all-zero model."""
    X, y, _, _ = data
    y = y.copy()
    y[450] = bad
    model = make()
    with pytest.raises(ValueError, match=r"\by\b.* must contain only finite values"):
        model.fit(da.from_array(X, chunks=CHUNK), da.from_array(y, chunks=CHUNK))
    assert not hasattr(model, "dual_coef_") and not hasattr(model, "coef_")


def test_lazy_nystrom_features_of_non_finite_rows_raise_when_computed(client, data):
    X, _, _, _ = data
    X = X.copy()
    X[450, 2] = np.inf
    features = LowRankFeatures([Gaussian(gamma=0.3)], rank=10, method="nystrom", random_state=0)
    lazy = features.fit_transform(da.from_array(X, chunks=CHUNK))  # reads the centres only
    with pytest.raises(ValueError, match="X must contain only finite values"):
        lazy.compute()


def test_a_dask_y_beyond_the_range_of_x_dtype_is_refused(client, data):
    X, y, _, _ = data
    Xd = da.from_array(X.astype(np.float32), chunks=CHUNK)
    model = KernelRidge(Gaussian(gamma=0.3), method="cg", max_iter=5)
    with pytest.raises(ValueError, match=r"y must be at most 3\.32e\+35 .*float32"):
        model.fit(Xd, da.from_array(y * 1e200, chunks=CHUNK))
    assert not hasattr(model, "dual_coef_")


def _gaussian_that_kills_its_worker_once(X, Z, *, marker):
    """A Gaussian kernel whose first evaluation inside a Dask worker ends that worker's
    process (``marker`` records that it happened)."""
    try:
        distributed.get_worker()
        in_worker = True
    except ValueError:
        in_worker = False
    if in_worker and not os.path.exists(marker):
        with open(marker, "w") as f:
            f.write(str(os.getpid()))
        os._exit(1)
    sq = (X * X).sum(1)[:, None] + (Z * Z).sum(1)[None, :] - 2 * X @ Z.T
    return np.exp(-0.3 * np.maximum(sq, 0.0))


def _killer(marker):
    """The Gaussian kernel (γ = 0.3) of :func:`_gaussian_that_kills_its_worker_once`."""
    return Precomputed(
        function=functools.partial(_gaussian_that_kills_its_worker_once, marker=marker),
        diagonal=lambda A: np.ones(A.shape[0]),
    )


def test_a_worker_killed_in_the_middle_of_a_pass_is_retried(client, data, tmp_path):
    X, y, Xd, yd = data
    marker = str(tmp_path / "killed")
    model = SLKLRegressor(n_columns=80, kernel=_killer(marker), random_state=0).fit(Xd, yd)
    assert os.path.exists(marker)  # a worker did die in the pass
    ref = SLKLRegressor(n_columns=80, kernel=Gaussian(gamma=0.3), random_state=0).fit(X, y)
    np.testing.assert_allclose(model.dual_coef_, ref.dual_coef_, rtol=1e-10, atol=1e-10)
    client.wait_for_workers(2, timeout=60)


def test_a_worker_killed_in_the_middle_of_icd_is_recomputed(client, data, tmp_path):
    from lrkl.lowrank import icd

    X, _, Xd, _ = data
    marker = str(tmp_path / "killed")
    factor = icd(_killer(marker), Xd, 20)  # the first pivot's graph kills a worker with states
    assert os.path.exists(marker)
    ref = icd(Gaussian(gamma=0.3), X, 20)
    assert factor.pivots == ref.pivots
    np.testing.assert_allclose(factor.G.compute(), ref.G, atol=1e-10)
    client.wait_for_workers(2, timeout=60)


def _gaussian_failing_in_workers(X, Z):
    try:
        distributed.get_worker()
    except ValueError:  # in the client
        sq = (X * X).sum(1)[:, None] + (Z * Z).sum(1)[None, :] - 2 * X @ Z.T
        return np.exp(-0.3 * np.maximum(sq, 0.0))
    msg = "disk full"
    raise OSError(msg)


def test_a_pass_that_fails_leaves_the_estimator_unfitted(client, data):
    _, _, Xd, yd = data
    kernel = Precomputed(function=_gaussian_failing_in_workers, diagonal=lambda A: np.ones(len(A)))
    model = SLKLRegressor(n_columns=40, kernel=kernel, random_state=0)
    with pytest.raises(OSError, match="disk full"):
        model.fit(Xd, yd)
    assert not hasattr(model, "dual_coef_") and not hasattr(model, "kernel_")


@pytest.mark.parametrize(
    "make",
    [
        lambda: LowRankRidge([Gaussian(gamma=0.5)], rank=10, method="icd"),
        lambda: LowRankRidge([Gaussian(gamma=0.5)], rank=10, method="nystrom", random_state=0),
        lambda: SLKLRegressor(n_columns=50, kernel=Gaussian(gamma=0.5), random_state=0),
    ],
)
def test_float32_dask_input_is_fitted_in_float32_like_numpy(client, data, make):
    X, y, _, yd = data
    X32 = X.astype(np.float32)
    ref = make().fit(X32, y)
    model = make().fit(da.from_array(X32, chunks=CHUNK), yd)
    predicted = model.predict(da.from_array(X32, chunks=CHUNK)).compute()
    assert predicted.dtype == ref.predict(X32).dtype == np.float32
    # Equal to float32 rounding: the sums over chunks run in another order, which can move
    # SLKL's solution by as much as float32 moves it from float64's (up to 2.7e-4 on y ≈ 2 in
    # six draws of these data; ICD and Nyström within 2e-6).
    np.testing.assert_allclose(predicted, ref.predict(X32), atol=5e-4)


def test_unknown_chunk_sizes_are_refused_with_a_way_out(data):
    _, _, Xd, yd = data
    keep = Xd[:, 0] > -10.0  # every row, but Dask cannot know how many per chunk
    model = LowRankRidge([Gaussian(gamma=0.5)], rank=10)
    with pytest.raises(ValueError, match=r"X must have known chunk sizes.*compute_chunk_sizes"):
        model.fit(Xd[keep], yd[keep])
    assert not hasattr(model, "coef_")


def test_dask_dataframes_are_refused_not_computed_silently(data):
    dd = pytest.importorskip("dask.dataframe")
    X, y, _, _ = data
    frame = dd.from_array(X, chunksize=CHUNK)
    with pytest.raises(TypeError, match=r"to_dask_array\(lengths=True\)"):
        SLKLRegressor(n_columns=20).fit(frame, y)


def test_primal_problem_refuses_weights_with_a_dask_z(data):
    # the weights were ignored on Dask; the estimators take none with a Dask X either
    import array_api_compat.numpy as xp

    from lrkl.kernel_ridge import primal_loo_errors, primal_problem

    X, y, Xd, yd = data
    with pytest.raises(ValueError, match="primal_problem takes no sample_weight with a Dask Z"):
        primal_problem(Xd, yd, fit_intercept=True, xp=xp, sample_weight=np.ones(len(y)))
    problem = primal_problem(X, y, fit_intercept=True, xp=xp)
    from lrkl.kernel_ridge import make_solver

    solver = make_solver(problem.gram, "eigh", xp=xp)
    with pytest.raises(ValueError, match="primal_loo_errors takes no sample_weight"):
        primal_loo_errors(
            Xd, yd, problem, solver, [1.0], fit_intercept=True, xp=xp, sample_weight=np.ones(len(y))
        )

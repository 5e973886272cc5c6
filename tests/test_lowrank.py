"""ICD, CSI and Nyström factors against dense NumPy computations, on every backend."""

from __future__ import annotations

import numpy as np
import pytest

from lrkl import lowrank
from lrkl._backend import to_numpy
from lrkl.kernels import Gaussian, Laplacian, Linear, Polynomial

from ._reference import csi_greedy, kernel_ridge, nystrom, pivoted_cholesky

# --------------------------------------------------------------------------- dense references


def sym_inv_sqrt(W, floor=1e-12):
    s, U = np.linalg.eigh(W)
    return U @ np.diag(1 / np.sqrt(np.maximum(s, floor))) @ U.T


# --------------------------------------------------------------------------- fixtures

KERNELS = [Gaussian(gamma=0.5), Laplacian(gamma=0.3), Polynomial(degree=2, gamma=1.0)]


@pytest.fixture
def data(rng):
    X = rng.standard_normal((24, 3))
    Z = rng.standard_normal((7, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(24)
    return X, Z, y


def K_of(kernel, A, B=None):
    return kernel(A, A if B is None else B)


# --------------------------------------------------------------------------- icd_column


def test_icd_column_is_one_cholesky_step(backend, data):
    X, _, _ = data
    kernel = Gaussian(gamma=0.5)
    K = K_of(kernel, X)
    ref, piv = pivoted_cholesky(K, 4)
    Xb = backend.asarray(X)
    G = backend.xp.zeros((24, 5), dtype=backend.xp.float64, device=backend.device)
    G[:, :3] = backend.asarray(ref[:, :3])
    d = np.diag(K) - np.sum(ref[:, :3] ** 2, axis=1)
    d[piv[:3]] = 0.0
    g = to_numpy(lowrank.icd_column(kernel, Xb, G, backend.asarray(d), piv[3], 3, xp=backend.xp))
    np.testing.assert_allclose(g, ref[:, 3], atol=1e-12)
    assert np.all(g[piv[:3]] == 0.0)
    assert g[piv[3]] == np.sqrt(d[piv[3]])


def test_icd_column_is_zero_when_residual_vanishes(backend, data):
    X, _, _ = data
    Xb = backend.asarray(X)
    G = backend.xp.zeros((24, 2), dtype=backend.xp.float64, device=backend.device)
    d = np.ones(24)
    d[5] = 0.0
    g = lowrank.icd_column(Gaussian(gamma=0.5), Xb, G, backend.asarray(d), 5, 0, xp=backend.xp)
    assert np.all(to_numpy(g) == 0.0)


# --------------------------------------------------------------------------- ICD


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_icd_matches_pivoted_cholesky(backend, data, kernel):
    X, _, _ = data
    K = K_of(kernel, X)
    f = lowrank.icd(kernel, backend.asarray(X), 6)
    ref, piv = pivoted_cholesky(K, 6)
    assert f.pivots == tuple(piv)
    assert f.method == "icd"
    np.testing.assert_allclose(to_numpy(f.G), ref, atol=1e-10)
    np.testing.assert_allclose(to_numpy(f.L), ref[piv], atol=1e-10)
    np.testing.assert_allclose(to_numpy(f.landmarks), X[piv])
    np.testing.assert_allclose(
        to_numpy(f.residual), np.diag(K) - np.sum(ref**2, axis=1), atol=1e-10
    )
    L = to_numpy(f.L)
    assert np.all(np.triu(L, 1) == 0.0)  # exact zeros, not round-off


def test_icd_full_rank_reproduces_kernel(backend, data):
    X, _, _ = data
    kernel = Laplacian(gamma=0.3)  # strictly positive definite, well conditioned
    f = lowrank.icd(kernel, backend.asarray(X), 24, tol=0.0)
    G = to_numpy(f.G)
    assert f.rank == 24
    np.testing.assert_allclose(G @ G.T, K_of(kernel, X), atol=1e-10)
    # ICD is the Nyström approximation on its pivots (eq. 20).
    f6 = lowrank.icd(kernel, backend.asarray(X), 6)
    K = K_of(kernel, X)
    S = list(f6.pivots)
    nys = nystrom(K, S)
    np.testing.assert_allclose(to_numpy(f6.G) @ to_numpy(f6.G).T, nys, atol=1e-10)


def test_icd_stops_early_on_low_rank_kernel(backend, data):
    X, _, _ = data
    f = lowrank.icd(Linear(), backend.asarray(X), 10)
    assert f.rank == 3
    G = to_numpy(f.G)
    np.testing.assert_allclose(G @ G.T, X @ X.T, atol=1e-10)
    assert np.all(to_numpy(f.residual) <= 1e-10)


def test_icd_of_several_kernels_in_one_pass_is_each_kernel_alone(backend, data):
    # LowRankFeatures factors all kernels in one pass per pivot; a kernel that stops early
    # (Linear: rank 3) must not change the others, nor they it
    X, _, _ = data
    kernels, ranks = [Linear(), Gaussian(gamma=0.5), Laplacian(gamma=0.3)], [8, 12, 5]
    features = lowrank.LowRankFeatures(kernels, rank=ranks, method="icd").fit(backend.asarray(X))
    for kernel, rank, factor in zip(kernels, ranks, features.factors_, strict=True):
        alone = lowrank.icd(kernel, backend.asarray(X), rank)
        assert factor.pivots == alone.pivots
        np.testing.assert_array_equal(to_numpy(factor.G), to_numpy(alone.G))
        np.testing.assert_array_equal(to_numpy(factor.L), to_numpy(alone.L))
        np.testing.assert_array_equal(to_numpy(factor.residual), to_numpy(alone.residual))
    assert features.rank_ == (3, 12, 5)


def test_icd_keeps_float32(backend, data):
    X, _, _ = data
    f = lowrank.icd(Gaussian(gamma=0.5), backend.asarray(X.astype(np.float32)), 5)
    assert f.G.dtype == backend.xp.float32
    assert f.transform(backend.asarray(X.astype(np.float32))).dtype == backend.xp.float32


# --------------------------------------------------------------------------- Nyström


def test_nystrom_full_form_matches_dense(backend, data):
    X, Z, _ = data
    kernel = Gaussian(gamma=0.5)
    f = lowrank.nystrom(kernel, backend.asarray(X), 8, random_state=42)
    S = list(np.random.RandomState(42).permutation(24)[:8])
    assert f.pivots == tuple(S)
    assert f.method == "nystrom"
    K = K_of(kernel, X)
    N = sym_inv_sqrt(K[np.ix_(S, S)])
    np.testing.assert_allclose(to_numpy(f.G), K[:, S] @ N, atol=1e-9)
    np.testing.assert_allclose(
        to_numpy(f.transform(backend.asarray(Z))), K_of(kernel, Z, X[S]) @ N, atol=1e-9
    )


def test_nystrom_rank_R_form_is_pseudo_inverse_of_best_rank_R(backend, data):
    X, _, _ = data
    kernel = Gaussian(gamma=0.5)
    f = lowrank.nystrom(kernel, backend.asarray(X), 10, rank=4, landmarks=range(10, 20))
    K = K_of(kernel, X)
    S = list(range(10, 20))
    s, U = np.linalg.eigh(K[np.ix_(S, S)])
    U4, s4 = U[:, -4:], s[-4:]
    V = K[:, S] @ U4 @ np.diag(s4**-0.5)  # the ℓp-MKL paper's V = C L D^{-1/2}
    G = to_numpy(f.G)
    assert G.shape == (24, 4)
    np.testing.assert_allclose(G @ G.T, V @ V.T, atol=1e-9)
    np.testing.assert_allclose(np.abs(G), np.abs(V[:, ::-1]), atol=1e-9)  # up to column signs


def test_nystrom_all_landmarks_reproduces_kernel(backend, data):
    X, _, _ = data
    kernel = Laplacian(gamma=0.3)
    for rank in (None, 24):
        f = lowrank.nystrom(kernel, backend.asarray(X), 24, rank=rank, random_state=0)
        G = to_numpy(f.G)
        np.testing.assert_allclose(G @ G.T, K_of(kernel, X), atol=1e-9)
        np.testing.assert_allclose(to_numpy(f.residual), 0.0, atol=1e-9)


def test_nystrom_rank_R_drops_null_directions(backend, data):
    X, _, _ = data
    f = lowrank.nystrom(Linear(), backend.asarray(X), 8, rank=6, random_state=1)
    G = to_numpy(f.G)
    assert np.all(G[:, 3:] == 0.0)  # a rank-3 kernel: three exactly-zero columns
    np.testing.assert_allclose(G @ G.T, X @ X.T, atol=1e-9)


# --------------------------------------------------------------------------- out of sample


def _factors(backend, X, y, kernel):
    Xb, yb = backend.asarray(X), backend.asarray(y)
    return {
        "icd": lowrank.icd(kernel, Xb, 7),
        "csi": lowrank.csi(kernel, Xb, yb, 7, lookahead=4),
        "nystrom": lowrank.nystrom(kernel, Xb, 7, random_state=3),
        "nystrom-R": lowrank.nystrom(kernel, Xb, 9, rank=5, random_state=3),
    }


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_transform_of_training_points_is_the_factor(backend, data, kernel):
    X, _, y = data
    for name, f in _factors(backend, X, y, kernel).items():
        np.testing.assert_allclose(
            to_numpy(f.transform(backend.asarray(X))), to_numpy(f.G), atol=1e-8, err_msg=name
        )


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_cholesky_transform_extends_the_factor(backend, data, kernel):
    """g(z) = L⁻¹k(S, z) is the row of z in the Cholesky factor of [X; Z] on the same pivots."""
    X, Z, y = data
    XZ = np.vstack([X, Z])
    for name in ("icd", "csi"):
        f = _factors(backend, X, y, kernel)[name]
        ref, _ = pivoted_cholesky(K_of(kernel, XZ), f.rank, list(f.pivots))
        np.testing.assert_allclose(
            to_numpy(f.transform(backend.asarray(Z))), ref[24:], atol=1e-8, err_msg=name
        )


def test_cholesky_features_skip_zero_columns(backend, data):
    X, Z, _ = data
    kernel = Gaussian(gamma=0.5)
    f = lowrank.icd(kernel, backend.asarray(X), 4)
    L = to_numpy(f.L).copy()
    L[:, 2] = 0.0  # a pivot whose residual vanished: icd_column gives a zero column
    out = to_numpy(
        lowrank.cholesky_features(
            kernel, f.landmarks, backend.asarray(L), backend.asarray(Z), xp=backend.xp
        )
    )
    keep = [0, 1, 3]
    S = [f.pivots[j] for j in keep]
    expected = np.linalg.solve(L[np.ix_(keep, keep)], K_of(kernel, X[S], Z)).T
    np.testing.assert_allclose(out[:, keep], expected, atol=1e-10)
    assert np.all(out[:, 2] == 0.0)


# --------------------------------------------------------------------------- CSI


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_csi_factor_is_a_pivoted_cholesky_factor(backend, data, kernel):
    X, _, y = data
    f = lowrank.csi(kernel, backend.asarray(X), backend.asarray(y), 6, lookahead=3)
    K = K_of(kernel, X)
    G, L, S = to_numpy(f.G), to_numpy(f.L), list(f.pivots)
    assert f.method == "csi"
    assert len(set(S)) == 6
    assert np.all(np.triu(L, 1) == 0.0)
    np.testing.assert_allclose(L @ L.T, K[np.ix_(S, S)], atol=1e-10)
    nys = nystrom(K, S)
    np.testing.assert_allclose(G @ G.T, nys, atol=1e-9)
    ref, _ = pivoted_cholesky(K, 6, S)
    np.testing.assert_allclose(G, ref, atol=1e-9)
    np.testing.assert_allclose(to_numpy(f.residual), np.diag(K) - np.sum(G**2, axis=1), atol=1e-10)


def test_csi_full_rank_reproduces_kernel(backend, data):
    X, _, y = data
    kernel = Laplacian(gamma=0.3)
    f = lowrank.csi(kernel, backend.asarray(X), backend.asarray(y), 24, lookahead=5, tol=0.0)
    G = to_numpy(f.G)
    assert f.rank == 24
    np.testing.assert_allclose(G @ G.T, K_of(kernel, X), atol=1e-9)


@pytest.mark.parametrize("kappa", [0.0, 0.5, 0.99, 1.0])
def test_csi_with_full_lookahead_is_exact_greedy(backend, data, kappa):
    """With δ ≥ n the predicted gains are exact: CSI picks the exact greedy pivots."""
    X, _, y = data
    kernel = Laplacian(gamma=0.3)
    f = lowrank.csi(
        kernel, backend.asarray(X), backend.asarray(y), 6, kappa=kappa, lookahead=24, tol=0.0
    )
    assert list(f.pivots) == csi_greedy(K_of(kernel, X), y, 6, kappa)


def test_csi_without_lookahead_and_kappa_zero_is_icd(backend, data):
    X, _, y = data
    kernel = Gaussian(gamma=0.5)
    f = lowrank.csi(kernel, backend.asarray(X), backend.asarray(y), 6, kappa=0.0, lookahead=0)
    assert f.pivots == lowrank.icd(kernel, backend.asarray(X), 6).pivots


def test_csi_uses_the_targets(backend, rng):
    """A target that depends on one far-away cluster makes CSI pivot there before ICD would."""
    X = np.vstack([rng.normal(0, 0.3, (40, 1)), rng.normal(5, 0.01, (5, 1))])
    y = np.r_[np.zeros(40), np.ones(5)]
    kernel = Gaussian(gamma=2.0)
    f = lowrank.csi(kernel, backend.asarray(X), backend.asarray(y), 1, lookahead=10)
    assert f.pivots[0] >= 40
    assert lowrank.icd(kernel, backend.asarray(X), 1).pivots[0] < 40


def test_csi_multi_output_and_gain_tol(backend, data):
    X, _, y = data
    Y = np.column_stack([y, -2 * y])
    f = lowrank.csi(Gaussian(gamma=0.5), backend.asarray(X), backend.asarray(Y), 5)
    g = lowrank.csi(Gaussian(gamma=0.5), backend.asarray(X), backend.asarray(y), 5)
    assert f.pivots == g.pivots  # Y Yᵀ ∝ y yᵀ: the same objective up to scale
    h = lowrank.csi(Gaussian(gamma=0.5), backend.asarray(X), backend.asarray(y), 20, gain_tol=0.5)
    assert h.rank < 20


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("rank", [0, -1, 25, 2.5, True, None])
def test_bad_rank_raises(backend, data, rank):
    X, _, y = data
    Xb, yb = backend.asarray(X), backend.asarray(y)
    with pytest.raises(ValueError, match="rank must be an integer between 1 and n_samples=24"):
        lowrank.icd(Gaussian(gamma=1.0), Xb, rank)
    with pytest.raises(ValueError, match="rank must be an integer between 1 and n_samples=24"):
        lowrank.csi(Gaussian(gamma=1.0), Xb, yb, rank)
    with pytest.raises(ValueError, match="n_landmarks must be an integer between 1 and"):
        lowrank.nystrom(Gaussian(gamma=1.0), Xb, rank)


def test_bad_input_raises(backend, data):
    X, Z, y = data
    Xb, yb = backend.asarray(X), backend.asarray(y)
    Xnan = X.copy()
    Xnan[3, 1] = np.nan
    with pytest.raises(ValueError, match="X must contain only finite values"):
        lowrank.icd(Gaussian(gamma=1.0), backend.asarray(Xnan), 3)
    with pytest.raises(TypeError, match=r"kernel must be an lrkl\.kernels\.Kernel"):
        lowrank.icd(3, Xb, 3)
    with pytest.raises(ValueError, match=r"kernel must be a Kernel or one of \('rbf'"):
        lowrank.icd("gauss", Xb, 3)
    with pytest.raises(ValueError, match="X must have ndim"):
        lowrank.icd(Gaussian(gamma=1.0), backend.asarray(X[:, 0]), 3)
    with pytest.raises(ValueError, match="tol must be a finite number >= 0"):
        lowrank.icd(Gaussian(gamma=1.0), Xb, 3, tol=-1.0)
    with pytest.raises(ValueError, match="rank must be an integer between 1 and n_landmarks=5"):
        lowrank.nystrom(Gaussian(gamma=1.0), Xb, 5, rank=6)
    with pytest.raises(ValueError, match="landmarks must hold n_landmarks=3 distinct"):
        lowrank.nystrom(Gaussian(gamma=1.0), Xb, 3, landmarks=[1, 1, 2])
    with pytest.raises(ValueError, match="landmarks must hold"):
        lowrank.nystrom(Gaussian(gamma=1.0), Xb, 2, landmarks=[0, 24])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        lowrank.csi(Gaussian(gamma=1.0), Xb, backend.asarray(y[:5]), 3)
    with pytest.raises(ValueError, match=r"kappa must be in \[0, 1\]"):
        lowrank.csi(Gaussian(gamma=1.0), Xb, yb, 3, kappa=1.5)
    with pytest.raises(ValueError, match="lookahead must be an integer >= 0"):
        lowrank.csi(Gaussian(gamma=1.0), Xb, yb, 3, lookahead=-2)
    f = lowrank.icd(Gaussian(gamma=1.0), Xb, 3)
    with pytest.raises(ValueError, match="X must have 3 features"):
        f.transform(backend.asarray(Z[:, :2]))
    Znan = Z.copy()
    Znan[0, 0] = np.inf
    with pytest.raises(ValueError, match="X must contain only finite values"):
        f.transform(backend.asarray(Znan))


# --------------------------------------------------------------------------- estimators

from sklearn.kernel_ridge import KernelRidge  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402
from sklearn.model_selection import KFold  # noqa: E402

from lrkl import LowRankRidge, LowRankRidgeCV, UniformKernelRidge  # noqa: E402

TWO_KERNELS = (Gaussian(gamma=0.5), Laplacian(gamma=0.3))


@pytest.mark.parametrize("method", ["icd", "csi", "nystrom"])
@pytest.mark.parametrize("alpha", [0.0, 0.1])
def test_lowrank_ridge_is_ridge_on_the_stacked_factors(backend, data, method, alpha):
    X, Z, y = data
    model = LowRankRidge(TWO_KERNELS, rank=[4, 3], method=method, alpha=alpha, random_state=0)
    model.fit(backend.asarray(X), backend.asarray(y))
    assert model.rank_ == (4, 3)
    F = np.hstack([to_numpy(f.G) for f in model.factors_])
    np.testing.assert_allclose(to_numpy(model.features(backend.asarray(X))), F, atol=1e-8)
    ref = Ridge(alpha=alpha, solver="svd").fit(F, y)
    np.testing.assert_allclose(to_numpy(model.coef_), ref.coef_, atol=1e-7)
    np.testing.assert_allclose(to_numpy(model.intercept_), ref.intercept_, atol=1e-7)
    Fz = to_numpy(model.features(backend.asarray(Z)))
    pred = model.predict(backend.asarray(Z))
    assert type(pred) is type(backend.asarray(Z))
    np.testing.assert_allclose(to_numpy(pred), ref.predict(Fz), atol=1e-7)


def test_lowrank_ridge_factors_are_the_lowrank_functions(backend, data):
    X, _, y = data
    Xb, yb = backend.asarray(X), backend.asarray(y)
    icd = LowRankRidge(TWO_KERNELS, rank=5, method="icd").fit(Xb, yb)
    assert [f.pivots for f in icd.factors_] == [lowrank.icd(k, Xb, 5).pivots for k in TWO_KERNELS]
    csi = LowRankRidge(TWO_KERNELS, rank=5, method="csi", lookahead=3).fit(Xb, yb)
    assert [f.pivots for f in csi.factors_] == [
        lowrank.csi(k, Xb, yb, 5, lookahead=3).pivots for k in TWO_KERNELS
    ]
    nys = LowRankRidge(TWO_KERNELS, rank=[5, 3], method="nystrom", random_state=42).fit(Xb, yb)
    first = list(np.random.RandomState(42).permutation(24))
    assert [f.pivots for f in nys.factors_] == [tuple(first[:5]), tuple(first[:3])]


def test_lowrank_ridge_multi_output(backend, data):
    X, _, y = data
    Y = np.column_stack([y, y**2])
    model = LowRankRidge(TWO_KERNELS, rank=4, alpha=0.1, random_state=0)
    model.fit(backend.asarray(X), backend.asarray(Y))
    single = LowRankRidge(TWO_KERNELS, rank=4, alpha=0.1, random_state=0).fit(
        backend.asarray(X), backend.asarray(y)
    )
    pred = to_numpy(model.predict(backend.asarray(X)))
    assert pred.shape == (24, 2)
    np.testing.assert_allclose(pred[:, 0], to_numpy(single.predict(backend.asarray(X))), atol=1e-10)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_uniform_kernel_ridge_matches_dense_krr(backend, data, fit_intercept):
    X, Z, y = data
    model = UniformKernelRidge(TWO_KERNELS, alpha=0.3, fit_intercept=fit_intercept)
    model.fit(backend.asarray(X), backend.asarray(y))
    K = sum(K_of(k, X) for k in TWO_KERNELS)
    Kz = sum(K_of(k, Z, X) for k in TWO_KERNELS)
    dual, b = kernel_ridge(K, y, 0.3, fit_intercept)  # the bordered system of eq. 7
    expected = Kz @ dual + b
    if not fit_intercept:
        np.testing.assert_allclose(
            expected, KernelRidge(alpha=0.3, kernel="precomputed").fit(K, y).predict(Kz)
        )
    np.testing.assert_allclose(to_numpy(model.dual_coef_), dual, atol=1e-9)
    np.testing.assert_allclose(to_numpy(model.predict(backend.asarray(Z))), expected, atol=1e-9)
    np.testing.assert_allclose(to_numpy(model.kernel_weights_), [1.0, 1.0])


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"kernels": []}, ValueError, "kernels must hold at least one Kernel"),
        ({"kernels": [Linear(), 3]}, TypeError, r"kernels\[1\] must be .* received int"),
        ({"rank": 0}, ValueError, "'rank' parameter"),
        ({"rank": [2, 3, 4]}, ValueError, r"one rank per kernel \(2\)"),
        ({"rank": [2, 0]}, ValueError, "rank must hold integers >= 1"),
        ({"method": "svd"}, ValueError, "'method' parameter"),
        ({"alpha": -1.0}, ValueError, "'alpha' parameter"),
        ({"kappa": 2.0}, ValueError, "'kappa' parameter"),
        ({"lookahead": -1}, ValueError, "'lookahead' parameter"),
    ],
)
def test_lowrank_ridge_bad_parameters(data, params, error, match):
    X, _, y = data
    model = LowRankRidge(**{"kernels": TWO_KERNELS, **params})
    with pytest.raises(error, match=match):
        model.fit(X, y)


def test_estimators_bad_data(backend, data):
    X, Z, y = data
    Xnan = X.copy()
    Xnan[0, 0] = np.nan
    for model in (LowRankRidge(TWO_KERNELS, rank=3), UniformKernelRidge(TWO_KERNELS)):
        with pytest.raises(ValueError, match="X must contain only finite values"):
            model.fit(backend.asarray(Xnan), backend.asarray(y))
        with pytest.raises(ValueError, match="inconsistent numbers of samples"):
            model.fit(backend.asarray(X), backend.asarray(y[:10]))
        model.fit(backend.asarray(X), backend.asarray(y))
        with pytest.raises(ValueError, match="expecting 3 features"):
            model.predict(backend.asarray(Z[:, :2]))
    with pytest.raises(ValueError, match="'alpha' parameter"):
        UniformKernelRidge(TWO_KERNELS, alpha=0.0).fit(X, y)


# --------------------------------------------------------------------------- LowRankRidgeCV


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_low_rank_ridge_cv_loo_matches_refits_without_each_row(
    backend, data, fit_intercept, weighted
):
    """The closed-form leave-one-out path equals n refits of scikit-learn's Ridge, each on the
    features without one row."""
    X, _, y = data
    n = len(y)
    w = np.random.default_rng(7).uniform(0.2, 2.0, size=n) if weighted else None
    model = LowRankRidgeCV(
        TWO_KERNELS, rank=6, alphas=[0.01, 0.3, 3.0], fit_intercept=fit_intercept, random_state=0
    )
    model.fit(
        backend.asarray(X),
        backend.asarray(y),
        sample_weight=None if w is None else backend.asarray(w),
    )
    Z = to_numpy(model.features(backend.asarray(X)))
    for alpha, (loo,) in zip(model.alphas_, model.mse_path_, strict=True):
        errors = np.empty(n)
        for i in range(n):
            keep = np.arange(n) != i
            ridge = Ridge(alpha=alpha, fit_intercept=fit_intercept)
            ridge.fit(Z[keep], y[keep], sample_weight=None if w is None else w[keep])
            errors[i] = (ridge.predict(Z[i : i + 1])[0] - y[i]) ** 2
        expected = errors.mean() if w is None else np.sum(w * errors) / np.sum(w)
        np.testing.assert_allclose(loo, expected, rtol=1e-8)
    best = int(np.argmin([e[0] for e in model.mse_path_]))
    assert model.alpha_ == model.alphas_[best]
    refit = LowRankRidge(
        TWO_KERNELS, rank=6, alpha=model.alpha_, fit_intercept=fit_intercept, random_state=0
    )
    refit.fit(X, y, sample_weight=w)
    np.testing.assert_allclose(to_numpy(model.coef_), refit.coef_, atol=1e-10)


def test_low_rank_ridge_cv_folds_and_default_grid(data):
    X, _, y = data
    model = LowRankRidgeCV(TWO_KERNELS, rank=6, n_alphas=5, cv=KFold(3), random_state=0)
    model.fit(X, y)
    Z = model.features(X)
    top = np.linalg.eigvalsh((Z - Z.mean(axis=0)).T @ (Z - Z.mean(axis=0)))[-1]
    np.testing.assert_allclose(model.alphas_, top * np.logspace(0, -8, 5), rtol=1e-8)
    for alpha, per_fold in zip(model.alphas_, model.mse_path_, strict=True):
        for (train, test), error in zip(KFold(3).split(X), per_fold, strict=True):
            fold = LowRankRidge(TWO_KERNELS, rank=6, alpha=alpha, random_state=0)
            fold.fit(X[train], y[train])
            np.testing.assert_allclose(error, np.mean((fold.predict(X[test]) - y[test]) ** 2))


def test_low_rank_ridge_cv_warns_on_the_top_of_its_grid(data):
    """Seeded: with the landmarks drawn from NumPy's global generator, 5 of 1 500 of its
    states chose 1e-9 on this noise, so the suite failed now and then, by the draws of the
    tests before it."""
    X, _, _ = data
    noise = np.random.default_rng(1).normal(size=len(X))
    with pytest.warns(UserWarning, match="chose alpha = .*its largest value"):
        LowRankRidgeCV(TWO_KERNELS, rank=6, alphas=[1e3, 1e-9], random_state=0).fit(X, noise)


# --------------------------------------------------------------------------- non-PSD kernels

from lrkl.kernels import Precomputed  # noqa: E402


def _not_psd_matrices(rng):
    # a kernel matrix of 8 points with its smallest eigenvalue made negative: positive
    # diagonal, and the negative eigenvalue shows as negative curvature on the way
    s, U = np.linalg.eigh(K_of(Gaussian(gamma=0.1), rng.standard_normal((8, 2))))
    s[0] = -0.05 * s[-1]
    return {
        "off_diagonal": np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
        "negative_diagonal": -np.eye(4),
        "negative_eigenvalue": (U * s) @ U.T,
    }


@pytest.mark.parametrize("case", ["off_diagonal", "negative_diagonal", "negative_eigenvalue"])
@pytest.mark.parametrize("method", ["icd", "csi", "nystrom"])
def test_non_psd_precomputed_matrix_is_refused(rng, case, method):
    K = _not_psd_matrices(rng)[case]
    n = K.shape[0]
    assert np.linalg.eigvalsh(K)[0] < -1e-3  # the dense reference: not PSD
    rows = np.arange(float(n))[:, None]
    # a negative diagonal is refused by Precomputed itself, the rest by the factorisation
    with pytest.raises(ValueError, match="positive semi-definite"):
        kernel = Precomputed(matrix=K)
        if method == "icd":
            lowrank.icd(kernel, rows, n)
        elif method == "csi":  # ICD's pivots (κ = 0, no look-ahead): the check is sound
            lowrank.csi(kernel, rows, np.ones(n), n, kappa=0.0, lookahead=0)
        else:
            lowrank.nystrom(kernel, rows, n)


def test_non_psd_matrix_in_chunked_icd(rng):
    da = pytest.importorskip("dask.array")
    K = _not_psd_matrices(rng)["negative_eigenvalue"]
    rows = da.from_array(np.arange(8.0)[:, None], chunks=(3, 1))
    with pytest.raises(ValueError, match="kernel matrix is not positive semi-definite"):
        lowrank.icd(Precomputed(matrix=K), rows, 8)


def test_non_psd_precomputed_matrix_in_an_estimator(rng):
    K = _not_psd_matrices(rng)["negative_eigenvalue"]
    rows = np.arange(8.0)[:, None]
    model = LowRankRidge(kernels=[Precomputed(matrix=K)], rank=8)
    with pytest.raises(ValueError, match="kernel matrix is not positive semi-definite"):
        model.fit(rows, np.ones(8))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_singular_psd_kernels_are_not_refused(rng, dtype):
    # Rank-deficient, with duplicated rows: negative residuals of rounding size only.
    X = rng.standard_normal((40, 2)).astype(dtype)
    X = np.concatenate([X, X[:10], X[:5] + np.asarray(1e-7, dtype=dtype)])
    F = rng.standard_normal((55, 3))
    for kernel, data in [
        (Linear(), X),
        (Gaussian(gamma=0.5), X),
        (Polynomial(degree=2, gamma=1.0), X),
        (Precomputed(matrix=(F @ F.T).astype(dtype)), np.arange(55.0)[:, None].astype(dtype)),
    ]:
        f = lowrank.icd(kernel, data, 55, tol=0.0)
        K = to_numpy(kernel(data)).astype(np.float64)
        assert np.abs(to_numpy(f.G) @ to_numpy(f.G).T - K).max() < 1e-3 * np.abs(K).max()
        lowrank.csi(kernel, data, np.ones(55, dtype=dtype), 55, lookahead=3, tol=0.0)
        lowrank.nystrom(kernel, data, 55)


# --------------------------------------------------------------------------- translation


@pytest.mark.parametrize("kernel", [Gaussian(gamma=0.5), Laplacian(gamma=0.3)])
def test_factors_are_translation_invariant(data, kernel):
    # Reference: the same factors of the same rounded points moved back by the offset.
    X, Z, y = data
    for c in [1e6, 1e8]:
        Xc, Zc = X + c, Z + c
        ref = lowrank.icd(kernel, Xc - c, 10)
        got = lowrank.icd(kernel, Xc, 10)
        assert got.pivots == ref.pivots
        np.testing.assert_allclose(got.G, ref.G, atol=1e-10)
        np.testing.assert_allclose(got.transform(Zc), ref.transform(Zc - c), atol=1e-10)
        ref = lowrank.nystrom(kernel, Xc - c, 8, rank=5, random_state=0)
        got = lowrank.nystrom(kernel, Xc, 8, rank=5, random_state=0)
        np.testing.assert_allclose(got.G, ref.G, atol=1e-8)
        ref = lowrank.csi(kernel, Xc - c, y, 6)
        got = lowrank.csi(kernel, Xc, y, 6)
        assert got.pivots == ref.pivots
        np.testing.assert_allclose(got.G, ref.G, atol=1e-10)


# --------------------------------------------------------------------------- lists, NumPy scalars


def test_factor_functions_take_lists(data):
    from lrkl.alignment import factor_alignment

    X, Z, y = data
    kernel = Gaussian(gamma=0.5)
    f = lowrank.icd(kernel, X, np.int64(5))
    g = lowrank.icd(kernel, X.tolist(), 5)
    assert g.pivots == f.pivots
    np.testing.assert_allclose(g.G, f.G)
    np.testing.assert_allclose(f.transform(Z.tolist()), f.transform(Z))
    h = lowrank.csi(kernel, X.tolist(), y.tolist(), 4, lookahead=np.int64(2), centering=np.True_)
    np.testing.assert_allclose(h.G, lowrank.csi(kernel, X, y, 4, lookahead=2).G)
    m = lowrank.nystrom(kernel, X.tolist(), 6, random_state=0)
    np.testing.assert_allclose(m.G, lowrank.nystrom(kernel, X, 6, random_state=0).G)
    a, M = factor_alignment([f.G.tolist(), m.G[:, 0].tolist()], y.tolist())
    a_ref, M_ref = factor_alignment([f.G, m.G[:, 0]], y)
    np.testing.assert_allclose(a, a_ref)
    np.testing.assert_allclose(M, M_ref)


@pytest.mark.parametrize("centering", ["yes", 1, None])
def test_csi_centering_must_be_a_bool(data, centering):
    X, _, y = data
    with pytest.raises(ValueError, match="centering must be True or False, received"):
        lowrank.csi(Gaussian(gamma=0.5), X, y, 3, centering=centering)


@pytest.mark.parametrize("n_landmarks", [None, 12])
def test_each_kernel_its_own_landmarks(n_landmarks):
    """shared_landmarks=False: kernel q's factor is the Nyström approximation on the first m
    rows of the q-th permutation drawn from the seed (the first kernel's are the shared ones);
    G Gᵀ against the dense K[:, S] W⁺ K[S, :] (rank R of W's top eigenpairs)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    kernels = [Gaussian(gamma=0.2), Gaussian(gamma=1.0), Gaussian(gamma=5.0)]
    R = 8
    params = dict(rank=R, method="nystrom", n_landmarks=n_landmarks, random_state=4)
    own = lowrank.LowRankFeatures(kernels, shared_landmarks=False, **params).fit(X)
    shared = lowrank.LowRankFeatures(kernels, **params).fit(X)
    draw = np.random.RandomState(4)
    m = R if n_landmarks is None else n_landmarks
    for q, (kernel, factor) in enumerate(zip(kernels, own.factors_, strict=True)):
        order = draw.permutation(60)[:m]
        assert tuple(factor.pivots) == tuple(int(i) for i in order)
        K = kernel(X, X)
        s, U = np.linalg.eigh(K[np.ix_(order, order)])
        top = np.argsort(s)[::-1][:R]
        reference = K[:, order] @ U[:, top] @ np.diag(1 / s[top]) @ U[:, top].T @ K[order, :]
        G = factor.G
        np.testing.assert_allclose(G @ G.T, reference, atol=1e-6)
        assert (q == 0) == (factor.pivots == shared.factors_[0].pivots)
    assert all(f.pivots == shared.factors_[0].pivots for f in shared.factors_)
    np.testing.assert_allclose(own.transform(X), own.fit_transform(X), atol=1e-10)


@pytest.mark.parametrize("second", [Laplacian(gamma=0.5), Gaussian(gamma=0.05)])
@pytest.mark.parametrize("method", ["nystrom", "icd"])
def test_float32_features_are_the_float64_features_rounded(backend, method, second):
    """feature_dtype="float32": the features of float64 rows (fit and transform) are the float64
    features rounded to float32, bit for bit: the kernel values and the projection are computed
    from the float64 rows, and only the result is rounded (two Gaussians: from one GEMM)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 3)) + 1e4  # rows that float32 would round: X itself stays float64
    Xt = rng.normal(size=(7, 3)) + 1e4
    kernels = [Gaussian(gamma=0.3), second]
    params = dict(rank=6, method=method, shared_landmarks=False, random_state=2)
    wide = lowrank.LowRankFeatures(kernels, **params)
    narrow = lowrank.LowRankFeatures(kernels, feature_dtype="float32", **params)
    G = to_numpy(wide.fit_transform(backend.asarray(X)))
    G32 = narrow.fit_transform(backend.asarray(X))
    assert G32.dtype == backend.xp.float32
    np.testing.assert_array_equal(to_numpy(G32), G.astype(np.float32))
    T32 = narrow.transform(backend.asarray(Xt))
    assert T32.dtype == backend.xp.float32
    T = to_numpy(wide.transform(backend.asarray(Xt)))
    np.testing.assert_array_equal(to_numpy(T32), T.astype(np.float32))
    assert to_numpy(narrow.factors_[0].landmarks).dtype == np.float64


@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("scale", [1.0, 1e-150, 1e150])
def test_several_gaussians_in_one_pass_are_each_kernel_alone(shared, scale):
    """Several Gaussian kernels' Nyström factors come from one GEMM per row block against all
    their landmarks; each is the factor of its kernel alone, at any offset and scale."""
    from lrkl.lowrank._nystrom import _nystrom

    rng = np.random.default_rng(3)
    X = (rng.normal(size=(80, 3)) + 1e6) * scale
    gamma = 1.0 / (3 * np.var(X))
    kernels = [Gaussian(gamma=gamma * 2.0**k) for k in (-3, 0, 2)]
    for n_landmarks in (None, 15):
        features = lowrank.LowRankFeatures(
            kernels,
            rank=6,
            method="nystrom",
            n_landmarks=n_landmarks,
            shared_landmarks=shared,
            random_state=1,
        ).fit(X)
        for kernel, factor in zip(kernels, features.factors_, strict=True):
            rank = None if n_landmarks is None else 6
            alone = _nystrom(kernel, X, list(factor.pivots), rank, xp=np)
            np.testing.assert_allclose(factor.G, alone.G, rtol=1e-7, atol=1e-9)
            np.testing.assert_allclose(factor.residual, alone.residual, atol=1e-9)
        np.testing.assert_allclose(features.transform(X), features.fit_transform(X), atol=1e-9)


@pytest.mark.parametrize("shared", [True, False])
def test_several_gaussians_with_a_far_row_are_each_kernel_alone(backend, shared):
    """A row so far from the landmarks that the GEMM expansion would lose its distance (past
    1e-3/ε in γ‖x‖²) takes each kernel's own exact evaluation: the factors and the features of
    new rows are each kernel's alone, on every backend."""
    from lrkl.lowrank._nystrom import _nystrom

    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 3))
    Xt = rng.normal(size=(5, 3))
    Xt[0] += 3e7  # γ‖x − c‖² ≈ 1e14 · 0.5: a kernel value of 0 to every landmark
    kernels = [Gaussian(gamma=0.1), Gaussian(gamma=0.5)]
    features = lowrank.LowRankFeatures(
        kernels, rank=5, method="nystrom", shared_landmarks=shared, random_state=0
    ).fit(backend.asarray(X))
    T = to_numpy(features.transform(backend.asarray(Xt)))
    parts = []
    for kernel, factor in zip(kernels, features.factors_, strict=True):
        alone = _nystrom(kernel, X, list(factor.pivots), None, xp=np)
        np.testing.assert_allclose(to_numpy(factor.G), alone.G, rtol=1e-7, atol=1e-9)
        parts.append(alone._transform(Xt, xp=np))
    np.testing.assert_allclose(T, np.concatenate(parts, axis=1), rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(T[0], 0.0)

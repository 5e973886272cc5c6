"""KernelRidge and KernelRidgeCV (Prato & Zanni's RLS, Tikhonov and CG) against independent
dense computations and scikit-learn, on every backend."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge as SklearnKernelRidge
from sklearn.model_selection import GridSearchCV, KFold, LeaveOneOut

from lrkl import AlignmentKernelRidge, KernelRidge, KernelRidgeCV, UniformKernelRidge, kernels
from lrkl._backend import to_numpy
from lrkl.kernels import DEFAULT_MEMORY_BUDGET, Gaussian, Linear

from ._reference import gaussian_kernel

GAMMA = 0.5


@pytest.fixture
def data(rng):
    X = rng.standard_normal((40, 3))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.standard_normal(40) + 3.0
    T = rng.standard_normal((7, 3))
    return X, y, T


def _tilde(K):
    return np.hstack([K, np.ones((K.shape[0], 1))])


def _predict(T, X, c, b):
    return gaussian_kernel(T, X, GAMMA) @ c + b


def test_rls_without_bias_is_sklearns_kernel_ridge(backend, data):
    X, y, T = data
    model = KernelRidge(Gaussian(gamma=GAMMA), alpha=0.3, fit_intercept=False)
    model.fit(backend.asarray(X), backend.asarray(y))
    ref = SklearnKernelRidge(alpha=0.3, kernel="rbf", gamma=GAMMA).fit(X, y)
    np.testing.assert_allclose(
        to_numpy(model.predict(backend.asarray(T))), ref.predict(T), atol=1e-9
    )


@pytest.mark.parametrize("solver", ["auto", "cholesky", "eigh"])
def test_rls_penalized_bias_is_system_8(backend, data, solver):
    X, y, T = data
    model = KernelRidge(Gaussian(gamma=GAMMA), alpha=0.3, penalize_intercept=True, solver=solver)
    model.fit(backend.asarray(X), backend.asarray(y))
    K, n = gaussian_kernel(X, X, GAMMA), len(y)
    c = np.linalg.solve(K + np.ones((n, n)) + 0.3 * np.eye(n), y)
    expected = _predict(T, X, c, c.sum())
    np.testing.assert_allclose(to_numpy(model.predict(backend.asarray(T))), expected, atol=1e-9)


@pytest.mark.parametrize("bias", [True, False])
def test_weighted_tikhonov_solves_its_weighted_normal_equations(backend, data, bias):
    X, y, T = data
    w = np.random.default_rng(1).uniform(0, 2, size=len(y))
    model = KernelRidge(Gaussian(gamma=GAMMA), alpha=0.3, method="tikhonov", fit_intercept=bias)
    model.fit(backend.asarray(X), backend.asarray(y), sample_weight=backend.asarray(w))
    K = gaussian_kernel(X, X, GAMMA)
    Kt = _tilde(K) if bias else K
    c_tilde = np.linalg.solve(Kt.T @ (w[:, None] * Kt) + 0.3 * np.eye(Kt.shape[1]), Kt.T @ (w * y))
    expected = _predict(T, X, c_tilde[: len(y)], c_tilde[len(y)] if bias else 0.0)
    np.testing.assert_allclose(to_numpy(model.predict(backend.asarray(T))), expected, atol=1e-7)


def test_tikhonov_linear_kernel_uses_the_factor_and_matches_dense(data):
    X, y, T = data
    model = KernelRidge(Linear(), alpha=0.3, method="tikhonov").fit(X, y)
    Kt = _tilde(X @ X.T)
    c_tilde = np.linalg.solve(Kt.T @ Kt + 0.3 * np.eye(41), Kt.T @ y)
    np.testing.assert_allclose(model.predict(T), T @ X.T @ c_tilde[:40] + c_tilde[40], atol=1e-8)


@pytest.mark.parametrize("bias", [True, False])
def test_tikhonov_polynomial_kernel_uses_its_feature_map_and_matches_dense(
    backend, data, monkeypatch, bias
):
    X, y, T = data
    kernel = kernels.Polynomial(degree=2, gamma=0.5, coef0=1.0)  # 10 features < 40 rows
    formed = []
    monkeypatch.setattr(
        kernels.Polynomial,
        "_evaluate",
        lambda self, A, B, *, xp: formed.append(A.shape) or (self.gamma * A @ B.T + 1) ** 2,
    )
    model = KernelRidge(kernel, alpha=0.3, method="tikhonov", fit_intercept=bias)
    model.fit(backend.asarray(X), backend.asarray(y))
    assert formed == []  # the fit never evaluated a kernel matrix
    K = (0.5 * X @ X.T + 1) ** 2
    Kt = _tilde(K) if bias else K
    c_tilde = np.linalg.solve(Kt.T @ Kt + 0.3 * np.eye(Kt.shape[1]), Kt.T @ y)
    expected = (0.5 * T @ X.T + 1) ** 2 @ c_tilde[:40] + (c_tilde[40] if bias else 0.0)
    monkeypatch.undo()
    np.testing.assert_allclose(to_numpy(model.predict(backend.asarray(T))), expected, rtol=1e-7)


def test_tikhonov_on_a_lowrank_factor_in_a_pipeline_matches_dense(data):
    from sklearn.pipeline import make_pipeline

    from lrkl.lowrank import LowRankFeatures

    X, y, T = data
    features = LowRankFeatures([Gaussian(gamma=GAMMA)], rank=12).fit(X)
    model = make_pipeline(
        LowRankFeatures([Gaussian(gamma=GAMMA)], rank=12),
        KernelRidge("linear", alpha=0.3, method="tikhonov"),
    ).fit(X, y)
    G = features.transform(X)
    Kt = _tilde(G @ G.T)  # the rank-12 kernel G Gᵀ ≈ K
    c_tilde = np.linalg.solve(Kt.T @ Kt + 0.3 * np.eye(41), Kt.T @ y)
    expected = features.transform(T) @ G.T @ c_tilde[:40] + c_tilde[40]
    np.testing.assert_allclose(model.predict(T), expected, rtol=1e-8)


def _krylov(A, b, t):
    """The minimiser of ‖b − A x‖ over span{(AᵀA)^j Aᵀb, j < t} (the t-th CGLS iterate)."""
    basis = [A.T @ b]
    for _ in range(t - 1):
        basis.append(A.T @ (A @ basis[-1]))
    Q, _ = np.linalg.qr(np.stack(basis, axis=1))
    return Q @ np.linalg.lstsq(A @ Q, b, rcond=None)[0]


@pytest.mark.parametrize("products", ["precomputed", "on_the_fly"])
def test_weighted_cg_is_cgls_on_the_weighted_system(backend, data, products):
    X, y, T = data
    w = np.random.default_rng(2).uniform(0.5, 2, size=len(y))
    model = KernelRidge(Gaussian(gamma=GAMMA), method="cg", max_iter=4, columns=products).fit(
        backend.asarray(X), backend.asarray(y), sample_weight=backend.asarray(w)
    )
    root = np.sqrt(w)
    c_tilde = _krylov(root[:, None] * _tilde(gaussian_kernel(X, X, GAMMA)), root * y, 4)
    expected = _predict(T, X, c_tilde[:40], c_tilde[40])
    np.testing.assert_allclose(to_numpy(model.predict(backend.asarray(T))), expected, rtol=1e-6)
    assert model.n_iter_ == 4


def test_multi_output_is_one_fit_per_target(data):
    X, y, T = data
    Y = np.stack([y, np.cos(X[:, 2])], axis=1)
    for params in ({"method": "rls"}, {"method": "tikhonov"}, {"method": "cg", "max_iter": 5}):
        both = KernelRidge(Gaussian(gamma=GAMMA), **params).fit(X, Y).predict(T)
        for j in range(2):
            one = KernelRidge(Gaussian(gamma=GAMMA), **params).fit(X, Y[:, j]).predict(T)
            np.testing.assert_allclose(both[:, j], one, atol=1e-9)


ALPHAS = (30.0, 3.0, 0.3, 0.03, 0.003)


def test_cv_rls_without_bias_matches_sklearns_leave_one_out_search(backend, data):
    """Exact LOO from one eigendecomposition against 40 refits per α by scikit-learn."""
    X, y, _ = data
    model = KernelRidgeCV(Gaussian(gamma=GAMMA), fit_intercept=False, alphas=ALPHAS)
    model.fit(backend.asarray(X), backend.asarray(y))
    search = GridSearchCV(
        SklearnKernelRidge(kernel="rbf", gamma=GAMMA),
        {"alpha": list(ALPHAS)},
        cv=LeaveOneOut(),
        scoring="neg_mean_squared_error",
    ).fit(X, y)
    expected = -search.cv_results_["mean_test_score"]
    np.testing.assert_allclose([row[0] for row in model.mse_path_], expected, rtol=1e-7)
    assert model.alpha_ == search.best_params_["alpha"]
    assert model.alphas_ == ALPHAS
    refit = KernelRidge(Gaussian(gamma=GAMMA), alpha=model.alpha_, fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(to_numpy(model.dual_coef_), refit.dual_coef_, atol=1e-8)


@pytest.mark.filterwarnings("ignore:KernelRidgeCV chose alpha")  # the grid is small on purpose
@pytest.mark.parametrize(
    "params",
    [
        {"method": "rls"},
        {"method": "rls", "penalize_intercept": True},
        {"method": "tikhonov"},
        {"method": "tikhonov", "fit_intercept": False},
    ],
)
def test_cv_kfold_path_matches_refits_at_every_alpha(data, params):
    X, y, _ = data
    model = KernelRidgeCV(Gaussian(gamma=GAMMA), alphas=ALPHAS, cv=3, **params).fit(X, y)
    search = GridSearchCV(
        KernelRidge(Gaussian(gamma=GAMMA), **params),
        {"alpha": list(ALPHAS)},
        cv=KFold(3),
        scoring="neg_mean_squared_error",
    ).fit(X, y)
    means = [sum(row) / 3 for row in model.mse_path_]
    np.testing.assert_allclose(means, -search.cv_results_["mean_test_score"], rtol=1e-6)
    assert model.alpha_ == search.best_params_["alpha"]


def test_cv_cg_chooses_t_by_kfold_refits(backend, data):
    X, y, _ = data
    model = KernelRidgeCV(Gaussian(gamma=GAMMA), method="cg", max_iter=6)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "KernelRidgeCV chose n_iter")  # it may be the last
        model.fit(backend.asarray(X), backend.asarray(y))
    search = GridSearchCV(
        KernelRidge(Gaussian(gamma=GAMMA), method="cg"),
        {"max_iter": list(range(1, 7))},
        cv=KFold(5),
        scoring="neg_mean_squared_error",
    ).fit(X, y)
    means = [sum(row) / 5 for row in model.mse_path_]
    np.testing.assert_allclose(means, -search.cv_results_["mean_test_score"], rtol=1e-6)
    assert model.n_iter_ == search.best_params_["max_iter"]
    assert model.n_iters_ == tuple(range(1, 7))
    refit = KernelRidge(Gaussian(gamma=GAMMA), method="cg", max_iter=model.n_iter_).fit(X, y)
    np.testing.assert_allclose(to_numpy(model.dual_coef_), refit.dual_coef_, rtol=1e-8)


def test_cv_default_grid_is_the_papers_and_warns_on_its_end(data):
    X, y, _ = data
    model = KernelRidgeCV(Gaussian(gamma=GAMMA)).fit(X, y)
    assert len(model.alphas_) == 100
    np.testing.assert_allclose([model.alphas_[0], model.alphas_[-1]], [40 * 1e5, 40 * 1e-10])
    with pytest.warns(UserWarning, match=r"KernelRidgeCV chose alpha = 100, its largest value"):
        KernelRidgeCV(Gaussian(gamma=GAMMA), alphas=[100.0, 10.0]).fit(X, np.ones(40) + X[:, 0] * 0)


def test_auto_stores_the_kernel_within_the_budget(monkeypatch):
    X = np.zeros((1000, 2))  # K: 8 MB
    n_entries, budget = 1000**2, DEFAULT_MEMORY_BUDGET
    monkeypatch.setattr(kernels, "device_memory", lambda x: 64 * 2**20)
    assert kernels.precompute_columns("auto", n_entries, X, budget)
    assert not kernels.precompute_columns("auto", n_entries, X, 4 * 2**20)  # over the budget
    monkeypatch.setattr(kernels, "device_memory", lambda x: 16 * 2**20)
    assert not kernels.precompute_columns("auto", n_entries, X, budget)  # > ¼ of the device
    assert kernels.precompute_columns("precomputed", n_entries, X, budget)
    assert not kernels.precompute_columns("on_the_fly", n_entries, X, budget)


def test_bad_input_raises_clear_errors(data):
    X, y, _ = data
    with pytest.raises(ValueError, match=r"alphas must be a finite number > 0, received -1"):
        KernelRidgeCV(alphas=[1.0, -1.0]).fit(X, y)
    with pytest.raises(ValueError, match=r"alphas must be a finite number > 0, received nan"):
        KernelRidgeCV(alphas=[float("nan")]).fit(X, y)
    with pytest.raises(ValueError, match=r"'max_iter' parameter of KernelRidge must be an int"):
        KernelRidge(method="cg", max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match=r"'alpha' parameter of KernelRidge must be a float"):
        KernelRidge(alpha=0.0).fit(X, y)
    with pytest.raises(ValueError, match=r"'method' parameter of KernelRidge must be a str among"):
        KernelRidge(method="svd").fit(X, y)
    with pytest.raises(ValueError, match=r"'kernel' parameter of KernelRidgeCV must be"):
        KernelRidgeCV(kernel=np.eye(3)).fit(X, y)
    with pytest.raises(ValueError, match="X must contain only finite values"):
        KernelRidge().fit(np.where(X > 2, np.nan, X), y)
    with pytest.raises(ValueError, match=r"y has 39 samples, X has 40|inconsistent numbers"):
        KernelRidgeCV().fit(X, y[:-1])
    with pytest.raises(ValueError, match="MultiOutputRegressor"):
        KernelRidgeCV().fit(X, np.stack([y, y], axis=1))


# --------------------------------------------------------------------------- extreme values
# Issue 33, class 9: values the constraints accept must not end inside LAPACK.


def _extreme_data():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((6, 3))
    return X, np.sin(X[:, 0]) + X[:, 1], rng.standard_normal((4, 3))


def test_cholesky_solver_below_rounding_is_the_minimum_norm_solution():
    """Reference: NumPy's pseudo-inverse (cutoff k·eps·max λ, as EighSolver's) of a singular
    PSD S; S + 1e-300 I fails Cholesky."""
    from lrkl.kernel_ridge._solvers import CholeskySolver

    rng = np.random.default_rng(0)
    F = rng.standard_normal((8, 3))
    S = F @ F.T  # rank 3
    rhs = rng.standard_normal(8)
    x = CholeskySolver(S, xp=np).solve(rhs, 1e-300)
    expected = np.linalg.pinv(S, rcond=8 * np.finfo(float).eps, hermitian=True) @ rhs
    np.testing.assert_allclose(x, expected, rtol=1e-8, atol=1e-10 * np.abs(expected).max())


def test_cholesky_solver_refuses_an_indefinite_system_naming_alpha():
    from lrkl.kernel_ridge._solvers import CholeskySolver

    S = np.diag([1.0, 0.5, -0.25])
    with pytest.raises(ValueError, match=r"not positive semi-definite.*alpha must exceed"):
        CholeskySolver(S, xp=np).solve(np.ones(3), 1e-3)


def test_low_rank_ridge_with_a_tiny_alpha_is_the_minimum_norm_fit():
    """alpha=1e-300 raised LinAlgError on a singular ZᵀZ (seven kernels' factors of 6 rows: 42
    columns of rank 6, the family's earlier default); the reference is alpha=0 (minimum-norm
    least squares, the eigendecomposition), within 1e-8 of the spread."""
    from lrkl import LowRankRidge
    from lrkl.kernels import default_kernels

    X, y, T = _extreme_data()
    kernels = default_kernels(X)
    expected = LowRankRidge(kernels, method="icd", alpha=0.0).fit(X, y).predict(T)
    predicted = LowRankRidge(kernels, method="icd", alpha=1e-300).fit(X, y).predict(T)
    np.testing.assert_allclose(predicted, expected, rtol=0, atol=1e-8 * np.ptp(expected))


@pytest.mark.parametrize("name", ["LowRankRidge", "KernelRidge", "UniformKernelRidge"])
def test_huge_sample_weights_fit_as_their_alpha_limit(name):
    """Weights of 1e300 with α = 1 are weights of 1 with α = 1e-300 (the same minimiser); the
    latter is the minimum-norm limit (LowRankRidge: alpha=0) where the system is singular
    (LowRankRidge: seven kernels' factors of 6 rows, its earlier default)."""
    import lrkl
    from lrkl.kernels import default_kernels

    X, y, T = _extreme_data()
    given = {"kernels": default_kernels(X), "method": "icd"} if name == "LowRankRidge" else {}
    weighted = getattr(lrkl, name)(alpha=1.0, **given).fit(X, y, sample_weight=np.full(6, 1e300))
    expected = getattr(lrkl, name)(alpha=1e-300, **given).fit(X, y).predict(T)
    np.testing.assert_allclose(weighted.predict(T), expected, rtol=0, atol=1e-8 * np.ptp(expected))


def test_low_rank_ridge_cv_with_a_huge_tol_keeps_one_column_per_kernel():
    """tol=1e300 stopped every factor before its first column ("zero-size array"): the first
    pivot is always taken, so the features are the rank-1 factors of each kernel."""
    from lrkl import LowRankRidgeCV
    from lrkl.lowrank import LowRankFeatures

    X, y, T = _extreme_data()
    features = LowRankFeatures(["rbf", "linear"], tol=1e300).fit(X)
    assert features.rank_ == (1, 1)
    reference = LowRankFeatures(["rbf", "linear"], rank=1, tol=0.0).fit(X)
    np.testing.assert_allclose(features.transform(T), reference.transform(T), rtol=1e-12)
    model = LowRankRidgeCV(["rbf", "linear"], method="icd", tol=1e300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a choice on an end of the grid
        model.fit(X, y)
    assert model.rank_ == (1, 1)
    assert np.all(np.isfinite(model.predict(T)))


def _bad_solver_level_calls():
    import array_api_compat.numpy as xp

    from lrkl.alignment import kernel_alignment
    from lrkl.kernel_ridge import make_solver, primal_problem, solve_dual

    rng = np.random.default_rng(0)
    Z = rng.normal(size=(8, 3))
    K = Z @ Z.T + np.eye(8)
    y = rng.normal(size=8)
    solver = make_solver(K, "cholesky", xp=xp)
    return [
        (lambda: make_solver(K * np.nan, "cholesky", xp=xp), ValueError, "S must contain only"),
        (lambda: make_solver(Z, "eigh", xp=xp), ValueError, "S must be a square"),
        (lambda: make_solver(K, "lu", xp=xp), ValueError, "solver must be one of"),
        (lambda: solve_dual(solver, y, -1.0, fit_intercept=True, xp=xp), ValueError, "alpha must"),
        (lambda: solve_dual(solver, y[:5], 1.0, fit_intercept=True, xp=xp), ValueError, "y must"),
        (lambda: solve_dual(K, y, 1.0, fit_intercept=True, xp=xp), TypeError, "solver must come"),
        (
            lambda: solve_dual(solver, y, 1.0, fit_intercept=True, xp=xp, sqrt_weight=-y * y),
            ValueError,
            "sqrt_weight must be non-negative",
        ),
        (
            lambda: primal_problem(Z, y, fit_intercept=True, xp=xp, sample_weight=-np.ones(8)),
            ValueError,
            "sample_weight must be non-negative",
        ),
        (lambda: primal_problem(Z, y * np.nan, fit_intercept=True, xp=xp), ValueError, "y must"),
        (lambda: primal_problem(Z[:4], y, fit_intercept=True, xp=xp), ValueError, "y must have 4"),
        (lambda: kernel_alignment([], y), TypeError, "Ks must be a non-empty"),
        (lambda: kernel_alignment([K[:4, :4]], y), ValueError, r"Ks\[0\] must be a 8"),
        (lambda: kernel_alignment([K * np.nan], y), ValueError, r"Ks\[0\] must contain only"),
    ]


@pytest.mark.parametrize("index", range(13))
def test_solver_level_functions_refuse_bad_arguments_by_name(index):
    call, error, message = _bad_solver_level_calls()[index]
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize(
    "make",
    [
        lambda kernel: KernelRidgeCV(kernel=kernel),
        lambda kernel: KernelRidgeCV(kernel=kernel, cv=3),
        lambda kernel: KernelRidge(kernel=kernel, solver="eigh"),
        lambda kernel: KernelRidge(kernel=kernel, penalize_intercept=True, solver="eigh"),
    ],
)
@pytest.mark.parametrize("shift", [1.5, "reflected"])
def test_eigh_path_refuses_a_precomputed_matrix_that_is_not_psd(make, shift):
    # the eigendecomposition solved the indefinite system and returned a model without a word;
    # unit diagonals (a negative one is refused by Precomputed itself), negative eigenvalues
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    K = gaussian_kernel(X, X, 0.5)
    off_diagonal = np.ones((30, 30)) - np.eye(30)
    K = 2.0 * np.eye(30) - K if shift == "reflected" else K - shift * off_diagonal
    assert np.linalg.eigvalsh(K[:25, :25])[0] < -0.1  # the dense reference: not PSD
    rows = np.arange(30.0)[:, None]
    model = make(kernels.Precomputed(matrix=K))
    with pytest.raises(ValueError, match=r"kernel must be positive semi-definite: the 2\d × 2\d"):
        model.fit(rows[:25], X[:25, 0])
    assert not hasattr(model, "n_features_in_")


def test_eigh_path_takes_a_singular_psd_kernel():
    # duplicated rows and a rank-3 linear kernel: eigenvalues at the rounding of zero
    rng = np.random.default_rng(0)
    X = np.repeat(rng.standard_normal((10, 3)), 3, axis=0)
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(30)
    for kernel in (Linear(), Gaussian(0.5)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # alpha at an end of the grid
            model = KernelRidgeCV(kernel=kernel).fit(X, y)
        assert np.all(np.isfinite(model.predict(X)))


def test_psd_kernels_on_clustered_data_far_from_the_centre_are_not_refused():
    """Two clusters at ±100 of spread 0.3: the entries of the Gaussian kernel carry rounding of
    ε·γ‖x − c‖² ≈ 1e-12 each, which puts the PSD matrix's smallest eigenvalues near −1e-9; that
    is rounding, not a non-PSD kernel (n·ε·max|λ| refused it)."""
    from lrkl.lowrank import nystrom

    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(100, 0.3, size=(60, 2)), rng.normal(-100, 0.3, size=(60, 2))]
    y = np.sin(X[:, 0])
    kernel = Gaussian(gamma=1.0)
    assert nystrom(kernel, X, 120).G.shape == (120, 120)
    KernelRidge(kernel=kernel, alpha=1e-12).fit(X, y)
    with pytest.warns(UserWarning, match="smallest value"):
        KernelRidgeCV(kernel=kernel).fit(X, y)


@pytest.mark.parametrize(
    ("estimator", "weighted"),
    [
        (KernelRidge(), False),
        (KernelRidge(), True),
        (KernelRidge(penalize_intercept=True), False),
        (KernelRidge(solver="eigh"), False),
        (KernelRidge(solver="eigh", penalize_intercept=True), True),
        (KernelRidge(method="tikhonov"), False),
        (KernelRidge(method="tikhonov"), True),
        (KernelRidge(method="tikhonov", fit_intercept=False), False),
        (KernelRidgeCV(), False),
        (KernelRidgeCV(method="tikhonov"), False),
        (UniformKernelRidge([Gaussian(), Linear()]), False),
        (UniformKernelRidge([Gaussian(), Linear(), Gaussian(gamma=0.1)]), False),
        (AlignmentKernelRidge([Gaussian(), Linear()], method="alignfc"), True),
    ],
    ids=lambda p: repr(p) if not isinstance(p, bool) else ("weighted" if p else "unweighted"),
)
def test_the_memory_check_counts_the_peak_of_the_fit(monkeypatch, estimator, weighted):
    """The MemoryError raised before a dense fit that cannot fit the device counts the fit's
    peak (traced NumPy allocations, LAPACK's workspace included) within one n × n matrix: an
    undercount let KernelRidge(method="tikhonov") pass the check at 20 000 rows and then need
    7.4 matrices of 3.2 GB on a 24 GiB machine."""
    import tracemalloc

    from lrkl.kernel_ridge import _combined, _methods

    counts = []
    check = _methods.check_dense_kernel_size
    for module in (_methods, _combined):
        monkeypatch.setattr(
            module,
            "check_dense_kernel_size",
            lambda n, X, **kwargs: counts.append(kwargs["count"]) or check(n, X, **kwargs),
        )
    n = 1000
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=n)
    weights = {"sample_weight": rng.uniform(0.5, 2.0, n)} if weighted else {}
    tracemalloc.start()
    try:
        estimator.fit(X, y, **weights)
        peak = tracemalloc.get_traced_memory()[1] / (8 * n * n)
    finally:
        tracemalloc.stop()
    assert counts
    assert max(counts) - 1.1 < peak <= max(counts) + 0.1, (counts, peak)


# --------------------------------------------------------------------------- ridge classifiers


def _classes(rng, n=90, labels=("a", "b", "c")):
    X = rng.standard_normal((n, 3))
    score = np.stack([X[:, 0], X[:, 1], -X[:, 0] - X[:, 1]], axis=1)[:, : len(labels)]
    return X, np.asarray(labels)[np.argmax(score + 0.3 * rng.standard_normal(score.shape), 1)]


@pytest.mark.parametrize("labels", [("a", "b", "c"), (-1, 7)])
@pytest.mark.parametrize("class_weight", [None, "balanced", "dict"])
def test_ridge_classifier_is_sklearns_on_its_features(backend, rng, labels, class_weight):
    """The ±1 encoding, the per-class columns, class and sample weights and the argmax are
    scikit-learn's RidgeClassifier's, on the same features."""
    from sklearn.linear_model import RidgeClassifier

    from lrkl import LowRankRidgeClassifier

    X, y = _classes(rng, labels=labels)
    if class_weight == "dict":
        class_weight = {labels[0]: 3.0, labels[1]: 0.5}
    w = rng.uniform(0.5, 2.0, size=X.shape[0])
    model = LowRankRidgeClassifier(
        [Gaussian(gamma=0.3)],
        rank=25,
        method="nystrom",
        alpha=0.1,
        class_weight=class_weight,
        random_state=0,
    )
    model.fit(backend.asarray(X), y if labels[0] == "a" else backend.asarray(y), w)
    Z = to_numpy(model.features(backend.asarray(X)))
    reference = RidgeClassifier(alpha=0.1, class_weight=class_weight, solver="svd").fit(Z, y, w)
    T = rng.standard_normal((11, 3))
    Z_new = to_numpy(model.features(backend.asarray(T)))
    decision = to_numpy(model.decision_function(backend.asarray(T)))
    np.testing.assert_allclose(decision, reference.decision_function(Z_new), atol=1e-8)
    np.testing.assert_array_equal(
        to_numpy(model.predict(backend.asarray(T))), reference.predict(Z_new)
    )
    np.testing.assert_array_equal(np.asarray(to_numpy(model.classes_)), reference.classes_)


def test_ridge_classifier_cv_chooses_alpha_as_sklearns_leave_one_out(rng):
    """Exact leave-one-out on the ±1 targets of every class chooses the α that scikit-learn's
    RidgeClassifierCV (its GCV mode, the same criterion) chooses on the same features."""
    from sklearn.linear_model import RidgeClassifierCV

    from lrkl import LowRankRidgeClassifierCV

    X, y = _classes(rng, n=120)
    model = LowRankRidgeClassifierCV(
        [Gaussian(gamma=0.3)], rank=30, method="nystrom", n_alphas=12, random_state=0
    ).fit(X, y)
    Z = model.features(X)
    reference = RidgeClassifierCV(alphas=model.alphas_).fit(Z, y)
    assert model.alpha_ == pytest.approx(reference.alpha_)
    np.testing.assert_allclose(
        model.decision_function(X[:9]), reference.decision_function(Z[:9]), atol=1e-7
    )


@pytest.mark.filterwarnings("ignore:.*chose alpha:UserWarning")  # the folds are the point
def test_ridge_classifier_cv_stratifies_its_folds_and_refuses_bad_weights(rng):
    from sklearn.model_selection import StratifiedKFold

    from lrkl import LowRankRidgeClassifier, LowRankRidgeClassifierCV

    X, y = _classes(rng, n=60, labels=("a", "b"))
    y = y.astype("<U4")
    y[:6] = "rare"  # 6 of 60: every stratified fold of 3 holds two
    params = {"rank": 10, "n_alphas": 4, "random_state": 0}
    model = LowRankRidgeClassifierCV([Gaussian(gamma=0.3)], cv=3, **params).fit(X, y)
    explicit = LowRankRidgeClassifierCV([Gaussian(gamma=0.3)], cv=StratifiedKFold(3), **params).fit(
        X, y
    )
    assert model.mse_path_ == explicit.mse_path_
    with pytest.raises(ValueError, match="sample_weight times class_weight"):
        LowRankRidgeClassifier(class_weight={"a": 0.0, "b": 0.0, "rare": 0.0}).fit(X, y)


# --------------------------------------------------------------------------- width search


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_width_search_is_leave_one_out_over_every_width_and_alpha(seed):
    """Each width's leave-one-out errors are scikit-learn's RidgeCV's on that width's features;
    the width is the one nearest γ₀ whose best error is within one standard error (over the
    rows' errors) of the best of all, and the model is the fit at that γ alone."""
    from sklearn.linear_model import RidgeCV

    from lrkl import LowRankRidgeCV
    from lrkl.lowrank import LowRankFeatures

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((150, 3))
    y = np.sin(2.0 * X[:, 0]) + X[:, 1] ** 2 + 0.3 * rng.standard_normal(150)
    params = dict(rank=40, method="nystrom", n_alphas=8, random_state=0)
    model = LowRankRidgeCV(["rbf"], **params).fit(X, y)
    search = model.width_search_
    factors = np.array([0.25, 0.5, 1, 2, 4])
    np.testing.assert_allclose(search["gamma"], factors / (3 * X.var()))
    bests = []
    for gamma, alphas, mse in zip(search["gamma"], search["alphas"], search["mse"], strict=True):
        Z = LowRankFeatures([Gaussian(gamma=gamma)], 40, "nystrom", random_state=0).fit_transform(X)
        errors = RidgeCV(alphas=alphas, store_cv_results=True).fit(Z, y).cv_results_
        np.testing.assert_allclose(mse, errors.mean(axis=0), rtol=1e-7)
        best = int(np.argmin(errors.mean(axis=0)))
        bests.append((errors[:, best].mean(), errors[:, best].std() / np.sqrt(150)))
    top = min(range(5), key=lambda i: bests[i][0])
    near = [i for i in range(5) if bests[i][0] <= bests[top][0] + bests[top][1]]
    chosen = min(near, key=lambda i: (abs(np.log(factors[i])), factors[i]))
    assert model.kernels_[0].gamma == pytest.approx(search["gamma"][chosen])
    alone = LowRankRidgeCV([Gaussian(gamma=search["gamma"][chosen])], **params).fit(X, y)
    assert alone.width_search_ is None
    assert model.alpha_ == alone.alpha_
    T = rng.standard_normal((9, 3))
    np.testing.assert_allclose(model.predict(T), alone.predict(T), rtol=1e-10, atol=1e-12)


def test_width_search_applies_to_one_scale_kernel_only(rng):
    from lrkl import LowRankRidgeClassifierCV, LowRankRidgeCV

    X = rng.standard_normal((60, 2))
    y = X[:, 0] + 0.1 * rng.standard_normal(60)
    for given in ([Gaussian(gamma=0.3)], [Linear()], ["rbf", "linear"]):
        assert LowRankRidgeCV(given, rank=10).fit(X, y).width_search_ is None
    default = LowRankRidgeCV(rank=10).fit(X, y)  # None: one Gaussian of the data's width
    assert len(default.width_search_["gamma"]) == 5
    off = LowRankRidgeCV(["rbf"], rank=10, gamma_factors=None).fit(X, y)
    assert off.width_search_ is None
    assert off.kernels_[0].gamma == pytest.approx(1.0 / (2 * X.var()))
    labels = np.where(y > 0, "pos", "neg")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the clipped rank warns once, not once per width
        with pytest.warns(UserWarning, match="rank=80 exceeds n_samples=60") as caught:
            clf = LowRankRidgeClassifierCV(["laplacian"], 80, gamma_factors=[0.5, 2.0])
            clf.fit(X, labels)
    assert len(caught) == 1
    assert len(clf.width_search_["gamma"]) == 2
    with pytest.raises(ValueError, match="gamma_factors must be a finite number > 0"):
        LowRankRidgeCV(["rbf"], rank=10, gamma_factors=[1.0, -2.0]).fit(X, y)


@pytest.mark.filterwarnings("ignore:.*chose alpha:UserWarning")  # the widths are the point
def test_width_search_holds_one_width_and_computes_a_dropped_choice_again(monkeypatch, rng):
    """The search keeps the features of its choice so far only; when the final choice is a
    width it dropped (a later width's lower error moved the one-standard-error bound), that
    width is computed again, and the model is its fit."""
    from lrkl import LowRankRidgeCV
    from lrkl.kernel_ridge import _low_rank_model

    errors = {}
    calls = []
    original = _low_rank_model._LowRankRidgeModel._path

    def fake_path(self, kernels, *args, **kwargs):  # the real fit, with these widths' errors
        real = original(self, kernels, *args, **kwargs)
        factor = round(kernels[0].gamma / gamma0, 6)
        calls.append(factor)
        mean, half = errors[factor]  # two units (rows), mean ± half: paired spreads below
        units = np.array([mean + half, mean - half])
        return real._replace(mean=(mean,) * len(real.alphas), units=units, unit_weights=None)

    X = rng.standard_normal((60, 2))
    y = X[:, 0] + 0.1 * rng.standard_normal(60)
    T = rng.standard_normal((7, 2))
    gamma0 = 1.0 / (2 * X.var())
    monkeypatch.setattr(_low_rank_model._LowRankRidgeModel, "_path", fake_path)
    model = LowRankRidgeCV(
        ["rbf"], rank=10, n_alphas=3, gamma_factors=(0.5, 1.0, 4.0), random_state=0
    )
    # The paired standard error of two units' differences (d ± e) is e/√2, here
    # |h_i − h_top|/√2. γ₀ replaces 0.5γ₀ as the choice (0.548 − 0.54 ≤ 0.02/√2), then 4γ₀'s
    # 0.50 puts γ₀ out of the bound (0.048 > 0.04/√2) and leaves 0.5γ₀ (0.04 ≤ 0.06/√2),
    # dropped, as the width nearest γ₀ within it
    errors.update({0.5: (0.54, 0.06), 1.0: (0.548, 0.04), 4.0: (0.50, 0.0)})
    model.fit(X, y)
    assert calls == [0.5, 1.0, 4.0, 0.5]
    assert model.kernels_[0].gamma == pytest.approx(0.5 * gamma0)
    monkeypatch.setattr(_low_rank_model._LowRankRidgeModel, "_path", original)
    alone = LowRankRidgeCV([Gaussian(gamma=0.5 * gamma0)], rank=10, n_alphas=3, random_state=0).fit(
        X, y
    )
    np.testing.assert_allclose(model.predict(T), alone.predict(T), rtol=1e-12, atol=1e-12)
    monkeypatch.setattr(_low_rank_model._LowRankRidgeModel, "_path", fake_path)
    calls.clear()
    errors[1.0] = (0.544, 0.07)  # γ₀ stays within the bound (0.044 ≤ 0.07/√2): held
    model.fit(X, y)
    assert calls == [0.5, 1.0, 4.0]
    assert model.kernels_[0].gamma == pytest.approx(gamma0)


@pytest.mark.parametrize("weighted", [False, True])
def test_leave_one_out_errors_per_row_are_those_of_refits_without_the_row(rng, weighted):
    """The rows' errors behind the width rule's paired comparison, and their weighted mean:
    each row's squared error from a refit without it (scikit-learn's Ridge)."""
    from sklearn.linear_model import Ridge

    from lrkl.kernel_ridge._solvers import _make_solver, _primal_loo_errors, _primal_problem

    Z, y = rng.standard_normal((30, 4)), rng.standard_normal(30)
    w = rng.uniform(0.2, 3.0, 30) if weighted else None
    if weighted:
        w[3] = 0.0  # a row of weight 0: its error is not asked for, and counts 0 in the mean
    problem = _primal_problem(Z, y, fit_intercept=True, xp=np, sample_weight=w)
    solver = _make_solver(problem.gram, "eigh", xp=np)
    args = (Z, y, problem, solver, [0.1, 3.0])
    means = _primal_loo_errors(*args, fit_intercept=True, xp=np, sample_weight=w)
    rows = _primal_loo_errors(*args, fit_intercept=True, xp=np, sample_weight=w, per_row=True)
    assert rows.shape == (30, 2)
    W = np.ones(30) if w is None else w
    for j, (alpha, mean) in enumerate(zip([0.1, 3.0], means, strict=True)):
        e = np.array(
            [
                (
                    Ridge(alpha=alpha)
                    .fit(np.delete(Z, i, 0), np.delete(y, i), np.delete(W, i))
                    .predict(Z[i : i + 1])[0]
                    - y[i]
                )
                ** 2
                for i in range(30)
            ]
        )
        np.testing.assert_allclose(mean, np.sum(W * e) / np.sum(W), rtol=1e-10)
        positive = W > 0
        np.testing.assert_allclose(rows[positive, j], e[positive], rtol=1e-9)


def test_width_rule_compares_the_widths_errors_row_by_row():
    """Two widths whose errors rise and fall together over the rows: the spread of either
    alone (the unpaired rule's yardstick) covers their difference, the rows all agree on it."""
    from types import SimpleNamespace

    from lrkl.kernel_ridge._width_search import chosen_width

    noise = np.random.default_rng(0).exponential(size=200)  # heavy rows, shared by both widths
    wide = noise  # γ₀/4: lower error on every row, by 0.05
    scale = noise + 0.05  # γ₀
    unpaired = noise.std() / np.sqrt(200)
    assert unpaired > 0.05  # the unpaired rule would keep γ₀

    def path(units):
        return SimpleNamespace(mean=(float(units.mean()),), units=units, unit_weights=None)

    assert chosen_width([path(wide), path(scale)], (0.25, 1.0)) == 0
    # with errors that disagree row by row (the same means), γ₀ stays
    shuffled = np.random.default_rng(1).permutation(noise) + 0.05
    assert chosen_width([path(wide), path(shuffled)], (0.25, 1.0)) == 1
    # weights: rows of weight 0 do not count; here they hold the whole difference
    weights = np.r_[np.ones(100), np.zeros(100)]
    both = np.r_[noise[:100], noise[100:] + 1.0]

    def weighted(units):
        mean = float(weights @ units / weights.sum())
        return SimpleNamespace(mean=(mean,), units=units, unit_weights=weights)

    assert chosen_width([weighted(noise), weighted(both)], (0.25, 1.0)) == 1


def test_class_weights_and_width_factors_are_checked_by_name(rng):
    from lrkl import LowRankRidgeClassifier, LowRankRidgeClassifierCV, LowRankRidgeCV

    X = rng.standard_normal((40, 2))
    labels = np.where(X[:, 0] > 0, "a", "b")
    for weights in ({"a": np.nan, "b": 1.0}, {"a": -1.0, "b": 1.0}, {"a": np.inf, "b": 1.0}):
        for cls in (LowRankRidgeClassifier, LowRankRidgeClassifierCV):
            model = cls(["rbf"], rank=5, class_weight=weights)
            with pytest.raises(ValueError, match="class_weight must give every class a finite"):
                model.fit(X, labels)
            assert not hasattr(model, "coef_")
    with pytest.raises(ValueError, match="gamma_factors must be a finite number > 0"):
        LowRankRidgeCV([Gaussian(gamma=1.0)], rank=5, gamma_factors=(-1.0,)).fit(X, X[:, 1])
    one = LowRankRidgeCV(["rbf"], rank=5, gamma_factors=(2.0,)).fit(X, X[:, 1])
    assert one.width_search_["gamma"] == (pytest.approx(2.0 / (2 * X.var())),)


# --------------------------------------------------------------------------- the family's defaults


@pytest.mark.filterwarnings("ignore:.*chose alpha:UserWarning")
def test_low_rank_ridge_defaults_are_one_gaussian_on_nystrom_centres(rng):
    """kernels=None: one Gaussian of the data's width; method: Nyström on uniform landmarks;
    rank=None: min(n, 1000) centres. With n ≤ 1000 every row is a centre, so the default
    LowRankRidge is exact kernel ridge regression with an unpenalised intercept (the Nyström
    features of all rows span K): compared with lrkl's KernelRidge on the same kernel."""
    from lrkl import LowRankRidge, LowRankRidgeClassifierCV, LowRankRidgeCV

    X = rng.standard_normal((80, 3))
    y = np.sin(X[:, 0]) + X[:, 1] + 0.1 * rng.standard_normal(80)
    T = rng.standard_normal((9, 3))
    model = LowRankRidge(alpha=0.3).fit(X, y)
    assert model.rank_ == (80,)
    assert model.factors_[0].method == "nystrom"
    (kernel,) = model.kernels_
    assert isinstance(kernel, Gaussian)
    assert kernel.gamma == pytest.approx(1.0 / (3 * X.var()))
    exact = KernelRidge(Gaussian(gamma=kernel.gamma), alpha=0.3).fit(X, y)
    np.testing.assert_allclose(model.predict(T), exact.predict(T), rtol=1e-6, atol=1e-8)
    search = LowRankRidgeCV().fit(X, y)
    assert search.width_search_ is not None and search.rank_ == (80,)
    labels = np.where(y > 0, "pos", "neg")
    assert LowRankRidgeClassifierCV().fit(X, labels).width_search_ is not None


def test_low_rank_ridge_memory_budget_cuts_the_default_rank_and_refuses_a_given_one(
    monkeypatch, rng
):
    """memory_budget bounds the n × sum(rank) features (float64 here, two widths during the
    search): the default min(n, 1000) is cut to what fits; a given rank beyond it is a
    MemoryError before any kernel value is computed; None is half of the device's memory."""
    from lrkl import LowRankRidge, LowRankRidgeCV
    from lrkl.kernel_ridge import _budget

    X = rng.standard_normal((50, 2))
    y = X[:, 0] + 0.1 * rng.standard_normal(50)
    assert LowRankRidge(memory_budget=50 * 8 * 20).fit(X, y).rank_ == (20,)
    search = LowRankRidgeCV(memory_budget=50 * 8 * 20, n_alphas=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a choice on an end of the grid
        assert search.fit(X, y).rank_ == (10,)  # two widths' features at once
    evaluated = []
    monkeypatch.setattr(Gaussian, "_evaluate", lambda *a, **k: evaluated.append(1))
    with pytest.raises(
        MemoryError, match=r"50 rows × 40 values of 8 bytes\), beyond memory_budget=8000"
    ):
        LowRankRidge(rank=40, memory_budget=8000).fit(X, y)
    with pytest.raises(MemoryError, match=r"50 rows × 1 values .*times 2 feature maps held"):
        LowRankRidgeCV(memory_budget=100).fit(X, y)
    assert evaluated == []
    monkeypatch.undo()
    monkeypatch.setattr(_budget, "device_memory", lambda X: 2 * 50 * 8 * 30)
    assert LowRankRidge().fit(X, y).rank_ == (30,)  # half of the device: 30 columns
    with pytest.raises(ValueError, match="memory_budget"):
        LowRankRidge(memory_budget=0).fit(X, y)


@pytest.mark.filterwarnings("ignore:.*chose alpha:UserWarning")
@pytest.mark.parametrize("cv", [None, 3, "list", "generator"])
def test_width_search_on_many_rows_compares_the_widths_on_a_subsample(monkeypatch, rng, cv):
    """Beyond WIDTH_SEARCH_ROWS rows the widths' errors are those of a fit on a uniform
    subsample (the landmarks' seed), on the folds of all the rows restricted to it, and the
    model is the fit at the chosen width on all the rows on those folds: each against the same
    fits made by hand. Folds given as a list or a generator name all the rows too."""
    from lrkl import LowRankRidgeCV
    from lrkl.kernel_ridge import _low_rank_model

    monkeypatch.setattr(_low_rank_model, "WIDTH_SEARCH_ROWS", 50)
    X = rng.standard_normal((120, 2))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(120)
    folds = None if cv is None else [(train, test) for train, test in KFold(3).split(X)]
    given = {"list": folds, "generator": iter(folds or []), 3: 3, None: None}[cv]
    params = {"rank": 20, "n_alphas": 6, "random_state": 3}
    model = LowRankRidgeCV(["rbf"], cv=given, **params).fit(X, y)
    search = model.width_search_
    assert search["rows"] == 50
    rows = np.sort(np.random.RandomState(3).permutation(120)[:50])
    position = {int(r): i for i, r in enumerate(rows)}  # the folds on the subsample, by hand
    restricted = None
    if folds is not None:
        restricted = [
            tuple(np.array([position[i] for i in part if i in position]) for part in fold)
            for fold in folds
        ]
    for gamma, mse in zip(search["gamma"], search["mse"], strict=True):
        alone = LowRankRidgeCV([Gaussian(gamma=gamma)], cv=restricted, **params)
        alone.fit(X[rows], y[rows])
        np.testing.assert_allclose(mse, np.mean(alone.mse_path_, axis=1), rtol=1e-10)
    final = LowRankRidgeCV([Gaussian(gamma=model.kernels_[0].gamma)], cv=folds, **params)
    final.fit(X, y)
    assert model.alpha_ == final.alpha_
    np.testing.assert_allclose(model.predict(X[:9]), final.predict(X[:9]), rtol=1e-10)


@pytest.mark.filterwarnings("ignore:.*chose alpha:UserWarning")
def test_width_search_subsample_respects_weights_and_folds(monkeypatch, rng):
    """The subsample is drawn among rows of positive weight; folds that would lose their
    training or test rows in it make the search compare the widths on every row (the model is
    then the search on every row); a fold whose test rows all weigh 0 is refused by name."""
    from lrkl import LowRankRidgeCV
    from lrkl.kernel_ridge import _low_rank_model

    X = rng.standard_normal((120, 2))
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(120)
    params = {"rank": 20, "n_alphas": 6, "random_state": 3}
    monkeypatch.setattr(_low_rank_model, "WIDTH_SEARCH_ROWS", 50)
    w = np.zeros(120)
    w[np.random.RandomState(3).permutation(120)[60:]] = 1.0  # none among the first 50 drawn
    model = LowRankRidgeCV(["rbf"], **params).fit(X, y, sample_weight=w)
    assert model.width_search_["rows"] == 50 and np.all(np.isfinite(model.predict(X)))
    one_out = [(np.arange(1, 120), np.array([0])), (np.arange(119), np.array([119]))]
    model = LowRankRidgeCV(["rbf"], cv=one_out, **params).fit(X, y)
    assert model.width_search_["rows"] == 120
    monkeypatch.setattr(_low_rank_model, "WIDTH_SEARCH_ROWS", 1000)
    every = LowRankRidgeCV(["rbf"], cv=one_out, **params).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), every.predict(X))
    w = np.ones(120)
    w[:40] = 0.0
    with pytest.raises(ValueError, match="sample_weight must give each cv fold's test rows"):
        LowRankRidgeCV(["rbf"], cv=KFold(3), **params).fit(X, y, sample_weight=w)


def test_cv_refusals_name_the_argument(rng):
    """Folds that cannot validate, and weights whose scale takes the α grid out of float64,
    are refused by name (each was a foreign error or a silently wrong choice of α)."""
    from sklearn.model_selection import KFold

    from lrkl import LowRankRidge, LowRankRidgeClassifierCV, LowRankRidgeCV

    X = rng.standard_normal((60, 2))
    y = X[:, 0] + 0.1 * rng.standard_normal(60)
    w = np.where(np.arange(60) < 30, 0.0, 1.0)
    folds = [(np.arange(30), np.arange(30, 60)), (np.arange(15, 60), np.arange(45))]
    with pytest.raises(ValueError, match="cv fold's training rows a positive total weight"):
        LowRankRidgeCV(rank=10, cv=folds).fit(X, y, sample_weight=w)
    for model in (LowRankRidgeCV(rank=10, cv=[]), LowRankRidgeClassifierCV(rank=10, cv=[])):
        with pytest.raises(ValueError, match="cv must give at least one"):
            model.fit(X, y > 0 if isinstance(model, LowRankRidgeClassifierCV) else y)
    once = LowRankRidgeCV(rank=10, cv=KFold(3).split(X)).fit(X, y)  # a generator, read once
    with pytest.raises(ValueError, match="cv must give at least one"):
        once.fit(X, y)
    for scale in (2.0**-1070, 1e308):
        with pytest.raises(ValueError, match=r"sample_weight's scale .* out of the float64"):
            LowRankRidgeCV(rank=10, cv=3).fit(X, y, sample_weight=np.full(60, scale))
    with pytest.raises(TypeError, match="memory_budget must be a number of bytes"):
        LowRankRidge(memory_budget=True).fit(X, y)

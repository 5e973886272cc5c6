"""Prato & Zanni's RLS (7)/(8), Tikhonov and CGLS against dense solves of their own systems."""

from __future__ import annotations

import numpy as np
import pytest

from lrkl._backend import to_numpy
from lrkl.kernel_ridge._regularization import (
    kernel_operator,
    rls_path,
    rls_problem,
    solve_cgls,
    solve_rls,
    solve_tikhonov,
    tikhonov_path,
    tikhonov_problem,
    tikhonov_problem_from_factor,
)
from lrkl.kernels import Gaussian, Linear

from ._reference import gaussian_kernel, kernel_ridge

ALPHAS = (1e-3, 0.1, 10.0)


@pytest.fixture
def data(rng):
    X = rng.standard_normal((30, 3))
    y = np.sin(X[:, 0]) + X[:, 1] + 0.1 * rng.standard_normal(30)
    return X, y


def _tilde(K):
    return np.hstack([K, np.ones((K.shape[0], 1))])


@pytest.mark.parametrize("bias", ["unpenalized", "penalized", None])
def test_rls_path_matches_dense_solves(backend, data, bias):
    X, y = data
    K = gaussian_kernel(X, X, 0.5)
    problem = rls_problem(backend.asarray(K), bias, xp=backend.xp)
    n = len(y)
    for alpha in ALPHAS:  # one eigendecomposition, every α
        coef, intercept = solve_rls(problem, backend.asarray(y), alpha)
        if bias == "penalized":  # system (8): (K + 11ᵀ + αI) c = y, b = 1ᵀc
            expected_c = np.linalg.solve(K + np.ones((n, n)) + alpha * np.eye(n), y)
            expected_b = expected_c.sum()
        else:  # system (7), or no bias
            expected_c, expected_b = kernel_ridge(K, y, alpha, bias == "unpenalized")
        np.testing.assert_allclose(to_numpy(coef), expected_c, atol=1e-8)
        np.testing.assert_allclose(float(to_numpy(intercept)), expected_b, atol=1e-8)
        residual = y - K @ to_numpy(coef) - float(to_numpy(intercept))
        np.testing.assert_allclose(residual, alpha * to_numpy(coef), atol=1e-8)


@pytest.mark.parametrize("kernel", ["gaussian", "linear"])
def test_tikhonov_path_matches_the_normal_equations(backend, data, kernel):
    """(K̃ᵀK̃ + αI) c̃ = K̃ᵀy, also for the rank-deficient linear kernel (rank 3 of 30)."""
    X, y = data
    K = gaussian_kernel(X, X, 0.5) if kernel == "gaussian" else X @ X.T
    Kt = _tilde(K)
    problems = [tikhonov_problem(backend.asarray(K), xp=backend.xp)]
    if kernel == "linear":  # the same SVD from the factor G = X, without n × n
        problems.append(tikhonov_problem_from_factor(backend.asarray(X), xp=backend.xp))
        assert problems[1].s.shape == (4,)  # rank of [X Xᵀ 1]: d + 1
    for problem in problems:
        for alpha in ALPHAS:
            coef, intercept = solve_tikhonov(problem, backend.asarray(y), alpha)
            expected = np.linalg.solve(Kt.T @ Kt + alpha * np.eye(31), Kt.T @ y)
            np.testing.assert_allclose(to_numpy(coef), expected[:30], atol=1e-7)
            np.testing.assert_allclose(float(to_numpy(intercept)), expected[30], atol=1e-7)


def _dense_rls(K, y, alpha, bias):
    """(c, b) of system (7), (8) or no bias by a dense solve."""
    n = len(y)
    if bias == "penalized":
        c = np.linalg.solve(K + np.ones((n, n)) + alpha * np.eye(n), y)
        return c, c.sum()
    return kernel_ridge(K, y, alpha, bias == "unpenalized")


def _dense_tikhonov(Kt, y, alpha):
    """c̃ of the Tikhonov normal equations by a dense solve."""
    return np.linalg.solve(Kt.T @ Kt + alpha * np.eye(Kt.shape[1]), Kt.T @ y)


@pytest.mark.parametrize("bias", ["unpenalized", "penalized", None])
def test_rls_path_points_and_loo_match_independent_refits(backend, data, bias):
    """Every point of the path against a dense solve at its α, and the exact LOO errors against
    n refits, each without one point."""
    X, y = data
    K = gaussian_kernel(X, X, 0.5)
    problem = rls_problem(backend.asarray(K), bias, xp=backend.xp)
    path = rls_path(problem, backend.asarray(y), ALPHAS)
    n = len(y)
    for j, alpha in enumerate(ALPHAS):
        c, b = _dense_rls(K, y, alpha, bias)
        np.testing.assert_allclose(to_numpy(path.coef)[j], c, atol=1e-8)
        np.testing.assert_allclose(to_numpy(path.intercept)[j], b, atol=1e-8)
        errors = []
        for i in range(n):
            keep = np.arange(n) != i
            c, b = _dense_rls(K[np.ix_(keep, keep)], y[keep], alpha, bias)
            errors.append((y[i] - K[i, keep] @ c - b) ** 2)
        np.testing.assert_allclose(to_numpy(path.loo_mse)[j], np.mean(errors), rtol=1e-7)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("kernel", ["gaussian", "linear"])
def test_tikhonov_path_points_and_loo_match_independent_refits(backend, data, bias, kernel):
    """Leaving out a point of Tikhonov deletes its equation (row) of K̃ c̃ = y."""
    X, y = data
    K = gaussian_kernel(X, X, 0.5) if kernel == "gaussian" else X @ X.T
    Kt = _tilde(K) if bias else K
    if kernel == "linear":
        problem = tikhonov_problem_from_factor(backend.asarray(X), bias=bias, xp=backend.xp)
    else:
        problem = tikhonov_problem(backend.asarray(K), bias=bias, xp=backend.xp)
    path = tikhonov_path(problem, backend.asarray(y), ALPHAS)
    n = len(y)
    for j, alpha in enumerate(ALPHAS):
        expected = _dense_tikhonov(Kt, y, alpha)
        np.testing.assert_allclose(to_numpy(path.coef)[j], expected[:n], atol=1e-7)
        np.testing.assert_allclose(
            to_numpy(path.intercept)[j], expected[n] if bias else 0.0, atol=1e-7
        )
        errors = []
        for i in range(n):
            keep = np.arange(n) != i
            c_tilde = _dense_tikhonov(Kt[keep], y[keep], alpha)
            errors.append((y[i] - Kt[i] @ c_tilde) ** 2)
        np.testing.assert_allclose(to_numpy(path.loo_mse)[j], np.mean(errors), rtol=1e-6)


def test_cgls_without_bias_matches_dense_krylov(backend, data):
    X, y = data
    K = gaussian_kernel(X, X, 0.5)
    op = kernel_operator(backend.asarray(X), Gaussian(gamma=0.5), store=True, xp=backend.xp)
    path = solve_cgls(op, backend.asarray(y), 4, bias=False)
    for t in range(1, 5):
        expected = _dense_krylov_solution(K, y, t)
        np.testing.assert_allclose(to_numpy(path.coef)[t - 1], expected, rtol=1e-6, atol=1e-7)
    assert np.all(to_numpy(path.intercept) == 0)


def _dense_krylov_solution(Kt, y, t):
    """The minimiser of ‖y − K̃ c̃‖ over the Krylov space span{(K̃ᵀK̃)^j K̃ᵀy, j < t}: what the
    t-th CGLS iterate from 0 is in exact arithmetic."""
    A, b = Kt.T @ Kt, Kt.T @ y
    basis = [b / np.linalg.norm(b)]
    for _ in range(t - 1):
        v = A @ basis[-1]
        for q in basis:  # Gram–Schmidt, twice
            v -= (q @ v) * q
        for q in basis:
            v -= (q @ v) * q
        basis.append(v / np.linalg.norm(v))
    Q = np.stack(basis, axis=1)
    z = np.linalg.lstsq(Kt @ Q, y, rcond=None)[0]
    return Q @ z


def test_cgls_iterates_match_dense_krylov_solutions(backend, data):
    X, y = data
    K = gaussian_kernel(X, X, 0.5)
    path = solve_cgls(
        kernel_operator(backend.asarray(X), Gaussian(gamma=0.5), store=True, xp=backend.xp),
        backend.asarray(y),
        6,
    )
    coef, intercept = to_numpy(path.coef), to_numpy(path.intercept)
    for t in range(1, 7):
        expected = _dense_krylov_solution(_tilde(K), y, t)
        np.testing.assert_allclose(coef[t - 1], expected[:30], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(intercept[t - 1], expected[30], rtol=1e-6, atol=1e-7)
        residual = np.linalg.norm(y - K @ coef[t - 1] - intercept[t - 1])
        np.testing.assert_allclose(to_numpy(path.residual_norm)[t - 1], residual, rtol=1e-10)
    assert np.all(np.diff(to_numpy(path.residual_norm)) <= 1e-12)  # CGLS: ‖r‖ never grows


def test_cgls_past_n_plus_one_iterations_repeats_the_least_squares_solution(backend):
    # 6 rows, 7 unknowns (c, b): the least-squares (minimum-norm) solution by iteration 7, and
    # every later iterate is it; asking for 10⁹ iterates is refused before anything is allocated
    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((6, 2)), rng.standard_normal(6)
    operator = kernel_operator(backend.asarray(X), Linear(), store=True, xp=backend.xp)
    path = solve_cgls(operator, backend.asarray(y), 12)
    coef, intercept = to_numpy(path.coef), to_numpy(path.intercept)
    Kt = _tilde(X @ X.T)
    expected = np.linalg.lstsq(Kt, y, rcond=None)[0]
    fitted = Kt @ np.r_[coef[-1], intercept[-1]]
    np.testing.assert_allclose(fitted, Kt @ expected, atol=1e-8)
    np.testing.assert_array_equal(coef[7:], np.broadcast_to(coef[6], coef[7:].shape))
    with pytest.raises(MemoryError, match=r"n_iter = 1000000000000 iterates .* within 8 "):
        solve_cgls(operator, backend.asarray(y), 10**12)


def test_cg_estimators_run_at_most_n_plus_one_iterations():
    # max_iter = 10⁹ allocated 10⁹ iterates (KernelRidge: NumPy's MemoryError) and a grid of
    # 10⁹ values (KernelRidgeCV: the process was killed for memory)
    from lrkl import KernelRidge, KernelRidgeCV

    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.sin(X[:, 0]) + X[:, 1]
    model = KernelRidge(method="cg", max_iter=10**9).fit(X, y)
    assert model.n_iter_ == 41
    same = KernelRidge(method="cg", max_iter=41).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), same.predict(X))
    search = KernelRidgeCV(method="cg", max_iter=10**9).fit(X, y)
    assert search.n_iters_ == tuple(range(1, 42))


def test_cgls_on_the_fly_equals_stored(backend, data):
    X, y = data
    kernel = Gaussian(gamma=0.5)
    operators = [
        kernel_operator(backend.asarray(X), kernel, store=store, max_entries=64, xp=backend.xp)
        for store in (True, False)
    ]
    v = backend.asarray(y)
    np.testing.assert_allclose(
        to_numpy(operators[1].matvec(v)), to_numpy(operators[0].matvec(v)), rtol=1e-13
    )
    stored, on_the_fly = (to_numpy(solve_cgls(op, v, 8).coef) for op in operators)
    # The products differ in the last bits (above): late CGLS iterates on a Gaussian kernel,
    # whose K̃ᵀK̃ is nearly singular, amplify that rounding (to 1.5e-7 of the coefficients here).
    np.testing.assert_allclose(on_the_fly, stored, rtol=1e-5, atol=1e-6 * np.abs(stored).max())


def test_bad_input_raises():
    import array_api_compat.numpy as xp

    X = np.random.default_rng(0).normal(size=(10, 2))
    K = X @ X.T
    with pytest.raises(ValueError, match="bias must be one of"):
        rls_problem(K, "both", xp=xp)
    with pytest.raises(ValueError, match=r"alpha must be a finite number > 0, received 0\.0"):
        solve_rls(rls_problem(K, None, xp=xp), X[:, 0], 0.0)
    with pytest.raises(ValueError, match="alpha must be a finite number > 0"):
        solve_tikhonov(tikhonov_problem(K, xp=xp), X[:, 0], -1.0)
    with pytest.raises(ValueError, match=r"alphas must be a finite number > 0, received nan"):
        rls_path(rls_problem(K, None, xp=xp), X[:, 0], [1.0, float("nan")])
    with pytest.raises(ValueError, match="solver='eigh'"):
        rls_path(rls_problem(K, None, solver="cholesky", xp=xp), X[:, 0], [1.0])
    with pytest.raises(ValueError, match="n_iter must be an integer >= 1, received 0"):
        solve_cgls(kernel_operator(X, Linear(), store=True, xp=xp), X[:, 0], 0)

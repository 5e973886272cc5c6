"""SLKL: the algorithm against independent dense computations, on every backend."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.optimize
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_diabetes
from sklearn.exceptions import ConvergenceWarning

from lrkl import (
    KernelRidge,
    KernelRidgeSubset,
    SLKLClassifier,
    SLKLRegressor,
    SLKLRegressorCV,
    UniformRankOneRidge,
    slkl_path,
)
from lrkl._backend import device_of, get_namespace, to_numpy
from lrkl.kernels import Gaussian
from lrkl.slkl._coordinate import _CoordinateState
from lrkl.slkl._lasso import _RIDGE, _WorkingSet
from lrkl.slkl._problems import choose_mode, slkl_problem, slkl_problems
from lrkl.slkl._solver import solve_slkl

from ._reference import kernel_ridge

KERNEL = Gaussian(sigma2=1.0)
N, M, NU = 40, 15, 0.02


def _data(n=N, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3.0, 3.0, (n, 2))
    r = np.linalg.norm(X, axis=1)
    y = np.sinc(r / np.pi) + 0.1 * rng.standard_normal(n)
    return X, y


def _columns(X, S):
    """Dense reference: normalised candidate columns c_m = k(X, x_m)/√k(x_m, x_m), n × M."""
    d2 = ((X[:, None, :] - X[None, S, :]) ** 2).sum(-1)
    return np.exp(-d2 / 2.0)  # σ² = 1, k(x, x) = 1


def _dense_objective(C, y, mu, nu):
    K = np.eye(C.shape[0]) + (C * mu) @ C.T
    r = np.linalg.solve(K, y)
    return y @ r + nu * mu.sum(), nu - (C.T @ r) ** 2


@pytest.fixture(scope="module")
def reference():
    """F* of a small problem by scipy's L-BFGS-B with bounds μ ≥ 0 on the same F."""
    X, y = _data()
    S = list(range(0, 2 * M, 2))
    C = _columns(X, S)
    res = scipy.optimize.minimize(
        lambda mu: _dense_objective(C, y, mu, NU),
        np.zeros(M),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, None)] * M,
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 20000},
    )
    assert res.success
    return X, y, S, C, res.fun


# --------------------------------------------------------------------------- the algorithm


@pytest.mark.parametrize("mode", ["direct", "gram"])
@pytest.mark.parametrize("step", ["newton", "exact"])
@pytest.mark.parametrize("selection", ["random", "cyclic", "greedy"])
def test_objective_matches_lbfgsb(backend, reference, mode, step, selection):
    X, y, S, _, f_star = reference
    xp = backend.xp
    problem = slkl_problem(
        backend.asarray(X), backend.asarray(y), S, kernel=KERNEL, mode=mode, xp=xp
    )
    result = solve_slkl(problem, nu=NU, step=step, selection=selection, tol=1e-12, seed=3)
    assert result.converged
    assert abs(result.objective - f_star) <= 1e-6 * f_star
    assert get_namespace(result.weights) is get_namespace(backend.asarray(X))
    assert device_of(result.weights) == device_of(backend.asarray(np.zeros(1)))
    assert np.all(to_numpy(result.weights) >= 0)


def _dense_violation(C, y, mu, nu, fit_intercept=False):
    """The largest optimality violation of F at μ, in units of ν, computed densely."""
    if fit_intercept:
        C, y = C - C.mean(axis=0), y - y.mean()
    grad = _dense_objective(C, y, mu, nu)[1]
    return float(np.max(np.where(mu > 0, np.abs(grad), np.maximum(-grad, 0.0))) / nu)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize(
    ("mode", "columns"), [("gram", "auto"), ("direct", "precomputed"), ("direct", "on_the_fly")]
)
@pytest.mark.parametrize("selection", ["random", "greedy"])
def test_kkt_rule_stops_at_the_dense_violation(
    backend, reference, mode, columns, selection, fit_intercept
):
    """``stop="kkt"`` stops once the dense optimality violation is at most tol (and reports it),
    and its objective is then close to the L-BFGS-B optimum."""
    X, y, S, C, f_star = reference
    problem = slkl_problem(
        backend.asarray(X),
        backend.asarray(y),
        S,
        kernel=KERNEL,
        mode=mode,
        columns=columns,
        fit_intercept=fit_intercept,
        xp=backend.xp,
    )
    tol = 1e-6
    result = solve_slkl(problem, nu=NU, step="exact", selection=selection, stop="kkt", tol=tol)
    mu = to_numpy(result.weights)
    dense = _dense_violation(C, y, mu, NU, fit_intercept)
    assert result.converged
    assert result.kkt_violation == pytest.approx(dense, rel=1e-5, abs=1e-9)
    assert dense <= tol * (1 + 1e-6)
    if not fit_intercept:
        assert abs(result.objective - f_star) <= 1e-7 * f_star
    # A loose tolerance stops earlier, with a larger (still honest) violation.
    early = solve_slkl(problem, nu=NU, step="exact", selection=selection, stop="kkt", tol=0.3)
    assert early.n_iter < result.n_iter
    dense_early = _dense_violation(C, y, to_numpy(early.weights), NU, fit_intercept)
    assert early.kkt_violation == pytest.approx(dense_early, rel=1e-6) and dense_early <= 0.3


def test_one_pass_for_several_targets_equals_one_problem_each(backend, reference):
    X, y, S, _, _ = reference
    Y = np.stack([y, -2.0 * y + 1.0, np.sign(y)], axis=1)
    xp = backend.xp
    for mode in ("gram", "direct"):
        together = slkl_problems(
            backend.asarray(X), backend.asarray(Y), S, kernel=KERNEL, mode=mode,
            fit_intercept=True, xp=xp,
        )  # fmt: skip
        for j, problem in enumerate(together):
            alone = slkl_problem(
                backend.asarray(X), backend.asarray(Y[:, j]), S, kernel=KERNEL, mode=mode,
                fit_intercept=True, xp=xp,
            )  # fmt: skip
            np.testing.assert_allclose(problem.b, alone.b, rtol=1e-12, atol=1e-12)
            assert problem.yy == pytest.approx(alone.yy, rel=1e-12)
            assert problem.y_mean == pytest.approx(alone.y_mean, rel=1e-12)
            if mode == "gram":
                np.testing.assert_allclose(problem.B, alone.B, rtol=1e-12, atol=1e-12)


def test_objective_value_is_the_dense_f(backend, reference):
    """The F the solver reports is eq. (14) evaluated densely at its μ."""
    X, y, S, C, _ = reference
    problem = slkl_problem(backend.asarray(X), backend.asarray(y), S, kernel=KERNEL, xp=backend.xp)
    result = solve_slkl(problem, nu=NU, selection="random", max_iter=7 * M, tol=0.0, seed=1)
    mu = to_numpy(result.weights)
    assert result.objective == pytest.approx(_dense_objective(C, y, mu, NU)[0], rel=1e-10)
    assert result.support == tuple(np.flatnonzero(mu > 0))


@pytest.mark.parametrize("selection", ["random", "cyclic"])
@pytest.mark.parametrize("step", ["newton", "exact", "paper"])
@pytest.mark.parametrize("columns", ["precomputed", "on_the_fly"])
def test_direct_and_gram_give_the_same_iterates(backend, reference, selection, step, columns):
    X, y, S, _, _ = reference
    xp = backend.xp
    Xb, yb = backend.asarray(X), backend.asarray(y)
    runs = {}
    for mode in ("direct", "gram"):
        problem = slkl_problem(Xb, yb, S, kernel=KERNEL, mode=mode, columns=columns, xp=xp)
        seen = []
        result = solve_slkl(
            problem,
            nu=NU,
            step=step,
            selection=selection,
            seed=11,
            max_iter=20 * M,
            tol=0.0,
            check_every=1,
            callback=lambda state, seen=seen: seen.append(state.weights),
        )
        assert result.mode == mode
        runs[mode] = np.array(seen)
    # With tol = 0 the two may stop one check apart, when F stalls at the rounding level.
    common = min(len(runs["direct"]), len(runs["gram"]))
    assert common > 5 * M
    np.testing.assert_allclose(
        runs["direct"][:common], runs["gram"][:common], rtol=1e-8, atol=1e-10
    )
    assert np.count_nonzero(runs["gram"][-1]) > 0


# --------------------------------------------------------------------------- the active-set solver


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize(
    ("mode", "columns"), [("gram", "auto"), ("direct", "precomputed"), ("direct", "on_the_fly")]
)
def test_active_set_reaches_the_lbfgsb_optimum(backend, reference, mode, columns, fit_intercept):
    """The active-set solver stops with the dense violation below tol, at the L-BFGS-B optimum,
    and its μ is the lasso's: μ = |w|/√ν with w = C_Sᵀ-weights that satisfy the lasso's own
    optimality conditions, checked densely."""
    X, y, S, C, f_star = reference
    problem = slkl_problem(
        backend.asarray(X), backend.asarray(y), S, kernel=KERNEL, mode=mode, columns=columns,
        fit_intercept=fit_intercept, xp=backend.xp,
    )  # fmt: skip
    tol = 1e-6
    result = solve_slkl(problem, nu=NU, solver="active_set", stop="kkt", tol=tol)
    mu = to_numpy(result.weights)
    dense = _dense_violation(C, y, mu, NU, fit_intercept)
    assert result.converged
    assert dense <= tol * (1 + 1e-6)
    assert result.kkt_violation == pytest.approx(dense, rel=1e-5, abs=1e-9)
    if not fit_intercept:
        assert abs(result.objective - f_star) <= 1e-7 * f_star
    # The lasso ‖y − C w‖² + 2√ν‖w‖₁ at w = dual coefficients (k(x, x) = 1 here).
    Cc, yc = (C - C.mean(axis=0), y - y.mean()) if fit_intercept else (C, y)
    w = np.zeros(len(S))
    w[list(result.support)] = to_numpy(result.dual_coef)
    np.testing.assert_allclose(mu, np.abs(w) / np.sqrt(NU), rtol=1e-8, atol=1e-12)
    correlation = Cc.T @ (yc - Cc @ w)
    on = w != 0
    np.testing.assert_allclose(correlation[on], np.sqrt(NU) * np.sign(w[on]), rtol=2 * tol)
    assert np.all(np.abs(correlation[~on]) <= np.sqrt(NU) * (1 + tol))
    lasso = np.sum((yc - Cc @ w) ** 2) + 2 * np.sqrt(NU) * np.abs(w).sum()
    assert result.objective == pytest.approx(lasso, rel=1e-9)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize(
    ("mode", "columns"), [("gram", "auto"), ("direct", "precomputed"), ("direct", "on_the_fly")]
)
def test_cross_rows_equal_the_dense_gram_rows(backend, reference, mode, columns, fit_intercept):
    X, y, S, C, _ = reference
    problem = slkl_problem(
        backend.asarray(X), backend.asarray(y), S, kernel=KERNEL, mode=mode, columns=columns,
        fit_intercept=fit_intercept, xp=backend.xp,
    )  # fmt: skip
    Cc = C - C.mean(axis=0) if fit_intercept else C
    rows = [7, 0, 14, 3]
    np.testing.assert_allclose(problem.cross_rows(rows), (Cc.T @ Cc)[rows], rtol=1e-10, atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(5, 40),
    n_candidates=st.integers(1, 25),
    duplicates=st.integers(0, 5),
    log_nu=st.floats(-6.0, 1.0),
)
def test_active_set_equals_coordinate_descent_on_random_problems(
    seed, n, n_candidates, duplicates, log_nu
):
    """On random problems, some with repeated candidates (identical columns, a singular B_WW),
    the active set and greedy exact coordinate descent reach the same F."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    y = rng.standard_normal(n) * 10.0 ** rng.uniform(-2, 2)
    S = list(rng.integers(0, n, min(n_candidates, n)))
    S += S[:duplicates]
    problem = slkl_problem(X, y, S, kernel=KERNEL, mode="gram", xp=np)
    nu = 10.0**log_nu * max(1e-12, float(np.max(problem.b**2)))
    fast = solve_slkl(problem, nu=nu, solver="active_set", stop="kkt", tol=1e-7)
    slow = solve_slkl(problem, nu=nu, selection="greedy", step="exact", stop="kkt", tol=1e-7)
    assert fast.kkt_violation <= 1e-7 * (1 + 1e-6) or not slow.converged
    assert fast.objective <= slow.objective * (1 + 1e-7) + 1e-12


def test_a_violation_at_the_rounding_floor_stops_with_a_warning():
    """ν at 1e-13 of ν_max on raw targets of scale 1e4: the optimality violation cannot get
    below about 1e-2·ν in float64, so the fit gives up early, unconverged, and says why (the
    coordinate polish used to run its 1000·M steps for that)."""
    X, y = load_diabetes(return_X_y=True)
    with pytest.warns(ConvergenceWarning, match="F stalled with an optimality violation"):
        model = SLKLRegressor(nu=1e-6, random_state=0).fit(X[:120], 100 * y[:120])
    assert model.kkt_violation_ > model.tol
    assert model.n_iter_ < 20 * 120


def test_active_set_callback_stops_and_reports_the_lasso_objective(backend, reference):
    X, y, S, C, _ = reference
    problem = slkl_problem(backend.asarray(X), backend.asarray(y), S, kernel=KERNEL, xp=backend.xp)
    states = []
    first = solve_slkl(
        problem, nu=NU, solver="active_set", callback=lambda s: states.append(s) or True
    )
    assert len(states) == 2 and not first.converged  # the active set's report, the loop's start
    mu = states[0].weights
    assert states[0].objective >= _dense_objective(C, y, mu, NU)[0] * (1 - 1e-12)
    np.testing.assert_allclose(to_numpy(first.weights), mu)


@pytest.mark.parametrize("small", [1e-9, 3e-10])
def test_working_set_solve_reaches_the_unridged_solution(small):
    """The lasso's working-set systems are solved with ``(B_WW + ρI)⁻¹`` and refined against
    ``B_WW``; each step divides the error along an eigenvalue λ by (λ + ρ)/ρ, so where λ is near
    ρ two steps left percents of it (and the fit then followed the rounding of X)."""
    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    eigenvalues = np.array([1.0, 0.5, 0.2, 1e-3, 1e-6, small])
    B = (Q * eigenvalues) @ Q.T
    ws = _WorkingSet(8, _RIDGE)
    ws.add(list(range(6)), np.c_[B, np.zeros((6, 2))])  # rows B_{W,S} over 8 candidates
    target = rng.standard_normal(6)
    exact = Q @ ((Q.T @ target) / eigenvalues)  # B⁻¹ target from the eigenpairs
    np.testing.assert_allclose(ws.solve(target), exact, rtol=1e-5)


@pytest.mark.parametrize("mode", ["direct", "gram"])
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    moves=st.lists(
        st.tuples(st.integers(0, M - 1), st.sampled_from([0.0, 0.0, 0.05, 0.7, 3.0, 20.0])),
        min_size=50,
        max_size=250,
    )
)
def test_updated_G_equals_a_fresh_inverse(backend, reference, mode, moves):
    """After long sequences of the four cases (24)–(27), G = (D⁻¹ + C_AᵀC_A)⁻¹, no refresh."""
    X, y, S, C, _ = reference
    xp = backend.xp
    problem = slkl_problem(
        backend.asarray(X), backend.asarray(y), S, kernel=KERNEL, mode=mode, xp=xp
    )
    state = _CoordinateState(problem, greedy=False, capacity=2)  # small: growth is exercised too
    # A prefix that visits every case, then the drawn sequence.
    prefix = [(0, 0.0), (0, 0.5), (0, 2.0), (1, 0.3), (2, 0.1), (0, 0.0), (2, 0.0)]
    cases = []
    for m, value in prefix + moves:
        k = state.m0
        w = problem.products(m, int(state.slot[m]), state.act, k)
        u = state.G[:k, :k] @ w
        q = float(problem.diag_B[m] - w @ u)
        cases.append(state.set_weight(m, value, w, u, q))
    assert set(cases) == {1, 2, 3, 4}
    mu = to_numpy(state.mu)
    active = np.flatnonzero(mu > 0)
    k = state.m0
    assert sorted(state.act[:k].tolist()) == active.tolist()
    order = np.asarray(state.act[:k])
    fresh = np.linalg.inv(np.diag(1.0 / mu[order]) + C[:, order].T @ C[:, order])
    np.testing.assert_allclose(state.G[:k, :k], fresh, rtol=1e-7, atol=1e-9)
    if mode == "direct" and k:
        np.testing.assert_allclose(to_numpy(problem.active[:k, :]), C[:, order].T, atol=1e-12)


def test_paper_step_is_twice_the_newton_step(backend, reference):
    """Algorithm 2 as printed drops the factor 2 of Proposition 2's second derivative."""
    X, y, S, C, _ = reference
    xp = backend.xp
    problem = slkl_problem(backend.asarray(X), backend.asarray(y), S, kernel=KERNEL, xp=xp)
    first = {}
    for step in ("newton", "paper"):
        result = solve_slkl(problem, nu=NU, step=step, selection="greedy", max_iter=1)
        first[step] = to_numpy(result.weights)
    m = int(np.argmax(first["newton"]))
    a, q = C[:, m] @ y, C[:, m] @ C[:, m]
    assert first["newton"][m] == pytest.approx((a * a - NU) / (2 * a * a * q), rel=1e-10)
    assert first["paper"][m] == pytest.approx(2 * first["newton"][m], rel=1e-10)


def test_exact_step_minimises_along_the_coordinate(reference):
    X, y, S, C, _ = reference
    import array_api_compat.numpy as xp

    problem = slkl_problem(X, y, S, kernel=KERNEL, xp=xp)
    result = solve_slkl(problem, nu=NU, step="exact", selection="greedy", max_iter=1)
    mu = to_numpy(result.weights)
    m = int(np.argmax(mu))
    f = [_dense_objective(C, y, mu + t * np.eye(M)[m], NU)[0] for t in (-1e-4, 0.0, 1e-4)]
    assert f[1] <= min(f[0], f[2])


def test_warm_start_callback_and_stop(backend, reference):
    X, y, S, _, f_star = reference
    xp = backend.xp
    problem = slkl_problem(backend.asarray(X), backend.asarray(y), S, kernel=KERNEL, xp=xp)
    cold = solve_slkl(problem, nu=NU, selection="cyclic", tol=1e-12, seed=0)
    warm = solve_slkl(
        problem, nu=NU, selection="cyclic", tol=1e-12, seed=0, mu0=to_numpy(cold.weights)
    )
    assert warm.n_iter <= 2 * M < cold.n_iter
    assert warm.objective == pytest.approx(f_star, rel=1e-6)
    states = []
    stopped = solve_slkl(problem, nu=NU, callback=lambda s: states.append(s) or len(states) == 2)
    assert [s.iteration for s in states] == [0, M]
    assert stopped.n_iter == M and not stopped.converged
    assert states[1].objective < states[0].objective == pytest.approx(y @ y)
    assert states[1].n_active == np.count_nonzero(states[1].weights)


def test_choose_mode_follows_the_memory_budget():
    assert choose_mode(10**6, 1000) == "gram"
    assert choose_mode(10**6, 10**5, memory_budget=2**30) == "direct"


# --------------------------------------------------------------------------- estimators


def _dense_predict(X_train, y, S, mu, X_test, fit_intercept=False):
    """f(x) = Σ_m μ_m (c_mᵀ c) k(x_m, x) / √k(x_m, x_m) + b, where (I + C D Cᵀ) c + b 1 = y
    (with 1ᵀc = 0 and an unpenalised b when fitting an intercept), all formed densely."""
    C = _columns(X_train, S)
    alpha, bias = kernel_ridge((C * mu) @ C.T, y, 1.0, fit_intercept)
    K_test = np.exp(-((X_test[:, None, :] - X_train[None, S, :]) ** 2).sum(-1) / 2.0)
    return K_test @ (mu * (C.T @ alpha)) + bias


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_predictions_equal_the_dense_formula(backend, fit_intercept):
    X, y = _data(60)
    X_test, _ = _data(25, seed=1)
    model = SLKLRegressor(
        kernel=KERNEL, n_columns=20, nu=NU, random_state=0, fit_intercept=fit_intercept
    )
    pred = model.fit(backend.asarray(X), backend.asarray(y)).predict(backend.asarray(X_test))
    assert get_namespace(pred) is get_namespace(backend.asarray(X))
    assert device_of(pred) == device_of(backend.asarray(np.zeros(1)))
    S = to_numpy(model.candidates_)
    mu = to_numpy(model.kernel_weights_)
    expected = _dense_predict(X, y, S, mu, X_test, fit_intercept=fit_intercept)
    np.testing.assert_allclose(to_numpy(pred), expected, rtol=1e-8, atol=1e-10)
    support = to_numpy(model.support_)
    np.testing.assert_array_equal(support, np.flatnonzero(mu > 0))
    np.testing.assert_allclose(to_numpy(model.centers_), X[S[support]])
    assert model.objective_ == pytest.approx(model.objective_history_[-1])
    assert model.n_active_history_[-1] == support.size


def test_float32_stays_float32(backend):
    X, y = _data(50)
    xp = backend.xp
    model = SLKLRegressor(n_columns=10, random_state=0).fit(
        backend.asarray(X, xp.float32), backend.asarray(y, xp.float32)
    )
    assert model.kernel_weights_.dtype == xp.float32
    assert model.predict(backend.asarray(X, xp.float32)).dtype == xp.float32


def test_baselines_equal_dense_kernel_ridge(backend):
    X, y = _data(50)
    X_test, _ = _data(20, seed=2)
    Xb, yb, Tb = backend.asarray(X), backend.asarray(y), backend.asarray(X_test)

    def K(A, B):
        return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / 2.0)

    full = KernelRidge(kernel=KERNEL, fit_intercept=False).fit(Xb, yb).predict(Tb)
    np.testing.assert_allclose(
        to_numpy(full), K(X_test, X) @ np.linalg.solve(K(X, X) + np.eye(50), y), rtol=1e-8
    )
    subset = KernelRidgeSubset(KERNEL, 12, random_state=0, fit_intercept=False).fit(Xb, yb)
    S = to_numpy(subset.candidates_)
    ref = K(X_test, X[S]) @ np.linalg.solve(K(X[S], X[S]) + np.eye(12), y[S])
    np.testing.assert_allclose(to_numpy(subset.predict(Tb)), ref, rtol=1e-8)
    unif = UniformRankOneRidge(KERNEL, 12, 1 / 12, random_state=0, fit_intercept=False).fit(Xb, yb)
    S = to_numpy(unif.candidates_)
    ref = _dense_predict(X, y, S, np.full(12, 1.0 / 12), X_test)
    np.testing.assert_allclose(to_numpy(unif.predict(Tb)), ref, rtol=1e-8, atol=1e-12)


def test_path_matches_cold_solves_and_cv_picks_from_the_grid(backend):
    X, y = _data(60)
    Xb, yb = backend.asarray(X), backend.asarray(y)
    nus = [0.001, 0.1, 0.01]
    options = dict(kernel=KERNEL, n_columns=20, random_state=0, fit_intercept=False)
    path = slkl_path(Xb, yb, nus, tol=1e-10, **options)
    S = to_numpy(path.candidates)
    C = _columns(X, S)
    for nu, mu, objective in zip(nus, to_numpy(path.weights), path.objectives, strict=True):
        assert objective == pytest.approx(_dense_objective(C, y, mu, nu)[0], rel=1e-10)
        cold = SLKLRegressor(nu=nu, tol=1e-10, **options)
        cold.fit(Xb, yb)
        assert objective == pytest.approx(cold.objective_, rel=1e-6)
    assert path.n_active[1] <= path.n_active[2] <= path.n_active[0]
    with warnings.catch_warnings():  # an end of this small grid may win (tested elsewhere)
        warnings.filterwarnings("ignore", "SLKLRegressorCV chose nu", UserWarning)
        cv = SLKLRegressorCV(nus=nus, cv=3, **options).fit(Xb, yb)
    assert cv.nu_ in nus
    assert len(cv.mse_path_) == 3 and all(len(row) == 3 for row in cv.mse_path_)
    assert cv.nu_ == nus[int(np.argmin([np.mean(row) for row in cv.mse_path_]))]
    assert device_of(cv.predict(Xb)) == device_of(backend.asarray(np.zeros(1)))


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("params", "match"),
    [
        (
            {"n_columns": 0},
            "'n_columns' parameter of SLKLRegressor must be an int in the range "
            "\\[1, inf\\) or None. Got 0 instead",
        ),
        (
            {"nu": 0.0},
            "'nu' parameter of SLKLRegressor must be a float in the range \\(0.0, inf\\) or None. "
            "Got 0.0 instead",
        ),
        ({"nu": -1.0}, "'nu' parameter of SLKLRegressor must be a float in the range"),
        ({"nu": float("inf")}, "'nu' parameter of SLKLRegressor must be a float in the range"),
        ({"mode": "fast"}, "'mode' parameter of SLKLRegressor must be a str among"),
        ({"step": "big"}, "'step' parameter of SLKLRegressor must be a str among"),
        ({"selection": "best"}, "'selection' parameter of SLKLRegressor must be a str among"),
        ({"solver": "lars"}, "'solver' parameter of SLKLRegressor must be a str among"),
        (
            {"selection": "random", "step": "newton"},
            "selection='random' and step='newton' configure solver='coordinate' only; "
            "received solver='active_set'",
        ),
        (
            {"tol": -1.0},
            "'tol' parameter of SLKLRegressor must be a float in the range \\[0.0, inf\\)",
        ),
        ({"max_iter": 0}, "'max_iter' parameter of SLKLRegressor must be an int in the range"),
        (
            {"memory_budget": 0},
            "'memory_budget' parameter of SLKLRegressor must be an int in the range",
        ),
        (
            {"fit_intercept": "yes"},
            "'fit_intercept' parameter of SLKLRegressor must be an instance",
        ),
        ({"verbose": "loud"}, "'verbose' parameter of SLKLRegressor must be an int"),
        ({"callback": 5}, "'callback' parameter of SLKLRegressor must be a callable"),
    ],
)
def test_bad_parameters_raise(backend, params, match):
    X, y = _data(30)
    with pytest.raises(ValueError, match=match):
        SLKLRegressor(**params).fit(backend.asarray(X), backend.asarray(y))


def test_bad_data_raise(backend):
    X, y = _data(30)
    Xb, yb = backend.asarray(X), backend.asarray(y)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="X must contain only finite values"):
        SLKLRegressor().fit(backend.asarray(bad), yb)
    bad_y = y.copy()
    bad_y[0] = np.inf
    with pytest.raises(ValueError, match="y must contain only finite values"):
        SLKLRegressor().fit(Xb, backend.asarray(bad_y))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        SLKLRegressor().fit(Xb, backend.asarray(y[:-1]))
    with pytest.raises(ValueError, match="0 sample"):
        SLKLRegressor().fit(backend.asarray(X[:0]), backend.asarray(y[:0]))
    with pytest.raises(ValueError, match="at least 2 samples, received n_samples = 1"):
        SLKLRegressor().fit(backend.asarray(X[:1]), backend.asarray(y[:1]))
    with pytest.raises(ValueError, match="Expected 2D array"):
        SLKLRegressor().fit(backend.asarray(X[:, 0]), yb)
    model = SLKLRegressor(n_columns=5, random_state=0).fit(Xb, yb)
    with pytest.raises(ValueError, match="X has 3 features, but SLKLRegressor is expecting 2"):
        model.predict(backend.asarray(np.ones((4, 3))))
    with pytest.raises(ValueError, match="nus must be a finite number > 0"):
        slkl_path(Xb, yb, [0.1, -1.0])


# --------------------------------------------------------------------------- classification


def _digits():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return X[:600] / 16.0, y[:600], X[600:900] / 16.0, y[600:900]


def test_classifier_is_one_regression_per_class_on_one_candidate_set(backend):
    """Each column of the decision function is SLKL regression on that class's ±1 labels with
    the same candidates; the class of the largest one is predicted."""
    X, y, X_test, y_test = _digits()
    params = dict(n_columns=120, nu=0.05, random_state=0)
    model = SLKLClassifier(**params).fit(backend.asarray(X), backend.asarray(y))
    scores = model.decision_function(backend.asarray(X_test))
    assert get_namespace(scores) is get_namespace(backend.asarray(X))
    assert tuple(scores.shape) == (300, 10)
    for c in (0, 3, 9):
        target = np.where(y == c, 1.0, -1.0)
        regressor = SLKLRegressor(**params).fit(backend.asarray(X), backend.asarray(target))
        np.testing.assert_array_equal(to_numpy(regressor.candidates_), to_numpy(model.candidates_))
        np.testing.assert_allclose(
            to_numpy(scores[:, c]), to_numpy(regressor.predict(backend.asarray(X_test))),
            rtol=1e-9, atol=1e-9,
        )  # fmt: skip
    predicted = to_numpy(model.predict(backend.asarray(X_test)))
    np.testing.assert_array_equal(predicted, np.argmax(to_numpy(scores), axis=1))
    # Not far below dense kernel ridge on ±1 labels with the same kernel and all 600 centres.
    K, K_test = (model.kernel_(A, X) for A in (X, X_test))
    dense = K_test @ np.linalg.solve(K + np.eye(600), np.where(y[:, None] == np.arange(10), 1, -1))
    assert np.mean(predicted == y_test) >= np.mean(np.argmax(dense, axis=1) == y_test) - 0.05
    # The centres are the union of the classes' supports; a class's inactive centres weigh 0.
    mu = to_numpy(model.kernel_weights_)
    active = np.flatnonzero((mu > 0).any(axis=0))
    np.testing.assert_array_equal(to_numpy(model.support_), active)
    dual = to_numpy(model.dual_coef_)
    np.testing.assert_array_equal(dual != 0, (mu > 0)[:, active].T)
    assert model.kkt_violation_ <= 1e-3


def test_binary_classifier_scores_the_second_class_positive(backend):
    X, y, X_test, y_test = _digits()
    keep, keep_test = np.isin(y, (3, 8)), np.isin(y_test, (3, 8))
    labels = np.where(y[keep] == 3, "three", "eight")
    model = SLKLClassifier(n_columns=80, random_state=0).fit(backend.asarray(X[keep]), labels)
    assert list(model.classes_) == ["eight", "three"]
    scores = to_numpy(model.decision_function(backend.asarray(X_test[keep_test])))
    assert scores.ndim == 1
    truth = np.where(y_test[keep_test] == 3, "three", "eight")
    predicted = model.predict(backend.asarray(X_test[keep_test]))
    np.testing.assert_array_equal(predicted, np.where(scores > 0, "three", "eight"))
    assert np.mean(predicted == truth) > 0.9


def test_classifier_refuses_one_class(backend):
    X, _ = _data(30)
    with pytest.raises(ValueError, match="at least 2 classes, received 1 class"):
        SLKLClassifier().fit(backend.asarray(X), np.zeros(30, dtype=int))


# --------------------------------------------------------------------------- extreme values
# Issue 33, class 9: values the constraints accept must not end inside LAPACK.


def test_uniform_rank_one_ridge_with_a_huge_weight_is_minimum_norm_least_squares():
    """weight=1e300 (penalty 1e-300) raised LinAlgError. Reference: NumPy's lstsq on the
    centred normalised columns c_m = k(X, x_m)/√k(x_m, x_m) (the limit of an infinite weight)."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((6, 3))
    y = np.sin(X[:, 0]) + X[:, 1]
    model = UniformRankOneRidge(weight=1e300, random_state=0).fit(X, y)
    K = to_numpy(model.kernel_(X, model.centers_))
    C = K / np.sqrt(np.diag(to_numpy(model.kernel_(model.centers_, model.centers_))))
    Cc, yc = C - C.mean(axis=0), y - y.mean()
    coef = np.linalg.lstsq(Cc, yc, rcond=None)[0]
    fitted = C @ coef + (y.mean() - C.mean(axis=0) @ coef)
    np.testing.assert_allclose(model.predict(X), fitted, rtol=0, atol=1e-6 * np.ptp(y))


def test_slkl_cv_refuses_an_eps_below_what_float64_resolves():
    """eps=1e-300 raised LinAlgError (and ran for minutes on 40 rows): eps is in [1e-24, 1)."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 3))
    y = np.sin(X[:, 0]) + X[:, 1]
    with pytest.raises(ValueError, match=r"'eps' parameter .* range \[1e-24, 1.0\)"):
        SLKLRegressorCV(eps=1e-300, cv=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"nus = .* of ν_max .* nus must be at least"):
        SLKLRegressorCV(nus=[1.0, 1e-300], cv=3, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = SLKLRegressorCV(eps=1e-24, n_nus=5, n_columns=20, cv=3, random_state=0)
        assert np.all(np.isfinite(model.fit(X, y).predict(X)))

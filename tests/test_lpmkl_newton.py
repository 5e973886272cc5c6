"""The squared-hinge SVM by Newton's method and the ℓp-MKL over it, against independent dense
computations: libsvm (scikit-learn's SVC) on the kernel ``K_d + I/(2C)`` without an upper bound on
α (the squared hinge's dual), a full-kernel MKL alternation built on it, and scipy's scalar
minimiser for the exact line search and the intercept."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize, minimize_scalar
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from lrkl import LowRankMKLClassifier, LowRankMKLClassifierCV
from lrkl._backend import to_numpy
from lrkl.kernels import Gaussian
from lrkl.lpmkl import (
    duality_gap,
    mkl_duality_gap,
    mkl_objective,
    solve_lp_mkl,
    solve_newton_svm,
    svm_problem,
)
from lrkl.lpmkl._losses import best_intercept, line_minimum, smoothed_hinge
from lrkl.lpmkl._newton import _primal_gap

from ._reference import exact_mkl_problem

UNBOUNDED = 1e12  # libsvm's C standing for "no upper bound on α"


def _np_xp():
    import array_api_compat.numpy as xp

    return xp


def _svm_data(n=50, R=(8, 6, 5), seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    Vs = [rng.normal(size=(n, r)) * s for r, s in zip(R, (0.3, 0.6, 1.0), strict=True)]
    return Vs, y


def _squared_hinge_reference(K, y, C):
    """α and decision values (with intercept) of the squared-hinge SVM on the kernel K: libsvm's
    hinge dual on K + I/(2C) with α unbounded; f = K Y α + b (the I/(2C) part is not f's)."""
    n = y.shape[0]
    svc = SVC(kernel="precomputed", C=UNBOUNDED, tol=1e-12).fit(K + np.eye(n) / (2 * C), y)
    alpha = np.zeros(n)
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    return alpha, K @ (y * alpha) + svc.intercept_[0]


def _primal_reference(Vs, d, y, C):
    """Decision values (with intercept) and α of the squared-hinge SVM on the stacked
    ``√d_k V_k``, by scipy's L-BFGS on the (smooth) primal."""
    Z = np.hstack([np.sqrt(dk) * V for dk, V in zip(d, Vs, strict=True)])

    def objective(x):
        v, b = x[:-1], x[-1]
        xi = np.maximum(0.0, 1.0 - y * (Z @ v + b))
        gradient = np.r_[v - 2 * C * Z.T @ (y * xi), -2 * C * np.sum(y * xi)]
        return 0.5 * v @ v + C * xi @ xi, gradient

    options = {"gtol": 1e-13, "ftol": 1e-16, "maxiter": 100_000, "maxcor": 50}
    x = minimize(
        objective, np.zeros(Z.shape[1] + 1), jac=True, method="L-BFGS-B", options=options
    ).x
    decision = Z @ x[:-1] + x[-1]
    return decision, 2 * C * np.maximum(0.0, 1.0 - y * decision)


@pytest.mark.parametrize("C", [0.01, 1.0, 1000.0])
def test_newton_solves_the_squared_hinge_svm(backend, C):
    Vs, y = _svm_data()
    d = np.array([0.5, 0.0, 0.8])  # a zero weight: that kernel takes no part
    decision_ref, alpha_ref = _primal_reference(Vs, d, y, C)
    xp = backend.xp
    problem = svm_problem(
        [backend.asarray(V) for V in Vs], backend.asarray(y), C, loss="squared_hinge", xp=xp
    )
    solution = solve_newton_svm(problem, backend.asarray(d), tol=0.0, xp=xp)
    assert solution.converged
    decision = to_numpy(solution.decision + solution.intercept)
    np.testing.assert_allclose(decision, decision_ref, atol=1e-5 * np.max(np.abs(decision_ref)))
    np.testing.assert_allclose(to_numpy(solution.alpha), alpha_ref, atol=1e-5 * np.max(alpha_ref))
    assert np.all(to_numpy(solution.w)[1] == 0.0)
    gap = duality_gap(problem, backend.asarray(d), solution.alpha, xp=xp)
    assert 0.0 <= gap < 1e-9


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_newton_solves_the_hinge_svm(backend, C):
    """The hinge by smoothings shrinking to it: libsvm's SVC on the precomputed kernel of the
    stacked features gives the same function, no better objective, and the gap is within tol
    (at C = 1000 a relative gap of 1e-8 leaves ‖w − w*‖ up to ~1e-2: the objective's scale
    grows with C, its strong convexity in w does not)."""
    Vs, y = _svm_data()
    d = np.array([0.5, 0.0, 0.8])
    K = sum(dk * V @ V.T for dk, V in zip(d, Vs, strict=True))
    svc = SVC(kernel="precomputed", C=C, tol=1e-12).fit(K, y)
    reference = svc.decision_function(K)
    alpha_ref = np.zeros(y.shape[0])
    alpha_ref[svc.support_] = np.abs(svc.dual_coef_[0])
    xp = backend.xp
    problem = svm_problem([backend.asarray(V) for V in Vs], backend.asarray(y), C, xp=xp)
    assert problem.loss == "hinge"
    solution = solve_newton_svm(problem, backend.asarray(d), tol=1e-8, max_iter=500, xp=xp)
    assert solution.converged
    decision = to_numpy(solution.decision + solution.intercept)
    scale = np.max(np.abs(reference))
    np.testing.assert_allclose(decision, reference, atol=1e-4 * scale)
    alpha = to_numpy(solution.alpha)
    assert np.all((alpha >= 0.0) & (alpha <= C))
    assert np.all(to_numpy(solution.w)[1] == 0.0)

    def primal(f, a):
        return 0.5 * a @ (y[:, None] * K * y[None, :]) @ a + C * np.sum(np.maximum(0, 1 - y * f))

    w = to_numpy(solution.w)
    newton_primal = 0.5 * np.sum(np.sum(w * w, axis=1)[d > 0] / d[d > 0]) + C * np.sum(
        np.maximum(0.0, 1.0 - y * decision)
    )
    assert newton_primal <= primal(reference, alpha_ref) * (1 + 1e-7)
    assert _primal_gap(problem, backend.asarray(d), solution, xp=xp) <= 1e-8
    gap = duality_gap(problem, backend.asarray(d), solution.alpha, xp=xp)  # from α alone
    assert 0.0 <= gap < 1e-5


def test_hinge_steps_grow_slowly_with_C_and_a_warm_start_resumes():
    """Newton's hinge takes more steps at a larger C, far fewer than GFB's iterations (which
    reach thousands); a warm start from other weights resumes at its smoothing and gives the
    cold solution in fewer steps."""
    Vs, y = _svm_data(n=400, R=(30, 30, 30))
    d = np.full(3, 3**-0.5)
    steps = []
    for C in (0.1, 10.0, 1e3):
        problem = svm_problem(Vs, y, C, loss="hinge", xp=_np_xp())
        solution = solve_newton_svm(problem, d, tol=1e-6, max_iter=1000, xp=_np_xp())
        assert solution.converged
        steps.append(solution.n_iter)
    assert max(steps) <= 300, steps
    problem = svm_problem(Vs, y, 10.0, loss="hinge", xp=_np_xp())
    first = solve_newton_svm(problem, np.array([0.6, 0.6, 0.53]), tol=1e-8, xp=_np_xp())
    d = np.array([0.5, 0.7, 0.5])
    cold = solve_newton_svm(problem, d, tol=1e-8, max_iter=1000, xp=_np_xp())
    warm = solve_newton_svm(problem, d, tol=1e-8, max_iter=1000, state=first.state, xp=_np_xp())
    assert warm.converged and cold.converged and warm.n_iter < cold.n_iter
    assert warm.state.smoothing <= first.state.smoothing
    scale = np.max(np.abs(cold.decision))
    np.testing.assert_allclose(
        warm.decision + warm.intercept, cold.decision + cold.intercept, atol=1e-4 * scale
    )


def test_the_smoothed_hinge_and_its_line_search():
    """The smoothed hinge is continuous with its derivative, within h/4 above the hinge, and
    the line search over it finds scipy's minimum."""
    xp = _np_xp()
    h = 0.3
    loss = smoothed_hinge(h)
    xi = np.linspace(-1.0, 1.0, 2001)
    value = loss.value(xi, xp=xp)
    np.testing.assert_allclose(
        value, np.where(np.abs(xi) <= h, (xi + h) ** 2 / (4 * h), np.maximum(xi, 0.0)), atol=1e-15
    )
    assert np.all(value >= np.maximum(xi, 0.0)) and np.max(value - np.maximum(xi, 0)) <= h / 4
    np.testing.assert_allclose(
        np.gradient(value, xi)[1:-1], loss.derivative(xi, xp=xp)[1:-1], atol=2e-3
    )
    rng = np.random.default_rng(0)
    for _ in range(5):
        r, s = rng.normal(size=30), rng.normal(size=30)
        C = rng.uniform(0.5, 2.0, size=30)
        a, c = -abs(rng.normal()) - 1.0, abs(rng.normal())

        def phi(t, r=r, s=s, C=C, a=a, c=c):
            return a * t + 0.5 * c * t * t + np.sum(C * loss.value(r - t * s, xp=xp))

        t = line_minimum(a, c, r, s, C, loss=loss, xp=xp)
        best = minimize_scalar(phi, bounds=(0.0, 50.0), method="bounded", options={"xatol": 1e-12})
        assert phi(t) <= best.fun + 1e-10


def test_newton_steps_do_not_grow_with_C():
    """GFB's iterations grow with C; Newton's steps stay a handful from a cold start."""
    Vs, y = _svm_data(n=400, R=(30, 30, 30))
    d = np.full(3, 3**-0.5)
    steps = []
    for C in (0.1, 10.0, 1e3, 1e5):
        problem = svm_problem(Vs, y, C, loss="squared_hinge", xp=_np_xp())
        solution = solve_newton_svm(problem, d, tol=0.0, xp=_np_xp())
        assert solution.converged
        steps.append(solution.n_iter)
    assert max(steps) <= 20, steps


def test_a_warm_start_gives_the_cold_solution_in_fewer_steps():
    Vs, y = _svm_data(n=300, R=(20, 20, 20))
    problem = svm_problem(Vs, y, 10.0, loss="squared_hinge", xp=_np_xp())
    first = solve_newton_svm(problem, np.array([0.6, 0.6, 0.53]), tol=0.0, xp=_np_xp())
    d = np.array([0.5, 0.7, 0.5])
    cold = solve_newton_svm(problem, d, tol=0.0, xp=_np_xp())
    warm = solve_newton_svm(problem, d, tol=0.0, state=first.state, xp=_np_xp())
    assert warm.converged and cold.converged
    assert warm.n_iter < cold.n_iter
    np.testing.assert_allclose(warm.decision, cold.decision, atol=1e-9)
    np.testing.assert_allclose(warm.intercept, cold.intercept, atol=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_the_line_search_finds_the_exact_minimum(seed):
    rng = np.random.default_rng(seed)
    n = 200
    r = rng.normal(size=n)
    s = rng.normal(size=n)
    s[:5] = 0.0  # rows the step does not move
    C = 3.0
    c = float(rng.uniform(0.0, 2.0))

    def phi(t, a):
        return a * t + 0.5 * c * t * t + C * np.sum(np.maximum(0.0, r - t * s) ** 2)

    slope = -2 * C * np.sum(np.where(r > 0, s * r, 0.0))
    a = -1.0 - abs(slope)  # φ'(0) = a + slope < 0: a descent direction
    t = line_minimum(a, c, r, s, C, xp=_np_xp())
    reference = minimize_scalar(
        phi, bounds=(0.0, 100.0), args=(a,), method="bounded", options={"xatol": 1e-12}
    )
    assert t >= 0.0
    assert phi(t, a) <= reference.fun + 1e-9 * abs(reference.fun)
    assert abs(t - reference.x) < 1e-5
    assert line_minimum(abs(slope) + 1.0, c, r, s, C, xp=_np_xp()) == 0.0  # φ'(0) > 0


def test_the_squared_hinge_intercept_minimises_the_loss(rng):
    n = 120
    y = np.where(rng.random(n) < 0.3, 1.0, -1.0)
    decision = rng.normal(size=n) + 0.5 * y

    def loss(b):
        return np.sum(np.maximum(0.0, 1.0 - y * (decision + b)) ** 2)

    b = float(best_intercept(decision, y, 2.0, "squared_hinge", xp=_np_xp()))
    reference = minimize_scalar(loss, bounds=(-10, 10), method="bounded", options={"xatol": 1e-12})
    assert loss(b) <= reference.fun + 1e-10
    assert abs(b - reference.x) < 1e-5


def _full_kernel_squared_hinge_mkl(Ks, y, C, p, n_updates=300):
    """The exact ℓp-MKL with the squared hinge: libsvm on Σ d_k K_k + I/(2C), α unbounded,
    alternated with eq. (3), ‖f_k‖² = d_k² αᵀYK_kYα, to a weight change below 1e-12."""
    m = len(Ks)
    d = np.full(m, m ** (-1.0 / p))
    for _ in range(n_updates):
        alpha, _ = _squared_hinge_reference(sum(dk * K for dk, K in zip(d, Ks, strict=True)), y, C)
        beta = y * alpha
        norms2 = np.array([dk**2 * beta @ K @ beta for dk, K in zip(d, Ks, strict=True)])
        new = norms2 ** (1 / (p + 1)) / np.sum(norms2 ** (p / (p + 1))) ** (1 / p)
        if np.max(np.abs(new - d)) < 1e-12:
            break
        d = new
    return d


@pytest.mark.parametrize("p", [1.5, 2.0, 4.0])
def test_lp_mkl_with_the_squared_hinge_matches_the_full_kernel_mkl(p):
    """Exact factors: the low-rank MKL by Newton is the full-kernel MKL; its gap certifies it."""
    C = 5.0
    _, y, Ks, factors = exact_mkl_problem(3, 40)
    d_ref = _full_kernel_squared_hinge_mkl(Ks, y, C, p)
    problem = svm_problem(factors, y, C, loss="squared_hinge", xp=_np_xp())
    result = solve_lp_mkl(problem, p, mkl_tol=1e-12, max_outer_iter=1000, xp=_np_xp())
    assert result.converged
    np.testing.assert_allclose(result.weights, d_ref, atol=1e-5)  # the gap is ~ the error²
    gap = mkl_duality_gap(problem, result.solution, p, xp=_np_xp())
    assert 0.0 <= gap <= 1e-12
    assert np.all(np.diff(result.objectives) < 1e-9 * result.objectives[0])


def test_the_mkl_gap_of_the_squared_hinge_is_the_dense_one():
    """P − D of the squared-hinge MKL at a non-optimal point, from dense kernels."""
    Vs, y = _svm_data()
    C, p = 2.0, 2.0
    problem = svm_problem(Vs, y, C, loss="squared_hinge", xp=_np_xp())
    d = np.array([0.2, 0.5, 0.84])
    solution = solve_newton_svm(problem, d, tol=0.0, max_iter=1, xp=_np_xp())  # one step
    alpha = np.clip(solution.alpha, 0.0, None)
    pos = y > 0
    total_pos, total_neg = alpha[pos].sum(), alpha[~pos].sum()
    alpha = alpha * np.where(pos, min(1, total_neg / total_pos), min(1, total_pos / total_neg))
    q = np.array([(y * alpha) @ V @ V.T @ (y * alpha) for V in Vs])
    dual = alpha.sum() - alpha @ alpha / (4 * C) - 0.5 * np.linalg.norm(q, ord=p / (p - 1))
    f_norms2 = np.sum(solution.w**2, axis=1)
    decision = solution.decision
    intercept = minimize_scalar(
        lambda b: np.sum(np.maximum(0, 1 - y * (decision + b)) ** 2),
        bounds=(-20, 20),
        method="bounded",
        options={"xatol": 1e-13},
    ).x
    primal = 0.5 * np.sum(f_norms2 ** (p / (p + 1))) ** ((p + 1) / p) + C * np.sum(
        np.maximum(0, 1 - y * (decision + intercept)) ** 2
    )
    gap = mkl_duality_gap(problem, solution, p, xp=_np_xp())
    assert gap > 1e-3
    np.testing.assert_allclose(gap, (primal - dual) / max(abs(primal), abs(dual)), rtol=1e-6)
    objective = mkl_objective(solution, problem, d, xp=_np_xp())
    expected = 0.5 * np.sum(f_norms2 / d) + C * np.sum(
        np.maximum(0, 1 - y * (decision + solution.intercept)) ** 2
    )
    np.testing.assert_allclose(objective, expected, rtol=1e-12)


def test_the_classifier_defaults_to_newton_and_refuses_mismatched_solvers():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = (X[:, 0] ** 2 + X[:, 1] ** 2 > 1.4).astype(int)
    model = LowRankMKLClassifier(rank=20, C=10.0, random_state=0).fit(X, y)
    assert model.score(X, y) > 0.9
    assert model.n_svm_iter_ <= 10 * model.n_iter_  # a few Newton steps per update
    hinge = LowRankMKLClassifier(rank=20, C=10.0, loss="hinge", random_state=0).fit(X, y)
    assert hinge.score(X, y) > 0.9
    for params, match in [
        (
            {"solver": "gfb"},
            r"solver='gfb' solves loss in \('hinge',\), received "
            r"loss='squared_hinge'",
        ),
        ({"eta": 0.1}, r"eta must be 0 with loss='squared_hinge'.*received eta=0.1"),
        (
            {"eta": 0.1, "loss": "hinge", "solver": "newton"},
            r"eta must be 0 with solver='newton'.*received eta=0.1",
        ),
    ]:
        with pytest.raises(ValueError, match=match):
            LowRankMKLClassifier(rank=5, **params).fit(X, y)
    # "auto" is Newton for the hinge too, and GFB where the hinge has Remark 1's eta
    assert hinge.n_svm_iter_ <= 60 * hinge.n_iter_
    from lrkl.lpmkl._mkl import check_solver

    assert check_solver("auto", "hinge", 0.0) == "newton"
    assert check_solver("auto", "hinge", 0.01) == "gfb"
    assert check_solver("auto", "squared_hinge", 0.0) == "newton"
    with pytest.raises(ValueError, match="loss must be one of"):
        svm_problem([X], np.where(y > 0, 1.0, -1.0), 1.0, loss="logistic", xp=_np_xp())


@pytest.mark.parametrize("C", [1e-300, 1e-8, 1e8, 1e300])
def test_extreme_C_gives_a_finite_model_and_a_true_gap(C):
    """α²/(4C) once underflowed at C = 1e-300 and gave a negative gap, read as certified."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    model = LowRankMKLClassifier(rank=5, C=C, random_state=0).fit(X, y)
    assert np.all(np.isfinite(model.decision_function(X)))
    assert model.duality_gap_ >= 0.0


def test_newton_on_float32_features():
    Vs, y = _svm_data()
    d = np.array([0.5, 0.3, 0.8])
    wide = solve_newton_svm(
        svm_problem(Vs, y, 3.0, loss="squared_hinge", xp=_np_xp()), d, tol=0.0, xp=_np_xp()
    )
    narrow_problem = svm_problem(
        [V.astype(np.float32) for V in Vs],
        y.astype(np.float32),
        3.0,
        loss="squared_hinge",
        xp=_np_xp(),
    )
    narrow = solve_newton_svm(narrow_problem, d.astype(np.float32), tol=0.0, xp=_np_xp())
    assert narrow.converged and narrow.decision.dtype == np.float32
    np.testing.assert_allclose(
        narrow.decision + narrow.intercept,
        wide.decision + wide.intercept,
        atol=1e-4 * np.max(np.abs(wide.decision)),
    )


def test_a_state_of_other_features_does_not_lend_its_gram():
    Vs, y = _svm_data()
    others, _ = _svm_data(seed=1)
    d = np.array([0.5, 0.3, 0.8])
    problem = svm_problem(Vs, y, 3.0, loss="squared_hinge", xp=_np_xp())
    foreign = solve_newton_svm(
        svm_problem(others, y, 3.0, loss="squared_hinge", xp=_np_xp()), d, tol=0.0, xp=_np_xp()
    )
    cold = solve_newton_svm(problem, d, tol=0.0, xp=_np_xp())
    warm = solve_newton_svm(problem, d, tol=0.0, state=foreign.state, xp=_np_xp())
    np.testing.assert_allclose(
        warm.decision + warm.intercept, cold.decision + cold.intercept, atol=1e-9
    )


def test_the_line_search_keeps_the_curvature_under_huge_costs():
    """At C = 1e15 forty terms leave the loss at t = 1 and their parts of φ' (±8e16) cancel;
    past t = 1 only a t + ½ c t² is left until t = 2, so the minimum is exactly t = 1.5 (and
    with nothing after t = 1, at -a/c however large)."""
    r = np.r_[np.ones(40), -2.0, 0.5]
    s = np.r_[np.ones(40), -1.0, 0.0]
    assert line_minimum(-1.5, 1.0, r, s, 1e15, xp=_np_xp()) == pytest.approx(1.5, rel=1e-12)
    assert line_minimum(-7.0, 2.0, r[:40], s[:40], 1e15, xp=_np_xp()) == pytest.approx(3.5)
    assert line_minimum(-1.5, 1.0, r, s, 1e300, xp=_np_xp()) == pytest.approx(1.5, rel=1e-12)


def test_the_line_search_edges():
    r = np.array([-1.0, -2.0, 0.0])
    s = np.array([1.0, 0.5, 0.0])  # every term inactive along the step
    assert line_minimum(-2.0, 4.0, r, s, 1.0, xp=_np_xp()) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="unbounded below"):
        line_minimum(-1.0, 0.0, r, s, 1.0, xp=_np_xp())


def test_the_classifier_keeps_no_training_factors():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = (X[:, 0] > 0).astype(int)
    model = LowRankMKLClassifier(rank=10, random_state=0).fit(X, y)
    assert all(factor.G is None for factor in model.features_.factors_)
    assert model.features_.transform(X).shape == (80, 70)


def test_probabilities_by_calibrated_cross_validation():
    """predict_proba is CalibratedClassifierCV's (Platt scaling by cross-validation), as the
    docs say: calibrated probabilities whose log-loss beats the class frequencies'."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.metrics import log_loss

    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] ** 2 + X[:, 1] ** 2 + 0.3 * rng.normal(size=300) > 1.4).astype(int)
    model = CalibratedClassifierCV(LowRankMKLClassifier(rank=20, random_state=0), cv=3)
    model.fit(X[:200], y[:200])
    proba = model.predict_proba(X[200:])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    baseline = np.tile(np.bincount(y[:200]) / 200, (100, 1))
    assert log_loss(y[200:], proba) < 0.6 * log_loss(y[200:], baseline)


def test_newton_with_sample_weights_solves_the_weighted_svm():
    """Row i's cost C·w_i: L-BFGS on the weighted primal; zero weights leave rows out."""
    Vs, y = _svm_data()
    rng = np.random.default_rng(5)
    weights = rng.uniform(0.0, 3.0, size=y.shape[0])
    weights[:5] = 0.0
    d = np.array([0.5, 0.3, 0.8])
    C = 2.0
    Z = np.hstack([np.sqrt(dk) * V for dk, V in zip(d, Vs, strict=True)])

    def objective(x):
        v, b = x[:-1], x[-1]
        xi = np.maximum(0.0, 1.0 - y * (Z @ v + b))
        gradient = np.r_[v - 2 * C * Z.T @ (weights * y * xi), -2 * C * np.sum(weights * y * xi)]
        return 0.5 * v @ v + C * np.sum(weights * xi * xi), gradient

    options = {"gtol": 1e-13, "ftol": 1e-16, "maxiter": 100_000, "maxcor": 50}
    x = minimize(
        objective, np.zeros(Z.shape[1] + 1), jac=True, method="L-BFGS-B", options=options
    ).x
    reference = Z @ x[:-1] + x[-1]
    problem = svm_problem(Vs, y, C, loss="squared_hinge", sample_weight=weights, xp=_np_xp())
    solution = solve_newton_svm(problem, d, tol=0.0, xp=_np_xp())
    assert solution.converged
    decision = solution.decision + solution.intercept
    np.testing.assert_allclose(decision, reference, atol=1e-5 * np.max(np.abs(reference)))
    alpha = 2 * C * weights * np.maximum(0.0, 1.0 - y * reference)
    np.testing.assert_allclose(solution.alpha, alpha, atol=1e-5 * np.max(alpha))
    assert 0.0 <= duality_gap(problem, d, solution.alpha, xp=_np_xp()) < 1e-9


def test_integer_weights_equal_repeated_rows():
    Vs, y = _svm_data(n=40)
    counts = np.random.default_rng(6).integers(0, 3, size=40)
    counts[[int(np.argmax(y > 0)), int(np.argmax(y < 0))]] = 1  # both classes keep a row
    d = np.array([0.4, 0.6, 0.7])
    weighted = svm_problem(
        Vs, y, 3.0, loss="squared_hinge", sample_weight=counts * 1.0, xp=_np_xp()
    )
    rows = np.repeat(np.arange(40), counts)
    repeated = svm_problem([V[rows] for V in Vs], y[rows], 3.0, loss="squared_hinge", xp=_np_xp())
    one = solve_newton_svm(weighted, d, tol=0.0, xp=_np_xp())
    two = solve_newton_svm(repeated, d, tol=0.0, xp=_np_xp())
    np.testing.assert_allclose(
        (one.decision + one.intercept)[rows], two.decision + two.intercept, atol=1e-9
    )


@pytest.mark.parametrize("solver", ["gfb", "interior_point", "newton"])
def test_hinge_solvers_with_sample_weights_match_libsvm(solver):
    """libsvm's SVC(kernel="precomputed") with sample_weight: per-row box C·w_i."""
    pytest.importorskip("clarabel") if solver == "interior_point" else None
    Vs, y = _svm_data(n=40)
    weights = np.random.default_rng(7).uniform(0.2, 2.0, size=40)
    d = np.array([0.5, 0.3, 0.2])
    K = sum(dk * V @ V.T for dk, V in zip(d, Vs, strict=True))
    svc = SVC(kernel="precomputed", C=1.0, tol=1e-12).fit(K, y, sample_weight=weights)
    reference = svc.decision_function(K)
    problem = svm_problem(Vs, y, 1.0, sample_weight=weights, xp=_np_xp())
    result = solve_lp_mkl(
        problem,
        2.0,
        solver=solver,
        weights=d,
        max_outer_iter=1,
        stop="gap",
        tol=1e-9,
        max_iter=200_000,
        xp=_np_xp(),
    )
    solution = result.solution
    assert np.all(solution.alpha <= weights + 1e-9)
    np.testing.assert_allclose(solution.decision + solution.intercept, reference, atol=1e-4)


def test_the_weighted_hinge_intercept_minimises_the_weighted_loss(rng):
    n = 80
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    decision = rng.normal(size=n) + 0.3 * y
    costs = rng.uniform(0.1, 3.0, size=n)

    def loss(b):
        return np.sum(costs * np.maximum(0.0, 1.0 - y * (decision + b)))

    b = float(best_intercept(decision, y, costs, "hinge", xp=_np_xp()))
    grid = np.linspace(-4, 4, 80001)
    assert loss(b) <= min(loss(g) for g in grid) + 1e-9
    for c in (1.0, 0.1, 0.3):  # equal costs: the unweighted middle, whatever their rounding
        equal = best_intercept(decision, y, np.full(n, c), "hinge", xp=_np_xp())
        assert float(equal) == float(best_intercept(decision, y, c, "hinge", xp=_np_xp()))


def test_class_weight_and_sample_weight_in_the_classifier():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 1.0).astype(int)  # about 1 in 5 positive
    params = dict(kernels=[Gaussian(gamma=0.5)], rank=20, random_state=0)
    plain = LowRankMKLClassifier(**params).fit(X, y)
    ones = LowRankMKLClassifier(**params).fit(X, y, sample_weight=np.ones(300))
    np.testing.assert_allclose(ones.decision_function(X), plain.decision_function(X), atol=1e-10)
    unit = LowRankMKLClassifier(class_weight={0: 1.0, 1: 1.0}, **params).fit(X, y)
    np.testing.assert_allclose(unit.decision_function(X), plain.decision_function(X), atol=1e-10)
    balanced = LowRankMKLClassifier(class_weight="balanced", **params).fit(X, y)
    recall = [np.mean(m.predict(X)[y == 1] == 1) for m in (plain, balanced)]
    assert recall[1] > recall[0] + 0.05
    doubled = LowRankMKLClassifier(**params).fit(X, y, sample_weight=np.full(300, 2.0))
    half_c = LowRankMKLClassifier(C=2.0, **params).fit(X, y)
    np.testing.assert_allclose(doubled.decision_function(X), half_c.decision_function(X), atol=1e-8)
    with pytest.raises(ValueError, match="sample_weight must give every class a positive total"):
        LowRankMKLClassifier(**params).fit(X, y, sample_weight=(y == 0) * 1.0)


def test_float32_features_of_float64_rows_in_the_classifier():
    """feature_dtype="float32" on float64 X: the model of float32 features (coef_ float32),
    decision values in X's dtype and within float32's rounding of the float64 fit's; float64 X
    not rounded first (a fit on X rounded to float32 answers differently at an offset)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3))
    y = (np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] > 0).astype(int)
    Xt = rng.normal(size=(100, 3))
    params = dict(rank=20, C=10.0, random_state=0)
    wide = LowRankMKLClassifier(**params).fit(X, y)
    narrow = LowRankMKLClassifier(feature_dtype="float32", **params).fit(X, y)
    assert narrow.coef_.dtype == np.float32 and narrow.intercept_.dtype == np.float32
    decision = narrow.decision_function(Xt)
    assert decision.dtype == np.float64
    reference = wide.decision_function(Xt)
    np.testing.assert_allclose(decision, reference, atol=1e-3 * np.ptp(reference))
    assert narrow.features_.transform(Xt).dtype == np.float32
    assert np.mean(narrow.predict(Xt) == wide.predict(Xt)) >= 0.98


def test_one_vs_rest_forms_one_gram_and_solves_each_class_as_alone(monkeypatch):
    """The one-vs-rest problems share the features and weights: Newton's Gram VᵀWV is formed
    once per fit (and once per fold of the CV), and each class's model is the binary fit of
    that class against the rest."""
    from lrkl.lpmkl import _newton

    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 2))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] ** 2, [-0.3, 0.6])
    formed = []
    gram = _newton._gram

    def counted(V, rows, weights, *, xp):
        formed.append(rows is None)
        return gram(V, rows, weights, xp=xp)

    monkeypatch.setattr(_newton, "_gram", counted)
    params = dict(rank=10, C=10.0, random_state=0)
    model = LowRankMKLClassifier(**params).fit(X, y)
    assert sum(formed) == 1
    for k in range(3):
        alone = LowRankMKLClassifier(**params).fit(X, y == k)
        np.testing.assert_allclose(model.coef_[k], alone.coef_, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(model.kernel_weights_[k], alone.kernel_weights_, rtol=1e-9)
    formed.clear()
    with warnings.catch_warnings():  # (a C at the grid's edge: not the subject here)
        warnings.simplefilter("ignore", UserWarning)
        LowRankMKLClassifierCV(Cs=(1.0, 10.0), cv=2, rank=10, random_state=0).fit(X, y)
    assert sum(formed) == 2 + 1  # one per fold, one for the refit


def test_hinge_levels_end_only_at_newtons_own_minimum():
    """A step of the intercept alone (no row in the band: b's objective is linear there) is
    not the quadratic's minimiser, and must not end a level as exact (it once stopped the
    continuation 8e-6 above the smoothed optimum, the gap then above tol)."""
    V = np.array([[0.3], [0.8], [-1.2], [0.0], [0.1], [0.9]])
    y = np.array([1.0, -1, 1, -1, 1, -1])
    weights = np.array([0.1, 0.8, 1.0, 0.5, 0.8, 0.5])
    problem = svm_problem([V], y, 0.04, loss="hinge", sample_weight=weights, xp=_np_xp())
    solution = solve_newton_svm(problem, np.ones(1), tol=1e-3, max_iter=500, xp=_np_xp())
    assert solution.converged
    assert _primal_gap(problem, np.ones(1), solution, xp=_np_xp()) <= 1e-3


def test_one_vs_rest_hinge_classes_start_cold():
    """The Gram lent to the other classes of one-vs-rest starts them cold, smoothing included:
    each class's hinge model is its binary fit's."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 2))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] ** 2, [-0.3, 0.6])
    params = dict(rank=10, C=100.0, loss="hinge", random_state=0)
    model = LowRankMKLClassifier(**params).fit(X, y)
    for k in range(3):
        alone = LowRankMKLClassifier(**params).fit(X, y == k)
        np.testing.assert_allclose(model.coef_[k], alone.coef_, rtol=1e-9, atol=1e-12)


def test_the_hinge_at_an_extreme_C_stays_finite():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] > 0).astype(int)
    for C in (1e200, 1e300):
        model = LowRankMKLClassifier(rank=5, C=C, loss="hinge", random_state=0)
        with warnings.catch_warnings():  # (the gap may stop short at such a C: reported)
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
        assert np.all(np.isfinite(model.decision_function(X)))
        assert model.duality_gap_ >= 0.0


def test_the_hinge_gap_of_float32_features_is_measured_in_float64():
    """Newton's arithmetic is float64: the hinge's stopping gap is too, so converged means
    within tol of the float32-valued problem, not within float32's rounding of it."""
    Vs, y = _svm_data(n=400, R=(20, 20, 20))
    narrow = [V.astype(np.float32) for V in Vs]
    d = np.full(3, 3**-0.5)
    problem = svm_problem(narrow, y.astype(np.float32), 100.0, loss="hinge", xp=_np_xp())
    solution = solve_newton_svm(problem, d.astype(np.float32), tol=1e-8, xp=_np_xp())
    assert solution.decision.dtype == np.float32
    wide = svm_problem([V.astype(np.float64) for V in narrow], y, 100.0, loss="hinge", xp=_np_xp())
    reference = solve_newton_svm(wide, d, tol=1e-8, xp=_np_xp())
    assert solution.converged == reference.converged
    scale = np.max(np.abs(reference.decision))
    np.testing.assert_allclose(
        solution.decision + solution.intercept,
        reference.decision + reference.intercept,
        atol=1e-4 * scale,
    )

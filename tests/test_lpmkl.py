"""ℓp-norm MKL with low-rank kernels: GFB against an exact QP (scikit-learn's SVC on the combined
low-rank kernel), the weight update against eq. (3), the MKL loop against a full-kernel
reference (SVC alternated with eq. (3)), and the estimator on every backend."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from sklearn.svm import SVC

from lrkl import LowRankMKLClassifier, LowRankMKLClassifierCV
from lrkl._backend import to_numpy
from lrkl.experiments.lpmkl import full_kernel_mkl
from lrkl.kernels import Gaussian, Linear
from lrkl.lpmkl import (
    SVM_SOLVERS,
    NewtonState,
    auto_alpha_scale,
    duality_gap,
    hinge_intercept,
    lp_weights,
    mkl_duality_gap,
    solve_gfb_svm,
    solve_lp_mkl,
    svm_dual_objective,
    svm_problem,
)
from lrkl.lpmkl._gfb import dual_solution

from ._reference import exact_mkl_problem


def _svm_data(n=40, m=3, R=20, seed=0):
    """Labels of an XOR-like rule, m random factors whose sum has full rank (unique α)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    Vs = [rng.normal(size=(n, R)) * s for s in (0.3, 0.6, 1.0)[:m]]
    return Vs, y


def _svc_reference(K, y, C):
    """α, decision values and intercept of the exact SVM dual on the kernel matrix K."""
    svc = SVC(kernel="precomputed", C=C, tol=1e-12).fit(K, y)
    alpha = np.zeros(len(y))
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    return alpha, K @ (y * alpha) + svc.intercept_[0]


@pytest.mark.parametrize(
    ("variant", "alpha_scale"), [("split", 1.0), ("naive", 1.0), ("split", "auto"), ("naive", 0.3)]
)
def test_gfb_solves_the_svm_dual(backend, variant, alpha_scale):
    Vs, y = _svm_data()
    d = np.array([0.5, 0.3, 0.2])
    C = 1.0
    K = sum(dk * V @ V.T for dk, V in zip(d, Vs, strict=True))
    alpha_ref, decision_ref = _svc_reference(K, y, C)
    xp = backend.xp
    problem = svm_problem([backend.asarray(V) for V in Vs], backend.asarray(y), C, xp=xp)
    d_b = backend.asarray(d)
    solution = solve_gfb_svm(
        problem, d_b, variant=variant, alpha_scale=alpha_scale, tol=1e-15, max_iter=20000, xp=xp
    )
    assert solution.converged
    np.testing.assert_allclose(to_numpy(solution.alpha), alpha_ref, atol=1e-6)
    decision = to_numpy(solution.decision + solution.intercept)
    np.testing.assert_allclose(decision, decision_ref, atol=1e-6)
    objective_ref = 0.5 * (y * alpha_ref) @ K @ (y * alpha_ref) - alpha_ref.sum()
    assert svm_dual_objective(solution, problem, xp=xp) == pytest.approx(objective_ref, rel=1e-8)


def test_auto_alpha_scale_by_hand(xp, backend):
    """``min(1, (Σ_k d_k max s_k / C)^{−1/4})`` with s_k the squared column norms of the
    orthogonalised V_k, i.e. the eigenvalues of V_k V_kᵀ."""
    Vs, y = _svm_data()
    d = np.array([0.5, 0.3, 0.2])
    bound = sum(dk * np.linalg.eigvalsh(V @ V.T).max() for dk, V in zip(d, Vs, strict=True))
    for C, expected in ((1.0, bound**-0.25), (1e6, 1.0)):
        problem = svm_problem([backend.asarray(V) for V in Vs], backend.asarray(y), C, xp=xp)
        scale = auto_alpha_scale(problem, backend.asarray(d), xp=xp)
        assert scale == pytest.approx(expected, rel=1e-10)
    assert expected == 1.0 and bound**-0.25 < 1.0


def test_a_warm_start_in_another_alpha_scale_goes_on_from_the_same_point(xp, backend):
    """Iterations in one unit of α continue in another from the same α (the state carries its
    unit), and reach the exact QP's solution."""
    Vs, y = _svm_data(seed=3)
    d = np.array([0.2, 0.5, 0.3])
    K = sum(dk * V @ V.T for dk, V in zip(d, Vs, strict=True))
    alpha_ref, _ = _svc_reference(K, y, 1.0)
    problem = svm_problem([backend.asarray(V) for V in Vs], backend.asarray(y), 1.0, xp=xp)
    d_b = backend.asarray(d)
    first = solve_gfb_svm(problem, d_b, alpha_scale=1.0, tol=0.0, max_iter=50, xp=xp)
    same = solve_gfb_svm(
        problem, d_b, alpha_scale=0.25, tol=0.0, max_iter=0, state=first.state, xp=xp
    )
    np.testing.assert_allclose(to_numpy(same.alpha), to_numpy(first.alpha), atol=1e-12)
    done = solve_gfb_svm(
        problem, d_b, alpha_scale=0.25, tol=1e-15, max_iter=20000, state=first.state, xp=xp
    )
    assert done.converged and done.state.alpha_scale == 0.25
    np.testing.assert_allclose(to_numpy(done.alpha), alpha_ref, atol=1e-6)


def test_split_equals_naive_at_convergence(xp, backend):
    Vs, y = _svm_data(n=30, R=12, seed=1)
    problem = svm_problem([backend.asarray(V) for V in Vs], backend.asarray(y), 2.0, xp=xp)
    d = backend.asarray(np.array([0.2, 0.2, 0.6]))
    split, naive = (
        solve_gfb_svm(problem, d, variant=v, tol=1e-15, max_iter=20000, xp=xp)
        for v in ("split", "naive")
    )
    np.testing.assert_allclose(to_numpy(split.alpha), to_numpy(naive.alpha), atol=1e-6)
    np.testing.assert_allclose(to_numpy(split.w), to_numpy(naive.w), atol=1e-6)


@pytest.mark.parametrize("eta", [0.0, 0.5])
def test_duality_gap_bounds_the_distance_to_the_optimum(backend, eta):
    """The gap is ~0 at the exact QP solution (SVC on K_d + ηI), positive elsewhere, and at
    least the relative excess of the dual objective over the optimum."""
    Vs, y = _svm_data()
    d = np.array([0.5, 0.3, 0.2])
    C = 1.0
    K = sum(dk * V @ V.T for dk, V in zip(d, Vs, strict=True)) + eta * np.eye(len(y))
    alpha_ref, _ = _svc_reference(K, y, C)
    optimum = 0.5 * (y * alpha_ref) @ K @ (y * alpha_ref) - alpha_ref.sum()
    xp = backend.xp
    problem = svm_problem([backend.asarray(V) for V in Vs], backend.asarray(y), C, xp=xp)
    d_b = backend.asarray(d)
    assert abs(duality_gap(problem, d_b, backend.asarray(alpha_ref), eta=eta, xp=xp)) < 1e-6
    rough = np.clip(alpha_ref + 0.2 * np.random.default_rng(0).normal(size=len(y)), 0.0, C)
    gap = duality_gap(problem, d_b, backend.asarray(rough), eta=eta, xp=xp)
    balanced = rough * np.where(y > 0, 1.0, (rough @ (y > 0)) / (rough @ (y < 0)))
    if rough @ (y > 0) > rough @ (y < 0):
        balanced = rough * np.where(y > 0, (rough @ (y < 0)) / (rough @ (y > 0)), 1.0)
    excess = 0.5 * (y * balanced) @ K @ (y * balanced) - balanced.sum() - optimum
    assert gap > 0 and gap * abs(optimum) >= excess * (1 - 1e-9) > 0


def test_gfb_gap_rule_stops_near_the_optimum_where_the_change_rule_does_not(backend):
    """C = 1000: the paper's relative-change rule at 1e-4 stops with a dual objective far from
    the optimum; the duality-gap rule at 1e-3 stops within 1e-3 of it."""
    Vs, y = _svm_data(n=60, seed=2)
    d = np.array([0.5, 0.3, 0.2])
    C = 1000.0
    K = sum(dk * V @ V.T for dk, V in zip(d, Vs, strict=True))
    alpha_ref, _ = _svc_reference(K, y, C)
    optimum = 0.5 * (y * alpha_ref) @ K @ (y * alpha_ref) - alpha_ref.sum()
    xp = backend.xp
    problem = svm_problem([backend.asarray(V) for V in Vs], backend.asarray(y), C, xp=xp)
    d_b = backend.asarray(d)
    by_gap = solve_gfb_svm(problem, d_b, stop="gap", tol=1e-3, max_iter=100000, xp=xp)
    assert by_gap.converged and by_gap.n_iter % 10 == 0
    assert duality_gap(problem, d_b, by_gap.alpha, xp=xp) <= 1e-3
    assert abs(float(xp.sum(by_gap.alpha * problem.y))) < 1e-9 * C
    excess = svm_dual_objective(by_gap, problem, xp=xp) - optimum
    assert 0 <= excess <= 1e-3 * abs(optimum)
    by_change = solve_gfb_svm(problem, d_b, tol=1e-4, max_iter=3000, xp=xp)
    assert duality_gap(problem, d_b, by_change.alpha, xp=xp) > 1e-2
    with pytest.raises(ValueError, match="stop must be one of"):
        solve_gfb_svm(problem, d_b, stop="kkt", xp=xp)


def test_algorithm_2_line_20_does_not_solve_the_svm():
    """The box update as Algorithm 2 prints it settles on a point that is neither feasible
    (yᵀα ≠ 0) nor optimal; Raguet et al.'s update reaches the optimum (documented finding)."""
    Vs, y = _svm_data()
    d = np.array([0.5, 0.3, 0.2])
    K = sum(dk * V @ V.T for dk, V in zip(d, Vs, strict=True))
    alpha_ref, _ = _svc_reference(K, y, 1.0)
    optimum = 0.5 * (y * alpha_ref) @ K @ (y * alpha_ref) - alpha_ref.sum()
    problem = svm_problem(Vs, y, 1.0, xp=_np_xp())
    paper = solve_gfb_svm(problem, d, box_update="paper", tol=1e-15, max_iter=20000, xp=_np_xp())
    assert abs(y @ paper.alpha) > 1e-3
    assert svm_dual_objective(paper, problem, xp=_np_xp()) > optimum + 1.0


def _np_xp():
    import array_api_compat.numpy as xp

    return xp


@pytest.mark.parametrize("solver", ["interior_point", "liblinear"])
def test_host_solvers_solve_the_svm(solver):
    Vs, y = _svm_data()
    d = np.array([0.5, 0.3, 0.2])
    K = sum(dk * V @ V.T for dk, V in zip(d, Vs, strict=True))
    alpha_ref, decision_ref = _svc_reference(K, y, 1.0)
    problem = svm_problem(Vs, y, 1.0, xp=_np_xp())
    solution = SVM_SOLVERS[solver](
        problem, d, state=None, tol=1e-10, max_iter=100000, eta=0.0, xp=_np_xp()
    )
    # liblinear penalises the intercept (b²/200): its decision values differ slightly
    atol = 1e-6 if solver == "interior_point" else 2e-3
    np.testing.assert_allclose(solution.decision + solution.intercept, decision_ref, atol=atol)
    if solution.alpha is not None:
        np.testing.assert_allclose(solution.alpha, alpha_ref, atol=1e-6)


@pytest.mark.parametrize(
    ("installed", "found"), [("0.9.2", "found clarabel 0.9.2"), (None, "none installed")]
)
def test_interior_point_names_the_clarabel_it_needs(monkeypatch, installed, found):
    if installed is None:
        monkeypatch.setitem(sys.modules, "clarabel", None)  # import clarabel raises ImportError
    else:
        monkeypatch.setattr(pytest.importorskip("clarabel"), "__version__", installed)
    Vs, y = _svm_data()
    problem = svm_problem(Vs, y, 1.0, xp=_np_xp())
    with pytest.raises(ImportError, match=rf"clarabel>=0\.11 .*, {found}: pip install"):
        SVM_SOLVERS["interior_point"](
            problem, np.full(3, 1 / 3), state=None, tol=1e-4, max_iter=10, eta=0.0, xp=_np_xp()
        )


def test_host_solvers_refuse_other_backends(backend):
    if backend.name == "numpy":
        pytest.skip("the host solvers take NumPy arrays")
    Vs, y = _svm_data()
    problem = svm_problem([backend.asarray(V) for V in Vs], backend.asarray(y), 1.0, xp=backend.xp)
    d = backend.asarray(np.full(3, 1 / 3))
    for solver in ("interior_point", "liblinear"):
        with pytest.raises(TypeError, match=f"solver='{solver}' runs on NumPy arrays only"):
            SVM_SOLVERS[solver](
                problem, d, state=None, tol=1e-4, max_iter=10, eta=0.0, xp=backend.xp
            )


def test_hinge_intercept_minimises_the_hinge_loss(rng):
    xp = _np_xp()
    for _ in range(5):
        y = rng.choice([-1.0, 1.0], size=30)
        g = rng.normal(size=30)
        b = float(hinge_intercept(g, y, xp=xp))
        grid = np.linspace(-5, 5, 20001)
        losses = np.maximum(0, 1 - y[None, :] * (g[None, :] + grid[:, None])).sum(axis=1)
        loss_b = np.maximum(0, 1 - y * (g + b)).sum()
        assert loss_b <= losses.min() + 1e-9


def test_lp_weights_by_hand(xp, backend):
    """‖f‖ = (1, 2): p = 1 gives d ∝ ‖f‖; p = 2 gives d_k = ‖f_k‖^{2/3} / (Σ ‖f_j‖^{4/3})^{1/2}."""
    norms2 = backend.asarray(np.array([1.0, 4.0]))
    np.testing.assert_allclose(to_numpy(lp_weights(norms2, 1.0, xp=xp)), [1 / 3, 2 / 3])
    expected = np.array([1.0, 2 ** (2 / 3)]) / np.sqrt(1 + 2 ** (4 / 3))
    d = to_numpy(lp_weights(norms2, 2.0, xp=xp))
    np.testing.assert_allclose(d, expected)
    assert np.linalg.norm(d) == pytest.approx(1.0)
    zeros = backend.asarray(np.zeros(4))
    np.testing.assert_allclose(to_numpy(lp_weights(zeros, 3.0, xp=xp)), np.full(4, 4 ** (-1 / 3)))


@pytest.mark.parametrize("p", [1.5, 2.0, 3.0])
def test_lp_mkl_matches_the_full_kernel_mkl(p):
    """With exact factors (V_k V_kᵀ = K_k) the low-rank MKL is the full-kernel MKL."""
    factors, y, d_ref, _, _ = _exact_mkl(p=p)
    problem = svm_problem(factors, y, 10.0, xp=_np_xp())
    result = solve_lp_mkl(
        problem,
        p,
        solver="interior_point",
        stop="change",
        tol=1e-10,
        weight_tol=1e-9,
        max_outer_iter=300,
        xp=_np_xp(),
    )
    assert result.converged
    np.testing.assert_allclose(result.weights, d_ref, atol=1e-5)


@pytest.mark.parametrize("p", [1.5, 2.0, 3.0])
def test_hinge_mkl_by_newton_matches_the_full_kernel_mkl(p):
    """The hinge through Newton's smoothing continuation (``solver="auto"``) reaches the
    full-kernel hinge MKL of libsvm, certified by the MKL gap."""
    factors, y, d_ref, _, _ = _exact_mkl(p=p)
    problem = svm_problem(factors, y, 10.0, xp=_np_xp())
    result = solve_lp_mkl(problem, p, mkl_tol=1e-9, max_iter=500, max_outer_iter=1000, xp=_np_xp())
    assert result.converged
    assert isinstance(result.solution.state, NewtonState)
    np.testing.assert_allclose(result.weights, d_ref, atol=1e-4)
    assert 0.0 <= mkl_duality_gap(problem, result.solution, p, xp=_np_xp()) <= 1e-9


@pytest.mark.parametrize("seed", [0, 1])
def test_mkl_objective_decreases_and_eq5_does_not(seed):
    """Erratum: with ‖f_k‖² = d_k²αᵀYK_kYα the alternation decreases the MKL objective at every
    step; with eq. (5)'s d_k αᵀYK_kYα it can increase and ends higher."""
    rng = np.random.default_rng(seed)
    n = 80
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    Vs = [rng.normal(size=(n, 10)) * s for s in (0.2, 0.5, 1.0, 2.0)]
    problem = svm_problem(Vs, y, 10.0, xp=_np_xp())
    options = dict(
        solver="interior_point", stop="change", tol=1e-10, weight_tol=1e-7, max_outer_iter=300
    )
    right = solve_lp_mkl(problem, 1.5, xp=_np_xp(), **options)
    paper = solve_lp_mkl(problem, 1.5, paper_norms=True, xp=_np_xp(), **options)
    assert np.all(np.diff(right.objectives) < 1e-8)
    assert np.max(np.diff(paper.objectives)) > 1e-2
    assert right.objectives[-1] < paper.objectives[-1] - 0.1


def _classification(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] ** 2 + X[:, 1] ** 2 > 1.4).astype(int)
    return X, y


def test_classifier_on_every_backend(backend):
    X, y = _classification(n=80)
    params = dict(kernels=[Gaussian(gamma=g) for g in (0.1, 1.0)], rank=10, C=10.0, random_state=0)
    reference = LowRankMKLClassifier(**params).fit(X, y)
    assert reference.score(X, y) > 0.9
    fitted = LowRankMKLClassifier(**params).fit(backend.asarray(X), backend.asarray(y))
    np.testing.assert_allclose(
        to_numpy(fitted.kernel_weights_), reference.kernel_weights_, atol=1e-8
    )
    Xb = backend.asarray(X)
    np.testing.assert_allclose(
        to_numpy(fitted.decision_function(Xb)), reference.decision_function(X), atol=1e-7
    )
    np.testing.assert_array_equal(to_numpy(fitted.predict(Xb)), reference.predict(X))
    p = 2.0
    assert np.sum(to_numpy(fitted.kernel_weights_) ** p) == pytest.approx(1.0)


@pytest.mark.parametrize("p", [1.0, 1.3, 4.0])
def test_classifier_weights_satisfy_the_lp_constraint(p):
    X, y = _classification(seed=1)
    clf = LowRankMKLClassifier(rank=10, p=p, random_state=0).fit(X, y)
    assert np.all(clf.kernel_weights_ >= 0)
    assert np.sum(clf.kernel_weights_**p) ** (1 / p) == pytest.approx(1.0)


def test_classifier_decision_is_the_features_model():
    """decision_function = features_.transform(X) @ coef_ + intercept_, and coef_ is
    d_k V_kᵀYα of each kernel's block for the solution's α."""
    X, y = _classification()
    clf = LowRankMKLClassifier(rank=8, random_state=0).fit(X, y)
    features = clf.features_.transform(X)
    np.testing.assert_allclose(
        clf.decision_function(X), features @ clf.coef_ + clf.intercept_, atol=1e-12
    )
    assert clf.coef_.shape == (clf.features_.n_components_,)


def test_multiclass_one_vs_rest_with_text_labels():
    rng = np.random.default_rng(0)
    centres = np.array([[0, 0], [3, 0], [0, 3]])
    X = np.concatenate([c + rng.normal(size=(30, 2)) for c in centres])
    y = np.repeat(np.array(["a", "b", "c"]), 30)
    clf = LowRankMKLClassifier(rank=10, random_state=0).fit(X, y)
    assert clf.kernel_weights_.shape == (3, 7)
    assert clf.decision_function(X).shape == (90, 3)
    assert clf.score(X, y) > 0.9
    np.testing.assert_array_equal(clf.classes_, ["a", "b", "c"])


@pytest.mark.parametrize("solver", ["gfb", "gfb_naive", "interior_point", "liblinear"])
def test_every_solver_gives_the_same_weights(solver):
    X, y = _classification(n=80)
    params = dict(rank=6, C=1.0, random_state=0, max_iter=20000, max_outer_iter=300, stop="change")
    params["loss"] = "hinge"
    reference = LowRankMKLClassifier(solver="interior_point", tol=1e-10, **params).fit(X, y)
    tol = 1e-4 if solver == "liblinear" else 1e-10
    clf = LowRankMKLClassifier(solver=solver, tol=tol, weight_tol=1e-6, **params).fit(X, y)
    np.testing.assert_allclose(clf.kernel_weights_, reference.kernel_weights_, atol=5e-3)
    if solver == "liblinear":  # no dual point
        assert np.isnan(clf.duality_gap_)
    else:
        assert 0 <= clf.duality_gap_ < 1e-6


def test_classifier_gap_rule_reaches_the_optimum():
    """stop="gap" ends each fit with the duality gap it asked for, and the weights of the
    interior-point fit; the default relative-change rule reports the gap it stopped at."""
    X, y = _classification(n=80)
    params = dict(rank=6, C=1.0, random_state=0, max_outer_iter=300, loss="hinge")
    reference = LowRankMKLClassifier(
        solver="interior_point", tol=1e-10, stop="change", **params
    ).fit(X, y)
    clf = LowRankMKLClassifier(solver="gfb", stop="gap", tol=1e-5, max_iter=200000, **params).fit(
        X, y
    )
    assert clf.duality_gap_ <= 1e-5
    np.testing.assert_allclose(clf.kernel_weights_, reference.kernel_weights_, atol=5e-3)
    default = LowRankMKLClassifier(solver="gfb", **params).fit(X, y)
    assert default.duality_gap_ > 0


def test_bad_input_raises_clear_errors():
    X, y = _classification(n=30)
    with pytest.raises(ValueError, match="at least 2 classes"):
        LowRankMKLClassifier(rank=5).fit(X, np.zeros(30))
    with pytest.raises(ValueError, match="n_landmarks must be an integer between"):
        LowRankMKLClassifier(rank=10, n_landmarks=5).fit(X, y)
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="finite"):
        LowRankMKLClassifier(rank=5).fit(X_nan, y)
    with pytest.raises(ValueError, match="Unknown label type"):
        LowRankMKLClassifier(rank=5).fit(X, np.linspace(0, 1, 30))
    with pytest.raises(ValueError, match=r"'alpha_scale' parameter .* \(0.0, inf\).* Got 0.0"):
        LowRankMKLClassifier(rank=5, alpha_scale=0.0).fit(X, y)


def _exact_mkl(seed=2, n=30, C=10.0, p=1.5):
    """Exact factors of three Gaussian kernels, and the full-kernel MKL's weights, dual point
    and objective (SVC alternated with eq. (3) to 1e-10): the independent optimum."""
    _, y, Ks, factors = exact_mkl_problem(seed, n)
    d, svc, _ = full_kernel_mkl(Ks, y, C, p, weight_tol=1e-10, svc_tol=1e-12, max_iter=300)
    beta = np.zeros(n)
    beta[svc.support_] = svc.dual_coef_[0]  # y_i α_i
    K_d = sum(dk * K for dk, K in zip(d, Ks, strict=True))
    decision = K_d @ beta + svc.intercept_[0]
    objective = 0.5 * beta @ K_d @ beta + C * np.sum(np.clip(1 - y * decision, 0, None))
    return factors, y, d, np.abs(beta), objective


@pytest.mark.parametrize("p", [1.0, 1.5, 3.0])
def test_mkl_duality_gap_is_zero_at_the_exact_mkl_and_positive_elsewhere(p):
    factors, y, d, alpha, _ = _exact_mkl()  # the optimum at p = 1.5
    problem = svm_problem(factors, y, 10.0, xp=_np_xp())
    if p == 1.5:
        exact = dual_solution(problem, d, alpha, 0, True, None, xp=_np_xp())
        assert 0 <= mkl_duality_gap(problem, exact, p, xp=_np_xp()) < 1e-5
    rng = np.random.default_rng(0)
    for _ in range(5):
        weights = rng.uniform(0.1, 1.0, size=3)
        weights /= np.linalg.norm(weights, ord=p)
        point = rng.uniform(0, 10.0, size=y.shape[0])
        solution = dual_solution(problem, weights, point, 0, False, None, xp=_np_xp())
        assert mkl_duality_gap(problem, solution, p, xp=_np_xp()) > 1e-3


def test_gap_rule_certifies_the_exact_mkl_objective():
    """stop="mkl_gap": the fit stops with an MKL gap ≤ mkl_tol, and then its objective is within
    (relative) of the full-kernel MKL's optimum and its weights near that MKL's."""
    factors, y, d_ref, _, optimum = _exact_mkl()
    problem = svm_problem(factors, y, 10.0, xp=_np_xp())
    for tol in (1e-2, 1e-4):
        result = solve_lp_mkl(
            problem, 1.5, stop="mkl_gap", mkl_tol=tol, max_iter=100000, xp=_np_xp()
        )
        assert result.converged
        gap = mkl_duality_gap(problem, result.solution, 1.5, xp=_np_xp())
        assert gap <= tol
        assert abs(result.objectives[-1] - optimum) <= 2 * tol * optimum
    np.testing.assert_allclose(result.weights, d_ref, atol=2e-2)


@pytest.mark.parametrize("solver", ["gfb", "gfb_naive", "newton"])
def test_gap_rule_does_not_hang_on_the_last_bits(solver):
    """scikit-learn's check_fit_idempotent data (100 rows near 100, random labels, a Gaussian and
    a linear kernel): the weight-change rule converged or not by the BLAS kernel; the gap rule
    stops, and a fit on data perturbed by one ulp stops at the same update within one."""
    rng = np.random.RandomState(0)
    X = rng.normal(loc=100, size=(80, 2))
    y = rng.randint(0, 2, size=80)
    params = dict(kernels=[Gaussian(0.1), "linear"], p=1.2, rank=5, solver=solver, random_state=0)
    params["loss"] = "squared_hinge" if solver == "newton" else "hinge"
    fits = [
        LowRankMKLClassifier(**params).fit(X_, y) for X_ in (X, np.nextafter(X, np.inf))
    ]  # a ConvergenceWarning would fail the test (warnings are errors)
    assert abs(fits[0].n_iter_ - fits[1].n_iter_) <= 1
    np.testing.assert_allclose(fits[0].kernel_weights_, fits[1].kernel_weights_, atol=1e-2)


def test_non_finite_iterates_stop_with_the_parameter_named():
    X, y = _classification(n=40)
    with pytest.raises(ValueError, match=r"alpha_scale must .* received 1e\+300"):
        LowRankMKLClassifier(rank=5, alpha_scale=1e300, loss="hinge", solver="gfb").fit(X, y)
    with pytest.raises(ValueError, match=r"alpha_scale must .* received 1e\+300"):
        LowRankMKLClassifier(
            rank=5, alpha_scale=1e300, stop="change", loss="hinge", solver="gfb"
        ).fit(X, y)


def test_large_eta_takes_a_step_that_converges():
    """ζ = 1/max(1, ηt²): at η = 100 GFB converges to the exact SVM with kernel K_d + ηI."""
    Vs, y = _svm_data()
    d = np.array([0.5, 0.3, 0.2])
    eta = 100.0
    K = sum(dk * V @ V.T for dk, V in zip(d, Vs, strict=True)) + eta * np.eye(y.shape[0])
    alpha_ref, _ = _svc_reference(K, y, 1.0)
    problem = svm_problem(Vs, y, 1.0, xp=_np_xp())
    solution = solve_gfb_svm(
        problem, d, eta=eta, stop="gap", tol=1e-10, max_iter=100000, xp=_np_xp()
    )
    assert solution.converged
    np.testing.assert_allclose(solution.alpha, alpha_ref, atol=1e-6)


@pytest.mark.parametrize("eta", [1e100, 1e200])
def test_a_gap_below_its_own_rounding_reads_zero_and_a_real_one_does_not(eta):
    """At a huge η the kernel part of the margins is below rounding and the optimum is
    α_i = (1 − y_i b)/η with b = (n₊ − n₋)/n (yᵀα = 0): every margin is 1 up to the last bits,
    which decided whether the gap converged on one CPU's BLAS kernel and not on another's.
    Scaled by f > 1 its margins are f and its gap is exactly 2(f − 1)/f; scaled below 1 every
    row pays a hinge of 1 − f and the gap is near 1."""
    xp = _np_xp()
    Vs, y = _svm_data()
    d = np.array([0.5, 0.3, 0.2])
    problem = svm_problem(Vs, y, 1.0, xp=xp)
    alpha = (1.0 - y * np.mean(y)) / eta
    assert duality_gap(problem, d, alpha, eta=eta, xp=xp) == 0.0
    np.testing.assert_allclose(
        duality_gap(problem, d, 1.01 * alpha, eta=eta, xp=xp), 0.02 / 1.01, rtol=1e-9
    )
    assert duality_gap(problem, d, 0.99 * alpha, eta=eta, xp=xp) > 0.99
    solution = solve_gfb_svm(
        problem, d, eta=eta, stop="gap", tol=1e-6, max_iter=3000, alpha_scale="auto", xp=xp
    )
    assert solution.converged
    np.testing.assert_allclose(solution.alpha, alpha, rtol=1e-9)


def _bad_calls():
    xp = _np_xp()
    Vs, y = _svm_data(n=20, R=4)
    problem = svm_problem(Vs, y, 1.0, xp=xp)
    d = np.full(3, 0.5)
    return [
        (lambda: svm_problem(Vs, y, 0.0, xp=xp), ValueError, "C must be"),
        (lambda: svm_problem(Vs, (y + 1) / 2, 1.0, xp=xp), ValueError, "y must hold the labels"),
        (lambda: svm_problem([], y, 1.0, xp=xp), TypeError, "features must be a non-empty"),
        (lambda: svm_problem([Vs[0][:5]], y, 1.0, xp=xp), ValueError, r"features\[0\] must have"),
        (
            lambda: svm_problem([Vs[0] * np.nan], y, 1.0, xp=xp),
            ValueError,
            r"features\[0\] must contain only finite",
        ),
        (lambda: solve_lp_mkl(problem, 0.5, xp=xp), ValueError, "p must be"),
        (
            lambda: solve_lp_mkl(problem, 2.0, solver="smo", xp=xp),
            ValueError,
            "solver must be one of",
        ),
        (lambda: solve_lp_mkl(problem, 2.0, max_outer_iter=0, xp=xp), ValueError, "max_outer_iter"),
        (lambda: solve_lp_mkl(problem, 2.0, weights=-d, xp=xp), ValueError, "weights must hold 3"),
        (lambda: solve_lp_mkl("problem", 2.0, xp=xp), TypeError, "problem must be an SVMProblem"),
        (lambda: lp_weights(np.ones(3), -1.0, xp=xp), ValueError, "p must be"),
        (lambda: lp_weights(-np.ones(3), 2.0, xp=xp), ValueError, "norms2 must hold"),
        (lambda: solve_gfb_svm(problem, -d, xp=xp), ValueError, "d must hold 3 non-negative"),
        (
            lambda: solve_gfb_svm(problem, d * np.nan, xp=xp),
            ValueError,
            "d must contain only finite",
        ),
        (lambda: solve_gfb_svm(problem, d[:2], xp=xp), ValueError, "d must hold 3"),
        (lambda: solve_gfb_svm(problem, d, max_iter=-1, xp=xp), ValueError, "max_iter must be"),
        (
            lambda: solve_gfb_svm(problem, d, variant="fast", xp=xp),
            ValueError,
            "variant must be one",
        ),
        (
            lambda: solve_gfb_svm(problem, d, relaxation=2.0, xp=xp),
            ValueError,
            "relaxation must be",
        ),
        (lambda: solve_gfb_svm(problem, d, eta=-1.0, xp=xp), ValueError, "eta must be"),
    ]


@pytest.mark.parametrize("index", range(19))
def test_functional_api_refuses_bad_arguments_by_name(index):
    call, error, message = _bad_calls()[index]
    with pytest.raises(error, match=message):
        call()


def test_a_nan_score_never_becomes_a_label():
    X, y = _classification(n=40)
    clf = LowRankMKLClassifier(rank=5, random_state=0).fit(X, y)
    clf.intercept_ = clf.intercept_ * np.nan  # a model whose scores are NaN
    with pytest.raises(ValueError, match="decision values of X are not finite"):
        clf.predict(X)


@pytest.mark.parametrize("eta", [1e8, 1e16, 1e100, 1e200, 1e300])
def test_a_huge_eta_gives_the_majority_class_with_finite_decision_values(eta):
    """η/2‖α‖² weighs α as a squared hinge with C = 1/η: the kernel part shrinks as 1/η and the
    model tends to the class balance (η = 1e300, which the constraints allow, once ran 130 s on
    40 rows and gave NaN decision values)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] > 0.3).astype(int)  # 20 of class 0, 10 of class 1
    model = LowRankMKLClassifier(
        kernels=[Gaussian(gamma=1.0)], rank=5, eta=eta, loss="hinge", random_state=0
    ).fit(X, y)
    decision = model.decision_function(X)
    assert np.all(np.isfinite(decision))
    assert np.ptp(decision) < 1e-6  # the kernel part, of order 1/η
    np.testing.assert_array_equal(model.predict(X), np.zeros(30, dtype=int))


def _circle(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X[:, 0] ** 2 + X[:, 1] ** 2 > 1.4).astype(int)


def test_the_default_rule_reaches_the_optimum_at_a_large_c():
    """The squared hinge at C = 10⁴: the first SVM, solved loosely, left the MKL gap near 1, and
    every later SVM was asked for the same loose tolerance, took one Newton step, and the fit
    stopped 34 % above the optimum ("not converged", whatever max_iter). The SVMs' tolerances
    now fall by half at least each update: the fit converges, at the objective of SVMs solved
    to 1e-10."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    X, y = _circle(500, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = LowRankMKLClassifier(rank=30, C=1e4, random_state=0).fit(X, y)
    exact = LowRankMKLClassifier(rank=30, C=1e4, random_state=0, stop="gap", tol=1e-10)
    exact.fit(X, y)
    assert model.objectives_[-1] <= exact.objectives_[-1] * (1 + 1e-3)


def test_a_slowly_converging_gap_is_not_taken_for_a_stall():
    """p = 1: the gap is not monotone (3.0e-3, then up to 4.8e-3, back under 3.0e-3 17 updates
    later), and a stall window of 10 updates stopped the fit at 4.3e-3, above mkl_tol."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    X, y = _circle(200, 3)
    gaps = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        LowRankMKLClassifier(
            rank=10, p=1, C=10.0, loss="hinge", random_state=0, callback=lambda s: gaps.append(s)
        ).fit(X, y)
    assert gaps[-1].duality_gap <= 1e-3


@pytest.mark.parametrize(
    "params",
    [{}, {"shared_landmarks": True}, {"method": "icd"}, {"method": "csi"}],
    ids=["nystrom", "shared", "icd", "csi"],
)
def test_a_kernel_zero_on_the_data_gives_a_constant_model(params):
    """A Linear kernel on all-zero rows: the Nyström landmark block is 0 (its jitter too: the
    features were 1/√0, NaN) and ICD/CSI keep no column (a ZeroDivisionError in Newton's row
    blocks). The features are now 0, and the model the intercept alone."""
    from lrkl.kernels import Linear

    y = np.random.default_rng(0).integers(0, 2, 50)
    model = LowRankMKLClassifier(kernels=[Linear()], rank=5, random_state=0, **params)
    scores = model.fit(np.zeros((50, 2)), y).decision_function(np.zeros((4, 2)))
    assert np.all(np.isfinite(scores)) and np.ptp(scores) == 0.0


def test_a_callbacks_stop_does_not_warn_and_a_cap_says_which():
    """A callback that returns True stops the fit as asked: no ConvergenceWarning (it said to
    raise max_iter); the outer cap's warning names max_outer_iter."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    X, y = _circle(200, 3)
    params = {"rank": 10, "p": 1, "C": 10.0, "loss": "hinge", "random_state": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = LowRankMKLClassifier(callback=lambda state: True, **params).fit(X, y)
    assert model.n_iter_ == 1
    with pytest.warns(ConvergenceWarning, match="max_outer_iter"):
        LowRankMKLClassifier(max_outer_iter=2, **params).fit(X, y)


@pytest.mark.parametrize("given", ["class_weight", "sample_weight"])
def test_a_class_without_weight_is_named_in_the_users_terms(given):
    """It said "sample_weight must give each class a positive total weight, class +1 has 0"
    for a class_weight of 0, naming the one-vs-rest encoding, not the label."""
    X = np.random.default_rng(0).normal(size=(90, 3))
    y = np.repeat(["a", "b", "c"], 30)
    params = {"class_weight": {"a": 1, "b": 1, "c": 0}} if given == "class_weight" else {}
    weights = np.r_[np.ones(60), np.zeros(30)] if given == "sample_weight" else None
    model = LowRankMKLClassifier(rank=5, random_state=0, **params)
    with pytest.raises(ValueError, match=f"{given} must give every class .* class 'c' has 0"):
        model.fit(X, y, sample_weight=weights)


@pytest.mark.parametrize(
    ("loss", "solver"), [("hinge", "newton"), ("squared_hinge", "newton"), ("hinge", "gfb")]
)
def test_huge_sample_weights_solve_the_problem_of_a_huge_C(loss, solver):
    """Newton scaled its objective by max(C, 1) only: weights of 1e300 overflowed its sums
    ("unbounded below" for the hinge); GFB chose its unit of α from C alone (all decision values
    1 at C = 1e-298, w = 1e300). C·w_i is the row's cost, whichever factor is large or small."""

    X, y = _circle(80, 3)
    params = {"kernels": [Gaussian(0.3), Linear()], "rank": 10, "loss": loss}
    params |= {"solver": solver, "random_state": 0}
    # powers of two: C·w is 64 exactly, so that both fits do the same arithmetic on any BLAS
    weights = np.full(X.shape[0], 2.0**996)  # 6.7e299
    by_weight = LowRankMKLClassifier(C=2.0**-990, **params).fit(X, y, sample_weight=weights)
    by_cost = LowRankMKLClassifier(C=64.0, **params).fit(X, y)
    np.testing.assert_allclose(
        by_weight.decision_function(X), by_cost.decision_function(X), rtol=0, atol=1e-8
    )


def test_costs_outside_the_features_dtype_are_refused():
    """C·max w overflowed (float64: 1e600; float32 features: 1e39, "the MKL objective became
    nan") or underflowed (1e-400: a ZeroDivisionError in Newton's step) inside the solver."""
    X, y = _circle(80, 3)
    params = {"kernels": [Gaussian(0.3), Linear()], "rank": 10, "random_state": 0}
    n = X.shape[0]
    cases = [
        (X, 1e300, np.full(n, 1e300), "inf"),
        (X, 1e-200, np.full(n, 1e-200), "0"),
        (X.astype(np.float32), 1e30, np.full(n, 1e9), "1e[+]39"),
        (X.astype(np.float32), 1e39, None, "1e[+]39"),
    ]
    for rows, C, weights, received in cases:
        name = "C" if weights is None else "C and sample_weight"
        with pytest.raises(ValueError, match=rf"^{name} must give .* received {received}$"):
            LowRankMKLClassifier(C=C, **params).fit(rows, y, sample_weight=weights)
    with pytest.raises(ValueError, match=r"^Cs and sample_weight must give"):
        LowRankMKLClassifierCV(Cs=[1.0, 1e300], rank=5, cv=3).fit(
            X, y, sample_weight=np.full(n, 1e10)
        )


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_sample_weights_beyond_what_float64_resolves_are_refused(loss):
    """One row weighted 1e16 (others 1) gave a model 3 % off the limit of large weights, or at
    1e20 the uniform kernel weights after one step, with no warning: its cost hid every other
    row's in the rounding. Spans up to 1e10 stay at that limit; larger ones are refused."""
    X, y = _circle(80, 3)
    params = {"kernels": [Gaussian(0.3), Linear()], "rank": 10, "loss": loss, "random_state": 0}

    def one_heavy_row(weight):
        w = np.ones(X.shape[0])
        w[3] = weight
        return LowRankMKLClassifier(**params).fit(X, y, sample_weight=w).decision_function(X)

    # within what the MKL's stopping rule (mkl_tol=1e-3) leaves open, far below the 0.03–0.045
    # that spans of 1e12–1e16 moved these decision values (of order 1–6)
    np.testing.assert_allclose(one_heavy_row(1e10), one_heavy_row(1e6), rtol=0, atol=1e-3)
    with pytest.raises(ValueError, match=r"sample_weight must keep .* 1e\+10 .* from 1 to 1e\+16"):
        one_heavy_row(1e16)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # (liblinear's)
@pytest.mark.parametrize("solver", ["newton", "gfb", "liblinear", "interior_point"])
def test_every_solver_keeps_float32_in_float32(solver):
    """liblinear and the interior point returned float64 weights (their libraries' dtype) for
    float32 features, so that coef_, intercept_ and kernel_weights_ depended on the solver."""
    if solver == "interior_point":
        pytest.importorskip("clarabel")
    X, y = _circle(60, 3)
    X = X.astype(np.float32)
    model = LowRankMKLClassifier(rank=5, solver=solver, loss="hinge", random_state=0).fit(X, y)
    dtypes = {model.coef_.dtype, model.intercept_.dtype, model.kernel_weights_.dtype}
    assert dtypes == {np.dtype(np.float32)}
    assert model.decision_function(X).dtype == np.float32


def test_liblinear_stops_on_the_objectives_relative_change():
    """liblinear gives no dual point, so stop="mkl_gap" ends its loop at the first update whose
    MKL objective moved by at most mkl_tol relative (not by the weights, which need not
    settle); tightening mkl_tol brings the weights to the interior point's."""
    X, y = _classification(n=80)
    params = dict(rank=6, C=1.0, random_state=0, max_iter=20000, max_outer_iter=300, loss="hinge")
    reference = LowRankMKLClassifier(
        solver="interior_point", tol=1e-10, stop="change", weight_tol=1e-8, **params
    ).fit(X, y)
    for mkl_tol, atol in ((1e-3, 5e-2), (1e-5, 1e-2)):
        # (a ConvergenceWarning would fail the test: warnings are errors)
        clf = LowRankMKLClassifier(solver="liblinear", tol=1e-6, mkl_tol=mkl_tol, **params)
        clf.fit(X, y)
        objectives = np.asarray(clf.objectives_)
        changes = np.abs(np.diff(objectives)) / np.abs(objectives[1:])
        assert len(changes) >= 2  # (on these data: 5 and 10 updates)
        assert changes[-1] <= mkl_tol < changes[:-1].min()
        np.testing.assert_allclose(clf.kernel_weights_, reference.kernel_weights_, atol=atol)


def test_a_capped_last_svm_is_named_as_the_reason():
    """liblinear capped at one iteration: the objective settles, but the warning names the
    SVM's max_iter, not max_outer_iter (which was not reached)."""
    from sklearn.exceptions import ConvergenceWarning

    X, y = _classification(n=80)
    clf = LowRankMKLClassifier(rank=6, loss="hinge", solver="liblinear", max_iter=1, random_state=0)
    with pytest.warns(ConvergenceWarning, match="last SVM stopped at max_iter=1 before its tol"):
        clf.fit(X, y)
    assert clf.n_iter_ < clf.max_outer_iter

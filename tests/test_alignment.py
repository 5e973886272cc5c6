"""Centred-alignment MKL: statistics, align / alignf / alignfc weights, and the estimator."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
from sklearn.base import clone

from lrkl import AlignmentKernelRidge, alignment, lowrank
from lrkl._backend import to_numpy
from lrkl.alignment import kernel_alignment
from lrkl.kernels import Gaussian, Laplacian, Linear, Polynomial

from ._reference import alignment_statistics, centring, kernel_ridge

KERNELS = (
    Gaussian(gamma=0.2),
    Gaussian(gamma=2.0),
    Laplacian(gamma=0.5),
    Linear(),
    Polynomial(degree=2, gamma=1.0),
)


def qp_minimize(M, a):
    """min_{v ≥ 0} vᵀMv − 2aᵀv by a general bound-constrained optimiser."""
    p = len(a)
    res = scipy.optimize.minimize(
        lambda v: v @ M @ v - 2 * a @ v,
        np.full(p, 1.0 / p),
        jac=lambda v: 2 * (M @ v - a),
        bounds=[(0, None)] * p,
        method="L-BFGS-B",
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10_000},
    )
    return res.x


def qp_nnls(M, a):
    """The same QP as NNLS: M = RᵀR, c = R⁻ᵀa, min_{v ≥ 0} ‖R v − c‖."""
    R = scipy.linalg.cholesky(M + 1e-13 * np.trace(M) * np.eye(len(a)))
    c = scipy.linalg.solve_triangular(R, a, trans="T")
    return scipy.optimize.nnls(R, c)[0]


@pytest.fixture
def data(rng):
    X = rng.standard_normal((30, 4))
    Z = rng.standard_normal((6, 4))
    y = X[:, 0] - np.sin(2 * X[:, 1]) + 0.1 * rng.standard_normal(30)
    return X, Z, y


def random_problem(rng, p, negative):
    B = rng.standard_normal((p + 3, p))
    M = B.T @ B
    a = rng.standard_normal(p) if negative else np.abs(rng.standard_normal(p))
    return M, a


# --------------------------------------------------------------------------- weights


@pytest.mark.parametrize("seed", range(6))
def test_alignfc_matches_direct_qp_solutions(backend, seed):
    rng = np.random.default_rng(seed)
    M, a = random_problem(rng, 8, negative=seed % 2 == 0)
    v = qp_nnls(M, a)
    assert np.any(v == 0) or seed % 2  # the problems with negative a have active bounds
    expected = v / v.sum()
    np.testing.assert_allclose(
        qp_minimize(M, a) / qp_minimize(M, a).sum(), expected, atol=1e-5
    )  # the two references agree
    eta = alignment.alignment_weights(backend.asarray(a), backend.asarray(M), "alignfc")
    np.testing.assert_allclose(to_numpy(eta), expected, atol=1e-8)


def test_alignfc_kkt_conditions(backend, rng):
    M, a = random_problem(rng, 12, negative=True)
    eta = to_numpy(alignment.alignment_weights(backend.asarray(a), backend.asarray(M), "alignfc"))
    v = eta * (a @ eta) / (eta @ M @ eta)  # undo the ℓ1 scaling: the optimal scale along η
    grad = 2 * (M @ v - a)
    assert np.all(v >= 0)
    np.testing.assert_allclose(grad[v > 0], 0.0, atol=1e-9)
    assert np.all(grad[v == 0] >= -1e-9)


def test_alignf_matches_the_closed_form(backend, rng):
    M, a = random_problem(rng, 6, negative=True)
    v = np.linalg.solve(M, a)
    eta = alignment.alignment_weights(backend.asarray(a), backend.asarray(M), "alignf")
    np.testing.assert_allclose(to_numpy(eta), v / np.linalg.norm(v), atol=1e-10)
    # It maximises the alignment ⟨Σ η K_c, yyᵀ⟩ / ‖Σ η K_c‖ = ηᵀa / sqrt(ηᵀMη).
    best = to_numpy(eta) @ a / np.sqrt(to_numpy(eta) @ M @ to_numpy(eta))
    for _ in range(50):
        w = rng.standard_normal(6)
        assert w @ a / np.sqrt(w @ M @ w) <= best + 1e-12


def test_align_weights_and_degenerate_cases(backend):
    a = np.array([1.0, 3.0, 0.0])
    M = np.diag([1.0, 2.0, 3.0])
    eta = alignment.alignment_weights(backend.asarray(a), backend.asarray(M), "align")
    np.testing.assert_allclose(to_numpy(eta), [0.25, 0.75, 0.0])
    zero = backend.asarray(np.zeros(3))
    for method in ("align", "alignf", "alignfc"):
        out = alignment.alignment_weights(zero, backend.asarray(M), method)
        np.testing.assert_allclose(to_numpy(out), 0.0)


def test_alignment_weights_bad_input(backend):
    a, M = backend.asarray(np.ones(3)), backend.asarray(np.eye(3))
    with pytest.raises(ValueError, match="method must be one of 'align', 'alignf', 'alignfc'"):
        alignment.alignment_weights(a, M, "alignx")
    with pytest.raises(ValueError, match=r"M must have shape \(3, 3\)"):
        alignment.alignment_weights(a, backend.asarray(np.eye(2)), "alignf")
    with pytest.raises(ValueError, match="a must contain only finite values"):
        alignment.alignment_weights(backend.asarray(np.array([1.0, np.nan, 0.0])), M, "align")


# --------------------------------------------------------------------------- statistics


def test_kernel_alignment_matches_dense(backend, data):
    X, _, y = data
    Ks = [k(X, X) for k in KERNELS]
    a, M = kernel_alignment([backend.asarray(K) for K in Ks], backend.asarray(y))
    a_ref, M_ref = alignment_statistics(Ks, y)
    np.testing.assert_allclose(to_numpy(a), a_ref, rtol=1e-10)
    np.testing.assert_allclose(to_numpy(M), M_ref, rtol=1e-10)


def test_factor_alignment_matches_dense(backend, data):
    X, _, y = data
    factors = [lowrank.icd(k, backend.asarray(X), 5) for k in KERNELS[:3]]
    Gs = [to_numpy(f.G) for f in factors]
    a, M = alignment.factor_alignment([f.G for f in factors], backend.asarray(y))
    a_ref, M_ref = alignment_statistics([G @ G.T for G in Gs], y)
    np.testing.assert_allclose(to_numpy(a), a_ref, rtol=1e-10)
    np.testing.assert_allclose(to_numpy(M), M_ref, rtol=1e-10)
    # Rank-one kernels, one per feature (the paper's §4.2): columns of X as 1-D factors.
    cols = [backend.asarray(X[:, j]) for j in range(4)]
    a1, M1 = alignment.factor_alignment(cols, backend.asarray(y))
    a1_ref, M1_ref = alignment_statistics([np.outer(X[:, j], X[:, j]) for j in range(4)], y)
    np.testing.assert_allclose(to_numpy(a1), a1_ref, rtol=1e-10)
    np.testing.assert_allclose(to_numpy(M1), M1_ref, rtol=1e-10)


def test_factor_alignment_bad_input(backend, data):
    X, _, y = data
    with pytest.raises(ValueError, match="factors must hold at least one factor"):
        alignment.factor_alignment([], backend.asarray(y))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        alignment.factor_alignment([backend.asarray(X)], backend.asarray(y[:5]))


# --------------------------------------------------------------------------- the estimator


def reference_prediction(X, Z, y, eta, centred, alpha, fit_intercept, sample_weight=None):
    """KRR on Σ η_q K_q (centred in feature space by the training mean), dense NumPy."""
    n = len(y)
    P = centring(n)
    K = np.zeros((n, n))
    Kz = np.zeros((len(Z), n))
    for w, k in zip(eta, KERNELS, strict=True):
        Kq, Kzq = k(X, X), k(Z, X)
        if centred:
            Kzq = (Kzq - np.ones((len(Z), n)) @ Kq / n) @ P
            Kq = P @ Kq @ P
        K += w * Kq
        Kz += w * Kzq
    dual, bias = kernel_ridge(K, y, alpha, fit_intercept, sample_weight)
    return Kz @ dual + bias


@pytest.mark.parametrize("method", ["align", "alignf", "alignfc"])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_alignment_kernel_ridge_matches_dense(backend, data, method, fit_intercept):
    X, Z, y = data
    model = AlignmentKernelRidge(KERNELS, method=method, alpha=0.5, fit_intercept=fit_intercept)
    model.fit(backend.asarray(X), backend.asarray(y))
    a, M = alignment_statistics([k(X, X) for k in KERNELS], y)
    if method == "align":
        eta = a / a.sum()
    elif method == "alignf":
        eta = np.linalg.solve(M, a)
        eta /= np.linalg.norm(eta)
    else:
        eta = qp_nnls(M, a)
        eta /= eta.sum()
    np.testing.assert_allclose(to_numpy(model.target_alignment_), a, rtol=1e-10)
    np.testing.assert_allclose(to_numpy(model.kernel_alignment_), M, rtol=1e-10)
    np.testing.assert_allclose(to_numpy(model.kernel_weights_), eta, atol=1e-7)
    expected = reference_prediction(X, Z, y, eta, method != "align", 0.5, fit_intercept)
    pred = model.predict(backend.asarray(Z))
    assert type(pred) is type(backend.asarray(Z))
    np.testing.assert_allclose(to_numpy(pred), expected, atol=1e-6)


def test_alignfc_drops_irrelevant_kernels(data, rng):
    X, _, _ = data
    y = X[:, 2] + 0.01 * rng.standard_normal(30)
    model = AlignmentKernelRidge([Linear(), Gaussian(gamma=50.0)], "alignfc").fit(X, y)
    assert to_numpy(model.kernel_weights_)[0] > 0.9


@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"kernels": []}, ValueError, "kernels must hold at least one Kernel"),
        ({"kernels": (Linear(), 3)}, TypeError, r"kernels\[1\] must be .* received int"),
        ({"method": "alignx"}, ValueError, "'method' parameter"),
        ({"alpha": 0.0}, ValueError, "'alpha' parameter"),
    ],
)
def test_alignment_kernel_ridge_bad_parameters(data, params, error, match):
    X, _, y = data
    with pytest.raises(error, match=match):
        AlignmentKernelRidge(**{"kernels": KERNELS, **params}).fit(X, y)


def test_alignment_kernel_ridge_bad_data(backend, data):
    X, Z, y = data
    Xnan = X.copy()
    Xnan[1, 1] = np.inf
    model = AlignmentKernelRidge(KERNELS, "alignf")
    with pytest.raises(ValueError, match="X must contain only finite values"):
        model.fit(backend.asarray(Xnan), backend.asarray(y))
    model.fit(backend.asarray(X), backend.asarray(y))
    with pytest.raises(ValueError, match="expecting 4 features"):
        model.predict(backend.asarray(Z[:, :3]))


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_alignment_kernel_ridge_sample_weight_matches_dense(backend, data, fit_intercept):
    """Weights enter the ridge solve only: the kernel weights are those of the unweighted fit."""
    X, Z, y = data
    w = np.random.default_rng(5).uniform(0.1, 3.0, size=len(y))
    model = AlignmentKernelRidge(KERNELS, method="alignf", alpha=0.5, fit_intercept=fit_intercept)
    plain = clone(model).fit(backend.asarray(X), backend.asarray(y))
    model.fit(backend.asarray(X), backend.asarray(y), sample_weight=backend.asarray(w))
    eta = to_numpy(model.kernel_weights_)
    np.testing.assert_allclose(eta, to_numpy(plain.kernel_weights_), atol=1e-12)
    expected = reference_prediction(X, Z, y, eta, True, 0.5, fit_intercept, w)
    np.testing.assert_allclose(to_numpy(model.predict(backend.asarray(Z))), expected, atol=1e-8)


@pytest.mark.parametrize("name", ["factor_alignment", "alignment_weights"])
def test_alignment_functions_read_from_lowrank_warn_and_are_alignment_s(name):
    from lrkl._base import _warn_renamed

    _warn_renamed.cache_clear()  # it warns once per name and process
    with pytest.warns(FutureWarning, match=rf"lrkl.lowrank.{name} is now lrkl.alignment.{name}"):
        moved = getattr(lowrank, name)
    assert moved is getattr(alignment, name)
    assert name not in lowrank.__all__
    with pytest.raises(AttributeError, match="no attribute 'not_there'"):
        lowrank.not_there  # noqa: B018

"""The linalg shim's Cholesky: the blocked factorisation against a dense reference on every
backend, its refusal of matrices that are not positive definite, and (marked ``large``, run by
``nox -s tests_large``) the sizes at which OpenBLAS's own threaded ``potrf`` crashes."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from lrkl import _backend as B
from lrkl import _linalg as L


def _spd(rng: np.random.Generator, k: int) -> np.ndarray:
    a = rng.standard_normal((k, k + 3))
    return a @ a.T + 0.5 * np.eye(k)


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> int:
    """Force the blocked path from 9 rows on, with diagonal blocks of 4 rows."""
    monkeypatch.setattr(L, "_DIRECT_MAX", 8)
    monkeypatch.setattr(L, "_BLOCK_SIZE", 4)
    return 4


# ---------------------------------------------------------------------- the blocked factorisation


@pytest.mark.parametrize("k", [9, 12, 13, 23])
@pytest.mark.parametrize("lower", [True, False])
def test_blocked_cholesky_matches_dense(backend, rng, small_blocks, k, lower):
    a = _spd(rng, k)
    x = backend.asarray(a)
    out = L.cholesky(x, xp=backend.xp, lower=lower, shift=0.25)
    expected = np.linalg.cholesky(a + 0.25 * np.eye(k))  # NumPy's dense potrf: the reference
    assert B.device_of(out) == B.device_of(x)
    np.testing.assert_allclose(
        B.to_numpy(out), expected if lower else expected.T, rtol=1e-10, atol=1e-12
    )
    np.testing.assert_array_equal(B.to_numpy(x), a)  # the input is left as it was


def test_blocked_cholesky_float32(backend, rng, small_blocks):
    a = _spd(rng, 13)
    out = L.cholesky(backend.asarray(a, dtype=backend.xp.float32), xp=backend.xp)
    assert out.dtype == backend.xp.float32
    np.testing.assert_allclose(B.to_numpy(out), np.linalg.cholesky(a), rtol=1e-4, atol=1e-4)


def test_blocked_cholesky_reads_the_lower_triangle_only(rng, small_blocks):
    a = _spd(rng, 14)
    garbage = a + np.triu(rng.standard_normal((14, 14)), 1)
    np.testing.assert_allclose(L.cholesky(garbage, xp=np), np.linalg.cholesky(a), rtol=1e-10)


def test_a_read_only_matrix_is_blocked_too(rng, small_blocks, monkeypatch):
    """The blocked factor is written to a new array: a read-only matrix (a memory map) beyond
    the direct size must not reach the one potrf that crashes on some CPUs."""
    calls = []
    into = L.cholesky_into
    monkeypatch.setattr(L, "cholesky_into", lambda *a, **k: calls.append(1) or into(*a, **k))
    a = _spd(rng, 13)
    a.setflags(write=False)
    np.testing.assert_allclose(L.cholesky(a, xp=np), np.linalg.cholesky(a), rtol=1e-10)
    assert calls


@pytest.mark.parametrize("blocked", [False, True])
def test_cho_factor_and_solve_with_shift(backend, rng, monkeypatch, blocked):
    if blocked:
        monkeypatch.setattr(L, "_DIRECT_MAX", 4)
        monkeypatch.setattr(L, "_BLOCK_SIZE", 3)
    a, b = _spd(rng, 11), rng.standard_normal((11, 2))
    xp = backend.xp
    factor = L.cho_factor(backend.asarray(a), xp=xp, shift=2.0)
    solution = L.cho_solve(factor, backend.asarray(b), xp=xp)
    expected = np.linalg.solve(a + 2.0 * np.eye(11), b)
    np.testing.assert_allclose(B.to_numpy(solution), expected, rtol=1e-9, atol=1e-11)


def test_empty_matrix(backend):
    out = L.cholesky(backend.asarray(np.zeros((0, 0))), xp=backend.xp)
    assert out.shape == (0, 0)


# ---------------------------------------------------------------------- not positive definite


@pytest.mark.parametrize("blocked", [False, True])
@pytest.mark.parametrize("pivot", [0, 5, 10])
def test_not_positive_definite_names_size_and_pivot(backend, rng, monkeypatch, blocked, pivot):
    if blocked:
        monkeypatch.setattr(L, "_DIRECT_MAX", 4)
        monkeypatch.setattr(L, "_BLOCK_SIZE", 4)
    a = _spd(rng, 11)
    a[pivot, :] = a[:, pivot] = 0.0  # the leading minor of order pivot + 1 is singular
    a[pivot, pivot] = -1.0
    with pytest.raises(L.NotPositiveDefiniteError) as info:
        L.cholesky(backend.asarray(a), xp=backend.xp)
    error = info.value
    assert isinstance(error, ValueError)
    assert not isinstance(error, np.linalg.LinAlgError)
    assert (error.size, error.pivot) == (11, pivot)
    assert str(error) == (
        f"the matrix (11 × 11) is not positive definite: the Cholesky factorisation failed at "
        f"pivot {pivot} (0-based), where its leading {pivot + 1} × {pivot + 1} minor is not "
        "positive definite"
    )


@pytest.mark.parametrize("blocked", [False, True])
def test_not_positive_definite_after_updates(backend, monkeypatch, blocked):
    """A pivot that only fails once earlier columns are eliminated (every diagonal entry is
    positive): the blocked path must find it in a later block, as LAPACK does."""
    if blocked:
        monkeypatch.setattr(L, "_DIRECT_MAX", 2)
        monkeypatch.setattr(L, "_BLOCK_SIZE", 2)
    a = np.eye(6)
    a[1, 4] = a[4, 1] = 2.0  # the minor of rows {1, 4} is 1 - 4 < 0
    with pytest.raises(L.NotPositiveDefiniteError, match=r"\(6 × 6\).*failed at pivot 4 "):
        L.cholesky(backend.asarray(a), xp=backend.xp)


def test_solve_pos_and_cho_factor_raise_not_positive_definite(backend):
    a = backend.asarray(np.diag([1.0, 2.0, -1.0]))
    b = backend.asarray(np.ones(3))
    with pytest.raises(L.NotPositiveDefiniteError, match="failed at pivot 2"):
        L.solve(a, b, xp=backend.xp, assume_a="pos")
    with pytest.raises(L.NotPositiveDefiniteError, match="failed at pivot 2"):
        L.cho_factor(a, xp=backend.xp, shift=0.5)
    L.cho_factor(a, xp=backend.xp, shift=1.5)  # the shift makes it positive definite


def test_not_positive_definite_error_pickles():
    error = pickle.loads(pickle.dumps(L.NotPositiveDefiniteError(7, 3, name="the kernel")))
    assert (error.size, error.pivot, error.name) == (7, 3, "the kernel")
    assert str(error).startswith("the kernel (7 × 7) is not positive definite")


# ---------------------------------------------------------------------- large (nox -s tests_large)


def _gaussian_kernel(n: int, d: int) -> np.ndarray:
    """A Gaussian kernel matrix of ``n`` normal points in ``d`` dimensions, built in place."""
    X = np.random.default_rng(0).standard_normal((n, d))
    sq = np.einsum("ij,ij->i", X, X)
    K = X @ X.T
    K *= 2.0
    K -= sq[:, None]
    K -= sq[None, :]
    K *= 0.5 / d
    np.exp(K, out=K)
    return K


@pytest.mark.large
def test_large_cholesky_completes():
    """20 000 × 20 000: OpenBLAS's threaded potrf segfaults here with its SkylakeX kernel."""
    n = 20_000
    K = _gaussian_kernel(n, 8)
    factor = L.cho_factor(K, xp=np, shift=1e-3)
    rows = np.random.default_rng(1).choice(n, 50, replace=False)
    # rows of L Lᵀ against the matrix, without forming L Lᵀ (a third n × n)
    product = factor.lower[rows, :] @ factor.lower.T
    expected = K[rows, :]
    expected[np.arange(50), rows] += 1e-3
    np.testing.assert_allclose(product, expected, atol=1e-9)


@pytest.mark.large
def test_large_kernel_ridge_fit_completes():
    """``KernelRidge().fit`` on 20 000 rows: killed the process before the blocked Cholesky."""
    from lrkl import KernelRidge

    rng = np.random.default_rng(0)
    X = rng.standard_normal((20_000, 8))
    y = np.sin(X[:, 0]) + X[:, 1]
    model = KernelRidge().fit(X, y)
    assert np.all(np.isfinite(model.dual_coef_))
    # the fitted model reproduces its training data about as well as a ridge can
    assert np.mean((model.predict(X[:500]) - y[:500]) ** 2) < 0.1 * np.var(y)


@pytest.mark.large
def test_large_kernel_ridge_cv_fit_completes():
    """``KernelRidgeCV().fit`` on 20 000 rows: one eigendecomposition (LAPACK's ``syevd``) of
    the 20 000 × 20 000 kernel matrix gives every α of the grid and its leave-one-out error."""
    from lrkl import KernelRidgeCV

    rng = np.random.default_rng(0)
    X = rng.standard_normal((20_000, 8))
    y = np.sin(X[:, 0]) + X[:, 1] + 0.1 * rng.standard_normal(20_000)
    model = KernelRidgeCV().fit(X, y)
    assert np.all(np.isfinite(model.dual_coef_))
    assert np.all(np.isfinite(model.mse_path_))
    # the chosen α predicts held-out rows of the same function well (noise variance 0.01)
    T = rng.standard_normal((500, 8))
    assert np.mean((model.predict(T) - np.sin(T[:, 0]) - T[:, 1]) ** 2) < 0.1 * np.var(y)


@pytest.mark.large
def test_large_pcg_factors_complete():
    """``solver="pcg"`` at M = 20 000 centres: its own in-place factorisations of ``K_MM + δI``
    and of ``A = T Tᵀ/M − t̄ t̄ᵀ + λ I`` are 20 000 × 20 000 (issue 36's MNIST size), where
    OpenBLAS's threaded potrf segfaults with its SkylakeX kernel. Every row a centre: the
    preconditioner is exact and CG converges in a few iterations."""
    from lrkl import LowRankRidge
    from lrkl.kernels import Gaussian

    rng = np.random.default_rng(0)
    X = rng.standard_normal((20_000, 8))
    y = np.sin(X[:, 0]) + X[:, 1] + 0.1 * rng.standard_normal(20_000)
    model = LowRankRidge(
        kernels=[Gaussian()],
        method="nystrom",
        rank=20_000,
        solver="pcg",
        memory_budget=8 * 2**30,
        random_state=0,
    ).fit(X, y)
    assert model.n_iter_ <= 10
    T = rng.standard_normal((500, 8))
    assert np.mean((model.predict(T) - np.sin(T[:, 0]) - T[:, 1]) ** 2) < 0.1 * np.var(y)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_eigh_on_numpy_is_lapacks_syevd_in_the_input_precision(dtype):
    # NumPy's own eigh computes float32 in float64: a float32 fit must stay float32 arithmetic
    import array_api_compat.numpy as xp
    import scipy.linalg

    A = np.random.default_rng(0).standard_normal((30, 30)).astype(dtype)
    A = A @ A.T
    w, v = L.eigh(A, xp=xp)
    w_ref, v_ref = scipy.linalg.eigh(A, driver="evd")
    assert w.dtype == v.dtype == dtype
    np.testing.assert_array_equal(w, w_ref)
    np.testing.assert_array_equal(v, v_ref)


def test_check_bool_takes_zero_d_booleans_of_any_array_library():
    import array_api_strict

    from lrkl._checks import check_bool

    values = [np.True_, np.asarray(False), array_api_strict.asarray(True)]
    torch = pytest.importorskip("torch")
    values.append(torch.tensor(True))
    assert [check_bool(v, name="fit_intercept") for v in values] == [True, False, True, True]
    for bad in (1, torch.tensor(1), array_api_strict.asarray(1.0), "yes"):
        with pytest.raises(ValueError, match="fit_intercept must be True or False"):
            check_bool(bad, name="fit_intercept")


@pytest.mark.parametrize("call", ["eigh", "lstsq"])
def test_lapack_that_does_not_converge_is_a_value_error(call):
    """LAPACK's failure to converge (here on NaN, which the estimators refuse earlier) is a
    ValueError that says which factorisation of which size, not NumPy's LinAlgError."""
    a = np.full((3, 3), np.nan)
    with pytest.raises(ValueError, match=r"of a 3 × 3 matrix did not converge \(LAPACK"):
        L.eigh(a, xp=np) if call == "eigh" else L.lstsq(a, np.ones(3), xp=np)


@pytest.mark.parametrize("n", [1, 7, 300])
def test_upper_gram_is_the_product_with_the_transpose(xp, n):
    rng = np.random.default_rng(n)
    U = np.triu(rng.normal(size=(n, n)))
    got = L.upper_gram(xp.asarray(U), xp=xp, block=64)
    np.testing.assert_allclose(B.to_numpy(got), U @ U.T, rtol=1e-12, atol=1e-12)


# ------------------------------------------------- two factors in one array (the pcg solver's)


def _stored(U: np.ndarray, *, lower: bool, unit: bool) -> np.ndarray:
    """What cholesky_into writes: U (rows divided by its diagonal with unit), transposed lower."""
    U = U / np.diag(U)[:, None] if unit else U
    return U.T if lower else U


@pytest.mark.parametrize("k", [1, 4, 9, 13])
@pytest.mark.parametrize(("lower", "unit"), [(False, False), (True, True), (True, False)])
def test_cholesky_into_writes_one_triangle_and_leaves_the_other(backend, rng, k, lower, unit):
    a = _spd(rng, k)
    garbage = rng.standard_normal((k, k))
    out = backend.asarray(garbage)
    source = a + np.tril(rng.standard_normal((k, k)), -1)  # only the upper triangle is read
    diagonal = L.cholesky_into(
        backend.asarray(source), out, xp=backend.xp, shift=0.25, lower=lower, unit=unit, block=4
    )
    U = np.linalg.cholesky(a + 0.25 * np.eye(k)).T  # NumPy's dense potrf: the reference
    np.testing.assert_allclose(B.to_numpy(diagonal), np.diag(U), rtol=1e-12)
    got, expected = B.to_numpy(out), _stored(U, lower=lower, unit=unit)
    written = (np.tril if lower else np.triu)(np.ones((k, k), dtype=bool), -1 if lower else 1)
    written |= np.eye(k, dtype=bool) & (not unit)
    np.testing.assert_allclose(got[written], expected[written], rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(got[~written], garbage[~written])  # bit for bit untouched


def test_cholesky_into_in_place_and_from_float32(backend, rng):
    a = _spd(rng, 11)
    x = backend.asarray(a.copy())
    L.cholesky_into(x, x, xp=backend.xp, block=4)  # S is out: T in K's place
    U = np.linalg.cholesky(a).T
    np.testing.assert_allclose(np.triu(B.to_numpy(x)), U, rtol=1e-10, atol=1e-12)
    out = backend.asarray(np.zeros((11, 11)))
    narrow = backend.asarray(a, dtype=backend.xp.float32)
    L.cholesky_into(narrow, out, xp=backend.xp, block=4)  # widened block by block
    U32 = np.linalg.cholesky(a.astype(np.float32).astype(np.float64)).T
    np.testing.assert_allclose(np.triu(B.to_numpy(out)), U32, rtol=1e-10, atol=1e-12)


def test_cholesky_into_names_the_failing_pivot(backend):
    a = np.diag([1.0, 2.0, 3.0, -1.0, 5.0, 6.0])
    with pytest.raises(L.NotPositiveDefiniteError, match="failed at pivot 3"):
        L.cholesky_into(
            backend.asarray(a), backend.asarray(np.zeros((6, 6))), xp=backend.xp, block=2
        )


@pytest.mark.parametrize(("lower", "unit"), [(False, False), (True, True), (True, False)])
@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("one_d", [False, True])
def test_triangular_solve_and_product_read_one_triangle(backend, rng, lower, unit, trans, one_d):
    k = 10
    a = rng.standard_normal((k, k)) + 4 * np.eye(k)  # the other triangle (and diagonal) junk
    t = np.tril(a) if lower else np.triu(a)
    if unit:
        t = t - np.diag(np.diag(t)) + np.eye(k)
    t = t.T if trans else t
    b = rng.standard_normal(k) if one_d else rng.standard_normal((k, 3))
    kw = {"xp": backend.xp, "lower": lower, "trans": trans, "unit_diagonal": unit}
    x = L.solve_triangular(backend.asarray(a), backend.asarray(b), **kw)
    np.testing.assert_allclose(t @ B.to_numpy(x), b, rtol=1e-10, atol=1e-10)
    product = L.triangular_product(backend.asarray(a), backend.asarray(b), block=4, **kw)
    np.testing.assert_allclose(B.to_numpy(product), t @ b, rtol=1e-12, atol=1e-12)


def test_upper_gram_reads_the_upper_triangle_scales_downdates_and_narrows(xp, rng):
    n = 11
    U = np.triu(rng.normal(size=(n, n)))
    junk = U + np.tril(rng.normal(size=(n, n)), -1)
    v = rng.normal(size=n)
    got = L.upper_gram(
        xp.asarray(junk), xp=xp, block=4, scale=0.25, minus=xp.asarray(v), dtype=xp.float32
    )
    assert got.dtype == xp.float32
    expected = 0.25 * U @ U.T - np.outer(v, v)
    np.testing.assert_allclose(B.to_numpy(got), expected, rtol=1e-6, atol=1e-6)

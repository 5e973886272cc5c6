"""The backend layer: namespace and dtype policy, validation, and every linalg shim function."""

from __future__ import annotations

import types

import numpy as np
import pytest
import scipy.linalg

from lrkl import _backend as B
from lrkl import _linalg as L
from lrkl.lowrank._cholesky import residual_dtype


def _spd(rng: np.random.Generator, k: int) -> np.ndarray:
    a = rng.standard_normal((k, k + 3))
    return a @ a.T + 0.5 * np.eye(k)


def _close(backend, actual, expected, rtol=1e-9, atol=1e-10):
    assert B.device_of(actual) == backend.device or backend.name in ("numpy", "torch")
    np.testing.assert_allclose(B.to_numpy(actual), expected, rtol=rtol, atol=atol)


# --------------------------------------------------------------------------- namespace and dtype


def test_namespace_is_inferred_and_device_kept(backend):
    x = backend.asarray(np.ones((2, 3)))
    xp = B.get_namespace(x, None, 1.0)
    y = xp.ones((2,), dtype=xp.float64, device=B.device_of(x))
    assert B.get_namespace(y) is xp
    assert B.device_of(y) == B.device_of(x)


def test_mixed_namespaces_raise():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match=r"one array library.*numpy\.ndarray.*torch\.Tensor"):
        B.get_namespace(np.ones(3), torch.ones(3))


def test_no_array_raises():
    with pytest.raises(TypeError, match="at least one array"):
        B.get_namespace(None, 2.0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_dtype_kept(backend, dtype):
    x = backend.asarray(np.ones((2, 2), dtype=dtype))
    assert B.float_dtype(x, xp=backend.xp) == getattr(backend.xp, dtype)


@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
def test_integer_and_bool_become_default_float(backend, dtype):
    xp = backend.xp
    x = backend.asarray(np.ones((2, 2), dtype=dtype))
    expected = B.default_float(xp, backend.device)
    assert B.float_dtype(x, xp=xp) == expected
    assert B.check_array(x, name="X", xp=xp).dtype == expected


def test_default_float_per_library(backend):
    expected = "float32" if backend.name == "torch" else "float64"
    assert B.default_float(backend.xp, backend.device) == getattr(backend.xp, expected)


def test_widest_float_is_float64_where_the_device_has_it(backend):
    assert B.widest_float(backend.xp, backend.device) == backend.xp.float64


class _NoFloat64Info:
    """The inspection object of a device without float64 (as PyTorch's MPS)."""

    def dtypes(self, *, device=None, kind=None):
        return {"float32": np.float32}


def test_widest_float_falls_back_to_float32_without_float64():
    xp = types.ModuleType("mps_like")  # a namespace (a module, as every real one is)
    xp.__array_namespace_info__, xp.float32 = _NoFloat64Info, np.float32
    assert B.widest_float(xp, "mps") is np.float32
    xp.finfo = np.finfo
    assert residual_dtype(np.float32, xp=xp, device="mps") is np.float32


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_check_array_rejects_non_finite(backend, bad):
    x = np.ones((3, 2))
    x[1, 1] = bad
    with pytest.raises(ValueError, match="X must contain only finite values"):
        B.check_array(backend.asarray(x), name="X", xp=backend.xp)


def test_check_array_rejects_wrong_ndim(backend):
    with pytest.raises(ValueError, match=r"X must have ndim in \(2,\).*shape \(3,\)"):
        B.check_array(backend.asarray(np.ones(3)), name="X", xp=backend.xp)


def test_check_array_rejects_empty(backend):
    with pytest.raises(ValueError, match=r"y must have at least 1 row.*shape \(0,\)"):
        B.check_array(backend.asarray(np.ones(0)), name="y", ndim=1, xp=backend.xp)
    with pytest.raises(ValueError, match=r"X must have at least 1 column"):
        B.check_array(backend.asarray(np.ones((3, 0))), name="X", xp=backend.xp)


def test_check_array_rejects_non_arrays():
    with pytest.raises(TypeError, match="X must be an array, received list"):
        B.check_array([[1.0]], name="X", xp=np)


def test_check_array_rejects_complex():
    with pytest.raises(TypeError, match="complex128"):
        B.check_array(np.ones((2, 2), dtype=complex), name="X", xp=np)


def test_check_consistent_length():
    B.check_consistent_length(X=np.ones((3, 2)), y=np.ones(3), w=None)
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \{'X': 3, 'y': 4\}"):
        B.check_consistent_length(X=np.ones((3, 2)), y=np.ones(4))


# --------------------------------------------------------------------------- linalg shim


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky(backend, rng, lower):
    a = _spd(rng, 6)
    out = L.cholesky(backend.asarray(a), xp=backend.xp, lower=lower)
    _close(backend, out, scipy.linalg.cholesky(a, lower=lower))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("rhs_shape", [(6,), (6, 3)])
def test_solve_triangular(backend, rng, lower, trans, rhs_shape):
    t = np.tril(rng.standard_normal((6, 6))) + 4 * np.eye(6)
    t = t if lower else t.T
    b = rng.standard_normal(rhs_shape)
    out = L.solve_triangular(
        backend.asarray(t), backend.asarray(b), xp=backend.xp, lower=lower, trans=trans
    )
    _close(backend, out, np.linalg.solve(t.T if trans else t, b))


@pytest.mark.parametrize("rhs_shape", [(5,), (5, 2)])
def test_cho_factor_and_solve(backend, rng, rhs_shape):
    a = _spd(rng, 5)
    b = rng.standard_normal(rhs_shape)
    xp = backend.xp
    factor = L.cho_factor(backend.asarray(a), xp=xp)
    _close(backend, factor.lower, np.linalg.cholesky(a))
    _close(backend, L.cho_solve(factor, backend.asarray(b), xp=xp), np.linalg.solve(a, b))


@pytest.mark.parametrize("assume_a", ["gen", "pos"])
@pytest.mark.parametrize("rhs_shape", [(5,), (5, 2)])
def test_solve(backend, rng, assume_a, rhs_shape):
    a = _spd(rng, 5) if assume_a == "pos" else rng.standard_normal((5, 5)) + 3 * np.eye(5)
    b = rng.standard_normal(rhs_shape)
    out = L.solve(backend.asarray(a), backend.asarray(b), xp=backend.xp, assume_a=assume_a)
    _close(backend, out, np.linalg.solve(a, b))


def test_solve_rejects_unknown_structure():
    with pytest.raises(ValueError, match="assume_a must be 'gen' or 'pos', received 'sym'"):
        L.solve(np.eye(2), np.ones(2), xp=np, assume_a="sym")


def test_eigh(backend, rng):
    a = _spd(rng, 6)
    w, v = L.eigh(backend.asarray(a), xp=backend.xp)
    w_ref = np.linalg.eigvalsh(a)
    _close(backend, w, w_ref)
    v = B.to_numpy(v)
    np.testing.assert_allclose(v @ np.diag(w_ref) @ v.T, a, atol=1e-9)
    np.testing.assert_allclose(v.T @ v, np.eye(6), atol=1e-10)


def test_svd(backend, rng):
    a = rng.standard_normal((7, 4))
    u, s, vh = (B.to_numpy(t) for t in L.svd(backend.asarray(a), xp=backend.xp))
    assert u.shape == (7, 4) and vh.shape == (4, 4)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-10)
    np.testing.assert_allclose(u @ np.diag(s) @ vh, a, atol=1e-10)


def test_qr(backend, rng):
    a = rng.standard_normal((7, 4))
    q, r = (B.to_numpy(t) for t in L.qr(backend.asarray(a), xp=backend.xp))
    assert q.shape == (7, 4) and r.shape == (4, 4)
    np.testing.assert_allclose(q @ r, a, atol=1e-10)
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-10)
    np.testing.assert_allclose(np.tril(r, -1), 0.0, atol=1e-12)


@pytest.mark.parametrize("rhs_shape", [(8,), (8, 2)])
def test_lstsq_full_rank(backend, rng, rhs_shape):
    a = rng.standard_normal((8, 3))
    b = rng.standard_normal(rhs_shape)
    out = L.lstsq(backend.asarray(a), backend.asarray(b), xp=backend.xp)
    _close(backend, out, np.linalg.lstsq(a, b, rcond=None)[0])


def test_lstsq_rank_deficient_gives_minimum_norm(backend, rng):
    a = rng.standard_normal((8, 2))
    a = np.hstack([a, a[:, :1]])  # rank 2 of 3 columns
    b = rng.standard_normal(8)
    out = L.lstsq(backend.asarray(a), backend.asarray(b), xp=backend.xp)
    _close(backend, out, np.linalg.pinv(a) @ b, atol=1e-9)


def test_to_numpy_copies_to_host(backend):
    x = backend.asarray(np.arange(6.0).reshape(2, 3))
    out = B.to_numpy(x)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, np.arange(6.0).reshape(2, 3))


def test_synchronize_runs(backend):
    B.synchronize(backend.xp)

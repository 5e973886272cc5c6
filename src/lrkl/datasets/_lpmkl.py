"""The binary classification sets of Rakotomamonjy & Chanda's ℓp-MKL experiments (Table 1).

svmguide1 (LIBSVM, 7089 × 4, train and test files pooled) is bundled; mushrooms (UCI, 8124 ×
117 one-hot), magic (UCI MAGIC gamma telescope, 19020 × 10), pokerhand (UCI, the 25010 training
hands, class 0 against the rest) and adult (LIBSVM a9a, 48842 × 123, pooled) are read from the
data home (:func:`lrkl.datasets.get_data_home`), each in a folder of its own. codrna, seismic and
ijcnn1 of the paper's table are not staged. Everything here is host data (NumPy float64 arrays).
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from lrkl.datasets._home import data_file
from lrkl.datasets._slkl import _read, _standardized

__all__ = ["LPMKL_DATASETS", "ClassificationDataset", "load_lpmkl"]

#: The paper's sets available here: (folder in the data home or None if bundled, file).
LPMKL_DATASETS = {
    "svmguide1": (None, "svmguide1"),
    "mushrooms": ("mushrooms", "mushrooms_onehot.npz"),
    "magic": ("magic", "magic.npz"),
    "pokerhand": ("poker", "poker_train.npz"),
    "adult": ("adult-a9a", "a9a.npz"),
}


class ClassificationDataset(NamedTuple):
    """A binary classification set: standardised features, labels in {0, 1}."""

    X: np.ndarray  # shape: (n, d)
    y: np.ndarray  # shape: (n,)
    name: str


def load_lpmkl(name: str, *, data_home: str | os.PathLike | None = None) -> ClassificationDataset:
    """One of the paper's data sets, features standardised over all rows, labels 0/1 (1: the
    positive class of the LIBSVM files; pokerhand: class 0 against the rest, as the paper).

    Parameters
    ----------
    name : {"svmguide1", "mushrooms", "magic", "pokerhand", "adult"}
    data_home : path, default=None
        Where the sets that are not bundled are read from (``<data home>/<folder>/<file>``).

    Returns
    -------
    ClassificationDataset

    Examples
    --------
    >>> from lrkl.datasets import load_lpmkl
    >>> data = load_lpmkl("svmguide1")
    >>> data.X.shape, sorted(set(data.y.tolist()))
    ((7089, 4), [0.0, 1.0])
    """
    if name not in LPMKL_DATASETS:
        msg = f"name must be one of {sorted(LPMKL_DATASETS)}, received {name!r}"
        raise ValueError(msg)
    folder, file = LPMKL_DATASETS[name]
    if folder is None:
        arrays = _read(file)
    else:
        with np.load(data_file(folder, file, name=name, data_home=data_home)) as data:
            arrays = {key: data[key] for key in data.files}
    if "X" in arrays:
        X, y = arrays["X"], arrays["y"]
    else:
        X = np.concatenate([arrays["X_train"], arrays["X_test"]])
        y = np.concatenate([arrays["y_train"], arrays["y_test"]])
    y = (y == 0) if name == "pokerhand" else (y > 0)
    return ClassificationDataset(_standardized(X.astype(np.float64)), y.astype(np.float64), name)

"""Data of the Mklaren paper: the Table-1 protocol data and the Blitzer sentiment reviews.

- :func:`load_mklaren_protocol` reads the bundled rows, preprocessing and five 60/20/20 splits of
  the authors' 2016 script (``lrkl/data/data_<name>_unitnorm.npz``, ``splits_<name>_unitnorm.json``;
  see :ref:`mklaren-protocol`).
- :func:`load_sentiment` reads one domain of the multi-domain sentiment data of Blitzer et al.
  (2007). The files are too large to bundle: they are read from ``sentiment-blitzer/`` in the
  data home (:func:`get_data_home`: ``data_home=``, else ``LRKL_DATA``, else ``~/lrkl_data``).

The arrays are NumPy arrays on the host; move them to another namespace on purpose.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import NamedTuple

import numpy as np

from lrkl._checks import check_option
from lrkl.datasets._home import get_data_home

__all__ = [
    "MKLAREN_DATASETS",
    "SENTIMENT_DOMAINS",
    "ProtocolDataset",
    "SentimentDataset",
    "load_mklaren_protocol",
    "load_sentiment",
]

#: The data sets of the Mklaren paper's Table 1, in its order.
MKLAREN_DATASETS = ("boston", "kin", "pumadyn", "abalone", "comp", "ionosphere", "bank", "diabetes")
#: Domains of the sentiment data with both a training and a test file (dvd has no test file).
SENTIMENT_DOMAINS = ("books", "electronics", "kitchen")
_ALL_DOMAINS = (*SENTIMENT_DOMAINS, "dvd")
#: The sub-folder of the data home holding the Blitzer sentiment files.
SENTIMENT_FOLDER = "sentiment-blitzer"


class ProtocolDataset(NamedTuple):
    """One Table-1 data set: inputs, targets and the five (train, validation, test) splits."""

    name: str
    X: np.ndarray  # shape: (n, d), columns centred and scaled to unit Euclidean norm
    y: np.ndarray  # shape: (n,), centred
    splits: list[tuple[np.ndarray, np.ndarray, np.ndarray]]  # row indices into X


class SentimentDataset(NamedTuple):
    """One sentiment domain: word counts of the kept features and the star ratings."""

    domain: str
    X_train: np.ndarray  # shape: (n_train, n_features), counts
    y_train: np.ndarray  # shape: (n_train,), ratings in {1, 2, 4, 5}
    X_test: np.ndarray  # shape: (n_test, n_features)
    y_test: np.ndarray  # shape: (n_test,)
    features: list[str]  # the kept unigrams and bigrams, most frequent first


def load_mklaren_protocol(name: str) -> ProtocolDataset:
    """Rows, preprocessing and splits of one Table-1 data set, exactly as the paper's script.

    Parameters
    ----------
    name : str
        One of :data:`MKLAREN_DATASETS`.

    Returns
    -------
    ProtocolDataset

    Examples
    --------
    >>> data = load_mklaren_protocol("boston")
    >>> data.X.shape, len(data.splits), [len(s) for s in data.splits[0]]
    ((506, 13), 5, [303, 101, 102])
    """
    check_option(name, MKLAREN_DATASETS, name="name")
    folder = resources.files("lrkl") / "data"
    with (folder / f"data_{name}_unitnorm.npz").open("rb") as fh, np.load(fh) as npz:
        X, y = np.asarray(npz["X"], dtype=np.float64), np.asarray(npz["y"], dtype=np.float64)
    spec = json.loads((folder / f"splits_{name}_unitnorm.json").read_text())
    splits = [
        tuple(np.asarray(s[part], dtype=np.int64) for part in ("train", "val", "test"))
        for s in spec["splits"]
    ]
    return ProtocolDataset(name, X, y, splits)


def _read_reviews(path: Path) -> tuple[list[Counter], np.ndarray]:
    docs, labels = [], []
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            counts: Counter = Counter()
            label = None
            for item in line.split():
                token, _, value = item.rpartition(":")
                if token == "#label#":
                    label = float(value)
                elif token:
                    counts[token] += int(value)
            if label is not None:
                docs.append(counts)
                labels.append(label)
    return docs, np.asarray(labels, dtype=np.float64)


def _matrix(docs: list[Counter], index: dict[str, int]) -> np.ndarray:
    X = np.zeros((len(docs), len(index)))
    for i, doc in enumerate(docs):
        for token, count in doc.items():
            j = index.get(token)
            if j is not None:
                X[i, j] = count
    return X


def load_sentiment(
    domain: str, *, data_home: str | Path | None = None, max_features: int = 4000
) -> SentimentDataset:
    """One domain of the Blitzer et al. sentiment data, with its given train/test split.

    The features are the ``max_features`` most frequent (by total count in the training file)
    unigrams and bigrams whose training columns are not duplicates of a more frequent one, as
    the paper describes ("the 4000 most frequent non-duplicate features").

    Parameters
    ----------
    domain : {"books", "electronics", "kitchen"}
        dvd is refused: its test file is missing from the data.
    data_home : path, optional
        The data home (:func:`lrkl.datasets.get_data_home`: ``LRKL_DATA`` or ``~/lrkl_data``
        by default); the files ``<domain>_train.gz`` and ``<domain>_test.gz`` are read from its
        sub-folder ``sentiment-blitzer``.
    max_features : int, default=4000

    Returns
    -------
    SentimentDataset
    """
    if domain not in _ALL_DOMAINS:
        msg = f"domain must be one of {SENTIMENT_DOMAINS}, received {domain!r}"
        raise ValueError(msg)
    if domain == "dvd":
        msg = "the dvd domain has no test file (dvd_test.gz is missing): use another domain"
        raise ValueError(msg)
    if not isinstance(max_features, int) or max_features < 1:
        msg = f"max_features must be an integer >= 1, received {max_features!r}"
        raise ValueError(msg)
    folder = get_data_home(data_home) / SENTIMENT_FOLDER
    train, test = folder / f"{domain}_train.gz", folder / f"{domain}_test.gz"
    for path in (train, test):
        if not path.exists():
            msg = (
                f"sentiment file {path} not found; put the Blitzer files in {folder} or point "
                "data_home= (or the LRKL_DATA variable) at the folder that holds "
                f"{SENTIMENT_FOLDER}/"
            )
            raise FileNotFoundError(msg)
    docs_train, y_train = _read_reviews(train)
    docs_test, y_test = _read_reviews(test)
    total: Counter = Counter()
    for doc in docs_train:
        total.update(doc)
    ranked = [token for token, _ in sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))]
    # Columns of several candidates at once; duplicates of a more frequent column are dropped.
    chosen: list[str] = []
    seen: set[bytes] = set()
    step = 2 * max_features
    for start in range(0, len(ranked), step):
        block = ranked[start : start + step]
        cols = _matrix(docs_train, {t: j for j, t in enumerate(block)})
        for j, token in enumerate(block):
            key = cols[:, j].tobytes()
            if key not in seen:
                seen.add(key)
                chosen.append(token)
                if len(chosen) == max_features:
                    break
        if len(chosen) == max_features:
            break
    index = {t: j for j, t in enumerate(chosen)}
    return SentimentDataset(
        domain, _matrix(docs_train, index), y_train, _matrix(docs_test, index), y_test, chosen
    )

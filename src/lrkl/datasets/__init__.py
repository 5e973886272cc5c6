"""Data sets of the papers lrkl reproduces: generators, and loaders of the bundled files."""

from lrkl.datasets._home import get_data_home
from lrkl.datasets._krr import PRATO_ZANNI_DATASETS, load_prato_zanni
from lrkl.datasets._lpmkl import LPMKL_DATASETS, ClassificationDataset, load_lpmkl
from lrkl.datasets._mklaren import (
    MKLAREN_DATASETS,
    SENTIMENT_DOMAINS,
    ProtocolDataset,
    SentimentDataset,
    load_mklaren_protocol,
    load_sentiment,
)
from lrkl.datasets._slkl import (
    DigitsDataset,
    RegressionDataset,
    load_abalone,
    load_boston,
    load_mnist,
    load_usps,
    make_sinc,
)

__all__ = [
    "LPMKL_DATASETS",
    "MKLAREN_DATASETS",
    "PRATO_ZANNI_DATASETS",
    "SENTIMENT_DOMAINS",
    "ClassificationDataset",
    "DigitsDataset",
    "ProtocolDataset",
    "RegressionDataset",
    "SentimentDataset",
    "get_data_home",
    "load_abalone",
    "load_boston",
    "load_lpmkl",
    "load_mklaren_protocol",
    "load_mnist",
    "load_prato_zanni",
    "load_sentiment",
    "load_usps",
    "make_sinc",
]

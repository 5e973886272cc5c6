"""Where lrkl finds data that is not bundled: one data-home setting (scikit-learn's convention)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["data_file", "get_data_home"]


def get_data_home(data_home: str | os.PathLike | None = None) -> Path:
    """The folder lrkl reads data sets that are not bundled from.

    In order: ``data_home`` when given, else the ``LRKL_DATA`` environment variable, else
    ``~/lrkl_data``. Each data set lives in a sub-folder of its own (the Blitzer sentiment files
    in ``<data home>/sentiment-blitzer``).

    Parameters
    ----------
    data_home : path, default=None

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> from lrkl.datasets import get_data_home
    >>> str(get_data_home("/data/lrkl"))
    '/data/lrkl'
    """
    if data_home is None:
        data_home = os.environ.get("LRKL_DATA", Path.home() / "lrkl_data")
    if not isinstance(data_home, str | os.PathLike):
        msg = f"data_home must be a path (str or os.PathLike) or None, received {data_home!r}"
        raise TypeError(msg)
    return Path(data_home).expanduser()


def data_file(
    folder: str, file: str, *, name: str, data_home: str | os.PathLike | None = None
) -> Path:
    """``<data home>/<folder>/<file>``; a ``FileNotFoundError`` that says where to put it when
    it is not there."""
    path = get_data_home(data_home) / folder / file
    if not path.exists():
        msg = (
            f"{name} is not bundled with lrkl: put {folder}/{file} in the data home "
            f"{get_data_home(data_home)} (set LRKL_DATA or data_home=); not found: {path}"
        )
        raise FileNotFoundError(msg)
    return path

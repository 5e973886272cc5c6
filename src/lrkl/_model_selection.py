"""Model selection shared by the cross-validated estimators: the grids of a search, the folds
and their rows, and the choice of the value with the lowest validation error. Each family's path
fit (the errors of one fold) stays with its family."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np
from array_api_compat import is_array_api_obj
from sklearn.model_selection import check_cv

from lrkl._backend import device_of, index_array, to_numpy
from lrkl._checks import check_number
from lrkl._typing import Array

__all__ = [
    "check_grid",
    "check_groups",
    "choose_from_grid",
    "cv_folds",
    "fold_rows",
    "folds_by_count",
    "log_grid",
]


def check_groups(groups: Any, n_samples: int) -> np.ndarray | None:
    """``groups`` as a host array of one label per row of X, or None (also where no splitter
    reads it: a wrong length is refused, not ignored)."""
    if groups is None:
        return None
    # an array of any library on the host; a pandas Series or a list as NumPy takes them
    groups = np.asarray(to_numpy(groups) if is_array_api_obj(groups) else groups)
    if groups.ndim != 1 or groups.shape[0] != n_samples:
        msg = (
            f"groups must hold one label per row of X ({n_samples}), received shape {groups.shape}"
        )
        raise ValueError(msg)
    return groups


def cv_folds(
    cv: Any, X: Array, y: Array, groups: Any = None, *, classifier: bool = False
) -> list[tuple[Any, Any]]:
    """The ``(train, test)`` row numbers of each fold of scikit-learn's ``check_cv(cv)``
    (an int, a splitter or an iterable of folds; an int is ``StratifiedKFold`` on the class
    labels ``y`` of a ``classifier``), split on host copies of ``X`` and ``y``;
    each fold's rows checked: row numbers of X (or boolean masks of its length), a training
    and a test part that are not empty."""
    n = X.shape[0]
    folds = []
    y = to_numpy(y)
    splitter = check_cv(cv, y, classifier=classifier)
    for k, (train, test) in enumerate(splitter.split(to_numpy(X), y, groups)):
        rows = []
        for part, name in ((train, "training"), (test, "test")):
            part = np.asarray(part)
            if part.dtype == bool and part.shape == (n,):
                part = np.flatnonzero(part)
            if part.ndim != 1 or part.size == 0 or part.dtype.kind not in "iu":
                msg = (
                    f"cv must give each fold non-empty integer row numbers of X; fold {k}'s "
                    f"{name} part is {part.dtype} of shape {part.shape}"
                )
                raise ValueError(msg)
            if int(part.min()) < 0 or int(part.max()) >= n:
                msg = (
                    f"cv must give row numbers of X in [0, {n - 1}]; fold {k}'s {name} part "
                    f"holds {int(part.min())} to {int(part.max())}"
                )
                raise ValueError(msg)
            rows.append(part)
        folds.append((rows[0], rows[1]))
    if not folds:
        msg = f"cv must give at least one (train, test) fold, received {cv!r} that gave none"
        raise ValueError(msg)
    return folds


def folds_by_count(
    cv: Any, n: int, labels: Any = None, *, classifier: bool = False
) -> list[tuple[Any, Any]]:
    """:func:`cv_folds` for a solver whose rows stay where they are (a GPU's, a Dask X's
    chunks): split on a stand-in of the ``n`` rows, and on the host ``labels`` when the
    splitter stratifies by them, so that neither X nor y is copied for it. A splitter that reads
    X's values (none of scikit-learn's) sees zeros."""
    stand_in = np.zeros((n, 1))
    y = stand_in[:, 0] if labels is None else labels
    return cv_folds(cv, stand_in, y, classifier=classifier)


def restrict_folds(
    folds: list[tuple[Any, Any]], rows: list[int], n: int
) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """``folds`` (row numbers of ``n`` rows) restricted to the sorted subsample ``rows``, as row
    numbers of the subsample; None where a fold is left without a training or a test row."""
    position = np.full(n, -1)
    position[np.asarray(rows)] = np.arange(len(rows))
    restricted = []
    for train, test in folds:
        parts = [position[part][position[part] >= 0] for part in (train, test)]
        if not (parts[0].size and parts[1].size):
            return None
        restricted.append((parts[0], parts[1]))
    return restricted


def fold_rows(
    train: Any, test: Any, *arrays: Array | None, xp: ModuleType
) -> list[tuple[Array | None, Array | None]]:
    """``(train rows, test rows)`` of each array for one fold (``None`` stays ``None``): the
    rows are taken on the arrays' device."""
    device = device_of(next(a for a in arrays if a is not None))
    tr = index_array(train, xp=xp, device=device)  # arrays or lists of row numbers
    te = index_array(test, xp=xp, device=device)
    return [
        (None, None) if a is None else (xp.take(a, tr, axis=0), xp.take(a, te, axis=0))
        for a in arrays
    ]


def check_grid(values: Any, *, name: str) -> tuple[float, ...]:
    """A non-empty tuple of finite values > 0 (a grid of ν or α given by the user)."""
    if (
        isinstance(values, str)
        or not hasattr(values, "__iter__")
        or getattr(values, "ndim", 1) == 0
    ):
        msg = f"{name} must be a sequence of numbers > 0, received {type(values).__name__}"
        raise TypeError(msg)
    values = tuple(values)
    if not values:
        msg = f"{name} must hold at least one value, received an empty sequence"
        raise ValueError(msg)
    return tuple(check_number(v, name=name, strict=True) for v in values)


def log_grid(top: float, n_values: int, eps: float) -> tuple[float, ...]:
    """``n_values`` values from ``top`` down to ``eps·top``, logarithmically spaced."""
    if n_values == 1:
        return (top,)
    return tuple(top * eps ** (i / (n_values - 1)) for i in range(n_values))


def choose_from_grid(
    owner: str,
    name: str,
    grid: Sequence[float],
    per_fold: Sequence[Sequence[float]],
    *,
    top: str,
    advice: str,
    searched: Sequence[float] | None = None,
    rtol: float = 0.0,
) -> tuple[float, tuple[tuple[float, ...], ...]]:
    """The value of a CV search's ``grid`` with the lowest mean validation error, and the error
    path (one row per value, one column per fold); ``per_fold`` holds one error per value for
    each fold. The means are exactly rounded sums (``math.fsum``), so that values whose fold
    errors are the same numbers in another order tie, and the first of them wins. For a penalty
    grid solved by an iterative solver, ``rtol`` (its tolerance) widens the tie: means within
    ``rtol`` times the largest finite mean of the lowest tie too, and the largest value among
    them (the most regularised) wins. The solver resolves the errors only to its tolerance of
    their scale, and a choice among values it does not tell apart turned on the last bits of
    the arithmetic.

    Warns when the choice is the largest value of the grid (``top`` says what the model is
    there), or its smallest while the validation error still falls by more than 1 % from its
    neighbour there: the best value may lie outside the grid (``advice`` says what to widen;
    the range named is that of ``searched``, the grid given, where ``grid`` is the part of it
    a search visited).
    """
    path = tuple(tuple(fold[i] for fold in per_fold) for i in range(len(grid)))
    means = [math.fsum(errors) / len(errors) for errors in path]
    best = min(range(len(grid)), key=means.__getitem__)
    if rtol > 0.0 and math.isfinite(means[best]):
        within = means[best] + rtol * max(abs(m) for m in means if math.isfinite(m))
        best = max((i for i, mean in enumerate(means) if mean <= within), key=grid.__getitem__)
    order = sorted(range(len(grid)), key=grid.__getitem__)
    what = None
    if len(grid) > 1 and best == order[-1]:
        what = f"its largest value ({top})"
    elif len(grid) > 1 and best == order[0] and means[best] < 0.99 * means[order[1]]:
        what = "its smallest value, with the validation error still falling there"
    if what is not None:
        msg = (
            f"{owner} chose {name} = {grid[best]:.4g}, {what}; the best {name} may lie outside "
            f"the grid [{min(searched or grid):.4g}, {max(searched or grid):.4g}]: widen it "
            f"({advice})"
        )
        warnings.warn(msg, UserWarning, stacklevel=3)
    return grid[best], path


def require_fold_weights(w_tr: Array | None, w_te: Array | None, *, xp: ModuleType) -> None:
    """Refuse a fold whose training or test rows all weigh 0."""
    for part, w in (("training", w_tr), ("test", w_te)):
        if w is not None and not float(xp.sum(w)) > 0:
            msg = (
                f"sample_weight must give each cv fold's {part} rows a positive total "
                f"weight, received weights of 0 on all its {part} rows: "
                "choose other folds (cv), or drop the rows of weight 0"
            )
            raise ValueError(msg)


def fold_mask(rows: Any, like: Array, *, xp: ModuleType) -> Array:
    """1 on a fold's row numbers ``rows`` (host integers, as :func:`cv_folds` gives), 0
    elsewhere: an array of the shape, dtype and device of the n-vector ``like`` (a fold as
    weights, for a solver that keeps all the rows)."""
    mask = np.zeros(like.shape[0])
    mask[np.asarray(rows)] = 1.0
    return xp.asarray(mask, dtype=like.dtype, device=device_of(like))

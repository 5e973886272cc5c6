"""The width search of the LowRankRidge family's CV estimators: the grid of widths around the
data's own (``gamma_factors``) and the rule that chooses among them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.utils import check_random_state

from lrkl._model_selection import check_grid, restrict_folds
from lrkl._typing import Array
from lrkl.kernels import KERNEL_NAMES, SCALE, Kernel, check_kernel, kernel_from_name

#: The most rows the width search compares its widths on: beyond, a uniform subsample of them
#: (drawn with the landmarks' seed), and the α path is then computed once, at the chosen width,
#: on all the rows. On the regression panel's sets of 5 462 training rows a search took 0.58 of
#: ``Nystroem(1000)`` + ``RidgeCV``'s time (0.67 with 2 000 rows, 0.93–1.18 with every row),
#: its R² within 0.006 of the search's on every row (docs/performance/defaults.rst).
WIDTH_SEARCH_ROWS = 1000

#: The default width grid of the CV estimators' search (``gamma_factors``): ``γ₀·2^k``,
#: ``k = −2 … 2``, around the width ``γ₀`` of ``gamma="scale"``.
GAMMA_FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)


def chosen_width(paths: Sequence[Any], gamma_factors: Sequence[float]) -> int:
    """The width of the search: the one nearest ``γ₀`` (the factor nearest 1, then the wider)
    among those whose best validation error exceeds the best of all widths and α by at most
    the standard error of that difference (the one-standard-error rule of Hastie, Tibshirani &
    Friedman, here toward the data's own scale): on small or noisy data the widths' errors
    differ by less than their noise, and the extreme widths overfit the choice. The difference
    is taken unit by unit — row by row for leave-one-out, fold by fold — since every width is
    validated on the same rows and folds: their errors rise and fall together, and the spread
    of one width's errors alone (the rule's unpaired form) would hide differences the rows
    agree on. ``paths`` hold each width's ``mean`` error per α, and its ``units``: the errors
    per row or fold at its best α, weighted by ``unit_weights`` (None: equally)."""
    if len(paths) == 1:
        return 0

    def error(i: int) -> float:  # a width's best error; a non-finite error never wins
        finite = [v for v in paths[i].mean if math.isfinite(v)]
        return min(finite) if finite else math.inf

    top = min(range(len(paths)), key=error)

    def within(i: int) -> bool:
        difference = np.asarray(paths[i].units, dtype=float) - np.asarray(paths[top].units)
        if not np.all(np.isfinite(difference)):
            return i == top
        weights = paths[top].unit_weights
        weights = np.ones(difference.shape[0]) if weights is None else np.asarray(weights)
        total = weights.sum()
        mean = float(weights @ difference) / total
        spread = math.sqrt(float(weights**2 @ (difference - mean) ** 2)) / total
        return error(i) <= error(top) + spread

    factors = check_grid(gamma_factors, name="gamma_factors")
    near = [i for i in range(len(paths)) if within(i)] or [top]
    return min(near, key=lambda i: (abs(math.log(factors[i])), factors[i]))


def weighted_means(rows: np.ndarray, weights: np.ndarray | None) -> list[float]:
    """The (weighted) mean over the rows of each column of the rows' errors ``rows`` (one
    column per α): a width's leave-one-out errors, from the rows :func:`chosen_width` pairs."""
    w = np.ones(rows.shape[0]) if weights is None else weights
    return [float(v) for v in w @ rows / w.sum()]


def search_widths(
    kernels: Sequence[Kernel | str], gamma_factors: Sequence[float] | None, X: Array
) -> list[list[Kernel] | None]:
    """The kernel lists the path is searched over: one per factor of ``gamma_factors`` times
    the resolved ``"scale"`` width of the one kernel given (from all the rows ``fit`` got: with
    ``cv``, every fold searches the same widths), or ``[None]`` (the estimator's own kernels)
    when the search does not apply: ``gamma_factors=None``, several kernels, a kernel without a
    ``"scale"`` gamma."""
    if gamma_factors is None:
        return [None]
    factors = check_grid(gamma_factors, name="gamma_factors")  # given: always valid
    if len(kernels) != 1:
        return [None]
    kernel = kernels[0]
    if isinstance(kernel, str):
        kernel = kernel_from_name(kernel) if kernel in KERNEL_NAMES else None
    if kernel is None or getattr(kernel, "gamma", None) != SCALE:
        return [None]
    gamma = float(check_kernel(kernel, X, name="kernels[0]").gamma)  # as the features do
    params = kernel.get_params()
    return [[type(kernel)(**{**params, "gamma": f * gamma})] for f in factors]


def search_rows(
    n: int, size: int, random_state: int, weights: Any, folds: list[tuple[Any, Any]] | None
) -> tuple[list[int], list[tuple[Any, Any]] | None] | None:
    """The subsample the widths are compared on, and ``folds`` restricted to it: the first
    ``size`` (:data:`WIDTH_SEARCH_ROWS`) rows of weight > 0 (``weights`` on the host, or None) in a
    permutation drawn with ``random_state``, sorted; None (compare on every row) where there are
    not more rows of positive weight than that, or a fold would lose its training or test rows
    (or all their weight)."""
    draw = check_random_state(random_state).permutation(n)
    eligible = draw if weights is None else draw[weights[draw] > 0]
    if eligible.shape[0] <= size:
        return None
    rows = sorted(int(i) for i in eligible[:size])
    if folds is None:
        return rows, None
    restricted = restrict_folds(folds, rows, n)
    if restricted is None or (
        weights is not None
        and any(weights[rows][part].sum() <= 0 for fold in restricted for part in fold)
    ):
        return None
    return rows, restricted

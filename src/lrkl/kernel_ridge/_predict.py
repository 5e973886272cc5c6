"""Prediction of kernel expansions ``f(x) = Σ_j c_j k(x_j, x) + b`` in blocks of rows."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from lrkl._backend import device_of
from lrkl.kernels import DEFAULT_MAX_ENTRIES, row_slices

__all__ = ["predict_dual"]

Array = Any


def predict_dual(
    kernel_block: Callable[[Array], Array],
    X: Array,  # shape: (m, d)
    dual: Array,  # shape: (n_centres,) or (n_centres, t)
    intercept: Array,  # shape: () or (t,)
    /,
    *,
    xp: ModuleType,
    max_entries: int = DEFAULT_MAX_ENTRIES,
) -> Array:
    """``kernel_block(X[rows]) @ dual + intercept`` over row blocks of at most ``max_entries``
    kernel values: the test kernel matrix is never formed whole.

    ``kernel_block(rows)`` returns the kernel values between ``rows`` and the centres, shape
    ``(len(rows), n_centres)``, in the dtype of ``dual``.
    """
    n_centres = dual.shape[0]
    out = xp.zeros((X.shape[0], *dual.shape[1:]), dtype=dual.dtype, device=device_of(X))
    if n_centres:
        for rows in row_slices(X.shape[0], n_centres, max_entries):
            out[rows, ...] = kernel_block(X[rows, ...]) @ dual
    return out + intercept

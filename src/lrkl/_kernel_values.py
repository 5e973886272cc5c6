"""Checks of the kernel values a user supplies (a ``Precomputed`` matrix, or what its function
and diagonal return), in lrkl's message style."""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

from lrkl._backend import device_of, ensure_array, get_namespace, widest_float
from lrkl._typing import Array

__all__ = ["MAX_KERNEL_VALUE", "as_float", "check_kernel_matrix", "check_kernel_values"]

#: The largest kernel value taken: products and sums of n such values stay finite in float64
#: (a kernel's scale is a regularisation choice: K · c with α fits as K with α / c).
MAX_KERNEL_VALUE = 1e150


def check_kernel_matrix(matrix: Any) -> Array:
    """A ``Precomputed`` matrix, checked: square, real, finite, within
    :data:`MAX_KERNEL_VALUE`, a diagonal ≥ 0 and symmetric to rounding."""
    matrix = ensure_array(matrix, name="matrix")  # lists are taken as NumPy
    shape = tuple(matrix.shape)
    if len(shape) != 2 or shape[0] != shape[1]:
        msg = f"matrix must be a square 2-D array, received shape {shape}"
        raise ValueError(msg)
    xp = get_namespace(matrix)
    if not xp.isdtype(matrix.dtype, ("real floating", "integral", "bool")):
        msg = (
            "matrix must hold kernel values (float, integer or boolean), received dtype "
            f"{matrix.dtype}"
        )
        raise TypeError(msg)
    if xp.isdtype(matrix.dtype, "real floating") and not bool(xp.all(xp.isfinite(matrix))):
        msg = (
            f"matrix must hold finite kernel values, received a {shape[0]}×{shape[1]} "
            "array with NaN or infinity"
        )
        raise ValueError(msg)
    # A PSD matrix has k(x, x) ≥ 0: a negative diagonal entry proves it is not one, in
    # O(n) (the factorisations catch the rest on the way).
    diagonal_values = xp.astype(xp.linalg.diagonal(matrix), widest_float(xp, device_of(matrix)))
    if bool(xp.any(diagonal_values < 0.0)):
        lowest = float(xp.min(diagonal_values))
        msg = (
            "matrix must be positive semi-definite (a kernel matrix), received a "
            f"negative diagonal entry {lowest:.4g}"
        )
        raise ValueError(msg)
    _require_symmetric(matrix, xp=xp)
    return matrix


def as_float(K: Array, *, xp: ModuleType) -> Array:
    """Kernel values of an integer or boolean matrix or function as the widest float."""
    if xp.isdtype(K.dtype, "real floating"):
        return K
    return xp.astype(K, widest_float(xp, device_of(K)))


def _require_symmetric(matrix: Array, *, xp: ModuleType) -> None:
    """Refuse a matrix that is not symmetric beyond rounding (``√ε · max|K|`` with the ε of its
    floating dtype, float64's for integers, as the PSD checks): the factorisations read one
    triangle and predictions the rows, so an asymmetric one gave a model of neither. One pass
    in square tiles, no ``n × n`` temporary."""
    n, tile = matrix.shape[0], 1024
    dtype = widest_float(xp, device_of(matrix))
    # the matrix's own rounding (a float32 Gram matrix's mirrors differ by float32 steps)
    floating = xp.isdtype(matrix.dtype, "real floating")
    eps = float(xp.finfo(matrix.dtype if floating else dtype).eps)
    worst, top = 0.0, 0.0
    for i in range(0, n, tile):  # square tiles against their mirrors: both read by rows
        for j in range(i, n, tile):
            i_end, j_end = min(i + tile, n), min(j + tile, n)  # in bounds (the standard's slices)
            block = xp.astype(matrix[i:i_end, j:j_end], dtype, copy=False)
            mirror = xp.matrix_transpose(matrix[j:j_end, i:i_end])
            mirror = xp.astype(mirror, dtype, copy=False)
            worst = max(worst, float(xp.max(xp.abs(block - mirror))))
            top = max(top, float(xp.max(xp.abs(block))))
    if top > MAX_KERNEL_VALUE:
        msg = (
            f"matrix must be at most {MAX_KERNEL_VALUE:g} in absolute value (products and sums "
            "of its entries must stay finite); divide it by a constant (K · c with alpha fits "
            "as K with alpha / c)"
        )
        raise ValueError(msg)
    if worst > math.sqrt(eps) * top:
        msg = (
            "matrix must be symmetric (a kernel matrix), received one whose entries differ from "
            f"their transposes by up to {worst:.3g} (largest entry {top:.3g})"
        )
        raise ValueError(msg)


def check_kernel_values(K: Any, shape: tuple[int, ...], name: str, *, xp: ModuleType) -> Array:
    """The values a user's ``function`` or ``diagonal`` returned, checked: an array of
    ``shape`` with finite values."""
    if not hasattr(K, "shape") or tuple(K.shape) != shape:
        received = tuple(K.shape) if hasattr(K, "shape") else type(K).__name__
        msg = f"Precomputed {name} must return an array of shape {shape}, received {received}"
        raise ValueError(msg)
    if not xp.isdtype(getattr(K, "dtype", None), ("real floating", "integral", "bool")):
        msg = (
            f"Precomputed {name} must return real kernel values (float, integer or boolean), "
            f"received dtype {K.dtype}"
        )
        raise TypeError(msg)
    if not bool(xp.all(xp.isfinite(K))):
        msg = f"Precomputed {name} returned NaN or infinity among its {shape} values"
        raise ValueError(msg)
    _require_in_range(K, f"Precomputed {name}'s values", xp=xp)
    return as_float(K, xp=xp)


def _require_in_range(K: Array, name: str, *, xp: ModuleType) -> None:
    if K.shape[0] and float(xp.max(xp.abs(K))) > MAX_KERNEL_VALUE:
        msg = (
            f"{name} must be at most {MAX_KERNEL_VALUE:g} in absolute value (their products and "
            "sums must stay finite); divide the kernel by a constant (K · c with alpha fits as "
            "K with alpha / c)"
        )
        raise ValueError(msg)

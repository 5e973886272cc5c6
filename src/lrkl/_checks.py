"""Checks of plain Python arguments (a choice among options, a number in a range), written once
in lrkl's message style: the argument's name, what is allowed, and what was received.

Standard library only, so that every lrkl module can use them (kernels, the backend layer and
the solvers included). Estimator parameters are checked by scikit-learn's constraints instead
(:mod:`lrkl._validation`); these serve the functional API.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Collection
from typing import Any

import array_api_compat

__all__ = [
    "check_integer",
    "check_namespace",
    "check_number",
    "check_option",
    "is_finite_real",
    "require_float_range",
]


def check_option(value: Any, options: Collection[Any], *, name: str) -> Any:
    """``value`` if it is one of ``options``, else a :class:`ValueError` listing them."""
    if value not in options:
        allowed = ", ".join(repr(option) for option in options)
        msg = f"{name} must be one of {allowed}, received {value!r}"
        raise ValueError(msg)
    return value


def check_namespace(xp: Any) -> Any:
    """``xp`` if it is an array namespace (``array_api_compat.array_namespace(X)``, NumPy 2,
    CuPy, array-api-strict), else a :class:`TypeError`: the functional API's ``xp=``."""
    if not all(hasattr(xp, attr) for attr in ("asarray", "isdtype", "float64")):
        msg = (
            "xp must be an array namespace, such as array_api_compat.array_namespace(X), "
            f"received {xp!r}"
        )
        raise TypeError(msg)
    return xp


def is_finite_real(value: Any) -> bool:
    """Whether ``value`` is a real number (NumPy scalars included, booleans not) that float64
    holds finite: an integer beyond its range is not (``math.isfinite`` raises OverflowError)."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def shown(value: Any) -> str:
    """``repr(value)`` for a message, an integer of more than 20 digits by its length."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        digits = len(str(abs(int(value))))
        if digits > 20:
            return f"an integer of {digits} digits"
    return repr(value)


def require_float_range(value: Any, *, name: str) -> None:
    """A ValueError naming ``name`` where ``value``, or an entry of a list or tuple of them,
    is an integer beyond float64's range: scikit-learn's interval constraints compare it
    exactly and let it through, and the first ``float()`` of it raised OverflowError."""
    for entry in value if isinstance(value, (list, tuple)) else (value,):
        integer = isinstance(entry, numbers.Integral) and not isinstance(entry, bool)
        if integer and abs(int(entry)) > sys.float_info.max:
            msg = (
                f"{name} must lie within float64's range (at most {sys.float_info.max:.3g} in "
                f"absolute value), received {shown(entry)}"
            )
            raise ValueError(msg)


def check_number(value: Any, *, name: str, low: float = 0.0, strict: bool = False) -> float:
    """``value`` as a float if it is a finite real number ``> low`` (``strict``) or ``>= low``
    (booleans are refused), else a :class:`ValueError`."""
    ok = is_finite_real(value) and (value > low if strict else value >= low)
    if not ok:
        bound = f"{'>' if strict else '>='} {low:g}"
        msg = f"{name} must be a finite number {bound}, received {shown(value)}"
        raise ValueError(msg)
    return float(value)


def check_integer(value: Any, *, name: str, low: int = 1, high: int | None = None) -> int:
    """``value`` as an int if it is an integer ``>= low`` (and ``<= high`` when given; NumPy
    integers included, booleans refused), else a :class:`ValueError`."""
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= low
    if not ok or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in [{low}, {high}]"
        msg = f"{name} must be an integer {bound}, received {shown(value)}"
        raise ValueError(msg)
    return int(value)


def check_bool(value: Any, *, name: str) -> bool:
    """``value`` as a bool if it is True or False (NumPy's booleans included), else a
    :class:`ValueError`: ``"yes"`` or ``1`` would otherwise pass as true."""
    if isinstance(value, bool) or (getattr(value, "ndim", None) == 0 and _boolean(value)):
        return bool(value)
    msg = f"{name} must be True or False, received {value!r}"
    raise ValueError(msg)


def _boolean(value: Any) -> bool:
    """Whether the 0-d ``value`` (an array of any array-API library, or a NumPy scalar) holds
    a boolean."""
    try:
        xp = array_api_compat.array_namespace(value)
    except TypeError:  # a NumPy scalar such as np.True_
        return getattr(getattr(value, "dtype", None), "kind", None) == "b"
    return bool(xp.isdtype(value.dtype, "bool"))

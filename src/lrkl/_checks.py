"""Checks of plain Python arguments (a choice among options, a number in a range), written once
in lrkl's message style: the argument's name, what is allowed, and what was received.

Standard library only, so that every lrkl module can use them (kernels, the backend layer and
the solvers included). Estimator parameters are checked by scikit-learn's constraints instead
(:mod:`lrkl._validation`); these serve the functional API.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection
from typing import Any

import array_api_compat

__all__ = ["check_integer", "check_namespace", "check_number", "check_option"]


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


def check_number(value: Any, *, name: str, low: float = 0.0, strict: bool = False) -> float:
    """``value`` as a float if it is a finite real number ``> low`` (``strict``) or ``>= low``
    (booleans are refused), else a :class:`ValueError`."""
    ok = (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and (value > low if strict else value >= low)
    )
    if not ok:
        bound = f"{'>' if strict else '>='} {low:g}"
        msg = f"{name} must be a finite number {bound}, received {value!r}"
        raise ValueError(msg)
    return float(value)


def check_integer(value: Any, *, name: str, low: int = 1, high: int | None = None) -> int:
    """``value`` as an int if it is an integer ``>= low`` (and ``<= high`` when given; NumPy
    integers included, booleans refused), else a :class:`ValueError`."""
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= low
    if not ok or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in [{low}, {high}]"
        msg = f"{name} must be an integer {bound}, received {value!r}"
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

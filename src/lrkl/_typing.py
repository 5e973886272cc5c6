"""The type of the arrays lrkl takes and returns."""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["Array"]


class Array(Protocol):
    """An array of a library that follows the Python array API standard: NumPy, CuPy, PyTorch,
    array-api-strict, or a row-chunked Dask array of one of them.

    A structural type for readers and type checkers (the attributes and operators lrkl uses;
    the device is read through :func:`lrkl._backend.device_of`, as NumPy 1.26 has no
    ``.device``);
    at run time arrays are recognised and checked through ``array_api_compat``
    (:mod:`lrkl._backend`).
    """

    @property
    def shape(self) -> tuple[int | None, ...]: ...

    @property
    def ndim(self) -> int: ...

    @property
    def dtype(self) -> Any: ...

    def __getitem__(self, key: Any, /) -> Array: ...

    def __setitem__(self, key: Any, value: Any, /) -> None: ...

    def __matmul__(self, other: Array, /) -> Array: ...

    def __add__(self, other: Any, /) -> Array: ...

    def __sub__(self, other: Any, /) -> Array: ...

    def __mul__(self, other: Any, /) -> Array: ...

    def __truediv__(self, other: Any, /) -> Array: ...

    def __pow__(self, other: Any, /) -> Array: ...

    def __neg__(self) -> Array: ...

    def __lt__(self, other: Any, /) -> Array: ...

    def __gt__(self, other: Any, /) -> Array: ...

"""Kernel functions, evaluated on any array-API namespace and in row blocks under a memory budget.

Every kernel is an immutable, comparable, picklable value with a readable repr. It gives

- ``k(X, Z)``: the ``n × m`` matrix of kernel values between the rows of ``X`` and of ``Z``;
- ``k.diag(X)``: the ``n`` values ``k(x_i, x_i)`` without forming a matrix;
- ``k.blocks(X, Z, max_entries=...)``: the same matrix as row blocks of at most ``max_entries``
  entries, so that a caller that reduces over the rows never holds more than that at once.

Examples
--------
>>> import numpy as np
>>> from lrkl.kernels import Gaussian
>>> X = np.array([[0.0], [1.0]])
>>> Gaussian(sigma2=0.5)(X, X).round(4)
array([[1.    , 0.3679],
       [0.3679, 1.    ]])
>>> Gaussian(sigma2=0.5) == Gaussian(gamma=1.0)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from lrkl._backend import check_array, get_namespace

__all__ = [
    "DEFAULT_MAX_ENTRIES",
    "Gaussian",
    "Kernel",
    "Laplacian",
    "Linear",
    "Polynomial",
    "Precomputed",
    "row_slices",
]

Array = Any

#: Default budget of a kernel block: 2**22 entries, 32 MiB in float64.
DEFAULT_MAX_ENTRIES = 2**22


def row_slices(n_rows: int, n_cols: int, max_entries: int = DEFAULT_MAX_ENTRIES) -> Iterator[slice]:
    """Slices over ``n_rows`` rows such that each block of ``n_cols`` columns fits the budget."""
    if max_entries < 1:
        msg = f"max_entries must be >= 1, received {max_entries}"
        raise ValueError(msg)
    step = max(1, max_entries // max(n_cols, 1))
    for start in range(0, n_rows, step):
        yield slice(start, min(start + step, n_rows))


def _positive(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        msg = f"{name} must be a finite positive number, received {value!r}"
        raise ValueError(msg)
    if value <= 0:
        msg = f"{name} must be > 0, received {value!r}"
        raise ValueError(msg)
    return float(value)


def _squared_distances(X: Array, Z: Array, *, xp: ModuleType) -> Array:
    """``‖x_i − z_j‖²`` by the GEMM expansion, clipped at zero against cancellation."""
    xx = xp.sum(X * X, axis=1)
    zz = xp.sum(Z * Z, axis=1)
    d = xx[:, None] + zz[None, :] - 2.0 * (X @ xp.matrix_transpose(Z))
    return xp.clip(d, min=0.0)


class Kernel:
    """Base class of lrkl kernels: validation, blocks and diagonal around one ``_evaluate``."""

    def __call__(self, X: Array, Z: Array | None = None, /) -> Array:
        """Kernel matrix between the rows of ``X`` (n × d) and of ``Z`` (m × d; default ``X``)."""
        xp = get_namespace(X, Z)
        X, Z = self._check(X, Z, xp=xp)
        return self._evaluate(X, Z, xp=xp)

    def diag(self, X: Array, /) -> Array:
        """``k(x_i, x_i)`` for every row of ``X``, in O(n·d) without forming a matrix."""
        xp = get_namespace(X)
        X, _ = self._check(X, None, xp=xp)
        return self._diag(X, xp=xp)

    def blocks(
        self, X: Array, Z: Array | None = None, /, *, max_entries: int = DEFAULT_MAX_ENTRIES
    ) -> Iterator[tuple[slice, Array]]:
        """Yield ``(rows, k(X[rows], Z))`` with at most ``max_entries`` entries per block."""
        xp = get_namespace(X, Z)
        X, Z = self._check(X, Z, xp=xp)
        for rows in row_slices(X.shape[0], Z.shape[0], max_entries):
            yield rows, self._evaluate(X[rows, ...], Z, xp=xp)

    def _check(self, X: Array, Z: Array | None, *, xp: ModuleType) -> tuple[Array, Array]:
        X = check_array(X, name="X", xp=xp)
        if Z is None:
            return X, X
        Z = check_array(Z, name="Z", xp=xp, dtype=X.dtype)
        if Z.shape[1] != X.shape[1]:
            msg = (
                f"X and Z must have the same number of features, received X with {X.shape[1]} "
                f"and Z with {Z.shape[1]}"
            )
            raise ValueError(msg)
        return X, Z

    # Subclasses implement these on validated arrays; lrkl's algorithms call them directly.
    def _evaluate(self, X: Array, Z: Array, *, xp: ModuleType) -> Array:
        raise NotImplementedError

    def _diag(self, X: Array, *, xp: ModuleType) -> Array:
        return xp.stack(
            [
                self._evaluate(X[i : i + 1, ...], X[i : i + 1, ...], xp=xp)[0, 0]
                for i in range(X.shape[0])
            ]
        )


@dataclass(frozen=True, init=False)
class Gaussian(Kernel):
    """Gaussian (RBF) kernel ``exp(−γ‖x − z‖²)``, also written ``exp(−‖x − z‖²/(2σ²))``.

    Give exactly one of ``gamma`` (Mklaren's convention) or ``sigma2`` (the SLKL paper's,
    ``γ = 1/(2σ²)``); both attributes are then set.

    Examples
    --------
    >>> Gaussian(sigma2=2.0)
    Gaussian(gamma=0.25)
    """

    gamma: float
    sigma2: float = field(compare=False, repr=False)

    def __init__(self, gamma: float | None = None, *, sigma2: float | None = None) -> None:
        if (gamma is None) == (sigma2 is None):
            msg = (
                f"give exactly one of gamma or sigma2, received gamma={gamma!r}, sigma2={sigma2!r}"
            )
            raise ValueError(msg)
        if gamma is None:
            sigma2 = _positive("sigma2", sigma2)
            gamma = 1.0 / (2.0 * sigma2)
        else:
            gamma = _positive("gamma", gamma)
            sigma2 = 1.0 / (2.0 * gamma)
        object.__setattr__(self, "gamma", gamma)
        object.__setattr__(self, "sigma2", sigma2)

    def _evaluate(self, X: Array, Z: Array, *, xp: ModuleType) -> Array:
        return xp.exp(-self.gamma * _squared_distances(X, Z, xp=xp))

    def _diag(self, X: Array, *, xp: ModuleType) -> Array:
        return xp.ones(X.shape[0], dtype=X.dtype, device=X.device)


@dataclass(frozen=True)
class Laplacian(Kernel):
    """Laplacian kernel ``exp(−γ‖x − z‖₁)`` (the ℓ1 distance, as scikit-learn defines it).

    The ℓ1 distance is accumulated one feature at a time, so a block never needs more than its
    own ``n × m`` entries.
    """

    gamma: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "gamma", _positive("gamma", self.gamma))

    def _evaluate(self, X: Array, Z: Array, *, xp: ModuleType) -> Array:
        dist = xp.zeros((X.shape[0], Z.shape[0]), dtype=X.dtype, device=X.device)
        for j in range(X.shape[1]):
            dist += xp.abs(X[:, j, None] - Z[None, :, j])
        return xp.exp(-self.gamma * dist)

    def _diag(self, X: Array, *, xp: ModuleType) -> Array:
        return xp.ones(X.shape[0], dtype=X.dtype, device=X.device)


@dataclass(frozen=True)
class Linear(Kernel):
    """Linear kernel ``xᵀz``."""

    def _evaluate(self, X: Array, Z: Array, *, xp: ModuleType) -> Array:
        return X @ xp.matrix_transpose(Z)

    def _diag(self, X: Array, *, xp: ModuleType) -> Array:
        return xp.sum(X * X, axis=1)


@dataclass(frozen=True)
class Polynomial(Kernel):
    """Polynomial kernel ``(γ xᵀz + c₀)^degree``."""

    degree: int = 2
    gamma: float = 1.0
    coef0: float = 1.0

    def __post_init__(self) -> None:
        if isinstance(self.degree, bool) or not isinstance(self.degree, int) or self.degree < 1:
            msg = f"degree must be an integer >= 1, received {self.degree!r}"
            raise ValueError(msg)
        object.__setattr__(self, "gamma", _positive("gamma", self.gamma))
        if (
            not isinstance(self.coef0, int | float)
            or not math.isfinite(self.coef0)
            or self.coef0 < 0
        ):
            msg = f"coef0 must be a finite number >= 0, received {self.coef0!r}"
            raise ValueError(msg)
        object.__setattr__(self, "coef0", float(self.coef0))

    def _evaluate(self, X: Array, Z: Array, *, xp: ModuleType) -> Array:
        return (self.gamma * (X @ xp.matrix_transpose(Z)) + self.coef0) ** self.degree

    def _diag(self, X: Array, *, xp: ModuleType) -> Array:
        return (self.gamma * xp.sum(X * X, axis=1) + self.coef0) ** self.degree


@dataclass(frozen=True, eq=False)
class Precomputed(Kernel):
    """A kernel the user supplies: a full matrix indexed by sample number, or a function.

    - ``Precomputed(matrix=K)``: the inputs ``X`` are one-column arrays of row numbers into the
      ``N × N`` matrix ``K`` (for example ``X = xp.reshape(xp.arange(n), (n, 1))``);
    - ``Precomputed(function=f, diagonal=g)``: ``f(X, Z)`` returns the ``n × m`` matrix and the
      optional ``g(X)`` its diagonal (otherwise evaluated one row at a time).

    Two instances compare equal only when they hold the same matrix or function objects.
    """

    matrix: Array = None
    function: Callable[[Array, Array], Array] | None = None
    diagonal: Callable[[Array], Array] | None = None

    def __post_init__(self) -> None:
        if (self.matrix is None) == (self.function is None):
            msg = "give exactly one of matrix or function to Precomputed"
            raise ValueError(msg)
        if self.matrix is not None:
            shape = tuple(getattr(self.matrix, "shape", ()))
            if len(shape) != 2 or shape[0] != shape[1]:
                msg = f"matrix must be a square 2-D array, received shape {shape}"
                raise ValueError(msg)
        elif not callable(self.function):
            msg = f"function must be callable, received {type(self.function).__name__}"
            raise TypeError(msg)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Precomputed):
            return NotImplemented
        return (
            self.matrix is other.matrix
            and self.function is other.function
            and self.diagonal is other.diagonal
        )

    def __hash__(self) -> int:
        return hash((id(self.matrix), id(self.function), id(self.diagonal)))

    def __repr__(self) -> str:
        if self.matrix is not None:
            return f"Precomputed(matrix=<{self.matrix.shape[0]}×{self.matrix.shape[1]} array>)"
        return f"Precomputed(function={getattr(self.function, '__name__', self.function)!r})"

    def _check(self, X: Array, Z: Array | None, *, xp: ModuleType) -> tuple[Array, Array]:
        if self.matrix is None:
            return super()._check(X, Z, xp=xp)
        return self._indices(X, "X", xp=xp), self._indices(X if Z is None else Z, "Z", xp=xp)

    def _indices(self, X: Array, name: str, *, xp: ModuleType) -> Array:
        X = check_array(X, name=name, xp=xp, dtype=X.dtype)
        n = self.matrix.shape[0]
        if X.shape[1] != 1:
            msg = (
                f"{name} must hold one column of row numbers into the matrix, received shape "
                f"{tuple(X.shape)}"
            )
            raise ValueError(msg)
        idx = xp.astype(X[:, 0], xp.int64)
        if bool(xp.any(idx != X[:, 0])) or bool(xp.any(idx < 0)) or bool(xp.any(idx >= n)):
            msg = f"{name} must hold integer row numbers in [0, {n - 1}], received other values"
            raise ValueError(msg)
        return X

    def _evaluate(self, X: Array, Z: Array, *, xp: ModuleType) -> Array:
        if self.function is not None:
            return self.function(X, Z)
        rows = xp.take(self.matrix, xp.astype(X[:, 0], xp.int64), axis=0)
        return xp.take(rows, xp.astype(Z[:, 0], xp.int64), axis=1)

    def _diag(self, X: Array, *, xp: ModuleType) -> Array:
        if self.matrix is not None:
            idx = xp.astype(X[:, 0], xp.int64)
            n = self.matrix.shape[0]
            return xp.take(xp.reshape(self.matrix, (n * n,)), idx * (n + 1))
        if self.diagonal is not None:
            return self.diagonal(X)
        return super()._diag(X, xp=xp)

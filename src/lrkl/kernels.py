"""Kernel functions, evaluated on any array-API namespace and in row blocks under a memory budget.

Every kernel is an immutable, comparable, picklable value with a readable repr. It gives

- ``k(X, Z)``: the ``n × m`` matrix of kernel values between the rows of ``X`` and of ``Z``;
- ``k.diag(X)``: the ``n`` values ``k(x_i, x_i)`` without forming a matrix;
- ``k.blocks(X, Z, max_entries=...)``: the same matrix as row blocks of at most ``max_entries``
  entries, so that a caller that reduces over the rows never holds more than that at once;
- ``k.feature_map(X, max_features=...)``: for the linear and polynomial kernels, explicit
  features ``Φ(X)`` with ``k(X, Z) = Φ(X) Φ(Z)ᵀ`` (a low-rank factor of the kernel matrix when
  they are fewer than the rows), and ``None`` for a kernel without a finite one.

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

Kernels are parameters of lrkl's estimators in scikit-learn's sense: ``GridSearchCV`` can search
``{"kernel__gamma": [...]}``, and ``clone`` gives an equal kernel. ``"rbf"``, ``"laplacian"``,
``"linear"`` and ``"poly"`` name the kernels with their default parameters
(:func:`kernel_from_name`), and a width ``"scale"`` is taken from the training data
(:meth:`Kernel.resolve`).
"""

from __future__ import annotations

import itertools
import math
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any

from lrkl._backend import (
    check_array,
    device_memory,
    device_of,
    ensure_array,
    get_namespace,
    index_array,
    require_finite,
)
from lrkl._checks import check_integer, check_number, check_option, is_finite_real, shown
from lrkl._distances import (
    neg_squared_distances,
    scale_error,
    scaled_variance,
    variance_weights,
)
from lrkl._executor import DEFAULT_MAX_ENTRIES, executor_for, row_slices
from lrkl._kernel_values import (
    MAX_KERNEL_VALUE,
    as_float,
    check_kernel_matrix,
    check_kernel_values,
)
from lrkl._linalg import sum_each_row
from lrkl._typing import Array

__all__ = [
    "COLUMNS",
    "DEFAULT_MAX_ENTRIES",
    "DEFAULT_MEMORY_BUDGET",
    "KERNEL_NAMES",
    "MAX_KERNEL_VALUE",
    "Gaussian",
    "Kernel",
    "Laplacian",
    "Linear",
    "Polynomial",
    "Precomputed",
    "kernel_from_name",
    "precompute_columns",
    "row_slices",
]


#: Where an algorithm's kernel columns come from: computed once and kept, or computed again in
#: blocks of :data:`DEFAULT_MAX_ENTRIES` whenever they are needed; ``"auto"`` decides by size.
COLUMNS = ("auto", "precomputed", "on_the_fly")

#: Default memory budget (bytes) of precomputed kernel columns under ``columns="auto"``.
DEFAULT_MEMORY_BUDGET = 2**30


def precompute_columns(columns: str, n_entries: int, X: Array, memory_budget: int) -> bool:
    """Whether ``columns`` (one of :data:`COLUMNS`) keeps ``n_entries`` kernel values in memory:
    always for ``"precomputed"``, never for ``"on_the_fly"``, and for ``"auto"`` when they take
    at most ``memory_budget`` bytes in X's dtype and at most a quarter of the memory of X's
    device."""
    check_option(columns, COLUMNS, name="columns")
    if columns != "auto":
        return columns == "precomputed"
    needed = n_entries * (get_namespace(X).finfo(X.dtype).bits // 8)
    limit = device_memory(X)
    return needed <= (memory_budget if limit is None else min(memory_budget, limit // 4))


def _positive(name: str, value: Any) -> float:
    """``value`` as a Python float if it is a finite real number ``> 0`` (NumPy scalars
    included, booleans refused)."""
    if not is_finite_real(value):
        msg = f"{name} must be a finite positive number, received {shown(value)}"
        raise ValueError(msg)
    if value <= 0:
        msg = f"{name} must be > 0, received {value!r}"
        raise ValueError(msg)
    return float(value)


def _require_finite_values(K: Array, kernel: Kernel, *, xp: ModuleType) -> Array:
    """``K`` if every kernel value is finite, else a ValueError naming the kernel: an inner
    product kernel (linear, polynomial) whose values overflow the dtype cannot be evaluated,
    and NaN would otherwise flow into a silent NaN model."""
    if not bool(xp.all(xp.isfinite(K))):  # NumPy warned of the overflow; the error says it
        msg = (
            f"{kernel!r} overflows the floating-point range on these inputs (its values reach "
            "infinity): scale X, or lower the kernel's degree, gamma or coef0"
        )
        raise ValueError(msg)
    return K


#: The shorthand names a kernel parameter accepts, as scikit-learn spells them.
KERNEL_NAMES = ("rbf", "laplacian", "linear", "poly")

#: The value of a width parameter that :meth:`Kernel.resolve` computes from the training inputs.
SCALE = "scale"


class Kernel:
    """Base class of lrkl kernels: parameters, validation, blocks and diagonal around one
    ``_evaluate``.

    A kernel's parameters (``_parameters``) follow scikit-learn's conventions:
    :meth:`get_params`, :meth:`set_params` (so that ``GridSearchCV`` can search
    ``kernel__gamma``), ``clone`` gives an equal kernel, and two kernels compare equal when they
    have the same type and parameters. A width given as ``"scale"`` is computed from the training
    inputs by :meth:`resolve`, which lrkl's estimators call in ``fit``.
    """

    _parameters: tuple[str, ...] = ()

    #: Whether the kernel is positive semi-definite by construction (every closed-form kernel
    #: here): the factorisations then skip the checks that catch a matrix that is not, which
    #: cost a pass and a host read per pivot.
    psd_by_construction: bool = True

    def __call__(self, X: Array, Z: Array | None = None, /) -> Array:
        """Kernel matrix between the rows of ``X`` (n × d) and of ``Z`` (m × d; default ``X``).

        Lists and other array-likes are taken as NumPy arrays, as lrkl's estimators take them.
        """
        X, Z = _arrays(X, Z)
        xp = get_namespace(X, Z)
        X, Z = self._check(X, Z, xp=xp)
        return self._evaluate(X, Z, xp=xp)

    def diag(self, X: Array, /) -> Array:
        """``k(x_i, x_i)`` for every row of ``X``, in O(n·d) without forming a matrix."""
        X = ensure_array(X, name="X")
        xp = get_namespace(X)
        X, _ = self._check(X, None, xp=xp)
        return self._diag(X, xp=xp)

    def blocks(
        self, X: Array, Z: Array | None = None, /, *, max_entries: int = DEFAULT_MAX_ENTRIES
    ) -> Iterator[tuple[slice, Array]]:
        """Yield ``(rows, k(X[rows], Z))`` with at most ``max_entries`` entries per block."""
        X, Z = _arrays(X, Z)
        xp = get_namespace(X, Z)
        X, Z = self._check(X, Z, xp=xp)
        yield from self._blocks(X, Z, max_entries, xp=xp)

    def _blocks(
        self, X: Array, Z: Array, max_entries: int, *, xp: ModuleType
    ) -> Iterator[tuple[slice, Array]]:
        """:meth:`blocks` on validated arrays."""
        for rows in row_slices(X.shape[0], Z.shape[0], max_entries):
            yield rows, self._evaluate(X[rows, ...], Z, xp=xp)

    def feature_map(self, X: Array, /, *, max_features: int | None = None) -> Array | None:
        """Explicit features ``Φ(X)`` (n × r) with ``k(X, Z) = Φ(X) Φ(Z)ᵀ``, or ``None`` when
        the kernel has no finite feature map or its map has more than ``max_features`` columns.

        ``Φ(X) Φ(X)ᵀ`` is then a factor of rank ``≤ r`` of the kernel matrix, computed in
        ``O(n r)`` without forming ``n × n``: what Tikhonov regularisation needs
        (:class:`lrkl.KernelRidge`). The linear kernel's map is ``X``; the polynomial kernel's is
        the scaled monomials of degree ``≤ degree`` (``C(d + degree, degree)`` columns).
        """
        X = ensure_array(X, name="X")
        xp = get_namespace(X)
        X, _ = self._check(X, None, xp=xp)
        return self._explicit_features(X, max_features, xp=xp)

    def _explicit_features(
        self, X: Array, max_features: int | None, *, xp: ModuleType
    ) -> Array | None:
        """:meth:`feature_map` on a validated ``X``."""
        size = self._feature_count(X.shape[1])
        if size is None or (max_features is not None and size > max_features):
            return None
        return self._feature_map(X, xp=xp)

    # Kernels with a finite feature map implement these two.
    def _feature_count(self, n_features: int) -> int | None:
        return None

    def _feature_map(self, X: Array, *, xp: ModuleType) -> Array:
        raise NotImplementedError

    # ----------------------------------------------------------------- parameters

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The kernel's parameters by name (``deep`` is accepted for scikit-learn)."""
        return {name: getattr(self, name) for name in self._parameters}

    def set_params(self, **params: Any) -> Kernel:
        """Set parameters in place (checked as the constructor checks them); returns ``self``."""
        unknown = sorted(set(params) - set(self._parameters))
        if unknown:
            msg = (
                f"invalid parameter {unknown[0]!r} for kernel {type(self).__name__}; valid "
                f"parameters are {list(self._parameters)}"
            )
            raise ValueError(msg)
        checked = type(self)(**{**self.get_params(), **params})
        self.__dict__.update(checked.__dict__)
        return self

    def __sklearn_clone__(self) -> Kernel:
        return type(self)(**self.get_params())

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.get_params() == other.get_params()

    __hash__ = None  # mutable through set_params, so not hashable

    def __repr__(self) -> str:
        args = ", ".join(f"{name}={value!r}" for name, value in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def resolve(self, X: Array, /, sample_weight: Array | None = None) -> Kernel:
        """This kernel with every ``"scale"`` width computed from the training inputs ``X``.

        ``gamma="scale"`` becomes ``1 / (n_features · Var(X))`` for the Gaussian and polynomial
        kernels (scikit-learn's ``SVC(gamma="scale")``) and ``1 / (n_features · Std(X))`` for the
        Laplacian one, the variance taken over all entries of ``X`` (rows weighted by
        ``sample_weight`` when given, so that a weight of k is k copies of the row): on
        standardised features both are scikit-learn's ``KernelRidge`` default
        ``1 / n_features``. A kernel without ``"scale"`` parameters is returned as it is.

        The variance is computed on X scaled by a power of two (exactly) and centred, so that
        it neither under- or overflows nor cancels at a large offset; a width that is not a
        normal float64 (the Gaussian's beyond ``|X| ≈ 1e±150``) raises a ValueError about X's
        scale. A constant ``X`` gets ``1 / n_features``.
        """
        X = ensure_array(X, name="X")
        xp = get_namespace(X)
        if self._scaled_parameters():
            X = check_array(X, name="X", xp=xp)
        else:
            # Nothing is taken from X, but X is checked all the same: resolve refuses for every
            # kernel what the estimators' fit refuses (a Linear kernel took NaN, 1-D or empty
            # X). A lazy (Dask) X is left to the caller's pass over the rows, as in fit.

            def check(X: Array) -> Array:
                checked = check_array(X, name="X", xp=xp)  # floating: the weights' dtype too
                self._check(checked, None, xp=xp)  # Precomputed: the row numbers
                return checked

            X = executor_for(X, xp=xp).checked(check, X)
        return self._resolve(X, sample_weight)

    def _resolve(self, X: Array, sample_weight: Array | None = None) -> Kernel:
        """:meth:`resolve` on a validated ``X`` (the estimators and the factorisations have
        checked it at their door); the weights are checked here, where they are read."""
        xp = get_namespace(X)
        scaled = self._scaled_parameters()
        if not scaled:
            if sample_weight is not None:  # refused as resolve refuses them; a lazy X's later
                executor_for(X, xp=xp).checked(
                    lambda X: variance_weights(sample_weight, X, xp=xp), X
                )
            return self
        weights = None if sample_weight is None else variance_weights(sample_weight, X, xp=xp)
        v, e = scaled_variance(X, weights, xp=xp)
        require_finite(not math.isnan(v), name="X")  # a lazy X's NaN, met in this first pass
        # A constant X has no spread: the width is then 1/n_features, the value on unit data.
        gamma = self._scale_width(v, e) / X.shape[1] if v > 0 else 1.0 / X.shape[1]
        if not sys.float_info.min <= gamma < math.inf:
            raise scale_error(X, xp=xp, gamma=gamma)
        return type(self)(**{**self.get_params(), **dict.fromkeys(scaled, gamma)})

    def _scaled_parameters(self) -> list[str]:
        """The names of the parameters still set to ``"scale"``."""
        return [name for name, value in self.get_params().items() if _is_scale(value)]

    def _scale_width(self, v: float, e: int) -> float:
        """``1 / spread`` of data with variance ``v · 4ᵉ``: ``1 / Var`` by default (0 or inf
        when out of range, never an OverflowError)."""
        return _ldexp(1.0 / v, -2 * e)

    def _check(self, X: Array, Z: Array | None, *, xp: ModuleType) -> tuple[Array, Array]:
        scaled = self._scaled_parameters()
        if scaled:
            msg = (
                f"{self!r} takes {scaled[0]} from the training data: evaluate "
                "kernel.resolve(X_train) instead (lrkl's estimators resolve their kernels in fit)"
            )
            raise ValueError(msg)
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


def _arrays(X: Any, Z: Any) -> tuple[Array, Array | None]:
    """``X`` and ``Z`` as arrays: lists and other array-likes become NumPy arrays."""
    return ensure_array(X, name="X"), None if Z is None else ensure_array(Z, name="Z")


def _ldexp(mantissa: float, exponent: int) -> float:
    """``mantissa · 2**exponent``, inf on overflow."""
    try:
        return math.ldexp(mantissa, exponent)
    except OverflowError:
        return math.inf


def _is_scale(value: Any) -> bool:
    return isinstance(value, str) and value == SCALE


def _width(name: str, value: Any) -> float | str:
    """A positive width, or ``"scale"``."""
    return SCALE if _is_scale(value) else _positive(name, value)


class Gaussian(Kernel):
    """Gaussian (RBF) kernel ``exp(−γ‖x − z‖²)``, also written ``exp(−‖x − z‖²/(2σ²))``.

    Give ``gamma`` (Mklaren's convention; ``"scale"``, the default, takes it from the training
    data, see :meth:`Kernel.resolve`) or ``sigma2`` (the SLKL paper's, ``γ = 1/(2σ²)``).

    Examples
    --------
    >>> Gaussian(sigma2=2.0)
    Gaussian(gamma=0.25)
    >>> import numpy as np
    >>> Gaussian().resolve(np.array([[0.0, 0.0], [2.0, 2.0]]))
    Gaussian(gamma=0.5)
    """

    _parameters = ("gamma",)

    def __init__(self, gamma: float | str = SCALE, *, sigma2: float | None = None) -> None:
        if sigma2 is not None:
            if not _is_scale(gamma):
                msg = f"give gamma or sigma2, not both; received gamma={gamma!r}, sigma2={sigma2!r}"
                raise ValueError(msg)
            gamma = 1.0 / (2.0 * _positive("sigma2", sigma2))
        self.gamma = _width("gamma", gamma)

    @property
    def sigma2(self) -> float | None:
        """``σ² = 1/(2γ)``; None while ``gamma`` is ``"scale"``."""
        return None if _is_scale(self.gamma) else 1.0 / (2.0 * self.gamma)

    def _evaluate(self, X: Array, Z: Array, *, xp: ModuleType) -> Array:
        return neg_squared_distances(X, Z, self.gamma, xp=xp, exp=True)

    def _diag(self, X: Array, *, xp: ModuleType) -> Array:
        return xp.ones(X.shape[0], dtype=X.dtype, device=device_of(X))


class Laplacian(Kernel):
    """Laplacian kernel ``exp(−γ‖x − z‖₁)`` (the ℓ1 distance, as scikit-learn defines it).

    ``gamma="scale"`` (the default) takes it from the training data (:meth:`Kernel.resolve`).
    The ℓ1 distance is accumulated one feature at a time, so a block never needs more than its
    own ``n × m`` entries.
    """

    _parameters = ("gamma",)

    def __init__(self, gamma: float | str = SCALE) -> None:
        self.gamma = _width("gamma", gamma)

    def _scale_width(self, v: float, e: int) -> float:
        # 1 / standard deviation
        return _ldexp(1.0 / math.sqrt(v), -e)

    def _evaluate(self, X: Array, Z: Array, *, xp: ModuleType) -> Array:
        # −γ‖x − z‖₁ from the differences themselves (each rounded once: translation-invariant,
        # no expansion to cancel, so no centring), γ after; an overflow is −inf, a kernel value
        # of 0 (centred rows at ±finfo.max gave inf − inf = NaN)
        dist = xp.zeros((X.shape[0], Z.shape[0]), dtype=X.dtype, device=device_of(X))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for j in range(X.shape[1]):
                dist -= xp.abs(X[:, j, None] - Z[None, :, j])
            dist *= self.gamma
        return xp.exp(dist)

    def _diag(self, X: Array, *, xp: ModuleType) -> Array:
        return xp.ones(X.shape[0], dtype=X.dtype, device=device_of(X))


class Linear(Kernel):
    """Linear kernel ``xᵀz``."""

    def _evaluate(self, X: Array, Z: Array, *, xp: ModuleType) -> Array:
        with warnings.catch_warnings():  # an overflow is refused by name just below
            warnings.simplefilter("ignore", RuntimeWarning)
            K = X @ xp.matrix_transpose(Z)
        return _require_finite_values(K, self, xp=xp)

    def _diag(self, X: Array, *, xp: ModuleType) -> Array:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            diagonal = sum_each_row(X * X, xp=xp)
        return _require_finite_values(diagonal, self, xp=xp)

    def _feature_count(self, n_features: int) -> int:
        return n_features

    def _feature_map(self, X: Array, *, xp: ModuleType) -> Array:
        return X


class Polynomial(Kernel):
    """Polynomial kernel ``(γ xᵀz + c₀)^degree``; the defaults are scikit-learn's ``"poly"``
    (``gamma="scale"``: see :meth:`Kernel.resolve`)."""

    _parameters = ("degree", "gamma", "coef0")

    def __init__(self, degree: int = 3, gamma: float | str = SCALE, coef0: float = 1.0) -> None:
        check_integer(degree, name="degree", low=1, high=2**31 - 1)  # a float power's exponent
        check_number(coef0, name="coef0")
        self.degree = int(degree)
        self.gamma = _width("gamma", gamma)
        self.coef0 = float(coef0)

    # γ xᵀz = (√γ x)ᵀ(√γ z): scaling the rows first keeps the products in range at any scale.
    def _evaluate(self, X: Array, Z: Array, *, xp: ModuleType) -> Array:
        root = math.sqrt(self.gamma)
        A = X * root
        B = A if Z is X else Z * root
        with warnings.catch_warnings():  # an overflow is refused by name just below
            warnings.simplefilter("ignore", RuntimeWarning)
            K = (A @ xp.matrix_transpose(B) + self.coef0) ** self.degree
        return _require_finite_values(K, self, xp=xp)

    def _diag(self, X: Array, *, xp: ModuleType) -> Array:
        A = X * math.sqrt(self.gamma)
        return _require_finite_values(
            (sum_each_row(A * A, xp=xp) + self.coef0) ** self.degree, self, xp=xp
        )

    def _degrees(self) -> range:
        """The monomial degrees of the feature map: ``0 … degree`` (only ``degree`` if
        ``c₀ = 0``)."""
        return range(self.degree, self.degree + 1) if self.coef0 == 0 else range(self.degree + 1)

    def _feature_count(self, n_features: int) -> int:
        return sum(math.comb(n_features + k - 1, k) for k in self._degrees())

    def _feature_map(self, X: Array, *, xp: ModuleType) -> Array:
        """``(γ xᵀz + c₀)^p = Σ_a p! / (a! (p − |a|)!) c₀^{p−|a|} γ^{|a|} x^a z^a`` over the
        multi-indices ``a`` with ``|a| ≤ p``: one column ``√(coefficient) x^a`` per ``a``."""
        n, d = X.shape
        p, columns = self.degree, []
        for k in self._degrees():
            combos = list(itertools.combinations_with_replacement(range(d), k))
            weights = [
                math.comb(p, k)
                * self.coef0 ** (p - k)
                * self.gamma**k
                * math.factorial(k)
                / math.prod(math.factorial(c.count(j)) for j in set(c))
                for c in combos
            ]
            scale = xp.asarray([math.sqrt(w) for w in weights], dtype=X.dtype, device=device_of(X))
            if k == 0:
                monomials = xp.ones((n, 1), dtype=X.dtype, device=device_of(X))
            else:
                index = index_array([j for c in combos for j in c], xp=xp, device=device_of(X))
                factors = xp.reshape(xp.take(X, index, axis=1), (n, len(combos), k))
                monomials = xp.prod(factors, axis=2)
            columns.append(monomials * scale)
        return xp.concat(columns, axis=1)


def kernel_from_name(name: str) -> Kernel:
    """The kernel a shorthand of :data:`KERNEL_NAMES` stands for, with scikit-learn's defaults:
    ``"rbf"`` is ``Gaussian()``, ``"laplacian"`` ``Laplacian()``, ``"linear"`` ``Linear()``
    and ``"poly"`` ``Polynomial()`` (widths ``"scale"``)."""
    kinds = {"rbf": Gaussian, "laplacian": Laplacian, "linear": Linear, "poly": Polynomial}
    if name not in kinds:
        check_option(name, KERNEL_NAMES, name="a kernel name")
    return kinds[name]()


def default_kernels(X: Array, sample_weight: Array | None = None) -> list[Kernel]:
    """Seven Gaussian kernels, ``γ = γ₀·2⁻³, …, γ₀·2³`` around the width ``γ₀`` that
    ``Gaussian(gamma="scale")`` takes from ``X`` (the Mklaren paper's ``γ = 2⁻³, …, 2³`` suit its
    unit-norm rows; on standardised features they are far too narrow)."""
    gamma = Gaussian()._resolve(X, sample_weight).gamma
    return [Gaussian(gamma=gamma * 2.0**e) for e in range(-3, 4)]


def check_kernel(
    kernel: Kernel | str | None,
    X: Array,
    *,
    name: str = "kernel",
    sample_weight: Array | None = None,
) -> Kernel:
    """The kernel a parameter gives (a :class:`Kernel`, one of :data:`KERNEL_NAMES`, or None for
    ``Gaussian(gamma="scale")``), its ``"scale"`` widths computed from the training inputs ``X``
    and weights (``X`` validated at the caller's door). With :func:`check_kernels` and
    :func:`default_kernels`, the one home of kernel resolution for every estimator."""
    if kernel is None:
        kernel = Gaussian()
    elif isinstance(kernel, str):
        if kernel not in KERNEL_NAMES:
            msg = f"{name} must be a Kernel or one of {KERNEL_NAMES}, received {kernel!r}"
            raise ValueError(msg)
        kernel = kernel_from_name(kernel)
    elif not isinstance(kernel, Kernel):
        msg = (
            f"{name} must be an lrkl.kernels.Kernel, one of {KERNEL_NAMES} or None, received "
            f"{type(kernel).__name__}"
        )
        raise TypeError(msg)
    return kernel._resolve(X, sample_weight)


def check_kernels(
    kernels: Sequence[Kernel | str] | None, X: Array, *, sample_weight: Array | None = None
) -> list[Kernel]:
    """A non-empty list of kernels resolved on ``X`` (see :func:`check_kernel`); None means
    :func:`default_kernels`."""
    if kernels is None:
        return default_kernels(X, sample_weight)
    kernels = list(kernels)
    if not kernels:
        msg = "kernels must hold at least one Kernel, received an empty sequence"
        raise ValueError(msg)
    return [
        check_kernel(kernel, X, name=f"kernels[{q}]", sample_weight=sample_weight)
        for q, kernel in enumerate(kernels)
    ]


class Precomputed(Kernel):
    """A kernel the user supplies: a full matrix indexed by sample number, or a function.

    - ``Precomputed(matrix=K)``: the inputs ``X`` are one-column arrays of row numbers into the
      ``N × N`` matrix ``K`` (for example ``X = xp.reshape(xp.arange(n), (n, 1))``);
    - ``Precomputed(function=f, diagonal=g)``: ``f(X, Z)`` returns the ``n × m`` matrix and the
      optional ``g(X)`` its diagonal (otherwise evaluated one row at a time).

    The values may be float, integer or boolean (integers and booleans compute in the widest
    float), finite, at most :data:`MAX_KERNEL_VALUE` in absolute value, symmetric to rounding
    and with a diagonal ≥ 0; anything else is refused naming ``matrix``, ``function`` or
    ``diagonal``. Two instances compare equal only when they hold the same matrix or function
    objects.
    """

    psd_by_construction = False  # a matrix or function from the user: checked on the way
    _parameters = ("matrix", "function", "diagonal")

    def __init__(
        self,
        matrix: Array = None,
        function: Callable[[Array, Array], Array] | None = None,
        diagonal: Callable[[Array], Array] | None = None,
    ) -> None:
        if (matrix is None) == (function is None):
            msg = "give exactly one of matrix or function to Precomputed"
            raise ValueError(msg)
        if matrix is not None:
            matrix = check_kernel_matrix(matrix)
        elif not callable(function):
            msg = f"function must be callable, received {type(function).__name__}"
            raise TypeError(msg)
        if diagonal is not None and not callable(diagonal):
            msg = f"diagonal must be callable or None, received {type(diagonal).__name__}"
            raise TypeError(msg)
        self.matrix = matrix
        self.function = function
        self.diagonal = diagonal

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Precomputed):
            return NotImplemented
        return all(getattr(self, name) is getattr(other, name) for name in self._parameters)

    def __repr__(self) -> str:
        if self.matrix is not None:
            return f"Precomputed(matrix=<{self.matrix.shape[0]}×{self.matrix.shape[1]} array>)"
        return f"Precomputed(function={getattr(self.function, '__name__', self.function)!r})"

    def _resolve(self, X: Array, sample_weight: Array | None = None) -> Kernel:
        """Itself, every training row number checked (an estimator may read some rows only)."""
        if self.matrix is not None:
            xp = get_namespace(X)
            executor_for(X, xp=xp).checked(lambda X: self._rows(X, "X", xp=xp), X)
        return super()._resolve(X, sample_weight)

    def _check(self, X: Array, Z: Array | None, *, xp: ModuleType) -> tuple[Array, Array]:
        if self.matrix is None:
            return super()._check(X, Z, xp=xp)
        # Z is the user's X too (new rows, or the training rows): named as the user gave it
        return self._indices(X, "X", xp=xp), self._indices(X if Z is None else Z, "X", xp=xp)

    def _indices(self, X: Array, name: str, *, xp: ModuleType) -> Array:
        X = check_array(X, name=name, xp=xp, dtype=X.dtype)
        self._rows(X, name, xp=xp)
        return X

    def _rows(self, X: Array, name: str, *, xp: ModuleType) -> Array:
        """The row numbers ``X[:, 0]`` as integers, checked against the matrix's size (and X
        against its one column): lrkl's algorithms call :meth:`_evaluate` on rows the user
        gave, so the check is made here."""
        if X.ndim != 2 or X.shape[1] != 1:
            msg = (
                f"{name} must hold one column of row numbers into the matrix, received shape "
                f"{tuple(X.shape)}"
            )
            raise ValueError(msg)
        n = self.matrix.shape[0]
        values = X[:, 0]
        bad = (values < 0) | (values >= n)
        if not xp.isdtype(values.dtype, "integral"):
            bad |= xp.floor(values) != values
        if bool(xp.any(bad)):
            shown = xp.reshape(values[bad], (-1,))[:5]
            listed = ", ".join(f"{float(v):g}" for v in shown)
            count = int(xp.sum(xp.astype(bad, xp.int64)))
            msg = (
                f"{name} must hold integer row numbers in [0, {n - 1}], the rows of the {n}×{n} "
                f"precomputed matrix; received {count} other value(s): {listed}"
            )
            raise ValueError(msg)
        return xp.astype(values, xp.int64)

    def _evaluate(self, X: Array, Z: Array, *, xp: ModuleType) -> Array:
        if self.function is not None:
            K = self.function(X, Z)
            return check_kernel_values(K, (X.shape[0], Z.shape[0]), "function", xp=xp)
        rows = xp.take(self.matrix, self._rows(X, "X", xp=xp), axis=0)
        return as_float(xp.take(rows, self._rows(Z, "X", xp=xp), axis=1), xp=xp)

    def _diag(self, X: Array, *, xp: ModuleType) -> Array:
        if self.matrix is not None:
            n = self.matrix.shape[0]
            idx = self._rows(X, "X", xp=xp)
            return as_float(xp.take(xp.reshape(self.matrix, (n * n,)), idx * (n + 1)), xp=xp)
        if self.diagonal is not None:
            d = check_kernel_values(self.diagonal(X), (X.shape[0],), "diagonal", xp=xp)
            if bool(xp.any(d < 0.0)):  # k(x, x) ≥ 0 for any kernel
                msg = (
                    "Precomputed diagonal must return k(x, x) ≥ 0 (a kernel's diagonal), received "
                    f"{float(xp.min(d)):.4g}"
                )
                raise ValueError(msg)
            return d
        return super()._diag(X, xp=xp)

"""Centred-alignment kernel weights (Cortes, Mohri & Rostamizadeh 2012): align, alignf, alignfc."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from types import ModuleType

from lrkl._backend import (
    check_array,
    check_consistent_length,
    device_of,
    ensure_array,
    get_namespace,
    index_array,
)
from lrkl._checks import check_option
from lrkl._linalg import lstsq
from lrkl._typing import Array
from lrkl.kernel_ridge._scaling import power_of_two_scale
from lrkl.lowrank._factor import _as_dtype

#: The weightings of :func:`alignment_weights`.
ALIGNMENT_METHODS = ("align", "alignf", "alignfc")


# --------------------------------------------------------------------------- centred alignment


def factor_alignment(factors: Sequence[Array], y: Array, /) -> tuple[Array, Array]:
    """Centred-alignment statistics of kernels given by factors ``K_q ≈ G_q G_qᵀ``.

    ``a_q = ⟨P K_q P, y yᵀ⟩_F = ‖G_qcᵀ y‖²`` and ``M_ql = ⟨P K_q P, P K_l P⟩_F =
    ‖G_qcᵀ G_lc‖²_F`` with ``G_qc = P G_q`` the column-centred factors (:ref:`mklaren-alignment`,
    low-rank variants); ``y`` of shape ``(n, t)`` uses ``Y Yᵀ``. Costs ``O(n (Σ r_q)²)``, no
    ``n × n`` matrix; with rank-one factors (one feature per kernel) ``M = (G_cᵀ G_c)²``
    elementwise.

    Returns
    -------
    a : array, shape (p,)
    M : array, shape (p, p)
    """
    if not isinstance(factors, Sequence) or isinstance(factors, str):
        msg = f"factors must be a sequence of n × r arrays, received {type(factors).__name__}"
        raise TypeError(msg)
    if len(factors) == 0:
        msg = "factors must hold at least one factor, received an empty sequence"
        raise ValueError(msg)
    # lists are taken as NumPy, as the estimators take them
    factors = [ensure_array(f, name=f"factors[{q}]") for q, f in enumerate(factors)]
    y = ensure_array(y, name="y")
    xp = get_namespace(y, *factors)
    rows = {f"factors[{q}]": f.shape[0] for q, f in enumerate(factors) if f.ndim >= 1}
    if len(set(rows.values())) > 1:
        msg = f"factors must all have one row per sample, received row counts {rows}"
        raise ValueError(msg)
    if any(f.ndim not in (1, 2) for f in factors):
        shapes = [tuple(f.shape) for f in factors]
        msg = f"factors must be 1-D or 2-D arrays, received shapes {shapes}"
        raise ValueError(msg)
    factors = [f[:, None] if f.ndim == 1 else f for f in factors]
    G = check_array(xp.concat(factors, axis=1), name="factors", xp=xp)  # one dtype for all
    y = check_array(y, name="y", xp=xp, ndim=(1, 2), dtype=G.dtype)
    check_consistent_length(factors=G, y=y)
    return _factor_alignment([_as_dtype(f, G.dtype, xp=xp) for f in factors], y, xp=xp)


def _factor_alignment(
    factors: Sequence[Array], y: Array, /, *, xp: ModuleType
) -> tuple[Array, Array]:
    """:func:`factor_alignment` on trusted inputs (2-D factors of one dtype): computed on
    ``G_q / s_q`` and ``y / t`` (powers of two, exact) and scaled back
    (:func:`scale_back_alignment`), so that factors or targets of 1e±200 neither overflow nor
    underflow on the way."""
    s = [power_of_two_scale(G, xp=xp) for G in factors]
    t = power_of_two_scale(y, xp=xp)
    a, M = _factor_statistics([G / sq for G, sq in zip(factors, s, strict=True)], y / t, xp=xp)
    return scale_back_alignment(
        a,
        M,
        [sq * sq for sq in s],
        t,
        function="factor_alignment",
        arguments="factors and y",
        xp=xp,
    )


def _factor_statistics(
    factors: Sequence[Array], y: Array, /, *, xp: ModuleType
) -> tuple[Array, Array]:
    """``a`` and ``M`` of :func:`factor_alignment`, as they are (no rescaling)."""
    Y = y[:, None] if y.ndim == 1 else y
    sizes = [G.shape[1] for G in factors]
    G = xp.concat(list(factors), axis=1)
    Gc = G - xp.mean(G, axis=0)
    gram = xp.matrix_transpose(Gc) @ Gc  # shape: (R, R), R = Σ r_q
    cy = xp.sum((xp.matrix_transpose(Gc) @ Y) ** 2, axis=1)  # shape: (R,)
    bounds = [0]
    for size in sizes:
        bounds.append(bounds[-1] + size)
    p = len(sizes)
    if all(size == 1 for size in sizes):
        return cy, gram * gram
    a = xp.stack([xp.sum(cy[bounds[q] : bounds[q + 1]]) for q in range(p)])
    rows = []
    for q in range(p):
        block = gram[bounds[q] : bounds[q + 1], :] ** 2
        rows.append(xp.stack([xp.sum(block[:, bounds[j] : bounds[j + 1]]) for j in range(p)]))
    return a, xp.stack(rows)


def scale_back_alignment(
    a: Array,
    M: Array,
    kernel_scales: Sequence[float],
    t: float,
    /,
    *,
    function: str,
    arguments: str,
    xp: ModuleType,
) -> tuple[Array, Array]:
    """``a_q · s_q t²`` and ``M_ql · s_q s_l``: the alignment statistics of kernels ``s_q K_q``
    and targets ``t y`` from those of ``K_q`` and ``y`` (computed at unit scale). A statistic
    that overflows the floating range is refused with a ValueError naming ``function`` and its
    ``arguments``; one below the smallest subnormal is 0, its correctly rounded value."""
    p, top = len(kernel_scales), float(xp.finfo(a.dtype).max)
    scales = {
        "a": [sq * t * t for sq in kernel_scales],
        "M": [sq * sl for sq in kernel_scales for sl in kernel_scales],
    }
    out = []
    for name, values in (("a", a), ("M", xp.reshape(M, (-1,)))):
        f = scales[name]
        # |v| · f > top, without forming the overflowing product (no warning, no inf · 0)
        limits = [math.inf if x == 0 else top / x if x <= top else 0.0 for x in f]
        limits = xp.asarray(limits, dtype=a.dtype, device=device_of(a))
        with warnings.catch_warnings():  # an overflow is refused just below, by name
            warnings.simplefilter("ignore", RuntimeWarning)
            scale = xp.asarray([min(x, top) for x in f], dtype=a.dtype, device=device_of(a))
            product = values * scale
        if bool(xp.any(xp.abs(values) > limits)):
            msg = (
                f"{arguments} are out of range for {function}: the statistic {name} of kernels "
                f"of scale up to {max(kernel_scales):.3g} and y of max |y| about {t:.3g} (powers "
                "of two) exceeds the floating range. The alignment weights do not depend on the "
                "scale of the kernels or of y: divide them by a constant first"
            )
            raise ValueError(msg)
        out.append(product)
    return out[0], xp.reshape(out[1], (p, p))


def alignment_weights(a: Array, M: Array, /, method: str) -> Array:
    """Kernel weights of centred-alignment MKL (Cortes, Mohri & Rostamizadeh 2012).

    - ``"align"``: ``η = a / Σ a`` (each kernel on its own; the reference code's form, without
      the ``‖K_c‖_F`` normalisation of ρ);
    - ``"alignf"``: ``η = M⁻¹a / ‖M⁻¹a‖₂``, the unconstrained maximiser of the alignment of
      ``Σ η_q K_qc`` with ``y yᵀ`` (minimum-norm least squares when ``M`` is singular); weights
      may be negative;
    - ``"alignfc"``: ``v* = argmin_{v ≥ 0} vᵀ M v − 2 vᵀ a``, ``η = v* / ‖v*‖₁``: the
      constrained QP, solved exactly by an active-set (Lawson–Hanson) method on the ``p × p``
      system.

    Parameters
    ----------
    a : array, shape (p,)
        ``a_q = ⟨K_qc, y yᵀ⟩_F``.
    M : array, shape (p, p)
        ``M_ql = ⟨K_qc, K_lc⟩_F`` (symmetric positive semi-definite).
    method : {"align", "alignf", "alignfc"}

    Returns
    -------
    array, shape (p,)
        The weights ``η`` (all zero if ``a = 0``).

    Examples
    --------
    >>> import array_api_strict as xp
    >>> a = xp.asarray([1.0, 2.0])
    >>> M = xp.asarray([[1.0, 0.0], [0.0, 4.0]])
    >>> alignment_weights(a, M, "alignfc")
    Array([0.66666667, 0.33333333], dtype=array_api_strict.float64)
    """
    check_option(method, ALIGNMENT_METHODS, name="method")
    a, M = ensure_array(a, name="a"), ensure_array(M, name="M")  # lists are taken as NumPy
    xp = get_namespace(a, M)
    a = check_array(a, name="a", xp=xp, ndim=1)
    M = check_array(M, name="M", xp=xp, dtype=a.dtype)
    p = a.shape[0]
    if tuple(M.shape) != (p, p):
        msg = f"M must have shape ({p}, {p}) to match a, received {tuple(M.shape)}"
        raise ValueError(msg)
    return _alignment_weights(a, M, method, xp=xp)


def _alignment_weights(a: Array, M: Array, method: str, /, *, xp: ModuleType) -> Array:
    """:func:`alignment_weights` on trusted inputs."""
    if method == "align":
        total = xp.sum(a)
        return xp.where(total > 0, a / xp.where(total > 0, total, 1.0), 0.0)
    if method == "alignf":
        v = lstsq(M, a, xp=xp)
        norm = xp.sqrt(xp.sum(v * v))
        return xp.where(norm > 0, v / xp.where(norm > 0, norm, 1.0), 0.0)
    v = _nonnegative_qp(M, a, xp=xp)  # "alignfc"
    total = xp.sum(v)
    return xp.where(total > 0, v / xp.where(total > 0, total, 1.0), 0.0)


def _nonnegative_qp(M: Array, a: Array, *, xp: ModuleType) -> Array:
    """``argmin_{v ≥ 0} vᵀ M v − 2 aᵀ v`` by Lawson–Hanson's active-set method on the Gram form.

    ``M = Bᵀ B`` makes this the NNLS problem ``min ‖B v − c‖`` with ``Bᵀ c = a``; the method
    only ever needs ``M`` and ``a``. Each outer step frees the variable with the largest
    negative-gradient entry ``w = a − M v``; the inner loop keeps the free set's least-squares
    solution feasible. It terminates in finitely many steps; the loop runs on the host over
    ``p × p`` data (small and sequential).
    """
    p = a.shape[0]
    v = xp.zeros_like(a)
    scale = max(float(xp.max(xp.abs(a))), float(xp.max(xp.abs(M))))
    if scale == 0.0:
        return v
    eye = xp.eye(p, dtype=a.dtype, device=device_of(a))
    tol = 10 * p * float(xp.finfo(a.dtype).eps) * scale
    free: list[int] = []
    for _ in range(3 * p + 10):
        w = a - M @ v
        for f in free:
            w[f] = -xp.inf
        j = int(xp.argmax(w))
        if not float(w[j]) > tol:
            break
        free.append(j)
        for _ in range(3 * p + 10):
            idx = index_array(free, xp=xp, device=device_of(a))
            expand = xp.take(eye, idx, axis=1)  # shape: (p, |free|), v = expand @ v_free
            sub = xp.take(xp.take(M, idx, axis=0), idx, axis=1)
            z = lstsq(sub, xp.take(a, idx), xp=xp)
            if bool(xp.all(z > 0)):
                v = expand @ z
                break
            # Move from v towards z until the first free variable reaches 0; drop those at 0.
            v_free = xp.take(v, idx)
            blocking = z <= 0
            ratio = xp.where(blocking, v_free / xp.where(blocking, v_free - z, 1.0), xp.inf)
            step = xp.min(ratio)
            v_free = v_free + step * (z - v_free)
            dropped = (ratio <= step) | (v_free <= 0)
            v_free = xp.where(dropped, xp.zeros_like(v_free), v_free)
            v = expand @ v_free
            keep = [not bool(dropped[t]) for t in range(len(free))]
            free = [f for f, kept in zip(free, keep, strict=True) if kept]
            if not free:
                break
    return v

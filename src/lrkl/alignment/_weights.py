"""Centred-alignment kernel weights (Cortes, Mohri & Rostamizadeh 2012): align, alignf, alignfc."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

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

#: The weightings of :func:`alignment_weights`.
ALIGNMENT_METHODS = ("align", "alignf", "alignfc")

Array = Any


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
    G = xp.concat([f[:, None] if f.ndim == 1 else f for f in factors], axis=1)
    G = check_array(G, name="factors", xp=xp)
    y = check_array(y, name="y", xp=xp, ndim=(1, 2), dtype=G.dtype)
    check_consistent_length(factors=G, y=y)
    Y = y[:, None] if y.ndim == 1 else y
    sizes = [1 if f.ndim == 1 else f.shape[1] for f in factors]
    Gc = G - xp.mean(G, axis=0)
    gram = xp.matrix_transpose(Gc) @ Gc  # shape: (R, R), R = Σ r_q
    cy = xp.sum((xp.matrix_transpose(Gc) @ Y) ** 2, axis=1)  # shape: (R,)
    bounds = [0]
    for s in sizes:
        bounds.append(bounds[-1] + s)
    p = len(sizes)
    if all(s == 1 for s in sizes):
        return cy, gram * gram
    a = xp.stack([xp.sum(cy[bounds[q] : bounds[q + 1]]) for q in range(p)])
    rows = []
    for q in range(p):
        block = gram[bounds[q] : bounds[q + 1], :] ** 2
        rows.append(xp.stack([xp.sum(block[:, bounds[j] : bounds[j + 1]]) for j in range(p)]))
    return a, xp.stack(rows)


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
    xp = get_namespace(a, M)
    a = check_array(a, name="a", xp=xp, ndim=1)
    M = check_array(M, name="M", xp=xp, dtype=a.dtype)
    p = a.shape[0]
    if tuple(M.shape) != (p, p):
        msg = f"M must have shape ({p}, {p}) to match a, received {tuple(M.shape)}"
        raise ValueError(msg)
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

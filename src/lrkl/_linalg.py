"""The thin linalg shim: what the array API standard lacks or does slowly.

Dispatch:

- NumPy: :mod:`scipy.linalg` (LAPACK with pivoting-free Cholesky, triangular solves, gelsd);
- CuPy: :mod:`cupyx.scipy.linalg` and :mod:`cupy.linalg`;
- PyTorch: :mod:`torch.linalg`;
- anything else (array-api-strict, ...): a generic array-API fallback whose cost is noted.

Like :mod:`lrkl._backend`, this module may import the array libraries; no other module does.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, NamedTuple

import array_api_compat
import scipy.linalg

__all__ = [
    "Factor",
    "cho_factor",
    "cho_solve",
    "cholesky",
    "eigh",
    "lstsq",
    "qr",
    "solve",
    "solve_triangular",
    "svd",
]

Array = Any


# --------------------------------------------------------------------------- linalg shim


def _kind(xp: ModuleType) -> str:
    if array_api_compat.is_numpy_namespace(xp):
        return "numpy"
    if array_api_compat.is_cupy_namespace(xp):
        return "cupy"
    if array_api_compat.is_torch_namespace(xp):
        return "torch"
    return "generic"


def cholesky(a: Array, /, *, xp: ModuleType, lower: bool = True) -> Array:
    """Cholesky factor of a symmetric positive definite ``a``: ``L`` (``lower``) or ``U = Lᵀ``.

    Raises :class:`numpy.linalg.LinAlgError`-like errors of the backend when ``a`` is not
    positive definite.
    """
    kind = _kind(xp)
    if kind == "numpy":
        return scipy.linalg.cholesky(a, lower=lower, check_finite=False)
    factor = xp.linalg.cholesky(a)
    return factor if lower else xp.matrix_transpose(factor)


def solve_triangular(
    a: Array, b: Array, /, *, xp: ModuleType, lower: bool, trans: bool = False
) -> Array:
    """Solve ``a x = b`` (or ``aᵀ x = b`` with ``trans``) for triangular ``a``; ``b`` 1-D or 2-D."""
    kind = _kind(xp)
    if kind == "numpy":
        return scipy.linalg.solve_triangular(
            a, b, lower=lower, trans=1 if trans else 0, check_finite=False
        )
    if kind == "cupy":
        import cupyx.scipy.linalg

        return cupyx.scipy.linalg.solve_triangular(a, b, lower=lower, trans=1 if trans else 0)
    if trans:
        a, lower = xp.matrix_transpose(a), not lower
    if kind == "torch":
        import torch

        rhs = b[:, None] if b.ndim == 1 else b
        out = torch.linalg.solve_triangular(a, rhs, upper=not lower)
        return out[:, 0] if b.ndim == 1 else out
    # Generic fallback: a dense LU solve, O(k³) instead of the O(k²) of a triangular solve.
    return xp.linalg.solve(a, b[:, None])[:, 0] if b.ndim == 1 else xp.linalg.solve(a, b)


class Factor(NamedTuple):
    """A Cholesky factorisation ``a = L Lᵀ`` kept for repeated solves (:func:`cho_solve`)."""

    lower: Array  # shape: (k, k), lower triangular


def cho_factor(a: Array, /, *, xp: ModuleType) -> Factor:
    """Factor a symmetric positive definite ``a`` once for many :func:`cho_solve` calls."""
    return Factor(cholesky(a, xp=xp, lower=True))


def cho_solve(factor: Factor, b: Array, /, *, xp: ModuleType) -> Array:
    """Solve ``a x = b`` given the :func:`cho_factor` factor of ``a``: two triangular solves."""
    if _kind(xp) == "numpy":
        return scipy.linalg.cho_solve((factor.lower, True), b, check_finite=False)
    z = solve_triangular(factor.lower, b, xp=xp, lower=True)
    return solve_triangular(factor.lower, z, xp=xp, lower=True, trans=True)


def solve(a: Array, b: Array, /, *, xp: ModuleType, assume_a: str = "gen") -> Array:
    """Solve the square system ``a x = b``; ``assume_a="pos"`` uses a Cholesky factorisation."""
    if assume_a not in ("gen", "pos"):
        msg = f"assume_a must be 'gen' or 'pos', received {assume_a!r}"
        raise ValueError(msg)
    if _kind(xp) == "numpy":
        return scipy.linalg.solve(a, b, assume_a=assume_a, check_finite=False)
    if assume_a == "pos":
        return cho_solve(cho_factor(a, xp=xp), b, xp=xp)
    return xp.linalg.solve(a, b[:, None])[:, 0] if b.ndim == 1 else xp.linalg.solve(a, b)


def eigh(a: Array, /, *, xp: ModuleType) -> tuple[Array, Array]:
    """Eigenvalues (ascending) and eigenvectors of a symmetric ``a``.

    On NumPy, LAPACK's divide and conquer (``syevd``, NumPy's own choice): SciPy's default,
    ``syevr``, took 214 s against ``syevd``'s 36 s on a 5461 × 5461 Gaussian kernel matrix
    whose eigenvalues cluster near zero (cpusmall).
    """
    if _kind(xp) == "numpy":
        return scipy.linalg.eigh(a, driver="evd", check_finite=False)
    w, v = xp.linalg.eigh(a)
    return w, v


def svd(a: Array, /, *, xp: ModuleType) -> tuple[Array, Array, Array]:
    """Thin SVD ``a = U diag(s) Vh`` with ``s`` descending."""
    if _kind(xp) == "numpy":
        return scipy.linalg.svd(a, full_matrices=False, check_finite=False)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    return u, s, vh


def qr(a: Array, /, *, xp: ModuleType) -> tuple[Array, Array]:
    """Thin QR ``a = Q R`` of an ``m × k`` matrix with ``m ≥ k``."""
    if _kind(xp) == "numpy":
        return scipy.linalg.qr(a, mode="economic", check_finite=False)
    q, r = xp.linalg.qr(a, mode="reduced")
    return q, r


def lstsq(a: Array, b: Array, /, *, xp: ModuleType, rcond: float | None = None) -> Array:
    """Minimum-norm least-squares solution of ``a x ≈ b``.

    Singular values below ``rcond · s_max`` are treated as zero (default: machine epsilon times
    the larger dimension, as NumPy does).
    """
    kind = _kind(xp)
    if kind == "numpy":
        return scipy.linalg.lstsq(a, b, cond=rcond, check_finite=False)[0]
    if kind == "torch":
        import torch

        rhs = b[:, None] if b.ndim == 1 else b
        driver = "gelsd" if a.device.type == "cpu" else "gels"
        out = torch.linalg.lstsq(a, rhs, rcond=rcond, driver=driver).solution
        return out[:, 0] if b.ndim == 1 else out
    # CuPy and generic: through the thin SVD, O(m k²), the cost LAPACK's gelsd pays as well.
    u, s, vh = svd(a, xp=xp)
    if rcond is None:
        rcond = xp.finfo(a.dtype).eps * max(a.shape)
    cutoff = rcond * s[0] if s.shape[0] > 0 else 0.0
    s_inv = xp.where(s > cutoff, 1.0 / xp.where(s > cutoff, s, 1.0), 0.0)
    ub = xp.matrix_transpose(u) @ (b[:, None] if b.ndim == 1 else b)
    out = xp.matrix_transpose(vh) @ (s_inv[:, None] * ub)
    return out[:, 0] if b.ndim == 1 else out

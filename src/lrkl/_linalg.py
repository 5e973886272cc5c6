"""The thin linalg shim: what the array API standard lacks or does slowly.

Dispatch:

- NumPy: :mod:`scipy.linalg` (LAPACK with pivoting-free Cholesky, triangular solves, gelsd);
- CuPy: :mod:`cupyx.scipy.linalg` and :mod:`cupy.linalg`;
- PyTorch: :mod:`torch.linalg`;
- anything else (array-api-strict, ...): a generic array-API fallback whose cost is noted.

The Cholesky factorisation of a matrix of more than ``_DIRECT_MAX`` rows is blocked, in array-API
code that every backend runs (OpenBLAS's own threaded ``potrf`` kills the process at 16 000 rows on
some CPUs), and a matrix that is not positive definite raises :class:`NotPositiveDefiniteError`, a
``ValueError``, on every backend, never the backend's ``LinAlgError``.

Like :mod:`lrkl._backend`, this module may import the array libraries; no other module does.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any, NamedTuple

import array_api_compat
import numpy as np
import scipy.linalg
import scipy.linalg.lapack

from lrkl._threads import plan_chunks, run_chunks
from lrkl._typing import Array

__all__ = [
    "Factor",
    "NotPositiveDefiniteError",
    "cho_factor",
    "cho_solve",
    "cholesky",
    "cholesky_into",
    "eigh",
    "lstsq",
    "nonpositive_expansion",
    "orthogonalise",
    "qr",
    "solve",
    "solve_triangular",
    "svd",
    "triangular_product",
    "upper_gram",
]


# --------------------------------------------------------------------------- linalg shim


def _kind(xp: ModuleType) -> str:
    if array_api_compat.is_numpy_namespace(xp):
        return "numpy"
    if array_api_compat.is_cupy_namespace(xp):
        return "cupy"
    if array_api_compat.is_torch_namespace(xp):
        return "torch"
    return "generic"


class NotPositiveDefiniteError(ValueError):
    """A matrix given to a Cholesky factorisation is not (numerically) positive definite.

    Raised by :func:`cholesky`, :func:`cho_factor` and ``solve(..., assume_a="pos")`` on every
    backend in place of the backend's own ``LinAlgError``; a :class:`ValueError`, so the refusal
    reads as one of bad input.

    Parameters
    ----------
    size : int
        The order ``n`` of the ``n × n`` matrix.
    pivot : int
        The 0-based index of the first pivot that is not positive: the leading
        ``(pivot + 1) × (pivot + 1)`` minor is not positive definite.
    name : str, default="the matrix"
        What the matrix is, for the message.
    """

    def __init__(self, size: int, pivot: int, name: str = "the matrix") -> None:
        self.size, self.pivot, self.name = size, pivot, name
        super().__init__(
            f"{name} ({size} × {size}) is not positive definite: the Cholesky factorisation "
            f"failed at pivot {pivot} (0-based), where its leading {pivot + 1} × {pivot + 1} "
            "minor is not positive definite"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.size, self.pivot, self.name)


#: Matrices of order up to this are factored by one call of the backend's Cholesky; larger ones
#: by the blocked :func:`cholesky_into`. OpenBLAS's threaded ``potrf`` with its SkylakeX kernel
#: (chosen on AVX-512 CPUs, AMD EPYC included) segfaults at n = 16 000 and 20 000 on 2 threads
#: (12 000 passes); below the threshold the single call is the faster one.
_DIRECT_MAX = 8192
#: Order of the diagonal blocks of the blocked Cholesky: a few thousand, so that the backend's
#: own Cholesky only ever sees matrices far below the sizes that crash, and the updates (most
#: of the flops) are GEMMs of ``block × block`` results, large enough to run at their peak.
_BLOCK_SIZE = 2048


def cholesky(a: Array, /, *, xp: ModuleType, lower: bool = True, shift: float = 0.0) -> Array:
    """Cholesky factor of a symmetric positive definite ``a + shift·I``.

    Only the lower triangle of ``a`` is read. Matrices of order up to ``_DIRECT_MAX`` go to the
    backend's Cholesky in one call (LAPACK's ``potrf`` through SciPy on NumPy); larger ones are
    factored by a left-looking blocked Cholesky (:func:`cholesky_into`), whose memory is the
    factor plus a few blocks, and which never hands the backend a matrix of the sizes at which
    OpenBLAS's threaded ``potrf`` crashes on some CPUs.

    Parameters
    ----------
    a : array of shape (n, n)
        Symmetric; left unchanged.
    xp : namespace
        The array namespace of ``a``.
    lower : bool, default=True
        Return ``L`` (lower triangular, ``a + shift·I = L Lᵀ``) or ``U = Lᵀ``.
    shift : float, default=0.0
        Added to the diagonal without forming ``a + shift·I`` (a ridge ``α``).

    Returns
    -------
    array of shape (n, n)
        The factor, with zeros in its other triangle.

    Raises
    ------
    NotPositiveDefiniteError
        When ``a + shift·I`` is not positive definite, with the failing pivot.
    """
    n = a.shape[0]
    if n == 0:
        return xp.asarray(a, copy=True)
    if n > _DIRECT_MAX:
        # U = Lᵀ in a new array from a's lower triangle (the upper one of aᵀ): the blocked
        # factorisation that the pcg solver's shared factors use too (cholesky_into)
        U = xp.zeros(a.shape, dtype=a.dtype, device=array_api_compat.device(a))
        if array_api_compat.is_writeable_array(U):  # JAX: no item updates to build on
            cholesky_into(xp.matrix_transpose(a), U, xp=xp, shift=shift, block=_BLOCK_SIZE)
            return xp.matrix_transpose(U) if lower else U
    factor = _direct_cholesky(a, xp=xp, shift=shift, offset=0, size=n)
    return factor if lower else xp.matrix_transpose(factor)


def _potrf(a: Any, /) -> tuple[Any, int]:
    """LAPACK's ``potrf`` on a host (NumPy) ``a``, overwritten: ``(L, info)``, with ``info`` the
    1-based failing pivot or 0."""
    (potrf,) = scipy.linalg.lapack.get_lapack_funcs(("potrf",), (a,))
    factor, info = potrf(a, lower=1, overwrite_a=1, clean=1)
    if info < 0:  # an illegal argument: a bug here, not bad input
        msg = f"LAPACK potrf: illegal value in argument {-info}"
        raise RuntimeError(msg)
    return factor, int(info)


def _direct_cholesky(a: Array, /, *, xp: ModuleType, shift: float, offset: int, size: int) -> Array:
    """One call of the backend's Cholesky on the (small) ``a + shift·I``; a failure is raised as
    :class:`NotPositiveDefiniteError` of the ``size × size`` matrix whose diagonal block at
    ``offset`` ``a`` is."""
    k = a.shape[0]
    kind = _kind(xp)
    if kind == "numpy":
        import numpy as np

        # Fortran order: potrf then works in place on the copy (no second copy by f2py).
        work = np.array(a, order="F", copy=True)
        if shift:
            work[np.diag_indices(k)] += shift
        factor, info = _potrf(work)
        if info:
            raise NotPositiveDefiniteError(size, offset + info - 1) from None
        return factor
    if shift:
        a = a + shift * xp.eye(k, dtype=a.dtype, device=array_api_compat.device(a))
    try:
        factor = xp.linalg.cholesky(a)
    except (
        ValueError,
        RuntimeError,
    ):  # NumPy's LinAlgError is a ValueError, torch's a RuntimeError
        _raise_failed_pivot(a, size=size, offset=offset)
        raise
    # CuPy does not raise by default: the factor then holds NaN (or a non-positive pivot).
    if kind == "cupy" and not bool(xp.all(xp.linalg.diagonal(factor) > 0)):
        _raise_failed_pivot(a, size=size, offset=offset)
    return factor


def _raise_failed_pivot(a: Array, /, *, size: int, offset: int) -> None:
    """Raise :class:`NotPositiveDefiniteError` with the pivot at which ``a`` fails, found by
    LAPACK on a host copy: the error path only, so that the pivot is the same on every
    backend. Returns if ``a`` turns out positive definite (the caller re-raises its error)."""

    from lrkl._backend import to_numpy

    _, info = _potrf(np.array(to_numpy(a), order="F", dtype=np.float64))
    if info:
        raise NotPositiveDefiniteError(size, offset + info - 1) from None


def upper_gram(
    U: Array,
    /,
    *,
    xp: ModuleType,
    block: int = _BLOCK_SIZE,
    scale: float = 1.0,
    minus: Array | None = None,
    dtype: Any = None,
) -> Array:
    """``scale · U Uᵀ − minus minusᵀ`` for an upper triangular ``U``, in ``n³/3`` flops (LAPACK's
    ``lauum`` count; a product ignoring the zeros takes ``n³``): block ``(I, J)``, ``I ≤ J``, is
    ``U[I, J:] U[J, J:]ᵀ``, the blocks left of ``J`` in row ``J`` being zero, and the lower blocks
    its transpose. Only ``U``'s upper triangle is read (its other triangle may hold another
    factor). Each block is computed in ``U``'s dtype and stored in ``dtype`` (default ``U``'s).
    Array-API code (GEMMs), as the blocked Cholesky."""
    n = U.shape[0]
    out_dtype = U.dtype if dtype is None else dtype
    out = xp.empty((n, n), dtype=out_dtype, device=array_api_compat.device(U))
    for j in range(0, n, block):
        je = min(j + block, n)
        diagonal = _triangle(U[j:je, j:je], xp=xp, lower=False)
        for i in range(0, je, block):
            ie = min(i + block, n)
            product = (diagonal if i == j else U[i:ie, j:je]) @ xp.matrix_transpose(diagonal)
            if je < n:
                product = product + U[i:ie, je:] @ xp.matrix_transpose(U[j:je, je:])
            if scale != 1.0:
                product = scale * product
            if minus is not None:
                product = product - minus[i:ie, None] * minus[None, j:je]
            if product.dtype != out.dtype:
                product = xp.astype(product, out.dtype)
            out[i:ie, j:je] = product
            if i != j:
                out[j:je, i:ie] = xp.matrix_transpose(product)
    return out


#: The most ``block × block`` arrays :func:`cholesky_into` and :func:`upper_gram` hold at once
#: (of their output's dtype): a source block widened, the block being formed, a GEMM's product,
#: the diagonal block's factor and a solve's result.
CHOLESKY_INTO_BLOCKS = 5


def cholesky_into(
    S: Array,
    out: Array,
    /,
    *,
    xp: ModuleType,
    shift: float = 0.0,
    lower: bool = False,
    unit: bool = False,
    block: int = _BLOCK_SIZE,
) -> Array:
    """The Cholesky factor ``U`` (upper, ``Uᵀ U = S + shift·I``) of a symmetric ``S``, written
    into one triangle of ``out``, leaving its other triangle as it was; returns ``U``'s diagonal.

    Two factors can so share one ``n × n`` array (Falkon's layout): one in the upper triangle
    with its diagonal, the other (``lower=True``: ``Uᵀ`` in the strict lower triangle) in unit
    form (``unit=True``: ``U``'s rows divided by its diagonal, which is returned and not
    written). Only ``S``'s upper triangle is read, in any dtype (each block widened to
    ``out``'s); ``S`` may be ``out`` itself (``lower=False``): each block of ``S`` is read
    before the same block of ``U`` is written. A left-looking blocked Cholesky in array-API code:
    ``U[K, J] = U_KK⁻ᵀ (S[K, J] − U[:K, K]ᵀ U[:K, J])``, ``n³/3`` flops in GEMMs, each diagonal
    block factored by the backend's Cholesky (blocks of ``block`` rows, far below the sizes at
    which OpenBLAS's threaded ``potrf`` crashes), and nothing larger than a block allocated
    (:data:`CHOLESKY_INTO_BLOCKS` of them at most at once).

    Raises :class:`NotPositiveDefiniteError` with the failing pivot; ``out`` is then partly
    written.
    """
    n = S.shape[0]
    device = array_api_compat.device(out)
    dtype = out.dtype

    def source(k: int, e: int, j: int, je: int) -> Array:
        part = S[k:e, j:je]
        return part if part.dtype == dtype else xp.astype(part, dtype)

    def factor(k: int, e: int, j: int, je: int) -> Array:  # U[k:e, j:je], off the diagonal
        return xp.matrix_transpose(out[j:je, k:e]) if lower else out[k:e, j:je]

    def put(k: int, e: int, j: int, je: int, value: Array) -> None:
        if lower:
            out[j:je, k:e] = xp.matrix_transpose(value)
        else:
            out[k:e, j:je] = value

    diagonal = xp.empty(n, dtype=dtype, device=device)
    for k in range(0, n, block):
        e = min(k + block, n)
        S_kk = source(k, e, k, e)
        W = xp.where(_triangle_mask(e - k, xp=xp, device=device), S_kk, xp.matrix_transpose(S_kk))
        del S_kk
        above = factor(0, k, k, e) if k else None
        if above is not None:
            W -= xp.matrix_transpose(above) @ above  # W is a fresh array
        L_kk = _direct_cholesky(W, xp=xp, shift=shift, offset=k, size=n)  # U_KK = L_KKᵀ
        del W
        diagonal[k:e] = xp.linalg.diagonal(L_kk)
        for j in range(e, n, block):
            je = min(j + block, n)
            R = source(k, e, j, je)
            if above is not None:
                R = R - xp.matrix_transpose(above) @ factor(0, k, j, je)
            put(k, e, j, je, solve_triangular(L_kk, R, xp=xp, lower=True))
        _put_diagonal_block(out, k, e, L_kk, xp=xp, lower=lower, unit=unit)
    if unit:  # U's rows divided by its diagonal: Uᵀ's columns when it is stored lower
        for k in range(0, n, block):
            e = min(k + block, n)
            d = diagonal[k:e]
            for j in range(e, n, block):  # in place, a block at a time
                je = min(j + block, n)
                if lower:
                    out[j:je, k:e] /= d[None, :]
                else:
                    out[k:e, j:je] /= d[:, None]
            _put_diagonal_block(
                out,
                k,
                e,
                out[k:e, k:e] / (d[None, :] if lower else d[:, None]),
                xp=xp,
                lower=lower,
                unit=True,
                transposed=True,
            )
    return diagonal


def _triangle_mask(
    k: int, /, *, xp: ModuleType, device: Any, lower: bool = False, strict: bool = False
) -> Array:
    """``k × k`` booleans, true on and above the diagonal (below with ``lower``; off it only
    with ``strict``)."""
    rows = xp.arange(k, device=device)[:, None]
    cols = xp.arange(k, device=device)[None, :]
    if lower:
        rows, cols = cols, rows
    return cols > rows if strict else cols >= rows


def _put_diagonal_block(
    out: Array,
    k: int,
    e: int,
    L_kk: Array,
    /,
    *,
    xp: ModuleType,
    lower: bool,
    unit: bool,
    transposed: bool = False,
) -> None:
    """Write ``U_KK = L_kkᵀ`` (``L_kk`` as is with ``transposed``: already in place) into the
    diagonal block of ``out``: its upper triangle (the transpose into the lower one with
    ``lower``), the diagonal only without ``unit``, the other triangle untouched."""
    value = L_kk if transposed or lower else xp.matrix_transpose(L_kk)
    keep = _triangle_mask(
        e - k, xp=xp, device=array_api_compat.device(out), lower=lower, strict=unit
    )
    out[k:e, k:e] = xp.where(keep, value, out[k:e, k:e])


def triangular_product(
    a: Array,
    b: Array,
    /,
    *,
    xp: ModuleType,
    lower: bool,
    trans: bool = False,
    unit_diagonal: bool = False,
    block: int = _BLOCK_SIZE,
) -> Array:
    """``t b`` (``tᵀ b`` with ``trans``) for ``t`` the lower (or upper) triangle of ``a`` (ones
    on its diagonal with ``unit_diagonal``); ``a``'s other triangle is not read. Blocked:
    GEMMs off the diagonal, a masked ``block × block`` product on it."""
    if trans:
        a, lower = xp.matrix_transpose(a), not lower
    n = a.shape[0]
    out = None
    for i in range(0, n, block):
        ie = min(i + block, n)
        part = _triangle(a[i:ie, i:ie], xp=xp, lower=lower, unit=unit_diagonal) @ b[i:ie, ...]
        if lower and i:
            part = part + a[i:ie, :i] @ b[:i, ...]
        if not lower and ie < n:
            part = part + a[i:ie, ie:] @ b[ie:, ...]
        if out is None:
            out = xp.empty((n, *b.shape[1:]), dtype=part.dtype, device=array_api_compat.device(b))
        out[i:ie, ...] = part
    return b if out is None else out


def _triangle(a: Array, /, *, xp: ModuleType, lower: bool, unit: bool = False) -> Array:
    """``a``'s lower (or upper) triangle with its diagonal (ones with ``unit``), zeros elsewhere."""
    keep = _triangle_mask(
        a.shape[0], xp=xp, device=array_api_compat.device(a), lower=lower, strict=unit
    )
    out = xp.where(keep, a, xp.zeros_like(a))
    if unit:
        eye = xp.eye(a.shape[0], dtype=a.dtype, device=array_api_compat.device(a))
        out = out + eye
    return out


def solve_triangular(
    a: Array,
    b: Array,
    /,
    *,
    xp: ModuleType,
    lower: bool,
    trans: bool = False,
    unit_diagonal: bool = False,
) -> Array:
    """Solve ``t x = b`` (or ``tᵀ x = b`` with ``trans``) for ``t`` the lower (or upper) triangle
    of ``a``, ones on its diagonal with ``unit_diagonal``; ``a``'s other triangle (and its
    diagonal with ``unit_diagonal``) is not read. ``b`` 1-D or 2-D."""
    kind = _kind(xp)
    if kind == "numpy":
        return scipy.linalg.solve_triangular(
            a,
            b,
            lower=lower,
            trans=1 if trans else 0,
            unit_diagonal=unit_diagonal,
            check_finite=False,
        )
    if kind == "cupy":
        import cupyx.scipy.linalg

        if a.flags.c_contiguous and not a.flags.f_contiguous:
            # CuPy copies a C-ordered matrix into Fortran order (3.2 GB at 20 000 rows): solve
            # with its transpose, the same memory in Fortran order, as SciPy does
            a, lower, trans = a.T, not lower, not trans
        return cupyx.scipy.linalg.solve_triangular(
            a, b, lower=lower, trans=1 if trans else 0, unit_diagonal=unit_diagonal
        )
    if trans:
        a, lower = xp.matrix_transpose(a), not lower
    if kind == "torch":
        import torch

        rhs = b[:, None] if b.ndim == 1 else b
        out = torch.linalg.solve_triangular(a, rhs, upper=not lower, unitriangular=unit_diagonal)
        return out[:, 0] if b.ndim == 1 else out
    # Generic fallback: a dense LU solve of the masked triangle, O(k³) instead of O(k²).
    a = _triangle(a, xp=xp, lower=lower, unit=unit_diagonal)
    return xp.linalg.solve(a, b[:, None])[:, 0] if b.ndim == 1 else xp.linalg.solve(a, b)


class Factor(NamedTuple):
    """A Cholesky factorisation ``a = L Lᵀ`` kept for repeated solves (:func:`cho_solve`)."""

    lower: Array  # shape: (k, k), lower triangular


def cho_factor(a: Array, /, *, xp: ModuleType, shift: float = 0.0) -> Factor:
    """Factor a symmetric positive definite ``a + shift·I`` once for many :func:`cho_solve`
    calls (by :func:`cholesky`: blocked above ``_DIRECT_MAX`` rows).

    Raises :class:`NotPositiveDefiniteError` when it is not positive definite.
    """
    return Factor(cholesky(a, xp=xp, lower=True, shift=shift))


def cho_solve(factor: Factor, b: Array, /, *, xp: ModuleType) -> Array:
    """Solve ``a x = b`` given the :func:`cho_factor` factor of ``a``: two triangular solves."""
    if _kind(xp) == "numpy":
        L = factor.lower
        if L.flags.c_contiguous and not L.flags.f_contiguous:
            # a C-ordered factor: its transpose U = Lᵀ is the Fortran-ordered
            # factor LAPACK reads without a copy (an n × n copy otherwise: 3.2 GB at n = 20 000)
            return scipy.linalg.cho_solve((L.T, False), b, check_finite=False)
        return scipy.linalg.cho_solve((L, True), b, check_finite=False)
    z = solve_triangular(factor.lower, b, xp=xp, lower=True)
    return solve_triangular(factor.lower, z, xp=xp, lower=True, trans=True)


def solve(a: Array, b: Array, /, *, xp: ModuleType, assume_a: str = "gen") -> Array:
    """Solve the square system ``a x = b``; ``assume_a="pos"`` uses a Cholesky factorisation."""
    if assume_a not in ("gen", "pos"):
        msg = f"assume_a must be 'gen' or 'pos', received {assume_a!r}"
        raise ValueError(msg)
    if assume_a == "pos":
        # through the shim's Cholesky on every backend: blocked when large, and a matrix that is
        # not positive definite raises NotPositiveDefiniteError, not the backend's LinAlgError
        return cho_solve(cho_factor(a, xp=xp), b, xp=xp)
    if _kind(xp) == "numpy":
        return scipy.linalg.solve(a, b, assume_a=assume_a, check_finite=False)
    return xp.linalg.solve(a, b[:, None])[:, 0] if b.ndim == 1 else xp.linalg.solve(a, b)


def orthogonalise(a: Array, basis: Array, /, *, xp: ModuleType) -> Array:
    """``(I − Bᵀ B) a`` for a vector ``a`` and ``B = basis`` with orthonormal rows, applied twice
    (classical Gram–Schmidt with one reorthogonalisation: "twice is enough"). Four
    matrix–vector products; a basis grown a row at a time into a preallocated array is a
    contiguous prefix of it."""
    if basis.shape[0] == 0:
        return a
    for _ in range(2):
        a = a - (basis @ a) @ basis
    return a


#: Rows per chunk of a NumPy kernel block (more where the columns are few,
#: :func:`lrkl._threads.plan_chunks`): the GEMM writes each chunk and the elementwise
#: passes (the norms, the clip, ``exp``) run on it while it is in cache, not over the whole
#: block in memory (a 10⁴ × 5·10³ Gaussian block, d = 10, on one core: 101 ms, from 179 ms;
#: 55 ms on two threads).
CHUNK_ROWS = 128


def nonpositive_expansion(
    A: Array, B: Array, half_A: Array | None, half_B: Array | None, /, *, exp: bool, xp: ModuleType
) -> Array:
    """``min(A Bᵀ − ½‖a_i‖² − ½‖b_j‖², 0)`` (``−½‖a_i − b_j‖²`` by the GEMM expansion), and
    its ``exp`` with ``exp``: the kernel blocks of :mod:`lrkl._distances`. ``half_A`` and
    ``half_B`` are the rows' half squared norms, both given or both None (the operands carry
    them).

    The ``n × m`` block is formed once by the GEMM and finished in place. On NumPy, with
    ``B`` not ``A``, chunk by chunk of :data:`CHUNK_ROWS` rows, each written by the GEMM and
    finished while it is in cache, on as many threads as the BLAS has (NumPy's ``exp`` runs on
    one); the operands are the unchunked product's, so every value is the same. ``A Aᵀ``
    stays one SYRK (exactly symmetric)."""
    if _kind(xp) != "numpy" or B is A:
        d = A @ xp.matrix_transpose(B)  # a SYRK when B is A
        if half_A is not None:
            d -= half_A[:, None]
            d -= half_B[None, :]
        # not clip: array-api-compat's wrapper of it costs more than the block's own arithmetic
        d = xp.minimum(d, xp.zeros((), dtype=d.dtype, device=array_api_compat.device(d)))
        return xp.exp(d) if exp else d
    out = np.empty((A.shape[0], B.shape[0]), dtype=np.result_type(A, B))
    B_t = B.T

    def finish(rows: slice) -> None:
        chunk = out[rows]
        np.matmul(A[rows], B_t, out=chunk)
        if half_A is not None:
            chunk -= half_A[rows, None]
            chunk -= half_B[None, :]
        np.minimum(chunk, 0.0, out=chunk)
        if exp:
            np.exp(chunk, out=chunk)

    plan = plan_chunks(A.shape[0], B.shape[0], CHUNK_ROWS, xp=xp)
    run_chunks(finish, plan.slices, plan.workers)
    return out


def sum_each_row(A: Array, /, *, xp: ModuleType) -> Array:
    """``Σ_j A_ij`` by a GEMV with a vector of ones: NumPy reduces short rows (a few features or
    columns) along ``axis=1`` several times slower than BLAS multiplies, and row sums of squares
    are on every kernel block's path."""
    return A @ xp.ones(A.shape[1], dtype=A.dtype, device=array_api_compat.device(A))


def indefinite_threshold(scale: Any, dtype: Any, *, xp: ModuleType) -> float:
    """``√ε · max|λ|``: a symmetric kernel matrix with an eigenvalue below ``−`` this is not
    positive semi-definite. The kernel's entries carry rounding of ``ε · γ‖x − c‖²`` each, which
    for a built-in kernel on clustered data far from its centre (``γ‖x − c‖² ≈ 1e8``) puts
    eigenvalues of a PSD matrix at ``−1e-9`` (``n · ε · max|λ|`` refused those); a matrix that
    is not PSD (a wrong Precomputed one) has negative eigenvalues of its own scale."""
    return math.sqrt(xp.finfo(dtype).eps) * float(scale)


def _not_converged(what: str, a: Any, routine: str) -> ValueError:
    """The error for a LAPACK ``routine`` that did not converge on ``a`` (or its shape)."""
    m, n = a if isinstance(a, tuple) else tuple(a.shape)
    msg = (
        f"the {what} of a {m} × {n} matrix did not converge (LAPACK {routine}): its entries are "
        "not finite or span beyond float64's range"
    )
    return ValueError(msg)


def eigh(a: Array, /, *, xp: ModuleType) -> tuple[Array, Array]:
    """Eigenvalues (ascending) and eigenvectors of a symmetric ``a``.

    On NumPy, LAPACK's divide and conquer (``syevd``), SciPy's LAPACK called directly:
    SciPy's default driver, ``syevr``, took 214 s against ``syevd``'s 36 s on a 5461 × 5461
    Gaussian kernel matrix whose eigenvalues cluster near zero (cpusmall); ``scipy.linalg.eigh``
    costs twice the call itself on the small blocks (m ≤ 50) that Nyström decomposes, and NumPy's
    ``eigh`` computes float32 in float64.
    """
    if _kind(xp) == "numpy":
        (syevd,) = scipy.linalg.lapack.get_lapack_funcs(("syevd",), (a,))
        w, v, info = syevd(a, compute_v=1, lower=1)
        if info != 0:
            raise _not_converged("eigendecomposition", a, "syevd")
        return w, v
    w, v = xp.linalg.eigh(a)
    return w, v


def svd(a: Array, /, *, xp: ModuleType, overwrite: bool = False) -> tuple[Array, Array, Array]:
    """Thin SVD ``a = U diag(s) Vh`` with ``s`` descending. ``overwrite``: ``a`` may be
    destroyed (SciPy then spares a copy of it; LAPACK's ``gesdd`` still takes ``3·min(m, n)²``
    of workspace beside ``U`` and ``Vh``)."""
    if _kind(xp) == "numpy":
        shape = tuple(a.shape)  # before gesdd may overwrite a
        try:
            return scipy.linalg.svd(
                a, full_matrices=False, check_finite=False, overwrite_a=overwrite
            )
        except np.linalg.LinAlgError as error:
            raise _not_converged("SVD", shape, "gesdd") from error
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
        try:
            return scipy.linalg.lstsq(a, b, cond=rcond, check_finite=False)[0]
        except np.linalg.LinAlgError as error:
            raise _not_converged("least-squares solve", a, "gelsd") from error
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

"""The kernel-ridge core: one set of solvers for every lrkl estimator that ends in a ridge solve.

The model is ``f(x) = Σ_i c_i k(x_i, x) + b``. With ``fit_intercept=True`` the bias ``b`` is
**unpenalised**::

    min_{c, b} ‖y − K c − b 1‖² + α cᵀ K c   ⇔   (K + αI) c + b 1 = y,  1ᵀ c = 0

(the bordered system (7) of Prato & Zanni 2012). On explicit features ``Z`` (``K = Z Zᵀ``, a
low-rank factor) the same model is ``min_{w, b} ‖y − Z w − b 1‖² + α ‖w‖²`` with ``c`` such that
``w = Zᵀ c``, solved in the primal on the centred ``Z`` and ``y`` (scikit-learn's ``Ridge``).
With ``fit_intercept=False``, ``b = 0``.

Every solve reduces to ``(S + αI) x = r`` with ``S`` symmetric (``K`` in the dual, ``Z_cᵀ Z_c``
in the primal). A solver is set up once from ``S`` and then solves for any ``α`` and right-hand
side (lineax's init / compute); :data:`KERNEL_RIDGE_SOLVERS` is the registry the estimators
dispatch through:

- ``"cholesky"``: nothing at set-up, one Cholesky factorisation of ``S + αI`` per new ``α``
  (``O(k³/3)``); for one ``α`` on a positive semi-definite ``S``;
- ``"eigh"``: ``S = U Λ Uᵀ`` once (``O(k³)``), then ``O(k²)`` per ``α`` and right-hand side; for
  paths over ``α``, for indefinite ``S`` (alignf's negative weights) and for ``α = 0`` (the
  minimum-norm solution, eigenvalues below a relative cutoff treated as zero).
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any, NamedTuple, Protocol

from lrkl._backend import check_array, device_of, ensure_array, get_namespace
from lrkl._checks import check_bool, check_namespace, check_number, check_option
from lrkl._executor import executor_for
from lrkl._linalg import (
    NotPositiveDefiniteError,
    cho_factor,
    cho_solve,
    eigh,
    indefinite_threshold,
)
from lrkl._model_selection import check_grid
from lrkl._typing import Array
from lrkl.kernel_ridge._scaling import power_of_two_scale

__all__ = [
    "KERNEL_RIDGE_SOLVERS",
    "CholeskySolver",
    "EighSolver",
    "PrimalProblem",
    "RidgeCoefficients",
    "make_solver",
    "primal_loo_errors",
    "primal_problem",
    "solve_dual",
    "solve_primal",
    "weigh_kernel",
]


class RidgeSolver(Protocol):
    """A set-up solver of ``(S + αI) x = rhs`` for any ``α``."""

    def solve(self, rhs: Array, alpha: float, /) -> Array:
        """``(S + αI)⁻¹ rhs``; ``rhs`` of shape (k,) or (k, t)."""


class CholeskySolver:
    """``(S + αI) x = rhs`` by a Cholesky factorisation per ``α`` (the last one is kept).

    ``S`` is positive semi-definite. Where ``S + αI`` is positive definite in exact arithmetic
    but not in floating point (``α`` below the rounding of a singular ``S``: ``alpha=1e-300``,
    a weight of ``1e300``), the factorisation fails; the solve then falls back to the
    eigendecomposition of ``S`` (:class:`EighSolver`), which treats the eigenvalues of
    ``S + αI`` within ``k · eps · max|λ|`` of zero as zero: the minimum-norm solution of the
    system as rounded, the limit ``α → 0`` that ``α`` is too small to move away from. An
    ``S + αI`` with an eigenvalue below ``−k · eps · max|λ|`` is not positive semi-definite up to
    rounding: a :class:`ValueError` that asks for a larger ``alpha`` (or a valid kernel).
    """

    def __init__(self, S: Array, /, *, xp: ModuleType) -> None:
        self.S, self.xp = S, xp
        self._alpha: float | None = None
        self._factor = None
        self._fallback: EighSolver | None = None

    def solve(self, rhs: Array, alpha: float, /) -> Array:
        xp = self.xp
        if alpha != self._alpha:
            self._factor = None  # the previous factor goes before the new one is made
            self._factor, self._alpha = self._factorise(alpha), alpha
        if self._factor is None:
            return self._fallback.solve(rhs, alpha)
        return cho_solve(self._factor, rhs, xp=xp)

    def _factorise(self, alpha: float) -> Any:
        """The Cholesky factor of ``S + αI``, or None after setting up the fallback."""
        xp = self.xp
        k = self.S.shape[0]
        try:
            # the shift goes onto the diagonal inside the factorisation: S + αI is never formed,
            # so that the memory is S and its factor (2 n² at n = 20 000 is 6.4 GB)
            return cho_factor(self.S, xp=xp, shift=alpha)
        except NotPositiveDefiniteError:
            pass
        if self._fallback is None:
            self._fallback = EighSolver(self.S, xp=xp)
        lowest = float(xp.min(self._fallback.eigenvalues)) + alpha if k else 0.0
        if lowest < -self._fallback.indefinite_below:
            msg = (
                f"the {k} × {k} ridge system S + αI at alpha = {alpha:.4g} is not positive "
                f"semi-definite: its smallest eigenvalue is {lowest:.4g}, beyond the rounding of "
                f"S ({self._fallback.indefinite_below:.2g}); the kernel (or its weights) must be "
                "positive semi-definite, or alpha must exceed the negative eigenvalue"
            )
            raise ValueError(msg)
        return None


class EighSolver:
    """``(S + αI) x = rhs`` from one eigendecomposition ``S = U Λ Uᵀ``: ``O(k²)`` per ``α``.

    Eigenvalues of ``S + αI`` within ``k · eps · max|λ|`` of zero are treated as zero (the
    pseudo-inverse), which gives the minimum-norm solution at ``α = 0``.
    """

    def __init__(self, S: Array, /, *, xp: ModuleType) -> None:
        self.xp = xp
        self.eigenvalues, self.U = eigh(S, xp=xp)
        scale = xp.max(xp.abs(self.eigenvalues)) if S.shape[0] else 0.0
        self.cutoff = S.shape[0] * xp.finfo(S.dtype).eps * scale
        self.indefinite_below = indefinite_threshold(scale, S.dtype, xp=xp)

    def solve(self, rhs: Array, alpha: float, /) -> Array:
        xp = self.xp
        shifted = self.eigenvalues + alpha
        keep = xp.abs(shifted) > self.cutoff
        inverse = xp.where(keep, 1.0 / xp.where(keep, shifted, 1.0), 0.0)
        projected = xp.matrix_transpose(self.U) @ rhs
        scaled = inverse * projected if rhs.ndim == 1 else inverse[:, None] * projected
        return self.U @ scaled


#: The solvers the estimators dispatch through, by name.
KERNEL_RIDGE_SOLVERS: dict[str, type] = {"cholesky": CholeskySolver, "eigh": EighSolver}


def make_solver(S: Array, /, solver: str, *, xp: ModuleType) -> RidgeSolver:
    """Set up the solver named ``solver`` (a key of :data:`KERNEL_RIDGE_SOLVERS`) for ``S``, a
    finite square symmetric positive semi-definite matrix (a kernel or a Gram matrix)."""
    check_namespace(xp)
    check_option(solver, sorted(KERNEL_RIDGE_SOLVERS), name="solver")
    S = _check_square(S, name="S", xp=xp)
    return _make_solver(S, solver, xp=xp)


def _make_solver(S: Array, /, solver: str, *, xp: ModuleType) -> RidgeSolver:
    """:func:`make_solver` on trusted inputs."""
    return KERNEL_RIDGE_SOLVERS[solver](S, xp=xp)


def _check_rows(a: Any, n: int, *, name: str, ndim: tuple[int, ...], xp: ModuleType) -> Array:
    """``a`` checked as a finite array of ``n`` rows (``ndim`` dimensions), or an error."""
    a = check_array(a, name=name, ndim=ndim, xp=xp)
    if a.shape[0] != n:
        msg = f"{name} must have {n} rows, one per sample, received shape {tuple(a.shape)}"
        raise ValueError(msg)
    return a


def _check_nonnegative(a: Array, *, name: str, xp: ModuleType) -> Array:
    """``a`` if its values are ≥ 0 and not all zero (weights that leave some data), else an
    error."""
    if not bool(xp.all(a >= 0.0)):
        msg = f"{name} must be non-negative, received a negative value"
        raise ValueError(msg)
    if not bool(xp.any(a > 0.0)):
        msg = f"{name} must be non-negative with at least one positive value, received all zeros"
        raise ValueError(msg)
    return a


def _check_square(S: Any, *, name: str, xp: ModuleType) -> Array:
    """``S`` checked as a finite square matrix, or an error naming ``name``."""
    S = check_array(S, name=name, ndim=2, xp=xp)
    if S.shape[0] != S.shape[1]:
        msg = f"{name} must be a square matrix, received shape {tuple(S.shape)}"
        raise ValueError(msg)
    return S


def _check_solver(solver: Any, *, eigh_only: bool = False) -> int:
    """The order ``k`` of the matrix ``solver`` was set up on, if it comes from
    :func:`make_solver` (an ``"eigh"`` one where ``eigh_only``), else a TypeError."""
    kinds = EighSolver if eigh_only else CholeskySolver | EighSolver
    if not isinstance(solver, kinds):
        which = "make_solver(..., 'eigh')" if eigh_only else "make_solver"
        msg = f"solver must come from {which}, received {type(solver).__name__}"
        raise TypeError(msg)
    return solver.S.shape[0] if isinstance(solver, CholeskySolver) else solver.U.shape[0]


class RidgeCoefficients(NamedTuple):
    """A fitted ridge model: ``coef`` (dual ``c`` or primal ``w``) and the intercept ``b``.

    ``intercept`` is an array of shape () for a 1-D ``y`` and (n_targets,) for a 2-D one, in the
    namespace and on the device of the data, also when it is 0 (``fit_intercept=False``).
    """

    coef: Array  # shape: (k,) or (k, t)
    intercept: Array  # shape: () or (t,)


def weigh_kernel(K: Array, sqrt_weight: Array | None, /) -> Array:
    """``S K S`` with ``S = diag(√w)``: the matrix :func:`solve_dual` wants its solver set up
    on for sample weights ``w`` (``K`` itself without weights).

    ``K`` must be a finite square matrix and ``sqrt_weight`` None or a finite 1-D array of one
    value ≥ 0 per row of ``K``, not all zero, in the same array library (lists are taken as
    NumPy arrays); anything else is refused with a ValueError or TypeError naming the argument.
    """
    # lists are taken as NumPy, as the estimators take them
    K = ensure_array(K, name="K")
    if sqrt_weight is not None:
        sqrt_weight = ensure_array(sqrt_weight, name="sqrt_weight")
    xp = get_namespace(K) if sqrt_weight is None else get_namespace(K, sqrt_weight)
    K = _check_square(K, name="K", xp=xp)
    if sqrt_weight is not None:
        sqrt_weight = _check_rows(sqrt_weight, K.shape[0], name="sqrt_weight", ndim=(1,), xp=xp)
        _check_nonnegative(sqrt_weight, name="sqrt_weight", xp=xp)
    with _overflow_reported():
        weighted = _weigh_kernel(K, sqrt_weight)
    return _finite_result(weighted, "S K S", "K and sqrt_weight", xp=xp)


@contextlib.contextmanager
def _overflow_reported() -> Iterator[None]:
    """NumPy's overflow warnings silenced where :func:`_finite_result` reports the overflow."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def _finite_result(value: Any, what: str, inputs: str, *, xp: ModuleType) -> Any:
    """``value`` (an array, a named tuple of arrays or a list of floats) if finite, else the
    ValueError of a public function whose finite inputs were too large for float64."""
    if isinstance(value, list):
        finite = all(math.isfinite(v) for v in value)
    else:
        parts = value if isinstance(value, tuple) else (value,)
        finite = all(bool(xp.all(xp.isfinite(part))) for part in parts)
    if not finite:
        msg = (
            f"{what} overflows float64: {inputs} are too large (finite, but their products "
            "are not); divide them by a constant"
        )
        raise ValueError(msg)
    return value


def _weigh_kernel(K: Array, sqrt_weight: Array | None, /) -> Array:
    """:func:`weigh_kernel` on trusted inputs."""
    if sqrt_weight is None:
        return K
    return sqrt_weight[:, None] * K * sqrt_weight[None, :]


def solve_dual(
    solver: RidgeSolver,
    y: Array,  # shape: (n,) or (n, t)
    alpha: float,
    /,
    *,
    fit_intercept: bool,
    xp: ModuleType,
    sqrt_weight: Array | None = None,  # shape: (n,), √w for sample weights w
) -> RidgeCoefficients:
    """Dual coefficients of ``(K + αI) c + b 1 = y`` (with ``1ᵀ c = 0`` when ``fit_intercept``).

    ``solver`` is set up on ``K``. With ``A = K + αI``: ``b = 1ᵀA⁻¹y / 1ᵀA⁻¹1`` and
    ``c = A⁻¹(y − b 1)``, one solve with ``t + 1`` right-hand sides.

    With sample weights ``w`` (``sqrt_weight = √w``) the model minimises
    ``Σ_i w_i (y_i − f(x_i))² + α cᵀKc``; its system is ``(K + αW⁻¹) c + b 1 = y``, ``1ᵀc = 0``,
    solved as ``(S K S + αI) c̃ + b s = S y``, ``sᵀ c̃ = 0``, ``c = S c̃`` (``S = diag(s)``,
    ``s = √w``), which a zero weight leaves well posed (``c_i = 0`` there). ``solver`` is then
    set up on ``S K S`` (:func:`weigh_kernel`).

    ``y`` and ``sqrt_weight`` must be finite with one row per row of the solver's matrix,
    ``sqrt_weight`` non-negative and not all zero, ``alpha`` a finite number ≥ 0.
    """
    check_namespace(xp)
    n = _check_solver(solver)
    check_number(alpha, name="alpha")
    y = _check_rows(y, n, name="y", ndim=(1, 2), xp=xp)
    if sqrt_weight is not None:
        sqrt_weight = _check_rows(sqrt_weight, n, name="sqrt_weight", ndim=(1,), xp=xp)
        _check_nonnegative(sqrt_weight, name="sqrt_weight", xp=xp)
    # S y and the intercept's sums sᵀu, sᵀv are of the order of s²: on weights of 1e300 they
    # overflowed and the intercept was inf/inf = NaN. They are taken on s / 2^e (exact), which
    # leaves the intercept unchanged and divides c = S c̃ by 4^e; c is multiplied back.
    scale = 1.0 if sqrt_weight is None else power_of_two_scale(sqrt_weight, xp=xp)
    if scale != 1.0:
        sqrt_weight = sqrt_weight / scale
    coef, intercept = _solve_dual(
        solver,
        y,
        float(alpha),
        fit_intercept=check_bool(fit_intercept, name="fit_intercept"),
        xp=xp,
        sqrt_weight=sqrt_weight,
    )
    if scale != 1.0:
        top = float(xp.max(xp.abs(coef))) if math.prod(coef.shape) else 0.0
        if not top * scale * scale <= float(xp.finfo(coef.dtype).max):  # no overflow warning
            msg = (
                f"sqrt_weight is too large for this solver: with max sqrt_weight = {scale:.3g} "
                "(to a power of two) the dual coefficients c = S c̃ exceed the floating range. "
                "The solver must be set up on S K S (weigh_kernel); weights w / t with alpha / t "
                "give the same model, so divide the weights by their maximum first"
            )
            raise ValueError(msg)
        coef = coef * scale * scale
    return RidgeCoefficients(coef, intercept)


def _solve_dual(
    solver: RidgeSolver,
    y: Array,  # shape: (n,) or (n, t)
    alpha: float,
    /,
    *,
    fit_intercept: bool,
    xp: ModuleType,
    sqrt_weight: Array | None = None,  # shape: (n,), √w for sample weights w
) -> RidgeCoefficients:
    """:func:`solve_dual` on trusted inputs."""
    Y = y[:, None] if y.ndim == 1 else y
    s = None if sqrt_weight is None else sqrt_weight[:, None]
    if fit_intercept:
        # y − ȳ gives the same dual coefficients and the intercept less ȳ: an offset of y
        # cancels before the solve instead of swamping its rounding (float32 y + 1e5 was 1e-2
        # of the spread from the float64 fit; now the rounding of the output).
        shift = xp.mean(Y, axis=0)
        Y = Y - shift
    if s is not None:
        Y = s * Y
    if fit_intercept:
        ones = xp.ones((Y.shape[0], 1), dtype=Y.dtype, device=device_of(Y)) if s is None else s
        sol = solver.solve(xp.concat([Y, ones], axis=1), alpha)
        u, v = sol[:, :-1], sol[:, -1]
        intercept = (xp.sum(u, axis=0) if s is None else s[:, 0] @ u) / xp.sum(ones[:, 0] * v)
        dual = u - v[:, None] * intercept[None, :]
        intercept = intercept + shift
    else:
        dual = solver.solve(Y, alpha)
        intercept = xp.zeros(Y.shape[1], dtype=Y.dtype, device=device_of(Y))
    if s is not None:
        dual = s * dual
    if y.ndim == 1:
        return RidgeCoefficients(dual[:, 0], intercept[0])
    return RidgeCoefficients(dual, intercept)


class PrimalProblem(NamedTuple):
    """The sufficient statistics of ridge regression on features ``Z``, centred when fitting a
    bias: everything :func:`solve_primal` needs, without ``Z`` itself."""

    gram: Array  # shape: (k, k), Z_cᵀ Z_c
    rhs: Array  # shape: (k,) or (k, t), Z_cᵀ y_c
    feature_mean: Array  # shape: (k,), zeros without an intercept
    target_mean: Array  # shape: () or (t,), zeros without an intercept


def primal_problem(
    Z: Array,  # shape: (n, k)
    y: Array,  # shape: (n,) or (n, t)
    /,
    *,
    fit_intercept: bool,
    xp: ModuleType,
    sample_weight: Array | None = None,  # shape: (n,)
) -> PrimalProblem:
    """The statistics of :class:`PrimalProblem` from the features: one ``O(n k²)`` GEMM.

    With sample weights ``w`` the loss is ``Σ_i w_i (y_i − z_iᵀw − b)²``: the means are
    weighted means and the statistics ``Z_cᵀ W Z_c``, ``Z_cᵀ W y_c`` (scikit-learn's ``Ridge``).

    In-memory ``Z``, ``y`` and ``sample_weight`` must be finite with the same number of rows, the
    weights non-negative and not all zero (a Dask ``Z`` is checked in its pass over the rows).
    """
    check_namespace(xp)

    def check(Z: Array, y: Array, sample_weight: Array | None) -> tuple:
        Z = check_array(Z, name="Z", ndim=2, xp=xp)
        y = _check_rows(y, Z.shape[0], name="y", ndim=(1, 2), xp=xp)
        if sample_weight is not None:
            sample_weight = _check_rows(
                sample_weight, Z.shape[0], name="sample_weight", ndim=(1,), xp=xp
            )
            # all-zero weights leave no data: the weighted means were 0 / 0
            _check_nonnegative(sample_weight, name="sample_weight", xp=xp)
        return Z, y, sample_weight

    run = executor_for(Z, xp=xp)
    if sample_weight is not None:  # the estimators take none with a Dask X either
        run.require_in_memory("primal_problem takes no sample_weight with a Dask Z")
    Z, y, sample_weight = run.checked(check, Z, y, sample_weight)
    with _overflow_reported():
        problem = _primal_problem(
            Z,
            y,
            fit_intercept=check_bool(fit_intercept, name="fit_intercept"),
            xp=xp,
            sample_weight=sample_weight,
        )
    return _finite_result(problem, "Zᵀ Z", "Z and sample_weight", xp=xp)


def _primal_problem(
    Z: Array,  # shape: (n, k)
    y: Array,  # shape: (n,) or (n, t)
    /,
    *,
    fit_intercept: bool,
    xp: ModuleType,
    sample_weight: Array | None = None,  # shape: (n,)
) -> PrimalProblem:
    """:func:`primal_problem` on trusted inputs: one pass over the rows (two with an intercept:
    the first block's means, then the sums).

    The sums are taken about a shift ``s``, the first row block's (weighted) means, so that
    centring by ``Z_cᵀ W Z_c = Σ w (z − s)(z − s)ᵀ − Σw (z̄ − s)(z̄ − s)ᵀ`` cancels no leading
    digits; with one block (in memory) ``s`` is the mean itself and the sums are the centred
    statistics.
    """
    run = executor_for(Z, xp=xp, row_work=2 * Z.shape[1])  # the shifted, weighted rows
    arrays = (Z, y) if sample_weight is None else (Z, y, sample_weight)
    shift = run.first(_means, *arrays) if fit_intercept else None
    corrected = shift is not None and run.n_blocks(Z) > 1  # one block: s is the mean itself

    def statistics(Z_rows: Array, y_rows: Array, w_rows: Array | None = None) -> tuple:
        if shift is not None:
            Z_rows, y_rows = Z_rows - shift[0], y_rows - shift[1]
        Zt = xp.matrix_transpose(Z_rows)
        if w_rows is not None:
            Zt = Zt * w_rows[None, :]
        products = Zt @ Z_rows, Zt @ y_rows
        if not corrected:
            return products
        if w_rows is None:
            return *products, xp.sum(Z_rows, axis=0), xp.sum(y_rows, axis=0)
        return *products, w_rows @ Z_rows, w_rows @ y_rows, xp.sum(w_rows)

    sums = run.sum(statistics, *arrays)
    gram, rhs = sums[:2]
    device = device_of(gram)
    if shift is None:
        zero_z = xp.zeros(gram.shape[0], dtype=gram.dtype, device=device)
        return PrimalProblem(
            gram, rhs, zero_z, xp.zeros(rhs.shape[1:], dtype=gram.dtype, device=device)
        )
    # xp.asarray: NumPy turns 0-d reductions into scalars, which carry no namespace.
    if not corrected:
        return PrimalProblem(gram, rhs, shift[0], xp.asarray(shift[1], device=device))
    total = sums[4] if sample_weight is not None else float(Z.shape[0])
    dz, dy = sums[2] / total, sums[3] / total  # z̄ − s, ȳ − s_y
    gram = gram - total * (dz[:, None] * dz[None, :])
    rhs = rhs - total * (dz[:, None] * dy[None, :] if rhs.ndim == 2 else dz * dy)
    return PrimalProblem(gram, rhs, shift[0] + dz, xp.asarray(shift[1] + dy, device=device))


def _means(Z: Array, y: Array, w: Array | None = None) -> tuple[Array, Array]:
    """The (weighted) column means of ``Z`` and ``y``."""
    xp = get_namespace(Z)
    if w is None:
        return xp.mean(Z, axis=0), xp.mean(y, axis=0)
    w = w / xp.sum(w)
    return w @ Z, w @ y


def solve_primal(
    problem: PrimalProblem, solver: RidgeSolver, alpha: float, /, *, xp: ModuleType
) -> RidgeCoefficients:
    """Primal weights ``w = (Z_cᵀZ_c + αI)⁻¹ Z_cᵀ y_c`` and ``b = ȳ − z̄ᵀ w``.

    ``solver`` is set up on ``problem.gram``.

    ``problem`` must be a :class:`PrimalProblem` of finite arrays of consistent shapes,
    ``solver`` come from :func:`make_solver` on a ``k × k`` matrix (``k`` features) and
    ``alpha`` be a finite number ≥ 0; anything else is refused with a ValueError or TypeError
    naming the argument.
    """
    check_namespace(xp)
    k = _check_primal(problem, xp=xp)
    _check_solver_order(solver, k)
    check_number(alpha, name="alpha")
    return _solve_primal(problem, solver, float(alpha), xp=xp)


def _check_primal(problem: Any, *, xp: ModuleType) -> int:
    """The number of features ``k`` of ``problem`` if it is a :class:`PrimalProblem` of finite
    arrays of consistent shapes, else an error naming ``problem``."""
    if not isinstance(problem, PrimalProblem):
        msg = (
            "problem must be a PrimalProblem (from primal_problem), received "
            f"{type(problem).__name__}"
        )
        raise TypeError(msg)
    k = _check_square(problem.gram, name="problem.gram", xp=xp).shape[0]
    rhs = _check_rows(problem.rhs, k, name="problem.rhs", ndim=(1, 2), xp=xp)
    _check_rows(problem.feature_mean, k, name="problem.feature_mean", ndim=(1,), xp=xp)
    target_mean = check_array(problem.target_mean, name="problem.target_mean", ndim=(0, 1), xp=xp)
    if tuple(target_mean.shape) != tuple(rhs.shape[1:]):
        msg = (
            f"problem.target_mean must have shape {tuple(rhs.shape[1:])} like one row of "
            f"problem.rhs, received {tuple(target_mean.shape)}"
        )
        raise ValueError(msg)
    return k


def _check_solver_order(solver: Any, k: int, *, eigh_only: bool = False) -> None:
    """Refuse a ``solver`` that is not from :func:`make_solver` or not set up on a k × k matrix."""
    order = _check_solver(solver, eigh_only=eigh_only)
    if order != k:
        msg = (
            f"solver must be set up on the problem's {k} × {k} Gram matrix, received one of "
            f"order {order}"
        )
        raise ValueError(msg)


def _solve_primal(
    problem: PrimalProblem, solver: RidgeSolver, alpha: float, /, *, xp: ModuleType
) -> RidgeCoefficients:
    """:func:`solve_primal` on trusted inputs."""
    coef = solver.solve(problem.rhs, alpha)
    intercept = problem.target_mean - problem.feature_mean @ coef
    return RidgeCoefficients(coef, xp.asarray(intercept, device=device_of(coef)))


def primal_loo_errors(
    Z: Array,  # shape: (n, k), the features the problem was built from
    y: Array,  # shape: (n,) or (n, t)
    problem: PrimalProblem,
    solver: EighSolver,  # set up on problem.gram
    alphas: Sequence[float],
    /,
    *,
    fit_intercept: bool,
    xp: ModuleType,
    sample_weight: Array | None = None,
) -> list[float]:
    """Exact leave-one-out mean squared errors of the primal ridge, one per ``α`` of ``alphas``.

    The fitted values are ``H y`` with ``H = 11ᵀ/n + Z_c (Z_cᵀZ_c + αI)⁻¹ Z_cᵀ`` (without the
    first term when there is no intercept), and the leave-one-out residual of row ``i`` is
    ``(y_i − ŷ_i) / (1 − H_ii)`` (as scikit-learn's ``RidgeCV``). With ``Z_cᵀZ_c = V Λ Vᵀ`` and
    ``P = Z_c V`` both are ``O(n k)`` per ``α`` after ``O(n k²)`` once, row by row given
    ``Pᵀ Y = Vᵀ Z_cᵀ y_c`` (the problem's right-hand side): a Dask ``Z`` is one graph over its
    row chunks. Sample weights ``w`` scale the rows by ``√w`` (the intercept's term becomes
    ``√w √wᵀ / Σw``) and weigh the mean; rows of weight 0 add nothing.

    ``problem`` must be a :class:`PrimalProblem` of ``k`` features, ``solver`` an ``"eigh"``
    solver from :func:`make_solver` on its ``k × k`` Gram matrix, ``alphas`` a non-empty
    sequence of finite numbers > 0; in-memory ``Z`` (``k`` columns), ``y`` (shaped like the
    problem's targets) and ``sample_weight`` (≥ 0, not all zero) finite with the same number of
    rows (a Dask ``Z`` is checked in its pass over the rows). Anything else is refused with a
    ValueError or TypeError naming the argument.
    """
    check_namespace(xp)
    k = _check_primal(problem, xp=xp)
    _check_solver_order(solver, k, eigh_only=True)
    alphas = check_grid(alphas, name="alphas")

    def check(Z: Array, y: Array, sample_weight: Array | None) -> tuple:
        Z = check_array(Z, name="Z", ndim=2, xp=xp)
        if Z.shape[1] != k:
            msg = f"Z must have the problem's {k} feature columns, received shape {tuple(Z.shape)}"
            raise ValueError(msg)
        y = _check_rows(y, Z.shape[0], name="y", ndim=(1, 2), xp=xp)
        if tuple(y.shape[1:]) != tuple(problem.rhs.shape[1:]):
            msg = (
                f"y must have {problem.rhs.ndim} dimension(s) like the problem's targets, "
                f"received shape {tuple(y.shape)}"
            )
            raise ValueError(msg)
        if sample_weight is not None:
            sample_weight = _check_rows(
                sample_weight, Z.shape[0], name="sample_weight", ndim=(1,), xp=xp
            )
            _check_nonnegative(sample_weight, name="sample_weight", xp=xp)
        return Z, y, sample_weight

    run = executor_for(Z, xp=xp)
    if sample_weight is not None:
        run.require_in_memory("primal_loo_errors takes no sample_weight with a Dask Z")
    Z, y, sample_weight = run.checked(check, Z, y, sample_weight)
    with _overflow_reported():
        errors = _primal_loo_errors(
            Z,
            y,
            problem,
            solver,
            alphas,
            fit_intercept=check_bool(fit_intercept, name="fit_intercept"),
            xp=xp,
            sample_weight=sample_weight,
        )
    return _finite_result(
        errors, "the leave-one-out mean squared error", "Z, y and sample_weight", xp=xp
    )


def _primal_loo_errors(
    Z: Array,  # shape: (n, k), the features the problem was built from
    y: Array,  # shape: (n,) or (n, t)
    problem: PrimalProblem,
    solver: EighSolver,  # set up on problem.gram
    alphas: Sequence[float],
    /,
    *,
    fit_intercept: bool,
    xp: ModuleType,
    sample_weight: Array | None = None,
    per_row: bool = False,
) -> Any:
    """:func:`primal_loo_errors` on trusted inputs; with ``per_row``, instead, the rows'
    squared leave-one-out errors ``|r_i|² / t`` (unweighted; shape ``(n, len(alphas))``) of
    in-memory arrays, whose (weighted) means those are."""
    n = Z.shape[0]
    total = float(n) if sample_weight is None else float(xp.sum(sample_weight))
    rhs = problem.rhs[:, None] if problem.rhs.ndim == 1 else problem.rhs
    q = xp.matrix_transpose(solver.U) @ rhs  # = Pᵀ Y, shape: (k, t)
    lam = xp.where(solver.eigenvalues > 0, solver.eigenvalues, 0.0)

    def row_errors(Z_rows: Array, y_rows: Array, w_rows: Array | None = None) -> list[Array]:
        """Per α, these rows' weighted squared leave-one-out residuals ``w_i |r_i|²``."""
        Zc = Z_rows - problem.feature_mean
        Y = y_rows - problem.target_mean
        Y = Y[:, None] if Y.ndim == 1 else Y
        base = 1.0 / n if fit_intercept else 0.0
        if w_rows is not None:
            root = xp.sqrt(w_rows)[:, None]
            Zc, Y = root * Zc, root * Y
            base = w_rows / total if fit_intercept else 0.0
        P = Zc @ solver.U  # shape: (rows, k)
        P2 = P * P
        errors = []
        for alpha in alphas:
            inverse = 1.0 / (lam + alpha)
            leverage = base + P2 @ inverse
            keep = xp.where(1.0 - leverage > 1e-12, 1.0 - leverage, 1e-12)
            residual = (Y - P @ (inverse[:, None] * q)) / keep[:, None]
            errors.append(xp.sum(residual * residual, axis=1))
        return errors

    t = q.shape[1]
    if per_row:  # the width search's paired comparison, on its (sub)sample's rows
        errors = xp.stack(row_errors(Z, y, sample_weight), axis=1) / t
        if sample_weight is None:
            return errors
        # w_i |r_i|² / w_i; a row of weight 0 has residual 0 and counts 0 in every mean
        positive = sample_weight > 0
        divisor = xp.where(positive, sample_weight, 1.0)[:, None]
        return errors / divisor

    def sums(*rows: Array) -> tuple[Array]:
        return (xp.stack([xp.sum(e) for e in row_errors(*rows)]),)

    arrays = (Z, y) if sample_weight is None else (Z, y, sample_weight)
    run = executor_for(Z, xp=xp, row_work=3 * Z.shape[1] + 2 * q.shape[1])  # Zc, P, P², residuals
    (totals,) = run.sum(sums, *arrays)
    return [float(v) / (total * t) for v in totals]

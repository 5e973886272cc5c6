"""Prato & Zanni's three regularisations of exact kernel ridge regression as method objects, in
one registry (:data:`KERNEL_RIDGE_METHODS`) through which :class:`~lrkl.KernelRidge`,
:class:`~lrkl.KernelRidgeCV` and :func:`regularization_path` each dispatch once.

A method says what its intercept is, sets its problem up on the training rows (one
factorisation, or CGLS's operator), solves it at one value of its regulariser (``α``, or CG's
iteration count ``t``), and computes its whole path. The solvers themselves are in
:mod:`lrkl.kernel_ridge._regularization`. (Not to be confused with :data:`KERNEL_RIDGE_SOLVERS`,
the two factorisations ``cholesky``/``eigh`` of ``KernelRidge(solver=…)``.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, NamedTuple

from lrkl._executor import executor_for
from lrkl._model_selection import check_grid
from lrkl._typing import Array
from lrkl._validation import check_dense_kernel_size
from lrkl.kernel_ridge._base import predict_dual
from lrkl.kernel_ridge._regularization import (
    kernel_operator,
    rls_path,
    rls_problem,
    solve_cgls,
    solve_rls,
    solve_tikhonov,
    tikhonov_path,
    tikhonov_problem,
    tikhonov_problem_from_factor,
)
from lrkl.kernel_ridge._solvers import EighSolver, RidgeCoefficients
from lrkl.kernels import DEFAULT_MEMORY_BUDGET, Kernel, precompute_columns

__all__ = [
    "KERNEL_RIDGE_METHODS",
    "PAPER_LAMBDAS",
    "MethodSettings",
    "RidgeMethod",
    "path_mse",
    "regularization_path",
]


#: The paper's grid: 100 values of λ geometric in [1e-10, 1e5], largest first (``α = nλ``).
PAPER_LAMBDAS = tuple(1e5 * 1e-15 ** (i / 99) for i in range(100))

_ALTERNATIVE = "LowRankRidge, SLKLRegressor, or KernelRidge(method='cg', columns='on_the_fly')"


class MethodSettings(NamedTuple):
    """What a set-up needs beyond the rows and the kernel."""

    solver: str = "eigh"  # RLS: "cholesky" (one α) or "eigh" (a path)
    columns: str = "auto"  # CG: K stored or its blocks computed in every product
    memory_budget: int = DEFAULT_MEMORY_BUDGET  # CG: bytes columns="auto" allows for K
    owner: str = "regularization_path"  # the name in the messages


class RidgeMethod:
    """One regularisation of ``f(x) = Σ_i c_i k(x_i, x) + b``: its intercept model, the set-up
    on the training rows, the solve at one value of its regulariser and the whole path."""

    name: ClassVar[str]
    #: The regulariser a path runs over: ``"alpha"`` (a penalty) or ``"n_iter"`` (iterations).
    regulariser: ClassVar[str] = "alpha"
    #: Whether one set-up gives the path at every value and its exact leave-one-out errors.
    whole_path_at_once: ClassVar[bool] = True
    #: Whether the method takes a lazy (Dask) X (its products run over the row chunks).
    takes_lazy: ClassVar[bool] = False
    #: The intercept model, for the messages.
    intercept_model: ClassVar[str]

    #: What the model is at the largest value of a search grid (the warning's words).
    largest_value_is: ClassVar[str] = "the strongest regularisation"

    def search_grid(
        self, n: int, *, alphas: Sequence[float] | None, max_iter: int
    ) -> tuple[tuple[float, ...], str, str]:
        """The grid a search runs over on ``n`` rows, the regulariser's name (the fitted
        attributes ``{name}_`` and ``{name}s_``) and the parameter that widens the grid:
        ``alphas``, or the paper's ``α = nλ`` for 100 values of ``λ`` in ``[1e-10, 1e5]``."""
        if alphas is not None:
            return check_grid(alphas, name="alphas"), "alpha", "alphas"
        return tuple(n * lam for lam in PAPER_LAMBDAS), "alpha", "alphas"

    def value(self, alpha: float, max_iter: int, n: int) -> float:
        """The regulariser's value of one fit with these parameters on ``n`` rows."""
        return alpha

    def fitted(self, value: float) -> dict[str, Any]:
        """Fitted attributes that say the value of one fit, beyond the coefficients."""
        return {}

    def intercept_form(
        self, fit_intercept: bool, penalize_intercept: bool | None, *, owner: str
    ) -> Any:
        """The set-up's intercept argument for the estimator's two switches (here: whether
        ``K̃`` has its column of ones); a setting the method cannot give is refused with what
        it gives instead."""
        _require_intercept_to_penalize(fit_intercept, penalize_intercept, owner=owner)
        if fit_intercept and penalize_intercept is False:
            msg = (
                f"{owner}(method={self.name!r}) {self.intercept_model}: penalize_intercept "
                "must be True or None with it, received False; an unpenalised intercept is "
                "method='rls' (Prato & Zanni's system (7))"
            )
            raise ValueError(msg)
        return bool(fit_intercept)

    def _set_up(
        self,
        X: Array,
        kernel: Kernel,
        form: Any,
        settings: MethodSettings,
        *,
        xp: Any,
        root: Array | None = None,
    ) -> Any:
        """The problem on the validated rows ``X`` (weighted by ``root = √w`` when given):
        one factorisation, or CGLS's operator."""
        raise NotImplementedError

    def _solve(
        self, problem: Any, y: Array, value: float, form: Any, *, root: Array | None, xp: Any
    ) -> RidgeCoefficients:
        """The fit at ``value`` (``α``, or CG's iteration count) for ``y`` (one or more
        targets)."""
        raise NotImplementedError

    def _path(self, problem: Any, y: Array, grid: Sequence[float], form: Any, *, loo: bool) -> Any:
        """The fits at every value of ``grid`` for a 1-D ``y``, with the exact leave-one-out
        errors when ``loo`` (RLS, Tikhonov)."""
        raise NotImplementedError

    def _fit_path(
        self,
        X: Array,
        y: Array,
        kernel: Kernel,
        grid: Sequence[float],
        form: Any,
        settings: MethodSettings,
        *,
        loo: bool,
        xp: Any,
    ) -> Any:
        """:meth:`_set_up` on the rows, then :meth:`_path` over ``grid``."""
        problem = self._set_up(X, kernel, form, settings, xp=xp)
        return self._path(problem, y, grid, form, loo=loo)


class RLS(RidgeMethod):
    """Regularised least squares on ``K``: systems (7) (intercept unpenalised), (8) (penalised)
    or no intercept; a Cholesky factorisation for one ``α``, an eigendecomposition for a path."""

    name = "rls"
    intercept_model = "solves system (7) or (8)"

    def intercept_form(
        self, fit_intercept: bool, penalize_intercept: bool | None, *, owner: str
    ) -> str | None:
        """``"unpenalized"`` (system (7)), ``"penalized"`` (system (8)) or None."""
        _require_intercept_to_penalize(fit_intercept, penalize_intercept, owner=owner)
        if not fit_intercept:
            return None
        return "penalized" if penalize_intercept else "unpenalized"

    def _set_up(self, X, kernel, form, settings, *, xp, root=None):
        # peaks measured at n = 3000 and 4000: K and its factor (Cholesky); K, Q, Q∘Q and
        # syevd's workspace (eigh), and K + 11ᵀ (system (8)); S K S with weights
        count = 2 if settings.solver == "cholesky" else 4 + (form == "penalized")
        count += root is not None
        check_dense_kernel_size(
            X.shape[0], X, owner=settings.owner, alternative=_ALTERNATIVE, count=count
        )
        K = kernel._evaluate(X, X, xp=xp)
        problem = rls_problem(K, form, solver=settings.solver, sqrt_weight=root, xp=xp)
        if isinstance(problem.solver, EighSolver):
            _require_psd(problem.solver, kernel, xp=xp)
        return problem

    def _solve(self, problem, y, value, form, *, root, xp):
        return solve_rls(problem, y, value)

    def _path(self, problem, y, grid, form, *, loo):
        return rls_path(problem, y, grid, loo=loo)


class Tikhonov(RidgeMethod):
    """Tikhonov on ``K̃ c̃ = y``, ``K̃ = [K 1]``: the intercept is a coefficient, penalised; the
    SVD of ``K̃`` from the kernel's feature map when it has fewer columns than rows."""

    name = "tikhonov"
    intercept_model = "penalises the intercept (a coefficient of c̃ = (c, b))"

    def _set_up(self, X, kernel, form, settings, *, xp, root=None):
        factor = kernel._explicit_features(X, X.shape[0] - 1, xp=xp)
        if factor is not None:  # O(n r²), no n × n matrix
            return tikhonov_problem_from_factor(factor, bias=form, sqrt_weight=root, xp=xp)
        # K̃ = S [K 1] (destroyed by the SVD), U, Vᵀ and gesdd's workspace of 3 n², measured at
        # n = 3000 and 4000; K alone is not destroyed, and LAPACK takes a copy of it
        count = 6 if form or root is not None else 7
        check_dense_kernel_size(
            X.shape[0], X, owner=settings.owner, alternative=_ALTERNATIVE, count=count
        )
        # K itself is not kept: only K̃ lives on into the SVD
        return tikhonov_problem(kernel._evaluate(X, X, xp=xp), bias=form, sqrt_weight=root, xp=xp)

    def _solve(self, problem, y, value, form, *, root, xp):
        return solve_tikhonov(problem, y, value)

    def _path(self, problem, y, grid, form, *, loo):
        return tikhonov_path(problem, y, grid, loo=loo)


class CG(RidgeMethod):
    """CGLS on ``K̃ c̃ = y`` from ``c̃ = 0``, stopped after ``t`` iterations (the regulariser):
    the intercept is a coefficient, regularised by the early stop as ``c`` is."""

    name = "cg"
    regulariser = "n_iter"
    whole_path_at_once = False  # the path to t costs t iterations: run to the chosen t only
    takes_lazy = True
    intercept_model = "regularises the intercept as a coefficient of c̃ = (c, b)"
    largest_value_is = "the last iterate run"

    def search_grid(self, n, *, alphas, max_iter):
        return tuple(range(1, self.value(None, max_iter, n) + 1)), "n_iter", "max_iter"

    def value(self, alpha, max_iter, n):
        # CGLS on the n + 1 unknowns of c̃, its directions reorthogonalised, reaches the
        # least-squares solution within n + 1 iterations; later ones repeat it (max_iter = 10⁹
        # allocated a grid of 10⁹ values and 10⁹ iterates)
        return min(max_iter, n + 1)

    def fitted(self, value):
        return {"n_iter_": int(value)}

    def _set_up(self, X, kernel, form, settings, *, xp, root=None):
        """CGLS's products with ``K``: from ``K`` stored (one evaluation, then two GEMVs per
        iteration) or from its blocks computed again in every product (memory of one block)."""
        fits = precompute_columns(settings.columns, X.shape[0] ** 2, X, settings.memory_budget)
        store = executor_for(X, xp=xp).may_store(fits)
        return kernel_operator(X, kernel, store=store, xp=xp)

    def _solve(self, problem, y, value, form, *, root, xp):
        columns = [y] if y.ndim == 1 else [y[:, j] for j in range(y.shape[1])]
        paths = [
            solve_cgls(problem, col, int(value), bias=form, sqrt_weight=root) for col in columns
        ]
        coef = [p.coef[-1, :] for p in paths]
        intercept_values = [p.intercept[-1] for p in paths]
        if y.ndim == 1:
            return RidgeCoefficients(coef[0], intercept_values[0])
        return RidgeCoefficients(xp.stack(coef, axis=1), xp.stack(intercept_values))

    def _path(self, problem, y, grid, form, *, loo):
        return solve_cgls(problem, y, len(grid), bias=form)


def _require_intercept_to_penalize(
    fit_intercept: bool, penalize_intercept: bool | None, *, owner: str
) -> None:
    if penalize_intercept and not fit_intercept:
        msg = (
            f"{owner}: penalize_intercept=True needs fit_intercept=True (there is no intercept "
            "to penalise), received fit_intercept=False"
        )
        raise ValueError(msg)


#: The regularisations of :class:`~lrkl.KernelRidge` by their ``method`` names.
KERNEL_RIDGE_METHODS: dict[str, RidgeMethod] = {m.name: m for m in (RLS(), Tikhonov(), CG())}


def _require_psd(solver: EighSolver, kernel: Kernel, *, xp: Any) -> None:
    """Refuse a kernel matrix with an eigenvalue below ``−√ε · max|λ|``, beyond its rounding
    (:func:`~lrkl._linalg.indefinite_threshold`).

    The Cholesky path detects this from a failing factorisation; the eigendecomposition (every
    α at once, KernelRidgeCV) solves an indefinite system without a word, so the check is made
    on the eigenvalues it has anyway (no extra cost).
    """
    n = solver.eigenvalues.shape[0]
    if n == 0:
        return
    lowest = float(xp.min(solver.eigenvalues))
    if lowest < -solver.indefinite_below:
        msg = (
            f"kernel must be positive semi-definite: the {n} × {n} kernel matrix of the "
            f"training data has the eigenvalue {lowest:.4g}, beyond its rounding "
            f"({solver.indefinite_below:.2g}); received {kernel!r}"
        )
        raise ValueError(msg)


def regularization_path(
    X: Array,
    y: Array,
    kernel: Kernel,
    grid: Sequence[float],
    *,
    method: str,
    bias: str | None,
    columns: str = "auto",
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    loo: bool = False,
    owner: str = "regularization_path",
    xp: Any,
) -> Any:
    """The fits of ``method`` at every value of ``grid`` (``α``, or ``t = 1 … len(grid)`` for
    CG) on the validated training rows ``X``, ``y`` (1-D): ``coef`` (m × n) and ``intercept``
    (m,), and the exact leave-one-out errors ``loo_mse`` (RLS, Tikhonov, with ``loo``).

    ``bias`` is the solvers' intercept: ``"unpenalized"`` (system (7)), ``"penalized"`` (system
    (8); a coefficient of ``c̃`` for Tikhonov and CG, as is ``"unpenalized"`` there) or None."""
    chosen = KERNEL_RIDGE_METHODS[method]
    form = chosen.intercept_form(bias is not None, bias == "penalized" or None, owner=owner)
    settings = MethodSettings("eigh", columns, memory_budget, owner)
    return chosen._fit_path(X, y, kernel, grid, form, settings, loo=loo, xp=xp)


def path_mse(path: Any, kernel: Kernel, X_train: Array, X: Array, y: Array, *, xp: Any) -> Array:
    """Mean squared error on ``(X, y)`` of every fit of a path on ``X_train``: shape (m,),
    predictions in kernel blocks."""

    def block(rows: Array) -> Array:
        return kernel._evaluate(rows, X_train, xp=xp)

    fitted = predict_dual(block, X, xp.matrix_transpose(path.coef), path.intercept, xp=xp)
    residual = fitted - y[:, None]
    return xp.mean(residual * residual, axis=0)

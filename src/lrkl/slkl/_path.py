"""SLKL over a grid of ν: :func:`slkl_path` (warm starts along the grid) and
:class:`SLKLRegressorCV`, which picks ν by cross-validation over that path."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NamedTuple

from sklearn.utils import check_random_state
from sklearn.utils.parallel import Parallel, delayed

from lrkl._backend import device_of, index_array, to_numpy, widened
from lrkl._model_selection import (
    check_grid,
    check_groups,
    choose_from_grid,
    cv_folds,
    fold_rows,
    log_grid,
)
from lrkl._typing import Array
from lrkl._validation import Interval, check_X_y, validate_params
from lrkl.kernel_ridge._base import predict_dual
from lrkl.kernel_ridge._scaling import power_of_two_scale, scale_errors
from lrkl.kernels import DEFAULT_MEMORY_BUDGET, Kernel, check_kernel
from lrkl.slkl._estimators import (
    _SOLVER_CONSTRAINTS,
    NU_RATIO_FLOOR,
    _internal_nu,
    _prepare,
    _rescaled,
    _SLKLModel,
    _solver_options,
)
from lrkl.slkl._problems import nu_max
from lrkl.slkl._solver import SLKLResult, solve_slkl

__all__ = ["SLKLPath", "SLKLRegressorCV", "nu_grid", "slkl_path"]


class SLKLPath(NamedTuple):
    """SLKL solutions along a grid of ν (:func:`slkl_path`), in the order of ``nus``."""

    nus: tuple[float, ...]
    candidates: Array  # shape: (M,), training row numbers of S
    weights: Array  # shape: (len(nus), M)
    objectives: tuple[float, ...]
    n_active: tuple[int, ...]
    n_iter: tuple[int, ...]
    results: tuple[SLKLResult, ...]


@validate_params(
    {
        "X": ["array-like"],
        "y": ["array-like"],
        "nus": ["array-like"],
        **_SOLVER_CONSTRAINTS,
    },
    prefer_skip_nested_validation=True,
)
def slkl_path(
    X: Array,
    y: Array,
    nus: Sequence[float],
    /,
    *,
    kernel: Kernel | None = None,
    n_columns: int | None = None,
    mode: str = "auto",
    solver: str = "active_set",
    selection: str | None = None,
    step: str | None = None,
    stop: str = "kkt",
    tol: float = 1e-3,
    max_iter: int | None = None,
    random_state: Any = None,
    fit_intercept: bool = True,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> SLKLPath:
    """SLKL for each ν of ``nus`` on one candidate set, each solve warm-started from the last.

    The pass over the rows (the Gram matrix, or the stored columns) is made once for the whole
    path. The solves run from the largest ν to the smallest (sparse to dense, so each warm start
    is close), and the results are returned in the order of ``nus``.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
    y : array of shape (n_samples,)
    nus : sequence of float
        Values of ν > 0.
    kernel, n_columns, mode, solver, selection, step, stop, tol, max_iter, random_state
    fit_intercept
    memory_budget
        As for :class:`SLKLRegressor`.

    Returns
    -------
    SLKLPath

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import slkl_path
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-5, 5, (200, 2))
    >>> y = np.sinc(np.linalg.norm(X, axis=1) / np.pi)
    >>> path = slkl_path(X, y, [1.0, 0.1, 0.01], n_columns=50, random_state=0)
    >>> path.n_active[0] <= path.n_active[1] <= path.n_active[2]
    True
    """
    xp, X, y = check_X_y(X, y, owner="slkl_path", min_samples=2)
    nus = check_grid(nus, name="nus")
    kernel = check_kernel(kernel, X)
    # As SLKLRegressor: y divided by a power of two near its largest value, ν by its square
    # (exact), the results back in the units of y (y·1e300 overflowed to inf weights).
    y_scale = power_of_two_scale(y, xp=xp)
    inner = [_internal_nu(nu, y_scale, 0.0, name="nus") for nu in nus]  # no ν_max floor here
    path = _slkl_path(
        X,
        y / y_scale,
        tuple(inner),
        kernel=kernel,
        n_columns=n_columns,
        mode=mode,
        solver=solver,
        selection=selection,
        step=step,
        stop=stop,
        tol=tol,
        max_iter=max_iter,
        random_state=random_state,
        fit_intercept=fit_intercept,
        memory_budget=memory_budget,
        xp=xp,
    )
    square = y_scale * y_scale
    return path._replace(
        nus=nus,
        objectives=tuple(f * square for f in path.objectives),
        results=tuple(_rescaled(result, y_scale) for result in path.results),
    )


def _slkl_path(
    X: Array,
    y: Array,
    nus: tuple[float, ...],
    /,
    *,
    kernel: Kernel,
    n_columns: int | None,
    mode: str,
    solver: str,
    selection: str | None,
    step: str | None,
    stop: str,
    tol: float,
    max_iter: int | None,
    random_state: Any,
    fit_intercept: bool,
    memory_budget: int,
    xp: ModuleType,
) -> SLKLPath:
    """:func:`slkl_path` on validated inputs (what :class:`SLKLRegressorCV` calls per fold)."""
    options = _solver_options(solver, selection, step)
    rng = check_random_state(random_state)
    (problem,), candidates, seed = _prepare(
        X,
        xp.reshape(y, (-1, 1)),
        n_columns,
        kernel,
        mode,
        memory_budget,
        fit_intercept,
        rng,
        owner="slkl_path",
        xp=xp,
    )
    results: dict[int, SLKLResult] = {}
    mu0 = None
    for i in sorted(range(len(nus)), key=lambda i: -nus[i]):
        result = solve_slkl(
            problem,
            nu=nus[i],
            seed=seed,
            mu0=mu0,
            **options,
            stop=stop,
            tol=float(tol),
            max_iter=max_iter,
        )
        results[i] = result
        mu0 = to_numpy(result.weights).astype("float64")
    ordered = tuple(results[i] for i in range(len(nus)))
    return SLKLPath(
        nus=nus,
        candidates=index_array(candidates, xp=xp, device=device_of(X)),
        weights=xp.stack([r.weights for r in ordered]),
        objectives=tuple(r.objective for r in ordered),
        n_active=tuple(len(r.support) for r in ordered),
        n_iter=tuple(r.n_iter for r in ordered),
        results=ordered,
    )


def nu_grid(nu_top: float, n_nus: int, eps: float) -> tuple[float, ...]:
    """``n_nus`` values of ν from ``nu_top`` down to ``eps·nu_top``, logarithmically spaced."""
    return log_grid(nu_top, n_nus, eps)


def _fold_errors(
    X: Array,
    y: Array,
    train: Any,
    test: Any,
    nus: tuple[float, ...],
    seed: int,
    n_columns: int,
    options: dict,
    *,
    xp: ModuleType,
) -> list[float]:
    """Validation MSE of the SLKL path fitted on ``train``, one value per ν."""
    device = device_of(X)
    (X_tr, X_te), (y_tr, y_te) = fold_rows(train, test, X, y, xp=xp)
    M = min(n_columns, X_tr.shape[0])
    path = _slkl_path(X_tr, y_tr, nus, n_columns=M, random_state=seed, **options, xp=xp)
    kernel = options["kernel"]
    errors = []
    for result in path.results:
        rows = xp.take(path.candidates, index_array(result.support, xp=xp, device=device))
        centres = xp.take(X_tr, rows, axis=0)
        pred = predict_dual(
            lambda block, c=centres: kernel._evaluate(block, c, xp=xp),
            X_te,
            result.dual_coef,
            xp.asarray(result.intercept, dtype=X.dtype, device=device),
            xp=xp,
        )
        errors.append(float(to_numpy(xp.mean((pred - y_te) ** 2))))
    return errors


class SLKLRegressorCV(_SLKLModel):
    """SLKL with ν chosen by cross-validation over a warm-started path (:func:`slkl_path`).

    The default grid comes from the data, as ``LassoCV``'s: ``n_nus`` values from
    ``ν_max = max_m (c_mᵀy)²`` — the smallest ν at which every weight is zero, so the model is
    the mean of y — down to ``eps·ν_max``. The kernel width (``"scale"``) and ν_max are taken
    from all the training data; each fold then fits its own path, and the chosen ν is refitted
    on all the data from the pass over the rows already made for ν_max. A choice on either end
    of the grid gets a warning (the bottom only while the validation error still falls there by
    more than 1 %): the best ν may lie outside it. The fit is computed in float64 whatever the
    input's float dtype, and the model kept in the input's (the precision policy in the docs).

    Parameters
    ----------
    nus : sequence of float, default=None
        Grid of ν; ``None`` means the data-scaled grid of ``n_nus`` and ``eps``.
    n_nus : int, default=17
        Number of values of the default grid, at most 1 000: each ν is a solve per fold (1.7 s
        for 1 000 on 40 rows and 3 folds), and consecutive values are then within 6 % of each
        other even at ``eps=1e-24`` (``n_nus=10**6`` ran for hours on 40 rows).
    eps : float, default=1e-8
        Ratio ``ν_min / ν_max`` of the default grid, in ``[1e-24, 1)``: below ``1e-24`` the
        ℓ1 weight √ν is within rounding of the correlations it is compared with, F's
        optimality conditions cannot be resolved in float64 and the solver stalls. ``nus``
        below ``1e-24·ν_max`` are refused likewise.
    cv : int or cross-validation splitter, default=5
        As in scikit-learn (``KFold`` for an int).
    n_jobs : int, default=None
        Folds fitted in parallel (joblib; ``None`` means 1 unless in a ``parallel_backend``).
    kernel, n_columns, mode, solver, selection, step, stop, tol, max_iter, random_state
    fit_intercept
        As for :class:`SLKLRegressor`.
    memory_budget : int, default=2**30
        As for :class:`SLKLRegressor`.

    Attributes
    ----------
    nu_ : float
        The ν with the lowest mean validation MSE.
    nus_ : tuple of float
        The grid, from the largest ν to the smallest.
    nu_max_ : float
        ``max_m (c_mᵀy)²`` on all the training data.
    mse_path_ : tuple of tuple of float
        Validation MSE, one row per ν, one column per fold.

        ``nu_``, ``nus_``, ``nu_max_`` and ``mse_path_`` are in the units of ``y²`` (``inf``
        where that leaves float64, for ``|y|`` beyond about 1e154): the path is computed on
        ``y`` brought to unit scale, so that the choice does not depend on y's scale.
    candidates_, kernel_weights_, support_, centers_, dual_coef_, intercept_, kernel_, objective_
    n_iter_, mode_, n_features_in_
        Of the refit on all the data with ``nu_``, as for :class:`SLKLRegressor`.

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import SLKLRegressorCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-5, 5, (200, 2))
    >>> y = np.sinc(np.linalg.norm(X, axis=1) / np.pi) + 0.3 * rng.standard_normal(200)
    >>> model = SLKLRegressorCV(n_columns=50, cv=3, random_state=0).fit(X, y)
    >>> bool(model.nu_ in model.nus_ and model.nus_[0] == model.nu_max_)
    True
    """

    _parameter_constraints: dict = {
        **_SOLVER_CONSTRAINTS,
        "nus": ["array-like", None],
        "n_nus": [Interval(numbers.Integral, 1, 1_000, closed="both")],
        "eps": [Interval(numbers.Real, NU_RATIO_FLOOR, 1, closed="left")],
        "cv": ["cv_object"],
        "n_jobs": [Interval(numbers.Integral, -(2**31) + 1, 2**31 - 1, closed="both"), None],
    }

    def __init__(
        self,
        nus: Sequence[float] | None = None,
        *,
        n_nus: int = 17,
        eps: float = 1e-8,
        cv: Any = 5,
        n_jobs: int | None = None,
        kernel: Kernel | str | None = None,
        n_columns: int | None = None,
        mode: str = "auto",
        solver: str = "active_set",
        selection: str | None = None,
        step: str | None = None,
        stop: str = "kkt",
        tol: float = 1e-3,
        max_iter: int | None = None,
        random_state: Any = None,
        fit_intercept: bool = True,
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ) -> None:
        self.nus = nus
        self.n_nus = n_nus
        self.eps = eps
        self.cv = cv
        self.n_jobs = n_jobs
        self.kernel = kernel
        self.n_columns = n_columns
        self.mode = mode
        self.solver = solver
        self.selection = selection
        self.step = step
        self.stop = stop
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.fit_intercept = fit_intercept
        self.memory_budget = memory_budget

    def fit(self, X: Array, y: Array, groups: Array | None = None) -> SLKLRegressorCV:
        """Cross-validate ν over the path, then refit on all the data.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Group labels for a group splitter (``GroupKFold``, ...).

        Returns
        -------
        self
        """
        self._validate_params()
        solver = _solver_options(self.solver, self.selection, self.step)
        xp, X, y = check_X_y(X, y, owner=self, min_samples=2)
        groups = check_groups(groups, X.shape[0])
        # In float64, the model kept in X's dtype: the grid reaches ν at which a float32 solve
        # moves with the last bits of the data (up to 9e-3 of the spread at 1e-3·ν_max).
        model_dtype = X.dtype
        X, y = widened(X, y, xp=xp)
        # The path and its validation errors on y of unit scale (an exact power of 2): ν_max
        # and the MSE would overflow at y · 1e200. ν scales with y².
        y_scale = power_of_two_scale(y, xp=xp)
        square = y_scale * y_scale
        y = y / y_scale
        kernel = check_kernel(self.kernel, X)
        rng = check_random_state(self.random_state)
        options = dict(
            kernel=kernel,
            mode=self.mode,
            solver=self.solver,
            selection=self.selection,
            step=self.step,
            stop=self.stop,
            tol=self.tol,
            max_iter=self.max_iter,
            fit_intercept=self.fit_intercept,
            memory_budget=self.memory_budget,
        )
        (problem,), candidates, seed = _prepare(
            X,
            xp.reshape(y, (-1, 1)),
            self.n_columns,
            kernel,
            self.mode,
            self.memory_budget,
            self.fit_intercept,
            rng,
            owner=type(self).__name__,
            xp=xp,
        )
        top = nu_max(problem)
        if self.nus is not None:
            nus = check_grid(self.nus, name="nus")
            internal = tuple(_internal_nu(v, y_scale, top, name="nus") for v in nus)
        else:
            # y constant after centring: ν_max = 0 and every ν gives μ = 0
            internal = nu_grid(top, self.n_nus, self.eps) if top > 0 else (1.0,)
            nus = tuple(v * square for v in internal)
        folds = cv_folds(self.cv, X, y, groups)
        seeds = rng.randint(2**31 - 1, size=len(folds))
        per_fold = Parallel(n_jobs=self.n_jobs)(
            delayed(_fold_errors)(X, y, train, test, internal, int(s), problem.M, options, xp=xp)
            for (train, test), s in zip(folds, seeds, strict=True)
        )
        finite = all(math.isfinite(v) and v > 0 for v in nus)
        best, mse_path = choose_from_grid(
            type(self).__name__,
            "nu",
            nus if finite else internal,  # the user's units where float64 holds them
            per_fold,
            top="every weight zero: the model is the mean of y",
            advice="nus" if self.nus is not None else "eps or n_nus",
        )
        j = (nus if finite else internal).index(best)
        self.nu_, self.nus_, self.nu_max_ = nus[j], nus, top * square
        self.mse_path_ = scale_errors(mse_path, y_scale)
        result = solve_slkl(
            problem,
            nu=internal[j],
            seed=seed,
            **solver,
            stop=self.stop,
            tol=float(self.tol),
            max_iter=self.max_iter,
        )
        self._store(_rescaled(result, y_scale), X, candidates, kernel, xp=xp)
        self._keep_model_in(model_dtype, xp=xp)
        return self

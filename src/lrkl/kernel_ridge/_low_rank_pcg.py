"""The estimators' side of the Nyström solve by preconditioned CG (:mod:`lrkl.kernel_ridge._pcg`):
choosing it (``solver``), its memory, its fit at one α and its α path on held-out rows, shared by
:class:`~lrkl.kernel_ridge.LowRankRidge`, :class:`~lrkl.kernel_ridge.LowRankRidgeCV` and their
classifiers through :class:`~lrkl.kernel_ridge._low_rank_model._LowRankRidgeModel`."""

from __future__ import annotations

import functools
import math
import warnings
from collections import Counter
from typing import Any, NamedTuple

from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.utils import check_random_state

from lrkl._backend import (
    device_of,
    from_host,
    get_namespace,
    positive_range,
    to_numpy,
    widest_float,
)
from lrkl._executor import executor_for
from lrkl._model_selection import check_grid, fold_mask, folds_by_count, require_fold_weights
from lrkl._typing import Array
from lrkl.kernel_ridge._budget import DEFAULT_CENTRES, memory_budget_of
from lrkl.kernel_ridge._pcg import (
    NystromSystem,
    PCGSolution,
    factor_bytes,
    preconditioner_rows,
)
from lrkl.kernel_ridge._scaling import require_representable
from lrkl.kernels import Kernel, check_kernels
from lrkl.lowrank._features import has_centres, per_kernel_ranks

#: The values of the family's ``solver``: the features in memory and a factorisation of their
#: ridge problem, Nyström by preconditioned CG (:mod:`lrkl.kernel_ridge._pcg`), or the first
#: where the features fit the memory budget and the second where they do not and it applies.
SOLVERS = ("auto", "features", "pcg")

#: With ``solver="pcg"`` and ``cv=None``, the share of the rows ``LowRankRidgeCV`` validates on.
PCG_HOLDOUT = 0.2

#: With ``solver="pcg"``, the relative residual to which the α path's validation fits are solved
#: (``pcg_tol`` where larger): validation errors need no more, and the small α of the path take
#: twice the iterations at 1e-7 (the fit at the chosen α is then solved to ``pcg_tol``, from
#: there). A path fit stopped by ``pcg_max_iter`` is validated as it stands (no warning: early
#: stopped CG is itself a regularised fit), and the final fit warns if it does not converge.
PCG_PATH_TOL = 1e-4

#: With ``solver="pcg"``, the largest ratio of two positive sample weights (class weights
#: included). CG's residual is dominated by the heavy rows, and beyond it met ``pcg_tol`` with
#: the light rows not yet fitted. On 400 and 20 000 rows (M = 100, 200; one row, 20 or 200
#: rows weighted up), with the preconditioner estimated with the weights
#: (:func:`preconditioner_sample`), the predictions stayed within 3.2e-5 of the in-memory
#: solve's spread at 1e7 and 3.4e-4 at 1e8, without a warning; at 1e10 2.1e-2, at 1e14 up to
#: 580 times it (with the unweighted preconditioner: 0.6 at 1e10 on 400 rows).
PCG_MAX_WEIGHT_SPAN = 1e8

#: With ``solver="pcg"``, the default α grid: ``top · 10^e`` for these exponents, ``top`` the
#: trace ``Σ w_i k(x_i, x_i)``, which bounds the largest eigenvalue of the features' weighted
#: Gram (in the units of the leave-one-out grid's ``λ_max``: the α the leave-one-out path chose
#: on the docs' regression panel lay between 6e-6 and 0.08 of its ``λ_max``, itself 0.04–0.2 of
#: this trace).
PCG_GRID_EXPONENTS = (-2.0, -3.25, -4.5, -5.75, -7.0)


class _PCGPath(NamedTuple):
    """The α path of the pcg solver (:meth:`_LowRankRidgeModel._pcg_path`)."""

    system: NystromSystem
    alphas: tuple[float, ...]  # as given (or in the units of the weights)
    internal: tuple[float, ...]  # on the unit-scale weights
    per_fold: list[list[float]]  # validation MSE, one list per fold, one value per α
    solutions: list[PCGSolution]  # the first fold's, per α
    tol: float  # the relative residual the path was solved to: its errors' resolution


class _PCGFit:
    """The pcg solver's methods of
    :class:`~lrkl.kernel_ridge._low_rank_model._LowRankRidgeModel`."""

    def _pcg_refusal(self) -> str | None:
        """Why pcg does not apply to this estimator's parameters (None where it does)."""
        n_kernels = 1 if self.kernels is None else len(self.kernels)
        if not has_centres(self.method):
            return f"method='nystrom' (received method={self.method!r})"
        if n_kernels != 1:
            return f"one kernel (received {n_kernels})"
        if self._centers() != "uniform":
            return f"centers='uniform' (received centers={self._centers()!r})"
        if getattr(self, "alpha", 1.0) == 0:
            return "alpha > 0 (received alpha=0)"
        return None

    def _require_pcg_weights(self, sample_weight: Array | None, *, xp: Any) -> None:
        """A ValueError naming sample_weight where its positive values span more than
        :data:`PCG_MAX_WEIGHT_SPAN`."""
        if sample_weight is None:
            return
        low, top = positive_range(sample_weight, xp=xp)
        if top > PCG_MAX_WEIGHT_SPAN * low:
            msg = (
                f"{type(self).__name__}: with solver='pcg', sample_weight (times class_weight) "
                f"must keep its positive weights within a factor {PCG_MAX_WEIGHT_SPAN:g} of "
                f"each other (CG would stop before the light rows are fitted), received a "
                f"largest-to-smallest ratio of {top / low:.3g}: use solver='features', or "
                "weights closer together"
            )
            raise ValueError(msg)

    def _n_centres(self, X: Array) -> int:
        """The number of Nyström centres: ``rank``, or ``min(n_samples, 1000)`` for None."""
        n = X.shape[0]
        if self.rank is None:
            return min(n, DEFAULT_CENTRES)
        return per_kernel_ranks(self.rank, 1, n, owner=type(self).__name__)[0]

    def _solver(self, X: Array) -> str:
        """``"features"`` or ``"pcg"``: ``solver``, or for ``"auto"`` pcg where the features of
        one map would exceed the memory budget, pcg applies and its M × M factors fit the
        budget (else ``"features"``, which cuts a default rank to the budget or refuses a given
        one; a Dask X's features are never held: ``"features"``)."""
        refusal = self._pcg_refusal()
        if self.solver == "pcg" and refusal is not None:
            msg = f"{type(self).__name__}: solver='pcg' needs {refusal}"
            raise ValueError(msg)
        if self.solver != "auto":
            return self.solver
        if refusal is not None:
            return "features"
        budget = executor_for(X).memory_budget(lambda: memory_budget_of(self.memory_budget, X))
        with warnings.catch_warnings():  # a clipped rank is said by the fit
            warnings.simplefilter("ignore", UserWarning)
            M = self._n_centres(X)
        if budget is None or X.shape[0] * M * xp_itemsize(X) <= budget:
            return "features"
        return "pcg" if factor_bytes(M, xp_itemsize(X), X.shape[0]) <= budget else "features"

    def _pcg_factor_bytes(self, X: Array) -> tuple[int | None, int]:
        """The memory budget (None: unknown, unbounded) and the bytes of pcg's M × M factors;
        a MemoryError, before anything is allocated, where they exceed it. The factors are
        held in this process whatever the executor: a Dask X's too."""
        M = self._n_centres(X)
        budget = memory_budget_of(self.memory_budget, X)
        factors = factor_bytes(M, xp_itemsize(X), X.shape[0])
        if budget is not None and factors > budget:
            msg = (
                f"{type(self).__name__}: solver='pcg' holds two {M} × {M} arrays of factors "
                f"and their factorisation's workspace, {factors / 2**30:.3g} GiB, beyond "
                f"memory_budget={budget} bytes ({budget / 2**30:.3g} GiB). Pass a smaller rank "
                "(the number of centres) or a larger memory_budget."
            )
            raise MemoryError(msg)
        return budget, factors

    def _pcg_system(
        self,
        kernel: Kernel,
        X: Array,
        y: Array,
        random_state: Any,
        sample_weight: Array | None,
        *,
        xp: Any,
    ) -> NystromSystem:
        """The pcg system on the float64 rows ``X`` (targets ``y`` for their count), centres
        drawn as the Nyström features' are, the preconditioner estimated with the weights
        (:func:`preconditioner_sample`); K_nM cached where it fits the memory budget beside
        the M × M factors, a MemoryError before anything is allocated where these do not."""
        n, M = X.shape[0], self._n_centres(X)
        run = executor_for(X, xp=xp)
        budget, factors = self._pcg_factor_bytes(X)
        block_dtype = widest_float(xp, device_of(X)) if self.kernel_dtype is None else xp.float32
        block_bytes = xp.finfo(block_dtype).bits // 8
        cache = budget is None or factors + n * M * block_bytes <= budget
        rng = check_random_state(random_state)
        order = rng.permutation(n)
        count = preconditioner_rows(n, M)
        rows = [int(i) for i in order[:count]]  # the centres first
        weights = None
        if sample_weight is not None:
            rows, kept = preconditioner_sample(order, M, count, to_numpy(sample_weight), rng)
            weights = from_host(kept, xp=xp, device=device_of(X), dtype=sample_weight.dtype)
        sample = run.take(X, rows)
        n_targets = 1 if y.ndim == 1 else y.shape[1]
        return NystromSystem(
            kernel,
            X,
            sample[:M, ...],
            fit_intercept=self.fit_intercept,
            cache=run.may_store(cache),
            n_targets=n_targets,
            xp=xp,
            sample=sample,
            sample_weight=weights,
            block_dtype=block_dtype,
        )

    def _pcg_solve(
        self,
        system: NystromSystem,
        targets: Any,
        alpha: float,
        *,
        given: float,
        start: Array | None = None,
    ) -> PCGSolution:
        """:meth:`NystromSystem.solve` at ``alpha`` (in the units of unit-scale weights) with
        the estimator's ``pcg_tol``, ``pcg_max_iter`` and ``verbose``; a ConvergenceWarning at
        the cap, naming the user's α, ``given``."""
        monitor = self._monitor(lambda s: f"pcg iteration {s[0]}: relative residual {s[1]:.3g}")
        solution = system.solve(
            targets,
            alpha,
            tol=self.pcg_tol,
            max_iter=self.pcg_max_iter,
            start=start,
            monitor=None if monitor is None else lambda k, r: monitor((k, r)),
        )
        if not solution.converged:
            self._warn_not_converged(
                solution.n_iter,
                f"the relative residual is above pcg_tol={self.pcg_tol:g} at alpha={given:.3g}: "
                "raise pcg_max_iter, or pass a larger pcg_tol or alpha",
            )
        return solution

    def _store_pcg(
        self,
        system: NystromSystem,
        solution: PCGSolution,
        X: Array,
        y: Array,
        y_scale: float,
        model_dtype: Any,
        *,
        xp: Any,
    ) -> None:
        coef, intercept = solution.coef * y_scale, solution.intercept * y_scale
        if y.ndim == 1:
            coef, intercept = coef[:, 0], intercept[0]
        for name in ("coef_", "features_", "factors_"):  # a former fit on the features'
            self.__dict__.pop(name, None)
        self.solver_ = "pcg"
        self.centers_, self.dual_coef_, self.intercept_ = system.S, coef, intercept
        self._kernel_block_dtype = system.passes.S.dtype  # predictions' kernel values too
        self.n_iter_ = solution.n_iter
        self.rank_ = (system.S.shape[0],)
        self.kernels_ = [system.kernel]
        self.n_features_in_ = X.shape[1]
        self._keep_model_in(model_dtype, xp=xp)

    def _pcg_path(
        self,
        kernels: list[Kernel] | None,
        X: Array,
        y: Array,
        sample_weight: Array | None,
        w_scale: float,
        folds: list[tuple[Any, Any]] | None,
        random_state: int,
        labels: Any,
        *,
        xp: Any,
    ) -> _PCGPath:
        """With pcg: the validation MSE of every α of the grid on ``folds`` (None: one
        hold-out of :data:`PCG_HOLDOUT` of the rows, stratified by ``labels`` when given), each
        fold's path solved from the largest α down, warm-started, on one system (the centres,
        ``T`` and the kernel cache shared by the folds and the final fit)."""
        kernel = check_kernels(self._kernels() if kernels is None else kernels, X)[0]
        system = self._pcg_system(kernel, X, y, random_state, sample_weight, xp=xp)
        if folds is None:
            stratify = labels is not None and can_stratify(labels, X.shape[0])
            splitter = StratifiedShuffleSplit if stratify else ShuffleSplit
            holdout = splitter(n_splits=1, test_size=PCG_HOLDOUT, random_state=random_state)
            # the splitter reads the row count and the labels it stratifies by, nothing else
            folds = folds_by_count(holdout, X.shape[0], labels if stratify else None)
        n = X.shape[0]
        weights = sample_weight
        if weights is None:
            weights = xp.ones(n, dtype=system.wide, device=device_of(X))
        if self.alphas is not None:
            alphas = check_grid(self.alphas, name="alphas")
            internal = tuple(a / w_scale for a in alphas)
        else:  # from the weighted kernel's trace, which bounds the features' largest eigenvalue
            trace = functools.partial(_weighted_trace, kernel, system.wide)
            (top,) = executor_for(X, xp=xp).sum(trace, X, weights)  # a pass over X's rows
            top = float(top)
            internal = tuple(top * 10.0**e for e in PCG_GRID_EXPONENTS) if top > 0 else (1.0,)
            alphas = tuple(a * w_scale for a in internal)
        require_representable(alphas, internal, w_scale)
        order = sorted(range(len(internal)), key=lambda i: -internal[i])
        tol = max(self.pcg_tol, PCG_PATH_TOL)
        per_fold, kept = [], None
        run = executor_for(X, xp=xp)
        for train, test in folds:
            w_tr, w_te = (weights * fold_mask(rows, weights, xp=xp) for rows in (train, test))
            require_fold_weights(w_tr, w_te, xp=xp)
            # in X's row blocks once (a Dask X's chunks), not again in every pass of the path
            w_tr, w_te = run.rows_like(w_tr, X), run.rows_like(w_te, X)
            targets = system.weighted(y, w_tr)
            solutions: list[Any] = [None] * len(internal)
            start = None
            for i in order:
                solutions[i] = system.solve(
                    targets,
                    internal[i],
                    tol=tol,
                    max_iter=self.pcg_max_iter,
                    start=start,
                )
                start = solutions[i].coef
            per_fold.append(system.squared_errors(targets, solutions, w_te))
            kept = solutions if kept is None else kept
        return _PCGPath(system, alphas, internal, per_fold, kept, tol)


def _weighted_trace(kernel: Kernel, dtype: Any, rows: Array, weights: Array) -> tuple[Array]:
    """``Σ w_i k(x_i, x_i)`` over a block of rows (a task of a pass: module-level, so that it
    ships the kernel and no graph)."""
    xp = get_namespace(rows)
    return (xp.sum(weights * xp.astype(kernel._diag(rows, xp=xp), dtype)),)


def preconditioner_sample(
    order: Any, M: int, count: int, weights: Any, rng: Any
) -> tuple[list[int], list[float]]:
    """The rows of a weighted fit's preconditioner and their weights (host): the ``M``
    centres (``order[:M]``) with their own weights, then ``count − M`` of the other rows drawn
    with probability proportional to their weights (with replacement), each weighing their
    total over the draws, so that ``Σ_j v_j q_j q_jᵀ`` estimates ``Σ_i w_i q_i q_iᵀ`` without
    bias (a uniform draw misses the few heavy rows that can dominate it)."""
    rows = [int(i) for i in order[:M]]
    kept = [float(weights[i]) for i in rows]
    rest = order[M:]
    total = float(weights[rest].sum())
    extra = count - M
    if extra > 0 and total > 0.0:
        rows += [int(i) for i in rng.choice(rest, size=extra, p=weights[rest] / total)]
        kept += [total / extra] * extra
    return rows, kept


def can_stratify(labels: Any, n: int) -> bool:
    """Whether the hold-out of :data:`PCG_HOLDOUT` of ``n`` rows can be stratified by the class
    numbers ``labels`` (host): every class of at least two rows, and as many classes as rows on
    each side; else it is drawn unstratified (scikit-learn's splitter would refuse)."""
    counts = Counter(labels.tolist()).values()
    test = math.ceil(PCG_HOLDOUT * n)
    return min(counts) >= 2 and min(test, n - test) >= len(counts)


def xp_itemsize(X: Array) -> int:
    """Bytes per value of X's dtype."""
    return get_namespace(X).finfo(X.dtype).bits // 8

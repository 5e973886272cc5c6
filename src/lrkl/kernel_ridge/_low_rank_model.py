"""The fit, the α path and the scores shared by the ridge estimators on low-rank features
(:class:`~lrkl.kernel_ridge.LowRankRidge`, :class:`~lrkl.kernel_ridge.LowRankRidgeCV` and their
classifiers, which validate their inputs and call :class:`_LowRankRidgeModel`'s methods)."""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NamedTuple

from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from lrkl._backend import to_numpy, widened
from lrkl._executor import executor_for, rowwise
from lrkl._model_selection import (
    check_grid,
    choose_from_grid,
    cv_folds,
    fold_rows,
    log_grid,
    require_fold_weights,
)
from lrkl._typing import Array
from lrkl._validation import check_predict_X, check_sample_weight
from lrkl.kernel_ridge._budget import rank_within_budget
from lrkl.kernel_ridge._leverage import draw_centres, ridge_leverage
from lrkl.kernel_ridge._low_rank_pcg import _PCGFit
from lrkl.kernel_ridge._pcg import decision
from lrkl.kernel_ridge._scaling import (
    power_of_two_scale,
    require_representable,
    scale_errors,
    weight_scale,
)
from lrkl.kernel_ridge._solvers import (
    PrimalProblem,
    _make_solver,
    _primal_loo_errors,
    _primal_problem,
    _solve_primal,
)
from lrkl.kernel_ridge._width_search import (
    WIDTH_SEARCH_ROWS,
    chosen_width,
    search_rows,
    search_widths,
    weighted_means,
)
from lrkl.kernels import Gaussian, Kernel, check_kernels
from lrkl.lowrank._factor import _as_dtype
from lrkl.lowrank._features import LowRankFeatures, draws_by_leverage


class _Path(NamedTuple):
    """One width's fit along the α grid (:meth:`_LowRankRidgeModel._path`)."""

    features: LowRankFeatures
    problem: PrimalProblem
    solver: Any
    alphas: tuple[float, ...]  # as given (or in the units of the weights)
    internal: tuple[float, ...]  # on the unit-scale weights
    per_fold: list[list[float]]  # validation MSE, one list per fold, one value per α
    mean: tuple[float, ...]  # its mean over the folds, per α
    # In a width search, the errors at this width's best α on each unit the mean averages (rows
    # for leave-one-out, folds), which the search compares paired, and the units' weights.
    units: Any = None
    unit_weights: Any = None


class _LowRankRidgeModel(_PCGFit):
    """The fit, the α path and the scores of ridge regression on stacked low-rank features,
    shared by :class:`LowRankRidge`, :class:`LowRankRidgeCV` and their classifiers
    (:mod:`lrkl.kernel_ridge._low_rank_classifiers`), which validate their inputs and call
    these on the validated ``X``, targets ``y`` (1-D or 2-D) and weights."""

    def _fit_one(self, X: Array, y: Array, sample_weight: Array | None, *, xp: Any) -> None:
        """Fit at ``self.alpha``."""
        # Unit-scale y and weights before anything is squared (_scaling): an exact power of 2.
        sample_weight, alpha, _ = weight_scale(sample_weight, float(self.alpha), xp=xp)
        y_scale = power_of_two_scale(y, xp=xp)
        y = y / y_scale
        if self._solver(X) == "pcg":  # at least float64, or kernel blocks in kernel_dtype
            self._require_pcg_weights(sample_weight, xp=xp)
            model_dtype = X.dtype
            y = widened(y, xp=xp)[0]
            sample_weight = None if sample_weight is None else widened(sample_weight, xp=xp)[0]
            kernel = check_kernels(self._kernels(), X)[0]
            system = self._pcg_system(kernel, X, y, self.random_state, sample_weight, xp=xp)
            targets = system.weighted(y, sample_weight)
            solution = self._pcg_solve(system, targets, alpha, given=float(self.alpha))
            self._store_pcg(system, solution, X, y, y_scale, model_dtype, xp=xp)
            return
        leverage = self._leverage_centres()
        features = self._feature_map(X, held=2 if leverage else 1)
        Z = features._build(X, y, xp=xp, owner=type(self).__name__)
        problem = _primal_problem(
            Z, y, fit_intercept=self.fit_intercept, xp=xp, sample_weight=sample_weight
        )
        if leverage:
            problem = self._on_leverage_centres(
                features, X, y, Z, problem, alpha, sample_weight, self.random_state, xp=xp
            )
        del Z
        solver = _make_solver(problem.gram, "cholesky" if alpha > 0 else "eigh", xp=xp)
        self._store(features, X, problem, solver, alpha, y_scale, xp=xp)

    def _fit_path(
        self,
        X: Array,
        y: Array,
        sample_weight: Any,
        groups: Any,
        *,
        labels: Any,
        xp: Any,
    ) -> None:
        """Choose ``α`` on its path by validation MSE of ``y`` and refit with it (the
        ``LowRankRidgeCV`` family): folds stratified by ``labels`` when given (classifiers)."""
        # In float64, the model kept in X's dtype: at rank=None the tolerance, not the rank,
        # ends each factor, and float32's floor n·ε·max K_ii ended it early (18 columns against
        # 26 on 30 rows of float16 data: test R² 0.079 from the float64 fit of the same values).
        model_dtype, X_given = X.dtype, X  # pcg widens X's rows as it reads them
        X, y = widened(X, y, xp=xp)
        sample_weight = check_sample_weight(sample_weight, X, owner=self)
        # Unit-scale y and weights before anything is squared (_scaling): the path and its
        # validation errors run on y / y_scale, and on w / w_scale with every α / w_scale.
        sample_weight, _, w_scale = weight_scale(sample_weight, 1.0, xp=xp)
        y_scale = power_of_two_scale(y, xp=xp)
        y = y / y_scale
        widths = search_widths(self._kernels(), self.gamma_factors, X)
        leverage = self._leverage_centres()
        # the best width's features and the current's (or the uniform and the leverage centres')
        maps_held = 1 if len(widths) == 1 and not leverage else 2
        random_state = self.random_state  # one draw of the landmarks for every width
        if not isinstance(random_state, numbers.Integral):
            random_state = int(check_random_state(random_state).randint(2**31 - 1))
        folds = None  # split once: a generator of folds is read once, folds name X's rows
        if self.cv is not None:
            target = y if labels is None else labels
            folds = cv_folds(self.cv, X, target, groups, classifier=labels is not None)
        pcg = self._solver(X) == "pcg"
        if pcg:
            self._require_pcg_weights(sample_weight, xp=xp)
            self._pcg_factor_bytes(X_given)  # factors beyond the budget: refused before all
        # Where there are many rows, the widths are compared on a subsample, in memory (a Dask
        # X's too, so that it chooses as in memory), and α is chosen at that width on all rows.
        subsample = None
        if len(widths) > 1 and X.shape[0] > WIDTH_SEARCH_ROWS:
            weights = None if sample_weight is None else to_numpy(sample_weight)
            subsample = search_rows(X.shape[0], WIDTH_SEARCH_ROWS, random_state, weights, folds)
        run = executor_for(X, xp=xp)

        def on(subsample: tuple[list[int], Any] | None) -> tuple[Any, ...]:
            """X, y, the weights and the folds of the subsample's rows (None: all rows)."""
            if subsample is None:
                return X, y, sample_weight, folds
            named = zip((X, y, sample_weight), ("X", "y", "sample_weight"), strict=True)
            taken = [None if a is None else run.take(a, subsample[0], name=n) for a, n in named]
            return (*taken, subsample[1])

        def path(i: int, data: tuple[Any, ...], maps: int, search: bool = True) -> _Path:
            X_i, y_i, w_i, folds = data
            search = search and len(widths) > 1
            return self._path(
                widths[i], X_i, y_i, w_i, w_scale, folds, random_state, maps, search, xp=xp
            )

        # Every width's errors, but the features and factors of one width only (the choice so
        # far), so that the search holds at most two widths' n × k features at once.
        # With pcg, the widths are compared on the features of the rows searched (at most
        # WIDTH_SEARCH_ROWS), and α is then chosen by pcg on held-out rows at the chosen width.
        paths: list[_Path] = []
        held = None
        searched = on(subsample)
        best = 0
        with warnings.catch_warnings():
            for i in range(len(widths) if len(widths) > 1 or not pcg else 0):
                if i == 1 or subsample is not None:  # said once, at the first width; a
                    # subsample's clipped rank is the search's own (the fit's is said by it)
                    warnings.filterwarnings("ignore", ".*exceeds n_samples", UserWarning)
                current = path(i, searched, maps_held)
                paths.append(current._replace(features=None, problem=None, solver=None))
                if chosen_width(paths, self.gamma_factors) == i:
                    held = (i, current)
                del current
            if paths:
                best = chosen_width(paths, self.gamma_factors)
            if pcg:
                held = None
                chosen = self._pcg_path(
                    widths[best],
                    X_given,
                    y,
                    sample_weight,
                    w_scale,
                    folds,
                    random_state,
                    labels,
                    xp=xp,
                )
            elif subsample is None and held[0] == best:
                chosen = held[1]
            else:  # a dropped width (rare), or the chosen one on all the rows: one map held
                # (two with the leverage centres' refit)
                held = None
                chosen = path(best, on(None), 2 if leverage else 1, search=False)
        alphas = chosen.alphas
        self.alpha_, mse_path = choose_from_grid(
            type(self).__name__,
            "alpha",
            alphas,
            chosen.per_fold,
            top=(
                "a hundredth of the kernel's weighted trace, so at least a hundredth of the "
                "features' largest eigenvalue"
                if pcg
                else "every direction of the features shrunk by at least a half"
            ),
            advice="alphas" if self.alphas is not None or pcg else "eps or n_alphas",
            rtol=chosen.tol if pcg else 0.0,
        )
        self.mse_path_ = scale_errors(mse_path, y_scale)
        self.alphas_ = alphas
        self.width_search_ = None
        if widths[0] is not None:
            self.width_search_ = {
                "gamma": tuple(float(kernels[0].gamma) for kernels in widths),
                "alphas": tuple(path.alphas for path in paths),
                "mse": scale_errors([path.mean for path in paths], y_scale),
                "rows": X.shape[0] if subsample is None else len(subsample[0]),
            }
        alpha = chosen.internal[alphas.index(self.alpha_)]
        if pcg:  # the fit on all the rows, from the first fold's solution at that α
            system = chosen.system
            start = chosen.solutions[alphas.index(self.alpha_)].coef
            targets = system.weighted(y, sample_weight)
            solution = self._pcg_solve(system, targets, alpha, given=self.alpha_, start=start)
            self._store_pcg(system, solution, X_given, y, y_scale, model_dtype, xp=xp)
            return
        problem, solver = chosen.problem, chosen.solver
        if leverage:  # α and the width stay those chosen on the uniform centres
            Z = executor_for(X, xp=xp).concat_columns([f.G for f in chosen.features.factors_])
            problem = self._on_leverage_centres(
                chosen.features,
                X,
                y,
                Z,
                problem,
                alpha,
                sample_weight,
                random_state,
                xp=xp,
                solver=solver,  # the path's eigendecomposition of the uniform centres' problem
            )
            solver = _make_solver(problem.gram, "cholesky", xp=xp)
        self._store(chosen.features, X, problem, solver, alpha, y_scale, xp=xp)
        self._keep_model_in(model_dtype, xp=xp)

    def _path(
        self,
        kernels: list[Kernel] | None,
        X: Array,
        y: Array,
        sample_weight: Array | None,
        w_scale: float,
        folds: list[tuple[Any, Any]] | None,
        random_state: int,
        held: int,
        search: bool = False,
        *,
        xp: Any,
    ) -> _Path:
        """The features of ``kernels`` (None: the estimator's), their ridge problem and its
        eigendecomposition, the α grid (as given and internal) and its validation errors: exact
        leave-one-out, or on ``folds``; ``held`` widths' features are in memory at once. In a
        width ``search``, also the errors per row (or fold) at the best α."""
        features = self._feature_map(X, kernels, random_state, held=held)
        Z = features._build(X, y, xp=xp, owner=type(self).__name__)
        problem = _primal_problem(
            Z, y, fit_intercept=self.fit_intercept, xp=xp, sample_weight=sample_weight
        )
        solver = _make_solver(problem.gram, "eigh", xp=xp)
        if self.alphas is not None:
            alphas = check_grid(self.alphas, name="alphas")
            internal = tuple(a / w_scale for a in alphas)
        else:
            top = float(xp.max(solver.eigenvalues)) if solver.eigenvalues.shape[0] else 0.0
            internal = log_grid(top, self.n_alphas, self.eps) if top > 0 else (1.0,)
            alphas = tuple(a * w_scale for a in internal)
        require_representable(alphas, internal, w_scale)
        weights = None  # of the units the search compares: the rows' (or equal folds')
        rows = None  # in a search by leave-one-out, the rows' errors per α (the same pass)
        if folds is None:
            errors = _primal_loo_errors(
                Z,
                y,
                problem,
                solver,
                internal,
                fit_intercept=self.fit_intercept,
                xp=xp,
                sample_weight=sample_weight,
                per_row=search,
            )
            if search:
                rows, weights = to_numpy(errors), sample_weight
                weights = None if weights is None else to_numpy(weights)
                errors = weighted_means(rows, weights)
            per_fold = [errors]
        else:
            per_fold = [
                self._fold_errors(
                    kernels, random_state, held, X, y, sample_weight, train, test, internal, xp=xp
                )
                for train, test in folds
            ]
        mean = tuple(sum(errors) / len(errors) for errors in zip(*per_fold, strict=True))
        path = _Path(features, problem, solver, alphas, internal, per_fold, mean)
        if not search:
            return path
        best = min(range(len(mean)), key=lambda a: mean[a] if math.isfinite(mean[a]) else math.inf)
        units = rows[:, best] if rows is not None else [errors[best] for errors in per_fold]
        return path._replace(units=units, unit_weights=weights)

    def _fold_errors(
        self,
        kernels: list[Kernel] | None,
        random_state: int,
        held: int,
        X: Array,
        y: Array,
        sample_weight: Array | None,
        train: Any,
        test: Any,
        alphas: tuple[float, ...],
        *,
        xp: Any,
    ) -> list[float]:
        """Validation MSE (weighted when weights are given) of the features and the ridge
        path fitted on ``train``, one value per ``α``."""
        (X_tr, X_te), (y_tr, y_te), (w_tr, w_te) = fold_rows(
            train, test, X, y, sample_weight, xp=xp
        )
        require_fold_weights(w_tr, w_te, xp=xp)
        features = self._feature_map(X_tr, kernels, random_state, held=held)
        Z = features._build(X_tr, y_tr, xp=xp, owner=type(self).__name__)
        Z_te = features._transform(X_te, xp=xp)
        problem = _primal_problem(
            Z, y_tr, fit_intercept=self.fit_intercept, xp=xp, sample_weight=w_tr
        )
        solver = _make_solver(problem.gram, "eigh", xp=xp)
        errors = []
        for alpha in alphas:
            coef, intercept = _solve_primal(problem, solver, alpha, xp=xp)
            sq = (Z_te @ coef + intercept - y_te) ** 2
            sq = sq if sq.ndim == 1 else xp.mean(sq, axis=1)
            mean = xp.mean(sq) if w_te is None else xp.sum(w_te * sq) / xp.sum(w_te)
            errors.append(float(mean))
        return errors

    def _validate_params(self) -> None:
        """scikit-learn's parameter check, and a FutureWarning for the deprecated ``centres``."""
        super()._validate_params()
        if self.centres != "deprecated":
            msg = (
                f"{type(self).__name__}(centres=...) is deprecated and will be removed: use "
                f"centers={self.centres!r} (received centres={self.centres!r}, which overrides "
                "centers)"
            )
            # the frame of the user's fit: above this, fit and its all-or-nothing wrapper
            warnings.warn(msg, FutureWarning, stacklevel=4)

    def _centers(self) -> str:
        """``centers``, or the deprecated ``centres`` where it is given."""
        return self.centers if self.centres == "deprecated" else self.centres

    def _leverage_centres(self) -> bool:
        """Whether the centres are drawn by ridge leverage (``centers="leverage"``)."""
        return draws_by_leverage(self._centers(), self.method)

    def _on_leverage_centres(
        self,
        features: LowRankFeatures,
        X: Array,
        y: Array,
        Z: Array,
        problem: PrimalProblem,
        alpha: float,
        sample_weight: Array | None,
        random_state: Any,
        *,
        xp: Any,
        solver: Any = None,
    ) -> PrimalProblem:
        """Refit ``features`` (fitted on uniform centres, ``Z`` and ``problem`` theirs) on as
        many centres drawn by the rows' ridge leverage scores at ``alpha``; their problem."""
        tau = ridge_leverage(Z, problem, alpha, xp=xp, sample_weight=sample_weight, solver=solver)
        m = max(factor.landmarks.shape[0] for factor in features.factors_)  # ranks may differ
        rows = draw_centres(tau, m, random_state)
        Z = features._build(X, y, xp=xp, owner=type(self).__name__, landmarks=rows)
        return _primal_problem(
            Z, y, fit_intercept=self.fit_intercept, xp=xp, sample_weight=sample_weight
        )

    def _kernels(self) -> Sequence[Kernel | str]:
        """The kernels fitted: the estimator's, or one Gaussian kernel of the data's width."""
        return [Gaussian()] if self.kernels is None else self.kernels

    def _feature_map(
        self,
        X: Array,
        kernels: list[Kernel] | None = None,
        random_state: Any = None,
        *,
        held: int = 1,
    ) -> LowRankFeatures:
        """The unfitted feature map of this estimator's parameters for the rows ``X`` (of
        ``kernels`` and ``random_state`` instead of the estimator's when given), whose rank fits
        the memory budget with ``held`` such feature maps in memory at once."""
        kernels = self._kernels() if kernels is None else kernels
        owner, budget = type(self).__name__, self.memory_budget
        return LowRankFeatures(
            kernels,
            rank_within_budget(self.rank, X, len(kernels), held, memory_budget=budget, owner=owner),
            self.method,
            lookahead=self.lookahead,
            kappa=self.kappa,
            gain_tol=self.gain_tol,
            tol=self.tol,
            random_state=self.random_state if random_state is None else random_state,
        )

    def _store(
        self,
        features: LowRankFeatures,
        X: Array,
        problem: PrimalProblem,
        solver: Any,
        alpha: float,
        y_scale: float,
        *,
        xp: Any,
    ) -> None:
        coef, intercept = _solve_primal(problem, solver, alpha, xp=xp)
        for name in ("centers_", "dual_coef_", "n_iter_", "_kernel_block_dtype"):  # pcg's
            self.__dict__.pop(name, None)
        self.solver_ = "features"
        self.coef_, self.intercept_ = coef * y_scale, intercept * y_scale
        self.features_ = features
        self.factors_ = features.factors_
        self.rank_ = features.rank_
        self.kernels_ = features.kernels_
        self.n_features_in_ = X.shape[1]

    def _keep_model_in(self, dtype: Any, *, xp: ModuleType) -> None:
        """The fitted model (features and coefficients) in ``dtype``, the input's, after a fit
        computed in a wider one (:func:`lrkl._backend.widened`), as
        :meth:`~lrkl.kernel_ridge._base.KernelExpansionRegressor._keep_model_in` does."""
        if self.solver_ == "pcg":  # β in the kernel values' dtype: its entries cancel
            self.centers_ = _as_dtype(self.centers_, dtype, xp=xp)
            self.dual_coef_, self.intercept_ = (
                _as_dtype(a, self._kernel_block_dtype, xp=xp)
                for a in (self.dual_coef_, self.intercept_)
            )
            return
        self.features_._keep_model_in(dtype, xp=xp)
        self.factors_ = self.features_.factors_
        self.coef_, self.intercept_ = (
            _as_dtype(a, dtype, xp=xp) for a in (self.coef_, self.intercept_)
        )

    @rowwise
    def features(self, X: Array) -> Array:
        """The stacked low-rank features ``[g_1(x), …, g_p(x)]`` of new points.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape ``(n_samples, sum(rank_))``
            On the training points, the stacked factors ``[G_1, …, G_p]``.
        """
        check_is_fitted(self)
        if self.solver_ == "pcg":
            msg = (
                f"{type(self).__name__} fitted with solver='pcg' holds no features: its model is "
                "the kernel expansion k(x, centers_) @ dual_coef_ + intercept_; fit with "
                "solver='features' for the Nyström features"
            )
            raise ValueError(msg)
        xp, X = check_predict_X(self, X, like="coef_", method="features")
        return self.features_._transform(X, xp=xp)

    def _scores(self, X: Array, method: str) -> Array:
        """``[g_1(x), …, g_p(x)] coef_ + intercept_`` for the rows of ``X`` (with pcg:
        ``k(x, centers_) dual_coef_ + intercept_``)."""
        check_is_fitted(self)
        if self.solver_ == "pcg":
            xp, X = check_predict_X(self, X, like="centers_", method=method)
            kernel = self.kernels_[0]
            return decision(
                kernel,
                self.centers_,
                self.dual_coef_,
                self.intercept_,
                X,
                xp=xp,
                block_dtype=self._kernel_block_dtype,
            )
        xp, X = check_predict_X(self, X, like="coef_", method=method)
        return self.features_._transform(X, xp=xp) @ self.coef_ + self.intercept_

"""Kernel ridge regression on low-rank features: :class:`LowRankRidge` (and
:class:`LowRankRidgeCV`), ridge regression on the stacked low-rank features of several kernels
(:class:`lrkl.lowrank.LowRankFeatures`), the Mklaren paper's ``RidgeLowRank``. The exact
estimators on the n × n kernel matrix are in :mod:`lrkl.kernel_ridge._exact`.

``fit_intercept=True`` means here what it means in every estimator (the exceptions are
``KernelRidge``'s, see :mod:`lrkl.kernel_ridge`): an unpenalised bias ``b``,
``(K + αI) c + b 1 = y`` with ``1ᵀ c = 0`` (see :mod:`lrkl.kernel_ridge._solvers`). ``intercept_``
is an array of shape () (or (n_targets,)) in the namespace and on the device of ``X``.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

from lrkl._base import LRKLRegressor
from lrkl._executor import executor_for, rowwise
from lrkl._model_selection import check_groups
from lrkl._typing import Array
from lrkl._validation import Hidden, Interval, StrOptions, check_sample_weight, check_X_y
from lrkl.kernel_ridge._leverage import CENTRES
from lrkl.kernel_ridge._low_rank_model import _LowRankRidgeModel
from lrkl.kernel_ridge._low_rank_pcg import SOLVERS
from lrkl.kernel_ridge._pcg import PCG_MAX_ITER, PCG_TOL
from lrkl.kernel_ridge._width_search import GAMMA_FACTORS
from lrkl.kernels import Kernel
from lrkl.lowrank._features import METHODS, LowRankFeatures

__all__ = ["GAMMA_FACTORS", "LowRankRidge", "LowRankRidgeCV"]


class LowRankRidge(_LowRankRidgeModel, LRKLRegressor):
    """Ridge regression on the low-rank factors of several kernels (``RidgeLowRank``).

    Each kernel ``q`` is approximated on its own by ``G_q`` (n × r) — pivoted incomplete
    Cholesky, Cholesky with side information or Nyström — and ridge regression with an
    unpenalised intercept is fitted on ``[G_1, …, G_p]`` (:class:`lrkl.lowrank.LowRankFeatures`;
    the factors are neither centred per kernel nor normalised, as the Mklaren paper's comparison
    does). New points get the factors' out-of-sample features. The kernel matrices are never
    formed: ``O(n p r²)`` for ICD and Nyström, more for CSI, then ``O(n (p r)²)`` for the ridge.

    Parameters
    ----------
    kernels : list of Kernel, default=None
        The kernels (Kernel objects or names such as ``"rbf"``); ``None`` means one Gaussian
        kernel of the data's width, ``Gaussian(gamma="scale")`` (earlier versions: seven
        Gaussians ``γ₀·2⁻³, …, γ₀·2³``, which ``lrkl.kernels.default_kernels(X)`` gives for the
        rows ``X``). ``kernels_`` holds the fitted ones, their widths resolved.
    rank : int, list of int or None, default=None
        Rank ``r`` per kernel (one for all, or one per kernel), at most ``n_samples``; ``None``
        means ``min(n_samples, 1000)``, fewer where their features would exceed
        ``memory_budget``. ICD and CSI may return fewer columns when a kernel's residual runs
        out.
    method : {"nystrom", "icd", "csi"}, default="nystrom"
        The approximation: Nyström on uniformly drawn landmarks (the centres), pivoted
        incomplete Cholesky, or Cholesky with side information (earlier versions: ``"icd"``).
    alpha : float, default=1.0
        Ridge penalty ``α ≥ 0`` (``0``: minimum-norm least squares). An ``α`` below the
        rounding of a singular ``ZᵀZ`` (``1e-300``) gives the same minimum-norm solution: the
        Cholesky solve falls back to the eigendecomposition
        (:class:`lrkl.kernel_ridge.CholeskySolver`).
    fit_intercept : bool, default=True
        Fit an unpenalised intercept (scikit-learn's ``Ridge``, as the paper does).
    lookahead : int, default=10
        CSI: look-ahead columns ``δ``.
    kappa : float, default=0.99
        CSI: trade-off between the kernel (0) and the targets (1).
    gain_tol : float, default=0.0
        CSI: stop a kernel's decomposition after a column of smaller exact gain (the Mklaren
        experiments' CSI used 1e-4).
    tol : float, default=1e-10
        ICD and CSI: stop when the residual diagonal is at most ``tol`` everywhere; the first
        column of each kernel is always taken (:class:`lrkl.lowrank.LowRankFeatures`).
    random_state : int, RandomState or None, default=None
        Nyström: seed of the landmarks, shared by all kernels (``random_state=42`` gives the
        landmarks of the Mklaren paper's experiments).
    centers : {"uniform", "leverage"}, default="uniform"
        Nyström only: how the landmarks (the centres) are drawn. ``"leverage"`` first fits on
        uniform centres, then draws as many centres again, without replacement, with
        probabilities proportional to the rows' ridge leverage scores at ``α``
        (``τ_i = w_i z̃_iᵀ (Z̃ᵀ W Z̃ + α I)⁻¹ z̃_i`` on the uniform centres' features, centred
        when fitting an intercept: Alaoui & Mahoney's two-pass approximation), and fits on
        those: 1.2–1.4 times the fit's time on the docs' regression panel, two feature maps
        in memory at once, and centres where the data are sparse or hard to explain. There it
        gained up to 0.007 R² on skewed data and moved the others by at most 0.002
        (performance section, "Centres by ridge leverage scores").
    memory_budget : int or None, default=None
        Bytes the in-memory features (``n_samples × sum(rank)`` values) may take; ``None``
        means half of the memory of X's device (the host's for NumPy arrays). A default rank is
        cut to fit it; a given rank whose features exceed it raises a MemoryError before
        anything is allocated. A Dask ``X``'s features are computed in passes and not held.
        With ``solver="pcg"`` it bounds the M × M factors (``16 M²`` bytes, ``12 M²`` for
        float32 X where the preconditioner comes from the centres alone, plus the blocked
        factorisation's workspace of five float64 blocks of at most ``2048²`` values) and
        decides whether the n × M kernel block is cached (in ``kernel_dtype``) or recomputed
        in every iteration.
    solver : {"auto", "features", "pcg"}, default="auto"
        ``"features"``: the n × k features in memory and their ridge problem solved by a
        Cholesky factorisation of ``ZᵀZ`` (``O(n k²)``). ``"pcg"``: Nyström with one kernel
        by preconditioned conjugate gradients (Falkon's preconditioner, estimated from up to
        ``4M`` rows where ``M`` is small against n; with α, weights and the unpenalised
        intercept as here), without the n × M features: ``O(M²)`` memory
        besides an optional cache of the kernel block, one pass over the rows per iteration
        (docs: "Large data"); it needs ``method="nystrom"``, one kernel,
        ``centers="uniform"`` and ``alpha > 0``, and solves the same problem as
        ``"features"`` (both regularise the centres' kernel block as ``K_MM + δ I``,
        ``δ = M ε ‖K_MM‖_∞``). ``"auto"``: ``"features"`` where the features fit
        ``memory_budget``, else ``"pcg"`` where it applies and its factors fit, else
        ``"features"`` (a default rank cut to the budget, a given one refused).
    pcg_tol : float, default=1e-7
        pcg: stop when every target's residual of the preconditioned system is at most
        ``pcg_tol`` times its right-hand side (1e-7 put the predictions within 1e-6 of their
        spread from the direct solve's on the docs' regression sets).
    pcg_max_iter : int, default=100
        pcg: the cap on the iterations, each one pass over the rows; reaching it warns.
    kernel_dtype : {None, "float32"}, default=None
        pcg: the dtype of the kernel values ``k(x, centers_)``, computed, cached and
        evaluated at prediction: ``None``, the widest float of X's device (float64), whatever
        X's; ``"float32"``, float32, which halves the cache and the time of a pass over it.
        Float32 kernel values change the problem, not only its rounding: the directions of
        ``K_MM`` too weakly penalised for float32 to resolve fit the values' rounding
        (``ε₃₂ ≈ 6e-8``). On 2 000 rows at ``α = 1e-3`` this moved the predictions by 8–10 %
        of their spread from the float64 fit and cost up to 0.014 test R² (docs: "Large
        data"); take it for large ``α`` or classification at scale, where the memory decides.
    verbose : int, default=0
        pcg: print each iteration's relative residual to stderr.
    centres : str, deprecated
        The former spelling of ``centers``: it warns, and takes precedence where given.

    Attributes
    ----------
    solver_ : {"features", "pcg"}
        The solver used (``solver``, or what ``"auto"`` chose).
    features_ : lrkl.lowrank.LowRankFeatures
        The fitted feature map (``solver_ == "features"``).
    factors_ : list of lrkl.lowrank.LowRankFactor
        One factor per kernel (``features_.factors_``; direct).
    rank_ : tuple of int
        Number of columns of each kernel's factor (pcg: the number of centres).
    coef_ : array of shape ``(sum(rank_),)`` or ``(sum(rank_), n_targets)``
        Ridge coefficients of the stacked features (direct).
    centers_ : array of shape (M, n_features)
        pcg: the centres, uniform rows of X drawn as the direct solve's landmarks are.
    dual_coef_ : array of shape (M,) or (M, n_targets)
        pcg: the coefficients ``β`` of the expansion ``k(x, centers_) β + intercept_``.
    n_iter_ : int
        pcg: the iterations of the fit.
    intercept_ : array of shape () or (n_targets,)
    kernels_ : list of Kernel
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import LowRankRidge
    >>> from lrkl.kernels import Gaussian, Linear
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    >>> model = LowRankRidge(alpha=1e-3).fit(X, y)  # one Gaussian, min(n, 1000) centres
    >>> model.rank_, round(model.kernels_[0].gamma, 3)  # the width of gamma="scale"
    ((200,), 0.335)
    >>> bool(model.score(X, y) > 0.95)
    True
    >>> icd = LowRankRidge([Linear(), Gaussian(gamma=0.5)], rank=10, method="icd").fit(X, y)
    >>> icd.rank_  # ICD stops at the linear kernel's rank
    (3, 10)
    """

    _parameter_constraints: dict = {
        **LowRankFeatures._parameter_constraints,
        "method": [StrOptions(set(METHODS))],
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "memory_budget": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "centers": [StrOptions(set(CENTRES))],
        "centres": [StrOptions(set(CENTRES)), Hidden(StrOptions({"deprecated"}))],
        "solver": [StrOptions(set(SOLVERS))],
        "pcg_tol": [Interval(numbers.Real, 0, 1, closed="neither")],
        "pcg_max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "kernel_dtype": [StrOptions({"float32"}), None],
        "verbose": ["verbose"],
    }
    del _parameter_constraints["n_landmarks"]

    def __init__(
        self,
        kernels: Sequence[Kernel] | None = None,
        rank: int | Sequence[int] | None = None,
        method: str = "nystrom",
        alpha: float = 1.0,
        *,
        fit_intercept: bool = True,
        lookahead: int = 10,
        kappa: float = 0.99,
        gain_tol: float = 0.0,
        tol: float = 1e-10,
        random_state: Any = None,
        memory_budget: int | None = None,
        centers: str = "uniform",
        solver: str = "auto",
        pcg_tol: float = PCG_TOL,
        pcg_max_iter: int = PCG_MAX_ITER,
        kernel_dtype: str | None = None,
        verbose: int = 0,
        centres: str = "deprecated",
    ) -> None:
        self.kernels = kernels
        self.rank = rank
        self.method = method
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.lookahead = lookahead
        self.kappa = kappa
        self.gain_tol = gain_tol
        self.tol = tol
        self.random_state = random_state
        self.memory_budget = memory_budget
        self.centers = centers
        self.centres = centres
        self.solver = solver
        self.pcg_tol = pcg_tol
        self.pcg_max_iter = pcg_max_iter
        self.kernel_dtype = kernel_dtype
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def fit(self, X: Array, y: Array, sample_weight: Array | None = None) -> LowRankRidge:
        """Approximate each kernel and fit the ridge regression on the stacked factors.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : array of shape (n_samples,) or float, default=None
            Weights of the squared errors in the ridge regression (weighted centring, as
            scikit-learn's ``Ridge``); the low-rank factors themselves are unweighted.

        Returns
        -------
        self : LowRankRidge
        """
        self._validate_params()
        xp, X, y = check_X_y(X, y, owner=self, multi_output=True, lazy=True)
        if sample_weight is not None:
            executor_for(X, xp=xp).require_in_memory(
                f"{type(self).__name__} takes no sample_weight with a Dask X"
            )
        self._fit_one(X, y, check_sample_weight(sample_weight, X, owner=self), xp=xp)
        return self

    @rowwise
    def predict(self, X: Array) -> Array:
        """Predict targets for the rows of ``X`` (same namespace and device as ``X``).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples,) or (n_samples, n_targets)
        """
        return self._scores(X, "predict")


class LowRankRidgeCV(LowRankRidge):
    """:class:`LowRankRidge` with ``α`` chosen by cross-validation over a whole path, as
    scikit-learn's ``RidgeCV``.

    The features are built once and ``Z_cᵀZ_c = V Λ Vᵀ`` factorised once; with ``cv=None`` the
    exact leave-one-out error of every ``α`` then costs ``O(n k)``
    (:func:`lrkl.kernel_ridge.primal_loo_errors`), so a path of 30 values costs little more than
    one fit. The default grid comes from the data: ``n_alphas`` values from ``λ_max``, the
    largest eigenvalue of ``Z_cᵀZ_c`` (there every direction of the features is shrunk by at
    least a half), down to ``eps·λ_max``. A choice on an end of the grid gets a warning.

    Leave-one-out keeps the features of all the rows: with ``method="csi"``, whose pivots look
    at ``y``, it is optimistic; ``cv=5`` refits the features on each training fold.

    With ``solver="pcg"`` (or ``"auto"`` where the features exceed the memory budget) there is
    no exact leave-one-out: each α of the grid is fitted on all the rows but a held-out
    :data:`~lrkl.kernel_ridge._low_rank_pcg.PCG_HOLDOUT` (20 %, drawn with the landmarks'
    seed, stratified for the classifiers; ``cv`` gives folds instead), from the largest α
    down, each fit warm-started from the previous one and solved to a relative residual of
    1e-4 (``pcg_tol`` where larger), and validated on the held-out rows; the centres, their
    factorisation and the kernel cache are shared by every α, fold and the final fit, which
    is warm-started from the chosen α's. The default grid has 5 values,
    ``10⁻² … 10⁻⁷`` times the kernel's weighted trace ``Σ w_i k(x_i, x_i)`` (which bounds the
    features' largest eigenvalue, without an eigendecomposition); ``n_alphas`` and ``eps``
    are the leave-one-out grid's. A width search compares its widths on at most 1 000 rows
    with the direct solve, as without pcg, and pcg then fits the chosen width.

    Parameters
    ----------
    kernels, rank, method, fit_intercept, lookahead, kappa, gain_tol, tol, random_state
    memory_budget, centers, solver, pcg_tol, pcg_max_iter, kernel_dtype, verbose, centres
        As for :class:`LowRankRidge`; the width search holds two widths' features at once.
        With ``centers="leverage"`` the width and ``α`` are chosen on the uniform centres
        (``mse_path_`` and ``width_search_`` are theirs), and the model is then fitted at
        that ``α`` on centres drawn by the leverage scores there.
    alphas : sequence of float, default=None
        Grid of ``α > 0``; ``None`` means the data-scaled grid of ``n_alphas`` and ``eps``.
    n_alphas : int, default=30
        Number of values of the default grid, at most 10 000: consecutive values are then
        within 0.2 % of each other at ``eps=1e-8`` (more cannot change the choice, only the
        time; ``n_alphas=10**9`` ran for hours on 40 rows).
    eps : float, default=1e-8
        Ratio ``α_min / α_max`` of the default grid, in (0, 1).
    cv : None, int or cross-validation splitter, default=None
        ``None``: exact leave-one-out on the features of all the rows (pcg: one hold-out of
        20 % of the rows); otherwise as in scikit-learn (``KFold`` for an int), with the
        features refitted per fold (pcg: the centres kept, the fit on each training fold).
    gamma_factors : sequence of float or None, default=(0.25, 0.5, 1, 2, 4)
        The width search: with one kernel whose ``gamma`` is ``"scale"`` (such as
        ``kernels=["rbf"]``), its features and α path are computed at ``γ = f·γ₀`` for each
        factor ``f`` (``γ₀`` the ``"scale"`` width). The width is the one nearest ``γ₀`` whose
        best validation error exceeds the best of all by at most one standard error of that
        difference, taken row by row for leave-one-out (fold by fold with ``cv``), since every
        width is validated on the same rows (widths whose errors differ by less than their
        noise are not told apart: on small data the extreme ones overfit the choice), and its
        α the one of lowest error; ``kernels_`` holds the
        kernel with the chosen ``γ``. Up to 1 000 rows it costs one fit of the features and
        one path per factor (five times one width's fit at the default) and holds two widths'
        features at most (a width dropped for another, then chosen after all, is computed
        again); beyond, the widths are compared on a uniform subsample of 1 000 rows (drawn
        with the landmarks' seed; ``cv``'s folds restricted to it) and the path is computed
        once more, at the chosen width, on all the rows. Every width uses the same Nyström
        landmarks, and ``γ₀`` comes from all the rows of ``fit`` (with ``cv``, each fold
        searches those widths).
        ``None`` (or a fixed ``gamma``, or several kernels) fits the kernels as given.

    Attributes
    ----------
    alpha_ : float
        The ``α`` with the lowest mean validation MSE (pcg: the largest ``α`` among those whose
        mean is within the path's tolerance of the grid's largest mean from the lowest).
    alphas_ : tuple of float
        The grid (the default one from the largest ``α`` to the smallest).
    mse_path_ : tuple of tuple of float
        Validation MSE, one row per ``α``, one column per fold (one column for leave-one-out
        or pcg's hold-out), at the chosen width.
    width_search_ : dict or None
        With a width search: ``"gamma"``, the widths searched; ``"alphas"``, each width's α
        grid; ``"mse"``, each width's mean validation MSE per α; ``"rows"``, the number of rows
        they were compared on. None without one.
    solver_, features_, factors_, rank_, coef_, centers_, dual_coef_, n_iter_, intercept_
    kernels_, n_features_in_
        Of the refit on all the data with ``alpha_``, as for :class:`LowRankRidge`.

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import LowRankRidgeCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3))
    >>> y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=300)
    >>> model = LowRankRidgeCV(["rbf"], rank=40).fit(X, y)
    >>> bool(model.alpha_ in model.alphas_ and model.score(X, y) > 0.95)
    True
    """

    _parameter_constraints: dict = {
        **LowRankRidge._parameter_constraints,
        "alphas": ["array-like", None],
        "n_alphas": [Interval(numbers.Integral, 1, 10_000, closed="both")],
        "eps": [Interval(numbers.Real, 0, 1, closed="neither")],
        "cv": ["cv_object", None],
        "gamma_factors": ["array-like", None],
    }
    del _parameter_constraints["alpha"]

    def __init__(
        self,
        kernels: Sequence[Kernel] | None = None,
        rank: int | Sequence[int] | None = None,
        method: str = "nystrom",
        alphas: Sequence[float] | None = None,
        *,
        n_alphas: int = 30,
        eps: float = 1e-8,
        cv: Any = None,
        gamma_factors: Sequence[float] | None = GAMMA_FACTORS,
        fit_intercept: bool = True,
        lookahead: int = 10,
        kappa: float = 0.99,
        gain_tol: float = 0.0,
        tol: float = 1e-10,
        random_state: Any = None,
        memory_budget: int | None = None,
        centers: str = "uniform",
        solver: str = "auto",
        pcg_tol: float = PCG_TOL,
        pcg_max_iter: int = PCG_MAX_ITER,
        kernel_dtype: str | None = None,
        verbose: int = 0,
        centres: str = "deprecated",
    ) -> None:
        self.kernels = kernels
        self.rank = rank
        self.method = method
        self.alphas = alphas
        self.n_alphas = n_alphas
        self.eps = eps
        self.cv = cv
        self.gamma_factors = gamma_factors
        self.fit_intercept = fit_intercept
        self.lookahead = lookahead
        self.kappa = kappa
        self.gain_tol = gain_tol
        self.tol = tol
        self.random_state = random_state
        self.memory_budget = memory_budget
        self.centers = centers
        self.centres = centres
        self.solver = solver
        self.pcg_tol = pcg_tol
        self.pcg_max_iter = pcg_max_iter
        self.kernel_dtype = kernel_dtype
        self.verbose = verbose

    def fit(
        self,
        X: Array,
        y: Array,
        sample_weight: Array | None = None,
        groups: Array | None = None,
    ) -> LowRankRidgeCV:
        """Build the features, choose ``α`` on its path, and refit with it.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : array of shape (n_samples,) or float, default=None
            As for :meth:`LowRankRidge.fit`; the validation errors are weighted means.
        groups : array of shape (n_samples,), default=None
            Group labels for a group splitter (``GroupKFold``, ...).

        Returns
        -------
        self : LowRankRidgeCV
        """
        self._validate_params()
        xp, X, y = check_X_y(X, y, owner=self, multi_output=True, min_samples=2, lazy=True)
        groups = check_groups(groups, X.shape[0])
        if self.cv is not None or sample_weight is not None:
            executor_for(X, xp=xp).require_in_memory(
                f"{type(self).__name__} with a Dask X takes cv=None (exact leave-one-out, or "
                f"pcg's hold-out) and no sample_weight, received cv={self.cv!r} and "
                f"sample_weight={'given' if sample_weight is not None else None}"
            )
        self._fit_path(X, y, sample_weight, groups, labels=None, xp=xp)
        return self

"""``LowRankMKLClassifier``: ℓp-norm MKL over low-rank kernels (Rakotomamonjy & Chanda)."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, NamedTuple

from sklearn.utils.validation import check_is_fitted

from lrkl._backend import device_of, from_host, to_numpy
from lrkl._base import MONITOR_CONSTRAINTS, LRKLClassifier
from lrkl._executor import executor_for
from lrkl._typing import Array
from lrkl._validation import (
    Interval,
    StrOptions,
    check_class_sample_weight,
    check_classification_X_y,
    check_predict_X,
)
from lrkl.kernels import Kernel
from lrkl.lowrank._factor import _as_dtype
from lrkl.lowrank._features import LowRankFeatures
from lrkl.lpmkl._losses import LOSSES
from lrkl.lpmkl._mkl import (
    MAX_OUTER_ITER,
    MKL_STOPS,
    STALL_UPDATES,
    SVM_SOLVERS,
    MKLResult,
    MKLState,
    _solution_gap,
    _solve_lp_mkl,
    check_solver,
)
from lrkl.lpmkl._newton import gram_only
from lrkl.lpmkl._problem import _svm_problem, check_costs, check_row_weights

__all__ = ["LowRankMKLClassifier"]


class _Fit(NamedTuple):
    """What :meth:`LowRankMKLClassifier._prepare` builds for the solves."""

    xp: Any
    device: Any
    classes: Any
    codes: Any
    weights: Any  # the sample weights times the class weights, or None
    feature_map: LowRankFeatures
    problems: list  # one SVMProblem per binary task
    solver: str


def require_class_totals(weights: Any, codes: Any, classes: Any, names: str, owner: str) -> None:
    """A ValueError naming the user's label and ``names`` (the weights given) where a class's
    rows weigh 0 in all: its margin, and the intercept, would be undefined (host arrays)."""
    for code, label in enumerate(classes.tolist()):
        if not float(weights[codes == code].sum()) > 0.0:
            msg = (
                f"{owner}: {names} must give every class a positive total weight; class "
                f"{label!r} has 0"
            )
            raise ValueError(msg)


class LowRankMKLClassifier(LRKLClassifier):
    """ℓp-norm multiple kernel learning with low-rank kernels (Rakotomamonjy & Chanda): an SVM
    on ``Σ_k d_k V_k V_kᵀ`` whose kernel weights ``d`` (``‖d‖_p ≤ 1``) are learned with it.

    Each kernel ``K_k`` is replaced by a rank-``R`` factor ``V_k`` (Nyström by default, the
    paper's ``V_k = C_k L_k D_k^{−1/2}`` on ``n_landmarks`` uniformly drawn points, each kernel
    its own unless ``shared_landmarks``), and the fit alternates (Algorithm 1):

    1. the SVM for fixed ``d``, a linear SVM on the stacked features ``[√d_1 V_1 … √d_m V_m]``,
       warm-started from the previous solve, by Newton's method in the primal
       (``solver="newton"``, each step a pass over the rows and a ``Σ R_k``-sized solve): by
       default with the squared hinge, in steps that do not grow with ``C``; with the paper's
       hinge (``loss="hinge"``) through a smoothing continuation, in steps that grow mildly
       with it. The paper's solver, the dual (4) in its split form (6) by generalized
       forward-backward splitting (``solver="gfb"``, Algorithm 2 with Raguet et al.'s update of
       every auxiliary variable), takes iterations that grow with ``C``;
    2. the closed-form ℓp weight update, eq. (3) with ``‖f_k‖² = d_k² αᵀYK_kYα`` (the paper's
       eq. (5) misses a factor ``d_k``: :ref:`lpmkl-erratum`);

    until the fit is certified: the relative duality gap of the MKL problem at most ``mkl_tol``
    (``stop="mkl_gap"``; the paper's rule, weights that change by less than ``weight_tol``, is
    ``stop="change"``). Each Newton step costs a Gram of the rows on the margin's wrong side
    (or of the others, whichever are fewer) and three passes over the ``n × R·m`` features,
    each GFB iteration two passes; no ``n × n`` matrix is formed. The intercept
    comes from the KKT conditions; more than two classes are fitted one-vs-rest, each class
    with its own weights. A row-chunked Dask ``X`` is accepted: the features are computed
    on its chunks and the MKL runs on them in memory (:doc:`/dask`). Probabilities:
    ``sklearn.calibration.CalibratedClassifierCV`` on this estimator (Platt scaling of
    ``decision_function`` by cross-validation), which refits it per fold.

    Parameters
    ----------
    kernels : list of Kernel, default=None
        The kernels (Kernel objects or names); ``None`` means seven Gaussian kernels
        ``γ₀·2⁻³, …, γ₀·2³`` around the width ``γ₀`` of ``Gaussian(gamma="scale")``.
    rank : int, list of int or None, default=None
        ``R``, columns per kernel (one for all, or one per kernel); ``None`` means
        min(n_samples, 100).
    n_landmarks : int, default=None
        ``N_n ≥ rank`` landmarks of the Nyström factors; ``None`` means ``N_n = R`` and
        ``V_k = C_k W_k^{−1/2}``, the same kernel ``C_k W_k^{−1} C_kᵀ`` as the paper's form.
    p : float, default=2.0
        The norm of the weight constraint, ``p ≥ 1``: ``p = 1`` gives sparse weights, large
        ``p`` nearly uniform ones.
    C : float, default=1.0
        The SVM's penalty on margin violations (the paper's experiments use 1000).
    loss : {"squared_hinge", "hinge"}, default="squared_hinge"
        The SVM's loss: ``C Σ_i max(0, 1 − y_i f(x_i))²`` (scikit-learn's ``LinearSVC``
        default) or without the square (the paper's, and ``SVC``'s). The squared hinge is the
        default because its primal is differentiable, so Newton's method solves each SVM in a
        few steps whatever ``C`` (at n = 8 000, ten kernels of rank 100: flat in C where GFB's
        iterations grow with it, :ref:`lpmkl-newton`); its accuracy was within a point of the
        hinge's on the panel measured there. The hinge takes more Newton steps (a smoothing
        continuation). Newton's method solves both; the other solvers the hinge only.
    method : {"nystrom", "icd", "csi"}, default="nystrom"
        The low-rank approximation (:class:`lrkl.lowrank.LowRankFeatures`); CSI uses the ±1
        labels (the first class's for more than two).
    solver : {"auto", "newton", "gfb", "gfb_naive", "interior_point", "liblinear"}, \
            default="auto"
        The SVM solver; ``"auto"`` is ``"newton"`` (``"gfb"`` for the hinge with an ``eta``).
        ``"newton"``: Newton's method in the primal (:func:`lrkl.lpmkl.solve_newton_svm`),
        exact in finitely many steps for the squared hinge, the hinge by smoothings that shrink
        until its duality gap is within the tolerance. For the hinge only: GFB
        on the paper's ``m + 2`` constraint sets; GFB on one affine set of
        all ``R·m + 1`` equalities (its ``(R·m + 1)²`` system factorised per weight update, for
        comparison); Clarabel's interior-point method on (6) (``pip install "clarabel>=0.11"``); or
        scikit-learn's ``LinearSVC`` on the stacked ``√d_k V_k`` (hinge loss, its intercept
        lightly regularised). The last two run on NumPy arrays only.
    tol : float, default=1e-6
        The SVM's stopping tolerance under ``stop="change"`` (its objective's relative change
        in one iteration) and ``stop="gap"`` (its relative duality gap); the interior-point and
        liblinear solvers take it as their own tolerance, Newton's method as its relative
        decrement (squared hinge) or duality gap (hinge). Under ``stop="mkl_gap"`` each SVM's
        tolerance follows the MKL gap instead (liblinear's excepted).
    stop : {"mkl_gap", "gap", "change"}, default="mkl_gap"
        The stopping rule. ``"mkl_gap"`` stops when the relative duality gap of the MKL problem
        (:func:`lrkl.lpmkl.mkl_duality_gap`) is at most ``mkl_tol``: a certificate of how far
        the fit is from the optimum, whatever path the iterates took. Each SVM is solved to a
        quarter of the last MKL gap (by GFB's own duality gap, checked every 10 iterations; by
        Newton's relative decrement, which ``"gap"`` also uses as its ``tol``), so
        early solves, whose weights will move, are cheap. ``"change"`` is the paper's pair of
        rules: each SVM stops when its objective changes by less than ``tol`` in one iteration
        (§5.1), the loop when no weight changes by more than ``weight_tol``. It is cheap but
        bounds nothing: after a warm start an SVM can stop within a few iterations, the weights
        then move by the SVM's inexactness, and whether the loop stops can depend on the last
        bits of the arithmetic (at C = 1000 and the paper's 1e-4 the last SVM's gaps were
        15–90 %, :ref:`lpmkl-reproduce`). ``"gap"`` solves each SVM to the relative duality gap
        ``tol`` and stops the loop by ``weight_tol``. liblinear gives no dual point: under
        ``"mkl_gap"`` its loop stops when the MKL objective changes by at most ``mkl_tol``
        relative in one update, under the others by the weight change.
    alpha_scale : float or "auto", default="auto"
        GFB's unit ``t`` of α: it iterates on ``α/t``, the same problem in another metric.
        ``1.0`` is the paper's Algorithm 2; ``"auto"`` sets ``t = min(1, (C/λ)^{1/4})`` from a
        bound λ on the largest eigenvalue of the combined kernel
        (:func:`lrkl.lpmkl.auto_alpha_scale`), which reaches a 1 % duality gap in 5.6× fewer
        iterations than ``1.0`` at C ≤ 10 on svmguide1, mushrooms, magic and adult, and does
        not help at C ≥ 100 (:ref:`lpmkl-scale`). Other solvers ignore it.
    weight_tol : float, default=1e-4
        Under ``stop="change"`` or ``"gap"``, the MKL loop stops when no weight changes by
        more than ``weight_tol`` (the paper's).
    mkl_tol : float, default=1e-3
        Under ``stop="mkl_gap"``, the relative MKL duality gap at which the fit stops (with
        liblinear, the MKL objective's relative change in one update).
    max_iter : int, default=3000
        Iterations of each SVM solve (the paper: 3000).
    max_outer_iter : int, default=500
        Weight updates, at most 10 000 (``p = 1`` can take a few hundred: its weights approach
        sparsity geometrically; a loop that has not stopped by ten thousand will not).
    eta : float, default=0.0
        Remark 1's ``η/2 ‖α‖²`` added to the SVM objective (strong convexity). It penalises α
        as a squared hinge with ``C = 1/η`` would: the kernel part of the decision function
        shrinks as ``1/η`` while the bias tends to the class balance, so a large η (here, past
        about 10 on a few hundred rows) predicts the majority class, as ``SVC`` does at a tiny
        ``C``. Keep it small against the kernel's scale. Hinge and the GFB-family solvers only
        (``solver="auto"`` then takes GFB): the squared hinge's dual already holds such a term,
        ``‖α‖²/(4C)``.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes' rows in the loss (scikit-learn's meaning; "balanced" weighs
        class ``c`` by ``n_samples / (n_classes · n_c)``), multiplied into ``sample_weight``;
        with more than two classes every one-vs-rest problem uses them.
    shared_landmarks : bool, default=False
        Nyström: each kernel its own landmarks (the default), or one set for all kernels (the
        paper's, ``True``). At the same cost, own landmarks gave 0.871 test accuracy where
        shared ones gave 0.815 on 10⁵ rows of ten Gaussian widths at rank 100, and were better
        or equal on 20 of 24 fits of four of the paper's sets (worst −0.004, best +0.007):
        :ref:`performance-lpmkl-landmarks`.
    feature_dtype : {None, "float32"}, default=None
        The dtype of the stacked features, which hold nearly all of a fit's memory
        (``n × Σ R_k`` entries: 7.5 GiB in float64 at 10⁶ rows and ten kernels of rank 100):
        ``None``, X's; ``"float32"``, float32 whatever X's, half of float64's. The kernel values
        and the Nyström projection are computed in float64 and only the features rounded; the
        SVM then runs on float32 features with its Gram, Newton system and intercept
        accumulated in float64 (:ref:`lpmkl-memory`). ``coef_`` and ``intercept_`` are then
        float32; the decision values are returned in X's dtype.
    random_state : int, RandomState or None, default=None
        Seed of the Nyström landmarks.
    callback : callable, default=None
        ``callback(state)`` after each weight update with an :class:`lrkl.lpmkl.MKLState`;
        returning True stops the fit.
    verbose : int, default=0
        Print one line per weight update.

    Attributes
    ----------
    classes_ : array of shape (n_classes,)
    kernel_weights_ : array of shape (n_kernels,) or (n_classes, n_kernels)
        The kernel weights ``d`` (one row per class for more than two classes).
    features_ : lrkl.lowrank.LowRankFeatures
        The fitted feature map; ``features_.transform(X)`` gives ``[V_1 … V_m]`` in kernel
        order, unweighted.
    coef_ : array of shape (n_components,) or (n_classes, n_components)
        The decision function's weights of those features, ``d_k V_kᵀ Y α`` per kernel.
    intercept_ : array of shape () or (n_classes,)
    objectives_ : tuple of float or list of tuple
        The MKL primal ``½ Σ ‖f_k‖²/d_k + C Σ ξ_i`` after each SVM solve.
    n_iter_ : int
        Weight updates (the most over the classes).
    n_svm_iter_ : int
        SVM iterations, summed over updates and classes.
    duality_gap_ : float
        The relative duality gap ``(P − D)/|P|`` of the last SVM (4), for the weights found
        (the largest over the classes; NaN for ``liblinear``, which gives no dual point): how
        far that SVM's objective may be from its optimum. GFB's relative-change rule does not
        bound it (at C = 1000 it can exceed 0.5): read it before trusting a fit. For Newton's
        solutions it is measured between the solution's primal point and its ``α``.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import LowRankMKLClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = (X[:, 0] ** 2 + X[:, 1] ** 2 > 1.4).astype(int)
    >>> clf = LowRankMKLClassifier(rank=30, C=10.0, random_state=0).fit(X, y)
    >>> clf.kernel_weights_.shape, bool(clf.score(X, y) > 0.9)
    ((7,), True)
    """

    _renamed_attributes: ClassVar[dict[str, str]] = {"weights_": "kernel_weights_"}

    _parameter_constraints: dict = {
        **{  # the feature map's own parameters, declared once (LowRankFeatures)
            key: LowRankFeatures._parameter_constraints[key]
            for key in (
                "kernels",
                "rank",
                "n_landmarks",
                "method",
                "shared_landmarks",
                "feature_dtype",
                "random_state",
            )
        },
        "p": [Interval(numbers.Real, 1, None, closed="left")],
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "loss": [StrOptions(set(LOSSES))],
        "solver": [StrOptions({"auto", *SVM_SOLVERS})],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "stop": [StrOptions(set(MKL_STOPS))],
        "alpha_scale": [Interval(numbers.Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "weight_tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "mkl_tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "max_outer_iter": [Interval(numbers.Integral, 1, MAX_OUTER_ITER, closed="both")],
        "eta": [Interval(numbers.Real, 0, None, closed="left")],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        **MONITOR_CONSTRAINTS,
    }

    def __init__(
        self,
        kernels: Sequence[Kernel] | None = None,
        rank: int | Sequence[int] | None = None,
        n_landmarks: int | None = None,
        p: float = 2.0,
        C: float = 1.0,
        *,
        loss: str = "squared_hinge",
        method: str = "nystrom",
        solver: str = "auto",
        tol: float = 1e-6,
        stop: str = "mkl_gap",
        alpha_scale: float | str = "auto",
        weight_tol: float = 1e-4,
        mkl_tol: float = 1e-3,
        max_iter: int = 3000,
        max_outer_iter: int = 500,
        eta: float = 0.0,
        class_weight: dict | str | None = None,
        shared_landmarks: bool = False,
        feature_dtype: str | None = None,
        random_state: Any = None,
        callback: Callable[[MKLState], Any] | None = None,
        verbose: int = 0,
    ) -> None:
        self.kernels = kernels
        self.rank = rank
        self.n_landmarks = n_landmarks
        self.p = p
        self.C = C
        self.loss = loss
        self.method = method
        self.solver = solver
        self.tol = tol
        self.stop = stop
        self.alpha_scale = alpha_scale
        self.weight_tol = weight_tol
        self.mkl_tol = mkl_tol
        self.max_iter = max_iter
        self.max_outer_iter = max_outer_iter
        self.eta = eta
        self.class_weight = class_weight
        self.shared_landmarks = shared_landmarks
        self.feature_dtype = feature_dtype
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose

    def fit(self, X: Array, y: Array, sample_weight: Array | None = None) -> LowRankMKLClassifier:
        """Build the low-rank features and learn the kernel weights and the SVM.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)
            Class labels (numbers or strings), at least two classes.
        sample_weight : array of shape (n_samples,) or float, default=None
            Row ``i``'s loss is weighted by ``sample_weight[i]`` times ``class_weight``'s
            weight of its class (its cost is ``C·w_i``; the hinge's ``α_i ≤ C·w_i``). Each
            binary problem needs a positive total weight in both of its classes, and the
            positive weights must lie within a factor 1e10 of each other (beyond it the
            lighter rows' costs are lost in the rounding of the heaviest one's).

        Returns
        -------
        self
        """
        self._validate_params()
        fit = self._prepare(X, y, sample_weight, Cs=(float(self.C),))
        results = self._solve_each(fit)
        self.features_ = fit.feature_map
        self._finish(results, fit)
        return self

    def _prepare(
        self, X: Any, y: Any, sample_weight: Any, *, Cs: Sequence[float], cost_name: str = "C"
    ) -> _Fit:
        """Validate the inputs, build the features and the SVM problem of each binary task
        (one rotation for all: only the labels differ) at cost ``Cs[0]``; every cost of the
        sorted ``Cs`` (the parameter ``cost_name``) is checked against the weights."""
        solver = check_solver(self.solver, self.loss, float(self.eta))
        xp, X, classes, codes = check_classification_X_y(X, y, owner=self, lazy=True)
        run = executor_for(X, xp=xp)
        weights = check_class_sample_weight(
            self.class_weight, sample_weight, X, classes, codes, owner=self
        )
        if weights is not None:
            (weights,) = run.compute(weights)  # n numbers, in memory like the labels
            given = {"sample_weight": sample_weight, "class_weight": self.class_weight}
            names = " and ".join(name for name, value in given.items() if value is not None)
            require_class_totals(to_numpy(weights), codes, classes, names, type(self).__name__)
        dev = device_of(X)
        feature_map = LowRankFeatures(
            self.kernels,
            self.rank,
            self.method,
            n_landmarks=self.n_landmarks,
            shared_landmarks=self.shared_landmarks,
            feature_dtype=self.feature_dtype,
            random_state=self.random_state,
        )
        dtype = feature_map._dtype_of_features(X, xp=xp)  # the SVM problem's
        if weights is not None and weights.dtype != dtype:
            weights = xp.astype(weights, dtype)
        targets = self._sign_targets(codes, classes.shape[0])
        signs = [
            from_host(targets[:, j], xp=xp, device=dev, dtype=dtype)
            for j in range(targets.shape[1])
        ]
        if weights is not None:
            for y_signs in signs:
                check_row_weights(weights, y_signs, name=f"the weights of {names}", xp=xp)
        for C in dict.fromkeys((Cs[0], Cs[-1])):  # the extremes of the sorted grid
            label = cost_name if weights is None else f"{cost_name} and {names}"
            check_costs(C, weights, name=label, dtype=dtype, xp=xp)
        y_csi = signs[0] if self.method == "csi" else None
        feature_map._build_factors(X, y_csi, xp=xp, owner=type(self).__name__)
        # a Dask X's factors, computed on its row chunks in one graph, come into memory here:
        # the SVM's passes run on the n × Σ R_k features in memory
        features = list(run.compute(*(f.G for f in feature_map.factors_)))
        # the training factors live on in the problem only (rotated), not in the fitted model
        feature_map.factors_ = [f._replace(G=None) for f in feature_map.factors_]
        shared = _svm_problem(
            features, signs[0], Cs[0], loss=self.loss, sample_weight=weights, xp=xp
        )
        del features
        problems = [shared._replace(y=y_signs) for y_signs in signs]
        return _Fit(xp, dev, classes, codes, weights, feature_map, problems, solver)

    def _solve_each(self, fit: _Fit) -> list[MKLResult]:
        """The MKL of each binary problem; they share the features and the sample weights, so
        each after the first borrows the first one's Newton Gram (:func:`gram_only`)."""
        results = [self._solve(fit.problems[0], fit)]
        lent = gram_only(results[0].solution.state)
        results += [self._solve(problem, fit, state=lent) for problem in fit.problems[1:]]
        return results

    def _solve(
        self,
        problem: Any,
        fit: _Fit,
        *,
        weights: Any = None,
        state: Any = None,
        mkl_tol: float | None = None,
    ) -> MKLResult:
        """The ℓp-MKL of one binary problem, from ``weights`` and the SVM ``state`` when
        given (a warm start), to ``mkl_tol`` (default: the parameter's)."""
        monitor = self._monitor(
            lambda s: (
                f"update {s.n_iter}: objective {s.objective:.6g}, max |Δd| "
                f"{s.weight_change:.2e}, {s.svm_iterations} SVM iterations"
            )
        )
        return _solve_lp_mkl(
            problem,
            float(self.p),
            solver=fit.solver,
            tol=float(self.tol),
            stop=self.stop,
            alpha_scale=self.alpha_scale,
            weight_tol=float(self.weight_tol),
            mkl_tol=float(self.mkl_tol if mkl_tol is None else mkl_tol),
            max_iter=int(self.max_iter),
            max_outer_iter=int(self.max_outer_iter),
            eta=float(self.eta),
            weights=weights,
            state=state,
            callback=monitor,
            xp=fit.xp,
        )

    def _finish(self, results: list[MKLResult], fit: _Fit) -> None:
        """The fitted attributes from each binary problem's result, and the warning of a fit
        that did not converge."""
        xp = fit.xp
        summaries = []
        for problem, result in zip(fit.problems, results, strict=True):
            coef = problem.feature_weights(result.solution.w, xp=xp)
            gap = _solution_gap(problem, result.weights, result.solution, float(self.eta), xp=xp)
            summaries.append((result, coef, gap))
        self._set_fitted(summaries, fit.classes, xp=xp, device=fit.device)
        reasons = {r.stopped_by for r in results} - {None, "callback"}  # a callback's stop: asked
        if "stalled" in reasons:
            self._warn_not_converged(
                self.n_iter_,
                f"the MKL duality gap stopped shrinking above mkl_tol={self.mkl_tol:g} "
                f"({STALL_UPDATES} updates without shrinking by a tenth): the arithmetic may not "
                "resolve it (C, eta or the data scaled near floating point's limits); a larger "
                "mkl_tol stops there",
            )
        elif reasons == {"max_iter"}:
            self._warn_not_converged(
                self.n_iter_,
                f"the weights settled but the last SVM stopped at max_iter={self.max_iter} "
                "before its tolerance: increase max_iter",
            )
        elif reasons:
            self._warn_not_converged(self.n_iter_, "increase max_outer_iter (or max_iter)")

    def _set_fitted(self, results: list, classes: Any, *, xp: Any, device: Any) -> None:
        binary = len(results) == 1
        stack = (lambda arrays: arrays[0]) if binary else xp.stack
        self.kernel_weights_ = stack([r.weights for r, _, _ in results])
        self.coef_ = stack([coef for _, coef, _ in results])
        self.intercept_ = stack([xp.asarray(r.solution.intercept) for r, _, _ in results])
        objectives = [r.objectives for r, _, _ in results]
        self.objectives_ = objectives[0] if binary else objectives
        self.n_iter_ = max(r.n_iter for r, _, _ in results)
        self.n_svm_iter_ = sum(r.svm_iterations for r, _, _ in results)
        self.duality_gap_ = max(gap for _, _, gap in results)
        self._set_classes(classes, xp=xp, device=device)

    def _decision(self, X: Array, method: str) -> Array:
        """``Σ_k V_k(x) coef_k + intercept_``: the signed distance to the margin."""
        check_is_fitted(self)
        landmarks = self.features_.factors_[0].landmarks  # X's dtype (coef_: the features')
        xp, X = check_predict_X(self, X, like=landmarks, method=method)
        # in X's dtype, by row blocks: float32 features (feature_dtype) are widened a block at a
        # time, so that a row's decision value does not depend on the rows beside it
        coef = _as_dtype(self.coef_, X.dtype, xp=xp)
        intercept = _as_dtype(self.intercept_, X.dtype, xp=xp)
        weights = coef if coef.ndim == 1 else xp.matrix_transpose(coef)

        def scores(rows: Array) -> Array:
            features = _as_dtype(self.features_._transform(rows, xp=xp), X.dtype, xp=xp)
            return features @ weights + intercept

        width = self.features_.n_components_
        tail = () if coef.ndim == 1 else (coef.shape[0],)
        run = executor_for(X, xp=xp, row_work=2 * width)
        return run.map(scores, X, tail=tail, dtype=X.dtype)

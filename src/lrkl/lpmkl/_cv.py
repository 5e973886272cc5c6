"""``LowRankMKLClassifierCV``: :class:`LowRankMKLClassifier` with ``C`` chosen by
cross-validation along a warm-started path."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from lrkl._backend import from_host, to_numpy
from lrkl._model_selection import check_grid, choose_from_grid, fold_mask, folds_by_count
from lrkl._typing import Array
from lrkl.kernels import Kernel
from lrkl.lpmkl._estimator import LowRankMKLClassifier, require_class_totals
from lrkl.lpmkl._mkl import MKLState, stops_on_gap
from lrkl.lpmkl._newton import gram_only
from lrkl.lpmkl._problem import check_row_weights

__all__ = ["LowRankMKLClassifierCV"]

#: The default grid of C: five decades around LowRankMKLClassifier's default C = 1.
CS = (0.1, 1.0, 10.0, 100.0, 1000.0)

#: The relative MKL duality gap to which each fold's fit is solved (``mkl_tol`` where that is
#: looser; ``stop="mkl_gap"`` with a solver that gives the gap, not liblinear): a validation
#: accuracy needs the signs of the decision values, not a certificate of the objective
#: (docs/performance/lpmkl.rst, "Choosing C": the same C, in about 0.7 of the time, on six
#: panel sets).
SELECTION_GAP = 1e-2

#: The path over the sorted ``Cs`` stops after this many successive values whose mean
#: validation accuracy is below the best so far: the large ``C`` it skips are the costly fits.
PATIENCE = 2


class LowRankMKLClassifierCV(LowRankMKLClassifier):
    """:class:`LowRankMKLClassifier` with ``C`` chosen by cross-validation.

    The features depend on ``X`` only (Nyström landmarks drawn from every row, or ICD pivots),
    so they are built once, and each fold is the same SVM problem with its held-out rows
    weighted 0: the folds share the features and their rotation, and within a fold every
    ``C`` shares Newton's Gram. Along the grid, from the smallest ``C`` up, each fold's MKL
    starts from the previous ``C``'s kernel weights and SVM solution (so each fold holds its
    Newton Gram, ``(Σ R_k)²`` numbers, along the path), and under ``stop="mkl_gap"`` is
    solved to a relative MKL duality gap of 1e-2 (or ``mkl_tol`` if looser; liblinear, which
    gives no gap, to ``mkl_tol``), enough to rank the ``C``; the path stops after two
    successive ``C`` whose mean validation accuracy is below the best so far. The validation
    accuracy comes from the decision values the solver computed on every row; the ``C`` of the
    best mean accuracy (the smallest among ties) is refitted on all rows, to ``mkl_tol``. The
    landmarks then have seen the held-out rows' ``X`` (not their labels), as an unsupervised
    preprocessing fitted on all rows would; ``class_weight="balanced"`` is likewise computed
    on all rows, not per fold. ``method="csi"``, whose factors use the labels, is refused.

    Parameters
    ----------
    Cs : sequence of float, default=(0.1, 1, 10, 100, 1000)
        The values of ``C`` to compare (each > 0).
    cv : int, cross-validation generator or iterable, default=3
        scikit-learn's ``cv``; an int means that many stratified folds.

    The other parameters are :class:`LowRankMKLClassifier`'s (without ``C``).

    Attributes
    ----------
    C_ : float
        The chosen ``C``.
    cv_accuracy_ : array of shape (n_Cs, n_folds)
        The validation accuracy of each ``C`` (in increasing order) on each fold, in X's
        namespace and device; NaN for the ``C`` after the path stopped.

    The other attributes are :class:`LowRankMKLClassifier`'s, for the refit at ``C_``.

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import LowRankMKLClassifierCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> y = (X[:, 0] ** 2 + X[:, 1] ** 2 > 1.4).astype(int)
    >>> clf = LowRankMKLClassifierCV(rank=30, random_state=0).fit(X, y)
    >>> clf.cv_accuracy_.shape, bool(clf.score(X, y) > 0.9)
    ((5, 3), True)
    """

    _parameter_constraints: dict = {
        **{k: v for k, v in LowRankMKLClassifier._parameter_constraints.items() if k != "C"},
        "Cs": ["array-like"],
        "cv": ["cv_object"],
    }

    def __init__(
        self,
        kernels: Sequence[Kernel] | None = None,
        rank: int | Sequence[int] | None = None,
        n_landmarks: int | None = None,
        p: float = 2.0,
        *,
        Cs: Sequence[float] = CS,
        cv: Any = 3,
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
        self.Cs = Cs
        self.cv = cv

    def fit(self, X: Array, y: Array, sample_weight: Array | None = None) -> LowRankMKLClassifierCV:
        """Build the features once, score each ``C`` of ``Cs`` on the folds, and refit the
        best on all rows.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,)
            Class labels (numbers or strings), at least two classes.
        sample_weight : array of shape (n_samples,) or float, default=None
            As for :meth:`LowRankMKLClassifier.fit`; the validation accuracy is unweighted.

        Returns
        -------
        self
        """
        self._validate_params()
        Cs = tuple(sorted(check_grid(self.Cs, name="Cs")))
        if self.method == "csi":
            msg = (
                "LowRankMKLClassifierCV takes method in ('nystrom', 'icd'), received "
                "method='csi', whose factors use the labels of the rows the folds hold out"
            )
            raise ValueError(msg)
        fit = self._prepare(X, y, sample_weight, Cs=Cs, cost_name="Cs")
        xp = fit.xp
        n = fit.codes.shape[0]
        folds = folds_by_count(self.cv, n, fit.codes, classifier=True)
        like = fit.problems[0].y
        fold_weights = []
        for f, (train, _) in enumerate(folds):
            weights = fold_mask(train, like, xp=xp)
            if fit.weights is not None:
                weights = weights * fit.weights
            name = f"fold {f}'s training rows (give cv fewer folds)"
            require_class_totals(
                to_numpy(weights), fit.codes, fit.classes, name, type(self).__name__
            )
            for problem in fit.problems:  # and each binary task's weights within their span
                check_row_weights(weights, problem.y, name=name, xp=xp)
            fold_weights.append(weights)
        fold_tol = float(self.mkl_tol)
        if stops_on_gap(self.stop, fit.solver):
            fold_tol = max(fold_tol, SELECTION_GAP)
        accuracy = np.full((len(Cs), len(folds)), np.nan)
        # each fold's (weights, SVM state) per binary problem, warm-starting the next C
        starts: list[list[Any]] = [[(None, None)] * len(fit.problems) for _ in folds]
        below = 0  # successive Cs whose mean accuracy is below the best so far
        unconverged: dict[str, int] = {}  # fold fits that stopped before their rule, by why
        for i, C in enumerate(Cs):  # smallest C first
            for f, (_, test) in enumerate(folds):
                decisions = []
                for k, problem in enumerate(fit.problems):
                    d, state = starts[f][k]
                    if i == 0 and k > 0:  # one Gram per fold (same rows and weights)
                        state = gram_only(starts[f][0][1])
                    fold_problem = problem._replace(C=C, sample_weight=fold_weights[f])
                    result = self._solve(
                        fold_problem, fit, weights=d, state=state, mkl_tol=fold_tol
                    )
                    starts[f][k] = (result.weights, result.solution.state)
                    if result.stopped_by not in (None, "callback"):
                        unconverged[result.stopped_by] = unconverged.get(result.stopped_by, 0) + 1
                    decisions.append(to_numpy(result.solution.decision + result.solution.intercept))
                accuracy[i, f] = _accuracy(decisions, fit.codes, test)
            # the mean validation errors as choose_from_grid takes them (ties are exact)
            errors = [math.fsum(1.0 - a for a in row) / len(folds) for row in accuracy[: i + 1]]
            below = below + 1 if errors[i] > min(errors) else 0
            if below == PATIENCE:
                break
        visited = i + 1
        if unconverged:
            fits = visited * len(folds) * len(fit.problems)
            why = ", ".join(f"{count} by {reason}" for reason, count in unconverged.items())
            msg = (
                f"{type(self).__name__}: {sum(unconverged.values())} of the {fits} fold fits "
                f"stopped before their rule held ({why}); their validation accuracies may rank "
                "C wrongly: raise max_outer_iter (or max_iter)"
            )
            warnings.warn(msg, ConvergenceWarning, stacklevel=2)
        best, _ = choose_from_grid(
            type(self).__name__,
            "C",
            Cs[:visited],
            [[1.0 - accuracy[i, f] for i in range(visited)] for f in range(len(folds))],
            top="the weakest regularisation",
            advice="pass Cs",
            searched=Cs,
        )
        fit = fit._replace(problems=[problem._replace(C=best) for problem in fit.problems])
        results = self._solve_each(fit)
        self.features_ = fit.feature_map
        self._finish(results, fit)
        self.C_ = best
        self.cv_accuracy_ = from_host(accuracy, xp=xp, device=fit.device)  # X's namespace
        return self


def _accuracy(decisions: list[Any], codes: Any, rows: Any) -> float:
    """The share of ``rows`` whose class (``codes``) the decision values give: the sign of the
    one binary decision, else the class of the largest."""
    if len(decisions) == 1:
        predicted = (decisions[0][rows] > 0).astype(int)
    else:
        predicted = np.argmax(np.stack([d[rows] for d in decisions], axis=1), axis=1)
    return float(np.mean(predicted == codes[rows]))

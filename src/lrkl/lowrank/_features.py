"""Low-rank features of several kernels: one factor per kernel, stacked (a transformer)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from lrkl._backend import host_namespace
from lrkl._base import LRKLTransformer
from lrkl._executor import executor_for, rowwise
from lrkl._typing import Array
from lrkl._validation import (
    Interval,
    StrOptions,
    check_predict_X,
    check_X,
    check_X_y,
    clip_to_samples,
)
from lrkl.kernels import Gaussian, Kernel, check_kernels
from lrkl.lowrank._csi import _csi
from lrkl.lowrank._factor import LowRankFactor
from lrkl.lowrank._icd import _icd
from lrkl.lowrank._nystrom import _nystrom, _nystrom_gaussians, _transform_gaussians

__all__ = ["LowRankFeatures"]


METHODS = ("icd", "csi", "nystrom")

#: The default rank per kernel (fewer when there are fewer samples).
DEFAULT_RANK = 100


def per_kernel_ranks(
    rank: int | Sequence[int] | None, p: int, n: int, *, owner: str, name: str = "rank"
) -> list[int]:
    """One rank per kernel from an int (shared) or a sequence (one per kernel), each ≥ 1; a
    rank above n_samples is clipped to it with a warning."""
    if rank is None:
        return [min(n, DEFAULT_RANK)] * p
    ranks = [rank] * p if isinstance(rank, numbers.Integral) else list(rank)
    if len(ranks) != p:
        msg = f"{name} must be an integer or hold one rank per kernel ({p}), received {rank!r}"
        raise ValueError(msg)
    for r in ranks:
        if isinstance(r, bool) or not isinstance(r, numbers.Integral) or r < 1:
            msg = f"{name} must hold integers >= 1 (one per kernel), received {rank!r}"
            raise ValueError(msg)
    return [clip_to_samples(r, n, name=name, owner=owner) for r in ranks]


class LowRankFeatures(LRKLTransformer):
    """Stacked low-rank features ``[G_1, …, G_p]`` of several kernels, with ``transform`` for new
    rows.

    Each kernel ``q`` is approximated on its own by a rank-``r_q`` factor ``G_q`` (n × r_q,
    ``G_q G_qᵀ ≈ K_q``) — pivoted incomplete Cholesky, Cholesky with side information or Nyström
    (:mod:`lrkl.lowrank`) — and the features of a point are its rows of the factors, side by
    side, in kernel order and unweighted. New points get the factors' out-of-sample features
    (``L⁻¹ k(S, x)`` for ICD and CSI, ``projectionᵀ k(S, x)`` for Nyström). The kernel matrices
    are never formed. ICD takes all kernels in one pass per pivot; the Nyström factors of
    several Gaussian kernels are made (and new points mapped) in one pass over the rows, each
    row block's distances to every kernel's landmarks taken by one GEMM
    (:func:`lrkl.lowrank._nystrom.gaussian_blocks`).

    Parameters
    ----------
    kernels : list of Kernel, default=None
        The kernels (Kernel objects or names such as ``"rbf"``); ``None`` means seven Gaussian
        kernels ``γ₀·2⁻³, …, γ₀·2³`` around the width ``γ₀`` of ``Gaussian(gamma="scale")``
        (:func:`lrkl.kernels.Kernel.resolve`).
    rank : int, list of int or None, default=None
        Rank per kernel (one for all, or one per kernel), at most ``n_samples`` (Nyström: at
        most ``n_landmarks``); ``None`` means min(n_samples, 100). ICD and CSI may return
        fewer columns when a kernel's residual runs out.
    method : {"icd", "csi", "nystrom"}, default="icd"
        The approximation. CSI uses the targets and needs ``y`` in ``fit``.
    n_landmarks : int, default=None
        Nyström only: the number of uniformly drawn landmarks ``m ≥ rank``; ``None`` means
        ``m = rank`` and the full form ``K[:, S] W^{−1/2}``, otherwise the rank-``R`` form
        ``V = C U_R D_R^{−1/2}`` of the top ``R`` eigenpairs of ``W = K[S, S]``.
    lookahead : int, default=10
        CSI: look-ahead columns ``δ``.
    kappa : float, default=0.99
        CSI: trade-off between the kernel (0) and the targets (1).
    gain_tol : float, default=0.0
        CSI: stop a kernel's decomposition after a column of smaller exact gain.
    tol : float, default=1e-10
        ICD and CSI: stop when the residual diagonal is at most ``tol`` everywhere. The first
        column is always taken: a ``tol`` at or above a kernel's largest diagonal gives it
        one column (the largest pivot), not none; only a kernel whose diagonal is zero on the
        training rows gives no column.
    shared_landmarks : bool, default=True
        Nyström: one set of landmarks for all kernels (the first ``m`` entries of one random
        permutation of the rows), or, with False, each kernel its own (the first ``m`` of its
        own permutation, drawn in kernel order from the same seed). At equal rank, own
        landmarks make the kernels' features span more of the data: with ten Gaussian widths
        and rank 100 on 10⁵ rows they gave :class:`lrkl.LowRankMKLClassifier` 0.871 test
        accuracy where shared ones gave 0.815 (:ref:`performance-lpmkl-landmarks`), at the same
        cost.
    feature_dtype : {None, "float32"}, default=None
        The dtype the features are stored and returned in: ``None``, X's; ``"float32"``, float32
        whatever X's (half the memory of float64 features). Each row block's kernel values and
        their product with the Nyström projection are computed in float64 and only the result
        rounded, so the features are float64's rounded to float32 (ICD and CSI: the factor is
        rounded once it is complete).
    random_state : int, RandomState or None, default=None
        Nyström: seed of the landmarks.

    Attributes
    ----------
    factors_ : list of lrkl.lowrank.LowRankFactor
        One factor per kernel.
    rank_ : tuple of int
        Number of columns of each kernel's factor.
    n_components_ : int
        ``sum(rank_)``, the number of features.
    kernels_ : list of Kernel
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl.kernels import Gaussian, Linear
    >>> from lrkl.lowrank import LowRankFeatures
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> features = LowRankFeatures([Linear(), Gaussian(gamma=0.5)], rank=10).fit(X)
    >>> features.rank_, features.transform(X[:5]).shape
    ((3, 10), (5, 13))
    """

    _parameter_constraints: dict = {
        "kernels": [list, tuple, None],
        "rank": [Interval(numbers.Integral, 1, None, closed="left"), list, tuple, None],
        "method": [StrOptions(set(METHODS))],
        "n_landmarks": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "lookahead": [Interval(numbers.Integral, 0, None, closed="left")],
        "kappa": [Interval(numbers.Real, 0, 1, closed="both")],
        "gain_tol": [Interval(numbers.Real, 0, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "shared_landmarks": ["boolean"],
        "feature_dtype": [StrOptions({"float32"}), None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        kernels: Sequence[Kernel] | None = None,
        rank: int | Sequence[int] | None = None,
        method: str = "icd",
        *,
        n_landmarks: int | None = None,
        lookahead: int = 10,
        kappa: float = 0.99,
        gain_tol: float = 0.0,
        tol: float = 1e-10,
        shared_landmarks: bool = True,
        feature_dtype: str | None = None,
        random_state: Any = None,
    ) -> None:
        self.kernels = kernels
        self.rank = rank
        self.method = method
        self.n_landmarks = n_landmarks
        self.lookahead = lookahead
        self.kappa = kappa
        self.gain_tol = gain_tol
        self.tol = tol
        self.shared_landmarks = shared_landmarks
        self.feature_dtype = feature_dtype
        self.random_state = random_state

    def fit(self, X: Array, y: Array | None = None) -> LowRankFeatures:
        """Build one factor per kernel on the rows of ``X``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_targets), default=None
            Required by ``method="csi"``, ignored otherwise.

        Returns
        -------
        self : LowRankFeatures
        """
        self._fit(X, y)
        return self

    def fit_transform(self, X: Array, y: Array | None = None, **fit_params: Any) -> Array:
        """Fit and return the stacked training factors ``[G_1, …, G_p]`` (no second pass).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_targets), default=None

        Returns
        -------
        array of shape ``(n_samples, n_components_)``
        """
        return self._fit(X, y)

    def _fit(self, X: Array, y: Array | None) -> Array:
        """Validate ``X`` (and ``y`` for CSI) and :meth:`_build`; the stacked factors."""
        self._validate_params()
        if self.method == "csi":
            xp, X, y = check_X_y(X, y, owner=self, multi_output=True, lazy=True)
        else:
            xp, X = check_X(X, owner=self, lazy=True)
            if y is not None:  # ignored, but a y of other rows is a mistake in the caller's data
                _check_y_rows(y, X.shape[0])
        return self._build(X, y, xp=xp)

    def _build(
        self,
        X: Array,
        y: Array | None,
        *,
        xp: ModuleType,
        owner: str | None = None,
        landmarks: list[int] | None = None,
    ) -> Array:
        """Fit on a validated ``X`` (and ``y`` for CSI; the caller's door checked both, and
        the parameters): the core that the estimators composing this feature map call, whose
        name (``owner``) the warnings of a clipped rank or ``n_landmarks`` then carry; Nyström
        on the rows ``landmarks`` (distinct, at least ``max(rank)``) when given, instead of
        ``random_state``'s. Returns the stacked training factors ``[G_1, …, G_p]``."""
        self._build_factors(X, y, xp=xp, owner=owner, landmarks=landmarks)
        parts = [f.G for f in self.factors_]
        return executor_for(parts[0], xp=xp).concat_columns(parts)

    def _build_factors(
        self,
        X: Array,
        y: Array | None,
        *,
        xp: ModuleType,
        owner: str | None = None,
        landmarks: list[int] | None = None,
    ) -> None:
        """:meth:`_build` without stacking the factors (each is ``factors_[q].G``): for the
        callers that use them one by one, which the ``n × Σ r_q`` copy would only cost."""
        owner = type(self).__name__ if owner is None else owner
        kernels = check_kernels(self.kernels, X)
        n = X.shape[0]
        ranks = per_kernel_ranks(self.rank, len(kernels), n, owner=owner)
        orders = [landmarks]  # each kernel's landmarks: orders[q % len(orders)]
        if self.method == "nystrom" and landmarks is not None:
            ranks = [min(r, len(landmarks)) for r in ranks]
        elif self.method == "nystrom":
            m = max(ranks)
            if self.n_landmarks is not None:
                m = clip_to_samples(self.n_landmarks, n, name="n_landmarks", owner=owner)
            if m < max(ranks):
                msg = (
                    f"n_landmarks must be an integer between max(rank)={max(ranks)} and "
                    f"n_samples={n}, received {self.n_landmarks!r}"
                )
                raise ValueError(msg)
            draw = check_random_state(self.random_state)
            orders = [
                [int(i) for i in draw.permutation(n)]
                for _ in range(1 if self.shared_landmarks else len(kernels))
            ]
            if self.n_landmarks is not None:
                orders = [order[:m] for order in orders]
        # At most n pivots exist, so look-ahead columns past n would be zero: clipping changes
        # nothing but the n_steps × n allocation (no warning, unlike a clipped rank).
        lookahead = min(int(self.lookahead), n)
        if self.method == "icd":  # all kernels in one pass per pivot
            factors = _icd(kernels, X, ranks, self.tol, xp=xp)
        elif self.method == "nystrom" and _gaussian_set(kernels):
            # every kernel's distances in one GEMM per row block
            chosen = [orders[q % len(orders)] for q in range(len(kernels))]
            rank_of: list[int | None] = list(ranks)
            if self.n_landmarks is None:  # the full form: the first rank rows
                chosen = [rows[:r] for rows, r in zip(chosen, ranks, strict=True)]
                rank_of = [None] * len(ranks)
            dtype = self._dtype_of_features(X, xp=xp)
            factors = _nystrom_gaussians(kernels, X, chosen, rank_of, xp=xp, dtype=dtype)
        else:
            factors = [
                self._factor(kernel, X, y, r, orders[q % len(orders)], self.tol, lookahead, xp=xp)
                for q, (kernel, r) in enumerate(zip(kernels, ranks, strict=True))
            ]
        # A tol at or above a kernel's largest diagonal stops its factor before the first
        # column: take that column anyway (the first pivot always), so that every kernel with
        # a nonzero diagonal gives a feature.
        for q, factor in enumerate(factors):
            if factor.rank == 0 and self.tol > 0 and self.method != "nystrom":
                factors[q] = self._factor(kernels[q], X, y, 1, landmarks, 0.0, lookahead, xp=xp)
        dtype = self._dtype_of_features(X, xp=xp)
        for q, factor in enumerate(factors):  # Nyström's are made in it already
            if factor.G is not None and factor.G.dtype != dtype:
                factors[q] = factor._replace(G=xp.astype(factor.G, dtype))
        self.factors_ = factors
        self.rank_ = tuple(f.rank for f in self.factors_)
        self.n_components_ = sum(self.rank_)
        self.kernels_ = kernels
        self.n_features_in_ = X.shape[1]

    def _factor(
        self,
        kernel: Kernel,
        X: Array,
        y: Array | None,
        r: int,
        order: list[int] | None,
        tol: float,
        lookahead: int,
        *,
        xp: Any,
    ) -> LowRankFactor:
        # X, y, the kernel and every option are validated by fit: the factorisations' cores
        if self.method == "icd":
            return _icd([kernel], X, [r], tol, xp=xp)[0]
        if self.method == "csi":
            centering = True  # csi's default: the estimators fit an intercept
            options = (float(self.kappa), lookahead, centering, tol, float(self.gain_tol))
            return _csi(kernel, X, y, r, *options, xp=xp)
        dtype = self._dtype_of_features(X, xp=xp)
        if self.n_landmarks is None:
            return _nystrom(kernel, X, order[:r], None, xp=xp, dtype=dtype)
        return _nystrom(kernel, X, order, r, xp=xp, dtype=dtype)  # n_landmarks (clipped) rows

    def _dtype_of_features(self, X: Array, *, xp: ModuleType) -> Any:
        """The dtype the features of ``X`` are stored in (``feature_dtype``)."""
        return X.dtype if self.feature_dtype is None else xp.float32

    def _keep_model_in(self, dtype: Any, *, xp: ModuleType) -> None:
        """The fitted factors in ``dtype``, the input's, after a fit computed in a wider one
        (:func:`lrkl._backend.widened`): the features then cost and answer as that dtype."""
        self.factors_ = [factor._astype(dtype, xp=xp) for factor in self.factors_]

    @rowwise
    def transform(self, X: Array) -> Array:
        """The stacked out-of-sample features ``[g_1(x), …, g_p(x)]`` of the rows of ``X``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape ``(n_samples, n_components_)``
            On the training rows, the stacked factors (up to round-off).
        """
        check_is_fitted(self)
        xp, X = check_predict_X(self, X, like=self.factors_[0].landmarks, method="transform")
        return self._transform(X, xp=xp)

    def _transform(self, X: Array, *, xp: ModuleType) -> Array:
        """:meth:`transform` of a validated ``X``."""
        dtype = self._dtype_of_features(X, xp=xp)
        if self.method == "nystrom" and _gaussian_factors(self.factors_):
            return _transform_gaussians(self.factors_, X, dtype, xp=xp)  # one GEMM per block
        return xp.concat([f._transform(X, xp=xp, dtype=dtype) for f in self.factors_], axis=1)


def _gaussian_factors(factors: list[LowRankFactor]) -> bool:
    """Whether ``factors`` are Nyström factors of a :func:`_gaussian_set`, whose new points'
    distances are taken in one GEMM (:func:`_transform_gaussians`)."""
    nystrom = all(f.projection is not None for f in factors)
    return nystrom and _gaussian_set([f.kernel for f in factors])


def _gaussian_set(kernels: list[Kernel]) -> bool:
    """Several Gaussian kernels whose widths span at most :data:`FUSED_SPAN` (their distances
    are scaled from the largest width's: past that the smaller widths' blocks would come from a
    capped far-path scaling)."""
    if len(kernels) < 2 or not all(type(k) is Gaussian for k in kernels):
        return False
    gammas = [float(k.gamma) for k in kernels]
    return max(gammas) <= FUSED_SPAN * min(gammas)


#: The largest ratio of Gaussian widths whose factors share one distance pass.
FUSED_SPAN = 2.0**40


def draws_by_leverage(centers: str, method: str) -> bool:
    """Whether an estimator's ``centers`` ask for Nyström centres drawn by ridge leverage
    (:mod:`lrkl.kernel_ridge._leverage`), which only ``method="nystrom"`` has."""
    if centers == "leverage" and method != "nystrom":
        msg = (
            f"centers='leverage' draws Nyström centres and needs method='nystrom', received "
            f"method={method!r}: use centers='uniform' (the pivots of {method!r} are chosen by "
            "the method)"
        )
        raise ValueError(msg)
    return centers == "leverage"


def has_centres(method: str) -> bool:
    """Whether the features of ``method`` come from centres drawn before the kernel is seen
    (Nyström's uniform landmarks), as a kernel expansion on them (the pcg solver) needs: the
    pivots of ICD and CSI are chosen by the decomposition itself."""
    return method == "nystrom"


def _check_y_rows(y: Any, n: int) -> None:
    """Refuse a ``y`` (ignored by the method, so possibly class labels of any type) whose
    number of rows is not ``n``: only its length is read, as scikit-learn's transformers do."""
    shape = getattr(y, "shape", None)
    rows = shape[0] if shape is not None and len(shape) > 0 else None
    if rows is None:
        try:
            rows = len(y) if hasattr(y, "__len__") else host_namespace().asarray(y).shape[0]
        except (TypeError, ValueError, IndexError):
            msg = (
                f"y must be an array-like with one entry per row of X, received {type(y).__name__}"
            )
            raise TypeError(msg) from None
    if rows != n:
        msg = f"y must have one entry per row of X ({n}), received {rows}"
        raise ValueError(msg)

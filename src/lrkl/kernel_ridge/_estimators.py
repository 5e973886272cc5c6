"""The low-rank and alignment peers of Mklaren as scikit-learn regressors (MKLAREN.md §9–§10).

- :class:`LowRankRidge`: ridge regression on the stacked ICD, CSI or Nyström factors of several
  kernels (a rank per kernel), the paper's ``RidgeLowRank``; new points are mapped to the factors
  by :meth:`lrkl.lowrank.LowRankFactor.transform`;
- :class:`UniformKernelRidge`: exact kernel ridge regression on the sum of the kernels (the
  paper's "uniform"; forms ``n × n``);
- :class:`AlignmentKernelRidge`: centred-alignment MKL, align / alignf / alignfc (Cortes, Mohri &
  Rostamizadeh 2012), then exact kernel ridge regression on the weighted kernel (forms
  ``p`` matrices of ``n × n``).

Every estimator takes arrays of any array-API library and returns results of the same library
on the same device; the numerical work lives in :mod:`lrkl.lowrank` and in the small private
functions below.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from lrkl import lowrank
from lrkl._backend import device_of, get_namespace
from lrkl._linalg import lstsq, solve
from lrkl._validation import check_kernels, check_predict_X, check_X_y
from lrkl.alignment._weights import alignment_weights
from lrkl.kernels import DEFAULT_MAX_ENTRIES, Kernel, row_slices
from lrkl.lowrank._factor import _as_dtype

__all__ = ["AlignmentKernelRidge", "LowRankRidge", "UniformKernelRidge"]

Array = Any

LOWRANK_METHODS = ("icd", "csi", "nystrom")
ALIGNMENT_METHODS = ("align", "alignf", "alignfc")


# --------------------------------------------------------------------------- shared numerics


def _ridge(
    Z: Array,  # shape: (n, R)
    y: Array,  # shape: (n,) or (n, t)
    alpha: float,
    fit_intercept: bool,
    *,
    xp: ModuleType,
) -> tuple[Array, Array]:
    """``argmin ‖y − b − Z w‖² + α‖w‖²`` with the intercept ``b`` unpenalised (MKLAREN.md §9).

    Centring ``Z`` and ``y`` removes ``b``; then ``(Z_cᵀ Z_c + α I) w = Z_cᵀ y_c`` (a Cholesky
    solve, ``O(n R² + R³)``) or, for ``α = 0``, the minimum-norm least-squares solution.
    """
    if fit_intercept:
        z_mean, y_mean = xp.mean(Z, axis=0), xp.mean(y, axis=0)
        Z, y = Z - z_mean, y - y_mean
    if alpha > 0:
        R = Z.shape[1]
        gram = xp.matrix_transpose(Z) @ Z + alpha * xp.eye(R, dtype=Z.dtype, device=device_of(Z))
        coef = solve(gram, xp.matrix_transpose(Z) @ y, xp=xp, assume_a="pos")
    else:
        coef = lstsq(Z, y, xp=xp)
    if not fit_intercept:
        return coef, xp.zeros(y.shape[1:], dtype=Z.dtype, device=device_of(Z))
    # xp.asarray: NumPy turns 0-d results into scalars, which carry no namespace.
    return coef, xp.asarray(y_mean - z_mean @ coef, device=device_of(Z))


def _kernel_ridge(
    K: Array,  # shape: (n, n), symmetric
    y: Array,  # shape: (n,) or (n, t)
    alpha: float,
    fit_intercept: bool,
    positive: bool,
    *,
    xp: ModuleType,
) -> tuple[Array, Array]:
    """Dual coefficients and intercept of kernel ridge regression, ``(K + αI) c + b 1 = y``.

    With an unpenalised intercept the dual also satisfies ``1ᵀ c = 0`` (the bordered system of
    Prato & Zanni's eq. 7): with ``A = K + αI``, ``b = 1ᵀA⁻¹y / 1ᵀA⁻¹1`` and
    ``c = A⁻¹(y − b 1)``, one factorisation and ``t + 1`` right-hand sides. ``positive`` says
    that ``A`` is positive definite (Cholesky); otherwise a general solve (alignf's weights may
    be negative).
    """
    n = K.shape[0]
    A = K + alpha * xp.eye(n, dtype=K.dtype, device=device_of(K))
    Y = y[:, None] if y.ndim == 1 else y
    assume = "pos" if positive else "gen"
    if not fit_intercept:
        dual = solve(A, Y, xp=xp, assume_a=assume)
        intercept = xp.zeros(Y.shape[1], dtype=K.dtype, device=device_of(K))
    else:
        ones = xp.ones((n, 1), dtype=K.dtype, device=device_of(K))
        sol = solve(A, xp.concat([Y, ones], axis=1), xp=xp, assume_a=assume)
        u, v = sol[:, :-1], sol[:, -1]
        intercept = xp.sum(u, axis=0) / xp.sum(v)
        dual = u - v[:, None] * intercept[None, :]
    if y.ndim == 1:
        return dual[:, 0], xp.asarray(intercept[0], device=device_of(K))
    return dual, intercept


class _Centring:
    """Training statistics that centre a kernel in feature space: ``P K P`` and its test rows.

    ``K_c(x, x_j) = k(x, x_j) − mean_l k(x, x_l) − mean_i K_ij + mean K``.
    """

    def __init__(self, K: Array, *, xp: ModuleType) -> None:
        self.column_means = xp.mean(K, axis=0)  # shape: (n,)
        self.grand_mean = xp.mean(self.column_means)

    def train(self, K: Array, *, xp: ModuleType) -> Array:
        row_means = self.column_means  # K is symmetric
        return K - row_means[:, None] - self.column_means[None, :] + self.grand_mean

    def test(self, block: Array, *, xp: ModuleType) -> Array:
        row_means = xp.mean(block, axis=1)
        return block - row_means[:, None] - self.column_means[None, :] + self.grand_mean


# --------------------------------------------------------------------------- validation


class _Regressor(RegressorMixin, BaseEstimator):
    """Tags, kernel checks and the validation of ``predict``'s input, shared by the three."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.array_api_support = True
        tags.input_tags.allow_nan = False
        tags.target_tags.single_output = True
        tags.target_tags.multi_output = True
        return tags


# --------------------------------------------------------------------------- ridge on factors


class LowRankRidge(_Regressor):
    """Ridge regression on the low-rank factors of several kernels (``RidgeLowRank``).

    Each kernel ``q`` is approximated on its own by ``G_q`` (n × r) — pivoted incomplete
    Cholesky, Cholesky with side information or Nyström (:mod:`lrkl.lowrank`) — and a ridge
    regression with an unpenalised intercept is fitted on ``[G_1, …, G_p]`` (neither centred
    per kernel nor normalised, as the paper's comparison does). New points get the factors'
    out-of-sample features. The kernel matrices are never formed: ``O(n p r²)`` for ICD,
    ``O(n p r (r + δ)²)``-ish for CSI and ``O(n p r²)`` plus ``O(p r³)`` for Nyström, then
    ``O(n (p r)²)`` for the ridge.

    Parameters
    ----------
    kernels : list of Kernel, default=None
        The kernels; ``None`` means the seven Gaussian kernels ``θ = 2⁻³, …, 2³`` of the Mklaren
        paper.
    rank : int or list of int, default=6
        Rank ``r`` per kernel (one for all, or one per kernel), ``1 ≤ r ≤ n_samples``. ICD and
        CSI may return fewer columns when a kernel's residual runs out.
    method : {"icd", "csi", "nystrom"}, default="icd"
        The approximation.
    alpha : float, default=1.0
        Ridge penalty ``λ ≥ 0`` (``0``: minimum-norm least squares).
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
        ICD and CSI: stop when the residual diagonal is at most ``tol`` everywhere.
    random_state : int, RandomState or None, default=None
        Nyström: seed of the landmarks, the first ``r`` entries of one random permutation of
        the rows, **shared by all kernels** (``random_state=42`` gives the landmarks of the
        paper's experiments).

    Attributes
    ----------
    factors_ : list of lrkl.lowrank.LowRankFactor
        One factor per kernel, with its pivots or landmarks and out-of-sample map.
    rank_ : tuple of int
        Number of columns of each kernel's factor.
    coef_ : array of shape ``(sum(rank_),)`` or ``(sum(rank_), n_targets)``
        Ridge coefficients of the stacked features.
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
    >>> model = LowRankRidge([Linear(), Gaussian(gamma=0.5)], rank=10, alpha=1e-3).fit(X, y)
    >>> model.rank_
    (3, 10)
    >>> bool(model.score(X, y) > 0.95)
    True
    """

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn's convention)
        "kernels": [list, tuple, None],
        "rank": [Interval(numbers.Integral, 1, None, closed="left"), list, tuple],
        "method": [StrOptions(set(LOWRANK_METHODS))],
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "lookahead": [Interval(numbers.Integral, 0, None, closed="left")],
        "kappa": [Interval(numbers.Real, 0, 1, closed="both")],
        "gain_tol": [Interval(numbers.Real, 0, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        kernels: Sequence[Kernel] | None = None,
        rank: int | Sequence[int] = 6,
        method: str = "icd",
        alpha: float = 1.0,
        *,
        fit_intercept: bool = True,
        lookahead: int = 10,
        kappa: float = 0.99,
        gain_tol: float = 0.0,
        tol: float = 1e-10,
        random_state: Any = None,
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

    def _ranks(self, p: int, n: int) -> list[int]:
        ranks = [self.rank] * p if isinstance(self.rank, numbers.Integral) else list(self.rank)
        if len(ranks) != p:
            msg = (
                f"rank must be an integer or hold one rank per kernel ({p}), received {self.rank!r}"
            )
            raise ValueError(msg)
        for r in ranks:
            if isinstance(r, bool) or not isinstance(r, numbers.Integral) or not 1 <= r <= n:
                msg = (
                    f"rank must be an integer between 1 and n_samples={n} (per kernel), "
                    f"received {self.rank!r}"
                )
                raise ValueError(msg)
        return [int(r) for r in ranks]

    def fit(self, X: Array, y: Array) -> LowRankRidge:
        """Approximate each kernel and fit the ridge regression on the stacked factors.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_targets)

        Returns
        -------
        self : LowRankRidge
        """
        self._validate_params()
        kernels = check_kernels(self.kernels)
        xp, X, y = check_X_y(X, y, owner=type(self).__name__, multi_output=True)
        n = X.shape[0]
        ranks = self._ranks(len(kernels), n)
        if self.method == "nystrom":
            order = [int(i) for i in check_random_state(self.random_state).permutation(n)]
        factors = []
        for kernel, r in zip(kernels, ranks, strict=True):
            if self.method == "icd":
                f = lowrank.icd(kernel, X, r, tol=self.tol)
            elif self.method == "csi":
                f = lowrank.csi(
                    kernel,
                    X,
                    y,
                    r,
                    kappa=self.kappa,
                    lookahead=int(self.lookahead),
                    tol=self.tol,
                    gain_tol=self.gain_tol,
                )
            else:
                f = lowrank.nystrom(kernel, X, r, landmarks=order[:r])
            factors.append(f)
        Z = xp.concat([f.G for f in factors], axis=1)
        self.coef_, self.intercept_ = _ridge(Z, y, float(self.alpha), self.fit_intercept, xp=xp)
        self.factors_ = factors
        self.rank_ = tuple(f.rank for f in factors)
        self.kernels_ = kernels
        self.n_features_in_ = X.shape[1]
        return self

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
        xp, X = check_predict_X(self, X, like="intercept_")
        return xp.concat([f.transform(X) for f in self.factors_], axis=1)

    def predict(self, X: Array) -> Array:
        """Predict targets for the rows of ``X`` (same namespace and device as ``X``).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples,) or (n_samples, n_targets)
        """
        return self.features(X) @ self.coef_ + self.intercept_


# --------------------------------------------------------------------------- full kernels


class _CombinedKernelRidge(_Regressor):
    """Exact kernel ridge regression on ``Σ_q η_q K_q`` (``K_q`` centred when ``_centred``)."""

    _block_entries = DEFAULT_MAX_ENTRIES

    def _weights(self, Ks: list[Array], y: Array, *, xp: ModuleType) -> tuple[Array, bool]:
        raise NotImplementedError

    def fit(self, X: Array, y: Array):
        """Weigh the kernels and fit kernel ridge regression on their combination.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)
        y : array of shape (n_samples,) or (n_samples, n_targets)

        Returns
        -------
        self
        """
        self._validate_params()
        kernels = check_kernels(self.kernels)
        xp, X, y = check_X_y(X, y, owner=type(self).__name__, multi_output=True)
        Ks = [_as_dtype(kernel._evaluate(X, X, xp=xp), X.dtype, xp=xp) for kernel in kernels]
        weights, centred = self._weights(Ks, y, xp=xp)
        centring = [_Centring(K, xp=xp) for K in Ks] if centred else None
        combined = xp.zeros_like(Ks[0])
        for q, K in enumerate(Ks):
            combined = combined + weights[q] * (centring[q].train(K, xp=xp) if centred else K)
        del Ks
        positive = not centred or bool(xp.all(weights >= 0))
        self.dual_coef_, self.intercept_ = _kernel_ridge(
            combined, y, float(self.alpha), self.fit_intercept, positive, xp=xp
        )
        self.kernel_weights_ = weights
        self.centring_ = centring
        self.X_fit_ = X
        self.kernels_ = kernels
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X: Array) -> Array:
        """Predict ``Σ_q η_q k_q(x, X_fit) · dual_coef_ + intercept_``, in blocks of rows.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples,) or (n_samples, n_targets)
        """
        xp, X = check_predict_X(self, X, like="intercept_")
        n = self.X_fit_.shape[0]
        out_shape = (X.shape[0], *tuple(self.dual_coef_.shape[1:]))
        out = xp.zeros(out_shape, dtype=self.dual_coef_.dtype, device=device_of(X))
        for rows in row_slices(X.shape[0], n, self._block_entries):
            block = xp.zeros((rows.stop - rows.start, n), dtype=X.dtype, device=device_of(X))
            for q, kernel in enumerate(self.kernels_):
                part = _as_dtype(kernel._evaluate(X[rows, ...], self.X_fit_, xp=xp), X.dtype, xp=xp)
                if self.centring_ is not None:
                    part = self.centring_[q].test(part, xp=xp)
                block = block + self.kernel_weights_[q] * part
            out[rows, ...] = block @ self.dual_coef_
        return out + self.intercept_


class UniformKernelRidge(_CombinedKernelRidge):
    """Exact kernel ridge regression on the uniform sum of several kernels ("uniform").

    Fits ``(K + αI) c + b 1 = y`` with ``K = Σ_q K_q`` over the training points (unit weights,
    no centring) and predicts ``Σ_q k_q(x, X_fit) c + b``. This is an explicitly exact method:
    it forms the ``n × n`` matrix and costs ``O(p n² d + n³)``.

    Parameters
    ----------
    kernels : list of Kernel, default=None
        The kernels; ``None`` means the seven Gaussian kernels of the Mklaren paper.
    alpha : float, default=1.0
        Ridge penalty ``α > 0``.
    fit_intercept : bool, default=True
        Fit an unpenalised intercept ``b`` (with ``1ᵀ c = 0``). The Mklaren experiments' uniform
        baseline used scikit-learn's ``KernelRidge``, i.e. ``fit_intercept=False``.

    Attributes
    ----------
    dual_coef_ : array of shape (n_samples,) or (n_samples, n_targets)
    intercept_ : array of shape () or (n_targets,)
    kernel_weights_ : array of shape (n_kernels,)
        All ones.
    X_fit_ : array of shape (n_samples, n_features)
    kernels_ : list of Kernel
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import UniformKernelRidge
    >>> from lrkl.kernels import Gaussian, Linear
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 3))
    >>> y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    >>> model = UniformKernelRidge([Linear(), Gaussian(gamma=0.5)], alpha=0.1).fit(X, y)
    >>> bool(model.score(X, y) > 0.95)
    True
    """

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn's convention)
        "kernels": [list, tuple, None],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
    }

    def __init__(
        self,
        kernels: Sequence[Kernel] | None = None,
        alpha: float = 1.0,
        *,
        fit_intercept: bool = True,
    ) -> None:
        self.kernels = kernels
        self.alpha = alpha
        self.fit_intercept = fit_intercept

    def _weights(self, Ks: list[Array], y: Array, *, xp: ModuleType) -> tuple[Array, bool]:
        return xp.ones(len(Ks), dtype=Ks[0].dtype, device=device_of(Ks[0])), False


def kernel_alignment(Ks: Sequence[Array], y: Array, /) -> tuple[Array, Array]:
    """Centred-alignment statistics of full kernel matrices (MKLAREN.md §10).

    ``a_q = ⟨P K_q P, y yᵀ⟩_F = (P y)ᵀ K_q (P y)`` and ``M_ql = ⟨P K_q P, P K_l P⟩_F``; ``y`` of
    shape ``(n, t)`` uses ``Y Yᵀ``. ``O(p² n²)``.
    """
    xp = get_namespace(y, *Ks)
    Y = y[:, None] if y.ndim == 1 else y
    Yc = Y - xp.mean(Y, axis=0)
    centred = [_Centring(K, xp=xp).train(K, xp=xp) for K in Ks]
    a = xp.stack([xp.sum(Yc * (K @ Yc)) for K in centred])
    p = len(centred)
    rows = [[xp.sum(centred[q] * centred[j]) for j in range(p)] for q in range(p)]
    M = xp.stack([xp.stack(row) for row in rows])
    return a, M


class AlignmentKernelRidge(_CombinedKernelRidge):
    """Centred-alignment MKL (Cortes, Mohri & Rostamizadeh 2012), then kernel ridge regression.

    With ``a_q = ⟨K_qc, y yᵀ⟩_F`` and ``M_ql = ⟨K_qc, K_lc⟩_F`` over the training points
    (``K_qc = P K_q P`` the centred kernels), the kernel weights are
    (:func:`lrkl.alignment.alignment_weights`):

    - ``"align"``: ``η = a / Σ a``; the combination ``Σ η_q K_q`` is **not** centred (as the
      Mklaren experiments' code does);
    - ``"alignf"``: ``η = M⁻¹a / ‖M⁻¹a‖``, the maximiser of the centred alignment of
      ``Σ η_q K_qc`` with ``y yᵀ`` under ``‖η‖ = 1``; the combination is centred and ``η`` may be
      negative;
    - ``"alignfc"``: ``η ∝ argmin_{v ≥ 0} vᵀMv − 2vᵀa`` normalised to ``Σ η = 1``; centred.

    Kernel ridge regression on the combination follows. Explicitly exact: forms the ``p``
    centred ``n × n`` kernels, ``O(p² n² + n³)``.

    Parameters
    ----------
    kernels : list of Kernel, default=None
        The kernels; ``None`` means the seven Gaussian kernels of the Mklaren paper.
    method : {"align", "alignf", "alignfc"}, default="align"
    alpha : float, default=1.0
        Ridge penalty ``α > 0``.
    fit_intercept : bool, default=True
        Fit an unpenalised intercept (the experiments' ``KernelRidge`` had none: ``False``).

    Attributes
    ----------
    kernel_weights_ : array of shape (n_kernels,)
        ``η``.
    target_alignment_ : array of shape (n_kernels,)
        ``a``.
    kernel_alignment_ : array of shape (n_kernels, n_kernels)
        ``M``.
    dual_coef_ : array of shape (n_samples,) or (n_samples, n_targets)
    intercept_ : array of shape () or (n_targets,)
    X_fit_ : array of shape (n_samples, n_features)
    kernels_ : list of Kernel
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from lrkl import AlignmentKernelRidge
    >>> from lrkl.kernels import Gaussian, Linear
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 3))
    >>> y = 0.5 * X[:, 1]
    >>> model = AlignmentKernelRidge([Linear(), Gaussian(gamma=8.0)], "alignfc").fit(X, y)
    >>> model.kernel_weights_.round(2)
    array([0.98, 0.02])
    """

    _parameter_constraints: dict = {  # noqa: RUF012 (scikit-learn's convention)
        "kernels": [list, tuple, None],
        "method": [StrOptions(set(ALIGNMENT_METHODS))],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
    }

    def __init__(
        self,
        kernels: Sequence[Kernel] | None = None,
        method: str = "align",
        alpha: float = 1.0,
        *,
        fit_intercept: bool = True,
    ) -> None:
        self.kernels = kernels
        self.method = method
        self.alpha = alpha
        self.fit_intercept = fit_intercept

    def _weights(self, Ks: list[Array], y: Array, *, xp: ModuleType) -> tuple[Array, bool]:
        a, M = kernel_alignment(Ks, y)
        self.target_alignment_, self.kernel_alignment_ = a, M
        return alignment_weights(a, M, self.method), self.method != "align"

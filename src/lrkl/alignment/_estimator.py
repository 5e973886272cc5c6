"""Centred-alignment MKL (Cortes, Mohri & Rostamizadeh 2012), then kernel ridge regression."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from types import ModuleType

from lrkl._backend import check_array, device_of, ensure_array, get_namespace, widest_float
from lrkl._typing import Array
from lrkl._validation import Interval, StrOptions
from lrkl.alignment._weights import (
    ALIGNMENT_METHODS,
    _alignment_weights,
    scale_back_alignment,
)
from lrkl.kernel_ridge._combined import CombinedKernelRidge, KernelCentering
from lrkl.kernel_ridge._scaling import power_of_two_scale
from lrkl.kernels import Kernel

__all__ = ["AlignmentKernelRidge", "kernel_alignment"]


def kernel_alignment(Ks: Sequence[Array], y: Array, /) -> tuple[Array, Array]:
    """Centred-alignment statistics of full kernel matrices (:ref:`mklaren-alignment`).

    ``a_q = ⟨P K_q P, y yᵀ⟩_F = (P y)ᵀ K_q (P y)`` and ``M_ql = ⟨P K_q P, P K_l P⟩_F``; ``y`` of
    shape ``(n, t)`` uses ``Y Yᵀ``. ``O(p² n²)``. ``Ks`` is a non-empty sequence of finite
    ``n × n`` matrices and ``y`` finite with ``n`` rows.
    """
    if isinstance(Ks, str) or not isinstance(Ks, Sequence) or not Ks:
        msg = f"Ks must be a non-empty sequence of kernel matrices, received {Ks!r:.80}"
        raise TypeError(msg)
    # lists (and numbers written as text) are taken as NumPy, as everywhere in lrkl
    Ks = [ensure_array(K, name=f"Ks[{q}]") for q, K in enumerate(Ks)]
    y = ensure_array(y, name="y")
    xp = get_namespace(y, *Ks)
    y = check_array(y, name="y", ndim=(1, 2), xp=xp)
    n = y.shape[0]
    Ks = [check_array(K, name=f"Ks[{q}]", ndim=2, xp=xp) for q, K in enumerate(Ks)]
    for q, K in enumerate(Ks):
        if tuple(K.shape) != (n, n):
            msg = (
                f"Ks[{q}] must be a {n} × {n} kernel matrix (one row per label), received shape "
                f"{tuple(K.shape)}"
            )
            raise ValueError(msg)
    return _unit_scale_alignment(Ks, y, xp=xp)


def _unit_scale_alignment(
    Ks: Sequence[Array], y: Array, /, *, xp: ModuleType
) -> tuple[Array, Array]:
    """:func:`_kernel_alignment` computed on ``K_q / s_q`` and ``y / t`` (powers of two near
    their largest magnitude, exact) and scaled back (:func:`scale_back_alignment`): products of
    entries of 1e±300 no longer overflow (or underflow) on the way; a statistic that itself
    leaves the floating range is refused."""
    s = [power_of_two_scale(K, xp=xp) for K in Ks]
    t = power_of_two_scale(y, xp=xp)
    a, M = _kernel_alignment([K / sq for K, sq in zip(Ks, s, strict=True)], y / t, xp=xp)
    dtype = xp.result_type(y, *Ks)  # the answer in the inputs' dtype, its range checked below
    a, M = xp.astype(a, dtype), xp.astype(M, dtype)
    return scale_back_alignment(
        a, M, s, t, function="kernel_alignment", arguments="Ks and y", xp=xp
    )


def _kernel_alignment(Ks: Sequence[Array], y: Array, /, *, xp: ModuleType) -> tuple[Array, Array]:
    """:func:`kernel_alignment` on trusted inputs, computed and returned in float64
    (:func:`~lrkl._backend.widest_float`) whatever the kernels' dtype.

    ``M`` of kernels of nearby widths is ill-conditioned (``cond M`` 2e6 to 2e7 for the default
    seven Gaussians on 30–60 rows), and alignf's ``M⁻¹a`` computed in float32 lost every digit:
    predictions up to 10 times their spread away from the float64 fit of the same rounded
    values. From float32 kernels, statistics accumulated in float64 give float64's weights to
    three digits. Two centred kernels at a time, never all ``p``.
    """
    wide = widest_float(xp, device_of(Ks[0]))
    Y = xp.astype(y[:, None] if y.ndim == 1 else y, wide)
    Yc = Y - xp.mean(Y, axis=0)

    def centred(K: Array) -> Array:
        K = xp.astype(K, wide, copy=False)
        return KernelCentering(K, xp=xp).train(K, xp=xp)

    def inner(A: Array, B: Array) -> Array:  # ⟨A, B⟩_F as one BLAS dot, no n × n product
        return xp.reshape(A, (-1,)) @ xp.reshape(B, (-1,))

    p = len(Ks)
    a, M = [], [[None] * p for _ in range(p)]
    for q in range(p):
        C_q = centred(Ks[q])
        a.append(xp.sum(Yc * (C_q @ Yc)))
        M[q][q] = inner(C_q, C_q)
        for j in range(q + 1, p):
            M[q][j] = M[j][q] = inner(C_q, centred(Ks[j]))
    return xp.stack(a), xp.stack([xp.stack(row) for row in M])


class AlignmentKernelRidge(CombinedKernelRidge):
    """Centred-alignment MKL (Cortes, Mohri & Rostamizadeh 2012), then kernel ridge regression.

    With ``a_q = ⟨K_qc, y yᵀ⟩_F`` and ``M_ql = ⟨K_qc, K_lc⟩_F`` over the training points
    (``K_qc = P K_q P`` the centred kernels), the kernel weights are
    (:func:`lrkl.alignment.alignment_weights`):

    - ``"align"``: ``η = a / Σ a``; the combination ``Σ η_q K_q`` is **not** centred (as the
      Mklaren experiments' code does);
    - ``"alignf"``: ``η = M⁻¹a / ‖M⁻¹a‖``, the maximiser of the centred alignment of
      ``Σ η_q K_qc`` with ``y yᵀ`` under ``‖η‖ = 1``; the combination is centred and ``η`` may be
      negative, which can make it indefinite and the fit poor (``"alignfc"`` is the variant
      with ``η ≥ 0``);
    - ``"alignfc"``: ``η ∝ argmin_{v ≥ 0} vᵀMv − 2vᵀa`` normalised to ``Σ η = 1``; centred.

    Kernel ridge regression on the combination follows. Explicitly exact: forms the ``p``
    centred ``n × n`` kernels, ``O(p² n² + n³)``.

    Parameters
    ----------
    kernels : list of Kernel, default=None
        The kernels (Kernel objects or names such as ``"rbf"``); ``None`` means seven Gaussian
        kernels ``γ₀·2⁻³, …, γ₀·2³`` around the width ``γ₀`` of ``Gaussian(gamma="scale")``
        (:func:`lrkl.kernels.Kernel.resolve`).
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
        ``a``, in the units of ``y²`` (``inf`` where that leaves the dtype's range: the
        weights are computed from ``y`` brought to unit scale, and do not depend on its
        scale).
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

    _parameter_constraints: dict = {
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

    def _weights(
        self, Ks: list[Array], y: Array, y_scale: float, *, xp: ModuleType
    ) -> tuple[Array, bool]:
        # y is of unit scale here (a_q ∝ y², which overflows at y · 1e200); η does not depend
        # on y's scale, and a is reported in the units of y².
        a, M = _kernel_alignment(Ks, y, xp=xp)  # float64: alignf's M is ill-conditioned
        weights = _alignment_weights(a, M, self.method, xp=xp)
        dtype = Ks[0].dtype
        a, M = xp.astype(a, dtype), xp.astype(M, dtype)
        with warnings.catch_warnings():  # a in y² may leave the dtype's range: inf, documented
            warnings.simplefilter("ignore", RuntimeWarning)
            self.target_alignment_ = a * y_scale * y_scale
        self.kernel_alignment_ = M
        return xp.astype(weights, dtype), self.method != "align"

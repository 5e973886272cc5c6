"""Scale of y (issue 33, class 7): every ridge-family estimator is equivariant in y.

Reference: the fit on the unscaled ``y``. For ``c = 10^k``, ``k`` in ``[−200, 200]``, the fit on
``c·y`` must predict ``c`` times the reference within ``1e-6`` of the spread of the reference's
predictions, and a CV estimator must choose the same α (or ν, in the units of ``y²``). The
estimators take a power of two out of ``y`` before anything is squared
(:mod:`lrkl.kernel_ridge._scaling`), so the only difference left is the rounding of ``c·y``.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lrkl import (
    AlignmentKernelRidge,
    KernelRidge,
    KernelRidgeCV,
    KernelRidgeSubset,
    LowRankRidge,
    LowRankRidgeCV,
    MklarenRegressor,
    SLKLRegressor,
    SLKLRegressorCV,
    UniformKernelRidge,
    UniformRankOneRidge,
)
from lrkl.kernel_ridge._scaling import power_of_two_scale, weight_scale

TOLERANCE = 1e-6  # of the spread of the reference's predictions

#: CGLS amplifies rounding: y · (1 + 1e-15) moves 10 iterations by 1.6e-4 of the spread of the
#: predictions, y · 3 by 2.5e-4 (measured on these data), so its test of 10^k has this
#: tolerance; a power of two is exact (test_cg_is_exactly_equivariant_in_a_power_of_two).
CG_TOLERANCE = 1e-3

ESTIMATORS = {
    "KernelRidge": lambda: KernelRidge(alpha=0.1),
    "KernelRidge-tikhonov": lambda: KernelRidge(alpha=0.1, method="tikhonov"),
    "KernelRidge-cg": lambda: KernelRidge(method="cg", max_iter=10),
    "KernelRidgeCV": lambda: KernelRidgeCV(),
    "KernelRidgeCV-kfold": lambda: KernelRidgeCV(cv=3),
    "KernelRidgeCV-tikhonov": lambda: KernelRidgeCV(method="tikhonov"),
    "KernelRidgeCV-cg": lambda: KernelRidgeCV(method="cg", max_iter=8),
    "LowRankRidge": lambda: LowRankRidge(rank=10, method="icd", alpha=0.1),
    "LowRankRidge-nystrom": lambda: LowRankRidge(
        rank=10, method="nystrom", alpha=0.1, random_state=0
    ),
    "LowRankRidge-csi": lambda: LowRankRidge(["rbf"], rank=8, method="csi", alpha=0.1),
    "LowRankRidgeCV": lambda: LowRankRidgeCV(["rbf"], rank=15, random_state=0),
    "UniformKernelRidge": lambda: UniformKernelRidge(["rbf", "linear"], alpha=0.1),
    "AlignmentKernelRidge-align": lambda: AlignmentKernelRidge(["rbf", "linear"], "align"),
    "AlignmentKernelRidge-alignf": lambda: AlignmentKernelRidge(["rbf", "linear"], "alignf"),
    "AlignmentKernelRidge-alignfc": lambda: AlignmentKernelRidge(["rbf", "linear"], "alignfc"),
    "KernelRidgeSubset": lambda: KernelRidgeSubset(n_columns=20, alpha=0.1, random_state=0),
    "UniformRankOneRidge": lambda: UniformRankOneRidge(n_columns=20, random_state=0),
    "SLKLRegressor": lambda: SLKLRegressor(n_columns=20, random_state=0),
    "SLKLRegressorCV": lambda: SLKLRegressorCV(n_columns=20, cv=3, n_nus=6, random_state=0),
    # not of the ridge family, but linear in y too: its pivot rule's floors are absolute
    "MklarenRegressor": lambda: MklarenRegressor(["rbf", "laplacian"], n_components=10),
}

#: What a CV estimator chooses, independent of y's scale: α, or for SLKL the weights μ of the
#: chosen ν (ν itself scales with y² and is inf in those units beyond |y| ≈ 1e154).
CHOICES = {
    "KernelRidgeCV": "alpha_",
    "KernelRidgeCV-kfold": "alpha_",
    "KernelRidgeCV-tikhonov": "alpha_",
    "KernelRidgeCV-cg": "n_iter_",
    "LowRankRidgeCV": "alpha_",
    "SLKLRegressorCV": "kernel_weights_",
}


def _data():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((30, 3))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.standard_normal(30) + 2.0
    T = rng.standard_normal((9, 3))
    return X, y, T


def _fit(name, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a choice on an end of a grid
        return ESTIMATORS[name]().fit(X, y)


@functools.cache
def _reference(name):
    X, y, T = _data()
    model = _fit(name, X, y)
    return model.predict(T), model


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@settings(max_examples=6, deadline=None, derandomize=True)
@given(k=st.integers(-200, 200))
@example(k=200)  # the bounds
@example(k=-200)
def test_predictions_scale_with_y(name, k):
    X, y, T = _data()
    expected, reference = _reference(name)
    c = 10.0**k
    model = _fit(name, X, c * y)
    predicted = model.predict(T)
    assert np.all(np.isfinite(predicted))
    spread = np.ptp(expected)
    tolerance = CG_TOLERANCE if name.endswith("-cg") else TOLERANCE
    np.testing.assert_allclose(predicted / c, expected, rtol=0, atol=tolerance * spread)
    if name in CHOICES:
        attribute = CHOICES[name]
        np.testing.assert_allclose(
            getattr(model, attribute), getattr(reference, attribute), rtol=1e-9, atol=1e-12
        )


@pytest.mark.parametrize("e", [-600, 600])
def test_cg_is_exactly_equivariant_in_a_power_of_two(e):
    X, y, T = _data()
    expected = _reference("KernelRidge-cg")[0]
    c = 2.0**e
    predicted = _fit("KernelRidge-cg", X, c * y).predict(T)
    np.testing.assert_array_equal(predicted / c, expected)


@pytest.mark.parametrize("k", [-200, 200])
def test_slkl_nu_of_the_default_is_reported_in_units_of_y_squared(k):
    X, y, _ = _data()
    model = _fit("SLKLRegressor", X, 10.0**k * y)
    reference = _reference("SLKLRegressor")[1]
    # ν_max·1e-5 at y·1e±200 is 1e∓395 times the reference's: outside float64 (documented)
    assert model.nu_ == (np.inf if k > 0 else 0.0)
    np.testing.assert_allclose(
        model.kernel_weights_, reference.kernel_weights_, rtol=1e-9, atol=1e-12
    )


def test_slkl_refuses_a_nu_outside_float64_at_y_scale():
    X, y, _ = _data()
    with pytest.raises(ValueError, match=r"nu = 0\.01 is out of float64's range at the scale of y"):
        SLKLRegressor(nu=0.01, n_columns=20, random_state=0).fit(X, 1e200 * y)
    with pytest.raises(ValueError, match=r"nu = .* of ν_max .* nu must be at least"):
        SLKLRegressor(nu=1e-300, n_columns=20, random_state=0).fit(X, y)


def test_alignment_weights_do_not_depend_on_the_scale_of_y():
    X, y, _ = _data()
    for method in ("align", "alignf", "alignfc"):
        reference = AlignmentKernelRidge(["rbf", "linear"], method).fit(X, y)
        for c in (1e-200, 1e200):
            model = AlignmentKernelRidge(["rbf", "linear"], method).fit(X, c * y)
            np.testing.assert_allclose(
                model.kernel_weights_, reference.kernel_weights_, rtol=1e-12, atol=1e-15
            )


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([3.0, -5.0], 4.0),
        ([1.0], 1.0),
        ([0.0, 0.0], 1.0),
        ([1e-310], 2.0**-1030),
        ([1e308], 2.0**1023),
    ],
)
def test_power_of_two_scale_brings_the_largest_magnitude_into_one_to_two(values, expected):
    scale = power_of_two_scale(np.asarray(values), xp=np)
    assert scale == expected


def test_weight_scale_keeps_the_minimiser():
    w = np.asarray([1e300, 3e300])
    scaled, alpha, scale = weight_scale(w, 2.0, xp=np)
    assert 1.0 <= scaled.max() < 2.0
    assert alpha * scale == 2.0 or alpha == 2.0**-1022  # α / s, floored at the smallest normal


@pytest.mark.parametrize(
    "name", ["KernelRidge", "LowRankRidge", "UniformKernelRidge", "KernelRidgeSubset"]
)
def test_sample_weights_and_alpha_scaled_together_give_the_same_fit(name):
    """Σ w_i r_i² + α‖f‖² and the same times 1e300 have one minimiser (the reference: the fit
    with w and α), where the weighted sums overflowed or the factorisation failed."""
    X, y, T = _data()
    w = np.random.default_rng(1).uniform(0.5, 2.0, 30)
    params = {"alpha": 0.1}
    expected = ESTIMATORS[name]().set_params(**params).fit(X, y, sample_weight=w).predict(T)
    for c in (1e-300, 1e300):
        model = ESTIMATORS[name]().set_params(alpha=0.1 * c).fit(X, y, sample_weight=c * w)
        np.testing.assert_allclose(
            model.predict(T), expected, rtol=0, atol=TOLERANCE * np.ptp(expected)
        )


@pytest.mark.parametrize(("k", "c"), [(1e300, 1.0), (1e150, 1.0), (1.0, 1e300), (1e-300, 1e-100)])
def test_kernel_alignment_is_computed_on_unit_scale(k, c):
    """K of 1e300 overflowed M = ⟨K, K⟩ to inf/NaN silently (and y of 1e300 made a NaN); the
    statistics are computed on unit-scale inputs, and refused by name where they themselves
    leave float64."""
    from lrkl.alignment import kernel_alignment
    from lrkl.kernels import Gaussian, Linear

    X, y, _ = _data()
    Ks = [Gaussian(gamma=0.5)(X), Linear()(X)]
    a0, M0 = kernel_alignment(Ks, y)
    scaled, yc = [K * k for K in Ks], y * c
    if math.isfinite(k * k * 1e4) and math.isfinite(k * c * c * 1e4):
        with np.errstate(over="raise", invalid="raise"):
            a, M = kernel_alignment(scaled, yc)
        np.testing.assert_allclose(a, a0 * (k * c * c), rtol=1e-12, atol=0)
        np.testing.assert_allclose(M, M0 * (k * k), rtol=1e-12, atol=0)
    else:
        with pytest.raises(ValueError, match="out of range for kernel_alignment"):
            kernel_alignment(scaled, yc)


@pytest.mark.parametrize(("k", "c"), [(1.0, 1e200), (1.0, 1e-150), (1e100, 1.0), (1e-100, 1.0)])
def test_factor_alignment_is_computed_on_unit_scale(k, c):
    """factor_alignment overflowed to inf at y · 1e200 or factors · 1e200 (a ∝ s² t²,
    M ∝ s⁴): it computes at unit scale; a statistic past float64 is refused by name."""
    from lrkl.alignment import factor_alignment

    X, y, _ = _data()
    a0, M0 = factor_alignment([X[:, :2], X[:, 2]], y)
    m_factor, a_factor = k * k * k * k, k * k * c * c  # inf, not an OverflowError, past float64
    if math.isfinite(m_factor * float(np.max(M0))) and math.isfinite(a_factor * float(np.max(a0))):
        with np.errstate(over="raise", invalid="raise"):
            a, M = factor_alignment([X[:, :2] * k, X[:, 2] * k], y * c)
        np.testing.assert_allclose(a, a0 * a_factor, rtol=1e-12, atol=0)
        np.testing.assert_allclose(M, M0 * m_factor, rtol=1e-12, atol=0)
    else:
        with pytest.raises(ValueError, match="out of range for factor_alignment"):
            factor_alignment([X[:, :2] * k, X[:, 2] * k], y * c)


@pytest.mark.parametrize("name", ["SLKLRegressor", "SLKLRegressorCV", "UniformRankOneRidge"])
def test_slkl_family_float32_y_offset(name):
    """An offset of a float32 y (prices, temperatures in kelvin) cancels before the pass of
    SLKL's problem: ``Cᵀy − n·ȳ·c̄`` lost every digit at y + 1e5 with a spread of 5 (R² −10
    where float64 gave 0.96). Reference: the fit on the same rounded values, offset removed."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (300, 5)).astype(np.float32)
    y = 10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 5 * X[:, 3] + rng.standard_normal(300)
    c = 1e5
    shifted = (y + c).astype(np.float32)
    back = (shifted.astype(np.float64) - c).astype(np.float32)
    expected = ESTIMATORS[name]().fit(X, back).predict(X).astype(np.float64)
    got = ESTIMATORS[name]().fit(X, shifted).predict(X).astype(np.float64) - c
    assert np.max(np.abs(got - expected)) <= 1e-3 * np.ptp(expected)


@pytest.mark.parametrize(
    "name",
    [
        "KernelRidge",
        "UniformKernelRidge",
        "KernelRidgeSubset",
        "AlignmentKernelRidge-align",
        "AlignmentKernelRidge-alignf",
    ],
)
def test_exact_family_float32_y_offset(name):
    """The same for the dual solve with an unpenalised intercept: y − ȳ before the solve (the
    intercept less ȳ). Before, float32 y + 1e5 put these predictions 2.5e-3 to 8.4e-3 of their
    range from the fit of the same rounded values without the offset; what remains is the
    rounding of float32 outputs near 1e5 (ulp 2⁻⁷)."""
    test_slkl_family_float32_y_offset(name)

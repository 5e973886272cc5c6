"""Nyström centres drawn by ridge leverage scores (``centers="leverage"``), against dense
computations of the scores and of the draw."""

from __future__ import annotations

import numpy as np
import pytest

from lrkl import LowRankRidge, LowRankRidgeClassifierCV, LowRankRidgeCV
from lrkl.kernel_ridge._leverage import draw_centres, ridge_leverage
from lrkl.kernel_ridge._solvers import _primal_problem
from lrkl.kernels import Gaussian, Linear


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X[: n // 20] *= 4.0  # a sparse outer region, whose rows have large leverage
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=n)
    return X, y


def _dense_leverage(Z, alpha, w, fit_intercept):
    """diag(W^½ Z̃ (Z̃ᵀ W Z̃ + αI)⁻¹ Z̃ᵀ W^½), Z̃ centred on the weighted mean."""
    mean = (w @ Z) / w.sum() if fit_intercept else np.zeros(Z.shape[1])
    Zc = Z - mean
    A = Zc.T @ (w[:, None] * Zc) + alpha * np.eye(Z.shape[1])
    return w * np.einsum("ij,ij->i", Zc, np.linalg.solve(A, Zc.T).T)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_ridge_leverage_matches_the_dense_hat_diagonal(fit_intercept, weighted):
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(300, 12)) @ np.diag(np.logspace(0, -3, 12))
    y = rng.normal(size=300)
    w = rng.uniform(0.0, 3.0, size=300) if weighted else None
    problem = _primal_problem(Z, y, fit_intercept=fit_intercept, xp=np, sample_weight=w)
    for alpha in (1e-4, 1.0):
        tau = ridge_leverage(Z, problem, alpha, xp=np, sample_weight=w)
        reference = _dense_leverage(Z, alpha, np.ones(300) if w is None else w, fit_intercept)
        np.testing.assert_allclose(tau, reference, rtol=1e-9, atol=1e-12)


def test_draw_centres_is_proportional_to_the_scores_and_distinct():
    scores = np.array([0.0, 1.0, 2.0, 0.0, 7.0])
    first = [draw_centres(scores, 1, seed)[0] for seed in range(4000)]
    counts = np.bincount(first, minlength=5) / 4000
    expected = scores / scores.sum()
    # three binomial standard deviations of a frequency from 4000 draws
    assert np.all(np.abs(counts - expected) <= 3 * np.sqrt(expected * (1 - expected) / 4000))
    assert counts[0] == counts[3] == 0.0
    drawn = draw_centres(scores, 5, 0)
    assert sorted(drawn) == [0, 1, 2, 3, 4]
    assert set(drawn[:3]) == {1, 2, 4}  # rows of score 0 only after every other row


def test_low_rank_ridge_fits_on_the_centres_the_leverage_of_the_uniform_fit_draws():
    X, y = _data()
    alpha, m = 0.5, 40
    uniform = LowRankRidge(rank=m, alpha=alpha, random_state=3).fit(X, y)
    Z = uniform.features(X)
    tau = _dense_leverage(Z, alpha, np.ones(X.shape[0]), True)
    rows = draw_centres(tau, m, 3)
    model = LowRankRidge(rank=m, alpha=alpha, random_state=3, centers="leverage").fit(X, y)
    np.testing.assert_array_equal(model.factors_[0].landmarks, X[rows])
    assert not np.array_equal(model.factors_[0].landmarks, uniform.factors_[0].landmarks)
    # the outer 5 % of the rows, of large leverage, hold more of the centres than of the rows
    assert np.mean(np.array(rows) < X.shape[0] // 20) > 0.1
    # and the ridge is solved on the new features: the dense normal equations
    Zn = model.features(X)
    Zc, yc = Zn - Zn.mean(axis=0), y - y.mean()
    coef = np.linalg.solve(Zc.T @ Zc + alpha * np.eye(Zn.shape[1]), Zc.T @ yc)
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-6, atol=1e-8)


def test_leverage_centres_never_land_on_rows_of_weight_zero():
    X, y = _data()
    w = np.ones(X.shape[0])
    w[::2] = 0.0
    model = LowRankRidge(rank=50, random_state=0, centers="leverage").fit(X, y, sample_weight=w)
    chosen = {tuple(row) for row in model.factors_[0].landmarks}
    assert chosen <= {tuple(row) for row in X[1::2]}


def test_cv_chooses_alpha_on_uniform_centres_then_refits_on_leverage_centres():
    X, y = _data(600)
    uniform = LowRankRidgeCV(rank=60, random_state=0).fit(X, y)
    model = LowRankRidgeCV(rank=60, random_state=0, centers="leverage").fit(X, y)
    assert model.alpha_ == uniform.alpha_
    assert model.mse_path_ == uniform.mse_path_
    assert model.kernels_[0].gamma == uniform.kernels_[0].gamma
    assert not np.array_equal(model.factors_[0].landmarks, uniform.factors_[0].landmarks)
    fixed = LowRankRidge(
        model.kernels_, rank=60, alpha=model.alpha_, random_state=0, centers="leverage"
    ).fit(X, y)
    np.testing.assert_allclose(model.predict(X), fixed.predict(X), rtol=1e-9, atol=1e-9)
    classifier = LowRankRidgeClassifierCV(rank=60, random_state=0, centers="leverage")
    assert classifier.fit(X, y > 0).score(X, y > 0) > 0.8


@pytest.mark.parametrize("method", ["icd", "csi"])
def test_leverage_centres_need_nystrom(method):
    X, y = _data(100)
    with pytest.raises(ValueError, match=r"centers='leverage'.*method='nystrom'.*received"):
        LowRankRidge(method=method, centers="leverage").fit(X, y)
    with pytest.raises(ValueError, match="centers"):
        LowRankRidge(centers="pivots").fit(X, y)


def test_leverage_centres_keep_each_kernels_rank():
    X, y = _data(200)
    kernels = [Gaussian(gamma=0.1), Linear()]
    for rank in ([3, 12], [12, 3]):
        uniform = LowRankRidge(kernels, rank=rank, random_state=0).fit(X, y)
        model = LowRankRidge(kernels, rank=rank, random_state=0, centers="leverage").fit(X, y)
        assert model.rank_ == uniform.rank_ == tuple(rank)
        assert max(f.landmarks.shape[0] for f in model.factors_) == 12


@pytest.mark.filterwarnings("ignore:.*chose alpha:UserWarning")  # 10 centres: a large α
def test_leverage_centres_count_in_the_memory_budget(monkeypatch):
    """The uniform and the leverage centres' features are held at once: a default rank is cut
    to what two feature maps of all the rows fit, also after a search on a subsample."""
    from lrkl.kernel_ridge import _low_rank_model

    monkeypatch.setattr(_low_rank_model, "WIDTH_SEARCH_ROWS", 50)  # the search on a subsample
    X, y = _data(120)
    budget = 120 * 8 * 2 * 10  # two maps of 10 columns of 120 float64 rows
    for estimator in (LowRankRidge, LowRankRidgeCV):
        model = estimator(centers="leverage", memory_budget=budget, random_state=0).fit(X, y)
        assert model.rank_ == (10,)
        uniform = estimator(memory_budget=budget, random_state=0).fit(X, y)
        assert uniform.rank_ == (20,)  # one map held in the final fit

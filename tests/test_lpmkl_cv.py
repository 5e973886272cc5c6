"""LowRankMKLClassifierCV: its fold scores against independent cold fits of
LowRankMKLClassifier on the same features (the held-out rows weighted 0), its choice against the
best mean score, its refit against LowRankMKLClassifier at that C, and where its path stops."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from lrkl import LowRankMKLClassifier, LowRankMKLClassifierCV
from lrkl.kernels import Gaussian
from lrkl.lpmkl import _cv

KERNELS = [Gaussian(gamma=0.3), Gaussian(gamma=3.0)]


def _data(n=240, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    score = X[:, 0] ** 2 + X[:, 1] ** 2 + 0.4 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


@pytest.mark.filterwarnings("ignore:LowRankMKLClassifierCV chose C")  # a grid end: by design
@pytest.mark.parametrize("n_classes", [2, 3])
def test_fold_scores_match_cold_fits_on_the_same_features(n_classes, monkeypatch):
    monkeypatch.setattr(_cv, "SELECTION_GAP", 0.0)  # the folds solved to mkl_tol as well
    monkeypatch.setattr(_cv, "PATIENCE", 10)  # the whole path
    X, y = _data(n_classes=n_classes)
    Cs = (0.1, 10.0, 1000.0)
    params = dict(kernels=KERNELS, rank=15, random_state=0, mkl_tol=1e-9, max_outer_iter=2000)
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    model = LowRankMKLClassifierCV(Cs=Cs, cv=cv, **params).fit(X, y)
    for f, (train, test) in enumerate(cv.split(X, y)):
        weights = np.zeros(len(y))
        weights[train] = 1.0
        for i, C in enumerate(Cs):
            cold = LowRankMKLClassifier(C=C, **params).fit(X, y, sample_weight=weights)
            expected = np.mean(cold.predict(X[test]) == y[test])
            assert model.cv_accuracy_[i, f] == pytest.approx(expected, abs=1.5 / len(test))
    means = np.round(model.cv_accuracy_.mean(axis=1), 12)  # folds in another order tie
    assert Cs[int(np.argmax(means))] == model.C_
    refit = LowRankMKLClassifier(C=model.C_, **params).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), refit.decision_function(X), atol=1e-4)


def test_the_grid_and_the_folds_are_checked():
    X, y = _data()
    with pytest.raises(ValueError, match="Cs must be a finite number > 0"):
        LowRankMKLClassifierCV(Cs=(1.0, -1.0), rank=5).fit(X, y)
    with pytest.raises(ValueError, match="method='csi'"):
        LowRankMKLClassifierCV(method="csi", rank=5).fit(X, y)
    assert "C" not in LowRankMKLClassifierCV().get_params()
    labels = np.array(["a", "b", "c"])[np.r_[np.zeros(20), np.ones(19), 2].astype(int)]
    with (
        pytest.warns(UserWarning, match="least populated class"),  # scikit-learn's
        pytest.raises(ValueError, match=r"fold 0's training rows .* class 'c' has 0"),
    ):
        LowRankMKLClassifierCV(cv=3, rank=5).fit(X[:40], labels)  # one row of 'c'


@pytest.mark.filterwarnings("ignore:LowRankMKLClassifierCV chose C")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_path_stops_after_two_cs_below_the_best(seed):
    X, y = _data(n=300, seed=seed)
    Cs = np.geomspace(1e-3, 1e4, 8)
    model = LowRankMKLClassifierCV(KERNELS, rank=15, Cs=Cs, random_state=0).fit(X, y)
    means = np.round(model.cv_accuracy_.mean(axis=1), 12)  # folds in another order tie
    visited = int(np.sum(~np.isnan(means)))
    assert np.all(np.isnan(model.cv_accuracy_[visited:]))
    below = means[:visited] < np.maximum.accumulate(means[:visited])
    two_below = [j + 1 for j in range(visited - 1) if below[j] and below[j + 1]]
    assert visited < len(Cs)  # on these data the accuracy falls at large C
    assert two_below == [visited - 1]  # it stopped at the first pair below the best, not before
    assert Cs[int(np.nanargmax(means))] == model.C_


@pytest.mark.filterwarnings("ignore:LowRankMKLClassifierCV chose C")
def test_folds_solved_to_the_selection_gap_rank_the_cs_as_tight_ones_do(monkeypatch):
    X, y = _data(n=400, seed=3)
    params = dict(kernels=KERNELS, rank=20, random_state=0, Cs=(0.1, 1.0, 10.0, 100.0))
    monkeypatch.setattr(_cv, "PATIENCE", 10)
    loose = LowRankMKLClassifierCV(**params).fit(X, y)
    monkeypatch.setattr(_cv, "SELECTION_GAP", 0.0)
    tight = LowRankMKLClassifierCV(mkl_tol=1e-6, **params).fit(X, y)
    assert loose.C_ == tight.C_
    rows = len(y) / 3
    np.testing.assert_allclose(loose.cv_accuracy_, tight.cv_accuracy_, atol=3 / rows)


@pytest.mark.filterwarnings("ignore:LowRankMKLClassifierCV chose C")  # grid ends: by design
@pytest.mark.parametrize(
    ("means", "visited", "best"),
    [
        ((0.8, 0.7, 0.9, 0.85, 0.84, 0.95), 5, 2),  # below, a new best (reset), below twice
        ((0.8, 0.8, 0.8, 0.7, 0.6, 0.9), 5, 0),  # ties are not below; the first of them wins
        ((0.5, 0.6, 0.7, 0.8, 0.9, 0.95), 6, 5),  # rising: the whole path
    ],
)
def test_the_stop_rule_on_scripted_accuracies(means, visited, best, monkeypatch):
    """The fold accuracies are the same numbers in another order at every C (an exact tie
    unless the script says otherwise): the rule and the choice read one mean."""
    offsets = (0.0, 1e-3, -1e-3)  # rotated from one C to the next
    script = iter([m + offsets[(f + i) % 3] for i, m in enumerate(means) for f in range(3)])
    monkeypatch.setattr(_cv, "_accuracy", lambda decisions, codes, rows: next(script))
    X, y = _data(n=120)
    Cs = np.geomspace(0.01, 1e3, 6)
    model = LowRankMKLClassifierCV(KERNELS, rank=5, Cs=Cs, random_state=0).fit(X, y)
    assert int(np.sum(~np.isnan(model.cv_accuracy_[:, 0]))) == visited
    assert Cs[best] == model.C_


@pytest.mark.filterwarnings("ignore:LowRankMKLClassifierCV chose C")  # a grid end: by design
def test_fold_fits_that_stop_short_are_reported():
    from sklearn.exceptions import ConvergenceWarning

    X, y = _data()
    # weight_tol=1e-300 does not hold after one update, so every fold fit runs to the cap
    model = LowRankMKLClassifierCV(
        KERNELS, rank=15, Cs=(1.0, 10.0), stop="change", weight_tol=1e-300, max_outer_iter=1
    )
    with pytest.warns(ConvergenceWarning) as caught:
        model.fit(X, y)
    folds = [str(w.message) for w in caught if "fold fits" in str(w.message)]
    assert len(folds) == 1
    assert "6 of the 6 fold fits stopped before their rule held (6 by max_outer_iter)" in folds[0]
    quiet = LowRankMKLClassifierCV(KERNELS, rank=15, Cs=(1.0, 10.0), max_outer_iter=500)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        quiet.fit(X, y)  # converged fold fits draw nothing

"""Mklaren (lrkl.mklaren._solver, lrkl.MklarenRegressor) against independent dense computations."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import lars_path

from lrkl import MklarenRegressor
from lrkl._backend import to_numpy
from lrkl.kernels import Gaussian, Linear, Precomputed
from lrkl.mklaren._solver import candidate_correlations, solve_mklaren

from ._reference import cholesky_features, gaussian_kernel, nystrom

GAMMAS = (0.25, 1.0, 4.0)


def _data(rng: np.random.Generator, n: int = 40, dim: int = 3) -> tuple[np.ndarray, np.ndarray]:
    X = rng.normal(size=(n, dim))
    y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=n)
    return X, y


def _feature_kernel(j: int) -> Precomputed:
    """The linear kernel of feature ``j`` alone, on any namespace."""
    return Precomputed(
        function=lambda X, Z: X[:, j : j + 1] * Z[:, j][None, :],
        diagonal=lambda X: X[:, j] ** 2,
    )


# --------------------------------------------------------------------------- candidate scores


@pytest.mark.parametrize("lbd", [0.0, 0.3])
@pytest.mark.parametrize("scoring", ["reference", "consistent"])
def test_full_lookahead_gives_exact_correlations(backend, rng, lbd, scoring):
    n, rank, t, k = 25, 6, 2, 3
    X = rng.normal(size=(n, 2))
    looks, exact = [], []
    r = rng.normal(size=n + rank)
    u = rng.normal(size=n + rank)
    r[n:] = rng.normal(size=rank) * (np.arange(rank) < t)  # entries n+t.. are still 0
    u[n:] = rng.normal(size=rank) * (np.arange(rank) < t)
    P = np.eye(n) - 1.0 / n
    for gamma in (0.5, 2.0):
        K = gaussian_kernel(X, X, gamma)
        S = list(rng.choice(n, size=k, replace=False))
        E = K - nystrom(K, S)  # residual after k pivots
        w, V = np.linalg.eigh(E)
        looks.append(V * np.sqrt(np.clip(w, 0, None)))  # any factor with Ĝ Ĝᵀ = E: δ = n
        c_ex, a_ex = np.zeros(n), np.zeros(n)
        for i in range(n):
            col = P @ E[:, i]
            if np.linalg.norm(col) < 1e-6:
                continue
            if scoring == "reference":
                v = np.zeros(n + rank)
                v[:n] = col
                v[n + t] = np.sqrt(lbd)
                v -= v.mean()
            else:
                v = np.zeros(n + rank)
                v[:n] = col / np.linalg.norm(col)
                v[n + t] = np.sqrt(lbd)
            v /= np.linalg.norm(v)
            c_ex[i], a_ex[i] = v @ r, v @ u
        exact.append((c_ex, a_ex))
    c, a, norm = candidate_correlations(
        backend.asarray(np.stack([look.T for look in looks], axis=0)),
        backend.asarray(r),
        backend.asarray(u),
        alpha=lbd,
        scoring=scoring,
        xp=backend.xp,
    )
    c, a, norm = to_numpy(c), to_numpy(a), to_numpy(norm)
    for q, (c_ex, a_ex) in enumerate(exact):
        keep = c_ex != 0
        assert keep.sum() > n - 5
        np.testing.assert_allclose(c[q, keep], c_ex[keep], rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(a[q, keep], a_ex[keep], rtol=1e-6, atol=1e-8)


# --------------------------------------------------------------------------- LAR


def test_linear_kernels_per_feature_follow_lars(backend, rng):
    n, p = 40, 5
    X = rng.normal(size=(n, p)) * np.arange(1, p + 1)
    y = X @ rng.normal(size=p) + rng.normal(size=n)
    Xn = X - X.mean(axis=0)
    Xn /= np.linalg.norm(Xn, axis=0)
    yc = y - y.mean()
    _, active, coefs = lars_path(Xn, yc, method="lar")
    fits = []
    fit = solve_mklaren(
        [_feature_kernel(j) for j in range(p)],
        backend.asarray(X),
        backend.asarray(y),
        p,
        lookahead=1,  # a rank-one kernel: one look-ahead column is exact
        callback=lambda t, q, i, fitted: fits.append(to_numpy(fitted)),
        xp=backend.xp,
    )
    assert list(fit.kernel_of) == list(active)
    for t, fitted in enumerate(fits):
        knot = coefs[:, t] if t < p - 1 else coefs[:, p]
        np.testing.assert_allclose(fitted, y.mean() + Xn @ knot, rtol=1e-8, atol=1e-8)


def _dense_mklaren(Ks, y, rank, lbd):
    """Mklaren with exact candidate columns from the dense kernels (MKLAREN.md §§2–5)."""
    n = y.shape[0]
    total = n + rank
    r = np.zeros(total)
    r[:n] = y - y.mean()
    u = np.zeros(total)
    pivots = [[] for _ in Ks]
    H, chosen, big_c, big_a = [], [], 0.0, 1.0
    for t in range(rank):
        best = None
        for q, K in enumerate(Ks):
            S = pivots[q]
            E = K - nystrom(K, S) if S else K
            for i in range(n):
                if E[i, i] <= 1e-10 or i in S:
                    continue
                col = E[:, i] - E[:, i].mean()
                h = np.zeros(total)
                h[:n] = col / np.linalg.norm(col)
                h[n + t] = np.sqrt(lbd)
                h /= np.sqrt(1 + lbd)
                c, a = h @ r, h @ u
                if t == 0:
                    score = -abs(c)
                else:
                    steps = [
                        num / den
                        for num, den in ((big_c - c, big_a - a), (big_c + c, big_a + a))
                        if den > 0 and num / den != 0
                    ]
                    score = min(steps) if steps else np.inf
                if best is None or score < best[0]:
                    best = (score, q, i, h)
        _, q, i, h = best
        pivots[q].append(i)
        chosen.append((q, i))
        if t > 0:
            corr = np.array([g @ r for g in H])
            big_c = np.abs(corr).max()
            c, a = h @ r, h @ u
            steps = [
                num / den
                for num, den in ((big_c - c, big_a - a), (big_c + c, big_a + a))
                if den > 0 and num / den != 0
            ]
            r = r - min(steps) * u
        H.append(h)
        Hm = np.array(H).T
        s = np.sign(Hm.T @ r)
        z = np.linalg.solve(Hm.T @ Hm, s)
        big_a = 1 / np.sqrt(s @ z)
        u = big_a * Hm @ z
        big_c = np.abs(Hm.T @ r).max()
    return chosen


@pytest.mark.parametrize("lbd", [0.0, 0.4])
def test_full_lookahead_selects_like_exact_candidates(backend, rng, lbd):
    n, rank = 18, 6
    X, y = _data(rng, n=n, dim=2)
    gammas = (0.3, 3.0)
    expected = _dense_mklaren([gaussian_kernel(X, X, g) for g in gammas], y, rank, lbd)
    fit = solve_mklaren(
        [Gaussian(gamma=g) for g in gammas],
        backend.asarray(X),
        backend.asarray(y),
        rank,
        lookahead=n,  # the look-ahead spans every residual kernel: candidates are exact
        alpha=lbd,
        scoring="consistent",
        xp=backend.xp,
    )
    assert list(zip(fit.kernel_of, fit.pivot_of, strict=True)) == expected


# --------------------------------------------------------------------------- the final model


@pytest.mark.parametrize("lbd", [0.0, 0.5])
def test_final_model_is_ridge_on_selected_columns(backend, rng, lbd):
    X, y = _data(rng)
    model = MklarenRegressor(
        [Gaussian(gamma=g) for g in GAMMAS], n_components=9, lookahead=3, alpha=lbd
    )
    model.fit(backend.asarray(X), backend.asarray(y))
    # The selected columns are the pivoted Cholesky columns of each kernel: K[:, S] L⁻ᵀ.
    G = np.zeros((X.shape[0], model.n_components_))
    for q, gamma in enumerate(GAMMAS):
        S = list(model.pivots_[q])
        if not S:
            continue
        K = gaussian_kernel(X, X, gamma)
        cols = [t for t, (k, _) in enumerate(model.selected_) if k == q]
        G[:, cols] = cholesky_features(K[np.ix_(S, S)], K[S, :])
    np.testing.assert_allclose(to_numpy(model.columns_), G, atol=1e-8)
    # MKLAREN.md §5 "Consequence": ridge with unpenalised intercept on centred unit columns.
    Z = (G - G.mean(axis=0)) / np.linalg.norm(G - G.mean(axis=0), axis=0)
    beta = np.linalg.solve(Z.T @ Z + lbd * np.eye(Z.shape[1]), Z.T @ (y - y.mean()))
    expected = y.mean() + Z @ beta
    np.testing.assert_allclose(to_numpy(model.fitted_), expected, rtol=1e-7, atol=1e-7)
    pred = model.predict(backend.asarray(X))
    assert type(pred) is type(backend.asarray(y))
    np.testing.assert_allclose(to_numpy(pred), expected, rtol=1e-7, atol=1e-7)
    assert sum(model.rank_) == model.n_components_ == 9


def test_out_of_sample_features(backend, rng):
    X, y = _data(rng)
    Xnew = rng.normal(size=(7, 3))
    model = MklarenRegressor(
        [Gaussian(gamma=g) for g in GAMMAS], n_components=8, lookahead=4, alpha=0.1
    )
    model.fit(backend.asarray(X), backend.asarray(y))
    train = to_numpy(model.cholesky_features(backend.asarray(X)))
    np.testing.assert_allclose(train, to_numpy(model.columns_), atol=1e-10)
    new = to_numpy(model.cholesky_features(backend.asarray(Xnew)))
    for q, gamma in enumerate(GAMMAS):
        S = list(model.pivots_[q])
        cols = [t for t, (k, _) in enumerate(model.selected_) if k == q]
        expected = cholesky_features(
            gaussian_kernel(X[S], X[S], gamma), gaussian_kernel(X[S], Xnew, gamma)
        )
        np.testing.assert_allclose(new[:, cols], expected, atol=1e-8)


def test_dual_coefficients_reproduce_the_fit(backend, rng):
    X, y = _data(rng)
    model = MklarenRegressor(
        [_feature_kernel(0), Gaussian(gamma=1.0)], n_components=6, lookahead=3, alpha=0.2
    )
    model.fit(backend.asarray(X), backend.asarray(y))
    G, alpha = to_numpy(model.columns_), to_numpy(model.dual_coef_)
    fit = np.zeros(X.shape[0])
    for q in range(2):
        cols = [t for t, (k, _) in enumerate(model.selected_) if k == q]
        Gq = G[:, cols]
        fit += Gq @ (Gq.T @ alpha[q])  # the low-rank kernel times its dual coefficients
        assert np.linalg.matrix_rank(np.column_stack([Gq, alpha[q]]), tol=1e-8) == len(cols)
    fitted = to_numpy(model.fitted_)
    np.testing.assert_allclose(fit - fit.mean(), fitted - fitted.mean(), atol=1e-8)
    # The rank-one kernel of feature 0 has the explicit map Φ = X[:, :1]; once selected, its
    # primal weight w = Φᵀα reproduces its part of the fit exactly (eq. 26).
    lin = [t for t, (k, _) in enumerate(model.selected_) if k == 0]
    assert len(lin) == 1
    w = X[:, :1].T @ alpha[0]
    np.testing.assert_allclose(X[:, :1] @ w, G[:, lin] @ (G[:, lin].T @ alpha[0]), atol=1e-8)


def test_backends_select_the_same_columns(backend, rng):
    X, y = _data(rng, n=50)
    params = dict(
        kernels=[Gaussian(gamma=g) for g in GAMMAS], n_components=10, lookahead=4, alpha=0.05
    )
    ref = MklarenRegressor(**params).fit(X, y)
    model = MklarenRegressor(**params).fit(backend.asarray(X), backend.asarray(y))
    assert model.selected_ == ref.selected_
    np.testing.assert_allclose(to_numpy(model.coef_), ref.coef_, rtol=1e-8, atol=1e-10)


def test_first_pivot_rules(rng):
    X, y = _data(rng)
    kernels = [Gaussian(gamma=g) for g in GAMMAS]
    yc = y - y.mean()
    corr = {}
    for rule in ("abs", "signed"):
        # δ = n: exact candidates, so the rules are exact argmaxes of |c| and of c.
        model = MklarenRegressor(kernels, n_components=1, lookahead=40, first_pivot=rule).fit(X, -y)
        g = model.columns_[:, 0] - model.columns_[:, 0].mean()
        corr[rule] = float(g @ -yc / np.linalg.norm(g))
    assert corr["signed"] > 0
    assert abs(corr["abs"]) >= abs(corr["signed"]) - 1e-12


def test_rank_larger_than_the_data_stops_early(rng):
    X = rng.normal(size=(6, 2))
    y = X[:, 0] + rng.normal(size=6)
    model = MklarenRegressor([Linear()], n_components=5, lookahead=2, alpha=0.0).fit(X, y)
    assert model.n_components_ == 2  # the linear kernel has rank 2
    Xc = np.column_stack([np.ones(6), X])
    expected = Xc @ np.linalg.lstsq(Xc, y, rcond=None)[0]
    np.testing.assert_allclose(model.predict(X), expected, atol=1e-8)


# --------------------------------------------------------------------------- conventions


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"n_components": 0}, "n_components"),
        ({"lookahead": 0}, "lookahead"),
        ({"alpha": -1.0}, "alpha"),
        ({"first_pivot": "max"}, "first_pivot"),
        ({"scoring": "exact"}, "scoring"),
        ({"kernels": []}, "kernels"),
    ],
)
def test_bad_parameters(rng, params, match):
    X, y = _data(rng, n=10)
    with pytest.raises(ValueError, match=match):
        MklarenRegressor(**params).fit(X, y)


def test_bad_data(backend, rng):
    X, y = _data(rng, n=10)
    with pytest.raises(TypeError, match="kernels"):
        MklarenRegressor(kernels=[3]).fit(X, y)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        MklarenRegressor().fit(backend.asarray(bad), backend.asarray(y))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        MklarenRegressor().fit(backend.asarray(X), backend.asarray(y[:-1]))
    model = MklarenRegressor(n_components=3).fit(backend.asarray(X), backend.asarray(y))
    with pytest.raises(ValueError, match="features"):
        model.predict(backend.asarray(X[:, :2]))


# --------------------------------------------------------------------------- data loaders


def test_protocol_data_and_splits():
    from lrkl.datasets import MKLAREN_DATASETS, load_mklaren_protocol

    for name in MKLAREN_DATASETS:
        data = load_mklaren_protocol(name)
        n = data.X.shape[0]
        assert n == data.y.shape[0] <= 1000
        np.testing.assert_allclose(data.X.mean(axis=0), 0, atol=1e-10)
        norms = np.linalg.norm(data.X, axis=0)
        np.testing.assert_allclose(norms[norms > 0], 1)
        for train, val, test in data.splits:
            assert (len(train), len(val)) == (int(0.6 * n), int(0.2 * n))
            assert sorted(np.concatenate([train, val, test])) == list(range(n))
    with pytest.raises(ValueError, match="name"):
        load_mklaren_protocol("iris")


def test_sentiment_loader(tmp_path):
    import gzip

    from lrkl.datasets import load_sentiment

    lines = {
        "train": ["good:2 great:1 #label#:5", "bad:1 not_good:1 #label#:1", "good:1 #label#:4"],
        "test": ["great:1 bad:2 unseen:3 #label#:2"],
    }
    (tmp_path / "sentiment-blitzer").mkdir()
    for part, rows in lines.items():
        with gzip.open(tmp_path / "sentiment-blitzer" / f"kitchen_{part}.gz", "wt") as fh:
            fh.write("\n".join(rows) + "\n")
    data = load_sentiment("kitchen", data_home=tmp_path, max_features=4)
    assert data.features == ["good", "bad", "great"]  # not_good duplicates bad's column
    np.testing.assert_array_equal(data.X_train, [[2, 0, 1], [0, 1, 0], [1, 0, 0]])
    np.testing.assert_array_equal(data.X_test, [[0, 2, 1]])
    np.testing.assert_array_equal(data.y_train, [5, 1, 4])
    with pytest.raises(ValueError, match="dvd"):
        load_sentiment("dvd", data_home=tmp_path)
    with pytest.raises(FileNotFoundError, match="data_home"):
        load_sentiment("books", data_home=tmp_path)


def test_refuses_a_precomputed_matrix_that_is_not_psd_on_greedy_pivots():
    # unit diagonal, eigenvalues (−0.8, 1.9, 1.9): the residual goes negative at the second
    # pivot, itself the largest residual; it fitted two columns without a word
    M = np.array([[1.0, 0.9, 0.9], [0.9, 1.0, -0.9], [0.9, -0.9, 1.0]])
    rows = np.arange(3.0)[:, None]
    model = MklarenRegressor([Precomputed(matrix=M)], n_components=3, lookahead=1)
    with pytest.raises(ValueError, match=r"the kernel matrix is not positive semi-definite"):
        model.fit(rows, np.array([1.0, 0.0, -1.0]))
    assert not hasattr(model, "n_features_in_")

"""Nyström kernel ridge by preconditioned CG (``solver="pcg"``), against dense solves of its
problem and against the in-memory Nyström solve (``solver="features"``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from lrkl import (
    LowRankRidge,
    LowRankRidgeClassifier,
    LowRankRidgeClassifierCV,
    LowRankRidgeCV,
)
from lrkl._backend import to_numpy
from lrkl.kernel_ridge._low_rank_pcg import preconditioner_sample
from lrkl.kernel_ridge._pcg import NystromSystem, factor_bytes
from lrkl.kernels import Gaussian, Linear


def _data(n=600, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n)
    return X, y


def _gauss(A, B, gamma):
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d2)


def _dense_problem(X, Y, w, centres, gamma, alpha, fit_intercept):
    """β, b minimising Σ w (K β + b − y)² + α βᵀ(K_MM + δI)β, by a dense least-squares solve of
    the stacked system [√W [K 1]; √α R 0] (R the Cholesky factor of K_MM + δI)."""
    K = _gauss(X, centres, gamma)
    K_MM = _gauss(centres, centres, gamma)
    M = centres.shape[0]
    delta = M * np.finfo(float).eps * K_MM.diagonal().max()
    R = np.linalg.cholesky(K_MM + delta * np.eye(M)).T
    root = np.sqrt(w)[:, None]
    design = np.hstack([K, np.ones((X.shape[0], 1))]) if fit_intercept else K
    penalty = np.hstack([R, np.zeros((M, 1))]) if fit_intercept else R
    A = np.vstack([root * design, np.sqrt(alpha) * penalty])
    rhs = np.vstack([root * Y, np.zeros((M, Y.shape[1]))])
    solution = np.linalg.lstsq(A, rhs, rcond=None)[0]
    beta = solution[:M]
    b = solution[M] if fit_intercept else np.zeros(Y.shape[1])
    return beta, b


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_targets", [1, 2])
def test_pcg_solves_the_dense_problem(fit_intercept, weighted, n_targets):
    X, y = _data(n=300)
    rng = np.random.default_rng(3)
    Y = np.c_[y, 2 * y + rng.normal(size=300)][:, :n_targets]
    w = rng.uniform(0.2, 3.0, size=300) if weighted else None
    gamma, alpha, M = 0.3, 0.05, 60
    centres = X[check_random_state(0).permutation(300)[:M]]
    model = LowRankRidge(
        [Gaussian(gamma=gamma)],
        rank=M,
        alpha=alpha,
        fit_intercept=fit_intercept,
        random_state=0,
        solver="pcg",
        pcg_tol=1e-12,
        pcg_max_iter=500,
    ).fit(X, Y if n_targets > 1 else y, sample_weight=w)
    beta, b = _dense_problem(
        X, Y, np.ones(300) if w is None else w, centres, gamma, alpha, fit_intercept
    )
    np.testing.assert_array_equal(model.centers_, centres)
    coef = model.dual_coef_ if n_targets > 1 else model.dual_coef_[:, None]
    scores = _gauss(X, centres, gamma)
    # the predictions (β itself is determined only up to K_MM's near-null directions)
    np.testing.assert_allclose(scores @ coef + model.intercept_, scores @ beta + b, atol=1e-7)
    assert model.solver_ == "pcg" and model.rank_ == (M,) and model.n_iter_ >= 1


def test_pcg_weights_within_their_span_agree_and_beyond_it_are_refused():
    """Twenty rows weighted 1e7 times the others: pcg, its preconditioner estimated with the
    weights, still gives the in-memory solve's model (with the unweighted one it ended 0.47 of
    the prediction spread away at 1e8); beyond 1e8 it is refused (at 1e10 it stopped 0.6 of the
    spread away without a warning, and a weight of 1e300 gave NaN predictions)."""
    X, y = _data(n=400, d=3)
    kw = {"kernels": [Gaussian()], "rank": 100, "random_state": 0}
    w = np.ones(400)
    w[:20] = 1e7
    direct = LowRankRidge(**kw).fit(X, y, sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        pcg = LowRankRidge(**kw, solver="pcg").fit(X, y, sample_weight=w)
    spread = np.ptp(direct.predict(X))
    assert np.abs(pcg.predict(X) - direct.predict(X)).max() <= 1e-4 * spread
    w[:20] = 1e10
    for model in (LowRankRidge(**kw, solver="pcg"), LowRankRidgeCV(**kw, solver="pcg")):
        with pytest.raises(ValueError, match=r"sample_weight .* within a factor 1e\+08 .* 1e\+10"):
            model.fit(X, y, sample_weight=w)
        assert not hasattr(model, "coef_")
    clf = LowRankRidgeClassifier(**kw, solver="pcg", class_weight={0: 1.0, 1: 1e9})
    with pytest.raises(ValueError, match=r"sample_weight \(times class_weight\)"):
        clf.fit(X, (y > 0).astype(int))


def test_the_weighted_preconditioner_sample():
    """The centres with their weights, then rows drawn in proportion to their weights, each
    weighing the others' total over the draws."""
    order = np.arange(10)
    weights = np.r_[1.0, 2.0, 3.0, np.zeros(6), 6.0]  # row 9 carries all the others' weight
    rows, kept = preconditioner_sample(order, 3, 6, weights, np.random.default_rng(0))
    assert rows == [0, 1, 2, 9, 9, 9] and kept == [1.0, 2.0, 3.0, 2.0, 2.0, 2.0]
    rows, kept = preconditioner_sample(order, 3, 3, weights, np.random.default_rng(0))
    assert rows == [0, 1, 2] and kept == [1.0, 2.0, 3.0]  # Falkon's: the centres alone


@pytest.mark.parametrize("alpha", [1.0, 0.1])
def test_pcg_agrees_with_the_in_memory_nystrom_solve(alpha):
    X, y = _data(n=2000, d=6)
    y = 50.0 + 20.0 * y  # raw targets
    kw = {"kernels": [Gaussian()], "rank": 300, "alpha": alpha, "random_state": 0}
    direct = LowRankRidge(**kw).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        pcg = LowRankRidge(**kw, solver="pcg").fit(X, y)
    spread = np.ptp(direct.predict(X))
    assert direct.solver_ == "features" and pcg.solver_ == "pcg"
    assert np.abs(pcg.predict(X) - direct.predict(X)).max() <= 1e-6 * spread
    assert pcg.kernels_[0].gamma == direct.kernels_[0].gamma


def test_constant_weights_are_the_unweighted_fit_at_a_scaled_alpha():
    X, y = _data(n=500)
    kw = {"rank": 80, "random_state": 0, "solver": "pcg"}
    weighted = LowRankRidge(alpha=0.4, **kw).fit(X, y, sample_weight=np.full(500, 4.0))
    plain = LowRankRidge(alpha=0.1, **kw).fit(X, y)
    assert weighted.n_iter_ == plain.n_iter_
    np.testing.assert_allclose(weighted.predict(X), plain.predict(X), rtol=0, atol=1e-12)


def test_the_kernel_cache_changes_nothing_but_rounding():
    X, y = _data(n=700)
    n, M = 700, 90
    cached = LowRankRidge(rank=M, random_state=0, solver="pcg").fit(X, y)
    # a budget that holds the factors but not the n × M cache: blocks recomputed per pass
    budget = factor_bytes(M) + n * M * 8 // 2
    recomputed = LowRankRidge(rank=M, random_state=0, solver="pcg", memory_budget=budget)
    recomputed.fit(X, y)
    np.testing.assert_allclose(recomputed.predict(X), cached.predict(X), atol=1e-10)
    assert recomputed.n_iter_ == cached.n_iter_


def test_warm_start_takes_fewer_iterations():
    X, y = _data(n=800)
    from lrkl.kernels import check_kernels

    kernel = check_kernels([Gaussian()], X)[0]
    S = X[:100]
    system = NystromSystem(kernel, X, S, fit_intercept=True, cache=True, n_targets=1, xp=np)
    targets = system.weighted(y, None)
    cold = system.solve(targets, 0.1, tol=1e-8, max_iter=300)
    near = system.solve(targets, 0.12, tol=1e-8, max_iter=300)
    warm = system.solve(targets, 0.1, tol=1e-8, max_iter=300, start=near.coef)
    assert cold.converged and warm.converged
    assert warm.n_iter < cold.n_iter
    # the predictions (β is ill-determined along K_MM's near-null directions)
    scores = kernel(X, S)
    cold_fit, warm_fit = scores @ cold.coef, scores @ warm.coef
    np.testing.assert_allclose(warm_fit, cold_fit, atol=1e-6 * np.ptp(cold_fit))


def test_the_iteration_cap_warns_and_verbose_reports(capsys):
    X, y = _data(n=400)
    model = LowRankRidge(rank=60, alpha=1e-4, solver="pcg", pcg_max_iter=2, verbose=1)
    with pytest.warns(ConvergenceWarning, match="pcg_max_iter"):
        model.fit(X, y)
    assert model.n_iter_ == 2
    assert "pcg iteration 2: relative residual" in capsys.readouterr().err


def test_the_cap_warning_names_the_users_alpha():
    """With sample weights it named the internal α of unit-scale weights (alpha=2.5e-05 for the
    user's 1e-4 under weights of 4)."""
    X, y = _data(n=400)
    model = LowRankRidge(rank=60, alpha=1e-4, solver="pcg", pcg_max_iter=2)
    with pytest.warns(ConvergenceWarning, match=r"at alpha=0\.0001: raise"):
        model.fit(X, y, sample_weight=np.full(400, 4.0))
    search = LowRankRidgeCV(rank=60, alphas=[1e-4], solver="pcg", pcg_max_iter=2)
    with pytest.warns(ConvergenceWarning, match=r"at alpha=0\.0001: raise"):
        search.fit(X, y, sample_weight=np.full(400, 4.0))


def test_auto_chooses_pcg_where_the_features_exceed_the_budget():
    X, y = _data(n=2000)
    n, M = 2000, 200
    budget = n * M * 8 - 1  # the features do not fit; the factors and the cache do not either
    assert factor_bytes(M) < budget
    model = LowRankRidge(rank=M, random_state=0, memory_budget=budget).fit(X, y)
    assert model.solver_ == "pcg"
    direct = LowRankRidge(rank=M, random_state=0).fit(X, y)
    assert direct.solver_ == "features"
    assert not hasattr(direct, "dual_coef_") and not hasattr(model, "coef_")
    np.testing.assert_allclose(model.predict(X), direct.predict(X), atol=1e-5)
    # ICD cannot take pcg: the features' MemoryError, as before
    with pytest.raises(MemoryError, match="memory_budget"):
        LowRankRidge(rank=M, method="icd", memory_budget=budget).fit(X, y)


def test_a_refit_with_another_solver_drops_the_other_model():
    X, y = _data(n=300)
    model = LowRankRidge(rank=40, random_state=0, solver="pcg").fit(X, y)
    model.set_params(solver="features").fit(X, y)
    assert not hasattr(model, "dual_coef_") and not hasattr(model, "centers_")
    model.set_params(solver="pcg").fit(X, y)
    assert not hasattr(model, "coef_") and not hasattr(model, "features_")
    with pytest.raises(ValueError, match="holds no features"):
        model.features(X)


@pytest.mark.parametrize(
    ("params", "needs"),
    [
        ({"method": "icd"}, "method='nystrom'"),
        ({"kernels": [Gaussian(), Linear()]}, "one kernel"),
        ({"centers": "leverage"}, "centers='uniform'"),
        ({"alpha": 0.0}, "alpha > 0"),
    ],
)
def test_pcg_refuses_what_it_cannot_solve(params, needs):
    X, y = _data(n=100)
    with pytest.raises(ValueError, match=f"solver='pcg' needs {needs}"):
        LowRankRidge(rank=10, solver="pcg", **params).fit(X, y)


def test_pcg_refuses_factors_beyond_the_budget_before_allocating():
    X, y = _data(n=300)
    with pytest.raises(MemoryError, match="two 200 × 200 arrays of factors"):
        LowRankRidge(rank=200, solver="pcg", memory_budget=factor_bytes(200) - 1).fit(X, y)
    # a Dask X's factors are held by this process too: the same budget bounds them
    da = pytest.importorskip("dask.array")
    lazy = da.from_array(X, chunks=(100, -1)), da.from_array(y, 100)
    with pytest.raises(MemoryError, match="two 200 × 200 arrays of factors"):
        LowRankRidge(rank=200, solver="pcg", memory_budget=factor_bytes(200) - 1).fit(*lazy)
    LowRankRidge(rank=200, solver="pcg", memory_budget=factor_bytes(200)).fit(*lazy)


def test_a_warm_started_solve_takes_a_step_within_one_iteration():
    """The warm start's residual is a pass but not an iteration: with ``max_iter=1`` each α of
    a path moves from its start (it counted, and a path with ``pcg_max_iter=1`` took no step:
    every α validated the same coefficients)."""
    from lrkl.kernels import check_kernels

    X, y = _data(n=300)
    kernel = check_kernels([Gaussian()], X)[0]
    system = NystromSystem(kernel, X, X[:40], fit_intercept=True, cache=True, n_targets=1, xp=np)
    targets = system.weighted(y, None)
    start = system.solve(targets, 10.0, tol=1e-10, max_iter=200).coef
    step = system.solve(targets, 0.1, tol=1e-10, max_iter=1, start=start)
    assert step.n_iter == 1 and not step.converged
    assert np.abs(step.coef - start).max() > 1e-3 * np.abs(start).max()


@pytest.mark.parametrize("labels", [[0, 0, 1, 1], [0] * 59 + [1]])
def test_the_holdout_is_unstratified_where_stratifying_is_impossible(labels):
    """Too few rows for a class on each side, or a class of one row: scikit-learn's stratified
    splitter refused (its ValueError named no parameter of lrkl's); the hold-out is then drawn
    unstratified, as ``solver="features"`` fits these labels by leave-one-out."""
    X, _ = _data(n=len(labels))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the rank clipped to the rows; the grid's edge
        model = LowRankRidgeClassifierCV(solver="pcg", random_state=0).fit(X, labels)
    assert model.predict(X).shape == (len(labels),)


def test_the_cv_refuses_pcg_factors_beyond_the_budget_before_the_width_search(monkeypatch):
    """The MemoryError comes before any width's features are built (the whole search ran
    first, then pcg refused)."""
    from lrkl.kernel_ridge._low_rank_model import _LowRankRidgeModel

    def no_search(*args, **kwargs):
        raise AssertionError("the width search ran")

    monkeypatch.setattr(_LowRankRidgeModel, "_path", no_search)
    X, y = _data(n=2000)
    model = LowRankRidgeCV(rank=1500, solver="pcg", memory_budget=20 * 2**20, random_state=0)
    with pytest.raises(MemoryError, match="memory_budget=20971520"):
        model.fit(X, y)


@pytest.mark.parametrize("solver", ["features", "pcg"])
def test_a_rank_above_the_width_searchs_rows_is_not_said_to_be_clipped(solver):
    """The width search compares widths on 1 000 of the 2 000 rows; the model keeps its 1 500
    centres, and no warning says that they were cut to 1 000."""
    X, y = _data(n=2000)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", ".*exceeds n_samples", UserWarning)
        model = LowRankRidgeCV(rank=1500, solver=solver, random_state=0).fit(X, y)
    assert model.rank_ == (1500,)


def test_pcg_fits_on_a_dask_x_as_in_memory():
    da = pytest.importorskip("dask.array")
    X, y = _data(n=900)
    kw = {"rank": 100, "random_state": 0, "solver": "pcg"}
    memory = LowRankRidge(**kw).fit(X, y)
    lazy = LowRankRidge(**kw).fit(da.from_array(X, chunks=(250, -1)), da.from_array(y, 250))
    assert abs(lazy.n_iter_ - memory.n_iter_) <= 1  # the sums differ by rounding only
    np.testing.assert_array_equal(to_numpy(lazy.centers_), memory.centers_)
    predicted = lazy.predict(da.from_array(X, chunks=(250, -1)))
    expected = memory.predict(X)
    assert isinstance(predicted, da.Array)
    np.testing.assert_allclose(
        np.asarray(predicted.compute()), expected, atol=1e-6 * np.ptp(expected)
    )


@pytest.mark.parametrize("n_classes", [2, 3])
def test_pcg_classifier_fits_on_a_dask_x_as_in_memory(n_classes):
    """The ±1 targets are made on the host: on a Dask X they take its row chunks (they were
    handed to the Dask passes as a NumPy array, an AttributeError)."""
    da = pytest.importorskip("dask.array")
    X, y = _data(n=900)
    labels = np.digitize(y, np.quantile(y, np.linspace(0, 1, n_classes + 1)[1:-1]))
    kw = {"rank": 100, "random_state": 0, "solver": "pcg"}
    memory = LowRankRidgeClassifier(**kw).fit(X, labels)
    lazy = LowRankRidgeClassifier(**kw).fit(da.from_array(X, chunks=(250, -1)), labels)
    expected = memory.decision_function(X)
    np.testing.assert_allclose(
        np.asarray(lazy.decision_function(X)), expected, atol=1e-6 * np.ptp(expected)
    )


@pytest.mark.parametrize("kernel", [Gaussian(), Linear()], ids=["gaussian", "linear"])
@pytest.mark.parametrize("classifier", [False, True])
def test_pcg_cv_holds_out_rows_of_a_dask_x_as_in_memory(classifier, kernel, monkeypatch):
    """The hold-out of a Dask X is rows weighed zero in the chunked passes: the same α and,
    to CG's tolerance, the same predictions as in memory (it was refused), and neither X nor a
    Dask y is gathered on the client for the splitter, and the kernel's trace (the grid's
    scale) is summed over X's chunks, not evaluated on the whole Dask X."""
    da = pytest.importorskip("dask.array")
    import lrkl._model_selection as model_selection

    X, y = _data(n=900)
    target = (y > np.median(y)).astype(int) if classifier else y
    Estimator = LowRankRidgeClassifierCV if classifier else LowRankRidgeCV
    kw = {"kernels": [kernel], "rank": 100, "random_state": 0, "solver": "pcg"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a linear kernel: α at the grid's edge
        memory = Estimator(**kw).fit(X, target)
    real, seen = model_selection.to_numpy, []

    def no_dask(a):
        assert not isinstance(a, da.Array), "a Dask array gathered for the splitter"
        seen.append(a.shape)
        return real(a)

    monkeypatch.setattr(model_selection, "to_numpy", no_dask)
    diagonal = type(kernel)._diag

    def on_blocks(self, rows, *, xp):
        assert not isinstance(rows, da.Array), "the kernel's diagonal on the whole Dask X"
        return diagonal(self, rows, xp=xp)

    monkeypatch.setattr(type(kernel), "_diag", on_blocks)
    lazy_X = da.from_array(X, chunks=(250, -1))
    lazy_target = target if classifier else da.from_array(target, 250)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a linear kernel: α at the grid's edge
        lazy = Estimator(**kw).fit(lazy_X, lazy_target)
    assert seen  # the splitter ran, on stand-ins
    np.testing.assert_allclose(lazy.alpha_, memory.alpha_, rtol=1e-12)
    score = "decision_function" if classifier else "predict"
    expected = getattr(memory, score)(X)
    got = getattr(lazy, score)(lazy_X)
    np.testing.assert_allclose(np.asarray(got), expected, atol=1e-6 * np.ptp(expected))


def test_pcg_dask_tasks_do_not_carry_the_factors(monkeypatch):
    """Each Dask task of a pcg pass carries the kernel, the centres and its vectors, not the
    system's two M × M arrays of factors (which went with every task, 65 MB at M = 2 000)."""
    da = pytest.importorskip("dask.array")
    cloudpickle = pytest.importorskip("cloudpickle")
    from lrkl import _executor

    sizes = []
    delayed_call = _executor.delayed_call

    def recorded(fn, *args, **kwargs):
        sizes.append(len(cloudpickle.dumps(fn)))
        return delayed_call(fn, *args, **kwargs)

    monkeypatch.setattr(_executor, "delayed_call", recorded)
    X, y = _data(n=1200)
    M = 600
    LowRankRidge(rank=M, random_state=0, solver="pcg").fit(
        da.from_array(X, chunks=(300, -1)), da.from_array(y, 300)
    )
    assert sizes
    assert max(sizes) < M * M * 8 / 4  # the factors are 2 M² floats; the centres M d


def test_pcg_runs_on_every_backend(backend):
    X, y = _data(n=300)
    kw = {"rank": 40, "random_state": 0, "solver": "pcg", "pcg_tol": 1e-11, "pcg_max_iter": 300}
    reference = LowRankRidge(**kw).fit(X, y)
    model = LowRankRidge(**kw)
    model.fit(backend.asarray(X), backend.asarray(y))
    predicted = model.predict(backend.asarray(X))
    assert type(predicted) is type(backend.asarray(y))
    np.testing.assert_allclose(to_numpy(predicted), reference.predict(X), atol=1e-8)


def test_cv_validates_each_alpha_on_held_out_rows():
    X, y = _data(n=500)
    alphas = (10.0, 1.0, 0.1)
    model = LowRankRidgeCV(
        rank=60, alphas=alphas, random_state=0, solver="pcg", gamma_factors=None, pcg_tol=1e-10
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a choice on the grid's end
        model.fit(X, y)
    # the hold-out: ShuffleSplit(1, test_size=0.2) on the landmarks' seed
    from sklearn.model_selection import ShuffleSplit

    train, test = next(ShuffleSplit(1, test_size=0.2, random_state=0).split(X))
    centres = model.centers_
    gamma = model.kernels_[0].gamma
    w = np.zeros(500)
    w[train] = 1.0
    expected = []
    for alpha in alphas:
        beta, b = _dense_problem(X, y[:, None], w, centres, gamma, alpha, True)
        residual = _gauss(X[test], centres, gamma) @ beta + b - y[test, None]
        expected.append(float(np.mean(residual**2)))
    got = [row[0] for row in model.mse_path_]
    np.testing.assert_allclose(got, expected, rtol=1e-3)  # the path is solved to 1e-4
    assert model.alpha_ == alphas[int(np.argmin(expected))]
    full = LowRankRidge(rank=60, alpha=model.alpha_, random_state=0, solver="pcg")
    full.set_params(kernels=model.kernels_, pcg_tol=1e-10).fit(X, y)
    np.testing.assert_allclose(model.predict(X), full.predict(X), atol=1e-6)


def test_validation_errors_within_the_paths_tolerance_tie_and_the_largest_alpha_wins():
    from lrkl._model_selection import choose_from_grid

    def choice(grid, errors, rtol):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # a choice on the grid's end
            return choose_from_grid("M", "alpha", grid, [errors], top="", advice="", rtol=rtol)[0]

    errors = [2.0, 1.0 + 5e-5, 1.0]  # one fold; the tolerance is relative to the largest, 2
    assert choice((1.0, 0.1, 0.01), errors, 0.0) == 0.01  # the strict minimum, as without
    assert choice((1.0, 0.1, 0.01), errors, 1e-4) == 0.1
    assert choice((1.0, 0.1, 0.01), errors, 1e-5) == 0.01
    assert choice((0.01, 0.1, 1.0), errors[::-1], 1e-4) == 0.1  # the largest, in any order
    assert choice((1.0, 0.1), [float("nan"), 1.0], 1e-4) == 1.0  # NaN first: as without
    # validated on its own training rows, every small α nearly interpolates them: the pcg
    # path's errors there agree within its tolerance of their scale, and the largest such α
    # is chosen (the choice among them turned on the BLAS kernel)
    rng = np.random.RandomState(42)  # scikit-learn's weight-equivalence check's data
    X, y = np.tile(rng.rand(15, 30), (3, 1)), np.tile(rng.randint(0, 3, 15).astype(float), 3)
    folds = [(np.arange(15, 45), np.arange(15)), (np.arange(30), np.arange(30, 45))]
    model = LowRankRidgeCV(random_state=0, solver="pcg", gamma_factors=None, cv=folds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a choice on the grid's end
        model.fit(X, y)
    means = [float(np.mean(row)) for row in model.mse_path_]
    tied = [i for i, mean in enumerate(means) if mean <= min(means) + 1e-4 * max(means)]
    assert len(tied) > 1  # the case is a tie, not a clear minimum
    assert model.alpha_ == max(model.alphas_[i] for i in tied) > min(model.alphas_)


def test_cv_default_grid_and_width_search_with_pcg():
    X, y = _data(n=1500, d=5)
    model = LowRankRidgeCV(rank=150, random_state=0, solver="pcg").fit(X, y)
    assert len(model.alphas_) == 5 and model.alpha_ in model.alphas_
    assert model.width_search_ is not None and model.width_search_["rows"] == 1000
    direct = LowRankRidgeCV(rank=150, random_state=0).fit(X, y)
    assert model.kernels_[0].gamma == direct.kernels_[0].gamma  # the same search
    rng = np.random.default_rng(9)
    X_test = rng.normal(size=(1000, 5))
    y_test = np.sin(2 * X_test[:, 0]) + X_test[:, 1] * X_test[:, 2]
    assert model.score(X_test, y_test) >= direct.score(X_test, y_test) - 0.02


def test_ridge_classifiers_with_pcg():
    X, y = _data(n=800)
    labels = np.where(y > 0.5, "high", np.where(y < -0.5, "low", "mid"))
    kw = {"rank": 100, "random_state": 0}
    direct = LowRankRidgeClassifier(**kw).fit(X, labels)
    pcg = LowRankRidgeClassifier(**kw, solver="pcg").fit(X, labels)
    np.testing.assert_allclose(pcg.decision_function(X), direct.decision_function(X), atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a choice on the grid's end
        cv = LowRankRidgeClassifierCV(**kw, solver="pcg", gamma_factors=None).fit(X, labels)
    assert list(cv.classes_) == ["high", "low", "mid"] and cv.score(X, labels) > 0.6


def test_a_preconditioner_from_more_rows_solves_the_same_problem_in_fewer_iterations():
    from lrkl.kernel_ridge._pcg import preconditioner_rows
    from lrkl.kernels import check_kernels

    X, y = _data(n=6000, d=5)
    M = 150
    assert preconditioner_rows(6000, M) == 4 * M
    assert preconditioner_rows(60_000, 20_000) == 20_000  # Falkon's at large M
    kernel = check_kernels([Gaussian()], X)[0]
    order = check_random_state(0).permutation(6000)
    sample = X[order[: 4 * M]]
    solutions = []
    for rows in (None, sample):
        system = NystromSystem(
            kernel, X, sample[:M], fit_intercept=True, cache=True, n_targets=1, xp=np, sample=rows
        )
        solutions.append(system.solve(system.weighted(y, None), 0.1, tol=1e-9, max_iter=1000))
    falkon, more = solutions
    assert falkon.converged and more.converged
    assert more.n_iter < falkon.n_iter
    scores = kernel(X, sample[:M])
    np.testing.assert_allclose(
        scores @ more.coef + more.intercept, scores @ falkon.coef + falkon.intercept, atol=1e-6
    )


def test_float32_rows_are_the_float64_fit_unless_float32_kernel_values_are_asked_for():
    """Float32 kernel values change the problem (its weakly penalised directions fit their
    rounding: 9e-2 of the spread here when the blocks followed X's float32), so by default pcg
    computes them, and keeps β, in float64: the float64 fit of the same values, predicting
    float32; ``kernel_dtype="float32"`` keeps the cache and β in float32."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3)).astype(np.float32)
    y = (np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.normal(size=2000)).astype(np.float32)
    params = {"kernels": [Gaussian(gamma=0.05)], "rank": 300, "alpha": 1e-3, "random_state": 0}
    wide = LowRankRidge(solver="pcg", **params).fit(X.astype(np.float64), y.astype(np.float64))
    reference = wide.predict(X.astype(np.float64))
    model = LowRankRidge(solver="pcg", **params).fit(X, y)
    assert model.centers_.dtype == np.float32 and model.dual_coef_.dtype == np.float64
    predictions = model.predict(X)
    assert predictions.dtype == np.float32
    assert np.abs(predictions - reference).max() <= 1e-5 * np.ptp(reference)
    narrow = LowRankRidge(solver="pcg", kernel_dtype="float32", **params).fit(X, y)
    assert narrow.dual_coef_.dtype == np.float32 and narrow.predict(X).dtype == np.float32
    assert np.abs(narrow.predict(X) - reference).max() > 1e-3 * np.ptp(reference)


@pytest.mark.parametrize("sample", [False, True])
def test_float32_rows_keep_the_preconditioners_gram_in_float32_and_solve_the_same_problem(sample):
    """T and A share one float64 array; T Tᵀ/M − t̄ t̄ᵀ is kept in X's float32 (12 M² bytes in
    all): it only preconditions, so the solution is the float64 system's on the same values."""
    from lrkl.kernels import check_kernels

    X, y = _data(n=2000, d=5)
    X32 = X.astype(np.float32)
    M = 200
    kernel = check_kernels([Gaussian()], X)[0]
    rows = X32[:800] if sample else None
    solutions = []
    for data in (X32, X32.astype(np.float64)):
        system = NystromSystem(
            kernel,
            data,
            data[:M],
            fit_intercept=True,
            cache=True,
            n_targets=1,
            xp=np,
            sample=None if rows is None else rows.astype(data.dtype),
        )
        assert system.factors.dtype == np.float64 and system.factors.shape == (M, M)
        assert system.TT.dtype == (np.float64 if sample else data.dtype)  # QᵀQ/s: float64
        solutions.append(system.solve(system.weighted(y, None), 0.1, tol=1e-9, max_iter=500))
    narrow, wide = solutions
    assert narrow.converged and wide.converged
    assert abs(narrow.n_iter - wide.n_iter) <= 2
    scores = kernel(X32.astype(np.float64), X32[:M].astype(np.float64))
    np.testing.assert_allclose(
        scores @ narrow.coef + narrow.intercept,
        scores @ wide.coef + wide.intercept,
        atol=1e-5 * np.ptp(y),
    )
    assert factor_bytes(M, 4) < factor_bytes(M, 8)


def test_a_float32_gram_indefinite_by_its_rounding_raises_a_shift_not_an_error():
    """Where the float32 gram plus λ I is indefinite (within its rounding), A's shift is raised
    until it factors; the problem keeps λ: the same β as with the gram that factors at λ."""
    from lrkl._linalg import NotPositiveDefiniteError, cholesky_into
    from lrkl.kernels import check_kernels

    X, y = _data(n=600, d=3)
    X32, M = X.astype(np.float32), 150
    kernel = check_kernels([Gaussian(gamma=0.05)], X)[0]
    systems = [
        NystromSystem(kernel, X32, X32[:M], fit_intercept=True, cache=True, n_targets=1, xp=np)
        for _ in range(2)
    ]
    rounding = M * np.finfo(np.float32).eps * np.abs(np.diag(systems[1].TT)).max()
    systems[1].TT -= np.float32(0.5 * rounding) * np.eye(M, dtype=np.float32)  # indefinite
    lam = 0.1 * rounding
    cholesky_into(systems[0].TT, np.zeros((M, M)), xp=np, shift=lam, lower=True)
    with pytest.raises(NotPositiveDefiniteError):
        cholesky_into(systems[1].TT, np.zeros((M, M)), xp=np, shift=lam, lower=True)
    solutions = []
    for system in systems:
        targets = system.weighted(y, None)
        solution = system.solve(targets, lam * targets.total_weight, tol=1e-10, max_iter=2000)
        assert solution.converged
        solutions.append(solution)
    scores = kernel(X32.astype(np.float64), X32[:M].astype(np.float64))
    a, b = (scores @ s.coef + s.intercept for s in solutions)
    np.testing.assert_allclose(a, b, atol=1e-6 * np.ptp(a))


def test_the_pcg_system_holds_no_more_than_factor_bytes_beside_its_cache():
    """The M × M arrays (K_MM evaluated by row blocks, T and A sharing one array, the float32
    gram) and the factorisations' work stay within factor_bytes; the kernel cache is apart."""
    import tracemalloc

    from lrkl.kernel_ridge._pcg import PASS_CHUNK, preconditioner_rows
    from lrkl.kernels import check_kernels

    n, M = 3000, 1200
    assert preconditioner_rows(n, M) == M  # Falkon's: the gram in X's float32
    X, y = _data(n=n, d=5)
    X32 = X.astype(np.float32)
    kernel = check_kernels([Gaussian()], X)[0]
    tracemalloc.start()
    try:
        system = NystromSystem(
            kernel, X32, X32[:M], fit_intercept=True, cache=False, n_targets=1, xp=np
        )
        system.solve(system.weighted(y, None), 1.0, tol=1e-6, max_iter=50)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    passes = 4 * PASS_CHUNK * M * 8 + 64 * n * 8  # two threads' chunks, n-vectors
    assert peak <= factor_bytes(M, 4, n) + passes
    assert factor_bytes(M, 4, n) < factor_bytes(M, 8, n)
    assert factor_bytes(100, 4, 100_000) == factor_bytes(100, 8, 100_000)  # from more rows

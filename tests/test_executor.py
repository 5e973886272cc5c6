"""The in-memory executor (``lrkl._executor.InMemory``): its passes over row blocks give the
results of one block. The Dask executor is tested in ``test_executor_dask.py``."""

from __future__ import annotations

import numpy as np


def test_in_memory_blocks_give_the_one_block_results():
    """InMemory's primitives on blocks of 3 rows (a memory budget) against one block."""
    import array_api_compat.numpy as xp

    from lrkl._executor import InMemory

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(10, 4)), rng.normal(size=10)
    whole, blocks = InMemory(xp), InMemory(xp, block_rows=3)
    assert (whole.n_blocks(X), blocks.n_blocks(X)) == (1, 4)

    def square(rows):
        return rows * rows

    for run in (whole, blocks):
        np.testing.assert_array_equal(run.map(square, X, tail=(4,), dtype=X.dtype), X * X)
        G, d = run.map_many(lambda r: (2.0 * r, r[:, 0]), X, ((4,), X.dtype), ((), X.dtype))
        np.testing.assert_array_equal(G, 2.0 * X)
        np.testing.assert_array_equal(d, X[:, 0])
        gram, rhs = run.sum(lambda Z, t: (Z.T @ Z, Z.T @ t), X, y)
        np.testing.assert_allclose(gram, X.T @ X, rtol=1e-14)
        np.testing.assert_allclose(rhs, X.T @ y, rtol=1e-14)
        # a GEMV's rounding may depend on the number of rows (OpenBLAS's Prescott kernel)
        np.testing.assert_allclose(
            run.rows_apply(lambda r, c: r @ c, X, y[:4]), X @ y[:4], rtol=1e-14
        )
        states, offsets = run.start(lambda chunk: (chunk[0].copy(), chunk[1]), X)
        assert offsets == ([0] if run is whole else [0, 3, 6, 9])
        states, _ = run.step(lambda state, c: (state + c, None), states, 1.0)
        np.testing.assert_array_equal(run.stack(states, lambda s: s, (4,), X.dtype), X + 1.0)
    np.testing.assert_array_equal(blocks.first(lambda Z: Z, X), X[:3])


def test_a_pass_runs_on_blocks_of_its_memory_budget_and_on_one_when_it_fits(monkeypatch):
    """executor_for's ``row_work``: blocks of at most IN_MEMORY_BLOCK_ENTRIES work entries; one
    block when all the rows fit; without ``row_work`` one block."""
    from lrkl import _executor

    X = np.zeros((100, 3))
    monkeypatch.setattr(_executor, "IN_MEMORY_BLOCK_ENTRIES", 1_000)
    assert _executor.executor_for(X, row_work=30).n_blocks(X) == 4  # 33 rows a block
    assert _executor.executor_for(X, row_work=10).n_blocks(X) == 1  # 100 rows fit
    assert _executor.executor_for(X, row_work=10**6).n_blocks(X) == 100  # at least a row
    assert _executor.executor_for(X).n_blocks(X) == 1
    monkeypatch.setattr(_executor, "IN_MEMORY_BLOCK_ROWS", 7)  # the tests' override wins
    assert _executor.executor_for(X, row_work=30).n_blocks(X) == 15


def test_nystrom_and_its_ridge_under_a_small_budget_equal_one_block(monkeypatch):
    """A Nyström factor, its features of new rows, and LowRankRidge(CV)'s statistics and
    leave-one-out errors on blocks of the budget (here a few rows each) against one block:
    the same features bit for bit up to the GEMM's rounding, predictions within 1e-10."""
    from lrkl import LowRankRidgeCV, _executor
    from lrkl.kernels import Gaussian
    from lrkl.lowrank import nystrom

    rng = np.random.default_rng(0)
    X, T = rng.normal(size=(90, 3)), rng.normal(size=(25, 3))
    y = np.sin(X[:, 0]) + X[:, 1]
    kernel = Gaussian(0.3)
    one = nystrom(kernel, X, 20, random_state=0)
    model = LowRankRidgeCV([kernel], method="nystrom", rank=20, random_state=0).fit(X, y)
    expected = (one.G, one.transform(T), model.predict(T), model.alphas_.index(model.alpha_))
    monkeypatch.setattr(_executor, "IN_MEMORY_BLOCK_ENTRIES", 500)  # 6–8 rows a block
    blocks = []  # per pass over the rows, its number of blocks
    row_slices = _executor.InMemory._row_slices

    def counted(self, n):
        slices = row_slices(self, n)
        blocks.append(len(slices))
        return slices

    monkeypatch.setattr(_executor.InMemory, "_row_slices", counted)
    blocked = nystrom(kernel, X, 20, random_state=0)
    features = blocked.transform(T)
    assert max(blocks) > 10 and blocks[-1] > 1  # the factor's pass, then the new rows'
    blocks.clear()
    model = LowRankRidgeCV([kernel], method="nystrom", rank=20, random_state=0).fit(X, y)
    assert sum(count > 1 for count in blocks) >= 3  # the features, statistics, LOO errors
    got = (blocked.G, features, model.predict(T), model.alphas_.index(model.alpha_))
    for a, b in zip(got[:3], expected[:3], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert got[3] == expected[3]  # the same α of the grid (its values: sums, to rounding)

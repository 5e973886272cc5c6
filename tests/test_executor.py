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

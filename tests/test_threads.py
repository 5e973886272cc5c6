"""lrkl's own threads (:mod:`lrkl._threads`): as many as the BLAS has, only from the main thread,
each with a one-thread BLAS, the BLAS's setting restored afterwards."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from lrkl._threads import blas_threads, host_workers, run_chunks
from lrkl.kernels import Gaussian


def test_chunks_run_on_one_thread_blas_and_the_setting_is_restored():
    seen = []
    with threadpool_limits(2, user_api="blas"):
        before = blas_threads()
        run_chunks(lambda start: seen.append((start, blas_threads())), range(8), 2)
        assert blas_threads() == before
    assert sorted(start for start, _ in seen) == list(range(8))
    assert {threads for _, threads in seen} == {1}


def test_an_error_in_a_chunk_is_raised_and_the_setting_restored():
    def work(start):
        if start == 3:
            raise ArithmeticError("chunk 3")

    with threadpool_limits(2, user_api="blas"):
        before = blas_threads()
        with pytest.raises(ArithmeticError, match="chunk 3"):
            run_chunks(work, range(6), 2)
        assert blas_threads() == before


def test_only_the_main_thread_spreads_its_chunks():
    with threadpool_limits(2, user_api="blas"):
        assert host_workers() == blas_threads()
        elsewhere = []
        thread = threading.Thread(target=lambda: elsewhere.append(host_workers()))
        thread.start()
        thread.join()
    assert elsewhere == [1]


@pytest.mark.parametrize("threads", [1, 2])
def test_gaussian_blocks_do_not_depend_on_the_threads(threads):
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(3000, 4)), rng.normal(size=(800, 4))
    with threadpool_limits(1, user_api="blas"):
        one = Gaussian(gamma=0.3)(X, Z)
    with threadpool_limits(threads, user_api="blas"):
        many = Gaussian(gamma=0.3)(X, Z)
    np.testing.assert_array_equal(many, one)  # each chunk's values are the same
    reference = np.exp(-0.3 * ((X[:, None, :] - Z[None]) ** 2).sum(-1))
    np.testing.assert_allclose(many, reference, rtol=0, atol=1e-14)

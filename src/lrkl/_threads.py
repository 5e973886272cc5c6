"""The host's BLAS threads (threadpoolctl): how many there are, and limits inside a context.

lrkl never runs more threads than the BLAS is allowed: a pass that parallelises NumPy work of
its own (the kernel blocks' elementwise passes, ``lrkl._linalg.nonpositive_expansion``) uses
as many threads as the BLAS has, each with a one-thread BLAS, so that ``BLAS threads × workers
≤ cores`` holds as the user set it (``threadpoolctl.threadpool_limits``, ``OMP_NUM_THREADS``;
with Dask, one BLAS thread per worker).
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType
from typing import Any, NamedTuple

from threadpoolctl import ThreadpoolController

from lrkl._backend import on_host_numpy


@functools.cache
def _blas_controller() -> ThreadpoolController:
    """The loaded BLAS libraries, inspected once (a fresh inspection costs about a millisecond)."""
    return ThreadpoolController()


def blas_limit(threads: int | None) -> contextlib.AbstractContextManager:
    """BLAS limited to ``threads`` threads inside the context (``None``: unchanged)."""
    if threads is None:
        return contextlib.nullcontext()
    return _blas_controller().limit(limits=threads, user_api="blas")


def blas_threads() -> int:
    """The BLAS's current number of threads (1 where no BLAS is found); a few microseconds."""
    counts = [int(lib["num_threads"]) for lib in _blas_controller().select(user_api="blas").info()]
    return max(counts, default=1)


#: Entries of a chunk of a NumPy pass: its rows are at least this over the columns, so that
#: narrow blocks (a few landmarks) are not cut into chunks whose calls cost more than their work.
CHUNK_ENTRIES = 2**19


#: The smallest block of work (kernel entries) whose chunks are spread over threads: below it
#: (about 5 ms of work) starting the threads would cost more than they save.
THREADED_ENTRIES = 2**20

#: The threads a main-thread pass may run its chunks on: one pool and its size, replaced by a
#: larger one on demand. Passes from other threads (Dask's workers, a user's pool) run their
#: chunks in their own thread: their parallelism is already the workers', and only one thread
#: may change the BLAS's limit at once.
_POOL: list[tuple[ThreadPoolExecutor, int]] = []
_POOL_LOCK = threading.Lock()


def host_workers() -> int:
    """How many threads a NumPy pass in this thread may use: the BLAS's threads in the main
    thread, 1 elsewhere."""
    if threading.current_thread() is not threading.main_thread():
        return 1
    return blas_threads()


class ChunkPlan(NamedTuple):
    """The row chunks of a NumPy pass and the threads to run them on."""

    slices: list[slice]  # the chunks' rows
    workers: int


def plan_chunks(n_rows: int, n_cols: int, minimum: int, *, xp: ModuleType) -> ChunkPlan:
    """Chunks of ``minimum`` rows, or more where the columns are few (at least
    :data:`CHUNK_ENTRIES` entries: narrow blocks are not cut into chunks whose calls cost more
    than their work), on :func:`host_workers` threads where the block has
    :data:`THREADED_ENTRIES` entries or more and several chunks, else on this one. Off NumPy
    (:func:`lrkl._backend.on_host_numpy`), the whole block as one chunk."""
    if not on_host_numpy(xp):
        return ChunkPlan([slice(0, n_rows)], 1)
    step = max(minimum, CHUNK_ENTRIES // max(1, n_cols))
    chunks = [slice(start, min(start + step, n_rows)) for start in range(0, n_rows, step)]
    threaded = len(chunks) > 1 and n_rows * n_cols >= THREADED_ENTRIES
    return ChunkPlan(chunks, min(host_workers(), len(chunks)) if threaded else 1)


def run_chunks(work: Callable[[Any], None], items: Iterable[Any], workers: int) -> None:
    """``work(item)`` for every item, on ``workers`` threads with a one-thread BLAS inside
    (in this thread alone when ``workers`` is 1); an exception in one is raised here."""
    if workers <= 1:
        for item in items:
            work(item)
        return
    with _POOL_LOCK:
        if not _POOL or _POOL[0][1] < workers:
            _POOL[:] = [(ThreadPoolExecutor(workers, thread_name_prefix="lrkl"), workers)]
        pool = _POOL[0][0]
    with blas_limit(1):
        list(pool.map(work, items))

"""Row passes, written once: the executor that runs them in memory or on Dask.

Every lrkl algorithm is passes over the n rows around small solves. An algorithm writes each
pass once, against :func:`executor_for`'s object, and the executor runs it:

- :meth:`~InMemory.map`: a function of row blocks whose result has a row per input row (the
  training features of a Nyström factor, a kernel diagonal); lazy on Dask;
- :meth:`~InMemory.sum`: a function of row blocks returning a tuple of arrays of fixed shapes,
  summed over the blocks (the ridge statistics ``ZᵀZ``, ``Zᵀy``, column sums; SLKL's Gram pass);
- :meth:`~InMemory.gather`: a :meth:`~InMemory.map` brought into memory (CSI's kernel columns,
  the kernel diagonal, whose pass also checks a lazy X for NaN and infinity);
- :meth:`~InMemory.take`: a few rows in memory (landmarks, pivots, candidates);
- :meth:`~InMemory.start`, :meth:`~InMemory.step`, :meth:`~InMemory.stack`: a sequential
  algorithm whose state is a few n-vectors per row block, kept where the block is (ICD: one
  step per pivot), with only a small summary per block coming back;
- :meth:`~InMemory.compute`, :meth:`~InMemory.concat_columns`: values in memory, and
  features side by side.

:class:`InMemory` runs a pass on arrays of any array-API library block after block, under a
memory budget: a pass that declares the work entries it allocates per row (``row_work``) runs
on blocks of at most :data:`IN_MEMORY_BLOCK_ENTRIES` work entries, and on one block of all the
rows when they fit (its results are then one pass's; on several blocks they differ by rounding
only). A pass that declares none, whose work is a few vectors per row, runs on one block.
:class:`OnDask` runs it on a row-chunked ``dask.array`` as one Dask graph per pass, on whatever
scheduler the user has set up (a ``dask.distributed`` cluster, threads); the small results come
back to the process that called ``fit``, and the first pass over the chunks checks them for NaN
and infinity (no pass of its own).

This module and :mod:`lrkl._backend` are the only ones that know Dask exists. Dask is imported
only when a Dask array is passed: it is an optional dependency (``pip install lrkl[dask]``).
Estimators whose algorithm needs random access to single rows refuse Dask input with a clear
error (:func:`refuse`).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterator
from typing import Any

import array_api_compat

from lrkl._backend import (
    check_array,
    device_of,
    ensure_array,
    float_dtype,
    get_namespace,
    index_array,
    require_finite,
    require_targets_fit,
)
from lrkl._checks import check_integer
from lrkl._typing import Array

#: Default budget of a kernel block: 2**22 entries, 32 MiB in float64.
DEFAULT_MAX_ENTRIES = 2**22


def row_slices(n_rows: int, n_cols: int, max_entries: int = DEFAULT_MAX_ENTRIES) -> Iterator[slice]:
    """Slices over ``n_rows`` rows such that each block of ``n_cols`` columns fits the budget."""
    n_rows = check_integer(n_rows, name="n_rows", low=0)
    n_cols = check_integer(n_cols, name="n_cols", low=0)
    max_entries = check_integer(max_entries, name="max_entries")
    step = max(1, max_entries // max(n_cols, 1))
    for start in range(0, n_rows, step):
        yield slice(start, min(start + step, n_rows))


#: The estimators whose ``fit`` accepts a row-chunked Dask array.
DASK_FIT = (
    "SLKLRegressor",
    "SLKLClassifier",
    "LowRankRidge, LowRankRidgeCV (cv=None) and LowRankFeatures",
    "KernelRidge (method='cg')",
    "LowRankMKLClassifier and LowRankMKLClassifierCV (the SVM on the features in memory)",
)


def is_dask_array(x: Any) -> bool:
    """Whether ``x`` is a ``dask.array.Array`` (without importing Dask)."""
    return type(x).__module__.startswith("dask.") and hasattr(x, "chunks")


def refuse(X: Any, *, owner: str) -> None:
    """Raise a :class:`TypeError` naming ``owner`` if ``X`` is a Dask array its ``fit`` cannot
    take."""
    if is_dask_array(X):
        msg = (
            f"{owner}.fit does not accept Dask arrays: it needs X in memory (an n × n kernel "
            "matrix, rows picked one at a time, or a solver whose passes run in memory). Dask "
            "input is fitted by "
            f"{', '.join(DASK_FIT)}; predict, decision_function and transform of every "
            "estimator accept it. Call X.compute() to fit in memory."
        )
        raise TypeError(msg)


def check_rows(X: Array, y: Any = None) -> tuple[Array, Any]:
    """``X`` chunked along the rows only, and ``y`` as a Dask array with the same row chunks
    (a NumPy ``y`` is wrapped without a copy)."""
    import dask.array as da

    meta = X._meta
    if not array_api_compat.is_numpy_array(meta) and not array_api_compat.is_cupy_array(meta):
        msg = f"X must be a Dask array of NumPy or CuPy chunks, received chunks of {type(meta)}"
        raise TypeError(msg)
    for name, a in (("X", X), ("y", y)):
        if is_dask_array(a) and any(size != size for size in a.chunks[0]):  # NaN: unknown
            msg = (
                f"{name} must have known chunk sizes, received unknown ones (after boolean "
                f"indexing, or from a DataFrame): call {name}.compute_chunk_sizes() first"
            )
            raise ValueError(msg)
    if X.ndim == 2 and len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})  # a row chunk must hold whole rows
    if y is not None:
        y = y if is_dask_array(y) else da.from_array(y, chunks=(X.chunks[0], *y.shape[1:]))
        y = y.rechunk((X.chunks[0], *y.shape[1:]))
    return X, y


def chunk_namespace(X: Array) -> Any:
    """The array namespace of ``X``'s chunks (NumPy or CuPy), in which the small solves run."""
    return array_api_compat.array_namespace(X._meta)


def like_rows(a: Array, X: Array) -> Array:
    """The in-memory ``a`` (n × …) as a Dask array with the row chunks of the Dask ``X``."""
    import dask.array as da

    return da.from_array(a, chunks=(X.chunks[0], *a.shape[1:]))


def take_rows(X: Array, rows: Any) -> Array:
    """The rows ``rows`` of the Dask array ``X`` as one in-memory array (one small graph)."""
    return X[list(rows)].compute()


def dask_compute(*arrays: Array) -> tuple[Array, ...]:
    """Compute several Dask arrays in one graph (``dask.compute``)."""
    import dask

    return dask.compute(*arrays)


def row_sums(fn: Callable[..., tuple[Array, ...]], *arrays: Array) -> tuple[Array, ...]:
    """``Σ_chunks fn(*chunks)`` over aligned row chunks of ``arrays``: one graph, summed in a
    tree (each worker adds pairs of partial results), computed once.

    ``fn`` takes in-memory chunks and returns a tuple of arrays of fixed shapes. Non-finite
    chunks or a non-finite sum raise a :class:`ValueError`: Dask input is checked for NaN and
    infinity by the pass itself, not by a pass of its own (each task counts its chunks'
    non-finite values: the sums alone miss them where a kernel maps an infinite row to 0).
    """

    def counted(*chunk: Array) -> tuple[Array, ...]:
        xp = array_api_compat.array_namespace(*chunk)
        flags = [0.0 if bool(xp.all(xp.isfinite(c))) else 1.0 for c in chunk]
        return (*fn(*chunk), xp.asarray(flags))

    blocks = [a.to_delayed().ravel() for a in arrays]
    parts = [delayed_call(counted, *chunk) for chunk in zip(*blocks, strict=True)]
    (total,) = dask_compute(tree_sum(parts))
    *total, non_finite = total
    require_finite(float(non_finite[0]) == 0.0, name="X")
    require_finite(
        float(array_api_compat.array_namespace(non_finite).sum(non_finite)) == 0.0,
        name="y (and the weights given with it)",
    )
    xp = array_api_compat.array_namespace(*total)
    require_finite(all(bool(xp.all(xp.isfinite(part))) for part in total), name="X and y")
    return tuple(total)


def delayed_call(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` as one task of a Dask graph (``dask.delayed``)."""
    import dask

    return dask.delayed(fn)(*args)


def tree_sum(parts: list[Any]) -> Any:
    """The sum of delayed ``parts`` (arrays, or tuples of arrays added entry by entry), added
    in pairs: a tree of depth log₂(len(parts)) in the graph."""
    while len(parts) > 1:
        pairs = [parts[i : i + 2] for i in range(0, len(parts), 2)]
        parts = [delayed_call(_add, *pair) if len(pair) == 2 else pair[0] for pair in pairs]
    return parts[0]


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, tuple):
        return tuple(x + y for x, y in zip(a, b, strict=True))
    return a + b


def row_chunks(X: Array) -> list[Any]:
    """The row chunks of the Dask array ``X`` as the first states of :func:`step_chunks`:
    ``((chunk, first row), None)``, in order."""
    offsets = [0]
    for size in X.chunks[0][:-1]:
        offsets.append(offsets[-1] + size)
    chunks = X.to_delayed().ravel()
    return [((chunk, offset), None) for chunk, offset in zip(chunks, offsets, strict=True)]


def step_chunks(
    fn: Callable[..., tuple[Any, Any]], states: list[Any], *args: Any
) -> tuple[list[Any], list[Any]]:
    """``fn(state, *args) → (new state, summary)`` on every row chunk's state: one graph.

    ``states`` are :func:`row_chunks` or the first result of the previous step: delayed
    ``(state, summary)`` pairs, persisted where they were computed (on the workers of a
    distributed cluster, in memory otherwise), so that the next step runs there. The small
    summaries are computed and returned, in chunk order. ``fn`` may update its state's arrays in
    place as long as a second run on the same state gives the same result (Dask may retry a
    task). Two tasks per chunk and step.
    """
    import dask

    states = dask.persist(*[delayed_call(_step, fn, state, *args) for state in states])
    summaries = dask_compute(*[delayed_call(operator.itemgetter(1), s) for s in states])
    return list(states), list(summaries)


def _step(fn: Callable[..., tuple[Any, Any]], state: tuple[Any, Any], *args: Any) -> Any:
    return fn(state[0], *args)


def stack_chunks(
    parts: list[Any], rows: tuple[int, ...], tail: tuple[int, ...], meta: Array
) -> Array:
    """A row-chunked Dask array from delayed chunks ``parts`` of ``rows[i]`` rows each and
    shape ``(rows[i], *tail)``, in the dtype and array type of ``meta``."""
    import dask.array as da

    blocks = [
        da.from_delayed(part, shape=(size, *tail), dtype=meta.dtype, meta=meta)
        for part, size in zip(parts, rows, strict=True)
    ]
    return da.concatenate(blocks, axis=0)


def map_rows(fn: Callable[[Array], Array], X: Array, tail: tuple[int, ...], dtype: Any) -> Array:
    """``fn`` applied to every row chunk of the Dask array ``X`` (n × d), lazily: a Dask array
    of shape ``(n, *tail)`` with X's row chunks."""
    return X.map_blocks(
        fn,
        dtype=dtype,
        chunks=(X.chunks[0], *((size,) for size in tail)),
        drop_axis=None if tail else 1,
        meta=X._meta.reshape((0,) * (1 + len(tail))).astype(dtype),
    )


def rowwise(method: Callable[..., Array]) -> Callable[..., Array]:
    """Decorate ``predict``/``decision_function``/``transform``: a Dask ``X`` maps the method
    over its row chunks and returns a lazy Dask array with the same row chunks."""

    @functools.wraps(method)
    def wrapper(self: Any, X: Any, *args: Any, **kwargs: Any) -> Any:
        if not is_dask_array(X):
            return method(self, X, *args, **kwargs)
        X, _ = check_rows(X)
        probe = method(self, X[:1].compute(), *args, **kwargs)  # output shape and dtype
        return map_rows(
            lambda chunk: method(self, chunk, *args, **kwargs), X, probe.shape[1:], probe.dtype
        )

    return wrapper


# --------------------------------------------------------------------------- the executors


def at_the_door(X: Any, /, *, name: str = "X") -> tuple[InMemory | OnDask, Array]:
    """The executor of ``X`` and ``X`` as a public function takes it: in memory, converted
    (lists and other array-likes as NumPy) and checked (2-D, finite, at least one row); a Dask
    ``X`` chunked along its rows only, checked for NaN and infinity by its first pass."""
    lazy = lazy_X(X, accepted=True, owner=name, dtype=None)
    if lazy is not None:
        return OnDask(lazy[1]), lazy[1]
    X = ensure_array(X, name=name)
    xp = get_namespace(X)
    return InMemory(xp, block_rows=IN_MEMORY_BLOCK_ROWS), check_array(X, name=name, xp=xp)


def lazy_X(X: Any, *, accepted: bool, owner: str, dtype: Any) -> tuple[Any, Array] | None:
    """``(namespace of its chunks, X)`` for a Dask ``X`` that ``owner`` accepts (2-D with rows
    and features, chunked along the rows only, in the floating dtype it would have in memory;
    its values are checked by the first pass over it); a TypeError naming ``owner`` where it
    is not ``accepted``; None for anything else (validated in memory by the caller)."""
    if not is_dask_array(X):
        return None
    if not accepted:
        refuse(X, owner=owner)
    if X.ndim != 2 or 0 in X.shape:
        msg = f"X must be a 2-D array with samples and features, received shape {X.shape}"
        raise ValueError(msg)
    X, _ = check_rows(X)
    xp = chunk_namespace(X)
    target = float_dtype(X._meta, xp=xp) if dtype is None else dtype  # as in memory
    return xp, X if X.dtype == target else X.astype(target)


def lazy_y(X: Array, y: Any, *, name: str, multi_output: bool) -> tuple[Array, Array] | None:
    """For a Dask ``X``: ``X`` and ``y`` as Dask arrays with the same row chunks, ``y`` in X's
    dtype (its values checked in the pass over the rows); None for an in-memory ``X``."""
    if not is_dask_array(X):
        return None
    allowed = (1, 2) if multi_output else (1,)
    if y.ndim not in allowed or y.shape[0] != X.shape[0]:
        msg = (
            f"{name} needs y with ndim in {allowed} and {X.shape[0]} rows like X, received "
            f"shape {tuple(y.shape)}"
        )
        raise ValueError(msg)
    X, y = check_rows(X, y)
    meta = y._meta.astype(X.dtype)
    return X, y.map_blocks(require_targets_fit, X.dtype, dtype=X.dtype, meta=meta)


def in_memory(a: Array | None) -> Array | None:
    """``a`` when it holds its values in memory; None for a lazy (Dask) array, which references
    the graph or the cluster that computes it (what a pickle must not carry)."""
    return None if is_dask_array(a) else a


#: Rows per block of every in-memory pass, whatever its work; None: the blocks follow
#: :data:`IN_MEMORY_BLOCK_ENTRIES`. The tests set it to run every algorithm on many blocks, where
#: its results may differ from one block's by rounding only.
IN_MEMORY_BLOCK_ROWS: int | None = None

#: The memory budget of one in-memory row block: 2**26 work entries (512 MiB in float64). A
#: Nyström pass holds ``m + 3r`` entries a row (the kernel block against its ``m`` landmarks and
#: the features): with 1 000 landmarks at full rank, blocks of 16 777 rows (a million rows on 60
#: blocks). The pass's result (the ``n × r`` features) is outside the budget.
IN_MEMORY_BLOCK_ENTRIES = 2**26


def executor_for(
    X: Array, /, *, xp: Any = None, block_rows: int | None = None, row_work: int | None = None
) -> InMemory | OnDask:
    """The executor of the row passes over ``X``: :class:`OnDask` for a row-chunked Dask array,
    :class:`InMemory` (in namespace ``xp``, default X's) for anything else, on blocks of
    ``block_rows`` rows (default :data:`IN_MEMORY_BLOCK_ROWS`), else of as many rows as
    :data:`IN_MEMORY_BLOCK_ENTRIES` holds at ``row_work`` work entries per row, else one."""
    if is_dask_array(X):
        return OnDask(X)
    rows = IN_MEMORY_BLOCK_ROWS if block_rows is None else block_rows
    if rows is None and row_work is not None:
        rows = max(1, IN_MEMORY_BLOCK_ENTRIES // max(1, int(row_work)))
    return InMemory(get_namespace(X) if xp is None else xp, block_rows=rows)


class InMemory:
    """Row passes over in-memory arrays of one array-API namespace, in blocks of ``block_rows``
    rows (None: one block), so that a pass holds one block's work arrays at a time."""

    lazy = False

    def __init__(self, xp: Any, *, block_rows: int | None = None) -> None:
        self.xp = xp
        self.block_rows = block_rows

    def _row_slices(self, n: int) -> list[slice]:
        """The row slices of the blocks of ``n`` rows."""
        if self.block_rows is None or self.block_rows >= n:
            return [slice(0, n)]
        return list(row_slices(n, 1, max(1, int(self.block_rows))))

    def _stacked(self, parts: list[Array]) -> Array:
        return parts[0] if len(parts) == 1 else self.xp.concat(parts, axis=0)

    def map(self, fn: Callable[[Array], Array], X: Array, *, tail: tuple, dtype: Any) -> Array:
        """``fn(rows)`` of X's row blocks: an array of shape ``(n, *tail)`` in ``dtype``."""
        (out,) = self.map_many(lambda rows: (fn(rows),), X, (tail, dtype))
        return out

    def map_many(
        self, fn: Callable[[Array], tuple[Array, ...]], X: Array, *outputs: tuple[tuple, Any]
    ) -> tuple[Array, ...]:
        """:meth:`map` of a function with several results, one ``(tail, dtype)`` in
        ``outputs`` each: one evaluation of ``fn`` per block gives them all, written into the
        results as they come (no second copy of them)."""
        n, xp = X.shape[0], self.xp
        slices = self._row_slices(n)
        if len(slices) == 1:
            return tuple(fn(X[slices[0], ...]))
        results = None
        for rows in slices:
            parts = tuple(fn(X[rows, ...]))
            if results is None:
                results = tuple(
                    xp.empty((n, *p.shape[1:]), dtype=p.dtype, device=device_of(p)) for p in parts
                )
            for result, part in zip(results, parts, strict=True):
                result[rows, ...] = part
        return results

    def gather(
        self,
        fn: Callable[[Array], Array],
        X: Array,
        *,
        tail: tuple,
        dtype: Any,
        check_finite: bool = False,
    ) -> Array:
        """:meth:`map` in memory; with ``check_finite`` (the first pass over a lazy X), X's
        rows are checked for NaN and infinity in the same pass (in memory: at the door)."""
        return self.map(fn, X, tail=tail, dtype=dtype)

    def sum(self, fn: Callable[..., tuple[Array, ...]], *arrays: Array) -> tuple[Array, ...]:
        """``Σ_blocks fn(*row blocks)`` over the aligned rows of ``arrays``, a tuple of arrays
        of fixed shapes (lazy input: checked for NaN and infinity by its sums)."""
        total = None
        for rows in self._row_slices(arrays[0].shape[0]):
            part = tuple(fn(*(a[rows, ...] for a in arrays)))
            total = (
                part if total is None else tuple(t + p for t, p in zip(total, part, strict=True))
            )
        return total

    def first(self, fn: Callable[..., Any], *arrays: Array) -> Any:
        """``fn`` of the first row block of ``arrays``, in memory."""
        rows = self._row_slices(arrays[0].shape[0])[0]
        return fn(*(a[rows, ...] for a in arrays))

    def n_blocks(self, X: Array) -> int:
        """The number of row blocks a pass over ``X`` runs on."""
        return len(self._row_slices(X.shape[0]))

    def require_in_memory(self, why: str) -> None:
        """Raise ``ValueError(why)`` where X is lazy: what needs random access to its rows."""

    def checked(self, check: Callable[..., Any], *arrays: Any) -> Any:
        """``check(*arrays)``, a validation of in-memory arrays at a public door; a lazy X's
        arrays are passed through, to be checked by their first pass."""
        return check(*arrays)

    def may_store(self, fits: bool) -> bool:
        """Whether a product with all of X's rows is kept in this process when it ``fits`` the
        memory budget (a lazy X's products are computed on its blocks, never kept)."""
        return fits

    def memory_budget(self, budget: Callable[[], int | None]) -> int | None:
        """The bytes that bound what a fit holds of X's rows, ``budget()``; None (no bound) for a
        lazy X, whose row products are computed on its chunks and never held."""
        return budget()

    def take(self, X: Array, rows: Any, *, name: str = "X") -> Array:
        """The rows ``rows`` (Python integers) of ``X`` (or of the per-row ``name``: y, sample
        weights), in memory; a lazy array's are checked for NaN and infinity as they arrive."""
        return self.xp.take(X, index_array(rows, xp=self.xp, device=device_of(X)), axis=0)

    def compute(self, *arrays: Array) -> tuple[Array, ...]:
        """The arrays' values in memory (these are)."""
        return arrays

    def concat_columns(self, parts: list[Array]) -> Array:
        """``parts`` side by side (axis 1)."""
        return self.xp.concat(parts, axis=1)

    def rows_like(self, a: Array, X: Array) -> Array:
        """The in-memory ``a`` (one row per row of X) in X's row blocks (here: ``a``)."""
        return a

    def whole(self, X: Array) -> Any:
        """All of ``X`` as one argument of :meth:`call` or :meth:`rows_apply` (on Dask: one
        gathered copy per graph)."""
        return X

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``: now in memory, a task of the pass's graph on Dask (its result then
        indexes and computes lazily, as :meth:`compute` brings it back)."""
        return fn(*args)

    def rows_apply(self, fn: Callable[..., Array], X: Array, *args: Any) -> Any:
        """``fn(rows, *args)`` of X's row blocks, stacked along the rows (lazily on Dask, where
        ``args`` may be results of :meth:`call`)."""
        return self._stacked([fn(X[rows, ...], *args) for rows in self._row_slices(X.shape[0])])

    def start(self, fn: Callable[..., tuple[Any, Any]], X: Array) -> tuple[list, list]:
        """``fn((rows, first row)) → (state, summary)`` on every row block of ``X``: the states
        (kept) and the summaries (returned), in block order."""
        pairs = [fn((X[rows, ...], rows.start)) for rows in self._row_slices(X.shape[0])]
        return [pair[0] for pair in pairs], [pair[1] for pair in pairs]

    def step(self, fn: Callable[..., tuple[Any, Any]], states: list, *args: Any) -> tuple:
        """``fn(state, *args) → (new state, summary)`` on every block's state."""
        pairs = [fn(state, *args) for state in states]
        return [pair[0] for pair in pairs], [pair[1] for pair in pairs]

    def stack(self, states: list, part: Callable[[Any], Array], tail: tuple, dtype: Any) -> Array:
        """``part(state)`` (a block's rows of an n × tail array) of every block, stacked."""
        return self._stacked([part(state) for state in states])


class OnDask:
    """Row passes over a row-chunked Dask array: one graph per pass, chunks of NumPy or CuPy
    arrays (whose namespace ``xp`` the small solves use), results of O(width²) in memory."""

    lazy = True

    def __init__(self, X: Array) -> None:
        self.xp = chunk_namespace(X)

    def map(self, fn: Callable[..., Array], X: Array, *, tail: tuple, dtype: Any) -> Array:
        return map_rows(functools.partial(_on_finite_rows, fn), X, tail, dtype)

    def map_many(
        self, fn: Callable[[Array], tuple[Array, ...]], X: Array, *outputs: tuple[tuple, Any]
    ) -> tuple[Array, ...]:
        results = [delayed_call(_on_finite_rows, fn, chunk) for chunk in _row_blocks(X)]
        return tuple(
            stack_chunks(
                [delayed_call(operator.itemgetter(i), result) for result in results],
                X.chunks[0],
                tail,
                X._meta.reshape((0,) * (1 + len(tail))).astype(dtype),
            )
            for i, (tail, dtype) in enumerate(outputs)
        )

    def gather(
        self,
        fn: Callable[[Array], Array],
        X: Array,
        *,
        tail: tuple,
        dtype: Any,
        check_finite: bool = False,
    ) -> Array:
        xp = self.xp
        if not check_finite:
            return dask_compute(map_rows(fn, X, tail, dtype))[0]
        finite = map_rows(lambda rows: xp.all(xp.isfinite(rows), axis=1), X, (), xp.bool)
        result, finite = dask_compute(map_rows(fn, X, tail, dtype), finite)
        require_finite(bool(xp.all(finite)), name="X")
        return result

    def sum(self, fn: Callable[..., tuple[Array, ...]], *arrays: Array) -> tuple[Array, ...]:
        return row_sums(fn, *_aligned(arrays))

    def first(self, fn: Callable[..., Any], *arrays: Array) -> Any:
        firsts = [a.to_delayed().ravel()[0] for a in _aligned(arrays)]
        return dask_compute(delayed_call(fn, *firsts))[0]

    def n_blocks(self, X: Array) -> int:
        return len(X.chunks[0])

    def require_in_memory(self, why: str) -> None:
        raise ValueError(why)

    def checked(self, check: Callable[..., Any], *arrays: Any) -> Any:
        return arrays if len(arrays) > 1 else arrays[0]

    def may_store(self, fits: bool) -> bool:
        return False

    def memory_budget(self, budget: Callable[[], int | None]) -> int | None:
        return None

    def take(self, X: Array, rows: Any, *, name: str = "X") -> Array:
        taken = take_rows(X, rows)
        xp = chunk_namespace(X)
        require_finite(bool(xp.all(xp.isfinite(taken))), name=name)
        return taken

    def compute(self, *arrays: Array) -> tuple[Array, ...]:
        from dask import is_dask_collection

        if not any(is_dask_collection(a) for a in arrays):
            return arrays
        return dask_compute(*arrays)

    def whole(self, X: Array) -> Any:
        return delayed_call(_stack_rows, *_row_blocks(X))

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        return delayed_call(fn, *args)

    def rows_apply(self, fn: Callable[..., Array], X: Array, *args: Any) -> Any:
        pieces = [delayed_call(_on_finite_rows, fn, block, *args) for block in _row_blocks(X)]
        return delayed_call(_stack_rows, *pieces)

    def concat_columns(self, parts: list[Array]) -> Array:
        import dask.array as da

        return da.concatenate(parts, axis=1)

    def rows_like(self, a: Array, X: Array) -> Array:
        return like_rows(a, X)

    def start(self, fn: Callable[..., tuple[Any, Any]], X: Array) -> tuple[list, list]:
        xp = self.xp

        def checked(chunk: tuple[Array, int]) -> tuple[Any, Any]:
            state, summary = fn(chunk)
            return state, (summary, bool(xp.all(xp.isfinite(chunk[0]))))

        states, summaries = step_chunks(checked, row_chunks(X))
        require_finite(all(finite for _, finite in summaries), name="X")
        self._rows, self._meta = X.chunks[0], X._meta
        return states, [summary for summary, _ in summaries]

    def step(self, fn: Callable[..., tuple[Any, Any]], states: list, *args: Any) -> tuple:
        return step_chunks(fn, states, *args)

    def stack(self, states: list, part: Callable[[Any], Array], tail: tuple, dtype: Any) -> Array:
        meta = self._meta.reshape((0,) * (1 + len(tail))).astype(dtype)
        parts = [delayed_call(part, state[0]) for state in states]
        return stack_chunks(parts, self._rows, tail, meta)


def _aligned(arrays: tuple[Array, ...]) -> list[Array]:
    """The first array (a Dask X) chunked along its rows only, the others (Dask or in memory)
    with its row chunks."""
    X, *others = arrays
    X, _ = check_rows(X)
    return [X, *(check_rows(X, a)[1] for a in others)]


def _stack_rows(*blocks: Array) -> Array:
    return _on_finite_rows(get_namespace(*blocks).concat, blocks, axis=0)


def _on_finite_rows(fn: Callable[..., Any], rows: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(rows, ...)`` in a Dask task, once ``rows`` (an array or a sequence of them) is
    known finite: a lazy X is checked for NaN and infinity where its chunks are read, and the
    ValueError reaches the caller when the result is computed."""
    parts = rows if isinstance(rows, (tuple, list)) else (rows,)
    xp = get_namespace(*parts)
    require_finite(all(bool(xp.all(xp.isfinite(part))) for part in parts), name="X")
    return fn(rows, *args, **kwargs)


def _row_blocks(X: Array) -> list[Any]:
    """The row chunks of the Dask ``X`` (whole rows each), as delayed arrays in order."""
    X, _ = check_rows(X)
    return list(X.to_delayed().ravel())

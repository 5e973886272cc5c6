"""Row-chunked Dask arrays: passes over the rows as one Dask graph, everything else local.

Every lrkl algorithm is passes over the n rows around small solves. With a ``dask.array`` input
(chunked along the rows, NumPy chunks) those passes run as Dask graphs on whatever scheduler the
user has set up (a ``dask.distributed`` cluster, threads), one graph per pass, and the small
results come back to the process that called ``fit``:

- :func:`row_sums`: a per-chunk function summed over the row chunks in a tree (the Gram pass of
  SLKL: ``B``, ``b``, ``yᵀy``, column sums; the ridge statistics of Nyström features);
- :func:`rowwise`: ``predict``, ``decision_function`` and ``transform`` map over the row chunks
  and return a lazy Dask array (no gather);
- :func:`take_rows`: a few rows (SLKL's candidates, Nyström's landmarks) brought to the client;
- :func:`map_rows`: a lazy row-chunked result such as the training features of a Nyström
  factor;
- :func:`step_chunks`: one graph per step of a sequential algorithm whose state is a few
  n-vectors per row chunk, kept where it was computed (on the workers) between steps; only a
  small summary per chunk comes back (ICD: one graph per pivot, :mod:`lrkl.lowrank._icd`);
- :func:`delayed_call`, :func:`dask_compute`: the graphs built by hand, such as CG kernel
  ridge's one graph per iteration (``lrkl.kernel_ridge._regularization.ChunkedKernelOperator``).

Dask is imported only when a Dask array is passed: it is an optional dependency
(``pip install lrkl[dask]``). Estimators whose algorithm needs random access to single rows
refuse Dask input with a clear error (:func:`refuse`).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import array_api_compat

from lrkl._backend import require_finite

Array = Any

#: The estimators whose ``fit`` accepts a row-chunked Dask array.
DASK_FIT = (
    "SLKLRegressor",
    "SLKLClassifier",
    "LowRankRidge, LowRankRidgeCV (cv=None) and LowRankFeatures",
    "KernelRidge (method='cg')",
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
            "matrix, or rows picked one at a time). Dask input is fitted by "
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


def concat_columns(parts: list[Array], *, xp: Any) -> Array:
    """``parts`` side by side (axis 1): with ``xp`` for in-memory arrays, lazily for Dask."""
    if is_dask_array(parts[0]):
        import dask.array as da

        return da.concatenate(parts, axis=1)
    return xp.concat(parts, axis=1)


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

    ``fn`` takes in-memory chunks and returns a tuple of arrays of fixed shapes. A non-finite
    sum raises a :class:`ValueError`: Dask input is checked for NaN and infinity by the pass
    itself, not by a pass of its own.
    """
    blocks = [a.to_delayed().ravel() for a in arrays]
    parts = [delayed_call(fn, *chunk) for chunk in zip(*blocks, strict=True)]
    (total,) = dask_compute(tree_sum(parts))
    xp = array_api_compat.array_namespace(*total)
    # the data were not validated before the pass: its sums tell
    require_finite(all(bool(xp.all(xp.isfinite(part))) for part in total), name="X and y")
    return total


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

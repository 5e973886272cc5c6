"""The memory budget of the LowRankRidge family's in-memory features, and its default number of
centres: one budget, which a solver that holds other arrays (a kernel cache, M × M factors)
counts against too."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from lrkl._backend import device_memory, get_namespace
from lrkl._executor import executor_for
from lrkl._typing import Array
from lrkl.lowrank._features import per_kernel_ranks

#: The family's default number of centres: ``rank=None`` means ``min(n_samples, 1000)`` uniform
#: Nyström landmarks (issue 35's panel, docs/performance/defaults.rst: 1 000 was as accurate as
#: 2 000 and 20·√n on sets of up to 8 000 training rows, at half their time or less).
DEFAULT_CENTRES = 1000

#: ``memory_budget=None``: the in-memory features may take half of the memory of X's device
#: (the host's for NumPy), the other half left to the data, the ridge statistics and the solves.
MEMORY_SHARE = 0.5


def memory_budget_of(memory_budget: int | None, X: Array) -> int | None:
    """The budget in bytes: ``memory_budget``, or :data:`MEMORY_SHARE` of the memory of X's
    device (None where that is unknown: no budget)."""
    if isinstance(memory_budget, bool):  # an Integral to the parameter constraints
        msg = f"memory_budget must be a number of bytes or None, received {memory_budget!r}"
        raise TypeError(msg)
    if memory_budget is not None:
        return int(memory_budget)
    total = device_memory(X)
    return None if total is None else int(MEMORY_SHARE * total)


def rank_within_budget(
    rank: Any, X: Array, p: int, held: int, *, memory_budget: int | None, owner: str
) -> int | Sequence[int]:
    """The rank per kernel of ``p`` kernels on the rows of ``X``, with ``held`` such feature
    maps in memory at once: ``rank``, or for None ``min(n, DEFAULT_CENTRES)`` cut to what the
    budget holds; a MemoryError naming ``owner``, before anything is allocated, where the
    features of a given rank (or of one column per kernel) exceed the budget. A Dask ``X``'s
    features are computed in passes, never held: no budget."""
    n = X.shape[0]
    given = rank
    rank = min(n, DEFAULT_CENTRES) if given is None else given
    budget = executor_for(X).memory_budget(lambda: memory_budget_of(memory_budget, X))
    if budget is None:
        return rank
    itemsize = get_namespace(X).finfo(X.dtype).bits // 8
    per_column = n * p * itemsize * held  # one column per kernel, in every held map
    if given is None:
        if rank * per_column <= budget:
            return rank
        if budget >= per_column:
            return budget // per_column
        columns = p
    else:
        with warnings.catch_warnings():  # a clipped rank is said by the feature map
            warnings.simplefilter("ignore", UserWarning)
            columns = sum(per_kernel_ranks(rank, p, n, owner=owner))
        if columns * n * itemsize * held <= budget:
            return rank
    needed = columns * n * itemsize * held
    two = (
        f", times {held} feature maps held at once (the width search's or the leverage "
        "centres' two)"
        if held > 1
        else ""
    )
    default = ", half of this device's memory" if memory_budget is None else ""
    msg = (
        f"{owner}: the features would take {needed / 2**30:.3g} GiB ({n} rows × {columns} "
        f"values of {itemsize} bytes{two}), beyond memory_budget={budget} bytes "
        f"({budget / 2**30:.3g} GiB{default}). Pass a smaller rank, a larger memory_budget, or "
        "X as a Dask array, whose features are computed in passes over its chunks and never "
        "held."
    )
    raise MemoryError(msg)

"""Array namespace, device, dtype policy and host transfers.

With :mod:`lrkl._linalg` (the linalg shim) this is the only module of lrkl that imports NumPy,
SciPy, CuPy or PyTorch for array work. Every other module receives ``xp`` (an array-API namespace
from :func:`get_namespace`) keyword-only.
"""

from __future__ import annotations

import math
import os
from types import ModuleType
from typing import Any

import array_api_compat
import numpy as np
import scipy.sparse

from lrkl._checks import check_option
from lrkl._typing import Array

__all__ = [
    "BACKEND_NAMES",
    "BackendUnavailable",
    "check_array",
    "check_consistent_length",
    "default_float",
    "device_of",
    "ensure_array",
    "float_dtype",
    "from_host",
    "get_namespace",
    "host_namespace",
    "index_array",
    "move_to",
    "resolve_backend",
    "row_major",
    "same_place",
    "synchronize",
    "to_numpy",
    "widened",
]


# --------------------------------------------------------------------------- namespace, device


def get_namespace(*arrays: Array) -> ModuleType:
    """Return the array-API namespace shared by ``arrays`` (``None`` entries are ignored).

    Python scalars are ignored too. Arrays from different libraries (a NumPy ``X`` with a CuPy
    ``y``) raise a :class:`TypeError` that names the libraries: lrkl never moves data between
    namespaces silently.
    """
    present = [a for a in arrays if a is not None and not isinstance(a, int | float | bool)]
    if not present:
        msg = "expected at least one array to infer the array namespace from, received none"
        raise TypeError(msg)
    try:
        return array_api_compat.array_namespace(*present)
    except TypeError as exc:
        kinds = sorted({f"{type(a).__module__}.{type(a).__qualname__}" for a in present})
        msg = (
            "all arrays must come from one array library (namespace) so that lrkl never moves data "
            f"between libraries; received arrays of types {kinds}"
        )
        raise TypeError(msg) from exc


def device_of(x: Array) -> Any:
    """The device ``x`` lives on (array-api-compat's ``device``)."""
    return array_api_compat.device(x)


def default_float(xp: ModuleType, device: Any = None) -> Any:
    """The namespace's default real floating dtype (float64 for NumPy/CuPy, float32 for torch)."""
    info = xp.__array_namespace_info__()
    return info.default_dtypes(device=device)["real floating"]


def widest_float(xp: ModuleType, device: Any = None) -> Any:
    """float64 where ``device`` has it, else float32 (Apple's MPS has no float64): the dtype lrkl
    accumulates its sensitive parts in (pivots, Nyström's landmark block)."""
    if array_api_compat.is_numpy_namespace(xp) or array_api_compat.is_cupy_namespace(xp):
        return xp.float64  # on every device (asked per block: no namespace-info lookup)
    info = xp.__array_namespace_info__()
    try:
        available = info.dtypes(device=device, kind="real floating")
    except (TypeError, ValueError):  # a namespace that cannot say per device: the standard's
        available = info.dtypes(kind="real floating")
    return available.get("float64", xp.float32)


def widened(*arrays: Array, xp: ModuleType) -> tuple[Array, ...]:
    """``arrays`` in :func:`widest_float` of their device (copies only where narrower): for the
    estimators whose choices follow float32's rounding — the CV estimators (``KernelRidgeCV``,
    ``SLKLRegressorCV``, ``LowRankRidgeCV``), whose grids reach penalties at which a float32
    solve amplifies the kernel's rounding, and ``MklarenRegressor``, whose least-angle choices
    flip with it — which then keep their model in the input's dtype."""
    wide = widest_float(xp, device_of(arrays[0]))
    return tuple(a if a.dtype == wide else xp.astype(a, wide) for a in arrays)


def float_dtype(x: Array, *, xp: ModuleType) -> Any:
    """The floating dtype lrkl computes ``x`` in: the one dtype policy of lrkl.

    float32 stays float32 and float64 stays float64; float16 is computed in float32 (as
    scikit-learn does: half precision's 11 bits cannot carry a kernel solve); integers and
    booleans become the namespace's default float (float64 for NumPy, CuPy and array-api-strict,
    float32 for PyTorch). Complex input is rejected. Fitted arrays and predictions are in this
    dtype.
    """
    half = getattr(xp, "float16", None)  # not in every namespace (array-api-strict, Dask)
    if half is not None and x.dtype == half:  # (NumPy's dtype == None means float64)
        return xp.float32
    if xp.isdtype(x.dtype, "real floating"):
        return x.dtype
    if xp.isdtype(x.dtype, ("integral", "bool")):
        return default_float(xp, device_of(x))
    msg = f"expected real (float, integer or boolean) data, received dtype {x.dtype}"
    raise TypeError(msg)


def on_host_numpy(xp: ModuleType) -> bool:
    """Whether ``xp`` is NumPy: where lrkl runs a block's row chunks on threads of its own
    (:mod:`lrkl._threads`; NumPy's elementwise passes run on one thread) and writes GEMMs into
    preallocated chunks. Elsewhere (a GPU, torch's own threads) a block is one operation."""
    return array_api_compat.is_numpy_namespace(xp)


def synchronize(xp: ModuleType) -> None:
    """Wait for queued device work (CuPy's current stream, torch's CUDA stream); no-op on CPU."""
    if array_api_compat.is_cupy_namespace(xp):
        import cupy

        cupy.cuda.get_current_stream().synchronize()
    elif array_api_compat.is_torch_namespace(xp):
        import torch

        if torch.cuda.is_available():
            torch.cuda.synchronize()


def to_numpy(x: Array) -> np.ndarray:
    """Copy ``x`` to a NumPy array on the host, on purpose (for reports, plots and file output)."""
    if isinstance(x, np.ndarray | np.generic | int | float):  # NumPy reductions give scalars
        return np.asarray(x)
    xp = get_namespace(x)
    if array_api_compat.is_cupy_namespace(xp):
        return x.get()
    if array_api_compat.is_torch_namespace(xp):
        return x.detach().cpu().numpy()
    if array_api_compat.is_array_api_strict_namespace(xp):
        import array_api_strict

        x = xp.asarray(x, device=array_api_strict.Device("CPU_DEVICE"))
        return np.asarray(x._array)
    return np.asarray(x)


# --------------------------------------------------------------------------- validation


def check_array(
    x: Array,
    *,
    name: str,
    xp: ModuleType,
    ndim: int | tuple[int, ...] = 2,
    dtype: Any = None,
    min_rows: int = 1,
) -> Array:
    """Validate ``x`` and return it in lrkl's floating dtype (no copy when nothing changes).

    Checks, each with an error that names ``name``, the allowed range and what was received:
    the number of dimensions, at least ``min_rows`` rows, and that every value is finite.
    ``dtype`` overrides the floating dtype policy of :func:`float_dtype`.
    """
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    if isinstance(x, np.ma.MaskedArray):  # as at the estimators' door: its data, or refused
        x = _unmask(x, name=name)
    if not hasattr(x, "ndim") or not hasattr(x, "dtype"):
        msg = f"{name} must be an array, received {type(x).__name__}"
        raise TypeError(msg)
    if x.ndim not in allowed:
        msg = f"{name} must have ndim in {allowed}, received an array of shape {tuple(x.shape)}"
        raise ValueError(msg)
    if x.ndim >= 1 and x.shape[0] < min_rows:
        msg = f"{name} must have at least {min_rows} row(s), received shape {tuple(x.shape)}"
        raise ValueError(msg)
    if x.ndim == 2 and x.shape[1] < 1:
        msg = f"{name} must have at least 1 column, received shape {tuple(x.shape)}"
        raise ValueError(msg)
    try:
        target = float_dtype(x, xp=xp) if dtype is None else dtype  # refuses complex itself
        if dtype is not None and not xp.isdtype(x.dtype, ("real floating", "integral", "bool")):
            raise TypeError  # complex, text or objects: not under a given dtype either
    except TypeError:
        msg = f"{name} must hold real numbers (float, integer or boolean), received dtype {x.dtype}"
        raise TypeError(msg) from None
    if x.dtype != target:
        x = xp.astype(x, target)
    # One reduction and one host read: validation is a deliberate synchronisation point.
    require_finite(bool(xp.all(xp.isfinite(x))), name=name)
    return x


def row_major(x: Array, /) -> Array:
    """``x`` itself, or a C-ordered copy of a NumPy array stored otherwise.

    One memory order for every input: BLAS sums in another order for a Fortran-ordered
    operand, so a DataFrame (whose ``to_numpy()`` is column-major) or a transposed array fitted
    models that differed from those of the same numbers in a C-ordered array or a list in the
    last bits. Row blocks are contiguous slices then, too.
    """
    if isinstance(x, np.ndarray) and x.ndim == 2 and not x.flags.c_contiguous:
        return np.ascontiguousarray(x)
    return x


def require_finite(finite: bool, /, *, name: str) -> None:
    """Raise the ValueError for NaN or infinity in ``name`` unless ``finite``."""
    if not finite:
        msg = f"{name} must contain only finite values, received NaN or infinity"
        raise ValueError(msg)


def positive_range(weights: Array, /, *, xp: ModuleType) -> tuple[float, float]:
    """The smallest and the largest positive value of ``weights`` (≥ 0, one positive), read
    on the host: the span that the weights' checks of the solvers bound."""
    top = float(xp.max(weights))
    return float(xp.min(xp.where(weights > 0.0, weights, top))), top


def require_targets_fit(y: Array, dtype: Any) -> Array:
    """``y`` in ``dtype``, the dtype it is fitted in (X's), once it is finite in its own and at
    most 1/1024 of ``dtype``'s largest value in absolute value (a prediction, a weighted sum of
    them, stays finite); else the ValueError naming y. Also each chunk of a lazy y."""
    xp = get_namespace(y)
    require_finite(bool(xp.all(xp.isfinite(y))), name="y")
    top = float(xp.max(xp.abs(y))) if math.prod(y.shape) else 0.0
    bound = float(xp.finfo(dtype).max) / 1024
    if top > bound:
        msg = (
            f"y must be at most {bound:.3g} in absolute value (1/1024 of {dtype}'s largest "
            f"value, X's dtype, so that predictions stay finite), received {top:.3g}"
        )
        raise ValueError(msg)
    return y if y.dtype == dtype else xp.astype(y, dtype)


def check_consistent_length(**arrays: Array) -> None:
    """Raise if the named arrays do not all have the same number of rows."""
    rows = {name: a.shape[0] for name, a in arrays.items() if a is not None}
    if len(set(rows.values())) > 1:
        msg = f"inconsistent numbers of samples: {rows}"
        raise ValueError(msg)


# --------------------------------------------------------------------------- host state


def host_namespace() -> ModuleType:
    """The array namespace of host (NumPy) arrays, for small sequential state kept on the CPU.

    Algorithms whose inner loop works on a small state (an ``m0 × m0`` inverse, a few vectors)
    keep it here even when the data live on a device, and move data across with
    :func:`to_numpy` and :func:`from_host` at points that are visible in their code.
    """
    import array_api_compat.numpy as hxp

    return hxp


def from_host(a: Any, /, *, xp: ModuleType, device: Any, dtype: Any = None) -> Array:
    """Copy the host array ``a`` into namespace ``xp`` on ``device``, on purpose."""
    a = np.asarray(a)
    if array_api_compat.is_array_api_strict_namespace(xp):
        import array_api_strict

        host = xp.asarray(a, dtype=dtype, device=array_api_strict.Device("CPU_DEVICE"))
        return xp.asarray(host, device=device)
    return xp.asarray(a, dtype=dtype, device=device)


def index_array(values: Any, /, *, xp: ModuleType, device: Any) -> Array:
    """Row or column numbers (a Python sequence) as an int64 array of ``xp`` on ``device``."""
    return xp.asarray([int(v) for v in values], dtype=xp.int64, device=device)


def ensure_array(x: Any, /, *, name: str) -> Array:
    """``x`` itself when it is an array of an array-API library, else a NumPy array of it.

    Lists, pandas objects and anything with ``__array__`` become NumPy arrays (the caller then
    works in NumPy). What cannot hold numbers is refused with an error that names ``name``, says
    where and shows what it holds instead: text, missing values (``pd.NA``), categorical text
    columns, dates, dicts, ragged nested lists (:class:`ValueError` or :class:`TypeError`);
    complex data raise :class:`ValueError`. A NumPy masked array is taken as its data when no
    entry is masked and refused otherwise: lrkl does not guess what a masked entry means.
    """
    if x is None:
        msg = f"{name} must be an array, received None"
        raise ValueError(msg)
    if scipy.sparse.issparse(x):
        msg = (
            f"Sparse data was passed for {name}, but dense data is required. Use '.toarray()' to "
            "convert to a dense numpy array."
        )
        raise TypeError(msg)
    if type(x).__module__.startswith("dask.") and not hasattr(x, "chunks"):
        msg = (
            f"{name} must be an array; a Dask DataFrame or Series ({type(x).__name__}) would be "
            "computed into memory: pass x.to_dask_array(lengths=True), or x.compute()"
        )
        raise TypeError(msg)
    if isinstance(x, np.ma.MaskedArray):
        x = _unmask(x, name=name)
    if not array_api_compat.is_array_api_obj(x) or isinstance(x, np.generic):
        x = _to_numpy(x, name=name)
    if isinstance(x, np.ndarray) and x.dtype.kind in "US":
        first = next((v for v in x.ravel() if not _is_number(v)), None)
        if first is not None:
            msg = f"{name} must hold numbers, received text such as {str(first)!r}"
            raise ValueError(msg)
    if isinstance(x, np.ndarray) and x.dtype.kind in "OUS":
        x = _object_to_float(x, name=name, columns=None)
    if isinstance(x, np.ndarray) and np.iscomplexobj(x):
        msg = f"Complex data not supported: {name} has dtype {x.dtype}, expected real values"
        raise ValueError(msg)
    if isinstance(x, np.ndarray) and x.dtype.kind not in "biuf":
        msg = f"{name} must hold numbers (float, integer or boolean), received dtype {x.dtype}"
        raise TypeError(msg)
    return x


def _unmask(x: np.ma.MaskedArray, /, *, name: str) -> np.ndarray:
    """The data of a masked array with no masked entry; a masked entry is refused."""
    masked = int(np.ma.count_masked(x))
    if masked:
        msg = (
            f"{name} is a masked array with {masked} masked entr{'y' if masked == 1 else 'ies'}; "
            "lrkl does not take masks: fill them (x.filled(value)) or drop their rows first"
        )
        raise ValueError(msg)
    return np.ma.getdata(x)


def _to_numpy(x: Any, /, *, name: str) -> np.ndarray:
    """A NumPy array of a list, a pandas object or anything with ``__array__``, in numbers
    where its columns hold numbers; an error naming ``name`` and the culprit otherwise."""
    if isinstance(x, dict | set | frozenset) or (
        hasattr(x, "keys") and not hasattr(x, "__array__")
    ):
        msg = (
            f"{name} must be an array-like of numbers (an array, a list of rows, a DataFrame), "
            f"received a {type(x).__name__}"
        )
        raise TypeError(msg)
    columns = getattr(x, "columns", None)  # a DataFrame: errors name its columns
    try:
        array = np.asarray(x)
    except (TypeError, ValueError) as exc:
        if "inhomogeneous" in str(exc) or "sequence" in str(exc):
            msg = (
                f"{name} must be a rectangular array of numbers, received a nested sequence whose "
                "rows have different lengths"
            )
            raise ValueError(msg) from None
        msg = f"{name} must be an array-like of numbers, received {type(x).__name__}: {exc}"
        raise TypeError(msg) from None
    if array.dtype.kind == "O":
        kinds = getattr(x, "dtypes", None)
        array = _object_to_float(array, name=name, columns=columns, dtypes=kinds)
    return array


def _object_to_float(
    x: np.ndarray, /, *, name: str, columns: Any = None, dtypes: Any = None
) -> np.ndarray:
    """``x`` (object or text dtype) as float64, or an error that names ``name``, the first
    entry that is not a number, where it is, and what to do about it."""
    try:
        return x.astype(np.float64)
    except (TypeError, ValueError):
        pass
    if x.ndim == 0:  # one object that is no array: a generator, an iterator, anything else
        msg = (
            f"{name} must be an array-like of numbers (an array, a list of rows, a DataFrame), "
            f"received a {type(x[()]).__name__}"
        )
        raise TypeError(msg)
    for index in np.ndindex(x.shape):
        value = x[index]
        index = index if len(index) > 1 else index[0]
        if _is_number(value) and not _is_missing(value):
            continue
        if x.ndim == 2 and columns is not None:
            column = columns[index[1]]
            where = f"column {column!r} (row {index[0]})"
            dtype = dtypes.iloc[index[1]] if hasattr(dtypes, "iloc") else None
        else:
            where = f"row {index[0]}, column {index[1]}" if x.ndim == 2 else f"entry {index}"
            dtype = None
        if _is_missing(value):
            what, advice = f"a missing value ({value!r})", "fill or drop missing values first"
        elif isinstance(value, str | bytes):
            what, advice = f"text {value!r}", "encode text first"
        elif np.ndim(value) > 0 or isinstance(value, list | tuple):
            msg = (
                f"{name} must be a rectangular array of numbers, received a nested sequence at "
                f"{where}"
            )
            raise ValueError(msg)
        else:  # a wrong type: TypeError, worded as NumPy's for scikit-learn's checks
            kind = type(value).__name__
            msg = (
                f"{name} must hold numbers; {where} holds a {kind} ({value!r}): the argument "
                f"must be a string or a real number, not a {kind}"
            )
            raise TypeError(msg)
        if getattr(dtype, "name", None) == "category":
            advice = (
                "a categorical column: encode it first (sklearn.preprocessing.OrdinalEncoder "
                "or OneHotEncoder)"
            )
        msg = f"{name} must hold numbers; {where} holds {what}: {advice}"
        raise ValueError(msg)
    msg = f"{name} must hold numbers, received an array of dtype {x.dtype}"  # not reached
    raise TypeError(msg)


def _is_missing(v: Any) -> bool:
    """``None``, ``pd.NA`` or ``pd.NaT`` (recognised without importing pandas)."""
    return v is None or type(v).__name__ in {"NAType", "NaTType"}


def _is_number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def same_place(a: Array, b: Array) -> bool:
    """Whether ``a`` and ``b`` come from one array library and live on one device."""
    a_xp, b_xp = get_namespace(a), get_namespace(b)
    return a_xp.__name__ == b_xp.__name__ and device_of(a) == device_of(b)


def move_to(a: Array, /, *, like: Array) -> Array:
    """``a`` in the namespace and on the device of ``like``: unchanged when it already is, else
    copied (through the host between libraries). For the small arrays that follow ``X`` (``y``,
    sample weights), as scikit-learn ≥ 1.8 moves them; ``X`` itself never moves."""
    if same_place(a, like):
        return a
    xp = get_namespace(like)
    if get_namespace(a).__name__ == xp.__name__:
        return array_api_compat.to_device(a, device_of(like))
    return from_host(to_numpy(a), xp=xp, device=device_of(like))


def device_memory(x: Array) -> int | None:
    """Total memory in bytes of the device ``x`` lives on, or ``None`` where it is unknown:
    the host's physical memory for host arrays, the GPU's for CuPy and CUDA torch arrays."""
    xp = get_namespace(x)
    name = xp.__name__
    try:
        if "cupy" in name:
            import cupy

            with cupy.cuda.Device(device_of(x).id):
                return int(cupy.cuda.runtime.memGetInfo()[1])
        if "torch" in name and device_of(x).type == "cuda":
            import torch

            return int(torch.cuda.mem_get_info(device_of(x))[1])
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError, RuntimeError):
        return None


def require_device_memory(needed: int, like: Array, *, what: str, advice: str) -> None:
    """Raise :class:`MemoryError` before an allocation of ``needed`` bytes that cannot fit in
    the memory of ``like``'s device (:func:`device_memory`; nothing where that is unknown):
    "``what``: N GiB needed, more than the M GiB of memory of this device. ``advice``"."""
    limit = device_memory(like)
    if limit is not None and needed > limit:
        msg = (
            f"{what}: {needed / 2**30:.1f} GiB needed, more than the {limit / 2**30:.1f} GiB of "
            f"memory of this device. {advice}"
        )
        raise MemoryError(msg)


# --------------------------------------------------------------------------- backends by name

#: The names :func:`resolve_backend` knows, as the CLI, the tests and the benchmarks spell them.
BACKEND_NAMES = ("numpy", "torch", "cupy", "array_api_strict", "array_api_strict:device1")

_INSTALL = {
    "torch": "pip install torch  (the CPU build: pip install torch --index-url "
    "https://download.pytorch.org/whl/cpu)",
    "cupy": "pip install 'lrkl[cupy]'  (needs an NVIDIA GPU and CUDA 12)",
    "array_api_strict": "pip install 'lrkl[test]'",
}


class BackendUnavailable(ImportError):
    """The array library asked for by name is not installed, or has no device to run on."""


def resolve_backend(name: str) -> tuple[ModuleType, Any]:
    """The array namespace and device of the backend called ``name`` (one of
    :data:`BACKEND_NAMES`): the one resolver shared by the CLI, the tests and the benchmarks.

    Raises :class:`BackendUnavailable` with the install line when the library is missing (or,
    for CuPy, when no GPU is visible), and :class:`ValueError` for an unknown name.
    """
    library = name.split(":")[0]
    check_option(name, BACKEND_NAMES, name="backend")
    if name == "numpy":
        import array_api_compat.numpy as xp

        return xp, "cpu"
    try:
        if library == "array_api_strict":
            import array_api_strict as xp

            device = "device1" if name.endswith("device1") else "CPU_DEVICE"
            return xp, xp.Device(device)
        if name == "torch":
            import array_api_compat.torch as xp

            return xp, "cpu"
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            msg = "no CUDA device is visible"
            raise RuntimeError(msg)
        import array_api_compat.cupy as xp

        return xp, cupy.cuda.Device(0)
    except Exception as exc:  # ImportError, CUDA runtime errors: not usable here
        msg = (
            f"backend {name!r} is not available ({type(exc).__name__}: {exc}); {_INSTALL[library]}"
        )
        raise BackendUnavailable(msg) from exc

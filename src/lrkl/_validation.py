"""Input validation shared by every lrkl estimator.

This is the one lrkl module that imports scikit-learn's private ``_param_validation``: the
constraint types (:class:`Interval`, :class:`StrOptions`, ...) that estimators declare in
``_parameter_constraints`` come from here, and :class:`InvalidParameterError` is what an invalid
parameter raises.

The messages use scikit-learn's wording where its estimator checks match on it (empty data,
1-D ``X``, a missing ``y``); everything else names the parameter, the allowed range and the value
received.
"""

from __future__ import annotations

import math
import warnings
from types import ModuleType
from typing import Any

from array_api_compat import is_array_api_obj
from sklearn.exceptions import DataConversionWarning
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    InvalidParameterError,
    StrOptions,
    validate_params,
)
from sklearn.utils.validation import check_is_fitted, validate_data

from lrkl._backend import (
    _is_number,
    check_array,
    check_consistent_length,
    device_of,
    ensure_array,
    from_host,
    get_namespace,
    host_namespace,
    move_to,
    require_device_memory,
    require_targets_fit,
    row_major,
    same_place,
    to_numpy,
)
from lrkl._executor import lazy_X, lazy_y
from lrkl._typing import Array
from lrkl.kernels import KERNEL_NAMES, Kernel

__all__ = [
    "KERNEL_CONSTRAINT",
    "HasMethods",
    "Hidden",
    "Interval",
    "InvalidParameterError",
    "StrOptions",
    "check_X",
    "check_X_y",
    "check_classification_X_y",
    "check_dense_kernel_size",
    "check_n_columns",
    "check_predict_X",
    "check_sample_weight",
    "clip_to_samples",
    "validate_params",
]


def clip_to_samples(value: int, n: int, *, name: str, owner: str) -> int:
    """``value``, or ``n_samples`` with a warning when ``value`` exceeds it: a number of
    columns, landmarks or a rank cannot exceed the number of training samples."""
    if value > n:
        msg = f"{owner}: {name}={value} exceeds n_samples={n}; using {name}={n}"
        warnings.warn(msg, UserWarning, stacklevel=3)
        return n
    return int(value)


def check_n_columns(value: int | None, n: int, *, owner: str, default: int = 1000) -> int:
    """M, the number of training columns: ``None`` means min(n, default); above n it is
    clipped."""
    if value is None:
        return min(n, default)
    return clip_to_samples(value, n, name="n_columns", owner=owner)


#: The constraint of a ``kernel`` parameter.
KERNEL_CONSTRAINT = [Kernel, StrOptions(set(KERNEL_NAMES)), None]


def _record_features(owner: Any, X: Any, *, reset: bool) -> None:
    """Set (``reset``) or check ``n_features_in_`` and ``feature_names_in_`` (a DataFrame's
    columns) the way scikit-learn does, on ``X`` as given, before it becomes an array."""
    ndim = X.ndim if hasattr(X, "ndim") else ensure_array(X, name="X").ndim
    if not isinstance(owner, str) and ndim == 2:  # other shapes get lrkl's message
        validate_data(owner, X, reset=reset, skip_check_array=True)


def _name(owner: Any) -> str:
    return owner if isinstance(owner, str) else type(owner).__name__


def check_X(
    X: Any, *, dtype: Any = None, owner: Any = "X", lazy: bool = False
) -> tuple[ModuleType, Array]:
    """Namespace and validated ``X``: 2-D, at least one sample and one feature, finite.

    ``owner`` is an estimator being fitted (its ``n_features_in_`` and ``feature_names_in_``
    are set) or a name for the messages. A lazy (Dask) array is refused unless ``lazy``; then
    the executor takes it (:func:`lrkl._executor.lazy_X`): chunked along the rows, the
    namespace that of its chunks, the finiteness check left to the first pass over the rows.
    """
    # a lazy X is taken by the executor, before anything is recorded on the estimator
    taken = lazy_X(X, accepted=lazy, owner=_name(owner), dtype=dtype)
    _record_features(owner, X, reset=True)
    if taken is not None:
        return taken
    X = ensure_array(X, name="X")
    if X.ndim != 2:
        msg = (
            f"Expected 2D array for X, got {X.ndim}D array instead (shape {tuple(X.shape)}). "
            "Reshape your data either using array.reshape(-1, 1) if your data has a single "
            "feature or array.reshape(1, -1) if it contains a single sample."
        )
        raise ValueError(msg)
    for axis, what in enumerate(("sample", "feature")):
        if X.shape[axis] == 0:
            msg = (
                f"X is empty: found array with 0 {what}(s) (shape={tuple(X.shape)}) while a "
                "minimum of 1 is required."
            )
            raise ValueError(msg)
    xp = get_namespace(X)
    return xp, row_major(check_array(X, name="X", xp=xp, dtype=dtype))


def check_X_y(
    X: Any,
    y: Any,
    *,
    owner: Any,
    multi_output: bool = False,
    min_samples: int = 1,
    lazy: bool = False,
) -> tuple[ModuleType, Array, Array]:
    """Namespace, ``X`` (n × d) and ``y`` in X's floating dtype, namespace and device.

    ``owner`` is the estimator being fitted (its ``n_features_in_`` and ``feature_names_in_``
    are set) or a function's name. ``y`` follows ``X``: from another array library or device it
    is copied to X's, as scikit-learn ≥ 1.8 does (``X`` itself never moves). ``y`` is 1-D, or
    (with ``multi_output``) 1-D or 2-D; a single-output estimator given a column vector ravels
    it with a :class:`~sklearn.exceptions.DataConversionWarning`, and several columns raise an
    error that points at ``MultiOutputRegressor``.
    """
    name = _name(owner)
    if y is None:
        msg = f"{name} requires y to be passed, but the target y is None"
        raise ValueError(msg)
    xp, X = check_X(X, owner=owner, lazy=lazy)
    taken = lazy_y(X, y, name=name, multi_output=multi_output)
    if taken is not None:
        return xp, *taken
    y = move_to(ensure_array(y, name="y"), like=X)
    if not multi_output and y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please change the shape "
            "of y to (n_samples,), for example using ravel().",
            DataConversionWarning,
            stacklevel=3,
        )
        y = xp.reshape(y, (-1,))
    if not multi_output and y.ndim == 2:
        msg = (
            f"{name} fits one target, received y of shape {tuple(y.shape)}; fit one model per "
            "target with sklearn.multioutput.MultiOutputRegressor"
        )
        raise ValueError(msg)
    # finite in its own dtype first, then in range of X's, which it is fitted in
    y = check_array(y, name="y", xp=xp, ndim=(1, 2) if multi_output else 1)
    check_consistent_length(X=X, y=y)
    top = float(xp.max(xp.abs(y))) if math.prod(y.shape) else 0.0
    info = xp.finfo(X.dtype)
    if 0.0 < top < float(info.smallest_normal):  # in X's dtype y would be zero, or nearly
        msg = (
            f"y must reach at least {float(info.smallest_normal):.3g} in absolute value (the "
            f"smallest normal number of {X.dtype}, X's dtype, which y is fitted in), received "
            f"values of at most {top:.3g}: rescale y, or pass X as float64"
        )
        raise ValueError(msg)
    y = require_targets_fit(y, X.dtype)
    if X.shape[0] < min_samples:
        msg = f"{name} needs at least {min_samples} samples, received n_samples = {X.shape[0]}"
        raise ValueError(msg)
    return xp, X, y


def check_classification_X_y(
    X: Any, y: Any, *, owner: Any, lazy: bool = False
) -> tuple[ModuleType, Array, Any, Any]:
    """Namespace, ``X`` (n × d), the sorted class labels and each sample's class number.

    The labels may be numbers or strings, in any array library or a list; they are read on the
    host (``y`` is small), so ``classes`` and ``codes`` are NumPy arrays. At least two classes
    are required.
    """
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import column_or_1d

    name = _name(owner)
    if y is None:
        msg = f"{name} requires y to be passed, but the target y is None"
        raise ValueError(msg)
    xp, X = check_X(X, owner=owner, lazy=lazy)
    labels = _labels_on_host(y)
    if labels.ndim > 2 or (labels.ndim == 2 and labels.shape[1] != 1):
        msg = f"y must be a 1-D array of class labels, received an array of shape {labels.shape}"
        raise ValueError(msg)
    labels = column_or_1d(labels, warn=True)
    if labels.dtype.kind == "f" and not bool(
        host_namespace().all(host_namespace().isfinite(labels))
    ):
        msg = "y must contain only finite values, received NaN or infinity"
        raise ValueError(msg)
    classes, codes = _unique_labels(labels)  # before scikit-learn sorts them, unguarded
    check_classification_targets(labels)
    check_consistent_length(X=X, y=codes)
    if classes.shape[0] < 2:
        msg = (
            f"{name} needs y with samples of at least 2 classes, received 1 class: "
            f"{classes.tolist()!r}"
        )
        raise ValueError(msg)
    return xp, X, classes, codes


def _labels_on_host(y: Any) -> Any:
    """Class labels as a host array: numbers or strings, never a mask, a dict or a ragged list."""
    if type(y).__name__ == "MaskedArray":
        return ensure_array(y, name="y")  # its data, or the refusal of a masked entry
    if is_array_api_obj(y):
        return to_numpy(y)  # a Dask y is computed: n labels
    if isinstance(y, dict | set | frozenset):
        msg = f"y must be an array-like of class labels, received a {type(y).__name__}"
        raise TypeError(msg)
    try:
        return host_namespace().asarray(y)
    except (TypeError, ValueError):
        msg = "y must be a 1-D array-like of class labels, received a ragged nested sequence"
        raise ValueError(msg) from None


def _unique_labels(labels: Any) -> tuple[Any, Any]:
    """The sorted classes and each sample's class number; labels that cannot be sorted
    (text mixed with numbers, a missing label) are refused naming y."""
    try:
        return host_namespace().unique_inverse(labels)
    except TypeError:
        kinds = {}
        for label in labels.tolist():
            kinds.setdefault(type(label).__name__, label)
        shown = ", ".join(f"{kind} ({value!r})" for kind, value in kinds.items())
        msg = (
            f"y must hold class labels of one kind (all numbers or all strings), received labels "
            f"of types {shown}; convert them first, for example y.astype(str)"
        )
        raise TypeError(msg) from None


def check_class_sample_weight(
    class_weight: Any, sample_weight: Any, X: Array, classes: Any, codes: Any, *, owner: Any
) -> Array | None:
    """A classifier's row weights: ``sample_weight`` (:func:`check_sample_weight`) times the
    weight ``class_weight`` (None, "balanced" or a dict, scikit-learn's) gives each row's class
    (``classes[codes]``, on the host), in X's dtype, namespace and device; None when both are
    None. Refused with a ValueError naming them: a class weight that is not finite and ``≥ 0``,
    or a product that is zero everywhere."""
    from sklearn.utils.class_weight import compute_sample_weight

    weights = check_sample_weight(sample_weight, X, owner=owner)
    if class_weight is None:
        return weights
    xp = get_namespace(X)
    per_class = compute_sample_weight(class_weight, classes[codes])  # on the host
    hxp = host_namespace()
    if not bool(hxp.all(hxp.isfinite(per_class)) and hxp.all(per_class >= 0)):
        msg = f"class_weight must give every class a finite weight >= 0, received {class_weight!r}"
        raise ValueError(msg)
    per_class = from_host(per_class, xp=xp, device=device_of(X), dtype=X.dtype)
    weights = per_class if weights is None else weights * per_class
    if not bool(xp.any(weights > 0)):
        msg = (
            "sample_weight times class_weight must hold at least one positive weight, "
            f"received all zeros (class_weight={class_weight!r})"
        )
        raise ValueError(msg)
    return weights


def check_sample_weight(sample_weight: Any, X: Array, *, owner: Any) -> Array | None:
    """``None``, or the sample weights as a 1-D array of length n in X's dtype, namespace and
    device (moved there like ``y``).

    A number means the same weight for every sample. Weights must be finite and ``≥ 0``, not all
    zero; a zero weight leaves its sample out of the loss.
    """
    if sample_weight is None:
        return None
    xp = get_namespace(X)
    n = X.shape[0]
    if _is_number(sample_weight) and not hasattr(sample_weight, "shape"):
        sample_weight = xp.full(n, float(sample_weight), dtype=X.dtype, device=device_of(X))
    w = move_to(ensure_array(sample_weight, name="sample_weight"), like=X)
    w = check_array(w, name="sample_weight", xp=xp, ndim=1, dtype=X.dtype)
    if w.shape[0] != n:
        msg = f"sample_weight must have one entry per sample ({n}), received shape {tuple(w.shape)}"
        raise ValueError(msg)
    if bool(xp.any(w < 0)):
        msg = f"sample_weight must be >= 0, received a minimum of {float(xp.min(w)):.4g}"
        raise ValueError(msg)
    if not bool(xp.any(w > 0)):
        msg = "sample_weight must hold at least one positive weight, received all zeros"
        raise ValueError(msg)
    return w


def check_dense_kernel_size(
    n: int, X: Array, *, owner: str, alternative: str, count: int = 1
) -> None:
    """Raise :class:`MemoryError` before a fit whose peak is ``count`` matrices of ``n × n`` in
    X's dtype (the kernel matrix, its factors, LAPACK's workspace) that cannot fit into the
    memory of X's device (:func:`device_memory`).

    ``alternative`` names the low-rank estimator to use instead.
    """
    needed = count * n * n * (get_namespace(X).finfo(X.dtype).bits // 8)
    matrices = (
        "the n × n kernel matrix"
        if count == 1
        else f"{count} matrices of n × n (the kernel matrix, its factors, their workspace)"
    )
    require_device_memory(
        needed,
        X,
        what=f"{owner} forms {matrices}, at n_samples = {n} alone",
        advice=f"Use a low-rank method instead: {alternative}",
    )


def check_predict_X(
    estimator: Any, X: Any, *, like: str | Array, method: str = "predict"
) -> tuple[ModuleType, Array]:
    """Validated ``X`` for a fitted ``estimator``, in the dtype and array library of ``like``
    (a fitted array, or the name of the fitted array attribute).

    Raises if the estimator is not fitted; if ``X`` comes from another array library or device
    than the fitted arrays (checked first, before anything is converted; the message says how
    to convert); or if its features differ from those seen in ``fit`` (number, or a
    DataFrame's column names).
    """
    check_is_fitted(estimator)
    like = getattr(estimator, like) if isinstance(like, str) else like
    _record_features(estimator, X, reset=False)
    array = ensure_array(X, name="X")
    if not same_place(array, like):
        fitted = f"{get_namespace(like).__name__} on {device_of(like)!r}"
        given = f"{get_namespace(array).__name__} on {device_of(array)!r}"
        msg = (
            f"Inputs passed to {type(estimator).__name__}.{method}() must use the same namespace "
            f"and the same device as those passed to fit(): fitted with {fitted}, received "
            f"{given}. Convert X first, for example with xp.asarray(X, device=...) of the "
            "fitted library (lrkl._backend.to_numpy for NumPy)."
        )
        raise ValueError(msg)
    xp, X = check_X(array, dtype=like.dtype)
    if X.shape[1] != estimator.n_features_in_:
        msg = (
            f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input"
        )
        raise ValueError(msg)
    return xp, X

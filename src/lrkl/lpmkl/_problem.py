"""Problem (4) of Rakotomamonjy & Chanda — the SVM over a sum of low-rank kernels for any
kernel weights — as every solver receives it: the rotated, stacked features, the labels, the
cost ``C``, the loss and the sample weights; the solution record every solver returns; and their
checks (:func:`svm_problem` is the public door)."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any, NamedTuple

from lrkl._backend import check_array, device_of, get_namespace, positive_range
from lrkl._checks import check_namespace, check_number, check_option
from lrkl._linalg import eigh
from lrkl._typing import Array
from lrkl.lpmkl._losses import LOSSES

__all__ = [
    "SVMProblem",
    "SVMSolution",
    "check_costs",
    "check_labels",
    "check_problem",
    "check_row_weights",
    "check_solution",
    "check_weights",
    "svm_problem",
]


class SVMProblem(NamedTuple):
    """Problem (4) for any kernel weights ``d``, with each kernel's features rotated to
    orthogonal columns (padded with zero columns to a common width ``R``)."""

    V: Array  # shape: (m, n, R), V[k]ᵀ V[k] = diag(s[k])
    s: Array  # shape: (m, R), squared column norms
    y: Array  # shape: (n,), labels ±1 in the features' dtype
    C: float
    rotations: tuple[Array, ...]  # Q_k, shape (R_k, R_k): V[k][:, :R_k] = V_k Q_k
    loss: str = "hinge"  # or "squared_hinge" (lrkl.lpmkl._losses)
    sample_weight: Array | None = None  # shape: (n,), row i's cost is C·w_i

    def costs(self) -> float | Array:
        """Each row's cost in the loss: ``C``, or ``C·w_i`` with sample weights."""
        return self.C if self.sample_weight is None else self.C * self.sample_weight

    def largest_cost(self, *, xp: ModuleType) -> float:
        """The largest row cost, ``C·max_i w_i`` (``C`` without sample weights): the scale the
        solvers divide their objectives by, so that ``C`` and the weights may each be large."""
        if self.sample_weight is None:
            return self.C
        return self.C * float(xp.max(self.sample_weight))

    def feature_weights(self, w: Array, *, xp: ModuleType) -> Array:
        """The weights of the stacked original features ``[V_1 … V_m]`` (length ``Σ R_k``) for
        rotated weights ``w`` (m × R): ``Q_k w_k`` for each kernel."""
        return xp.concat([Q @ w[k, : Q.shape[0]] for k, Q in enumerate(self.rotations)], axis=0)


class SVMSolution(NamedTuple):
    """A solution of problem (4): ``alpha`` in the box (None where a solver does not give it),
    the primal weights of each kernel's features ``w[k] = d_k V_kᵀ Y α`` (rotated coordinates),
    the decision values on the training rows without the intercept, the intercept, and how the
    solver got there."""

    alpha: Array | None  # shape: (n,)
    w: Array  # shape: (m, R)
    decision: Array  # shape: (n,)
    intercept: Array
    n_iter: int
    converged: bool
    state: Any


def svm_problem(
    features: Sequence[Array],
    y: Array,
    C: float,
    *,
    loss: str = "hinge",
    sample_weight: Array | None = None,
    xp: ModuleType,
) -> SVMProblem:
    """Problem (4) for any kernel weights: each ``V_k`` (n × R_k) rotated to orthogonal columns,
    ``O(n R_k²)`` each, and stacked. ``loss`` is ``"hinge"`` (the paper's) or
    ``"squared_hinge"`` (:mod:`lrkl.lpmkl._losses`); ``sample_weight`` gives row ``i`` the cost
    ``C·w_i`` (the hinge's box ``0 ≤ α_i ≤ C w_i``).

    ``features`` is a non-empty sequence of finite 2-D arrays of ``xp`` with ``n`` rows each,
    ``y`` holds the labels −1 and 1, each at least once (in the features' dtype), ``C > 0``;
    anything else is refused with a ValueError or TypeError naming the argument.
    """
    check_namespace(xp)
    check_number(C, name="C", strict=True)
    check_option(loss, LOSSES, name="loss")
    if isinstance(features, str) or not isinstance(features, Sequence) or not features:
        msg = f"features must be a non-empty sequence of 2-D arrays, received {features!r:.80}"
        raise TypeError(msg)
    y = check_array(y, name="y", ndim=1, xp=xp)
    n = y.shape[0]
    features = [
        check_array(V, name=f"features[{k}]", ndim=2, xp=xp) for k, V in enumerate(features)
    ]
    for k, V in enumerate(features):
        if V.shape[0] != n:
            msg = (
                f"features[{k}] must have one row per label ({n}) and at least one column, "
                f"received shape {tuple(V.shape)}"
            )
            raise ValueError(msg)
    check_labels(y, both=True, xp=xp)  # one class has no margin: the intercept is undefined
    if sample_weight is not None:
        sample_weight = check_row_weights(sample_weight, y, name="sample_weight", xp=xp)
    check_costs(C, sample_weight, name="C and sample_weight", dtype=features[0].dtype, xp=xp)
    return _svm_problem(list(features), y, C, loss=loss, sample_weight=sample_weight, xp=xp)


#: The largest ratio of two positive sample weights: a row whose cost is near the largest
#: one's rounding in the solvers' float64 sums adds nothing they resolve. One row weighted
#: 1e16 (the others 1) moved a model by 3 % of its decision values, 1e12 by up to 4.5 % on
#: another set, 1e11 by at most 1e-5 on six problems (two losses, three draws): 1e10 keeps a
#: margin.
MAX_WEIGHT_SPAN = 1e10


def check_row_weights(weights: Any, y: Array, *, name: str, xp: ModuleType) -> Array:
    """``weights`` if it is a finite 1-D array of one weight ≥ 0 per label, each class with a
    positive sum (else that class has no margin and the intercept is undefined) and its
    positive weights within :data:`MAX_WEIGHT_SPAN` of each other; else an error naming
    ``name``."""
    weights = check_array(weights, name=name, ndim=1, dtype=y.dtype, xp=xp)
    if weights.shape[0] != y.shape[0] or not bool(xp.all(weights >= 0.0)):
        msg = (
            f"{name} must hold one weight >= 0 per row ({y.shape[0]}), received shape "
            f"{tuple(weights.shape)}"
        )
        raise ValueError(msg)
    for label in (1.0, -1.0):
        if not float(xp.sum(xp.where(y == label, weights, 0.0))) > 0.0:
            msg = f"{name} must give each class a positive total weight, class {label:+g} has 0"
            raise ValueError(msg)
    low, top = positive_range(weights, xp=xp)
    if top > MAX_WEIGHT_SPAN * low:
        msg = (
            f"{name} must keep its positive weights within a factor {MAX_WEIGHT_SPAN:g} of each "
            f"other (a smaller row's cost is lost in the rounding of the largest one's), received "
            f"weights from {low:g} to {top:g}"
        )
        raise ValueError(msg)
    return weights


def check_costs(C: float, weights: Array | None, *, name: str, dtype: Any, xp: ModuleType) -> None:
    """A ValueError naming ``name`` unless the largest row cost, ``C·max w`` (``C`` without
    weights), lies in the normal range of ``dtype``, the dtype the costs are held in: past it
    they overflow, below it the solvers' steps divide by zero."""
    top = C if weights is None else C * float(xp.max(weights))
    info = xp.finfo(dtype)
    low, high = float(info.smallest_normal), float(info.max)
    if not low <= top <= high:
        msg = (
            f"{name} must give a largest row cost (C times the largest sample weight) within "
            f"the range of the features' dtype, [{low:.3g}, {high:.3g}], received {top:.3g}"
        )
        raise ValueError(msg)


def check_labels(y: Array, *, name: str = "y", both: bool = False, xp: ModuleType) -> Array:
    """``y`` if every value is −1 or 1 (and, with ``both``, each occurs), else a ValueError."""
    if not bool(xp.all((y == 1.0) | (y == -1.0))):
        msg = f"{name} must hold the labels -1 and 1 (encode {{0, 1}} labels as 2 y - 1)"
        raise ValueError(msg)
    if both and not (bool(xp.any(y == 1.0)) and bool(xp.any(y == -1.0))):
        msg = f"{name} must hold both labels -1 and 1, received one class only"
        raise ValueError(msg)
    return y


def check_problem(problem: Any) -> SVMProblem:
    """``problem`` if it is an :class:`SVMProblem` whose fields are what :func:`svm_problem`
    builds (a hand-built or edited one too): finite real arrays ``V`` (m, n, R), ``s`` (m, R)
    and labels ``y`` ±1 (n,), ``C > 0`` and one rotation of at most R columns per kernel; else
    an error naming the field."""
    if not isinstance(problem, SVMProblem):
        msg = f"problem must be an SVMProblem (from svm_problem), received {type(problem).__name__}"
        raise TypeError(msg)
    V, s, y = problem.V, problem.s, problem.y
    arrays = [a for a in (V, s, y) if hasattr(a, "dtype")]
    xp = get_namespace(*arrays) if arrays else None  # None: check_array refuses V by name
    V = check_array(V, name="problem.V", ndim=3, min_rows=1, xp=xp, dtype=getattr(V, "dtype", None))
    m, n, R = V.shape
    s = check_array(s, name="problem.s", ndim=2, xp=xp, dtype=V.dtype)
    y = check_array(y, name="problem.y", ndim=1, xp=xp, dtype=V.dtype)
    if tuple(s.shape) != (m, R) or y.shape[0] != n:
        msg = (
            f"problem.s and problem.y must have shapes ({m}, {R}) and ({n},) for V of shape "
            f"{(m, n, R)}, received {tuple(s.shape)} and {tuple(y.shape)}"
        )
        raise ValueError(msg)
    if not bool(xp.all((y == 1.0) | (y == -1.0))):
        msg = "problem.y must hold labels -1 and 1"
        raise ValueError(msg)
    check_number(problem.C, name="problem.C", strict=True)
    check_option(problem.loss, LOSSES, name="problem.loss")
    if problem.sample_weight is not None:
        check_row_weights(problem.sample_weight, y, name="problem.sample_weight", xp=xp)
    check_costs(
        problem.C,
        problem.sample_weight,
        name="problem.C and problem.sample_weight",
        dtype=V.dtype,
        xp=xp,
    )
    rotations = problem.rotations
    if not isinstance(rotations, tuple) or len(rotations) != m:
        msg = (
            f"problem.rotations must be a tuple of {m} arrays, received {type(rotations).__name__}"
        )
        raise TypeError(msg)
    for k, Q in enumerate(rotations):
        Q = check_array(Q, name=f"problem.rotations[{k}]", ndim=2, xp=xp, dtype=V.dtype)
        if Q.shape[0] != Q.shape[1] or Q.shape[0] > R:
            msg = (
                f"problem.rotations[{k}] must be square of at most {R} rows, received shape "
                f"{tuple(Q.shape)}"
            )
            raise ValueError(msg)
    return problem


def check_weights(d: Any, problem: SVMProblem, *, name: str = "d", xp: ModuleType) -> Array:
    """``d`` if it is a finite non-negative 1-D array of one weight per kernel of ``problem``,
    else an error naming ``name``."""
    check_problem(problem)
    d = check_array(d, name=name, ndim=1, xp=xp)
    m = problem.V.shape[0]
    if d.shape[0] != m or not bool(xp.all(d >= 0.0)):
        msg = (
            f"{name} must hold {m} non-negative kernel weights, received shape "
            f"{tuple(d.shape)} with minimum {float(xp.min(d)) if d.shape[0] else 'none'}"
        )
        raise ValueError(msg)
    return d


def check_solution(
    solution: Any, problem: SVMProblem, *, need_alpha: bool = False, xp: ModuleType
) -> SVMSolution:
    """``solution`` if it is an :class:`SVMSolution` whose arrays are finite and shaped for
    ``problem`` (``alpha`` present where ``need_alpha``), else an error naming ``solution``."""
    if not isinstance(solution, SVMSolution):
        msg = f"solution must be an SVMSolution, received {type(solution).__name__}"
        raise TypeError(msg)
    if need_alpha and solution.alpha is None:
        msg = "solution must hold a dual point alpha (liblinear's solutions give none)"
        raise ValueError(msg)
    m, n, R = problem.V.shape
    expected = {"w": (m, R), "decision": (n,), "intercept": ()}
    if solution.alpha is not None:
        expected["alpha"] = (n,)
    for field, shape in expected.items():
        a = check_array(getattr(solution, field), name=f"solution.{field}", ndim=len(shape), xp=xp)
        if tuple(a.shape) != shape:
            msg = (
                f"solution.{field} must have shape {shape} to match the problem, received "
                f"{tuple(a.shape)}"
            )
            raise ValueError(msg)
    return solution


def _svm_problem(
    features: list[Array],
    y: Array,
    C: float,
    *,
    loss: str = "hinge",
    sample_weight: Array | None = None,
    xp: ModuleType,
) -> SVMProblem:
    """:func:`svm_problem` on trusted inputs. It takes the list ``features`` over: each factor
    is rotated into one preallocated ``(m, n, R)`` array and its entry then set to None, so that
    a caller who holds no other reference never holds the features twice."""
    m = len(features)
    n = int(features[0].shape[0])
    width = max(int(V.shape[1]) for V in features)
    dev = device_of(features[0])
    dtype = features[0].dtype
    stacked = xp.zeros((m, n, width), dtype=dtype, device=dev)  # zero columns pad to R
    norms = xp.zeros((m, width), dtype=dtype, device=dev)
    rotations = []
    for k in range(m):
        V = features[k]
        features[k] = None
        r = int(V.shape[1])
        s, Q = eigh(xp.matrix_transpose(V) @ V, xp=xp)
        stacked[k, :, :r] = V @ Q
        norms[k, :r] = xp.clip(s, min=0.0)
        rotations.append(Q)
        del V
    return SVMProblem(stacked, norms, y, float(C), tuple(rotations), loss, sample_weight)


def _kernel_products(problem: SVMProblem, alpha: Array, *, xp: ModuleType) -> Array:
    """``V_kᵀ Y α`` for every kernel, shape (m, R): one pass over the features."""
    return (xp.matrix_transpose(problem.V) @ (problem.y * alpha)[None, :, None])[..., 0]


def _decision(problem: SVMProblem, w: Array, *, xp: ModuleType) -> Array:
    """``Σ_k V_k w_k`` on the training rows, shape (n,)."""
    return xp.sum((problem.V @ w[:, :, None])[..., 0], axis=0)

"""Estimator bases: scikit-learn tags, parameter checks, the callback / verbose convention and
the convergence warning, shared by every lrkl estimator.

- Parameters are declared in ``_parameter_constraints`` and checked by scikit-learn's
  ``_validate_params`` at the start of ``fit``; an invalid one raises
  :class:`~sklearn.utils._param_validation.InvalidParameterError` (a ``ValueError`` and
  ``TypeError``) naming the parameter, the allowed values and what was received. Only bounds that
  depend on the data (a rank above ``n_samples``) are checked in code.
- Iterative estimators take ``callback`` and ``verbose``: the solver calls ``callback(state)``
  with a small named tuple at its checkpoints, and returning ``True`` stops the fit;
  ``verbose > 0`` prints one line per checkpoint to stderr. :meth:`LRKLEstimator._monitor` turns
  the two into the one function a solver takes.
- Every estimator supports the array API: arrays of any array-API library in, results of the
  same library on the same device out.
- Fitting is all-or-nothing: a ``fit`` (or ``fit_transform``, ``partial_fit``) that raises leaves
  the estimator exactly as it was before the call (see :func:`_all_or_nothing`).
"""

from __future__ import annotations

import functools
import importlib
import sys
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning

from lrkl._backend import from_host, get_namespace, host_namespace, to_numpy
from lrkl._checks import require_float_range
from lrkl._executor import rowwise
from lrkl.kernels import KERNEL_NAMES, Gaussian, kernel_from_name

__all__ = ["LRKLClassifier", "LRKLEstimator", "LRKLRegressor", "LRKLTransformer"]

#: Constraints of the ``callback`` and ``verbose`` parameters of iterative estimators.
MONITOR_CONSTRAINTS: dict[str, list] = {"callback": [callable, None], "verbose": ["verbose"]}


#: The methods that set fitted state, made all-or-nothing on every subclass.
FIT_METHODS = ("fit", "fit_transform", "partial_fit")


def _all_or_nothing(fit: Callable) -> Callable:
    """``fit`` that, when it raises, puts back every attribute the estimator had before the call.

    Why a snapshot of ``__dict__`` rather than "validate everything, then commit the fitted
    attributes at the end" in each ``fit``: validation and fitting are interleaved (scikit-learn's
    ``validate_data`` records ``n_features_in_`` on the way in, kernels resolve on the data, the
    solver can fail after some attributes exist), and a commit-at-the-end discipline is one that a
    new estimator can forget. :meth:`LRKLEstimator.__init_subclass__` applies this to the fit
    methods of every subclass, so no estimator has to remember it. The copy is shallow (one dict
    of references, O(number of attributes)): fit methods assign their fitted attributes, they never
    mutate the arrays of a previous fit in place.
    """

    @functools.wraps(fit)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        before = dict(self.__dict__)
        try:
            return fit(self, *args, **kwargs)
        except BaseException:  # KeyboardInterrupt too: never leave a half-fitted estimator
            self.__dict__.clear()
            self.__dict__.update(before)
            raise

    wrapper.__lrkl_all_or_nothing__ = True
    return wrapper


class LRKLEstimator(BaseEstimator):
    """Tags and conventions shared by every lrkl estimator (see the module docstring)."""

    _parameter_constraints: ClassVar[dict] = {}

    #: Fitted attributes renamed (issue 34), old name → new name, declared by each class that
    #: had the old one: reading it warns once (FutureWarning) and gives the new one's value.
    _renamed_attributes: ClassVar[dict[str, str]] = {}

    def __getattr__(self, name: str) -> Any:
        new = type(self)._renamed_attributes.get(name)
        if new is None:
            msg = f"{type(self).__name__!r} object has no attribute {name!r}"
            raise AttributeError(msg)
        value = getattr(self, new)  # an AttributeError (not fitted) names the new attribute
        owner = type(self).__name__
        _warn_renamed(f"{owner}.{name}", f"{owner}.{new}")
        return value

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in FIT_METHODS:
            method = getattr(cls, name, None)  # inherited from a mixin too
            if callable(method) and not getattr(method, "__lrkl_all_or_nothing__", False):
                setattr(cls, name, _all_or_nothing(method))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.array_api_support = True
        tags.input_tags.allow_nan = False
        return tags

    def _validate_params(self) -> None:
        """scikit-learn's constraints, then no integer beyond float64's range (which they let
        through)."""
        super()._validate_params()
        for name, value in self.get_params(deep=False).items():
            require_float_range(value, name=name)

    def set_params(self, **params: Any) -> LRKLEstimator:
        """Set parameters, scikit-learn's way; a kernel given by name (or the default ``None``)
        becomes its kernel object when a nested parameter of it is set: ``kernel="rbf"`` (or
        ``None``) with ``kernel__gamma=0.1`` in a search means ``Gaussian(gamma=0.1)``.
        """
        for key in params:
            name, nested, _ = key.partition("__")
            value = getattr(self, name, None)
            if nested and isinstance(value, str) and value in KERNEL_NAMES:
                setattr(self, name, kernel_from_name(value))
            elif nested and name == "kernel" and value is None:
                setattr(self, name, Gaussian())
        return super().set_params(**params)

    def _monitor(self, describe: Callable[[Any], str]) -> Callable[[Any], bool] | None:
        """The ``callback(state) -> bool`` to hand to a solver, or None when nothing listens.

        ``describe(state)`` is the line printed when ``verbose > 0``.
        """
        callback = getattr(self, "callback", None)
        verbose = getattr(self, "verbose", 0)
        if not verbose and callback is None:
            return None

        def monitor(state: Any) -> bool:
            if verbose:
                print(f"[{type(self).__name__}] {describe(state)}", file=sys.stderr)
            return bool(callback(state)) if callback is not None else False

        return monitor

    def _warn_not_converged(self, n_iter: int, advice: str) -> None:
        """A :class:`~sklearn.exceptions.ConvergenceWarning` after ``n_iter`` iterations."""
        msg = (
            f"{type(self).__name__} stopped after {n_iter} iterations before its stopping rule "
            f"held; {advice}"
        )
        warnings.warn(msg, ConvergenceWarning, stacklevel=3)


@functools.cache
def _warn_renamed(old: str, new: str) -> None:
    """The FutureWarning of a renamed or moved public name (``Class.attribute`` or
    ``module.name``), once per name."""
    msg = f"{old} is now {new}; the old name will be removed in the next release"
    warnings.warn(msg, FutureWarning, stacklevel=3)  # the frame that read the old name


def old_module_names(module: str, renamed: dict[str, tuple[str, str]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for public names that moved or were renamed (issue 34):
    ``renamed`` maps an old name to ``(module, new name)``, imported when the old name is read,
    with a FutureWarning (once per name) at the line that read it; one release, then the old
    name goes."""

    def __getattr__(name: str) -> Any:
        if name not in renamed:
            msg = f"module {module!r} has no attribute {name!r}"
            raise AttributeError(msg)
        home, new = renamed[name]
        _warn_renamed(f"{module}.{name}", f"{home}.{new}")
        return getattr(importlib.import_module(home), new)

    return __getattr__


class LRKLRegressor(RegressorMixin, LRKLEstimator):
    """Base of lrkl's regressors (``score`` is R²)."""


class LRKLClassifier(ClassifierMixin, LRKLEstimator):
    """Base of lrkl's classifiers (``score`` is the accuracy).

    A subclass fits one real-valued score per column of :meth:`_sign_targets` (one for two
    classes, one per class, one-vs-rest, otherwise), records the labels with
    :meth:`_set_classes` and implements ``_decision(X, method)``; ``predict`` is shared.
    """

    @staticmethod
    def _sign_targets(codes: Any, n_classes: int) -> Any:
        """±1 targets on the host, shape (n, t): ``t = 1`` for two classes, +1 for
        ``classes_[1]``; otherwise one column per class, +1 for that class and −1 for the rest.
        """
        hxp = host_namespace()
        columns = hxp.arange(n_classes)[None, :] if n_classes > 2 else hxp.asarray([[1]])
        return hxp.where(codes[:, None] == columns, 1.0, -1.0)

    def _set_classes(self, classes: Any, *, xp: Any, device: Any) -> None:
        """``classes_``: numeric labels in the data's namespace, text labels on the host."""
        numeric = classes.dtype.kind in "biuf"
        self.classes_ = from_host(classes, xp=xp, device=device) if numeric else classes

    @rowwise
    def decision_function(self, X: Any) -> Any:
        """The score of each class for the rows of ``X``.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples,) or (n_samples, n_classes)
            Positive for ``classes_[1]`` with two classes; one column per class otherwise.
        """
        return self._decision(X, "decision_function")

    @rowwise
    def predict(self, X: Any) -> Any:
        """The class of each row of ``X``: the sign of the score with two classes, the class
        of the largest score otherwise.

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples,)
        """
        scores = self._decision(X, "predict")
        xp = get_namespace(scores)
        if not bool(xp.all(xp.isfinite(scores))):  # NaN > 0 is False: it would be a label
            msg = (
                f"{type(self).__name__}.predict: the decision values of X are not finite (NaN or "
                "infinity), so no class can be given; the fitted model or X overflowed"
            )
            raise ValueError(msg)
        index = xp.astype(scores > 0, xp.int64) if scores.ndim == 1 else xp.argmax(scores, axis=1)
        if isinstance(self.classes_, type(scores)):
            return xp.take(self.classes_, index)
        return self.classes_[to_numpy(index)]  # text labels stay on the host


class LRKLTransformer(TransformerMixin, LRKLEstimator):
    """Base of lrkl's transformers (``fit_transform`` from ``fit`` and ``transform``)."""

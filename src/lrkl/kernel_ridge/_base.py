"""What every kernel expansion ``f(x) = Σ_j c_j k(x_j, x) + b`` shares: its prediction in blocks
of rows (:func:`predict_dual`), the estimators' base (:class:`KernelExpansionRegressor`) and the
uniform draw of its centres (:func:`sample_rows`)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, ClassVar

from sklearn.utils import check_random_state

from lrkl._backend import device_of
from lrkl._base import LRKLRegressor
from lrkl._executor import rowwise
from lrkl._typing import Array
from lrkl._validation import check_predict_X
from lrkl.kernels import DEFAULT_MAX_ENTRIES, row_slices

__all__ = ["KernelExpansionRegressor", "predict_dual", "sample_rows"]


def predict_dual(
    kernel_block: Callable[[Array], Array],
    X: Array,  # shape: (m, d)
    dual: Array,  # shape: (n_centres,) or (n_centres, t)
    intercept: Array,  # shape: () or (t,)
    /,
    *,
    xp: ModuleType,
    max_entries: int = DEFAULT_MAX_ENTRIES,
) -> Array:
    """``kernel_block(X[rows]) @ dual + intercept`` over row blocks of at most ``max_entries``
    kernel values: the test kernel matrix is never formed whole.

    ``kernel_block(rows)`` returns the kernel values between ``rows`` and the centres, shape
    ``(len(rows), n_centres)``, in the dtype of ``dual``.
    """
    n_centres = dual.shape[0]
    out = xp.zeros((X.shape[0], *dual.shape[1:]), dtype=dual.dtype, device=device_of(X))
    if n_centres:
        for rows in row_slices(X.shape[0], n_centres, max_entries):
            out[rows, ...] = kernel_block(X[rows, ...]) @ dual
    return out + intercept


def sample_rows(n: int, M: int, random_state: Any) -> list[int]:
    """M distinct row numbers of ``range(n)`` drawn uniformly, in increasing order."""
    rng = check_random_state(random_state)
    return sorted(int(i) for i in rng.choice(n, size=M, replace=False))


class KernelExpansionRegressor(LRKLRegressor):
    """``predict`` of ``f(x) = Σ_j dual_coef_[j] k(centers_[j], x) + intercept_`` in row blocks."""

    #: The fitted arrays of the model, in the dtype of the fit (:meth:`_keep_model_in`).
    _model_arrays: ClassVar[tuple[str, ...]] = ("centers_", "dual_coef_", "intercept_")

    def _keep_model_in(self, dtype: Any, *, xp: ModuleType) -> None:
        """The fitted expansion in ``dtype``, the input's (:func:`lrkl._backend.float_dtype`),
        after a fit computed in a wider one (:func:`lrkl._backend.widened`): the model then
        costs and answers as the input's dtype. Rounding a float64 model to float32 moves its
        predictions by less than 1e-4 of their spread (docs/backend.rst), α = 5.5e-9 included,
        where a float32 solve at such an α moves them by percents."""
        for name in self._model_arrays:
            setattr(self, name, xp.astype(getattr(self, name), dtype))

    def _kernel_block(self, X: Array, *, xp: Any) -> Array:
        """The kernel values between the rows of ``X`` and the centres."""
        return self.kernel_._evaluate(X, self.centers_, xp=xp)

    @rowwise
    def predict(self, X: Array) -> Array:
        """Predict targets for the rows of ``X`` (same namespace and device as ``X``).

        Parameters
        ----------
        X : array of shape (n_samples, n_features)

        Returns
        -------
        array of shape (n_samples,) or (n_samples, n_targets)
        """
        xp, X = check_predict_X(self, X, like="dual_coef_")

        def block(rows: Array) -> Array:
            return self._kernel_block(rows, xp=xp)

        return predict_dual(block, X, self.dual_coef_, self.intercept_, xp=xp)

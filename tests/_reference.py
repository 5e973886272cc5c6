"""Dense NumPy references the tests compare lrkl with: written once, independent of lrkl."""

from __future__ import annotations

import numpy as np


def kernel_ridge(K: np.ndarray, y: np.ndarray, alpha: float, fit_intercept: bool):
    """``(c, b)`` of ``(K + αI) c + b 1 = y`` with ``1ᵀ c = 0`` (b = 0 without an intercept), by
    one dense solve of the bordered system (Prato & Zanni's eq. 7)."""
    n = K.shape[0]
    if not fit_intercept:
        return np.linalg.solve(K + alpha * np.eye(n), y), 0.0
    A = np.zeros((n + 1, n + 1))
    A[:n, :n] = K + alpha * np.eye(n)
    A[:n, n] = A[n, :n] = 1.0
    rhs = np.concatenate([y, np.zeros((1, *y.shape[1:]))])
    sol = np.linalg.solve(A, rhs)
    return sol[:n], sol[n]

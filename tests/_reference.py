"""Dense NumPy references the tests compare lrkl with: written once, independent of lrkl.

Each takes explicit n × n matrices and spells the mathematics out as directly as possible
(explicit Schur complements, explicit centring matrices, one dense solve), so that a test
checks lrkl's blockwise, low-rank, device-agnostic computation against the textbook one.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.spatial.distance import cdist

# --------------------------------------------------------------------------- kernel matrices


def gaussian_kernel(X: np.ndarray, Z: np.ndarray, gamma: float) -> np.ndarray:
    """``exp(−γ ‖x − z‖²)`` for every pair of rows."""
    return np.exp(-gamma * cdist(X, Z, "sqeuclidean"))


def laplacian_kernel(X: np.ndarray, Z: np.ndarray, gamma: float) -> np.ndarray:
    """``exp(−γ ‖x − z‖₁)`` for every pair of rows."""
    return np.exp(-gamma * cdist(X, Z, "cityblock"))


def centring(n: int) -> np.ndarray:
    """The centring matrix ``P = I − 11ᵀ/n``."""
    return np.eye(n) - np.ones((n, n)) / n


# --------------------------------------------------------------------------- kernel ridge


def kernel_ridge(
    K: np.ndarray, y: np.ndarray, alpha: float, fit_intercept: bool, sample_weight=None
):
    """``(c, b)`` of ``(K + αW⁻¹) c + b 1 = y`` with ``1ᵀ c = 0`` (b = 0 without an intercept;
    ``W = I`` without weights, which must then be positive), by one dense solve of the bordered
    system (Prato & Zanni's eq. 7): the minimiser of ``Σ w_i (y_i − f_i)² + α cᵀKc``."""
    n = K.shape[0]
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    A = K + alpha * np.diag(1.0 / w)
    if not fit_intercept:
        return np.linalg.solve(A, y), 0.0
    B = np.zeros((n + 1, n + 1))
    B[:n, :n] = A
    B[:n, n] = B[n, :n] = 1.0
    rhs = np.concatenate([y, np.zeros((1, *y.shape[1:]))])
    sol = np.linalg.solve(B, rhs)
    return sol[:n], sol[n]


# --------------------------------------------------------------------------- low-rank factors


def nystrom(K: np.ndarray, S) -> np.ndarray:
    """The Nyström approximation ``K[:, S] K[S, S]⁻¹ K[S, :]`` on the landmarks ``S``."""
    return K[:, S] @ np.linalg.solve(K[np.ix_(S, S)], K[S, :])


def pivoted_cholesky(K: np.ndarray, rank: int, pivots=None):
    """Pivoted Cholesky on the full matrix: explicit Schur complements, greedy or given pivots.

    Returns ``(G, pivots)`` with ``G`` of shape (n, rank).
    """
    n = K.shape[0]
    E = K.copy()
    G = np.zeros((n, rank))
    chosen = []
    for k in range(rank):
        if pivots is None:
            diag = np.diag(E).copy()
            diag[chosen] = -np.inf
            i = int(np.argmax(diag))
        else:
            i = pivots[k]
        g = E[:, i] / np.sqrt(E[i, i])
        G[:, k] = g
        E = E - np.outer(g, g)
        chosen.append(i)
    return G, chosen


def cholesky_features(K_SS: np.ndarray, K_SZ: np.ndarray) -> np.ndarray:
    """Rows ``L⁻¹ k(S, z)`` of the Cholesky factor on the pivots ``S``, ``L Lᵀ = K[S, S]``."""
    L = np.linalg.cholesky(K_SS)
    return scipy.linalg.solve_triangular(L, K_SZ, lower=True).T


def csi_greedy(K, Y, rank, kappa, centering=True):
    """Exact greedy CSI: for every candidate the exact new column and the exact gain in J."""
    n = K.shape[0]
    Y = Y.reshape(n, -1)
    P = centring(n) if centering else np.eye(n)
    Y = P @ Y
    lam, mu = (1 - kappa) / np.trace(K), kappa / np.sum(Y**2)
    E = K.copy()
    Q = np.zeros((n, 0))
    chosen = []
    for _ in range(rank):
        best, best_i = -np.inf, None
        for i in range(n):
            if i in chosen or E[i, i] <= 1e-10:
                continue
            g = E[:, i] / np.sqrt(E[i, i])
            q = P @ g
            q = q - Q @ (Q.T @ q)
            gain_y = np.sum((Y.T @ q) ** 2) / np.sum(q**2)
            gain = lam * np.sum(g**2) + mu * gain_y
            if gain > best:
                best, best_i = gain, i
        g = E[:, best_i] / np.sqrt(E[best_i, best_i])
        E = E - np.outer(g, g)
        q = P @ g
        q = q - Q @ (Q.T @ q)
        Q = np.column_stack([Q, q / np.linalg.norm(q)])
        chosen.append(best_i)
    return chosen


# --------------------------------------------------------------------------- alignment


def alignment_statistics(Ks, y):
    """a_q = ⟨P K_q P, y yᵀ⟩_F and M_ql = ⟨P K_q P, P K_l P⟩_F with explicit P."""
    P = centring(Ks[0].shape[0])
    Kc = [P @ K @ P for K in Ks]
    Y = y.reshape(len(y), -1)
    a = np.array([np.sum(K * (Y @ Y.T)) for K in Kc])
    M = np.array([[np.sum(A * B) for B in Kc] for A in Kc])
    return a, M


def exact_mkl_problem(seed: int, n: int):
    """Rows, ±1 labels (inside / outside a circle), three Gaussian kernel matrices (γ = 0.1, 1,
    10) and their exact factors ``U √s`` (``V Vᵀ = K``), for the MKL tests."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 > 1.2, 1.0, -1.0)
    Ks = [gaussian_kernel(X, X, g) for g in (0.1, 1.0, 10.0)]
    factors = []
    for K in Ks:
        s, U = np.linalg.eigh(K)
        factors.append(U * np.sqrt(np.clip(s, 0, None)))
    return X, y, Ks, factors

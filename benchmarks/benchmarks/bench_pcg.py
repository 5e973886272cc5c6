"""Nyström kernel ridge by preconditioned CG (``solver="pcg"``): the time of one iteration against
one blocked pass ``K_nM v`` (the kernel blocks recomputed, d = 10), the iterations against n and
α, and the peak memory of a fit against n and M (the kernel block not cached: O(M²) factors and
O(n d) data).

Issue 36's targets: an iteration within 1.3 times one pass at n = 10⁵, M = 5000, and that pass
at most 85 ms per 10⁴ × 5·10³ block in float64 (50 ms in float32; ``bench_kernels`` times the
blocks themselves). Each iteration case takes a few seconds on 2 cores.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from lrkl import LowRankRidge
from lrkl.kernels import Gaussian

from .common import OnBackend

try:  # the pcg solver (issue 36)
    from lrkl.kernel_ridge._pcg import NystromSystem, decision, factor_bytes
    from lrkl.kernels import check_kernels
except ImportError:  # the commits before it, for asv's before/after comparisons
    NystromSystem = decision = factor_bytes = check_kernels = None


def _data(n, d=10, seed=0):
    """Issue 36's synthetic problem: X ~ N(0, I_d), y = sin(2x₀) + x₁x₂ + 0.3ε."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.3 * rng.standard_normal(n)


class PCGIteration(OnBackend):
    """One CG iteration (a pass ``K_cᵀ W K_c u`` with the kernel blocks recomputed, four M × M
    triangular solves) against one blocked pass ``K_nM v``, at n = 10⁵, M = 5000; the kernel
    values in X's dtype (float32 rows: ``kernel_dtype="float32"``'s, the default's being
    float64)."""

    params = ([100_000], [5_000], ["float64", "float32"], ["numpy", "cupy"])
    param_names = ["n", "M", "dtype", "backend"]
    number = 1
    repeat = 3
    timeout = 600

    def setup(self, n, M, dtype, backend):
        if NystromSystem is None:
            raise NotImplementedError
        self.use_backend(backend)
        X, y = _data(n)
        self.X, self.y = self.to_backend_as(dtype, X, y)
        self.y = self.xp.astype(self.y, self.xp.float64)
        kernel = check_kernels([Gaussian()], self.X)[0]
        S = self.X[check_random_state(0).permutation(n)[:M]]
        system = NystromSystem(  # float32: the kernel values of kernel_dtype="float32"
            kernel,
            self.X,
            S,
            fit_intercept=True,
            cache=False,
            n_targets=1,
            xp=self.xp,
            block_dtype=self.X.dtype,
        )
        self.step = system.preconditioned(system.weighted(self.y, None), 1.0)
        self.v = self.xp.ones((M, 1), dtype=self.xp.float64)
        self.kernel, self.S = kernel, S
        self.coef = self.xp.ones(M, dtype=self.X.dtype)
        self.zero = self.xp.zeros((), dtype=self.X.dtype)

    def time_iteration(self, n, M, dtype, backend):
        self.step.apply(self.v)
        self.sync()

    def time_kernel_pass(self, n, M, dtype, backend):
        decision(
            self.kernel, self.S, self.coef, self.zero, self.X, xp=self.xp, block_dtype=self.X.dtype
        )
        self.sync()


class PCGIterations:
    """Iterations of ``LowRankRidge(solver="pcg", rank=1000)`` to ``pcg_tol=1e-7`` against n and
    α (standardised rows, one Gaussian of the data's width)."""

    params = ([5_000, 20_000, 80_000], [1.0, 0.1, 0.01])
    param_names = ["n", "alpha"]
    timeout = 600

    def setup(self, n, alpha):
        if NystromSystem is None:
            raise NotImplementedError
        self.X, self.y = _data(n)

    def track_iterations(self, n, alpha):
        model = LowRankRidge(rank=1000, alpha=alpha, random_state=0, solver="pcg")
        return model.fit(self.X, self.y).n_iter_

    track_iterations.unit = "iterations"


class PCGMemory:
    """Peak memory of a ``LowRankRidge(solver="pcg")`` fit with the kernel blocks recomputed
    (the budget holds the factors, not the n × M cache), against n and M."""

    params = ([20_000, 80_000], [1_000, 4_000])
    param_names = ["n", "M"]
    timeout = 600

    def setup(self, n, M):
        if NystromSystem is None:
            raise NotImplementedError
        self.X, self.y = _data(n)

    def peakmem_fit(self, n, M):
        budget = factor_bytes(M, 8, n) + n * M * 4  # the factors, and half the float64 cache
        LowRankRidge(rank=M, random_state=0, solver="pcg", memory_budget=budget).fit(self.X, self.y)

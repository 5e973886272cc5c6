"""Blockwise kernel evaluation: time and peak memory of one pass K(X, Z)ᵀv over n × M."""

from __future__ import annotations

import numpy as np

from lrkl._backend import synchronize
from lrkl.kernels import Gaussian

from .common import BACKENDS, namespace, to_backend

N_FEATURES = 10


class KernelBlocks:
    """One blocked pass ``Σ_blocks K(X_b, Z)ᵀ v_b``: the access pattern of every lrkl algorithm."""

    params = ([1_000, 10_000, 100_000], [64, 512], BACKENDS)
    param_names = ["n", "M", "backend"]
    timeout = 120

    def setup(self, n, M, backend):
        self.xp = namespace(backend)
        rng = np.random.default_rng(0)
        self.X = to_backend(self.xp, rng.standard_normal((n, N_FEATURES)))
        self.Z = to_backend(self.xp, rng.standard_normal((M, N_FEATURES)))
        self.v = to_backend(self.xp, rng.standard_normal(n))
        self.kernel = Gaussian(gamma=0.1)

    def _pass(self, max_entries):
        total = self.xp.zeros(self.Z.shape[0], dtype=self.X.dtype)
        for rows, block in self.kernel.blocks(self.X, self.Z, max_entries=max_entries):
            total += self.v[rows] @ block
        synchronize(self.xp)
        return total

    def time_blocks(self, n, M, backend):
        self._pass(2**20)

    def peakmem_blocks(self, n, M, backend):
        self._pass(2**20)

    def time_full_matrix(self, n, M, backend):
        self.v @ self.kernel(self.X, self.Z)
        synchronize(self.xp)

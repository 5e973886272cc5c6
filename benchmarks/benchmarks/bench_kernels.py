"""Blockwise kernel evaluation: time and peak memory of one pass K(X, Z)ᵀv over n × M."""

from __future__ import annotations

from lrkl.kernels import Gaussian

from .common import BACKENDS, OnBackend
from .datasets import gaussian_inputs

N_FEATURES = 10


class KernelBlocks(OnBackend):
    """One blocked pass ``Σ_blocks K(X_b, Z)ᵀ v_b``: the access pattern of every lrkl algorithm."""

    params = ([1_000, 10_000, 100_000], [64, 512], BACKENDS)
    param_names = ["n", "M", "backend"]
    timeout = 120

    def setup(self, n, M, backend):
        self.use_backend(backend)
        self.X, self.Z = self.to_backend(
            gaussian_inputs(n, N_FEATURES, seed=0), gaussian_inputs(M, N_FEATURES, seed=1)
        )
        self.v = self.to_backend(gaussian_inputs(n, 1, seed=2)[:, 0])
        self.kernel = Gaussian(gamma=0.1)

    def _pass(self, max_entries):
        total = self.xp.zeros(self.Z.shape[0], dtype=self.X.dtype)
        for rows, block in self.kernel.blocks(self.X, self.Z, max_entries=max_entries):
            total += self.v[rows] @ block
        self.sync()
        return total

    def time_blocks(self, n, M, backend):
        self._pass(2**20)

    def peakmem_blocks(self, n, M, backend):
        self._pass(2**20)

    def time_full_matrix(self, n, M, backend):
        self.v @ self.kernel(self.X, self.Z)
        self.sync()


class KernelBlocksFloat32(KernelBlocks):
    """The same pass on float32 data: the rows are centred on the block's centres before the
    distance expansion (translation invariance), and float32 stays float32."""

    def setup(self, n, M, backend):
        super().setup(n, M, backend)
        self.X, self.Z, self.v = (
            self.xp.astype(a, self.xp.float32) for a in (self.X, self.Z, self.v)
        )

"""Blockwise kernel evaluation: time and peak memory of one pass K(X, Z)ᵀv over n × M."""

from __future__ import annotations

import numpy as np

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


class GaussianBlock:
    """One 10⁴ × 5·10³ Gaussian block (d = 10), the unit of issue 36's target for a pass (85 ms
    in float64, 50 ms in float32), through lrkl's kernel evaluation (``Gaussian(γ)(X, Z)``: the
    rows centred on the centres' mean, −2γ folded into the GEMM, in row chunks that stay in
    cache) beside the raw NumPy expression ``exp(−γ(‖x‖² − 2xᵀz + ‖z‖²))`` on the same arrays,
    in their own dtype."""

    params = (["float64", "float32"], ["lrkl", "raw_numpy"])
    param_names = ["dtype", "evaluation"]

    def setup(self, dtype, evaluation):
        self.X = gaussian_inputs(10_000, N_FEATURES, seed=0).astype(dtype)
        self.Z = gaussian_inputs(5_000, N_FEATURES, seed=1).astype(dtype)
        self.gamma = 0.05
        self.kernel = Gaussian(gamma=self.gamma)

    def time_block(self, dtype, evaluation):
        if evaluation == "lrkl":
            self.kernel(self.X, self.Z)
            return
        X, Z, gamma = self.X, self.Z, self.X.dtype.type(self.gamma)
        squared = (X * X).sum(axis=1)[:, None] - 2 * (X @ Z.T) + (Z * Z).sum(axis=1)[None, :]
        np.exp(-gamma * squared)

"""Low-rank factors of one kernel: ICD, CSI and Nyström, time and peak memory vs n and rank.

Each is linear in n at fixed rank: ICD ``O(n r²)``, CSI ``O(n r δ (r + δ))``, Nyström
``O(n r² + r³)``; ``track_trace_error`` reports the relative trace error ``tr(K − GGᵀ)/tr K`` of
each factor on the same data, so speed can be read beside accuracy.
"""

from __future__ import annotations

import numpy as np

from lrkl import lowrank
from lrkl._backend import to_numpy
from lrkl.kernels import Gaussian

from .common import BACKENDS, OnBackend
from .datasets import gaussian_inputs, smooth_regression

N_FEATURES = 8
LOOKAHEAD = 10
METHODS = ["icd", "csi", "nystrom"]


def _factor(method, kernel, X, y, rank):
    if method == "icd":
        return lowrank.icd(kernel, X, rank)
    if method == "csi":
        return lowrank.csi(kernel, X, y, rank, lookahead=LOOKAHEAD)
    return lowrank.nystrom(kernel, X, rank, random_state=0)


class LowRankFactor(OnBackend):
    """One factor of a Gaussian kernel on n points of a smooth 8-D regression problem."""

    params = ([1_000, 10_000, 100_000], [10, 50], METHODS, BACKENDS)
    param_names = ["n", "rank", "method", "backend"]
    timeout = 300

    def setup(self, n, rank, method, backend):
        self.use_backend(backend)
        self.X, self.y = self.to_backend(*smooth_regression(n, N_FEATURES))
        self.kernel = Gaussian(gamma=1.0 / N_FEATURES)

    def _run(self, n, rank, method):
        f = _factor(method, self.kernel, self.X, self.y, rank)
        self.sync()
        return f

    def time_factor(self, n, rank, method, backend):
        self._run(n, rank, method)

    def peakmem_factor(self, n, rank, method, backend):
        self._run(n, rank, method)

    def track_trace_error(self, n, rank, method, backend):
        f = self._run(n, rank, method)
        return float(np.sum(to_numpy(f.residual))) / n  # diag K = 1

    track_trace_error.unit = "tr(K − GGᵀ)/tr K"


class OutOfSample(OnBackend):
    """Features of 10⁴ new points from a rank-50 factor: one triangular solve or one GEMM."""

    params = (["icd", "nystrom"], BACKENDS)
    param_names = ["method", "backend"]

    def setup(self, method, backend):
        self.use_backend(backend)
        X, self.Z = self.to_backend(
            gaussian_inputs(10_000, N_FEATURES, seed=1), gaussian_inputs(10_000, N_FEATURES, seed=2)
        )
        self.factor = _factor(method, Gaussian(gamma=1.0 / N_FEATURES), X, None, 50)

    def time_transform(self, method, backend):
        self.factor.transform(self.Z)
        self.sync()


class LowRankFactorFloat32(LowRankFactor):
    """The same factors of float32 data: Nyström computes its landmark block, eigenpairs and
    the n-row kernel block times the projection in float64 and rounds the features to float32;
    ICD its pivots and residual diagonal in float64, the rest in float32."""

    def setup(self, n, rank, method, backend):
        super().setup(n, rank, method, backend)
        self.X, self.y = (self.xp.astype(a, self.xp.float32) for a in (self.X, self.y))

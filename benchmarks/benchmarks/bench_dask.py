"""Fits on a row-chunked Dask array against the same fit in memory, on Dask's threaded
scheduler (no cluster: the cluster figures are ``benchmarks/scripts/dask_slkl.py``'s).

``time_fit``/``peakmem_fit`` follow the Dask path of each estimator; ``track_dask_over_numpy``
is the Dask fit's time over the in-memory fit's on the same data, which tracks what lrkl's
graphs add: one graph for SLKL's Gram pass and for the Nyström ridge statistics, one per pivot
for ICD, one per new kernel column for CSI, one per iteration for CG.
"""

from __future__ import annotations

import time

from lrkl import KernelRidge, LowRankRidge, SLKLRegressor
from lrkl.kernels import Gaussian

from .datasets import smooth_regression

N_FEATURES = 8
CHUNKS = 10  # row chunks per data set


def _model(name):
    kernel = Gaussian(gamma=1.0 / N_FEATURES)
    if name == "slkl":
        return SLKLRegressor(n_columns=256, kernel=kernel, random_state=0)
    if name == "cg":
        return KernelRidge(kernel, method="cg", max_iter=5, columns="on_the_fly")
    return LowRankRidge([kernel], rank=50, method=name, random_state=0)


#: Rows per fit: CG costs O(n²) per iteration, the others O(n).
ROWS = {"slkl": 200_000, "icd": 200_000, "csi": 50_000, "nystrom": 200_000, "cg": 5_000}


class DaskFit:
    """A fit of each Dask-capable estimator on ``ROWS[name]`` rows in 10 chunks."""

    params = [list(ROWS)]
    param_names = ["estimator"]
    timeout = 300

    def setup(self, name):
        try:
            import dask
            import dask.array as da
        except ImportError as exc:  # asv: skip
            raise NotImplementedError("dask is not installed: pip install 'lrkl[dask]'") from exc
        dask.config.set(scheduler="threads")
        n = ROWS[name]
        self.X, self.y = smooth_regression(n, N_FEATURES)
        rows = n // CHUNKS
        self.Xd = da.from_array(self.X, chunks=(rows, N_FEATURES))
        self.yd = da.from_array(self.y, chunks=rows)

    def time_fit(self, name):
        _model(name).fit(self.Xd, self.yd)

    def peakmem_fit(self, name):
        _model(name).fit(self.Xd, self.yd)

    def track_dask_over_numpy(self, name):
        start = time.perf_counter()
        _model(name).fit(self.X, self.y)
        in_memory = time.perf_counter() - start
        start = time.perf_counter()
        _model(name).fit(self.Xd, self.yd)
        return (time.perf_counter() - start) / in_memory

    track_dask_over_numpy.unit = "Dask fit time / NumPy fit time"

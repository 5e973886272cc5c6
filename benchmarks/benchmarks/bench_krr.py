"""Prato & Zanni's regularised KRR: fit and path time per method against n, the path against
one α, time per CG iteration with a stored K and on the fly, and CG's peak memory on the fly.

Also: the estimators' fits on float64 and on float32 data (``*Float32``), whose sensitive parts
(Gram, pivots, distances) accumulate in float64, so that the cost of that policy is measured:
``LowRankRidge``/``LowRankRidgeCV`` on Nyström and ICD factors, ``KernelRidge(method="cg")``;
and the CV estimators that compute in float64 whatever the input (``CVFit``).

The whole suite takes about two minutes on 2 cores. The target ratios themselves (against
scikit-learn and the full SVD at n = 8192) and CG's memory at n = 10⁵ (one iteration there
takes minutes on 2 cores) are measured by ``benchmarks/scripts/krr_targets.py``.
"""

from __future__ import annotations

from lrkl import KernelRidge, KernelRidgeCV, LowRankRidge, LowRankRidgeCV, SLKLRegressorCV

try:  # the method registry's module (issue 34)
    from lrkl.kernel_ridge._exact import PAPER_LAMBDAS
    from lrkl.kernel_ridge._methods import regularization_path
except ImportError:  # the commits before it, for asv's before/after comparisons
    from lrkl.kernel_ridge._kernel_ridge import PAPER_LAMBDAS, regularization_path
from lrkl.kernel_ridge._regularization import kernel_operator, solve_cgls
from lrkl.kernels import Gaussian

from .common import OnBackend
from .datasets import smooth_regression

KERNEL = Gaussian(gamma=0.125)


class Fit(OnBackend):
    """One fit, or a whole path, on n rows (Gaussian kernel, 8 features).

    rls-cholesky: one α by a Cholesky factorisation (``KernelRidge()``); rls-one / rls-path:
    one α / the paper's 100 α with exact leave-one-out, both from one eigendecomposition;
    tikhonov-path: the 100 α with LOO from the SVD of [K 1]; cg-50: CGLS's 50 iterates.
    """

    params = (
        [1_000, 4_000],
        ["rls-cholesky", "rls-one", "rls-path", "tikhonov-path", "cg-50"],
        ["numpy", "cupy"],
    )
    param_names = ["n", "method", "backend"]
    number = 1
    repeat = 1
    rounds = 1
    timeout = 300

    def setup(self, n, method, backend):
        self.use_backend(backend)
        self.X, self.y = self.to_backend(*smooth_regression(n))
        grid = tuple(n * lam for lam in PAPER_LAMBDAS)
        self.grid = {"rls-one": grid[50:51], "cg-50": tuple(range(1, 51))}.get(method, grid)

    def time_fit(self, n, method, backend):
        if method == "rls-cholesky":
            KernelRidge(KERNEL, alpha=self.grid[50]).fit(self.X, self.y)
        else:
            kind = method.split("-")[0]
            regularization_path(
                self.X,
                self.y,
                KERNEL,
                self.grid,
                method=kind,
                bias="unpenalized",
                loo=kind != "cg",
                xp=self.xp,
            )
        self.sync()


class CGIteration(OnBackend):
    """One CGLS iteration (two products with K) at n = 10⁴: K precomputed (0.8 GB) or on the fly in
    32 MiB blocks."""

    params = (["precomputed", "on_the_fly"], ["numpy", "cupy"])
    param_names = ["products", "backend"]
    number = 1
    repeat = 2
    timeout = 300

    def setup(self, products, backend):
        self.use_backend(backend)
        X, self.y = self.to_backend(*smooth_regression(10_000))
        self.operator = kernel_operator(X, KERNEL, store=products == "precomputed", xp=self.xp)

    def time_iteration(self, products, backend):
        solve_cgls(self.operator, self.y, 1)
        self.sync()


class CGMemory:
    """Peak memory of CGLS on the fly at n = 2·10⁴ (K would take 3.2 GB): one iteration, since
    the memory grows with neither t nor, beyond O(n), with n."""

    timeout = 600

    def setup(self):
        import array_api_compat.numpy as xp

        X, y = smooth_regression(20_000)
        self.operator = kernel_operator(X, KERNEL, store=False, xp=xp)
        self.y = y

    def peakmem_cg_on_the_fly(self):
        solve_cgls(self.operator, self.y, 1)


class LowRankRidgeFit(OnBackend):
    """A ``LowRankRidge`` or ``LowRankRidgeCV`` (30 α, exact leave-one-out) fit on n rows: one
    Gaussian kernel, a rank-100 Nyström or pivoted-ICD factor."""

    params = ([20_000], ["nystrom", "icd"], ["LowRankRidge", "LowRankRidgeCV"], ["numpy", "cupy"])
    param_names = ["n", "method", "estimator", "backend"]
    number = 1
    repeat = 3
    timeout = 300

    def setup(self, n, method, estimator, backend):
        self.use_backend(backend)
        self.X, self.y = self.to_backend(*smooth_regression(n))
        cls = LowRankRidge if estimator == "LowRankRidge" else LowRankRidgeCV
        self.model = cls([KERNEL], rank=100, method=method, random_state=0)

    def time_fit(self, n, method, estimator, backend):
        self.model.fit(self.X, self.y)
        self.sync()


class LowRankRidgeFitFloat32(LowRankRidgeFit):
    """The same fits of float32 data. ``LowRankRidge``: Nyström's factor computed in float64
    and rounded to float32 features, ICD's pivots and residual diagonal in float64, the solve in
    float32.
    ``LowRankRidgeCV`` computes in float64 and keeps a float32 model (docs/backend.rst), so its
    rows measure the cost of that policy against ``LowRankRidgeFit``."""

    def setup(self, n, method, estimator, backend):
        super().setup(n, method, estimator, backend)
        self.X, self.y = (self.xp.astype(a, self.xp.float32) for a in (self.X, self.y))


class CGFit(OnBackend):
    """A ``KernelRidge(method="cg")`` fit (50 CGLS iterations, kernel blocks on the fly or
    stored as the estimator chooses) on n rows."""

    params = ([2_000], ["numpy", "cupy"])
    param_names = ["n", "backend"]
    number = 1
    repeat = 3
    timeout = 300

    def setup(self, n, backend):
        self.use_backend(backend)
        self.X, self.y = self.to_backend(*smooth_regression(n))
        self.model = KernelRidge(KERNEL, alpha=1.0, method="cg", max_iter=50)

    def time_fit(self, n, backend):
        self.model.fit(self.X, self.y)
        self.sync()


class CGFitFloat32(CGFit):
    """The same fit of float32 data: the kernel blocks' distances in float32 on rows centred on
    the block's centres, the iterates float32."""

    def setup(self, n, backend):
        super().setup(n, backend)
        self.X, self.y = (self.xp.astype(a, self.xp.float32) for a in (self.X, self.y))


class CVFit(OnBackend):
    """The estimators that choose their penalty on a grid, on float64 and float32 data: both
    compute in float64 and keep a float32 model for float32 data, so the float32 rows measure
    the cost of that policy (the conversion, and float64 factorisations where float32 ones
    would be faster). ``KernelRidgeCV()``: the paper's 100 α with exact leave-one-out from one
    eigendecomposition; ``SLKLRegressorCV``: 17 ν, 5 folds, M = 256 columns."""

    params = (
        [2_000],
        ["KernelRidgeCV", "SLKLRegressorCV"],
        ["float64", "float32"],
        ["numpy", "cupy"],
    )
    param_names = ["n", "estimator", "dtype", "backend"]
    number = 1
    repeat = 3
    timeout = 300

    def setup(self, n, estimator, dtype, backend):
        self.use_backend(backend)
        self.X, self.y = self.to_backend_as(dtype, *smooth_regression(n))
        if estimator == "KernelRidgeCV":
            self.model = KernelRidgeCV(KERNEL)
        else:
            self.model = SLKLRegressorCV(kernel=KERNEL, n_columns=256, random_state=0)

    def time_fit(self, n, estimator, dtype, backend):
        self.model.fit(self.X, self.y)
        self.sync()


class WidthSearch(OnBackend):
    """``LowRankRidgeCV(["rbf"], method="nystrom", rank=1000)`` on n rows, its width search
    (five widths γ₀·2^k, k = −2…2, ``gamma_factors``'s default) against one width
    (``gamma_factors=None``), and ``LowRankRidgeClassifierCV``'s search on two classes: what the
    search costs against one fit (on these 4 000 rows the widths are compared on a subsample of
    1 000, then the path is computed once, at the chosen width, on all of them)."""

    params = ([4_000], ["one width", "five widths", "classifier, five widths"], ["numpy", "cupy"])
    param_names = ["n", "search", "backend"]
    number = 1
    repeat = 3
    timeout = 300

    def setup(self, n, search, backend):
        try:
            from lrkl import LowRankRidgeClassifierCV
        except ImportError:  # before the classifiers and the search (issue 35): skipped
            raise NotImplementedError from None

        self.use_backend(backend)
        X, y = smooth_regression(n)
        if search.startswith("classifier"):
            y = (y > 0).astype(y.dtype)
        self.X, self.y = self.to_backend(X, y)
        factors = None if search == "one width" else (0.25, 0.5, 1.0, 2.0, 4.0)
        cls = LowRankRidgeClassifierCV if search.startswith("classifier") else LowRankRidgeCV
        self.model = cls(
            ["rbf"], rank=1000, method="nystrom", gamma_factors=factors, random_state=0
        )

    def time_fit(self, n, search, backend):
        self.model.fit(self.X, self.y)
        self.sync()

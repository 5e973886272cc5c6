"""ℓp-MKL with low-rank kernels: time per GFB iteration against n, m and R (it should be linear
in n and m), split against naive GFB, peak memory of a fit, and iterations to tolerance.

The features are random Gaussian matrices (the solver's cost does not depend on where they come
from). The target ratios against the interior-point solver, liblinear and the full-kernel MKL
are measured by ``benchmarks/scripts/lpmkl_targets.py``.
"""

from __future__ import annotations

import numpy as np

from lrkl import LowRankMKLClassifier
from lrkl.lpmkl import svm_problem

# The core that the estimators call: the iterations, without the public wrapper's checks of the
# problem (4 ms at n = 8000, m = 5, R = 200, issue 33). Before/after comparisons import it by its
# names at older commits: ``_gfb_svm`` (before issue 34), ``gfb_svm`` (before issue 33, unchecked).
try:
    from lrkl.lpmkl._gfb import _solve_gfb_svm as solve_gfb_svm
except ImportError:
    try:
        from lrkl.lpmkl._gfb import _gfb_svm as solve_gfb_svm
    except ImportError:
        from lrkl.lpmkl import gfb_svm as solve_gfb_svm

from .common import OnBackend
from .datasets import gaussian_inputs

#: GFB iterations per timed call (the stopping rule is switched off by tol=0).
ITERATIONS = 20


def _svm_data(n, m, R, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return [rng.normal(size=(n, R)) / np.sqrt(R) for _ in range(m)], y


class GFBIteration(OnBackend):
    """Time of ``ITERATIONS`` GFB iterations on problem (6) with d_k = 1/m, C = 1000."""

    params = (
        [2_000, 8_000],
        [5, 20],
        [50, 200],
        ["split", "naive"],
        ["numpy", "torch", "cupy"],
    )
    param_names = ["n", "m", "R", "variant", "backend"]
    number = 1
    repeat = 3
    timeout = 300

    def setup(self, n, m, R, variant, backend):
        if variant == "naive" and m * R > 1000:
            raise NotImplementedError("naive GFB factorises (R·m + 1)²: kept to R·m ≤ 1000")
        self.use_backend(backend)
        features, y = _svm_data(n, m, R)
        features = [self.to_backend(V) for V in features]
        self.problem = svm_problem(features, self.to_backend(y), 1000.0, xp=self.xp)
        self.d = self.to_backend(np.full(m, 1.0 / m))

    def time_iterations(self, n, m, R, variant, backend):
        solve_gfb_svm(
            self.problem, self.d, variant=variant, tol=0.0, max_iter=ITERATIONS, xp=self.xp
        )
        self.sync()


class Fit(OnBackend):
    """A whole ``LowRankMKLClassifier`` fit (7 kernels, Nyström R = 50, p = 2, C = 1).

    Ten samples in two processes: a fit takes a tenth of a second, and one sample per run (as
    when GFB's fits took seconds) varied twofold from run to run of one commit (0.047–0.096 s
    at n = 1000, 2026-11-29), more than any change it was meant to show."""

    params = ([1_000, 2_000], ["numpy", "torch", "cupy"])
    param_names = ["n", "backend"]
    number = 1
    repeat = 5
    rounds = 2
    timeout = 300

    def setup(self, n, backend):
        self.use_backend(backend)
        X = gaussian_inputs(n, 5)
        y = (np.sum(X[:, :2] ** 2, axis=1) > 2.0).astype(np.float64)
        self.X, self.y = self.to_backend(X, y)

    def time_fit(self, n, backend):
        LowRankMKLClassifier(rank=50, random_state=0).fit(self.X, self.y)
        self.sync()

    def peakmem_fit(self, n, backend):
        LowRankMKLClassifier(rank=50, random_state=0).fit(self.X, self.y)


class FitFloat32(Fit):
    """The same fit of float32 data: the Nyström factors computed in float64 and rounded to
    float32 features, the GFB iterations in float32."""

    def setup(self, n, backend):
        super().setup(n, backend)
        self.X, self.y = (self.xp.astype(a, self.xp.float32) for a in (self.X, self.y))


class FitCV:
    """``LowRankMKLClassifierCV`` at its defaults (five C, three folds) on :class:`Fit`'s data:
    what choosing C costs, against one fit at C = 1 (``Fit.time_fit``), and how many of the C
    its path visits."""

    params = [2_000]
    param_names = ["n"]
    number = 1
    repeat = 3
    timeout = 300

    def setup(self, n):
        X = gaussian_inputs(n, 5)
        self.X, self.y = X, (np.sum(X[:, :2] ** 2, axis=1) > 2.0).astype(np.float64)

    def _fit(self):
        from lrkl import LowRankMKLClassifierCV

        return LowRankMKLClassifierCV(rank=50, random_state=0).fit(self.X, self.y)

    def time_fit(self, n):
        self._fit()

    def track_cs_visited(self, n):
        return int(np.sum(~np.isnan(self._fit().cv_accuracy_[:, 0])))

    track_cs_visited.unit = "values of C"


class Iterations:
    """SVM iterations (Newton steps since Newton's method became the default; GFB iterations
    before) and weight updates of the fit of :class:`Fit` (NumPy; one fit each n)."""

    params = [1_000, 2_000]
    param_names = ["n"]
    timeout = 300

    def setup(self, n):
        X = gaussian_inputs(n, 5)
        y = (np.sum(X[:, :2] ** 2, axis=1) > 2.0).astype(np.float64)
        self.fitted = LowRankMKLClassifier(rank=50, random_state=0).fit(X, y)

    def track_svm_iterations(self, n):
        return self.fitted.n_svm_iter_

    track_svm_iterations.unit = "SVM iterations"

    def track_weight_updates(self, n):
        return self.fitted.n_iter_

    track_weight_updates.unit = "weight updates"


class IterationsToGap:
    """GFB iterations from zero to a 1 % relative duality gap (``stop="gap"``, at most 5000) in
    the paper's unit of α and in ``alpha_scale="auto"``'s, on the Nyström features of
    :class:`Fit`'s data (7 kernels, R = 50, n = 1000, d_k = 7^{-1/2}), at C = 1 and 10."""

    params = (["1", "auto"], [1.0, 10.0])
    param_names = ["alpha_scale", "C"]
    timeout = 300

    def setup(self, alpha_scale, C):
        from lrkl.lowrank import LowRankFeatures

        X = gaussian_inputs(1_000, 5)
        y = np.where(np.sum(X[:, :2] ** 2, axis=1) > 2.0, 1.0, -1.0)
        features = LowRankFeatures(rank=50, random_state=0).fit(X)
        self.problem = svm_problem([f.G for f in features.factors_], y, C, xp=np)
        self.d = np.full(len(features.factors_), len(features.factors_) ** -0.5)

    def track_iterations(self, alpha_scale, C):
        scale = 1.0 if alpha_scale == "1" else "auto"
        solution = solve_gfb_svm(
            self.problem, self.d, stop="gap", tol=1e-2, max_iter=5000, alpha_scale=scale, xp=np
        )
        return solution.n_iter

    track_iterations.unit = "GFB iterations"


def _newton_problem(n, R, C):
    """The squared-hinge problem on the Nyström features (rank R each, shared landmarks: the
    solver's cost does not depend on the scheme) of ten Gaussians ``γ = 2^k/d`` (k = −4 … 5)
    of a nonlinear binary task in d = 10."""
    from lrkl.kernels import Gaussian
    from lrkl.lowrank import LowRankFeatures

    X = gaussian_inputs(n, 10)
    y = np.where(np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] > 0, 1.0, -1.0)
    kernels = [Gaussian(gamma=2.0**k / 10) for k in range(-4, 6)]
    features = LowRankFeatures(kernels, rank=R, method="nystrom", random_state=0).fit(X)
    factors = [f.G for f in features.factors_]
    return svm_problem(factors, y, C, loss="squared_hinge", xp=np)


class NewtonStep:
    """One Newton step of the squared-hinge SVM, warm-started from the optimum of other kernel
    weights with the features' Gram already formed (what a step costs within a fit: one Gram
    of the smaller side of the margin set, the ``Σ R_k``-sized Cholesky, the fused products
    and the exact line search), against n, ``Σ R_k`` (ten kernels of rank R) and C."""

    params = ([2_000, 8_000], [50, 200], [10.0, 1000.0])
    param_names = ["n", "R", "C"]
    number = 1
    repeat = 3
    timeout = 300

    def setup(self, n, R, C):
        try:
            from lrkl.lpmkl import solve_newton_svm
        except ImportError:  # before the Newton solver
            raise NotImplementedError("no solve_newton_svm") from None
        self.problem = _newton_problem(n, R, C)
        weights = np.linspace(0.5, 1.5, 10)
        start = solve_newton_svm(self.problem, weights / np.linalg.norm(weights), xp=np)
        self.state = start.state
        self.d = np.full(10, 10**-0.5)
        self.solve = solve_newton_svm

    def time_step(self, n, R, C):
        self.solve(self.problem, self.d, max_iter=1, state=self.state, xp=np)


class OuterRounds:
    """Five rounds of the ℓp-MKL loop (p = 2; each a Newton solve warm-started from the last and
    the closed-form weight update, from uniform weights, the tolerance out of reach): time per
    outer round is a fifth of it. Against n, ``Σ R_k`` (ten kernels of rank R) and C."""

    params = ([2_000, 8_000], [50, 200], [10.0, 1000.0])
    param_names = ["n", "R", "C"]
    number = 1
    repeat = 3
    timeout = 300
    rounds = 5

    def setup(self, n, R, C):
        self.problem = _newton_problem(n, R, C)

    def _run(self):
        import warnings

        from lrkl.lpmkl import solve_lp_mkl

        with warnings.catch_warnings():  # the cap of the rounds is the point here
            warnings.simplefilter("ignore")
            return solve_lp_mkl(self.problem, 2.0, max_outer_iter=self.rounds, mkl_tol=1e-12, xp=np)

    def time_rounds(self, n, R, C):
        self._run()

    def track_rounds(self, n, R, C):
        return self._run().n_iter

    track_rounds.unit = "weight updates"


class NewtonSolve:
    """A cold solve of the squared-hinge SVM by Newton's method to its exact optimum (tol=0) on
    the Nyström features (R = 100) of ten Gaussians ``γ = 2^k/d`` (k = −4 … 5), d_k = 10^{-1/2}:
    time, peak memory and steps against n and C (the steps should not grow with C)."""

    params = ([2_000, 8_000], [10.0, 1000.0])
    param_names = ["n", "C"]
    number = 1
    repeat = 3
    timeout = 300

    def setup(self, n, C):
        try:
            from lrkl.lpmkl import solve_newton_svm
        except ImportError:  # before the Newton solver
            raise NotImplementedError("no solve_newton_svm") from None
        self.problem = _newton_problem(n, 100, C)
        self.d = np.full(10, 10**-0.5)
        self.solve = solve_newton_svm

    def time_solve(self, n, C):
        self.solve(self.problem, self.d, tol=0.0, xp=np)

    def peakmem_solve(self, n, C):
        self.solve(self.problem, self.d, tol=0.0, xp=np)

    def track_steps(self, n, C):
        return self.solve(self.problem, self.d, tol=0.0, xp=np).n_iter

    track_steps.unit = "Newton steps"

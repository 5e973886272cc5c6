"""SLKL: cost of one iteration per form, peak memory of a fit, iterations and seconds to an
objective gap per selection rule and step, and test MSE on sinc.

The per-iteration grid (n up to 10⁵, m0 up to 256) is the one the SLKL targets name; its largest
setups take a few
seconds each (one pass over the rows plus a warm start). ``asv run --quick`` runs each case once.
"""

from __future__ import annotations

import time

import numpy as np

from lrkl import SLKLRegressor
from lrkl._backend import to_numpy
from lrkl.datasets import make_sinc
from lrkl.kernels import Gaussian
from lrkl.slkl._solver import _iterate, solve_slkl

try:  # the modules of the SLKL split (issue 34)
    from lrkl.slkl._coordinate import _CoordinateState
    from lrkl.slkl._problems import slkl_problem
except ImportError:  # a commit before it: asv compares commits on both sides of the split
    from lrkl.slkl._solver import _ActiveSet as _CoordinateState
    from lrkl.slkl._solver import slkl_problem

from .common import OnBackend, namespace
from .datasets import candidate_draw, sinc_2d, slkl_panel

KERNEL = Gaussian(sigma2=1.0)


def _to_gap(X, y, S, kernel, f_star, gap, max_iter, options):
    """(iterations, seconds) from the data (Gram form, ν = 0.01) until F ≤ F*(1 + gap), with
    the solver ``options``; NaNs if ``max_iter`` iterations do not get there."""
    import array_api_compat.numpy as xp

    start = time.perf_counter()
    problem = slkl_problem(X, y, S, kernel=kernel, mode="gram", xp=xp)
    reached = []

    def monitor(state):
        if state.objective <= f_star * (1.0 + gap):
            reached.append((state.iteration, time.perf_counter() - start))
            return True
        return False

    solve_slkl(problem, nu=0.01, tol=0.0, max_iter=max_iter, callback=monitor, **options)
    return reached[0] if reached else (float("nan"), float("nan"))


class _TimeToGap:
    """Iterations and seconds to an objective gap, both from the subclass's ``_run(cache,
    first, second, gap)``: the setup_cache value, two parameters and the gap."""

    def track_iterations(self, cache, first, second, gap):
        return self._run(cache, first, second, gap)[0]

    track_iterations.unit = "iterations"

    def track_seconds(self, cache, first, second, gap):
        return self._run(cache, first, second, gap)[1]

    track_seconds.unit = "s"


class Iteration(OnBackend):
    """One coordinate iteration with m0 active columns (all M = m0 candidates active).

    direct: one GEMV over the n × m0 active columns (grows like n·m0); gram: O(m0²) on the host,
    independent of n.
    """

    # torch is left out of the default grid: on 2 cores its threads oversubscribe the machine and
    # the grid then takes minutes; cupy runs where a GPU is present (skipped otherwise).
    params = ([1_000, 10_000, 100_000], [16, 64, 256], ["direct", "gram"], ["numpy", "cupy"])
    param_names = ["n", "m0", "form", "backend"]
    timeout = 300

    def setup(self, n, m0, form, backend):
        self.use_backend(backend)
        X, y = self.to_backend(*sinc_2d(n))
        problem = slkl_problem(
            X,
            y,
            list(range(m0)),
            kernel=KERNEL,
            mode=form,
            columns="on_the_fly",
            xp=self.xp,
        )
        self.state = _CoordinateState(problem, greedy=False, capacity=m0)
        self.state.warm_start(np.full(m0, 1.0))
        self.problem = problem
        self.k = 0

    def time_iteration(self, n, m0, form, backend):
        # ν tiny: every coordinate stays active (case 2), so m0 does not change while timing.
        _iterate(self.problem, self.state, self.k % m0, 1e-12, "newton")
        self.k += 1
        self.sync()


class FitMemory:
    """Peak memory of a whole fit: O(nM) stored columns, O(n·m0) on the fly, O(M²) Gram."""

    params = (["direct-precomputed", "direct-on_the_fly", "gram"],)
    param_names = ["form"]
    timeout = 300

    def setup(self, form):
        self.X, self.y = sinc_2d(20_000)

    def peakmem_fit(self, form):
        mode, _, columns = form.partition("-")
        problem = slkl_problem(
            self.X,
            self.y,
            list(range(0, 20_000, 20)),
            kernel=KERNEL,
            mode=mode,
            columns=columns or "auto",
            xp=namespace("numpy"),
        )
        solve_slkl(problem, nu=0.01, selection="cyclic", max_iter=2000)


class Convergence(_TimeToGap):
    """Iterations and seconds (Gram form) to a relative objective gap F/F* − 1 ≤ gap.

    n = 1000, M = 250; a rule that has not reached the gap after 100·M iterations reports NaN
    (random selection at 10⁻⁶, and the paper's printed step, which stalls above it).
    """

    params = (["random", "cyclic", "greedy"], ["newton", "exact", "paper"], [1e-4, 1e-6])
    param_names = ["selection", "step", "gap"]
    timeout = 300

    def setup_cache(self):
        X, y = sinc_2d(1000)
        import array_api_compat.numpy as xp

        problem = slkl_problem(X, y, list(range(0, 1000, 4)), kernel=KERNEL, mode="gram", xp=xp)
        best = solve_slkl(problem, nu=0.01, selection="greedy", step="exact", tol=0.0)
        return best.objective

    def _run(self, f_star, selection, step, gap):
        X, y = sinc_2d(1000)
        options = {"selection": selection, "step": step, "check_every": 10}
        return _to_gap(X, y, list(range(0, 1000, 4)), KERNEL, f_star, gap, 100 * 250, options)


class SincAccuracy:
    """Test MSE on the paper's sinc problem (noiseless test targets), ν = 0.01."""

    params = ([256, 1000],)
    param_names = ["M"]
    timeout = 120

    def setup(self, M):
        self.data = make_sinc(random_state=0)

    def track_test_mse(self, M):
        X_train, y_train, X_test, y_test = self.data
        model = SLKLRegressor(KERNEL, M, 0.01, random_state=0, fit_intercept=False)
        model.fit(X_train, y_train)
        return float(np.mean((to_numpy(model.predict(X_test)) - y_test) ** 2))

    track_test_mse.unit = "MSE"


class Panel(_TimeToGap):
    """Seconds (the pass over the rows included) and iterations to a relative objective gap on
    the SLKL panel (``datasets.slkl_panel``, first draw of S, ν = 0.01): the default solver
    (active set, Gram form) against greedy exact coordinate descent, the previous default.
    ``benchmarks/scripts/slkl_panel.py`` adds the paper's algorithm (minutes per problem) and
    more draws."""

    params = (
        ["sinc", "boston", "abalone", "synthetic 5-D", "synthetic 20-D"],
        ["active_set", "coordinate"],
        [1e-4, 1e-6],
    )
    param_names = ["problem", "solver", "gap"]
    timeout = 300

    def setup_cache(self):
        import array_api_compat.numpy as xp

        cache = {}
        for name, (X, y, sigma2, M) in slkl_panel().items():
            S = candidate_draw(len(X), M, 0)
            problem = slkl_problem(X, y, S, kernel=Gaussian(sigma2=sigma2), mode="gram", xp=xp)
            best = solve_slkl(
                problem, nu=0.01, solver="active_set", stop="kkt", tol=1e-9, max_iter=20 * M
            )
            cache[name] = (X, y, sigma2, S, best.objective)
        return cache

    def _run(self, cache, problem, solver, gap):
        X, y, sigma2, S, f_star = cache[problem]
        options = {"solver": solver}
        if solver == "coordinate":
            options.update(selection="greedy", step="exact", check_every=10)
        return _to_gap(X, y, S, Gaussian(sigma2=sigma2), f_star, gap, 100 * len(S), options)

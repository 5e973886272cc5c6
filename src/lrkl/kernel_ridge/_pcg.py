"""Nyström kernel ridge by preconditioned conjugate gradients, without the n × M features
(Falkon: Rudi, Carratino & Rosasco 2017, with lrkl's α, weights and unpenalised intercept).

The problem is the one the in-memory Nyström solve fits (:mod:`lrkl.lowrank._nystrom`): on the
M centres ``S`` (uniform landmarks, ``K_nM = k(X, S)``, ``K_MM = k(S, S)``),

    min over β, b of  Σ_i w_i (K_nM β + b − y)_i² + α βᵀ K̃_MM β,   K̃_MM = K_MM + δ I,

with ``δ = M · ε · ‖K_MM‖_∞`` (ε of float64; :func:`lrkl.lowrank._nystrom.landmark_jitter`),
the regularisation the in-memory Nyström features use too, so that the two solvers solve one
problem (docs: "Large data"). With ``S_w = Σ w`` and ``λ = α / S_w``
(lrkl's α weighs the penalty against the *sum* of squared errors, Falkon's λ against the mean),
eliminating ``b`` by the weighted means ``μ`` of K_nM's columns and ``ȳ``:

    H β = r,   H = K_cᵀ W K_c / S_w + λ K̃_MM,   r = K_cᵀ W (y − ȳ) / S_w,   K_c = K_nM − 1 μᵀ.

Falkon's preconditioner comes from the M × M block alone: ``K̃_MM = Tᵀ T`` (T upper),
``A = chol(T Tᵀ / M − t̄ t̄ᵀ + λ I)`` (``t̄`` the row means of T: the centring's rank-one
downdate, since ``K_cᵀ K_c / n ≈ K_MM (I/M − 11ᵀ/M²) K_MM`` for uniform centres; estimated
from more rows where M is small, :func:`preconditioner_rows`), and
``B = T⁻¹ A⁻¹`` makes ``Bᵀ H B`` well conditioned: CG on ``Bᵀ H B γ = Bᵀ r``, ``β = B γ``,
took 7–30 iterations on the docs' regression sets at α = 1 and 0.1 (more where ``λ = α / Σw``
is small against what M centres can resolve). Each iteration is one pass over the rows
(``K_cᵀ W K_c u``, every target at once: the kernel block of each row block, recomputed, or
read from a cache of K_nM when it fits the memory budget) and four M × M triangular solves.
A new α costs one Cholesky factorisation of ``T Tᵀ / M − t̄ t̄ᵀ + λ I`` (``T Tᵀ`` is kept);
new weights (a validation fold's) one pass for ``μ``, ``ȳ`` and ``r``.

Memory (Falkon's layout): ``T`` and ``A`` share one M × M float64 array, ``T`` in its upper
triangle with its diagonal, ``Aᵀ`` in its strict lower triangle in unit form (``A``'s rows
divided by its diagonal, kept aside); ``T Tᵀ/M − t̄ t̄ᵀ`` is a second M × M array in X's dtype.
It only sets the preconditioner (``B`` is a change of variables: the solution does not depend
on it), so float32 rows keep it in float32, ``12 M²`` bytes in all against ``16 M²``; where its
rounding makes ``… + λ I`` indefinite, ``A``'s shift is raised (:meth:`NystromSystem._factor_A`,
at most two more factorisations). The estimate from more rows (``QᵀQ/s − q̄ q̄ᵀ``) stays
float64. :func:`factor_bytes` counts these and the factorisations' blocks.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

from lrkl._backend import device_of, widest_float
from lrkl._executor import executor_for, row_slices
from lrkl._linalg import (
    _BLOCK_SIZE,
    CHOLESKY_INTO_BLOCKS,
    NotPositiveDefiniteError,
    cholesky_into,
    solve_triangular,
    triangular_product,
    upper_gram,
)
from lrkl._threads import plan_chunks, run_chunks
from lrkl._typing import Array
from lrkl.kernels import Kernel
from lrkl.lowrank._nystrom import landmark_jitter

#: Default relative residual of the preconditioned system at which CG stops.
PCG_TOL = 1e-7
#: Default cap on the CG iterations (each one pass over the rows).
PCG_MAX_ITER = 100
#: Rows per chunk of a pass on NumPy: their kernel values (n × M in all, recomputed or widened
#: from the cache) are computed, centred and used by both products while they are in cache.
PASS_CHUNK = 256
#: Kernel values per chunk of a pass over the cache of K_nM: each chunk is widened to float64
#: (8 MB, so that both threads' chunks stay in a 32 MB L3) and read by both products. Chunks of
#: 256 rows (41 MB at M = 20 000) left the cache for memory: a pass over MNIST's 60 000 × 20 000
#: cache took 2.0 s with them and 1.3 s with these (0.85 against 0.56 s at M = 10 000).
CACHED_PASS_ENTRIES = 2**20


def factor_bytes(M: int, gram_itemsize: int = 8, n: int | None = None) -> int:
    """Bytes of the M × M arrays the pcg solve holds on ``n`` rows: ``T`` and ``A`` in one
    float64 array; ``T Tᵀ/M − t̄ t̄ᵀ`` in ``gram_itemsize`` bytes per value (X's dtype), or
    float64 where it is estimated from more rows than the centres (:func:`preconditioner_rows`);
    and the blocked factorisations' workspace (:data:`lrkl._linalg.CHOLESKY_INTO_BLOCKS` float64
    blocks of at most ``_BLOCK_SIZE²``)."""
    if n is not None and preconditioner_rows(n, M) > M:
        gram_itemsize = 8
    block = min(M, _BLOCK_SIZE)
    return (8 + gram_itemsize) * M * M + CHOLESKY_INTO_BLOCKS * block * block * 8


class WeightedTargets(NamedTuple):
    """What one set of weights and targets adds to the system: one pass over the rows."""

    Y: Array  # shape: (n, t)
    weights: Array | None  # shape: (n,); None: unit
    total_weight: float
    mean: Array  # shape: (M,), the weighted means of K_nM's columns (zeros without intercept)
    y_mean: Array  # shape: (t,)
    rhs: Array  # shape: (M, t), K_cᵀ W (y − ȳ) / Σw


class PCGSolution(NamedTuple):
    """``β`` (M, t), the intercept (t,), the iterations run and whether CG converged."""

    coef: Array
    intercept: Array
    n_iter: int
    converged: bool


def preconditioner_rows(n: int, M: int) -> int:
    """The rows ``s`` the preconditioner's estimate of ``K_cᵀ K_c / n`` is computed from:
    ``min(n, 4M, 300 n / M)``, at least the ``M`` centres (Falkon's choice, ``K_MM² / M``).

    Its extra work, ``2 s M²`` flops of triangular solves and products at the BLAS's speed, is
    then at most that of about 20 passes over the n × M kernel values (which run at the
    memory's speed, some 30 times slower per entry), and it saves more where it applies: on the
    8 192-row regression sets at M = 1000, α = 0.1 (s = 2 457) CG took 21–30 iterations where
    Falkon's took 45–66, and on 80 000 rows of issue 36's synthetic problem (s = 4 000) 37 where
    it took 189. At large M (MNIST's 20 000) it is Falkon's."""
    return max(M, min(n, 4 * M, (300 * n) // M))


class RowBlocks(NamedTuple):
    """What a pass over the rows needs of a :class:`NystromSystem` on each row block, and none of
    its M × M factors: on Dask each task carries it (with the whole system, two M × M arrays
    went with every task: 65 MB at M = 2 000)."""

    kernel: Kernel
    S: Array
    wide: Any
    cached: bool
    xp: ModuleType

    def block(self, rows: Array) -> Array:
        """``k(rows, S)`` in the dtype of ``S`` (the kernel blocks'), the rows cast to it."""
        if rows.dtype != self.S.dtype:
            rows = self.xp.astype(rows, self.S.dtype)
        return self.kernel._evaluate(rows, self.S, xp=self.xp)

    def kernel_rows(self, rows: Array, centre: Array | None = None) -> Array:
        """The kernel block of a row block of :attr:`rows` (X's rows, or K_nM's cached), in
        the wide dtype, minus ``centre`` (in place where the block is a fresh array)."""
        block = rows if self.cached else self.block(rows)
        fresh = not self.cached or block.dtype != self.wide
        block = block if block.dtype == self.wide else self.xp.astype(block, self.wide)
        if centre is None:
            return block
        if fresh:
            block -= centre[None, :]
            return block
        return block - centre[None, :]

    def on_chunks(
        self,
        fn: Callable[..., tuple[Array, ...]],
        rows: Array,
        others: list[Array | None],
        centre: Array | None,
    ) -> tuple[Array, ...]:
        """``fn`` summed over a row block: on NumPy, chunk by chunk of :data:`PASS_CHUNK`
        rows (:data:`CACHED_PASS_ENTRIES` values from the cache), whose kernel values are
        computed (or widened from the cache) and used while they are in cache, on as many
        threads as the BLAS has (:func:`lrkl._threads.run_chunks`, each thread summing its own
        chunks); elsewhere (a GPU) on the whole block."""
        M = self.S.shape[0]
        plan = plan_chunks(
            rows.shape[0],
            M,
            max(1, CACHED_PASS_ENTRIES // M) if self.cached else PASS_CHUNK,
            xp=self.xp,
        )
        if len(plan.slices) == 1:
            return fn(self.kernel_rows(rows, centre), *others)
        workers = plan.workers
        sums: list[Any] = [None] * workers

        def work(g: int) -> None:
            for chunk in plan.slices[g::workers]:
                part = fn(
                    self.kernel_rows(rows[chunk], centre),
                    *(None if a is None else a[chunk] for a in others),
                )
                sums[g] = (
                    part
                    if sums[g] is None
                    else tuple(t + p for t, p in zip(sums[g], part, strict=True))
                )

        run_chunks(work, range(workers), workers)
        total = sums[0]
        for part in sums[1:]:
            total = tuple(t + p for t, p in zip(total, part, strict=True))
        return total


class NystromSystem:
    """The pcg problem on validated rows ``X`` and the centres ``S`` (M of its rows): the row
    passes (kernel blocks recomputed, or ``cache``: K_nM kept) and the preconditioner's
    λ-free part, ``T`` and ``QᵀQ/s − q̄ q̄ᵀ`` on the rows ``sample`` (``Q = K_sM T⁻¹``; None or
    the centres alone: ``Q = Tᵀ``, Falkon's ``T Tᵀ/M − t̄ t̄ᵀ``), prepared once and shared by
    every set of weights (:meth:`weighted`) and every α (:meth:`solve`)."""

    def __init__(
        self,
        kernel: Kernel,
        X: Array,
        S: Array,
        *,
        fit_intercept: bool,
        cache: bool,
        n_targets: int,
        xp: ModuleType,
        sample: Array | None = None,
        sample_weight: Array | None = None,
        block_dtype: Any = None,
    ) -> None:
        self.kernel, self.S, self.xp = kernel, S, xp
        self.fit_intercept = fit_intercept
        M = S.shape[0]
        # Kernel blocks (and the cache) in `block_dtype` (None: `wide`); everything else in
        # `wide`, at least float64: a narrower block is widened in the pass that reads it.
        self.wide = wide = widest_float(xp, device_of(X))
        block_dtype = wide if block_dtype is None else block_dtype
        self.run = executor_for(X, xp=xp, row_work=3 * M + n_targets)
        self.rows = X
        self.cached = cache
        S_block = S if S.dtype == block_dtype else xp.astype(S, block_dtype)
        self.passes = RowBlocks(kernel, S_block, wide, cache, xp)
        if cache:
            self.rows = self.run.map(self.passes.block, X, tail=(M,), dtype=block_dtype)
        # The preconditioner's λ-free part: T (upper) of K_MM + δI, factored in K_MM's place
        # (the array A later shares), and T Tᵀ/M − t̄ t̄ᵀ, in X's dtype where that is narrower.
        S_wide = S if S.dtype == wide else xp.astype(S, wide)
        factors = xp.empty((M, M), dtype=wide, device=device_of(S))
        for rows in row_slices(M, M):  # K_MM by blocks of rows: no M × M temporary
            factors[rows, :] = kernel._evaluate(S_wide[rows, ...], S_wide, xp=xp)
        self.jitter = landmark_jitter(factors, xp=xp)
        cholesky_into(factors, factors, xp=xp, shift=self.jitter)  # T: the upper triangle
        self.factors = factors
        ones = xp.ones(M, dtype=wide, device=device_of(factors))
        if sample is None or (sample.shape[0] <= M and sample_weight is None):  # Falkon's
            gram_dtype = X.dtype if xp.finfo(X.dtype).bits < xp.finfo(wide).bits else wide
            t_mean = self._T_times(ones) / M
            TT = upper_gram(  # in M³/3 flops
                factors,
                xp=xp,
                scale=1.0 / M,
                minus=t_mean if fit_intercept else None,
                dtype=gram_dtype,
            )
        else:
            TT, t_mean = self._sample_gram(sample, sample_weight)
            if fit_intercept:
                for rows in row_slices(M, M):  # the rank-one downdate, a block of rows at a time
                    TT[rows, :] -= t_mean[rows, None] * t_mean[None, :]
        self.TT = TT
        self._A_for: float | None = None  # the λ whose A the lower triangle holds
        self._A_diagonal: Array | None = None
        self._failed_shift = 0.0  # the largest shift at which the narrow gram did not factor

    def _T_times(self, v: Array) -> Array:
        """``T v``."""
        return triangular_product(self.factors, v, xp=self.xp, lower=False)

    def _sample_gram(self, sample: Array, weights: Array | None) -> tuple[Array, Array]:
        """``QᵀWQ / Σw`` and Q's weighted column means for ``Q = K_sM T⁻¹`` on the ``s`` rows
        ``sample`` (``weights`` None: unit), accumulated over blocks of rows (``s × M`` is never
        held)."""
        xp, s, M = self.xp, sample.shape[0], self.S.shape[0]
        gram = xp.zeros((M, M), dtype=self.wide, device=device_of(self.factors))
        sums = xp.zeros(M, dtype=self.wide, device=device_of(self.factors))
        for rows in row_slices(s, M):
            block = self.passes.block(sample[rows, ...])
            block = block if block.dtype == self.wide else xp.astype(block, self.wide)
            Q_t = solve_triangular(
                self.factors, xp.matrix_transpose(block), xp=xp, lower=False, trans=True
            )
            weighted = Q_t if weights is None else Q_t * weights[None, rows]
            gram += weighted @ xp.matrix_transpose(Q_t)
            sums += xp.sum(weighted, axis=1)
        total = float(s) if weights is None else float(xp.sum(weights))
        gram /= total
        return gram, sums / total

    def _pass(
        self,
        fn: Callable[..., tuple[Array, ...]],
        *arrays: Array | None,
        centre: Array | None = None,
    ) -> tuple[Array, ...]:
        """``fn(kernel block − centre, *row blocks of arrays)`` summed over the row blocks; a
        None in ``arrays`` is passed as None."""
        given = [i for i, a in enumerate(arrays) if a is not None]
        count, passes = len(arrays), self.passes  # (not self or arrays: a Dask task carries
        # what the function holds, and self holds the factors)

        def on_blocks(rows: Array, *blocks: Array) -> tuple[Array, ...]:
            full: list[Array | None] = [None] * count
            for i, block in zip(given, blocks, strict=True):
                full[i] = block
            return passes.on_chunks(fn, rows, full, centre)

        return self.run.sum(on_blocks, self.rows, *(arrays[i] for i in given))

    def weighted(self, y: Array, sample_weight: Array | None) -> WeightedTargets:
        """The weighted means and right-hand side for targets ``y`` (1-D or 2-D) and weights
        (None: unit; zeros leave rows out, as a validation fold's): one pass."""
        xp = self.xp
        Y = y[:, None] if y.ndim == 1 else y
        M, dtype, device = self.S.shape[0], self.wide, device_of(self.S)

        def target_sums(y_rows: Array, *w: Array) -> tuple[Array, Array]:
            if w:
                return w[0] @ y_rows, xp.sum(w[0])
            return xp.sum(y_rows, axis=0), xp.asarray(float(y_rows.shape[0]), dtype=dtype)

        weights = () if sample_weight is None else (sample_weight,)
        y_sums, total = self.run.sum(target_sums, Y, *weights)  # y alone: a cheap pass
        total = float(total)
        y_mean = y_sums / total
        if not self.fit_intercept:
            y_mean = xp.zeros(Y.shape[1], dtype=dtype, device=device)

        # K_nMᵀ W (y − ȳ) is K_cᵀ W (y − ȳ): the weighted residuals y − ȳ sum to 0.
        def sums(K: Array, y_rows: Array, w: Array | None) -> tuple[Array, Array]:
            residual = y_rows - y_mean
            if w is None:
                return xp.sum(K, axis=0), xp.matrix_transpose(K) @ residual
            return w @ K, xp.matrix_transpose(K) @ (residual * w[:, None])

        column_sums, rhs = self._pass(sums, Y, sample_weight)
        mean = (
            column_sums / total if self.fit_intercept else xp.zeros(M, dtype=dtype, device=device)
        )
        return WeightedTargets(Y, sample_weight, total, mean, y_mean, rhs / total)

    def normal_product(self, targets: WeightedTargets, u: Array) -> Array:
        """``K_cᵀ W K_c u`` (u of shape (M, t)): one pass over the rows, each kernel block
        centred in the pass."""
        xp, mean = self.xp, targets.mean

        def product(K: Array, w: Array | None) -> tuple[Array]:
            Ku = K @ u
            if w is not None:
                Ku *= w[:, None]
            return (xp.matrix_transpose(K) @ Ku,)

        centre = mean if self.fit_intercept else None
        (out,) = self._pass(product, targets.weights, centre=centre)
        return out

    def preconditioned(self, targets: WeightedTargets, alpha: float) -> Preconditioned:
        """The system ``Bᵀ H B γ = Bᵀ r`` at ``α > 0``: one Cholesky factorisation of
        ``T Tᵀ/M − t̄ t̄ᵀ + λ I`` into the factors' lower triangle (none where it holds this λ's:
        one system at a time)."""
        lam = alpha / targets.total_weight
        if self._A_for != lam or self._A_diagonal is None:
            self._A_for = None  # the lower triangle is overwritten: valid again once factored
            self._A_diagonal = self._factor_A(lam)
            self._A_for = lam
        return Preconditioned(self, targets, lam, self._A_diagonal)

    def _factor_A(self, lam: float) -> Array:
        """``A``'s diagonal, its rows divided by it in the factors' strict lower triangle. A
        float32 ``T Tᵀ/M − t̄ t̄ᵀ`` differs from its float64 value by at most
        ``r = M · ε₃₂ · max diag`` in norm, and may be indefinite by that rounding where λ lies
        below it: the shift is then raised to ``λ + r/100``, then ``λ + r``, which factors
        (``A`` only preconditions; the problem keeps λ). Shifts known to fail are skipped."""
        xp, TT = self.xp, self.TT
        extras = [0.0]
        if TT.dtype != self.wide:
            top = float(xp.max(xp.abs(xp.linalg.diagonal(TT))))
            rounding = TT.shape[0] * float(xp.finfo(TT.dtype).eps) * top
            extras += [rounding / 100.0, rounding]
        shifts = [lam + extra for extra in extras if lam + extra > self._failed_shift]
        for shift in shifts[:-1]:
            try:
                return cholesky_into(TT, self.factors, xp=xp, shift=shift, lower=True, unit=True)
            except NotPositiveDefiniteError:
                self._failed_shift = max(self._failed_shift, shift)
        shift = shifts[-1] if shifts else lam + extras[-1]
        return cholesky_into(TT, self.factors, xp=xp, shift=shift, lower=True, unit=True)

    def solve(
        self,
        targets: WeightedTargets,
        alpha: float,
        *,
        tol: float,
        max_iter: int,
        start: Array | None = None,
        monitor: Callable[[int, float], None] | None = None,
    ) -> PCGSolution:
        """CG on ``Bᵀ H B γ = Bᵀ r`` at ``α > 0``, from ``β = start`` (a warm start, shape
        (M, t)) or 0, until every target's residual is at most ``tol`` times its right-hand
        side's norm, or ``max_iter`` iterations (a warm start's residual takes one more pass,
        not counted: with ``max_iter=1`` every α of a path still takes a step)."""
        xp = self.xp
        system = self.preconditioned(targets, alpha)
        b = system.rhs()
        b_norm = xp.sqrt(xp.sum(b * b, axis=0))
        threshold = tol * b_norm
        n_iter = 0
        if start is None:
            gamma, r = xp.zeros_like(b), b
        else:
            gamma = system.from_coef(start)
            r = b - system.apply(gamma)
        p = r
        rs = xp.sum(r * r, axis=0)
        done = xp.sqrt(rs) <= threshold
        while not bool(xp.all(done)) and n_iter < max_iter:
            q = system.apply(p)
            n_iter += 1
            curvature = xp.sum(p * q, axis=0)
            step = xp.where(done, 0.0, rs / xp.where(done, 1.0, curvature))
            gamma = gamma + step[None, :] * p
            r = r - step[None, :] * q
            rs_new = xp.sum(r * r, axis=0)
            done = done | (xp.sqrt(rs_new) <= threshold)
            if monitor is not None:
                relative = xp.sqrt(rs_new) / xp.where(b_norm > 0, b_norm, 1.0)
                monitor(n_iter, float(xp.max(relative)))
            p = r + (rs_new / xp.where(rs > 0, rs, 1.0))[None, :] * p
            rs = rs_new
        beta = system.to_coef(gamma)
        intercept = targets.y_mean - targets.mean @ beta
        return PCGSolution(beta, intercept, n_iter, bool(xp.all(done)))

    def squared_errors(
        self, targets: WeightedTargets, solutions: list[PCGSolution], weights: Array
    ) -> list[float]:
        """``Σ w (K_nM β + b − y)² / Σ w`` (the mean over the targets) of each solution on the
        rows of positive ``weights`` (a validation fold's): one pass for all."""
        xp = self.xp
        t = targets.Y.shape[1]
        coef = xp.concat([s.coef for s in solutions], axis=1)  # (M, A t)
        intercept = xp.concat([s.intercept for s in solutions], axis=0)

        def errors(K: Array, Y: Array, w: Array) -> tuple[Array]:
            residual = K @ coef + intercept[None, :] - xp.concat([Y] * len(solutions), axis=1)
            return (w @ (residual * residual),)

        (sums,) = self._pass(errors, targets.Y, weights)
        total = float(xp.sum(weights))
        return [
            float(xp.sum(sums[a * t : (a + 1) * t])) / (total * t) for a in range(len(solutions))
        ]


class Preconditioned(NamedTuple):
    """``Bᵀ H B`` at one λ, ``B = T⁻¹ A⁻¹`` (:meth:`NystromSystem.preconditioned`): ``T`` the
    factors' upper triangle, ``A = D L̃ᵀ`` with ``L̃`` their strict lower triangle (unit
    diagonal) and ``D`` = ``diagonal``."""

    system: NystromSystem
    targets: WeightedTargets
    lam: float
    diagonal: Array  # shape: (M,), A's diagonal

    def _scale(self, v: Array) -> Array:
        return self.diagonal[:, None] if v.ndim == 2 else self.diagonal

    def _T_solve(self, v: Array, *, trans: bool = False) -> Array:
        system = self.system
        return solve_triangular(system.factors, v, xp=system.xp, lower=False, trans=trans)

    def _current(self) -> NystromSystem:
        """The system, whose lower triangle must still hold this λ's ``A``."""
        if self.system._A_for != self.lam:
            msg = "this preconditioner's A was overwritten by another alpha's"
            raise RuntimeError(msg)
        return self.system

    def _A_solve(self, v: Array, *, trans: bool = False) -> Array:
        """``A⁻¹ v = L̃⁻ᵀ D⁻¹ v``, or ``A⁻ᵀ v = D⁻¹ L̃⁻¹ v`` with ``trans``."""
        system = self._current()
        if trans:
            solved = solve_triangular(
                system.factors, v, xp=system.xp, lower=True, unit_diagonal=True
            )
            return solved / self._scale(v)
        return solve_triangular(
            system.factors,
            v / self._scale(v),
            xp=system.xp,
            lower=True,
            trans=True,
            unit_diagonal=True,
        )

    def apply(self, v: Array) -> Array:
        """``Bᵀ H B v = A⁻ᵀ (T⁻ᵀ K_cᵀ W K_c B v / Σw + λ A⁻¹ v)``: one pass over the rows, four
        triangular solves (an iteration of CG)."""
        a = self._A_solve(v)
        product = self.system.normal_product(self.targets, self._T_solve(a))
        inner = self._T_solve(product, trans=True) / self.targets.total_weight + self.lam * a
        return self._A_solve(inner, trans=True)

    def rhs(self) -> Array:
        """``Bᵀ r``."""
        return self._A_solve(self._T_solve(self.targets.rhs, trans=True), trans=True)

    def to_coef(self, gamma: Array) -> Array:
        """``β = B γ``."""
        return self._T_solve(self._A_solve(gamma))

    def from_coef(self, beta: Array) -> Array:
        """``γ = B⁻¹ β = A T β = D L̃ᵀ T β`` (a warm start)."""
        system = self._current()
        Tb = system._T_times(beta)
        product = triangular_product(
            system.factors, Tb, xp=system.xp, lower=True, trans=True, unit_diagonal=True
        )
        return self._scale(product) * product


def decision(
    kernel: Kernel,
    S: Array,
    coef: Array,
    intercept: Array,
    X: Array,
    *,
    xp: ModuleType,
    block_dtype: Any = None,
) -> Array:
    """``k(X, S) β + b`` in row blocks (lazily on Dask), computed in ``block_dtype`` (None: the
    widest float of the device) and returned in the dtype of ``S`` (the model's); on NumPy,
    chunk by chunk of :data:`PASS_CHUNK` rows on the BLAS's threads, no kernel block held
    beyond a chunk."""
    tail = () if coef.ndim == 1 else (coef.shape[1],)
    out_dtype = S.dtype
    block_dtype = widest_float(xp, device_of(S)) if block_dtype is None else block_dtype
    S, coef, intercept = (
        a if a.dtype == block_dtype else xp.astype(a, block_dtype) for a in (S, coef, intercept)
    )

    def score(rows: Array) -> Array:
        rows = rows if rows.dtype == block_dtype else xp.astype(rows, block_dtype)
        values = kernel._evaluate(rows, S, xp=xp) @ coef + intercept
        return values if values.dtype == out_dtype else xp.astype(values, out_dtype)

    def scores(rows: Array) -> Array:
        plan = plan_chunks(rows.shape[0], S.shape[0], PASS_CHUNK, xp=xp)
        if len(plan.slices) == 1:
            return score(rows)
        out = xp.empty((rows.shape[0], *tail), dtype=out_dtype)

        def work(chunk: slice) -> None:
            out[chunk, ...] = score(rows[chunk, ...])

        run_chunks(work, plan.slices, plan.workers)
        return out

    run = executor_for(X, xp=xp, row_work=S.shape[0])
    return run.map(scores, X, tail=tail, dtype=out_dtype)

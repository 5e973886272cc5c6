"""Time and peak memory of lrkl's blocked Cholesky against SciPy's ``potrf``, one run per process.

Usage: ``python benchmarks/scripts/large_cholesky.py METHOD N [BLOCK]`` with METHOD one of
``scipy`` (``scipy.linalg.cholesky``, one ``potrf``), ``numpy`` (``numpy.linalg.cholesky``),
``blocked`` (``lrkl._linalg.cholesky_into``, lrkl's blocked Cholesky, with diagonal blocks of BLOCK
rows, default lrkl's), ``lrkl`` (``lrkl._linalg.cholesky``: direct or blocked by size) or ``eigh``
(``lrkl._linalg.eigh``). The matrix is a Gaussian kernel of N points in 8 dimensions plus ``1e-3
I``, built in place. Each run is its own process because OpenBLAS's threaded ``potrf`` with the
SkylakeX kernel kills the process at N = 16 000 and 20 000: ``--all`` runs the grid of the docs
(docs/performance/linalg.rst) that way and prints one line per run (a signal is reported, not
raised); ``--all --rst [NAME]`` also writes that grid into the performance section. ``extra`` is
the peak resident memory of the factorisation beyond the input matrix; ``CPU`` the process's CPU
time (user + system), which on one thread (``OPENBLAS_NUM_THREADS=1``) is the cost of the
computation whatever else the machine runs.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time

import _report
import numpy as np


def _matrix(n: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, 8))
    sq = np.einsum("ij,ij->i", X, X)
    A = X @ X.T
    A *= 2.0
    A -= sq[:, None]
    A -= sq[None, :]
    A *= 0.5 / 8.0
    np.exp(A, out=A)
    A.flat[:: n + 1] += 1e-3
    return A


def _one(method: str, n: int, block: int | None) -> None:
    import scipy.linalg

    from lrkl import _linalg

    A = _matrix(n)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    before, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    if method == "scipy":
        L = scipy.linalg.cholesky(A, lower=True, check_finite=False)
    elif method == "numpy":
        L = np.linalg.cholesky(A)
    elif method == "blocked":
        size = block or _linalg._BLOCK_SIZE
        U = np.zeros_like(A)
        _linalg.cholesky_into(A.T, U, xp=np, block=size)  # reads A's lower triangle
        L = U.T
    elif method == "lrkl":
        L = _linalg.cholesky(A, xp=np)
    elif method == "eigh":
        L = _linalg.eigh(A, xp=np)[1]
    else:
        raise SystemExit(f"unknown method {method!r}")
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu
    extra = (usage.ru_maxrss - before) / 2**20
    err = ""
    if method != "eigh" and n <= 12_000:
        ref = np.linalg.cholesky(A) if method != "numpy" else L
        err = f" max|L - L_numpy| {float(np.max(np.abs(L - ref))):.1e}"
    head = f"{method:8s} n={n:6d} block={block or '-'}"
    print(f"{head}: {seconds:7.1f} s wall, {cpu:7.1f} s CPU, extra {extra:5.2f} GiB{err}")


def _all() -> None:
    runs = [("scipy", n, None) for n in (4000, 8000, 12000, 16000, 20000)]
    runs += [("blocked", n, None) for n in (4000, 8000, 12000, 16000, 20000)]
    for method, n, block in runs:
        args = [sys.executable, __file__, method, str(n)] + ([str(block)] if block else [])
        done = subprocess.run(args, capture_output=True, text=True, check=False)
        if done.returncode:
            print(f"{method:8s} n={n:6d}: process died, return code {done.returncode}")
        else:
            print(done.stdout.strip())
        sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--all"]:
        # ``--all --rst [NAME]`` also writes the grid into the performance section.
        rst = sys.argv[3] if len(sys.argv) > 3 else "large_cholesky"
        with _report.capture(rst if sys.argv[2:3] == ["--rst"] else None):
            _all()
    else:
        _one(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else None)

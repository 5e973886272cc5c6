"""Does LAPACK's ``syevd`` (lrkl's ``eigh`` on NumPy: ``KernelRidgeCV``'s path, ``KernelRidge``
with ``solver="eigh"``), or with ``--svd`` its ``gesdd`` (``svd``: the Tikhonov path's SVD of
``K̃ = [K, 1]``), complete on a large Gaussian kernel matrix under the OpenBLAS kernel in
``OPENBLAS_CORETYPE``? OpenBLAS's own threaded ``potrf`` segfaults at 16 000 rows under SkylakeX;
``syevd`` and ``gesdd`` are reference LAPACK over OpenBLAS's BLAS.

    OPENBLAS_CORETYPE=SkylakeX python benchmarks/scripts/large_eigh.py 16000
    OPENBLAS_CORETYPE=SkylakeX python benchmarks/scripts/large_eigh.py 16000 --svd
"""

from __future__ import annotations

import argparse
import resource
import time

import array_api_compat.numpy as xp
import numpy as np
import threadpoolctl

from lrkl._linalg import eigh
from lrkl.kernel_ridge._regularization import tikhonov_problem
from lrkl.kernels import Gaussian


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, help="rows of the kernel matrix")
    parser.add_argument("--svd", action="store_true", help="the SVD of [K, 1] instead")
    args = parser.parse_args(argv)
    n = args.n
    X = np.random.default_rng(0).normal(size=(n, 8))
    K = Gaussian(gamma=0.05)(X)
    for info in threadpoolctl.threadpool_info():
        print(info["internal_api"], info.get("architecture"), info["num_threads"], "threads")
    start = time.perf_counter()
    if args.svd:  # as KernelRidge(method="tikhonov") sets up: K is not kept beside [K, 1]
        del K
        problem = tikhonov_problem(Gaussian(gamma=0.05)(X), bias=True, xp=xp)
        seconds = time.perf_counter() - start
        U, s, Vt = problem.U, problem.s, problem.Vt
        first = Gaussian(gamma=0.05)(X) @ Vt[0, :n] + Vt[0, n]  # K̃ v₁, which should be s₁ u₁
        residual = np.abs(first - s[0] * U[:, 0]).max()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
        print(
            f"n = {n}: svd of [K, 1] {seconds:.1f} s, singular values {s[-1]:.3g} to "
            f"{s[0]:.3g}, residual {residual:.2e}, peak resident memory {peak:.1f} GiB"
        )
        return
    w, V = eigh(K, xp=xp)
    seconds = time.perf_counter() - start
    residual = np.abs(K @ V[:, -1] - w[-1] * V[:, -1]).max()
    print(
        f"n = {n}: eigh {seconds:.1f} s, eigenvalues {w[0]:.3g} to {w[-1]:.3g}, "
        f"residual {residual:.2e}"
    )


if __name__ == "__main__":
    main()

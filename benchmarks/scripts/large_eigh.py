"""Does LAPACK's ``syevd`` (lrkl's ``eigh`` on NumPy: ``KernelRidgeCV``'s path, ``KernelRidge``
with ``solver="eigh"``) complete on a large Gaussian kernel matrix under the OpenBLAS kernel in
``OPENBLAS_CORETYPE``? OpenBLAS's own threaded ``potrf`` segfaults at 16 000 rows under SkylakeX;
``syevd`` is reference LAPACK over OpenBLAS's BLAS.

    OPENBLAS_CORETYPE=SkylakeX python benchmarks/scripts/large_eigh.py 16000
"""

from __future__ import annotations

import argparse
import time

import array_api_compat.numpy as xp
import numpy as np
import threadpoolctl

from lrkl._linalg import eigh
from lrkl.kernels import Gaussian


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, help="rows of the kernel matrix")
    n = parser.parse_args(argv).n
    X = np.random.default_rng(0).normal(size=(n, 8))
    K = Gaussian(gamma=0.05)(X)
    for info in threadpoolctl.threadpool_info():
        print(info["internal_api"], info.get("architecture"), info["num_threads"], "threads")
    start = time.perf_counter()
    w, V = eigh(K, xp=xp)
    seconds = time.perf_counter() - start
    residual = np.abs(K @ V[:, -1] - w[-1] * V[:, -1]).max()
    print(
        f"n = {n}: eigh {seconds:.1f} s, eigenvalues {w[0]:.3g} to {w[-1]:.3g}, "
        f"residual {residual:.2e}"
    )


if __name__ == "__main__":
    main()

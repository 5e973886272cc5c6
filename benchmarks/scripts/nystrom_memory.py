"""Peak memory of a Nyström factor's pass over many rows: the in-memory executor's row blocks
under ``lrkl._executor.IN_MEMORY_BLOCK_ENTRIES`` against the features themselves.

    python benchmarks/scripts/nystrom_memory.py --rows 300000 --landmarks 1000

Run it in a fresh process per measurement (the peak resident set size of the process).
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from lrkl.kernels import Gaussian
from lrkl.lowrank import nystrom


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--landmarks", type=int, default=1000)
    args = parser.parse_args()
    X = np.random.default_rng(0).standard_normal((args.rows, 5))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    start = time.perf_counter()
    factor = nystrom(Gaussian(gamma=0.2), X, args.landmarks, random_state=0)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    features = factor.G.nbytes / 2**30
    print(
        f"{args.rows} rows, {args.landmarks} landmarks: features {features:.2f} GiB, "
        f"peak RSS {peak:.2f} GiB (before the factor {before:.2f} GiB), {seconds:.1f} s"
    )


if __name__ == "__main__":
    main()

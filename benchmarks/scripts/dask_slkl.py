"""lrkl on Dask: SLKL's Gram-form fit (one graph for the pass over the rows, the M × M solve in
the client), CG kernel ridge (one graph per iteration) or ICD low-rank ridge (one graph per
pivot, the factor's chunks kept on the workers), the data generated chunk by chunk on the
workers.

    python benchmarks/scripts/dask_slkl.py --n 10000000 --workers 1 2
    python benchmarks/scripts/dask_slkl.py --n 2000000 --numpy    # the single-process run
    python benchmarks/scripts/dask_slkl.py --cg --n 20000 --chunk 2500 --workers 1 2
    python benchmarks/scripts/dask_slkl.py --cg --n 20000 --numpy
    python benchmarks/scripts/dask_slkl.py --icd --rank 50 --n 1000000 --workers 1 2

Prints, per run: fit seconds, the time of the pass (the Gram graph), the scheduler overhead
(the pass's wall time minus its tasks' compute time per worker), the peak resident memory of
the client process and of each worker.
"""

from __future__ import annotations

import argparse
import time

import _report
import numpy as np

from lrkl import KernelRidge, LowRankRidge, SLKLRegressor
from lrkl.kernels import Gaussian


def _model(args):
    kernel = Gaussian(gamma=1.0 / args.d)
    if args.cg:
        return KernelRidge(kernel, method="cg", max_iter=args.iterations, columns="on_the_fly")
    if args.icd:
        return LowRankRidge([kernel], rank=args.rank, method="icd")
    return SLKLRegressor(n_columns=args.M, kernel=kernel, random_state=0, nu=args.nu)


def _size(model) -> str:
    if hasattr(model, "rank_"):
        return f"ICD rank {model.rank_[0]}"
    return f"m0 {model.support_.shape[0]}" if hasattr(model, "support_") else "CG"


def _name(args) -> str:
    return "CG" if args.cg else f"ICD rank {args.rank}" if args.icd else f"M {args.M}"


def dask_run(args, workers: int) -> None:
    import dask.array as da
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        rs = da.random.RandomState(0)
        X = rs.standard_normal((args.n, args.d), chunks=(args.chunk, args.d))
        X = X.persist()  # generated once on the workers (CG reads it in every graph)
        y = da.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rs.standard_normal(args.n, chunks=args.chunk)
        start = time.perf_counter()
        with distributed.get_task_stream(client) as stream:
            model = _model(args).fit(X, y)
        seconds = time.perf_counter() - start
        tasks = stream.data
        busy = sum(
            s["stop"] - s["start"]
            for t in tasks
            for s in t["startstops"]
            if s["action"] == "compute"
        )
        first = min(s["start"] for t in tasks for s in t["startstops"])
        last = max(s["stop"] for t in tasks for s in t["startstops"])
        span = last - first
        overhead = span - busy / workers
        peaks = client.run(_report.peak_gib)
        print(
            f"dask n {args.n} {_name(args)} workers {workers} "
            f"chunks {args.chunk}: "
            f"fit {seconds:.1f}s, graphs {span:.1f}s for {len(tasks)} tasks, "
            f"scheduler overhead {overhead:.2f}s "
            f"({100 * overhead / span:.1f} %), {_size(model)}, client peak "
            f"{_report.peak_gib():.2f} GiB, worker peaks "
            + ", ".join(f"{v:.2f}" for v in peaks.values())
            + " GiB",
            flush=True,
        )


def numpy_run(args) -> None:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((args.n, args.d))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.standard_normal(args.n)
    start = time.perf_counter()
    model = _model(args).fit(X, y)
    print(
        f"numpy n {args.n} {_name(args)}: fit {time.perf_counter() - start:.1f}s, "
        f"{_size(model)}, peak {_report.peak_gib():.2f} GiB",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--d", type=int, default=10)
    parser.add_argument("--M", type=int, default=256)
    parser.add_argument("--nu", type=float, default=None)
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--numpy", action="store_true", help="the in-memory run instead")
    parser.add_argument("--cg", action="store_true", help="KernelRidge(method='cg') on the fly")
    parser.add_argument("--iterations", type=int, default=50, help="CG iterations")
    parser.add_argument("--icd", action="store_true", help="LowRankRidge(method='icd')")
    parser.add_argument("--rank", type=int, default=50, help="ICD rank")
    _report.add_rst_argument(parser, "dask_{kind}_{where}")
    args = parser.parse_args()
    kind = "cg" if args.cg else "icd" if args.icd else "slkl"
    with _report.capture(args.rst, kind=kind, where="numpy" if args.numpy else "dask"):
        if args.numpy:
            numpy_run(args)
        else:
            for workers in args.workers:
                dask_run(args, workers)


if __name__ == "__main__":
    main()

"""Regenerate the documentation's performance section: every fragment of
``docs/performance/fragments/`` by the command that measures it, one after the other.

    nox -s performance                      # all of them (hours on 2 cores)
    nox -s performance -- --only lpmkl      # those whose name contains "lpmkl"
    python benchmarks/scripts/regenerate.py --list

Each command writes its own stamped fragment (``_report.py``); a command that fails leaves its
fragment as it was, and the run goes on to the next and exits non-zero at the end. The data sets
that are not bundled are read from the data home (``LRKL_DATA``). Timings run with one BLAS
thread where the fragment says so (``OPENBLAS_NUM_THREADS=1``); nothing else should run on the
machine meanwhile.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time

from _report import ROOT

SCRIPTS = "benchmarks/scripts"
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _asv(name: str, *patterns: str) -> str:
    """asv on the patterns in this environment, then the results as fragment ``name``. With
    ``--python=same`` asv saves results only for a named commit (``--set-commit-hash``)."""
    selected = " ".join(f"-b {shlex.quote(p)}" for p in patterns)
    quoted = " ".join(shlex.quote(p) for p in patterns)
    return (
        f"cd benchmarks && asv machine --yes >/dev/null && asv run --python=same "
        f'--set-commit-hash "$(git rev-parse HEAD)" -a repeat=5 {selected} && cd .. && '
        f"python {SCRIPTS}/asv_fragment.py {name} {quoted}"
    )


#: (fragments it writes, shell command, whether it runs on one BLAS thread), cheapest first.
COMMANDS: list[tuple[str, str, bool]] = [
    ("gaussian_blocks", f"python {SCRIPTS}/kernel_blocks.py --rst", True),
    (
        "kernel_blocks_asv",
        _asv("kernel_blocks_asv", "KernelBlocks.time", "KernelBlocksFloat32.time"),
        True,
    ),
    (
        "lowrank_asv",
        _asv(
            "lowrank_asv",
            "LowRankFactor.time_factor",
            "LowRankFactorFloat32.time_factor",
            "MklarenVsSamples.time_fit_vs_n",
            "MklarenVsKernels.time_fit_vs_kernels",
            "MklarenRank98.time_fit_rank98",
        ),
        True,
    ),
    ("dask_asv", _asv("dask_asv", "bench_dask"), False),
    ("precision", f"python {SCRIPTS}/precision.py --draws 40 --rst", False),
    (
        "precision_rows300",
        f"python {SCRIPTS}/precision.py --draws 10 --rows 100 300 --rst precision_rows300",
        False,
    ),
    (
        "precision_asv",
        _asv(
            "precision_asv",
            "CVFit.time_fit",
            "LowRankRidgeFit.time_fit",
            "LowRankRidgeFitFloat32.time_fit",
            "MklarenVsSamples.time_fit_vs_n",
            "MklarenVsSamplesFloat32.time_fit_vs_n",
            "AlignmentFit.time_fit",
        ),
        False,
    ),
    (
        "krr_targets_path",
        f"python {SCRIPTS}/krr_targets.py path --datasets mg --seeds 1 --rst",
        False,
    ),
    ("krr_targets_factor", f"python {SCRIPTS}/krr_targets.py factor --rst", False),
    ("krr_targets_memory", f"python {SCRIPTS}/krr_targets.py memory --rst", False),
    (
        "krr_targets_cg_default",
        f"python {SCRIPTS}/krr_targets.py cg-default --seeds 3 --rst",
        False,
    ),
    ("slkl_targets_krr", f"python {SCRIPTS}/slkl_targets.py krr --rst", False),
    (
        "lpmkl_tolerance",
        f"python {SCRIPTS}/lpmkl_targets.py tolerance --seeds 0 1 --rst lpmkl_tolerance",
        False,
    ),
    (
        "lpmkl_gap",
        f"python {SCRIPTS}/lpmkl_targets.py gap --datasets svmguide1 --Cs 1 1000 --rst lpmkl_gap",
        False,
    ),
    ("lpmkl_stop_panel", f"python {SCRIPTS}/lpmkl_stop_panel.py --seeds 2 --rst", False),
    (
        "lpmkl_targets_exact",
        f"python {SCRIPTS}/lpmkl_targets.py exact --datasets magic --sizes 11430 --seeds 0 "
        "--kernels 20 --ranks 100 --C 10 1000 --fits newton newton_hinge --rst",
        False,
    ),
    (
        "lpmkl_exact_powers",
        f"python {SCRIPTS}/lpmkl_targets.py exact --kernel-set powers --datasets magic adult "
        "--sizes 11430 --seeds 0 --ranks 100 --C 10 1000 --fits newton newton_hinge "
        "--rst lpmkl_exact_powers",
        False,
    ),
    (
        "lpmkl_landmarks",
        f"python {SCRIPTS}/lpmkl_landmarks.py --n 4000 --seeds 0 1 2 --rst",
        False,
    ),
    (
        "lpmkl_landmarks_synthetic",
        f"python {SCRIPTS}/lpmkl_landmarks.py --sets synthetic --n 100000 --seeds 0 --ranks 100 "
        "--rst lpmkl_landmarks_synthetic",
        False,
    ),
    ("lpmkl_million", f"python {SCRIPTS}/lpmkl_million.py --rst", False),
    (
        "lpmkl_million_float64",
        f"python {SCRIPTS}/lpmkl_million.py --float64 --rst lpmkl_million_float64",
        False,
    ),
    ("lpmkl_adult", f"python {SCRIPTS}/lpmkl_adult.py --rst", False),
    (
        "lpmkl_targets_scale",
        f"python {SCRIPTS}/lpmkl_targets.py scale --datasets svmguide1 mushrooms magic adult "
        "--sizes 1000 2000 --seeds 0 --kernels 10 --ranks 40 --constants 0.1 0.3 1 --rst",
        False,
    ),
    (
        "lpmkl_targets_fits",
        f"python {SCRIPTS}/lpmkl_targets.py fits --datasets svmguide1 mushrooms magic adult "
        "--Cs 1 10 100 --rst",
        False,
    ),
    (
        "krr_targets_sklearn",
        f"python {SCRIPTS}/krr_targets.py sklearn --seeds 2 --stride 4 --rst",
        False,
    ),
    (
        "krr_path_panel",
        f"python {SCRIPTS}/krr_targets.py path --seeds 2 --rst krr_path_panel",
        False,
    ),
    ("large_cholesky", f"python {SCRIPTS}/large_cholesky.py --all --rst", False),
    ("pcg_agree", f"python {SCRIPTS}/pcg_targets.py agree --rst", False),
    ("pcg_asv", _asv("pcg_asv", "PCGIteration", "PCGIterations", "PCGMemory"), False),
    ("gaussian_block_asv", _asv("gaussian_block_asv", "GaussianBlock"), False),
    (
        "pcg_mnist",
        f"python {SCRIPTS}/pcg_targets.py mnist --centres 5000 10000 20000 --kernel-dtype float32"
        " --rst",
        False,
    ),
    (
        "pcg_synthetic",
        f"python {SCRIPTS}/pcg_targets.py synthetic --centres 5000 --budget 1 --rst",
        False,
    ),
    (
        "pcg_synthetic_1e7",
        f"python {SCRIPTS}/pcg_targets.py synthetic --rows 10000000 --centres 5000 --budget 1"
        " --rst pcg_synthetic_1e7",
        False,
    ),
    (
        "pcg_synthetic_dask",
        f"python {SCRIPTS}/pcg_targets.py synthetic --centres 5000 --budget 1 --iterations 3"
        " --workers 1 2 --rst pcg_synthetic_dask",
        False,
    ),
    (
        "pcg_synthetic_1e7_dask",
        f"python {SCRIPTS}/pcg_targets.py synthetic --rows 10000000 --centres 5000 --budget 1"
        " --iterations 3 --workers 2 --kernel-dtype float32 --rst pcg_synthetic_1e7_dask",
        False,
    ),
    ("slkl_panel", f"python {SCRIPTS}/slkl_panel.py --rst", False),
    (
        "dask_slkl_dask dask_slkl_numpy dask_cg_dask dask_icd_dask dask_icd_numpy",
        " && ".join(
            f"python {SCRIPTS}/dask_slkl.py {arguments} --rst"
            for arguments in (
                "--n 10000000 --workers 1 2",
                "--n 2000000 --numpy",
                "--cg --n 30000 --chunk 3750 --workers 2",
                "--icd --rank 50 --n 10000000 --chunk 1000000",
                "--icd --rank 50 --n 10000000 --numpy",
            )
        ),
        False,
    ),
    ("slkl_reproduce", f"python {SCRIPTS}/reproduce_fragment.py slkl", False),
    ("krr_reproduce", f"python {SCRIPTS}/reproduce_fragment.py krr --splits 1", False),
    ("lpmkl_reproduce", f"python {SCRIPTS}/reproduce_fragment.py lp-mkl --runs 1", False),
    ("lpmkl_reproduce_cells", f"python {SCRIPTS}/lpmkl_reproduce_cells.py --rst", False),
    (
        "defaults_regression",
        f"python {SCRIPTS}/defaults.py regression --seeds 5 --out defaults_regression.jsonl && "
        f"python {SCRIPTS}/defaults.py report defaults_regression.jsonl --rst",
        True,
    ),
    (
        "defaults_classification",
        f"python {SCRIPTS}/defaults.py classification --seeds 5 "
        "--out defaults_classification.jsonl && "
        f"python {SCRIPTS}/defaults.py report defaults_classification.jsonl --rst",
        True,
    ),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", default=None, help="fragment names containing these")
    parser.add_argument("--list", action="store_true", help="print the commands and stop")
    args = parser.parse_args()
    chosen = [
        entry
        for entry in COMMANDS
        if args.only is None or any(part in entry[0] for part in args.only)
    ]
    failed = []
    for fragments, command, one_thread in chosen:
        env = {**os.environ, **(ONE_THREAD if one_thread else {})}
        # ``python`` and ``asv`` are this interpreter's, whichever environment runs this script
        env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
        shown = ("OPENBLAS_NUM_THREADS=1 " if one_thread else "") + command
        print(f"::: {fragments}: {shown}", flush=True)
        if args.list:
            continue
        start = time.perf_counter()
        done = subprocess.run(command, shell=True, cwd=ROOT, env=env, check=False)
        minutes = (time.perf_counter() - start) / 60
        print(f"::: {fragments}: exit {done.returncode} after {minutes:.1f} min", flush=True)
        if done.returncode:
            failed.append(fragments)
    if failed:
        print(f"::: failed, fragments left as they were: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

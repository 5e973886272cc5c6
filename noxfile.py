"""Development sessions: ``nox -s tests`` (default), tests_blas, tests_torch, tests_array_api,
tests_cupy, tests_slow, tests_large, lint, docs, bench, bench_smoke, performance."""

from __future__ import annotations

import platform
import shutil
import subprocess

import nox

nox.options.sessions = ["tests"]
nox.options.default_venv_backend = "virtualenv"

PYTEST = ["python", "-m", "pytest"]
TORCH = "torch==2.13.0"  # the CPU build; a plain "torch" would pull a multi-GB CUDA build


#: The AVX-512 subsets OpenBLAS's SkylakeX kernel uses (a CPU with avx512f alone, such as
#: Knights Landing, would crash under it).
SKYLAKEX_FLAGS = {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"}


def _has_avx512() -> bool:
    """Whether this CPU has the AVX-512 subsets of OpenBLAS's SkylakeX kernel (the flags of
    /proc/cpuinfo; False elsewhere)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            return any(
                line.startswith("flags") and set(line.split()) >= SKYLAKEX_FLAGS for line in cpuinfo
            )
    except OSError:
        return False


def _has_nvidia_gpu() -> bool:
    if shutil.which("nvidia-smi") is None:
        return False
    return subprocess.run(["nvidia-smi", "-L"], capture_output=True, check=False).returncode == 0


def _openblas_kernels() -> list[str]:
    """The OpenBLAS kernels ``tests_blas`` forces: Prescott (the oldest x86-64 one) anywhere on
    x86-64, SkylakeX only where the CPU has AVX-512 (forcing it elsewhere crashes)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    return ["Prescott", *(["SkylakeX"] if _has_avx512() else [])]


def _run_tests(session: nox.Session, env: dict[str, str] | None = None) -> None:
    session.run(*PYTEST, "-m", "not slow and not large", *session.posargs, env=env)
    session.run(*PYTEST, "--doctest-modules", "src/lrkl", "-p", "no:cacheprovider", env=env)


@nox.session
def tests(session: nox.Session) -> None:
    """The default test run: NumPy and array-api-strict (both devices); slow tests excluded."""
    session.install(".[test]")
    _run_tests(session)


@nox.session
def tests_blas(session: nox.Session) -> None:
    """The default test run again under other OpenBLAS kernels (``OPENBLAS_CORETYPE``): a result
    that turns on the last bits of one CPU's BLAS fails here rather than on a user's machine."""
    kernels = _openblas_kernels()
    if not kernels:
        session.skip(f"OPENBLAS_CORETYPE names x86-64 kernels; this is {platform.machine()}")
    session.install(".[test]")
    for kernel in kernels:
        session.log(f"OPENBLAS_CORETYPE={kernel}")
        _run_tests(session, env={"OPENBLAS_CORETYPE": kernel})


@nox.session
def tests_torch(session: nox.Session) -> None:
    """The backend-parametrised tests on PyTorch (CPU build)."""
    session.install(".[test]", TORCH)
    session.run(*PYTEST, "-m", "not slow and not large", "-k", "torch", *session.posargs)


@nox.session
def tests_array_api(session: nox.Session) -> None:
    """scikit-learn's estimator checks with ``SCIPY_ARRAY_API=1``, so that its array-API checks
    (array-api-strict on both devices, PyTorch on CPU, mixed namespaces) run too."""
    session.install(".[test]", TORCH)
    session.run(*PYTEST, "tests/test_common.py", *session.posargs, env={"SCIPY_ARRAY_API": "1"})


@nox.session
def tests_cupy(session: nox.Session) -> None:
    """The backend-parametrised tests on CuPy, scikit-learn's array-API checks on CuPy included
    (``SCIPY_ARRAY_API=1``); skipped without an NVIDIA GPU."""
    if not _has_nvidia_gpu():
        session.skip("no NVIDIA GPU on this machine (nvidia-smi -L failed): CuPy tests not run")
    session.install(".[test,cupy]")
    session.run(
        *PYTEST,
        "-m",
        "not slow and not large",
        "-k",
        "cupy",
        *session.posargs,
        env={"SCIPY_ARRAY_API": "1"},
    )


@nox.session
def tests_slow(session: nox.Session) -> None:
    """The long-running tests (marked ``slow``), on NumPy and array-api-strict."""
    session.install(".[test,plot]")
    session.run(*PYTEST, "-m", "slow and not large", *session.posargs)


@nox.session
def tests_large(session: nox.Session) -> None:
    """The 20 000-row dense factorisations (marked ``large``): ``KernelRidge`` and
    ``KernelRidgeCV`` (its eigendecomposition) fitted on 20 000 rows, the Cholesky factor of a
    20 000 × 20 000 kernel matrix, and ``LowRankRidge(solver="pcg")`` at 20 000 centres (its
    own two in-place factorisations). About 20 minutes on 2 cores, and 13 GB.

    Where the CPU has AVX-512 they run under OpenBLAS's SkylakeX kernel, whose threaded
    ``potrf`` segfaults at these sizes (the reason lrkl's Cholesky is blocked); elsewhere the
    kernel is left to OpenBLAS, since forcing SkylakeX without AVX-512 crashes on the first
    AVX-512 instruction.
    """
    session.install(".[test]")
    env = {"OPENBLAS_CORETYPE": "SkylakeX"} if _has_avx512() else {}
    session.log(f"OpenBLAS kernel: {env.get('OPENBLAS_CORETYPE', 'chosen by OpenBLAS')}")
    session.run(*PYTEST, "-m", "large", "tests/test_linalg.py", *session.posargs, env=env)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check."""
    session.install("ruff==0.17.6")
    session.run("ruff", "check", "src", "tests", "benchmarks", "examples", "noxfile.py")
    session.run("ruff", "format", "--check", "src", "tests", "benchmarks", "noxfile.py")


@nox.session
def docs(session: nox.Session) -> None:
    """Build the Sphinx site with warnings as errors."""
    session.install(".[docs]")
    session.run("sphinx-build", "-W", "--keep-going", "-b", "html", "docs", "docs/_build/html")


def _asv_check(session: nox.Session) -> None:
    """Install the benchmarks' dependencies, enter ``benchmarks/`` and ``asv check`` there."""
    session.install(".[bench,plot,dask]", TORCH)
    session.chdir("benchmarks")
    session.run("asv", "machine", "--yes")
    session.run("asv", "check", "--python=same")


@nox.session
def bench(session: nox.Session) -> None:
    """``asv check`` and ``asv run --quick`` against this environment (no asv-managed builds)."""
    _asv_check(session)
    session.run("asv", "run", "--quick", "--python=same", "--show-stderr", *session.posargs)


@nox.session
def bench_smoke(session: nox.Session) -> None:
    """``asv check``, then the first parameter combination of every benchmark run once, in one
    process (``benchmarks/scripts/asv_in_process.py --smoke``): that the suite runs, in minutes
    where ``bench`` takes an hour or more on 2 cores. Its figures are not measurements."""
    _asv_check(session)
    session.run("python", "scripts/asv_in_process.py", "--smoke", ".", *session.posargs)


@nox.session
def performance(session: nox.Session) -> None:
    """Regenerate the documentation's performance section (``docs/performance/fragments/``),
    each fragment by its own benchmark script or asv run: hours on 2 cores, on a quiet machine.
    ``nox -s performance -- --only NAME`` regenerates the fragments whose name contains NAME;
    the data sets that are not bundled come from the data home (``LRKL_DATA``)."""
    session.install(".[bench,plot,dask,qp,peers]", TORCH)
    session.run("python", "benchmarks/scripts/regenerate.py", *session.posargs)

"""Write a benchmark script's result into the documentation's performance section.

A script that takes ``--rst`` (added by :func:`add_rst_argument`) runs its measurement inside
:func:`capture`: everything it prints is also kept, and at the end it is written, as a literal
block under a stamp, to ``docs/performance/fragments/NAME.rst``, which a page of
``docs/performance/`` includes. The stamp says when (UTC), on what machine (CPU, cores, memory,
BLAS, NumPy, GPU) and at which commit of lrkl the numbers were measured, and the command that
measures them again.

    python benchmarks/scripts/krr_targets.py path --datasets mg --seeds 1 --rst
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[2]
FRAGMENTS = ROOT / "docs" / "performance" / "fragments"


def add_rst_argument(parser: argparse.ArgumentParser, default: str) -> None:
    """``--rst [NAME]``: also write the output to ``docs/performance/fragments/NAME.rst``.

    ``default`` may hold ``{fields}`` that :func:`capture` fills in (the script's sub-command).
    """
    parser.add_argument(
        "--rst",
        nargs="?",
        const=default,
        default=None,
        metavar="NAME",
        help=f"also write the output into docs/performance/fragments/NAME.rst ({default})",
    )


def peak_gib() -> float:
    """The peak resident memory of this process so far (GiB): Linux's ``VmHWM``, the high-water
    mark of this program's own memory, where there is one. (``ru_maxrss`` is kept across the
    fork and exec that start a Dask worker, so a worker's would be at least its client's at
    that moment.) Dask's workers run it through ``client.run``."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 2**20  # KiB
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def best_of(repeat: int, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """``fn(*args, **kwargs)``'s result and the shortest of ``repeat`` wall-clock timings of it
    (seconds)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        times.append(time.perf_counter() - start)
    return out, min(times)


def _git(*args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, check=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()


def _cpu() -> str:
    with contextlib.suppress(OSError):
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _memory() -> str:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in pathlib.Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 2**20:.0f} GiB"
    return "memory unknown"


def _blas() -> str:
    import numpy  # noqa: F401  (loads the BLAS that threadpoolctl then reports)
    from threadpoolctl import threadpool_info

    found = [
        f"{p.get('internal_api', '?')} {p.get('version') or ''} "
        f"({p.get('architecture') or '?'}, {p.get('num_threads')} threads)".replace("  ", " ")
        for p in threadpool_info()
        if p.get("user_api") == "blas"
    ]
    return ", ".join(found) or "BLAS unknown"


def _gpu() -> str:
    if shutil.which("nvidia-smi") is None:
        return "no GPU"
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
        names = [n.strip() for n in done.stdout.splitlines() if n.strip()]
        if names:
            return "GPU " + ", ".join(names)
    return "no GPU"


def stamp() -> dict[str, str]:
    """When, where and at which commit: the fields every fragment starts with."""
    import numpy

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    machine = (
        f"{_cpu()}, {os.cpu_count()} cores, {_memory()}; {_blas()}; "
        f"NumPy {numpy.__version__}; {_gpu()}"
    )
    commit = _git("rev-parse", "--short", "HEAD") or "unknown"
    if _git("status", "--porcelain", "--", "src"):
        commit += " + uncommitted changes"
    return {"Measured": now, "Machine": machine, "Commit": f"lrkl {commit}"}


def command() -> str:
    """The command line that ran this script, relative to the repository root."""
    script = pathlib.Path(sys.argv[0]).resolve()
    with contextlib.suppress(ValueError):
        script = script.relative_to(ROOT)
    return " ".join(["python", str(script), *sys.argv[1:]])


def write_fragment(
    name: str, body: str, *, regenerate: str | None = None, measured: dict[str, str] | None = None
) -> pathlib.Path:
    """Write ``body`` (reStructuredText) to ``fragments/NAME.rst`` under a stamp: this run's
    (:func:`stamp`), or ``measured`` where the numbers come from an earlier run that recorded
    its own date, machine and commit (an asv results file)."""
    fields = {**(measured or stamp()), "Regenerate": f"``{regenerate or command()}``"}
    head = "\n".join(f":{key}: {value}" for key, value in fields.items())
    path = FRAGMENTS / f"{name}.rst"
    path.parent.mkdir(parents=True, exist_ok=True)
    note = ".. Written by benchmarks/scripts/_report.py: regenerate it, do not edit it by hand."
    path.write_text(f"{note}\n\n{head}\n\n{body.rstrip()}\n", encoding="utf-8")
    return path


def literal(text: str) -> str:
    """``text`` as a literal block (a script's printed table, kept as printed)."""
    lines = [f"    {line}".rstrip() for line in text.strip("\n").splitlines()]
    return "::\n\n" + "\n".join(lines) + "\n"


class _Tee(io.TextIOBase):
    def __init__(self, stream: io.TextIOBase) -> None:
        self.stream, self.kept = stream, io.StringIO()

    def write(self, text: str) -> int:
        self.kept.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


@contextlib.contextmanager
def capture(name: str | None, **fields: str) -> Iterator[None]:
    """Print as usual; if ``name`` is given, write what was printed to ``fragments/NAME.rst``.

    ``fields`` fill the ``{placeholders}`` of ``name``. Nothing is written when the block
    raises: a fragment always holds a finished run.
    """
    if name is None:
        yield
        return
    name = name.format(**fields)
    tee = _Tee(sys.stdout)
    sys.stdout = tee
    try:
        yield
    finally:
        sys.stdout = tee.stream
    path = write_fragment(name, literal(tee.kept.getvalue()))
    print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)

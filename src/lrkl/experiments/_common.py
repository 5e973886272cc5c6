"""What every experiment shares: backend choice, a progress bar, tables and figure output."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

T = TypeVar("T")

BACKENDS = ("numpy", "torch", "cupy", "array_api_strict")


def add_backend_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--backend`` (the array library the experiment computes in)."""
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="numpy",
        help="array library to compute in (default: numpy)",
    )


def namespace(name: str) -> tuple[ModuleType, Any]:
    """The array namespace and device for ``--backend name``."""
    if name == "numpy":
        import array_api_compat.numpy as xp

        return xp, "cpu"
    if name == "torch":
        import array_api_compat.torch as xp

        return xp, "cpu"
    if name == "cupy":
        import array_api_compat.cupy as xp

        return xp, None
    import array_api_strict as xp

    return xp, xp.Device("CPU_DEVICE")


def progress(items: Iterable[T], total: int, label: str) -> Iterator[T]:
    """Yield ``items`` while drawing a one-line progress bar with elapsed time on stderr."""
    start = time.perf_counter()
    width = 30
    for done, item in enumerate(items):
        _draw(done, total, label, start, width)
        yield item
    _draw(total, total, label, start, width)
    sys.stderr.write("\n")


def _draw(done: int, total: int, label: str, start: float, width: int) -> None:
    filled = width * done // max(total, 1)
    bar = "#" * filled + "-" * (width - filled)
    elapsed = time.perf_counter() - start
    sys.stderr.write(f"\r{label} [{bar}] {done}/{total} {elapsed:6.1f}s")
    sys.stderr.flush()


def format_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain-text table with aligned columns (Markdown pipe syntax)."""
    cells = [[str(c) for c in header], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(r[j]) for r in cells) for j in range(len(header))]
    lines = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in cells
    ]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def output_dir(path: str) -> Path:
    """Create and return the experiment's output folder."""
    out = Path(path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def mean_std(values: Sequence[float]) -> str:
    """``mean ± std`` of ``values`` (population std), for tables."""
    n = len(values)
    mean = sum(values) / n
    std = (sum((v - mean) ** 2 for v in values) / n) ** 0.5
    return f"{mean:.4g} ± {std:.2g}"

"""What every experiment shares: backend choice, a progress bar, tables and figure output."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from tqdm import tqdm

from lrkl._backend import BACKEND_NAMES, BackendUnavailable, resolve_backend, synchronize

T = TypeVar("T")


def add_backend_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--backend`` (the array library the experiment computes in)."""
    parser.add_argument(
        "--backend",
        choices=BACKEND_NAMES,
        default="numpy",
        help="array library to compute in (default: %(default)s)",
    )


def add_datasets_argument(parser: argparse.ArgumentParser, names: Sequence[str], help: str) -> None:
    """Add ``--datasets`` (a subset of ``names``, all by default)."""
    parser.add_argument(
        "--datasets", nargs="+", choices=tuple(names), default=list(names), help=help
    )


def timed(xp: Any, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> tuple[T, float]:
    """``fn(*args, **kwargs)`` and its wall-clock seconds, the backend's queue drained (GPU work
    counted)."""
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    synchronize(xp)
    return out, time.perf_counter() - start


def namespace(name: str) -> tuple[ModuleType, Any]:
    """The array namespace and device for ``--backend name``; exits with the install line when
    the library is missing."""
    try:
        return resolve_backend(name)
    except BackendUnavailable as exc:
        raise SystemExit(f"lrkl: {exc}") from exc


def require_plotting() -> None:
    """Exit with the install line, before any work, when matplotlib (the figures) is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        msg = f"lrkl: the figures need matplotlib ({exc}); pip install 'lrkl[plot]'"
        raise SystemExit(msg) from exc


def progress(items: Iterable[T], total: int, label: str) -> Iterator[T]:
    """Yield ``items`` under a tqdm progress bar on stderr; silent when stderr is not a terminal
    (logs and CI get no carriage returns)."""
    yield from tqdm(items, total=total, desc=label, disable=None, file=sys.stderr)


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

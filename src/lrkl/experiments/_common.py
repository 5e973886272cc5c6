"""What every experiment shares: its run settings (backend, device, output folder), a progress
bar, tables and figure output."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from tqdm import tqdm

from lrkl._backend import (
    BACKEND_NAMES,
    BackendUnavailable,
    from_host,
    resolve_backend,
    synchronize,
)
from lrkl._typing import Array

T = TypeVar("T")


@dataclass(frozen=True)
class RunSettings:
    """What every step of one reproduction run needs, made once from its command line and
    passed down: the array library and device the data go to, ``--quick``, and the output
    folder. Each experiment extends it with its own options (one settings object per run)."""

    backend: str
    xp: ModuleType
    device: Any
    quick: bool
    out: Path

    @staticmethod
    def common(args: argparse.Namespace) -> dict[str, Any]:
        """The shared fields from the command line (exits with the install line when the
        backend's library is missing)."""
        xp, device = namespace(args.backend)
        return {
            "backend": args.backend,
            "xp": xp,
            "device": device,
            "quick": bool(args.quick),
            "out": Path(args.out),
        }

    def put(self, a: Any) -> Array:
        """Host data on the run's backend and device."""
        return from_host(a, xp=self.xp, device=self.device)

    def timed(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> tuple[T, float]:
        """:func:`timed` on the run's backend."""
        return timed(self.xp, fn, *args, **kwargs)


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

"""Write benchmarks of an asv results file into the documentation's performance section.

    cd benchmarks && asv run --python=same -b "KernelBlocks"
    python benchmarks/scripts/asv_fragment.py kernel_blocks "KernelBlocks" [REGEX ...]

The fragment (``docs/performance/fragments/NAME.rst``, see ``_report.py``) is a table of every
benchmark whose name matches one of the regular expressions, with each of its parameter
combinations, from the newest results file of ``benchmarks/results/`` (or ``--results FILE``);
its stamp is that run's: the date, the machine asv recorded and the commit it measured.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import pathlib
import re

from _report import ROOT, stamp, write_fragment
from asv.results import Results

RESULTS = ROOT / "benchmarks" / "results"
UNITS = {"seconds": ("s", [(1e-3, "ms"), (1e-6, "µs")]), "bytes": ("B", [(2**20, "MiB")])}


def _newest() -> pathlib.Path:
    files = [p for p in RESULTS.glob("*/*.json") if p.name != "machine.json"]
    if not files:
        raise SystemExit(f"no asv results under {RESULTS}: run asv first")
    return max(files, key=lambda p: p.stat().st_mtime)


def _value(value: float, unit: str) -> str:
    base, scaled = UNITS.get(unit, (unit, []))
    for factor, name in sorted(scaled, key=lambda pair: -pair[0]):
        if value < factor * 1000 and value >= factor:
            return f"{value / factor:.3g} {name}"
    return f"{value:.4g} {base}".strip()


def table(results: Results, benchmarks: dict, patterns: list[str]) -> str:
    """An RST list-table of the matching benchmarks' values (those that ran)."""
    rows = []
    for key in sorted(results.get_all_result_keys()):
        if not any(re.search(p, key) for p in patterns):
            continue
        params = results.get_result_params(key)
        names = benchmarks.get(key, {}).get("param_names", [])
        unit = benchmarks.get(key, {}).get("unit", "")
        combos = itertools.product(*params) if params else [()]
        for combo, value in zip(combos, results.get_result_value(key, params), strict=False):
            label = ", ".join(f"{n}={v.strip(chr(39))}" for n, v in zip(names, combo, strict=False))
            if value is None or value != value:
                continue  # skipped here (a backend that is not installed) or failed
            shown = _value(value, unit)
            rows.append(f"   * - ``{key.split('.', 1)[1]}``\n     - {label}\n     - {shown}")
    if not rows:
        raise SystemExit(f"no benchmark of the results matches {patterns}")
    head = ".. list-table::\n   :header-rows: 1\n\n   * - benchmark\n     - parameters\n"
    return head + "     - value\n" + "\n".join(rows) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("name", help="the fragment: docs/performance/fragments/NAME.rst")
    parser.add_argument("patterns", nargs="+", help="regular expressions of benchmark names")
    parser.add_argument("--results", type=pathlib.Path, default=None)
    args = parser.parse_args()
    path = args.results or _newest()
    results = Results.load(str(path))
    benchmarks = json.loads((RESULTS / "benchmarks.json").read_text(encoding="utf-8"))
    machine = json.loads((path.parent / "machine.json").read_text(encoding="utf-8"))
    started = [
        t for k, t in results.started_at.items() if any(re.search(p, k) for p in args.patterns)
    ]
    when = datetime.datetime.fromtimestamp(max(started) / 1000, datetime.timezone.utc)
    measured = {
        "Measured": f"{when:%Y-%m-%d %H:%M} UTC (asv, results ``{path.name}``)",
        # asv records the machine by name; its results live on the machine that ran them
        "Machine": f"asv machine {machine.get('machine', '?')}: {stamp()['Machine']}",
        "Commit": f"lrkl {results.commit_hash[:7]}",
    }
    patterns = " ".join(f'"{p}"' for p in args.patterns)
    regenerate = (
        f"cd benchmarks && asv run --python=same {' '.join(f'-b {p!r}' for p in args.patterns)}"
        f"; cd .. && python benchmarks/scripts/asv_fragment.py {args.name} {patterns}"
    )
    body = table(results, benchmarks, args.patterns)
    written = write_fragment(args.name, body, regenerate=regenerate, measured=measured)
    print(f"wrote {written.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

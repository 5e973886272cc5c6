"""Run asv benchmarks in one process with asv's own timing code (``asv_runner``).

    python benchmarks/scripts/asv_in_process.py "'cupy'" "'numpy'" --out results.json

For a machine lent for minutes (a GPU): ``asv run`` starts a process per parameter combination,
which there costs more than the benchmarks. The selection is ``asv run -b``'s (a regular
expression searched in ``name(param, ...)``), the timing ``asv_runner``'s with asv's defaults or
``--attr key=value`` (as ``asv run -a``). Left out, since one process cannot measure them:
``peakmem_`` and ``mem_`` benchmarks (a peak RSS shared by every combination) and benchmarks with
a ``setup_cache``. Prints one line per combination (the median and the range of the samples) and
writes them to ``--out`` as JSON.

    python benchmarks/scripts/asv_in_process.py --table "'cupy'" "'numpy'" results.json ...

prints, from such files, each combination of the first backend beside its counterpart of the
second and their ratio (the table of the docs' "On a GPU" page).

    python benchmarks/scripts/asv_in_process.py --versus BEFORE.json AFTER.json

prints every combination timed in both (two runs of one selection, e.g. at two commits with
``PYTHONPATH`` pointing at each one's ``src``): the minimum and median of each and the ratio of
the minima (after / before), slowest first. A side may be several files joined by commas (runs
alternated between the commits), whose samples are pooled.

    python benchmarks/scripts/asv_in_process.py --smoke "."

runs the first combination of every selected benchmark once (``peakmem_``, ``mem_`` and
``setup_cache`` benchmarks included): a check that the suite runs, in minutes, for CI; its
figures are not measurements. ``nox -s bench`` runs every combination.
"""

from __future__ import annotations

import argparse
import itertools
import json
import pathlib
import re
import statistics
import traceback

from asv_runner.discovery import disc_benchmarks, get_benchmark_from_name, update_sys_path

BENCHMARKS = pathlib.Path(__file__).resolve().parents[1] / "benchmarks"


def _selected(patterns, smoke=False):
    """(benchmark name, parameter index, label) for every combination a pattern matches; with
    ``smoke``, the first combination of every benchmark, memory and cached ones included."""
    update_sys_path(str(BENCHMARKS))
    for bench in disc_benchmarks(str(BENCHMARKS)):
        memory = bench.name.split(".")[-1].startswith(("peakmem_", "mem_"))
        if not smoke and (memory or bench.setup_cache_key):
            continue
        combos = itertools.product(*bench.params) if bench.params else [()]
        for idx, combo in enumerate(itertools.islice(combos, 1 if smoke else None)):
            label = f"{bench.name}({', '.join(combo)})"
            if any(re.search(p, label) for p in patterns):
                yield bench.name, (idx if bench.params else None), label


def _measure(name, idx, attrs, caches):
    """asv_runner's result for one combination: None when skipped, else a dict or a number.
    ``caches`` holds the ``setup_cache`` results by key, computed on first use."""
    bench_id = name if idx is None else f"{name}-{idx}"
    bench = get_benchmark_from_name(str(BENCHMARKS), bench_id, attrs)
    key = bench.setup_cache_key
    if key is not None and key not in caches:
        caches[key] = bench.do_setup_cache()
    bench.set_cache(caches.get(key))
    if bench.do_setup():
        return None
    try:
        return bench.do_run()
    finally:
        bench.do_teardown()


def _duration(seconds):
    """Seconds in the unit that gives at most three digits before the point."""
    for unit, scale in (("s", 1), ("ms", 1e3), ("µs", 1e6)):
        if seconds * scale >= 1:
            return f"{seconds * scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def _samples(paths):
    """``{combination: its samples}`` from files written by ``--out``, pooled over the files."""
    pooled = {}
    for path in paths:
        for row in json.loads(pathlib.Path(path).read_text()):
            if "samples" in row:
                pooled.setdefault(row["benchmark"], []).extend(row["samples"])
    return pooled


def table(first, second, paths):
    """Lines of the median time of each ``first`` combination beside its ``second``
    counterpart and their ratio (second / first), from files written by ``--out``."""
    medians = {label: statistics.median(t) for label, t in _samples(paths).items()}
    lines = []
    for label, seconds in medians.items():
        counterpart = medians.get(label.replace(first, second))
        if first not in label or counterpart is None:
            continue
        name = label.removeprefix("bench_").replace(f", {first}", "").replace(f"({first})", "()")
        lines.append(
            f"{name:<76s}{_duration(seconds):>8s}  {_duration(counterpart):>8s}"
            f"  {counterpart / seconds:9.2f}"
        )
    return lines


def versus(before, after):
    """Lines of each combination timed on both sides (comma-joined files, samples pooled):
    minima, medians, after / before minima, slowest first."""
    runs = [_samples(side.split(",")) for side in (before, after)]
    common = [label for label in runs[0] if label in runs[1]]
    rows = sorted(common, key=lambda label: -min(runs[1][label]) / min(runs[0][label]))
    lines = [f"{'combination':<90s}{'before':>9s}{'after':>9s}{'ratio':>7s}  (min; median)"]
    for label in rows:
        b, a = runs[0][label], runs[1][label]
        lines.append(
            f"{label.removeprefix('bench_'):<90s}{_duration(min(b)):>9s}{_duration(min(a)):>9s}"
            f"{min(a) / min(b):7.2f}  ({statistics.median(a) / statistics.median(b):.2f})"
        )
    ratios = sorted(min(runs[1][k]) / min(runs[0][k]) for k in common)
    lines.append(
        f"{len(common)} combinations; ratio of minima: median {statistics.median(ratios):.2f}, "
        f"best {ratios[0]:.2f}, worst {ratios[-1]:.2f}; above 1.10: "
        f"{sum(r > 1.10 for r in ratios)}"
    )
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("patterns", nargs="+", help="regular expressions, as asv run -b")
    parser.add_argument("--attr", "-a", action="append", default=[], help="key=value, as -a")
    parser.add_argument("--out", type=pathlib.Path, help="JSON file for the results")
    parser.add_argument(
        "--table", action="store_true", help="patterns are FIRST SECOND FILE...: compare them"
    )
    parser.add_argument(
        "--smoke", action="store_true", help="the first combination of each benchmark, once"
    )
    parser.add_argument(
        "--versus", action="store_true", help="patterns are BEFORE AFTER: compare two runs"
    )
    args = parser.parse_args(argv)
    if args.versus:
        print("\n".join(versus(*args.patterns)))
        return 0
    if args.table:
        first, second, *paths = args.patterns
        print("\n".join(table(first, second, paths)))
        return 0
    attrs = {k: json.loads(v) for k, v in (a.split("=", 1) for a in args.attr)}
    if args.smoke:  # asv run --quick's timing: one call, no warm-up
        attrs = {"number": 1, "repeat": 1, "warmup_time": 0, "min_run_count": 1, **attrs}
    rows, caches = [], {}
    # discovery first: a benchmark that imports a module lazily would change the module
    # dictionary discovery iterates over ("dictionary changed size during iteration")
    for name, idx, label in list(_selected(args.patterns, args.smoke)):
        try:
            result = _measure(name, idx, attrs, caches)
        except Exception:
            rows.append({"benchmark": label, "error": traceback.format_exc(limit=3)})
            print(f"{label}  FAILED\n{rows[-1]['error']}", flush=True)
            continue
        if isinstance(result, dict):
            samples = result["samples"]  # seconds per call, as asv records them
            rows.append({"benchmark": label, "samples": samples})
            print(
                f"{label}  {statistics.median(samples):.4g} s"
                f"  [{min(samples):.4g}–{max(samples):.4g}, {len(samples)} samples]",
                flush=True,
            )
        else:
            rows.append({"benchmark": label, "value": result})
            print(f"{label}  {'skipped' if result is None else result}", flush=True)
        if args.out:
            args.out.write_text(json.dumps(rows, indent=1))
    return int(any("error" in r for r in rows))


if __name__ == "__main__":
    raise SystemExit(main())

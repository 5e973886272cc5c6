"""Ratios after/before of two asv result files of different environments (``asv compare``
pairs only results of one environment): every benchmark and parameter combination present in
both, slowest first, flagged beyond ``--factor`` (1.10) by ``asv compare``'s own rule: the ratio
exceeds the factor and, where both runs have statistics (more than one sample), asv's test says
the two differ.

    python benchmarks/scripts/asv_pair_compare.py BEFORE.json AFTER.json [--factor 1.10]

Record samples (``asv run --record-samples``, ``--append-samples`` for runs that alternate the
commits) so that the test has them; without them it uses each run's 99 % interval.
"""

from __future__ import annotations

import argparse
import itertools

from asv import _stats
from asv.results import Results


def _paired(before: Results, after: Results):
    """(key, parameters, value before, after, stats before, after, samples before, after)."""
    for key in sorted(set(before.get_all_result_keys()) & set(after.get_all_result_keys())):
        params = before.get_result_params(key)
        columns = [
            getter(key, run.get_result_params(key))
            for getter_name in ("get_result_value", "get_result_stats", "get_result_samples")
            for run in (before, after)
            for getter in [getattr(run, getter_name)]
        ]
        combos = itertools.product(*params) if params else [()]
        for combo, *cells in zip(combos, *columns, strict=False):
            yield key, combo, *cells


def _differ(stats_b, stats_a, samples_b, samples_a) -> bool | None:
    """asv's test of a difference; None where either run has a single sample."""
    if not stats_b or not stats_a or 1 in (stats_b.get("repeat", 1), stats_a.get("repeat", 1)):
        return None
    return _stats.is_different(samples_b, samples_a, stats_b, stats_a)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--factor", type=float, default=1.10)
    args = parser.parse_args()
    rows = []
    for key, combo, b, a, stats_b, stats_a, samples_b, samples_a in _paired(
        Results.load(args.before), Results.load(args.after)
    ):
        if b is not None and a is not None and b == b and a == a and b > 0:
            differ = _differ(stats_b, stats_a, samples_b, samples_a)
            rows.append((a / b, differ, key, combo, b, a))
    rows.sort(key=lambda row: -row[0])
    print(f"{len(rows)} paired results; ratio after/before, slowest first")
    print("flag: beyond the factor and different by asv's test (or a single sample: unknown)")
    for ratio, differ, key, combo, b, a in rows:
        beyond = ratio > args.factor or ratio < 1 / args.factor
        word = "SLOWER" if ratio > 1 else "faster"
        flag = "" if not beyond or differ is False else word + ("?" if differ is None else "")
        test = {None: "1 sample", True: "differ", False: "same"}[differ]
        print(f"{ratio:6.2f} {flag:7s} {test:8s} {key}{combo}  {b:.4g} -> {a:.4g}")


if __name__ == "__main__":
    main()

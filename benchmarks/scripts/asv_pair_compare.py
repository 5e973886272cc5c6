"""Ratios after/before of two asv result files of different environments (``asv compare``
pairs only results of one environment): every benchmark and parameter combination present in
both, slowest first, flagged beyond 10 %.

    python benchmarks/scripts/asv_pair_compare.py BEFORE.json AFTER.json
"""

from __future__ import annotations

import itertools
import sys

from asv.results import Results


def main() -> None:
    before, after = Results.load(sys.argv[1]), Results.load(sys.argv[2])
    rows = []
    for key in sorted(set(before.get_all_result_keys()) & set(after.get_all_result_keys())):
        params = before.get_result_params(key)
        values = zip(
            itertools.product(*params) if params else [()],
            before.get_result_value(key, params),
            after.get_result_value(key, after.get_result_params(key)),
            strict=False,
        )
        for combo, b, a in values:
            if b is not None and a is not None and b == b and a == a and b > 0:
                rows.append((a / b, key, combo, b, a))
    rows.sort(key=lambda row: -row[0])
    print(f"{len(rows)} paired results; ratio after/before, slowest first")
    for ratio, key, combo, b, a in rows:
        flag = "SLOWER" if ratio > 1.10 else ("faster" if ratio < 1 / 1.10 else "")
        print(f"{ratio:6.2f} {flag:7s} {key}{combo}  {b:.4g} -> {a:.4g}")


if __name__ == "__main__":
    main()

"""Run ``lrkl reproduce NAME ...`` and write the tables it wrote into the documentation's
performance section: every ``*.md`` of its ``--out`` folder, as printed, in
``docs/performance/fragments/NAME_reproduce.rst`` under a stamp (``_report.py``).

    python benchmarks/scripts/reproduce_fragment.py krr --splits 1
    python benchmarks/scripts/reproduce_fragment.py lp-mkl --runs 1

The arguments after NAME go to ``lrkl reproduce NAME`` unchanged (``--out`` is this script's:
a temporary folder).
"""

from __future__ import annotations

import pathlib
import sys
import tempfile

import _report

from lrkl._cli import main as lrkl_main


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    name, arguments = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as out:
        status = lrkl_main(["reproduce", name, *arguments, "--out", out])
        if status:
            sys.exit(f"lrkl reproduce {name} failed ({status}); no fragment written")
        tables = sorted(pathlib.Path(out).glob("*.md"))
        body = "\n".join(
            f"``{table.name}``:\n\n{_report.literal(table.read_text(encoding='utf-8'))}"
            for table in tables
        )
    fragment = name.replace("-", "") + "_reproduce"
    path = _report.write_fragment(fragment, body)
    print(f"wrote {path.relative_to(_report.ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()

"""Cells of ``lrkl reproduce lp-mkl`` at the full run's sizes (run 0), computed at this tree, to
set beside the full run's fragment (``lpmkl_reproduce.rst``): whether the reproduction's figures
keep their shapes, without the full run's hours (Figure 6's interior point alone takes 20
minutes): cells of Figures 1–5 (an exact MKL among them), Figures 6 and 7 at their smallest n,
and the solvers table. Accuracies, objectives and counts only: seconds are the full run's to
report. About 6 minutes; LRKL_DATA must point at the data home (mushrooms).

    python benchmarks/scripts/lpmkl_reproduce_cells.py --rst
"""

from __future__ import annotations

import argparse
import dataclasses

import _report

from lrkl.experiments import lpmkl

#: (p, m, data set, R) of Figures 1–4, then m of Figure 5 (svmguide1, R = 100, p = 2).
SWEEP_CELLS = [
    (1.1, 20, "svmguide1", 10),
    (1.1, 20, "svmguide1", 25),
    (1.1, 20, "svmguide1", 50),
    (1.1, 20, "svmguide1", 100),
    (1.1, 20, "mushrooms", 25),
    (2.0, 50, "svmguide1", 10),
    (2.0, 50, "mushrooms", 50),
]
FIGURE5_KERNELS = (5, 10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    _report.add_rst_argument(parser, "lpmkl_reproduce_cells")
    args = parser.parse_args()
    reproduction = argparse.ArgumentParser()
    lpmkl.add_arguments(reproduction)
    reproduction.add_argument("--out", default="lrkl-lpmkl-cells")
    settings = lpmkl._settings(reproduction.parse_args(["--datasets", "svmguide1", "mushrooms"]))
    with _report.capture(args.rst):
        print("figures 1-4: p, m, data, R: test accuracy, weight updates")
        for p, m, name, R in SWEEP_CELLS:
            split = lpmkl._split(name, 0, settings.sizes)
            kernels = lpmkl.paper_kernels(m)
            fit = lpmkl._low_rank(split, kernels, R, p, lpmkl.C_PAPER, "gfb", 0, settings)
            print(f"  {p:<4} {m:<3} {name:<10} {R:<4} {fit['accuracy']:.4f} {fit['updates']}")
        split = lpmkl._split("svmguide1", 0, settings.sizes)
        exact = lpmkl._exact(split, lpmkl.paper_kernels(20), 1.1, lpmkl.C_PAPER, 4.0)
        print(f"  1.1  20  svmguide1  exact {exact['accuracy']:.4f}")
        print("figure 5 (svmguide1, R = 100, p = 2): m: low-rank test accuracy")
        for m in FIGURE5_KERNELS:
            kernels = lpmkl.paper_kernels(m)
            fit = lpmkl._low_rank(split, kernels, 100, 2.0, lpmkl.C_PAPER, "gfb", 0, settings)
            print(f"  {m:<3} {fit['accuracy']:.4f}")
        six = {"ip": {}, "naive": {}}
        smallest = settings.sizes._replace(solver_rows=settings.sizes.solver_rows[:1])
        lpmkl._problem_six(dataclasses.replace(settings, sizes=smallest), six, lambda: None)
        for figure, key in (("6", "ip"), ("7", "naive")):
            for n, row in six[key].items():
                for solver, fit in row.items():
                    counts = f"{fit['iterations']} it, obj {fit['objective']:.6g}"
                    print(f"figure {figure}, n = {n}, {solver}: {counts}")
        print("solvers inside the MKL loop: C, solver, test accuracy, weight updates")
        for C, solver, accuracy, _, updates in lpmkl._solver_table(settings):
            print(f"  {C:<5} {solver:<15} {accuracy} {updates}")


if __name__ == "__main__":
    main()

"""The slow end-to-end runs of ``lrkl reproduce NAME --quick`` (``nox -s tests_slow``), and the
command line's help."""

from __future__ import annotations

import pytest


@pytest.mark.slow
def test_reproduce_slkl_quick(tmp_path):
    from lrkl._cli import main
    from lrkl.datasets import get_data_home

    assert main(["reproduce", "slkl", "--quick", "--runs", "1", "--out", str(tmp_path)]) == 0
    table = (tmp_path / "table2.md").read_text(encoding="utf-8")
    for name in ("sinc", "boston", "abalone", "KRRn", "KRRM", "Unif", "SLKL", "m0", "(paper)"):
        assert name in table
    for figure in ("figure1_objective", "figure2_m0_vs_M", "figure3_m0_iterations"):
        assert (tmp_path / f"{figure}.png").stat().st_size > 1000
    # Table 3 needs USPS in the data home; without it the section is skipped, not failed.
    table3 = tmp_path / "table3.md"
    assert table3.exists() == (get_data_home() / "usps" / "usps.npz").exists()
    if table3.exists():
        text = table3.read_text(encoding="utf-8")
        for word in ("Nyst", "SLKL", "m0 per digit", "M=64 (lrkl)", "76.3 ± 9.9", "all 7291"):
            assert word in text
    assert not (tmp_path / "mnist.md").exists()  # §5.4 runs without --quick


@pytest.mark.slow
def test_reproduce_mklaren_quick(tmp_path):
    from lrkl._cli import main
    from lrkl.datasets import get_data_home

    sentiment = get_data_home() / "sentiment-blitzer"
    argv = ["reproduce", "mklaren", "--quick", "--out", str(tmp_path)]
    assert main(argv) == 0
    table1 = (tmp_path / "table1.md").read_text(encoding="utf-8")
    for word in ("mklaren", "csi", "icd", "nystrom", "uniform", "paper (mklaren)", "boston"):
        assert word in table1
    assert "paper (surviving cells)" in (tmp_path / "table2.md").read_text(encoding="utf-8")
    figures = ["figure4_timing"]
    if sentiment.is_dir():
        figures += ["figure3_sentiment", "figure5_kitchen"]
    for figure in figures:
        assert (tmp_path / f"{figure}.png").stat().st_size > 1000


@pytest.mark.slow
def test_reproduce_krr_quick(tmp_path):
    from lrkl._cli import main

    argv = ["reproduce", "krr", "--quick", "--datasets", "mpg", "triazines", "--out", str(tmp_path)]
    assert main(argv) == 0
    report = (tmp_path / "krr.md").read_text(encoding="utf-8")
    for word in ("RLS (7)", "RLS (8)", "TIKH", "CG", "sklearn KRR", "SVR", "mpg", "triazines"):
        assert word in report
    for claim in ("1. 'Regularization", "2. 'TIKH", "3. 'CG is always", "4. 'TIKH and CG"):
        assert claim in report
    for figure in ("krr_error_vs_lambda", "krr_error_vs_t"):
        assert (tmp_path / f"{figure}.png").stat().st_size > 1000


@pytest.mark.slow
def test_reproduce_lpmkl_quick(tmp_path):
    from lrkl._cli import main

    argv = ["reproduce", "lp-mkl", "--quick", "--datasets", "svmguide1", "--out", str(tmp_path)]
    assert main(argv) == 0
    report = (tmp_path / "lpmkl.md").read_text(encoding="utf-8")
    for word in ("Figures 1–4", "Figure 5", "Figure 6", "Figure 7", "liblinear", "svmguide1"):
        assert word in report
    assert "Figure 7, naive / split GFB time" in report
    for figure in ("figure1_p2", "figure3_p1.1", "figure5_kernels", "figure6_gfb_vs_ip"):
        assert (tmp_path / f"{figure}.png").stat().st_size > 1000
    assert (tmp_path / "figure7_split_vs_naive.png").stat().st_size > 1000


def test_lpmkl_report_keeps_what_a_stopped_run_measured():
    """The report is rewritten after each split and section: a run stopped after its first
    split still has that split's table, and says which sections it did not reach."""
    import dataclasses
    from pathlib import Path

    import array_api_compat.numpy as xp

    from lrkl.experiments.lpmkl import PENDING, QUICK, LpMKLSettings, _report

    settings = LpMKLSettings(
        backend="numpy", xp=xp, device=None, quick=True, out=Path("unused"), sizes=QUICK,
        exact_memory=1.0, names=("svmguide1",), missing=("adult",), with_ip=False,
    )  # fmt: skip
    alone = dataclasses.replace(settings, missing=())
    cell = {"n_train": 300, "exact": [{"accuracy": 0.9, "seconds": 1.0, "updates": 3}]}
    cell[10] = [{"accuracy": 0.8, "seconds": 0.5, "updates": 7, "gap": 0.25}]
    parts = {"results": {(2.0, 10, "svmguide1"): cell}}
    report = _report(parts, settings)
    assert "| 2 | 10 | svmguide1 | 300     | 0.9 ± 0   | 1 ± 0   | 0.8 ± 0  |" in report
    assert "| 7            | 0.25     |" in report
    assert report.count(PENDING) == 4  # Figures 5, 6, 7 and the solvers table
    assert "skipped: adult" in report
    assert _report({"results": {}}, alone).count(PENDING) == 5
    solve = {"seconds": 0.25, "objective": -9.5, "iterations": 40}
    parts["six"] = {"ip": {200: {"gfb": solve}}, "naive": {}}  # stopped within Figure 7
    report = _report(parts, alone)
    assert "0.25 (40 it, obj -9.5)" in report and report.count(PENDING) == 3


def test_prato_zanni_data_sets_have_the_papers_sizes():
    from lrkl.datasets import PRATO_ZANNI_DATASETS, load_prato_zanni

    sizes = {
        "abalone": (4177, 8),
        "bodyfat": (252, 14),
        "cpusmall": (8192, 12),
        "housing": (506, 13),
        "mg": (1385, 6),
        "mpg": (392, 7),
        "space_ga": (3107, 6),
        "triazines": (186, 60),
    }
    assert tuple(PRATO_ZANNI_DATASETS) == tuple(sizes)
    for name, shape in sizes.items():
        data = load_prato_zanni(name)
        assert data.X.shape == shape and data.y.shape == (shape[0],)
        assert data.n_train + data.n_test == shape[0]
        assert abs(data.n_train - 2 * shape[0] / 3) < 1
        assert abs(data.X.mean(axis=0)).max() < 1e-10
    with pytest.raises(ValueError, match="name must be one of"):
        load_prato_zanni("boston")


def test_each_option_help_states_its_default_once(capsys):
    """The help appended "(default: None)" and a second default to options whose help gave
    theirs ("(default: 20, as in the paper; 2 with --quick) (default: None)")."""
    from lrkl._cli import EXPERIMENTS, main

    for name in EXPERIMENTS:
        with pytest.raises(SystemExit):
            main(["reproduce", name, "--help"])
        flat = " ".join(capsys.readouterr().out.split())
        assert "(default: None)" not in flat, name
        for option_help in flat.split(" --"):
            assert option_help.count("default:") <= 1, (name, option_help)

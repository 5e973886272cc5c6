"""The slow end-to-end runs of ``lrkl reproduce NAME --quick`` (``nox -s tests_slow``)."""

from __future__ import annotations

import pytest


@pytest.mark.slow
def test_reproduce_slkl_quick(tmp_path):
    from lrkl._cli import main

    assert main(["reproduce", "slkl", "--quick", "--runs", "1", "--out", str(tmp_path)]) == 0
    table = (tmp_path / "table2.md").read_text(encoding="utf-8")
    for name in ("sinc", "boston", "abalone", "KRRn", "KRRM", "Unif", "SLKL", "m0", "(paper)"):
        assert name in table
    for figure in ("figure1_objective", "figure2_m0_vs_M", "figure3_m0_iterations"):
        assert (tmp_path / f"{figure}.png").stat().st_size > 1000


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

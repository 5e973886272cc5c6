"""The layers of docs/contributing (DESIGN): each module imports only from the layers below it."""

from __future__ import annotations

import ast
import pathlib

import pytest

import lrkl

SRC = pathlib.Path(lrkl.__file__).parent

#: Packages above the kernels and low-rank factors: solvers and estimators of each family.
FAMILIES = ("alignment", "kernel_ridge", "lpmkl", "mklaren", "slkl", "experiments")


def _imported_modules(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


#: The backend (``_backend``, ``_linalg``, ...), the kernels and the low-rank factors. Not here:
#: ``_cli`` and ``__main__`` (the experiments' entry) and ``_base`` (the estimators' bases).
ENTRY_POINTS = ("__init__.py", "__main__.py", "_cli.py", "_base.py")
LOWER = [
    SRC / "kernels.py",
    *sorted((SRC / "lowrank").glob("*.py")),
    *sorted(p for p in SRC.glob("_*.py") if p.name not in ENTRY_POINTS),
]


def _families(imports: set[str]) -> list[str]:
    return sorted(
        m for m in imports for f in FAMILIES if m == f"lrkl.{f}" or m.startswith(f"lrkl.{f}.")
    )


@pytest.mark.parametrize("path", LOWER, ids=lambda p: str(p.relative_to(SRC)))
def test_kernels_lowrank_and_backend_import_no_family(path):
    """kernels, lowrank and the backend sit below every family: an import up the layers made a
    cycle (lowrank → kernel_ridge → lowrank) that only the order of imports in lrkl/__init__
    hid. lowrank/__init__ imports lrkl.alignment lazily, for its deprecated aliases only."""
    up = _families(_imported_modules(path))
    if path == SRC / "lowrank" / "__init__.py":
        up = [m for m in up if m != "lrkl.alignment"]
    assert up == [], f"{path.relative_to(SRC)} imports {up} from above its layer"

"""The layers of docs/contributing (DESIGN): each module imports only from the layers below it."""

from __future__ import annotations

import ast
import pathlib
import re

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


def _public_solver_functions() -> dict[str, str]:
    """Public functions of the family packages that have a private core ``_name``: name → the
    module that defines them."""
    import importlib
    import inspect

    found = {}
    for package in ("lowrank", "kernel_ridge", "lpmkl", "alignment", "slkl", "mklaren"):
        module = importlib.import_module(f"lrkl.{package}")
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                home = importlib.import_module(obj.__module__)
                if hasattr(home, f"_{name}"):
                    found[name] = obj.__module__
    return found


def _calls(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.id if isinstance(func, ast.Name) else getattr(func, "attr", ""))
    return names


def test_the_library_calls_solver_cores_not_their_validating_wrappers():
    """Validation happens once, at the public door (issue 33, class 11): inside lrkl, a public
    solver-level function is only called by users (the experiments); the estimators and other
    solvers call its private core."""
    wrappers = _public_solver_functions()
    assert len(wrappers) >= 15  # the set this test guards (solve_lp_mkl, icd, solve_dual, ...)
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if "experiments" in path.parts:
            continue
        for name in sorted(_calls(path) & set(wrappers)):
            defining = SRC / (wrappers[name].removeprefix("lrkl.").replace(".", "/") + ".py")
            if path != defining:  # a wrapper's own module (its docstring examples, its core)
                offenders.append(f"{path.relative_to(SRC)} calls {name}")
    assert offenders == []


def test_every_public_solver_function_has_a_private_core():
    import importlib
    import inspect

    without = []
    for package in ("lowrank", "kernel_ridge", "lpmkl", "alignment", "slkl", "mklaren"):
        module = importlib.import_module(f"lrkl.{package}")
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj) and not hasattr(
                importlib.import_module(obj.__module__), f"_{name}"
            ):
                without.append(f"lrkl.{package}.{name}")
    assert without == []


#: The only modules that know Dask exists (issue 34): the executor and the backend.
LAZY_AWARE = ("_executor.py", "_backend.py")
DASK_WORDS = ("is_dask_array", ".chunks", ".blocks[", "to_delayed", "._meta", "dask_compute")
#: The executor's own flag: a branch on it elsewhere is a branch on the kind of array.
LAZY_FLAG = re.compile(r"\.lazy\b")


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_only_the_executor_and_the_backend_know_dask(path):
    """Every row pass is written once against lrkl._executor: outside it and the backend no
    module imports dask, touches a Dask array's chunks or branches on the kind of array."""
    if path.relative_to(SRC).as_posix() in LAZY_AWARE:
        return
    imports = _imported_modules(path)
    assert not [m for m in imports if m == "dask" or m.startswith("dask.")]
    text = path.read_text(encoding="utf-8")
    assert [w for w in DASK_WORDS if w in text] == []
    assert not LAZY_FLAG.findall(text)


#: Where lrkl may ask which array library it runs on: the executor, the backend, the linalg shim
#: and the host threads' chunk planner (NumPy chunked on lrkl's threads, a GPU block whole).
KIND_AWARE = ("_executor.py", "_backend.py", "_linalg.py", "_threads.py")
KIND_TEST = re.compile(r"\bis_[a-z_]+_(?:namespace|array)\b|\bon_host_numpy\b|\b_kind\(")


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_only_the_backend_layer_branches_on_the_array_library(path):
    """An algorithm is written once against the array API: the kernels, factors and families
    never test which library (NumPy, CuPy, torch, Dask) holds their arrays."""
    if path.relative_to(SRC).as_posix() in KIND_AWARE:
        return
    assert KIND_TEST.findall(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_no_module_exceeds_700_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 700


def test_kernel_ridge_dispatches_its_methods_through_the_registry():
    """KernelRidge, KernelRidgeCV and the path functions choose Prato & Zanni's regularisation
    once, by KERNEL_RIDGE_METHODS[method]: no module of kernel_ridge compares a method name."""
    from lrkl.kernel_ridge import KERNEL_RIDGE_METHODS, KERNEL_RIDGE_SOLVERS

    assert set(KERNEL_RIDGE_METHODS) == {"rls", "tikhonov", "cg"}
    assert set(KERNEL_RIDGE_SOLVERS) == {"cholesky", "eigh"}  # its own meaning, unchanged
    for path in sorted((SRC / "kernel_ridge").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                names = [node.left, *node.comparators]
                attrs = [
                    n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", "") for n in names
                ]
                assert "method" not in attrs, f"{path.name}:{node.lineno} compares a method name"

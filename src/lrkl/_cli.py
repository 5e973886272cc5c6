"""The ``lrkl`` console command (also ``python -m lrkl``): ``lrkl reproduce EXPERIMENT
[options]`` and ``lrkl --version``.

Each experiment is a module of ``lrkl.experiments`` with ``DESCRIPTION``,
``add_arguments(parser)`` and ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from importlib.metadata import PackageNotFoundError, version

#: Experiment name on the command line: its module in ``lrkl.experiments``.
EXPERIMENTS = {"slkl": "slkl", "mklaren": "mklaren", "krr": "krr", "lp-mkl": "lpmkl"}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``lrkl`` command, one sub-command per experiment."""
    parser = argparse.ArgumentParser(prog="lrkl", description="Low-rank kernel learning.")
    parser.add_argument("--version", action="version", version=f"lrkl {_version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    reproduce = commands.add_parser("reproduce", help="regenerate a paper's tables and figures")
    experiments = reproduce.add_subparsers(dest="experiment", required=True)
    for name, module_name in EXPERIMENTS.items():
        module = importlib.import_module(f"lrkl.experiments.{module_name}")
        sub = experiments.add_parser(
            name,
            help=module.DESCRIPTION,
            description=module.DESCRIPTION,
            formatter_class=_HelpFormatter,
        )
        sub.add_argument("--out", default=f"lrkl-{name}", help="folder for tables and figures")
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Each option's default after its help, unless the help says it already or it is None
    (the help printed "(default: 20, ...) (default: None)")."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default:" in text or action.default is None:
            return text
        return super()._get_help_string(action)


def _version() -> str:
    try:
        return version("lrkl")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "unknown (not installed)"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``lrkl`` console command."""
    args = build_parser().parse_args(argv)
    return int(args.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())

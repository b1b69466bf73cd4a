"""``boardzoo bench``: the speed figures."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from boardzoo.cli.common import add_command
from boardzoo.speed import run_benchmarks

if TYPE_CHECKING:
    from boardzoo.cli.common import Commands


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = add_command(commands, "bench", "print the speed figures")
    parser.add_argument("--quick", action="store_true", help="smaller counts")
    return parser


def run(args: argparse.Namespace) -> int:
    run_benchmarks(quick=args.quick)
    return 0

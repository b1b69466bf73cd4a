"""``boardzoo agents``: the agents and their options."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from boardzoo.agents.descriptions import format_agents
from boardzoo.cli.common import add_command

if TYPE_CHECKING:
    from boardzoo.cli.common import Commands


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = add_command(commands, "agents", "list the agents and their options")
    parser.add_argument(
        "name", nargs="?", help="an agent's name: show its options in full (default: all agents)"
    )
    return parser


def run(args: argparse.Namespace) -> int:
    print(format_agents(args.name))
    return 0

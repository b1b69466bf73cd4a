"""A game defined outside the package joins the catalog and plays everywhere.

``three_in_a_row`` (``tests/line_game.py`` and its kernels) is registered at run time; the whole
catalog battery runs on it in ``test_catalog.py``. Here: what registration checks, facts from
outside the code on its 3x3 board (which is TicTacToe: 5,478 positions, 255,168 games, of which
131,184 are won by the first player, 77,904 by the second and 46,080 drawn), the perfect play
of the exhaustive reference, and the parts that cross processes (the arena's spawned workers
and the ``boardzoo`` command, which learn the game from the environment variable).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from conftest import TEST_GAME
from reference_tictactoe import ttt_value

from boardzoo.agents import AlphaBetaAgent
from boardzoo.agents.puct import PUCTAgent
from boardzoo.agents.settings import Budget
from boardzoo.cli import main
from boardzoo.games import TicTacToeState, catalog
from boardzoo.games.kernel_state import KernelState
from boardzoo.speed import perft

TESTS = Path(__file__).parent


def test_registration_names_the_game_everywhere(register_test_game):
    assert register_test_game.name == TEST_GAME
    assert TEST_GAME in catalog.game_names() and catalog.get_game(TEST_GAME) is register_test_game
    assert os.environ[catalog.GAMES_VARIABLE] == "line_game"
    assert catalog.register_game("line_game") is register_test_game  # again: no change
    game = catalog.make_game(TEST_GAME, size=5)
    assert (game.rows, game.cols, game.num_actions, game.pass_action) == (5, 5, 25, None)
    with pytest.raises(ValueError, match=r"size must be one of \[3, 4, 5\], got 6"):
        catalog.make_game(TEST_GAME, size=6)


def test_registration_refuses_what_is_not_a_game(register_test_game):
    with pytest.raises(ValueError, match="cannot register game module 'no_such_module'"):
        catalog.register_game("no_such_module")
    with pytest.raises(ValueError, match="SPEC"):
        catalog.register_game("reference_tictactoe")  # a module without a GameSpec
    with pytest.raises(ValueError, match=r"unknown game 'four_in_a_row'.*three_in_a_row"):
        catalog.get_game("four_in_a_row")


def _tictactoe(state: KernelState) -> TicTacToeState:
    return TicTacToeState(*state.bitboards())


def test_on_3x3_it_is_tictactoe(register_test_game):
    game = catalog.make_game(TEST_GAME, size=3)
    assert perft(game, 9) == 255_168  # the number of TicTacToe games
    positions: set[KernelState] = set()
    frontier = [game.initial_state()]
    while frontier:
        state = frontier.pop()
        if state in positions:
            continue
        positions.add(state)
        frontier += [state.apply(a) for a in state.legal_actions()]
    assert len(positions) == 5_478  # TicTacToe's legal positions

    @cache
    def games(state: KernelState) -> tuple[int, int, int]:
        """Games from here won by the first player, by the second, drawn."""
        if state.is_terminal():
            return {0: (1, 0, 0), 1: (0, 1, 0), None: (0, 0, 1)}[state.winner]
        ends = [games(state.apply(a)) for a in state.legal_actions()]
        return tuple(int(x) for x in np.sum(ends, axis=0))

    assert games(game.initial_state()) == (131_184, 77_904, 46_080)
    for state in positions:  # the reference's value of every position
        if state.is_terminal():
            continue
        best = max(-ttt_value(_tictactoe(state.apply(a))) for a in state.legal_actions())
        assert best == ttt_value(_tictactoe(state))


def test_search_agents_play_it_perfectly(register_test_game):
    """On 3x3, alpha-beta to the end and PUCT with playouts never lose to each other."""
    game = catalog.make_game(TEST_GAME, size=3)
    agents = (AlphaBetaAgent(depth=9, seed=0), PUCTAgent(budget=Budget(simulations=1000), seed=0))
    for first in (0, 1):
        state = game.initial_state()
        while not state.is_terminal():
            player = agents[(state.current_player + first) % 2]
            if player is agents[0]:  # the exact player keeps the value of every position
                before = ttt_value(_tictactoe(state))
            state = state.apply(player.act(state))
            if player is agents[0] and not state.is_terminal():
                assert -ttt_value(_tictactoe(state)) == before
        assert state.winner is None  # perfect play draws


def test_the_command_line_takes_its_options_and_spawned_workers_know_the_game(
    register_test_game, tmp_path, capsys
):
    out = tmp_path / "games.jsonl"
    args = ["arena", TEST_GAME, "alphabeta:depth=2", "random", "--games", "4", "--workers", "2"]
    # the worker processes play the agents themselves (agents' processes, spawned with the game
    # known from the environment: test_a_boardzoo_command_finds_it_through_the_environment)
    flags = ["--option", "size=5", "--out", str(out), "--no-progress", "--no-isolate"]
    assert main([*args, *flags]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 4 and all(r["game"] == TEST_GAME for r in records)
    assert all(r["options"] == {"size": 5} for r in records)
    assert main(["replay", str(out), "--game", "1", "--ui", "text", "--delay", "0"]) == 0
    assert "X" in capsys.readouterr().out
    assert main([*args, "--option", "size=7", "--no-progress"]) == 2
    assert "size must be one of [3, 4, 5], got 7" in capsys.readouterr().err


def test_a_boardzoo_command_finds_it_through_the_environment(tmp_path):
    env = dict(os.environ, BOARDZOO_GAMES="line_game")
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "boardzoo", "arena", TEST_GAME, "greedy", "random"]
    done = subprocess.run(
        [*command, "--games", "2", "--no-progress"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,  # its records go to runs/ there
    )
    assert done.returncode == 0, done.stderr
    assert "greedy" in done.stdout

"""The models shipped inside the package, checked against facts from outside the network."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from boardzoo.agents import AlphaZeroAgent, make_agent
from boardzoo.agents.alphazero import shipped_model, shipped_name
from boardzoo.agents.settings import Budget
from boardzoo.games.catalog import make_game
from boardzoo.games.tictactoe import TicTacToeState

pytestmark = pytest.mark.torch


def move_value(state: TicTacToeState, action: int) -> int:
    """+1 / 0 / -1 for the player to move of playing ``action``, then perfect play."""
    after = state.apply(action)
    if after.is_terminal():
        return 0 if after.winner is None else (1 if after.winner == state.current_player else -1)
    return -exact_value(after)


@functools.cache
def exact_value(state: TicTacToeState) -> int:
    """+1 / 0 / -1 for the player to move (in a game not over) under perfect play: a plain
    negamax, written here."""
    return max(move_value(state, action) for action in state.legal_actions())


def drawn_openings(plies: int) -> list[tuple[int, ...]]:
    """Every move sequence of up to ``plies`` plies after which the game is still a draw."""
    found, frontier = [], [((), TicTacToeState.initial())]
    for depth in range(plies + 1):
        found += [moves for moves, state in frontier if exact_value(state) == 0]
        if depth < plies:
            frontier = [((*m, a), s.apply(a)) for m, s in frontier for a in s.legal_actions()]
    return found


def test_tictactoe_is_shipped_and_az_without_a_model_picks_it(tmp_path, monkeypatch):
    game = make_game("tictactoe")
    assert shipped_name(game) == "tictactoe" and shipped_model("tictactoe") is not None
    agent = make_agent("az:simulations=50")
    assert agent.act(game.initial_state()) in game.initial_state().legal_actions()
    monkeypatch.setattr("boardzoo.agents.alphazero.SHIPPED_MODELS_DIR", tmp_path)  # none there
    with pytest.raises(ValueError, match="no shipped model for"):
        AlphaZeroAgent(budget=Budget(simulations=10)).prepare(make_game("reversi", board_size=4))


def test_the_shipped_tictactoe_model_never_loses_to_a_perfect_player():
    """From every drawn opening of up to 2 plies, both sides, the perfect player choosing at
    random among its optimal moves: 100 simulations lose no game."""
    game = make_game("tictactoe")
    agent = make_agent("az:simulations=100", seed=0)
    agent.prepare(game)
    rng = np.random.default_rng(0)
    games = losses = 0
    for moves in drawn_openings(2):
        for model_side in (0, 1):
            state = TicTacToeState.initial()
            for move in moves:
                state = state.apply(move)
            while not state.is_terminal():
                if state.current_player == model_side:
                    action = agent.act(state)
                else:
                    best = exact_value(state)
                    optimal = [a for a in state.legal_actions() if move_value(state, a) == best]
                    action = int(rng.choice(optimal))
                state = state.apply(action)
            games += 1
            losses += state.winner is not None and state.winner != model_side
    assert exact_value(TicTacToeState.initial()) == 0  # a known fact: TicTacToe is a draw
    assert games == 68
    assert losses == 0


@pytest.mark.parametrize(
    ("name", "options"), [("connect_four", {}), ("reversi", {"board_size": 4}),
                          ("reversi", {"board_size": 6}), ("reversi", {"board_size": 8})],
)  # fmt: skip
def test_shipped_models_beat_a_random_player(name, options):
    """Each shipped model of the larger games, picked by ``az`` with no model: at 16
    simulations it wins every game against uniformly random moves, either side."""
    game = make_game(name, **options)
    assert shipped_model(shipped_name(game)) is not None
    agent = make_agent("az:simulations=16", seed=0)
    agent.prepare(game)
    rng = np.random.default_rng(1)
    for model_side in (0, 1, 0, 1):
        agent.reset()
        state = game.initial_state()
        while not state.is_terminal():
            if state.current_player == model_side:
                action = agent.act(state)
            else:
                action = int(rng.choice(state.legal_actions()))
            state = state.apply(action)
        assert state.winner == model_side

"""``solver``, the perfect player, against facts from outside the code.

- TicTacToe is a draw with perfect play (known since the game was first analysed): two perfect
  players draw, and a perfect player never loses to anyone.
- Reversi 4x4: the second player wins, 11-3 with two squares left empty (a known result, also
  checked in ``test_solve.py``): the perfect first player loses by 10 to the perfect second
  one, and the second player never loses.
- Connect Four: every move it plays has the best score of a plain negamax over the reference
  rules (``test_connect_four_solver.reference_score``), on positions near the end.
"""

from __future__ import annotations

import pytest
import reference_connect_four as ref
from test_connect_four_solver import random_positions, reference_score

from boardzoo.agents import RandomAgent, SolverAgent, make_agent
from boardzoo.games.catalog import make_game
from boardzoo.games.reversi import ReversiState


def play(game_name: str, first, second, **options) -> tuple[float, float]:
    """One game between two agents acting on states; the returns."""
    state = make_game(game_name, **options).initial_state()
    agents = (first, second)
    while not state.is_terminal():
        state = state.apply(agents[state.current_player].act(state))
    return state.returns()


def test_perfect_tictactoe_draws_itself_and_never_loses():
    assert play("tictactoe", SolverAgent(), SolverAgent()) == (0.0, 0.0)
    for seed in range(10):
        assert (
            play("tictactoe", SolverAgent(ties="random", seed=seed), RandomAgent(seed=seed))[0] >= 0
        )
        assert play("tictactoe", RandomAgent(seed=seed), SolverAgent(seed=seed))[1] >= 0


def test_perfect_reversi_4x4_second_player_wins_by_ten():
    state = make_game("reversi", board_size=4).initial_state()
    while not state.is_terminal():
        state = state.apply(SolverAgent().act(state))
    assert isinstance(state, ReversiState)
    black, white = state.black.bit_count(), state.white.bit_count()
    assert white - black + (16 - black - white) == 10  # the empty squares go to the winner
    for seed in range(3):
        assert play("reversi", RandomAgent(seed=seed), SolverAgent(), board_size=4)[1] == 1.0


def test_connect_four_moves_keep_the_best_score():
    agent = make_agent("solver")
    for state, board in random_positions(15, 6, 10, seed=21):
        player = ref.to_move(board)
        want = {c: -reference_score(ref.drop(board, c, player)) for c in ref.legal_columns(board)}
        assert want[agent.act(state)] == max(want.values())


def test_random_ties_are_best_moves_and_seeded():
    state = make_game("tictactoe").initial_state()  # every first move draws
    picks = [SolverAgent(ties="random", seed=seed).act(state) for seed in range(8)]
    assert len(set(picks)) > 1
    assert picks == [SolverAgent(ties="random", seed=seed).act(state) for seed in range(8)]


def test_positions_beyond_the_solver_are_refused_or_left_to_the_engine():
    game = make_game("reversi")
    with pytest.raises(ValueError, match="its start has 60 empty squares, more than max_empties"):
        SolverAgent().check_game(game)
    SolverAgent(fallback="engine").check_game(game)
    SolverAgent().check_game(make_game("reversi", board_size=4))
    state = game.initial_state()
    with pytest.raises(ValueError, match="position has 60 empty squares"):
        SolverAgent().act(state)
    engine_move = SolverAgent(fallback="engine", time_limit=0.2, seed=0).act(state)
    assert engine_move in state.legal_actions()
    for bad, message in (
        ({"fallback": "mcts"}, "fallback must be one of none, engine"),
        ({"ties": "all"}, "ties must be one of first, random"),
        ({"max_empties": -1}, "max_empties=-1 is not allowed"),
        ({"time_limit": 0}, "time_limit=0 is not allowed"),
    ):
        with pytest.raises(ValueError, match=message):
            SolverAgent(**bad)

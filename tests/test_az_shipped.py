"""The models shipped inside the package, checked against facts from outside the network."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from boardzoo.agents import AlphaZeroAgent, make_agent
from boardzoo.agents.alphabeta import AlphaBetaAgent
from boardzoo.agents.alphazero import shipped_model, shipped_name
from boardzoo.agents.settings import Budget
from boardzoo.games.catalog import make_game
from boardzoo.games.connect_four import ConnectFourState
from boardzoo.games.reversi import ReversiState
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
    """From the empty board and every first move, both sides, the perfect player choosing at
    random among its optimal moves: 100 simulations lose no game. From every drawn opening of up
    to 2 plies (68 games): ``python benchmarks/az_tictactoe.py --simulations 100 --repeats 1``
    (docs/guides/benchmarks.md, Playing strength)."""
    game = make_game("tictactoe")
    agent = make_agent("az:simulations=100", seed=0)
    agent.prepare(game)
    rng = np.random.default_rng(0)
    games = losses = 0
    for moves in drawn_openings(1):
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
    assert games == 20
    assert losses == 0


# Hand-checked positions of the larger shipped games, each with its best move: in Connect Four
# red (X) wins at once only in column d, and yellow (O) loses at once unless it blocks column d;
# in Reversi the player to move takes the corner a1 rather than flip more discs elsewhere, as
# black (X) and, colours swapped, as white (on 4x4 the corner is the only winning move: the test
# checks it with the exact solver).
C4_WIN = ". . . . . . .\n. . . . . . .\n. . . . . . .\n. . . . . . .\nO O O . . . .\nX X X . . . ."
C4_BLOCK_COLUMN = (
    ". . . . . . .\n. . . . . . .\n. . . . . . .\n. . . X . . .\n. . . X . . .\nO O . X . . ."
)
C4_BLOCK_DIAGONAL = (
    ". . . . . . .\n. . . . . . .\n. . . . . . .\n. . X O . . .\n. X O X . . .\nX O O X . . ."
)
REVERSI_CORNER = {
    4: ". O X .\n. O X .\n. O X .\n. . . .",
    6: ". O X . . .\n. . . . . .\n. . . . . .\nX O O O . .\n. . . . . .\n. . . . . .",
    8: ". O X . . . . .\n. . . . . . . .\n. . . . . . . .\n. . . . . . . .\n"
    "X O O O O O . .\n. . . . . . . .\n. . . . . . . .\n. . . . . . . .",
}


def best_move_positions(game) -> list[tuple[object, int]]:
    """``(state, best action)`` for the hand-checked positions of ``game``."""
    if game.name == "connect_four":
        texts = (C4_WIN, C4_BLOCK_COLUMN, C4_BLOCK_DIAGONAL)
        return [(ConnectFourState.from_text(text), 3) for text in texts]
    text = REVERSI_CORNER[game.options["board_size"]]
    black = ReversiState.from_text(text)
    white = ReversiState.from_text(text.translate(str.maketrans("XO", "OX")), current_player=1)
    return [(black, game.parse_action("a1")), (white, game.parse_action("a1"))]


def exact_winning_moves(state) -> list[int]:
    """The moves after which the player to move wins with perfect play (the exact solver)."""
    solver, mover, winning = AlphaBetaAgent(exact_empties=64, seed=0), state.current_player, []
    for action in state.legal_actions():
        after = state.apply(action)
        if after.is_terminal():
            won = after.winner == mover
        else:
            score = solver.search(after).score  # for the player to move after it
            won = score > 0 if after.current_player == mover else score < 0
        if won:
            winning.append(action)
    return winning


@pytest.mark.parametrize(
    ("name", "options"), [("connect_four", {}), ("reversi", {"board_size": 4}),
                          ("reversi", {"board_size": 6}), ("reversi", {"board_size": 8})],
)  # fmt: skip
def test_shipped_models_know_the_best_moves_and_play_legal_games(name, options):
    """Each shipped model of the larger games, picked by ``az`` with no model and searching
    without the exact solver's handover: its policy puts most of its weight on the best move of
    each hand-checked position, its search plays it, and it plays a whole game against random
    moves legally. Its score against random moves over many games is a figure: ``python
    benchmarks/bench_strength.py --game connect_four --pairing "az:simulations=16 vs random"
    --games 20`` (and ``--game reversi --board-size N``; docs/guides/benchmarks.md, Playing
    strength)."""
    game = make_game(name, **options)
    assert shipped_model(shipped_name(game)) is not None
    agent = make_agent("az:simulations=16,exact_empties=0,solve_empties=0", seed=0)
    agent.prepare(game)
    for state, best in best_move_positions(game):
        if options.get("board_size") == 4:
            assert exact_winning_moves(state) == [best]
        info = agent.search(state)
        prior = {move.action: move.prior for move in info.moves}
        assert prior[best] > 0.9 and info.action == best, prior
    agent.reset()
    state, rng = game.initial_state(), np.random.default_rng(1)
    while not state.is_terminal():
        if state.current_player == 0:
            action = agent.act(state)
        else:
            action = int(rng.choice(state.legal_actions()))
        assert state.is_legal(action)
        state = state.apply(action)

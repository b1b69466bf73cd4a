"""The handover from search to the exact solver: at the root (MCTS, AlphaZero's search, the
engine) and inside the tree (the one loop, UCT's and AlphaZero's rules).

Checked against outside facts: the plain Python negamax over the Reversi rules of
``reference_reversi`` (exact scores, every move's score) and the TicTacToe minimax of
``reference_tictactoe``.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from reference_reversi import RefGame
from reference_tictactoe import ttt_value
from test_solve import _to_state, random_endgames, reference_move_scores, reference_score

from boardzoo.agents import MCTSAgent, PUCTAgent, make_agent
from boardzoo.agents.settings import Budget, Endgame
from boardzoo.games import ReversiState, TicTacToeState, make_game
from boardzoo.games.spec import DRAW, LOSS, WIN
from boardzoo.gametree.solve import solve
from boardzoo.search.batched import BatchedSearch, BatchedSearchSettings
from boardzoo.search.driver import TreeSearch
from boardzoo.search.evaluators import CallbackEvaluator
from boardzoo.search.handover import default_empties, solve_root
from boardzoo.search.options import Rules

SOLVED = 2  # tree.terminal of a node the solver proved


def _code_for_player0(score: int, player: int) -> int:
    """The tree's result code for player 0 of a score for ``player`` (the player to move)."""
    if score == 0:
        return DRAW
    return WIN if (score > 0) == (player == 0) else LOSS


# A time limit is the root solve's deadline too (a second: a hundred times an 8-empties solve);
# above the threshold the search then takes all of it.
@pytest.mark.parametrize("spec", ["mcts:time_limit=1", "mcts:simulations=50"])
def test_mcts_plays_the_solvers_move_at_the_root(spec):
    agent = make_agent(f"{spec},exact_empties=8", seed=0)
    for game in random_endgames(5, 8, seed=31):
        info = agent.search(_to_state(game))
        assert info.simulations == 0 and info.extra["solved"] == "exact"
        assert info.extra["score"] == reference_score(game)
        assert reference_move_scores(game)[info.action] == reference_score(game)
        assert info.proven == {1: "win", 0: "draw", -1: "loss"}[np.sign(reference_score(game))]
    # Above the threshold the search plays as before.
    game = random_endgames(1, 9, seed=32)[0]
    assert "solved" not in agent.search(_to_state(game)).extra


def test_puct_plays_the_solvers_move_at_the_root_and_keeps_searching_above_it():
    agent = PUCTAgent(budget=Budget(simulations=40), endgame=Endgame(exact_empties=7), seed=0)
    for game in random_endgames(4, 7, seed=33):
        info = agent.search(_to_state(game))
        assert info.extra["solved"] == "exact"
        assert reference_move_scores(game)[info.action] == reference_score(game)
    game = random_endgames(1, 8, seed=34)[0]
    info = agent.search(_to_state(game))
    assert "solved" not in info.extra and info.simulations == 40


def test_a_root_solve_that_cannot_finish_in_time_gives_the_move_back():
    state = _to_state(random_endgames(1, 22, seed=35)[0])
    assert solve_root(state, 22, time.perf_counter() + 0.001) is None
    assert solve_root(state, 21, None) is None  # above the threshold: nothing to do


@pytest.mark.parametrize(
    "spec",
    [pytest.param("az:time_limit=5", marks=pytest.mark.torch), "mcts:preset=strong,time_limit=5"],
)
def test_connect_fours_first_moves_come_from_the_book_whatever_the_threshold(spec):
    """The empty board, 42 empty cells (beyond the root's 34): the book answers it and every
    move at once, with the known result: the first player wins with the centre column only. At
    the book's last depth it answers with the move it stores, one the solver finds keeps the
    score."""
    from boardzoo.gametree.connect_four_book import shipped_book

    book = shipped_book()
    assert book is not None, "boardzoo/gametree/data/connect_four_book.npz is not shipped"
    game = make_game("connect_four")
    agent = make_agent(spec, seed=0)
    agent.prepare(game)
    info = agent.search(game.initial_state())
    assert (info.action, info.proven, info.simulations) == (3, "win", 0)
    assert info.extra["solved"] == "exact"
    edge = game.initial_state()  # the book's last depth: the position, not its children
    for column in (3, 3, 3, 3, 2, 2, 4, 4, 2, 2, 4, 4)[: book.depth]:  # no four: up to depth 12
        edge = edge.apply(column)
    answer = solve_root(edge, 34, None)  # its best move where the book stores one, else none
    if book.best_move(edge) is None:
        assert book.score(edge) is not None and answer is None
    else:
        assert answer is not None and answer.nodes == 0 and answer.score == book.score(edge)
        assert -solve(edge.apply(answer.best_moves[0])).score == answer.score


def test_uct_proves_nodes_inside_the_tree_with_the_solvers_results():
    rules = Rules(solver=True, solve_empties=7)
    search = TreeSearch(rules, 50_000, seed=1)
    proven = 0
    for game in random_endgames(4, 9, seed=36):
        state = _to_state(game)
        search.set_root(state, reuse=False)
        search.run(3_000, None)
        scores = reference_move_scores(game)
        for child in search.root_children():
            if child.proven is not None:
                proven += 1
                expected = np.sign(scores[child.action])
                assert child.proven == {1: 1.0, 0: 0.5, -1: 0.0}[expected], (game.board, child)
        assert search.root_result() == {1: 1.0, 0: 0.5, -1: 0.0}[np.sign(reference_score(game))]
    assert proven > 0


def test_alphazeros_search_scores_solved_leaves_exactly():
    game = make_game("reversi")
    search = BatchedSearch(game, 1, BatchedSearchSettings(solve_empties=8), seed=0)
    evaluator = CallbackEvaluator(None, None, "random", 0)
    solved = 0
    for endgame in random_endgames(3, 9, seed=37):
        state = _to_state(endgame)
        search.search([state], evaluator, simulations=200)
        forest = search.forest
        assert forest is not None
        first = int(forest.first_child[0, 0])
        for child in range(first, first + int(forest.num_children[0, 0])):
            if forest.terminal[0, child] == SOLVED:
                solved += 1
                after = state.apply(int(forest.action[0, child]))
                value = reference_score_of(after)
                assert forest.pess[0, child] == _code_for_player0(value, after.current_player)
    assert solved > 0


def reference_score_of(state: ReversiState) -> int:
    """The exact score for the player to move of a boardzoo Reversi position."""
    return reference_score(RefGame.from_text(state.to_text(), state.current_player))


def test_tictactoe_nodes_solved_by_the_exact_negamax_are_right():
    rules = Rules(solver=True, solve_empties=6)
    search = TreeSearch(rules, 20_000, seed=2)
    state = TicTacToeState.initial().apply(4)
    search.set_root(state, reuse=False)
    search.run(500, None)
    for child in search.root_children():
        if child.proven is not None:
            value = -ttt_value(state.apply(child.action))  # for the player to move at the root
            assert child.proven == {1: 1.0, 0: 0.5, -1: 0.0}[value]


def test_presets_and_defaults_name_the_solvers_thresholds():
    game = make_game("reversi")
    exact, solve = default_empties(game)
    strong = MCTSAgent(enhancements=make_agent("mcts:preset=strong").enhancements, seed=0)
    strong.prepare(game)
    assert strong.rules.solve_empties == solve and strong._exact_empties == exact
    assert strong.rules.solver == (solve > 0)
    mine = make_agent("mcts:preset=strong,solve_empties=5,exact_empties=0", seed=0)
    mine.prepare(game)
    assert mine.rules.solve_empties == 5 and mine._exact_empties == 0
    plain = make_agent("mcts", seed=0)
    plain.prepare(game)
    assert plain.rules.solve_empties == 0 and not plain.rules.solver
    assert default_empties(make_game("tictactoe")) == (0, 0)
    with pytest.raises(ValueError, match="solve_empties=65"):
        make_agent("mcts:solve_empties=65")


def test_tree_reuse_through_an_endgame_with_solves_inside_the_tree():
    agent = make_agent("mcts:simulations=300,reuse_tree=true,solve_empties=8", seed=3)
    opponent = make_agent("mcts:simulations=50", seed=4)
    state = _to_state(random_endgames(1, 14, seed=38)[0])
    while not state.is_terminal():
        player = agent if state.current_player == 0 else opponent
        state = state.apply(player.act(state))

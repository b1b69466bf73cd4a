"""``solver``, the perfect player, against facts from outside the code.

- TicTacToe is a draw with perfect play (known since the game was first analysed): two perfect
  players draw, and a perfect player never loses to anyone.
- Reversi 4x4: the second player wins, 11-3 with two squares left empty (a known result, also
  checked in ``test_solve.py``): the perfect first player loses by 10 to the perfect second
  one, and the second player never loses.
- Connect Four: every move it plays has the best score of a plain negamax over the reference
  rules (``test_connect_four_solver.reference_score``), on positions near the end.
- It never raises in the middle of a game: with a ``time_limit``, a solve the clock cuts is played
  by the engine (clocks moved by hand, ``fake_clock``: nothing depends on the machine's speed);
  what cannot be promised (``fallback=none`` with a clock, or beyond ``max_empties``) is refused
  before a match.
"""

from __future__ import annotations

import pytest
import reference_connect_four as ref
from fake_clock import HOUR, shifted_ns
from test_connect_four_solver import random_positions, reference_score

from boardzoo.agents import RandomAgent, SolverAgent, make_agent
from boardzoo.agents.registry import AgentSpecError
from boardzoo.arena.match import check_specs
from boardzoo.errors import BoardzooError
from boardzoo.games.catalog import make_game
from boardzoo.games.connect_four import from_columns
from boardzoo.games.reversi import ReversiState
from boardzoo.gametree.solve import solve


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
    """``fallback=none`` refuses, before a match, a game with positions beyond ``max_empties``
    (its start, or the first positions past Connect Four's opening book); ``auto`` (the
    default) lets the engine play them, and says so in ``last_search``."""
    game = make_game("reversi")
    with pytest.raises(BoardzooError, match="its start has 60 empty squares, more than max_em"):
        SolverAgent(fallback="none").check_game(game)
    with pytest.raises(AgentSpecError, match="solver:fallback=none cannot play reversi 8x8: its"):
        check_specs(["solver:fallback=none"], game)
    SolverAgent().check_game(game)
    SolverAgent(fallback="none").check_game(make_game("reversi", board_size=4))
    connect_four = make_game("connect_four")
    SolverAgent(fallback="none").check_game(connect_four)  # the book, then 35 empties <= 38
    with pytest.raises(BoardzooError, match="past the opening book have 35 empty squares"):
        SolverAgent(fallback="none", max_empties=34).check_game(connect_four)
    SolverAgent(max_empties=34).check_game(connect_four)
    state = game.initial_state()
    with pytest.raises(BoardzooError, match="position has 60 empty squares"):
        SolverAgent(fallback="none").act(state)
    agent = SolverAgent(time_limit=0.2, seed=0)
    assert agent.act(state) in state.legal_actions()
    info = agent.last_search
    assert info is not None and info.source == "engine" and info.reason == "beyond"
    assert info.solved is None and info.result is None and agent.last_result is None
    for bad, message in (
        ({"fallback": "mcts"}, "fallback='mcts' is not allowed: it must be one of auto, engine,"),
        ({"ties": "all"}, "ties='all' is not allowed: it must be one of first, random"),
        ({"max_empties": -1}, "max_empties=-1 is not allowed"),
        ({"time_limit": 0}, "time_limit=0 is not allowed"),
    ):
        with pytest.raises(BoardzooError, match=message):
            SolverAgent(**bad)


def test_no_fallback_with_a_clock_is_refused_before_play():
    """The solver alone cannot promise a move within a clock: ``fallback=none`` with a
    ``time_limit`` is refused when the agent is made, so a match never starts with it."""
    with pytest.raises(BoardzooError, match=r"fallback='none' with time_limit=1\.0 is not allow"):
        SolverAgent(fallback="none", time_limit=1)
    with pytest.raises(
        AgentSpecError, match=r"solver: fallback='none' with time_limit=0\.5 .*auto"
    ):
        check_specs(["solver:fallback=none,time_limit=0.5"], make_game("connect_four"))
    for fallback in ("auto", "engine"):
        assert SolverAgent(fallback=fallback, time_limit=1).fallback == fallback
    assert SolverAgent().fallback == "auto"


def test_a_match_move_limit_clocks_an_unclocked_solver(monkeypatch):
    """Without a ``time_limit``, the solver plays within a match's move limit (told by the
    arena: ``set_move_limit``), as with a clock: a solve the limit cuts is the engine's move.
    ``fallback=none`` keeps the solver alone, and no limit leaves every solve to its end. The
    deadlines are an hour in the past (``fake_clock.shifted_ns``): every clocked solve stops at
    its first look at the clock."""
    import boardzoo.agents.engine as engine_module
    import boardzoo.budget as budget

    four = from_columns("445354332211")  # 12 discs: past the opening book, millions of nodes
    told = SolverAgent(seed=0)
    told.set_move_limit(2.0)
    alone = SolverAgent(fallback="none", seed=0)
    alone.set_move_limit(2.0)
    untold = SolverAgent(seed=0)
    untold.set_move_limit(None)
    for agent in (told, alone, untold):
        agent.prepare(four.game)
    with monkeypatch.context() as patch:
        patch.setattr(budget, "monotonic_ns", shifted_ns(-HOUR))
        patch.setattr(engine_module, "monotonic_ns", shifted_ns(-HOUR))
        told.act(four)
        info = told.last_search
        assert info is not None and (info.source, info.reason) == ("engine", "clock")
        for agent in (alone, untold):
            action = agent.act(four)
            info = agent.last_search
            assert info is not None and info.source == "solver" and info.result is not None
            assert info.result.complete and action in solve(four, all_moves=True).best_moves


def test_a_solve_the_clock_cuts_is_played_by_the_engine_and_the_game_goes_on(monkeypatch):
    """With a ``time_limit``, a solve that does not finish in its half of the move's time gives
    the move to the engine: never an error in the middle of a game. The deadlines are set from
    clocks moved by hand (``fake_clock.shifted_ns``): an hour in the past, every solve stops at
    its first look at the clock (and the engine after its first iteration), whatever the
    machine's speed; an hour ahead, the clock never stops the solve. The agents are prepared
    first: nothing compiles while the clocks are moved."""
    import boardzoo.agents.engine as engine_module
    import boardzoo.budget as budget

    four = from_columns("445354332211")  # just past the opening book, 12 discs: solves can be slow
    agent = SolverAgent(time_limit=1.0, seed=0)
    reversi = SolverAgent(time_limit=0.5, max_empties=64, seed=1)  # every solve tried
    agent.prepare(four.game)
    reversi.prepare(make_game("reversi"))
    with monkeypatch.context() as patch:
        patch.setattr(budget, "monotonic_ns", shifted_ns(-HOUR))  # the solves' deadlines
        patch.setattr(engine_module, "monotonic_ns", shifted_ns(-HOUR))  # the engine's
        assert agent.act(four) in four.legal_actions()
        info = agent.last_search
        assert info is not None and info.source == "engine" and info.reason == "clock"
        assert info.result is not None and not info.result.complete and info.solved is None
        assert info.engine is not None and info.action == info.engine.action
        # A whole Reversi 8x8 game, every move's solve tried: cut, and the engine plays, except
        # where the solve finishes before its first look at the clock (a position a few
        # thousand nodes decide: the last empty squares, a wipe-out).
        state = make_game("reversi").initial_state()
        opponent = RandomAgent(seed=1)
        sources = []
        while not state.is_terminal():
            if state.current_player == 0:
                action = reversi.act(state)
                info = reversi.last_search
                assert info is not None and info.action == action and info.result is not None
                assert (info.source, info.reason) in (("engine", "clock"), ("solver", None))
                assert (info.source == "solver") == info.result.complete
                sources.append(info.source)
            else:
                action = opponent.act(state)
            state = state.apply(action)
        assert sources[0] == "engine" and len(sources) > 10  # 60 empty squares: cut
    with monkeypatch.context() as patch:
        patch.setattr(budget, "monotonic_ns", shifted_ns(HOUR))  # the deadline never comes
        state = four
        agent = SolverAgent(time_limit=1.0, seed=0)
        action = agent.act(state)
        info = agent.last_search
        assert info is not None and info.source == "solver" and info.solved == "exact"
        assert info.reason is None and info.engine is None and agent.last_result is info.result
        assert info.score == solve(state).score
        assert action in solve(state, all_moves=True).best_moves

"""The engine agent: its search finds what plain minimax finds, proves what can be proven,
hands endgames to the solver, keeps to its clock and checks its options.

The references are written here: a plain Python negamax over the game states with the game's
evaluation at the horizon (no table, no windows, no ordering: what principal-variation search,
the transposition table, aspiration and the move ordering must not change), the TicTacToe and
Connect Four minimax of the test references, and the Reversi rules of ``reference_reversi``.
"""

from __future__ import annotations

import numpy as np
import pytest
import reference_connect_four as c4
from fake_clock import HOUR, shifted_ns
from reference_tictactoe import ttt_best_actions, ttt_value
from test_solve import (
    _c4_value,
    _to_state,
    random_endgames,
    reference_move_scores,
    reference_score,
)

from boardzoo.agents import EngineAgent, make_agent
from boardzoo.games import TicTacToeState, make_game
from boardzoo.games.state import BoardState
from boardzoo.gametree.deepening import ENGINE_DEEPENING
from boardzoo.gametree.template import WIN
from boardzoo.learned.ntuple import MODELS_DIR, net_file_name


def plain_negamax(state: BoardState, depth: int) -> int:
    """The engine's score by brute force: a pass costs no ply; the horizon is the game's
    hand-made evaluation; a finished game its final score."""
    game = state.game
    kernels, params = game.kernels, game.params
    s0, s1 = (np.uint64(b) for b in state.bitboards())
    player = state.current_player
    if state.is_terminal():
        return int(kernels.final_score(s0, s1, player, params))
    moves = np.uint64(kernels.placements(s0, s1, player, params))
    if not moves:  # a pass: the same depth for the opponent
        return -plain_negamax(state.apply(state.legal_actions()[0]), depth)
    if depth == 0:
        return int(kernels.evaluate(s0, s1, player, moves, params))
    return max(-plain_negamax(state.apply(a), depth - 1) for a in state.legal_actions())


def random_positions(game_name: str, count: int, seed: int, **options: int) -> list[BoardState]:
    game = make_game(game_name, **options)
    rng = np.random.default_rng(seed)
    found: list[BoardState] = []
    while len(found) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, 30))):
            if state.is_terminal():
                break
            state = state.apply(int(rng.choice(state.legal_actions())))
        if not state.is_terminal():
            found.append(state)
    return found


@pytest.mark.parametrize(
    ("game_name", "options", "depth"),
    [("reversi", {}, 3), ("reversi", {"board_size": 6}, 4), ("connect_four", {}, 4)],
)
def test_fixed_depth_scores_are_plain_negamaxs(game_name, options, depth):
    engine = EngineAgent(
        time_limit=None, depth=depth, eval="hand", exact_empties=0, probcut=0, seed=0
    )
    for state in random_positions(game_name, 12, seed=depth, **options):
        info = engine.search(state)
        assert info.depth == depth or info.exact
        assert info.score == plain_negamax(state, depth), state
        # The move chosen keeps that score.
        child = state.apply(info.action)
        sign = 1 if child.current_player != state.current_player else -1
        if not child.is_terminal() or info.score < WIN // 2:
            assert -sign * plain_negamax(child, depth - 1) == info.score or info.exact


def test_the_table_kept_from_move_to_move_changes_no_score():
    engine = EngineAgent(time_limit=None, depth=4, eval="hand", exact_empties=0, probcut=0, seed=1)
    fresh_scores, kept_scores = [], []
    for state in random_positions("reversi", 10, seed=5, board_size=6):
        kept_scores.append(engine.search(state).score)  # one table for all ten
        fresh_scores.append(
            EngineAgent(time_limit=None, depth=4, eval="hand", exact_empties=0, probcut=0, seed=1)
            .search(state)
            .score
        )
    assert kept_scores == fresh_scores


def test_tictactoe_is_played_perfectly_and_proven():
    engine = EngineAgent(time_limit=None, depth=9, seed=0)
    state = TicTacToeState.initial()
    info = engine.search(state)
    assert info.exact and info.score == 0
    rng = np.random.default_rng(0)
    for _ in range(40):
        state = TicTacToeState.initial()
        for _ in range(int(rng.integers(0, 6))):
            state = state.apply(int(rng.choice(state.legal_actions())))
            if state.is_terminal():
                break
        if state.is_terminal():
            continue
        info = engine.search(state)
        assert info.exact and np.sign(info.score) == ttt_value(state)
        assert info.action in ttt_best_actions(state)


def test_late_connect_four_is_proven_right():
    game = make_game("connect_four")
    engine = EngineAgent(time_limit=None, depth=12, probcut=0, seed=0)
    rng = np.random.default_rng(4)
    checked = 0
    while checked < 10:
        state, board = game.initial_state(), c4.new_board()
        for _ in range(32):
            if state.is_terminal():
                break
            action = int(rng.choice(state.legal_actions()))
            state, board = state.apply(action), c4.drop(board, action, c4.to_move(board))
        if state.is_terminal():
            continue
        info = engine.search(state)
        assert info.exact
        assert np.sign(info.score) == _c4_value(board)
        checked += 1


def test_reversi_endgames_go_to_the_solver_and_get_their_exact_scores():
    engine = EngineAgent(time_limit=5, exact_empties=8, seed=0)
    for game in random_endgames(6, 8, seed=21):
        state = _to_state(game)
        info = engine.search(state)
        assert info.solved == "exact" and info.exact
        assert info.score == reference_score(game)
        assert reference_move_scores(game)[info.action] == info.score
    # Without the solver the search still proves them, to the end of the game.
    searching = EngineAgent(time_limit=None, depth=12, exact_empties=0, probcut=0, seed=0)
    for game in random_endgames(3, 7, seed=22):
        info = searching.search(_to_state(game))
        assert info.solved is None and info.exact
        assert info.score - np.sign(info.score) * WIN == reference_score(game)


def _engine_clock(patch: pytest.MonkeyPatch, shift: float, used: list[float], limit: float) -> None:
    """The clock the engine and its driver read from Python (``monotonic_ns`` of
    ``boardzoo.agents.engine`` and ``boardzoo.gametree.deepening``): the real one moved by
    ``shift`` seconds (the compiled search compares its deadline with the real clock: an hour
    behind, the deadline is long past; ahead, it never comes), at which ``used[i]`` of ``limit``
    has passed at the ``i``-th reading (the last one repeated). The engine reads it for the
    deadline; the driver at the start, before each iteration after the first and after each
    completed one."""
    import boardzoo.agents.engine as engine_module
    import boardzoo.gametree.deepening as deepening

    base = shifted_ns(shift)()
    readings = iter(used)
    last = [used[-1]]

    def now() -> int:
        last[0] = next(readings, last[0])
        return base + int(last[0] * limit * 1e9)

    patch.setattr(engine_module, "monotonic_ns", now)
    patch.setattr(deepening, "monotonic_ns", now)


def test_a_move_keeps_to_its_clock(monkeypatch):
    """The engine reads the clock itself: its first iteration always completes; past the deadline
    the search stops at its next look at the clock (its first node, then every
    ``CLOCK_MASK + 1``); and it starts no new iteration once the unstable fraction of its time
    has passed, though it does below the soft one (``ENGINE_DEEPENING``). The clocks are moved
    by hand, so nothing here depends on the machine's speed; how deep a move's time takes it,
    and how long a move lasts, are printed by ``benchmarks/bench_engine.py``."""

    state = make_game("reversi").initial_state()
    limit = 0.3

    def prepared(depth: int | None = None) -> EngineAgent:
        engine = EngineAgent(time_limit=limit, depth=depth, seed=0)
        engine.prepare(state.game)  # its own search, untimed, before the clock is set
        return engine

    # The deadline long past, and no time passing for the checks between iterations: the
    # compiled search ends the move at its first look at the clock, in the first iteration that
    # lasts that long (the first iteration has no deadline).
    with monkeypatch.context() as patch:
        engine = prepared()
        _engine_clock(patch, -HOUR, [0.0], limit)
        info = engine.search(state)
    assert state.is_legal(info.action) and info.depth >= 1 and not info.exact
    whole = EngineAgent(time_limit=None, depth=info.depth, seed=0).search(state)
    assert whole.depth == info.depth
    # the cut iteration's nodes: the root and its first child, where the search first looks
    assert info.nodes - whole.nodes == 2
    # The deadline never coming: below the soft fraction of the limit, the iterations go on (to
    # the depth asked for) ...
    with monkeypatch.context() as patch:
        engine = prepared(depth=5)
        _engine_clock(patch, HOUR, [0.0, 0.0, ENGINE_DEEPENING.soft_fraction * 0.9], limit)
        assert engine.search(state).depth == 5
    # ... and once the clock says more than the unstable fraction has passed, none starts.
    past = ENGINE_DEEPENING.unstable_fraction * 1.05
    with monkeypatch.context() as patch:
        engine = prepared(depth=8)
        _engine_clock(patch, HOUR, [0.0, 0.0, 0.1, 0.1, 0.2, 0.2, past], limit)
        info = engine.search(state)
    assert info.depth == 3 and state.is_legal(info.action) and not info.exact


def test_probcut_searches_selectively_and_still_plays_legal_moves(tmp_path):
    states = random_positions("reversi", 6, seed=9)
    full = EngineAgent(time_limit=None, depth=6, eval="hand", exact_empties=0, probcut=0, seed=0)
    cut = EngineAgent(time_limit=None, depth=6, eval="hand", exact_empties=0, probcut=1.0, seed=0)
    nodes_full = nodes_cut = 0
    for state in states:
        nodes_full += full.search(state).nodes
        info = cut.search(state)
        nodes_cut += info.nodes
        assert info.action in state.legal_actions() and not info.exact
    assert nodes_cut < nodes_full
    # By default it is on where the evaluation is calibrated, off elsewhere.
    assert EngineAgent(eval="hand")._cut(states[0].game, None) == 1.5
    tictactoe = make_game("tictactoe")
    assert EngineAgent()._cut(tictactoe, None) == 0.0
    # A net file is calibrated by a file beside it (the shipped net's is the game's); a copy
    # elsewhere, with none beside it, is off unless given.
    shipped = MODELS_DIR / net_file_name(states[0].game)
    net = EngineAgent(net=str(shipped))._net_file
    assert EngineAgent(net=str(shipped))._cut(states[0].game, net) == 1.5  # type: ignore[arg-type]
    copy = tmp_path / "copy.npz"
    copy.write_bytes(shipped.read_bytes())
    assert EngineAgent(net=str(copy))._cut(states[0].game, net) == 0.0  # type: ignore[arg-type]
    assert EngineAgent(net=str(copy), probcut=1.5)._cut(states[0].game, net) == 1.5  # type: ignore[arg-type]
    assert EngineAgent()._cut(states[0].game, net) == 1.5  # type: ignore[arg-type]


def test_spec_and_bad_options():
    agent = make_agent("engine:time_limit=0.5,probcut=1.5", seed=1)
    assert isinstance(agent, EngineAgent) and agent.probcut == 1.5
    with pytest.raises(ValueError, match="time_limit=none needs a depth"):
        EngineAgent(time_limit=None)
    with pytest.raises(ValueError, match="probcut=-1"):
        EngineAgent(probcut=-1)
    with pytest.raises(ValueError, match="eval must be one of auto, hand, learned"):
        EngineAgent(eval="neural")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="depth"):
        EngineAgent(depth=0)
    with pytest.raises(ValueError, match="table_bits"):
        EngineAgent(table_bits=40)
    with pytest.raises(ValueError, match=r"no-such\.npz"):
        EngineAgent(net="no-such.npz")

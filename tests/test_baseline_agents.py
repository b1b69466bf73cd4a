"""Baseline agents by outcome: legal moves, forced passes, greedy choices, perfect and exact play.

The reference values come from brute-force minimax written here over the game states, independent
of the compiled search. Everything is seeded.
"""

from __future__ import annotations

import math
import re
from functools import cache

import numpy as np
import pytest
from fake_clock import HOUR, shifted_ns

from boardzoo.agents.alphabeta import WIN, AlphaBetaAgent
from boardzoo.agents.greedy import GreedyAgent
from boardzoo.agents.random_agent import RandomAgent
from boardzoo.envs import reversi_v0, tictactoe_v0
from boardzoo.games import ReversiState, TicTacToeState, parse_action
from boardzoo.games.catalog import game_names, initial_state, make_game
from boardzoo.games.reversi_kernels import positional_weights, square_kind

# --- independent references ---------------------------------------------------------------------


@cache
def ttt_value(state: TicTacToeState) -> int:
    """Minimax value for the player to move: +1 win, 0 draw, -1 loss."""
    if state.is_terminal():
        # The player to move at a finished game did not make the last move: it lost or drew.
        return -1 if state.winner is not None else 0
    return max(-ttt_value(state.apply(a)) for a in state.legal_actions())


@cache
def reversi_value(state: ReversiState) -> int:
    """Exact final disc difference for the player to move (pure-Python negamax)."""
    if state.is_terminal():
        black, white = state.disc_counts()
        return black - white if state.current_player == 0 else white - black
    return max(-reversi_value(state.apply(a)) for a in state.legal_actions())


def reachable_ttt_positions() -> list[TicTacToeState]:
    seen: set[TicTacToeState] = set()
    stack = [TicTacToeState.initial()]
    while stack:
        state = stack.pop()
        if state in seen or state.is_terminal():
            continue
        seen.add(state)
        stack.extend(state.apply(a) for a in state.legal_actions())
    return sorted(seen, key=lambda s: (s.x, s.o))


def disc_difference(score: int) -> int:
    """The final disc difference encoded in an exact Reversi score (wins dominate)."""
    if score > WIN // 2:
        return score - WIN
    if score < -WIN // 2:
        return score + WIN
    assert score == 0
    return 0


def play(agents, state):
    """Play a game between ``agents`` (player 0 first) from ``state``; return the final state."""
    while not state.is_terminal():
        state = state.apply(agents[state.current_player].act(state))
    return state


def random_position(size: int, plies: int, seed: int) -> ReversiState:
    rng = RandomAgent(seed)
    state = ReversiState.initial(size)
    for _ in range(plies):
        state = state.apply(rng.act(state))
        assert not state.is_terminal()
    return state


def plain_negamax(state: ReversiState, depth: int) -> int:
    """Alpha-beta's score by brute force: a pass is a ply; the horizon is the game's hand-made
    evaluation; a finished game its final score (both from the game's kernels)."""
    kernels, params = state.game.kernels, state.game.params
    s0, s1 = (np.uint64(b) for b in state.bitboards())
    player = state.current_player
    if state.is_terminal():
        return int(kernels.final_score(s0, s1, player, params))
    if depth == 0:
        moves = np.uint64(kernels.placements(s0, s1, player, params))
        return int(kernels.evaluate(s0, s1, player, moves, params))
    return max(-plain_negamax(state.apply(a), depth - 1) for a in state.legal_actions())


def play_env(env, agents, seed: int) -> tuple[list[int], int]:
    """Play a game in a PettingZoo env; check every action is legal and ``act`` leaves the env as
    it is. Returns the actions and the number of passes."""
    env.reset(seed=seed)
    actions, passes = [], 0
    for name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        before, selection = env.unwrapped.get_state(), env.agent_selection
        action = agents[env.possible_agents.index(name)].act(env)
        assert env.unwrapped.get_state() == before
        assert env.agent_selection == selection
        assert isinstance(action, int)
        assert observation["action_mask"][action] == 1, (action, before)
        passes += action == getattr(before, "pass_action", -1)
        actions.append(action)
        env.step(action)
    assert all(r in (-1, 0, 1) for r in env.rewards.values())  # no illegal-move penalty
    return actions, passes


AGENTS = {
    "random": lambda seed: RandomAgent(seed=seed),
    "greedy": lambda seed: GreedyAgent(seed=seed),
    "alphabeta": lambda seed: AlphaBetaAgent(depth=3, seed=seed),
    "alphabeta-timed": lambda seed: AlphaBetaAgent(depth=None, time_limit=0.004, seed=seed),
}


# --- every agent: legal moves, env untouched, passes --------------------------------------------


@pytest.mark.parametrize("agent", list(AGENTS))
@pytest.mark.parametrize("size", [4, 6, 8])
def test_agents_play_legal_moves_at_reversi(agent, size):
    games = 4 if agent == "alphabeta-timed" else 12
    env = reversi_v0.env(board_size=size)
    total_passes = 0
    for g in range(games):
        players = [AGENTS[agent](g), RandomAgent(seed=1_000 + g)]
        if g % 2:
            players.reverse()
        _, passes = play_env(env, players, seed=g)
        total_passes += passes
    if size == 4 and agent != "alphabeta-timed":
        assert total_passes > 0  # 4x4 games often have forced passes


@pytest.mark.parametrize("agent", list(AGENTS))
def test_agents_play_legal_moves_at_tictactoe(agent):
    env = tictactoe_v0.env()
    for g in range(20):
        players = [AGENTS[agent](g), RandomAgent(seed=1_000 + g)]
        if g % 2:
            players.reverse()
        play_env(env, players, seed=g)


@pytest.mark.parametrize("agent", list(AGENTS))
def test_agents_pass_when_they_must(agent):
    # Black's only disc cannot bracket the white corner disc; white can play c1.
    state = ReversiState.from_text(
        """
        O X . .
        . . . .
        . . . .
        . . . .
        """
    )
    assert state.must_pass()
    env = reversi_v0.env(board_size=4)
    env.reset()
    env.unwrapped.set_state(state)
    assert AGENTS[agent](0).act(env) == state.pass_action == 16
    assert env.unwrapped.get_state() == state


@pytest.mark.parametrize("agent", list(AGENTS))
def test_agents_refuse_a_finished_game(agent):
    over = TicTacToeState.from_text("XXX\nOO.\n...")
    with pytest.raises(ValueError, match="game is over"):
        AGENTS[agent](0).act(over)


@pytest.mark.parametrize("agent", ["random", "greedy", "alphabeta"])  # not the clock-bound one
def test_same_seed_same_moves(agent):
    def game(seed: int) -> list[int]:
        env = reversi_v0.env(board_size=6)
        return play_env(env, [AGENTS[agent](seed), GreedyAgent(seed=99)], seed=0)[0]

    assert game(5) == game(5)
    if agent != "alphabeta":  # deterministic apart from ties, which are rarer
        assert game(5) != game(6)


@pytest.mark.parametrize("agent", ["greedy", "alphabeta"])
@pytest.mark.parametrize("game", game_names())
def test_prepare_does_not_change_the_moves(agent, game):
    """A prepared agent plays the same moves as an unprepared one with the same seed."""

    def moves(prepare: bool) -> list[int]:
        player = AGENTS[agent](7)
        if prepare:
            player.prepare(make_game(game))
        opponent = RandomAgent(seed=3)
        state, played = initial_state(game), []
        while not state.is_terminal():
            action = (player if state.current_player == 0 else opponent).act(state)
            played.append(action)
            state = state.apply(action)
        return played

    assert moves(prepare=True) == moves(prepare=False)


def test_random_agent_is_uniform_and_seeded():
    state = ReversiState.initial(8)  # four legal moves
    counts = {a: 0 for a in state.legal_actions()}
    agent = RandomAgent(seed=3)
    for _ in range(4_000):
        counts[agent.act(state)] += 1
    assert all(900 < c < 1100 for c in counts.values()), counts
    generator = np.random.default_rng(0)
    assert RandomAgent(seed=generator)._rng is generator


class CountingGame:
    """A tiny game outside boardzoo: take 1 or 2 from a pile, whoever takes the last one wins."""

    def __init__(self, pile: int = 5, player: int = 0) -> None:
        self.pile, self.player = pile, player

    game = None  # not a catalog game
    num_actions = 2
    winner = None

    @property
    def current_player(self) -> int:
        return self.player

    def legal_actions(self) -> list[int]:
        return [a for a in (0, 1) if a + 1 <= self.pile]

    def legal_action_mask(self) -> np.ndarray:
        return np.array([a in self.legal_actions() for a in (0, 1)], dtype=np.int8)

    def is_legal(self, action: int) -> bool:
        return action in self.legal_actions()

    def apply(self, action: int) -> CountingGame:
        return CountingGame(self.pile - action - 1, 1 - self.player)

    def is_terminal(self) -> bool:
        return self.pile == 0

    def returns(self) -> tuple[float, float]:
        return (0.0, 0.0)


def test_random_agent_plays_any_game_and_the_others_say_which_they_play():
    assert RandomAgent(seed=0).act(CountingGame()) in (0, 1)
    for agent in (GreedyAgent(seed=0), AlphaBetaAgent(seed=0)):
        with pytest.raises(TypeError, match=r"plays the catalog.s games .*got <\S+CountingGame"):
            agent.act(CountingGame())


# --- GreedyAgent ----------------------------------------------------------------------------------


def test_greedy_weights_follow_one_rule():
    assert [square_kind(8, 0, c) for c in range(8)] == ["corner", "c", *["edge"] * 4, "c", "corner"]
    assert square_kind(8, 1, 1) == square_kind(8, 6, 1) == square_kind(6, 4, 4) == "x"
    assert square_kind(8, 3, 4) == "inner"
    assert [square_kind(4, 1, c) for c in range(4)] == ["c", "x", "x", "c"]
    for size in (4, 6, 8):
        weights = np.array(positional_weights(size)).reshape(size, size)
        # Symmetric under the eight symmetries of the square.
        assert (weights == weights.T).all() and (weights == weights[::-1]).all()
        assert weights[0, 0] > 0 > weights[0, 1] > weights[1, 1]  # corner, C-square, X-square
        if size > 4:
            assert weights[0, 0] > weights[0, 2] > 0 == weights[2, 2]  # corner, edge, inner


def test_greedy_takes_a_corner_over_more_discs():
    # a1 flips one disc; g5 flips five.
    state = ReversiState.from_text(
        """
        . O X . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        X O O O O O . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        """
    )
    assert {parse_action("a1"), parse_action("g5")} <= set(state.legal_actions())
    env = reversi_v0.env()
    env.reset()
    env.unwrapped.set_state(state)
    for seed in range(10):
        assert GreedyAgent(seed=seed).act(env) == parse_action("a1")


@pytest.mark.parametrize("size", [4, 6, 8])
def test_greedy_plays_the_best_one_ply_score(size):
    # Score = discs flipped + positional weight, computed here from the states themselves.
    weights = positional_weights(size)
    for seed in range(15):
        state = random_position(size, plies=2 + seed % 6, seed=seed)
        if state.must_pass():
            continue
        mover = state.current_player
        scores = {
            a: state.apply(a).disc_counts()[mover] - state.disc_counts()[mover] - 1 + weights[a]
            for a in state.legal_actions()
        }
        assert scores[GreedyAgent(seed=seed).act(state)] == max(scores.values())


def test_greedy_tictactoe_wins_then_blocks():
    # X to move: winning at the top right beats blocking O's middle row.
    assert GreedyAgent(seed=0).act(TicTacToeState.from_text("XX.\nOO.\n...")) == 2
    # O to move: block X's top row.
    for seed in range(5):
        assert GreedyAgent(seed=seed).act(TicTacToeState.from_text("XX.\nO..\n...")) == 2
    # O to move, both possible: win on the middle row.
    assert GreedyAgent(seed=0).act(TicTacToeState.from_text("XX.\nOO.\nX..")) == 5


# Its score against random: python benchmarks/bench_strength.py --pairing "greedy vs random"


# --- AlphaBetaAgent: TicTacToe ------------------------------------------------------------------


def test_alphabeta_is_perfect_at_tictactoe_on_every_reachable_position():
    positions = reachable_ttt_positions()
    assert len(positions) == 4_520
    agent = AlphaBetaAgent(seed=0)
    for state in positions:
        action = agent.act(state)
        best = ttt_value(state)
        assert -ttt_value(state.apply(action)) == best, state
        info = agent.last_search
        assert info.exact and np.sign(info.score) == best
        assert info.outcome == {1: "win", 0: "draw", -1: "loss"}[best]


def test_alphabeta_never_loses_at_tictactoe():
    for g in range(100):
        agent, random = AlphaBetaAgent(seed=g), RandomAgent(seed=300 + g)
        colour = g % 2
        final = play([agent, random] if colour == 0 else [random, agent], TicTacToeState())
        assert final.winner in (colour, None)
    for g in range(10):
        final = play([AlphaBetaAgent(seed=g), AlphaBetaAgent(seed=50 + g)], TicTacToeState())
        assert final.winner is None


def test_alphabeta_ignores_depth_at_tictactoe():
    # X must block the diagonal two moves ahead; depth=1 still searches to the end.
    state = TicTacToeState.from_text("X..\n.O.\n..X")
    assert AlphaBetaAgent(depth=1, seed=0).act(state) in {1, 3, 5, 7}


# --- AlphaBetaAgent: Reversi --------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_alphabeta_solves_reversi_4x4_exactly(seed):
    state = random_position(4, plies=4, seed=seed)
    empties = 16 - sum(state.disc_counts())
    assert 7 <= empties <= 9
    best = reversi_value(state)
    for agent in (
        AlphaBetaAgent(exact_empties=16, seed=seed),
        AlphaBetaAgent(depth=40, exact_empties=0, seed=seed),  # deep enough to see every end
    ):
        action = agent.act(state)
        info = agent.last_search
        assert info.exact and disc_difference(info.score) == best
        assert -reversi_value(state.apply(action)) == best


def test_alphabeta_solves_reversi_4x4_from_the_start():
    state = ReversiState.initial(4)
    agent = AlphaBetaAgent(exact_empties=16, seed=0)
    action = agent.act(state)
    # White wins 4x4 Reversi by 8 discs (11-3) with perfect play; checked by brute force here.
    assert reversi_value(state) == disc_difference(agent.last_search.score) == -8
    assert -reversi_value(state.apply(action)) == -8


def test_alphabeta_exact_solve_needs_few_empties():
    state = random_position(8, plies=30, seed=1)
    agent = AlphaBetaAgent(depth=2, exact_empties=10, seed=0)
    agent.act(state)
    assert not agent.last_search.exact and agent.last_search.depth == 2
    assert abs(agent.last_search.score) < WIN // 2


# Its scores against random and greedy: python benchmarks/bench_strength.py --pairing
# "alphabeta:depth=4 vs random" --pairing "alphabeta:depth=4 vs greedy" (docs/guides/benchmarks.md)
@pytest.mark.parametrize(("size", "plies", "seeds"), [(8, 20, 2), (6, 12, 3), (4, 4, 3)])
def test_alphabeta_depth_4_scores_are_plain_negamaxs(size, plies, seeds):
    """Below the exact solve, a depth-4 search scores each position as the plain depth-4
    negamax of the hand-made evaluation, and its move keeps that score."""
    agent = AlphaBetaAgent(depth=4, exact_empties=0, seed=0)
    passing = ReversiState.from_text("O X . .\n. . . .\n. . . .\n. . . .")  # a pass at the root
    extra = [passing] if size == 4 else []
    for state in [random_position(size, plies, seed) for seed in range(seeds)] + extra:
        info = agent.search(state)
        assert info.depth == 4 or info.exact  # the game ends within 4 plies on every line
        assert info.score == plain_negamax(state, 4), state
        assert -plain_negamax(state.apply(info.action), 3) == info.score, state


def test_alphabeta_reports_its_search():
    state = random_position(8, plies=20, seed=2)
    agent = AlphaBetaAgent(depth=4, seed=0)
    action = agent.act(state)
    info = agent.last_search
    assert info.action == action and state.is_legal(action)
    assert info.depth == 4 and not info.exact and info.outcome is None
    assert info.nodes > len(state.legal_actions()) and info.seconds > 0
    assert info.nodes_per_second > 0


# Behaviour under a time limit, not speed: the clock the agent reads from Python to set its
# deadline and to decide on a next iteration (boardzoo.agents.alphabeta.monotonic_ns) is moved by
# hand here, an hour behind the real one that the compiled search compares the deadline with (the
# deadline long past) or ahead of it (the deadline never comes). How far the search gets in a time
# and how much it overruns its limit depend on the machine, and are measured in
# benchmarks/bench_alphabeta_time_limit.py.


def _alphabeta_clock(patch: pytest.MonkeyPatch, shift: float, then: float | None = None) -> None:
    """The clock of the agent and its driver (``boardzoo.gametree.deepening``): the real one
    moved by ``shift`` seconds at its first reading (the deadline's); ``then`` seconds after that
    at every later one (``None``: no time passes)."""
    import boardzoo.agents.alphabeta as alphabeta
    import boardzoo.gametree.deepening as deepening

    base = shifted_ns(shift)()
    readings = iter([base])
    later = base if then is None else base + int(then * 1e9)
    now = lambda: next(readings, later)  # noqa: E731
    patch.setattr(alphabeta, "monotonic_ns", now)
    patch.setattr(deepening, "monotonic_ns", now)


def test_alphabeta_time_limit_stops_a_search_without_a_depth(monkeypatch):
    state = random_position(8, plies=20, seed=3)
    # The position (44 empties) is far from solved: depth=None alone would search for minutes, so
    # the clock is what ends each search here.
    agent = AlphaBetaAgent(depth=None, time_limit=0.2, seed=0)
    agent.prepare(state.game)  # loading the search and measuring its speed: before the clock
    # The deadline long past, and no time passing between iterations: the compiled search stops
    # at its first look at the clock (its first node), in the first iteration that
    # lasts that long (the first one, one ply, has no deadline: there is always a searched move).
    with monkeypatch.context() as patch:
        _alphabeta_clock(patch, -HOUR)
        action = agent.act(state)
    info = agent.last_search
    assert state.is_legal(action) and info.action == action
    assert info.depth >= 1 and not info.exact
    # The same iterations when the deadline never comes: all the nodes but the cut iteration's.
    whole = AlphaBetaAgent(depth=info.depth, time_limit=0.2, seed=0)
    with monkeypatch.context() as patch:
        _alphabeta_clock(patch, HOUR)
        assert whole.search(state).depth == info.depth
    # the cut iteration's nodes: the root and its first child, where the search first looks
    assert info.nodes - whole.last_search.nodes == 2
    # Past the deadline at the look between iterations: none starts after the first.
    late = AlphaBetaAgent(depth=None, time_limit=0.2, seed=0)
    with monkeypatch.context() as patch:
        _alphabeta_clock(patch, HOUR, then=0.2)
        action = late.act(state)
    assert late.last_search.depth == 1 and state.is_legal(action) and not late.last_search.exact


def test_alphabeta_depth_and_time_limit_whichever_comes_first(monkeypatch):
    state = random_position(8, plies=20, seed=3)
    # Here the depth: the deadline never comes, and the iterations stop at 3 plies.
    agent = AlphaBetaAgent(depth=3, time_limit=30.0, seed=0)
    with monkeypatch.context() as patch:
        _alphabeta_clock(patch, HOUR, then=29.0)
        agent.act(state)
    assert agent.last_search.depth == 3 and not agent.last_search.exact
    # Here the time: past the limit after the first iteration, it stops there.
    with monkeypatch.context() as patch:
        _alphabeta_clock(patch, HOUR, then=30.0)
        agent.act(state)
    assert agent.last_search.depth == 1 and not agent.last_search.exact


def test_alphabeta_time_limit_in_the_endgame_still_solves_exactly(monkeypatch):
    """With 12 empties and exact_empties=12, a timed search runs shallow iterations and then the
    exact solve; given the time (a deadline that never comes), it ends with the same exact score
    as the untimed solve."""
    state = random_position(8, plies=48, seed=4)
    assert 64 - sum(state.disc_counts()) == 12
    timed = AlphaBetaAgent(depth=None, time_limit=30.0, exact_empties=12, seed=0)
    untimed = AlphaBetaAgent(depth=1, exact_empties=12, seed=0)
    with monkeypatch.context() as patch:
        _alphabeta_clock(patch, HOUR)
        action = timed.act(state)
    assert timed.last_search.exact and untimed.search(state).exact
    assert timed.last_search.score == untimed.last_search.score
    assert state.is_legal(action)


# --- argument checks ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"depth": 0}, "depth=0 is not allowed: it must be an integer in 1..999 or none"),
        ({"depth": -3}, "depth=-3 is not allowed"),
        ({"depth": 2.5}, "depth=2.5 is not allowed"),
        ({"depth": True}, "depth=True is not allowed"),
        ({"depth": "4"}, "depth='4' is not allowed"),
        ({"time_limit": 0}, "time_limit=0 is not allowed: it must be a number > 0 or none"),
        ({"time_limit": -1.0}, "time_limit=-1.0 is not allowed"),
        ({"time_limit": math.nan}, "time_limit=nan is not allowed"),
        ({"time_limit": "1"}, "time_limit='1' is not allowed"),
        ({"depth": None}, "depth=none is not allowed without a time_limit"),
        ({"exact_empties": -1}, "exact_empties=-1 is not allowed: it must be an integer in 0..64"),
        ({"exact_empties": 65}, "exact_empties=65 is not allowed"),
        ({"exact_empties": 1.0}, "exact_empties=1.0 is not allowed"),
        (
            {"seed": "x"},
            "seed='x' is not allowed: it must be an integer, a numpy Generator or None",
        ),
    ],
)
def test_alphabeta_bad_arguments(kwargs, named):
    with pytest.raises(ValueError, match=re.escape(named)):
        AlphaBetaAgent(**kwargs)


@pytest.mark.parametrize("cls", [RandomAgent, GreedyAgent])
def test_bad_seed(cls):
    with pytest.raises(ValueError, match=re.escape("seed=1.5 is not allowed")):
        cls(seed=1.5)

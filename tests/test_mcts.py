"""MCTS by outcome: it finds the minimax answer, the solver proves, budgets hold, seeds repeat.

The reference answers come from exhaustive minimax written here, independent of the search code.
"""

from __future__ import annotations

import math
import subprocess
import sys
from functools import cache
from typing import ClassVar

import numpy as np
import pytest
from fake_clock import FakeTime
from gymnasium import spaces
from pettingzoo import AECEnv
from reference_tictactoe import ttt_best_actions, ttt_value

from boardzoo.agents import BYTES_PER_NODE, MCTSAgent, build_agent
from boardzoo.agents.greedy import GreedyAgent
from boardzoo.agents.puct import PUCTAgent
from boardzoo.agents.settings import Budget, PUCTSettings, TreeSettings, UCTSettings
from boardzoo.envs import reversi_v0, tictactoe_v0
from boardzoo.games import ReversiState, TicTacToeState
from boardzoo.games.catalog import game_names, initial_state, make_game
from boardzoo.games.connect_four import ConnectFourState
from boardzoo.search.driver import run_in_chunks
from boardzoo.search.tree import MIN_NODES

# --- independent references --------------------------------------------------------------------


@cache
def reversi_value(state: ReversiState) -> int:
    """Exact final disc difference for the player to move (pure-Python negamax, small boards)."""
    if state.is_terminal():
        black, white = state.disc_counts()
        return (black - white) if state.current_player == 0 else (white - black)
    return max(-reversi_value(state.apply(a)) for a in state.legal_actions())


def sign(x: float) -> int:
    return (x > 0) - (x < 0)


def perfect_ttt_player(rng: np.random.Generator):
    def act(state: TicTacToeState) -> int:
        return int(rng.choice(sorted(ttt_best_actions(state))))

    return act


def play(state, first, second) -> tuple[float, float]:
    """Play to the end; ``first`` / ``second`` map a state to an action for players 0 / 1."""
    players = (first, second)
    while not state.is_terminal():
        state = state.apply(players[state.current_player](state))
    return state.returns()


def mcts_player(agent: MCTSAgent):
    return lambda state: agent.search(state).action


# --- converging to the minimax answer ----------------------------------------------------------

ONE_WINNING_MOVE = {  # X to move; exactly one move wins at once
    "row": "X X .\nO O .\n. . .",
    "diagonal": "X O .\n. X O\n. . .",
}
FORCED_BLOCK = {  # O to move: only blocking X's line keeps the draw
    "row": "X X .\n. O .\n. . .",
    "column": "X . .\nX O .\n. . .",
    "anti-diagonal": "O . X\n. X .\n. . .",
}


@pytest.mark.parametrize("name", list(ONE_WINNING_MOVE))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_uct_finds_the_winning_move(name, seed):
    state = TicTacToeState.from_text(ONE_WINNING_MOVE[name])
    winning = {a for a in state.legal_actions() if state.apply(a).winner == 0}
    assert len(winning) == 1
    assert MCTSAgent(budget=Budget(simulations=2000), seed=seed).search(state).action in winning


@pytest.mark.parametrize("name", list(FORCED_BLOCK))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_uct_blocks_the_only_threat(name, seed):
    state = TicTacToeState.from_text(FORCED_BLOCK[name])
    assert state.current_player == 1
    best = ttt_best_actions(state)
    assert len(best) == 1 and ttt_value(state) == 0
    assert MCTSAgent(budget=Budget(simulations=2000), seed=seed).search(state).action in best


# Connect Four, hand-checked: red (X) to move wins at once only in column d; yellow (O) to move
# loses at once unless it blocks red's column d, or red's diagonal from a1 to d4.
C4_WIN_IN_ONE = """
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
O O O . . . .
X X X . . . .
"""
C4_MUST_BLOCK = {
    "vertical": (
        ". . . . . . .\n. . . . . . .\n. . . . . . .\n. . . X . . .\n. . . X . . .\nO O . X . . ."
    ),
    "diagonal": (
        ". . . . . . .\n. . . . . . .\n. . . . . . .\n. . X O . . .\n. X O X . . .\nX O O X . . ."
    ),
}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_uct_wins_connect_four_in_one(seed):
    state = ConnectFourState.from_text(C4_WIN_IN_ONE)
    assert state.current_player == 0
    winning = [a for a in state.legal_actions() if state.apply(a).winner == 0]
    assert winning == [3]  # column d
    assert MCTSAgent(budget=Budget(simulations=3000), seed=seed).search(state).action == 3


@pytest.mark.parametrize("name", list(C4_MUST_BLOCK))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_uct_blocks_a_connect_four_threat(name, seed):
    state = ConnectFourState.from_text(C4_MUST_BLOCK[name])
    assert state.current_player == 1
    # Every move but the block lets red win at once.
    safe = [
        a
        for a in state.legal_actions()
        if not any(state.apply(a).apply(b).winner == 0 for b in state.apply(a).legal_actions())
    ]
    assert safe == [3]
    assert MCTSAgent(budget=Budget(simulations=5000), seed=seed).search(state).action == 3


def reversi_endgames(size: int, count: int, empties: int) -> list[ReversiState]:
    """Seeded random ``size`` x ``size`` positions with ``empties`` empty squares where some
    moves lose."""
    found = []
    rng = np.random.default_rng(2024)
    while len(found) < count:
        state = ReversiState.initial(size)
        while not state.is_terminal() and size * size - sum(state.disc_counts()) > empties:
            state = state.apply(int(rng.choice(state.legal_actions())))
        if state.is_terminal() or len(state.legal_actions()) < 2:
            continue
        outcomes = {sign(-reversi_value(state.apply(a))) for a in state.legal_actions()}
        if len(outcomes) > 1 and max(outcomes) >= 0:
            found.append(state)
    return found


@pytest.mark.parametrize("solver", [False, True])
def test_reversi_4x4_endgames_match_exact_minimax(solver):
    for state in reversi_endgames(4, 6, empties=8):
        best = max(sign(-reversi_value(state.apply(a))) for a in state.legal_actions())
        action = (
            MCTSAgent(budget=Budget(simulations=20_000), uct=UCTSettings(solver=solver), seed=3)
            .search(state)
            .action
        )
        assert sign(-reversi_value(state.apply(action))) == best, state


def test_solver_proves_the_tictactoe_start_is_a_draw():
    info = MCTSAgent(
        budget=Budget(simulations=200_000), uct=UCTSettings(solver=True), seed=0
    ).search(TicTacToeState())
    assert info.proven == "draw"
    assert info.simulations < 200_000  # it stops once the root is proven


def test_solver_plays_a_proven_win_and_avoids_proven_losses():
    state = TicTacToeState.from_text(ONE_WINNING_MOVE["row"])
    info = MCTSAgent(budget=Budget(simulations=500), uct=UCTSettings(solver=True), seed=0).search(
        state
    )
    assert info.proven == "win" and info.action == 2
    # O to move: every move but the block loses, and the solver proves those losses.
    state = TicTacToeState.from_text(FORCED_BLOCK["row"])
    info = MCTSAgent(budget=Budget(simulations=3000), uct=UCTSettings(solver=True), seed=0).search(
        state
    )
    assert info.action in ttt_best_actions(state)
    lost = {m.action for m in info.moves if m.proven == "loss"}
    assert lost and info.action not in lost


@pytest.mark.parametrize("mcts_first", [True, False])
def test_mcts_2000_never_loses_to_perfect_tictactoe(mcts_first):
    for game in range(12):
        agent = MCTSAgent(budget=Budget(simulations=2000), seed=100 + game)
        perfect = perfect_ttt_player(np.random.default_rng(game))
        if mcts_first:
            first, _ = play(TicTacToeState(), mcts_player(agent), perfect)
            assert first >= 0, f"game {game}: MCTS lost as X"
        else:
            _, second = play(TicTacToeState(), perfect, mcts_player(agent))
            assert second >= 0, f"game {game}: MCTS lost as O"


@pytest.mark.parametrize("solver", [False, True])
def test_reversi_8x8_endgames_match_exact_minimax(solver):
    """On the 8x8 board, in seeded endgames of 6 empty squares, 2,000 simulations pick a move
    with the exact best result. How MCTS scores against random and greedy players over whole
    games is a figure: ``python benchmarks/bench_strength.py --pairing "mcts:simulations=1000 vs
    random" --games 100`` and ``--pairing "mcts:simulations=10000 vs greedy" --games 40``
    (docs/guides/benchmarks.md, Playing strength)."""
    for state in reversi_endgames(8, 6, empties=6):
        best = max(sign(-reversi_value(state.apply(a))) for a in state.legal_actions())
        agent = MCTSAgent(budget=Budget(simulations=2000), uct=UCTSettings(solver=solver), seed=3)
        action = agent.search(state).action
        assert sign(-reversi_value(state.apply(action))) == best, state


# --- budgets, reuse, seeds ----------------------------------------------------------------------


def test_same_seed_same_moves_and_env_untouched():
    def game_actions(seed: int) -> list[int]:
        env = reversi_v0.env(board_size=6)
        env.reset()
        agent = MCTSAgent(budget=Budget(simulations=300), seed=seed)
        actions = []
        for _ in env.agent_iter():
            _, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            before = env.unwrapped.get_state()
            action = agent.act(env)
            assert env.unwrapped.get_state() == before
            actions.append(action)
            env.step(action)
        return actions

    assert game_actions(7) == game_actions(7)
    assert game_actions(7) != game_actions(8)


def test_time_limit_is_kept(monkeypatch):
    """The search's clock (``time`` of ``boardzoo.agents.mcts`` and ``boardzoo.search.driver``)
    is one moved by hand, so nothing here depends on the machine's speed; how many simulations a
    second it runs and how far it overruns a real limit are measured by
    ``benchmarks/bench_mcts.py``."""
    import boardzoo.agents.mcts as mcts_module
    import boardzoo.search.driver as driver

    # The chunks of simulations between two looks at the clock are sized to 2% of the time left
    # at the rate so far: the last one overruns the deadline by less than the smallest chunk (16
    # simulations), and the time before it is used.
    clock = FakeTime().install(monkeypatch, driver)
    cost = 2.0**-16  # seconds a simulation: the search's own clock moves with its work
    chunks: list[int] = []

    def step(count: int) -> int:
        chunks.append(count)
        clock.advance(count * cost)
        return count

    start = clock.now
    done = run_in_chunks(step, 2**62, start + 1.0, lambda: False)
    assert chunks[0] == 256 and min(chunks) == 16 and len(chunks) > 100
    assert done == sum(chunks) and clock.now == start + done * cost
    assert 0 <= clock.now - (start + 1.0) < 16 * cost
    # The agent: its deadline is its start plus the limit, and the search stops at the first look
    # past it (each reading of the clock here moves it on by 1/16 s).
    agent = MCTSAgent(budget=Budget(time_limit=1.0), seed=0)
    state = ReversiState.initial(8)
    agent.prepare(state.game)  # the search code is loaded before any clock runs
    FakeTime(tick=1 / 16).install(monkeypatch, mcts_module, driver)
    info = agent.search(state)
    assert 1.0 <= info.seconds <= 1.0 + 2 / 16  # the look past the deadline, then the result's
    assert info.simulations > 256  # more than its first chunk: it used its time
    assert state.is_legal(info.action)


def test_simulations_and_time_limit_together_stop_at_the_first(monkeypatch):
    import boardzoo.agents.mcts as mcts_module
    import boardzoo.search.driver as driver

    state = ReversiState.initial(8)
    # The clock never moves: the simulations end the search.
    agent = MCTSAgent(budget=Budget(simulations=50, time_limit=5.0), seed=0)
    agent.prepare(state.game)
    with monkeypatch.context() as patch:
        FakeTime().install(patch, mcts_module, driver)
        assert agent.search(state).simulations == 50
    # The clock past the limit at its first look: the time ends it, after the first chunk.
    agent = MCTSAgent(budget=Budget(simulations=10**6, time_limit=5.0), seed=0)
    agent.prepare(state.game)
    with monkeypatch.context() as patch:
        FakeTime(tick=5.0).install(patch, mcts_module, driver)
        assert agent.search(state).simulations == 256


@pytest.mark.parametrize("game", game_names())
@pytest.mark.parametrize("options", [{}, {"reuse_tree": True, "solver": True}, {"workers": 2}])
def test_prepare_does_not_change_the_moves(game, options):
    """A prepared agent plays the same moves as an unprepared one with the same seed."""

    def moves(prepare: bool) -> list[int]:
        agent = build_agent("mcts", {"simulations": 300, **options}, seed=4)
        if prepare:
            agent.prepare(make_game(game))
        state, played = initial_state(game), []
        while not state.is_terminal():
            action = agent.search(state).action if state.current_player == 0 else None
            if action is None:
                action = GreedyAgent(seed=len(played)).act(state)
            played.append(action)
            state = state.apply(action)
        return played

    assert moves(prepare=True) == moves(prepare=False)


def test_tree_reuse_plays_legal_moves_through_passes_and_self_play():
    passes = 0
    for seed in range(8):
        agent = MCTSAgent(
            budget=Budget(simulations=400), tree=TreeSettings(reuse_tree=True), seed=seed
        )
        state = ReversiState.initial(4)
        reused = 0
        while not state.is_terminal():
            info = agent.search(state)  # the same agent plays both sides
            assert state.is_legal(info.action)
            reused += info.reused_tree
            passes += info.action == state.pass_action
            state = state.apply(info.action)
        agent.reset()
        assert reused > 0
    assert passes > 0  # the games did go through passes


def test_tree_reuse_agrees_with_a_fresh_search_within_noise():
    positions = []
    rng = np.random.default_rng(5)
    state = ReversiState.initial(6)
    reuse = MCTSAgent(budget=Budget(simulations=3000), tree=TreeSettings(reuse_tree=True), seed=1)
    same_as_fresh = same_as_other_seed = 0
    while not state.is_terminal():
        info = reuse.search(state)
        budget = sum(m.visits for m in info.moves)  # what the reused tree holds at the root
        fresh = MCTSAgent(budget=Budget(simulations=max(budget, 1)), seed=2).search(state).action
        other = MCTSAgent(budget=Budget(simulations=max(budget, 1)), seed=3).search(state).action
        same_as_fresh += fresh == info.action
        same_as_other_seed += fresh == other
        positions.append(state)
        state = state.apply(int(rng.choice(state.legal_actions())))
    assert len(positions) > 10
    assert same_as_fresh >= same_as_other_seed - 0.2 * len(positions)


def test_workers_merge_root_counts():
    agent = MCTSAgent(budget=Budget(simulations=4000), tree=TreeSettings(workers=2), seed=0)
    info = agent.search(ReversiState.initial(8))
    assert info.workers == 2
    assert info.simulations == 4000
    assert sum(m.visits for m in info.moves) == 4000  # every simulation goes through a root child
    assert info.action in ReversiState.initial(8).legal_actions()


def test_node_cap_keeps_searching_from_the_leaves():
    agent = MCTSAgent(budget=Budget(simulations=5000), tree=TreeSettings(max_nodes=65), seed=0)
    info = agent.search(ReversiState.initial(8))
    assert info.simulations == 5000
    assert info.tree_nodes <= 65
    assert BYTES_PER_NODE <= 100


@pytest.mark.parametrize("game", game_names())
@pytest.mark.parametrize(
    "budget",
    [{"simulations": 3000}, {"time_limit": 0.01}, {"simulations": 500, "reuse_tree": True},
     {"simulations": 500, "solver": True, "workers": 2}],
)  # fmt: skip
def test_the_smallest_tree_plays_whole_games(game, budget):
    """With room for the root and its children only, every simulation budget larger than the
    tree is spent and every move of the game is legal (the opponent plays at random)."""
    agent = build_agent("mcts", {"max_nodes": MIN_NODES, **budget}, seed=0)
    state, rng = initial_state(game), np.random.default_rng(1)
    while not state.is_terminal():
        if state.current_player == 0:
            info = agent.search(state)
            assert state.is_legal(info.action)
            assert info.tree_nodes <= MIN_NODES * info.workers
            if "simulations" in budget and info.proven is None and not info.reused_tree:
                assert info.simulations == budget["simulations"]
            action = info.action
        else:
            action = int(rng.choice(state.legal_actions()))
        state = state.apply(action)


def test_max_nodes_limits_are_named():
    with pytest.raises(ValueError, match=r"max_nodes=64 is not allowed: .* in 65\.\.2147483647"):
        MCTSAgent(tree=TreeSettings(max_nodes=MIN_NODES - 1))
    with pytest.raises(ValueError, match=r"max_nodes=2147483648 is not allowed"):
        MCTSAgent(tree=TreeSettings(max_nodes=2**31))
    huge = 2**31 - 1  # fits the node ids, but 100 GB of trees fit no test machine
    with pytest.raises(ValueError, match=r"max_nodes=2147483647 is not allowed: .* GB, more than"):
        MCTSAgent(tree=TreeSettings(max_nodes=huge, workers=8))


def test_a_large_tree_is_allocated_as_it_is_used():
    """10 million nodes (500 MB) are reserved, but only the pages the search uses are touched."""
    code = """
import resource
from boardzoo.agents import Budget, MCTSAgent, TreeSettings
from boardzoo.games import ReversiState
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
agent = MCTSAgent(Budget(simulations=2000), tree=TreeSettings(max_nodes=10_000_000), seed=0)
info = agent.search(ReversiState.initial(8))
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(info.simulations, info.tree_nodes, (after - before) // 1024)
"""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    simulations, nodes, grown_mb = map(int, result.stdout.split())
    assert simulations == 2000 and 2000 < nodes < 64 * 2000
    assert grown_mb < 100, grown_mb


def test_act_with_policy():
    env = tictactoe_v0.env()
    env.reset()
    env.step(4)
    policy, action = MCTSAgent(budget=Budget(simulations=500), seed=0).act_with_policy(env)
    assert policy.shape == (9,) and math.isclose(policy.sum(), 1.0)
    assert policy[4] == 0 and action == int(np.argmax(policy))


def test_search_info_describes_the_search():
    info = MCTSAgent(budget=Budget(simulations=1000), seed=0).search(ReversiState.initial(8))
    assert info.moves[0].visits >= info.moves[-1].visits
    assert {m.action for m in info.moves} == {19, 26, 37, 44}
    assert info.principal_variation[0] == info.action
    assert info.simulations_per_second > 0 and info.tree_nodes > 1
    assert 0.0 <= info.value <= 1.0


# --- PUCT, value functions, noise ----------------------------------------------------------------


def test_puct_follows_a_good_prior_with_few_simulations():
    state = TicTacToeState.from_text(ONE_WINNING_MOVE["diagonal"])
    (winning,) = {a for a in state.legal_actions() if state.apply(a).winner == 0}

    def prior(s):
        p = np.full(9, 0.01)
        p[winning] = 1.0
        return p

    info = PUCTAgent(
        budget=Budget(simulations=30), puct=PUCTSettings(c_base=0.0), prior_fn=prior, seed=0
    ).search(state)
    assert info.action == winning
    assert max(info.moves, key=lambda m: m.prior).action == winning


def test_exact_value_function_gives_minimax_play():
    def value(s):
        return float(ttt_value(s))

    agent = PUCTAgent(
        budget=Budget(simulations=200),
        puct=PUCTSettings(c_base=0.0),
        value_fn=value,
        prior_fn=lambda s: np.ones(9),
        seed=0,
    )
    for text in (*ONE_WINNING_MOVE.values(), *FORCED_BLOCK.values()):
        state = TicTacToeState.from_text(text)
        assert agent.search(state).action in ttt_best_actions(state)


def test_alphazero_schedule_and_dirichlet_noise():
    agent = PUCTAgent(
        budget=Budget(simulations=200),
        puct=PUCTSettings(c_base=19652, dirichlet_alpha=0.3),
        prior_fn=lambda s: np.ones(s.num_actions),
        seed=0,
    )
    state = ReversiState.initial(6)
    info = agent.search(state)
    assert state.is_legal(info.action)
    priors = [m.prior for m in info.moves]
    assert math.isclose(sum(priors), 1.0, rel_tol=1e-5)  # the noise keeps a distribution
    assert len(set(priors)) > 1  # a uniform prior with noise mixed in
    assert sum(m.visits for m in info.moves) == 200


def test_prior_of_the_wrong_shape_is_a_clear_error():
    agent = PUCTAgent(
        budget=Budget(simulations=10), puct=PUCTSettings(c_base=0.0), prior_fn=lambda s: np.ones(3)
    )
    with pytest.raises(ValueError, match="prior_fn must return 9 probabilities"):
        agent.search(TicTacToeState())


# --- any PettingZoo AEC env through the deepcopy adapter -----------------------------------------


class NimEnv(AECEnv):
    """Take 1-3 stones; whoever takes the last stone wins. Losing positions: multiples of 4."""

    metadata: ClassVar[dict] = {"name": "nim_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, stones: int = 10) -> None:
        super().__init__()
        self.start = stones
        self.possible_agents = ["a", "b"]
        self.action_spaces = {a: spaces.Discrete(3) for a in self.possible_agents}

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observation_space(self, agent):
        return spaces.Dict({"action_mask": spaces.Box(0, 1, (3,), np.int8)})

    def reset(self, seed=None, options=None):
        self.stones = self.start
        self.agents = self.possible_agents[:]
        self.agent_selection = "a"
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}

    def observe(self, agent):
        mask = np.array([self.stones >= k for k in (1, 2, 3)], dtype=np.int8)
        return {"action_mask": mask if agent == self.agent_selection else mask * 0}

    def step(self, action):
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        mover = self.agent_selection
        other = "b" if mover == "a" else "a"
        self.stones -= action + 1
        self.rewards = dict.fromkeys(self.agents, 0)
        if self.stones == 0:
            self.rewards = {mover: 1, other: -1}
            self.terminations = dict.fromkeys(self.agents, True)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self._accumulate_rewards()
        self.agent_selection = other


@pytest.mark.parametrize(("stones", "winning_take"), [(5, 1), (6, 2), (7, 3), (10, 2)])
def test_adapter_searches_any_aec_env(stones, winning_take):
    env = NimEnv(stones)
    env.reset()
    agent = MCTSAgent(budget=Budget(simulations=2000), seed=0)
    action = agent.act(env)
    assert action + 1 == winning_take
    assert env.stones == stones and env.agent_selection == "a"  # the env was not touched


# --- arguments ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"simulations": 0}, "simulations=0 is not allowed: it must be an integer >= 1"),
        ({"simulations": 2.5}, "simulations=2.5 is not allowed: it must be an integer >= 1"),
        ({"time_limit": -1}, "time_limit=-1 is not allowed: it must be a number > 0"),
        ({"final": "best"}, "final='best' is not allowed: it must be one of robust, max"),
        ({"rollout": "smart"}, "rollout='smart' is not allowed: it must be one of random, heur"),
        ({"workers": 0}, "workers=0 is not allowed: it must be an integer in 1..256"),
        ({"max_nodes": 1}, "max_nodes=1 is not allowed: it must be an integer in 65.."),
        ({"c": 0}, "c=0 is not allowed: it must be a number > 0"),
        ({"rave_k": -1}, "rave_k=-1 is not allowed: it must be a number >= 0"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        build_agent("mcts", kwargs)
    with pytest.raises(ValueError, match="seed='x' is not allowed: it must be an integer"):
        MCTSAgent(seed="x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="budget must be a Budget, got int"):
        MCTSAgent(300)  # type: ignore[arg-type]


def test_searching_a_finished_game_is_an_error():
    state = TicTacToeState.from_text("X X X\nO O .\n. . .")
    with pytest.raises(ValueError, match="the game is over"):
        MCTSAgent(budget=Budget(simulations=10)).search(state)

"""MCTSAgent's prior and value functions on the batched search, through CallbackEvaluator.

References: the plain Python PUCT of ``reference_puct`` (visit counts), exhaustive TicTacToe
minimax written here (the moves an exact value function must lead to), and positions whose
playouts have only one possible end.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from fake_clock import FakeTime
from reference_puct import puct_search
from reference_tictactoe import ttt_best_actions, ttt_value

from boardzoo.agents import AECGameState
from boardzoo.agents.puct import PUCTAgent
from boardzoo.agents.settings import TIMED_LEAVES, Budget, PUCTSettings, TreeSettings
from boardzoo.envs import tictactoe_v0
from boardzoo.games import BoardState, TicTacToeState, make_game
from boardzoo.search.batched import BatchedSearch, BatchedSearchSettings
from boardzoo.search.evaluators import CallbackEvaluator, Playouts, SB3Evaluator, encode

TTT = make_game("tictactoe")
C4 = make_game("connect_four")
REVERSI6 = make_game("reversi", board_size=6)


def random_positions(game, count: int, seed: int, max_plies: int = 12) -> list[BoardState]:
    rng = np.random.default_rng(seed)
    found: list[BoardState] = []
    while len(found) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, max_plies))):
            if state.is_terminal():
                break
            state = state.apply(int(rng.choice(state.legal_actions())))
        if not state.is_terminal():
            found.append(state)
    return found


class LinearKnowledge:
    """A fixed 'network' as per-position functions: a prior and a value from the planes."""

    def __init__(self, game, seed: int) -> None:
        rng = np.random.default_rng(seed)
        size = 2 * game.rows * game.cols
        self.game = game
        self.w_prior = rng.normal(size=(size, game.num_actions))
        self.w_value = rng.normal(size=size) / 4

    def _flat(self, state: BoardState) -> np.ndarray:
        return encode(self.game, [state])[0].reshape(-1).astype(np.float64)

    def prior(self, state: BoardState) -> np.ndarray:
        logits = self._flat(state) @ self.w_prior
        weights = np.exp(logits - logits.max())
        return weights / weights.sum()

    def value(self, state: BoardState) -> float:
        return math.tanh(float(self._flat(state) @ self.w_value))


def visits_of(info, num_actions: int) -> np.ndarray:
    visits = np.zeros(num_actions, dtype=np.int64)
    for move in info.moves:
        visits[move.action] = move.visits
    return visits


# --- the prior and value reach the search ------------------------------------------------------


@pytest.mark.parametrize("game", [TTT, C4, REVERSI6], ids=lambda g: g.name)
@pytest.mark.parametrize("c_base", [0.0, 19652.0])
def test_agent_visits_equal_the_python_puct_reference(game, c_base) -> None:
    knowledge = LinearKnowledge(game, seed=7)
    for state in random_positions(game, 3, seed=1):
        agent = PUCTAgent(
            budget=Budget(simulations=50),
            puct=PUCTSettings(c_base=c_base),
            prior_fn=knowledge.prior,
            value_fn=knowledge.value,
        )
        info = agent.search(state)
        expected = puct_search(
            state, knowledge.prior, knowledge.value, simulations=50, c_base=c_base
        )
        np.testing.assert_array_equal(visits_of(info, game.num_actions), expected.visits)
        assert info.action == expected.action and info.simulations == 50
        priors = {m.action: m.prior for m in info.moves}
        for action in state.legal_actions():
            assert priors[action] == pytest.approx(expected.prior[action], rel=1e-5)


def test_a_prior_on_one_move_gets_every_visit() -> None:
    state = REVERSI6.initial_state()
    for favourite in state.legal_actions():

        def prior(s: BoardState, favourite: int = favourite) -> np.ndarray:
            p = np.zeros(s.num_actions)
            p[favourite if s.is_legal(favourite) else s.legal_actions()] = 1.0
            return p

        info = PUCTAgent(
            budget=Budget(simulations=8),
            puct=PUCTSettings(c_base=0.0),
            prior_fn=prior,
            value_fn=lambda s: 0.0,
        ).search(state)
        assert info.action == favourite
        assert visits_of(info, REVERSI6.num_actions)[favourite] == 8


def test_an_exact_value_function_plays_minimax_moves() -> None:
    agent = PUCTAgent(
        budget=Budget(simulations=100),
        puct=PUCTSettings(c_base=0.0),
        value_fn=lambda s: float(ttt_value(s)),
        seed=0,
    )
    tested = 0
    for state in random_positions(TTT, 40, seed=3, max_plies=7):
        best = ttt_best_actions(state)
        if len(best) < len(state.legal_actions()):  # some move throws the result away
            assert agent.search(state).action in best, state.to_text()
            tested += 1
    assert tested >= 20


def test_playouts_stand_in_for_a_missing_value_function() -> None:
    # X to move; the one empty square ends the game: X wins by filling it (a diagonal).
    state = TicTacToeState.from_text("X O O\nO X X\nX O .")
    assert state.apply(8).winner == 0
    values = Playouts(seed=0)([state] * 5)
    np.testing.assert_array_equal(values, 1.0)  # for the player to move
    # X to move again, and the last square draws.
    state = TicTacToeState.from_text("X O X\nX O O\nO X .")
    assert state.current_player == 0 and state.apply(8).winner is None
    np.testing.assert_array_equal(Playouts(seed=0)([state]), 0.0)


def test_playouts_give_the_player_to_moves_result() -> None:
    # O to move: X has already three in a row, so every playout is a loss for O.
    state = TicTacToeState.from_text("X X .\nO O .\n. . .").apply(2)
    assert state.is_terminal() and state.current_player == 1
    np.testing.assert_array_equal(Playouts(seed=0)([state, state]), -1.0)


# --- the evaluator's contract ---------------------------------------------------------------------


def test_logits_give_back_the_prior_over_the_legal_actions() -> None:
    state = TicTacToeState.from_text("X . .\n. O .\n. . .")
    raw = np.arange(1.0, 10.0)  # illegal squares 0 and 4 carry mass too
    evaluator = CallbackEvaluator(lambda s: raw, lambda s: 3.0)
    obs, masks = encode(TTT, [state])
    logits, values = evaluator(obs, masks, states=[state])
    legal = masks[0]
    shares = np.exp(logits[0][legal].astype(np.float64))
    np.testing.assert_allclose(shares / shares.sum(), raw[legal] / raw[legal].sum(), rtol=1e-6)
    assert values.tolist() == [1.0]  # clipped to [-1, 1]
    # No mass on a legal move: a uniform prior.
    no_mass = np.zeros(9)
    no_mass[[0, 4]] = 1.0
    logits, _ = CallbackEvaluator(lambda s: no_mass)(obs, masks, states=[state])
    assert np.ptp(logits[0][legal]) == 0


@pytest.mark.parametrize(
    ("prior", "message"),
    [
        (np.ones(3), "prior_fn must return 9 probabilities, one per action; got shape \\(3,\\)"),
        (np.full(9, np.nan), "prior_fn must return finite probabilities >= 0; got nan for action"),
        (-np.ones(9), "prior_fn must return finite probabilities >= 0; got -1.0 for action 0"),
        (np.full(9, np.inf), "prior_fn must return finite probabilities >= 0; got inf"),
    ],
)
def test_bad_prior_output_is_refused(prior, message) -> None:
    agent = PUCTAgent(
        budget=Budget(simulations=10), puct=PUCTSettings(c_base=0.0), prior_fn=lambda s: prior
    )
    with pytest.raises(ValueError, match=message):
        agent.search(TicTacToeState())


@pytest.mark.parametrize("value", [float("nan"), "high", None])
def test_bad_value_output_is_refused(value) -> None:
    agent = PUCTAgent(
        budget=Budget(simulations=10), puct=PUCTSettings(c_base=0.0), value_fn=lambda s: value
    )
    with pytest.raises(ValueError, match="value_fn must return a finite number in \\[-1, 1\\]"):
        agent.search(TicTacToeState())


def test_the_evaluator_needs_the_positions() -> None:
    obs, masks = encode(TTT, [TicTacToeState()])
    with pytest.raises(ValueError, match="needs the positions"):
        CallbackEvaluator(None)(obs, masks)
    with pytest.raises(ValueError, match="got 2 states for 1 rows"):
        CallbackEvaluator(None)(obs, masks, states=[TicTacToeState()] * 2)


def test_bad_evaluator_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="rollout='smart' is not allowed: it must be one of"):
        CallbackEvaluator(None, rollout="smart")
    with pytest.raises(ValueError, match="seed=-1 is not allowed"):
        CallbackEvaluator(None, seed=-1)
    with pytest.raises(ValueError, match="tictactoe has no heuristic rollout"):
        Playouts("heuristic")([TicTacToeState()])
    agent = PUCTAgent(
        budget=Budget(simulations=5),
        puct=PUCTSettings(c_base=0.0),
        prior_fn=lambda s: np.ones(9),
        rollout="heuristic",
    )
    with pytest.raises(ValueError, match="tictactoe has no heuristic rollout"):
        agent.search(TicTacToeState())


# --- the agent's options --------------------------------------------------------------------------


def test_seeded_searches_repeat_and_seeds_matter() -> None:
    def run(seed: int) -> list[np.ndarray]:
        agent = PUCTAgent(
            budget=Budget(simulations=60),
            puct=PUCTSettings(dirichlet_alpha=0.3, c_base=0.0),
            prior_fn=lambda s: np.ones(s.num_actions),
            seed=seed,
        )  # fmt: skip  (playouts and root noise: both random)
        return [visits_of(agent.search(s), 37) for s in random_positions(REVERSI6, 4, seed=2)]

    first, again, other = run(5), run(5), run(6)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(first, other, strict=True))


def test_prepare_does_not_change_the_moves() -> None:
    states = random_positions(C4, 3, seed=4)

    def moves(prepare: bool) -> list[int]:
        agent = PUCTAgent(
            budget=Budget(simulations=40),
            puct=PUCTSettings(c_base=0.0),
            prior_fn=lambda s: np.ones(7),
            seed=3,
        )
        if prepare:
            agent.prepare(C4)
        return [agent.search(s).action for s in states]

    assert moves(True) == moves(False)


def test_time_limit_workers_and_final_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    import boardzoo.agents.puct as puct_module
    import boardzoo.search.leaf_batch as leaf_batch

    state = REVERSI6.initial_state()
    # The search's clock (``time`` of the agent and of the leaf evaluation) is one moved by hand:
    # each call of the prior costs 1/1024 s of it, so nothing depends on the machine's speed.
    clock = FakeTime()
    calls = []

    def costly_prior(position: BoardState) -> np.ndarray:
        calls.append(position)
        clock.advance(1 / 1024)
        return np.ones(37)

    agent = PUCTAgent(
        budget=Budget(time_limit=0.05),
        puct=PUCTSettings(c_base=0.0, leaves=8),
        prior_fn=costly_prior,
        seed=0,
    )
    agent.prepare(REVERSI6)  # before the clock: its search is loaded and run once
    calls.clear()
    with monkeypatch.context() as patch:
        clock.install(patch, puct_module, leaf_batch)
        timed = agent.search(state)
    deadline = 0.05 * puct_module._DEADLINE_SHARE
    assert timed.seconds == len(calls) / 1024  # the prior's calls are all the time that passed
    # The first steps of 8 leaves run, and no new one once the deadline has passed.
    assert timed.simulations > 8
    assert deadline <= timed.seconds < deadline + 8 / 1024
    assert sum(m.visits for m in timed.moves) == timed.simulations
    two = PUCTAgent(
        budget=Budget(simulations=64),
        puct=PUCTSettings(c_base=0.0),
        tree=TreeSettings(workers=2),
        prior_fn=lambda s: np.ones(37),
        seed=0,
    )
    info = two.search(state)
    assert info.workers == 2 and info.simulations == 64
    assert sum(m.visits for m in info.moves) == 64
    best_mean = PUCTAgent(
        budget=Budget(simulations=64),
        puct=PUCTSettings(c_base=0.0),
        tree=TreeSettings(final="max"),
        value_fn=lambda s: 0.0,
        seed=0,
    )
    moves = best_mean.search(state).moves
    assert max(moves, key=lambda m: (m.mean_value, m.visits, -m.action)).action == (
        best_mean.last_search.action
    )


def test_without_a_prior_the_prior_is_uniform_and_reuse_tree_continues_the_tree() -> None:
    agent = PUCTAgent(
        budget=Budget(simulations=300),
        puct=PUCTSettings(c_base=0.0),
        tree=TreeSettings(reuse_tree=True),
        value_fn=lambda s: 0.0,
        seed=0,
    )
    state = C4.initial_state()
    info = agent.search(state)
    assert [m.prior for m in info.moves] == pytest.approx([1 / 7] * 7)
    later = state.apply(info.action).apply(3)
    again = agent.search(later)
    assert again.reused_tree and again.simulations == 300
    assert sum(m.visits for m in again.moves) > 300  # visits kept from the first search
    agent.reset()
    fresh = agent.search(later)
    assert not fresh.reused_tree and sum(m.visits for m in fresh.moves) == 300


def test_foreign_positions_are_refused() -> None:
    env = tictactoe_v0.env()
    env.reset()
    foreign = AECGameState.from_env(env)
    with pytest.raises(ValueError, match="PUCTAgent searches the catalog's games"):
        PUCTAgent(
            budget=Budget(simulations=5),
            puct=PUCTSettings(c_base=0.0),
            prior_fn=lambda s: np.ones(9),
        ).search(foreign)


# --- SB3's batched evaluator, with a stand-in policy ----------------------------------------------


class CountingPolicy:
    """A stand-in for SB3Agent.evaluate_batch: fixed scores, value 0.25, counted calls."""

    def __init__(self, num_actions: int) -> None:
        self.scores = np.linspace(-1.0, 1.0, num_actions, dtype=np.float32)
        self.batches: list[int] = []

    def evaluate_batch(self, observations: np.ndarray, value_head: bool):
        self.batches.append(len(observations))
        scores = np.tile(self.scores, (len(observations), 1))
        return scores, (np.full(len(observations), 0.25, np.float32) if value_head else None)


@pytest.mark.parametrize("value_head", [True, False])
def test_the_sb3_evaluator_calls_the_policy_once_per_batch(value_head: bool) -> None:
    policy = CountingPolicy(REVERSI6.num_actions)
    evaluator = SB3Evaluator(policy, value_head=value_head, seed=0)
    assert evaluator.needs_states is not value_head  # positions only for the playouts
    search = BatchedSearch(REVERSI6, 1, BatchedSearchSettings(leaves_per_tree=4), seed=0)
    result = search.search([REVERSI6.initial_state()], evaluator, simulations=16)
    assert policy.batches[0] == 1 and len(policy.batches) <= 1 + 16 // 4
    assert max(policy.batches) > 1  # several leaves in one call
    legal = REVERSI6.initial_state().legal_actions()
    expected = np.exp(policy.scores[legal]) / np.exp(policy.scores[legal]).sum()
    np.testing.assert_allclose(result.prior[0, legal], expected, rtol=1e-5)
    states = random_positions(REVERSI6, 3, seed=5)
    obs, masks = encode(REVERSI6, states)
    _, values = evaluator(obs, masks, states=states)
    if value_head:
        np.testing.assert_array_equal(values, 0.25)
    else:  # one playout each: a whole game's result
        assert set(values.tolist()) <= {-1.0, 0.0, 1.0}


def test_the_agents_options_become_the_batched_searchs_settings_in_one_place() -> None:
    """``PUCTSettings.batched_settings``: the mapping the PUCT agents and the training share."""
    puct = PUCTSettings(c_init=2.0, c_base=0.0, dirichlet_alpha=0.3, dirichlet_epsilon=0.5)
    settings = puct.batched_settings(Budget(simulations=50), max_nodes=1000, solve_empties=4)
    assert settings == BatchedSearchSettings(
        c_init=2.0, c_base=0.0, dirichlet_alpha=0.3, dirichlet_epsilon=0.5, max_nodes=1000,
        solve_empties=4,
    )  # fmt: skip
    assert puct.batched_settings(Budget(time_limit=1.0)).leaves_per_tree == TIMED_LEAVES
    assert PUCTSettings(leaves=8).batched_settings(Budget(simulations=50)).leaves_per_tree == 8
    gumbel = PUCTSettings("gumbel", gumbel_k=4, dirichlet_alpha=0.3, leaves=8)
    # Gumbel's root noise is its own, and it gathers one leaf per call.
    assert gumbel.batched_settings(Budget(simulations=8)) == BatchedSearchSettings(
        gumbel=True, gumbel_k=4
    )
    game = make_game("tictactoe")
    agent = PUCTAgent(budget=Budget(simulations=50), puct=puct, tree=TreeSettings(max_nodes=1000))
    agent.prepare(game)
    search, _ = agent._games[game]
    assert search.config == puct.batched_settings(Budget(simulations=50), max_nodes=1000)

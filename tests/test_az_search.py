"""The batched AlphaZero search against a plain Python PUCT reference, an exact oracle and its
own rules."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from oracle_evaluator import OracleEvaluator
from reference_puct import puct_search

from boardzoo.games import BoardState, Game, make_game
from boardzoo.search.batched import BatchedSearch, BatchedSearchSettings, considered_visits
from boardzoo.search.evaluators import UniformEvaluator, cell_squares, encode

GAMES = {
    "tictactoe": make_game("tictactoe"),
    "connect_four": make_game("connect_four"),
    "reversi4": make_game("reversi", board_size=4),
    "reversi6": make_game("reversi", board_size=6),
    "reversi8": make_game("reversi", board_size=8),
}


class HashEvaluator:
    """A fixed random linear 'network': logits and values depend on the observation only.

    Weights are multiples of 1/8, so the sums are exact in float32 whatever the batch size.
    """

    def __init__(self, game: Game, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        size = 2 * game.rows * game.cols
        self.w_logits = (rng.integers(-24, 25, size=(size, game.num_actions)) / 8).astype(
            np.float32
        )
        self.w_value = (rng.integers(-8, 9, size=size) / 8).astype(np.float32)
        self.calls: list[tuple[np.ndarray, np.ndarray]] = []

    def __call__(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        self.calls.append((observations.copy(), masks.copy()))
        flat = observations.reshape(len(observations), -1).astype(np.float32)
        logits = flat @ self.w_logits
        values = np.tanh(0.3 * (flat @ self.w_value)).astype(np.float32)
        return logits.astype(np.float32), values


def random_positions(
    game: Game, count: int, seed: int, want_pass: bool = False
) -> list[BoardState]:
    """Positions in play after random moves (and, if asked, one where the mover must pass)."""
    rng = np.random.default_rng(seed)
    found: list[BoardState] = [game.initial_state()]
    passes: list[BoardState] = []
    while len(found) < count or (want_pass and not passes):
        state = game.initial_state()
        for _ in range(int(rng.integers(1, game.rows * game.cols))):
            if state.is_terminal():
                break
            if state.must_pass():
                passes.append(state)
            actions = state.legal_actions()
            state = state.apply(actions[int(rng.integers(len(actions)))])
        if not state.is_terminal() and len(found) < count:
            found.append(state)
    return found + passes[:1]


def reference_puct_visits(game: Game, evaluator: HashEvaluator, state: BoardState, sims: int,
                          c_base: float) -> np.ndarray:  # fmt: skip
    """Root visits of the plain Python PUCT reference with the evaluator as prior and value."""

    def prior_fn(s: BoardState) -> np.ndarray:
        obs, mask = encode(game, [s])
        logits, _ = evaluator(obs, mask)
        legal = mask[0]
        logit = logits[0].astype(np.float64)
        top = logit[legal].max()
        probabilities = np.zeros(game.num_actions)
        probabilities[legal] = np.exp(logit[legal] - top)
        return probabilities / probabilities.sum()

    def value_fn(s: BoardState) -> float:
        obs, mask = encode(game, [s])
        return float(evaluator(obs, mask)[1][0])

    result = puct_search(state, prior_fn, value_fn, simulations=sims, c_init=1.25, c_base=c_base)
    return result.visits


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("c_base", [19652.0, 0.0])
def test_same_visits_as_the_python_puct_reference(name: str, c_base: float) -> None:
    game = GAMES[name]
    evaluator = HashEvaluator(game, seed=3)
    positions = random_positions(game, 4, seed=11, want_pass=name.startswith("reversi"))
    if name.startswith("reversi"):
        assert any(p.must_pass() for p in positions)  # a pass position is among them
    sims = 60
    search = BatchedSearch(game, len(positions), BatchedSearchSettings(c_base=c_base), seed=0)
    result = search.search(positions, evaluator, simulations=sims)
    for i, state in enumerate(positions):
        expected = reference_puct_visits(game, evaluator, state, sims, c_base)
        np.testing.assert_array_equal(result.visits[i], expected, err_msg=state.to_text())
        assert result.visits[i].sum() == sims
        assert expected[result.action[i]] == expected.max()  # the most visited move


@pytest.mark.parametrize("name", list(GAMES))
def test_observations_are_the_encoding_of_the_positions(name: str) -> None:
    game = GAMES[name]
    evaluator = HashEvaluator(game)
    positions = random_positions(game, 5, seed=2, want_pass=name.startswith("reversi"))
    BatchedSearch(game, 8).search(positions, evaluator, simulations=3)
    observations, masks = evaluator.calls[0]  # the first call evaluates the roots
    expected_obs, expected_masks = encode(game, positions)
    np.testing.assert_array_equal(observations, expected_obs)
    np.testing.assert_array_equal(masks, expected_masks)
    assert masks.dtype == bool and observations.dtype == np.float32


def test_cell_squares_follow_the_planes() -> None:
    table = cell_squares(GAMES["connect_four"])
    state = GAMES["connect_four"].initial_state().apply(3)  # bottom of column d
    (s0, _), planes = state.bitboards(), state.planes(0)
    cell = s0.bit_length() - 1
    assert divmod(int(table[cell]), 7) == (5, 3) and planes[5, 3, 0] == 1


def optimal_positions(
    game: Game, oracle: OracleEvaluator, count: int, seed: int
) -> list[tuple[BoardState, set[int]]]:
    """Positions (and their optimal actions) where some legal move is not optimal."""
    rng = np.random.default_rng(seed)
    found: list[tuple[BoardState, set[int]]] = []
    while len(found) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, game.rows * game.cols - 2))):
            if state.is_terminal():
                break
            actions = state.legal_actions()
            state = state.apply(actions[int(rng.integers(len(actions)))])
        if state.is_terminal():
            continue
        obs, _ = encode(game, [state])
        own, opp = oracle._bitboards(obs[0])
        values = oracle.action_values(own, opp)
        best = max(values.values())
        optimal = {a for a, v in values.items() if v == best}
        if len(optimal) < len(values):
            found.append((state, optimal))
    return found


ORACLE_CASES = [("tictactoe", 0.0), ("tictactoe", 1.0), ("reversi4", 0.0), ("reversi4", 1.0)]


@pytest.mark.parametrize(("name", "weight"), ORACLE_CASES)
@pytest.mark.parametrize("gumbel", [False, True])
def test_oracle_search_plays_a_minimax_move(name: str, weight: float, gumbel: bool) -> None:
    game = GAMES[name]
    oracle = OracleEvaluator(game, prior_weight=weight)
    cases = optimal_positions(game, oracle, 12, seed=5)
    # Only one move keeps the result in some of them.
    assert any(len(optimal) == 1 for _, optimal in cases)
    config = BatchedSearchSettings(gumbel=gumbel, gumbel_k=16)
    search = BatchedSearch(game, len(cases), config)
    result = search.search([s for s, _ in cases], oracle, simulations=64)
    for i, (state, optimal) in enumerate(cases):
        assert int(result.action[i]) in optimal, (state.to_text(), optimal, result.visits[i])
        if gumbel:  # the improved policy puts most mass on an optimal move
            assert int(np.argmax(result.policy_target[i])) in optimal


def test_the_solved_start_of_4x4_reversi() -> None:
    # 4x4 Othello is a win for the second player (white) with perfect play.
    game = GAMES["reversi4"]
    oracle = OracleEvaluator(game)
    obs, masks = encode(game, [game.initial_state()])
    assert oracle(obs, masks)[1][0] == -1.0
    # TicTacToe is a draw.
    ttt = GAMES["tictactoe"]
    assert OracleEvaluator(ttt)(*encode(ttt, [ttt.initial_state()]))[1][0] == 0.0


@pytest.mark.parametrize("gumbel", [False, True])
def test_a_batch_equals_separate_searches(gumbel: bool) -> None:
    game = GAMES["connect_four"]
    evaluator = HashEvaluator(game, seed=1)
    positions = random_positions(game, 5, seed=4)
    seeds = [10, 11, 12, 13, 14]
    config = BatchedSearchSettings(gumbel=gumbel, dirichlet_alpha=0.3, gumbel_k=4)
    batch = BatchedSearch(game, 5, config, seed=99).search(
        positions, evaluator, simulations=32, add_noise=True, temperature=1.0, seeds=seeds
    )
    for i, state in enumerate(positions):
        alone = BatchedSearch(game, 1, config, seed=7).search(
            [state], evaluator, simulations=32, add_noise=True, temperature=1.0, seeds=[seeds[i]]
        )
        np.testing.assert_array_equal(batch.visits[i], alone.visits[0])
        np.testing.assert_array_equal(batch.policy_target[i], alone.policy_target[0])
        np.testing.assert_array_equal(batch.prior[i], alone.prior[0])
        assert batch.action[i] == alone.action[0]


def test_noise_is_seeded_and_changes_the_priors() -> None:
    game = GAMES["reversi6"]
    evaluator = HashEvaluator(game)
    roots = [game.initial_state()] * 3
    config = BatchedSearchSettings(dirichlet_alpha=0.3)
    runs = [
        BatchedSearch(game, 3, config, seed=5).search(roots, evaluator, 20, add_noise=True)
        for _ in range(2)
    ]
    np.testing.assert_array_equal(runs[0].prior, runs[1].prior)
    np.testing.assert_array_equal(runs[0].visits, runs[1].visits)
    quiet = BatchedSearch(game, 3, config, seed=5).search(roots, evaluator, 20)
    assert not np.array_equal(runs[0].prior, quiet.prior)
    legal = encode(game, roots)[1]
    np.testing.assert_allclose(runs[0].prior.sum(axis=1), 1.0, rtol=1e-5)
    assert np.all(runs[0].prior[~legal] == 0)


@pytest.mark.parametrize("k", [2, 3, 4, 8, 16])
@pytest.mark.parametrize("budget", [16, 32])
def test_gumbel_policies_are_valid_and_keep_the_budget(k: int, budget: int) -> None:
    game = GAMES["reversi6"]
    positions = random_positions(game, 6, seed=k + budget, want_pass=True)
    search = BatchedSearch(
        game, len(positions), BatchedSearchSettings(gumbel=True, gumbel_k=k), seed=1
    )
    result = search.search(positions, HashEvaluator(game), simulations=budget, add_noise=True)
    _, masks = encode(game, positions)
    assert result.simulations == budget
    np.testing.assert_array_equal(result.visits.sum(axis=1), budget)
    np.testing.assert_allclose(result.policy_target.sum(axis=1), 1.0, rtol=1e-5)
    assert np.all(result.policy_target[~masks] == 0) and np.all(result.visits[~masks] == 0)
    assert np.all(masks[np.arange(len(positions)), result.action])
    for i in range(len(positions)):  # at most k actions are visited
        assert np.count_nonzero(result.visits[i]) <= k


def test_sequential_halving_schedule() -> None:
    # 4 actions, 16 simulations: 2 phases; 2 visits each, then the best 2 get 4 more each.
    table = considered_visits(4, 16)
    counts = np.zeros(4, dtype=int)
    for target in table[4]:
        counts[int(np.flatnonzero(counts == target)[0])] += 1
    assert sorted(counts.tolist()) == [2, 2, 6, 6]
    # One action considered: every simulation goes to it.
    np.testing.assert_array_equal(table[1], np.arange(16))


def test_virtual_loss_spreads_the_leaves_and_keeps_the_budget() -> None:
    game = GAMES["tictactoe"]
    oracle = OracleEvaluator(game)
    cases = optimal_positions(game, oracle, 6, seed=8)
    config = BatchedSearchSettings(leaves_per_tree=8)
    evaluator = HashEvaluator(game)
    search = BatchedSearch(game, len(cases), config)
    result = search.search([s for s, _ in cases], evaluator, simulations=64)
    np.testing.assert_array_equal(result.visits.sum(axis=1), 64)
    # 1 root call, then 8 steps of up to 8 leaves per tree.
    assert len(evaluator.calls) == 9
    best = search.search([s for s, _ in cases], oracle, simulations=64)
    for i, (_, optimal) in enumerate(cases):
        assert int(best.action[i]) in optimal


def test_uniform_evaluator_and_deadline() -> None:
    game = GAMES["connect_four"]
    search = BatchedSearch(game, 2)
    result = search.search([game.initial_state()] * 2, UniformEvaluator(), deadline=0.0)
    assert result.simulations == 1  # the first step always runs
    np.testing.assert_array_equal(result.visits.sum(axis=1), 1)


def test_temperature_samples_visited_actions_reproducibly() -> None:
    game = GAMES["connect_four"]
    roots = random_positions(game, 8, seed=3)
    evaluator = HashEvaluator(game)
    first = BatchedSearch(game, 8, seed=3).search(roots, evaluator, 24, temperature=1.0)
    again = BatchedSearch(game, 8, seed=3).search(roots, evaluator, 24, temperature=1.0)
    np.testing.assert_array_equal(first.action, again.action)
    assert np.all(first.visits[np.arange(8), first.action] > 0)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("c_init", 0.0),
        ("c_base", -1.0),
        ("dirichlet_alpha", 0.0),
        ("dirichlet_epsilon", 1.5),
        ("gumbel", "yes"),
        ("gumbel_k", 0),
        ("gumbel_scale", float("nan")),
        ("c_visit", -1.0),
        ("c_scale", -0.5),
        ("virtual_loss", -1.0),
        ("leaves_per_tree", 0),
        ("max_nodes", 10),
    ],
)
def test_bad_config_values_are_refused(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field) as error:
        BatchedSearchSettings(**{field: value})  # type: ignore[arg-type]
    assert "\n" not in str(error.value)


def test_bad_search_arguments_are_refused() -> None:
    game = GAMES["tictactoe"]
    search = BatchedSearch(game, 2)
    evaluator = UniformEvaluator()
    state = game.initial_state()
    over = state
    for action in (0, 3, 1, 4, 2):
        over = over.apply(action)
    cases = [
        ([state] * 3, {"simulations": 4}, "roots"),
        ([over], {"simulations": 4}, "finished"),
        ([make_game("connect_four").initial_state()], {"simulations": 4}, "not a position"),
        ([state], {}, "simulations"),
        ([state], {"simulations": 0}, "simulations"),
        ([state], {"simulations": 4, "temperature": -1.0}, "temperature"),
        ([state], {"simulations": 4, "seeds": [1, 2]}, "seeds"),
    ]
    for roots, kwargs, words in cases:
        with pytest.raises(ValueError, match=words):
            search.search(roots, evaluator, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="budget"):
        BatchedSearch(game, 1, BatchedSearchSettings(gumbel=True)).search(
            [state], evaluator, deadline=1.0
        )
    with pytest.raises(ValueError, match="batch_size"):
        BatchedSearch(game, 0)


def test_small_trees_stop_growing_but_keep_searching() -> None:
    game = GAMES["reversi6"]
    search = BatchedSearch(game, 2, BatchedSearchSettings(max_nodes=65))
    result = search.search([game.initial_state()] * 2, HashEvaluator(game), simulations=40)
    np.testing.assert_array_equal(result.visits.sum(axis=1), 40)


def test_values_are_for_the_player_to_move() -> None:
    game = GAMES["tictactoe"]
    state = game.initial_state()
    for action in (0, 3, 1, 4):  # X on a1 b1... X to move wins with action 2
        state = state.apply(action)
    search = BatchedSearch(game, 1)
    result = search.search([state], UniformEvaluator(), simulations=30)
    assert result.action[0] == 2 and result.q[0, 2] == 1.0
    assert search.principal_variation(0) == [2]  # the game ends there
    assert 1 + 5 < result.nodes[0] <= 1 + 5 + 30 * 4  # the root, its 5 moves, <= 4 a leaf
    assert result.root_value[0] > 0.5
    assert np.isnan(result.q[0, [0, 1, 3, 4]]).all()  # taken squares: never visited
    # O to move after X's a1, b1 must block at 2; every other move loses.
    state = game.initial_state().apply(0).apply(4).apply(1)
    oracle = OracleEvaluator(game)
    result = BatchedSearch(game, 1).search([state], oracle, simulations=50)
    assert result.action[0] == 2
    others = np.delete(result.q[0], [0, 1, 2, 4])  # the moves that let X win
    assert result.q[0, 2] > np.nanmax(others) and np.nanmax(others) < 0


def test_a_forced_pass_gets_every_visit() -> None:
    game = GAMES["reversi4"]
    state = next(s for s in random_positions(game, 1, seed=11, want_pass=True) if s.must_pass())
    evaluator = HashEvaluator(game)
    result = BatchedSearch(game, 1).search([state], evaluator, simulations=10)
    assert game.pass_action is not None
    assert result.visits[0, game.pass_action] == 10 and result.action[0] == game.pass_action
    assert result.policy_target[0, game.pass_action] == 1.0


def test_evaluators_without_a_network() -> None:
    game = GAMES["connect_four"]
    obs, masks = encode(game, [game.initial_state()] * 3)
    logits, values = UniformEvaluator()(obs, masks)
    assert logits.shape == (3, 7) and values.shape == (3,) and not logits.any()
    with pytest.raises(ValueError, match="prior_weight"):
        OracleEvaluator(game, prior_weight=-1.0)
    # The oracle's logits favour the moves that keep the best result.
    ttt = GAMES["tictactoe"]
    state = ttt.initial_state().apply(0).apply(4).apply(1)
    obs, masks = encode(ttt, [state])
    logits, values = OracleEvaluator(ttt, prior_weight=3.0)(obs, masks)
    legal = np.where(masks[0], logits[0], -np.inf)  # illegal actions' logits are ignored
    assert values[0] == 0.0 and int(np.argmax(legal)) == 2 and np.sum(legal == legal.max()) == 1


def test_encode_refuses_positions_of_another_game() -> None:
    with pytest.raises(ValueError, match="states\\[0\\]"):
        encode(GAMES["tictactoe"], [GAMES["connect_four"].initial_state()])


def test_trees_are_reused_in_memory_but_start_fresh() -> None:
    game = GAMES["connect_four"]
    evaluator: Any = HashEvaluator(game)
    search = BatchedSearch(game, 2)
    roots = random_positions(game, 2, seed=1)
    first = search.search(roots, evaluator, simulations=20)
    search.search(roots[::-1], evaluator, simulations=50)
    again = search.search(roots, evaluator, simulations=20)
    np.testing.assert_array_equal(first.visits, again.visits)
    np.testing.assert_array_equal(first.q, again.q)


@pytest.mark.parametrize("virtual_loss", [1.0, 0.0])
def test_virtual_loss_sends_the_leaves_of_a_step_apart(virtual_loss: float) -> None:
    game = GAMES["tictactoe"]
    roots = [game.initial_state(), game.initial_state().apply(4)]
    evaluator = HashEvaluator(game)
    config = BatchedSearchSettings(leaves_per_tree=8, virtual_loss=virtual_loss)
    BatchedSearch(game, 2, config).search(roots, evaluator, simulations=8)
    assert len(evaluator.calls) == 2  # the roots, then 8 leaves of each tree in one call
    observations, _ = evaluator.calls[1]
    assert len(observations) == 16
    for tree in range(2):
        leaves = observations[8 * tree : 8 * tree + 8].reshape(8, -1)
        # Without virtual loss every descent of a step follows the same path.
        assert len(np.unique(leaves, axis=0)) == (8 if virtual_loss else 1)


def test_gumbel_with_several_leaves_a_step_keeps_the_budget() -> None:
    game = GAMES["connect_four"]
    roots = random_positions(game, 4, seed=6)
    config = BatchedSearchSettings(gumbel=True, gumbel_k=4, leaves_per_tree=4)
    result = BatchedSearch(game, 4, config, seed=2).search(
        roots, HashEvaluator(game), simulations=32, add_noise=True
    )
    np.testing.assert_array_equal(result.visits.sum(axis=1), 32)
    np.testing.assert_allclose(result.policy_target.sum(axis=1), 1.0, rtol=1e-5)
    assert all(np.count_nonzero(row) <= 4 for row in result.visits)


@pytest.mark.torch
def test_searches_with_the_torch_network(one_torch_thread: None) -> None:
    import torch

    from boardzoo.learned import network, torch_evaluator

    game = GAMES["reversi6"]
    torch.manual_seed(0)
    net = network.AZNet(
        network.NetworkSettings.for_game(game, channels=8, blocks=1, value_hidden=8)
    )
    evaluator = torch_evaluator.TorchEvaluator(net)
    roots = random_positions(game, 3, seed=9, want_pass=True)
    for config in (BatchedSearchSettings(), BatchedSearchSettings(gumbel=True, gumbel_k=4)):
        result = BatchedSearch(game, 4, config).search(roots, evaluator, simulations=16)
        np.testing.assert_array_equal(result.visits.sum(axis=1), 16)
        assert np.all(np.abs(result.root_value) <= 1.0)
        assert 0 < result.network_seconds < result.seconds

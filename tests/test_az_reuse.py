"""Tree reuse in the batched AlphaZero search (``BatchedSearch.search(reuse=True)``, ``advance``).

The facts checked come from outside the reuse code: a copy of the tree taken before the re-rooting
(the kept subtree must hold exactly what the old tree had below that node), and fresh searches.
With one leaf a step and no noise, the descents through a node ``c`` of a search choose and
evaluate exactly as a fresh search rooted at ``c`` would (PUCT at ``c`` reads only ``c``'s subtree,
and the evaluator is deterministic), so the subtree ``c`` grew with ``k`` visits is a fresh search
of ``c`` with ``k - 1`` simulations, and continuing it with ``s`` more must give a fresh search
with ``k - 1 + s``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

from boardzoo.games import BoardState, Game, make_game
from boardzoo.search.batched import BatchedSearch, BatchedSearchSettings
from boardzoo.search.tree import NO_NODE, NODE_FIELDS, Tree, nodes_used

GAMES = {
    "tictactoe": make_game("tictactoe"),
    "connect_four": make_game("connect_four"),
    "reversi6": make_game("reversi", board_size=6),
    "reversi8": make_game("reversi", board_size=8),
}


class LinearEvaluator:
    """A fixed random linear 'network' of the observation (exact in float32: weights k/8)."""

    def __init__(self, game: Game, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        size = 2 * game.rows * game.cols
        self.w_logits = (rng.integers(-24, 25, size=(size, game.num_actions)) / 8).astype(
            np.float32
        )
        self.w_value = (rng.integers(-8, 9, size=size) / 8).astype(np.float32)

    def __call__(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        flat = observations.reshape(len(observations), -1).astype(np.float32)
        values = np.tanh(0.3 * (flat @ self.w_value)).astype(np.float32)
        return (flat @ self.w_logits).astype(np.float32), values


def opening(game: Game, plies: int, seed: int) -> BoardState:
    """A position in play after ``plies`` random moves (or fewer, if the game would end)."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    for _ in range(plies):
        actions = state.legal_actions()
        following = state.apply(actions[int(rng.integers(len(actions)))])
        if following.is_terminal():
            break
        state = following
    return state


def most_visited(visits: np.ndarray) -> int:
    return int(np.argmax(visits))  # the lowest action among the most visited


def child(forest: Tree, b: int, node: int, action: int) -> int:
    first = int(forest.first_child[b, node])
    actions = forest.action[b, first : first + int(forest.num_children[b, node])]
    return first + int(np.flatnonzero(actions == action)[0])


def copy_forest(forest: Tree) -> dict[str, np.ndarray]:
    return {name: np.array(getattr(forest, name)) for name in NODE_FIELDS}


def subtree(arrays: Any, b: int, node: int, root: bool = False) -> tuple[Any, ...]:
    """Everything a node and its descendants hold, as nested tuples (layout-free)."""

    def field(name: str) -> Any:
        values = arrays[name] if isinstance(arrays, dict) else getattr(arrays, name)
        return values[b, node].item()

    first = field("first_child")
    children: tuple[Any, ...] = ()
    if first != NO_NODE:
        count = field("num_children")
        children = tuple(subtree(arrays, b, first + i) for i in range(count))
    own = tuple(field(name) for name in ("s0", "s1", "player", "terminal"))
    own += (field("pess") if field("terminal") else None,)  # a game's result once over
    stats = tuple(field(name) for name in ("visits", "pending", "value", "raw_value"))
    edge = () if root else (field("action"), field("prior"), field("logp"))
    return own + stats + edge + (children,)


def count_nodes(tree: tuple[Any, ...]) -> int:
    return 1 + sum(count_nodes(below) for below in tree[-1])


def fresh(
    game: Game, state: BoardState, simulations: int, config: BatchedSearchSettings | None = None
):
    return BatchedSearch(game, 1, config, seed=0).search(
        [state], LinearEvaluator(game), simulations=simulations
    )


def search_and_pick_grandchild(game: Game, state: BoardState, sims: int):
    """Search ``state``; return the search, the most visited line's two moves and the position."""
    search = BatchedSearch(game, 1, BatchedSearchSettings(), seed=0)
    first = search.search([state], LinearEvaluator(game), simulations=sims)
    a1 = most_visited(first.visits[0])
    forest = search.forest
    assert forest is not None
    node = child(forest, 0, 0, a1)
    first_child = int(forest.first_child[0, node])
    count = int(forest.num_children[0, node])
    a2 = int(forest.action[0, first_child + np.argmax(forest.visits[0, first_child:][:count])])
    return search, a1, a2, state.apply(a1).apply(a2)


# --- the kept subtree ------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(GAMES))
def test_advance_keeps_exactly_the_old_subtree(name: str) -> None:
    game = GAMES[name]
    search, a1, a2, _ = search_and_pick_grandchild(game, opening(game, 2, seed=1), sims=300)
    forest = search.forest
    assert forest is not None
    before = copy_forest(forest)
    node = child(forest, 0, child(forest, 0, 0, a1), a2)
    expected = subtree(before, 0, node, root=True)
    kept_nodes = int(nodes_used(forest, 0))
    assert search.advance(0, [a1, a2])
    assert subtree(forest, 0, 0, root=True) == expected
    assert forest.parent[0, 0] == NO_NODE
    # The row holds the kept subtree and nothing else: the rest of it is free again.
    assert nodes_used(forest, 0) == count_nodes(expected) < kept_nodes


@pytest.mark.parametrize("name", list(GAMES))
def test_reuse_continues_as_a_fresh_search_of_the_subtree(name: str) -> None:
    game = GAMES[name]
    search, a1, a2, target = search_and_pick_grandchild(game, opening(game, 2, seed=3), sims=300)
    forest = search.forest
    assert forest is not None
    node = child(forest, 0, child(forest, 0, 0, a1), a2)
    kept_visits = int(forest.visits[0, node])
    before = subtree(copy_forest(forest), 0, node, root=True)
    # The subtree the search grew there is a fresh search with kept_visits - 1 simulations.
    assert kept_visits > 2
    copy = BatchedSearch(game, 1, BatchedSearchSettings(), seed=0)
    copy.search([target], LinearEvaluator(game), simulations=kept_visits - 1)
    assert copy.forest is not None
    assert subtree(copy.forest, 0, 0, root=True) == before
    more = 40
    result = search.search([target], LinearEvaluator(game), simulations=more, reuse=True)
    assert result.reused.tolist() == [True]
    assert result.inherited.tolist() == [kept_visits - 1]
    assert result.visits.sum() == kept_visits - 1 + more
    expected = fresh(game, target, kept_visits - 1 + more)
    np.testing.assert_array_equal(result.visits, expected.visits)
    np.testing.assert_array_equal(result.q, expected.q)
    np.testing.assert_array_equal(result.root_value, expected.root_value)
    assert result.action.tolist() == expected.action.tolist()


def test_reuse_of_the_same_position_keeps_the_whole_tree() -> None:
    game = GAMES["connect_four"]
    state = opening(game, 3, seed=4)
    search = BatchedSearch(game, 1, seed=0)
    search.search([state], LinearEvaluator(game), simulations=50)
    result = search.search([state], LinearEvaluator(game), simulations=30, reuse=True)
    assert result.reused[0] and result.inherited[0] == 50
    np.testing.assert_array_equal(result.visits, fresh(game, state, 80).visits)


def find_pass_line(game: Game, seed: int) -> tuple[BoardState, list[int]]:
    """A position and three moves from it, the second a forced pass."""
    rng = np.random.default_rng(seed)
    for _ in range(2000):
        state = game.initial_state()
        history = [state]
        while not state.is_terminal():
            actions = state.legal_actions()
            state = state.apply(actions[int(rng.integers(len(actions)))])
            history.append(state)
        for i in range(1, len(history) - 2):
            if history[i].must_pass() and not history[i + 2].is_terminal():
                line = [
                    _move_between(history[i - 1], history[i]),
                    _move_between(history[i], history[i + 1]),
                    _move_between(history[i + 1], history[i + 2]),
                ]
                return history[i - 1], line
    raise AssertionError("no pass found")


def _move_between(before: BoardState, after: BoardState) -> int:
    for action in before.legal_actions():
        if before.apply(action) == after:
            return action
    raise AssertionError("not a move")


def test_a_pass_is_not_counted_as_a_move() -> None:
    game = make_game("reversi", board_size=4)
    for seed in range(30):
        state, line = find_pass_line(game, seed)
        target = state.apply(line[0]).apply(line[1]).apply(line[2])
        search = BatchedSearch(game, 1, seed=0)
        search.search([state], LinearEvaluator(game), simulations=400)
        forest = search.forest
        assert forest is not None
        node = 0
        for action in line:
            if forest.first_child[0, node] == NO_NODE:
                break
            node = child(forest, 0, node, action)
        else:
            if forest.first_child[0, node] != NO_NODE:
                break
    else:
        pytest.skip("no searched line through a pass")
    kept = int(forest.visits[0, node])
    result = search.search([target], LinearEvaluator(game), simulations=10, reuse=True)
    assert result.reused[0] and result.inherited[0] == kept - 1  # three edges, two moves


# --- starting fresh --------------------------------------------------------------------------


def test_a_position_not_in_the_tree_starts_fresh() -> None:
    game = GAMES["reversi8"]
    search = BatchedSearch(game, 1, seed=0)
    search.search([game.initial_state()], LinearEvaluator(game), simulations=300)
    line = search.principal_variation(0)[:3]
    assert len(line) == 3
    three_moves_on = game.initial_state().apply(line[0]).apply(line[1]).apply(line[2])
    forest = search.forest
    assert forest is not None
    node = child(forest, 0, child(forest, 0, child(forest, 0, 0, line[0]), line[1]), line[2])
    assert forest.first_child[0, node] != NO_NODE  # in the tree, but three moves down
    other = opening(game, 6, seed=2)
    for state in (three_moves_on, other):
        result = search.search([state], LinearEvaluator(game), simulations=30, reuse=True)
        assert not result.reused[0] and result.inherited[0] == 0
        expected = fresh(game, state, 30)
        np.testing.assert_array_equal(result.visits, expected.visits)
        np.testing.assert_array_equal(result.q, expected.q)


def test_without_reuse_every_search_is_fresh() -> None:
    game = GAMES["tictactoe"]
    state = game.initial_state()
    search = BatchedSearch(game, 1, seed=0)
    search.search([state], LinearEvaluator(game), simulations=40)
    result = search.search([state], LinearEvaluator(game), simulations=40)
    assert not result.reused[0] and result.visits.sum() == 40
    np.testing.assert_array_equal(result.visits, fresh(game, state, 40).visits)


def test_a_batch_mixes_reused_and_fresh_trees() -> None:
    game = GAMES["connect_four"]
    states = [opening(game, 2, seed=5), opening(game, 4, seed=6)]
    search = BatchedSearch(game, 2, seed=0)
    first = search.search(states, LinearEvaluator(game), simulations=120)
    a = most_visited(first.visits[0])
    moved = states[0].apply(a)
    other = opening(game, 8, seed=7)
    result = search.search([moved, other], LinearEvaluator(game), simulations=25, reuse=True)
    assert result.reused.tolist() == [True, False]
    kept = int(first.visits[0, a])
    assert result.inherited.tolist() == [kept - 1, 0]
    np.testing.assert_array_equal(result.visits[0], fresh(game, moved, kept - 1 + 25).visits[0])
    np.testing.assert_array_equal(result.visits[1], fresh(game, other, 25).visits[0])


def test_advance_off_the_tree_drops_it_and_refuses_illegal_moves() -> None:
    game = GAMES["tictactoe"]
    state = game.initial_state()
    search = BatchedSearch(game, 2, seed=0)
    assert not search.advance(0, [4])  # nothing searched yet
    search.search([state], LinearEvaluator(game), simulations=20)
    with pytest.raises(ValueError, match=r"actions\[1\]=4 is not legal"):
        search.advance(0, [4, 4])
    with pytest.raises(
        ValueError, match=r"tree=\d+ is not allowed: it must be an integer in 0\.\.1"
    ):
        search.advance(2, [4])
    with pytest.raises(
        ValueError, match=r"actions\[0\]=\d+ is not allowed: it must be an integer in 0\.\.8"
    ):
        search.advance(0, [9])
    assert not search.advance(1, [4])  # tree 1 was not searched
    forest = search.forest
    assert forest is not None
    line = [0, 1, 2, 3, 5, 6]  # deeper than 20 simulations reach
    assert not search.advance(0, line)
    target = state
    for action in line:
        target = target.apply(action)
    result = search.search([target], LinearEvaluator(game), simulations=5, reuse=True)
    assert not result.reused[0]
    with pytest.raises(ValueError, match="reuse must be True or False"):
        search.search([state], LinearEvaluator(game), simulations=5, reuse="yes")  # type: ignore[arg-type]


def test_advance_then_search_equals_finding_the_position() -> None:
    game = GAMES["reversi6"]
    state = opening(game, 1, seed=8)
    found, a1, a2, target = search_and_pick_grandchild(game, state, sims=200)
    advanced, _, _, _ = search_and_pick_grandchild(game, state, sims=200)
    assert advanced.advance(0, [a1, a2])
    one = found.search([target], LinearEvaluator(game), simulations=20, reuse=True)
    two = advanced.search([target], LinearEvaluator(game), simulations=20, reuse=True)
    assert one.reused[0] and two.reused[0]
    np.testing.assert_array_equal(one.visits, two.visits)


# --- full rows, deadlines, noise, Gumbel -----------------------------------------------------


def test_a_full_row_still_works() -> None:
    game = GAMES["connect_four"]
    state = opening(game, 2, seed=10)
    search = BatchedSearch(game, 1, BatchedSearchSettings(max_nodes=120), seed=0)
    first = search.search([state], LinearEvaluator(game), simulations=200)
    assert first.visits.sum() == 200
    forest = search.forest
    assert forest is not None
    assert nodes_used(forest, 0) + 7 > 120  # full: no further block of 7 children fits
    a = most_visited(first.visits[0])
    node = child(forest, 0, 0, a)
    expected = subtree(copy_forest(forest), 0, node, root=True)
    assert search.advance(0, [a])
    assert subtree(forest, 0, 0, root=True) == expected
    room = int(nodes_used(forest, 0))
    assert room < 120
    moved = state.apply(a)
    result = search.search([moved], LinearEvaluator(game), simulations=150, reuse=True)
    assert result.reused[0]
    assert result.visits.sum() == result.inherited[0] + 150
    assert room < result.nodes[0] <= 120  # the freed room was used again


def test_reuse_under_a_deadline_and_a_larger_forest() -> None:
    game = GAMES["reversi8"]
    state = game.initial_state()
    search, a1, a2, target = search_and_pick_grandchild(game, state, sims=100)
    forest = search.forest
    assert forest is not None
    node = child(forest, 0, child(forest, 0, 0, a1), a2)
    expected = subtree(copy_forest(forest), 0, node, root=True)
    small = forest.s0.shape[1]
    result = search.search(
        [target], LinearEvaluator(game), deadline=time.perf_counter() + 0.05, reuse=True
    )
    assert search.forest is not None and search.forest.s0.shape[1] > small  # it grew
    assert result.reused[0] and result.inherited[0] == expected[5] - 1
    assert result.visits.sum() == result.inherited[0] + result.simulations


def test_noise_is_mixed_into_the_new_roots_priors_and_not_kept() -> None:
    game = GAMES["connect_four"]
    state = opening(game, 2, seed=11)
    alpha, epsilon, seed = 0.3, 0.25, 17
    config = BatchedSearchSettings(dirichlet_alpha=alpha, dirichlet_epsilon=epsilon)
    clean = fresh(game, state, 1).prior[0]
    legal = np.flatnonzero(clean > 0)
    search = BatchedSearch(game, 1, config, seed=0)
    noisy = search.search([state], LinearEvaluator(game), simulations=60, add_noise=True)
    assert not np.allclose(noisy.prior[0], clean)
    # The same position again: the kept tree holds the network's priors, not the noisy ones.
    again = search.search([state], LinearEvaluator(game), simulations=10, reuse=True)
    assert again.reused[0]
    np.testing.assert_array_equal(again.prior[0], clean)
    # Reused with noise: fresh noise from the seed, mixed into those priors.
    result = search.search(
        [state], LinearEvaluator(game), simulations=10, add_noise=True, seeds=[seed], reuse=True
    )
    draws = np.random.default_rng(seed).standard_gamma(alpha, size=game.num_actions)
    noise = draws[legal] / draws[legal].sum()
    expected = (1 - epsilon) * clean[legal].astype(np.float64) + epsilon * noise
    assert result.reused[0]
    np.testing.assert_allclose(result.prior[0, legal], expected, rtol=1e-6)
    # Moved one ply on (self-play's next search): that node's priors were never noisy.
    a = most_visited(result.visits[0])
    moved = search.search([state.apply(a)], LinearEvaluator(game), simulations=5, reuse=True)
    assert moved.reused[0]
    np.testing.assert_array_equal(moved.prior[0], fresh(game, state.apply(a), 1).prior[0])


def test_gumbel_never_reuses() -> None:
    game = GAMES["connect_four"]
    state = opening(game, 2, seed=12)
    config = BatchedSearchSettings(gumbel=True, gumbel_k=4)
    search = BatchedSearch(game, 1, config, seed=0)
    first = search.search([state], LinearEvaluator(game), simulations=40)
    moved = state.apply(int(first.action[0]))
    result = search.search([moved], LinearEvaluator(game), simulations=16, reuse=True)
    assert not result.reused[0] and result.inherited[0] == 0
    assert result.visits.sum() == 16
    expected = fresh(game, moved, 16, config)
    np.testing.assert_array_equal(result.visits, expected.visits)
    np.testing.assert_array_equal(result.policy_target, expected.policy_target)


def test_reuse_with_several_leaves_a_step_keeps_the_budget() -> None:
    game = GAMES["reversi8"]
    config = BatchedSearchSettings(leaves_per_tree=8)
    search = BatchedSearch(game, 2, config, seed=0)
    states = [game.initial_state(), opening(game, 2, seed=13)]
    first = search.search(states, LinearEvaluator(game), simulations=64)
    moved = [s.apply(int(a)) for s, a in zip(states, first.action, strict=True)]
    result = search.search(moved, LinearEvaluator(game), simulations=64, reuse=True)
    assert result.reused.all()
    np.testing.assert_array_equal(result.visits.sum(axis=1), result.inherited + 64)
    assert search.forest is not None and not search.forest.pending[:, :1000].any()


@pytest.mark.parametrize("name", ["reversi6", "connect_four"])
def test_warm_up_reroots_once_and_leaves_no_tree_to_reuse(name: str, monkeypatch: Any) -> None:
    """``warm_up`` runs the reuse kernels (so a clock never pays their compile), then the next
    search starts fresh, whatever position it is given."""
    import boardzoo.search.kept_trees as search_module

    game = GAMES[name]
    search = BatchedSearch(game, 1, seed=0)
    compacted: list[int] = []
    real_keep = search_module.keep_subtree

    def counting_keep(*args: Any) -> int:
        compacted.append(1)
        return int(real_keep(*args))

    monkeypatch.setattr(search_module, "keep_subtree", counting_keep)
    search.warm_up(LinearEvaluator(game))
    assert compacted == [1]
    state = game.initial_state()
    for again in (state, state.apply(state.legal_actions()[0])):
        result = search.search([again], LinearEvaluator(game), simulations=20, reuse=True)
        assert not result.reused[0]
        np.testing.assert_array_equal(result.visits, fresh(game, again, 20).visits)
        search = BatchedSearch(game, 1, seed=0)
        search.warm_up(LinearEvaluator(game))

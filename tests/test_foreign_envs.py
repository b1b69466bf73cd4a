"""MCTS on envs outside boardzoo's catalog: PettingZoo's own classic games, and envs that the
search clones through a get_state/set_state pair or cannot clone at all.

PettingZoo's ``tictactoe_v3`` numbers its squares column by column::

    0 3 6
    1 4 7
    2 5 8

and its lines are ``Board.winning_combinations``; ``connect_four_v3``'s action is the column.
``agent.act(env)`` reads these two envs as the catalog's positions (tests/test_interop.py); here
the search goes through clones of the env (:class:`AECGameState`), as for any other env.
Every position below is reached by stepping the env as users get it (``env()``, wrapped), and
its answer is neither the first nor the last legal action.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any, ClassVar

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.classic import connect_four_v3, tictactoe_v3

from boardzoo.agents import AECGameState, MCTSAgent
from boardzoo.agents.settings import Budget

SIMULATIONS = 150
SEEDS = (0, 1, 2)


def played(game: Any, moves: tuple[int, ...]) -> Any:
    """``game.env()`` reset, after ``moves``."""
    env = game.env()
    env.reset(seed=0)
    for action in moves:
        env.step(action)
    return env


def seen(env: Any) -> tuple[str, dict[str, Any], dict[str, float]]:
    """What an agent's search must not change: the agent to move, observations, rewards."""
    observations = {agent: copy.deepcopy(env.observe(agent)) for agent in env.agents}
    return env.agent_selection, observations, dict(env._cumulative_rewards)


def assert_same(before: tuple[str, dict[str, Any], dict[str, float]], env: Any) -> None:
    agent, observations, rewards = seen(env)
    assert agent == before[0]
    np.testing.assert_equal(observations, before[1])
    assert rewards == before[2]


# (game, moves, the answer, the opponent's threat the answer is not)
WINS = {
    # X on 3, 4: 5 completes (3, 4, 5); O on 0, 1 threatens 2.
    "tictactoe-x": (tictactoe_v3, (3, 0, 4, 1), 5, 2),
    # O on 3, 4: 5 completes (3, 4, 5); X on 0, 1 threatens 2.
    "tictactoe-o": (tictactoe_v3, (0, 3, 1, 4, 8), 5, 2),
    # Player 1 on the bottom of columns 0-2: 3 completes the row; player 2 is a row above.
    "connect-four-first": (connect_four_v3, (0, 0, 1, 1, 2, 2), 3, None),
    # Player 2 has three up column 4; player 1 threatens the bottom row at 3.
    "connect-four-second": (connect_four_v3, (0, 4, 1, 4, 6, 4, 2), 4, 3),
}
BLOCKS = {
    # O on 4, 2 threatens 6 on (2, 4, 6); X (0, 8) has no line left.
    "tictactoe-x": (tictactoe_v3, (0, 4, 8, 2), 6),
    # X on 0, 6 threatens 3 on (0, 3, 6); O has only 4.
    "tictactoe-o": (tictactoe_v3, (0, 4, 6), 3),
    # Player 1 on the bottom of columns 0-2 threatens 3; player 2 has two up column 6.
    "connect-four-second": (connect_four_v3, (0, 6, 1, 6, 2), 3),
    # Player 2 has three up column 5; player 1 has two up column 1 and one in column 3.
    "connect-four-first": (connect_four_v3, (1, 5, 1, 5, 3, 5), 5),
}


def _legal(game: Any, moves: tuple[int, ...]) -> list[int]:
    env = played(game, moves)
    return np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()


def _wins(game: Any, moves: tuple[int, ...]) -> bool:
    """Whether the last of ``moves`` wins the game."""
    env = played(game, moves[:-1])
    mover = env.agent_selection
    env.step(moves[-1])
    return bool(env.terminations[mover]) and env.rewards[mover] == 1


@pytest.mark.parametrize("case", list(WINS))
def test_the_wins_are_what_the_tests_say(case: str) -> None:
    """The answer alone wins at once; the opponent's threat wins if left (the rules alone)."""
    game, moves, answer, threat = WINS[case]
    legal = _legal(game, moves)
    assert answer in legal[1:-1]
    assert [a for a in legal if _wins(game, (*moves, a))] == [answer]
    if threat is not None:
        other = next(a for a in legal if a not in (answer, threat))
        assert _wins(game, (*moves, other, threat))


@pytest.mark.parametrize("case", list(BLOCKS))
def test_the_blocks_are_what_the_tests_say(case: str) -> None:
    """No move wins at once, and every move but the answer lets the opponent win at once."""
    game, moves, answer = BLOCKS[case]
    legal = _legal(game, moves)
    assert answer in legal[1:-1]
    assert not any(_wins(game, (*moves, a)) for a in legal)
    for action in legal:
        replies = _legal(game, (*moves, action))
        loses = any(_wins(game, (*moves, action, reply)) for reply in replies)
        assert loses == (action != answer)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("case", list(WINS))
def test_foreign_mcts_takes_the_win_in_one(case: str, seed: int) -> None:
    game, moves, answer, _ = WINS[case]
    env = played(game, moves)
    before = seen(env)
    clones = AECGameState.from_env(env)
    assert MCTSAgent(budget=Budget(simulations=SIMULATIONS), seed=seed).act(clones) == answer
    assert_same(before, env)
    mover = env.agent_selection
    env.step(answer)  # the env plays on from where it was
    assert env.rewards[mover] == 1


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("case", list(BLOCKS))
def test_foreign_mcts_blocks_the_only_threat(case: str, seed: int) -> None:
    game, moves, answer = BLOCKS[case]
    env = played(game, moves)
    before = seen(env)
    clones = AECGameState.from_env(env)
    assert MCTSAgent(budget=Budget(simulations=SIMULATIONS), seed=seed).act(clones) == answer
    assert_same(before, env)


@pytest.mark.parametrize(
    ("game", "moves", "winner"),
    [
        (tictactoe_v3, (3, 0, 4, 1, 5), 0),
        (tictactoe_v3, (0, 3, 1, 4, 8, 5), 1),
        (tictactoe_v3, (0, 3, 1, 4, 5, 2, 6, 7, 8), None),  # drawn: the board is full
        (connect_four_v3, (0, 4, 1, 4, 6, 4, 2, 4), 1),
    ],
    ids=["tictactoe-first-wins", "tictactoe-second-wins", "tictactoe-draw", "connect-four"],
)
def test_foreign_states_score_pettingzoos_rewards(game: Any, moves: tuple, winner: Any) -> None:
    env = played(game, ())
    state = AECGameState.from_env(env)
    for action in moves:
        assert not state.is_terminal()
        state = state.apply(action)
    assert state.is_terminal() and state.winner == winner and state.legal_actions() == []
    expected = {0: (1.0, -1.0), 1: (-1.0, 1.0), None: (0.0, 0.0)}[winner]
    assert state.returns() == expected
    first = env.possible_agents[0]
    assert env.agent_selection == first  # the env itself is still at the start
    assert not np.any(env.observe(first)["observation"])


def test_foreign_states_step_past_pettingzoos_lossy_deepcopy() -> None:
    """PettingZoo's classic games pickle through EzPickle: their deepcopy is a fresh env."""
    env = played(tictactoe_v3, (4, 0))
    assert not any(copy.deepcopy(env.unwrapped).board.squares)  # the game is lost
    state = AECGameState.from_env(env)
    assert state.legal_actions() == [1, 2, 3, 5, 6, 7, 8] and state.current_player == 0
    after = state.apply(8).apply(1)
    assert after.legal_actions() == [2, 3, 5, 6, 7]
    assert state.legal_actions() == [1, 2, 3, 5, 6, 7, 8]  # states are values


# --- envs of one's own: a pile of stones --------------------------------------------------------


class Pile:
    """Stones in an object copied as a handle on an outside engine may be: ``copying`` says how
    (``"keeps"``: a copy; ``"loses"``: a new full pile; ``"raises"``: no copy)."""

    def __init__(self, stones: int, copying: str = "keeps") -> None:
        self.start = self.stones = stones
        self.copying = copying

    def __deepcopy__(self, memo: dict) -> Pile:
        if self.copying == "raises":
            raise TypeError("a pile handle cannot be copied")
        copied = Pile(self.start, self.copying)
        if self.copying == "keeps":
            copied.stones = self.stones
        return copied


class NimEnv(AECEnv):
    """Take 1-3 stones; whoever takes the last stone wins. Losing positions: multiples of 4."""

    metadata: ClassVar[dict] = {"name": "nim_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, stones: int = 10, copying: str = "keeps") -> None:
        super().__init__()
        self.pile = Pile(stones, copying)
        self.possible_agents = ["a", "b"]

    def action_space(self, agent: str) -> spaces.Discrete:
        return spaces.Discrete(3)

    def observation_space(self, agent: str) -> spaces.Dict:
        return spaces.Dict(
            {
                "observation": spaces.Box(0, 100, (1,), np.int64),
                "action_mask": spaces.Box(0, 1, (3,), np.int8),
            }
        )

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.pile.stones = self.pile.start
        self.agents = self.possible_agents[:]
        self.agent_selection = "a"
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: {} for a in self.agents}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        mask = np.array([self.pile.stones >= k for k in (1, 2, 3)], dtype=np.int8)
        return {
            "observation": np.array([self.pile.stones]),
            "action_mask": mask if agent == self.agent_selection else mask * 0,
        }

    def step(self, action: int) -> None:
        mover = self.agent_selection
        other = "b" if mover == "a" else "a"
        self.pile.stones -= action + 1
        self.rewards = dict.fromkeys(self.agents, 0)
        if self.pile.stones == 0:
            self.rewards = {mover: 1, other: -1}
            self.terminations = dict.fromkeys(self.agents, True)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self._accumulate_rewards()
        self.agent_selection = other


class SnapshotNimEnv(NimEnv):
    """Nim that hands out its position (stones, agent to move); ``calls`` counts the calls of
    all instances (the env's and its copies')."""

    calls: ClassVar[Counter[str]] = Counter()

    def __init__(self, stones: int = 10, copying: str = "loses", restores: bool = True) -> None:
        super().__init__(stones, copying)
        self.restores = restores

    def get_state(self) -> tuple[int, str, bool]:
        self.calls["get_state"] += 1
        return self.pile.stones, self.agent_selection, self.terminations["a"]

    def set_state(self, state: tuple[int, str, bool]) -> None:
        self.calls["set_state"] += 1
        self.pile.stones, agent, over = state
        if self.restores:  # a broken pair forgets whose turn it is
            self.agent_selection = agent
        self.terminations = dict.fromkeys(self.agents, over)
        self.rewards = dict.fromkeys(self.agents, 0)


OFFER = (
    "to be searched it must offer get_state() and set_state(state), "
    "or a copy.deepcopy that keeps the game"
)


@pytest.mark.parametrize(
    ("copying", "why"),
    [
        ("loses", "copy.deepcopy of it loses the game (observe('a') differs)"),
        ("raises", "copy.deepcopy of it raised TypeError: a pile handle cannot be copied"),
    ],
)
def test_an_env_that_cannot_be_cloned_says_what_it_must_offer(copying: str, why: str) -> None:
    env = NimEnv(7, copying)
    env.reset()
    env.step(0)
    with pytest.raises(ValueError) as raised:
        MCTSAgent(budget=Budget(simulations=10), seed=0).act(env)
    message = str(raised.value)
    assert message == f"{NimEnv.__module__}.NimEnv cannot be cloned for search: {why}; {OFFER}"
    assert env.pile.stones == 6 and env.agent_selection == "b"


def test_a_copy_that_loses_the_game_only_after_a_move_is_refused() -> None:
    """At the start a fresh pile looks right: the clone of the position after a move is not."""
    env = NimEnv(7, "loses")
    env.reset()
    with pytest.raises(ValueError, match=r"loses the game after a move \(observe\('a'\) differs"):
        AECGameState.from_env(env)


def test_an_env_with_get_state_and_set_state_is_searched_through_them() -> None:
    env = SnapshotNimEnv(10)  # its deepcopy loses the game: only the pair can clone it
    env.reset()
    env.step(0)  # 9 stones, b to move: taking 1 leaves 8, a multiple of 4
    SnapshotNimEnv.calls.clear()
    agent = MCTSAgent(budget=Budget(simulations=300), seed=0)
    assert agent.act(env) == 0  # through env_state, as a user calls it
    info = agent.last_search
    assert info is not None and sum(move.visits for move in info.moves) == 300
    moves_tried = SnapshotNimEnv.calls
    assert moves_tried["set_state"] >= 300 and moves_tried["get_state"] >= 300
    assert env.pile.stones == 9 and env.agent_selection == "b" and not env.terminations["b"]


def test_a_pair_that_does_not_restore_the_game_is_refused_with_both_reasons() -> None:
    env = SnapshotNimEnv(10, restores=False)
    env.reset()
    env.step(0)
    with pytest.raises(ValueError) as raised:
        AECGameState.from_env(env)
    assert str(raised.value) == (
        f"{NimEnv.__module__}.SnapshotNimEnv cannot be cloned for search: "
        "set_state(get_state()) on a copy of it does not restore the game after a move "
        "(agent_selection is 'a', not 'b'); copy.deepcopy of it loses the game "
        f"(observe('a') differs); {OFFER}"
    )

"""Board symmetries (boardzoo.games.symmetry) checked against the rules, not against the code.

The rules of TicTacToe and Reversi do not change under the 8 transforms of the square, nor
Connect Four's under the left-right mirror. So a position transformed square by square, built
again through the game's own constructor (``from_text``), must have as legal moves exactly the
transformed legal moves, and playing the rest of a real game with every move transformed must
stay a legal game whose boards, legal masks and results are the transformed ones.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from boardzoo.games import ConnectFourState, ReversiState, TicTacToeState, make_game
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.games.symmetry import Symmetry, symmetries

GAMES = [
    ("tictactoe", {}),
    ("connect_four", {}),
    ("reversi", {"board_size": 4}),
    ("reversi", {"board_size": 6}),
    ("reversi", {"board_size": 8}),
]
IDS = ["tictactoe", "connect_four", "reversi4", "reversi6", "reversi8"]


def obs_of(state: BoardState) -> np.ndarray:
    """``[2, rows, cols]``: the mover's pieces, then the opponent's."""
    return np.moveaxis(state.planes(state.current_player), -1, 0)


def state_from_obs(game: Game, obs: np.ndarray, player: int) -> BoardState:
    """The position with these planes and ``player`` to move, built by the game's own parser."""
    x_plane, o_plane = (obs[0], obs[1]) if player == 0 else (obs[1], obs[0])
    text = "\n".join(
        " ".join("X" if x_plane[r, c] else "O" if o_plane[r, c] else "." for c in range(game.cols))
        for r in range(game.rows)
    )
    if game.name == "reversi":
        return ReversiState.from_text(text, current_player=player)
    if game.name == "tictactoe":
        return TicTacToeState.from_text(text)
    state = ConnectFourState.from_text(text)
    assert state.current_player == player
    return state


def random_game(game: Game, rng: np.random.Generator) -> tuple[list[BoardState], list[int]]:
    """A random game from the start: its positions (the last one terminal) and its moves."""
    state = game.initial_state()
    states, moves = [state], []
    while not state.is_terminal():
        move = int(rng.choice(state.legal_actions()))
        state = state.apply(move)
        states.append(state)
        moves.append(move)
    return states, moves


def check_transformed_line(
    game: Game, symmetry: Symmetry, states: list[BoardState], moves: list[int], start: int
) -> None:
    """From ``states[start]`` transformed and rebuilt, play ``moves[start:]`` transformed."""
    state = states[start]
    image = state_from_obs(game, symmetry.apply_obs(obs_of(state)), state.current_player)
    for index in range(start, len(moves) + 1):
        original = states[index]
        assert image.current_player == original.current_player
        np.testing.assert_array_equal(obs_of(image), symmetry.apply_obs(obs_of(original)))
        np.testing.assert_array_equal(
            image.legal_action_mask(), symmetry.apply_policy(original.legal_action_mask())
        )
        assert image.is_terminal() == original.is_terminal()
        assert image.winner == original.winner
        if index < len(moves):
            image = image.apply(symmetry.map_action(moves[index]))  # legal, or it raises


@pytest.mark.parametrize(("name", "options"), GAMES, ids=IDS)
def test_rules_are_invariant_from_any_position(name: str, options: dict[str, int]) -> None:
    game = make_game(name, **options)
    rng = np.random.default_rng(12)
    syms = symmetries(game)
    for _ in range(4):
        states, moves = random_game(game, rng)
        starts = sorted({0, *rng.integers(0, len(states), size=3).tolist()})
        for symmetry, start in itertools.product(syms, starts):
            check_transformed_line(game, symmetry, states, moves, start)


@pytest.mark.parametrize(("name", "options"), GAMES, ids=IDS)
def test_transformed_games_from_the_start(name: str, options: dict[str, int]) -> None:
    """Transforms that keep the start position replay a whole game from ``initial_state``."""
    game = make_game(name, **options)
    start = game.initial_state()
    keeping = [
        s for s in symmetries(game) if np.array_equal(s.apply_obs(obs_of(start)), obs_of(start))
    ]
    rng = np.random.default_rng(5)
    for _ in range(5):
        states, moves = random_game(game, rng)
        for symmetry in keeping:
            state = start
            for original, move in zip(states, moves, strict=False):
                np.testing.assert_array_equal(obs_of(state), symmetry.apply_obs(obs_of(original)))
                state = state.apply(symmetry.map_action(move))
            assert state.is_terminal() and state.winner == states[-1].winner


def test_which_transforms_keep_the_reversi_start() -> None:
    # White on the main diagonal, black on the other: the half turn and both diagonal
    # reflections keep it, the quarter turns and the mirrors swap the colours.
    for size in (4, 6, 8):
        game = make_game("reversi", board_size=size)
        start = obs_of(game.initial_state())
        keeping = {s.name for s in symmetries(game) if np.array_equal(s.apply_obs(start), start)}
        assert keeping == {"identity", "rot180", "transpose", "anti_transpose"}


def test_counts_and_names() -> None:
    expected = {"tictactoe": 8, "connect_four": 2, "reversi4": 8, "reversi6": 8, "reversi8": 8}
    for (name, options), key in zip(GAMES, IDS, strict=True):
        syms = symmetries(make_game(name, **options))
        assert len(syms) == expected[key]
        assert syms[0].name == "identity" and syms[0].is_identity
        assert not any(s.is_identity for s in syms[1:])
    assert [s.name for s in symmetries(make_game("connect_four"))] == ["identity", "mirror_lr"]


def test_hand_checked_moves() -> None:
    ttt = {s.name: s for s in symmetries(make_game("tictactoe"))}
    # a1 is the top-left square (action 0), c1 the top-right (2), a3 the bottom-left (6).
    assert ttt["rot90"].map_action(0) == 2  # a quarter turn clockwise
    assert ttt["rot270"].map_action(0) == 6
    assert ttt["mirror_lr"].map_action(0) == 2
    assert ttt["mirror_ud"].map_action(0) == 6
    assert ttt["transpose"].map_action(1) == 3  # b1 -> a2
    assert all(s.map_action(4) == 4 for s in ttt.values())  # the centre stays
    c4 = symmetries(make_game("connect_four"))[1]
    assert [c4.map_action(a) for a in range(7)] == [6, 5, 4, 3, 2, 1, 0]
    reversi = make_game("reversi", board_size=8)
    for symmetry in symmetries(reversi):
        assert symmetry.map_action(reversi.pass_action) == reversi.pass_action
    rot90 = {s.name: s for s in symmetries(reversi)}["rot90"]
    assert reversi.action_name(rot90.map_action(reversi.parse_action("a1"))) == "h1"


@pytest.mark.parametrize(("name", "options"), GAMES, ids=IDS)
def test_group_structure(name: str, options: dict[str, int]) -> None:
    """The transforms are distinct permutations, closed under composition, with inverses."""
    game = make_game(name, **options)
    syms = symmetries(game)
    perms = {tuple(s.square_source.tolist()) for s in syms}
    actions = {tuple(s.action_source.tolist()) for s in syms}
    assert len(perms) == len(actions) == len(syms)
    for a, b in itertools.product(syms, syms):
        composed_squares = tuple(a.square_source[b.square_source].tolist())
        composed_actions = tuple(a.action_source[b.action_source].tolist())
        assert composed_squares in perms and composed_actions in actions
    for s in syms:
        assert np.array_equal(s.action_source[s.action_target], np.arange(game.num_actions))


def test_batched_and_any_leading_axes() -> None:
    game = make_game("reversi", board_size=6)
    rng = np.random.default_rng(0)
    obs = rng.integers(0, 2, size=(5, 2, 6, 6)).astype(np.int8)
    policy = rng.random((5, 37)).astype(np.float32)
    for s in symmetries(game):
        batch = s.apply_obs(obs)
        assert batch.dtype == obs.dtype and batch.shape == obs.shape
        for i in range(5):
            np.testing.assert_array_equal(batch[i], s.apply_obs(obs[i]))
            np.testing.assert_array_equal(batch[i, 1], s.apply_obs(obs[i, 1]))
        np.testing.assert_array_equal(np.sort(s.apply_policy(policy)), np.sort(policy))
    rot90 = symmetries(game)[1]
    np.testing.assert_array_equal(rot90.apply_obs(obs), np.rot90(obs, k=-1, axes=(2, 3)))


def test_bad_arguments() -> None:
    s = symmetries(make_game("tictactoe"))[1]
    with pytest.raises(ValueError, match="board's shape"):
        s.apply_obs(np.zeros((2, 4, 4)))
    with pytest.raises(ValueError, match="9 actions"):
        s.apply_policy(np.zeros(10))
    with pytest.raises(ValueError, match=r"0\.\.8"):
        s.map_action(9)

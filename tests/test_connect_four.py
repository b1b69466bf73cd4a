"""Connect Four against facts from outside the code.

- move-sequence counts from the empty board: 7**n for n <= 6 (every column is open and no game
  can end before ply 7), 7**7 - 7 at ply 7 (the 7 sequences that filled one column leave 6
  moves), and plies 8 and 9 as the simple reference (``reference_connect_four``) counted them;
- distinct positions after n plies: OEIS A212693 (Tromp; Edelkamp and Kissmann);
- PettingZoo's own ``connect_four_v3``, move for move over hundreds of random games;
- hand-made positions (wins in every direction, lines that would wrap around the board in a
  naive layout, a full-board draw) and hypothesis games against the simple reference;
- PettingZoo's and Gymnasium's API checkers.
"""

from __future__ import annotations

import copy
import itertools
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
import reference_connect_four as ref
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.classic import connect_four_v3
from pettingzoo.test import api_test, render_test, seed_test

import boardzoo  # noqa: F401 (registers the ids)
from boardzoo.envs import connect_four_v0
from boardzoo.envs.single_agent import BoardGameSingleAgentEnv
from boardzoo.games import IllegalMoveError
from boardzoo.games import connect_four_kernels as kernels
from boardzoo.games.catalog import get_game, initial_state, make_game
from boardzoo.games.connect_four import SPEC, ConnectFourState
from boardzoo.games.spec import WIN_SCORE
from boardzoo.speed import perft

GAME = make_game("connect_four")
PARAMS = GAME.params
# Move sequences of n plies from the empty board (a finished game is one leaf).
PERFT = (1, 7, 49, 343, 2401, 16807, 117649, 823536)
# Plies 8 and 9 as reference_connect_four.perft counted them once (17 s and 202 s).
REFERENCE_PERFT_8_9 = (5_686_266, 39_452_034)
# OEIS A212693: legal 7x6 Connect Four positions after n plies.
A212693 = (1, 7, 49, 238, 1120, 4263, 16422, 54859, 184275)


# --- helpers: the layout the kernels document (bit col * 7 + height, height 0 the bottom) ----


def bits_to_board(s0: int, s1: int) -> ref.Board:
    """The reference board of two bitboards (bit ``col * 7 + height``, height 0 the bottom)."""
    board = ref.new_board()
    for col in range(7):
        for height in range(6):
            bit = 1 << (col * 7 + height)
            if s0 & bit:
                board[5 - height][col] = 0
            elif s1 & bit:
                board[5 - height][col] = 1
    return board


def board_text(board: ref.Board) -> str:
    return "\n".join(" ".join("." if cell is None else "XO"[cell] for cell in row) for row in board)


def columns(*stacks: str) -> ConnectFourState:
    """A position from each column's discs, bottom first (``"XO"``: red at the bottom)."""
    board = ref.new_board()
    for col, stack in enumerate(stacks):
        for height, char in enumerate(stack):
            board[5 - height][col] = "XO".index(char)
    return ConnectFourState.from_text(board_text(board))


def play(moves: list[int]) -> ConnectFourState:
    state = ConnectFourState.initial()
    for move in moves:
        state = state.apply(move)
    return state


def random_states(seed: int, games: int) -> list[ConnectFourState]:
    """Every position of ``games`` random games, finished ones included."""
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(games):
        state = ConnectFourState.initial()
        states.append(state)
        while not state.is_terminal():
            state = state.apply(int(rng.choice(state.legal_actions())))
            states.append(state)
    return states


def state_perft(state: ConnectFourState, depth: int) -> int:
    if depth == 0 or state.is_terminal():
        return 1
    return sum(state_perft(state.apply(a), depth - 1) for a in state.legal_actions())


def u64(value: int) -> np.uint64:
    return np.uint64(value)


# --- counting: perft and distinct positions ----------------------------------------------------


def test_perft_values_are_the_known_ones():
    assert PERFT[:7] == tuple(7**n for n in range(7))
    assert PERFT[7] == 7**7 - 7


@pytest.mark.parametrize("depth", range(8))
def test_reference_perft(depth):
    assert ref.perft(depth) == PERFT[depth]


@pytest.mark.parametrize("depth", range(10))
def test_library_perft(depth):
    expected = (*PERFT, *REFERENCE_PERFT_8_9)[depth]
    assert perft(GAME, depth) == expected


@pytest.mark.parametrize("depth", range(6))
def test_perft_through_the_public_api(depth):
    assert state_perft(ConnectFourState.initial(), depth) == PERFT[depth]


def test_distinct_positions_after_n_plies_match_oeis_a212693():
    level = {ConnectFourState.initial()}
    for plies, expected in enumerate(A212693):
        if plies:
            level = {s.apply(a) for s in level if not s.is_terminal() for a in s.legal_actions()}
        assert len(level) == expected, plies


def test_library_perft_matches_the_public_api_from_random_positions():
    for state in random_states(seed=8, games=3)[::5]:
        assert perft(GAME, 3, state) == state_perft(state, 3)


# --- PettingZoo's connect_four_v3, move for move -----------------------------------------------


def open_columns(state: ConnectFourState) -> list[int]:
    return [1 if state.square_owner(0, col) is None else 0 for col in range(7)]


def test_same_as_pettingzoo_connect_four_v3_move_for_move():
    """Observations of both agents, masks, rewards, terminations and truncations, over 300
    seeded random games with a few illegal moves (PettingZoo's wrappers end those games).

    One documented difference: once a game is won or drawn, our mask is all zeros, while
    connect_four_v3 still marks the open columns for the agent selected after the last move.
    """
    endings = {"won": 0, "drawn": 0, "illegal move": 0}
    for game in range(300):
        ours, theirs = connect_four_v0.env(), connect_four_v3.env()
        rng = np.random.default_rng(game)
        for env in (ours, theirs):
            env.reset(seed=game)
        ending = None
        while ours.agents or theirs.agents:
            assert ours.agents == theirs.agents
            assert ours.agent_selection == theirs.agent_selection
            assert ours.rewards == theirs.rewards
            assert ours.terminations == theirs.terminations
            assert ours.truncations == theirs.truncations
            state = ours.unwrapped.get_state()
            for agent in ours.agents:
                mine, pz = ours.observe(agent), theirs.observe(agent)
                assert mine["observation"].dtype == pz["observation"].dtype == np.int8
                np.testing.assert_array_equal(mine["observation"], pz["observation"])
                if state.is_terminal():
                    assert not mine["action_mask"].any()
                    selected = agent == theirs.agent_selection
                    expected = open_columns(state) if selected else [0] * 7
                    np.testing.assert_array_equal(pz["action_mask"], expected)
                else:
                    np.testing.assert_array_equal(mine["action_mask"], pz["action_mask"])
            last = ours.last()
            assert last[1:4] == theirs.last()[1:4]  # reward, termination, truncation
            observation, _, termination, truncation, _ = last
            full = [col for col, free in enumerate(open_columns(state)) if not free]
            if termination or truncation:
                action = None
                if ending is None:
                    ending = "illegal move" if not state.is_terminal() else "won"
                    ending = "drawn" if state.is_terminal() and state.winner is None else ending
            elif full and rng.random() < 0.03:
                action = int(rng.choice(full))  # an illegal drop into a full column
            else:
                action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the illegal-move warnings
                ours.step(action)
                theirs.step(action)
        assert ending is not None
        endings[ending] += 1
    # Both kinds of ending were compared (draws are rare in random play).
    assert endings["won"] > 100 and endings["illegal move"] > 10, endings


# --- hand-checked positions --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("moves", "winner", "line"),
    [
        # Horizontal: red fills the bottom row a..d.
        ([0, 0, 1, 1, 2, 2, 3], 0, ((5, 0), (5, 1), (5, 2), (5, 3))),
        # Vertical: red stacks column a, yellow column b.
        ([0, 1, 0, 1, 0, 1, 0], 0, ((2, 0), (3, 0), (4, 0), (5, 0))),
        # Rising diagonal a1 b2 c3 d4 (heights 0..3).
        ([0, 1, 1, 2, 2, 3, 2, 3, 3, 5, 3], 0, ((5, 0), (4, 1), (3, 2), (2, 3))),
        # Falling diagonal d4 e3 f2 g1: the mirror image.
        ([6, 5, 5, 4, 4, 3, 4, 3, 3, 1, 3], 0, ((2, 3), (3, 4), (4, 5), (5, 6))),
        # Yellow wins vertically in column g.
        ([0, 6, 1, 6, 0, 6, 1, 6], 1, ((2, 6), (3, 6), (4, 6), (5, 6))),
    ],
)
def test_wins_in_every_direction(moves, winner, line):
    state = play(moves[:-1])
    assert not state.is_terminal() and state.winner is None
    state = state.apply(moves[-1])
    board = ref.new_board()
    for ply, move in enumerate(moves):
        board = ref.drop(board, move, ply % 2)
    assert ref.winner(board) == winner  # the reference agrees
    assert state.is_terminal() and state.winner == winner
    assert state.returns() == ((1.0, -1.0) if winner == 0 else (-1.0, 1.0))
    assert state.legal_actions() == [] and not state.legal_action_mask().any()
    assert state.winning_line() == line
    done, code = kernels.outcome(*map(u64, state.bitboards()), 1 - winner, PARAMS)
    assert done and code == (2 if winner == 0 else 0)
    with pytest.raises(IllegalMoveError, match="the game is over"):
        state.apply(moves[0])


def test_a_line_of_five_gives_all_five_squares():
    # Red drops d last, joining b c and e f: five in a row on the bottom row.
    state = play([1, 1, 2, 2, 4, 4, 5, 5, 3])
    assert state.winner == 0
    assert state.winning_line() == ((5, 1), (5, 2), (5, 3), (5, 4), (5, 5))


# Positions with four red discs that would be a line if the board wrapped around: from the top
# of one column to the bottom of the next, from the end of a row to the start of the next, or
# along a diagonal that leaves the board at one edge and comes back at the other.
WRAPPED_LINES = {
    "column top to next bottom": columns("OXOOXX", "XXO"),
    "row end to next row start": columns("OX", "O", "O", "", "X", "X", "X"),
    "rising diagonal over the top": columns("OXOX", "XOOXX", "OXOXOX", "OO", "X"),
    "falling diagonal under the bottom": columns("OOX", "OX", "XOOXOX", "OX", "X"),
}


@pytest.mark.parametrize("name", list(WRAPPED_LINES))
def test_no_line_wraps_around_the_board(name):
    state = WRAPPED_LINES[name]
    board = bits_to_board(*state.bitboards())
    assert ref.winner(board) is None and not ref.is_full(board)
    assert not state.is_terminal() and state.winner is None and state.winning_line() is None
    red, yellow = map(u64, state.bitboards())
    assert not kernels.has_four(red) and not kernels.has_four(yellow)
    assert kernels.outcome(red, yellow, state.current_player, PARAMS) == (False, 1)


FULL_DRAW = """
    X O X O X O X
    X O X O X O X
    X O X O X O X
    O X O X O X O
    O X O X O X O
    O X O X O X O
"""


def test_full_board_draw():
    board = [[None if c == "." else "XO".index(c) for c in line.split()] for line in
             FULL_DRAW.strip().splitlines()]  # fmt: skip
    assert ref.is_full(board) and ref.winner(board) is None
    state = ConnectFourState.from_text(FULL_DRAW)
    assert state.is_terminal() and state.winner is None and state.returns() == (0.0, 0.0)
    assert state.legal_actions() == [] and not state.legal_action_mask().any()
    assert state.winning_line() is None
    assert state.disc_counts() == (21, 21)
    s0, s1 = map(u64, state.bitboards())
    assert kernels.outcome(s0, s1, 0, PARAMS) == (True, 1)
    assert kernels.final_score(s0, s1, 0, PARAMS) == 0
    # The last drop makes the draw: take yellow's top disc off column b and drop it again.
    before = ConnectFourState.from_text(FULL_DRAW.replace("X O X O X O X", "X . X O X O X", 1))
    assert before.current_player == 1 and before.legal_actions() == [1]
    after = before.apply(1)
    assert after == state and after.is_terminal() and after.winner is None
    assert "draw" in str(after)


# --- the state API -----------------------------------------------------------------------------


def test_game_and_spec():
    assert get_game("connect_four") is SPEC
    assert GAME is SPEC.make() and ConnectFourState.initial().game is GAME
    assert (GAME.rows, GAME.cols, GAME.num_actions, GAME.pass_action) == (6, 7, 7, None)
    assert GAME.action_names == ("a", "b", "c", "d", "e", "f", "g")
    assert [GAME.action_name(a) for a in range(7)] == list("abcdefg")
    assert GAME.parse_action("D") == 3 and GAME.parse_action("6") == 6
    with pytest.raises(ValueError, match=r"expected a\.\.g, or an action number 0\.\.6"):
        GAME.parse_action("h")
    assert all(GAME.square_action(row, col) == col for row in range(6) for col in range(7))
    board_mask = int(GAME.params[0])
    assert board_mask.bit_count() == 42
    assert board_mask == sum(1 << (c * 7 + h) for c in range(7) for h in range(6))
    assert GAME.params.dtype == np.uint64
    assert SPEC.agents == ("player_0", "player_1") and SPEC.sides == ("red", "yellow")
    assert SPEC.look.grid_style == "holes" and not SPEC.look.ranks
    assert initial_state("connect_four") == ConnectFourState.initial()


def test_start_position_and_first_drop():
    state = ConnectFourState.initial()
    assert state.current_player == 0 and state.legal_actions() == list(range(7))
    mask = state.legal_action_mask()
    assert mask.dtype == np.int8 and mask.tolist() == [1] * 7
    assert state.move_square(3) == (5, 3)
    state = state.apply(3)
    assert state.current_player == 1
    assert state.square_owner(5, 3) == 0 and state.placed_square(3) == (5, 3)
    assert state.move_square(3) == (4, 3)
    planes = state.planes(0)
    assert planes.shape == (6, 7, 2) and planes.dtype == np.int8
    assert planes[5, 3, 0] == 1 and planes.sum() == 1
    assert state.planes(1)[5, 3, 1] == 1
    assert state.disc_counts() == (1, 0)
    assert not state.must_pass()


def test_full_column_is_illegal():
    state = play([0] * 6)
    assert state.legal_actions() == [1, 2, 3, 4, 5, 6]
    assert state.legal_action_mask().tolist() == [0, 1, 1, 1, 1, 1, 1]
    assert not state.is_legal(0) and not state.is_legal(7) and not state.is_legal(-1)
    with pytest.raises(
        IllegalMoveError,
        match=r"illegal move a \(action 0\) for red: column a is full; "
        r"legal moves: b, c, d, e, f, g \(actions \[1, 2",
    ):
        state.apply(0)
    with pytest.raises(IllegalMoveError, match=r"actions are 0\.\.6"):
        state.apply(7)
    with pytest.raises(IllegalMoveError, match="not an integer"):
        state.apply(1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="column a is full"):
        state.move_square(0)
    with pytest.raises(ValueError, match="column b is empty"):
        state.placed_square(1)
    with pytest.raises(ValueError, match=r"action must be a column 0\.\.6, got 7"):
        state.move_square(7)
    assert state.placed_square(0) == (0, 0)


def test_text_round_trip_and_str():
    state = play([3, 3, 4, 2])
    text = state.to_text()
    assert text.splitlines()[-1] == ". . O X X . ."
    assert text.splitlines()[-2] == ". . . O . . ."
    assert ConnectFourState.from_text(text) == state
    assert str(state).endswith("red (X) to move")
    assert str(state.apply(0)).endswith("yellow (O) to move")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"red": 1 << 6}, "red must be a bitboard of the 42 cells"),  # a sentinel bit
        ({"red": -1}, "red must be a bitboard"),
        ({"red": 1, "yellow": 1}, "share cells"),
        ({"yellow": 1}, "red must have as many discs as yellow or one more, got 0 and 1"),
        ({"red": 0b11}, "red must have as many discs as yellow or one more, got 2 and 0"),
        ({"red": 0b10}, "discs must rest on the bottom or on a disc"),
    ],
)
def test_constructor_refuses_impossible_positions(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ConnectFourState(**kwargs)


def test_constructor_refuses_wins_by_the_wrong_side():
    with pytest.raises(ValueError, match="red has four in a row, so red moved last"):
        columns("XXXX", "OOO", "O")  # equal counts: yellow moved last
    with pytest.raises(ValueError, match="both have four in a row"):
        columns("XXXX", "OOOO", "X")
    with pytest.raises(ValueError, match="yellow has four in a row, so yellow moved last"):
        columns("XXX", "OOOO", "XX")
    with pytest.raises(ValueError, match="expected 6 rows of 7 cells"):
        ConnectFourState.from_text("X......")
    with pytest.raises(ValueError, match="unknown cell 'R' in row 6"):
        ConnectFourState.from_text("\n".join(["......."] * 5 + ["R......"]))


def test_states_are_values():
    state = play([3, 2, 3])
    assert state == play([3, 2, 3]) and hash(state) == hash(play([3, 2, 3]))
    assert pickle.loads(pickle.dumps(state)) == state
    assert copy.deepcopy(state).game is GAME
    with pytest.raises(AttributeError):
        state.red = 0  # type: ignore[misc]


@settings(max_examples=150, deadline=None)
@given(choices=st.lists(st.integers(0, 6), min_size=1, max_size=60))
def test_random_games_against_the_reference(choices):
    """Winner, legal moves and the board after every move, as the reference computes them."""
    state = ConnectFourState.initial()
    board = ref.new_board()
    for choice in choices:
        legal = ref.legal_columns(board) if not ref.is_over(board) else []
        assert state.legal_actions() == legal
        assert state.legal_action_mask().tolist() == [int(c in legal) for c in range(7)]
        if not legal:
            break
        col = legal[choice % len(legal)]
        row = ref.landing_row(board, col)
        assert state.move_square(col) == (row, col)
        player = ref.to_move(board)
        assert state.current_player == player
        board = ref.drop(board, col, player)
        state = state.apply(col)
        assert state.placed_square(col) == (row, col)
        assert state.to_text() == board_text(board)
        assert bits_to_board(*state.bitboards()) == board
        assert state.planes(0).tolist() == ref.planes(board, 0)
        assert state.planes(1).tolist() == ref.planes(board, 1)
        assert state.disc_counts() == ref.disc_counts(board)
        assert state.winner == ref.winner(board)
        assert state.is_terminal() == ref.is_over(board)
        line = state.winning_line()
        if state.winner is None:
            assert line is None
        else:
            assert len(line) >= 4 and all(board[r][c] == state.winner for r, c in line)
            steps = {(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(line)}
            assert len(steps) == 1 and steps <= {(0, 1), (1, 0), (-1, 1), (1, 1)}
            assert (row, col) in line  # the winning drop is on the line


# --- the compiled kernels ----------------------------------------------------------------------


def cell_square(cell: int) -> tuple[int, int]:
    return 5 - cell % 7, cell // 7


def test_kernels_against_the_reference_on_random_positions():
    for state in random_states(seed=1, games=40):
        red, yellow = state.bitboards()
        s0, s1 = u64(red), u64(yellow)
        board = bits_to_board(red, yellow)
        player = ref.to_move(board)
        done, code = kernels.outcome(s0, s1, player, PARAMS)
        assert done == ref.is_over(board)
        cells = int(kernels.placements(s0, s1, player, PARAMS))
        if done:
            expected = {0: 2, 1: 0, None: 1}[ref.winner(board)]
            assert code == expected
            assert cells == 0  # nothing to fill once the game is over
            continue
        found = [b for b in range(64) if cells >> b & 1]
        legal = ref.legal_columns(board)
        assert sorted(cell_square(c) for c in found) == sorted(
            (ref.landing_row(board, col), col) for col in legal
        )
        for cell in found:
            col = kernels.cell_action(cell, PARAMS)
            assert col == cell_square(cell)[1]
            c0, c1 = kernels.place(s0, s1, player, cell, PARAMS)
            assert bits_to_board(int(c0), int(c1)) == ref.drop(board, col, player)


def test_greedy_takes_the_win_then_the_block():
    def best(state: ConnectFourState) -> list[int]:
        s0, s1 = map(u64, state.bitboards())
        player = state.current_player
        cells = int(kernels.placements(s0, s1, player, PARAMS))
        scores = {
            kernels.cell_action(c, PARAMS): kernels.greedy_score(s0, s1, player, c, PARAMS)
            for c in range(64)
            if cells >> c & 1
        }
        top = max(scores.values())
        return [col for col, score in scores.items() if score == top]

    # Red to move: red wins in column d (bottom row a b c), yellow threatens column g.
    assert best(columns("X", "X", "X", "", "", "", "OOO")) == [3]
    # Yellow to move, no win of its own: it must block red's bottom row at d.
    assert best(columns("X", "X", "X", "", "", "O", "O")) == [3]
    # Red to move; yellow holds b c d on height 1: red blocks at a, and dropping into e (landing
    # on height 0) would hand yellow e on height 1, so e scores below every other drop.
    state = columns("X", "XO", "XO", "OO", "", "X")
    s0, s1 = map(u64, state.bitboards())
    assert state.current_player == 0
    drop_e = kernels.greedy_score(s0, s1, 0, 4 * 7, PARAMS)
    assert all(
        drop_e < kernels.greedy_score(s0, s1, 0, cell, PARAMS)
        for cell in (0 * 7 + 1, 1 * 7 + 2, 2 * 7 + 2, 3 * 7 + 2, 5 * 7 + 1, 6 * 7)
    )


def mirrored(state: ConnectFourState) -> ConnectFourState:
    return ConnectFourState.from_text(
        "\n".join(line[::-1] for line in state.to_text().splitlines())
    )


def evaluate(state: ConnectFourState, player: int | None = None) -> int:
    """The kernel's evaluation for ``player`` (the player to move by default)."""
    s0, s1 = map(u64, state.bitboards())
    player = state.current_player if player is None else player
    return kernels.evaluate(s0, s1, player, kernels.placements(s0, s1, player, PARAMS), PARAMS)


def immediate_wins(state: ConnectFourState, player: int) -> int:
    board = bits_to_board(*state.bitboards())
    return sum(ref.has_four(ref.drop(board, col, player), player) for col in state.legal_actions())


def test_evaluate_is_a_zero_sum_symmetric_heuristic():
    assert evaluate(ConnectFourState.initial()) == 0
    calm = 0
    for state in random_states(seed=2, games=20):
        if state.is_terminal() or immediate_wins(state, 0) or immediate_wins(state, 1):
            continue
        calm += 1
        score = evaluate(state, 0)
        assert evaluate(state, 1) == -score
        assert abs(score) < WIN_SCORE // 100
        assert evaluate(mirrored(state), 0) == score  # the game is left-right symmetric
    assert calm > 50
    # Three red discs on the bottom row with both ends open, yellow to move and no win for it:
    # good for red, and yellow cannot block both ends.
    state = columns("", "X", "X", "X", "", "O", "O")
    assert state.current_player == 1
    assert evaluate(state) <= -kernels.W_WIN_NEXT
    # The player to move who can win at once is as good as won.
    assert evaluate(columns("X", "X", "X", "", "O", "O", "O")) == kernels.W_WIN_NEXT
    assert kernels.W_WIN_NEXT < WIN_SCORE // 100
    # Without threats: a disc in the centre is worth more than one on the edge.
    assert evaluate(play([3]), 0) > evaluate(play([0]), 0) > 0
    assert evaluate(play([3, 0]), 0) > 0  # red in the centre, yellow on the edge


def test_final_score_and_order_key():
    won = play([0, 1, 0, 1, 0, 1, 0])  # red won with 7 discs down, 35 empty
    s0, s1 = map(u64, won.bitboards())
    assert kernels.final_score(s0, s1, 0, PARAMS) == WIN_SCORE + 35
    assert kernels.final_score(s0, s1, 1, PARAMS) == -WIN_SCORE - 35
    empty = u64(0)
    keys = {col: kernels.order_key(empty, empty, 0, col * 7, 4, PARAMS) for col in range(7)}
    assert sorted(range(7), key=lambda col: (keys[col], col)) == [3, 2, 4, 1, 5, 0, 6]
    # A winning drop comes first, then a block, wherever they are.
    state = columns("X", "X", "X", "", "", "", "OOO")
    s0, s1 = map(u64, state.bitboards())
    win = kernels.order_key(s0, s1, 0, 3 * 7, 4, PARAMS)
    block = kernels.order_key(s0, s1, 0, 6 * 7 + 3, 4, PARAMS)
    centre = kernels.order_key(s0, s1, 0, 4 * 7, 4, PARAMS)
    assert win < block < centre


def test_rollout_plays_to_a_result():
    won = play([0, 1, 0, 1, 0, 1, 0])
    score, rng = kernels.rollout(*map(u64, won.bitboards()), 1, PARAMS, 0, u64(7))
    assert score == 1.0 and rng == 7  # already over: no random number drawn
    draw = ConnectFourState.from_text(FULL_DRAW)
    assert kernels.rollout(*map(u64, draw.bitboards()), 0, PARAMS, 0, u64(7))[0] == 0.5
    rng = u64(12345)
    scores = []
    for _ in range(2000):
        score, rng = kernels.rollout(u64(0), u64(0), 0, PARAMS, 0, rng)
        scores.append(score)
    assert set(scores) <= {0.0, 0.5, 1.0}
    # Random play from the start: the first player wins more often than the second.
    assert 0.5 < np.mean(scores) < 0.7
    # The same RNG state plays the same game.
    assert kernels.rollout(u64(0), u64(0), 0, PARAMS, 0, u64(99)) == kernels.rollout(
        u64(0), u64(0), 0, PARAMS, 0, u64(99)
    )


# --- the envs ------------------------------------------------------------------------------------


def test_pettingzoo_api_test():
    api_test(connect_four_v0.env(), num_cycles=1000)


def test_pettingzoo_seed_test():
    seed_test(connect_four_v0.env, num_cycles=500)


def test_pettingzoo_render_test(monkeypatch):
    # "human" mode waits 1 / render_fps seconds per frame; the dummy display needs no pacing.
    monkeypatch.setitem(connect_four_v0.raw_env.metadata, "render_fps", 1000)
    render_test(connect_four_v0.env)


def test_deepcopy_pickle_and_snapshots():
    env = connect_four_v0.env()
    env.reset(seed=1)
    for action in (3, 3, 4):
        env.step(action)
    snapshot = env.unwrapped.get_state()
    assert snapshot == play([3, 3, 4])
    for clone in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert clone.unwrapped.game is GAME
        assert clone.unwrapped.get_state() == snapshot
        assert clone.agent_selection == "player_1"
        clone.step(0)
        assert env.unwrapped.get_state() == snapshot  # the clone plays on by itself
    # set_state: a finished game ends the episode with its rewards.
    env.unwrapped.set_state(play([0, 1, 0, 1, 0, 1, 0]))
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1, "player_1": -1}
    env.unwrapped.set_state(snapshot)
    assert env.agent_selection == "player_1" and not any(env.terminations.values())
    with pytest.raises(TypeError, match="position of connect_four, got one of tictactoe"):
        env.unwrapped.set_state(initial_state("tictactoe"))


def test_raw_env_raises_and_wrapped_env_ends_on_illegal_moves():
    raw = connect_four_v0.raw_env()
    raw.reset()
    for _ in range(6):
        raw.step(0)
    with pytest.raises(IllegalMoveError, match=r"illegal move a \(action 0\)"):
        raw.step(0)
    env = connect_four_v0.env()
    env.reset()
    for _ in range(6):
        env.step(0)
    env.last()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(0)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1, "player_1": 0}


@pytest.mark.rl
def test_single_agent_env_checkers():
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = gym.make("boardzoo/ConnectFour-v0", opponent="random", learner_color="yellow")
    gym.utils.env_checker.check_env(env.unwrapped)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3 notes that (6, 7, 2) int8 is no uint8 image
        sb3_check_env(env.unwrapped)
    obs, info = env.reset(seed=0)
    assert obs.shape == (6, 7, 2) and obs[..., 1].sum() == 1  # red has dropped one disc
    assert info["action_mask"].tolist() == [1] * 7


def test_single_agent_episodes_reward_the_learner():
    env = BoardGameSingleAgentEnv("connect_four", opponent="random")
    rng = np.random.default_rng(0)
    for episode in range(20):
        _, info = env.reset(seed=episode)
        while True:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, reward, terminated, truncated, info = env.step(action)
            assert not truncated
            if terminated:
                break
            assert reward == 0.0
        assert env.state.is_terminal()
        assert reward == env.state.returns()[env.learner]

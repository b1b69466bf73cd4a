"""The exact solver (boardzoo.gametree.solve) against facts from outside the code.

- Reversi: a plain negamax over the independent reference rules of ``reference_reversi`` (no
  pruning tricks, scored as Othello counts a game: the empty squares go to the winner) on
  random positions near the end (3 to 8 empties, passes and a draw among them), every move's
  score compared; the 4x4 game from the start (known: the second player wins 11-3, two squares
  left empty, so -10 for the first player); the FFO endgame positions #1-#19 with their
  published scores (``tests/data/ffo``: copied from edax-reversi, see its README).
- Other games (the search core's exact negamax): TicTacToe from the start is a draw with every
  first move, and Connect Four positions near the end against ``reference_connect_four``
  (Connect Four's own solver: ``test_connect_four_solver.py``).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
import reference_connect_four as c4
from fake_clock import HOUR, shifted_ns
from reference_reversi import RefGame, place, placements

from boardzoo.games import ReversiState, make_game
from boardzoo.games.connect_four import from_columns
from boardzoo.gametree.solve import forget_tables, solve

FFO = Path(__file__).resolve().parent / "data" / "ffo"  # see its README.md


def reference_score(game: RefGame) -> int:
    """The final disc difference for the player to move with perfect play (plain negamax)."""
    return _negamax(tuple(map(tuple, game.board)), game.player, False)


@cache
def _negamax(board: tuple[tuple[str, ...], ...], player: int, passed: bool) -> int:
    grid = [list(row) for row in board]
    moves = placements(grid, player)
    if not moves:
        if passed or not placements(grid, 1 - player):
            cells = [c for row in grid for c in row]
            mine, theirs = cells.count("XO"[player]), cells.count("XO"[1 - player])
            empty = len(cells) - mine - theirs
            diff = mine - theirs
            return diff + empty if diff > 0 else diff - empty if diff < 0 else 0
        return -_negamax(board, 1 - player, True)
    return max(
        -_negamax(tuple(map(tuple, place(grid, player, r, c))), 1 - player, False) for r, c in moves
    )


def reference_move_scores(game: RefGame) -> dict[int, int]:
    """Every legal action's score for the player to move."""
    scores = {}
    for action in game.legal_actions():
        child = game.play(action)
        scores[action] = -reference_score(child)
    return scores


def _to_state(game: RefGame) -> ReversiState:
    text = "\n".join("".join(row) for row in game.board)
    return ReversiState.from_text(text, game.player)


def random_endgames(count: int, empties: int, seed: int) -> list[RefGame]:
    """Positions of random 8x8 games with ``empties`` empty squares, the game still on."""
    rng = np.random.default_rng(seed)
    found: list[RefGame] = []
    while len(found) < count:
        game = RefGame.start(8)
        while sum(row.count(".") for row in game.board) > empties and game.legal_actions():
            actions = game.legal_actions()
            game = game.play(int(actions[rng.integers(len(actions))]))
        if game.legal_actions() and sum(row.count(".") for row in game.board) == empties:
            found.append(game)
    return found


#: Positions compared at each number of empties: the first ones of the same random games as
#: ever, enough to meet a pass at the root (the 14th with 3 empties, the 17th with 5) and a drawn
#: position (the 16th with 8); the reference's plain negamax takes about 0.2 s for one with 8.
REFERENCE_POSITIONS = {3: 20, 5: 20, 7: 20, 8: 16}


@pytest.mark.parametrize("empties", list(REFERENCE_POSITIONS))
def test_reversi_scores_and_best_moves_match_the_reference(empties):
    for game in random_endgames(REFERENCE_POSITIONS[empties], empties, seed=empties):
        state = _to_state(game)
        expected = reference_move_scores(game)
        result = solve(state, all_moves=True)
        assert result.move_scores == expected, game.board
        best = max(expected.values())
        assert result.score == best
        assert set(result.best_moves) == {a for a, v in expected.items() if v == best}
        quick = solve(state)
        assert quick.score == best and quick.best_moves[0] in result.best_moves
        wld = solve(state, exact=False)
        assert np.sign(wld.score) == np.sign(best) and (best != 0 or wld.score == 0)


def test_reversi_4x4_is_won_by_the_second_player_11_to_3():
    result = solve(make_game("reversi", board_size=4).initial_state(), all_moves=True)
    assert result.score == -10  # 3-11 with two squares empty, which go to the winner
    assert set(result.move_scores.values()) == {-10}  # the four first moves are symmetric


def _ffo_lines(name: str) -> list[str]:
    return [line for line in (FFO / name).read_text().splitlines() if line.strip()]


def _published(line: str) -> dict[str, int]:
    return {
        part.split(":")[0].strip().lower(): int(part.split(":")[1])
        for part in line.split(";")[1:]
        if ":" in part
    }


def test_ffo_1_to_19_get_their_published_scores_and_moves():
    for number, line in enumerate(_ffo_lines("fforum-1-19.obf"), start=1):
        state = ReversiState.from_obf(line)
        published = _published(line)
        best = max(published.values())
        result = solve(state)
        move = state.game.action_name(result.best_moves[0])
        assert result.score == best, f"FFO #{number}"
        assert published.get(move) == best, f"FFO #{number}: {move} is not a best move"


def test_the_generic_solver_draws_tictactoe_and_solves_late_connect_four():
    """The exact mode with the hooks' defaults (games without a plug-in of their own): TicTacToe
    through ``solve``; Connect Four (which has its own plug-in) by compiling it without."""
    from boardzoo.budget import new_counters
    from boardzoo.gametree.compile import compiled_tree
    from boardzoo.gametree.settings import EXACT
    from boardzoo.gametree.table import new_table
    from boardzoo.gametree.template import NUM_COUNTERS

    result = solve(make_game("tictactoe").initial_state(), all_moves=True)
    assert result.score == 0 and result.move_scores == dict.fromkeys(range(9), 0)
    game = make_game("connect_four")
    negamax = compiled_tree(game, EXACT)["solve"]
    keys, data = new_table(12)
    rng = np.random.default_rng(3)
    checked = 0
    while checked < 20:
        state, board = game.initial_state(), c4.new_board()
        for _ in range(33):  # nine squares left at most
            if state.is_terminal():
                break
            action = int(rng.choice(state.legal_actions()))
            state, board = state.apply(action), c4.drop(board, action, c4.to_move(board))
        if state.is_terminal():
            continue
        s0, s1 = (np.uint64(b) for b in state.bitboards())
        counters = new_counters(NUM_COUNTERS)
        score, _ = negamax(s0, s1, np.int64(state.current_player), game.params, -1, 1, keys,
                           data, counters)  # fmt: skip
        assert score == _c4_value(board)
        checked += 1


def _c4_value(board: c4.Board) -> int:
    """1, 0 or -1 for the player to move, by plain negamax over the reference rules."""
    player = c4.to_move(board)
    if c4.is_over(board):
        winner = c4.winner(board)
        return 0 if winner is None else (1 if winner == player else -1)
    return max(-_c4_value(c4.drop(board, col, player)) for col in c4.legal_columns(board))


def test_positions_beyond_the_solvers_reach_are_refused_before_any_search(capsys):
    start = make_game("reversi").initial_state()
    with pytest.raises(ValueError, match="has 60 empty squares, more than max_empties=30"):
        solve(start)
    with pytest.raises(ValueError, match="max_empties=-1 is not allowed"):
        solve(start, max_empties=-1)
    with pytest.raises(ValueError, match="table_bits=9 is not allowed"):
        solve(start, table_bits=9)
    tictactoe = make_game("tictactoe").initial_state()
    with pytest.raises(ValueError, match="has 9 empty squares, more than max_empties=5"):
        solve(tictactoe, max_empties=5)
    from boardzoo.cli import main

    assert main(["solve", "reversi"]) == 2
    assert "more than max_empties=30" in capsys.readouterr().err
    assert main(["solve", "reversi", "--position", "garbage"]) == 2
    assert "expected 64 squares" in capsys.readouterr().err
    assert main(["solve", "reversi", "--size", "4", "--max-empties", "12"]) == 0
    assert "score -10 for black" in capsys.readouterr().out


def test_a_solve_gives_up_at_its_node_budget_and_leaves_nothing_false_behind():
    deep = _to_state(random_endgames(1, 16, seed=11)[0])
    forget_tables()
    for all_moves in (False, True):
        cut = solve(deep, all_moves=all_moves, max_nodes=50)
        assert not cut.complete and cut.best_moves == () and cut.move_scores == {}
        assert cut.nodes < 5_000  # it stopped soon after the budget
    # What the abandoned solves left in the table changes no score: the same as from nothing.
    kept = solve(deep, all_moves=True)
    forget_tables()
    assert solve(deep, all_moves=True).move_scores == kept.move_scores
    for game in random_endgames(5, 8, seed=12):
        solve(_to_state(game), max_nodes=20)
        assert solve(_to_state(game), max_nodes=10**9).score == reference_score(game)
    tictactoe = make_game("tictactoe").initial_state()
    assert not solve(tictactoe, max_nodes=100).complete
    assert solve(tictactoe, max_nodes=10**6).score == 0
    with pytest.raises(ValueError, match="max_nodes=0 is not allowed"):
        solve(tictactoe, max_nodes=0)


def test_a_solve_gives_up_at_its_time_limit(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 26-empties solve takes minutes; with a time limit the solver reads the clock at its
    first position and every few thousand after (the plug-in's ``CLOCK_MASK + 1``: Reversi's, and
    Connect Four's on a position with 13 discs that takes about a second) and gives up at its
    first look past the deadline; before the deadline the clock stops nothing.

    The deadline is set from a clock moved by hand (``boardzoo.budget.monotonic_ns``, which
    :func:`~boardzoo.budget.new_counters` reads), an hour behind or ahead of the one the compiled
    solver reads, so what is checked does not depend on the machine's speed."""
    import boardzoo.budget as budget
    from boardzoo.gametree import connect_four, reversi

    deep = _to_state(random_endgames(1, 26, seed=13)[0])
    four = from_columns("2554611615721")
    looks = (
        (deep, reversi.CONSTANTS["CLOCK_MASK"] + 1),
        (four, connect_four.CONSTANTS["CLOCK_MASK"] + 1),
    )
    for state, every in looks:
        for limit in (0.05, 0.3):
            with monkeypatch.context() as patch:
                patch.setattr(budget, "monotonic_ns", shifted_ns(-HOUR))  # deadline long past
                forget_tables()
                cut = solve(state, time_limit=limit, max_empties=64)
                assert not cut.complete and cut.best_moves == ()
                assert 0 < cut.nodes <= every, (limit, cut.nodes)  # its first look
                patch.setattr(budget, "monotonic_ns", shifted_ns(HOUR))  # deadline never comes
                forget_tables()
                run = solve(state, time_limit=limit, max_empties=64, max_nodes=30 * every)
                assert not run.complete and run.nodes > 30 * every  # on to its node budget
    with monkeypatch.context() as patch:
        patch.setattr(budget, "monotonic_ns", lambda: 1_000)
        counters = budget.new_counters(8, time_limit=0.3)  # the limit in nanoseconds
        assert counters[budget.DEADLINE] == 1_000 + 300_000_000
    with pytest.raises(ValueError, match="time_limit=0 is not allowed"):
        solve(deep, time_limit=0)
    from boardzoo.cli import main

    assert (
        main(["solve", "reversi", "--moves", "f5", "--max-empties", "64", "--time-limit", "0.05"])
        == 1
    )
    assert "not solved: gave up after" in capsys.readouterr().out
    assert main(["solve", "reversi", "--moves", "f5", "--time-limit", "-1"]) == 2
    assert "time_limit=-1.0 is not allowed" in capsys.readouterr().err


def _bits(board: list[list[str]], disc: str) -> int:
    return sum(1 << (r * 8 + c) for r in range(8) for c in range(8) if board[r][c] == disc)


def test_reversi_stable_discs_never_flip_in_random_continuations():
    """Whatever the rules of ``reference_reversi`` let happen next, a disc that the solver's
    stability finds stable keeps its colour; and on a full board every disc is stable."""
    from reference_reversi import captured

    from boardzoo.gametree.reversi_stability import stable_discs

    rng = np.random.default_rng(5)
    found = 0
    for empties in (8, 12, 16, 20, 24):
        for game in random_endgames(6, empties, seed=100 + empties):
            black, white = _bits(game.board, "X"), _bits(game.board, "O")
            stable = {
                "X": int(stable_discs(np.uint64(black), np.uint64(white))),
                "O": int(stable_discs(np.uint64(white), np.uint64(black))),
            }
            assert not stable["X"] & ~black and not stable["O"] & ~white
            found += (stable["X"] | stable["O"]).bit_count()
            for _ in range(4):  # random continuations to the end of the game
                board, player, passes = [list(row) for row in game.board], game.player, 0
                while passes < 2:
                    moves = [
                        (r, c) for r in range(8) for c in range(8) if captured(board, player, r, c)
                    ]
                    if moves:
                        r, c = moves[rng.integers(len(moves))]
                        board = place(board, player, r, c)
                        for disc, bits in stable.items():
                            assert not bits & ~_bits(board, disc), game.board
                    passes = 0 if moves else passes + 1
                    player = 1 - player
    assert found > 100  # the test would be empty without stable discs
    full = np.uint64((1 << 64) - 1)
    assert stable_discs(np.uint64(0x00FF00FF00FF00FF), ~np.uint64(0x00FF00FF00FF00FF)) == (
        0x00FF00FF00FF00FF
    )
    assert stable_discs(full, np.uint64(0)) == full


def test_reversi_solver_flips_and_last_flip_counts_match_the_reference_rules():
    from reference_reversi import captured

    from boardzoo.gametree.reversi_last import flips, last_flip_count

    rng = np.random.default_rng(7)
    for _ in range(300):
        cells = rng.choice([".", "X", "O"], size=(8, 8), p=[0.3, 0.35, 0.35])
        board = [list(row) for row in cells]
        own, opp = _bits(board, "X"), _bits(board, "O")
        for r in range(8):
            for c in range(8):
                if board[r][c] == ".":
                    expected = sum(1 << (rr * 8 + cc) for rr, cc in captured(board, 0, r, c))
                    assert flips(np.uint64(own), np.uint64(opp), r * 8 + c) == expected
        r, c = rng.integers(8, size=2)  # one empty square left: the flip count alone
        board = [[cell if cell != "." else "XO"[rng.integers(2)] for cell in row] for row in board]
        board[r][c] = "."
        own = _bits(board, "X")
        count = last_flip_count(np.uint64(own), int(r * 8 + c), np.uint64((1 << 64) - 1))
        assert count == len(captured(board, 0, r, c))

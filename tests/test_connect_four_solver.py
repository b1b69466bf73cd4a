"""Connect Four's exact solver and opening book against facts from outside the code.

- The Connect 4 Game Solver's documentation (Pascal Pons, "Solving Connect 4", part 2): position
  ``4455`` scores 18 (red wins with its 4th disc) and ``44455554221`` scores -15 (yellow loses
  to red's 7th disc whatever it plays).
- A plain negamax over the simple reference rules (``reference_connect_four``: lists of lists,
  nothing shared with the package), scored by the same documented convention, on a hundred
  random positions with 4 to 10 empty cells: every move's score, the best move and the
  win/draw/loss solve.
- The known result of the empty board (Allis, Allen 1988; the documented column scores -2, -1,
  0, 1, 0, -1, -2): the first player wins, with the centre column only; checked on the shipped
  opening book, skipped with a reason while no book is shipped.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np
import pytest
import reference_connect_four as ref
from repo_scripts import load_script

from boardzoo.agents import make_agent
from boardzoo.cli import main
from boardzoo.games.catalog import make_game
from boardzoo.games.connect_four import from_columns
from boardzoo.gametree.connect_four_book import (
    canonical_key,
    complete_book,
    load_book,
    mirror,
    position_key,
    positions_at,
    save_book,
    shipped_book,
)
from boardzoo.gametree.solve import book_answer, forget_tables, solve
from boardzoo.search.handover import default_empties, solve_root

GAME = make_game("connect_four")


def reference_score(board: ref.Board) -> int:
    """The documented score for the player to move, by plain negamax over the reference."""
    return _negamax(tuple(map(tuple, board)))


@cache
def _negamax(rows: tuple[tuple[int | None, ...], ...]) -> int:
    board = [list(row) for row in rows]
    player = ref.to_move(board)
    if ref.is_over(board):
        winner = ref.winner(board)
        if winner is None:
            return 0
        return (sum(ref.disc_counts(board)) + 1) // 2 - 22  # the winner's discs, minus 22
    return max(
        -_negamax(tuple(map(tuple, ref.drop(board, c, player)))) for c in ref.legal_columns(board)
    )


def random_positions(count: int, min_empty: int, max_empty: int, seed: int):
    """Positions in play reached by random moves, with both boards (package's, reference's)."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state, board = GAME.initial_state(), ref.new_board()
        empties = int(rng.integers(min_empty, max_empty + 1))
        while 42 - sum(ref.disc_counts(board)) > empties and not state.is_terminal():
            column = int(rng.choice(state.legal_actions()))
            state, board = state.apply(column), ref.drop(board, column, ref.to_move(board))
        if not state.is_terminal():
            found.append((state, board))
    return found


def test_the_documented_examples():
    assert solve(from_columns("4455")).score == 18
    result = solve(from_columns("44455554221"), all_moves=True)
    assert result.score == -15 and set(result.move_scores.values()) == {-15}
    win = solve(from_columns("4455"))
    assert win.best_moves[0] in (2, 5)  # c or f: three in a row open at both ends


def test_every_move_scored_as_a_plain_negamax_scores_it():
    forget_tables()
    for state, board in random_positions(100, 4, 10, seed=5):
        player = ref.to_move(board)
        want = {c: -reference_score(ref.drop(board, c, player)) for c in ref.legal_columns(board)}
        best = max(want.values())
        every = solve(state, all_moves=True)
        assert every.move_scores == want
        assert every.score == best and set(every.best_moves) == {
            c for c, v in want.items() if v == best
        }
        one = solve(state)
        assert one.score == best and want[one.best_moves[0]] == best
        wld = solve(state, exact=False)
        assert np.sign(wld.score) == np.sign(best)


def test_finished_games_score_the_loss_to_the_last_disc():
    vertical = from_columns("1212121")  # red's fourth disc, the 7th move, wins
    assert vertical.is_terminal()
    assert solve(vertical).score == 4 - 22 and solve(vertical).best_moves == ()


def test_mirror_images_share_a_key_and_a_score():
    state = from_columns("112345667712")
    image = from_columns("776543221176")
    assert mirror(mirror(state.red)) == state.red
    assert canonical_key(state) == canonical_key(image)
    assert solve(state).score == solve(image).score
    assert sum(1 for _ in positions_at(2)) == 25  # 49 sequences, one per mirror pair in play


def test_a_book_completed_from_its_leaves_is_what_the_search_finds():
    ((root, _),) = random_positions(1, 16, 16, seed=8)
    depth = 42 - 16 + 4  # the leaves: four moves below the root
    leaves = {}
    frontier = [root]
    while frontier:
        state = frontier.pop()
        if (state.red | state.yellow).bit_count() == depth:
            leaves[canonical_key(state)] = solve(state).score
            continue
        frontier += [c for c in map(state.apply, state.legal_actions()) if not c.is_terminal()]
    scores = complete_book(leaves, depth, root)
    assert scores[canonical_key(root)] == solve(root).score
    for action in root.legal_actions():
        child = root.apply(action)
        if not child.is_terminal():
            assert scores[canonical_key(child)] == solve(child).score
    with pytest.raises(KeyError, match="not among the leaves"):
        complete_book({}, depth, root)


def test_solves_are_answered_from_a_book_file(tmp_path, monkeypatch):
    """A book below a position near the end, written and read back, answers solve: at once
    where it has the children, by a one-score search of the children at its last depth."""
    ((root, _),) = random_positions(1, 16, 16, seed=8)
    depth = 42 - 16 + 2
    leaves = {}
    for action in root.legal_actions():
        child = root.apply(action)
        for grandchild in map(child.apply, child.legal_actions()):
            if not grandchild.is_terminal():
                leaves[canonical_key(grandchild)] = solve(grandchild).score
    want = solve(root, all_moves=True)
    path = tmp_path / "book.npz"
    save_book(path, complete_book(leaves, depth, root), depth, {"command": "a test"})
    book = load_book(path)
    assert book.depth == depth and book.meta["command"] == "a test"
    monkeypatch.setattr("boardzoo.gametree.connect_four.shipped_book", lambda: book)
    answered = solve(root, all_moves=True)
    assert answered.nodes == 0 and answered.move_scores == want.move_scores
    assert answered.best_moves == want.best_moves
    for key, score in leaves.items():  # in the book, their children not: a search finds a move
        leaf = next(
            grandchild
            for child in map(root.apply, root.legal_actions())
            for grandchild in map(child.apply, child.legal_actions())
            if canonical_key(grandchild) == key
        )
        searched = solve(leaf)
        assert searched.score == score
        assert -solve(leaf.apply(searched.best_moves[0])).score == score
    path.with_suffix(".json").write_text("{}")
    with pytest.raises(ValueError, match="not a Connect Four book"):
        load_book(path)


def _mirror_image(state):
    return GAME.state_from_bitboards(mirror(state.red), mirror(state.yellow), state.current_player)


def test_a_book_with_its_leaves_best_moves_answers_them_at_once_either_way_round(
    tmp_path, monkeypatch
):
    """The best move a book stores for a leaf (for the orientation its key stands for) is
    played at once for the leaf and, mirrored, for its mirror image; the search proves that it
    keeps the leaf's score. The root solve of the searches (the handover) plays it too."""
    ((root, _),) = random_positions(1, 16, 16, seed=8)
    depth = 42 - 16 + 1
    leaves, moves, states = {}, {}, []
    for child in map(root.apply, root.legal_actions()):
        if child.is_terminal():
            continue
        found = solve(child)
        key = canonical_key(child)
        leaves[key] = found.score
        column = found.best_moves[0]
        # stored for the orientation of the smaller key
        moves[key] = column if position_key(child) == key else 6 - column
        states.append(child)
    path = tmp_path / "book.npz"
    save_book(path, complete_book(leaves, depth, root), depth, {"command": "a test"}, moves)
    book = load_book(path)
    monkeypatch.setattr("boardzoo.gametree.connect_four.shipped_book", lambda: book)
    mirrored = 0
    for leaf in states:
        for position in (leaf, _mirror_image(leaf)):
            answered = solve(position)
            assert answered.nodes == 0 and answered.score == leaves[canonical_key(leaf)]
            (move,) = answered.best_moves
            forget_tables()
            assert -solve(position.apply(move)).score == answered.score
            assert book_answer(position) == replace(answered, seconds=0.0)
            info = solve_root(position, 1, None)  # beyond the solver's empties: the book
            assert info is not None and info.best_moves == (move,) and info.nodes == 0
            mirrored += position_key(position) != canonical_key(position)
    assert mirrored == len(states)  # each leaf was asked in the book's orientation and not
    with np.load(path) as data:
        assert (data["moves"] >= 0).sum() == len(states)
        np.savez(path, keys=data["keys"], scores=data["scores"], moves=data["moves"] + 7)
    with pytest.raises(ValueError, match="a column or -1 each"):
        load_book(path)


def test_the_shipped_books_stored_moves_keep_the_score():
    """A few of the shipped book's leaves with a stored move (the quickest to check: the
    largest scores first): the searched score after the move is the book's."""
    book = shipped_book()
    assert book is not None, "boardzoo/gametree/data/connect_four_book.npz is not shipped"
    assert (book.moves >= 0).any(), "the shipped book stores no moves (made without --moves)"
    leaves = [s for s in positions_at(book.depth) if book.best_move(s) is not None]
    leaves.sort(key=lambda s: -abs(book.score(s)))
    for leaf in [*leaves[:2], *leaves[len(leaves) // 2 :][:1]]:
        move = book.best_move(leaf)
        assert leaf.is_legal(move)
        # A node budget, not a clock, keeps a broken solve from running for ever: these take
        # a few million nodes at most.
        after = solve(leaf.apply(move), max_nodes=200_000_000)
        assert after.complete and -after.score == book.score(leaf)


def test_the_empty_board_is_a_first_player_win_with_the_centre_column_only():
    assert shipped_book() is not None, "boardzoo/gametree/data/connect_four_book.npz is not shipped"
    result = solve(GAME.initial_state(), all_moves=True)
    assert [result.move_scores[c] for c in range(7)] == [-2, -1, 0, 1, 0, -1, -2]
    assert result.best_moves == (3,)


def test_positions_in_column_notation_and_their_errors(capsys):
    assert main(["solve", "connect_four", "--position", "4455"]) == 0
    out = capsys.readouterr().out
    assert "score +18 for red" in out and "best c" in out
    assert main(["solve", "connect_four", "--position", "44455554221", "--all"]) == 0
    assert "score -15 for yellow" in capsys.readouterr().out
    for text, message in (
        ("448", "move 3 of '448': '8' is not a column; columns are 1-7"),
        ("4444444", "move 7 of '4444444': column 4 is full"),
        ("12121212", "move 8 of '12121212': the game was over before it"),
    ):
        with pytest.raises(ValueError, match=message):
            from_columns(text)
        assert main(["solve", "connect_four", "--position", text]) == 2
        assert message in capsys.readouterr().err


def test_the_searches_hand_connect_four_endgames_to_the_solver():
    """``mcts:preset=strong`` and ``az`` solve Connect Four roots with at most 34 empty cells
    (within the clock) and tree nodes with at most 22 (the solver's measured thresholds): their
    move is a best one."""
    assert default_empties(GAME) == (34, 22)
    agent = make_agent("mcts:preset=strong,simulations=50", seed=0)
    for state, board in random_positions(5, 8, 12, seed=40):
        player = ref.to_move(board)
        want = {c: -reference_score(ref.drop(board, c, player)) for c in ref.legal_columns(board)}
        info = agent.search(state)
        assert info.extra["solved"] == "exact" and info.extra["score"] == max(want.values())
        assert want[info.action] == max(want.values())


def _solve_benchmark():
    return load_script("benchmarks/bench_connect_four_solve.py", "connect_four_solve_benchmark")


def test_the_solve_benchmark_times_book_and_search_and_checks_the_labels(capsys, monkeypatch):
    bench = _solve_benchmark()
    assert bench.main(["--source", "labelled", "--discs", "20", "24", "--positions", "3"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line[:5].strip()}
    assert rows["20"][:6] == ["20", "3", "0", "|", "100%", rows["20"][5]]
    assert "score: 100.0% of 6 solves under 1 s" in out
    if shipped_book() is not None:  # a position in the book: answered at once
        assert bench.main(["--discs", "2", "--positions", "2"]) == 0
        assert capsys.readouterr().out.splitlines()[2].split()[:5] == ["2", "2", "2", "|", "100%"]
    found, scores = bench._labelled_positions([22], 2, 0)
    monkeypatch.setattr(
        bench,
        "_labelled_positions",
        lambda d, n, seed: (found, {k: v + 1 for k, v in scores.items()}),
    )
    assert bench.main(["--source", "labelled", "--discs", "22", "--positions", "2"]) == 1
    assert "2 positions' scores differ from the labelled set's" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bench.main(["--discs", "50"])
    assert "--discs [50]: each must be 0..41" in capsys.readouterr().err

"""Fitting the n-tuple evaluation: labelled data (chunks, resuming, exact labels), the least
squares fit and the net file it writes.

The labels of endgame positions are checked against a plain negamax written here over the rules
of ``reference_reversi``; the fit against weights known in advance.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from reference_reversi import RefGame, placements

from boardzoo.agents import EngineAgent
from boardzoo.arena.openings import load_openings
from boardzoo.fit.children import ChildrenSettings, add_children, children_of
from boardzoo.fit.data import (
    ARRAYS,
    GenerateSettings,
    Positions,
    generate,
    load_chunk,
    load_positions,
    play_game,
    save_chunk,
    write_json,
)
from boardzoo.fit.measure import measure_moves, measure_nets
from boardzoo.fit.weights import (
    FitSettings,
    best_scale,
    fit_and_save,
    fit_weights,
    net_sums,
    tuple_indices,
)
from boardzoo.games import make_game
from boardzoo.games.reversi import ReversiState
from boardzoo.gametree.solve import solve
from boardzoo.learned.ntuple import (
    MODELS_DIR,
    NTupleNet,
    load_net,
    load_net_file,
    load_net_metadata,
)


def _config(tmp_path, seed=3):
    openings = tmp_path / "openings.txt"
    if not openings.exists():  # a few lines, so the test needs no shared file
        openings.write_text("f5d6c4d3c2b3b4b5\nf5f6d3c5d6c7b5e3\nf5f4e3d2c3e6e1g5\n")
    return GenerateSettings(seed=seed, openings=str(openings), depth=1, solve_empties=12,
                          chunk_games=2)  # fmt: skip


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    """Five games generated in one run."""
    out = tmp_path_factory.mktemp("fit") / "data"
    generate(out, _config(out.parent), games=5, log=lambda line: None)
    return out


def _same(a: Positions, b: Positions) -> None:
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def test_chunks_round_trip_and_progress(data_dir):
    progress = json.loads((data_dir / "progress.json").read_text())
    assert progress["games"] == 5 and progress["chunks"] == [
        "chunk-000000.npz", "chunk-000002.npz", "chunk-000004.npz"
    ]  # fmt: skip
    positions = load_positions(data_dir)
    assert len(positions) == progress["positions"] > 5 * 40
    assert sorted(set(positions.game.tolist())) == [0, 1, 2, 3, 4]
    assert positions.bitboards.dtype == np.uint64 and positions.label.dtype == np.int16
    for name in ARRAYS:  # int arrays, readable without pickle
        with np.load(data_dir / "chunk-000000.npz", allow_pickle=False) as archive:
            assert archive[name].dtype.kind in "iu"
    # exact labels from solve_empties on; one value before, signed for the player to move
    assert (positions.exact == (positions.empties <= 12)).all()
    for g in range(5):
        one = positions.select(positions.game == g)
        early = one.exact == 0
        signed = np.where(one.player[early] == one.player[0], one.label[early], -one.label[early])
        assert len(set(signed.tolist())) == 1
        first = np.argmax(one.exact == 1)
        assert signed[0] == (one.label[first] if one.player[first] == one.player[0]
                             else -one.label[first])  # fmt: skip


def test_resume_gives_the_same_data(tmp_path, data_dir):
    out = tmp_path / "data"
    generate(out, _config(tmp_path), games=3, log=lambda line: None)  # stopped after 3 games
    (out / "chunk-000004.npz.partial").write_bytes(b"half a chunk")  # a killed write
    with pytest.raises(ValueError, match="already holds data"):
        generate(out, _config(tmp_path), games=5, log=lambda line: None)
    with pytest.raises(ValueError, match="other settings"):
        generate(out, _config(tmp_path, seed=4), games=5, resume=True, log=lambda line: None)
    progress = generate(out, None, games=5, resume=True, log=lambda line: None)
    assert progress["games"] == 5 and len(progress["commands"]) == 2
    _same(load_positions(out), load_positions(data_dir))


def _board(bitboards: np.ndarray) -> list[list[str]]:
    board = [["."] * 8 for _ in range(8)]
    for cell in range(64):
        if int(bitboards[0]) >> cell & 1:
            board[cell // 8][cell % 8] = "X"
        elif int(bitboards[1]) >> cell & 1:
            board[cell // 8][cell % 8] = "O"
    return board


@cache
def _negamax(board: tuple[tuple[str, ...], ...], player: int, passed: bool) -> int:
    """The final disc difference for ``player`` with perfect play (empties to the winner)."""
    grid = [list(row) for row in board]
    moves = placements(grid, player)
    if not moves:
        if passed:
            cells = [c for row in grid for c in row]
            diff = cells.count("XO"[player]) - cells.count("XO"[1 - player])
            return diff + int(np.sign(diff)) * cells.count(".")
        return -_negamax(board, 1 - player, True)
    best = -65
    for row, col in moves:
        child = RefGame(grid, player).play(row * len(grid) + col)
        best = max(best, -_negamax(tuple(map(tuple, child.board)), 1 - player, False))
    return best


def test_endgame_labels_match_a_plain_negamax(data_dir):
    positions = load_positions(data_dir)
    chosen = np.flatnonzero((positions.exact == 1) & (positions.empties <= 7))
    chosen = chosen[positions.empties[chosen] >= 3][::3][:6]
    assert len(chosen) >= 4
    for i in chosen:
        board = tuple(map(tuple, _board(positions.bitboards[i])))
        assert _negamax(board, int(positions.player[i]), False) == positions.label[i]


def test_fit_recovers_known_weights():
    rng = np.random.default_rng(0)
    # one table of three cells read by two instances, and a second table of two cells
    cells = np.array([[0, 1, 2], [7, 6, 5], [-1, 9, 10]], dtype=np.int64)
    table = np.array([0, 0, 1], dtype=np.int64)
    known = np.zeros((1, 2, 27))
    known[0, 0] = rng.normal(0, 5, 27)
    known[0, 1, :9] = rng.normal(0, 5, 9)
    n = 3000
    squares = rng.integers(0, 3, size=(n, 64))
    black = (squares == 1) @ (np.uint64(1) << np.arange(64, dtype=np.uint64))
    white = (squares == 2) @ (np.uint64(1) << np.arange(64, dtype=np.uint64))
    bitboards = np.stack([black, white], axis=1).astype(np.uint64)
    player = rng.integers(0, 2, n).astype(np.int8)
    index = tuple_indices(cells, bitboards, player)
    labels = known[0, table[None, :], index].sum(axis=1)
    positions = Positions(bitboards, player, labels, np.zeros(n, np.int8),
                          np.ones(n, np.int8), np.arange(n, dtype=np.int32))  # fmt: skip
    # a table's weights and another's can trade a constant: compare up to it
    game = make_game("reversi")
    weights, _ = fit_weights(game, positions, cells, table, 1, 1e-6, None, 500, log=lambda s: None)
    shift = weights[0, 0, 0] - known[0, 0, 0]
    np.testing.assert_allclose(weights[0, 0], known[0, 0] + shift, atol=1e-3)
    np.testing.assert_allclose(weights[0, 1, :9], known[0, 1, :9] - 2 * shift, atol=1e-3)
    fitted = NTupleNet(cells, table, weights.astype(np.float32))
    np.testing.assert_allclose(net_sums(fitted, game, bitboards, player), labels, atol=1e-2)


def test_best_scale_finds_the_scale_of_the_results():
    rng = np.random.default_rng(1)
    discs = rng.uniform(-40, 40, 40000)
    wins = rng.random(40000) < (1 + np.tanh(discs / 12.0)) / 2
    assert abs(best_scale(discs, np.where(wins, 1, -1)) - 12.0) < 1.0


def test_fit_writes_a_net_every_consumer_loads(tmp_path, data_dir):
    out = tmp_path / "net.npz"
    metadata = fit_and_save([data_dir], out, FitSettings(stages=8, holdout=0.4, iterations=30),
                            command="test", log=lambda line: None)  # fmt: skip
    net = load_net_file(out)
    assert net.weights.shape == (8, 11, 3**9) and net.weights.dtype == np.float32
    stored = load_net_metadata(out)
    assert stored["game"] == "reversi" and stored["scale"] == metadata["scale"] > 0
    assert stored["commands"][-1] == "test" and stored["data"]["games"] == 5
    state = make_game("reversi").initial_state()
    info = EngineAgent(time_limit=None, depth=2, exact_empties=0, net=str(out)).search(state)
    assert info.action in state.legal_actions()


def test_bad_settings_are_refused(tmp_path):
    with pytest.raises(ValueError, match="depth"):
        GenerateSettings(depth=0)
    with pytest.raises(ValueError, match="scale"):
        FitSettings(holdout=0)
    with pytest.raises(ValueError, match="when to stop"):
        generate(tmp_path / "x", _config(tmp_path))
    with pytest.raises(ValueError, match="not a data directory"):
        load_positions(tmp_path)


def test_a_solve_that_gives_up_labels_like_the_midgame(tmp_path):
    game = make_game("reversi")
    config = replace(_config(tmp_path), solve_nodes=1, random_empties=40, epsilon=1.0)
    openings = load_openings(config.openings, game).moves
    one = play_game(game, openings, config, 0)
    assert ((one.empties <= 12) & (one.exact == 0)).any()  # solves that gave up ...
    first = int(np.argmax(one.exact == 1)) if one.exact.any() else len(one) - 1
    signed = np.where(one.player == one.player[first], one.label, -one.label)
    result = signed[first] if one.exact.any() else signed[one.exact == 0][0]
    assert (signed[one.exact == 0] == result).all()  # ... labelled with the game's result
    exact = play_game(game, openings, replace(config, solve_nodes=None), 0)
    assert exact.exact[exact.empties <= 12].all()
    early, other = exact.select(exact.empties > 40), one.select(one.empties > 40)
    np.testing.assert_array_equal(early.bitboards, other.bitboards)  # the same random moves


def test_children_carry_the_exact_value_of_their_player_to_move(tmp_path, data_dir):
    out = tmp_path / "data"
    shutil.copytree(data_dir, out)
    config = ChildrenSettings(min_empties=4, max_empties=8)
    progress = add_children(out, config, command="first", log=lambda line: None)
    games = load_positions(data_dir)
    both = load_positions(out)
    parents = games.select((games.exact == 1) & (games.empties >= 4) & (games.empties <= 8))
    children = _children(out)
    assert progress["children"]["positions"] == len(children) == len(both) - len(games)
    assert len(children) > 2 * len(parents) > 0
    assert set(children.empties.tolist()) <= set(range(3, 8)) and children.exact.all()
    assert set(children.game.tolist()) <= set(parents.game.tolist())
    for i in range(0, len(children), max(1, len(children) // 12)):
        board = tuple(map(tuple, _board(children.bitboards[i])))
        player = int(children.player[i])
        grid = [list(row) for row in board]
        assert placements(grid, player), "a child is stored for a player with a move"
        assert _negamax(board, player, False) == children.label[i]
    # run again: nothing left to do, and other settings are refused
    again = add_children(out, command="second", log=lambda line: None)
    assert again["children"]["positions"] == progress["children"]["positions"]
    assert again["children"]["commands"] == ["first", "second"]
    with pytest.raises(ValueError, match="keep those settings"):
        add_children(out, ChildrenSettings(min_empties=5, max_empties=8), log=lambda line: None)


def _children(out) -> Positions:
    progress = json.loads((out / "progress.json").read_text())
    names = [name for name in progress["chunks"] if name.startswith("children-")]
    return Positions.concatenate([load_chunk(out / name) for name in names])


def test_a_child_where_the_opponent_must_pass_is_the_movers():
    # white to move: some moves leave black without a move (white plays on), others do not
    state = ReversiState.from_text(
        ".XX..XOO\nXX.XXXOO\nXXXXXXXO\nXXXXXXOO\nOXXOXOOO\nOXXXOXOO\nOXOXOOOO\n.XXXXXXX",
        current_player=1,
    )
    scores = solve(state, all_moves=True).move_scores
    rows = children_of(state, scores)
    kinds = set()
    assert len(rows) == len(scores)
    for (black, white, player, label), (action, score) in zip(rows, scores.items(), strict=True):
        child = state.apply(action)
        kinds.add(child.must_pass())
        assert (black, white) == (child.black, child.white)
        assert player == (1 if child.must_pass() else 0)
        assert label == (score if child.must_pass() else -score)
        grid = [list(row) for row in _board(np.array([black, white], dtype=np.uint64))]
        assert _negamax(tuple(map(tuple, grid)), player, False) == label
    assert kinds == {True, False}


def test_children_settings_are_checked():
    with pytest.raises(ValueError, match="min_empties"):
        ChildrenSettings(min_empties=0)
    with pytest.raises(ValueError, match="max_empties"):
        ChildrenSettings(min_empties=10, max_empties=9)
    with pytest.raises(ValueError, match="max_empties"):
        ChildrenSettings(max_empties=30)


def test_stages_left_out_of_the_fit_keep_the_prior(tmp_path, data_dir):
    out = tmp_path / "net.npz"
    config = FitSettings(stages=6, holdout=0.4, iterations=30, fit_stages=(5,))
    metadata = fit_and_save([data_dir], out, config, command="test", log=lambda line: None)
    fitted, shipped = load_net_file(out), load_net(make_game("reversi"))
    assert [line.get("kept") for line in metadata["fit"]["stages"]] == ["prior"] * 5 + [None]
    for stage in range(6):  # the shipped net's own weights, times one factor a stage
        mine, theirs = fitted.weights[stage].ravel(), shipped.weights[stage].ravel()
        ratio = mine[theirs != 0] / theirs[theirs != 0]
        assert np.allclose(ratio, ratio[0], rtol=1e-4) == (stage < 5)
        # stage 0 (the first moves) has no positions here: it takes its neighbour's factor
        assert ratio[0] > 0
    with pytest.raises(ValueError, match="fit_stages"):
        FitSettings(stages=6, fit_stages=(6,))
    with pytest.raises(ValueError, match="give a prior"):
        FitSettings(fit_stages=(1,), prior="none")


def test_measure_moves_scores_a_search_to_the_end_as_perfect(data_dir):
    # a search that reaches every game's end plays a best move everywhere: none lost
    rows = measure_moves([data_dir], ["shipped"], 3, 6, count=8, depths=(14, 1), log=lambda s: None)
    deep, shallow = rows
    assert deep["positions"] == shallow["positions"] > 2
    assert deep["best_move"] == 1.0 and deep["discs_lost"] == 0
    assert 0 <= shallow["best_move"] <= 1 and shallow["discs_lost"] >= 0


def test_measure_nets_reports_each_nets_error(data_dir):
    rows = measure_nets([data_dir], ["shipped"], 0, 60, exact_only=False, log=lambda s: None)
    assert rows[0]["net"] == "shipped" and rows[0]["mae_best_slope"] <= rows[0]["mae"] + 1e-9
    with pytest.raises(ValueError, match="no positions"):
        measure_nets([data_dir], ["shipped"], 61, 64, log=lambda s: None)


# --- any game with a learned evaluation: Reversi 6x6 and Connect Four ---------------------------


def _grid(game, bitboards) -> list[list[int | None]]:
    """The board of a stored position, ``None`` empty or the player (row 0 the top row), read
    through the game's own planes."""
    planes = game.state_from_bitboards(int(bitboards[0]), int(bitboards[1]), 0).planes(0)
    return [[0 if cell[0] else 1 if cell[1] else None for cell in row] for row in planes.tolist()]


def _reversi_text(grid) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple("." if c is None else "XO"[c] for c in row) for row in grid)


@pytest.fixture(scope="module")
def small_games(tmp_path_factory):
    """Data of Reversi 6x6 and Connect Four, from their shipped balanced openings."""
    dirs = {}
    # Connect Four's games at depth 1 mostly end at a four long before the board fills
    for name, options, depth in (("reversi", {"board_size": 6}, 1), ("connect_four", {}, 5)):
        out = tmp_path_factory.mktemp("fit-" + name) / "data"
        config = GenerateSettings(game=name, options=options, seed=2, depth=depth,
                                  solve_empties=10, chunk_games=2)  # fmt: skip
        generate(out, config, games=4 if name == "reversi" else 8, log=lambda line: None)
        dirs[name] = out
    return dirs


def test_reversi_6x6_labels_match_a_plain_negamax(small_games):
    game = make_game("reversi", board_size=6)
    positions = load_positions(small_games["reversi"])
    assert (positions.exact == (positions.empties <= 10)).all()
    assert positions.empties.max() <= 32  # the 6x6 board's squares, not 8x8's
    chosen = np.flatnonzero((positions.exact == 1) & (positions.empties <= 7))[::3][:6]
    assert len(chosen) >= 4
    for i in chosen:
        board = _reversi_text(_grid(game, positions.bitboards[i]))
        assert len(board) == 6
        assert _negamax(board, int(positions.player[i]), False) == positions.label[i]


def test_connect_four_labels_and_children_match_a_plain_negamax(tmp_path, small_games):
    from test_connect_four_solver import reference_score

    game = make_game("connect_four")
    out = tmp_path / "data"
    shutil.copytree(small_games["connect_four"], out)
    add_children(out, ChildrenSettings(min_empties=4, max_empties=9), log=lambda line: None)
    games, children = load_positions(small_games["connect_four"]), _children(out)
    assert len(children) > 0 and children.exact.all()
    for positions in (games, children):
        chosen = np.flatnonzero((positions.exact == 1) & (positions.empties <= 8))[:6]
        assert len(chosen) >= 3
        for i in chosen:
            grid = _grid(game, positions.bitboards[i])
            discs = sum(cell is not None for row in grid for cell in row)
            assert discs % 2 == positions.player[i]  # red moves on an even count
            assert reference_score(grid) == positions.label[i]


@pytest.mark.parametrize(("name", "options"), [("reversi", {"board_size": 6}),
                                               ("connect_four", {})])  # fmt: skip
def test_a_fit_of_any_game_plays_and_measures(tmp_path, small_games, name, options):
    """The shipped net's design and stages, fitted on the game's own data: the engine plays
    with it, and the measures read the game's positions."""
    game = make_game(name, **options)
    out = tmp_path / "net.npz"
    shipped = load_net(game)
    stages = shipped.weights.shape[0]
    metadata = fit_and_save([small_games[name]], out, FitSettings(stages=stages, holdout=0.5,
                            iterations=20), command="test", log=lambda line: None)  # fmt: skip
    net = load_net_file(out)
    assert net.weights.shape == shipped.weights.shape
    assert metadata["game"] == name and metadata["options"] == dict(game.options)
    state = game.initial_state()
    info = EngineAgent(time_limit=None, depth=2, exact_empties=0, net=str(out)).search(state)
    assert info.action in state.legal_actions()
    rows = measure_nets([small_games[name]], ["shipped", str(out)], 0, 42, exact_only=False,
                        log=lambda line: None)  # fmt: skip
    assert [row["net"] for row in rows] == ["shipped", str(out)]
    moves = measure_moves([small_games[name]], [str(out)], 3, 8, count=4, depths=(12,),
                          log=lambda line: None)  # fmt: skip
    assert moves[0]["best_move"] == 1.0  # a search to the end plays perfectly


def test_data_of_two_games_is_not_fitted_together(tmp_path, small_games):
    with pytest.raises(ValueError, match=r"positions of .*: give one game's"):
        fit_and_save([small_games["reversi"], small_games["connect_four"]], tmp_path / "x.npz",
                     log=lambda line: None)  # fmt: skip
    with pytest.raises(ValueError, match=r"solve_empties must be 0\.\.26"):
        GenerateSettings(solve_empties=27)
    with pytest.raises(ValueError, match="board_size"):
        GenerateSettings(options={"board_size": 5})
    with pytest.raises(ValueError, match=r"tictactoe has no learned evaluation.*connect_four"):
        GenerateSettings(game="tictactoe")


# --- relabelling the midgame by a deeper search; the command line -------------------------------


@pytest.fixture(scope="module")
def late_solved(tmp_path_factory):
    """Reversi 6x6 games solved only from 4 empties (the positions before labelled by the
    game's result), and a net fitted on them."""
    base = tmp_path_factory.mktemp("relabel")
    config = GenerateSettings(game="reversi", options={"board_size": 6}, seed=5, depth=1,
                              solve_empties=4, chunk_games=2)  # fmt: skip
    generate(base / "data", config, games=4, command="generate", log=lambda line: None)
    fit_and_save([base / "data"], base / "net.npz", FitSettings(stages=4, holdout=0.5,
                 iterations=20), command="fit", log=lambda line: None)  # fmt: skip
    return base


def test_a_search_to_the_end_relabels_the_midgame_exactly(tmp_path, late_solved):
    """The games' last positions (up to 9 empties; solved from 4) searched 14 plies deep: the
    search sees every line's end, so each new label is the position's exact score, as a plain
    negamax finds it."""
    from boardzoo.fit.relabel import RelabelSettings, relabel

    game = make_game("reversi", board_size=6)
    late = tmp_path / "late"  # the data directory with its games' last positions only
    late.mkdir()
    progress = json.loads((late_solved / "data" / "progress.json").read_text())
    whole = load_positions(late_solved / "data")
    save_chunk(late / "chunk-000000.npz", whole.select(whole.empties <= 9))
    write_json(late / "progress.json", {**progress, "chunks": ["chunk-000000.npz"]})
    settings = RelabelSettings(net=str(late_solved / "net.npz"), depth=14)
    progress = relabel(late, tmp_path / "deep", settings, command="first", log=lambda s: None)
    before, after = load_positions(late), load_positions(tmp_path / "deep")
    _same(replace(before, label=after.label), after)  # only labels change ...
    exact = before.exact == 1
    np.testing.assert_array_equal(before.label[exact], after.label[exact])  # ... not exact ones
    assert progress["relabel"]["positions"] == int((~exact).sum()) >= 8
    assert (after.label[~exact] != before.label[~exact]).any()
    for i in np.flatnonzero(~exact)[::2][:8]:
        board = _reversi_text(_grid(game, before.bitboards[i]))
        assert _negamax(board, int(before.player[i]), False) == after.label[i]
    # a fit on the relabelled data keeps the relabelling net's scale (its labels are the
    # search's values, not the games' results)
    teacher = load_net_metadata(late_solved / "net.npz")["scale"]
    settings_refit = FitSettings(stages=4, holdout=0.5, iterations=5)
    refit = fit_and_save([tmp_path / "deep"], tmp_path / "refit.npz", settings_refit,
                         command="refit", log=lambda s: None)  # fmt: skip
    assert refit["scale"] == teacher == progress["relabel"]["scale"]
    # ... and records its lineage: the data's commands, the teacher's, the relabelling's, its own
    shipped = load_net_metadata(MODELS_DIR / "reversi-6x6.npz")["commands"]  # the prior's
    assert refit["commands"] == [*shipped, "generate", "fit", "first", "refit"]
    # run again: nothing left to do; other settings are refused
    again = relabel(late, tmp_path / "deep", settings, command="second", log=lambda s: None)
    assert again["relabel"]["commands"] == ["first", "second"]
    with pytest.raises(ValueError, match="keep those settings"):
        relabel(late, tmp_path / "deep", replace(settings, depth=2), log=lambda s: None)


def test_relabelling_needs_a_fitted_nets_scale(tmp_path, late_solved):
    from boardzoo.fit.relabel import RelabelSettings, relabel

    net = load_net(make_game("reversi", board_size=6))
    from boardzoo.learned.ntuple import save_net

    save_net(tmp_path / "td.npz", net, {"game": "reversi"})  # no scale in its metadata
    with pytest.raises(ValueError, match="no scale"):
        relabel(late_solved / "data", tmp_path / "x", RelabelSettings(net=str(tmp_path / "td.npz")),
                log=lambda line: None)  # fmt: skip
    with pytest.raises(ValueError, match="depth must be"):
        RelabelSettings(net="x", depth=0)


@pytest.mark.slow
def test_workers_give_the_same_data(tmp_path, late_solved):
    """Two processes generate, relabel and label children exactly as one does."""
    from boardzoo.fit.relabel import RelabelSettings, relabel

    config = GenerateSettings(game="reversi", options={"board_size": 6}, seed=5, depth=1,
                              solve_empties=4, chunk_games=2)  # fmt: skip
    generate(tmp_path / "data", config, games=4, workers=2, log=lambda line: None)
    _same(load_positions(tmp_path / "data"), load_positions(late_solved / "data"))
    settings = RelabelSettings(net=str(late_solved / "net.npz"), depth=2)
    for workers, out in ((1, "one"), (2, "two")):
        relabel(tmp_path / "data", tmp_path / out, settings, workers=workers, log=lambda s: None)
        add_children(tmp_path / out, ChildrenSettings(min_empties=4, max_empties=12),
                     workers=workers, log=lambda s: None)  # fmt: skip
    _same(load_positions(tmp_path / "one"), load_positions(tmp_path / "two"))


def test_the_command_line_runs_every_step_for_connect_four(tmp_path, capsys):
    from repo_scripts import load_script

    script = load_script("scripts/train_eval.py", "train_eval_script")
    data, net = str(tmp_path / "data"), str(tmp_path / "net.npz")
    next_net = str(tmp_path / "d2" / "net.npz")
    steps = [
        ["generate", "--game", "connect_four", "--out", data, "--games", "8", "--depth", "5",
         "--solve-empties", "10", "--chunk-games", "2"],
        ["children", "--data", data, "--min-empties", "4", "--max-empties", "9"],
        ["fit", "--data", data, "--out", net, "--stages", "3", "--holdout", "0.5",
         "--iterations", "10"],
        ["iterate", "--data", data, "--net", net, "--depth", "2", "--out", str(tmp_path / "d2"),
         "--stages", "3", "--holdout", "0.5", "--iterations", "10", "--fit-stages", "0"],
        ["measure", "--data", str(tmp_path / "d2"), "--net", "shipped", net, next_net,
         "--min-empties", "0", "--max-empties", "42", "--all-labels"],
    ]  # fmt: skip
    for argv in steps:
        if argv[0] == "iterate":
            # a fit setting it cannot take is refused before the relabelling starts
            with pytest.raises(SystemExit):
                script.main([*argv, "--fit-stages", "3"])
            assert "fit_stages must be stages 0..2" in capsys.readouterr().err
            assert not (tmp_path / "d2").exists()
            # stopped by its clock before the fit: it says how to go on
            assert script.main([*argv, "--minutes", "1e-9"]) == 0
            assert "run the same command again" in capsys.readouterr().out
            assert not Path(next_net).exists()
        assert script.main(argv) == 0
    assert load_net_metadata(net)["game"] == "connect_four"
    # iterate: the relabelled data, then a net fitted on it from the relabelling net, stage 0
    # only, the others kept (each in discs: a stage's weights times one slope); its lineage
    # ends with the round's command (relabel and fit)
    assert (tmp_path / "d2" / "progress.json").is_file()
    first, second = load_net_file(net), load_net_file(next_net)

    def rescaled(stage: int, atol: float) -> bool:  # the new stage: the old times one slope
        old, new = first.weights[stage].astype(np.float64), second.weights[stage]
        slope = float((old * new).sum() / (old * old).sum())
        return bool(np.allclose(new, slope * old, atol=atol))

    assert not rescaled(0, atol=1e-3)
    assert rescaled(1, atol=1e-4) and rescaled(2, atol=1e-4)
    assert load_net_metadata(next_net)["commands"][-1].startswith(
        "python scripts/train_eval.py iterate"
    )
    assert "sign_agreement" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        script.main(["generate", "--game", "connect_four", "--out", data, "--games", "1",
                     "--openings", str(tmp_path / "none.txt")])  # fmt: skip
    assert "cannot read openings" in capsys.readouterr().err


def test_a_game_over_long_before_the_solvers_reach_is_labelled():
    """The shortest Reversi game (9 plies, a wipe-out with 55 empty squares: found by a plain
    search of every line) ends before any solve: the game holds no position to label, and its
    end is scored without a search."""
    game = make_game("reversi")
    line = [game.parse_action(move) for move in ("d3", "c3", "b3", "d2", "e1", "d6", "d7", "e3")]
    state = game.initial_state()
    for action in line:
        state = state.apply(action)
    assert game.parse_action("f4") in state.legal_actions()
    config = GenerateSettings(depth=1, epsilon=0.0)
    played = play_game(game, [[*line, game.parse_action("f4")]], config, 0)
    assert len(played) == 0
    before_last = play_game(game, [line], config, 0)  # the engine takes the wipe-out
    assert len(before_last) == 1 and before_last.label[0] == 64 and before_last.exact[0] == 0


@pytest.mark.ray
def test_a_ray_cluster_that_cannot_be_joined_is_said_before_any_work(tmp_path, monkeypatch):
    from boardzoo.arena import ray_backend

    def no_cluster(address):
        raise ConnectionError("Could not find any running Ray instance")

    monkeypatch.setattr(ray_backend, "join_ray", no_cluster)
    config = GenerateSettings(game="reversi", options={"board_size": 6}, depth=1)
    with pytest.raises(ValueError, match=r"cannot join the Ray cluster at 'auto'.*running Ray"):
        generate(tmp_path / "data", config, games=2, ray="auto", log=lambda line: None)
    assert not (tmp_path / "data").exists()
    for address in ("", "localhost", "host:port"):
        with pytest.raises(ValueError, match="not a cluster address: 'auto' or HOST:PORT"):
            generate(tmp_path / "data", config, games=2, ray=address, log=lambda line: None)
    assert not (tmp_path / "data").exists()

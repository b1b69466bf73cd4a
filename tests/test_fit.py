"""Fitting the n-tuple evaluation: labelled data (chunks, resuming, exact labels), the least
squares fit and the net file it writes.

The labels of endgame positions are checked against a plain negamax written here over the rules
of ``reference_reversi``; the fit against weights known in advance.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from reference_reversi import RefGame, placements

from boardzoo.agents import EngineAgent
from boardzoo.fit.data import (
    ARRAYS,
    GenerateConfig,
    Positions,
    generate,
    load_positions,
    play_game,
    read_openings,
)
from boardzoo.fit.weights import (
    FitConfig,
    best_scale,
    fit_and_save,
    fit_weights,
    net_sums,
    tuple_indices,
)
from boardzoo.games import make_game
from boardzoo.learned.ntuple import NTupleNet, load_net_file, load_net_metadata

OPENINGS = "/work/shared/openings/xot-small.txt"


def _config(tmp_path, seed=3):
    openings = tmp_path / "openings.txt"
    if not openings.exists():  # a few lines, so the test needs no shared file
        openings.write_text("f5d6c4d3c2b3b4b5\nf5f6d3c5d6c7b5e3\nf5f4e3d2c3e6e1g5\n")
    return GenerateConfig(seed=seed, openings=str(openings), depth=1, solve_empties=12,
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
        child = RefGame(grid, player).play(row * 8 + col)
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
    weights, _ = fit_weights(positions, cells, table, 1, 1e-6, None, 500, log=lambda s: None)
    shift = weights[0, 0, 0] - known[0, 0, 0]
    np.testing.assert_allclose(weights[0, 0], known[0, 0] + shift, atol=1e-3)
    np.testing.assert_allclose(weights[0, 1, :9], known[0, 1, :9] - 2 * shift, atol=1e-3)
    fitted = NTupleNet(cells, table, weights.astype(np.float32))
    np.testing.assert_allclose(net_sums(fitted, bitboards, player), labels, atol=1e-2)


def test_best_scale_finds_the_scale_of_the_results():
    rng = np.random.default_rng(1)
    discs = rng.uniform(-40, 40, 40000)
    wins = rng.random(40000) < (1 + np.tanh(discs / 12.0)) / 2
    assert abs(best_scale(discs, np.where(wins, 1, -1)) - 12.0) < 1.0


def test_fit_writes_a_net_every_consumer_loads(tmp_path, data_dir):
    out = tmp_path / "net.npz"
    metadata = fit_and_save([data_dir], out, FitConfig(stages=8, holdout=0.4, iterations=30),
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
        GenerateConfig(depth=0)
    with pytest.raises(ValueError, match="scale"):
        FitConfig(holdout=0)
    with pytest.raises(ValueError, match="when to stop"):
        generate(tmp_path / "x", _config(tmp_path))
    with pytest.raises(ValueError, match="not a data directory"):
        load_positions(tmp_path)


def test_a_solve_that_gives_up_labels_like_the_midgame(tmp_path):
    game = make_game("reversi")
    config = replace(_config(tmp_path), solve_nodes=1, random_empties=40, epsilon=1.0)
    one = play_game(game, read_openings(game, config.openings), config, 0)
    assert ((one.empties <= 12) & (one.exact == 0)).any()  # solves that gave up ...
    first = int(np.argmax(one.exact == 1)) if one.exact.any() else len(one) - 1
    signed = np.where(one.player == one.player[first], one.label, -one.label)
    result = signed[first] if one.exact.any() else signed[one.exact == 0][0]
    assert (signed[one.exact == 0] == result).all()  # ... labelled with the game's result
    exact = play_game(
        game, read_openings(game, config.openings), replace(config, solve_nodes=None), 0
    )
    assert exact.exact[exact.empties <= 12].all()
    early, other = exact.select(exact.empties > 40), one.select(one.empties > 40)
    np.testing.assert_array_equal(early.bitboards, other.bitboards)  # the same random moves

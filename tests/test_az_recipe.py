"""The training recipe's parts: playout cap randomisation, value targets mixed with the search's
value (exact where the search reaches the solver), the learning-rate schedule and a run started
from a model."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
import reference_connect_four as ref

from boardzoo.az.selfplay import SelfPlaySettings, play_games
from boardzoo.az.train_settings import QUICK, settings_from
from boardzoo.games.catalog import make_game
from boardzoo.search.batched import BatchedSearch, BatchedSearchSettings
from boardzoo.search.evaluators import UniformEvaluator

CONNECT_FOUR = make_game("connect_four")


def _self_play(config, count=6, solve_empties=0, starts=None, seed=3):
    search = BatchedSearch(
        CONNECT_FOUR, 4, BatchedSearchSettings(gumbel=True, solve_empties=solve_empties), seed=seed
    )
    return play_games(CONNECT_FOUR, search, UniformEvaluator(), count, config, seed, starts)


def test_playout_cap_randomisation_records_only_the_full_searches():
    config = SelfPlaySettings(simulations=8, full_search_share=0.25, fast_simulations=2)
    games = _self_play(config)
    full, fast = games.searches
    decisions = sum(games.lengths) - sum(games.openings)
    assert full + fast == decisions  # (Connect Four has no forced move before a full board)
    assert games.positions == full
    assert 0.1 < full / decisions < 0.4  # about a quarter
    assert games.simulations == 8 * full + 2 * fast


def test_without_playout_cap_randomisation_every_move_is_searched_in_full():
    games = _self_play(SelfPlaySettings(simulations=8))
    assert games.searches == (games.positions, 0)


def test_the_value_target_mixes_the_result_with_the_search_value():
    result_only = _self_play(SelfPlaySettings(simulations=8))
    mixed = _self_play(SelfPlaySettings(simulations=8, value_mix=0.25))
    assert mixed.moves == result_only.moves  # the mix changes the targets, not the games
    assert set(np.unique(result_only.values)) <= {-1.0, 0.0, 1.0}
    np.testing.assert_allclose(
        mixed.values, 0.75 * result_only.values + 0.25 * mixed.search_values, atol=1e-6
    )
    assert not np.allclose(mixed.values, result_only.values)


def _near_the_end(count, seed):
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state, board = CONNECT_FOUR.initial_state(), ref.new_board()
        while sum(ref.disc_counts(board)) < 34 and not state.is_terminal():
            column = int(rng.choice(state.legal_actions()))
            state, board = state.apply(column), ref.drop(board, column, ref.to_move(board))
        if not state.is_terminal() and len(state.legal_actions()) > 1:
            found.append((state, board))
    return found


def _exact(board):
    """+1 / 0 / -1 for the player to move, by plain negamax over the reference rules."""
    if ref.is_over(board):
        return 0 if ref.winner(board) is None else -1  # the last move won
    player = ref.to_move(board)
    return max(-_exact(ref.drop(board, c, player)) for c in ref.legal_columns(board))


def test_with_the_solver_in_the_search_the_value_targets_are_exact():
    config = SelfPlaySettings(simulations=8, value_mix=1.0)
    checked = 0
    for state, board in _near_the_end(4, seed=11):
        games = _self_play(config, count=1, solve_empties=10, starts=[state])
        position = 0
        for column in games.moves[0]:
            player = ref.to_move(board)
            if len(ref.legal_columns(board)) > 1:  # a recorded position: the move played's value
                assert games.values[position] == -_exact(ref.drop(board, column, player))
                position += 1
                checked += 1
            board = ref.drop(board, column, player)
        assert position == games.positions
    assert checked >= 8


def test_a_searched_opening_records_its_positions_with_the_exact_value_of_the_position():
    """With the solver in the search, the value target of a position in the random opening is
    the position's exact value (the best move's, not the random move played), whatever the game's
    result; the positions after the opening keep the result (``value_mix`` 0)."""
    config = SelfPlaySettings(simulations=8, opening_plies=4, search_opening=True)
    checked = 0
    for state, board in _near_the_end(4, seed=5):
        games = _self_play(config, count=2, solve_empties=10, starts=[state])
        position = 0
        for moves, opening, winner in zip(games.moves, games.openings, games.winners, strict=True):
            game_board = board
            for ply, column in enumerate(moves):
                player = ref.to_move(game_board)
                if len(ref.legal_columns(game_board)) > 1:  # every choice is recorded
                    if ply < opening:
                        assert games.values[position] == _exact(game_board)
                        checked += 1
                    else:
                        result = 0 if winner is None else (1 if winner == player else -1)
                        assert games.values[position] == result
                    position += 1
                game_board = ref.drop(game_board, column, player)
        assert position == games.positions
    assert checked >= 8


def test_without_a_searched_opening_its_positions_are_not_recorded():
    searched = _self_play(SelfPlaySettings(simulations=8, opening_plies=6, search_opening=True))
    plain = _self_play(SelfPlaySettings(simulations=8, opening_plies=6))
    assert sum(searched.openings) > 0 and sum(plain.openings) > 0
    # Connect Four has no forced move before a full board: every ply is a recorded search,
    # the opening's too, or (without) every ply after the opening
    assert searched.positions == searched.searches[0] == sum(searched.lengths)
    assert plain.positions == sum(plain.lengths) - sum(plain.openings)


@pytest.mark.parametrize(
    ("given", "fragment"),
    [
        ({"full_search_share": 0.0}, "full_search_share=0.0 is not allowed"),
        ({"full_search_share": 0.5}, "needs fast_simulations >= 1"),
        ({"value_mix": 1.5}, "value_mix=1.5 is not allowed"),
        ({"search_opening": 1}, "search_opening must be true or false, got 1"),
    ],
)
def test_bad_self_play_settings_are_refused(given, fragment):
    with pytest.raises(ValueError, match=fragment):
        SelfPlaySettings(**given)


def _settings(tmp_path, **given):
    base = dict(QUICK, game="tictactoe", out=tmp_path / "run", progress=False, device="cpu")
    base.update(given)
    return settings_from({}, **base)


def test_the_cosine_schedule_runs_from_lr_to_lr_final_over_the_iterations(tmp_path):
    settings = _settings(tmp_path, lr=1e-3, lr_final=1e-4, lr_schedule="cosine", iterations=11)
    assert settings.lr_at(1) == pytest.approx(1e-3)
    assert settings.lr_at(6) == pytest.approx(5.5e-4)  # half way: the mean
    assert settings.lr_at(11) == pytest.approx(1e-4)
    rates = [settings.lr_at(i) for i in range(1, 12)]
    assert all(a > b for a, b in itertools.pairwise(rates))
    assert _settings(tmp_path, lr=2e-3, iterations=11).lr_at(7) == 2e-3  # constant
    default_final = _settings(tmp_path, lr=1e-3, lr_schedule="cosine", iterations=3)
    assert math.isclose(default_final.lr_at(3), 1e-4)


@pytest.mark.parametrize(
    ("given", "fragment"),
    [
        ({"lr_schedule": "cosine", "iterations": None, "minutes": 5}, "give one"),
        ({"lr_schedule": "step"}, "lr_schedule must be constant or cosine"),
        ({"lr_final": 0.0}, "lr_final=0.0 is not allowed"),
        ({"solve_empties": 4}, "tictactoe has no exact solver"),
        ({"full_search_share": 0.5}, "needs fast_simulations >= 1"),
        ({"search_opening": True}, "give opening_plies"),
    ],
)
def test_bad_recipe_settings_are_one_line_errors(tmp_path, given, fragment):
    with pytest.raises(ValueError, match=fragment):
        _settings(tmp_path, **given)


@pytest.mark.torch
def test_a_run_started_from_a_model_begins_with_its_weights(tmp_path, one_torch_thread):
    import torch

    from boardzoo.az.train import train

    first = _settings(tmp_path, iterations=1, eval_games=0)
    train(first, log=lambda line: None)
    model = tmp_path / "run" / "model.pt"
    second = _settings(
        tmp_path, out=tmp_path / "second", iterations=1, eval_games=0, steps_per_iteration=0,
        init_model=str(model), seed=9,
    )  # fmt: skip
    train(second, log=lambda line: None)
    before = torch.load(model, weights_only=True)
    after = torch.load(tmp_path / "second" / "model.pt", weights_only=True)
    assert all(torch.equal(before[key], after[key]) for key in before)
    started = json.loads((tmp_path / "second" / "model.json").read_text())["metadata"]
    assert started["init_from"]["model"] == str(model) and started["init_from"]["iteration"] == 1
    fresh = _settings(tmp_path, out=tmp_path / "fresh", iterations=1, eval_games=0,
                      steps_per_iteration=0, seed=9)  # fmt: skip
    train(fresh, log=lambda line: None)
    random_start = torch.load(tmp_path / "fresh" / "model.pt", weights_only=True)
    assert not all(torch.equal(before[key], random_start[key]) for key in before)
    wider = _settings(tmp_path, out=tmp_path / "wider", iterations=1, channels=16,
                      init_model=str(model))  # fmt: skip
    with pytest.raises(ValueError, match=r"8 channels, 1 blocks.*16, 1"):
        train(wider, log=lambda line: None)
    assert not (tmp_path / "wider").exists()

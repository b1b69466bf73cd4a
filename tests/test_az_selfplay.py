"""Self-play records: replayed through the rules, every example must be what the game says."""

from __future__ import annotations

import numpy as np
import pytest

from boardzoo.az.selfplay import SelfPlaySettings, play_games
from boardzoo.games.catalog import make_game
from boardzoo.search.batched import BatchedSearch, BatchedSearchSettings
from boardzoo.search.evaluators import UniformEvaluator, encode


def _play(name, options, gumbel, seed=0, opening=0, count=6, record_forced=False):
    game = make_game(name, **options)
    search = BatchedSearch(
        game, 4, BatchedSearchSettings(gumbel=gumbel, dirichlet_alpha=0.3), seed=seed
    )
    config = SelfPlaySettings(
        simulations=8, temperature_plies=4, opening_plies=opening, record_forced=record_forced
    )
    return game, play_games(game, search, UniformEvaluator(), count, config, seed=seed)


@pytest.mark.parametrize(("name", "options"), [("tictactoe", {}), ("connect_four", {}),
                                               ("reversi", {"board_size": 4})])  # fmt: skip
@pytest.mark.parametrize("gumbel", [False, True])
@pytest.mark.parametrize("opening", [0, 2])
@pytest.mark.parametrize("record_forced", [False, True])
def test_examples_agree_with_the_replayed_games(name, options, gumbel, opening, record_forced):
    game, games = _play(name, options, gumbel, opening=opening, record_forced=record_forced)
    assert len(games.winners) == len(games.moves) == 6
    row = forced_rows = 0
    assert all(0 <= random_plies <= opening for random_plies in games.openings)
    if opening:
        assert len(set(games.openings)) > 1  # each game draws its own number
    for moves, winner, length, random_plies in zip(
        games.moves, games.winners, games.lengths, games.openings, strict=True
    ):
        state = game.initial_state()
        assert length == len(moves)
        for ply, action in enumerate(moves):
            forced = len(state.legal_actions()) == 1
            recorded = ply >= random_plies and (record_forced or not forced)
            if recorded:  # this position is the next example, in order
                observation, mask = encode(game, [state])
                assert np.array_equal(games.observations[row], observation[0])
                assert np.array_equal(games.masks[row], mask[0])
                policy = games.policies[row]
                assert policy.sum() == pytest.approx(1.0, abs=1e-5)
                assert np.all(policy[~mask[0]] == 0)
                if forced:  # the one legal move is the whole target
                    assert policy[action] == 1.0
                    forced_rows += 1
                mover = state.current_player
                expected = 0.0 if winner is None else (1.0 if winner == mover else -1.0)
                assert games.values[row] == expected
                row += 1
            state = state.apply(action)
        assert state.is_terminal() and state.winner == winner  # the rules agree on the result
    assert row == games.positions
    if record_forced and name == "reversi":  # 4x4 games end in forced moves and passes
        assert forced_rows > 0


def test_same_seed_same_games_and_the_seed_matters():
    first = _play("connect_four", {}, True, seed=3)[1]
    again = _play("connect_four", {}, True, seed=3)[1]
    other = _play("connect_four", {}, True, seed=4)[1]
    assert first.moves == again.moves
    assert first.moves != other.moves
    assert len({tuple(m) for m in first.moves}) > 1  # the Gumbel noise varies the games


def test_bad_config_is_refused():
    with pytest.raises(ValueError, match="opening_plies must be an int >= 0"):
        SelfPlaySettings(opening_plies=-1)
    with pytest.raises(ValueError, match="simulations must be an int >= 1"):
        SelfPlaySettings(simulations=0)

"""Labelled sets and the accuracy measure, against references outside the code.

- The shipped sets' scores: TicTacToe's against the exhaustive minimax of
  ``reference_tictactoe``, Reversi 4x4's against the plain negamax over the reference rules of
  ``reference_reversi`` (``test_solve.reference_move_scores``), on samples of each.
- A set made in two runs (stopped, then resumed) is line for line the set made in one.
- The measure: the perfect player keeps every result and plays every best score; a player that
  always plays its worst move keeps the result exactly in the positions where no move changes it
  (counted from the labels by hand here), and never in the others.
- Bad files give an error naming the line.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from reference_reversi import RefGame
from reference_tictactoe import ttt_value
from repo_scripts import load_script
from test_solve import reference_move_scores

from boardzoo.accuracy import (
    LabelledSetSettings,
    make_labelled,
    measure_accuracy,
    measure_policy,
    read_labelled,
    shipped_set_path,
)
from boardzoo.agents import Agent, SolverAgent
from boardzoo.games.catalog import make_game

TICTACTOE = make_game("tictactoe")
REVERSI_4 = make_game("reversi", board_size=4)


def test_the_shipped_tictactoe_set_is_scored_as_minimax_scores_it():
    labelled = read_labelled(shipped_set_path(TICTACTOE))
    assert len(labelled) >= 2000 and "make_labelled_set.py" in labelled.header["command"]
    for position in labelled.positions[::10]:
        state = position.state(TICTACTOE)
        assert position.scores == {a: -ttt_value(state.apply(a)) for a in state.legal_actions()}


def test_the_shipped_reversi_4x4_set_is_scored_as_a_plain_negamax_scores_it():
    labelled = read_labelled(shipped_set_path(REVERSI_4))
    assert len(labelled) >= 3000
    sources = {p.source for p in labelled.positions}
    assert {"random-random", "greedy-random", "mcts:simulations=300-alphabeta:depth=3"} <= sources
    for position in labelled.positions[::30]:
        game = RefGame.start(4)
        for action in position.moves:
            game = game.play(action)
        assert position.scores == reference_move_scores(game)


def test_the_shipped_reversi_8x8_endgames_are_scored_as_a_plain_negamax_scores_them():
    labelled = read_labelled(shipped_set_path(make_game("reversi", board_size=8)))
    assert len(labelled) >= 1500
    checked = 0
    for position in labelled.positions:
        if len(position.moves) < 55:  # (60 squares: 5 or fewer empty needs 55 discs played)
            continue
        game = RefGame.start(8)
        for action in position.moves:
            game = game.play(action)
        if sum(row.count(".") for row in game.board) <= 4:  # a plain negamax is quick there
            assert position.scores == reference_move_scores(game)
            checked += 1
            if checked == 40:
                break
    assert checked == 40


def test_a_set_made_in_two_sittings_is_the_set_made_in_one(tmp_path):
    whole, halves = tmp_path / "whole.jsonl", tmp_path / "halves.jsonl"
    config = LabelledSetSettings(positions=40, seed=3)
    make_labelled(TICTACTOE, whole, config, "test", log=lambda _: None)
    make_labelled(TICTACTOE, halves, config, "test", minutes=1e-9, log=lambda _: None)
    assert len(read_labelled(halves)) < 40  # stopped early
    with halves.open("a") as out:  # a run killed while writing a line
        out.write('{"moves": [4, 0], "sour')
    make_labelled(TICTACTOE, halves, config, "test", log=lambda _: None)
    assert whole.read_text() == halves.read_text()
    with pytest.raises(ValueError, match="made with"):
        make_labelled(TICTACTOE, whole, LabelledSetSettings(positions=50), "test")


class WorstMove(Agent):
    """Plays the move with the lowest exact score (read from the labels)."""

    def __init__(self, scores_by_moves):
        self.scores_by_moves = scores_by_moves

    def act(self, env):
        scores = self.scores_by_moves[_key_of(env)]
        return min(scores, key=scores.get)


def _key_of(state) -> tuple[int, int, int]:
    s0, s1 = state.bitboards()
    return s0, s1, state.current_player


def test_the_measure_counts_kept_results_and_best_scores():
    labelled = read_labelled(shipped_set_path(REVERSI_4))
    perfect = measure_accuracy(SolverAgent(), labelled, limit=300)
    assert perfect.keeps.hits == perfect.best.hits == perfect.keeps.total == 300
    assert perfect.keeps_critical.value == 1.0 and perfect.keeps.interval[1] == 1.0
    positions = labelled.positions[:300]
    worst = WorstMove({_key_of(p.state(REVERSI_4)): p.scores for p in positions})
    measured = measure_accuracy(worst, labelled, limit=300)
    quiet = sum(
        1
        for p in positions
        if len({(v > 0) - (v < 0) for v in p.scores.values()}) == 1  # no move changes the result
    )
    assert measured.keeps.hits == quiet and measured.keeps_critical.hits == 0
    assert measured.keeps_critical.total == 300 - quiet
    single = sum(1 for p in positions if len(set(p.scores.values())) == 1)
    assert measured.best.hits == single
    assert str(perfect.keeps).startswith("100.0% [98.")
    # the score given away: none by the solver, the spread of each position's scores by the worst
    spread = [max(p.scores.values()) - min(p.scores.values()) for p in positions]
    assert perfect.score_lost == 0 and measured.score_lost == pytest.approx(np.mean(spread))


class ScoresAsLogits:
    """An evaluator whose logits are the labelled scores of the moves (``sign`` times)."""

    def __init__(self, positions, game, sign):
        self.by_key = {}
        for position in positions:
            logits = np.zeros(game.num_actions, np.float32)
            for move, score in position.scores.items():
                logits[move] = sign * score
            state = position.state(game)
            self.by_key[state.planes(state.current_player).astype(np.int8).tobytes()] = logits

    def __call__(self, observations, masks):
        rows = [
            self.by_key[np.moveaxis(obs, 0, -1).astype(np.int8).tobytes()] for obs in observations
        ]
        return np.stack(rows), np.zeros(len(rows), np.float32)


def test_the_policy_measure_scores_the_moves_of_the_highest_logits():
    labelled = read_labelled(shipped_set_path(REVERSI_4))
    positions = labelled.positions[:300]
    best = measure_policy(ScoresAsLogits(positions, REVERSI_4, 1), labelled, 300, batch=64)
    assert best.keeps.hits == best.best.hits == 300
    worst = measure_policy(ScoresAsLogits(positions, REVERSI_4, -1), labelled, 300, batch=7)
    quiet = sum(1 for p in positions if len({(v > 0) - (v < 0) for v in p.scores.values()}) == 1)
    assert worst.keeps.hits == quiet
    assert worst.best.hits == sum(1 for p in positions if len(set(p.scores.values())) == 1)


def test_bad_files_name_the_line(tmp_path):
    path = tmp_path / "set.jsonl"
    header = json.dumps({"game": "tictactoe", "options": {}})
    for lines, message in (
        (["not json"], "line 1: not a labelled set's header"),
        ([json.dumps({"game": "chess"})], "line 1: not a labelled set's header"),
        ([header, json.dumps({"moves": [0, 0], "scores": {}})], "line 2: not a labelled position"),
        ([header, json.dumps({"moves": [4], "scores": {"0": 0}})], "line 2: scores for actions"),
    ):
        path.write_text("\n".join(lines) + "\n")
        with pytest.raises(ValueError, match=message):
            read_labelled(path)
    with pytest.raises(ValueError, match="no such labelled set"):
        read_labelled(tmp_path / "missing.jsonl")


def test_the_benchmark_prints_each_agents_shares(capsys, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # what the script sets, undone after the test
    module = load_script("benchmarks/accuracy.py", "accuracy_benchmark")
    assert module.main(["tictactoe", "solver", "random", "--limit", "200"]) == 0
    out = capsys.readouterr().out
    assert "tictactoe: 200 positions" in out
    solver_line = next(line for line in out.splitlines() if line.startswith("solver"))
    assert solver_line.count("100.0%") == 4
    with pytest.raises(SystemExit):
        module.main(["tictactoe", "mcts:simulations=0"])
    assert "simulations=0" in capsys.readouterr().err

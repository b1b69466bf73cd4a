"""benchmarks/start_values.py: each game's start classified by an independent minimax."""

from __future__ import annotations

import json

import pytest
from reference_tictactoe import ttt_value
from repo_scripts import load_script

from boardzoo.arena import play_match
from boardzoo.games.catalog import make_game


def _script():
    return load_script("benchmarks/start_values.py", "start_values_benchmark")


def test_each_start_is_split_by_its_minimax_value(tmp_path, capsys):
    out = tmp_path / "match.jsonl"
    play_match("tictactoe", ["random", "greedy"], games=12, opening_plies=3,
               pair_openings=True, seed=3, out=str(out))  # fmt: skip
    records = [json.loads(line) for line in out.read_text().splitlines()]
    game = make_game("tictactoe")
    expected = {"won": [0, 0.0], "drawn": [0, 0.0], "lost": [0, 0.0]}
    for record in records:
        state = game.initial_state()
        for move in record["moves"][:3]:
            state = state.apply(move)
        player = 0 if record["colours"][1].lower() == "x" else 1  # the second agent's player
        value = ttt_value(state) * (1 if state.current_player == player else -1)
        kind = {1: "won", 0: "drawn", -1: "lost"}[value]
        expected[kind][0] += 1
        expected[kind][1] += record["scores"][1]
    assert expected["won"][0] + expected["lost"][0] > 0  # three random plies decide some games

    assert _script().main([str(out), "--agent", "1", "--games"]) == 0
    printed = capsys.readouterr().out
    for kind, (games, points) in expected.items():
        if games:
            assert f"{kind} starts: {games:3d} games, {points:5.1f} points" in printed
    assert f"all starts: {len(records):3d} games" in printed
    assert printed.count("3 opening plies") == len(records)


def test_bad_arguments_are_named(tmp_path, capsys):
    module = _script()
    with pytest.raises(SystemExit):
        module.main([str(tmp_path / "none.jsonl"), "--agent", "2"])
    assert "--agent 2" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        module.main([str(tmp_path / "none.jsonl"), "--time-limit", "nan"])
    assert "--time-limit nan" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        module.main([str(tmp_path / "none.jsonl")])
    assert "none.jsonl" in capsys.readouterr().err
    chess = tmp_path / "chess.jsonl"
    chess.write_text('{"game": "chess", "moves": []}\n')
    with pytest.raises(SystemExit):
        module.main([str(chess)])
    assert "unknown game 'chess'" in capsys.readouterr().err

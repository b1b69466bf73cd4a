"""The ``boardzoo`` command as a user runs it: through :func:`boardzoo.cli.main` in this process
(its exit status and what it prints: the ``cli`` fixture), and in a subprocess where the point is
the program itself (``python -m boardzoo``: its exit status, no traceback, a fresh interpreter).
"""

from __future__ import annotations

import dataclasses
import io
import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from boardzoo.arena import play_match
from boardzoo.cli import main


def boardzoo(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python -m boardzoo ARGS`` in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "boardzoo", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@dataclasses.dataclass(frozen=True)
class Ran:
    """A run of the command in this process: its exit status and what it printed."""

    returncode: int
    stdout: str
    stderr: str


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> Ran:
    """``boardzoo ARGS`` through :func:`boardzoo.cli.main` in this process, its exit status
    (argparse's ``SystemExit`` included) and its output. An exception escaping ``main`` (a user
    would see a traceback) fails the test."""
    capsys.readouterr()  # what was printed before is not this run's
    try:
        code: Any = main(list(args))
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    if isinstance(code, str):  # sys.exit("message"): the message on stderr, status 1
        code, err = 1, err + code
    return Ran(0 if code is None else code, out, err)


Cli = Callable[..., Ran]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """Runs ``boardzoo ARGS`` in this process: ``cli("arena", ...)`` gives a :class:`Ran`."""
    return lambda *args: run_main(capsys, *args)


def assert_user_error(result: subprocess.CompletedProcess[str] | Ran, *fragments: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, result.stderr  # one line says what is wrong
    for fragment in fragments:
        assert fragment in result.stderr


def test_help_lists_the_commands(cli):
    result = cli("--help")
    assert result.returncode == 0
    for command in ("play", "arena", "tournament", "replay", "bench", "demo"):
        assert command in result.stdout


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (("arena", "chess", "random", "greedy", "--out", "x.jsonl"), ["invalid choice: 'chess'"]),
        (
            ("arena", "reversi", "random", "minimax", "--out", "x.jsonl", "--games", "1"),
            ["unknown agent 'minimax'", "known agents: random, greedy, alphabeta, engine, mcts"],
        ),
        (
            ("arena", "reversi", "mcts:sims=3", "random", "--out", "x.jsonl", "--games", "1"),
            ["unknown key 'sims' for mcts", "allowed: simulations"],
        ),
        (
            ("arena", "reversi", "mcts:simulations=lots", "random", "--out", "x.jsonl"),
            ["mcts: simulations=lots is not allowed: it must be an integer"],
        ),
        (("arena", "reversi", "random", "greedy", "--out", "x.jsonl", "--games", "0"), ["--games"]),
        (("replay", "does/not/exist.jsonl"), ["does/not/exist.jsonl"]),
        (("play", "reversi", "--x", "human", "--ui", "text"), ["--x is not a reversi player"]),
        (
            ("play", "connect_four", "--black", "human", "--ui", "text"),
            ["--black is not a connect_four player", "--red/--yellow", "--first/--second"],
        ),
        (
            ("play", "tictactoe", "--first", "random", "--x", "greedy", "--ui", "text"),
            ["--first and --x both name the first player"],
        ),
        (
            ("play", "reversi", "--second", "random", "--white", "greedy", "--ui", "text"),
            ["--second and --white both name the second player"],
        ),
        (
            ("play", "tictactoe", "--size", "6", "--ui", "text"),
            ["--size", "tictactoe has none (its options: none)"],
        ),
        (
            ("arena", "connect_four", "random", "greedy", "--size", "6", "--out", "x.jsonl"),
            ["--size", "connect_four has none (its options: none)"],
        ),
        (("demo", "--game", "connect_four", "--size", "4"), ["connect_four has none"]),
        (("demo", "--size", "5"), ["invalid choice: 5"]),
        (
            ("arena", "tictactoe", "random", "greedy", "--option", "board_size=4"),
            ["--option board_size", "tictactoe has no", "(its options: none)"],
        ),
        (
            ("arena", "reversi", "random", "greedy", "--option", "size=4"),
            ["--option size", "(its options: board_size)"],
        ),
        (("demo", "--game", "reversi", "--option", "board_size"), ["write NAME=VALUE"]),
        (("demo", "--game", "reversi", "--option", "board_size=5"), ["one of [4, 6, 8], got 5"]),
        (
            ("demo", "--game", "reversi", "--size", "4", "--option", "board_size=6"),
            ["board_size is given twice"],
        ),
        (("play", "checkers"), ["invalid choice: 'checkers'"]),
    ],
)
def test_user_mistakes_are_one_line_errors(args, fragments, tmp_path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    assert_user_error(cli(*args), *fragments)


def test_malformed_record_file_names_the_line(tmp_path):
    # in a subprocess: the program itself exits with status 2 and one line, no traceback
    records = tmp_path / "bad.jsonl"
    good = {"game": "tictactoe", "board_size": 3, "moves": [4, 0, 8]}
    records.write_text(json.dumps(good) + "\n{not json\n")
    assert_user_error(boardzoo("replay", str(records), "--ui", "text"), "line 2")


def test_bench_quick_prints_the_figures(cli, monkeypatch):
    import boardzoo.speed as speed

    # the rates measured on fewer playouts, simulations and env steps than --quick's: what is
    # printed is the point here, not the figures (the perft counts are the real ones)
    playouts = speed.game_playouts_per_second
    simulations = speed.mcts_simulations_per_second
    steps = speed.env_steps_per_second
    monkeypatch.setattr(speed, "game_playouts_per_second", lambda g, n, r: playouts(g, 100, 1))
    monkeypatch.setattr(speed, "mcts_simulations_per_second",
                        lambda g, n, r, **o: simulations(g, 100, 1, **o))  # fmt: skip
    monkeypatch.setattr(speed, "env_steps_per_second", lambda n, r, *a: steps(100, 1, *a))
    result = cli("bench", "--quick")
    assert result.returncode == 0, result.stderr
    for fragment in ("perft(9)", "playouts", "MCTS reversi", "tictactoe_v3"):
        assert fragment in result.stdout
    # every catalog game, its perft checked against counts from outside the code (the command
    # fails otherwise), and PettingZoo's Connect Four for comparison
    for fragment in (
        "reversi 8x8 perft(9): ", "3,005,288 leaves", "tictactoe perft(9): ", "255,168 leaves",
        "connect_four perft(9): ", "39,452,034 leaves", "MCTS connect_four", "connect_four_v3",
        "env steps/s, boardzoo connect_four_v0",
    ):  # fmt: skip
        assert fragment in result.stdout


def test_arena_then_replay_and_gif(tmp_path, cli):
    records = tmp_path / "m1.jsonl"
    result = cli(
        "arena", "reversi", "mcts:simulations=50", "greedy", "--games", "2", "--size", "4",
        "--out", str(records), "--no-progress", "--no-isolate",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "mcts:simulations=50" in result.stdout and "Elo difference" in result.stdout
    lines = records.read_text().splitlines()
    assert len(lines) == 2 and {json.loads(line)["game_index"] for line in lines} == {0, 1}

    again = cli("arena", "reversi", "random", "greedy", "--out", str(records), "--games", "1")
    assert_user_error(again, "already holds games", "--resume")
    assert "resume=True" not in again.stderr  # the command line's words, not Python's
    other = cli(
        "arena", "reversi", "mcts:simulations=50", "greedy", "--games", "2", "--size", "4",
        "--out", str(records), "--resume", "--seed", "3",
    )  # fmt: skip
    assert_user_error(other, "played with --seed 0 where this run has --seed 3")

    shown = cli("replay", str(records), "--game", "1", "--ui", "text", "--delay", "0")
    assert shown.returncode == 0, shown.stderr
    assert "Result:" in shown.stdout
    gif = tmp_path / "g.gif"
    written = cli("replay", str(records), "--game", "0", "--gif", str(gif))
    assert written.returncode == 0, written.stderr
    assert gif.stat().st_size > 0
    assert_user_error(cli("replay", str(records), "--game", "5"), "holds games 0-1")


def test_no_isolate_plays_the_same_games_without_a_process_per_agent(tmp_path, cli):
    moves = []
    for flags in ((), ("--no-isolate",)):
        out = tmp_path / f"m{len(moves)}.jsonl"
        result = cli(
            "arena", "connect_four", "mcts:simulations=30", "random", "--games", "2", "--seed",
            "4", "--out", str(out), "--no-progress", *flags,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        moves.append([json.loads(line)["moves"] for line in out.read_text().splitlines()])
    assert moves[0] == moves[1] and len(moves[0]) == 2


def test_tournament_writes_tables_and_plot(tmp_path, cli):
    out = tmp_path / "t1"
    result = cli(
        "tournament", "tictactoe", "random", "alphabeta", "mcts:simulations=100",
        "--games", "2", "--out", str(out), "--no-progress", "--no-isolate",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert {"games.jsonl", "ratings.csv", "ratings.md", "ratings.png"} <= {
        p.name for p in out.iterdir()
    }
    assert "alphabeta" in (out / "ratings.md").read_text()


def test_play_in_the_terminal_with_typed_moves(cli, monkeypatch):
    # bad, the centre, the centre again (taken by then), then action numbers and squares
    script = "e5\nb2\nb2\n0\n1\n2\n3\n5\n6\n7\n8\nquit\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    result = cli("play", "tictactoe", "--x", "human", "--o", "alphabeta", "--ui", "text")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "Cannot read move 'e5'" in result.stdout and "a1..c3" in result.stdout
    assert "X plays b2" in result.stdout  # b2 is the centre square
    assert "Illegal move" in result.stdout


def test_play_help_lists_every_game_and_side(cli):
    result = cli("play", "--help")
    assert result.returncode == 0
    for fragment in ("connect_four", "--first", "--second", "--black", "--white", "--x", "--o",
                     "--red", "--yellow", "--size"):  # fmt: skip
        assert fragment in result.stdout


@pytest.mark.parametrize(
    ("args", "first", "second"),
    [
        (("connect_four", "--first", "random", "--second", "greedy"), "random", "greedy"),
        (("connect_four", "--yellow", "random", "--red", "greedy"), "greedy", "random"),
        (("tictactoe", "--o", "random", "--first", "greedy"), "greedy", "random"),
        (("reversi", "--white", "random", "--black", "greedy", "--size", "4"), "greedy", "random"),
    ],
)
def test_play_takes_the_players_by_move_order_or_by_side(args, first, second, cli):
    result = cli("play", *args, "--ui", "text", "--seed", "3")
    assert result.returncode == 0, result.stderr
    header = result.stdout.splitlines()[0]  # names the players, first player first
    assert header.index(f"({first})") < header.index(f"({second})"), header
    assert "Game over" in result.stdout


def test_any_game_option_is_set_with_option_name_value(tmp_path, cli):
    result = cli("arena", "reversi", "random", "greedy", "--games", "2", "--no-progress",
                 "--option", "board_size=4", "--out", str(tmp_path / "g.jsonl"),
                 "--no-isolate")  # fmt: skip
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert records and all(r["options"] == {"board_size": 4} for r in records)


def test_play_reversi_on_the_board_size_given(cli):
    result = cli("play", "reversi", "--first", "random", "--second", "random", "--size", "6",
                 "--ui", "text", "--seed", "1")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "  a b c d e f\n" in result.stdout and "  a b c d e f g" not in result.stdout


def test_connect_four_arena_tournament_and_replay(tmp_path, cli):
    records = tmp_path / "runs" / "c4.jsonl"
    result = cli(
        "arena", "connect_four", "random", "greedy", "--games", "4", "--out", str(records),
        "--no-progress", "--no-isolate",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "connect_four: random vs greedy" in result.stdout and "as red" in result.stdout
    games = [json.loads(line) for line in records.read_text().splitlines()]
    assert sorted(g["game_index"] for g in games) == [0, 1, 2, 3]
    assert all(g["options"] == {} and set(g["move_names"]) <= set("abcdefg") for g in games)

    folder = tmp_path / "runs" / "c4"
    result = cli(
        "tournament", "connect_four", "random", "greedy", "alphabeta:depth=2",
        "--games", "2", "--out", str(folder), "--no-progress", "--no-isolate",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "connect_four round robin: 3 agents" in result.stdout
    assert {"games.jsonl", "ratings.csv", "ratings.md", "ratings.png"} <= {
        p.name for p in folder.iterdir()
    }
    assert len((folder / "games.jsonl").read_text().splitlines()) == 6  # 3 pairs x 2 games

    # game 1 of each of the three pairings: --match picks one
    assert_user_error(
        cli("replay", str(folder / "games.jsonl"), "--game", "1", "--ui", "text"),
        "3 games numbered 1",
        "--match 1: ",
        "--match 3: ",
        "random vs greedy",
    )
    shown = cli("replay", str(folder / "games.jsonl"), "--game", "1", "--match", "2",
                "--ui", "text", "--delay", "0")  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert "Result:" in shown.stdout
    gif = tmp_path / "c4.gif"
    written = cli(
        "replay", str(folder / "games.jsonl"), "--game", "1", "--match", "3", "--gif", str(gif)
    )
    assert written.returncode == 0, written.stderr
    assert gif.read_bytes()[:6] in (b"GIF87a", b"GIF89a")


def test_replay_reads_records_of_the_first_format(tmp_path, cli):
    # as the arena wrote them before game options: "board_size" instead of "options"
    moves = [19, 18, 17]  # d3, c3, b3 on 8x8 (action row * 8 + col)
    old = {"format": 1, "game": "reversi", "board_size": 8, "moves": moves}
    ttt = {"format": 1, "game": "tictactoe", "board_size": 3, "moves": [4, 0, 8]}
    records = tmp_path / "old.jsonl"
    records.write_text(json.dumps(old) + "\n" + json.dumps(ttt) + "\n")
    for index in ("0", "1"):
        shown = cli("replay", str(records), "--game", index, "--ui", "text", "--delay", "0")
        assert shown.returncode == 0, shown.stderr
    small = {"format": 1, "game": "reversi", "board_size": 4, "moves": [4]}  # a2 on 4x4
    records.write_text(json.dumps(small) + "\n")
    shown = cli("replay", str(records), "--ui", "text", "--delay", "0")
    assert shown.returncode == 0, shown.stderr
    assert "  a b c d\n" in shown.stdout and "  a b c d e" not in shown.stdout


def test_version():  # in a subprocess: the program itself
    from boardzoo import __version__

    result = boardzoo("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"boardzoo {__version__}"


def test_every_option_of_every_command_has_help_and_shows_its_default():
    import argparse

    from boardzoo.cli import build_parser

    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(subparsers.choices) >= {"play", "arena", "tournament", "replay", "agents", "demo"}
    for name, command in subparsers.choices.items():
        text = command.format_help()
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"{name} {action.dest} has no help"
            if action.option_strings and action.default not in (None, False):
                # the value shown must be the real default
                assert f"{action.default}" in text, f"{name} {action.dest}: default not shown"
    arena = subparsers.choices["arena"].format_help()
    assert "(default: 100)" in arena and "(default: 60.0)" in arena


def test_arena_without_out_writes_under_runs_and_says_where(tmp_path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    args = ("arena", "tictactoe", "random", "greedy", "--games", "2", "--no-progress")
    first = cli(*args, "--no-isolate")
    second = cli(*args, "--no-isolate")
    assert first.returncode == 0 and second.returncode == 0, (first.stderr, second.stderr)
    files = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert files == ["tictactoe-random-vs-greedy-2.jsonl", "tictactoe-random-vs-greedy.jsonl"]
    assert "runs/tictactoe-random-vs-greedy.jsonl" in first.stdout
    assert "runs/tictactoe-random-vs-greedy-2.jsonl" in second.stdout  # a new file, not an error
    assert len((tmp_path / "runs" / files[1]).read_text().splitlines()) == 2


def _records_file(tmp_path, order):
    """A record file holding TicTacToe games with the given game indices, in that order."""
    records = tmp_path / "m.jsonl"
    play_match("tictactoe", ("random", "random"), games=max(order) + 1, out=records,
               progress=False, isolate=False)  # fmt: skip
    lines = {json.loads(line)["game_index"]: line for line in records.read_text().splitlines()}
    records.write_text("".join(lines[i] + "\n" for i in order))
    return records, {i: json.loads(lines[i]) for i in order}


def test_replay_game_means_the_recorded_game_index(tmp_path, cli):
    records, games = _records_file(tmp_path, [3, 0, 2])  # game 1 missing, lines out of order
    shown = cli("replay", str(records), "--game", "2", "--ui", "text", "--delay", "0")
    assert shown.returncode == 0, shown.stderr
    played = [line.split(" plays ")[1] for line in shown.stdout.splitlines() if " plays " in line]
    assert played == games[2]["move_names"]  # game 2's moves (the file's third line)
    assert games[2]["move_names"] != games[3]["move_names"]  # so the check can fail
    assert_user_error(
        cli("replay", str(records), "--game", "1"), "--game 1 is not in", "holds games 0, 2-3"
    )


def test_replay_file_problems_are_explained(tmp_path, cli):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert_user_error(cli("replay", str(empty), "--ui", "text"), "holds no games yet")
    missing = cli("replay", str(tmp_path / "nope.jsonl"), "--ui", "text")
    assert_user_error(missing, "nope.jsonl")
    assert "Errno" not in missing.stderr
    assert_user_error(
        cli("replay", str(empty), "--gif", str(tmp_path / "x.png")), "must end in .gif"
    )

    records, _ = _records_file(tmp_path, [0, 1])
    text = records.read_text()
    records.write_text(text + text.splitlines()[0][:40])  # a run killed while writing
    shown = cli("replay", str(records), "--game", "1", "--ui", "text", "--delay", "0")
    assert shown.returncode == 0, shown.stderr
    assert "Traceback" not in shown.stderr
    assert "incomplete last line" in shown.stderr or "truncated" in shown.stderr


def test_without_a_display_play_falls_back_to_text_and_replay_says_how(tmp_path, monkeypatch, cli):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):  # no display at all
        monkeypatch.delenv(name, raising=False)
    result = cli("play", "tictactoe", "--x", "random", "--o", "random", "--seed", "1")
    assert result.returncode == 0, result.stderr
    assert "DISPLAY and WAYLAND_DISPLAY are not set" in result.stderr
    assert "--ui text" in result.stderr and "Game over" in result.stdout

    records, _ = _records_file(tmp_path, [0])
    assert_user_error(cli("replay", str(records), "--game", "0"), "--gif", "--ui text")


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        ("mcts:simulations=-5", ["simulations", "-5"]),
        ("mcts:simulations=0", ["simulations", "0"]),
        ("mcts:time_limit=0", ["time_limit", "0"]),
        ("mcts:c=-1", ["c=-1"]),
        ("alphabeta:depth=0", ["depth", "0"]),
        ("sb3:path=/nope.zip", ["/nope.zip"]),
        pytest.param(
            "az:model=reversi-4x4",
            ["cannot play reversi 8x8", "plays reversi 4x4"],
            marks=pytest.mark.torch,  # reading the model file's game imports torch
        ),
    ],
)
def test_bad_agent_values_fail_before_any_game(spec, fragments, tmp_path, monkeypatch, cli):
    monkeypatch.chdir(tmp_path)
    result = cli("arena", "reversi", spec, "random", "--games", "2", "--out", "m.jsonl")
    assert_user_error(result, *fragments)
    assert not (tmp_path / "m.jsonl").exists()  # nothing started
    assert "Errno" not in result.stderr and "__init__" not in result.stderr


def test_agents_lists_every_agent_and_its_options(cli):
    from boardzoo.agents.registry import AGENT_CLASSES

    listing = cli("agents")
    assert listing.returncode == 0, listing.stderr
    for name in AGENT_CLASSES:
        assert name in listing.stdout
    mcts = cli("agents", "mcts")
    assert mcts.returncode == 0, mcts.stderr
    for option in ("simulations", "time_limit", "max_nodes", "rollout"):
        assert option in mcts.stdout
    assert_user_error(cli("agents", "minimax"), "unknown agent 'minimax'")

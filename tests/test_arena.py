"""The arena under tournament rules, by outcome: misbehaving agents lose their game and nothing
else, records are complete and reproducible, an interrupted run resumes where it stopped.

The misbehaving agents live here and are registered (for the duration of this module) under
``test_*`` names; the arena's agent processes import this module to build them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest

import boardzoo
from boardzoo.agents import RandomAgent
from boardzoo.agents.base import Agent, env_state
from boardzoo.agents.registry import AGENT_CLASSES, AgentSpecError, register_agent
from boardzoo.arena import (
    RECORD_FORMAT,
    MatchSettingsError,
    RecordError,
    RecordWarning,
    find_game,
    forfeit_lines,
    match_table,
    play_match,
    read_records,
    record_game,
    record_options,
    render_match,
    render_tournament,
    tournament,
    without_timing,
)
from boardzoo.games import action_name

FAST = 10.0  # time limit for well-behaved agents: generous, so a loaded machine never forfeits
REVERSI_4, REVERSI_6, REVERSI_8 = ({"board_size": n} for n in (4, 6, 8))
# The sides of each game, first player first, as the games' rules name them.
SIDES = {"reversi": ["black", "white"], "tictactoe": ["X", "O"], "connect_four": ["red", "yellow"]}


class _Base(Agent):
    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.moves = 0

    def random_move(self, env: Any) -> int:
        actions = env_state(env).legal_actions()
        self.moves += 1
        return int(actions[int(self.rng.integers(len(actions)))])


class HangingAgent(_Base):
    """Plays ``after`` random moves, then never answers."""

    def __init__(self, after: int = 0, seed: int | None = None) -> None:
        super().__init__(seed)
        self.after = after

    def act(self, env: Any) -> int:
        if self.moves >= self.after:
            time.sleep(3600)
        return self.random_move(env)


class RaisingAgent(_Base):
    """Plays ``after`` random moves, then raises."""

    def __init__(self, after: int = 0, seed: int | None = None) -> None:
        super().__init__(seed)
        self.after = after

    def act(self, env: Any) -> int:
        if self.moves >= self.after:
            raise RuntimeError(f"boom after {self.moves} moves")
        return self.random_move(env)


class CrashingAgent(_Base):
    """Ends its interpreter on the first move."""

    def act(self, env: Any) -> int:
        os._exit(3)


class SleepyAgent(_Base):
    """Sleeps ``delay`` seconds before each random move."""

    def __init__(self, delay: float = 0.05, seed: int | None = None) -> None:
        super().__init__(seed)
        self.delay = delay

    def act(self, env: Any) -> int:
        time.sleep(self.delay)
        return self.random_move(env)


class IllegalAgent(_Base):
    """Answers each turn with ``per_turn`` illegal moves before a legal one."""

    def __init__(
        self,
        per_turn: int = 3,
        kind: Literal["occupied", "range", "type"] = "occupied",
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        self.per_turn, self.kind = per_turn, kind
        self.state: Any = None
        self.tries = 0

    def act(self, env: Any) -> Any:
        state = env_state(env)
        if state != self.state:
            self.state, self.tries = state, 0
        self.tries += 1
        if self.tries > self.per_turn:
            return self.random_move(state)
        if self.kind == "type":
            return "d3"
        illegal = [a for a in range(state.num_actions) if not state.is_legal(a)]
        return illegal[0] if illegal and self.kind == "occupied" else state.num_actions + 5


class PickyAgent(_Base):
    """Refuses a negative ``level`` when built, as the library's agents refuse bad values."""

    def __init__(self, level: int = 0, seed: int | None = None) -> None:
        super().__init__(seed)
        if level < 0:
            raise ValueError(f"level={level} is not allowed: it must be an integer >= 0")

    def act(self, env: Any) -> int:
        return self.random_move(env)


class PreparedAgent(_Base):
    """Takes ``delay`` seconds to get ready for a game (in ``prepare``), then plays at random;
    a move asked for before it was prepared for the game being played raises."""

    def __init__(self, delay: float = 0.0, seed: int | None = None) -> None:
        super().__init__(seed)
        self.delay = delay
        self.prepared_for: Any = None

    def prepare(self, game: Any) -> None:
        time.sleep(self.delay)
        self.prepared_for = game

    def act(self, env: Any) -> int:
        state = env_state(env)
        if self.prepared_for is not state.game:
            raise RuntimeError(f"asked to move in {state.game!r}, prepared for {self.prepared_for}")
        return self.random_move(state)


class LimitedAgent(_Base):
    """Plays at random once told the match's move limit ``expected`` (seconds; before the
    game, by ``set_move_limit``); a move asked for without it raises."""

    def __init__(self, expected: float = 1.0, seed: int | None = None) -> None:
        super().__init__(seed)
        self.expected = expected
        self.told: float | None = None

    def set_move_limit(self, seconds: float | None) -> None:
        self.told = seconds

    def act(self, env: Any) -> int:
        if self.told != self.expected:
            raise RuntimeError(f"told a move limit of {self.told}, not {self.expected}")
        return self.random_move(env)


TEST_AGENTS = {
    "test_limited": "LimitedAgent",
    "test_picky": "PickyAgent",
    "test_prepared": "PreparedAgent",
    "test_hang": "HangingAgent",
    "test_raise": "RaisingAgent",
    "test_crash": "CrashingAgent",
    "test_sleepy": "SleepyAgent",
    "test_illegal": "IllegalAgent",
}


def register_test_agents() -> None:
    for name, cls in TEST_AGENTS.items():
        register_agent(name, f"test_arena:{cls}")


@pytest.fixture(autouse=True, scope="module")
def _test_agents():
    register_test_agents()
    yield
    for name in TEST_AGENTS:
        AGENT_CLASSES.pop(name, None)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def check_complete(record: dict[str, Any]) -> None:
    """Every field a record must have is there and consistent."""
    for key in (
        "agents", "agent_configs", "game", "options", "seed", "game_index", "colours",
        "moves", "move_names", "move_times", "illegal_attempts", "scores", "reason", "error",
        "boardzoo_version", "timestamp", "result", "winner", "forfeit",
    ):  # fmt: skip
        assert key in record, key
    assert len(record["moves"]) == len(record["move_names"]) == len(record["move_times"])
    assert record["format"] == RECORD_FORMAT == 2
    assert "board_size" not in record  # format 1's field, replaced by the options
    assert sorted(record["colours"]) == sorted(SIDES[record["game"]])
    first_side = record["colours"][record["first"]]
    assert first_side == SIDES[record["game"]][0]  # the agent that moved first has the first side
    assert sum(record["scores"]) == 1.0
    assert record["reason"] in ("normal", "time", "illegal", "error")
    assert (record["forfeit"] is None) == (record["reason"] == "normal")


# --- tournament rules -----------------------------------------------------------------------------


def test_a_hanging_agent_loses_on_time_and_the_match_goes_on(tmp_path):
    out = tmp_path / "hang.jsonl"
    start = time.perf_counter()
    result = play_match(
        "tictactoe", ("test_hang:after=1", "random"), games=2, time_limit=0.5, out=out,
        progress=False,
    )  # fmt: skip
    # Two hangs, each cut at 0.5 s (plus a restart); the bound is generous on purpose: it only
    # shows that no hang was waited out (the agent sleeps an hour), never a machine's speed.
    assert time.perf_counter() - start < 600
    assert result.games == 2
    for record in lines(out):
        check_complete(record)
        assert (record["reason"], record["forfeit"], record["scores"]) == ("time", 0, [0.0, 1.0])
        assert "time" in record["error"] or "0.5" in record["error"]
        assert record["move_agents"].count(0) == 1  # its one move before hanging is kept
    assert result.stats[0].forfeits == {"time": 2, "illegal": 0, "error": 0}
    assert result.forfeits["time"] == 2


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        ("test_raise:after=1", ["RuntimeError: boom after 1 moves"]),
        ("test_crash", ["process ended", "exit code 3"]),
    ],
)
def test_an_agent_that_fails_loses_with_the_error_recorded(spec, fragments):
    result = play_match("tictactoe", (spec, "greedy"), games=2, time_limit=FAST, progress=False)
    assert [r["game_index"] for r in result.records] == [0, 1]  # the match went on
    for record in result.records:
        check_complete(record)
        assert (record["reason"], record["forfeit"], record["winner"]) == ("error", 0, 1)
        for fragment in fragments:
            assert fragment in record["error"]
    if spec.startswith("test_raise"):
        assert "raise RuntimeError" in result.records[0]["traceback"]
    assert result.stats[1].total.wins == 2


def test_a_slow_move_loses_on_time_even_in_process():
    result = play_match(
        "tictactoe", ("random", "test_sleepy:delay=0.3"), games=2, time_limit=0.1,
        progress=False, isolate=False,
    )  # fmt: skip
    assert [(r["reason"], r["forfeit"]) for r in result.records] == [("time", 1), ("time", 1)]


@pytest.mark.parametrize("kind", ["occupied", "range", "type"])
def test_three_illegal_moves_in_a_row_lose(kind):
    spec = f"test_illegal:per_turn=3,kind={kind}"
    # the answer that is not an integer comes from an agent's process (an illegal integer does
    # in test_one_or_two_illegal_moves_are_reported_but_not_forfeited)
    result = play_match("reversi", ("random", spec), games=1, options=REVERSI_4, progress=False,
                        time_limit=FAST, isolate=kind == "type")  # fmt: skip
    record = result.records[0]
    check_complete(record)
    assert (record["reason"], record["forfeit"], record["scores"]) == ("illegal", 1, [1.0, 0.0])
    attempts = record["illegal_attempts"]
    assert len(attempts) == 3
    assert {a["agent"] for a in attempts} == {1}
    assert {a["ply"] for a in attempts} == {1}  # all at its first turn (random moved first)
    if kind == "type":
        assert attempts[0]["action"] is None
        assert attempts[0]["name"] == "'d3'"
    elif kind == "range":
        assert attempts[0]["action"] == 4 * 4 + 1 + 5
    else:
        assert attempts[0]["name"] == action_name(attempts[0]["action"], 4)
    assert "3 illegal moves" in record["error"]
    assert result.stats[1].illegal_attempts == 3


def test_one_or_two_illegal_moves_are_reported_but_not_forfeited():
    result = play_match(
        "reversi", ("test_illegal:per_turn=1", "test_illegal:per_turn=2"), games=2,
        options=REVERSI_4, time_limit=FAST, progress=False,
    )  # fmt: skip
    for record in result.records:
        check_complete(record)
        assert record["reason"] == "normal"
        turns = record["move_agents"]
        attempts = record["illegal_attempts"]
        for agent, per_turn in ((0, 1), (1, 2)):
            mine = [a for a in attempts if a["agent"] == agent]
            # on 4x4 every turn has an occupied square to try: per_turn attempts each turn
            assert len(mine) == per_turn * turns.count(agent)
            plies = [a["ply"] for a in mine]
            assert all(plies.count(p) == per_turn for p in set(plies))
    assert result.stats[0].illegal_attempts > 0 and result.stats[1].illegal_attempts > 0
    assert result.forfeits == {"time": 0, "illegal": 0, "error": 0}


# --- reproducibility ------------------------------------------------------------------------------


def test_same_seed_same_records_with_one_or_two_workers(tmp_path):
    agents = ("mcts:simulations=30", "random")
    kwargs = {"games": 4, "options": REVERSI_4, "time_limit": FAST, "progress": False, "seed": 7}
    one = play_match("reversi", agents, workers=1, out=tmp_path / "one.jsonl", **kwargs)
    # two worker processes playing the agents themselves (with agents' processes below them:
    # test_arena_workers.py)
    two = play_match("reversi", agents, workers=2, out=tmp_path / "two.jsonl", isolate=False,
                     **kwargs)  # fmt: skip
    # compiling happens in the set-up time (Agent.prepare), never on a move's clock: no forfeit
    assert [r["reason"] for r in one.records + two.records] == ["normal"] * 8
    assert [without_timing(r) for r in one.records] == [without_timing(r) for r in two.records]
    written = sorted(read_records(tmp_path / "two.jsonl"), key=lambda r: r["game_index"])
    assert [without_timing(r) for r in written] == [without_timing(r) for r in one.records]
    assert [r["first"] for r in one.records] == [0, 1, 0, 1]  # colours alternate
    assert len({r["seed"] for r in one.records}) == 4
    other = play_match("reversi", agents, **{**kwargs, "seed": 8}, isolate=False)
    assert [r["moves"] for r in other.records] != [r["moves"] for r in one.records]
    # in-process games are the same games as isolated ones
    again = play_match("reversi", agents, **kwargs, isolate=False)
    assert [without_timing(r) for r in again.records] == [without_timing(r) for r in one.records]


def test_paired_openings_share_the_opening_with_colours_swapped():
    result = play_match("reversi", ("random", "greedy"), games=4, options=REVERSI_6, progress=False,
                        pair_openings=True, isolate=False)  # fmt: skip
    records = result.records
    assert records[0]["opening_plies"] == 4
    assert records[0]["moves"][:4] == records[1]["moves"][:4]
    assert records[2]["moves"][:4] == records[3]["moves"][:4]
    assert records[0]["moves"][:4] != records[2]["moves"][:4]
    assert records[0]["move_agents"][:4] == [None] * 4
    assert (records[0]["first"], records[1]["first"]) == (0, 1)


def test_a_killed_run_resumes_with_every_game_exactly_once(tmp_path):
    out = tmp_path / "run.jsonl"
    agents = ("random", "greedy")
    args = dict(games=6, time_limit=FAST, progress=False, isolate=False)
    # A run in a process of its own, killed (SIGKILL: nothing cleans up) once its third game is
    # on disk: the kill comes at a known point, whatever the machine's speed.
    kill = int(getattr(signal, "SIGKILL", signal.SIGTERM))  # (Windows: TerminateProcess)
    script = (
        "import os\n"
        "from boardzoo.arena import play_match\n"
        "from boardzoo.arena.progress import MatchProgress\n"
        "def update(self, record):\n"
        "    if record['game_index'] == 2:\n"
        f"        os.kill(os.getpid(), {kill})\n"
        "MatchProgress.update = update\n"
        "if __name__ == '__main__':\n"
        f"    play_match('tictactoe', {agents!r}, out={str(out)!r}, **{args!r})\n"
    )
    killed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300, check=False)  # fmt: skip
    assert killed.returncode in (-kill, kill), killed.stderr
    before = lines(out)
    assert [r["game_index"] for r in before] == [0, 1, 2]
    with open(out, "a") as file:  # a line cut short by the kill
        file.write('{"game": "tictactoe", "mov')
    with pytest.warns(RecordWarning, match=rf"line {len(before) + 1}: skipped an incomplete last"):
        assert read_records(out) == before  # the games written are all there

    resumed = play_match("tictactoe", agents, out=out, resume=True, **args)
    written = read_records(out)
    assert sorted(r["game_index"] for r in written) == list(range(6))
    assert [without_timing(r) for r in written[: len(before)]] == [
        without_timing(r) for r in before
    ]
    assert [r["game_index"] for r in resumed.records] == list(range(6))
    fresh = play_match("tictactoe", agents, **args)
    assert [without_timing(r) for r in resumed.records] == [
        without_timing(r) for r in fresh.records
    ]
    # resuming a finished run plays nothing
    play_match("tictactoe", agents, out=out, resume=True, **args)
    assert len(read_records(out)) == 6


def test_resume_refuses_a_file_of_another_match(tmp_path):
    out = tmp_path / "m.jsonl"
    play_match("tictactoe", ("random", "greedy"), games=2, out=out, progress=False, isolate=False)
    with pytest.raises(FileExistsError, match="resume"):
        play_match("tictactoe", ("random", "greedy"), games=2, out=out, progress=False)
    for change, fragment in [
        ({"seed": 1}, "match_seed=0 where this run has match_seed=1"),
        ({"time_limit": 5.0}, "time_limit"),
        ({"agents": ("greedy", "random")}, "agents"),
    ]:
        kwargs = {"agents": ("random", "greedy"), "games": 4, **change}
        with pytest.raises(MatchSettingsError, match=fragment):
            play_match("tictactoe", out=out, resume=True, progress=False, isolate=False, **kwargs)
    # more games with the same settings: only the new ones are played
    result = play_match("tictactoe", ("random", "greedy"), games=4, out=out, resume=True,
                        progress=False, isolate=False)  # fmt: skip
    assert result.games == 4 and len(read_records(out)) == 4


def test_bad_arguments_fail_before_any_game(tmp_path):
    out = tmp_path / "never.jsonl"
    with pytest.raises(AgentSpecError, match="unknown agent 'minimax'"):
        play_match("reversi", ("random", "minimax"), out=out, progress=False)
    assert not out.exists()
    with pytest.raises(ValueError, match="board_size"):
        play_match("reversi", ("random", "greedy"), options={"board_size": 5}, progress=False)
    with pytest.raises(ValueError, match="unknown game"):
        play_match("chess", ("random", "greedy"), progress=False)
    with pytest.raises(ValueError, match="workers=1"):
        play_match("tictactoe", (RandomAgent(seed=0), "random"), workers=2, isolate=False,
                   progress=False)  # fmt: skip
    with pytest.raises(ValueError, match="backend='spark' is not allowed"):
        play_match("tictactoe", ("random", "greedy"), backend="spark", progress=False)
    with pytest.raises(ValueError, match="unknown arena settings \\['gmaes'\\]"):
        play_match("tictactoe", ("random", "greedy"), gmaes=3, progress=False)
    with pytest.raises(ValueError, match="resume"):
        play_match("tictactoe", ("random", "greedy"), resume=True, progress=False)


def test_agent_objects_play_in_their_own_processes():
    result = play_match("tictactoe", (RandomAgent(seed=1), RandomAgent(seed=2)), games=4,
                        progress=False)  # fmt: skip
    assert result.agents == ("RandomAgent", "RandomAgent")
    assert result.records[0]["agent_configs"][0]["class"].endswith(":RandomAgent")
    assert sum(s.total.games for s in result.stats) == 8


# --- records and reports --------------------------------------------------------------------------


def test_malformed_lines_are_reported_with_their_number(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = json.dumps({"game": "tictactoe", "board_size": 3, "moves": [4, 0, 8]})
    path.write_text(good + "\n\n" + good + "\n{not json\n" + good + "\n")
    with pytest.raises(RecordError, match=r"bad.jsonl, line 4: not valid JSON"):
        read_records(path)
    path.write_text(good + "\n" + json.dumps({"game": "tictactoe", "moves": [1.5]}) + "\n")
    with pytest.raises(RecordError, match="line 2: 'moves' must be a list of actions"):
        read_records(path)
    path.write_text(good + "\n[1, 2]\n")
    with pytest.raises(RecordError, match="line 2: expected a JSON object"):
        read_records(path)
    path.write_text('{"game": "tictactoe", "moves": [], "x": NaN}\n')
    with pytest.raises(RecordError, match="line 1"):
        read_records(path)
    with pytest.raises(RecordError, match="does not exist"):
        read_records(tmp_path / "missing.jsonl")
    with pytest.raises(RecordError, match="folder"):
        read_records(tmp_path)
    path.write_text(good + "\n")
    assert read_records(path) == [json.loads(good)]


def test_results_and_reports_add_up():
    result = play_match("reversi", ("greedy", "random"), games=6, options=REVERSI_4, progress=False,
                        isolate=False, seed=3)  # fmt: skip
    a, b = result.stats
    assert a.total.games == b.total.games == 6
    assert (a.total.wins, a.total.draws, a.total.losses) == (b.total.losses, b.total.draws,
                                                             b.total.wins)  # fmt: skip
    assert a.as_first.games == a.as_second.games == 3
    assert a.moves == sum(r["move_agents"].count(0) for r in result.records)
    assert result.score == pytest.approx(a.total.score)
    assert result.score_interval[0] <= result.score <= result.score_interval[1]
    assert result.elo_interval[0] <= result.elo <= result.elo_interval[1]
    text = render_match(result)
    assert "greedy" in text and "as black" in text and "Elo difference" in text
    markdown = render_match(result, markdown=True)
    assert markdown.startswith("## reversi 4x4") and "|---" in markdown
    assert match_table(result).row_count == 2


def test_a_tournament_rates_every_agent_and_writes_its_files(tmp_path):
    agents = ["random", "greedy", "alphabeta:depth=9"]
    # two workers, whose games end in any order across the pairs; agents played by the workers
    result = tournament("tictactoe", agents, games=4, out=tmp_path, progress=False,
                        time_limit=FAST, workers=2, isolate=False)  # fmt: skip
    assert len(result.records) == 12
    assert {tuple(r["agents"]) for r in result.records} == {
        ("random", "greedy"), ("alphabeta:depth=9", "random"), ("greedy", "alphabeta:depth=9"),
    }  # fmt: skip
    for agent in agents:  # colours balanced
        assert result.stats[agent].as_first.games == result.stats[agent].as_second.games == 4
    assert result.elo is not None
    assert result.elo.ratings["random"] == 0.0
    assert result.elo.ratings["alphabeta:depth=9"] > result.elo.ratings["random"]
    assert result.standings()[0] == "alphabeta:depth=9"  # perfect play never loses
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "games.jsonl", "ratings.csv", "ratings.md", "ratings.png",
    ]  # fmt: skip
    csv_lines = (tmp_path / "ratings.csv").read_text().splitlines()
    assert csv_lines[0].startswith("rank,agent,elo,elo_low,elo_high")
    assert csv_lines[1].split(",")[1] == "alphabeta:depth=9"
    assert (tmp_path / "ratings.png").read_bytes()[:4] == b"\x89PNG"
    assert "Crosstable" in (tmp_path / "ratings.md").read_text()
    assert "alphabeta:depth=9" in render_tournament(result)
    # resuming a finished tournament plays nothing and gives the same result
    again = tournament("tictactoe", agents, games=4, out=tmp_path, progress=False,
                       time_limit=FAST, resume=True, isolate=False)  # fmt: skip
    assert len(read_records(tmp_path / "games.jsonl")) == 12
    assert again.elo is not None and again.elo.ratings == result.elo.ratings
    with pytest.raises(MatchSettingsError, match="time_limit"):
        tournament("tictactoe", agents, games=4, out=tmp_path, progress=False,
                   time_limit=1.0, resume=True)  # fmt: skip
    with pytest.raises(ValueError, match="distinct"):
        tournament("tictactoe", ["random", "random"], progress=False)


# --- game options, other games, old records -----------------------------------------------------


def _four_in_a_row(grid: list[list[str]], mark: str) -> bool:
    """Whether ``mark`` has four in a row on a Connect Four grid (rows of columns, any order)."""
    rows, cols = len(grid), len(grid[0])
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= rr < rows and 0 <= cc < cols and grid[rr][cc] == mark
                       for rr, cc in cells):  # fmt: skip
                    return True
    return False


def _replay_connect_four(moves: list[int]) -> int | None:
    """Drop the discs of ``moves`` on a 6 x 7 grid by hand; the player with four (0 or 1) or
    ``None``, checking that the game ends exactly at the first four or on a full board."""
    grid = [["."] * 7 for _ in range(6)]  # grid[0] is the bottom row
    for ply, column in enumerate(moves):
        row = next(r for r in range(6) if grid[r][column] == ".")  # StopIteration: column full
        mark = "XO"[ply % 2]
        grid[row][column] = mark
        if _four_in_a_row(grid, mark):
            assert ply == len(moves) - 1, "moves were played after a four in a row"
            return ply % 2
    assert len(moves) == 42, "the game stopped before a four or a full board"
    return None


def test_a_connect_four_match_plays_columns_by_the_rules(tmp_path):
    out = tmp_path / "c4.jsonl"
    result = play_match("connect_four", ("random", "greedy"), games=4, out=out, time_limit=FAST,
                        progress=False, isolate=False)  # fmt: skip
    records = sorted(read_records(out), key=lambda r: r["game_index"])
    assert [r["game_index"] for r in records] == [0, 1, 2, 3]
    for record in records:
        check_complete(record)
        assert record["options"] == {}
        assert record["reason"] == "normal"
        assert record["move_names"] == ["abcdefg"[m] for m in record["moves"]]  # columns a..g
        assert sum(record["discs"]) == len(record["moves"])  # one disc a move, none taken
        assert record["discs"][0] - record["discs"][1] in (0, 1)  # red moves first
        winner_player = _replay_connect_four(record["moves"])
        first = record["first"]
        expected = None if winner_player is None else (first if winner_player == 0 else 1 - first)
        assert record["winner"] == expected
    assert result.stats[0].total.games == 4
    text = render_match(result)
    assert text.startswith("connect_four: random vs greedy") and "as red" in text
    assert "as yellow" in text


def test_game_options_are_checked_and_recorded(tmp_path):
    kwargs = {"games": 2, "progress": False, "isolate": False}
    by_options = play_match("reversi", ("random", "greedy"), options=REVERSI_6, **kwargs)
    squares = {f"{file}{rank}" for file in "abcdef" for rank in range(1, 7)}
    for record in by_options.records:
        assert record["options"] == {"board_size": 6}
        for action, name in zip(record["moves"], record["move_names"], strict=True):
            # action row * 6 + col is file a.. (col) and rank 1.. (row); 36 is the pass
            assert name == ("pass" if action == 36 else "abcdef"[action % 6] + str(action // 6 + 1))
            assert name in squares | {"pass"}
        assert sum(record["discs"]) <= 36
    assert render_match(by_options).startswith("reversi 6x6: random vs greedy")
    assert play_match("reversi", ("random", "greedy"), **kwargs).records[0]["options"] == {
        "board_size": 8
    }  # the game's default, written out
    ttt = play_match("tictactoe", ("random", "greedy"), **kwargs)
    assert ttt.records[0]["options"] == {}
    assert set(ttt.records[0]["move_names"]) <= {f"{f}{r}" for f in "abc" for r in (1, 2, 3)}
    for moves, names in ((r["moves"], r["move_names"]) for r in ttt.records):
        assert names == ["abc"[m % 3] + str(m // 3 + 1) for m in moves]  # 4 is b2, the centre
    with pytest.raises(ValueError, match="tictactoe has no option 'board_size'; its options: none"):
        play_match("tictactoe", ("random", "greedy"), options=REVERSI_4, **kwargs)
    with pytest.raises(ValueError, match="connect_four has no option 'size'"):
        play_match("connect_four", ("random", "greedy"), options={"size": 6}, **kwargs)
    with pytest.raises(ValueError, match=r"board_size must be one of \[4, 6, 8\], got 5"):
        play_match("reversi", ("random", "greedy"), options={"board_size": 5}, **kwargs)
    out = tmp_path / "six.jsonl"
    play_match("reversi", ("random", "greedy"), options=REVERSI_6, out=out, **kwargs)
    with pytest.raises(MatchSettingsError, match=r"options=\{'board_size': 6\} where this run has"):
        play_match("reversi", ("random", "greedy"), options=REVERSI_4, out=out, resume=True,
                   **kwargs)  # fmt: skip


def _as_format_1(record: dict[str, Any], board_size: int) -> dict[str, Any]:
    """``record`` as the arena wrote it before game options (format 1)."""
    old = {k: v for k, v in record.items() if k != "options"}
    old.update(format=1, board_size=board_size)
    return old


def test_format_1_records_are_read_and_resumed(tmp_path):
    out = tmp_path / "old.jsonl"
    kwargs = {"options": REVERSI_6, "progress": False, "isolate": False}
    play_match("reversi", ("random", "greedy"), games=2, out=out, **kwargs)
    old = [_as_format_1(r, 6) for r in lines(out)]
    out.write_text("".join(json.dumps(r) + "\n" for r in old))
    assert record_options(old[0]) == {"board_size": 6}
    game = record_game(old[0])
    assert (game.name, game.rows, game.cols, game.num_actions) == ("reversi", 6, 6, 37)

    resumed = play_match("reversi", ("random", "greedy"), games=4, out=out, resume=True, **kwargs)
    written = lines(out)
    assert written[:2] == old  # the old games are kept as they were
    assert [r["format"] for r in written] == [1, 1, 2, 2]
    assert sorted(r["game_index"] for r in written) == [0, 1, 2, 3]
    fresh = play_match("reversi", ("random", "greedy"), games=4, **kwargs)

    def same_game(record: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in without_timing(record).items()  # type: ignore[arg-type]
                if k not in ("format", "options", "board_size")}  # fmt: skip

    assert [same_game(r) for r in resumed.records] == [same_game(r) for r in fresh.records]
    with pytest.raises(MatchSettingsError, match="options"):
        play_match("reversi", ("random", "greedy"), games=4, out=out, resume=True,
                   **{**kwargs, "options": REVERSI_8})  # fmt: skip

    # TicTacToe's format-1 records said board_size 3: TicTacToe has no options
    ttt = {"game": "tictactoe", "board_size": 3, "moves": [4, 0, 8]}
    assert record_options(ttt) == {}
    assert record_game(ttt).num_actions == 9
    ttt_out = tmp_path / "ttt.jsonl"
    play_match("tictactoe", ("random", "greedy"), games=2, out=ttt_out, progress=False,
               isolate=False)  # fmt: skip
    ttt_out.write_text("".join(json.dumps(_as_format_1(r, 3)) + "\n" for r in lines(ttt_out)))
    again = play_match("tictactoe", ("random", "greedy"), games=3, out=ttt_out, resume=True,
                       progress=False, isolate=False)  # fmt: skip
    assert again.games == 3 and len(lines(ttt_out)) == 3
    # a bare record (game and moves) is the game with its default options
    assert record_options({"game": "reversi", "moves": []}) == {}
    assert record_game({"game": "reversi", "moves": []}).rows == 8


def test_record_game_names_what_is_wrong():
    with pytest.raises(RecordError, match="unknown game 'chess'"):
        record_game({"game": "chess", "moves": []})
    with pytest.raises(RecordError, match=r"board_size must be one of \[4, 6, 8\], got 5"):
        record_game({"game": "reversi", "options": {"board_size": 5}, "moves": []})
    with pytest.raises(RecordError, match="tictactoe has no option 'board_size'"):
        record_game({"game": "tictactoe", "options": {"board_size": 3}, "moves": []})
    with pytest.raises(RecordError, match="needs a 'game'"):
        record_game({"moves": []})
    assert record_game({"game": "connect_four", "options": {}, "moves": []}).cols == 7


# --- specs checked up front, warm-up before the clock, streaming, forfeit reasons ---------------


def _no_games(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a game was started although a spec is bad")


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        ("test_picky:level=-1", ["level=-1", "integer >= 0"]),
        ("mcts:simulations=-5", ["simulations", "-5"]),
    ],
)
def test_a_bad_spec_value_stops_a_match_or_tournament_before_anything(
    spec, fragments, tmp_path, monkeypatch
):
    monkeypatch.setattr(sys.modules["boardzoo.arena.runner"], "run_games", _no_games)
    out = tmp_path / "never.jsonl"
    with pytest.raises(AgentSpecError) as raised:
        play_match("tictactoe", ("random", spec), games=2, out=out, progress=False)
    message = str(raised.value)
    assert "\n" not in message and all(fragment in message for fragment in fragments)
    assert not out.exists()
    folder = tmp_path / "never"
    with pytest.raises(AgentSpecError, match=fragments[0]):
        tournament("tictactoe", ["random", "greedy", spec], out=folder, progress=False)
    assert not folder.exists()
    monkeypatch.undo()  # the same agent with a good value plays
    good = spec.replace("-1", "1").replace("-5", "5")
    result = play_match("tictactoe", ("random", good), games=1, progress=False, isolate=False)
    assert result.records[0]["reason"] == "normal"


@pytest.mark.torch  # az's check of its model file imports torch
def test_an_agent_that_cannot_play_the_game_stops_the_match_before_anything(tmp_path, monkeypatch):
    # value_mix needs the game's learned evaluation, which tictactoe does not have: the match
    # stops at once with the reason, instead of forfeiting every game
    monkeypatch.setattr(sys.modules["boardzoo.arena.runner"], "run_games", _no_games)
    spec = "az:value_mix=0.5,simulations=4"
    out = tmp_path / "never.jsonl"
    with pytest.raises(AgentSpecError, match=r"az:value_mix=0\.5,simulations=4 cannot play "
                       r"tictactoe: value_mix=0\.5 needs a learned evaluation"):  # fmt: skip
        play_match("tictactoe", ("random", spec), games=2, out=out, progress=False)
    assert not out.exists()
    folder = tmp_path / "never"
    with pytest.raises(AgentSpecError, match="cannot play tictactoe"):
        tournament("tictactoe", ["random", "greedy", spec], out=folder, progress=False)
    assert not folder.exists()
    eight = Path(boardzoo.__file__).parent / "learned" / "models" / "reversi-8x8.npz"
    with pytest.raises(AgentSpecError, match=r"cannot play reversi 6x6: .* are not cells of"):
        play_match("reversi", ("random", f"engine:net={eight},time_limit=0.05"),
                   options={"board_size": 6}, games=2, out=out, progress=False)  # fmt: skip
    assert not out.exists()
    with pytest.raises(AgentSpecError, match="the model plays reversi 4x4, not reversi 6x6"):
        play_match("reversi", ("random", "az:model=reversi-4x4"), options={"board_size": 6},
                   games=2, progress=False)  # fmt: skip


@pytest.mark.parametrize("isolate", [True, False])
def test_agents_are_prepared_for_the_game_before_their_clock_runs(isolate):
    # getting ready takes longer than a move may: only the set-up time may hold it
    result = play_match(
        "reversi", ("test_prepared:delay=2.0", "random"), games=1, options=REVERSI_4,
        time_limit=1.5, progress=False, isolate=isolate,
    )  # fmt: skip
    record = result.records[0]
    # a 2 s set-up counted on the 1.5 s move clock would have lost the game on time
    assert (record["reason"], record["error"]) == ("normal", None)
    assert 0 in record["move_agents"]


@pytest.mark.parametrize("isolate", [True, False])
def test_agents_are_told_the_move_limit_before_the_game(isolate):
    """The referee's seconds a move reach each agent before its game (``set_move_limit``), in
    its own process or in the arena's: the agent raises, and the game is an error, without."""
    result = play_match(
        "tictactoe", ("test_limited:expected=7.5", "random"), games=2, time_limit=7.5,
        progress=False, isolate=isolate,
    )  # fmt: skip
    assert [(r["reason"], r["error"]) for r in result.records] == [("normal", None)] * 2


def test_games_are_handed_out_as_workers_free_up(monkeypatch):
    import boardzoo.arena.match
    from boardzoo.arena import GameTask
    from boardzoo.arena.progress import MatchProgress

    built = []

    @dataclasses.dataclass(frozen=True)
    class CountedTask(GameTask):
        def __post_init__(self) -> None:
            built.append(self.index)
            if len(built) > 1000:  # fail at once rather than build 10**9 games up front
                raise AssertionError("games are built up front")

    finished = []

    def update(self: MatchProgress, record: dict[str, Any]) -> None:
        finished.append(record["game_index"])
        if len(finished) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(boardzoo.arena.match, "GameTask", CountedTask)
    monkeypatch.setattr(MatchProgress, "update", update)
    with pytest.raises(KeyboardInterrupt):
        play_match("tictactoe", ("random", "random"), games=10**9, workers=2, progress=False,
                   isolate=False)  # fmt: skip
    assert len(finished) == 3
    # three games done, at most 2 x 2 workers more taken ahead: nothing built for the others
    assert 3 < len(built) <= 3 + 2 * 2 + 2
    assert sorted(built) == list(range(len(built)))


@pytest.mark.parametrize("workers", [1, 2])
def test_run_games_starts_no_game_once_told_to_stop(workers):
    from boardzoo.arena import ArenaSettings, GameTask, LocalBackend, run_games
    from boardzoo.arena.settings import make_settings

    settings = make_settings("tictactoe", ("random", "random"), {}, ArenaSettings(time_limit=FAST))
    taken = []

    def tasks():
        for index in range(1000):
            taken.append(index)
            yield GameTask(settings, index, ("random", "random"), ({}, {}))

    records: list[Any] = []
    backend = LocalBackend(workers, isolate=False, setup_timeout=60.0)
    run_games(tasks(), backend, on_record=records.append, stop_when=lambda: len(records) >= 5)
    # the games in play when the fifth ended finish and are kept; no other game is taken
    assert 5 <= len(records) <= 5 + workers - 1
    assert len(taken) == len(records)
    assert sorted(r["game_index"] for r in records) == taken


def _records_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_reports_say_why_games_were_forfeited():
    base = play_match("tictactoe", ("random", "greedy"), games=5, time_limit=5.0, progress=False,
                      isolate=False)  # fmt: skip
    records = [dict(r) for r in base.records]
    long_text = "ValueError: " + "x" * 300
    changes = [
        (1, "error", long_text + "\nsecond line", None),  # greedy (agent 1) forfeits game 0
        (0, "error", "ValueError: bad move", None),
        (0, "time", "no move within the time limit of 5 s", 5.3125),
        (0, "error", "ValueError: bad move", None),
        (0, "time", "no move within the time limit of 5 s", 6.25),
    ]
    for record, (agent, reason, error, waited) in zip(records, changes, strict=True):
        record.update(reason=reason, forfeit=agent, error=error, forfeit_time=waited)
        record["scores"] = [0.0, 1.0] if agent == 0 else [1.0, 0.0]
    from boardzoo.arena import MatchResult

    result = MatchResult.from_records(records, base.settings)
    assert result.stats[0].forfeits == {"time": 2, "illegal": 0, "error": 2}
    assert forfeit_lines(result.stats, 5.0) == [
        "random forfeited 2 on time, 2 error:",
        "  time x2: no move within the time limit of 5 s "
        "(slowest 6.250 s, limit 5 s; first game 2)",
        "  error x2: ValueError: bad move (first game 1)",
        "greedy forfeited 1 error:",
        f"  error x1: {long_text[:97]}... (game 0)",
    ]
    text = render_match(result)
    assert "Forfeits:\n  random forfeited 2 on time, 2 error:\n    time x2:" in text
    markdown = render_match(result, markdown=True)
    assert "- random forfeited 2 on time, 2 error:\n  - time x2:" in markdown
    assert "Forfeits" in str(match_table(result).caption)
    # no forfeit, no section
    assert "Forfeits" not in render_match(base)

    field = ["random", "test_raise:after=0", "greedy"]
    played = tournament("tictactoe", field, games=2, progress=False, isolate=False,
                        time_limit=FAST)  # fmt: skip
    text = render_tournament(played)
    assert "test_raise:after=0 forfeited 4 error:" in text
    # its first pair is against random (pairs in round-robin order); game indices count per pair
    assert "error x4: RuntimeError: boom after 0 moves (first game 0 vs random)" in text


def test_empty_and_cut_short_record_files(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text("")
    assert read_records(path) == []
    with pytest.raises(RecordError, match=r"x.jsonl holds no games yet$"):
        read_records(path, require_games=True)
    with pytest.raises(RecordError, match=r"x\.jsonl holds no games yet"):
        find_game([], 0, path)

    game = {"game": "tictactoe", "options": {}, "moves": [4, 0, 8]}
    lines_ = [json.dumps({**game, "game_index": i}) for i in (0, 1, 2, 3, 4, 5, 8)]
    path.write_text("\n".join(lines_) + "\n" + lines_[0][:20])  # the last write was cut short
    with pytest.warns(RecordWarning, match=r"x.jsonl, line 8: skipped an incomplete last line"):
        records = read_records(path)
    assert [r["game_index"] for r in records] == [0, 1, 2, 3, 4, 5, 8]
    notes: list[str] = []
    assert read_records(path, notes=notes) == records  # no warning: the note is handed back
    assert len(notes) == 1 and "line 8" in notes[0]
    assert find_game(records, 8, path)["game_index"] == 8  # the recorded index, not the line
    with pytest.raises(RecordError, match=r"game 7 is not in .*x.jsonl: it holds games 0-5, 8$"):
        find_game(records, 7, path)
    with pytest.raises(RecordError, match="not a game index"):
        find_game(records, -1, path)

    # a malformed line before the last is still an error, named by its line
    path.write_text(lines_[0] + "\n" + lines_[1][:20] + "\n" + lines_[2] + "\n")
    with pytest.raises(RecordError, match=r"x.jsonl, line 2: not valid JSON"):
        read_records(path)
    # a file whose only line was cut short holds no game yet
    path.write_text(lines_[0][:20])
    with (
        pytest.warns(RecordWarning),
        pytest.raises(RecordError, match="holds no complete game yet"),
    ):
        read_records(path, require_games=True)

    # bare records without an index are known by their position
    path.write_text(json.dumps(game) + "\n" + json.dumps({**game, "moves": [0]}) + "\n")
    assert find_game(read_records(path), 1)["moves"] == [0]


def test_a_tournament_file_holds_a_game_n_per_pair(tmp_path):
    records = tournament("tictactoe", ["random", "greedy", "alphabeta:depth=2"], games=2,
                         progress=False, isolate=False).records  # fmt: skip
    with pytest.raises(RecordError, match=r"3 games with index 1, one per pair.*choose the pair"):
        find_game(records, 1, "t.jsonl")
    record = find_game(records, 1, "t.jsonl", agents=("greedy", "random"))  # either order
    assert (record["agents"], record["game_index"]) == (["random", "greedy"], 1)
    with pytest.raises(RecordError, match="holds no game between random and chess"):
        find_game(records, 1, "t.jsonl", agents=("random", "chess"))


def test_a_resumed_run_repairs_a_cut_short_file(tmp_path):
    out = tmp_path / "m.jsonl"
    kwargs = {"games": 3, "progress": False, "isolate": False}
    play_match("tictactoe", ("random", "greedy"), out=out, **{**kwargs, "games": 2})
    whole = out.read_bytes()
    out.write_bytes(whole + b'{"format": 2, "game": "tictac')
    with pytest.raises(FileExistsError, match="already holds games"):
        play_match("tictactoe", ("random", "greedy"), out=out, **kwargs)
    with pytest.warns(RecordWarning):  # resuming needs no warning: it repairs the file
        read_records(out)
    result = play_match("tictactoe", ("random", "greedy"), out=out, resume=True, **kwargs)
    assert out.read_bytes().startswith(whole) and result.games == 3
    assert [r["game_index"] for r in _records_of(out)] == [0, 1, 2]
    # a file whose only line was cut short resumes from nothing
    out.write_bytes(whole.splitlines()[0][:30])
    play_match("tictactoe", ("random", "greedy"), out=out, resume=True, **kwargs)
    assert [r["game_index"] for r in _records_of(out)] == [0, 1, 2]


def test_record_file_errors_are_in_words(tmp_path):
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder")
    with pytest.raises(RecordError) as raised:
        play_match("tictactoe", ("random", "greedy"), games=1, out=blocker / "x.jsonl",
                   progress=False, isolate=False)  # fmt: skip
    assert "afile is a file, not a folder" in str(raised.value)
    assert "Errno" not in str(raised.value)
    with pytest.raises(RecordError) as raised:
        read_records(blocker / "x.jsonl")
    assert "Errno" not in str(raised.value)

"""This checkout's engine against another checkout's, head to head: is a new search not weaker?

    python benchmarks/bench_engine_versions.py --old ../old
    python benchmarks/bench_engine_versions.py --old ../old --spec engine:time_limit=1 \
        --games 200 --workers 1 --record runs/engine_versions/xot-1s.jsonl
    python benchmarks/bench_engine_versions.py --old ../old --spec engine:time_limit=0.1 \
        --games 2   # a smoke run

``--old`` is another checkout of the project (a git worktree of an older commit: ``git worktree
add ../old COMMIT``). Its engine plays from a program of its own, ``_version_player.py`` beside
this script, run with the other checkout's folder as working directory and ``PYTHONPATH``: the
agent is built from ``--spec`` by that checkout's registry and searches with that checkout's code
(see that file for the line protocol). In the match it is :class:`VersionAgent`: for each of its
moves it sends the moves of the game so far, and the program replays them and answers its
agent's move; the agent is kept from move to move (the engine keeps its transposition table) and
reset before each game. This checkout's engine is the same ``--spec`` built by this checkout.

The games are a match of the project's arena (:func:`boardzoo.arena.play_match`): each agent in a
process of its own, one engine thinking at a time within a game, ``--workers`` games at once.
They start from ``--openings``: by default the XOT small list of Reversi openings
(``../shared/openings/xot-small.txt`` beside the checkout), else the arena's balanced suite for
the game; games ``2i`` and ``2i + 1`` play opening ``i`` with colours swapped. Each agent keeps its
own clock (the spec's ``time_limit``); the arena only forfeits a move that takes longer than
``--move-timeout`` seconds (a hung program), and a dead program fails its game with a clear error.
Games are seeded from ``--seed`` (this checkout's engine per game, the other one per run); a
clock makes the moves depend on the machine's speed anyway.

Every finished game is appended to ``--record`` (a JSONL file of arena records: opening and its
index, colours, result, moves and their times) as it ends; the same command again plays only the
games missing from it (a record of another match, or of another old checkout or commit, is
refused). By default the file is ``runs/engine_versions/`` + game, old commit, spec and seed.

Prints the arena's table (the old engine is the row ``VersionAgent``), then this checkout's
wins, draws and losses against the old one, its score with a 95% Wilson interval, the game pairs
(points of an opening's two games) with the score's interval by the pairs' spread (the
pentanomial model) and a pentanomial SPRT of the margin (H0: a score of ``0.5 - --margin`` or
less, as Elo; H1: even), and the non-inferiority verdict: "not weaker" when the
interval's lower end is above ``0.5 - --margin``; "weaker" when its upper end is below it; else
undecided (play more games). Then the command, the machine (cores, load average before and after)
and the date. Exit status: 0 not weaker, 1 weaker or undecided, 2 when games were forfeited (the
score then holds games not decided by play: look at the forfeits the table lists).

A game at ``time_limit=1`` takes about half a minute on the 2-core machine (some 30 moves a side
at about half a second each: the engine starts no iteration it cannot finish, and solves the
last moves quicker), so the 200 games of the default run take about 100 minutes with one worker.
A game keeps one core busy (one engine thinks at a time): give ``--workers`` no more than the
idle cores, or the engines' clocks buy less search than on an idle machine.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import select
import shlex
import subprocess
import sys
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from boardzoo.agents.base import Agent, board_state, env_state
from boardzoo.arena import read_records, render_match
from boardzoo.arena.match import play_match
from boardzoo.arena.players import SETUP_TIMEOUT
from boardzoo.arena.ratings import score_interval
from boardzoo.arena.seeds import derive_seed
from boardzoo.arena.sprt import PAIR_OUTCOMES, SPRT, sprt_test
from boardzoo.games.catalog import game_names, make_game
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState

ROOT = Path(__file__).resolve().parents[1]
PLAYER = Path(__file__).resolve().with_name("_version_player.py")
XOT = ROOT.parent / "shared" / "openings" / "xot-small.txt"
RECORDS = ROOT / "runs" / "engine_versions"
MOVE_TIMEOUT = 60.0  # seconds the arena waits for a move before it forfeits the game
READ_SLACK = 10.0  # the agent waits this much longer for its program: the arena's clock is first
_OLD_SEED = 0x6F6C64  # "old": the other checkout's seed, apart from the arena's game seeds


class VersionError(RuntimeError):
    """The other checkout's program failed: it ended, did not answer in time, or said an error."""


# --- the other checkout's program -------------------------------------------------------------


def checkout_commit(checkout: Path) -> str:
    """The commit checked out in ``checkout`` (``+modified`` when tracked files differ from it),
    or ``"unknown"`` outside git."""
    try:
        head = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "HEAD"],
            capture_output=True, text=True, check=True, timeout=30,
        ).stdout.strip()  # fmt: skip
        changed = subprocess.run(
            ["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, check=True, timeout=60,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("+modified" if changed else "")


class _Program:
    """``_version_player.py`` running in another checkout, asked one line at a time."""

    def __init__(
        self, checkout: Path, spec: str, game: Game, seed: int, timeout: float, python: str
    ) -> None:
        self.checkout = checkout
        self.timeout = timeout
        command = [
            python, str(PLAYER), "--spec", spec, "--game", game.name,
            "--options", json.dumps(dict(game.options)), "--seed", str(seed),
        ]  # fmt: skip
        env = dict(os.environ, PYTHONPATH=str(checkout))  # that checkout's package only
        self.process = subprocess.Popen(
            command, cwd=checkout, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            bufsize=0,
        )  # fmt: skip
        self._buffer = b""
        answer = self._read_line(SETUP_TIMEOUT, "to start (build and prepare its agent)")
        word, _, path = answer.partition(" ")
        if word != "ready":
            self.close()
            raise VersionError(f"the program in {checkout} started with {answer!r}, not 'ready'")
        imported = Path(path)
        if not imported.is_relative_to(checkout):
            self.close()
            raise VersionError(
                f"the program meant to run {checkout} imported boardzoo from {imported}: "
                "PYTHONPATH did not take effect"
            )
        self.imported = imported

    def alive(self) -> bool:
        return self.process.poll() is None

    def _ended(self) -> VersionError:
        try:
            code = self.process.wait(5.0)
        except subprocess.TimeoutExpired:
            code = None
        how = "its output closed" if code is None else f"exit code {code}"
        return VersionError(
            f"the engine program of {self.checkout} ended ({how}); its error is on stderr"
        )

    def _read_line(self, timeout: float, doing: str = "to answer") -> str:
        stdout = self.process.stdout
        assert stdout is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.close(kill=True)
                raise VersionError(
                    f"the engine program of {self.checkout} took more than {timeout:g} s "
                    f"{doing}; it was stopped"
                )
            ready, _, _ = select.select([stdout], [], [], left)
            if ready:
                chunk = os.read(stdout.fileno(), 65536)
                if not chunk:
                    raise self._ended()
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace").strip()

    def ask(self, request: str) -> str:
        """Send one line, return the answer line (``error ...`` answers raise)."""
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(request.encode() + b"\n")
        except (BrokenPipeError, OSError):
            raise self._ended() from None
        answer = self._read_line(self.timeout)
        if answer.startswith("error"):
            raise VersionError(f"the engine of {self.checkout} failed: {answer[5:].strip()}")
        return answer

    def close(self, kill: bool = False) -> None:
        """Ask the program to quit (closing its stdin), kill it if it does not (at once with
        ``kill``)."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(0.0 if kill else 5.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


# One program per checkout, spec, game and seed in each process, shared by the copies of a
# VersionAgent that the arena unpacks there for each game: started once, reset between games.
_PROGRAMS: dict[tuple[Any, ...], _Program] = {}


def close_programs() -> None:
    """Stop every program this process started."""
    while _PROGRAMS:
        _PROGRAMS.popitem()[1].close()


# --- the agent ---------------------------------------------------------------------------------


def _occupied(state: BoardState) -> int:
    first, second = state.bitboards()
    return int(first) | int(second)


def moves_between(start: BoardState, target: BoardState) -> list[int] | None:
    """Moves that lead from ``start`` to ``target`` (``None`` if none do).

    Positions hold no history; every catalog game only adds pieces to the board, so the path is
    searched among the moves that fill squares filled in ``target`` (a move that fills none, a
    pass, never twice in a row). Several orders may reach ``target``: any one does, as the
    position (what the engine searches and keys its table by) is the same.
    """
    goal = _occupied(target)

    def search(state: BoardState, quiet: bool) -> list[int] | None:
        if state == target:
            return []
        if state.is_terminal():
            return None
        filled = _occupied(state)
        for action in state.legal_actions():
            child = state.apply(action)
            occupied = _occupied(child)
            if occupied & ~goal:
                continue
            added = occupied != filled
            if not added and quiet:
                continue
            rest = search(child, not added)
            if rest is not None:
                return [action, *rest]
        return None

    return search(start, False)


class VersionAgent(Agent):
    """An agent of another boardzoo checkout, played through ``_version_player.py`` there.

    Args:
        checkout: the other checkout's folder.
        spec: the agent spec, read by that checkout's registry.
        seed: the seed of its agent (one per run: the program keeps its agent between games).
        move_timeout: seconds to wait for a move before failing the game.
        python: the interpreter to run the program with (this one by default).
    """

    name = "version"

    def __init__(
        self,
        checkout: str | os.PathLike[str],
        spec: str,
        seed: int = 0,
        move_timeout: float = MOVE_TIMEOUT + READ_SLACK,
        python: str = sys.executable,
    ) -> None:
        self.checkout = Path(checkout).resolve()
        self.spec = spec.strip()
        self.seed = int(seed)
        self.move_timeout = float(move_timeout)
        self.python = python
        self.commit = checkout_commit(self.checkout)
        self._clear()

    def _clear(self) -> None:
        self._program: _Program | None = None
        self._game: Game | None = None
        self._fresh = True  # a new game: the program's agent is reset before its first move
        self._state: BoardState | None = None  # the position after this agent's last move
        self._moves: list[int] = []  # the moves that led there

    def __getstate__(self) -> dict[str, Any]:
        keep = ("checkout", "spec", "seed", "move_timeout", "python", "commit")
        return {key: self.__dict__[key] for key in keep}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._clear()

    def __repr__(self) -> str:
        return (
            f"VersionAgent(checkout={str(self.checkout)!r}, commit={self.commit!r}, "
            f"spec={self.spec!r}, seed={self.seed})"
        )

    def check_game(self, game: Game) -> None:
        if not (self.checkout / "boardzoo" / "agents" / "registry.py").is_file():
            raise ValueError(f"{self.checkout} is no longer a boardzoo checkout")

    def reset(self) -> None:
        self._fresh = True
        self._state, self._moves = None, []

    def prepare(self, game: Game) -> None:
        """Start the program for ``game`` (or find it started), reset it for a new game."""
        self._connect(game)

    def _connect(self, game: Game) -> _Program:
        key = (self.python, self.checkout, self.spec, game.name, tuple(game.options.items()))
        key += (self.seed,)
        program = _PROGRAMS.get(key)
        if program is not None and not program.alive():
            del _PROGRAMS[key]
            program = None
        if program is None:
            program = _Program(
                self.checkout, self.spec, game, self.seed, self.move_timeout, self.python
            )
            _PROGRAMS[key] = program
        elif self._fresh and program.ask("reset") != "ok":
            raise VersionError(f"the engine program of {self.checkout} did not reset")
        self._fresh = False
        self._program, self._game = program, game
        return program

    def act(self, env: Any) -> int:
        state = board_state(env_state(env), "VersionAgent")
        program = self._program
        if program is None or self._fresh or self._game != state.game:
            program = self._connect(state.game)
        path = None if self._state is None else moves_between(self._state, state)
        if path is None:  # the first move of a game: the opening and any move after it
            path = moves_between(state.game.initial_state(), state)
            self._moves = []
        if path is None:
            raise VersionError("no moves lead from the start to this position")
        moves = self._moves + path
        answer = program.ask(" ".join(str(move) for move in moves))
        try:
            action = int(answer)
        except ValueError:
            raise VersionError(f"the engine program answered {answer!r}, not a move") from None
        if state.is_legal(action):  # (an illegal answer is the arena's to judge)
            self._state, self._moves = state.apply(action), [*moves, action]
        return action


# --- the match and its report ------------------------------------------------------------------


def _checkout(text: str) -> Path:
    path = Path(text).expanduser().resolve()
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is not a folder")
    if not (path / "boardzoo" / "agents" / "registry.py").is_file():
        raise argparse.ArgumentTypeError(
            f"{text} is not a boardzoo checkout (no boardzoo/agents/registry.py in it)"
        )
    return path


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def _margin(text: str) -> float:
    value = float(text)
    if not 0.0 <= value < 0.5:
        raise argparse.ArgumentTypeError(f"must be in [0, 0.5), got {text}")
    return value


def default_record(game: str, commit: str, spec: str, seed: int) -> Path:
    """``runs/engine_versions/reversi-11bac9d-engine-time_limit-1-seed0.jsonl``."""
    slug = re.sub(r"[^A-Za-z0-9_.]+", "-", spec).strip("-")
    return RECORDS / f"{game}-{commit[:7]}-{slug}-seed{seed}.jsonl"


def recorded_games(path: Path, games: int, old: VersionAgent) -> int:
    """Games ``0 .. games - 1`` that ``path`` holds already; exits if they were played against
    another old checkout, commit, spec or seed."""
    if not path.is_file():
        return 0
    done = set()
    for record in read_records(path):
        configs = record.get("agent_configs") or [None, None]
        played = (configs[1] or {}).get("repr")
        if played != repr(old):
            sys.exit(
                f"error: {path} holds games against {played}, not {old!r}: give another --record"
            )
        if record["game_index"] < games:
            done.add(record["game_index"])
    return len(done)


def pair_counts(records: Any) -> Counter[float]:
    """How many complete pairs (an opening's two games) scored 0, 1/2, 1, 3/2, 2 points for this
    checkout's engine."""
    points: dict[int, list[float]] = {}
    for record in records:
        points.setdefault(record["game_index"] // 2, []).append(record["scores"][0])
    return Counter(sum(pair) for pair in points.values() if len(pair) == 2)


def pair_interval(pairs: Counter[float]) -> tuple[float, float, float]:
    """The mean score a game over complete pairs and its 95% interval by the pairs' own spread
    (the pentanomial model: the two games of an opening are not independent)."""
    n = sum(pairs.values())
    if n < 2:
        return 0.5, 0.0, 1.0
    mean = sum(points / 2 * count for points, count in pairs.items()) / n
    variance = sum((points / 2 - mean) ** 2 * count for points, count in pairs.items()) / n
    half = 1.96 * (variance / n) ** 0.5
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def elo_of(score: float) -> float:
    """The logistic Elo difference of a mean score."""
    return -400.0 * math.log10(1.0 / score - 1.0)


def _load() -> str:
    return " ".join(f"{load:.2f}" for load in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--old", type=_checkout, required=True, help="the other checkout (e.g. a git worktree)"
    )
    parser.add_argument(
        "--spec", default="engine:time_limit=1", help="the agent spec of both sides"
    )
    parser.add_argument("--games", type=_positive_int, default=200, help="games in all")
    parser.add_argument(
        "--openings",
        help=f"openings file (default {XOT} if it exists, else the arena's balanced suite)",
    )
    parser.add_argument(
        "--workers", type=_positive_int, default=1, help="games played at once (default 1)"
    )
    parser.add_argument("--seed", type=int, default=0, help="the match seed")
    parser.add_argument(
        "--margin",
        type=_margin,
        default=0.05,
        help="non-inferiority margin: not weaker if the score's lower end > 0.5 - margin",
    )
    parser.add_argument(
        "--record", type=Path, help="JSONL file of the games (resumed if it exists)"
    )
    parser.add_argument(
        "--game", default="reversi", choices=game_names(), help="the game (default reversi)"
    )
    parser.add_argument(
        "--move-timeout",
        type=float,
        default=MOVE_TIMEOUT,
        help=f"seconds before a move forfeits its game (default {MOVE_TIMEOUT:g})",
    )
    args = parser.parse_args(argv)
    game = make_game(args.game)
    if args.openings is not None:
        openings = args.openings
    elif game.name == "reversi" and game.options.get("board_size") == 8 and XOT.is_file():
        openings = str(XOT)
    else:
        openings = "balanced"
    old = VersionAgent(
        args.old, args.spec, seed=derive_seed(args.seed, _OLD_SEED),
        move_timeout=args.move_timeout + READ_SLACK,
    )  # fmt: skip
    record = args.record or default_record(game.name, old.commit, args.spec, args.seed)

    command = shlex.join(["python", *sys.argv]) if argv is None else shlex.join(argv)
    started_at = datetime.now(timezone.utc).astimezone()
    load_before = _load()
    print(f"command: {command}")
    print(f"current: {ROOT} (engine {args.spec})")
    print(f"old:     {old.checkout} at {old.commit} (engine {args.spec})")
    # a clear error now, not a forfeit in every game, if the other checkout cannot play
    program = old._connect(game)
    print(f"         its program imports {program.imported}")
    close_programs()  # the games play in processes of their own, with programs of their own
    before = recorded_games(record, args.games, old)
    print(f"record:  {record} ({before} of {args.games} games there already)", flush=True)

    clock = time.perf_counter()
    result = play_match(
        game.name,
        (args.spec, old),
        options=dict(game.options),
        games=args.games,
        seed=args.seed,
        time_limit=args.move_timeout,
        openings=openings,
        workers=args.workers,
        out=record,
        resume=True,
        isolate=True,
    )
    seconds = time.perf_counter() - clock
    played = result.games - before
    print()
    print(render_match(result))
    print()

    total = result.stats[0].total
    score, low, high = score_interval(total.wins, total.draws, total.losses)
    line = max(0.0, 0.5 - args.margin)
    pairs = pair_counts(result.records)
    forfeits = sum(result.forfeits.values())
    print(
        f"this checkout's engine against {old.commit[:7]}'s: {total.wins} wins, "
        f"{total.draws} draws, {total.losses} losses in {total.games} games"
    )
    print(f"score {score:.3f}, 95% Wilson interval [{low:.3f}, {high:.3f}]")
    print(
        "pairs (an opening's two games) scoring 0, 1/2, 1, 3/2, 2 points: "
        + ", ".join(str(pairs[p]) for p in (0.0, 0.5, 1.0, 1.5, 2.0))
    )
    pair_mean, pair_low, pair_high = pair_interval(pairs)
    print(
        f"by pairs (pentanomial): score {pair_mean:.3f}, 95% interval [{pair_low:.3f}, "
        f"{pair_high:.3f}] over {sum(pairs.values())} pairs"
    )
    if 0.0 < line < 0.5:
        test = SPRT(elo0=round(elo_of(line), 1), elo1=0.0)
        counts = [pairs[p] for p in PAIR_OUTCOMES]
        llr, lower, upper, said = sprt_test(counts, test)
        outcome = {"H1": "not weaker (H1)", "H0": "weaker (H0)", None: "no decision yet"}[said]
        print(
            f"pentanomial SPRT {test} (H0: the margin's score or less): LLR {llr:.2f} in "
            f"[{lower:.2f}, {upper:.2f}]: {outcome}"
        )
    if low > line:
        verdict, status = "NOT WEAKER", 0
    elif high < line:
        verdict, status = "WEAKER", 1
    else:
        verdict, status = "UNDECIDED (play more games)", 1
    print(
        f"non-inferiority, margin {args.margin:g} (not weaker if the lower end > {line:.3f}): "
        f"{verdict}"
    )
    if forfeits:
        status = 2
        print(
            f"warning: {forfeits} game(s) forfeited (see above): the score holds games that "
            "play did not decide"
        )
    rate = f", {seconds / played:.0f} s a game" if played else ""
    print(f"this run: {played} new games in {seconds:.0f} s{rate} ({args.workers} at once)")
    print(
        f"machine: {os.cpu_count()} cores, load average {load_before} before, {_load()} after; "
        f"python {sys.version.split()[0]}; {started_at:%Y-%m-%d %H:%M %Z}"
    )
    return status


if __name__ == "__main__":  # the arena's processes import this script again
    sys.exit(main())

"""Playing strength of MCTS against the baseline agents.

    python benchmarks/bench_strength.py --games 100 --workers 2
    python benchmarks/bench_strength.py --game tictactoe --games 200 \
        --pairing "mcts:simulations=2000 vs alphabeta" --out benchmarks/results/ttt.jsonl
    python benchmarks/bench_strength.py --game connect_four --games 100 \
        --pairing "mcts:time_limit=0.1 vs alphabeta:depth=4" --out benchmarks/results/c4.jsonl
    python benchmarks/bench_strength.py --quick --out /tmp/strength.jsonl   # a smoke run

``--game`` is any catalog game; ``--board-size`` sets the board_size option of games that have
one (Reversi: 4, 6 or 8; default: the game's). Each pairing plays ``--games`` games with colours
alternated (even games: the first agent moves first). Every game has its own seed derived from
``--seed``, the pairing and the game number, so a run is reproducible. Finished games are
appended to the JSONL file at once; running the same command again resumes where it stopped.
At the end a table prints the first agent's wins, draws, losses and score with a 95% Wilson
interval, and is written next to the JSONL file as Markdown.

A record is one game: ``pairing``, ``game`` (its number in the pairing), ``seed``,
``first_is_black`` (whether the pairing's first agent moved first, whatever the game's sides are
called), ``score`` (the first agent's), ``final`` (the last position as text), ``moves``, time
and MCTS simulations per agent, and ``game_name`` and ``options`` (the game played). Records
written before games had options lack the last two: they count as games of the run that reads
them, as they always did.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np

from boardzoo.agents.registry import make_agent
from boardzoo.games.catalog import game_names, get_game, make_game
from boardzoo.games.spec import Game

MCTS_BUDGETS = ("mcts:time_limit=0.1", "mcts:time_limit=1.0")
OPPONENTS = ("random", "greedy", "alphabeta:depth=2", "alphabeta:depth=4", "alphabeta:depth=6")
DEFAULT_PAIRINGS = [f"{mcts} vs {opponent}" for mcts in MCTS_BUDGETS for opponent in OPPONENTS]
DEFAULT_PAIRINGS.append("mcts:time_limit=0.1,rollout=heuristic vs mcts:time_limit=0.1")


def game_seed(base: int, pairing: str, game: int) -> int:
    words = [base, game, *pairing.encode()]
    return int(np.random.SeedSequence(words).generate_state(1)[0])


def play_game(pairing: str, game: int, base_seed: int, name: str, options: dict) -> dict:
    """Play game number ``game`` of ``pairing`` in catalog game ``name`` with ``options``; return
    its record (result for the pairing's first agent)."""
    rules = make_game(name, **options)
    first_spec, second_spec = (part.strip() for part in pairing.split(" vs "))
    seed = game_seed(base_seed, pairing, game)
    first = make_agent(first_spec, seed=seed)
    second = make_agent(second_spec, seed=seed + 1)
    first_moves_first = game % 2 == 0
    players = (first, second) if first_moves_first else (second, first)
    state = rules.initial_state()
    seconds = [0.0, 0.0]
    simulations = [0, 0]  # MCTS simulations, to show the budget a time limit really bought
    moves = 0
    while not state.is_terminal():
        mover = state.current_player
        start = time.perf_counter()
        action = players[mover].act(state)
        seconds[mover] += time.perf_counter() - start
        info = getattr(players[mover], "last_search", None)
        simulations[mover] += getattr(info, "simulations", 0)
        state = state.apply(action)
        moves += 1
    first_index = 0 if first_moves_first else 1
    score = (state.returns()[first_index] + 1) / 2
    return {
        "pairing": pairing,
        "game": game,
        "seed": seed,
        "first_is_black": first_moves_first,  # the name of format 1: "moved first"
        "score": score,
        "final": state.to_text(),
        "moves": moves,
        "first_seconds": seconds[first_index],
        "second_seconds": seconds[1 - first_index],
        "first_simulations": simulations[first_index],
        "second_simulations": simulations[1 - first_index],
        "game_name": rules.name,
        "options": dict(rules.options),
    }


def belongs(record: dict, rules: Game) -> bool:
    """Whether ``record`` was played in ``rules`` (records without ``game_name`` always are)."""
    if "game_name" not in record:
        return True
    return record["game_name"] == rules.name and record.get("options") == dict(rules.options)


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a success rate (a draw counts half)."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - margin), min(1.0, centre + margin)


def table(records: list[dict], pairings: list[str]) -> str:
    by_pairing: dict[str, list[dict]] = defaultdict(list)
    for record in records:
        by_pairing[record["pairing"]].append(record)
    lines = [
        "| first agent | second agent | games | W / D / L | score | 95% interval | "
        "first agent's simulations / move |",
        "|---|---|---|---|---|---|---|",
    ]
    for pairing in pairings:
        games = by_pairing.get(pairing, [])
        wins = sum(r["score"] == 1.0 for r in games)
        draws = sum(r["score"] == 0.5 for r in games)
        losses = len(games) - wins - draws
        score = sum(r["score"] for r in games)
        low, high = wilson(score, len(games))
        first, second = (part.strip() for part in pairing.split(" vs "))
        rate = score / len(games) if games else float("nan")
        moves = sum((r["moves"] + r["first_is_black"]) // 2 for r in games)  # its moves
        simulations = sum(r.get("first_simulations", 0) for r in games)
        per_move = f"{simulations / moves:,.0f}" if simulations and moves else "-"
        lines.append(
            f"| `{first}` | `{second}` | {len(games)} | {wins} / {draws} / {losses} | "
            f"{rate:.1%} | {low:.1%} - {high:.1%} | {per_move} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairing", action="append", help="'SPEC vs SPEC' (repeatable)")
    parser.add_argument("--games", type=int, default=100, help="games per pairing")
    parser.add_argument("--workers", type=int, default=2, help="games played in parallel")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--game", default="reversi", choices=game_names())
    parser.add_argument(
        "--board-size", type=int, default=None, help="board size, for games with that option"
    )
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/strength.jsonl"))
    parser.add_argument("--quick", action="store_true", help="2 games a pairing, fast agents")
    args = parser.parse_args(argv)
    spec = get_game(args.game)
    try:
        if args.board_size is not None:
            spec.option("board_size")
        rules = spec.make(**({} if args.board_size is None else {"board_size": args.board_size}))
    except ValueError as error:
        parser.error(str(error))
    pairings = args.pairing or DEFAULT_PAIRINGS
    if args.quick:
        pairings = args.pairing or [
            "mcts:simulations=200 vs random",
            "mcts:simulations=200 vs greedy",
        ]
        args.games = 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    records = []
    if args.out.exists():
        records = [json.loads(line) for line in args.out.read_text().splitlines() if line.strip()]
    others = [r for r in records if not belongs(r, rules)]
    if others:
        found = f"{others[0]['game_name']} with options {others[0].get('options')}"
        parser.error(f"{args.out} holds games of {found}, not {rules.label}: use another --out")
    done = {(r["pairing"], r["game"]) for r in records}
    todo = [(p, g) for p in pairings for g in range(args.games) if (p, g) not in done]
    print(f"{len(done)} games already in {args.out}; {len(todo)} to play")
    with args.out.open("a") as sink, ProcessPoolExecutor(args.workers) as pool:
        chosen = (rules.name, dict(rules.options))
        futures = [pool.submit(play_game, p, g, args.seed, *chosen) for p, g in todo]
        for finished, future in enumerate(as_completed(futures), 1):
            record = future.result()
            sink.write(json.dumps(record) + "\n")
            sink.flush()
            records.append(record)
            if finished % 10 == 0 or finished == len(todo):
                print(f"  {finished}/{len(todo)} games", flush=True)
    text = table([r for r in records if r["game"] < args.games], pairings)
    print(text)
    args.out.with_suffix(".md").write_text(text + "\n")


if __name__ == "__main__":
    main()

"""Make a suite of balanced openings for the arena (``--openings FILE``, ``--openings balanced``).

    python scripts/make_openings.py --game reversi --board-size 8 --plies 8 --depth 6 \\
        --count 200 --margin 10 --seed 1 --out boardzoo/arena/balanced/reversi-8x8.txt
    python scripts/make_openings.py --game tictactoe --plies 2 --all --margin 0 \\
        --out boardzoo/arena/balanced/tictactoe.txt

Openings of ``--plies`` plies are drawn at random (each ply a uniformly random legal move, from
``--seed``), or with ``--all`` every one of them is taken in turn. An opening is kept when:

- the game is not over after it;
- its position is new: no two openings reach the same position, whatever their move order
  (transpositions are dropped, the first one drawn is kept);
- alpha-beta (boardzoo's ``alphabeta`` agent, with the game's hand-made evaluation) searching
  ``--depth`` plies from it scores it within ``--margin`` of even. Scores are in the
  evaluation's units (Reversi: 8 per move of mobility, 30 per corner, 1 per disc; Connect Four:
  1, 4 and 16 per open window holding 1, 2 or 3 discs, 3 per centre disc). Positions close
  enough to the end are solved exactly (draw 0, a win or loss far outside any margin), so with
  ``--margin 0`` a solved game such as TicTacToe keeps exactly the openings that are draws with
  perfect play.

Drawing stops when ``--count`` openings are kept (or after ``200 * count`` draws). The file gets
a header of comments with the exact command and what was kept, then one opening per line, its
moves' names concatenated (the XOT style: ``f5d6c4d3c2b3b4b5``); it is read back and checked
before the script ends.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from boardzoo.agents.alphabeta import AlphaBetaAgent
from boardzoo.arena.openings import load_openings, opening_text
from boardzoo.games.catalog import game_names, get_game
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState

DRAWS_PER_OPENING = 200  # random draws allowed per opening asked for


def _random_openings(game: Game, plies: int, seed: int) -> Iterator[list[int]]:
    """Random move lists of ``plies`` plies (shorter if the game ends), forever."""
    rng = np.random.default_rng(seed)
    while True:
        state, moves = game.initial_state(), []
        for _ in range(plies):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            action = int(legal[int(rng.integers(len(legal)))])
            moves.append(action)
            state = state.apply(action)
        yield moves


def _all_openings(game: Game, plies: int) -> Iterator[list[int]]:
    """Every move list of ``plies`` plies (or up to the end of the game), depth first."""

    def walk(state: BoardState, moves: list[int]) -> Iterator[list[int]]:
        if len(moves) == plies or state.is_terminal():
            yield list(moves)
            return
        for action in state.legal_actions():
            moves.append(int(action))
            yield from walk(state.apply(int(action)), moves)
            moves.pop()

    yield from walk(game.initial_state(), [])


def _replay(game: Game, moves: list[int]) -> BoardState:
    state = game.initial_state()
    for action in moves:
        state = state.apply(action)
    return state


def make_openings(args: argparse.Namespace) -> tuple[list[str], dict[str, int]]:
    """The openings kept, as texts, and counts of what was drawn and why it was dropped."""
    spec = get_game(args.game)
    options = {} if args.board_size is None else {"board_size": args.board_size}
    game = spec.make(**options)
    searcher = AlphaBetaAgent(depth=args.depth, seed=args.seed)
    searcher.prepare(game)
    source = _all_openings(game, args.plies) if args.all else _random_openings(
        game, args.plies, args.seed
    )  # fmt: skip
    limit = None if args.all else DRAWS_PER_OPENING * args.count
    counts = {"drawn": 0, "ended": 0, "repeated": 0, "searched": 0, "uneven": 0}
    seen: set[tuple[int, int, int]] = set()
    kept: list[str] = []
    for moves in source:
        if len(kept) >= args.count or (limit is not None and counts["drawn"] >= limit):
            break
        counts["drawn"] += 1
        state = _replay(game, moves)
        if len(moves) < args.plies or state.is_terminal():
            counts["ended"] += 1
            continue
        key = (*state.bitboards(), state.current_player)
        if key in seen:
            counts["repeated"] += 1
            continue
        seen.add(key)
        counts["searched"] += 1
        if abs(searcher.search(state).score) > args.margin:
            counts["uneven"] += 1
            continue
        kept.append(opening_text(game, moves))
    return kept, counts


def _header(args: argparse.Namespace, kept: int, counts: dict[str, int], label: str) -> list[str]:
    command = shlex.join(["python", "scripts/make_openings.py", *sys.argv[1:]])
    how = "all" if args.all else f"random (seed {args.seed})"
    return [
        f"# Balanced openings for {label}: boardzoo's arena reads them with --openings "
        "(one per line, the moves' names concatenated).",
        f"# Made by: {command}",
        f"# Kept: {how} {args.plies}-ply openings that leave the game going, reach a position no "
        f"other kept opening reaches, and that alpha-beta at depth {args.depth} (the hand-made "
        f"evaluation; positions near the end solved exactly) scores within {args.margin:g} of "
        "even.",
        f"# {kept} kept of {counts['drawn']} drawn: {counts['ended']} ended the game, "
        f"{counts['repeated']} repeated a position, {counts['uneven']} of the "
        f"{counts['searched']} searched were uneven.",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Make a suite of balanced openings (see the module docstring)."
    )
    parser.add_argument("--game", required=True, choices=game_names(), help="the game")
    parser.add_argument("--board-size", type=int, help="the board_size option (Reversi)")
    parser.add_argument("--plies", type=int, default=8, help="plies per opening (default 8)")
    parser.add_argument("--depth", type=int, default=6, help="alpha-beta depth (default 6)")
    parser.add_argument("--count", type=int, default=100, help="openings to keep (default 100)")
    parser.add_argument(
        "--margin", type=float, default=10, help="largest |score| kept, evaluation units (10)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random openings (0)")
    parser.add_argument("--all", action="store_true", help="every opening instead of random")
    parser.add_argument("--out", required=True, type=Path, help="the file to write")
    args = parser.parse_args(argv)
    for name in ("plies", "depth", "count"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be 1 or more, got {getattr(args, name)}")
    if args.margin < 0:
        parser.error(f"--margin must be 0 or more, got {args.margin}")
    try:
        spec = get_game(args.game)
        game = spec.make(**({} if args.board_size is None else {"board_size": args.board_size}))
    except ValueError as error:
        parser.error(str(error))
    start = time.perf_counter()
    kept, counts = make_openings(args)
    if not kept:
        parser.error(f"no opening was kept ({counts}): try a larger --margin or fewer --plies")
    lines = [*_header(args, len(kept), counts, game.label), *kept]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    suite = load_openings(args.out, game)  # read back: every opening legal, none missing
    assert len(suite) == len(kept), (len(suite), len(kept))
    print(
        f"wrote {args.out}: {len(kept)} openings of {game.label} in "
        f"{time.perf_counter() - start:.1f} s ({counts})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``boardzoo solve``: a position's exact score with perfect play, and its best moves."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from boardzoo.cli.common import add_command, add_game, add_game_options, game_options
from boardzoo.cli.errors import UserError
from boardzoo.games.catalog import make_game
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.gametree.solve import SolveResult, solve
from boardzoo.interop.openspiel_states import openspiel_text_position

if TYPE_CHECKING:
    from boardzoo.cli.common import Commands


def add_parser(commands: Commands) -> argparse.ArgumentParser:
    parser = add_command(commands, "solve", "a position's exact score and best moves")
    add_game(parser)
    add_game_options(parser)
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--position",
        metavar="TEXT",
        help="the position in the game's notation (Reversi: the 64 squares a1..h8 of X, O and - "
        "and the side to move, as in the FFO files; Connect Four: the columns played, 1-7, as "
        "in 4455)",
    )
    where.add_argument(
        "--moves",
        nargs="+",
        metavar="MOVE",
        help="the moves from the start, by name (f5 d6 c3, or f5d6c3) or number",
    )
    where.add_argument(
        "--openspiel",
        metavar="TEXT",
        help="the position as OpenSpiel writes its state (tictactoe, connect_four, reversi 8x8 "
        "are its tic_tac_toe, connect_four, othello): the board as str(state) prints it, or "
        "the actions from the start as state.history_str() does (3, 3, 4)",
    )
    parser.add_argument("--wld", action="store_true", help="win, draw or loss only (faster)")
    parser.add_argument("--all", action="store_true", help="the exact score of every move")
    parser.add_argument(
        "--max-empties",
        type=int,
        metavar="N",
        help="solve positions with up to N empty squares (default: the solver's own limit, "
        "Reversi's 30, Connect Four's 38 beyond its opening book: beyond, a solve may take "
        "hours)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        metavar="SECONDS",
        help="give up after SECONDS (default: no clock, the solve runs to its end)",
    )
    return parser


def _split(texts: list[str], game: Game) -> list[str]:
    """Move names given together (``f5d6c3``) apart, by the length of the game's names."""
    width = len(game.action_names[0])
    names = set(game.action_names)
    moves: list[str] = []
    for text in texts:
        if text.lower() in names or text.isdigit() or len(text) % width:
            moves.append(text)
        else:
            moves += [text[i : i + width] for i in range(0, len(text), width)]
    return moves


def position(args: argparse.Namespace, game: Game) -> BoardState:
    """The position the command line names (the start when it names none)."""
    if args.openspiel is not None:
        if game.options != game.spec.make().options:
            raise UserError(f"--openspiel: OpenSpiel's games are {game.name} at its defaults")
        try:
            return openspiel_text_position(game.name, args.openspiel)
        except ValueError as error:
            raise UserError(f"--openspiel: {error}") from None
    if args.position is not None:
        if game.spec.parse_position is None:
            raise UserError(f"--position: {game.name} has no position notation; give --moves")
        return game.spec.parse_position(game, args.position)
    state = game.initial_state()
    for number, text in enumerate(_split(args.moves or [], game), start=1):
        try:
            state = state.apply(game.parse_action(text))
        except ValueError as error:
            raise UserError(f"--moves: move {number} ({text}): {error}") from None
    return state


def report(game: Game, state: BoardState, result: SolveResult) -> str:
    """What ``solve`` prints."""
    side = game.spec.sides[state.current_player]
    lines = [state.to_text(), f"{game.label}, {side} to move"]
    if not result.complete:
        lines.append(f"not solved: gave up after {result.nodes:,} nodes in {result.seconds:.2f} s")
        return "\n".join(lines)
    if not result.best_moves:
        lines.append(f"the game is over: {result.score:+d} for {side}")
        return "\n".join(lines)
    kind = "score" if result.exact else "result (win > 0, draw 0, loss < 0)"
    lines.append(f"{kind} {result.score:+d} for {side} with perfect play")
    lines.append("best " + ", ".join(game.action_name(a) for a in result.best_moves))
    if result.move_scores:
        ranked = sorted(result.move_scores.items(), key=lambda item: -item[1])
        lines.append("moves " + "; ".join(f"{game.action_name(a)}:{v:+d}" for a, v in ranked))
    lines.append(
        f"{result.nodes:,} nodes in {result.seconds:.2f} s "
        f"({result.nodes_per_second / 1e6:.1f} M nodes/s)"
    )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    game = make_game(args.game, **game_options(args))
    state = position(args, game)
    if args.wld and args.all:
        raise UserError("--wld and --all: --all scores every move exactly; give one")
    result = solve(
        state,
        exact=not args.wld,
        all_moves=args.all,
        max_empties=args.max_empties,
        time_limit=args.time_limit,
    )
    print(report(game, state, result))
    return 0 if result.complete else 1

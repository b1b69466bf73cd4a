"""OpenSpiel's ``tic_tac_toe``, ``connect_four`` and ``othello`` states as boardzoo positions,
and back.

The three are boardzoo's ``tictactoe``, ``connect_four`` and ``reversi`` (8x8) move for move,
with the same action numbers (a square ``row * size + column``, a Connect Four column, Othello's
pass ``64``) and the same first player. A state is read by replaying its history
(``state.history()``) from boardzoo's initial position (:func:`openspiel_position`), and checked:
the player to move and the legal actions must be the state's. The way back
(:func:`moves_to`) finds the moves that lead from a position to a later one, for OpenSpiel's
bots, which take a state built by moves: every move puts a disc or mark on a square the later
position holds, so a depth-first search finds them (Othello's far from the start can be ordered
in too many ways: there it gives up after :data:`MOVES_TO_POSITIONS` positions).

OpenSpiel is never imported here: a state is recognised by its class (a ``pyspiel.State``) and its
game's short name.
"""

from __future__ import annotations

from typing import Any

from boardzoo.errors import InvalidValueError
from boardzoo.games.catalog import make_game
from boardzoo.games.connect_four import ConnectFourState
from boardzoo.games.state import BoardState
from boardzoo.games.tictactoe import TicTacToeState

__all__ = [
    "OPENSPIEL_GAMES",
    "OPENSPIEL_NAMES",
    "catalog_game_name",
    "is_openspiel_state",
    "moves_to",
    "openspiel_position",
    "openspiel_text_position",
]

# OpenSpiel's short name -> boardzoo's catalog name (each at its default options).
OPENSPIEL_GAMES = {"tic_tac_toe": "tictactoe", "connect_four": "connect_four", "othello": "reversi"}
# boardzoo's catalog name -> OpenSpiel's short name.
OPENSPIEL_NAMES = {ours: theirs for theirs, ours in OPENSPIEL_GAMES.items()}
# The options of OpenSpiel's games that boardzoo's play (the defaults).
_DEFAULTS: dict[str, dict[str, Any]] = {
    "connect_four": {"columns": 7, "rows": 6, "x_in_row": 4},
}
_IGNORED = {"egocentric_obs_tensor"}  # observation options: the game is the same

# Games whose pieces change colour once placed (the others' keep it, which prunes far more).
_FLIPPING = {"reversi"}
# Positions :func:`moves_to` looks at before it gives up (about a second): Othello's positions
# 14 moves from the start take a few thousand; 18 and more often more than this.
MOVES_TO_POSITIONS = 20_000


def is_openspiel_state(thing: Any) -> bool:
    """Whether ``thing`` is an OpenSpiel state (of any game)."""
    return any(
        cls.__module__ == "pyspiel" and cls.__name__ == "State" for cls in type(thing).__mro__
    )


def catalog_game_name(game: Any) -> str:
    """boardzoo's name of the OpenSpiel game ``game`` (a ``pyspiel.Game``).

    Raises:
        ValueError: a game or options boardzoo does not play, naming what it plays.
    """
    short = game.get_type().short_name
    if short not in OPENSPIEL_GAMES:
        raise InvalidValueError(
            f"OpenSpiel's {short!r} is not one of boardzoo's games: it plays "
            f"{', '.join(OPENSPIEL_GAMES)}"
        )
    options = {k: v for k, v in game.get_parameters().items() if k not in _IGNORED}
    expected = {k: v for k, v in _DEFAULTS.get(short, {}).items() if k in options}
    if options != expected:
        raise InvalidValueError(
            f"OpenSpiel's {short} with {options} is not boardzoo's: it plays "
            f"{short}({expected or ''}) only"
        )
    return OPENSPIEL_GAMES[short]


def openspiel_position(state: Any) -> BoardState:
    """The boardzoo position of an OpenSpiel ``tic_tac_toe``, ``connect_four`` or ``othello``
    state (left as it is).

    Raises:
        ValueError: another game or options, or a state whose player to move or legal actions
            are not the replayed position's (one line saying which).
    """
    name = catalog_game_name(state.get_game())
    position: BoardState = make_game(name).initial_state()
    for action in state.history():
        position = position.apply(int(action))
    if state.is_terminal() != position.is_terminal():
        raise InvalidValueError(f"OpenSpiel's {name} state and its replay disagree on the end")
    if not state.is_terminal():
        if state.current_player() != position.current_player:
            raise InvalidValueError(
                f"OpenSpiel's state has player {state.current_player()} to move, its replay "
                f"player {position.current_player}"
            )
        if list(state.legal_actions()) != position.legal_actions():
            raise InvalidValueError(
                f"OpenSpiel's legal actions {list(state.legal_actions())} are not the replay's "
                f"{position.legal_actions()}"
            )
    return position


def openspiel_text_position(name: str, text: str) -> BoardState:
    """A position of boardzoo's game ``name`` (``tictactoe``, ``connect_four`` or ``reversi``)
    written as OpenSpiel writes its state: the board as ``str(state)`` prints it (rows of
    ``x``, ``o`` and ``.``, top first; Othello's drawing with its ``Black (x) to play:`` line),
    or the actions from the start (``state.history_str()``: ``"3, 3, 4"``; spaces will do).

    Raises:
        ValueError: another game, or a text that is neither, or not a position of the game.
    """
    if name not in OPENSPIEL_NAMES:
        raise InvalidValueError(
            f"OpenSpiel's games that boardzoo plays are {', '.join(OPENSPIEL_GAMES)} "
            f"(boardzoo's {', '.join(OPENSPIEL_NAMES)}), not {name!r}"
        )
    game = make_game(name)
    words = text.replace(",", " ").split()
    if all(word.isdigit() for word in words):
        position: BoardState = game.initial_state()
        for number, word in enumerate(words, start=1):
            try:
                position = position.apply(int(word))
            except ValueError as error:
                raise InvalidValueError(f"action {number} ({word}): {error}") from None
        return position
    if name == "reversi":
        return _othello_drawing(game, text)
    size = {"tictactoe": 3, "connect_four": 7}[name]
    rows = [row.strip() for row in text.strip().splitlines() if row.strip()]
    if any(len(row) != size or set(row) - set("xo.") for row in rows):
        raise InvalidValueError(
            f"OpenSpiel's {OPENSPIEL_NAMES[name]} board is rows of {size} cells, each x, o or "
            f"., got {text!r}"
        )
    reader = TicTacToeState if name == "tictactoe" else ConnectFourState
    return reader.from_text("\n".join(rows).upper())


def _othello_drawing(game: Any, text: str) -> BoardState:
    """OpenSpiel's drawing of an Othello board (``str(state)``) as boardzoo's position."""
    lines = text.strip().splitlines()
    first = lines[0].strip() if lines else ""
    side = {"Black (x) to play:": "X", "White (o) to play:": "O"}.get(first)
    rows = [line.split()[1:9] for line in lines if line.split() and line.split()[0].isdigit()]
    if side is None or len(rows) != 8 or any(len(row) != 8 for row in rows):
        raise InvalidValueError(
            "OpenSpiel's othello board is its drawing: a 'Black (x) to play:' or 'White (o) to "
            "play:' line, then rows 1-8 of x, o and -"
        )
    squares = "".join("".join(row) for row in rows).upper()
    if set(squares) - set("XO-"):
        raise InvalidValueError(f"OpenSpiel's othello squares are x, o and -, got {squares!r}")
    return game.spec.parse_position(game, f"{squares} {side}")  # type: ignore[no-any-return]


def _occupied(state: BoardState) -> int:
    first, second = state.bitboards()
    return int(first) | int(second)


def moves_to(
    target: BoardState, start: BoardState | None = None, max_positions: int = MOVES_TO_POSITIONS
) -> list[int] | None:
    """Moves that lead from ``start`` (the initial position by default) to ``target``, or
    ``None`` when none does.

    A depth-first search over the moves that land on squares ``target`` holds in the mover's
    colour (a piece, once placed, stays; Othello's may change colour, so there any square it
    holds; its moves are tried those that leave the most squares of ``target``'s colours
    first), each position it has left behind remembered so that another order of the same
    moves is not searched again.

    Raises:
        ValueError: no answer after ``max_positions`` positions (far from ``start``, Othello's
            moves can be ordered in too many ways): give a later ``start``.
    """
    state = start if start is not None else target.game.initial_state()
    search = _MoveSearch(target, max_positions)
    if not search.reachable(state):
        return None
    return search.moves(state, search.goal.bit_count() - _occupied(state).bit_count())


class _MoveSearch:
    """The search of :func:`moves_to` towards one ``target``."""

    def __init__(self, target: BoardState, max_positions: int) -> None:
        self.target = target
        self.flips = target.game.name in _FLIPPING
        self.goal = _occupied(target)
        self.colours = tuple(int(b) for b in target.bitboards())
        self.dead: set[tuple[int, ...]] = set()
        self.left = max_positions

    def reachable(self, state: BoardState) -> bool:
        """Whether ``state``'s pieces are all on squares ``target`` holds (of their colour,
        where pieces keep it)."""
        if self.flips:
            return not _occupied(state) & ~self.goal
        return all(
            not int(mine) & ~theirs
            for mine, theirs in zip(state.bitboards(), self.colours, strict=True)
        )

    def _agreement(self, state: BoardState) -> int:
        """How many squares hold ``target``'s colour."""
        return sum(
            (int(mine) & theirs).bit_count()
            for mine, theirs in zip(state.bitboards(), self.colours, strict=True)
        )

    def moves(self, state: BoardState, placements: int) -> list[int] | None:
        """Moves from ``state`` that put ``placements`` more pieces on the board (and Othello's
        passes, which put none) and reach ``target``."""
        same_board = placements == 0 and state.bitboards() == self.target.bitboards()
        if same_board and (
            state.is_terminal() or state.current_player == self.target.current_player
        ):
            return []
        key = (*(int(b) for b in state.bitboards()), state.current_player)
        if key in self.dead:
            return None
        self.left -= 1
        if self.left < 0:
            raise InvalidValueError(
                "no moves found that reach the position within the positions allowed: "
                "give a start closer to it"
            )
        before = _occupied(state).bit_count()
        children = []
        for action in state.legal_actions():
            child: BoardState = state.apply(action)
            added = _occupied(child).bit_count() - before
            if added <= placements and self.reachable(child):
                children.append((action, child, added))
        if self.flips:
            children.sort(key=lambda item: -self._agreement(item[1]))
        for action, child, added in children:
            rest = self.moves(child, placements - added)
            if rest is not None:
                return [action, *rest]
        self.dead.add(key)
        return None

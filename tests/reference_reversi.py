"""A deliberately simple reference implementation of the Reversi rules, for the tests only.

Written straight from the rules, independently of ``boardzoo``: the board is a list of lists of
``"X"`` (black), ``"O"`` (white) and ``"."`` (empty), row 0 on top. A move is legal when, walking
square by square in at least one of the eight directions, the squares next to it hold one or more
opponent discs followed by one of the mover's own discs; every such run is flipped. A player with
no legal move passes; the game is over when neither player can move. It is slow and obvious on
purpose: nothing here may be imported from the library under test.

Actions follow the documented numbering: ``row * size + col`` places a disc and ``size * size`` is
the pass.
"""

from __future__ import annotations

EMPTY, BLACK_DISC, WHITE_DISC = ".", "X", "O"
DISCS = (BLACK_DISC, WHITE_DISC)  # indexed by player: 0 is black, 1 is white
DIRECTIONS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0))

Board = list[list[str]]


def start_board(size: int) -> Board:
    """The standard start: white on the two centre squares of the main diagonal."""
    board = [[EMPTY] * size for _ in range(size)]
    low, high = size // 2 - 1, size // 2
    board[low][low] = board[high][high] = WHITE_DISC
    board[low][high] = board[high][low] = BLACK_DISC
    return board


def parse_board(text: str) -> Board:
    """Read rows of ``X``, ``O`` and ``.`` (spaces ignored), top row first."""
    rows = [line.replace(" ", "") for line in text.strip().splitlines() if line.strip()]
    board = [list(row.upper()) for row in rows]
    assert all(len(row) == len(board) for row in board), "board must be square"
    assert all(cell in (EMPTY, *DISCS) for row in board for cell in row), "bad square"
    return board


def board_text(board: Board) -> str:
    return "\n".join("".join(row) for row in board)


def on_board(board: Board, row: int, col: int) -> bool:
    return 0 <= row < len(board) and 0 <= col < len(board)


def captured(board: Board, player: int, row: int, col: int) -> list[tuple[int, int]]:
    """The opponent discs that ``player`` would flip by placing on ``row``, ``col``."""
    if board[row][col] != EMPTY:
        return []
    mine, theirs = DISCS[player], DISCS[1 - player]
    result = []
    for dr, dc in DIRECTIONS:
        run = []
        r, c = row + dr, col + dc
        while on_board(board, r, c) and board[r][c] == theirs:
            run.append((r, c))
            r, c = r + dr, c + dc
        if run and on_board(board, r, c) and board[r][c] == mine:
            result.extend(run)
    return result


def placements(board: Board, player: int) -> list[tuple[int, int]]:
    """Squares where ``player`` may place, in row-major order."""
    size = len(board)
    return [(r, c) for r in range(size) for c in range(size) if captured(board, player, r, c)]


def place(board: Board, player: int, row: int, col: int) -> Board:
    """A new board with ``player``'s disc on ``row``, ``col`` and the captured discs flipped."""
    flipped = captured(board, player, row, col)
    if not flipped:
        raise ValueError(f"illegal placement {(row, col)} for player {player}")
    new = [list(line) for line in board]
    new[row][col] = DISCS[player]
    for r, c in flipped:
        new[r][c] = DISCS[player]
    return new


class RefGame:
    """A position: the board and the player to move. Mutable and slow, but obviously right."""

    def __init__(self, board: Board, player: int = 0) -> None:
        self.board = [list(row) for row in board]
        self.player = player

    @classmethod
    def start(cls, size: int) -> RefGame:
        return cls(start_board(size), 0)

    @classmethod
    def from_text(cls, text: str, player: int = 0) -> RefGame:
        return cls(parse_board(text), player)

    @property
    def size(self) -> int:
        return len(self.board)

    @property
    def pass_action(self) -> int:
        return self.size * self.size

    def is_over(self) -> bool:
        return not placements(self.board, 0) and not placements(self.board, 1)

    def legal_actions(self) -> list[int]:
        if self.is_over():
            return []
        moves = placements(self.board, self.player)
        if not moves:
            return [self.pass_action]
        return [r * self.size + c for r, c in moves]

    def play(self, action: int) -> RefGame:
        """The next position (a new object); ``action`` must be legal."""
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action}")
        if action == self.pass_action:
            return RefGame(self.board, 1 - self.player)
        row, col = divmod(action, self.size)
        return RefGame(place(self.board, self.player, row, col), 1 - self.player)

    def counts(self) -> tuple[int, int]:
        cells = [cell for row in self.board for cell in row]
        return cells.count(BLACK_DISC), cells.count(WHITE_DISC)

    def winner(self) -> int | None:
        """0 or 1 for a finished game with a winner; ``None`` for a draw or a game in play."""
        if not self.is_over():
            return None
        black, white = self.counts()
        if black == white:
            return None
        return 0 if black > white else 1

    def returns(self) -> tuple[float, float]:
        winner = self.winner()
        if winner is None:
            return 0.0, 0.0
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


def perft(game: RefGame, depth: int) -> int:
    """Leaves of the game tree ``depth`` plies deep; a pass is a ply, a finished game one leaf."""
    if depth == 0:
        return 1
    actions = game.legal_actions()
    if not actions:
        return 1
    if depth == 1:
        return len(actions)
    return sum(perft(game.play(a), depth - 1) for a in actions)

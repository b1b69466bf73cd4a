"""A deliberately simple Connect Four for the tests: a list of lists, no bitboards.

Nothing here is shared with the package. ``board[row][col]`` is ``None`` (empty), 0 (the first
player) or 1, with row 0 the TOP row, as the envs draw it. Written from the rules: a disc falls
to the lowest empty cell of its column; four in a row in any direction wins; a full board without
one is a draw.
"""

from __future__ import annotations

ROWS, COLS = 6, 7
Board = list[list[int | None]]


def new_board() -> Board:
    return [[None] * COLS for _ in range(ROWS)]


def copy_board(board: Board) -> Board:
    return [row[:] for row in board]


def legal_columns(board: Board) -> list[int]:
    """Columns whose top cell is empty (ignores whether the game is over)."""
    return [col for col in range(COLS) if board[0][col] is None]


def landing_row(board: Board, col: int) -> int:
    """The lowest empty row of ``col``; the column must not be full."""
    for row in range(ROWS - 1, -1, -1):
        if board[row][col] is None:
            return row
    raise ValueError(f"column {col} is full")


def drop(board: Board, col: int, player: int) -> Board:
    """A new board with ``player``'s disc dropped into ``col``."""
    result = copy_board(board)
    result[landing_row(board, col)][col] = player
    return result


def lines() -> list[list[tuple[int, int]]]:
    """Every run of four cells on the board, as (row, col) lists."""
    found = []
    for row in range(ROWS):
        for col in range(COLS):
            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(row + i * d_row, col + i * d_col) for i in range(4)]
                if all(0 <= r < ROWS and 0 <= c < COLS for r, c in cells):
                    found.append(cells)
    return found


LINES = lines()


def has_four(board: Board, player: int) -> bool:
    return any(all(board[r][c] == player for r, c in line) for line in LINES)


def four_through(board: Board, row: int, col: int) -> bool:
    """Whether the disc on (row, col) is part of four in a row of its owner."""
    player = board[row][col]
    for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            r, c = row + sign * d_row, col + sign * d_col
            while 0 <= r < ROWS and 0 <= c < COLS and board[r][c] == player:
                count += 1
                r, c = r + sign * d_row, c + sign * d_col
        if count >= 4:
            return True
    return False


def is_full(board: Board) -> bool:
    return all(cell is not None for cell in board[0])


def winner(board: Board) -> int | None:
    for player in (0, 1):
        if has_four(board, player):
            return player
    return None


def is_over(board: Board) -> bool:
    return winner(board) is not None or is_full(board)


def disc_counts(board: Board) -> tuple[int, int]:
    cells = [cell for row in board for cell in row]
    return cells.count(0), cells.count(1)


def to_move(board: Board) -> int:
    first, second = disc_counts(board)
    return 0 if first == second else 1


def perft(depth: int) -> int:
    """Move sequences of ``depth`` plies from the empty board; a finished game is one leaf.

    Plays on one board in place (drop, count, take back), checking only the lines through the
    disc just dropped: slow but simple.
    """
    board = new_board()

    def count(depth: int, player: int) -> int:
        if depth == 0:
            return 1
        total = 0
        for col in range(COLS):
            if board[0][col] is not None:
                continue
            row = landing_row(board, col)
            board[row][col] = player
            if four_through(board, row, col) or is_full(board) or depth == 1:
                total += 1
            else:
                total += count(depth - 1, 1 - player)
            board[row][col] = None
        return total

    return count(depth, 0)


def planes(board: Board, player: int) -> list[list[list[int]]]:
    """``[row][col][plane]``: plane 0 ``player``'s discs, plane 1 the other's."""
    return [[[int(cell == player), int(cell == 1 - player)] for cell in row] for row in board]

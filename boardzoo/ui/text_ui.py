"""Play against the AI in a terminal.

    run_text_ui("reversi", ("human", "mcts:time_limit=1"))

The board is printed with coordinates (:func:`~boardzoo.envs.rendering.ansi_board`). Type a
square such as ``d3`` or ``pass`` in Reversi, a number 0-8 or a square such as ``b2`` in
TicTacToe, or a command: ``help``, ``moves``, ``undo``, ``board``, ``quit``. Reading and writing
go through ``input_fn`` and ``output``, so scripts and tests can play too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from boardzoo.envs.rendering import ansi_board
from boardzoo.games import GameState
from boardzoo.ui.players import (
    GameSession,
    PlayerSpec,
    describe_search,
    move_name,
    parse_move,
    result_text,
)

__all__ = ["TextGame", "run_text_ui"]

_QUIT = ("quit", "exit", "q")
_HELP = ("help", "h", "?")


class TextGame:
    """A game between humans and agents in a terminal (see :func:`run_text_ui`)."""

    def __init__(
        self,
        session: GameSession,
        input_fn: Callable[[str], str] = input,
        output: Callable[[str], object] = print,
    ) -> None:
        self.session = session
        self.input_fn = input_fn
        self.output = output

    # --- the loop -------------------------------------------------------------------------------

    def run(self) -> GameState:
        """Play until the game ends or a human quits; returns the last position."""
        session = self.session
        if session.game == "reversi":  # the board shows Black's discs as X, White's as O
            players = ", ".join(
                f"{session.names[p]} = {'XO'[p]} ({session.labels[p]})" for p in (0, 1)
            )
        else:
            players = ", ".join(session.describe_player(p) for p in (0, 1))
        self.output(f"{self._title()}: {players}. Type 'help' for the commands.")
        self.show_board()
        while not session.is_over():
            agent = session.agent_to_move()
            if agent is not None:
                self._agent_move(agent)
                continue
            try:
                line = self.input_fn(f"{session.side()} to move> ")
            except (EOFError, KeyboardInterrupt):
                line = "quit"
            if not self.handle(line):
                self.output("Game abandoned.")
                return session.state
        self.output(f"Game over: {result_text(session.state, session.names)}.")
        return session.state

    def handle(self, line: str) -> bool:
        """Act on one line typed by the human to move; ``False`` when they quit."""
        session = self.session
        command = line.strip().lower()
        if command in _QUIT:
            return False
        if command in _HELP:
            self.output(self._help())
        elif command == "":
            self.output("Type a move, or 'help' for the commands.")
        elif command in ("moves", "legal"):
            self.output(f"Legal moves: {self._legal_list()}.")
        elif command in ("board", "show"):
            self.show_board()
        elif command == "undo":
            if session.undo():
                self.output(f"Taken back: {session.side()} to move again.")
                self.show_board()
            else:
                self.output("Nothing to undo.")
        else:
            self._human_move(line)
        return True

    def _human_move(self, line: str) -> None:
        session = self.session
        state = session.state
        try:
            action = parse_move(state, line)
        except ValueError as error:
            message = str(error)
            self.output(f"{message[:1].upper()}{message[1:]}. Type 'help' for the commands.")
            return
        if not state.is_legal(action):
            self.output(f"{self._why_illegal(state, action)} Legal moves: {self._legal_list()}.")
            return
        session.play(action)
        self.output(f"{session.side(state.current_player)} plays {move_name(state, action)}.")
        self.show_board()

    def _agent_move(self, agent: object) -> None:
        session = self.session
        state, player = session.state, session.mover
        self.output(f"{session.describe_player(player)} is thinking...")
        action = int(agent.act(state))  # type: ignore[attr-defined]
        session.play(action)
        summary = describe_search(agent)  # type: ignore[arg-type]
        detail = f": {summary}" if summary else ""
        self.output(f"{session.describe_player(player)} plays {move_name(state, action)}{detail}.")
        self.show_board()

    # --- text -----------------------------------------------------------------------------------

    def show_board(self) -> None:
        """Print the current position with coordinates."""
        self.output(ansi_board(self.session.state, self.session.last_action))

    def _title(self) -> str:
        session = self.session
        if session.game == "reversi":
            size = session.state.size
            return f"Reversi {size}x{size}"
        return "TicTacToe"

    def _legal_list(self) -> str:
        state = self.session.state
        return ", ".join(move_name(state, a) for a in state.legal_actions())

    def _why_illegal(self, state: GameState, action: int) -> str:
        name = move_name(state, action)
        pass_action = getattr(state, "pass_action", None)
        if action == pass_action:
            return "You cannot pass while you have a legal move."
        row, col = divmod(action, state.size)  # type: ignore[attr-defined]
        if state.square_owner(row, col) is not None:  # type: ignore[attr-defined]
            return f"Illegal move: {name} is taken."
        if pass_action is not None and state.legal_actions() == [pass_action]:
            return f"Illegal move: {name}; you have no legal move and must pass."
        return f"Illegal move: {name} flips no disc."

    def _help(self) -> str:
        if self.session.game == "reversi":
            size = self.session.state.size
            last = f"{'abcdefgh'[size - 1]}{size}"
            moves = (
                f"Type a square a1..{last} (file letter, then rank number; such as d3) to place "
                "a disc, or 'pass' when you have no legal move (* marks the legal squares)."
            )
        else:
            moves = "Type a square number 0-8 (shown beside the board) or a square a1..c3."
        return "\n".join(
            [
                moves,
                "Commands: moves (list the legal moves), undo (take back to your previous turn),",
                "          board (show the board again), help, quit.",
            ]
        )


def run_text_ui(
    game: str,
    players: Sequence[PlayerSpec],
    board_size: int = 8,
    seed: int | None = None,
    input_fn: Callable[[str], str] = input,
    output: Callable[[str], object] = print,
) -> GameState:
    """Play ``game`` in the terminal; returns the last position (the end, or where you quit).

    Args:
        game: ``"reversi"`` or ``"tictactoe"``.
        players: first to move first: ``"human"``, an agent spec or an
            :class:`~boardzoo.agents.Agent`.
        board_size: Reversi's board (4, 6 or 8).
        seed: seeds the agents built from specs (the second gets ``seed + 1``).
        input_fn: reads a line, given the prompt (end of input quits).
        output: writes a message or a board.
    """
    session = GameSession.create(game, players, board_size=board_size, seed=seed)
    return TextGame(session, input_fn, output).run()

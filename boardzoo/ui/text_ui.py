"""Play against the AI in a terminal, any game of the catalog.

    run_text_ui("reversi", ("human", "mcts:time_limit=1"), options={"board_size": 6})
    run_text_ui("connect_four", ("human", "alphabeta"))

The board is printed with coordinates (:func:`~boardzoo.envs.text_render.ansi_board`); the start
and ``help`` explain its symbols (which side is which, ``*`` for a legal move, lower case for the
piece just placed). Type a move by its name (``d3`` or ``pass`` in Reversi, ``b2`` in TicTacToe,
a column ``a``-``g`` in Connect Four; the prompt lists the legal ones) or its number, or a
command: ``help``, ``moves``, ``undo``, ``new`` (a new game, same players and options),
``board``, ``quit``. Once a game with a human is over, ``new`` or ``undo`` goes on and anything
else ends. Reading and writing go through ``input_fn`` and ``output``, so scripts and tests can
play too.

The agents get ready (:meth:`~boardzoo.agents.Agent.prepare`: compiling or loading their
search) when the session starts, with a "Preparing ..." line, so that no move includes it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from boardzoo.envs.text_render import ansi_board, ansi_key
from boardzoo.games.state import BoardState
from boardzoo.ui.game_session import (
    GameSession,
    PlayerSpec,
    describe_search,
    game_title,
    move_name,
    parse_move,
    result_text,
    why_illegal,
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

    def run(self) -> BoardState:
        """Play until the game ends or a human quits; returns the last position.

        With a human playing, the end of a game asks whether to go on: ``new`` starts another
        game, ``undo`` takes moves back, anything else (or the end of input) stops.
        """
        session = self.session
        players = ", ".join(self._player_intro(p) for p in (0, 1))
        self.output(f"{game_title(session.game)}: {players}. Type 'help' for the commands.")
        self.output(f"Symbols: {ansi_key(session.game)}.")
        session.prepare(self.output)
        self.show_board()
        while True:
            while not session.is_over():
                agent = session.agent_to_move()
                if agent is not None:
                    self._agent_move(agent)
                    continue
                if not self.handle(self._read(self._prompt())):
                    self.output("Game abandoned.")
                    return session.state
            self.output(f"Game over: {result_text(session.state, session.names)}.")
            if not session.has_human() or not self._after_the_end():
                return session.state

    def _read(self, prompt: str) -> str:
        try:
            return self.input_fn(prompt)
        except (EOFError, KeyboardInterrupt):
            return "quit"

    def _after_the_end(self) -> bool:
        """Offer another game; ``True`` when the human goes on (``new`` or ``undo``)."""
        while True:
            line = self._read("Type 'new' for another game, 'undo' to take back, or 'quit'> ")
            command = line.strip().lower()
            if command in ("new", "undo"):
                return self.handle(command)
            if command in _HELP or command in ("board", "show"):
                self.handle(command)
                continue
            return False

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
        elif command == "new":
            session.new_game()
            self.output(f"New game: {session.describe_player(session.mover)} moves first.")
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
            why = why_illegal(state, action)
            self.output(f"Illegal move: {why}. Legal moves: {self._legal_list()}.")
            return
        session.play(action)
        self.output(f"{session.side(state.current_player)} plays {move_name(state, action)}.")
        self.show_board()

    def _agent_move(self, agent: object) -> None:
        session = self.session
        state, player = session.state, session.mover
        self.output(f"{session.describe_player(player)} is thinking...")
        action = int(agent.act(state))  # type: ignore[attr-defined]  # (a player object from the session: an Agent here)
        session.play(action)
        summary = describe_search(agent)  # type: ignore[arg-type]  # (the same Agent)
        detail = f": {summary}" if summary else ""
        self.output(f"{session.describe_player(player)} plays {move_name(state, action)}{detail}.")
        self.show_board()

    # --- text -----------------------------------------------------------------------------------

    def show_board(self) -> None:
        """Print the current position with coordinates."""
        self.output(ansi_board(self.session.state, self.session.last_action))

    def _player_intro(self, player: int) -> str:
        """``"Black = X (You)"``: the side, its symbol where that differs, and who plays it."""
        session = self.session
        name, symbol = session.names[player], session.game.spec.symbols[player]
        shown = name if symbol.lower() == name.lower() else f"{name} = {symbol}"
        return f"{shown} ({session.labels[player]})"

    def _prompt(self) -> str:
        """``"Black to move [d3, c4, f5, e6]> "``: the side to move and the moves it may type."""
        return f"{self.session.side()} to move [{self._legal_list()}]> "

    def _legal_list(self) -> str:
        state = self.session.state
        return ", ".join(move_name(state, a) for a in state.legal_actions())

    def _help(self) -> str:
        game = self.session.game
        names = game.action_names
        squares = [a for a in range(game.num_actions) if a != game.pass_action]
        first, last = names[squares[0]], names[squares[-1]]
        passing = "" if game.pass_action is None else f" or {names[game.pass_action]!r}"
        moves = (
            f"Type a move by its name, {first}..{last}{passing}, or by its number "
            f"0..{game.num_actions - 1}; the prompt lists the legal moves."
        )
        return "\n".join(
            [
                moves,
                f"Symbols: {ansi_key(game)}.",
                "Commands: moves (list the legal moves), undo (take back to your previous turn),",
                "          new (start a new game, same players), board (show the board again),",
                "          help, quit.",
            ]
        )


def run_text_ui(
    game: str,
    players: Sequence[PlayerSpec],
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
    input_fn: Callable[[str], str] = input,
    output: Callable[[str], object] = print,
) -> BoardState:
    """Play ``game`` in the terminal; returns the last position (the end, or where you quit).

    Args:
        game: a catalog game, such as ``"reversi"``, ``"tictactoe"`` or ``"connect_four"``.
        players: first to move first: ``"human"``, an agent spec or an
            :class:`~boardzoo.agents.Agent`.
        options: the game's options, such as ``{"board_size": 6}`` (the others at defaults).
        seed: seeds the agents built from specs (the second gets ``seed + 1``).
        input_fn: reads a line, given the prompt (end of input quits).
        output: writes a message or a board.
    """
    session = GameSession.create(game, players, options=options, seed=seed)
    return TextGame(session, input_fn, output).run()

"""Who plays, and the game in progress that the window and the terminal interfaces share.

A player is ``"human"`` or an agent: an :class:`~boardzoo.agents.Agent` object or a spec such as
``"mcts:time_limit=1"`` (see :func:`~boardzoo.agents.make_agent`). :class:`GameSession` keeps
every position of the game, so moves can be taken back, and knows whose turn it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from boardzoo.agents.base import Agent
from boardzoo.agents.registry import make_agent
from boardzoo.games import GameState, IllegalMoveError, action_name
from boardzoo.games.catalog import check_game, initial_state

__all__ = [
    "HUMAN",
    "GameSession",
    "PlayerSpec",
    "describe_search",
    "make_players",
    "move_name",
    "parse_move",
    "player_label",
    "result_text",
    "side_names",
]

HUMAN = "human"
PlayerSpec = str | Agent
_FILES = "abcdefgh"


def side_names(game: str) -> tuple[str, str]:
    """The names of player 0 and player 1: ``("Black", "White")`` or ``("X", "O")``."""
    return ("Black", "White") if check_game(game) == "reversi" else ("X", "O")


def _is_human(player: object) -> bool:
    return isinstance(player, str) and player.strip().lower() == HUMAN


def make_players(
    players: Sequence[PlayerSpec], seed: int | None = None
) -> tuple[Agent | None, Agent | None]:
    """The two players, first to move first: ``None`` for a human, else an agent.

    Specs are built with :func:`~boardzoo.agents.make_agent`, the first with ``seed`` and the
    second with ``seed + 1`` (``None`` stays ``None``); agent objects are used as they are.
    """
    if isinstance(players, str) or len(players) != 2:
        raise ValueError(f"expected two players (first to move first), got {players!r}")
    built: list[Agent | None] = []
    for index, player in enumerate(players):
        if isinstance(player, Agent):
            built.append(player)
        elif _is_human(player):
            built.append(None)
        elif isinstance(player, str):
            built.append(make_agent(player, seed=None if seed is None else seed + index))
        else:
            raise ValueError(
                f"a player is 'human', an agent spec such as 'mcts:time_limit=1' or an Agent, "
                f"got {player!r}"
            )
    return built[0], built[1]


def player_label(player: PlayerSpec) -> str:
    """A short name for a player: ``"You"`` for a human, the spec or the agent's name."""
    if _is_human(player):
        return "You"
    if isinstance(player, str):
        return player.strip()
    return getattr(player, "name", type(player).__name__)


def move_name(state: GameState, action: int) -> str:
    """``"d3"`` or ``"pass"`` in Reversi, ``"4 (b2)"`` in TicTacToe."""
    size = state.size  # type: ignore[attr-defined]
    if hasattr(state, "disc_counts"):
        return action_name(action, size)
    row, col = divmod(action, size)
    return f"{action} ({_FILES[col]}{row + 1})"


def parse_move(state: GameState, text: str) -> int:
    """Read a move typed by a person; ``ValueError`` with a hint when it names no square.

    Reversi: a square such as ``d3`` or ``pass``. TicTacToe: an action number ``0``-``8`` or a
    square ``a1``-``c3`` (file a-c across, rank 1-3 down). Legality is not checked here.
    """
    size = state.size  # type: ignore[attr-defined]
    cleaned = text.strip().lower()
    reversi = hasattr(state, "disc_counts")
    last = f"{_FILES[size - 1]}{size}"
    if reversi:
        hint = f"type a square a1..{last} (such as d3) or 'pass'"
    else:
        hint = f"type a square number 0-{size * size - 1} or a square a1..{last}"
    if not reversi and cleaned.isdigit():
        if int(cleaned) < size * size:
            return int(cleaned)
        raise ValueError(f"unknown square {text.strip()!r}: {hint}")
    if cleaned == "pass" and not reversi:
        raise ValueError(f"there is no pass in TicTacToe: {hint}")
    files = _FILES[:size]
    if cleaned == "pass":
        return size * size
    if len(cleaned) >= 2 and cleaned[0] in files and cleaned[1:].isdigit():
        row = int(cleaned[1:]) - 1
        if 0 <= row < size:
            return row * size + files.index(cleaned[0])
    raise ValueError(f"unknown square {text.strip()!r}: {hint}")


def result_text(state: GameState, names: tuple[str, str]) -> str:
    """``"Black wins 40-24"``, ``"X wins"``, ``"Draw"`` (Reversi adds the disc counts)."""
    winner = state.winner
    text = "Draw" if winner is None else f"{names[winner]} wins"
    counts = getattr(state, "disc_counts", None)
    if counts is not None:
        black, white = counts()
        text += f" {black}-{white}" if winner != 1 else f" {white}-{black}"
    return text


def describe_search(agent: Agent | None) -> str:
    """A short summary of the agent's last search (MCTS or alpha-beta), or ``""``."""
    info = getattr(agent, "last_search", None)
    if info is None:
        return ""
    if hasattr(info, "moves") and hasattr(info, "simulations"):
        proven = getattr(info, "proven", None)
        outlook = f"proven {proven}" if proven else f"win rate {info.value:.0%}"
        seconds = f"{info.seconds:.2f}" if info.seconds < 10 else f"{info.seconds:.0f}"
        return f"{outlook}, {info.simulations:,} simulations in {seconds} s"
    if hasattr(info, "depth") and hasattr(info, "score"):
        exact = ", exact" if getattr(info, "exact", False) else ""
        return f"depth {info.depth}, score {info.score:+d}{exact}"
    return ""


class GameSession:
    """A game in progress: every position so far, the moves between them and the players.

    ``players`` are agents, ``None`` standing for a human. Positions are immutable, so taking
    moves back only shortens the history.
    """

    def __init__(
        self,
        game: str,
        players: tuple[Agent | None, Agent | None],
        labels: tuple[str, str] | None = None,
        board_size: int = 8,
    ) -> None:
        self.game = check_game(game)
        self.board_size = board_size
        self.players = players
        self.labels = labels or tuple(  # type: ignore[assignment]
            "You" if p is None else player_label(p) for p in players
        )
        self.names = side_names(game)
        self.states: list[GameState] = [initial_state(game, board_size)]
        self.actions: list[int] = []

    @classmethod
    def create(
        cls,
        game: str,
        players: Sequence[PlayerSpec],
        board_size: int = 8,
        seed: int | None = None,
    ) -> GameSession:
        """A new game between two players given as ``"human"``, specs or agents."""
        check_game(game)
        agents = make_players(players, seed)
        labels = (player_label(players[0]), player_label(players[1]))
        if agents == (None, None):
            labels = ("Human", "Human")
        return cls(game, agents, labels, board_size)

    # --- where the game stands ---------------------------------------------------------------

    @property
    def state(self) -> GameState:
        """The current position."""
        return self.states[-1]

    @property
    def last_action(self) -> int | None:
        """The move that led to the current position, ``None`` at the start."""
        return self.actions[-1] if self.actions else None

    @property
    def ply(self) -> int:
        """Moves played so far."""
        return len(self.actions)

    @property
    def mover(self) -> int:
        """The player to move (0 or 1)."""
        return self.state.current_player

    def is_over(self) -> bool:
        return self.state.is_terminal()

    def has_human(self) -> bool:
        return any(p is None for p in self.players)

    def is_human_turn(self, state: GameState | None = None) -> bool:
        """Whether a human is to move in ``state`` (default: now) and the game goes on."""
        state = self.state if state is None else state
        return not state.is_terminal() and self.players[state.current_player] is None

    def agent_to_move(self) -> Agent | None:
        """The agent whose turn it is, ``None`` when a human is to move or the game is over."""
        if self.state.is_terminal():
            return None
        return self.players[self.state.current_player]

    def side(self, player: int | None = None) -> str:
        """``"Black"`` or ``"White (mcts)"``-style name of ``player`` (default: the mover)."""
        player = self.mover if player is None else player
        return self.names[player]

    def describe_player(self, player: int) -> str:
        """``"Black (You)"`` or ``"White (mcts:time_limit=1)"``."""
        return f"{self.names[player]} ({self.labels[player]})"

    # --- changing it --------------------------------------------------------------------------

    def play(self, action: int) -> GameState:
        """Play ``action`` for the side to move; ``IllegalMoveError`` if it is not legal."""
        state = self.state
        if not state.is_legal(int(action)):
            raise IllegalMoveError(action, state.legal_actions(), _move_label(state, action))
        self.states.append(state.apply(int(action)))
        self.actions.append(int(action))
        return self.state

    def undo(self) -> bool:
        """Take moves back to the previous position where a human was to move.

        Returns ``False`` (and changes nothing) when there is no such position. Without a human
        player it takes back one move.
        """
        if not self.actions:
            return False
        if not self.has_human():
            self.states.pop()
            self.actions.pop()
            return True
        for ply in range(len(self.actions) - 1, -1, -1):
            if self.is_human_turn(self.states[ply]):
                del self.states[ply + 1 :]
                del self.actions[ply:]
                return True
        return False

    def new_game(self) -> None:
        """Back to the start position; agents forget the previous game."""
        del self.states[1:]
        self.actions.clear()
        for player in self.players:
            if player is not None:
                player.reset()


def _move_label(state: GameState, action: Any) -> str:
    """The name of ``action`` if it is a square of the board, else ``""`` (for messages)."""
    try:
        return move_name(state, int(action))
    except (TypeError, ValueError, IndexError):
        return ""

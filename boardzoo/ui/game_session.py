"""Who plays, and the game in progress that the window and the terminal interfaces share.

A player is ``"human"`` or an agent: an :class:`~boardzoo.agents.Agent` object or a spec such as
``"mcts:time_limit=1"`` (see :func:`~boardzoo.agents.make_agent`). :class:`GameSession` keeps
every position of the game, so moves can be taken back, and knows whose turn it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from boardzoo.agents.base import Agent
from boardzoo.agents.registry import make_agent
from boardzoo.errors import InvalidValueError
from boardzoo.games.catalog import get_game, make_game
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState, checked_action, illegal_reason

__all__ = [
    "HUMAN",
    "GameSession",
    "PlayerSpec",
    "describe_search",
    "game_title",
    "make_players",
    "move_name",
    "needs_preparing",
    "parse_move",
    "player_label",
    "result_text",
    "side_names",
    "why_illegal",
]

HUMAN = "human"
PlayerSpec = str | Agent


def side_names(game: str | Game) -> tuple[str, str]:
    """The sides of player 0 and player 1 for display: ``("Black", "White")``, ``("X", "O")``."""
    spec = get_game(game) if isinstance(game, str) else game.spec
    first, second = spec.sides
    return first.capitalize(), second.capitalize()


def game_title(game: Game) -> str:
    """The game and its options for people: ``"Reversi 6x6"``, ``"Connect Four"``."""
    return game.spec.title + game.label[len(game.name) :]


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
        raise InvalidValueError(f"expected two players (first to move first), got {players!r}")
    built: list[Agent | None] = []
    for index, player in enumerate(players):
        if isinstance(player, Agent):
            built.append(player)
        elif _is_human(player):
            built.append(None)
        elif isinstance(player, str):
            built.append(make_agent(player, seed=None if seed is None else seed + index))
        else:
            raise InvalidValueError(
                f"a player is 'human', an agent spec such as 'mcts:time_limit=1' or an Agent, "
                f"got {player!r}"
            )
    return built[0], built[1]


def needs_preparing(agent: Agent) -> bool:
    """Whether ``agent`` has a :meth:`~boardzoo.agents.Agent.prepare` of its own (compiling or
    loading its search), so that preparing it is worth a message."""
    return type(agent).prepare is not Agent.prepare


def player_label(player: PlayerSpec) -> str:
    """A short name for a player: ``"You"`` for a human, the spec or the agent's name."""
    if _is_human(player):
        return "You"
    if isinstance(player, str):
        return player.strip()
    return getattr(player, "name", type(player).__name__)


def move_name(state: BoardState, action: int) -> str:
    """The name of ``action`` in ``state``'s game: ``"d3"``, ``"pass"``, ``"b2"``, ``"g"``."""
    return state.game.action_name(action)


def parse_move(state: BoardState, text: str) -> int:
    """Read a move typed by a person: its name (``d3``, ``pass``, ``b2``; any case) or number.

    A ``ValueError`` says which names are allowed. Legality is not checked here.
    """
    return state.game.parse_action(text)


def why_illegal(state: BoardState, action: int) -> str:
    """Why the human to move may not play ``action`` here, for messages (no final stop).

    ``"you have no legal move and must pass"``, ``"b2 is taken"``, ``"column g is full"``...
    """
    if not state.is_terminal():
        if state.must_pass():
            return "you have no legal move and must pass"
        if action == state.game.pass_action:
            return "you cannot pass while you have a legal move"
    return illegal_reason(state, action) or f"{move_name(state, action)} is not a legal move here"


def result_text(state: BoardState, names: tuple[str, str]) -> str:
    """``"Black wins 40-24"``, ``"X wins"``, ``"Draw"`` (with the piece counts where they count)."""
    winner = state.winner
    text = "Draw" if winner is None else f"{names[winner]} wins"
    if state.game.spec.show_counts:
        first, second = state.disc_counts()
        text += f" {first}-{second}" if winner != 1 else f" {second}-{first}"
    return text


def describe_search(agent: Agent | None) -> str:
    """A short summary of the agent's last search (MCTS, alpha-beta, the engine, or the exact
    solver that chose its move), or ``""``."""
    info = getattr(agent, "last_search", None)
    if info is None:
        return ""
    solved = getattr(info, "solved", None) or getattr(info, "extra", {}).get("solved")
    if solved:  # the exact solver chose the move (its score: exact, or win/draw/loss only)
        score = getattr(info, "score", None)
        score = info.extra["score"] if score is None else score
        what = f"score {score:+d}" if solved == "exact" else f"{'win' if score > 0 else 'draw'}"
        return f"solved: {what}, in {info.seconds:.2f} s"
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
        game: Game,
        players: tuple[Agent | None, Agent | None],
        labels: tuple[str, str] | None = None,
    ) -> None:
        self.game = game
        self.players = players
        self.labels = labels or tuple("You" if p is None else player_label(p) for p in players)
        self.names = side_names(game)
        self.states: list[BoardState] = [game.initial_state()]
        self.actions: list[int] = []
        self.prepared = False

    @classmethod
    def create(
        cls,
        game: str | Game,
        players: Sequence[PlayerSpec],
        options: Mapping[str, Any] | None = None,
        seed: int | None = None,
    ) -> GameSession:
        """A new game between two players given as ``"human"``, specs or agents.

        ``game`` is a catalog name with its ``options`` (``{"board_size": 6}``; each checked,
        the others at their defaults) or a :class:`~boardzoo.games.spec.Game` (then no options).
        """
        if isinstance(game, str):
            chosen = make_game(game, **(options or {}))
        elif options:
            raise InvalidValueError(
                f"options are chosen by the game {game!r} already, got {options!r}"
            )
        else:
            chosen = game
        agents = make_players(players, seed)
        labels = (player_label(players[0]), player_label(players[1]))
        if agents == (None, None):
            labels = ("Human", "Human")
        return cls(chosen, agents, labels)

    # --- where the game stands ---------------------------------------------------------------

    @property
    def state(self) -> BoardState:
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

    def is_human_turn(self, state: BoardState | None = None) -> bool:
        """Whether a human is to move in ``state`` (default: now) and the game goes on."""
        state = self.state if state is None else state
        return not state.is_terminal() and self.players[state.current_player] is None

    def agent_to_move(self) -> Agent | None:
        """The agent whose turn it is, ``None`` when a human is to move or the game is over."""
        if self.state.is_terminal():
            return None
        return self.players[self.state.current_player]

    def side(self, player: int | None = None) -> str:
        """The side of ``player`` (default: the mover) for display: ``"Black"``, ``"Red"``."""
        player = self.mover if player is None else player
        return self.names[player]

    def describe_player(self, player: int) -> str:
        """``"Black (You)"`` or ``"White (mcts:time_limit=1)"``."""
        return f"{self.names[player]} ({self.labels[player]})"

    # --- getting the agents ready ------------------------------------------------------------

    def prepare(self, report: Callable[[str], object] | None = None) -> None:
        """Call each agent's :meth:`~boardzoo.agents.Agent.prepare` for this game, once.

        Done when the session starts, before any move, so that compiling or loading an agent's
        search does not count in its first move. ``report`` receives ``"Preparing White
        (mcts:time_limit=1)..."`` before each agent that has something to prepare. Later calls
        do nothing.
        """
        if self.prepared:
            return
        done: set[int] = set()
        for player, agent in enumerate(self.players):
            if agent is None or id(agent) in done:
                continue
            done.add(id(agent))
            if report is not None and needs_preparing(agent):
                report(f"Preparing {self.describe_player(player)}...")
            agent.prepare(self.game)
        self.prepared = True

    def unprepared(self) -> list[str]:
        """``"White (mcts)"`` for each agent with something to prepare, until :meth:`prepare`."""
        if self.prepared:
            return []
        return [
            self.describe_player(player)
            for player, agent in enumerate(self.players)
            if agent is not None and needs_preparing(agent)
        ]

    # --- changing it --------------------------------------------------------------------------

    def play(self, action: int) -> BoardState:
        """Play ``action`` for the side to move; ``IllegalMoveError`` if it is not legal."""
        action = checked_action(self.state, action)
        self.states.append(self.state.apply(action))
        self.actions.append(action)
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

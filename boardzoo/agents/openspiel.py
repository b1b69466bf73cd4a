"""boardzoo's agents as OpenSpiel bots, and OpenSpiel's bots as boardzoo agents.

    import pyspiel
    from boardzoo.agents.openspiel import as_bot

    game = pyspiel.load_game("othello")
    bots = [as_bot("engine:time_limit=0.5", game), pyspiel.make_uniform_random_bot(1, 0)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)

    boardzoo arena connect_four openspiel:bot=mcts,simulations=2000 az:time_limit=0.5

OpenSpiel's ``tic_tac_toe``, ``connect_four`` and ``othello`` are boardzoo's ``tictactoe``,
``connect_four`` and ``reversi`` (8x8), with the same action numbers
(:mod:`boardzoo.interop.openspiel_states`). :func:`as_bot` makes any boardzoo agent a
``pyspiel.Bot``: each step reads OpenSpiel's state as boardzoo's position and answers the
agent's move. :class:`OpenSpielAgent` (the spec ``openspiel``) plays OpenSpiel's own MCTS bot
(its C++ ``MCTSBot`` with random rollouts), its uniformly random bot, or its AlphaZero with a
checkpoint its training wrote (``openspiel:bot=az,checkpoint=PATH``) in boardzoo's envs,
arena, tournaments and ratings: each move it builds OpenSpiel's state by the moves that lead to
boardzoo's position (from its previous move's, else from the start). It follows a game from its
start, or from a position a few moves in: an Othello position 18 or more moves from the start
that it has not seen come about is refused (the moves to it are too many ways apart to find).

OpenSpiel is an optional dependency (``pip install 'boardzoo[openspiel]'``; its AlphaZero
also needs JAX: ``boardzoo[openspiel-alphazero]``): without it, both say so in one line, and
nothing else in boardzoo imports it.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any, Literal

from boardzoo.agents.base import Agent, Seed, board_state, env_state, legal_or_raise, make_rng
from boardzoo.agents.openspiel_alphazero import (
    OpenSpielCheckpoint,
    alphazero_bot,
    checkpoint_game,
    load_checkpoint,
)
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.interop.openspiel_states import (
    OPENSPIEL_GAMES,
    OPENSPIEL_NAMES,
    moves_to,
    openspiel_position,
)

__all__ = ["OpenSpielAgent", "as_bot", "openspiel_game", "pyspiel_module"]

_INSTALL = "OpenSpiel is not installed: pip install 'boardzoo[openspiel]' (the open-spiel package)"
_BOTS = ("mcts", "random", "az")


def pyspiel_module() -> Any:
    """The ``pyspiel`` module; a one-line ``ValueError`` saying how to install it if missing."""
    try:
        return importlib.import_module("pyspiel")
    except ImportError:
        raise InvalidValueError(_INSTALL) from None


def openspiel_game(game: Game) -> Any:
    """OpenSpiel's game (a ``pyspiel.Game``) that is boardzoo's ``game``.

    Raises:
        ValueError: a game or options OpenSpiel's three do not play, or no OpenSpiel.
    """
    default = game.spec.make()
    if game.name not in OPENSPIEL_NAMES or game.options != default.options:
        plays = ", ".join(f"{ours} ({theirs})" for theirs, ours in OPENSPIEL_GAMES.items())
        raise InvalidValueError(
            f"OpenSpiel's bots play {plays} at their default options, not {game.label}"
        )
    return pyspiel_module().load_game(OPENSPIEL_NAMES[game.name])


@cache
def _bot_class() -> type:
    """``pyspiel.Bot`` subclassed by a boardzoo agent (made once OpenSpiel is imported)."""
    pyspiel = pyspiel_module()

    class AgentBot(pyspiel.Bot):  # type: ignore[misc, name-defined]  # (pyspiel has no stubs)
        """A boardzoo agent as an OpenSpiel bot: each step reads the state as boardzoo's
        position and answers the agent's move."""

        def __init__(self, agent: Agent) -> None:
            pyspiel.Bot.__init__(self)
            self.agent = agent

        def step(self, state: Any) -> int:
            return int(self.agent.act(openspiel_position(state)))

        def restart_at(self, state: Any) -> None:
            self.agent.reset()

        def inform_action(self, state: Any, player_id: int, action: int) -> None:
            pass

        def provides_policy(self) -> bool:
            return False

        def __repr__(self) -> str:
            return f"as_bot({self.agent!r})"

    return AgentBot


def as_bot(agent: str | Agent, game: Any = None, seed: int | None = None) -> Any:
    """A boardzoo agent as a ``pyspiel.Bot`` for OpenSpiel's ``tic_tac_toe``,
    ``connect_four`` and ``othello``.

    Args:
        agent: an agent spec (``"engine:time_limit=0.5"``, ``"solver"``) or an agent.
        game: the ``pyspiel.Game`` it will play: checked now, and the agent prepared for it
            (compiled, models loaded) before any clock runs; ``None``: on its first move.
        seed: the seed of an agent built from a spec.

    Returns:
        A ``pyspiel.Bot`` whose ``step(state)`` is the agent's move in ``state`` (the state is
        not changed), usable with ``pyspiel.evaluate_bots`` and OpenSpiel's Python
        ``evaluate_bots``.

    Raises:
        ValueError: a bad spec, a game boardzoo does not play, or no OpenSpiel (one line).
    """
    from boardzoo.agents.registry import make_agent

    pyspiel_module()  # no OpenSpiel: say so before the agent is made
    player = make_agent(agent, seed=seed) if isinstance(agent, str) else agent
    if not isinstance(player, Agent):
        raise InvalidValueError(f"as_bot takes an agent spec or an Agent, got {agent!r}")
    bot_class = _bot_class()
    if game is not None:
        position = openspiel_position(game.new_initial_state())
        player.check_game(position.game)
        player.prepare(position.game)
    return bot_class(player)


class OpenSpielAgent(Agent):
    """OpenSpiel's own bots as a boardzoo agent: its MCTS (C++ ``MCTSBot``, random rollouts),
    its uniformly random bot, or its AlphaZero with a trained checkpoint, for tictactoe,
    connect_four and reversi 8x8.

    Args:
        bot: ``"mcts"``, ``"random"`` or ``"az"`` (OpenSpiel's AlphaZero: its Python
            ``MCTSBot`` with PUCT and the checkpoint's network, as its evaluation plays;
            :mod:`boardzoo.agents.openspiel_alphazero`).
        simulations: MCTS simulations a move (OpenSpiel's ``max_simulations``); ``None``: 1000
            for ``mcts``, the training's ``max_simulations`` for ``az``.
        rollouts: random rollouts a leaf is evaluated by (``RandomRolloutEvaluator``).
        c: the exploration constant (``uct_c``); ``None``: 2 for ``mcts`` (OpenSpiel's
            examples), the training's ``uct_c`` for ``az``.
        solve: MCTS-Solver: back up proven wins and losses (OpenSpiel's ``solve``; ``mcts``
            only, AlphaZero plays without).
        time_limit: seconds a move at most (OpenSpiel's ``max_wall_clock_time``), as well as
            ``simulations``; ``None``: simulations only. ``mcts`` only.
        checkpoint: for ``az``: a ``checkpoint-N`` directory of an OpenSpiel AlphaZero run, or
            the run's directory (its latest checkpoint).
        max_memory_mb: the MCTS tree's memory (OpenSpiel's ``max_memory_mb``).
        seed: seed of the bot's random numbers; the same seed gives the same moves (on a
            budget of simulations, not of time).
    """

    name = "openspiel"

    def __init__(
        self,
        bot: Literal["mcts", "random", "az"] = "mcts",
        simulations: int | None = None,
        rollouts: int = 1,
        c: float | None = None,
        solve: bool = True,
        time_limit: float | None = None,
        max_memory_mb: int = 1000,
        checkpoint: str | None = None,
        seed: Seed = None,
    ) -> None:
        if bot not in _BOTS:
            raise InvalidValueError(f"bot={bot!r} is not allowed: it must be one of {_BOTS}")
        for key, value in (("simulations", simulations), ("rollouts", rollouts)):
            if key == "simulations" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidValueError(f"{key}={value!r} is not allowed: it must be an int >= 1")
        if (
            isinstance(max_memory_mb, bool)
            or not isinstance(max_memory_mb, int)
            or max_memory_mb < 1
        ):
            raise InvalidValueError(
                f"max_memory_mb={max_memory_mb!r} is not allowed: it must be an int >= 1"
            )
        if c is not None and not c > 0:
            raise InvalidValueError(f"c={c!r} is not allowed: it must be a number > 0")
        if time_limit is not None and not time_limit > 0:
            raise InvalidValueError(f"time_limit={time_limit!r} is not allowed: it must be > 0")
        if (bot == "az") != (checkpoint is not None):
            raise InvalidValueError(
                "bot=az needs checkpoint=PATH (an OpenSpiel AlphaZero checkpoint)"
                if bot == "az"
                else f"checkpoint={checkpoint!r} is for bot=az only"
            )
        if bot == "az" and time_limit is not None:
            raise InvalidValueError(
                f"time_limit={time_limit!r} is not allowed with bot=az: OpenSpiel's AlphaZero "
                "search plays a number of simulations (simulations=N)"
            )
        pyspiel_module()  # no OpenSpiel: say so now, before any game
        self._checkpoint_game = None if checkpoint is None else checkpoint_game(checkpoint)
        self.checkpoint = checkpoint
        self._loaded: OpenSpielCheckpoint | None = None
        self.bot, self.simulations, self.rollouts = bot, simulations, rollouts
        self.c, self.solve, self.time_limit, self.max_memory_mb = (
            c,
            solve,
            time_limit,
            max_memory_mb,
        )
        self.seed = seed
        self._seed = int(make_rng(seed).integers(2**31 - 1))
        self._game: Game | None = None
        self._spiel_game: Any = None
        self._bots: dict[int, Any] = {}  # player -> bot (OpenSpiel's random bot is a player's)
        self._known: tuple[BoardState, Any] | None = None  # a position and OpenSpiel's state

    def check_game(self, game: Game) -> None:
        openspiel_game(game)
        if self._checkpoint_game is not None and self._checkpoint_game != OPENSPIEL_NAMES.get(
            game.name
        ):
            raise InvalidValueError(
                f"checkpoint={self.checkpoint!r} was trained on OpenSpiel's "
                f"{self._checkpoint_game!r}, not {game.label}"
            )

    def prepare(self, game: Game) -> None:
        if self._game is not None and self._game == game:
            return
        self.check_game(game)
        if self.checkpoint is not None and self._loaded is None:
            self._loaded = load_checkpoint(self.checkpoint)
        self._spiel_game = openspiel_game(game)
        self._game = game
        self._bots = {}
        self._known = None

    def reset(self) -> None:
        self._bots = {}  # fresh bots (and trees) for each game, from the same seed
        self._known = None

    def _make_bot(self, player: int) -> Any:
        pyspiel = pyspiel_module()
        if self.bot == "random":
            return pyspiel.make_uniform_random_bot(player, self._seed)
        if self._loaded is not None:
            return alphazero_bot(
                self._spiel_game,
                self._loaded,
                self._loaded.max_simulations if self.simulations is None else self.simulations,
                self._loaded.uct_c if self.c is None else float(self.c),
                self._seed,
            )
        evaluator = pyspiel.RandomRolloutEvaluator(self.rollouts, self._seed)
        return pyspiel.MCTSBot(
            self._spiel_game,
            evaluator,
            2.0 if self.c is None else float(self.c),
            1000 if self.simulations is None else self.simulations,
            self.max_memory_mb,
            bool(self.solve),
            self._seed,
            False,
            pyspiel.ChildSelectionPolicy.UCT,
            -1.0 if self.time_limit is None else float(self.time_limit),
        )

    def _spiel_state(self, position: BoardState) -> Any:
        """OpenSpiel's state of ``position``: from the last one known, else from the start."""
        if self._known is not None:
            known, state = self._known
            moves = moves_to(position, start=known)
            if moves is not None:
                state = state.clone()
                for action in moves:
                    state.apply_action(action)
                return state
        try:
            moves = moves_to(position)
        except ValueError:
            moves = None
        if moves is None:
            raise InvalidValueError(
                f"openspiel: OpenSpiel's states are built by moves, and none were found that "
                f"reach this {position.game.label} position from the start: give the agent the "
                "game from its start (it follows a game move by move)"
            )
        state = self._spiel_game.new_initial_state()
        for action in moves:
            state.apply_action(action)
        return state

    def act(self, env: Any) -> int:
        """OpenSpiel's bot's move in ``env``'s position (``env`` is not changed)."""
        position = board_state(env_state(env), "OpenSpielAgent")
        legal_or_raise(position)
        self.prepare(position.game)
        state = self._spiel_state(position)
        player = position.current_player
        if player not in self._bots:
            self._bots[player] = self._make_bot(player)
        action = int(self._bots[player].step(state))
        state.apply_action(action)
        self._known = (position.apply(action), state)
        return action

    def __repr__(self) -> str:
        return (
            f"OpenSpielAgent(bot={self.bot!r}, simulations={self.simulations}, "
            f"rollouts={self.rollouts}, c={self.c}, solve={self.solve}, "
            f"time_limit={self.time_limit}, checkpoint={self.checkpoint!r}, seed={self.seed!r})"
        )

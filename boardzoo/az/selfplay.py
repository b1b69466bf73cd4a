"""Self-play: many games at once, each move chosen by the batched search, recorded for training.

Every position where the player to move had a choice becomes one training example: the
observation the network sees, the legal mask, the search's policy target (visit counts for
PUCT, the improved policy for Gumbel AlphaZero) and, once the game is over, its result from the
point of view of the player who moved there (+1 win, 0 draw, -1 loss). Forced moves (a single
legal action, such as Reversi's pass) are played without a search; with ``record_forced`` their
positions are recorded too, with the forced move as the policy target, so the value head learns
positions the search meets as leaves but never has to choose in (on Reversi 4x4, 60% of the
reachable positions).

All games in flight are searched together: one :meth:`BatchedSearch.search` call per ply of
every game, so the network sees one batch per simulation step of all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.search.batched import BatchedSearch
from boardzoo.search.evaluators import Evaluator, encode

__all__ = ["SelfPlayConfig", "SelfPlayGames", "play_games"]


@dataclass(frozen=True)
class SelfPlayConfig:
    """How self-play chooses its moves.

    Attributes:
        simulations: simulations per move.
        temperature_plies: for PUCT, plies (from the start) whose move is drawn in proportion to
            the visit counts; later moves take the most visited. Gumbel AlphaZero always plays
            the search's own choice (its Gumbel noise already varies the games).
        opening_plies: the most uniformly random plies (seeded) that start a game, neither
            searched nor recorded: each game draws how many, from 0 to this, so the games
            spread over more positions and the start position is still played.
        add_noise: noise at the root: Dirichlet noise on the priors (PUCT), the Gumbel noise
            of Gumbel-top-k sampling (Gumbel AlphaZero; without it every game is the same).
        record_forced: also record the positions with a single legal action (played without a
            search), the forced move as their policy target.
    """

    simulations: int = 32
    temperature_plies: int = 8
    opening_plies: int = 0
    add_noise: bool = True
    record_forced: bool = False

    def __post_init__(self) -> None:
        for name, least in (("simulations", 1), ("temperature_plies", 0), ("opening_plies", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"{name} must be an int >= {least}, got {value!r}")


@dataclass
class SelfPlayGames:
    """The training examples and results of a batch of self-play games.

    Attributes:
        observations: int8 ``[P, 2, rows, cols]``, as the network sees them.
        masks: bool ``[P, num_actions]``, the legal actions.
        policies: float32 ``[P, num_actions]``, the search's policy targets.
        values: float32 ``[P]``, each game's result for the player who moved there.
        winners: per game, the winning player (0 or 1) or ``None`` for a draw.
        moves: per game, its actions from the start position, forced ones included.
        lengths: per game, the number of plies.
        openings: per game, the random plies it started with.
        simulations: simulations run in all.
    """

    observations: np.ndarray
    masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    winners: list[int | None] = field(default_factory=list)
    moves: list[list[int]] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    openings: list[int] = field(default_factory=list)
    simulations: int = 0

    @property
    def positions(self) -> int:
        """Training examples recorded."""
        return len(self.values)


@dataclass
class _Game:
    """One game in flight and the examples it recorded so far."""

    state: BoardState
    observations: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    policies: list[np.ndarray] = field(default_factory=list)
    movers: list[int] = field(default_factory=list)
    moves: list[int] = field(default_factory=list)
    opening: int = 0

    def record(self, observation: np.ndarray, mask: np.ndarray, policy: np.ndarray) -> None:
        """Keep the position to move as a training example (its result comes at the end)."""
        self.observations.append(observation.astype(np.int8))
        self.masks.append(mask)
        self.policies.append(policy.astype(np.float32))
        self.movers.append(self.state.current_player)

    def play(self, action: int) -> None:
        self.moves.append(action)
        self.state = self.state.apply(action)

    @property
    def plies(self) -> int:
        return len(self.moves)


def _choose(
    visits: np.ndarray, searched: int, ply: int, config: SelfPlayConfig, gumbel: bool,
    rng: np.random.Generator,
) -> int:  # fmt: skip
    """The move to play from one root's search results."""
    if gumbel:
        return searched
    if ply < config.temperature_plies and visits.sum() > 0:
        return int(rng.choice(len(visits), p=visits / visits.sum()))
    return int(np.argmax(visits))


def play_games(
    game: Game,
    search: BatchedSearch,
    evaluator: Evaluator,
    count: int,
    config: SelfPlayConfig,
    seed: int,
    starts: Sequence[BoardState] | None = None,
) -> SelfPlayGames:
    """Play ``count`` games of ``game`` against itself, ``search.batch_size`` at a time.

    Args:
        game: the game (with its options).
        search: the batched search (its batch size is the number of games in flight).
        evaluator: the network (or any :class:`~boardzoo.search.evaluators.Evaluator`).
        count: games to play.
        config: simulations and move choice.
        seed: seeds the move choice (the search has its own seed).
        starts: start positions, used in turn (default: the game's initial position).

    Returns:
        The examples of every game, in the order the games finished.
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be an int >= 1, got {count!r}")
    rng = np.random.default_rng(seed)
    gumbel = search.config.gumbel
    begun = 0

    def start() -> _Game:
        nonlocal begun
        state = game.initial_state() if not starts else starts[begun % len(starts)]
        begun += 1
        item = _Game(state)
        for _ in range(int(rng.integers(config.opening_plies + 1))):
            if item.state.is_terminal():
                break
            legal = item.state.legal_actions()
            item.play(int(legal[int(rng.integers(len(legal)))]))
        item.opening = item.plies
        return item

    active = [start() for _ in range(min(count, search.batch_size))]
    finished: list[_Game] = []
    simulations = 0
    while active:
        # forced moves need no search
        for item in active:
            while not item.state.is_terminal() and len(item.state.legal_actions()) == 1:
                forced = int(item.state.legal_actions()[0])
                if config.record_forced:
                    observation, mask = encode(game, [item.state])
                    policy = np.zeros(game.num_actions, np.float32)
                    policy[forced] = 1.0
                    item.record(observation[0], mask[0], policy)
                item.play(forced)
        deciding = [item for item in active if not item.state.is_terminal()]
        if deciding:
            roots = [item.state for item in deciding]
            observations, masks = encode(game, roots)
            result = search.search(
                roots, evaluator, simulations=config.simulations,
                add_noise=config.add_noise,
            )  # fmt: skip
            simulations += result.simulations * len(roots)
            for index, item in enumerate(deciding):
                item.record(observations[index], masks[index], result.policy_target[index])
                action = _choose(
                    result.visits[index], int(result.action[index]), item.plies, config, gumbel,
                    rng,
                )  # fmt: skip
                item.play(action)
        still: list[_Game] = []
        for item in active:
            if item.state.is_terminal():
                finished.append(item)
                if begun < count:
                    still.append(start())
            else:
                still.append(item)
        active = still
    return _collect(game, finished, simulations)


def _collect(game: Game, finished: list[_Game], simulations: int) -> SelfPlayGames:
    """Stack the examples of finished games, with each position's result for its mover."""
    shape = (0, 2, game.rows, game.cols)
    observations, masks, policies, values = [], [], [], []
    winners: list[int | None] = []
    for item in finished:
        winner = item.state.winner
        winners.append(winner)
        for mover, obs, mask, policy in zip(
            item.movers, item.observations, item.masks, item.policies, strict=True
        ):
            observations.append(obs)
            masks.append(mask)
            policies.append(policy)
            values.append(0.0 if winner is None else (1.0 if winner == mover else -1.0))
    return SelfPlayGames(
        observations=np.stack(observations) if observations else np.zeros(shape, np.int8),
        masks=(np.stack(masks) if masks else np.zeros((0, game.num_actions), bool)),
        policies=(np.stack(policies) if policies else np.zeros((0, game.num_actions), np.float32)),
        values=np.asarray(values, dtype=np.float32),
        winners=winners,
        moves=[item.moves for item in finished],
        lengths=[item.plies for item in finished],
        openings=[item.opening for item in finished],
        simulations=simulations,
    )

"""Self-play: many games at once, each move chosen by the batched search, recorded for training.

Every position where the player to move had a choice becomes one training example: the
observation the network sees, the legal mask, the search's policy target (visit counts for
PUCT, the improved policy for Gumbel AlphaZero) and a value target: once the game is over, its
result from the point of view of the player who moved there (+1 win, 0 draw, -1 loss), mixed
with the search's value of the position when ``value_mix`` > 0 (``(1 - m) * result + m *
search value``: less noisy than the result alone, and exact where the search reached the
solver). Forced moves (a single
legal action, such as Reversi's pass) are played without a search; with ``record_forced`` their
positions are recorded too, with the forced move as the policy target, so the value head learns
positions the search meets as leaves but never has to choose in (on Reversi 4x4, 60% of the
reachable positions).

Playout cap randomisation (Wu, "Accelerating Self-Play Learning in Go", 2019, as KataGo): with
``full_search_share`` below 1, each move is a full search (``simulations``, with noise,
recorded) with that probability, else a fast one (``fast_simulations``, no noise, not
recorded): the games go faster and every recorded target still comes from a full search.

With ``search_opening`` the random opening plies are searched and recorded too, while the move
played stays the random one: the games still spread over the positions random play reaches, and
those positions, which good play seldom meets, become examples. Their value target is the
search's value alone (the value of the move the search would have played), since the result of
a game whose opening was random says little about its opening positions; a forced move inside
such an opening is played without being recorded (it has no search value).

All games in flight are searched together: one :meth:`BatchedSearch.search` call per ply of
every game, so the network sees one batch per simulation step of all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from boardzoo.checks import check_number
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState
from boardzoo.search.batched import BatchedSearch
from boardzoo.search.evaluators import Evaluator, encode

__all__ = ["SelfPlayGames", "SelfPlaySettings", "play_games"]


@dataclass(frozen=True)
class SelfPlaySettings:
    """How self-play chooses its moves.

    Attributes:
        simulations: simulations per move.
        temperature_plies: for PUCT, plies (from the start) whose move is drawn in proportion to
            the visit counts; later moves take the most visited. Gumbel AlphaZero always plays
            the search's own choice (its Gumbel noise already varies the games).
        opening_plies: the most uniformly random plies (seeded) that start a game, neither
            searched nor recorded (unless ``search_opening``): each game draws how many, from
            0 to this, so the games spread over more positions and the start position is still
            played.
        search_opening: also search and record the positions of the random opening plies (the
            move played stays the random one; their value target is the search's value).
        add_noise: noise at the root: Dirichlet noise on the priors (PUCT), the Gumbel noise
            of Gumbel-top-k sampling (Gumbel AlphaZero; without it every game is the same).
        record_forced: also record the positions with a single legal action (played without a
            search), the forced move as their policy target.
        full_search_share: the probability that a move gets the full search and is recorded
            (playout cap randomisation); 1: every move.
        fast_simulations: simulations of the other moves (>= 1 when ``full_search_share`` < 1).
        value_mix: the weight ``m`` of the search's value in the value target, in ``[0, 1]``
            (0: the game's result alone).
    """

    simulations: int = 32
    temperature_plies: int = 8
    opening_plies: int = 0
    add_noise: bool = True
    record_forced: bool = False
    full_search_share: float = 1.0
    fast_simulations: int = 0
    value_mix: float = 0.0
    search_opening: bool = False

    def __post_init__(self) -> None:
        for name, least in (
            ("simulations", 1), ("temperature_plies", 0), ("opening_plies", 0),
            ("fast_simulations", 0),
        ):  # fmt: skip
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise InvalidValueError(f"{name} must be an int >= {least}, got {value!r}")
        share = check_number("full_search_share", self.full_search_share, 0.0, 1.0, True)
        object.__setattr__(self, "full_search_share", share)
        mix = check_number("value_mix", self.value_mix, 0.0, 1.0, False)
        object.__setattr__(self, "value_mix", mix)
        if not isinstance(self.search_opening, bool):
            raise InvalidValueError(
                f"search_opening must be true or false, got {self.search_opening!r}"
            )
        if self.full_search_share < 1 and self.fast_simulations < 1:
            raise InvalidValueError(
                f"full_search_share={self.full_search_share} needs fast_simulations >= 1 for "
                "the other moves, got 0"
            )


@dataclass
class SelfPlayGames:
    """The training examples and results of a batch of self-play games.

    Attributes:
        observations: int8 ``[P, 2, rows, cols]``, as the network sees them.
        masks: bool ``[P, num_actions]``, the legal actions.
        policies: float32 ``[P, num_actions]``, the search's policy targets.
        values: float32 ``[P]``, the value targets: each game's result for the player who
            moved there, mixed with ``search_values`` by ``value_mix``.
        search_values: float32 ``[P]``, the search's value of each position for its mover: the
            mean value of the move played (in a searched opening, of the move the search chose;
            the result itself for a forced move).
        winners: per game, the winning player (0 or 1) or ``None`` for a draw.
        moves: per game, its actions from the start position, forced ones included.
        lengths: per game, the number of plies.
        openings: per game, the random plies it started with.
        simulations: simulations run in all.
        searches: full searches (recorded) and fast ones, in all.
    """

    observations: np.ndarray
    masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    search_values: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    winners: list[int | None] = field(default_factory=list)
    moves: list[list[int]] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    openings: list[int] = field(default_factory=list)
    simulations: int = 0
    searches: tuple[int, int] = (0, 0)

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
    search_values: list[float] = field(default_factory=list)  # nan: forced, the result stands
    movers: list[int] = field(default_factory=list)
    moves: list[int] = field(default_factory=list)
    opening: int = 0
    opening_left: int = 0  # random plies still to play, searched and recorded (search_opening)
    in_opening: list[bool] = field(default_factory=list)  # per example: the search value alone

    def record(
        self, observation: np.ndarray, mask: np.ndarray, policy: np.ndarray, value: float
    ) -> None:
        """Keep the position to move as a training example (its result comes at the end)."""
        self.observations.append(observation.astype(np.int8))
        self.masks.append(mask)
        self.policies.append(policy.astype(np.float32))
        self.search_values.append(value)
        self.movers.append(self.state.current_player)
        self.in_opening.append(self.opening_left > 0)

    def play(self, action: int) -> None:
        self.moves.append(action)
        self.state = self.state.apply(action)
        self.opening_left = max(self.opening_left - 1, 0)

    @property
    def plies(self) -> int:
        return len(self.moves)


def _choose(
    visits: np.ndarray, searched: int, ply: int, config: SelfPlaySettings, gumbel: bool,
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
    config: SelfPlaySettings,
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
        raise InvalidValueError(f"count must be an int >= 1, got {count!r}")
    rng = np.random.default_rng(seed)
    gumbel = search.config.gumbel
    begun = 0

    def start() -> _Game:
        nonlocal begun
        state = game.initial_state() if not starts else starts[begun % len(starts)]
        begun += 1
        item = _Game(state)
        plies = int(rng.integers(config.opening_plies + 1))
        if config.search_opening:  # played in the loop below, each position searched first
            item.opening = item.opening_left = plies
            return item
        for _ in range(plies):
            if item.state.is_terminal():
                break
            legal = item.state.legal_actions()
            item.play(int(legal[int(rng.integers(len(legal)))]))
        item.opening = item.plies
        return item

    active = [start() for _ in range(min(count, search.batch_size))]
    finished: list[_Game] = []
    simulations = 0
    searches = [0, 0]
    while active:
        # forced moves need no search
        for item in active:
            while not item.state.is_terminal() and len(item.state.legal_actions()) == 1:
                forced = int(item.state.legal_actions()[0])
                if config.record_forced and item.opening_left == 0:
                    observation, mask = encode(game, [item.state])
                    policy = np.zeros(game.num_actions, np.float32)
                    policy[forced] = 1.0
                    item.record(observation[0], mask[0], policy, np.nan)
                item.play(forced)
        deciding = [item for item in active if not item.state.is_terminal()]
        in_full = [item.opening_left > 0 or _full(config, rng) for item in deciding]
        full = [item for item, chosen in zip(deciding, in_full, strict=True) if chosen]
        fast = [item for item, chosen in zip(deciding, in_full, strict=True) if not chosen]
        for group, recorded in ((full, True), (fast, False)):
            if not group:
                continue
            roots = [item.state for item in group]
            result = search.search(
                roots, evaluator,
                simulations=config.simulations if recorded else config.fast_simulations,
                add_noise=config.add_noise and recorded,
            )  # fmt: skip
            simulations += result.simulations * len(roots)
            searches[0 if recorded else 1] += len(roots)
            if recorded:
                observations, masks = encode(game, roots)
            for index, item in enumerate(group):
                action = _choose(
                    result.visits[index], int(result.action[index]), item.plies, config, gumbel,
                    rng,
                )  # fmt: skip
                if recorded:
                    item.record(
                        observations[index], masks[index], result.policy_target[index],
                        _search_value(result.q[index], result.root_value[index], action),
                    )  # fmt: skip
                if item.opening_left > 0:  # the searched opening: the move stays random
                    legal = item.state.legal_actions()
                    action = int(legal[int(rng.integers(len(legal)))])
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
    played = _collect(game, finished, simulations, config.value_mix)
    played.searches = (searches[0], searches[1])
    return played


def _search_value(q: np.ndarray, root_value: float, action: int) -> float:
    """The search's value of a root for its mover: the mean value of the move played (the root's
    own mean mixes in the moves searched and rejected), the root's where it was not visited."""
    value = float(q[action])
    return float(root_value) if np.isnan(value) else value


def _full(config: SelfPlaySettings, rng: np.random.Generator) -> bool:
    """Whether the next move gets the full search (always, without playout cap randomisation:
    the generator is then not drawn, so such runs play as before)."""
    return config.full_search_share >= 1 or bool(rng.random() < config.full_search_share)


def _collect(
    game: Game, finished: list[_Game], simulations: int, value_mix: float
) -> SelfPlayGames:
    """Stack the examples of finished games, with each position's value target for its mover:
    the result, mixed with the search's value by ``value_mix``."""
    shape = (0, 2, game.rows, game.cols)
    observations, masks, policies, values, searched = [], [], [], [], []
    winners: list[int | None] = []
    for item in finished:
        winner = item.state.winner
        winners.append(winner)
        for mover, obs, mask, policy, value, opening in zip(
            item.movers, item.observations, item.masks, item.policies, item.search_values,
            item.in_opening, strict=True,
        ):  # fmt: skip
            observations.append(obs)
            masks.append(mask)
            policies.append(policy)
            result = 0.0 if winner is None else (1.0 if winner == mover else -1.0)
            value = result if np.isnan(value) else value
            searched.append(value)
            mix = 1.0 if opening else value_mix
            values.append((1.0 - mix) * result + mix * value)
    return SelfPlayGames(
        observations=np.stack(observations) if observations else np.zeros(shape, np.int8),
        masks=(np.stack(masks) if masks else np.zeros((0, game.num_actions), bool)),
        policies=(np.stack(policies) if policies else np.zeros((0, game.num_actions), np.float32)),
        values=np.clip(np.asarray(values, dtype=np.float32), -1.0, 1.0),
        search_values=np.asarray(searched, dtype=np.float32),
        winners=winners,
        moves=[item.moves for item in finished],
        lengths=[item.plies for item in finished],
        openings=[min(item.opening, item.plies) for item in finished],
        simulations=simulations,
    )

"""Scores, Elo differences and tournament ratings, with 95% intervals.

Conventions (the usual ones of chess and game-AI evaluations):

- A game scores 1 for a win, 1/2 for a draw, 0 for a loss; a match score is the mean.
- Score intervals are **Wilson** score intervals with draws counted as half a win: the ``n``
  games are taken as ``n`` trials with success rate ``s``. Draws make a score less variable
  than that, so the interval is slightly conservative (wider) when draws are frequent.
- The Elo difference of a score ``s`` is ``-400 * log10(1/s - 1)``; its interval maps the score
  interval's endpoints the same way (the map is monotone). A score of exactly 0 or 1 has no
  finite Elo: it is clipped to ``-ELO_CLIP`` / ``+ELO_CLIP``.
- Tournament ratings (:func:`fit_elo`) are maximum-likelihood Bradley–Terry ratings on the Elo
  scale, ``P(i beats j) = 1 / (1 + 10 ** ((r_j - r_i) / 400))``, with draws as half a win and
  half a loss, one agent anchored. Their intervals come from the inverse of the observed Fisher
  information at the maximum (a Wald interval, relative to the anchor, whose interval is a
  point). When the maximum does not exist (some group of agents won every game against the
  rest, so its ratings would run off to infinity) one virtual draw is added to every pair that
  played, as BayesElo's prior does, and :attr:`EloFit.prior_draws` says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import cast

import numpy as np

from boardzoo.errors import InvalidValueError

__all__ = [
    "ELO_CLIP",
    "EloFit",
    "elo_from_score",
    "elo_interval",
    "fit_elo",
    "fit_elo_totals",
    "score_from_elo",
    "score_interval",
    "wilson_interval",
]

# The largest Elo difference a score turns into (a score of 1 reads as +ELO_CLIP).
ELO_CLIP = 1000.0
_LN10_400 = math.log(10.0) / 400.0


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise InvalidValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(score: float, games: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a mean score over ``games`` games.

    Args:
        score: the mean score in [0, 1] (wins plus half the draws, over the games).
        games: how many games it is the mean of.
        confidence: the interval's coverage (0.95: z = 1.96).

    Returns:
        ``(low, high)``; ``(0.0, 1.0)`` when there are no games.
    """
    if not 0.0 <= score <= 1.0 or math.isnan(score):
        raise InvalidValueError(f"score must be in [0, 1], got {score!r}")
    if games < 0:
        raise InvalidValueError(f"games must be >= 0, got {games!r}")
    if games == 0:
        return 0.0, 1.0
    z = _z(confidence)
    z2n = z * z / games
    centre = (score + z2n / 2.0) / (1.0 + z2n)
    half = z * math.sqrt(score * (1.0 - score) / games + z2n / (4.0 * games)) / (1.0 + z2n)
    low = 0.0 if score == 0.0 else max(0.0, centre - half)  # exact ends, no rounding residue
    high = 1.0 if score == 1.0 else min(1.0, centre + half)
    return low, high


def score_interval(
    wins: int, draws: int, losses: int, confidence: float = 0.95
) -> tuple[float, float, float]:
    """A player's mean score and its Wilson interval (draws count half).

    Returns:
        ``(score, low, high)``; the score is NaN (and the interval (0, 1)) without games.
    """
    for name, value in (("wins", wins), ("draws", draws), ("losses", losses)):
        if value < 0:
            raise InvalidValueError(f"{name} must be >= 0, got {value!r}")
    games = wins + draws + losses
    if games == 0:
        return math.nan, 0.0, 1.0
    score = (wins + draws / 2.0) / games
    low, high = wilson_interval(score, games, confidence)
    return score, low, high


def elo_from_score(score: float, clip: float = ELO_CLIP) -> float:
    """The Elo difference that predicts ``score``: ``-400 * log10(1/score - 1)``.

    Args:
        score: a mean score in [0, 1].
        clip: the result is kept in ``[-clip, clip]`` (scores 0 and 1 give exactly that).

    Returns:
        The Elo difference (NaN for a NaN score: no games).
    """
    if math.isnan(score):
        return math.nan
    if not 0.0 <= score <= 1.0:
        raise InvalidValueError(f"score must be in [0, 1], got {score!r}")
    if score <= 0.0:
        return -clip
    if score >= 1.0:
        return clip
    return max(-clip, min(clip, -400.0 * math.log10(1.0 / score - 1.0)))


def score_from_elo(difference: float) -> float:
    """The expected score of a player rated ``difference`` Elo above the opponent."""
    return 1.0 / (1.0 + math.pow(10.0, -difference / 400.0))


def elo_interval(
    wins: int, draws: int, losses: int, confidence: float = 0.95
) -> tuple[float, float, float]:
    """A player's Elo difference to the opponent and its interval (from the Wilson interval).

    Returns:
        ``(elo, low, high)``, each clipped to ``±ELO_CLIP``; NaN and ``(-ELO_CLIP, ELO_CLIP)``
        without games.
    """
    score, low, high = score_interval(wins, draws, losses, confidence)
    return elo_from_score(score), elo_from_score(low), elo_from_score(high)


@dataclass(frozen=True)
class EloFit:
    """Ratings fitted by :func:`fit_elo`.

    Attributes:
        agents: the agents, in the order given (or of first appearance).
        ratings: Elo rating of each agent (the anchor has ``anchor_rating``).
        intervals: ``(low, high)`` of each rating at ``confidence``, relative to the anchor.
        errors: standard error of each rating (0 for the anchor).
        games: games played by each agent.
        points: points scored by each agent (wins plus half the draws).
        anchor: the agent whose rating is fixed.
        anchor_rating: its rating.
        confidence: the intervals' coverage.
        prior_draws: virtual draws added to each pair that played (0: the plain maximum
            likelihood; 1 when it does not exist, unless asked otherwise).
    """

    agents: tuple[str, ...]
    ratings: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    errors: dict[str, float]
    games: dict[str, int]
    points: dict[str, float]
    anchor: str
    anchor_rating: float
    confidence: float
    prior_draws: float

    def ranking(self) -> list[str]:
        """The agents from the highest rating to the lowest (ties in the given order)."""
        return sorted(self.agents, key=lambda agent: -self.ratings[agent])


def _reachable(adjacent: np.ndarray, start: int) -> set[int]:
    seen, stack = {start}, [start]
    while stack:
        node = stack.pop()
        for other in np.flatnonzero(adjacent[node]):
            if int(other) not in seen:
                seen.add(int(other))
                stack.append(int(other))
    return seen


def _tables(
    totals: Iterable[tuple[str, str, float, float]],
    agents: Sequence[str] | None,
    per_game: bool = False,
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Agent names, games played by each pair and points scored by each against each, from
    ``(a, b, games, points of a)`` items (``per_game``: each one game, from :func:`fit_elo`)."""
    totals = list(totals)
    names = list(agents) if agents is not None else []
    if len(set(names)) != len(names):
        raise InvalidValueError(f"agents must be distinct, got {names}")
    if agents is None:
        for a, b, _, _ in totals:
            for name in (a, b):
                if name not in names:
                    names.append(name)
    index = {name: i for i, name in enumerate(names)}
    games = np.zeros((len(names), len(names)))
    points = np.zeros_like(games)
    for a, b, count, score in totals:
        for name in (a, b):
            if name not in index:
                raise InvalidValueError(
                    f"result for {name!r}, which is not among the agents {names}"
                )
        if a == b:
            raise InvalidValueError(f"an agent cannot play itself in a rating fit: {a!r}")
        if per_game and not 0.0 <= score <= 1.0:
            raise InvalidValueError(f"a game score must be in [0, 1], got {score!r} for {a} vs {b}")
        if not per_game and not 0.0 <= score <= count:
            raise InvalidValueError(
                f"{a} vs {b}: {score!r} points in {count!r} games (points must be within "
                "0 and the games)"
            )
        i, j = index[a], index[b]
        games[i, j] += count
        games[j, i] += count
        points[i, j] += score
        points[j, i] += count - score
    return names, games, points


def _win_probabilities(ratings: np.ndarray) -> np.ndarray:
    """``P[i, j]``: the probability that ``i`` beats ``j`` (a logistic, without overflow)."""
    diff = ratings[:, None] - ratings[None, :]
    return cast(np.ndarray, 0.5 * (1.0 + np.tanh(diff * _LN10_400 / 2.0)))


def _log_likelihood(ratings: np.ndarray, points: np.ndarray) -> float:
    diff = ratings[:, None] - ratings[None, :]
    # log P(i beats j) = -log(1 + 10^(-(r_i - r_j)/400)), computed without overflow
    return float(np.sum(points * -np.logaddexp(0.0, -diff * _LN10_400)))


def _information(ratings: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The observed Fisher information (minus the Hessian of the log-likelihood)."""
    p = _win_probabilities(ratings)
    weights = _LN10_400**2 * games * p * p.T
    return cast(np.ndarray, np.diag(weights.sum(axis=1)) - weights)


def fit_elo(
    results: Iterable[tuple[str, str, float]],
    *,
    agents: Sequence[str] | None = None,
    anchor: str | None = None,
    anchor_rating: float = 0.0,
    confidence: float = 0.95,
    prior_draws: float | None = None,
) -> EloFit:
    """Maximum-likelihood Elo ratings (Bradley–Terry, draws as half wins) from game results.

    Args:
        results: one ``(agent_a, agent_b, score_of_a)`` per game, the score 1, 1/2 or 0.
        agents: the agents to rate, in the order to report them (default: order of appearance);
            each must have played.
        anchor: the agent whose rating is fixed (default: the first agent).
        anchor_rating: its rating.
        confidence: coverage of the intervals.
        prior_draws: virtual draws added to each pair that played; ``None``: none when the
            maximum-likelihood ratings exist, one when they do not (some group of agents won
            or lost every game against the others).

    Returns:
        An :class:`EloFit`. With two agents and no prior the rating difference is exactly
        :func:`elo_from_score` of the first agent's score.

    Raises:
        ValueError: fewer than two agents, an agent without games, or agents that are not all
            linked by games played (their relative strength is then unknown).
    """
    per_game = ((a, b, 1.0, score) for a, b, score in results)
    return _fit(
        _tables(per_game, agents, per_game=True), anchor, anchor_rating, confidence, prior_draws
    )


def fit_elo_totals(
    totals: Iterable[tuple[str, str, int, float]],
    *,
    agents: Sequence[str] | None = None,
    anchor: str | None = None,
    anchor_rating: float = 0.0,
    confidence: float = 0.95,
    prior_draws: float | None = None,
) -> EloFit:
    """:func:`fit_elo` from each pair's totals instead of one result per game: the same fit, in
    memory that does not grow with the games (what a long tournament rates from).

    Args:
        totals: ``(agent_a, agent_b, games, points_of_a)`` items (a pair may come several
            times: its items add up).
        agents: the agents to rate, as for :func:`fit_elo`.
        anchor: the agent whose rating is fixed, as for :func:`fit_elo`.
        anchor_rating: its rating.
        confidence: coverage of the intervals.
        prior_draws: virtual draws added to each pair that played, as for :func:`fit_elo`.

    Returns:
        An :class:`EloFit`, the same as :func:`fit_elo` of the games these totals sum up.

    Raises:
        ValueError: as :func:`fit_elo`; also points outside ``[0, games]``.
    """
    return _fit(_tables(totals, agents), anchor, anchor_rating, confidence, prior_draws)


def _fit(
    tables: tuple[list[str], np.ndarray, np.ndarray],
    anchor: str | None,
    anchor_rating: float,
    confidence: float,
    prior_draws: float | None,
) -> EloFit:
    """The fit of :func:`fit_elo` from :func:`_tables`."""
    names, games, points = tables
    if len(names) < 2:
        raise InvalidValueError(f"rating needs at least two agents, got {names}")
    played = games.sum(axis=1)
    for name, count in zip(names, played, strict=True):
        if count == 0:
            raise InvalidValueError(f"agent {name!r} has played no games: it cannot be rated")
    met = games > 0
    if len(_reachable(met, 0)) < len(names):
        apart = [names[i] for i in range(len(names)) if i not in _reachable(met, 0)]
        raise InvalidValueError(
            f"agents {apart} never played (directly or through others) against {names[0]!r}: "
            "their ratings cannot be compared"
        )
    anchor = names[0] if anchor is None else anchor
    if anchor not in names:
        raise InvalidValueError(f"anchor {anchor!r} is not among the agents {names}")
    scored = points > 0
    exists = len(_reachable(scored, 0)) == len(names) and len(_reachable(scored.T, 0)) == len(names)
    prior = (0.0 if exists else 1.0) if prior_draws is None else float(prior_draws)
    if prior < 0:
        raise InvalidValueError(f"prior_draws must be >= 0, got {prior_draws!r}")
    games = games + prior * met
    points = points + prior / 2.0 * met

    a = names.index(anchor)
    free = np.array([i for i in range(len(names)) if i != a])
    ratings = np.full(len(names), float(anchor_rating))
    for _ in range(200):  # Newton's method on a concave log-likelihood, with step halving
        gradient = _LN10_400 * (points - games * _win_probabilities(ratings)).sum(axis=1)
        info = _information(ratings, games)
        step = np.linalg.solve(info[np.ix_(free, free)], gradient[free])
        before = _log_likelihood(ratings, points)
        scale = 1.0
        while True:
            trial = ratings.copy()
            trial[free] += scale * step
            if _log_likelihood(trial, points) >= before - 1e-12 or scale < 1e-6:
                break
            scale /= 2.0
        ratings = trial
        if np.max(np.abs(scale * step)) < 1e-9:
            break
    info = _information(ratings, games)
    covariance = np.linalg.inv(info[np.ix_(free, free)])
    errors = np.zeros(len(names))
    errors[free] = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    z = _z(confidence)
    return EloFit(
        agents=tuple(names),
        ratings={n: float(ratings[i]) for i, n in enumerate(names)},
        intervals={
            n: (float(ratings[i] - z * errors[i]), float(ratings[i] + z * errors[i]))
            for i, n in enumerate(names)
        },
        errors={n: float(errors[i]) for i, n in enumerate(names)},
        games={n: round(played[i]) for i, n in enumerate(names)},
        points={
            n: float(points[i].sum() - prior / 2.0 * met[i].sum()) for i, n in enumerate(names)
        },
        anchor=anchor,
        anchor_rating=float(anchor_rating),
        confidence=confidence,
        prior_draws=prior,
    )

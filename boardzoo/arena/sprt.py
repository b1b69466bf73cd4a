"""A sequential probability ratio test (SPRT) on game pairs, as engine testers run it.

Chess engine testing (fishtest, cutechess-cli) decides "is A at least ``elo1`` stronger than B,
or at most ``elo0``?" with as few games as the evidence allows: games are played in pairs from
the same opening with colours swapped, and after each pair the log-likelihood ratio (LLR) of the
two hypotheses is compared with two bounds. The test stops at the first crossing:

- ``LLR >= upper = log((1 - beta) / alpha)``: H1 accepted (the first agent is ``elo1`` or more
  stronger; a false acceptance has probability about ``alpha``);
- ``LLR <= lower = log(beta / (1 - alpha))``: H0 accepted (it is ``elo0`` or weaker; wrongly so
  with probability about ``beta``).

The model is **pentanomial**: a pair scores 0, 1/2, 1, 3/2 or 2 points for the first agent
(LL; LD; WL or DD; WD; WW), and the data are the counts of these five outcomes. That is what
pairing gains: the two games of a pair are correlated (the opening favours one side), and the
pentanomial model uses it, where a trinomial model of single games would take them as
independent and need more games.

The LLR is the generalized SPRT of Michel Van den Bergh, the one fishtest uses: Elo bounds are
logistic Elo for the first agent, ``s = 1 / (1 + 10 ** (-elo / 400))`` being the expected score
per game. For each hypothesis ``s0``, ``s1`` the pentanomial distribution of largest likelihood
whose expected score (per game) is ``s`` is found by a one-dimensional root solve; the LLR is
``sum_i count_i * log(p1_i / p0_i)``. As in fishtest, an outcome never seen counts 0.001
instead of 0 (this keeps both maximum-likelihood distributions defined whatever the data).

References: A. Wald, "Sequential tests of statistical hypotheses" (1945); M. Van den Bergh,
"Maximum likelihood estimation of a multinomial distribution with a given expectation value"
and "A simple approximation for the GSPRT", notes on fishtest's statistics (Stockfish testing
framework, ``server/fishtest/stats/LLRcalc.py``).

    from boardzoo.arena.sprt import parse_sprt, sprt_test

    settings = parse_sprt("elo0=0,elo1=20")          # alpha = beta = 0.05
    llr, lower, upper, verdict = sprt_test((2, 10, 30, 14, 4), settings)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields
from numbers import Real

from boardzoo.arena.ratings import score_from_elo
from boardzoo.errors import InvalidValueError

__all__ = [
    "PAIR_OUTCOMES",
    "SPRT",
    "SPRTResult",
    "SequentialTest",
    "pair_outcome",
    "parse_sprt",
    "pentanomial_llr",
    "sprt_bounds",
    "sprt_test",
]

# The five outcomes of a game pair, as points of the first agent over the two games.
PAIR_OUTCOMES = (0.0, 0.5, 1.0, 1.5, 2.0)
# What an outcome never seen counts instead of 0 (fishtest's regularization).
_UNSEEN = 1e-3
_KEYS = ("elo0", "elo1", "alpha", "beta")


@dataclass(frozen=True)
class SPRT:
    """The hypotheses and error rates of a sequential test.

    Attributes:
        elo0: H0: the first agent's (logistic) Elo advantage is ``elo0`` or less.
        elo1: H1: it is ``elo1`` or more (``elo1 > elo0``).
        alpha: the chance of accepting H1 when H0 holds, in (0, 0.5).
        beta: the chance of accepting H0 when H1 holds, in (0, 0.5).

    Raises:
        ValueError: a value outside what is allowed (the message names it).
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, Real):
                raise InvalidValueError(f"sprt: {f.name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise InvalidValueError(
                    f"sprt: {f.name}={value!r} is not allowed: it must be finite"
                )
            object.__setattr__(self, f.name, float(value))
        if not self.elo1 > self.elo0:
            raise InvalidValueError(
                f"sprt: elo1={self.elo1:g} must be greater than elo0={self.elo0:g} "
                "(H1: the first agent is elo1 stronger; H0: elo0)"
            )
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise InvalidValueError(
                    f"sprt: {name}={value:g} is not allowed: it must be between 0 and 0.5 "
                    "(exclusive), e.g. 0.05"
                )

    @property
    def bounds(self) -> tuple[float, float]:
        """``(lower, upper)``: the LLR bounds of H0 and H1."""
        return sprt_bounds(self.alpha, self.beta)

    def __str__(self) -> str:
        return ",".join(f"{key}={getattr(self, key):g}" for key in _KEYS)


def parse_sprt(text: str | SPRT) -> SPRT:
    """The settings written as ``elo0=0,elo1=20[,alpha=0.05,beta=0.05]``.

    Args:
        text: ``key=value`` items separated by commas; ``elo0`` and ``elo1`` are required,
            ``alpha`` and ``beta`` default to 0.05.

    Raises:
        ValueError: an unknown or repeated key, a missing one, a value that is not a number or
            not allowed; the message names it and what is allowed.
    """
    if isinstance(text, SPRT):
        return text
    if not isinstance(text, str):
        raise InvalidValueError(f"sprt must be text like 'elo0=0,elo1=20', got {text!r}")
    values: dict[str, float] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        key, equals, raw = (part.strip() for part in item.partition("="))
        if not equals:
            raise InvalidValueError(
                f"sprt: {item!r} is not key=value; write e.g. elo0=0,elo1=20,alpha=0.05,beta=0.05"
            )
        if key not in _KEYS:
            raise InvalidValueError(f"sprt: unknown key {key!r}; allowed: {', '.join(_KEYS)}")
        if key in values:
            raise InvalidValueError(f"sprt: {key} is given twice in {text!r}")
        try:
            number = float(raw)
        except ValueError:
            raise InvalidValueError(
                f"sprt: {key}={raw} is not allowed: it must be a number"
            ) from None
        if not math.isfinite(number):
            raise InvalidValueError(f"sprt: {key}={raw} is not allowed: it must be finite")
        values[key] = number
    missing = [key for key in ("elo0", "elo1") if key not in values]
    if missing:
        raise InvalidValueError(
            f"sprt: {' and '.join(missing)} missing in {text!r}; write e.g. elo0=0,elo1=20"
        )
    return SPRT(**values)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the LLR: ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _constrained_mle(weights: Sequence[float], score: float) -> list[float]:
    """The pentanomial distribution of largest likelihood for the observed ``weights`` (all
    positive) whose expected score per game is ``score`` (0 < score < 1).

    The maximum is ``p_i = w_i / (1 + x (a_i - score))`` (``w`` normalized, ``a_i`` the outcomes
    per game: 0, 1/4, 1/2, 3/4, 1), where ``x`` solves ``sum_i w_i (a_i - score) / (1 + x (a_i -
    score)) = 0`` (Lagrange's condition for the constraint). The left side falls from +inf to -inf
    on the interval where every ``1 + x (a_i - score)`` is positive, so bisection finds the root.
    """
    total = sum(weights)
    w = [weight / total for weight in weights]
    d = [outcome / 2.0 - score for outcome in PAIR_OUTCOMES]
    low, high = -1.0 / d[-1], -1.0 / d[0]  # 1 + x * d > 0 for every d, strictly inside
    for _ in range(2000):
        middle = 0.5 * (low + high)
        if not low < middle < high:
            break  # the interval is as small as floating point allows
        slope = sum(wi * di / (1.0 + middle * di) for wi, di in zip(w, d, strict=True))
        if slope > 0.0:
            low = middle
        else:
            high = middle
    x = 0.5 * (low + high)
    return [wi / (1.0 + x * di) for wi, di in zip(w, d, strict=True)]


def _check_counts(counts: Sequence[int]) -> list[float]:
    if len(counts) != len(PAIR_OUTCOMES):
        raise InvalidValueError(
            f"pentanomial counts are 5 numbers (pairs scoring 0, 1/2, 1, 3/2, 2), got {counts!r}"
        )
    if any(isinstance(c, bool) or not isinstance(c, Real) or c < 0 for c in counts):
        raise InvalidValueError(f"pentanomial counts must be numbers >= 0, got {counts!r}")
    return [float(c) for c in counts]


def pentanomial_llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of H1 (Elo ``elo1``) against H0 (``elo0``).

    Args:
        counts: the number of pairs that scored 0, 1/2, 1, 3/2 and 2 points for the first agent.
        elo0: H0's logistic Elo advantage of the first agent.
        elo1: H1's.

    Returns:
        ``sum_i count_i * log(p1_i / p0_i)``, where ``p0`` and ``p1`` are the maximum-likelihood
        pentanomial distributions with expected scores ``s(elo0)`` and ``s(elo1)`` (outcomes never
        seen count 0.001, as in fishtest). 0 without any pair.
    """
    observed = _check_counts(counts)
    if sum(observed) == 0:
        return 0.0
    weights = [c if c > 0 else _UNSEEN for c in observed]
    p0 = _constrained_mle(weights, score_from_elo(elo0))
    p1 = _constrained_mle(weights, score_from_elo(elo1))
    return sum(c * math.log(b / a) for c, a, b in zip(weights, p0, p1, strict=True))


def sprt_test(counts: Sequence[int], settings: SPRT) -> tuple[float, float, float, str | None]:
    """The test on the pairs played so far.

    Args:
        counts: pentanomial counts (see :func:`pentanomial_llr`).
        settings: the hypotheses and error rates.

    Returns:
        ``(llr, lower, upper, verdict)``: the verdict is ``"H1"`` when ``llr >= upper``, ``"H0"``
        when ``llr <= lower``, else ``None`` (play on).
    """
    llr = pentanomial_llr(counts, settings.elo0, settings.elo1)
    lower, upper = settings.bounds
    verdict = "H1" if llr >= upper else "H0" if llr <= lower else None
    return llr, lower, upper, verdict


def pair_outcome(points: float) -> int:
    """The index in :data:`PAIR_OUTCOMES` of a pair that scored ``points`` (0 to 2)."""
    index = round(points * 2)
    if not 0 <= index < len(PAIR_OUTCOMES) or abs(index - points * 2) > 1e-9:
        raise InvalidValueError(f"a game pair scores 0, 0.5, 1, 1.5 or 2 points, got {points!r}")
    return index


@dataclass(frozen=True)
class SPRTResult:
    """Where a match's sequential test stands.

    Attributes:
        settings: the hypotheses and error rates.
        counts: pairs that scored 0, 1/2, 1, 3/2 and 2 points for the first agent, among those
            counted.
        llr: the log-likelihood ratio of those pairs.
        lower: the bound of H0.
        upper: the bound of H1.
        verdict: ``"H1"``, ``"H0"``, or ``None`` (undecided).
        pairs: pairs counted: pairs ``0, 1, ...`` in order, up to the one that decided.
        played: games in the records (those of pairs after the decision, or of a pair not
            complete, included).
    """

    settings: SPRT
    counts: tuple[int, int, int, int, int]
    llr: float
    lower: float
    upper: float
    verdict: str | None
    pairs: int
    played: int

    @property
    def games(self) -> int:
        """Games counted by the test (two per pair)."""
        return 2 * self.pairs

    @property
    def decided(self) -> bool:
        """Whether a hypothesis was accepted."""
        return self.verdict is not None

    @property
    def outcome(self) -> str:
        """``"H1 accepted"``, ``"H0 accepted"`` or ``"undecided at N games"``."""
        if self.verdict is None:
            return f"undecided at {self.played} games"
        return f"{self.verdict} accepted"


class SequentialTest:
    """The SPRT of a match, fed game by game in any order, decided on pairs in order.

    Pair ``i`` is games ``2i`` and ``2i + 1`` (the same opening, colours swapped). Pairs are
    counted in index order as soon as both their games and every earlier pair's are known, and
    the test stops at the first pair after which the LLR crosses a bound. So the verdict and the
    pairs it rests on depend only on the games, not on the order in which parallel workers finish
    them; games finished after the decision are kept but not counted.

    Args:
        settings: the hypotheses and error rates.
    """

    def __init__(self, settings: SPRT) -> None:
        self.settings = settings
        # the points of the games not counted yet (index 2 * pairs and on): a game is dropped
        # once its pair is counted, so memory stays flat however long the match runs
        self._points: dict[int, float] = {}
        self._counts = [0, 0, 0, 0, 0]
        self._pairs = 0
        self._llr = 0.0
        self._verdict: str | None = None

    @property
    def decided(self) -> bool:
        """Whether a hypothesis has been accepted (then no more games are needed)."""
        return self._verdict is not None

    @property
    def llr(self) -> float:
        """The LLR of the pairs counted so far."""
        return self._llr

    def add(self, game_index: int, points: float) -> None:
        """Count game ``game_index``, in which the first agent scored ``points`` (1, 1/2, 0).

        A game added again is ignored (the first one counts)."""
        if game_index < 2 * self._pairs:
            return  # its pair is counted already
        self._points.setdefault(game_index, float(points))
        while self._verdict is None:
            first, second = 2 * self._pairs, 2 * self._pairs + 1
            if first not in self._points or second not in self._points:
                return
            pair = self._points.pop(first) + self._points.pop(second)
            self._counts[pair_outcome(pair)] += 1
            self._pairs += 1
            self._llr, _, _, self._verdict = sprt_test(self._counts, self.settings)

    def result(self) -> SPRTResult:
        """Where the test stands."""
        lower, upper = self.settings.bounds
        return SPRTResult(
            settings=self.settings,
            counts=tuple(self._counts),  # type: ignore[arg-type]  # (five pentanomial counts)
            llr=self._llr,
            lower=lower,
            upper=upper,
            verdict=self._verdict,
            pairs=self._pairs,
            played=2 * self._pairs + len(self._points),
        )

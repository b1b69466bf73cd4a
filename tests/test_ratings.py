"""Scores, Elo and tournament ratings against values computed by hand."""

from __future__ import annotations

import math

import pytest

from boardzoo.arena import (
    ELO_CLIP,
    elo_from_score,
    elo_interval,
    fit_elo,
    score_from_elo,
    score_interval,
    wilson_interval,
)

Z = 1.959963984540054  # the 97.5% normal quantile
C = math.log(10) / 400  # d/dr of the logistic on the Elo scale, per unit of p(1-p)


def games(a: str, b: str, wins: int, draws: int, losses: int) -> list[tuple[str, str, float]]:
    return [(a, b, 1.0)] * wins + [(a, b, 0.5)] * draws + [(a, b, 0.0)] * losses


def test_wilson_interval_of_7_out_of_10():
    # by hand: centre (0.7 + z^2/20) / (1 + z^2/10), half-width
    # z / (1 + z^2/10) * sqrt(0.7 * 0.3 / 10 + z^2 / 400)
    centre = (0.7 + Z**2 / 20) / (1 + Z**2 / 10)
    half = Z / (1 + Z**2 / 10) * math.sqrt(0.021 + Z**2 / 400)
    low, high = wilson_interval(0.7, 10)
    assert (low, high) == pytest.approx((centre - half, centre + half))
    assert (low, high) == pytest.approx((0.3968, 0.8922), abs=1e-4)  # published tables


def test_draws_count_half_in_the_score_interval():
    assert score_interval(6, 2, 2) == pytest.approx((0.7, *wilson_interval(0.7, 10)))
    assert score_interval(0, 10, 0) == pytest.approx((0.5, *wilson_interval(0.5, 10)))
    score, low, high = score_interval(0, 0, 0)
    assert math.isnan(score) and (low, high) == (0.0, 1.0)
    assert wilson_interval(1.0, 5)[1] == 1.0 and wilson_interval(0.0, 5)[0] == 0.0
    narrower = wilson_interval(0.7, 100, confidence=0.5)
    assert narrower[1] - narrower[0] < wilson_interval(0.7, 100)[1] - wilson_interval(0.7, 100)[0]


def test_elo_from_score():
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))  # 190.8
    assert elo_from_score(0.25) == pytest.approx(-400 * math.log10(3))
    assert elo_from_score(1.0) == ELO_CLIP and elo_from_score(0.0) == -ELO_CLIP
    assert elo_from_score(0.999999) == ELO_CLIP
    assert elo_from_score(1.0, clip=800) == 800
    assert math.isnan(elo_from_score(math.nan))
    assert score_from_elo(elo_from_score(0.64)) == pytest.approx(0.64)
    with pytest.raises(ValueError, match="score"):
        elo_from_score(1.5)


def test_the_elo_interval_maps_the_score_interval():
    elo, low, high = elo_interval(6, 2, 2)
    s_low, s_high = wilson_interval(0.7, 10)
    assert elo == pytest.approx(400 * math.log10(7 / 3))
    assert (low, high) == pytest.approx((elo_from_score(s_low), elo_from_score(s_high)))
    perfect = elo_interval(10, 0, 0)  # a perfect score is clipped, its lower end is finite
    assert perfect[0] == perfect[2] == ELO_CLIP
    assert perfect[1] == pytest.approx(elo_from_score(10 / (10 + Z**2)))


def test_two_agents_fit_equals_the_score_formula():
    fit = fit_elo(games("a", "b", 6, 2, 2))
    assert fit.ratings["a"] == 0.0
    assert fit.ratings["b"] == pytest.approx(-elo_from_score(0.7), abs=1e-6)
    assert fit.prior_draws == 0.0
    # observed information of 10 games at p = 0.7: n * C^2 * p * (1 - p)
    se = 1 / math.sqrt(10 * C**2 * 0.7 * 0.3)
    assert fit.errors["b"] == pytest.approx(se, rel=1e-6)
    assert fit.intervals["b"] == pytest.approx(
        (fit.ratings["b"] - Z * se, fit.ratings["b"] + Z * se)
    )
    assert fit.intervals["a"] == (0.0, 0.0)
    assert fit.games == {"a": 10, "b": 10} and fit.points == {"a": 7.0, "b": 3.0}
    assert fit.ranking() == ["a", "b"]


def test_three_agents_with_symmetric_results():
    cycle = games("a", "b", 3, 0, 1) + games("b", "c", 3, 0, 1) + games("c", "a", 3, 0, 1)
    fit = fit_elo(cycle)
    assert fit.ratings == pytest.approx({"a": 0.0, "b": 0.0, "c": 0.0}, abs=1e-6)
    # a scores 3/4 against both b and c, who draw their games: b and c are equal, 190.8 below
    star = games("a", "b", 3, 0, 1) + games("a", "c", 3, 0, 1) + games("b", "c", 0, 4, 0)
    fit = fit_elo(star)
    assert fit.ratings["b"] == pytest.approx(-400 * math.log10(3), abs=1e-6)
    assert fit.ratings["c"] == pytest.approx(fit.ratings["b"], abs=1e-6)
    assert fit.errors["b"] == pytest.approx(fit.errors["c"])


def test_the_anchor_and_its_rating_only_shift_the_ratings():
    results = games("a", "b", 5, 1, 2) + games("b", "c", 4, 2, 2) + games("a", "c", 6, 0, 2)
    plain = fit_elo(results)
    shifted = fit_elo(results, anchor="b", anchor_rating=1500.0)
    assert shifted.ratings["b"] == 1500.0
    for agent in "ac":
        assert shifted.ratings[agent] - 1500.0 == pytest.approx(
            plain.ratings[agent] - plain.ratings["b"], abs=1e-6
        )
    ordered = fit_elo(results, agents=["c", "b", "a"])
    assert ordered.agents == ("c", "b", "a") and ordered.anchor == "c"


def test_a_perfect_score_gives_a_finite_rating_without_crashing():
    fit = fit_elo(games("a", "b", 10, 0, 0))
    assert fit.prior_draws == 1.0  # one virtual draw keeps it finite
    assert fit.ratings["b"] == pytest.approx(-400 * math.log10(10.5 / 0.5), abs=1e-6)
    assert all(math.isfinite(x) for pair in fit.intervals.values() for x in pair)
    assert fit.points == {"a": 10.0, "b": 0.0}
    chain = games("a", "b", 4, 0, 0) + games("b", "c", 4, 0, 0) + games("a", "c", 4, 0, 0)
    fit = fit_elo(chain)
    assert fit.ranking() == ["a", "b", "c"]
    assert fit_elo(games("a", "b", 10, 0, 0), prior_draws=2.0).ratings["b"] == pytest.approx(
        -400 * math.log10(11 / 1), abs=1e-6
    )


def test_fit_elo_rejects_what_cannot_be_rated():
    with pytest.raises(ValueError, match="at least two"):
        fit_elo([])
    with pytest.raises(ValueError, match="never played"):
        fit_elo(games("a", "b", 1, 0, 1) + games("c", "d", 1, 0, 1))
    with pytest.raises(ValueError, match="no games"):
        fit_elo(games("a", "b", 1, 0, 1), agents=["a", "b", "c"])
    with pytest.raises(ValueError, match="anchor"):
        fit_elo(games("a", "b", 1, 0, 1), anchor="z")
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        fit_elo([("a", "b", 2.0)])
    with pytest.raises(ValueError, match="itself"):
        fit_elo([("a", "a", 1.0)])

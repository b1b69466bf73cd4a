"""The sequential probability ratio test (``sprt=``, ``--sprt``): its LLR against independent
formulas, its bounds, its error rates on simulated matches, and real matches that stop early."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_cli import run_main

from boardzoo.arena import (
    SPRT,
    MatchResult,
    SequentialTest,
    parse_sprt,
    pentanomial_llr,
    play_match,
    read_records,
    render_match,
    sprt_bounds,
    sprt_test,
    without_timing,
)

OUTCOMES = (0.0, 0.25, 0.5, 0.75, 1.0)  # a pair's points per game


def score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


# --- the math -----------------------------------------------------------------------------------


def test_bounds_for_five_percent_errors_are_2_944():
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944, abs=5e-4)
    assert upper == pytest.approx(2.944, abs=5e-4)
    assert SPRT(0, 20).bounds == (lower, upper)
    # Wald: lower = log(beta / (1 - alpha)), upper = log((1 - beta) / alpha)
    assert sprt_bounds(0.1, 0.2) == pytest.approx((math.log(0.2 / 0.9), math.log(0.8 / 0.1)))


def test_llr_of_only_double_wins_and_losses_is_the_bernoulli_llr():
    # Pairs that are all LL or WW: the only pentanomial distribution on those two outcomes with
    # expected score s is (1 - s, 0, 0, 0, s), so the generalized LLR is Wald's Bernoulli LLR,
    # computed here by hand. (The unseen outcomes count 0.001 each, as in fishtest: a tiny shift.)
    losses, wins, elo0, elo1 = 10, 30, 0.0, 100.0
    s0, s1 = score(elo0), score(elo1)
    by_hand = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert by_hand == pytest.approx(4.1220, abs=1e-4)
    llr = pentanomial_llr((losses, 0, 0, 0, wins), elo0, elo1)
    assert llr == pytest.approx(by_hand, rel=1e-3)


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1"),
    [((20, 100, 300, 140, 40), 0, 10), ((2, 10, 30, 14, 4), 0, 20), ((50, 80, 200, 70, 40), -5, 5)],
)
def test_llr_agrees_with_the_published_approximations(counts, elo0, elo1):
    # M. Van den Bergh, "GSPRT approximation" (fishtest, server/fishtest/stats/LLRcalc.py):
    # LLR_alt = N/2 log(r0 / r1) with r = mean squared distance of the pair scores to s, and
    # LLR_alt2 = N (s1 - s0) (2 mean - s0 - s1) / (2 var). Both hold for small Elo differences.
    n = sum(counts)
    p = [c / n for c in counts]
    s0, s1 = score(elo0), score(elo1)
    r0, r1 = (sum(pi * (a - s) ** 2 for pi, a in zip(p, OUTCOMES, strict=True)) for s in (s0, s1))
    mean = sum(pi * a for pi, a in zip(p, OUTCOMES, strict=True))
    var = sum(pi * (a - mean) ** 2 for pi, a in zip(p, OUTCOMES, strict=True))
    alt = n / 2 * math.log(r0 / r1)
    alt2 = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    llr = pentanomial_llr(counts, elo0, elo1)
    assert llr == pytest.approx(alt, rel=0.01, abs=0.01)
    assert llr == pytest.approx(alt2, rel=0.03, abs=0.02)


def test_llr_symmetries_and_signs():
    counts = (3, 7, 20, 9, 5)
    llr = pentanomial_llr(counts, 0, 30)
    # swapping the hypotheses flips the sign; so does seeing the match from the other agent's
    # side (the counts reversed, the Elo negated: H0 at 0 becomes H1, H1 at 30 becomes H0 at -30)
    assert pentanomial_llr(counts, 30, 0) == pytest.approx(-llr)
    assert pentanomial_llr(counts[::-1], -30, 0) == pytest.approx(-llr)
    assert pentanomial_llr((0, 0, 0, 0, 0), 0, 30) == 0.0
    assert pentanomial_llr((0, 0, 0, 5, 20), 0, 30) > 0 > pentanomial_llr((20, 5, 0, 0, 0), 0, 30)
    llr, lower, upper, verdict = sprt_test((0, 0, 0, 5, 20), SPRT(0, 100))
    assert verdict == "H1" and llr >= upper and (lower, upper) == SPRT(0, 100).bounds
    assert sprt_test((0, 0, 0, 5, 20), SPRT(0, 30))[3] is None  # closer hypotheses: not yet
    assert sprt_test((1, 1, 2, 1, 1), SPRT(0, 100))[3] is None
    assert sprt_test((40, 20, 10, 0, 0), SPRT(0, 100))[3] == "H0"


def _simulate(p: np.ndarray, settings: SPRT, tests: int, seed: int) -> list[str | None]:
    """Run ``tests`` sequential tests on pairs drawn from the pentanomial distribution ``p``."""
    rng = np.random.default_rng(seed)
    games = [(0.0, 0.0), (0.5, 0.0), (1.0, 0.0), (1.0, 0.5), (1.0, 1.0)]
    verdicts = []
    for _ in range(tests):
        test = SequentialTest(settings)
        for i, outcome in enumerate(rng.choice(5, size=2000, p=p)):
            test.add(2 * i, games[outcome][0])
            test.add(2 * i + 1, games[outcome][1])
            if test.decided:
                break
        verdicts.append(test.result().verdict)
    return verdicts


def test_error_rates_on_simulated_matches_are_near_alpha_and_beta():
    settings = parse_sprt("elo0=0,elo1=80")
    even = np.array([0.1, 0.2, 0.4, 0.2, 0.1])  # expected score 1/2: H0 holds
    under_h0 = _simulate(even, settings, 100, seed=1)
    better = np.array([0.04, 0.13, 0.37, 0.25, 0.21])  # expected score s(82): H1 holds
    assert float(better @ OUTCOMES) == pytest.approx(score(80), abs=0.003)
    under_h1 = _simulate(better, settings, 100, seed=2)
    assert None not in under_h0 and None not in under_h1  # 2000 pairs is plenty
    assert under_h0.count("H1") / 100 <= 0.12  # alpha = 0.05
    assert under_h1.count("H0") / 100 <= 0.12  # beta = 0.05
    assert under_h0.count("H0") > 80 and under_h1.count("H1") > 80


def test_pairs_are_counted_in_order_whatever_order_games_finish():
    settings = SPRT(0, 200)
    # each double win adds log(s(200) / s(0)) = 0.42 (the Bernoulli step): the 8th pair crosses
    points = [1.0] * 16 + [0.0] * 4
    in_order = SequentialTest(settings)
    for index, p in enumerate(points):
        in_order.add(index, p)
    shuffled = SequentialTest(settings)
    order = [3, 1, 19, 0, *range(4, 19), 2]
    for index in order:
        shuffled.add(index, points[index])
        if index != 2:  # pair 1 waits for game 2: no pair after pair 0 is counted before it
            assert shuffled.result().pairs <= 1 and not shuffled.decided
    assert shuffled.result() == in_order.result()
    result = in_order.result()
    assert result.verdict == "H1" and result.outcome == "H1 accepted"
    # the test stopped at the pair that crossed the bound: later pairs are played, not counted
    assert result.pairs == 8 and result.games == 16 and result.played == 20
    assert result.counts == (0, 0, 0, 0, 8)
    assert result.llr >= result.upper
    partial = SequentialTest(settings)
    for index in (0, 1, 2):
        partial.add(index, 0.5)
    assert partial.result().outcome == "undecided at 3 games"
    assert partial.result().counts == (0, 0, 1, 0, 0)


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("elo0=0,elo=20", ["unknown key 'elo'", "allowed: elo0, elo1, alpha, beta"]),
        ("elo0=20,elo1=20", ["elo1=20 must be greater than elo0=20"]),
        ("elo0=5,elo1=-5", ["elo1=-5 must be greater than elo0=5"]),
        ("elo0=0,elo1=20,alpha=0.5", ["alpha=0.5 is not allowed", "between 0 and 0.5"]),
        ("elo0=0,elo1=20,beta=0", ["beta=0 is not allowed"]),
        ("elo0=0,elo1=lots", ["elo1=lots is not allowed: it must be a number"]),
        ("elo0=0,elo1=nan", ["elo1=nan is not allowed: it must be finite"]),
        ("elo0=0", ["elo1 missing"]),
        ("elo0=0,elo1=5,elo0=1", ["elo0 is given twice"]),
        ("elo0=0,elo1", ["'elo1' is not key=value"]),
    ],
)
def test_parser_errors_name_the_bad_value(text, fragments):
    with pytest.raises(ValueError) as error:
        parse_sprt(text)
    for fragment in fragments:
        assert fragment in str(error.value)


def test_parser_reads_the_settings():
    assert parse_sprt("elo0=0,elo1=20") == SPRT(0.0, 20.0, 0.05, 0.05)
    assert parse_sprt(" elo0=-5 , elo1=5, alpha=0.1,beta=0.2 ") == SPRT(-5, 5, 0.1, 0.2)
    assert str(parse_sprt("elo1=20,elo0=0")) == "elo0=0,elo1=20,alpha=0.05,beta=0.05"
    with pytest.raises(ValueError, match=r"alpha=0\.7"):
        SPRT(0, 10, alpha=0.7)


# --- matches ------------------------------------------------------------------------------------


def test_a_lopsided_match_stops_early_with_h1_for_the_stronger_agent(tmp_path):
    kwargs = {"games": 200, "sprt": "elo0=0,elo1=100", "progress": False, "isolate": False}
    strong = play_match("tictactoe", ("mcts:simulations=200", "random"), **kwargs)
    assert strong.sprt is not None
    assert strong.sprt.verdict == "H1"
    assert strong.games <= 60  # well before the cap of 200
    assert strong.games == strong.sprt.games  # one worker: no game after the decision
    assert strong.settings.pair_openings and strong.settings.opening_plies == 4
    text = render_match(strong)
    assert "H1 accepted after" in text and "LLR " in text and "bounds -2.94, 2.94" in text
    counts = ", ".join(str(c) for c in strong.sprt.counts)
    assert f"pairs scoring 0, 1/2, 1, 3/2, 2 for mcts:simulations=200: {counts}" in text
    weak = play_match("tictactoe", ("random", "mcts:simulations=200"), **kwargs)
    assert weak.sprt is not None and weak.sprt.verdict == "H0" and weak.games <= 60
    # two workers: the same verdict on the same pairs (counted in order, whichever game ends
    # first); games that ended or were in play before the decision was known are kept
    two = play_match("tictactoe", ("mcts:simulations=200", "random"), workers=2,
                     out=tmp_path / "two.jsonl", **kwargs)  # fmt: skip
    assert two.sprt is not None
    assert (two.sprt.verdict, two.sprt.pairs, two.sprt.counts) == (
        "H1",
        strong.sprt.pairs,
        strong.sprt.counts,
    )
    # the decision waits for the pairs in order: while one worker process is slow to start
    # (a loaded machine), the other plays on, so how many games were kept depends on timing
    assert two.sprt.games <= two.games < 200
    assert len(read_records(tmp_path / "two.jsonl")) == two.games


def test_an_even_match_does_not_accept_h1():
    result = play_match("tictactoe", ("random", "random"), games=100, sprt="elo0=0,elo1=50",
                        progress=False, isolate=False)  # fmt: skip
    assert result.sprt is not None
    assert result.sprt.verdict != "H1"
    if result.sprt.verdict is None:
        assert result.games == 100
        assert "undecided at 100 games" in render_match(result)
    # the same games do accept H1 against hypotheses they clearly beat: the test can say yes
    shifted = MatchResult.from_records(result.records, result.settings, sprt="elo0=-300,elo1=-200")
    assert shifted.sprt is not None and shifted.sprt.verdict == "H1"


def test_resume_continues_the_test_from_the_records(tmp_path):
    out = tmp_path / "m.jsonl"
    kwargs = {"sprt": "elo0=0,elo1=100", "progress": False, "isolate": False, "out": out}
    agents = ("mcts:simulations=200", "random")
    first = play_match("tictactoe", agents, games=6, **kwargs)
    assert first.sprt is not None and first.sprt.outcome == "undecided at 6 games"
    resumed = play_match("tictactoe", agents, games=200, resume=True, **kwargs)
    fresh = play_match("tictactoe", agents, games=200, **{**kwargs, "out": None})
    assert resumed.sprt == fresh.sprt and resumed.sprt is not None and resumed.sprt.decided
    assert [without_timing(r) for r in resumed.records] == [
        without_timing(r) for r in fresh.records
    ]
    # a decided test plays nothing more
    again = play_match("tictactoe", agents, games=200, resume=True, **kwargs)
    assert len(read_records(out)) == resumed.games == again.games


def test_cli_sprt_runs_and_its_mistakes_are_one_line(tmp_path, capsys):
    out = tmp_path / "m.jsonl"
    result = run_main(capsys, "arena", "tictactoe", "random", "random", "--sprt",
                      "elo0=0,elo1=50", "--games", "4", "--out", str(out), "--no-progress",
                      "--no-isolate")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "SPRT elo0=0 elo1=50 alpha=0.05 beta=0.05: undecided at 4 games" in result.stdout
    assert "Openings: 4 random opening plies, each opening played twice" in result.stdout
    for bad, fragment in [
        ("elo0=0,elo=50", "--sprt: unknown key 'elo'"),
        ("elo0=0,elo1=50,alpha=0.9", "alpha=0.9 is not allowed"),
    ]:
        failed = run_main(capsys, "arena", "tictactoe", "random", "random", "--sprt", bad,
                          "--out", str(tmp_path / "never.jsonl"))  # fmt: skip
        assert failed.returncode == 2 and "Traceback" not in failed.stderr
        errors = [line for line in failed.stderr.splitlines() if "error:" in line]
        assert len(errors) == 1 and fragment in errors[0], failed.stderr
    assert not (tmp_path / "never.jsonl").exists()

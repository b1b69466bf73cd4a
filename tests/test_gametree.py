"""The depth-first search's template, table and drivers against facts from outside the code.

- ``alphabeta:depth=N`` is the template with every idea off: on 232 fixed positions of every game
  (TicTacToe, Connect Four, Reversi 4x4, 6x6 and 8x8; the game's and the learned evaluation;
  depths 1 to 9; seeded tie-breaking) it plays the same move, with the same score, after the same
  number of nodes as the separate alpha-beta search it replaced. The record,
  ``tests/data/alphabeta_depth_record.json``, was written by that search (commit 11bac9d,
  ``boardzoo/agents/alphabeta_kernels.py``): for each case the game and its options, the moves
  from the start, the depth, the evaluation, the seed, and the agent's ``action``, ``score``,
  ``nodes`` and ``exact``. The learned evaluation is the nets shipped then: Reversi 8x8's, the
  TD net shipped until 2026-11-29, is ``benchmarks/results/fit/td-reversi-8x8.npz``.
- The table keeps what it is told and gives it back (hand-checked bounds, moves, drafts), never
  mixes up two positions, and keeps the deeper entry of a search in a full bucket.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from boardzoo.agents import alphabeta
from boardzoo.agents.alphabeta import AlphaBetaAgent
from boardzoo.budget import NODES
from boardzoo.games.catalog import make_game
from boardzoo.games.spec import Game
from boardzoo.gametree.table import ABSENT, NO_BOUND, bucket_of, new_table, probe, store
from boardzoo.learned.ntuple import NTupleNet, load_net, load_net_file

RECORD = Path(__file__).parent / "data" / "alphabeta_depth_record.json"
TD_NET = Path(__file__).parents[1] / "benchmarks" / "results" / "fit" / "td-reversi-8x8.npz"


def _cases() -> list[dict]:
    return json.loads(RECORD.read_text())


def test_plain_alpha_beta_plays_as_the_search_it_replaced(monkeypatch):
    td_net = load_net_file(TD_NET)

    def nets_then(game: Game) -> NTupleNet:
        return td_net if game.file_stem == "reversi-8x8" else load_net(game)

    monkeypatch.setattr(alphabeta, "load_net", nets_then)
    cases = _cases()
    assert len(cases) == 232
    different = []
    for case in cases:
        state = make_game(case["game"], **case["options"]).initial_state()
        for action in case["moves"]:
            state = state.apply(action)
        agent = AlphaBetaAgent(
            depth=case["depth"], exact_empties=0, eval=case["eval"], seed=case["seed"]
        )
        info = agent.search(state)
        got = (info.action, info.score, info.nodes, info.exact)
        if got != (case["action"], case["score"], case["nodes"], case["exact"]):
            different.append((case["game"], case["moves"], case["depth"], case["eval"], got))
    assert not different, different[:5]


def _u(value: int) -> np.uint64:
    return np.uint64(value)


def test_the_table_gives_back_what_it_keeps():
    keys, _ = new_table(10)
    x, y = _u(0x0000001008000000), _u(0x0000000810000000)
    bucket = bucket_of(x, y, 0, keys)
    assert probe(x, y, 0, bucket, keys)[:4] == (False, -ABSENT, ABSENT, -2)
    # A search of the window (-5, 5) to depth 4 that failed high at 7 with move 19: a lower bound.
    store(x, y, 0, bucket, 4, False, -5, 5, 7, 19, 1, keys)
    assert probe(x, y, 0, bucket, keys) == (True, 7, NO_BOUND, 19, 4, False)
    # The same position, the same draft, failing low at 9: the bounds narrow to [7, 9].
    store(x, y, 0, bucket, 4, False, 9, 20, 9, -1, 1, keys)
    assert probe(x, y, 0, bucket, keys) == (True, 7, 9, 19, 4, False)
    # Exact: both bounds; the other side to move is another position.
    store(x, y, 0, bucket, 6, True, -64, 64, -12, 3, 1, keys)
    assert probe(x, y, 0, bucket, keys) == (True, -12, -12, 3, 6, True)
    assert not probe(x, y, 1, bucket_of(x, y, 1, keys), keys)[0]


def test_a_full_bucket_keeps_the_deeper_entry_of_the_search_and_drops_older_searches():
    keys, _ = new_table(10)
    rng = np.random.default_rng(5)
    # Three positions of one bucket (found by trying random ones).
    target = bucket_of(_u(1), _u(2), 0, keys)
    same: list[tuple[np.uint64, np.uint64]] = []
    while len(same) < 3:
        x, y = _u(int(rng.integers(1 << 62))), _u(int(rng.integers(1 << 62)))
        if bucket_of(x, y, 0, keys) == target:
            same.append((x, y))
    (x1, y1), (x2, y2), (x3, y3) = same
    store(x1, y1, 0, target, 9, False, 0, 1, 5, 1, 7, keys)
    store(x2, y2, 0, target, 3, False, 0, 1, 5, 2, 7, keys)
    store(x3, y3, 0, target, 5, False, 0, 1, 5, 3, 7, keys)  # the shallower (3) goes
    assert probe(x1, y1, 0, target, keys)[0] and probe(x3, y3, 0, target, keys)[0]
    assert not probe(x2, y2, 0, target, keys)[0]
    store(x2, y2, 0, target, 1, False, 0, 1, 5, 2, 8, keys)  # a new search: the old entries go
    store(x2, y2, 0, target, 1, False, 0, 1, 5, 2, 8, keys)
    assert probe(x2, y2, 0, target, keys)[0]
    assert probe(x1, y1, 0, target, keys)[0] != probe(x3, y3, 0, target, keys)[0]


@pytest.mark.parametrize("bits", [10, 14])
def test_a_fresh_table_is_empty_and_aligned_to_cache_lines(bits):
    keys, data = new_table(bits)
    assert keys.shape == (1 << bits, 4) and not keys.any() and keys.ctypes.data % 64 == 0
    assert data.shape == (1, 4)


def test_a_search_looked_at_its_clock_from_its_first_node_after_an_aspiration_miss():
    """Every root search of the driver, the full-window one after an aspiration window missed
    included, looks at its clock and budget on its first node: a re-search that kept the first
    search's next look (hundreds of thousands of nodes on) ran past the deadline by as long.
    An aspiration window of 1 makes nearly every iteration search twice."""
    from boardzoo.gametree.deepening import Deepening, IterativeDeepening
    from boardzoo.gametree.settings import ENGINE
    from boardzoo.gametree.template import LOOK_AT

    game = make_game("reversi")
    driver = IterativeDeepening(game, ENGINE, Deepening(aspiration=1), table_bits=16)
    search_root = driver.copies["search_root"]
    entries: list[tuple[int, int]] = []

    def recorded(*args):
        counters = args[8]
        entries.append((int(counters[NODES]), int(counters[LOOK_AT])))
        return search_root(*args)

    driver.copies = {**driver.copies, "search_root": recorded}
    state = game.initial_state()
    s0, s1 = (np.uint64(b) for b in state.bitboards())
    root = np.array([19, 26, 37, 44], dtype=np.int64)
    driver.search(s0, s1, 0, root, list(range(1, 7)))
    assert len(entries) > 6  # some iterations searched again
    assert all(look_at <= nodes for nodes, look_at in entries), entries

"""The MCTS enhancements, each on a small position: what it does is checked against a hand count,
the game's own evaluation kernel, or exhaustive minimax written here (never the search itself).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from reference_tictactoe import ttt_best_actions, ttt_value

from boardzoo.agents import MCTSAgent
from boardzoo.agents.mcts import enhanced as en
from boardzoo.agents.mcts import tree as tr
from boardzoo.agents.mcts.enhanced_search import EnhancedSearcher, Enhancements
from boardzoo.agents.mcts.search import ROLLOUT_RANDOM, Searcher, SearchSettings
from boardzoo.agents.registry import AgentSpecError, make_agent
from boardzoo.games import ReversiState, TicTacToeState
from boardzoo.games.catalog import make_game
from boardzoo.games.connect_four import ConnectFourState

SETTINGS = SearchSettings(c=math.sqrt(2.0), solver=False, rollout_policy=ROLLOUT_RANDOM)


def searcher_for(state, enhancements: Enhancements, seed: int = 0, nodes: int = 100_000):
    searcher = EnhancedSearcher(SETTINGS, enhancements, nodes, seed)
    searcher.set_root(state, reuse=False)
    return searcher


def root_children(searcher) -> range:
    tree = searcher.tree
    root = int(tree.meta[tr.ROOT])
    first = int(tree.first_child[root])
    return range(first, first + int(tree.num_children[root]))


def mover_value(state, game) -> float:
    """The hand-made evaluation of a position in play for the player to move, in (-1, 1):
    the game's ``evaluate`` kernel read as the issue says, tanh(v / evaluation_scale)."""
    s0, s1 = (np.uint64(b) for b in state.bitboards())
    player = state.current_player
    moves = game.kernels.placements(s0, s1, player, game.params)
    score = game.kernels.evaluate(s0, s1, player, np.uint64(moves), game.params)
    return math.tanh(score / game.spec.evaluation_scale)


def heuristic_for_mover(state, action, game) -> float:
    """The evaluation of playing ``action`` in [0, 1] for the player who plays it."""
    child = state.apply(action)
    if child.is_terminal():
        first, _ = child.returns()
        score0 = 1.0 if first > 0 else 0.0 if first < 0 else 0.5
        return score0 if state.current_player == 0 else 1.0 - score0
    value = mover_value(child, game)
    same = child.current_player == state.current_player
    return 0.5 + 0.5 * value if same else 0.5 - 0.5 * value


# --- everything off is plain UCT ------------------------------------------------------------------


@pytest.mark.parametrize(
    "state", [ReversiState.initial(6), ConnectFourState(), TicTacToeState()], ids=str
)
def test_the_enhanced_loop_with_everything_off_is_plain_uct(state):
    plain = Searcher(SETTINGS, 50_000, seed=5)
    plain.set_root(state, reuse=False)
    enhanced = searcher_for(state, Enhancements(), seed=5, nodes=50_000)
    enhanced.thread_rng[0] = plain.rng_state
    plain.run(3000, None)
    enhanced.run(3000, None)
    for tree in (plain.tree, enhanced.tree):
        assert int(tree.visits[0]) == 3000
    count = int(plain.tree.meta[tr.NODE_COUNT])
    assert int(enhanced.tree.meta[tr.NODE_COUNT]) == count
    for field in ("visits", "value", "action", "first_child", "num_expanded"):
        assert np.array_equal(
            getattr(plain.tree, field)[:count], getattr(enhanced.tree, field)[:count]
        )


def test_the_plain_agent_does_not_take_the_enhanced_loop():
    agent = MCTSAgent(simulations=10, seed=0)
    agent.search(TicTacToeState())
    assert not agent.enhancements.active
    assert type(agent._searchers[0]) is Searcher


# --- RAVE -----------------------------------------------------------------------------------------

# X to move, three empty squares, and every way to fill them is a draw: X fills exactly two of
# them in each simulation (one from the root, one at the end).
THREE_EMPTY_DRAW = ". X O\nO . X\nX O ."


def test_rave_counts_exactly_the_cells_the_root_player_filled():
    state = TicTacToeState.from_text(THREE_EMPTY_DRAW)
    assert state.current_player == 0 and len(state.legal_actions()) == 3
    assert ttt_value(state) == 0 and all(
        ttt_value(state.apply(a)) == 0 for a in state.legal_actions()
    )
    sims = 200
    searcher = searcher_for(state, Enhancements(rave_k=300.0))
    searcher.run(sims, None)
    extras = searcher.extras
    children = root_children(searcher)
    amaf = [int(extras.amaf_visits[c]) for c in children]
    # Hand count: X fills two of the three squares in every simulation, so the root's children
    # are credited 2 * sims times in all, each at most once a simulation, each a draw (0.5).
    assert sum(amaf) == 2 * sims
    assert all(0 < a <= sims for a in amaf)
    for child in children:
        assert extras.amaf_value[child] == pytest.approx(0.5 * extras.amaf_visits[child])
    # A child is credited in every simulation that went through it (X filled its square then).
    for child in children:
        assert extras.amaf_visits[child] >= searcher.tree.visits[child]


def test_amaf_update_by_hand():
    """One simulation through a hand-built path: X (player 0) a at the root, O b, then the playout
    O? no: X c, O d; X wins. The root's children credited are X's cells a and c."""
    game = make_game("tictactoe")
    state = TicTacToeState()
    searcher = searcher_for(state, Enhancements(rave_k=1.0))
    tree, extras = searcher.tree, searcher.extras
    run = en.compiled_enhanced(game)
    # Expand the root by hand through the compiled expansion (9 children, random order).
    ok, _ = run["expand"](
        tree,
        extras,
        en.new_scratch(),
        0,
        searcher._opts,
        0,
        game.params,
        searcher._net,
        np.uint64(1),
    )
    assert ok
    cells_of = {int(extras.cell[c]): c for c in root_children(searcher)}
    path = np.array([0, cells_of[4]] + [0] * 8, dtype=np.int64)
    # The sequence: X 4 (tree), O 0, X 8, O 2, X 6 (playout).
    cells = np.array([4, 0, 8, 2, 6] + [0] * 5, dtype=np.int64)
    players = np.array([0, 1, 0, 1, 0] + [0] * 5, dtype=np.int64)
    en.update_amaf(tree, extras, path, 2, cells, players, 5, 1.0)
    credited = {cell for cell, c in cells_of.items() if extras.amaf_visits[c] > 0}
    assert credited == {4, 8, 6}
    assert all(extras.amaf_value[cells_of[c]] == 1.0 for c in credited)


def test_rave_plays_the_winning_move():
    state = TicTacToeState.from_text("X X .\nO O .\n. . .")
    info = MCTSAgent(simulations=2000, rave=True, seed=1).search(state)
    assert info.action == 2


# --- progressive bias and widening ----------------------------------------------------------------


def reversi_position(seed: int, plies: int) -> ReversiState:
    rng = np.random.default_rng(seed)
    state = ReversiState.initial(8)
    for _ in range(plies):
        state = state.apply(int(rng.choice(state.legal_actions())))
    return state


def test_widening_opens_children_in_the_order_of_the_evaluation():
    game = make_game("reversi", board_size=8)
    state = reversi_position(3, 20)
    moves = state.legal_actions()
    assert len(moves) >= 6
    sims = 30
    searcher = searcher_for(state, Enhancements(widening_k=1.0, widening_alpha=0.5))
    searcher.run(sims, None)
    tree = searcher.tree
    children = list(root_children(searcher))
    heur = {a: heuristic_for_mover(state, a, game) for a in moves}
    # Children sit best first by the game's evaluation (computed here from the kernel).
    in_order = [heur[int(tree.action[c])] for c in children]
    assert in_order == sorted(in_order, reverse=True)
    # ceil(1 * n ** 0.5) children are open after n visits of the root (one opens a visit).
    opened = int(tree.num_expanded[0])
    assert opened == math.ceil(math.sqrt(sims - 1)) or opened == math.ceil(math.sqrt(sims))
    assert opened < len(moves)
    assert all(int(tree.visits[c]) == 0 for c in children[opened:])


def test_progressive_bias_steers_a_short_search_to_the_best_evaluated_move():
    game = make_game("reversi", board_size=8)
    state = reversi_position(7, 16)
    heur = {a: heuristic_for_mover(state, a, game) for a in state.legal_actions()}
    best = max(heur, key=heur.get)
    assert sorted(heur.values())[-1] - sorted(heur.values())[-2] > 0.02
    info = MCTSAgent(simulations=300, progressive_bias=1000.0, seed=0).search(state)
    assert info.action == best


# --- cut-offs, implicit minimax, learned evaluation -----------------------------------------------


def test_cutoff_zero_scores_a_new_leaf_by_the_evaluation():
    game = make_game("connect_four")
    state = ConnectFourState().apply(3).apply(3).apply(2)
    searcher = searcher_for(state, Enhancements(cutoff=0))
    searcher.run(len(state.legal_actions()), None)  # each child once (the first with the root)
    tree = searcher.tree
    for child in root_children(searcher):
        assert int(tree.visits[child]) == 1
        position = state.apply(int(tree.action[child]))
        value = mover_value(position, game)  # for the player to move there, the opponent
        assert tree.value[child] == pytest.approx(0.5 - 0.5 * value)


def test_learned_evaluation_scores_new_leaves_with_the_shipped_net():
    from boardzoo.learned import load_net, ntuple_value

    game = make_game("reversi", board_size=8)
    net = load_net(game)
    state = reversi_position(1, 10)
    searcher = searcher_for(state, Enhancements(cutoff=0, learned_eval=True))
    searcher.run(len(state.legal_actions()), None)
    tree = searcher.tree
    for child in root_children(searcher):
        position = state.apply(int(tree.action[child]))
        s0, s1 = (np.uint64(b) for b in position.bitboards())
        value = ntuple_value(s0, s1, position.current_player, game.params, net)
        same = position.current_player == state.current_player
        assert tree.value[child] == pytest.approx(0.5 + 0.5 * value if same else 0.5 - 0.5 * value)


def test_implicit_minimax_backs_up_the_evaluations_below():
    game = make_game("connect_four")
    state = ConnectFourState().apply(3)
    searcher = searcher_for(state, Enhancements(minimax_weight=0.5))
    searcher.run(300, None)
    tree, extras = searcher.tree, searcher.extras
    checked = 0
    for child in root_children(searcher):
        first = int(tree.first_child[child])
        if first == tr.NO_NODE or int(tree.visits[child]) < 3:
            continue
        position = state.apply(int(tree.action[child]))
        grandchildren = range(first, first + int(tree.num_children[child]))
        # Leaves below the child keep the game's evaluation, seen by the player who moved there.
        for g in grandchildren:
            if int(tree.first_child[g]) == tr.NO_NODE:
                assert extras.mm[g] == pytest.approx(
                    heuristic_for_mover(position, int(tree.action[g]), game), abs=1e-6
                )
        # The child is worth 1 - (the opponent's best reply) to the root player.
        best_reply = max(float(extras.mm[g]) for g in grandchildren)
        assert extras.mm[child] == pytest.approx(1.0 - best_reply, abs=1e-6)
        checked += 1
    assert checked >= 3


def test_minimax_with_an_evaluation_finds_a_connect_four_win_in_one():
    state = ConnectFourState()
    for column in (0, 6, 1, 6, 2):
        state = state.apply(column)
    info = MCTSAgent(simulations=200, minimax_weight=0.5, seed=0).search(state.apply(5))
    assert info.action == 3


# --- last good reply with forgetting --------------------------------------------------------------


def test_last_good_reply_is_remembered_for_the_winner_and_forgotten_for_the_loser():
    extras = en.new_extras(10, 1)
    cells = np.array([5, 7, 3, 9], dtype=np.int64)
    players = np.array([0, 1, 0, 1], dtype=np.int64)
    extras.lgr[1, 3] = 9  # player 1 answered 3 with 9 before
    en.update_replies(extras, cells, players, 4, 1.0)  # player 0 won
    assert extras.lgr[0, 7] == 3  # the winner's reply to 7
    assert extras.lgr[1, 5] == en.NO_REPLY  # never stored for the loser
    assert extras.lgr[1, 3] == en.NO_REPLY  # the loser's old reply is forgotten
    en.update_replies(extras, cells, players, 4, 0.5)  # a draw changes nothing
    assert extras.lgr[0, 7] == 3


def test_lgrf_playouts_fill_the_reply_table_and_play_well():
    state = TicTacToeState.from_text("X X .\nO O .\n. . .")
    agent = MCTSAgent(simulations=2000, rollout="lgrf", seed=2)
    assert agent.search(state).action == 2
    agent = MCTSAgent(simulations=500, rollout="lgrf", seed=2, reuse_tree=True)
    agent.search(ReversiState.initial(6))
    assert (agent._searchers[0].extras.lgr >= 0).sum() > 10


# --- criticality ----------------------------------------------------------------------------------


def test_criticality_by_hand():
    extras = en.new_extras(10, 1)
    # Four playouts on cells 0 and 1. Cell 0: player 0 owns it and wins twice, player 1 owns it
    # and wins twice, so owning it goes with winning every time. Cell 1: owned by player 0
    # every time, who wins half of them.
    for score0, s0, s1 in ((1.0, 0b11, 0), (1.0, 0b11, 0), (0.0, 0b10, 0b01), (0.0, 0b10, 0b01)):
        en.update_criticality(extras, np.uint64(s0), np.uint64(s1), score0)
    extras.crit[en.CRIT_TOTALS, 0] *= 8  # pass the minimum playout count with the same ratios
    extras.crit[en.CRIT_TOTALS, 1:] *= 8
    extras.crit[:3] *= 8
    # Coulom: P(owner wins) - (P(own0) P(win0) + P(own1) P(win1))
    assert en.criticality(extras, 0) == pytest.approx(1.0 - (0.5 * 0.5 + 0.5 * 0.5))
    assert en.criticality(extras, 1) == pytest.approx(0.5 - (1.0 * 0.5 + 0.0 * 0.5))
    assert en.criticality(extras, -1) == 0.0  # a pass has no square


def test_criticality_search_counts_every_finished_playout():
    searcher = searcher_for(ConnectFourState(), Enhancements(criticality=1.0))
    searcher.run(500, None)
    crit = searcher.extras.crit
    assert crit[en.CRIT_TOTALS, 0] == 500
    assert crit[en.CRIT_TOTALS, 1] + crit[en.CRIT_TOTALS, 2] == pytest.approx(500)


# --- tree parallelism -----------------------------------------------------------------------------


@pytest.mark.parametrize("threads", [1, 2])
def test_threads_prove_the_same_tictactoe_results(threads):
    info = MCTSAgent(simulations=300_000, solver=True, threads=threads, seed=0).search(
        TicTacToeState()
    )
    assert info.proven == "draw"
    state = TicTacToeState.from_text("X . .\n. O .\n. . .")  # X to move: a draw with best play
    assert state.current_player == 0
    info = MCTSAgent(simulations=300_000, solver=True, threads=threads, seed=0).search(state)
    assert info.proven == "draw" and info.action in ttt_best_actions(state)
    state = TicTacToeState.from_text("X O .\n. . .\n. . .")  # X to move wins by force
    assert state.current_player == 0 and ttt_value(state) == 1
    info = MCTSAgent(simulations=300_000, solver=True, threads=threads, seed=0).search(state)
    assert info.proven == "win" and info.action in ttt_best_actions(state)


def test_two_threads_share_one_tree_and_leave_no_virtual_loss():
    agent = MCTSAgent(simulations=20_000, threads=2, virtual_loss=3, seed=0)
    info = agent.search(ReversiState.initial(8))
    tree = agent._searchers[0].tree
    root = int(tree.meta[tr.ROOT])
    # Lock-free updates may lose a rare increment, never leave a virtual loss behind.
    assert 0.98 * info.simulations <= int(tree.visits[root]) <= info.simulations
    children = range(
        int(tree.first_child[root]), int(tree.first_child[root]) + int(tree.num_expanded[root])
    )
    assert (
        abs(sum(int(tree.visits[c]) for c in children) - int(tree.visits[root]))
        <= 0.02 * info.simulations
    )
    assert all(0.0 <= tree.value[c] <= tree.visits[c] for c in children)
    # The nodes reported are the ones the threads made; a block made twice by a race (the loser
    # is dropped) is rare.
    reachable, frontier = 1, [root]
    while frontier:
        node = frontier.pop()
        first = int(tree.first_child[node])
        if first != tr.NO_NODE:
            reachable += int(tree.num_children[node])
            frontier.extend(range(first, first + int(tree.num_children[node])))
    assert reachable <= info.tree_nodes <= 1.02 * reachable


def test_enhanced_tree_reuse_keeps_the_subtree_and_its_statistics():
    agent = MCTSAgent(simulations=3000, rave=True, reuse_tree=True, seed=0)
    state = ReversiState.initial(6)
    info = agent.search(state)
    state = state.apply(info.action)
    state = state.apply(state.legal_actions()[0])
    again = agent.search(state)
    assert again.reused_tree
    extras = agent._searchers[0].extras
    assert int(extras.amaf_visits[: int(agent._searchers[0].tree.meta[tr.NODE_COUNT])].sum()) > 0


# --- options, presets and errors ------------------------------------------------------------------


def test_every_option_plays_legal_games_through_the_registry():
    game = make_game("reversi", board_size=6)
    for options in (
        "rave=true",
        "progressive_bias=1",
        "progressive_widening=true",
        "rollout=lgrf",
        "criticality=1",
        "cutoff=4",
        "minimax_weight=0.3",
        "threads=2",
        "preset=strong,eval=hand",
    ):
        agent = make_agent(f"mcts:simulations=200,{options}", seed=0)
        state = game.initial_state()
        while not state.is_terminal():
            action = agent.search(state).action
            assert action in state.legal_actions()
            state = state.apply(action)


def test_preset_fills_the_options_left_at_their_defaults():
    agent = make_agent("mcts:simulations=50,preset=strong,cutoff=2", seed=0)
    agent.prepare(make_game("connect_four"))
    assert agent.enhancements.cutoff == 2  # given explicitly
    assert agent.enhancements.minimax_weight > 0  # from the preset


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("mcts:threads=0", "threads=0"),
        ("mcts:minimax_weight=2", "minimax_weight=2"),
        ("mcts:cutoff=-1", "cutoff=-1"),
        ("mcts:eval=magic", "eval=magic"),
        ("mcts:preset=weak", "preset"),
        ("mcts:progressive_bias=-1", "progressive_bias=-1"),
    ],
)
def test_bad_options_are_named(spec, words):
    with pytest.raises(AgentSpecError, match=words.replace("(", r"\(")):
        make_agent(spec)


def test_heuristic_rollouts_cannot_be_recorded():
    agent = MCTSAgent(simulations=10, rave=True, rollout="heuristic")
    with pytest.raises(ValueError, match="rollout=heuristic"):
        agent.search(ReversiState.initial(6))


def test_enhancements_refuse_prior_functions():
    with pytest.raises(ValueError, match="enhancements"):
        MCTSAgent(simulations=10, rave=True, prior_fn=lambda s: np.ones(s.num_actions))

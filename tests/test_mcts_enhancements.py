"""The MCTS enhancements, each on a small position: what it does is checked against a hand count,
the game's own evaluation kernel, or exhaustive minimax written here (never the search itself).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from reference_tictactoe import ttt_best_actions, ttt_value

from boardzoo.agents import MCTSAgent
from boardzoo.agents.registry import AgentSpecError, make_agent
from boardzoo.agents.settings import Budget, Enhancements, TreeSettings, UCTSettings
from boardzoo.games import ReversiState, TicTacToeState
from boardzoo.games.catalog import make_game
from boardzoo.games.connect_four import ConnectFourState
from boardzoo.search import loop
from boardzoo.search.driver import TreeSearch
from boardzoo.search.expand import new_scratch
from boardzoo.search.memory import (
    CRIT_TOTALS,
    NO_REPLY,
    criticality,
    new_memory,
    update_criticality,
    update_replies,
)
from boardzoo.search.options import Rules
from boardzoo.search.tree import END, NEXT, NO_NODE, START

# The fields only the enhancements write (plain UCT must leave them as allocated: zero).
ENHANCEMENT_FIELDS = ("amaf_value", "amaf_visits", "heur", "mm", "raw_value", "logp", "pending")


def searcher_for(state, rules: Rules, seed: int = 0, nodes: int = 100_000) -> TreeSearch:
    searcher = TreeSearch(rules, nodes, seed)
    searcher.set_root(state, reuse=False)
    return searcher


def children_of(tree, node: int) -> range:
    """All of ``node``'s children in row 0 (open to selection or not)."""
    first = int(tree.first_child[0, node])
    if first == NO_NODE:
        return range(0)
    return range(first, first + int(tree.num_children[0, node]))


def root_children(searcher) -> range:
    return children_of(searcher.tree, 0)


def switches(rules: Rules) -> tuple[tuple[str, bool], ...]:
    """The key of the compiled copies of the loop for ``rules``."""
    return tuple(sorted(rules.constants().items()))


def mover_value(state, game) -> float:
    """The hand-made evaluation of a position in play for the player to move, in (-1, 1):
    the game's ``evaluate`` kernel read as tanh(v / evaluation_scale)."""
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


def visit_count_errors(
    tree, root_leaf_visits: int = 0, exact: bool = True
) -> tuple[list[int], int, int]:
    """Walk row 0 from the root and count by hand what plain UCT's visits must be.

    A simulation ends at the child it opens (a node's first visit), or at a finished game; a
    node in play is expanded on its second visit (the root on its first) and its first child
    opened by the same simulation. So an expanded node's visits are its open children's plus
    one (the simulation that opened it; none for the root, ``root_leaf_visits`` for a root kept
    from an earlier search), an unopened child has none, an open leaf in play has exactly one,
    and (``exact``: no thread raced another) every score sum lies in [0, visits].
    Returns the errors of the expanded nodes (visits minus that count), the nodes reachable from
    the root (the root and every block of children) and how many expanded nodes there are.
    """
    errors, reachable, expanded = [], 1, 0
    frontier = [0]
    while frontier:
        node = frontier.pop()
        first = int(tree.first_child[0, node])
        visits = int(tree.visits[0, node])
        if first == NO_NODE:
            if node != 0 and visits > 0 and not tree.terminal[0, node]:
                errors.append(visits - 1)
            continue
        expanded += 1
        opened = int(tree.num_expanded[0, node])
        block = children_of(tree, node)
        reachable += len(block)
        below = sum(int(tree.visits[0, c]) for c in block[:opened])
        errors.append(visits - below - (root_leaf_visits if node == 0 else 1))
        errors.extend(int(tree.visits[0, c]) for c in block[opened:])  # never walked into
        if exact:
            for c in block[:opened]:
                assert 0.0 <= tree.value[0, c] <= tree.visits[0, c]
        frontier.extend(block[:opened])
    return errors, reachable, expanded


# --- the one loop with every rule off is plain UCT ------------------------------------------------


STATES = [ReversiState.initial(6), ConnectFourState(), TicTacToeState()]


@pytest.mark.parametrize("state", STATES, ids=str)
def test_plain_uct_writes_no_enhancement_field_and_compiles_no_rule(state):
    game = state.game
    searcher = searcher_for(state, Rules(), seed=5, nodes=50_000)
    assert searcher.run(3000, None) == 3000
    tree = searcher.tree
    assert int(tree.visits[0, 0]) == 3000
    # The enhancements' statistics are never touched (still numpy's zeros, in every slot).
    for field in ENHANCEMENT_FIELDS:
        assert not getattr(tree, field)[0].any(), field
    # The rules are compiled in, one set of copies per set of switches: plain UCT's copies
    # have every switch off, RAVE's are other functions with RAVE on, and the numbers compile
    # nothing (another k is the same copies).
    plain = loop._compiled(game, switches(Rules()))
    rave = loop._compiled(game, switches(Rules(rave_k=1.0)))
    assert loop.compiled_loop(game, Rules()) is plain["simulate"]
    assert loop.compiled_loop(game, searcher.rules) is plain["simulate"]
    assert plain is not rave
    assert all(plain[name] is not rave[name] for name in plain)
    assert loop._compiled(game, switches(Rules(rave_k=300.0, c=0.5))) is rave
    for name, copy in plain.items():
        namespace = copy.py_func.__globals__
        assert not any(namespace.get(switch, False) for switch in Rules().constants()), name
    assert rave["simulate"].py_func.__globals__["RAVE"] is True
    assert rave["update_amaf"] is not plain["update_amaf"]


@pytest.mark.parametrize("state", STATES, ids=str)
def test_plain_uct_visit_counts_add_up_by_hand(state):
    searcher = searcher_for(state, Rules(), seed=5, nodes=50_000)
    searcher.run(3000, None)
    tree = searcher.tree
    assert int(tree.visits[0, 0]) == 3000  # one a simulation
    errors, reachable, expanded = visit_count_errors(tree)
    assert expanded > 100
    assert errors and not any(errors)
    # Every node made is in a block of children of the tree (one thread: nothing orphaned).
    assert searcher.nodes_used() == reachable
    # The root's open children share its visits, the moves reported are them.
    children = searcher.root_children()
    assert sum(child.visits for child in children) == 3000
    assert sorted(child.action for child in children) == sorted(state.legal_actions())


def test_the_plain_agent_does_not_take_the_enhanced_loop():
    agent = MCTSAgent(budget=Budget(simulations=10), seed=0)
    agent.search(TicTacToeState())
    assert not agent.rules.enhanced
    assert not any(agent.rules.constants().values())
    assert agent.rules == Rules()
    assert type(agent._searchers[0]) is TreeSearch
    tree = agent._searchers[0].tree
    for field in ENHANCEMENT_FIELDS:
        assert not getattr(tree, field)[0].any(), field


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
    searcher = searcher_for(state, Rules(rave_k=300.0))
    searcher.run(sims, None)
    tree = searcher.tree
    children = root_children(searcher)
    amaf = [int(tree.amaf_visits[0, c]) for c in children]
    # Hand count: X fills two of the three squares in every simulation, so the root's children
    # are credited 2 * sims times in all, each at most once a simulation, each a draw (0.5).
    assert sum(amaf) == 2 * sims
    assert all(0 < a <= sims for a in amaf)
    for child in children:
        assert tree.amaf_value[0, child] == pytest.approx(0.5 * tree.amaf_visits[0, child])
    # A child is credited in every simulation that went through it (X filled its square then).
    for child in children:
        assert tree.amaf_visits[0, child] >= tree.visits[0, child]


def test_amaf_update_by_hand():
    """One simulation through a hand-built path: X (player 0) a at the root, O b, then the playout
    O? no: X c, O d; X wins. The root's children credited are X's cells a and c."""
    game = make_game("tictactoe")
    state = TicTacToeState()
    rules = Rules(rave_k=1.0)
    searcher = searcher_for(state, rules)
    tree = searcher.tree
    copies = loop._compiled(game, switches(rules))
    numbers = rules.numbers(game.spec.evaluation_scale)
    # Expand the root by hand through the compiled expansion (9 children, random order).
    ok, _ = copies["expand"](
        tree, 0, 0, 0, new_scratch(), game.params, numbers, searcher._net, np.uint64(1)
    )
    assert ok
    assert searcher.nodes_used() == 10 and int(tree.num_children[0, 0]) == 9
    cells_of = {int(tree.cell[0, c]): c for c in root_children(searcher)}
    assert sorted(cells_of) == list(range(9))
    assert not tree.amaf_visits[0, :10].any()
    path = np.array([0, cells_of[4]] + [0] * 8, dtype=np.int64)
    # The sequence: X 4 (tree), O 0, X 8, O 2, X 6 (playout).
    cells = np.array([4, 0, 8, 2, 6] + [0] * 5, dtype=np.int64)
    players = np.array([0, 1, 0, 1, 0] + [0] * 5, dtype=np.int64)
    copies["update_amaf"](tree, 0, path, 2, cells, players, 5, 1.0)
    credited = {cell for cell, c in cells_of.items() if tree.amaf_visits[0, c] > 0}
    assert credited == {4, 8, 6}
    assert all(tree.amaf_visits[0, cells_of[c]] == 1 for c in credited)
    assert all(tree.amaf_value[0, cells_of[c]] == 1.0 for c in credited)
    assert not tree.amaf_value[0, [cells_of[c] for c in set(cells_of) - credited]].any()


def test_rave_plays_the_winning_move():
    state = TicTacToeState.from_text("X X .\nO O .\n. . .")
    info = MCTSAgent(
        budget=Budget(simulations=2000), enhancements=Enhancements(rave=True), seed=1
    ).search(state)
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
    searcher = searcher_for(state, Rules(widening_k=1.0, widening_alpha=0.5))
    searcher.run(sims, None)
    tree = searcher.tree
    children = list(root_children(searcher))
    heur = {a: heuristic_for_mover(state, a, game) for a in moves}
    # Children sit best first by the game's evaluation (computed here from the kernel).
    in_order = [heur[int(tree.action[0, c])] for c in children]
    assert in_order == sorted(in_order, reverse=True)
    # ceil(1 * n ** 0.5) children are open after n visits of the root (one opens a visit).
    opened = int(tree.num_expanded[0, 0])
    assert opened == math.ceil(math.sqrt(sims - 1)) or opened == math.ceil(math.sqrt(sims))
    assert opened < len(moves)
    assert all(int(tree.visits[0, c]) == 0 for c in children[opened:])


def test_progressive_bias_steers_a_short_search_to_the_best_evaluated_move():
    game = make_game("reversi", board_size=8)
    state = reversi_position(7, 16)
    heur = {a: heuristic_for_mover(state, a, game) for a in state.legal_actions()}
    best = max(heur, key=heur.get)
    assert sorted(heur.values())[-1] - sorted(heur.values())[-2] > 0.02
    info = MCTSAgent(
        budget=Budget(simulations=300), enhancements=Enhancements(progressive_bias=1000.0), seed=0
    ).search(state)
    assert info.action == best


# --- cut-offs, implicit minimax, learned evaluation -----------------------------------------------


def test_cutoff_zero_scores_a_new_leaf_by_the_evaluation():
    game = make_game("connect_four")
    state = ConnectFourState().apply(3).apply(3).apply(2)
    searcher = searcher_for(state, Rules(cutoff=0))
    searcher.run(len(state.legal_actions()), None)  # each child once (the first with the root)
    tree = searcher.tree
    assert int(tree.num_expanded[0, 0]) == len(state.legal_actions())
    for child in root_children(searcher):
        assert int(tree.visits[0, child]) == 1
        position = state.apply(int(tree.action[0, child]))
        value = mover_value(position, game)  # for the player to move there, the opponent
        assert tree.value[0, child] == pytest.approx(0.5 - 0.5 * value)


def test_learned_evaluation_scores_new_leaves_with_the_shipped_net():
    from boardzoo.learned import load_net, ntuple_value

    game = make_game("reversi", board_size=8)
    net = load_net(game)
    state = reversi_position(1, 10)
    searcher = searcher_for(state, Rules(cutoff=0, learned_eval=True))
    searcher.run(len(state.legal_actions()), None)
    tree = searcher.tree
    assert int(tree.num_expanded[0, 0]) == len(state.legal_actions())
    for child in root_children(searcher):
        assert int(tree.visits[0, child]) == 1
        position = state.apply(int(tree.action[0, child]))
        s0, s1 = (np.uint64(b) for b in position.bitboards())
        value = ntuple_value(s0, s1, position.current_player, game.params, net)
        same = position.current_player == state.current_player
        assert tree.value[0, child] == pytest.approx(
            0.5 + 0.5 * value if same else 0.5 - 0.5 * value
        )


def test_implicit_minimax_backs_up_the_evaluations_below():
    game = make_game("connect_four")
    state = ConnectFourState().apply(3)
    searcher = searcher_for(state, Rules(minimax_weight=0.5))
    searcher.run(300, None)
    tree = searcher.tree
    checked = 0
    for child in root_children(searcher):
        if int(tree.first_child[0, child]) == NO_NODE or int(tree.visits[0, child]) < 3:
            continue
        position = state.apply(int(tree.action[0, child]))
        grandchildren = children_of(tree, child)
        # Leaves below the child keep the game's evaluation, seen by the player who moved there.
        for g in grandchildren:
            if int(tree.first_child[0, g]) == NO_NODE:
                assert tree.mm[0, g] == pytest.approx(
                    heuristic_for_mover(position, int(tree.action[0, g]), game), abs=1e-6
                )
        # The child is worth 1 - (the opponent's best reply) to the root player.
        best_reply = max(float(tree.mm[0, g]) for g in grandchildren)
        assert tree.mm[0, child] == pytest.approx(1.0 - best_reply, abs=1e-6)
        checked += 1
    assert checked >= 3


def test_minimax_with_an_evaluation_finds_a_connect_four_win_in_one():
    state = ConnectFourState()
    for column in (0, 6, 1, 6, 2):
        state = state.apply(column)
    info = MCTSAgent(
        budget=Budget(simulations=200), enhancements=Enhancements(minimax_weight=0.5), seed=0
    ).search(state.apply(5))
    assert info.action == 3


# --- last good reply with forgetting --------------------------------------------------------------


def test_last_good_reply_is_remembered_for_the_winner_and_forgotten_for_the_loser():
    memory = new_memory()
    cells = np.array([5, 7, 3, 9], dtype=np.int64)
    players = np.array([0, 1, 0, 1], dtype=np.int64)
    memory.lgr[1, 3] = 9  # player 1 answered 3 with 9 before
    update_replies(memory, cells, players, 4, 1.0)  # player 0 won
    assert memory.lgr[0, 7] == 3  # the winner's reply to 7
    assert memory.lgr[1, 5] == NO_REPLY  # never stored for the loser
    assert memory.lgr[1, 3] == NO_REPLY  # the loser's old reply is forgotten
    update_replies(memory, cells, players, 4, 0.5)  # a draw changes nothing
    assert memory.lgr[0, 7] == 3


def test_lgrf_playouts_fill_the_reply_table_and_play_well():
    state = TicTacToeState.from_text("X X .\nO O .\n. . .")
    agent = MCTSAgent(budget=Budget(simulations=2000), uct=UCTSettings(rollout="lgrf"), seed=2)
    assert agent.search(state).action == 2
    agent = MCTSAgent(
        budget=Budget(simulations=500),
        uct=UCTSettings(rollout="lgrf"),
        tree=TreeSettings(reuse_tree=True),
        seed=2,
    )
    agent.search(ReversiState.initial(6))
    assert (agent._searchers[0].memory.lgr >= 0).sum() > 10


# --- criticality ----------------------------------------------------------------------------------


def test_criticality_by_hand():
    memory = new_memory()
    # Four playouts on cells 0 and 1. Cell 0: player 0 owns it and wins twice, player 1 owns it
    # and wins twice, so owning it goes with winning every time. Cell 1: owned by player 0
    # every time, who wins half of them.
    for score0, s0, s1 in ((1.0, 0b11, 0), (1.0, 0b11, 0), (0.0, 0b10, 0b01), (0.0, 0b10, 0b01)):
        update_criticality(memory, np.uint64(s0), np.uint64(s1), score0)
    assert memory.crit[CRIT_TOTALS, 0] == 4
    assert criticality(memory, 0) == 0.0  # too few playouts yet
    memory.crit[CRIT_TOTALS, 0] *= 8  # pass the minimum playout count with the same ratios
    memory.crit[CRIT_TOTALS, 1:] *= 8
    memory.crit[:3] *= 8
    # Coulom: P(owner wins) - (P(own0) P(win0) + P(own1) P(win1))
    assert criticality(memory, 0) == pytest.approx(1.0 - (0.5 * 0.5 + 0.5 * 0.5))
    assert criticality(memory, 1) == pytest.approx(0.5 - (1.0 * 0.5 + 0.0 * 0.5))
    assert criticality(memory, -1) == 0.0  # a pass has no square


def test_criticality_search_counts_every_finished_playout():
    searcher = searcher_for(ConnectFourState(), Rules(criticality=1.0))
    searcher.run(500, None)
    crit = searcher.memory.crit
    assert crit[CRIT_TOTALS, 0] == 500
    assert crit[CRIT_TOTALS, 1] + crit[CRIT_TOTALS, 2] == pytest.approx(500)


# --- tree parallelism -----------------------------------------------------------------------------


@pytest.mark.parametrize("threads", [1, 2])
def test_threads_prove_the_same_tictactoe_results(threads):
    def solve(state):
        return MCTSAgent(
            Budget(simulations=300_000),
            UCTSettings(solver=True),
            Enhancements(threads=threads),
            seed=0,
        ).search(state)

    assert solve(TicTacToeState()).proven == "draw"
    state = TicTacToeState.from_text("X . .\n. O .\n. . .")  # X to move: a draw with best play
    assert state.current_player == 0
    info = solve(state)
    assert info.proven == "draw" and info.action in ttt_best_actions(state)
    state = TicTacToeState.from_text("X O .\n. . .\n. . .")  # X to move wins by force
    assert state.current_player == 0 and ttt_value(state) == 1
    info = solve(state)
    assert info.proven == "win" and info.action in ttt_best_actions(state)


def blocks(tree) -> list[range]:
    """The blocks of children reachable from the root of row 0."""
    found, frontier = [], [0]
    while frontier:
        block = children_of(tree, frontier.pop())
        if block:
            found.append(block)
            frontier.extend(block)
    return found


def thread_ranges(tree) -> list[range]:
    """The slots of row 0 each thread has taken from its range."""
    alloc = tree.alloc[0]
    return [range(int(row[START]), int(row[NEXT])) for row in alloc]


def test_virtual_loss_is_taken_back_exactly_and_each_thread_grows_its_own_range():
    """Both threads' simulations, one after the other (no race): the loop counts each descent as
    pending (a virtual loss of 3 visits) and must take all of it back, so the visits add up
    exactly as in plain UCT and nothing is left pending; each thread's new nodes come from its
    own range of the one tree."""
    state = ReversiState.initial(8)
    game = state.game
    rules = Rules(threads=2, virtual_loss=3)
    assert rules.constants()["PENDING"]
    searcher = searcher_for(state, rules, nodes=200_000)
    run = loop.compiled_loop(game, rules)
    numbers = rules.numbers(game.spec.evaluation_scale)
    for _ in range(20):
        for thread in (0, 1):
            ran, rng = run(
                searcher.tree, 0, thread, 100, numbers, searcher.memory, game.params,
                searcher._net, searcher.rng[thread], searcher.solver,
            )  # fmt: skip
            assert ran == 100
            searcher.rng[thread] = np.uint64(rng)
    tree = searcher.tree
    assert int(tree.visits[0, 0]) == 4000
    errors, reachable, _ = visit_count_errors(tree)
    assert errors and not any(errors)
    assert not tree.pending[0].any()
    # The free slots after the root are split in halves; each thread took nodes from its own.
    ranges = thread_ranges(tree)
    assert [int(row[END]) for row in tree.alloc[0]] == [100_000, 200_000]
    assert ranges[0].start == 1 and ranges[1].start == 100_000
    assert all(len(r) > 1000 for r in ranges)
    assert searcher.nodes_used() == 1 + sum(len(r) for r in ranges) == reachable
    # Every block of children in the tree lies in the range of the thread that made it.
    owners = [
        [i for i, r in enumerate(ranges) if block[0] in r and block[-1] in r]
        for block in blocks(tree)
    ]
    assert all(len(owner) == 1 for owner in owners)
    assert {owner[0] for owner in owners} == {0, 1}


def test_two_threads_share_one_tree_and_leave_no_virtual_loss():
    # Enough simulations that the races of the first few (both threads at the root) weigh little.
    agent = MCTSAgent(
        budget=Budget(simulations=100_000),
        enhancements=Enhancements(threads=2, virtual_loss=3),
        seed=0,
    )
    info = agent.search(ReversiState.initial(8))
    searcher = agent._searchers[0]
    tree = searcher.tree
    assert info.simulations == 100_000
    # Lock-free updates may lose a rare increment, never leave a virtual loss behind.
    assert 0.98 * info.simulations <= int(tree.visits[0, 0]) <= info.simulations
    children = range(
        int(tree.first_child[0, 0]), int(tree.first_child[0, 0]) + int(tree.num_expanded[0, 0])
    )
    assert (
        abs(sum(int(tree.visits[0, c]) for c in children) - int(tree.visits[0, 0]))
        <= 0.02 * info.simulations
    )
    assert all(0.0 <= tree.value[0, c] <= tree.visits[0, c] for c in children)
    # Every node's visits add up as in plain UCT, but for those rare lost updates (each off by
    # a few visits); a virtual loss left behind would be 3 visits at every node of every path,
    # many times the simulations.
    errors, reachable, _ = visit_count_errors(tree, exact=False)
    assert sum(abs(e) for e in errors) <= 0.05 * info.simulations
    # Both threads grew the one tree, each from its own range.
    ranges = thread_ranges(tree)
    assert all(len(r) > 1000 for r in ranges)
    assert all(any(block[0] in r for block in blocks(tree)) for r in ranges)
    # The nodes reported are the ones the threads made; a block made twice by a race (the loser
    # is dropped) is rare.
    assert info.tree_nodes == searcher.nodes_used() == 1 + sum(len(r) for r in ranges)
    assert reachable <= info.tree_nodes <= 1.02 * reachable


# --- tree reuse -----------------------------------------------------------------------------------


def test_enhanced_tree_reuse_keeps_the_subtree_and_its_statistics():
    state = ReversiState.initial(6)
    rules = Rules(rave_k=300.0)
    searcher = searcher_for(state, rules)
    searcher.run(3000, None)
    tree = searcher.tree
    # The most visited move and the most visited reply to it: the new root.
    child = max(root_children(searcher), key=lambda c: int(tree.visits[0, c]))
    opened = children_of(tree, child)[: int(tree.num_expanded[0, child])]
    node = max(opened, key=lambda c: int(tree.visits[0, c]))
    new_state = state.apply(int(tree.action[0, child])).apply(int(tree.action[0, node]))
    assert int(tree.first_child[0, node]) != NO_NODE
    # What the subtree holds, counted here before the move.
    size, frontier = 1, [node]
    while frontier:
        block = children_of(tree, frontier.pop())
        size += len(block)
        frontier.extend(block)
    visits = int(tree.visits[0, node])
    kept = {
        int(tree.action[0, c]): (
            int(tree.visits[0, c]),
            float(tree.value[0, c]),
            int(tree.amaf_visits[0, c]),
            float(tree.amaf_value[0, c]),
        )
        for c in children_of(tree, node)
    }
    assert sum(amaf for _, _, amaf, _ in kept.values()) > 0
    assert searcher.set_root(new_state, reuse=True)
    # The subtree is at the front of row 0, its root node 0, its statistics with it.
    assert searcher.nodes_used() == size
    assert int(tree.visits[0, 0]) == visits
    assert int(tree.parent[0, 0]) == NO_NODE
    assert int(tree.first_child[0, 0]) == 1
    assert (int(tree.s0[0, 0]), int(tree.s1[0, 0])) == tuple(map(int, new_state.bitboards()))
    assert int(tree.player[0, 0]) == new_state.current_player
    assert {
        int(tree.action[0, c]): (
            int(tree.visits[0, c]),
            float(tree.value[0, c]),
            int(tree.amaf_visits[0, c]),
            float(tree.amaf_value[0, c]),
        )
        for c in root_children(searcher)
    } == kept
    assert all(int(tree.parent[0, c]) == 0 for c in root_children(searcher))
    errors, reachable, _ = visit_count_errors(tree, root_leaf_visits=1)
    assert reachable == size and not any(errors)
    # And through the agent: the second search starts from the kept subtree.
    agent = MCTSAgent(
        budget=Budget(simulations=3000),
        enhancements=Enhancements(rave=True),
        tree=TreeSettings(reuse_tree=True),
        seed=0,
    )
    info = agent.search(state)
    state = state.apply(info.action)
    state = state.apply(state.legal_actions()[0])
    again = agent.search(state)
    assert again.reused_tree
    searcher = agent._searchers[0]
    assert int(searcher.tree.amaf_visits[0, : searcher.nodes_used()].sum()) > 0


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
    assert agent.rules.cutoff == 2  # given explicitly
    assert agent.rules.minimax_weight > 0  # from the preset


def test_reversis_preset_sets_uct_constant_and_tree_reuse_unless_given():
    reversi = make_game("reversi")
    agent = make_agent("mcts:simulations=200,preset=strong", seed=0)
    agent.prepare(reversi)
    assert agent.rules.c == 0.2
    state = reversi.initial_state()
    first = agent.search(state)
    assert not first.reused_tree
    reply = state.apply(first.action)
    second = agent.search(reply.apply(reply.legal_actions()[0]))
    assert second.reused_tree  # the preset keeps the tree between moves
    given = make_agent("mcts:simulations=200,preset=strong,c=1", seed=0)
    given.prepare(reversi)
    assert given.rules.c == 1.0  # an option given explicitly wins over the preset's
    fresh = make_agent("mcts:simulations=200,preset=strong,reuse_tree=false", seed=0)
    first = fresh.search(state)
    reply = state.apply(first.action)
    assert not fresh.search(reply.apply(reply.legal_actions()[0])).reused_tree  # switched off


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
    agent = MCTSAgent(
        budget=Budget(simulations=10),
        uct=UCTSettings(rollout="heuristic"),
        enhancements=Enhancements(rave=True),
    )
    with pytest.raises(ValueError, match="rollout=heuristic"):
        agent.search(ReversiState.initial(6))

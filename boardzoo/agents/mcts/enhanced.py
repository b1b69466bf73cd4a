"""UCT with the classic enhancements, compiled once per game: RAVE, progressive bias and
widening, last-good-reply rollouts, criticality, evaluation cut-offs, implicit minimax, and tree
parallelism with virtual loss.

:func:`run_enhanced` is a template like :func:`boardzoo.agents.mcts.compiled.run_simulations`:
it reaches the game only through the contract's kernels and is compiled per game by
:func:`compiled_enhanced`. Every enhancement is switched by a slot of the float64 ``opts`` array
(``O_*`` below), so one compiled loop serves every combination, and with every slot at its "off"
value it plays exactly like plain UCT (children in random order, one added a visit, uniformly
random playouts).

Several threads may run :func:`run_enhanced` on one shared tree at once (tree parallelism,
Enzenberger & Müller, "A lock-free multithreaded Monte-Carlo tree search algorithm", 2009): each
thread takes new nodes from its own range of the arrays (``Extras.alloc``), fills a node's
children before it publishes them by writing ``first_child`` last, and adds statistics without
locks (a rare lost update costs a visit, never the tree's shape). A virtual loss
(``O_VIRTUAL_LOSS`` visits counted as lost while a simulation is below a node) steers the other
threads elsewhere.

References: Gelly & Silver, "Combining online and offline knowledge in UCT" (RAVE, 2007) and
"Monte-Carlo tree search and rapid action value estimation in computer Go" (2011, the beta
schedule ``sqrt(k / (3 n + k))``); Chaslot et al., "Progressive strategies for Monte-Carlo tree
search" (progressive bias and widening, 2008); Baier & Drake, "The power of forgetting: improving
the last-good-reply policy in Monte Carlo Go" (LGRF-1, 2010); Coulom, "Criticality: a Monte-Carlo
heuristic for Go programs" (2009); Lanctot, Winands, Pepels & Sturtevant, "Monte Carlo tree search
with heuristic evaluations using implicit minimax backups" (2014).
"""

from __future__ import annotations

import types
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from boardzoo.agents.mcts.tree import (
    NO_NODE,
    NODE_COUNT,
    ROOT,
    init_node,
    is_solved,
    score_for,
    update_bounds,
)
from boardzoo.games._bits import (
    U1,
    lowest_bit_index,
    next_rng,
    popcount,
    random_set_bit,
    rng_output,
)
from boardzoo.games.spec import Game
from boardzoo.games.specialise import specialise
from boardzoo.learned.ntuple import ntuple_value

__all__ = [
    "EVAL_HAND",
    "EVAL_LEARNED",
    "NUM_OPTS",
    "POLICY_HEURISTIC",
    "POLICY_LGRF",
    "POLICY_RANDOM",
    "Extras",
    "compiled_enhanced",
    "criticality",
    "new_extras",
]

# Slots of the ``opts`` array.
O_C = 0  # UCT's exploration constant
O_SOLVER = 1  # 1: score-bounded solver
O_POLICY = 2  # POLICY_*
O_RAVE_K = 3  # RAVE's equivalence parameter k (0: off)
O_BIAS = 4  # progressive bias weight (0: off)
O_WIDEN_K = 5  # progressive widening: ceil(k * n ** alpha) children open (0: off)
O_WIDEN_ALPHA = 6
O_CUTOFF = 7  # plies before a playout stops and is scored by the evaluation (-1: off)
O_MINIMAX = 8  # implicit minimax weight (0: off)
O_CRITICALITY = 9  # criticality bias weight (0: off)
O_VIRTUAL_LOSS = 10  # visits counted as lost below a node while a simulation runs there
O_EVAL = 11  # EVAL_*: the evaluation cut-offs, minimax, bias and widening use
O_EVAL_SCALE = 12  # the hand-made evaluation v maps to tanh(v / scale)
NUM_OPTS = 13

POLICY_RANDOM, POLICY_HEURISTIC, POLICY_LGRF = 0, 1, 2
EVAL_HAND, EVAL_LEARNED = 0, 1

ALLOC_ROW = 8  # a thread's allocation row fills a 64-byte cache line of its own
PASS_SLOT = 64  # the last-good-reply table's row for "the previous move was a pass"
NO_REPLY = -1
MAX_SEQUENCE = 512  # moves of one simulation (tree and playout) that are remembered
MIN_CRITICALITY_PLAYOUTS = 32  # criticality counts once this many playouts have finished
# Rows of Extras.crit: cells owned by player 0 / player 1 at the end, and owned by the winner;
# row TOTALS holds [playouts, player 0's score sum, player 1's score sum].
CRIT_OWN0, CRIT_OWN1, CRIT_WINNER, CRIT_TOTALS = 0, 1, 2, 3

kernels = types.ModuleType("kernels", "placeholder for a game's compiled kernels")


class Extras(NamedTuple):
    """What the enhancements keep beside the :class:`~boardzoo.agents.mcts.tree.Tree`.

    Per node (shape ``(max_nodes,)``): ``cell`` the cell the move into the node filled (-1 a
    pass), ``amaf_value``/``amaf_visits`` the all-moves-as-first statistics of that move for the
    player who made it, ``heur`` the evaluation of the node for that player in [0, 1], ``mm`` its
    implicit minimax value (same view). Per search: ``alloc`` each thread's next free node and the
    end of its range, ``lgr`` the last good reply of each player to each previous cell, ``crit``
    the criticality counts (``CRIT_*`` rows).
    """

    cell: np.ndarray  # int8
    amaf_value: np.ndarray  # float64
    amaf_visits: np.ndarray  # int32
    heur: np.ndarray  # float32
    mm: np.ndarray  # float32
    alloc: np.ndarray  # int64[threads, ALLOC_ROW]: next free, end, start of range; row 0 also
    # the nodes kept before the ranges were shared out; the rest pads a row to a cache line
    lgr: np.ndarray  # int64[2, 65]
    crit: np.ndarray  # float64[4, 64]


def new_extras(max_nodes: int, threads: int) -> Extras:
    """Empty extras for a tree of ``max_nodes`` nodes searched by ``threads`` threads."""
    return Extras(
        cell=np.full(max_nodes, -1, dtype=np.int8),
        amaf_value=np.zeros(max_nodes, dtype=np.float64),
        amaf_visits=np.zeros(max_nodes, dtype=np.int32),
        heur=np.full(max_nodes, 0.5, dtype=np.float32),
        mm=np.full(max_nodes, 0.5, dtype=np.float32),
        alloc=np.zeros((threads, ALLOC_ROW), dtype=np.int64),
        lgr=np.full((2, PASS_SLOT + 1), NO_REPLY, dtype=np.int64),
        crit=np.zeros((4, 64), dtype=np.float64),
    )


@njit(cache=True, nogil=True)
def share_free_nodes(tree, extras):
    """Split the free slots after the tree's used ones evenly among the threads' ranges."""
    threads = extras.alloc.shape[0]
    start = tree.meta[NODE_COUNT]
    free = tree.value.shape[0] - start
    for t in range(threads):
        extras.alloc[t, 0] = start + free * t // threads
        extras.alloc[t, 1] = start + free * (t + 1) // threads
        extras.alloc[t, 2] = extras.alloc[t, 0]
    extras.alloc[0, 3] = start


@njit(cache=True, nogil=True)
def nodes_used(extras):
    """Nodes in the tree: those kept when the ranges were shared out, and each thread's since."""
    used = extras.alloc[0, 3]
    for t in range(extras.alloc.shape[0]):
        used += extras.alloc[t, 0] - extras.alloc[t, 2]
    return used


@njit(cache=True, nogil=True)
def clear_search_memory(extras):
    """Forget the last-good replies and the criticality counts (a new search starts)."""
    extras.lgr[:] = NO_REPLY
    extras.crit[:] = 0.0


@njit(cache=True, nogil=True)
def high_water(extras):
    """The end of the highest slot any thread has used (a bound on the nodes in the tree)."""
    top = 0
    for t in range(extras.alloc.shape[0]):
        top = max(top, extras.alloc[t, 0])
    return top


@njit(cache=True, nogil=True, inline="always")
def criticality(extras, cell):
    """Coulom's criticality of ``cell``: how much owning it at the end goes with winning.

    ``P(owner wins) - (P(player 0 owns) P(player 0 wins) + P(player 1 owns) P(player 1 wins))``
    over the finished playouts of the search; 0 before ``MIN_CRITICALITY_PLAYOUTS`` of them.
    """
    crit = extras.crit
    playouts = crit[CRIT_TOTALS, 0]
    if cell < 0 or playouts < MIN_CRITICALITY_PLAYOUTS:
        return 0.0
    win0 = crit[CRIT_TOTALS, 1] / playouts
    win1 = crit[CRIT_TOTALS, 2] / playouts
    own0 = crit[CRIT_OWN0, cell] / playouts
    own1 = crit[CRIT_OWN1, cell] / playouts
    return crit[CRIT_WINNER, cell] / playouts - (own0 * win0 + own1 * win1)


def evaluation(s0, s1, player, moves, params, opts, net):
    """The value of a position in play for the player to move, in (-1, 1)."""
    if opts[O_EVAL] == EVAL_LEARNED:
        return ntuple_value(s0, s1, player, params, net)
    return np.tanh(kernels.evaluate(s0, s1, player, moves, params) / opts[O_EVAL_SCALE])


def child_heuristic(c0, c1, next_player, terminal, result, mover, params, opts, net):
    """The evaluation of a child position for ``mover``, the player who moved into it, in [0, 1]."""
    if terminal:
        return score_for(result, mover)
    value = evaluation(
        c0, c1, next_player, kernels.placements(c0, c1, next_player, params), params, opts, net
    )
    return 0.5 + 0.5 * value if next_player == mover else 0.5 - 0.5 * value


class Scratch(NamedTuple):
    """One thread's room for a node's children while they are ranked (64 moves at most)."""

    heur: np.ndarray  # float64: each child's evaluation, in cell order
    order: np.ndarray  # int64: each child's slot in the block
    ranked: np.ndarray  # int64: the children, best first


@njit(cache=True, nogil=True)
def new_scratch():
    """Empty :class:`Scratch` for one thread."""
    return Scratch(
        np.empty(64, dtype=np.float64), np.empty(64, dtype=np.int64), np.empty(64, dtype=np.int64)
    )


def next_child(s0, s1, player, placed, params):
    """The child that fills the lowest cell of ``placed`` (the pass when ``placed`` is 0).

    Returns the cell (-1: the pass), the cells left, the child's bitboards, whether its game is
    over and player 0's result code there.
    """
    cell = np.int64(-1)
    if placed:
        cell = lowest_bit_index(placed)
        placed &= placed - U1
    c0, c1 = kernels.place(s0, s1, player, cell, params)
    terminal, result = kernels.outcome(c0, c1, 1 - player, params)
    return cell, placed, c0, c1, terminal, result


def expand(tree, extras, scratch, node, opts, thread, params, net, rng):
    """Fill ``node``'s children in the thread's free range and publish them; return (ok, rng).

    Children come in random order, or best evaluation first with progressive widening (the
    random order breaking ties). With an evaluation in use (bias, widening, minimax) every child
    is evaluated here. ``ok`` is False when the thread's range is full (the node stays a leaf).
    """
    s0, s1, player = tree.s0[node], tree.s1[node], tree.player[node]
    cells = kernels.placements(s0, s1, player, params)
    count = np.int64(1) if cells == 0 else np.int64(popcount(cells))
    start = extras.alloc[thread, 0]
    if start + count > extras.alloc[thread, 1]:
        return False, rng
    extras.alloc[thread, 0] = start + count
    next_player = 1 - player
    widening = opts[O_WIDEN_K] > 0.0
    evaluate = widening or opts[O_BIAS] > 0.0 or opts[O_MINIMAX] > 0.0
    rave = opts[O_RAVE_K] > 0.0
    order = scratch.order  # child i (in cell order) goes to slot start + order[i]
    for i in range(count):
        order[i] = i
    for i in range(count - 1, 0, -1):  # Fisher-Yates: the order in which UCT adds them
        rng = next_rng(rng)
        j = np.int64(rng_output(rng) % np.uint64(i + 1))
        order[i], order[j] = order[j], order[i]
    if widening:  # best evaluation first; the random order breaks ties
        placed = cells
        for i in range(count):
            _, placed, c0, c1, terminal, result = next_child(s0, s1, player, placed, params)
            scratch.heur[i] = child_heuristic(
                c0, c1, next_player, terminal, result, player, params, opts, net
            )
        ranked = scratch.ranked
        for i in range(count):
            ranked[order[i]] = i
        for r in range(1, count):  # stable insertion sort, best first
            k = ranked[r]
            j = r
            while j > 0 and scratch.heur[ranked[j - 1]] < scratch.heur[k]:
                ranked[j] = ranked[j - 1]
                j -= 1
            ranked[j] = k
        for r in range(count):
            order[ranked[r]] = r
    placed = cells
    for i in range(count):
        cell, placed, c0, c1, terminal, result = next_child(s0, s1, player, placed, params)
        slot = start + order[i]
        init_node(
            tree, slot, node, kernels.cell_action(cell, params), c0, c1, next_player,
            terminal, result, 1.0 / count,
        )  # fmt: skip
        extras.cell[slot] = cell
        if rave:
            extras.amaf_value[slot] = 0.0
            extras.amaf_visits[slot] = 0
        if evaluate:
            heur = scratch.heur[i] if widening else child_heuristic(
                c0, c1, next_player, terminal, result, player, params, opts, net
            )  # fmt: skip
            extras.heur[slot] = heur
            extras.mm[slot] = heur
    tree.num_children[node] = count
    tree.num_expanded[node] = 0
    tree.first_child[node] = start  # published last: other threads read the block after this
    return True, rng


def select_child(tree, extras, node, opts):
    """The child of ``node`` that maximises UCT with the enhancements switched on.

    ``q`` is the mean result (solved children: their exact value), blended with the AMAF mean by
    RAVE's ``beta = sqrt(k / (3 n + k))`` and with the implicit minimax value by its weight;
    then UCT's exploration term, and the progressive bias and criticality terms, each decaying as
    ``weight * h / (n + 1)``. Returns NO_NODE if the solver skips every child.
    """
    first = tree.first_child[node]
    count = tree.num_expanded[node]
    mover = tree.player[node]
    solver = opts[O_SOLVER] != 0.0
    c, rave_k = opts[O_C], opts[O_RAVE_K]
    bias, minimax, crit = opts[O_BIAS], opts[O_MINIMAX], opts[O_CRITICALITY]
    log_visits = np.log(max(tree.visits[node], 1))
    best = NO_NODE
    best_score = -np.inf
    for child in range(first, first + count):
        if solver:
            if mover == 0 and tree.opt[child] <= tree.pess[node]:
                continue
            if mover == 1 and tree.pess[child] >= tree.opt[node]:
                continue
        visits = tree.visits[child]
        if solver and is_solved(tree, child):
            q = score_for(tree.pess[child], mover)
        else:
            q = tree.value[child] / visits if visits > 0 else 0.5
            if rave_k > 0.0 and extras.amaf_visits[child] > 0:
                beta = np.sqrt(rave_k / (3.0 * visits + rave_k))
                amaf = extras.amaf_value[child] / extras.amaf_visits[child]
                q = (1.0 - beta) * q + beta * amaf
            if minimax > 0.0:
                q = (1.0 - minimax) * q + minimax * extras.mm[child]
        score = q + c * np.sqrt(log_visits / max(visits, 1))
        if bias > 0.0:
            score += bias * extras.heur[child] / (visits + 1.0)
        if crit > 0.0:
            score += crit * criticality(extras, extras.cell[child]) / (visits + 1.0)
        if score > best_score:
            best_score = score
            best = child
    return best


def playout(s0, s1, player, prev_cell, params, opts, extras, net, cells, players, length, rng):
    """Play on from a leaf, recording the moves; return (score0, finished, s0, s1, length, rng).

    Moves are uniformly random, or the player's last good reply to the previous move when it is
    legal (``POLICY_LGRF``). With a cut-off the playout stops after that many plies and is scored
    by the evaluation (``finished`` False); otherwise it ends with the game.
    """
    cutoff = np.int64(opts[O_CUTOFF])
    lgrf = opts[O_POLICY] == POLICY_LGRF
    plies = 0
    while True:
        moves = kernels.placements(s0, s1, player, params)
        if moves == 0:
            over, code = kernels.outcome(s0, s1, player, params)
            if over:
                return code * 0.5, True, s0, s1, length, rng
            cell = np.int64(-1)
        elif cutoff >= 0 and plies >= cutoff:
            value = evaluation(s0, s1, player, moves, params, opts, net)
            mover_score = 0.5 + 0.5 * value
            return (mover_score if player == 0 else 1.0 - mover_score), False, s0, s1, length, rng
        else:
            cell = np.int64(-1)
            if lgrf and prev_cell >= -1:
                row = np.int64(prev_cell) if prev_cell >= 0 else np.int64(PASS_SLOT)
                reply = extras.lgr[player, row]
                if reply >= 0 and (moves >> np.uint64(reply)) & U1:
                    cell = reply
            if cell < 0:
                cell, rng = random_set_bit(moves, rng)
        s0, s1 = kernels.place(s0, s1, player, cell, params)
        if length < cells.shape[0]:
            cells[length] = cell
            players[length] = player
            length += 1
        prev_cell = np.int64(cell)
        player = 1 - player
        plies += 1


@njit(cache=True, nogil=True)
def update_replies(extras, cells, players, length, score0):
    """LGRF-1: the winner's replies are remembered, the loser's forgotten (draws change nothing)."""
    if score0 == 0.5:
        return
    winner = 0 if score0 > 0.5 else 1
    for j in range(1, length):
        cell = cells[j]
        if cell < 0:
            continue
        prev = cells[j - 1]
        row = prev if prev >= 0 else PASS_SLOT
        player = players[j]
        if player == winner:
            extras.lgr[player, row] = cell
        elif extras.lgr[player, row] == cell:
            extras.lgr[player, row] = NO_REPLY


@njit(cache=True, nogil=True)
def update_criticality(extras, s0, s1, score0):
    """Count a finished playout's final owners and result."""
    crit = extras.crit
    crit[CRIT_TOTALS, 0] += 1.0
    crit[CRIT_TOTALS, 1] += score0
    crit[CRIT_TOTALS, 2] += 1.0 - score0
    bits = s0
    while bits:
        cell = lowest_bit_index(bits)
        bits &= bits - U1
        crit[CRIT_OWN0, cell] += 1.0
        crit[CRIT_WINNER, cell] += score0
    bits = s1
    while bits:
        cell = lowest_bit_index(bits)
        bits &= bits - U1
        crit[CRIT_OWN1, cell] += 1.0
        crit[CRIT_WINNER, cell] += 1.0 - score0


@njit(cache=True, nogil=True)
def update_amaf(tree, extras, path, depth, cells, players, length, score0):
    """RAVE: credit every child whose move its player made later in this simulation.

    Walking up from the leaf, ``seen[p]`` holds the cells player ``p`` filled from that node on
    (the tree's moves below it and the playout's); each path node's children (all of them, not
    only those UCT has added) whose cell its mover filled get an AMAF visit and the mover's
    result.
    """
    seen0 = np.uint64(0)
    seen1 = np.uint64(0)
    for j in range(depth - 1, length):  # the playout's moves, after the tree's
        if cells[j] >= 0:
            bit = U1 << np.uint64(cells[j])
            if players[j] == 0:
                seen0 |= bit
            else:
                seen1 |= bit
    for i in range(depth - 1, -1, -1):
        node = path[i]
        if i < depth - 1 and cells[i] >= 0:  # the tree's move out of this node
            bit = U1 << np.uint64(cells[i])
            if players[i] == 0:
                seen0 |= bit
            else:
                seen1 |= bit
        first = tree.first_child[node]
        if first == NO_NODE:
            continue
        mover = tree.player[node]
        seen = seen0 if mover == 0 else seen1
        score = score0 if mover == 0 else 1.0 - score0
        for child in range(first, first + tree.num_children[node]):  # added to UCT yet or not
            cell = extras.cell[child]
            if cell >= 0 and (seen >> np.uint64(cell)) & U1:
                extras.amaf_visits[child] += 1
                extras.amaf_value[child] += score


@njit(cache=True, nogil=True)
def update_minimax(tree, extras, node):
    """Implicit minimax: ``node``'s value is its best child's, for the player who moved in."""
    first = tree.first_child[node]
    parent = tree.parent[node]
    if first == NO_NODE or parent == NO_NODE:
        return
    best = 0.0
    for child in range(first, first + tree.num_children[node]):
        best = max(best, extras.mm[child])
    extras.mm[node] = best if tree.player[parent] == tree.player[node] else 1.0 - best


@njit(cache=True, nogil=True)
def backup(tree, extras, path, depth, score0, opts):
    """Add the result up the path, take the virtual losses back, update bounds and minimax."""
    solver = opts[O_SOLVER] != 0.0
    minimax = opts[O_MINIMAX] > 0.0
    loss = np.int32(opts[O_VIRTUAL_LOSS])
    updating = solver
    for i in range(depth - 1, -1, -1):
        node = path[i]
        if i == 0:
            tree.visits[node] += 1
            break
        tree.visits[node] += 1 - loss
        parent = path[i - 1]
        tree.value[node] += score0 if tree.player[parent] == 0 else 1.0 - score0
        if minimax:
            update_minimax(tree, extras, node)
        if updating:
            updating = update_bounds(tree, parent)


def run_enhanced(tree, extras, count, opts, thread, params, net, rng):
    """Run up to ``count`` simulations as thread ``thread``; return how many ran and the RNG.

    Each simulation: selection (the enhanced UCT of :func:`select_child`, with progressive
    widening limiting the open children to ``ceil(k * n ** alpha)``) down to a leaf, adding one
    child a visit (a node's children are made on its second visit, the root's on its first); a
    playout (the game's own rollout when nothing needs the moves, else :func:`playout`); backup,
    AMAF, last-good-reply and criticality updates. Stops early once the root is proven.
    """
    root = tree.meta[ROOT]
    solver = opts[O_SOLVER] != 0.0
    loss = np.int32(opts[O_VIRTUAL_LOSS])
    widen_k, widen_alpha = opts[O_WIDEN_K], opts[O_WIDEN_ALPHA]
    rave = opts[O_RAVE_K] > 0.0
    lgrf = opts[O_POLICY] == POLICY_LGRF
    crit = opts[O_CRITICALITY] > 0.0
    recorded = rave or lgrf or crit or opts[O_CUTOFF] >= 0.0
    path = np.empty(MAX_SEQUENCE, dtype=np.int64)
    cells = np.empty(MAX_SEQUENCE, dtype=np.int64)
    players = np.empty(MAX_SEQUENCE, dtype=np.int64)
    scratch = new_scratch()
    done = 0
    while done < count:
        if solver and is_solved(tree, root):
            break
        node = root
        path[0] = root
        depth = 1
        while depth < MAX_SEQUENCE:
            if tree.terminal[node] or (solver and is_solved(tree, node)):
                break
            first = tree.first_child[node]
            if first == NO_NODE:
                if tree.visits[node] > 0 or node == root:
                    expanded, rng = expand(
                        tree, extras, scratch, node, opts, thread, params, net, rng
                    )
                    if expanded:
                        continue
                break
            expanded_count = tree.num_expanded[node]
            limit = np.int64(tree.num_children[node])
            if widen_k > 0.0:
                visits = max(tree.visits[node], 1)
                limit = min(limit, max(1, np.int64(np.ceil(widen_k * visits**widen_alpha))))
            if expanded_count < limit:
                tree.num_expanded[node] = expanded_count + 1
                child = first + expanded_count
            else:
                child = select_child(tree, extras, node, opts)
                if child == NO_NODE:
                    break  # the bounds have settled everything below
            if recorded:
                cells[depth - 1] = extras.cell[child]
                players[depth - 1] = tree.player[node]
            tree.visits[child] += loss
            path[depth] = child
            depth += 1
            node = child
            if expanded_count < limit:
                break  # the child just added is this simulation's leaf
        leaf = node
        length = depth - 1
        finished = True
        f0, f1 = tree.s0[leaf], tree.s1[leaf]
        if tree.terminal[leaf] or (solver and is_solved(tree, leaf)):
            score0 = score_for(tree.pess[leaf], 0)
            finished = tree.terminal[leaf] != 0
        elif recorded:
            prev = cells[length - 1] if length > 0 else np.int64(-2)
            score0, finished, f0, f1, length, rng = playout(
                f0, f1, tree.player[leaf], prev, params, opts, extras, net, cells, players,
                length, rng,
            )  # fmt: skip
        else:
            score0, rng = kernels.rollout(
                f0, f1, tree.player[leaf], params, np.int64(opts[O_POLICY]), rng
            )
        backup(tree, extras, path, depth, score0, opts)
        if rave:
            update_amaf(tree, extras, path, depth, cells, players, length, score0)
        if lgrf:
            update_replies(extras, cells, players, length, score0)
        if crit and finished:
            update_criticality(extras, f0, f1, score0)
        done += 1
    return done, rng


def compiled_enhanced(game: Game) -> dict[str, Any]:
    """The enhanced UCT loop and its helpers compiled for ``game``'s kernels."""
    return specialise(
        (evaluation, child_heuristic, next_child, expand, select_child, playout, run_enhanced),
        game.kernels,
    )


@njit(cache=True, nogil=True)
def find_below(tree, s0, s1, player, max_depth):
    """The most visited node holding the position within ``max_depth`` plies of the root.

    Walks the tree from the root (never the arrays' unused or stale slots); NO_NODE if none.
    """
    root = tree.meta[ROOT]
    frontier = np.empty(1, dtype=np.int64)
    frontier[0] = root
    best, best_visits = np.int64(NO_NODE), np.int64(-1)
    for _ in range(max_depth + 1):
        size = 0
        for node in frontier:
            if tree.first_child[node] != NO_NODE:
                size += tree.num_expanded[node]
        following = np.empty(size, dtype=np.int64)
        size = 0
        for node in frontier:
            same = tree.s0[node] == s0 and tree.s1[node] == s1 and tree.player[node] == player
            if same and tree.visits[node] > best_visits:
                best, best_visits = np.int64(node), np.int64(tree.visits[node])
            first = tree.first_child[node]
            if first != NO_NODE:
                for child in range(first, first + tree.num_expanded[node]):
                    following[size] = child
                    size += 1
        frontier = following
    return best

"""Selection rules of the one loop: which child a simulation walks into.

A template module (see :func:`boardzoo.search.loop.compiled_loop`): the switches below are
module-level names that each compiled copy fixes, so a term that is off is not computed.

UCT (Kocsis & Szepesvári 2006): ``q + c * sqrt(ln N / n)`` with ``q`` the mean score in [0, 1].
Terms composed into ``q`` and the score, each with its switch:

- the solver (Winands et al. 2008; Cazenave & Saffidine 2010): children whose bounds cannot
  improve what the player to move has secured are skipped, proven children count with their
  exact value;
- RAVE (Gelly & Silver 2007, 2011): ``q`` blended with the all-moves-as-first mean by
  ``beta = sqrt(k / (3 n + k))``;
- implicit minimax (Lanctot et al. 2014): ``q`` blended with the minimax value of the
  evaluations below;
- progressive bias (Chaslot et al. 2008): ``+ w * h / (n + 1)`` with ``h`` the evaluation;
- criticality (Coulom 2009): ``+ w * crit(cell) / (n + 1)``.
"""

from __future__ import annotations

import numpy as np

from boardzoo.search.memory import criticality
from boardzoo.search.options import N_BIAS, N_C, N_CRITICALITY, N_MINIMAX, N_RAVE_K
from boardzoo.search.tree import NO_NODE, is_solved, score_for

# Compile-time switches (fixed per compiled copy).
SOLVER = False
RAVE = False
MINIMAX = False
BIAS = False
CRITICALITY = False


def select_uct(tree, b, node, numbers, memory):
    """The open child of ``node`` with the highest UCT score and the terms switched on.

    Returns NO_NODE if the solver skips every child.
    """
    first = tree.first_child[b, node]
    count = tree.num_expanded[b, node]
    mover = tree.player[b, node]
    c = numbers[N_C]
    log_visits = np.log(max(tree.visits[b, node], 1))
    best = NO_NODE
    best_score = -np.inf
    for child in range(first, first + count):
        if SOLVER:
            # Skip children that cannot improve on what the player to move has secured.
            if mover == 0 and tree.opt[b, child] <= tree.pess[b, node]:
                continue
            if mover == 1 and tree.pess[b, child] >= tree.opt[b, node]:
                continue
        visits = tree.visits[b, child]
        if SOLVER and is_solved(tree, b, child):
            q = score_for(tree.pess[b, child], mover)
        else:
            q = tree.value[b, child] / visits if visits > 0 else 0.5
            if RAVE:
                amaf_visits = tree.amaf_visits[b, child]
                if amaf_visits > 0:
                    k = numbers[N_RAVE_K]
                    beta = np.sqrt(k / (3.0 * visits + k))
                    q = (1.0 - beta) * q + beta * tree.amaf_value[b, child] / amaf_visits
            if MINIMAX:
                weight = numbers[N_MINIMAX]
                q = (1.0 - weight) * q + weight * tree.mm[b, child]
        score = q + c * np.sqrt(log_visits / max(visits, 1))
        if BIAS:
            score += numbers[N_BIAS] * tree.heur[b, child] / (visits + 1.0)
        if CRITICALITY:
            crit = criticality(memory, tree.cell[b, child])
            score += numbers[N_CRITICALITY] * crit / (visits + 1.0)
        if score > best_score:
            best_score = score
            best = child
    return best

"""Which rules the one simulation loop composes, and the numbers they read.

:class:`Rules` names the selection rule, the backup rules and the leaf evaluator of a search.
Its switches become compile-time constants of the loop (:meth:`Rules.constants`), so each
combination is compiled once per game and cached, and a rule that is off is not in the machine
code at all; its numbers (exploration constant, weights) travel in a float64 array
(:meth:`Rules.numbers`, slots ``N_*``), so changing them compiles nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "EVAL_HAND",
    "EVAL_LEARNED",
    "N_SOLVE_EMPTIES",
    "ROLLOUT_HEURISTIC",
    "ROLLOUT_POLICIES",
    "ROLLOUT_RANDOM",
    "Rules",
]

ROLLOUT_RANDOM = 0  # the rollout kernels' policies
ROLLOUT_HEURISTIC = 1
ROLLOUT_POLICIES = {"random": ROLLOUT_RANDOM, "heuristic": ROLLOUT_HEURISTIC}  # by name
EVAL_HAND, EVAL_LEARNED = 0, 1

# Slots of the numbers array.
N_C = 0  # UCT's exploration constant
N_POLICY = 1  # ROLLOUT_*: the game's rollout policy
N_RAVE_K = 2  # RAVE's equivalence parameter k
N_BIAS = 3  # progressive bias weight
N_WIDEN_K = 4  # progressive widening: ceil(k * n ** alpha) children open
N_WIDEN_ALPHA = 5
N_CUTOFF = 6  # plies before a playout stops and is scored by the evaluation
N_MINIMAX = 7  # implicit minimax weight
N_CRITICALITY = 8  # criticality bias weight
N_VIRTUAL_LOSS = 9  # visits counted as lost below a node while a simulation runs there
N_EVAL_SCALE = 10  # the hand-made evaluation v maps to tanh(v / scale)
N_C_BASE = 11  # AlphaZero's schedule c_init + log((1 + N + c_base) / c_base); 0: constant
N_GUMBEL = 12  # 0: PUCT; k > 0: Gumbel AlphaZero, k root actions considered
N_C_VISIT = 13  # Gumbel's completed-Q transform: (c_visit + max N) * c_scale
N_C_SCALE = 14
N_SOLVE_EMPTIES = 15  # nodes with at most this many empty squares are solved in the tree
NUM_NUMBERS = 16


@dataclass(frozen=True)
class Rules:
    """The rules one search composes (all off: plain UCT with random rollouts).

    Args:
        c: UCT's exploration constant.
        solver: score-bounded MCTS-Solver backups and selection.
        rollout_policy: ``ROLLOUT_RANDOM`` or ``ROLLOUT_HEURISTIC`` (the game's own policy).
        rave_k: RAVE's equivalence parameter (0: no RAVE).
        progressive_bias: weight of the evaluation term ``w * h / (n + 1)`` (0: off).
        widening_k: progressive widening's ``k`` (0: off); ``widening_alpha`` its exponent.
        lgrf: last-good-reply-with-forgetting playouts.
        cutoff: plies before playouts are scored by the evaluation (``None``: played out).
        minimax_weight: implicit minimax backups' weight (0: off).
        criticality: weight of Coulom's criticality term (0: off).
        threads: threads growing the tree (tree parallelism with virtual loss when > 1).
        virtual_loss: visits counted as lost per simulation below a node (threads > 1).
        learned_eval: the evaluation is the game's shipped n-tuple network (else hand-made).
        solve_empties: positions with at most this many empty squares are solved by the game's
            solver when a simulation first reaches them, their results proven (0: never;
            needs ``solver``; see :mod:`boardzoo.search.handover`).
    """

    c: float = math.sqrt(2.0)
    solver: bool = False
    rollout_policy: int = ROLLOUT_RANDOM
    rave_k: float = 0.0
    progressive_bias: float = 0.0
    widening_k: float = 0.0
    widening_alpha: float = 0.5
    lgrf: bool = False
    cutoff: int | None = None
    minimax_weight: float = 0.0
    criticality: float = 0.0
    threads: int = 1
    virtual_loss: int = 1
    learned_eval: bool = False
    solve_empties: int = 0

    @property
    def enhanced(self) -> bool:
        """Whether any enhancement of plain UCT is on (tree parallelism is none)."""
        return (
            self.rave_k > 0
            or self.progressive_bias > 0
            or self.widening_k > 0
            or self.lgrf
            or self.cutoff is not None
            or self.minimax_weight > 0
            or self.criticality > 0
        )

    @property
    def uses_evaluation(self) -> bool:
        """Whether the game's evaluation (hand-made or learned) is read."""
        return (
            self.progressive_bias > 0
            or self.widening_k > 0
            or self.cutoff is not None
            or self.minimax_weight > 0
        )

    @property
    def records_moves(self) -> bool:
        """Whether playouts are recorded move by move (so the game's own rollout cannot run)."""
        return self.rave_k > 0 or self.lgrf or self.criticality > 0 or self.cutoff is not None

    def constants(self) -> dict[str, int | bool]:
        """The loop's compile-time switches for these rules."""
        evaluates = self.progressive_bias > 0 or self.widening_k > 0 or self.minimax_weight > 0
        return {
            "SOLVER": self.solver,
            "PENDING": self.threads > 1 and self.virtual_loss > 0,
            "RAVE": self.rave_k > 0,
            "BIAS": self.progressive_bias > 0,
            "WIDENING": self.widening_k > 0,
            "LGRF": self.lgrf,
            "CUTOFF": self.cutoff is not None,
            "MINIMAX": self.minimax_weight > 0,
            "CRITICALITY": self.criticality > 0,
            "EVALUATES": evaluates,
            "RECORDS": self.records_moves,
            "LEARNED": self.learned_eval and self.uses_evaluation,
            "SOLVE": self.solver and self.solve_empties > 0,
        }

    def numbers(self, evaluation_scale: float) -> np.ndarray:
        """The loop's float64 numbers array (slots ``N_*``)."""
        numbers = np.zeros(NUM_NUMBERS, dtype=np.float64)
        numbers[N_C] = self.c
        numbers[N_POLICY] = self.rollout_policy
        numbers[N_RAVE_K] = self.rave_k
        numbers[N_BIAS] = self.progressive_bias
        numbers[N_WIDEN_K] = self.widening_k
        numbers[N_WIDEN_ALPHA] = self.widening_alpha
        numbers[N_CUTOFF] = -1.0 if self.cutoff is None else float(self.cutoff)
        numbers[N_MINIMAX] = self.minimax_weight
        numbers[N_CRITICALITY] = self.criticality
        numbers[N_VIRTUAL_LOSS] = float(self.virtual_loss if self.threads > 1 else 0)
        numbers[N_EVAL_SCALE] = evaluation_scale
        numbers[N_SOLVE_EMPTIES] = self.solve_empties
        return numbers

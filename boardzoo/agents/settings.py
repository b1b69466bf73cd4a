"""The search agents' options, in a few groups, each option defined once.

    MCTSAgent(Budget(time_limit=1.0), UCTSettings(solver=True), Enhancements(rave=True))
    AlphaZeroAgent(budget=Budget(simulations=400), puct=PUCTSettings(search="gumbel"))

A spec names the same options flat (``mcts:time_limit=1,solver=true,rave=true``): the registry
finds each key in the group it belongs to (:func:`boardzoo.agents.registry.spec_options`). Every
value is checked when its group is made; a bad one raises ``ValueError("key=value is not
allowed: it must be ...")``.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from boardzoo.agents.presets import PRESETS, preset_options
from boardzoo.checks import (
    check_choice,
    check_int,
    check_number,
    check_optional_int,
    check_optional_number,
)
from boardzoo.errors import InvalidTypeError, InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.search import tree as tr
from boardzoo.search.batched_settings import BatchedSearchSettings
from boardzoo.search.handover import default_empties
from boardzoo.search.options import ROLLOUT_POLICIES, ROLLOUT_RANDOM, Rules

__all__ = [
    "SOLVER_THRESHOLDS",
    "Budget",
    "Endgame",
    "Enhancements",
    "PUCTSettings",
    "Settings",
    "TreeSettings",
    "UCTSettings",
    "check_group",
    "uct_rules",
]

MAX_WORKERS = 256
MAX_THREADS = 64
MAX_LEAVES = 64
TIMED_LEAVES = 64  # leaves per network call of a PUCT search with only a time limit
_MAX_SIMULATIONS = 2**62  # the compiled loops count in int64
_ROLLOUTS = {**ROLLOUT_POLICIES, "lgrf": ROLLOUT_RANDOM}  # LGRF records random playouts


class Settings:
    """A group of an agent's options (a frozen dataclass); a constructor parameter annotated
    with a subclass contributes its fields to the agent's spec keys."""

    def replace(self, **changes: Any) -> Any:
        """A copy with ``changes`` (checked like a new group)."""
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]  # (every Settings subclass is a dataclass)


def check_group(name: str, value: Any, kind: type[Settings]) -> Any:
    """``value`` if it is a ``kind`` (an agent's group of options), else a ``TypeError``."""
    if not isinstance(value, kind):
        raise InvalidTypeError(f"{name} must be a {kind.__name__}, got {type(value).__name__}")
    return value


def _set(group: Settings, name: str, value: Any) -> None:
    object.__setattr__(group, name, value)


@dataclass(frozen=True)
class Budget(Settings):
    """How long each move's search runs.

    Attributes:
        simulations: simulations per move (at least 1); none: the agent's own default
            (``mcts`` 1000, ``az`` and ``sb3puct`` 200) when ``time_limit`` is not given either.
        time_limit: seconds per move (a number > 0). With ``simulations`` too, whichever comes
            first.
    """

    simulations: int | None = None
    time_limit: float | None = None

    def __post_init__(self) -> None:
        simulations = check_optional_int("simulations", self.simulations, 1)
        if simulations is not None:
            simulations = min(simulations, _MAX_SIMULATIONS)
        _set(self, "simulations", simulations)
        _set(self, "time_limit", check_optional_number("time_limit", self.time_limit))

    def simulations_or(self, default: int) -> int | None:
        """The simulations per move: as given, or ``default`` when no budget is given at all."""
        if self.simulations is None and self.time_limit is None:
            return default
        return self.simulations

    def text(self, default: int) -> str:
        """``simulations=N`` or ``time_limit=S``, as a spec writes the budget."""
        if self.time_limit is None:
            return f"simulations={self.simulations_or(default)}"
        return f"time_limit={self.time_limit}"


def _physical_memory() -> int | None:
    """Bytes of memory of this machine, or None where the system does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return None


@dataclass(frozen=True)
class TreeSettings(Settings):
    """How many trees a search grows, how large, whether they are kept, and the move played.

    Attributes:
        workers: searches run in parallel threads (1 to 256), each with its own tree (root
            parallelisation); their root visit counts are added up.
        max_nodes: nodes each tree may hold (51 bytes each, allocated as they are used); once
            full, simulations go on from the leaves the tree has. At least 65 (the root and up
            to 64 moves); all trees must fit in the machine's memory.
        reuse_tree: keep the tree between moves of a game; the next search starts from the node
            of the actual position (the most visited one within two moves of the last root,
            passes not counted) if the tree holds it. None: the agent's default (``az``: on;
            ``mcts``: its preset's, else off; the others: off).
        final: ``"robust"`` plays the most visited move, ``"max"`` the best mean value; ties are
            broken by the other.
    """

    workers: int = 1
    max_nodes: int = 1_000_000
    reuse_tree: bool | None = None
    final: Literal["robust", "max"] = "robust"

    def __post_init__(self) -> None:
        workers = check_int("workers", self.workers, 1, MAX_WORKERS)
        nodes = check_int("max_nodes", self.max_nodes, tr.MIN_NODES, tr.MAX_NODES)
        need = nodes * tr.BYTES_PER_NODE * workers
        memory = _physical_memory()
        if memory is not None and need > memory:
            raise InvalidValueError(
                f"max_nodes={nodes} is not allowed: {workers} tree(s) of {nodes} nodes "
                f"({tr.BYTES_PER_NODE} bytes each) need {need / 1e9:.1f} GB, more than this "
                f"machine's {memory / 1e9:.1f} GB of memory; it must be at most "
                f"{max(tr.MIN_NODES, memory // (tr.BYTES_PER_NODE * workers))}"
            )
        _set(self, "workers", workers)
        _set(self, "max_nodes", nodes)
        _set(self, "reuse_tree", None if self.reuse_tree is None else bool(self.reuse_tree))
        _set(self, "final", check_choice("final", self.final, ("robust", "max")))


UCT_C = math.sqrt(2.0)


@dataclass(frozen=True)
class UCTSettings(Settings):
    """UCT's rule: the exploration constant, the solver and the playouts.

    Attributes:
        c: UCT's exploration constant (a number > 0).
        solver: MCTS-Solver: propagate proven wins and losses, play a proven win at once and
            avoid proven losses.
        rollout: ``"random"``, ``"heuristic"``, the game's own rollout policy, for games that
            have one (Reversi: corners first, avoid the squares diagonally next to them, one
            move in eight at random), or ``"lgrf"``: last good reply with forgetting (Baier &
            Drake 2010): each player replies to the previous move with its reply from the last
            playout it won, while that reply is legal; a lost playout forgets its replies.
    """

    c: float = UCT_C
    solver: bool = False
    rollout: Literal["random", "heuristic", "lgrf"] = "random"

    def __post_init__(self) -> None:
        _set(self, "c", check_number("c", self.c))
        _set(self, "solver", bool(self.solver))
        _set(self, "rollout", check_choice("rollout", self.rollout, tuple(_ROLLOUTS)))


@dataclass(frozen=True)
class Enhancements(Settings):
    """The enhancements of UCT (all off by default), and the presets that combine them.

    Attributes:
        rave: RAVE (Gelly & Silver 2007): all-moves-as-first statistics per child, blended with
            its mean by ``beta = sqrt(rave_k / (3 n + rave_k))``.
        rave_k: RAVE's equivalence parameter: the visits at which both count about equally.
        progressive_bias: weight ``w`` of the evaluation ``h`` of a child (in [0, 1] for the
            player choosing it) added to its UCT score as ``w * h / (n + 1)`` (0: off).
        progressive_widening: only the best ``ceil(widening_k * n ** widening_alpha)``
            children by evaluation are open at a node with ``n`` visits.
        widening_k: see ``progressive_widening``.
        widening_alpha: see ``progressive_widening``.
        criticality: weight ``w`` of Coulom's criticality of a move's square (how much owning
            it at the end of the playouts goes with winning) added as ``w * crit / (n + 1)``
            (0: off).
        cutoff: stop playouts after this many plies and score them with the evaluation
            (0: the evaluation alone, no playout); ``None`` plays them out.
        minimax_weight: implicit minimax backups (Lanctot et al. 2014): each node keeps the
            minimax value of the evaluations below it, blended into its mean with this weight
            (0: off).
        eval: the evaluation that ``cutoff``, ``minimax_weight``, ``progressive_bias`` and
            ``progressive_widening`` read: ``"hand"``, the game's hand-made one, or
            ``"learned"``, its shipped n-tuple network (:mod:`boardzoo.learned`).
        threads: threads growing one shared tree (tree parallelism, lock-free as in
            Enzenberger & Müller 2009); with ``workers``, each worker's tree has this many.
        virtual_loss: visits counted as lost at each node below which a thread's simulation
            is running, so other threads look elsewhere (with ``threads`` > 1).
        preset: ``"strong"``: the best combination of the options above found for the game by
            ``experiments/enhancements.py`` (the game's
            :attr:`~boardzoo.games.spec.GameSpec.presets`); options set to other than their
            defaults win over the preset's.
    """

    rave: bool = False
    rave_k: float = 300.0
    progressive_bias: float = 0.0
    progressive_widening: bool = False
    widening_k: float = 2.0
    widening_alpha: float = 0.5
    criticality: float = 0.0
    cutoff: int | None = None
    minimax_weight: float = 0.0
    eval: Literal["hand", "learned"] = "hand"
    threads: int = 1
    virtual_loss: int = 1
    preset: Literal["none", "strong"] = "none"

    def __post_init__(self) -> None:
        _set(self, "rave", bool(self.rave))
        _set(self, "rave_k", check_number("rave_k", self.rave_k, 0.0, None, False))
        bias = check_number("progressive_bias", self.progressive_bias, 0.0, None, False)
        _set(self, "progressive_bias", bias)
        _set(self, "progressive_widening", bool(self.progressive_widening))
        _set(self, "widening_k", check_number("widening_k", self.widening_k, 0.0, None, False))
        alpha = check_number("widening_alpha", self.widening_alpha, 0.0, 1.0, False)
        _set(self, "widening_alpha", alpha)
        _set(self, "criticality", check_number("criticality", self.criticality, 0.0, None, False))
        _set(self, "cutoff", check_optional_int("cutoff", self.cutoff, 0))
        weight = check_number("minimax_weight", self.minimax_weight, 0.0, 1.0, False)
        _set(self, "minimax_weight", weight)
        _set(self, "eval", check_choice("eval", self.eval, ("hand", "learned")))
        _set(self, "threads", check_int("threads", self.threads, 1, MAX_THREADS))
        _set(self, "virtual_loss", check_int("virtual_loss", self.virtual_loss, 0, 1_000_000))
        _set(self, "preset", check_choice("preset", self.preset, ("none", *PRESETS)))


@dataclass(frozen=True)
class Endgame(Settings):
    """The handover to the game's exact solver (:mod:`boardzoo.search.handover`).

    Attributes:
        exact_empties: a position with at most this many empty squares is solved before any
            search, within the move's clock, and the solver's move played when it finishes in
            time (0: never). None: the agent's default: ``az`` and ``mcts:preset=strong`` use
            the game's own solver's threshold (Reversi's 20), the others never solve.
        solve_empties: nodes of the tree with at most this many empty squares are solved
            when a simulation first reaches them, and their win, draw or loss backed up as
            proven (MCTS-Solver's bounds, which it turns on; 0: never). None: the agent's
            default, as for ``exact_empties`` (Reversi's solver: 12).
    """

    exact_empties: int | None = None
    solve_empties: int | None = None

    def __post_init__(self) -> None:
        _set(self, "exact_empties", check_optional_int("exact_empties", self.exact_empties, 0, 64))
        _set(self, "solve_empties", check_optional_int("solve_empties", self.solve_empties, 0, 64))

    def for_game(
        self, game: Game, given: Mapping[str, int | None] | None = None
    ) -> tuple[int, int]:
        """``(exact_empties, solve_empties)`` for ``game``: an option left at None takes its
        value from ``given`` (a preset's options, or :data:`SOLVER_THRESHOLDS`), where a None
        stands for the game's own solver's threshold; an option neither set nor given is 0."""
        given = given or {}
        defaults = dict(zip(("exact_empties", "solve_empties"), default_empties(game), strict=True))
        values = []
        for key, default in defaults.items():
            value = getattr(self, key)
            if value is None and key in given:
                value = given[key]
                value = default if value is None else value
            values.append(0 if value is None else int(value))
        return values[0], values[1]


# What ``az`` takes for the options it leaves at None: the game's own solver's thresholds.
SOLVER_THRESHOLDS: dict[str, int | None] = {"exact_empties": None, "solve_empties": None}


def uct_rules(
    uct: UCTSettings,
    enhancements: Enhancements,
    game: str | None = None,
    solve_empties: int = 0,
) -> Rules:
    """The :class:`~boardzoo.search.options.Rules` that UCT and its enhancements compose.

    Args:
        uct: UCT's constant, solver and playouts.
        enhancements: the enhancements; their preset applies to the options left at their
            defaults (and to ``c`` left at sqrt(2)).
        game: the name of the game searched (the preset's choices depend on it), or ``None``.
        solve_empties: nodes with at most this many empty squares are solved inside the tree
            (the solver's bounds are then on).
    """
    c = uct.c
    if enhancements.preset != "none" and game is not None:
        defaults = Enhancements()
        changes: dict[str, Any] = {}
        for key, value in preset_options(enhancements.preset, game).items():
            if key == "c":
                c = value if uct.c == UCT_C else uct.c
            elif hasattr(defaults, key) and getattr(enhancements, key) == getattr(defaults, key):
                changes[key] = value
        enhancements = enhancements.replace(**changes)
    e = enhancements
    return Rules(
        c=c,
        solver=uct.solver or solve_empties > 0,
        rollout_policy=_ROLLOUTS[uct.rollout],
        rave_k=e.rave_k if e.rave else 0.0,
        progressive_bias=e.progressive_bias,
        widening_k=e.widening_k if e.progressive_widening else 0.0,
        widening_alpha=e.widening_alpha,
        lgrf=uct.rollout == "lgrf",
        cutoff=e.cutoff,
        minimax_weight=e.minimax_weight,
        criticality=e.criticality,
        threads=e.threads,
        virtual_loss=e.virtual_loss,
        learned_eval=e.eval == "learned",
        solve_empties=solve_empties,
    )


@dataclass(frozen=True)
class PUCTSettings(Settings):
    """AlphaZero's search: PUCT (or Gumbel AlphaZero) with a network's priors and values.

    Attributes:
        search: ``"puct"`` (AlphaZero's PUCT at the root) or ``"gumbel"`` (Gumbel AlphaZero's
            sequential halving; needs simulations and no time limit).
        c_init: PUCT's exploration constant (a number > 0).
        c_base: AlphaZero's schedule ``c_init + log((1 + N_parent + c_base) / c_base)``; 0 keeps
            ``c_init`` constant.
        dirichlet_alpha: AlphaZero's root noise: the concentration of the Dirichlet noise mixed
            into the root's priors (PUCT only), or ``None`` for no noise.
        dirichlet_epsilon: the weight of that noise in the root's priors, in [0, 1].
        gumbel_k: root actions Gumbel AlphaZero considers (at least 1).
        leaves: leaves gathered per network call with virtual loss (1 to 64; 1: plain PUCT);
            none: 1 with a simulation budget (the most accurate), 64 with only a time limit
            (about twice the simulations per second of 8, and at least as strong at equal
            time).
    """

    search: Literal["puct", "gumbel"] = "puct"
    c_init: float = 1.25
    c_base: float = 19652.0
    dirichlet_alpha: float | None = None
    dirichlet_epsilon: float = 0.25
    gumbel_k: int = 16
    leaves: int | None = None

    def __post_init__(self) -> None:
        _set(self, "search", check_choice("search", self.search, ("puct", "gumbel")))
        _set(self, "c_init", check_number("c_init", self.c_init))
        _set(self, "c_base", check_number("c_base", self.c_base, 0.0, None, False))
        alpha = check_optional_number("dirichlet_alpha", self.dirichlet_alpha)
        _set(self, "dirichlet_alpha", alpha)
        epsilon = check_number("dirichlet_epsilon", self.dirichlet_epsilon, 0.0, 1.0, False)
        _set(self, "dirichlet_epsilon", epsilon)
        _set(self, "gumbel_k", check_int("gumbel_k", self.gumbel_k, 1, tr.MAX_CHILDREN))
        _set(self, "leaves", check_optional_int("leaves", self.leaves, 1, MAX_LEAVES))

    def leaves_for(self, budget: Budget) -> int:
        """Leaves per network call: as given, else 1 with a simulation budget and
        :data:`TIMED_LEAVES` with only a time limit (Gumbel: always 1)."""
        if self.search == "gumbel":
            return 1
        if self.leaves is not None:
            return self.leaves
        return TIMED_LEAVES if budget.simulations is None and budget.time_limit is not None else 1

    def batched_settings(
        self, budget: Budget, *, max_nodes: int | None = None, solve_empties: int = 0
    ) -> BatchedSearchSettings:
        """The batched search's settings (:class:`~boardzoo.search.batched.BatchedSearch`) for
        these options: the one mapping from them to the search's, which the PUCT agents and
        AlphaZero's training both use.

        Args:
            budget: the search's budget (it sets the leaves per network call: :meth:`leaves_for`).
            max_nodes: nodes each tree may hold (``None``: as many as the budget needs).
            solve_empties: leaves with at most this many empty squares are solved (0: none).

        Returns:
            The settings, Dirichlet noise left out under Gumbel (its root noise is its own).
        """
        gumbel = self.search == "gumbel"
        return BatchedSearchSettings(
            c_init=self.c_init,
            c_base=self.c_base,
            dirichlet_alpha=None if gumbel else self.dirichlet_alpha,
            dirichlet_epsilon=self.dirichlet_epsilon,
            gumbel=gumbel,
            gumbel_k=self.gumbel_k,
            leaves_per_tree=self.leaves_for(budget),
            max_nodes=max_nodes,
            solve_empties=solve_empties,
        )

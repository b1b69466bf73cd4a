"""The engine: boardzoo's strongest player, a game-program alpha-beta search on a clock.

``engine:time_limit=1`` searches the way strong Othello and chess programs do: the depth-first
search of :mod:`boardzoo.gametree` with every idea on (:data:`boardzoo.gametree.settings.ENGINE`:
principal-variation search, a transposition table kept from move to move, move ordering by the
table's move, the children's evaluation, killers and history, and multi-ProbCut), driven by
iterative deepening with aspiration windows (:mod:`boardzoo.gametree.deepening`); the game's
learned evaluation at the horizon. Where the game has an exact solve of its own (Reversi's,
:mod:`boardzoo.gametree.reversi`), positions with at most
``exact_empties`` empty squares are solved: win/draw/loss first, then the exact score, each
within the move's clock (:func:`boardzoo.search.handover.solve_root`, as the MCTS agents do); a
solve that cannot finish in time leaves the move to the search.

Time: the search reads the clock itself and stops at the move's limit; it starts no new
iteration after a share of the limit (an iteration takes a few times the previous one), a larger
share when the last iteration changed its mind (a new best move, or a score that fell): critical
positions get more of the clock (:data:`boardzoo.gametree.deepening.ENGINE_DEEPENING`).

References: Slate & Atkin, "CHESS 4.5" (1977), iterative deepening and the transposition table;
Marsland & Campbell, "Parallel search of strongly ordered game trees" (1982), principal-variation
search; Schaeffer, "The history heuristic" (1989); Buro, "Experiments with Multi-ProbCut" (1997).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from boardzoo.agents.base import Agent, Seed, board_state, env_state, legal_or_raise, make_rng
from boardzoo.agents.compiling import compile_notice
from boardzoo.checks import check_int, check_optional_int, check_optional_number
from boardzoo.clock import monotonic_ns
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.state import BoardState, GameState
from boardzoo.gametree.deepening import ENGINE_DEEPENING, IterativeDeepening
from boardzoo.gametree.probcut import (
    DEFAULT_PROBCUT,
    probcut_file,
    probcut_stage_sigmas,
    search_probcut,
)
from boardzoo.gametree.settings import ENGINE
from boardzoo.learned.ntuple import check_net_fits, has_net, load_net, load_net_file
from boardzoo.search.handover import default_empties, prepare_solver, solve_root

__all__ = ["EngineAgent", "EngineInfo"]

MAX_DEPTH = 60  # iterations stop here at the latest (Reversi's 8x8 board has 60 empties)
CLOCK_MARGIN_NS = 3_000_000  # what a move keeps back from its limit for the caller
EVALS = ("auto", "hand", "learned")


@dataclass(frozen=True)
class EngineInfo:
    """What the last search did (``EngineAgent.last_search``).

    Attributes:
        action: the move chosen.
        score: its score for the player to move: a solver's exact score (Reversi: the final disc
            difference) when ``solved``, else the search's (the evaluation's units; a finished
            game scores :data:`~boardzoo.gametree.template.WIN` plus its margin).
        depth: plies of the last completed iteration (0 when the solver chose the move).
        nodes: positions searched, the solver's included.
        seconds: wall time.
        exact: the score is the game-theoretic value.
        solved: the solver chose the move (``"exact"``, ``"wld"`` when only win/draw/loss was
            proven in time), else ``None``.
    """

    action: int
    score: int
    depth: int
    nodes: int
    seconds: float
    exact: bool
    solved: Literal["exact", "wld"] | None = None

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else float("inf")


def _cells(bits: int) -> list[int]:
    return [i for i in range(bits.bit_length()) if bits >> i & 1]


class EngineAgent(Agent):
    """Iterative-deepening principal-variation search on a clock, with a solver for endgames.

    Args:
        time_limit: seconds per move (a number > 0), or ``None`` for a fixed ``depth``.
        depth: the deepest iteration in plies (1 to 60), or ``None``: as deep as the clock
            allows.
        exact_empties: positions with at most this many empty squares are solved by the game's
            exact solver, within the clock (``None``: the solver's own ``TAKEOVER_EMPTIES``,
            what it finishes in about a second; 0: never). Games without a solver of their own
            are proven by the search itself, deepening to the end of the game.
        eval: the horizon evaluation: ``learned`` (the game's n-tuple network), ``hand`` (the
            game's hand-made one), or ``auto``: learned where the game ships a net.
        probcut: multi-ProbCut's threshold in standard errors of the shallow searches; 0 turns
            it off (the search is then exact to its depth); none: 1.5 where the evaluation is
            calibrated for the game (Reversi, Connect Four), else off. The errors are measured
            per game, evaluation and stage (:mod:`boardzoo.gametree.probcut`). A ``net`` file
            is searched with the errors measured for it beside it, ``NET.probcut.json``
            (``boardzoo probcut ... --net NET.npz``), 1.5 by default; without that file, off
            unless given, and then with its game's shipped net's errors.
        net: an n-tuple net file (``.npz``, :mod:`boardzoo.learned.ntuple`) to evaluate with
            in place of the game's shipped one (implies the learned evaluation).
        table_bits: the transposition table holds ``2**table_bits`` entries (10 to 26; 20 takes
            32 MB).
        seed: seed of the tie-breaking between equally good root moves.
    """

    name = "engine"

    def __init__(
        self,
        time_limit: float | None = 1.0,
        depth: int | None = None,
        exact_empties: int | None = None,
        eval: Literal["auto", "hand", "learned"] = "auto",
        probcut: float | None = None,
        net: str | None = None,
        table_bits: int = 20,
        seed: Seed = None,
    ) -> None:
        self.time_limit = check_optional_number("time_limit", time_limit)
        self.depth = check_optional_int("depth", depth, 1, MAX_DEPTH)
        if self.time_limit is None and self.depth is None:
            raise InvalidValueError(
                "time_limit=none needs a depth: give a time limit, a depth or both"
            )
        self.exact_empties = check_optional_int("exact_empties", exact_empties, 0, 64)
        if eval not in EVALS:
            raise InvalidValueError(f"eval must be one of {', '.join(EVALS)}, got {eval!r}")
        self.eval = eval
        if probcut is not None and (
            not isinstance(probcut, (int, float)) or isinstance(probcut, bool) or probcut < 0
        ):
            raise InvalidValueError(f"probcut={probcut!r} is not allowed: a number >= 0 (0 is off)")
        self.probcut = None if probcut is None else float(probcut)
        self.net = net
        self._net_file = load_net_file(net) if net is not None else None
        self.table_bits = check_int("table_bits", table_bits, 10, 26)
        self.seed = seed
        self._rng = make_rng(seed)
        self._driver: IterativeDeepening | None = None
        self._prepared: Game | None = None
        self.last_search: EngineInfo | None = None

    # --- the Agent interface -------------------------------------------------------------------

    def reset(self) -> None:
        """Forget the table and the move-ordering statistics (a new game)."""
        if self._driver is not None:
            self._driver.forget()

    def prepare(self, game: Game) -> None:
        """Load (or compile, the first time, with a notice) the game's search and run it once,
        before any clock starts; checks that the evaluation asked for exists."""
        net = self._net(game)
        self._probcut(game, net)  # a clear error now if multi-ProbCut is not calibrated
        if self._prepared != game:
            with compile_notice(f"the engine's search for {game.name}", 20):
                self._search_state(game.initial_state(), 2, None, net, make_rng(0))
                if game.spec.tree_plugin is not None and self._takeover(game):
                    prepare_solver(game)
            self._prepared = game
            self.reset()

    def act(self, env: Any) -> int:
        """Search from ``env``'s position (never changed) and return the chosen action."""
        return self.search(env_state(env)).action

    def search(self, state: GameState) -> EngineInfo:
        """Search a game state directly; returns (and stores) :attr:`last_search`."""
        position = board_state(state, "EngineAgent")
        if self._prepared != position.game:
            self.prepare(position.game)
        net = self._net(position.game)
        info = self._search_state(position, self.depth, self.time_limit, net, self._rng, True)
        self.last_search = info
        return info

    # --- the search ----------------------------------------------------------------------------

    def check_game(self, game: Game) -> None:
        """The evaluation asked for exists for ``game`` and fits it, and multi-ProbCut is
        calibrated for it: :meth:`prepare`'s checks, without compiling anything."""
        self._probcut(game, self._net(game))

    def _net(self, game: Game) -> tuple[np.ndarray, ...] | None:
        if self._net_file is not None:
            check_net_fits(self._net_file, game, str(self.net))
            return tuple(self._net_file)
        if self.eval == "hand" or (self.eval == "auto" and not has_net(game)):
            return None
        return tuple(load_net(game))

    def _calibrated_net(self, game: Game) -> str | None:
        """The net file in use where it has a calibration of its own beside it, else ``None``."""
        if self.net is None or not probcut_file(game, self.net).is_file():
            return None
        return self.net

    def _cut(self, game: Game, net: tuple[np.ndarray, ...] | None) -> float:
        """Multi-ProbCut's threshold for ``game``: as given, else :data:`DEFAULT_PROBCUT` where
        the evaluation in use is calibrated (a net file: by a file beside it), else 0 (off)."""
        if self.probcut is not None:
            return self.probcut
        if self.net is not None:
            return DEFAULT_PROBCUT if self._calibrated_net(game) is not None else 0.0
        try:
            probcut_stage_sigmas(game, "hand" if net is None else "learned")
        except ValueError:
            return 0.0
        return DEFAULT_PROBCUT

    def _probcut(self, game: Game, net: tuple[np.ndarray, ...] | None) -> np.ndarray:
        """The compiled search's ``probcut`` array: the table's age, the threshold, and the
        evaluation's calibrated errors by stage and depth (:mod:`boardzoo.gametree.probcut`)."""
        evaluation = "hand" if net is None else "learned"
        return search_probcut(game, evaluation, self._cut(game, net), self._calibrated_net(game))

    def _takeover(self, game: Game) -> int:
        if self.exact_empties is not None:
            return self.exact_empties
        return default_empties(game)[0]

    def _search_state(
        self,
        state: BoardState,
        depth: int | None,
        time_limit: float | None,
        net: tuple[np.ndarray, ...] | None,
        rng: np.random.Generator,
        solve_ok: bool = False,
    ) -> EngineInfo:
        legal_or_raise(state)
        game, params, player = state.game, state.game.params, state.current_player
        start = time.perf_counter()
        deadline = 0
        if time_limit is not None:
            deadline = monotonic_ns() + max(int(time_limit * 1e9) - CLOCK_MARGIN_NS, 1)
        if self._driver is None or self._driver.game != game:
            self._driver = IterativeDeepening(game, ENGINE, ENGINE_DEEPENING, self.table_bits)
        s0, s1 = (np.uint64(b) for b in state.bitboards())

        if solve_ok and game.spec.tree_plugin is not None:
            clock = None if time_limit is None else start + time_limit - CLOCK_MARGIN_NS * 1e-9
            solved = solve_root(state, self._takeover(game), clock)
            if solved is not None:
                how: Literal["exact", "wld"] = "exact" if solved.exact else "wld"
                seconds = time.perf_counter() - start
                action = solved.best_moves[0]
                return EngineInfo(action, solved.score, 0, solved.nodes, seconds, True, how)

        cells = _cells(int(game.kernels.placements(s0, s1, player, params))) or [-1]
        shuffled = [cells[i] for i in rng.permutation(len(cells))]
        keys = {c: game.kernels.order_key(s0, s1, player, c, 0, params) if c >= 0 else 0
                for c in cells}  # fmt: skip
        root = np.array(sorted(shuffled, key=keys.__getitem__), dtype=np.int64)
        probcut = self._probcut(game, net)
        found = self._driver.search(
            s0, s1, player, root, list(range(1, (depth or MAX_DEPTH) + 1)), deadline,
            int((time_limit or 0) * 1e9), probcut, net,
        )  # fmt: skip
        return EngineInfo(
            action=int(game.kernels.cell_action(found.cell, params)),
            score=found.score,
            depth=found.depth,
            nodes=found.nodes,
            seconds=time.perf_counter() - start,
            exact=found.exact,
        )

    def __repr__(self) -> str:
        return (
            f"EngineAgent(time_limit={self.time_limit}, depth={self.depth}, "
            f"exact_empties={self.exact_empties}, eval={self.eval!r}, probcut={self.probcut}, "
            f"net={self.net!r})"
        )

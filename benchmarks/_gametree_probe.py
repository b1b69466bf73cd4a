"""One checkout's depth-first searches, measured on request over stdin/stdout (JSON lines).

    cd CHECKOUT && PYTHONPATH=CHECKOUT python PATH/TO/_gametree_probe.py

``bench_gametree_versions.py`` starts this program once per checkout it compares, with that
checkout's folder as working directory and ``PYTHONPATH``, so that every search below runs *that*
checkout's code. The file itself lives in the checkout that measures, beside its caller. It uses
only what the checkouts before and after the search package's redesign both have: the exact
solver (``boardzoo.gametree.solve``, else the older ``boardzoo.search.solver``: ``solve``,
``forget_tables``, ``empties_of``), ``AlphaBetaAgent``, ``EngineAgent``, the catalog's
``make_game``, ``ReversiState.from_obf``, Connect Four's ``from_columns`` and the arena's
``parse_opening``.

The protocol, one JSON object a line each way, UTF-8. On start the program writes
``{"ready": true, "boardzoo": PATH, "solver": MODULE}`` (``PATH``: the ``boardzoo/__init__.py``
it imported, which the caller checks is that checkout's). Then each request line is answered by
one line, ``{"error": TEXT}`` when it fails (the program goes on):

- ``{"kind": "warmup", "kinds": [...]}``: compile (or load from numba's cache) the searches of
  those measurements and run each once; answers ``{"seconds": S}``;
- ``{"kind": "ffo", "obf": LINE}``: the exact solve of an FFO line from a fresh table (a table of
  2**22 entries, ``forget_tables()`` first); answers ``score``, ``move`` (its name, lower case),
  ``empties``, ``nodes``, ``seconds`` (the solver's);
- ``{"kind": "alphabeta", "opening": MOVES, "depth": D, "seed": S}``: ``AlphaBetaAgent(depth=D,
  exact_empties=0, seed=S)`` searches the Reversi position after the opening (``"f5d6c4d3"``);
  answers ``move``, ``score``, ``depth``, ``nodes``, ``seconds``;
- ``{"kind": "engine", "opening": MOVES, "time_limit": T, "seed": S}``: a new, prepared
  ``EngineAgent(time_limit=T, seed=S)`` searches the position after the opening; answers
  ``move``, ``depth``, ``nodes``, ``seconds``;
- ``{"kind": "connect_four_positions", "discs": [N, ...], "count": K, "seed": S}``: ``K``
  different positions with ``N`` discs for each ``N``, from random legal moves (a NumPy generator
  seeded with ``S``), none finished; answers ``{"positions": {"N": [COLUMNS, ...]}}``, each
  position its moves as columns 1-7 (``"4455"``), fewer where random games seldom get there;
- ``{"kind": "connect_four", "columns": COLUMNS}``: the exact solve of that Connect Four position
  from a fresh table; answers ``score``, ``move``, ``nodes``, ``seconds``;
- ``{"kind": "quit"}``, or the end of stdin: the program ends.

Nothing else is written on stdout: the protocol keeps its own copy of the file descriptor, and file
descriptor 1 and ``sys.stdout`` go to stderr (compile notices, anything compiled code prints).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any, TextIO

# This file's folder is sys.path[0]; the checkout's package must come from PYTHONPATH, and nothing
# of the measuring checkout's benchmarks may shadow a module there.
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p and str(Path(p).resolve()) != _HERE]
# An editable install of boardzoo (``pip install -e``) puts a finder at the end of sys.meta_path
# that maps ``boardzoo`` to the installed checkout: it would answer a module that the checkout
# measured lacks (``boardzoo.gametree`` in one from before the redesign) with the installed
# checkout's. Only PYTHONPATH's package may be imported.
sys.meta_path[:] = [
    f for f in sys.meta_path if not str(getattr(f, "__module__", "")).startswith("__editable__")
]
sys.path_hooks[:] = [
    h for h in sys.path_hooks if not str(getattr(h, "__module__", "")).startswith("__editable__")
]
sys.path_importer_cache.clear()

TABLE_BITS = 22  # the exact solves' transposition tables: 2**22 entries
RANDOM_TRIES = 1000  # random games tried for each Connect Four position asked, at most


def _protocol_stream() -> TextIO:
    """A line-buffered text file on the real stdout; fd 1 and ``sys.stdout`` then go to stderr."""
    sys.stdout.flush()
    stream = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return stream


def _foreign_modules() -> list[str]:
    """The boardzoo modules imported from outside the package that PYTHONPATH gave (none, or the
    measurement would mix two checkouts' code)."""
    import boardzoo

    root = Path(boardzoo.__file__).resolve().parent
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if name.split(".")[0] == "boardzoo"
        and getattr(module, "__file__", None)
        and not Path(module.__file__).resolve().is_relative_to(root)
    )


def _solver() -> Any:
    """The exact solver's module: after the redesign ``boardzoo.gametree.solve``, before it
    ``boardzoo.search.solver``."""
    try:
        return importlib.import_module("boardzoo.gametree.solve")
    except ModuleNotFoundError as error:
        if error.name not in ("boardzoo.gametree", "boardzoo.gametree.solve"):
            raise
        return importlib.import_module("boardzoo.search.solver")


class Probe:
    """Answers the requests (see the module's docstring) with one checkout's code."""

    def __init__(self) -> None:
        from boardzoo.games.catalog import make_game

        self.solver = _solver()
        self.reversi = make_game("reversi")
        self.connect_four = make_game("connect_four")

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        kind = request.get("kind")
        handler = getattr(self, f"_{kind}", None) if isinstance(kind, str) else None
        if handler is None:
            raise ValueError(f"unknown request kind {kind!r}")
        return handler(request)

    # --- the measurements ---------------------------------------------------------------------

    def _ffo(self, request: dict[str, Any]) -> dict[str, Any]:
        from boardzoo.games import ReversiState

        state = ReversiState.from_obf(request["obf"])
        self.solver.forget_tables()
        result = self.solver.solve(state, table_bits=TABLE_BITS, max_empties=64)
        return {
            "score": int(result.score),
            "move": self._move(state, result.best_moves),
            "empties": int(self.solver.empties_of(state)),
            "nodes": int(result.nodes),
            "seconds": float(result.seconds),
        }

    def _alphabeta(self, request: dict[str, Any]) -> dict[str, Any]:
        from boardzoo.agents.alphabeta import AlphaBetaAgent

        state = self._opening(request["opening"])
        agent = AlphaBetaAgent(depth=int(request["depth"]), exact_empties=0, seed=request["seed"])
        info = agent.search(state)
        return {
            "move": state.game.action_name(int(info.action)).lower(),
            "score": int(info.score),
            "depth": int(info.depth),
            "nodes": int(info.nodes),
            "seconds": float(info.seconds),
        }

    def _engine(self, request: dict[str, Any]) -> dict[str, Any]:
        from boardzoo.agents.engine import EngineAgent

        state = self._opening(request["opening"])
        agent = EngineAgent(time_limit=float(request["time_limit"]), seed=request["seed"])
        agent.prepare(state.game)
        info = agent.search(state)
        return {
            "move": state.game.action_name(int(info.action)).lower(),
            "depth": int(info.depth),
            "nodes": int(info.nodes),
            "seconds": float(info.seconds),
        }

    def _connect_four_positions(self, request: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        rng = np.random.default_rng(int(request["seed"]))
        count = int(request["count"])
        found: dict[str, list[str]] = {}
        for discs in request["discs"]:
            texts: list[str] = []
            for _ in range(RANDOM_TRIES * count):
                if len(texts) >= count:
                    break
                text = self._random_columns(int(discs), rng)
                if text is not None and text not in texts:
                    texts.append(text)
            found[str(discs)] = texts
        return {"positions": found}

    def _connect_four(self, request: dict[str, Any]) -> dict[str, Any]:
        from boardzoo.games.connect_four import from_columns

        state = from_columns(request["columns"])
        self.solver.forget_tables()
        result = self.solver.solve(state, table_bits=TABLE_BITS, max_empties=64)
        return {
            "score": int(result.score),
            "move": self._move(state, result.best_moves),
            "nodes": int(result.nodes),
            "seconds": float(result.seconds),
        }

    def _warmup(self, request: dict[str, Any]) -> dict[str, Any]:
        """Compile (or load) each search asked for and run it once, before any timing."""
        from boardzoo.games import ReversiState

        start = time.perf_counter()
        kinds = set(request["kinds"])
        opening = "f5d6c3d3c4f4"
        if "ffo" in kinds:
            self.solver.solve(ReversiState.initial(4))
            state = self._random_end(self.reversi.initial_state(), 12)
            self.solver.forget_tables()
            self.solver.solve(state, table_bits=TABLE_BITS, max_empties=64)
        if "alphabeta" in kinds:
            self._alphabeta({"opening": opening, "depth": 3, "seed": 0})
        if "engine" in kinds:
            self._engine({"opening": opening, "time_limit": 0.05, "seed": 0})
        if "connect_four" in kinds:
            state = self._random_end(self.connect_four.initial_state(), 22)
            self.solver.forget_tables()
            self.solver.solve(state, table_bits=TABLE_BITS, max_empties=64)
        self.solver.forget_tables()
        foreign = _foreign_modules()
        if foreign:
            raise ImportError(f"modules imported from outside the checkout: {', '.join(foreign)}")
        return {"seconds": time.perf_counter() - start}

    # --- helpers ------------------------------------------------------------------------------

    def _opening(self, text: str) -> Any:
        from boardzoo.arena.openings import parse_opening

        state = self.reversi.initial_state()
        for action in parse_opening(self.reversi, text):
            state = state.apply(action)
        return state

    @staticmethod
    def _move(state: Any, moves: Any) -> str:
        return state.game.action_name(int(moves[0])).lower() if len(moves) else "-"

    def _random_columns(self, discs: int, rng: Any) -> str | None:
        """The columns (1-7) of ``discs`` random legal moves from the start, ``None`` if the game
        ended on the way or at the end."""
        state = self.connect_four.initial_state()
        columns = []
        for _ in range(discs):
            if state.is_terminal():
                return None
            legal = state.legal_actions()
            action = int(legal[int(rng.integers(len(legal)))])
            columns.append(str(action + 1))
            state = state.apply(action)
        return None if state.is_terminal() else "".join(columns)

    def _random_end(self, start: Any, empties: int) -> Any:
        """A position with at most ``empties`` empty squares, not finished, by seeded random
        moves from ``start`` (for the warm-up: something the solver finishes at once)."""
        import numpy as np

        rng = np.random.default_rng(0)
        while True:
            state = start
            while not state.is_terminal() and self.solver.empties_of(state) > empties:
                legal = state.legal_actions()
                state = state.apply(int(legal[int(rng.integers(len(legal)))]))
            if not state.is_terminal():
                return state


def main() -> int:
    out = _protocol_stream()

    import boardzoo

    probe = Probe()
    ready = {"ready": True, "boardzoo": str(Path(boardzoo.__file__).resolve())}
    ready.update(solver=probe.solver.__name__, foreign=_foreign_modules())
    out.write(json.dumps(ready) + "\n")
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                request = json.loads(line)
                if request.get("kind") == "quit":
                    break
                answer = probe.answer(request)
            except Exception as error:  # told to the caller, which stops with it
                traceback.print_exc(file=sys.stderr)
                answer = {"error": f"{type(error).__name__}: {' '.join(str(error).split())}"}
            out.write(json.dumps(answer) + "\n")
    except BrokenPipeError:  # the caller is gone
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""AlphaZero agent: the batched compiled PUCT (or Gumbel) search guided by a trained network.

    agent = AlphaZeroAgent("runs/az8/model.pt", time_limit=1.0)
    agent.act(env); agent.last_search

The network comes from a model file written by :func:`boardzoo.learned.model_io.save_model` (plain
tensors and a JSON config, loaded with ``torch.load(weights_only=True)``: loading one never runs
code), or from the models shipped inside the package, by name (``"reversi-8x8"``), or chosen by
the game being played when no model is given. torch is imported when the agent first prepares
or moves, not when it is built.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Literal

from boardzoo.agents import _checks as checks
from boardzoo.agents._compiling import compile_notice
from boardzoo.agents.base import Agent, board_state, env_state, legal_or_raise
from boardzoo.agents.search_info import SearchInfo, root_moves, search_info
from boardzoo.games.spec import Game
from boardzoo.search.batched import BatchedSearch, PUCTConfig

__all__ = ["SHIPPED_MODELS_DIR", "AlphaZeroAgent", "shipped_model", "shipped_name"]

# The models shipped with the package: <name>.pt and <name>.json, named by shipped_name(game).
SHIPPED_MODELS_DIR = Path(__file__).resolve().parent.parent / "learned" / "models"
_SEARCHES = ("puct", "gumbel")


def shipped_name(game: Game) -> str:
    """The name of ``game``'s shipped model: ``"reversi-8x8"``, ``"tictactoe"``, ..."""
    return game.label.replace(" ", "-")


def shipped_model(name: str) -> Path | None:
    """The file of the shipped model ``name``, or ``None`` if the package has none by that name."""
    path = SHIPPED_MODELS_DIR / f"{name}.pt"
    return path if path.is_file() else None


def _shipped_names() -> list[str]:
    if not SHIPPED_MODELS_DIR.is_dir():
        return []
    return sorted(p.stem for p in SHIPPED_MODELS_DIR.glob("*.pt"))


class AlphaZeroAgent(Agent):
    """AlphaZero search (PUCT or Gumbel) with a trained policy-value network.

    Args:
        model: a model file (``runs/az8/model.pt``, with its ``.json`` beside it), the name of
            a shipped model (``reversi-8x8``), or empty: the shipped model of the game played.
        simulations: simulations per move (at least 1); 200 when time_limit is not given either.
        time_limit: seconds per move (a number > 0); with simulations too, whichever ends first.
        search: ``"puct"`` (AlphaZero's PUCT at the root) or ``"gumbel"`` (Gumbel AlphaZero's
            sequential halving; needs simulations).
        c_init: PUCT's exploration constant (> 0).
        c_base: AlphaZero's exploration schedule (0 keeps c_init constant).
        leaves: leaves gathered per network call with virtual loss (1 to 64; 1: plain PUCT);
            none: 1 with a simulation budget (the most accurate), 64 with a time limit (about
            twice the simulations per second of 8, and at least as strong at equal time).
        gumbel_k: root actions Gumbel AlphaZero considers (at least 1).
        reuse_tree: PUCT: keep the tree between moves of a game; the next search continues
            from the node of the new position when the tree holds it (Gumbel always starts
            fresh).
        device: where the network runs: ``cpu``, ``cuda`` or ``auto``.
        seed: seed of the search's randomness (ties, Gumbel noise).
    """

    name = "az"

    def __init__(
        self,
        model: str = "",
        simulations: int | None = None,
        time_limit: float | None = None,
        search: Literal["puct", "gumbel"] = "puct",
        c_init: float = 1.25,
        c_base: float = 19652.0,
        leaves: int | None = None,
        gumbel_k: int = 16,
        reuse_tree: bool = True,
        device: Literal["cpu", "cuda", "auto"] = "cpu",
        seed: int | None = None,
    ) -> None:
        if not isinstance(model, str):
            raise checks.not_allowed("model", model, "a model file or a shipped model's name")
        self.model = model.strip()
        if self.model and shipped_model(self.model) is None:
            path = Path(self.model)
            if not path.is_file():
                shipped = ", ".join(_shipped_names()) or "none yet"
                raise ValueError(
                    f"model={self.model!r} is neither a file nor a shipped model "
                    f"(shipped: {shipped})"
                )
        self.simulations = checks.check_optional_int("simulations", simulations, 1)
        self.time_limit = checks.check_optional_number("time_limit", time_limit)
        self.search = checks.check_choice("search", search, _SEARCHES)
        if self.search == "gumbel" and self.simulations is None:
            raise checks.not_allowed("search", search, "puct, or gumbel with simulations=N")
        if self.search == "gumbel" and self.time_limit is not None:
            raise checks.not_allowed("search", search, "puct when time_limit is given")
        self.c_init = checks.check_number("c_init", c_init)
        self.c_base = checks.check_number("c_base", c_base, low_open=False)
        if leaves is None:
            leaves = 64 if self.time_limit is not None else 1
        self.leaves = checks.check_int("leaves", leaves, 1, 64)
        self.gumbel_k = checks.check_int("gumbel_k", gumbel_k, 1)
        self.reuse_tree = bool(reuse_tree)
        self._fresh = True  # the next search starts a new tree
        self.device = checks.check_choice("device", device, ("cpu", "cuda", "auto"))
        self.seed = 0 if seed is None else checks.check_int("seed", seed, 0)
        self.last_search: SearchInfo | None = None
        self._players: dict[Game, tuple[Any, Any]] = {}  # game -> (BatchedSearch, evaluator)

    def _model_file(self, game: Game) -> Path:
        if not self.model:
            path = shipped_model(shipped_name(game))
            if path is None:
                shipped = ", ".join(_shipped_names()) or "none yet"
                raise ValueError(
                    f"az: no shipped model for {game.label} (shipped: {shipped}); give "
                    "model=PATH, a model trained with `boardzoo train`"
                )
            return path
        return shipped_model(self.model) or Path(self.model)

    def prepare(self, game: Game) -> None:
        """Load the network for ``game`` and compile (or load) its search, before any clock."""
        if game in self._players:
            return
        from boardzoo.learned.model_io import load_model  # (torch, an optional dependency)
        from boardzoo.learned.network import TorchEvaluator, pick_device

        net, _, _ = load_model(
            self._model_file(game), device=pick_device(self.device, set_threads=False), game=game
        )
        evaluator = TorchEvaluator(net, device=next(net.parameters()).device)
        config = PUCTConfig(
            c_init=self.c_init,
            c_base=self.c_base,
            gumbel=self.search == "gumbel",
            gumbel_k=self.gumbel_k,
            leaves_per_tree=1 if self.search == "gumbel" else self.leaves,
        )
        search = BatchedSearch(game, 1, config, seed=self.seed % 2**62)
        with compile_notice(f"the AlphaZero search for {game.name}", 15):
            search.warm_up(evaluator)
        self._players[game] = (search, evaluator)

    def act(self, env: Any) -> int:
        """Search the position of ``env`` and return the chosen action."""
        state = board_state(env_state(env), "AlphaZeroAgent")
        legal = legal_or_raise(state)
        game = state.game
        self.prepare(game)
        search, evaluator = self._players[game]
        start = time.perf_counter()
        if len(legal) == 1:
            self.last_search = SearchInfo(legal[0], [], [legal[0]], 0, 0.0, 0, False)
            return legal[0]
        simulations = self.simulations
        if simulations is None and self.time_limit is None:
            simulations = 200
        deadline = None if self.time_limit is None else start + self.time_limit * 0.97
        result = search.search(
            [state], evaluator, simulations=simulations, deadline=deadline,
            reuse=self.reuse_tree and not self._fresh and self.search == "puct",
        )  # fmt: skip
        self._fresh = False
        action = int(result.action[0])
        self.last_search = search_info(
            result,
            root_moves(result, legal),
            action,
            search.principal_variation(0),
            seconds=time.perf_counter() - start,
            extra={"root_value": float(result.root_value[0]), "search": self.search},
            reused=bool(result.reused[0]),
        )
        return action

    def reset(self) -> None:
        """Forget the kept tree: the next move starts a new one (a new game begins)."""
        self._fresh = True

    def __repr__(self) -> str:
        budget = (
            f"simulations={self.simulations}"
            if self.time_limit is None
            else f"time_limit={self.time_limit}"
        )
        return f"AlphaZeroAgent(model={self.model!r}, {budget}, search={self.search!r})"

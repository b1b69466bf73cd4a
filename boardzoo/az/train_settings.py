"""The settings of an AlphaZero training run: :class:`TrainSettings`, checked when made.

``boardzoo train``'s flags, :func:`~boardzoo.az.train.train` and a run folder's
``settings.json`` all hold these. A resumed run must keep the settings that define what it
learns (the game, the network, the search, the learner: ``FIXED``); a run saved before a
setting existed resumes with that setting as it was then (:mod:`boardzoo.settings_history`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from boardzoo.checks import check_int, check_number
from boardzoo.errors import InvalidValueError
from boardzoo.games.catalog import get_game
from boardzoo.settings_history import BEFORE, with_settings_before

__all__ = ["DEFAULT_PANEL", "QUICK", "TrainSettings", "settings_from"]

# The evaluation panel: "{simulations}" is the training's simulations per move (UCT at equal
# simulations).
DEFAULT_PANEL = (
    "random",
    "greedy",
    "alphabeta:depth=2",
    "alphabeta:depth=4",
    "mcts:simulations={simulations}",
)
# Settings of `--quick`: a tiny run that shows every part working in seconds.
QUICK: dict[str, Any] = {
    "channels": 8,
    "blocks": 1,
    "value_hidden": 8,
    "simulations": 8,
    "games_per_iteration": 4,
    "parallel_games": 4,
    "batch_size": 32,
    "steps_per_iteration": 4,
    "eval_games": 2,
    "panel": ("random",),
    "iterations": 2,
}
# Settings a resumed run must share with the run it continues.
_FIXED = (
    "game",
    "options",
    "channels",
    "blocks",
    "value_hidden",
    "search",
    "gumbel_k",
    "simulations",
    "parallel_games",
    "games_per_iteration",
    "temperature_plies",
    "opening_plies",
    "record_forced",
    "dirichlet_alpha",
    "buffer_size",
    "batch_size",
    "steps_per_iteration",
    "optimizer",
    "lr",
    "weight_decay",
    "seed",
    "solve_empties",
    "full_search_share",
    "fast_simulations",
    "value_mix",
    "search_opening",
    "lr_schedule",
    "lr_final",
    "init_model",
)


@dataclass(frozen=True)
class TrainSettings:
    """Everything that defines a training run (checked when made).

    Args:
        game: a catalog game (``"reversi"``, ``"tictactoe"``, ``"connect_four"``).
        options: the game's options (``{"board_size": 8}``); defaults filled in.
        out: the run folder.
        minutes: stop after this much training time in all (resumes included); ``None``: no
            limit.
        iterations: stop after this many iterations in all; ``None``: no limit (one of the two
            budgets is required).
        resume: continue the run in ``out`` from its last complete iteration.
        device: ``"auto"`` (CUDA when present, else the CPU with every core), ``"cpu"`` or
            ``"cuda"``.
        seed: the run's seed: same seed, same run (on the CPU).
        channels: filters of the network's residual tower.
        blocks: residual blocks.
        value_hidden: units of the value head's hidden layer.
        search: ``"gumbel"`` (Gumbel AlphaZero, learns with few simulations) or ``"puct"``.
        gumbel_k: root actions Gumbel AlphaZero considers.
        simulations: simulations per self-play move.
        parallel_games: self-play games searched together (the network's batch).
        games_per_iteration: self-play games per iteration.
        temperature_plies: PUCT: opening plies whose move is drawn from the visit counts.
        opening_plies: the most random plies that start a self-play game (each game draws
            0 to this many; not recorded unless ``search_opening``).
        search_opening: search and record the random opening plies' positions too (the move
            played stays random; their value target is the search's value alone): examples
            of the positions that good play seldom reaches.
        record_forced: also train on the positions with a single legal action (a pass, the
            last column), the forced move as their policy target. Runs started before this
            setting existed resume without it.
        dirichlet_alpha: PUCT: root noise concentration (``None``: none).
        buffer_size: positions the replay buffer keeps.
        batch_size: positions per learner step.
        steps_per_iteration: learner steps per iteration.
        optimizer: ``"sgd"``, ``"adam"`` or ``"adamw"``.
        lr: learning rate (the first, with a schedule).
        lr_schedule: ``"constant"``, or ``"cosine"``: from ``lr`` down to ``lr_final`` along a
            half cosine over the ``iterations`` budget (which it needs; raising the budget on
            a resume stretches the cosine, so the rate goes up again).
        lr_final: the cosine's last learning rate (``None``: ``lr / 10``).
        weight_decay: L2 weight decay.
        solve_empties: self-play's search scores the leaves with at most this many empty
            squares by the game's exact solver (0: never; games with a solver only): the
            targets of endgame positions are then exact.
        full_search_share: playout cap randomisation: the probability that a self-play move
            gets the full search (``simulations``) and is recorded; 1: every move.
        fast_simulations: simulations of the other moves (needed when ``full_search_share`` <
            1).
        value_mix: the weight of the search's value in the value target, against the game's
            result (0: the result alone).
        init_model: a new run's network starts from this model file's weights (the same
            network shape), or ``"shipped"`` for the game's shipped model; ``None``: random.
        eval_games: games against each panel agent after every iteration (0: no evaluation).
        eval_every: evaluate after every this many iterations.
        panel: agent specs to evaluate against (``{simulations}`` is replaced by the training's
            simulations).
        progress: show a progress bar (on a terminal).
        self_play_workers: workers that play each iteration's self-play games (1: in this
            process); see :mod:`boardzoo.az.selfplay_pool`. A run may be resumed with another
            number (its later games then differ from those of the first number).
        backend: where the self-play workers run: ``"local"`` (processes here) or ``"ray"``
            (Ray actors; ``pip install boardzoo[ray]``).
        address: the Ray cluster to join (``"auto"``, ``"host:port"``; ``backend="ray"`` only);
            ``None`` starts one here.
    """

    game: str
    options: Mapping[str, int] = field(default_factory=dict)
    out: Path = Path("runs/az")
    minutes: float | None = None
    iterations: int | None = None
    resume: bool = False
    device: str = "auto"
    seed: int = 0
    channels: int = 64
    blocks: int = 4
    value_hidden: int = 64
    search: Literal["gumbel", "puct"] = "gumbel"
    gumbel_k: int = 16
    simulations: int = 32
    parallel_games: int = 64
    games_per_iteration: int = 128
    temperature_plies: int = 8
    opening_plies: int = 0
    record_forced: bool = field(default=True, metadata={BEFORE: False})
    dirichlet_alpha: float | None = 0.3
    buffer_size: int = 200_000
    batch_size: int = 256
    steps_per_iteration: int = 200
    optimizer: Literal["sgd", "adam", "adamw"] = "adam"
    lr: float = 1e-3
    lr_schedule: Literal["constant", "cosine"] = field(
        default="constant", metadata={BEFORE: "constant"}
    )
    lr_final: float | None = None
    weight_decay: float = 1e-4
    solve_empties: int = field(default=0, metadata={BEFORE: 0})
    full_search_share: float = field(default=1.0, metadata={BEFORE: 1.0})
    fast_simulations: int = field(default=0, metadata={BEFORE: 0})
    value_mix: float = field(default=0.0, metadata={BEFORE: 0.0})
    search_opening: bool = field(default=False, metadata={BEFORE: False})
    init_model: str | None = None
    eval_games: int = 20
    eval_every: int = 1
    panel: tuple[str, ...] = DEFAULT_PANEL
    progress: bool = True
    self_play_workers: int = 1
    backend: Literal["local", "ray"] = "local"
    address: str | None = None

    def __post_init__(self) -> None:
        spec = get_game(self.game)
        object.__setattr__(self, "options", spec.check_options(dict(self.options)))
        object.__setattr__(self, "out", Path(self.out))
        if self.minutes is not None:
            object.__setattr__(
                self, "minutes", check_number("minutes", self.minutes, 0.0, None, True)
            )
        if self.iterations is not None:
            object.__setattr__(self, "iterations", check_int("iterations", self.iterations, 1))
        if self.minutes is None and self.iterations is None:
            raise InvalidValueError("give a budget: minutes, iterations or both")
        if self.device not in ("auto", "cpu", "cuda") and not str(self.device).startswith("cuda:"):
            raise InvalidValueError(f"device must be auto, cpu or cuda, got {self.device!r}")
        for name, low in (
            ("seed", 0), ("channels", 1), ("blocks", 1), ("value_hidden", 1), ("gumbel_k", 1),
            ("simulations", 1), ("parallel_games", 1), ("games_per_iteration", 1),
            ("temperature_plies", 0), ("opening_plies", 0), ("buffer_size", 1),
            ("batch_size", 1),
            ("steps_per_iteration", 0), ("eval_games", 0), ("eval_every", 1),
            ("self_play_workers", 1), ("solve_empties", 0), ("fast_simulations", 0),
        ):  # fmt: skip
            object.__setattr__(self, name, check_int(name, getattr(self, name), low))
        if self.solve_empties and spec.tree_plugin is None:
            raise InvalidValueError(
                f"solve_empties={self.solve_empties}: {self.game} has no exact solver (give 0)"
            )
        self._check_recipe()
        for name in ("record_forced", "search_opening"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidValueError(
                    f"{name} must be true or false, got {getattr(self, name)!r}"
                )
        if self.backend not in ("local", "ray"):
            raise InvalidValueError(f"backend must be local or ray, got {self.backend!r}")
        if self.address is not None and self.backend != "ray":
            raise InvalidValueError(f"address={self.address!r} is for backend='ray' only")
        if self.search not in ("gumbel", "puct"):
            raise InvalidValueError(f"search must be gumbel or puct, got {self.search!r}")
        if self.optimizer not in ("sgd", "adam", "adamw"):
            raise InvalidValueError(f"optimizer must be sgd, adam or adamw, got {self.optimizer!r}")
        if self.dirichlet_alpha is not None:
            object.__setattr__(
                self,
                "dirichlet_alpha",
                check_number("dirichlet_alpha", self.dirichlet_alpha, 0.0, None, True),
            )
        object.__setattr__(self, "lr", check_number("lr", self.lr, 0.0, None, True))
        object.__setattr__(
            self, "weight_decay", check_number("weight_decay", self.weight_decay, 0.0, None, False)
        )
        if isinstance(self.panel, str) or not all(isinstance(p, str) for p in self.panel):
            raise InvalidValueError(f"panel must be a list of agent specs, got {self.panel!r}")
        object.__setattr__(self, "panel", tuple(self.panel))

    def _check_recipe(self) -> None:
        """The learning-rate schedule and the self-play targets' settings."""
        if self.lr_schedule not in ("constant", "cosine"):
            raise InvalidValueError(
                f"lr_schedule must be constant or cosine, got {self.lr_schedule!r}"
            )
        if self.lr_schedule == "cosine" and self.iterations is None:
            raise InvalidValueError(
                "lr_schedule='cosine' runs over the iterations budget: give one"
            )
        if self.lr_final is not None:
            lr_final = check_number("lr_final", self.lr_final, 0.0, None, True)
            object.__setattr__(self, "lr_final", lr_final)
        share = check_number("full_search_share", self.full_search_share, 0.0, 1.0, True)
        object.__setattr__(self, "full_search_share", share)
        if share < 1 and self.fast_simulations < 1:
            raise InvalidValueError(
                f"full_search_share={share} needs fast_simulations >= 1 for the other moves"
            )
        object.__setattr__(
            self, "value_mix", check_number("value_mix", self.value_mix, 0.0, 1.0, False)
        )
        if self.search_opening is True and self.opening_plies == 0:
            raise InvalidValueError(
                "search_opening=True searches the random opening: give opening_plies"
            )
        if self.init_model is not None and not isinstance(self.init_model, str):
            object.__setattr__(self, "init_model", str(self.init_model))

    def lr_at(self, iteration: int) -> float:
        """The learning rate of ``iteration`` (1 is the first) under the schedule."""
        if self.lr_schedule == "constant" or self.iterations is None:
            return self.lr
        final = self.lr / 10 if self.lr_final is None else self.lr_final
        done = min(max(iteration - 1, 0) / max(self.iterations - 1, 1), 1.0)
        return final + (self.lr - final) * 0.5 * (1.0 + math.cos(math.pi * done))

    @property
    def panel_specs(self) -> tuple[str, ...]:
        """The panel with ``{simulations}`` filled in."""
        return tuple(spec.replace("{simulations}", str(self.simulations)) for spec in self.panel)

    def to_json(self) -> dict[str, Any]:
        """The settings as JSON values."""
        data = asdict(self)
        data["out"] = str(self.out)
        data["options"] = dict(self.options)
        data["panel"] = list(self.panel)
        return data

    def differences(self, saved: Mapping[str, Any]) -> list[str]:
        """The fixed settings where ``saved`` (a run's ``settings.json``) differs from these."""
        mine = self.to_json()
        saved = with_settings_before(TrainSettings, saved)
        return [
            f"{key}={saved.get(key)!r} (this run: {mine[key]!r})"
            for key in _FIXED
            if saved.get(key) != mine[key]
        ]


def settings_from(defaults: Mapping[str, Any], **given: Any) -> TrainSettings:
    """Settings from ``given`` (``None`` values take ``defaults``, then the dataclass's)."""
    names = {f.name for f in fields(TrainSettings)}
    chosen = {k: v for k, v in defaults.items() if k in names}
    chosen.update({k: v for k, v in given.items() if v is not None and k in names})
    return TrainSettings(**chosen)

"""The board symmetries of a game, as index permutations of observations and policies.

The rules of every catalog game are invariant under some transforms of the board: all eight of
the square's (rotations and reflections) for TicTacToe and Reversi, and the left-right mirror for
Connect Four, where gravity rules out the others. Training uses them to augment its data: a
position and its search policy, transformed together, are as good a sample as the original; the
learned n-tuple evaluation lays each of its tuples on the board in every image
(:mod:`boardzoo.learned.patterns`).

The symmetries are derived from the :class:`~boardzoo.games.spec.Game`, with no list per game:

- when every square has an action of its own (``game.square_action`` is one-to-one over the
  squares: TicTacToe, Reversi), the transforms of the board's shape: the 8 dihedral ones of a
  square board, or the 4 (identity, both mirrors, half turn) of a rectangular one;
- when actions are columns (``game.square_action(row, col)`` depends on ``col`` only, one action
  per column: Connect Four), pieces fall down the columns, so only the left-right mirror keeps
  the rules;
- otherwise the identity alone.

Actions without a square (Reversi's pass) map to themselves. The identity is always first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game

__all__ = ["Symmetry", "symmetries"]

# A transform of the board: (row, col, rows, cols) -> (row, col).
_Transform = Callable[[int, int, int, int], tuple[int, int]]

_IDENTITY: tuple[str, _Transform] = ("identity", lambda r, c, n, m: (r, c))
_MIRROR_LR: tuple[str, _Transform] = ("mirror_lr", lambda r, c, n, m: (r, m - 1 - c))
_MIRROR_UD: tuple[str, _Transform] = ("mirror_ud", lambda r, c, n, m: (n - 1 - r, c))
_ROT180: tuple[str, _Transform] = ("rot180", lambda r, c, n, m: (n - 1 - r, m - 1 - c))
# Square boards only (rows == cols): quarter turns and the diagonal reflections.
_ROT90: tuple[str, _Transform] = ("rot90", lambda r, c, n, m: (c, n - 1 - r))  # clockwise
_ROT270: tuple[str, _Transform] = ("rot270", lambda r, c, n, m: (n - 1 - c, r))
_TRANSPOSE: tuple[str, _Transform] = ("transpose", lambda r, c, n, m: (c, r))
_ANTI_TRANSPOSE: tuple[str, _Transform] = (
    "anti_transpose",
    lambda r, c, n, m: (n - 1 - c, n - 1 - r),
)

_SQUARE = (_IDENTITY, _ROT90, _ROT180, _ROT270, _MIRROR_LR, _MIRROR_UD, _TRANSPOSE, _ANTI_TRANSPOSE)
_RECTANGLE = (_IDENTITY, _MIRROR_LR, _MIRROR_UD, _ROT180)
_COLUMNS = (_IDENTITY, _MIRROR_LR)


@dataclass(frozen=True, eq=False)
class Symmetry:
    """One transform of the board, as index permutations (vectorised numpy, any batch shape).

    A square's content moves from ``(row, col)`` to ``transform(row, col)``; an action moves to
    the action of the transformed square (:meth:`map_action`).

    Attributes:
        name: ``"identity"``, ``"rot90"`` (clockwise), ``"rot180"``, ``"rot270"``,
            ``"mirror_lr"``, ``"mirror_ud"``, ``"transpose"`` (the main diagonal) or
            ``"anti_transpose"``.
        rows: the board's rows.
        cols: the board's columns.
        square_source: int64 ``[rows * cols]``: the flat square of the original board that lands
            on each flat square (``row * cols + col``) of the transformed one.
        action_source: int64 ``[num_actions]``: the original action that each action of the
            transformed position stands for (``new_policy = policy[..., action_source]``).
        action_target: int64 ``[num_actions]``: the action that each original action becomes
            (the inverse permutation of ``action_source``).
    """

    name: str
    rows: int
    cols: int
    square_source: np.ndarray = field(repr=False)
    action_source: np.ndarray = field(repr=False)
    action_target: np.ndarray = field(repr=False)

    @property
    def num_actions(self) -> int:
        """The size of the action space."""
        return int(self.action_source.shape[0])

    @property
    def is_identity(self) -> bool:
        """Whether the transform leaves every square and action where it is."""
        return bool(
            np.array_equal(self.square_source, np.arange(self.rows * self.cols))
            and np.array_equal(self.action_source, np.arange(self.num_actions))
        )

    def apply_obs(self, obs: np.ndarray) -> np.ndarray:
        """Transform boards: ``obs`` is ``[..., rows, cols]`` (``[B, 2, rows, cols]`` planes).

        Args:
            obs: the boards; the last two axes are the board's rows and columns.

        Returns:
            A new array of the same shape and dtype, each board transformed.

        Raises:
            ValueError: when the last two axes are not ``(rows, cols)``.
        """
        obs = np.asarray(obs)
        if obs.ndim < 2 or obs.shape[-2:] != (self.rows, self.cols):
            raise InvalidValueError(
                f"obs must end in the board's shape ({self.rows}, {self.cols}), got {obs.shape}"
            )
        flat = obs.reshape(*obs.shape[:-2], self.rows * self.cols)
        return flat[..., self.square_source].reshape(obs.shape)

    def apply_policy(self, policy: np.ndarray) -> np.ndarray:
        """Transform action vectors (policies, logits or legal masks): ``[..., num_actions]``.

        Args:
            policy: anything indexed by action on its last axis.

        Returns:
            A new array of the same shape and dtype: entry ``a`` is the original entry of the
            action that ``a`` stands for.

        Raises:
            ValueError: when the last axis is not ``num_actions`` long.
        """
        policy = np.asarray(policy)
        if policy.ndim < 1 or policy.shape[-1] != self.num_actions:
            raise InvalidValueError(
                f"policy must end in {self.num_actions} actions, got shape {policy.shape}"
            )
        return policy[..., self.action_source]

    def map_square(self, row: int, col: int) -> tuple[int, int]:
        """The square that ``(row, col)`` moves to on the transformed board."""
        target = int(np.flatnonzero(self.square_source == row * self.cols + col)[0])
        return divmod(target, self.cols)

    def map_action(self, action: int) -> int:
        """The action that ``action`` becomes on the transformed board.

        Args:
            action: an action of the original position.

        Returns:
            The transformed action (a pass stays a pass).

        Raises:
            ValueError: when ``action`` is out of range.
        """
        if isinstance(action, bool) or not 0 <= action < self.num_actions:
            raise InvalidValueError(f"action must be in 0..{self.num_actions - 1}, got {action!r}")
        return int(self.action_target[action])


def _action_kind(game: Game) -> str:
    """``"squares"`` (one action per square), ``"columns"`` (one per column) or ``"other"``."""
    cells = {(r, c): game.square_action(r, c) for r in range(game.rows) for c in range(game.cols)}
    actions = list(cells.values())
    if any(a is None for a in actions):
        return "other"
    if len(set(actions)) == len(actions):
        return "squares"
    by_column = [{cells[r, c] for r in range(game.rows)} for c in range(game.cols)]
    if all(len(column) == 1 for column in by_column) and len(set().union(*by_column)) == game.cols:
        return "columns"
    return "other"


def _build(game: Game, name: str, transform: _Transform) -> Symmetry:
    rows, cols, count = game.rows, game.cols, game.num_actions
    square_source = np.empty(rows * cols, dtype=np.int64)
    action_target = np.arange(count, dtype=np.int64)  # actions without a square stay
    for r in range(rows):
        for c in range(cols):
            r2, c2 = transform(r, c, rows, cols)
            square_source[r2 * cols + c2] = r * cols + c
            action, image = game.square_action(r, c), game.square_action(r2, c2)
            if action is not None and image is not None:
                action_target[action] = image
    if sorted(action_target.tolist()) != list(range(count)):  # pragma: no cover - a bad game
        raise InvalidValueError(f"{name} does not permute the actions of {game.label}")
    action_source = np.empty(count, dtype=np.int64)
    action_source[action_target] = np.arange(count)
    for array in (square_source, action_source, action_target):
        array.setflags(write=False)
    return Symmetry(name, rows, cols, square_source, action_source, action_target)


_CACHE: dict[int, list[Symmetry]] = {}


def symmetries(game: Game) -> list[Symmetry]:
    """The transforms of the board that keep the rules of ``game``, identity first.

    Args:
        game: the game (catalog ``Game``); see the module docstring for how they are derived.

    Returns:
        A new list: 8 for TicTacToe and Reversi, 2 for Connect Four.
    """
    key = id(game)
    if key not in _CACHE:
        kind = _action_kind(game)
        transforms: tuple[tuple[str, _Transform], ...]
        if kind == "squares":
            transforms = _SQUARE if game.rows == game.cols else _RECTANGLE
        elif kind == "columns":
            transforms = _COLUMNS
        else:
            transforms = (_IDENTITY,)
        _CACHE[key] = [_build(game, name, transform) for name, transform in transforms]
    return list(_CACHE[key])

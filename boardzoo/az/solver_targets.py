"""Training examples labelled by a perfect player rather than by self-play's search.

A labelled set (:mod:`boardzoo.accuracy`: positions with every legal move's exact score) gives
each position its targets (:func:`solver_targets`): the policy's mass mostly on the moves of the
best exact score (fastest win, slowest loss), the rest over every move that keeps the result; the
value, the exact result for the player to move. :func:`load_examples` turns labelled sets into a
:class:`~boardzoo.az.replay.Batch`, each position once and without the positions of the game's
shipped labelled set (the test set of :func:`boardzoo.accuracy.measure_policy`) or their
symmetric images. :func:`buffer_openings` adds the few-disc positions of a self-play replay
buffer, with their search targets: the openings, where the solver is too slow to label many
positions. :func:`draw_batch` draws a training batch from both, by a seed and the step's number.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from boardzoo.accuracy import read_labelled, result_of, shipped_set_path
from boardzoo.az.replay import Batch, ReplayBuffer
from boardzoo.errors import InvalidFileError, InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.games.symmetry import symmetries
from boardzoo.search.evaluators import encode

__all__ = ["buffer_openings", "draw_batch", "load_examples", "solver_targets"]


def solver_targets(
    scores: Mapping[int, int], num_actions: int, best_share: float
) -> tuple[np.ndarray, float]:
    """The policy and value targets of a position from its moves' exact scores.

    Args:
        scores: the exact score of each legal move, for the player making it (> 0 wins).
        num_actions: the size of the action space.
        best_share: the policy's mass on the best-scoring moves; the rest goes evenly to every
            move that keeps the result.

    Returns:
        ``(policy, value)``: float32 ``[num_actions]`` summing to 1, and +1, 0 or -1.
    """
    best = max(scores.values())
    result = result_of(best)
    keep = [a for a, s in scores.items() if result_of(s) == result]
    top = [a for a, s in scores.items() if s == best]
    policy = np.zeros(num_actions, dtype=np.float32)
    for action in keep:
        policy[action] += (1.0 - best_share) / len(keep)
    for action in top:
        policy[action] += best_share / len(top)
    return policy, float(result)


def _keys(game: Game, obs: np.ndarray) -> set[bytes]:
    """The observations' bytes in every board symmetry of ``game``."""
    keys: set[bytes] = set()
    for symmetry in symmetries(game):
        images = symmetry.apply_obs(obs).astype(np.uint8)
        keys.update(image.tobytes() for image in images)
    return keys


def load_examples(
    game: Game, paths: Sequence[str | os.PathLike[str]], best_share: float
) -> tuple[Batch, int, int]:
    """The examples of the labelled sets at ``paths``, each position once, without the shipped
    set's positions and their symmetric images.

    Args:
        game: the game of the sets.
        paths: labelled set files (``scripts/make_labelled_set.py``).
        best_share: :func:`solver_targets`'s share of the best-scoring moves.

    Returns:
        ``(examples, duplicates, test_positions)``: the examples and how many positions were
        dropped as repeats and as positions of the test set.

    Raises:
        InvalidFileError: a file that is not a labelled set of ``game``.
        InvalidValueError: sets that hold no position outside the test set.
    """
    test = read_labelled(shipped_set_path(game))
    test_obs, _ = encode(game, [p.state(game) for p in test.positions])
    banned = _keys(game, test_obs)
    seen: set[bytes] = set()
    duplicates = dropped = 0
    rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, float]] = []
    for path in paths:
        labelled = read_labelled(Path(path))
        if labelled.game.label != game.label:
            raise InvalidFileError(f"{path} is a set of {labelled.game.label}, not {game.label}")
        states = [p.state(game) for p in labelled.positions]
        if not states:
            continue
        obs, masks = encode(game, states)
        for position, o, m in zip(labelled.positions, obs, masks, strict=True):
            key = o.astype(np.uint8).tobytes()
            if key in seen:
                duplicates += 1
                continue
            seen.add(key)
            if key in banned:
                dropped += 1
                continue
            policy, value = solver_targets(position.scores, game.num_actions, best_share)
            rows.append((o, policy, m, value))
    if not rows:
        raise InvalidValueError("the sets hold no position outside the test set")
    examples = Batch(
        np.stack([r[0] for r in rows]).astype(np.float32),
        np.stack([r[1] for r in rows]),
        np.array([r[3] for r in rows], dtype=np.float32),
        np.stack([r[2] for r in rows]).astype(bool),
    )
    return examples, duplicates, dropped


def buffer_openings(path: str | os.PathLike[str], max_discs: int, game: Game) -> Batch:
    """The positions of a replay buffer file with at most ``max_discs`` discs, with their
    search targets.

    Args:
        path: a :class:`~boardzoo.az.replay.ReplayBuffer` file (``boardzoo train``'s
            ``checkpoint/buffer.npz``).
        max_discs: the most discs (pieces of both players) a kept position has.
        game: the game the buffer must hold positions of.

    Raises:
        InvalidFileError: a file that is not a replay buffer, or one of another board.
    """
    buffer = ReplayBuffer.load(path)
    if buffer.obs_shape != (2, game.rows, game.cols) or buffer.num_actions != game.num_actions:
        raise InvalidFileError(f"{path} holds positions of another board than {game.label}'s")
    batch = buffer.entries()
    discs = batch.obs.reshape(len(batch), -1).sum(axis=1)
    return _rows(batch, np.flatnonzero(discs <= max_discs))


def draw_batch(
    examples: Batch, openings: Batch | None, size: int, openings_share: float, seed: int, step: int
) -> Batch:
    """A training batch of ``size`` samples drawn with replacement: ``openings_share`` of them
    (rounded) from ``openings`` when given, the others from ``examples`` (first).

    The draw depends on ``seed`` and ``step`` only, so a resumed run trains on the batches of one
    that never stopped.
    """
    from_openings = round(size * openings_share) if openings else 0
    rng = np.random.default_rng([seed, step])
    batch = _rows(examples, rng.integers(0, len(examples), size - from_openings))
    if openings is not None and from_openings:
        batch = _joined(batch, _rows(openings, rng.integers(0, len(openings), from_openings)))
    return batch


def _rows(batch: Batch, rows: np.ndarray) -> Batch:
    """The samples of ``rows`` of ``batch``."""
    return Batch(batch.obs[rows], batch.policy[rows], batch.value[rows], batch.mask[rows])


def _joined(first: Batch, second: Batch) -> Batch:
    """The samples of both batches, ``first``'s first."""
    return Batch(
        np.concatenate([first.obs, second.obs]),
        np.concatenate([first.policy, second.policy]),
        np.concatenate([first.value, second.value]),
        np.concatenate([first.mask, second.mask]),
    )

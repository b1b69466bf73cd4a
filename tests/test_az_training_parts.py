"""The replay buffer and the learner (boardzoo.az.replay, boardzoo.az.learner).

The learner is checked against facts from outside the network: TicTacToe positions labelled by
an exact negamax solver written here; after 600 steps the value head must have the
sign of the solved value on held-out positions (whole symmetry classes held out) far above
chance. Runs are repeatable with a seed, and a run resumed from saved files takes the very
same steps as one never interrupted.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from optional_deps import require

pytestmark = pytest.mark.torch
require("torch")  # the imports below need it

import torch  # noqa: E402

from boardzoo.az.learner import Learner, load_learner, save_learner  # noqa: E402
from boardzoo.az.replay import Batch, ReplayBuffer  # noqa: E402
from boardzoo.games import TicTacToeState, make_game  # noqa: E402
from boardzoo.learned.network import AZNet, NetworkSettings  # noqa: E402

torch.set_num_threads(1)
TTT = make_game("tictactoe")

# --- an exact TicTacToe solver on plain lists: no bitboards, no boardzoo -----------------------

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def line_of(board: tuple[int, ...]) -> int:
    """1 or 2 for the player with three in a row on ``board`` (0 empty), else 0."""
    for a, b, c in LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return board[a]
    return 0


@functools.cache
def solve(board: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """(value for the player to move: 1 win, 0 draw, -1 loss; the optimal moves)."""
    mover = 1 if board.count(1) == board.count(2) else 2
    moves = [i for i in range(9) if board[i] == 0]
    scores = {}
    for move in moves:
        child = (*board[:move], mover, *board[move + 1 :])
        scores[move] = 1 if line_of(child) else (0 if 0 not in child else -solve(child)[0])
    best = max(scores.values())
    return best, tuple(m for m in moves if scores[m] == best)


def reachable() -> list[tuple[int, ...]]:
    """Every position of play that is not over (TicTacToe has 4520)."""
    seen, stack = set(), [(0,) * 9]
    while stack:
        board = stack.pop()
        if board in seen or line_of(board) or 0 not in board:
            continue
        seen.add(board)
        mover = 1 if board.count(1) == board.count(2) else 2
        stack.extend((*board[:i], mover, *board[i + 1 :]) for i in range(9) if board[i] == 0)
    return sorted(seen)


def canonical(board: tuple[int, ...]) -> tuple[int, ...]:
    """The least of the 8 rotations and reflections of ``board`` (numpy's own, not ours)."""
    grid = np.array(board).reshape(3, 3)
    images = [np.rot90(g, k) for g in (grid, grid.T) for k in range(4)]
    return min(tuple(image.reshape(-1).tolist()) for image in images)


@functools.cache
def labelled_positions() -> dict[str, np.ndarray]:
    """Observations (through boardzoo's planes), solved policies, values, masks, class keys."""
    boards = reachable()
    obs, policy, value, mask, keys = [], [], [], [], []
    for board in boards:
        x = sum(1 << i for i in range(9) if board[i] == 1)
        o = sum(1 << i for i in range(9) if board[i] == 2)
        state = TicTacToeState(x, o)
        obs.append(np.moveaxis(state.planes(state.current_player), -1, 0))
        solved, best = solve(board)
        target = np.zeros(9, np.float32)
        target[list(best)] = 1.0 / len(best)
        policy.append(target)
        value.append(solved)
        mask.append(state.legal_action_mask().astype(bool))
        keys.append(hash(canonical(board)))
    return {
        "obs": np.array(obs, np.int8),
        "policy": np.array(policy),
        "value": np.array(value, np.float32),
        "mask": np.array(mask),
        "key": np.array(keys),
    }


def test_solver_facts() -> None:
    # Known counts: 4520 positions in play; the empty board is a draw, all moves draw.
    assert len(reachable()) == 4520
    assert solve((0,) * 9) == (0, tuple(range(9)))
    # X in a corner: O must take the centre.
    assert solve((1, 0, 0, 0, 0, 0, 0, 0, 0)) == (0, (4,))


def make_learner(seed: int, augment: bool = True) -> Learner:
    torch.manual_seed(seed)
    net = AZNet(NetworkSettings.for_game(TTT, channels=32, blocks=2, value_hidden=32))
    return Learner(net, lr=5e-3, weight_decay=1e-4, optimizer="adam", augment=augment, seed=seed)


def train(learner: Learner, buffer: ReplayBuffer, steps: int, batch: int = 64) -> list[float]:
    return [learner.step(buffer.sample(batch))["loss"] for _ in range(steps)]


def split(data: dict[str, np.ndarray], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Train and held-out indices: a fifth of the symmetry classes held out whole."""
    classes = np.unique(data["key"])
    held = np.random.default_rng(seed).choice(classes, size=len(classes) // 5, replace=False)
    is_held = np.isin(data["key"], held)
    return np.flatnonzero(~is_held), np.flatnonzero(is_held)


def test_value_head_learns_solved_values() -> None:
    data = labelled_positions()
    train_index, held_index = split(data, seed=0)
    buffer = ReplayBuffer(len(train_index), (2, 3, 3), 9, seed=1)
    buffer.add(*(data[k][train_index] for k in ("obs", "policy", "value", "mask")))
    learner = make_learner(seed=0)
    losses = train(learner, buffer, 600)
    assert np.mean(losses[-20:]) < 0.6 * np.mean(losses[:20])

    held = Batch(
        obs=data["obs"][held_index].astype(np.float32),
        policy=data["policy"][held_index],
        value=data["value"][held_index],
        mask=data["mask"][held_index],
    )
    learner.net.eval()
    with torch.no_grad():
        _, predicted = learner.net(torch.from_numpy(held.obs))
    # The sign of the solved value on decisive positions, won and lost ones separately (won
    # positions are the commoner: a constant guess gets one class right and the other wrong).
    sign = np.sign(predicted.numpy())
    won, lost = held.value > 0, held.value < 0
    recall_won = float(np.mean(sign[won] > 0))
    recall_lost = float(np.mean(sign[lost] < 0))
    print(
        f"held out: {won.sum()} won, {lost.sum()} lost; recall {recall_won:.3f} {recall_lost:.3f}"
    )
    assert recall_won >= 0.9 and recall_lost >= 0.8, (recall_won, recall_lost)


def test_training_is_repeatable_with_a_seed() -> None:
    data = labelled_positions()
    first, second = [], []
    for losses in (first, second):
        buffer = ReplayBuffer(5000, (2, 3, 3), 9, seed=3)
        buffer.add(data["obs"], data["policy"], data["value"], data["mask"])
        losses.extend(train(make_learner(seed=5), buffer, 15))
    assert first == second
    buffer = ReplayBuffer(5000, (2, 3, 3), 9, seed=3)
    buffer.add(data["obs"], data["policy"], data["value"], data["mask"])
    assert train(make_learner(seed=6), buffer, 15) != first


def test_resumed_run_takes_the_same_steps(tmp_path: Path) -> None:
    data = labelled_positions()
    buffer = ReplayBuffer(5000, (2, 3, 3), 9, seed=7)
    buffer.add(data["obs"], data["policy"], data["value"], data["mask"])
    learner = make_learner(seed=2)
    train(learner, buffer, 10)
    save_learner(learner, tmp_path / "learner.pt")
    buffer.save(tmp_path / "buffer.npz")
    uninterrupted = train(learner, buffer, 10)

    resumed_learner = make_learner(seed=99)  # another init and generator: the file must win
    load_learner(resumed_learner, tmp_path / "learner.pt")
    resumed_buffer = ReplayBuffer.load(tmp_path / "buffer.npz")
    assert resumed_learner.steps == 10
    assert train(resumed_learner, resumed_buffer, 10) == uninterrupted
    for a, b in zip(learner.net.parameters(), resumed_learner.net.parameters(), strict=True):
        assert torch.equal(a, b)


def test_augmentation_keeps_samples_consistent() -> None:
    """Each augmented sample is still a TicTacToe position: legal moves are its empty squares,
    and the solved policy target still names optimal moves of the transformed board."""
    data = labelled_positions()
    learner = make_learner(seed=4)
    index = np.arange(0, len(data["value"]), 7)
    batch = Batch(
        obs=data["obs"][index].astype(np.float32),
        policy=data["policy"][index],
        value=data["value"][index],
        mask=data["mask"][index],
    )
    out = learner.augmented(batch)
    empty = out.obs.sum(axis=1).reshape(len(index), 9) == 0
    np.testing.assert_array_equal(out.mask, empty)
    changed = 0
    for i in range(len(index)):
        mover, other = out.obs[i, 0].reshape(-1), out.obs[i, 1].reshape(-1)
        mine = 1 if mover.sum() == other.sum() else 2
        board = tuple(
            int(mine if m else (3 - mine if o else 0)) for m, o in zip(mover, other, strict=True)
        )
        value, best = solve(board)
        assert value == out.value[i]
        assert set(np.flatnonzero(out.policy[i])) == set(best)
        changed += not np.array_equal(out.obs[i], batch.obs[i])
    assert changed > len(index) // 2  # most samples really were transformed
    assert make_learner(seed=4, augment=False).augmented(batch) is batch


def test_learner_refuses_bad_arguments(tmp_path: Path) -> None:
    net = AZNet(NetworkSettings.for_game(TTT, channels=4, blocks=0, value_hidden=4))
    for kwargs, match in [
        ({"lr": 0}, "lr must be > 0"),
        ({"lr": -1.0}, "lr=-1.0 is not allowed: it must be a number >= 0"),
        ({"momentum": 1.0}, r"momentum must be in \[0, 1\)"),
        ({"optimizer": "rmsprop"}, "optimizer must be one of"),
        ({"seed": -1}, "seed=-1 is not allowed: it must be an integer >= 0"),
        (
            {"weight_decay": float("nan")},
            "weight_decay=nan is not allowed: it must be a number >= 0",
        ),
    ]:
        with pytest.raises(ValueError, match=match):
            Learner(net, **kwargs)  # type: ignore[arg-type]
    learner = Learner(net)
    bad = Batch(
        np.zeros((2, 2, 3, 3), np.float32), np.zeros((2, 7)), np.zeros(2), np.ones((2, 7), bool)
    )
    with pytest.raises(ValueError, match=r"policy and mask must be \[2, 9\]"):
        learner.step(bad)
    with pytest.raises(ValueError, match="no such learner state file"):
        load_learner(learner, tmp_path / "missing.pt")
    (tmp_path / "evil.pt").write_bytes(b"not a torch file")
    with pytest.raises(ValueError, match="not a learner state"):
        load_learner(learner, tmp_path / "evil.pt")
    other = Learner(net, optimizer="adam")
    save_learner(other, tmp_path / "adam.pt")
    with pytest.raises(ValueError, match="optimizer 'adam'"):
        load_learner(learner, tmp_path / "adam.pt")


# --- the replay buffer ------------------------------------------------------------------------


def entries(n: int, start: int = 0) -> tuple[np.ndarray, ...]:
    """``n`` distinguishable entries: entry ``i`` has value ``(start + i) / 1000``."""
    values = (start + np.arange(n)) / 1000.0
    obs = np.zeros((n, 2, 3, 3), np.int8)
    obs[:, 0, 0, 0] = 1
    policy = np.full((n, 9), 1 / 9, np.float32)
    return obs, policy, values.astype(np.float32), np.ones((n, 9), bool)


def test_ring_keeps_the_newest() -> None:
    buffer = ReplayBuffer(5, (2, 3, 3), 9, seed=0)
    buffer.add(*entries(3))
    assert len(buffer) == 3 and buffer.position == 3
    buffer.add(*entries(4, start=3))  # wraps: 0..6 added, 2..6 kept
    assert len(buffer) == 5 and buffer.position == 2 and buffer.added == 7
    seen = set(np.round(buffer.sample(500).value * 1000).astype(int).tolist())
    assert seen == {2, 3, 4, 5, 6}
    buffer.add(*entries(12, start=100))  # more than the capacity at once: the last 5 stay
    assert buffer.added == 19 and len(buffer) == 5
    seen = set(np.round(buffer.sample(500).value * 1000).astype(int).tolist())
    assert seen == {107, 108, 109, 110, 111}
    batch = buffer.sample(4)
    assert batch.obs.dtype == np.float32 and batch.obs.shape == (4, 2, 3, 3)
    assert batch.mask.dtype == np.bool_ and len(batch) == 4
    everything = buffer.entries()  # every kept entry once, in ring order
    assert np.round(everything.value * 1000).astype(int).tolist() == [108, 109, 110, 111, 107]
    assert everything.obs.dtype == np.float32 and everything.obs.shape == (5, 2, 3, 3)


def test_sampling_is_seeded() -> None:
    a, b, c = (ReplayBuffer(50, (2, 3, 3), 9, seed=s) for s in (1, 1, 2))
    for buffer in (a, b, c):
        buffer.add(*entries(50))
    assert np.array_equal(a.sample(32).value, b.sample(32).value)
    assert not np.array_equal(a.sample(32).value, c.sample(32).value)


def test_save_and_resume_sample_the_same(tmp_path: Path) -> None:
    buffer = ReplayBuffer(40, (2, 3, 3), 9, seed=11)
    buffer.add(*entries(55))  # wrapped
    buffer.sample(8)
    buffer.save(tmp_path / "replay.npz")
    expected = [buffer.sample(16).value for _ in range(3)]
    buffer.add(*entries(5, start=500))
    expected.append(buffer.sample(16).value)

    resumed = ReplayBuffer.load(tmp_path / "replay.npz")
    assert (len(resumed), resumed.position, resumed.added) == (40, 15, 55)
    got = [resumed.sample(16).value for _ in range(3)]
    resumed.add(*entries(5, start=500))
    got.append(resumed.sample(16).value)
    for x, y in zip(expected, got, strict=True):
        np.testing.assert_array_equal(x, y)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["replay.npz"]  # no temporary left


def test_buffer_refuses_bad_input(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="capacity=0 is not allowed: it must be an integer >= 1"):
        ReplayBuffer(0, (2, 3, 3), 9)
    with pytest.raises(ValueError, match="obs_shape must be positive integers"):
        ReplayBuffer(5, (2, 0, 3), 9)
    buffer = ReplayBuffer(5, (2, 3, 3), 9)
    with pytest.raises(ValueError, match="empty replay buffer"):
        buffer.sample(1)
    obs, policy, value, mask = entries(2)
    with pytest.raises(ValueError, match=r"obs must be \[2, 2, 3, 3\]"):
        buffer.add(obs[:, :1], policy, value, mask)
    with pytest.raises(ValueError, match=r"values must be finite and in \[-1, 1\]"):
        buffer.add(obs, policy, value + 2, mask)
    with pytest.raises(ValueError, match="0s and 1s"):
        buffer.add(obs * 3, policy, value, mask)
    with pytest.raises(ValueError, match="non-negative"):
        buffer.add(obs, -policy, value, mask)
    with pytest.raises(ValueError, match="no such replay buffer file"):
        ReplayBuffer.load(tmp_path / "missing.npz")
    # A file with a pickled object inside is refused, not unpickled.
    np.savez(tmp_path / "evil.npz", meta=np.array([{"format": "x"}], dtype=object))
    with pytest.raises(ValueError, match="not a replay buffer file"):
        ReplayBuffer.load(tmp_path / "evil.npz")

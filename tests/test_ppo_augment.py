"""Self-play PPO's --augment (:class:`boardzoo.rl.BoardSymmetries`): the learner sees each
position through a random symmetry of the board. Oracle: the legal moves of the board it sees,
found by the tests' own slow Reversi (``reference_reversi``), and the start position turned by
hand. And experiments/ppo_selfplay.py's --init-model."""

from __future__ import annotations

import numpy as np
import pytest
from reference_reversi import BLACK_DISC, EMPTY, WHITE_DISC, placements
from repo_scripts import load_script

from boardzoo.games.catalog import game_of
from boardzoo.games.symmetry import symmetries as symmetries_of
from boardzoo.rl.augment import BoardSymmetries
from boardzoo.vector import BoardGameVectorEnv


def load_experiment():
    return load_script("experiments/ppo_selfplay.py", "ppo_selfplay")


def reference_mask(planes: np.ndarray) -> np.ndarray:
    """The legal actions of the player to move on ``planes`` (rows, cols, [mover, other])."""
    size = planes.shape[0]
    board = [[BLACK_DISC if planes[r, c, 0] else WHITE_DISC if planes[r, c, 1] else EMPTY
              for c in range(size)] for r in range(size)]  # fmt: skip
    mask = np.zeros(size * size + 1, dtype=bool)
    for r, c in placements(board, 0):
        mask[r * size + c] = True
    if not mask.any():
        mask[-1] = True
    return mask


def test_the_transformed_boards_have_the_moves_the_learner_is_offered():
    symmetries = BoardSymmetries(game_of("reversi", board_size=8), True, seed=3)
    envs = BoardGameVectorEnv("reversi", 24, opponent="random", board_size=8)
    obs, info = envs.reset(seed=5)
    mask = info["action_mask"].astype(bool)
    rng = np.random.default_rng(0)
    changed = checked = 0
    for _ in range(60):
        live = mask.any(axis=1)
        mask[~live] = True
        seen, legal, to_env = symmetries.transform(obs, mask)
        changed += int((seen != obs).any(axis=(1, 2, 3)).sum())
        for i in np.flatnonzero(live):
            assert np.array_equal(legal[i], reference_mask(seen[i]))
            checked += 1
        chosen = np.array([rng.choice(np.flatnonzero(row)) for row in legal])
        played = to_env(chosen)
        assert mask[np.arange(len(played)), played].all()  # the env gets a legal move back
        obs, _, _, _, info = envs.step(played)
        mask = info["action_mask"].astype(bool)
    assert checked > 1000 and changed > checked // 2


def test_the_start_turned_a_quarter_has_the_hand_checked_moves():
    """Turned a quarter, the start swaps its colours: black's moves d3 c4 f5 e6 become f4 e3
    d6 c5 (squares 29, 20, 43, 34)."""
    symmetries = BoardSymmetries(game_of("reversi", board_size=8), True, seed=0)
    envs = BoardGameVectorEnv("reversi", 1, opponent="random", learner_color="black",
                              board_size=8)  # fmt: skip
    obs, info = envs.reset(seed=0)
    names = [symmetry.name for symmetry in symmetries_of(game_of("reversi", board_size=8))]
    symmetries.rng = _Fixed(names.index("rot90"))
    seen, legal, to_env = symmetries.transform(obs, info["action_mask"].astype(bool))
    assert sorted(np.flatnonzero(legal[0])) == [20, 29, 34, 43]
    assert sorted(to_env(np.array([a]))[0] for a in (20, 29, 34, 43)) == [19, 26, 37, 44]
    # the discs: black's d4 e5 and white's e4 d5 after the turn
    assert sorted(np.flatnonzero(seen[0, :, :, 0].reshape(-1))) == [27, 36]


def test_no_augment_leaves_the_board_as_it_is():
    symmetries = BoardSymmetries(game_of("reversi", board_size=8), False, seed=0)
    obs = np.random.default_rng(1).integers(0, 2, size=(4, 8, 8, 2)).astype(np.int8)
    mask = np.random.default_rng(2).integers(0, 2, size=(4, 65)).astype(bool)
    seen, legal, to_env = symmetries.transform(obs, mask)
    assert seen is obs and legal is mask and list(to_env(np.arange(4))) == [0, 1, 2, 3]


class _Fixed:
    """A generator that always draws ``value``."""

    def __init__(self, value: int) -> None:
        self.value = value

    def integers(self, low: int, high: int, size: int) -> np.ndarray:
        return np.full(size, self.value)


@pytest.mark.torch
def test_the_league_copies_the_learner_into_its_slots_in_turn():
    import torch

    from boardzoo.learned.network import AZNet, NetworkSettings
    from boardzoo.rl.league import SnapshotLeague

    def same(a, b):
        return all(torch.equal(t, b.state_dict()[k]) for k, t in a.state_dict().items())

    torch.manual_seed(0)
    settings = NetworkSettings("tictactoe", channels=4, blocks=0)
    learner, later = AZNet(settings), AZNet(settings)
    league = SnapshotLeague(learner, 2, seed=0)
    assert len(league) == len(league.policies) == 2
    assert all(same(net, learner) for net in league.nets) and not same(later, learner)
    league.refresh(later)
    assert same(league.nets[0], later) and same(league.nets[1], learner)
    league.refresh(later)
    assert same(league.nets[1], later) and league.next_slot == 0
    obs = np.zeros((3, 3, 3, 2), np.int8)
    moves = league.policies[0](obs, np.eye(3, 9, dtype=np.int8))  # a slot plays legal moves
    assert moves.tolist() == [0, 1, 2]


@pytest.mark.torch
def test_init_model_starts_the_learner_and_the_league_from_its_weights(tmp_path):
    import torch

    from boardzoo.learned.model_io import save_model
    from boardzoo.learned.network import AZNet, NetworkSettings

    script = load_experiment()
    torch.manual_seed(3)
    config = NetworkSettings("reversi", {"board_size": 4}, channels=8, blocks=1)
    model = save_model(tmp_path / "start.pt", AZNet(config))
    args = script.check(script.Args(game="reversi", options=("board_size=4",), quick=True,
                                    init_model=str(model), snapshots=2))  # fmt: skip
    run = script.make_run(args)
    obs = np.zeros((1, 2, 4, 4), np.float32)
    obs[0, :, 1:3, 1:3] = [[[1, 0], [0, 1]], [[0, 1], [1, 0]]]
    mask = np.ones((1, 17), bool)
    before = run.evaluator(obs, mask)[0]
    run.start_from(args.init_model)
    saved = torch.load(model, weights_only=True)
    for net in (run.net, *run.league.nets):
        for name, tensor in net.state_dict().items():
            assert torch.equal(tensor, saved[name]), name
    after = run.evaluator(obs, mask)[0]
    assert not np.allclose(before, after)  # the learner's evaluator plays the loaded weights
    # a model of another network is a one-line error before any work
    with pytest.raises(SystemExit, match="its network has 8 channels, 1 blocks and a value head "
                                         "of 64, this run's 16, 1 and 64"):  # fmt: skip
        script.check(script.Args(game="reversi", options=("board_size=4",), channels=16,
                                 init_model=str(model)))  # fmt: skip
    with pytest.raises(SystemExit, match=r"--init-model: .*plays reversi 4x4, not reversi 6x6"):
        script.check(script.Args(game="reversi", options=("board_size=6",), quick=True,
                                 init_model=str(model)))  # fmt: skip

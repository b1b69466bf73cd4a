"""The learned evaluation (boardzoo.learned): n-tuple values, files, training, and the agents
that use it. Values are checked against a slow reference written here from the definition."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from numba import njit

from boardzoo.agents.alphabeta import AlphaBetaAgent
from boardzoo.agents.registry import AgentSpecError, make_agent
from boardzoo.envs import reversi_v0
from boardzoo.games.catalog import make_game
from boardzoo.learned import (
    NTupleNet,
    load_net,
    load_net_file,
    load_net_metadata,
    ntuple_value,
    save_net,
)
from boardzoo.learned.ntuple import MODELS_DIR, net_file_name, ntuple_indices, ntuple_sums
from boardzoo.learned.td import TDTrainSettings, new_net, train

REVERSI_8 = make_game("reversi", board_size=8)
REVERSI_6 = make_game("reversi", board_size=6)
REVERSI_4 = make_game("reversi", board_size=4)
CONNECT_FOUR = make_game("connect_four")
LEARNED_GAMES = [REVERSI_4, REVERSI_6, REVERSI_8, CONNECT_FOUR]


def reference_indices(s0: int, s1: int, player: int, net: NTupleNet) -> list[int]:
    """The definition, slowly: each instance's index, its cells' digits (0 empty / 1 the
    mover's / 2 the opponent's) in base 3, first cell most significant, -1 slots read 0."""
    own, opp = (s0, s1) if player == 0 else (s1, s0)
    longest = net.cells.shape[1]
    indices = []
    for row in net.cells.tolist():
        index = 0
        for position, cell in enumerate(row):
            digit = 0 if cell < 0 else 1 if own >> cell & 1 else 2 if opp >> cell & 1 else 0
            index += digit * 3 ** (longest - 1 - position)
        indices.append(index)
    return indices


def reference_sum(s0: int, s1: int, player: int, board: int, net: NTupleNet) -> float:
    """The definition, slowly: the weights the instances' indices read in the position's stage
    (by pieces), summed."""
    stages = net.weights.shape[0]
    stage = min(stages - 1, (s0 | s1).bit_count() * stages // board.bit_count())
    indices = reference_indices(s0, s1, player, net)
    return sum(
        float(net.weights[stage, table, index])
        for table, index in zip(net.table.tolist(), indices, strict=True)
    )


def reference_value(s0: int, s1: int, player: int, board: int, net: NTupleNet) -> float:
    """The definition, slowly: ``tanh`` of :func:`reference_sum`."""
    return math.tanh(reference_sum(s0, s1, player, board, net))


def random_positions(game, count: int, seed: int):
    """``count`` positions in play from random games: ``(state, s0, s1, player)``."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = game.initial_state()
        while not state.is_terminal() and len(found) < count:
            if rng.random() < 0.3:
                s0, s1 = state.bitboards()
                found.append((state, s0, s1, state.current_player))
            state = state.apply(int(rng.choice(state.legal_actions())))
    return found


def value(game, net, s0: int, s1: int, player: int) -> float:
    return float(ntuple_value(np.uint64(s0), np.uint64(s1), player, game.params, net))


def random_net(game, seed: int = 0) -> NTupleNet:
    net = new_net(game)
    net.weights[:] = np.random.default_rng(seed).normal(0, 0.1, net.weights.shape)
    return net


# --- values ---------------------------------------------------------------------------------


@pytest.mark.parametrize("game", [REVERSI_8, REVERSI_6, CONNECT_FOUR], ids=lambda g: g.label)
@pytest.mark.parametrize("shipped", [True, False], ids=["shipped", "random-weights"])
def test_value_matches_the_definition(game, shipped):
    net = load_net(game) if shipped else random_net(game)
    board = int(game.params[0])
    for _, s0, s1, player in random_positions(game, 25, seed=1):
        expected = reference_value(s0, s1, player, board, net)
        assert value(game, net, s0, s1, player) == pytest.approx(expected, abs=1e-9)
        assert -1 < expected < 1


@pytest.mark.parametrize("game", LEARNED_GAMES, ids=lambda g: g.label)
def test_batched_sums_and_indices_match_the_definition(game):
    """The batched evaluator (a fit's features and sums) reads what the definition reads, in
    every game with a net, the stage taken from each board's own number of cells."""
    net = random_net(game, seed=5)
    board = int(game.params[0])
    found = random_positions(game, 30, seed=2)
    s0 = np.array([s for _, s, _, _ in found], dtype=np.uint64)
    s1 = np.array([s for _, _, s, _ in found], dtype=np.uint64)
    player = np.array([p for _, _, _, p in found], dtype=np.int64)
    sums = ntuple_sums(s0, s1, player, game.params, net.cells, net.table, net.weights)
    indices = ntuple_indices(s0, s1, player, net.cells)
    for k, (_, a, b, p) in enumerate(found):
        assert sums[k] == pytest.approx(reference_sum(a, b, p, board, net), abs=1e-9)
        assert indices[k].tolist() == reference_indices(a, b, p, net)


def test_value_is_callable_from_compiled_code():
    @njit
    def both_sides(s0, s1, params, net):
        return ntuple_value(s0, s1, 0, params, net) + ntuple_value(s0, s1, 1, params, net)

    net = random_net(REVERSI_8, seed=3)
    state = REVERSI_8.initial_state().apply(19)
    s0, s1 = state.bitboards()
    expected = sum(reference_value(s0, s1, p, int(REVERSI_8.params[0]), net) for p in (0, 1))
    got = both_sides(np.uint64(s0), np.uint64(s1), REVERSI_8.params, net)
    assert got == pytest.approx(expected, abs=1e-9)


def square_images(bits: int, size: int) -> list[int]:
    """A Reversi bitboard (bit row * 8 + col) under the 8 symmetries of the square."""
    squares = [(c // 8, c % 8) for c in range(64) if bits >> c & 1]
    far, images = size - 1, []
    for transpose in (False, True):
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                image = 0
                for r, c in squares:
                    if transpose:
                        r, c = c, r
                    r, c = (far - r if flip_rows else r), (far - c if flip_cols else c)
                    image |= 1 << (r * 8 + c)
                images.append(image)
    return images


@pytest.mark.parametrize("game", [REVERSI_8, REVERSI_6], ids=lambda g: g.label)
def test_reversi_values_are_symmetric(game):
    net, size = load_net(game), game.options["board_size"]
    for _, s0, s1, player in random_positions(game, 12, seed=2):
        images = list(zip(square_images(s0, size), square_images(s1, size), strict=True))
        assert len(set(images)) > 1
        values = [value(game, net, a, b, player) for a, b in images]
        assert max(values) - min(values) < 1e-9


def test_connect_four_values_are_mirror_symmetric():
    net = load_net(CONNECT_FOUR)

    def mirror(bits: int) -> int:  # bit col * 7 + height
        return sum(1 << ((6 - c // 7) * 7 + c % 7) for c in range(49) if bits >> c & 1)

    for _, s0, s1, player in random_positions(CONNECT_FOUR, 12, seed=4):
        assert value(CONNECT_FOUR, net, s0, s1, player) == pytest.approx(
            value(CONNECT_FOUR, net, mirror(s0), mirror(s1), player), abs=1e-9
        )


def test_shipped_nets_are_small_and_say_how_they_were_trained():
    for game in LEARNED_GAMES:
        net = load_net(game)
        assert load_net(game) is net  # cached
        assert net.weights.dtype == np.float32 and np.abs(net.weights).max() > 0
        path = MODELS_DIR / net_file_name(game)
        assert path.stat().st_size < 2_000_000
        meta = load_net_metadata(path)
        assert meta["game"] == game.name and meta["options"] == dict(game.options)
        # trained by TD (``scripts/train_eval.py td``, once under its former script's name) or
        # fitted (``fit``), on over a million positions, every command that made it recorded
        assert meta["command"] == meta["commands"][-1]
        if meta["command"].startswith("python scripts/train_eval.py fit"):
            assert meta["data"]["positions"] > 1_000_000
            assert any(" generate " in line for line in meta["commands"])
        else:
            assert meta["command"].startswith(
                ("python scripts/train_ntuple.py --game", "python scripts/train_eval.py td")
            )
            assert meta["progress"]["positions"] > 1_000_000


def test_a_game_without_a_net_is_refused():
    with pytest.raises(ValueError, match=r"tictactoe.*reversi-8x8"):
        load_net(make_game("tictactoe"))


# --- files ----------------------------------------------------------------------------------


def test_save_and_load_round_trip(tmp_path):
    net = random_net(REVERSI_6, seed=5)
    save_net(tmp_path / "net.npz", net, {"game": "reversi", "note": "é"})
    loaded = load_net_file(tmp_path / "net.npz")
    for a, b in zip(net, loaded, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert load_net_metadata(tmp_path / "net.npz") == {"game": "reversi", "note": "é"}


def write_npz(path, **arrays):
    with open(path, "wb") as file:
        np.savez(file, **arrays)
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"cells": np.zeros((3, 2), dtype=np.float64)}, "cells must be int64"),
        ({"weights": np.zeros((1, 2, 9), dtype=np.float64)}, "weights must be float32"),
        ({"weights": np.zeros((1, 2, 10), dtype=np.float32)}, r"3\*\*2"),
        ({"table": np.array([0, 1, 2], dtype=np.int64)}, "table must hold"),
        ({"cells": np.array([[1, -1], [2, 3], [4, 5]], dtype=np.int64)}, "-1 slots"),
        ({"cells": np.array([[1, 70], [2, 3], [4, 5]], dtype=np.int64)}, "0..63"),
        ({"metadata": np.array("{not json")}, "not JSON"),
        ({"metadata": None}, "missing arrays: metadata"),
    ],
)
def test_malformed_files_are_refused(tmp_path, change, message):
    arrays = {
        "cells": np.array([[-1, 1], [2, 3], [4, 5]], dtype=np.int64),
        "table": np.array([0, 1, 1], dtype=np.int64),
        "weights": np.zeros((1, 2, 9), dtype=np.float32),
        "metadata": np.array("{}"),
    }
    arrays.update(change)
    path = write_npz(tmp_path / "bad.npz", **{k: v for k, v in arrays.items() if v is not None})
    with pytest.raises(ValueError, match=message) as error:
        load_net_file(path)
    assert "bad.npz" in str(error.value)


def test_pickles_are_never_loaded(tmp_path):
    class Boom:
        def __reduce__(self):
            return (exec, ("raise SystemExit('executed')",))

    path = tmp_path / "evil.npz"
    path.write_bytes(pickle.dumps({"cells": Boom()}))
    with pytest.raises(ValueError, match=r"evil\.npz"):
        load_net_file(path)
    objects = write_npz(tmp_path / "objects.npz", cells=np.array([Boom()], dtype=object))
    with pytest.raises(ValueError, match=r"objects\.npz"):
        load_net_file(objects)
    np.save(tmp_path / "one.npy", np.zeros(3))
    with pytest.raises(ValueError, match=r"one\.npy: not an n-tuple net file: it holds one array"):
        load_net_file(tmp_path / "one.npy")
    (tmp_path / "empty.npz").write_bytes(b"")
    with pytest.raises(ValueError, match=r"empty\.npz"):
        load_net_file(tmp_path / "empty.npz")


# --- training -------------------------------------------------------------------------------


def trained(tmp_path, name: str, games: int, resume: bool = False, seed: int = 7) -> NTupleNet:
    config = TDTrainSettings(seed=seed, chunk_games=150)
    path = train(
        REVERSI_4, tmp_path / name, config=config, games=games, resume=resume,
        eval_every=0, log=lambda line: None,
    )  # fmt: skip
    return load_net_file(path)


def test_training_is_deterministic_and_resumable(tmp_path):
    first = trained(tmp_path, "a", 400)
    again = trained(tmp_path, "b", 400)
    assert np.array_equal(first.weights, again.weights)
    assert np.abs(first.weights).max() > 0
    trained(tmp_path, "c", 250)  # interrupted after 250 games (not a multiple of the chunk)
    resumed = trained(tmp_path, "c", 400, resume=True)
    assert np.array_equal(first.weights, resumed.weights)
    other = trained(tmp_path, "d", 400, seed=8)
    assert not np.array_equal(first.weights, other.weights)
    meta = load_net_metadata(tmp_path / "c" / "net.npz")
    assert meta["progress"]["games"] == 400 and meta["game"] == "reversi"


def afterstate_scores(state, net) -> dict[int, float]:
    """The value for the mover of the position after each legal action, from the definition and
    the state's own rules: the result of a finished game; after a pass, the mover's value."""
    game, mover, scores = state.game, state.current_player, {}
    for action in state.legal_actions():
        after = state.apply(action)
        if not after.is_terminal() and after.must_pass():
            after = after.apply(after.legal_actions()[0])  # the pass: the mover moves again
        if after.is_terminal():
            scores[action] = float(np.sign(after.returns()[mover]))
        else:
            s0, s1 = after.bitboards()
            score = value(game, net, s0, s1, after.current_player)
            scores[action] = score if after.current_player == mover else -score
    return scores


def learned_greedy_actions(state, net) -> list[int]:
    """The actions with the best :func:`afterstate_scores`."""
    scores = afterstate_scores(state, net)
    best = max(scores.values())
    return [action for action, score in scores.items() if score >= best - 1e-12]


def score_against_random(game, net, games: int, seed: int) -> float:
    rng, total = np.random.default_rng(seed), 0.0
    for g in range(games):
        state, learned = game.initial_state(), g % 2
        while not state.is_terminal():
            if state.current_player == learned and len(state.legal_actions()) > 1:
                state = state.apply(learned_greedy_actions(state, net)[0])
            else:
                state = state.apply(int(rng.choice(state.legal_actions())))
        total += (np.sign(state.returns()[learned]) + 1) / 2
    return total / games


def test_a_few_seconds_of_training_beat_random(tmp_path):
    config = TDTrainSettings(seed=1, chunk_games=3000)
    path = train(REVERSI_4, tmp_path / "r4", config=config, games=3000, eval_every=0,
                 log=lambda line: None)  # fmt: skip
    assert score_against_random(REVERSI_4, load_net_file(path), 40, seed=11) >= 0.8
    assert score_against_random(REVERSI_4, new_net(REVERSI_4), 40, seed=11) < 0.7  # untrained


# --- agents ---------------------------------------------------------------------------------


def play(agents, game):
    state = game.initial_state()
    while not state.is_terminal():
        action = agents[state.current_player].act(state)
        assert state.is_legal(action)
        state = state.apply(action)
    return state


@pytest.mark.parametrize("game", [REVERSI_8, CONNECT_FOUR], ids=lambda g: g.label)
def test_learned_agents_play_legal_games(game):
    greedy = make_agent("greedy:eval=learned", seed=1)
    alphabeta = make_agent("alphabeta:depth=2,eval=learned", seed=2)
    assert play([greedy, alphabeta], game).is_terminal()
    assert play([alphabeta, make_agent("random", seed=3)], game).is_terminal()


def test_learned_agents_play_through_the_env():
    """Through the AEC env, the learned alpha-beta plays the moves a twin (same spec and seed)
    plays on the same positions given as game states, kept here apart from the env; every move
    is in the env's mask, and the final rewards are the game's result."""
    env = reversi_v0.env(board_size=6)
    env.reset(seed=0)
    spec = "alphabeta:depth=2,eval=learned"
    agents = [make_agent(spec, seed=0), make_agent("random", seed=1)]
    twin = make_agent(spec, seed=0)
    state, final = REVERSI_6.initial_state(), {}
    for name in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            final[name] = reward
            env.step(None)
            continue
        player = env.agents.index(name)
        assert player == state.current_player
        assert list(np.flatnonzero(observation["action_mask"])) == list(state.legal_actions())
        action = agents[player].act(env)
        if player == 0:
            assert action == twin.act(state)
        assert observation["action_mask"][action] == 1
        state = state.apply(action)
        env.step(action)
    assert state.is_terminal() and env.unwrapped.get_state() == state
    assert final == dict(zip(env.possible_agents, state.returns(), strict=True))
    assert sorted(final.values()) in ([-1, 1], [0, 0])


def test_learned_greedy_plays_the_best_valued_move():
    agent = make_agent("greedy:eval=learned", seed=0)
    for game in (REVERSI_8, REVERSI_4, CONNECT_FOUR):
        net = load_net(game)
        for state, *_ in random_positions(game, 30, seed=5):
            if len(state.legal_actions()) > 1:
                assert agent.act(state) in learned_greedy_actions(state, net)


def test_learned_greedy_finds_the_exact_best_moves_of_endgames():
    """Against an oracle from outside the net: in Reversi 8x8 positions with 12 empty squares
    where the moves' exact results (solved by alpha-beta to the end) differ, the one-ply learned
    player picks a move with the best result far more often than a random move would."""
    solver = AlphaBetaAgent(depth=1, exact_empties=64, seed=0)
    agent = make_agent("greedy:eval=learned", seed=0)

    def exact_result(state, action) -> float:  # for the player to move in ``state``
        mover, after = state.current_player, state.apply(action)
        if after.is_terminal():
            return float(np.sign(after.returns()[mover]))
        info = solver.search(after)
        assert info.exact
        return float(np.sign(info.score)) * (1 if after.current_player == mover else -1)

    rng, found, learned_best, random_best = np.random.default_rng(0), 0, 0, 0.0
    while found < 40:
        state = REVERSI_8.initial_state()
        while not state.is_terminal() and sum(state.disc_counts()) < 52:
            state = state.apply(int(rng.choice(state.legal_actions())))
        if state.is_terminal() or sum(state.disc_counts()) != 52:
            continue
        results = {action: exact_result(state, action) for action in state.legal_actions()}
        best = max(results.values())
        if all(result == best for result in results.values()):
            continue
        found += 1
        learned_best += results[agent.act(state)] == best
        random_best += sum(result == best for result in results.values()) / len(results)
    assert learned_best / found >= 0.7  # the shipped net: 31 of 40 (hand greedy: 27)
    assert learned_best / found >= random_best / found + 0.2


def test_learned_alphabeta_depth_1_scores_the_best_move():
    agent = make_agent("alphabeta:depth=1,exact_empties=0,eval=learned", seed=0)
    net = load_net(REVERSI_8)
    for state, *_ in random_positions(REVERSI_8, 10, seed=7):
        if any(state.apply(a).is_terminal() for a in state.legal_actions()):
            continue  # a finished game scores WIN or more
        best = max(afterstate_scores(state, net).values())
        assert agent.search(state).score == round(10_000 * best)


@pytest.mark.parametrize("spec", ["greedy:eval=learned", "alphabeta:depth=2,eval=learned"])
def test_a_game_without_a_net_is_refused_by_the_agents(spec):
    agent = make_agent(spec, seed=0)
    with pytest.raises(ValueError, match="no learned evaluation for tictactoe"):
        agent.prepare(make_game("tictactoe"))
    with pytest.raises(ValueError, match="no learned evaluation for tictactoe"):
        agent.act(make_game("tictactoe").initial_state())


def test_eval_values_are_checked():
    with pytest.raises(AgentSpecError, match="one of hand, learned"):
        make_agent("alphabeta:eval=neural")
    with pytest.raises(ValueError, match="eval must be one of"):
        make_agent("greedy").__class__(eval="neural")  # type: ignore[arg-type]

"""boardzoo's agents and solver on other libraries' games: PettingZoo's own ``connect_four_v3``
and ``tictactoe_v3`` envs and OpenSpiel's ``tic_tac_toe``, ``connect_four`` and ``othello``
states (:mod:`boardzoo.interop`), boardzoo's agents as OpenSpiel bots, and OpenSpiel's bots as a
boardzoo agent (:mod:`boardzoo.agents.openspiel`).

The oracles are the other libraries themselves: PettingZoo's action masks, agent to move,
rewards and terminations, and OpenSpiel's legal actions, current player, returns and its
refusal of an illegal action (``SpielError``); positions are reached by stepping their envs and
applying actions to their states. Beyond them: hand-checked positions (the ones of
``test_foreign_envs``, checked there by the env's rules alone; a TicTacToe win in one below),
the slow minimax of ``reference_tictactoe``, the list-of-lists Connect Four of
``reference_connect_four``, and two published facts: Connect Four is a first-player win, and
the position ``4455`` of the Connect 4 Game Solver's notation (1-based columns) scores 18 for
the player to move (a win with its 4th disc: an open three on the bottom row).

PettingZoo's ``tictactoe_v3`` numbers its squares column by column (``0 3 6`` on the top row);
boardzoo reads its square ``k`` as its own square ``k`` (row by row), the board mirrored in the
main diagonal, so that actions are the env's as they are.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest
from pettingzoo.classic import connect_four_v3, tictactoe_v3
from reference_connect_four import drop, has_four, legal_columns, new_board
from reference_tictactoe import ttt_best_actions, ttt_value
from test_foreign_envs import BLOCKS, WINS, NimEnv, assert_same, played, seen

from boardzoo.agents import AgentSpecError, make_agent
from boardzoo.envs.catalog_env import env as boardzoo_env
from boardzoo.games.catalog import make_game
from boardzoo.gametree.solve import solve
from boardzoo.interop import catalog_position, moves_to, openspiel_position, pettingzoo_position

AGENT_SPECS = [
    "solver",
    "engine:time_limit=0.05",
    pytest.param("az:time_limit=0.05", marks=pytest.mark.torch),
    "alphabeta:depth=3",
    "greedy",
    "mcts:simulations=100",
    "random",
]
STRONG = ["solver", "engine:time_limit=0.05", "alphabeta:depth=3"]
# Mid-game positions with no win in one for either side.
MIDGAME = {"connect-four": (connect_four_v3, (3, 3, 2, 4)), "tictactoe": (tictactoe_v3, (4, 0))}
# PettingZoo's tictactoe: X (player_1) on 0 and 3, O on 7 and 8 (squares column by column):
#     X X .
#     . . O
#     . . O
# X's 6 completes the top row and is X's only move that does not lose: O threatens 6 too.
X_WINS_ONLY_AT_6 = (0, 7, 3, 8)


@pytest.fixture
def pyspiel() -> Any:
    """OpenSpiel (for tests marked ``openspiel``, skipped without it)."""
    return importlib.import_module("pyspiel")


def is_tictactoe(game: Any) -> bool:
    """Whether ``game`` is PettingZoo's tictactoe_v3 module (each import of PettingZoo's
    deprecated-style module names makes a new module object: compared by name)."""
    return game.__name__.endswith("tictactoe_v3")


def mask(env: Any) -> list[int]:
    """The env's action mask for its agent to move."""
    return np.asarray(env.observe(env.agent_selection)["action_mask"]).tolist()


def finish(env: Any, players: dict[str, Any]) -> dict[str, float]:
    """Step the PettingZoo ``env`` to the end with ``players`` (agent name -> boardzoo agent),
    checking every move against the env's mask; the env's final rewards."""
    while not env.terminations[env.agent_selection]:
        action = players[env.agent_selection].act(env)
        assert mask(env)[action] == 1
        env.step(action)
    return dict(env.rewards)


# --- PettingZoo's own envs read as boardzoo positions -------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("game", [connect_four_v3, tictactoe_v3], ids=["connect-four", "ttt"])
def test_pettingzoo_positions_follow_the_env_through_random_games(game: Any, seed: int) -> None:
    """At every turn the position's legal moves are the env's mask, its player the env's agent
    and its board the env's cells (TicTacToe's read row by row); at the end its returns are the
    env's rewards."""
    env = game.env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    width = 3 if is_tictactoe(game) else 7
    while True:
        position = pettingzoo_position(env)
        raw = env.unwrapped
        cells = raw.board.squares if is_tictactoe(game) else raw.board
        marks = "".join(".XO"[int(c)] for c in np.asarray(cells).ravel())
        rows = [marks[i : i + width] for i in range(0, len(marks), width)]
        assert str(position).replace(" ", "").splitlines()[: len(rows)] == rows
        if env.terminations[env.agent_selection]:
            break
        assert not position.is_terminal()
        assert position.legal_action_mask().tolist() == mask(env)
        assert env.possible_agents[position.current_player] == env.agent_selection
        env.step(int(rng.choice(np.flatnonzero(mask(env)))))
    assert position.is_terminal() and position.legal_actions() == []
    assert position.returns() == tuple(float(env.rewards[a]) for a in env.possible_agents)
    for _ in env.possible_agents:  # the agents step out: the game is still over, as it was
        env.step(None)
    assert not env.agents and pettingzoo_position(env).returns() == position.returns()


def test_a_tictactoe_win_in_one_is_the_envs_action() -> None:
    """The position read is the env's mirrored (X on boardzoo's 0 and 3: its left column), and
    the solver's move, the only one that wins, wins in the env itself."""
    env = played(tictactoe_v3, X_WINS_ONLY_AT_6)
    position = pettingzoo_position(env)
    assert str(position).replace(" ", "").splitlines()[:3] == ["X..", "X..", ".OO"]
    assert ttt_best_actions(position) == {6} and ttt_value(position) == 1
    assert solve(env).best_moves == (6,)
    assert make_agent("solver").act(env) == 6
    env.step(6)
    assert env.terminations["player_1"] and env.rewards == {"player_1": 1, "player_2": -1}


def test_a_tampered_env_is_refused_in_one_line() -> None:
    """A board that is no position, an agent to move that is not the board's, and an action
    mask that is not the board's are each refused with a ValueError naming what differs."""
    env = played(connect_four_v3, ())
    env.unwrapped.board[0] = 1  # a disc floating at the top of column 0
    with pytest.raises(ValueError, match="its board is not a position of the game"):
        pettingzoo_position(env)

    env = played(connect_four_v3, ())
    env.unwrapped.board[35] = 1  # player_0's disc at the bottom of column 0, player_0 to move
    with pytest.raises(ValueError, match="player_0 is to move, but its board has player_1"):
        pettingzoo_position(env)

    # PettingZoo computes its mask from the board: only the mask itself can disagree with it.
    env = played(connect_four_v3, (3, 3))
    raw = env.unwrapped
    observe = raw.observe

    def observe_without_column_6(agent: str) -> dict[str, Any]:
        observation = dict(observe(agent))
        observation["action_mask"] = np.array([1, 1, 1, 1, 1, 1, 0], dtype=np.int8)
        return observation

    raw.observe = observe_without_column_6
    with pytest.raises(ValueError, match=r"action mask \[1, 1, 1, 1, 1, 1, 0\] is not") as raised:
        make_agent("engine:time_limit=0.05").act(env)
    assert "\n" not in str(raised.value)

    env = played(tictactoe_v3, (3, 0, 4, 1))
    env.unwrapped.board.squares[5] = 1  # X's three in the middle column, the env still in play
    with pytest.raises(ValueError, match="the env says the game is in play, its board does not"):
        solve(env)


# --- every agent plays PettingZoo's envs --------------------------------------------------------


@pytest.mark.parametrize("case", list(MIDGAME))
@pytest.mark.parametrize("spec", AGENT_SPECS)
def test_every_agent_plays_pettingzoos_envs(spec: str, case: str) -> None:
    """A move in the env's mask, the env left as it was, and the env plays on from it."""
    game, moves = MIDGAME[case]
    env = played(game, moves)
    before = seen(env)
    action = make_agent(spec, seed=0).act(env)
    assert_same(before, env)
    assert mask(env)[action] == 1
    env.step(action)
    assert not any(env.terminations.values())  # no win in one here: not ended by a foul


@pytest.mark.parametrize("case", list(WINS))
@pytest.mark.parametrize("spec", STRONG)
def test_the_strong_agents_win_or_keep_the_win(spec: str, case: str) -> None:
    """In Connect Four the win in one; in TicTacToe a move that keeps the win (the solver's
    scores cannot tell a win in one from a later one: reference_tictactoe says which win)."""
    game, moves, answer, _ = WINS[case]
    env = played(game, moves)
    action = make_agent(spec, seed=0).act(env)
    if is_tictactoe(game):
        state = make_game("tictactoe").initial_state()
        for move in moves:
            state = state.apply(move)
        assert action in ttt_best_actions(state) and ttt_value(state) == 1
        if spec == "solver":
            return
    assert action == answer
    mover = env.agent_selection
    env.step(action)
    assert env.rewards[mover] == 1


@pytest.mark.parametrize("case", list(BLOCKS))
@pytest.mark.parametrize("spec", STRONG)
def test_the_strong_agents_block_the_only_threat(spec: str, case: str) -> None:
    game, moves, answer = BLOCKS[case]
    env = played(game, moves)
    before = seen(env)
    assert make_agent(spec, seed=0).act(env) == answer
    assert_same(before, env)


@pytest.mark.parametrize("opponent", ["random", "mcts:simulations=200"])
def test_the_solver_wins_pettingzoos_connect_four_as_first_player(opponent: str) -> None:
    """Connect Four is a first-player win: the solver as player_0 wins every game."""
    env = played(connect_four_v3, ())
    players = {"player_0": make_agent("solver"), "player_1": make_agent(opponent, seed=3)}
    assert finish(env, players) == {"player_0": 1, "player_1": -1}


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("side", ["player_1", "player_2"])
def test_the_solver_never_loses_pettingzoos_tictactoe(side: str, seed: int) -> None:
    env = played(tictactoe_v3, ())
    other = next(a for a in env.possible_agents if a != side)
    rewards = finish(env, {side: make_agent("solver"), other: make_agent("random", seed=seed)})
    assert rewards[side] >= 0


@pytest.mark.parametrize("spec", ["engine", "solver", "alphabeta", "greedy"])
def test_an_unknown_env_is_refused_naming_what_is_played(spec: str) -> None:
    """A two-player PettingZoo env of another game: a one-line TypeError naming the envs and
    states the agent plays."""
    env = NimEnv(7)
    env.reset()
    with pytest.raises(TypeError) as raised:
        make_agent(spec).act(env)
    message = str(raised.value)
    assert "connect_four_v3" in message and "tictactoe_v3" in message and "othello" in message
    assert "\n" not in message
    assert env.pile.stones == 7


def test_solve_scores_connect_four_4455_in_pettingzoo() -> None:
    """``4455`` scores 18: the player to move wins with its 4th disc, by columns 2 or 5
    (0-based), each an open three on the bottom row. Checked on reference_connect_four: after
    either, every reply leaves a four in one; after any other move, some reply leaves none."""
    env = played(connect_four_v3, (3, 3, 4, 4))
    result = solve(env, all_moves=True)
    assert result.score == 18 and set(result.best_moves) == {2, 5}
    assert {m for m, s in result.move_scores.items() if s == 18} == {2, 5}

    board = new_board()
    for ply, column in enumerate((3, 3, 4, 4)):
        board = drop(board, column, ply % 2)

    def wins_with_fourth_disc(move: int) -> bool:
        after = drop(board, move, 0)
        return all(
            any(has_four(drop(drop(after, reply, 1), last, 0), 0) for last in range(7))
            for reply in range(7)
        )

    assert {m for m in range(7) if wins_with_fourth_disc(m)} == {2, 5}


# --- OpenSpiel's states -------------------------------------------------------------------------


def random_state(pyspiel: Any, name: str, plies: int, seed: int) -> Any:
    """OpenSpiel's ``name`` after ``plies`` random moves (fewer if it ends)."""
    state = pyspiel.load_game(name).new_initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.openspiel
@pytest.mark.parametrize(
    ("name", "games"), [("tic_tac_toe", 6), ("connect_four", 4), ("othello", 4)]
)
def test_openspiel_positions_follow_random_games(pyspiel: Any, name: str, games: int) -> None:
    """Legal actions (in order) and player to move at every turn, returns at the end, are
    OpenSpiel's; Othello's games include a pass (action 64)."""
    rng = np.random.default_rng(0)
    passes = 0
    for _ in range(games):
        state = pyspiel.load_game(name).new_initial_state()
        while not state.is_terminal():
            position = openspiel_position(state)
            assert position.legal_actions() == list(state.legal_actions())
            assert position.current_player == state.current_player()
            action = int(rng.choice(state.legal_actions()))
            passes += action == 64
            state.apply_action(action)
        position = catalog_position(state)
        assert position is not None and position.is_terminal()
        assert list(position.returns()) == list(state.returns())
    if name == "othello":
        assert passes > 0


@pytest.mark.openspiel
@pytest.mark.parametrize(
    ("name", "plies"), [("tic_tac_toe", 5), ("connect_four", 24), ("othello", 10)]
)
def test_moves_to_reaches_openspiel_positions(pyspiel: Any, name: str, plies: int) -> None:
    """The moves found, applied to a fresh OpenSpiel state, give the same state; a position
    holding a piece the target lacks reaches nothing."""
    for seed in range(3):
        state = random_state(pyspiel, name, plies, seed)
        moves = moves_to(openspiel_position(state))
        assert moves is not None
        replayed = pyspiel.load_game(name).new_initial_state()
        for action in moves:
            replayed.apply_action(action)
        assert str(replayed) == str(state)
        assert replayed.current_player() == state.current_player()
    tictactoe = make_game("tictactoe").initial_state()
    assert moves_to(tictactoe.apply(4), start=tictactoe.apply(0)) is None


@pytest.mark.openspiel
@pytest.mark.parametrize("spec", ["connect_four(rows=5)", "connect_four(x_in_row=3)", "chess"])
def test_other_openspiel_games_are_refused(pyspiel: Any, spec: str) -> None:
    """Options or games boardzoo does not play: a one-line ValueError naming what it plays, from
    the reading, the solver, the agents and as_bot."""
    from boardzoo.agents.openspiel import as_bot

    game = pyspiel.load_game(spec)
    state = game.new_initial_state()
    plays = "connect_four" if spec.startswith("connect_four") else "tic_tac_toe, connect_four"
    for call in (
        lambda: openspiel_position(state),
        lambda: solve(state),
        lambda: make_agent("engine").act(state),
        lambda: as_bot("random", game),
    ):
        with pytest.raises(ValueError, match=f"is not .*boardzoo's.*{plays}") as raised:
            call()
        assert "\n" not in str(raised.value)


@pytest.mark.openspiel
def test_solve_scores_connect_four_4455_in_openspiel(pyspiel: Any) -> None:
    """The same published score in OpenSpiel's state (see the PettingZoo test); the state is
    left as it was."""
    state = random_state(pyspiel, "connect_four", 0, 0)
    for action in (3, 3, 4, 4):
        state.apply_action(action)
    result = solve(state)
    assert result.score == 18 and result.best_moves[0] in (2, 5)
    assert state.history() == [3, 3, 4, 4]


@pytest.mark.openspiel
@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four", "othello"])
def test_agents_play_openspiel_states(pyspiel: Any, name: str) -> None:
    state = random_state(pyspiel, name, 6, 0)
    before = str(state)
    for spec in ("engine:time_limit=0.05", "mcts:simulations=50", "greedy"):
        assert make_agent(spec, seed=0).act(state) in state.legal_actions()
    assert str(state) == before


# --- boardzoo's agents as OpenSpiel bots --------------------------------------------------------


def checked_bot(pyspiel: Any, inner: Any, played_moves: list[int]) -> Any:
    """``inner`` (a pyspiel.Bot) whose every move is checked against OpenSpiel's legal
    actions and recorded."""

    class Checked(pyspiel.Bot):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            pyspiel.Bot.__init__(self)

        def step(self, state: Any) -> int:
            action = int(inner.step(state))
            assert action in state.legal_actions()
            played_moves.append(action)
            return action

        def restart_at(self, state: Any) -> None:
            inner.restart_at(state)

        def inform_action(self, state: Any, player_id: int, action: int) -> None:
            inner.inform_action(state, player_id, action)

        def provides_policy(self) -> bool:
            return False

    return Checked()


def openspiel_mcts(pyspiel: Any, game: Any, seed: int) -> Any:
    """OpenSpiel's own C++ MCTS: 200 simulations, one random rollout a leaf, the solver on."""
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.MCTSBot(game, evaluator, 2.0, 200, 1000, True, seed, False)


@pytest.mark.openspiel
@pytest.mark.parametrize("runner", ["c++", "python"])
def test_the_solver_bot_wins_connect_four_against_openspiels_mcts(
    pyspiel: Any, runner: str
) -> None:
    """As first player, by OpenSpiel's own evaluate_bots (C++ and Python), every move legal."""
    from open_spiel.python.algorithms import evaluate_bots

    from boardzoo.agents.openspiel import as_bot

    game = pyspiel.load_game("connect_four")
    moves: list[int] = []
    seed = 0 if runner == "c++" else 1
    bots = [
        checked_bot(pyspiel, as_bot("solver", game), moves),
        openspiel_mcts(pyspiel, game, seed),
    ]
    state = game.new_initial_state()
    if runner == "c++":
        returns = pyspiel.evaluate_bots(state, bots, seed)
    else:
        returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(seed))
    assert list(returns) == [1.0, -1.0]
    assert state.is_terminal() and moves == state.history()[0::2]


@pytest.mark.openspiel
@pytest.mark.parametrize("side", [0, 1])
def test_the_solver_bot_never_loses_tictactoe_against_openspiels_mcts(
    pyspiel: Any, side: int
) -> None:
    from boardzoo.agents.openspiel import as_bot

    game = pyspiel.load_game("tic_tac_toe")
    for seed in range(2):
        bots = [openspiel_mcts(pyspiel, game, seed)] * 2
        bots[side] = checked_bot(pyspiel, as_bot("solver", game), [])
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
        assert returns[side] >= 0


@pytest.mark.openspiel
def test_the_engine_bot_plays_a_full_othello_game(pyspiel: Any) -> None:
    """Against OpenSpiel's uniform random bot: every move legal, the returns OpenSpiel's."""
    from boardzoo.agents.openspiel import as_bot

    game = pyspiel.load_game("othello")
    moves: list[int] = []
    engine = checked_bot(pyspiel, as_bot("engine:time_limit=0.05", game), moves)
    state = game.new_initial_state()
    returns = pyspiel.evaluate_bots(state, [engine, pyspiel.make_uniform_random_bot(1, 0)], 0)
    assert state.is_terminal() and list(returns) == list(state.returns())
    assert len(moves) >= 20 and sum(returns) == 0


@pytest.mark.openspiel
def test_an_illegal_bot_move_is_refused_by_openspiel(pyspiel: Any) -> None:
    """The oracle the bot tests lean on: evaluate_bots stops at an illegal action."""
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    state.apply_action(4)

    class Illegal(pyspiel.Bot):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            pyspiel.Bot.__init__(self)

        def step(self, state: Any) -> int:
            return 4

        def restart_at(self, state: Any) -> None:
            pass

        def provides_policy(self) -> bool:
            return False

    with pytest.raises(pyspiel.SpielError):
        pyspiel.evaluate_bots(state, [pyspiel.make_uniform_random_bot(0, 0), Illegal()], 0)


# --- OpenSpiel's bots as a boardzoo agent -------------------------------------------------------


@pytest.mark.openspiel
def test_openspiels_mcts_plays_boardzoos_connect_four_env_reproducibly() -> None:
    """Full games in boardzoo's env against boardzoo's random, every move in the env's mask;
    the same seed and simulations give the same games."""
    games = []
    for _ in range(2):
        env = boardzoo_env("connect_four")
        env.reset(seed=0)
        players = {
            "player_0": make_agent("random", seed=1),
            "player_1": make_agent("openspiel:bot=mcts,simulations=200", seed=0),
        }
        history = []
        while not env.terminations[env.agent_selection]:
            action = players[env.agent_selection].act(env)
            assert mask(env)[action] == 1
            history.append(action)
            env.step(action)
        games.append(history)
    assert games[0] == games[1] and len(games[0]) >= 7


@pytest.mark.openspiel
@pytest.mark.parametrize("case", ["connect-four-first", "connect-four-second"])
def test_openspiels_mcts_takes_the_win_in_a_pettingzoo_env(case: str) -> None:
    game, moves, answer, _ = WINS[case]
    env = played(game, moves)
    before = seen(env)
    assert make_agent("openspiel:bot=mcts,simulations=200", seed=0).act(env) == answer
    assert_same(before, env)


@pytest.mark.openspiel
def test_openspiels_random_bot_plays_tictactoe_states() -> None:
    agent = make_agent("openspiel:bot=random", seed=0)
    state = make_game("tictactoe").initial_state()
    opponent = make_agent("random", seed=0)
    while not state.is_terminal():
        player = agent if state.current_player == 0 else opponent
        action = player.act(state)
        assert action in state.legal_actions()
        state = state.apply(action)


@pytest.mark.openspiel
@pytest.mark.parametrize(
    ("spec", "says"),
    [
        (
            "openspiel:bot=alphazero",
            r"bot=alphazero is not allowed: it must be one of mcts, random, az",
        ),
        ("openspiel:simulations=0", r"simulations=0 is not allowed: it must be an int >= 1"),
        ("openspiel:c=0", r"c=0\.0 is not allowed: it must be a number > 0"),
    ],
)
def test_bad_openspiel_options_are_refused_in_one_line(spec: str, says: str) -> None:
    with pytest.raises(AgentSpecError, match=says) as raised:
        make_agent(spec)
    assert "\n" not in str(raised.value)


@pytest.mark.openspiel
def test_openspiels_bots_refuse_a_game_openspiel_does_not_have() -> None:
    with pytest.raises(ValueError, match=r"OpenSpiel's bots play .*reversi \(othello\)"):
        make_agent("openspiel").check_game(make_game("reversi", board_size=6))


@pytest.mark.openspiel
def test_one_openspiel_random_agent_moves_for_both_players() -> None:
    """OpenSpiel's random bot belongs to a player: one agent asked for both sides (self-play)
    keeps a bot per player, and plays legal moves for each."""
    agent = make_agent("openspiel:bot=random", seed=0)
    state = make_game("tictactoe").initial_state()
    while not state.is_terminal():
        action = agent.act(state)
        assert action in state.legal_actions()
        state = state.apply(action)


def test_moves_to_gives_up_in_one_line_far_into_othello() -> None:
    """Othello's discs change colour, so the moves to a position far from the start can be
    ordered in too many ways to find: the search stops with a clear error, not a hang."""
    state = make_game("reversi").initial_state()
    rng = np.random.default_rng(0)
    for _ in range(24):
        state = state.apply(int(rng.choice(state.legal_actions())))
    with pytest.raises(ValueError, match="give a start closer to it"):
        moves_to(state, max_positions=2_000)
    with pytest.raises(ValueError, match="OpenSpiel's states are built by moves"):
        make_agent("openspiel:bot=random", seed=0).act(state)


@pytest.mark.openspiel
@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four", "othello"])
def test_openspiels_printed_states_are_read_as_its_positions(pyspiel: Any, name: str) -> None:
    """``str(state)`` and ``state.history_str()``, as OpenSpiel prints them, read as the same
    position as the state itself (legal actions and player to move checked by OpenSpiel)."""
    from boardzoo.interop.openspiel_states import OPENSPIEL_GAMES, openspiel_text_position

    for seed in range(5):
        state = random_state(pyspiel, name, 7, seed)
        if state.is_terminal():
            continue
        for text in (str(state), state.history_str()):
            position = openspiel_text_position(OPENSPIEL_GAMES[name], text)
            assert position.legal_actions() == list(state.legal_actions())
            assert position.current_player == state.current_player()
    with pytest.raises(ValueError, match="x, o"):
        openspiel_text_position(OPENSPIEL_GAMES[name], "not a board")


@pytest.mark.openspiel
def test_boardzoo_solve_reads_openspiels_notation(pyspiel: Any, capsys: Any) -> None:
    """``boardzoo solve connect_four --openspiel TEXT``: 4455 (0-based 3, 3, 4, 4) scores 18,
    from OpenSpiel's printed board and from its history alike; a bad text is one line."""
    from boardzoo.cli import main

    state = pyspiel.load_game("connect_four").new_initial_state()
    for column in (3, 3, 4, 4):
        state.apply_action(column)
    for text in (str(state), state.history_str()):
        assert main(["solve", "connect_four", "--openspiel", text]) == 0
        assert "score +18 for red" in capsys.readouterr().out
    assert main(["solve", "connect_four", "--openspiel", "3, 3, 3, 3, 3, 3, 3"]) == 2
    assert "--openspiel: action 7 (3)" in capsys.readouterr().err


@pytest.mark.openspiel
def test_label_positions_scores_their_positions_as_the_reference(pyspiel: Any) -> None:
    """A labelled set from an OpenSpiel state and a PettingZoo env: every move's score has the
    sign the list-of-lists Connect Four's result gives after it (reference_connect_four's
    rules, a win in one checked directly), and the solver's move is always a best one."""
    from boardzoo.accuracy import label_positions, measure_accuracy

    moves = (3, 3, 2, 4, 4, 2, 1, 5, 5)
    state = pyspiel.load_game("connect_four").new_initial_state()
    for column in moves:
        state.apply_action(column)
    env = played(connect_four_v3, (*moves, 0, 6))  # yellow blocks; a later position
    labelled = label_positions([state, env], source="theirs")
    assert labelled.positions[0].moves == moves  # OpenSpiel's history
    replayed = labelled.positions[1].state(labelled.game)  # some moves that reach the env's
    assert replayed.bitboards() == catalog_position(env).bitboards()
    board = new_board()
    for i, column in enumerate(moves):
        board = drop(board, column, i % 2)
    threats = [c for c in legal_columns(board) if has_four(drop(board, c, 0), 0)]
    assert threats == [0]  # red's bottom row: yellow must block column 0
    first = labelled.positions[0]
    assert sorted(first.scores) == legal_columns(board)
    for column in legal_columns(board):
        after = drop(board, column, 1)
        red_wins_next = any(has_four(drop(after, c, 0), 0) for c in legal_columns(after))
        assert (first.scores[column] < 0) == red_wins_next, column
    assert first.best == first.scores[0]
    accuracy = measure_accuracy(make_agent("solver"), labelled)
    assert accuracy.best.hits == accuracy.best.total == 2
    with pytest.raises(ValueError, match="not a position of boardzoo's games"):
        label_positions([object()])


def test_openspiel_missing_is_said_in_one_line(monkeypatch: Any) -> None:
    """Without OpenSpiel, the spec ``openspiel`` and ``as_bot`` name the extra to install; the
    rest of boardzoo (reading PettingZoo's envs, solving) imports nothing of it."""
    import sys

    from boardzoo.agents.openspiel import as_bot

    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now raises ImportError
    with pytest.raises(AgentSpecError, match=r"pip install 'boardzoo\[openspiel\]'"):
        make_agent("openspiel")
    with pytest.raises(ValueError, match=r"pip install 'boardzoo\[openspiel\]'"):
        as_bot("random")
    env = played(connect_four_v3, (3, 3))
    assert solve(env).complete

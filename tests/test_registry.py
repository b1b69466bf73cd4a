"""Agent specs: ``name[:key=value,...]`` builds the right agent or names what is wrong."""

from __future__ import annotations

import pytest

from boardzoo.agents import (
    AgentSpecError,
    AlphaBetaAgent,
    GreedyAgent,
    MCTSAgent,
    RandomAgent,
    make_agent,
    parse_spec,
)
from boardzoo.games import ReversiState
from boardzoo.games.catalog import GAME_NAMES, initial_state


def test_specs_build_configured_agents():
    agent = make_agent("mcts:simulations=1_000,c=1.0,final=max,solver=true,reuse_tree=yes", seed=3)
    assert isinstance(agent, MCTSAgent)
    assert (agent.simulations, agent.c, agent.final, agent.solver, agent.reuse_tree) == (
        1000, 1.0, "max", True, True,
    )  # fmt: skip
    assert isinstance(make_agent("alphabeta:depth=2"), AlphaBetaAgent)
    assert isinstance(make_agent("greedy"), GreedyAgent)
    assert isinstance(make_agent(" random "), RandomAgent)
    assert parse_spec("alphabeta:depth=none,time_limit=0.5") == (
        "alphabeta",
        {"depth": None, "time_limit": 0.5},
    )


def test_same_spec_and_seed_play_the_same():
    state = ReversiState.initial(6)
    first = make_agent("mcts:simulations=200", seed=5).act(state)
    assert first == make_agent("mcts:simulations=200", seed=5).act(state)


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("spec", ["random", "greedy", "alphabeta:depth=2", "mcts:simulations=50"])
def test_every_spec_plays_every_game_legally_and_reproducibly(game, spec):
    state = initial_state(game)
    for _ in range(3):  # a few plies in, so the position is no start position
        action = make_agent(spec, seed=1).act(state)
        assert state.is_legal(action)
        assert action == make_agent(spec, seed=1).act(state)
        state = state.apply(action)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("minimax", "unknown agent 'minimax'; known agents: random, greedy, alphabeta, mcts"),
        ("mcts:sims=3", "unknown key 'sims' for mcts; allowed: simulations, time_limit"),
        ("mcts:simulations=many", "mcts.simulations: expected an integer, got 'many'"),
        ("mcts:final=best", "mcts.final: 'best' is not one of robust, max"),
        ("mcts:solver=maybe", "mcts.solver: expected true or false, got 'maybe'"),
        ("mcts:simulations", "expected key=value, got 'simulations'"),
        ("mcts:simulations=1,simulations=2", "key 'simulations' given twice"),
        ("mcts:simulations=0", "simulations must be a positive int, got 0"),
        ("mcts:seed=3", "unknown key 'seed'"),
        ("mcts:prior_fn=__import__('os')", "unknown key 'prior_fn'"),
        ("", "an agent spec is a non-empty string"),
    ],
)
def test_bad_specs_are_one_line_errors(spec, message):
    with pytest.raises(AgentSpecError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_agent(spec)
    assert issubclass(AgentSpecError, ValueError)

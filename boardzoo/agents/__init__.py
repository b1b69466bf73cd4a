"""Agents: ``act(env) -> action`` at their turn, without changing the env.

Every agent also accepts a :class:`~boardzoo.games.GameState` in place of an env.
"""

from boardzoo.agents.adapter import AECGameState
from boardzoo.agents.alphabeta import AlphaBetaAgent, AlphaBetaInfo
from boardzoo.agents.alphazero import AlphaZeroAgent
from boardzoo.agents.base import Agent, env_state
from boardzoo.agents.descriptions import (
    AgentDescription,
    OptionDescription,
    describe_agent,
    format_agents,
)
from boardzoo.agents.engine import EngineAgent, EngineInfo
from boardzoo.agents.greedy import GreedyAgent
from boardzoo.agents.mcts import MCTSAgent
from boardzoo.agents.puct import PUCTAgent
from boardzoo.agents.random_agent import RandomAgent
from boardzoo.agents.registry import (
    AgentSpecError,
    agent_names,
    build_agent,
    check_spec,
    make_agent,
    parse_spec,
    register_agent,
)
from boardzoo.agents.sb3_agent import SB3Agent
from boardzoo.agents.sb3_puct import SB3PUCTAgent
from boardzoo.agents.search_info import MoveStats, SearchInfo
from boardzoo.agents.settings import Budget, Enhancements, PUCTSettings, TreeSettings, UCTSettings
from boardzoo.agents.solver_agent import SolverAgent
from boardzoo.search.tree import BYTES_PER_NODE

__all__ = [
    "BYTES_PER_NODE",
    "AECGameState",
    "Agent",
    "AgentDescription",
    "AgentSpecError",
    "AlphaBetaAgent",
    "AlphaBetaInfo",
    "AlphaZeroAgent",
    "Budget",
    "EngineAgent",
    "EngineInfo",
    "Enhancements",
    "GreedyAgent",
    "MCTSAgent",
    "MoveStats",
    "OptionDescription",
    "PUCTAgent",
    "PUCTSettings",
    "RandomAgent",
    "SB3Agent",
    "SB3PUCTAgent",
    "SearchInfo",
    "SolverAgent",
    "TreeSettings",
    "UCTSettings",
    "agent_names",
    "build_agent",
    "check_spec",
    "describe_agent",
    "env_state",
    "format_agents",
    "make_agent",
    "parse_spec",
    "register_agent",
]

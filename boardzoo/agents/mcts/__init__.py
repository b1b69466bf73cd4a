"""Monte Carlo tree search: the agent, its tree and its compiled kernels."""

from boardzoo.agents.mcts.adapter import AECGameState
from boardzoo.agents.mcts.agent import MCTSAgent, MoveStats, SearchInfo
from boardzoo.search.tree import BYTES_PER_NODE

__all__ = ["BYTES_PER_NODE", "AECGameState", "MCTSAgent", "MoveStats", "SearchInfo"]

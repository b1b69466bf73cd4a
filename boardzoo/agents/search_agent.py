"""What the tree-search agents share: ``search(state)``, ``last_search`` and the visit policy."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

import numpy as np

from boardzoo.agents.base import Agent, env_state
from boardzoo.agents.search_info import SearchInfo
from boardzoo.agents.settings import Budget
from boardzoo.games.state import GameState

__all__ = ["SearchAgent"]


class SearchAgent(Agent):
    """An agent that searches a tree from the position and reports what it found.

    Subclasses implement :meth:`search`; it sets :attr:`last_search`.
    """

    last_search: SearchInfo | None = None
    budget: Budget

    @property
    def time_limit(self) -> float | None:
        """Seconds per move (``budget.time_limit``), or ``None``."""
        return self.budget.time_limit

    @abstractmethod
    def search(self, state: GameState) -> SearchInfo:
        """Search ``state`` (a position in play) and return what was found (also kept in
        :attr:`last_search`).

        Raises:
            ValueError: the game is over.
        """

    def act(self, env: Any) -> int:
        """Search from ``env``'s position (cloned, never changed) and return the chosen action."""
        return self.search(env_state(env)).action

    def act_with_policy(self, env: Any) -> tuple[np.ndarray, int]:
        """The root visit distribution over all actions (sums to 1) and the chosen action."""
        state = env_state(env)
        info = self.search(state)
        return info.visit_distribution(state.num_actions), info.action

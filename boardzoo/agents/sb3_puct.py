"""AlphaZero-style search with a trained SB3 policy: ``SB3PUCTAgent(path)``, spec ``puct:path=...``.

An :class:`~boardzoo.agents.MCTSAgent` whose PUCT prior is the policy's action probabilities
(restricted to the legal moves) and, with ``value_head=True``, whose leaves are scored by the
policy's value head instead of a rollout. The search is the search core's batched AlphaZero
search (:mod:`boardzoo.search.batched`); the policy is evaluated once per batch of leaves
(:class:`~boardzoo.search.evaluators.SB3Evaluator`: one leaf a step with a simulation budget,
several with only a time limit). Everything else (budgets, final-move rule, root noise) is
MCTSAgent's, so ``puct:path=ppo.zip,simulations=200`` and ``mcts:simulations=200`` differ only in
how moves are chosen and scored inside the tree.

Warning: loading the model runs pickled code; only load model files you trust.
"""

from __future__ import annotations

from typing import Literal

from boardzoo.agents.base import Seed
from boardzoo.agents.mcts.agent import MCTSAgent
from boardzoo.agents.sb3_agent import Algorithm, SB3Agent, policy_module
from boardzoo.games.spec import Game
from boardzoo.search.evaluators import Evaluator, SB3Evaluator

__all__ = ["SB3PUCTAgent"]


class SB3PUCTAgent(MCTSAgent):
    """PUCT search (AlphaZero style) guided by a saved stable-baselines3 model's policy.

    Args:
        path: the model's ``.zip`` (MaskablePPO, PPO, A2C or DQN; DQN's prior is a softmax of
            its Q-values and it has no value head).
        simulations: simulations per move, as in :class:`~boardzoo.agents.MCTSAgent`.
        time_limit: seconds per move, as in :class:`~boardzoo.agents.MCTSAgent`.
        c: PUCT's exploration constant (default 1.25).
        c_base: AlphaZero's exploration schedule, as in :class:`~boardzoo.agents.MCTSAgent`.
        final: ``"robust"`` or ``"max"``, as in :class:`~boardzoo.agents.MCTSAgent`.
        reuse_tree: keep the tree between moves, as in :class:`~boardzoo.agents.MCTSAgent`.
        rollout: ``"random"`` or ``"heuristic"``, as in :class:`~boardzoo.agents.MCTSAgent`.
        dirichlet_alpha: AlphaZero's root noise, as in :class:`~boardzoo.agents.MCTSAgent`.
        dirichlet_epsilon: the root noise's weight, as in :class:`~boardzoo.agents.MCTSAgent`.
        max_nodes: nodes each tree may hold, as in :class:`~boardzoo.agents.MCTSAgent`.
        seed: seed of the search's randomness.
        value_head: score leaves with the model's value head instead of a rollout.
        algo: ``"auto"`` or the algorithm that saved the model (see :class:`SB3Agent`).
    """

    name = "puct"

    def __init__(
        self,
        path: str,
        simulations: int | None = None,
        time_limit: float | None = None,
        c: float | None = None,
        c_base: float | None = None,
        value_head: bool = False,
        final: Literal["robust", "max"] = "robust",
        reuse_tree: bool = False,
        rollout: Literal["random", "heuristic"] = "random",
        dirichlet_alpha: float | None = None,
        dirichlet_epsilon: float = 0.25,
        max_nodes: int = 1_000_000,
        algo: Algorithm = "auto",
        seed: Seed = None,
    ) -> None:
        self.policy = SB3Agent(path, algo=algo)
        self.path = self.policy.path
        self.value_head = bool(value_head)
        if self.value_head and ".dqn." in policy_module(self.policy.description):
            raise ValueError(
                f"value_head=true is not allowed with path={path!r}: it needs a model with a "
                "value head (PPO, A2C, MaskablePPO), and this is a DQN model"
            )
        super().__init__(
            simulations=simulations,
            time_limit=time_limit,
            c=c,
            c_base=c_base,
            final=final,
            reuse_tree=reuse_tree,
            rollout=rollout,
            prior_fn=self.policy.prior,
            value_fn=self.policy.value if self.value_head else None,
            dirichlet_alpha=dirichlet_alpha,
            dirichlet_epsilon=dirichlet_epsilon,
            max_nodes=max_nodes,
            seed=seed,
        )

    def _make_evaluator(self, game: Game, seed: int) -> Evaluator:
        """The policy, evaluated once per batch of leaves (value head or playouts)."""
        return SB3Evaluator(self.policy, self.value_head, self.rollout, seed)

    def prepare(self, game: Game) -> None:
        """Load the model and the compiled search before any clock runs.

        Args:
            game: the catalog game (with its options) that will be searched.
        """
        self.policy.prepare(game)
        if self.value_head and not hasattr(self.policy.model.policy, "value_net"):
            raise ValueError(
                f"value_head=true is not allowed with path={self.path!r}: it needs a model with "
                "a value head"
            )
        super().prepare(game)

    def __repr__(self) -> str:
        return (
            f"SB3PUCTAgent({self.path!r}, {self.budget_text()}, c={self.c:.3g}, "
            f"value_head={self.value_head})"
        )

"""AlphaZero-style search with a trained SB3 policy: ``SB3PUCTAgent(path)``, spec
``sb3puct:path=...``.

A :class:`~boardzoo.agents.puct.PUCTAgent` whose PUCT prior is the policy's action probabilities
(restricted to the legal moves) and, with ``value_head=True``, whose leaves are scored by the
policy's value head instead of a rollout. The search is the search core's batched AlphaZero
search (:mod:`boardzoo.search.batched`); the policy is evaluated once per batch of leaves
(:class:`~boardzoo.search.evaluators.SB3Evaluator`: one leaf a step with a simulation
budget,
several with only a time limit). Everything else (budget, search rule, trees) is the option
groups every PUCT agent has (:mod:`boardzoo.agents.settings`), so ``sb3puct:path=ppo.zip`` and
``az`` differ only in what scores the leaves.

Warning: loading the model runs pickled code; only load model files you trust.
"""

from __future__ import annotations

from typing import Literal

from boardzoo.agents.base import Seed
from boardzoo.agents.puct import PUCTAgent
from boardzoo.agents.sb3_agent import Algorithm, SB3Agent, policy_module
from boardzoo.agents.settings import Budget, PUCTSettings, TreeSettings
from boardzoo.errors import InvalidValueError
from boardzoo.games.spec import Game
from boardzoo.search.evaluators import Evaluator, SB3Evaluator

__all__ = ["SB3PUCTAgent"]


class SB3PUCTAgent(PUCTAgent):
    """PUCT search (AlphaZero style) guided by a saved stable-baselines3 model's policy.

    Args:
        path: the model's ``.zip`` (MaskablePPO, PPO, A2C or DQN; DQN's prior is a softmax of
            its Q-values and it has no value head).
        budget: simulations and seconds per move (200 simulations when neither is given).
        puct: the search rule (PUCT or Gumbel), its constants and root noise.
        tree: workers, nodes per tree, tree reuse between moves and the final-move rule.
        value_head: score leaves with the model's value head instead of a rollout.
        rollout: the playouts that score leaves without the value head: ``"random"`` or
            ``"heuristic"``, the game's own rollout policy, for games that have one.
        algo: ``"auto"`` or the algorithm that saved the model (see :class:`SB3Agent`).
        seed: seed of the search's randomness.
    """

    name = "sb3puct"

    def __init__(
        self,
        path: str,
        budget: Budget = Budget(),
        puct: PUCTSettings = PUCTSettings(),
        tree: TreeSettings = TreeSettings(),
        value_head: bool = False,
        rollout: Literal["random", "heuristic"] = "random",
        algo: Algorithm = "auto",
        seed: Seed = None,
    ) -> None:
        self.policy = SB3Agent(path, algo=algo)
        self.path = self.policy.path
        self.value_head = bool(value_head)
        if self.value_head and ".dqn." in policy_module(self.policy.description):
            raise InvalidValueError(
                f"value_head=true is not allowed with path={path!r}: it needs a model with a "
                "value head (PPO, A2C, MaskablePPO), and this is a DQN model"
            )
        super().__init__(
            prior_fn=self.policy.prior,
            value_fn=self.policy.value if self.value_head else None,
            budget=budget,
            puct=puct,
            tree=tree,
            rollout=rollout,
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
            raise InvalidValueError(
                f"value_head=true is not allowed with path={self.path!r}: it needs a model with "
                "a value head"
            )
        super().prepare(game)

    def __repr__(self) -> str:
        return (
            f"SB3PUCTAgent({self.path!r}, {self.budget.text(self.default_simulations)}, "
            f"c_init={self.puct.c_init:.3g}, value_head={self.value_head})"
        )

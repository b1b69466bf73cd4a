"""Play a saved stable-baselines3 model: ``SB3Agent(path)``, spec ``sb3:path=model.zip``.

The model sees what the single-agent envs give a learner: the ``(n, n, 2)`` int8 planes from the
side to move. Illegal actions are masked: MaskablePPO gets the mask directly; for other policies
the action probabilities (or DQN's Q-values) are restricted to the legal actions.

Warning: a saved SB3 model is a zip of pickled Python objects, and loading it runs that code.
Only load model files you trust.

:meth:`SB3Agent.prior` and :meth:`SB3Agent.value` plug a trained policy into MCTS's PUCT:
``PUCTAgent(agent.prior, agent.value)`` (one network call per position);
:meth:`SB3Agent.evaluate_batch` evaluates a whole batch in one call, which is how
``SB3PUCTAgent`` (spec ``puct:``) uses the model
(:class:`~boardzoo.search.evaluators.SB3Evaluator`).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np

from boardzoo.agents.base import Agent, Seed, board_state, env_state, legal_or_raise, make_rng
from boardzoo.checks import check_choice
from boardzoo.errors import InvalidFileError, InvalidValueError, require_module
from boardzoo.games import GameState
from boardzoo.games.spec import Game

# Algorithms tried, in order, when ``algo="auto"``: (module, class).
ALGORITHMS = {
    "maskable_ppo": ("sb3_contrib", "MaskablePPO"),
    "ppo": ("stable_baselines3", "PPO"),
    "a2c": ("stable_baselines3", "A2C"),
    "dqn": ("stable_baselines3", "DQN"),
}


Algorithm = Literal["auto", "maskable_ppo", "ppo", "a2c", "dqn"]


def _model_file(path: str | Path) -> Path:
    """The file SB3 would load for ``path`` (it adds ``.zip`` to a name without it)."""
    path = Path(path)
    if not path.exists() and path.suffix != ".zip" and path.with_suffix(".zip").exists():
        return path.with_suffix(".zip")
    return path


def describe_model_file(path: str | Path) -> dict[str, Any]:
    """Check that ``path`` is a model saved by stable-baselines3, without loading it.

    Reads only the zip's ``data`` entry (JSON): no torch, no pickled code runs.

    Returns:
        The saved model's description (SB3's ``data`` JSON).

    Raises:
        ValueError: the file is missing or is not a model saved by stable-baselines3, in a
            message naming ``path``.
    """
    file = _model_file(path)
    expected = "a .zip saved by stable-baselines3 is expected"
    if not file.exists():
        raise InvalidFileError(f"path={str(path)!r} does not exist ({expected})")
    if file.is_dir():
        raise InvalidFileError(f"path={str(path)!r} is a folder ({expected})")
    try:
        with zipfile.ZipFile(file) as archive:
            data = json.loads(archive.read("data"))
    except OSError as error:
        reason = (error.strerror or type(error).__name__).lower()
        raise InvalidFileError(f"path={str(path)!r} cannot be read: {reason}") from None
    except (zipfile.BadZipFile, KeyError, ValueError, UnicodeDecodeError):
        raise InvalidFileError(f"path={str(path)!r} is not a model file ({expected})") from None
    if not isinstance(data, dict):
        raise InvalidFileError(f"path={str(path)!r} is not a model file ({expected})")
    return data


def policy_module(description: dict[str, Any]) -> str:
    """The module of a saved model's policy class (``""`` if the description does not say)."""
    policy_class = description.get("policy_class")
    module = policy_class.get("__module__", "") if isinstance(policy_class, dict) else ""
    return module if isinstance(module, str) else ""


def load_model(path: str | Path, algo: str = "auto") -> Any:
    """Load a saved SB3 model (runs pickled code: trusted files only)."""
    describe_model_file(path)
    check_choice("algo", algo, ("auto", *ALGORITHMS))
    names = list(ALGORITHMS) if algo == "auto" else [algo]
    errors = []
    for name in names:
        module_name, class_name = ALGORITHMS[name]
        module = require_module(module_name, "SB3Agent", "pip install 'boardzoo[rl]'")
        cls = getattr(module, class_name)
        try:
            return cls.load(str(_model_file(path)), device="cpu")
        except (ValueError, KeyError, TypeError, AssertionError) as error:
            errors.append(f"{class_name}: {error}")
    raise InvalidFileError(
        f"{str(path)!r} is not a model of {', '.join(names)}: " + "; ".join(errors)
    )


class SB3Agent(Agent):
    """Plays a trained stable-baselines3 policy (MaskablePPO, PPO, A2C or DQN), legal moves only.

    The model is loaded by :meth:`prepare` (or at the first move); the constructor only checks
    the file, so building the agent is cheap.

    Args:
        path: the ``.zip`` written by ``model.save`` (pickled code: load trusted files only).
        deterministic: play the most likely legal action; else sample from the masked policy.
        algo: ``"auto"`` (try MaskablePPO, PPO, A2C, DQN in turn) or the algorithm that saved
            the model.
        seed: seed for sampling when ``deterministic`` is False.
    """

    name = "sb3"

    def __init__(
        self,
        path: str,
        deterministic: bool = True,
        algo: Algorithm = "auto",
        seed: Seed = None,
    ) -> None:
        self.path = str(path)
        self.algo = check_choice("algo", algo, ("auto", *ALGORITHMS))
        self.description = describe_model_file(self.path)
        self.deterministic = bool(deterministic)
        self._model: Any = None
        self._rng = make_rng(seed)

    @classmethod
    def from_model(cls, model: Any, deterministic: bool = True, seed: Seed = None) -> SB3Agent:
        """Wrap a model object in memory (no file), e.g. during training."""
        agent = cls.__new__(cls)
        agent.path = "<in memory>"
        agent.algo = "auto"
        agent.description = {}
        agent.deterministic = bool(deterministic)
        agent._model = model
        agent._rng = make_rng(seed)
        return agent

    @property
    def model(self) -> Any:
        """The SB3 model (loaded from :attr:`path` on first use)."""
        if self._model is None:
            self._model = load_model(self.path, self.algo)
        return self._model

    def prepare(self, game: Game) -> None:
        """Load the model and run it once on ``game``'s start position, before any clock runs.

        Args:
            game: the catalog game the model will play.
        """
        self.prior(game.initial_state())

    def act(self, env: Any) -> int:
        state = env_state(env)
        legal = legal_or_raise(state)
        probabilities = self.prior(state)
        if self.deterministic:
            return int(max(legal, key=lambda a: probabilities[a]))
        weights = probabilities[legal]
        return int(self._rng.choice(legal, p=weights / weights.sum()))

    def _observation(self, state: GameState) -> Any:
        """The planes of the side to move as a batch of one (preprocessed by the networks)."""
        import torch

        board = board_state(state, "SB3Agent")
        return torch.as_tensor(board.planes(board.current_player)[None])

    def _scores(self, observation: Any) -> Any:
        """The policy's action scores of a batch: actor logits, or DQN's Q-values (a tensor)."""
        policy = self.model.policy
        if hasattr(self.model, "q_net"):  # DQN: a softmax of the Q-values
            return self.model.q_net(observation)
        features = policy.extract_features(observation, policy.pi_features_extractor)
        return policy.action_net(policy.mlp_extractor.forward_actor(features))

    def _values(self, observation: Any) -> Any:
        """The value head's estimates of a batch, ``[B]`` (a tensor, not clipped)."""
        policy = self.model.policy
        if not hasattr(policy, "value_net"):
            raise InvalidValueError(f"{type(self.model).__name__} has no value head")
        features = policy.extract_features(observation, policy.vf_features_extractor)
        return policy.value_net(policy.mlp_extractor.forward_critic(features))[:, 0]

    def prior(self, state: GameState) -> np.ndarray:
        """The policy's probabilities over all actions, restricted to the legal ones.

        Calls the networks directly (features, actor head) rather than through
        ``policy.get_distribution``: the same numbers, about 2.7 times faster
        (``benchmarks/bench_puct.py``), which matters when PUCT asks for a prior at every
        expansion.
        """
        import torch

        mask = state.legal_action_mask().astype(bool)
        with torch.no_grad():
            scores = self._scores(self._observation(state))[0]
        scores = scores.cpu().numpy().astype(np.float64)
        scores = np.where(mask, np.exp(scores - scores[mask].max()), 0.0)
        return cast("np.ndarray", scores / scores.sum())

    def value(self, state: GameState) -> float:
        """The value head's estimate for the player to move, clipped to [-1, 1]."""
        import torch

        with torch.no_grad():
            value = float(self._values(self._observation(state))[0])
        return max(-1.0, min(1.0, value))

    def evaluate_batch(
        self, observations: np.ndarray, value_head: bool = False
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The policy's scores (and values) of a batch of positions, in one forward call.

        The batch is what the AlphaZero search hands its evaluator: the planes of the player
        to move and of the opponent, channels first; the model sees them channels last, as
        :meth:`prior` and the single-agent envs give them.

        Args:
            observations: ``[B, 2, rows, cols]`` (float or int), channel 0 the pieces of the
                player to move.
            value_head: also return the value head's estimates.

        Returns:
            ``(scores, values)``: float32 ``[B, num_actions]`` whose softmax over the legal
            actions is :meth:`prior` (actor logits, or DQN's Q-values), and float32 ``[B]``
            in ``[-1, 1]`` for the player to move, or ``None`` without ``value_head``.

        Raises:
            ValueError: ``observations`` of another shape than ``[B, 2, rows, cols]``, or
                ``value_head`` with a model that has none.
        """
        import torch

        batch = np.asarray(observations)
        if batch.ndim != 4 or batch.shape[1] != 2:
            raise InvalidValueError(
                f"observations must be [B, 2, rows, cols], got shape {batch.shape}"
            )
        planes = torch.as_tensor(np.ascontiguousarray(np.moveaxis(batch, 1, 3)))
        with torch.no_grad():
            scores = self._scores(planes).cpu().numpy().astype(np.float32)
            if not value_head:
                return scores, None
            values = self._values(planes).cpu().numpy().astype(np.float32)
        return scores, np.clip(values, -1.0, 1.0)

    def __repr__(self) -> str:
        return f"SB3Agent(path={self.path!r}, deterministic={self.deterministic})"

"""The AlphaZero network: a residual tower with a policy head and a value head.

The network reads a position as the search hands it over (see :mod:`boardzoo.search.evaluators`):
float32 ``[B, 2, rows, cols]``, channel 0 the pieces of the player to move and channel 1 the
opponent's. It returns the policy's logits ``[B, num_actions]`` (every action of the game,
Reversi's pass included) and the value ``[B]`` in ``[-1, 1]`` for the player to move.

Architecture (AlphaZero's, scaled down): a 3x3 convolution from the two planes and a plane of
ones (so the edge of the board is visible) to ``channels`` features, then ``blocks`` residual
blocks (conv3x3-BN-ReLU-conv3x3-BN, plus the input, ReLU). The policy head is a 1x1 convolution
to 2 planes (BN, ReLU) and a fully connected layer to the actions, so actions without a square
(the pass) get a logit too; the value head a 1x1 convolution to 1 plane (BN, ReLU), a hidden
layer of ``value_hidden`` units (ReLU) and ``tanh``.

Running the network for a search (numpy in, numpy out) is :mod:`boardzoo.learned.torch_evaluator`;
choosing the device it runs on, :mod:`boardzoo.learned.devices`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from boardzoo.checks import check_int
from boardzoo.errors import InvalidValueError
from boardzoo.games.catalog import check_game, get_game
from boardzoo.games.spec import Game

__all__ = ["AZNet", "NetworkSettings"]

_MAX_WIDTH = 1024
_MAX_BLOCKS = 64


@dataclass(frozen=True)
class NetworkSettings:
    """The shape of an :class:`AZNet`, and the game it plays: all a model file needs to rebuild it.

    Args:
        game: the catalog name of the game (``"reversi"``).
        options: the game's options (``{"board_size": 6}``); missing ones take their defaults.
        channels: feature planes of the residual tower.
        blocks: residual blocks in the tower (0 is allowed: the stem convolution alone).
        value_hidden: units of the value head's hidden layer.

    Raises:
        ValueError: an unknown game or option, a disallowed option value, or a size out of range.
    """

    game: str
    options: Mapping[str, int] = field(default_factory=dict)
    channels: int = 64
    blocks: int = 4
    value_hidden: int = 64

    def __post_init__(self) -> None:
        check_game(self.game)
        if not isinstance(self.options, Mapping):
            raise InvalidValueError(f"options must be a mapping, got {self.options!r}")
        options = get_game(self.game).check_options(self.options)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "channels", check_int("channels", self.channels, 1, _MAX_WIDTH))
        object.__setattr__(self, "blocks", check_int("blocks", self.blocks, 0, _MAX_BLOCKS))
        hidden = check_int("value_hidden", self.value_hidden, 1, _MAX_WIDTH)
        object.__setattr__(self, "value_hidden", hidden)

    def __hash__(self) -> int:
        return hash((self.game, tuple(sorted(self.options.items())), self.channels, self.blocks))

    @classmethod
    def for_game(cls, game: Game, **sizes: int) -> NetworkSettings:
        """The config of a network for ``game`` (a catalog ``Game``); ``sizes`` as the fields."""
        return cls(game.name, dict(game.options), **sizes)

    @property
    def board_game(self) -> Game:
        """The catalog :class:`~boardzoo.games.spec.Game` that the network plays."""
        return get_game(self.game).make(**self.options)

    def to_dict(self) -> dict[str, Any]:
        """The config as plain JSON values."""
        return {
            "game": self.game,
            "options": dict(self.options),
            "channels": self.channels,
            "blocks": self.blocks,
            "value_hidden": self.value_hidden,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NetworkSettings:
        """The config written by :meth:`to_dict`; a ``ValueError`` for missing or unknown keys."""
        if not isinstance(data, Mapping):
            raise InvalidValueError(
                f"a network config must be a JSON object, got {type(data).__name__}"
            )
        known = {"game", "options", "channels", "blocks", "value_hidden"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidValueError(
                f"unknown network config keys {unknown}; known: {sorted(known)}"
            )
        if "game" not in data:
            raise InvalidValueError("a network config needs a 'game'")
        return cls(**dict(data))

    def to_json(self) -> str:
        """The config as a JSON string (keys sorted)."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> NetworkSettings:
        """The config from :meth:`to_json`'s text; a ``ValueError`` for bad JSON or values."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidValueError(f"network config is not valid JSON: {error}") from None
        return cls.from_dict(data)


class _ResidualBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(x + y)


class AZNet(nn.Module):
    """The policy-value network of a :class:`NetworkSettings`.

    ``net(obs)`` takes float32 ``[B, 2, rows, cols]`` and returns ``(logits [B, num_actions],
    values [B])``: raw logits (mask illegal actions before a softmax) and values in ``[-1, 1]``
    for the player to move. Weights are initialised by torch's generator: seed it
    (``torch.manual_seed``) before building for a repeatable network.

    Args:
        config: the game and the sizes.

    Attributes:
        config: the config it was built from.
        game: the catalog game.
    """

    def __init__(self, config: NetworkSettings) -> None:
        super().__init__()
        if not isinstance(config, NetworkSettings):
            raise InvalidValueError(f"AZNet needs a NetworkSettings, got {type(config).__name__}")
        self.config = config
        self.game = config.board_game
        rows, cols, actions = self.game.rows, self.game.cols, self.game.num_actions
        width = config.channels
        self.stem = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU()
        )
        self.tower = nn.Sequential(*[_ResidualBlock(width) for _ in range(config.blocks)])
        self.policy_head = nn.Sequential(
            nn.Conv2d(width, 2, 1, bias=False),
            nn.BatchNorm2d(2),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(2 * rows * cols, actions),
        )
        self.value_head = nn.Sequential(
            nn.Conv2d(width, 1, 1, bias=False),
            nn.BatchNorm2d(1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(rows * cols, config.value_hidden),
            nn.ReLU(),
            nn.Linear(config.value_hidden, 1),
            nn.Tanh(),
        )

    @property
    def obs_shape(self) -> tuple[int, int, int]:
        """The shape of one observation: ``(2, rows, cols)``."""
        return 2, self.game.rows, self.game.cols

    @property
    def num_actions(self) -> int:
        """The number of policy logits."""
        return self.game.num_actions

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits ``[B, num_actions]`` and values ``[B]`` of float32 ``obs [B, 2, rows, cols]``."""
        if obs.dim() != 4 or tuple(obs.shape[1:]) != self.obs_shape:
            raise InvalidValueError(
                f"obs must be [B, {', '.join(map(str, self.obs_shape))}], got {tuple(obs.shape)}"
            )
        ones = torch.ones_like(obs[:, :1])
        x = self.tower(self.stem(torch.cat((obs, ones), dim=1)))
        return self.policy_head(x), self.value_head(x).squeeze(1)

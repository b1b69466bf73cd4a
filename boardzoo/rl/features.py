"""A convolutional feature extractor for small boards (SB3's default CNN expects 36x36+ images).

Observations are ``(n, n, 2)`` int8 planes; 3x3 convolutions with padding keep the board size,
so corner and edge patterns are seen at every depth.
"""

from __future__ import annotations

from typing import cast

import gymnasium
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class BoardCNN(BaseFeaturesExtractor):
    """Three 3x3 same-size convolutions, then a linear layer to ``features_dim`` features.

    Use with ``policy_kwargs={"features_extractor_class": BoardCNN}``.
    """

    def __init__(
        self, observation_space: gymnasium.spaces.Box, features_dim: int = 128, channels: int = 64
    ) -> None:
        super().__init__(observation_space, features_dim)
        height, width, planes = observation_space.shape
        self.convolutions = nn.Sequential(
            nn.Conv2d(planes, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        self.linear = nn.Sequential(nn.Linear(channels * height * width, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        # (batch, n, n, planes) -> (batch, planes, n, n)
        return cast(
            torch.Tensor, self.linear(self.convolutions(observations.float().permute(0, 3, 1, 2)))
        )

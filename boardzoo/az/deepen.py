"""A deeper network that starts as the one it grows from.

:func:`deepened` adds residual blocks to an :class:`~boardzoo.learned.network.AZNet`: the new
blocks' last batch normalisation starts at zero scale and shift, so each adds nothing to its
input and the deepened network plays as the original one until training moves those weights.
"""

from __future__ import annotations

from dataclasses import replace
from typing import cast

import torch
from torch import nn

from boardzoo.errors import InvalidValueError
from boardzoo.learned.network import AZNet

__all__ = ["deepened"]


def deepened(net: AZNet, blocks: int) -> AZNet:
    """``net`` with residual blocks added up to ``blocks``, each starting as the identity.

    Args:
        net: the network to grow (left as it is: the deepened one is a new network).
        blocks: the residual blocks of the deepened network.

    Returns:
        A new network with ``net``'s weights and ``blocks`` residual blocks.

    Raises:
        InvalidValueError: ``blocks`` below the network's own.
    """
    if blocks < net.config.blocks:
        raise InvalidValueError(f"blocks={blocks} is fewer than the network's {net.config.blocks}")
    deep = AZNet(replace(net.config, blocks=blocks))
    deep.load_state_dict(net.state_dict(), strict=False)
    with torch.no_grad():
        for block in list(deep.tower)[net.config.blocks :]:
            last = cast(nn.BatchNorm2d, block.get_submodule("bn2"))
            last.weight.zero_()
            last.bias.zero_()
    return deep

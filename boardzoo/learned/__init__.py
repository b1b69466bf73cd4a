"""A learned evaluation: n-tuple networks trained by TD(λ) self-play (see :mod:`.ntuple`).

    from boardzoo.learned import load_net, ntuple_value
    net = load_net(make_game("reversi", board_size=8))
    value = ntuple_value(s0, s1, player, game.params, net)  # in (-1, 1), for the player to move

The shipped nets (``models/``) and the commands that trained them are in ``docs/learned-eval.md``.
"""

from boardzoo.learned.ntuple import (
    NTupleNet,
    check_net,
    load_net,
    load_net_file,
    load_net_metadata,
    ntuple_value,
    ntuple_value_arrays,
    save_net,
)

__all__ = [
    "NTupleNet",
    "check_net",
    "load_net",
    "load_net_file",
    "load_net_metadata",
    "ntuple_value",
    "ntuple_value_arrays",
    "save_net",
]

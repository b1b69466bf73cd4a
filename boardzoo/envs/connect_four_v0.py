"""
# Connect Four

| Import             | `from boardzoo.envs import connect_four_v0`                          |
|--------------------|----------------------------------------------------------------------|
| Creation           | `connect_four_v0.env()` or `make("aec", "boardzoo/connect-four-v0")` |
| Actions            | Discrete                                                             |
| Parallel API       | No                                                                   |
| Agents             | `agents= ['player_0', 'player_1']`                                   |
| Action Shape       | (1)                                                                  |
| Action Values      | [0, 6]                                                               |
| Observation Shape  | (6, 7, 2)                                                            |
| Observation Values | [0, 1]                                                               |

`make` is `pettingzoo.make`; it finds `"boardzoo/connect-four-v0"` once `import boardzoo` has
run (PettingZoo reads no entry points: the package registers its envs when imported).

Connect Four: `player_0` (red) and `player_1` (yellow) take turns dropping a disc into one of the
7 columns of an upright board of 6 rows; the disc falls to the lowest empty cell. Four discs in a
row, horizontally, vertically or diagonally, win; a full board without one is a draw. Agents,
observations, masks, rewards and terminations are those of PettingZoo's `connect_four_v3`, move
for move.

### Observation Space

A dictionary with an `'observation'` element, the board, and an `'action_mask'` element, the
legal moves (see Legal Actions Mask).

The board is an int8 array of shape `(6, 7, 2)` indexed `[row, col, plane]`: row 0 is the top
row, col 0 the leftmost column (`a`). Plane 0 holds the observing agent's discs, plane 1 its
opponent's, so both agents see the game from their own side, which allows self-play.

#### Legal Actions Mask

`action_mask` is an int8 vector of length 7, 1 for each column that is not full. It is all zeros
for the agent not to move, and for both agents once the game is over (PettingZoo's
`connect_four_v3` still marks the open columns for the agent selected after the last move).
Taking an illegal action ends the game with a reward of -1 for the agent that took it and 0 for
the other (PettingZoo's `TerminateIllegalWrapper`); the raw env raises `IllegalMoveError`
instead.

### Action Space

Action `c` (0 to 6) drops a disc into column `c`, named `a` to `g` from left to right.

### Rewards

| Winner | Loser | Draw |
| :----: | :---: | :--: |
| +1     | -1    | 0    |

Rewards are given at the end of the game only.

### Episode End

The episode terminates on four in a row, on a full board (a draw), or after an illegal move in
the wrapped env. It is never truncated.

### Arguments

``` python
connect_four_v0.env(render_mode=None, screen_size=512)
```

`render_mode`: `None`, `"human"` (a pygame window), `"rgb_array"` (an image) or `"ansi"` (text).

`screen_size`: width of the rendered board in pixels.

### Snapshots

`env.unwrapped.get_state()` returns an immutable `ConnectFourState` (the discs of both players);
`env.unwrapped.set_state(state)` continues from it. `copy.deepcopy(env)` and `pickle` keep the
game in progress.

### Version History

* v0: Initial release.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pettingzoo import AECEnv

from boardzoo.envs.board_env import BoardGameEnv
from boardzoo.envs.env_render import RENDER_MODES
from boardzoo.envs.wrappers import wrap_classic
from boardzoo.games.catalog import make_game

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The Connect Four env with PettingZoo's classic wrappers (see the module docstring)."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(BoardGameEnv):  # noqa: N801 (PettingZoo's naming)
    """Connect Four without wrappers: an illegal action raises ``IllegalMoveError``."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "connect_four_v0",
        "render_modes": list(RENDER_MODES),
        "render_fps": 2,
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, screen_size: int = 512) -> None:
        super().__init__(
            make_game("connect_four"), render_mode=render_mode, screen_size=screen_size
        )

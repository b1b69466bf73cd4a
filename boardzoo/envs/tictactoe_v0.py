"""
# TicTacToe

| Import             | `from boardzoo.envs import tictactoe_v0`                      |
|--------------------|---------------------------------------------------------------|
| Creation           | `tictactoe_v0.env()` or `make("aec", "boardzoo/tictactoe-v0")` |
| Actions            | Discrete                                                      |
| Parallel API       | No                                                            |
| Agents             | `agents= ['player_1', 'player_2']`                            |
| Action Shape       | (1)                                                           |
| Action Values      | [0, 8]                                                        |
| Observation Shape  | (3, 3, 2)                                                     |
| Observation Values | [0, 1]                                                        |

`make` is `pettingzoo.make`; it finds `"boardzoo/tictactoe-v0"` once `import boardzoo` has
run (PettingZoo reads no entry points: the package registers its envs when imported).

TicTacToe: `player_1` (X) and `player_2` (O) take turns marking a square of a 3x3 grid; three in
a row, column or diagonal wins, a full board without one is a draw. The agents are those of
PettingZoo's `tictactoe_v3`.

### Observation Space

A dictionary with an `'observation'` element, the board, and an `'action_mask'` element, the
legal moves. The board is an int8 array of shape `(3, 3, 2)` indexed `[row, col, plane]`, row 0 the
top row: plane 0 holds the observing agent's marks, plane 1 its opponent's.

#### Legal Actions Mask

`action_mask` is an int8 vector of length 9, 1 where the square is free. It is all zeros for the
agent not to move. Taking an illegal action ends the game with a reward of -1 for the agent that
took it and 0 for the other (the raw env raises `IllegalMoveError`).

### Action Space

Action `row * 3 + col` marks that square (row 0 the top row). Squares are named by column
letter and row number, as the command line and records write them (action 4 is `b2`):

```
0 a1 | 1 b1 | 2 c1
------------------
3 a2 | 4 b2 | 5 c2
------------------
6 a3 | 7 b3 | 8 c3
```

Note: PettingZoo's `tictactoe_v3` numbers the squares column by column; boardzoo numbers every
board row by row.

### Rewards

| Winner | Loser | Draw |
| :----: | :---: | :--: |
| +1     | -1    | 0    |

### Episode End

The episode terminates on three in a row, on a full board, or after an illegal move in the wrapped
env. It is never truncated.

### Arguments

``` python
tictactoe_v0.env(render_mode=None, screen_size=512)
```

### Snapshots

`env.unwrapped.get_state()` returns an immutable `TicTacToeState`; `set_state(state)` continues
from it. `copy.deepcopy(env)` and `pickle` keep the game in progress.

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
    """The TicTacToe env with PettingZoo's classic wrappers (see the module docstring)."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(BoardGameEnv):  # noqa: N801 (PettingZoo's naming)
    """TicTacToe without wrappers: an illegal action raises ``IllegalMoveError``."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "tictactoe_v0",
        "render_modes": list(RENDER_MODES),
        "render_fps": 1,
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, screen_size: int = 512) -> None:
        super().__init__(make_game("tictactoe"), render_mode=render_mode, screen_size=screen_size)

"""
# Reversi

| Import             | `from boardzoo.envs import reversi_v0`                  |
|--------------------|---------------------------------------------------------|
| Creation           | `reversi_v0.env()` or `make("aec", "boardzoo/reversi-v0")` |
| Actions            | Discrete                                                |
| Parallel API       | No                                                      |
| Agents             | `agents= ['black_0', 'white_0']`                        |
| Action Shape       | (1)                                                     |
| Action Values      | [0, n * n] (n = board_size; n * n is the pass)          |
| Observation Shape  | (n, n, 2)                                               |
| Observation Values | [0, 1]                                                  |

`make` is `pettingzoo.make`; it finds `"boardzoo/reversi-v0"` once `import boardzoo` has
run (PettingZoo reads no entry points: the package registers its envs when imported).

Reversi (Othello) on a 4x4, 6x6 or 8x8 board. Black moves first from the standard start (on 8x8,
white on d4 and e5, black on d5 and e4). A move places a disc that brackets at least one straight
line of opponent discs and flips every bracketed disc. A player with no such move must pass; the
game ends when neither player can place. More discs wins.

### Observation Space

A dictionary with an `'observation'` element, the board, and an `'action_mask'` element, the
legal moves (see Legal Actions Mask).

The board is an int8 array of shape `(n, n, 2)` indexed `[row, col, plane]`: row 0 is the top row
(rank 1), col 0 is file a. Plane 0 holds the observing agent's discs, plane 1 its opponent's, so
both agents see the game from their own side, which allows self-play.

#### Legal Actions Mask

`action_mask` is an int8 vector of length `n * n + 1`, 1 where the action is legal. It is all
zeros for every agent but the one to move, and the agent to move never gets an all-zero mask: when
it has no placement, the pass action (`n * n`) is its only legal action. Taking an illegal action
ends the game with a reward of -1 for the agent that took it and 0 for the other (PettingZoo's
`TerminateIllegalWrapper`); the raw env raises `IllegalMoveError` instead.

### Action Space

Action `row * n + col` places a disc on that square (so on 8x8, 19 is d3: row 2, col 3);
action `n * n` passes.

### Rewards

| Winner | Loser | Draw |
| :----: | :---: | :--: |
| +1     | -1    | 0    |

Rewards are given at the end of the game only.

### Episode End

The episode terminates when neither player can place a disc (the board is full or both are
blocked), or after an illegal move in the wrapped env. It is never truncated.

### Arguments

``` python
reversi_v0.env(board_size=8, render_mode=None, screen_size=512)
```

`board_size`: 4, 6 or 8.

`render_mode`: `None`, `"human"` (a pygame window), `"rgb_array"` (an image) or `"ansi"` (text).

`screen_size`: width of the rendered board in pixels.

### Snapshots

`env.unwrapped.get_state()` returns an immutable `ReversiState` (discs, player to move);
`env.unwrapped.set_state(state)` continues from it. `copy.deepcopy(env)` and `pickle` keep the game
in progress (the window, if any, is reopened on the next render).

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
    """The Reversi env with PettingZoo's classic wrappers (see the module docstring)."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(BoardGameEnv):  # noqa: N801 (PettingZoo's naming)
    """Reversi without wrappers: an illegal action raises ``IllegalMoveError``."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "reversi_v0",
        "render_modes": list(RENDER_MODES),
        "render_fps": 2,
        "is_parallelizable": False,
    }

    def __init__(
        self, board_size: int = 8, render_mode: str | None = None, screen_size: int = 512
    ) -> None:
        game = make_game("reversi", board_size=board_size)  # checks the size
        self.board_size: int = game.options["board_size"]
        super().__init__(game, render_mode=render_mode, screen_size=screen_size)

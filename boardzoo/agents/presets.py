"""Named combinations of MCTS enhancements, per game: ``mcts:preset=strong``.

Each preset maps a catalog game's name to :class:`~boardzoo.agents.mcts.MCTSAgent`
options (and ``c``); the agent takes them for the options a spec leaves at their defaults. The
``strong`` combinations are the best found by ``experiments/enhancements.py`` at equal time;
its results and the figures behind each choice are in the README's enhancements table.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PRESETS", "preset_options"]

PRESETS: dict[str, dict[str, dict[str, Any]]] = {
    "strong": {
        # No playouts: leaves are scored by the shipped n-tuple net, and implicit minimax
        # backups weigh half (at 0.2 s a move: 9-0-1 against alpha-beta depth 6).
        "reversi": {"cutoff": 0, "minimax_weight": 0.5, "eval": "learned"},
        # Playouts to the end, blended with minimax backups of the hand-made evaluation. Not
        # separated from plain UCT (55.0% at 0.1 s a move over 30 games, 50.0% at 1 s over 40):
        # no option or combination was, on Connect Four.
        "connect_four": {"minimax_weight": 0.3},
        "tictactoe": {},
    },
}


def preset_options(preset: str, game: str) -> dict[str, Any]:
    """The options ``preset`` sets for ``game`` (none for a game the preset does not name)."""
    if preset not in PRESETS:
        raise ValueError(f"preset={preset!r} is not allowed: it must be one of {list(PRESETS)}")
    return dict(PRESETS[preset].get(game, {}))

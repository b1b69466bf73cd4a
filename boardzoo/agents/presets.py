"""Named combinations of MCTS enhancements: ``mcts:preset=strong``.

Each catalog game names its presets on its spec (:attr:`~boardzoo.games.spec.GameSpec.presets`:
the best combinations found for it by ``experiments/enhancements.py`` at equal time, with the
figures behind each choice beside them); :class:`~boardzoo.agents.mcts.MCTSAgent` takes a
preset's options for the options a spec leaves at their defaults.
"""

from __future__ import annotations

from typing import Any

from boardzoo.errors import InvalidValueError
from boardzoo.games.catalog import all_games, get_game

__all__ = ["PRESETS", "preset_options"]

# Every preset some catalog game names.
PRESETS: tuple[str, ...] = tuple(sorted({name for spec in all_games() for name in spec.presets}))


def preset_options(preset: str, game: str) -> dict[str, Any]:
    """The options ``preset`` sets for the catalog game ``game`` (none for a game that does not
    name it)."""
    if preset not in PRESETS:
        raise InvalidValueError(
            f"preset={preset!r} is not allowed: it must be one of {list(PRESETS)}"
        )
    return dict(get_game(game).presets.get(preset, {}))

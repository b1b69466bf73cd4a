"""Learners measured against perfect play: labelled positions and the share of right moves.

A labelled set (:mod:`~boardzoo.accuracy.labelled`) holds positions of a game with the exact
score of every legal move, made from games of varied strength (:mod:`~boardzoo.accuracy.making`);
:func:`~boardzoo.accuracy.measure.measure_accuracy` gives the share of positions where an agent's
move keeps the game's result and where it has the best score, with 95% intervals, and the score
it gives away a move (:func:`~boardzoo.accuracy.measure.score_moves` scores any moves);
:func:`~boardzoo.accuracy.measure.measure_policy` the same for a network's policy alone, in
batches. :func:`~boardzoo.accuracy.making.label_positions` labels positions of one's own,
PettingZoo's classic envs' and OpenSpiel's states among them.
``python benchmarks/accuracy.py GAME SPEC [SPEC ...]`` prints them for any agents.
"""

from boardzoo.accuracy.labelled import (
    LabelledPosition,
    LabelledSet,
    append_positions,
    read_labelled,
    result_of,
    shipped_set_path,
    write_header,
)
from boardzoo.accuracy.making import PAIRINGS, LabelledSetSettings, label_positions, make_labelled
from boardzoo.accuracy.measure import (
    Accuracy,
    Share,
    measure_accuracy,
    measure_policy,
    score_moves,
)

__all__ = [
    "PAIRINGS",
    "Accuracy",
    "LabelledPosition",
    "LabelledSet",
    "LabelledSetSettings",
    "Share",
    "append_positions",
    "label_positions",
    "make_labelled",
    "measure_accuracy",
    "measure_policy",
    "read_labelled",
    "result_of",
    "score_moves",
    "shipped_set_path",
    "write_header",
]

"""Fitting the learned evaluation on labelled positions (the Logistello and Edax recipe).

:mod:`boardzoo.fit.data` plays the engine against itself and labels the positions with the
exact solver (and, before its reach, with the game's result after a perfect endgame), in
resumable chunks; :mod:`boardzoo.fit.children` adds every move's result from the solved
positions, solved (the siblings a search compares); :mod:`boardzoo.fit.weights` fits the
n-tuple weights per stage by least squares and writes a net file in the format of
:mod:`boardzoo.learned.ntuple`; :mod:`boardzoo.fit.relabel` relabels the positions before the
solver's reach by a deeper search with a fitted net (fit, relabel deeper, refit);
:mod:`boardzoo.fit.measure` measures nets. Every game with a learned evaluation (its n-tuples
declared on its catalog entry) takes the same steps. The command is
``python scripts/train_eval.py generate|children|fit|relabel|measure``
(and ``td``, the TD(lambda) trainer of :mod:`boardzoo.learned.td`).
"""

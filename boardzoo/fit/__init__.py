"""Fitting the learned evaluation on labelled positions (the Logistello and Edax recipe).

:mod:`boardzoo.fit.data` plays the engine against itself and labels the positions with the
exact solver (and, before its reach, with the game's result after a perfect endgame), in
resumable chunks; :mod:`boardzoo.fit.children` adds every move's result from the solved
positions, solved (the siblings a search compares); :mod:`boardzoo.fit.weights` fits the
n-tuple weights per stage by least squares and writes a net file in the format of
:mod:`boardzoo.learned.ntuple`; :mod:`boardzoo.fit.measure` measures nets. The command is
``python scripts/fit_ntuple.py generate|children|fit|measure``.
"""

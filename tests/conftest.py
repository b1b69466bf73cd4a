"""Test-wide settings: headless pygame, no audio."""

import os
import tempfile

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# One torch/OpenMP thread per test process: the suite runs one process a core (``-n 2``), and
# two threads each would only contend (the processes the tests start inherit it).
os.environ.setdefault("OMP_NUM_THREADS", "1")
# stable-baselines3 makes an (empty) folder SB3-<date> under /tmp for every learn() without a
# logger of the caller's; the tests' ones go to one folder instead.
os.environ.setdefault("SB3_LOGDIR", os.path.join(tempfile.gettempdir(), "boardzoo-tests-sb3"))


@pytest.fixture
def one_torch_thread():
    """torch on one thread for the test (the same results on any machine); restored after."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


TEST_GAME = "three_in_a_row"  # a game defined in tests/line_game.py, outside the package


@pytest.fixture
def register_test_game(monkeypatch):
    """Register ``three_in_a_row`` (``tests/line_game.py``) in the catalog for one test; the
    catalog and the environment variable that names registered games are restored after."""
    from boardzoo.games import catalog

    monkeypatch.setattr(catalog, "CATALOG", dict(catalog.CATALOG))
    monkeypatch.setenv(catalog.GAMES_VARIABLE, "")
    return catalog.register_game("line_game")

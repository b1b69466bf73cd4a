"""Test-wide settings: headless pygame, no audio; tests marked with an optional dependency
(``torch``, ``rl``, ``ray``, ``docs``: see ``optional_deps.py``) skipped, with the way to
install it, when it is missing."""

import os
import tempfile

import pytest
from optional_deps import NEEDS, missing

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# One torch/OpenMP thread per test process: the suite runs one process a core (``-n 2``), and
# two threads each would only contend (the processes the tests start inherit it).
os.environ.setdefault("OMP_NUM_THREADS", "1")
# stable-baselines3 makes an (empty) folder SB3-<date> under /tmp for every learn() without a
# logger of the caller's; the tests' ones go to one folder instead.
os.environ.setdefault("SB3_LOGDIR", os.path.join(tempfile.gettempdir(), "boardzoo-tests-sb3"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip each test marked with an optional dependency that is not installed, saying what to
    install (``pip install -e ".[test]"`` runs the rest)."""
    for item in items:
        for marker in NEEDS:
            reason = missing(marker) if item.get_closest_marker(marker) else None
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=reason))
                break


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

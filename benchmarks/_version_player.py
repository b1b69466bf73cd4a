"""One agent of another boardzoo checkout, answering moves over stdin/stdout (a line protocol).

    cd OTHER_CHECKOUT && PYTHONPATH=OTHER_CHECKOUT python PATH/TO/_version_player.py \
        --spec "engine:time_limit=1" --game reversi --seed 0

``bench_engine_versions.py`` starts this program with the other checkout's folder as working
directory and ``PYTHONPATH``, so that the agent is built by *that* checkout's registry and plays
with *its* search: only what every checkout has is used (``boardzoo.agents.registry.make_agent``,
``boardzoo.games.catalog.make_game``, ``Agent.prepare``, ``reset``, ``act`` and the game states'
``initial_state`` / ``apply``). The file itself lives in the checkout that measures, beside its
caller.

The protocol, one line each way, UTF-8:

- on start the agent is built (``make_agent(spec, seed)``) and prepared for the game (compiled
  search loaded, or compiled the first time), then the program writes ``ready PATH``, ``PATH``
  being the ``boardzoo/__init__.py`` it imported (the caller checks it is the other checkout's);
- ``reset``: a new game starts: the agent forgets the last one (``Agent.reset``); answer ``ok``;
- the moves played so far in the game, as actions separated by spaces (an empty line: the start
  position): the moves are replayed from the start position and the agent chooses the move
  there; answer the action (an int). The agent is kept from move to move (the engine keeps its
  transposition table) until the next ``reset``;
- ``quit``, or the end of stdin: the program ends.

A request that fails (an illegal move in the list, an agent that raises) is answered ``error
TEXT`` and the program goes on. Nothing else is written on stdout: the protocol keeps its own copy
of the file descriptor, and file descriptor 1 and ``sys.stdout`` go to stderr, so that notices
(compiling) and anything printed by the agent or compiled code reach stderr instead.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any, TextIO

# This file's folder is sys.path[0]; the other checkout's package must come from PYTHONPATH, and
# nothing of this checkout's benchmarks may shadow a module there.
_HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p and str(Path(p).resolve()) != _HERE]


def _protocol_stream() -> TextIO:
    """A line-buffered text file on the real stdout; fd 1 and ``sys.stdout`` then go to stderr."""
    sys.stdout.flush()
    stream = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return stream


def _one_line(text: str) -> str:
    return " ".join(str(text).split()) or "(no message)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spec", required=True, help="the agent spec, e.g. engine:time_limit=1")
    parser.add_argument("--game", default="reversi", help="a catalog game")
    parser.add_argument("--options", default="{}", help="the game's options as JSON")
    parser.add_argument("--seed", type=int, default=0, help="the agent's seed")
    args = parser.parse_args(argv)
    out = _protocol_stream()

    import boardzoo
    from boardzoo.agents.registry import make_agent
    from boardzoo.games.catalog import make_game

    game = make_game(args.game, **json.loads(args.options))
    agent = make_agent(args.spec, seed=args.seed)
    agent.reset()
    agent.prepare(game)
    out.write(f"ready {Path(boardzoo.__file__).resolve()}\n")

    try:
        for line in sys.stdin:
            answer = _answer(line.strip(), game, agent)
            if answer is None:
                break
            out.write(answer + "\n")
    except BrokenPipeError:  # the caller is gone
        pass
    return 0


def _answer(request: str, game: Any, agent: Any) -> str | None:
    """The answer line to one request (see the module's docstring); ``None``: quit."""
    if request == "quit":
        return None
    try:
        if request == "reset":
            agent.reset()
            return "ok"
        state = game.initial_state()
        for word in request.split():
            state = state.apply(int(word))
        return str(int(agent.act(state)))
    except Exception as error:  # told to the caller, which fails the game with it
        traceback.print_exc(file=sys.stderr)
        return f"error {type(error).__name__}: {_one_line(str(error))}"


if __name__ == "__main__":
    sys.exit(main())

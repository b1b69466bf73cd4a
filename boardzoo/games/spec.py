"""The game contract: what every layer knows about a game, said once per game.

A game is described by one :class:`GameSpec` in the catalog (:mod:`boardzoo.games.catalog`):
its names, its sides, its options and how to draw it. ``spec.make(**options)`` gives the
:class:`Game` for one choice of options (Reversi on 6x6, say): the board's shape, the number of
actions, the one place where actions get their text names, the start position, and the game's
compiled kernels with their parameters. Its positions follow :class:`GameState` (what search and
the arena need) and :class:`BoardState` (what boards, names and the kernels need).

The compiled kernels
--------------------
Every game ships a module of numba functions with the names and signatures below (see
:data:`KERNEL_FUNCTIONS`). The compiled search, alpha-beta and greedy are written once against
these names and specialised per game (:mod:`boardzoo.games.specialise`), so they need no branch
per game. A position is two ``uint64`` bitboards, ``s0`` (player 0's pieces) and ``s1`` (player
1's), and ``player``, the player to move; how squares map to bits ("cells") is the game's own
business. ``params`` is the game's ``uint64`` parameter array (:attr:`Game.params`).

==================================================  ===============================================
``placements(s0, s1, player, params) -> u8``        cells the player to move may fill: 0 when the
                                                    game is over or the player must pass
``place(s0, s1, player, cell, params) -> (u8, u8)`` the bitboards after the player to move fills
                                                    ``cell`` (``cell < 0``: a pass)
``outcome(s0, s1, player, params) -> (b1, i8)``     whether the game is over, and player 0's
                                                    result code: 0 loss, 1 draw, 2 win
``cell_action(cell, params) -> i8``                 the env action that fills ``cell`` (``cell <
                                                    0``: the pass action)
``rollout(s0, s1, player, params, policy, rng)``    play to the end; returns player 0's score (1,
``-> (f8, u8)``                                     0.5, 0) and the next RNG state. ``policy`` 0
                                                    is uniformly random; 1 the game's heuristic
                                                    (where :attr:`GameSpec.heuristic_rollout`)
``evaluate(s0, s1, player, moves, params) -> i8``   heuristic score of a position in play for the
                                                    player to move, whose placements are ``moves``;
                                                    far below :data:`WIN_SCORE`
``final_score(s0, s1, player, params) -> i8``       score of a finished game for the player to
                                                    move: ``WIN_SCORE + margin`` won, 0 drawn,
                                                    ``-WIN_SCORE - margin`` lost
``order_key(s0, s1, player, cell, depth, params)``  alpha-beta move ordering: lower is searched
``-> i8``                                           first; ``depth`` is the plies left
``greedy_score(s0, s1, player, cell, params)``      the one-ply greedy player's score of filling
``-> i8``                                           ``cell`` (highest is played, ties at random)
==================================================  ===============================================

``params[0]`` is always the bitboard of every cell of the board (empty squares are counted with
it). Generic code calls ``outcome`` only when ``placements`` is 0, to tell a pass from the end.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from boardzoo.errors import InvalidValueError

__all__ = [
    "DRAW",
    "KERNEL_FUNCTIONS",
    "LOSS",
    "WIN",
    "WIN_SCORE",
    "BoardState",
    "Game",
    "GameOption",
    "GameSpec",
    "GameState",
    "Look",
]

# Result codes of the compiled kernels, from player 0's point of view (score = code / 2).
LOSS, DRAW, WIN = 0, 1, 2
# A finished game scores WIN_SCORE + margin for the winner: any win beats any evaluation.
WIN_SCORE = 1_000_000
KERNEL_FUNCTIONS = (
    "placements",
    "place",
    "outcome",
    "cell_action",
    "rollout",
    "evaluate",
    "final_score",
    "order_key",
    "greedy_score",
)

Color = tuple[int, int, int]


@dataclass(frozen=True)
class GameOption:
    """An option of a game (Reversi's ``board_size``): its default and its allowed values.

    The command line sets any option as ``--option NAME=VALUE``; ``flags`` are shorter flags
    the game declares for it (Reversi's ``--size``/``--board-size``). ``label`` is how titles
    show a value (``"{value}x{value}"``: ``reversi 6x6``); without one they show
    ``name=value``.
    """

    name: str
    default: int
    allowed: tuple[int, ...]
    help: str
    flags: tuple[str, ...] = ()
    label: str = ""

    def check(self, value: object) -> int:
        """``value`` if it is allowed, else a ``ValueError`` naming it and the allowed values."""
        ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
        if not ok or value not in self.allowed:
            raise InvalidValueError(
                f"{self.name} must be one of {list(self.allowed)}, got {value!r}"
            )
        return int(value)


@dataclass(frozen=True)
class Look:
    """How a game is drawn: colours and shapes, as data (the renderer has no per-game code).

    ``pieces``: ``"discs"`` (round stones) or ``"marks"`` (a cross for player 0, a ring for
    player 1). ``grid``: ``"lines"`` (lines between squares, as Reversi and TicTacToe) or
    ``"holes"`` (a frame with a round hole per square, as Connect Four). ``hint_mix``: how far the
    legal-move marker's colour goes from an empty square's colour towards the mover's (the
    renderer draws rings at least 0.75 of the way; with marks, a faint outline at ``hint_mix``).
    ``ranks``: label rows with numbers (columns
    are always labelled with letters).
    """

    frame: Color
    board: Color
    grid: Color
    label: Color
    piece_colours: tuple[Color, Color]
    piece_edges: tuple[Color, Color]
    pieces: str = "discs"
    grid_style: str = "lines"
    hint_mix: float = 0.5
    star_points: bool = False
    ranks: bool = True


@dataclass(frozen=True)
class GameSpec:
    """One game of the catalog: its names, sides, options, drawing and where its parts live.

    Attributes:
        name: the catalog name, used by the command line, records and experiments.
        title: the name for people ("Connect Four").
        sides: the sides' names, first player first ("black", "white"): the ``play`` command's
            ``--black``/``--white`` flags, records and the user interfaces use them.
        symbols: one character per side for text boards ("X", "O").
        agents: the PettingZoo agent names, first player first.
        options: the game's options with their allowed values (empty for most games).
        build: makes the :class:`Game` for a full set of option values (keywords).
        kernels: the module of the game's compiled kernels (see the module docstring).
        aec_id: the id for ``pettingzoo.make("aec", ...)``.
        gym_id: the id of the single-agent version for ``gymnasium.make``.
        look: how to draw the game.
        env_module: the module of the game's own PettingZoo env (``env()``, ``raw_env``), where
            it has one for its documentation and keyword arguments; ``None``: the env is made
            from the catalog (:mod:`boardzoo.envs.catalog_env`), the game's options as keywords.
        show_counts: the piece counts decide the game, so status lines show them (Reversi).
        heuristic_rollout: the rollout kernel has a heuristic policy (``policy=1``).
        presets: named combinations of an agent's options that suit this game (``{"strong":
            {"cutoff": 0, ...}}``), by preset name: ``mcts:preset=strong`` takes them.
        ntuples: the n-tuples of the game's learned evaluation (:mod:`boardzoo.learned.patterns`)
            for a :class:`Game`: lists of ``(row, col)`` squares (row 0 at the top), each laid
            on the board in every image under the game's symmetries; ``None``: the game has no
            learned evaluation.
        tree_plugin: the module (by name) of the game's own depth-first knowledge, where it has
            some: the hooks of :mod:`boardzoo.gametree.hooks` it defines again (its view of a
            position, its move ordering, its endgame code, its bounds of a score), the switches
            it needs (``CONSTANTS``), its exact scores' limit (``SCORE_LIMIT``), what a solve is
            allowed (``MAX_EMPTIES``), where searches hand over to it (``TAKEOVER_EMPTIES``,
            ``TREE_EMPTIES``) and optionally an opening book (``book_scores(state)``,
            ``book_move(state)``): Reversi's scores the final disc difference, Connect Four's
            how soon the game is won. ``None``: the hooks' defaults over the game's kernels,
            exact solves scoring 1, 0 or -1.
        parse_position: reads a position from the game's own text notation (Reversi's: the
            64 squares and the side to move of the FFO and OBF files; Connect Four's: the
            columns played, 1-7), for ``boardzoo solve
            --position``; ``None``: positions are given as move lists only.
        peer_envs: modules of other libraries' AEC envs of this game (PettingZoo's classic
            ones), which ``boardzoo bench`` times next to this game's env.
        evaluation_scale: a typical size of the ``evaluate`` kernel's score: search that needs a
            value in (-1, 1) (MCTS cut-offs, progressive bias) reads a score ``v`` as
            ``tanh(v / evaluation_scale)``.
    """

    name: str
    title: str
    sides: tuple[str, str]
    symbols: tuple[str, str]
    agents: tuple[str, str]
    options: tuple[GameOption, ...]
    build: Callable[..., Game]
    kernels: str
    aec_id: str
    gym_id: str
    look: Look
    env_module: str | None = None
    show_counts: bool = False
    heuristic_rollout: bool = False
    evaluation_scale: float = 1.0
    presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    ntuples: Callable[[Game], list[list[tuple[int, int]]]] | None = None
    peer_envs: tuple[str, ...] = ()
    tree_plugin: str | None = None
    parse_position: Callable[[Game, str], BoardState] | None = None
    _made: dict[tuple[tuple[str, int], ...], Game] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def option(self, name: str) -> GameOption:
        """The option called ``name``; a ``ValueError`` listing the game's options otherwise."""
        for option in self.options:
            if option.name == name:
                return option
        have = ", ".join(o.name for o in self.options) or "none"
        raise InvalidValueError(f"{self.name} has no option {name!r}; its options: {have}")

    def check_options(self, options: Mapping[str, Any]) -> dict[str, int]:
        """Every option's value (defaults filled in), each checked; unknown names refused."""
        for name in options:
            self.option(name)
        return {o.name: o.check(options.get(o.name, o.default)) for o in self.options}

    def make(self, **options: Any) -> Game:
        """The game with these options (the others at their defaults); one object per choice."""
        checked = self.check_options(options)
        key = tuple(sorted(checked.items()))
        if key not in self._made:
            self._made[key] = self.build(**checked)
        return self._made[key]

    def side_index(self, side: str) -> int:
        """0 or 1 for a side's name (any case), else a ``ValueError`` listing the sides."""
        lowered = side.lower()
        for index, name in enumerate(self.sides):
            if name.lower() == lowered:
                return index
        raise InvalidValueError(
            f"{side!r} is not a side of {self.name}; its sides: {', '.join(self.sides)}"
        )


@dataclass(frozen=True, eq=False)
class Game:
    """A game with its options chosen: what a position needs to be played, named and drawn.

    One object per game and options (:meth:`GameSpec.make`), so ``is`` and ``==`` compare them.
    It pickles by name and options (:mod:`boardzoo.games.catalog` registers how), so a copy
    in another process is the catalog's object too.

    Attributes:
        spec: the game's catalog entry.
        options: the option values (every option of the game).
        rows, cols: the board's shape; row 0 is drawn at the top.
        num_actions: the size of the action space.
        pass_action: the action that passes, or ``None`` in games without passes.
        action_names: the text name of each action (the only place names are made).
        params: the ``uint64`` parameters of the compiled kernels.
        initial_state: makes the start position.
        square_action: the action that a click on ``(row, col)`` means, or ``None``.
        state_from_bitboards: the position with bitboards ``(s0, s1)`` (the kernels' layout, as
            :meth:`BoardState.bitboards` gives them) and ``player`` to move.
        layout: ``(row_stride, col_stride, offset)``: the square at ``(row, col)`` (row 0 at
            the top) is bit ``offset + row * row_stride + col * col_stride`` of the bitboards.
        td_stages: the stages of a learned n-tuple evaluation's weights (one set per phase of
            the game; :func:`boardzoo.learned.td.new_net`).
        opening_plies: random plies that open each game when a learned evaluation is measured
            against a baseline (:func:`boardzoo.learned.td.measure`).
        known_perft: ``(depth, leaves)``: a perft count of the start position known from
            outside the code (a forced pass is a ply; a game over before ``depth`` is one leaf),
            which ``boardzoo bench`` checks; ``None`` where none is known.
    """

    spec: GameSpec
    options: Mapping[str, int]
    rows: int
    cols: int
    num_actions: int
    pass_action: int | None
    action_names: tuple[str, ...]
    params: np.ndarray
    initial_state: Callable[[], BoardState]
    square_action: Callable[[int, int], int | None]
    state_from_bitboards: Callable[[int, int, int], BoardState]
    layout: tuple[int, int, int]
    td_stages: int = 1
    opening_plies: int = 4
    known_perft: tuple[int, int] | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def file_stem(self) -> str:
        """The stem of the files shipped for this game and its options (models, learned
        evaluations): the label with dashes, ``"reversi-8x8"``, ``"connect_four"``."""
        return self.label.replace(" ", "-")

    @property
    def label(self) -> str:
        """The game and its options for titles: ``"reversi 6x6"`` (options with a ``label``),
        ``"three_in_a_row (size=4)"`` (the others), ``"connect_four"``."""
        shown = [o.label.format(value=self.options[o.name]) for o in self.spec.options if o.label]
        extra = ", ".join(
            f"{o.name}={self.options[o.name]}" for o in self.spec.options if not o.label
        )
        return " ".join([self.name, *shown, *([f"({extra})"] if extra else [])])

    @cached_property
    def kernels(self) -> ModuleType:
        """The module of the game's compiled kernels (imported on first use)."""
        return importlib.import_module(self.spec.kernels)

    @cached_property
    def _actions_by_name(self) -> dict[str, int]:
        return {name.lower(): action for action, name in enumerate(self.action_names)}

    def action_name(self, action: int) -> str:
        """The text name of ``action`` (``"d3"``, ``"pass"``); ``ValueError`` outside the range."""
        if isinstance(action, bool) or not 0 <= action < self.num_actions:
            raise InvalidValueError(
                f"action must be in 0..{self.num_actions - 1} in {self.label}, got {action!r}"
            )
        return self.action_names[action]

    def parse_action(self, text: str) -> int:
        """The action named ``text`` (any case, spaces ignored) or numbered ``text`` (``"19"``).

        A ``ValueError`` says which names are allowed.
        """
        key = "".join(str(text).split()).lower()
        if key in self._actions_by_name:
            return self._actions_by_name[key]
        if key.isdigit() and int(key) < self.num_actions:
            return int(key)
        first, last = self.action_names[0], self.action_names[self.num_actions - 1]
        if self.pass_action is not None:
            last = self.action_names[self.pass_action - 1]
        passing = " or 'pass'" if self.pass_action is not None else ""
        raise InvalidValueError(
            f"cannot read move {text!r}: expected {first}..{last}{passing}, or an action number "
            f"0..{self.num_actions - 1}"
        )

    def __copy__(self) -> Game:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self

    def __repr__(self) -> str:
        return f"Game({self.label!r})"


# --- positions -------------------------------------------------------------------------------
# Modelled on OpenSpiel's ``State``: a position knows whose turn it is, its legal actions, how to
# apply one, whether the game is over and what each player scored. States are immutable values:
# ``apply`` returns a new state, so a snapshot costs nothing and can be shared between threads.

S = TypeVar("S", bound="GameState")


@runtime_checkable
class GameState(Protocol):
    """A position of a two-player, zero-sum, perfect-information game.

    Players are numbered 0 (moves first) and 1. Actions are integers in ``range(num_actions)``.
    Search and the arena need only this; :class:`BoardState` adds what boards, names and the
    compiled kernels need.
    """

    @property
    def game(self) -> Game | None:
        """The catalog game this position belongs to, or ``None`` (a foreign game)."""
        ...

    @property
    def num_actions(self) -> int:
        """Size of the action space (every action, legal or not)."""
        ...

    @property
    def current_player(self) -> int:
        """The player to move: 0 or 1 (meaningless once the game is over)."""
        ...

    def legal_actions(self) -> list[int]:
        """The legal actions in increasing order; empty once the game is over."""
        ...

    def legal_action_mask(self) -> np.ndarray:
        """A fresh int8 array of length ``num_actions``: 1 where the action is legal."""
        ...

    def is_legal(self, action: int) -> bool:
        """Whether the integer ``action`` is legal here."""
        ...

    def apply(self: S, action: int) -> S:
        """The state after ``action``; raises ``IllegalMoveError`` if it is not legal."""
        ...

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        ...

    def returns(self) -> tuple[float, float]:
        """Final rewards of players 0 and 1: +1 win, -1 loss, 0 draw (all 0 while in play)."""
        ...

    @property
    def winner(self) -> int | None:
        """0 or 1 once the game is won, ``None`` for a draw or a game in progress."""
        ...


@runtime_checkable
class BoardState(GameState, Protocol):
    """A position of a catalog game: a board of ``game.rows`` x ``game.cols`` squares."""

    @property
    def game(self) -> Game:
        """The game, with its options, shape, action names and compiled kernels."""
        ...

    def must_pass(self) -> bool:
        """The player to move has no placement and must pass (always False without passes)."""
        ...

    def bitboards(self) -> tuple[int, int]:
        """Player 0's and player 1's pieces as the compiled kernels lay them out."""
        ...

    def planes(self, player: int) -> np.ndarray:
        """Int8 ``(rows, cols, 2)``: plane 0 ``player``'s pieces, plane 1 the opponent's."""
        ...

    def square_owner(self, row: int, col: int) -> int | None:
        """0 or 1 for the player whose piece is on ``(row, col)``, ``None`` when it is empty."""
        ...

    def move_square(self, action: int) -> tuple[int, int] | None:
        """The square that the legal ``action`` fills from here; ``None`` for a pass."""
        ...

    def placed_square(self, action: int) -> tuple[int, int] | None:
        """The square filled by ``action``, the move that led to this position (``None``: pass)."""
        ...

    def disc_counts(self) -> tuple[int, int]:
        """How many pieces players 0 and 1 have on the board."""
        ...

    def winning_line(self) -> tuple[tuple[int, int], ...] | None:
        """The squares of the line that won the game, in order, for games won by a line."""
        ...

    def to_text(self) -> str:
        """The board a row per line, top first: the sides' symbols and ``.`` for empty."""
        ...

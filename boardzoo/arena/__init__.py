"""The arena: matches and round-robin tournaments between agents, under tournament rules.

    from boardzoo.arena import play_match, render_match

    if __name__ == "__main__":  # agents run in processes that import this script again
        result = play_match("reversi", ("mcts:simulations=200", "greedy"), games=20, workers=2,
                            time_limit=5.0, out="runs/m1.jsonl", options={"board_size": 8})
        print(render_match(result))

Every spec is built once before anything starts, so a bad value is an error at once. Each agent
runs in its own process, built from its spec and prepared for the game before its clock runs,
so that a move over the time limit, an exception or a hang loses that game and the match goes
on; the reports say why each forfeited game was lost. Every game is written to a JSONL file as
soon as it ends; ``resume=True`` plays only what is missing. Games are handed to the workers as
they free up, and the driver keeps running totals rather than the games (a result holds the
records of up to ``KEEP_RECORDS`` games, and reads a longer run's back from its file), so
``games`` can be as large as you like, in flat memory. Games are seeded from the match seed and
their index: the same seed gives the same games with any number of workers.

Games can start from a suite of openings, each played twice with colours swapped
(``openings="xot.txt"`` or ``"balanced"``; :mod:`boardzoo.arena.openings`), and a match can stop as
soon as a sequential probability ratio test on its game pairs decides (``sprt="elo0=0,elo1=20"``;
:mod:`boardzoo.arena.sprt`).
"""

from boardzoo.arena.agent_identity import (
    AgentNotPicklableError,
    PackedAgent,
    agent_config,
    agent_label,
    pack_agent,
)
from boardzoo.arena.agent_stats import AgentStats, ForfeitNote, Tally
from boardzoo.arena.backends import Backend, LocalBackend
from boardzoo.arena.game_worker import GameWorker, WorkerDiedError, WorkerProcess
from boardzoo.arena.match import play_match
from boardzoo.arena.match_report import match_table, render_match
from boardzoo.arena.openings import (
    BALANCED,
    OpeningSuite,
    balanced_file,
    load_openings,
    opening_text,
    parse_opening,
)
from boardzoo.arena.players import SETUP_TIMEOUT, Answer, LocalPlayer, Player
from boardzoo.arena.process_player import ProcessPlayer
from boardzoo.arena.ratings import (
    ELO_CLIP,
    EloFit,
    elo_from_score,
    elo_interval,
    fit_elo,
    fit_elo_totals,
    score_from_elo,
    score_interval,
    wilson_interval,
)
from boardzoo.arena.record_reading import find_game, read_records
from boardzoo.arena.record_schema import (
    RECORD_FORMAT,
    GameRecord,
    MatchSettingsError,
    RecordError,
    RecordWarning,
    record_game,
    record_options,
    without_timing,
)
from boardzoo.arena.record_writing import RecordWriter
from boardzoo.arena.referee import FORFEIT_REASONS, MAX_ILLEGAL, play_game
from boardzoo.arena.report import forfeit_lines
from boardzoo.arena.results import KEEP_RECORDS, MatchResult, MatchTotals, TournamentResult
from boardzoo.arena.runner import RecordedRun, make_backend, run_games
from boardzoo.arena.seeds import game_seed
from boardzoo.arena.settings import (
    BACKENDS,
    ArenaSettings,
    GameTask,
    MatchSettings,
    match_options,
)
from boardzoo.arena.sprt import (
    PAIR_OUTCOMES,
    SPRT,
    SequentialTest,
    SPRTResult,
    pair_outcome,
    parse_sprt,
    pentanomial_llr,
    sprt_bounds,
    sprt_test,
)
from boardzoo.arena.tournament import round_robin, tournament
from boardzoo.arena.tournament_report import plot_ratings, ratings_csv, render_tournament

__all__ = [
    "BACKENDS",
    "BALANCED",
    "ELO_CLIP",
    "FORFEIT_REASONS",
    "KEEP_RECORDS",
    "MAX_ILLEGAL",
    "PAIR_OUTCOMES",
    "RECORD_FORMAT",
    "SETUP_TIMEOUT",
    "SPRT",
    "AgentNotPicklableError",
    "AgentStats",
    "Answer",
    "ArenaSettings",
    "Backend",
    "EloFit",
    "ForfeitNote",
    "GameRecord",
    "GameTask",
    "GameWorker",
    "LocalBackend",
    "LocalPlayer",
    "MatchResult",
    "MatchSettings",
    "MatchSettingsError",
    "MatchTotals",
    "OpeningSuite",
    "PackedAgent",
    "Player",
    "ProcessPlayer",
    "RecordError",
    "RecordWarning",
    "RecordWriter",
    "RecordedRun",
    "SPRTResult",
    "SequentialTest",
    "Tally",
    "TournamentResult",
    "WorkerDiedError",
    "WorkerProcess",
    "agent_config",
    "agent_label",
    "balanced_file",
    "elo_from_score",
    "elo_interval",
    "find_game",
    "fit_elo",
    "fit_elo_totals",
    "forfeit_lines",
    "game_seed",
    "load_openings",
    "make_backend",
    "match_options",
    "match_table",
    "opening_text",
    "pack_agent",
    "pair_outcome",
    "parse_opening",
    "parse_sprt",
    "pentanomial_llr",
    "play_game",
    "play_match",
    "plot_ratings",
    "ratings_csv",
    "read_records",
    "record_game",
    "record_options",
    "render_match",
    "render_tournament",
    "round_robin",
    "run_games",
    "score_from_elo",
    "score_interval",
    "sprt_bounds",
    "sprt_test",
    "tournament",
    "wilson_interval",
    "without_timing",
]

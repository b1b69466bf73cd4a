"""The arena: matches and round-robin tournaments between agents, under tournament rules.

    from boardzoo.arena import play_match, render_match, tournament

    result = play_match("reversi", ("mcts:simulations=200", "greedy"), games=20, workers=2,
                        time_limit=5.0, out="runs/m1.jsonl", options={"board_size": 8})
    print(render_match(result))

Each agent runs in its own process (built from its spec), so that a move over the time limit,
an exception or a hang loses that game and the match goes on. Every game is written to a JSONL
file as soon as it ends; ``resume=True`` plays only what is missing. Games are seeded from the
match seed and their index: the same seed gives the same games with any number of workers.
"""

from boardzoo.arena.match import (
    FORFEIT_REASONS,
    MAX_ILLEGAL,
    AgentStats,
    MatchResult,
    MatchSettings,
    MatchSettingsError,
    Tally,
    game_seed,
    match_options,
    play_game,
    play_match,
)
from boardzoo.arena.players import (
    SETUP_TIMEOUT,
    Answer,
    LocalPlayer,
    Player,
    ProcessPlayer,
    agent_config,
    agent_label,
)
from boardzoo.arena.ratings import (
    ELO_CLIP,
    EloFit,
    elo_from_score,
    elo_interval,
    fit_elo,
    score_from_elo,
    score_interval,
    wilson_interval,
)
from boardzoo.arena.records import (
    RECORD_FORMAT,
    GameRecord,
    RecordError,
    RecordWriter,
    read_records,
    record_game,
    record_options,
    without_timing,
)
from boardzoo.arena.report import (
    match_table,
    plot_ratings,
    ratings_csv,
    render_match,
    render_tournament,
    tournament_table,
)
from boardzoo.arena.tournament import TournamentResult, round_robin, tournament

__all__ = [
    "ELO_CLIP",
    "FORFEIT_REASONS",
    "MAX_ILLEGAL",
    "RECORD_FORMAT",
    "SETUP_TIMEOUT",
    "AgentStats",
    "Answer",
    "EloFit",
    "GameRecord",
    "LocalPlayer",
    "MatchResult",
    "MatchSettings",
    "MatchSettingsError",
    "Player",
    "ProcessPlayer",
    "RecordError",
    "RecordWriter",
    "Tally",
    "TournamentResult",
    "agent_config",
    "agent_label",
    "elo_from_score",
    "elo_interval",
    "fit_elo",
    "game_seed",
    "match_options",
    "match_table",
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
    "score_from_elo",
    "score_interval",
    "tournament",
    "tournament_table",
    "wilson_interval",
    "without_timing",
]

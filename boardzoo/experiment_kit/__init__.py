"""What every experiment script shares (CleanRL style).

Arguments from a dataclass (:mod:`~boardzoo.experiment_kit.args`), the game and its options
(:mod:`~boardzoo.experiment_kit.game_args`), one seeding block and a run folder named after the
experiment, game, seed and time (:mod:`~boardzoo.experiment_kit.runs`), matches played as data
points, recorded, resumable and scored with 95% intervals, with their CSV files, tables and
plots (:mod:`~boardzoo.experiment_kit.points`), and the trained baselines they play against
(:mod:`~boardzoo.experiment_kit.baselines`).
"""

from boardzoo.experiment_kit.args import RESUME_FROM_COMMAND_LINE, arg, parse_args
from boardzoo.experiment_kit.baselines import (
    BOARDZOO_MODEL_SUFFIX,
    guided_search_spec,
    is_boardzoo_model,
    model_paths,
    model_spec,
    quick_model,
    start_model_experiment,
    write_budget_report,
)
from boardzoo.experiment_kit.game_args import (
    OPTIONS_HELP,
    game_label,
    game_options,
    parse_option_texts,
    resolve_game,
)
from boardzoo.experiment_kit.points import (
    POINT_FIELDS,
    markdown_table,
    play_point,
    plot_scores,
    safe_name,
    score_cell,
    write_csv,
)
from boardzoo.experiment_kit.runs import (
    ArenaExperimentArgs,
    check_specs,
    experiment_folder,
    run_folder,
    seed_everything,
)

__all__ = [
    "BOARDZOO_MODEL_SUFFIX",
    "OPTIONS_HELP",
    "POINT_FIELDS",
    "RESUME_FROM_COMMAND_LINE",
    "ArenaExperimentArgs",
    "arg",
    "check_specs",
    "experiment_folder",
    "game_label",
    "game_options",
    "guided_search_spec",
    "is_boardzoo_model",
    "markdown_table",
    "model_paths",
    "model_spec",
    "parse_args",
    "parse_option_texts",
    "play_point",
    "plot_scores",
    "quick_model",
    "resolve_game",
    "run_folder",
    "safe_name",
    "score_cell",
    "seed_everything",
    "start_model_experiment",
    "write_budget_report",
    "write_csv",
]

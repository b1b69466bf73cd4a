"""Agent specs: ``name[:key=value,...]`` builds the right agent or names what is wrong, and every
agent describes its options from its docstring."""

from __future__ import annotations

import dataclasses
import inspect
import json
import subprocess
import sys
import zipfile

import pytest

from boardzoo.agents import (
    AgentSpecError,
    AlphaBetaAgent,
    Budget,
    Enhancements,
    GreedyAgent,
    MCTSAgent,
    RandomAgent,
    TreeSettings,
    UCTSettings,
    agent_names,
    check_spec,
    describe_agent,
    format_agents,
    make_agent,
    parse_spec,
)
from boardzoo.agents.registry import AGENT_CLASSES, agent_class, register_agent
from boardzoo.agents.settings import Settings
from boardzoo.games import ReversiState
from boardzoo.games.catalog import game_names, initial_state


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    """A file shaped like a stable-baselines3 save (a zip with a JSON ``data`` entry), for the
    checks that run without loading the model."""
    path = tmp_path_factory.mktemp("models") / "ppo.zip"
    with zipfile.ZipFile(path, "w") as archive:
        policy = {"__module__": "stable_baselines3.common.policies"}
        archive.writestr("data", json.dumps({"policy_class": policy}))
    return path


def test_specs_build_configured_agents():
    agent = make_agent("mcts:simulations=1_000,c=1.0,final=max,solver=true,reuse_tree=yes", seed=3)
    assert isinstance(agent, MCTSAgent)
    assert agent.budget == Budget(simulations=1000)
    assert agent.uct == UCTSettings(c=1.0, solver=True)
    assert agent.tree == TreeSettings(final="max", reuse_tree=True)
    assert agent.enhancements == Enhancements()
    assert agent.rules.solver and agent.rules.c == 1.0
    agent = make_agent("mcts:rave=true,threads=2,time_limit=0.5", seed=3)
    assert agent.enhancements == Enhancements(rave=True, threads=2)
    assert agent.budget == Budget(time_limit=0.5) and agent.simulations is None
    assert isinstance(make_agent("alphabeta:depth=2"), AlphaBetaAgent)
    assert isinstance(make_agent("greedy"), GreedyAgent)
    assert isinstance(make_agent(" random "), RandomAgent)
    assert parse_spec("alphabeta:depth=none,time_limit=0.5") == (
        "alphabeta",
        {"depth": None, "time_limit": 0.5},
    )


def test_same_spec_and_seed_play_the_same():
    state = ReversiState.initial(6)
    first = make_agent("mcts:simulations=200", seed=5).act(state)
    assert first == make_agent("mcts:simulations=200", seed=5).act(state)


@pytest.mark.parametrize("game", game_names())
@pytest.mark.parametrize("spec", ["random", "greedy", "alphabeta:depth=2", "mcts:simulations=50"])
def test_every_spec_plays_every_game_legally_and_reproducibly(game, spec):
    state = initial_state(game)
    for _ in range(3):  # a few plies in, so the position is no start position
        action = make_agent(spec, seed=1).act(state)
        assert state.is_legal(action)
        assert action == make_agent(spec, seed=1).act(state)
        state = state.apply(action)


# --- bad values: one line naming the key, the value and what is allowed ---------------------------

BAD_VALUES = [
    # (spec, "key=value" as the message shows it, what is allowed)
    ("mcts:simulations=-5", "simulations=-5", "an integer >= 1"),
    ("mcts:simulations=0", "simulations=0", "an integer >= 1"),
    ("mcts:time_limit=0", "time_limit=0.0", "a number > 0"),
    ("mcts:time_limit=-2.5", "time_limit=-2.5", "a number > 0"),
    ("mcts:time_limit=nan", "time_limit=nan", "a number > 0"),
    ("mcts:time_limit=inf", "time_limit=inf", "a number > 0"),
    ("mcts:c=-1", "c=-1.0", "a number > 0"),
    ("mcts:c=0", "c=0.0", "a number > 0"),
    ("mcts:rave_k=-1", "rave_k=-1.0", "a number >= 0"),
    ("mcts:widening_alpha=2", "widening_alpha=2.0", "a number in [0, 1]"),
    ("mcts:threads=0", "threads=0", "an integer in 1..64"),
    ("az:c_init=0", "c_init=0.0", "a number > 0"),
    ("az:c_base=-1", "c_base=-1.0", "a number >= 0"),
    ("az:dirichlet_alpha=-0.3", "dirichlet_alpha=-0.3", "a number > 0"),
    ("az:dirichlet_epsilon=1.5", "dirichlet_epsilon=1.5", "a number in [0, 1]"),
    ("az:dirichlet_epsilon=-0.1", "dirichlet_epsilon=-0.1", "a number in [0, 1]"),
    ("az:leaves=65", "leaves=65", "an integer in 1..64"),
    ("az:search=gumbel,time_limit=1", "search='gumbel'", "gumbel with simulations=N and no"),
    ("mcts:workers=0", "workers=0", "an integer in 1..256"),
    ("mcts:workers=100000", "workers=100000", "an integer in 1..256"),
    ("mcts:max_nodes=10", "max_nodes=10", "an integer in 65.."),
    ("mcts:max_nodes=64", "max_nodes=64", "an integer in 65.."),
    ("mcts:max_nodes=10_000_000_000", "max_nodes=10000000000", "..2147483647"),
    ("alphabeta:depth=0", "depth=0", "an integer in 1..999 or none"),
    ("alphabeta:depth=1000", "depth=1000", "an integer in 1..999 or none"),
    ("alphabeta:time_limit=0", "time_limit=0.0", "a number > 0 or none"),
    ("alphabeta:exact_empties=-1", "exact_empties=-1", "an integer in 0..64"),
    ("alphabeta:exact_empties=65", "exact_empties=65", "an integer in 0..64"),
    ("alphabeta:depth=none", "depth=none", "give a depth, a time limit or both"),
    ("sb3:path=/nope.zip", "path='/nope.zip'", "does not exist (a .zip saved by stable-baselines3"),
    (
        "sb3puct:path=/nope.zip",
        "path='/nope.zip'",
        "does not exist (a .zip saved by stable-baselines3",
    ),
    ("sb3:path=/nope.zip,algo=ppo", "path='/nope.zip'", "does not exist"),
]


@pytest.mark.parametrize(("spec", "shown", "allowed"), BAD_VALUES)
def test_bad_values_are_one_line_errors_naming_key_value_and_what_is_allowed(spec, shown, allowed):
    name = spec.partition(":")[0]
    with pytest.raises(AgentSpecError) as caught:
        check_spec(spec)
    message = str(caught.value)
    assert message.startswith(f"{name}: {shown} ")
    assert allowed in message
    assert "\n" not in message and "__init__" not in message and "Errno" not in message


PUCT_BAD_VALUES = [
    ("simulations=0", "simulations=0"),
    ("time_limit=-1", "time_limit=-1.0"),
    ("c_init=0", "c_init=0.0"),
    ("c_base=-5", "c_base=-5.0"),
    ("dirichlet_alpha=0", "dirichlet_alpha=0.0"),
    ("dirichlet_epsilon=2", "dirichlet_epsilon=2.0"),
    ("max_nodes=3", "max_nodes=3"),
    ("algo=sac", "algo=sac"),
]


@pytest.mark.parametrize(("option", "shown"), PUCT_BAD_VALUES)
def test_puct_numeric_options_are_checked_without_loading_the_model(model_file, option, shown):
    with pytest.raises(AgentSpecError, match=f"^sb3puct: {shown} is not allowed: it must be"):
        check_spec(f"sb3puct:path={model_file},{option}")
    check_spec(f"sb3puct:path={model_file},simulations=10")  # the file itself is fine


def test_a_file_that_is_not_a_saved_model_is_refused(tmp_path):
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    with pytest.raises(AgentSpecError, match=r"is not a model file \(a \.zip saved by stable"):
        check_spec(f"sb3:path={junk}")
    with pytest.raises(AgentSpecError, match="is a folder"):
        check_spec(f"sb3:path={tmp_path}")
    with pytest.raises(AgentSpecError, match=r"^sb3: path must be given"):
        check_spec("sb3")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "minimax",
            "unknown agent 'minimax'; known agents: random, greedy, alphabeta, engine, mcts",
        ),
        ("mcts:sims=3", "mcts: sims=3 is not allowed: unknown key 'sims' for mcts; allowed: "),
        ("mcts:simulations=many", "mcts: simulations=many is not allowed: it must be an integer"),
        ("mcts:final=best", "mcts: final=best is not allowed: it must be one of robust, max"),
        ("mcts:rollout=smart", "mcts: rollout=smart is not allowed: it must be one of random, h"),
        ("mcts:solver=maybe", "mcts: solver=maybe is not allowed: it must be true or false"),
        ("alphabeta:time_limit=soon", "alphabeta: time_limit=soon is not allowed: it must be a "),
        ("mcts:simulations", "mcts: 'simulations' is not allowed: options are written key=value"),
        ("mcts:simulations=1,simulations=2", "mcts: simulations is given twice"),
        ("mcts:seed=3", "unknown key 'seed'"),
        ("mcts:prior_fn=__import__('os')", "unknown key 'prior_fn'"),
        ("", "an agent spec is a non-empty string"),
    ],
)
def test_bad_specs_are_one_line_errors(spec, message):
    with pytest.raises(AgentSpecError) as caught:
        make_agent(spec)
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert issubclass(AgentSpecError, ValueError)


@pytest.mark.parametrize(
    "spec",
    ["random", "greedy", "alphabeta:depth=1", "alphabeta:depth=none,time_limit=0.1",
     "mcts:simulations=1", "mcts:time_limit=0.01,max_nodes=65,workers=2,reuse_tree=true",
     "az:dirichlet_epsilon=0,dirichlet_alpha=0.3", "az:dirichlet_epsilon=1,c_init=0.01",
     "mcts:c=0.01,preset=strong,rave=true", "az:search=gumbel,simulations=16,gumbel_k=4",
     "mcts:simulations=10_000_000_000_000_000_000", "alphabeta:exact_empties=0"],
)  # fmt: skip
def test_good_specs_pass_the_check(spec):
    check_spec(spec)


def test_building_agents_compiles_and_loads_nothing(model_file):
    """Building is cheap: compiling belongs in ``prepare`` and loading a model in its first use
    (checked in a fresh process, where nothing is compiled or imported yet)."""
    code = f"""
import sys
from boardzoo.agents import check_spec
from boardzoo.search import tree
from boardzoo.games import specialise
for spec in ["mcts:simulations=5", "alphabeta:depth=none,time_limit=1", "greedy",
             "sb3:path={model_file}", "sb3puct:path={model_file},value_head=true"]:
    check_spec(spec)
print(len(specialise._SPECIALISED), len(tree.init_root.signatures), "torch" in sys.modules)
"""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0", "0", "False"]


# --- descriptions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(AGENT_CLASSES))
def test_every_option_of_every_agent_has_help_type_and_default(name):
    description = describe_agent(name)
    cls = agent_class(name)
    parameters = inspect.signature(cls.__init__).parameters
    assert description.summary and description.summary == " ".join(description.summary.split())
    expected = {}  # every parameter, a group's fields in its place, with their defaults
    for key, parameter in parameters.items():
        if key in ("self", "seed", "prior_fn", "value_fn"):
            continue
        if isinstance(parameter.default, Settings):
            for field in dataclasses.fields(parameter.default):
                expected[field.name] = getattr(parameter.default, field.name)
        else:
            expected[key] = parameter.default
    assert [o.name for o in description.options] == list(expected)
    for option in description.options:
        assert option.help and option.help != "(undocumented)", (name, option.name)
        assert "\n" not in option.help and "``" not in option.help
        assert option.type_text
        default = expected[option.name]
        assert option.required == (default is inspect.Parameter.empty)
        if not option.required:
            assert option.default == default


def test_descriptions_come_from_the_docstrings():
    mcts = {o.name: o for o in describe_agent("mcts").options}
    assert mcts["simulations"].help.startswith("simulations per move (at least 1)")
    assert (mcts["simulations"].type_text, mcts["simulations"].default) == ("int | None", None)
    assert (mcts["rollout"].type_text, mcts["rollout"].default) == (
        "random | heuristic | lgrf",
        "random",
    )
    assert (mcts["max_nodes"].type_text, mcts["max_nodes"].default) == ("int", 1_000_000)
    assert mcts["solver"].type_text == "bool"
    assert describe_agent("mcts").summary.startswith("Monte Carlo tree search")
    # Options of one group read the same for every agent that has it; a group's defaults are
    # the agent's own (az keeps its tree between moves).
    puct = {o.name: o for o in describe_agent("sb3puct").options}
    az = {o.name: o for o in describe_agent("az").options}
    assert puct["max_nodes"].help == mcts["max_nodes"].help == az["max_nodes"].help
    assert (mcts["reuse_tree"].default, az["reuse_tree"].default) == (None, True)
    assert puct["c_init"].help.startswith("PUCT's exploration constant") and "c" not in puct
    assert puct["path"].required and puct["path"].default is None
    assert puct["value_head"].help.startswith("score leaves with the model's value head")


def test_format_agents_lists_every_agent_and_shows_one_as_a_table():
    listing = format_agents()
    for name in agent_names():
        assert f"\n{name} " in listing
    assert "max_nodes=1000000" in listing and "path (required)" in listing
    table = format_agents("mcts")
    lines = table.splitlines()
    assert lines[0].startswith("mcts: Monte Carlo tree search")
    header = next(line for line in lines if line.startswith("option"))
    assert header.split() == ["option", "type", "default", "help"]
    row = next(line for line in lines if line.startswith("max_nodes "))
    assert row.split()[:3] == ["max_nodes", "int", "1000000"]
    assert all(len(line) <= 100 for line in lines)
    assert "has no options" in format_agents("random")


def test_unknown_agent_descriptions_list_the_known_agents():
    with pytest.raises(AgentSpecError, match="unknown agent 'minimax'; known agents: random"):
        describe_agent("minimax")
    with pytest.raises(AgentSpecError, match="unknown agent 'minimax'"):
        format_agents("minimax")


class _Undocumented(RandomAgent):
    def __init__(self, depth: int = 3, style: str = "calm", seed: int | None = None) -> None:
        super().__init__(seed)


_Undocumented.__doc__ = """A user's agent.

    Args:
        depth: how deep it looks.
    """


def test_registered_user_agents_are_described_too():
    register_agent("user_test_agent", f"{__name__}:_Undocumented")
    try:
        options = {o.name: o for o in describe_agent("user_test_agent").options}
        assert options["depth"].help == "how deep it looks."
        assert options["style"].help == "(undocumented)"
        assert "user_test_agent" in format_agents()
        assert isinstance(make_agent("user_test_agent:depth=2"), _Undocumented)
    finally:
        del AGENT_CLASSES["user_test_agent"]


def test_installed_packages_add_agents_through_entry_points(tmp_path):
    """A package that declares a ``boardzoo.agents`` entry point is usable by name everywhere,
    the command line included, without code that registers it."""
    import os

    package = tmp_path / "first_legal"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from boardzoo.agents import Agent, env_state\n\n\n"
        "class FirstLegal(Agent):\n"
        '    """Plays the first legal move.\n\n    Args:\n'
        '        offset: which legal move to play, counted from the first.\n    """\n\n'
        "    def __init__(self, offset: int = 0) -> None:\n"
        "        if offset < 0:\n"
        '            raise ValueError(f"offset={offset} is not allowed: it must be >= 0")\n'
        "        self.offset = offset\n\n"
        "    def act(self, env):\n"
        "        legal = env_state(env).legal_actions()\n"
        "        return legal[min(self.offset, len(legal) - 1)]\n"
    )
    info = tmp_path / "first_legal-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: first-legal\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[boardzoo.agents]\nfirst = first_legal:FirstLegal\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    commands = [
        # first: a match (its agents in processes of their own) names it before anything else
        ["arena", "tictactoe", "first:offset=1", "random", "--games", "2", "--out", "m.jsonl",
         "--no-progress"],
        ["agents", "first"],
        ["arena", "tictactoe", "first:offset=-1", "random", "--games", "2"],
    ]  # fmt: skip
    # One fresh interpreter (the package found on its path, nothing registering it) runs the
    # commands through the command line's main, one after the other: (status, stdout, stderr).
    script = (
        "import contextlib, io, json, sys\n"
        "from boardzoo.cli import main\n"
        "def run(args):\n"
        "    out, err = io.StringIO(), io.StringIO()\n"
        "    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
        "        try:\n"
        "            code = main(args)\n"
        "        except SystemExit as exit_:\n"
        "            code = exit_.code\n"
        "    return code, out.getvalue(), err.getvalue()\n"
        "if __name__ == '__main__':\n"
        "    print(json.dumps([run(args) for args in json.loads(sys.argv[1])]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(commands)],
        capture_output=True, text=True, timeout=300, check=False, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    match, listing, bad = json.loads(done.stdout.splitlines()[-1])
    assert match[0] == 0, match[2]
    assert "first:offset=1" in match[1]
    reasons = [json.loads(line)["reason"] for line in (tmp_path / "m.jsonl").open()]
    assert reasons == ["normal", "normal"]
    assert listing[0] == 0, listing[2]
    assert "which legal move to play" in listing[1]
    assert bad[0] == 2 and "offset=-1 is not allowed" in bad[2]

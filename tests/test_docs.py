"""The documentation works: every Python example in the README and the docs runs, the site builds.

Each ```python block of ``README.md``, ``CONTRIBUTING.md`` and ``docs/**/*.md`` runs as a script
(``python example.py``) in a fresh temporary folder shared by the blocks of its page, in page
order, so a script that starts the arena's agent processes needs its ``__main__`` guard exactly
as a reader's would. A comment on the line just before a block changes what is done with it:

- ``<!-- docs-test: skip (reason) -->``: not run (it opens a window, trains for hours, ...); the
  reason is required.
- ``<!-- docs-test: file NAME -->``: written to ``NAME`` in the page's folder (a module the next
  blocks import); ``<!-- docs-test: file NAME, run: ARGS -->`` also runs ``python NAME ARGS``.

A page with ``<!-- docs-test: notebook -->`` is a notebook: its blocks are cells run in order in
one Python session whose ``__main__`` is not a file, as in Jupyter.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC_FILES = [
    ROOT / "README.md",
    ROOT / "CONTRIBUTING.md",
    *sorted((ROOT / "docs").rglob("*.md")),
]
# Seconds one block (or a whole notebook page) may take: generous, a hang still fails.
TIMEOUT = 300
# Pages whose examples take over 20 s together (measured on the 2-core machine).
SLOW_PAGES = {"docs/tutorials/rl-pipeline.md", "docs/tutorials/agent-vs-agent.md"}
# Pages whose examples need an optional dependency: its marker (skipped without it, conftest.py).
PAGE_NEEDS = {
    "docs/guides/environments.md": ("rl",),
    "docs/tutorials/rl-pipeline.md": ("rl",),
    "docs/guides/other-libraries.md": ("openspiel", "tianshou"),
}

_FENCE = re.compile(r"^```(\S*)\s*$")
_MARKER = re.compile(r"^<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
_SKIP = re.compile(r"^skip \((.+)\)$")
_FILE = re.compile(r"^file ([\w.-]+\.py)(?:, run: (.*))?$")


@dataclass(frozen=True)
class Block:
    """One ```python block: where it is, its code and what to do with it."""

    page: str
    line: int  # of the opening fence, 1-based
    code: str
    action: str  # "run", "skip" or "file"
    file: str | None = None
    args: tuple[str, ...] = ()


def _marker_action(page: str, line: int, marker: str) -> tuple[str, str | None, tuple[str, ...]]:
    if marker == "notebook":
        raise ValueError(f"{page}:{line}: 'notebook' belongs on a line of its own, not on a block")
    if _SKIP.match(marker):
        return "skip", None, ()
    match = _FILE.match(marker)
    if match:
        return "file", match.group(1), tuple(shlex.split(match.group(2) or ""))
    raise ValueError(
        f"{page}:{line}: unknown docs-test marker {marker!r}; allowed: 'skip (reason)', "
        "'file NAME.py', 'file NAME.py, run: ARGS', 'notebook'"
    )


def parse_page(path: Path) -> tuple[list[Block], bool]:
    """The ```python blocks of a Markdown file, and whether it is a notebook page."""
    page = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    notebook = False
    marker: str | None = None  # the marker on the line just before this one
    index = 0
    while index < len(lines):
        text = lines[index]
        found = _MARKER.match(text)
        fence = _FENCE.match(text)
        if marker is not None and not (fence and fence.group(1) == "python"):
            raise ValueError(f"{page}:{index}: a docs-test marker not just before a python block")
        if found and found.group(1) == "notebook":
            notebook = True
        elif found:
            marker = found.group(1)
        elif fence:
            end = index + 1
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            if end == len(lines):
                raise ValueError(f"{page}:{index + 1}: code block never closed")
            if fence.group(1) == "python":
                action, file, args = "run", None, ()
                if marker is not None:
                    action, file, args = _marker_action(page, index, marker)
                code = "\n".join(lines[index + 1 : end]) + "\n"
                blocks.append(Block(page, index + 1, code, action, file, args))
            marker = None
            index = end
        index += 1
    if marker is not None:
        raise ValueError(f"{page}:{index}: a docs-test marker not just before a python block")
    return blocks, notebook


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["MPLBACKEND"] = "Agg"  # plots to files, never a window
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _check(result: subprocess.CompletedProcess[str], where: str) -> None:
    assert result.returncode == 0, (
        f"{where} failed (exit {result.returncode}):\n{result.stdout[-3000:]}\n"
        f"{result.stderr[-5000:]}"
    )


# A notebook's cells run in one session; `python -c` leaves __main__ without a file, as in
# Jupyter, so the arena's spawned agent processes do not re-run the cells.
_NOTEBOOK_DRIVER = textwrap.dedent(
    """
    import json, sys
    import __main__
    for name, code in json.load(open(sys.argv[1], encoding="utf-8")):
        print(f"--- {name}", flush=True)
        exec(compile(code, name, "exec"), __main__.__dict__)
    """
)


def run_page(path: Path, folder: Path) -> None:
    """Run the examples of one page in ``folder``; a failing block fails with its output."""
    blocks, notebook = parse_page(path)
    if notebook:
        cells = []
        for block in blocks:
            if block.action == "file":
                (folder / str(block.file)).write_text(block.code, encoding="utf-8")
            elif block.action == "run":
                cells.append((f"{block.page}:{block.line}", block.code))
        (folder / "cells.json").write_text(json.dumps(cells), encoding="utf-8")
        result = subprocess.run(
            [sys.executable, "-c", _NOTEBOOK_DRIVER, "cells.json"],
            cwd=folder,
            env=_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        _check(result, f"notebook {path.name}")
        return
    for block in blocks:
        where = f"{block.page}:{block.line}"
        if block.action == "skip":
            continue
        if block.action == "file":
            (folder / str(block.file)).write_text(block.code, encoding="utf-8")
            if not block.args:
                continue
            command = [sys.executable, str(block.file), *block.args]
        else:
            script = folder / f"example_{block.line}.py"
            script.write_text(block.code, encoding="utf-8")
            command = [sys.executable, script.name]
        result = subprocess.run(
            command,
            cwd=folder,
            env=_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        _check(result, where)


def _pages_with_examples() -> list[object]:
    params: list[object] = []
    for path in DOC_FILES:
        blocks, _ = parse_page(path)
        if any(block.action != "skip" for block in blocks):
            page = path.relative_to(ROOT).as_posix()
            marks = [pytest.mark.slow] if page in SLOW_PAGES else []
            marks += [getattr(pytest.mark, need) for need in PAGE_NEEDS.get(page, ())]
            params.append(pytest.param(path, id=page, marks=marks))
    return params


@pytest.mark.parametrize("path", _pages_with_examples())
def test_examples_run(path: Path, tmp_path: Path) -> None:
    run_page(path, tmp_path)


def test_markers_are_known_and_skips_few() -> None:
    """Every docs-test marker parses (parse_page raises otherwise); skips are rare and reasoned."""
    blocks = [block for path in DOC_FILES for block in parse_page(path)[0]]
    skipped = [f"{b.page}:{b.line}" for b in blocks if b.action == "skip"]
    assert len(blocks) >= 20
    assert len(skipped) <= 4, f"too many skipped examples: {skipped}"


def test_marker_parser_rejects_mistakes(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    for text, message in [
        ("<!-- docs-test: skip -->\n```python\npass\n```\n", "unknown docs-test marker"),
        ("<!-- docs-test: skip (x) -->\n\n```python\npass\n```\n", "not just before"),
        ("<!-- docs-test: skip (x) -->\n```bash\nls\n```\n", "not just before"),
        ("text\n<!-- docs-test: skip (x) -->\n", "not just before"),
        ("```python\npass\n", "never closed"),
    ]:
        page.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=message):
            parse_page(page)


def test_play_match_example_has_its_guard() -> None:
    """The README's play_match example runs as a script only with the guard (spawned agents)."""
    blocks, _ = parse_page(ROOT / "README.md")
    (block,) = [b for b in blocks if "play_match(" in b.code]
    assert block.action == "run"
    assert 'if __name__ == "__main__":' in block.code


def test_license_matches_pyproject() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert 'license = { text = "MIT" }' in pyproject
    assert 'authors = [{ name = "boardzoo developers" }]' in pyproject
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 boardzoo developers" in text


@pytest.mark.docs
def test_site_builds_without_warnings(tmp_path: Path) -> None:
    """``mkdocs build --strict``: broken links, missing pages and docstring warnings fail."""
    env = _env()
    env["NO_MKDOCS_2_WARNING"] = "1"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    _check(result, "mkdocs build --strict")
    assert (tmp_path / "site" / "reference" / "agents" / "index.html").is_file()

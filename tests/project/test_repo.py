"""The repository's promises: README set-up commands, and CI running the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _readme_commands() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.+?)\n```", setup)


def test_readme_has_exactly_two_setup_commands() -> None:
    commands = _readme_commands()
    assert len(commands) == 2
    assert "geomeval run" in commands[0] and commands[1] == "bash scripts/test.sh"


def test_ci_runs_the_readme_test_command_in_a_new_virtual_environment() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _readme_commands()[1] in ci
    venv = next(i for i, line in enumerate(ci) if "-m venv --clear" in line)
    activate = next(i for i, line in enumerate(ci) if "/bin/activate" in line)
    assert venv < activate < ci.index(_readme_commands()[1])


def test_the_test_command_installs_what_the_tests_would_otherwise_skip_for() -> None:
    script = (REPO / "scripts" / "test.sh").read_text(encoding="utf-8")
    for package in ("geogebra", "default-jdk-headless", "chromium"):
        assert package in script
    assert '-m pip install -q -c constraints.txt ".[test,lmms]"' in script
    for required in ("REQUIRE_GEOGEBRA_JAR=1", "REQUIRE_SPACE=1", "REQUIRE_LMMS_EVAL=1"):
        assert required in script


def test_filelock_is_held_below_4_3_for_lmms_eval() -> None:
    # lmms-eval 0.7.3 imports filelock._api, which filelock 4.3 removed
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    constraints = (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines()
    assert '"filelock<4.3"' in pyproject.split("lmms = [", 1)[1].split("]", 1)[0]
    assert "filelock<4.3" in constraints


DIFFERENCES = "## Differences from the paper and the official code"
DIFFERENCES_HEADER = "| what | paper | official code | geomeval | why | switch |"


@pytest.mark.parametrize("card", ["capgeo", "capgeo_bench", "geoeval", "geolaux", "ggbench", "me2"])
def test_every_card_has_a_differences_table(card: str) -> None:
    """Each card says, in one table, where a number can differ from the paper's or the
    official code's, and which switch (if any) gives the paper's behaviour."""
    text = (REPO / "cards" / card / "README.md").read_text(encoding="utf-8")
    assert DIFFERENCES in text
    section = text.split(DIFFERENCES, 1)[1].split("\n## ", 1)[0]
    assert DIFFERENCES_HEADER in section
    rows = [line for line in section.splitlines() if line.startswith("| ") and line != DIFFERENCES_HEADER]
    assert len(rows) >= 3 and all(row.count(" | ") == 5 for row in rows), rows

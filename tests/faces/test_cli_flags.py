"""Every flag a user is told about exists: each `--long-option` in a string of the library
(errors, hints, help, log lines, docstrings) is an option of some `geomeval` command, of one
of geomeval's own module tools, or of a named outside tool; and where a text shows a
`geomeval ...` command line (in the library, README.md, docs/ and the cards), each option on
it is one of that very command's. Guards against a message naming a flag that a redesign
removed (`--judge-base-url` after `-J base_url=`, `--mode` after `-T mode=`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import typer

from geomeval.cli import app

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "geomeval"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "cards").glob("*/README.md"))]

# Options of outside tools that geomeval's texts name or pass on. Each is checked to be named
# by some text, so a tool that stops being mentioned leaves this list (test below).
EXTERNAL: dict[str, set[str]] = {
    "lmms-eval (what `geomeval lmms-eval` passes on)": {"--model", "--model_args", "--tasks", "--output_path",
                                                        "--include_path", "--log_samples", "--bootstrap_iters"},
    "pip": {"--no-deps", "--no-build-isolation", "--find-links"},
    "git": {"--porcelain", "--untracked-files"},
    "huggingface-cli": {"--repo-type", "--local-dir"},
    "python -m geomeval.publishing.faces (reads sys.argv itself)": {"--check"},
}
ALLOWED_ANYWHERE = {"--help"}
LONG = re.compile(r"(?<![\w-])--[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*")


def _commands() -> dict[tuple[str, ...], set[str]]:
    """Each geomeval command's path (() the root) -> its long and short options."""
    found: dict[tuple[str, ...], set[str]] = {}

    def walk(command: object, path: tuple[str, ...]) -> None:
        flags = set(ALLOWED_ANYWHERE)
        for param in command.params:  # type: ignore[attr-defined]
            flags.update(o for o in (*param.opts, *getattr(param, "secondary_opts", ())) if o.startswith("-"))
        found[path] = flags
        for name, sub in (getattr(command, "commands", None) or {}).items():
            walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return found


COMMANDS = _commands()
EVERY_OPTION = {flag for flags in COMMANDS.values() for flag in flags if flag.startswith("--")}


def _strings() -> list[tuple[str, int, str]]:
    """(file, line, text) of every string constant in the library, but the names passed to an
    `add_argument` (a module tool's own argparse options, collected in `_argparse_options`)."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        declared = {id(arg) for node in ast.walk(tree) if isinstance(node, ast.Call)
                    and getattr(node.func, "attr", None) == "add_argument" for arg in node.args}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in declared:
                found.append((str(path.relative_to(ROOT)), node.lineno, node.value))
    return found


def _argparse_options() -> set[str]:
    """The options geomeval's module tools declare with argparse (`python -m geomeval.publishing.fidelity`,
    the test chat server)."""
    found = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument":
                found.update(a.value for a in node.args if isinstance(a, ast.Constant) and str(a.value).startswith("--"))
    return found


def _mentions(text: str) -> list[str]:
    """The long options a text names; CSS custom properties (`--color-accent: #c2410c`,
    `var(--x)`) are none."""
    return [m.group() for m in LONG.finditer(text)
            if text[m.end():m.end() + 1] != ":" and text[max(0, m.start() - 4):m.start()] != "var("]


# A command line ends at the end of its code span, of its line (unless continued with "\"),
# or at a shell separator; the prose around it is not part of it.
_END = re.compile(r"`|(?<!\\)\n|;|\||&&|#|\)|\]|, | or | and | with | then ")
_INVOCATION = re.compile(r"(?<![\w./-])geomeval((?:\s+[a-z][a-z0-9-]*)+)")


def invocations(text: str) -> list[tuple[tuple[str, ...], list[str], str]]:
    """(command path, the options on its line, the line) of each `geomeval CMD ...` command
    line in `text`."""
    found = []
    for match in _INVOCATION.finditer(text):
        words = match.group(1).split()
        path: tuple[str, ...] = ()
        for word in words:
            if (*path, word) in COMMANDS:
                path = (*path, word)
            else:
                break
        if not path:
            continue  # prose: "geomeval sends ..."
        start = match.start() + len("geomeval")
        # the words of the path, then the rest of the line
        rest = text[start:]
        end = _END.search(rest)
        line = rest[: end.start() if end else len(rest)]
        tokens = line.replace("\\\n", " ").split()
        options = []
        for token in tokens:
            if token == "--":  # what follows goes to another program (`geomeval lmms-eval -- ARGS`)
                break
            flag = token.split("=", 1)[0].rstrip(".,:'\"")
            if re.fullmatch(r"--[A-Za-z][\w-]*|-[A-Za-z]", flag):
                options.append(flag)
        found.append((path, options, "geomeval" + line))
    return found


@pytest.mark.slow
def test_every_long_option_a_library_string_names_exists() -> None:
    known = EVERY_OPTION | _argparse_options() | set().union(*EXTERNAL.values())
    unknown = [f"{where}:{line}: {flag}" for where, line, text in _strings() for flag in _mentions(text)
               if flag not in known]
    assert unknown == [], "\n".join(unknown)


@pytest.mark.slow
def test_every_outside_option_allowed_is_named_somewhere() -> None:
    """The allow-list holds no option that nothing names any more."""
    named = {flag for _, _, text in _strings() for flag in _mentions(text)}
    stale = {flag for flags in EXTERNAL.values() for flag in flags} - named
    assert stale == set()


def _lines_in(texts: list[tuple[str, str]]) -> list[str]:
    wrong = []
    for where, text in texts:
        for path, options, line in invocations(text):
            allowed = COMMANDS[path] | (set().union(*EXTERNAL.values()) if path == ("lmms-eval",) else set())
            wrong += [f"{where}: `{line.strip()}`: {flag} is no option of geomeval {' '.join(path)}"
                      for flag in options if flag not in allowed]
    return wrong


@pytest.mark.slow
def test_each_geomeval_command_line_in_the_library_uses_that_commands_options() -> None:
    wrong = _lines_in([(f"{where}:{line}", text) for where, line, text in _strings()])
    assert wrong == [], "\n".join(wrong)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_geomeval_command_line_in_the_docs_uses_that_commands_options(doc: Path) -> None:
    wrong = _lines_in([(str(doc.relative_to(ROOT)), doc.read_text(encoding="utf-8"))])
    assert wrong == [], "\n".join(wrong)


def test_the_checker_finds_a_removed_flag_and_reads_a_line_to_its_end() -> None:
    """The checks above can fail: a removed flag on a command line is reported, options of
    another command are not taken for this one's, and a continued line is read whole."""
    text = ("use `geomeval score RUN --judge-base-url URL` then `geomeval run geolaux --model m \\\n"
            "    -J base_url=URL --cache off`; geomeval capgeo grid --source geoqa --captioner openai:c\n")
    found = invocations(text)
    assert [(path, options) for path, options, _ in found] == [
        (("score",), ["--judge-base-url"]),
        (("run",), ["--model", "-J", "--cache"]),
        (("capgeo", "grid"), ["--source", "--captioner"]),
    ]
    assert _lines_in([("x", text)]) == [
        "x: `geomeval score RUN --judge-base-url URL`: --judge-base-url is no option of geomeval score"]
    assert _lines_in([("x", "geomeval run capgeo --source geoqa")]) != []  # a grid option, not run's
    assert "--judge-base-url" not in EVERY_OPTION and "--no-cache" not in EVERY_OPTION
    assert _mentions("a { --color-accent: #fff; color: var(--body-text) } or --mode x") == ["--mode"]

"""Prompt sets: every prompt a benchmark sends is a named template, and a user who has the
authors' exact wording can replace any of them at run time with `--prompts FILE`.

Why named templates rather than free-form prompt strings: a replacement must still receive
what the benchmark fills in (the problem, the options, the steps to judge), so each template
declares its placeholders, and a file is checked against them before anything is sent. A
template that names a placeholder the benchmark does not fill, or leaves out one the task
cannot do without (the problem itself), is refused with the benchmark, template and
placeholder named.

The syntax is deliberately small, so authors' prompts paste in unchanged: `{name}` is a
placeholder when `name` is one of the template's placeholders, `{{` and `}}` are literal
braces, and any other brace (a JSON example such as `{"steps": [...]}`) is literal text.
Filling is a single pass: a filled-in value (a problem that happens to contain `{options}`)
is never read as a template.

The file is YAML (or JSON), one section per benchmark:

    geolaux:
      calculation: |
        ... {problem} ... {options} ...

Sections and templates that the file leaves out keep geomeval's defaults. What a run used
is written to run.json (the file, a hash, and the replaced texts themselves), so a resume
with another prompt set is refused and `geomeval score` rescores with the run's own judge
templates.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# A prompt file is a few templates: anything larger is a mistake (a dataset passed by accident).
MAX_FILE_BYTES = 1_000_000
MAX_TEMPLATE_CHARS = 200_000
ENV_VAR = "GEOMEVAL_PROMPTS"  # lmms-eval tasks read the prompt file from here

_TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]{0,63})\}")


class PromptError(ValueError):
    """A prompt file that cannot be used; names the file, benchmark, template and field."""


@dataclass(frozen=True)
class Template:
    """One prompt a benchmark sends, in geomeval's words, with what a replacement gets.

    `fills`: every placeholder the benchmark fills in; `required`: those a replacement must
    use (without them the model would not see the task); `implements`: which published
    prompt or rubric clauses the default covers (printed in the card)."""

    name: str
    text: str
    fills: tuple[str, ...]
    required: tuple[str, ...] = ()
    implements: str = ""

    def __post_init__(self) -> None:
        problems = check_template(self.text, self.fills, self.required)
        if problems:  # a default that breaks its own contract is a bug in geomeval
            raise AssertionError(f"default template {self.name!r}: {'; '.join(problems)}")


def placeholders(text: str) -> list[str]:
    """The `{name}` placeholders in a template, in order (escaped braces excluded)."""
    return [m.group(1) for m in _TOKEN.finditer(text) if m.group(1)]


def check_template(text: str, fills: Iterable[str], required: Iterable[str]) -> list[str]:
    """What is wrong with `text` as a template filled with `fills`; empty when usable."""
    allowed = set(fills)
    used = placeholders(text)
    problems = [f"placeholder {{{name}}} is not one this template fills (it fills: {', '.join(sorted(allowed)) or 'none'})"
                for name in dict.fromkeys(used) if name not in allowed]
    problems += [f"placeholder {{{name}}} is required but missing" for name in required if name not in used]
    return problems


def fill(text: str, values: Mapping[str, Any]) -> str:
    """`text` with its placeholders replaced by `values`, in one pass."""

    def one(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        name = match.group(1)
        if name in values:
            return str(values[name])
        return token  # checked templates only name what is filled; kept literal otherwise

    return _TOKEN.sub(one, text)


@dataclass(frozen=True)
class PromptSet:
    """A benchmark's templates: geomeval's defaults with a file's replacements over them."""

    benchmark: str
    defaults: Mapping[str, Template]
    overrides: Mapping[str, str] = field(default_factory=dict)
    source: str | None = None

    def render(self, name: str, **values: Any) -> str:
        template = self.defaults[name]  # KeyError: geomeval asked for a template it never declared
        missing = [p for p in template.fills if p not in values]
        if missing:
            raise AssertionError(f"{self.benchmark} template {name!r} filled without {', '.join(missing)}")
        return fill(self.overrides.get(name, template.text), values)

    def text(self, name: str) -> str:
        return self.overrides.get(name, self.defaults[name].text)

    @property
    def sha256(self) -> str | None:
        """The replaced texts' hash (None with geomeval's defaults)."""
        if not self.overrides:
            return None
        canonical = json.dumps(dict(sorted(self.overrides.items())), ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def describe(self) -> dict[str, Any] | None:
        """For run.json: None with the defaults (older runs lack the key, and compare equal)."""
        if not self.overrides:
            return None
        return {"file": self.source, "sha256": self.sha256, "templates": dict(sorted(self.overrides.items()))}


def default_set(benchmark: str, templates: Iterable[Template]) -> PromptSet:
    return PromptSet(benchmark, {t.name: t for t in templates})


def validated(benchmark: str, templates: Iterable[Template], overrides: Mapping[str, Any], source: str) -> PromptSet:
    """A prompt set from a file's section for `benchmark`, or PromptError naming what is wrong."""
    base = default_set(benchmark, templates)
    if not base.defaults:
        raise PromptError(f"{source}: {benchmark} sends no replaceable prompts; remove its section")
    checked: dict[str, str] = {}
    for name, text in overrides.items():
        where = f"{source}: {benchmark}.{name}"
        if name not in base.defaults:
            raise PromptError(f"{where}: no such template; {benchmark} has: {', '.join(base.defaults)}")
        if not isinstance(text, str) or not text.strip():
            raise PromptError(f"{where}: a template is a non-empty string")
        if len(text) > MAX_TEMPLATE_CHARS:
            raise PromptError(f"{where}: {len(text)} characters, more than {MAX_TEMPLATE_CHARS}")
        template = base.defaults[name]
        problems = check_template(text, template.fills, template.required)
        if problems:
            raise PromptError(f"{where}: " + "; ".join(problems))
        if text != template.text:  # the default itself is no replacement: the run is the same
            checked[name] = text
    return PromptSet(benchmark, base.defaults, checked, source)


def read_prompt_file(path: str | Path) -> dict[str, dict[str, Any]]:
    """The file's sections, checked for shape (benchmark -> template -> text)."""
    file = Path(path)
    try:
        size = file.stat().st_size
    except OSError as exc:
        raise PromptError(f"prompt file {file}: {exc.strerror or exc}") from exc
    if size > MAX_FILE_BYTES:
        raise PromptError(f"prompt file {file}: {size} bytes, more than {MAX_FILE_BYTES}")
    import yaml  # here, not at import: `geomeval list` stays light

    try:
        content = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise PromptError(f"prompt file {file}: not readable as YAML or JSON ({exc})") from exc
    if not isinstance(content, dict) or not content:
        raise PromptError(f"prompt file {file}: expected sections `<benchmark>: {{<template>: <text>}}`")
    for section, templates in content.items():
        if not isinstance(templates, dict):
            raise PromptError(f"prompt file {file}: section {section!r} must map template names to texts")
    return {str(k): v for k, v in content.items()}


def load_for(benchmark: str, templates: Iterable[Template], path: str | Path, known: Iterable[str]) -> PromptSet:
    """The prompt set a run of `benchmark` uses from the file at `path`.

    Every section must name a known benchmark (a typo would otherwise be ignored silently),
    and the file must have a section for the benchmark run."""
    sections = read_prompt_file(path)
    names = set(known)
    unknown = [s for s in sections if s not in names]
    if unknown:
        raise PromptError(f"prompt file {path}: unknown benchmark section {', '.join(map(repr, unknown))}; "
                          f"benchmarks: {', '.join(sorted(names))}")
    if benchmark not in sections:
        raise PromptError(f"prompt file {path} has no `{benchmark}` section (it has: {', '.join(sections)})")
    return validated(benchmark, templates, sections[benchmark], str(path))


def from_config(benchmark: str, templates: Iterable[Template], recorded: Mapping[str, Any] | None) -> PromptSet:
    """The prompt set a run recorded in run.json (its replaced texts), checked again."""
    if not recorded:
        return default_set(benchmark, templates)
    return validated(benchmark, templates, recorded.get("templates") or {}, str(recorded.get("file") or "run.json"))


def as_file_text(benchmark: str, templates: Iterable[Template]) -> str:
    """The defaults as a prompt file section: a starting point to paste the authors' wording into."""
    lines = [f"# geomeval's default prompts for {benchmark}; placeholders in braces, {{{{ }}}} for literal braces.",
             f"{benchmark}:"]
    for template in templates:
        lines.append(f"  # fills: {', '.join(template.fills) or 'nothing'}"
                     + (f"; required: {', '.join(template.required)}" if template.required else ""))
        lines += _scalar(template.name, template.text)
    return "\n".join(lines) + "\n"


def _scalar(name: str, text: str) -> list[str]:
    """`name: text` as YAML lines: a literal block where it reads back exactly, else a quoted
    string (a block loses a leading space and trailing line breaks: " Its figure …")."""
    import yaml

    block = [f"{name}: |-"] + [f"  {line}" if line else "" for line in text.split("\n")]
    if yaml.safe_load("\n".join(block)) == {name: text}:
        return [f"  {line}" if line else "" for line in block]
    return [f"  {name}: {json.dumps(text, ensure_ascii=False)}"]


def card_section(templates: Iterable[Template]) -> str:
    """The card's table of templates: name, placeholders and what each implements."""
    rows = ["## Prompt templates", "",
            "Each prompt geomeval sends is a named template, in geomeval's own words. Replace any of them "
            "with `--prompts FILE` (`geomeval prompts <benchmark>` prints the defaults as such a file; "
            "lmms-eval tasks read the same file from `GEOMEVAL_PROMPTS`).", "",
            "| template | placeholders | implements |", "|---|---|---|"]
    for t in templates:
        marks = ", ".join(f"`{{{p}}}`" + ("*" if p in t.required else "") for p in t.fills)
        rows.append(f"| `{t.name}` | {marks or 'none'} | {t.implements} |")
    rows += ["", "\\* required in a replacement.", ""]
    return "\n".join(rows)

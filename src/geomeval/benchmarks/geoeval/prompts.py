"""GeoEval's prompt, written for geomeval: the diagram description, the problem text and the
choices merged into one request, in the paper's order, in geomeval's own words.

Input modes, as in the paper: `text` (problem text only: text-only models can run every
item), `text_description` (plus the diagram in words, where the release has it),
`text_diagram` (plus the diagram image, where there is one) and `text_description_diagram`
(everything available, the default).
"""

from __future__ import annotations

import string
from typing import Any, Literal, get_args

from ...images import image_part
from ...prompts import PromptSet, Template
from .extraction import JUDGE_TEMPLATES

# What the prompt shows besides the problem text (`-T mode=...`); the first is the paper's.
Mode = Literal["text_description_diagram", "text", "text_description", "text_diagram"]
MODES: tuple[str, ...] = get_args(Mode)

_PROMPT = """Solve the following geometry problem.{figure}{description}

Problem:
{problem}{options}

Explain your reasoning briefly, then state the final answer on the last line as \
"Answer: ..."{hint}."""

TEMPLATES = (
    Template(
        "solve", _PROMPT, ("figure", "description", "problem", "options", "hint"), required=("problem",),
        implements="the paper's single request: diagram description, problem text and choices merged in that "
                   "order, the answer asked for on a line of its own (the letter when there are choices)",
    ),
    *JUDGE_TEMPLATES,  # the answer-extraction judge's (extraction.py)
)


def problem_text(row: dict[str, Any], task: str) -> str:
    """The question a task asks of a row: backward and rephrased questions replace the forward one."""
    if task == "geoeval_backward" and row.get("backward_problem"):
        return row["backward_problem"]
    if task == "geoeval_aug" and row.get("rephrased_problem"):
        return row["rephrased_problem"]
    return row["problem"]


def uses(mode: str) -> tuple[bool, bool]:
    """(description, diagram) the mode sends, where the item has them."""
    if mode not in MODES:
        raise ValueError(f"unknown GeoEval input mode {mode!r}; modes: {', '.join(MODES)}")
    return "description" in mode, "diagram" in mode


def build_messages(row: dict[str, Any], task: str, mode: str, prompts: PromptSet) -> list[dict[str, Any]]:
    with_description, with_diagram = uses(mode)
    description = row.get("diagram_description") if with_description else None
    diagram = row.get("diagram") if with_diagram else None
    choices = row.get("choices") or []
    options = ""
    if choices:
        options = "\n\nChoices:\n" + "\n".join(f"{string.ascii_uppercase[i]}. {c}" for i, c in enumerate(choices))
    text = prompts.render(
        "solve",
        figure=" Its diagram is attached." if diagram else "",
        description=f"\n\nThe diagram, described in words:\n{description.strip()}" if description else "",
        problem=problem_text(row, task).strip(),
        options=options,
        hint=" (the letter of the correct choice)" if choices else " (the value only)",
    )
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if diagram:
        content.append(image_part(diagram))
    return [{"role": "user", "content": content}]

"""GeoEval's prompt, written for geomeval: the diagram description, the problem text and the
choices merged into one request, in the paper's order, in geomeval's own words.

The default (`-T prompt_style=paper`) implements the paper's Table 10 and nothing more: an
instruction to solve the math problem, then the merged problem (the diagram's description
where there is one, introduced as such; the problem text; the choices, where there are any,
introduced as such and written as one bracketed, comma-separated list, without letters).
It asks for no format: the answer is extracted from whatever the model writes (paper
§4.2, `extraction`). The paper's closing "### Problem-solving Bot:" cue opens the model's
turn in a completion prompt; in a chat request the assistant turn is that cue.

`-T prompt_style=geomeval` sends geomeval's earlier prompt instead: the choices lettered
A, B, C, …, "explain briefly" and the final answer asked for on a last line "Answer: …"
(the letter, or the value). It is not a replaceable template; a `--prompts` file replaces
the default `solve`.

Input modes, as in the paper: `text` (problem text only: text-only models can run every
item), `text_description` (plus the diagram in words, where the release has it),
`text_diagram` (plus the diagram image, where there is one) and `text_description_diagram`
(everything available, the default).
"""

from __future__ import annotations

import string
from typing import Any, Literal, get_args

from ...answers import ChoiceError, parse_choices
from ...core.errors import UsageError
from ...engines.images import image_part
from ...engines.prompts import PromptSet, Template, fill
from .judging import TEMPLATES as JUDGE_TEMPLATES

# What the prompt shows besides the problem text (`-T mode=...`); the first is the paper's.
Mode = Literal["text_description_diagram", "text", "text_description", "text_diagram"]
MODES: tuple[str, ...] = get_args(Mode)
# Which solver prompt (`-T prompt_style=...`); the first is the paper's.
PromptStyle = Literal["paper", "geomeval"]
PROMPT_STYLES: tuple[str, ...] = get_args(PromptStyle)

_PAPER_PROMPT = """Solve the following math problem.
{description}{problem}{options}"""

# geomeval's earlier prompt, kept as `-T prompt_style=geomeval` (not the paper's: it asks for
# a brief explanation and a last "Answer:" line, and letters the choices).
GEOMEVAL_PROMPT = """Solve the following geometry problem.{figure}{description}

Problem:
{problem}{options}

Explain your reasoning briefly, then state the final answer on the last line as \
"Answer: ..."{hint}."""

TEMPLATES = (
    Template(
        "solve", _PAPER_PROMPT, ("description", "problem", "options"), required=("problem",),
        implements="Table 10's instruction and merge: a request to solve the math problem, then the diagram's "
                   "description (where there is one, introduced as such), the problem text, and the choices "
                   "(where there are any, introduced as such, as one bracketed list without letters); no "
                   "answer format asked for (the chat's assistant turn stands for the closing bot cue)",
    ),
    *JUDGE_TEMPLATES,  # the answer-extraction judge's (judging.py)
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


def _lettered(choices: list[Any]) -> dict[str, str]:
    try:
        return parse_choices([str(c) for c in choices])
    except ChoiceError:
        return {string.ascii_uppercase[i]: str(c) for i, c in enumerate(choices)}


def build_messages(
    row: dict[str, Any], task: str, mode: str, prompts: PromptSet, style: str = PROMPT_STYLES[0]
) -> list[dict[str, Any]]:
    """The one user message posing `row`: the text (`style`'s prompt, or the run's `solve`
    replacement), then the diagram where `mode` sends it."""
    with_description, with_diagram = uses(mode)
    description = row.get("diagram_description") if with_description else None
    diagram = row.get("diagram") if with_diagram else None
    choices = row.get("choices") or []
    problem = problem_text(row, task).strip()
    if style == "paper":
        text = prompts.render(
            "solve",
            description=f"Description of the diagram: {description.strip()}\n" if description else "",
            problem=problem,
            options=f"\nChoices: [{', '.join(str(c) for c in choices)}]" if choices else "",
        )
    elif style == "geomeval":
        if "solve" in prompts.overrides:
            raise UsageError("-T prompt_style=geomeval sends geomeval's own prompt; a --prompts file replacing "
                             "geoeval.solve applies to the default style (leave out one of the two)")
        options = ""
        if choices:
            # Options that carry their own labels (MathQA's "a ) 9") are shown once, as "A. 9":
            # a double label ("A. a ) 9") invites the model to echo the list back.
            options = "\n\nChoices:\n" + "\n".join(f"{letter}. {text}" for letter, text in _lettered(choices).items())
        text = fill(GEOMEVAL_PROMPT, {
            "figure": " Its diagram is attached." if diagram else "",
            "description": f"\n\nThe diagram, described in words:\n{description.strip()}" if description else "",
            "problem": problem,
            "options": options,
            "hint": " (the letter of the correct choice)" if choices else " (the value only)",
        })
    else:
        raise UsageError(f"unknown GeoEval prompt style {style!r}; styles: {', '.join(PROMPT_STYLES)}")
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if diagram:
        content.append(image_part(diagram))
    return [{"role": "user", "content": content}]

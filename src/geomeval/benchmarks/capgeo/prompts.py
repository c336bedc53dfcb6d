"""CapGeo's second stage, its prompts: a reasoner answers from the question with the caption, the image, or
both, in `<think>…</think><answer>…</answer>` form; the shared answer checker scores it.

Modes, as in the paper: `direct` (question + image, the baseline), `with_image` (question,
caption and image) and `without_image` (question and caption only, which text-only models can
run). A missing caption (the captioner failed) makes the item unscored, never wrong:
`reasoning_messages` refuses to pose it (`NoCaption`), and `unposed_scores` says why whatever
the response (the scorer and `CapGeo.model_failed` both ask it), since lmms-eval asks the
model something for every row all the same.
"""

from __future__ import annotations

import string
from typing import Any

from ...engines.images import image_part
from ...engines.prompts import PromptSet, Template, default_set
from ..base import NotPosable
from .captioning import PROBLEM_TEMPLATES, PROBLEM_TEMPLATES_GEOMEVAL

MODES = ("direct", "with_image", "without_image")

# The reasoner's request, formatted only in `reasoning_messages`. The caption is the whole
# problem restated by the captioner from the figure and the question (captioning.py's problem
# prompts); the paper gives the reasoner the question, the caption and (with_image) the
# figure, A = MLLM(Q, I, C), so the question is posed beside it, not replaced.
# Fig. 6's reasoning prompt: the user asks, the assistant solves, first thinking the reasoning
# through and then answering, the two inside <think> and <answer> tags.
REASONING_PROMPT = """Solve the geometry problem below.{context}

{problem}{options}

First think the reasoning through, then give the answer. Put the reasoning inside \
<think> </think> and the answer inside <answer> </answer>: <think> your reasoning </think>\
<answer> your answer </answer>."""
# geomeval's earlier request (`-T prompt_style=geomeval`): it also says what the answer holds
# (the option's letter, or the value without units), which the paper does not ask.
REASONING_PROMPT_GEOMEVAL = """Solve the geometry problem below.{context}

{problem}{options}

Reason step by step inside <think>...</think>, then give only the final answer inside \
<answer>...</answer>{hint}."""

CONTEXT = {
    "direct": " Its figure is attached.",
    "with_image": " Its figure is attached, and the whole problem is also restated in words, figure included.",
    "without_image": " The figure is not shown; the whole problem is restated in words instead, figure included.",
}
RESTATED = "The problem restated, with what its figure shows:\n{caption}\n\n"
QUESTION = "Problem:\n{question}"
OPTIONS = "\n\nOptions:\n{options}"
HINT_CHOICE = " (the letter of the correct option)"
HINT_VALUE = " (the value only, without units)"
# MathVerse Vision Only: the question has no text, only the image (or the restatement) holds it.
IN_FIGURE = "The problem, with its choices if it has any, is written in the figure."
IN_RESTATEMENT = "The problem is written in its figure, which is not shown: the restatement above gives it."

_FIG6 = "Fig. 6's reasoning prompt"
_REASONING = (_FIG6 + ": the assistant solves the user's question, first thinking the reasoning through, then "
              "answering, the reasoning inside `<think></think>` and the answer inside `<answer></answer>`; "
              "A = MLLM(Q, I, C): the question with the caption and/or figure")


def _reasoning_templates(reasoning: Template, hints: tuple[Template, ...]) -> tuple[Template, ...]:
    return (
        reasoning,
        Template("context_direct", CONTEXT["direct"], (),
                 implements="direct mode (the vision baseline): the question and its figure (I)"),
        Template("context_with_image", CONTEXT["with_image"], (),
                 implements="with_image mode: the question, its figure and the caption (Q, I, C)"),
        Template("context_without_image", CONTEXT["without_image"], (),
                 implements="without_image mode: the question and the caption only (Q, C; Table 2's w/o image)"),
        Template("restated", RESTATED, ("caption",), required=("caption",),
                 implements="the caption C, the problem as the captioner restated it, before the question"),
        Template("problem", QUESTION, ("question",), required=("question",),
                 implements="the question Q as the source gives it"),
        Template("options", OPTIONS, ("options",), required=("options",),
                 implements="a multiple-choice question's options, lettered"),
        *hints,
        Template("question_in_figure", IN_FIGURE, (),
                 implements="MathVerse Vision Only's question, which only the figure holds (direct, with_image)"),
        Template("question_in_restatement", IN_RESTATEMENT, (),
                 implements="the same without the figure (without_image): the restatement holds the question"),
    )


_FILLS = ("context", "problem", "options")
# The reasoner's templates: the request and the pieces it is assembled from, each replaceable.
REASONING_TEMPLATES = _reasoning_templates(
    Template("reasoning", REASONING_PROMPT, _FILLS, required=("problem",), implements=_REASONING), ())
# geomeval's earlier ones (`-T prompt_style=geomeval`): the request names what the answer holds.
REASONING_TEMPLATES_GEOMEVAL = _reasoning_templates(
    Template("reasoning", REASONING_PROMPT_GEOMEVAL, (*_FILLS, "hint"), required=("problem",),
             implements=_REASONING + " (geomeval's earlier wording, `-T prompt_style=geomeval`: it also says "
                                     "what the answer holds, `{hint}`)"),
    (Template("hint_choice", HINT_CHOICE, (),
              implements="what the answer holds for a multiple-choice question (`-T prompt_style=geomeval` only)"),
     Template("hint_value", HINT_VALUE, (),
              implements="what the answer holds for a free-form question (`-T prompt_style=geomeval` only)")),
)
# CapGeo's prompt set at the defaults: the captioner's (run in `prepare`) and the reasoner's.
TEMPLATES = (*PROBLEM_TEMPLATES, *REASONING_TEMPLATES)
# ... and under `-T prompt_style=geomeval`.
TEMPLATES_GEOMEVAL = (*PROBLEM_TEMPLATES_GEOMEVAL, *REASONING_TEMPLATES_GEOMEVAL)
PROMPT_STYLES = {"paper": TEMPLATES, "geomeval": TEMPLATES_GEOMEVAL}
_DEFAULTS = default_set("capgeo", TEMPLATES)


class NoCaption(NotPosable):
    """A caption mode's item without a caption: it cannot be posed, and is left unscored."""


def no_caption_reason(error: str | None) -> str:
    return f"no caption for this item: {error or 'the captioner gave none'}"


def reasoning_messages(
    row: dict[str, Any], mode: str, caption: str | None, prompts: PromptSet = _DEFAULTS
) -> list[dict[str, Any]]:
    """The reasoner's request in `mode`, rendered from `prompts` (the run's set)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; modes: {', '.join(MODES)}")
    if mode != "direct" and not caption:
        raise NoCaption(no_caption_reason(row.get("caption_error")))
    question = row["question"] or prompts.render(
        "question_in_restatement" if mode == "without_image" else "question_in_figure")
    problem = prompts.render("problem", question=question)
    if mode != "direct":
        problem = prompts.render("restated", caption=caption.strip()) + problem  # type: ignore[union-attr]
    choices = row.get("choices") or []
    options = ""
    if choices and row["question"]:
        lettered = "\n".join(f"{string.ascii_uppercase[i]}. {c}" for i, c in enumerate(choices))
        options = prompts.render("options", options=lettered)
    hint_name = "hint_choice" if choices else "hint_value"
    hint = prompts.render(hint_name) if hint_name in prompts.defaults else ""  # prompt_style=geomeval only
    text = prompts.render("reasoning", context=prompts.render(f"context_{mode}"), problem=problem,
                          options=options, hint=hint)
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if mode != "without_image":
        content.append(image_part(row["image"]))
    return [{"role": "user", "content": content}]

"""GGBench prompts, written for geomeval: the construction task and the judge rubrics.

The code track asks for a plan and then one fenced GeoGebra block per step, so the
engine can run each step as a block and draw the figure after it (the step images the
process judge sees). The image track asks a unified model for the same plan with a drawn
figure after each step. The judge prompts implement GGBench's published rubrics, each a
1–5 score: VLM-T (the plan against the reference steps), the process criteria on the
long image (Step Accuracy, Process Consistency, Problem-Solution Accuracy) and VLM-I-Res
(the final figure against the reference figure).
"""

from __future__ import annotations

from typing import Any

from ...images import image_part
from ...judges import likert, reply_object

_CODE_TASK = """Construct the geometric figure the problem below asks for, using GeoGebra.

Problem:
{problem}{figure_note}

First write a short plan. Then carry it out step by step. For each step, write one or two \
sentences saying what the step constructs and why, followed by a fenced code block \
(```geogebra ... ```) holding that step's GeoGebra commands, one per line, with GeoGebra's \
English command names, for example:

Step 1: Draw the given segment AB.
```geogebra
A = (0, 0)
B = (6, 0)
s = Segment(A, B)
```

Keep the labels the problem uses. Use only commands GeoGebra has (there is no \
ParallelLine or Orthocenter command, for instance); every block must run after the \
blocks before it."""

_IMAGE_TASK = """Construct the geometric figure the problem below asks for.

Problem:
{problem}{figure_note}

Write a short plan, then carry it out step by step: for each step, one or two sentences \
saying what it constructs, followed by a drawing of the figure as it stands after that \
step. End with the finished figure."""

_FIGURE_NOTE = "\n\nThe problem's figure is attached."


def task_messages(row: dict[str, Any], *, track: str) -> list[dict[str, Any]]:
    """The chat messages that pose an item; `track` is "code" or "image"."""
    template = _CODE_TASK if track == "code" else _IMAGE_TASK
    image = row.get("problem_image")
    text = template.format(problem=row["problem"].strip(), figure_note=_FIGURE_NOTE if image else "")
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if image:
        content.append(image_part(image))
    return [{"role": "user", "content": content}]


# --------------------------------------------------------------------------------- judge

_SYSTEM = (
    "You grade geometric constructions against a reference solution, strictly and fairly. "
    "You reply with JSON only."
)

_SCALE = """Scores run from 1 to 5:
5 = fully correct: every required object is constructed correctly and the requirements \
of the problem are met;
4 = correct in substance, with a small omission or imprecision that does not change the \
result;
3 = the main idea is right, but a step is missing, wrong or unjustified, so the result is \
only partly right;
2 = mostly wrong: a few correct elements, but the construction does not achieve the goal;
1 = wrong, irrelevant or missing."""

_TEXT_PROMPT = """Grade a student's construction plan for a geometry construction problem.

## Problem
{problem}

## Reference solution steps
{reference}

## What a correct construction must show
{inspection}

## Student's plan and steps
{plan}

## How to grade
Judge whether the student's steps, followed as written, construct what the problem asks \
for. A different valid method is as good as the reference's; use the reference to check \
what must be built, not to demand its steps. Ignore GeoGebra syntax; judge the geometry.

{scale}

Reply with exactly one JSON object and nothing else:
{{"score": 4, "reason": "<one or two sentences>"}}"""

_PROCESS_PROMPT = """Grade the drawing process of a student's geometric construction. The \
attached image shows the student's figure after each step, left to right ("Step 1", \
"Step 2", ...).

## Problem
{problem}

## Reference solution steps
{reference}

## What a correct construction must show
{inspection}

## Student's plan and steps (text)
{plan}

## How to grade
Give three scores, each from 1 to 5:
- step_accuracy: does each drawn step construct correctly what that step sets out to \
construct (right objects, right positions, right relations such as perpendicular, \
parallel, equal lengths, tangency)?
- process_consistency: do the steps build on one another coherently: objects drawn \
earlier stay the same in later steps, each step uses what exists, and the order makes \
sense?
- problem_solution_accuracy: does the process as a whole solve the problem, ending in the \
required figure?

{scale}

Reply with exactly one JSON object and nothing else:
{{"step_accuracy": 4, "process_consistency": 4, "problem_solution_accuracy": 3, \
"reason": "<one or two sentences>"}}"""

_RESULT_PROMPT = """Grade the final figure of a student's geometric construction. The first \
attached image is the reference figure; the second is the student's final figure.

## Problem
{problem}

## What a correct construction must show
{inspection}

## How to grade
Compare the geometry, not the style: colours, line widths, label placement, the view's \
position and scale, and an overall rotation or reflection do not matter. What matters is \
whether the student's figure contains the required objects in the required relations \
(incidence, perpendicularity, parallelism, equal lengths or angles, tangency), as the \
reference does.

{scale}

Reply with exactly one JSON object and nothing else:
{{"score": 4, "reason": "<one or two sentences>"}}"""

_NONE = "(not given)"


def _reference_steps(target: dict[str, Any]) -> str:
    steps = target.get("steps") or []
    lines = []
    for number, step in enumerate(steps, 1):
        text = (step.get("text") or "").strip()
        code = (step.get("code") or "").strip()
        lines.append(f"Step {number}: {text}" + (f"\n```geogebra\n{code}\n```" if code else ""))
    return "\n".join(lines) or _NONE


def _common(target: dict[str, Any], plan: str) -> dict[str, str]:
    return {
        "problem": (target.get("problem") or _NONE).strip(),
        "reference": _reference_steps(target),
        "inspection": (target.get("inspection") or "").strip() or _NONE,
        "plan": plan.strip() or "(the student wrote no plan)",
        "scale": _SCALE,
    }


def _messages(text: str, images: list[Any]) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    content += [image_part(image) for image in images]
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": content}]


def text_judge_messages(target: dict[str, Any], plan: str) -> list[dict[str, Any]]:
    """VLM-T: the student's plan text against the reference steps."""
    return _messages(_TEXT_PROMPT.format(**_common(target, plan)), [])


def process_judge_messages(target: dict[str, Any], plan: str, long_image: bytes) -> list[dict[str, Any]]:
    """VLM-I-Mid: the student's step images, side by side, with the plan and the reference."""
    return _messages(_PROCESS_PROMPT.format(**_common(target, plan)), [long_image])


def result_judge_messages(target: dict[str, Any], reference_image: bytes, final_image: bytes) -> list[dict[str, Any]]:
    """VLM-I-Res: the student's final figure against the reference figure."""
    return _messages(_RESULT_PROMPT.format(**_common(target, "")), [reference_image, final_image])


# ------------------------------------------------------------------------- reading verdicts

PROCESS_CRITERIA = ("step_accuracy", "process_consistency", "problem_solution_accuracy")


def parse_score(text: str) -> dict[str, Any]:
    """VLM-T and VLM-I-Res verdicts: {"score": 1–5, "reason": ...}."""
    data = reply_object(text)
    if "score" not in data:
        raise ValueError('field "score" is missing')
    return {"score": likert(data["score"], "score"), "reason": str(data.get("reason", ""))[:500]}


def parse_process(text: str) -> dict[str, Any]:
    """The process verdict: the three 1–5 criteria and a reason."""
    data = reply_object(text)
    verdict: dict[str, Any] = {}
    for name in PROCESS_CRITERIA:
        if name not in data:
            raise ValueError(f'field "{name}" is missing')
        verdict[name] = likert(data[name], name)
    verdict["reason"] = str(data.get("reason", ""))[:500]
    return verdict

"""GeoLaux prompts, written for geomeval: numbered steps plus a JSON short answer.

The rubric judges each step on its own, so the prompt asks for one deduction per
step with its reason, and for a machine-readable final answer. As in the paper, the
prompt is one-shot (a worked example of geomeval's own, an original problem, in
because–therefore steps) and a calculation's short answer carries the value, also when
the problem has options.
"""

from __future__ import annotations

from typing import Any

from ...answers import parse_choices
from ...images import image_part
from ...prompts import PromptSet, Template
from .judging import JUDGE_TEMPLATES

# An original worked example (not from GeoLaux): the form the answer should take.
_EXAMPLE = """Example of the expected form (a different problem):
Problem: In right triangle PQR, ∠Q = 90°, PQ = 6 and QR = 8. M is the midpoint of PR. Find QM.
{{"steps": ["1. Because ∠Q = 90°, PR² = PQ² + QR² = 36 + 64 = 100 (Pythagorean theorem), \
therefore PR = 10.", "2. Because M is the midpoint of the hypotenuse PR, QM = PR / 2 (the median \
to the hypotenuse is half of it), therefore QM = 5."], "short_answer": "5"}}

"""

_CALCULATION = _EXAMPLE + """Solve the geometry problem below; its figure is attached.

Problem:
{problem}{options}{auxiliary}

Work in numbered steps. Each step makes one deduction, in the form "because …, therefore …", \
and names the fact, theorem or given that justifies it. When you have finished, reply with a \
single JSON object and nothing after it:
{{"steps": ["1. ...", "2. ..."], "short_answer": "..."}}
"short_answer" holds the final numeric value (or expression), without units{letter_hint}."""

_PROVING = _EXAMPLE + """Prove the statement asked for in the geometry problem below; its figure is attached.

Problem:
{problem}{options}{auxiliary}

Write the proof in numbered steps. Each step makes one deduction, in the form "because …, \
therefore …", and names the fact, theorem or given that justifies it. When you have finished, reply with a single JSON \
object and nothing after it:
{{"steps": ["1. ...", "2. ..."], "short_answer": "the statement you proved"}}"""

_AUXILIARY = "\n\nA helpful auxiliary construction: {text}{image_note}"

_SOLVER_FILLS = ("problem", "options", "auxiliary", "letter_hint")
TEMPLATES = (
    Template(
        "calculation", _CALCULATION, _SOLVER_FILLS, required=("problem",),
        implements="the paper's one-shot solver prompt for calculation problems: a worked example "
                   "(geomeval's own), because–therefore steps each with its justification, a short answer "
                   "that carries the numeric value (with the option letter when there are options)",
    ),
    Template(
        "proving", _PROVING, ("problem", "options", "auxiliary"), required=("problem",),
        implements="the same for proving problems: the proof in because–therefore steps, the statement proved "
                   "as the short answer",
    ),
    Template(
        "auxiliary", _AUXILIARY, ("text", "image_note"), required=("text",),
        implements="geolaux_aux: the auxiliary construction given to the solver (the paper's aux-line ablation)",
    ),
    *JUDGE_TEMPLATES,  # the step-level judge's (judging.py)
)


def build_messages(row: dict[str, Any], *, with_auxiliary: bool, prompts: PromptSet) -> list[dict[str, Any]]:
    options = parse_choices(row["choices"])
    options_text = (
        "\n\nOptions:\n" + "\n".join(f"{k}. {v}" for k, v in options.items()) if options else ""
    )
    auxiliary = ""
    aux_image = row.get("auxiliary_image") if with_auxiliary else None
    if with_auxiliary and row.get("auxiliary_text"):
        note = " (the second image shows it drawn)" if aux_image else ""
        auxiliary = prompts.render("auxiliary", text=row["auxiliary_text"], image_note=note)
    values = {"problem": row["problem_text"].strip(), "options": options_text, "auxiliary": auxiliary}
    if row["type"] == "proving":
        text = prompts.render("proving", **values)
    else:
        letter_hint = ('; for a multiple-choice problem, the option letter and then that value in parentheses, '
                       'e.g. "B (5)"' if options else "")
        text = prompts.render("calculation", **values, letter_hint=letter_hint)
    content: list[dict[str, Any]] = [{"type": "text", "text": text}, image_part(row["image"])]
    if aux_image and auxiliary:
        content.append(image_part(aux_image))
    return [{"role": "user", "content": content}]

"""GeoLaux prompts, written for geomeval: numbered steps plus a JSON short answer.

The rubric judges each step on its own, so the prompt asks for one deduction per
step with its reason, and for a machine-readable final answer.
"""

from __future__ import annotations

from typing import Any

from ...answers import parse_choices
from ...images import image_part

_CALCULATION = """Solve the geometry problem below; its figure is attached.

Problem:
{problem}{options}{auxiliary}

Work in numbered steps. Each step makes one deduction and names the fact, theorem or \
given that justifies it. When you have finished, reply with a single JSON object and \
nothing after it:
{{"steps": ["1. ...", "2. ..."], "short_answer": "..."}}
"short_answer" holds only the final value, without units{letter_hint}."""

_PROVING = """Prove the statement asked for in the geometry problem below; its figure is attached.

Problem:
{problem}{options}{auxiliary}

Write the proof in numbered steps. Each step makes one deduction and names the fact, \
theorem or given that justifies it. When you have finished, reply with a single JSON \
object and nothing after it:
{{"steps": ["1. ...", "2. ..."], "short_answer": "the statement you proved"}}"""

_AUXILIARY = "\n\nA helpful auxiliary construction: {text}{image_note}"


def build_messages(row: dict[str, Any], *, with_auxiliary: bool) -> list[dict[str, Any]]:
    options = parse_choices(row["choices"])
    options_text = (
        "\n\nOptions:\n" + "\n".join(f"{k}. {v}" for k, v in options.items()) if options else ""
    )
    auxiliary = ""
    aux_image = row.get("auxiliary_image") if with_auxiliary else None
    if with_auxiliary and row.get("auxiliary_text"):
        note = " (the second image shows it drawn)" if aux_image else ""
        auxiliary = _AUXILIARY.format(text=row["auxiliary_text"], image_note=note)
    template = _PROVING if row["type"] == "proving" else _CALCULATION
    text = template.format(
        problem=row["problem_text"].strip(),
        options=options_text,
        auxiliary=auxiliary,
        letter_hint="; for a multiple-choice problem, the option letter" if options else "",
    )
    content: list[dict[str, Any]] = [{"type": "text", "text": text}, image_part(row["image"])]
    if aux_image and auxiliary:
        content.append(image_part(aux_image))
    return [{"role": "user", "content": content}]

"""GeoLaux's step-level judge: segmenting a solution, the rubric prompts, and reading verdicts.

The rubric follows the paper: every student step is marked 1 or 0 *on its own*
(a step that correctly reasons from an earlier wrong result is still correct), and
the final answer gets its own 1/0. For solutions with a wrong step, a second
question classifies the first wrong step as a figure-comprehension, knowledge,
calculation or logical-reasoning error. Prompts are geomeval's own wording.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from ...answers import parse_choices
from ...judges import reply_object
from .process_metrics import ERROR_TYPES

MAX_STEPS = 64
MAX_STEP_CHARS = 4000
MAX_SCAN_CHARS = 200_000

# A numbered step opens a line: "Step 3:", "3.", "3)", "(3)", "第3步", "步骤3".
_STEP_OPENER = re.compile(
    r"^[ \t>*#-]{0,8}(?:\*\*)?(?:step[ \t]{0,3}(\d{1,3})|第[ \t]{0,2}(\d{1,3})[ \t]{0,2}步|步骤[ \t]{0,2}(\d{1,3})"
    r"|\(?(\d{1,3})[.)、:：](?!\d))",
    re.IGNORECASE | re.MULTILINE,
)
_LEADING_NUMBER = re.compile(r"^\s{0,8}(?:step\s{0,3}\d{1,3}\s{0,3}[:.：]?|\(?\d{1,3}[.)、:：](?!\d))\s{0,8}", re.IGNORECASE)


def segment_steps(response: str, json_steps: list[Any] | None) -> list[str]:
    """The numbered steps a solution gave: its JSON "steps", else its numbered lines, else paragraphs."""
    if json_steps:
        return [_trim(_LEADING_NUMBER.sub("", str(step), count=1)) for step in json_steps[:MAX_STEPS] if str(step).strip()]
    text = response[:MAX_SCAN_CHARS]
    numbered = _numbered_steps(text)
    if numbered:
        return numbered
    paragraphs = [p.strip() for p in re.split(r"\n[ \t]*\n", text) if p.strip()]
    return [_trim(p) for p in paragraphs[:MAX_STEPS]]


def _numbered_steps(text: str) -> list[str]:
    """Split at line-initial step numbers that count up from 1; [] when the text is not numbered so."""
    starts: list[int] = []
    expected = 1
    for match in _STEP_OPENER.finditer(text):
        number = int(next(g for g in match.groups() if g is not None))
        if number == expected:
            starts.append(match.start())
            expected += 1
            if len(starts) > MAX_STEPS:
                break
    if len(starts) < 2:
        return []
    bounds = [*starts[:MAX_STEPS], len(text)] if len(starts) <= MAX_STEPS else [*starts[:MAX_STEPS], starts[MAX_STEPS]]
    steps = []
    for begin, end in itertools.pairwise(bounds):
        chunk = _LEADING_NUMBER.sub("", text[begin:end].strip().lstrip(">*#- ").removeprefix("**"), count=1)
        steps.append(_trim(chunk))
    return steps


def _trim(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_STEP_CHARS else text[:MAX_STEP_CHARS] + " […]"


_SYSTEM = "You grade geometry solutions step by step, strictly and fairly. You reply with JSON only."

_STEP_PROMPT = """Grade a student's solution to a geometry problem, using the reference solution.

## Problem
{problem}{options}

## Reference
Answer: {answer}
Solution:
{solution}

## Student's solution ({count})
{steps}

Student's final answer: {final}

## How to grade
- Mark every student step 1 (correct) or 0 (wrong), judging each step on its own: a \
step is correct when what it states is true and follows validly from the facts it \
uses. If a step correctly works on a result that an earlier step got wrong, it is \
still correct; only the step that made the mistake is marked 0.
- A step is wrong when it misreads the figure or the givens, uses a false or \
misapplied theorem or formula, miscalculates, or asserts something that does not \
follow.
- The student may take a different route from the reference. A valid different route \
is correct; use the reference to check facts and values, not to demand its steps.
- final_answer_correct is 1 when the student's final answer agrees with the reference \
answer (equivalent forms, e.g. 2√3 and √12, count as agreeing; for a proof, when the \
student establishes the required conclusion), otherwise 0.

Reply with exactly one JSON object and nothing else, with one entry per student step, \
in order:
{{"steps": [{{"step": 1, "correct": 1, "reason": "<a short reason>"}}], "final_answer_correct": 1}}"""

_ERROR_PROMPT = """A student's solution to a geometry problem first goes wrong at step {index}. \
Classify the mistake made in that step.

## Problem
{problem}

## Reference solution
{solution}

## Student's solution
{steps}

The grader's note on step {index}: {reason}

## Categories
- figure_comprehension: misreads the figure or the given conditions (wrong points, \
lines, angles or relations taken from the diagram or the text).
- knowledge: uses a wrong or misremembered theorem, formula or definition, or applies \
one where its conditions do not hold.
- calculation: the method is right but arithmetic or algebra goes wrong.
- logical_reasoning: a conclusion that does not follow, an unjustified leap, circular \
reasoning or a missed case.

Reply with exactly one JSON object and nothing else:
{{"error_type": "<one of: figure_comprehension, knowledge, calculation, logical_reasoning>", \
"reason": "<a short reason>"}}"""


def _numbered(steps: list[str]) -> str:
    return "\n".join(f"Step {i}: {step}" for i, step in enumerate(steps, 1)) or "(no steps given)"


def step_judge_messages(target: dict[str, Any], problem: str, steps: list[str], final: str | None) -> list[dict[str, Any]]:
    options = parse_choices(target.get("choices") or [])
    answer = target.get("answer")
    unit = target.get("unit")
    if answer is None:
        answer_text = "a proof (see the reference solution for the conclusion)"
    else:
        answer_text = answer + (f" ({unit})" if unit else "")
    prompt = _STEP_PROMPT.format(
        problem=problem.strip(),
        options="\n\nOptions:\n" + "\n".join(f"{k}. {v}" for k, v in options.items()) if options else "",
        answer=answer_text,
        solution=(target.get("solution") or "").strip() or "(none given)",
        count=f"{len(steps)} numbered step{'s' if len(steps) != 1 else ''}" if steps else "no steps",
        steps=_numbered(steps),
        final=final if final else "(none stated)",
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": prompt}]


def error_type_messages(
    target: dict[str, Any], problem: str, steps: list[str], index: int, reason: str
) -> list[dict[str, Any]]:
    prompt = _ERROR_PROMPT.format(
        index=index,
        problem=problem.strip(),
        solution=(target.get("solution") or "").strip() or "(none given)",
        steps=_numbered(steps),
        reason=reason or "(none)",
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": prompt}]


def _binary(value: Any, where: str) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float) and value in (0, 1):
        return int(value)
    if isinstance(value, str) and value.strip().lower() in ("0", "1", "true", "false"):
        return 1 if value.strip().lower() in ("1", "true") else 0
    raise ValueError(f"{where} must be 0 or 1, got {str(value)[:40]!r}")


def parse_step_judgment(text: str, n_steps: int) -> dict[str, Any]:
    """The judge's marks, checked: one 0/1 per student step in order, plus the final answer."""
    data = reply_object(text)
    if "final_answer_correct" not in data:
        raise ValueError('field "final_answer_correct" is missing')
    final = _binary(data["final_answer_correct"], '"final_answer_correct"')
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list):
        raise ValueError('field "steps" must be a list')
    if len(raw_steps) != n_steps:
        raise ValueError(f'"steps" has {len(raw_steps)} entries but the student gave {n_steps} steps')
    marks, reasons = [], []
    for index, entry in enumerate(raw_steps, 1):
        if isinstance(entry, dict):
            if "step" in entry and str(entry["step"]).strip() != str(index):
                raise ValueError(f'entry {index} of "steps" is numbered {str(entry["step"])[:10]!r}')
            if "correct" not in entry:
                raise ValueError(f'entry {index} of "steps" has no "correct"')
            marks.append(_binary(entry["correct"], f'step {index} "correct"'))
            reasons.append(str(entry.get("reason", ""))[:500])
        else:
            marks.append(_binary(entry, f"step {index}"))
            reasons.append("")
    return {"marks": marks, "reasons": reasons, "final_answer_correct": final}


def parse_error_type(text: str) -> dict[str, str]:
    data = reply_object(text)
    value = str(data.get("error_type", "")).strip().lower().replace(" ", "_").replace("-", "_")
    if value not in ERROR_TYPES:
        raise ValueError(f'"error_type" must be one of {", ".join(ERROR_TYPES)}, got {value[:40]!r}')
    return {"error_type": value, "reason": str(data.get("reason", ""))[:500]}

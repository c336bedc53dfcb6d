"""GeoEval scoring: accuracy after two-step answer extraction, with the paper's breakdowns.

"A" is the accuracy over every item; "T" over the text-only items (those without a diagram),
not applicable to the others. The answer is extracted by the judge when the run has one, the
rules catching what it missed (`extraction`); offline, by the rules alone. A failed judge
request falls back to the rules and is recorded, never counted wrong. Correct means equal to
the gold value or naming the gold option, through the shared checker — not the official
scorer's one-sided `float(pred) - float(gold) < 1e-3`, which accepts every too-small answer.
"""

from __future__ import annotations

from typing import Any

from ...aggregate import summarize
from ...judges import Judge
from ...records import SampleRecord, Score, judged
from .complexity import question_length_bucket
from .extraction import extract, is_correct
from .features import COMPLEXITIES, PROBLEM_TYPES, SOURCES, SUBSETS

METRICS = ("A", "T")


async def score_record(record: SampleRecord, judge: Judge) -> dict[str, Score]:
    record.judgment = None
    if record.generation_error is not None or record.response is None:
        return failed_scores(record)
    target = record.target
    choices = target.get("choices") or None
    asked = not judge.offline and bool(record.response.strip())
    answer, method, judge_error = await extract(record.response, target["problem"], choices, None if judge.offline else judge)
    scores = answer_scores(record, answer, method, judge_error)
    return judged(scores, "fallback" if judge_error else "decided") if asked else scores


def answer_scores(record: SampleRecord, answer: str | None, method: str, judge_error: str | None = None) -> dict[str, Score]:
    """A and T of an answer already extracted from the record's response.

    Split from `score_record` so a caller that extracted the answer itself (the `evaluate`
    module's `extracted=True`) is judged by the very same check and explanation.
    """
    record.extracted = {"answer": answer, "method": method}
    record.judgment = {"judge_error": judge_error} if judge_error else None
    target = record.target
    verdict = is_correct(answer, target["answer"], target.get("choices") or None, target.get("gold_letter"))
    explanation = f"extracted {answer!r} ({method}); gold {target['answer']!r}; {verdict.rule}: {verdict.detail}"
    if judge_error:
        explanation += f"; the judge failed ({judge_error[:120]}), the rules decided"
    score = Score(1.0 if verdict else 0.0, explanation=explanation)
    text_only = not record.meta.get("has_diagram")
    return {"A": score, "T": score if text_only else _not_text_only()}


def failed_scores(record: SampleRecord) -> dict[str, Score]:
    """A failed or missing response: unscored with the reason, T still only for text-only items."""
    reason = f"model failed: {record.generation_error or 'no response'}"
    text_only = not record.meta.get("has_diagram")
    return {"A": Score.missing(reason), "T": Score.missing(reason) if text_only else _not_text_only()}


def _not_text_only() -> Score:
    return Score.inapplicable("the item has a diagram: T counts text-only items")


def aggregate(records: list[SampleRecord]) -> dict[str, Any]:
    return summarize(
        records,
        METRICS,
        groups={
            "subset": lambda r: r.task,
            "source": lambda r: r.meta.get("source"),
            "problem_type": lambda r: r.meta.get("problem_type"),
            "shape": lambda r: r.meta.get("shapes") or None,
            "complexity": lambda r: r.meta.get("complexity"),
            "question_length": lambda r: r.meta.get("length_bucket"),
            "description": lambda r: "with description" if r.meta.get("description_shown") else "without description",
        },
        group_order={
            "subset": list(SUBSETS),
            "source": list(SOURCES),
            "problem_type": list(PROBLEM_TYPES),
            "complexity": list(COMPLEXITIES),
            "question_length": ["<=20", "<=40", "<=60", "<=80", "<=100", ">100"],
            "description": ["with description", "without description"],
        },
    )


def length_bucket(row: dict[str, Any]) -> str:
    return question_length_bucket(int(row.get("question_length") or 0))

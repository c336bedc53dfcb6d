"""GeoEval scoring: accuracy after two-step answer extraction, with the paper's breakdowns.

"A" is the accuracy over every item; "T" over the text-only items (those without a diagram),
not applicable to the others. The answer is extracted by the judge when the run has one, the
rules catching what it missed (`extraction`); offline, by the rules alone. A failed judge
request falls back to the rules and is recorded, never counted wrong. Correct means equal to
the gold value or naming the gold option, through the shared checker — not the official
scorer's one-sided `float(pred) - float(gold) < 1e-3`, which accepts every too-small answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.records import KeptFields, SampleRecord, Score, judged
from ...engines.aggregate import Breakdown, summarize
from ...engines.judges import Judge
from ...engines.prompts import PromptSet
from ..base import model_failure
from .analyses import CONSTANT_ORDER, DESCRIPTION_LENGTHS, SUBJECTS
from .complexity import QUESTION_LENGTH_EDGES, question_length_bucket
from .extraction import extract, is_correct
from .features import COMPLEXITIES, PROBLEM_TYPES, SOURCES, SUBSETS

METRICS = ("A", "T")
QUESTION_LENGTHS = (*(f"<={edge}" for edge in QUESTION_LENGTH_EDGES), f">{QUESTION_LENGTH_EDGES[-1]}")
# The paper's Table 2: its column groups (one per subset) and the metrics each one reports.
PAPER_SUBSETS = {
    "geoeval_2000": "GeoEval-2000",
    "geoeval_backward": "GeoEval-backward",
    "geoeval_aug": "GeoEval-aug",
    "geoeval_hard": "GeoEval-hard",
}
TABLE2_COLUMNS = (("geoeval_2000", "A"), ("geoeval_2000", "T"), ("geoeval_backward", "A"),
                  ("geoeval_aug", "A"), ("geoeval_hard", "A"))


async def score_record(record: SampleRecord, judge: Judge, prompts: PromptSet) -> dict[str, Score]:
    """A and T of one record; `prompts` is the run's set (the extraction judge's among them)."""
    record.judgment = None
    assert record.response is not None  # the engine scores a record without one (Benchmark.model_failed)
    target = record.target
    choices = target.get("choices") or None
    asked = not judge.offline and bool(record.response.strip())
    answer, method, judge_error = await extract(record.response, target["problem"], choices,
                                                None if judge.offline else judge, prompts)
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
    if not verdict.decided:  # the checker's budget ran out: no verdict, never a wrong answer
        score = Score.missing(f"the answer checker is undecided: {explanation}")
    text_only = not record.meta.get("has_diagram")
    return {"A": score, "T": score if text_only else _not_text_only()}


def failed_scores(record: SampleRecord) -> dict[str, Score]:
    """A failed or missing response: unscored with the reason, T still only for text-only items."""
    reason = model_failure(record)
    text_only = not record.meta.get("has_diagram")
    return {"A": Score.missing(reason), "T": Score.missing(reason) if text_only else _not_text_only()}


def _not_text_only() -> Score:
    return Score.inapplicable("the item has a diagram: T counts text-only items")


# The paper's breakdowns (Figs. 2 and 3, Table 2) and the official description-length buckets.
BREAKDOWNS = (
    Breakdown("subset", key=lambda r: r.task, order=tuple(SUBSETS)),
    Breakdown("source", order=tuple(SOURCES)),
    Breakdown("problem_type", order=tuple(PROBLEM_TYPES)),
    Breakdown("subject", field="subjects", order=tuple(SUBJECTS)),
    Breakdown("external_constant", order=tuple(CONSTANT_ORDER)),
    Breakdown("complexity", order=tuple(COMPLEXITIES)),
    Breakdown("question_length", field="length_bucket", order=tuple(QUESTION_LENGTHS)),
    Breakdown("description_length", order=tuple(DESCRIPTION_LENGTHS)),
    Breakdown("description", key=lambda r: "with description" if r.meta.get("description_shown") else "without description",
              order=("with description", "without description")),
)
KEPT = KeptFields()  # `aggregate` reads only ids, meta and scores


def aggregate(records: Sequence[SampleRecord]) -> dict[str, Any]:
    """A and T, the paper's breakdowns (the analysis keys are `analyses`'), and the run as a
    row of the paper's Table 2."""
    summary = summarize(records, METRICS, breakdowns=BREAKDOWNS)
    summary["tables"] = [paper_table(summary)]
    return summary


def paper_table(summary: dict[str, Any]) -> dict[str, Any]:
    """The run as one row of the paper's Table 2, to paste beside the published rows: A and
    T on GeoEval-2000, A on each other subset; a subset the run did not pose stays empty."""
    subsets = summary["breakdowns"].get("subset", {})
    cells = [subsets.get(task, {}).get(metric, {}).get("value") for task, metric in TABLE2_COLUMNS]
    columns = [f"{PAPER_SUBSETS[task]} {metric} (%)" for task, metric in TABLE2_COLUMNS]
    return {"title": "GeoEval as in the paper's Table 2", "columns": ["model", *columns], "rows": [["this run", *cells]]}


def length_bucket(row: dict[str, Any]) -> str:
    return question_length_bucket(int(row.get("question_length") or 0))

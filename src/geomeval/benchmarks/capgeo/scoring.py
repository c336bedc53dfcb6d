"""CapGeo's second stage, scored: the reasoner's `<answer>` is read and checked by the shared
answer checker. A caption mode's item without a caption is unscored, never wrong, whatever the
response (`unposed_scores`: the scorer and `CapGeo.model_failed` both ask it), since lmms-eval
asks the model something for every row all the same.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...answers import check_answer, extract_final_answer
from ...core.records import KeptFields, SampleRecord, Score
from ...engines.aggregate import Breakdown, summarize
from .prompts import no_caption_reason

if TYPE_CHECKING:
    from ...engines.judges import Judge
    from ...engines.prompts import PromptSet

METRICS = ("accuracy",)


def unposed_scores(record: SampleRecord) -> dict[str, Score] | None:
    """Accuracy unscored with why when the item could not be posed (a caption mode's item
    without a caption), whether or not a placeholder was answered; None for a posed item."""
    mode = record.target.get("mode")
    if mode is not None and mode != "direct" and not record.target.get("caption"):
        return {"accuracy": Score.missing(no_caption_reason(record.target.get("caption_error")))}
    return None


async def score_record(record: SampleRecord, judge: Judge, prompts: PromptSet) -> dict[str, Score]:
    """Accuracy by the answer checker alone: no judge is asked and no prompt rendered (the
    arguments are the contract's, which every benchmark's scorer takes)."""
    unposed = unposed_scores(record)
    if unposed is not None:
        return unposed
    assert record.response is not None  # the engine scores a record without one (Benchmark.model_failed)
    choices = record.target.get("choices") or []
    letters = string.ascii_uppercase[: len(choices)] or None
    found = extract_final_answer(record.response, letters=letters)
    record.extracted = {"answer": found.answer, "method": found.method}
    verdict = check_answer(found.answer, record.target["answer"], choices=choices or None,
                           unit=record.target.get("unit"))
    if not verdict.decided:  # the checker's budget ran out: no verdict, never a wrong answer
        return {"accuracy": Score.missing(f"the answer checker is undecided on {found.answer!r}: {verdict.detail}")}
    return {"accuracy": Score(1.0 if verdict.equal else 0.0,
                              explanation=f"extracted {found.answer!r} ({found.method}); gold "
                              f"{record.target['answer']!r}; {verdict.rule}: {verdict.detail}")}


BREAKDOWNS = (Breakdown("question_type", order=("multi_choice", "free_form")), Breakdown("subject"))
KEPT = KeptFields()  # `aggregate` reads only ids, meta and scores


def aggregate(records: Sequence[SampleRecord]) -> dict[str, Any]:
    return summarize(records, METRICS, breakdowns=BREAKDOWNS)

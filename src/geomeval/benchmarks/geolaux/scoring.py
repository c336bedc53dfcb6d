"""GeoLaux scoring: ACS from the answer checker; PCS and PQS need a step-level judge.

ACS is the share of items whose final answer is right. Offline it is decided by
`geomeval.answers` wherever the item has a gold short answer; proving items have
none, so their ACS waits for a judge. Step-level metrics are never guessed: without
a judge they are unscored, with the reason recorded on every item.
"""

from __future__ import annotations

import string
from typing import Any

from ...aggregate import summarize
from ...answers import check_answer, extract_final_answer
from ...judges import Judge
from ...records import SampleRecord, Score
from .features import STEP_BUCKETS

METRICS = ("ACS", "PCS", "PQS")
MAX_STEPS = 64
NO_STEP_JUDGE = (
    "step-level judgment needs an LLM judge; the offline judge does not mark steps"
)
STEP_JUDGE_NOT_BUILT = "step-level judging with an LLM judge is not built yet (issue #3)"
PROOF_NEEDS_JUDGE = "proving item: no gold short answer, so its final answer needs an LLM judge"


def extract(record: SampleRecord) -> dict[str, Any]:
    letters = string.ascii_uppercase[: len(record.target.get("choices") or [])]
    found = extract_final_answer(record.response, letters=letters or None)
    steps: list[str] = []
    if found.data and isinstance(found.data.get("steps"), list):
        steps = [str(s) for s in found.data["steps"][:MAX_STEPS]]
    return {"answer": found.answer, "method": found.method, "steps": steps}


def score_record(record: SampleRecord, judge: Judge) -> dict[str, Score]:
    if record.generation_error is not None or record.response is None:
        reason = f"model failed: {record.generation_error or 'no response'}"
        return {m: Score.missing(reason) for m in METRICS}
    record.extracted = extract(record)
    gold = record.target.get("answer")
    if gold is None:
        acs = Score.missing(PROOF_NEEDS_JUDGE)
    else:
        verdict = check_answer(
            record.extracted["answer"],
            gold,
            choices=record.target.get("choices") or None,
            unit=record.target.get("unit"),
        )
        acs = Score(
            1.0 if verdict.equal else 0.0,
            explanation=(
                f"extracted {record.extracted['answer']!r} ({record.extracted['method']}); "
                f"gold {gold!r}; {verdict.rule}: {verdict.detail}"
            ),
        )
    step_reason = NO_STEP_JUDGE if judge.offline else STEP_JUDGE_NOT_BUILT
    return {"ACS": acs, "PCS": Score.missing(step_reason), "PQS": Score.missing(step_reason)}


def aggregate(records: list[SampleRecord]) -> dict[str, Any]:
    buckets = [f"{lo}-{hi}" for lo, hi in STEP_BUCKETS]
    return summarize(
        records,
        METRICS,
        groups={
            "type": lambda r: r.meta.get("type"),
            "step_bucket": lambda r: r.meta.get("step_bucket"),
            "auxiliary_type": lambda r: r.meta.get("auxiliary_type"),
            "language": lambda r: r.meta.get("language"),
        },
        group_order={
            "type": ["calculation", "proving"],
            "step_bucket": buckets,
            "auxiliary_type": ["none", "simple", "complex"],
        },
    )

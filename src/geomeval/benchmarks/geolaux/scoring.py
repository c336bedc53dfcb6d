"""GeoLaux scoring: ACS, PCS and PQS from a step-level judge; ACS alone offline.

With an LLM judge every item is judged step by step (see `judging`), and the per-item
metrics come from `process_metrics`. A judge failure leaves the item unscored with
the error; it is never a wrong answer. With the offline judge, ACS is decided by
`geomeval.answers` wherever the item has a gold short answer, and the step-level
metrics are reported as needing a judge.
"""

from __future__ import annotations

import string
from typing import Any

from ...aggregate import summarize
from ...answers import check_answer, extract_final_answer
from ...judges import Judge
from ...records import SampleRecord, Score, judged
from . import judging
from .features import STEP_BUCKETS
from .process_metrics import first_error_step, item_scores, summarize_process

METRICS = ("ACS", "PCS", "PQS")
NO_STEP_JUDGE = "step-level judgment needs an LLM judge (--judge openai:<model>)"
PROOF_NEEDS_JUDGE = "proving item: no gold short answer, so its final answer needs an LLM judge"


def extract(record: SampleRecord) -> dict[str, Any]:
    letters = string.ascii_uppercase[: len(record.target.get("choices") or [])]
    found = extract_final_answer(record.response, letters=letters or None)
    json_steps = found.data.get("steps") if found.data and isinstance(found.data.get("steps"), list) else None
    steps = judging.segment_steps(record.response or "", json_steps)
    return {"answer": found.answer, "method": found.method, "steps": steps}


def _checker_acs(record: SampleRecord) -> Score:
    gold = record.target.get("answer")
    if gold is None:
        return Score.missing(PROOF_NEEDS_JUDGE, needs_judge=True)
    answer = record.extracted["answer"] if record.extracted else None
    verdict = check_answer(answer, gold, choices=record.target.get("choices") or None, unit=record.target.get("unit"))
    method = record.extracted["method"] if record.extracted else "none"
    return Score(
        1.0 if verdict.equal else 0.0,
        explanation=f"extracted {answer!r} ({method}); gold {gold!r}; {verdict.rule}: {verdict.detail}",
    )


async def score_record(record: SampleRecord, judge: Judge) -> dict[str, Score]:
    record.judgment = None
    if record.generation_error is not None or record.response is None:
        reason = f"model failed: {record.generation_error or 'no response'}"
        return {m: Score.missing(reason) for m in METRICS}
    record.extracted = extract(record)
    if judge.offline:
        step = Score.missing(NO_STEP_JUDGE, needs_judge=True)
        return {"ACS": _checker_acs(record), "PCS": step, "PQS": step}

    steps: list[str] = record.extracted["steps"]
    if not record.response.strip():
        record.judgment = {"marks": [], "reasons": [], "final_answer_correct": 0, "note": "empty response"}
        return _scores_from(record.judgment, "empty response: no steps and no final answer")
    if record.extracted["answer"] is None:
        # As the official judge: a solution without a short answer is wrong, with no steps.
        record.judgment = {"marks": [], "reasons": [], "final_answer_correct": 0, "note": "no short answer"}
        return _scores_from(record.judgment, "no short answer: scored as wrong with no steps (ACS, PCS, PQS 0)")

    problem = record.target.get("problem") or "(problem text not saved in this run)"
    messages = judging.step_judge_messages(record.target, problem, steps, record.extracted["answer"])
    answer = await judge.ask(messages, lambda text: judging.parse_step_judgment(text, len(steps)))
    if answer.value is None:
        return {m: Score.judge_failed(answer.error or "judge failed") for m in METRICS}
    judgment: dict[str, Any] = {**answer.value, "repaired": answer.repaired}
    first = first_error_step(judgment["marks"])
    judgment["first_error_step"] = first
    if first is not None:
        classified = await judge.ask(
            judging.error_type_messages(record.target, problem, steps, first, judgment["reasons"][first - 1]),
            judging.parse_error_type,
        )
        if classified.value is not None:
            judgment["error_type"] = classified.value["error_type"]
            judgment["error_type_reason"] = classified.value["reason"]
        else:
            judgment["error_type"] = None
            judgment["error_type_error"] = classified.error
    record.judgment = judgment
    marks = "".join(str(m) for m in judgment["marks"]) or "none"
    return judged(_scores_from(judgment, f"step marks {marks}; final answer {judgment['final_answer_correct']}"))


def _scores_from(judgment: dict[str, Any], explanation: str) -> dict[str, Score]:
    values = item_scores(judgment["marks"], judgment["final_answer_correct"])
    return {metric: Score(values[metric], explanation=explanation) for metric in METRICS}


def _judged(records: list[SampleRecord]) -> list[SampleRecord]:
    return [r for r in records if r.judgment is not None and all(r.scores.get(m) and r.scores[m].scored for m in METRICS)]


def analysis(records: list[SampleRecord]) -> dict[str, Any] | None:
    """ΔPCS, the ACS−PCS gap by type, first-error steps and error types over judged items."""
    judged = _judged(records)
    if not judged:
        return None
    summary = summarize_process(
        [r.judgment["marks"] for r in judged],  # type: ignore[index]
        [r.judgment["final_answer_correct"] for r in judged],  # type: ignore[index]
        buckets=[r.meta.get("step_bucket") for r in judged],
        types=[r.meta.get("type") for r in judged],
        error_types=[r.judgment.get("error_type") for r in judged],  # type: ignore[union-attr]
    )
    needing = [r for r in judged if r.judgment.get("first_error_step") is not None]  # type: ignore[union-attr]
    failures = [r.judgment.get("error_type_error") for r in needing if r.judgment.get("error_type") is None]  # type: ignore[union-attr]
    summary["error_types"]["needed"] = len(needing)
    summary["error_types"]["coverage"] = (summary["error_types"]["classified"] / len(needing)) if needing else None
    summary["error_types"]["unclassified_reasons"] = sorted({str(f)[:200] for f in failures})[:5]
    return {
        "judged_items": len(judged),
        "delta_pcs": summary["delta_pcs"],
        "acs_pcs_gap_by_type": {k: v["ACS_minus_PCS"] for k, v in summary["by_type"].items()},
        "first_error_step": summary["first_error_step"],
        "error_types": summary["error_types"],
    }


def aggregate(records: list[SampleRecord]) -> dict[str, Any]:
    buckets = [f"{lo}-{hi}" for lo, hi in STEP_BUCKETS]
    summary = summarize(
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
    summary["analysis"] = analysis(records)
    return summary

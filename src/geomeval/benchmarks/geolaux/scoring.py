"""GeoLaux scoring: ACS, PCS and PQS from a step-level judge; ACS alone offline.

With an LLM judge every item is judged step by step (see `judging`), and the per-item
metrics come from `process_metrics`. As the paper's judge, it sees the problem's figure
(saved in the record, so rescoring needs no dataset) unless it is text-only
(GEOMEVAL_JUDGE_IMAGES=0). A judge failure, a refused figure included, leaves the item
unscored with the error; it is never a wrong answer. With the offline judge, ACS is decided
by `geomeval.answers` wherever the item has a gold short answer, and the step-level
metrics are reported as needing a judge.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ...answers import check_answer, extract_final_answer
from ...core.errors import EndpointFailure
from ...core.records import KeptFields, SampleRecord, Score, judged
from ...engines.aggregate import Breakdown, summarize
from ...engines.images import base64_image_part, base64_of, image_bytes
from ...engines.judges import Judge
from ...engines.prompts import PromptSet
from . import judging
from .analysis_tables import analysis_tables
from .features import STEP_BUCKETS
from .process_metrics import (
    delta_pcs,
    error_type_distribution,
    first_error_step,
    item_scores,
    summarize_process,
    wrong_step_error_distribution,
)

METRICS = ("ACS", "PCS", "PQS")
NO_STEP_JUDGE = "step-level judgment needs an LLM judge (--judge openai:<model>)"
PROOF_NEEDS_JUDGE = "proving item: no gold short answer, so its final answer needs an LLM judge"
# What the judge was shown, per item (judgment["judge_input"]).
WITH_FIGURE = "text and figure"
TEXT_ONLY = "text only (GEOMEVAL_JUDGE_IMAGES=0)"
NO_FIGURE_SAVED = "text only (the record has no figure: a run from before geomeval saved it)"
NOT_ASKED = "nothing (no steps or no short answer: scored 0 without asking)"
JUDGED_BEFORE = "text only (judged before geomeval showed the judge the figure)"  # no judge_input saved
# Added to a judge error that says the figure was refused (client.IMAGE_REFUSAL_HINT).
FIGURE_REFUSED = (
    "; GeoLaux's judge is shown the problem's figure, as the paper's is: use a vision judge, or set "
    "-J images=no (GEOMEVAL_JUDGE_IMAGES=0) to judge from the text alone (not the paper's setting; see the card)"
)


def figure_field(image: Any) -> str | None:
    """The problem's figure as the record keeps it for the judge: base64 of its bytes."""
    if image is None:
        return None
    return base64_of(image_bytes(image))  # encoded once: the prompt's figure is the same text


def judge_figure(record: SampleRecord, judge: Judge) -> tuple[judging.Figure, str]:
    """The figure to show the judge as an image part (None: text only) and the `judge_input`
    note saying so. The saved base64 is sent as it is, not decoded and encoded again."""
    if not judge.images:
        return None, TEXT_ONLY
    encoded = record.target.get("figure")
    if not encoded:
        return None, NO_FIGURE_SAVED
    try:
        return base64_image_part(encoded), WITH_FIGURE
    except (ValueError, TypeError):
        raise ValueError("the record's saved figure is not valid base64") from None


def _refused(error: str) -> str:
    from ...engines.client import IMAGE_REFUSAL_HINT

    return error + FIGURE_REFUSED if IMAGE_REFUSAL_HINT in error else error


def extract(record: SampleRecord) -> dict[str, Any]:
    letters = string.ascii_uppercase[: len(record.target.get("choices") or [])]
    found = extract_final_answer(record.response, letters=letters or None)
    data = found.data or {}
    json_steps = data.get("steps") if isinstance(data.get("steps"), list) else None
    solution = data.get("solution") if isinstance(data.get("solution"), str) else None
    # geomeval's own numbering (-T steps=geomeval): the JSON's steps, else its solution's lines.
    steps = judging.segment_steps(solution if solution and not json_steps else record.response or "", json_steps)
    return {"answer": found.answer, "method": found.method, "steps": steps}


def _checker_acs(record: SampleRecord) -> Score:
    gold = record.target.get("answer")
    if gold is None:
        return Score.missing(PROOF_NEEDS_JUDGE, needs_judge=True)
    answer = record.extracted["answer"] if record.extracted else None
    verdict = check_answer(answer, gold, choices=record.target.get("choices") or None, unit=record.target.get("unit"))
    method = record.extracted["method"] if record.extracted else "none"
    if not verdict.decided:  # the checker's budget ran out: no verdict, never a wrong answer
        return Score.missing(f"the answer checker is undecided on {answer!r}: {verdict.detail}")
    return Score(
        1.0 if verdict.equal else 0.0,
        explanation=f"extracted {answer!r} ({method}); gold {gold!r}; {verdict.rule}: {verdict.detail}",
    )


async def score_record(record: SampleRecord, judge: Judge, prompts: PromptSet, steps_by: str = "judge") -> dict[str, Score]:
    """All metrics of one record; `prompts` is the run's set (the judge's templates among them).
    `steps_by`: "judge" (the official judge reads the answer and decides its steps) or
    "geomeval" (geomeval numbers the steps and the judge marks each)."""
    record.judgment = None
    assert record.response is not None  # the engine scores a record without one (Benchmark.model_failed)
    record.extracted = extract(record)
    if judge.offline:
        step = Score.missing(NO_STEP_JUDGE, needs_judge=True)
        return {"ACS": _checker_acs(record), "PCS": step, "PQS": step}

    if not record.response.strip():
        record.judgment = {"marks": [], "reasons": [], "final_answer_correct": 0, "note": "empty response",
                           "judge_input": NOT_ASKED}
        return _scores_from(record.judgment, "empty response: no steps and no final answer")
    proving = record.meta.get("type") == "proving"
    if record.extracted["answer"] is None and not proving:
        # As the official calculation judge: a solution without a short answer is wrong, with no steps.
        # (The official proving judge has no such rule: a proof always goes to the judge.)
        record.judgment = {"marks": [], "reasons": [], "final_answer_correct": 0, "note": "no short answer",
                           "judge_input": NOT_ASKED}
        return _scores_from(record.judgment, "no short answer: scored as wrong with no steps (ACS, PCS, PQS 0)")

    problem = record.target.get("problem") or "(problem text not saved in this run)"
    figure, judge_input = judge_figure(record, judge)
    try:
        if steps_by == "geomeval":
            return await _judge_steps(record, judge, problem, record.extracted["steps"], figure, judge_input, prompts)
        return await _judge_official(record, judge, problem, figure, judge_input, prompts)
    except EndpointFailure as failure:  # the run stops; say what to do when it was the figure
        hinted = _refused(str(failure))
        if hinted == str(failure):
            raise
        raise EndpointFailure(hinted) from failure


async def _judge_official(
    record: SampleRecord, judge: Judge, problem: str, figure: judging.Figure, judge_input: str, prompts: PromptSet,
) -> dict[str, Score]:
    """The official judge: the answer as written in, the judge's own steps and marks out."""
    kind = "proving" if record.meta.get("type") == "proving" else "calculation"
    language = "en" if record.meta.get("language") == "en" else "zh"
    messages = judging.official_judge_messages(record.target, problem, record.response or "", kind, figure,
                                               language, prompts)
    answer = await judge.ask(messages, judging.parse_official_judgment)
    if answer.value is None:
        return {m: Score.judge_failed(_refused(answer.error or "judge failed")) for m in METRICS}
    judgment: dict[str, Any] = {**answer.value, "steps_by": "judge", "repaired": answer.repaired,
                                "judge_input": judge_input}
    await _classify_errors(judgment, judge, lambda marks: judging.official_error_messages(
        record.target, problem, record.response or "", marks, kind, figure, language, prompts),
        lambda text: judging.parse_official_error_types(text, judgment["marks"]))
    record.judgment = judgment
    marks = "".join(str(m) for m in judgment["marks"]) or "none"
    return judged(_scores_from(judgment, f"the judge's {len(judgment['marks'])} step marks {marks}; "
                                         f"final answer {judgment['final_answer_correct']}"))


async def _classify_errors(
    judgment: dict[str, Any], judge: Judge, messages: Callable[[list[int]], list[dict[str, Any]]],
    parse: Callable[[str], dict[str, Any]],
) -> None:
    """For a solution with a wrong step: the class of every wrong step, in `judgment`.
    `messages` builds the question from the marks; `parse` reads the reply."""
    first = first_error_step(judgment["marks"])
    judgment["first_error_step"] = first
    if first is None:
        return
    classified = await judge.ask(messages(judgment["marks"]), parse)
    if classified.value is not None and classified.value["types"] is None:  # the judge saw no solution
        judgment["error_type"] = None
        judgment["error_type_error"] = judging.NO_SOLUTION_TO_ANALYSE
    elif classified.value is not None:
        # One class per wrong step (the paper's pies); the first one's kept apart.
        judgment["step_error_types"] = classified.value["types"]
        judgment["step_error_reasons"] = classified.value["reasons"]
        judgment["error_type"] = classified.value["types"][0]
    else:
        judgment["error_type"] = None
        judgment["error_type_error"] = _refused(classified.error or "judge failed")


async def _judge_steps(
    record: SampleRecord, judge: Judge, problem: str, steps: list[str], figure: judging.Figure, judge_input: str,
    prompts: PromptSet,
) -> dict[str, Score]:
    messages = judging.step_judge_messages(record.target, problem, steps, record.extracted["answer"], figure,  # type: ignore[index]
                                           prompts)
    answer = await judge.ask(messages, lambda text: judging.parse_step_judgment(text, len(steps)))
    if answer.value is None:
        return {m: Score.judge_failed(_refused(answer.error or "judge failed")) for m in METRICS}
    judgment: dict[str, Any] = {**answer.value, "steps_by": "geomeval", "repaired": answer.repaired,
                                "judge_input": judge_input}
    wrong = judging.wrong_steps(judgment["marks"])
    await _classify_errors(judgment, judge, lambda marks: judging.error_type_messages(
        record.target, problem, steps, marks, figure, prompts), lambda text: judging.parse_error_types(text, wrong))
    record.judgment = judgment
    marks = "".join(str(m) for m in judgment["marks"]) or "none"
    return judged(_scores_from(judgment, f"step marks {marks}; final answer {judgment['final_answer_correct']}"))


def _scores_from(judgment: dict[str, Any], explanation: str) -> dict[str, Score]:
    values = item_scores(judgment["marks"], judgment["final_answer_correct"])
    return {metric: Score(values[metric], explanation=explanation) for metric in METRICS}


def _is_judged(record: SampleRecord) -> bool:
    return record.judgment is not None and all(record.scores.get(m) and record.scores[m].scored for m in METRICS)


FAILURES_SHOWN = 5


def analysis(records: Iterable[SampleRecord]) -> dict[str, Any] | None:
    """ΔPCS, the ACS−PCS gap by type, first-error steps, and error types over judged items:
    over every wrong step (the paper's) and, apart, over each solution's first wrong step.
    The records are walked once, keeping of each judged one only the marks and labels read."""
    marks: list[list[int]] = []
    finals: list[Any] = []
    buckets: list[Any] = []
    types: list[Any] = []
    step_types: list[Any] = []
    first_types: list[Any] = []
    failures: set[str] = set()  # the first few reasons (in sorted order) a first error went unclassified
    inputs: dict[str, int] = {}
    for record in records:
        if not _is_judged(record):
            continue
        judgment: dict[str, Any] = record.judgment  # type: ignore[assignment]
        marks.append(judgment["marks"])
        finals.append(judgment["final_answer_correct"])
        buckets.append(record.meta.get("step_bucket"))
        types.append(record.meta.get("type"))
        step_types.append(judgment.get("step_error_types"))
        if judgment.get("first_error_step") is not None:
            first_types.append(judgment.get("error_type"))
            if judgment.get("error_type") is None:
                failures.add(str(judgment.get("error_type_error"))[:200])
                if len(failures) > FAILURES_SHOWN:
                    failures.remove(max(failures))
        source = judgment.get("judge_input") or JUDGED_BEFORE
        inputs[source] = inputs.get(source, 0) + 1
    if not marks:
        return None
    summary = summarize_process(marks, finals, buckets=buckets, types=types)
    every = wrong_step_error_distribution(marks, step_types)
    every["coverage"] = every["classified"] / every["needed"] if every["needed"] else None
    every["unclassified_reasons"] = sorted(failures)
    first = error_type_distribution(first_types)
    first["needed"] = len(first_types)
    first["coverage"] = first["classified"] / len(first_types) if first_types else None
    return {
        "judged_items": len(marks),
        "judge_input": dict(sorted(inputs.items())),
        "delta_pcs": summary["delta_pcs"],
        "acs_pcs_gap_by_type": {k: v["ACS_minus_PCS"] for k, v in summary["by_type"].items()},
        "first_error_step": summary["first_error_step"],
        "error_types": every,
        "first_error_types": first,
    }


PAPER_COLUMNS = (
    "model", "kind",
    *(f"{metric} {bucket}" for bucket in (f"{lo}-{hi}" for lo, hi in STEP_BUCKETS) for metric in ("ACS", "PCS")),
    "ΔPCS (%)", "ACS", "PCS", "PQS",
)


def paper_table(summary: dict[str, Any]) -> dict[str, Any]:
    """This run as one row of the paper's main table, to paste beside its rows: ACS and PCS
    per reference step-length bucket, ΔPCS (the relative drop of PCS from 1–4 to 13–24
    steps, from this row's own PCS cells), then ACS, PCS and PQS over all items. Cells are
    shares that the report prints in percent; ΔPCS, already a percentage, is kept as its
    share (94.6 % as 0.946) so it prints as the paper's. The model and its kind (thinking or
    not) are the user's to fill in."""
    buckets = summary["breakdowns"].get("step_bucket", {})

    def cell(bucket: str, metric: str) -> float | None:
        return buckets[bucket][metric]["value"] if bucket in buckets and metric in buckets[bucket] else None

    names = [f"{lo}-{hi}" for lo, hi in STEP_BUCKETS]
    row: list[Any] = ["this run", None]
    for bucket in names:
        row += [cell(bucket, "ACS"), cell(bucket, "PCS")]
    drop = delta_pcs({bucket: cell(bucket, "PCS") for bucket in names})
    row.append(drop["value"] / 100 if drop else None)
    row += [summary["metrics"][m]["value"] for m in METRICS]
    return {"title": "GeoLaux as in the paper's main table (%)", "columns": list(PAPER_COLUMNS), "rows": [row]}
# The paper's breakdowns: by problem type, solution length, auxiliary line and language.
BREAKDOWNS = (
    Breakdown("type", order=("calculation", "proving")),
    Breakdown("step_bucket", order=tuple(f"{lo}-{hi}" for lo, hi in STEP_BUCKETS)),
    Breakdown("auxiliary_type", order=("none", "simple", "complex")),
    Breakdown("language"),
)


# The judgment keys `analysis` (and the resume check) read: the rest (the judge's reasons)
# stays in samples.jsonl, not in the copy a run keeps of every record.
KEPT = KeptFields(judgment=("marks", "final_answer_correct", "first_error_step", "error_type",
                            "error_type_error", "step_error_types", "judge_input"))


def aggregate(records: Sequence[SampleRecord]) -> dict[str, Any]:
    summary = summarize(records, METRICS, breakdowns=BREAKDOWNS)
    summary["analysis"] = analysis(records)
    summary["tables"] = [paper_table(summary), *analysis_tables(summary["analysis"])]
    return summary

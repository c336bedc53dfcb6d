"""ME2's scores over lists of responses and gold answers, for the `evaluate` modules
`metrics/me2_accuracy` (which only calls `evaluate_accuracy`) and `metrics/me2_explanation`
(which only calls `evaluate_explanations`).

Each (response, gold) pair becomes the `SampleRecord` `geomeval run me2` would write for the
task and is scored by the runner's own path (`engine.score_records_sync` →
`scoring.score_record`); means, coverage and breakdowns come from `aggregate.face_summary` /
`aggregate.summarize`. The face, the runner and the lmms-eval tasks therefore report the
same numbers for the same responses, and carry the runner's fixes of the official scripts:
a domain's score divides by that domain's own items, and a failed judgment is unscored.

As in the other faces, a response with no readable answer is *wrong* (the model was asked
for one), while a prediction of None (no response at all: the request failed) is
*unscored* and shows up in coverage rather than in accuracy.
"""

from __future__ import annotations

import numbers
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.records import SampleRecord
from ...engines.aggregate import Breakdown, face_summary, summarize
from ...engines.client import BackgroundLoop
from ...engines.engine import score_records_sync
from ...engines.faceinputs import check_columns, class_name, entry, gold_text
from ...engines.judges import Judge, judge_from_env
from ...engines.textmetrics import meteor_variant
from . import scoring
from .benchmark import ME2
from .features import DOMAINS, OPTION_LETTERS, OPTION_SOURCES, QUESTION_FORMATS

ACCURACY_TASKS = ("me2_solve", "me2_keypoints")
EXPLAIN_TASK = "me2_explain"
NO_RESPONSE = "model failed: no response"  # the runner's reason for a missing response
GIVEN = scoring.GIVEN  # the method of an answer the caller extracted (extracted=True)
NO_JUDGE_CONFIGURED = (
    "judge=True needs an LLM judge, and none is configured: set GEOMEVAL_JUDGE_MODEL to the "
    "judge model (with GEOMEVAL_JUDGE_BASE_URL and GEOMEVAL_JUDGE_API_KEY for its server), or "
    "leave judge=False"
)
NO_KEYPOINTS_JUDGE = (
    "judge=True: me2_keypoints has nothing for a judge to decide (the chosen letter is read by "
    "rules); leave judge=False"
)
NO_JUDGE_NOTE = (
    "Correctness, Fidelity and Referencing need an LLM judge: pass judge=True with "
    "GEOMEVAL_JUDGE_MODEL set; without one they are None with coverage 0"
)
JUDGE_MISSING_CONTEXT = "the judge was not shown {what}: pass {args} for the rubric as published"
NO_LETTER = "no letter"  # chosen_sources: a scored response that named no option


# --------------------------------------------------------------------------- public


def evaluate_accuracy(
    predictions: Sequence[str | None],
    references: Sequence[Any],
    *,
    task: str = "me2_solve",
    question_formats: Sequence[Any] | None = None,
    domains: Sequence[Any] | None = None,
    option_sources: Sequence[Sequence[Any] | None] | None = None,
    problems: Sequence[str | None] | None = None,
    extracted: bool = False,
    judge: bool = False,
    per_item: bool = False,
) -> dict[str, Any]:
    """ME2's problem-solving (`me2_solve`) or keypoint-identification (`me2_keypoints`)
    accuracy, as `geomeval run me2` scores it, with coverage and per-domain breakdowns.

    `predictions` are raw responses (or, with `extracted=True`, final answers or letters,
    checked as they stand, without extraction).
    `references` are gold answers: an option letter for a multiple-choice item and for every
    keypoint item (which also takes the dataset's ClassLabel index), else the value.
    `me2_solve` needs `question_formats`; `domains` adds the per-domain breakdown, each domain
    over its own items; `option_sources` (keypoints only) counts which kind of option was
    chosen; `judge=True` lets the judge GEOMEVAL_JUDGE_MODEL names decide short answers the
    rules find unequal, shown `problems`. Bad input is a ValueError naming item and field.
    """
    if task not in ACCURACY_TASKS:
        raise ValueError(f"task: expected one of {', '.join(ACCURACY_TASKS)}, got {task!r}")
    check_columns(
        predictions,
        references,
        question_formats=question_formats,
        domains=domains,
        option_sources=option_sources,
        problems=problems,
    )
    if task == "me2_solve" and question_formats is None:
        raise ValueError(
            "question_formats: me2_solve needs it (per item, multiple-choice or short-answer, "
            "or the ClassLabel index), since a letter and a value are checked differently"
        )
    if task == "me2_solve" and option_sources is not None:
        raise ValueError("option_sources: only me2_keypoints items have keypoint options")
    if task == "me2_keypoints" and judge:
        raise ValueError(NO_KEYPOINTS_JUDGE)
    records = [
        _accuracy_record(
            task,
            index,
            predictions[index],
            references[index],
            entry(question_formats, index),
            entry(domains, index),
            entry(option_sources, index),
            entry(problems, index),
        )
        for index in range(len(predictions))
    ]
    if extracted:
        for record in records:
            record.target["answer_given"] = True  # the scorer takes the answer as it stands
    engine = _judge(judge)  # last: a bad argument fails before any client is made
    _score(records, engine)
    groups = {"domain": DOMAINS} if domains is not None else {}
    if task == "me2_solve":
        groups["question_format"] = QUESTION_FORMATS
    results = _summary(records, (scoring.ACCURACY,), groups)
    results["task"] = task
    results["extraction"] = GIVEN if extracted else "rules"
    results["methods"] = dict(
        Counter((r.extracted or {}).get("method") or "no response" for r in records).most_common()
    )
    if judge:
        results["judge_failures"] = _judge_failures(records)
    if option_sources is not None:
        results["chosen_sources"] = _chosen(records)
        if domains is not None:
            results["chosen_sources_by_domain"] = {
                domain: _chosen([r for r in records if r.meta["domain"] == domain])
                for domain in DOMAINS
                if any(r.meta["domain"] == domain for r in records)
            }
    if per_item:
        results["per_item"] = [_accuracy_item(record) for record in records]
    return results


def evaluate_explanations(
    predictions: Sequence[str | None],
    references: Sequence[str],
    *,
    keypoints: Sequence[Sequence[Mapping[str, Any]] | None] | None = None,
    answers: Sequence[Any] | None = None,
    problems: Sequence[str | None] | None = None,
    domains: Sequence[Any] | None = None,
    judge: bool = False,
    per_item: bool = False,
) -> dict[str, Any]:
    """ME2's keypoint-based explanation scores (`me2_explain`), as `geomeval run me2` scores
    them: BLEU-2/4, ROUGE-L, METEOR and BERTScore against the teacher's explanation, offline,
    and, with `judge=True`, the judge's Correctness, Fidelity and Referencing (1–5 means and
    rescaled to [0, 1]).

    Metrics that cannot run (the judge ones without a judge, BERTScore without a local model)
    are None with coverage 0 and a note saying why, never 0. `answers` is what the official
    judge sees beside the two explanations (the judge here is asked as a default run asks it,
    `judge_prompt=paper`); `keypoints` and `problems` are checked and kept for geomeval's
    judge style; the reply is scored as it is, as the official code scores it
    (`explanation_text=raw`); `domains` adds the per-domain breakdown. Bad input is a
    ValueError naming item and field.
    """
    check_columns(
        predictions,
        references,
        keypoints=keypoints,
        answers=answers,
        problems=problems,
        domains=domains,
    )
    records = [
        _explain_record(
            index,
            predictions[index],
            references[index],
            entry(keypoints, index),
            entry(answers, index),
            entry(problems, index),
            entry(domains, index),
        )
        for index in range(len(predictions))
    ]
    engine = _judge(judge)
    _score(records, engine)
    bert_reason = scoring.bert_unavailable()
    computed = scoring.TEXT_METRICS + (() if bert_reason else scoring.BERT_METRICS)
    computed += scoring.JUDGE_METRICS if judge else ()
    results = _summary(records, computed, {"domain": DOMAINS} if domains is not None else {})
    notes: list[str] = [_meteor_note()]
    for name in scoring.BERT_METRICS if bert_reason else ():
        results[name] = None
        results["coverage"][name] = 0.0
    notes.append(f"BERTScore not computed: {bert_reason}" if bert_reason else _bert_note())
    if judge:
        results["judge_failures"] = _judge_failures(records)
        notes += _missing_context(answers)
    else:
        for name in scoring.JUDGE_METRICS:
            results[name] = None
            results["coverage"][name] = 0.0
        notes.append(NO_JUDGE_NOTE)
    results["notes"] = notes
    if per_item:
        results["per_item"] = [_explain_item(record, computed) for record in records]
    # The metrics first, text before judge, whichever of them could be computed.
    order = scoring.TEXT_METRICS + scoring.BERT_METRICS + scoring.JUDGE_METRICS
    return {name: results.pop(name) for name in order} | results


# --------------------------------------------------------------------------- input


def _letter(value: Any, index: int, what: str) -> str:
    """An option letter given as B, b, (B) or B., or (keypoint answers) as its ClassLabel
    index; evaluate hands numeric references over as floats, so 1.0 is index 1."""
    if (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool)
        and float(value).is_integer()
    ):
        if 0 <= int(float(value)) < len(OPTION_LETTERS):
            return OPTION_LETTERS[int(float(value))]
    elif isinstance(value, str):
        letter = value.strip().strip("().").strip().upper()
        if letter in OPTION_LETTERS:
            return letter
    raise ValueError(
        f"item {index}, references: {what} must be an option letter A-E, got {value!r}"
    )


def _text(value: Any, index: int, field: str, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"item {index}, {field}: expected {what} or None, got {value!r}")
    return value


def _answer(value: Any, index: int) -> str:
    """The gold answer the explanation judge is shown (text, a number, or None for none)."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str | numbers.Real):
        raise ValueError(
            f"item {index}, answers: expected the gold answer (text or a number) or None, got {value!r}"
        )
    return value if isinstance(value, str) else gold_text(value, index, "answers")


def _sources(value: Any, index: int, gold: str) -> list[str]:
    """The five options' provenance, A-E; the correct one must sit at the gold letter."""
    if value is None:
        return []
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 5:
        raise ValueError(
            f"item {index}, option_sources: expected the provenance of the five options A-E "
            f"({', '.join(OPTION_SOURCES)}) or None, got {value!r}"
        )
    names = [class_name(entry, index, "option_sources", OPTION_SOURCES) for entry in value]
    correct = [OPTION_LETTERS[i] for i, name in enumerate(names) if name == "correct"]
    if correct != [gold]:
        raise ValueError(
            f"item {index}, option_sources: the gold letter is {gold}, so option {gold} (and only "
            f"it) must be 'correct'; 'correct' is at {', '.join(correct) or 'no option'}"
        )
    return names


def _keypoints(value: Any, index: int) -> list[dict[str, str]]:
    """The keypoints as the judge's rubric lists them: {element, description} entries."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise ValueError(
            f"item {index}, keypoints: expected a list of {{element, description}} dicts or None, "
            f"got {value!r}"[:300]
        )
    points = []
    for position, point in enumerate(value):
        fields = (
            {key: point.get(key) for key in ("element", "description")}
            if isinstance(point, Mapping) and set(point) <= {"element", "description"}
            else None
        )
        if (
            fields is None
            or not all(v is None or isinstance(v, str) for v in fields.values())
            or not any(isinstance(v, str) and v.strip() for v in fields.values())
        ):
            raise ValueError(
                f"item {index}, keypoints: entry {position} must be a dict with a text 'element' "
                f"and/or 'description' (and no other key), got {point!r}"[:300]
            )
        points.append({key: v or "" for key, v in fields.items()})
    return points


def _meta(domain: Any, index: int) -> dict[str, Any]:
    return {"domain": None if domain is None else class_name(domain, index, "domains", DOMAINS)}


def _accuracy_record(
    task: str,
    index: int,
    prediction: str | None,
    reference: Any,
    question_format: Any,
    domain: Any,
    sources: Any,
    problem: Any,
) -> SampleRecord:
    """The record `ME2.new_record` makes for the task, with the prediction as the response."""
    meta = _meta(domain, index)
    fmt = (
        None
        if question_format is None
        else class_name(question_format, index, "question_formats", QUESTION_FORMATS)
    )
    meta["question_format"] = fmt
    target: dict[str, Any] = {
        "problem": _text(problem, index, "problems", "the question text"),
        "question_format": fmt,
    }
    if task == "me2_solve":
        target["answer"] = (
            _letter(reference, index, "a multiple-choice item's gold answer")
            if fmt == "multiple-choice"
            else gold_text(reference, index)
        )
    else:
        gold = _letter(reference, index, "a keypoint item's gold answer")
        target |= {
            "answer": "",
            "keypoint_answer": gold,
            "options": [],
            "option_sources": _sources(sources, index, gold),
        }
    return SampleRecord(
        id=str(index), benchmark=ME2.name, task=task, target=target, meta=meta, response=prediction
    )


def _explain_record(
    index: int,
    prediction: str | None,
    reference: Any,
    keypoints: Any,
    answer: Any,
    problem: Any,
    domain: Any,
) -> SampleRecord:
    if not isinstance(reference, str) or not reference.strip():
        raise ValueError(
            f"item {index}, references: expected the teacher's reference explanation (non-empty "
            f"text), got {reference!r}"[:300]
        )
    target = {
        "problem": _text(problem, index, "problems", "the question text"),
        "answer": _answer(answer, index),
        "question_format": None,
        "reference": reference,
        "keypoints": _keypoints(keypoints, index),
    }
    return SampleRecord(
        id=str(index),
        benchmark=ME2.name,
        task=EXPLAIN_TASK,
        target=target,
        meta=_meta(domain, index),
        response=prediction,
    )


# --------------------------------------------------------------------------- scoring


def _judge(wanted: bool) -> Judge:
    """The offline judge, or the configured LLM judge; refused rather than silently scoring
    without it, because the caller asked for the judge's decisions."""
    if not wanted:
        return Judge("offline")
    engine = judge_from_env()
    if engine.offline:
        raise ValueError(NO_JUDGE_CONFIGURED)
    return engine


def _score(records: list[SampleRecord], engine: Judge) -> None:
    try:
        score_records_sync(ME2(), records, engine)
    finally:
        if engine.client is not None:
            BackgroundLoop.shared().run(engine.aclose())


# --------------------------------------------------------------------------- results


def _summary(
    records: list[SampleRecord], metrics: Sequence[str], groups: Mapping[str, Sequence[str]]
) -> dict[str, Any]:
    means, coverage, _, unscored = face_summary(records, metrics)
    results: dict[str, Any] = dict(means)
    results |= {"n": len(records), "coverage": coverage, "unscored": unscored}
    if groups:
        breakdowns = [Breakdown(name, order=tuple(order)) for name, order in groups.items()]
        summary = summarize(records, metrics, breakdowns=breakdowns)
        results["breakdowns"] = summary["breakdowns"]
    return results


def _judge_failures(records: list[SampleRecord]) -> int:
    return sum(1 for r in records if (r.judgment or {}).get("judge_error"))


def _chosen(records: list[SampleRecord]) -> dict[str, int]:
    """How many responses chose each kind of option: which distractors mislead."""
    counts = Counter((r.extracted or {}).get("chosen_source") for r in records)
    result = {source: counts[source] for source in OPTION_SOURCES}
    result[NO_LETTER] = sum(
        1 for r in records if r.extracted is not None and r.extracted.get("answer") is None
    )
    return result


def _meteor_note() -> str:
    return f"METEOR: {meteor_variant()}"


def _bert_note() -> str:
    """Which model BERTScore ran with; the offline default's numbers are flagged as not
    comparable with the paper's (set GEOMEVAL_BERTSCORE_MODEL / _LAYER for another)."""
    scorer = scoring.bert_scorer()
    note = f"BERTScore with {scorer.label}"
    return f"{note}; {scoring.BERT_NOT_COMPARABLE}" if scorer.is_default_model else note


def _missing_context(answers: Sequence[Any] | None) -> list[str]:
    """A note when the judge could not be shown the answer, which the official judge sees
    beside the two explanations: its ratings are weaker without."""
    if answers is not None:
        return []
    return [JUDGE_MISSING_CONTEXT.format(what="the answer", args="answers")]


def _accuracy_item(record: SampleRecord) -> dict[str, Any]:
    score = record.scores[scoring.ACCURACY]
    extracted = record.extracted or {}
    judgment = record.judgment or {}
    item = {
        "extracted": extracted.get("answer"),
        "method": extracted.get("method"),
        "correct": None if not score.scored else score.value == 1.0,
        "explanation": score.explanation or score.unscored,
        "judge": judgment.get("answer"),
        "judge_error": judgment.get("judge_error"),
    }
    if record.task == "me2_keypoints":
        item["chosen_source"] = extracted.get("chosen_source")
    return item


def _explain_item(record: SampleRecord, metrics: Sequence[str]) -> dict[str, Any]:
    judgment = record.judgment or {}
    return {
        "explanation_chars": (record.extracted or {}).get("explanation_chars"),
        "judge": judgment.get("explanation"),
        "judge_error": judgment.get("judge_error"),
        "scores": {
            name: {
                "value": record.scores[name].value,
                "unscored": record.scores[name].unscored,
                "explanation": record.scores[name].explanation,
            }
            for name in metrics
            if name in record.scores
        },
    }

"""CapGeo-Bench scoring: keypoint recall, precision and F1 of a caption in three dimensions.

Two engines, one result shape. The offline engine (`geomeval.keypoints`) parses both captions
into canonical keypoints and matches them exactly: deterministic, always run. The judge engine
(`keypoint_judge`, an LLM) runs when the run has a judge; its metrics carry "(judge)". Per item
and dimension: recall = reference keypoints stated / reference keypoints (the published
score), precision = candidate keypoints supported / candidate keypoints, F1. Recall alone
rewards long captions that also state false things, so precision and F1 are reported beside
it. The headline is the paper's "Avg" (Table 4): the mean of the three dimensions' recall
scores, each a mean over items (GPT-o3: (63.4 + 56.1 + 26.0) / 3 = 48.5); with a judge the
judge engine's (the paper's protocol), else the offline engine's. In a dimension the reference has
no keypoint in, recall and F1 are not applicable for that item (nothing to recall), not 0 or 1;
precision is not applicable where the caption states nothing.
Means are over items (macro), overall, per class, per difficulty and per class and difficulty
(the paper's Table 4 layout).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from ...core.records import KeptFields, SampleRecord, Score, judged
from ...engines.aggregate import Breakdown, summarize
from ...engines.judges import Judge
from ...engines.prompts import PromptSet, default_set
from ...keypoints import score_captions
from . import keypoint_judge
from .features import CLASSES, DIFFICULTIES

DIMENSION_NAMES = {"element": "elements", "relation": "relations", "numerical": "numericals"}
MEASURES = ("recall", "precision", "F1")
JUDGE_SUFFIX = " (judge)"
OVERALL = ("keypoint recall", "keypoint precision", "keypoint F1")
AVG = "Avg"
AVG_EXPLAINED = "mean of the elements, relations and numericals recall (the paper's Table 4 Avg)"


def _names(suffix: str = "") -> tuple[str, ...]:
    per_dimension = tuple(f"{d} {m}" for d in DIMENSION_NAMES.values() for m in MEASURES)
    return tuple(name + suffix for name in OVERALL + per_dimension)


OFFLINE_METRICS = _names()
JUDGE_METRICS = _names(JUDGE_SUFFIX)
METRICS = OFFLINE_METRICS + JUDGE_METRICS
# What Avg and the choice of its engine are computed from: each engine's three dimension
# recalls and its overall recall (scored by the judge engine only when a judge ran). A
# caller that keeps only these per item (lmms-eval's Avg aggregation) gets `aggregate`'s Avg.
AVG_INPUTS = tuple(
    f"{name} recall{suffix}" for suffix in ("", JUDGE_SUFFIX) for name in ("keypoint", *DIMENSION_NAMES.values())
)
NO_JUDGE = "needs an LLM judge (--judge openai:<model>); the offline engine's scores are beside it"


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def _f1(recall: float | None, precision: float | None) -> float | None:
    if recall is None:
        return None
    if not precision or not recall:
        return 0.0
    return 2 * recall * precision / (recall + precision)


def scores_from_counts(counts: dict[str, dict[str, Any]], suffix: str, detail: str) -> dict[str, Score]:
    """Per-dimension and overall Scores from {dimension: {gt, pred, matched, supported}}."""
    scores: dict[str, Score] = {}
    recalls, precisions, f1s = [], [], []
    for dimension, label in DIMENSION_NAMES.items():
        c = counts[dimension]
        recall = _ratio(c["matched"], c["gt"])
        precision = _ratio(c["supported"], c["pred"])
        f1 = _f1(recall, precision)
        why = f"{c['matched']}/{c['gt']} reference keypoints stated, {c['supported']}/{c['pred']} candidate keypoints supported"
        for measure, value in zip(MEASURES, (recall, precision, f1), strict=True):
            name = f"{label} {measure}{suffix}"
            if value is None:
                no_reference = c["gt"] == 0
                reason = "the reference states no keypoint of this kind" if no_reference else "the caption states none"
                scores[name] = Score.inapplicable(reason)
            else:
                scores[name] = Score(value, explanation=why)
        if recall is not None:
            recalls.append(recall)
            f1s.append(f1 or 0.0)
        if precision is not None:  # a dimension the caption says nothing in has no precision
            precisions.append(precision)
    for name, values in zip(OVERALL, (recalls, precisions, f1s), strict=True):
        if values:
            scores[name + suffix] = Score(sum(values) / len(values), explanation=f"mean over {len(values)} dimension(s); {detail}")
        elif name == "keypoint precision":
            scores[name + suffix] = Score.inapplicable("the caption states no keypoint")
        else:
            scores[name + suffix] = Score.inapplicable("the reference caption states no keypoint")
    return scores


def offline_counts(candidate: str, reference: str, language: str) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    result = score_captions(candidate, reference, language)
    counts: dict[str, dict[str, Any]] = {}
    for dimension in DIMENSION_NAMES:
        s = result[dimension]
        counts[dimension] = {"gt": s.gt, "pred": s.pred, "matched": s.tp, "supported": s.tp_candidate}
    report = {
        dimension: {
            "missed": [str(k) for k in result[dimension].missed][:10],
            "extra": [str(k) for k in result[dimension].extra][:10],
        }
        for dimension in DIMENSION_NAMES
    }
    return counts, report


async def judge_counts(
    judge: Judge, candidate: str, reference: str, prompts: PromptSet | None = None
) -> tuple[dict[str, dict[str, Any]] | None, str | None]:
    """The judge engine's counts, or why there are none (a failed or unreadable judgment);
    `prompts` is the run's set (None: geomeval's default templates)."""
    prompts = prompts or default_set("capgeo_bench", keypoint_judge.TEMPLATES)
    cand, ref = await asyncio.gather(
        judge.ask(keypoint_judge.extraction_messages(candidate, prompts), keypoint_judge.parse_extraction),
        judge.ask(keypoint_judge.extraction_messages(reference, prompts), keypoint_judge.parse_extraction),
    )
    if ref.value is None:
        return None, f"reference keypoints: {ref.error}"
    if cand.value is None:
        return None, f"candidate keypoints: {cand.error}"
    matched = await judge.ask(
        keypoint_judge.matching_messages(cand.value, ref.value, prompts),  # type: ignore[arg-type]
        lambda text: keypoint_judge.parse_matching(text, cand.value, ref.value),  # type: ignore[arg-type]
    )
    if matched.value is None:
        return None, f"matching: {matched.error}"
    return keypoint_judge.counts(cand.value, ref.value, matched.value), None


async def score_record(record: SampleRecord, judge: Judge, prompts: PromptSet) -> dict[str, Score]:
    """Both engines' scores of one caption; `prompts` is the run's set (the keypoint judge's)."""
    record.judgment = None
    assert record.response is not None  # the engine scores a record without one (Benchmark.model_failed)
    reference = record.target["caption"]
    language = record.target.get("language", "en")
    caption = record.response.strip()
    counts, report = await asyncio.to_thread(offline_counts, caption, reference, language)
    scores = scores_from_counts(counts, "", "offline engine")
    record.extracted = {"offline": {"counts": counts, **report}}
    if judge.offline:
        scores.update({name: Score.missing(NO_JUDGE, needs_judge=True) for name in JUDGE_METRICS})
        return scores
    counts_judged, error = await judge_counts(judge, caption, reference, prompts)
    if counts_judged is None:
        scores.update({name: Score.judge_failed(error or "judge failed") for name in JUDGE_METRICS})
        record.judgment = {"error": error}
    else:
        scores.update(judged(scores_from_counts(counts_judged, JUDGE_SUFFIX, "judge engine")))
        record.judgment = {"counts": counts_judged}
    return scores


# Table 4's breakdowns: by geometry class, difficulty, and both.
BREAKDOWNS = (
    Breakdown("class", order=tuple(CLASSES)),
    Breakdown("difficulty", key=lambda r: str(r.meta.get("difficulty")), order=tuple(str(d) for d in DIFFICULTIES)),
    Breakdown("class_difficulty", key=lambda r: f"{r.meta.get('class')} · {r.meta.get('difficulty')}",
              order=tuple(f"{c} · {d}" for c in CLASSES for d in DIFFICULTIES)),
)
KEPT = KeptFields()  # `aggregate` reads only ids, meta and scores


def aggregate(records: Sequence[SampleRecord]) -> dict[str, Any]:
    summary = summarize(records, METRICS, breakdowns=BREAKDOWNS)
    for suffix in ("", JUDGE_SUFFIX):
        summary["metrics"][AVG + suffix] = avg_stats(summary["metrics"], suffix)
        for buckets in summary["breakdowns"].values():
            for per_metric in buckets.values():
                per_metric[AVG + suffix] = avg_stats(per_metric, suffix)
    with_judge = bool(summary["metrics"][f"keypoint recall{JUDGE_SUFFIX}"]["scored"])
    summary["headline"] = AVG + JUDGE_SUFFIX if with_judge else AVG
    summary["tables"] = [
        _table4(summary, suffix)
        for suffix in ("", JUDGE_SUFFIX)
        if summary["metrics"][f"keypoint recall{suffix}"]["scored"]
    ]
    return summary


def headline_avg(records: list[SampleRecord]) -> tuple[str, float | None]:
    """The run's headline as `aggregate` reports it: ("Avg (judge)", value) when a judge
    ran, else ("Avg", the offline engine's value); None when a dimension has no scored item."""
    summary = aggregate(records)
    name = summary["headline"]
    return name, summary["metrics"][name]["value"]


def avg(element: float, relation: float, numerical: float) -> float:
    """Table 4's Avg: the plain mean of the three dimension scores."""
    return (element + relation + numerical) / 3


def avg_stats(per_metric: dict[str, Any], suffix: str = "") -> dict[str, Any]:
    """Avg as a metric entry beside the others: derived from the three recall means, so it
    has a value only when all three have one; its coverage is the least covered dimension's,
    and coverage checks read the dimensions themselves."""
    parts = [per_metric[f"{label} recall{suffix}"] for label in DIMENSION_NAMES.values()]
    values = [p["value"] for p in parts]
    complete = all(v is not None for v in values)
    least = min(parts, key=lambda p: p["scored"])
    return {
        "value": avg(*values) if complete else None,
        "scored": least["scored"], "total": least["total"], "coverage": least["coverage"],
        "needs_judge": least.get("needs_judge", 0), "not_applicable": least.get("not_applicable", 0),
        "unscored_reasons": {} if complete else {"a dimension has no scored item": 1},
        "derived": AVG_EXPLAINED,
    }


TABLE4_CLASSES = {"analytic": "AG", "plane": "PG", "solid": "SG"}


def _table4(summary: dict[str, Any], suffix: str) -> dict[str, Any]:
    """The paper's Table 4 for this run: one row per dimension (Element, Relation, Numerical),
    recall by class (AG, PG, SG) and difficulty (T1–T4), overall, and Avg on the first row."""
    classes, difficulties = summary["breakdowns"]["class"], summary["breakdowns"]["difficulty"]
    rows = []
    for index, (dimension, label) in enumerate(DIMENSION_NAMES.items()):
        name = f"{label} recall{suffix}"
        row: list[Any] = [dimension.capitalize()]
        row += [classes[c][name]["value"] if c in classes else None for c in TABLE4_CLASSES]
        row += [difficulties[str(d)][name]["value"] if str(d) in difficulties else None for d in DIFFICULTIES]
        row += [summary["metrics"][name]["value"], summary["metrics"][AVG + suffix]["value"] if index == 0 else None]
        rows.append(row)
    engine = "judge engine" if suffix else "offline engine"
    return {
        "title": f"CapGeo-Bench as in the paper's Table 4 ({engine}; recall, %)",
        "columns": ["dimension", *TABLE4_CLASSES.values(), *(f"T{d}" for d in DIFFICULTIES), "Overall", "Avg"],
        "rows": rows,
    }

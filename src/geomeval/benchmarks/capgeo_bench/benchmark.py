"""CapGeo-Bench as a geomeval benchmark: a model captions figures; keypoints score the captions.

Tasks: `capgeo_bench` (English captions, scored against `caption_en`) and `capgeo_bench_zh`
(Chinese captions, scored against `caption_zh`, on the items that have one).

The defaults are the paper's prompts (Fig. 6's figure-only caption request) in geomeval's
words; `-T caption_prompt=dimensions` asks in geomeval's earlier wording, which lists the
three scored dimensions item by item (it changes what a captioner states, so its recall is not
Table 4's), and `-T keypoint_extraction=split` has the judge split compound statements into
one keypoint each (it changes the counts recall is taken over).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from ...core.records import SampleRecord, Score
from ...engines.prompts import PromptSet, Template
from ..base import Benchmark, Item
from ..capgeo.captioning import (
    FIGURE_TEMPLATES,
    FIGURE_TEMPLATES_DIMENSIONS,
    caption_messages,
    caption_messages_zh,
)
from ..contract import CardPart, DataPart, EvaluationPart, Parts, RawPart, ScoringPart
from ..lmms import LmmsBenchmark, metric_key, with_stderr
from ..options import about
from .hub import HUB
from .keypoint_judge import TEMPLATES as KEYPOINT_TEMPLATES
from .keypoint_judge import TEMPLATES_SPLIT as KEYPOINT_TEMPLATES_SPLIT

# CapGeo-Bench's prompt set at the defaults: the caption requests the model answers and the
# keypoint judge's.
TEMPLATES = (*FIGURE_TEMPLATES, *KEYPOINT_TEMPLATES)

CaptionPrompt = Literal["paper", "dimensions"]
KeypointExtraction = Literal["paper", "split"]


@dataclasses.dataclass(frozen=True)
class CapGeoBenchOptions:
    """CapGeo-Bench's run options (`-T caption_prompt=dimensions`)."""

    caption_prompt: CaptionPrompt = dataclasses.field(default="paper", metadata=about(
        "paper (Fig. 6: as much visual information as possible) or dimensions (geomeval's earlier "
        "request, listing elements, relations and numbers item by item; not Table 4's protocol)"))
    keypoint_extraction: KeypointExtraction = dataclasses.field(default="paper", metadata=about(
        "the judge engine's keypoint extraction: paper (Figs. 7-8, keypoints as the caption states them) or "
        "split (geomeval's earlier request: compounds such as AB = AC = 5 split into three; not Table 4's)"))


def templates_for(options: CapGeoBenchOptions) -> tuple[Template, ...]:
    """The prompt set's templates under `options`: the same names, the switch's texts."""
    figure = FIGURE_TEMPLATES_DIMENSIONS if options.caption_prompt == "dimensions" else FIGURE_TEMPLATES
    keypoints = KEYPOINT_TEMPLATES_SPLIT if options.keypoint_extraction == "split" else KEYPOINT_TEMPLATES
    return (*figure, *keypoints)


LMMS_AVG = "Avg"  # Table 4's headline; its lmms-eval key is the same
_SCORE_FIELDS = ("value", "unscored", "needs_judge", "not_applicable", "judge")
# `_scoring().METRICS`, spelled out so that declaring the lmms-eval tasks imports no scorer (a
# test checks they agree): the offline keypoint engine's always, the judge's " (judge)" ones
# when a judge is named (else unscored, needs_judge).
KEYPOINT_METRICS = tuple(
    f"{scope} {measure}"
    for scope in ("keypoint", "elements", "relations", "numericals")
    for measure in ("recall", "precision", "F1")
)


# The folder's parts (benchmarks/contract.py), each imported when first asked for.
def _scoring() -> ScoringPart:
    from . import scoring

    return scoring


def _data() -> DataPart:
    from . import data

    return data


def _card() -> CardPart:
    from . import card

    return card


def _evaluation() -> EvaluationPart:
    from . import faces

    return faces


def _raw() -> RawPart:
    from . import raw

    return raw


class CapGeoBench(Benchmark):
    name = "capgeo_bench"
    title = "CapGeo-Bench"
    hub = HUB
    parts = Parts(scoring=_scoring, data=_data, card=_card, evaluation=_evaluation, raw=_raw)
    tasks = ("capgeo_bench", "capgeo_bench_zh")
    # Only the English task in lmms-eval: capgeo_bench_zh scores the rows that have a Chinese
    # caption, a subset a task over the whole split cannot pose. Each item also carries the
    # scores Table 4's Avg is derived from, aggregated by `lmms_avg`.
    lmms = LmmsBenchmark(
        tasks=("capgeo_bench",),
        metrics=KEYPOINT_METRICS + tuple(f"{name} (judge)" for name in KEYPOINT_METRICS),
        summary=("Avg", "keypoint recall", "keypoint precision", "keypoint F1", "keypoint recall (judge)"),
        release_folders=("images",),
        folder="capgeo",
        derived=("Avg",),
        derive=lambda task, entries: lmms_avg_inputs(task, entries),
        aggregations=(("capgeo_bench_avg", with_stderr(lambda items: lmms_avg(items),
                                                        lambda items: lmms_avg_stderr(items))),),
    )
    headline = "Avg"  # Table 4's; "Avg (judge)" when a judge ran (see scoring.aggregate)
    prompt_templates: tuple[Template, ...] = TEMPLATES
    Options = CapGeoBenchOptions
    caption_prompt: str = "paper"
    keypoint_extraction: str = "paper"

    def configured(self, options: Any) -> CapGeoBench:
        """Set up as `options` say: a switch swaps its templates' default texts (a prompt
        file's replacements stay over them)."""
        clone = copy.copy(self)
        for field in dataclasses.fields(options):
            setattr(clone, field.name, getattr(options, field.name))
        clone.prompt_templates = templates_for(options)
        if self._prompt_set is not None:
            clone._prompt_set = PromptSet(self.name, {t.name: t for t in clone.prompt_templates},
                                          self._prompt_set.overrides, self._prompt_set.source)
        return clone

    @property
    def metrics(self) -> tuple[str, ...]:  # type: ignore[override]
        return _scoring().METRICS

    def data_status(self) -> str:
        sample = self.embedded()
        count = sum(1 for _ in (sample / "images").glob("*.png")) if sample.is_dir() else 0
        return f"embedded sample ({count} figures)"

    def load_items(self, data_arg: str | None, task: str, limit: int | None) -> Sequence[Item]:
        self.check_task(task)
        from ..datasource import LazyItems

        rows = _data().SOURCE.rows(data_arg)
        if task == "capgeo_bench_zh":  # only items with a Chinese reference to score against
            rows = rows.select([i for i, caption in enumerate(rows["caption_zh"]) if caption])
        if limit is not None:
            rows = rows.select(list(range(min(limit, len(rows)))))
        return LazyItems(rows, lambda row: Item(id=row["id"], fields=_data().SOURCE.named(row)))

    def messages(self, item: Item, task: str) -> list[dict[str, Any]]:
        if task == "capgeo_bench_zh":
            return caption_messages_zh(item.fields["image"], self.prompts)
        return caption_messages(item.fields["image"], "figure_only", prompts=self.prompts)

    def new_record(self, item: Item, task: str) -> SampleRecord:
        row = item.fields
        chinese = task == "capgeo_bench_zh"
        return SampleRecord(
            id=item.id,
            benchmark=self.name,
            task=task,
            target={"caption": row["caption_zh"] if chinese else row["caption_en"], "language": "zh" if chinese else "en"},
            meta={"class": row["geometry_class"], "difficulty": int(row["difficulty"]), "source": row["source"]},
        )


# ---------------------------------------------------------------------- inside lmms-eval


def lmms_avg_inputs(task: str, entries: Mapping[str, Any]) -> dict[str, Any]:
    """Under `Avg`, the item's scores Table 4's Avg is derived from (`AVG_INPUTS`): an
    lmms-eval aggregation sees one key's items only, and Avg is a mean of three
    per-dimension means, not a mean of per-item values."""
    from .scoring import AVG_INPUTS

    some = entries[metric_key(AVG_INPUTS[0])]
    inputs = {name: {k: entries[metric_key(name)][k] for k in _SCORE_FIELDS if k in entries[metric_key(name)]}
              for name in AVG_INPUTS}
    return {metric_key(LMMS_AVG): {"id": some["id"], "task": task, "metric": LMMS_AVG,
                                           "scores": inputs}}


def _avg_records(items: Sequence[Any]) -> list[SampleRecord]:
    return [
        SampleRecord(id=str(x.get("id")), benchmark="capgeo_bench", task="capgeo_bench", target={}, meta={},
                     scores={name: Score.from_dict(score) for name, score in (x.get("scores") or {}).items()})
        for x in items
        if isinstance(x, Mapping)
    ]


def lmms_avg_stderr(items: Sequence[Any]) -> float | str:
    """The standard error of `lmms_avg`, as the stderr of the mean of the per-item averages:
    each item's mean of its scored dimension recalls (of the engine Avg is read from), over
    the items with one; "N/A" under two such items."""
    import math
    import statistics

    from . import scoring

    records = _avg_records(items)
    name, _ = scoring.headline_avg(records)
    suffix = scoring.JUDGE_SUFFIX if name.endswith(scoring.JUDGE_SUFFIX) else ""
    averages = []
    for record in records:
        recalls = [score.value for label in scoring.DIMENSION_NAMES.values()
                   if (score := record.scores.get(f"{label} recall{suffix}")) is not None and score.value is not None]
        if recalls:
            averages.append(sum(recalls) / len(recalls))
    if len(averages) < 2:
        return "N/A"
    return statistics.stdev(averages) / math.sqrt(len(averages))


def lmms_avg(items: Sequence[Any]) -> float | None:
    """Table 4's Avg over the task, computed as `geomeval run capgeo_bench` computes it
    (`scoring.headline_avg`): the judge engine's when a judge ran, else the offline
    engine's; None (N/A) when a dimension has no scored item. The engine is logged."""
    from ..lmms import log_info
    from . import scoring

    records = _avg_records(items)
    name, value = scoring.headline_avg(records)
    engine = "the judge engine" if name.endswith(scoring.JUDGE_SUFFIX) else "the offline engine (no judge ran)"
    message = f"capgeo_bench Avg ({scoring.AVG_EXPLAINED}) over {len(records)} items: {value}, {engine}"
    log_info(message)
    return value

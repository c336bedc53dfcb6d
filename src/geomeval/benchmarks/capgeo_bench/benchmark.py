"""CapGeo-Bench as a geomeval benchmark: a model captions figures; keypoints score the captions.

Tasks: `capgeo_bench` (English captions, scored against `caption_en`) and `capgeo_bench_zh`
(Chinese captions, scored against `caption_zh`, on the items that have one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import UsageError
from ...lazy import lazy_import
from ...records import SampleRecord, Score
from ..base import Benchmark, Item
from ..capgeo.captioning import FIGURE_TEMPLATES, caption_messages, caption_messages_zh
from .keypoint_judge import TEMPLATES as KEYPOINT_TEMPLATES

if TYPE_CHECKING:
    from ...judges import Judge

data = lazy_import(f"{__package__}.data")
scoring = lazy_import(f"{__package__}.scoring")

# CapGeo-Bench's prompt set: the caption requests the model answers and the keypoint judge's.
TEMPLATES = (*FIGURE_TEMPLATES, *KEYPOINT_TEMPLATES)


class CapGeoBench(Benchmark):
    name = "capgeo_bench"
    title = "CapGeo-Bench"
    tasks = ("capgeo_bench", "capgeo_bench_zh")
    headline = "Avg"  # Table 4's; "Avg (judge)" when a judge ran (see scoring.aggregate)
    prompt_templates = TEMPLATES

    @property
    def metrics(self) -> tuple[str, ...]:  # type: ignore[override]
        return scoring.METRICS

    def data_status(self) -> str:
        sample = self.embedded()
        count = sum(1 for _ in (sample / "images").glob("*.png")) if sample.is_dir() else 0
        return f"embedded sample ({count} figures)"

    def load_items(self, data_arg: str | None, task: str, limit: int | None) -> list[Item]:
        if task not in self.tasks:
            raise UsageError(f"unknown CapGeo-Bench task {task!r}; tasks: {', '.join(self.tasks)}")
        dataset = data.undecoded(data.load(data_arg))
        items = []
        for row in dataset:
            if task == "capgeo_bench_zh" and not row["caption_zh"]:
                continue  # no Chinese reference to score against
            items.append(Item(id=row["id"], fields=data.SOURCE.named(row)))
        return items[:limit] if limit is not None else items

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

    async def score(self, record: SampleRecord, judge: Judge) -> dict[str, Score]:
        return await scoring.score_record(record, judge, self.prompts)

    def aggregate(self, records: list[SampleRecord]) -> dict[str, Any]:
        return scoring.aggregate(records)

    def build(self, raw: str, out: str, *, skip_invalid: bool = False, overwrite: bool = False) -> dict[str, Any]:
        return data.build(raw, out, skip_invalid=skip_invalid, overwrite=overwrite)

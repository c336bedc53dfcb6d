"""GeoLaux as a geomeval benchmark: tasks `geolaux` and `geolaux_aux`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ...core.records import SampleRecord, Score
from ..base import Benchmark, Item
from ..contract import CardPart, DataPart, EvaluationPart, Parts, RawPart, ScoringPart
from ..lmms import LmmsBenchmark
from ..options import about
from .features import step_bucket
from .hub import HUB
from .prompts import TEMPLATES, build_messages

if TYPE_CHECKING:
    from ...engines.judges import Judge


SHARED_SAMPLE_NAME = "geolaux_mini_sample"


def shared_data_dir() -> Path:
    """Where real data sits beside a checkout (`../shared/data`), or GEOMEVAL_SHARED_DATA."""
    return Path(os.environ.get("GEOMEVAL_SHARED_DATA") or Path.cwd().parent / "shared" / "data")


def _item(row: dict[str, Any]) -> Item:
    fields = _data().SOURCE.named(row)
    return Item(id=fields["id"], fields=fields, choices=tuple(fields["choices"] or ()))


StepsBy = Literal["judge", "geomeval"]


@dataclass(frozen=True)
class GeoLauxOptions:
    """GeoLaux's run options (`-T steps=geomeval`)."""

    steps: StepsBy = field(default="judge", metadata=about(
        "who decides a solution's steps: judge (the official judge reads the answer as written and "
        "decides and marks its steps, setting n in PCS and PQS) or geomeval (geomeval numbers the "
        "steps and its English rubric marks each; not the paper's)", named="steps"))


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
    from . import evaluation

    return evaluation


def _raw() -> RawPart:
    from . import raw

    return raw


class GeoLaux(Benchmark):
    name = "geolaux"
    title = "GeoLaux"
    hub = HUB
    parts = Parts(scoring=_scoring, data=_data, card=_card, evaluation=_evaluation, raw=_raw)
    tasks = ("geolaux", "geolaux_aux")
    lmms = LmmsBenchmark(
        tasks=("geolaux", "geolaux_aux"),
        metrics=("ACS", "PCS", "PQS"),
        summary=("ACS", "PCS", "PQS"),
        release_folders=("mini_original_images", "mini_auxiliary_images", "original_images", "auxiliary_images"),
    )
    headline = "ACS"
    prompt_templates = TEMPLATES
    judge_temperature = 0.1  # as the official scoring and error-analysis scripts ask
    generation_temperature = 0.1  # as the official answering script (closedsource_get_ans.py) asks
    generation_max_tokens = 8192
    Options = GeoLauxOptions
    steps: StepsBy = "judge"

    @property
    def metrics(self) -> tuple[str, ...]:  # type: ignore[override]
        return _scoring().METRICS
    compare_by = "auxiliary_type"  # the auxiliary-line ablation: geolaux vs geolaux_aux

    def data_status(self) -> str:
        sample = self.embedded()
        count = sum(1 for _ in (sample / "original_images").glob("*.png")) if sample.is_dir() else 0
        status = f"embedded sample ({count} figures)"
        shared = shared_data_dir() / SHARED_SAMPLE_NAME
        if shared.is_dir():
            status += f"; raw release at {shared.resolve()}"
        return status

    def load_items(self, data_arg: str | None, task: str, limit: int | None) -> Sequence[Item]:
        self.check_task(task)
        from ..datasource import LazyItems

        return LazyItems(_data().SOURCE.rows(data_arg, limit=limit), _item)

    def messages(self, item: Item, task: str) -> list[dict[str, Any]]:
        return build_messages(item.fields, with_auxiliary=task == "geolaux_aux", prompts=self.prompts)

    def new_record(self, item: Item, task: str) -> SampleRecord:
        from .scoring import figure_field

        row = item.fields
        return SampleRecord(
            id=item.id,
            benchmark=self.name,
            task=task,
            target={
                "problem": row["problem_text"],
                "answer": row["answer"],
                "choices": list(row["choices"]),
                "unit": row["unit"],
                "solution": row["solution"],
                "step_length": row["step_length"],
                # For the judge, which sees the figure as the paper's does (and for rescoring).
                "figure": figure_field(row.get("image")),
            },
            meta={
                "type": row["type"],
                "step_bucket": step_bucket(row["step_length"]),
                "auxiliary_type": row["auxiliary_type"],
                "language": row["language"],
            },
        )

    async def score(self, record: SampleRecord, judge: Judge) -> dict[str, Score]:
        from .scoring import score_record

        return await score_record(record, judge, self.prompts, self.steps)

    def finished(self, record: SampleRecord) -> bool:
        """As the base's, and a solution with a first wrong step whose error type the judge
        failed to give is asked again on resume (that question unscores no metric)."""
        judgment = record.judgment or {}
        if judgment.get("first_error_step") is not None and judgment.get("error_type") is None:
            return False
        return super().finished(record)

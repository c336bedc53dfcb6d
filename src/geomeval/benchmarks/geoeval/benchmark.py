"""GeoEval as a geomeval benchmark: four subsets as tasks, four input modes (`-T mode=`).

    geomeval run geoeval --task geoeval_2000 --model openai:MODEL -T mode=text_description_diagram

Items come from the subset's config of the built dataset (or the raw release, or the
embedded sample). Complexity is rated when the subset is built or read from the release,
over the whole subset (`raw.rate_complexity`); data without stored levels (a build older
than that) is rated over the items loaded, so there a `--limit` changes the levels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core.records import SampleRecord, Score
from ...engines.judges import Judge
from ..base import Benchmark, Item
from ..contract import CardPart, DataPart, EvaluationPart, Parts, ScoringPart
from ..lmms import LmmsBenchmark
from ..options import about
from .analyses import description_length, external_constant, subjects
from .complexity import measure, rate
from .features import SUBSETS
from .hub import HUB
from .judging import (
    EXTRACTION_STYLES,
    GEOMEVAL_JUDGE_TEMPERATURE,
    JUDGE_TEMPERATURE,
    ExtractionStyle,
)
from .prompts import (
    MODES,
    PROMPT_STYLES,
    TEMPLATES,
    Mode,
    PromptStyle,
    build_messages,
    problem_text,
    uses,
)


def _item(row: dict[str, Any]) -> Item:
    fields = _data().SOURCE.named(row)
    return Item(id=fields["id"], fields=fields, choices=tuple(fields["choices"] or ()))


def release_files(raw: Path) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """A raw release for lmms-eval's build cache fingerprint: the JSON of every subset it
    holds, and the image files where `raw.read_release` looks for diagrams (`raw.diagram_roots`:
    the image folders whole; image files directly beside the JSON)."""
    from .raw import DIAGRAM_SUFFIXES, diagram_roots, subset_file, subsets_in

    jsons = tuple(path for path in (subset_file(raw, name) for name in subsets_in(raw)) if path is not None)
    images: set[Path] = set()
    for json_path in jsons:
        here = json_path.parent
        for folder in diagram_roots(json_path):
            if folder == here:
                continue
            images.update(p for p in folder.rglob("*") if p.is_file())
        images.update(p for p in here.iterdir() if p.is_file() and p.suffix.lower() in DIAGRAM_SUFFIXES)
    return jsons, tuple(sorted(images))


@dataclass(frozen=True)
class GeoEvalOptions:
    """GeoEval's run options (`-T mode=text -T prompt_style=geomeval`)."""

    mode: Mode = field(default="text_description_diagram", metadata=about(
        "what the prompt shows besides the problem: the diagram description and/or the diagram "
        "(the paper's Table 3 ablation)", named="input mode"))
    prompt_style: PromptStyle = field(default="paper", metadata=about(
        "paper (Table 10: solve the problem, choices as a list, no answer format) or geomeval (lettered "
        "choices, a brief explanation and a last line 'Answer: ...')", named="prompt style"))
    extraction: ExtractionStyle = field(default="paper", metadata=about(
        "the judge's answer extraction: paper (Table 4: few-shot, plain-text reply, temperature 0.7 as the "
        "official extraction call) or geomeval (its own instructions, a JSON reply, temperature 0)",
        named="extraction"))


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


class GeoEval(Benchmark):
    name = "geoeval"
    title = "GeoEval"
    hub = HUB
    parts = Parts(scoring=_scoring, data=_data, card=_card, evaluation=_evaluation)
    tasks = SUBSETS
    # One built folder with a config per subset: each task reads its own; the group `geoeval`
    # runs all four. T applies to text-only items, so the scorer must see the diagram.
    lmms = LmmsBenchmark(
        tasks=SUBSETS,
        metrics=("A", "T"),
        summary=("A", "T"),
        scoring_columns=("diagram",),
        release_files=release_files,
        dataset_names=tuple((task, task) for task in SUBSETS),
        groups=("geoeval",),
    )
    headline = "A"
    prompt_templates = TEMPLATES
    Options = GeoEvalOptions

    @property
    def metrics(self) -> tuple[str, ...]:  # type: ignore[override]
        return _scoring().METRICS
    # The paper's Table 3 ablation: a run without descriptions against one with them, per
    # whether the release has a description for the item.
    compare_by = "has_description"

    # The official extraction call (tool/gpt_tool.py) samples at 0.7; the paper gives none.
    judge_temperature = JUDGE_TEMPERATURE

    def __init__(self, mode: str = MODES[0], prompt_style: str = PROMPT_STYLES[0],
                 extraction: str = EXTRACTION_STYLES[0]) -> None:
        uses(mode)  # a clear error for an unknown mode
        self.mode = mode
        self.prompt_style = prompt_style
        self.extraction = extraction

    def data_status(self) -> str:
        return "embedded sample (all four subsets)"

    def load_items(self, data_arg: str | None, task: str, limit: int | None) -> Sequence[Item]:
        self.check_task(task)
        from ..datasource import LazyItems

        source = _data().SOURCE.rows(data_arg, limit=limit, config=task)
        if all(level is not None for level in source["complexity"]):  # rated at build time: made as the run reaches them
            return LazyItems(source, _item)
        # A complexity is rated over the whole set loaded (the official tertiles), so a set with
        # an unrated problem is read whole first.
        rows = [_data().SOURCE.named(row) for row in source]
        levels = list(rate([measure(problem_text(r, task), r["diagram_description"], r["solution"]) for r in rows]))
        items = []
        for row, level in zip(rows, levels, strict=True):
            row["complexity"] = row["complexity"] or level
            items.append(Item(id=row["id"], fields=row, choices=tuple(row["choices"] or ())))
        return items

    def messages(self, item: Item, task: str) -> list[dict[str, Any]]:
        return build_messages(item.fields, task, self.mode, self.prompts, self.prompt_style)

    def new_record(self, item: Item, task: str) -> SampleRecord:
        from .scoring import length_bucket

        row = item.fields
        backward = task == "geoeval_backward"
        with_description, with_diagram = uses(self.mode)
        return SampleRecord(
            id=item.id,
            benchmark=self.name,
            task=task,
            target={
                "problem": problem_text(row, task),
                "choices": None if backward else row["choices"],
                "answer": row["backward_answer"] if backward else row["answer"],
                "mode": self.mode,
            },
            meta={
                # Backward and aug items keep their main item's id: variants of one source
                # problem, one cluster for the standard error wherever subsets are pooled.
                "cluster": row["id"],
                "source": row["source"],
                "problem_type": row["problem_type"],
                "shapes": list(row["geometry_shapes"] or []),
                # The paper's analyses (Figs. 2 and 3, and the official description-length
                # buckets): keys derived from the stored labels and solution (`analyses`).
                "subjects": subjects(row["formal_knowledge_points"], row["geometry_shapes"]),
                "external_constant": external_constant(row["source"], row["solution"]),
                "description_length": description_length(row["diagram_description"]),
                "complexity": row["complexity"],
                "length_bucket": length_bucket(row),
                # T is over the problems without a diagram in the data (the paper's "text-only
                # problems"), whatever the mode shows: in -T mode=text an item with a diagram
                # is still no text-only problem.
                "has_diagram": bool(row["diagram"]),
                "diagram_shown": bool(row["diagram"]) and with_diagram,
                "description_shown": bool(row["diagram_description"]) and with_description,
                "has_description": "described" if row["diagram_description"] else "not described",
            },
        )

    async def score(self, record: SampleRecord, judge: Judge) -> dict[str, Score]:
        """A and T, the answer extracted as `-T extraction` says (`judging.score_record`);
        geomeval's extraction asks its judge at temperature 0 unless the user pinned one."""
        from .judging import score_record

        if self.extraction == "geomeval":
            judge = judge.for_benchmark(GEOMEVAL_JUDGE_TEMPERATURE)
        return await score_record(record, judge, self.prompts, self.extraction)

    def model_failed(self, record: SampleRecord) -> dict[str, Score]:
        """A unscored with the reason; T too, or not applicable for an item with a diagram."""
        from .scoring import failed_scores

        return failed_scores(record)

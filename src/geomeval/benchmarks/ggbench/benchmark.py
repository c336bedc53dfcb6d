"""GGBench as a geomeval benchmark: tasks `ggbench_code` (LLMs) and `ggbench_image` (drawing models)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

from ...core.records import SampleRecord, Score
from ...engines.prompts import Template
from ..base import Benchmark, Item, model_failure
from ..contract import CardPart, DataPart, EvaluationPart, Parts, RawPart, ScoringPart
from ..lmms import LmmsBenchmark
from ..options import about
from .hub import HUB
from .prompts import PROMPT_STYLES, task_messages
from .raw import RELEASE_FILE

PixelReference = Literal["auto", "rendered", "release"]
Engine = Literal["geomeval", "jar"]
PromptStyle = Literal["paper", "geomeval"]  # prompts.PROMPT_STYLES
PIXEL_REFERENCES: tuple[str, ...] = get_args(PixelReference)
ENGINES: tuple[str, ...] = get_args(Engine)

if TYPE_CHECKING:
    from ...engines.judges import Judge


TRACKS = {"ggbench_code": "code", "ggbench_image": "image"}


@dataclass(frozen=True)
class GGBenchOptions:
    """GGBench's run options (`-T engine=jar`, `-T pixel_reference=release`, `-T prompt_style=geomeval`)."""

    pixel_reference: PixelReference = field(default="auto", metadata=about(
        "what PSNR/SSIM/LPIPS compare with: the reference script drawn alike (rendered), or the "
        "release's PNG (release); auto: release with engine=jar, as the paper, else rendered"))
    engine: Engine = field(default="geomeval", metadata=about(
        "who runs and draws the answer (Pass@1, the figure the pixel metrics read): geomeval's "
        "engine, or GeoGebra 4.0.34 itself (jar), as the paper's pipeline draws with GeoGebra"))
    prompt_style: PromptStyle = field(default="paper", metadata=about(
        "paper (Figs. 13-18's prompts and the official judges' numeral and 'Name: n' replies) or geomeval "
        "(its earlier wording: JSON verdicts with a reason, self-contained one-command-per-line blocks)"))


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


class GGBench(Benchmark):
    name = "ggbench"
    title = "GGBench"
    hub = HUB
    parts = Parts(scoring=_scoring, data=_data, card=_card, evaluation=_evaluation, raw=_raw)
    tasks = ("ggbench_code", "ggbench_image")
    # A plan plus one GeoGebra block per step: room beyond the usual 2,048 (the paper states no
    # limit). `geomeval run ggbench` and the lmms-eval task ask with the same (a test).
    generation_max_tokens = 4096
    # lmms-eval's generate_until returns text only, so the image track has no task there. Its
    # metrics are `scoring.CODE_TRACK_METRICS` without LPIPS, which needs torchvision, which
    # the lmms-eval install removes (constraints.txt): it would only ever show N/A there.
    lmms = LmmsBenchmark(
        tasks=("ggbench_code",),
        metrics=(
            "Pass@1", "verifier", "BLEU", "ROUGE-L", "chrF", "edit_distance", "RUBY", "PSNR", "SSIM",
            "VLM-T", "VLM-I-Mid", "VLM-I-Res", "VLM-I", "Step Accuracy", "Process Consistency",
            "Problem-Solution Accuracy",
            "VLM-T (0-100)", "VLM-I-Mid (0-100)", "VLM-I-Res (0-100)", "VLM-I (0-100)",
        ),
        summary=("Pass@1", "verifier", "chrF", "SSIM", "VLM-T", "VLM-I"),
        scoring_columns=("final_image",),
        release_folders=("Q&A_image", "long_image"),
    )
    headline = "VLM-I"
    Options = GGBenchOptions
    prompt_style = "paper"

    @property
    def prompt_templates(self) -> tuple[Template, ...]:  # type: ignore[override]
        """The paper's prompts (`prompts.TEMPLATES`), or under `-T prompt_style=geomeval` the same
        names in geomeval's earlier wording."""
        return PROMPT_STYLES[self.prompt_style]

    def __init__(self, pixel_reference: str = "auto", engine: str = "geomeval", prompt_style: str = "paper") -> None:
        if prompt_style not in PROMPT_STYLES:
            raise ValueError(f"ggbench prompt_style must be one of {', '.join(PROMPT_STYLES)}, not {prompt_style!r}")
        self.prompt_style = prompt_style
        if pixel_reference not in PIXEL_REFERENCES:
            raise ValueError(f"ggbench pixel_reference must be one of {', '.join(PIXEL_REFERENCES)}, "
                             f"not {pixel_reference!r}")
        if engine not in ENGINES:
            raise ValueError(f"ggbench engine must be one of {', '.join(ENGINES)}, not {engine!r}")
        # What PSNR/SSIM/LPIPS compare the answer's figure with: the reference script drawn by
        # the same engine in the same view ("rendered", like for like), or the release's PNG;
        # "auto" is the release's PNG when GeoGebra draws the answer (the paper's comparison).
        self.pixel_reference = pixel_reference
        # Who runs and draws the answer: geomeval's own engine, or GeoGebra 4.0.34 ("jar").
        self.engine = engine

    def configure(self, options: Mapping[str, Any]) -> Benchmark:
        """As any benchmark's; `engine=jar` also checks now that GeoGebra 4.0.34 can run."""
        bench = super().configure(options)
        if bench.options["engine"] == "jar":
            from ...geogebra.jar_scoring import check_available

            check_available()
        return bench

    async def aclose(self) -> None:
        if self.engine == "jar":
            from ...geogebra.jar_scoring import close_shared

            close_shared()

    @property
    def metrics(self) -> tuple[str, ...]:  # type: ignore[override]
        return _scoring().METRICS

    def task_metrics(self, task: str) -> tuple[str, ...]:
        """Its track's: the image track has no engine or code metrics."""
        from . import scoring

        return scoring.IMAGE_TRACK_METRICS if task == "ggbench_image" else scoring.CODE_TRACK_METRICS

    def data_status(self) -> str:
        release = self.embedded() / RELEASE_FILE
        count = len(json.loads(release.read_text(encoding="utf-8"))) if release.is_file() else 0
        return f"embedded sample ({count} problems)"

    def load_items(self, data_arg: str | None, task: str, limit: int | None) -> Sequence[Item]:
        self.check_task(task)
        from ..datasource import LazyItems

        # made as the run reaches them, so only a window of items and figures is held
        rows = _data().SOURCE.rows(data_arg, limit=limit)
        return LazyItems(rows, lambda row: Item(id=row["id"], fields=_data().SOURCE.named(row)))

    def messages(self, item: Item, task: str) -> list[dict[str, Any]]:
        return task_messages(item.fields, track=TRACKS[task], prompts=self.prompts)

    def new_record(self, item: Item, task: str) -> SampleRecord:
        from .scoring import reference_image_b64

        row = item.fields
        return SampleRecord(
            id=item.id,
            benchmark=self.name,
            task=task,
            target={
                "problem": row["problem"],
                "steps": [{"text": s["text"], "code": s["code"]} for s in row["steps"]],
                "reference_script": row["reference_script"],
                "inspection": row["inspection"],
                "final_image": reference_image_b64(row["final_image"]),
            },
            meta={
                "difficulty": row["difficulty"],
                "problem_type": row["problem_type"],
                "categories": list(row["categories"]),
            },
        )

    async def score(self, record: SampleRecord, judge: Judge) -> dict[str, Score]:
        from .scoring import score_record

        return await score_record(record, judge, self.prompts, self.pixel_reference, self.engine)

    def responded(self, record: SampleRecord) -> bool:
        """A reply or, on the image track, drawn images (a model may draw without text)."""
        return record.generation_error is None and (record.response is not None or record.images is not None)

    def model_failed(self, record: SampleRecord) -> dict[str, Score]:
        """The metrics of the record's track, unscored with the failure as the reason."""
        return {name: Score.missing(model_failure(record)) for name in self.task_metrics(record.task)}

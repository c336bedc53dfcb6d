"""CapGeo as a geomeval benchmark: caption the figure (once per captioner), then reason.

    geomeval run capgeo -T source=mathvista_geometry -T captioner=openai:CAPTIONER \\
        --model openai:REASONER -T mode=without_image

`source` picks the problems (and the caption prompt variant that suits them); `--data`
points at that source's public file (default: the embedded sample); `mode` is direct,
with_image or without_image. Captions are read from and written to the caption store, so a
grid of reasoners costs one caption pass per captioner.

GeoQA is evaluated, as in the paper, on a random 200 of its problems, drawn from
`-T sample_seed=N` (default 0) before `--limit`; `-T all_problems=true` keeps every problem. Either
way the choice goes into run.json's options, so resuming a folder with another seed (or the
whole source) is refused rather than mixing two subsets.

The captioning and reasoning prompts are the paper's (Fig. 6) in geomeval's words;
`-T prompt_style=geomeval` sends geomeval's earlier wording (the captioner is told what to
read off the figure and to keep the question as given, the reasoner what its answer holds),
whose captions are stored apart.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ...core.errors import EndpointFailure, UsageError
from ...core.records import SampleRecord, Score
from ...engines.hfdata import is_built_dataset
from ...engines.prompts import PromptSet, Template
from ..base import Benchmark, Item
from ..contract import CardPart, DataPart, EvaluationPart, Parts, ScoringPart
from ..lmms import LmmsBenchmark
from ..options import about
from .captioning import TEMPLATE_NAMES, caption_messages
from .captions_store import DEFAULT_FOLDER, CaptionStore
from .hub import HUB
from .prompts import PROMPT_STYLES, reasoning_messages
from .sources import SOURCES, apply_sampling, load_source, sampling

if TYPE_CHECKING:
    pass


DEFAULT_SOURCE = "mathvista_geometry"


Mode = Literal["direct", "with_image", "without_image"]  # prompts.MODES (a test checks they agree)
PromptStyle = Literal["paper", "geomeval"]  # prompts.PROMPT_STYLES


LMMS_PREFIX = "capgeo_reasoning_"  # the lmms-eval task of each mode: capgeo_reasoning_<mode>


@dataclasses.dataclass(frozen=True)
class CapGeoOptions:
    """CapGeo's run options (`-T source=geoqa -T mode=without_image`); the captioner, a model
    with its own endpoint, is `geomeval run -T captioner=SPEC` (`-T captioner_base_url=URL`)."""

    source: str = dataclasses.field(default=DEFAULT_SOURCE, metadata=about(
        f"{', '.join(SOURCES)}, or a folder built by `geomeval capgeo build`"))
    mode: Mode = dataclasses.field(default="direct", metadata=about(
        "direct (the figure), with_image (figure and caption) or without_image (the caption alone)"))
    captions: Path = dataclasses.field(default=DEFAULT_FOLDER, metadata=about("caption store folder"))
    sample_seed: int | None = dataclasses.field(default=None, metadata=about(
        "geoqa: seed of the paper's random 200 problems (default 0)"))
    all_problems: bool = dataclasses.field(default=False, metadata=about(
        "geoqa: every problem, not the paper's random 200"))
    prompt_style: PromptStyle = dataclasses.field(default="paper", metadata=about(
        "paper (Fig. 6's captioning and reasoning prompts) or geomeval (its earlier wording, which adds "
        "instructions the paper lacks: not Tables 2-3's protocol)"))


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


class CapGeo(Benchmark):
    name = "capgeo"
    title = "CapGeo"
    hub = HUB
    parts = Parts(scoring=_scoring, data=_data, card=_card, evaluation=_evaluation)
    tasks = ("capgeo_reasoning",)
    # One task per mode, reading the caption a built reasoning dataset carries (`geomeval capgeo
    # build`); the folder and its second template are shared with CapGeo-Bench.
    lmms = LmmsBenchmark(
        tasks=tuple(f"{LMMS_PREFIX}{mode}" for mode in ("direct", "with_image", "without_image")),
        metrics=("accuracy",),
        summary=("accuracy",),
        title="CapGeo reasoning",
        folder="capgeo",
        template="_reasoning_template_yaml",
        configure=lambda bench, task: bench.with_mode(task.removeprefix(LMMS_PREFIX)),
        run_options=lambda task, data: {"source": data, "mode": task.removeprefix(LMMS_PREFIX)},
        hash_whole_release=True,
        local_data="a folder `geomeval capgeo build --source SOURCE --data FILE --captions CAPTIONS.jsonl "
                   "--out PATH` wrote from a source's public file",
    )
    headline = "accuracy"
    Options = CapGeoOptions

    @property
    def prompt_templates(self) -> tuple[Template, ...]:  # type: ignore[override]
        """The captioner's and the reasoner's templates: the paper's (`TEMPLATES`), or under
        `-T prompt_style=geomeval` the same names in geomeval's earlier wording."""
        return PROMPT_STYLES[self.settings.prompt_style]

    @property
    def metrics(self) -> tuple[str, ...]:  # type: ignore[override]
        return _scoring().METRICS
    compare_by = "question_type"

    def __init__(self, settings: CapGeoOptions | None = None, captioner: Any = None) -> None:
        self.settings = settings or CapGeoOptions()
        self.captioner = captioner  # a geomeval Model; a caption mode over an official source needs one

    # --- options -------------------------------------------------------------------------

    def configure(self, options: Mapping[str, Any]) -> CapGeo:
        """Its options and the captioner (a model, given as "captioner"), checked together:
        a caption mode needs captions, a built source brings its own."""
        given = dict(options)
        captioner = given.pop("captioner", None)
        if isinstance(captioner, str):
            raise UsageError("give the captioner with -T captioner=MODEL (a model spec; its server with "
                             "-T captioner_base_url=URL)")
        settings = self.parse_options(given)
        if settings.source in SOURCES:
            sampling(settings.source, settings.sample_seed, settings.all_problems)  # refuses a needless switch
        elif settings.sample_seed is not None or settings.all_problems:
            raise UsageError("-T sample_seed/-T all_problems: a built -T source holds the problems it was built "
                             "with (give them to `geomeval capgeo build` as --sample-seed/--all-problems)")
        if settings.source not in SOURCES:
            # A folder written by `geomeval capgeo build`: its caption column supplies the captions.
            if not is_built_dataset(Path(settings.source).expanduser()):
                raise UsageError(
                    f"unknown -T source={settings.source!r}: use one of {', '.join(SOURCES)} or a folder "
                    "built by `geomeval capgeo build`"
                )
            if captioner is not None:
                raise UsageError("a built -T source supplies its own captions: leave out -T captioner")
            return self._with(settings)
        if settings.mode != "direct" and captioner is None:
            raise UsageError(
                f"-T mode={settings.mode} needs captions: give -T captioner=<model spec> (a vision model "
                "captions each figure once), or pass as -T source a folder built by `geomeval capgeo "
                "build` from captions you already have; then a text-only model reasons with "
                "-T mode=without_image and needs no vision model (README, 'Text-only models')"
            )
        return self._with(settings, captioner)

    def configured(self, options: Any) -> CapGeo:
        """Set up as `options` say, without a captioner (rescoring reads the records alone)."""
        return self._with(options)

    def _with(self, settings: CapGeoOptions, captioner: Any = None) -> CapGeo:
        """This benchmark with other settings (and captioner), rendering the same prompt set."""
        configured = CapGeo(settings, captioner)
        if self._prompt_set is not None:  # a prompt file's replacements over the style's defaults
            configured._prompt_set = PromptSet(self.name, {t.name: t for t in configured.prompt_templates},
                                               self._prompt_set.overrides, self._prompt_set.source)
        return configured

    @property
    def built_source(self) -> bool:
        return self.settings.source not in SOURCES

    def with_mode(self, mode: str) -> CapGeo:
        """This benchmark posing `mode`, for items whose rows already carry their captions
        (a built reasoning dataset, as lmms-eval's tasks read it): no captioner is needed."""
        return self._with(self.parse_options({**dataclasses.asdict(self.settings), "mode": mode}), self.captioner)

    @property
    def options(self) -> dict[str, Any]:
        if self.built_source:
            captioner = "the built dataset's caption column" if self.settings.mode != "direct" else None
            return {"source": str(Path(self.settings.source).resolve()), "mode": self.settings.mode, "captioner": captioner}
        captioner = self.captioner.spec if self.captioner is not None and self.settings.mode != "direct" else None
        options = {"source": self.settings.source, "mode": self.settings.mode, "captioner": captioner}
        drawn = self.sampling()
        if drawn is not None:  # only a subsampled source records it: others' run.json stay as they were
            options["subsample"] = drawn
        return options

    def sampling(self) -> dict[str, int] | str | None:
        """The source's subsample as run.json records it (`sources.sampling`)."""
        return sampling(self.settings.source, self.settings.sample_seed, self.settings.all_problems)

    def store(self) -> CaptionStore:
        """The captioner's store for this source. Captions asked with a replaced caption prompt
        are another store (the variant named with the prompt's hash), and so are captions asked
        in geomeval's earlier wording (`-T prompt_style=geomeval`, the variant's name with
        "-geomeval"): a run never reuses captions written for other wording."""
        source = SOURCES[self.settings.source]
        variant = source.variant
        name = TEMPLATE_NAMES[variant]
        if self.settings.prompt_style != "paper":
            variant = f"{variant}-{self.settings.prompt_style}"
        if name in self.prompts.overrides:
            digest = hashlib.sha256(self.prompts.overrides[name].encode("utf-8")).hexdigest()[:12]
            variant = f"{variant}-prompt-{digest}"
        return CaptionStore(self.settings.captions, self.captioner.spec, source.name, variant)

    # --- the benchmark contract ----------------------------------------------------------

    def data_status(self) -> str:
        return f"embedded samples ({', '.join(SOURCES)})"

    def load_items(self, data_arg: str | None, task: str, limit: int | None) -> Sequence[Item]:
        self.check_task(task)
        if self.built_source:
            if data_arg is not None:
                raise UsageError("a built -T source is the data: leave out --data")
            from ..datasource import LazyItems

            _data().locate(self.settings.source)  # a path that is not built says how to build it
            return LazyItems(_data().SOURCE.rows(self.settings.source, limit), _built_item)
        rows = apply_sampling(load_source(self.settings.source, data_arg), self.sampling())
        rows = rows[:limit] if limit is not None else rows
        return [Item(id=row["id"], fields=row, choices=tuple(row["choices"])) for row in rows]

    async def prepare(self, items: Sequence[Item], concurrency: int) -> None:
        """The caption pass: stored captions are reused; missing or failed ones are asked for."""
        if self.settings.mode == "direct" or self.built_source or not items:
            return
        from ...engines.engine import for_each

        store = self.store()
        stored = store.read()
        variant = SOURCES[self.settings.source].variant
        captioner = self.captioner

        async def caption(item: Item) -> None:
            entry = stored.get(item.id)
            if entry is None or entry.get("caption") is None:
                messages = caption_messages(item.fields["image"], variant, item.fields["question"],
                                            item.fields["choices"], self.prompts)
                try:
                    generation = await captioner.generate(item, messages)
                    text, error = generation.text, generation.error
                except EndpointFailure:  # the captioner's endpoint is unusable: stop the run
                    raise
                except Exception as exc:  # a captioner bug fails its item, not the run
                    text, error = None, f"{type(exc).__name__}: {exc}"
                if text is not None and not text.strip():
                    text, error = None, "the captioner returned an empty caption"
                store.append(item.id, text, error)
                entry = {"caption": text, "error": error}
            item.fields["caption"] = entry.get("caption")
            item.fields["caption_error"] = entry.get("error")

        await for_each(items, concurrency, caption)

    async def aclose(self) -> None:
        if self.captioner is not None:
            await self.captioner.aclose()

    def messages(self, item: Item, task: str) -> list[dict[str, Any]]:
        return reasoning_messages(item.fields, self.settings.mode, item.fields.get("caption"), self.prompts)

    def new_record(self, item: Item, task: str) -> SampleRecord:
        row = item.fields
        return SampleRecord(
            id=item.id,
            benchmark=self.name,
            task=task,
            target={
                "question": row["question"],
                "choices": list(row["choices"]),
                "answer": row["answer"],
                "unit": row.get("unit"),
                "mode": self.settings.mode,
                "caption": row.get("caption"),
                "caption_error": row.get("caption_error"),
            },
            meta={"source": row["source"], "question_type": row["question_type"], "subject": row.get("subject")},
        )

    def model_failed(self, record: SampleRecord) -> dict[str, Score]:
        """An item that could not be posed says so (its placeholder failed too); others as
        the base's."""
        from .scoring import unposed_scores

        return unposed_scores(record) or super().model_failed(record)

    def build(self, raw: str, out: str, *, skip_invalid: bool = False, overwrite: bool = False) -> dict[str, Any]:
        raise UsageError(
            "CapGeo reads its sources' public files directly: pass the file with --data and the source "
            "with -T source=SOURCE (`geomeval run capgeo`). To build its typed dataset with captions joined in (what its lmms-eval "
            "tasks read), use `geomeval capgeo build --source SOURCE --data FILE --captions FILE.jsonl --out DIR`"
        )


def _built_item(row: dict[str, Any]) -> Item:
    row = _built_row(row)
    return Item(id=row["id"], fields=row, choices=tuple(row["choices"]))


def _built_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row of a built reasoning dataset in the shape `load_source` gives, with its caption."""
    row = _data().SOURCE.named(row)
    row["choices"] = row.get("choices") or []
    if row.get("caption") is None:
        row.setdefault("caption_error", "the built dataset has no caption for this item")
    return row

"""The contract every benchmark implements."""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from importlib.resources import as_file, files
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..core.errors import UsageError
from ..core.records import KeptFields, SampleRecord, Score
from ..engines.aggregate import Breakdown
from ..engines.hub_terms import HubMetadata
from ..engines.prompts import PromptSet, Template, default_set
from .contract import Parts
from .lmms import LmmsBenchmark
from .options import NoOptions
from .options import parse as parse_options

if TYPE_CHECKING:
    from ..engines.judges import Judge


class DataError(ValueError):
    """Bad raw or built data; names the item and the field."""

    def __init__(self, item: str, field: str, message: str):
        super().__init__(f"item {item!r}, field {field!r}: {message}")
        self.item, self.field, self.message = item, field, message


class NotPosable(ValueError):
    """An item the benchmark cannot pose as it stands (CapGeo: a caption mode's item without
    a caption). `geomeval run` records it as a failed generation; lmms-eval, which asks the
    model something for every row, sends a placeholder. Either way the scorer leaves the
    item unscored, with the reason, never wrong."""


def model_failure(record: SampleRecord) -> str:
    """Why a record has no answer to score, as its unscored metrics say it."""
    return f"model failed: {record.generation_error or 'no response'}"


@dataclass(frozen=True)
class EvaluateFace:
    """A task's `evaluate` module (`metrics/<metric>`) as a run's records reach it: `inputs`
    turns the records into the module's `compute(...)` keywords, and for each metric in `equal`
    the module's result (its value and coverage) is the run's summary number. The `FACES` of
    the declaration's evaluation part (`parts.evaluation`) declare one per task; the contract
    test computes the module on a run's records and holds it to that."""

    metric: str
    inputs: Callable[[Sequence[SampleRecord]], dict[str, Any]]
    equal: tuple[str, ...]


@dataclass(frozen=True)
class NoEvaluateFace:
    """A task whose metrics no `evaluate` module computes from a run's records, and why (its
    module takes what only a live judge gives): declared, so that a missing face is a
    decision the folder states, never an oversight."""

    reason: str


def face_predictions(records: Sequence[SampleRecord]) -> list[str | None]:
    """The records' responses as the faces take them: None where the model gave none (a failed
    generation), which the faces leave unscored as the engine does."""
    return [r.response if r.generation_error is None else None for r in records]


@dataclass(frozen=True)
class Item:
    """One benchmark item as the runner sees it."""

    id: str
    fields: dict[str, Any]
    choices: tuple[str, ...] = ()


class Benchmark(ABC):
    name: str
    title: str
    tasks: tuple[str, ...]
    metrics: tuple[str, ...]
    splits: tuple[str, ...] = ("test",)
    # The metric results.json names as the run's headline: the report plots it, `geomeval
    # run` prints its breakdowns and leaderboards rank by it. None: the first metric. An
    # aggregate may name another per run (GGBench's VLM-I only when a judge scored it).
    headline: str | None = None
    # The breakdown key (a record's meta field) `geomeval compare` groups items by when not
    # told otherwise (GeoLaux's auxiliary type, for its auxiliary-line ablation). None: the
    # comparison is over all items only.
    compare_by: str | None = None
    # The run options (`geomeval run -T key=value`): a frozen dataclass, see options.py.
    Options: ClassVar[type[Any]] = NoOptions
    # Its lmms-eval tasks (shipped in lmms_tasks/<name>/), or None when it has none.
    lmms: ClassVar[LmmsBenchmark | None] = None
    # Its Hub dataset (id, license terms, citations: the folder's hub.py), or None.
    hub: ClassVar[HubMetadata | None] = None
    # Every prompt the benchmark sends, as a named template a prompt file may replace.
    prompt_templates: tuple[Template, ...] = ()
    # The temperature its LLM judge samples at: the official code's where it sets one (GeoLaux
    # 0.1), else 0. The engine asks the judge at it (`Judge.for_benchmark`) unless the user
    # pinned one for every benchmark (GEOMEVAL_JUDGE_TEMPERATURE, `--judge-temperature`).
    judge_temperature: ClassVar[float] = 0.0
    # The model's sampling temperature and completion token limit when the user gives neither
    # (`--temperature`, `--max-tokens`): the paper's or official code's where it sets them
    # (GeoLaux 0.1 and 8,192; ME2 1,024 tokens), else 0 and 2,048.
    generation_temperature: ClassVar[float] = 0.0
    generation_max_tokens: ClassVar[int] = 2048
    # Its folder's parts (scoring, data, card, evaluate faces, release reader), each reached
    # through a direct import made when first needed: see contract.py.
    parts: ClassVar[Parts]
    _prompt_set: PromptSet | None = None

    @property
    def prompts(self) -> PromptSet:
        """The templates this benchmark renders: a run's `--prompts` file over the defaults."""
        return self._prompt_set or default_set(self.name, self.prompt_templates)

    def with_prompts(self, prompt_set: PromptSet) -> Benchmark:
        """This benchmark (as configured) rendering `prompt_set`."""
        clone = copy.copy(self)
        clone._prompt_set = prompt_set
        return clone

    def task_metrics(self, task: str) -> tuple[str, ...]:
        """The metrics `task` scores, the one statement of them that the lmms-eval tasks read:
        by default all of `metrics`; a benchmark whose tasks score different ones (ME2's three,
        GGBench's two tracks) says which."""
        return self.metrics

    @property
    def default_task(self) -> str:
        return self.tasks[0]

    def check_task(self, task: str) -> None:
        """A UsageError naming the benchmark's tasks when `task` is none of them."""
        if task not in self.tasks:
            raise UsageError(f"{self.title} has no task {task!r}; its tasks: {', '.join(self.tasks)}")

    def embedded(self, folder: str = "sample") -> Path:
        """The folder of the benchmark's embedded files, found without importing its data
        module (and with it `datasets`), so `geomeval list` stays light."""
        package = type(self).__module__.rpartition(".")[0]
        with as_file(files(package).joinpath(folder)) as path:
            return Path(path)

    def configure(self, options: Mapping[str, Any]) -> Benchmark:
        """The benchmark set up with its run options (`-T key=value` strings, or typed values),
        parsed into its `Options`; one it does not declare is refused, naming it."""
        return self.configured(self.parse_options(options))

    def parse_options(self, options: Mapping[str, Any]) -> Any:
        """`options` as this benchmark's `Options` (None values count as not given)."""
        return parse_options(self.name, self.title, self.Options, options)

    def configured(self, options: Any) -> Benchmark:
        """This benchmark (with its prompt set) holding parsed `options`: each field becomes the
        attribute of the same name. A benchmark that keeps them otherwise overrides this."""
        clone = copy.copy(self)
        for field in fields(options):
            setattr(clone, field.name, getattr(options, field.name))
        return clone

    def from_options(self, options: dict[str, Any]) -> Benchmark:
        """The benchmark configured as a run recorded in run.json's "options", for rescoring:
        the recorded values of the declared fields (run.json may record more, e.g. ME2's
        BERTScore model), without the checks a new run's options get."""
        declared = {field.name for field in fields(self.Options)}
        return self.configured(self.parse_options({k: v for k, v in options.items() if k in declared}))

    @property
    def options(self) -> dict[str, Any]:
        """The run options that change answers, as plain values for run.json (resume checks):
        by default every declared field's value."""
        return {field.name: getattr(self, field.name) for field in fields(self.Options)}

    async def prepare(self, items: Sequence[Item], concurrency: int) -> None:  # noqa: B027 - optional hook
        """Work before generation (CapGeo's caption pass); the default has none."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Close what `prepare` opened."""

    @abstractmethod
    def data_status(self) -> str:
        """A one-line account of which data is available offline."""

    @abstractmethod
    def load_items(self, data: str | None, task: str, limit: int | None) -> Sequence[Item]:
        """Items from the embedded sample (data=None), a built or raw local path, or a hub id."""

    @abstractmethod
    def messages(self, item: Item, task: str) -> list[dict[str, Any]]:
        """The chat messages (OpenAI format, images as data URLs) that pose the item."""

    @abstractmethod
    def new_record(self, item: Item, task: str) -> SampleRecord:
        """A record holding the targets and breakdown keys, before any response."""

    async def score(self, record: SampleRecord, judge: Judge) -> dict[str, Score]:
        """Scores for one record with a response (the engine scores the others by
        `model_failed`); failures are unscored `Score`s, never zeros. The default is the
        `score_record(record, judge, prompts)` of its scoring part (`parts.scoring`).

        May set `record.extracted` and `record.judgment`; judge calls go through
        `judge.ask`, so they share the run's concurrency, cache and retries.
        """
        return await self.parts.scoring().score_record(record, judge, self.prompts)

    def responded(self, record: SampleRecord) -> bool:
        """Whether the model gave an answer to score: a reply without a generation error
        (GGBench's image track counts drawn images too). The engine hands only these to
        `score`."""
        return record.generation_error is None and record.response is not None

    def model_failed(self, record: SampleRecord) -> dict[str, Score]:
        """The scores of a record the model gave no answer for: every metric unscored with
        the failure as the reason, never a wrong answer. A benchmark whose tasks score
        different metrics, or that marks some not applicable, says so here."""
        reason = model_failure(record)
        return {name: Score.missing(reason) for name in self.metrics}

    def finished(self, record: SampleRecord) -> bool:
        """Whether a saved record needs no retry when the run resumes: generated, and every
        score set, waiting on a judge the run does not have, or not applicable. A benchmark
        with a judgment that can fail without unscoring a metric (GeoLaux's error-type
        question) asks again for it here."""
        if not self.responded(record):
            return False
        return all(s.scored or s.needs_judge or s.not_applicable for s in record.scores.values())

    def evaluate_face(self, task: str) -> EvaluateFace | NoEvaluateFace:
        """The task's `evaluate` module and how a run's records become its inputs, or why it has
        none: `FACES[task]` of the declaration's evaluation part (every task declares one or the
        other)."""
        faces = self.parts.evaluation().FACES
        if task not in faces:
            raise KeyError(f"{self.name}: its FACES (parts.evaluation) declare no evaluate face for task {task!r}")
        return faces[task]

    @property
    def breakdowns(self) -> tuple[Breakdown, ...]:
        """The breakdowns its results are reported by, in order (its scoring
        part's `BREAKDOWNS`: each with the record field it groups by and its groups' order)."""
        return tuple(self.parts.scoring().BREAKDOWNS)

    @property
    def kept_fields(self) -> KeptFields:
        """What its `aggregate` reads of a record beyond ids, meta, scores and flags (the
        scoring part's `KEPT`): a run keeps only that of each
        written record. tests/benchmarks/test_kept.py holds every benchmark × task to it, aggregating the
        kept copies and the records read back alike."""
        return self.parts.scoring().KEPT

    def kept(self, record: SampleRecord) -> SampleRecord:
        """The copy of a written record a run keeps for `aggregate`, `responded` and results.json
        (`SampleRecord.kept` with `kept_fields`): its memory, not the record's, is what a run
        holds per item."""
        return record.kept(self.kept_fields)

    def aggregate(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        """Metrics with coverage, and breakdowns, for `results.json`: its scoring
        part's `aggregate(records)`."""
        return self.parts.scoring().aggregate(records)

    def build(self, raw: str, out: str, *, skip_invalid: bool = False, overwrite: bool = False) -> dict[str, Any]:
        """Convert the official raw release into typed parquet shards plus a card: the
        data part's `build`."""
        return self.parts.data().build(raw, out, skip_invalid=skip_invalid, overwrite=overwrite)

"""A benchmark's lmms-eval tasks, declared in its own folder (`Benchmark.lmms`).

The shared machinery in `integrations/lmms_eval.py` reads these declarations from the
registry: which tasks the folder `lmms_tasks/<name>/` ships, what each reports, how a doc
becomes the item `geomeval run` poses, which raw release the cache fingerprint covers. This
module imports nothing heavy, so declaring tasks costs a benchmark module nothing.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Benchmark
    from .contract import DataPart, Parts, RawPart

TEMPLATE = "_default_template_yaml"


def metric_key(name: str) -> str:
    """The key lmms-eval reports a geomeval metric under: "@" -> "_at_", " (0-100)" ->
    "_0_100", any other run outside [A-Za-z0-9_] -> "_" (see integrations/lmms_eval.py)."""
    key = name.replace("@", "_at_").replace(" (0-100)", "_0_100")
    return re.sub(r"[^A-Za-z0-9_]+", "_", key).strip("_")


STDERR_ATTR = "geomeval_stderr"  # an aggregation's standard error: items -> float, or "N/A"


def with_stderr(aggregation: Callable[..., Any], stderr: Callable[[Sequence[Any]], Any]) -> Callable[..., Any]:
    """`aggregation`, carrying `stderr` (its items -> the value's standard error), which
    lmms-eval reports in the Stderr column (integrations/lmms/aggregations.py)."""
    setattr(aggregation, STDERR_ATTR, stderr)
    return aggregation


@dataclass(frozen=True)
class LmmsBenchmark:
    """What the shared machinery needs to know about one benchmark's lmms-eval tasks."""

    tasks: tuple[str, ...]
    metrics: tuple[str, ...]  # geomeval's names, as the scorer returns them
    summary: tuple[str, ...]  # printed after a run
    scoring_columns: tuple[str, ...] = ()  # image columns process_results needs
    release_folders: tuple[str, ...] = ()  # image folders of a raw release (cache fingerprint)
    folder: str = ""  # the task folder under lmms_tasks/; "" = name
    template: str = TEMPLATE  # the template its task YAMLs include (two benchmarks share capgeo/)
    # The registry's benchmark configured for one task (CapGeo: the task's mode); None = as is.
    configure: Callable[[Any, str], Any] | None = None
    # The raw data is small (CapGeo's embedded sources): the cache fingerprint hashes every
    # file under it whole, instead of a release JSON plus `release_folders`' file stats.
    hash_whole_release: bool = False
    # The raw release's (JSON files, image files) for the cache fingerprint, where the raw
    # module's `locate_release` (one JSON) and `release_folders` do not describe it (GeoEval:
    # one JSON per subset, diagrams in images/ or diagrams/ or loose beside them).
    release_files: Callable[[Path], tuple[tuple[Path, ...], tuple[Path, ...]]] | None = None
    # (task, Hugging Face config) for a dataset of several configs (GeoEval's subsets): the
    # task YAML's `dataset_name`. Empty: one default config.
    dataset_names: tuple[tuple[str, str], ...] = ()
    # lmms-eval groups shipped in the task folder (their YAML's `group:` names).
    groups: tuple[str, ...] = ()
    # Entries derived from an item's other entries (CapGeo-Bench's Avg inputs): their metric
    # names, and (task, the item's entries) -> {key: entry}.
    derived: tuple[str, ...] = ()
    derive: Callable[[str, Mapping[str, Any]], dict[str, Any]] | None = None
    # (task, the dataset folder it reads) -> the `geomeval run -T` options that pose the same
    # items the same way, where the task name alone does not say (CapGeo: the mode, and the
    # built folder as its -T source); None: `geomeval run <task> --data <folder>` does.
    run_options: Callable[[str, str], dict[str, Any]] | None = None
    # What PATH in GEOMEVAL_LMMS_DATA_<NAME>=PATH may be, as the missing-data fix says it;
    # "" = a raw release or a folder `geomeval build <name>` wrote (CapGeo's reasoning set is
    # built by its own command, captions joined in).
    local_data: str = ""
    # Aggregations of the benchmark's own, by the name its YAMLs give `!function utils.<name>`
    # (CapGeo-Bench's Avg), each carrying its standard error (`with_stderr`); the shared ones
    # (`aggregate_scored`, `coverage`, ...) need none.
    aggregations: tuple[tuple[str, Callable[[Sequence[Any]], Any]], ...] = ()
    # Filled from the registry (`integrations.lmms_eval.BENCHMARKS`): the benchmark's name
    # (and, unless `folder` says otherwise, its folder under lmms_tasks/), the title printed
    # after a run, and the Hub id its YAMLs read (the shipped `dataset_path`, the id `geomeval
    # publish` writes: hub_metadata).
    name: str = ""
    title: str = ""
    hub_dataset: str = ""
    # The registered benchmark itself, handed over with the names above: its parts and
    # per-task metrics are read from it, never looked up by name.
    owner: Benchmark | None = field(default=None, repr=False, compare=False)

    @property
    def task_folder(self) -> str:
        return self.folder or self.name

    def benchmark(self) -> Benchmark:
        """The registered benchmark these tasks belong to (`owner`, filled from the registry)."""
        if self.owner is None:
            raise LookupError(f"lmms-eval declaration {self.name or self.tasks!r} is not filled from the registry")
        return self.owner

    def parts(self) -> Parts:
        """The registered benchmark's declared parts (`Benchmark.parts`)."""
        return self.benchmark().parts

    def data(self) -> DataPart:
        """The benchmark's data part: its source (rows through the Features), build and locate."""
        return self.parts().data()

    def raw(self) -> RawPart:
        """The benchmark's release reader (`locate_release`), for the cache fingerprint; a
        benchmark whose fingerprint needs none (`hash_whole_release`, `release_files`) has none."""
        raw = self.parts().raw
        if raw is None:
            raise LookupError(f"{self.name} declares no release reader (parts.raw)")
        return raw()

    def features(self) -> Any:
        """The benchmark's typed `datasets.Features` (the built dataset's columns)."""
        return self.data().SOURCE.features

    def metrics_for(self, task: str | None) -> tuple[str, ...]:
        """The metrics `task` reports (its YAML's metric_list): those of `metrics` the
        benchmark's `task_metrics` declares for the task (ME2's differ per task); None: all."""
        if not task:
            return self.metrics
        bench = self.benchmark()
        scored = set(bench.task_metrics(task if task in bench.tasks else bench.default_task))
        return tuple(name for name in self.metrics if name in scored)

    def row(self, doc: Mapping[str, Any]) -> dict[str, Any]:
        """An lmms-eval doc as the fields `geomeval run` gives the item (its data source's
        `named`, from the Features); images the scorer keeps (GGBench's reference figure) as
        PNG bytes, since lmms-eval decodes every image to PIL."""
        from ..engines.images import image_bytes

        row = self.data().SOURCE.named(doc)
        for column in self.scoring_columns:
            image = row.get(column)
            if image is not None and not isinstance(image, dict):
                row[column] = {"bytes": image_bytes(image)}
        return row

    def dataset_name(self, task: str) -> str | None:
        """The config `task` reads (its YAML's `dataset_name`); None: the default one."""
        return dict(self.dataset_names).get(task)


def log_info(message: str) -> None:
    """A line in lmms-eval's own log (loguru), or this module's logger outside lmms-eval (a
    benchmark's aggregation logs what it computed from here)."""
    try:
        from loguru import logger

        logger.info(message)
    except ImportError:
        logging.getLogger(__name__).info(message)

"""What a benchmark's folder supplies, typed: the parts its declaration (`Benchmark.parts`)
reaches through direct imports, so that mypy checks every folder against one contract.

A benchmark's `benchmark.py` declares `parts = Parts(scoring=..., data=..., card=...,
evaluation=..., raw=...)`, each a function of no arguments that imports its module and returns
it (`from . import scoring; return scoring`): the import is one the import graph and mypy see,
made when first needed, so listing the benchmarks imports none of the heavy modules (datasets,
the keypoint grammars) that only building, running or scoring uses. A module is held to its
Protocol below: a missing name or a wrong signature is a mypy error in the declaration.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..core.records import KeptFields, SampleRecord, Score
    from ..engines.aggregate import Breakdown
    from ..engines.judges import Judge
    from ..engines.prompts import PromptSet
    from .base import EvaluateFace, NoEvaluateFace
    from .datasource import DataSource


class ScoringPart(Protocol):
    """Per-record scores and their summary."""

    @property
    def METRICS(self) -> tuple[str, ...]: ...

    @property
    def BREAKDOWNS(self) -> tuple[Breakdown, ...]: ...

    @property
    def KEPT(self) -> KeptFields: ...

    def score_record(self, record: SampleRecord, judge: Judge, prompts: PromptSet, /) -> Awaitable[dict[str, Score]]:
        """The scores of one record with a response (failures unscored, never zeros)."""
        ...

    def aggregate(self, records: Sequence[SampleRecord], /) -> dict[str, Any]:
        """Metrics with coverage, and breakdowns, for results.json."""
        ...


class DataPart(Protocol):
    """Where items come from: the data source (schema, rows) and the build."""

    @property
    def SOURCE(self) -> DataSource: ...

    def sample_path(self) -> Path: ...

    def build(self, raw: str, out: str, *, skip_invalid: bool = ..., overwrite: bool = ...) -> dict[str, Any]: ...

    def locate(self, data: str | None, /) -> tuple[str, Path | str]: ...


class RawPart(Protocol):
    """The official release on disk: its JSON file, and the folder(s) its images sit in."""

    def locate_release(self, raw: str | Path, /) -> Path | tuple[Path, Path | tuple[Path, ...]]: ...


class CardPart(Protocol):
    """The dataset card as the repository holds it (cards/<name>/README.md)."""

    def render_card(self) -> str: ...


class EvaluationPart(Protocol):
    """The `evaluate` face of every task (`EvaluateFace`, or `NoEvaluateFace` with why)."""

    @property
    def FACES(self) -> Mapping[str, EvaluateFace | NoEvaluateFace]: ...


@dataclass(frozen=True)
class Parts:
    """A benchmark's parts, each imported when first asked for. `raw` is needed only by a
    benchmark whose lmms-eval tasks fingerprint a release by its JSON and image folders."""

    scoring: Callable[[], ScoringPart]
    data: Callable[[], DataPart]
    card: Callable[[], CardPart]
    evaluation: Callable[[], EvaluationPart]
    raw: Callable[[], RawPart] | None = None

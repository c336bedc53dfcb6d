"""What a run writes per item: the sample record and its scores.

A `Score` with `value=None` is *unscored*: the judge or the model failed, or the
metric needs a judge that was not given. Aggregation skips unscored items and
reports coverage, so a failure is never counted as a wrong answer.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .jsontext import SPLICE_CHARS, dumps_pieces

FIGURES_DIR = "figures"
"""The folder beside samples.jsonl that holds the figures a record's target keeps (GeoLaux's
problem figure, for its judge), one file per figure named by its content's SHA-256; the line
holds {"figure_file": "figures/<name>"} in its place. Reading a record puts the base64 back,
so scoring sees the target as it was made."""
FIGURE_REF = "figure_file"
_IMAGE_KINDS = ((b"\x89PNG\r\n\x1a\n", "png"), (b"\xff\xd8\xff", "jpg"), (b"GIF8", "gif"), (b"RIFF", "webp"))
_FIGURE_NAME = re.compile(rf"{FIGURES_DIR}/[0-9a-f]{{64}}\.(png|jpg|gif|webp)")


def _figure_kind(value: str) -> str | None:
    """The file extension of an image `value` holds as base64, or None for any other text."""
    if len(value) < 64:  # a short text is never a figure
        return None
    try:
        head = base64.b64decode(value[:24], validate=True)
    except (binascii.Error, ValueError):
        return None
    return next((ext for magic, ext in _IMAGE_KINDS if head.startswith(magic)), None)


def figures_to_files(target: dict[str, Any], run_dir: Path) -> dict[str, Any]:
    """`target` with each base64 image replaced by a reference to its file in run_dir/figures/
    (written once, atomically; the same figure in two records is one file)."""
    out: dict[str, Any] | None = None
    for key, value in target.items():
        ext = _figure_kind(value) if isinstance(value, str) else None
        if ext is None:
            continue
        raw = base64.b64decode(value)
        file_name = f"{hashlib.sha256(raw).hexdigest()}.{ext}"
        name = f"{FIGURES_DIR}/{file_name}"
        # plain strings, not Path: pathlib interns every part, and a run's figures are as
        # many distinct names as items (interned strings and their table growing with N)
        folder = os.path.join(run_dir, FIGURES_DIR)
        path = os.path.join(folder, file_name)
        if not os.path.exists(path):
            os.makedirs(folder, exist_ok=True)
            temporary = os.path.join(folder, f".{file_name}.{os.getpid()}-{threading.get_ident()}")
            with open(temporary, "wb") as handle:
                handle.write(raw)
            os.replace(temporary, path)
        out = out if out is not None else dict(target)
        out[key] = {FIGURE_REF: name}
    return target if out is None else out


def figures_from_files(data: dict[str, Any], run_dir: Path) -> None:
    """Put back, in a samples.jsonl line's parsed `data`, the base64 of each figure its target
    references (`figures_to_files`); a RecordError naming the item and field when the
    reference is not a figures/ file name or the file is gone."""
    target = data.get("target")
    if not isinstance(target, dict):
        return
    for key, value in target.items():
        if not (isinstance(value, dict) and FIGURE_REF in value):
            continue
        item = str(data.get("id")) if data.get("id") is not None else None
        name = value[FIGURE_REF]
        if len(value) != 1 or not isinstance(name, str) or not _FIGURE_NAME.fullmatch(name):
            raise RecordError(item, f"target.{key}", f"{FIGURE_REF} must name a file in {FIGURES_DIR}/, got {name!r}")
        path = os.path.join(run_dir, name)  # a string: pathlib would intern the unique name
        try:
            with open(path, "rb") as handle:
                raw = handle.read()
        except OSError as exc:
            raise RecordError(item, f"target.{key}", f"its figure {path} cannot be read "
                                                     f"({type(exc).__name__}): keep {FIGURES_DIR}/ beside samples.jsonl") from None
        target[key] = base64.b64encode(raw).decode("ascii")


class RecordError(ValueError):
    """A samples.jsonl line whose field has the wrong type; names the item (when its id could
    be read) and the field."""

    def __init__(self, item: str | None, field: str, message: str):
        where = f"item {item!r}, " if item is not None else ""
        super().__init__(f"{where}field {field!r}: {message}")
        self.item, self.field, self.message = item, field, message


_NAMES = {str: "text", int: "a number", float: "a number", dict: "an object", list: "a list", bool: "true/false"}


def _kind(value: Any) -> str:
    return "null" if value is None else _NAMES.get(type(value), f"a {type(value).__name__}")


def _typed(item: str | None, data: dict[str, Any], name: str, kinds: tuple[type, ...], *, nullable: bool,
           default: Any = None, what: str = "") -> Any:
    """`data[name]` checked to be one of `kinds` (or null when `nullable`; `default` when absent)."""
    if name not in data:
        return default
    value = data[name]
    if value is None and nullable:
        return None
    if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
        expected = what or " or ".join(dict.fromkeys(_NAMES[kind] for kind in kinds))
        raise RecordError(item, name, f"expected {expected}{' or null' if nullable else ''}, got {_kind(value)}")
    return value


_SCALARS = (str, int, float, bool)


@dataclass(slots=True)
class Score:
    value: float | None
    explanation: str = ""
    unscored: str | None = None  # why there is no value
    # True when the value is missing only because the run has no LLM judge: a setting,
    # not a failure, so it does not count against --min-coverage.
    needs_judge: bool = False
    # True when the metric does not apply to this item (a caption score in a dimension the
    # reference has nothing in): not a failure either, so it is exempt from --min-coverage.
    not_applicable: bool = False
    # What an LLM judge did for this value: "decided" (its verdict is the score), "fallback"
    # (it failed and the rules decided) or "failed" (unscored); None when no judge was asked.
    judge: str | None = None

    @classmethod
    def judge_failed(cls, reason: str) -> Score:
        return cls(value=None, unscored=reason, judge="failed")

    @classmethod
    def missing(cls, reason: str, *, needs_judge: bool = False) -> Score:
        return cls(value=None, unscored=reason, needs_judge=needs_judge)

    @classmethod
    def inapplicable(cls, reason: str) -> Score:
        return cls(value=None, unscored=reason, not_applicable=True)

    @property
    def scored(self) -> bool:
        return self.value is not None

    def kept(self, with_explanation: bool) -> Score:
        """The score as a run keeps it once written (`SampleRecord.kept`): the value, why there
        is none and the flags, which every summary reads; the explanation (often a judge's
        paragraph) only when the benchmark's aggregate reads it."""
        return Score(self.value, self.explanation if with_explanation else "", self.unscored,
                     self.needs_judge, self.not_applicable, self.judge)

    def to_dict(self) -> dict[str, Any]:
        # a plain dict, not dataclasses.asdict: that deep-copies field by field and is the
        # larger part of writing a sample line (the same keys and values either way)
        return {"value": self.value, "explanation": self.explanation, "unscored": self.unscored,
                "needs_judge": self.needs_judge, "not_applicable": self.not_applicable, "judge": self.judge}

    @classmethod
    def from_dict(cls, data: dict[str, Any], item: str | None = None, name: str = "scores") -> Score:
        """A score as written; a RecordError naming `scores.<metric>.<field>` for a wrong type."""
        if not isinstance(data, dict):
            raise RecordError(item, name, f"expected an object, got {_kind(data)}")
        where = {key: data[key] for key in data}

        def typed(key: str, kinds: tuple[type, ...], nullable: bool, default: Any) -> Any:
            try:
                return _typed(item, where, key, kinds, nullable=nullable, default=default,
                              what="a number" if key == "value" else "")
            except RecordError as exc:
                raise RecordError(item, f"{name}.{key}", exc.message) from None

        return cls(value=typed("value", (int, float), True, None), explanation=typed("explanation", (str,), True, "") or "",
                   unscored=typed("unscored", (str,), True, None),
                   needs_judge=bool(typed("needs_judge", (bool,), True, False)),
                   not_applicable=bool(typed("not_applicable", (bool,), True, False)),
                   judge=typed("judge", (str,), True, None))


def judged(scores: dict[str, Score], outcome: str = "decided") -> dict[str, Score]:
    """`scores` with the judge's part in each value recorded (`Score.judge`): "decided" when
    its verdict is the score, "fallback" when it failed and the rules decided. A score without
    a value (not applicable) is left as it is: the judge decided no value there."""
    for score in scores.values():
        if score.scored:
            score.judge = outcome
    return scores


@dataclass(frozen=True)
class KeptFields:
    """What a benchmark's `aggregate` reads of a record beyond what every summary reads: the
    keys of `target`, `judgment` and `extracted`, and the metrics whose `Score.explanation`
    (e.g. ME2's METEOR variant). A run keeps one copy of every written record for its summary
    (on disk, keptrecords.py), so these decide whether that copy is a few hundred bytes an
    item or the whole response, judge texts and figures, read back at every pass of the summary."""

    target: tuple[str, ...] = ()
    judgment: tuple[str, ...] = ()
    extracted: tuple[str, ...] = ()
    explanations: tuple[str, ...] = ()


def _only(values: dict[str, Any] | None, keys: tuple[str, ...]) -> dict[str, Any] | None:
    """`values` with only `keys` (None stays None: "no judgment" differs from an empty one)."""
    return None if values is None else {k: values[k] for k in keys if k in values}


@dataclass(slots=True)
class SampleRecord:
    """One item's generation and scores, one line of `samples.jsonl`."""

    id: str
    benchmark: str
    task: str
    target: dict[str, Any]  # everything scoring needs: gold answer, choices, unit, …
    meta: dict[str, Any]  # breakdown keys: type, step bucket, …
    response: str | None = None
    generation_error: str | None = None
    extracted: dict[str, Any] | None = None
    judgment: dict[str, Any] | None = None  # the judge's parsed verdicts, for analysis and audit
    scores: dict[str, Score] = field(default_factory=dict)
    # Images the model drew, by role ({"steps": [path, ...], "final": path}); None for text.
    images: dict[str, Any] | None = None
    # How the model's reply ended and what it cost, as its server said: {"finish_reason":
    # "stop" | "length" | ..., "usage": {"prompt_tokens", "completion_tokens", ...}}.
    generation_info: dict[str, Any] | None = None

    @property
    def truncated(self) -> bool:
        """The reply was cut at max_tokens: scored as given, and counted in results."""
        return bool(self.generation_info and self.generation_info.get("finish_reason") == "length")

    def kept(self, fields: KeptFields) -> SampleRecord:
        """The record as a run keeps it once written, for `aggregate`, `responded` and
        results.json: id, task, meta (the breakdowns), each score's value and flags, the
        generation error, images (paths), the reply's finish reason and token usage, whether
        there was a response ("" for one: its text is not read again), and of the target,
        judgment, extracted and explanations only what `fields` names. Judging and rescoring
        read samples.jsonl, never this copy."""
        return SampleRecord(
            id=self.id, benchmark=self.benchmark, task=self.task,
            target=_only(self.target, fields.target) or {},
            meta=self.meta,
            response=None if self.response is None else "",
            generation_error=self.generation_error,
            extracted=_only(self.extracted, fields.extracted),
            judgment=_only(self.judgment, fields.judgment),
            scores={k: v.kept(k in fields.explanations) for k, v in self.scores.items()},
            images=self.images,
            generation_info=_only(self.generation_info, ("finish_reason", "usage")),
        )

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON values; the fields are read as they are, not deep-copied
        (dataclasses.asdict copied every nested value, 5–6× the cost for the same text)."""
        return {
            "id": self.id, "benchmark": self.benchmark, "task": self.task, "target": self.target,
            "meta": self.meta, "response": self.response, "generation_error": self.generation_error,
            "extracted": self.extracted, "judgment": self.judgment,
            "scores": {k: v.to_dict() for k, v in self.scores.items()},
            "images": self.images, "generation_info": self.generation_info,
        }

    def to_json(self, run_dir: Path | None = None) -> str:
        """The record as one JSON line; with `run_dir` (the folder of samples.jsonl), the
        target's figures go to files there and the line references them (`figures_to_files`)."""
        data = self.to_dict()
        if run_dir is not None:
            data["target"] = figures_to_files(self.target, run_dir)
            return json.dumps(data, ensure_ascii=False, sort_keys=True)
        # A figure the target saves (GeoLaux keeps the problem's for its judge) is copied in, not
        # scanned; walking a record without one for long strings would only add to its cost.
        if any(isinstance(value, str) and len(value) >= SPLICE_CHARS for value in self.target.values()):
            return "".join(dumps_pieces(data, ensure_ascii=False, sort_keys=True))
        return json.dumps(data, ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SampleRecord:
        """A record as samples.jsonl holds it; a RecordError naming the item and the field when
        a field is missing or of the wrong type (checked here, before anything is scored or
        written from it)."""
        if not isinstance(data, dict):
            raise RecordError(None, "(record)", f"expected an object, got {_kind(data)}")
        if "id" not in data:
            raise RecordError(None, "id", "missing")
        raw_id = _typed(None, data, "id", (str, int), nullable=False)
        item = str(raw_id)
        for name in ("benchmark", "task"):
            if name not in data:
                raise RecordError(item, name, "missing")
        meta = _typed(item, data, "meta", (dict,), nullable=False, default={})
        for key, value in meta.items():
            values = value if isinstance(value, list) else [value]
            if not all(v is None or isinstance(v, _SCALARS) for v in values):
                raise RecordError(item, f"meta.{key}", f"expected text, a number, true/false or a list of them, "
                                                      f"got {_kind(value)}")
        scores = _typed(item, data, "scores", (dict,), nullable=True, default={}) or {}
        return cls(
            id=item,
            benchmark=_typed(item, data, "benchmark", (str,), nullable=False),
            task=_typed(item, data, "task", (str,), nullable=False),
            target=_typed(item, data, "target", (dict,), nullable=False, default={}),
            meta=meta,
            response=_typed(item, data, "response", (str,), nullable=True),
            generation_error=_typed(item, data, "generation_error", (str,), nullable=True),
            extracted=_typed(item, data, "extracted", (dict,), nullable=True),
            judgment=_typed(item, data, "judgment", (dict,), nullable=True),
            scores={k: Score.from_dict(v, item, f"scores.{k}") for k, v in scores.items()},
            images=_typed(item, data, "images", (dict,), nullable=True),
            generation_info=_typed(item, data, "generation_info", (dict,), nullable=True),
        )

"""A run folder's files and how they are read: what the run layer writes and what others
(comparisons, agreement, ME2's joint table) read back, with one reader for all of them.

`samples.jsonl` holds one record per line, appended as each item is scored; a torn last line
(a killed run) is dropped when reading, any other unreadable line is an error naming the file
and the line. `run.json` holds the run's configuration.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import UsageError
from .records import RecordError, SampleRecord, figures_from_files

SAMPLES = "samples.jsonl"
RUN_CONFIG = "run.json"
PROMPTS = "prompts.json"  # the full texts of the prompt templates in force, referenced from run.json
RESULTS = "results.json"


def read_config(path: Path) -> dict[str, Any]:
    """run.json, or a ValueError naming the file (a truncated or hand-edited one)."""
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path} is unreadable ({exc}); restore it from a backup or rerun elsewhere") from None
    if not isinstance(config, dict) or not isinstance(config.get("benchmark"), str):
        raise UsageError(f"{path} is not a geomeval run configuration (no \"benchmark\")")
    return config


def read_samples(path: Path, *, refuse_torn: bool = False) -> list[SampleRecord]:
    """Records from samples.jsonl; a torn final line (a killed run) is dropped, others are errors.

    `refuse_torn`: a torn final line is an error too (rescoring must not rewrite the file
    without the item; resuming the run redoes it)."""
    return list(iter_samples(path, refuse_torn=refuse_torn))


def iter_samples(path: Path, *, refuse_torn: bool = False) -> Iterator[SampleRecord]:
    """`read_samples` a line at a time, holding one record (with its figures) rather than the
    file: what rescoring reads. Lines end at newlines only (a response may hold U+2028)."""
    for record, _ in iter_lines(path, refuse_torn=refuse_torn):
        yield record


def iter_lines(path: Path, *, refuse_torn: bool = False) -> Iterator[tuple[SampleRecord, bytes]]:
    """`iter_samples`, each record with its line as written (a whole line, newline included)."""
    if not path.exists():
        return
    with path.open("rb") as handle:
        number, line = 0, handle.readline()
        while line:
            number, following = number + 1, handle.readline()
            # errors="replace": a kill -9 can cut the last line inside a multi-byte character
            raw, text = line, line.decode("utf-8", errors="replace")
            line = following
            if not text.strip():
                continue
            try:
                data = json.loads(text)
            except (json.JSONDecodeError, RecursionError) as exc:
                if not following and refuse_torn:
                    raise UsageError(
                        f"{path}, line {number}: the last sample is incomplete (the run was interrupted). "
                        "Resume the run first (the same `geomeval run` command), then rescore; "
                        "the file was left as it is"
                    ) from None
                if not following:
                    return
                raise UsageError(f"{path}, line {number}: unreadable sample ({exc})") from None
            try:
                if isinstance(data, dict):
                    figures_from_files(data, path.parent)
                record = SampleRecord.from_dict(data)
            except RecordError as exc:  # a whole line, wrongly typed: never taken for a torn one
                raise UsageError(f"{path}, line {number}: {exc}; the file was left as it is") from None
            yield record, raw

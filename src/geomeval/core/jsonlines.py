"""JSON Lines files a user hands in (replayed responses, human labels): one object with an
"id" per line, read one line at a time, with errors that name the file and the line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import UsageError


def objects_with_id(path: str | Path, *, max_lines: int | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; a line that is not a JSON object with
    an "id", or more than `max_lines` lines, stops the read with a UsageError."""
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if max_lines is not None and number > max_lines:
                raise UsageError(f"{path}: more than {max_lines} lines")
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise UsageError(f"{path}, line {number}: not JSON ({exc.msg})") from None
            if not isinstance(row, dict) or "id" not in row:
                raise UsageError(f"{path}, line {number}: field 'id' missing")
            yield number, row

"""Captions stored once per (captioner, source, prompt variant) and reused by every reasoner.

The paper's grid crosses reasoners with captioners and with/without image; captioning is the
costly stage, so each captioner's captions are written to
`<folder>/<captioner>__<source>__<variant>.jsonl` as they finish (a killed pass resumes), and
every run that uses the same captioner reads them back instead of asking again. A failed
caption is stored with its error and retried on the next pass.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_FOLDER = Path("runs") / "captions"
# The captioner name of the reference captions shipped with the embedded source samples
# (`sources/captions/`): written from the figures, so the reasoning tasks run offline.
REFERENCE_CAPTIONER = "geomeval-reference"


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", spec)[:80]


@dataclass(frozen=True)
class CaptionStore:
    folder: Path
    captioner: str
    source: str
    variant: str

    @property
    def path(self) -> Path:
        return self.folder / f"{_slug(self.captioner)}__{self.source}__{self.variant}.jsonl"

    def read(self) -> dict[str, dict[str, Any]]:
        """Stored captions by item id, the last entry winning; a torn last line is ignored."""
        if not self.path.is_file():
            return {}
        entries: dict[str, dict[str, Any]] = {}
        lines = self.path.read_bytes().decode("utf-8", errors="replace").splitlines()
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                if number == len(lines):
                    break  # a pass killed mid-line
                raise ValueError(f"{self.path}, line {number}: unreadable caption entry") from None
            if isinstance(entry, dict) and "id" in entry:
                entries[str(entry["id"])] = entry
        return entries

    def append(self, item_id: str, caption: str | None, error: str | None) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        entry = {"id": item_id, "captioner": self.captioner, "caption": caption, "error": error}
        with self.path.open("a", encoding="utf-8") as sink:
            sink.write(json.dumps(entry, ensure_ascii=False) + "\n")
            sink.flush()

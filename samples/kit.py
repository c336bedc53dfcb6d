"""What every sample generator needs: where the committed samples live in the checkout, scripts
written as indented triple-quoted strings, JSON files, and writing a sample folder without
leaving a dropped item's file behind."""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

BENCHMARKS_DIR = Path(__file__).resolve().parents[1] / "src" / "geomeval" / "benchmarks"


def sample_dir(benchmark: str) -> Path:
    """The committed sample folder of `benchmark` in this checkout (what its builder reads)."""
    return BENCHMARKS_DIR / benchmark / "sample"


def dedented(text: str) -> str:
    """A script from an indented triple-quoted string (no blank edges)."""
    return textwrap.dedent(text).strip("\n")


def json_bytes(data: Any, *, indent: int = 1) -> bytes:
    """A JSON file as the releases write them: non-ASCII kept, one trailing newline."""
    return (json.dumps(data, ensure_ascii=False, indent=indent) + "\n").encode("utf-8")


def write_files(files: dict[str, bytes], out_dir: str | Path, owned: Iterable[str]) -> list[Path]:
    """Write a sample's files (relative path → bytes) under `out_dir`; returns the written
    paths. The `owned` folders are emptied first, so a dropped item leaves no stale file behind
    for a builder to pick up; nothing else in `out_dir` is touched."""
    out = Path(out_dir)
    for folder in owned:
        if (out / folder).exists():
            shutil.rmtree(out / folder)
    written = []
    for relative, payload in sorted(files.items()):
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(payload)
        written.append(path)
    return written


def report(written: list[Path], where: Path) -> None:
    """Say how many files a generator wrote and how large they are."""
    total = sum(path.stat().st_size for path in written)
    print(f"wrote {len(written)} files, {total / 1e6:.2f} MB, under {where}")

"""A GeoLaux raw release of N items made from real ones, for the scale tests and benches.

Each copy is a real item under a new id (`r0`, `r1`, …) with its own figure file (the same
pixels, a distinct file) and a numbered problem text, so reading, building and running touch
N images and no request is a response-cache hit of another. Auxiliary lines are dropped:
every copy is a plain problem with one figure."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

RELEASE_FILE = "GeoLaux_replicated.json"


def real_items(root: Path | None = None) -> tuple[dict[str, Any], Path]:
    """The items (id -> record) of a GeoLaux release folder and that folder; default the
    embedded sample."""
    if root is None:
        from ..benchmarks.geolaux.data import sample_path

        root = sample_path()
    found = sorted(p for p in root.glob("*.json") if p.name != RELEASE_FILE)
    if not found:
        raise FileNotFoundError(f"{root}: no GeoLaux release JSON file")
    return json.loads(found[0].read_text(encoding="utf-8")), root


def replicated_release(n: int, out: Path, source: Path | None = None) -> Path:
    """A raw release of `n` copies of `source`'s items (default the embedded sample) in `out`,
    made once: a folder that already holds one is reused as it is."""
    if (out / RELEASE_FILE).exists():
        return out
    items, root = real_items(source)
    real = [record for record in items.values() if record.get("original_image_name") not in (None, "", "null")]
    (out / "original_images").mkdir(parents=True, exist_ok=True)
    (out / "auxiliary_images").mkdir(parents=True, exist_ok=True)
    release = {}
    for index in range(n):
        record = real[index % len(real)]
        name = f"r{index}"
        figure = next((root / "original_images").glob(f"{record['original_image_name']}.*"))
        shutil.copyfile(figure, out / "original_images" / f"{name}{figure.suffix}")
        release[name] = {**record, "problem_text": f"{record['problem_text']} (#{index})", "original_image_name": name,
                         "auxiliary_image_name": "null", "auxiliary_text": "null"}
    (out / RELEASE_FILE).write_text(json.dumps(release, ensure_ascii=False), encoding="utf-8")
    return out

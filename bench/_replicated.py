"""Shared by the scale benches: a GeoLaux raw release of N items, the real items of the
mini sample (or the embedded one) repeated under new ids, each with its own figure file
(the same pixels, a distinct file), so reading, building and running touch N images."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MINI = REPO.parent / "shared/data/geolaux_mini_sample"


def source_release() -> tuple[dict, Path]:
    """The real items (id -> record) and the folder their image folders are in."""
    if MINI.is_dir():
        return json.loads((MINI / "GeoLaux_minidata.json").read_text(encoding="utf-8")), MINI
    from geomeval.benchmarks.geolaux.data import sample_path

    root = sample_path()
    return json.loads((root / "GeoLaux_sample.json").read_text(encoding="utf-8")), root


def replicated_release(n: int, out: Path) -> Path:
    """A raw release of `n` items in `out` (made once; reused when it is already there)."""
    marker = out / "GeoLaux_replicated.json"
    if marker.exists():
        return out
    items, root = source_release()
    real = [(k, v) for k, v in items.items() if v.get("original_image_name") not in (None, "", "null")]
    (out / "original_images").mkdir(parents=True, exist_ok=True)
    (out / "auxiliary_images").mkdir(parents=True, exist_ok=True)
    release = {}
    for index in range(n):
        _key, record = real[index % len(real)]
        name = f"r{index}"
        source = next((root / "original_images").glob(f"{record['original_image_name']}.*"))
        shutil.copyfile(source, out / "original_images" / f"{name}{source.suffix}")
        # a distinct text per copy, so no request is a response-cache hit of another
        release[name] = {**record, "problem_text": f"{record['problem_text']} (#{index})", "original_image_name": name, "auxiliary_image_name": "null", "auxiliary_text": "null"}
    marker.write_text(json.dumps(release, ensure_ascii=False), encoding="utf-8")
    return out


def built(n: int, cache: Path) -> Path:
    """The replicated release of `n` items built once with `geomeval build`; its folder."""
    out = cache / f"built-{n}"
    if not (out / "README.md").exists():
        raw = replicated_release(n, cache / f"raw-{n}")
        subprocess.run([sys.executable, "-m", "geomeval.cli", "build", "geolaux", "--raw", str(raw), "--out", str(out),
                        "--overwrite"], check=True, capture_output=True)
    return out

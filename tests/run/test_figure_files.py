"""Figures a record's target keeps are files beside samples.jsonl (figures/<sha256>.png),
referenced by path, not base64 inlined into every line; reading the run gives scoring the
same target it was made with, and merged shards carry their figures along."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.core.errors import UsageError
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import parse_model_spec
from geomeval.run.runner import read_samples, run
from geomeval.run.shards import merge


def _lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "samples.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def geolaux_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("figs") / "run"
    run(get_benchmark("geolaux"), task="geolaux", model=parse_model_spec("baseline:random"),
        judge=parse_judge_spec("offline"), out_dir=out)
    return out


def test_figures_are_files_referenced_by_path(geolaux_run: Path) -> None:
    lines = _lines(geolaux_run)
    refs = [line["target"]["figure"] for line in lines if line["target"].get("figure") is not None]
    assert refs and all(set(ref) == {"figure_file"} for ref in refs)
    assert "iVBORw0KGgo" not in (geolaux_run / "samples.jsonl").read_text(encoding="utf-8")  # no inlined PNG
    for ref in refs:
        path = geolaux_run / ref["figure_file"]
        raw = path.read_bytes()
        assert raw.startswith(b"\x89PNG") and path.name == hashlib.sha256(raw).hexdigest() + ".png"
    # what the judge is shown: the item's own figure, as base64, exactly as the run made it
    from geomeval.benchmarks.geolaux.scoring import figure_field

    items = {item.id: item for item in get_benchmark("geolaux").load_items(None, "geolaux", None)}
    for record in read_samples(geolaux_run / "samples.jsonl"):
        assert record.target["figure"] == figure_field(items[record.id].fields.get("image")) \
            or base64.b64decode(record.target["figure"]).startswith(b"\x89PNG")


def test_a_missing_figure_file_names_the_item_and_field(geolaux_run: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(geolaux_run, copy)
    first = next(line for line in _lines(copy) if line["target"].get("figure"))
    (copy / first["target"]["figure"]["figure_file"]).unlink()
    with pytest.raises(UsageError, match=rf"{first['id']}.*target.figure.*figures/"):
        read_samples(copy / "samples.jsonl")


def test_merged_shards_carry_their_figures(tmp_path: Path) -> None:
    bench, judge = get_benchmark("geolaux"), parse_judge_spec("offline")
    shards = []
    for i in (1, 2):
        run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=judge,
            out_dir=tmp_path / f"s{i}", shard=(i, 2))
        shards.append(tmp_path / f"s{i}")
    merge(shards, tmp_path / "merged")
    merged = read_samples(tmp_path / "merged" / "samples.jsonl")  # every reference resolves
    figures = [r for r in merged if r.target.get("figure")]
    assert figures and all(base64.b64decode(r.target["figure"]).startswith(b"\x89PNG") for r in figures)

"""One scorer (issue 40, point 5): the Space's "Try a script" scores a script exactly as
`geomeval run` scores it as a GGBench code answer, floors included. Checked item by item
against a real run (`--model replay:…` over the embedded sample) of a script that fails (no
line runs: a blank figure) and of valid scripts (each item's reference construction)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from geomeval.demo import try_metrics

FAILED = "Foo(1)\nBar(A, B)"  # no line runs: nothing is drawn
ITEMS = 3
COMPARED = ("Pass@1", "verifier", "PSNR", "SSIM", "BLEU", "ROUGE-L", "chrF", "edit_distance", "RUBY")


def _run(tmp: Path, name: str, responses: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Per item, the scores `geomeval run ggbench --task ggbench_code` wrote for `responses`."""
    from geomeval.benchmarks import get_benchmark
    from geomeval.engines.judges import parse_judge_spec
    from geomeval.engines.models import ModelOptions, parse_model_spec
    from geomeval.run.runner import run

    replay = tmp / f"{name}.jsonl"
    replay.write_text("".join(json.dumps({"id": i, "response": r}) + "\n" for i, r in responses.items()),
                      encoding="utf-8")
    out = tmp / name
    run(get_benchmark("ggbench"), task="ggbench_code", model=parse_model_spec(f"replay:{replay}", ModelOptions()),
        judge=parse_judge_spec("offline"), out_dir=out, limit=ITEMS)
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    return {r["id"]: r["scores"] for r in records}


@pytest.fixture(scope="module")
def items() -> list[str]:
    ids = [key for _label, key in try_metrics.script_references()][:ITEMS]
    assert len(ids) == ITEMS
    return ids


def test_a_failed_script_scores_as_in_a_run_item_by_item(items: list[str], tmp_path: Path) -> None:
    ran = _run(tmp_path, "failed", dict.fromkeys(items, FAILED))
    assert sorted(ran) == sorted(items)
    for item in items:
        tried = try_metrics.try_script(FAILED, item)
        for metric in COMPARED:
            assert tried.scores[metric].value == ran[item][metric]["value"], (item, metric)
        # The floors: no line ran, so the figure is blank and the pixel metrics are 0 (not
        # the 23.59 dB / 0.839 a blank figure has against a mostly white reference).
        assert tried.scores["PSNR"].value == 0.0 and tried.scores["SSIM"].value == 0.0
        assert tried.scores["Pass@1"].value == 0.0 and not tried.pass_at_1
        assert "PSNR 0.00 dB" in tried.summary and "at their floor: no line of the answer ran" in tried.summary


def test_a_valid_script_scores_as_in_a_run_item_by_item(items: list[str], tmp_path: Path) -> None:
    scripts = {item: try_metrics.reference_script(item) for item in items}
    ran = _run(tmp_path, "valid", scripts)
    for item, script in scripts.items():
        tried = try_metrics.try_script(script, item)
        for metric in COMPARED:
            assert tried.scores[metric].value == ran[item][metric]["value"], (item, metric)
        assert tried.scores["Pass@1"].value == 1.0 and tried.verifier_score == tried.scores["verifier"].value
        assert tried.scores["SSIM"].value is not None and tried.scores["SSIM"].value > 0.9


def test_an_empty_script_passes_nothing_as_in_a_run() -> None:
    result = try_metrics.try_script("# only a comment", None)
    assert not result.pass_at_1 and "Pass@1: 0" in result.summary and result.scores == {}

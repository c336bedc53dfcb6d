"""GeoLaux's run laid out as the paper's main table: one row, the published columns, in percent."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.benchmarks.geolaux.scoring import PAPER_COLUMNS, aggregate
from geomeval.core.records import SampleRecord, Score
from geomeval.run.report import table_lines


def published_columns() -> list[str]:
    board = json.loads(files("geomeval.demo").joinpath("leaderboards/geolaux.json").read_text(encoding="utf-8"))
    return board["tables"][0]["columns"]


def judged(index: int, bucket: str, acs: int, pcs: int) -> SampleRecord:
    """An item judged step by step: one step, right when PCS is 1."""
    marks = [1] if pcs else [0]
    values = {"ACS": float(acs), "PCS": float(pcs), "PQS": float(pcs)}
    return SampleRecord(
        id=f"{bucket}-{index}", benchmark="geolaux", task="geolaux", target={},
        meta={"type": "calculation", "step_bucket": bucket, "auxiliary_type": "none", "language": "en"},
        response="{}", judgment={"marks": marks, "final_answer_correct": acs, "first_error_step": None if pcs else 1},
        scores={m: Score(v, judge="decided") for m, v in values.items()},
    )


def bucket(name: str, n: int, acs: int, pcs: int) -> list[SampleRecord]:
    """n items of which the first `acs` have a right answer and the first `pcs` a right process."""
    return [judged(i, name, int(i < acs), int(i < pcs)) for i in range(n)]


# QvQ-72B's published bucket cells (%): ACS/PCS 69.6/22.4, 52.7/6.6, 27.4/1.7, 14.0/1.2; ΔPCS 94.6.
QVQ_BUCKETS = (bucket("1-4", 125, 87, 28) + bucket("5-8", 1000, 527, 66)
               + bucket("9-12", 1000, 274, 17) + bucket("13-24", 250, 35, 3))


def test_the_paper_table_has_the_published_columns_and_qvqs_cells() -> None:
    summary = aggregate(QVQ_BUCKETS)
    [table] = [t for t in summary["tables"] if "paper's main table" in t["title"]]
    assert table["columns"] == list(PAPER_COLUMNS) == published_columns()
    [row] = table["rows"]
    rendered = table_lines([table])
    assert rendered[-1] == (
        "| this run | — | 69.6 | 22.4 | 52.7 | 6.6 | 27.4 | 1.7 | 14.0 | 1.2 | 94.6 | "
        f"{100 * summary['metrics']['ACS']['value']:.1f} | {100 * summary['metrics']['PCS']['value']:.1f} | "
        f"{100 * summary['metrics']['PQS']['value']:.1f} |"
    )
    # ΔPCS is the analysis' relative drop, from this row's own PCS cells.
    assert row[10] * 100 == pytest.approx(summary["analysis"]["delta_pcs"]["value"])
    assert round(row[10] * 100, 1) == 94.6
    n = len(QVQ_BUCKETS)
    assert row[11] == (87 + 527 + 274 + 35) / n and row[12] == (28 + 66 + 17 + 3) / n


def test_missing_buckets_and_offline_runs_leave_cells_empty_not_zero() -> None:
    table = aggregate(bucket("1-4", 4, 2, 1))["tables"][0]
    [row] = table["rows"]
    assert row[2:4] == [0.5, 0.25] and row[4:11] == [None] * 7  # no 5–24 items, so no ΔPCS
    assert table_lines([table])[-1].startswith("| this run | — | 50.0 | 25.0 | — | — |")


def test_geomeval_run_reports_the_paper_table(tmp_path: Path) -> None:
    from geomeval.engines.judges import parse_judge_spec
    from geomeval.engines.models import parse_model_spec
    from geomeval.run.runner import run

    results = run(get_benchmark("geolaux"), task="geolaux", model=parse_model_spec("baseline:random"),
                  judge=parse_judge_spec("offline"), out_dir=tmp_path)
    [table] = results["tables"]
    assert table["columns"] == published_columns()
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "## GeoLaux as in the paper's main table (%)" in report
    assert "| " + " | ".join(published_columns()) + " |" in report
    acs = results["metrics"]["ACS"]["value"]
    pcs_cells = table["rows"][0][3:10:2]
    assert table["rows"][0][11] == acs and pcs_cells == [None] * 4  # offline: PCS needs a judge

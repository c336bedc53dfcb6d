"""GeoEval's paper analyses in `geomeval run geoeval`: subjects as the official script files
them (Fig. 2), external constants (Fig. 3), description length, and the run as a row of
Table 2 — on the embedded sample, answered by a loopback model that is right on chosen items."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest

from geomeval.benchmarks.geoeval.analyses import (
    NOT_REQUIRED,
    REQUIRED,
    description_length,
    external_constant,
    subjects,
)
from geomeval.benchmarks.geoeval.benchmark import GeoEval
from geomeval.benchmarks.geoeval.scoring import aggregate, answer_scores
from geomeval.core.records import SampleRecord
from geomeval.testing.chat_server import ChatServer, prompt_text

RIGHT = {"103", "105", "106"}  # the items the loopback model answers correctly


def records(task: str) -> list[SampleRecord]:
    bench = GeoEval()
    return [bench.new_record(item, task) for item in bench.load_items(None, task, None)]


def scored(task: str, right: set[str]) -> list[SampleRecord]:
    """The sample's records of `task`, answered right on `right` and wrong elsewhere."""
    out = records(task)
    for record in out:
        answer = record.target["answer"] if record.id in right else "-12345"
        record.scores = answer_scores(record, answer, "given")
    return out


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    gold = {r.target["problem"].strip(): (r.id, r.target["answer"]) for r in records("geoeval_2000")}

    def model(request: dict) -> str:
        text = prompt_text(request)
        found = [(len(q), item) for q, item in gold.items() if q in text]
        item_id, answer = max(found)[1]
        return f"Answer: {answer if item_id in RIGHT else '-12345'}"

    out = tmp_path_factory.mktemp("geoeval_paper") / "run"
    with ChatServer(model) as server:
        result = cli("run", "geoeval", "--task", "geoeval_2000", "--model", "openai:m", "--base-url",
                     server.base_url, "--out", str(out), "--cache", "off")
        assert result.returncode == 0, result.stderr
    return json.loads((out / "results.json").read_text()), (out / "report.md").read_text()


def value(bucket: dict[str, Any]) -> tuple[float | None, int]:
    return bucket["A"]["value"], bucket["A"]["scored"]


def test_the_run_is_right_where_the_model_is(run: tuple[dict[str, Any], str]) -> None:
    results, _ = run
    # 3 of 10 right; the text-only items are 105, 106, 107 and 109, two of them right.
    assert results["metrics"]["A"]["value"] == pytest.approx(0.3)
    assert results["metrics"]["T"]["value"] == pytest.approx(0.5) and results["metrics"]["T"]["scored"] == 4


def test_subjects_combine_knowledge_points_and_shapes(run: tuple[dict[str, Any], str]) -> None:
    results, report = run
    subject = results["breakdowns"]["subject"]
    # The official order, knowledge points (Angle, Length, Area) beside shapes (Triangle, Cone).
    assert list(subject) == ["Angle", "Triangle", "Length", "Line", "Quad", "Circle", "Area", "Cone", "Cube"]
    assert value(subject["Area"]) == (pytest.approx(0.4), 5)  # 104–108, with 105 and 106 right
    assert value(subject["Line"]) == (pytest.approx(0.5), 2)  # 103 right, 109 wrong
    assert value(subject["Angle"]) == (1.0, 1) and value(subject["Length"]) == (0.0, 3)
    assert "## By subject" in report and re.search(r"^\| Area \| 40\.0 \[[^]]+\] \(5/5\) \|", report, re.M)


def test_subjects_follow_the_official_rule() -> None:
    assert subjects(["Triangle", "Length"], ["Triangle"]) == ["Triangle", "Length"]  # once, not twice
    assert subjects(["Angle"], ["Circle"]) == ["Angle", "Circle"]  # a shape the points do not name
    assert subjects([], ["Sphere"]) == ["Other", "Sphere"] and subjects(None, None) == ["Other"]


def test_external_constants_breakdown(run: tuple[dict[str, Any], str]) -> None:
    results, report = run
    constants = results["breakdowns"]["external_constant"]
    # 103's UniGeo program uses the constant C_0 (180°); 104 has no solution and is left out.
    assert list(constants) == [REQUIRED, NOT_REQUIRED]
    assert value(constants[REQUIRED]) == (1.0, 1)
    assert value(constants[NOT_REQUIRED]) == (pytest.approx(0.25), 8)
    assert "## By external constant" in report
    assert re.search(r"^\| not required \| 25\.0 \[[^]]+\] \(8/8\) \|", report, re.M)


@pytest.mark.parametrize(
    ("source", "solution", "expected"),
    [
        ("UniGeo", "g_minus C_0 N_0", REQUIRED),
        ("PGPS9K", "Circle_Area N0 C3", REQUIRED),
        ("Geometry3K", "Gougu_Theorem N0 N1 V0", NOT_REQUIRED),
        ("GeometryQA", "x=3.14*5*5", REQUIRED),
        ("GeometryQA", "x=3*14", NOT_REQUIRED),  # the official unescaped "3.14" would match
        ("GeometryQA", "x=(36/4)*(36/4)", NOT_REQUIRED),
        ("MATH", "Taking $\\pi \\approx 3.14$, the area is $78.5$.", REQUIRED),
        ("MATH", "The area is $25\\pi$.", NOT_REQUIRED),
        ("GeoQA+", None, None),
        ("GeoEval-hard", "  ", None),
    ],
)
def test_external_constant_rules(source: str, solution: str | None, expected: str | None) -> None:
    assert external_constant(source, solution) == expected


def test_description_length_breakdown(run: tuple[dict[str, Any], str]) -> None:
    results, report = run
    lengths = results["breakdowns"]["description_length"]
    assert list(lengths) == ["<=40"] and value(lengths["<=40"]) == (0.0, 3)  # 101, 102, 108
    assert "## By description length" in report
    words = " ".join(["line A B,"] * 20)  # 60 words
    assert description_length(words) == "<=80" and description_length(" ".join(["w"] * 40)) == "<=40"
    assert description_length(" ".join(["w"] * 161)) == ">160"
    assert description_length(None) is None and description_length("") is None


def test_the_run_as_a_row_of_table_2(run: tuple[dict[str, Any], str]) -> None:
    results, report = run
    (table,) = results["tables"]
    assert table["columns"] == ["model", "GeoEval-2000 A (%)", "GeoEval-2000 T (%)", "GeoEval-backward A (%)",
                                "GeoEval-aug A (%)", "GeoEval-hard A (%)"]
    assert table["rows"] == [["this run", pytest.approx(0.3), pytest.approx(0.5), None, None, None]]
    assert "## GeoEval as in the paper's Table 2" in report
    assert "| this run | 30.0 | 50.0 | — | — | — |" in report


@pytest.mark.parametrize(("task", "column"), [("geoeval_backward", 3), ("geoeval_aug", 4), ("geoeval_hard", 5)])
def test_other_subsets_fill_their_own_column(task: str, column: int) -> None:
    done = scored(task, {records(task)[0].id})
    (row,) = aggregate(done)["tables"][0]["rows"]
    # Table 2 reports only A outside GeoEval-2000; T stays empty there.
    assert row[column] == pytest.approx(1 / len(done))
    assert [cell for i, cell in enumerate(row[1:], 1) if i != column] == [None] * 4

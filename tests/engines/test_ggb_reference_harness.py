"""The GeoGebra 4.0 reference harness runs scripts through the real jar (skipped without it)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from geomeval.geogebra.reference import (
    ENV_JAR,
    ReferenceEngine,
    ReferenceUnavailable,
    find_jar,
    find_java,
    find_javac,
)


@pytest.fixture(scope="module")
def engine() -> Iterator[ReferenceEngine]:
    if find_jar() is None:
        pytest.skip("GeoGebra 4.0 jar not found (Debian package `geogebra`)")
    if find_java() is None or find_javac() is None:
        pytest.skip("java/javac not found")
    try:
        eng = ReferenceEngine(timeout=60)
    except ReferenceUnavailable as exc:
        pytest.skip(f"reference GeoGebra unavailable: {exc}")
    with eng:
        yield eng


def test_missing_jar_is_reported_not_crashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "no-geogebra.jar"
    monkeypatch.setenv(ENV_JAR, str(missing))
    assert find_jar() is None
    with pytest.raises(ReferenceUnavailable, match="jar not found"):
        ReferenceEngine()
    fake = tmp_path / "geogebra.jar"
    fake.write_bytes(b"")
    monkeypatch.setenv(ENV_JAR, str(fake))
    assert find_jar() == fake


def objects(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {o["label"]: o for o in result["objects"]}


def test_exact_values(engine: ReferenceEngine) -> None:
    result = engine.run(
        [
            "A=(0,0)",
            "B=(4,0)",
            "c=Circle[A,B]",
            "l1: y = x",
            "l2: x + y = 4",
            "P=Intersect[l1, l2]",
            "s=Segment[A,B]",
            "t1=Polygon[A, B, (0, 3)]",
            "n=Distance[A, B]",
            "w=Angle[B, A, P]",
        ],
        id="exact",
    )
    assert result["id"] == "exact"
    assert all(line["ok"] for line in result["lines"]), result["lines"]
    assert [line["labels"] for line in result["lines"][:3]] == [["A"], ["B"], ["c"]]
    objs = objects(result)
    assert (objs["A"]["type"], objs["A"]["x"], objs["A"]["y"]) == ("point", 0.0, 0.0)
    assert objs["A"]["independent"] is True and objs["A"]["class"] == "GeoPoint"
    circle = objs["c"]
    assert circle["type"] == "conic" and circle["conic_type"] == "circle"
    assert circle["center"] == [0.0, 0.0] and circle["radius"] == 4.0
    assert circle["independent"] is False
    assert (objs["P"]["x"], objs["P"]["y"]) == (2.0, 2.0)
    seg = objs["s"]
    assert seg["type"] == "segment" and seg["length"] == 4.0
    assert seg["start"] == [0.0, 0.0] and seg["end"] == [4.0, 0.0]
    poly = objs["t1"]
    assert poly["type"] == "polygon" and poly["area"] == 6.0
    assert poly["vertices"] == [[0.0, 0.0], [4.0, 0.0], [0.0, 3.0]]
    assert objs["n"]["type"] == "numeric" and objs["n"]["value"] == 4.0
    assert objs["w"]["type"] == "angle"
    assert math.isclose(objs["w"]["value"], math.pi / 4, rel_tol=1e-12)
    # The polygon's sides are labelled after the opposite vertices, as GeoGebra 4.0 does.
    assert result["lines"][7]["created"][0] == "t1"


def test_unknown_command_fails_only_its_line(engine: ReferenceEngine) -> None:
    result = engine.run(["A=(0,0)", "B=(2,0)", "C=(0,2)", "Orthocenter[A,B,C]", "M=Midpoint[A,B]"])
    status = [line["ok"] for line in result["lines"]]
    assert status == [True, True, True, False, True]
    bad = result["lines"][3]
    assert "Unknown command" in bad["error"] and bad["labels"] == []
    assert objects(result)["M"]["x"] == 1.0


def test_impossible_intersection_is_undefined_not_an_error(engine: ReferenceEngine) -> None:
    result = engine.run(["c=Circle[(0,0),1]", "l: y = 5", "P=Intersect[c, l, 1]"])
    assert all(line["ok"] for line in result["lines"])
    point = objects(result)["P"]
    assert point["type"] == "point" and point["defined"] is False
    assert "x" not in point and "y" not in point


def test_english_command_names_work_from_the_start(engine: ReferenceEngine) -> None:
    # CircularArc's internal name is CircleArc; the English name must work on the first line.
    result = engine.run(["CircularArc[(0,0), (2,0), (0,2)]"])
    assert result["lines"][0]["ok"], result["lines"][0]
    arc = result["objects"][0]
    assert arc["type"] == "conicpart" and arc["conic_part_type"] == "arc"
    assert math.isclose(arc["value"], math.pi, rel_tol=1e-12)


def test_batch_reuses_one_jvm_and_labels_restart(engine: ReferenceEngine) -> None:
    engine.start()
    pid = engine.pid
    results = engine.run_batch([["(1,1)", "(2,2)"], ["(3,3)"], ["Circle[(0,0),1]", "(5,5)"]])
    assert engine.pid == pid
    assert [r["id"] for r in results] == ["0", "1", "2"]
    assert [[o["label"] for o in r["objects"]] for r in results] == [["A", "B"], ["A"], ["c", "A"]]
    assert objects(results[1])["A"]["x"] == 3.0


def test_redefining_a_free_point_updates_dependents(engine: ReferenceEngine) -> None:
    result = engine.run(["A=(0,0)", "B=(1,0)", "s=Segment[A,B]", "A=(2,2)"])
    assert all(line["ok"] for line in result["lines"])
    assert objects(result)["s"]["start"] == [2.0, 2.0]


def test_json_is_strict_for_special_text_and_infinite_values(engine: ReferenceEngine) -> None:
    text = "back\\slash ü π\ttab"
    result = engine.run([f't="{text}"', "n=1/0", "m=0/0"])
    objs = objects(result)
    assert objs["t"]["type"] == "text" and objs["t"]["text"] == text
    assert objs["n"]["value"] is None and objs["n"]["infinite"] == 1
    assert objs["m"]["defined"] is False and "value" not in objs["m"]


def test_timeout_kills_and_restarts_the_jvm(engine: ReferenceEngine) -> None:
    engine.start()
    pid = engine.pid
    slow = ["Sequence[Circle[(0, 0), k], k, 1, 3000]"]
    result = engine.run(slow, id="slow", timeout=0.001)
    assert result["id"] == "slow"
    assert "ran past the CPU time limit" in result["error"]  # CPU seconds of the JVM, not the clock
    assert result["objects"] == []
    after = engine.run(["A=(1,2)"])
    assert objects(after)["A"]["y"] == 2.0
    assert engine.pid is not None and engine.pid != pid
    assert engine.restarts >= 1

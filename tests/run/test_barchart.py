"""The report's SVG bar charts: bars where matplotlib would put them, unscored groups marked
rather than drawn as zero, and hostile group names kept as text."""

from __future__ import annotations

import json
import math
from pathlib import Path
from xml.etree import ElementTree

import pytest

from geomeval.run.barchart import BOTTOM, LEFT, MAX_LABEL, RIGHT, TOP, Y_TOP, Bar, bar_chart
from geomeval.run.report import write_report

SVG = "{http://www.w3.org/2000/svg}"


def _parse(svg: str) -> ElementTree.Element:
    return ElementTree.fromstring(svg)


def _bars(root: ElementTree.Element) -> list[ElementTree.Element]:
    return [rect for rect in root.iter(f"{SVG}rect") if rect.find(f"{SVG}title") is not None]


def test_bar_tops_are_where_matplotlib_puts_the_same_values_on_the_same_axes() -> None:
    from matplotlib.figure import Figure

    values = [0.0, 0.25, 0.7, 1.0]
    root = _parse(bar_chart("ACS by type", "ACS (%)", [Bar(f"g{i}", v, "") for i, v in enumerate(values)]))
    width, height = float(root.get("width") or 0), float(root.get("height") or 0)
    # The same plot area in matplotlib (pixels at 100 dpi), the same value axis.
    fig = Figure(figsize=(width / 100, height / 100), dpi=100)
    ax = fig.subplots()
    fig.subplots_adjust(left=LEFT / width, right=1 - RIGHT / width, bottom=BOTTOM / height, top=1 - TOP / height)
    ax.set_ylim(0, Y_TOP)
    bars = _bars(root)
    assert len(bars) == len(values)
    for rect, value in zip(bars, values, strict=True):
        expected_top = height - ax.transData.transform((0, 100 * value))[1]  # matplotlib counts up from the bottom
        assert float(rect.get("y") or 0) == pytest.approx(expected_top, abs=0.1)
        base = float(rect.get("y") or 0) + float(rect.get("height") or 0)
        assert base == pytest.approx(height - ax.transData.transform((0, 0))[1], abs=0.1)


def test_an_unscored_group_is_a_grey_mark_saying_so_not_a_zero_bar() -> None:
    root = _parse(bar_chart("PCS by type", "PCS (%)", [Bar("calculation", 0.0, "0\n0/3"), Bar("proving", None, "not\nscored")]))
    zero, unscored = _bars(root)
    assert zero.get("fill") != unscored.get("fill")
    assert float(unscored.get("height") or 1) == 0.0
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "not" in texts and "scored" in texts and "0/3" in texts


def test_a_value_that_is_not_a_finite_share_is_drawn_as_unscored_not_as_a_bar() -> None:
    root = _parse(bar_chart("t", "y", [Bar("a", 0.5, ""), Bar("b", math.nan, ""), Bar("c", math.inf, ""), Bar("d", None, "")]))
    fills = [rect.get("fill") for rect in _bars(root)]
    assert fills[0] != fills[1] and fills[1] == fills[2] == fills[3]
    assert all(float(rect.get("height") or 1) == 0.0 for rect in _bars(root)[1:])


def test_wide_names_get_room_for_their_width() -> None:
    latin = _parse(bar_chart("t", "y", [Bar("plane geometry", 0.5, "")]))
    cjk = _parse(bar_chart("t", "y", [Bar("平面几何与圆的性质问题", 0.5, "")]))  # 11 wide characters against 14 narrow
    assert float(cjk.get("height") or 0) > float(latin.get("height") or 0)
    long_title = _parse(bar_chart("accuracy by " + "x" * 120, "y", [Bar("a", 0.5, "")]))
    assert float(long_title.get("width") or 0) > 120 * 0.6 * 10


def test_hostile_group_names_stay_text_and_bounded() -> None:
    names = ["<script>alert(1)</script>", "a\x00b\x1bc\ud800", "x" * 100_000, "A & B \"quoted\" 'single'"]
    svg = bar_chart("ACS by source", "ACS (%)", [Bar(name, 0.5, "50\n1/2") for name in names])
    assert len(svg) < 20_000  # a 100k-character name does not make a 100k chart
    root = _parse(svg)  # well-formed XML: nothing a name holds escaped it
    assert not any(element.tag.endswith("script") for element in root.iter())
    labels = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert "<script>alert(1)</script>" in labels  # shown as the text it is
    assert "a?b?c?" in labels
    assert any(label.startswith("x") and len(label) == MAX_LABEL and label.endswith("…") for label in labels)
    assert "A & B \"quoted\" 'single'" in labels
    svg.encode("utf-8")  # no lone surrogate left to fail the file's write


def test_long_names_are_slanted_with_room_made_for_them() -> None:
    short = _parse(bar_chart("t", "y", [Bar("1-4", 0.5, ""), Bar("5-8", 0.5, "")]))
    long = _parse(bar_chart("t", "y", [Bar("plane geometry, circles", 0.5, ""), Bar("solid geometry", 0.5, "")]))
    assert not any("rotate(-20" in (t.get("transform") or "") for t in short.iter(f"{SVG}text"))
    assert sum("rotate(-20" in (t.get("transform") or "") for t in long.iter(f"{SVG}text")) == 2
    assert float(long.get("height") or 0) > float(short.get("height") or 0)


def test_the_report_links_one_chart_per_breakdown_of_the_headline(tmp_path: Path) -> None:
    stats = {"value": 0.5, "scored": 1, "total": 2}
    results = {
        "title": "GeoLaux", "task": "geolaux", "model": "m", "judge": "j", "headline": "ACS", "n_items": 2,
        "config": {"data": "d"}, "generation": {"succeeded": 2, "failed": 0, "coverage": 1.0},
        "metrics": {"ACS": {**stats, "unscored_reasons": {}, "coverage": 0.5}},
        "breakdowns": {"type": {"calculation": {"ACS": stats}, "proving": {"ACS": {"value": None, "scored": 0, "total": 1}}},
                       "empty": {}},
        "versions": {"geomeval": "0"},
    }
    (tmp_path / "results.json").write_text(json.dumps(results), encoding="utf-8")
    report = write_report(tmp_path).read_text(encoding="utf-8")
    assert "![type](plots/acs_by_type.svg)" in report
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == ["acs_by_type.svg"]
    root = _parse((tmp_path / "plots" / "acs_by_type.svg").read_text(encoding="utf-8"))
    assert next(t.text for t in root.iter(f"{SVG}text")) == "ACS by type"
    assert [rect.find(f"{SVG}title").text for rect in _bars(root)] == ["calculation", "proving"]  # type: ignore[union-attr]

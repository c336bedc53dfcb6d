"""The Space's logic (geomeval.demo), tested without Gradio: every registered benchmark is
browsable, each metric tab scores real input and refuses bad input with a clear message,
and the leaderboards read only runs inside their folder."""

from __future__ import annotations

import io
import json
import os
import struct
from pathlib import Path

import pytest
from PIL import Image

from geomeval.benchmarks import REGISTRY
from geomeval.demo import DemoInputError, boards, explore, try_metrics
from geomeval.demo.limits import (
    MAX_CAPTION_CHARS,
    MAX_IMAGE_PIXELS,
    MAX_SCRIPT_CHARS,
    MAX_SCRIPT_LINES,
)


@pytest.fixture(scope="module")
def runs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two real runs (geomeval run … --model baseline:random), one nested a level down."""
    from geomeval.benchmarks import get_benchmark
    from geomeval.engines.judges import parse_judge_spec
    from geomeval.engines.models import ModelOptions, parse_model_spec
    from geomeval.run.runner import run

    root = tmp_path_factory.mktemp("runs")
    for name, out in (("geolaux", root / "geolaux-random"), ("ggbench", root / "group" / "ggbench-random")):
        bench = get_benchmark(name)
        run(bench, task=bench.default_task, model=parse_model_spec("baseline:random", ModelOptions()),
            judge=parse_judge_spec("offline"), out_dir=out)
    return root


# --------------------------------------------------------------------------- explore


def test_every_registered_benchmark_and_task_is_listed() -> None:
    listed = {info.name: info.tasks for info in explore.benchmarks()}
    assert listed == {name: tuple(bench.tasks) for name, bench in REGISTRY.items()}
    assert [value for _label, value in explore.benchmark_choices()] == list(REGISTRY)


@pytest.mark.parametrize("bench_name", list(REGISTRY))
def test_every_task_browses_or_says_why_not(bench_name: str) -> None:
    benchmark = bench_name
    for task in REGISTRY[benchmark].tasks:
        data = explore.load_task(benchmark, task)
        summary = explore.task_summary(benchmark, task)
        assert REGISTRY[benchmark].title in summary
        if data.error:  # a benchmark without its sample yet says so instead of failing
            assert data.error in summary and explore.filter_items(benchmark, task) == []
            continue
        items = explore.filter_items(benchmark, task)
        assert len(items) == len(data.items) > 0
        view = explore.item_view(benchmark, task, items[0][1])
        assert view.markdown.startswith(f"### {items[0][1]}")
        assert all(isinstance(image, Image.Image) for image, _caption in view.images)


def test_filters_come_from_the_records_breakdown_keys() -> None:
    options = explore.filter_options("ggbench", "ggbench_code")
    assert "difficulty: Easy" in options and "difficulty: Hard" in options
    assert any(o.startswith("problem_type: ") for o in options)
    assert any(o.startswith("categories: ") for o in options)  # a list-valued key: one filter per value
    easy = explore.filter_items("ggbench", "ggbench_code", ["difficulty: Easy"])
    both = explore.filter_items("ggbench", "ggbench_code", ["difficulty: Easy", "difficulty: Hard"])
    assert 0 < len(easy) < len(both)  # values of one key are alternatives
    data = explore.load_task("ggbench", "ggbench_code")
    easy_ids = {item_id for _label, item_id in easy}
    assert easy_ids == {i.id for i, m in zip(data.items, data.meta, strict=True) if m["difficulty"] == "Easy"}
    category = next(o for o in options if o.startswith("categories: "))
    narrowed = explore.filter_items("ggbench", "ggbench_code", ["difficulty: Easy", category])
    assert set(narrowed) <= set(easy)  # different keys must all hold


def test_geolaux_filters_by_type_and_step_length() -> None:
    options = explore.filter_options("geolaux", "geolaux")
    assert {"type: calculation", "type: proving"} <= set(options)
    assert any(o.startswith("step_bucket: ") for o in options)
    proving = explore.filter_items("geolaux", "geolaux", ["type: proving"])
    assert proving and all(
        explore.item_view("geolaux", "geolaux", item_id).meta_rows[0] == ["breakdown: type", "proving"]
        for _label, item_id in proving
    )


def test_unknown_filter_task_benchmark_and_item_are_refused() -> None:
    with pytest.raises(DemoInputError, match="unknown filter"):
        explore.filter_items("ggbench", "ggbench_code", ["difficulty: Impossible"])
    with pytest.raises(DemoInputError, match="no task"):
        explore.filter_items("ggbench", "nope")
    with pytest.raises(DemoInputError, match="unknown benchmark"):
        explore.task_choices("../etc")
    with pytest.raises(DemoInputError, match="no item"):
        explore.item_view("ggbench", "ggbench_code", "does-not-exist")


def test_ggbench_item_shows_script_steps_and_step_images() -> None:
    view = explore.item_view("ggbench", "ggbench_code", "1")
    captions = [caption for _image, caption in view.images]
    assert "problem_image" in captions and "final_image" in captions
    assert any(c.startswith("step_images ") for c in captions)
    assert "**reference_script**\n\n```" in view.markdown  # code shown as code
    assert "**steps**" in view.markdown and "Segment(A, B)" in view.markdown
    assert ["breakdown: difficulty", "Easy"] in view.meta_rows


def test_capgeo_bench_item_shows_caption_keypoints() -> None:
    view = explore.item_view("capgeo_bench", "capgeo_bench", "cb_01")
    assert view.images and view.keypoint_rows
    assert {row[1] for row in view.keypoint_rows} <= {"element", "relation", "numerical"}
    assert ["caption_en", "numerical", "AB = 5"] in view.keypoint_rows


def test_geolaux_item_shows_solution_not_as_code() -> None:
    view = explore.item_view("geolaux", "geolaux", "en_1")
    assert "**solution**\n\n∵ AB = AC" in view.markdown
    assert "**steps_explanation**" in view.markdown


# --------------------------------------------------------------------------- captions


def test_caption_breakdown_marks_covered_missed_and_hallucinated() -> None:
    key = "capgeo_bench:cb_01"
    reference = try_metrics.reference_caption(key)
    assert reference.startswith("In triangle ABC, AB = AC = 5")
    result = try_metrics.score_caption("In triangle ABC, AB = AC = 5 and BC = 7. Circle O passes through A.", key)
    statuses = {status for _text, status in result.highlights if status}
    assert statuses == {try_metrics.COVERED, try_metrics.MISSED, try_metrics.HALLUCINATED}
    rows = {row[0]: row for row in result.score_rows}
    assert set(rows) == {"element", "relation", "numerical", "overall"}
    marked = {(row[1], row[2]) for row in result.keypoint_rows}
    assert ("AB = 5", "covered") in marked and ("BC = 6", "missed") in marked and ("BC = 7", "hallucinated") in marked
    perfect = try_metrics.score_caption(reference, key)
    assert all(row[1] == "1.000" for row in perfect.score_rows if row[0] != "relation" or row[1] != "n/a")
    assert not any(status == try_metrics.MISSED for _t, status in perfect.highlights)


def test_caption_references_cover_both_languages() -> None:
    keys = [key for _label, key in try_metrics.caption_references()]
    assert any(k.startswith("capgeo_bench:") for k in keys) and any(k.startswith("capgeo_bench_zh:") for k in keys)
    zh = next(k for k in keys if k.startswith("capgeo_bench_zh:"))
    result = try_metrics.score_caption(try_metrics.reference_caption(zh), zh)
    assert result.score_rows[-1][1] == "1.000"


def test_caption_limits_and_engines() -> None:
    with pytest.raises(DemoInputError, match=f"limit is {MAX_CAPTION_CHARS:,}"):
        try_metrics.score_caption("x" * (MAX_CAPTION_CHARS + 1), "capgeo_bench:cb_01")
    with pytest.raises(DemoInputError, match="empty"):
        try_metrics.score_caption("   ", "capgeo_bench:cb_01")
    with pytest.raises(DemoInputError, match="unknown reference"):
        try_metrics.score_caption("AB = 5", "../../etc/passwd")
    assert try_metrics.caption_engines() == ["offline"]  # conftest clears GEOMEVAL_JUDGE_MODEL
    with pytest.raises(DemoInputError, match="no judge is configured"):
        try_metrics.score_caption("AB = 5", "capgeo_bench:cb_01", "judge")


# --------------------------------------------------------------------------- scripts


def test_reference_script_passes_and_verifies_itself() -> None:
    refs = try_metrics.script_references()
    assert refs and all(key for _label, key in refs)
    key = refs[0][1]
    result = try_metrics.try_script(try_metrics.reference_script(key), key)
    assert result.pass_at_1 and result.verifier_score == pytest.approx(1.0)
    assert result.figure is not None and result.reference_figure is not None
    assert all(row[1] == "✓" for row in result.line_rows)
    assert result.check_rows and all(row[2] == "✓" for row in result.check_rows)
    assert "Pass@1: 1" in result.summary and "PSNR" in result.summary


def test_script_with_a_bad_line_reports_it() -> None:
    result = try_metrics.try_script("A = (0, 0)\nB = (4, 1)\nC = Foo(A)\ns = Segment(A, B)", "1")
    assert not result.pass_at_1
    bad = [row for row in result.line_rows if row[1] == "✗"]
    assert len(bad) == 1 and bad[0][0] == 3 and "Foo" in bad[0][3]
    assert result.verifier_score is not None and result.verifier_score < 1
    alone = try_metrics.try_script("A = (0, 0)\nB = (1, 1)", None)
    assert alone.pass_at_1 and alone.verifier_score is None and alone.reference_figure is None


def test_script_limits() -> None:
    with pytest.raises(DemoInputError, match=f"limit is {MAX_SCRIPT_CHARS:,}"):
        try_metrics.try_script("A = (0, 0)\n" * (MAX_SCRIPT_CHARS // 10), None)
    with pytest.raises(DemoInputError, match=f"limit is {MAX_SCRIPT_LINES:,}"):
        try_metrics.try_script("\n".join(f"P{i} = ({i}, 0)" for i in range(MAX_SCRIPT_LINES + 1)), None)
    with pytest.raises(DemoInputError, match="empty"):
        try_metrics.try_script("", None)
    with pytest.raises(DemoInputError, match="unknown reference"):
        try_metrics.try_script("A = (0, 0)", "../1")


def test_script_whose_figure_is_too_large_to_draw_keeps_its_results_and_names_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The renderer refuses a construction with more than MAX_OBJECTS drawables; the visitor
    is told so, naming the limit (not a bare "Error"), and still gets the lines' results."""
    from geomeval.geogebra import render

    result = try_metrics.try_script("l = Sequence(Circle((k, 0), 1), k, 1, 9999)", None)
    assert f"at most {render.MAX_OBJECTS:,} objects" in result.summary
    assert "more than 5000 drawable objects" in result.summary and "no figure" in result.summary
    assert result.figure is None and result.pass_at_1 and [row[1] for row in result.line_rows] == ["✓"]
    scored = try_metrics.try_script("l = Sequence(Sequence((i, j), i, 1, 100), j, 1, 100)", "1")
    assert "too large to draw" in scored.summary and scored.figure is None
    assert scored.scores["PSNR"].value == 0.0  # the run's scorer: a figure it cannot draw is the answer's floor

    def broken(*_args: object, **_kwargs: object) -> bytes:
        raise ValueError("a renderer bug")

    monkeypatch.setattr(try_metrics, "render_png", broken)  # anything else is not bad input
    with pytest.raises(ValueError, match="a renderer bug") as bug:
        try_metrics.script_result("A = (0, 0)", None)  # try_script's work, as its sandbox runs it
    assert not isinstance(bug.value, DemoInputError)


def test_a_hostile_script_is_stopped_with_a_clear_error_and_the_next_one_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Killed past the CPU time limit (shortened here): the visitor's request fails alone. The
    # script draws a thousand points, far more than 0.01 CPU seconds of work even in a warm worker.
    monkeypatch.setattr(try_metrics, "SCRIPT_TIMEOUT_S", 0.01)
    with pytest.raises(DemoInputError, match="stopped: it ran past the CPU time limit"):
        try_metrics.try_script("L = Sequence((k, k^2), k, 1, 1000)", None)
    monkeypatch.undo()
    assert try_metrics.try_script("A = (0, 0)", None).pass_at_1


def _png(size: tuple[int, int] = (60, 40)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, "white").save(buffer, format="PNG")
    return buffer.getvalue()


def test_drawing_is_compared_and_bad_uploads_refused(tmp_path: Path) -> None:
    key = try_metrics.script_references()[0][1]
    upload = tmp_path / "uploads" / "drawing.png"
    upload.parent.mkdir()
    upload.write_bytes(_png())
    result = try_metrics.try_drawing(str(upload), key, upload_root=tmp_path / "uploads")
    assert [row[0] for row in result.score_rows] == ["PSNR", "SSIM"] and "PSNR" in result.summary
    bad = tmp_path / "uploads" / "bad.png"
    bad.write_text("not an image")
    with pytest.raises(DemoInputError, match="not a readable image"):
        try_metrics.try_drawing(str(bad), key, upload_root=tmp_path / "uploads")
    outside = tmp_path / "elsewhere.png"
    outside.write_bytes(_png())
    with pytest.raises(DemoInputError, match="not an upload"):
        try_metrics.try_drawing(str(outside), key, upload_root=tmp_path / "uploads")
    with pytest.raises(DemoInputError, match="not an upload"):
        try_metrics.try_drawing(str(tmp_path / "uploads" / ".." / "elsewhere.png"), key, upload_root=tmp_path / "uploads")
    side = int(MAX_IMAGE_PIXELS**0.5) + 1
    big = io.BytesIO()
    Image.new("1", (side, side)).save(big, format="PNG")
    with pytest.raises(DemoInputError, match="pixels"):
        try_metrics.try_drawing(big.getvalue(), key)
    with pytest.raises(DemoInputError, match="Upload an image"):
        try_metrics.try_drawing(None, key)


def _encoded(fmt: str, size: tuple[int, int] = (60, 40), mode: str = "RGB") -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, "white" if mode != "CMYK" else (0, 0, 0, 0)).save(buffer, format=fmt)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("fmt", "mode"),
    [
        ("TIFF", "RGB"),
        ("TIFF", "CMYK"),
        ("ICO", "RGBA"),
        ("JPEG", "RGB"),
        ("GIF", "P"),
        ("WEBP", "RGB"),
        ("BMP", "RGB"),
    ],
)
def test_every_accepted_upload_is_scored_as_png(tmp_path: Path, fmt: str, mode: str) -> None:
    """TIFF and ICO drawings (which PIL opens) were accepted and then failed with "not an
    image" at display: an upload is now decoded once and passed on as PNG."""
    key = try_metrics.script_references()[0][1]
    data = _encoded(fmt, (48, 48) if fmt == "ICO" else (60, 40), mode)
    normalised = try_metrics.read_upload(data)
    assert normalised.startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(io.BytesIO(normalised)) as decoded:
        assert decoded.format == "PNG" and decoded.size == ((48, 48) if fmt == "ICO" else (60, 40))
        assert decoded.convert("RGB").getpixel((5, 5)) == (255, 255, 255)
    upload = tmp_path / f"drawing.{fmt.lower()}"
    upload.write_bytes(data)
    result = try_metrics.try_drawing(str(upload), key, upload_root=tmp_path)
    assert isinstance(result.image, Image.Image) and result.image.size == decoded.size
    png = try_metrics.try_drawing(_encoded("PNG", decoded.size), key)
    assert result.score_rows == png.score_rows  # a white figure scores alike in any format


def test_upload_bombs_and_other_formats_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    side = int(MAX_IMAGE_PIXELS**0.5) + 1
    big = io.BytesIO()
    Image.new("1", (side, side)).save(big, format="TIFF", compression="group4")
    with pytest.raises(DemoInputError, match="pixels"):
        try_metrics.read_upload(big.getvalue())
    # An icon whose directory says 0×0 (256×256) but whose PNG is over the pixel limit:
    # Pillow would decode it while opening the file, so it is refused before Pillow sees it.
    inner = io.BytesIO()
    Image.new("1", (side, side)).save(inner, format="PNG")
    png = inner.getvalue()
    icon = (
        struct.pack("<HHH", 0, 1, 1)
        + struct.pack("<BBBBHHII", 0, 0, 0, 0, 1, 32, len(png), 22)
        + png
    )

    def no_decoding(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the icon was handed to Pillow")

    with monkeypatch.context() as patched:
        patched.setattr(Image, "open", no_decoding)
        with pytest.raises(DemoInputError, match="pixels"):
            try_metrics.read_upload(icon)
    eps = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nshowpage\n"  # Pillow would run Ghostscript
    with pytest.raises(DemoInputError, match="not a readable image"):
        try_metrics.read_upload(eps)


# --------------------------------------------------------------------------- solutions


def test_solution_steps_and_process_scores() -> None:
    examples = try_metrics.solution_examples()
    text = try_metrics.solution_example(examples[1][1])
    steps = try_metrics.split_solution(text)
    assert len(steps.steps) == 3 and steps.answer == "12/5"
    assert [value for _label, value in steps.choices()] == ["1", "2", "3"]
    rows = {row[0]: row[1] for row in try_metrics.process_scores(3, ["1", "2", "3"], True)}
    assert rows["PCS"] == "1" and rows["PQS"] == "1.0000" and rows["first wrong step"] == "none"
    early = {row[0]: row[1] for row in try_metrics.process_scores(3, ["2", "3"], True)}
    late = {row[0]: row[1] for row in try_metrics.process_scores(3, ["1", "2"], True)}
    assert early["PCS"] == late["PCS"] == "0" and float(early["PQS"]) < float(late["PQS"])  # early errors cost more
    assert early["first wrong step"] == "1"
    assert try_metrics.score_solution(text, ["1", "2", "3"], False)[0][1] == "0"  # a wrong final answer: PCS 0
    with pytest.raises(DemoInputError, match="no step 4"):
        try_metrics.process_scores(3, ["4"], True)
    with pytest.raises(DemoInputError, match="limit"):
        try_metrics.split_solution("1) x\n" * 10_000)


# --------------------------------------------------------------------------- answers


def test_answer_checker_verdict_and_rule() -> None:
    boxed = try_metrics.check_pair("so the answer is \\boxed{10}", "10")
    assert boxed.equal and boxed.extracted == "10" and boxed.method == "boxed" and boxed.rule
    letter = try_metrics.check_pair("The answer is (B)", "70", "A.40°\nB.70°\nC.80°", "°")
    assert letter.equal and letter.rule == "option-letter"
    wrong = try_metrics.check_pair("The answer is 12", "10")
    assert not wrong.equal and ["verdict", "not equal"] in wrong.rows()
    with pytest.raises(DemoInputError, match="limit"):
        try_metrics.check_pair("1" * 10_000, "1")
    with pytest.raises(DemoInputError, match="empty"):
        try_metrics.check_pair("The answer is 1", "")


# --------------------------------------------------------------------------- leaderboards


def test_published_tables_cite_their_sources() -> None:
    """Every published number carries where it was copied from; a table without numbers
    says why (numbers that could not be verified are never shipped)."""
    published = boards.published_boards()
    assert published
    papers = {b.key.split("/")[0] for b in published}
    assert {"capgeo", "ggbench", "geoeval", "geolaux", "me2"} <= papers
    assert {b.benchmark for b in published} == set(REGISTRY)  # one table at least per benchmark
    for board in published:
        assert board.benchmark in REGISTRY, board.key
        table = boards.board_table(board.key)
        assert table.headers[-1] == "source"
        if board.rows:
            assert board.source and all(row[-1] == board.source for row in table.rows)
            assert "table" in board.source.lower() or "abstract" in board.source.lower()  # where in the paper
        else:
            assert board.note, f"{board.key}: a table without numbers must say why"


def test_runs_table_and_breakdowns(runs_root: Path) -> None:
    names = boards.run_names(runs_root)
    assert names == ["geolaux-random", "group/ggbench-random"]
    table = boards.runs_table(runs_root)
    assert [row[0] for row in table.rows] == names and "ACS" in table.headers and "Pass@1" in table.headers
    only = boards.runs_table(runs_root, "geolaux")
    assert [row[0] for row in only.rows] == ["geolaux-random"]
    groups, metrics = boards.breakdown_options(runs_root, ["geolaux-random"])
    assert "step_bucket" in groups and "type" in groups and "ACS" in metrics
    found = boards.breakdown(runs_root, ["geolaux-random"], "step_bucket", "ACS")
    assert found.table.headers == ["step_bucket", "geolaux-random"] and found.keys[0] == "1-4"
    results = json.loads((runs_root / "geolaux-random" / "results.json").read_text())
    assert found.table.rows[0][1] == round(100 * results["breakdowns"]["step_bucket"]["1-4"]["ACS"]["value"], 2)
    figure = boards.breakdown_plot(runs_root, ["geolaux-random", "group/ggbench-random"], "step_bucket", "ACS")
    # The GGBench run has no ACS by step_bucket: it is named as having no data, not drawn.
    assert figure.axes and figure.axes[0].get_title() == "ACS by step_bucket (no data: group/ggbench-random)"
    assert figure.axes[0].get_legend() is None
    ggb = boards.breakdown(runs_root, ["group/ggbench-random"], "difficulty", "Pass@1")
    assert [row[0] for row in ggb.table.rows] == ["Easy", "Medium", "Hard"]


def _fake_run(
    folder: Path, metrics: dict[str, object], breakdowns: dict[str, object] | None = None
) -> None:
    folder.mkdir(parents=True)
    results = {
        "benchmark": "geolaux",
        "task": "geolaux",
        "model": "m",
        "metrics": metrics,
        "breakdowns": breakdowns or {},
    }
    (folder / "results.json").write_text(json.dumps(results))


def test_runs_listing_walks_the_runs_folder_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Listing N runs walked the tree once per run (resolve_run per name): quadratic."""
    root = tmp_path / "runs"
    for i in range(300):
        _fake_run(
            root / f"batch{i % 3}" / f"run{i:03d}",
            {"ACS": {"value": i / 300}},
            {"type": {"a": {"ACS": {"value": 0.5}}}},
        )
    walks = []
    discover = boards.discover_runs

    def counted(found_root: Path) -> dict[str, Path]:
        walks.append(found_root)
        return discover(found_root)

    monkeypatch.setattr(boards, "discover_runs", counted)
    table = boards.runs_table(root)
    assert len(table.rows) == 300 and len(walks) == 1
    names = boards.run_names(root)
    assert len(names) == 300 and len(walks) == 2
    boards.breakdown_options(root, names[:12])  # a comparison of 12 runs: one walk too
    assert len(walks) == 3
    found = boards.breakdown(root, names[:12], "type", "ACS")
    assert len(found.series) == 12 and len(walks) == 4


def test_runs_listing_keeps_its_checks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Reading the discovered files directly still leaves out links that lead outside,
    oversized files and files that are not results."""
    root = tmp_path / "runs"
    _fake_run(root / "good", {"ACS": {"value": 0.5}})
    _fake_run(tmp_path / "secret", {"ACS": {"value": 1.0}})
    (root / "escape").mkdir()
    os.symlink(tmp_path / "secret" / "results.json", root / "escape" / "results.json")
    (root / "notes").mkdir()
    (root / "notes" / "results.json").write_text(json.dumps(["not", "results"]))
    _fake_run(root / "huge", {"ACS": {"value": 0.5}, "pad": "x" * 2000})
    monkeypatch.setattr(boards, "MAX_RESULTS_BYTES", 1000)
    assert boards.run_names(root) == ["good"]
    with pytest.raises(DemoInputError, match="no run"):
        boards.load_results(root, "escape")
    with pytest.raises(DemoInputError, match="limit"):
        boards.load_results(root, "huge")


def test_breakdown_metric_must_be_the_runs_and_file_text_is_drawn_plain(
    runs_root: Path, tmp_path: Path
) -> None:
    """A visitor's metric became a plot title parsed as mathtext ("$x^{$" failed at
    savefig); it must be one of the runs' metrics, and text from files is drawn as written."""
    for metric in ("$x^{$", "", None, "acs"):
        with pytest.raises(DemoInputError, match="metric"):
            boards.breakdown(runs_root, ["geolaux-random"], "step_bucket", metric)
        with pytest.raises(DemoInputError, match="metric"):
            boards.breakdown_plot(runs_root, ["geolaux-random"], "step_bucket", metric)
    root = tmp_path / "runs"
    odd = "$x^{$"
    for name in ("$r^{$", "plain"):
        _fake_run(
            root / name,
            {odd: {"value": 0.5}},
            {"$g_{$": {"$b^{$": {odd: {"value": 0.25}}, "b": {}}},
        )
    figure = boards.breakdown_plot(root, ["$r^{$", "plain"], "$g_{$", odd)
    figure.savefig(io.BytesIO(), format="png")  # raised ParseSyntaxException
    axes = figure.axes[0]
    assert axes.get_title() == f"{odd} by $g_{{$" and axes.get_ylabel() == odd
    # Each bucket, then its n per run ("?": these results state no scored count).
    assert [t.get_text() for t in axes.get_xticklabels()] == ["$b^{$\nn=? | ?", "b\nn=? | ?"]
    assert [t.get_text() for t in axes.get_legend().get_texts()] == ["$r^{$", "plain"]


def test_runs_outside_the_folder_are_refused(runs_root: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "results.json").write_text(json.dumps({"metrics": {}}))
    for name in ("../secret", str(secret), "group/../../secret", "", "geolaux-random/../geolaux-random", "a\\..\\b"):
        with pytest.raises(DemoInputError):
            boards.resolve_run(runs_root, name)
    link = runs_root / "linked"
    try:
        os.symlink(secret, link)
        assert "linked" not in boards.discover_runs(runs_root)
        with pytest.raises(DemoInputError, match="no run"):
            boards.load_results(runs_root, "linked")
    finally:
        link.unlink(missing_ok=True)


def test_empty_and_missing_runs_folders(tmp_path: Path) -> None:
    table = boards.runs_table(tmp_path / "absent")
    assert table.rows == [] and "No runs" in table.note
    broken = tmp_path / "runs" / "broken"
    broken.mkdir(parents=True)
    (broken / "results.json").write_text("{not json")
    assert boards.runs_table(tmp_path / "runs").rows == []
    with pytest.raises(DemoInputError, match="not valid JSON"):
        boards.load_results(tmp_path / "runs", "broken")


def test_runs_folder_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(boards.RUNS_ENV, str(tmp_path))
    assert boards.runs_root() == tmp_path.resolve()
    assert boards.runs_root(tmp_path / "x") == (tmp_path / "x").resolve()


def test_published_numbers_as_copied() -> None:
    """Spot checks against the sources (GeoLaux README table, GGBench project page)."""
    geolaux = boards.board_table("geolaux/0")
    o3 = next(row for row in geolaux.rows if row[0] == "o3")
    assert o3[geolaux.headers.index("PCS")] == 78.5 and o3[geolaux.headers.index("PQS")] == 86.0
    ggbench = boards.board_table("ggbench/0")
    gpt5 = next(row for row in ggbench.rows if row[0] == "GPT-5")
    assert gpt5[ggbench.headers.index("VLM-I")] == 57.08 and gpt5[ggbench.headers.index("Human")] == 83.06
    figure = boards.board_plot("geolaux/0", "PQS")
    assert figure.axes[0].get_title().endswith("PQS")


# --------------------------------------------------------------------------- what a researcher sees


def _need_cjk_font() -> None:
    from geomeval.engines.fonts import has_cjk_font

    if not has_cjk_font():
        if os.environ.get("REQUIRE_SPACE", "").strip() not in ("", "0"):
            pytest.fail("REQUIRE_SPACE is set but no CJK font is installed (apt-get install fonts-wqy-zenhei)")
        pytest.skip("no CJK font installed (apt-get install fonts-wqy-zenhei)")


def test_short_problems_head_the_item_and_its_label() -> None:
    """GeoEval's "Find A C." (9 characters) is the problem: first in the main pane and in the
    item list, never a side-table cell; the solution is not the title."""
    view = explore.item_view("geoeval", "geoeval_2000", "101")
    assert view.markdown.startswith("### 101\n\n**problem**\n\nFind A C.")
    assert ["problem", "Find A C."] not in view.meta_rows
    assert dict(explore.filter_items("geoeval", "geoeval_2000"))["101 · Find A C."] == "101"
    zh = explore.item_view("geolaux", "geolaux", "zh_1")
    assert zh.markdown.split("\n\n")[1:3] == ["**problem_text**", "如图，在矩形ABCD中，AB=6，BC=8，对角线AC与BD相交于点O，则OA的长为"]
    assert all(label.split(" · ")[1] == str(item.fields["problem_text"]).strip()[:69].strip() or "…" in label
               for item, (label, _id) in zip(explore.load_task("geolaux", "geolaux").items,
                                             explore.filter_items("geolaux", "geolaux"), strict=True))
    assert all(row[0] != "answer" for row in view.meta_rows)  # the gold answer is in the main pane


def test_latex_is_rendered_or_turned_into_symbols() -> None:
    from geomeval.demo import latex

    assert latex.markdown("A B \\perp B C, \\odot O, $\\frac{1}{2}$") == "A B ⊥ B C, ⊙ O, $\\frac{1}{2}$"
    assert latex.plain("The midpoint is $\\left(\\frac{2+8}{2}, \\frac{5-1}{2}\\right)$, \\angle A = 90^{\\circ}") == (
        "The midpoint is ((2+8)/(2), (5-1)/(2)), ∠ A = 90^°")
    assert latex.markdown("\\unknowncommand stays") == "\\unknowncommand stays"
    view = explore.item_view("geoeval", "geoeval_2000", "101")
    assert "A B ⊥ B C" in view.markdown and "\\perp" not in view.markdown


def test_explore_prompt_links_and_neighbours() -> None:
    prompt = explore.prompt_markdown("geoeval", "geoeval_2000", "101")
    messages = REGISTRY["geoeval"].messages(explore._find_item("geoeval", "geoeval_2000", "101")[0], "geoeval_2000")
    sent = next(p["text"] for p in messages[0]["content"] if p.get("type") == "text")
    assert f"```text\n{sent}\n```" in prompt  # verbatim
    assert "[image 1 (image/png" in prompt
    ids = [i for _l, i in explore.filter_items("geoeval", "geoeval_2000")]
    assert explore.neighbour("geoeval", "geoeval_2000", [], ids[0], -1) == ids[-1]
    assert explore.neighbour("geoeval", "geoeval_2000", [], ids[0], 1) == ids[1]
    link = explore.item_link("geoeval", "geoeval_2000", "101")
    assert link == "?tab=explore&benchmark=geoeval&task=geoeval_2000&item=101"
    assert explore.link_target({"benchmark": "geoeval", "task": "geoeval_2000", "item": "101"}) == ("geoeval", "geoeval_2000", "101")
    with pytest.raises(DemoInputError, match="no item"):
        explore.link_target({"benchmark": "geoeval", "item": "../../x"})


def test_drawn_chinese_is_glyphs_not_boxes() -> None:
    """GeoGebra's Text("三") and Text("角") draw different pixels: with a Latin-only font
    both are the same missing-glyph box."""
    _need_cjk_font()
    from geomeval.geogebra import render_png, run_script

    drawn = [render_png(run_script(f'A = (0, 0)\nB = (4, 2)\nt = Text("{c}", (1, 1))'), size=(200, 120)) for c in "三角"]
    assert drawn[0] != drawn[1]


def test_plots_use_the_cjk_chain_and_say_what_is_missing(tmp_path: Path) -> None:
    """A Chinese run name is drawn with a font that has its glyphs; a run with no data is left
    out of the legend and named; a 0 is labelled "0", a missing bucket "—"; the options are
    what the runs share."""
    _need_cjk_font()
    from matplotlib.font_manager import FontProperties, findfont
    from matplotlib.ft2font import FT2Font

    root = tmp_path / "runs"
    _fake_run(root / "中文运行", {"ACS": {"value": 0.5}, "PCS": {"value": 0.1}},
              {"type": {"a": {"ACS": {"value": 0.0}}, "b": {"ACS": {"value": 0.5}}}, "lang": {"en": {"ACS": {"value": 1}}}})
    _fake_run(root / "other", {"ACS": {"value": 0.5}}, {"type": {"a": {"ACS": {"value": 1.0}}}})
    _fake_run(root / "empty", {"ACS": {"value": None}}, {"type": {"a": {}}})
    assert boards.breakdown_options(root, ["中文运行", "other"]) == (["type"], ["ACS"])
    found = boards.breakdown(root, ["中文运行", "other", "empty"], "type", "ACS")
    assert found.no_data == ["empty"] and found.series == {"中文运行": [0.0, 50.0], "other": [100.0, None]}
    figure = boards.breakdown_plot(root, ["中文运行", "other", "empty"], "type", "ACS")
    figure.savefig(io.BytesIO(), format="png")
    axes = figure.axes[0]
    legend = [t.get_text() for t in axes.get_legend().get_texts()]
    assert legend == ["中文运行", "other"] and "no data: empty" in axes.get_title()
    colours = {tuple(p.get_facecolor()) for p in axes.patches}
    assert len(colours) == 2
    labels = [t.get_text() for t in axes.texts]
    assert "0" in labels and "—" in labels
    family = axes.get_legend().get_texts()[0].get_fontfamily()
    cjk = [f for f in family if f != "DejaVu Sans"]
    assert cjk and FT2Font(findfont(FontProperties(family=cjk[0]))).get_char_index(ord("运")) != 0


def test_run_viewer_items_filters_and_views(runs_root: Path) -> None:
    from geomeval.demo import runview

    every = runview.run_items(runs_root, "geolaux-random")
    unscored = runview.run_items(runs_root, "geolaux-random", "unscored")
    wrong = runview.run_items(runs_root, "geolaux-random", "wrong")
    assert len(every) == 10 and unscored and wrong and len(unscored) + len(wrong) <= 10
    assert all(label.startswith("⚠") for label, _id in unscored)
    records = {r["id"]: r for r in runview.read_samples(runs_root, "geolaux-random")}
    assert {i for _l, i in unscored} == {i for i, r in records.items() if r["scores"]["ACS"]["value"] is None}
    view = runview.run_item_view(runs_root, "geolaux-random", unscored[0][1])
    assert "**response**" in view.markdown and "unscored" in view.markdown
    assert any(row[0] == "ACS" and row[1] == "unscored" and row[3] for row in view.score_rows)
    assert "```text" in view.prompt and view.images
    assert view.link == f"?tab=runs&run=geolaux-random&item={unscored[0][1]}"
    with pytest.raises(DemoInputError, match=r"refused|no run"):
        runview.run_items(runs_root, "../secret")
    with pytest.raises(DemoInputError, match="no item"):
        runview.run_item_view(runs_root, "geolaux-random", "nope")


def test_ranked_leaderboard_and_uploads(runs_root: Path, tmp_path: Path) -> None:
    from geomeval.demo import ranking

    table = ranking.leaderboard("geolaux/0", runs_root)
    assert table.headers[:3] == ["rank", "model", "type"] and table.headers[-1] == "source" and "ACS" in table.headers
    acs = table.headers.index("ACS")
    ranked = [r for r in table.rows if isinstance(r[0], int)]
    assert [r[acs] for r in ranked] == sorted((r[acs] for r in ranked), reverse=True)
    run = next(r for r in table.rows if r[2] == ranking.LOCAL)
    results = json.loads((runs_root / "geolaux-random" / "results.json").read_text())
    assert run[acs] == round(100 * results["metrics"]["ACS"]["value"], 2) and run[-4].startswith("70%")
    assert run[0] == ranking.APART and run[1] == "baseline:random · run geolaux-random"  # a 10-item sample run
    assert {"thinking", "non-thinking", "local run"} <= set(table.kinds)
    only = ranking.leaderboard("geolaux/0", runs_root, kinds=["local run"])
    assert [r[2] for r in only.rows] == ["local run"]
    assert [r[1] for r in ranking.leaderboard("geolaux/0", runs_root, search="O4").rows] == ["o4-mini"]
    geoeval = ranking.leaderboard("geoeval/0", tmp_path / "none",
                                  {"mine": {"benchmark": "geoeval", "task": "geoeval_2000", "model": "m",
                                            "metrics": {"A": {"value": 0.5, "ci": [0.4, 0.6]}}}})
    mine = next(r for r in geoeval.rows if r[1] == "m · run mine")
    assert mine[geoeval.headers.index("GeoEval-2000 A (%)")] == 50.0 and mine[-3] == "[40.00, 60.00]"
    assert ranking.to_csv(geoeval).splitlines()[0].startswith("rank,model,type,")
    upload = tmp_path / "up" / "results.json"
    upload.parent.mkdir()
    upload.write_text(json.dumps({"benchmark": "geolaux", "metrics": {"ACS": {"value": 0.3}}}))
    name, data = ranking.read_uploaded(upload, upload.parent, {})
    assert name == "results" and ranking.read_uploaded(upload, upload.parent, {"results": data})[0] == "results-2"
    for text, message in (("{x", "not valid JSON"), ('{"metrics": {}}', "no \"metrics\""),
                          ('{"benchmark": "nope", "metrics": {"A": {"value": 1}}}', "not one of"),
                          ('{"benchmark": "geolaux", "metrics": {"A": {"value": "1"}}}', "numeric")):
        upload.write_text(text)
        with pytest.raises(DemoInputError, match=message):
            ranking.read_uploaded(upload, upload.parent, {})
    with pytest.raises(DemoInputError, match="not an upload"):
        ranking.read_uploaded(upload, tmp_path / "elsewhere", {})


def test_visitor_messages_name_no_python_object_and_say_what_the_engine_cannot_run() -> None:
    with pytest.raises(DemoInputError, match=r"^Choose a reference construction first\.$"):
        try_metrics.try_drawing(_png(), None)
    with pytest.raises(DemoInputError) as refused:
        try_metrics.read_upload(b"not an image at all")
    assert "BytesIO" not in str(refused.value) and "0x" not in str(refused.value)
    result = try_metrics.try_script("A = (0, 0)\ng = Curve(cos(t), sin(t), t, 0, 1)", None)
    assert "does not run `Curve` (line 2)" in result.summary and "does not support" in result.summary
    assert "Curve" not in try_metrics.supported_commands() and "Segment" in try_metrics.supported_commands()
    long = try_metrics.split_solution("\n".join(f"{i}. step {i}" for i in range(1, 80)))
    assert len(long.steps) == 64 and "at most 64 steps" in long.markdown()
    short = try_metrics.split_solution("1. a\n2. b")
    assert "at most 64" not in short.markdown() and short.text == "1. a\n2. b"

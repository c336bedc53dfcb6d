"""The Space served for real: launched in-process on a free 127.0.0.1 port and driven
through gradio_client (every endpoint, bad input included) and through headless Chromium
(Debian's, via Playwright: every tab clicked, a caption and a script typed, screenshots
saved, and any error toast, console error or request leaving this machine fails the test).

Locally these skip without gradio, gradio_client, playwright or /usr/bin/chromium; CI sets
REQUIRE_SPACE=1, which turns a missing piece into a failure.
"""

from __future__ import annotations

import concurrent.futures
import importlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from PIL import Image

from geomeval.benchmarks import REGISTRY
from geomeval.demo.limits import MAX_CAPTION_CHARS, MAX_SCRIPT_CHARS

CHROMIUM = "/usr/bin/chromium"


def _required() -> bool:
    return os.environ.get("REQUIRE_SPACE", "").strip() not in ("", "0")


def _need(module: str) -> ModuleType:
    """The module, or a skip (a failure under REQUIRE_SPACE=1)."""
    if _required():
        return importlib.import_module(module)
    return pytest.importorskip(module)


gr = _need("gradio")
gradio_client = _need("gradio_client")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def runs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from geomeval.benchmarks import get_benchmark
    from geomeval.engines.judges import parse_judge_spec
    from geomeval.engines.models import ModelOptions, parse_model_spec
    from geomeval.run.runner import run

    root = tmp_path_factory.mktemp("space-runs")
    bench = get_benchmark("geolaux")
    run(bench, task="geolaux", model=parse_model_spec("baseline:random", ModelOptions()),
        judge=parse_judge_spec("offline"), out_dir=root / "geolaux-random")
    secret = root.parent / "secret"
    secret.mkdir(exist_ok=True)
    (secret / "results.json").write_text('{"metrics": {}}')
    return root


@pytest.fixture(scope="module")
def space(runs_root: Path) -> Iterator[str]:
    from geomeval.demo.app import launch

    demo = launch("127.0.0.1", _free_port(), runs_root, prevent_thread_lock=True, quiet=True)
    try:
        yield demo.local_url.rstrip("/")
    finally:
        demo.close()


@pytest.fixture(scope="module")
def client(space: str) -> Any:
    return gradio_client.Client(space + "/", verbose=False)


def _rows(frame: dict[str, Any]) -> list[list[Any]]:
    return frame["data"]


def _png_file(path: Path, size: tuple[int, int] = (64, 48)) -> Path:
    Image.new("RGB", size, "white").save(path, format="PNG")
    return path


# --------------------------------------------------------------------------- gradio_client


@pytest.mark.slow
def test_served_on_loopback_only(space: str) -> None:
    assert space.startswith("http://127.0.0.1:")


@pytest.mark.slow
def test_every_registered_benchmark_through_explore(client: Any) -> None:
    for name, bench in REGISTRY.items():
        task, summary, filters, item, count, text, gallery, meta, keypoints, prompt, link = client.predict(
            name, api_name="/explore_benchmark")
        assert [value for _label, value in task["choices"]] == list(bench.tasks)
        assert bench.title in summary
        if "no embedded sample" in summary:
            continue
        assert item["value"] and text.startswith(f"### {item['value']}")
    _task, _summary, filters, *_ = client.predict("ggbench", api_name="/explore_benchmark")
    easy = [value for _label, value in filters["choices"] if value == "difficulty: Easy"]
    assert easy
    item, count, text, gallery, meta, keypoints, prompt, link = client.predict("ggbench", "ggbench_code", easy,
                                                                          api_name="/explore_filter")
    assert "match" in count and item["choices"]
    text, gallery, meta, keypoints, prompt, link = client.predict("ggbench", "ggbench_code", item["choices"][0][1],
                                                                  api_name="/explore_item")
    assert len(gallery) >= 3 and ["breakdown: difficulty", "Easy"] in _rows(meta)
    summary, *_ = client.predict("geolaux", "geolaux_aux", api_name="/explore_task")
    assert "geolaux_aux" in summary
    text, gallery, meta, keypoints, prompt, link = client.predict("capgeo_bench", "capgeo_bench", "cb_01",
                                                                  api_name="/explore_item")
    assert _rows(keypoints) and "```text" in prompt and "item=cb_01" in link


def test_explore_refuses_bad_input(client: Any) -> None:
    with pytest.raises(Exception, match="unknown filter"):
        client.predict("ggbench", "ggbench_code", ["difficulty: ../../etc"], api_name="/explore_filter")
    with pytest.raises(Exception, match="no item"):
        client.predict("ggbench", "ggbench_code", "../../etc/passwd", api_name="/explore_item")


def test_caption_endpoint(client: Any) -> None:
    reference = client.predict("capgeo_bench:cb_01", api_name="/reference_caption")
    assert reference.startswith("In triangle ABC")
    summary, marks, scores, _keypoints = client.predict(
        "In triangle ABC, AB = AC = 5 and BC = 7.", "capgeo_bench:cb_01", "offline", api_name="/score_caption"
    )
    assert "Offline engine" in summary
    labels = {m["class_or_confidence"] for m in marks if m["class_or_confidence"]}
    assert labels == {"covered", "missed", "hallucinated"}
    assert [row[0] for row in _rows(scores)] == ["element", "relation", "numerical", "overall"]
    with pytest.raises(Exception, match=f"limit is {MAX_CAPTION_CHARS:,}"):
        client.predict("A" * (MAX_CAPTION_CHARS + 1), "capgeo_bench:cb_01", "offline", api_name="/score_caption")
    with pytest.raises(Exception, match=r"unknown reference caption|not in the list of choices"):
        client.predict("AB = 5", "/etc/passwd", "offline", api_name="/score_caption")


@pytest.mark.slow
def test_script_endpoint(client: Any) -> None:
    script = client.predict("1", api_name="/reference_script")
    assert "Segment(A, B)" in script
    summary, figure, reference, lines, checks = client.predict(script, "1", api_name="/run_script")
    assert "Pass@1: 1" in summary and "verifier: 1.00" in summary
    assert Path(figure).is_file() and Path(reference).is_file() and _rows(checks)
    summary, *_ = client.predict("Foo(1)\nBar(A, B)", "1", api_name="/run_script")  # no line runs: a blank figure
    assert "PSNR 0.00 dB" in summary and "SSIM 0.000" in summary and "no line of the answer ran" in summary
    summary, figure, reference, lines, checks = client.predict("A = (0, 0)\nB = Foo(A)", "", api_name="/run_script")
    assert "Pass@1: 0" in summary and any(row[1] == "✗" and "Foo" in row[3] for row in _rows(lines))
    with pytest.raises(Exception, match=f"limit is {MAX_SCRIPT_CHARS:,}"):
        client.predict("A = (0, 0)\n" * (MAX_SCRIPT_CHARS // 10), "1", api_name="/run_script")
    summary, figure, *_ = client.predict("l = Sequence(Circle((k, 0), 1), k, 1, 9999)", "", api_name="/run_script")
    assert "at most 5,000 objects" in summary and figure is None  # the renderer's limit named; results kept


def test_drawing_endpoint(client: Any, tmp_path: Path) -> None:
    handle = gradio_client.handle_file
    summary, image, reference, scores = client.predict(handle(str(_png_file(tmp_path / "d.png"))), "1", api_name="/score_drawing")
    assert [row[0] for row in _rows(scores)] == ["PSNR", "SSIM"] and "PSNR" in summary
    assert Path(image).is_file() and Path(reference).is_file()
    for fmt in ("TIFF", "ICO"):  # accepted, then "not an image" at display
        drawn = tmp_path / f"d.{fmt.lower()}"
        Image.new("RGB", (48, 48), "white").save(drawn, format=fmt)
        summary, image, reference, scores = client.predict(handle(str(drawn)), "1", api_name="/score_drawing")
        assert "PSNR" in summary and Path(image).is_file()
    bad = tmp_path / "bad.png"
    bad.write_text("this is not a picture")
    with pytest.raises(Exception, match="not a readable image"):
        client.predict(handle(str(bad)), "1", api_name="/score_drawing")
    big = tmp_path / "big.png"
    big.write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(6 * 2**20))
    with pytest.raises(Exception, match=r"(?i)too large|size"):  # over max_file_size: Gradio refuses the upload
        client.predict(handle(str(big)), "1", api_name="/score_drawing")


def test_solution_endpoints(client: Any) -> None:
    text = client.predict("en_2", api_name="/solution_example")
    steps, marks, final, scores = client.predict(text, api_name="/split_solution")
    assert "3 step(s)" in steps and marks["value"] == ["1", "2", "3"] and final is True
    assert _rows(scores)[0][:2] == ["PCS", "1"]
    scores = client.predict(["2", "3"], True, api_name="/process_scores")  # marks the split kept in the session
    rows = {row[0]: row[1] for row in _rows(scores)}
    assert rows["PCS"] == "0" and rows["first wrong step"] == "1" and float(rows["PQS"]) < 1
    with pytest.raises(Exception, match="limit"):
        client.predict("1) x\n" * 10_000, api_name="/split_solution")


def test_answer_endpoint(client: Any) -> None:
    verdict, rows = client.predict("The answer is \\boxed{70^\\circ}", "70", "", "°", api_name="/check_answer")
    assert "equal" in verdict and "not equal" not in verdict and ["rule", "exact-value"] in _rows(rows)
    verdict, _ = client.predict("The answer is (C)", "70", "A. 40°\nB. 70°\nC. 80°", "°", api_name="/check_answer")
    assert "not equal" in verdict and "option-letter" in verdict
    with pytest.raises(Exception, match="empty"):
        client.predict("The answer is 1", "  ", "", "", api_name="/check_answer")


@pytest.mark.slow
def test_leaderboard_endpoints(client: Any) -> None:
    board, note, table, _rank_by, _kinds, _column, plot, alt, csv, runs_note, runs, picked = client.predict(
        "(all)", api_name="/leaderboard")
    assert alt.startswith("Bar chart: ") and "n: not stated by the paper" in alt  # its text alternative, n said
    assert board["choices"] and table["headers"][:2] == ["rank", "model"] and table["headers"][-1] == "source"
    assert picked["value"] == ["geolaux-random"] and _rows(runs)[0][0] == "geolaux-random"
    runs_note, runs, picked = client.predict("ggbench", api_name="/runs_table")
    assert "No runs" in runs_note and picked["choices"] == []
    assert _rows(runs) == [] or all(row[1] == "ggbench" for row in _rows(runs))
    for _label, key in board["choices"]:
        note, table, _rank_by, _kinds, _column, plot, alt, csv = client.predict(key, api_name="/published_table")
        assert "ranked by" in note and table["headers"][:2] == ["rank", "model"] and table["headers"][-1] == "source"
        ranked_by = note.split("ranked by **")[1].split("**")[0]
        # The score it is ranked by comes third, pinned with rank and model (a phone shows it).
        assert table["headers"][2] == (ranked_by if ranked_by in table["headers"] else "type"), key
        assert all(str(row[-1]).startswith(("published: ", "local run: ")) for row in _rows(table))
        assert Path(csv).read_text(encoding="utf-8").splitlines()[0].startswith("rank,model,type,")
    group, metric, _note = client.predict(["geolaux-random"], api_name="/breakdown_options")
    assert "step_bucket" in [v for _l, v in group["choices"]] and metric["value"] == "ACS"
    plot, alt, table, _note = client.predict(["geolaux-random"], "step_bucket", "ACS", api_name="/breakdown")
    assert table["headers"] == ["step_bucket", "geolaux-random"] and plot
    assert "geolaux-random: 1-4 (n=" in alt  # every bar's n, in the plot and in its alt text
    with pytest.raises(Exception, match="has a metric"):  # was a mathtext plot title, failing at savefig
        client.predict(["geolaux-random"], "step_bucket", "$x^{$", api_name="/breakdown")


def test_run_names_cannot_leave_the_runs_folder(client: Any, runs_root: Path) -> None:
    for name in ("../secret", str(runs_root.parent / "secret"), "geolaux-random/../../secret"):
        with pytest.raises(Exception, match=r"refused|no run"):
            client.predict([name], "step_bucket", "ACS", api_name="/breakdown")
        with pytest.raises(Exception, match=r"refused|no run"):
            client.predict([name], api_name="/breakdown_options")


def test_server_serves_no_file_outside_its_folders(space: str, runs_root: Path) -> None:
    for path in ("/etc/passwd", str(runs_root / "geolaux-random" / "results.json"), str(Path(__file__))):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{space}/gradio_api/file={path}", timeout=10)
        assert refused.value.code in (403, 404)


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


# Scripts of the kinds that once hung the script endpoint or grew the server by gigabytes: a
# text doubled line after line, a nested list turned into text, and a dozen lines of
# list-building that run into the engine's element and time limits.
HOSTILE_SCRIPTS = [
    's = "xxxxxxxxxx"\n' + "s = s + s\n" * 40,
    "l = Sequence(Sequence(Sequence(k, k, 1, 200), j, 1, 200), i, 1, 200)\nt = Text(l)\nu = Text(Sequence(l, m, 1, 50))",
    "\n".join(f"l{n} = Sequence(Sequence(Distance((i, j), ({n}, 0)), i, 1, 400), j, 1, 400)" for n in range(12))
    + "\nt = Text(l1)",
]


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's memory from /proc")
@pytest.mark.slow
def test_hostile_scripts_neither_block_the_space_nor_grow_it(client: Any, space: str) -> None:
    from geomeval.demo.try_metrics import SCRIPT_TIMEOUT_S

    client.predict("A = (0, 0)", "", api_name="/run_script")  # the sandbox's workers are up
    before = _rss_mb()
    jobs = [client.submit(script, "1", api_name="/run_script") for script in HOSTILE_SCRIPTS[1:] * 2]
    jobs.append(client.submit(HOSTILE_SCRIPTS[0], "1", api_name="/run_script"))
    time.sleep(0.5)
    answered = time.monotonic()
    assert "Segment(A, B)" in client.predict("1", api_name="/reference_script")
    assert time.monotonic() - answered < 5.0  # other endpoints answer while the script ones work
    for job in jobs:  # each stopped by its own limit (SCRIPT_TIMEOUT_S CPU seconds at most)
        summary = job.result(timeout=60 + 20 * SCRIPT_TIMEOUT_S)[0]
        assert "Pass@1: 0" in summary and re.search(r"limit|more than \d|Circular definition", summary)
    assert _rss_mb() - before < 300  # the work ran in the sandbox's workers, not the server
    assert "Pass@1: 1" in client.predict("A = (0, 0)", "", api_name="/run_script")[0]  # still serving


# --------------------------------------------------------------------------- headless Chromium


@pytest.fixture(scope="module")
def browser(space: str) -> Iterator[Any]:
    """Chromium, started after the Space: Playwright's sync API runs an event loop on this
    thread, so the runs fixture (asyncio.run) must be done by then."""
    sync_api = _need("playwright.sync_api")
    if not Path(CHROMIUM).is_file() or shutil.which(CHROMIUM) is None:
        message = f"{CHROMIUM} not found (apt-get install chromium)"
        if _required():
            pytest.fail(f"REQUIRE_SPACE is set but {message}")
        pytest.skip(message)
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


class Watched:
    """A page whose console errors, uncaught exceptions and off-machine requests are kept."""

    def __init__(self, browser: Any, url: str, shots: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.url, self.shots = url, shots
        self.console_errors: list[str] = []
        self.outside: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        self.page.on("pageerror", lambda e: self.console_errors.append(f"page error: {e}"))
        self.page.route("**/*", self._route)
        self.page.set_default_timeout(30_000)

    def _route(self, route: Any) -> None:
        host = route.request.url.split("/")[2] if "://" in route.request.url else ""
        if route.request.url.startswith(("data:", "blob:")) or host.split(":")[0] in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def shot(self, name: str) -> None:
        """A full-page screenshot in the test's folder, and a copy a person can open after the
        run in SPACE_SCREENSHOTS (default build/space-screenshots/, ignored by git)."""
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        keep = Path(os.environ.get("SPACE_SCREENSHOTS") or Path(__file__).resolve().parents[2] / "build" / "space-screenshots")
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, keep / path.name)

    def error_toasts(self) -> list[str]:
        return [t.inner_text() for t in self.page.locator(".toast-body.error").all()]

    def assert_clean(self) -> None:
        assert self.error_toasts() == []
        assert self.page.locator(".error:has-text('Error')").count() == 0
        assert self.console_errors == []
        assert self.outside == []


def _tab(page: Any, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()


@pytest.mark.slow
def test_browser_clicks_through_every_tab(browser: Any, space: str, tmp_path: Path) -> None:
    watched = Watched(browser, space, tmp_path)
    page = watched.page
    page.goto(space + "/")
    page.get_by_text("Benchmark", exact=True).first.wait_for()
    page.locator("#explore-item-text h3").wait_for()  # the first item of the first benchmark
    watched.shot("01-explore")
    page.locator("#explore-benchmark input").click()
    page.get_by_role("option", name="GGBench (ggbench)").click()
    page.locator("#explore-item-text h3", has_text="1").wait_for()
    page.locator("#explore-gallery img").first.wait_for()
    watched.shot("02-explore-ggbench")

    _tab(page, "Try a metric")
    _tab(page, "Caption → keypoints")
    assert "arxiv.org/abs/2510.09302" in _text(page, "#card-caption")  # each metric card cites its paper
    page.locator("#caption-input textarea").fill("In triangle ABC, AB = AC = 5 and BC = 7. D is the midpoint of BC.")
    page.locator("#caption-score").click()
    page.locator("#caption-summary", has_text="Offline engine").wait_for()
    watched.shot("03-caption")

    _tab(page, "GeoGebra script → figure")
    editor = page.locator("#script-input .cm-content")
    editor.click()
    page.keyboard.type("A = (0, 0)\nB = (6, 2)\ns = Segment(A, B)\nM = Midpoint(A, B)\n")
    page.locator("#script-run").click()
    page.locator("#script-summary", has_text="Pass@1: 1").wait_for()
    page.locator("#script-figure img").wait_for()
    page.locator("#script-reference img").wait_for()
    watched.shot("04-script")

    _tab(page, "Solution → PQS / PCS")
    page.get_by_role("button", name="Load example").click()
    page.wait_for_function("document.querySelector('#solution-input textarea').value.length > 0")
    page.locator("#solution-split").click()
    page.locator("#solution-marks input[type=checkbox]").first.wait_for()
    page.locator("#solution-marks input[type=checkbox]").first.uncheck()
    page.locator("#solution-scores", has_text="marks: 01").wait_for()
    watched.shot("05-solution")

    _tab(page, "Answer check")
    assert "Limits:" in _text(page, "#card-answer")
    page.get_by_text("The answer is (C)", exact=True).first.click()  # a clickable example loads its inputs
    page.wait_for_function("document.querySelector('#answer-response textarea').value === 'The answer is (C)'")
    page.locator("#answer-check").click()
    page.locator("#answer-verdict", has_text="option-letter").wait_for()
    watched.shot("06-answer")

    _tab(page, "Leaderboards")
    page.get_by_text("Leaderboard: published rows and runs, ranked").wait_for()
    page.locator("#breakdown-plot").click()
    page.locator("#breakdown-table", has_text="geolaux-random").wait_for()
    watched.shot("07-leaderboards")

    _tab(page, "Explore")
    watched.shot("08-back-to-explore")
    watched.assert_clean()
    assert sorted(p.name for p in tmp_path.glob("*.png")) == [
        "01-explore.png", "02-explore-ggbench.png", "03-caption.png", "04-script.png",
        "05-solution.png", "06-answer.png", "07-leaderboards.png", "08-back-to-explore.png",
    ]


@pytest.mark.slow
def test_browser_shows_a_refused_input_as_an_error(browser: Any, space: str, tmp_path: Path) -> None:
    """The error detection itself works: an oversized caption brings the red toast, with
    the library's message."""
    watched = Watched(browser, space, tmp_path)
    page = watched.page
    page.goto(space + "/")
    _tab(page, "Try a metric")
    _tab(page, "Caption → keypoints")
    page.locator("#caption-input textarea").fill("A" * (MAX_CAPTION_CHARS + 10))
    page.locator("#caption-score").click()
    page.locator(".toast-body.error").first.wait_for()
    toasts = watched.error_toasts()
    watched.shot("refused-caption")
    assert any(f"limit is {MAX_CAPTION_CHARS:,}" in text for text in toasts), toasts
    assert watched.outside == []


def _open(browser: Any, space: str, tmp_path: Path, query: str = "") -> Watched:
    watched = Watched(browser, space, tmp_path)
    watched.page.goto(space + "/" + query)
    return watched


def _text(page: Any, selector: str) -> str:
    return str(page.locator(selector).first.inner_text())


@pytest.mark.slow
def test_browser_explore_shows_the_whole_item(browser: Any, space: str, tmp_path: Path) -> None:
    """GeoEval 101 through a deep link: the short problem ("Find A C.") heads the main pane and
    the item list, figures are fitted whole (not cropped), bare LaTeX is drawn as symbols,
    the exact prompt is beside the item, tables have their own headers, and Next moves on."""
    watched = _open(browser, space, tmp_path, "?tab=explore&benchmark=geoeval&task=geoeval_2000&item=101")
    page = watched.page
    page.locator("#explore-item-text h3", has_text="101").wait_for()
    text = _text(page, "#explore-item-text")
    assert text.index("Find A C.") < text.index("solution")  # the problem, before the solution
    assert "⊥" in text and "\\perp" not in text
    assert "Find A C." in page.locator("#explore-item input").input_value()
    page.locator("#explore-gallery img").first.wait_for()
    fits = page.eval_on_selector_all("#explore-gallery img", "els => els.map(e => getComputedStyle(e).objectFit)")
    assert fits and set(fits) == {"contain"}
    assert "Find A C." in _text(page, "#explore-prompt") and "A B \\perp B C" in _text(page, "#explore-prompt")
    headers = page.eval_on_selector_all("table thead th", "els => els.map(e => e.innerText.trim())")
    assert "field" in headers and "1" not in headers
    assert "?tab=explore&benchmark=geoeval&task=geoeval_2000&item=101" in _text(page, "#explore-link")
    watched.shot("explore-geoeval-101")
    page.locator("#explore-next").click()
    page.locator("#explore-item-text h3", has_text="102").wait_for()
    watched.assert_clean()
    # Each further link in a page of its own: leaving a page mid-request logs an AbortError.
    watched = _open(browser, space, tmp_path, "?benchmark=geoeval&task=geoeval_2000&item=109")
    page = watched.page
    page.locator("#explore-item-text h3", has_text="109").wait_for()
    page.locator("#explore-item-text .katex").first.wait_for()  # $\frac{…}{…}$ typeset, not raw
    assert "\\frac" not in _text(page, "#explore-item-text")
    watched.shot("explore-geoeval-109-latex")
    watched.assert_clean()
    watched = _open(browser, space, tmp_path, "?benchmark=geolaux&task=geolaux&item=zh_1")
    page = watched.page
    page.locator("#explore-item-text h3", has_text="zh_1").wait_for()
    assert "如图，在矩形ABCD中" in _text(page, "#explore-item-text")
    assert "如图" in page.locator("#explore-item input").input_value()
    watched.shot("explore-geolaux-zh")
    watched.assert_clean()


@pytest.mark.slow
def test_browser_bad_deep_link_is_one_warning_over_a_working_explore(browser: Any, space: str, tmp_path: Path) -> None:
    """An unknown item in a link: one warning saying so, the task opened on its first item,
    and every Explore control still working (no error badge anywhere)."""
    watched = _open(browser, space, tmp_path, "?tab=explore&benchmark=ggbench&task=ggbench_code&item=no-such-item")
    page = watched.page
    page.locator(".toast-body.warning", has_text="no item 'no-such-item'").first.wait_for()
    page.locator("#explore-item-text h3", has_text="1").wait_for()
    assert page.locator(".toast-body.warning").count() == 1
    page.locator("#explore-next").click()
    page.locator("#explore-item-text h3", has_text="2").wait_for()
    page.locator("#explore-benchmark input").click()
    page.get_by_role("option", name="GeoLaux (geolaux)").click()
    page.locator("#explore-item-text h3").wait_for()
    watched.shot("explore-bad-link")
    watched.assert_clean()


@pytest.mark.slow
def test_browser_run_viewer(browser: Any, space: str, tmp_path: Path) -> None:
    """A run's item through its link: prompt, response, scores with the judge's explanation,
    and the filter to unscored items."""
    watched = _open(browser, space, tmp_path, "?tab=runs&run=geolaux-random&item=en_2")
    page = watched.page
    page.locator("#run-item-text h3", has_text="en_2").wait_for()
    text = _text(page, "#run-item-text")
    assert "response" in text and "gold" in text
    assert "In right triangle ABC" in _text(page, "#run-prompt")  # the problem, as the model was sent it
    scores = _text(page, "#run-scores")
    assert "ACS" in scores and "needs an LLM judge" in scores
    assert "?tab=runs&run=geolaux-random&item=en_2" in _text(page, "#run-link")
    watched.shot("runs-item")
    page.locator("#run-show label", has_text="unscored").click()
    page.wait_for_function("document.querySelector('#run-item input').value.startsWith('⚠')")
    assert "unscored" in _text(page, "#run-item-text")
    watched.shot("runs-unscored")
    watched.assert_clean()


@pytest.mark.slow
def test_browser_leaderboard_ranks_searches_exports_and_takes_an_upload(
    browser: Any, space: str, tmp_path: Path
) -> None:
    watched = _open(browser, space, tmp_path)
    page = watched.page
    _tab(page, "Leaderboards")
    page.locator("#leaderboard-benchmark input").click()
    page.get_by_role("option", name="geolaux", exact=True).click()
    page.locator("#leaderboard-df", has_text="geolaux-random").wait_for()
    table = _text(page, "#leaderboard-df")
    assert "o3" in table and "70% (7/10)" in table  # a published row; the run with its coverage
    assert "baseline:random · run geolaux-random" in table and "10 of 2,186 items" in table  # apart, with why
    assert "0 run(s) ranked, 1 listed apart" in _text(page, "#leaderboard-note")
    assert "ranked by ACS" in _text(page, "#leaderboard-note").replace("*", "")
    with page.expect_download() as download:
        page.locator("#leaderboard-csv").click()
    csv = Path(download.value.path()).read_text(encoding="utf-8")
    assert csv.startswith("rank,model,type,") and "geolaux-random" in csv
    page.locator("#leaderboard-search textarea, #leaderboard-search input").first.fill("o4")
    page.keyboard.press("Enter")
    page.wait_for_function("!document.querySelector('#leaderboard-df').innerText.includes('geolaux-random')")
    assert "o4-mini" in _text(page, "#leaderboard-df")
    page.locator("#leaderboard-search textarea, #leaderboard-search input").first.fill("")
    page.keyboard.press("Enter")
    results = {"benchmark": "geolaux", "task": "geolaux", "model": "<i>我的模型</i>", "headline": "ACS",
               "metrics": {"ACS": {"value": 0.5, "scored": 10, "total": 10, "coverage": 1.0, "stderr": 0.1}}}
    good = tmp_path / "mine.json"
    good.write_text(json.dumps(results, ensure_ascii=False), encoding="utf-8")
    page.locator("#leaderboard-upload input[type=file]").set_input_files(str(good))
    page.locator("#leaderboard-upload-note", has_text="Added").wait_for()
    page.locator("#leaderboard-df", has_text="我的模型").wait_for()
    assert "± 19.60" in _text(page, "#leaderboard-df")  # 1.96 · stderr, ×100
    # The model name is text wherever it is shown: its tags are read, never rendered.
    assert "model <i>我的模型</i>" in _text(page, "#leaderboard-upload-note")
    assert "<i>我的模型</i> · run mine" in _text(page, "#leaderboard-df")
    assert page.locator("#leaderboard-df i, #leaderboard-upload-note i").count() == 0
    watched.shot("leaderboard-upload")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    page.locator("#leaderboard-upload input[type=file]").set_input_files(str(bad))
    page.locator(".toast-body.error").first.wait_for()
    assert any("not valid JSON" in t and "0x" not in t for t in watched.error_toasts())
    assert watched.console_errors == [] and watched.outside == []


@pytest.mark.slow
def test_browser_errors_leave_no_stale_results(browser: Any, space: str, tmp_path: Path) -> None:
    """A refused input clears what an earlier input showed; errors are written for a person;
    an edited solution withdraws the marks of the text it replaced."""
    watched = _open(browser, space, tmp_path)
    page = watched.page
    _tab(page, "Try a metric")
    _tab(page, "GeoGebra script → figure")
    page.locator("#script-load").click()
    page.wait_for_function("document.querySelector('#script-input .cm-content').innerText.includes('Segment')")
    page.locator("#script-run").click()
    page.locator("#script-summary", has_text="Pass@1: 1").wait_for()
    page.locator("#script-input .cm-content").click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.locator("#script-run").click()
    page.locator(".toast-body.error", has_text="empty").first.wait_for()
    assert "Pass@1" not in _text(page, "#script-summary")  # the old numbers are gone
    watched.shot("script-error-cleared")
    page.locator("#script-input .cm-content").click()
    page.keyboard.type("g = Curve(cos(t), sin(t), t, 0, 1)\n")
    page.locator("#script-run").click()
    page.locator("#script-summary", has_text="does not run").wait_for()
    assert "Curve" in _text(page, "#script-summary") and "not support" in _text(page, "#script-summary")
    _tab(page, "Solution → PQS / PCS")
    page.get_by_role("button", name="Load example").click()
    page.wait_for_function("document.querySelector('#solution-input textarea').value.length > 0")
    page.locator("#solution-split").click()
    page.locator("#solution-marks input[type=checkbox]").first.wait_for()
    page.locator("#solution-input textarea").press("End")
    page.locator("#solution-input textarea").type(" edited")
    page.locator("#solution-steps", has_text="split it again").wait_for()
    assert page.locator("#solution-marks input[type=checkbox]").count() == 0
    watched.shot("solution-edited")
    assert not any("None" in t or "BytesIO" in t for t in watched.error_toasts())
    assert watched.console_errors == [] and watched.outside == []


# --------------------------------------------------------------------------- launchers


def _serves(command: list[str], port: int, env: dict[str, str] | None = None) -> str:
    """Start a launcher, wait until the Space answers on 127.0.0.1:port, return its config."""
    process = subprocess.Popen(command, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[2])
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise AssertionError(f"{command} exited {process.returncode}: {process.stderr.read().decode()[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/config", timeout=5) as answer:
                    return answer.read().decode()
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.3)
        raise AssertionError(f"{command} did not serve on port {port} in 90 s")
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.mark.slow
def test_geomeval_demo_command_serves(runs_root: Path) -> None:
    port = _free_port()
    config = _serves([sys.executable, "-m", "geomeval.cli", "demo", "--port", str(port), "--runs", str(runs_root)], port)
    assert '"title":"geomeval"' in config.replace(" ", "")


@pytest.mark.slow
def test_space_launcher_serves_on_the_env_port(runs_root: Path) -> None:
    port = _free_port()
    launcher = Path(__file__).resolve().parents[2] / "spaces" / "geomeval" / "app.py"
    config = _serves([sys.executable, str(launcher)], port,
                     {"GRADIO_SERVER_PORT": str(port), "GRADIO_SERVER_NAME": "127.0.0.1",
                      "GEOMEVAL_SPACE_RUNS": str(runs_root)})
    assert '"title":"geomeval"' in config.replace(" ", "")


# --------------------------------------------------------------------------- accessibility

AXE_VERSION = "4.14.1"  # axe-core (MPL-2.0), fetched from the npm registry into build/ at test time, not vendored
# Emoji (and the emoji presentation selector) a Space without an emoji font draws as boxes.
EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2705\u274C\u2B50\uFE0F]")
TOP_TABS = {"Explore": "explore", "Runs": "runs&run=geolaux-random&item=en_2", "Try a metric": "try",
            "Leaderboards": "leaderboards"}
TRY_TABS = ("Caption → keypoints", "GeoGebra script → figure", "Solution → PQS / PCS", "Answer check")


def _axe_source() -> str:
    """axe.min.js: AXE_CORE_JS, else build/axe-core/ (filled once from `npm pack`); a skip
    (a failure under REQUIRE_SPACE=1) when neither is there and npm cannot fetch it."""
    import tarfile
    import tempfile

    given = os.environ.get("AXE_CORE_JS")
    cache = Path(given) if given else Path(__file__).resolve().parents[2] / "build" / "axe-core" / f"axe-{AXE_VERSION}.min.js"
    if not cache.is_file():
        npm = shutil.which("npm")
        problem = "npm not found" if npm is None else ""
        if npm is not None:
            with tempfile.TemporaryDirectory() as folder:
                packed = subprocess.run([npm, "pack", f"axe-core@{AXE_VERSION}", "--silent"], cwd=folder,
                                        capture_output=True, text=True, timeout=300)
                tgz = next(Path(folder).glob("axe-core-*.tgz"), None)
                if packed.returncode or tgz is None:
                    problem = f"npm pack axe-core@{AXE_VERSION} failed: {packed.stderr[-300:]}"
                else:
                    with tarfile.open(tgz) as tar:
                        member = tar.extractfile("package/axe.min.js")
                        assert member is not None
                        cache.parent.mkdir(parents=True, exist_ok=True)
                        cache.write_bytes(member.read())
        if problem:
            if _required():
                pytest.fail(f"REQUIRE_SPACE is set but axe-core is unavailable: {problem}")
            pytest.skip(f"axe-core unavailable: {problem}")
    return cache.read_text(encoding="utf-8")


def _axe(page: Any, source: str) -> list[str]:
    """axe-core's serious and critical violations on the page as it stands, one line each."""
    page.add_script_tag(content=source)
    found = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']})).violations
        .filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => `${v.id}: ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`)""")
    return list(found)


def _settled(page: Any) -> None:
    page.wait_for_function("!document.querySelector('.pending, .generating')")
    page.wait_for_timeout(500)


@pytest.mark.slow
@pytest.mark.parametrize(("scheme", "width"), [("light", 1280), ("dark", 1280), ("dark", 390)])
def test_browser_axe_finds_nothing_serious_on_any_tab(browser: Any, space: str, tmp_path: Path,
                                                       scheme: str, width: int) -> None:
    """WCAG AA contrast, keyboard reach, names and roles: axe-core on every tab (each Try tab
    on a desktop; the four top tabs through their links on a phone), light and dark; and no
    emoji anywhere."""
    source = _axe_source()
    page = browser.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
    found: dict[str, list[str]] = {}
    for name, query in TOP_TABS.items():
        page.goto(f"{space}/?tab={query}")
        page.locator("#explore-item-text h3").wait_for(state="attached")  # the page's first load is done
        if name == "Runs":
            page.locator("#run-item-text h3", has_text="en_2").wait_for()
        if name == "Leaderboards":
            page.locator("#leaderboard-note", has_text="ranked by").wait_for()
            ranked_by = _text(page, "#leaderboard-note").replace("*", "").split("ranked by ")[1].split(",")[0]
            third = page.locator("#leaderboard-df th").nth(2)
            box = third.bounding_box()
            # The score beside the model, on a phone too (pinned with rank and model).
            assert ranked_by in third.inner_text() and box is not None and box["x"] + box["width"] <= width
        _settled(page)
        subtabs = TRY_TABS if name == "Try a metric" and width > 800 else ("",)
        for sub in subtabs:
            if sub:
                page.get_by_role("tab", name=sub, exact=True).click()
                _settled(page)
            found[f"{name} {sub}".strip()] = _axe(page, source)
            assert not EMOJI.search(page.locator("body").inner_text()), name
        page.screenshot(path=str(tmp_path / f"axe-{scheme}-{width}-{query[:6]}.png"), full_page=True)
    assert {tab: v for tab, v in found.items() if v} == {}
    page.close()


@pytest.mark.slow
def test_browser_plots_state_n_and_have_text_alternatives_and_dark_plots(browser: Any, space: str) -> None:
    """Every plotted bar's n and interval, said in the image's alt text as in the caption under
    it; a dark page shows the (white) figures inverted, not as white boxes; the prompt box
    takes keyboard focus; the leaderboard searches as you type."""
    page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    page.goto(f"{space}/?tab=leaderboards")
    page.locator("#leaderboard-note", has_text="ranked by").wait_for()
    page.locator("#leaderboard-benchmark input").click()
    page.get_by_role("option", name="geolaux", exact=True).click()
    page.locator("#leaderboard-df", has_text="geolaux-random").wait_for()
    page.locator("#leaderboard-plot img").wait_for()
    alt = page.locator("#leaderboard-plot img").first.get_attribute("alt") or ""
    assert alt.startswith("Bar chart: ") and alt == _text(page, "#leaderboard-plot-alt")
    assert "invert" in page.eval_on_selector("#leaderboard-plot img", "e => getComputedStyle(e).filter")
    page.locator("#breakdown-plot").click()
    page.locator("#breakdown-figure img").wait_for()
    page.wait_for_function("document.querySelector('#breakdown-figure img').alt.includes('(n=')")
    assert "whiskers: 95% interval" in (page.locator("#breakdown-figure img").get_attribute("alt") or "")
    search = page.locator("#leaderboard-search textarea, #leaderboard-search input").first
    search.click()
    page.keyboard.type("o4")  # no Enter
    page.wait_for_function("!document.querySelector('#leaderboard-df').innerText.includes('geolaux-random')")
    assert "o4-mini" in _text(page, "#leaderboard-df")
    page.goto(f"{space}/?tab=explore")
    page.locator("#explore-prompt pre").first.wait_for()
    page.locator("#explore-prompt pre").first.focus()
    assert page.evaluate("document.activeElement.closest('#explore-prompt') !== null")
    page.close()


# --------------------------------------------------------------------------- the shipped sample runs


@pytest.fixture(scope="module")
def sample_space(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The Space over the runs its Hub build ships (`demo.sample_runs`), plus a me2_explain run
    judged on a loopback server (the sample runs are judged offline: ME2's Tables 5 and 6 are
    judge ratings)."""
    from geomeval.benchmarks import get_benchmark
    from geomeval.demo import sample_runs
    from geomeval.demo.app import launch
    from geomeval.engines.judges import parse_judge_spec
    from geomeval.engines.models import ModelOptions, parse_model_spec
    from geomeval.run.runner import run
    from geomeval.testing.chat_server import ChatServer

    root = tmp_path_factory.mktemp("sample-runs")

    def make() -> None:
        sample_runs.write_sample_runs(root)
        with ChatServer(lambda request: '{"rating": [4, 3, 2]}') as server:
            run(get_benchmark("me2"), task="me2_explain", model=parse_model_spec("baseline:random", ModelOptions()),
                judge=parse_judge_spec("openai:j", base_url=server.base_url), out_dir=root / "me2-explain-judged")

    # On a thread of its own: Playwright's sync API may already run an event loop on this one
    # (the browser fixture), and a run is an asyncio.run.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(make).result()
    demo = launch("127.0.0.1", _free_port(), root, prevent_thread_lock=True, quiet=True)
    try:
        yield demo.local_url.rstrip("/")
    finally:
        demo.close()


@pytest.mark.slow
def test_served_sample_runs_have_a_number_in_every_published_table_and_are_listed_apart(sample_space: str) -> None:
    from geomeval.demo import boards, ranking

    client = gradio_client.Client(sample_space + "/", verbose=False)
    empty = []
    for board in boards.published_boards():
        _note, table, *_rest = client.predict(board.key, api_name="/published_table")
        headers, rows = table["headers"], _rows(table)
        fixed = {"rank", "model", "type", "interval (95%)", ranking.APART_COLUMN, "source"}
        values = [i for i, h in enumerate(headers) if h not in fixed and not h.startswith("coverage")]
        runs = [row for row in rows if " · run" in str(row[1])]
        assert runs and all(row[0] == ranking.APART for row in runs), board.source  # samples: never ranked
        if not any(isinstance(row[i], int | float) for row in runs for i in values):
            empty.append(board.source)
    assert empty == []


@pytest.mark.slow
def test_browser_run_viewer_shows_figures_and_filters_on_every_benchmark(browser: Any, sample_space: str,
                                                                         tmp_path: Path) -> None:
    from geomeval.demo import sample_runs

    for name, benchmark, _task in sample_runs.sample_run_names():
        watched = _open(browser, sample_space, tmp_path, f"?tab=runs&run={name}")
        page = watched.page
        page.locator("#run-item-text h3").wait_for()
        page.locator("#run-gallery img").first.wait_for()
        alts = page.eval_on_selector_all("#run-gallery img", "els => els.map(e => e.alt)")
        assert alts and all(alt.startswith("item: ") for alt in alts), (name, alts)
        text = _text(page, "#run-item-text")
        assert ("caption" if benchmark == "capgeo_bench" else "problem") in text and "response" in text, name
        page.locator("#run-show label", has_text="wrong").click()
        page.wait_for_function("document.querySelector('#run-item input').value.startsWith('✗')")
        watched.shot(f"runs-{name}")
        watched.assert_clean()
        watched.page.close()

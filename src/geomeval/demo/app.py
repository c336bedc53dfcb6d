"""The Gradio face of the Space: layout and wiring only.

Every value shown comes from `explore`, `try_metrics` and `boards`; the functions here
only turn their plain results into Gradio updates, and a `DemoInputError` into a `gr.Error`
(the red toast a visitor reads). The app lives in the package, not in `spaces/`, so that
`geomeval demo` works from an installed wheel; `spaces/geomeval/app.py` only calls `main`.

Offline by construction: analytics and Hub telemetry are off before Gradio is imported,
the theme's fonts are bundled with Gradio, `share` is never used, and the only files served
are Gradio's own uploads and outputs (no `allowed_paths`).
"""

from __future__ import annotations

import argparse
import functools
import html
import logging
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

for _key, _value in {
    "GRADIO_ANALYTICS_ENABLED": "False",
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
}.items():
    os.environ.setdefault(_key, _value)

import gradio as gr  # noqa: E402
import pandas as pd  # noqa: E402

from . import boards, cards, explore, latex, ranking, runview, try_metrics  # noqa: E402
from .figures import figure_file, figure_files  # noqa: E402
from .limits import (  # noqa: E402
    MAX_ANSWER_CHARS,
    MAX_CAPTION_CHARS,
    MAX_IMAGE_BYTES,
    MAX_SCRIPT_CHARS,
    MAX_SCRIPT_LINES,
    MAX_SCRIPT_SECONDS,
    MAX_SOLUTION_CHARS,
    DemoInputError,
    plain,
    visitor_message,
)

LOG = logging.getLogger("geomeval.demo")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7860
ALL = "(all)"
NO_REFERENCE = ("no reference (run only)", "")
IMAGE_BUTTONS: list[Any] = ["download", "fullscreen"]  # no "share": it would post to the Hub
F = TypeVar("F", bound=Callable[..., Any])

INTRO = """# geomeval
Explore the benchmarks' embedded samples with the exact prompt each item sends, read every item
of a run with its judgment, try the metrics on your own input, and rank models against the
papers' published numbers. Everything runs offline, with the same code as `geomeval run`."""


# Readable and reachable (WCAG AA, checked with axe-core in tests/faces/test_space_app.py): the
# theme's orange on white is 2.8:1, its subdued grey 1.9:1, so the accent, primary buttons
# and subdued text get darker shades (lighter ones in dark mode); plots (white matplotlib
# figures) are inverted in dark mode; wide tables scroll sideways on a phone.
CSS = """
:root, .light {
  --color-accent: #c2410c; --color-accent-soft: #fff7ed;
  --button-primary-background-fill: #c2410c; --button-primary-background-fill-hover: #9a3412;
  --button-primary-border-color: #c2410c; --button-primary-text-color: #ffffff;
  --body-text-color-subdued: #52525b; --block-info-text-color: #52525b;
}
.dark {
  --color-accent: #fb923c; --button-primary-background-fill: #c2410c;
  --button-primary-background-fill-hover: #9a3412; --button-primary-text-color: #ffffff;
  --body-text-color-subdued: #c4c4cc; --block-info-text-color: #c4c4cc;
}
.dark .geomeval-plot img { filter: invert(0.88) hue-rotate(180deg); }
.geomeval-table .table-wrap, .geomeval-table table { overflow-x: auto; }
@media (max-width: 640px) {
  .geomeval-table table { font-size: 0.8rem; }
  .geomeval-plot img { width: 100% !important; height: auto !important; }
}
"""
# Gradio's own markup, mended in the page: an empty image placeholder's aria-label needs a
# role; scrollable code blocks (prompts, responses) must take keyboard focus; a control's
# accessible name must contain its visible text (gallery thumbnails, the upload area); a
# plot's image gets the text alternative shown under it (`boards.figure_alt`).
HEAD = r"""<script>
(() => {
  const plots = [["leaderboard-plot", "leaderboard-plot-alt"], ["breakdown-figure", "breakdown-figure-alt"]];
  const mend = () => {
    document.querySelectorAll("div[aria-label]:not([role])").forEach((e) => e.setAttribute("role", "img"));
    document.querySelectorAll("pre:not([tabindex])").forEach((e) => e.setAttribute("tabindex", "0"));
    document.querySelectorAll(".block:not([tabindex])").forEach((e) => {
      const style = getComputedStyle(e);
      const scrolls = /(auto|scroll)/.test(style.overflow + style.overflowX + style.overflowY)
        && (e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1);
      if (scrolls && !e.querySelector("a, button, input, select, textarea, [tabindex]")) e.setAttribute("tabindex", "0");
    });
    document.querySelectorAll("button[aria-label], [role=button][aria-label], .boundedheight[aria-label]")
      .forEach((e) => {
        const text = (e.innerText || "").replace(/\s+/g, " ").trim();
        const name = e.getAttribute("aria-label") || "";
        if (text && text.length <= 200 && !name.includes(text)) e.setAttribute("aria-label", `${text} (${name})`);
      });
    for (const [plot, alt] of plots) {
      const text = (document.getElementById(alt)?.innerText || "").trim();
      document.querySelectorAll(`#${plot} img`).forEach((i) => { if (text && i.alt !== text) i.alt = text; });
    }
  };
  new MutationObserver(mend).observe(document.documentElement, {subtree: true, childList: true, characterData: true});
  document.addEventListener("DOMContentLoaded", mend);
})();
</script>"""


def _face(fn: F) -> F:
    """Show a refused input as Gradio's error toast, with the library's own message: one
    line, no server path, shown as text (Gradio renders a toast's message as HTML, and the
    message may quote what the visitor sent), and logged as one line, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DemoInputError as exc:
            message = visitor_message(exc)
            LOG.info("refused (%s): %s", fn.__name__, message)
            raise gr.Error(html.escape(message, quote=False), print_exception=False) from None

    return wrapper  # type: ignore[return-value]


def _frame(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> pd.DataFrame:
    return pd.DataFrame([list(r) for r in rows], columns=list(headers))


# --------------------------------------------------------------------------- shared

LATEX = latex.MARKDOWN_DELIMITERS
ITEM_HEADERS = ["field", "value"]
KEYPOINT_HEADERS = ["field", "dimension", "keypoint"]
RUN_SCORE_HEADERS = ["metric", "value", "judge", "explanation or why unscored"]
CAPTION_SCORE_HEADERS = ["dimension", "recall", "precision", "F1", "covered / reference", "supported / caption"]
CAPTION_KP_HEADERS = ["dimension", "keypoint", "status", "caption span"]
LINE_HEADERS = ["line", "ran", "source", "error", "created"]
CHECK_HEADERS = ["kind", "check", "passed", "detail"]
PIXEL_HEADERS = ["metric", "value", "note"]
PROCESS_HEADERS = ["metric", "value", "meaning"]
ANSWER_HEADERS = ["", "value"]


def _table(label: str, headers: Sequence[str], **kwargs: Any) -> gr.Dataframe:
    """A read-only table with its column names from the start (never Gradio's "1 2 3")."""
    kwargs["elem_classes"] = [*kwargs.get("elem_classes", []), "geomeval-table"]
    return gr.Dataframe(value=_frame(headers, []), headers=list(headers), label=label, interactive=False,
                        latex_delimiters=LATEX, wrap=True, **kwargs)


def _markdown(**kwargs: Any) -> gr.Markdown:
    return gr.Markdown(latex_delimiters=LATEX, **kwargs)


def _link(query: str, text: str) -> str:
    return f"[{text}]({query}) · `{query}`"


def _params(request: gr.Request | None) -> dict[str, str]:
    if request is None:
        return {}
    return {str(k): str(v)[:200] for k, v in dict(request.query_params).items()}


def _then(trigger: Any, blank: tuple[Any, ...], fn: Callable[..., Any], inputs: Any, outputs: list[Any],
          api_name: str) -> Any:
    """Clear `outputs`, then run `fn`: a refused input leaves its error over empty outputs,
    never over the numbers of an earlier input."""
    values = blank if len(blank) != 1 else blank[0]
    return trigger(lambda: values, None, outputs, api_visibility="private", queue=False).then(
        fn, inputs, outputs, api_name=api_name)


# --------------------------------------------------------------------------- explore


def _item_outputs(benchmark: str, task: str, item_id: str | None) -> tuple[Any, ...]:
    if not item_id:
        return ("_No item matches._", [], _frame(ITEM_HEADERS, []), _frame(KEYPOINT_HEADERS, []), "", "")
    view = explore.item_view(benchmark, task, item_id)
    return (
        view.markdown,
        figure_files(view.images),
        _frame(ITEM_HEADERS, view.meta_rows),
        _frame(KEYPOINT_HEADERS, view.keypoint_rows),
        explore.prompt_markdown(benchmark, task, item_id),
        _link(explore.item_link(benchmark, task, item_id), "Link to this item"),
    )


@_face
def on_filters(benchmark: str, task: str, filters: list[str] | None, chosen: str | None = None) -> tuple[Any, ...]:
    items = explore.filter_items(benchmark, task, filters)
    ids = [value for _label, value in items]
    first = chosen if chosen in ids else (ids[0] if ids else None)
    count = f"{len(items)} item(s) match" if filters else f"{len(items)} item(s)"
    return (gr.update(choices=items, value=first), count, *_item_outputs(benchmark, task, first))


@_face
def on_task(benchmark: str, task: str, chosen: str | None = None) -> tuple[Any, ...]:
    summary = explore.task_summary(benchmark, task)
    filters = gr.update(choices=explore.filter_options(benchmark, task), value=[])
    return (summary, filters, *on_filters(benchmark, task, [], chosen))


@_face
def on_benchmark(benchmark: str) -> tuple[Any, ...]:
    tasks = explore.task_choices(benchmark)
    return (gr.update(choices=tasks, value=tasks[0]), *on_task(benchmark, tasks[0]))


def _warn(message: str) -> None:
    """A visitor's mistake that still leaves a working view (a bad deep link): a warning
    toast, one line, shown as text, logged as one line."""
    message = visitor_message(DemoInputError(message))
    LOG.info("deep link: %s", message)
    gr.Warning(html.escape(message, quote=False))


@_face
def on_explore_open(benchmark: str, request: gr.Request) -> tuple[Any, ...]:
    """The first view, or the item a deep link names (?benchmark=…&task=…&item=…). A link
    naming an unknown benchmark, task or item opens the nearest view that exists and says so
    in one warning; every control stays usable."""
    params = _params(request)
    target, problem = explore.open_link(params) if params.get("tab", "explore") == "explore" else (None, None)
    if problem:
        _warn(problem)
    if target is None:
        return (gr.update(value=benchmark), *on_benchmark(benchmark))
    name, task, item_id = target
    tasks = explore.task_choices(name)
    return (gr.update(value=name), gr.update(choices=tasks, value=task), *on_task(name, task, item_id))


@_face
def on_item(benchmark: str, task: str, item_id: str | None) -> tuple[Any, ...]:
    return _item_outputs(benchmark, task, item_id)


@_face
def on_item_step(benchmark: str, task: str, filters: list[str] | None, item_id: str | None, step: int) -> tuple[Any, ...]:
    chosen = explore.neighbour(benchmark, task, filters, item_id, int(step))
    return (gr.update(value=chosen), *_item_outputs(benchmark, task, chosen))


# --------------------------------------------------------------------------- runs


def _run_handlers(root: Path) -> dict[str, Callable[..., Any]]:
    """The run viewer, bound to the runs folder chosen at launch."""

    def outputs(name: str | None, item_id: str | None) -> tuple[Any, ...]:
        if not name or not item_id:
            return ("_No item._", [], "", _frame(RUN_SCORE_HEADERS, []), "")
        view = runview.run_item_view(root, name, item_id)
        return (view.markdown, figure_files(view.images), view.prompt,
                _frame(RUN_SCORE_HEADERS, view.score_rows), _link(view.link, "Link to this item of this run"))

    @_face
    def on_run(name: str | None, show: str, chosen: str | None = None) -> tuple[Any, ...]:
        if not name:
            return (gr.update(choices=[], value=None), "_Choose a run._", *outputs(None, None))
        items = runview.run_items(root, name, show)
        ids = [value for _label, value in items]
        first = chosen if chosen in ids else (ids[0] if ids else None)
        count = f"{len(items)} item(s)" + ("" if show == "all" else f" {show}")
        return (gr.update(choices=items, value=first), count, *outputs(name, first))

    @_face
    def on_run_item(name: str | None, item_id: str | None) -> tuple[Any, ...]:
        return outputs(name, item_id)

    @_face
    def on_run_step(name: str | None, show: str, item_id: str | None, step: int) -> tuple[Any, ...]:
        ids = [value for _label, value in runview.run_items(root, name or "", show)] if name else []
        if not ids:
            return (gr.update(value=None), *outputs(None, None))
        chosen = ids[(ids.index(item_id) + int(step)) % len(ids)] if item_id in ids else ids[0]
        return (gr.update(value=chosen), *outputs(name, chosen))

    @_face
    def on_runs_open(request: gr.Request) -> tuple[Any, ...]:
        """The run list, and the run and item a deep link names (?tab=runs&run=…&item=…)."""
        params = _params(request)
        choices = runview.run_choices(root)
        names = [value for _label, value in choices]
        tab = gr.update(selected=params["tab"]) if params.get("tab") in ("explore", "runs", "try", "leaderboards") else gr.update()
        name = params.get("run") if params.get("tab") == "runs" else None
        item_id = params.get("item") if name else None
        if name is not None and name not in names:
            _warn(f"This link names no run {name[:80]!r} in the runs folder; showing the first run instead.")
            name, item_id = None, None
        name = name or (names[0] if names else None)
        if name and item_id and item_id not in [v for _l, v in runview.run_items(root, name, "all")]:
            _warn(f"This link names no item {item_id[:80]!r} in run {name!r}; showing its first item instead.")
        return (tab, gr.update(choices=choices, value=name), "all", *on_run(name, "all", item_id))

    return {"run": on_run, "item": on_run_item, "step": on_run_step, "open": on_runs_open}


# --------------------------------------------------------------------------- try a metric


@_face
def on_reference_caption(key: str) -> str:
    return try_metrics.reference_caption(key)


@_face
def on_score_caption(caption: str, reference: str, engine: str) -> tuple[Any, ...]:
    result = try_metrics.score_caption(caption, reference, engine)
    return (
        result.summary,
        result.highlights,
        _frame(CAPTION_SCORE_HEADERS, result.score_rows),
        _frame(CAPTION_KP_HEADERS, result.keypoint_rows),
    )


@_face
def on_reference_script(reference: str) -> str:
    return try_metrics.reference_script(reference)


@_face
def on_run_script(script: str, reference: str | None) -> tuple[Any, ...]:
    result = try_metrics.try_script(script, reference or None)
    return (
        result.summary,
        figure_file(result.figure),
        figure_file(result.reference_figure),
        _frame(LINE_HEADERS, result.line_rows),
        _frame(CHECK_HEADERS, result.check_rows),
    )


@_face
def on_score_drawing(upload: str | None, reference: str | None) -> tuple[Any, ...]:
    result = try_metrics.try_drawing(upload, reference or None, upload_root=gr.utils.get_upload_folder())
    return (result.summary, figure_file(result.image), figure_file(result.reference_figure),
            _frame(PIXEL_HEADERS, result.score_rows))


@_face
def on_solution_example(example: str) -> str:
    return try_metrics.solution_example(example)


@_face
def on_split_solution(text: str) -> tuple[Any, ...]:
    steps = try_metrics.split_solution(text)
    every = [value for _label, value in steps.choices()]
    scores = try_metrics.process_scores(len(steps.steps), every, True)
    return (steps.markdown(), gr.update(choices=steps.choices(), value=every), True,
            _frame(PROCESS_HEADERS, scores), steps.text)


def on_solution_edited() -> tuple[Any, ...]:
    """The solution changed after it was split: its old steps and marks are withdrawn."""
    return ("_The solution changed: split it again to mark its steps._", gr.update(choices=[], value=[]), True,
            _frame(PROCESS_HEADERS, []), "")


@_face
def on_process_scores(split_text: str, correct: list[str] | None, final_correct: bool) -> pd.DataFrame:
    """Scores of the marks against the solution as it was split (the text the steps show)."""
    return _frame(PROCESS_HEADERS, try_metrics.score_solution(split_text, correct, final_correct))


@_face
def on_check_answer(response: str, gold: str, choices: str, unit: str) -> tuple[Any, ...]:
    found = try_metrics.check_pair(response, gold, choices, unit)
    verdict = "✓ **equal**" if found.equal else "✗ **not equal**"
    return f"{verdict} · rule `{found.rule}`", _frame(ANSWER_HEADERS, found.rows())


# --------------------------------------------------------------------------- leaderboards


def _bench_filter(benchmark: str | None) -> str | None:
    return None if benchmark in (None, "", ALL) else benchmark


def _csv_file(table: ranking.Ranked, key: str) -> str:
    folder = Path(tempfile.mkdtemp(prefix="geomeval-board-"))
    path = folder / f"{key.replace('/', '-')}.csv"
    path.write_text(ranking.to_csv(table), encoding="utf-8")
    return str(path)


def _score_third(headers: list[str], rows: list[list[Any]], ranked_by: str | None) -> tuple[list[str], list[list[Any]]]:
    """The leaderboard as shown: rank, model, then the column it is ranked by (pinned with them,
    so a phone shows the score beside the model), then the others in the table's order. The
    CSV keeps the table's own order."""
    if ranked_by not in headers or headers.index(ranked_by) < 2:
        return headers, rows
    order = [0, 1, headers.index(ranked_by), *[i for i in range(2, len(headers)) if headers[i] != ranked_by]]
    return [headers[i] for i in order], [[row[i] for i in order] for row in rows]


def _leaderboard_handlers(root: Path) -> dict[str, Callable[..., Any]]:
    """Handlers bound to the runs folder chosen at launch: a visitor never names a folder."""

    @_face
    def on_published(key: str | None, rank_by: str | None = None, search: str | None = "",
                     kinds: list[str] | None = None, uploaded: dict[str, Any] | None = None) -> tuple[Any, ...]:
        if not key:
            return ("_No published table for this benchmark._", _frame(["rank", "model"], []), gr.update(choices=[], value=None),
                    gr.update(choices=[], value=[]), gr.update(choices=[], value=None), None, "", None)
        table = ranking.leaderboard(key, root, uploaded, rank_by, search, kinds)
        rank_index = next((i for i, h in enumerate(table.headers) if h in table.columns and h == rank_by), None)
        chosen = rank_by if rank_index is not None else (table.note.split("ranked by **")[1].split("**")[0]
                                                          if "ranked by **" in table.note else None)
        columns = boards.numeric_columns(key)
        plot = boards.board_plot(key, columns[0]) if columns else None
        return (table.note, _frame(*_score_third(table.headers, table.rows, chosen)),
                gr.update(choices=table.columns, value=chosen if chosen in table.columns else None),
                gr.update(choices=table.kinds, value=[k for k in (kinds or []) if k in table.kinds]),
                gr.update(choices=columns, value=columns[0] if columns else None), plot, boards.figure_alt(plot),
                _csv_file(table, key))

    @_face
    def on_upload(upload: str | None, uploaded: dict[str, Any] | None, key: str | None, rank_by: str | None,
                  search: str | None, kinds: list[str] | None) -> tuple[Any, ...]:
        kept = dict(uploaded or {})
        name, data = ranking.read_uploaded(upload, gr.utils.get_upload_folder(), kept)
        kept[name] = data
        note = (f"Added **{plain(name)}** ({plain(data.get('benchmark'))}, model {plain(data.get('model', '?'))}) "
                "for this session only: "
                "it is not stored on the server and goes when the page is closed.")
        return (kept, note, None, *on_published(key, rank_by, search, kinds, kept))  # the file input is free again

    @_face
    def on_leaderboard(benchmark: str | None, uploaded: dict[str, Any] | None = None) -> tuple[Any, ...]:
        tables = boards.board_choices(_bench_filter(benchmark))
        first = tables[0][1] if tables else None
        return (gr.update(choices=tables, value=first), *on_published(first, None, "", [], uploaded),
                *_runs_outputs(root, benchmark))

    @_face
    def on_published_plot(key: str, column: str) -> tuple[Any, str]:
        plot = boards.board_plot(key, column)
        return plot, boards.figure_alt(plot)

    @_face
    def on_runs(benchmark: str | None) -> tuple[Any, ...]:
        return _runs_outputs(root, benchmark)

    @_face
    def on_breakdown_options(names: list[str] | None) -> tuple[Any, ...]:
        if not names:
            return gr.update(choices=[], value=None), gr.update(choices=[], value=None), ""
        groups, metrics = boards.breakdown_options(root, names)
        note = "" if groups and metrics else "_The chosen runs share no breakdown and metric to compare._"
        return (gr.update(choices=groups, value=groups[0] if groups else None),
                gr.update(choices=metrics, value=metrics[0] if metrics else None), note)

    @_face
    def on_breakdown(names: list[str] | None, group: str | None, metric: str | None) -> tuple[Any, ...]:
        found = boards.breakdown(root, names, group, metric)
        plot = boards.breakdown_plot(root, names, group, metric)
        return plot, boards.figure_alt(plot), _frame(found.table.headers, found.table.rows), found.table.note

    return {"leaderboard": on_leaderboard, "published": on_published, "plot": on_published_plot, "upload": on_upload,
            "runs": on_runs, "options": on_breakdown_options, "breakdown": on_breakdown}


def _runs_outputs(root: Path, benchmark: str | None) -> tuple[Any, ...]:
    table = boards.runs_table(root, _bench_filter(benchmark))
    names = [row[0] for row in table.rows]
    return table.note, _frame(table.headers, table.rows), gr.update(choices=names, value=names[:1])


# --------------------------------------------------------------------------- layout


def build_app(runs: str | Path | None = None) -> gr.Blocks:
    """The Space: Explore, Runs, Try a metric, Leaderboards. `runs` is the folder of run
    outputs (default: GEOMEVAL_SPACE_RUNS, else ./runs)."""
    root = boards.runs_root(runs)
    benchmarks = explore.benchmark_choices()
    with gr.Blocks(title="geomeval", analytics_enabled=False) as demo:
        gr.Markdown(INTRO)
        with gr.Tabs() as tabs:
            with gr.Tab("Explore", id="explore"):
                with gr.Row():
                    bench = gr.Dropdown(benchmarks, value=benchmarks[0][1], label="Benchmark", elem_id="explore-benchmark")
                    task = gr.Dropdown([], label="Task", allow_custom_value=True, elem_id="explore-task")
                summary = gr.Markdown()
                filters = gr.Dropdown([], multiselect=True, allow_custom_value=True, elem_id="explore-filters",
                                      label="Filters (breakdown: value; values of one breakdown are alternatives)")
                with gr.Row():
                    item = gr.Dropdown([], label="Item", allow_custom_value=True, scale=4, elem_id="explore-item")
                    prev_item = gr.Button("◀ Previous", elem_id="explore-prev", scale=0)
                    next_item = gr.Button("Next ▶", elem_id="explore-next", scale=0)
                    count = gr.Markdown()
                item_link = gr.Markdown(elem_id="explore-link")
                with gr.Row():
                    with gr.Column(scale=3):
                        item_md = _markdown(line_breaks=True, elem_id="explore-item-text")
                    with gr.Column(scale=2):
                        gallery = gr.Gallery(label="Figures (click to enlarge)", columns=2, height="auto",
                                             object_fit="contain", elem_id="explore-gallery",
                                             buttons=["download", "fullscreen"])
                        with gr.Accordion("Prompt the model is sent", open=True):
                            prompt_md = gr.Markdown(elem_id="explore-prompt")
                        meta = _table("Breakdown keys and fields", ITEM_HEADERS)
                        keypoints = _table("Keypoints (offline engine, from the captions)", KEYPOINT_HEADERS)
                item_outputs = [item_md, gallery, meta, keypoints, prompt_md, item_link]
                filter_outputs = [item, count, *item_outputs]
                task_outputs = [summary, filters, *filter_outputs]
                bench.input(on_benchmark, bench, [task, *task_outputs], api_name="explore_benchmark")
                task.input(on_task, [bench, task], task_outputs, api_name="explore_task")
                filters.input(on_filters, [bench, task, filters], filter_outputs, api_name="explore_filter")
                item.input(on_item, [bench, task, item], item_outputs, api_name="explore_item")
                back, forward = gr.Number(-1, visible=False), gr.Number(1, visible=False)
                prev_item.click(on_item_step, [bench, task, filters, item, back], [item, *item_outputs],
                                api_name="explore_previous")
                next_item.click(on_item_step, [bench, task, filters, item, forward], [item, *item_outputs],
                                api_name="explore_next")
                demo.load(on_explore_open, bench, [bench, task, *task_outputs], api_visibility="private")

            with gr.Tab("Runs", id="runs"):
                run_handlers = _run_handlers(root)
                gr.Markdown("Every item of a run: the prompt it was sent, the response, the extracted answer, each "
                            "metric with the judge's explanation (or why it is unscored), the judge's marks, the "
                            "figures. ✓ right · ✗ wrong · ⚠ unscored, by the run's headline metric.")
                with gr.Row():
                    run_name = gr.Dropdown([], label="Run", allow_custom_value=True, scale=3, elem_id="run-name")
                    run_show = gr.Radio(list(runview.SHOW), value="all", label="Show", elem_id="run-show")
                with gr.Row():
                    run_item = gr.Dropdown([], label="Item", allow_custom_value=True, scale=4, elem_id="run-item")
                    run_prev = gr.Button("◀ Previous", elem_id="run-prev", scale=0)
                    run_next = gr.Button("Next ▶", elem_id="run-next", scale=0)
                    run_count = gr.Markdown()
                run_link = gr.Markdown(elem_id="run-link")
                with gr.Row():
                    with gr.Column(scale=3):
                        run_md = _markdown(line_breaks=True, elem_id="run-item-text")
                        run_scores = _table("Scores", RUN_SCORE_HEADERS, elem_id="run-scores")
                    with gr.Column(scale=2):
                        run_gallery = gr.Gallery(label="Figures", columns=2, height="auto", object_fit="contain",
                                                 elem_id="run-gallery", buttons=["download", "fullscreen"])
                        with gr.Accordion("Prompt the model was sent", open=True):
                            run_prompt = gr.Markdown(elem_id="run-prompt")
                run_outputs = [run_md, run_gallery, run_prompt, run_scores, run_link]
                run_name.input(run_handlers["run"], [run_name, run_show], [run_item, run_count, *run_outputs],
                               api_name="run_items")
                run_show.input(run_handlers["run"], [run_name, run_show], [run_item, run_count, *run_outputs],
                               api_visibility="private")
                run_item.input(run_handlers["item"], [run_name, run_item], run_outputs, api_name="run_item")
                run_prev.click(run_handlers["step"], [run_name, run_show, run_item, back], [run_item, *run_outputs],
                               api_visibility="private")
                run_next.click(run_handlers["step"], [run_name, run_show, run_item, forward], [run_item, *run_outputs],
                               api_visibility="private")
                demo.load(run_handlers["open"], None, [tabs, run_name, run_show, run_item, run_count, *run_outputs],
                          api_visibility="private")

            with gr.Tab("Try a metric", id="try"), gr.Tabs():
                with gr.Tab("Caption → keypoints", id="try-caption"):
                    _markdown(value=cards.caption_card(), elem_id="card-caption")
                    references = try_metrics.caption_references()
                    with gr.Row():
                        cap_ref = gr.Dropdown(references, value=references[0][1] if references else None,
                                              label="Reference caption", scale=3)
                        engine = gr.Radio(try_metrics.caption_engines(), value=try_metrics.OFFLINE_ENGINE, label="Engine")
                    cap_ref_text = gr.Textbox(label="Reference", interactive=False, lines=3,
                                              value=try_metrics.reference_caption(references[0][1]) if references else "")
                    caption = gr.Textbox(label=f"Your caption (up to {MAX_CAPTION_CHARS:,} characters)", lines=4,
                                         max_length=MAX_CAPTION_CHARS * 2, elem_id="caption-input")
                    gr.Examples(cards.CAPTION_EXAMPLES, [caption, cap_ref], label="Examples (click to load)")
                    cap_go = gr.Button("Score caption", variant="primary", elem_id="caption-score")
                    cap_summary = gr.Markdown(elem_id="caption-summary")
                    cap_marks = gr.HighlightedText(label="Keypoints", color_map=try_metrics.HIGHLIGHT_COLORS,
                                                   show_legend=True, combine_adjacent=False)
                    cap_scores = _table("Scores", CAPTION_SCORE_HEADERS)
                    cap_kps = _table("Keypoints", CAPTION_KP_HEADERS)
                    cap_ref.input(on_reference_caption, cap_ref, cap_ref_text, api_name="reference_caption")
                    _then(cap_go.click, ("", [], _frame(CAPTION_SCORE_HEADERS, []), _frame(CAPTION_KP_HEADERS, [])),
                          on_score_caption, [caption, cap_ref, engine], [cap_summary, cap_marks, cap_scores, cap_kps],
                          "score_caption")

                with gr.Tab("GeoGebra script → figure", id="try-script"):
                    _markdown(value=cards.script_card(), elem_id="card-script")
                    with gr.Accordion("Limits and supported commands", open=False):
                        gr.Markdown(", ".join(f"`{c}`" for c in try_metrics.supported_commands()),
                                    elem_id="supported-commands")
                    scripts = [NO_REFERENCE, *try_metrics.script_references()]
                    with gr.Row():
                        ggb_ref = gr.Dropdown(scripts, value=scripts[1][1] if len(scripts) > 1 else "",
                                              label="Reference construction", scale=3)
                        ggb_load = gr.Button("Load the reference script", elem_id="script-load")
                    script = gr.Code(label=f"GeoGebra script (up to {MAX_SCRIPT_CHARS:,} characters, "
                                           f"{MAX_SCRIPT_LINES:,} lines, {MAX_SCRIPT_SECONDS:g} s)", lines=12,
                                     language=None, elem_id="script-input")
                    gr.Examples(cards.SCRIPT_EXAMPLES, [script, ggb_ref], label="Examples (click to load)")
                    ggb_go = gr.Button("Run script", variant="primary", elem_id="script-run")
                    ggb_summary = _markdown(elem_id="script-summary")
                    with gr.Row():
                        ggb_figure = gr.Image(label="Your figure", type="pil", interactive=False, elem_id="script-figure",
                                              buttons=IMAGE_BUTTONS)
                        ggb_reference = gr.Image(label="Reference figure", type="pil", interactive=False,
                                                 elem_id="script-reference", buttons=IMAGE_BUTTONS)
                    ggb_lines = _table("Lines", LINE_HEADERS, elem_id="script-lines")
                    ggb_checks = _table("Verifier checks", CHECK_HEADERS)
                    ggb_load.click(on_reference_script, ggb_ref, script, api_name="reference_script")
                    _then(ggb_go.click, ("", None, None, _frame(LINE_HEADERS, []), _frame(CHECK_HEADERS, [])),
                          on_run_script, [script, ggb_ref], [ggb_summary, ggb_figure, ggb_reference, ggb_lines, ggb_checks],
                          "run_script")
                    with gr.Accordion("Or compare a drawing (image track: PSNR, SSIM at 256×256)", open=False):
                        drawing = gr.File(label=f"Your drawing ({'/'.join(try_metrics.UPLOAD_FORMATS)}, up to {MAX_IMAGE_BYTES // 2**20} MiB)",
                                          file_types=["image"], type="filepath", elem_id="drawing-upload")
                        draw_go = gr.Button("Compare drawing", elem_id="drawing-score")
                        draw_summary = gr.Markdown(elem_id="drawing-summary")
                        with gr.Row():
                            draw_image = gr.Image(label="Your drawing", type="pil", interactive=False, buttons=IMAGE_BUTTONS)
                            draw_reference = gr.Image(label="Reference figure", type="pil", interactive=False,
                                                      buttons=IMAGE_BUTTONS)
                        draw_scores = _table("Pixel metrics", PIXEL_HEADERS, elem_id="drawing-scores")
                        _then(draw_go.click, ("", None, None, _frame(PIXEL_HEADERS, [])), on_score_drawing,
                              [drawing, ggb_ref], [draw_summary, draw_image, draw_reference, draw_scores], "score_drawing")

                with gr.Tab("Solution → PQS / PCS", id="try-solution"):
                    _markdown(value=cards.solution_card(), elem_id="card-solution")
                    examples = try_metrics.solution_examples()
                    with gr.Row():
                        sol_example = gr.Dropdown(examples, value=examples[0][1] if examples else None,
                                                  label="Example (GeoLaux sample)", scale=3)
                        sol_load = gr.Button("Load example")
                    solution = gr.Textbox(label=f"Solution (up to {MAX_SOLUTION_CHARS:,} characters; 64 steps are marked)",
                                          lines=8, elem_id="solution-input")
                    split_text = gr.State("")
                    sol_split = gr.Button("Split into steps", variant="primary", elem_id="solution-split")
                    sol_steps = _markdown(elem_id="solution-steps")
                    sol_marks = gr.CheckboxGroup([], label="Correct steps (untick a wrong step)", elem_id="solution-marks")
                    sol_final = gr.Checkbox(value=True, label="Final answer correct")
                    sol_scores = _table("Process metrics", PROCESS_HEADERS, elem_id="solution-scores")
                    sol_outputs = [sol_steps, sol_marks, sol_final, sol_scores, split_text]
                    sol_load.click(on_solution_example, sol_example, solution, api_name="solution_example").then(
                        on_solution_edited, None, sol_outputs, api_visibility="private", queue=False)
                    solution.input(on_solution_edited, None, sol_outputs, api_visibility="private", queue=False)
                    _then(sol_split.click, on_solution_edited(), on_split_solution, solution, sol_outputs,
                          "split_solution")
                    gr.on([sol_marks.input, sol_final.input], on_process_scores, [split_text, sol_marks, sol_final],
                          sol_scores, api_name="process_scores")

                with gr.Tab("Answer check", id="try-answer"):
                    _markdown(value=cards.answer_card(), elem_id="card-answer")
                    with gr.Row():
                        response = gr.Textbox(label=f"Model response (up to {MAX_ANSWER_CHARS:,} characters)", lines=4,
                                              max_length=MAX_ANSWER_CHARS * 2,
                                              value="... so the answer is \\boxed{70^\\circ}", elem_id="answer-response")
                        with gr.Column():
                            gold = gr.Textbox(label="Gold answer", value="70", elem_id="answer-gold")
                            choices = gr.Textbox(label="Choices (one a line, optional)", lines=2)
                            unit = gr.Textbox(label="Gold answer's unit (optional)", value="°")
                    gr.Examples(cards.ANSWER_EXAMPLES, [response, gold, choices, unit], label="Examples (click to load)")
                    ans_go = gr.Button("Check", variant="primary", elem_id="answer-check")
                    ans_verdict = gr.Markdown(elem_id="answer-verdict")
                    ans_rows = _table("Checker", ANSWER_HEADERS)
                    _then(ans_go.click, ("", _frame(ANSWER_HEADERS, [])), on_check_answer, [response, gold, choices, unit],
                          [ans_verdict, ans_rows], "check_answer")

            with gr.Tab("Leaderboards", id="leaderboards"):
                handlers = _leaderboard_handlers(root)
                uploaded = gr.State({})
                lb_bench = gr.Dropdown([ALL, *boards.benchmark_names()], value=ALL, label="Benchmark",
                                       elem_id="leaderboard-benchmark")
                gr.Markdown("### Leaderboard: published rows and runs, ranked")
                board = gr.Dropdown([], label="Published table", allow_custom_value=True, elem_id="leaderboard-table")
                board_note = _markdown(elem_id="leaderboard-note")
                with gr.Row():
                    rank_by = gr.Dropdown([], label="Rank by", allow_custom_value=True, elem_id="leaderboard-rank")
                    search = gr.Textbox(label="Search models", elem_id="leaderboard-search")
                    kinds = gr.CheckboxGroup([], label="Model type (none ticked: all)", elem_id="leaderboard-kinds")
                board_df = _table("Leaderboard", ["rank", "model"], elem_id="leaderboard-df", max_height=600,
                                  pinned_columns=3, column_widths=["64px", "160px", "80px"])  # rank, model, score stay in view
                with gr.Row():
                    board_csv = gr.DownloadButton("Export CSV", elem_id="leaderboard-csv")
                    upload = gr.File(label="Add a results.json to this leaderboard (this session only, up to 2 MiB)",
                                     file_types=[".json"], type="filepath", elem_id="leaderboard-upload")
                upload_note = gr.Markdown(elem_id="leaderboard-upload-note")
                board_column = gr.Dropdown([], label="Plot column (published rows)", allow_custom_value=True)
                board_plot = gr.Plot(label="Published", elem_id="leaderboard-plot", elem_classes=["geomeval-plot"])
                board_alt = gr.Markdown(elem_id="leaderboard-plot-alt")
                gr.Markdown("### Runs in the runs folder")
                runs_refresh = gr.Button("Refresh runs")
                runs_note = gr.Markdown()
                runs_df = gr.Dataframe(label="Runs (shares ×100)", interactive=False, headers=["run", "benchmark"],
                                       value=_frame(["run", "benchmark"], []))
                with gr.Row():
                    run_pick = gr.Dropdown([], multiselect=True, allow_custom_value=True, label="Runs to compare", scale=3)
                    group = gr.Dropdown([], label="Breakdown (shared by the runs)", allow_custom_value=True)
                    metric = gr.Dropdown([], label="Metric (shared by the runs)", allow_custom_value=True)
                options_note = gr.Markdown()
                bd_go = gr.Button("Plot breakdown", elem_id="breakdown-plot")
                bd_note = gr.Markdown(elem_id="breakdown-note")
                bd_plot = gr.Plot(label="Breakdown", elem_id="breakdown-figure", elem_classes=["geomeval-plot"])
                bd_alt = gr.Markdown(elem_id="breakdown-figure-alt")
                bd_df = gr.Dataframe(label="Breakdown (— : no value)", interactive=False, elem_id="breakdown-table",
                                     headers=["bucket"], value=_frame(["bucket"], []))
                board_inputs = [board, rank_by, search, kinds, uploaded]
                board_outputs = [board_note, board_df, rank_by, kinds, board_column, board_plot, board_alt, board_csv]
                runs_outputs = [runs_note, runs_df, run_pick]
                lb_bench.input(handlers["leaderboard"], [lb_bench, uploaded], [board, *board_outputs, *runs_outputs],
                               api_name="leaderboard")
                board.input(handlers["published"], [board, gr.State(None), gr.State(""), gr.State([]), uploaded],
                            board_outputs, api_name="published_table")
                gr.on([rank_by.input, search.input, kinds.input], handlers["published"], board_inputs,
                      board_outputs, api_name="ranked_table", trigger_mode="always_last")  # search as you type
                upload.upload(handlers["upload"], [upload, uploaded, board, rank_by, search, kinds],
                              [uploaded, upload_note, upload, *board_outputs], api_name="upload_results")
                board_column.input(handlers["plot"], [board, board_column], [board_plot, board_alt],
                                   api_name="published_plot")
                runs_refresh.click(handlers["runs"], lb_bench, runs_outputs, api_name="runs_table")
                run_pick.change(handlers["options"], run_pick, [group, metric, options_note], api_name="breakdown_options")
                _then(bd_go.click, (None, "", _frame(["bucket"], []), ""), handlers["breakdown"], [run_pick, group, metric],
                      [bd_plot, bd_alt, bd_df, bd_note], "breakdown")
                demo.load(handlers["leaderboard"], [lb_bench, uploaded], [board, *board_outputs, *runs_outputs],
                          api_visibility="private")
    return demo


def launch(host: str | None = None, port: int | None = None, runs: str | Path | None = None, *,
           prevent_thread_lock: bool = False, quiet: bool = False) -> gr.Blocks:
    """Serve the Space (never through a public share link; uploads are size-limited). The host
    is `host`, else GRADIO_SERVER_NAME (a Hugging Face Space sets 0.0.0.0), else 127.0.0.1."""
    demo = build_app(runs)
    demo.queue(default_concurrency_limit=2)
    demo.launch(
        server_name=host or os.environ.get("GRADIO_SERVER_NAME") or DEFAULT_HOST,
        server_port=port if port is not None else _env_port(),
        share=False,
        ssr_mode=False,
        mcp_server=False,
        max_file_size=MAX_IMAGE_BYTES,
        prevent_thread_lock=prevent_thread_lock,
        quiet=quiet,
        show_error=False,
        footer_links=["api"],
        css=CSS,
        head=HEAD,
    )
    return demo


def _env_port() -> int:
    value = os.environ.get("GRADIO_SERVER_PORT")
    return int(value) if value else DEFAULT_PORT


def main(argv: Sequence[str] | None = None) -> None:
    """`python spaces/geomeval/app.py [--host H] [--port P] [--runs DIR]`."""
    parser = argparse.ArgumentParser(description="Serve the geomeval Space.")
    parser.add_argument("--host", default=None, help="interface to bind (default: GRADIO_SERVER_NAME, else 127.0.0.1)")
    parser.add_argument("--port", type=int, default=None, help="port (default: GRADIO_SERVER_PORT, else 7860)")
    parser.add_argument("--runs", default=None, help=f"folder of run outputs (default: {boards.RUNS_ENV}, else ./runs)")
    args = parser.parse_args(argv)
    launch(args.host, args.port, args.runs)


if __name__ == "__main__":
    main()

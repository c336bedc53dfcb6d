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
import os
import uuid
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

from . import boards, explore, try_metrics  # noqa: E402
from .limits import (  # noqa: E402
    MAX_ANSWER_CHARS,
    MAX_CAPTION_CHARS,
    MAX_IMAGE_BYTES,
    MAX_SCRIPT_CHARS,
    MAX_SOLUTION_CHARS,
    DemoInputError,
)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7860
ALL = "(all)"
NO_REFERENCE = ("no reference (run only)", "")
IMAGE_BUTTONS: list[Any] = ["download", "fullscreen"]  # no "share": it would post to the Hub
F = TypeVar("F", bound=Callable[..., Any])

INTRO = """# geomeval
Explore the benchmarks' embedded samples, try the metrics on your own input, and compare
models. Everything runs offline, with the same code as `geomeval run`."""


def _face(fn: F) -> F:
    """Show a refused input as Gradio's error toast, with the library's own message."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DemoInputError as exc:
            raise gr.Error(str(exc)) from None

    return wrapper  # type: ignore[return-value]


def _frame(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> pd.DataFrame:
    return pd.DataFrame([list(r) for r in rows], columns=list(headers))


# --------------------------------------------------------------------------- explore


def _item_outputs(benchmark: str, task: str, item_id: str | None) -> tuple[Any, ...]:
    if not item_id:
        return "_No item matches._", [], _frame(["field", "value"], []), _frame(["field", "dimension", "keypoint"], [])
    view = explore.item_view(benchmark, task, item_id)
    return (
        view.markdown,
        [(image, caption) for image, caption in view.images],
        _frame(["field", "value"], view.meta_rows),
        _frame(["field", "dimension", "keypoint"], view.keypoint_rows),
    )


@_face
def on_filters(benchmark: str, task: str, filters: list[str] | None) -> tuple[Any, ...]:
    items = explore.filter_items(benchmark, task, filters)
    first = items[0][1] if items else None
    count = f"{len(items)} item(s) match" if filters else f"{len(items)} item(s)"
    return (gr.update(choices=items, value=first), count, *_item_outputs(benchmark, task, first))


@_face
def on_task(benchmark: str, task: str) -> tuple[Any, ...]:
    summary = explore.task_summary(benchmark, task)
    filters = gr.update(choices=explore.filter_options(benchmark, task), value=[])
    return (summary, filters, *on_filters(benchmark, task, []))


@_face
def on_benchmark(benchmark: str) -> tuple[Any, ...]:
    tasks = explore.task_choices(benchmark)
    return (gr.update(choices=tasks, value=tasks[0]), *on_task(benchmark, tasks[0]))


@_face
def on_item(benchmark: str, task: str, item_id: str | None) -> tuple[Any, ...]:
    return _item_outputs(benchmark, task, item_id)


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
        _frame(["dimension", "recall", "precision", "F1", "covered / reference", "supported / caption"], result.score_rows),
        _frame(["dimension", "keypoint", "status", "caption span"], result.keypoint_rows),
    )


@_face
def on_reference_script(reference: str) -> str:
    return try_metrics.reference_script(reference)


def _own_copy(image: Any) -> Any:
    """`image` tagged with a nonce, so its bytes are this response's own. Gradio caches an
    output image under the hash of its bytes and rewrites that file on every response: two
    requests drawing the same figure at once would rewrite the file one of them is still
    downloading (a truncated body). The tag travels in the file's metadata only."""
    if image is None or not hasattr(image, "getexif"):
        return image
    image = image.copy()  # a cached reference figure is shared between requests
    tag = f"geomeval {uuid.uuid4().hex}"
    exif = image.getexif()
    exif[0x010E] = tag  # ImageDescription: the WebP Gradio writes keeps EXIF
    image.info["exif"] = exif.tobytes()
    image.info["geomeval-response"] = tag  # a PNG keeps text chunks instead
    return image


@_face
def on_run_script(script: str, reference: str | None) -> tuple[Any, ...]:
    result = try_metrics.try_script(script, reference or None)
    return (
        result.summary,
        _own_copy(result.figure),
        _own_copy(result.reference_figure),
        _frame(["line", "ran", "source", "error", "created"], result.line_rows),
        _frame(["kind", "check", "passed", "detail"], result.check_rows),
    )


@_face
def on_score_drawing(upload: str | None, reference: str | None) -> tuple[Any, ...]:
    result = try_metrics.try_drawing(upload, reference or None, upload_root=gr.utils.get_upload_folder())
    return (result.summary, _own_copy(result.image), _own_copy(result.reference_figure),
            _frame(["metric", "value", "note"], result.score_rows))


@_face
def on_solution_example(example: str) -> str:
    return try_metrics.solution_example(example)


@_face
def on_split_solution(text: str) -> tuple[Any, ...]:
    steps = try_metrics.split_solution(text)
    every = [value for _label, value in steps.choices()]
    scores = try_metrics.process_scores(len(steps.steps), every, True)
    return (steps.markdown(), gr.update(choices=steps.choices(), value=every), True,
            _frame(["metric", "value", "meaning"], scores))


@_face
def on_process_scores(text: str, correct: list[str] | None, final_correct: bool) -> pd.DataFrame:
    return _frame(["metric", "value", "meaning"], try_metrics.score_solution(text, correct, final_correct))


@_face
def on_check_answer(response: str, gold: str, choices: str, unit: str) -> tuple[Any, ...]:
    found = try_metrics.check_pair(response, gold, choices, unit)
    verdict = "✅ **equal**" if found.equal else "❌ **not equal**"
    return f"{verdict} · rule `{found.rule}`", _frame(["", "value"], found.rows())


# --------------------------------------------------------------------------- leaderboards


def _bench_filter(benchmark: str | None) -> str | None:
    return None if benchmark in (None, "", ALL) else benchmark


@_face
def on_published(key: str | None) -> tuple[Any, ...]:
    if not key:
        return "_No published table for this benchmark._", _frame([], []), gr.update(choices=[], value=None), None
    table = boards.board_table(key)
    columns = boards.numeric_columns(key)
    plot = boards.board_plot(key, columns[0]) if columns else None
    return (table.note, _frame(table.headers, table.rows), gr.update(choices=columns, value=columns[0] if columns else None),
            plot)


@_face
def on_published_plot(key: str, column: str) -> Any:
    return boards.board_plot(key, column)


def _runs_outputs(root: Path, benchmark: str | None) -> tuple[Any, ...]:
    table = boards.runs_table(root, _bench_filter(benchmark))
    names = [row[0] for row in table.rows]
    return table.note, _frame(table.headers, table.rows), gr.update(choices=names, value=names[:1])


def _leaderboard_handlers(root: Path) -> dict[str, Callable[..., Any]]:
    """Handlers bound to the runs folder chosen at launch: a visitor never names a folder."""

    @_face
    def on_leaderboard(benchmark: str | None) -> tuple[Any, ...]:
        tables = boards.board_choices(_bench_filter(benchmark))
        first = tables[0][1] if tables else None
        return (gr.update(choices=tables, value=first), *on_published(first), *_runs_outputs(root, benchmark))

    @_face
    def on_runs(benchmark: str | None) -> tuple[Any, ...]:
        return _runs_outputs(root, benchmark)

    @_face
    def on_breakdown_options(names: list[str] | None) -> tuple[Any, ...]:
        if not names:
            return gr.update(choices=[], value=None), gr.update(choices=[], value=None)
        groups, metrics = boards.breakdown_options(root, names)
        return (gr.update(choices=groups, value=groups[0] if groups else None),
                gr.update(choices=metrics, value=metrics[0] if metrics else None))

    @_face
    def on_breakdown(names: list[str] | None, group: str | None, metric: str | None) -> tuple[Any, ...]:
        found = boards.breakdown(root, names, group, metric)
        plot = boards.breakdown_plot(root, names, group, metric)
        return plot, _frame(found.table.headers, found.table.rows)

    return {"leaderboard": on_leaderboard, "runs": on_runs, "options": on_breakdown_options, "breakdown": on_breakdown}


# --------------------------------------------------------------------------- layout


def build_app(runs: str | Path | None = None) -> gr.Blocks:
    """The Space: Explore, Try a metric, Leaderboards. `runs` is the folder of run outputs
    (default: GEOMEVAL_SPACE_RUNS, else ./runs)."""
    root = boards.runs_root(runs)
    benchmarks = explore.benchmark_choices()
    with gr.Blocks(title="geomeval", analytics_enabled=False) as demo:
        gr.Markdown(INTRO)
        with gr.Tabs():
            with gr.Tab("Explore", id="explore"):
                with gr.Row():
                    bench = gr.Dropdown(benchmarks, value=benchmarks[0][1], label="Benchmark", elem_id="explore-benchmark")
                    task = gr.Dropdown([], label="Task", allow_custom_value=True, elem_id="explore-task")
                summary = gr.Markdown()
                filters = gr.Dropdown([], multiselect=True, allow_custom_value=True, elem_id="explore-filters",
                                      label="Filters (breakdown: value; values of one breakdown are alternatives)")
                with gr.Row():
                    item = gr.Dropdown([], label="Item", allow_custom_value=True, scale=4, elem_id="explore-item")
                    count = gr.Markdown()
                with gr.Row():
                    with gr.Column(scale=3):
                        item_md = gr.Markdown(line_breaks=True, elem_id="explore-item-text")
                    with gr.Column(scale=2):
                        gallery = gr.Gallery(label="Figures", columns=2, height=420, elem_id="explore-gallery",
                                             buttons=["download", "fullscreen"])
                        meta = gr.Dataframe(label="Breakdown keys and fields", interactive=False)
                        keypoints = gr.Dataframe(label="Keypoints (offline engine, from the captions)", interactive=False)
                item_outputs = [item_md, gallery, meta, keypoints]
                filter_outputs = [item, count, *item_outputs]
                task_outputs = [summary, filters, *filter_outputs]
                bench.input(on_benchmark, bench, [task, *task_outputs], api_name="explore_benchmark")
                task.input(on_task, [bench, task], task_outputs, api_name="explore_task")
                filters.input(on_filters, [bench, task, filters], filter_outputs, api_name="explore_filter")
                item.input(on_item, [bench, task, item], item_outputs, api_name="explore_item")
                demo.load(on_benchmark, bench, [task, *task_outputs], api_visibility="private")

            with gr.Tab("Try a metric", id="try"), gr.Tabs():
                with gr.Tab("Caption → keypoints", id="try-caption"):
                    gr.Markdown("CapGeo's keypoint score of a figure caption against a CapGeo-Bench reference: "
                                "recall per dimension (elements, relations, numbers) is the published score.")
                    references = try_metrics.caption_references()
                    with gr.Row():
                        cap_ref = gr.Dropdown(references, value=references[0][1] if references else None,
                                              label="Reference caption", scale=3)
                        engine = gr.Radio(try_metrics.caption_engines(), value=try_metrics.OFFLINE_ENGINE, label="Engine")
                    cap_ref_text = gr.Textbox(label="Reference", interactive=False, lines=3,
                                              value=try_metrics.reference_caption(references[0][1]) if references else "")
                    caption = gr.Textbox(label=f"Your caption (up to {MAX_CAPTION_CHARS:,} characters)", lines=4,
                                         max_length=MAX_CAPTION_CHARS * 2, elem_id="caption-input")
                    cap_go = gr.Button("Score caption", variant="primary", elem_id="caption-score")
                    cap_summary = gr.Markdown(elem_id="caption-summary")
                    cap_marks = gr.HighlightedText(label="Keypoints", color_map=try_metrics.HIGHLIGHT_COLORS,
                                                   show_legend=True, combine_adjacent=False)
                    cap_scores = gr.Dataframe(label="Scores", interactive=False)
                    cap_kps = gr.Dataframe(label="Keypoints", interactive=False)
                    cap_ref.input(on_reference_caption, cap_ref, cap_ref_text, api_name="reference_caption")
                    cap_go.click(on_score_caption, [caption, cap_ref, engine], [cap_summary, cap_marks, cap_scores, cap_kps],
                                 api_name="score_caption")

                with gr.Tab("GeoGebra script → figure", id="try-script"):
                    gr.Markdown("The GeoGebra engine runs your script line by line (Pass@1: every line ran) and the "
                                "verifier compares the construction with a GGBench reference, up to similarity.")
                    scripts = [NO_REFERENCE, *try_metrics.script_references()]
                    with gr.Row():
                        ggb_ref = gr.Dropdown(scripts, value=scripts[1][1] if len(scripts) > 1 else "",
                                              label="Reference construction", scale=3)
                        ggb_load = gr.Button("Load the reference script", elem_id="script-load")
                    script = gr.Code(label=f"GeoGebra script (up to {MAX_SCRIPT_CHARS:,} characters)", lines=12,
                                     language=None, elem_id="script-input")
                    ggb_go = gr.Button("Run script", variant="primary", elem_id="script-run")
                    ggb_summary = gr.Markdown(elem_id="script-summary")
                    with gr.Row():
                        ggb_figure = gr.Image(label="Your figure", type="pil", interactive=False, elem_id="script-figure",
                                              buttons=IMAGE_BUTTONS)
                        ggb_reference = gr.Image(label="Reference figure", type="pil", interactive=False,
                                                 elem_id="script-reference", buttons=IMAGE_BUTTONS)
                    ggb_lines = gr.Dataframe(label="Lines", interactive=False)
                    ggb_checks = gr.Dataframe(label="Verifier checks", interactive=False)
                    ggb_load.click(on_reference_script, ggb_ref, script, api_name="reference_script")
                    ggb_go.click(on_run_script, [script, ggb_ref], [ggb_summary, ggb_figure, ggb_reference, ggb_lines, ggb_checks],
                                 api_name="run_script")
                    with gr.Accordion("Or compare a drawing (image track: PSNR, SSIM at 256×256)", open=False):
                        drawing = gr.File(label=f"Your drawing ({'/'.join(try_metrics.UPLOAD_FORMATS)}, up to {MAX_IMAGE_BYTES // 2**20} MiB)",
                                          file_types=["image"], type="filepath", elem_id="drawing-upload")
                        draw_go = gr.Button("Compare drawing", elem_id="drawing-score")
                        draw_summary = gr.Markdown()
                        with gr.Row():
                            draw_image = gr.Image(label="Your drawing", type="pil", interactive=False, buttons=IMAGE_BUTTONS)
                            draw_reference = gr.Image(label="Reference figure", type="pil", interactive=False,
                                                      buttons=IMAGE_BUTTONS)
                        draw_scores = gr.Dataframe(label="Pixel metrics", interactive=False)
                        draw_go.click(on_score_drawing, [drawing, ggb_ref], [draw_summary, draw_image, draw_reference, draw_scores],
                                      api_name="score_drawing")

                with gr.Tab("Solution → PQS / PCS", id="try-solution"):
                    gr.Markdown("GeoLaux's process metrics: split a solution into the steps its judge marks, untick "
                                "the wrong ones, and see PCS and PQS (early mistakes cost more).")
                    examples = try_metrics.solution_examples()
                    with gr.Row():
                        sol_example = gr.Dropdown(examples, value=examples[0][1] if examples else None,
                                                  label="Example (GeoLaux sample)", scale=3)
                        sol_load = gr.Button("Load example")
                    solution = gr.Textbox(label=f"Solution (up to {MAX_SOLUTION_CHARS:,} characters)", lines=8,
                                          elem_id="solution-input")
                    sol_split = gr.Button("Split into steps", variant="primary", elem_id="solution-split")
                    sol_steps = gr.Markdown()
                    sol_marks = gr.CheckboxGroup([], label="Correct steps (untick a wrong step)", elem_id="solution-marks")
                    sol_final = gr.Checkbox(value=True, label="Final answer correct")
                    sol_scores = gr.Dataframe(label="Process metrics", interactive=False, elem_id="solution-scores")
                    sol_load.click(on_solution_example, sol_example, solution, api_name="solution_example")
                    sol_split.click(on_split_solution, solution, [sol_steps, sol_marks, sol_final, sol_scores],
                                    api_name="split_solution")
                    gr.on([sol_marks.input, sol_final.input], on_process_scores, [solution, sol_marks, sol_final], sol_scores,
                          api_name="process_scores")

                with gr.Tab("Answer check", id="try-answer"):
                    gr.Markdown("The answer checker every benchmark shares: the final answer it extracts from a "
                                "response, and its verdict against the gold answer with the rule that decided it.")
                    with gr.Row():
                        response = gr.Textbox(label="Model response", lines=4, max_length=MAX_ANSWER_CHARS * 2,
                                              value="... so the answer is \\boxed{70^\\circ}", elem_id="answer-response")
                        with gr.Column():
                            gold = gr.Textbox(label="Gold answer", value="70", elem_id="answer-gold")
                            choices = gr.Textbox(label="Choices (one a line, optional)", lines=2)
                            unit = gr.Textbox(label="Gold answer's unit (optional)", value="°")
                    ans_go = gr.Button("Check", variant="primary", elem_id="answer-check")
                    ans_verdict = gr.Markdown(elem_id="answer-verdict")
                    ans_rows = gr.Dataframe(label="Checker", interactive=False)
                    ans_go.click(on_check_answer, [response, gold, choices, unit], [ans_verdict, ans_rows], api_name="check_answer")

            with gr.Tab("Leaderboards", id="leaderboards"):
                handlers = _leaderboard_handlers(root)
                lb_bench = gr.Dropdown([ALL, *boards.benchmark_names()], value=ALL, label="Benchmark",
                                       elem_id="leaderboard-benchmark")
                gr.Markdown("### Published results")
                board = gr.Dropdown([], label="Table", allow_custom_value=True)
                board_note = gr.Markdown()
                board_df = gr.Dataframe(label="Published (sort by clicking a column)", interactive=False)
                board_column = gr.Dropdown([], label="Plot column", allow_custom_value=True)
                board_plot = gr.Plot(label="Published")
                gr.Markdown("### Runs")
                runs_refresh = gr.Button("Refresh runs")
                runs_note = gr.Markdown()
                runs_df = gr.Dataframe(label="Runs (shares ×100)", interactive=False)
                with gr.Row():
                    run_pick = gr.Dropdown([], multiselect=True, allow_custom_value=True, label="Runs to compare", scale=3)
                    group = gr.Dropdown([], label="Breakdown", allow_custom_value=True)
                    metric = gr.Dropdown([], label="Metric", allow_custom_value=True)
                bd_go = gr.Button("Plot breakdown", elem_id="breakdown-plot")
                bd_plot = gr.Plot(label="Breakdown")
                bd_df = gr.Dataframe(label="Breakdown", interactive=False, elem_id="breakdown-table")
                board_outputs = [board_note, board_df, board_column, board_plot]
                runs_outputs = [runs_note, runs_df, run_pick]
                lb_bench.input(handlers["leaderboard"], lb_bench, [board, *board_outputs, *runs_outputs], api_name="leaderboard")
                board.input(on_published, board, board_outputs, api_name="published_table")
                board_column.input(on_published_plot, [board, board_column], board_plot, api_name="published_plot")
                runs_refresh.click(handlers["runs"], lb_bench, runs_outputs, api_name="runs_table")
                run_pick.change(handlers["options"], run_pick, [group, metric], api_name="breakdown_options")
                bd_go.click(handlers["breakdown"], [run_pick, group, metric], [bd_plot, bd_df], api_name="breakdown")
                demo.load(handlers["leaderboard"], lb_bench, [board, *board_outputs, *runs_outputs], api_visibility="private")
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

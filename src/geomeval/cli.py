"""The `geomeval` command line: list, run, score, compare, report, build, ggb."""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from . import __version__
from .errors import ENDPOINT_EXIT, MIN_COVERAGE_EXIT

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Evaluate models on geometric reasoning benchmarks.")
console = Console(stderr=True)
out = Console()


def _show_version(value: bool) -> None:
    if value:
        out.print(f"geomeval {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_show_version, is_eager=True, help="print the version and exit")
    ] = False,
) -> None:
    """Evaluate models on geometric reasoning benchmarks."""


from .cli_ggb import GgbInputError, ggb_app  # noqa: E402

app.add_typer(ggb_app, name="ggb")

from .cli_capgeo import capgeo_app  # noqa: E402

app.add_typer(capgeo_app, name="capgeo")

from .cli_geoeval import geoeval_app  # noqa: E402

app.add_typer(geoeval_app, name="geoeval")

from .cli_me2 import me2_app  # noqa: E402

app.add_typer(me2_app, name="me2")


class UserError(Exception):
    """An error the user can fix; printed without a traceback, exit code 2."""


@contextmanager
def _progress(label: str):
    with Progress(
        TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=console, transient=False,
    ) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _print_results(results: dict[str, Any], out_dir: Path) -> None:
    from .report import fmt_coverage, fmt_judge, fmt_metric

    judged = any(stats.get("judge") for stats in results["metrics"].values())
    table = Table(title=f"{results['title']} · {results['task']} · {results['model']} · judge {results['judge']}")
    table.add_column("metric")
    table.add_column("score", justify="right")
    table.add_column("coverage", justify="right")
    if judged:
        table.add_column("judge", justify="right")
    for name, stats in results["metrics"].items():
        table.add_row(name, fmt_metric(stats), fmt_coverage(stats), *([fmt_judge(stats)] if judged else []))
    out.print(table)
    truncated = results["generation"].get("truncated")
    if truncated:
        out.print(
            f"[yellow]{truncated} answer(s) were cut at max_tokens[/yellow] (finish_reason 'length'); they "
            "are scored as given. A larger --max-tokens may change the score.", highlight=False,
        )
    headline = results.get("headline")
    for group, buckets in results["breakdowns"].items():
        if not headline or not buckets:
            continue
        sub = Table(title=f"{headline} by {group.replace('_', ' ')}")
        sub.add_column(group)
        sub.add_column(headline, justify="right")
        sub.add_column("coverage", justify="right")
        for key, per_metric in buckets.items():
            unit = results["metrics"][headline].get("unit")
            sub.add_row(key, fmt_metric(per_metric[headline], unit), fmt_coverage(per_metric[headline]))
        out.print(sub)
    from .report import fmt_cell

    for extra in results.get("tables") or []:
        laid_out = Table(title=extra["title"])
        for index, column in enumerate(extra["columns"]):
            laid_out.add_column(column, justify="left" if index == 0 else "right")
        for row in extra["rows"]:
            laid_out.add_row(*(fmt_cell(v, extra.get("style", "percent")) for v in row))
        out.print(laid_out)
    out.print(f"samples: {out_dir / 'samples.jsonl'}\nresults: {out_dir / 'results.json'}\nreport:  {out_dir / 'report.md'}")


@app.command("list")
def list_benchmarks() -> None:
    """Benchmarks, their tasks and splits, and which data is available."""
    from .benchmarks import REGISTRY

    table = Table(title="geomeval benchmarks")
    for column in ("benchmark", "tasks", "splits", "data"):
        table.add_column(column)
    for name, bench in REGISTRY.items():
        table.add_row(name, ", ".join(bench.tasks), ", ".join(bench.splits), bench.data_status())
    out.print(table)


def _default_out(benchmark: str, task: str, model: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model.split("/")[-1])[:60]
    return Path("runs") / f"{benchmark}-{task}-{slug}"




def _cache(path: Path | None, no_cache: bool) -> Any:
    from .cache import ResponseCache, default_cache_path

    return None if no_cache else ResponseCache(path or default_cache_path())


def _check_coverage(results: dict[str, Any], min_coverage: float) -> None:
    from .aggregate import coverage_shortfalls

    short = coverage_shortfalls(results, min_coverage)
    if short:
        console.print("[red]coverage below --min-coverage:[/red] " + escape("; ".join(short)), highlight=False, soft_wrap=True)
        console.print("unscored items keep their errors in samples.jsonl; rerun the same command to retry them.")
        sys.exit(MIN_COVERAGE_EXIT)


def _print_requests(**clients: Any) -> None:
    parts = []
    for role, client in clients.items():
        if client is not None and hasattr(client, "requests_sent"):
            parts.append(f"{role}: {client.requests_sent} requests sent, {client.cache_hits} answered from cache")
    if parts:
        console.print("; ".join(parts), highlight=False)


ConcurrencyOpt = Annotated[
    int, typer.Option(min=1, max=1024, envvar="GEOMEVAL_CONCURRENCY", help="requests in flight per endpoint")
]
MinCoverageOpt = Annotated[
    float,
    typer.Option(min=0.0, max=1.0, envvar="GEOMEVAL_MIN_COVERAGE",
                 help=f"exit {MIN_COVERAGE_EXIT} when a metric scores fewer items than this share (judge-less metrics excepted)"),
]
TimeoutOpt = Annotated[
    float, typer.Option(min=1.0, envvar="GEOMEVAL_TIMEOUT",
                        help="seconds a server may answer nothing before a request is given up and retried")
]
JudgeConcurrencyOpt = Annotated[
    int | None, typer.Option(min=1, max=1024, envvar="GEOMEVAL_JUDGE_CONCURRENCY",
                             help="judge requests in flight (default: --concurrency)")
]
JudgeTimeoutOpt = Annotated[
    float | None, typer.Option(min=1.0, envvar="GEOMEVAL_JUDGE_TIMEOUT", help="the judge's timeout (default: --timeout)")
]
JudgeMaxTokensOpt = Annotated[
    int | None, typer.Option(min=1, envvar="GEOMEVAL_JUDGE_MAX_TOKENS",
                             help="completion token limit for the judge (default 2048; 16384 for a reasoning model)")
]
JudgeStyleOpt = Annotated[
    str | None, typer.Option(envvar="GEOMEVAL_JUDGE_STYLE",
                             help="judge request shape: auto (by model name), chat, or reasoning "
                                  "(max_completion_tokens, no temperature: o-series, gpt-5)")
]
JudgeImagesOpt = Annotated[
    bool | None, typer.Option("--judge-images/--judge-text-only",
                              help="send the judge the figures its paper shows it (default; GEOMEVAL_JUDGE_IMAGES=0 "
                                   "for text only), or judge from text alone for a judge that refuses images "
                                   "(not comparable with the paper)")
]
CacheOpt = Annotated[
    Path | None, typer.Option("--cache", help="response cache file (default: $GEOMEVAL_CACHE_DIR/responses.sqlite or ~/.cache/geomeval)")
]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="neither read nor write the response cache")]


def _task_options(pairs: list[str]) -> dict[str, str]:
    """-T KEY=VALUE pairs as a dict; a malformed or repeated key is a usage error."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier() or not value.strip():
            raise UserError(f"-T {pair!r}: expected KEY=VALUE, e.g. -T pixel_reference=release")
        if key in options:
            raise UserError(f"-T {key} given twice")
        options[key] = value.strip()
    return options


@app.command()
def run(
    benchmark: Annotated[str, typer.Argument(help="capgeo, ggbench, geoeval, geolaux or me2")],
    model: Annotated[
        str, typer.Option(help="openai:<model>, vllm:<model-or-path>, replay:<samples.jsonl>, baseline:random, baseline:empty")
    ],
    task: Annotated[str | None, typer.Option(help="task name; default: the benchmark's first task")] = None,
    judge: Annotated[str | None, typer.Option(help="offline or openai:<model> (default: GEOMEVAL_JUDGE_MODEL, else offline)")] = None,
    data: Annotated[str | None, typer.Option(help="built folder, raw release, or hub id; default: embedded sample")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="score only the first N items")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="output folder")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server for the model (or GEOMEVAL_BASE_URL)")] = None,
    judge_base_url: Annotated[str | None, typer.Option(help="server for the judge (or GEOMEVAL_JUDGE_BASE_URL)")] = None,
    concurrency: ConcurrencyOpt = 32,
    timeout: TimeoutOpt = 120.0,
    judge_concurrency: JudgeConcurrencyOpt = None,
    judge_timeout: JudgeTimeoutOpt = None,
    judge_max_tokens: JudgeMaxTokensOpt = None,
    judge_style: JudgeStyleOpt = None,
    judge_images: JudgeImagesOpt = None,
    max_tokens: Annotated[int, typer.Option(min=1, help="completion token limit for the model")] = 2048,
    temperature: Annotated[float, typer.Option(min=0.0, help="model sampling temperature (judges always use 0)")] = 0.0,
    tensor_parallel_size: Annotated[int | None, typer.Option(min=1, help="vllm: GPUs to shard the model over")] = None,
    engine_arg: Annotated[list[str] | None, typer.Option(help="vllm: engine argument key=value (repeatable)")] = None,
    min_coverage: MinCoverageOpt = 0.95,
    cache: CacheOpt = None,
    no_cache: NoCacheOpt = False,
    seed: Annotated[int, typer.Option(help="seed for baseline:random and vLLM sampling")] = 0,
    overwrite: Annotated[bool, typer.Option(help="discard samples already in --out instead of resuming")] = False,
    source: Annotated[str | None, typer.Option(help="capgeo: mathvista_geometry, geoqa, mathverse_vision_only or mathverse_vision_intensive")] = None,
    captioner: Annotated[str | None, typer.Option(help="capgeo: the model spec that captions the figures")] = None,
    captioner_base_url: Annotated[str | None, typer.Option(help="capgeo: server for the captioner (default: --base-url)")] = None,
    mode: Annotated[str | None, typer.Option(help="capgeo: direct, with_image or without_image; geoeval: text, text_description, text_diagram or text_description_diagram; me2: with_summary or without_summary (me2_keypoints without the solution summary: the Appendix C ablation)")] = None,
    captions: Annotated[Path | None, typer.Option(help="capgeo: caption store folder (default: runs/captions)")] = None,
    prompts: Annotated[Path | None, typer.Option(envvar="GEOMEVAL_PROMPTS",
                                                 help="prompt file replacing named templates (e.g. the authors' "
                                                      "exact wording); `geomeval prompts BENCHMARK` prints the defaults")] = None,
    sample_seed: Annotated[int | None, typer.Option(help="capgeo geoqa: seed of the paper's random 200 problems (default 0)")] = None,
    all_problems: Annotated[bool, typer.Option(help="capgeo geoqa: every problem, not the paper's random 200")] = False,
) -> None:
    """Generate answers, score them, and write samples.jsonl, results.json and report.md."""
    from .benchmarks import get_benchmark, with_prompt_file
    from .judges import parse_judge_spec
    from .models import ModelOptions, parse_engine_args, parse_model_spec
    from .runner import run as run_benchmark

    bench = get_benchmark(benchmark)
    task = task or bench.default_task
    with_prompt_file(bench, prompts)  # a bad prompt file fails before any endpoint is contacted
    engine_args = parse_engine_args(engine_arg or [])
    if tensor_parallel_size is not None:
        engine_args["tensor_parallel_size"] = tensor_parallel_size
    response_cache = _cache(cache, no_cache)
    judge_obj = parse_judge_spec(
        judge, base_url=judge_base_url, concurrency=judge_concurrency or concurrency,
        timeout_s=judge_timeout or timeout, cache=response_cache, model_base_url=base_url,
        max_tokens=judge_max_tokens, style=judge_style, images=judge_images,
    )
    model_obj = parse_model_spec(
        model,
        ModelOptions(
            base_url=base_url, concurrency=concurrency, timeout_s=timeout, max_tokens=max_tokens,
            temperature=temperature, seed=seed, cache=response_cache, engine_args=engine_args,
        ),
    )
    captioner_obj = None
    if captioner is not None:
        captioner_obj = parse_model_spec(
            captioner,
            ModelOptions(
                base_url=captioner_base_url or base_url, concurrency=concurrency, timeout_s=timeout,
                max_tokens=max_tokens, temperature=0.0, seed=seed, cache=response_cache,
                key_base_url=base_url or "",
            ),
        )
    bench = bench.configure(
        {"source": source, "captioner": captioner_obj, "mode": mode, "captions": captions,
         "sample_seed": sample_seed, "all_problems": all_problems or None}
    )
    bench = with_prompt_file(bench, prompts)
    target = out_dir or _default_out(bench.name, task, model)
    with _progress(f"{bench.name}/{task}") as update:
        results = run_benchmark(
            bench, task=task, model=model_obj, judge=judge_obj, out_dir=target, data=data, limit=limit,
            concurrency=concurrency, seed=seed, overwrite=overwrite, progress=update,
        )
    _print_results(results, target)
    _print_requests(model=getattr(model_obj, "client", model_obj), judge=judge_obj.client)
    _check_coverage(results, min_coverage)


@app.command("prompts")
def prompts_command(
    benchmark: Annotated[str, typer.Argument(help="capgeo, capgeo_bench, ggbench, geoeval, geolaux or me2")],
    check: Annotated[Path | None, typer.Option(help="validate this prompt file for the benchmark instead")] = None,
) -> None:
    """Print a benchmark's default prompt templates as a prompt file (for --prompts), or check one."""
    from .benchmarks import get_benchmark, with_prompt_file
    from .prompts import as_file_text

    bench = get_benchmark(benchmark)
    if check is not None:
        prompt_set = with_prompt_file(bench, check).prompts
        replaced = ", ".join(prompt_set.overrides) or "none"
        console.print(f"{check}: usable for {bench.name}; replaces {replaced}; sha256 {prompt_set.sha256}",
                      highlight=False, soft_wrap=True)
        return
    if not bench.prompt_templates:
        raise ValueError(f"{bench.name} sends no replaceable prompts")
    sys.stdout.write(as_file_text(bench.name, bench.prompt_templates))


@app.command()
def score(
    run_dir: Annotated[Path, typer.Argument(help="a folder written by `geomeval run`")],
    judge: Annotated[str | None, typer.Option(help="offline or openai:<model> (default: GEOMEVAL_JUDGE_MODEL, else offline)")] = None,
    judge_base_url: Annotated[str | None, typer.Option(help="server for the judge")] = None,
    concurrency: ConcurrencyOpt = 32,
    timeout: TimeoutOpt = 120.0,
    judge_max_tokens: JudgeMaxTokensOpt = None,
    judge_style: JudgeStyleOpt = None,
    judge_images: JudgeImagesOpt = None,
    min_coverage: MinCoverageOpt = 0.95,
    cache: CacheOpt = None,
    no_cache: NoCacheOpt = False,
) -> None:
    """Rescore saved outputs (e.g. with another judge) without regenerating."""
    from .judges import parse_judge_spec
    from .runner import rescore

    judge_obj = parse_judge_spec(
        judge, base_url=judge_base_url, concurrency=concurrency, timeout_s=timeout, cache=_cache(cache, no_cache),
        max_tokens=judge_max_tokens, style=judge_style, images=judge_images,
    )
    with _progress("rescoring") as update:
        results = rescore(run_dir, judge_obj, progress=update, concurrency=concurrency)
    _print_results(results, run_dir)
    _print_requests(judge=judge_obj.client)
    _check_coverage(results, min_coverage)


@app.command()
def compare(
    run_a: Annotated[Path, typer.Argument(help="baseline run folder (e.g. task geolaux)")],
    run_b: Annotated[Path, typer.Argument(help="run to compare (e.g. task geolaux_aux)")],
    by: Annotated[str | None, typer.Option(help="breakdown key to group by (default: the benchmark's, e.g. auxiliary_type)")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="also write the comparison here")] = None,
) -> None:
    """Per-group change B − A of each metric over the items scored in both runs."""
    from .compare import compare_runs
    from .report import fmt_metric

    result = compare_runs(run_a, run_b, by=by)
    group = result["by"]
    title = f"{result['A']['task']} ({run_a}) → {result['B']['task']} ({run_b})"
    table = Table(title=title)
    for column in (group or "group", "metric", "paired items", "A", "B", "Δ (B − A)"):
        table.add_column(column, justify="left" if column in (group or "group", "metric") else "right")
    for key, row in result["groups"].items():
        for metric in result["metrics"]:
            cell = row[metric]
            if cell["paired"] == 0:
                table.add_row(key, metric, "0", "not scored", "not scored", "—")
                continue
            table.add_row(key, metric, str(cell["paired"]), fmt_metric({"value": cell["A"]}),
                          fmt_metric({"value": cell["B"]}), f"{100 * cell['delta']:+.1f}")
    out.print(table)
    if json_out:
        json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        out.print(f"comparison: {json_out}")


@app.command()
def report(run_dir: Annotated[Path, typer.Argument(help="a folder holding results.json")]) -> None:
    """Rebuild report.md and its plots from results.json."""
    from .report import write_report

    if not (run_dir / "results.json").exists():
        raise UserError(f"{run_dir / 'results.json'} not found")
    path = write_report(run_dir)
    out.print(f"report: {path}")


@app.command()
def build(
    benchmark: Annotated[str, typer.Argument(help="benchmark whose raw release to convert")],
    raw: Annotated[Path, typer.Option(help="the official raw release (folder or JSON file)")],
    out_dir: Annotated[Path, typer.Option("--out", help="folder for parquet shards and the card")],
    skip_invalid: Annotated[bool, typer.Option(help="skip bad items (counted) instead of stopping")] = False,
    overwrite: Annotated[bool, typer.Option(help="replace an existing non-empty --out")] = False,
) -> None:
    """Build the typed parquet dataset from the official raw release."""
    from .benchmarks import get_benchmark

    bench = get_benchmark(benchmark)
    summary = bench.build(str(raw), str(out_dir), skip_invalid=skip_invalid, overwrite=overwrite)
    for split, info in summary["splits"].items():
        out.print(f"{split}: {info['num_examples']} items, {info['num_bytes']} bytes")
    if summary.get("missing"):  # a release of subsets (GeoEval) that lacks some
        out.print(f"not in the release: {', '.join(summary['missing'])}")
    if summary["skipped"]:
        out.print(f"skipped {len(summary['skipped'])} invalid item(s):")
        for entry in summary["skipped"]:
            where = f"{entry['config']} " if entry.get("config") else ""
            out.print(f"  {where}{entry['id']}: {entry['field']}: {entry['error']}")
    report = json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
    (Path(out_dir) / "build_report.json").write_text(report, encoding="utf-8")
    out.print(f"built: {out_dir}")


@app.command()
def demo(
    host: Annotated[str, typer.Option(help="interface to bind; 127.0.0.1 keeps it on this machine")] = "127.0.0.1",
    port: Annotated[int | None, typer.Option(min=1, max=65535, help="port (default: GRADIO_SERVER_PORT, else 7860)")] = None,
    runs: Annotated[Path | None, typer.Option(help="folder of run outputs for the leaderboards (default: GEOMEVAL_SPACE_RUNS, else ./runs)")] = None,
) -> None:
    """Serve the Gradio Space locally: explore the benchmarks, try the metrics, compare runs
    (needs the `space` extra: pip install "geomeval[space]")."""
    chosen = port if port is not None else int(os.environ.get("GRADIO_SERVER_PORT") or 7860)
    _refuse_busy_port(host, chosen)
    try:
        from .demo.app import launch
    except ImportError as exc:
        raise UserError(f"the demo needs Gradio: pip install \"geomeval[space]\" ({exc})") from None
    launch(host, chosen, runs)


def _refuse_busy_port(host: str, port: int) -> None:
    """One clear line for a port another program holds, before Gradio is even imported."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise UserError(f"cannot use --host {host}: {exc.strerror}") from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(address)
        except OSError as exc:
            raise UserError(
                f"port {port} on {host} is not free ({exc.strerror}): pass another --port, "
                "or stop the program using it"
            ) from None


@app.command(
    "lmms-eval",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def lmms_eval_command(
    ctx: typer.Context,
    data: Annotated[str | None, typer.Option(help="built folder, raw release, or hub id (for the benchmark of the tasks named); default: embedded samples")] = None,
    min_coverage: MinCoverageOpt = 0.95,
    prompts: Annotated[Path | None, typer.Option(envvar="GEOMEVAL_PROMPTS",
                                                 help="prompt file replacing named templates, as `geomeval run --prompts`")] = None,
) -> None:
    """Run lmms-eval on geomeval's tasks (geolaux, geolaux_aux, ggbench_code, capgeo_bench,
    capgeo_reasoning_direct, capgeo_reasoning_with_image, capgeo_reasoning_without_image,
    geoeval_2000, geoeval_backward, geoeval_aug, geoeval_hard, and the group geoeval).

    geomeval lmms-eval [--data PATH] -- ARGS, where ARGS go to `python -m lmms_eval`
    unchanged, e.g. `--model openai --model_args model=NAME,base_url=URL --tasks geolaux
    --output_path DIR`. --data applies to the benchmark whose tasks --tasks names; tasks
    of two benchmarks with one --data are refused (exit 2), and so is a built folder
    without the subset (config) a named task reads. Exits 1 when lmms-eval writes no
    results JSON, and 3 when a metric's coverage is below --min-coverage (as `geomeval run`;
    without a judge, metrics only a judge scores are exempt).
    """
    from .integrations.lmms_eval import run_lmms_eval

    status = run_lmms_eval(list(ctx.args), data=data, min_coverage=min_coverage,
                           prompts=str(prompts) if prompts else None)
    if status:
        sys.exit(status)


def _user_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that carry a message for the user (exit 2, no traceback). Their modules are
    imported here, when an error is being handled, so start-up stays light."""
    from .benchmarks.base import DataError
    from .runner import RunConflict

    return (UserError, GgbInputError, DataError, RunConflict, FileNotFoundError, FileExistsError, KeyError, ValueError)


class _ConsoleHandler(logging.Handler):
    """The library's warnings (a server that makes the client narrow its requests in flight)
    printed on the console, above the progress bar, in yellow."""

    def emit(self, record: logging.LogRecord) -> None:
        console.print(f"[yellow]warning:[/yellow] {escape(record.getMessage())}", highlight=False, soft_wrap=True)


def _show_warnings_on_console() -> None:
    logger = logging.getLogger("geomeval")
    if not any(isinstance(h, _ConsoleHandler) for h in logger.handlers):
        logger.addHandler(_ConsoleHandler(logging.WARNING))
        logger.propagate = False


def main() -> None:
    """Entry point. Usage mistakes are typer's (in standalone mode it prints the usage and exits
    2, whatever click it bundles); errors the user can fix print one line and exit 2."""
    from .errors import EndpointFailure

    _show_warnings_on_console()
    try:
        app(standalone_mode=True, prog_name="geomeval")
    except KeyboardInterrupt:
        sys.exit(130)
    except EndpointFailure as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        console.print(
            "Nothing was counted for the items not yet done; what was saved stays saved. "
            "Fix the endpoint and rerun the same command to resume.", highlight=False, soft_wrap=True,
        )
        sys.exit(ENDPOINT_EXIT)
    except Exception as exc:
        if not isinstance(exc, _user_errors()):
            raise
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        console.print(f"[red]error:[/red] {escape(str(message))}", highlight=False, soft_wrap=True)
        sys.exit(2)

if __name__ == "__main__":
    main()

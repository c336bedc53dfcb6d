"""The top-level `geomeval` commands: list, run, suite, prompts, score, merge, compare, agreement,
report, build, publish, demo and lmms-eval (the benchmark groups have a module each)."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand

from .. import __version__
from ..core.errors import MIN_COVERAGE_EXIT, UsageError
from .lazyrich import BackgroundBar, LazyConsole, escape
from .plainparams import install as install_plain_params
from .settings import (
    BudgetOpt,
    CacheOpt,
    JudgeOpt,
    ModelOpt,
    budget_settings,
    cache_setting,
    judge_settings,
    model_settings,
)

if TYPE_CHECKING:
    from typer import _click  # the click typer bundles (typer has no click dependency)

install_plain_params()  # options read without importing pydantic, with typer's answers (plainparams.py)
_APP_SETTINGS: dict[str, Any] = {"add_completion": False, "no_args_is_help": True,
                                 "help": "Evaluate models on geometric reasoning benchmarks."}
app = typer.Typer(**_APP_SETTINGS)
console = LazyConsole(stderr=True)  # rich imported when something is drawn (lazyrich.py)
out = LazyConsole()



def generation_settings(bench: Any, max_tokens: int | None, temperature: float | None) -> tuple[int, float]:
    """The model's token limit and temperature: the user's where given, else the benchmark's own
    (its paper's protocol), so a run at the defaults asks the model as the paper did."""
    return (bench.generation_max_tokens if max_tokens is None else max_tokens,
            bench.generation_temperature if temperature is None else temperature)


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


FREEZE_AT_START = False
"""Set by `main` when this process is the `geomeval` command alone (nothing runs after it): at a
run's first count, what the process holds by then (every module imported, the run's settings
and data opened) is moved out of the garbage collector's sight with `gc.freeze`, all of it kept
to the end anyway. The collections during the run, and the one at exit (`_exit_now`), then walk
only what the run made since: the one at exit took about 20 ms of a 500-item run's tail, 2 ms now."""


def _freeze_start_up() -> None:
    global FREEZE_AT_START
    if FREEZE_AT_START:
        FREEZE_AT_START = False
        import gc

        gc.freeze()


@contextmanager
def _progress(label: str, last_round: int = 0):
    # made on a thread (rich's import with it) once the run is under way, or, where it is drawn
    # only when it stops (not a terminal), when at most `last_round` items are left: lazyrich.py
    bar = BackgroundBar(label, console, last_round)

    def update(done: int, total: int) -> None:
        _freeze_start_up()  # the first count comes as the run starts (FREEZE_AT_START)
        bar.update(done, total)

    try:
        yield update
    finally:
        bar.close()


def _print_results(results: dict[str, Any], out_dir: Path) -> None:
    from rich.table import Table

    from ..run.report import (
        fmt_coverage,
        fmt_interval,
        fmt_judge,
        fmt_metric,
        fmt_se,
        precision_note,
    )

    judged = any(stats.get("judge") for stats in results["metrics"].values())
    table = Table(title=f"{results['title']} · {results['task']} · {results['model']} · judge {results['judge']}")
    table.add_column("metric")
    table.add_column("score", justify="right")
    table.add_column("s.e.", justify="right")
    table.add_column("95% interval", justify="right")
    table.add_column("coverage", justify="right")
    if judged:
        table.add_column("judge", justify="right")
    for name, stats in results["metrics"].items():
        table.add_row(name, fmt_metric(stats), fmt_se(stats), fmt_interval(stats), fmt_coverage(stats),
                      *([fmt_judge(stats)] if judged else []))
    out.print(table)
    note = precision_note(results)
    if note:
        out.print(f"[yellow]{escape(note)}[/yellow]", highlight=False)
    truncated = results["generation"].get("truncated")
    if truncated:
        out.print(
            f"[yellow]{truncated} answer(s) were cut at max_tokens[/yellow] (finish_reason 'length'); they "
            "are scored as given. A larger -M max_tokens=N may change the score.", highlight=False,
        )
    from ..run.report import requests_lines

    costs = [line for line in requests_lines(results) if "cost $" in line]
    for line in costs:
        out.print(line.lstrip("- ").replace("**", ""), highlight=False)
    headline = results.get("headline")
    for group, buckets in results["breakdowns"].items():
        if not headline or not buckets:
            continue
        sub = Table(title=f"{headline} by {group.replace('_', ' ')}")
        sub.add_column(group)
        sub.add_column(headline, justify="right")
        sub.add_column("95% interval", justify="right")
        sub.add_column("coverage", justify="right")
        for key, per_metric in buckets.items():
            unit = results["metrics"][headline].get("unit")
            sub.add_row(str(key), fmt_metric(per_metric[headline], unit), fmt_interval(per_metric[headline], unit),
                        fmt_coverage(per_metric[headline]))
        out.print(sub)
    from ..run.report import fmt_cell

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
    """Benchmarks, their tasks, splits and options (-T), and which data is available."""
    from rich.table import Table

    from ..benchmarks import REGISTRY
    from ..benchmarks.options import specs

    table = Table(title="geomeval benchmarks")
    for column in ("benchmark", "tasks", "splits", "options", "data"):
        table.add_column(column)
    for name, bench in REGISTRY.items():
        options = ", ".join(spec.name for spec in specs(bench.Options))
        table.add_row(name, ", ".join(bench.tasks), ", ".join(bench.splits), options or "—", bench.data_status())
    out.print(table)


def _default_out(benchmark: str, task: str, model: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model.split("/")[-1])[:60]
    return Path("runs") / f"{benchmark}-{task}-{slug}"


def _cache(path: Path | None, no_cache: bool) -> Any:
    from ..engines.cache import ResponseCache, default_cache_path

    return None if no_cache else ResponseCache(path or default_cache_path())


def _cache_opened_beside(path: Path | None, no_cache: bool) -> Callable[[], Any]:
    """`_cache`, opened on a thread while the caller goes on (loading a run's modules): making
    a new SQLite file in WAL mode waits on the disk for a few to 20 ms. The function returned
    waits for it and gives the cache, or raises what opening it raised."""
    if no_cache:
        return lambda: None
    import threading

    from ..engines.cache import ResponseCache, default_cache_path

    target = path or default_cache_path()
    opened: list[Any] = []
    failed: list[BaseException] = []

    def open_cache() -> None:
        try:
            opened.append(ResponseCache(target))
        except BaseException as exc:  # raised where the cache is waited for
            failed.append(exc)

    thread = threading.Thread(target=open_cache, name="geomeval-cache-open", daemon=True)
    thread.start()

    def wait() -> Any:
        thread.join()
        if failed:
            raise failed[0]
        return opened[0]

    return wait


def _check_coverage(results: dict[str, Any], min_coverage: float) -> None:
    from ..engines.aggregate import coverage_shortfalls

    short = coverage_shortfalls(results, min_coverage)
    if short:
        console.print("[red]coverage below --min-coverage:[/red] " + escape("; ".join(short)), highlight=False, soft_wrap=True)
        console.print("unscored items keep their errors in samples.jsonl; rerun the same command to retry them.")
        sys.exit(MIN_COVERAGE_EXIT)


def _print_requests(**clients: Any) -> None:
    parts = []
    for role, client in clients.items():
        if client is not None and hasattr(client, "requests_sent"):
            part = f"{role}: {client.requests_sent} requests sent, {client.cache_hits} answered from cache"
            tokens = getattr(client, "tokens", None)
            if tokens and getattr(client, "replies_reporting_usage", 0):
                part += f", {tokens['prompt_tokens']:,} prompt + {tokens['completion_tokens']:,} completion tokens"
            if getattr(client, "truncated", 0):
                part += f", {client.truncated} cut at the token limit"
            parts.append(part)
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
DryRunOpt = Annotated[
    bool, typer.Option("--dry-run", help="send nothing: say how many items are left and how many model "
                                         "requests the cache would not answer")
]
BUDGET_EXIT = 5  # the run stopped at --budget requests=N or cost=DOLLARS: rerun with a larger one to go on


def _read_prices(path: Path | None) -> dict[str, dict[str, float]] | None:
    """The price table, checked: every entry a model name with numeric prompt/completion prices."""
    if path is None:
        return None
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise UsageError(f"--budget prices={path}: unreadable ({exc})") from None
    if not isinstance(table, dict) or not all(
        isinstance(v, dict) and v and set(v) <= {"prompt", "completion"}
        and all(isinstance(x, int | float) and x >= 0 for x in v.values())
        for v in table.values()
    ):
        raise UsageError(f'--budget prices={path}: expected {{"MODEL": {{"prompt": $, "completion": $}}}} per million '
                         'tokens')
    return table


def _budget(max_requests: int | None, max_cost: float | None, prices: dict[str, Any] | None) -> Any:
    if max_cost is not None and not prices:
        raise UsageError("--budget cost needs --budget prices=FILE (a price table; or GEOMEVAL_PRICES) to count dollars")
    if max_requests is None and max_cost is None:
        return None
    from ..engines.client import RequestBudget

    return RequestBudget(max_requests, max_cost, prices)


def _make_judge(spec: str | None, judging: dict[str, Any], *, concurrency: int, timeout: float, cache: Any,
                model_base_url: str | None) -> Any:
    """The judge `--judge` names, with the `-J` settings (`judge_settings`); the judge's
    concurrency and timeout default to the command's own."""
    from ..engines.judges import parse_judge_spec

    return parse_judge_spec(
        spec, base_url=judging.get("base_url"), concurrency=judging.get("concurrency") or concurrency,
        timeout_s=judging.get("timeout") or timeout, cache=cache, model_base_url=model_base_url,
        max_tokens=judging.get("max_tokens"), style=judging.get("style"), images=judging.get("images"),
        temperature=judging.get("temperature"),
    )


def _run_guarded(label: str, func: Any, *args: Any, last_round: int = 0, **kwargs: Any) -> dict[str, Any]:
    """Run with a progress bar; a spent budget still returns the results written so far.
    `last_round`: the items in flight at once (`_progress`)."""
    from ..engines.client import BudgetExhausted

    with _progress(label, last_round) as update:
        try:
            return func(*args, progress=update, **kwargs)
        except BudgetExhausted as exc:
            return exc.results  # type: ignore[attr-defined,no-any-return]


def _stop_if_over_budget(results: dict[str, Any]) -> None:
    if results.get("stopped"):
        console.print(f"[yellow]stopped:[/yellow] {escape(results['stopped'])}. "
                      f"{results['n_items']} of {results.get('items_planned', '?')} items are saved; rerun the "
                      "same command with a larger budget to go on.", highlight=False, soft_wrap=True)
        sys.exit(BUDGET_EXIT)


def _print_plan(found: dict[str, Any]) -> None:
    model_line = ("no HTTP requests (in-process or baseline model)" if found["model_requests"] is None
                  else f"{found['model_requests']} request(s) to send, {found['model_cached']} answered by the cache")
    judge_line = ("offline: no requests" if found["judge"] == "offline"
                  else f"{found['items_to_judge']} item(s) to judge, at least one request each unless cached")
    out.print(
        f"{found['benchmark']}/{found['task']}: {found['items']} item(s), {found['already_done']} already saved, "
        f"{found['to_do']} to do\nmodel {found['model']}: {model_line}\njudge {found['judge']}: {judge_line}",
        highlight=False,
    )


BENCHMARK_NAMES = "{benchmarks}"
"""Placeholder in a help text for the registered benchmarks' names, filled by `RegistryHelp`."""


def _names() -> str:
    """The registered benchmarks, for help texts."""
    from ..benchmarks import REGISTRY

    return ", ".join(REGISTRY)


def _options_help() -> str:
    """Each benchmark's tasks and `-T` options, read from the registry, for `run --help`."""
    from ..benchmarks import REGISTRY
    from ..benchmarks.options import specs

    lines = []
    for name, bench in REGISTRY.items():
        lines.append(f"{name}: tasks {', '.join(bench.tasks)}")
        for spec in specs(bench.Options):
            default = "" if spec.default in (None, False) else f", default {spec.default}"
            lines.append(f"  -T {spec.name}={spec.kind}{default}: {spec.help}")
        if hasattr(bench, "captioner"):  # a benchmark run with a second model (CapGeo's captioner)
            lines.append("  -T captioner=model spec: the model that captions the figures (with the run's settings)")
            lines.append("  -T captioner_base_url=URL: the captioner's server (default: --base-url)")
    return "\n\n".join(lines)


def _lmms_help() -> str:
    """Each benchmark's lmms-eval tasks and groups, read from its declaration (`Benchmark.lmms`)."""
    from ..benchmarks import REGISTRY

    lines = []
    for name, bench in REGISTRY.items():
        if bench.lmms is not None:
            groups = f"; group {', '.join(bench.lmms.groups)}" if bench.lmms.groups else ""
            lines.append(f"{name}: tasks {', '.join(bench.lmms.tasks)}{groups}")
    return "\n\n".join(lines)


class RegistryHelp(TyperCommand):
    """A command whose help reads the benchmark registry when the help is shown, not when the
    command line is imported: importing every benchmark costs about 0.15 s, which `--version`,
    `list` and every run would otherwise pay. `BENCHMARK_NAMES` in a parameter's help becomes
    the registered names; the epilog names the function (`_options_help`, `_lmms_help`) that
    writes it."""

    epilog_from: Callable[[], str] | None = None

    def format_help(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        if any(BENCHMARK_NAMES in (getattr(param, "help", None) or "") for param in self.params):
            names = _names()
            for param in self.params:
                text = getattr(param, "help", None)
                if text and BENCHMARK_NAMES in text:
                    param.help = text.replace(BENCHMARK_NAMES, names)  # type: ignore[attr-defined]
        if self.epilog_from is not None:
            self.epilog, self.epilog_from = self.epilog_from(), None
        super().format_help(ctx, formatter)


def registry_help(epilog: Callable[[], str] | None = None) -> type[RegistryHelp]:
    """The command class for `app.command(cls=...)`, with the epilog written by `epilog`."""
    return type("RegistryHelpCommand", (RegistryHelp,), {"epilog_from": staticmethod(epilog) if epilog else None})


@app.command(cls=registry_help(_options_help))
def run(
    benchmark: Annotated[str, typer.Argument(help=BENCHMARK_NAMES)],
    model: Annotated[
        str, typer.Option(help="openai:<model>, vllm:<model-or-path>, replay:<samples.jsonl>, baseline:random, baseline:empty")
    ],
    task: Annotated[str | None, typer.Option(help="task name; default: the benchmark's first task")] = None,
    judge: Annotated[str | None, typer.Option(help="offline or openai:<model> (default: GEOMEVAL_JUDGE_MODEL, else offline)")] = None,
    data: Annotated[str | None, typer.Option(help="built folder, raw release, or hub id; default: embedded sample")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="score only the first N items")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="output folder")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server for the model (or GEOMEVAL_BASE_URL)")] = None,
    concurrency: ConcurrencyOpt = 32,
    timeout: TimeoutOpt = 120.0,
    model_option: ModelOpt = None,
    judge_option: JudgeOpt = None,
    min_coverage: MinCoverageOpt = 0.95,
    cache: CacheOpt = None,
    overwrite: Annotated[bool, typer.Option(help="discard samples already in --out instead of resuming")] = False,
    shard: Annotated[str | None, typer.Option(help="run only slice i of n (e.g. 2/4: every 4th item from the 2nd); "
                                                   "`geomeval merge` joins the n folders")] = None,
    prompts: Annotated[Path | None, typer.Option(envvar="GEOMEVAL_PROMPTS",
                                                 help="prompt file replacing named templates (e.g. the authors' "
                                                      "exact wording); `geomeval prompts BENCHMARK` prints the defaults")] = None,
    task_option: Annotated[list[str] | None, typer.Option(
        "--task-option", "-T", help="a benchmark's own option KEY=VALUE (repeatable), e.g. -T mode=text; "
                                    "each benchmark's are listed below")] = None,
    dry_run: DryRunOpt = False,
    budget: BudgetOpt = None,
) -> None:
    """Generate answers, score them, and write samples.jsonl, results.json and report.md."""
    from ..benchmarks import get_benchmark, with_prompt_file

    bench = get_benchmark(benchmark)
    task = task or bench.default_task
    with_prompt_file(bench, prompts)  # a bad prompt file fails before any endpoint is contacted
    generation, engine_args = model_settings(model_option or [])
    judging = judge_settings(judge_option or [])
    limits = budget_settings(budget or [])
    cache_path, no_cache = cache_setting(cache)
    seed = generation.get("seed", 0)
    slice_ = None
    if shard is not None:  # a bad form fails before anything starts
        from ..run.shards import parse_shard

        slice_ = parse_shard(shard)
    cache_opened = _cache_opened_beside(cache_path, no_cache)  # while the client's modules load
    from ..engines.models import ModelOptions, parse_model_spec
    from ..run.runner import run as run_benchmark

    response_cache = cache_opened()
    judge_obj = _make_judge(judge, judging, concurrency=concurrency, timeout=timeout, cache=response_cache,
                            model_base_url=base_url)
    max_tokens, temperature = generation_settings(bench, generation.get("max_tokens"), generation.get("temperature"))
    model_obj = parse_model_spec(
        model,
        ModelOptions(
            base_url=base_url, concurrency=concurrency, timeout_s=timeout, max_tokens=max_tokens,
            temperature=temperature, seed=seed, cache=response_cache, engine_args=engine_args,
        ),
    )
    from ..benchmarks.options import option_pairs

    given = option_pairs(task_option or [])
    captioner = given.pop("captioner", None)
    captioner_base_url = given.pop("captioner_base_url", None)
    if captioner is not None:  # a second model (CapGeo's), with the run's settings
        given["captioner"] = parse_model_spec(
            captioner,
            ModelOptions(
                base_url=captioner_base_url or base_url, concurrency=concurrency, timeout_s=timeout,
                max_tokens=max_tokens, temperature=0.0, seed=seed, cache=response_cache,
                key_base_url=base_url or "",
            ),
        )
    elif captioner_base_url is not None:
        raise UsageError("-T captioner_base_url needs -T captioner=<model spec>")
    bench = bench.configure(given)
    bench = with_prompt_file(bench, prompts)
    target = out_dir or _default_out(bench.name, task, model)
    if dry_run:
        from ..run.runner import plan

        _print_plan(plan(bench, task=task, model=model_obj, judge=judge_obj, out_dir=target, data=data,
                         limit=limit, overwrite=overwrite, shard=slice_))
        return
    price_table = _read_prices(limits.get("prices"))
    results = _run_guarded(
        f"{bench.name}/{task}", run_benchmark, bench, task=task, model=model_obj, judge=judge_obj, out_dir=target,
        data=data, limit=limit, concurrency=concurrency, seed=seed, overwrite=overwrite,
        budget=_budget(limits.get("requests"), limits.get("cost"), price_table), prices=price_table, shard=slice_,
        last_round=concurrency,
    )
    _print_results(results, target)
    _print_requests(model=getattr(model_obj, "client", model_obj), judge=judge_obj.client)
    _stop_if_over_budget(results)
    _check_coverage(results, min_coverage)


def run_only_app() -> typer.Typer:
    """The app with its root options and the `run` command alone: what `geomeval run ...`
    dispatches through (`main`), so a run does not build every other command's parameters
    (about 20 ms) nor import the benchmark groups' modules. Its usage lines, errors and help
    are the full app's: the same group, callback and command objects."""
    only = typer.Typer(**_APP_SETTINGS)
    only.registered_callback = app.registered_callback
    only.registered_commands = [info for info in app.registered_commands if info.callback is run]
    return only


@app.command()
def suite(
    model: Annotated[str, typer.Option(help="openai:<model>, vllm:<model-or-path>, baseline:random, baseline:empty")],
    part: Annotated[list[str] | None, typer.Option(help="BENCHMARK or BENCHMARK:TASK to run (repeatable); "
                                                        "default: every benchmark's default task")] = None,
    data: Annotated[list[str] | None, typer.Option(help="BENCHMARK=PATH: that benchmark's data (repeatable); "
                                                        "default: each one's embedded sample")] = None,
    task_option: Annotated[list[str] | None, typer.Option(
        "--task-option", "-T", help="BENCHMARK.KEY=VALUE: a benchmark's run option for its parts (repeatable), "
                                    "e.g. -T geoeval.mode=text; `geomeval run --help` lists each one's options")] = None,
    judge: Annotated[str | None, typer.Option(help="offline or openai:<model> (default: GEOMEVAL_JUDGE_MODEL, else offline)")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="score only the first N items of each part")] = None,
    out_dir: Annotated[Path, typer.Option("--out", help="suite root: one folder per model, and leaderboard.md")] = Path("runs/suite"),
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server for the model (or GEOMEVAL_BASE_URL)")] = None,
    concurrency: ConcurrencyOpt = 32,
    timeout: TimeoutOpt = 120.0,
    model_option: ModelOpt = None,
    judge_option: JudgeOpt = None,
    cache: CacheOpt = None,
    budget: BudgetOpt = None,
) -> None:
    """Run one model over several benchmarks and tasks (resumably: rerun to go on), then write
    suite.md for the model and leaderboard.md with one row per model under --out. -M, -J,
    --budget and --cache take what `geomeval run` takes; -M max_tokens and temperature,
    left out, are each benchmark's own."""
    from ..engines.models import ModelOptions, parse_model_spec
    from ..run.report import fmt_interval, fmt_metric
    from ..run.suites import parse_data, parse_options, parse_parts, run_suite, slug

    parts = parse_parts(part)
    data_by_bench = parse_data(data, parts)
    options_by_bench = parse_options(task_option, parts)
    generation, engine_args = model_settings(model_option or [])
    judging = judge_settings(judge_option or [])
    limits = budget_settings(budget or [])
    cache_path, no_cache = cache_setting(cache)
    seed = generation.get("seed", 0)
    response_cache = _cache(cache_path, no_cache)
    price_table = _read_prices(limits.get("prices"))
    request_budget = _budget(limits.get("requests"), limits.get("cost"), price_table)

    def options_for(bench: Any) -> ModelOptions:
        tokens, sampling = generation_settings(bench, generation.get("max_tokens"), generation.get("temperature"))
        return ModelOptions(base_url=base_url, concurrency=concurrency, timeout_s=timeout, max_tokens=tokens,
                            temperature=sampling, seed=seed, cache=response_cache, engine_args=engine_args)

    from ..benchmarks import get_benchmark

    parse_model_spec(model, options_for(get_benchmark(parts[0][0])))  # a bad spec fails before any part runs
    with _progress("suite") as update:
        result = run_suite(
            parts, model_spec=model, make_model=lambda bench: parse_model_spec(model, options_for(bench)),
            make_judge=lambda: _make_judge(judge, judging, concurrency=concurrency, timeout=timeout,
                                           cache=response_cache, model_base_url=base_url),
            out_root=out_dir, data=data_by_bench, limit=limit, concurrency=concurrency, seed=seed,
            progress=lambda _label: update, run_kwargs={"budget": request_budget, "prices": price_table},
            options=options_by_bench,
        )
    from rich.table import Table

    table = Table(title=f"suite · {model}")
    for column in ("benchmark", "task", "headline", "score", "95% interval", "scored"):
        table.add_column(column, justify="right" if column in ("score", "95% interval", "scored") else "left")
    for row in result["parts"]:
        if "error" in row:
            table.add_row(row["benchmark"], row["task"], "—", "failed", escape(row["error"][:80]), "—")
            continue
        table.add_row(row["benchmark"], row["task"], row["metric"], fmt_metric(row, row.get("unit")),
                      fmt_interval(row, row.get("unit")), f"{row['scored']}/{row['total']}")
    out.print(table)
    out.print(f"suite: {out_dir / slug(model) / 'suite.md'}\nleaderboard: {out_dir / 'leaderboard.md'}")
    if any(row.get("stopped") for row in result["parts"]):
        console.print("[yellow]stopped:[/yellow] the budget is spent; rerun the same command with a larger one "
                      "to go on.", highlight=False)
        sys.exit(BUDGET_EXIT)
    if any("error" in row for row in result["parts"]):
        sys.exit(1)


@app.command("prompts", cls=registry_help())
def prompts_command(
    benchmark: Annotated[str, typer.Argument(help=BENCHMARK_NAMES)],
    check: Annotated[Path | None, typer.Option(help="validate this prompt file for the benchmark instead")] = None,
) -> None:
    """Print a benchmark's default prompt templates as a prompt file (for --prompts), or check one."""
    from ..benchmarks import get_benchmark, with_prompt_file
    from ..engines.prompts import as_file_text

    bench = get_benchmark(benchmark)
    if check is not None:
        prompt_set = with_prompt_file(bench, check).prompts
        replaced = ", ".join(prompt_set.overrides) or "none"
        console.print(f"{check}: usable for {bench.name}; replaces {replaced}; sha256 {prompt_set.sha256}",
                      highlight=False, soft_wrap=True)
        return
    if not bench.prompt_templates:
        raise UsageError(f"{bench.name} sends no replaceable prompts")
    sys.stdout.write(as_file_text(bench.name, bench.prompt_templates))


@app.command()
def score(
    run_dir: Annotated[Path, typer.Argument(help="a folder written by `geomeval run`")],
    judge: Annotated[str | None, typer.Option(help="offline or openai:<model> (default: GEOMEVAL_JUDGE_MODEL, else offline)")] = None,
    judge_option: JudgeOpt = None,
    concurrency: ConcurrencyOpt = 32,
    timeout: TimeoutOpt = 120.0,
    min_coverage: MinCoverageOpt = 0.95,
    cache: CacheOpt = None,
) -> None:
    """Rescore saved outputs (e.g. with another judge) without regenerating. -J and --cache
    take what `geomeval run` takes."""
    from ..run.runner import recorded_model_server, rescore

    judging = judge_settings(judge_option or [])
    cache_path, no_cache = cache_setting(cache)
    judge_obj = _make_judge(  # the model's server is the run's: keys go where `run` sent them
        judge, judging, concurrency=concurrency, timeout=timeout, cache=_cache(cache_path, no_cache),
        model_base_url=recorded_model_server(run_dir),
    )
    with _progress("rescoring") as update:
        results = rescore(run_dir, judge_obj, progress=update, concurrency=concurrency)
    _print_results(results, run_dir)
    _print_requests(judge=judge_obj.client)
    _check_coverage(results, min_coverage)


@app.command()
def merge(
    shards: Annotated[list[Path], typer.Argument(help="the n folders of `geomeval run --shard i/n`, any order")],
    out_dir: Annotated[Path, typer.Option("--out", help="folder for the merged run")],
    overwrite: Annotated[bool, typer.Option(help="replace a run already in --out")] = False,
    min_coverage: MinCoverageOpt = 0.95,
) -> None:
    """Join the shards of one run into the folder the run makes unsharded (samples, results, report)."""
    from ..run.shards import merge as merge_shards

    results = merge_shards(shards, out_dir, overwrite=overwrite)
    _print_results(results, out_dir)
    _check_coverage(results, min_coverage)


@app.command()
def compare(
    run_a: Annotated[Path, typer.Argument(help="baseline run folder (e.g. task geolaux)")],
    run_b: Annotated[Path, typer.Argument(help="run to compare (e.g. task geolaux_aux)")],
    by: Annotated[str | None, typer.Option(help="breakdown key to group by (default: the benchmark's, e.g. auxiliary_type)")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="also write the comparison here")] = None,
) -> None:
    """Per-group change B − A of each metric over the items scored in both runs, with its 95%
    interval (paired bootstrap) and a paired test (McNemar for 0/1 scores, else permutation)."""
    from ..run.compare import compare_runs
    from ..run.report import fmt_metric

    result = compare_runs(run_a, run_b, by=by)
    group = result["by"]
    title = f"{result['A']['task']} ({run_a}) → {result['B']['task']} ({run_b})"
    from rich.table import Table

    table = Table(title=title)
    columns = (group or "group", "metric", "paired items", "A", "B", "Δ (B − A)", "95% interval", "test", "p")
    for column in columns:
        table.add_column(column, justify="left" if column in (group or "group", "metric", "test") else "right")
    for key, row in result["groups"].items():
        for metric in result["metrics"]:
            cell = row[metric]
            if cell["paired"] == 0:
                table.add_row(key, metric, "0", "not scored", "not scored", "—", "—", "—", "—")
                continue
            unit = result["units"].get(metric)
            scale, digits = (1.0, 3) if unit in ("dB", "raw") else (100.0, 1)
            ci = cell.get("ci")
            table.add_row(
                key, metric, str(cell["paired"]), fmt_metric({"value": cell["A"]}, unit),
                fmt_metric({"value": cell["B"]}, unit), f"{scale * cell['delta']:+.{digits}f}",
                f"{scale * ci[0]:+.{digits}f} to {scale * ci[1]:+.{digits}f}" if ci else "—",
                cell.get("test", "—").split()[0], f"{cell['p_value']:.3f}" if "p_value" in cell else "—",
            )
    # Nine columns do not fit 80: piped output (not a terminal) gets the width it needs.
    from rich.console import Console

    (out if out.is_terminal else Console(width=160)).print(table)
    out.print(
        f"{result['common_items']} item(s) in both runs; each row pairs the items both runs scored. "
        f"Only in A: {len(result['only_in_A'])}{'+' if len(result['only_in_A']) == 20 else ''}, "
        f"only in B: {len(result['only_in_B'])}{'+' if len(result['only_in_B']) == 20 else ''}.",
        highlight=False,
    )
    if json_out:
        json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        out.print(f"comparison: {json_out}")


@app.command()
def agreement(
    run_a: Annotated[Path, typer.Argument(help="a run folder (its judge's scores)")],
    other: Annotated[Path, typer.Argument(help="a second run folder of the same outputs (another judge), or a JSONL "
                                               "file of human labels: {\"id\": ..., \"METRIC\": value} per line")],
    metric: Annotated[list[str] | None, typer.Option(help="metric to compare (repeatable; default: every one both scored)")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="also write the agreement here")] = None,
) -> None:
    """How far two judges (or a judge and people) agree on the same items: Cohen's kappa
    (quadratic-weighted for Likert), Spearman, Pearson and Krippendorff's alpha per metric,
    each with a seeded bootstrap 95% interval."""
    from ..run.agreement import compare_judgments

    result = compare_judgments(run_a, other, metric)
    from rich.table import Table

    table = Table(title=f"agreement: {result['A']} vs {result['B']}")
    for column in ("metric", "items", "kappa", "spearman", "pearson", "alpha"):
        table.add_column(column, justify="left" if column == "metric" else "right")

    def cell(found: dict[str, Any], name: str) -> str:
        if found[name] is None:
            return "—"
        ci = found[f"{name}_ci"]
        return f"{found[name]:.3f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")

    for name, found in result["metrics"].items():
        kappa = cell(found, "kappa") + (" (quadratic)" if found["kappa_weights"] == "quadratic" else "")
        table.add_row(name, str(found["items"]), kappa, cell(found, "spearman"), cell(found, "pearson"),
                      cell(found, "alpha"))
    out.print(table)
    out.print(f"{result['common_items']} item(s) in both; each metric over the items both scored.", highlight=False)
    if json_out:
        json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        out.print(f"agreement: {json_out}")


@app.command()
def report(run_dir: Annotated[Path, typer.Argument(help="a folder holding results.json")]) -> None:
    """Rebuild report.md and its plots from results.json."""
    from ..run.report import write_report

    if not (run_dir / "results.json").exists():
        raise UsageError(f"{run_dir / 'results.json'} not found")
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
    from ..benchmarks import get_benchmark
    from ..engines.hfdata import record_written

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
    record_written(Path(out_dir), "build_report.json")  # geomeval's: an --overwrite may remove it
    out.print(f"built: {out_dir}")


@app.command(cls=registry_help())
def publish(
    target: Annotated[str, typer.Argument(help=f"a dataset ({BENCHMARK_NAMES}), space, or metric:<name>")],
    out_dir: Annotated[Path, typer.Option("--out", help="folder for the repository as the Hub would hold it")],
    data: Annotated[Path | None, typer.Option(help="datasets: a raw release or built folder (default: the embedded sample)")] = None,
    repo_id: Annotated[str | None, typer.Option(help="push to this repo; without it (or with --dry-run), only stage and validate")] = None,
    token: Annotated[str | None, typer.Option(envvar="HF_TOKEN", help="Hub token for the push (default: the one `hf auth login` stored)")] = None,
    private: Annotated[bool, typer.Option("--private", help="create the repo private (an existing repo keeps its visibility)")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="stage and validate for --repo-id, push nothing")] = False,
    redistribution_granted: Annotated[bool, typer.Option(help="push a release build whose terms do not grant redistribution")] = False,
    overwrite: Annotated[bool, typer.Option(help="replace a non-empty --out")] = False,
) -> None:
    """Write, validate (offline) and, given --repo-id, push a Hub repository (with --token,
    HF_TOKEN or the token `hf auth login` stored). The folder is staged beside --out and moved
    into place only once valid: a failure leaves --out as it was."""
    from ..publishing.publish import hub_token, push, stage

    pushing = bool(repo_id) and not dry_run
    found = hub_token(token) if pushing else None
    if pushing and not found:  # said before anything is staged
        raise UsageError(f"--repo-id {repo_id}: no Hugging Face token to push with; run `hf auth login` (or set "
                         "HF_TOKEN, or pass --token), or add --dry-run to stage and validate only")
    staged = stage(target, out_dir, data=data, overwrite=overwrite, repo_id=repo_id)
    for check in staged.checks:
        out.print(f"ok  {check}")
    if pushing and repo_id and found:
        url = push(staged, repo_id, found, redistribution_granted=redistribution_granted, private=private)
        out.print(f"pushed: {url}")
    else:
        out.print(f"dry run: {staged.folder} is what {staged.repo_type} repo {repo_id or staged.repo_id} would hold")


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
        from ..demo.app import launch
    except ImportError as exc:
        raise UsageError(f"the demo needs Gradio: pip install \"geomeval[space]\" ({exc})") from None
    launch(host, chosen, runs)


def _refuse_busy_port(host: str, port: int) -> None:
    """One clear line for a port another program holds, before Gradio is even imported."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise UsageError(f"cannot use --host {host}: {exc.strerror}") from None
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(address)
        except OSError as exc:
            raise UsageError(
                f"port {port} on {host} is not free ({exc.strerror}): pass another --port, "
                "or stop the program using it"
            ) from None


@app.command(
    "lmms-eval",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    cls=registry_help(_lmms_help),
)
def lmms_eval_command(
    ctx: typer.Context,
    data: Annotated[str | None, typer.Option(help="built folder, raw release, or hub id (for the benchmark of the tasks named); default: embedded samples")] = None,
    min_coverage: MinCoverageOpt = 0.95,
    prompts: Annotated[Path | None, typer.Option(envvar="GEOMEVAL_PROMPTS",
                                                 help="prompt file replacing named templates, as `geomeval run --prompts`")] = None,
) -> None:
    """Run lmms-eval on geomeval's tasks (listed below, by benchmark).

    geomeval lmms-eval [--data PATH] -- ARGS, where ARGS go to `python -m lmms_eval`
    unchanged, e.g. `--model openai --model_args model=NAME,base_url=URL --tasks geolaux
    --output_path DIR`. --data applies to the benchmark whose tasks --tasks names; tasks
    of two benchmarks with one --data are refused (exit 2), and so is a built folder
    without the subset (config) a named task reads. Exits 1 when lmms-eval writes no
    results JSON, and 3 when a metric's coverage is below --min-coverage (as `geomeval run`;
    without a judge, metrics only a judge scores are exempt).
    """
    from ..integrations.lmms_eval import run_lmms_eval

    status = run_lmms_eval(list(ctx.args), data=data, min_coverage=min_coverage,
                           prompts=str(prompts) if prompts else None)
    if status:
        sys.exit(status)

"""report.md and its SVG bar charts, rebuilt from results.json alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PLOTS_DIR = "plots"


def _in_scale(value: float, unit: str | None) -> str:
    """A number in its metric's own scale: dB to two places, raw values to three, shares as
    percentages to one."""
    if unit == "dB":
        return f"{value:.2f}"
    if unit == "raw":
        return f"{value:.3f}"
    return f"{100 * value:.1f}"


def _unit_suffix(unit: str | None) -> str:
    return " dB" if unit == "dB" else ""


def fmt_metric(stats: dict[str, Any], unit: str | None = None) -> str:
    """A share as a percentage; a metric with a unit ("dB", "raw") as its plain value."""
    if stats["value"] is None:
        return "not scored"
    unit = unit or stats.get("unit")
    return _in_scale(stats["value"], unit) + _unit_suffix(unit)


def fmt_interval(stats: dict[str, Any], unit: str | None = None) -> str:
    """The 95% interval in the metric's own scale ("52.1–71.4"), or a dash when there is none
    (an unscored metric, one item, results written before intervals were kept)."""
    ci = stats.get("ci")
    if not ci:
        return "—"
    unit = unit or stats.get("unit")
    return f"{_in_scale(ci[0], unit)}–{_in_scale(ci[1], unit)}{_unit_suffix(unit)}"


def fmt_se(stats: dict[str, Any], unit: str | None = None) -> str:
    se = stats.get("se")
    if se is None:
        return "—"
    unit = unit or stats.get("unit")
    return f"{se:.3f}" if unit in ("dB", "raw") else f"{100 * se:.1f}"


def precision_note(results: dict[str, Any]) -> str | None:
    """One plain sentence when the headline rests on too few items (or too wide an interval)
    to tell models apart; None when it does not, or when results carry no interval."""
    from ..engines.stats import too_few

    name = results.get("headline") or next(iter(results["metrics"]), None)
    stats = results["metrics"].get(name) if name else None
    if not stats or stats.get("value") is None or "ci" not in stats:
        return None
    if not too_few(stats["scored"], stats.get("ci")):
        return None
    return (
        f"{name} rests on {stats['scored']} scored item(s); its 95% interval is "
        f"{fmt_interval(stats)}. Numbers this uncertain cannot separate models: run more items "
        "(the full data) before ranking anything."
    )


def fmt_coverage(stats: dict[str, Any]) -> str:
    return f"{stats['scored']}/{stats['total']} ({100 * stats['coverage']:.0f}%)"


def fmt_judge(stats: dict[str, Any]) -> str:
    """What the LLM judge did for a metric: items it decided, left to the rules after failing
    (fallback) or failed on (unscored); a dash when no item asked it."""
    judge = stats.get("judge")
    if not judge:
        return "—"
    return f"{judge['decided']} decided · {judge['fallback']} fallback · {judge['failed']} failed"


def generation_lines(generation: dict[str, Any]) -> list[str]:
    """Truncated answers and token usage, when the model's server reported them."""
    lines = []
    if generation.get("truncated"):
        ids = ", ".join(generation.get("truncated_ids") or [])
        lines.append(
            f"- **truncated answers: {generation['truncated']}** (the reply hit max_tokens; scored as "
            f"given, so a larger -M max_tokens=N may score higher): {ids}"
        )
    usage = generation.get("usage")
    if usage:
        counts = ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in usage.items() if k != "answers_reporting")
        lines.append(f"- tokens reported by the model's server ({usage['answers_reporting']} answers): {counts}")
    return lines


def requests_lines(results: dict[str, Any]) -> list[str]:
    """Per model and judge: requests sent, cache hits, tokens, replies cut at the token limit,
    and cost when a price table was given; a stop at the budget is said first."""
    lines = []
    if results.get("stopped"):
        lines.append(f"- **stopped early: {results['stopped']}** ({results['n_items']} of "
                     f"{results.get('items_planned', '?')} items done; rerun with a larger budget to go on)")
    for role, used in (results.get("requests") or {}).items():
        line = (f"- {role} `{used['model']}`: {used['requests_sent']} requests sent, {used['cache_hits']} answered "
                f"from cache; {used['prompt_tokens']:,} prompt + {used['completion_tokens']:,} completion tokens "
                f"({used['replies_reporting_usage']} replies reporting usage)")
        now = used.get("this_invocation") or {}
        if now.get("requests_sent", used["requests_sent"]) != used["requests_sent"]:
            line += f"; every invocation of the run counted, {now['requests_sent']} requests in the last"
        if used.get("truncated"):
            line += f"; **{used['truncated']} cut at the token limit**"
        if "cost_usd" in used:
            line += f"; cost ${used['cost_usd']:.4f}"
        lines.append(line)
    return lines


def write_report(out_dir: Path) -> Path:
    results = json.loads((out_dir / "results.json").read_text(encoding="utf-8"))
    plots = _plot_breakdowns(results, out_dir / PLOTS_DIR)
    lines = [
        f"# {results['title']} — {results['task']}",
        "",
        f"- model: `{results['model']}`",
        f"- judge: `{results['judge']}`",
        f"- data: `{results['config']['data']}`",
        f"- items: {results['n_items']}; generations succeeded: "
        f"{results['generation']['succeeded']}, failed: {results['generation']['failed']}",
        *generation_lines(results["generation"]),
        *requests_lines(results),
        "",
        "## Metrics",
        "",
        "Scores are means over *scored* items, shown as percentages unless a unit is given "
        "(dB, or a plain value), with their standard error and 95% interval (Wilson for a share "
        "of right answers, a seeded bootstrap otherwise, cluster-robust where items share a "
        "source problem); coverage says how many items were scored; judge says for how "
        "many the LLM judge decided, how many fell back to the rules after it failed, and how "
        "many it failed (unscored).",
        "",
        "| metric | score | s.e. | 95% interval | coverage | judge | why some items are not scored |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, stats in results["metrics"].items():
        reasons = "; ".join(f"{k} ({v})" for k, v in stats["unscored_reasons"].items()) or "—"
        lines.append(f"| {name} | {fmt_metric(stats)} | {fmt_se(stats)} | {fmt_interval(stats)} | "
                     f"{fmt_coverage(stats)} | {fmt_judge(stats)} | {reasons} |")
    note = precision_note(results)
    if note:
        lines += ["", f"**{note}**"]
    for name, reason in (results.get("skipped_metrics") or {}).items():
        lines.append(f"\n{name} was not computed: {reason}")
    for group, buckets in results["breakdowns"].items():
        if not buckets:
            continue
        # Metrics no item scored (a judge metric in an offline run) would only add empty columns.
        metrics = [m for m, stats in results["metrics"].items() if stats["scored"]] or list(results["metrics"])
        lines += ["", f"## By {group.replace('_', ' ')}", ""]
        lines.append("| " + group + " | " + " | ".join(f"{m} [95% interval] (coverage)" for m in metrics) + " |")
        lines.append("|---" * (len(metrics) + 1) + "|")
        for key, per_metric in buckets.items():
            cells = [
                f"{fmt_metric(per_metric[m], results['metrics'][m].get('unit'))} "
                f"[{fmt_interval(per_metric[m], results['metrics'][m].get('unit'))}] "
                f"({per_metric[m]['scored']}/{per_metric[m]['total']})"
                for m in metrics
            ]
            lines.append(f"| {key} | " + " | ".join(cells) + " |")
        if group in plots:
            lines += ["", f"![{group}]({PLOTS_DIR}/{plots[group]})"]
    lines += table_lines(results.get("tables"))
    lines += ["", "## Versions", "", ", ".join(f"{k} {v}" for k, v in results["versions"].items())]
    lines += provenance_lines(results.get("provenance"))
    lines.append("")
    path = out_dir / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def provenance_lines(provenance: dict[str, Any] | None) -> list[str]:
    """When the run ran, on which code, data and prompts (run.json has every setting)."""
    if not provenance:
        return []
    checkout = provenance.get("checkout") or {}
    data = provenance.get("data") or {}
    pinned = data.get("sha256") or data.get("revision") or (
        f"not hashed ({data['error']})" if data.get("error") else "not hashed (the run stopped first)" if data.get("pending")
        else "revision unknown")
    lines = ["", "## Provenance", "",
             f"- ran {provenance.get('started_at', '?')} to {provenance.get('finished_at', '?')}, "
             f"geomeval {provenance.get('geomeval', '?')}"
             + (f" at commit {checkout['commit'][:12]}{' (modified)' if checkout.get('modified') else ''}"
                if checkout.get("commit") else ""),
             f"- data ({data.get('kind', '?')}): {pinned}",
             f"- prompt set sha256: {provenance.get('prompt_set_sha256') or '—'}; seed {provenance.get('seed')}"]
    return lines


def fmt_cell(value: Any, style: str = "percent") -> str:
    """A table cell: a share as a percentage (or, in a table whose paper prints fractions,
    with three decimals: 0.399), text as it is, a missing value as "—"."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}" if style == "fraction" else f"{100 * value:.1f}"
    return str(value)


def table_lines(tables: list[dict[str, Any]] | None) -> list[str]:
    """Extra tables a benchmark lays out itself (e.g. CapGeo-Bench's Table 4, GeoLaux's
    process analysis), each with an optional note printed under it."""
    lines: list[str] = []
    for table in tables or []:
        lines += ["", f"## {table['title']}", "", "| " + " | ".join(table["columns"]) + " |"]
        lines.append("|---" * len(table["columns"]) + "|")
        style = table.get("style", "percent")
        lines += ["| " + " | ".join(fmt_cell(v, style) for v in row) + " |" for row in table["rows"]]
        if table.get("note"):
            lines += ["", table["note"]]
    return lines


def _plot_breakdowns(results: dict[str, Any], plot_dir: Path) -> dict[str, str]:
    """One bar chart (SVG) per breakdown of the headline metric; unscored groups are marked, not zero."""
    from .barchart import Bar, bar_chart

    metric = results.get("headline") or next(iter(results["metrics"]))
    written: dict[str, str] = {}
    for group, buckets in results["breakdowns"].items():
        if not buckets:
            continue
        bars = []
        for key, per_metric in buckets.items():
            stats = per_metric[metric]
            value = stats["value"]
            note = f"{100 * value:.0f}\n{stats['scored']}/{stats['total']}" if value is not None else "not\nscored"
            bars.append(Bar(str(key), value, note))
        name = f"{metric.lower()}_by_{group}.svg"
        plot_dir.mkdir(parents=True, exist_ok=True)
        (plot_dir / name).write_text(bar_chart(f"{metric} by {group.replace('_', ' ')}", f"{metric} (%)", bars),
                                     encoding="utf-8")
        written[group] = name
    return written

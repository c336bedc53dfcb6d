"""Judge agreement for the Space: two runs' judgments of the same outputs, or a run and a
file of human labels, as rows the app can show (the app's layout is the app's; this is
only the function it calls, `judge_agreement`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .limits import MAX_SAMPLES_BYTES, DemoInputError

HEADERS = ["metric", "items", "kappa", "kappa 95%", "spearman", "spearman 95%", "pearson", "pearson 95%",
           "alpha", "alpha 95%"]


def _checked(path: Path, what: str) -> Path:
    samples = path / "samples.jsonl" if path.is_dir() else path
    if not samples.exists():
        raise DemoInputError(f"{what}: {path} is neither a run folder nor a labels file")
    if samples.stat().st_size > MAX_SAMPLES_BYTES:
        raise DemoInputError(f"{what}: {samples.name} is larger than {MAX_SAMPLES_BYTES // (1024 * 1024)} MiB")
    return path


def judge_agreement(run_a: str | Path, other: str | Path) -> tuple[str, list[str], list[list[Any]]]:
    """(summary line, headers, one row per metric) of `geomeval agreement RUN_A OTHER`."""
    from ..run.agreement import compare_judgments

    try:
        result = compare_judgments(_checked(Path(run_a), "first run"), _checked(Path(other), "second source"))
    except (ValueError, FileNotFoundError) as exc:
        raise DemoInputError(str(exc)) from None

    def pair(found: dict[str, Any], name: str) -> list[Any]:
        ci = found[f"{name}_ci"]
        return [None if found[name] is None else round(found[name], 3),
                "—" if not ci else f"{ci[0]:.2f} to {ci[1]:.2f}"]

    rows = [[name, found["items"], *pair(found, "kappa"), *pair(found, "spearman"), *pair(found, "pearson"),
             *pair(found, "alpha")] for name, found in result["metrics"].items()]
    summary = f"{result['A']} vs {result['B']}: {result['common_items']} item(s) in both"
    return summary, HEADERS, rows

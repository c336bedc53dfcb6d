"""The sample runs the Space ships: `geomeval run` of the guessing baseline (`baseline:random`,
offline judge) on every benchmark × task's embedded sample, so the Hub build's Runs tab and
leaderboards have runs to read (each listed apart from the published rankings: a sample is
not the release). `geomeval publish space` writes them into the staged Space's `runs/`, the
folder the app reads by default.
"""

from __future__ import annotations

from pathlib import Path

from ..benchmarks import REGISTRY

MODEL = "baseline:random"


def sample_run_names() -> list[tuple[str, str, str]]:
    """(folder name, benchmark, task) of every sample run."""
    return [(f"{benchmark}-{task}", benchmark, task) for benchmark, spec in REGISTRY.items() for task in spec.tasks]


def write_sample_runs(out: Path) -> list[Path]:
    """Run the baseline on every embedded sample into `out/<benchmark>-<task>`; returns the run
    folders. A folder already holding a finished run is kept as it is."""
    from ..benchmarks import get_benchmark
    from ..engines.judges import parse_judge_spec
    from ..engines.models import ModelOptions, parse_model_spec
    from ..run.runner import run

    folders = []
    for name, benchmark, task in sample_run_names():
        folder = out / name
        if not (folder / "results.json").is_file():
            run(get_benchmark(benchmark), task=task, model=parse_model_spec(MODEL, ModelOptions()),
                judge=parse_judge_spec("offline"), out_dir=folder)
        folders.append(folder)
    return folders

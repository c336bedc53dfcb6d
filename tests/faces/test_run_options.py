"""Each benchmark's run options as declared (a frozen `Options` dataclass): parsed from
`-T key=value` strings, refused with the benchmark, key and accepted values named, recorded
for run.json and restored from it, and listed in `geomeval run --help` from the registry."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from geomeval.benchmarks import REGISTRY
from geomeval.benchmarks.options import specs
from geomeval.cli import app
from geomeval.core.errors import UsageError


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_benchmark_declares_frozen_options_and_records_them_round_trip(name: str) -> None:
    bench = REGISTRY[name]
    assert dataclasses.is_dataclass(bench.Options) and bench.Options.__dataclass_params__.frozen  # type: ignore[attr-defined]
    configured = bench.configure({}) if name != "capgeo" else bench.configure({"source": "geoqa"})
    restored = bench.from_options(configured.options)
    assert restored.options == configured.options


def test_choices_are_the_modules_own() -> None:
    from geomeval.benchmarks.capgeo import prompts as reasoning
    from geomeval.benchmarks.geoeval.prompts import MODES as GEOEVAL_MODES
    from geomeval.benchmarks.me2.benchmark import MODES as ME2_MODES

    def choices(name: str, key: str) -> tuple[str, ...]:
        return next(spec.choices for spec in specs(REGISTRY[name].Options) if spec.name == key)

    assert choices("capgeo", "mode") == reasoning.MODES
    assert choices("geoeval", "mode") == GEOEVAL_MODES and choices("me2", "mode") == ME2_MODES


def test_strings_are_typed_and_bad_ones_refused_by_name() -> None:
    capgeo = REGISTRY["capgeo"]
    parsed = capgeo.parse_options({"source": "geoqa", "sample_seed": "7", "captions": "x/y", "all_problems": None})
    assert (parsed.sample_seed, parsed.captions, parsed.all_problems) == (7, Path("x/y"), False)
    assert capgeo.parse_options({"all_problems": "yes"}).all_problems is True
    with pytest.raises(UsageError, match="sample_seed='seven': expected a whole number"):
        capgeo.parse_options({"sample_seed": "seven"})
    with pytest.raises(UsageError, match="all_problems='maybe': expected true or false"):
        capgeo.parse_options({"all_problems": "maybe"})
    with pytest.raises(UsageError, match=r"geolaux takes no -T mode; its options: -T steps=…"):
        REGISTRY["geolaux"].configure({"mode": "text"})
    with pytest.raises(UsageError, match=r"ggbench takes no -T color; its options: -T pixel_reference=…, -T engine=…"):
        REGISTRY["ggbench"].configure({"color": "red"})
    with pytest.raises(UsageError, match="engine must be one of geomeval, jar"):
        REGISTRY["ggbench"].configure({"engine": "gg"})
    assert typing.get_args(typing.get_type_hints(REGISTRY["ggbench"].Options)["engine"]) == ("geomeval", "jar")


def test_run_help_and_list_are_read_from_the_registry() -> None:
    runner = CliRunner()
    shown = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0
    for name, bench in REGISTRY.items():
        assert f"{name}: tasks {', '.join(bench.tasks)}" in shown.output
        for spec in specs(bench.Options):
            assert f"-T {spec.name}={spec.kind}" in shown.output
    listed = runner.invoke(app, ["list"], env={"COLUMNS": "200"})
    assert listed.exit_code == 0 and all(name in listed.output for name in REGISTRY)


def test_a_flag_and_its_task_option_together_are_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "geoeval", "--model", "baseline:random", "-T", "mode=text",
                                      "-T", "mode=text", "--out", str(tmp_path / "x")])
    assert result.exit_code != 0 and isinstance(result.exception, UsageError)
    assert "-T mode given twice" in str(result.exception)

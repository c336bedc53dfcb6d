"""docs/adding_a_benchmark.md, proven: a sixth benchmark from a fixture folder passes the contract.

`tests/fixtures/toy_benchmark/toymc/` is ToyMC, five multiple-choice questions with a figure
each, scored by accuracy, written as the guide says: its folder alone (a declaration, a
scorer, a data module that also renders the card, the card's prose and the embedded sample),
registered by the test (a shipped benchmark adds one entry to `benchmarks/__init__.py`'s
`DECLARATIONS`). The contract checks of tests/benchmarks/test_contract.py then run on it, and the folder
is held to the guide's size: at most 8 files and 300 lines. Shipped, it would need one place
outside its folder, the registry entry: packaging finds the folder (counted below).
"""

from __future__ import annotations

import glob
import shutil
import sys
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_contract import check_card, check_prompts, check_run_resume_and_rescore

from geomeval.benchmarks import REGISTRY, get_benchmark
from geomeval.benchmarks.base import Benchmark

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "toy_benchmark"
FOLDER = FIXTURES / "toymc"
REGISTRY_ENTRY = "src/geomeval/benchmarks/__init__.py: an entry in DECLARATIONS"


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Iterator[Benchmark]:
    """ToyMC, registered as `REGISTRY[name] = ToyMC()` for the test."""
    monkeypatch.syspath_prepend(str(FIXTURES))
    from toymc.benchmark import ToyMC  # type: ignore[import-not-found]

    bench = ToyMC()
    monkeypatch.setitem(REGISTRY, bench.name, bench)
    yield bench
    for module in [m for m in sys.modules if m == "toymc" or m.startswith("toymc.")]:
        monkeypatch.delitem(sys.modules, module)


def test_the_toy_is_at_most_8_files_and_300_lines() -> None:
    found = [p for p in FOLDER.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in found)
    assert len(found) <= 8 and lines <= 300, (len(found), lines)


def test_the_toy_is_registered_by_name(toy: Benchmark) -> None:
    assert get_benchmark("toymc") is toy and toy.breakdowns[0].name == "shape"


def test_the_toy_keeps_the_contract(toy: Benchmark, tmp_path: Path) -> None:
    for task in toy.tasks:
        check_run_resume_and_rescore(toy, task, tmp_path / task)
    check_prompts(toy)


def test_the_toys_card_face_is_generated(toy: Benchmark, tmp_path: Path) -> None:
    """The card face a shipped benchmark commits (`cards/<name>/README.md`) is written from
    the declaration by `python -m geomeval.publishing.faces`, and holds what the contract asks of a card."""
    from geomeval.publishing.faces import main

    assert main([str(tmp_path)]) == 0
    check_card(toy, (tmp_path / "cards" / "toymc" / "README.md").read_text(encoding="utf-8"))


def test_the_toys_scorer_reads_the_answer_letter(toy: Benchmark, tmp_path: Path) -> None:
    """The toy scores what it should: the gold letter right, another letter wrong."""
    import asyncio

    from geomeval.engines.judges import parse_judge_spec

    item = toy.load_items(None, "toymc", None)[0]
    results: dict[str, Any] = {}
    for reply in (f"The answer is ({item.fields['answer']}).", "The answer is (D)."):
        record = toy.new_record(item, "toymc")
        record.response = reply
        results[reply] = asyncio.run(toy.score(record, parse_judge_spec("offline")))["accuracy"].value
    assert list(results.values()) == [1.0, 0.0]


def test_a_bad_release_record_names_the_item_and_the_field(toy: Benchmark, tmp_path: Path) -> None:
    from geomeval.benchmarks.base import DataError

    release = tmp_path / "toymc.json"
    release.write_text('[{"id": "x1", "question": "Q?", "choices": ["a", "b"], "answer": "C", '
                       '"shape": "s", "image_png_base64": "AA=="}]', encoding="utf-8")
    with pytest.raises(DataError, match="item 'x1', field 'answer'"):
        toy.parts.data().SOURCE.read_release(release)


def test_shipping_the_toy_needs_one_place_outside_its_folder(
    tmp_path: Path, setup_packages: Callable[[Path], list[str]],
) -> None:
    """Shipped, ToyMC would be `src/geomeval/benchmarks/toymc/` and the places outside that
    folder counted here: its registry entry, plus packaging's package list or data patterns
    wherever a checkout with the folder in it would leave one of its files out of the wheel."""
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO / "metrics", checkout / "metrics",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (checkout / "src" / "geomeval" / "benchmarks").mkdir(parents=True)
    without = set(setup_packages(checkout))
    target = checkout / "src" / "geomeval" / "benchmarks" / "toymc"
    shutil.copytree(FOLDER, target, ignore=shutil.ignore_patterns("__pycache__"))
    found = set(setup_packages(checkout))
    # each folder of the toy, its sample's too, and nothing else
    folders = {"geomeval.benchmarks.toymc", "geomeval.benchmarks.toymc.sample"}

    # Every file of the folder reaches the wheel: a module of a found package, or a file one of
    # `geomeval`'s package-data patterns matches (globbed as setuptools globs them).
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = data["tool"]["setuptools"]["package-data"]["geomeval"]
    base = checkout / "src" / "geomeval"
    matched = {Path(f) for pattern in patterns for f in glob.glob(str(base / pattern), recursive=True)}
    unshipped = [p.relative_to(target).as_posix() for p in target.rglob("*")
                 if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".py" and p not in matched]

    outside = [REGISTRY_ENTRY]
    if found - without != folders:
        outside.append("pyproject.toml/setup.py: the package list")
    if unshipped:
        outside.append(f"pyproject.toml: package-data for {unshipped}")
    assert outside == [REGISTRY_ENTRY], (sorted(found - without), outside)

"""A run reads a built folder or an embedded sample without importing `datasets`: the schema
walk is plain data, and a raw release's rows are kept as the typed dataset would give them
back. These check that the datasets-free path gives exactly the items the datasets path
gives, on every benchmark's embedded sample, and that it imports neither datasets nor pandas.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from geomeval.benchmarks import REGISTRY, rows
from geomeval.benchmarks.schema import features

SOURCES = [
    "geomeval.benchmarks.capgeo.data",
    "geomeval.benchmarks.capgeo_bench.data",
    "geomeval.benchmarks.geoeval.data",
    "geomeval.benchmarks.geolaux.data",
    "geomeval.benchmarks.ggbench.data",
    "geomeval.benchmarks.me2.data",
]
TASKS = [(name, task) for name, bench in sorted(REGISTRY.items()) for task in bench.tasks]


@pytest.mark.parametrize("module", SOURCES)
def test_each_schema_is_the_json_form_of_its_features(module: str) -> None:
    """The plain schema is what `Features.to_dict()` writes, and makes the same Features back."""
    source = __import__(module, fromlist=["SOURCE"]).SOURCE
    assert source.features.to_dict() == dict(source.schema)
    assert features(source.schema) == source.features


@pytest.mark.parametrize(("name", "task"), TASKS)
def test_the_datasets_free_path_gives_identical_items(name: str, task: str, monkeypatch) -> None:
    bench = REGISTRY[name]
    try:
        plain = list(bench.load_items(None, task, None))
    except Exception as exc:  # a task that needs data beyond the embedded sample
        pytest.skip(f"{name}/{task} does not run on the embedded sample: {exc}")
    taken = []
    real = rows.plain_rows
    monkeypatch.setattr(rows, "plain_rows", lambda *args: taken.append(real(*args)) or None)
    typed = list(bench.load_items(None, task, None))
    if not taken:  # CapGeo reasoning's sample is its sources' own files, read without datasets
        pytest.skip(f"{name} does not read its embedded sample through DataSource.rows")
    assert all(found is not None for found in taken), "the sample needs datasets to convert"
    assert plain and plain == typed
    assert [repr(item) for item in plain] == [repr(item) for item in typed]  # key order, bytes, types


def test_a_value_datasets_would_convert_goes_through_datasets() -> None:
    schema = {"id": {"dtype": "string", "_type": "Value"}, "n": {"dtype": "int8", "_type": "Value"},
              "label": {"names": ["a", "b"], "_type": "ClassLabel"}, "image": {"_type": "Image"}}
    good = {"id": "1", "n": 3, "label": "b", "image": {"bytes": b"png", "path": "x.png"}}
    assert rows.plain_rows([good], schema) is not None
    for changed in ({"id": 1}, {"n": 300}, {"n": 2.0}, {"label": "c"}, {"label": 2}, {"image": "x.png"},
                    {"image": {"bytes": None, "path": "x.png"}}):
        assert rows.plain_rows([{**good, **changed}], schema) is None, changed
    assert rows.plain_rows([{k: v for k, v in good.items() if k != "n"}], schema) is None  # a missing column


def _imports_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(m for m in ('datasets', 'pandas') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=300)
    return set(done.stdout.split())


def test_reading_the_embedded_samples_imports_neither_datasets_nor_pandas() -> None:
    assert _imports_after(
        "from geomeval.benchmarks import REGISTRY\n"
        "for bench in REGISTRY.values():\n"
        "    for task in bench.tasks:\n"
        "        items = bench.load_items(None, task, None)\n"
        "        assert len([item.fields for item in items]) == len(items) > 0"
    ) == set()


def test_reading_a_built_folder_imports_neither_datasets_nor_pandas(tmp_path: Path) -> None:
    from geomeval.benchmarks.geolaux.data import build, sample_path

    build(str(sample_path()), str(tmp_path / "built"))
    assert _imports_after(
        "from geomeval.benchmarks import get_benchmark\n"
        f"items = get_benchmark('geolaux').load_items({str(tmp_path / 'built')!r}, 'geolaux', None)\n"
        "assert len(items.ids()) == len([item.fields['type'] for item in items]) > 0"
    ) == set()

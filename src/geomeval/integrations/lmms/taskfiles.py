"""The shipped task YAMLs, copied for one run with each benchmark's `dataset_path`.

lmms-eval's `--include_path DIR` indexes every `*.yaml` under DIR (so
`_default_template_yaml` is not a task); `include:` names a file beside the YAML, and
`!function utils.f` loads `utils.py` by file path as a fresh module named `utils`."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from ...benchmarks.lmms import TEMPLATE
from .datasets import tasks_dir
from .registry import BENCHMARKS


class _Function(str):
    """A `!function` tag's value, kept as a tag through load and dump."""


class _Loader(yaml.SafeLoader):
    pass


class _Dumper(yaml.SafeDumper):
    pass


_Loader.add_constructor("!function", lambda loader, node: _Function(loader.construct_scalar(node)))
_Dumper.add_representer(_Function, lambda dumper, value: dumper.represent_scalar("!function", str(value)))


def load_task_yaml(text: str) -> dict[str, Any]:
    return yaml.load(text, Loader=_Loader)  # a SafeLoader subclass that keeps !function tags


def dump_task_yaml(config: Mapping[str, Any]) -> str:
    return yaml.dump(dict(config), Dumper=_Dumper, sort_keys=False, allow_unicode=True)


def prepare_include_dir(dest: Path, dataset_paths: Mapping[str, str], user_include: str | None = None) -> Path:
    """Copy the shipped tasks into `dest`, pointing each benchmark's tasks at its dataset.

    `dataset_paths` maps a benchmark name to its `dataset_path`; benchmarks left out keep
    their Hub id.
    """
    paths = dict(dataset_paths)
    specs = {spec.name: spec for spec in BENCHMARKS}
    tasks = dest / "geomeval"
    shutil.copytree(tasks_dir(), tasks, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name, dataset_path in paths.items():
        spec = specs.get(name)
        template = tasks / (spec.task_folder if spec else name) / (spec.template if spec else TEMPLATE)
        config = load_task_yaml(template.read_text(encoding="utf-8"))
        config["dataset_path"] = dataset_path
        config.pop("dataset_kwargs", None)
        template.write_text(dump_task_yaml(config), encoding="utf-8")
    if user_include:  # lmms-eval takes one --include_path: carry the user's inside ours
        shutil.copytree(user_include, dest / "user", symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


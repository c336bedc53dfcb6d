"""GeoLaux inside lmms-eval: the task functions and the `geomeval lmms-eval` wrapper.

The task YAMLs shipped in `geomeval/lmms_tasks/geolaux/` name the functions below
through a thin `utils.py`. Prompts come from `geolaux.prompts.build_messages` and
scores from the scorer `geomeval run` uses, so both ways of running a model pose
the same items and score them the same way.

What this relies on in lmms-eval 0.7.3 (read from its source):

- `--include_path DIR` indexes every `*.yaml` under DIR (so `_default_template_yaml`
  is not a task); `include:` names a file beside the YAML; `!function utils.f` loads
  `utils.py` *by file path* as a fresh module named `utils`, so utils.py imports
  geomeval absolutely and holds no state of its own.
- Chat backends (`--model openai`) call `doc_to_messages(doc)` on the full row
  (images decoded to PIL) and expect lmms-eval's protocol, `{"type": "image",
  "url": <PIL image>}`; they re-encode images as PNG data URLs.
- `process_results(doc, results)` gets the row *without* its image columns and the
  stripped responses, from 4 threads by default. A request that failed every retry
  comes back as the text "[LMMS_EVAL_REQUEST_FAILED after N retries] ...".
- Results go to `<output_path>/<model>/<date>_results.json`. The CLI logs errors and
  exits 0 even when every task failed, hence the check after the run.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from importlib.resources import as_file, files
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import yaml

from ..cache import cache_dir

METRICS = ("ACS", "PCS", "PQS")
TASKS = ("geolaux", "geolaux_aux")
HUB_DATASET = "geomeval/GeoLaux"
TASKS_DIR = "lmms_tasks"
TEMPLATE = "_default_template_yaml"
FAILED_MARKERS = ("[LMMS_EVAL_REQUEST_FAILED", "[LMMS_EVAL_BUDGET_EXCEEDED]")
RESULTS_GLOB = "*_results.json"

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- task functions


def doc_to_row(doc: Mapping[str, Any]) -> dict[str, Any]:
    """An lmms-eval doc as `GeoLaux.load_items` makes it: class names, images as bytes or PIL."""
    from ..benchmarks.geolaux.features import AUXILIARY_TYPES, TYPES

    row = dict(doc)
    for key, names in (("type", TYPES), ("auxiliary_type", AUXILIARY_TYPES)):
        value = row.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            row[key] = names[value]
    row["choices"] = list(row.get("choices") or [])
    for key in ("image", "auxiliary_image"):
        if key in row:
            row[key] = _image_value(row[key])
    return row


def _image_value(image: Any) -> Any:
    """A {path}-only image dict (an undecoded local dataset) gets its bytes read."""
    if isinstance(image, dict) and not image.get("bytes"):
        path = image.get("path")
        if not path:
            return None
        return {"bytes": Path(path).read_bytes(), "path": path}
    return image


def chat_messages(doc: Mapping[str, Any], task: str) -> list[dict[str, Any]]:
    """The OpenAI-format messages `geomeval run` sends for this item and task."""
    from ..benchmarks.geolaux.prompts import build_messages

    return build_messages(doc_to_row(doc), with_auxiliary=task == "geolaux_aux")


def _decode_data_url(url: str) -> Any:
    from PIL import Image

    header, _, payload = url.partition(",")
    if not header.startswith("data:") or ";base64" not in header:
        raise ValueError(f"expected a base64 data URL, got {url[:40]!r}")
    image = Image.open(io.BytesIO(base64.b64decode(payload)))
    image.load()
    return image


def to_lmms_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-format messages in lmms-eval's protocol, parts kept in the same order."""
    converted = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        parts: list[dict[str, Any]] = []
        for part in content:
            if part["type"] == "text":
                parts.append({"type": "text", "text": part["text"]})
            elif part["type"] == "image_url":
                parts.append({"type": "image", "url": _decode_data_url(part["image_url"]["url"])})
            else:
                raise ValueError(f"unsupported message part {part['type']!r}")
        converted.append({"role": message["role"], "content": parts})
    return converted


def doc_to_messages(doc: Mapping[str, Any], task: str) -> list[dict[str, Any]]:
    return to_lmms_messages(chat_messages(doc, task))


def doc_to_text(doc: Mapping[str, Any], task: str) -> str:
    """The prompt's text, for lmms-eval's simple (non-chat) backends."""
    return "\n".join(
        part["text"] for m in chat_messages(doc, task) for part in m["content"] if part["type"] == "text"
    )


def doc_to_visual(doc: Mapping[str, Any], task: str) -> list[Any]:
    """The prompt's images as PIL, in the order the chat messages carry them."""
    return [
        part["url"]
        for m in doc_to_messages(doc, task)
        for part in m["content"]
        if part["type"] == "image"
    ]


_state_lock = threading.Lock()
_state: dict[str, Any] = {}


def _benchmark_and_judge() -> tuple[Any, Any]:
    """One GeoLaux and one judge per process (process_results runs on several threads)."""
    with _state_lock:
        if not _state:
            from ..benchmarks.geolaux.benchmark import GeoLaux
            from ..judges import judge_from_env

            _state["bench"] = GeoLaux()
            _state["judge"] = judge_from_env()
        return _state["bench"], _state["judge"]


def process_results(doc: Mapping[str, Any], results: Sequence[Any], task: str) -> dict[str, Any]:
    """Score one response: ACS, PCS and PQS as Score.to_dict() plus id and task, and coverage flags.

    A request lmms-eval gave up on is a generation error (unscored), not a wrong answer.
    """
    from ..benchmarks.base import Item
    from ..records import Score
    from ..runner import score_record_sync

    bench, judge = _benchmark_and_judge()
    row = doc_to_row(doc)
    item = Item(id=str(row["id"]), fields=row, choices=tuple(row["choices"]))
    record = bench.new_record(item, task)
    response = results[0] if results else None
    if isinstance(response, str) and response.startswith(FAILED_MARKERS):
        record.generation_error = response  # unscored, never a wrong answer
    else:
        record.response = response
    scores = score_record_sync(bench, record, judge)
    out: dict[str, Any] = {}
    for metric in METRICS:
        score = scores.get(metric) or Score.missing("the scorer returned no score")
        out[metric] = {**score.to_dict(), "id": record.id, "task": task}
        out[f"{metric}_coverage"] = {"id": record.id, "scored": score.value is not None}
    return out


def _scored_values(items: Sequence[Any]) -> list[float]:
    return [float(x["value"]) for x in items if isinstance(x, Mapping) and x.get("value") is not None]


def _log_coverage(metric: str, items: Sequence[Any]) -> None:
    scored = len(_scored_values(items))
    total = len(items)
    tasks = sorted({str(x.get("task")) for x in items if isinstance(x, Mapping) and x.get("task")})
    reasons = Counter(
        x.get("unscored") or "no score" for x in items if isinstance(x, Mapping) and x.get("value") is None
    )
    message = f"{'/'.join(tasks) or 'geolaux'} {metric}: scored {scored}/{total}"
    if total:
        message += f" ({100 * scored / total:.1f}% coverage)"
    if reasons:
        message += "; unscored: " + "; ".join(f"{n} × {why}" for why, n in reasons.most_common(3))
    try:
        from loguru import logger

        logger.info(message)
    except ImportError:
        log.info(message)


def mean_of_scored(items: Sequence[Any], metric: str) -> float | None:
    """Mean over scored items only; None when nothing was scored (lmms-eval shows N/A)."""
    _log_coverage(metric, items)
    values = _scored_values(items)
    return sum(values) / len(values) if values else None


def coverage(items: Sequence[Any]) -> float:
    """Share of items that got a score (items are the `<metric>_coverage` entries)."""
    scored = sum(1 for x in items if isinstance(x, Mapping) and x.get("scored"))
    return scored / len(items) if items else 0.0


# Per-task entry points for the YAMLs (lmms-eval passes no task name to these).


def geolaux_doc_to_messages(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None) -> list[dict[str, Any]]:
    return doc_to_messages(doc, "geolaux")


def geolaux_doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None) -> str:
    return doc_to_text(doc, "geolaux")


def geolaux_doc_to_visual(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None) -> list[Any]:
    return doc_to_visual(doc, "geolaux")


def geolaux_process_results(doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, Any]:
    return process_results(doc, results, "geolaux")


def geolaux_aux_doc_to_messages(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None) -> list[dict[str, Any]]:
    return doc_to_messages(doc, "geolaux_aux")


def geolaux_aux_doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None) -> str:
    return doc_to_text(doc, "geolaux_aux")


def geolaux_aux_doc_to_visual(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None) -> list[Any]:
    return doc_to_visual(doc, "geolaux_aux")


def geolaux_aux_process_results(doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, Any]:
    return process_results(doc, results, "geolaux_aux")


def aggregate_acs(items: Sequence[Any]) -> float | None:
    return mean_of_scored(items, "ACS")


def aggregate_pcs(items: Sequence[Any]) -> float | None:
    return mean_of_scored(items, "PCS")


def aggregate_pqs(items: Sequence[Any]) -> float | None:
    return mean_of_scored(items, "PQS")


# ------------------------------------------------------------------------------ the wrapper


def tasks_dir() -> Path:
    """The shipped task folder (usable directly as `--include_path`; data from the Hub)."""
    with as_file(files("geomeval").joinpath(TASKS_DIR)) as path:
        return Path(path)


def _fingerprint(raw: Path) -> str:
    """Identifies a raw release: its JSON's content, its images' names, sizes and times."""
    from .. import __version__
    from ..benchmarks.geolaux.features import FEATURES
    from ..benchmarks.geolaux.raw import locate_release

    json_path, root = locate_release(raw)
    digest = hashlib.sha256()
    digest.update(f"{__version__}\n{FEATURES._to_yaml_list()}\n{root.resolve()}\n".encode())
    digest.update(json_path.read_bytes())
    for folder in ("original_images", "auxiliary_images"):
        for path in sorted((root / folder).rglob("*")):
            if path.is_file():
                stat = path.stat()
                digest.update(f"{path.relative_to(root)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def cached_build(raw: Path) -> Path:
    """Build a raw release once into the cache; later calls reuse the folder."""
    from ..benchmarks.geolaux import data
    from ..hfdata import is_built_dataset

    target = cache_dir() / "lmms_eval" / f"geolaux-{_fingerprint(raw)}"
    if is_built_dataset(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():  # a broken leftover
        shutil.rmtree(target, ignore_errors=True)
    tmp = target.parent / f".{target.name}.{os.getpid()}.{threading.get_ident()}"
    data.build(str(raw), str(tmp), overwrite=True)
    try:
        tmp.rename(target)
    except OSError:  # another process built it first
        shutil.rmtree(tmp, ignore_errors=True)
    if not is_built_dataset(target):
        raise FileNotFoundError(f"could not build GeoLaux from {raw} into {target}")
    return target


def resolve_dataset(data_arg: str | None) -> str:
    """`dataset_path` for the tasks: a built folder (building raw data into the cache) or a hub id.

    Same rules as `geomeval run --data`: None is the embedded sample.
    """
    from ..benchmarks.geolaux.data import locate

    kind, where = locate(data_arg)
    if kind == "built":
        return str(Path(where).resolve())
    if kind == "raw":
        return str(cached_build(Path(where)))
    return str(where)


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


def prepare_include_dir(dest: Path, dataset_path: str, user_include: str | None = None) -> Path:
    """Copy the shipped tasks into `dest`, pointing them at `dataset_path`."""
    tasks = dest / "geomeval"
    shutil.copytree(tasks_dir(), tasks, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    template = tasks / "geolaux" / TEMPLATE
    config = load_task_yaml(template.read_text(encoding="utf-8"))
    config["dataset_path"] = dataset_path
    config.pop("dataset_kwargs", None)
    template.write_text(dump_task_yaml(config), encoding="utf-8")
    if user_include:  # lmms-eval takes one --include_path: carry the user's inside ours
        shutil.copytree(user_include, dest / "user", symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def _split_args(args: Sequence[str]) -> tuple[list[str], str | None, str | None]:
    """(other args, --output_path, --include_path) from the user's lmms-eval arguments."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--output_path")
    parser.add_argument("--include_path")
    known, rest = parser.parse_known_args(list(args))
    return rest, known.output_path, known.include_path


def _expects_results(args: Sequence[str]) -> bool:
    """False for help, listings and other subcommands, which write no results."""
    if not args or list(args) == ["eval"] or any(a in ("-h", "--help") for a in args):
        return False
    if not args[0].startswith("-") and args[0] != "eval":
        return False
    for index, arg in enumerate(args):
        value = arg.partition("=")[2] if arg.startswith("--tasks=") else None
        if arg == "--tasks" and index + 1 < len(args):
            value = args[index + 1]
        if value is not None and value.startswith("list"):
            return False
    return True


def find_results(output_path: Path, since: float = 0.0) -> list[Path]:
    """Results JSONs lmms-eval wrote under `output_path` (at `<model>/<date>_results.json`)."""
    if not output_path.is_dir():
        return []
    return sorted(p for p in output_path.rglob(RESULTS_GLOB) if p.stat().st_mtime >= since)


def _fmt(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, (int, float)) and not isinstance(value, bool) else "n/a"


def summarize_results(path: Path) -> list[str]:
    results = json.loads(path.read_text(encoding="utf-8")).get("results", {})
    lines = []
    for task, metrics in results.items():
        shown = []
        for metric in METRICS:
            key = next((k for k in metrics if k.split(",")[0] == metric), None)
            if key is None:
                continue
            cov_key = key.replace(metric, f"{metric}_coverage", 1)
            cov = metrics.get(cov_key)
            shown.append(f"{metric} {_fmt(metrics[key])}" + (f" (coverage {_fmt(cov)})" if cov is not None else ""))
        if shown:
            lines.append(f"{task}: " + ", ".join(shown))
    return lines


def _child_env() -> dict[str, str]:
    """The environment for lmms-eval, where utils.py must import this same geomeval.

    A source checkout (not installed) goes on PYTHONPATH; site-packages never does,
    which would put it ahead of the standard library.
    """
    import site

    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[2])
    site_dirs = {str(Path(p).resolve()) for p in [*site.getsitepackages(), site.getusersitepackages()]}
    if package_root not in site_dirs:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    return env


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_lmms_eval(args: Sequence[str], data: str | None = None) -> int:
    """Run `python -m lmms_eval <args>` with geomeval's tasks; the exit status to return.

    0 only when a results JSON was written; 1 when lmms-eval wrote none (it exits 0
    on failed tasks); lmms-eval's own status when that is not 0.
    """
    if find_spec("lmms_eval") is None:
        _say(
            "error: lmms-eval is not installed. Install it without CUDA: "
            'pip install -c constraints.txt "lmms-eval==0.7.3" && pip uninstall -y torchvision'
        )
        return 2
    rest, output_path, user_include = _split_args(args)
    expects = _expects_results(rest)
    if output_path is None and expects:
        output_path = str(Path("runs") / "lmms-eval" / time.strftime("%Y%m%d-%H%M%S"))
    out = Path(output_path).expanduser().resolve() if output_path else None
    dataset_path = resolve_dataset(data) if expects else HUB_DATASET
    with tempfile.TemporaryDirectory(prefix="geomeval-lmms-tasks-") as tmp:
        include = prepare_include_dir(Path(tmp), dataset_path, user_include)
        command = [sys.executable, "-m", "lmms_eval", *rest, "--include_path", str(include)]
        if out is not None:
            command += ["--output_path", str(out)]
        env = _child_env()
        if expects:
            _say(f"geomeval: GeoLaux data {dataset_path}; lmms-eval output under {out}")
        started = time.time()
        status = subprocess.run(command, env=env, check=False).returncode
    if not expects:
        return status
    written = find_results(out, since=started - 1) if out else []
    if status != 0:
        _say(f"error: lmms-eval exited with status {status}.")
        return status if status > 0 else 1
    if not written:
        _say(
            f"error: lmms-eval wrote no results JSON under {out}: the evaluation failed "
            "(lmms-eval exits 0 all the same; its log above says why)."
        )
        return 1
    for path in written:
        for line in summarize_results(path):
            print(line, flush=True)
        print(f"results: {path}", flush=True)
    return 0

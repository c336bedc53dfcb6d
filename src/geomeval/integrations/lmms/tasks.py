"""The task functions a task folder's `utils.py` gets from `entry_points`: each task's doc
functions and process_results, and the aggregations.

Chat backends (`--model openai`) call `doc_to_messages(doc)` on the full row and expect
lmms-eval's protocol, `{"type": "image", "url": <PIL image>}`. `process_results(doc,
results)` gets the row without its image columns unless the task sets
`process_results_use_image: true`; it runs on 4 threads by default, and a request that
failed every retry comes back as "[LMMS_EVAL_REQUEST_FAILED after N retries] ...". An item
a benchmark cannot pose (`NotPosable`) still gets a request, a one-line placeholder whose
answer the scorer ignores, leaving the item unscored with the reason."""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .aggregations import (
    STDERR_ATTR,
    aggregate_scored,
    coverage,
    install_stderr_hook,
    mean_over_tasks,
    with_stderr,
)
from .registry import for_task
from .scores import _defer, _entries, _start_scoring, _warm_lock, _warm_tasks, resolve
from .settings import _benchmark_and_judge

FAILED_MARKERS = ("[LMMS_EVAL_REQUEST_FAILED", "[LMMS_EVAL_BUDGET_EXCEEDED]")

def doc_to_row(doc: Mapping[str, Any], task: str) -> dict[str, Any]:
    """An lmms-eval doc as the fields `geomeval run` gives the item."""
    return for_task(task).row(doc)


def _item(row: dict[str, Any]) -> Any:
    from ...benchmarks.base import Item

    return Item(id=str(row["id"]), fields=row, choices=tuple(row.get("choices") or ()))


NOT_POSED = "This item is not posed ({reason}). Reply with an empty answer."


def chat_messages(doc: Mapping[str, Any], task: str, kwargs: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The OpenAI-format messages `geomeval run` sends for this item and task; for an item
    the benchmark cannot pose, a one-line text placeholder (its answer is never scored)."""
    from ...benchmarks.base import NotPosable

    bench, _ = _benchmark_and_judge(for_task(task).name, task, kwargs)
    try:
        return bench.messages(_item(doc_to_row(doc, task)), task)
    except NotPosable as exc:
        return [{"role": "user", "content": [{"type": "text", "text": NOT_POSED.format(reason=exc)}]}]


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


def doc_to_messages(doc: Mapping[str, Any], task: str, kwargs: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    return to_lmms_messages(chat_messages(doc, task, kwargs))


def doc_to_text(doc: Mapping[str, Any], task: str, kwargs: Mapping[str, Any] | None = None) -> str:
    """The prompt's text, for lmms-eval's simple (non-chat) backends."""
    return "\n".join(
        part["text"] for m in chat_messages(doc, task, kwargs) for part in m["content"] if part["type"] == "text"
    )


def doc_to_visual(doc: Mapping[str, Any], task: str, kwargs: Mapping[str, Any] | None = None) -> list[Any]:
    """The prompt's images as PIL, in the order the chat messages carry them."""
    return [
        part["url"]
        for m in doc_to_messages(doc, task, kwargs)
        for part in m["content"]
        if part["type"] == "image"
    ]


def process_results(doc: Mapping[str, Any], results: Sequence[Any], task: str) -> dict[str, Any]:
    """Score one response: every metric as Score.to_dict() plus id, task and its real name,
    under its lmms-eval key, and one `coverage` entry with each metric's state on the item
    (not applicable and needs-a-judge items count against no metric's coverage).

    A request lmms-eval gave up on is a generation error (unscored), not a wrong answer.

    With a judge, lmms-eval would wait for each document's judge calls before it hands over
    the next document, so judging would run one item at a time. Instead the scoring starts
    in geomeval's engine and this returns at once with placeholder entries; the task's
    aggregation (which lmms-eval calls after every document) waits for them and fills each
    placeholder in place, so the logged samples hold the final scores too. The judge calls
    of all documents thus run at geomeval's judge concurrency, with its cache and its
    unscored-on-failure rules. With several lmms-eval processes (`WORLD_SIZE` > 1), whose
    entries lmms-eval gathers as copies to the process that aggregates, the placeholders carry
    the record and that process judges every item at its aggregation (`scores.resolve`).
    GEOMEVAL_LMMS_DEFER=0 scores each document before returning, as before.
    """
    from ...engines.engine import score_record_sync

    spec = for_task(task)
    missing = [c for c in spec.scoring_columns if c not in doc]
    if missing:  # not a per-item problem: the task's YAML lost process_results_use_image
        raise ValueError(
            f"{task}: process_results got the row without {', '.join(missing)}; "
            "its task YAML must set process_results_use_image: true"
        )
    bench, judge = _benchmark_and_judge(spec.name, task)
    record = bench.new_record(_item(doc_to_row(doc, task)), task)
    response = results[0] if results else None
    if isinstance(response, str) and response.startswith(FAILED_MARKERS):
        record.generation_error = response  # unscored, never a wrong answer
    else:
        record.response = response
    if _defer(judge):
        with _warm_lock:
            first = task not in _warm_tasks
            if first:  # the first item is scored before any other starts: the scorers' lazy
                # imports (nltk, models) then happen once, never in two threads at a time
                entries = _entries(spec, task, record, score_record_sync(bench, record, judge))
                _warm_tasks.add(task)
                return entries
        return _start_scoring(bench, judge, spec, task, record)
    return _entries(spec, task, record, score_record_sync(bench, record, judge))


ROLES = ("doc_to_messages", "doc_to_text", "doc_to_visual", "process_results")


def entry_points(*tasks: str) -> dict[str, Callable[..., Any]]:
    """`<task>_doc_to_messages`, `_doc_to_text`, `_doc_to_visual` and `_process_results` for
    each task, plus the shared aggregations: what a task folder's `utils.py` exposes to its
    YAMLs' `!function utils.<name>` tags (lmms-eval names no task when it calls them, so each
    task gets its own functions; their `lmms_eval_specific_kwargs` carry its settings).
    Every aggregation carries its standard error, which lmms-eval gets once
    `install_stderr_hook` has run (here: lmms-eval imports utils.py before it aggregates)."""
    install_stderr_hook()
    out: dict[str, Callable[..., Any]] = {
        "aggregate_scored": aggregate_scored,
        "coverage": coverage,
        "mean_over_tasks": mean_over_tasks,
    }
    for task in tasks:
        for name, aggregate in for_task(task).aggregations:  # an unknown task fails here, at YAML load
            out[name] = _named(name, aggregate)
        out.update(_task_functions(task))
    return out


def _named(name: str, aggregate: Callable[[Sequence[Any]], Any]) -> Callable[[Sequence[Any]], Any]:
    """`aggregate` under the name its YAML gives it (lmms-eval logs and dumps that name),
    given the items with every placeholder filled (`resolve`)."""

    def named(items: Sequence[Any]) -> Any:
        return aggregate(resolve(items))

    named.__name__ = named.__qualname__ = name
    stderr = getattr(aggregate, STDERR_ATTR, None)
    if stderr is not None:
        with_stderr(named, lambda items: stderr(resolve(items)))
    return named


def _task_functions(task: str) -> dict[str, Callable[..., Any]]:
    def messages(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None) -> list[dict[str, Any]]:
        return doc_to_messages(doc, task, lmms_eval_specific_kwargs)

    def text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None) -> str:
        return doc_to_text(doc, task, lmms_eval_specific_kwargs)

    def visual(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None) -> list[Any]:
        return doc_to_visual(doc, task, lmms_eval_specific_kwargs)

    def scored(doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, Any]:
        return process_results(doc, results, task)

    made: tuple[Callable[..., Any], ...] = (messages, text, visual, scored)
    functions: dict[str, Callable[..., Any]] = {}
    for role, function in zip(ROLES, made, strict=True):
        name = f"{task}_{role}"
        function.__name__ = function.__qualname__ = name
        functions[name] = function
    return functions



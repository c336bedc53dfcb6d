"""A shared corpus of adversarial answers (tests/data/adversarial_answers.jsonl), each with the
verdict a human grader gives, scored by every benchmark that reads a model's choice, through the
engine with the offline judge: the same answer scores the same way everywhere.

Each case is written once with placeholders that the item fills in: {G}/{W} the gold and a wrong
option letter ({g} the gold in lower case), {GV}/{WV} their option texts, {GVN}/{WVN} those
values without a unit, and echoes of the item's option list: one line {ECHO1} ("(A) 6 (B) 8 …"),
{ECHO1G} the same starting at the gold option, lines {ECHON} ("A. 6⏎B. 8⏎…"), {ECHONG} ending
on the gold option, {ECHONB} in bold, {ECHOJ}/{ECHOJG} a one-line echo inside a JSON answer.
Echoes that start or end on the gold option are the ones a reader that takes the first or the
last label would score right. Cases that need {GV} as a value ("needs": "values") skip ME2's
keypoint task, whose options are sentences, not values.

CapGeo-Bench (captions) and GGBench (GeoGebra code) read no choice: their own fuzz tests in
test_fuzz.py check that any text scores without a scoring error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from geomeval.answers import parse_choices

CORPUS = Path(__file__).parents[1] / "data" / "adversarial_answers.jsonl"
CASES: list[dict[str, Any]] = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
TASKS = {
    ("capgeo", "capgeo_reasoning"): "accuracy",
    ("geoeval", "geoeval_2000"): "A",
    ("geolaux", "geolaux"): "ACS",
    ("me2", "me2_solve"): "accuracy",
    ("me2", "me2_keypoints"): "accuracy",
}
_ITEMS: dict[tuple[str, str], Any] = {}


def test_the_corpus_is_large_varied_and_well_formed() -> None:
    assert len(CASES) >= 100
    assert len({case["id"] for case in CASES}) == len(CASES)
    kinds = {case["kind"] for case in CASES}
    assert {"echo", "boxed", "several", "value", "refusal", "json", "chinese", "reason", "units", "latex"} <= kinds
    assert {case["verdict"] for case in CASES} == {"right", "wrong"}


def _multiple_choice_item(name: str, task: str) -> tuple[Any, Any, dict[str, str], str]:
    """The benchmark, its first sample item with options, the options by letter and the gold letter."""
    from geomeval.benchmarks import get_benchmark

    if (name, task) in _ITEMS:
        return _ITEMS[name, task]
    bench = get_benchmark(name)
    for item in bench.load_items(None, task, 50):
        target = bench.new_record(item, task).target
        if task == "me2_solve":
            if target["question_format"] != "multiple-choice":
                continue
            options = dict(re.findall(r"^\(([A-E])\)\s*(.+)$", target["problem"], re.M))
            gold = target["answer"]
        elif task == "me2_keypoints":
            options, gold = dict(zip("ABCDE", target["options"], strict=True)), target["keypoint_answer"]
        else:
            if not target.get("choices"):
                continue
            options = parse_choices(list(target["choices"]))
            found = [k for k, v in options.items() if v.rstrip("°") == str(target["answer"]).rstrip("°")]
            if len(found) != 1:
                continue
            gold = found[0]
        _ITEMS[name, task] = (bench, item, options, gold)
        return _ITEMS[name, task]
    raise AssertionError(f"{name}/{task}: no multiple-choice sample item")


def fill(template: str, options: dict[str, str], gold: str) -> str:
    """`template` with the item's placeholders filled in (see the module docstring)."""
    letters = list(options)
    wrong = next(k for k in letters if k != gold)
    at = letters.index(gold)
    gold_first = letters[at:] + letters[:at]
    gold_last = letters[at + 1 :] + letters[: at + 1]

    def one_line(order: list[str]) -> str:
        return " ".join(f"({k}) {options[k]}" for k in order)

    def value(text: str) -> str:
        return re.sub(r"\s*(?:°|cm|units?)$", "", text)

    values = {
        "ECHO1G": one_line(gold_first), "ECHO1": one_line(letters),
        "ECHONG": "\n".join(f"{k}. {options[k]}" for k in gold_last),
        "ECHONB": "\n".join(f"**{k}.** {options[k]}" for k in letters),
        "ECHON": "\n".join(f"{k}. {options[k]}" for k in letters),
        "ECHOJG": json.dumps({"answer": one_line(gold_first)}, ensure_ascii=False),
        "ECHOJ": json.dumps({"answer": one_line(letters)}, ensure_ascii=False),
        "GVN": value(options[gold]), "WVN": value(options[wrong]),
        "GV": options[gold], "WV": options[wrong], "G": gold, "g": gold.lower(), "W": wrong,
    }
    for key in sorted(values, key=len, reverse=True):
        template = template.replace("{" + key + "}", values[key])
    return template


@pytest.mark.parametrize(("name", "task"), list(TASKS))
def test_every_benchmark_scores_the_corpus_as_a_human_grader(name: str, task: str) -> None:
    from geomeval.engines.engine import score_record_sync
    from geomeval.engines.judges import Judge

    bench, item, options, gold = _multiple_choice_item(name, task)
    metric = TASKS[name, task]
    disagreements = []
    for case in CASES:
        if case.get("needs") == "values" and task == "me2_keypoints":
            continue
        record = bench.new_record(item, task)
        record.response = fill(case["response"], options, gold)
        score = score_record_sync(bench, record, Judge("offline"))[metric]
        if not score.scored:
            got = f"unscored ({score.unscored})"
        else:
            got = {1.0: "right", 0.0: "wrong"}.get(score.value, f"scored {score.value}")
        if got != case["verdict"]:
            disagreements.append(f"{case['id']}: {record.response[:80]!r} human {case['verdict']}, "
                                 f"scored {got}: {(score.explanation or '')[:120]}")
    assert not disagreements, "\n".join(disagreements)

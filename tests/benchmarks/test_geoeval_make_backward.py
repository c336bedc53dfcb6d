"""`geomeval geoeval make-backward` on the embedded sample: backward problems by the paper's
method, reproducible for a seed, with the items that cannot be masked reported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from geomeval.benchmarks.geoeval import data
from geomeval.benchmarks.geoeval.backward import backward_question, forward_rows, make_backward_set

# The sample's Geometry3K problems state no number in their text ("Find A C."): their
# givens are in the diagram, so there is nothing to mask.
UNMASKABLE = {"101", "102", "108"}
KEYS = {
    "id",
    "source",
    "backward_problem",
    "backward_answer",
    "masked",
    "unknown",
    "forward_answer",
    "candidates",
    "seed",
}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "geomeval.cli", "geoeval", "make-backward", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def make(tmp_path: Path, name: str, *args: str) -> tuple[list[dict], str]:
    out = tmp_path / name
    result = cli("--out", str(out), *args)
    assert result.returncode == 0, result.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines], result.stdout


def test_backward_set_from_the_sample(tmp_path: Path) -> None:
    made, stdout = make(tmp_path, "seed0.jsonl", "--seed", "0")
    forward = {row["id"]: row for row in forward_rows(None, "geoeval_2000")}
    assert len(forward) == 10 and len(made) == 7
    assert {item["id"] for item in made} == set(forward) - UNMASKABLE
    for item in made:
        assert set(item) == KEYS and item["seed"] == 0
        row = forward[item["id"]]
        assert item["forward_answer"] == row["answer"]
        text, unknown = item["backward_problem"], item["unknown"]
        # Putting the masked number back where the unknown first stands restores the problem.
        assert text.replace(unknown, item["backward_answer"], 1).startswith(
            row["problem"].rstrip(" .")
        )
        # The forward answer is stated as known and the masked value is asked for.
        assert text.endswith(backward_question(row["answer"], unknown))
        assert f"is known: it is {row['answer']}." in text and text.endswith(f"the unknown {unknown}.")
        assert item["masked"].startswith(item["backward_answer"])
    angle = next(item for item in made if item["id"] == "103")
    # The degree sign stays in place: the unknown is the number alone.
    assert (angle["backward_answer"], angle["masked"]) == ("50", "50°")
    assert (
        f"made 7 backward problems from 10 geoeval_2000 items (seed 0): {tmp_path / 'seed0.jsonl'}"
        in stdout
    )
    assert "not maskable: 3" in stdout
    for item_id in sorted(UNMASKABLE):
        assert f"  {item_id}: the problem states no plain number that could be masked" in stdout


@pytest.mark.slow
def test_a_seed_reproduces_the_set_and_seeds_differ(tmp_path: Path) -> None:
    first, _ = make(tmp_path, "a.jsonl", "--seed", "0")
    again, _ = make(tmp_path, "b.jsonl", "--seed", "0")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert first == again
    masked = {0: {i["id"]: i["backward_answer"] for i in first}}
    for seed in range(1, 4):
        items, _ = make(tmp_path, f"s{seed}.jsonl", "--seed", str(seed))
        masked[seed] = {i["id"]: i["backward_answer"] for i in items}
    assert any(masked[seed] != masked[0] for seed in range(1, 4))
    # Which items are maskable does not depend on the seed, only which given is masked.
    assert all(set(masked[seed]) == set(masked[0]) for seed in masked)


@pytest.mark.slow
def test_limit_task_and_data(tmp_path: Path) -> None:
    made, stdout = make(tmp_path, "limit.jsonl", "--limit", "3")
    assert [item["id"] for item in made] == ["103"] and "from 3 geoeval_2000 items" in stdout
    # The rephrased questions of geoeval_aug state the givens the originals leave to the diagram.
    aug, stdout = make(tmp_path, "aug.jsonl", "--task", "geoeval_aug")
    assert [item["id"] for item in aug] == ["101", "103", "105", "107"]
    assert "not maskable" not in stdout
    # --data takes a raw release as `geomeval run` does: the sample folder gives the same set.
    from_folder, _ = make(tmp_path, "data.jsonl", "--data", str(data.sample_path()))
    assert from_folder == make(tmp_path, "default.jsonl")[0]


@pytest.mark.slow
def test_refusals(tmp_path: Path) -> None:
    out = tmp_path / "x.jsonl"
    backward = cli("--out", str(out), "--task", "geoeval_backward")
    assert backward.returncode == 2 and "backward already" in backward.stderr
    out.write_text("keep\n", encoding="utf-8")
    exists = cli("--out", str(out))
    assert exists.returncode == 2 and "--overwrite" in exists.stderr
    assert out.read_text(encoding="utf-8") == "keep\n"
    assert cli("--out", str(out), "--overwrite").returncode == 0


def test_an_option_letter_answer_is_stated_as_its_option() -> None:
    rows = [
        {
            "id": "1",
            "problem": "In circle O, the central angle is 80°. Find the inscribed angle.",
            "answer": "B",
            "choices": ["A. 20°", "B. 40°", "C. 80°"],
        },
        {"id": "2", "problem": "Find x.", "answer": "3"},
        {"id": "3", "problem": "AB = 4. Find BC.", "answer": "C", "choices": None},
    ]
    result = make_backward_set(rows, seed=7)
    assert [item["id"] for item in result.made] == ["1"]
    assert result.made[0]["forward_answer"] == "40°" and result.made[0]["backward_answer"] == "80"
    # The option's value, not its letter, is the known answer the question states.
    assert result.made[0]["backward_problem"].endswith(backward_question("40°", "X"))
    reasons = {entry["id"]: entry["reason"] for entry in result.not_maskable}
    assert reasons["2"] == "the problem states no plain number that could be masked"
    assert "option letter" in reasons["3"]


@pytest.mark.parametrize("limit", [0, -1])
def test_forward_rows_refuse_a_bad_limit(limit: int) -> None:
    with pytest.raises(ValueError, match="limit"):
        forward_rows(None, "geoeval_2000", limit)

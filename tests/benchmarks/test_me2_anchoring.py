"""The paper's Appendix C ablation of summary anchoring: keypoint identification posed
without the solution summary (`--mode without_summary`), reported as such in the run's
tables, and compared with the anchored run of the same model (`geomeval me2 anchoring`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from geomeval.benchmarks.me2 import data
from geomeval.benchmarks.me2.anchoring import anchoring_table
from geomeval.benchmarks.me2.benchmark import ME2, named
from geomeval.benchmarks.me2.features import OPTION_LETTERS
from geomeval.testing.chat_server import ChatServer, prompt_text

ROWS = [named(row) for row in data.load(None)]
SUMMARY_HEADING = "How the problem is solved:"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True, timeout=600)


def row_in(text: str) -> dict:
    return max((r for r in ROWS if r["problem"].strip() in text), key=lambda r: len(r["problem"]))


def drifting_model(request: dict) -> str:
    """Right when the summary anchors the solution; without it, the keypoints of the item
    whose summary is nearest (another line of solution) on geometry, still right on graphs."""
    text = prompt_text(request)
    row = row_in(text)
    if SUMMARY_HEADING in text or row["domain"] == "graph":
        return f"The final answer is: {row['keypoint_answer']}"
    drift = OPTION_LETTERS[row["option_sources"].index("similar_summary")]
    return f"Another way uses other elements.\nThe final answer is: {drift}"


def results(out: Path) -> dict:
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def test_the_prompt_without_summary_withholds_only_the_summary() -> None:
    bench = ME2().configure({"mode": "without_summary", "source": None})
    items = bench.load_items(None, "me2_keypoints", 3)
    for item in items:
        anchored = ME2().messages(item, "me2_keypoints")[0]["content"][0]["text"]
        text = bench.messages(item, "me2_keypoints")[0]["content"][0]["text"]
        summary = item.fields["solution_summary"].strip()
        assert summary in anchored and SUMMARY_HEADING in anchored
        assert summary not in text and SUMMARY_HEADING not in text
        # Everything else the model needs is still there: problem, answer, all five options.
        assert item.fields["problem"].strip() in text and f"Answer: {item.fields['answer'].strip()}" in text
        assert all(f"{letter}. {option}" in text for letter, option in
                   zip(OPTION_LETTERS, item.fields["keypoint_options"], strict=True))
        assert "must end in this format:\nThe final answer is: <A, B, C, D or E>" in text
    assert bench.options["mode"] == "without_summary" and "mode" not in ME2().options


def test_the_ablation_is_refused_where_no_summary_is_shown() -> None:
    bench = ME2().configure({"mode": "without_summary"})
    for task in ("me2_solve", "me2_explain"):
        with pytest.raises(ValueError, match="shows no solution summary"):
            bench.load_items(None, task, 2)
    with pytest.raises(ValueError, match=r"unknown ME2 mode 'without_image' \(-T mode=\.\.\.\)"):
        ME2().configure({"mode": "without_image"})
    with pytest.raises(ValueError, match="me2 takes no -T source"):
        ME2().configure({"source": "geoqa"})


@pytest.mark.slow
def test_runs_with_and_without_the_summary_and_their_comparison(tmp_path: Path) -> None:
    with_dir, without_dir = tmp_path / "with", tmp_path / "without"
    with ChatServer(drifting_model) as server:
        for out, mode in ((with_dir, []), (without_dir, ["-T", "mode=without_summary"])):
            result = cli("run", "me2", "--task", "me2_keypoints", *mode, "--model", "openai:m",
                         "--base-url", server.base_url, "--out", str(out), "--cache", "off")
            assert result.returncode == 0, result.stderr
    assert results(with_dir)["metrics"]["accuracy"]["value"] == 1.0
    without = results(without_dir)
    assert without["metrics"]["accuracy"]["value"] == pytest.approx(6 / 15)  # the 6 graph items
    assert json.loads((without_dir / "run.json").read_text())["options"]["mode"] == "without_summary"
    # The run's own tables say it is the ablation, in the layout of Table 3.
    title = without["tables"][0]["title"]
    assert "WITHOUT the solution summary" in title and "Appendix C" in title
    assert "WITHOUT" not in results(with_dir)["tables"][0]["title"]
    assert "WITHOUT the solution summary" in (without_dir / "report.md").read_text(encoding="utf-8")
    chosen = {row[0]: row[1:] for row in without["tables"][1]["rows"]}
    assert chosen["geometry"][:3] == [0, 0, 9]  # correct, similar problem, similar summary

    # A resumed run may not switch arms: the two would be averaged.
    again = cli("run", "me2", "--task", "me2_keypoints", "--model", "openai:m", "--out", str(without_dir))
    assert again.returncode == 2 and "differs in options" in again.stderr

    table = anchoring_table(with_dir, without_dir)
    everything, geometry, graph = (table["groups"][k] for k in ("all", "geometry", "graph"))
    assert (everything["items"], everything["kept"], everything["lost"], everything["gained"]) == (15, 6, 9, 0)
    assert everything["with_summary"] == 1.0 and everything["without_summary"] == pytest.approx(0.4)
    assert everything["change"] == pytest.approx(-0.6)
    assert geometry["without_summary"] == 0.0 and graph["change"] == 0.0
    assert table["chosen"]["with_summary"]["correct"] == 15
    assert table["chosen"]["without_summary"]["similar_summary"] == 9
    assert table["unpaired"] == 0

    shown = cli("me2", "anchoring", str(with_dir), str(without_dir), "--json", str(tmp_path / "a.json"))
    assert shown.returncode == 0, shown.stderr
    assert "Appendix C" in shown.stdout and "-0.600" in shown.stdout  # all items: 1.000 → 0.400
    assert json.loads((tmp_path / "a.json").read_text())["groups"]["all"]["lost"] == 9
    swapped = cli("me2", "anchoring", str(without_dir), str(with_dir))
    assert swapped.returncode == 2 and "posed without the solution summary" in swapped.stderr


def _differences() -> dict[str, dict[str, str]]:
    """The card's differences table, row by row, keyed by its `what` cell."""
    from geomeval.benchmarks.me2.card import render_card

    card = render_card()
    section = card.split("## Differences from the paper and the official code", 1)[1]
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    assert header == ["what", "paper", "official code", "geomeval", "why", "switch"]
    rows = {}
    for line in lines[1:]:
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        assert len(cells) == len(header), line
        rows[cells[0]] = dict(zip(header, cells, strict=True))
    return rows


def test_the_card_states_the_differences_and_their_switches() -> None:
    rows = _differences()
    ablation = rows["summary-anchoring ablation (Appendix C)"]
    assert "missing" not in ablation["geomeval"] and "`-T mode=without_summary`" in ablation["switch"]
    assert "geomeval me2 anchoring" in ablation["switch"]
    distractors = rows["keypoint distractors"]
    assert "Qwen3 Embedding" in distractors["paper"] and "all-MiniLM-L6-v2" in distractors["geomeval"]
    assert "--embedder" in distractors["switch"] and "Qwen3-Embedding" in distractors["switch"]
    bert = rows["BERTScore model"]
    assert "not named" in bert["paper"] and "not comparable" in bert["geomeval"]
    assert "GEOMEVAL_BERTSCORE_MODEL" in bert["switch"] and "GEOMEVAL_BERTSCORE_LAYER=17" in bert["switch"]
    assert "MathVista" in rows["solving: answer reading"]["paper"]

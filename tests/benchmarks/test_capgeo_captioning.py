"""Which caption task each source gets, and what the reasoner is then given (CapGeo §3.2-3.3,
Figure 6): on every reasoning source the captioner rewrites the whole problem, figure and
question in one statement; CapGeo-Bench's captioner describes the figure alone. The reasoner
gets the question, the caption and (with_image) the figure: A = MLLM(Q, I, C)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from geomeval.benchmarks.capgeo import captioning
from geomeval.benchmarks.capgeo import prompts as reasoning
from geomeval.benchmarks.capgeo.benchmark import CapGeo
from geomeval.benchmarks.capgeo_bench.benchmark import CapGeoBench
from geomeval.engines.models import Generation

PROMPT_OF_SOURCE = {
    "geoqa": captioning.CAPTION_PROBLEM_WITH_QUESTION,
    "mathvista_geometry": captioning.CAPTION_PROBLEM_WITH_QUESTION,
    "mathverse_vision_intensive": captioning.CAPTION_PROBLEM_VISION_INTENSIVE,
    "mathverse_vision_only": captioning.CAPTION_PROBLEM_VISION_ONLY,
}


class RecordingCaptioner:
    """A captioner that restates each problem it is shown, and keeps every request."""

    spec = "test:captioner"

    def __init__(self) -> None:
        self.requests: dict[str, list[dict[str, Any]]] = {}

    async def generate(self, item: Any, messages: list[dict[str, Any]]) -> Generation:
        self.requests[item.id] = messages
        return Generation(f"Restated problem {item.id}: in triangle ABC, AB = AC.")

    async def aclose(self) -> None:
        return None


def captioned(source: str, mode: str, tmp_path: Path) -> tuple[CapGeo, list[Any], RecordingCaptioner]:
    captioner = RecordingCaptioner()
    bench = CapGeo().configure({"source": source, "mode": mode, "captioner": captioner, "captions": tmp_path})
    items = bench.load_items(None, "capgeo_reasoning", None)
    asyncio.run(bench.prepare(items, 2))
    return bench, items, captioner


@pytest.mark.parametrize("source", sorted(PROMPT_OF_SOURCE))
def test_each_source_asks_for_the_whole_problem_in_its_own_wording(source: str, tmp_path: Path) -> None:
    _, items, captioner = captioned(source, "with_image", tmp_path)
    assert len(captioner.requests) == len(items) > 0
    for item in items:
        content = captioner.requests[item.id][0]["content"]
        assert [part["type"] for part in content] == ["text", "image_url"]  # the figure is always shown
        text = content[0]["text"]
        question = captioning.question_text(item.fields["question"], item.fields["choices"])
        assert text == PROMPT_OF_SOURCE[source].format(question=question)
        assert "{" not in text
        # Fig. 6 forbids analysis and solution steps for GeoQA and MathVista only
        assert ("without analysis or solution steps" in text) == (PROMPT_OF_SOURCE[source] is
                                                                   captioning.CAPTION_PROBLEM_WITH_QUESTION)
        if source == "mathverse_vision_only":  # the problem is in the image: no text is given
            assert item.fields["question"] == "" and "Text of the problem" not in text
            assert "the text of a problem" in text and "make sure it is complete" in text
        else:  # the question, and its options, are shown to the captioner
            assert f"Text of the problem:\n{item.fields['question']}" in text
            for letter, choice in zip("ABCDEFGH", item.fields["choices"], strict=False):
                assert f"\n{letter}. {choice}" in text


def test_capgeo_bench_asks_for_the_figure_alone() -> None:
    bench = CapGeoBench()
    item = bench.load_items(None, "capgeo_bench", 1)[0]
    text = bench.messages(item, "capgeo_bench")[0]["content"][0]["text"]
    assert text == captioning.CAPTION_FIGURE_ONLY
    assert "Output the description of the figure and nothing else" in text and "Question" not in text
    assert "as much visual information from the figure as you can" in text
    assert "An example of such an output, for another figure" in text
    # the three scored dimensions are not listed item by item (Fig. 6 does not)
    assert "every element" not in text and "spatial relation" not in text
    with pytest.raises(ValueError, match="unknown caption variant 'diagram_with_question'"):
        captioning.caption_text("diagram_with_question")


def test_capgeo_bench_dimensions_switch_asks_in_geomevals_earlier_wording() -> None:
    """`-T caption_prompt=dimensions` keeps the earlier request that lists the three scored
    dimensions; it is recorded in run.json's options and restored from them."""
    bench = CapGeoBench().configure({"caption_prompt": "dimensions"})
    item = bench.load_items(None, "capgeo_bench", 1)[0]
    text = bench.messages(item, "capgeo_bench")[0]["content"][0]["text"]
    assert text == captioning.CAPTION_FIGURE_DIMENSIONS and "- every spatial relation:" in text
    zh = bench.messages(item, "capgeo_bench_zh")[0]["content"][0]["text"]
    assert zh == captioning.CAPTION_FIGURE_DIMENSIONS_ZH
    assert bench.options == {"caption_prompt": "dimensions", "keypoint_extraction": "paper"}
    assert CapGeoBench().from_options(bench.options).prompts.text("caption") == captioning.CAPTION_FIGURE_DIMENSIONS
    assert CapGeoBench().options == {"caption_prompt": "paper", "keypoint_extraction": "paper"}
    assert CapGeoBench().messages(item, "capgeo_bench_zh")[0]["content"][0]["text"] == captioning.CAPTION_FIGURE_ONLY_ZH


def test_capgeo_geomeval_style_sends_the_earlier_wording_and_stores_apart(tmp_path: Path) -> None:
    captioner = RecordingCaptioner()
    bench = CapGeo().configure({"source": "geoqa", "mode": "with_image", "captioner": captioner,
                                "captions": tmp_path, "prompt_style": "geomeval"})
    items = bench.load_items(None, "capgeo_reasoning", 2)
    asyncio.run(bench.prepare(items, 2))
    question = captioning.question_text(items[0].fields["question"], items[0].fields["choices"])
    sent = captioner.requests[items[0].id][0]["content"][0]["text"]
    assert sent == captioning.CAPTION_PROBLEM_WITH_QUESTION_GEOMEVAL.format(question=question)
    assert bench.store().path.name == "test_captioner__geoqa__problem_with_question-geomeval.jsonl"
    text = bench.messages(items[0], "capgeo_reasoning")[0]["content"][0]["text"]
    assert text.endswith("<answer>...</answer> (the letter of the correct option).")
    paper = CapGeo().configure({"source": "geoqa", "mode": "with_image", "captioner": captioner,
                                "captions": tmp_path})
    assert paper.store().path.name == "test_captioner__geoqa__problem_with_question.jsonl"
    items = paper.load_items(None, "capgeo_reasoning", 1)
    asyncio.run(paper.prepare(items, 2))
    text = paper.messages(items[0], "capgeo_reasoning")[0]["content"][0]["text"]
    assert "letter" not in text and text.endswith("<think> your reasoning </think><answer> your answer </answer>.")


def test_caption_stores_are_per_caption_task(tmp_path: Path) -> None:
    """Captions written for the old figure-only request (variant diagram_with_question) are not
    the whole problem: they are not reused for the new task, whose store has its own name."""
    old = tmp_path / "test_captioner__geoqa__diagram_with_question.jsonl"
    old.write_text(json.dumps({"id": "1", "caption": "an old figure description", "error": None}) + "\n")
    bench, items, captioner = captioned("geoqa", "with_image", tmp_path)
    assert len(captioner.requests) == len(items)  # every item captioned anew
    assert bench.store().path.name == "test_captioner__geoqa__problem_with_question.jsonl"


@pytest.mark.parametrize("mode", ["with_image", "without_image"])
def test_the_reasoner_gets_the_question_the_restated_problem_and_the_figure_with_image(
    mode: str, tmp_path: Path
) -> None:
    bench, items, _ = captioned("geoqa", mode, tmp_path)
    item = items[0]
    content = bench.messages(item, "capgeo_reasoning")[0]["content"]
    assert [p["type"] for p in content] == (["text", "image_url"] if mode == "with_image" else ["text"])
    text = content[0]["text"]
    caption = item.fields["caption"]
    assert caption.startswith(f"Restated problem {item.id}")
    assert f"The problem restated, with what its figure shows:\n{caption}\n\nProblem:\n{item.fields['question']}" in text
    assert "\n\nOptions:\nA. " in text and text.index(caption) < text.index("Options:")
    assert reasoning.CONTEXT[mode] in text and "<think> </think>" in text and "<answer> </answer>" in text


def test_vision_only_without_image_points_at_the_restatement(tmp_path: Path) -> None:
    bench, items, _ = captioned("mathverse_vision_only", "without_image", tmp_path)
    text = bench.messages(items[0], "capgeo_reasoning")[0]["content"][0]["text"]
    assert items[0].fields["caption"] in text and reasoning.IN_RESTATEMENT in text and "Options:" not in text
    direct = CapGeo().configure({"source": "mathverse_vision_only"})
    item = direct.load_items(None, "capgeo_reasoning", 1)[0]
    shown = direct.messages(item, "capgeo_reasoning")[0]["content"]
    assert reasoning.IN_FIGURE in shown[0]["text"] and "restated" not in shown[0]["text"]
    assert [p["type"] for p in shown] == ["text", "image_url"]

"""How well CapGeo-Bench's two keypoint engines agree, on caption pairs with hand-annotated
keypoints.

The judge engine runs through its real pipeline (extraction and matching requests over HTTP,
parsing, counting), answered by a scripted judge that knows the hand annotation of every
caption (the gold set of tests/test_keypoints.py): it extracts the annotated keypoints and
matches them exactly, as an ideal judge would. The offline engine parses the same captions.
The agreement between them is then the offline engine's agreement with human annotation,
measured per item and dimension: the share of recalls that agree within 0.05, the mean
absolute difference, and the correlation. A real LLM judge cannot be called offline; this
is the part of the comparison that can be pinned down here.
"""

from __future__ import annotations

import asyncio
import json
import math
import re

import pytest
from test_keypoints import FRESH, GOLD, HELDOUT

from geomeval.benchmarks.capgeo import bench_scoring
from geomeval.benchmarks.capgeo.grid import pearson
from geomeval.judges import parse_judge_spec
from geomeval.keypoints import to_text
from geomeval.testing.chat_server import ChatServer, prompt_text

ANNOTATED = GOLD + HELDOUT + FRESH
GROUP_OF = {"element": "elements", "relation": "spatial_relations", "numerical": "numerical_relations"}


def annotation(caption: str) -> dict[str, list[str]]:
    for text, keypoints in ANNOTATED:
        if text.strip() == caption.strip():
            return {group: [to_text(k) for k in keypoints if k.dimension == dim] for dim, group in GROUP_OF.items()}
    raise KeyError(caption[:60])


def oracle(request: dict) -> str:
    text = prompt_text(request)
    if text.startswith("List the keypoints"):
        caption = text.split("Description:\n", 1)[1].rsplit("\n\nReply with", 1)[0]
        return json.dumps(annotation(caption), ensure_ascii=False)
    answer = {}
    for group in GROUP_OF.values():
        block = text.split(f"## {group}\n", 1)[1].split("\n\n## ", 1)[0]
        reference_part, candidate_part = block.split("Candidate:", 1)
        reference = re.findall(r"^R\d+\. (.*)$", reference_part, re.M)
        candidate = re.findall(r"^C\d+\. (.*)$", candidate_part, re.M)
        answer[group] = {
            "matched": [i for i, k in enumerate(reference, 1) if k in candidate],
            "supported": [i for i, k in enumerate(candidate, 1) if k in reference],
        }
    return json.dumps(answer)


def pairs() -> list[tuple[str, str]]:
    """Every annotated caption against itself, and each against the next two (overlapping
    figures share points and lengths, so not every cross pair scores 0)."""
    captions = [text for text, _ in ANNOTATED]
    out = [(c, c) for c in captions]
    out += [(captions[i], captions[(i + k) % len(captions)]) for i in range(len(captions)) for k in (1, 2)]
    return out


def test_offline_engine_agrees_with_an_ideal_judge_engine() -> None:
    with ChatServer(oracle) as server:
        judge = parse_judge_spec("openai:oracle", base_url=server.base_url, concurrency=16)

        async def judged_all() -> list:
            try:
                return await asyncio.gather(*(bench_scoring.judge_counts(judge, c, r) for c, r in pairs()))
            finally:
                await judge.aclose()

        judged = asyncio.run(judged_all())
    offline_recalls, judge_recalls = [], []
    for (candidate, reference), (counts, error) in zip(pairs(), judged, strict=True):
        assert error is None, error
        offline, _ = bench_scoring.offline_counts(candidate, reference, "auto")
        for dimension in GROUP_OF:
            if counts[dimension]["gt"] == 0:
                continue  # not applicable to either engine in this dimension
            judge_recall = counts[dimension]["matched"] / counts[dimension]["gt"]
            off = offline[dimension]
            offline_recall = off["matched"] / off["gt"] if off["gt"] else 0.0
            offline_recalls.append(offline_recall)
            judge_recalls.append(judge_recall)
    n = len(judge_recalls)
    agree = sum(abs(a - b) <= 0.05 for a, b in zip(offline_recalls, judge_recalls, strict=True)) / n
    mad = sum(abs(a - b) for a, b in zip(offline_recalls, judge_recalls, strict=True)) / n
    r = pearson(offline_recalls, judge_recalls)
    print(f"\n{n} item-dimensions: agree within 0.05 on {agree:.1%}, mean |Δ| {mad:.3f}, Pearson {r:.3f}")
    assert n > 150
    assert agree >= 0.9 and mad <= 0.05
    assert r is not None and r >= 0.9 and not math.isnan(r)


@pytest.mark.parametrize("index", [0, 5, 11])
def test_judge_engine_recall_on_an_annotated_caption_is_one_against_itself(index: int) -> None:
    caption = ANNOTATED[index][0]
    with ChatServer(oracle) as server:
        judge = parse_judge_spec("openai:oracle", base_url=server.base_url)

        async def one() -> tuple:
            try:
                return await bench_scoring.judge_counts(judge, caption, caption)
            finally:
                await judge.aclose()

        counts, error = asyncio.run(one())
    assert error is None
    assert all(c["matched"] == c["gt"] and c["supported"] == c["pred"] for c in counts.values())

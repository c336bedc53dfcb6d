"""CapGeo-Bench's judge engine extracts keypoints at the paper's granularity (Figs. 7-8): the
request asks for what a caption states explicitly, in three groups, and says nothing about
splitting "AB = AC = 5" into three keypoints; `-T keypoint_extraction=split` keeps
geomeval's earlier request, which does. Both go through the real scoring path (the
benchmark's prompt set reaching `scoring.score_record`), with a scripted judge client."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from dataclasses import dataclass
from typing import Any

import pytest

from geomeval.benchmarks.capgeo_bench.benchmark import CapGeoBench
from geomeval.core.records import SampleRecord
from geomeval.engines.judges import Judge

REFERENCE = "In triangle ABC, AB = AC = 5 and BC = 6."
CANDIDATE = "In triangle ABC, AB = AC = 5."


@dataclass
class Reply:
    text: str | None
    error: str | None = None


class ScriptedClient:
    """A judge that follows the request it is sent: it splits compound equalities only when
    asked to, and matches keypoints by identical text."""

    def __init__(self) -> None:
        self.requests: list[list[dict[str, Any]]] = []

    async def complete(self, messages: list[dict[str, Any]], temperature: float | None = None) -> Reply:
        self.requests.append(messages)
        text = messages[-1]["content"]
        if text.startswith("List the keypoints"):
            description = text.split("Description:\n", 1)[1].split("\n\nReply with", 1)[0]
            split = "split compound sentences" in text
            numericals: list[str] = []
            for part in re.findall(r"\b[A-Z]{2}(?: = [A-Z]{2})*(?: = \d+)?\b(?= and|\.)", description):
                names = re.findall(r"[A-Z]{2}", part)
                value = part.rsplit(" = ", 1)[1] if part[-1].isdigit() else None
                if split:
                    numericals += [f"{a} = {b}" for a, b in itertools.pairwise(names)]
                    numericals += [f"{n} = {value}" for n in names if value]
                else:
                    numericals.append(part)
            return Reply(json.dumps({"elements": ["triangle ABC"], "spatial_relations": [],
                                     "numerical_relations": numericals}))
        groups = {}
        for key in ("elements", "spatial_relations", "numerical_relations"):
            block = text.split(f"## {key}\n", 1)[1].split("\n\n## ", 1)[0]
            reference = re.findall(r"^R\d+\. (.*)$", block.split("Candidate:")[0], re.M)
            candidate = re.findall(r"^C\d+\. (.*)$", block.split("Candidate:")[1], re.M)
            groups[key] = {"matched": [i for i, k in enumerate(reference, 1) if k in candidate],
                           "supported": [i for i, k in enumerate(candidate, 1) if k in reference]}
        return Reply(json.dumps(groups))

    def forget(self, messages: Any, temperature: float | None = None) -> None:
        return None


def judged(options: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    bench = CapGeoBench().configure(options)
    client = ScriptedClient()
    record = SampleRecord(id="cb", benchmark="capgeo_bench", task="capgeo_bench",
                          target={"caption": REFERENCE, "language": "en"}, meta={}, response=CANDIDATE)
    scores = asyncio.run(bench.score(record, Judge("openai:judge", client=client)))  # type: ignore[arg-type]
    extractions = [m[-1]["content"] for m in client.requests if m[-1]["content"].startswith("List the keypoints")]
    return {name: s.value for name, s in scores.items()}, extractions


def test_default_extraction_is_the_papers_granularity() -> None:
    scores, extractions = judged({})
    assert len(extractions) == 2  # the caption's and the reference's, the same request
    for text in extractions:
        assert "explicitly" in text and "add nothing" in text
        assert "split" not in text and "One short statement per keypoint" not in text
        assert "colours" not in text  # Figs. 7-8 say nothing of colours or line styles
    # "AB = AC = 5" is one keypoint as stated, "BC = 6" another: the caption states one of two
    assert scores["numericals recall (judge)"] == pytest.approx(1 / 2)


def test_split_switch_asks_for_compounds_split_and_changes_the_counts() -> None:
    scores, extractions = judged({"keypoint_extraction": "split"})
    assert all('("AB = AC = 5" gives "AB = AC", "AB = 5", "AC = 5")' in text for text in extractions)
    # split: AB = AC, AB = 5, AC = 5, BC = 6 in the reference; the caption states three of four
    assert scores["numericals recall (judge)"] == pytest.approx(3 / 4)
    bench = CapGeoBench().configure({"keypoint_extraction": "split"})
    assert bench.options == {"caption_prompt": "paper", "keypoint_extraction": "split"}
    assert CapGeoBench().from_options(bench.options).prompts.text("keypoint_extract") == bench.prompts.text(
        "keypoint_extract")

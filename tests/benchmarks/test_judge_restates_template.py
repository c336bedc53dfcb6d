"""A judge reply that restates the prompt's template (its placeholder, a worked example's
reply) is a failed judgment: repaired once, then unscored, never a decision. Asked with
GeoEval's real extraction prompt, whose format line and last worked example a weak judge parrots."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest

from geomeval.benchmarks.geoeval.extraction import extract, extraction_messages, parse_extraction
from geomeval.engines.judges import Judge, restates_template

PROBLEM = "Find A C."
CHOICES = ["6", "8", "10", "14"]
RESPONSE = "By the Pythagorean theorem AC = √(6² + 8²) = 10, so the answer is C."


@dataclass
class Reply:
    text: str | None
    error: str | None = None


class Scripted:
    """A client that replies from a script, one reply per request, and records what it forgot."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.requests: list[list[dict[str, Any]]] = []
        self.forgotten = 0

    async def complete(self, messages: list[dict[str, Any]], temperature: float | None = None) -> Reply:
        self.requests.append(messages)
        return Reply(self.replies.pop(0))

    def forget(self, messages: list[dict[str, Any]], temperature: float | None = None) -> None:
        self.forgotten += 1


def _messages() -> list[dict[str, Any]]:
    return extraction_messages(PROBLEM, CHOICES, RESPONSE)


@pytest.mark.parametrize("reply", [
    '{"answer": "<the final answer, or none>"}',
    'Reply: {"answer": "none"}',
    'Response: "I am unable to see the figure."\nReply: {"answer": "none"}',
])
def test_a_parroted_template_is_no_judgment(reply: str) -> None:
    assert restates_template(reply, _messages()) is not None


@pytest.mark.parametrize("reply", [
    '{"answer": "C"}', '{"answer": "none"}', '```json\n{"answer": "10"}\n```',
    '{"answer": "C"}  <answer>C</answer>',  # a tag the response could carry is no placeholder
])
def test_a_judgment_is_not_taken_for_a_restatement(reply: str) -> None:
    assert restates_template(reply, _messages()) is None


def test_a_judge_that_parrots_twice_leaves_the_extraction_to_the_rules_with_the_reason() -> None:
    client = Scripted('{"answer": "<the final answer, or none>"}', 'Reply: {"answer": "none"}')
    judge = Judge("openai:scripted", client)  # type: ignore[arg-type]
    answer, method, error = asyncio.run(extract(RESPONSE, PROBLEM, CHOICES, judge))
    assert len(client.requests) == 2  # the question and its one repair
    assert "placeholder" in client.requests[1][-1]["content"]  # the repair says what was wrong
    assert error is not None and "no judgment" in error
    assert (answer, method) == ("C", "phrase")  # the rules decide, as for any failed judgment
    assert client.forgotten == 2  # neither reply is replayed by a rerun


def test_a_parroted_reply_repaired_into_a_judgment_is_used() -> None:
    client = Scripted('Reply: {"answer": "none"}', '{"answer": "C"}')
    judge = Judge("openai:scripted", client)  # type: ignore[arg-type]
    reply = asyncio.run(judge.ask(_messages(), parse_extraction))
    assert reply.value == "C" and reply.repaired

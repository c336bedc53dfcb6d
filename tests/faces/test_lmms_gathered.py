"""lmms-eval with several processes (`WORLD_SIZE` > 1, issue 43 point 3): each item's
placeholders carry its record, and the judging happens where lmms-eval gathers every
process's entries and aggregates, all items at the judge's concurrency, with the scores
per-document judging gives. Simulated in one process: the other process's entries reach
the aggregation as pickled copies, as torch.distributed's gather delivers them."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest
from test_lmms_eval import RAW, built, judged_responder, pytestmark, rows  # noqa: F401 (fixtures; skipped without lmms-eval)

from geomeval.integrations import lmms_eval as integration
from geomeval.integrations.lmms import scores, settings
from geomeval.testing.chat_server import ChatServer


def answer(row: dict[str, Any]) -> str:
    value = RAW[row["id"]].get("number_answer") or "the statement is proved"
    steps = ["1. by the figure"] + (["2. WRONG: the angles are equal"] if row["id"] == "en_2" else [])
    return json.dumps({"steps": steps, "short_answer": "12345" if row["id"] == "en_3" else value})


def fresh_state(monkeypatch: pytest.MonkeyPatch, server: ChatServer, world_size: str, defer: str) -> None:
    monkeypatch.setenv("GEOMEVAL_JUDGE_MODEL", "judge-model")
    monkeypatch.setenv("GEOMEVAL_JUDGE_BASE_URL", server.base_url)
    monkeypatch.setenv("WORLD_SIZE", world_size)
    monkeypatch.setenv("GEOMEVAL_LMMS_DEFER", defer)
    for module, name in ((settings, "_judges"), (settings, "_benchmarks"), (scores, "_contexts"),
                         (scores, "_gathered_finals")):
        monkeypatch.setattr(module, name, {})
    monkeypatch.setattr(scores, "_warm_tasks", set())


def values(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["ACS"]["id"]: {m: e[m].get("value") for m in ("ACS", "PCS", "PQS")} for e in entries}


@pytest.mark.slow
def test_several_processes_are_judged_where_lmms_eval_aggregates(rows: list[dict],  # noqa: F811 (the fixture)
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    process = integration.entry_points("geolaux")["geolaux_process_results"]
    with ChatServer(judged_responder, latency_s=0.2) as judge:
        fresh_state(monkeypatch, judge, "1", "0")
        serial = [process(row, [answer(row)]) for row in rows]  # each document judged alone
        asked_serially = len(judge.requests)

    with ChatServer(judged_responder, latency_s=0.2) as judge:
        fresh_state(monkeypatch, judge, "2", "1")
        first = process(rows[0], [answer(rows[0])])  # the first item is judged at once (lazy imports)
        asked_first = len(judge.requests)
        half = len(rows) // 2
        mine = [process(row, [answer(row)]) for row in rows[1:half]]
        theirs = pickle.loads(pickle.dumps([process(row, [answer(row)]) for row in rows[half:]]))
        assert len(judge.requests) == asked_first  # nothing judged in process_results
        gathered = [first, *mine, *theirs]
        assert any(scores.GATHERED in entry["ACS"] for entry in theirs)
        acs = integration.aggregate_scored([entry["ACS"] for entry in gathered])
        assert len(judge.requests) == asked_serially  # every item judged, once, at aggregation
        assert judge.max_in_flight > 1  # the items' judge calls overlapped
        for metric in ("PCS", "PQS"):  # the other metrics and the coverage flags reuse the judgments
            integration.aggregate_scored([entry[metric] for entry in gathered])
        assert integration.coverage([entry["coverage"] for entry in gathered]) == \
            integration.coverage([entry["coverage"] for entry in serial])
        assert len(judge.requests) == asked_serially
    assert values(gathered) == values(serial)
    assert acs == integration.aggregate_scored([entry["ACS"] for entry in serial])
    assert not any(scores.GATHERED in json.dumps(entry) for entry in gathered)  # every placeholder filled

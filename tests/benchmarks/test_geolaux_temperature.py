"""The judge's temperature is each benchmark's (GeoLaux: 0.1, as its official scoring and
error-analysis scripts), unless the user pins one for every benchmark."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.core.errors import UsageError
from geomeval.engines.judges import judge_temperature, parse_judge_spec
from geomeval.engines.models import ModelOptions, parse_model_spec
from geomeval.run.runner import run
from geomeval.testing.chat_server import ChatServer, prompt_text


def _judge_or_model(request: dict) -> str:
    text = prompt_text(request)
    if "Step_by_step_evaluation" in text:
        return '{"Step_by_step_evaluation": [1, 1], "Final_judgment": 1}'
    return json.dumps({"solution": "1) ∵ AB = AC ∴ ∠B = ∠C <STEP1>", "short_answer": "5"})


def _temperatures(tmp_path: Path, **judge_options: object) -> tuple[set, set]:
    with ChatServer(_judge_or_model) as server:
        run(get_benchmark("geolaux"), task="geolaux", limit=3,
            model=parse_model_spec("openai:m", ModelOptions(base_url=server.base_url)),
            judge=parse_judge_spec("openai:j", base_url=server.base_url, **judge_options), out_dir=tmp_path)
    judged = {r.get("temperature") for r in server.requests if "Step_by_step_evaluation" in prompt_text(r)}
    solved = {r.get("temperature") for r in server.requests if "Step_by_step_evaluation" not in prompt_text(r)}
    return judged, solved


def test_geolaux_judge_asks_at_the_official_temperature(tmp_path: Path) -> None:
    assert get_benchmark("geolaux").judge_temperature == 0.1
    judged, solved = _temperatures(tmp_path)
    assert judged == {0.1}
    assert solved == {0.0}  # the model's own --temperature is untouched


def test_a_pinned_judge_temperature_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    judged, _ = _temperatures(tmp_path / "a", temperature=0.0)
    assert judged == {0.0}
    monkeypatch.setenv("GEOMEVAL_JUDGE_TEMPERATURE", "0.3")
    judged, _ = _temperatures(tmp_path / "b")
    assert judged == {0.3}


def test_the_benchmark_temperature_is_per_request_and_shares_the_client() -> None:
    seen: list = []

    def reply(request: dict) -> str:
        seen.append(request.get("temperature"))
        return "{}"

    async def ask_twice(judge) -> None:  # type: ignore[no-untyped-def]
        await judge.for_benchmark(0.01).ask([{"role": "user", "content": "a"}], lambda t: t)
        await judge.ask([{"role": "user", "content": "b"}], lambda t: t)
        await judge.aclose()

    with ChatServer(reply) as server:
        judge = parse_judge_spec("openai:j", base_url=server.base_url)
        asyncio.run(ask_twice(judge))
        assert judge.for_benchmark(0.01).client is judge.client
    assert seen == [0.01, 0.0]
    reasoning = parse_judge_spec("openai:o4-mini", base_url="http://127.0.0.1:9/v1")
    assert "temperature" not in reasoning.client._params(0.1)  # that shape sends none


def test_the_variable_is_read_and_checked() -> None:
    assert judge_temperature(None) is None and judge_temperature(" ") is None
    assert judge_temperature("0.1") == 0.1
    for bad in ("warm", "-1", "nan"):
        with pytest.raises(UsageError, match="GEOMEVAL_JUDGE_TEMPERATURE"):
            judge_temperature(bad)

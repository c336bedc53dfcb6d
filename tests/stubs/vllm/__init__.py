"""A stand-in for vLLM's async engine (tests only; vLLM needs a GPU): records how prompts
arrive and answers them with varied delays. The first prompt is the slow one: it is answered
only once every other prompt of the run has arrived and been answered (or after
`SLOW_WAIT_S`, when they never come: a client that waits for it before sending more).

Events go to `EVENTS` and, when FAKE_VLLM_LOG names a file, to it as JSON lines (a CLI run)."""

from __future__ import annotations

import asyncio
import json
import os
from types import SimpleNamespace
from typing import Any

EVENTS: list[dict[str, Any]] = []
SLOW_WAIT_S = 5.0
REFUSE: list[str] = []  # a prompt holding any of these is refused, as vLLM refuses one too long
EXPECTED: dict[str, int] = {"prompts": int(os.environ.get("FAKE_VLLM_PROMPTS", "0"))}  # the run's prompts


def _log(event: dict[str, Any]) -> None:
    EVENTS.append(event)
    path = os.environ.get("FAKE_VLLM_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(event) + "\n")


class SamplingParams:
    def __init__(self, **params: Any) -> None:
        self.params = params


class AsyncEngineArgs:
    def __init__(self, model: str, **engine_args: Any) -> None:
        self.model, self.engine_args = model, engine_args


class _Tokenizer:
    def apply_chat_template(self, chat: list[dict[str, Any]], *, tokenize: bool, add_generation_prompt: bool) -> str:
        assert tokenize is False and add_generation_prompt is True
        return json.dumps(chat, ensure_ascii=False)


class AsyncLLMEngine:
    def __init__(self, arguments: AsyncEngineArgs) -> None:
        self.arguments = arguments
        self.answered = 0
        self.arrived = 0
        _log({"event": "engine", "model": arguments.model, "engine_args": arguments.engine_args})

    @classmethod
    def from_engine_args(cls, arguments: AsyncEngineArgs) -> AsyncLLMEngine:
        return cls(arguments)

    async def get_tokenizer(self) -> _Tokenizer:
        return _Tokenizer()

    async def generate(self, prompt: dict[str, Any], sampling: SamplingParams, request_id: str) -> Any:
        number = self.arrived
        self.arrived += 1
        images = (prompt.get("multi_modal_data") or {}).get("image")
        count = 0 if images is None else (len(images) if isinstance(images, list) else 1)
        _log({"event": "arrive", "request": request_id, "number": number, "images": count,
              "sampling": sampling.params})
        if any(phrase in prompt["prompt"] for phrase in REFUSE):
            raise ValueError("prompt longer than max_model_len")
        if number == 0:  # the slow one
            waited = 0.0
            while self.answered < EXPECTED["prompts"] - 1 and waited < SLOW_WAIT_S:
                await asyncio.sleep(0.01)
                waited += 0.01
        else:
            await asyncio.sleep(0.001 * (number % 4))
        token_ids = list(range(3 + number % 5))
        yield SimpleNamespace(outputs=[SimpleNamespace(text="", token_ids=[], finish_reason=None)],
                              prompt_token_ids=[1, 2], finished=False)
        self.answered += 1
        _log({"event": "answer", "request": request_id, "number": number})
        text = json.dumps({"steps": ["1. by the figure"], "short_answer": "B"})
        yield SimpleNamespace(outputs=[SimpleNamespace(text=text, token_ids=token_ids, finish_reason="stop")],
                              prompt_token_ids=[1, 2, 3, 4], finished=True)

    def shutdown(self) -> None:
        _log({"event": "shutdown"})

"""Model specs: who answers the benchmark.

`openai:<model>` talks to any OpenAI-compatible chat server (OpenAI, `vllm serve`,
llama.cpp); `replay:<samples.jsonl>` re-reads saved responses; `baseline:random`
and `baseline:empty` are honest floor rows. A failure becomes `Generation.error`,
which the scorer turns into *unscored*, never into a wrong answer.
"""

from __future__ import annotations

import json
import os
import random
import string
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from .benchmarks.base import Item

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_ATTEMPTS = 4
RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


@dataclass(frozen=True, slots=True)
class Generation:
    text: str | None
    error: str | None = None


class Model(ABC):
    spec: str
    needs_messages: bool = True

    @abstractmethod
    def generate(self, item: Item, messages: list[dict[str, Any]] | None) -> Generation: ...

    def close(self) -> None:  # noqa: B027 - optional hook
        pass


class RandomBaseline(Model):
    """A uniform random option letter, seeded per item so any order gives the same picks."""

    needs_messages = False

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.spec = "baseline:random"

    def generate(self, item: Item, messages: list[dict[str, Any]] | None) -> Generation:
        if not item.choices:
            return Generation("")  # nothing to guess among: an honest empty answer
        rng = random.Random(f"{self.seed}:{item.id}")
        return Generation(string.ascii_uppercase[rng.randrange(len(item.choices))])


class EmptyBaseline(Model):
    needs_messages = False
    spec = "baseline:empty"

    def generate(self, item: Item, messages: list[dict[str, Any]] | None) -> Generation:
        return Generation("")


class ReplayModel(Model):
    """Responses read back from a samples.jsonl (geomeval's own, or {"id", "response"} lines)."""

    needs_messages = False

    def __init__(self, path: str):
        self.spec = f"replay:{path}"
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"replay file not found: {path}")
        self.responses: dict[str, tuple[str | None, str | None]] = {}
        with self.path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}, line {number}: not JSON ({exc.msg})") from None
                if not isinstance(row, dict) or "id" not in row:
                    raise ValueError(f"{path}, line {number}: field 'id' missing")
                response = row.get("response")
                if response is not None and not isinstance(response, str):
                    raise ValueError(f"{path}, line {number}: field 'response' is not text")
                self.responses[str(row["id"])] = (response, row.get("generation_error"))

    def generate(self, item: Item, messages: list[dict[str, Any]] | None) -> Generation:
        if item.id not in self.responses:
            return Generation(None, f"no response for id {item.id!r} in {self.path.name}")
        text, error = self.responses[item.id]
        return Generation(text, error)


class OpenAIChatModel(Model):
    """A plain, correct client for one OpenAI-compatible chat endpoint."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = 2048,
        timeout_s: float = 120.0,
    ):
        self.spec = f"openai:{model}"
        self.model = model
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._api_key = api_key
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._local = threading.local()
        self._clients: list[httpx.Client] = []
        self._clients_lock = threading.Lock()
        self.timeout_s = timeout_s

    def _client(self) -> httpx.Client:
        client = getattr(self._local, "client", None)
        if client is None:
            headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
            client = httpx.Client(headers=headers, timeout=self.timeout_s)
            self._local.client = client
            with self._clients_lock:
                self._clients.append(client)
        return client

    def close(self) -> None:
        with self._clients_lock:
            clients, self._clients = self._clients, []
        for client in clients:
            client.close()
        self._local = threading.local()

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text

    def complete(self, messages: list[dict[str, Any]]) -> Generation:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if self.max_tokens:
            body["max_tokens"] = self.max_tokens
        url = f"{self.base_url}/chat/completions"
        error = "no attempt made"
        for attempt in range(MAX_ATTEMPTS):
            try:
                response = self._client().post(url, json=body)
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {self._redact(str(exc))}"
            else:
                if response.status_code == 200:
                    return _read_completion(response)
                error = f"HTTP {response.status_code}: {self._redact(response.text[:300])}"
                if response.status_code not in RETRY_STATUS:
                    break
            if attempt + 1 < MAX_ATTEMPTS:
                time.sleep(min(8.0, 0.5 * 2**attempt) * (0.5 + random.random()))
        return Generation(None, error)

    def generate(self, item: Item, messages: list[dict[str, Any]] | None) -> Generation:
        assert messages is not None
        return self.complete(messages)


def _read_completion(response: httpx.Response) -> Generation:
    try:
        payload = response.json()
        content = payload["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        return Generation(None, f"malformed completion ({type(exc).__name__}): {response.text[:200]}")
    if isinstance(content, list):  # some servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str):
        return Generation(None, "completion content is not text")
    return Generation(content)


def parse_model_spec(spec: str, *, base_url: str | None = None, seed: int = 0) -> Model:
    """Build the model a `--model` spec names; keys come from GEOMEVAL_API_KEY only."""
    kind, _, rest = spec.partition(":")
    if kind == "baseline":
        if rest == "random":
            return RandomBaseline(seed)
        if rest == "empty":
            return EmptyBaseline()
        raise ValueError(f"unknown baseline {rest!r}: use baseline:random or baseline:empty")
    if kind == "replay":
        if not rest:
            raise ValueError("replay needs a file: replay:<samples.jsonl>")
        return ReplayModel(rest)
    if kind == "openai":
        if not rest:
            raise ValueError("openai needs a model name: openai:<model>")
        return OpenAIChatModel(
            rest,
            base_url=base_url or os.environ.get("GEOMEVAL_BASE_URL"),
            api_key=os.environ.get("GEOMEVAL_API_KEY"),
        )
    raise ValueError(
        f"unknown model spec {spec!r}: use openai:<model>, replay:<file>, baseline:random or baseline:empty"
    )

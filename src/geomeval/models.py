"""Model specs: who answers the benchmark.

`openai:<model>` talks to any OpenAI-compatible chat server (OpenAI, `vllm serve`,
llama.cpp) through the shared async client; `vllm:<model-or-path>` runs vLLM
in-process in batches; `replay:<samples.jsonl>` re-reads saved responses; `baseline:random`
and `baseline:empty` are honest floor rows. A failure becomes `Generation.error`,
which the scorer turns into *unscored*, never into a wrong answer.
"""

from __future__ import annotations

import asyncio
import json
import random
import string
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cache import ResponseCache, cache_key
from .client import ChatClient, model_server
from .endpoints import redact_text, resolve_hosts
from .errors import UsageError

if TYPE_CHECKING:
    from .benchmarks.base import Item  # the item a model is asked about (a type only)


@dataclass(frozen=True, slots=True)
class Generation:
    text: str | None
    error: str | None = None
    # Images a model drew (unified models), by role: {"steps": [path, ...], "final": path}.
    images: dict[str, Any] | None = None
    # finish_reason and usage as the server reported them (OpenAI-compatible models).
    info: dict[str, Any] | None = None


class Model(ABC):
    """Answers items one at a time (async), or in batches when `batched` is set."""

    spec: str
    needs_messages: bool = True
    batched: bool = False

    @property
    def settings(self) -> dict[str, Any]:
        """Generation settings that change answers; a run resumes only with the same ones."""
        return {}

    @abstractmethod
    async def generate(self, item: Item, messages: list[dict[str, Any]] | None) -> Generation: ...

    def generate_batch(self, requests: list[list[dict[str, Any]]]) -> list[Generation]:
        raise NotImplementedError(f"{self.spec} answers one item at a time")

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        pass


class RandomBaseline(Model):
    """A uniform random option letter, seeded per item so any order gives the same picks."""

    needs_messages = False

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.spec = "baseline:random"

    async def generate(self, item: Item, messages: list[dict[str, Any]] | None) -> Generation:
        if not item.choices:
            return Generation("")  # nothing to guess among: an honest empty answer
        rng = random.Random(f"{self.seed}:{item.id}")
        return Generation(string.ascii_uppercase[rng.randrange(len(item.choices))])


class EmptyBaseline(Model):
    needs_messages = False
    spec = "baseline:empty"

    async def generate(self, item: Item, messages: list[dict[str, Any]] | None) -> Generation:
        return Generation("")


class ReplayModel(Model):
    """Responses read back from a samples.jsonl (geomeval's own, or {"id", "response"} lines).

    A line may also carry the images a unified model drew: `"images": {"steps": [...],
    "final": "..."}` (or top-level `"step_images"` and `"final_image"`), as paths relative
    to the replay file or absolute; they are resolved here, so rescoring finds them.
    """

    needs_messages = False

    def __init__(self, path: str):
        self.spec = f"replay:{path}"
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"replay file not found: {path}")
        self.responses: dict[str, tuple[str | None, str | None, dict[str, Any] | None]] = {}
        with self.path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise UsageError(f"{path}, line {number}: not JSON ({exc.msg})") from None
                if not isinstance(row, dict) or "id" not in row:
                    raise UsageError(f"{path}, line {number}: field 'id' missing")
                response = row.get("response")
                if response is not None and not isinstance(response, str):
                    raise UsageError(f"{path}, line {number}: field 'response' is not text")
                images = _replay_images(row, self.path.parent, f"{path}, line {number}")
                if response is None and images is not None and row.get("generation_error") is None:
                    response = ""  # a drawing model may write no text at all
                self.responses[str(row["id"])] = (response, row.get("generation_error"), images)

    async def generate(self, item: Item, messages: list[dict[str, Any]] | None) -> Generation:
        if item.id not in self.responses:
            return Generation(None, f"no response for id {item.id!r} in {self.path.name}")
        text, error, images = self.responses[item.id]
        return Generation(text, error, images)


# The official GGBench output keys, accepted as aliases of geomeval's "images" fields.
_FINAL_KEYS = ("final_image", "output_image", "output_image_path", "image_4")
_LONG_KEYS = ("long_image", "long_image_path", "mid_process_image")


def _replay_images(row: dict[str, Any], base: Path, where: str) -> dict[str, Any] | None:
    """A replay line's drawn images as {"steps": [path, ...], "final": path, "long": path},
    paths resolved against the replay file's folder."""
    images = row.get("images")
    if images is None:
        final = next((row[k] for k in _FINAL_KEYS if row.get(k)), None)
        long = next((row[k] for k in _LONG_KEYS if row.get(k)), None)
        if final is None and long is None and not row.get("step_images"):
            return None
        images = {"steps": row.get("step_images") or [], "final": final, "long": long}
    if not isinstance(images, dict):
        raise UsageError(f"{where}: field 'images' must be an object with 'steps', 'final' and 'long'")
    steps = images.get("steps") or []
    if not isinstance(steps, list) or not all(isinstance(p, str) and p for p in steps):
        raise UsageError(f"{where}: field 'images.steps' must be a list of image paths")
    for key in ("final", "long"):
        value = images.get(key)
        if value is not None and (not isinstance(value, str) or not value):
            raise UsageError(f"{where}: field 'images.{key}' must be an image path")

    def resolve(name: str | None) -> str | None:
        return str((base / Path(name).expanduser()).resolve()) if name else None

    return {"steps": [resolve(p) for p in steps], "final": resolve(images.get("final")), "long": resolve(images.get("long"))}


class OpenAIChatModel(Model):
    """A model behind an OpenAI-compatible endpoint, through the shared async client."""

    def __init__(self, client: ChatClient):
        self.client = client
        self.spec = f"openai:{client.model}"
        self._settings = dict(client.params)  # as asked, even if the client adapts its shape

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self._settings)

    async def generate(self, item: Item, messages: list[dict[str, Any]] | None) -> Generation:
        assert messages is not None
        completion = await self.client.complete(messages)
        error = redact_text(completion.error) if completion.error else completion.error  # no URL secret in a record
        return Generation(completion.text, error, info=completion.info or None)

    async def aclose(self) -> None:
        await self.client.aclose()


class VLLMModel(Model):
    """vLLM in-process on local GPUs: whole batches through `LLM.chat`, with the shared cache.

    Engine arguments (`tensor_parallel_size`, `dtype`, `max_model_len`, …) pass straight
    to `vllm.LLM`; they are part of the cache key, since some of them change outputs.
    """

    batched = True

    def __init__(
        self,
        model: str,
        *,
        engine_args: dict[str, Any] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 2048,
        seed: int = 0,
        cache: ResponseCache | None = None,
    ):
        try:
            import vllm
        except ImportError as exc:
            raise UsageError(
                f"vllm:{model} runs vLLM in-process, which is not installed here ({exc}); "
                "on a GPU machine: pip install 'geomeval[vllm]'. "
                "Or serve the model with `vllm serve` and use openai:<model> --base-url."
            ) from None
        self.spec = f"vllm:{model}"
        self.engine_args = dict(engine_args or {})
        self.cache = cache
        self.params = {"temperature": temperature, "max_tokens": max_tokens, "seed": seed}
        self._key_params = {**self.params, "engine_args": self.engine_args}
        self.llm = vllm.LLM(model=model, **self.engine_args)
        self.sampling = vllm.SamplingParams(**self.params)
        self.requests_sent = 0
        self.cache_hits = 0

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self._key_params)

    def _chat(self, conversations: list[list[dict[str, Any]]]) -> list[str | Exception]:
        """Texts for a batch; if the batch fails, each prompt alone, so one bad prompt fails alone."""
        try:
            return [out.outputs[0].text for out in self.llm.chat(conversations, self.sampling, use_tqdm=False)]
        except Exception as exc:
            if len(conversations) == 1:
                return [exc]
        return [text for conversation in conversations for text in self._chat([conversation])]

    def generate_batch(self, requests: list[list[dict[str, Any]]]) -> list[Generation]:
        keys = [cache_key(self.spec, "", messages, self._key_params) for messages in requests]
        results: list[Generation | None] = [None] * len(requests)
        missing = []
        for index, key in enumerate(keys):
            hit = self.cache.get(key) if self.cache is not None else None
            if hit is None:
                missing.append(index)
            else:
                self.cache_hits += 1
                results[index] = Generation(hit)
        if missing:
            self.requests_sent += len(missing)
            outputs = self._chat([requests[i] for i in missing])
            for index, text in zip(missing, outputs, strict=True):
                if isinstance(text, Exception):  # an engine failure fails its item, not the run
                    results[index] = Generation(None, f"vLLM failed ({type(text).__name__}: {str(text)[:300]})")
                    continue
                if self.cache is not None:
                    self.cache.put(keys[index], text, self.spec)
                results[index] = Generation(text)
        return [r if r is not None else Generation(None, "no output") for r in results]

    async def generate(self, item: Item, messages: list[dict[str, Any]] | None) -> Generation:
        assert messages is not None
        return (await asyncio.to_thread(self.generate_batch, [messages]))[0]


@dataclass(frozen=True)
class ModelOptions:
    """How to reach and drive a model: flags, else GEOMEVAL_* variables, else defaults."""

    base_url: str | None = None
    concurrency: int = 32
    timeout_s: float = 120.0
    max_tokens: int = 2048
    temperature: float = 0.0
    seed: int = 0
    cache: ResponseCache | None = None
    engine_args: dict[str, Any] = field(default_factory=dict)
    # For a model that is not the run's main one (CapGeo's captioner): the main model's
    # --base-url ("" when it has none, so GEOMEVAL_BASE_URL or OpenAI's), the server
    # GEOMEVAL_API_KEY was given for; the key goes to this model only if it is the same.
    # None: this is the main model, and the key is for its own server.
    key_base_url: str | None = None


def parse_model_spec(spec: str, options: ModelOptions | None = None) -> Model:
    """Build the model a `--model` spec names. Its key is GEOMEVAL_API_KEY (for the model's own
    server), else OPENAI_API_KEY when that server is OpenAI's (or OPENAI_BASE_URL's)."""
    options = options or ModelOptions()
    kind, _, rest = spec.partition(":")
    if kind == "baseline":
        if rest == "random":
            return RandomBaseline(options.seed)
        if rest == "empty":
            return EmptyBaseline()
        raise UsageError(f"unknown baseline {rest!r}: use baseline:random or baseline:empty")
    if kind == "replay":
        if not rest:
            raise UsageError("replay needs a file: replay:<samples.jsonl>")
        return ReplayModel(rest)
    if kind == "openai":
        if not rest:
            raise UsageError("openai needs a model name: openai:<model>")
        params: dict[str, Any] = {"temperature": options.temperature}
        if options.max_tokens:
            params["max_tokens"] = options.max_tokens
        if options.key_base_url is None:  # the run's model: its server and key
            hosts = resolve_hosts(options.base_url)
            url, key = hosts.model_url, hosts.model_key()
        else:  # a second model: the main model's key only on the main model's server
            url = model_server(options.base_url)
            key = resolve_hosts(options.key_base_url).key_for(url)
        client = ChatClient(
            rest,
            base_url=url,
            api_key=key,
            params=params,
            concurrency=options.concurrency,
            timeout_s=options.timeout_s,
            cache=options.cache,
        )
        return OpenAIChatModel(client)
    if kind == "vllm":
        if not rest:
            raise UsageError("vllm needs a model name or path: vllm:<model-or-path>")
        return VLLMModel(
            rest,
            engine_args=options.engine_args,
            temperature=options.temperature,
            max_tokens=options.max_tokens,
            seed=options.seed,
            cache=options.cache,
        )
    raise UsageError(
        f"unknown model spec {spec!r}: use openai:<model>, vllm:<model-or-path>, replay:<file>, "
        "baseline:random or baseline:empty"
    )


def parse_engine_args(pairs: list[str]) -> dict[str, Any]:
    """`key=value` pairs for vLLM's engine; values read as JSON where they parse (8, true, 0.9)."""
    args: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip().lstrip("-").replace("-", "_")
        if not sep or not key.isidentifier():
            raise UsageError(f"engine argument {pair!r}: expected key=value, e.g. max_model_len=8192")
        try:
            args[key] = json.loads(value)
        except json.JSONDecodeError:
            args[key] = value
    return args

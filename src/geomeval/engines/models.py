"""Model specs: who answers the benchmark.

`openai:<model>` talks to any OpenAI-compatible chat server (OpenAI, `vllm serve`,
llama.cpp) through the shared async client; `vllm:<model-or-path>` runs vLLM
in-process, each prompt handed to its async engine as it is posed; `replay:<samples.jsonl>` re-reads saved responses; `baseline:random`
and `baseline:empty` are honest floor rows. A failure becomes `Generation.error`,
which the scorer turns into *unscored*, never into a wrong answer.
"""

from __future__ import annotations

import inspect
import itertools
import random
import string
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import EndpointFailure, UsageError
from ..core.jsonlines import objects_with_id
from .cache import ResponseCache, cache_key
from .client import ChatClient, model_server
from .endpoints import redact_text, resolve_hosts

if TYPE_CHECKING:
    from ..benchmarks.base import Item  # the item a model is asked about (a type only)


@dataclass(frozen=True, slots=True)
class Generation:
    text: str | None
    error: str | None = None
    # Images a model drew (unified models), by role: {"steps": [path, ...], "final": path}.
    images: dict[str, Any] | None = None
    # finish_reason and usage as the server reported them (OpenAI-compatible models).
    info: dict[str, Any] | None = None


class Model(ABC):
    """Answers items one at a time (async); many at once, as the run asks them."""

    spec: str
    needs_messages: bool = True
    stream_window: int = 0  # an in-process engine: items the run keeps in flight, at least

    @property
    def settings(self) -> dict[str, Any]:
        """Generation settings that change answers; a run resumes only with the same ones."""
        return {}

    @abstractmethod
    async def generate(self, item: Item, messages: list[dict[str, Any]] | None) -> Generation: ...

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
        for number, row in objects_with_id(path):
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
    """vLLM in-process on local GPUs, fed as a stream: each item's prompt goes to vLLM's async
    engine as soon as it is posed and its answer comes back as soon as it is done, so the
    engine's own continuous batching runs across the whole run (the run keeps `stream_window`
    prompts in vLLM's queue, far more than it runs at once; no chunk waits for its slowest answer).

    Engine arguments (`tensor_parallel_size`, `data_parallel_size`, `dtype`, `max_model_len`, …)
    pass straight to `vllm.AsyncEngineArgs`; they are part of the cache key, since some of them
    change outputs. Messages are OpenAI-format (images as data URLs): they are put through the
    model's chat template, images handed to vLLM as pictures.
    """

    stream_window = 1024

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
        try:
            arguments = vllm.AsyncEngineArgs(model=model, **self.engine_args)
        except TypeError as exc:  # an engine argument this vLLM does not know
            raise UsageError(f"vllm:{model}: {exc} (check the -M engine argument names against `vllm serve --help`)") from None
        self.engine = vllm.AsyncLLMEngine.from_engine_args(arguments)
        self.sampling = vllm.SamplingParams(**self.params)
        self._tokenizer: Any = None
        self._numbers = itertools.count()
        self.requests_sent = 0
        self.cache_hits = 0

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self._key_params)

    async def _prompt(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The engine's prompt: the chat template's text, and the images in their order."""
        if self._tokenizer is None:
            tokenizer = self.engine.get_tokenizer()
            self._tokenizer = await tokenizer if inspect.isawaitable(tokenizer) else tokenizer
        chat, images = _hf_chat(messages)
        text = self._tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
        prompt: dict[str, Any] = {"prompt": text}
        if images:
            prompt["multi_modal_data"] = {"image": images if len(images) > 1 else images[0]}
        return prompt

    async def generate(self, item: Item, messages: list[dict[str, Any]] | None) -> Generation:
        assert messages is not None
        key = cache_key(self.spec, "", messages, self._key_params)
        hit = self.cache.get(key) if self.cache is not None else None
        if hit is not None:
            self.cache_hits += 1
            return Generation(hit)
        try:
            prompt = await self._prompt(messages)
        except Exception as exc:  # an image or template the model cannot take fails its item
            return Generation(None, f"vLLM could not pose the prompt ({type(exc).__name__}: {str(exc)[:300]})")
        self.requests_sent += 1
        final = None
        try:
            async for output in self.engine.generate(prompt, self.sampling, f"geomeval-{next(self._numbers)}"):
                final = output
        except Exception as exc:
            if "dead" in type(exc).__name__.lower():  # the engine is gone: stop the run, not the item
                raise EndpointFailure(f"{self.spec}: the vLLM engine stopped ({type(exc).__name__}: {exc})") from exc
            return Generation(None, f"vLLM failed ({type(exc).__name__}: {str(exc)[:300]})")
        if final is None or not final.outputs:
            return Generation(None, "vLLM gave no output")
        answer = final.outputs[0]
        info: dict[str, Any] = {"finish_reason": getattr(answer, "finish_reason", None)}
        prompt_ids, token_ids = getattr(final, "prompt_token_ids", None), getattr(answer, "token_ids", None)
        if prompt_ids is not None and token_ids is not None:
            info["usage"] = {"prompt_tokens": len(prompt_ids), "completion_tokens": len(token_ids)}
        if self.cache is not None:
            self.cache.put(key, answer.text, self.spec)
        return Generation(answer.text, info=info)

    async def aclose(self) -> None:
        shutdown = getattr(self.engine, "shutdown", None)
        if callable(shutdown):
            done = shutdown()
            if inspect.isawaitable(done):
                await done


def _hf_chat(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Any]]:
    """OpenAI-format messages as a Hugging Face chat template takes them ({"type": "image"}
    where a picture goes), and the pictures, decoded from their data URLs, in order."""
    chat: list[dict[str, Any]] = []
    images: list[Any] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            parts = []
            for part in content:
                if part.get("type") == "image_url":
                    images.append(_picture(part["image_url"]["url"]))
                    parts.append({"type": "image"})
                else:
                    parts.append(part)
            chat.append({**message, "content": parts})
        else:
            chat.append(message)
    return chat, images


def _picture(url: str) -> Any:
    """A data URL's image, decoded (PIL), as vLLM takes pictures."""
    import base64
    import io

    from PIL import Image

    head, sep, body = url.partition(",")
    if not (sep and head.startswith("data:") and head.endswith(";base64")):
        raise ValueError(f"an image part is not a base64 data URL ({url[:40]!r}...)")
    with Image.open(io.BytesIO(base64.b64decode(body))) as image:
        image.load()
        return image.convert("RGB")


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



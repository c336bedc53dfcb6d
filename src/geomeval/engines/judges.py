"""Judge specs: who scores what rules cannot decide.

`offline` (the default) applies deterministic rules only; `openai:<model>` is an LLM
judge on an OpenAI-compatible server, at one temperature on every attempt, repair
included (0, or the benchmark's: see below). Reasoning models (OpenAI's o-series and gpt-5) take another request shape:
`max_completion_tokens` and no temperature; `style` picks it, by the model's name unless
told, and the client switches by itself when a server refuses the shape it was sent. A
judgment that fails or cannot be read, or a reply that restates the prompt's template (its
placeholder, a worked example's reply, its lines) instead of judging, becomes an *unscored* item
with the error text, never a wrong answer; a malformed answer first gets one repair retry that shows the judge its
reply and what was wrong with it. A judge takes images unless told it is text-only
(`images=False`, or GEOMEVAL_JUDGE_IMAGES=0): a benchmark whose paper shows its judge the
figure sends it, and a text-only judge gets the words alone. The temperature is each
benchmark's own (`Benchmark.judge_temperature`, its official code's: 0 where that is silent),
unless the user pins one (`temperature=`, GEOMEVAL_JUDGE_TEMPERATURE) for every benchmark.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..answers import parse_json_object
from ..core.errors import UsageError

if TYPE_CHECKING:  # the HTTP client (aiohttp) is imported when a judge is built, not to read replies
    from .cache import ResponseCache
    from .client import ChatClient, RetryPolicy

T = TypeVar("T")
# A chat judge's verdict is a JSON object of a few hundred tokens; 2,048 leaves room for a
# long step-by-step judgment and keeps a runaway reply from a weak judge to about a minute on
# a CPU server (the client allows a request the time its longest legal reply takes at the
# server's speed, or at a conservative one until it is known: `Pace.allowance_s`). A
# reasoning model spends its own tokens thinking before it answers, inside the same limit.
JUDGE_MAX_TOKENS = 2048
REASONING_JUDGE_MAX_TOKENS = 16384
JUDGE_STYLES = ("auto", "chat", "reasoning")
# Model names that are OpenAI reasoning models (o1, o3-mini, o4-mini, gpt-5, gpt-5-mini, ...),
# also behind a provider prefix ("openai/o3").
_REASONING_NAME = re.compile(r"(?:^|/)(?:o\d+(?:-[\w.-]+)?|gpt-5(?:[\w.-]*)?)$", re.IGNORECASE)
# The judge's first reply, shown back in its repair request, is cut to this many characters
# (head and tail), so the repair fits the context the first request fitted.
REPAIR_ECHO_CHARS = 1500


def judge_params(model: str, style: str = "auto", max_tokens: int | None = None,
                 temperature: float = 0.0) -> dict[str, Any]:
    """The sampling parameters a judge request carries: `temperature` (default 0) and
    `max_tokens` (default `JUDGE_MAX_TOKENS`) for a chat model; `max_completion_tokens` only
    (default `REASONING_JUDGE_MAX_TOKENS`) for a reasoning model, which refuses both others."""
    if style not in JUDGE_STYLES:
        raise UsageError(f"unknown judge style {style!r}: use {', '.join(JUDGE_STYLES)}")
    reasoning = style == "reasoning" or (style == "auto" and _REASONING_NAME.search(model) is not None)
    if reasoning:
        return {"max_completion_tokens": max_tokens or REASONING_JUDGE_MAX_TOKENS}
    return {"temperature": temperature, "max_tokens": max_tokens or JUDGE_MAX_TOKENS}


def judge_temperature(value: str | None) -> float | None:
    """GEOMEVAL_JUDGE_TEMPERATURE's text as a temperature (unset or empty: None, each
    benchmark's own)."""
    text = (value or "").strip()
    if not text:
        return None
    try:
        temperature = float(text)
    except ValueError:
        raise UsageError(f"GEOMEVAL_JUDGE_TEMPERATURE must be a number of 0 or more, got {text[:20]!r}") from None
    if not temperature >= 0:
        raise UsageError(f"GEOMEVAL_JUDGE_TEMPERATURE must be a number of 0 or more, got {text[:20]!r}")
    return temperature


def _echo(reply: str) -> str:
    if len(reply) <= REPAIR_ECHO_CHARS:
        return reply
    half = REPAIR_ECHO_CHARS // 2
    return f"{reply[:half]}\n[... {len(reply) - 2 * half} characters left out ...]\n{reply[-half:]}"


_REPAIR = (
    "Your reply could not be used: {problem}. Reply again with the corrected JSON object "
    "only, following the format asked for above, with no other text."
)


def reply_object(text: str) -> dict[str, Any]:
    """The JSON object a judge replied with. A ValueError when there is none: its text is
    what the judge is shown in its one repair retry."""
    data = parse_json_object(text)
    if data is None:
        raise ValueError("no JSON object found")
    return data


def likert(value: Any, name: str) -> int:
    """A 1–5 rating as the judge wrote it (4, 4.0 or "4"); anything else is unreadable."""
    if isinstance(value, bool):
        raise ValueError(f'"{name}" must be a whole number from 1 to 5, got {value!r}')
    if isinstance(value, str):
        value = value.strip()
        if not value.isdigit():
            raise ValueError(f'"{name}" must be a whole number from 1 to 5, got {value[:20]!r}')
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or not 1 <= value <= 5:
        raise ValueError(f'"{name}" must be a whole number from 1 to 5, got {str(value)[:20]!r}')
    return value


# A placeholder the prompt shows for the judge to fill in ("<the final answer, or none>").
# Words with a space between them: a tag such as <answer> a response may carry is no placeholder.
_PLACEHOLDER = re.compile(r"<[^<>\n]{1,80} [^<>\n]{1,80}>")
# A worked example's reply as a prompt shows it ("Reply: {\"answer\": \"none\"}").
_EXAMPLE_LABEL = re.compile(r"^\s*(?:reply|output|judgment|verdict)\s*\d*\s*[:：]", re.I)


def _prompt_text(messages: list[dict]) -> str:
    parts: list[str] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "\n".join(parts)


def restates_template(reply: str, messages: list[dict]) -> str | None:
    """Why `reply` restates the prompt rather than judging, or None when it judges.

    A reply restates the template when it carries a placeholder the prompt shows for the judge
    to fill ("<the final answer, or none>"), or repeats a worked example's reply with its label
    ("Reply: {\"answer\": \"none\"}", a line of the prompt). Lines a judge quotes from the
    judged response are no restatement (a step judge quotes steps). Such a reply is no
    decision: it goes the way of an unreadable one (one repair retry, then unscored)."""
    prompt = _prompt_text(messages)
    if not prompt or not reply.strip():
        return None
    for match in _PLACEHOLDER.finditer(reply[:20_000]):
        if match.group(0) in prompt:
            return f"it repeats the prompt's placeholder {match.group(0)[:60]!r} instead of filling it in"
    prompt_lines = {line.strip() for line in prompt.splitlines() if line.strip()}
    for line in reply[:20_000].splitlines():
        if line.strip() in prompt_lines and _EXAMPLE_LABEL.match(line) and "{" in line:
            return "it repeats a worked example of the prompt instead of judging the response"
    return None


@dataclass(frozen=True)
class JudgeAnswer(Generic[T]):
    value: T | None
    error: str | None = None
    raw: str | None = None
    repaired: bool = False


# GEOMEVAL_JUDGE_IMAGES values that make the judge text-only; "1"/"true"/"yes"/"on" or unset keep images.
_NO_IMAGES = ("0", "false", "no", "off")
_IMAGES = ("1", "true", "yes", "on", "")


def judge_images(value: str | None) -> bool:
    """Whether a judge may be sent images, from GEOMEVAL_JUDGE_IMAGES's text (unset: yes)."""
    text = (value or "").strip().lower()
    if text in _NO_IMAGES:
        return False
    if text in _IMAGES:
        return True
    raise UsageError(f"GEOMEVAL_JUDGE_IMAGES must be 1 or 0 (true/false, yes/no, on/off), got {text[:20]!r}")


@dataclass(frozen=True)
class Judge:
    spec: str
    client: ChatClient | None = None
    # False for a judge endpoint that refuses images: benchmarks then judge from text alone.
    images: bool = True
    # The temperature each request carries: the benchmark's (`for_benchmark`), or None for
    # the client's own. `pinned`: the user chose the client's, for every benchmark.
    temperature: float | None = None
    pinned: bool = False

    def for_benchmark(self, temperature: float) -> Judge:
        """This judge asking at a benchmark's declared temperature (`Benchmark.judge_temperature`),
        unless the user pinned one; the client (its slots, cache and counts) is shared."""
        if self.client is None or self.pinned or self.temperature == temperature:
            return self
        return dataclasses.replace(self, temperature=temperature)

    @property
    def offline(self) -> bool:
        return self.client is None

    async def ask(self, messages: list[dict], parse: Callable[[str], T]) -> JudgeAnswer[T]:
        """Ask once; if the reply does not parse, ask once more showing the problem."""
        if self.client is None:
            raise RuntimeError("the offline judge cannot be asked")
        from .endpoints import redact_text  # a failed request's text may quote the URL

        first = await self.client.complete(messages, temperature=self.temperature)
        if first.text is None:
            return JudgeAnswer(None, redact_text(f"judge request failed: {first.error}"))
        try:
            restated = restates_template(first.text, messages)
            if restated is not None:
                raise ValueError(f"the reply is no judgment: {restated}")
            return JudgeAnswer(parse(first.text), raw=first.text)
        except ValueError as exc:
            problem = str(exc)[:300]
        repair = [
            *messages,
            {"role": "assistant", "content": _echo(first.text)},
            {"role": "user", "content": _REPAIR.format(problem=problem)},
        ]
        second = await self.client.complete(repair, temperature=self.temperature)
        if second.text is None:
            self.client.forget(messages, temperature=self.temperature)
            return JudgeAnswer(None, redact_text(f"judge reply unreadable ({problem}); repair request failed: "
                                                 f"{second.error}"), raw=first.text)
        try:
            restated = restates_template(second.text, messages)
            if restated is not None:
                raise ValueError(f"the reply is no judgment: {restated}")
            return JudgeAnswer(parse(second.text), raw=second.text, repaired=True)
        except ValueError as exc:
            # Neither reply is worth replaying: forget both so a rerun asks afresh.
            self.client.forget(messages, temperature=self.temperature)
            self.client.forget(repair, temperature=self.temperature)
            return JudgeAnswer(
                None, f"judge reply unreadable after one repair retry: {str(exc)[:300]}", raw=second.text
            )

    async def aclose(self) -> None:
        if self.client is not None:
            await self.client.aclose()


def parse_judge_spec(
    spec: str | None,
    *,
    base_url: str | None = None,
    concurrency: int = 32,
    timeout_s: float = 120.0,
    cache: ResponseCache | None = None,
    retry: RetryPolicy | None = None,
    model_base_url: str | None = None,
    max_tokens: int | None = None,
    style: str | None = None,
    images: bool | None = None,
    temperature: float | None = None,
) -> Judge:
    """`offline`, or `openai:<model>`; with no spec, GEOMEVAL_JUDGE_MODEL decides.

    The judge's server is `base_url`, else GEOMEVAL_JUDGE_BASE_URL, else GEOMEVAL_BASE_URL,
    else OpenAI's. Its key is GEOMEVAL_JUDGE_API_KEY; the model's key (GEOMEVAL_API_KEY) is
    sent to it only when the judge's server is the model's own (`model_base_url`: `run`'s
    --base-url, or the server `score`'s run recorded; else GEOMEVAL_BASE_URL, else OpenAI's),
    and OPENAI_API_KEY only when it is OpenAI's (or OPENAI_BASE_URL's): a key never goes to a
    host it was not given for (`endpoints.resolve_hosts`, the one resolution). `style` (else
    GEOMEVAL_JUDGE_STYLE, else auto) is the request shape, see `judge_params`. `images` (else
    GEOMEVAL_JUDGE_IMAGES, else yes) says whether the judge may be sent images. `temperature`
    (else GEOMEVAL_JUDGE_TEMPERATURE) pins the judge's temperature for every benchmark; unset,
    each benchmark's `judge_temperature` is used."""
    if spec is None:
        env_model = os.environ.get("GEOMEVAL_JUDGE_MODEL")
        spec = f"openai:{env_model}" if env_model else "offline"
    if spec == "offline":
        return Judge("offline")
    takes_images = judge_images(os.environ.get("GEOMEVAL_JUDGE_IMAGES")) if images is None else images
    pinned = judge_temperature(os.environ.get("GEOMEVAL_JUDGE_TEMPERATURE")) if temperature is None else temperature
    kind, _, model = spec.partition(":")
    if kind != "openai" or not model:
        raise UsageError(f"unknown judge spec {spec!r}: use offline or openai:<model>")
    from .client import ChatClient
    from .endpoints import resolve_hosts

    hosts = resolve_hosts(model_base_url, base_url)  # as for the model: one resolution (endpoints.py)
    client = ChatClient(
        model,
        base_url=hosts.judge_url,
        api_key=hosts.judge_key(),
        params=judge_params(model, style or os.environ.get("GEOMEVAL_JUDGE_STYLE") or "auto", max_tokens,
                            0.0 if pinned is None else pinned),
        concurrency=concurrency,
        timeout_s=timeout_s,
        cache=cache,
        retry=retry,
    )
    return Judge(spec, client, images=takes_images, pinned=pinned is not None)


def judge_from_env(
    model: str | None = None,
    base_url: str | None = None,
    concurrency: int | None = None,
    timeout: float | None = None,
    max_tokens: int | None = None,
    style: str | None = None,
    images: bool | str | None = None,
) -> Judge:
    """The judge GEOMEVAL_JUDGE_MODEL / GEOMEVAL_JUDGE_BASE_URL name (cached), or `offline`.

    A setting given here (an lmms-eval task's `judge` kwargs) wins over its variable; the
    API key always comes from the environment, for the host it was given for."""
    from .cache import ResponseCache, default_cache_path

    env = os.environ.get
    model = model or env("GEOMEVAL_JUDGE_MODEL")
    if not model or model == "offline":
        return Judge("offline")
    return parse_judge_spec(
        model if model.startswith("openai:") else f"openai:{model}",
        base_url=base_url or None,
        concurrency=int(concurrency or env("GEOMEVAL_JUDGE_CONCURRENCY") or env("GEOMEVAL_CONCURRENCY") or "32"),
        timeout_s=float(timeout or env("GEOMEVAL_JUDGE_TIMEOUT") or env("GEOMEVAL_TIMEOUT") or "120"),
        max_tokens=int(max_tokens or env("GEOMEVAL_JUDGE_MAX_TOKENS") or 0) or None,
        style=style or None,
        images=None if images is None else judge_images(str(images)),
        cache=None if env("GEOMEVAL_NO_CACHE") else ResponseCache(default_cache_path()),
    )

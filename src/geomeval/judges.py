"""Judge specs: who scores what rules cannot decide.

`offline` (the default) applies deterministic rules only; `openai:<model>` is an LLM
judge on an OpenAI-compatible server, always at temperature 0. A metric that needs
a judge the run does not have is reported as not scored, never as zero.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .models import OpenAIChatModel


@dataclass(frozen=True)
class Judge:
    spec: str
    client: OpenAIChatModel | None = None

    @property
    def offline(self) -> bool:
        return self.client is None


def parse_judge_spec(spec: str | None, *, base_url: str | None = None) -> Judge:
    if spec is None:
        env_model = os.environ.get("GEOMEVAL_JUDGE_MODEL")
        spec = f"openai:{env_model}" if env_model else "offline"
    if spec == "offline":
        return Judge("offline")
    kind, _, model = spec.partition(":")
    if kind != "openai" or not model:
        raise ValueError(f"unknown judge spec {spec!r}: use offline or openai:<model>")
    client = OpenAIChatModel(
        model,
        base_url=base_url or os.environ.get("GEOMEVAL_JUDGE_BASE_URL") or os.environ.get("GEOMEVAL_BASE_URL"),
        api_key=os.environ.get("GEOMEVAL_JUDGE_API_KEY") or os.environ.get("GEOMEVAL_API_KEY"),
        temperature=0.0,
    )
    return Judge(spec, client)


def judge_from_env() -> Judge:
    """The judge GEOMEVAL_JUDGE_MODEL / GEOMEVAL_JUDGE_BASE_URL name, or `offline`."""
    return parse_judge_spec(None)

"""The grouped settings of `geomeval run`, `score`, `suite` and `capgeo grid`: `-M` (the
model's), `-J` (the judge's), `--budget` and `--cache`, each `KEY=VALUE` typed and checked
here, so a command keeps one option per group, every command spells a setting the same way,
and an error names the flag, the key and what it accepts. The typer options themselves
(`ModelOpt`, `JudgeOpt`, `BudgetOpt`, `CacheOpt`) are declared here once for all of them."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from ..core.errors import UsageError


def _number(kind: type, low: float | None = None, high: float | None = None) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        value = kind(text)
        if (low is not None and value < low) or (high is not None and value > high):
            raise ValueError(f"not in [{low if low is not None else ''}, {high if high is not None else ''}]")
        return value

    read.__name__ = f"{kind.__name__} >= {low}" if high is None else f"{kind.__name__} in [{low}, {high}]"
    return read


def _yes_no(text: str) -> bool:
    from ..benchmarks.options import FALSE, TRUE  # not at import: `--help` reads no benchmark

    if text.lower() in TRUE:
        return True
    if text.lower() in FALSE:
        return False
    raise ValueError("not yes/no")


_yes_no.__name__ = "yes/no"


def _text(text: str) -> str:
    return text


_text.__name__ = "text"

# key -> (reader, help), per flag. `-M` keys other than these go to vLLM's engine.
MODEL_KEYS: dict[str, tuple[Callable[[str], Any], str]] = {
    "max_tokens": (_number(int, 1), "completion token limit (default: the benchmark's paper setting)"),
    "temperature": (_number(float, 0.0), "sampling temperature (default: the benchmark's paper setting)"),
    "seed": (_number(int), "seed for baseline:random and vLLM sampling (default 0)"),
}
JUDGE_KEYS: dict[str, tuple[Callable[[str], Any], str]] = {
    "base_url": (_text, "the judge's server (or GEOMEVAL_JUDGE_BASE_URL)"),
    "concurrency": (_number(int, 1, 1024), "judge requests in flight (or GEOMEVAL_JUDGE_CONCURRENCY; default --concurrency)"),
    "timeout": (_number(float, 1.0), "the judge's timeout in seconds (or GEOMEVAL_JUDGE_TIMEOUT; default --timeout)"),
    "max_tokens": (_number(int, 1), "the judge's completion token limit (or GEOMEVAL_JUDGE_MAX_TOKENS; default 2048, "
                                    "16384 for a reasoning model)"),
    "style": (_text, "request shape: auto (by model name), chat, or reasoning (or GEOMEVAL_JUDGE_STYLE)"),
    "images": (_yes_no, "send the judge the figures its paper shows it (default yes; no: text alone, not "
                        "comparable with the paper; or GEOMEVAL_JUDGE_IMAGES)"),
    "temperature": (_number(float, 0.0), "the judge's temperature for every benchmark (or "
                                         "GEOMEVAL_JUDGE_TEMPERATURE; default each benchmark's official one)"),
}
# Read from the environment when -J leaves them out (the others are read where they are used).
JUDGE_ENV = {"concurrency": "GEOMEVAL_JUDGE_CONCURRENCY", "timeout": "GEOMEVAL_JUDGE_TIMEOUT",
             "max_tokens": "GEOMEVAL_JUDGE_MAX_TOKENS"}
BUDGET_KEYS: dict[str, tuple[Callable[[str], Any], str]] = {
    "requests": (_number(int, 1), "stop cleanly (resumable) once the model and judge have sent this many requests"),
    "cost": (_number(float, 0.0), "stop cleanly (resumable) once the tokens spent cost this many dollars at prices"),
    "prices": (Path, 'JSON price table, dollars per million tokens: {"MODEL": {"prompt": 2.5, "completion": 10}} '
                     "(or GEOMEVAL_PRICES); gives each run its cost"),
}


def keyed(flag: str, pairs: Iterable[str], keys: Mapping[str, tuple[Callable[[str], Any], str]],
          *, rest: Callable[[str, str], Any] | None = None) -> dict[str, Any]:
    """`KEY=VALUE` strings given to `flag` as {key: typed value}. A key outside `keys` goes to
    `rest(key, value)` where there is one, else is an error listing the keys."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip().lstrip("-").replace("-", "_")
        value = value.strip()
        if not sep or not key.isidentifier() or not value:
            raise UsageError(f"{flag} {pair!r}: expected KEY=VALUE; keys: {', '.join(keys)}")
        if key in out:
            raise UsageError(f"{flag} {key} given twice")
        if key not in keys:
            if rest is None:
                raise UsageError(f"{flag} {key}: unknown key; keys: {', '.join(keys)}")
            out[key] = rest(key, value)
            continue
        read, _ = keys[key]
        try:
            out[key] = read(value)
        except ValueError:
            raise UsageError(f"{flag} {key}={value!r}: expected {read.__name__}") from None
    return out


def _engine_value(key: str, value: str) -> Any:
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


def model_settings(pairs: Iterable[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """`-M` pairs as (max_tokens/temperature/seed given, vLLM engine arguments): any other key
    is an engine argument, its value read as JSON where it parses (8, true, 0.9)."""
    given = keyed("-M", pairs, MODEL_KEYS, rest=_engine_value)
    engine = {k: v for k, v in given.items() if k not in MODEL_KEYS}
    return {k: v for k, v in given.items() if k in MODEL_KEYS}, engine


def judge_settings(pairs: Iterable[str]) -> dict[str, Any]:
    """`-J` pairs, typed, with GEOMEVAL_JUDGE_* filling the keys left out (as the flags these
    replace did)."""
    given = keyed("-J", pairs, JUDGE_KEYS)
    for key, var in JUDGE_ENV.items():
        if key not in given and os.environ.get(var, "").strip():
            given.update(keyed(f"-J (from {var})", [f"{key}={os.environ[var]}"], JUDGE_KEYS))
    return given


def budget_settings(pairs: Iterable[str]) -> dict[str, Any]:
    """`--budget` pairs, typed; prices from GEOMEVAL_PRICES when left out."""
    given = keyed("--budget", pairs, BUDGET_KEYS)
    if "prices" not in given and os.environ.get("GEOMEVAL_PRICES", "").strip():
        given["prices"] = Path(os.environ["GEOMEVAL_PRICES"])
    return given


def cache_setting(value: str | None) -> tuple[Path | None, bool]:
    """`--cache PATH` or `--cache off`: (the cache file or None for the default, whether off)."""
    if value is not None and value.strip().lower() in ("off", "none", "no"):
        return None, True
    return (Path(value) if value else None), False


def keys_help(keys: Mapping[str, tuple[Callable[[str], Any], str]]) -> str:
    return "; ".join(f"{key}: {text}" for key, (_, text) in keys.items())


ModelOpt = Annotated[list[str] | None, typer.Option(
    "--model-option", "-M", help="the model's setting KEY=VALUE (repeatable): " + keys_help(MODEL_KEYS)
    + "; any other key is a vLLM engine argument (e.g. -M tensor_parallel_size=2)")]
JudgeOpt = Annotated[list[str] | None, typer.Option(
    "--judge-option", "-J", help="the judge's setting KEY=VALUE (repeatable): " + keys_help(JUDGE_KEYS))]
BudgetOpt = Annotated[list[str] | None, typer.Option(
    "--budget", help="a limit KEY=VALUE (repeatable): " + keys_help(BUDGET_KEYS))]
CacheOpt = Annotated[str | None, typer.Option(
    "--cache", help="response cache file (default: $GEOMEVAL_CACHE_DIR/responses.sqlite or ~/.cache/geomeval); "
                    "off: neither read nor write it")]

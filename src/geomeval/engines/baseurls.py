"""The servers geomeval talks to, as the user names them: a base URL checked and normalised
(`check_base_url`), several servers of one model given comma-separated (`split_base_urls`), the
model's server as the CLI resolves it (`model_server`), and the one server OPENAI_API_KEY may go
to (`openai_key_for`). Plain functions with no HTTP client behind them: reading a flag does not
import aiohttp."""

from __future__ import annotations

import os
import urllib.parse

from ..core.errors import UsageError

DEFAULT_BASE_URL = "https://api.openai.com/v1"


def model_server(flag: str | None) -> str:
    """The model's server as geomeval resolves it: the --base-url given, else
    GEOMEVAL_BASE_URL, else OpenAI's; checked and without a trailing slash. GEOMEVAL_API_KEY
    is given for this server and goes to no other."""
    return check_base_url(flag or os.environ.get("GEOMEVAL_BASE_URL") or DEFAULT_BASE_URL)


def openai_key_for(url: str) -> str | None:
    """OPENAI_API_KEY, for OpenAI's own server (or the one OPENAI_BASE_URL names) only: the
    documented fallback when GEOMEVAL_API_KEY / GEOMEVAL_JUDGE_API_KEY give no key."""
    key = os.environ.get("OPENAI_API_KEY")
    if not key:
        return None
    try:
        home = check_base_url(os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL, what="OPENAI_BASE_URL")
    except ValueError:
        return None
    return key if check_base_url(url) == home else None


def check_base_url(url: str, *, what: str = "base URL") -> str:
    """`url` without a trailing slash, or ValueError saying what a base URL must look like.
    Several servers of the same model are given comma-separated (`split_base_urls`): each is
    checked, and they come back joined by commas."""
    if "," in url:
        return ",".join(check_base_url(part, what=what) for part in split_base_urls(url))
    text = url.strip()
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"{what} {url!r} is not an http(s) URL: write it in full, e.g. http://127.0.0.1:8000/v1"
        )
    if parts.username is not None or parts.password is not None:
        # never echo it: the user part may be a key
        raise UsageError(
            f"{what} for {parts.hostname} carries credentials (user:key@): give the key in "
            "GEOMEVAL_API_KEY or GEOMEVAL_JUDGE_API_KEY instead, so it is sent in a header only "
            "and never written into run.json or logs"
        )
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise UsageError(f"{what} {url!r} has an invalid port") from None
    return text.rstrip("/")


def split_base_urls(url: str) -> list[str]:
    """The servers a base URL names: one, or several separated by commas (no empty one, no
    server twice)."""
    parts = [part.strip() for part in url.split(",")]
    if not all(parts):
        raise UsageError(f"base URL {url!r} has an empty entry: separate servers with single commas")
    if len(set(parts)) != len(parts):
        raise UsageError(f"base URL {url!r} names a server twice")
    return parts

"""Where the model and the judge are, which key each may carry, and URLs as geomeval writes them.

`resolve_hosts` is the one resolution `geomeval run`, `geomeval score`, `suite` and lmms-eval's
judge go through (`models.parse_model_spec`, `judges.parse_judge_spec`):

- the model's server: `--base-url`, else GEOMEVAL_BASE_URL, else OpenAI's. `geomeval score`
  contacts no model: the model's server is the one the run recorded in run.json (what `run`
  resolved), else as above;
- the judge's server: `-J base_url=URL`, else GEOMEVAL_JUDGE_BASE_URL, else GEOMEVAL_BASE_URL,
  else OpenAI's;
- GEOMEVAL_API_KEY is given for the model's server, GEOMEVAL_JUDGE_API_KEY for the judge's,
  OPENAI_API_KEY for OpenAI's (or OPENAI_BASE_URL's): each goes to that server only. The judge
  carries GEOMEVAL_JUDGE_API_KEY, else the model's key when it is on the model's server, else
  OPENAI_API_KEY when it is on OpenAI's.

A base URL may carry a secret in its query string (`?key=…`, `?api_key=…`, `?token=…`); it is
sent, but `redact_url` is what run.json, results.json, report.md and the log get: every query
value but the API version's becomes `***` (a user:key@ part is refused outright by
`client.check_base_url`).
"""

from __future__ import annotations

import logging
import os
import re
import urllib.parse
from dataclasses import dataclass

REDACTED = "***"
# Query parameters that say which API version a server speaks (Azure's `api-version`): kept,
# since they help a reader and hold no secret. Every other value is redacted.
_PUBLIC_PARAMS = frozenset({"api-version", "api_version"})
_URL = re.compile(r"https?://[^\s'\"<>()\[\]{}`]+", re.IGNORECASE)


def redact_url(url: str) -> str:
    """`url` with its user:password@ part and every query value (but the API version's) as
    `***`: what geomeval writes of a base URL (of each, where it names several separated by
    commas)."""
    if "," in url and url.count("://") > 1:
        return ",".join(redact_url(part) for part in url.split(","))
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return REDACTED
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rpartition('@')[2]}"
    query = "&".join(_redact_pair(pair) for pair in parts.query.split("&")) if parts.query else ""
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment and REDACTED))


def _redact_pair(pair: str) -> str:
    """One `name=value` of a query string with its value redacted (kept for the API version);
    a bare word (`?debug`) is kept when it is a short plain word, else redacted whole."""
    name, sep, value = pair.partition("=")
    if not sep:
        return pair if len(pair) <= 16 and pair.isalpha() else REDACTED
    public = urllib.parse.unquote_plus(name).strip().lower() in _PUBLIC_PARAMS
    return f"{name}={value if public or not value else REDACTED}"


def redact_text(text: str) -> str:
    """`text` with every URL in it redacted (`redact_url`): for log lines and error messages."""
    if "://" not in text:
        return text
    return _URL.sub(lambda found: redact_url(found.group(0)), text)


def same_server(a: str, b: str) -> bool:
    """Whether two base URLs name the same server, compared as geomeval writes them (a
    recorded URL is redacted)."""
    from .client import check_base_url

    return redact_url(check_base_url(a)) == redact_url(check_base_url(b))


@dataclass(frozen=True)
class Hosts:
    """The model's and the judge's servers, as `resolve_hosts` found them."""

    model_url: str
    judge_url: str

    def model_key(self) -> str | None:
        """The key the model's own requests carry."""
        from .client import openai_key_for

        return os.environ.get("GEOMEVAL_API_KEY") or openai_key_for(self.model_url)

    def key_for(self, url: str) -> str | None:
        """The key a second client on `url` (a CapGeo captioner) may carry: the model's key on
        the model's server, OPENAI_API_KEY on OpenAI's, else none."""
        from .client import openai_key_for

        if same_server(url, self.model_url):
            return self.model_key()
        return openai_key_for(url)

    def judge_key(self) -> str | None:
        """The key the judge's requests carry: GEOMEVAL_JUDGE_API_KEY, given for the judge's
        server, else what `key_for` allows there."""
        return os.environ.get("GEOMEVAL_JUDGE_API_KEY") or self.key_for(self.judge_url)


def resolve_hosts(model_base_url: str | None = None, judge_base_url: str | None = None) -> Hosts:
    """The model's server (`model_base_url`: `--base-url`, or for `score` the run's recorded
    one; else GEOMEVAL_BASE_URL, else OpenAI's) and the judge's (`judge_base_url`, else
    GEOMEVAL_JUDGE_BASE_URL, else GEOMEVAL_BASE_URL, else OpenAI's)."""
    from .client import DEFAULT_BASE_URL, check_base_url, model_server

    env = os.environ.get
    judge_url = check_base_url(
        judge_base_url or env("GEOMEVAL_JUDGE_BASE_URL") or env("GEOMEVAL_BASE_URL") or DEFAULT_BASE_URL,
        what="judge base URL",
    )
    return Hosts(model_url=model_server(model_base_url), judge_url=judge_url)


class RedactingFilter(logging.Filter):
    """Redacts the URLs in every record of the `geomeval` logger, so no query secret reaches a log."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact_text(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


def _install_filter() -> None:
    logger = logging.getLogger("geomeval")
    if not any(isinstance(f, RedactingFilter) for f in logger.filters):
        logger.addFilter(RedactingFilter())


_install_filter()

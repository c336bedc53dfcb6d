"""A response cache in SQLite (WAL), shared by runs, rescoring and the lmms-eval tasks.

A key covers everything that decides a completion: the endpoint, the model, the
full messages (images by content hash, so a re-encoded data URL of the same bytes
still hits) and the generation parameters. Only successful completions are stored:
a failure is retried on the next run instead of being replayed. API keys are never
part of a key or a row.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    model TEXT NOT NULL,
    created REAL NOT NULL
)
"""
# Added later: how the reply ended and what it cost ({"finish_reason": ..., "usage": {...}}).
_META_COLUMN = "ALTER TABLE responses ADD COLUMN meta TEXT"


def cache_dir() -> Path:
    """geomeval's cache folder: GEOMEVAL_CACHE_DIR, else $XDG_CACHE_HOME/geomeval or ~/.cache/geomeval."""
    root = os.environ.get("GEOMEVAL_CACHE_DIR")
    if root:
        return Path(root).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "geomeval"


def default_cache_path() -> Path:
    return cache_dir() / "responses.sqlite"


def _image_digest(url: str) -> str:
    """A data URL becomes the hash of its decoded bytes; other URLs stay as they are."""
    if not url.startswith("data:"):
        return url
    header, _, payload = url.partition(",")
    try:
        raw = base64.b64decode(payload, validate=False) if ";base64" in header else payload.encode()
    except ValueError:
        raw = payload.encode()
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def _canonical_messages(messages: list[dict[str, Any]]) -> list[Any]:
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            parts = []
            for part in content:
                if isinstance(part, dict) and part.get("type") == "image_url":
                    image = part.get("image_url") or {}
                    url = image.get("url", "") if isinstance(image, dict) else str(image)
                    parts.append({"type": "image_url", "image": _image_digest(url)})
                else:
                    parts.append(part)
            content = parts
        out.append({**message, "content": content})
    return out


def cache_key(endpoint: str, model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
    payload = {
        "endpoint": endpoint.rstrip("/"),
        "model": model,
        "messages": _canonical_messages(messages),
        "params": params,
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class ResponseCache:
    """Thread-safe get/put on one SQLite file; writers from several processes are fine (WAL)."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(responses)")}
        if "meta" not in columns:
            self._db.execute(_META_COLUMN)
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> str | None:
        entry = self.get_entry(key)
        return None if entry is None else entry[0]

    def get_entry(self, key: str) -> tuple[str, dict[str, Any]] | None:
        """The cached text and what was saved about it (finish_reason, usage; {} for entries
        written before these were kept)."""
        with self._lock:
            row = self._db.execute("SELECT text, meta FROM responses WHERE key = ?", (key,)).fetchone()
            if row is None:
                self.misses += 1
                return None
            self.hits += 1
        try:
            meta = json.loads(row[1]) if row[1] else {}
        except ValueError:
            meta = {}
        return row[0], meta if isinstance(meta, dict) else {}

    def put(self, key: str, text: str, model: str, meta: dict[str, Any] | None = None) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, text, model, created, meta) VALUES (?, ?, ?, ?, ?)",
                (key, text, model, time.time(), json.dumps(meta) if meta else None),
            )

    def delete(self, key: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM responses WHERE key = ?", (key,))

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()

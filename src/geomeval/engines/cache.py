"""A response cache in SQLite (WAL), shared by runs, rescoring and the lmms-eval tasks.

A key covers everything that decides a completion: the endpoint, the model, the
full messages (images by content hash, so a re-encoded data URL of the same bytes
still hits) and the generation parameters. Only successful completions are stored:
a failure is retried on the next run instead of being replayed. API keys are never
part of a key or a row.
"""

from __future__ import annotations

import atexit
import base64
import hashlib
import json
import logging
import os
import queue
import sqlite3
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from ..core.errors import disk_full_error, disk_full_message, is_disk_full
from .batching import next_batch

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

log = logging.getLogger(__name__)


def cache_dir() -> Path:
    """geomeval's cache folder: GEOMEVAL_CACHE_DIR, else $XDG_CACHE_HOME/geomeval or ~/.cache/geomeval."""
    root = os.environ.get("GEOMEVAL_CACHE_DIR")
    if root:
        return Path(root).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "geomeval"


def default_cache_path() -> Path:
    return cache_dir() / "responses.sqlite"


DIGEST_MEMO_CHARS = 64 * 1024 * 1024
"""Data URL text `_image_digest` remembers at most: the figures of the requests in flight
(a figure is hashed once, though the model and then the judge send it), never a run's all."""


class _DigestMemo:
    """{data URL: digest}, the least recently used forgotten beyond `DIGEST_MEMO_CHARS`."""

    def __init__(self) -> None:
        self.digests: OrderedDict[str, str] = OrderedDict()
        self.chars = 0
        self.lock = threading.Lock()

    def get(self, url: str) -> str | None:
        with self.lock:
            digest = self.digests.get(url)
            if digest is not None:
                self.digests.move_to_end(url)
            return digest

    def add(self, url: str, digest: str) -> None:
        with self.lock:
            if url in self.digests or len(url) > DIGEST_MEMO_CHARS:
                return
            self.digests[url] = digest
            self.chars += len(url)
            while self.chars > DIGEST_MEMO_CHARS:
                self.chars -= len(self.digests.popitem(last=False)[0])


_digests = _DigestMemo()


def _image_digest(url: str) -> str:
    """A data URL becomes the hash of its decoded bytes; other URLs stay as they are. One that
    images.py built carries it; others are remembered by their text: decoding and hashing cost
    several times the lookup."""
    if not url.startswith("data:"):
        return url
    known = getattr(url, "digest", None)
    if isinstance(known, str):
        return known
    digest = _digests.get(url)
    if digest is None:
        digest = _decoded_digest(url)
        _digests.add(url, digest)
    return digest


def _decoded_digest(url: str) -> str:
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


WRITE_BATCH = 256
"""Writes the writer thread commits together at most: what a crash can lose (samples.jsonl,
the run's record, says which items were done, so a resumed run only asks those again)."""
WRITE_QUEUE = 4096
"""Writes waiting at most: beyond this a `put` waits for the writer (memory stays bounded)."""
_DELETED = object()  # a pending delete, as `_Writer.pending` holds it
_WRITERS: dict[Path, _Writer] = {}  # the open file's writer, by resolved path
_WRITERS_LOCK = threading.Lock()


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=30.0, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    return db


class _Writer:
    """The thread that writes one cache file, off the event loop: each SQLite commit costs
    a quarter of a millisecond, once for every reply, on the thread that should be sending
    requests. Puts and deletes queue here and are committed in batches (whatever is waiting,
    up to `WRITE_BATCH`, in one transaction); until then `pending` answers reads, so a key
    just written is read back at once. One writer per file, shared by the `ResponseCache`
    objects open on it (so a second object sees the first one's writes too)."""

    def __init__(self, path: Path):
        self.path = path
        self.users = 0
        self.lock = threading.Lock()  # guards `pending`
        self.pending: dict[str, Any] = {}  # key -> row tuple, or _DELETED
        self.queue: queue.Queue[tuple[str, Any] | None] = queue.Queue(WRITE_QUEUE)
        self.db = _connect(path)
        self.inode = os.stat(path).st_ino
        self.full = False  # the disk was found full (said once)
        self.thread = threading.Thread(target=self._write, name=f"geomeval-cache-{path.name}", daemon=True)
        self.thread.start()

    @classmethod
    def open(cls, path: Path) -> _Writer:
        with _WRITERS_LOCK:
            writer = _WRITERS.get(path)
            if writer is None or writer.inode != os.stat(path).st_ino:  # none yet, or the file was replaced
                writer = _WRITERS[path] = _Writer(path)
            writer.users += 1
            return writer

    def release(self) -> None:
        """One user fewer: the last one's release commits what is queued and closes the file."""
        with _WRITERS_LOCK:
            self.users -= 1
            if self.users > 0:
                return
            if _WRITERS.get(self.path) is self:
                del _WRITERS[self.path]
        self.queue.put(None)
        self.thread.join()
        self.db.close()

    def submit(self, key: str, row: Any) -> None:
        """Queue a row to write (a tuple) or a delete (`_DELETED`); reads see it at once."""
        with self.lock:
            self.pending[key] = row
        self.queue.put((key, row))

    def read(self, key: str) -> Any:
        """What is queued for `key` (a row, `_DELETED`), or None when nothing is."""
        with self.lock:
            return self.pending.get(key)

    def flush(self) -> None:
        """Wait until everything queued so far is committed."""
        self.queue.join()

    def _write(self) -> None:
        while True:
            batch = next_batch(self.queue, WRITE_BATCH)
            entries = [entry for entry in batch if entry is not None]
            try:
                if entries:
                    self._commit(entries)
            except Exception as exc:  # a full disk, a locked file: the replies are still used,
                # and the thread must live on (flush waits for it)
                if not is_disk_full(exc, self.path.parent):
                    log.warning("response cache %s: %d writes lost (%s)", self.path, len(entries), exc)
                elif not self.full:  # said once, naming the folder: the run goes on without caching
                    self.full = True
                    log.warning("response cache %s: writes lost from now on: %s", self.path,
                                disk_full_message(self.path.parent))
            finally:
                with self.lock:
                    for key, row in entries:
                        if self.pending.get(key) is row:  # not written again meanwhile
                            del self.pending[key]
                for _ in batch:
                    self.queue.task_done()
            if batch[-1] is None:  # the stop sign (`release`)
                return

    def _commit(self, entries: list[tuple[str, Any]]) -> None:
        self.db.execute("BEGIN")
        try:
            for key, row in entries:
                if row is _DELETED:
                    self.db.execute("DELETE FROM responses WHERE key = ?", (key,))
                else:
                    self.db.execute(
                        "INSERT OR REPLACE INTO responses (key, text, model, created, meta) VALUES (?, ?, ?, ?, ?)",
                        (key, *row),
                    )
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:  # SQLite has already rolled back on a full disk: say that, not "no transaction"
                self.db.execute("ROLLBACK")
            raise


@atexit.register
def _flush_all() -> None:
    """Commit every cache's queued writes before the process ends (the writers are daemons)."""
    for writer in list(_WRITERS.values()):
        writer.flush()


def _forget_writers_in_child() -> None:
    """A forked child has none of its parent's writer threads: waiting at exit for their
    queues would never end. The child opens its own cache if it needs one (an SQLite
    connection must not cross a fork anyway)."""
    _WRITERS.clear()


os.register_at_fork(after_in_child=_forget_writers_in_child)


class ResponseCache:
    """Thread-safe get/put on one SQLite file; writers from several processes are fine (WAL).

    Reads run where they are called; writes go to the file's writer thread (`_Writer`) and
    are visible to reads in this process at once, to other processes once committed."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = _connect(self.path)
            self._db.execute(_SCHEMA)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(responses)")}
            if "meta" not in columns:
                self._db.execute(_META_COLUMN)
        except (OSError, sqlite3.Error) as exc:  # a full disk: one line naming the cache's folder
            raise disk_full_error(exc, self.path.parent) from exc
        self._writer: _Writer | None = _Writer.open(self.path.resolve())
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> str | None:
        entry = self.get_entry(key)
        return None if entry is None else entry[0]

    def get_entry(self, key: str) -> tuple[str, dict[str, Any]] | None:
        """The cached text and what was saved about it (finish_reason, usage; {} for entries
        written before these were kept)."""
        queued = self._writer.read(key) if self._writer is not None else None
        with self._lock:
            if queued is _DELETED:
                row = None
            elif queued is not None:
                row = (queued[0], queued[3])
            else:
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
        assert self._writer is not None, "the cache is closed"
        self._writer.submit(key, (text, model, time.time(), json.dumps(meta) if meta else None))

    def delete(self, key: str) -> None:
        assert self._writer is not None, "the cache is closed"
        self._writer.submit(key, _DELETED)

    def flush(self) -> None:
        """Wait until every write made so far is in the file (other processes see it)."""
        if self._writer is not None:
            self._writer.flush()

    def __len__(self) -> int:
        self.flush()
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            writer, self._writer = self._writer, None
        if writer is not None:
            writer.release()
        with self._lock:
            self._db.close()

"""Where a run's numbers came from: code, data, prompts and settings, written to run.json.

A score can be defended only if its inputs can be named again: the geomeval commit (when run
from a checkout), a fingerprint of the data folder (or the Hub revision), a hash of the prompt
templates in force, every model and judge setting, and the seed. Each sample keeps the hash of
the exact messages it sent (`generation_info["prompt_sha256"]`): rebuilding the messages from
the same data and prompt set (`Benchmark.messages`) and hashing them checks a reconstruction.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from . import __version__
from .jsontext import dumps_pieces

CHUNK = 1 << 20
GIT_TIMEOUT_S = 5


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def checkout_commit() -> dict[str, Any] | None:
    """The commit of the checkout geomeval runs from, and whether tracked files differ from
    it; None for an installed wheel (no .git beside the sources) or without git."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return None
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=GIT_TIMEOUT_S, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": head, "modified": bool(dirty)}


def folder_sha256(path: Path) -> str:
    """Hash of every file under `path` (relative name and bytes, in sorted order): two folders
    with the same hash hold the same data. Hidden files and caches are left out."""
    digest = hashlib.sha256()
    files = [path] if path.is_file() else sorted(
        p for p in path.rglob("*")
        if p.is_file() and not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(path).parts)
    )
    for file in files:
        digest.update((file.name if file == path else file.relative_to(path).as_posix()).encode("utf-8") + b"\0")
        with file.open("rb") as handle:
            while chunk := handle.read(CHUNK):
                digest.update(chunk)
        digest.update(b"\0")
    return digest.hexdigest()


def data_named(data: str | None) -> tuple[dict[str, Any], str]:
    """What --data names (the embedded sample, a local path, or a Hub id), and the key its
    pin goes under: "sha256" of the files, or a Hub "revision"."""
    if data is None:
        return {"kind": "embedded-sample"}, "sha256"
    path = Path(data).expanduser()
    if path.exists():
        return {"kind": "local", "path": str(path.resolve())}, "sha256"
    return {"kind": "hub", "id": data}, "revision"


def data_fingerprint(bench: Any, data: str | None) -> dict[str, Any]:
    """What --data named, pinned: a folder's or file's hash, the embedded sample's hash, or a
    Hub dataset id with its revision when the local Hub cache can say it."""
    named, pin = data_named(data)
    if data is None:
        package = Path(bench.embedded()).parent
        folders = sorted(p for p in package.iterdir() if p.is_dir() and "sample" in p.name and p.name != "__pycache__")
        digest = hashlib.sha256()
        for folder in folders:
            digest.update(folder.name.encode("utf-8") + b"\0" + folder_sha256(folder).encode("ascii"))
        return {**named, pin: digest.hexdigest(), "folders": [f.name for f in folders]}
    if named["kind"] == "local":
        return {**named, pin: folder_sha256(Path(data).expanduser())}
    return {**named, pin: _hub_revision(data)}


def _hub_revision(repo_id: str) -> str | None:
    """The commit of the cached Hub snapshot (offline-safe: reads the local cache only)."""
    try:
        from huggingface_hub import scan_cache_dir

        for repo in scan_cache_dir().repos:
            if repo.repo_id == repo_id and repo.repo_type == "dataset":
                latest = max(repo.revisions, key=lambda r: r.last_modified)
                return latest.commit_hash
    except Exception:  # no hub package or no cache: the id alone is what can be said
        return None
    return None


def prompt_set_sha256(bench: Any) -> str | None:
    """Hash of the text of every named template in force (defaults or a --prompts file's)."""
    names = [t.name for t in getattr(bench, "prompt_templates", ())]
    if not names:
        return None
    texts = {name: bench.prompts.text(name) for name in names}
    return hashlib.sha256(json.dumps(texts, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def messages_sha256(messages: list[dict[str, Any]] | None) -> str | None:
    """Hash of the exact messages sent (images included, as their data URLs)."""
    if messages is None:
        return None
    digest = hashlib.sha256()
    for piece in dumps_pieces(messages, sort_keys=True, ensure_ascii=False, default=repr):  # figures not rescanned
        digest.update(piece.encode("utf-8"))
    return digest.hexdigest()


def client_settings(client: Any) -> dict[str, Any] | None:
    """A chat client's endpoint (a secret in its URL redacted), model and request parameters
    (never its key)."""
    if client is None:
        return None
    from .endpoints import redact_url

    return {"model": client.model, "base_url": redact_url(client.base_url), "params": dict(client.params),
            "timeout_s": client.timeout_s, "concurrency": client.concurrency}


class DataFingerprint:
    """`data_fingerprint`, taken on a thread while the run goes on. Hashing the data is
    reading all of it: 4 to 9 s for a 100,000-item folder (3 GB) here, which held back the
    first request until it was done. File reads and hashlib (on chunks this size) release the GIL,
    so the event loop keeps its pace beside it. `result()` waits for it; until then run.json
    says the data with no hash (`pending`)."""

    def __init__(self, bench: Any, data: str | None):
        self._bench, self._data = bench, data
        self._block: dict[str, Any] | None = None
        self._thread = threading.Thread(target=self._take, name="geomeval-data-fingerprint", daemon=True)
        self._thread.start()

    def _take(self) -> None:
        try:
            self._block = data_fingerprint(self._bench, self._data)
        except Exception as exc:  # an unreadable file: said in the provenance, the run goes on
            self._block = {**self._named(), "error": f"{type(exc).__name__}: {str(exc)[:300]}"}

    def _named(self) -> dict[str, Any]:
        """What --data named, with its hash or revision not known."""
        named, pin = data_named(self._data)
        return {**named, pin: None}

    def pending(self) -> dict[str, Any]:
        """What run.json says of the data until the hash is taken."""
        return {**self._named(), "pending": True}

    def result(self) -> dict[str, Any]:
        self._thread.join()
        assert self._block is not None
        return self._block


def describe(bench: Any, data: DataFingerprint, model: Any, judge: Any, seed: int) -> dict[str, Any]:
    """The provenance block of run.json, taken when the run starts: the data's hash is still
    being taken (`DataFingerprint.pending`), and the run fills it in when it ends."""
    return {
        "started_at": now(),
        "geomeval": __version__,
        "checkout": checkout_commit(),
        "data": data.pending(),
        "prompt_set_sha256": prompt_set_sha256(bench),
        "model": {"spec": model.spec, "settings": model.settings,
                  "endpoint": client_settings(getattr(model, "client", None))},
        "judge": {"spec": judge.spec, "images": getattr(judge, "images", None),
                  "endpoint": client_settings(judge.client)},
        "seed": seed,
    }

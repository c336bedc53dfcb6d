"""Where a run's numbers came from: code, data, prompts and settings, written to run.json.

A score can be defended only if its inputs can be named again: the geomeval commit and how it
was installed (`install_source`, every install kind), the versions of every library that
computes a number (`library_versions`), a fingerprint of the data folder (or the Hub revision), the prompt
templates in force (their full texts kept once per run beside run.json, and their hash), every model and judge setting, and the seed. Each sample keeps the hash of
the exact messages it sent (`generation_info["prompt_sha256"]`): rebuilding the messages from
the same data and prompt set (`Benchmark.messages`) and hashing them checks a reconstruction.
"""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import __version__
from ..core.jsontext import dumps_pieces

CHUNK = 1 << 20
GIT_TIMEOUT_S = 5


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def checkout_commit() -> dict[str, Any] | None:
    """The commit of the checkout geomeval runs from, and whether tracked files differ from
    it; None for an installed wheel (no .git beside the sources) or without git."""
    root = Path(__file__).resolve().parents[3]
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


DISTRIBUTION = "geomeval"
BUILD_INFO = "_build_info.json"
"""Written into the package by a wheel or sdist build from a checkout (setup.py): the commit it
was built from, which an installed copy cannot ask git for."""

# The libraries whose code computes a number geomeval reports (answer checking, text, code and
# image metrics, models run in process) or reads the data it is computed on; their versions are
# read from the installed metadata (importing torch to ask would take seconds).
COMPUTING_LIBRARIES = (
    "sympy", "math-verify", "latex2sympy2_extended", "antlr4-python3-runtime", "sacrebleu", "rapidfuzz", "nltk",
    "scikit-image", "numpy", "scipy", "pillow", "matplotlib", "bert-score", "torch", "transformers",
    "tokenizers", "sentence-transformers", "lpips", "evaluate", "vllm", "datasets", "pyarrow", "ijson",
)
# Listed even when missing ("not installed"), as results.json always did.
ALWAYS_LISTED = ("datasets", "math-verify", "sympy", "aiohttp")


def library_versions() -> dict[str, str]:
    """geomeval's and Python's versions, and those of every installed library that computes a
    number (`COMPUTING_LIBRARIES`), from package metadata: nothing is imported to ask (read once
    per process: 0.15 s of metadata lookups, and a run asks as it starts and as it ends; a
    `geomeval run` reads them from the install's stamp while it is valid, `_stamped`)."""
    return dict(_known_versions[0] if _known_versions else _library_versions())


_known_versions: list[dict[str, str]] = []  # what a valid install stamp said (`_stamped`)


@functools.cache
def _library_versions() -> dict[str, str]:
    import platform
    from importlib import metadata

    found = {"geomeval": __version__, "python": platform.python_version()}
    for package in dict.fromkeys(ALWAYS_LISTED + COMPUTING_LIBRARIES):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            if package in ALWAYS_LISTED:
                found[package] = "not installed"
    return found


def install_source(checkout: dict[str, Any] | None = None) -> dict[str, Any]:
    """How this geomeval was installed and what it was built from, for every install kind:
    a source checkout (editable or on the path: git's commit now), a VCS install (the commit
    pip recorded), a wheel or sdist (its file and hash, and the commit it was built from when
    built from a checkout), a directory install (its path and the build's commit), an index
    install (name and version). Read from `importlib.metadata` and PEP 610's direct_url.json."""
    return _with_checkout(_installed(), checkout)


def _installed() -> dict[str, Any]:
    """`install_source` less the checkout and the build's commit (read live): what the
    install's metadata says."""
    from importlib import metadata

    found: dict[str, Any] = {"distribution": DISTRIBUTION, "version": __version__}
    try:
        dist: Any = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        dist = None
    direct: dict[str, Any] = {}
    if dist is not None:
        found["version"] = dist.version
        try:
            direct = json.loads(dist.read_text("direct_url.json") or "{}")
        except ValueError:
            direct = {}
        installer = (dist.read_text("INSTALLER") or "").strip()
        if installer:
            found["installer"] = installer
    url = direct.get("url") if isinstance(direct.get("url"), str) else None
    dir_info = direct.get("dir_info") if isinstance(direct.get("dir_info"), dict) else None
    vcs = direct.get("vcs_info") if isinstance(direct.get("vcs_info"), dict) else None
    archive = direct.get("archive_info") if isinstance(direct.get("archive_info"), dict) else None
    if dist is None:
        found["kind"] = "source tree (not installed)"
    elif dir_info is not None and dir_info.get("editable"):
        found["kind"] = "editable"
    elif vcs is not None:
        found["kind"] = "vcs"
        found.update({k: vcs[k] for k in ("vcs", "commit_id", "requested_revision") if isinstance(vcs.get(k), str)})
    elif archive is not None:
        found["kind"] = "archive"  # a wheel or sdist file
        if isinstance(archive.get("hash"), str):
            found["archive_hash"] = archive["hash"]
    elif dir_info is not None:
        found["kind"] = "directory"
    else:
        found["kind"] = "index"
    if url is not None:
        found["url"] = _redacted(url)
    return found


def _with_checkout(installed: dict[str, Any], checkout: dict[str, Any] | None) -> dict[str, Any]:
    found = dict(installed)
    if checkout is not None:
        found["checkout"] = checkout
    built = _build_info()
    if built is not None:
        found["built_from"] = built
    return found


INSTALL_STAMP = "install-stamp"
"""What the install's metadata says (`_installed`, `library_versions`), kept in the package's
__pycache__ beside its bytecode, one file per interpreter, with the key it is valid for
(`_install_key`): reading it back replaces importing importlib.metadata and parsing two dozen
packages' METADATA (about 50 ms of Python work at each run's start, beside the imports it
slowed). Any package installed, removed or upgraded on the path changes a folder's time on
the path, so the stamp is taken again; a read-only install just takes it each time."""


def _stamp_path() -> Path:
    import sys

    interpreter = hashlib.sha256(f"{sys.prefix}\0{sys.executable}".encode()).hexdigest()[:12]
    tag = sys.implementation.cache_tag or "python"
    return Path(__file__).resolve().parents[1] / "__pycache__" / f"{INSTALL_STAMP}.{tag}.{interpreter}.json"


def _install_key() -> dict[str, Any]:
    """What the install's metadata depends on: the interpreter, geomeval's version and each
    folder on the path with its modification time (a package's dist-info added or removed)."""
    import os
    import sys

    folders = []
    for entry in sys.path:
        folder = entry or os.getcwd()
        try:
            folders.append([folder, os.stat(folder).st_mtime_ns])
        except OSError:
            folders.append([folder, None])
    return {"geomeval": __version__, "python": sys.version, "prefix": sys.prefix, "path": folders}


def _stamped() -> dict[str, Any]:
    """`_installed()`, from the install stamp when it is valid, else taken and stamped; the
    library versions the stamp holds become `library_versions`' for this process."""
    import os

    path, key = _stamp_path(), _install_key()
    try:
        stamp = json.loads(path.read_text(encoding="utf-8"))
        if stamp["key"] == key and isinstance(stamp["install"], dict) and isinstance(stamp["versions"], dict):
            _known_versions[:] = [stamp["versions"]]
            return stamp["install"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    installed, versions = _installed(), _library_versions()
    try:
        path.parent.mkdir(exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        partial.write_text(json.dumps({"key": key, "install": installed, "versions": versions}), encoding="utf-8")
        os.replace(partial, path)
    except OSError:  # a read-only install: taken again next time
        pass
    return installed


def _redacted(url: str) -> str:
    from ..engines.endpoints import redact_url

    return redact_url(url)


def _build_info() -> dict[str, Any] | None:
    """The commit a wheel or sdist was built from, as its build wrote it into the package."""
    path = Path(__file__).parents[1].joinpath(BUILD_INFO)
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) else None


def prompt_texts(bench: Any) -> dict[str, Any] | None:
    """The full text of every named template in force (defaults or a --prompts file's), with
    the hash `prompt_set_sha256` gives of them: what a run keeps once, beside run.json."""
    names = [t.name for t in getattr(bench, "prompt_templates", ())]
    if not names:
        return None
    texts = {name: bench.prompts.text(name) for name in names}
    return {"benchmark": bench.name, "sha256": prompt_set_sha256(bench), "templates": texts}


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
    from ..engines.endpoints import redact_url

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


class _CodeProvenance:
    """The code's side of the provenance (git's commit of the checkout, how geomeval was
    installed, the libraries' versions) taken on a thread as the command starts
    (`take_code_provenance_early`), while the run's modules are imported: two git processes and
    the package metadata lookups took 30-40 ms of each run's start (issue #42). Used once, by
    the first `describe`; any later one takes its own."""

    def __init__(self) -> None:
        self._found: tuple[dict[str, Any] | None, dict[str, Any]] | None = None
        self._thread = threading.Thread(target=self._take, name="geomeval-code-provenance", daemon=True)
        self._thread.start()

    def _take(self) -> None:
        try:
            checkout = checkout_commit()
            self._found = checkout, _with_checkout(_stamped(), checkout)  # library_versions' too
        except Exception:  # taken again, where it fails, by describe itself
            self._found = None

    def result(self) -> tuple[dict[str, Any] | None, dict[str, Any]] | None:
        self._thread.join()
        return self._found


_early: list[_CodeProvenance] = []


def take_code_provenance_early() -> None:
    """Start taking the code's provenance on a thread (`_CodeProvenance`); the next `describe`
    uses it."""
    if not _early:
        _early.append(_CodeProvenance())


def _code_provenance() -> tuple[dict[str, Any] | None, dict[str, Any]]:
    found = _early.pop().result() if _early else None
    if found is not None:
        return found
    checkout = checkout_commit()
    return checkout, install_source(checkout)


def describe(bench: Any, data: DataFingerprint, model: Any, judge: Any, seed: int) -> dict[str, Any]:
    """The provenance block of run.json, taken when the run starts: the data's hash is still
    being taken (`DataFingerprint.pending`), and the run fills it in when it ends."""
    checkout, install = _code_provenance()
    return {
        "started_at": now(),
        "geomeval": __version__,
        # the code's commit however it was installed: the checkout's, else the one the wheel or
        # sdist was built from, else the one a VCS install recorded (None from an index)
        "commit": (checkout or install.get("built_from") or {}).get("commit") or install.get("commit_id"),
        "checkout": checkout,
        "install": install,
        "versions": library_versions(),
        "data": data.pending(),
        "prompt_set_sha256": prompt_set_sha256(bench),
        "model": {"spec": model.spec, "settings": model.settings,
                  "endpoint": client_settings(getattr(model, "client", None))},
        "judge": {"spec": judge.spec, "images": getattr(judge, "images", None),
                  "endpoint": client_settings(judge.client)},
        "seed": seed,
    }

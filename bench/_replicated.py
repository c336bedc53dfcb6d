"""Shared by the scale benches: a GeoLaux raw release of N items, the real items of the
mini sample (or the embedded one) repeated under new ids, each with its own figure file
(the same pixels, a distinct file), so reading, building and running touch N images."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MINI = REPO.parent / "shared/data/geolaux_mini_sample"


def replicated_release(n: int, out: Path) -> Path:
    """A raw release of `n` items in `out` (made once; reused when it is already there), from
    the shared mini sample when present, else the embedded one."""
    from geomeval.testing.replicated import replicated_release as make

    return make(n, out, MINI if MINI.is_dir() else None)


def built(n: int, cache: Path) -> Path:
    """The replicated release of `n` items built once with `geomeval build`; its folder."""
    out = cache / f"built-{n}"
    if not (out / "README.md").exists():
        raw = replicated_release(n, cache / f"raw-{n}")
        subprocess.run([sys.executable, "-m", "geomeval.cli", "build", "geolaux", "--raw", str(raw), "--out", str(out),
                        "--overwrite"], check=True, capture_output=True)
    return out


def process_env(cache: Path) -> dict[str, str]:
    """The environment a timed `geomeval` process runs in: offline, none of the caller's
    GEOMEVAL_ settings, its response cache in `cache`, and bytecode written as an installed
    package's is (PYTHONDONTWRITEBYTECODE, set on some machines, this one included, would have
    every start compile geomeval's sources again; the bare clients' modules are compiled
    either way)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEOMEVAL_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", GEOMEVAL_CACHE_DIR=str(cache))
    return env

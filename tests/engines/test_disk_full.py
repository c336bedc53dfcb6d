"""A full disk (issue 42 point 4), on a real small filesystem (tmpfs, mounted by the test: root
only): a run, a rescore, a build and the response cache stop with one line naming the folder and
the space needed, exit `DISK_FULL_EXIT`, and leave what was written intact, so the same command
run again once there is space ends as it would have."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from geomeval.core.errors import DISK_FULL_EXIT, DiskFull, disk_full_error, is_disk_full


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 48 KiB tmpfs at tmp_path/disk (remount with `_resize`), unmounted afterwards."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root on Linux")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", str(disk)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"mount is not permitted here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _resize(disk: Path, size: str) -> None:
    subprocess.run(["mount", "-o", f"remount,size={size}", str(disk)], check=True)


def _fill(disk: Path) -> Path:
    """Take all the space left on `disk` with one file (returned, to delete)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    return filler


def cli(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GEOMEVAL_CACHE_DIR": str(cache), "COLUMNS": "400"})


def _one_line_naming(result: subprocess.CompletedProcess[str], folder: Path) -> str:
    output = result.stdout + result.stderr
    assert result.returncode == DISK_FULL_EXIT, output
    assert "Traceback" not in output, output
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output
    # the folder the write failed in: `folder` itself or one of its own (a run's figures/)
    named = re.search(r"no space left on the disk holding (.+?) \(", errors[0])
    assert named is not None, errors[0]
    assert Path(named.group(1)) == folder or folder in Path(named.group(1)).parents, errors[0]
    assert "is needed" in errors[0] and "rerun the same command" in errors[0]
    return errors[0]


def _results(out: Path) -> tuple[dict, list[str]]:
    results = json.loads((out / "results.json").read_text())
    ids = [json.loads(line)["id"] for line in (out / "samples.jsonl").read_text().splitlines()]
    return results["metrics"], ids


def _run(out: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return cli("run", "geolaux", "--model", "baseline:random", "--judge", "offline", "--out", str(out), cache=cache)


def test_a_run_on_a_full_disk_stops_with_one_line_and_resumes_as_it_would_have_ended(
        small_disk: Path, tmp_path: Path) -> None:
    reference = _run(tmp_path / "reference", tmp_path / "cache")
    assert reference.returncode == 0, reference.stderr
    out = small_disk / "out"
    _one_line_naming(_run(out, tmp_path / "cache"), out)
    assert (out / "run.json").exists() and not (out / "results.json").exists()
    _resize(small_disk, "8m")
    resumed = _run(out, tmp_path / "cache")
    assert resumed.returncode == 0, resumed.stderr
    metrics, ids = _results(out)
    reference_metrics, reference_ids = _results(tmp_path / "reference")
    assert sorted(ids) == sorted(reference_ids) and len(set(ids)) == len(ids)  # each item once
    assert {name: m["value"] for name, m in metrics.items()} == {
        name: m["value"] for name, m in reference_metrics.items()}


def test_a_cache_folder_on_a_full_disk_stops_the_run_with_one_line(small_disk: Path, tmp_path: Path) -> None:
    _fill(small_disk)
    cache = small_disk / "cache"
    _one_line_naming(_run(tmp_path / "out", cache), cache)


def test_a_rescore_on_a_full_disk_stops_with_one_line_and_damages_nothing(small_disk: Path, tmp_path: Path) -> None:
    _resize(small_disk, "2m")
    out = small_disk / "out"
    assert _run(out, tmp_path / "cache").returncode == 0
    before = {name: (out / name).read_bytes() for name in ("samples.jsonl", "results.json", "run.json")}
    filler = _fill(small_disk)
    _one_line_naming(cli("score", str(out), "--judge", "offline", cache=tmp_path / "cache"), out)
    assert {name: (out / name).read_bytes() for name in before} == before  # nothing already written changed
    filler.unlink()
    rescored = cli("score", str(out), "--judge", "offline", cache=tmp_path / "cache")
    assert rescored.returncode == 0, rescored.stderr
    assert json.loads((out / "results.json").read_text())["metrics"] == json.loads(before["results.json"])["metrics"]


def test_a_build_on_a_full_disk_stops_with_one_line_and_leaves_nothing(small_disk: Path, tmp_path: Path) -> None:
    from conftest import SHARED_GEOLAUX

    if not (SHARED_GEOLAUX / "GeoLaux_minidata.json").is_file():
        pytest.skip(f"real GeoLaux sample not found at {SHARED_GEOLAUX}")
    _resize(small_disk, "1m")  # the build is 4.1 MB
    line = _one_line_naming(cli("build", "geolaux", "--raw", str(SHARED_GEOLAUX), "--out", str(small_disk / "built"),
                                cache=tmp_path / "cache"), small_disk)
    assert "at least 1.0 MiB is needed" in line
    assert list(small_disk.iterdir()) == []  # no half build, no temporary left


def test_cache_writes_on_a_full_disk_are_said_once_naming_the_folder(
        small_disk: Path, caplog: pytest.LogCaptureFixture) -> None:
    from geomeval.engines.cache import ResponseCache

    _resize(small_disk, "512k")
    cache = ResponseCache(small_disk / "cache" / "responses.sqlite")
    cache.put("kept", "an answer", "m")
    cache.flush()
    _fill(small_disk)
    with caplog.at_level(logging.WARNING, logger="geomeval"):
        for index in range(600):
            cache.put(f"key{index}", "x" * 2000, "m")
        cache.flush()
    full = [record.getMessage() for record in caplog.records if "no space left" in record.getMessage()]
    assert len(full) == 1 and f"holding {small_disk / 'cache'} (" in full[0], caplog.text
    assert cache.get("kept") == "an answer"  # what was written before stays readable
    cache.close()


def test_what_counts_as_a_full_disk() -> None:
    import errno
    import sqlite3

    assert is_disk_full(OSError(errno.ENOSPC, "No space left on device"))
    assert is_disk_full(OSError("Error writing bytes to file. Detail: [errno 28] No space left on device"))
    assert is_disk_full(sqlite3.OperationalError("database or disk is full"))
    assert not is_disk_full(OSError(errno.EACCES, "Permission denied"))
    assert not is_disk_full(sqlite3.OperationalError("database is locked"))
    wrapped = disk_full_error(OSError(errno.ENOSPC, "No space left on device"), "/data/out", 5000)
    assert isinstance(wrapped, DiskFull) and wrapped.errno == errno.ENOSPC
    assert str(wrapped).startswith("no space left on the disk holding /data/out (") and "at least 4.9 KiB" in str(wrapped)
    other = OSError(errno.EACCES, "Permission denied")
    assert disk_full_error(other, "/data/out") is other

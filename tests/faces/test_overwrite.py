"""`--overwrite` removes exactly the files geomeval wrote, never the user's (issue 37, point 2):
the build's marker lists the files it wrote; a folder holding anything else is refused with one
line naming it, and left as it was; `publish --data X --out X` is refused before anything is
removed. Also: temporary folders of killed builds go at the next build of the same --out
(point 7), and only those geomeval names as its own."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.engines.hfdata import BUILD_MARKER, TEMPORARY_MARK, marker_files

ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
SAMPLE = Path(__file__).resolve().parents[2] / "src" / "geomeval" / "benchmarks" / "geolaux" / "sample"


def geomeval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geomeval", *args], capture_output=True, text=True, env=ENV,
                          timeout=600)


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 2 and "Traceback" not in said, said
    assert said.startswith("error: "), said
    return said


@pytest.fixture(scope="module")
def first_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CLI build of the GeoLaux sample, copied by each test that changes it."""
    out = tmp_path_factory.mktemp("first") / "built"
    done = geomeval("build", "geolaux", "--raw", str(SAMPLE), "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def copy_of(first_build: Path, tmp_path: Path) -> Path:
    out = tmp_path / "built"
    shutil.copytree(first_build, out)
    return out


def test_the_marker_lists_every_file_the_build_wrote(first_build: Path) -> None:
    listed = json.loads((first_build / BUILD_MARKER).read_text(encoding="utf-8"))["files"]
    on_disk = sorted(name for name in tree(first_build) if name != BUILD_MARKER)
    assert listed == on_disk  # the card, the shards and the CLI's build_report.json
    assert "build_report.json" in listed and "README.md" in listed
    assert any(name.startswith("data/") and name.endswith(".parquet") for name in listed)


def test_a_normal_overwrite_replaces_the_build(first_build: Path, tmp_path: Path) -> None:
    out = copy_of(first_build, tmp_path)
    (out / "data" / next(p.name for p in (out / "data").iterdir())).write_bytes(b"stale")
    done = geomeval("build", "geolaux", "--raw", str(SAMPLE), "--out", str(out), "--overwrite")
    assert done.returncode == 0, done.stderr
    again, first = tree(out), tree(first_build)
    assert again.pop("build_report.json") != first.pop("build_report.json")  # it names its own --out
    assert again == first  # the same build again, the stale shard replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["built"]  # no temporary left beside it


@pytest.mark.parametrize("added", [["notes.txt"], ["data/my-analysis.csv"], ["mine/"], ["notes.txt", "data/x.csv"]])
def test_user_files_added_to_a_build_are_refused_and_kept(first_build: Path, tmp_path: Path, added: list[str]) -> None:
    out = copy_of(first_build, tmp_path)
    for name in added:
        if name.endswith("/"):
            (out / name).mkdir()
        else:
            (out / name).write_text("the user's", encoding="utf-8")
    before = tree(out)
    said = one_error_line(geomeval("build", "geolaux", "--raw", str(SAMPLE), "--out", str(out), "--overwrite"))
    assert "did not write" in said
    for name in added:
        assert name in said  # named
    assert tree(out) == before and all((out / name).exists() for name in added)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["built"]


def test_a_raw_release_kept_inside_the_build_is_never_deleted(first_build: Path, tmp_path: Path) -> None:
    out = copy_of(first_build, tmp_path)
    shutil.copytree(SAMPLE, out / "raw")
    before = tree(out)
    # rebuilt from the release beside it: the release's files are named, all kept
    said = one_error_line(geomeval("build", "geolaux", "--raw", str(SAMPLE), "--out", str(out), "--overwrite"))
    assert "raw/" in said and "did not write" in said
    # rebuilt from the release inside it: refused up front, as its own input
    said = one_error_line(geomeval("build", "geolaux", "--raw", str(out / "raw"), "--out", str(out), "--overwrite"))
    assert "lies inside --out" in said and "its own input" in said
    assert tree(out) == before
    assert len([p for p in (out / "raw").rglob("*") if p.is_file()]) == len([p for p in SAMPLE.rglob("*") if p.is_file()])


def test_publish_into_its_own_data_folder_is_refused_up_front(first_build: Path, tmp_path: Path) -> None:
    built = copy_of(first_build, tmp_path)
    raw = tmp_path / "raw"
    shutil.copytree(SAMPLE, raw)
    for data in (built, raw):
        before = tree(data)
        said = one_error_line(geomeval("publish", "geolaux", "--data", str(data), "--out", str(data), "--overwrite"))
        assert said == f"error: --data {data} is --out {data}: writing --out would replace its own input; choose another --out"
        assert tree(data) == before


@pytest.mark.slow
def test_publish_overwrite_removes_only_what_publish_wrote(first_build: Path, tmp_path: Path) -> None:
    staged = tmp_path / "hub"
    for source in (str(first_build), str(SAMPLE)):  # from a built folder, from a raw release
        done = geomeval("publish", "geolaux", "--data", source, "--out", str(staged), "--overwrite")
        assert done.returncode == 0, done.stderr
        assert marker_files(staged) == set(tree(staged)) | {TEMPORARY_MARK}
    (staged / "data" / "notes.md").write_text("the user's", encoding="utf-8")
    before = tree(staged)
    said = one_error_line(geomeval("publish", "geolaux", "--data", str(first_build), "--out", str(staged),
                                   "--overwrite"))
    assert "data/notes.md" in said and tree(staged) == before


def test_a_build_from_before_the_list_is_replaced_by_its_layout_only(first_build: Path, tmp_path: Path) -> None:
    """A marker of one line of text (before it listed files) stands for the card, the shards
    and build_report.json: replaceable, but nothing else in the folder is removed."""
    out = copy_of(first_build, tmp_path)
    (out / BUILD_MARKER).write_text("written by geomeval build; --overwrite may replace this folder\n",
                                    encoding="utf-8")
    get_benchmark("geolaux").build(str(SAMPLE), str(out), overwrite=True)
    assert "files" in json.loads((out / BUILD_MARKER).read_text(encoding="utf-8"))
    (out / BUILD_MARKER).write_text("written by geomeval build\n", encoding="utf-8")
    (out / "data" / "keep.txt").write_text("the user's", encoding="utf-8")
    with pytest.raises(FileExistsError, match=r"did not write \(data/keep\.txt\)"):
        get_benchmark("geolaux").build(str(SAMPLE), str(out), overwrite=True)
    assert (out / "data" / "keep.txt").read_text(encoding="utf-8") == "the user's"


def test_a_file_added_while_the_build_runs_stops_the_swap(first_build: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Checked again just before the swap: the new build is dropped, the old one and the file stay."""
    import geomeval.engines.hfdata as hfdata

    out = copy_of(first_build, tmp_path)
    before = tree(out)
    real = hfdata._write_splits

    def write_and_meddle(*args: object, **kwargs: object) -> object:
        (out / "late.txt").write_text("added during the build", encoding="utf-8")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(hfdata, "_write_splits", write_and_meddle)
    with pytest.raises(FileExistsError, match=r"late\.txt"):
        get_benchmark("geolaux").build(str(SAMPLE), str(out), overwrite=True)
    assert tree(out) == {**before, "late.txt": b"added during the build"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["built"]


# --------------------------------------------------------------------------- killed builds


KILLED_BUILD = """
import sys, time
import geomeval.engines.hfdata as hfdata

def stall(*args, **kwargs):
    print("building", flush=True)
    time.sleep(600)

hfdata._write_splits = stall
from geomeval.benchmarks import get_benchmark
get_benchmark("geolaux").build(sys.argv[1], sys.argv[2], overwrite=True)
"""


def test_the_temporaries_of_a_killed_build_go_at_the_next_build(tmp_path: Path) -> None:
    out = tmp_path / "built"
    killed = subprocess.Popen([sys.executable, "-c", KILLED_BUILD, str(SAMPLE), str(out)], stdout=subprocess.PIPE,
                              text=True, env=ENV)
    assert killed.stdout is not None and killed.stdout.readline().strip() == "building"
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    left = [p for p in tmp_path.iterdir() if p.name != "built"]
    assert [p.name.startswith(".built.geomeval-tmp-") for p in left] == [True]  # the killed build's
    # folders that are not geomeval's own temporaries, or whose process still runs, stay
    lookalike = tmp_path / ".built.geomeval-tmp-mine"
    lookalike.mkdir()
    (lookalike / "data.csv").write_text("the user's", encoding="utf-8")
    running = tmp_path / ".built.geomeval-tmp-running"
    running.mkdir()
    (running / TEMPORARY_MARK).write_text(f"{os.getpid()}\n", encoding="utf-8")
    other = tmp_path / ".other.geomeval-tmp-x"
    other.mkdir()
    (other / TEMPORARY_MARK).write_text(f"{killed.pid}\n", encoding="utf-8")

    get_benchmark("geolaux").build(str(SAMPLE), str(out))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["built", lookalike.name, running.name, other.name])
    assert (lookalike / "data.csv").read_text(encoding="utf-8") == "the user's"


def test_a_previous_build_left_aside_by_a_kill_loses_only_its_listed_files(first_build: Path, tmp_path: Path) -> None:
    """Killed between the two renames, the old build waits beside --out as `.<name>.geomeval-old-*`:
    the next build removes its listed files, and keeps anything else in it."""
    from geomeval.engines.hfdata import _temporary

    out = tmp_path / "built"
    old = _temporary(out, "old")
    (old / TEMPORARY_MARK).unlink()
    shutil.copytree(first_build, old, dirs_exist_ok=True)
    (old / TEMPORARY_MARK).write_text("999999999\n", encoding="utf-8")  # no such process
    (old / "late.txt").write_text("the user's", encoding="utf-8")
    get_benchmark("geolaux").build(str(SAMPLE), str(out))
    assert sorted(p.name for p in old.iterdir()) == ["late.txt"]

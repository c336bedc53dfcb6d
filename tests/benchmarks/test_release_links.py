"""A release cannot reach outside itself through a symbolic link, a file's or a folder's, at
any depth (issue 37, point 5): `geomeval build` refuses it with one line naming the item, the
field and the link, and writes nothing. Links that stay inside the release, and a release
named through a link of the user's own, still build."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.benchmarks.base import DataError

SAMPLES = Path(__file__).resolve().parents[2] / "src" / "geomeval" / "benchmarks"
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}

# benchmark, its sample's image folder the link replaces, an image of that folder an item reads
CASES = [
    ("geolaux", "original_images", "en_1.png"),
    ("geoeval", "images", None),
    ("ggbench", "Q&A_image", "1_1.png"),
]


def build(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "geomeval", "build", *args], capture_output=True, text=True,
                          env=ENV, timeout=600)


def release_copy(tmp_path: Path, benchmark: str) -> Path:
    release = tmp_path / "release"
    shutil.copytree(SAMPLES / benchmark / "sample", release)
    return release


def link_folder_outside(tmp_path: Path, release: Path, folder: str) -> Path:
    """The release's image folder moved out of it, a link to it left in its place."""
    outside = tmp_path / "elsewhere" / folder
    outside.parent.mkdir()
    shutil.move(str(release / folder), outside)
    (release / folder).symlink_to(outside, target_is_directory=True)
    return outside


@pytest.mark.slow
@pytest.mark.parametrize(("benchmark", "folder", "_image"), CASES)
def test_a_linked_image_folder_leading_out_of_the_release_stops_the_build(
    tmp_path: Path, benchmark: str, folder: str, _image: str | None
) -> None:
    release = release_copy(tmp_path, benchmark)
    link_folder_outside(tmp_path, release, folder)
    out = tmp_path / "built"
    done = build(benchmark, "--raw", str(release), "--out", str(out))
    assert done.returncode == 2, done.stdout + done.stderr
    said = " ".join((done.stdout + done.stderr).split())
    assert "Traceback" not in said
    assert "error: item '" in said and "field '" in said
    assert "leads outside the release folder through the symbolic link" in said
    assert folder in said  # names the link
    assert not out.exists()


@pytest.mark.parametrize(("benchmark", "folder", "_image"), CASES)
def test_a_linked_image_folder_is_refused_by_the_reader_itself(
    tmp_path: Path, benchmark: str, folder: str, _image: str | None
) -> None:
    """Called as a library, not through the CLI: the same refusal, and the outside folder untouched."""
    release = release_copy(tmp_path, benchmark)
    outside = link_folder_outside(tmp_path, release, folder)
    bench = get_benchmark(benchmark)
    with pytest.raises(DataError, match=r"outside the release folder through the symbolic link"):
        bench.build(str(release), str(tmp_path / "out"))
    assert outside.is_dir()  # nothing of the user's moved or removed


@pytest.mark.parametrize(("benchmark", "folder", "image"), [case for case in CASES if case[2]])
def test_a_linked_image_file_is_refused_as_before(tmp_path: Path, benchmark: str, folder: str, image: str) -> None:
    release = release_copy(tmp_path, benchmark)
    secret = tmp_path / "secret.png"
    shutil.copy(release / folder / image, secret)
    (release / folder / image).unlink()
    (release / folder / image).symlink_to(secret)
    with pytest.raises(DataError, match=rf"field '\w+'.*{image}.*symbolic link .*{image}"):
        get_benchmark(benchmark).build(str(release), str(tmp_path / "out"))


def test_a_link_deeper_down_is_refused_too(tmp_path: Path) -> None:
    """GGBench names images by path: a folder linked two levels below the release's own."""
    release = release_copy(tmp_path, "ggbench")
    nested = release / "Q&A_image"
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    # the images one level down, in a real folder whose single subfolder is a link out
    shutil.move(str(nested), outside / "Q&A_image")
    nested.mkdir()
    (nested / "more").symlink_to(outside / "Q&A_image", target_is_directory=True)
    text = (release / "GGBench_dataset.json").read_text(encoding="utf-8")
    (release / "GGBench_dataset.json").write_text(text.replace("/Q&A_image/", "/Q&A_image/more/"), encoding="utf-8")
    with pytest.raises(DataError, match=r"symbolic link \S*Q&A_image/more "):
        get_benchmark("ggbench").build(str(release), str(tmp_path / "out"))


@pytest.mark.parametrize(("benchmark", "folder", "_image"), CASES)
def test_links_inside_the_release_and_a_linked_release_still_build(
    tmp_path: Path, benchmark: str, folder: str, _image: str | None
) -> None:
    release = release_copy(tmp_path, benchmark)
    # the image folder kept inside the release under another name, linked to by its own name
    shutil.move(str(release / folder), release / "kept")
    (release / folder).symlink_to(release / "kept", target_is_directory=True)
    # and the whole release named through a link of the user's
    named = tmp_path / "my-release"
    named.symlink_to(release, target_is_directory=True)
    summary = get_benchmark(benchmark).build(str(named), str(tmp_path / "out"))
    assert summary["skipped"] == []
    assert (tmp_path / "out" / "README.md").is_file()


def test_a_release_file_linked_from_outside_is_refused_naming_it(tmp_path: Path) -> None:
    """The release's own JSON, reached through a link out of the folder --data names."""
    release = release_copy(tmp_path, "geolaux")
    outside = tmp_path / "elsewhere.json"
    shutil.move(str(release / "GeoLaux_sample.json"), outside)
    (release / "GeoLaux_sample.json").symlink_to(outside)
    with pytest.raises(DataError, match=r"item '\(file\)', field 'GeoLaux_sample\.json': leads outside the release "
                                        r"folder through the symbolic link"):
        get_benchmark("geolaux").build(str(release), str(tmp_path / "out"))
    # named by the user themselves, the link is theirs: the release builds from it
    summary = get_benchmark("geolaux").build(str(release / "GeoLaux_sample.json"), str(tmp_path / "out2"))
    assert summary["skipped"] == [] and summary["splits"]["test"]["num_examples"] == 10

"""A sample never goes out under a benchmark's name: `geomeval publish` without `--data`
stages geomeval's embedded sample for an id that says sample, with a card that says it is not
the release and carries the sample's own license; a benchmark's own id is refused, at staging
and at push. Every staged card's Loading section is the real line for each source."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from geomeval.core.errors import UsageError
from geomeval.publishing.hub_metadata import metadata
from geomeval.publishing.publish import PublishError, push, stage


@pytest.fixture(scope="module")
def ggbench_sample(tmp_path_factory: pytest.TempPathFactory):
    return stage("ggbench", tmp_path_factory.mktemp("sample") / "ggbench")


def _front(text: str) -> dict:
    return yaml.safe_load(text.split("---\n", 2)[1])


def test_the_sample_is_staged_for_an_id_that_says_sample(ggbench_sample) -> None:
    assert ggbench_sample.from_sample and ggbench_sample.repo_id == "geomeval/GGBench-sample"
    text = (ggbench_sample.folder / "README.md").read_text(encoding="utf-8")
    front = _front(text)
    # its own license, not the release's `unknown`
    assert front["license"] == "apache-2.0" and metadata("ggbench").license == "unknown"
    assert "sample" in front["tags"] and "not the GGBench release" in front["pretty_name"]
    body = text.split("---\n", 2)[2]
    assert body.lstrip().startswith("# GGBench: geomeval's sample, not the release")
    assert "**This repository is not GGBench.**" in body and "It holds 15 problems" in body
    # the release's terms are kept, and said not to cover the sample
    assert metadata("ggbench").license_reason in body
    assert "This sample: `apache-2.0`" in body
    assert "typed build of the release" not in body
    # the real loading line for each source
    assert 'load_dataset("geomeval/GGBench-sample", split="test")' in body
    assert "git clone https://huggingface.co/datasets/opendatalab-raiser/GGBench" in body
    assert "geomeval build ggbench --raw GGBench --out built/ggbench" in body
    assert 'load_dataset("built/ggbench", split="test")' in body
    assert "path/to/built" not in body
    assert any("says sample, not the release" in c for c in ggbench_sample.checks)


@pytest.mark.parametrize("repo_id", ["geomeval/GGBench", "someone/ggbench", "geomeval/GGBench-full"])
def test_the_sample_under_a_benchmark_name_is_refused(repo_id: str, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not say sample"):
        stage("ggbench", tmp_path / "out", repo_id=repo_id)
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_push_refuses_a_sample_under_a_benchmark_name(ggbench_sample, monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    calls: list[str] = []

    class Api:
        def __init__(self, token=None):
            calls.append("init")

        def create_repo(self, *args, **kwargs):
            calls.append("create")

        def upload_folder(self, **kwargs):
            calls.append("upload")
            return "url"

    monkeypatch.setattr(huggingface_hub, "HfApi", Api)
    with pytest.raises(UsageError, match="does not say sample"):
        push(ggbench_sample, "geomeval/GGBench", "hf_token")
    assert calls == []
    assert push(ggbench_sample, "geomeval/GGBench-sample", "hf_token") == "url"


def test_cli_refuses_the_sample_under_the_benchmark_id_in_one_line(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "geomeval.cli", "publish", "ggbench", "--out", str(tmp_path / "g"),
                             "--repo-id", "geomeval/GGBench", "--dry-run"], capture_output=True, text=True,
                            timeout=300, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert result.returncode == 2, result.stdout + result.stderr
    said = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    assert len(said) == 1 and "geomeval/GGBench-sample" in said[0], said
    assert not (tmp_path / "g").exists()


def test_a_release_is_not_published_under_a_sample_id(tmp_path: Path) -> None:
    from geomeval.benchmarks.me2 import data

    built = tmp_path / "built"
    data.build(str(data.sample_path()), str(built))
    with pytest.raises(UsageError, match="says sample"):
        stage("me2", tmp_path / "out", data=built, repo_id="geomeval/ME2-sample")


def test_a_release_card_loads_the_repo_it_is_staged_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from geomeval.benchmarks.me2 import data

    built = tmp_path / "built"
    data.build(str(data.sample_path()), str(built))
    staged = stage("me2", tmp_path / "out", data=built, repo_id="someone/ME2")
    assert not staged.from_sample and staged.repo_id == "someone/ME2"
    text = (staged.folder / "README.md").read_text(encoding="utf-8")
    assert _front(text)["license"] == "unknown"  # the release's own terms
    assert 'load_dataset("someone/ME2", split="test")' in text
    assert "geomeval build me2 --raw jungypark/ME2 --out built/me2" in text and "gated" in text
    assert "not the release" not in text
    # a folder staged for one id is not pushed to another (its card names the first)
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "HfApi", lambda token=None: pytest.fail("no Hub call"))
    with pytest.raises(PublishError, match="staged for someone/ME2"):
        push(staged, "someone/other", "hf_token", redistribution_granted=True)


def test_card_faces_show_the_real_loading_line_for_each_source() -> None:
    cards = Path(__file__).resolve().parents[2] / "cards"
    me2 = (cards / "me2" / "README.md").read_text(encoding="utf-8")
    assert "geomeval build me2 --raw jungypark/ME2 --out built/me2" in me2 and "gated" in me2
    ggbench = (cards / "ggbench" / "README.md").read_text(encoding="utf-8")
    assert "git clone https://huggingface.co/datasets/opendatalab-raiser/GGBench" in ggbench
    geolaux = (cards / "geolaux" / "README.md").read_text(encoding="utf-8")
    assert 'ds = load_dataset("geomeval/GeoLaux", split="test")' in geolaux  # MIT: a Hub build may exist
    for name in ("capgeo", "capgeo_bench", "geoeval", "geolaux", "ggbench", "me2"):
        text = (cards / name / "README.md").read_text(encoding="utf-8")
        meta = metadata(name)
        assert f"published only as `{meta.repo_id}-sample`, never under" in text, name
        if not meta.redistributable:  # no Hub copy of the release is offered under its id
            assert f'load_dataset("{meta.repo_id}"' not in text, name

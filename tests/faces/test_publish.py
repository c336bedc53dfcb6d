"""`geomeval publish` for datasets: the dry run writes the repository folder the Hub would hold,
its card passes the Hub's metadata rules offline, and `load_dataset` on it gives back the
source's Features and rows; pushing goes through huggingface_hub only with a repo id and a
token, and a release whose terms do not grant redistribution is not pushed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import ClassVar

import pytest
import yaml
from typer.testing import CliRunner

from geomeval.cli import app
from geomeval.engines.hfdata import BUILD_MARKER
from geomeval.publishing.hub_metadata import METADATA, SourceTerms, metadata, size_category
from geomeval.publishing.publish import (
    PublishError,
    Staged,
    push,
    stage,
    validate_dataset,
    validate_dataset_card,
)

REPO = Path(__file__).resolve().parents[2]
EXPECTED_CONFIGS = {"geoeval": {"geoeval_2000", "geoeval_backward", "geoeval_aug", "geoeval_hard"}}


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Staged]:
    root = tmp_path_factory.mktemp("publish")
    return {name: stage(name, root / name) for name in METADATA}


@pytest.mark.parametrize("name", list(METADATA))
def test_dry_run_writes_the_hub_folder_and_it_loads_back_identically(name: str, staged: dict[str, Staged]) -> None:
    result = staged[name]
    assert result.repo_type == "dataset" and result.from_sample
    # what the repo would hold, beside geomeval's record of what it wrote (never pushed)
    assert sorted(p.name for p in result.folder.iterdir()) == [BUILD_MARKER, "README.md", "data"]
    loads = [c for c in result.checks if "load back identical" in c]
    configs = EXPECTED_CONFIGS.get(name, {"default"})
    assert {c.split("/")[0] for c in loads} == configs
    assert all(int(re.search(r": (\d+) rows", c).group(1)) > 0 for c in loads)


@pytest.mark.parametrize("name", list(METADATA))
def test_repo_cards_pass_the_hub_metadata_rules(name: str) -> None:
    """cards/<b>/README.md (the card of the full release) holds every field the Hub shows."""
    readme = REPO / "cards" / name / "README.md"
    assert validate_dataset_card(readme, name)
    front = yaml.safe_load(readme.read_text(encoding="utf-8").split("---\n", 2)[1])
    meta = metadata(name)
    assert front["license"] == meta.license
    assert front["size_categories"] == [size_category(meta.release_rows)]
    assert front["pretty_name"] == meta.pretty_name and front["language"] and front["tags"]
    text = readme.read_text(encoding="utf-8")
    for terms in meta.sources:
        assert f"- {terms.name}: `{terms.license}`, stated at <{terms.where}>" in text


def test_licenses_are_the_releases_own() -> None:
    """What the official releases state, and share-alike where a source carries it."""
    assert metadata("geolaux").license == "mit"
    assert metadata("geoeval").license == "other" and "academic" in metadata("geoeval").license_reason
    capgeo = {s.name.split(" ")[0]: s for s in metadata("capgeo").sources}
    assert capgeo["MathVista"].license == "cc-by-sa-4.0" and "share-alike" in capgeo["MathVista"].note
    assert "share-alike" in metadata("capgeo").license_reason
    for name in ("ggbench", "me2", "capgeo_bench"):  # none published: said so, with the reason
        meta = metadata(name)
        assert meta.license == "unknown" and re.search(r"no license|states no license", meta.license_reason)
        assert not meta.redistributable


def test_lmms_eval_yamls_read_the_authors_data_or_a_local_release() -> None:
    """The tasks read the authors' own Hub dataset where they publish one and no Hub id
    otherwise (a local release): never an id the authors did not publish, so never one that
    could only ever hold geomeval's sample."""
    from geomeval.integrations.lmms_eval import BENCHMARKS

    ids = {spec.name: spec.hub_dataset for spec in BENCHMARKS}
    assert ids == {name: meta.authors_hub or "" for name, meta in METADATA.items()}
    assert ids["me2"] == "jungypark/ME2" and ids["ggbench"] == "opendatalab-raiser/GGBench"
    assert ids["geolaux"] == ids["geoeval"] == ids["capgeo"] == ids["capgeo_bench"] == ""
    for spec in BENCHMARKS:
        folder = REPO / "src" / "geomeval" / "lmms_tasks" / spec.task_folder
        template = (folder / spec.template).read_text(encoding="utf-8")
        if spec.hub_dataset:
            assert re.search(rf"^dataset_path: {re.escape(spec.hub_dataset)}\s*$", template, re.M), spec.name
        else:
            assert not re.search(r"^dataset_path:", template, re.M), spec.name


def test_a_card_the_hub_would_refuse_is_refused(staged: dict[str, Staged], tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    text = (staged["geolaux"].folder / "README.md").read_text(encoding="utf-8")  # the sample's card
    readme.write_text(text.replace("license: apache-2.0\n", "license: Apache License\n"), encoding="utf-8")
    with pytest.raises(PublishError, match="not a Hub license id"):
        validate_dataset_card(readme, "geolaux", 10, sample=True)
    readme.write_text(text, encoding="utf-8")
    with pytest.raises(PublishError, match="size_categories"):
        validate_dataset_card(readme, "geolaux", 5000, sample=True)  # the card says n<1K
    with pytest.raises(PublishError, match="not the declared 'mit'"):
        validate_dataset_card(readme, "geolaux", 10)  # the sample's license is not the release's
    readme.write_text(text.replace("```bibtex", "```text"), encoding="utf-8")
    with pytest.raises(PublishError, match="BibTeX"):
        validate_dataset_card(readme, "geolaux", 10, sample=True)


def test_changed_rows_or_undeclared_shards_fail_validation(staged: dict[str, Staged], tmp_path: Path) -> None:
    from geomeval.publishing.publish import expected_datasets

    folder = tmp_path / "ggbench"
    shutil.copytree(staged["ggbench"].folder, folder)
    expected = expected_datasets("ggbench")
    source = expected[None]["test"]
    expected[None]["test"] = source.select(range(len(source) - 1))
    with pytest.raises(PublishError, match="rows differ"):
        validate_dataset(folder, "ggbench", expected, sample=True)
    shard = next(folder.glob("data/*.parquet"))
    shutil.copy2(shard, folder / "data" / "stray.parquet")
    with pytest.raises(PublishError, match="shards no config declares"):
        validate_dataset(folder, "ggbench", expected_datasets("ggbench"), sample=True)


@pytest.mark.slow
def test_a_built_folder_publishes_as_built(tmp_path: Path) -> None:
    from geomeval.benchmarks.geoeval import data

    built = tmp_path / "built"
    data.build(str(data.sample_path()), str(built))
    result = stage("geoeval", tmp_path / "out", data=built)
    assert not result.from_sample
    assert sum("load back identical" in c for c in result.checks) == 4


class _Recorder:
    calls: ClassVar[list[tuple[str, tuple, dict]]] = []

    def __init__(self, token: str | None = None):
        self.calls.append(("init", (token,), {}))

    def create_repo(self, *args, **kwargs):
        self.calls.append(("create_repo", args, kwargs))

    def upload_folder(self, **kwargs):
        self.calls.append(("upload_folder", (), kwargs))
        return "https://huggingface.co/datasets/x/commit/1"


def test_push_uploads_the_validated_folder(staged: dict[str, Staged], monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    _Recorder.calls = []
    monkeypatch.setattr(huggingface_hub, "HfApi", _Recorder)
    url = push(staged["geolaux"], "geomeval/GeoLaux-sample", "hf_token")
    assert url.endswith("/commit/1")
    kinds = [c[0] for c in _Recorder.calls]
    assert kinds == ["init", "create_repo", "upload_folder"]
    assert _Recorder.calls[0][1] == ("hf_token",)
    assert _Recorder.calls[1][2]["repo_type"] == "dataset"
    upload = _Recorder.calls[2][2]
    assert upload["folder_path"] == str(staged["geolaux"].folder) and upload["repo_id"] == "geomeval/GeoLaux-sample"
    assert upload["ignore_patterns"] == [BUILD_MARKER]  # geomeval's record of its files is never pushed


def test_a_release_without_redistribution_terms_is_not_pushed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    _Recorder.calls = []
    monkeypatch.setattr(huggingface_hub, "HfApi", _Recorder)
    release = Staged("dataset", "geoeval", tmp_path, "geomeval/GeoEval", "dataset", from_sample=False)
    with pytest.raises(PublishError, match="do not grant redistribution"):
        push(release, "geomeval/GeoEval", "hf_token")
    assert _Recorder.calls == []
    push(release, "geomeval/GeoEval", "hf_token", redistribution_granted=True)
    assert [c[0] for c in _Recorder.calls] == ["init", "create_repo", "upload_folder"]


@pytest.mark.slow
def test_cli_dry_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_TOKEN", raising=False)
    result = CliRunner().invoke(app, ["publish", "me2", "--out", str(tmp_path / "me2")])
    assert result.exit_code == 0, result.output
    assert "ok  default/test: 15 rows" in result.output
    assert "dry run:" in result.output and "geomeval/ME2-sample" in result.output
    again = CliRunner().invoke(app, ["publish", "me2", "--out", str(tmp_path / "me2")])
    assert again.exit_code != 0  # a non-empty --out without --overwrite
    assert CliRunner().invoke(app, ["publish", "me2", "--out", str(tmp_path / "me2"), "--overwrite"]).exit_code == 0


def test_source_terms_render_in_the_license_section() -> None:
    from geomeval.engines.hfdata import card_sections

    body = card_sections(metadata("capgeo"), "# CapGeo\n")
    assert body.startswith("# CapGeo\n\n## License\n")
    assert body.count("```bibtex") == len(metadata("capgeo").citations)
    assert card_sections(metadata("me2"), "x\n```bibtex\n@x{}\n```\n").count("```bibtex") == 1  # the body's own
    assert isinstance(metadata("capgeo").sources[0], SourceTerms)


@pytest.mark.slow
def test_overwrite_never_empties_a_folder_publish_did_not_stage(tmp_path: Path) -> None:
    """`--overwrite` replaces a folder a publish staged; a folder holding anything else (the
    user's project, a built dataset beside notes) is refused and left as it was, whichever
    face is staged and whether the data is a raw release or a built folder."""
    from geomeval.benchmarks.me2 import data as me2_data
    from geomeval.publishing.publish import stage_dataset, stage_metric

    built = tmp_path / "built"
    me2_data.build(str(me2_data.sample_path()), str(built))
    for stage_into in (
        lambda out: stage_dataset("me2", out, overwrite=True),  # from the embedded sample
        lambda out: stage_dataset("me2", out, data=built, overwrite=True),  # from a built folder
        lambda out: stage_metric("me2_accuracy", out, overwrite=True, wheel=None),
    ):
        mine = tmp_path / f"mine-{len(list(tmp_path.iterdir()))}"
        mine.mkdir()
        (mine / "notes.txt").write_text("keep me", encoding="utf-8")
        with pytest.raises(FileExistsError, match=r"notes\.txt"):
            stage_into(mine)
        assert (mine / "notes.txt").read_text(encoding="utf-8") == "keep me"
    staged = tmp_path / "staged"
    stage_dataset("me2", staged, data=built)
    assert stage_dataset("me2", staged, data=built, overwrite=True).folder == staged  # its own folder: replaced

"""`geomeval publish` as a user meets it (issue 39, point 7): a validation failure is one line
and exit 2, staging is atomic, --repo-id without a token is an error naming the fix, the token
`hf auth login` stored is used, and --private reaches the Hub call. Offline: the Hub client is
replaced at its boundary (huggingface_hub.HfApi, huggingface_hub.get_token)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from geomeval.cli import app
from geomeval.publishing.publish import PublishError, stage_dataset


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k != "HF_TOKEN"}
    return subprocess.run([sys.executable, "-m", "geomeval.cli", *args], capture_output=True, text=True,
                          timeout=300, env={**clean, "HF_HUB_OFFLINE": "1", **(env or {})})


@pytest.fixture(scope="module")
def built_me2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from geomeval.benchmarks.me2 import data as me2_data

    folder = tmp_path_factory.mktemp("me2") / "built"
    me2_data.build(str(me2_data.sample_path()), str(folder))
    return folder


def broken_copy(built: Path, tmp_path: Path) -> Path:
    """The built folder with a card the Hub would refuse (a license that is not a Hub id)."""
    import shutil

    copy = tmp_path / "broken"
    shutil.copytree(built, copy)
    card = copy / "README.md"
    card.write_text(card.read_text(encoding="utf-8").replace("license: unknown", "license: not-a-license", 1),
                    encoding="utf-8")
    return copy


def leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if ".geomeval-" in p.name)


@pytest.mark.slow
def test_a_validation_failure_is_one_line_exit_2_and_leaves_nothing_staged(built_me2: Path, tmp_path: Path) -> None:
    broken = broken_copy(built_me2, tmp_path)
    out = tmp_path / "site" / "me2"
    done = cli("publish", "me2", "--data", str(broken), "--out", str(out))
    assert done.returncode == 2, done.stderr
    # datasets' progress bars aside (validation loads the folder back), the error is one line
    lines = [line for line in done.stderr.splitlines() if line.strip() and "examples/s]" not in line]
    assert "Traceback" not in done.stderr and len(lines) == 1 and lines[0].startswith("error:")
    assert "not-a-license" in lines[0] and str(out / "README.md") in lines[0]
    assert not out.exists() and leftovers(out.parent) == []


@pytest.mark.slow
def test_a_failed_restage_keeps_the_previous_staging_whole(built_me2: Path, tmp_path: Path) -> None:
    out = tmp_path / "me2"
    first = stage_dataset("me2", out, data=built_me2)
    before = sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))
    card = (out / "README.md").read_text(encoding="utf-8")
    with pytest.raises(PublishError, match="not-a-license") as raised:
        stage_dataset("me2", out, data=broken_copy(built_me2, tmp_path), overwrite=True)
    assert str(out / "README.md") in str(raised.value) and ".geomeval-tmp" not in str(raised.value)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == before
    assert (out / "README.md").read_text(encoding="utf-8") == card and first.folder == out
    assert leftovers(tmp_path) == []
    again = stage_dataset("me2", out, data=built_me2, overwrite=True)  # a valid restage replaces it
    assert again.folder == out and any("load back identical" in c for c in again.checks)
    assert all(".geomeval-tmp" not in c for c in again.checks) and leftovers(tmp_path) == []


@pytest.mark.slow
def test_repo_id_without_a_token_is_an_error_with_the_fix(tmp_path: Path) -> None:
    out = tmp_path / "me2"
    done = cli("publish", "me2", "--out", str(out), "--repo-id", "someone/me2-sample",
               env={"HF_HOME": str(tmp_path / "hf-home")})  # no stored token there
    assert done.returncode == 2 and "Traceback" not in done.stderr
    said = " ".join(done.stderr.split())
    assert "no Hugging Face token" in said and "hf auth login" in said and "--dry-run" in said
    assert not out.exists()  # refused before anything was staged
    staged = cli("publish", "me2", "--out", str(out), "--repo-id", "someone/me2-sample", "--dry-run",
                 env={"HF_HOME": str(tmp_path / "hf-home")})
    assert staged.returncode == 0, staged.stderr
    assert "dry run:" in staged.stdout and "someone/me2-sample" in staged.stdout


class Hub:
    calls: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def __init__(self, token: str | None = None) -> None:
        self.calls.append(("init", {"token": token}))

    def create_repo(self, repo_id: str, **kwargs: Any) -> None:
        self.calls.append(("create_repo", {"repo_id": repo_id, **kwargs}))

    def upload_folder(self, **kwargs: Any) -> str:
        self.calls.append(("upload_folder", kwargs))
        return "https://huggingface.co/datasets/someone/me2-sample/commit/1"


@pytest.mark.slow
def test_the_stored_token_is_used_and_private_is_passed_through(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    Hub.calls = []
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr(huggingface_hub, "HfApi", Hub)
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: "hf_stored_by_login")
    result = CliRunner().invoke(app, ["publish", "me2", "--out", str(tmp_path / "me2"), "--repo-id",
                                      "someone/me2-sample", "--private"])
    assert result.exit_code == 0, result.output
    assert "pushed: https://huggingface.co/datasets/someone/me2-sample/commit/1" in result.output
    assert Hub.calls[0] == ("init", {"token": "hf_stored_by_login"})
    create = Hub.calls[1][1]
    assert create["repo_id"] == "someone/me2-sample" and create["private"] is True
    assert Hub.calls[2][1]["folder_path"] == str(tmp_path / "me2")
    Hub.calls = []
    given = CliRunner().invoke(app, ["publish", "me2", "--out", str(tmp_path / "again"), "--repo-id",
                                     "someone/me2-sample", "--token", "hf_given"])
    assert given.exit_code == 0, given.output
    assert Hub.calls[0] == ("init", {"token": "hf_given"}) and Hub.calls[1][1]["private"] is False


def test_a_refused_push_is_one_line_and_keeps_the_staged_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub
    from huggingface_hub.errors import HfHubHTTPError

    class Refusing(Hub):
        def create_repo(self, repo_id: str, **kwargs: Any) -> None:
            refusal = HfHubHTTPError.__new__(HfHubHTTPError)  # as the Hub raises it, without a live response
            Exception.__init__(refusal, "401 Client Error: Unauthorized\nInvalid credentials in Authorization header")
            raise refusal

    monkeypatch.setattr(huggingface_hub, "HfApi", Refusing)
    result = CliRunner().invoke(app, ["publish", "me2", "--out", str(tmp_path / "me2"), "--repo-id",
                                      "someone/me2-sample", "--token", "hf_bad"])
    assert isinstance(result.exception, PublishError)  # the CLI entry point prints it in one line, exit 2
    said = str(result.exception)
    assert "\n" not in said and "401" in said and "run the same command again" in said
    assert (tmp_path / "me2" / "README.md").is_file()

"""run.json names the code however it was installed, every computing library's version, and
the full prompt texts (issue 39, point 5)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import parse_model_spec
from geomeval.run import provenance
from geomeval.run.runner import run

ROOT = Path(__file__).resolve().parents[2]


class FakeDist:
    def __init__(self, direct_url: dict | None, installer: str = "pip") -> None:
        self.version = "0.1.0"
        self._files = {"INSTALLER": installer + "\n"}
        if direct_url is not None:
            self._files["direct_url.json"] = json.dumps(direct_url)

    def read_text(self, name: str) -> str | None:
        return self._files.get(name)


@pytest.mark.parametrize(("direct_url", "expected"), [
    ({"url": "file:///src/geomeval", "dir_info": {"editable": True}}, {"kind": "editable", "url": "file:///src/geomeval"}),
    ({"url": "https://github.com/o/geomeval.git",
      "vcs_info": {"vcs": "git", "commit_id": "a" * 40, "requested_revision": "v0.1.0"}},
     {"kind": "vcs", "commit_id": "a" * 40, "requested_revision": "v0.1.0"}),
    ({"url": "file:///tmp/geomeval-0.1.0-py3-none-any.whl", "archive_info": {"hash": "sha256=ab12"}},
     {"kind": "archive", "archive_hash": "sha256=ab12", "url": "file:///tmp/geomeval-0.1.0-py3-none-any.whl"}),
    ({"url": "file:///home/u/geomeval", "dir_info": {}}, {"kind": "directory", "url": "file:///home/u/geomeval"}),
    (None, {"kind": "index"}),
])
def test_every_install_kind_is_named(monkeypatch: pytest.MonkeyPatch, direct_url: dict | None,
                                     expected: dict) -> None:
    monkeypatch.setattr(metadata, "distribution", lambda name: FakeDist(direct_url))
    found = provenance.install_source()
    assert found["distribution"] == "geomeval" and found["version"] == "0.1.0" and found["installer"] == "pip"
    assert {k: found.get(k) for k in expected} == expected


def test_a_url_with_a_token_is_written_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    direct = {"url": "https://user:ghp_secret@github.com/o/geomeval.git", "vcs_info": {"vcs": "git", "commit_id": "b" * 40}}
    monkeypatch.setattr(metadata, "distribution", lambda name: FakeDist(direct))
    assert "ghp_secret" not in json.dumps(provenance.install_source())


@pytest.mark.slow
@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the git checkout")
def test_a_wheel_built_from_the_checkout_names_its_commit_when_installed(tmp_path: Path) -> None:
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q",
                            str(ROOT), "-w", str(tmp_path / "dist")], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    wheel = next((tmp_path / "dist").glob("geomeval-*.whl"))
    head = subprocess.run(["git", "-C", str(ROOT), "log", "--format=%H"], capture_output=True, text=True,
                          check=True).stdout.split()
    with zipfile.ZipFile(wheel) as archive:
        info = json.loads(archive.read("geomeval/_build_info.json"))
        archive.extractall(tmp_path / "site")
    assert info["commit"] in head[:50]  # HEAD as the build ran (others may commit meanwhile)
    # the wheel's files on the path ahead of the checkout: what a wheel install sees (no .git beside it)
    said = subprocess.run(
        [sys.executable, "-c", "import json; from geomeval.run import provenance as p; assert p.__file__.startswith("
         f"{str(tmp_path / 'site')!r}), p.__file__; print(json.dumps(p.install_source(p.checkout_commit())))"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env={"PYTHONPATH": str(tmp_path / "site"),
                                                                       "PATH": "/usr/bin:/bin"},
    )
    assert said.returncode == 0, said.stderr
    found = json.loads(said.stdout)
    assert found["built_from"]["commit"] == info["commit"] and "checkout" not in found
    assert found["kind"] == "index" and found["version"] == "0.1.0"


def test_run_json_keeps_versions_install_commit_and_the_full_prompts(tmp_path: Path) -> None:
    bench = get_benchmark("geolaux")
    run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=parse_judge_spec("offline"),
        out_dir=tmp_path / "a")
    made = json.loads((tmp_path / "a" / "run.json").read_text())["provenance"]
    versions = made["versions"]
    for library in ("sacrebleu", "rapidfuzz", "scikit-image", "bert-score", "torch", "transformers", "nltk",
                    "math-verify", "sympy"):
        try:
            assert versions[library] == metadata.version(library)
        except metadata.PackageNotFoundError:
            assert library not in versions or versions[library] == "not installed"
    assert made["install"]["distribution"] == "geomeval" and made["install"]["kind"]
    if made["checkout"] is not None:
        assert made["commit"] == made["checkout"]["commit"]
    reference = made["prompt_texts"]
    kept = json.loads((tmp_path / "a" / reference["file"]).read_text())
    assert kept["sha256"] == reference["sha256"] == made["prompt_set_sha256"]
    assert kept["templates"] == {t.name: t.text for t in bench.prompt_templates} and kept["templates"]
    results = json.loads((tmp_path / "a" / "results.json").read_text())
    assert results["versions"] == versions


def test_the_code_s_provenance_taken_as_the_command_starts_is_used_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`geomeval run` starts reading git's commit and the install on a thread as it starts
    (the run's modules load meanwhile): the run's run.json says what that thread read, and a
    later run in the same process reads its own."""
    bench = get_benchmark("geolaux")
    monkeypatch.setattr(provenance, "checkout_commit", lambda: {"commit": "a" * 40, "modified": False})
    provenance.take_code_provenance_early()
    provenance._early[0].result()  # taken (with the checkout above)
    monkeypatch.setattr(provenance, "checkout_commit", lambda: {"commit": "b" * 40, "modified": True})

    def commit_of(name: str) -> tuple[str, dict]:
        run(bench, task="geolaux", model=parse_model_spec("baseline:random"), judge=parse_judge_spec("offline"),
            out_dir=tmp_path / name, limit=2)
        made = json.loads((tmp_path / name / "run.json").read_text())["provenance"]
        assert made["install"]["distribution"] == "geomeval" and made["install"]["kind"]
        assert made["install"].get("checkout") == made["checkout"]
        return made["commit"], made["checkout"]

    assert commit_of("early") == ("a" * 40, {"commit": "a" * 40, "modified": False})
    assert not provenance._early
    assert commit_of("later") == ("b" * 40, {"commit": "b" * 40, "modified": True})


def test_the_install_stamp_answers_until_a_folder_on_the_path_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`geomeval run` reads the install's metadata (install kind, library versions) from a
    stamp beside its bytecode while no folder on the path has changed: a package installed,
    removed or upgraded there is seen at the next run."""
    stamp = tmp_path / "pycache" / "stamp.json"
    monkeypatch.setattr(provenance, "_stamp_path", lambda: stamp)
    monkeypatch.setattr(provenance, "_known_versions", [])
    taken = 0
    real = provenance._installed

    def counted() -> dict:
        nonlocal taken
        taken += 1
        return real()

    monkeypatch.setattr(provenance, "_installed", counted)
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    first = provenance._stamped()
    assert taken == 1 and stamp.exists() and first == real()
    assert provenance._stamped() == first and taken == 1  # from the stamp
    assert provenance.library_versions() == provenance._library_versions()
    (site / "newlib-1.0.dist-info").mkdir()  # an install on the path
    assert provenance._stamped() == first and taken == 2
    assert provenance._stamped() == first and taken == 2
    stamp.write_text("{not json", encoding="utf-8")  # a damaged stamp is taken again
    assert provenance._stamped() == first and taken == 3
    with_checkout = provenance._with_checkout(first, {"commit": "c" * 40, "modified": False})
    assert with_checkout == provenance.install_source({"commit": "c" * 40, "modified": False})

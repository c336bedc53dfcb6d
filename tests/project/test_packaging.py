"""The distribution a user installs: sdist and wheel build, pass `twine check`, carry complete
metadata, and a wheel installed in a fresh venv passes a face test against the installed copy.

One distribution name, geomeval, is what every face names: the metric modules' install hint,
the metric and demo Spaces' requirements, the lmms-eval task utils.
"""

from __future__ import annotations

import email
import os
import runpy
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
METRICS = sorted(p.name for p in (REPO / "metrics").iterdir() if (p / f"{p.name}.py").is_file())


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # --no-isolation: the build uses this venv's setuptools (offline); sdist first, wheel from it
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "-o", str(out), str(REPO)],
                           capture_output=True, text=True, timeout=600, cwd=out)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return out


def _wheel(dist: Path) -> Path:
    (wheel,) = dist.glob("geomeval-*-py3-none-any.whl")
    return wheel


@pytest.mark.slow
def test_sdist_and_wheel_pass_twine_check(dist: Path) -> None:
    files = sorted(str(p) for p in dist.iterdir())
    assert len(files) == 2 and any(f.endswith(".tar.gz") for f in files), files
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *files],
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2


@pytest.mark.slow
def test_wheel_metadata_is_complete(dist: Path) -> None:
    wheel = _wheel(dist)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        meta = email.message_from_bytes(archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))))
    assert meta["Name"] == "geomeval"
    assert meta["License-Expression"] == "Apache-2.0"
    assert meta.get_all("License-File") == ["LICENSE"]
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert {"Homepage", "Download", "Metrics"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())
    classifiers = meta.get_all("Classifier")
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert not any(c.startswith("License ::") for c in classifiers)  # the expression says it
    assert meta["Requires-Python"] == ">=3.11"
    assert meta["Description-Content-Type"] == "text/markdown"
    # every face ships inside: the metric modules with their cards and Space requirements,
    # the lmms-eval task folders, the embedded samples
    for name in METRICS:
        for part in (f"{name}.py", "README.md", "requirements.txt"):
            assert f"geomeval/metrics/{name}/{part}" in names, (name, part)
    assert "geomeval/lmms_tasks/me2/me2_solve.yaml" in names
    # every subpackage: the lmms-eval tasks' utils.py import geomeval.integrations.lmms
    assert "geomeval/integrations/lmms/loading.py" in names and "geomeval/integrations/lmms/tasks.py" in names
    assert "geomeval/_build_info.json" in names
    sdist = next(dist.glob("geomeval-*.tar.gz"))
    with tarfile.open(sdist) as archive:
        members = archive.getnames()
    assert any(m.endswith("/LICENSE") for m in members)
    assert any(m.endswith("/metrics/me2_accuracy/me2_accuracy.py") for m in members)


@pytest.mark.slow
def test_the_installed_wheel_passes_a_face_test_in_a_fresh_venv(dist: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=120)
    python = env_dir / "bin" / "python"
    # Dependencies come from this venv's site-packages (offline, no download), appended behind
    # the fresh venv's own: a .pth line adds the folder but runs none of its .pth files, so the
    # editable geomeval there is never importable; the wheel is unpacked into the fresh venv.
    purelib = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    (purelib / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                                "--target", str(purelib), str(_wheel(dist))],
                               capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    where = subprocess.run([str(python), "-c", "import geomeval, geomeval.publishing.faces as f; print(geomeval.__file__);"
                            " print(f.metric_path('me2_accuracy'))"],
                           capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert where.returncode == 0, where.stderr
    module, metric = where.stdout.split()
    assert module.startswith(str(purelib)) and metric.startswith(str(purelib)), where.stdout
    # the face test, run by the fresh venv against the installed copy (conftest puts the
    # repository root on the path, where no geomeval package sits: src/ is not added)
    test = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                           str(REPO / "tests" / "faces" / "test_metric_me2.py"), "-k", "option_letters or numeric_gold or missing_response"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    assert test.returncode == 0, test.stdout[-4000:] + test.stderr[-2000:]
    assert " passed" in test.stdout and " failed" not in test.stdout


def test_a_metric_without_geomeval_names_the_wheel_never_a_bare_index_name(monkeypatch: pytest.MonkeyPatch) -> None:
    evaluate = pytest.importorskip("evaluate")
    from evaluate.loading import get_imports

    for name in METRICS:
        script = REPO / "metrics" / name / f"{name}.py"
        # evaluate turns each library import into `pip install <name>`: geomeval is never one
        assert "geomeval" not in {i[1] for i in get_imports(str(script)) if i[0] == "library"}, name
        monkeypatch.setitem(sys.modules, "geomeval", None)  # as if not installed
        for loaded in [m for m in sys.modules if m.startswith("geomeval.")]:  # nor imported before
            monkeypatch.delitem(sys.modules, loaded)
        with pytest.raises(ImportError) as raised:
            runpy.run_path(str(script))
        message = str(raised.value)
        assert "distribution name geomeval, not on PyPI" in message
        assert f"https://huggingface.co/spaces/geomeval/{name}/resolve/main/wheels/geomeval-" in message
        requirements = (REPO / "metrics" / name / "requirements.txt").read_text(encoding="utf-8")
        # the hint installs what the Space's own requirements install
        url = message.split("@ ", 1)[1].split("'", 1)[0]
        assert url in requirements, name
        monkeypatch.delitem(sys.modules, "geomeval")
    assert evaluate is not None


def test_each_metric_module_names_its_license_and_code() -> None:
    pytest.importorskip("evaluate")
    import evaluate

    from geomeval.publishing.faces import metric_path

    for name in METRICS:
        info = evaluate.load(metric_path(name)).info
        assert info.license == "Apache-2.0", name
        assert f"https://huggingface.co/spaces/geomeval/{name}/tree/main" in info.codebase_urls, name

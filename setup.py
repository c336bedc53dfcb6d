"""What packaging needs code for: the package list, and the commit a build was made from.

Packages are found, not listed: every folder under src/geomeval (data folders such as a
benchmark's sample/ too) and every evaluate module under metrics/, shipped as
geomeval.metrics.<name> (pyproject.toml's `package-dir` maps it). `packages.find` cannot map a
folder outside src/, so `packages()` does what it did for src/ and adds metrics/; a new
benchmark or metric folder is picked up with no edit here or in pyproject.toml.

Builds (wheel, sdist) record the commit they were built from, in geomeval/_build_info.json.
An installed geomeval has no git checkout beside it to ask, so `geomeval.run.provenance` reads the
commit there (run.json's `provenance.install.built_from`). A wheel built from an sdist keeps the
file the sdist carries. Everything else about the package is in pyproject.toml.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent
INFO = "_build_info.json"


def packages(root: Path = ROOT) -> list[str]:
    """geomeval and each folder under it whose path is importable (every part an identifier,
    no __pycache__), then geomeval.metrics and each metric folder the same way."""

    def found(where: Path, prefix: str) -> list[str]:
        names = find_namespace_packages(str(where))
        return sorted(prefix + name for name in names
                      if all(part.isidentifier() and part != "__pycache__" for part in name.split(".")))

    source = [name for name in found(root / "src", "") if name == "geomeval" or name.startswith("geomeval.")]
    return [*source, "geomeval.metrics", *found(root / "metrics", "geomeval.metrics.")]


def _git(*args: str) -> str | None:
    try:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=10,
                              check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def _info() -> dict[str, object] | None:
    """The checkout's commit and whether tracked files differ from it; None outside a checkout."""
    if not (ROOT / ".git").exists():
        return None
    commit = _git("rev-parse", "HEAD")
    if not commit:
        return None
    modified = _git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "modified": bool(modified) if modified is not None else None}


def _write(folder: Path) -> None:
    info = _info()
    if info is not None and folder.is_dir():  # else keep the file an sdist brought, if any
        (folder / INFO).write_text(json.dumps(info) + "\n", encoding="utf-8")


class BuildPy(build_py):
    def run(self) -> None:
        super().run()
        if not self.editable_mode:  # an editable install asks git itself
            _write(Path(self.build_lib) / "geomeval")


class Sdist(sdist):
    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        _write(Path(base_dir) / "src" / "geomeval")


if __name__ == "__main__":  # setuptools runs this file as __main__; tests import packages()
    setup(packages=packages(), cmdclass={"build_py": BuildPy, "sdist": Sdist})

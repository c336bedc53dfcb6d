"""METEOR's WordNet offline, without nltk_data: the system's WordNet 3.0 dict files (Debian's
wordnet-base and wordnet-sense-index, what a metric Space's packages.txt installs) become an
nltk_data folder in geomeval's cache, and METEOR matches synonyms with them."""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from geomeval.engines import textmetrics as tm

DEBIAN = Path("/usr/share/wordnet")
HAVE_DEBIAN = all((DEBIAN / name).is_file() for name in tm.WORDNET_FILES)


def _run(code: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_DEBIAN, reason="needs apt packages wordnet-base and wordnet-sense-index")
def test_meteor_matches_synonyms_with_the_system_wordnet_alone(tmp_path: Path) -> None:
    # no nltk_data anywhere nltk looks: only the system's dict files
    env = {"NLTK_DATA": str(tmp_path / "none"), "HOME": str(tmp_path), "GEOMEVAL_CACHE_DIR": str(tmp_path / "cache"),
           "GEOMEVAL_WORDNET_DIR": str(DEBIAN)}
    out = _run("import nltk; nltk.data.path[:] = [p for p in nltk.data.path if p.startswith("
               f"{str(tmp_path)!r})]\n"
               "from geomeval.engines import textmetrics as t\n"
               "print(t.meteor_variant()); print(repr(t.meteor('the total is 180', 'the sum is 180')))", env)
    variant, score = out.splitlines()
    assert variant == tm.METEOR_WITH_WORDNET
    assert float(score) == pytest.approx(1 - 0.5 / 4**3)  # total ~ sum: 4 of 4 words, one chunk
    corpus = tmp_path / "cache" / "nltk_data" / "corpora" / "wordnet"
    assert (corpus / "lexnames").is_file() and not any(p.is_symlink() for p in corpus.iterdir())


@pytest.mark.skipif(not Path("/usr/share/man/man5/lexnames.5WN.gz").is_file(), reason="needs WordNet's lexnames(5WN)")
def test_the_written_lexnames_are_wordnets() -> None:
    text = gzip.decompress(Path("/usr/share/man/man5/lexnames.5WN.gz").read_bytes()).decode()
    listed = re.findall(r"^(\d\d)\t(\S+)\s", text, re.M)
    assert [(f"{i:02d}", name) for i, name in enumerate(tm.LEXNAMES)] == listed


def test_an_incomplete_folder_is_no_wordnet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in tm.WORDNET_FILES[:-1]:  # all but index.sense, which nltk needs
        (tmp_path / name).write_text("", encoding="utf-8")
    monkeypatch.setenv("GEOMEVAL_WORDNET_DIR", str(tmp_path))
    assert tm.system_wordnet_data() is None

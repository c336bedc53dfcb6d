"""What every metric card test checks: the Hub front matter, the sections `evaluate`'s
metric cards carry, and the card's runnable example printing exactly what the card says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from geomeval.publishing.faces import metric_path

REPO = Path(__file__).resolve().parents[2]
SECTIONS = (
    "## Metric Description",
    "## How to Use",
    "### Inputs",
    "### Output Values",
    "### Examples",
    "## Limitations and Bias",
    "## Citation",
    "## Further References",
)


def card_body(name: str, *extra_sections: str) -> str:
    """The metric's card body, after checking its front matter and sections."""
    card = (Path(metric_path(name)) / "README.md").read_text(encoding="utf-8")
    front, body = card.split("---\n", 2)[1:]
    for key in ("title:", "sdk:", "tags:", "description:"):
        assert key in front, (name, key)
    for section in (*SECTIONS, *extra_sections):
        assert section in body, (name, section)
    return body


def assert_example_prints_what_it_says(body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs the card's "How to Use" example as written, from a checkout (it loads
    "metrics/<name>"), and compares its output with the block after "prints"."""
    how_to = body.split("## How to Use", 1)[1]
    code = re.search(r"```python\n(.*?)```", how_to, re.S)
    printed = re.search(r"prints\n\n```\n(.*?)```", how_to, re.S)
    assert code and printed, "the card's How to Use has no example with its printed output"
    monkeypatch.chdir(REPO)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.group(1), "README example", "exec"), {})  # the card's own code
    assert out.getvalue() == printed.group(1)

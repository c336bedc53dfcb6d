"""A published sample never passes for the benchmark, and every published card loads itself.

geomeval's embedded samples are a few problems written for geomeval in a release's layout; none
is an item of the release. Pushed under a benchmark's own id (`geomeval/GGBench`), a sample
would be scored by anyone who loads that id as if it were GGBench. So a sample goes only to an
id that says sample (`<repo_id>-sample` by default, `sample_repo_id`), and its card says what it
is, under its own license (Apache-2.0, as geomeval), with the release's terms kept apart.

`loading_section` writes the lines that load each source of a benchmark's data: the published
repo itself, the authors' own Hub dataset converted by geomeval's reader (where they publish
one: `HubMetadata.authors_hub`), and a local build.
"""

from __future__ import annotations

import re

import yaml

from ..core.errors import UsageError
from ..engines.hfdata import authors_hub_lines
from .hub_metadata import HubMetadata, metadata

SAMPLE_LICENSE = "apache-2.0"
SAMPLE_WORD = "sample"


def sample_repo_id(name: str) -> str:
    """The default repo id for dataset `name`'s embedded sample: its release id + "-sample"."""
    return f"{metadata(name).repo_id}-{SAMPLE_WORD}"


def says_sample(repo_id: str) -> bool:
    """Whether the repo's own name (after the owner) says it holds a sample."""
    return SAMPLE_WORD in repo_id.rsplit("/", 1)[-1].lower()


def check_sample_target(name: str, repo_id: str) -> None:
    """Refuse (UsageError, one line) to put dataset `name`'s embedded sample under an id that
    does not say sample: `geomeval/GGBench` holding 4 made-up problems would be scored as GGBench."""
    if not says_sample(repo_id):
        meta = metadata(name)
        raise UsageError(
            f"refused: without --data, publish stages geomeval's embedded sample of {meta.pretty_name} "
            f"(problems written for geomeval, not {meta.pretty_name}'s), and {repo_id!r} does not say "
            f"sample; push it to {sample_repo_id(name)!r} (or another id with 'sample' in its name), "
            "or pass --data with the release to publish the release")


def _split_card(text: str) -> tuple[dict, str]:
    if not text.startswith("---"):
        raise ValueError("dataset card without YAML front matter")
    _, header, body = text.split("---", 2)
    return yaml.safe_load(header) or {}, body.lstrip("\n")


def _join_card(header: dict, body: str) -> str:
    return "---\n" + yaml.safe_dump(header, sort_keys=False, allow_unicode=True) + "---\n\n" + body


def _replace_section(body: str, title: str, new: str) -> str:
    """`body` with its `## title` section (up to the next `## `) replaced by `new`, or `new`
    added after the first heading's paragraph when it has none."""
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(body):
        return pattern.sub(lambda _: new.rstrip("\n") + "\n\n", body, count=1)
    return body.rstrip("\n") + "\n\n" + new


def loading_section(meta: HubMetadata, repo_id: str | None, *, sample: bool = False) -> str:
    """The card's `## Loading`: the real line for each source of the data."""
    name = meta.name
    lines = ["## Loading", ""]
    if repo_id:
        what = (f"this repository: geomeval's embedded sample, not {meta.pretty_name}" if sample
                else "this repository (a typed build of the release)")
        lines += [f"From {what}:", "", "```python", "from datasets import load_dataset",
                  f'ds = load_dataset("{repo_id}", split="test")', "```", ""]
    lines += authors_hub_lines(meta)
    lines += ["From a local build of the release (`geomeval build`), offline:", "", "```python",
              "from datasets import load_dataset", f'ds = load_dataset("built/{name}", split="test")', "```", ""]
    return "\n".join(lines)


def published_card(name: str, text: str, repo_id: str, *, sample: bool, rows: int | None = None) -> str:
    """The card `text` (as `geomeval build` wrote it) made true for the repo it goes to: its
    Loading section names `repo_id`; a sample's card says it is a sample, under its own license."""
    meta = metadata(name)
    header, body = _split_card(text)
    body = _replace_section(body, "Loading", loading_section(meta, repo_id, sample=sample))
    if not sample:
        return _join_card(header, body)
    header["license"] = SAMPLE_LICENSE
    header.pop("license_name", None)
    header.pop("license_link", None)
    header["pretty_name"] = f"{meta.pretty_name} sample (geomeval; not the {meta.pretty_name} release)"
    header["tags"] = [*header.get("tags", []), SAMPLE_WORD]
    body = re.sub(r"\A# [^\n]*\n", "", body)
    count = f"{rows} problems" if rows is not None else "a few problems"
    intro = (
        f"# {meta.pretty_name}: geomeval's sample, not the release\n\n"
        f"**This repository is not {meta.pretty_name}.** It holds {count} that geomeval's authors "
        f"wrote in {meta.pretty_name}'s layout to test geomeval (`geomeval publish {name}` without "
        f"`--data`); none is an item of the release, and a score on it says nothing about a model's "
        f"{meta.pretty_name} score. For the benchmark itself, see \"Loading\" below.\n\n"
        f"License: Apache-2.0 (geomeval's, for these sample problems and figures). The terms of "
        f"{meta.pretty_name}'s release, under \"License\" below, apply to the release, not to this "
        "sample.\n\n"
        "The description that follows is the release's card, kept because the sample has the same "
        "fields.\n\n"
    )
    body = body.replace(
        "\n## License\n\n",
        f"\n## License\n\nThis sample: `{SAMPLE_LICENSE}` (geomeval's; the problems and figures were "
        "written for geomeval). The release's terms, which do not cover this sample:\n\n", 1)
    return _join_card(header, intro + body)

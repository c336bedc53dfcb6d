"""What each dataset geomeval publishes says about itself on the Hub: name, license terms per
source, languages, task categories, tags, release size and citations (`HubMetadata`).

One entry per dataset, declared in its benchmark's folder (`benchmarks/<name>/hub.py`, the
declaration's `Benchmark.hub`) and handed to the card renderer (`hfdata.card_header`,
`card_sections`) directly. The lmms-eval task YAMLs read the authors' own Hub dataset where
they publish one (`authors_hub`), else a local release (the integration's `hub_dataset`; a
test checks they agree); the embedded sample goes only to `<repo_id>-sample` (`samplecard`).
`hub_metadata` finds a registered benchmark's entry by name.

Licenses were read from the official releases (repository README and LICENSE files) and the
papers; where no license is published, the card says `unknown` and why, rather than guessing.
A dataset built from several sources lists each source's terms: CapGeo's reasoning set
carries MathVista's CC BY-SA 4.0, whose share-alike clause binds any redistributed build that
holds MathVista items. The embedded samples geomeval ships are written for geomeval (no
release item), so publishing a sample is always allowed, under an id that says sample; publishing a build of a release
whose terms are unknown or restrictive is refused by `geomeval publish` (`redistributable`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

HUB_LICENSES = frozenset({
    "apache-2.0", "mit", "cc-by-4.0", "cc-by-sa-4.0", "cc-by-nc-4.0", "cc-by-nc-sa-4.0",
    "cc0-1.0", "other", "unknown",
})
"""The Hub license ids these cards use (a subset of the Hub's list; `other` needs a
`license_name` and `license_link`, `unknown` a stated reason)."""

HUB_TASK_CATEGORIES = frozenset({
    "visual-question-answering", "question-answering", "image-to-text", "image-text-to-text",
    "text-generation", "multiple-choice",
})
"""The Hub task categories these cards use (a subset of the Hub's task list)."""

SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                   (1_000_000, "100K<n<1M"))


def size_category(rows: int) -> str:
    """The Hub's size bucket for `rows` examples (its buckets: n<1K, 1K<n<10K, ...)."""
    for bound, name in SIZE_CATEGORIES:
        if rows < bound:
            return name
    return "n>1M"


@dataclass(frozen=True)
class SourceTerms:
    """One source's terms: a Hub license id, where they are stated, and what they require."""

    name: str
    license: str
    where: str
    note: str = ""


@dataclass(frozen=True)
class HubMetadata:
    name: str
    repo_id: str
    pretty_name: str
    license: str
    license_reason: str  # one sentence: where the license comes from, or why it is unknown
    sources: tuple[SourceTerms, ...]
    language: tuple[str, ...]
    task_categories: tuple[str, ...]
    release_rows: int  # the full release, for the size category of the repo card
    citations: tuple[str, ...]
    redistributable: bool  # may a build of the release (not the sample) be pushed?
    tags: tuple[str, ...] = ("geometry", "mathematics", "benchmark", "geomeval")
    license_name: str | None = None
    license_link: str | None = None
    extra_tags: tuple[str, ...] = field(default=())
    # The authors' own Hub dataset, where they publish one (ME2: jungypark/ME2), the shell lines
    # that turn it into geomeval's typed build through the benchmark's reader for its layout,
    # and what a user must know first (gated, a git clone): the cards' "Loading" and the
    # lmms-eval tasks (which read it when no local build is named) use them.
    authors_hub: str | None = None
    authors_hub_steps: tuple[str, ...] = ()
    authors_hub_note: str = ""

    def all_tags(self) -> list[str]:
        return [*self.tags, *self.extra_tags]

"""The ME2 dataset card: YAML from the features, prose from `card.md`."""

from __future__ import annotations

from importlib.resources import files

from ...engines.hfdata import card_header, card_sections
from ...engines.prompts import card_section
from . import features
from .hub import HUB
from .prompts import TEMPLATES

DIFFERENCES = "## Differences from the paper and the official code"


def card_body() -> str:
    """`card.md` with the table of prompt templates (generated: it cannot drift from the
    code) placed just before the differences section."""
    body = files(__package__).joinpath("card.md").read_text(encoding="utf-8")
    head, differences, tail = body.partition(DIFFERENCES)
    if not differences:
        return body + "\n" + card_section(TEMPLATES)
    return head + card_section(TEMPLATES) + "\n" + differences + tail


def render_card(splits: dict[str, tuple[int, int]] | None = None) -> str:
    """The full card; `splits` maps split names to (examples, bytes) once a build knows them."""
    return card_header(features.FEATURES, splits, hub=HUB) + "\n" + card_sections(HUB, card_body())

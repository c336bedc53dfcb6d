"""The GeoLaux dataset card: YAML from the features, prose from `card.md`."""

from __future__ import annotations

from importlib.resources import files

from ...engines.hfdata import card_header, card_sections
from ...engines.prompts import card_section
from . import features
from .hub import HUB
from .prompts import TEMPLATES


def card_body() -> str:
    """`card.md`, then the table of prompt templates (generated: it cannot drift from the code)."""
    return files(__package__).joinpath("card.md").read_text(encoding="utf-8") + "\n" + card_section(TEMPLATES)


def render_card(splits: dict[str, tuple[int, int]] | None = None) -> str:
    """The full card; `splits` maps split names to (examples, bytes) once a build knows them."""
    return card_header(features.FEATURES, splits, hub=HUB) + "\n" + card_sections(HUB, card_body())

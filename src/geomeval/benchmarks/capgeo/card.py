"""The CapGeo dataset card (its reasoning problems with captions): YAML from the features, prose
from `card.md`, then the table of its prompt templates (generated: it cannot drift from the code)."""

from __future__ import annotations

from importlib.resources import files

from ...engines.hfdata import card_header, card_sections
from ...engines.prompts import card_section
from . import features
from .hub import HUB
from .prompts import TEMPLATES


def render_card(splits: dict[str, tuple[int, int]] | None = None) -> str:
    """The full card (`cards/capgeo/README.md` is this, without sizes); `splits` maps split
    names to (examples, bytes) once a build knows them."""
    body = files(__package__).joinpath("card.md").read_text(encoding="utf-8")
    return card_header(features.FEATURES, splits, hub=HUB) + "\n" + card_sections(HUB, body + "\n" + card_section(TEMPLATES))

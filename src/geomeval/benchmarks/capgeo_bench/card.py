"""The CapGeo-Bench dataset card: YAML from the features, prose from `card.md`, then the table
of its prompt templates at the defaults, the benchmark's `TEMPLATES` (generated: it cannot drift
from the code; the contract test checks that the card lists every default template)."""

from __future__ import annotations

from importlib.resources import files

from ...engines.hfdata import card_header, card_sections
from ...engines.prompts import card_section
from ..capgeo.captioning import FIGURE_TEMPLATES
from . import features
from .hub import HUB
from .keypoint_judge import TEMPLATES as KEYPOINT_TEMPLATES


def render_card(splits: dict[str, tuple[int, int]] | None = None) -> str:
    """The full card; `splits` maps split names to (examples, bytes) once a build knows them."""
    body = files(__package__).joinpath("card.md").read_text(encoding="utf-8")
    return card_header(features.FEATURES, splits, hub=HUB) + "\n" + card_sections(HUB, body + "\n" + card_section((*FIGURE_TEMPLATES, *KEYPOINT_TEMPLATES)))

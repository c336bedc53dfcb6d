"""The GeoEval dataset card: YAML from the features (one config per subset), prose from
`card.md`."""

from __future__ import annotations

from importlib.resources import files

from ...engines.hfdata import card_sections, configs_card_header
from ...engines.prompts import card_section
from . import features
from .features import SUBSETS
from .hub import HUB
from .prompts import TEMPLATES


def card_body() -> str:
    """`card.md`, then the table of prompt templates (generated: it cannot drift from the code)."""
    return files(__package__).joinpath("card.md").read_text(encoding="utf-8") + "\n" + card_section(TEMPLATES)


def render_card(sizes: dict[str, dict[str, tuple[int, int]]] | None = None) -> str:
    """The full card. Without `sizes` (the card of the whole release, before a build) it
    declares all four subsets; a build passes {config: {split: (examples, bytes)}} for the
    subsets it wrote, and the card declares those."""
    configs = [name for name in SUBSETS if sizes is None or name in sizes]
    header = configs_card_header({name: (features.FEATURES, sizes[name] if sizes else None) for name in configs}, hub=HUB)
    return header + "\n" + card_sections(HUB, card_body())

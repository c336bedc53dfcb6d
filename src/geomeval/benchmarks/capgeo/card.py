"""The dataset cards: YAML from the features, prose from `bench_card.md` (CapGeo-Bench) and
`reasoning_card.md` (CapGeo's reasoning problems with captions), each followed by the table
of its benchmark's prompt templates (generated: it cannot drift from the code)."""

from __future__ import annotations

from importlib.resources import files

from ...hfdata import card_header, card_sections
from ...prompts import card_section
from .bench import TEMPLATES as BENCH_TEMPLATES
from .features import BENCH_FEATURES, REASONING_FEATURES
from .reasoning import TEMPLATES as REASONING_TEMPLATES


def render_bench_card(splits: dict[str, tuple[int, int]] | None = None) -> str:
    """The full card; `splits` maps split names to (examples, bytes) once a build knows them."""
    body = files(__package__).joinpath("bench_card.md").read_text(encoding="utf-8")
    return card_header(BENCH_FEATURES, splits, dataset="capgeo_bench") + "\n" + card_sections(
        "capgeo_bench", body + "\n" + card_section(BENCH_TEMPLATES))


def render_reasoning_card(splits: dict[str, tuple[int, int]] | None = None) -> str:
    """CapGeo's reasoning dataset card (`cards/capgeo/README.md` is this, without sizes)."""
    body = files(__package__).joinpath("reasoning_card.md").read_text(encoding="utf-8")
    return card_header(REASONING_FEATURES, splits, dataset="capgeo") + "\n" + card_sections(
        "capgeo", body + "\n" + card_section(REASONING_TEMPLATES))

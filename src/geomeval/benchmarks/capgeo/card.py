"""The dataset cards: YAML from the features, prose from `bench_card.md` (CapGeo-Bench) and
`reasoning_card.md` (CapGeo's reasoning problems with captions)."""

from __future__ import annotations

from importlib.resources import files

from ...hfdata import card_header
from .features import BENCH_FEATURES, REASONING_FEATURES


def render_bench_card(splits: dict[str, tuple[int, int]] | None = None) -> str:
    """The full card; `splits` maps split names to (examples, bytes) once a build knows them."""
    body = files(__package__).joinpath("bench_card.md").read_text(encoding="utf-8")
    return card_header(BENCH_FEATURES, splits) + "\n" + body


def render_reasoning_card(splits: dict[str, tuple[int, int]] | None = None) -> str:
    """CapGeo's reasoning dataset card (`cards/capgeo/README.md` is this, without sizes)."""
    body = files(__package__).joinpath("reasoning_card.md").read_text(encoding="utf-8")
    return card_header(REASONING_FEATURES, splits) + "\n" + body

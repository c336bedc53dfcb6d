"""The CapGeo-Bench dataset card: YAML from the features, prose from `bench_card.md`."""

from __future__ import annotations

from importlib.resources import files

from ...hfdata import card_header
from .features import BENCH_FEATURES


def render_bench_card(splits: dict[str, tuple[int, int]] | None = None) -> str:
    """The full card; `splits` maps split names to (examples, bytes) once a build knows them."""
    body = files(__package__).joinpath("bench_card.md").read_text(encoding="utf-8")
    return card_header(BENCH_FEATURES, splits) + "\n" + body

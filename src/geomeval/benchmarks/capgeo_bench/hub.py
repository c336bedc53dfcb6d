"""capgeo_bench's Hub dataset: its id, license terms per source, languages, tags and citations
(`geomeval publish` writes them into the card; see `geomeval.publishing.hub_metadata`)."""

from __future__ import annotations

from ...engines.hub_terms import HubMetadata, SourceTerms
from ..capgeo.hub import CAPGEO_BIB

HUB = HubMetadata(
    name="capgeo_bench", repo_id="geomeval/CapGeo-Bench", pretty_name="CapGeo-Bench",
    license="unknown",
    license_reason="the CapGeo paper publishes no license for CapGeo-Bench; its figures were collected from Chinese K-12 textbooks (paper, Sec. 3), whose copyright terms the paper does not give.",
    sources=(SourceTerms("CapGeo-Bench (Li et al., 2025)", "unknown", "https://arxiv.org/abs/2510.09302",
                         "no license published; figures from K-12 textbooks"),),
    language=("en", "zh"), task_categories=("image-to-text",),
    release_rows=4641, citations=(CAPGEO_BIB,), redistributable=False,
    extra_tags=("captioning", "keypoints"),
)

"""geolaux's Hub dataset: its id, license terms per source, languages, tags and citations
(`geomeval publish` writes them into the card; see `geomeval.publishing.hub_metadata`)."""

from __future__ import annotations

from ...engines.hub_terms import HubMetadata, SourceTerms

GEOLAUX_BIB = """@article{fu2025geolaux,
  title   = {GeoLaux: A Benchmark for Evaluating MLLMs' Geometry Performance on Long-Step Problems Requiring Auxiliary Lines},
  author  = {Fu, Yumeng and Zhu, Jiayin and Zhang, Lingling and Zhao, Bo and Ma, Shaoxuan and Zhang, Yushun and Wu, Yanrui and Wu, Wenjun},
  journal = {arXiv preprint arXiv:2508.06226},
  year    = {2025}
}"""

HUB = HubMetadata(
    name="geolaux", repo_id="geomeval/GeoLaux", pretty_name="GeoLaux",
    license="mit",
    license_reason="the official release (github.com/Candice-yu/GeoLaux) states that its dataset and code are under the MIT license (its LICENSE file).",
    sources=(SourceTerms("GeoLaux (Fu et al., 2025)", "mit", "https://github.com/Candice-yu/GeoLaux/blob/main/LICENSE",
                         "keep the copyright and permission notice"),),
    language=("en", "zh"), task_categories=("visual-question-answering", "image-text-to-text"),
    release_rows=2186, citations=(GEOLAUX_BIB,), redistributable=True,
    extra_tags=("auxiliary-lines", "step-level-evaluation"),
)

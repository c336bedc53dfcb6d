"""ggbench's Hub dataset: its id, license terms per source, languages, tags and citations
(`geomeval publish` writes them into the card; see `geomeval.publishing.hub_metadata`)."""

from __future__ import annotations

from ...engines.hub_terms import HubMetadata, SourceTerms

GGBENCH_BIB = """@article{wei2025ggbench,
  title   = {GGBench: A Geometric Generative Reasoning Benchmark for Unified Multimodal Models},
  author  = {Wei, Jingxuan and Jia, Caijun and Bai, Xi and Xu, Xinglong and Li, Siyuan and Sun, Linzhuang and Yu, Bihui and He, Conghui and Wu, Lijun and Tan, Cheng},
  journal = {arXiv preprint arXiv:2511.11134},
  year    = {2025}
}"""

HUB = HubMetadata(
    name="ggbench", repo_id="geomeval/GGBench", pretty_name="GGBench",
    license="unknown",
    license_reason="neither the official repository (github.com/opendatalab-raiser/GGBench, no LICENSE file, no license in its README) nor the paper states a license for the data; the authors' own Hub dataset could not be consulted offline.",
    sources=(SourceTerms("GGBench (Wei et al., 2025)", "unknown", "https://github.com/opendatalab-raiser/GGBench",
                         "no license published; the problems were collected from public geometry problems on the web (paper, Sec. 3)"),),
    language=("en",), task_categories=("text-generation", "image-text-to-text"),
    release_rows=1411, citations=(GGBENCH_BIB,), redistributable=False,
    extra_tags=("geogebra", "geometric-construction"),
    authors_hub="opendatalab-raiser/GGBench",
    authors_hub_steps=("git clone https://huggingface.co/datasets/opendatalab-raiser/GGBench",
                       "geomeval build ggbench --raw GGBench --out built/ggbench"),
    authors_hub_note="a git repository holding the official release layout, as the authors' README clones it",
)

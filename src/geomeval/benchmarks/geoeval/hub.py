"""geoeval's Hub dataset: its id, license terms per source, languages, tags and citations
(`geomeval publish` writes them into the card; see `geomeval.publishing.hub_metadata`)."""

from __future__ import annotations

from ...engines.hub_terms import HubMetadata, SourceTerms

GEOEVAL_BIB = """@inproceedings{zhang2024geoeval,
  title     = {GeoEval: Benchmark for Evaluating LLMs and Multi-Modal Models on Geometry Problem-Solving},
  author    = {Zhang, Jiaxin and Li, Zhongzhi and Zhang, Mingliang and Yin, Fei and Liu, Chenglin and Moshfeghi, Yashar},
  booktitle = {Findings of the Association for Computational Linguistics: ACL 2024},
  year      = {2024}
}"""

HUB = HubMetadata(
    name="geoeval", repo_id="geomeval/GeoEval", pretty_name="GeoEval",
    license="other", license_name="geoeval-academic-research",
    license_link="https://github.com/GeoEval/GeoEval#dataset-download",
    license_reason="the official release is handed out for academic research only, after an application form (github.com/GeoEval/GeoEval, 'GeoEval Dataset Application Form for Academic Research'); no open license is published, and its sources (Geometry3K, PGPS9K, UniGeo, GeoQA+, GeometryQA, MATH, MathQA) keep their own terms.",
    sources=(SourceTerms("GeoEval (Zhang et al., 2024)", "other", "https://github.com/GeoEval/GeoEval",
                         "academic research only, by application; redistribution not granted"),),
    language=("en",), task_categories=("question-answering", "visual-question-answering"),
    release_rows=5050, citations=(GEOEVAL_BIB,), redistributable=False,
    extra_tags=("backward-reasoning",),
)

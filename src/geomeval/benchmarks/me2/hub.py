"""me2's Hub dataset: its id, license terms per source, languages, tags and citations
(`geomeval publish` writes them into the card; see `geomeval.publishing.hub_metadata`)."""

from __future__ import annotations

from ...engines.hub_terms import HubMetadata, SourceTerms

ME2_BIB = """@inproceedings{park2026me2,
  title     = {Explain with Visual Keypoints Like a Real Mentor! A Benchmark for Multimodal Solution Explanation},
  author    = {Park, Jaewoo and Park, Jungyang and Jang, Dongju and Chung, Jiwan and Yoo, Byungwoo and Shin, Jaewoo and Park, Seonjoon and Kim, Taehyeong and Yu, Youngjae},
  booktitle = {Proceedings of the AAAI Conference on Artificial Intelligence},
  year      = {2026},
  eprint    = {2504.03197},
  archivePrefix = {arXiv}
}"""

HUB = HubMetadata(
    name="me2", repo_id="geomeval/ME2", pretty_name="ME2",
    license="unknown",
    license_reason="the official repository (github.com/jungyangpark/ME2) states no license for the data and its Hub dataset (jungypark/ME2) could not be consulted offline; the problems come from the authors' in-house platform.",
    sources=(SourceTerms("ME2 (Park et al., AAAI 2026)", "unknown", "https://github.com/jungyangpark/ME2",
                         "no license published; problems from a Korean in-house mathematics education platform"),),
    language=("en", "ko"), task_categories=("visual-question-answering", "image-text-to-text"),
    release_rows=1000, citations=(ME2_BIB,), redistributable=False,
    extra_tags=("explanation", "education"),
    authors_hub="jungypark/ME2",
    authors_hub_steps=("geomeval build me2 --raw jungypark/ME2 --out built/me2",),
    authors_hub_note="gated: accept its terms on the Hub and run `hf auth login` first; its split is `train`",
)

"""capgeo's Hub dataset: its id, license terms per source, languages, tags and citations
(`geomeval publish` writes them into the card; see `geomeval.publishing.hub_metadata`)."""

from __future__ import annotations

from ...engines.hub_terms import HubMetadata, SourceTerms

CAPGEO_BIB = """@article{li2025capgeo,
  title   = {CapGeo: A Caption-Assisted Approach to Geometric Reasoning},
  author  = {Li, Yuying and Qian, Siyi and Liang, Hao and Zheng, Leqi and An, Ruichuan and Guo, Yongzhen and Zhang, Wentao},
  journal = {arXiv preprint arXiv:2510.09302},
  year    = {2025}
}"""

MATHVISTA_BIB = """@inproceedings{lu2024mathvista,
  title     = {MathVista: Evaluating Mathematical Reasoning of Foundation Models in Visual Contexts},
  author    = {Lu, Pan and Bansal, Hritik and Xia, Tony and Liu, Jiacheng and Li, Chunyuan and Hajishirzi, Hannaneh and Cheng, Hao and Chang, Kai-Wei and Galley, Michel and Gao, Jianfeng},
  booktitle = {International Conference on Learning Representations (ICLR)},
  year      = {2024}
}"""

MATHVERSE_BIB = """@article{zhang2024mathverse,
  title   = {MathVerse: Does Your Multi-modal LLM Truly See the Diagrams in Visual Math Problems?},
  author  = {Zhang, Renrui and others},
  journal = {arXiv preprint arXiv:2403.14624},
  year    = {2024}
}"""

GEOQA_BIB = """@inproceedings{chen2021geoqa,
  title     = {GeoQA: A Geometric Question Answering Benchmark Towards Multimodal Numerical Reasoning},
  author    = {Chen, Jiaqi and Tang, Jianheng and Qin, Jinghui and Liang, Xiaodan and Liu, Lingbo and Xing, Eric P. and Lin, Liang},
  booktitle = {Findings of the Association for Computational Linguistics: ACL-IJCNLP 2021},
  year      = {2021}
}"""

HUB = HubMetadata(
    name="capgeo", repo_id="geomeval/CapGeo-Reasoning", pretty_name="CapGeo reasoning (MathVista, MathVerse, GeoQA with captions)",
    license="other", license_name="per-source-terms",
    license_link="https://huggingface.co/datasets/AI4Math/MathVista",
    license_reason="a build joins problems of three sources under their own terms: MathVista's CC BY-SA 4.0 is share-alike, so a redistributed build holding MathVista items must itself be CC BY-SA 4.0 with attribution; MathVerse is MIT; GeoQA publishes no license.",
    sources=(
        SourceTerms("MathVista testmini (Lu et al., ICLR 2024)", "cc-by-sa-4.0", "https://huggingface.co/datasets/AI4Math/MathVista",
                    "share-alike: redistribute MathVista-derived rows under CC BY-SA 4.0, with attribution"),
        SourceTerms("MathVerse testmini (Zhang et al., 2024)", "mit", "https://huggingface.co/datasets/AI4Math/MathVerse",
                    "keep the copyright and permission notice"),
        SourceTerms("GeoQA (Chen et al., Findings of ACL 2021)", "unknown", "https://github.com/chen-judge/GeoQA",
                    "no license published"),
    ),
    language=("en",), task_categories=("visual-question-answering", "question-answering"),
    release_rows=1984,  # 208 MathVista geometry + 2 × 788 MathVerse + GeoQA's 200
    citations=(CAPGEO_BIB, MATHVISTA_BIB, MATHVERSE_BIB, GEOQA_BIB), redistributable=False,
    extra_tags=("captioning", "share-alike"),
)

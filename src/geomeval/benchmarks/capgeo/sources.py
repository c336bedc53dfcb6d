"""The problems CapGeo's reasoners answer, read from the public formats of their sources.

Each loader turns one source's local file into rows of one shape (id, source, question,
image bytes, choices, answer, question_type, caption variant), so captioning, prompting and
scoring never look at a source's own format again:

- `mathvista_geometry`: MathVista's `testmini.json` (or `annot_testmini.json`, as the Hub
  repository names it), a dict keyed by pid, images under `images/`; only items whose
  `metadata.task` is "geometry problem solving" are kept. A multiple-choice `answer` is the
  option's text; the checker maps it to its letter.
- `mathverse_vision_intensive` / `mathverse_vision_only`: MathVerse's `testmini.json`, a list,
  with `images.zip` unpacked beside it (`images_version_1-4/`, `images_version_5/`,
  `images_version_6/`); the records of that `problem_version`. Choices are written inside the question ("Choices:\n
  A:50°\nB:…"); they are split out. Vision Only records have an empty `question` (the problem
  is drawn in the image); `question_for_eval` is kept only for reference, never shown.
- `geoqa`: GeoQA-style JSON lines with `subject`, `choices` and a 0-based `label` (a 1-based
  `lable` or `label` is detected when it cannot be 0-based), images beside the file. GeoQA's
  own release pickles its problems (`test.pk`); a pickle is never read (unpickling runs
  code): its records, written out as JSON lines with these fields, are what geomeval reads. The paper evaluates a random 200
  of GeoQA's 4,998 problems (§5.1): `Source.paper_sample` says so, and `subsample` draws
  them reproducibly from a seed (`-T sample_seed=N` of `geomeval run`, `--sample-seed` of `geomeval
  capgeo build` and `grid`; `-T all_problems=true`, `--all-problems`, keeps every one).

Every record is checked; a bad one is a `DataError` naming the item and the field. A file of
another layout (a pickle, Hub parquet shards, a list where a dict keyed by pid is expected,
records without the source's fields) is refused naming what was expected and what was found.
"""

from __future__ import annotations

import codecs
import json
import random
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from importlib.resources import as_file, files
from itertools import islice
from pathlib import Path
from typing import Any

from ...core.errors import UsageError
from ..base import DataError
from ..datasource import iter_json_array, iter_json_object, read_image, read_json_file
from .captioning import PROBLEM_VISION_INTENSIVE, PROBLEM_VISION_ONLY, PROBLEM_WITH_QUESTION
from .captions_store import REFERENCE_CAPTIONER, CaptionStore

MAX_IMAGE_BYTES = 20 * 1024 * 1024
SAMPLE_CAPTIONS = "captions"  # the reference caption stores, under sources/
GEOMETRY_TASK = "geometry problem solving"
_CHOICES_BLOCK = re.compile(r"\n\s{0,4}Choices\s{0,4}[:：]\s{0,4}\n", re.IGNORECASE)
_CHOICE_LINE = re.compile(r"^\s{0,4}\(?([A-H])\)?\s{0,2}[:.：)]\s{0,4}(.{1,500})$")


PAPER_SAMPLE_SEED = 0  # geomeval's default; the paper names no seed (nor which 200 it drew)
_SUBSAMPLE_SALT = "capgeo-subsample"  # keeps the draw apart from other seeded generators


@dataclass(frozen=True)
class Source:
    name: str
    variant: str  # the caption prompt variant (captioning.VARIANTS), part of its caption store's name
    sample: str  # the embedded sample file, relative to sources/
    load: Callable[[Path], list[dict[str, Any]]]
    paper_sample: int | None = None  # how many problems the paper drew at random; None: all
    # The file names its official layout gives the file (the sample's first), looked for in a
    # folder passed as --data, and what the file is, for errors.
    names: tuple[str, ...] = ()
    layout: str = ""


def sampling(source: str, seed: int | None, all_problems: bool) -> dict[str, int] | str | None:
    """What a run or build of `source` records about its subsample: {"size", "seed"} (the
    paper's draw; seed default `PAPER_SAMPLE_SEED`), "all" (`all_problems`), or None for a
    source the paper uses whole. A switch that would change nothing is refused, so a record
    never states a choice that was not made."""
    size = SOURCES[source].paper_sample
    given = ("-T sample_seed (--sample-seed)" if seed is not None
             else "-T all_problems (--all-problems)" if all_problems else None)
    if seed is not None and all_problems:
        raise UsageError("-T sample_seed (--sample-seed) draws the paper's subsample, which -T all_problems "
                         "(--all-problems) skips: give one of them")
    if size is None:
        if given:
            sampled = ", ".join(name for name, s in SOURCES.items() if s.paper_sample is not None)
            raise UsageError(f"{given}: the paper uses {source} whole; only {sampled} is subsampled")
        return None
    return "all" if all_problems else {"size": size, "seed": PAPER_SAMPLE_SEED if seed is None else int(seed)}


def apply_sampling(rows: list[dict[str, Any]], record: dict[str, int] | str | None) -> list[dict[str, Any]]:
    """`rows` as `sampling`'s record says: the seeded subsample, or every row."""
    if isinstance(record, dict):
        return subsample(rows, record["size"], record["seed"])
    return rows


def subsample(rows: list[dict[str, Any]], size: int, seed: int) -> list[dict[str, Any]]:
    """`size` of `rows` drawn at random from `seed`, kept in the file's order; every row when
    there are no more than `size`. The draw depends only on the seed and the number of rows
    (`random.Random` seeded with a string hashes it with SHA-512, the same on every platform),
    so a seed names one subset of one file."""
    if len(rows) <= size:
        return list(rows)
    chosen = random.Random(f"{_SUBSAMPLE_SALT}:{seed}").sample(range(len(rows)), size)
    return [rows[index] for index in sorted(chosen)]


MATHVISTA_LAYOUT = ("MathVista's testmini.json: a JSON object keyed by pid, each record with question, image, "
                    "choices, answer, question_type and metadata (task)")
MATHVERSE_LAYOUT = ("MathVerse's testmini.json: a JSON list of records with sample_index, problem_version, "
                    "question, image, answer and question_type")
GEOQA_LAYOUT = "GeoQA-style JSON lines: one problem per line with id, subject, choices, label and image"


def _kind(data: Any) -> str:
    if isinstance(data, list):
        return f"a JSON list of {len(data)}"
    if isinstance(data, dict):
        return f"a JSON object with keys {', '.join(map(str, list(data)[:6]))}"
    return f"JSON {type(data).__name__}"


def _fields(record: dict[str, Any]) -> str:
    return ", ".join(map(str, list(record)[:12])) or "no fields"


def _members(path: Path, layout: str, *, keyed: bool) -> Iterator[tuple[Any, Any]]:
    """(pid, record) of a source file's top-level object (`keyed`) or (position, record) of
    its list, parsed a record at a time (`iter_json_object`): memory holds one record, not
    the file. A file of the other shape is refused naming what was expected and found."""
    members: Iterable[tuple[Any, Any]] = (
        iter_json_object(path, expected=layout) if keyed else enumerate(iter_json_array(path, expected=layout)))
    try:
        yield from members
    except DataError as exc:
        if exc.message != f"expected {layout}":
            raise
        raise DataError("(file)", path.name, f"expected {layout}, found {_found(path, keyed)}") from None


def _found(path: Path, keyed: bool) -> str:
    """What a source file of the wrong shape holds (`_kind`), read a member at a time."""
    if keyed:  # not an object: a list, counted, or a single value
        try:
            return f"a JSON list of {sum(1 for _ in iter_json_array(path, expected='a list'))}"
        except DataError:
            return _kind(read_json_file(path))
    try:
        keys = [key for key, _ in islice(iter_json_object(path, expected="an object"), 6)]
    except DataError:
        return _kind(read_json_file(path))
    return f"a JSON object with keys {', '.join(keys)}"


def _text(item: str, record: dict[str, Any], name: str, *, required: bool = True) -> str:
    value = record.get(name)
    if value is None or (isinstance(value, str) and not value.strip() and required):
        if required:
            raise DataError(item, name, "missing")
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise DataError(item, name, f"expected text, got {type(value).__name__}")
    return value


def _image(item: str, root: Path, name: str) -> dict[str, Any]:
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise DataError(item, "image", f"image path {name[:120]!r} must stay inside the source folder")
    return read_image(item, "image", root.joinpath(*parts), MAX_IMAGE_BYTES, inside=root)


def _row(item: str, source: str, question: str, image: dict[str, Any], choices: list[str], answer: str,
         multiple_choice: bool, **extra: Any) -> dict[str, Any]:
    if multiple_choice and not choices:
        raise DataError(item, "choices", "a multiple-choice item without choices")
    return {
        "id": item, "source": source, "question": question.strip(), "image": image, "choices": choices,
        "answer": answer.strip(), "question_type": "multi_choice" if multiple_choice else "free_form",
        "unit": extra.get("unit") or None, "precision": extra.get("precision"), "subject": extra.get("subject") or "",
    }


def load_mathvista(path: Path) -> list[dict[str, Any]]:
    rows = []
    for pid, record in _members(path, MATHVISTA_LAYOUT, keyed=True):
        item = str(pid)
        if not isinstance(record, dict):
            raise DataError(item, "(record)", f"expected an object, got {type(record).__name__}")
        if "metadata" not in record:
            raise DataError(item, "metadata", f"missing: expected {MATHVISTA_LAYOUT}; the record has "
                                              f"{_fields(record)}")
        metadata = record.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise DataError(item, "metadata", "expected an object")
        if metadata.get("task") != GEOMETRY_TASK:
            continue
        kind = _text(item, record, "question_type")
        if kind not in ("multi_choice", "free_form"):
            raise DataError(item, "question_type", f"unknown value {kind!r}")
        choices = record.get("choices") or []
        if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
            raise DataError(item, "choices", "expected a list of option texts or null")
        answer = _text(item, record, "answer")
        if kind == "multi_choice" and answer not in choices:
            raise DataError(item, "answer", f"{answer[:40]!r} is not one of the choices")
        rows.append(_row(item, "mathvista_geometry", _text(item, record, "question"),
                         _image(item, path.parent, _text(item, record, "image")), list(choices), answer,
                         kind == "multi_choice", unit=record.get("unit"), precision=record.get("precision"),
                         subject=metadata.get("skills") and ", ".join(map(str, metadata["skills"]))))
    return rows


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(number, line) of each line of a JSON-lines file, read a line at a time; the file is
    checked as UTF-8 first, a chunk at a time, so text that is not UTF-8 is refused before
    any line is read (as reading it whole refused it)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise DataError("(file)", path.name, "not UTF-8 text") from None
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            yield number, line.rstrip("\n")


def split_choices(question: str) -> tuple[str, list[str]]:
    """A MathVerse question and the options written inside it ("Choices:\\nA:50°\\nB:…")."""
    parts = _CHOICES_BLOCK.split(question, maxsplit=1)
    if len(parts) == 1:
        return question, []
    choices = []
    for line in parts[1].splitlines()[:26]:
        match = _CHOICE_LINE.match(line)
        if match:
            choices.append(match.group(2).strip())
    return parts[0], choices


def _load_mathverse(version: str, source: str) -> Callable[[Path], list[dict[str, Any]]]:
    def load(path: Path) -> list[dict[str, Any]]:
        rows = []
        for index, record in _members(path, MATHVERSE_LAYOUT, keyed=False):
            item = str(record.get("sample_index", f"#{index}")) if isinstance(record, dict) else f"#{index}"
            if not isinstance(record, dict):
                raise DataError(item, "(record)", "expected an object")
            if "problem_version" not in record:
                raise DataError(item, "problem_version", f"missing: expected {MATHVERSE_LAYOUT}; the record has "
                                                         f"{_fields(record)}")
            if record.get("problem_version") != version:
                continue
            kind = _text(item, record, "question_type")
            if kind not in ("multi-choice", "free-form"):
                raise DataError(item, "question_type", f"unknown value {kind!r}")
            question = _text(item, record, "question", required=False)
            text, choices = split_choices(question)
            if kind == "multi-choice" and not choices and version != "Vision Only":
                raise DataError(item, "question", "a multiple-choice question without a Choices: block")
            if kind == "multi-choice" and not choices:
                # Vision Only: the options are drawn in the image; their letters still count.
                _, choices = split_choices(_text(item, record, "question_for_eval", required=False))
            metadata = record.get("metadata") or {}
            rows.append(_row(item, source, text, _image(item, path.parent, _text(item, record, "image")), choices,
                             _text(item, record, "answer"), kind == "multi-choice",
                             subject=metadata.get("subfield", "") if isinstance(metadata, dict) else ""))
        return rows

    return load


def load_geoqa(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for number, line in _lines(path):
        if not line.strip():
            continue
        if not rows and line.lstrip()[:1] == "[":  # the first line with text opens a list
            raise DataError("(file)", path.name, f"expected {GEOQA_LAYOUT}, found a JSON list")
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise DataError(f"line {number}", "(record)", f"{path.name}: not valid JSON: {str(exc)[:200]}") from None
        if not isinstance(record, dict):
            raise DataError(f"line {number}", "(record)", "expected an object")
        item = str(record.get("id", f"line {number}"))
        choices = record.get("choices")
        if not isinstance(choices, list) or not choices or not all(isinstance(c, (str, int, float)) for c in choices):
            raise DataError(item, "choices", "expected a non-empty list of options")
        choices = [str(c) for c in choices]
        label = record.get("label", record.get("lable"))
        if isinstance(label, bool) or not isinstance(label, int):
            raise DataError(item, "label", f"expected the index of the right option, got {label!r}")
        if not 0 <= label < len(choices):
            label -= 1  # a 1-based label (some GeoQA+ copies): only when 0-based cannot be meant
            if not 0 <= label < len(choices):
                raise DataError(item, "label", f"{record.get('label', record.get('lable'))!r} points at no option")
        answer = "ABCDEFGH"[label]
        if record.get("answer") not in (None, "") and str(record["answer"]).strip() != choices[label].strip():
            raise DataError(item, "answer", f"{str(record['answer'])[:40]!r} is not option {answer} ({choices[label][:40]!r})")
        rows.append(_row(item, "geoqa", _text(item, record, "subject"),
                         _image(item, path.parent, _text(item, record, "image")), choices, answer, True))
    return rows


SOURCES: dict[str, Source] = {
    s.name: s
    for s in (
        Source("mathverse_vision_only", PROBLEM_VISION_ONLY, "mathverse/testmini.json",
               _load_mathverse("Vision Only", "mathverse_vision_only"), names=("testmini.json",),
               layout=MATHVERSE_LAYOUT),
        Source("mathverse_vision_intensive", PROBLEM_VISION_INTENSIVE, "mathverse/testmini.json",
               _load_mathverse("Vision Intensive", "mathverse_vision_intensive"), names=("testmini.json",),
               layout=MATHVERSE_LAYOUT),
        Source("mathvista_geometry", PROBLEM_WITH_QUESTION, "mathvista/testmini.json", load_mathvista,
               names=("testmini.json", "annot_testmini.json"), layout=MATHVISTA_LAYOUT),
        Source("geoqa", PROBLEM_WITH_QUESTION, "geoqa/test.jsonl", load_geoqa, paper_sample=200,
               names=("test.jsonl",), layout=GEOQA_LAYOUT),
    )
}


def sample_file(source: Source) -> Path:
    with as_file(files(__package__).joinpath("sources", *source.sample.split("/"))) as path:
        return Path(path)


def sources_root() -> Path:
    """The embedded `sources/` folder: each source's sample, and `captions/` beside them."""
    with as_file(files(__package__).joinpath("sources")) as path:
        return Path(path)


def sample_captions(source: Source, root: Path | None = None) -> CaptionStore:
    """The reference caption store of a source's embedded sample (under `root`/captions).

    A caption store, not a caption table, so the shipped captions are read by the same code
    (and file naming) as a captioner's own: `geomeval capgeo build` joins either the same way.
    """
    folder = (root if root is not None else sources_root()) / SAMPLE_CAPTIONS
    return CaptionStore(folder, REFERENCE_CAPTIONER, source.name, source.variant)


def _check_format(name: str, source: Source, file: Path) -> None:
    """A file of a layout the loaders do not read, refused naming what was expected."""
    suffix = file.suffix.lower()
    if suffix in (".pk", ".pkl", ".pickle"):
        raise DataError("(file)", file.name, f"a Python pickle (GeoQA's release format) is never read for {name}: "
                                             f"unpickling can run code; expected {source.layout} (write the "
                                             "pickle's records out as such lines)")
    if suffix in (".parquet", ".arrow"):
        raise DataError("(file)", file.name, f"Hub {suffix[1:]} shards are not read for {name}; expected "
                                             f"{source.layout}")


def load_source(name: str, path: str | Path | None = None) -> list[dict[str, Any]]:
    """Rows of one source: from `path` (its public file) or, without one, the embedded sample."""
    if name not in SOURCES:
        raise ValueError(f"unknown CapGeo source {name!r}; sources: {', '.join(SOURCES)}")
    source = SOURCES[name]
    file = Path(path).expanduser() if path is not None else sample_file(source)
    if file.is_dir():
        candidates = [file / n for n in source.names if (file / n).is_file()]
        if not candidates:
            found = sorted(p.name + ("/" if p.is_dir() else "") for p in file.iterdir())
            shown = ", ".join(found[:12]) + (f", … ({len(found)} in all)" if len(found) > 12 else "")
            raise FileNotFoundError(
                f"{file} holds no {' or '.join(source.names)} for source {name} (expected {source.layout}); "
                f"found: {shown or 'nothing'}")
        file = candidates[0]
    if not file.is_file():
        raise FileNotFoundError(f"{name}: source file not found: {file}")
    _check_format(name, source, file)
    rows = source.load(file)
    if not rows:
        raise DataError("(source)", name, f"no items of this source in {file}")
    return rows

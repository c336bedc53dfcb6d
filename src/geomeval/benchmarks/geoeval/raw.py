"""Read the official GeoEval release (one JSON dict per subset beside a diagram folder) into
typed rows, one subset (one Hugging Face config) at a time.

The release keys each problem by its id; a record carries `dataset_name`, `text`
(`{"Num_Exp": …}`, plus `aug_problem` in the aug subset), `diagram_name`,
`diagram_description` (`{"structure": [...], "semantic": [...]}`, plus
`backward_semantic` in the backward subset), `choice_list`, `answer_value`,
`knowledge_point`, `formal_knowledge_point`, `geometry_shape`, often `solution`
(`{"program": …}`, `{"equation": …}` or `{"cot": …}`), and in the
backward subset `backward_text` and `backward_answer_value`. Every field is checked; an
unknown field, a missing one or a bad value stops the build with a `DataError` naming the
item and the field (or, with `skip_invalid`, leaves the item out and counts it).

Where the subsets are (`--raw`): the release folder, holding each subset under a name the
official tools read (`run_llm_response.py` and `sh_files/*/eval*_config.yaml`: `select.json`,
`backward_aug.json`, `aug.json`, `solid.json`; `data_generation/create_backward_reasoning_data.py`,
in the repository's history, wrote the backward file as `backward_reasoning_select.json`) or
under its config's name (`geoeval_2000.json`, …), either directly or in `dataset_merge/` or
`LLM_eval/dataset_merge/` as the official tools lay it out; or one subset's JSON file. Which of
these a folder is, is detected; a folder holding none of them is refused with an error naming
the names and places looked for and what the folder holds (`layout_error`). Diagrams are
looked up by `diagram_name` in `images/` or `diagrams/` beside the JSON file (or beside its
folder, or at the release root above `LLM_eval/`), or beside the JSON file itself.

What the release does not store is derived here (the card documents each rule):
`answer_type` from the form of the graded answer, `problem_type` from the knowledge points,
the shapes and the text, and `complexity` by the paper's Algorithm 1 (`complexity.rate`)
over the whole subset read, the set the levels are relative to.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..base import DataError
from ..datasource import ROW_SINK, RawRelease, collect, iter_json_object, read_image
from .complexity import measure, rate
from .features import SOURCES, SUBSETS
from .prompts import problem_text

# Official names first, then the config's own name. run_llm_response.py reads
# `dataset_merge/select.json` (sh_files/*/eval_config.yaml), `dataset_merge/aug.json` (its
# aug_result output type), `dataset_merge/backward_aug.json` (backaug_result) and
# `dataset_merge/solid.json` (sh_files/gpt35/eval_solid_config.yaml); the backward generator
# (data_generation/create_backward_reasoning_data.py, removed later) wrote
# `backward_reasoning_select.json`.
SUBSET_FILES: dict[str, tuple[str, ...]] = {
    "geoeval_2000": ("select.json", "geoeval_2000.json"),
    "geoeval_backward": ("backward_aug.json", "backward_reasoning_select.json", "geoeval_backward.json"),
    "geoeval_aug": ("aug.json", "geoeval_aug.json"),
    "geoeval_hard": ("solid.json", "geoeval_hard.json"),
}
# What the official tools write beside the data: model outputs, not a release to build.
RESULT_FILE = "eval_GeoEval_result.json"
RESULT_DIRS = ("result", "aug_result", "backaug_result", "solid_result")
RELEASE_DIRS = ("", "dataset_merge", "LLM_eval/dataset_merge")
DIAGRAM_DIRS = ("images", "diagrams")
DIAGRAM_SUFFIXES = (".png", ".jpg", ".jpeg")
MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_TEXT_CHARS = 20_000
MAX_LIST = 64

KNOWN_FIELDS = frozenset(
    {
        "dataset_name", "text", "diagram_name", "diagram_description", "choice_list",
        "answer_value", "backward_text", "backward_answer_value", "knowledge_point",
        "formal_knowledge_point", "geometry_shape", "solution",
        # Read from every record by the official loader for open-source models
        # (tool/opensource_llm_tool.py copies them into its output); geomeval stores neither.
        "dataset_id", "choice_id",
    }
)
TEXT_FIELDS = frozenset({"Num_Exp", "aug_problem"})
DESCRIPTION_FIELDS = frozenset({"structure", "semantic", "backward_semantic"})
SOLUTION_KEYS = ("program", "equation", "cot")
# The official code subscripts these in every record it reads (tool/data_loader.py,
# tool/caculate_score.py, evaluation/automatic_evaluate.py), so they are present, possibly
# null; the hard subset is read only by the loader and the solid scorer.
_COMMON = ("text", "diagram_name", "diagram_description", "choice_list", "answer_value")
_MAIN = (*_COMMON, "dataset_name", "knowledge_point", "formal_knowledge_point", "geometry_shape")
REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    "geoeval_2000": _MAIN,
    "geoeval_backward": (*_MAIN, "backward_text", "backward_answer_value"),
    "geoeval_aug": _MAIN,
    "geoeval_hard": _COMMON,
}
HARD_SOURCE = "GeoEval-hard"
_SOURCE_NAMES = {name.lower(): name for name in SOURCES} | {"math-geometry": "MATH"}

# The graded answer's form. Numbers may carry a degree or percent sign ("50°"), and a
# fraction of integers is a number too; a coordinate is a parenthesised 2- or 3-tuple.
_NUMBER = re.compile(
    r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?(?:\s*(?:°|%|\^\{?\\circ\}?|degrees?))?"
)
_FRACTION = re.compile(r"[+-]?\d+\s*/\s*[1-9]\d*")
_OPTION = re.compile(r"\(?([A-E])\)?\.?")
_OPENERS, _CLOSERS = "([{", ")]}"
# Trailing punctuation of a backward answer: the official generator keeps the masked token
# as written ("50°,") while its `x` replacement drops the punctuation ("x°,").
_TOKEN_PUNCTUATION = ",.;:?!\"'”"

# problem_type: words that name a solid or an analytic (coordinate) setting. Labels (shapes
# and knowledge points) are trusted first; the text only when the labels say nothing.
_SOLID = (
    r"cones?|conical|spheres?|spherical|hemispheres?|prisms?|cylinders?|cylindrical|"
    r"cubes?(?!\s+roots?)|cuboids?|pyramids?|frustums?|tetrahedr(?:on|a)|polyhedr(?:on|a)|volumes?"
)
_SOLID_LABEL = re.compile(rf"\b(?:{_SOLID}|solid|three-dimensional|3d)\b", re.IGNORECASE)
_SOLID_TEXT = re.compile(rf"\b(?:{_SOLID})\b", re.IGNORECASE)
_ANALYTIC = (
    r"coordinates?|coordinate plane|analytic|cartesian|x-axis|y-axis|xy-plane|parabola|"
    r"ellipse|hyperbola|slopes?"
)
_ANALYTIC_LABEL = re.compile(rf"\b(?:{_ANALYTIC}|equations? of (?:a |the )?(?:line|circle)s?)\b", re.IGNORECASE)
_ANALYTIC_TEXT = re.compile(
    rf"\b(?:{_ANALYTIC})\b|\(\s*-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?\s*\)", re.IGNORECASE
)


def subset_file(raw: str | Path, config: str) -> Path | None:
    """The JSON file of `config` in the raw release `raw` (a folder or one subset's file),
    or None when the release does not hold that subset."""
    if config not in SUBSET_FILES:
        raise ValueError(f"unknown GeoEval subset {config!r}; subsets: {', '.join(SUBSETS)}")
    path = Path(raw)
    if path.is_file():
        owner = subset_of_file(path)
        if owner is None:
            names = ", ".join(name for names in SUBSET_FILES.values() for name in names)
            raise FileNotFoundError(
                f"{path.name} is not a GeoEval subset file name ({names}); rename it after its subset"
            )
        return path if owner == config else None
    if not path.is_dir():
        raise FileNotFoundError(f"GeoEval raw release not found: {path}")
    for folder in RELEASE_DIRS:
        found = [path / folder / name for name in SUBSET_FILES[config] if (path / folder / name).is_file()]
        if len(found) > 1:
            raise ValueError(f"{path / folder} holds {config} twice ({', '.join(p.name for p in found)}); keep one")
        if found:
            return found[0]
    return None


def subset_of_file(path: Path) -> str | None:
    """The subset a JSON file holds, by its name."""
    return next((config for config, names in SUBSET_FILES.items() if path.name in names), None)


def subsets_in(raw: str | Path) -> tuple[str, ...]:
    """The subsets the raw release holds, in the paper's order; a folder holding none of them
    is refused (`layout_error`)."""
    found = tuple(config for config in SUBSETS if subset_file(raw, config) is not None)
    if not found and Path(raw).is_dir():
        raise layout_error(Path(raw))
    return found


def is_release(path: Path) -> bool:
    """Whether `path` is a GeoEval raw release: a subset's JSON file, or a folder holding one
    where `subset_file` looks. An existing folder holding none is refused (`layout_error`),
    naming what was looked for and what is there."""
    if path.is_file():
        return subset_of_file(path) is not None
    if not path.is_dir():
        return False
    if any(
        (path / folder / name).is_file()
        for folder in RELEASE_DIRS
        for names in SUBSET_FILES.values()
        for name in names
    ):
        return True
    raise layout_error(path)


MAX_SHOWN = 12


def layout_error(path: Path) -> FileNotFoundError:
    """The error for a folder in no GeoEval layout: the file names and places looked for,
    and what the folder holds (its JSON files, else its entries)."""
    expected = "; ".join(f"{config}: {' or '.join(names)}" for config, names in SUBSET_FILES.items())
    places = ", ".join(f"{path}/{folder}" if folder else str(path) for folder in RELEASE_DIRS)
    jsons = sorted(str(p.relative_to(path)) for p in _walk(path, depth=3) if p.suffix.lower() == ".json")
    if jsons:
        held = f"JSON files {', '.join(jsons[:MAX_SHOWN])}" + (f" and {len(jsons) - MAX_SHOWN} more" if len(jsons) > MAX_SHOWN else "")
    else:
        entries = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())
        held = f"no JSON file; entries: {', '.join(entries[:MAX_SHOWN]) or 'none'}" + (
            f" and {len(entries) - MAX_SHOWN} more" if len(entries) > MAX_SHOWN else "")
    hint = ""
    if any(Path(name).name == RESULT_FILE for name in jsons):
        hint = (f" ({RESULT_FILE} under {'/, '.join(RESULT_DIRS)}/ holds a model's outputs, written by the "
                "official tools; build from the data files they read)")
    return FileNotFoundError(
        f"{path}: no GeoEval subset found. Expected the official layout (the files "
        f"run_llm_response.py reads: {expected}) in one of {places}. Found: {held}{hint}"
    )


def _walk(path: Path, depth: int) -> Iterable[Path]:
    """Files under `path`, at most `depth` folders down (hidden ones skipped)."""
    for entry in sorted(path.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_file():
            yield entry
        elif entry.is_dir() and depth > 0:
            yield from _walk(entry, depth - 1)


def read_release(raw: str | Path, config: str, *, skip_invalid: bool = False) -> RawRelease:
    """Typed rows of one subset; FileNotFoundError when the release does not hold it.

    The subset is read twice, a record at a time, rather than held: first for the lengths
    of its valid items, by which each item's complexity is rated against the others
    (`rate_complexity`), then for the rows, each with its level, sent on as they come (a
    streamed build holds none of them). Both reads convert every record (images included),
    so the items rated are exactly those kept."""
    json_path = subset_file(raw, config)
    if json_path is None:
        names = " or ".join(SUBSET_FILES[config])
        raise FileNotFoundError(f"{raw} holds no {config} subset ({names})")
    roots = diagram_roots(json_path)

    def convert(item: str, record: Any) -> dict[str, Any]:
        return convert_record(item, record, config, roots)

    levels = rate_complexity(iter_json_object(json_path), convert, config, skip_invalid=skip_invalid)
    return collect(
        iter_json_object(json_path, prechecked=True),  # rating read it whole: checked already
        lambda item, record: {**convert(item, record), "complexity": levels[item]},
        skip_invalid=skip_invalid,
    )


def diagram_roots(json_path: Path) -> tuple[Path, ...]:
    """Where the diagrams of a subset file are looked up, in order: `images/` or `diagrams/`
    beside it, its folder, the same beside its folder, and, for the official tools'
    `LLM_eval/dataset_merge/`, the same at the release root."""
    here = json_path.parent
    roots = [*(here / d for d in DIAGRAM_DIRS), here, *(here.parent / d for d in DIAGRAM_DIRS)]
    if here.name == "dataset_merge" and here.parent.name == "LLM_eval":
        roots += [here.parent.parent / d for d in DIAGRAM_DIRS]
    return tuple(roots)


class _Lengths:
    """A row sink (`ROW_SINK`) that keeps each row's id and measured lengths, not the row."""

    def __init__(self, config: str):
        self.config = config
        self.ids: list[str] = []
        self.lengths: list[tuple[int, int, int]] = []

    def write(self, row: dict[str, Any]) -> None:
        self.ids.append(row["id"])
        self.lengths.append(measure(problem_text(row, self.config), row["diagram_description"], row["solution"]))


def rate_complexity(
    records: Iterable[tuple[str, Any]], convert: Callable[[str, Any], dict[str, Any]], config: str,
    *, skip_invalid: bool = False,
) -> dict[str, str]:
    """Each valid item's complexity level by id, rated against the other items of its subset.

    Measured on what the subset asks (the backward or rephrased question where it has one),
    its diagram description and its reference solution, as `GeoEval.load_items` measures
    items that come without a level. Items left out by `--skip-invalid` are not in the set:
    `records` are converted as the build converts them, and only their lengths are kept."""
    measured = _Lengths(config)
    token = ROW_SINK.set(measured)
    try:
        collect(records, convert, skip_invalid=skip_invalid)
    finally:
        ROW_SINK.reset(token)
    return dict(zip(measured.ids, rate(measured.lengths), strict=True))


def convert_record(item_id: str, record: Any, config: str, roots: tuple[Path, ...]) -> dict[str, Any]:
    """One release record of subset `config` as a typed row."""
    if not isinstance(record, dict):
        raise DataError(item_id, "(record)", f"expected an object, got {type(record).__name__}")
    unknown = sorted(str(k) for k in record if k not in KNOWN_FIELDS)
    if unknown:
        raise DataError(item_id, unknown[0], f"unknown field (known: {', '.join(sorted(KNOWN_FIELDS))})")
    for name in REQUIRED_FIELDS[config]:
        if name not in record:
            raise DataError(item_id, name, "missing")
    problem, rephrased = _problem_text(item_id, record["text"], config)
    choices = _choices(item_id, record["choice_list"])
    answer = _value(item_id, "answer_value", record["answer_value"])
    backward_problem = backward_answer = None
    if config == "geoeval_backward":
        backward_problem = _value(item_id, "backward_text", record["backward_text"])
        backward_answer = _value(item_id, "backward_answer_value", record["backward_answer_value"])
        backward_answer = backward_answer.rstrip(_TOKEN_PUNCTUATION).strip()
        if not backward_answer:
            raise DataError(item_id, "backward_answer_value", "no value left after its punctuation")
    description = _description(item_id, record["diagram_description"], config)
    shapes = _labels(item_id, "geometry_shape", record.get("geometry_shape"))
    knowledge = _labels(item_id, "knowledge_point", record.get("knowledge_point"))
    formal = _labels(item_id, "formal_knowledge_point", record.get("formal_knowledge_point"))
    graded, graded_field = (
        (backward_answer, "backward_answer_value") if backward_answer is not None else (answer, "answer_value")
    )
    # A backward question asks for the masked x, so the forward question's options do not apply.
    posed_choices = None if config == "geoeval_backward" else choices
    return {
        "id": item_id,
        "subset": config,
        "source": _source(item_id, record.get("dataset_name"), config),
        "problem": problem,
        "rephrased_problem": rephrased,
        "backward_problem": backward_problem,
        "backward_answer": backward_answer,
        "diagram": _diagram(item_id, record["diagram_name"], roots),
        "diagram_description": description,
        "choices": posed_choices,
        "answer": answer,
        "solution": _solution(item_id, record.get("solution")),
        "answer_type": answer_type(item_id, graded, posed_choices, graded_field),
        "problem_type": problem_type(shapes + knowledge + formal, f"{problem}\n{description or ''}", answer),
        "geometry_shapes": shapes,
        "knowledge_points": knowledge,
        "formal_knowledge_points": formal,
        "complexity": None,
        "question_length": len(problem.split()),
    }


def _problem_text(item_id: str, value: Any, config: str) -> tuple[str, str | None]:
    """(text.Num_Exp, text.aug_problem in the aug subset, else None)."""
    if not isinstance(value, dict):
        raise DataError(item_id, "text", f"expected an object with Num_Exp, got {type(value).__name__}")
    unknown = sorted(str(k) for k in value if k not in TEXT_FIELDS)
    if unknown:
        raise DataError(item_id, f"text.{unknown[0]}", f"unknown field (known: {', '.join(sorted(TEXT_FIELDS))})")
    if value.get("Num_Exp") is None:
        raise DataError(item_id, "text.Num_Exp", "missing")
    problem = _value(item_id, "text.Num_Exp", value["Num_Exp"])
    if config != "geoeval_aug":
        return problem, None
    if value.get("aug_problem") is None:
        raise DataError(item_id, "text.aug_problem", "missing: the aug subset poses the rephrased problem")
    return problem, _value(item_id, "text.aug_problem", value["aug_problem"])


def _solution(item_id: str, value: Any) -> str | None:
    """The reference solution: `solution.program` (Geometry3K, PGPS9K, UniGeo, GeoQA+),
    else `.equation` (GeometryQA), else `.cot` (MATH); other keys (a result file's model
    outputs) are not read."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise DataError(item_id, "solution", f"expected an object or null, got {type(value).__name__}")
    for key in SOLUTION_KEYS:
        entry = value.get(key)
        if isinstance(entry, list) and all(isinstance(step, str) for step in entry):
            entry = " ".join(entry)
        if entry is not None and not isinstance(entry, str):
            raise DataError(item_id, f"solution.{key}", f"expected text or null, got {type(entry).__name__}")
        if entry and entry.strip():
            return entry.strip()[:MAX_TEXT_CHARS]
    return None


def _value(item_id: str, field: str, value: Any) -> str:
    """A required text or number as stripped text."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise DataError(item_id, field, f"expected text or a number, got {type(value).__name__}")
    text = value.strip() if isinstance(value, str) else str(value)
    if not text:
        raise DataError(item_id, field, "empty")
    if len(text) > MAX_TEXT_CHARS:
        raise DataError(item_id, field, f"longer than {MAX_TEXT_CHARS} characters")
    return text


def _choices(item_id: str, value: Any) -> list[str] | None:
    """`choice_list` as text; null entries are dropped as the official prompt does, and no
    options at all means a free-response problem (None)."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) > MAX_LIST:
        raise DataError(item_id, "choice_list", f"expected a list of at most {MAX_LIST} options or null")
    choices = [_value(item_id, "choice_list", entry) for entry in value if entry is not None]
    return choices or None


def _labels(item_id: str, field: str, value: Any) -> list[str]:
    """Shapes and knowledge points: the release writes null, one label, or a list of them."""
    if value is None:
        return []
    entries = [value] if isinstance(value, str) else value
    if not isinstance(entries, list) or len(entries) > MAX_LIST:
        raise DataError(item_id, field, f"expected text, a list of text or null, got {type(value).__name__}")
    labels: list[str] = []
    for entry in entries:
        if entry is None:
            continue
        if not isinstance(entry, str):
            raise DataError(item_id, field, f"expected text entries, got {type(entry).__name__}")
        if entry.strip() and entry.strip() not in labels:
            labels.append(entry.strip())
    return labels


def _source(item_id: str, value: Any, config: str) -> str:
    """`dataset_name` as one of SOURCES; hard-subset problems without one are the subset's own."""
    if value is None and config == "geoeval_hard":
        return HARD_SOURCE
    if not isinstance(value, str) or value.strip().lower() not in _SOURCE_NAMES:
        shown = value[:60] if isinstance(value, str) else type(value).__name__
        raise DataError(item_id, "dataset_name", f"unknown source {shown!r} (known: {', '.join(SOURCES)}, MATH-Geometry)")
    return _SOURCE_NAMES[value.strip().lower()]


def _description(item_id: str, value: Any, config: str) -> str | None:
    """`diagram_description` as one line of clauses: the structure clauses, then the semantic
    ones (in the backward subset the `backward_semantic` ones, where the value asked for is
    replaced by x), joined by ", "."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise DataError(item_id, "diagram_description", f"expected an object or null, got {type(value).__name__}")
    unknown = sorted(str(k) for k in value if k not in DESCRIPTION_FIELDS)
    if unknown:
        raise DataError(
            item_id, f"diagram_description.{unknown[0]}",
            f"unknown field (known: {', '.join(sorted(DESCRIPTION_FIELDS))})",
        )
    semantic_key = "semantic"
    if config == "geoeval_backward":
        semantic_key = "backward_semantic"
        if value.get(semantic_key) is None:
            raise DataError(
                item_id, "diagram_description.backward_semantic",
                "missing: the forward semantic clauses state the masked value",
            )
    clauses = _clauses(item_id, "structure", value.get("structure")) + _clauses(
        item_id, semantic_key, value.get(semantic_key)
    )
    return ", ".join(clauses) or None


def _clauses(item_id: str, key: str, value: Any) -> list[str]:
    field = f"diagram_description.{key}"
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > 4 * MAX_LIST:
        raise DataError(item_id, field, "expected a list of clauses or null")
    if not all(isinstance(clause, str) for clause in value):
        raise DataError(item_id, field, "expected text clauses")
    return [clause.strip() for clause in value if clause.strip()]


def _diagram(item_id: str, value: Any, roots: tuple[Path, ...]) -> dict[str, Any] | None:
    """The image `diagram_name` names, from the first diagram folder holding it."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise DataError(item_id, "diagram_name", f"expected a file name or null, got {type(value).__name__}")
    parts = [p for p in value.strip().replace("\\", "/").split("/") if p]
    if not parts or value.strip().startswith("/") or any(p in (".", "..") for p in parts):
        raise DataError(item_id, "diagram_name", f"{value[:120]!r} must name a file inside the diagram folder")
    names = [parts]
    if not Path(parts[-1]).suffix:  # a bare name: the usual image suffixes
        names = [[*parts[:-1], parts[-1] + suffix] for suffix in DIAGRAM_SUFFIXES]
    for root in roots:
        for name in names:
            path = root.joinpath(*name)
            if path.is_file():
                return read_image(item_id, "diagram_name", path, MAX_IMAGE_BYTES, inside=root)
    looked = ", ".join(str(root) for root in roots)
    raise DataError(item_id, "diagram_name", f"diagram {value[:120]!r} not found (looked in {looked})")


def answer_type(item_id: str, answer: str, choices: list[str] | None, field: str = "answer_value") -> str:
    """The form of a graded answer: an option letter (with the options it picks from), a
    number, a coordinate, or else an expression."""
    text = answer.strip()
    option = _OPTION.fullmatch(text)
    if option:
        if choices is None:
            raise DataError(item_id, field, f"option {text!r} but the problem has no choice_list")
        if ord(option.group(1)) - ord("A") >= len(choices):
            raise DataError(item_id, field, f"option {text!r} but only {len(choices)} choices")
        return "option"
    if _NUMBER.fullmatch(text) or _FRACTION.fullmatch(text):
        return "number"
    if _is_coordinate(text):
        return "coordinate"
    return "expression"


def _is_coordinate(text: str) -> bool:
    """A parenthesised tuple of 2 or 3 non-empty components, none an equation."""
    if len(text) < 5 or text[0] != "(" or text[-1] != ")":
        return False
    parts, depth, current = [], 0, ""
    for char in text[1:-1]:
        if char in _OPENERS:
            depth += 1
        elif char in _CLOSERS:
            depth -= 1
            if depth < 0:
                return False  # "(1) + (2)": the outer parentheses do not enclose it all
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return depth == 0 and len(parts) in (2, 3) and all(p.strip() and "=" not in p for p in parts)


def problem_type(labels: list[str], text: str, answer: str) -> str:
    """flat, solid or analytic, when the release does not say.

    In order: a label (shape or knowledge point) naming a solid or volume → solid; a label
    naming coordinates, slopes or conics, or a coordinate answer → analytic; then the same
    words in the problem text and diagram description (a coordinate pair like "(1, -2)"
    counts as analytic); otherwise flat.
    """
    joined = " | ".join(labels)
    if _SOLID_LABEL.search(joined):
        return "solid"
    if _ANALYTIC_LABEL.search(joined) or _is_coordinate(answer.strip()):
        return "analytic"
    if _SOLID_TEXT.search(text):
        return "solid"
    if _ANALYTIC_TEXT.search(text):
        return "analytic"
    return "flat"

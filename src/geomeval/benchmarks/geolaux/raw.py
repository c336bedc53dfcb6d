"""Read the official GeoLaux raw release (a JSON dict plus image folders) into typed rows.

Both published layouts are read, detected by their figure folders (`LAYOUTS`): the authors'
repository as it is today and the older release.

Every field is checked; a bad item stops the build with a `DataError` naming the
item and the field, or, with `skip_invalid`, is left out and counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...answers import ChoiceError, parse_choices
from ..base import DataError
from ..datasource import RawRelease, collect, iter_json_object, read_image
from .features import AUXILIARY_TYPES, TYPES

NULLS = (None, "", "null", "None", "none")
MAX_IMAGE_BYTES = 20 * 1024 * 1024
_CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class Layout:
    """One published shape of the release: its JSON beside the folders of its figures."""

    name: str
    original: str  # the folder of the problems' figures (`original_image_name`)
    auxiliary: str  # the folder of the figures with auxiliary lines (`auxiliary_image_name`)


# The authors' repository today ships data/GeoLaux_minidata.json with data/mini_original_images/
# and data/mini_auxiliary_images/ (the folders its evaluation scripts read); earlier copies of
# the release (the shared mini sample, geomeval's embedded sample) put the figures in
# original_images/ and auxiliary_images/.
LAYOUTS = (
    Layout("the authors' repository (data/GeoLaux_minidata.json)", "mini_original_images", "mini_auxiliary_images"),
    Layout("the older release", "original_images", "auxiliary_images"),
)
REPOSITORY_JSON = "GeoLaux_minidata.json"


def _expected() -> str:
    return "; or ".join(f"a release JSON beside {layout.original}/ (and {layout.auxiliary}/), as {layout.name}"
                        for layout in LAYOUTS)


def _found(folder: Path) -> str:
    names = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir())
    shown = ", ".join(names[:12]) + (f", … ({len(names)} in all)" if len(names) > 12 else "")
    return shown or "an empty folder"


def layout_of(root: Path) -> Layout:
    """The layout whose figures folder `root` holds; a FileNotFoundError naming what was
    expected and what was found when none is there."""
    for layout in LAYOUTS:
        if (root / layout.original).is_dir():
            return layout
    raise FileNotFoundError(f"{root} is no GeoLaux release layout geomeval knows: expected {_expected()}; "
                            f"found: {_found(root)}")


def locate_release(raw: str | Path) -> tuple[Path, Path]:
    """Return (json file, folder holding the figure folders), the layout detected: the
    authors' repository (its root, its data/ folder or data/GeoLaux_minidata.json) or the
    older release's folder or JSON. An unknown layout is an error naming both."""
    path = Path(raw)
    if path.is_file():
        layout_of(path.parent)
        return path, path.parent
    if not path.is_dir():
        raise FileNotFoundError(f"GeoLaux raw release not found: {path}")
    if not any(path.glob("*.json")) and (path / "data" / REPOSITORY_JSON).is_file():
        path = path / "data"  # the repository's root
    candidates = sorted(path.glob("*.json"))
    if len(candidates) > 1 and (path / REPOSITORY_JSON) in candidates:
        candidates = [path / REPOSITORY_JSON]
    if not candidates:
        raise FileNotFoundError(f"{path} holds no GeoLaux release JSON: expected {_expected()}; found: {_found(path)}")
    if len(candidates) != 1:
        names = ", ".join(p.name for p in candidates)
        raise FileNotFoundError(
            f"{path} should hold exactly one release JSON file (found: {names}); pass the file itself"
        )
    layout_of(path)
    return candidates[0], path


def read_release(raw: str | Path, *, skip_invalid: bool = False) -> RawRelease:
    """Typed rows of the release, its JSON read a record at a time (`iter_json_object`), so
    memory holds one record, not the whole file, however many items it has."""
    json_path, root = locate_release(raw)
    layout = layout_of(root)
    pairs = iter_json_object(json_path, expected="a JSON object keyed by problem id")
    return collect(pairs, lambda item_id, record: convert_record(item_id, record, root, layout), skip_invalid=skip_invalid)


def convert_record(item_id: str, record: Any, root: Path, layout: Layout = LAYOUTS[-1]) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise DataError(item_id, "(record)", f"expected an object, got {type(record).__name__}")

    def text(name: str, *, required: bool = True, nullable: bool = False) -> str | None:
        if name not in record:
            if required:
                raise DataError(item_id, name, "missing")
            return None
        value = record[name]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if nullable and value in NULLS:
            return None
        if not isinstance(value, str):
            raise DataError(item_id, name, f"expected text, got {type(value).__name__}")
        return value

    problem = text("problem_text")
    if not problem or not problem.strip():
        raise DataError(item_id, "problem_text", "empty")
    kind = text("type")
    if kind not in TYPES:
        raise DataError(item_id, "type", f"unknown value {kind!r} (expected one of {', '.join(TYPES)})")
    aux = record.get("auxiliary_type")
    if isinstance(aux, str) and aux.strip().isdigit():
        aux = int(aux)
    if isinstance(aux, bool) or not isinstance(aux, int) or not 0 <= aux < len(AUXILIARY_TYPES):
        raise DataError(item_id, "auxiliary_type", f"expected 0, 1 or 2, got {aux!r}")
    choices = record.get("choices", [])
    if choices in NULLS:
        choices = []
    if not isinstance(choices, list):
        raise DataError(item_id, "choices", f"expected a list, got {type(choices).__name__}")
    try:
        parse_choices(choices)
    except ChoiceError as exc:
        raise DataError(item_id, "choices", str(exc)) from None
    steps = record.get("step_length")
    if isinstance(steps, str) and steps.strip().isdigit():
        steps = int(steps)
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise DataError(item_id, "step_length", f"expected a non-negative integer, got {steps!r}")
    image_name = text("original_image_name")
    aux_image_name = text("auxiliary_image_name", required=False, nullable=True)
    language = text("language", required=False, nullable=True) or (
        "zh" if _CJK.search(problem) else "en"
    )
    return {
        "id": item_id,
        "problem_text": problem,
        "image": _image(item_id, "original_image_name", root / layout.original, image_name),
        "type": kind,
        "choices": list(choices),
        "answer": text("number_answer", nullable=True),
        "unit": text("unit", required=False, nullable=True),
        "solution": text("solution") or "",
        "step_length": steps,
        "steps_explanation": text("steps_explanation", required=False, nullable=True) or "",
        "auxiliary_type": AUXILIARY_TYPES[aux],
        "auxiliary_text": text("auxiliary_text", required=False, nullable=True),
        "auxiliary_image": _image(item_id, "auxiliary_image_name", root / layout.auxiliary, aux_image_name)
        if aux_image_name
        else None,
        "language": language,
    }


def _image(item_id: str, field_name: str, folder: Path, name: str | None) -> dict[str, Any]:
    if not name:
        raise DataError(item_id, field_name, "missing image name")
    if "/" in name or "\\" in name or name.startswith("."):
        raise DataError(item_id, field_name, f"image name {name!r} must be a plain file name")
    path = folder / name
    if not path.suffix:
        path = next((p for p in (folder / f"{name}{ext}" for ext in (".png", ".jpg", ".jpeg")) if p.is_file()), folder / f"{name}.png")
    return read_image(item_id, field_name, path, MAX_IMAGE_BYTES, inside=folder)

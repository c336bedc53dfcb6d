"""One path from a dataset row to the fields of an `Item`, derived from the typed Features.

A built dataset stores class labels as numbers and images as Image features. What a
benchmark poses and scores wants the labels' names and the images' bytes, without
decoding them to PIL and encoding them again: `undecoded` casts every image column
(found by walking the Features) to undecoded `{bytes, path}`, and `named_row` turns every
class label (alone or in a list) back into its name. `geomeval run` reads rows through
both; lmms-eval hands over rows it decoded itself (images as PIL, which the prompts
accept), and `named_row` makes them the same fields. The walk reads the schema as plain data
(`schema.Schema`, or a Features through `to_dict()`), so a run over a built folder never
imports `datasets`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .datasource import read_bounded_image


def _plain(features: Mapping[str, Any]) -> Mapping[str, Any]:
    """The schema as plain data (`schema.Schema`): a `datasets.Features` (lmms-eval's rows,
    a loaded dataset) through its `to_dict()`, a declared schema as it is."""
    to_dict = getattr(features, "to_dict", None)
    return to_dict() if callable(to_dict) else features


def _walk(features: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any], bool]]:
    """(column, feature, is_list) for every top-level column: a list column's element feature."""
    for column, feature in _plain(features).items():
        if isinstance(feature, Mapping) and feature.get("_type") in ("List", "LargeList", "Sequence"):
            yield column, feature["feature"], True
        else:
            yield column, feature, False


def _is(feature: Mapping[str, Any], kind: str) -> bool:
    return feature.get("_type") == kind  # a dict of features (a record) has no "_type"


def image_columns(features: Mapping[str, Any]) -> tuple[str, ...]:
    """The columns holding an image or a list of images."""
    return tuple(column for column, feature, _ in _walk(features) if _is(feature, "Image"))


def label_columns(features: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """{column: its class names} for every column holding a class label or a list of them."""
    return {column: tuple(feature["names"]) for column, feature, _ in _walk(features) if _is(feature, "ClassLabel")}


def undecoded(dataset: Any, features: Mapping[str, Any] | None = None) -> Any:
    """The same rows with every image (alone or in a list) as {bytes, path}, ready to send or
    score without re-encoding; a column the dataset lacks is left alone."""
    from datasets import Image, List
    from datasets.utils import logging as ds_logging

    features = features if features is not None else dataset.features
    shown = ds_logging.is_progress_bar_enabled()
    ds_logging.disable_progress_bar()  # a schema change on a small table: no progress bar
    try:
        for column, feature, is_list in _walk(features):
            if not _is(feature, "Image") or column not in dataset.column_names:
                continue
            dataset = dataset.cast_column(column, List(Image(decode=False)) if is_list else Image(decode=False))
        return dataset
    finally:
        if shown:
            ds_logging.enable_progress_bar()


def _name(value: Any, names: tuple[str, ...], column: str, item: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int):
        return value  # already a name (a raw or in-memory row), or None
    if not 0 <= value < len(names):
        raise ValueError(f"item {item!r}, field {column!r}: class label {value} is not one of 0–{len(names) - 1}")
    return names[value]


def _with_bytes(image: Any) -> Any:
    """A {path}-only image (an undecoded local dataset) with its bytes read; others as given."""
    if isinstance(image, dict) and not image.get("bytes") and image.get("path"):
        path = image["path"]
        return {"bytes": read_bounded_image(Path(path)), "path": path}
    return image


def named_row(row: Mapping[str, Any], features: Mapping[str, Any]) -> dict[str, Any]:
    """`row` as a benchmark's `Item.fields`: class labels (alone or in lists) as their names,
    list columns as lists, images as bytes where only a path was given."""
    fields = dict(row)
    item = fields.get("id")
    labels = label_columns(features)
    images = set(image_columns(features))
    for column, _feature, is_list in _walk(features):
        if column not in fields:
            continue
        value = fields[column]
        if is_list and value is not None:
            value = list(value)
            if column in labels:
                value = [_name(v, labels[column], column, item) for v in value]
            elif column in images:
                value = [_with_bytes(v) for v in value]
        elif column in labels:
            value = _name(value, labels[column], column, item)
        elif column in images:
            value = _with_bytes(value)
        fields[column] = value
    return fields

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

import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..engines.images import read_bounded_image


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


_INT_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


class _Refit(Exception):
    """A value `datasets` would convert (cast, coerce, re-encode): `plain_rows` leaves the
    release to `datasets` rather than guess the conversion."""


def _as_stored(value: Any, feature: Any) -> Any:
    """`value` as a typed dataset gives it back undecoded, for values that round-trip as they
    are (else `_Refit`): a string, an integer in range, a class label's name or number, an
    image as {bytes, path}, lists and records of those, None anywhere."""
    if value is None:
        return None
    if not isinstance(feature, Mapping):
        raise _Refit
    kind = feature.get("_type")
    if kind is None:  # a record: a dict of features
        if not isinstance(value, dict) or set(value) != set(feature):
            raise _Refit
        return {name: _as_stored(value[name], sub) for name, sub in feature.items()}
    if kind == "List":
        if not isinstance(value, list):
            raise _Refit
        return [_as_stored(element, feature["feature"]) for element in value]
    if kind == "Value":
        dtype = feature["dtype"]
        if dtype == "string" and isinstance(value, str):
            return value
        if dtype in _INT_BITS and isinstance(value, int) and not isinstance(value, bool):
            limit = 1 << (_INT_BITS[dtype] - 1)
            if -limit <= value < limit:
                return value
        raise _Refit
    if kind == "ClassLabel":
        if isinstance(value, str) and value in feature["names"]:
            return value  # `named_row` keeps a name, as it names the number datasets stores
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(feature["names"]):
            return value
        raise _Refit
    if kind == "Image":
        # datasets keeps {bytes, path} as it is, unless the path names a file here (it then
        # keeps only the path): that case, and any other image form, is left to it
        if (isinstance(value, dict) and set(value) <= {"bytes", "path"} and isinstance(value.get("bytes"), bytes)
                and (value.get("path") is None or (isinstance(value["path"], str) and not os.path.isfile(value["path"])))):
            return {"bytes": value["bytes"], "path": value.get("path")}
        raise _Refit
    raise _Refit


class PlainRows:
    """A release's rows held as Python values, as a typed dataset of them would give them back
    (`undecoded`): rows by iteration, a column as rows[name], `select`, `len`. What `geomeval
    run` reads an embedded sample or a raw release through, without importing `datasets`."""

    def __init__(self, rows: list[dict[str, Any]], columns: list[str]):
        self.rows = rows
        self.column_names = columns

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.rows)

    def __getitem__(self, name: str) -> list[Any]:
        return [row[name] for row in self.rows]

    def select(self, keep: Iterable[int]) -> PlainRows:
        return PlainRows([self.rows[i] for i in keep], self.column_names)


def plain_rows(rows: list[dict[str, Any]], features: Mapping[str, Any]) -> PlainRows | None:
    """`rows` (a raw release's, as its reader made them for `Dataset.from_list`) as the typed,
    undecoded dataset would give them back, or None when a value would be converted on the
    way (a number for a string, a float, a label out of its names, an image given by path):
    the caller then builds the dataset. Every row must hold exactly the schema's columns."""
    schema = _plain(features)
    columns = list(schema)
    wanted = set(columns)
    stored: list[dict[str, Any]] = []
    try:
        for row in rows:
            if set(row) != wanted:
                raise _Refit
            stored.append({column: _as_stored(row[column], schema[column]) for column in columns})
    except _Refit:
        return None
    return PlainRows(stored, columns)

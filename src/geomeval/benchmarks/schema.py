"""A benchmark's typed schema as plain data: the JSON form of `datasets.Features`
(`Features.to_dict()`), declared without importing `datasets`.

Running a benchmark on a built folder or its embedded sample needs only which columns hold
images and the names of each class label; importing `datasets` (and with it pandas) for
that costs about a second of every run's start-up. So each `features.py` declares its
schema with these constructors, which read like datasets' own and give exactly what
`Features.to_dict()` gives; `features(schema)` makes the real `Features` where building,
publishing or lmms-eval need them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Schema = dict[str, Any]
"""{column: feature}, each feature as `Features.to_dict()` writes it."""


def Value(dtype: str) -> dict[str, Any]:
    return {"dtype": dtype, "_type": "Value"}


def Image() -> dict[str, Any]:
    return {"_type": "Image"}


def ClassLabel(names: Sequence[str]) -> dict[str, Any]:
    return {"names": list(names), "_type": "ClassLabel"}


def List(feature: Mapping[str, Any]) -> dict[str, Any]:
    """A list of `feature`: one feature, or a dict of them (a list of records)."""
    return {"feature": dict(feature), "_type": "List"}


def features(schema: Mapping[str, Any]) -> Any:
    """The `datasets.Features` the schema describes (imports `datasets`)."""
    from datasets import Features

    return Features.from_dict(dict(schema))

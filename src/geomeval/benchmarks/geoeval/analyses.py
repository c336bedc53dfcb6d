"""Per-item keys of GeoEval's analyses: subjects (paper Fig. 2), whether the solution needs
an external constant (Fig. 3), and the diagram description's length.

The release stores none of these keys; the official analysis script (`evaluation/
automatic_evaluate.py` in the repository's history) derives them from stored fields, and so
does geomeval, rule for rule except where the card's differences table says otherwise:

- Subjects: the item's formal knowledge points ("Other" when it has none), plus its
  geometry shapes that are not among them. The official script adds the shape a second
  time when it is also a knowledge point; geomeval counts an item once per subject, since a
  breakdown is an accuracy over items.
- External constants: the official script greps the reference solution. A solution
  *program* (Geometry3K, PGPS9K, UniGeo, GeoQA+, MathQA) needs one when it uses a constant
  operand (`C0`, `C_1`: the programs' named constants such as 180 or π); GeometryQA's
  equation and MATH's worked solution need one when they write π's value 3.14. The stored
  `solution` is the program when the release has one, else the equation, else the worked
  text (`raw._solution`), so the source says which rule applies. An item without a
  solution is left out of the breakdown, as the official script leaves it out.
- Description length: the word count of the description, in the official buckets; an
  item without a description is left out (the official script has no bucket for it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .complexity import DESCRIPTION_LENGTH_EDGES, description_length_bucket

# The official script's subjects, in its order: knowledge points and shapes together.
SUBJECTS = (
    "Other", "Angle", "Triangle", "Length", "Line", "Quad", "Circle", "Area", "Ratio",
    "Cone", "Sphere", "Prism", "Cylinder", "Cube", "Cuboid",
)
NO_SUBJECT = "Other"
REQUIRED, NOT_REQUIRED = "required", "not required"
CONSTANT_ORDER = (REQUIRED, NOT_REQUIRED)
DESCRIPTION_LENGTHS = (*(f"<={edge}" for edge in DESCRIPTION_LENGTH_EDGES), f">{DESCRIPTION_LENGTH_EDGES[-1]}")
# Sources whose stored solution is an equation (GeometryQA) or worked text (MATH), not a program.
WORKED_SOURCES = frozenset({"GeometryQA", "MATH"})
_PROGRAM_CONSTANT = re.compile(r"C_?\d")  # the official `C\d+` or `C_\d+`
_PI_VALUE = re.compile(r"3\.14")  # literal: the official unescaped "3.14" also matches "3*14"


def subjects(formal_knowledge_points: Sequence[str] | None, shapes: Sequence[str] | None) -> list[str]:
    """The subjects an item counts under: its formal knowledge points (or Other), then its shapes."""
    labels = list(dict.fromkeys(formal_knowledge_points or ())) or [NO_SUBJECT]
    return labels + [shape for shape in dict.fromkeys(shapes or ()) if shape not in labels]


def external_constant(source: str | None, solution: str | None) -> str | None:
    """REQUIRED or NOT_REQUIRED by the reference solution; None when there is none to read."""
    if not solution or not solution.strip():
        return None
    pattern = _PI_VALUE if source in WORKED_SOURCES else _PROGRAM_CONSTANT
    return REQUIRED if pattern.search(solution) else NOT_REQUIRED


def description_length(description: str | None) -> str | None:
    """The description's word-count bucket (<=40 … >160); None without a description."""
    if not description or not description.strip():
        return None
    return description_length_bucket(description)

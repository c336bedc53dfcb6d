"""The judge engine for CapGeo-Bench keypoints: an LLM lists each caption's keypoints, then
matches the candidate's against the reference's, dimension by dimension.

It implements the paper's protocol in geomeval's own prompts. Extraction (Figs. 7-8) asks for
the elements, spatial relations and numerical values the description states explicitly, in
three groups, at the granularity the judge reads them as stated: "AB = AC = 5" is not split
by the prompt (the paper's prompts do not ask for it); `-T keypoint_extraction=split` asks in
geomeval's earlier wording, one short statement per keypoint with compounds split ("AB = AC",
"AB = 5", "AC = 5"), which changes the counts recall is taken over. The reference's
extraction is the same request for every candidate, so the response cache answers it after
the first time. Matching applies the paper's rules: an angle matches only
with the same vertex and the same value, a length only with the same segment and value,
polygon names are the same up to rotation and reversal (triangle ABC = triangle BCA),
symmetric relations in either order (AB ∥ CD = CD ∥ AB), colour words are ignored. Recall
counts the reference keypoints the candidate states; precision the candidate keypoints the
reference supports, so both engines report the same three numbers. The prompts are named
templates (`TEMPLATES`, part of CapGeo-Bench's), rendered from the run's prompt set.
"""

from __future__ import annotations

from typing import Any

from ...engines.judges import reply_object
from ...engines.prompts import PromptSet, Template, default_set

DIMENSIONS = ("element", "relation", "numerical")
GROUPS = {"element": "elements", "relation": "spatial_relations", "numerical": "numerical_relations"}
MAX_KEYPOINTS = 80  # per dimension; a longer list is cut, and the cut is reported
MAX_KEYPOINT_CHARS = 300

_SYSTEM = "You are a strict expert in evaluating descriptions of geometric figures. You reply with JSON only."

# Figs. 7-8: the same request for the reference and the model's caption.
_EXTRACT = """List the keypoints of the description of a geometric figure below, strictly from \
its text: take only what it states explicitly, and make up or add nothing.

List them in three groups:
- "elements": the geometric elements the description names explicitly (such as point P, \
line MN, triangle PQR);
- "spatial_relations": the geometric relations it states explicitly (such as line MN \
parallel to line PQ, line MN perpendicular to line PQ, line MN meeting line PQ at point R, \
line MN tangent to circle O at point T);
- "numerical_relations": the numerical values it states explicitly (such as PQ = 4, angle \
PQR = 30°, PQ = 2 * QR).

Description:
{caption}

Reply with exactly one valid JSON object and nothing else:
{{"elements": ["..."], "spatial_relations": ["..."], "numerical_relations": ["..."]}}"""

# geomeval's earlier extraction request (`-T keypoint_extraction=split`): it asks for one short
# statement per keypoint, splits compound statements, lists each keypoint once and drops
# colours and line styles, none of which Figs. 7-8 ask.
_EXTRACT_SPLIT = """List the keypoints stated in the description of a geometric figure below, in \
three groups:
- "elements": each geometric object it names (a point, segment, line, ray, circle, arc, \
polygon, angle, coordinate axis, solid), e.g. "triangle ABC", "circle O", "segment AD";
- "spatial_relations": each relation between objects, e.g. "D lies on BC", "D is the \
midpoint of BC", "AD ⊥ BC", "AB ∥ CD", "line l is tangent to circle O at P", "AB is a \
diameter of circle O", "ABCD is inscribed in circle O";
- "numerical_relations": each given quantity or equality of quantities, e.g. "AB = 5", \
"∠BAC = 40°", "AD : DB = 1 : 2", "the area of triangle ABC is 12", "A = (1, 2)", "AB = AC".

One short statement per keypoint; split compound sentences ("AB = AC = 5" gives "AB = AC", \
"AB = 5", "AC = 5"); list each keypoint once; ignore colours and line styles; add nothing \
the description does not state.

Description:
{caption}

Reply with exactly one JSON object and nothing else:
{{"elements": ["..."], "spatial_relations": ["..."], "numerical_relations": ["..."]}}"""

_MATCH = """Compare two lists of keypoints of the same geometric figure: the reference \
keypoints (R) and the candidate keypoints (C), group by group, deciding strictly from the two \
lists and adding nothing.

Rules: two keypoints match when they state the same thing about the same objects. Names of \
polygons are the same up to rotation and reversal (triangle ABC = triangle BCA = triangle \
CBA); a segment's or line's two points may come in either order (AB = BA); symmetric \
relations match in either order (AB ∥ CD = CD ∥ AB; AB = AC matches AC = AB). An angle \
matches only an angle with the same vertex and the same value; a length only the same \
segment with the same value; values match when they are equal (2√3 = √12, 0.5 = 1/2). A \
keypoint about different points, a different value or a different relation does not match. \
Colours do not matter (red triangle ABC = triangle ABC). A keypoint that names several objects \
together matches them listed one by one ("points D, M and N" matches "point D", "point M" and \
"point N").

{groups}

For each group, give the numbers of the reference keypoints that some candidate keypoint \
states ("matched"), and the numbers of the candidate keypoints that some reference keypoint \
supports ("supported"). Reply with exactly one JSON object and nothing else:
{{"elements": {{"matched": [1, 2], "supported": [1]}}, "spatial_relations": {{"matched": [], \
"supported": []}}, "numerical_relations": {{"matched": [2], "supported": [1, 3]}}}}"""


_SYSTEM_TEMPLATE = Template(
    "keypoint_system", _SYSTEM, (),
    implements="Figs. 7–9's role: a strict expert in evaluating geometric descriptions, JSON replies")
_EXTRACTS = ("Figs. 7–8: the geometric elements, geometric relations and numerical values a description states "
             "explicitly, in three groups, strictly from its text, nothing made up or added, as one valid JSON "
             "object; examples of each group in geomeval's own letters; the same request for the reference and "
             "the model's caption")
_MATCH_TEMPLATE = Template(
    "keypoint_match", _MATCH, ("groups",), required=("groups",),
    implements="Fig. 9: the covered keypoints per dimension, strictly from the two lists; angles match on vertex "
               "and value, lengths on segment and value, same-meaning statements match (triangle ABC = BCA, "
               "colours ignored), a statement naming several objects matches them listed apart; also which "
               "candidate keypoints the reference supports (geomeval's precision, not published)")
TEMPLATES = (
    _SYSTEM_TEMPLATE,
    Template("keypoint_extract", _EXTRACT, ("caption",), required=("caption",), implements=_EXTRACTS),
    _MATCH_TEMPLATE,
)
# The same under `-T keypoint_extraction=split` (geomeval's earlier extraction request).
TEMPLATES_SPLIT = (
    _SYSTEM_TEMPLATE,
    Template("keypoint_extract", _EXTRACT_SPLIT, ("caption",), required=("caption",),
             implements=_EXTRACTS + " (geomeval's earlier wording, `-T keypoint_extraction=split`: one short "
                                    "statement per keypoint, compounds split, each once, colours and line styles "
                                    "dropped)"),
    _MATCH_TEMPLATE,
)
_DEFAULTS = default_set("capgeo_bench", TEMPLATES)


def _user(text: str, prompts: PromptSet) -> list[dict[str, Any]]:
    return [{"role": "system", "content": prompts.render("keypoint_system")}, {"role": "user", "content": text}]


def extraction_messages(caption: str, prompts: PromptSet = _DEFAULTS) -> list[dict[str, Any]]:
    """The keypoint-extraction request for one caption, from `prompts` (the run's set)."""
    return _user(prompts.render("keypoint_extract", caption=caption.strip() or "(empty)"), prompts)


def parse_extraction(text: str) -> dict[str, list[str]]:
    """Keypoint statements per dimension, checked and bounded."""
    data = reply_object(text)
    out: dict[str, list[str]] = {}
    for dimension, key in GROUPS.items():
        value = data.get(key)
        if value is None:
            raise ValueError(f'field "{key}" is missing')
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f'field "{key}" must be a list of strings')
        seen: list[str] = []
        for item in value[:MAX_KEYPOINTS]:
            item = " ".join(item.split())[:MAX_KEYPOINT_CHARS]
            if item and item not in seen:
                seen.append(item)
        out[dimension] = seen
    return out


def matching_messages(
    candidate: dict[str, list[str]], reference: dict[str, list[str]], prompts: PromptSet = _DEFAULTS
) -> list[dict[str, Any]]:
    blocks = []
    for dimension, key in GROUPS.items():
        ref = "\n".join(f"R{i}. {k}" for i, k in enumerate(reference[dimension], 1)) or "(none)"
        cand = "\n".join(f"C{i}. {k}" for i, k in enumerate(candidate[dimension], 1)) or "(none)"
        blocks.append(f"## {key}\nReference:\n{ref}\nCandidate:\n{cand}")
    return _user(prompts.render("keypoint_match", groups="\n\n".join(blocks)), prompts)


def parse_matching(text: str, candidate: dict[str, list[str]], reference: dict[str, list[str]]) -> dict[str, dict[str, list[int]]]:
    """Matched reference numbers and supported candidate numbers per dimension, each checked
    against the list lengths (1-based, unique)."""
    data = reply_object(text)
    out: dict[str, dict[str, list[int]]] = {}
    for dimension, key in GROUPS.items():
        group = data.get(key)
        if not isinstance(group, dict):
            raise ValueError(f'field "{key}" must be an object with "matched" and "supported"')
        result: dict[str, list[int]] = {}
        for field, size in (("matched", len(reference[dimension])), ("supported", len(candidate[dimension]))):
            numbers = group.get(field, [])
            if not isinstance(numbers, list):
                raise ValueError(f'"{key}.{field}" must be a list of numbers')
            clean: list[int] = []
            for n in numbers:
                if isinstance(n, str) and n.strip().lstrip("RC").isdigit():
                    n = int(n.strip().lstrip("RC"))
                if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= size:
                    raise ValueError(f'"{key}.{field}" holds {str(n)[:20]!r}, not a number from 1 to {size}')
                if n not in clean:
                    clean.append(n)
            result[field] = sorted(clean)
        out[dimension] = result
    return out


def counts(candidate: dict[str, list[str]], reference: dict[str, list[str]], matching: dict[str, dict[str, list[int]]]) -> dict[str, dict[str, Any]]:
    """Per dimension: gt, pred, matched and supported counts, and the missed reference keypoints."""
    out: dict[str, dict[str, Any]] = {}
    for dimension in DIMENSIONS:
        matched = matching[dimension]["matched"]
        out[dimension] = {
            "gt": len(reference[dimension]),
            "pred": len(candidate[dimension]),
            "matched": len(matched),
            "supported": len(matching[dimension]["supported"]),
            "missed": [k for i, k in enumerate(reference[dimension], 1) if i not in matched][:10],
        }
    return out

"""Decide whether a model's final answer equals the gold answer of a geometry problem.

The policy (documented in README and tested case by case):
- an option letter stands for its option's text, and a value equal to the gold
  option's value counts as choosing it;
- closed forms compare by value: `(3√3)/2` = `\\frac{3\\sqrt3}{2}`, `25°39'` = `25.65°`;
- a decimal approximation counts only with ≥ 3 significant digits and within half a
  unit of its last digit (`1.732` and `1.73` match √3; `1.7` and `2` do not);
- degrees equal radians only when the radian side contains π (`60°` = `π/3`);
- units and surrounding words are ignored (`AB = 5 cm`, `5平方厘米`);
- multi-part answers (`5、42/25`, `2, 3`, `45和3√2`) compare as unordered multisets,
  while a parenthesised tuple `(2, 3)` is an ordered point;
- an answer that cannot be parsed is compared as text (so it is wrong unless it is the
  gold's text), never an error;
- where only the symbolic fallback could decide and it gave no verdict (its budget of CPU
  seconds spent, its wall-clock safety net hit), the verdict is *undecided*
  (`Verdict.decided` is False): the benchmarks leave that item unscored, never wrong.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from .choices import (
    ChoiceError,
    echoes_inline,
    names_several_letters,
    parse_choices,
    read_option_letter,
)
from .latex import Unsupported, to_plain
from .mathexpr import POWER_TOO_LARGE, Quantity, parse_quantity
from .symbolic import shared_budget, symbolic_check

MAX_PARTS = 12
REL_TOL = 1e-9


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer checker's decision and the rule that made it."""

    equal: bool
    rule: str
    detail: str = ""
    decided: bool = True  # False: no rule could decide (`equal` is then False); leave it unscored

    def __bool__(self) -> bool:
        return self.equal


_DEGREE_UNITS = {"°", "度", "degree", "degrees", "deg", "^\\circ", "^{\\circ}"}
_UNIT_TAIL = re.compile(
    r"(?:\s*(?:square|sq\.?|cubic)?\s*(?:units?|cm|mm|km|dm|m|meters?|metres?|centimeters?|"
    r"centimetres?|millimeters?|inches|inch|in|feet|foot|ft|yards?|rad|radians?)\s*(?:\^\s*\(?[23]\)?)?"
    r"|\s*(?:平方|立方)?(?:厘米|毫米|分米|千米|公里|米|单位长度|单位)|\s*个单位长度|\s*个)\s*$",
    re.I,
)
_DEGREE_TAIL = re.compile(r"\s*(?:degrees?|deg|度)\s*$", re.I)
_LEAD_FILLER = re.compile(
    r"^(?:\s*(?:approximately|approx\.?|about|around|roughly|nearly|约|大约|约为|≈|~))+\s*", re.I
)
_CONNECTIVE = re.compile(r"(?:=|≈|\bis\b|\bare\b|\bequals?(?:\s+to)?\b|\bbe\b|等于|为|是)", re.I)
_CJK = re.compile(r"[\u3000-\u9fff\uf900-\ufaff]")
_DMS = re.compile(
    r"(\d+(?:\.\d+)?)\s*°\s*(\d+(?:\.\d+)?)\s*'(?!')(?:\s*(\d+(?:\.\d+)?)\s*(?:\"|''))?"
)
_SEPARATORS = re.compile(r"\s*(?:,|;|、|\band\b|\bor\b|和|或|及|与)\s*", re.I)
_WRAPPERS = re.compile(r"^[\s$*`_]+|[\s$*`_。.，,;；]+$")
_PUNCT = re.compile(r"[\s.,;:!?。，；：！？\"'`()\[\]{}$*_]+")


def check_answer(
    prediction: str | None,
    gold: str,
    *,
    choices: list[str] | tuple[str, ...] | None = None,
    unit: str | None = None,
    symbolic: bool = True,
) -> Verdict:
    """Compare an extracted final answer with the gold answer.

    `choices` are the item's options (`["A.45°", ...]`); `unit` is the gold answer's
    unit where the release stores it apart (`"°"`). `symbolic=False` skips the
    math-verify fallback (used where a worker process is unwelcome).
    """
    if prediction is None or not prediction.strip():
        return Verdict(False, "no-answer", "no final answer was given")
    try:
        options = parse_choices(list(choices) if choices else None)
    except ChoiceError as exc:
        raise ValueError(f"choices: {exc}") from None
    letters = "".join(options)
    gold_text = gold.strip()
    gold_letter = read_option_letter(gold_text, letters) if options else None
    if gold_letter is not None and _is_bare_letter(gold_text):
        gold_text = options[gold_letter]
    gold_text = _with_unit(gold_text, unit)

    pred_letter = read_option_letter(prediction, letters) if options else None
    if pred_letter is not None:
        if gold_letter is not None and _is_bare_letter(gold.strip()):
            equal = pred_letter == gold_letter
            return Verdict(equal, "option-letter", f"chose {pred_letter}, gold {gold_letter}")
        verdict = compare_values(options[pred_letter], gold_text, symbolic=symbolic)
        return Verdict(
            verdict.equal,
            "option-letter",
            f"chose {pred_letter} ({options[pred_letter]}) vs gold {gold_text}: {verdict.rule}",
            verdict.decided,
        )
    if options and (names_several_letters(prediction) or echoes_inline(prediction)):
        return Verdict(False, "no-single-choice", "several options named, or the option list echoed")
    if not options and _is_bare_letter(prediction) and _is_bare_letter(gold_text):
        equal = prediction.strip().strip("().").upper() == gold_text.strip("().").upper()
        return Verdict(equal, "option-letter", "letters compared without an option list")
    verdict = compare_values(prediction, gold_text, symbolic=symbolic)
    if options and verdict.equal:
        return Verdict(True, verdict.rule, verdict.detail + "; equals the gold option's value")
    return verdict


def choose_option(answer: str | None, options: Mapping[str, str]) -> tuple[str | None, str]:
    """The option a final answer picks among `options` (letter -> text), and how it was read.

    The one reading of a choice every benchmark shares: an option letter in any usual form
    (`B`, `(B)`, `\\boxed{\\text{(B)}}`, "option B"); otherwise a value that equals exactly one
    option's value ("12" when (A) is 12). Several letters ("A、C"), the option list echoed
    back, or a value matching no option or several pick nothing (None, with the reason).
    """
    if answer is None or not answer.strip():
        return None, "no final answer"
    letters = "".join(options)
    letter = read_option_letter(answer, letters or None)
    if letter is not None:
        return letter, "letter"
    if names_several_letters(answer) or echoes_inline(answer):
        return None, "several options named"
    named = [key for key, text in options.items()
             if text.strip() and compare_values(answer, text, symbolic=False).equal]
    if len(named) == 1:
        return named[0], "value names the option"
    return None, "names no single option" if named else "no option letter or option value"


def compare_values(prediction: str, gold: str, *, symbolic: bool = True) -> Verdict:
    """Compare two answers by value (no option letters); see the module policy. The symbolic
    fallback has one budget of CPU seconds for the whole answer, whatever its parts."""
    with shared_budget():
        return _compare_values(prediction, gold, symbolic)


def _compare_values(prediction: str, gold: str, symbolic: bool) -> Verdict:
    try:
        pred_parts = _split_parts(to_plain(prediction))
        gold_parts = _split_parts(to_plain(gold))
    except Unsupported as exc:
        return _fallback(prediction, gold, symbolic, str(exc))
    if len(pred_parts) == 1 and len(gold_parts) == 1:
        return _compare_single(pred_parts[0], gold_parts[0], prediction, gold, symbolic)
    if len(pred_parts) != len(gold_parts):
        return Verdict(
            False, "multi-part", f"{len(pred_parts)} part(s) given, {len(gold_parts)} expected"
        )
    unmatched = list(gold_parts)
    for part in pred_parts:
        undecided: Verdict | None = None
        for index, candidate in enumerate(unmatched):
            verdict = _compare_single(part, candidate, part, candidate, symbolic)
            if verdict.equal:
                del unmatched[index]
                break
            if not verdict.decided:
                undecided = verdict
        else:
            if undecided is not None:
                return Verdict(False, "multi-part", f"part {part!r}: {undecided.detail}", decided=False)
            return Verdict(False, "multi-part", f"part {part!r} matches no gold part")
    return Verdict(True, "multi-part", f"{len(gold_parts)} parts match as a set")


def _compare_single(pred: str, gold: str, raw_pred: str, raw_gold: str, symbolic: bool) -> Verdict:
    pred_clean, gold_clean = _strip_decoration(pred), _strip_decoration(gold)
    pred_tuple, gold_tuple = _tuple_parts(pred_clean), _tuple_parts(gold_clean)
    if pred_tuple is not None or gold_tuple is not None:
        if pred_tuple is None or gold_tuple is None or len(pred_tuple) != len(gold_tuple):
            return Verdict(False, "tuple", "tuple shapes differ")
        for a, b in zip(pred_tuple, gold_tuple, strict=True):
            verdict = _compare_single(a, b, a, b, symbolic)
            if not verdict.equal:
                if not verdict.decided:
                    return Verdict(False, "tuple", f"component {a!r}: {verdict.detail}", decided=False)
                return Verdict(False, "tuple", f"component {a!r} differs from {b!r}")
        return Verdict(True, "tuple", "components match in order")
    try:
        pq, gq = parse_quantity(pred_clean), parse_quantity(gold_clean)
    except Unsupported as exc:
        return _fallback(raw_pred, raw_gold, symbolic, str(exc))
    return compare_quantities(pq, gq)


def compare_quantities(pred: Quantity, gold: Quantity) -> Verdict:
    if pred.variables != gold.variables:
        names = ", ".join(sorted(pred.variables ^ gold.variables))
        return Verdict(False, "value", f"different variables ({names})")
    scales = _unit_scales(pred, gold)
    for pred_scale, gold_scale, note in scales:
        pv = [v * pred_scale for v in pred.values()]
        gv = [v * gold_scale for v in gold.values()]
        if all(math.isclose(a, b, rel_tol=REL_TOL, abs_tol=1e-12) for a, b in zip(pv, gv, strict=True)):
            return Verdict(True, "exact-value", f"values agree{note}")
        if not pred.variables:
            verdict = _approximation(pred, pv[0], gold, gv[0], note)
            if verdict is not None:
                return verdict
    return Verdict(False, "value", f"{pred.values()[0]:.6g} vs {gold.values()[0]:.6g}")


def _approximation(pred: Quantity, pv: float, gold: Quantity, gv: float, note: str) -> Verdict | None:
    """A decimal literal on one side counts when it is a ≥3-significant-digit rounding."""
    for approx, value, exact in ((pred, pv, gv), (gold, gv, pv)):
        if approx is gold and pred.decimal_literal is not None:
            break  # two decimals: only the prediction may be the rounded one
        if approx.decimal_literal is None or approx.significant_digits < 3:
            continue
        if abs(value - exact) <= approx.half_unit * (1 + 1e-9) + 1e-12:
            side = "prediction" if approx is pred else "gold"
            return Verdict(
                True,
                "decimal-approximation",
                f"{side} {approx.decimal_literal} rounds the other side's {exact:.8g}{note}",
            )
    return None


def _unit_scales(pred: Quantity, gold: Quantity) -> list[tuple[float, float, str]]:
    scales = [(1.0, 1.0, "")]
    to_rad = math.pi / 180
    if pred.has_degree and not gold.has_degree and gold.has_pi:
        scales = [(to_rad, 1.0, " (degrees converted to radians)")]
    elif gold.has_degree and not pred.has_degree and pred.has_pi:
        scales = [(1.0, to_rad, " (degrees converted to radians)")]
    if pred.has_percent != gold.has_percent:
        factor = (0.01, 1.0) if pred.has_percent else (1.0, 0.01)
        scales.append((factor[0], factor[1], " (percent read as a fraction)"))
    return scales


def _fallback(prediction: str, gold: str, symbolic: bool, reason: str) -> Verdict:
    if normalize_text(prediction) == normalize_text(gold):
        return Verdict(True, "text", "same text after normalisation")
    if POWER_TOO_LARGE in reason:  # no evaluator can compare it within its time limit
        return Verdict(False, "too-large", f"not compared: {reason}")
    if symbolic and _looks_mathematical(prediction) and _looks_mathematical(gold):
        result = symbolic_check(prediction, gold)
        if result.equal is None:
            return Verdict(False, "symbolic-undecided",
                           f"undecided: math-verify gave no verdict ({result.why}; {reason})", decided=False)
        why = f"; {result.why}" if result.why else ""
        return Verdict(result.equal, "symbolic", f"math-verify ({reason}{why})")
    return Verdict(False, "text", f"texts differ ({reason})")


def normalize_text(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"^(?:the|a|an)\s+", "", text.strip())
    return _PUNCT.sub("", text)


def _looks_mathematical(text: str) -> bool:
    return bool(re.search(r"[\d\\^=√π]", text)) and not _CJK.search(text)


def _with_unit(gold: str, unit: str | None) -> str:
    if not unit or unit.strip().lower() in ("", "null", "none"):
        return gold
    unit = unit.strip()
    if unit in _DEGREE_UNITS or unit.lower() in _DEGREE_UNITS:
        return gold if "°" in gold or "circ" in gold else f"{gold}°"
    return gold  # other units are ignored on both sides


def _is_bare_letter(text: str) -> bool:
    return bool(re.fullmatch(r"\s*[\(（]?[A-Z][\)）]?[.．]?\s*", text))


def _split_parts(plain: str) -> list[str]:
    """Split at top-level separators; commas inside brackets belong to a tuple."""
    if _depth_at(plain, len(plain)) != 0:
        return [plain]
    parts: list[str] = []
    start = 0
    for m in _SEPARATORS.finditer(plain):
        if _depth_at(plain, m.start()) == 0:
            parts.append(plain[start : m.start()])
            start = m.end()
    parts.append(plain[start:])
    parts = [p for p in (p.strip() for p in parts) if p]
    if len(parts) > MAX_PARTS:
        raise Unsupported(f"more than {MAX_PARTS} answer parts")
    return parts or [plain]


def _depth_at(text: str, index: int) -> int:
    depth = 0
    for ch in text[:index]:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
    return depth


def _tuple_parts(text: str) -> list[str] | None:
    if len(text) < 3 or text[0] != "(" or text[-1] != ")" or _depth_at(text, len(text) - 1) != 1:
        return None
    inner = text[1:-1]
    pieces, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            pieces.append(inner[start:i])
            start = i + 1
    if not pieces:
        return None
    pieces.append(inner[start:])
    return [p.strip() for p in pieces]


def _strip_decoration(text: str) -> str:
    """Remove labels, connective words, fillers and units around the mathematical value."""
    text = _WRAPPERS.sub("", text)
    text = _LEAD_FILLER.sub("", text)
    connectives = list(_CONNECTIVE.finditer(text))
    if connectives:
        tail = text[connectives[-1].end() :].strip()
        if tail:
            text = tail
    text = _LEAD_FILLER.sub("", text)
    text = _DEGREE_TAIL.sub("°", text)
    for _ in range(3):
        stripped = _UNIT_TAIL.sub("", text)
        if stripped == text or not stripped.strip():
            break
        text = stripped
    cjk = list(_CJK.finditer(text))
    if cjk:
        text = text[cjk[-1].end() :]
    text = text.replace("∠", "").replace("△", "")
    text = _DMS.sub(_dms_to_degrees, text)
    return _WRAPPERS.sub("", text)


def _dms_to_degrees(m: re.Match[str]) -> str:
    seconds = f"+({m.group(3)})/3600" if m.group(3) else ""
    return f"(({m.group(1)})+({m.group(2)})/60{seconds})°"

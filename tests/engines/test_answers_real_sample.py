"""Every gold answer of the real GeoLaux sample equals itself written three other ways."""

from __future__ import annotations

import json
import re
from pathlib import Path

import sympy
from sympy.parsing.sympy_parser import (
    implicit_multiplication_application,
    parse_expr,
    standard_transformations,
)

from geomeval.answers import check_answer, parse_choices

_TRANSFORMS = (*standard_transformations, implicit_multiplication_application)


def _parts(gold: str) -> list[str]:
    return [p for p in re.split(r"和|、|,", gold) if p.strip()]


def _as_latex(part: str) -> str:
    if re.fullmatch(r"\d+(?:\.\d+)?", part):
        value = sympy.Rational(part)
        return f"\\frac{{{2 * value.p}}}{{{2 * value.q}}}"
    text = re.sub(r"√(\d+)", r"\\sqrt{\1}", part)
    text = re.sub(r"\(([^()]*)\)/(\d+)", r"\\frac{\1}{\2}", text)
    text = re.sub(r"^(\d+)/(\d+)$", r"\\frac{\1}{\2}", text)
    return text.replace("π", "\\pi ")


def _decimal(part: str) -> str:
    """A 6-significant-digit decimal computed by sympy, independently of geomeval's parser."""
    expr = re.sub(r"√(\d+)", r"sqrt(\1)", part).replace("π", "pi")
    value = sympy.N(parse_expr(expr, transformations=_TRANSFORMS), 20)
    text = f"{float(value):.6g}"
    if text == part.strip():
        text += "0" if "." in text else ".0"
    return text


def rewrites(gold: str, unit: str | None, choices: list[str]) -> list[str]:
    parts = _parts(gold)
    degree = "°" if unit == "°" else ""
    circ = "^{\\circ}" if degree else ""
    latex = ", ".join(f"{_as_latex(p)}{circ}" for p in reversed(parts))
    worded = " and ".join(f"x = {p}{' degrees' if degree else ' cm'}" for p in parts)
    decimal = "; ".join(f"{_decimal(p)}{degree}" for p in parts)
    forms = [latex, worded, decimal]
    options = parse_choices(choices)
    for letter, text in options.items():
        if check_answer(text, gold, unit=unit).equal:
            forms.append(f"({letter})")
    return forms


def test_gold_answers_equal_their_rewrites(geolaux_raw: Path) -> None:
    data = json.loads((geolaux_raw / "GeoLaux_minidata.json").read_text(encoding="utf-8"))
    checked = 0
    failures = []
    for item_id, record in data.items():
        gold = record["number_answer"]
        if gold == "null":
            continue
        unit = None if record["unit"] == "null" else record["unit"]
        assert check_answer(gold, gold, choices=record["choices"], unit=unit).equal
        for form in rewrites(gold, unit, record["choices"]):
            verdict = check_answer(form, gold, choices=record["choices"], unit=unit)
            checked += 1
            if not verdict.equal:
                failures.append((item_id, gold, form, verdict))
    assert not failures, failures[:5]
    assert checked >= 3 * 71


def test_rewrites_are_really_different_and_wrong_values_fail(geolaux_raw: Path) -> None:
    data = json.loads((geolaux_raw / "GeoLaux_minidata.json").read_text(encoding="utf-8"))
    for record in data.values():
        gold = record["number_answer"]
        if gold == "null":
            continue
        unit = None if record["unit"] == "null" else record["unit"]
        forms = rewrites(gold, unit, [])
        assert len(set(forms) | {gold}) == 4, forms
        # the same forms of a different value must not match
        wrong = ", ".join(f"{float(_decimal(p)) * 1.01:.6g}" for p in _parts(gold))
        assert not check_answer(wrong, gold, unit=unit).equal, (gold, wrong)

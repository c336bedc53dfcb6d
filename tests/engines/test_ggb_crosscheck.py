"""Cross-check geomeval's GeoGebra engine against the real GeoGebra 4.0 jar on a script corpus.

Every script in tests/data/ggb_corpus/ (modern `Command(args)` syntax, GGBench-answer style) runs
twice: through our engine (`run_script`) and, converted line by line to GeoGebra 4.0 bracket
syntax (`syntax.to_source(stmt, legacy=True)`), through the real jar via `ReferenceEngine`. A line
our parser rejects goes to the jar as its original text, so both sides judge it. Per script we
assert that

(a) every line succeeds or fails alike,
(b) Pass@1 (every line ran) agrees,
(c) every label present on both sides has the same kind and the same values (within 1e-6), and
    an object is undefined on one side exactly when it is undefined on the other (conics by
    their matrix up to scale, functions by their values at fixed abscissas, curves by their
    points, implicit curves by their terms),
(d) the set of labels the script leaves behind is the same.

Differences we accept on purpose go into KNOWN_DIFFERENCES with a reason; it is meant to stay
empty (a difference is an engine bug to fix, not to document). Without the jar or Java the
comparisons skip, unless REQUIRE_GEOGEBRA_JAR=1 makes a missing reference a failure.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from geomeval.geogebra import run_script
from geomeval.geogebra.jar_scoring import jar_lines as _jar_lines

CORPUS = Path(__file__).parents[1] / "data" / "ggb_corpus"
SCRIPTS = sorted(CORPUS.glob("*.ggb"))
TOL = 1e-6

# (script stem, "line N" or "label X") -> why GeoGebra 4.0 and our engine may differ there.
# A "line N" entry exempts that line's ok/failed comparison (and so the script's Pass@1);
# a "label X" entry exempts that object's presence and values. Keep it empty: report
# differences to be fixed in the engine instead of listing them here.
# Where GeoGebra 4.0.34 lacks what current GeoGebra (our reference semantics, the manual)
# has; geomeval/geogebra/README.md lists them too.
_NEWER = "a command or argument form current GeoGebra has and 4.0.34 does not"
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {
    ("016_thales_semicircle", "line 10"): f"Length(<arc>): {_NEWER}",
    ("016_thales_semicircle", "label len"): f"Length(<arc>): {_NEWER}",
    ("125_trap_view_commands_modern", "line 5"): f"ShowAxes(<boolean>): {_NEWER}",
    ("125_trap_view_commands_modern", "line 6"): f"ShowGrid(<boolean>): {_NEWER}",
    ("125_trap_view_commands_modern", "line 7"): f'SetColor(<object>, "#RRGGBB"): {_NEWER}',
}

# Engine gaps found by the cross-check and not fixed yet (issue #4's note): these tests are
# expected to fail until the engine does what the jar does, and fail loudly once it does.
ENGINE_GAPS: dict[str, str] = {}

# Types whose values are comparable with each other.
_GROUPS = {
    "point": "point",
    "line": "line",
    "segment": "line",
    "ray": "line",
    "vector": "vector",
    "conic": "conic",
    "conicpart": "conicpart",
    "polygon": "polygon",
    "numeric": "number",
    "angle": "number",
    "text": "text",
    "boolean": "boolean",
    "list": "list",
    "function": "function",
    "function2": "function",
    "curve": "curve",
    "implicitpoly": "implicitpoly",
}


# ----------------------------------------------------------------------------- reference


def _require_jar() -> bool:
    return os.environ.get("REQUIRE_GEOGEBRA_JAR", "").strip() not in ("", "0")


def _unavailable(reason: str) -> None:
    if _require_jar():
        pytest.fail(f"REQUIRE_GEOGEBRA_JAR is set but the reference is unavailable: {reason}")
    pytest.skip(reason)


def jar_lines(text: str) -> tuple[list[int], list[str]]:
    """The script's lines in GeoGebra 4.0 syntax (as `-T engine=jar` sends them)."""
    return _jar_lines(text)


@pytest.fixture(scope="module")
def reference() -> Iterator[dict[str, dict[str, Any]]]:
    """Every corpus script's result in the real GeoGebra 4.0, keyed by file stem (one JVM)."""
    from geomeval.geogebra.reference import (
        ReferenceEngine,
        ReferenceUnavailable,
        find_jar,
        find_java,
        find_javac,
    )

    if find_jar() is None:
        _unavailable("GeoGebra 4.0 jar not found (Debian package `geogebra`)")
    if find_java() is None or find_javac() is None:
        _unavailable("java/javac not found")
    try:
        engine = ReferenceEngine(timeout=60)
    except ReferenceUnavailable as exc:
        _unavailable(f"reference GeoGebra unavailable: {exc}")
    with engine:
        scripts = [jar_lines(path.read_text(encoding="utf-8"))[1] for path in SCRIPTS]
        results = engine.run_batch(scripts, ids=[path.stem for path in SCRIPTS])
        _RERUN["engine"] = engine
        yield {path.stem: result for path, result in zip(SCRIPTS, results, strict=True)}
        _RERUN.clear()


# The JVM stays open during the tests so a disagreement can be confirmed with a second jar
# run: GeoGebra 4.0 occasionally fails a good line on a busy machine (its update thread).
_RERUN: dict[str, Any] = {}


# ----------------------------------------------------------------------------- comparison


def _close(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(float(a), float(b), rel_tol=TOL, abs_tol=TOL)


def _close_xy(p: Any, q: Any) -> bool:
    if p is None or q is None:
        return p is q
    return len(p) == len(q) == 2 and _close(p[0], q[0]) and _close(p[1], q[1])


def normalised_line(obj: dict[str, Any]) -> tuple[float, float, float]:
    """(a, b, c) scaled so that hypot(a, b) = 1 and the first nonzero of (a, b) is positive."""
    a, b, c = (float(obj[k]) for k in ("a", "b", "c"))
    norm = math.hypot(a, b)
    if norm == 0:
        return (a, b, c)
    a, b, c = a / norm, b / norm, c / norm
    sign = 1.0 if (a > 1e-9 or (abs(a) <= 1e-9 and b > 0)) else -1.0
    return (sign * a + 0.0, sign * b + 0.0, sign * c + 0.0)


def normalised_matrix(matrix: Any) -> tuple[float, ...]:
    """A conic matrix divided by its largest coefficient in absolute value (sign included),
    so an equation and any multiple of it compare equal."""
    m = [float(v) for v in (matrix or [math.nan] * 6)]
    pivot = max(m, key=abs)
    if pivot == 0 or not math.isfinite(pivot):
        return tuple(m)
    return tuple(v / pivot + 0.0 for v in m)


def normalised_terms(terms: Any) -> dict[tuple[int, int], float]:
    """An implicit polynomial's {(i, j): coefficient}, divided like normalised_matrix."""
    out = {(int(i), int(j)): float(c) for i, j, c in (terms or []) if float(c) != 0}
    pivot = max(out.values(), key=abs, default=0.0)
    if pivot == 0:
        return out
    return {k: v / pivot for k, v in out.items() if abs(v / pivot) > 1e-12}


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.10g}"
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(_fmt(v) for v in value) + ")"
    return repr(value)


def _same_cycle(jar: list[Any], ours: list[Any]) -> bool:
    if len(jar) != len(ours):
        return False
    if not jar:
        return True
    return any(
        all(_close_xy(jar[i], ours[(i + shift) % len(ours)]) for i in range(len(jar)))
        for shift in range(len(ours))
    )


def compare_objects(label: str, jar: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    """Differences between the jar's and our description of one object (empty: they agree)."""
    jt, ot = jar.get("type"), ours.get("type")
    if _GROUPS.get(jt) != _GROUPS.get(ot) or jt not in _GROUPS:
        return [f"{label}: kind differs: jar {jt}, ours {ot}"]
    if bool(jar.get("defined")) != bool(ours.get("defined")):
        return [
            f"{label}: jar {'defined' if jar.get('defined') else 'undefined'}, "
            f"ours {'defined' if ours.get('defined') else 'undefined'}"
            + (f" (ours {_describe(ours)})" if ours.get("defined") else f" (jar {_describe(jar)})")
        ]
    if not jar.get("defined"):
        return []
    group = _GROUPS[jt]
    out: list[str] = []

    def diff(what: str, jv: Any, ov: Any) -> None:
        out.append(f"{label}: {what}: jar {_fmt(jv)}, ours {_fmt(ov)}")

    if group in ("point", "vector"):
        if not (_close(jar["x"], ours["x"]) and _close(jar["y"], ours["y"])):
            diff("(x, y)", (jar["x"], jar["y"]), (ours["x"], ours["y"]))
    elif group == "line":
        jl, ol = normalised_line(jar), normalised_line(ours)
        if not all(_close(p, q) for p, q in zip(jl, ol, strict=True)):
            diff("normalised line (a, b, c)", jl, ol)
        if jt == ot == "segment":
            same = (
                _close_xy(jar["start"], ours["start"]) and _close_xy(jar["end"], ours["end"])
            ) or (_close_xy(jar["start"], ours["end"]) and _close_xy(jar["end"], ours["start"]))
            if not same:
                diff("endpoints", (jar["start"], jar["end"]), (ours["start"], ours["end"]))
        elif jt != ot:
            diff("line kind", jt, ot)
        if jt == ot == "ray" and not _close_xy(jar.get("start"), ours.get("start")):
            diff("start", jar.get("start"), ours.get("start"))
    elif group == "conic" and jar.get("conic_type") not in (None, "circle"):
        # Ellipses, hyperbolas, parabolas and degenerate conics: their equation, up to scale.
        if jar.get("conic_type") != ours.get("conic_type"):
            diff("conic type", jar.get("conic_type"), ours.get("conic_type"))
        jm, om = normalised_matrix(jar.get("matrix")), normalised_matrix(ours.get("matrix"))
        if not all(_close(p, q) for p, q in zip(jm, om, strict=True)):
            diff("normalised matrix", jm, om)
        for key in ("center", "half_axes"):
            if key in jar and not _close_xy(jar[key], ours.get(key)):
                diff(key, jar[key], ours.get(key))
    elif group == "function":
        js, os_ = jar.get("samples") or [], ours.get("samples") or []
        if len(js) != len(os_) or not all(_close(p, q) for p, q in zip(js, os_, strict=False)):
            diff("values at the sample abscissas", js, os_)
    elif group == "curve":
        js, os_ = jar.get("samples") or [], ours.get("samples") or []
        if len(js) != len(os_) or not all(_close_xy(p, q) for p, q in zip(js, os_, strict=False)):
            diff("points at the sample parameters", js, os_)
    elif group == "implicitpoly":
        jt_, ot_ = normalised_terms(jar.get("terms")), normalised_terms(ours.get("terms"))
        if jt_.keys() != ot_.keys() or not all(_close(jt_[k], ot_[k]) for k in jt_):
            diff("normalised terms", sorted(jt_.items()), sorted(ot_.items()))
    elif group in ("conic", "conicpart"):
        if jar.get("conic_type", "circle") != ours.get("conic_type", "circle"):
            diff("conic type", jar.get("conic_type"), ours.get("conic_type"))
        if not _close_xy(jar.get("center"), ours.get("center")):
            diff("center", jar.get("center"), ours.get("center"))
        if not _close(jar.get("radius"), ours.get("radius")):
            diff("radius", jar.get("radius"), ours.get("radius"))
        if group == "conicpart":
            if jar.get("conic_part_type") != ours.get("conic_part_type"):
                diff("part type", jar.get("conic_part_type"), ours.get("conic_part_type"))
            if not _close(jar.get("value"), ours.get("value")):
                diff("value", jar.get("value"), ours.get("value"))
    elif group == "polygon":
        if not _same_cycle(jar["vertices"], ours["vertices"]):
            diff("vertices", jar["vertices"], ours["vertices"])
        if not _close(jar["area"], ours["area"]):
            diff("area", jar["area"], ours["area"])
    elif group == "number":
        if not _close(jar.get("value"), ours.get("value")):
            diff("value", jar.get("value"), ours.get("value"))
    elif group in ("text", "boolean"):
        key = "text" if group == "text" else "value"
        if jar.get(key) != ours.get(key):
            diff(key, jar.get(key), ours.get(key))
    elif group == "list":
        je, oe = jar.get("elements") or [], ours.get("elements") or []
        if len(je) != len(oe):
            diff("length", len(je), len(oe))
        else:
            for i, (j, o) in enumerate(zip(je, oe, strict=True)):
                out.extend(compare_objects(f"{label}[{i + 1}]", j or {}, o or {}))
    return out


def _describe(obj: dict[str, Any]) -> str:
    skip = {"label", "class", "independent", "value_string", "definition", "matrix", "defined"}
    return ", ".join(f"{k}={_fmt(v)}" for k, v in obj.items() if k not in skip)


def _short(text: str | None) -> str:
    return re.sub(r"\s+", " ", text or "").strip()[:120]


def crosscheck(stem: str, text: str, jar: dict[str, Any]) -> list[str]:
    """Every disagreement between the jar's result and ours for one script."""
    assert "error" not in jar, f"{stem}: the reference harness failed: {jar['error']}"
    numbers, sent = jar_lines(text)
    ours = run_script(text)
    problems: list[str] = []
    our_lines = {status.line: status for status in ours.lines}
    assert [s.line for s in ours.lines] == numbers, "our executor and parser disagree on lines"
    assert len(jar["lines"]) == len(numbers), "the jar did not answer every line"

    exempt_lines = {n for n in numbers if (stem, f"line {n}") in KNOWN_DIFFERENCES}
    # (a) each line succeeds or fails alike.
    for number, line, jline in zip(numbers, sent, jar["lines"], strict=True):
        mine = our_lines[number]
        if number in exempt_lines:
            continue
        if bool(jline["ok"]) != mine.ok:
            problems.append(
                f"line {number} `{mine.source or line}` (jar: `{line}`): "
                f"jar {'ok' if jline['ok'] else 'FAILS (' + _short(jline['error']) + ')'}, "
                f"ours {'ok' if mine.ok else 'FAILS (' + _short(mine.error) + ')'}"
            )
        elif jline["ok"]:
            # The jar lists a command's labelled outputs and, apart, every label the line
            # created (a transformed polygon's vertices A', B', ... are only in the latter).
            jar_labels = list(
                dict.fromkeys([*(jline.get("labels") or []), *jline.get("created", [])])
            )
            if sorted(jar_labels) != sorted(mine.labels):
                problems.append(
                    f"line {number} `{mine.source}` labels: jar {jar_labels}, ours {mine.labels}"
                )
    # (b) Pass@1.
    jar_pass = bool(jar["lines"]) and all(
        line["ok"] for n, line in zip(numbers, jar["lines"], strict=True) if n not in exempt_lines
    )
    our_pass = (
        all(s.ok for s in ours.lines if s.line not in exempt_lines)
        if exempt_lines
        else ours.pass_at_1
    )
    if jar_pass != our_pass:
        problems.append(f"pass@1: jar {jar_pass}, ours {our_pass}")

    # (c) values of every label present on both sides; (d) the label sets.
    jar_objects = {o["label"]: o for o in jar["objects"]}
    our_objects = {o["label"]: o for o in ours.dump()["objects"]}
    exempt_labels = {
        what.removeprefix("label ")
        for (s, what) in KNOWN_DIFFERENCES
        if s == stem and what.startswith("label ")
    }
    for label in jar_objects:
        if label in our_objects and label not in exempt_labels:
            problems.extend(compare_objects(label, jar_objects[label], our_objects[label]))
    only_jar = [lab for lab in jar_objects if lab not in our_objects and lab not in exempt_labels]
    only_ours = [lab for lab in our_objects if lab not in jar_objects and lab not in exempt_labels]
    if only_jar:
        problems.append(
            "labels only in the jar: "
            + "; ".join(f"{lab} ({_describe(jar_objects[lab])})" for lab in only_jar)
        )
    if only_ours:
        problems.append(
            "labels only in ours: "
            + "; ".join(f"{lab} ({_describe(our_objects[lab])})" for lab in only_ours)
        )
    return problems


# ----------------------------------------------------------------------------- tests


@pytest.mark.slow
@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, marks=pytest.mark.xfail(reason=ENGINE_GAPS[p.stem], strict=True))
        if p.stem in ENGINE_GAPS
        else p
        for p in SCRIPTS
    ],
    ids=[p.stem for p in SCRIPTS],
)
def test_engine_matches_geogebra_jar(path: Path, reference: dict[str, dict[str, Any]]) -> None:
    text = path.read_text(encoding="utf-8")
    problems = crosscheck(path.stem, text, reference[path.stem])
    # Confirm against fresh jar runs before failing: on a loaded machine GeoGebra 4.0's update
    # thread now and then leaves a dependent object stale (seen once in a full CI run: a
    # tangent computed before its function was updated), never the same way twice.
    for _ in range(3):
        if not problems or "engine" not in _RERUN:
            break
        problems = crosscheck(path.stem, text, _RERUN["engine"].run(jar_lines(text)[1], path.stem))
    assert not problems, f"{path.name}: our engine differs from GeoGebra 4.0:\n  " + "\n  ".join(
        problems
    )


@pytest.mark.slow
def test_corpus_is_large_and_has_faulty_scripts(reference: dict[str, dict[str, Any]]) -> None:
    assert len(SCRIPTS) >= 50
    failing = [
        stem
        for stem, result in reference.items()
        if not all(line["ok"] for line in result["lines"])
    ]
    assert len(failing) >= 10, failing


def test_corpus_readme_lists_every_script() -> None:
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    missing = [path.name for path in SCRIPTS if path.name not in readme]
    assert not missing, f"README.md does not describe {missing}"


def test_known_differences_name_corpus_scripts() -> None:
    stems = {path.stem for path in SCRIPTS}
    for (stem, what), reason in KNOWN_DIFFERENCES.items():
        assert stem in stems, stem
        assert re.fullmatch(r"line \d+|label \S+", what), what
        assert reason.strip(), (stem, what)


def test_normalised_line_is_scale_and_sign_free() -> None:
    one = normalised_line({"a": 2.0, "b": -2.0, "c": 4.0})
    other = normalised_line({"a": -0.5, "b": 0.5, "c": -1.0})
    assert all(math.isclose(p, q) for p, q in zip(one, other, strict=True))
    assert normalised_line({"a": 0.0, "b": -3.0, "c": 6.0}) == (0.0, 1.0, -2.0)

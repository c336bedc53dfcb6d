"""Pass@1 from the real GeoGebra 4.0.34 (`ggbench -T engine=jar`): one JVM per run, reused
across its scripts; a script stopped by a limit or a crash is retried once on a fresh JVM
before it counts as failing.

geomeval's own engine agrees with the jar on its cross-check corpus, but a user who wants
GGBench's executability judged by GeoGebra itself gets it here: the answer's code, line by
line, in GeoGebra 4.0 syntax (a line geomeval's parser reads is re-written with brackets,
which 4.0 needs for some commands; a line it cannot read goes to the jar as written, so
GeoGebra judges the original text), through the persistent harness in `reference`.

`jar_figure` also has GeoGebra draw the answer (its graphics view exported headless, as
the paper's pipeline draws with GeoGebra), for the pixel metrics to compare with the
release's PNG. The view: a ZoomIn the script makes, else fitted to the visible bounded
objects with a 10% margin and one unit on both axes (Show All Objects), or a given window;
axes and grid as the script's last ShowAxes/ShowGrid sets them (commands GeoGebra 4.0
lacks, read here), else GeoGebra's defaults.
"""

from __future__ import annotations

import atexit
import base64
import re
import threading
from typing import Any

from . import syntax as sx
from .reference import ReferenceEngine, ReferenceUnavailable, find_jar, find_java, find_javac

__all__ = ["JarUnavailable", "check_available", "close_shared", "jar_figure", "jar_lines", "jar_pass_at_1", "jvm_restarts",
           "view_flags"]

# A model's script on which GeoGebra's JVM spends more CPU seconds than this is stopped; a
# script with no result after the wall-clock safety net (the machine stalled, not the script)
# is the harness's failure, unscored.
SCRIPT_TIMEOUT_S = 60.0
# The first script a JVM runs also pays for loading GeoGebra's classes and warming its JIT
# (the first function plot of a corpus pass took 4x its CPU in a warm JVM): it gets this.
FIRST_SCRIPT_TIMEOUT_S = 180.0
# A script stopped (a limit, the JVM dying under it) is run once more on a fresh JVM, with the
# first script's limit, before it counts as failing: one slow or unlucky pass is not the
# script's verdict. The verdict says why it was retried (`retried`); a script stopped twice
# fails with both reasons.


class JarUnavailable(ValueError):
    """The jar engine was asked for where it cannot run; says what is missing."""


def check_available() -> None:
    """Raise JarUnavailable naming what is missing (the jar, java or javac)."""
    if find_jar() is None:
        raise JarUnavailable("-T engine=jar needs GeoGebra 4.0.34 (Debian's `geogebra` package, or "
                             "GEOMEVAL_GEOGEBRA_JAR pointing at geogebra.jar)")
    if find_java() is None or find_javac() is None:
        raise JarUnavailable("-T engine=jar needs a JDK (java and javac; Debian's default-jdk-headless)")


def jar_lines(code: str) -> tuple[list[int], list[str]]:
    """The script's lines in GeoGebra 4.0 syntax, with their line numbers in `code`."""
    raw = code.split("\n")
    numbers: list[int] = []
    lines: list[str] = []
    for entry in sx.parse_script(code):
        numbers.append(entry.line)
        if isinstance(entry, sx.ParseError):
            lines.append(raw[entry.line - 1].strip())
        else:
            lines.append(sx.to_source(entry, legacy=True))
    return numbers, lines


_shared: ReferenceEngine | None = None
_shared_lock = threading.Lock()
_script_lock = threading.Lock()  # one script at a time (the JVM runs one), its limit chosen with it
_last_pid: int | None = None  # the JVM the last script ran on: another one is fresh


def _engine() -> ReferenceEngine:
    global _shared
    with _shared_lock:
        if _shared is None:
            try:
                _shared = ReferenceEngine(timeout=SCRIPT_TIMEOUT_S)
            except ReferenceUnavailable as exc:
                raise JarUnavailable(f"-T engine=jar: {exc}") from exc
            atexit.register(close_shared)
        return _shared


def jvm_restarts() -> int:
    """JVMs the run's engine started after its first (each after a stopped script or a crash)."""
    with _shared_lock:
        return _shared.restarts if _shared is not None else 0


def _run_once(engine: ReferenceEngine, lines: list[str], script_id: str, export: dict[str, Any] | None,
              ) -> dict[str, Any]:
    """One pass of the script, under the first script's limit on a fresh JVM, else the usual one."""
    global _last_pid
    fresh = engine.pid is None or engine.pid != _last_pid
    limit = FIRST_SCRIPT_TIMEOUT_S if fresh else SCRIPT_TIMEOUT_S
    result = engine.run(lines, id=script_id, timeout=limit, export=export)
    _last_pid = engine.pid
    return result


def _run(lines: list[str], script_id: str, export: dict[str, Any] | None = None) -> dict[str, Any]:
    """The harness's result for the script; stopped once, it runs again on a fresh JVM (the
    engine starts one after the kill) before that counts, the first stop's reason recorded."""
    engine = _engine()
    with _script_lock:
        first = _run_once(engine, lines, script_id, export)
        if not first.get("error"):
            return first
        if engine.pid is not None:  # the JVM survived (a harness hiccup): start afresh all the same
            engine.start_fresh()
        second = _run_once(engine, lines, script_id, export)
    if second.get("error"):
        second["error"] = f"{first['error']}; again on a fresh JVM: {second['error']}"
    second["retried"] = {"reason": str(first["error"])[:300]}
    return second


def close_shared() -> None:
    """Stop the run's JVM (the benchmark's aclose, or at exit)."""
    global _shared
    with _shared_lock:
        if _shared is not None:
            _shared.close()
            _shared = None


_VIEW_TOGGLE = re.compile(r"^\s*Show(Axes|Grid)\s*[\[(]([^\])]{0,80})[\])]\s*$", re.IGNORECASE)


def view_flags(code: str) -> dict[str, bool | None]:
    """{"axes", "grid"}: what the script's last ShowAxes / ShowGrid line sets (no argument or
    a last argument `true` shows, `false` hides), None where it has none (GeoGebra's default)."""
    flags: dict[str, bool | None] = {"axes": None, "grid": None}
    for line in code.split("\n"):
        match = _VIEW_TOGGLE.match(line)
        if match:
            args = [a.strip().lower() for a in match.group(2).split(",") if a.strip()]
            flags[match.group(1).lower()] = not args or args[-1] != "false"
    return flags


def _verdict(numbers: list[int], lines: list[str], result: dict[str, Any]) -> dict[str, Any]:
    verdict = _lines_verdict(numbers, lines, result)
    if result.get("retried"):
        verdict["retried"] = result["retried"]
    return verdict


def _lines_verdict(numbers: list[int], lines: list[str], result: dict[str, Any]) -> dict[str, Any]:
    if result.get("error"):  # a timeout or a crash on this script is its failure; the harness's is not
        return {"passed": False, "lines": len(lines), "failed": [], "error": str(result["error"])[:600],
                "harness_failure": bool(result.get("harness_failure"))}
    failed = [
        {"line": numbers[i] if i < len(numbers) else i + 1, "source": lines[i][:200] if i < len(lines) else "",
         "error": str(entry.get("error") or "")[:300]}
        for i, entry in enumerate(result.get("lines") or [])
        if not entry.get("ok")
    ]
    ran = len(result.get("lines") or [])
    return {"passed": not failed and ran == len(lines), "lines": len(lines), "failed": failed[:20], "error": None,
            "ok_lines": sum(1 for entry in result.get("lines") or [] if entry.get("ok"))}


def jar_figure(code: str, size: tuple[int, int],
               window: tuple[float, float, float, float] | None = None) -> dict[str, Any]:
    """`jar_pass_at_1`'s verdict for the script plus GeoGebra 4.0.34's drawing of it at
    `size`: "png" (bytes, or None), "window" (xmin, xmax, ymin, ymax) drawn, "drawn_objects"
    (visible labelled objects), and "figure_error" when GeoGebra could not export."""
    try:
        numbers, lines = jar_lines(code)
    except sx.ParseError as exc:
        return {"passed": False, "lines": 0, "failed": [], "error": f"script refused: {exc}"[:300],
                "png": None, "window": None, "drawn_objects": 0}
    zoomed = any(re.match(r"\s*ZoomIn\s*[\[(]", line, re.IGNORECASE) for line in lines)
    export: dict[str, Any] = {"width": int(size[0]), "height": int(size[1]),
                              "window": None if window is None or zoomed else list(window), **view_flags(code)}
    if zoomed:
        export["keep"] = True
    result = _run(lines, "figure", export)
    verdict = _verdict(numbers, lines, result)
    png = result.get("png")
    verdict["png"] = base64.b64decode(png) if isinstance(png, str) else None
    verdict["window"] = tuple(result["window"]) if isinstance(result.get("window"), list) else None
    verdict["drawn_objects"] = int(result.get("drawn_objects") or 0)
    if result.get("export_error"):
        verdict["figure_error"] = str(result["export_error"])[:300]
    return verdict


def jar_pass_at_1(code: str) -> dict[str, Any]:
    """{"passed": bool, "lines": n, "failed": [{"line", "source", "error"}], "error": why the
    script did not finish or None, "harness_failure": whether that was the harness's own
    failure rather than the script's} for an answer's GeoGebra code, as GeoGebra 4.0.34 runs it."""
    try:
        numbers, lines = jar_lines(code)
    except sx.ParseError as exc:  # over the parser's limits: refused whole, as the engine does
        return {"passed": False, "lines": 0, "failed": [], "error": f"script refused: {exc}"[:300]}
    if not lines:
        return {"passed": False, "lines": 0, "failed": [], "error": None}
    return _verdict(numbers, lines, _run(lines, "answer"))

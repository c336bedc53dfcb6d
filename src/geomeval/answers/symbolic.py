"""The slow path: math-verify/sympy in a worker process, limited by the work it does.

math-verify guards itself with `signal.alarm`, which only works on the main thread,
and sympy can run for minutes on adversarial input. A separate worker process
(`python -m geomeval.answers._symbolic_worker`, one JSON line per question) gives a
limit that works from any thread (Gradio handlers, asyncio executors) and lets a
runaway simplification be killed outright; the next question starts a fresh worker.

The limit that decides is the worker's CPU time (`CPU_BUDGET_S` per question, counted by
the worker itself), never the clock: the same question gets the same outcome on an idle
machine and on one where the worker is starved of CPU. Spending the budget, like every
other way of getting no verdict, is *undecided*, never "unequal": the caller leaves the
item unscored. A wall-clock wait remains only as a safety net against a worker that never
answers (a stopped or swapped-out process); it is generous, and its expiry is undecided too.
"""

from __future__ import annotations

import atexit
import json
import math
import re
import selectors
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .mathexpr import POWER_TOO_LARGE

CPU_BUDGET_S = 1.0
"""CPU seconds of the worker one answer may spend, all its parts together (math-verify's answer
to `sin^2 x+cos^2 x = 1` takes about 0.3 s). Spending it is the answer's doing: the text is the
model's, and no geometry answer needs more, so the answer is unequal (the metric's floor), as
a hostile input must be within 1 s of CPU (issue #42); only the machine failing the worker
(it cannot start, stops, or the wall-clock safety net is hit) leaves an answer undecided."""
BUDGET_SPENT = "work budget spent"
"""In the `why` of a verdict reached by spending the budget: the answer's failure, not the checker's."""
SAFETY_NET_S = 600.0
"""Wall-clock seconds to wait for the worker's start or for one answer before giving up
(undecided): only a worker that is stopped, swapped out or starved for minutes reaches it."""
DEFAULT_TIMEOUT_S = CPU_BUDGET_S  # the old name, kept for callers
MAX_SYMBOLIC_CHARS = 300
MAX_EXPONENT = 1_000
"""The largest exponent (an upper bound read from the text) math-verify is asked to evaluate:
sympy evaluates an integer power exactly, so `10^{10^{10}}` or `9^9^9` would spend the whole
budget on one answer. No geometry answer needs more."""
MAX_EXPANSION_POWER = 64
"""The largest power of a sum (`(x+1)^{n}`) math-verify is asked to expand, as the fast path's
own limit on powers; a sum of more terms is limited further by `MAX_EXPANSION_TERMS`."""
MAX_EXPANSION_TERMS = 500
"""The most terms the expansion of a power of a sum may have (`(x+y+z+1)^{40}` has 12,341)."""
MAX_FACTORIAL = 100
"""The largest integer whose factorial math-verify is asked to evaluate, for the same reason."""

_lock = threading.Lock()
_worker: subprocess.Popen[str] | None = None


@dataclass(frozen=True, slots=True)
class SymbolicResult:
    """math-verify's verdict (`equal`), or None with `why` there is none; `why` also says why
    an answer math-verify could not read is unequal."""

    equal: bool | None
    why: str = ""


def _read_line(process: subprocess.Popen[str], timeout_s: float) -> str | None:
    """The worker's next line; "" when it has exited; None when nothing came within `timeout_s`."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout_s):
            return None
    return process.stdout.readline()


def _start_worker(safety_net_s: float) -> subprocess.Popen[str] | str:
    """The worker, ready; or why it is not."""
    process = subprocess.Popen(
        [sys.executable, "-m", "geomeval.answers._symbolic_worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )
    line = _read_line(process, safety_net_s)
    if line != "ready\n":
        process.kill()
        process.wait()
        if line is None:
            return f"math-verify did not start within the {safety_net_s:g} s safety net"
        return f"math-verify could not start (exit code {process.returncode})"
    return process


def _stop_worker() -> None:
    global _worker
    if _worker is not None:
        _worker.kill()
        _worker.wait()
        _worker = None


atexit.register(_stop_worker)


def symbolic_equal(prediction: str, gold: str, timeout_s: float = CPU_BUDGET_S) -> bool | None:
    """True/False from math-verify, or None when it gave no verdict (see `symbolic_check`);
    `timeout_s` is the question's budget of the worker's CPU seconds."""
    return symbolic_check(prediction, gold, cpu_budget_s=timeout_s).equal


_shared = threading.local()
MIN_QUESTION_S = 0.05
"""The least CPU budget a question is asked with: below it, the answer's budget counts as spent."""


@contextmanager
def shared_budget(seconds: float = CPU_BUDGET_S) -> Iterator[None]:
    """Within the block (on this thread), every `symbolic_check` draws on one budget of
    `seconds` of the worker's CPU: a multi-part answer gets no more than a single one, however
    many of its parts need math-verify. Nested blocks share the outer budget."""
    if getattr(_shared, "left", None) is not None:
        yield
        return
    _shared.left, _shared.total = seconds, seconds
    try:
        yield
    finally:
        _shared.left = None


def _spend(seconds: float) -> None:
    if getattr(_shared, "left", None) is not None:
        _shared.left -= seconds


def symbolic_check(prediction: str, gold: str, *, cpu_budget_s: float = CPU_BUDGET_S,
                   safety_net_s: float = SAFETY_NET_S) -> SymbolicResult:
    """math-verify's verdict on `prediction` = `gold`; unequal, saying why, when the model's
    text is the cause (longer than `MAX_SYMBOLIC_CHARS`, too costly to evaluate, or the worker
    spent `cpu_budget_s` CPU seconds on it: `BUDGET_SPENT`); or no verdict, saying why, when
    the gold is too long or the machine is (the worker could not start, crashed, or gave no
    answer within the `safety_net_s` wall-clock safety net)."""
    global _worker
    if len(gold) > MAX_SYMBOLIC_CHARS:
        return SymbolicResult(None, f"the gold answer is longer than {MAX_SYMBOLIC_CHARS} characters")
    if len(prediction) > MAX_SYMBOLIC_CHARS:  # the model's text: no answer math-verify is asked to read
        return SymbolicResult(False, f"longer than {MAX_SYMBOLIC_CHARS} characters")
    for text in (prediction, gold):
        if (why := too_costly(text)) is not None:
            # the text asks for a number no comparison can afford: the answer's doing, decided unequal
            return SymbolicResult(False, why)
    left = getattr(_shared, "left", None)
    if left is not None:
        if left <= MIN_QUESTION_S:
            return SymbolicResult(False, f"{BUDGET_SPENT}: the answer's {_shared.total:g} CPU s went on its other parts")
        cpu_budget_s = min(cpu_budget_s, left)
    with _lock:
        if _worker is None or _worker.poll() is not None:
            started = _start_worker(safety_net_s)
            if isinstance(started, str):
                _worker = None
                return SymbolicResult(None, started)
            _worker = started
        worker = _worker
        assert worker.stdin is not None
        try:
            worker.stdin.write(json.dumps([gold, prediction, cpu_budget_s]) + "\n")
            worker.stdin.flush()
        except OSError:
            _stop_worker()
            return SymbolicResult(None, "the math-verify worker stopped")
        line = _read_line(worker, safety_net_s)
        if not line:
            _stop_worker()
            if line is None:
                return SymbolicResult(None, f"no answer within the {safety_net_s:g} s safety net")
            if worker.returncode == -signal.SIGPROF:
                _spend(cpu_budget_s)
                # the text asked for more work than any answer may: the model's failure
                return SymbolicResult(False, f"{BUDGET_SPENT}: {cpu_budget_s:g} CPU s of math-verify")
            return SymbolicResult(None, f"the math-verify worker stopped (exit code {worker.returncode})")
    answer = json.loads(line)
    if isinstance(answer, dict):  # {"equal": ..., "cpu": seconds}
        _spend(float(answer.get("cpu") or 0.0))
        answer = answer.get("equal")
    if isinstance(answer, bool):
        return SymbolicResult(answer)
    # math-verify raised on this text: it cannot read it, which is the answer's doing
    return SymbolicResult(False, "math-verify could not read the answers")


_NUMBER = re.compile(r"\d+")
_CALCULUS = re.compile(r"\\(?:i{1,3}nt|oint|sum|prod|lim|limsup|liminf)(?![A-Za-z])")
_POWER = re.compile(r"\^|\*\*")


def too_costly(text: str) -> str | None:
    """Why evaluating `text` exactly would cost more than any answer may (an exponent tower,
    an exponent or a factorial too large), or None. A few passes over the text, so it is bounded
    by the text's length (at most `MAX_SYMBOLIC_CHARS`), and conservative: an exponent's bound is
    the product of every integer written in it, and a power inside an exponent (or a chain
    `a^b^c`) raises the largest of them to the product of the rest."""
    for match in re.finditer(r"(\d+)\s*[)}]*\s*!", text):
        if len(match.group(1)) > 4 or int(match.group(1)) > MAX_FACTORIAL:
            return f"{POWER_TOO_LARGE}: factorial of {match.group(1)[:12]}"
    if (calculus := _CALCULUS.search(text)) is not None:
        # an unevaluated integral, series or limit: no closed form to compare, and sympy may
        # spend any budget on it (\int_0^\infty \sin(x^2)dx, \int 1/(x^5+x+1)dx: 5 CPU s each)
        return f"not a closed form: {calculus.group()} is not evaluated"
    for match in re.finditer(r"\\Gamma(?![A-Za-z])", text):  # a factorial by another name
        argument, end = _read_exponent(text, match.end())
        argument += text[end:].lstrip()[:2]  # \Gamma9^9 reads as Gamma(9^9)
        if any(mark in argument for mark in ("^", "!", "*")):
            return f"{POWER_TOO_LARGE}: \\Gamma of a power or factorial"
    for match in re.finditer(r"\\[dt]?binom\s*\{\s*(\d+)", text):
        if len(match.group(1)) > 4 or int(match.group(1)) > MAX_EXPONENT:
            return f"{POWER_TOO_LARGE}: a binomial coefficient of {match.group(1)[:12]}"
    for match in re.finditer(r"!", text):
        before = text[: match.start()].rstrip()
        if before.endswith(("!", ")", "}", "]")) and not re.search(r"[({]\s*\d+\s*[)}]$", before):
            # a factorial of a factorial or of an expression (gamma of whatever it evaluates to)
            return f"{POWER_TOO_LARGE}: a factorial of an expression"
    for match in _POWER.finditer(text):
        exponent, end = _read_exponent(text, match.end())
        numbers = _NUMBER.findall(exponent)
        rest = text[end:].lstrip(" })")
        tower = _POWER.search(exponent) is not None or "!" in exponent
        if (chained := _POWER.match(rest)) is not None:  # a^b^c, (a^b)^c
            tower = True
            numbers += _NUMBER.findall(_read_exponent(rest, chained.end())[0])
        if any(len(number) > 6 for number in numbers):
            return f"{POWER_TOO_LARGE}: an exponent of more than 6 digits"
        values = sorted(max(1, int(number)) for number in numbers)
        log_bound = sum(math.log(v) for v in values)
        if tower and values:
            log_bound = math.log(values[-1]) * math.prod(values[:-1])
        base_terms = _base_terms(text, match.start())
        if base_terms > 1 and (log_bound > math.log(MAX_EXPANSION_POWER)
                               or math.comb(base_terms + round(math.exp(log_bound)) - 1, base_terms - 1)
                               > MAX_EXPANSION_TERMS):
            return f"{POWER_TOO_LARGE}: a sum of {base_terms} terms raised to a power up to {math.exp(log_bound):.0f}"
        if log_bound > math.log(MAX_EXPONENT):
            return f"{POWER_TOO_LARGE}: " + ("an exponent tower" if tower else f"an exponent over {MAX_EXPONENT}")
    return None


def _base_terms(text: str, power: int) -> int:
    """How many terms (split at top-level + and -) the group closing just before the power at
    `power` holds: 1 for a number, a letter or a command, or a group that does not close."""
    i = power - 1
    while i >= 0 and text[i] == " ":
        i -= 1
    if i < 0 or text[i] not in ")}":
        return 1
    depth, terms = 0, 1
    while i >= 0:
        char = text[i]
        if char in ")}":
            depth += 1
        elif char in "({":
            depth -= 1
            if depth == 0:
                return terms
        elif depth == 1 and char in "+-" and i > 0 and text[i - 1] not in "({^_":
            terms += 1
        i -= 1
    return 1


def _read_exponent(text: str, i: int) -> tuple[str, int]:
    """The exponent that starts at `i` (a braced or parenthesised group, or a run of letters,
    digits and commands) and where it ends; an unclosed group runs to the end of the text."""
    n = len(text)
    while i < n and text[i] == " ":
        i += 1
    start, depth = i, 0
    while i < n:
        char = text[i]
        if char in "{(":
            depth += 1
        elif char in "})":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and not (char.isalnum() or char in ".\\"):
            break
        i += 1
        if depth == 0 and char in "})":
            break
    return text[start:i], i

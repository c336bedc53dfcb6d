"""Worker process for `symbolic.symbolic_equal`: reads `[gold, prediction, cpu_seconds]` lines,
answers a JSON object: the verdict (`equal`: true, false, or null when math-verify raised) and the
CPU seconds the question cost (`cpu`).

Each question gets a budget of CPU seconds of this process (`ITIMER_PROF`, armed per question):
a question that spends it is ended by SIGPROF, whose default action ends the process, so the
parent reads "budget spent" from the exit status whatever the library was doing. CPU seconds
are the work done, so the same question gets the same outcome on a busy or an idle machine.
"""

from __future__ import annotations

import json
import signal
import sys
import time


def _as_latex(text: str) -> str:
    return text if "$" in text or "\\(" in text or "\\[" in text else f"${text}$"


def main() -> None:
    from math_verify import parse, verify

    signal.signal(signal.SIGPROF, signal.SIG_DFL)
    # Warm up before the first budget: math-verify and sympy build their parsers and caches on
    # first use (about 0.3 CPU s here), which would otherwise be charged to whichever answer
    # comes first and, on a loaded machine, tip it over its budget.
    for gold, prediction in (("\\frac{1}{2}+\\sqrt{2}", "0.5+\\sqrt 2"), ("\\cos(2x)", "1-2\\sin^2 x")):
        try:
            verify(parse(_as_latex(gold), parsing_timeout=None), parse(_as_latex(prediction), parsing_timeout=None),
                   timeout_seconds=None)
        except Exception:  # a warm-up: whatever it raises, the questions still come
            continue
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    for line in sys.stdin:
        start = time.process_time()
        try:
            gold, prediction, *budget = json.loads(line)
            if budget and budget[0]:
                signal.setitimer(signal.ITIMER_PROF, float(budget[0]))
            try:
                gold_parsed = parse(_as_latex(gold), parsing_timeout=None)
                pred_parsed = parse(_as_latex(prediction), parsing_timeout=None)
                result = bool(gold_parsed and pred_parsed and verify(gold_parsed, pred_parsed, timeout_seconds=None))
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
        except Exception:
            result = None
        # the verdict and the CPU seconds it cost (the caller shares one budget among an answer's parts)
        sys.stdout.write(json.dumps({"equal": result, "cpu": time.process_time() - start}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

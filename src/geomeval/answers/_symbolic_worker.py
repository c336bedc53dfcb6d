"""Worker process for `symbolic.symbolic_equal`: reads `[gold, prediction]` lines, answers JSON."""

from __future__ import annotations

import json
import sys


def _as_latex(text: str) -> str:
    return text if "$" in text or "\\(" in text or "\\[" in text else f"${text}$"


def main() -> None:
    from math_verify import parse, verify

    sys.stdout.write("ready\n")
    sys.stdout.flush()
    for line in sys.stdin:
        try:
            gold, prediction = json.loads(line)
            gold_parsed = parse(_as_latex(gold), parsing_timeout=None)
            pred_parsed = parse(_as_latex(prediction), parsing_timeout=None)
            result = bool(gold_parsed and pred_parsed and verify(gold_parsed, pred_parsed, timeout_seconds=None))
        except Exception:
            result = None
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

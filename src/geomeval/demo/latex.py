"""LaTeX in the benchmarks' texts, shown as a reader expects it.

The data mixes three forms: math between `$…$` (GeoEval solutions: `$\\frac{2+8}{2}$`),
bare commands in running text (GeoEval diagram descriptions: `A B \\perp B C`, `\\odot O`)
and plain Unicode (GeoLaux: `∠A = 40°`). The Space's Markdown renders the first with KaTeX
(`MARKDOWN_DELIMITERS`); `markdown` turns the bare commands outside math into their symbols,
so KaTeX never sees a half-formula; `plain` makes a one-line label (dropdowns, plot text,
which render no math) with every formula flattened to readable text.
"""

from __future__ import annotations

import re

# The delimiters the Space's Markdown and tables render with KaTeX.
MARKDOWN_DELIMITERS: list[dict[str, str | bool]] = [
    {"left": "$$", "right": "$$", "display": True},
    {"left": "$", "right": "$", "display": False},
    {"left": "\\(", "right": "\\)", "display": False},
    {"left": "\\[", "right": "\\]", "display": True},
]

SYMBOLS: dict[str, str] = {
    "perp": "⊥", "odot": "⊙", "angle": "∠", "measuredangle": "∠", "triangle": "△", "parallel": "∥",
    "circ": "°", "degree": "°", "pi": "π", "cdot": "·", "times": "×", "div": "÷", "pm": "±",
    "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠", "ne": "≠", "approx": "≈", "sim": "∼",
    "cong": "≅", "sqrt": "√", "infty": "∞", "because": "∵", "therefore": "∴", "in": "∈",
    "cap": "∩", "cup": "∪", "square": "□", "Box": "□", "parallelogram": "▱", "alpha": "α", "beta": "β",
    "gamma": "γ", "delta": "δ", "theta": "θ", "phi": "φ", "varphi": "φ", "lambda": "λ", "mu": "μ",
    "sigma": "σ", "omega": "ω", "Delta": "Δ", "rightarrow": "→", "Rightarrow": "⇒", "to": "→",
    "overparen": "⌒", "frown": "⌒", "arc": "⌒", "ldots": "…", "cdots": "⋯", "quad": " ", "qquad": "  ",
}
_MATH = re.compile(r"\$\$.{1,4000}?\$\$|\$[^$\n]{1,2000}?\$|\\\(.{1,2000}?\\\)|\\\[.{1,4000}?\\\]", re.DOTALL)
_COMMAND = re.compile(r"\\([A-Za-z]{1,20})(?![A-Za-z])")
_FRAC = re.compile(r"\\[dt]?frac\s{0,3}\{([^{}]{0,200})\}\s{0,3}\{([^{}]{0,200})\}")
_SQRT = re.compile(r"\\sqrt\s{0,3}\{([^{}]{0,200})\}")
_WRAPPERS = re.compile(r"\\(?:text|mathrm|mathbf|mathit|operatorname|overline|widehat|hat|vec|overrightarrow)\s{0,3}\{([^{}]{0,200})\}")
_SIZING = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg|displaystyle|,|;|!|:)(?![A-Za-z])")
MAX_CHARS = 200_000  # longer texts are shown as they are


def _symbols(text: str) -> str:
    return _COMMAND.sub(lambda m: SYMBOLS.get(m.group(1), m.group(0)), text)


def markdown(text: str) -> str:
    """`text` for the Space's Markdown: bare LaTeX commands outside `$…$`, `\\(…\\)` and
    `\\[…\\]` become their symbols; the math itself is left for KaTeX."""
    if len(text) > MAX_CHARS or "\\" not in text:
        return text
    out, last = [], 0
    for found in _MATH.finditer(text):
        out += [_symbols(text[last : found.start()]), found.group(0)]
        last = found.end()
    out.append(_symbols(text[last:]))
    return "".join(out)


def plain(text: str) -> str:
    """One line of readable text with no markup: formulas flattened (`\\frac{a}{b}` → a/b,
    `\\sqrt{3}` → √(3), `\\perp` → ⊥), dollar signs and braces dropped."""
    text = " ".join(text[:MAX_CHARS].split())
    if "\\" not in text and "$" not in text:
        return text
    for _round in range(3):  # nested fractions, innermost first
        text = _FRAC.sub(r"(\1)/(\2)", text)
        text = _SQRT.sub(r"√(\1)", text)
        text = _WRAPPERS.sub(r"\1", text)
    text = _SIZING.sub("", text)
    text = _symbols(text)
    text = text.replace("\\$", "\0").replace("$", "").replace("\0", "$")
    text = re.sub(r"\^\{([^{}]{1,40})\}", r"^\1", text)
    text = re.sub(r"_\{([^{}]{1,40})\}", r"_\1", text)
    return " ".join(text.replace("\\(", "").replace("\\)", "").split())

"""Notation clean-up shared by the English and Chinese parsers.

Why: captions mix Unicode symbols, LaTeX (`$\\angle ABC = 60^\\circ$`), subscripts
(`A_1`, `A₁`), full-width punctuation and colour words. Mapping all of it to one plain
notation first lets every rule be written once, against one spelling.
"""

from __future__ import annotations

import re

from ._engine import MAX_CHARS

_CHARS: dict[int, str] = {
    **{ord(c): str(i) for i, c in enumerate("₀₁₂₃₄₅₆₇₈₉")},
    **{ord(c): "'" for c in "′’‘`ʹ"},
    ord("″"): "''",
    ord("²"): "^2",
    ord("³"): "^3",
    **{ord(c): "-" for c in "–—−‐"},
    **{ord(c): "∥" for c in "‖∥"},
    **{ord(c): "⊥" for c in "⟂⊥"},
    **{ord(c): "△" for c in "Δ▵▲△"},
    **{ord(c): "⊙" for c in "☉⨀⊙"},
    **{ord(c): "≅" for c in "≌≅"},
    **{ord(c): "∼" for c in "∽∼〜～~"},
    **{ord(c): "∠" for c in "∡∠"},
    **{ord(c): "°" for c in "º˚"},
    **{ord(c): "*" for c in "×·⋅∙"},
    ord("＝"): "=",
    ord("（"): "(",
    ord("）"): ")",
    ord("，"): ",",
    ord("："): ":",
    ord("∶"): ":",
    ord("；"): ";",
    ord("　"): " ",
    ord("\u00a0"): " ",
    ord("\t"): " ",
    ord("\r"): "\n",
    ord("﹒"): ".",
    ord("︵"): "⌒",
    ord("½"): "1/2",
    ord("⅓"): "1/3",
    ord("⅔"): "2/3",
    ord("¼"): "1/4",
    ord("¾"): "3/4",
}
for _i in range(26):  # full-width Latin letters and digits (Chinese input methods)
    _CHARS[0xFF21 + _i] = chr(ord("A") + _i)
    _CHARS[0xFF41 + _i] = chr(ord("a") + _i)
for _i in range(10):
    _CHARS[0xFF10 + _i] = str(_i)

_LATEX_WORDS = [
    ("\\left", ""), ("\\right", ""), ("^{\\circ}", "°"), ("^\\circ", "°"), ("\\circ", "°"),
    ("\\degree", "°"), ("\\angle", "∠"), ("\\measuredangle", "∠"), ("\\triangle", "△"),
    ("\\bigtriangleup", "△"), ("\\odot", "⊙"), ("\\bigodot", "⊙"), ("\\parallel", "∥"),
    ("\\|", "∥"), ("\\perp", "⊥"), ("\\bot", "⊥"), ("\\cong", "≅"), ("\\backsim", "∼"),
    ("\\sim", "∼"), ("\\pi", "π"), ("\\cdot", "*"), ("\\times", "*"), ("\\frown", "⌒"),
    ("\\widehat", "⌒"), ("\\overset{\\frown}", "⌒"), ("\\sqrt", "√"), ("\\dfrac", "\\frac"),
    ("\\tfrac", "\\frac"), ("\\,", " "), ("\\;", " "), ("\\!", ""), ("\\ ", " "), ("\\quad", " "),
    ("\\(", " "), ("\\)", " "), ("\\cap", "∩"), ("\\{", "{"), ("\\}", "}"), ("\\[", " "), ("\\]", " "), ("$", " "), ("\\colon", ":"),
]
_FRAC = re.compile(r"\\frac\{([^{}]{1,24})\}\{([^{}]{1,24})\}")
_SQRT_BRACED = re.compile(r"√\{([^{}]{1,24})\}")
_TEXT_CMD = re.compile(r"\\(?:text|mathrm|mathit|mathbf|operatorname|overline|overrightarrow|vec|textbf|rm)\b ?")
_IN_CMD = re.compile(r"\\in(?![A-Za-z])")
_NI_CMD = re.compile(r"\\ni(?![A-Za-z])")
_CONTAINS = re.compile(r"((?<![A-Za-z0-9'])[a-z]\d{0,2}|⊙ ?[A-Z]\d{0,2}|[A-Z]\d{0,2}[A-Z]\d{0,2}) *∋ *([A-Z]\d{0,2}'{0,2})(?![A-Za-z0-9])")
_OTHER_CMD = re.compile(r"\\[A-Za-z]{1,20}")
_SUBSCRIPT = re.compile(r"(?<=[A-Z])_\{?(\d{1,2})\}?|(?<=(?<![A-Za-z])[a-w])_\{?(\d{1,2})\}?(?![A-Za-z0-9])")  # A_1, l_{2}
_SIMPLE_PAREN = re.compile(r"\(([-\d.√π]{1,12}|[a-z](?:\^\d)?)\)(?=/)|(?<=/)\(([\d.√π]{1,12})\)|(?<=√)\((\d{1,6}(?:\.\d{1,6})?)\)")
_SPACES = re.compile(r" {2,}")
_NEEDS_SYMBOL_SPACE = re.compile(r"[∠△⊙⌒(] | [,.;:)]")
_SYMBOL_SPACE = re.compile(r"(?<=[∠△⊙⌒]) +| +(?=[,.;:)](?!\d))|(?<=\() +")
_SQRT_WORD = re.compile(r"(?i)\bsqrt ?|\b(?:the )?square root of ?(?=\d)|(?<=\d )root ?(?=\d)|\broot ?(?=\d)")
_DIGIT_ROOT = re.compile(r"(?<=\d) √")  # `2 root 3`: 2√3
_PI_WORD = re.compile(r"(?<=[\d/( ])pi\b|\bpi(?=/)")
_DEGREE_WORD = re.compile(r"(?<=\d) ?(?:degrees?|deg)\b", re.IGNORECASE)
_POSSESSIVE = re.compile(r"(?<=[A-Z0-9])'s\b")
_MARKUP = re.compile(r"\*\*|__|#{1,6} ?")


def _subscript(m: re.Match[str]) -> str:
    return m.group(1) or m.group(2)


def _latex(text: str) -> str:
    for old, new in _LATEX_WORDS:
        if old in text:
            text = text.replace(old, new)
    text = _FRAC.sub(r"(\1)/(\2)", text)
    text = _SQRT_BRACED.sub(r"√(\1)", text)
    text = _SUBSCRIPT.sub(_subscript, text)
    text = _TEXT_CMD.sub("", text)
    if "\\in" in text:
        text = _IN_CMD.sub(" ∈ ", text)
    if "\\ni" in text:
        text = _NI_CMD.sub(" ∋ ", text)
    text = _OTHER_CMD.sub(" ", text)
    return text.replace("{", "").replace("}", "")


def _simple_paren(m: re.Match[str]) -> str:
    return m.group(1) or m.group(2) or m.group(3) or ""


def common(text: str) -> str:
    """Cap, map symbols, unwrap LaTeX, join subscripts, drop markup; spaces collapsed."""
    text = text[:MAX_CHARS].translate(_CHARS)
    if "*" in text or "_" in text or "#" in text:
        text = _MARKUP.sub("", text)
    if "\\" in text or "$" in text:
        text = _latex(text)
    if "_" in text:
        text = _SUBSCRIPT.sub(_subscript, text)
    if "sqrt" in text or "SQRT" in text or "root" in text:
        text = _SQRT_WORD.sub("√", text)
        if "√" in text:
            text = _DIGIT_ROOT.sub("√", text)
    if "pi" in text:
        text = _PI_WORD.sub("π", text)
    if "deg" in text or "DEG" in text or "Deg" in text:
        text = _DEGREE_WORD.sub("°", text)
    if "(" in text:
        text = _SIMPLE_PAREN.sub(_simple_paren, text)
    if "∋" in text:  # `n ∋ M`: M ∈ n
        text = _CONTAINS.sub(lambda m: f"{m.group(2)} ∈ {m.group(1)}", text)
    if "'s" in text:
        text = _POSSESSIVE.sub("", text)
    if "  " in text:
        text = _SPACES.sub(" ", text)
    if _NEEDS_SYMBOL_SPACE.search(text):
        text = _SYMBOL_SPACE.sub("", text)
    return text


_SOLID = re.compile(r"(?<![A-Za-z])[A-Z]\d?-[A-Z]{3}|[A-Z]{3,4}-[A-Z]{3,4}1|(?i:cub(?:e|oid)|pyramid|prism|tetrahedron)|棱锥|棱柱|正方体|长方体|四面体")
_PERP_POLYGON = re.compile(r"⊥ ?((?:[A-Z]\d?){3,4})(?![A-Za-z0-9'-])")


def solid_planes(text: str, plane: str) -> str:
    """`PA ⊥ ABCD` in a caption about a solid: a line perpendicular to a polygon's name is
    perpendicular to its plane (`plane` is the word the parser reads: `plane ` or `平面`)."""
    if "⊥" in text and _SOLID.search(text):
        return _PERP_POLYGON.sub(lambda m: f"⊥ {plane}{m.group(1)}", text)
    return text


_EN_COLOURS = re.compile(
    r"(?i)\b(?:(?:light|dark|bright|pale) )?(?:red|blue|green|black|orange|purple|yellow|gr[ae]y|pink|brown|"
    r"cyan|magenta|violet|teal|navy)(?:[- ]colou?red)?\b(?: and (?=dashed|dotted))?"
    r"|\b(?:dashed|dotted|bold|thick|thin|shaded|highlighted|colou?red)\b(?: and )?"
    r"|\bsolid(?= (?:lines?|segments?|curves?)\b)"
)
_ZH_COLOURS = re.compile(r"(?:红|蓝|绿|黑|黄|紫|橙|灰|粉)色的?|虚线的?|实线的?|粗线|阴影部分的?|阴影")


_CAPITALISED = re.compile(r"(?<![A-Za-z0-9'_])[A-Z](?=[a-z]{2})")


def lower_words(text: str) -> str:
    """`Triangle`, `The`, `Points` -> lower case; point names (`A`, `AB`, `O1`, `Rt`) untouched.

    A capital followed by two lower-case letters starts an English word, never a point name,
    so every English pattern can then be matched case-sensitively (much faster to scan).
    """
    return _CAPITALISED.sub(lambda m: m.group(0).lower(), text)


_EN_STYLE_WORDS = ("red", "blue", "green", "black", "orange", "purple", "yellow", "gray", "grey", "pink", "brown",
                   "cyan", "magenta", "violet", "teal", "navy", "dashed", "dotted", "bold", "thick", "thin",
                   "shaded", "highlighted", "colored", "coloured", "solid")


def drop_colours_en(text: str) -> str:
    """Colour and line-style words carry nothing a keypoint scores: `red dashed line AB` -> `line AB`."""
    low = text.lower()
    if not any(w in low for w in _EN_STYLE_WORDS):
        return text
    return _SPACES.sub(" ", _EN_COLOURS.sub("", text))


def drop_colours_zh(text: str) -> str:
    if "色" not in text and "线" not in text and "阴影" not in text:
        return text
    return _ZH_COLOURS.sub("", text)

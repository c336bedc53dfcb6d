"""Multiple-choice options: parse `["A.45°", "B.60°"]`-style lists and read option letters.

Releases write options as `A.45°`, `A: 45`, `(A) 45` or bare values; models answer
`B`, `(B)`, `{B}`, `B.`, `option B`, `选B` or `The final answer is: B` (a prompt that
shows the format as `{A, B, C, D, or E}` gets `{B}` back). Letters are read
only in upper case unless a word such as "option" introduces them, so the article
"a" is never taken for option A.
"""

from __future__ import annotations

import itertools
import re
import string

_PREFIXED = re.compile(r"^\s*[\(（]?\s*([A-Z])\s*[\)）]?\s*[.．:：、)）]\s*(.*)$", re.S)
# MathQA's own labels: "a ) 9", "b ) 10" -- a lower-case letter and a closing bracket, dot or
# colon. Read as labels only when every option carries one, in order, so a value that merely
# starts with "a." elsewhere is never cut.
_PREFIXED_LOWER = re.compile(r"^\s*[\(（]?\s*([a-z])\s*[\)）.．:：]\s*(.*)$", re.S)
_BARE_LETTER = re.compile(r"^[\s*_`$]*[\(（\[{]?\s*([A-Z])\s*[\)）\]}]?[\s.．:：、)）*_`$]*$")
_LETTER_THEN_TEXT = re.compile(r"^[\s*_`]*[\(（\[{]?\s*([A-Z])\s*(?:[\)）\]}][.．:：、]?|[.．:：、])\s*\S")
# "B (12 cm)": an option letter, then the option's value in brackets.
_LETTER_THEN_VALUE = re.compile(r"^[\s*_`]*([A-Z])\s+[\(（]")
# "5 (B)": the value, then its option letter in brackets at the very end (the other order a
# prompt asking for both gets back). The bracket must follow a space: "f(A)" is no choice.
_VALUE_THEN_LETTER = re.compile(r"^[^\n]{1,200}?\s[\(（]\s*([A-Z])\s*[\)）][\s.．*_`]*$")
_INTRODUCED = re.compile(
    r"(?:\b(?:option|choice|answer(?:\s+choice)?)\b|选项|故选|应选|选择|选)\s*(?:is\s*)?[:：]?\s*[\(（\[]?\s*([A-Za-z])\b\s*[\)）\]]?",
    re.I,
)
_LETTER_OPTION_CN = re.compile(r"([A-Z])\s*选项")
# A whole answer that is one lower-case letter, alone or bracketed ("(d)", "c."): with options
# on offer that is a choice, not the article "a" (which never stands alone).
_BARE_LOWER = re.compile(r"^[\s*_`$]*[\(（\[{]?\s*([a-z])\s*[\)）\]}]?[\s.．:：、)）*_`$]*$")
# A lone letter in a LaTeX text or font command, or in a box: \text{B}, \mathbf{C}, \boxed{B}.
# A bracketed letter inside counts too: \boxed{\text{(B)}} names B.
_LATEX_LETTER = re.compile(
    r"\\(?:text|textbf|textit|textrm|mathrm|mathbf|mathit|mathsf|mbox|boxed)\s*\{\s*"
    r"(?:([A-Za-z])|[\(（\[]\s*([A-Za-z])\s*[\)）\]])\s*\}"
)
# Two or more option letters and nothing else ("A、C", "B and D", "(A), (C)", "AC"): an answer
# that names several options picks none of them on a single-answer item.
_LETTER_ITEM = r"[\(（\[]?[ \t]*[A-Z][ \t]*[\)）\]]?"
_LETTER_SEPARATOR = r"(?:[ \t]*(?:[、,，/&;；+]|\band\b|\bor\b|和|或|与|及)[ \t]*|[ \t]*)"
_SEVERAL_LETTERS = re.compile(
    rf"^[\s*_`$]*{_LETTER_ITEM}(?:{_LETTER_SEPARATOR}{_LETTER_ITEM})+[\s.．。*_`$]*$"
)
# A letter joined to the one that follows ("(A) or (C)"): the end of a list of letters.
_JOINED_BEFORE = re.compile(rf"(?<![A-Za-z]){_LETTER_ITEM}[ \t]*(?:[、,，/&]|\band\b|\bor\b|和|或|与|及)[ \t]*[\(（]?$")
# An option label inside a line: "(B) 8.4", " B. 8.4", " C: 9".
_INLINE_LABEL = re.compile(r"(?:^|(?<=\s))(?:[\(（]([A-Z])[\)）]|([A-Z])[.．:：])[ \t]*(?=\S)")
# After an introduced letter ("option A"), a second one joined to it ("option A or C").
_MORE_LETTERS = re.compile(rf"^[ \t]*[\)）\]]?{_LETTER_SEPARATOR}{_LETTER_ITEM}(?![A-Za-z])")


class ChoiceError(ValueError):
    """Options that cannot be read as a letter-labelled list."""


def parse_choices(choices: list[str] | tuple[str, ...] | None) -> dict[str, str]:
    """Map option letters to their text.

    Either every option carries its letter (`A.6/5`, `(B) 3`, or MathQA's lower-case
    `a ) 9`), in order A, B, C…, or none does and letters are assigned in order. A mix, a gap, a repeat or a non-string
    raises `ChoiceError` naming the offending option.
    """
    if not choices:
        return {}
    if len(choices) > 26:
        raise ChoiceError(f"{len(choices)} options; at most 26 are supported")
    parsed: dict[str, str] = {}
    labelled = [_PREFIXED.match(c) if isinstance(c, str) else None for c in choices]
    if not any(labelled):
        lower = [_PREFIXED_LOWER.match(c) if isinstance(c, str) else None for c in choices]
        if all(m is not None and m.group(1) == string.ascii_lowercase[i] for i, m in enumerate(lower)):
            return {
                string.ascii_uppercase[i]: _nonempty(m.group(2).strip(), string.ascii_uppercase[i])
                for i, m in enumerate(lower) if m is not None
            }
    any_labelled = any(labelled)
    for index, (raw, match) in enumerate(zip(choices, labelled, strict=True)):
        if not isinstance(raw, str):
            raise ChoiceError(f"option {index + 1} is {type(raw).__name__}, not text")
        expected = string.ascii_uppercase[index]
        if any_labelled:
            if match is None:
                raise ChoiceError(f"option {index + 1} {raw!r} has no letter while others do")
            if match.group(1) != expected:
                raise ChoiceError(
                    f"option {index + 1} {raw!r} is labelled {match.group(1)}, expected {expected}"
                )
            text = match.group(2).strip()
        else:
            text = raw.strip()
        parsed[expected] = _nonempty(text, expected)
    return parsed


def _nonempty(text: str, letter: str) -> str:
    if not text:
        raise ChoiceError(f"option {letter} is empty")
    return text


def read_option_letter(text: str, letters: str | None = None) -> str | None:
    """Return the option letter that `text` names, or None.

    `letters` limits the answer to the item's options (e.g. "ABCD"). A letter set in LaTeX
    (`\\text{B}`, `$\\mathbf{C}$`, `\\boxed{\\textbf{B}}`) is read as the letter.
    """
    text = text.strip()
    if len(text) > 400:
        text = text[:400]
    raw = text
    text = _unwrap_latex(text)
    allowed = letters or string.ascii_uppercase[:5]
    if names_several_letters(text) or echoes_inline(text):
        return None
    for pattern in (_BARE_LETTER, _LETTER_THEN_TEXT, _LETTER_THEN_VALUE, _VALUE_THEN_LETTER):
        m = pattern.match(text)
        if m and m.group(1) in allowed:
            if pattern is _VALUE_THEN_LETTER and _JOINED_BEFORE.search(text[: m.start(1)]):
                return None  # "option (A) or (C)": two letters, no single choice
            return m.group(1)
    m = _LETTER_OPTION_CN.search(text)
    if m and m.group(1) in allowed:
        return m.group(1)
    m = _BARE_LOWER.match(raw) if "\\" not in raw and "$" not in raw else None  # $a$, \text{a}: a variable
    if m and m.group(1).upper() in allowed:
        return m.group(1).upper()
    found = None
    for m in _INTRODUCED.finditer(text):
        letter = m.group(1).upper()
        if letter in allowed:
            found = None if _MORE_LETTERS.match(text[m.end(1) :]) else letter
    return found


def echoes_inline(text: str) -> bool:
    """Whether `text` holds the option list echoed on one line ("(A) 8 (B) 8.4 (C) 9"): two or
    more option labels, each with a value, in consecutive letters. It states no choice."""
    labels = [a or b for a, b in (m.groups() for m in _INLINE_LABEL.finditer(text[:2000]))]
    run = 1
    for a, b in itertools.pairwise(labels):
        run = run + 1 if ord(b) - ord(a) == 1 else 1
        if run >= 2:
            return True
    return False


def names_several_letters(text: str) -> bool:
    """Whether `text` is two or more different option letters and nothing else ("A、C",
    "B and D", "AC"): no single choice."""
    text = _unwrap_latex(text.strip()[:400])
    if not _SEVERAL_LETTERS.match(text):
        return False
    return len(set(re.findall(r"[A-Z]", text))) >= 2


def is_bare_letter(text: str) -> bool:
    """Whether `text` is an option letter and nothing else ("C", "(C)", "**C.**", "(c)")."""
    raw = text.strip()[:400]
    lower = _BARE_LOWER.match(raw) if "\\" not in raw and "$" not in raw else None
    return bool(_BARE_LETTER.match(_unwrap_latex(raw)) or lower)


def echoes_options(lines: list[str]) -> bool:
    """Whether `lines` are an option list as the prompt showed it ("A. 6", "B. 8", …): two or
    more lines in a row, labelled with consecutive letters. An echo of the options states
    no choice, whichever option it ends on."""
    labels = []
    for line in lines:
        m = _PREFIXED.match(line)
        if not m or not m.group(2).strip():
            break
        labels.append(m.group(1))
    return len(labels) >= 2 and all(ord(b) - ord(a) == 1 for a, b in itertools.pairwise(labels))


def _unwrap_latex(text: str) -> str:
    """`text` with single-letter LaTeX wrappers replaced by their letter and math dollars
    dropped; nested wrappers (\\boxed{\\text{B}}) unwrap in a few bounded passes."""
    if "\\" not in text and "$" not in text:
        return text
    for _ in range(3):
        unwrapped = _LATEX_LETTER.sub(lambda m: m.group(1) or m.group(2), text)
        if unwrapped == text:
            break
        text = unwrapped
    return text.replace("$", "")

"""Code-similarity metrics between a candidate GeoGebra script and the reference script.

GGBench scores a model's construction by running it, but papers also report how close the code
is to the reference. These metrics do that for untrusted answers: deterministic, with the
well-kept libraries where one computes the measure (sacrebleu: BLEU, chrF; rapidfuzz: edit
distance, LCS), no ``eval``, and every one bounded, so a hostile answer cannot hang scoring.

Preparation (every metric, the same way)
    ``\\r\\n`` and ``\\r`` become ``\\n``; a text longer than MAX_CHARS (20,000) characters
    keeps its first MAX_CHARS characters and then drops the partial last line (unless the
    first line alone is that long), so no token or statement is cut in half; leading and
    trailing whitespace is stripped. A text with nothing left is *empty*. Callers pass code,
    not a whole chat answer (``geomeval.geogebra.syntax.extract_code`` gets it); comments are
    kept, as code metrics usually keep them.

Tokens (``code_tokens``)
    GeoGebra identifiers whole, with their subscript and primes (``A_1``, ``A_{12}``, ``A'``),
    numbers (``2``, ``0.5``, ``.5``, ``1e-3``), double-quoted strings with the parser's escapes,
    and every other non-space character alone (``(``, ``,``, ``=``, ``°``). No lowercasing.

Empty inputs
    An empty candidate scores 0 on BLEU, ROUGE-L, chrF and RUBY and 1 on edit distance, and so
    does any candidate against an empty reference; but two empty texts are identical, so both
    empty gives the perfect scores (1, and edit distance 0).

BLEU (``bleu``)
    Sentence BLEU-4 over code tokens exactly as sacrebleu's ``sentence_bleu`` computes it on
    pre-tokenised text: clipped n-gram precisions for n = 1..4, Chen & Cherry's (2014) method 3
    "exp" smoothing (the k-th order without any match, counting only such orders, gets
    precision 1 / (2^k · its n-gram count)), effective order (orders longer than the candidate
    are left out of the geometric mean), brevity penalty exp(1 - r/c) when the candidate is
    shorter (c, r token counts), and 0 when not a single token matches.

ROUGE-L (``rouge_l``)
    F1 of LCS precision and recall over code tokens (beta = 1, as Google's rouge-score
    ``fmeasure``): 2·LCS / (|candidate| + |reference|), the whole script as one sequence.

chrF (``chrf``)
    Popović (2015) chrF as sacrebleu's default CHRF: all whitespace removed, character
    n-grams for n = 1..6, precision and recall averaged over the orders both texts are long
    enough for, then F-beta with beta = 2 (recall weighted more).

Edit distance (``normalized_edit_distance``, ``edit_similarity``)
    Levenshtein distance (unit insert, delete and substitute) over the prepared characters,
    divided by the longer length: 0 identical, 1 nothing in common; the similarity is 1 minus it.

RUBY (``ruby``, ``ruby_detail``)
    Tran et al. (2019) take graph similarity when program dependence graphs exist, else tree
    similarity, else string similarity. GeoGebra has no graph level here, so:

    * tree level, when both scripts parse completely with ``parse_script``: each script is one
      ordered tree, a root ``script`` whose children are its statements; a statement is a
      ``stmt`` node whose children are one ``label:<name>`` leaf per label and then its
      expression tree (a node per Call with the command name, Name, Num with its value, Str,
      Bool, Const, point, polar point, list, operator, negation, not, degrees; children in
      source order). Score 1 - TED / (|T_c| + |T_r|), TED the Zhang–Shasha (1989) tree edit
      distance with unit insert, delete and relabel costs, |T| the node count. Renaming the
      command of a line therefore costs as much as changing one of its arguments.
    * string level otherwise: 1 - (token Levenshtein distance) / (longer token count). It is
      used when a line does not parse, when the parser refuses a script (size, nesting), when
      a tree has more than MAX_TREE_NODES nodes, or when Zhang–Shasha would fill more than
      MAX_TED_CELLS table cells; ``ruby_detail`` says which level was used and why.

Cost
    Tokenising, n-gram counting and chrF are linear. Levenshtein and LCS are rapidfuzz's
    bit-parallel O(n·m/64) algorithms in C++: milliseconds for two MAX_CHARS texts.
    Zhang–Shasha is bounded by MAX_TED_CELLS
    (about half a second at the limit); GGBench reference scripts make trees of 60 to 170
    nodes, a few milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from geomeval.geogebra.syntax import (
    BinOp,
    Bool,
    Call,
    Const,
    Degrees,
    Equation,
    FunctionDef,
    ListLit,
    Name,
    Neg,
    Not,
    Num,
    ParseError,
    PointLit,
    ScriptTooLarge,
    Statement,
    Str,
    parse_script,
)

__all__ = [
    "MAX_CHARS",
    "MAX_TED_CELLS",
    "MAX_TREE_NODES",
    "RubyResult",
    "bleu",
    "chrf",
    "code_metrics",
    "code_tokens",
    "edit_similarity",
    "lcs_length",
    "levenshtein",
    "normalized_edit_distance",
    "rouge_l",
    "ruby",
    "ruby_detail",
]

#: Characters of each input that a metric reads (see the module docstring for the cut rule).
MAX_CHARS = 20_000
#: Largest script tree (nodes, root included) scored at RUBY's tree level.
MAX_TREE_NODES = 2_000
#: Most Zhang–Shasha table cells (product of the trees' key-root subtree size sums) computed.
MAX_TED_CELLS = 2_000_000

BLEU_ORDER = 4
CHRF_ORDER = 6
CHRF_BETA = 2.0


# ---------------------------------------------------------------------------------------------
# Preparation and tokens.


def _prepare(text: str) -> tuple[str, bool]:
    """The text every metric reads and whether it was cut (the rule is in the module docstring).

    Slicing before normalising keeps the work proportional to MAX_CHARS, not to the input.
    """
    truncated = len(text) > MAX_CHARS
    head = text[:MAX_CHARS] if truncated else text
    head = head.replace("\r\n", "\n").replace("\r", "\n")
    if truncated:
        cut = head.rfind("\n")
        if cut > 0:
            head = head[:cut]
    return head.strip(), truncated


# Possessive quantifiers and disjoint alternatives: every match is linear, nothing backtracks.
# Strings end at their closing quote or at the end of the line, escapes as the parser reads them.
_TOKEN = re.compile(
    r"""
      "(?:[^"\\\n]|\\["\\]?+)*+"?+
    | (?:[0-9]++(?:\.[0-9]*+)?+|\.[0-9]++)(?:[eE][+-]?+[0-9]++)?+
    | [^\W\d_º][^\W_º]*+(?:_(?:\{[^{}\s]*+\}|[^\W_]++))?+['′]*+
    | [^\s\ufeff\u200b\u200c\u200d\u2060]
    """,
    re.VERBOSE,
)


def code_tokens(text: str) -> list[str]:
    """Split GeoGebra code into tokens for BLEU, ROUGE-L and RUBY's string level.

    Identifiers keep their subscript and primes so ``A_1`` and ``A'`` are one name each, as
    in GeoGebra; other punctuation is one character per token so that a differently spaced
    or bracketed line still shares most tokens. Whitespace and invisible characters separate
    tokens and are dropped. Linear in the text; it does not truncate (the metrics do).
    """
    return _TOKEN.findall(text)


# ---------------------------------------------------------------------------------------------
# Sequence distances (rapidfuzz: C++, exact, on strings and on token lists alike).


def levenshtein(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Unit-cost edit distance between two sequences (strings or token lists): rapidfuzz's
    ``Levenshtein.distance`` (Hyyrö's bit-parallel algorithm, in C++)."""
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(a, b)


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence: rapidfuzz's ``LCSseq.similarity``."""
    from rapidfuzz.distance import LCSseq

    return LCSseq.similarity(a, b)


# ---------------------------------------------------------------------------------------------
# BLEU, ROUGE-L, chrF (sacrebleu), edit distance.

_WHITESPACE = re.compile(r"\s")


@lru_cache(maxsize=1)
def _sacrebleu() -> tuple[object, object]:
    """sacrebleu's sentence BLEU on pre-tokenised text (its defaults: exp smoothing, effective
    order) and its default chrF; built once (the objects are stateless between calls)."""
    from sacrebleu.metrics import BLEU, CHRF

    return (BLEU(tokenize="none", effective_order=True, max_ngram_order=BLEU_ORDER),
            CHRF(char_order=CHRF_ORDER, word_order=0, beta=int(CHRF_BETA)))


def _joined(tokens: Sequence[str]) -> str:
    """Tokens as one space-separated line for sacrebleu's "none" tokenizer, which splits on
    whitespace: whitespace inside a token (a string literal's) becomes U+2581, the same on both
    sides, so every code token stays one token."""
    return " ".join(_WHITESPACE.sub("\u2581", token) for token in tokens)


def _bleu_tokens(candidate: Sequence[str], reference: Sequence[str]) -> float:
    """sacrebleu's sentence BLEU (exp smoothing, effective order) on token lists, in [0, 1]."""
    scorer, _ = _sacrebleu()
    score = scorer.sentence_score(_joined(candidate), [_joined(reference)]).score  # type: ignore[attr-defined]
    return min(1.0, score / 100)  # sacrebleu scales by 100: 100/100 may round above 1


def _rouge_l_tokens(candidate: Sequence[str], reference: Sequence[str]) -> float:
    # F1 of P = lcs/|c| and R = lcs/|r| simplifies to 2·lcs/(|c| + |r|).
    return 2 * lcs_length(candidate, reference) / (len(candidate) + len(reference))


def _chrf_text(candidate: str, reference: str) -> float:
    """sacrebleu's default chrF (whitespace removed, effective order, no eps smoothing)."""
    _, scorer = _sacrebleu()
    return min(1.0, scorer.sentence_score(candidate, [reference]).score / 100)  # type: ignore[attr-defined]


def _empty_score(candidate: str, reference: str) -> float | None:
    """The defined score when either prepared text is empty (module docstring), else None."""
    if not candidate or not reference:
        return 1.0 if candidate == reference else 0.0
    return None


def bleu(candidate: str, reference: str) -> float:
    """Sentence BLEU-4 over code tokens, in [0, 1] (variant: module docstring, "BLEU").

    sacrebleu's sentence-level defaults are used so the numbers match a tool people already
    cite; tokens come from ``code_tokens`` because its default 13a tokenizer splits ``A_1``.
    """
    c, r = _prepare(candidate)[0], _prepare(reference)[0]
    empty = _empty_score(c, r)
    return empty if empty is not None else _bleu_tokens(code_tokens(c), code_tokens(r))


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F1 over code tokens, in [0, 1]: order-aware overlap without BLEU's n-gram gaps."""
    c, r = _prepare(candidate)[0], _prepare(reference)[0]
    empty = _empty_score(c, r)
    return empty if empty is not None else _rouge_l_tokens(code_tokens(c), code_tokens(r))


def chrf(candidate: str, reference: str) -> float:
    """chrF (n = 1..6, beta = 2, whitespace removed), in [0, 1].

    Character n-grams give partial credit for near-miss names (``c_1`` vs ``c1``) and ignore
    spacing, which token metrics cannot.
    """
    c, r = _prepare(candidate)[0], _prepare(reference)[0]
    empty = _empty_score(c, r)
    return empty if empty is not None else _chrf_text(c, r)


def normalized_edit_distance(candidate: str, reference: str) -> float:
    """Character Levenshtein distance over the longer length: 0 identical, 1 nothing shared.

    Dividing by the longer length (not the reference's) keeps the value in [0, 1] however
    long a candidate rambles.
    """
    c, r = _prepare(candidate)[0], _prepare(reference)[0]
    empty = _empty_score(c, r)
    if empty is not None:
        return 1.0 - empty
    return levenshtein(c, r) / max(len(c), len(r))


def edit_similarity(candidate: str, reference: str) -> float:
    """1 - normalized_edit_distance: the same measure oriented like the others (1 = best)."""
    return 1.0 - normalized_edit_distance(candidate, reference)


# ---------------------------------------------------------------------------------------------
# RUBY.


@dataclass(frozen=True, slots=True)
class RubyResult:
    """A RUBY score and how it was reached, so a report can tell tree scores from fallbacks.

    ``level`` is "tree", "string" or "empty" (an input is empty: the score is the defined
    one); ``reason`` says why the string level was used ("" otherwise); ``distance`` is the
    tree or token edit distance and the sizes are node counts (tree) or token counts (string);
    ``truncated`` is whether an input was longer than MAX_CHARS.
    """

    score: float
    level: Literal["tree", "string", "empty"]
    reason: str
    distance: int
    candidate_size: int
    reference_size: int
    truncated: bool


class _TooBig(Exception):
    """A tree over MAX_TREE_NODES; the message goes to RubyResult.reason."""


@dataclass(frozen=True, slots=True)
class _Tree:
    """An ordered tree in postorder: labels, leftmost-leaf indices and Zhang–Shasha key roots."""

    labels: list[str]
    leftmost: list[int]
    keyroots: list[int]

    @property
    def table_size(self) -> int:
        """Sum of the key roots' subtree sizes: this tree's factor in Zhang–Shasha's work."""
        return sum(k - self.leftmost[k] + 1 for k in self.keyroots)


_Parts = Callable[[object], tuple[str, Sequence[object]]]


def _script_parts(node: object) -> tuple[str, Sequence[object]]:
    """Label and ordered children of a script-tree node; a plain str is a ready-made leaf."""
    match node:
        case str():
            return node, ()
        case Statement(labels=labels, expr=expr):
            return "stmt", (*(f"label:{label}" for label in labels), expr)
        case Call(name=name, args=args):
            return f"call:{name}", args
        case Name(name=name):
            return f"name:{name}", ()
        case Num(value=value):
            return f"num:{value!r}", ()
        case Str(value=value):
            return f"str:{value}", ()
        case Bool(value=value):
            return f"bool:{value}", ()
        case Const(name=name):
            return f"const:{name}", ()
        case PointLit(x=x, y=y, polar=polar):
            return ("polar" if polar else "point"), (x, y)
        case ListLit(items=items):
            return "list", items
        case BinOp(op=op, left=left, right=right):
            return f"op:{op}", (left, right)
        case Neg(operand=operand):
            return "neg", (operand,)
        case Not(operand=operand):
            return "not", (operand,)
        case Degrees(operand=operand):
            return "degrees", (operand,)
        case Equation(left=left, right=right):
            return "equation", (left, right)
        case FunctionDef(var=var, body=body):
            return f"function:{var}", (body,)
    raise TypeError(f"not a GeoGebra syntax node: {node!r}")


def _postorder(label: str, children: Sequence[object], parts: _Parts, limit: int) -> _Tree:
    """The tree under a root (label, children) in postorder, built without recursion.

    Left-associative chains like ``1+1+…+1`` nest hundreds deep within the parser's limits,
    beyond Python's recursion limit, hence the explicit stack. Raises _TooBig past ``limit``.
    """
    labels: list[str] = []
    leftmost: list[int] = []
    # One frame per open node: its label, children, next child and first postorder index
    # (in postorder a subtree's first node is its leftmost leaf).
    stack: list[tuple[str, Sequence[object], list[int], int]] = [(label, children, [0], 0)]
    while stack:
        label, children, cursor, first = stack[-1]
        k = cursor[0]
        if k < len(children):
            cursor[0] = k + 1
            child_label, grandchildren = parts(children[k])
            stack.append((child_label, grandchildren, [0], len(labels)))
            if len(labels) + len(stack) > limit:
                raise _TooBig(f"more than {limit} nodes")
        else:
            stack.pop()
            leftmost.append(first)
            labels.append(label)
    highest: dict[int, int] = {}
    for index, leaf in enumerate(leftmost):
        highest[leaf] = index  # the top node of each leftmost path is a key root
    return _Tree(labels, leftmost, sorted(highest.values()))


def _zhang_shasha(t1: _Tree, t2: _Tree) -> int:
    """Unit-cost ordered tree edit distance (Zhang & Shasha 1989).

    For each pair of key roots the forest-distance table over their subtrees is filled row by
    row; whole-subtree distances go to ``tree`` for later pairs. Cells computed:
    t1.table_size · t2.table_size; memory: |T1|·|T2| plus the largest forest table.
    """
    l1, m1 = t1.labels, t1.leftmost
    l2, m2 = t2.labels, t2.leftmost
    tree = [[0] * len(l2) for _ in l1]
    for i in t1.keyroots:
        li = m1[i]
        for j in t2.keyroots:
            lj = m2[j]
            width = j - lj + 2
            starts = [m2[y] - lj for y in range(lj, j + 1)]  # where y's subtree starts
            names = l2[lj : j + 1]
            forest = [list(range(width))]
            for a, x in enumerate(range(li, i + 1), 1):
                p = m1[x] - li
                label = l1[x]
                prev = forest[a - 1]
                before = forest[p]  # the forest left of x's subtree
                dist = tree[x]
                row = [a] * width
                left = a
                for b in range(1, width):
                    q = starts[b - 1]
                    whole = p == 0 and q == 0  # both prefixes are whole trees
                    if whole:
                        best = prev[b - 1] + (label != names[b - 1])
                    else:
                        best = before[q] + dist[lj + b - 1]
                    if prev[b] + 1 < best:
                        best = prev[b] + 1
                    if left + 1 < best:
                        best = left + 1
                    if whole:
                        dist[lj + b - 1] = best
                    row[b] = left = best
                forest.append(row)
    return tree[-1][-1]


def _statements(text: str, side: str) -> list[Statement] | str:
    """The script's statements, or why RUBY cannot use its tree (for RubyResult.reason)."""
    try:
        lines = parse_script(text)
    except ScriptTooLarge as error:
        return f"the parser refuses the {side} ({error})"
    statements: list[Statement] = []
    for line in lines:
        if isinstance(line, ParseError):
            return f"{side} does not parse: {line}"
        statements.append(line)
    return statements


def _tree_level(candidate: str, reference: str) -> tuple[int, int, int] | str:
    """(TED, |T_c|, |T_r|) of two prepared scripts, or why the tree level cannot be used."""
    trees: list[_Tree] = []
    for text, side in ((candidate, "candidate"), (reference, "reference")):
        statements = _statements(text, side)
        if isinstance(statements, str):
            return statements
        try:
            trees.append(_postorder("script", statements, _script_parts, MAX_TREE_NODES))
        except _TooBig as error:
            return f"the {side} tree has {error} (limit MAX_TREE_NODES)"
    t_c, t_r = trees
    cells = t_c.table_size * t_r.table_size
    if cells > MAX_TED_CELLS:
        return f"tree edit distance would fill {cells} table cells (limit {MAX_TED_CELLS})"
    return _zhang_shasha(t_c, t_r), len(t_c.labels), len(t_r.labels)


def _ruby(c: str, r: str, tokens_c: list[str], tokens_r: list[str]) -> RubyResult:
    """RUBY of two prepared, non-empty scripts (``truncated`` is set by the caller)."""
    tree = _tree_level(c, r)
    if not isinstance(tree, str):
        distance, size_c, size_r = tree
        score = 1.0 - distance / (size_c + size_r)
        return RubyResult(score, "tree", "", distance, size_c, size_r, False)
    distance = levenshtein(tokens_c, tokens_r)
    score = 1.0 - distance / max(len(tokens_c), len(tokens_r))
    return RubyResult(score, "string", tree, distance, len(tokens_c), len(tokens_r), False)


def ruby_detail(candidate: str, reference: str) -> RubyResult:
    """RUBY with the level used and why (variant: module docstring, "RUBY").

    The tree level needs both whole scripts to parse: a tree of only the lines that parsed
    would score a half-broken answer as if its broken lines were simply absent.
    """
    c, c_cut = _prepare(candidate)
    r, r_cut = _prepare(reference)
    empty = _empty_score(c, r)
    if empty is not None:
        reason = "both scripts are empty" if empty else "a script is empty"
        return RubyResult(empty, "empty", reason, 0, 0, 0, c_cut or r_cut)
    result = _ruby(c, r, code_tokens(c), code_tokens(r))
    return replace(result, truncated=c_cut or r_cut)


def ruby(candidate: str, reference: str) -> float:
    """RUBY similarity in [0, 1]; ``ruby_detail`` also says whether tree or string level."""
    return ruby_detail(candidate, reference).score


def code_metrics(candidate: str, reference: str) -> dict[str, float]:
    """All five metrics, preparing and tokenising each text once.

    Keys: "BLEU", "ROUGE-L", "chrF", "edit_distance" (normalized: 0 is best), "RUBY".
    """
    c, r = _prepare(candidate)[0], _prepare(reference)[0]
    empty = _empty_score(c, r)
    if empty is not None:
        scores = dict.fromkeys(("BLEU", "ROUGE-L", "chrF", "RUBY"), empty)
        return {**scores, "edit_distance": 1.0 - empty}
    tokens_c, tokens_r = code_tokens(c), code_tokens(r)
    return {
        "BLEU": _bleu_tokens(tokens_c, tokens_r),
        "ROUGE-L": _rouge_l_tokens(tokens_c, tokens_r),
        "chrF": _chrf_text(c, r),
        "edit_distance": levenshtein(c, r) / max(len(c), len(r)),
        "RUBY": _ruby(c, r, tokens_c, tokens_r).score,
    }

"""Code-similarity metrics between a candidate GeoGebra script and the reference (GGBench)."""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from geomeval.engines.codemetrics import (
    MAX_CHARS,
    MAX_TED_CELLS,
    MAX_TREE_NODES,
    _postorder,
    _script_parts,
    _zhang_shasha,
    bleu,
    chrf,
    code_metrics,
    code_tokens,
    edit_similarity,
    lcs_length,
    levenshtein,
    normalized_edit_distance,
    rouge_l,
    ruby,
    ruby_detail,
)
from geomeval.geogebra.syntax import ParseError, parse_script

CORPUS = Path(__file__).parents[1] / "data" / "ggb_corpus"
CORPUS_FILES = sorted(CORPUS.glob("*.ggb"))
PERFECT = {"BLEU": 1.0, "ROUGE-L": 1.0, "chrF": 1.0, "edit_distance": 0.0, "RUBY": 1.0}
NOTHING = {"BLEU": 0.0, "ROUGE-L": 0.0, "chrF": 0.0, "edit_distance": 1.0, "RUBY": 0.0}


def script(name: str) -> str:
    return (CORPUS / name).read_text(encoding="utf-8")


def parses(text: str) -> bool:
    return not any(isinstance(line, ParseError) for line in parse_script(text))


def edited(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# --- tokens ----------------------------------------------------------------------------------


def test_code_tokens_keep_geogebra_names_numbers_and_strings_whole() -> None:
    text = 'c_1 = Circle(A_{12}, A\'\', 2.5e-3, .5, 60°) # "x \\" y"\nα′=1e5 "open\nB'
    assert code_tokens(text) == [
        "c_1", "=", "Circle", "(", "A_{12}", ",", "A''", ",", "2.5e-3", ",", ".5", ",",
        "60", "°", ")", "#", '"x \\" y"', "α′", "=", "1e5", '"open', "B",
    ]  # fmt: skip


def test_code_tokens_split_implicit_products_and_skip_invisible_characters() -> None:
    assert code_tokens("2pi\u200b+3x") == ["2", "pi", "+", "3", "x"]
    assert code_tokens(" \t\n") == []


# --- sequence algorithms ---------------------------------------------------------------------


def dp_levenshtein(a: Sequence[object], b: Sequence[object]) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def dp_lcs(a: Sequence[object], b: Sequence[object]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def test_levenshtein_kitten_sitting() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert normalized_edit_distance("kitten", "sitting") == 3 / 7
    assert edit_similarity("kitten", "sitting") == 4 / 7


def test_bit_parallel_distances_equal_the_plain_dynamic_programme() -> None:
    rng = random.Random(20240611)
    for _ in range(400):
        a = "".join(rng.choice("abc") for _ in range(rng.randint(0, 90)))
        b = "".join(rng.choice("abcd") for _ in range(rng.randint(0, 90)))
        assert levenshtein(a, b) == dp_levenshtein(a, b), (a, b)
        assert lcs_length(a, b) == dp_lcs(a, b), (a, b)
    lines = [line for path in CORPUS_FILES[:20] for line in path.read_text().splitlines()]
    for _ in range(50):
        a = code_tokens("\n".join(rng.sample(lines, 6)))
        b = code_tokens("\n".join(rng.sample(lines, 6)))
        assert levenshtein(a, b) == dp_levenshtein(a, b)
        assert lcs_length(a, b) == dp_lcs(a, b)


# --- BLEU, ROUGE-L, chrF ---------------------------------------------------------------------


def test_rouge_l_hand_computed() -> None:
    # A = Circle ( B , C ) against A = Circle ( C , B ): LCS "A = Circle ( , )" has 6 of 8
    # tokens on each side, so P = R = F1 = 0.75.
    assert code_tokens("A = Circle(B, C)") == ["A", "=", "Circle", "(", "B", ",", "C", ")"]
    assert rouge_l("A = Circle(B, C)", "A = Circle(C, B)") == pytest.approx(0.75)
    # Unequal lengths: LCS 6, |c| = 6, |r| = 8: 2·6 / 14.
    assert rouge_l("f(A, B)", "f(A, B, C)") == pytest.approx(12 / 14)


def test_bleu_hand_computed() -> None:
    # f ( A , B ) vs f ( A , C ): precisions 5/6, 3/5, 2/4, 1/3, same length.
    assert bleu("f(A, B)", "f(A, C)") == pytest.approx((1 / 12) ** 0.25)
    # A candidate shorter than the reference: 6/6, 4/5, 3/4, 2/3 and BP = exp(1 - 8/6).
    expected = math.exp(1 - 8 / 6) * (6 / 6 * 4 / 5 * 3 / 4 * 2 / 3) ** 0.25
    assert bleu("f(A, B)", "f(A, B, C)") == pytest.approx(expected)
    # Exp smoothing and effective order: A = B vs A = C has 2/3, 1/2 and no matching
    # trigram (1 / (2·1)), and no 4-grams at all, so the mean is over three orders.
    assert bleu("A = B", "A = C") == pytest.approx((2 / 3 * 1 / 2 * 1 / 2) ** (1 / 3))
    assert bleu("x y z", "A = B") == 0.0  # no match at all


def test_bleu_of_a_script_missing_a_line_is_between_zero_and_a_near_identical_one() -> None:
    reference = script("001_equilateral_triangle.ggb")
    lines = reference.splitlines()
    missing = "\n".join(lines[:5] + lines[6:])
    near = edited(reference, "B = (4, 0)", "B = (5, 0)")
    assert 0.0 < bleu(missing, reference) < bleu(near, reference) < 1.0


def test_chrf_hand_computed_and_insensitive_to_whitespace() -> None:
    # "ab" vs "abc": orders 1 and 2 only; P = 1, R = (2/3 + 1/2) / 2 = 7/12; F2 = 7/11.
    assert chrf("ab", "abc") == pytest.approx(7 / 11)
    reference = script("005_circumcircle.ggb")
    squeezed = "\n".join("".join(line.split()) for line in reference.splitlines())
    spread = reference.replace(", ", " ,\t ").replace("=", "  =  ")
    assert chrf(squeezed, reference) == 1.0
    assert chrf(spread, reference) == 1.0
    candidate = edited(reference, "Circle(O, A)", "Circle(O,B)")
    assert chrf(candidate, reference) == chrf(candidate.replace(" ", ""), reference) < 1.0
    assert bleu(squeezed, reference) == 1.0  # token metrics ignore spacing too
    assert normalized_edit_distance(squeezed, reference) > 0.0  # character edits do not


# --- whole scripts ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.stem)
def test_identical_scripts_score_perfectly(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert code_metrics(text, text) == PERFECT
    # Outer whitespace and line endings are not part of the code.
    assert code_metrics("\n" + text.replace("\n", "\r\n") + "\n\n", text) == PERFECT
    detail = ruby_detail(text, text)
    assert detail.level == ("tree" if parses(text) else "string")
    assert detail.distance == 0


@pytest.mark.slow
def test_scores_stay_in_range_and_symmetric_ones_are_symmetric() -> None:
    texts = [path.read_text(encoding="utf-8") for path in CORPUS_FILES]
    for a, b in zip(texts, texts[1:] + texts[:1], strict=True):
        forward, backward = code_metrics(a, b), code_metrics(b, a)
        assert all(0.0 <= value <= 1.0 for value in forward.values())
        for key in ("ROUGE-L", "edit_distance", "RUBY"):
            assert forward[key] == pytest.approx(backward[key])
        assert forward["BLEU"] == bleu(a, b) and forward["chrF"] == chrf(a, b)
        assert forward["RUBY"] == ruby(a, b)


def test_empty_candidate_reference_or_both() -> None:
    reference = script("001_equilateral_triangle.ggb")
    for empty in ("", "  \n\t\n"):
        assert code_metrics(empty, reference) == NOTHING
        assert code_metrics(reference, empty) == NOTHING
        assert code_metrics(empty, "") == PERFECT
    assert ruby_detail("", reference).level == "empty"
    assert ruby_detail("", "").score == 1.0
    assert normalized_edit_distance("", "x") == 1.0 and edit_similarity("", "") == 1.0


def test_long_inputs_keep_whole_lines_up_to_max_chars() -> None:
    line = "A = (1, 2)\n"  # 11 characters: 1818 whole lines fit in 20,000
    kept = MAX_CHARS // len(line)
    long = line * 3000
    assert code_metrics(long, line * kept) == PERFECT  # the partial line 1819 is dropped
    assert code_metrics(long, line * (kept - 1))["edit_distance"] > 0.0  # line 1818 is kept
    assert ruby_detail(long, line).truncated and not ruby_detail(line, line).truncated


# --- RUBY ------------------------------------------------------------------------------------


def test_ruby_tree_level_hand_computed() -> None:
    # script → stmt → (label:c, call:Circle → (name:A, name:B)): 6 nodes a side.
    reference = "c = Circle(A, B)"
    detail = ruby_detail("c = Circle(A, C)", reference)
    assert (detail.level, detail.distance, detail.candidate_size) == ("tree", 1, 6)
    assert detail.score == pytest.approx(1 - 1 / 12)
    assert ruby("c = Circle(B, A)", reference) == pytest.approx(1 - 2 / 12)
    # A missing label is one deleted node; a missing statement deletes its whole subtree.
    assert ruby("Circle(A, B)", reference) == pytest.approx(1 - 1 / 11)
    assert ruby(reference + "\nd = Circle(B, A)", reference) == pytest.approx(1 - 5 / 17)


def test_ruby_argument_change_beats_command_change_and_order_matters() -> None:
    reference = script("001_equilateral_triangle.ggb")
    argument = edited(reference, "c_2 = Circle(B, A)", "c_2 = Circle(B, C)")
    command = edited(reference, "C = Intersect(c_1, c_2, 1)", "C = Rotate(B, 60°, A)")
    reordered = edited(reference, "c_1 = Circle(A, B)", "c_1 = Circle(B, A)")
    scores = {name: ruby_detail(text, reference) for name, text in locals().items()}
    assert all(detail.level == "tree" for detail in scores.values())
    assert scores["argument"].distance == 1 and scores["reordered"].distance == 2
    assert scores["reference"].score == 1.0
    assert scores["argument"].score > scores["command"].score
    assert scores["reordered"].score < scores["reference"].score
    assert scores["reordered"].score < scores["argument"].score


def test_ruby_unit_costs_price_a_command_rename_like_an_argument() -> None:
    # Documented consequence of unit costs: only the command's label changes.
    reference = script("001_equilateral_triangle.ggb")
    renamed = edited(reference, "s = Segment(A, B)", "s = Line(A, B)")
    argument = edited(reference, "c_2 = Circle(B, A)", "c_2 = Circle(B, C)")
    assert ruby_detail(renamed, reference).distance == 1
    assert ruby(renamed, reference) == ruby(argument, reference)


def test_ruby_falls_back_to_tokens_when_a_line_does_not_parse() -> None:
    candidate = script("110_faulty_missing_parenthesis.ggb")  # line 4 lacks a ')'
    fixed = edited(edited(candidate, "Circle(A, B\n", "Circle(A, B)\n"), "M))", "M)")
    assert not parses(candidate) and parses(fixed)
    detail = ruby_detail(candidate, fixed)
    assert detail.level == "string"
    assert detail.reason.startswith("candidate does not parse: line 4, column ")
    # One ')' missing, one extra: two token edits over the same token count.
    assert len(code_tokens(candidate)) == len(code_tokens(fixed)) == detail.reference_size
    assert detail.distance == 2
    assert detail.score == pytest.approx(1 - 2 / detail.reference_size)
    assert ruby_detail(fixed, candidate).reason.startswith("reference does not parse")
    # One token short of an eight-token line: 1 - 1/8.
    assert ruby("c = Circle(A, B", "c = Circle(A, B)") == pytest.approx(7 / 8)


def test_zhang_shasha_classic_example() -> None:
    # Zhang & Shasha's example: f(d(a, c(b)), e) to f(c(d(a, b)), e) costs 2.
    def parts(node: object) -> tuple[str, Sequence[object]]:
        label, *children = node  # type: ignore[misc]
        return label, children

    a = _postorder("f", [("d", ("a",), ("c", ("b",))), ("e",)], parts, 100)
    b = _postorder("f", [("c", ("d", ("a",), ("b",))), ("e",)], parts, 100)
    assert a.labels == ["a", "b", "c", "d", "e", "f"] and a.leftmost == [0, 1, 1, 0, 4, 0]
    assert _zhang_shasha(a, b) == _zhang_shasha(b, a) == 2
    assert _zhang_shasha(a, a) == 0


def test_zhang_shasha_matches_the_zss_package() -> None:
    import zss  # the test extra installs it

    def to_zss(node: object) -> object:
        label, children = _script_parts(node)
        out = zss.Node(label)
        for child in children:
            out.addkid(to_zss(child))
        return out

    texts = [p.read_text(encoding="utf-8") for p in CORPUS_FILES if len(p.read_text()) < 250]
    texts = [text for text in texts if parses(text)][:8]
    assert len(texts) == 8
    for a, b in itertools.pairwise(texts):
        statements_a, statements_b = parse_script(a), parse_script(b)
        ours = _zhang_shasha(
            _postorder("script", statements_a, _script_parts, MAX_TREE_NODES),
            _postorder("script", statements_b, _script_parts, MAX_TREE_NODES),
        )
        root_a, root_b = zss.Node("script"), zss.Node("script")
        for statement in statements_a:
            root_a.addkid(to_zss(statement))
        for statement in statements_b:
            root_b.addkid(to_zss(statement))
        theirs = zss.simple_distance(root_a, root_b, label_dist=lambda x, y: int(x != y))
        assert ours == theirs


def test_bleu_and_chrf_match_sacrebleu() -> None:
    sacrebleu = pytest.importorskip("sacrebleu")
    texts = [p.read_text(encoding="utf-8").strip() for p in CORPUS_FILES]
    checked = 0
    for a, b in zip(texts, texts[3:] + texts[:3], strict=True):
        tokens_a, tokens_b = code_tokens(a), code_tokens(b)
        assert chrf(a, b) == pytest.approx(sacrebleu.sentence_chrf(a, [b]).score / 100)
        if any(" " in token for token in tokens_a + tokens_b):
            continue  # a string with spaces would be split by tokenize="none"
        joined = sacrebleu.sentence_bleu(" ".join(tokens_a), [" ".join(tokens_b)], tokenize="none")
        assert bleu(a, b) == pytest.approx(joined.score / 100)
        checked += 1
    assert checked > 50


# --- hostile input ---------------------------------------------------------------------------

CHAIN = "a = " + "1+" * 990 + "1"  # parses: one line, 990 nested BinOps
NESTED_OK = "p = " + "(" * 60 + "1" + ")" * 60
NESTED_TOO_DEEP = "p = " + "(" * 70 + "1" + ")" * 70
WIDE = "\n".join(f"A_{{{i}}} = Circle(B, C)" for i in range(600))  # 3,601 nodes


@pytest.mark.parametrize(
    ("candidate", "level", "reason"),
    [
        ("(" * 100_000, "string", "the parser refuses the candidate"),
        ("A = " + "f(" * 50_000 + ")" * 50_000, "string", "the parser refuses the candidate"),
        ("".join(chr(0x4E00 + i % 5000) for i in range(100_000)), "string", "refuses"),
        ('"\\' * 50_000, "string", "the parser refuses the candidate"),
        (CHAIN, "tree", ""),  # small reference: within MAX_TED_CELLS
        (NESTED_OK, "tree", ""),
        (NESTED_TOO_DEEP, "string", "nested more than 64 levels"),
        (WIDE, "string", f"the candidate tree has more than {MAX_TREE_NODES} nodes"),
    ],
    ids=["parens", "calls", "cjk", "quotes", "chain", "nested", "too-deep", "wide"],
)
def test_hostile_input_is_scored_within_bounds(candidate: str, level: str, reason: str) -> None:
    reference = script("014_orthocenter_altitudes.ggb")
    start = time.perf_counter()
    scores = code_metrics(candidate, reference)
    detail = ruby_detail(candidate, reference)
    same = code_metrics(candidate, candidate)
    assert time.perf_counter() - start < 10.0  # about a second on a laptop
    assert all(0.0 <= value <= 1.0 for value in scores.values())
    assert scores["RUBY"] == detail.score
    assert detail.level == level and reason in detail.reason
    assert same == PERFECT
    assert detail.truncated == (len(candidate) > MAX_CHARS)


def test_two_deep_trees_exceed_the_tree_edit_work_limit() -> None:
    tree = _postorder("script", parse_script(CHAIN), _script_parts, MAX_TREE_NODES)
    assert len(tree.labels) < MAX_TREE_NODES < MAX_TED_CELLS < tree.table_size**2
    start = time.perf_counter()
    detail = ruby_detail(CHAIN, CHAIN.replace("1+1", "2+1", 1))
    assert time.perf_counter() - start < 10.0
    assert detail.level == "string"
    assert f"table cells (limit {MAX_TED_CELLS})" in detail.reason
    assert (detail.distance, detail.score) == (1, 1 - 1 / detail.reference_size)

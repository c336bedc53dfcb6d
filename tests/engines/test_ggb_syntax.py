"""The GeoGebra script parser on the scripts models write (GGBench answers)."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import pytest

from geomeval.geogebra.syntax import (
    MATH_FUNCTIONS,
    BinOp,
    Bool,
    Call,
    Const,
    Degrees,
    Equation,
    Expr,
    FunctionDef,
    ListLit,
    Name,
    Neg,
    Num,
    ParseError,
    PointLit,
    ScriptLimits,
    ScriptTooLarge,
    Statement,
    Str,
    extract_code,
    extract_code_with_offsets,
    parse_line,
    parse_script,
    to_source,
)


def expr(text: str) -> Expr:
    return parse_line(text).expr


def error(text: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_line(text)
    return info.value


def n(value: float) -> Num:
    return Num(float(value))


A, B, C = Name("A"), Name("B"), Name("C")


# --- statements and labels -------------------------------------------------------------------


def test_equality_ignores_positions_spelling_and_brackets() -> None:
    # The round-trip law and test expectations rely on this: == means "same construction".
    assert Num(2.0, "2", line=1, col=5) == Num(2.0, "2.0", line=7, col=1)
    assert Call("Circle", (A, n(2)), brackets=True) == Call("Circle", (A, n(2)))
    assert Statement(1, 1, ("c",), A, "c = A") == Statement(9, 4, ("c",), A)
    assert Name("A") != Name("B") and Num(1.0) != Num(2.0)
    assert hash(Num(2.0, "2", line=3)) == hash(Num(2.0, "2.00"))


def test_labelled_command() -> None:
    statement = parse_line("C = Rotate(B, 60°, A)", 7)
    assert statement == Statement(7, 1, ("C",), Call("Rotate", (B, Degrees(n(60)), A)))
    assert statement.line == 7 and statement.col == 1
    assert statement.source == "C = Rotate(B, 60°, A)"
    call = statement.expr
    assert isinstance(call, Call) and not call.brackets
    assert (call.line, call.col) == (7, 5)
    assert [(a.line, a.col) for a in call.args] == [(7, 12), (7, 15), (7, 20)]


def test_bare_command_and_zero_arguments() -> None:
    assert parse_line("ShowAxes(false)") == Statement(1, 1, (), Call("ShowAxes", (Bool(False),)))
    assert expr("UpdateConstruction()") == Call("UpdateConstruction", ())


def test_legacy_brackets() -> None:
    call = expr("Circle[A, 2]")
    assert isinstance(call, Call) and call.brackets
    assert call == Call("Circle", (A, n(2)))
    assert expr("Segment[A, Midpoint[B, C]]") == Call("Segment", (A, Call("Midpoint", (B, C))))


def test_colon_label() -> None:
    assert parse_line("c: Circle(A, 3)").labels == ("c",)
    assert parse_line("c: Circle(A, 3)").expr == Call("Circle", (A, n(3)))
    assert parse_line("a := 5").labels == ("a",)


@pytest.mark.parametrize(
    "text", ["A, B = Intersect(c, d)", "{A, B} = Intersect(c, d)", "{A,B}=Intersect[c,d]"]
)
def test_multiple_labels(text: str) -> None:
    statement = parse_line(text)
    assert statement.labels == ("A", "B")
    assert statement.expr == Call("Intersect", (Name("c"), Name("d")))


def test_a_braced_list_without_equals_is_a_list() -> None:
    assert parse_line("{A, B}") == Statement(1, 1, (), ListLit((A, B)))


@pytest.mark.parametrize(
    ("text", "labels", "left", "right"),
    [
        ("f: y = 2x + 1", ("f",), Name("y"), BinOp("+", BinOp("*", n(2), Name("x")), n(1))),
        ("x = 3", (), Name("x"), n(3)),
        ("y = 3", (), Name("y"), n(3)),
        ("k: 2 = y", ("k",), n(2), Name("y")),
        (
            "c: x^2 + y^2 = 4",
            ("c",),
            BinOp("+", BinOp("^", Name("x"), n(2)), BinOp("^", Name("y"), n(2))),
            n(4),
        ),
    ],
)
def test_equations_parse_with_their_label(
    text: str, labels: tuple[str, ...], left: Expr, right: Expr
) -> None:
    statement = parse_line(text)
    assert statement.labels == labels
    assert statement.expr == Equation(left, right)


@pytest.mark.parametrize(
    ("text", "col", "message"),
    [
        ("c = x^2 + y^2 = 25", 15, "Invalid input: an equation is named with ':'"),
        ("a = b = 3", 7, "Invalid input: an equation is named with ':'"),
        ("x^2 = y = 1", 9, "Invalid input: more than one '='"),
        ("y =", 4, "expected an expression after '='"),
    ],
)
def test_equations_geogebra_4_refuses(text: str, col: int, message: str) -> None:
    err = error(text)
    assert (err.col, err.message) == (col, message)


def test_equation_as_a_command_argument() -> None:
    statement = parse_line("I = Intersect(e, y = 1)")
    assert statement.expr == Call("Intersect", (Name("e"), Equation(Name("y"), n(1))))
    assert to_source(statement, legacy=True) == "I = Intersect[e, y = 1]"


def test_function_definitions() -> None:
    statement = parse_line("f(x) = x^2 - 3")
    assert statement.labels == ("f",)
    assert statement.expr == FunctionDef("x", BinOp("-", BinOp("^", Name("x"), n(2)), n(3)))
    assert to_source(statement) == "f(x) = x^2 - 3"
    two = parse_line("g(x, y) = x y")
    assert two.expr == FunctionDef("x,y", BinOp("*", Name("x"), Name("y")))
    assert to_source(two) == "g(x, y) = x * y"
    assert to_source(parse_line("f: y = 2x")) == "f: y = 2 * x"


@pytest.mark.parametrize(
    ("text", "col", "message"),
    [
        ("pi = 3", 1, "'pi' is a constant and cannot be a label"),
        ("True = 1", 1, "'True' is a boolean and cannot be a label"),
        ("A, A = Intersect(c, d)", 4, "label 'A' appears twice"),
        ("x: 2", 1, "'x' cannot be a label: x, y and z name coordinates"),
        ("A, y = Intersect(c, d)", 4, "'y' cannot be a label: x, y and z name coordinates"),
        ("A =", 4, "expected an expression after '='"),
        ("A = ", 4, "expected an expression after '='"),
    ],
)
def test_bad_labels(text: str, col: int, message: str) -> None:
    err = error(text)
    assert (err.col, err.message) == (col, message)


# --- expressions -----------------------------------------------------------------------------


def test_points_parentheses_and_lists() -> None:
    assert expr("(1, 2)") == PointLit(n(1), n(2))
    assert expr("(a + b)") == BinOp("+", Name("a"), Name("b"))
    assert expr("((1, 2))") == PointLit(n(1), n(2))
    assert expr("Point({1, 2})") == Call("Point", (ListLit((n(1), n(2))),))
    assert expr("{{1, 2}, {}, {(0, 0)}}") == ListLit(
        (ListLit((n(1), n(2))), ListLit(()), ListLit((PointLit(n(0), n(0)),)))
    )
    point = expr("A = (x(B) + 1, -y(B))")
    assert point == PointLit(BinOp("+", Call("x", (B,)), n(1)), Neg(Call("y", (B,))))
    assert isinstance(point, PointLit) and point.col == 5


@pytest.mark.parametrize(
    ("text", "col", "message"),
    [
        ("(1, 2, 3)", 1, "3D points are not supported"),
        ("A = (1, 2, 3, 4)", 5, "a point has two coordinates, not 4"),
        ("A = (2; 60°; 1)", 12, "a polar point is (r; θ): expected ')'"),
        ("A = (1, 2; 3)", 10, "unexpected ';' (expected ',' or ')')"),
        ("A = ()", 5, "empty parentheses"),
        ("A = (1, )", 9, "empty coordinate"),
    ],
)
def test_point_errors(text: str, col: int, message: str) -> None:
    err = error(text)
    assert (err.col, err.message) == (col, message)


@pytest.mark.parametrize(
    ("text", "value", "spelling"),
    [("42", 42.0, "42"), ("3.25", 3.25, "3.25"), (".5", 0.5, ".5"), ("1e-3", 0.001, "1e-3"),
     ("2.5E+2", 250.0, "2.5E+2"), ("007", 7.0, "007"), ("1.", 1.0, "1.")],
)  # fmt: skip
def test_numbers(text: str, value: float, spelling: str) -> None:
    node = expr(text)
    assert isinstance(node, Num) and node.value == value and node.text == spelling


def test_huge_number_is_an_error() -> None:
    err = error("a = 1e999")
    assert (err.col, err.message) == (5, "number '1e999' is too large")


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("1 + 2 * 3", BinOp("+", n(1), BinOp("*", n(2), n(3)))),
        ("(1 + 2) * 3", BinOp("*", BinOp("+", n(1), n(2)), n(3))),
        ("a - b - c", BinOp("-", BinOp("-", Name("a"), Name("b")), Name("c"))),
        ("a / b * c", BinOp("*", BinOp("/", Name("a"), Name("b")), Name("c"))),
        ("2^3^2", BinOp("^", n(2), BinOp("^", n(3), n(2)))),
        ("-2^2", Neg(BinOp("^", n(2), n(2)))),
        ("(-2)^2", BinOp("^", Neg(n(2)), n(2))),
        ("2^-1", BinOp("^", n(2), Neg(n(1)))),
        ("-a * b", BinOp("*", Neg(Name("a")), Name("b"))),
        ("--a", Neg(Neg(Name("a")))),
        ("+a", Name("a")),
        ("a - -b", BinOp("-", Name("a"), Neg(Name("b")))),
        ("r²", BinOp("^", Name("r"), n(2))),
        ("a^b²", BinOp("^", Name("a"), BinOp("^", Name("b"), n(2)))),
    ],
)
def test_precedence(text: str, tree: Expr) -> None:
    assert expr(text) == tree


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("2pi", BinOp("*", n(2), Const("pi"))),
        ("2 pi", BinOp("*", n(2), Const("pi"))),
        ("3(1+2)", BinOp("*", n(3), BinOp("+", n(1), n(2)))),
        ("2sqrt(3)", BinOp("*", n(2), Call("sqrt", (n(3),)))),
        ("2x(A)", BinOp("*", n(2), Call("x", (A,)))),
        ("1/2pi", BinOp("*", BinOp("/", n(1), n(2)), Const("pi"))),
        ("2pi^2", BinOp("*", n(2), BinOp("^", Const("pi"), n(2)))),
        ("-2a", BinOp("*", Neg(n(2)), Name("a"))),
        ("2a + 3b", BinOp("+", BinOp("*", n(2), Name("a")), BinOp("*", n(3), Name("b")))),
    ],
)
def test_implicit_multiplication_after_a_number(text: str, tree: Expr) -> None:
    assert expr(text) == tree


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("a b", BinOp("*", Name("a"), Name("b"))),
        ("(a + b)(c)", BinOp("*", BinOp("+", Name("a"), Name("b")), Name("c"))),
        ("2pi k", BinOp("*", BinOp("*", n(2), Const("pi")), Name("k"))),
        ("6 (6 - a)", BinOp("*", n(6), BinOp("-", n(6), Name("a")))),
        ("2 3", BinOp("*", n(2), n(3))),
        ("1.2.3", BinOp("*", n(1.2), n(0.3))),  # 0.36 in GeoGebra 4.0.34
        (
            "sqrt(Distance(A, B) Distance(B, C))",
            Call(
                "sqrt",
                (BinOp("*", Call("Distance", (A, Name("B"))), Call("Distance", (Name("B"), Name("C")))),),
            ),
        ),
        ("x² y", BinOp("*", BinOp("^", Name("x"), n(2)), Name("y"))),
    ],
)
def test_implicit_multiplication_between_operands(text: str, tree: Expr) -> None:
    # GeoGebra 4.0.34 (reference harness) reads every juxtaposition as a product.
    assert expr(text) == tree


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("60°", Degrees(n(60))),
        ("(30+15)°", Degrees(BinOp("+", n(30), n(15)))),
        ("-60°", Neg(Degrees(n(60)))),
        ("2 * 30°", BinOp("*", n(2), Degrees(n(30)))),
        ("45º", Degrees(n(45))),
        ("a°", Degrees(Name("a"))),
    ],
)
def test_degrees(text: str, tree: Expr) -> None:
    assert expr(text) == tree


def test_constants_and_booleans() -> None:
    assert expr("pi") == Const("pi")
    assert expr("π") == Const("pi")
    assert expr("2π") == BinOp("*", n(2), Const("pi"))
    assert expr("e") == Name("e")  # e is a common label: left to the executor
    assert expr("Pi") == Name("Pi")
    for text, value in [("true", True), ("FALSE", False), ("True", True), ("false", False)]:
        assert expr(text) == Bool(value)


def test_positions_of_compound_nodes_are_their_first_character() -> None:
    node = expr("a = (1 + 2) * 3°")
    assert isinstance(node, BinOp) and node.col == 5
    assert isinstance(node.left, BinOp) and node.left.col == 6
    assert isinstance(node.right, Degrees) and node.right.col == 15
    negative = expr("a = -b")
    assert isinstance(negative, Neg) and negative.col == 5
    assert parse_line("   A = B", 3).col == 4


def test_strings() -> None:
    assert expr('"hello"') == Str("hello")
    assert expr('""') == Str("")
    assert expr(r'"say \"hi\""') == Str('say "hi"')
    assert expr(r'"a\\b"') == Str("a\\b")
    assert expr(r'"\alpha + \frac{1}{2}"') == Str("\\alpha + \\frac{1}{2}")  # LaTeX kept
    assert expr('"#FF8800"') == Str("#FF8800")
    assert expr('Text("r = " + r, (1, 2))') == Call(
        "Text", (BinOp("+", Str("r = "), Name("r")), PointLit(n(1), n(2)))
    )


def test_unterminated_string_points_at_the_quote() -> None:
    err = error('Text("abc, (1, 2))')
    assert (err.line, err.col, err.message) == (1, 6, "unterminated string")
    assert error(r'Text("abc\")').message == "unterminated string"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("A", "A"),
        ("poly1", "poly1"),
        ("A'", "A'"),
        ("A''", "A''"),
        ("A′", "A'"),
        ("s_1", "s_1"),
        ("s_{1}", "s_1"),
        ("A_12", "A_{12}"),
        ("A_{12}", "A_{12}"),
        ("P_{AB}", "P_{AB}"),
        ("A_1'", "A_1'"),
        ("A_{12}'", "A_{12}'"),
        ("α", "α"),
        ("Ω_1", "Ω_1"),
        ("β2", "β2"),
        ("Ä", "Ä"),
        ("c_{AB}", "c_{AB}"),
        ("angle_ABC", "angle_{ABC}"),
    ],
)
def test_label_canonical_form(text: str, canonical: str) -> None:
    statement = parse_line(f"{text} = Point(A)")
    assert statement.labels == (canonical,)
    assert expr(f"Segment({text}, B)") == Call("Segment", (Name(canonical), B))


@pytest.mark.parametrize(
    ("text", "col", "message"),
    [
        ("A_ = (1, 2)", 3, "expected a subscript after '_'"),
        ("A_{} = (1, 2)", 3, "expected a subscript after '_'"),
        ("A_{1 = (1, 2)", 5, "unexpected ' ' in subscript"),
        ("A_{12", 3, "missing '}' to close the subscript"),
    ],
)
def test_subscript_errors(text: str, col: int, message: str) -> None:
    err = error(text)
    assert (err.col, err.message) == (col, message)


def test_unicode_operators() -> None:
    assert expr("a = 3 − 1") == BinOp("-", n(3), n(1))
    assert expr("a = −1") == Neg(n(1))
    assert expr("a = 2 × 3 · 4 ⋅ 5") == BinOp("*", BinOp("*", BinOp("*", n(2), n(3)), n(4)), n(5))
    assert expr("a = 6 ÷ 2") == BinOp("/", n(6), n(2))
    assert expr("\ufeffA\u00a0=\t(1,\u200b2)") == PointLit(n(1), n(2))


def test_semicolons_are_dropped_and_comments_fail_the_line() -> None:
    assert parse_line("A = (1, 2);") == parse_line("A = (1, 2)")
    assert parse_line("A = (1, 2);;  ") == parse_line("A = (1, 2)")
    # GeoGebra 4.0.34 has no comments: the reference harness rejects any line holding one.
    for text, col in [
        ('SetColor(p, "#FF8800")  # orange', 25),
        ("c = Circle(A, 2) // radius 2", 18),
        ("# just a comment", 1),
        ("  A = (1, 2); # point", 15),
    ]:
        err = error(text)
        assert (err.col, err.message) == (col, "Invalid input: GeoGebra has no comments ('#', '//')")
    # inside a string, # and // are text
    assert parse_line('t = Text("a // b # c")').expr == Call("Text", (Str("a // b # c"),))
    assert parse_line('SetColor(p, "#FF8800")').expr == Call("SetColor", (Name("p"), Str("#FF8800")))


def test_script_per_line_status_and_real_line_numbers() -> None:
    script = "\n".join(
        [
            "# Construct an equilateral triangle",  # 1
            "",  # 2
            "A = (0, 0)",  # 3
            "B = (4, 0);",  # 4
            "   // rotate B about A",  # 5
            "C = Rotate(B, 60°, A",  # 6
            "poly1 = Polygon(A, B, C)  # the triangle",  # 7
            "c: x^2 + y^2 = 4",  # 8
            'SetColor(poly1, "#FF8800")\r',  # 9
            "",
        ]
    )
    parsed = parse_script(script)
    assert [item.line for item in parsed] == [1, 3, 4, 5, 6, 7, 8, 9]
    ok = [item for item in parsed if isinstance(item, Statement)]
    bad = [item for item in parsed if isinstance(item, ParseError)]
    assert [s.labels for s in ok] == [("A",), ("B",), ("c",), ()]
    no_comments = "Invalid input: GeoGebra has no comments ('#', '//')"
    assert [(e.line, e.col, e.message) for e in bad] == [
        (1, 1, no_comments),
        (5, 4, no_comments),
        (6, 21, "missing ')' to close '(' opened at column 11"),
        (7, 27, no_comments),
    ]
    assert str(bad[2]) == "line 6, column 21: missing ')' to close '(' opened at column 11"
    assert bad[2].source == "C = Rotate(B, 60°, A"
    assert parse_script("") == [] and parse_script("\n\n  \n") == []


def test_parse_error_survives_pickling() -> None:
    err = pickle.loads(pickle.dumps(error("A = (1, 2")))
    assert (type(err), err.line, err.col, str(err)) == (
        ParseError,
        1,
        10,
        "line 1, column 10: missing ')' to close '(' opened at column 5",
    )
    big = pickle.loads(pickle.dumps(ScriptTooLarge(0, 0, "too big")))
    assert isinstance(big, ScriptTooLarge) and big.message == "too big"


@pytest.mark.parametrize(
    ("text", "col", "message"),
    [
        ("A = (1, 2))", 11, "unexpected ')'"),
        (")", 1, "unexpected ')'"),
        ("Circle(A, 2", 12, "missing ')' to close '(' opened at column 7"),
        ("c = Circle(A, Segment(B, C)", 28, "missing ')' to close '(' opened at column 11"),
        ("Circle(A, 2]", 12, "missing ')' to close '(' opened at column 7"),
        ("Circle[A, 2)", 12, "missing ']' to close '[' opened at column 7"),
        ("L = {1, 2", 10, "missing '}' to close '{' opened at column 5"),
        ("Circle(A, , 2)", 11, "empty argument"),
        ("Circle(A, 2, )", 14, "empty argument"),
        ("Circle(, 2)", 8, "empty argument"),
        ("L = {1, 2, }", 12, "empty list item"),
        ("a = 2 +", 8, "expected an expression after '+'"),
        ("a = * 2", 5, "unexpected '*'"),
        ("a = 2 */ 3", 8, "unexpected '/'"),
        ("L = [1, 2]", 5, "unexpected '['; lists are written with braces, e.g. {1, 2}"),
        ("Text('abc')", 6, 'unexpected character "\'"; strings use double quotes'),
        ("a = b < c < d", 11, "chained comparison: put '< …' in parentheses"),
        ("a = b & c", 7, "unexpected character '&' (write &&)"),
        ("a = b . c", 7, "unexpected character '.'"),
        ('A = "x" "y"', 9, "unexpected string"),
        ("A, B", 2, "unexpected ','"),
        ("```geogebra", 1, "unexpected character '`'"),
    ],
)
def test_error_messages_name_the_column(text: str, col: int, message: str) -> None:
    err = error(text)
    assert (err.line, err.col, err.message) == (1, col, message)


def test_parse_line_refuses_blank_and_multiline_input() -> None:
    assert "nothing to parse" in error("   ").message
    assert "one line" in error("A = 1\nB = 2").message


# --- limits ----------------------------------------------------------------------------------


def test_limit_on_script_characters() -> None:
    with pytest.raises(ScriptTooLarge) as info:
        parse_script("A = (1, 2)\n" * 20, limits=ScriptLimits(max_chars=100))
    assert (info.value.line, info.value.col) == (0, 0)
    assert "100 characters" in info.value.message
    assert len(parse_script("A = (1, 2)\n" * 9, limits=ScriptLimits(max_chars=100))) == 9


def test_limit_on_line_count() -> None:
    with pytest.raises(ScriptTooLarge) as info:
        parse_script("a = 1\n" * 11, limits=ScriptLimits(max_lines=10))
    assert info.value.line == 0 and "10 lines" in info.value.message
    assert len(parse_script("a = 1\n" * 10, limits=ScriptLimits(max_lines=10))) == 10


def test_limit_on_line_length() -> None:
    script = "a = 1\nb = " + "1 + " * 30 + "1\n"
    with pytest.raises(ScriptTooLarge) as info:
        parse_script(script, limits=ScriptLimits(max_line_length=100))
    assert (info.value.line, info.value.col) == (2, 101)
    with pytest.raises(ScriptTooLarge):
        parse_line("b = " + "1 + " * 600 + "1")  # default: 2000 characters


def test_limit_on_tokens_per_line() -> None:
    with pytest.raises(ScriptTooLarge) as info:
        parse_script(
            "a = 1\nL = {" + "1," * 60 + "1}", limits=ScriptLimits(max_tokens_per_line=100)
        )
    assert info.value.line == 2 and "100 tokens" in info.value.message
    parse_line("L = {" + "1," * 40 + "1}", limits=ScriptLimits(max_tokens_per_line=100))


@pytest.mark.parametrize(
    "build",
    [
        lambda k: "a = " + "(" * k + "1" + ")" * k,
        lambda k: "a = " + "{" * k + "1" + "}" * k,
        lambda k: "a = " + "f(" * k + "1" + ")" * k,
        lambda k: "a = " + "Segment[" * k + "A" + "]" * k,
        lambda k: "a = " + "-" * k + "1",
        lambda k: "a = " + "2^" * k + "2",
        lambda k: "a = " + "-(" * k + "1" + ")" * k,
    ],
)
def test_nesting_depth_is_a_clean_error_even_ten_thousand_deep(build) -> None:
    big = ScriptLimits(max_line_length=100_000, max_tokens_per_line=100_000, max_chars=200_000)
    with pytest.raises(ScriptTooLarge) as info:
        parse_line(build(10_000), limits=big)
    assert "nested more than 64 levels" in info.value.message
    assert info.value.line == 1
    with pytest.raises(ScriptTooLarge):
        parse_script("A = (1, 2)\n" + build(10_000), limits=big)
    parse_line(build(30), limits=big)  # legitimate depth still parses
    with pytest.raises(ScriptTooLarge):
        parse_line(build(70), limits=big)


def test_depth_error_column_points_at_the_level_too_deep() -> None:
    with pytest.raises(ScriptTooLarge) as info:
        parse_line("a = " + "(" * 10 + "1" + ")" * 10, limits=ScriptLimits(max_depth=3))
    assert info.value.col == 8  # the fourth '('


def test_recursion_limit_is_converted_when_max_depth_is_set_too_high() -> None:
    big = ScriptLimits(
        max_line_length=100_000, max_tokens_per_line=100_000, max_depth=10**6, max_chars=10**6
    )
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    try:
        with pytest.raises(ScriptTooLarge) as info:
            parse_line("a = " + "(" * 5_000 + "1" + ")" * 5_000, limits=big)
    finally:
        sys.setrecursionlimit(old)
    assert info.value.message == "expression nested too deeply"


def test_a_full_size_script_parses() -> None:
    script = "\n".join(f"P_{{{i}}} = Rotate(A, {i}°, (0, 0));" for i in range(2_000))
    parsed = parse_script(script)
    assert len(parsed) == 2_000 and all(isinstance(p, Statement) for p in parsed)
    assert parsed[-1].labels == ("P_{1999}",)


# --- serialisation ---------------------------------------------------------------------------

GGBENCH_LINES = [
    "A = (0, 0)",
    "B = (4, 0)",
    "C = Rotate(B, 60°, A)",
    "poly1 = Polygon(A, B, C)",
    'SetColor(poly1, "#FF8800")',
    "l_1 = PerpendicularLine(A, Line(B, C))",
    "P_{AB} = Midpoint(A, B)",
    "A' = Reflect(A, l)",
    "α = Angle(B, A, C)",
    "Sequence((k, 0), k, 1, 5)",
    'Text("r = " + r, (1, 2))',
    "ZoomIn(-1, -1, 10, 8)",
    "ShowAxes(false)",
    "ShowGrid(FALSE)",
    "c = Circle(A, 3)",
    "c_2 = Circle(O, B)",
    "d = Circle(B, Distance(A, B))",
    "D, E = Intersect(c, d)",
    "{F, G} = Intersect[c, Line(A, B)]",
    "M = Midpoint(Segment(A, B))",
    "s = Segment(A, B)",
    "t = Tangent(P, c)",
    "b = AngleBisector(B, A, C)",
    "h = PerpendicularBisector(A, B)",
    "P = Point({1, 2})",
    "Q = (2 + sqrt(3), -1/2)",
    "R = (3cos(30°), 3sin(30°))",
    "r = Radius(c)",
    "area = Area(poly1)",
    "k = 2pi * r",
    "T = Translate(A, Vector((1, 2)))",
    "E' = Dilate(E, 1/2, O)",
    "β = Angle(A, B, C, true)",
    "SetLineThickness(s, 5)",
    "SetLineStyle(h, 2)",
    'SetCaption(A, "Point \\"A\\"")',
    "ShowLabel(c, false)",
    'text1 = Text("\\frac{a}{b}", A + (0.2, 0.3), true, true)',
    "L = {A, B, C, {1, 2.5, 1e-3}}",
    "n = Length(L)",
    "x_1 = x(A) - x(B)",
    "y_1 = (y(A) + y(B)) / 2",
    "v = -(x_1 - 2)^2 + -2^2",
    "w = (-2)^2 - (a - b) - c",
    "p2 = a^b^c + (a^b)^c",
    "u = (30 + 15)° / 2",
    "Polygon(A, B, 4)",
    "RegularPolygon[A, B, 6]",
    "P_1 = Point(c)",
    "g = Line(A, Rotate(B, -45°, A))",
    "q = 1/2pi - r²",
    'Execute({"A=(1,2)", "B=(3,4)"})',
    "ratio = Distance(A, B) / Distance(B, C) * 100",
    "A_{12}' = Reflect(A_12, s_{1})",
    "e = Ellipse(F, G, 5)",
    "Rotate(poly1, 90°, (0, 0))",
]


@pytest.mark.parametrize("line", GGBENCH_LINES)
@pytest.mark.parametrize("legacy", [False, True])
def test_round_trip(line: str, legacy: bool) -> None:
    parsed = parse_line(line)
    written = to_source(parsed, legacy=legacy)
    again = parse_line(written)
    assert again == parsed
    assert to_source(again, legacy=legacy) == written  # serialisation is a fixed point


def test_round_trip_corpus_is_large_enough() -> None:
    assert len(GGBENCH_LINES) >= 40


@pytest.mark.parametrize(
    ("text", "modern", "legacy"),
    [
        ("C = Rotate(B, 60°, A)", "C = Rotate(B, 60°, A)", "C = Rotate[B, 60°, A]"),
        ("Circle[A, 2]", "Circle(A, 2)", "Circle[A, 2]"),
        ("a = sqrt(2) + abs(x(A))", "a = sqrt(2) + abs(x(A))", "a = sqrt(2) + abs(x(A))"),
        ("a = Distance(A, B) * cos(30°)", "a = Distance(A, B) * cos(30°)",
         "a = Distance[A, B] * cos(30°)"),
        ("{A, B} = Intersect(c, d)", "A, B = Intersect(c, d)", "A, B = Intersect[c, d]"),
        ("s_{1} = Segment(A_12, π)", "s_1 = Segment(A_{12}, pi)", "s_1 = Segment[A_{12}, pi]"),
        ("a=1.50+.5", "a = 1.50 + .5", "a = 1.50 + .5"),
        ("a = 2pi", "a = 2 * pi", "a = 2 * pi"),
        ("a = -2^2", "a = -2^2", "a = -2^2"),
        ("a = (-2)^2", "a = (-2)^2", "a = (-2)^2"),
        ("a = 2^-1", "a = 2^(-1)", "a = 2^(-1)"),
        ("a = (a^b)^c", "a = (a^b)^c", "a = (a^b)^c"),
        ("a = a^(b^c)", "a = a^b^c", "a = a^b^c"),
        ("a = a - (b - c)", "a = a - (b - c)", "a = a - (b - c)"),
        ("a = (a - b) - c", "a = a - b - c", "a = a - b - c"),
        ("a = a / (b * c)", "a = a / (b * c)", "a = a / (b * c)"),
        ("a = -(a + b)", "a = -(a + b)", "a = -(a + b)"),
        ("a = (30 + 15)°", "a = (30 + 15)°", "a = (30 + 15)°"),
        ("a = (-30)°", "a = (-30)°", "a = (-30)°"),
        ("a = 45º", "a = 45°", "a = 45°"),
        ("a = b − c × d ÷ e", "a = b - c * d / e", "a = b - c * d / e"),
        ("a = r²", "a = r^2", "a = r^2"),
        ("ShowAxes(TRUE)", "ShowAxes(true)", "ShowAxes[true]"),
        ("f(2)", "f(2)", "f(2)"),
    ],
)  # fmt: skip
def test_to_source(text: str, modern: str, legacy: str) -> None:
    statement = parse_line(text)
    assert to_source(statement) == modern
    assert to_source(statement, legacy=True) == legacy


def test_to_source_of_built_trees() -> None:
    assert to_source(BinOp("*", Num(2.0), Name("A_12"))) == "2 * A_{12}"
    assert to_source(BinOp("^", Num(-2.0), Num(0.5))) == "(-2)^0.5"
    assert to_source(BinOp("+", Name("a"), Num(-1.0))) == "a + (-1)"
    assert to_source(Neg(Neg(Name("a")))) == "-(-a)"
    assert to_source(Degrees(BinOp("^", Name("a"), Num(2.0)))) == "(a^2)°"
    assert to_source(Statement(1, 1, ("c",), Call("Circle", (A, Num(2.0))))) == "c = Circle(A, 2)"
    with pytest.raises(ValueError):
        to_source(Num(float("inf")))


@pytest.mark.parametrize(
    "value",
    ["", "plain", 'say "hi"', "\\", "a\\", '\\"', "\\\\", "\\\\\\", "\\alpha", "\\frac{1}{2}",
     'x\\"y', "# not a comment // either", "α ≥ 60°"],
)  # fmt: skip
def test_strings_round_trip(value: str) -> None:
    written = to_source(Str(value))
    assert expr(f"t = {written}") == Str(value)


def test_latex_strings_are_written_as_models_write_them() -> None:
    assert to_source(Str("\\frac{a}{b}")) == '"\\frac{a}{b}"'
    assert to_source(Str('a"b')) == '"a\\"b"'


def test_math_functions() -> None:
    assert {"sqrt", "sin", "cos", "tan", "abs", "x", "y", "exp", "ln", "log"} <= MATH_FUNCTIONS
    assert {"floor", "ceil", "round", "arcsin", "arccos", "arctan"} <= MATH_FUNCTIONS
    assert all(name.islower() for name in MATH_FUNCTIONS)
    assert "Circle" not in MATH_FUNCTIONS


# --- fenced blocks ---------------------------------------------------------------------------

ANSWER = """\
To construct the equilateral triangle we first place two points.

```geogebra
A = (0, 0)
B = (4, 0)
```

Then we rotate B by 60° about A, which gives the third vertex. For comparison, in Python:

```python
C = rotate(B, 60, A)
```

and the same step in GeoGebra, followed by the polygon:

```GeoGebra
C = Rotate(B, 60°, A)
poly1 = Polygon(A, B, C)
```

This completes the construction. The triangle ABC is equilateral because AB = AC and the
angle at A is 60°.
"""


def test_extract_tagged_blocks_from_a_long_answer() -> None:
    code = extract_code(ANSWER)
    assert code == "A = (0, 0)\nB = (4, 0)\nC = Rotate(B, 60°, A)\npoly1 = Polygon(A, B, C)"
    parsed = parse_script(code)
    assert [p.labels for p in parsed if isinstance(p, Statement)] == [
        ("A",),
        ("B",),
        ("C",),
        ("poly1",),
    ]


def test_extract_with_offsets_maps_back_to_the_answer() -> None:
    code, lines = extract_code_with_offsets(ANSWER)
    answer_lines = ANSWER.split("\n")
    assert lines == [4, 5, 17, 18]
    assert [answer_lines[i - 1] for i in lines] == code.split("\n")


def test_extract_prefers_tagged_then_untagged_then_text() -> None:
    untagged = "Steps:\n```\nA = (1, 2)\n```\nand\n```ggb\nB = (3, 4)\n```\n"
    assert extract_code(untagged) == "B = (3, 4)"
    only_untagged = "Steps:\n```\nA = (1, 2)\n```\nthen\n```\nB = (3, 4)\n```\n"
    assert extract_code(only_untagged) == "A = (1, 2)\nB = (3, 4)"
    bare = "A = (1, 2)\nB = (3, 4)"
    assert extract_code(bare) == bare
    assert extract_code("```python\nx = 1\n```") == "```python\nx = 1\n```"
    assert extract_code("```geogebra\n```\n```\nA = (1, 2)\n```") == ""


def test_extract_handles_unclosed_tilde_indented_and_long_fences() -> None:
    assert extract_code("Here:\n```geogebra\nA = (1, 2)\nB = (3, 4)") == "A = (1, 2)\nB = (3, 4)"
    assert extract_code("~~~ GGB\nA = (1, 2)\n~~~\n") == "A = (1, 2)"
    assert extract_code("1. Build:\n   ```geogebra\n   A = (1, 2)\n   ```\n") == "   A = (1, 2)"
    nested = "````geogebra\nA = (1, 2)\n```\nB = (3, 4)\n````\n"
    assert extract_code(nested) == "A = (1, 2)\n```\nB = (3, 4)"
    assert extract_code("```geogebra\r\nA = (1, 2)\r\n```\r\n") == "A = (1, 2)"
    assert extract_code("Inline ```A = 1``` only") == "Inline ```A = 1``` only"


# --- robustness ------------------------------------------------------------------------------

FUZZ_PIECES = [
    *"AB c12.5e_{}'()[],=:+-*/^°\"\\ #;πxy",
    *("Circle", "sqrt", "pi", "true", "−", "²", "⁻", "//", "  ", "P_{AB}", "1e-3", "A_12", "==", "<", ">=", "!", "&&", "||", "≠"),
]


def test_random_lines_either_parse_and_round_trip_or_fail_cleanly() -> None:
    import random

    rng = random.Random(20240601)
    parsed = 0
    for _ in range(5_000):
        text = "".join(rng.choice(FUZZ_PIECES) for _ in range(rng.randint(1, 25)))
        try:
            statement = parse_line(text)
        except ParseError as err:
            assert 1 <= err.col <= len(text) + 1, (text, str(err))
            continue
        parsed += 1
        for legacy in (False, True):
            assert parse_line(to_source(statement, legacy=legacy)) == statement, text
    assert parsed > 100


def test_polar_points_parse_and_round_trip() -> None:
    statement = parse_line("A = (3; 90°)")
    assert statement.expr == PointLit(n(3), Degrees(n(90)), polar=True)
    assert statement.expr != PointLit(n(3), Degrees(n(90)))  # (3, 90°) is another point
    assert to_source(statement, legacy=True) == "A = (3; 90°)"
    assert parse_line(to_source(statement)) == statement


@pytest.mark.parametrize(
    ("text", "source"),
    [
        ("ok = d_1 == d_2", "ok = d_1 == d_2"),
        ("ok = a ≟ b", "ok = a == b"),
        ("ok = a ≠ b", "ok = a != b"),
        ("ok = a ≤ b", "ok = a <= b"),
        ("ok = a ≥ b + 1", "ok = a >= b + 1"),
        ("ok = a < b && c > d || e", "ok = a < b && c > d || e"),
        ("ok = (a || b) && c", "ok = (a || b) && c"),
        ("ok = (a < b) == (c < d)", "ok = (a < b) == (c < d)"),
        ("ok = a ∧ b ∨ c", "ok = a && b || c"),
        ("ok = ¬(a < b) && !c", "ok = !(a < b) && !c"),
    ],
)
def test_comparisons_and_logic_parse_with_precedence(text: str, source: str) -> None:
    statement = parse_line(text)
    assert to_source(statement) == source
    assert parse_line(source) == statement


def test_comparison_binds_looser_than_arithmetic() -> None:
    expr = parse_line("ok = a + 1 > 2 * b").expr
    assert expr == BinOp(">", BinOp("+", Name("a"), n(1)), BinOp("*", n(2), Name("b")))
    both = parse_line("ok = a > 1 && b").expr
    assert isinstance(both, BinOp) and both.op == "&&"


def _general_parse(code: str) -> Statement:
    from geomeval.geogebra import syntax as sx

    limits = sx.ScriptLimits()
    toks = sx._tokenize(code, 1, limits.max_tokens_per_line, code.strip())
    return sx._Parser(toks, 1, limits.max_depth, code.strip()).statement()


def test_fast_path_for_simple_lines_builds_the_general_parsers_tree() -> None:
    """`label = Command(a, 2, "s")` lines skip the tokenizer; the tree (positions included)
    must be exactly what the general parser builds, and anything unusual must fall back."""
    import random

    from geomeval.geogebra import syntax as sx

    limits = sx.ScriptLimits()
    names = ["A", "b", "c_1", "A'", "B''", "x", "X", "pi", "Pi", "True", "Circle", "s_{1}"]
    names += ["A_12", "α", "αβ", "απ", "Γ_1", "ϕ", "a1", "_a", "A__1", "A_1'"]
    args = [*names, "2", "-3", "0.5", "60°", "-45°", "2°°", "1.", ".5", "-", '"red"', '"a,b"']
    args += ['"a)b"', '""', '"', "(1, 2)", "2pi", "1e5", "-A", "- 2", "007", "1" * 400]
    rng = random.Random(7)
    fast = 0
    for _ in range(20_000):
        code = rng.choice(["", " ", "  "])
        if rng.random() < 0.8:
            code += rng.choice(names) + rng.choice(["=", " = ", "= ", "  =  "])
        if rng.random() < 0.85:
            code += rng.choice(names)
        count = rng.randint(0, 4)
        pieces = [rng.choice(args) for _ in range(count)]
        code += "(" + rng.choice([",", ", ", " , ", ",,", " "]).join(pieces) + ")"
        code += rng.choice(["", "", ")"])
        simple = sx._parse_simple(code, 1, limits)
        if simple is None:
            continue
        fast += 1
        assert repr(simple) == repr(_general_parse(code)), code
    assert fast > 500  # the fast path is really exercised
    for path in sorted((Path(__file__).parents[1] / "data" / "ggb_corpus").glob("*.ggb")):
        for raw in path.read_text(encoding="utf-8").split("\n"):
            code = sx._code_part(raw)
            simple = sx._parse_simple(code, 1, limits) if code.strip() else None
            if simple is not None:
                assert repr(simple) == repr(_general_parse(code)), (path.name, code)

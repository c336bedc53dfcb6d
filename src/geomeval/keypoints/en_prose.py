"""Prose wordings of English captions rewritten into the forms the rules read (issue #41, round 4).

Each substitution covers a class of wordings a writer uses for one fact, not one caption's words:

- values given to two named segments together: `AB and AC measure 6 and 8`, `AD and BC, of lengths
  2 and 6`, `AB and AC each being 6 long` (each member gets its value);
- joins in the passive or as a noun phrase: `B and M are joined`, `the segment joining A to D`;
- absolute and inverted role clauses: `with BC a diameter of it`, `the diameter of ⊙O is the side BC`;
- placement verbs and adverbs that stand between a subject and its relation: `D and E are taken on
  AB and AC`, `triangles ADE and ABC are then similar`;
- a line through a named midpoint: `l passes through the midpoint M of AB` (M lies on l);
- a tangent drawn from a point: `from P a tangent is drawn to ⊙O, touching it at A` (PA is tangent).

They run first, on the text `lower_words` and the pronoun resolution have produced; every pattern
is bounded (short names, capped gaps), so a caption's cost stays linear.
"""

from __future__ import annotations

import re

from ._engine import NUMC, NUMSTART, POLY, PT, RB, SEG, Sub
from ._engine import sub as _sub

_NUM = f"({NUMSTART}{NUMC}(?<![.]))(?![0-9A-Za-z°(])"
_LONG = r"(?: (?:units? |cm )?(?:long|in length))?"
_CIRCLE = rf"(?:⊙ ?|circle ){PT}{RB}"



_DENIED = re.compile(r"\b(?:not|never|no)\b|n't")


def _length_of_last(m: re.Match[str]) -> str:
    """`AB is a chord of ⊙O of length 8`, `PA is ⊥ plane ABCD and has length 3`: the length of the
    last segment named before it in the clause (unchanged when none is, or when the clause denies)."""
    clause = re.split(r"[.;]", m.string[max(0, m.start() - 60) : m.start()])[-1]
    if _DENIED.search(clause):
        return m.group(0)
    found = _SEG_ONLY.findall(clause)
    if found and clause.endswith(f"{found[-1]} "):  # `AC of length 6 and BD of length 8`: AC = 6 and BD = 8
        return f"= {m.group(1)}"
    return f"{m.group(0)}, {found[-1]} = {m.group(1)}" if found else m.group(0)


def _length_of_subject(m: re.Match[str]) -> str:
    """`PQ is perpendicular to it and 6 units long`: the first segment of the clause is 6 long."""
    clause = re.split(r"[.;,]", m.string[max(0, m.start() - 80) : m.start()])[-1]
    if re.search(r"\d ?$", clause) or _DENIED.search(clause):  # `KL and KM are 5 and 12 units long`: values together
        return m.group(0)
    found = _SEG_ONLY.findall(clause)
    return f"and {found[0]} = {m.group(1)}" if found else m.group(0)


def _angle_between(m: re.Match[str]) -> str:
    """`the angle between KL and KM`: ∠LKM, at the point the two segments share (unchanged when none)."""
    a, b = re.findall(rf"{PT}", m.group(1)), re.findall(rf"{PT}", m.group(2))
    shared = [p for p in a if p in b]
    if len(shared) != 1:
        return m.group(0)
    v = shared[0]
    return f"∠{next(p for p in a if p != v)}{v}{next(p for p in b if p != v)}"


_SEG_ONLY = re.compile(rf"(?<![A-Za-z0-9'∠⊙△-]){SEG}(?![A-Za-z0-9'(-])")

PROSE_SUBS: list[Sub] = [
    # `M and N cut the sides AB and AC in half respectively`, `D divides BC into two equal parts`: midpoints
    _sub(("in half", "equal parts"), rf"\b({PT}){RB} and ({PT}){RB} (?:cut|divide|split) (?:the )?(?:sides |segments |edges )?({SEG}){RB} and ({SEG}){RB}"
         r" (?:in half|into two equal parts)(?:,? respectively)?", r"\1 and \2 are the midpoints of \3 and \4 respectively"),
    _sub(("in half",), rf"\b({PT}){RB} (?:cuts|divides|splits) (?:the )?(?:side |segment |edge )?({SEG}){RB} in half", r"\1 is the midpoint of \2"),
    # `the segment MN joining them is 4 long`, `AD (which is 9 long)`: the segment's length
    _sub((" long",), rf"\b({SEG}){RB}(?: [a-z]{{1,12}}){{0,3}},? (?:\((?:which |that )?)?is {_NUM} (?:units? |cm )?long\)?", r"\1 = \2"),
    # `two of its medians drawn, AD and BE`, `two chords, AB and CD, cross`: the role of each listed segment
    _sub(("medians", "altitudes", "diagonals", "chords"), rf"\b(?:two |three )?(?:of )?(?:its |the )?(medians|altitudes|diagonals|chords)(?: drawn| are drawn)?,"
         rf" ({SEG}){RB}((?: = {NUMC})?) and ({SEG}){RB},?", r"\1 \2\3 and \4"),
    # `m goes through A and makes a right angle with l`: m ⊥ l
    _sub(("right angle with", "right angles with"), rf"\b((?:line ℓ?|ℓ)[a-z]\d{{0,2}}|{SEG}){RB}([^.;]{{0,60}}?),? and (?:makes|forms) (?:a )?right angles? with\b",
         r"\1\2, and \1 is perpendicular to"),
    _sub(("right angle with", "right angles with"), r"\b(?:makes|forms|making|forming) (?:a )?right angles? with\b", "is perpendicular to"),
    # `line m also goes through A`: the adverb between a subject and its verb
    _sub(("also ", "then ", "again "), r"\b(?:also|then|again) (passes|goes|runs|lies|meets|crosses|cuts|intersects|touches)\b", r"\1"),
    # `the median from A, namely AD, has length 9`: AD is a median
    _sub(("namely", "that is", "i.e."), rf"\b[Tt]he (median|altitude|height|angle bisector|bisector) (?:from|through|at) (?:the )?(?:vertex |point )?({PT}){RB},?"
         rf" (?:namely|that is|i\.e\.,?|which is) (?:segment )?({SEG}){RB}", r"\3 is the \1, and \3"),
    # `KL is a common tangent of circles W and V`: tangent to each
    _sub(("common tangent",), rf"\b({SEG}|(?:line )?ℓ?[a-z]\d{{0,2}}){RB} is (?:a|the) common tangent(?: line)? (?:of|to) (?:the )?(?:two )?(?:circles )?"
         rf"({_CIRCLE}|{PT}{RB}) and ({_CIRCLE}|{PT}{RB})",
         lambda m: " and ".join(f"{m.group(1)} is tangent to {c if c[0] in '⊙c' else 'circle ' + c}" for c in (m.group(2), m.group(3)))),
    # `KH is perpendicular on LM`, `S lies halfway along KL`, `T is where KM and LN meet`
    _sub(("perpendicular on",), r"\bperpendicular (?:on|onto)\b", "perpendicular to"),
    _sub(("halfway along",), rf"\b({PT}){RB} (?:lies|is) halfway along (?:the )?(?:segment |side )?({SEG}){RB}", r"\1 is the midpoint of \2"),
    _sub(("is where",), rf"\b({PT}){RB} is where ", r"\1 is the point where "),
    # `QT, a tangent to circle W, touches it at T`: the appositive is a statement, the verb is QT's
    _sub((", a ", ", an ", ", the "), rf"(?<![A-Za-z0-9'])({SEG}|ℓ[a-z]\d{{0,2}}){RB}, ((?:a|an|the) [a-z][^,;.]{{1,36}}), (touches|meets|cuts|crosses|intersects"
         r"|passes through|bisects|is tangent to|is perpendicular to|is parallel to)\b", r"\1 is \2, and \1 \3"),
    # `a circle of radius 3 centred at W`: circle W of radius 3
    _sub(("centred", "centered", "center", "centre"), rf"\b(?:a |the )?circle (?:of|with) radius {_NUM},? (?:centred|centered|with centre|with center|whose centre is|whose center is) (?:at )?(?:point )?({PT}){RB}",
         r"circle \2 of radius \1"),
    # `lines g1 and g2 are perpendicular and meet at Q`, `g1 ⊥ g2 and they meet at Q`: the same pair meets there
    _sub((" and meet at", " and intersect at", " and cross at", " and they meet", " and they intersect", " and they cross"),
         rf"\b((?:lines? )?ℓ?[a-z]\d{{0,2}}|{SEG}){RB}( and | ?[⊥∥] ?)((?:line )?ℓ?[a-z]\d{{0,2}}|{SEG}){RB}((?: are (?:mutually )?(?:perpendicular|parallel)"
         r"(?: to each other)?)?),? and (?:they )?(meet|intersect|cross) at\b",
         lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}{m.group(4)}, and {m.group(1).removeprefix('lines ')} and {m.group(3)} {m.group(5)} at"),
    # `the line y = 2x + 1 intersects the parabola y = x^2 at K and L`: the points lie on the curve
    _sub(("parabola", "ellipse", "hyperbola"), rf"\b(meets|intersects|cuts|crosses) the (parabola|ellipse|hyperbola)((?: [^,.;]{{1,30}}?)?) at (?:the )?(?:points? )?"
         rf"({PT}{RB}(?:(?:,? and |, ){PT}{RB}){{0,3}})", r"\1 the \2\3 at \4, and \4 lie on the \2"),
    # `a cube whose edges are all 2 long`: its edge length; `the cone is 4 tall`: its height
    _sub(("whose edges", "whose sides"), rf"\bwhose (edge|side)s (?:are |all )?(?:all |each )?(?:of length )?{_NUM}{_LONG}", r"with \1 length \2"),
    _sub((" tall",), rf"\b(?:the |this )(cone|cylinder|pyramid|prism|frustum|solid) is {_NUM} (?:units? |cm )?tall", r"the height of the \1 is \2"),
    # `the angle ABC at the base is a right angle`: ∠ABC = 90°
    _sub(("right angle",), r"((?:∠ ?|\bangle )[A-Z]\d?[A-Z]\d?[A-Z]\d?)(?: (?:at|in|of) (?:the )?[a-z]{1,10})? is a right angle", r"\1 = 90°"),
    # `PQ is perpendicular to it and 6 units long`: the length of the clause's subject
    _sub((" long",), rf"\band {_NUM} (?:units? |cm )?long\b", _length_of_subject),
    # `the point D halfway between B and C is joined to A`: D is joined to A
    _sub(("joined to", "connected to"), rf"\b(?:the )?point ({PT}){RB}( [^,.;]{{1,40}}?) is (joined|connected) to", r"point \1\2, and \1 is \3 to"),
    # `KL is touched by circle W at T`: the passive of `touches`
    _sub(("touched by",), rf"\b({SEG}|(?:line )?ℓ?[a-z]\d{{0,2}}|{_CIRCLE}) is touched by ({_CIRCLE}|{SEG}|(?:line )?ℓ?[a-z]\d{{0,2}}) at\b", r"\2 touches \1 at"),
    # `a line perpendicular to KL is drawn through M, meeting KL at H`: MH ⊥ KL at H
    _sub(("drawn through",), rf"\b(?:[Aa]|[Tt]he) line (perpendicular|parallel) to ({SEG}){RB} is drawn through (?:point )?({PT}){RB},? (?:meeting|and meets|which meets|cutting|intersecting)"
         rf" (?:it |\2 |(?:segment |side |line )?({SEG}) )?at (?:point )?({PT}){RB}",
         lambda m: (f"{m.group(3)}{m.group(5)} ⊥ {m.group(2)} at {m.group(5)}" if m.group(1) == "perpendicular" and not m.group(4)
                    else f"{m.group(3)}{m.group(5)} {'⊥' if m.group(1) == 'perpendicular' else '∥'} {m.group(2)}, and {m.group(5)} lies on {m.group(4) or m.group(2)}")),
    # `KLMN is a rhombus whose diagonals cross at T`: the diagonals of KLMN
    _sub(("whose diagonals",), rf"\b({POLY}) is an? ([a-z]{{3,14}}) whose diagonals(?= (?:meet|cross|intersect|are|bisect))", r"\1 is a \2; the diagonals of \1"),
    # `let W be the circumcircle of triangle KLM`: W names a circle
    _sub(("circumcircle of", "incircle of", "circumscribed circle of", "inscribed circle of"),
         rf"(?<![A-Za-z0-9'⊙])(?:[Ll]et )?({PT}){RB} (?:is|be) (?:the )?(circumcircle|incircle|circumscribed circle|inscribed circle) of", r"⊙\1 is the \2 of"),
    # `the sphere passes through all eight vertices of the cube`: the cube is inscribed in the sphere
    _sub(("vertices of the",), r"\b(?:the |a )?sphere(?: [A-Z]\d{0,2})? (?:passes through|goes through|contains) (?:all )?(?:the )?(?:eight |8 |four |4 |six |6 )?vertices of the"
         r" (cube|cuboid|box|rectangular box|prism|tetrahedron|pyramid)\b",
         lambda m: f"the {'cuboid' if 'box' in m.group(1) else m.group(1)} is inscribed in the sphere"),
    # `a rhombus named ABCD`, `a circle called O`: the name follows its type word
    _sub(("named ", "called ", "labelled ", "labeled ", "denoted "), r"\b(?:named|called|labell?ed|denoted(?: by)?) (?=[A-Z⊙△])", ""),
    # `the line g, drawn through K parallel to LM, meets KN at T`: g passes through K, g ∥ LM, and g meets KN
    _sub(("drawn through",), rf"\b((?:line )?ℓ?[a-z]\d{{0,2}}), drawn through (?:point )?({PT}){RB},? (parallel|perpendicular) to ((?:segment |side |line )?{SEG}){RB},",
         r"\1 passes through \2, \1 is \3 to \4, and \1"),
    # `line g that goes through K and L also meets …`: the relative clause states, the verb is g's
    _sub((" that ", " which "), rf"\b(line ℓ?[a-z]\d{{0,2}}|ℓ[a-z]\d{{0,2}}|{SEG}) (?:that|which) (passes|goes|runs) through ([^,;.]{{1,30}}?) (?:also )?"
         r"(meets|crosses|cuts|intersects|touches|is)\b", r"\1 \2 through \3, and \1 \4"),
    # `KL, drawn from K to the side MN, is perpendicular to MN`: a subject behind a participle or relative clause
    _sub((", ",), rf"(?<![A-Za-z0-9',] )(?<![A-Za-z0-9'])({SEG}|(?:line |circle )?ℓ?[a-z]\d{{0,2}}(?= )|⊙{PT}{RB}|circle {PT}{RB})"
         r"(, (?:drawn|which|that|whose|where|with|lying|being|having|of)\b[^,;.]{1,40},) (is|are|meets|crosses|cuts|intersects|touches|passes|bisects|has)\b",
         r"\1\2 and \1 \3"),
    # `⊙W is tangent to both KL and KM`: to each
    _sub(("tangent to both",), rf"\b({SEG}|(?:line )?ℓ?[a-z]\d{{0,2}}|{_CIRCLE}) is tangent to both ((?:line |segment |side )?(?:{SEG}|ℓ?[a-z]\d{{0,2}}|{_CIRCLE})) and ",
         r"\1 is tangent to \2, and \1 is tangent to "),
    # `lines g, h and k are parallel`, `KL, MN and ST are all parallel`: a chain, each pair parallel
    _sub(("parallel",), rf"\b(?:(lines) )?((?:ℓ?[a-z]\d{{0,2}}|{SEG}){RB}(?:, (?:ℓ?[a-z]\d{{0,2}}|{SEG}){RB}){{1,3}}),? and ((?:ℓ?[a-z]\d{{0,2}}|{SEG}){RB})"
         r" are (?:all |mutually )?parallel(?: to (?:each other|one another))?",
         lambda m: " ∥ ".join(("line " + x if m.group(1) or x[0].islower() else x) for x in [*m.group(2).split(", "), m.group(3)])),
    # `the angle between KL and KM is 60°`: the angle at their common point; `∠KLM is a 40° angle`
    _sub(("angle between", "angle formed by"), rf"\b[Tt]he angle (?:between|formed by) (?:segments |lines |sides )?({SEG}){RB} and ({SEG}){RB}(?= (?:is|measures|equals|=) )",
         _angle_between),
    _sub((" angle",), r"(∠ ?[A-Z]\d?(?:[A-Z]\d?[A-Z]\d?)?) is an? (\d{1,3}(?:\.\d+)?) ?(?:°|degrees?) angle\b", r"\1 = \2°"),
    # `KL is twice as long as LM`: KL = 2LM
    _sub(("as long as",), rf"\b({SEG}){RB} is (twice|three times|four times|half) as long as ({SEG}){RB}",
         lambda m: f"{m.group(3)} = 2{m.group(1)}" if m.group(2) == "half"
         else f"{m.group(1)} = {({'twice': '2', 'three times': '3', 'four times': '4'})[m.group(2)]}{m.group(3)}"),
    # terse roles after a colon: `KS: median; KH: altitude`, `g: tangent to ⊙W at T`
    _sub((": ",), rf"(?<![A-Za-z0-9'])({SEG}|[a-z]\d{{0,2}}){RB}: (?=(?:an? |the )?(?:median|altitude|height|diameter|chord|radius|angle bisector|diagonal"
         r"|tangent|perpendicular|parallel)\b)", r"\1 is "),
    _sub((":=",), r" ?:= ?", " = "),  # `T := KM ∩ LN`
    # `the line through P and A`, `the line joining K and L`: line PA
    _sub(("line through", "line joining", "line connecting"), rf"\b(?:the |a )?line (?:through|joining|connecting) (?:the )?(?:points? )?({PT}){RB} and ({PT}){RB}",
         r"line \1\2"),
    # `line l has a point Q on it`: Q lies on l
    _sub(("point",), rf"\b((?:line )?ℓ?[a-z]\d{{0,2}}|{SEG}|{_CIRCLE}) has (?:a |the )?point ({PT}){RB} on (?:it|\1)\b", r"\2 lies on \1"),
    # `AB has both its ends on the outer circle`: AB is a chord of it
    _sub(("ends on", "endpoints on", "end points on"), rf"\b({SEG}){RB} has (?:both )?its (?:two )?(?:ends|endpoints|end points) on ",
         r"\1 is a chord of "),
    # `angle 1, at P, is 65°`: the angle's value
    _sub((", is ", ", measures ", ", equals "), r"((?:∠ ?|\bangle )[0-9A-Zα-ω]{1,3}'?), [^,.;]{1,24}, (?:is|measures|equals) ", r"\1 = "),
    # `the lateral edge AA1, of length 3, is ⊥ …`: AA1 = 3, and AA1 is ⊥ …
    _sub(("of length", "with length"), rf"\b({SEG}){RB}, (?:of|with) length {_NUM}{_LONG},", r"\1 = \2, and \1"),
    _sub(("of length", "has length", "with length", "having length", "has a length"),
         rf"(?<!side )(?<!edge )(?<!base )\b(?:of|with|has|having|has a) length(?: of)? {_NUM}{_LONG}", _length_of_last),
    # `the x-axis passes through A, and the y-axis through C`: the verb is shared
    _sub((" through ",), rf"\b(passes|goes|runs) through ([^.;]{{1,40}}?),? and ((?:the )?[xyz]-axis|(?:line )?ℓ?[a-z]\d{{0,2}}|{_CIRCLE}|{SEG}) through\b",
         r"\1 through \2, and \3 \1 through"),
    # `lines m and n run parallel to each other`, `AB and CD lie perpendicular`: the pair is parallel
    _sub(("parallel", "perpendicular"), r"\b(?:run|lie|stay|remain|are drawn) (parallel|perpendicular)(?: to each other| to one another)?(?=[,.;]|$| and )",
         r"are \1"),
    # `the perpendicular bisector l of AB crosses it at M`: l is the perpendicular bisector of AB and meets AB at M
    _sub(("perpendicular bisector",), rf"\b[Tt]he perpendicular bisector (?:line )?([a-z]\d{{0,2}}) of (?:the )?(?:segment )?({SEG}){RB}"
         rf"(?: (crosses|meets|cuts|intersects) (?:it|the segment|\2) at)?",
         lambda m: f"line {m.group(1)} is the perpendicular bisector of {m.group(2)}"
                   + (f", and line {m.group(1)} {m.group(3)} {m.group(2)} at" if m.group(3) else f", and line {m.group(1)}")),
    # `the line l given by y = x + 1`: the line with its equation
    _sub(("given by", "defined by", "with equation"), r"\b(line (?:ℓ)?[a-z]\d{0,2}),? (?:given by|defined by|with equation|with the equation) ", r"\1: "),
    # `AB and AC measure 6 and 8`, `AD and BC are parallel, of lengths 2 and 6`, `AB and AC are 6 and 8 long respectively`
    _sub((" and ",), rf"\b({SEG}){RB} and ({SEG}){RB}((?: (?:(?!not\b|never\b|no\b)[^.;=]){{1,30}}?)??),? (?:measure|measuring|are|have lengths?|of lengths?|with lengths?)"
         rf"(?: of)? {_NUM} and {_NUM}{_LONG}(?:,? respectively)?", r"\1 and \2\3, \1 = \4, \2 = \5"),
    # `AB and AC each being 6 long`, `AB and AC, each 6 units long`, `AB and AC are each 6`
    _sub(("each",), rf"\b({SEG}){RB} and ({SEG}){RB}((?: (?:(?!not\b|never\b|no\b)[^.;=]){{1,30}}?)??),? (?:are |both )?each (?:being |of length |measuring |with length )?{_NUM}{_LONG}",
         r"\1 and \2\3, \1 = \4, \2 = \4"),
    # `B and M are joined`, `A and D are connected by a segment`
    _sub(("joined", "connected"), rf"\b({PT}){RB} and ({PT}){RB} are (?:joined|connected)(?: by a (?:line )?segment)?", r"segment \1\2 is drawn"),
    _sub(("joining", "connecting", "joins", "connects"), rf"\b(?:the |a )?segment (?:joining|connecting|that joins|which joins|that connects|which connects) (?:point )?"
         rf"({PT}){RB} (?:to|and|with) (?:the )?(?:point )?({PT}){RB}(?= (?:is|meets|crosses|cuts|bisects|has|⊥|∥))", r"segment \1\2"),
    # `the segment joining A to the point D`, `a segment connecting A and D`, `the segment that joins K and M`
    _sub(("joining", "connecting", "joins", "connects"), rf"\b(?:the |a )?segment (?:joining|connecting|that joins|which joins|that connects|which connects) (?:point )?({PT}){RB} (?:to|and|with) (?:the )?(?:point )?({PT}){RB}",
         r"segment \1\2 from \1 to point \2"),
    # `let AB be one of its diameters`, `AC is one of the diagonals`: AB is a diameter
    _sub(("one of",), rf"\b({SEG}){RB} (is|be) one of (?:its |the )?(diameter|chord|median|altitude|diagonal)s\b", r"\1 is a \3"),
    # `with BC a diameter of it`: BC is a diameter of it
    _sub(("with ",), rf"\bwith ({SEG}){RB} (a|an|the|one) (diameter|chord|radius|tangent|median|altitude)\b", r"and \1 is \2 \3"),
    # `the diameter of ⊙O is the side BC` (also from `its diameter is ...`): BC is the diameter of ⊙O
    _sub((" is the side", " is side", " is the segment", " is segment", " is the chord", " is chord"),
         rf"\bthe (diameter|chord|radius) of ({_CIRCLE}) is (?:the )?(?:side |segment |chord )?({SEG}){RB}", r"\3 is the \1 of \2"),
    # `D and E are taken on AB and AC`, `a point P is chosen on ⊙O`: placement verbs read as `lie`
    _sub(("taken on", "chosen on", "marked on", "placed on", "selected on", "located on"),
         r"\b(is|are) (?:then )?(?:taken|chosen|marked|placed|selected|located) on\b", r"\1 on"),
    # `on the sides AB and AC of triangle ABC respectively`: `respectively` goes with the sides
    _sub(("respectively",), rf"\b({SEG}){RB} and ({SEG}){RB} of (?:the )?((?:triangle |△ ?|quadrilateral |square |rectangle |parallelogram |rhombus )?"
         rf"[A-Z][A-Z0-9']{{2,12}}){RB},? respectively", r"\1 and \2 respectively of \3"),
    # `triangles ADE and ABC are then similar`, `AB and CD are therefore parallel`
    _sub(("then", "therefore", "thus", "hence", "also", "clearly"),
         r"\b(is|are) (?:then|therefore|thus|hence|also|clearly) (similar|congruent|parallel|perpendicular|equal|concentric|collinear|tangent)\b",
         r"\1 \2"),
    # `l passes through the midpoint M of AB`: M lies on l and is AB's midpoint
    _sub(("through the midpoint", "through its midpoint"),
         rf"\b(passes|passing|pass|goes|going|runs|running) through (?:the |its )?midpoint (?:point )?({PT}){RB} of (?:the )?(?:segment |side )?({SEG}){RB}",
         r"\1 through \2, and \2 is the midpoint of \3,"),
    # `from P a tangent is drawn to ⊙O, touching it at A`, `a tangent from P touches ⊙O at A`
    _sub(("tangent",), rf"\b(?:[Ff]rom (?:point )?({PT}){RB},? (?:a|the) tangent(?: line)? is drawn to|(?:a|the) tangent(?: line)? from (?:point )?({PT}){RB}"
         rf"(?: is drawn to| drawn to)?) ({_CIRCLE}),?(?: [^.;]{{0,24}}?)? (?:touching|touches|meeting|meets|and touches) (?:it |the circle |{_CIRCLE} )?at (?:point )?({PT}){RB}",
         r"\1\2\4 is tangent to \3 at \4"),
]

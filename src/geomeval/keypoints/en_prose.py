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

from ._engine import NUMC, NUMSTART, PT, RB, SEG, Sub

_NUM = f"({NUMSTART}{NUMC})(?![0-9A-Za-z°(])"
_LONG = r"(?: (?:units? |cm )?(?:long|in length))?"
_CIRCLE = rf"(?:⊙ ?|circle ){PT}{RB}"


def _sub(triggers: tuple[str, ...], pattern: str, repl: str) -> Sub:
    return Sub(triggers, re.compile(pattern), repl)


PROSE_SUBS: list[Sub] = [
    # `AB and AC measure 6 and 8`, `AD and BC are parallel, of lengths 2 and 6`, `AB and AC are 6 and 8 long respectively`
    _sub((" and ",), rf"\b({SEG}){RB} and ({SEG}){RB}((?: [^.;=]{{1,30}}?)??),? (?:measure|measuring|are|have lengths?|of lengths?|with lengths?)"
         rf"(?: of)? {_NUM} and {_NUM}{_LONG}(?:,? respectively)?", r"\1 and \2\3, \1 = \4, \2 = \5"),
    # `AB and AC each being 6 long`, `AB and AC, each 6 units long`, `AB and AC are each 6`
    _sub(("each",), rf"\b({SEG}){RB} and ({SEG}){RB}((?: [^.;=]{{1,30}}?)??),? (?:are |both )?each (?:being |of length |measuring |with length )?{_NUM}{_LONG}",
         r"\1 and \2\3, \1 = \4, \2 = \4"),
    # `B and M are joined`, `A and D are connected by a segment`
    _sub(("joined", "connected"), rf"\b({PT}){RB} and ({PT}){RB} are (?:joined|connected)(?: by a (?:line )?segment)?", r"segment \1\2 is drawn"),
    # `the segment joining A to the point D`, `a segment connecting A and D`
    _sub(("joining", "connecting"), rf"\b(?:the |a )?segment (?:joining|connecting) (?:point )?({PT}){RB} (?:to|and|with) (?:the )?(?:point )?({PT}){RB}",
         r"segment \1\2 from \1 to point \2"),
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

"""The report's bar charts, written as SVG text.

Why not matplotlib, which draws every other figure here: a report needs a handful of bars,
and matplotlib's import plus drawing was the largest cost of a judge-bound run outside the
calls themselves (bench/report_charts.py measures both, fresh processes side by side). Its
import, begun on a thread while a run waited on its endpoints, also took the GIL from the
event loop in turns and slowed the calls. An SVG is a few lines of text, and the viewer sets
its text in whatever fonts it has, CJK group names included.

Labels come from the data, so every text is cut to a bound, stripped of characters XML
cannot hold, and escaped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from unicodedata import east_asian_width
from xml.sax.saxutils import escape

Y_TOP = 119.0  # the value axis runs from 0 to this (a percentage, with room for the labels above 100)
Y_TICKS = (0, 20, 40, 60, 80, 100)
SCORED = "#4C72B0"
UNSCORED = "#DDDDDD"
# Pixels around the plot area, and the size of the whole chart: one bar's slot is SLOT wide.
LEFT, RIGHT, BOTTOM, TOP = 70.0, 10.0, 40.0, 35.0
SLOT, MIN_WIDTH, HEIGHT = 110.0, 350.0, 320.0
BAR_SHARE = 0.8  # of its slot a bar fills
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
LABEL_FONT, NOTE_FONT, TITLE_FONT = 10.0, 8.0, 10.0
CHAR_WIDTH = 0.6  # of the font size: an estimate of a character's width, for margins only
LONG_LABEL = 10  # characters: a longer group name is slanted, so neighbours do not run together
SLANT = 20.0  # degrees
MAX_LABEL = 40  # characters shown of a group name (the whole name, up to MAX_TITLE, on hover)
MAX_TITLE = 300
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None  # a share in [0, 1]; None: nothing in the group was scored
    note: str  # written above the bar (lines split by "\n")


def _text(value: object, limit: int) -> str:
    """`value` as XML character data: cut to `limit` characters, what XML cannot hold replaced."""
    text = str(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return escape(_NOT_XML.sub("?", text))


def _number(x: float) -> str:
    return f"{x:.1f}"


def _ems(text: str) -> float:
    """An estimate of `text`'s width in font sizes, for margins only: a wide (CJK) character
    about one, others CHAR_WIDTH."""
    return sum(1.0 if east_asian_width(char) in "WF" else CHAR_WIDTH for char in text)


def bar_chart(title: str, y_label: str, bars: Sequence[Bar]) -> str:
    """An SVG bar chart of `bars` (values as percentages on a 0..119 axis), as text. A bar
    without a finite value is drawn as an unscored group."""
    n = max(len(bars), 1)
    names = [str(bar.label) for bar in bars]
    shown = [_text(name, MAX_LABEL) for name in names]
    longest = max((_ems(name[:MAX_LABEL]) for name in names), default=0.0)
    slanted = longest > LONG_LABEL * CHAR_WIDTH
    left, bottom = LEFT, BOTTOM
    if slanted:  # room below for the slanted names, and to the left for the first one's start
        run = longest * LABEL_FONT
        bottom = 15.0 + run * math.sin(math.radians(SLANT)) + LABEL_FONT
        first = _ems(names[0][:MAX_LABEL]) * LABEL_FONT * math.cos(math.radians(SLANT))
        left = max(LEFT, first - SLOT / 2 + 10.0)
    title = str(title)[:MAX_TITLE]
    width = max(MIN_WIDTH, SLOT * n + left + RIGHT + 10.0, _ems(title) * TITLE_FONT + left + RIGHT + 20.0)
    height = HEIGHT + (bottom - BOTTOM)
    plot_w, plot_h = width - left - RIGHT, height - bottom - TOP
    slot = plot_w / n

    def y_of(value: float) -> float:
        return TOP + plot_h * (1.0 - min(max(value, 0.0), Y_TOP) / Y_TOP)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_number(width)}" height="{_number(height)}" '
        f'viewBox="0 0 {_number(width)} {_number(height)}" font-family="{FONT}">',
        f'<rect width="{_number(width)}" height="{_number(height)}" fill="white"/>',
        f'<text x="{_number(left + plot_w / 2)}" y="{_number(TOP - 8)}" font-size="{TITLE_FONT:g}" '
        f'text-anchor="middle">{_text(title, MAX_TITLE)}</text>',
    ]
    for tick in Y_TICKS:
        y = y_of(tick)
        parts.append(f'<line x1="{_number(left - 4)}" y1="{_number(y)}" x2="{_number(left)}" y2="{_number(y)}" '
                     'stroke="black" stroke-width="0.8"/>')
        parts.append(f'<text x="{_number(left - 6)}" y="{_number(y + 3.5)}" font-size="{LABEL_FONT:g}" '
                     f'text-anchor="end">{tick}</text>')
    label_x, label_y = 18.0, TOP + plot_h / 2
    parts.append(f'<text x="{_number(label_x)}" y="{_number(label_y)}" font-size="{LABEL_FONT:g}" text-anchor="middle" '
                 f'transform="rotate(-90 {_number(label_x)} {_number(label_y)})">{_text(y_label, MAX_LABEL)}</text>')
    for i, (bar, label) in enumerate(zip(bars, shown, strict=True)):
        centre = left + slot * (i + 0.5)
        value = bar.value if bar.value is not None and math.isfinite(bar.value) else None
        scored = value is not None
        top = y_of(100.0 * value) if value is not None else y_of(0.0)
        bar_w = slot * BAR_SHARE
        parts.append(f'<rect x="{_number(centre - bar_w / 2)}" y="{_number(top)}" width="{_number(bar_w)}" '
                     f'height="{_number(TOP + plot_h - top)}" fill="{SCORED if scored else UNSCORED}">'
                     f'<title>{_text(bar.label, MAX_TITLE)}</title></rect>')
        lines = bar.note.split("\n")[:3]
        for j, line in enumerate(lines):
            y = top - 3 - NOTE_FONT * 1.15 * (len(lines) - 1 - j)
            parts.append(f'<text x="{_number(centre)}" y="{_number(y)}" font-size="{NOTE_FONT:g}" '
                         f'text-anchor="middle">{_text(line, MAX_LABEL)}</text>')
        tick_y = TOP + plot_h
        parts.append(f'<line x1="{_number(centre)}" y1="{_number(tick_y)}" x2="{_number(centre)}" '
                     f'y2="{_number(tick_y + 4)}" stroke="black" stroke-width="0.8"/>')
        if slanted:
            ly = tick_y + 8 + LABEL_FONT * 0.8
            parts.append(f'<text x="{_number(centre)}" y="{_number(ly)}" font-size="{LABEL_FONT:g}" text-anchor="end" '
                         f'transform="rotate(-{SLANT:g} {_number(centre)} {_number(ly)})">{label}</text>')
        else:
            parts.append(f'<text x="{_number(centre)}" y="{_number(tick_y + 6 + LABEL_FONT)}" '
                         f'font-size="{LABEL_FONT:g}" text-anchor="middle">{label}</text>')
    parts.append(f'<rect x="{_number(left)}" y="{_number(TOP)}" width="{_number(plot_w)}" height="{_number(plot_h)}" '
                 'fill="none" stroke="black" stroke-width="0.8"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"

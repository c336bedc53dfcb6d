"""Styling and view commands: they change how objects look, never what they are.

They create no object, so they return a `ViewCommand` the executor applies after checking
its arguments; a wrong argument is still an error on its line, as in GeoGebra.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from geomeval.geogebra.commands import CommandError, boolean, illegal, is_number, num
from geomeval.geogebra.objects import Geo, GeoBoolean, GeoText

if TYPE_CHECKING:
    from geomeval.geogebra.executor import Executor

# GeoGebra's colour names (the ones its SetColor documentation and UI offer), as RGB.
COLOR_NAMES: dict[str, tuple[int, int, int]] = {
    "black": (0, 0, 0),
    "white": (255, 255, 255),
    "red": (255, 0, 0),
    "green": (0, 255, 0),
    "blue": (0, 0, 255),
    "yellow": (255, 255, 0),
    "cyan": (0, 255, 255),
    "aqua": (0, 255, 255),
    "magenta": (255, 0, 255),
    "orange": (255, 127, 0),
    "purple": (128, 0, 128),
    "violet": (127, 0, 255),
    "brown": (153, 51, 0),
    "gray": (128, 128, 128),
    "grey": (128, 128, 128),
    "darkgray": (32, 32, 32),
    "darkgrey": (32, 32, 32),
    "lightgray": (160, 160, 160),
    "lightgrey": (160, 160, 160),
    "silver": (192, 192, 192),
    "pink": (255, 192, 203),
    "gold": (255, 215, 0),
    "lime": (191, 255, 0),
    "maroon": (128, 0, 0),
    "navy": (0, 0, 128),
    "olive": (128, 128, 0),
    "teal": (0, 128, 128),
    "indigo": (75, 0, 130),
    "turquoise": (64, 224, 208),
    "crimson": (220, 20, 60),
    "darkblue": (0, 0, 128),
    "darkgreen": (0, 100, 0),
    "lightblue": (125, 125, 255),
    "lightgreen": (127, 255, 0),
    "lightorange": (255, 239, 213),
    "lightpurple": (204, 204, 255),
    "lightviolet": (224, 130, 255),
    "lightyellow": (255, 250, 205),
    "skyblue": (135, 206, 235),
}


@dataclass
class ViewCommand:
    """A checked styling or view change, applied when its line runs."""

    name: str
    apply_fn: Callable[[Executor], None]

    def apply(self, executor: Executor) -> None:
        self.apply_fn(executor)


def _target(name: str, args: list[Any]) -> Geo:
    if not args or not isinstance(args[0], Geo) or args[0].label is None:
        raise illegal(name, args)
    return args[0]


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, GeoText):
        return value.text
    return None


def parse_color(name: str, value: str) -> tuple[int, int, int]:
    """A colour name or hex string (#RRGGBB, #AARRGGBB) as RGB."""
    text = value.strip()
    if text.startswith("#"):
        digits = text[1:]
        if len(digits) == 8:
            digits = digits[2:]
        if len(digits) == 6 and all(c in "0123456789abcdefABCDEF" for c in digits):
            return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16))
        raise CommandError(f'{name}: "{value}" is not a colour (#RRGGBB expected)')
    key = text.lower().replace(" ", "").replace("_", "")
    if key in COLOR_NAMES:
        return COLOR_NAMES[key]
    raise CommandError(f'{name}: unknown colour "{value}"')


def set_color(ex: Executor, args: list[Any]) -> ViewCommand:
    geo = _target("SetColor", args)
    if len(args) == 2 and _text(args[1]) is not None:
        rgb = parse_color("SetColor", _text(args[1]) or "")
    elif len(args) == 4 and all(is_number(a) for a in args[1:]):
        parts = [num(a) for a in args[1:]]
        # GeoGebra reads SetColor(obj, r, g, b) on a 0–1 scale and clamps.
        rgb = tuple(round(255 * min(1.0, max(0.0, p))) for p in parts)  # type: ignore[assignment]
    else:
        raise illegal("SetColor", args)

    def apply(_: Executor) -> None:
        geo.style.color = rgb

    return ViewCommand("SetColor", apply)


def _int_setter(name: str, attribute: str, low: int, high: int) -> Callable[..., ViewCommand]:
    def command(ex: Executor, args: list[Any]) -> ViewCommand:
        geo = _target(name, args)
        if len(args) != 2 or not is_number(args[1]):
            raise illegal(name, args)
        value = round(num(args[1]))
        value = min(high, max(low, value))

        def apply(_: Executor) -> None:
            setattr(geo.style, attribute, value)

        return ViewCommand(name, apply)

    return command


def set_filling(ex: Executor, args: list[Any]) -> ViewCommand:
    geo = _target("SetFilling", args)
    if len(args) != 2 or not is_number(args[1]):
        raise illegal("SetFilling", args)
    value = min(1.0, max(0.0, num(args[1])))

    def apply(_: Executor) -> None:
        geo.style.filling = value

    return ViewCommand("SetFilling", apply)


def set_caption(ex: Executor, args: list[Any]) -> ViewCommand:
    geo = _target("SetCaption", args)
    if len(args) != 2 or _text(args[1]) is None:
        raise illegal("SetCaption", args)
    caption = _text(args[1])

    def apply(_: Executor) -> None:
        geo.style.caption = caption

    return ViewCommand("SetCaption", apply)


def _bool_arg(value: Any) -> bool:
    return isinstance(value, (bool, GeoBoolean))


def _bool_setter(name: str, attribute: str) -> Callable[..., ViewCommand]:
    def command(ex: Executor, args: list[Any]) -> ViewCommand:
        geo = _target(name, args)
        if len(args) == 1:
            value = True
        elif len(args) == 2 and _bool_arg(args[1]):
            value = boolean(args[1])
        else:
            raise illegal(name, args)

        def apply(_: Executor) -> None:
            setattr(geo.style, attribute, value)

        return ViewCommand(name, apply)

    return command


def set_visible_in_view(ex: Executor, args: list[Any]) -> ViewCommand:
    geo = _target("SetVisibleInView", args)
    if len(args) != 3 or not is_number(args[1]) or not _bool_arg(args[2]):
        raise illegal("SetVisibleInView", args)
    view, visible = round(num(args[1])), boolean(args[2])
    if view not in (1, 2, -1):
        raise CommandError(f"SetVisibleInView: view must be 1 or 2, got {view}")

    def apply(_: Executor) -> None:
        if view == 1:
            geo.style.visible = visible

    return ViewCommand("SetVisibleInView", apply)


def _view_toggle(name: str, attribute: str) -> Callable[..., ViewCommand]:
    def command(ex: Executor, args: list[Any]) -> ViewCommand:
        if not args:
            value = True
        elif len(args) == 1 and _bool_arg(args[0]):
            value = boolean(args[0])
        elif len(args) == 2 and is_number(args[0]) and _bool_arg(args[1]):
            value = boolean(args[1])
        else:
            raise illegal(name, args)

        def apply(executor: Executor) -> None:
            setattr(executor.construction.view, attribute, value)

        return ViewCommand(name, apply)

    return command


def zoom_in(ex: Executor, args: list[Any]) -> ViewCommand:
    if len(args) == 4 and all(is_number(a) for a in args):
        xmin, ymin, xmax, ymax = (num(a) for a in args)
        if not (xmin < xmax and ymin < ymax):
            raise CommandError("ZoomIn: needs xmin < xmax and ymin < ymax")

        def apply(executor: Executor) -> None:
            executor.construction.view.window = (xmin, ymin, xmax, ymax)

        return ViewCommand("ZoomIn", apply)
    if 1 <= len(args) <= 2 and is_number(args[0]):
        factor = num(args[0])
        if factor <= 0:
            raise CommandError("ZoomIn: the factor must be positive")

        def apply_factor(executor: Executor) -> None:
            window = executor.construction.view.window
            if window is None:
                return
            xmin, ymin, xmax, ymax = window
            cx, cy = (xmin + xmax) / 2, (ymin + ymax) / 2
            if len(args) == 2 and hasattr(args[1], "xy"):
                cx, cy = args[1].xy
            executor.construction.view.window = (
                cx + (xmin - cx) / factor,
                cy + (ymin - cy) / factor,
                cx + (xmax - cx) / factor,
                cy + (ymax - cy) / factor,
            )

        return ViewCommand("ZoomIn", apply_factor)
    raise illegal("ZoomIn", args)


def delete(ex: Executor, args: list[Any]) -> ViewCommand:
    geo = _target("Delete", args)
    label = geo.label

    def apply(executor: Executor) -> None:
        if label is not None:
            executor.delete(label)

    return ViewCommand("Delete", apply)


STYLE_COMMANDS: dict[str, Callable[[Executor, list[Any]], ViewCommand]] = {
    "SetColor": set_color,
    "SetLineStyle": _int_setter("SetLineStyle", "line_style", 0, 4),
    "SetLineThickness": _int_setter("SetLineThickness", "line_thickness", 1, 13),
    "SetPointSize": _int_setter("SetPointSize", "point_size", 1, 9),
    "SetPointStyle": _int_setter("SetPointStyle", "point_style", 0, 10),
    "SetFilling": set_filling,
    "SetCaption": set_caption,
    "ShowLabel": _bool_setter("ShowLabel", "show_label"),
    "SetLabelMode": _int_setter("SetLabelMode", "label_mode", 0, 9),
    "SetFixed": _bool_setter("SetFixed", "fixed"),
    "SetVisibleInView": set_visible_in_view,
    "ShowAxes": _view_toggle("ShowAxes", "axes"),
    "ShowGrid": _view_toggle("ShowGrid", "grid"),
    "ZoomIn": zoom_in,
    "Delete": delete,
}

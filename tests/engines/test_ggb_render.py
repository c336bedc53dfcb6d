"""The GeoGebra renderer: sizes, determinism, and that objects land on the right pixels.

Pixel checks go through `fit_window` / `world_to_pixel`, the same mapping the renderer
uses, so they test where things are drawn rather than how they look.
"""

from __future__ import annotations

import io
import itertools
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from PIL import Image

from geomeval.geogebra.construction import Construction, LineStatus
from geomeval.geogebra.objects import (
    Geo,
    GeoAngle,
    GeoCircle,
    GeoConicPart,
    GeoLine,
    GeoList,
    GeoPoint,
    GeoPolygon,
    GeoRay,
    GeoSegment,
    GeoText,
    GeoVector,
)
from geomeval.geogebra.render import (
    MAX_OBJECTS,
    MAX_SIDE,
    STEP_TITLE_HEIGHT,
    clip_parametric,
    fit_window,
    long_image_panels,
    render_long_image,
    render_png,
    render_steps,
    visible_arcs,
    world_to_pixel,
)

RED = (255, 0, 0)
SMALL = (120, 90)


def build(*items: tuple[str, Geo, int], blocks: int | None = None) -> Construction:
    """A construction from (label, object, block) triples, one script line per object."""
    construction = Construction()
    for line, (label, geo, block) in enumerate(items, start=1):
        geo.label = label
        construction.objects[label] = geo
        construction.created_at[label] = line
        construction.lines.append(LineStatus(line, label, True, None, [label], block))
    construction.blocks = (
        blocks if blocks is not None else 1 + max((block for _, _, block in items), default=0)
    )
    return construction


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def around(image: np.ndarray, col: float, row: float, radius: int = 1) -> np.ndarray:
    c, r = math.floor(col), math.floor(row)
    patch = image[max(r - radius, 0) : r + radius + 1, max(c - radius, 0) : c + radius + 1]
    return patch.reshape(-1, 3)


def is_red(rgb: np.ndarray) -> np.ndarray:
    return (rgb[..., 0] > 180) & (rgb[..., 1] < 80) & (rgb[..., 2] < 80)


def is_dark(rgb: np.ndarray) -> np.ndarray:
    return rgb.sum(axis=-1) < 400


def red_point(x: float, y: float) -> GeoPoint:
    point = GeoPoint(x, y)
    point.style.color = RED
    point.style.show_label = False
    return point


def sample() -> Construction:
    a, b, c = GeoPoint(0, 0), GeoPoint(4, 0), GeoPoint(1, 3)
    for p in (a, b, c):
        p.independent = True
    return build(
        ("A", a, 0),
        ("B", b, 0),
        ("C", c, 1),
        ("k", GeoCircle((0, 0), 4), 1),
        ("f", GeoLine((0, 0), (1, 1)), 2),
        ("r", GeoRay((4, 0), (0, -1)), 2),
        ("s", GeoSegment((0, 0), (1, 3)), 2),
        ("poly", GeoPolygon([(0, 0), (4, 0), (1, 3)]), 2),
        ("α", GeoAngle(0.9, (0, 0), 0.0), 3),
        ("β", GeoAngle(math.pi / 2, (4, 0), math.pi / 2), 3),
        ("u", GeoVector(2, 1, (1, -2)), 3),
        ("d", GeoConicPart((4, 0), 2, 0.5, 2.5, True), 3),
        ("e", GeoConicPart((0, 0), 5, -0.5, 1.0, False), 3),
        ("t", GeoText("Hello", (2, 5)), 3),
        ("t2", GeoText("no position"), 3),
    )


# --- images ---------------------------------------------------------------------------------


def test_png_has_requested_size_and_is_deterministic() -> None:
    construction = sample()
    construction.view.axes = construction.view.grid = True
    first = render_png(construction, size=SMALL, show_errors=True)
    image = Image.open(io.BytesIO(first))
    assert image.format == "PNG" and image.size == SMALL and image.mode == "RGB"
    assert render_png(construction, size=SMALL, show_errors=True) == first
    with ThreadPoolExecutor(4) as pool:
        again = list(
            pool.map(lambda _: render_png(construction, size=SMALL, show_errors=True), range(4))
        )
    assert all(png == first for png in again)


def test_a_reused_figure_draws_what_a_fresh_one_draws() -> None:
    """Each thread reuses its figure of a size: nothing of one drawing (artists, the error
    footer, the view) shows in the next. A new thread starts with fresh figures."""
    full = sample()
    full.view.axes = full.view.grid = True
    full.lines.append(LineStatus(99, "Foo(1)", False, "unknown command", [], 3))
    other = build(("P", red_point(-7, 2), 0), ("Q", GeoPoint(5, -1), 0))

    def in_a_new_thread(construction: Construction, **options: object) -> bytes:
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(lambda: render_png(construction, size=SMALL, **options)).result()  # type: ignore[arg-type]

    first = render_png(full, size=SMALL, show_errors=True)
    after = render_png(other, size=SMALL)
    assert after == in_a_new_thread(other)
    assert render_png(full, size=SMALL, show_errors=True) == first == in_a_new_thread(full, show_errors=True)
    assert render_png(full, size=SMALL) == in_a_new_thread(full)


def test_a_figure_cache_keeps_pngs_by_script_size_and_view(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from geomeval.geogebra.figures import FigureCache, figure_key

    key = figure_key(["A = (0, 0)"], SMALL, (0.0, 0.0, 4.0, 3.0))
    assert key == figure_key(["A = (0, 0)"], SMALL, (0, 0, 4, 3))
    others = {figure_key(["A = (0, 1)"], SMALL, (0, 0, 4, 3)), figure_key(["A = (0, 0)"], (90, 120), (0, 0, 4, 3)),
              figure_key(["A = (0, 0)"], SMALL, (0, 0, 4, 3.5)), figure_key(["A = (0, 0)"], SMALL, None),
              figure_key(["A = (0, 0)", ""], SMALL, (0, 0, 4, 3))}
    assert key not in others and len(others) == 5
    drawn: list[int] = []
    cache = FigureCache(tmp_path / "figures", memory=1)
    assert cache.drawn(key, lambda: drawn.append(1) or b"png") == b"png"
    assert cache.drawn(key, lambda: drawn.append(1) or b"other") == b"png" and len(drawn) == 1
    assert FigureCache(tmp_path / "figures").get(key) == b"png"  # a later process finds the file
    assert FigureCache(None).get(key) is None
    cache.put("k2", b"second")  # memory holds one: the first is read back from its file
    assert cache.get(key) == b"png" and [p.suffix for p in (tmp_path / "figures").iterdir()] == [".png"] * 2


@pytest.mark.parametrize("size", [(16, 16), (29, 57), (113, 201)])
def test_odd_sizes_are_exact(size: tuple[int, int]) -> None:
    assert Image.open(io.BytesIO(render_png(sample(), size=size))).size == size


def test_red_point_is_drawn_where_fit_window_puts_it() -> None:
    construction = build(
        ("A", GeoPoint(0, 0), 0), ("P", red_point(3, 2), 0), ("Q", GeoPoint(-2, 5), 0)
    )
    window = fit_window(construction, size=SMALL)
    image = pixels(render_png(construction, size=SMALL))
    col, row = world_to_pixel(window, SMALL, 3, 2)
    assert is_red(around(image, col, row, 0)).all()
    # Red only there: the other points are not red.
    red_rows, red_cols = np.nonzero(is_red(image))
    assert abs(red_cols.mean() - col) < 2 and abs(red_rows.mean() - row) < 2


def test_fit_window_margin_aspect_and_defaults() -> None:
    construction = build(("A", GeoPoint(0, 0), 0), ("B", GeoPoint(10, 2), 0))
    xmin, ymin, xmax, ymax = fit_window(construction, size=(200, 100))
    assert math.isclose((xmax - xmin) / (ymax - ymin), 2.0)
    assert xmin < -0.5 and xmax > 10.5 and ymin < 0 and ymax > 2
    # A circle counts with its whole extent.
    circle = build(("k", GeoCircle((0, 0), 4), 0))
    xmin, ymin, xmax, ymax = fit_window(circle, size=(100, 100))
    assert xmin < -4 and ymin < -4 and xmax > 4 and ymax > 4
    # One point: a real window centred on it.
    single = fit_window(build(("A", GeoPoint(3, 3), 0)), size=(100, 100))
    assert single[2] - single[0] > 1 and math.isclose((single[0] + single[2]) / 2, 3)
    # Nothing drawable: a default window of the image's aspect.
    empty = fit_window(Construction(), size=(120, 90))
    assert math.isclose((empty[2] - empty[0]) / (empty[3] - empty[1]), 120 / 90)
    # `labels` restricts the fit.
    only_a = fit_window(construction, ["A"], size=(100, 100))
    assert only_a[2] < 10


def test_zoom_in_window_is_used_exactly() -> None:
    construction = build(("P", red_point(20, 5), 0), ("Q", GeoPoint(5, 5), 0))
    construction.view.window = (0.0, 0.0, 10.0, 10.0)
    assert fit_window(construction, size=(100, 60)) == (0.0, 0.0, 10.0, 10.0)
    image = pixels(render_png(construction, size=(100, 100)))
    assert not is_red(image).any()
    assert is_dark(around(image, 50, 50, 1)).any()  # Q at the centre


def test_infinite_line_is_clipped_across_the_view() -> None:
    # Its defining point is far outside: the drawn part still spans the whole window.
    construction = build(("f", GeoLine((1e9, 1e9), (1, 1)), 0))
    construction.view.window = (0.0, 0.0, 10.0, 10.0)
    image = pixels(render_png(construction, size=(100, 100)))
    for col, row in ((3, 96), (96, 3), (50, 49)):
        assert is_dark(around(image, col, row, 1)).any(), (col, row)
    assert not is_dark(around(image, 90, 90, 2)).any()


def test_ray_and_segment_stop_at_their_ends() -> None:
    construction = build(
        ("r", GeoRay((5, 5), (1, 0)), 0),
        ("s", GeoSegment((2, 2), (5, 2)), 0),
    )
    construction.view.window = (0.0, 0.0, 10.0, 10.0)
    image = pixels(render_png(construction, size=(100, 100)))
    assert is_dark(around(image, 97, 50)).any() and not is_dark(around(image, 20, 50)).any()
    assert is_dark(around(image, 35, 80)).any() and not is_dark(around(image, 70, 80)).any()


def test_huge_circle_shows_as_its_visible_arc() -> None:
    # Centre 1e9 away, passing through x = 5: inside the view it is the line x = 5.
    construction = build(("k", GeoCircle((1e9 + 5, 5), 1e9), 0))
    construction.view.window = (0.0, 0.0, 10.0, 10.0)
    image = pixels(render_png(construction, size=(100, 100)))
    assert is_dark(around(image, 50, 50)).any()
    assert not is_dark(around(image, 20, 50, 2)).any()
    assert not is_dark(around(image, 80, 50, 2)).any()


def test_filled_polygon_tints_its_interior() -> None:
    square = GeoPolygon([(2, 2), (8, 2), (8, 8), (2, 8)])
    square.style.color = (0, 0, 255)
    square.style.filling = 0.5
    construction = build(("q", square, 0))
    construction.view.window = (0.0, 0.0, 10.0, 10.0)
    r, g, b = around(pixels(render_png(construction, size=(100, 100))), 50, 50, 0)[0]
    assert 100 <= r <= 155 and 100 <= g <= 155 and b > 240
    # Default filling is GeoGebra's light tint: not white, not solid.
    square.style.filling = None
    r, g, b = around(pixels(render_png(construction, size=(100, 100))), 50, 50, 0)[0]
    assert 200 < r < 250 and b > 240


def test_sector_is_filled_and_arc_is_not() -> None:
    sector = GeoConicPart((5, 5), 4, 0.0, math.pi / 2, True)
    arc = GeoConicPart((5, 5), 4, math.pi, 3 * math.pi / 2, False)
    construction = build(("d", sector, 0), ("e", arc, 0))
    construction.view.window = (0.0, 0.0, 10.0, 10.0)
    image = pixels(render_png(construction, size=(100, 100)))
    inside_sector = around(image, 65, 35, 0)[0]  # world (6.5, 6.5)
    inside_arc = around(image, 35, 65, 0)[0]  # world (3.5, 3.5)
    assert inside_sector.sum() < 3 * 250 and (inside_arc == 255).all()


def test_list_elements_use_the_list_style() -> None:
    points = GeoList([GeoPoint(2, 2), GeoPoint(8, 8), GeoPoint()])
    points.style.color = RED
    construction = build(("L", points, 0))
    construction.view.window = (0.0, 0.0, 10.0, 10.0)
    image = pixels(render_png(construction, size=(100, 100)))
    assert is_red(around(image, 20, 80, 0)).all() and is_red(around(image, 80, 20, 0)).all()


def test_undefined_and_hidden_objects_are_skipped() -> None:
    base = [("A", GeoPoint(0, 0), 0), ("B", GeoPoint(4, 3), 0)]
    hidden = GeoCircle((0, 0), 2)
    hidden.style.visible = False
    extra = [
        ("P", GeoPoint(), 0),
        ("k", GeoCircle((math.nan, 0), 1), 0),
        ("f", GeoLine(), 0),
        ("s", GeoSegment((0, 0), (math.nan, 1)), 0),
        ("q", GeoPolygon([(0, 0), (1, math.inf), (2, 0)]), 0),
        ("u", GeoVector(), 0),
        ("α", GeoAngle(1.0, None), 0),
        ("β", GeoAngle(), 0),
        ("d", GeoConicPart(), 0),
        ("L", GeoList([GeoPoint(), GeoList([GeoCircle()])]), 0),
        ("h", hidden, 0),
    ]
    plain = render_png(build(*base), size=SMALL)
    assert render_png(build(*base, *extra), size=SMALL) == plain


def test_step_snapshots_show_only_objects_made_so_far() -> None:
    construction = build(
        ("A", GeoPoint(0, 0), 0), ("B", GeoPoint(4, 3), 0), ("P", red_point(2, 1), 1)
    )
    steps = render_steps(construction, size=SMALL)
    assert len(steps) == 2
    window = fit_window(construction, size=SMALL)
    col, row = world_to_pixel(window, SMALL, 2, 1)
    before, after = pixels(steps[0]), pixels(steps[1])
    assert not is_red(before).any()
    assert is_red(around(after, col, row, 0)).all()
    # Same window in both: A sits on the same pixels.
    a_col, a_row = world_to_pixel(window, SMALL, 0, 0)
    assert (around(before, a_col, a_row) == around(after, a_col, a_row)).all()
    assert steps[1] == render_png(construction, size=SMALL)


def test_long_image_size_and_last_panel_is_the_final_figure() -> None:
    construction = build(*[(f"P{i}", GeoPoint(i, i % 3), i) for i in range(5)])
    width, height = SMALL
    png = render_long_image(construction, size=SMALL)
    assert Image.open(io.BytesIO(png)).size == (5 * width, height + STEP_TITLE_HEIGHT)

    merged = pixels(render_long_image(construction, size=SMALL, max_steps=2))
    assert merged.shape == (height + STEP_TITLE_HEIGHT, 2 * width, 3)
    assert long_image_panels(5, 2) == [(0, 2), (3, 4)]
    final = pixels(render_png(construction, size=SMALL))
    last = merged[STEP_TITLE_HEIGHT:, width:]
    assert (last[:, 1:] == final[:, 1:]).all()  # column 0 is the rule between panels
    assert render_long_image(construction, size=SMALL, max_steps=2) == render_long_image(
        construction, size=SMALL, max_steps=2
    )


def test_long_image_panels_are_even_and_end_on_the_last_block() -> None:
    assert long_image_panels(3, 12) == [(0, 0), (1, 1), (2, 2)]
    assert long_image_panels(0, 12) == [(0, 0)]
    panels = long_image_panels(30, 12)
    assert len(panels) == 12 and panels[0][0] == 0 and panels[-1][1] == 29
    assert all(b[0] == a[1] + 1 for a, b in itertools.pairwise(panels))
    assert {last - first + 1 for first, last in panels} <= {2, 3}


def test_errors_footer_is_red_and_optional() -> None:
    construction = build(("A", GeoPoint(0, 0), 0), ("B", GeoPoint(4, 3), 0))
    construction.lines.append(LineStatus(3, "x = Foo(1)", False, "unknown command Foo", [], 0))
    with_footer = pixels(render_png(construction, size=(200, 100), show_errors=True))
    assert is_red(with_footer[-20:]).any()
    assert not is_red(pixels(render_png(construction, size=(200, 100)))).any()


def test_oversize_and_bad_requests_raise() -> None:
    construction = sample()
    with pytest.raises(ValueError, match="size"):
        render_png(construction, size=(MAX_SIDE + 1, 100))
    with pytest.raises(ValueError):
        render_png(construction, size=(8, 100))
    with pytest.raises(ValueError):
        render_steps(construction, size=(100, 10_000))
    with pytest.raises(ValueError, match="max_steps"):
        render_long_image(construction, size=SMALL, max_steps=0)
    with pytest.raises(ValueError, match="window"):
        render_png(construction, size=SMALL, window=(1.0, 0.0, 1.0, 5.0))
    crowd = build(*[(f"P{i}", GeoPoint(i, 0), 0) for i in range(MAX_OBJECTS + 1)])
    with pytest.raises(ValueError, match="drawable objects"):
        render_png(crowd, size=SMALL)


# --- geometry helpers -----------------------------------------------------------------------


def test_clip_parametric() -> None:
    rect = (0.0, 0.0, 10.0, 10.0)
    assert clip_parametric((5, 5), (1, 0), -math.inf, math.inf, rect) == (-5.0, 5.0)
    assert clip_parametric((5, 5), (1, 0), 0.0, math.inf, rect) == (0.0, 5.0)
    assert clip_parametric((5, 20), (1, 0), -math.inf, math.inf, rect) is None
    assert clip_parametric((-5, -5), (1, 1), 0.0, 1.0, rect) is None


def test_visible_arcs() -> None:
    rect = (0.0, 0.0, 10.0, 10.0)
    assert visible_arcs((5, 5), 2, 0.0, 2 * math.pi, rect) == [(0.0, 2 * math.pi)]
    assert visible_arcs((50, 50), 2, 0.0, 2 * math.pi, rect) == []
    # Centred on a corner: only the quarter inside the rectangle.
    ((start, sweep),) = visible_arcs((0, 0), 5, 0.0, 2 * math.pi, rect)
    assert math.isclose(start, 0.0, abs_tol=1e-12) and math.isclose(sweep, math.pi / 2)
    # Cut by the right edge: one piece, the part left of x = 10.
    pieces = visible_arcs((9, 5), 2, 0.0, 2 * math.pi, rect)
    assert len(pieces) == 1 and math.isclose(pieces[0][1], 2 * math.pi - 2 * math.acos(0.5))
    # Cut by the left edge: the visible part runs through angle 0 and stays one piece.
    ((start, sweep),) = visible_arcs((1, 5), 2, 0.0, 2 * math.pi, rect)
    assert math.isclose(start, 4 * math.pi / 3) and math.isclose(sweep, 4 * math.pi / 3)


# --- through the executor -------------------------------------------------------------------


def test_script_circle_is_drawn() -> None:
    from geomeval.geogebra.executor import run_script

    construction = run_script("A=(0,0)\nB=(4,0)\nc=Circle(A,B)")
    window = fit_window(construction, size=SMALL)
    assert window[0] < -4 and window[2] > 4 and window[1] < -4 and window[3] > 4
    image = pixels(render_png(construction, size=SMALL))
    col, row = world_to_pixel(window, SMALL, 0, 4)  # top of the circle
    assert is_dark(around(image, col, row, 1)).any()
    col, row = world_to_pixel(window, SMALL, 2, 2)  # inside: white
    assert (around(image, col, row, 0) == 255).all()


def test_script_colour_zoom_and_polygon_edges() -> None:
    from geomeval.geogebra.executor import run_script

    construction = run_script(
        'A=(1,1)\nB=(9,1)\nC=(5,8)\np=Polygon(A,B,C)\nSetColor(A, "Red")\nZoomIn(0,0,10,10)'
    )
    assert fit_window(construction, size=(100, 100)) == (0.0, 0.0, 10.0, 10.0)
    image = pixels(render_png(construction, size=(100, 100)))
    assert is_red(around(image, 10, 90, 0)).all()
    # The edge AB is drawn in the polygon's brown, not black.
    r, g, b = around(image, 50, 90, 0)[0]
    assert r > g + 40 and r > b + 40


def test_script_steps_follow_blocks() -> None:
    from geomeval.geogebra.executor import run_blocks

    construction = run_blocks(["A=(0,0)\nB=(4,0)", 'C=(1,3)\nSetColor(C, "Red")'])
    steps = render_steps(construction, size=SMALL)
    assert len(steps) == 2
    assert not is_red(pixels(steps[0])).any() and is_red(pixels(steps[1])).any()

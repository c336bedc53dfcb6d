"""Run a GeoGebra script line by line, the way GeoGebra's input bar would.

Each line either runs or fails on its own (a failed line creates nothing and later lines
still run), so a model's script gets a per-line status and GGBench's Pass@1 is simply
"every line ran". Objects remember what they were computed from: redefining a free object
recomputes everything that depends on it, as in GeoGebra.

Safety: the script is parsed by our own parser (nothing is ever `eval`ed), and size, line
count, nesting, Sequence length, object count and run time are all bounded (`Limits`). The
run-time bound counts CPU seconds of the thread running the script (`time.thread_time`), not
the clock: a script meets it after the same work on an idle machine and on a loaded one, so
whether it passes never depends on what else the machine is doing.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from geomeval.geogebra import algebra as alg
from geomeval.geogebra import commands as cmds
from geomeval.geogebra import conics
from geomeval.geogebra import syntax as sx
from geomeval.geogebra.algebra import Sym
from geomeval.geogebra.commands import (
    AngleValue,
    CommandError,
    LimitReached,
    Moved,
    Outputs,
    ScriptError,
    Value,
)
from geomeval.geogebra.construction import Construction, LineStatus
from geomeval.geogebra.labels import free_label, indexed_label, next_label
from geomeval.geogebra.nodes import _shift, split_blocks
from geomeval.geogebra.objects import (
    NAN,
    Geo,
    GeoAngle,
    GeoBoolean,
    GeoCircle,
    GeoConic,
    GeoFunction,
    GeoFunctionNVar,
    GeoImplicitPoly,
    GeoList,
    GeoNumber,
    GeoPoint,
    GeoPolygon,
    GeoSegment,
    GeoText,
    GeoVector,
    Style,
)
from geomeval.geogebra.style import STYLE_COMMANDS, ViewCommand
from geomeval.geogebra.values import (
    _AXES,
    _COMMAND_NAMES,
    _VALUE_ASSIGNABLE,
    COMMANDS,
    NameRule,
    _as_function,
    _as_number,
    _binop,
    _defined_stand_in,
    _Definition,
    _intersection_key,
    _mentions_xy,
    _negate,
    _primed,
    _settle,
    _side_name,
    _stub,
    _suggest,
)


@dataclass(frozen=True)
class Limits:
    """Bounds on untrusted scripts; hitting one is a clear error, never a hang."""

    max_script_chars: int = 100_000
    max_lines: int = 2_000
    max_line_chars: int = 2_000
    max_depth: int = 64
    max_sequence: int = 10_000
    max_elements: int = 200_000  # list elements made by Sequence over the whole script (nesting multiplies)
    max_objects: int = 20_000
    max_seconds: float = 10.0  # CPU seconds of the thread running the script, never the clock

    def syntax(self) -> sx.ScriptLimits:
        return sx.ScriptLimits(
            max_chars=self.max_script_chars,
            max_lines=self.max_lines,
            max_line_length=self.max_line_chars,
            max_depth=self.max_depth,
        )


MATH = alg.MATH  # GeoGebra's one-argument functions, as the algebra module evaluates them


def _safe(fn: Callable[[float], float], value: float) -> float:
    try:
        result = float(fn(value))
    except (ValueError, OverflowError, ZeroDivisionError):
        return NAN
    return result


class Executor:
    """One construction being built; `execute` runs one parsed line against it."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self.construction = Construction()
        self.objects = self.construction.objects
        self.definitions: dict[str, _Definition] = {}
        self.order: list[_Definition] = []
        self._reads: set[str] = set()
        self._locals: dict[str, Value] = {}
        self._cpu_deadline = time.thread_time() + self.limits.max_seconds
        self._elements = 0
        self._intersections: dict[tuple[str, ...], list[str]] = {}

    # --- the Context protocol the commands use --------------------------------------------

    def lookup_point(self, label: str) -> GeoPoint | None:
        geo = self.objects.get(label)
        return geo if isinstance(geo, GeoPoint) else None

    def label_of(self, geo: Geo) -> str | None:
        return geo.label if geo.label in self.objects else None

    @property
    def max_sequence(self) -> int:
        return self.limits.max_sequence

    def check_limits(self, created: int = 0) -> None:
        if time.thread_time() > self._cpu_deadline:
            raise LimitReached(f"CPU time limit of {self.limits.max_seconds:g} s reached")
        if len(self.objects) + created > self.limits.max_objects:
            raise LimitReached(f"more than {self.limits.max_objects} objects")

    # --- running --------------------------------------------------------------------------

    def run_lines(self, parsed: Sequence[sx.ParsedLine], block: int = 0) -> None:
        for entry in parsed:
            if isinstance(entry, sx.ParseError):
                self.construction.lines.append(
                    LineStatus(
                        entry.line,
                        entry.source,
                        False,
                        f"column {entry.col}: {entry.message}",
                        [],
                        block,
                    )
                )
                continue
            self.construction.lines.append(self.execute(entry, block))

    def execute(self, stmt: sx.Statement, block: int = 0) -> LineStatus:
        status = LineStatus(stmt.line, stmt.source, True, None, [], block)
        if self._stopped:
            status.ok, status.error = False, "not run: a limit was reached on an earlier line"
            return status
        try:
            self.check_limits()
            status.labels = self._run_statement(stmt)
        except LimitReached as exc:
            self._stopped = True
            status.ok, status.error = False, str(exc)
        except (ScriptError, CommandError) as exc:
            status.ok, status.error = False, str(exc)
        except RecursionError:
            status.ok, status.error = False, "expression nested too deeply"
        except (ArithmeticError, ValueError) as exc:  # extreme numbers (1e308°, inf): this line's failure
            status.ok, status.error = False, f"cannot compute this line's values ({type(exc).__name__}: {exc})"
        return status

    _stopped = False

    def _run_statement(self, stmt: sx.Statement) -> list[str]:
        deps: set[str] = set()
        self._reads = deps
        key = _intersection_key(stmt)
        if key is not None and not stmt.labels:
            # An unlabelled Intersect(a, b) of a pair already intersected names no new points:
            # GeoGebra reuses the existing intersection and returns its points.
            existing = self._intersections.get(key)
            if existing and all(label in self.objects for label in existing):
                return list(existing)
        value = self.evaluate(stmt.expr)
        if isinstance(value, ViewCommand):
            # `fixed = SetFixed(c, true)`: GeoGebra 4.0 runs the command and names nothing.
            value.apply(self)
            return []
        outputs, naming, names = self._outputs(value, stmt)
        assigned = False
        for label in stmt.labels:
            if label not in self.objects:
                continue  # a new label cannot be part of a cycle
            if label in deps or any(label in self._depends_on(d) for d in deps):
                current = self.objects.get(label)
                if (
                    current is not None and current.independent and len(outputs) == 1
                    and isinstance(current, _VALUE_ASSIGNABLE)
                ):
                    # GeoGebra sets a free number, angle, point, vector or boolean to the
                    # expression's current value instead (A = B + (1, 0) where B depends on A
                    # moves A once; A stays free, so it can be moved again). Texts and lists
                    # are refused as circular.
                    deps = set()
                    assigned = True
                    break
                raise ScriptError(f"Circular definition: {label} would depend on itself")
        renamed_polygon = False
        for label in stmt.labels:
            if label in self.objects:
                renamed_polygon |= self._release(label, deps)
        if renamed_polygon and naming == "main":
            # A redefined polygon's new sides and vertices take plain automatic labels.
            names = names[:1]
        if len(outputs) == 1 and len(stmt.labels) == 1:  # the common case, kept short
            indices, kept, labels = [0], outputs, list(stmt.labels)
        else:
            indices = list(range(len(outputs)))
            if len(stmt.labels) <= 1 and naming == "indexed" and len(outputs) > 1:
                # GeoGebra labels only the intersection points that exist (the first if
                # none); one point left takes a given label as it is (T, not T_1).
                indices = [i for i, geo in enumerate(outputs) if geo.defined] or [0]
            kept = [outputs[i] for i in indices]
            kept_names: list[NameRule] = [names[i] if i < len(names) else None for i in indices]
            labels = self._labels_for(kept, naming, kept_names, stmt.labels)
        if len(self.objects) + len(kept) > self.limits.max_objects:
            raise LimitReached(f"more than {self.limits.max_objects} objects")
        definition = _Definition(
            labels, stmt.expr, deps, stmt.line, indices=indices, moved=isinstance(value, Moved)
        )
        changed: set[str] = set()
        for label, geo in zip(labels, kept, strict=True):
            if label in self.objects:
                if assigned:
                    geo.independent = True
                self._replace(label, geo)
                changed.add(label)
            else:
                geo.label = label
                geo.independent = not deps and not isinstance(stmt.expr, sx.Call)
                self.objects[label] = geo
                self.construction.created_at[label] = stmt.line
        if len(kept) > 1:
            self._after_create(kept, labels)
        for label in labels:
            old = self.definitions.get(label)
            if old is not None and old in self.order and old is not definition:
                old.labels = [x for x in old.labels if x != label]
                if not old.labels:
                    self.order.remove(old)
            self.definitions[label] = definition
        self.order.append(definition)
        if key is not None:
            self._intersections.setdefault(key, labels)
        if changed:
            self._recompute(changed)
        return labels

    def _release(self, label: str, reads: set[str]) -> bool:
        """Free `label`, one of several objects a command made, before it is redefined.

        GeoGebra 4 then removes the objects made with it (the other intersection points, a
        polygon's other sides) and whatever depends on them. A polygon side or vertex that
        other objects use cannot be redefined at all. Returns whether `label` was a polygon
        whose sides went (the new ones take fresh labels).
        """
        group = self.definitions.get(label)
        if group is None or len(group.labels) < 2:
            return False
        main = self.objects.get(group.labels[0])
        part_of_polygon = isinstance(main, GeoPolygon) and label != group.labels[0]
        geo = self.objects[label]
        if part_of_polygon and group.moved and isinstance(geo, GeoPoint):
            return False  # a copy's vertex is its own object: redefined like any other
        kinds = {type(self.objects.get(x)) for x in group.labels}
        if not isinstance(main, GeoPolygon) and len(kinds) > 1:
            return False  # Segment(A, 3)'s end point and the like are objects of their own
        siblings = [x for x in group.labels if x != label]
        if part_of_polygon and isinstance(geo, GeoPoint):
            # A vertex Polygon(A, B, n) made: GeoGebra drops the polygon with it, then
            # cannot rebuild the point.
            polygon = group.labels[0]
            for name in list(group.labels):
                self.delete(name)
            raise ScriptError(f"Redefinition failed: {label} is a vertex made by polygon {polygon}")
        if part_of_polygon and any(label in d.deps for d in self.order if d is not group):
            raise ScriptError(
                f"Redefinition failed: {label} is a side of polygon {group.labels[0]} "
                "and other objects depend on it"
            )
        doomed = self._dependents(set(siblings if not part_of_polygon else group.labels))
        doomed.discard(label)
        if reads & doomed:
            raise ScriptError(
                f"Redefinition failed: redefining {label} removes "
                f"{', '.join(sorted(reads & doomed))}, which the new definition uses"
            )
        for name in doomed:
            self._forget(name)
        group.labels = [label]
        return isinstance(main, GeoPolygon) and not part_of_polygon

    def _after_create(self, outputs: list[Geo], labels: list[str]) -> None:
        """Record the labels a transformed copy needs: a polygon's vertices and sides, a
        segment's end points (GeoGebra's copies are named A', a', …)."""
        pairs = list(zip(outputs, labels, strict=True))
        if outputs and isinstance(outputs[0], GeoPolygon):
            polygon = self.objects[labels[0]]
            assert isinstance(polygon, GeoPolygon)
            sides = [lab for geo, lab in pairs if isinstance(geo, GeoSegment)]
            polygon.side_labels = list(sides)
            new_points = [lab for geo, lab in pairs if isinstance(geo, GeoPoint)]
            if not polygon.vertex_labels:
                polygon.vertex_labels = list(new_points)  # a transformed copy's vertices
            elif new_points and len(polygon.vertex_labels) == 2:
                polygon.vertex_labels = [*polygon.vertex_labels, *new_points]
            vertices = polygon.vertex_labels
            for i, label in enumerate(sides):
                side = self.objects[label]
                if isinstance(side, GeoSegment) and len(vertices) == len(sides):
                    side.endpoint_labels = (vertices[i], vertices[(i + 1) % len(vertices)])
        elif (
            len(outputs) == 2
            and isinstance(outputs[0], GeoSegment)
            and isinstance(outputs[1], GeoPoint)
        ):
            segment = self.objects[labels[0]]
            assert isinstance(segment, GeoSegment)
            segment.endpoint_labels = (segment.endpoint_labels[0], labels[1])

    # --- labels ---------------------------------------------------------------------------

    def _outputs(
        self, value: Value, stmt: sx.Statement
    ) -> tuple[list[Geo], str, Sequence[NameRule]]:
        if isinstance(value, Moved):
            return self._moved_outputs(value)
        if isinstance(value, Outputs):
            return value.geos, value.naming, value.names
        geo = self._as_geo(value, stmt)
        return [geo], "indexed", []

    def _moved_outputs(self, moved: Moved) -> tuple[list[Geo], str, list[NameRule]]:
        """A transformed object plus, as in GeoGebra, copies of a polygon's vertices and
        sides and of a segment's end points, named with a prime."""
        source, transform = moved.source, moved.transform
        main = transform.apply(source)
        names: list[NameRule] = [_primed(source.label)]
        geos = [main]
        if isinstance(source, GeoPolygon):
            assert isinstance(main, GeoPolygon)
            vertex_names = [_primed(v) for v in source.vertex_labels]
            for vertex, name in zip(main.vertices, vertex_names, strict=False):
                geos.append(GeoPoint(*vertex))
                names.append(name)
            count = len(main.vertices)
            first_vertex = 1
            for i in range(count):
                side = GeoSegment(main.vertices[i], main.vertices[(i + 1) % count])
                geos.append(side)
                # The copy's sides are named from its own new vertex labels, like any polygon.
                names.append(_side_name(first_vertex, i, count, len(vertex_names)))
        elif isinstance(source, GeoSegment) and all(source.endpoint_labels):
            assert isinstance(main, GeoSegment)
            geos += [GeoPoint(*main.start), GeoPoint(*main.end)]
            names += [_primed(label) for label in source.endpoint_labels]
        return geos, "main", names

    def _labels_for(
        self, outputs: list[Geo], naming: str, names: list[NameRule], given: tuple[str, ...]
    ) -> list[str]:
        labels: list[str] = []
        taken: set[str] = set(self.objects)

        def claim(name: str) -> None:
            labels.append(name)
            taken.add(name)

        for index, geo in enumerate(outputs):
            name = names[index] if index < len(names) else None
            if callable(name):
                name = name(labels)
            if index < len(given) and (len(given) > 1 or len(outputs) == 1 or naming == "main"):
                claim(given[index])
            elif given and len(given) == 1 and naming == "indexed" and len(outputs) > 1:
                claim(indexed_label(given[0], index + 1))
            elif name:
                claim(free_label(name, taken))
            else:
                claim(next_label(geo, taken))
        return labels

    def _as_geo(self, value: Value, stmt: sx.Statement) -> Geo:
        if (
            isinstance(value, GeoPoint)
            and isinstance(stmt.expr, sx.PointLit)
            and stmt.labels
            and stmt.labels[0][:1].islower()
        ):
            return GeoVector(value.x, value.y)  # GeoGebra: `u = (1, 2)` is a vector
        if isinstance(value, Sym):
            if value.has("y"):
                raise ScriptError("Invalid input: an expression in x and y needs '= …'")
            if stmt.labels and _mentions_xy(stmt.expr):
                # GeoGebra 4.0 reads `a = 2x + 1` as an equation in a, x and y.
                raise ScriptError(
                    "Invalid equation: Please enter a polynomial equation in x and y "
                    f"(Undefined variable {stmt.labels[0]}; write {stmt.labels[0]}(x) = …)"
                )
            return GeoFunction(value)
        if isinstance(value, Geo):
            if value.label is not None:  # `B = A`: a dependent copy, not the same object
                value = copy.copy(value)
                value.label = None
                value.style = Style()
            return value
        if isinstance(value, bool):
            return GeoBoolean(value)
        if isinstance(value, AngleValue):
            return GeoAngle(float(value) % (2 * math.pi))
        if isinstance(value, (int, float)):
            return GeoNumber(float(value))
        if isinstance(value, str):
            return GeoText(value)
        if isinstance(value, list):
            return GeoList([self._element(v, stmt) for v in value])
        raise ScriptError(f"cannot store a {type(value).__name__}")

    def _element(self, value: Value, stmt: sx.Statement) -> Geo:
        if isinstance(value, Geo):
            return value
        return self._as_geo(value, stmt)

    # --- dependencies ---------------------------------------------------------------------

    def _depends_on(self, label: str, seen: set[str] | None = None) -> set[str]:
        """Every label `label` is computed from, transitively."""
        seen = set() if seen is None else seen
        definition = self.definitions.get(label)
        if definition is None:
            return seen
        for dep in definition.deps:
            if dep not in seen:
                seen.add(dep)
                self._depends_on(dep, seen)
        return seen

    def _replace(self, label: str, geo: Geo) -> None:
        old = self.objects[label]
        if type(old) is type(geo):
            old.assign(geo)
            old.independent = geo.independent
        else:
            geo.label = label
            geo.style = old.style
            self.objects[label] = geo

    def _recompute(self, changed: set[str]) -> None:
        """Recompute, in construction order, every definition that reads a changed label."""
        for definition in list(self.order):
            if not (definition.deps & changed):
                continue
            self.check_limits()
            self._reads = set()
            try:
                value = self.evaluate(definition.expr)
                produced = self._outputs(value, _stub(definition))[0]
                outputs = [produced[i] for i in definition.indices if i < len(produced)]
            except (ScriptError, CommandError):
                outputs = [type(self.objects[label])() for label in definition.labels]
            for label, geo in zip(definition.labels, outputs, strict=False):
                if label in self.objects:
                    if isinstance(geo, GeoPolygon):
                        old = self.objects[label]
                        geo.side_labels = getattr(old, "side_labels", [])
                        geo.vertex_labels = getattr(old, "vertex_labels", geo.vertex_labels)
                    self._replace(label, geo)
                    changed.add(label)

    def delete(self, label: str) -> None:
        """Delete an object and everything computed from it (GeoGebra's Delete)."""
        for name in self._dependents({label}):
            self._forget(name)

    def _dependents(self, labels: set[str]) -> set[str]:
        """`labels` and every label computed from them, transitively."""
        doomed = set(labels)
        for definition in self.order:
            if definition.deps & doomed:
                doomed.update(definition.labels)
        return doomed

    def _forget(self, name: str) -> None:
        self.objects.pop(name, None)
        self.construction.created_at.pop(name, None)
        definition = self.definitions.pop(name, None)
        if definition is not None and name in definition.labels:
            definition.labels = [x for x in definition.labels if x != name]
            if not definition.labels and definition in self.order:
                self.order.remove(definition)

    # --- expressions ----------------------------------------------------------------------

    def evaluate(self, node: sx.Expr) -> Value:
        kind = type(node)  # the common nodes first: this runs for every node of every line
        if kind is sx.Call:
            return self._call(node)  # type: ignore[arg-type]
        if kind is sx.Name:
            return self._lookup(node.name)  # type: ignore[union-attr]
        if kind is sx.Num or kind is sx.Str or kind is sx.Bool:
            return node.value  # type: ignore[union-attr]
        if isinstance(node, sx.Const):
            return math.pi
        if isinstance(node, sx.PointLit):
            x, y = self.evaluate(node.x), self.evaluate(node.y)
            if not (cmds.is_number(x) and cmds.is_number(y)):
                raise ScriptError("a point's coordinates must be numbers")
            if node.polar:  # (r; θ): θ in radians unless written with °
                r, theta = cmds.num(x), cmds.num(y)
                return GeoPoint(r * math.cos(theta), r * math.sin(theta), polar=True)
            return GeoPoint(cmds.num(x), cmds.num(y))
        if isinstance(node, sx.ListLit):
            if len(node.items) > self.limits.max_sequence:
                raise LimitReached(f"a list of more than {self.limits.max_sequence} elements")
            return [self.evaluate(item) for item in node.items]
        if isinstance(node, sx.Neg):
            return _negate(self.evaluate(node.operand))
        if isinstance(node, sx.Not):
            value = self.evaluate(node.operand)
            if not isinstance(value, (bool, GeoBoolean)):
                raise ScriptError(f"! negates a boolean, not {cmds._kind(value)}")
            return not cmds.boolean(value)
        if isinstance(node, sx.Degrees):
            value = self.evaluate(node.operand)
            if not cmds.is_number(value):
                raise ScriptError("° applies to numbers only")
            return AngleValue(cmds.num(value) * math.pi / 180)
        if isinstance(node, sx.BinOp):
            return _binop(node.op, self.evaluate(node.left), self.evaluate(node.right))
        if isinstance(node, sx.Equation):
            return self._equation(node)
        if isinstance(node, sx.FunctionDef):
            return self._function(node)
        raise ScriptError(f"unsupported expression {type(node).__name__}")

    def _symbolic(self, node: sx.Expr) -> Sym | float:
        value = _settle(self.evaluate(node))
        if isinstance(value, GeoFunction) and value.body is not None:
            return value.body
        if isinstance(value, Sym):
            return value
        if cmds.is_number(value):
            return cmds.num(_as_number(value))
        raise ScriptError(
            f"Invalid equation: Please enter a polynomial equation in x and y ({cmds._kind(value)})"
        )

    def _equation(self, node: sx.Equation) -> Geo:
        """`lhs = rhs`: a line (degree 1), circle or conic (2), implicit curve (else), or, for
        `y = <expression in x>` that is no line or conic, a function, as GeoGebra 4.0 reads it."""
        left = self._symbolic(node.left)
        right = self._symbolic(node.right)
        if (
            isinstance(node.left, sx.Name)
            and node.left.name == "y"
            and not (isinstance(right, Sym) and right.has("y"))
        ):
            explicit = alg.to_poly(alg.lift(right).node)
            if explicit is None or alg.degree(explicit) > 2:
                return GeoFunction(alg.lift(right))
        poly = alg.to_poly(alg.combine("-", left, right).node)
        if poly is None:
            raise ScriptError("Invalid equation: Please enter a polynomial equation in x and y")
        poly = alg.clean(poly)
        if not all(math.isfinite(v) for v in poly.values()):
            return GeoImplicitPoly({(0, 0): NAN})
        degree = alg.degree(poly)
        if degree == 1:
            return conics.line_from_abc(
                poly.get((1, 0), 0.0), poly.get((0, 1), 0.0), poly.get((0, 0), 0.0)
            )
        if degree == 2:
            matrix = conics.from_poly(poly)
            if conics.classify(matrix) == "circle":
                cx, cy = conics.center(matrix)
                a2 = matrix[2] + matrix[4] * cx + matrix[5] * cy
                return GeoCircle((cx, cy), math.sqrt(-a2 / matrix[0]))
            return GeoConic(matrix)
        return GeoImplicitPoly(poly)

    def _function(self, node: sx.FunctionDef) -> GeoFunction:
        """`f(x) = body` (or `f(x, y) = body`): the body with its variables left symbolic
        (as x, and y)."""
        names = node.var.split(",")
        saved = {name: self._locals.get(name) for name in names}
        for name, symbol in zip(names, (alg.X, alg.Y), strict=False):
            self._locals[name] = symbol
        try:
            body = self._symbolic(node.body)
        finally:
            for name, old in saved.items():
                if old is None:
                    self._locals.pop(name, None)
                else:
                    self._locals[name] = old
        if len(names) == 2:
            return GeoFunctionNVar(alg.lift(body), node.var)
        if isinstance(body, Sym) and body.has("y"):
            raise ScriptError("Invalid function: a function of x cannot use y")
        return GeoFunction(alg.lift(body), node.var)

    def _lookup(self, name: str) -> Value:
        if name in self._locals:
            return self._locals[name]
        geo = self.objects.get(name)
        if geo is None:
            if name == "x":
                return alg.X
            if name == "y":
                return alg.Y
            if name in _AXES:
                return _AXES[name]()
            raise ScriptError(f"Undefined variable: {name}")
        self._reads.add(name)
        return geo

    def _call(self, node: sx.Call) -> Value:
        name = node.name
        if name not in MATH and name not in ("x", "y"):
            name = _COMMAND_NAMES.get(name.lower(), name)  # GeoGebra ignores case here
        if name in MATH or name in ("x", "y"):
            if len(node.args) != 1:
                raise ScriptError(f"{name}() takes one argument")
            arg = self.evaluate(node.args[0])
            if name in ("x", "y"):
                if isinstance(arg, (GeoPoint, GeoVector)):
                    return arg.x if name == "x" else arg.y
                raise ScriptError(f"{name}(): expected a point or a vector")
            if isinstance(arg, Sym) and name in MATH:
                return alg.apply(name, arg)
            if isinstance(arg, GeoFunction) and arg.body is not None and name in MATH:
                return alg.apply(name, arg.body)
            if not cmds.is_number(arg):
                raise ScriptError(f"{name}(): expected a number")
            return _safe(MATH[name], cmds.num(arg))
        if node.name in self.objects or node.name in self._locals:
            return self._call_label(node)
        if name == "Sequence" and len(node.args) in (4, 5):
            return self._sequence(node)
        if name in STYLE_COMMANDS:
            return STYLE_COMMANDS[name](self, [self.evaluate(a) for a in node.args])
        if name == "Sum" and len(node.args) == 1:
            items = self.evaluate(node.args[0])
            items = items.elements if isinstance(items, GeoList) else items
            if not isinstance(items, list) or not all(cmds.is_number(i) for i in items):
                raise ScriptError("Sum: expected a list of numbers")
            return float(sum(cmds.num(i) for i in items))
        command = COMMANDS.get(name)
        if command is None:
            hint = _suggest(name)
            raise ScriptError(
                f"Unknown command: {name}" + (f" (GeoGebra has {hint})" if hint else "")
            )
        args = [_as_function(_settle(self.evaluate(a))) for a in node.args]
        for arg in args:
            if isinstance(arg, Geo) and not arg.defined and not isinstance(arg, (GeoList, GeoText)):
                return _undefined_like(command, self, args)
        return command(self, args)

    def _call_label(self, node: sx.Call) -> Value:
        """`f(2)` evaluates a function, `f(x + 1)` composes it; `a(2)` with a number `a` is
        GeoGebra's product a·2."""
        target = self._lookup(node.name)
        if isinstance(target, GeoFunctionNVar) and len(node.args) == 2:
            x, y = (_settle(self.evaluate(a)) for a in node.args)
            if not (cmds.is_number(x) and cmds.is_number(y)):
                raise ScriptError(f"{node.name}(): expected two numbers")
            return target(cmds.num(x), cmds.num(y))
        if len(node.args) != 1 or isinstance(target, GeoFunctionNVar):
            raise ScriptError(f"Unknown command: {node.name}")
        arg = _settle(self.evaluate(node.args[0]))
        if isinstance(target, GeoFunction):
            if target.body is None:
                return NAN
            if isinstance(arg, GeoFunction) and arg.body is not None:
                arg = arg.body
            if isinstance(arg, Sym):
                return alg.substitute(target.body, arg)
            if cmds.is_number(arg):
                return target(cmds.num(arg))
            raise ScriptError(f"{node.name}(): expected a number")
        return _binop("*", target, arg)

    def _sequence(self, node: sx.Call) -> Value:
        expr, var_node, *bounds = node.args
        if not isinstance(var_node, sx.Name):
            raise ScriptError("Sequence: the second argument must be a variable name")
        numbers = [self.evaluate(b) for b in bounds]
        if not all(cmds.is_number(v) for v in numbers):
            raise ScriptError("Sequence: the bounds must be numbers")
        start, end, *step = (cmds.num(v) for v in numbers)
        values = cmds.sequence_values(
            start, end, step[0] if step else 1.0, self.limits.max_sequence
        )
        self._elements += len(values)
        if self._elements > self.limits.max_elements:
            raise LimitReached(f"Sequence: more than {self.limits.max_elements} list elements in the script")
        saved = self._locals.get(var_node.name)
        out: list[Value] = []
        try:
            for value in values:
                self.check_limits()
                self._locals[var_node.name] = value
                out.append(self.evaluate(expr))
        finally:
            if saved is None:
                self._locals.pop(var_node.name, None)
            else:
                self._locals[var_node.name] = saved
        return out


def _undefined_like(command: Callable[..., Value], ctx: Executor, args: list[Value]) -> Value:
    """An undefined input gives undefined results of the right kinds, not an error."""
    probe: list[Value] = []
    for arg in args:
        if isinstance(arg, GeoPoint) and not arg.defined:
            probe.append(GeoPoint(0.0, 0.0))
        elif isinstance(arg, Geo) and not arg.defined:
            probe.append(_defined_stand_in(arg))
        else:
            probe.append(arg)
    try:
        result = command(ctx, probe)
    except (CommandError, ScriptError, ZeroDivisionError, ValueError):
        raise CommandError("undefined argument") from None
    if isinstance(result, Outputs):
        result.geos = [type(g)() for g in result.geos]
        return result
    if isinstance(result, Moved):
        return Moved(type(result.source)(), result.transform)
    if isinstance(result, Geo):
        return type(result)()
    return NAN


def run_script(text: str, *, limits: Limits | None = None) -> Construction:
    """Run a script or a whole answer (its fenced blocks, in order) into a construction."""
    limits = limits or Limits()
    if len(text) > limits.max_script_chars:
        raise sx.ScriptTooLarge(
            0, 0, f"script has {len(text)} characters; the limit is {limits.max_script_chars}"
        )
    blocks = split_blocks(text)
    executor = Executor(limits)
    total_lines = 0
    syntax_limits = limits.syntax()
    for index, (offset, block) in enumerate(blocks):
        parsed = sx.parse_script(block, limits=syntax_limits)
        total_lines += len(parsed)
        if total_lines > limits.max_lines:
            raise sx.ScriptTooLarge(0, 0, f"more than {limits.max_lines} lines")
        if offset:
            parsed = [_shift(entry, offset) for entry in parsed]
        executor.run_lines(parsed, block=index)
    executor.construction.blocks = len(blocks)
    return executor.construction


def run_blocks(blocks: Sequence[str], *, limits: Limits | None = None) -> Construction:
    """Run several command blocks (a construction's steps) as one script, numbering lines
    continuously, so step snapshots can show the figure after each block."""
    text = "\n".join(f"```geogebra\n{block}\n```" for block in blocks)
    return run_script(text, limits=limits)

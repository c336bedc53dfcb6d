// geomeval's reference harness: runs GeoGebra 4.0 scripts headless through the real geogebra.jar
// (Debian package `geogebra`, 4.0.34) and prints every object's value as JSON.
//
// Build and run (the Python wrapper geomeval.geogebra.reference does this):
//   javac -cp geogebra.jar -d CLASSDIR GeomevalHarness.java
//   java -Djava.awt.headless=true -cp geogebra.jar:CLASSDIR GeomevalHarness
//
// Protocol: stdin and stdout are UTF-8 JSON lines. After start-up the harness prints one line
// {"ready": true, "version": "..."}; then, for each input line
//   {"id": ..., "lines": ["A=(0,0)", "Circle[A, 2]", ...]}
// it clears the construction (a fresh file: auto-labels restart), runs the lines in order and
// prints one line {"id": ..., "lines": [...per-line status...], "objects": [...]}.
// A request may also carry "export": {"width": w, "height": h, "window": [xmin, xmax, ymin, ymax]
// or null, "axes": true/false/null, "grid": true/false/null}; the result then also holds "png"
// (base64) and "window": GeoGebra's own drawing of the construction (its EuclidianView, exported
// as File > Export > Graphics View as Picture does, at scale 1), in the given window, or with a
// null window fitted to the visible objects (as Show All Objects, without its animation) keeping
// one unit on both axes; axes and grid as given, or GeoGebra's defaults where null. An export
// that fails sets "export_error" instead.
// {"cmd": "quit"} (or end of input) stops it. A line the harness cannot parse gets
// {"id": null, "error": "..."}. Nothing but these lines is ever written to stdout: GeoGebra's
// own chatter (it prints to System.out) is sent to stderr.
//
// Headless start-up: geogebra.main.Application always wants a GUI in 4.0 (hasGui is true for
// a non-applet), asks the screen for its size and redirects System.out/err into a log file
// when it runs from a jar. HeadlessApp below avoids all three: the static screen-size cache
// and the runningFromJar flag are filled in by reflection before the constructor runs, and
// hasGui is switched off from initImageManager, the first overridable method the constructor
// calls before it looks at hasGui. The kernel, construction and (never shown) EuclidianView
// are then the real ones; error dialogs are overridden to record their message instead.

import geogebra.kernel.Construction;
import geogebra.kernel.GeoAngle;
import geogebra.kernel.GeoBoolean;
import geogebra.kernel.GeoConic;
import geogebra.kernel.GeoConicPart;
import geogebra.kernel.GeoElement;
import geogebra.kernel.GeoLine;
import geogebra.kernel.GeoList;
import geogebra.kernel.GeoNumeric;
import geogebra.kernel.GeoPoint;
import geogebra.kernel.GeoPolygon;
import geogebra.kernel.GeoRay;
import geogebra.kernel.GeoSegment;
import geogebra.kernel.GeoText;
import geogebra.kernel.GeoVector;
import geogebra.kernel.Kernel;
import geogebra.kernel.kernelND.GeoConicND;
import geogebra.kernel.kernelND.GeoPointND;
import geogebra.main.Application;
import geogebra.main.MyError;

import geogebra.euclidian.EuclidianView;

import java.awt.Rectangle;
import java.awt.image.BufferedImage;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

public class GeomevalHarness {

    /** An Application with no GUI manager, no screen and no error dialogs. */
    static final class HeadlessApp extends Application {
        /** Messages GeoGebra wanted to show in a dialog while the current line ran. */
        final List<String> shownErrors = new ArrayList<String>();

        HeadlessApp(java.awt.Container panel) {
            super(new geogebra.CommandLineArguments(new String[0]), panel, false);
        }

        @Override
        protected void initImageManager(java.awt.Component component) {
            // Called by the constructor before it reads hasGui to decide on a GuiManager.
            setPrivate(Application.class, this, "hasGui", Boolean.FALSE);
            super.initImageManager(component);
        }

        @Override
        public void showError(String key) {
            shownErrors.add(safeError(key));
        }

        @Override
        public void showError(String key, String error) {
            shownErrors.add(safeError(key) + (error == null ? "" : ":\n" + error));
        }

        @Override
        public void showError(MyError e) {
            shownErrors.add(e.getLocalizedMessage());
        }

        @Override
        public void showErrorDialog(String msg) {
            shownErrors.add(msg);
        }

        @Override
        public void showMessage(String msg) {
            // Informational popups carry no result; ignore them.
        }

        private String safeError(String key) {
            try {
                return getError(key);
            } catch (Throwable t) {
                return key;
            }
        }
    }

    static void setPrivate(Class<?> cls, Object target, String name, Object value) {
        try {
            Field f = cls.getDeclaredField(name);
            f.setAccessible(true);
            f.set(target, value);
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException("cannot set " + cls.getName() + "." + name, e);
        }
    }

    private final HeadlessApp app;
    private final Kernel kernel;

    GeomevalHarness(HeadlessApp app) {
        this.app = app;
        this.kernel = app.getKernel();
    }

    static HeadlessApp startApplication() {
        Locale.setDefault(Locale.US);
        // Fill the static caches the constructor would otherwise compute from the screen and
        // from the jar location (runningFromJar=true makes it redirect System.out/err to a log).
        Application.getCodeBase();
        setPrivate(Application.class, null, "runningFromJar", Boolean.FALSE);
        setPrivate(Application.class, null, "screenSize", new java.awt.Rectangle(0, 0, 1024, 768));
        javax.swing.JPanel panel = new javax.swing.JPanel();
        panel.setLocale(Locale.US);
        HeadlessApp app = new HeadlessApp(panel);
        app.setLocale(Locale.US);
        // The GUI fills the localized-command table at start-up (for the input bar); without
        // it, English names that differ from the internal ones (CircularArc = CircleArc) are
        // unknown until some error message happens to fill the table.
        app.initTranslatedCommands();
        return app;
    }

    /** A fresh construction, as File > New would leave it. */
    void reset() {
        kernel.clearConstruction();
        try {
            kernel.initUndoInfo();
        } catch (Throwable ignored) {
            // undo is inactive; nothing to reset
        }
        try {
            app.getEuclidianView().resetMaxLayerUsed();
            app.getEuclidianView().resetXYMinMaxObjects();
            // The standard view at once: setStandardView animates it from another thread,
            // which would move the view under a drawing made right after the script.
            app.getEuclidianView().setStandardCoordSystem();
        } catch (Throwable ignored) {
            // the view only matters for drawing
        }
        app.shownErrors.clear();
    }

    Map<String, Object> runScript(Object id, List<?> lines) {
        reset();
        Construction cons = kernel.getConstruction();
        List<Object> lineResults = new ArrayList<Object>();
        int number = 0;
        for (Object raw : lines) {
            number++;
            String line = raw == null ? "" : raw.toString();
            Map<String, Object> res = new LinkedHashMap<String, Object>();
            res.put("line", number);
            Set<String> before = labelSet(cons);
            app.shownErrors.clear();
            String error = null;
            GeoElement[] out = null;
            try {
                out = kernel.getAlgebraProcessor()
                        .processAlgebraCommandNoExceptionHandling(line, false, false, true);
                if (out == null && app.shownErrors.isEmpty()) {
                    error = "no result";
                }
            } catch (MyError e) {
                error = e.getLocalizedMessage();
                if (error == null) {
                    error = e.toString();
                }
            } catch (Throwable t) {
                // GeoGebra wraps its own messages in plain Exceptions (and MyException);
                // anything else (NullPointerException, ...) keeps its class name.
                boolean plain = t.getClass() == Exception.class
                        || t.getClass().getName().startsWith("geogebra.");
                error = plain && t.getMessage() != null ? t.getMessage() : t.toString();
            }
            if (error == null && !app.shownErrors.isEmpty()) {
                error = String.join("\n", app.shownErrors);
            }
            List<Object> labels = new ArrayList<Object>();
            if (out != null) {
                for (GeoElement g : out) {
                    if (g != null && g.isLabelSet()) {
                        labels.add(g.getLabel());
                    }
                }
            }
            Set<String> after = labelSet(cons);
            List<Object> created = new ArrayList<Object>();
            for (String label : after) {
                if (!before.contains(label)) {
                    created.add(label);
                }
            }
            // Labels that vanished: Delete[], or GeoGebra 4.0 renaming existing objects
            // (e.g. X = Intersect[c1, c2] relabels an earlier Intersect[c1, c2]'s points).
            List<Object> removed = new ArrayList<Object>();
            for (String label : before) {
                if (!after.contains(label)) {
                    removed.add(label);
                }
            }
            res.put("ok", error == null);
            res.put("error", error);
            res.put("labels", labels);
            res.put("created", created);
            res.put("removed", removed);
            lineResults.add(res);
        }
        List<Object> objects = new ArrayList<Object>();
        for (GeoElement g : new ArrayList<GeoElement>(cons.getGeoSetConstructionOrder())) {
            if (g.isLabelSet()) {
                objects.add(describe(g, 0));
            }
        }
        Map<String, Object> result = new LinkedHashMap<String, Object>();
        result.put("id", id);
        result.put("lines", lineResults);
        result.put("objects", objects);
        return result;
    }

    // ------------------------------------------------------------------ drawing

    /** Largest picture side the harness draws (a request asking for more is refused). */
    static final int MAX_EXPORT_SIDE = 4096;

    static double[] numbers(Object value, int count) {
        if (!(value instanceof List) || ((List<?>) value).size() != count) {
            return null;
        }
        double[] out = new double[count];
        for (int i = 0; i < count; i++) {
            Object v = ((List<?>) value).get(i);
            if (!(v instanceof Number)) {
                return null;
            }
            out[i] = ((Number) v).doubleValue();
            if (Double.isNaN(out[i]) || Double.isInfinite(out[i])) {
                return null;
            }
        }
        return out;
    }

    /** The graphics view at the export's size (before the script runs too, so that a ZoomIn
     * in it applies to the picture's size). */
    EuclidianView sizeView(Map<?, ?> spec) {
        int width = ((Number) spec.get("width")).intValue();
        int height = ((Number) spec.get("height")).intValue();
        if (width < 16 || height < 16 || width > MAX_EXPORT_SIDE || height > MAX_EXPORT_SIDE) {
            throw new IllegalArgumentException("export size out of range: " + width + "x" + height);
        }
        EuclidianView view = app.getEuclidianView();
        view.setSize(width, height);
        view.updateSize();
        return view;
    }

    /** The current construction drawn by GeoGebra's graphics view, as PNG bytes in base64;
     * "keep": true draws it in the view the script left (its ZoomIn). */
    void export(Map<?, ?> spec, Map<String, Object> result) {
        try {
            int width = ((Number) spec.get("width")).intValue();
            int height = ((Number) spec.get("height")).intValue();
            EuclidianView view = sizeView(spec);
            Object axes = spec.get("axes");
            if (axes instanceof Boolean) {
                view.setShowAxes((Boolean) axes, false);
            }
            Object grid = spec.get("grid");
            if (grid instanceof Boolean) {
                view.showGrid((Boolean) grid);
            }
            double[] window = numbers(spec.get("window"), 4);
            if (window == null && !Boolean.TRUE.equals(spec.get("keep"))) {
                window = fittedWindow(view, width, height);
            }
            if (window != null) {
                view.setRealWorldCoordSystem(window[0], window[1], window[2], window[3]);
            }
            view.updateAllDrawables(true);
            // getExportImage(1.0) without its screen-compatible image, which headless Java refuses
            BufferedImage image = new BufferedImage(view.getExportWidth(), view.getExportHeight(),
                    BufferedImage.TYPE_INT_RGB);
            java.awt.Graphics2D g2 = image.createGraphics();
            try {
                view.exportPaint(g2, 1.0, false);
            } finally {
                g2.dispose();
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            javax.imageio.ImageIO.write(image, "png", bytes);
            result.put("png", java.util.Base64.getEncoder().encodeToString(bytes.toByteArray()));
            List<Object> used = new ArrayList<Object>();
            used.add(view.getXmin());
            used.add(view.getXmax());
            used.add(view.getYmin());
            used.add(view.getYmax());
            result.put("window", used);
            int drawn = 0;
            for (GeoElement g : kernel.getConstruction().getGeoSetConstructionOrder()) {
                try {
                    if (g.isLabelSet() && g.isDefined() && g.isEuclidianVisible()) {
                        drawn++;
                    }
                } catch (Throwable ignored) {
                    // an object that cannot say is not counted
                }
            }
            result.put("drawn_objects", drawn);
        } catch (Throwable t) {
            result.put("export_error", t.toString());
        }
    }

    /** The real-world window around every visible bounded object (points, segments, polygon
     * vertices, circles, ellipses and their arcs; lines and other unbounded curves show in any
     * window) with a 10% margin on each side and one unit on both axes, widened on its short
     * side to the picture's aspect ratio: GeoGebra's Show All Objects, which animates its zoom
     * from another thread, done at once. Null when nothing bounded is visible. */
    double[] fittedWindow(EuclidianView view, int width, int height) {
        double[] box = {Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
                        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
        for (GeoElement g : kernel.getConstruction().getGeoSetConstructionOrder()) {
            boolean shown;
            try {
                shown = g.isEuclidianVisible() && g.isDefined() && g.isLabelSet();
            } catch (Throwable t) {
                shown = false;
            }
            if (!shown) {
                continue;
            }
            if (g instanceof GeoPoint) {
                GeoPoint q = (GeoPoint) g;
                if (!q.isInfinite()) {
                    include(box, q.getInhomX(), q.getInhomY(), 0);
                }
            } else if (g instanceof GeoSegment) {
                GeoSegment seg = (GeoSegment) g;
                include(box, seg.getStartPoint().getInhomX(), seg.getStartPoint().getInhomY(), 0);
                include(box, seg.getEndPoint().getInhomX(), seg.getEndPoint().getInhomY(), 0);
            } else if (g instanceof GeoPolygon) {
                for (GeoPointND v : ((GeoPolygon) g).getPoints()) {
                    if (v instanceof GeoPoint && ((GeoPoint) v).isDefined() && !((GeoPoint) v).isInfinite()) {
                        include(box, ((GeoPoint) v).getInhomX(), ((GeoPoint) v).getInhomY(), 0);
                    }
                }
            } else if (g instanceof GeoConicND) {
                GeoConicND c = (GeoConicND) g;
                int type = c.getType();
                geogebra.Matrix.Coords mid = c.getMidpoint2D();
                if (type == GeoConicND.CONIC_CIRCLE) {
                    include(box, mid.getX(), mid.getY(), c.getCircleRadius());
                } else if (type == GeoConicND.CONIC_ELLIPSE) {
                    double[] h = c.getHalfAxes();
                    include(box, mid.getX(), mid.getY(), Math.max(h[0], h[1]));
                }
            }
        }
        if (!(box[0] <= box[1]) || !(box[2] <= box[3])) {
            return null;
        }
        double spanX = box[1] - box[0];
        double spanY = box[3] - box[2];
        double span = Math.max(Math.max(spanX, spanY), 1e-6);
        spanX = Math.max(spanX, span * 1e-3) * 1.2;
        spanY = Math.max(spanY, span * 1e-3) * 1.2;
        double aspect = (double) width / height;
        if (spanX / spanY < aspect) {
            spanX = spanY * aspect;
        } else {
            spanY = spanX / aspect;
        }
        double cx = (box[0] + box[1]) / 2;
        double cy = (box[2] + box[3]) / 2;
        return new double[] {cx - spanX / 2, cx + spanX / 2, cy - spanY / 2, cy + spanY / 2};
    }

    static void include(double[] box, double x, double y, double r) {
        if (Double.isNaN(x) || Double.isNaN(y) || Double.isNaN(r) || Double.isInfinite(x)
                || Double.isInfinite(y) || Double.isInfinite(r) || Math.abs(x) + r > 1e9 || Math.abs(y) + r > 1e9) {
            return;
        }
        box[0] = Math.min(box[0], x - r);
        box[1] = Math.max(box[1], x + r);
        box[2] = Math.min(box[2], y - r);
        box[3] = Math.max(box[3], y + r);
    }

    static Set<String> labelSet(Construction cons) {
        Set<String> labels = new LinkedHashSet<String>();
        for (GeoElement g : cons.getGeoSetConstructionOrder()) {
            if (g.isLabelSet()) {
                labels.add(g.getLabel());
            }
        }
        return labels;
    }

    // ------------------------------------------------------------------ object description

    /** Where functions are sampled (geomeval.geogebra.objects.FUNCTION_SAMPLES too). */
    static final double[] FUNCTION_SAMPLES = {-2.7, -1.3, -0.45, 0.35, 1.15, 2.6};

    static final String[] CONIC_TYPES = {
        "unknown", "single_point", "intersecting_lines", "ellipse", "circle", "hyperbola",
        "empty", "double_line", "parallel_lines", "parabola", "line"
    };

    static String conicTypeName(int type) {
        return type >= 0 && type < CONIC_TYPES.length ? CONIC_TYPES[type] : "type_" + type;
    }

    static List<Object> xy(double x, double y) {
        List<Object> p = new ArrayList<Object>();
        p.add(x);
        p.add(y);
        return p;
    }

    static Object pointXY(GeoPointND p) {
        if (!(p instanceof GeoPoint)) {
            return null;
        }
        GeoPoint q = (GeoPoint) p;
        if (!q.isDefined()) {
            return null;
        }
        return xy(q.getInhomX(), q.getInhomY());
    }

    Map<String, Object> describe(GeoElement g, int depth) {
        Map<String, Object> o = new LinkedHashMap<String, Object>();
        if (g.isLabelSet()) {
            o.put("label", g.getLabel());
        }
        o.put("class", g.getClass().getSimpleName());
        String type = "other";
        boolean defined;
        try {
            defined = g.isDefined();
        } catch (Throwable t) {
            defined = false;
        }
        if (g instanceof GeoPoint) {
            type = "point";
        } else if (g instanceof GeoSegment) {
            type = "segment";
        } else if (g instanceof GeoRay) {
            type = "ray";
        } else if (g instanceof GeoLine) {
            type = "line";
        } else if (g instanceof GeoVector) {
            type = "vector";
        } else if (g instanceof GeoConicPart) {
            type = "conicpart";
        } else if (g instanceof GeoConic) {
            type = "conic";
        } else if (g instanceof GeoPolygon) {
            type = "polygon";
        } else if (g instanceof GeoAngle) {
            type = "angle";
        } else if (g instanceof GeoNumeric) {
            type = "numeric";
        } else if (g instanceof GeoText) {
            type = "text";
        } else if (g instanceof GeoBoolean) {
            type = "boolean";
        } else if (g instanceof GeoList) {
            type = "list";
        } else if (g instanceof geogebra.kernel.GeoFunction) {
            type = "function";
        } else if (g instanceof geogebra.kernel.GeoCurveCartesian) {
            type = "curve";
        } else if (g instanceof geogebra.kernel.GeoFunctionNVar) {
            type = "function2";
        } else if (g instanceof geogebra.kernel.implicit.GeoImplicitPoly) {
            type = "implicitpoly";
        }
        o.put("type", type);
        // GeoGebra calls a point at infinity (parallel lines' Intersect) defined, but shows it
        // as "undefined" and it has no coordinates; report defined=false, infinite=true.
        boolean infinite = defined && g instanceof GeoPoint && ((GeoPoint) g).isInfinite();
        if (infinite) {
            defined = false;
            o.put("infinite", true);
        }
        o.put("defined", defined);
        o.put("independent", safeIndependent(g));
        try {
            if (defined) {
                putValues(o, g, type, depth);
            } else if (g instanceof GeoConicPart) {
                o.put("conic_part_type", partTypeName((GeoConicPart) g));
            } else if (g instanceof GeoList) {
                putList(o, (GeoList) g, depth);
            }
        } catch (Throwable t) {
            o.put("describe_error", t.toString());
        }
        o.put("value_string", safe(() -> g.toValueString()));
        if (depth == 0) {
            // Elements of a list would only repeat the list's own definition.
            o.put("definition", safe(() -> g.isIndependent() ? "" : g.getCommandDescription()));
        }
        return o;
    }

    interface StringSupplier {
        String get();
    }

    static String safe(StringSupplier s) {
        try {
            return s.get();
        } catch (Throwable t) {
            return null;
        }
    }

    static boolean safeIndependent(GeoElement g) {
        try {
            return g.isIndependent();
        } catch (Throwable t) {
            return false;
        }
    }

    static String partTypeName(GeoConicPart p) {
        int t = p.getConicPartType();
        if (t == GeoConicPart.CONIC_PART_ARC) {
            return "arc";
        }
        if (t == GeoConicPart.CONIC_PART_SECTOR) {
            return "sector";
        }
        return "type_" + t;
    }

    void putList(Map<String, Object> o, GeoList list, int depth) {
        List<Object> elements = new ArrayList<Object>();
        if (depth < 8) {
            for (int i = 0; i < list.size(); i++) {
                GeoElement e = list.get(i);
                elements.add(e == null ? null : describe(e, depth + 1));
            }
        }
        o.put("elements", elements);
    }

    void putValues(Map<String, Object> o, GeoElement g, String type, int depth) {
        switch (type) {
            case "point": {
                GeoPoint p = (GeoPoint) g;
                o.put("x", p.getInhomX());
                o.put("y", p.getInhomY());
                break;
            }
            case "segment":
            case "ray":
            case "line": {
                GeoLine l = (GeoLine) g;
                o.put("a", l.getX());
                o.put("b", l.getY());
                o.put("c", l.getZ());
                double[] dir = new double[2];
                l.getDirection(dir);
                o.put("direction", xy(dir[0], dir[1]));
                if (!type.equals("line")) {
                    o.put("start", pointXY(l.getStartPoint()));
                    o.put("end", pointXY(l.getEndPoint()));
                } else if (l.getStartPoint() != null) {
                    o.put("start", pointXY(l.getStartPoint()));
                }
                if (g instanceof GeoSegment) {
                    o.put("length", ((GeoSegment) g).getLength());
                }
                break;
            }
            case "vector": {
                GeoVector v = (GeoVector) g;
                o.put("x", v.getX());
                o.put("y", v.getY());
                o.put("start", pointXY(v.getStartPoint()));
                break;
            }
            case "conicpart": {
                GeoConicPart p = (GeoConicPart) g;
                putConic(o, p);
                o.put("conic_part_type", partTypeName(p));
                o.put("param_start", p.getParameterStart());
                o.put("param_end", p.getParameterEnd());
                o.put("param_extent", p.getParameterExtent());
                o.put("value", p.getValue());
                o.put("area", p.getArea());
                break;
            }
            case "conic":
                putConic(o, (GeoConic) g);
                break;
            case "polygon": {
                GeoPolygon poly = (GeoPolygon) g;
                List<Object> vertices = new ArrayList<Object>();
                GeoPointND[] pts = poly.getPoints();
                if (pts != null) {
                    for (GeoPointND p : pts) {
                        vertices.add(pointXY(p));
                    }
                }
                o.put("vertices", vertices);
                o.put("area", poly.getArea());
                o.put("signed_area", poly.getAreaWithSign());
                break;
            }
            case "angle":
            case "numeric": {
                double v = ((GeoNumeric) g).getValue();
                o.put("value", v);
                if (Double.isInfinite(v)) {
                    // JSON has no infinity: value is written as null, the sign goes here.
                    o.put("infinite", v > 0 ? 1 : -1);
                }
                break;
            }
            case "text":
                o.put("text", ((GeoText) g).getTextString());
                break;
            case "boolean":
                o.put("value", ((GeoBoolean) g).getBoolean());
                break;
            case "list":
                putList(o, (GeoList) g, depth);
                break;
            case "function": {
                // A function is compared by its values at fixed abscissas (null where undefined).
                geogebra.kernel.GeoFunction f = (geogebra.kernel.GeoFunction) g;
                List<Object> samples = new ArrayList<Object>();
                for (double x : FUNCTION_SAMPLES) {
                    samples.add(f.evaluate(x));
                }
                o.put("samples", samples);
                break;
            }
            case "curve": {
                // A parametric curve (a reflected or rotated function): its points at t = samples.
                geogebra.kernel.GeoCurveCartesian curve = (geogebra.kernel.GeoCurveCartesian) g;
                List<Object> samples = new ArrayList<Object>();
                double[] out = new double[2];
                for (double t : FUNCTION_SAMPLES) {
                    curve.evaluateCurve(t, out);
                    samples.add(xy(out[0], out[1]));
                }
                o.put("samples", samples);
                break;
            }
            case "function2": {
                // f(x, y), sampled at (FUNCTION_SAMPLES[i], FUNCTION_SAMPLES[n - 1 - i]).
                geogebra.kernel.GeoFunctionNVar f = (geogebra.kernel.GeoFunctionNVar) g;
                List<Object> samples = new ArrayList<Object>();
                int n = FUNCTION_SAMPLES.length;
                for (int i = 0; i < n; i++) {
                    samples.add(f.evaluate(new double[] {FUNCTION_SAMPLES[i], FUNCTION_SAMPLES[n - 1 - i]}));
                }
                o.put("samples", samples);
                break;
            }
            case "implicitpoly": {
                // coeff[i][j] multiplies x^i y^j; the polynomial equals 0 on the curve.
                double[][] coeff = ((geogebra.kernel.implicit.GeoImplicitPoly) g).getCoeff();
                List<Object> terms = new ArrayList<Object>();
                if (coeff != null) {
                    for (int i = 0; i < coeff.length; i++) {
                        for (int j = 0; j < coeff[i].length; j++) {
                            if (coeff[i][j] != 0) {
                                List<Object> term = new ArrayList<Object>();
                                term.add((double) i);
                                term.add((double) j);
                                term.add(coeff[i][j]);
                                terms.add(term);
                            }
                        }
                    }
                }
                o.put("terms", terms);
                break;
            }
            default:
                break;
        }
    }

    static void putConic(Map<String, Object> o, GeoConicND c) {
        int t = c.getType();
        o.put("conic_type", conicTypeName(t));
        // matrix = [A0, A1, A2, A3, A4, A5]:  A0 x² + A1 y² + A2 + 2 A3 xy + 2 A4 x + 2 A5 y = 0
        List<Object> m = new ArrayList<Object>();
        for (double v : c.getMatrix()) {
            m.add(v);
        }
        o.put("matrix", m);
        if (t == GeoConicND.CONIC_CIRCLE || t == GeoConicND.CONIC_ELLIPSE
                || t == GeoConicND.CONIC_HYPERBOLA) {
            geogebra.Matrix.Coords mid = c.getMidpoint2D();
            o.put("center", xy(mid.getX(), mid.getY()));
        }
        if (t == GeoConicND.CONIC_CIRCLE) {
            o.put("radius", c.getCircleRadius());
        } else if (t == GeoConicND.CONIC_ELLIPSE || t == GeoConicND.CONIC_HYPERBOLA) {
            double[] h = c.getHalfAxes();
            o.put("half_axes", xy(h[0], h[1]));
        }
    }

    // ------------------------------------------------------------------ JSON

    static void writeJson(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String) {
            writeString(sb, (String) v);
        } else if (v instanceof Boolean) {
            sb.append(((Boolean) v).booleanValue() ? "true" : "false");
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                sb.append("null");
            } else {
                sb.append(Double.toString(d));
            }
        } else if (v instanceof Number) {
            sb.append(((Number) v).longValue());
        } else if (v instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) {
                    sb.append(", ");
                }
                first = false;
                writeString(sb, String.valueOf(e.getKey()));
                sb.append(": ");
                writeJson(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof List) {
            sb.append('[');
            boolean first = true;
            for (Object e : (List<?>) v) {
                if (!first) {
                    sb.append(", ");
                }
                first = false;
                writeJson(sb, e);
            }
            sb.append(']');
        } else {
            writeString(sb, v.toString());
        }
    }

    static void writeString(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                case '\b':
                    sb.append("\\b");
                    break;
                case '\f':
                    sb.append("\\f");
                    break;
                default:
                    if (ch < 0x20 || ch == 0x2028 || ch == 0x2029) {
                        sb.append(String.format("\\u%04x", (int) ch));
                    } else {
                        sb.append(ch);
                    }
            }
        }
        sb.append('"');
    }

    /** A small strict JSON reader: objects, arrays, strings, numbers, true/false/null. */
    static final class JsonReader {
        private final String s;
        private int i;

        JsonReader(String s) {
            this.s = s;
        }

        static Object parse(String s) {
            JsonReader r = new JsonReader(s);
            Object v = r.value();
            r.ws();
            if (r.i != s.length()) {
                throw r.err("trailing characters");
            }
            return v;
        }

        private IllegalArgumentException err(String what) {
            return new IllegalArgumentException("bad JSON at " + i + ": " + what);
        }

        private void ws() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
        }

        private Object value() {
            ws();
            if (i >= s.length()) {
                throw err("unexpected end");
            }
            char c = s.charAt(i);
            if (c == '{') {
                i++;
                Map<String, Object> m = new LinkedHashMap<String, Object>();
                ws();
                if (peek() == '}') {
                    i++;
                    return m;
                }
                while (true) {
                    ws();
                    if (peek() != '"') {
                        throw err("expected key");
                    }
                    String k = string();
                    ws();
                    expect(':');
                    m.put(k, value());
                    ws();
                    char d = next();
                    if (d == '}') {
                        return m;
                    }
                    if (d != ',') {
                        throw err("expected , or }");
                    }
                }
            }
            if (c == '[') {
                i++;
                List<Object> l = new ArrayList<Object>();
                ws();
                if (peek() == ']') {
                    i++;
                    return l;
                }
                while (true) {
                    l.add(value());
                    ws();
                    char d = next();
                    if (d == ']') {
                        return l;
                    }
                    if (d != ',') {
                        throw err("expected , or ]");
                    }
                }
            }
            if (c == '"') {
                return string();
            }
            if (s.startsWith("true", i)) {
                i += 4;
                return Boolean.TRUE;
            }
            if (s.startsWith("false", i)) {
                i += 5;
                return Boolean.FALSE;
            }
            if (s.startsWith("null", i)) {
                i += 4;
                return null;
            }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            if (start == i) {
                throw err("unexpected character");
            }
            String num = s.substring(start, i);
            try {
                if (num.matches("-?\\d+")) {
                    return Long.parseLong(num);
                }
                return Double.parseDouble(num);
            } catch (NumberFormatException e) {
                throw err("bad number");
            }
        }

        private char peek() {
            if (i >= s.length()) {
                throw err("unexpected end");
            }
            return s.charAt(i);
        }

        private char next() {
            char c = peek();
            i++;
            return c;
        }

        private void expect(char c) {
            if (next() != c) {
                throw err("expected " + c);
            }
        }

        private String string() {
            expect('"');
            StringBuilder sb = new StringBuilder();
            while (true) {
                char c = next();
                if (c == '"') {
                    return sb.toString();
                }
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                char e = next();
                switch (e) {
                    case '"':
                    case '\\':
                    case '/':
                        sb.append(e);
                        break;
                    case 'b':
                        sb.append('\b');
                        break;
                    case 'f':
                        sb.append('\f');
                        break;
                    case 'n':
                        sb.append('\n');
                        break;
                    case 'r':
                        sb.append('\r');
                        break;
                    case 't':
                        sb.append('\t');
                        break;
                    case 'u':
                        if (i + 4 > s.length()) {
                            throw err("bad \\u escape");
                        }
                        try {
                            sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw err("bad \\u escape");
                        }
                        i += 4;
                        break;
                    default:
                        throw err("bad escape");
                }
            }
        }
    }

    // ------------------------------------------------------------------ main loop

    static void emit(Writer out, Map<String, Object> result) throws java.io.IOException {
        StringBuilder sb = new StringBuilder();
        writeJson(sb, result);
        sb.append('\n');
        out.write(sb.toString());
        out.flush();
    }

    public static void main(String[] args) throws Exception {
        // Our own handle on fd 1; everything else that prints to System.out goes to stderr.
        Writer out = new OutputStreamWriter(
                new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8);
        PrintStream err = System.err;
        System.setOut(err);
        HeadlessApp app;
        try {
            app = startApplication();
        } catch (Throwable t) {
            Map<String, Object> fail = new LinkedHashMap<String, Object>();
            fail.put("ready", false);
            fail.put("error", t.toString());
            emit(out, fail);
            t.printStackTrace(err);
            System.exit(2);
            return;
        }
        // The constructor may have replaced the standard streams; put ours back.
        System.setOut(err);
        System.setErr(err);
        GeomevalHarness harness = new GeomevalHarness(app);

        Map<String, Object> ready = new LinkedHashMap<String, Object>();
        ready.put("ready", true);
        ready.put("version", geogebra.GeoGebra.VERSION_STRING);
        emit(out, ready);

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().isEmpty()) {
                continue;
            }
            Map<String, Object> result;
            try {
                Object req = JsonReader.parse(line);
                if (!(req instanceof Map)) {
                    throw new IllegalArgumentException("request is not a JSON object");
                }
                Map<?, ?> m = (Map<?, ?>) req;
                if ("quit".equals(m.get("cmd"))) {
                    break;
                }
                Object lines = m.get("lines");
                if (!(lines instanceof List)) {
                    throw new IllegalArgumentException("request has no \"lines\" list");
                }
                Object export = m.get("export");
                if (export instanceof Map) {
                    harness.sizeView((Map<?, ?>) export);
                }
                result = harness.runScript(m.get("id"), (List<?>) lines);
                if (export instanceof Map) {
                    harness.export((Map<?, ?>) export, result);
                }
            } catch (Throwable t) {
                result = new LinkedHashMap<String, Object>();
                Object id = null;
                try {
                    Object req = JsonReader.parse(line);
                    if (req instanceof Map) {
                        id = ((Map<?, ?>) req).get("id");
                    }
                } catch (Throwable ignored) {
                    // keep id null
                }
                result.put("id", id);
                result.put("error", t.toString());
                result.put("lines", new ArrayList<Object>());
                result.put("objects", new ArrayList<Object>());
            }
            emit(out, result);
        }
        out.flush();
        System.exit(0);
    }
}

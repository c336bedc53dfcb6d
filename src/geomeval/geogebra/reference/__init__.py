"""A reference cross-check against the real GeoGebra 4.0 jar (Debian's `geogebra` package).

geomeval's own GeoGebra interpreter is a re-implementation; to know where it agrees with GeoGebra
itself we run the same scripts through the real thing. The only GeoGebra that installs offline
from a distribution package is Debian's 4.0.34 jar, which has no scripting entry point, so we ship
our own tiny Java harness (GeomevalHarness.java, beside this module) that starts the jar's kernel
headless, runs script lines through its algebra processor and prints every object's value as
JSON. This module compiles that harness once into geomeval's cache and drives one persistent JVM
over stdin/stdout, so a batch of scripts costs one JVM start-up, not one each.

Scripts must already be in GeoGebra 4.0 syntax (`Circle[A, 2]`); converting modern syntax is the
caller's business. Nothing here evaluates Python or shells out with user text: lines travel to
the JVM as JSON strings only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from types import TracebackType
from typing import Any

from geomeval.engines.cache import cache_dir

__all__ = [
    "DEFAULT_JAR",
    "ENV_JAR",
    "HARNESS_SOURCE",
    "ReferenceEngine",
    "ReferenceUnavailable",
    "compile_harness",
    "find_jar",
    "find_java",
    "find_javac",
]

ENV_JAR = "GEOMEVAL_GEOGEBRA_JAR"
DEFAULT_JAR = Path("/usr/share/geogebra/geogebra.jar")
HARNESS_SOURCE = Path(__file__).with_name("GeomevalHarness.java")
HARNESS_CLASS = "GeomevalHarness"

# A script that runs longer than this is taken to be stuck (GeoGebra 4.0 can loop, e.g. on a
# huge Sequence): the JVM is killed and restarted rather than letting a batch hang.
DEFAULT_TIMEOUT_S = 30.0
# Cold JVM start plus GeoGebra's kernel set-up is about half a second; leave a wide margin for
# loaded machines.
DEFAULT_STARTUP_TIMEOUT_S = 120.0


class ReferenceUnavailable(RuntimeError):
    """The reference GeoGebra cannot run here (no jar, no Java, or the harness does not build)."""


def find_jar() -> Path | None:
    """The GeoGebra 4.0 jar: $GEOMEVAL_GEOGEBRA_JAR, else Debian's path, else None."""
    env = os.environ.get(ENV_JAR)
    if env:
        path = Path(env).expanduser()
        return path if path.is_file() else None
    return DEFAULT_JAR if DEFAULT_JAR.is_file() else None


def _find_tool(name: str) -> Path | None:
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(name)
    return Path(found) if found else None


def find_java() -> Path | None:
    """The `java` launcher: $JAVA_HOME/bin/java, else the one on PATH, else None."""
    return _find_tool("java")


def find_javac() -> Path | None:
    """The `javac` compiler (needed once, to build the harness), found like find_java()."""
    return _find_tool("javac")


def _harness_key(jar: Path) -> str:
    """Cache key: the harness source and the exact jar it was compiled against."""
    digest = hashlib.sha256()
    digest.update(HARNESS_SOURCE.read_bytes())
    digest.update(b"\0" + str(jar.resolve()).encode())
    digest.update(b"\0" + str(jar.stat().st_mtime_ns).encode())
    return digest.hexdigest()[:24]


def compile_harness(jar: Path, javac: Path | None = None) -> Path:
    """Compile GeomevalHarness.java against `jar` into the cache; return the class folder.

    Compiled once per (source, jar) pair. javac writes into a private temporary folder that is
    renamed into place, so concurrent sessions never see a half-written class folder.
    """
    if not HARNESS_SOURCE.is_file():
        raise ReferenceUnavailable(f"harness source missing: {HARNESS_SOURCE}")
    root = cache_dir() / "ggb-harness"
    dest = root / _harness_key(jar)
    if (dest / f"{HARNESS_CLASS}.class").is_file():
        return dest
    javac = javac or find_javac()
    if javac is None:
        raise ReferenceUnavailable(
            "javac not found (install a JDK, e.g. Debian's default-jdk-headless, or set JAVA_HOME)"
        )
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    try:
        proc = subprocess.run(
            [
                str(javac),
                "-nowarn",
                "-encoding",
                "UTF-8",
                "-cp",
                str(jar),
                "-d",
                str(tmp),
                str(HARNESS_SOURCE),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if proc.returncode != 0 or not (tmp / f"{HARNESS_CLASS}.class").is_file():
            raise ReferenceUnavailable(
                f"compiling {HARNESS_SOURCE.name} against {jar} failed:\n"
                + (proc.stderr or proc.stdout)[-4000:]
            )
        try:
            tmp.rename(dest)
        except OSError:
            # Another process finished first; its build is identical.
            if not (dest / f"{HARNESS_CLASS}.class").is_file():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return dest


def _cpu_seconds(pid: int) -> float | None:
    """User and system CPU seconds the process has spent (every thread), or None without /proc
    or once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _error_result(script_id: str, message: str, *, harness: bool = False) -> dict[str, Any]:
    """A result for a script the harness could not finish: the script's doing (a timeout, the
    JVM dying while it ran), or with `harness` the harness's own failure before or after the
    script (a pipe gone, output it cannot read), which says nothing of the script."""
    result: dict[str, Any] = {"id": script_id, "error": message, "lines": [], "objects": []}
    if harness:
        result["harness_failure"] = True
    return result


class ReferenceEngine:
    """One persistent GeoGebra 4.0 JVM that runs scripts and returns their objects as dicts.

    Use as a context manager (or call close()). run() sends one script and returns the harness's
    result: {"id", "lines": [...], "objects": [...]}. Each line entry is {"line" (1-based), "ok",
    "error" (GeoGebra's message or null), "labels" (labelled objects the line returned),
    "created" / "removed" (labels that appeared / vanished, e.g. by Delete or by 4.0 renaming
    an earlier Intersect's points)}. Each object is {"label", "class" (GeoGebra class),
    "type" (point, line, segment, ray, vector, conic, conicpart, polygon, numeric, angle, text,
    boolean, list or other), "defined", "independent", kind-specific values, "value_string",
    "definition"}; undefined objects (points at infinity included) carry no numbers, and a
    non-finite number is written as null. A script that exceeds `timeout` seconds, or kills
    the JVM, yields {"id", "error", "lines": [], "objects": []} instead; the JVM is then
    started afresh for the next script.
    """

    def __init__(
        self,
        jar: Path | str | None = None,
        java: Path | str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT_S,
        max_heap: str = "512m",
    ) -> None:
        jar_path = Path(jar) if jar is not None else find_jar()
        if jar_path is None or not jar_path.is_file():
            raise ReferenceUnavailable(
                f"GeoGebra 4.0 jar not found (set {ENV_JAR} or install Debian's `geogebra` "
                f"package, which provides {DEFAULT_JAR})"
                + (f"; {jar_path} is not a file" if jar_path is not None else "")
            )
        java_path = Path(java) if java is not None else find_java()
        if java_path is None:
            raise ReferenceUnavailable("java not found (install a JRE/JDK or set JAVA_HOME)")
        self.jar = jar_path
        self.java = java_path
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.max_heap = max_heap
        self.class_dir = compile_harness(jar_path)
        self.version: str | None = None
        self.restarts = 0  # JVMs started after the first (timeouts, crashes)
        self._ever_started = False
        self._proc: subprocess.Popen[str] | None = None
        self._out: queue.Queue[str | None] = queue.Queue()
        self._err_tail: deque[str] = deque(maxlen=200)
        self._lock = threading.Lock()
        self._closed = False

    # -------------------------------------------------------------- process management

    def _command(self) -> list[str]:
        prefs = cache_dir() / "ggb-harness" / "java-prefs"
        prefs.mkdir(parents=True, exist_ok=True)
        return [
            str(self.java),
            "-Djava.awt.headless=true",
            # GeoGebra reads and writes Java Preferences; keep them out of the user's ~/.java.
            f"-Djava.util.prefs.userRoot={prefs}",
            "-Duser.language=en",
            "-Duser.country=US",
            "-Dfile.encoding=UTF-8",
            f"-Xmx{self.max_heap}",
            "-cp",
            os.pathsep.join([str(self.jar), str(self.class_dir)]),
            HARNESS_CLASS,
        ]

    @staticmethod
    def _pump(stream: Any, sink: queue.Queue[str | None] | deque[str], eof: bool) -> None:
        for line in stream:
            if isinstance(sink, deque):
                sink.append(line.rstrip("\n"))
            else:
                sink.put(line)
        if eof and isinstance(sink, queue.Queue):
            sink.put(None)

    def _start(self) -> None:
        if self._closed:
            raise ReferenceUnavailable("ReferenceEngine is closed")
        if self._ever_started:
            self.restarts += 1
        self._ever_started = True
        self._out = queue.Queue()
        self._err_tail = deque(maxlen=200)
        proc = subprocess.Popen(
            self._command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
            cwd=str(self.class_dir),
        )
        self._proc = proc
        threading.Thread(
            target=self._pump, args=(proc.stdout, self._out, True), daemon=True
        ).start()
        threading.Thread(
            target=self._pump, args=(proc.stderr, self._err_tail, False), daemon=True
        ).start()
        line = self._read_line(self.startup_timeout)
        if line is None:
            self._kill()
            raise ReferenceUnavailable(
                "GeoGebra harness did not start: " + (self._stderr_tail() or "no output")
            )
        try:
            ready = json.loads(line)
        except json.JSONDecodeError:
            ready = {}
        if not ready.get("ready"):
            self._kill()
            raise ReferenceUnavailable(
                f"GeoGebra harness failed to start: {ready.get('error') or line.strip()}\n"
                + self._stderr_tail()
            )
        self.version = ready.get("version")

    @staticmethod
    def _safety_net(limit: float) -> float:
        return max(600.0, 10 * limit)

    def _read_result(self, proc: subprocess.Popen[str], limit: float) -> tuple[str | None, bool]:
        """(the script's result line, False), or (None, False) once the JVM has spent `limit`
        CPU seconds on the script (its work, so the same script meets it on an idle and on a
        loaded machine) or has exited, or (None, True) when the wall-clock safety net ran out
        first. Without /proc (not Linux) the limit is counted on the clock, as before."""
        start_cpu = _cpu_seconds(proc.pid)
        if start_cpu is None:
            return self._read_line(limit), False
        started = time.monotonic()
        net = self._safety_net(limit)
        while True:
            try:
                line: str | None = self._out.get(timeout=0.25)
            except queue.Empty:
                line = None
            used = _cpu_seconds(proc.pid)
            if line is not None:
                # A result that cost more than the limit is past it however soon it was read:
                # the verdict follows the work done, not when this loop looked.
                if used is not None and used - start_cpu > limit:
                    return None, False
                return line, False
            if used is None or used - start_cpu > limit:
                return None, False
            if time.monotonic() - started > net:
                return None, True

    def _read_line(self, timeout: float) -> str | None:
        """The next stdout line, or None on timeout or end of output."""
        try:
            return self._out.get(timeout=timeout)
        except queue.Empty:
            return None

    def _stderr_tail(self, lines: int = 20) -> str:
        return "\n".join(list(self._err_tail)[-lines:])

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    @property
    def pid(self) -> int | None:
        """The running JVM's process id (None before the first script or after close())."""
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def start_fresh(self) -> ReferenceEngine:
        """Stop the running JVM, if any, and start another (a retry on a JVM with nothing behind it)."""
        with self._lock:
            self._kill()
            self._start()
        return self

    def start(self) -> ReferenceEngine:
        """Start the JVM now (otherwise the first run() does)."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._kill()
                self._start()
        return self

    # -------------------------------------------------------------- running scripts

    def run(
        self, lines: list[str], id: str = "", timeout: float | None = None, export: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Run one script in a fresh construction; return the harness's result dict.

        `export` ({"width", "height", "window": [xmin, xmax, ymin, ymax] or None, "axes",
        "grid"}) also has GeoGebra draw the construction: the result then holds "png"
        (base64), the "window" drawn and "drawn_objects" (visible labelled objects), or
        "export_error"."""
        if isinstance(lines, str):
            raise TypeError("lines must be a list of strings, not one string")
        lines = [str(line) for line in lines]
        limit = self.timeout if timeout is None else timeout
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._kill()
                self._start()
            proc = self._proc
            assert proc is not None and proc.stdin is not None
            message: dict[str, Any] = {"id": id, "lines": lines}
            if export is not None:
                message["export"] = export
            request = json.dumps(message) + "\n"
            try:
                proc.stdin.write(request)
                proc.stdin.flush()
            except (BrokenPipeError, OSError) as exc:
                tail = self._stderr_tail()
                self._kill()
                return _error_result(id, f"harness exited before the script ran: {exc}\n{tail}", harness=True)
            line, stalled = self._read_result(proc, limit)
            if line is None:
                alive = proc.poll() is None
                tail = self._stderr_tail()
                self._kill()
                if alive and stalled:  # the machine's doing, not the script's: no verdict
                    return _error_result(id, f"no result within the wall-clock safety net of "
                                         f"{self._safety_net(limit):g} s (JVM restarted)", harness=True)
                if alive:
                    return _error_result(id, f"ran past the CPU time limit of {limit:g} s (JVM restarted)")
                return _error_result(
                    id, f"harness exited (rc={proc.returncode}) while running the script\n{tail}"
                )
            try:
                result = json.loads(line)
            except json.JSONDecodeError as exc:
                self._kill()
                return _error_result(id, f"unreadable harness output ({exc}): {line[:500]!r}", harness=True)
            if result.get("id") != id:
                # Cannot happen with one request in flight; never pair a result with the wrong id.
                self._kill()
                return _error_result(id, f"harness answered for id {result.get('id')!r}", harness=True)
            return result

    def run_batch(
        self, scripts: list[list[str]], ids: list[str] | None = None
    ) -> list[dict[str, Any]]:
        """Run several scripts, in order, in the same JVM (each in a fresh construction)."""
        if ids is not None and len(ids) != len(scripts):
            raise ValueError("ids must match scripts one to one")
        return [
            self.run(script, id=ids[i] if ids is not None else str(i))
            for i, script in enumerate(scripts)
        ]

    # -------------------------------------------------------------- lifetime

    def close(self) -> None:
        """Ask the JVM to quit, then make sure it is gone."""
        with self._lock:
            self._closed = True
            proc = self._proc
            if proc is None:
                return
            if proc.poll() is None and proc.stdin is not None:
                try:
                    proc.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
                    proc.stdin.flush()
                    proc.wait(timeout=5)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._kill()

    def __enter__(self) -> ReferenceEngine:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __del__(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            proc.kill()

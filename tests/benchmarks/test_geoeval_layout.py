"""GeoEval's release in the layout its authors' tools read builds, detected automatically.

The official tools (github.com/GeoEval/GeoEval) read one JSON object per subset, keyed by
problem id, from `LLM_eval/dataset_merge/`: `run_llm_response.py` with
`sh_files/*/eval_config.yaml` reads `select.json` (GeoEval-2000), with the `aug_result`
output type `aug.json`, with `backaug_result` `backward_aug.json`, and with
`eval_solid_config.yaml` `solid.json` (GeoEval-hard); the backward generator in the
repository's history wrote `backward_reasoning_select.json`. Each record carries the fields
`tool/data_loader.py`, `tool/merge_key_val.py`, `tool/caculate_score.py` and
`tool/opensource_llm_tool.py` read: `text.Num_Exp` (`text.aug_problem` in aug),
`diagram_description.structure/semantic` (`.backward_semantic` in backward),
`choice_list`, `answer_value`, `diagram_name`, `backward_text`, `backward_answer_value`,
`dataset_id`, `choice_id`. The fixtures below are written from that code (the release itself
is handed out by application only), with diagrams drawn by PIL, and go through the real
build (`geomeval build geoeval`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from datasets import load_dataset
from PIL import Image, ImageDraw

from geomeval.benchmarks.geoeval.data import build, from_raw, load
from geomeval.benchmarks.geoeval.features import SUBSETS
from geomeval.benchmarks.geoeval.raw import subsets_in

REPO = Path(__file__).resolve().parents[2]

_TRIANGLE = {
    "dataset_name": "Geometry3K",
    "text": {"Num_Exp": "Find A C."},
    "diagram_name": "g3k_7.png",
    "diagram_description": {
        "structure": ["line A B", "line B C", "line A C"],
        "semantic": ["A B = 6", "B C = 8", "A B \\perp B C"],
    },
    "choice_list": ["6", "8", "10", "14"],
    "answer_value": "10",
    "knowledge_point": ["Pythagorean theorem"],
    "formal_knowledge_point": ["Triangle", "Length"],
    "geometry_shape": "Triangle",
    "solution": {"program": "Gougu_Theorem N0 N1 V0", "equation": None, "cot": None},
    # what the open-source loader reads from every record
    "dataset_id": "Geometry3K_7",
    "choice_id": 2,
}
_ANGLE = {
    "dataset_name": "GeoQA+",
    "text": {"Num_Exp": "As shown in the figure, line a is parallel to line b and ∠1 = 50°. Find ∠2."},
    "diagram_name": "geoqa_3",
    "diagram_description": None,
    "choice_list": ["40°", "50°", "130°", None],
    "answer_value": "130",
    "knowledge_point": "co-interior angles",
    "formal_knowledge_point": ["Angle"],
    "geometry_shape": None,
    # a record the official API runner wrote back: the model's output under its name
    "solution": {"program": "Minus C0 N0", "gpt35": "The answer is C."},
}
_TEXT_ONLY = {
    "dataset_name": "MathQA",
    "text": {"Num_Exp": "the area of a square is 36 square units . find its side ."},
    "diagram_name": None,
    "diagram_description": None,
    "choice_list": None,
    "answer_value": 6.0,
    "knowledge_point": None,
    "formal_knowledge_point": None,
    "geometry_shape": None,
    "solution": {"program": "sqrt(n0)"},
}
_BACKWARD = {
    **_TRIANGLE,
    "diagram_description": {**_TRIANGLE["diagram_description"], "backward_semantic": ["A B = x", "B C = 8", "A B \\perp B C"]},
    "backward_text": "Find A C. The correct answer is 10. Now please answer what is the value of x?",
    "backward_answer_value": "6",
}
_AUG = {**_TRIANGLE, "text": {"Num_Exp": "Find A C.", "aug_problem": "A B is 6 and B C is 8, at right angles. How long is A C?"}}
_HARD = {
    "dataset_name": None,
    "text": {"Num_Exp": "A cube has edges of length 2. How long is its space diagonal?"},
    "diagram_name": "cube.jpg",
    "diagram_description": None,
    "choice_list": ["2", "2√2", "2√3", "4"],
    "answer_value": "C",
    "knowledge_point": None,
    "formal_knowledge_point": None,
    "geometry_shape": "Cube",
    "solution": None,
}

OFFICIAL_FILES = {
    "geoeval_2000": ("select.json", {"7": _TRIANGLE, "3": _ANGLE, "5": _TEXT_ONLY}),
    "geoeval_backward": ("backward_aug.json", {"7": _BACKWARD}),
    "geoeval_aug": ("aug.json", {"7": _AUG}),
    "geoeval_hard": ("solid.json", {"11": _HARD}),
}


def _diagram(path: Path, size: tuple[int, int] = (64, 48)) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    image = Image.new("RGB", size, "white")
    ImageDraw.Draw(image).polygon([(4, 44), (60, 44), (4, 4)], outline="black")
    image.save(path)


def _release(root: Path, folder: str = "LLM_eval/dataset_merge", names: dict[str, str] | None = None) -> Path:
    """The official layout under `root`: the subset files in `folder`, diagrams in `images/`
    at the release root."""
    merged = root / folder
    merged.mkdir(parents=True)
    for config, (name, records) in OFFICIAL_FILES.items():
        name = (names or {}).get(config, name)
        (merged / name).write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    for name in ("g3k_7.png", "geoqa_3.png", "cube.jpg"):
        _diagram(root / "images" / name)
    return root


def _by_id(ds: Any) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in ds}


def test_the_official_layout_builds_every_subset(tmp_path: Path) -> None:
    root = _release(tmp_path / "GeoEval")
    assert subsets_in(root) == SUBSETS
    out = tmp_path / "built"
    summary = build(str(root), str(out))
    assert summary["missing"] == [] and summary["skipped"] == []
    assert {k: v["num_examples"] for k, v in summary["splits"].items()} == {
        "geoeval_2000/test": 3, "geoeval_backward/test": 1, "geoeval_aug/test": 1, "geoeval_hard/test": 1}

    main = _by_id(load_dataset(str(out), "geoeval_2000", split="test"))
    triangle = main["7"]
    assert triangle["problem"] == "Find A C." and triangle["answer"] == "10"
    assert triangle["choices"] == ["6", "8", "10", "14"]
    assert triangle["diagram_description"] == "line A B, line B C, line A C, A B = 6, B C = 8, A B \\perp B C"
    assert isinstance(triangle["diagram"], Image.Image) and triangle["diagram"].size == (64, 48)
    assert main["3"]["choices"] == ["40°", "50°", "130°"]  # the null option dropped, as the official merge does
    assert main["3"]["diagram"] is not None  # a bare diagram_name: ".png" is tried
    assert main["3"]["solution"] == "Minus C0 N0"  # the model output written into `solution` is not read
    assert main["5"]["diagram"] is None and main["5"]["answer"] == "6.0"

    backward = load_dataset(str(out), "geoeval_backward", split="test")[0]
    assert backward["backward_problem"].endswith("Now please answer what is the value of x?")
    assert backward["backward_answer"] == "6" and backward["choices"] is None
    assert "A B = x" in backward["diagram_description"] and "A B = 6" not in backward["diagram_description"]
    aug = load_dataset(str(out), "geoeval_aug", split="test")[0]
    assert aug["rephrased_problem"].startswith("A B is 6") and aug["problem"] == "Find A C."
    hard = load_dataset(str(out), "geoeval_hard", split="test")[0]
    assert hard["answer"] == "C" and hard["diagram"].size == (64, 48)


def test_the_cli_builds_the_official_layout(tmp_path: Path) -> None:
    root = _release(tmp_path / "GeoEval")
    out = tmp_path / "cli"
    result = subprocess.run([sys.executable, "-m", "geomeval", "build", "geoeval", "--raw", str(root), "--out", str(out)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "geoeval_backward/test: 1 items" in result.stdout and "geoeval_aug/test: 1 items" in result.stdout
    assert "not in the release" not in result.stdout


@pytest.mark.parametrize(
    ("folder", "names"),
    [
        ("dataset_merge", None),  # the tools' folder without LLM_eval/ above it
        ("LLM_eval/dataset_merge", {"geoeval_backward": "backward_reasoning_select.json"}),  # the generator's name
        ("", {"geoeval_aug": "geoeval_aug.json"}),  # the files at the top, under a config's name
    ],
)
def test_other_official_places_and_names_are_detected(tmp_path: Path, folder: str, names: dict[str, str] | None) -> None:
    root = _release(tmp_path / "GeoEval", folder or ".", names)
    assert subsets_in(root) == SUBSETS
    if folder == "dataset_merge":  # diagrams at the root only serve LLM_eval/dataset_merge/...
        (root / "images").rename(root / "diagrams")
    assert len(from_raw(root, config="geoeval_backward")[0]) == 1
    assert len(load(str(root), "geoeval_2000")) == 3


def test_one_official_subset_file_builds(tmp_path: Path) -> None:
    root = _release(tmp_path / "GeoEval")
    aug = root / "LLM_eval" / "dataset_merge" / "aug.json"
    assert subsets_in(aug) == ("geoeval_aug",)
    summary = build(str(aug), str(tmp_path / "aug"))
    assert summary["missing"] == ["geoeval_2000", "geoeval_backward", "geoeval_hard"]
    assert load_dataset(str(tmp_path / "aug"), split="test")[0]["diagram"] is not None


def test_an_unknown_layout_names_what_was_expected_and_found(tmp_path: Path) -> None:
    root = tmp_path / "download"
    (root / "LLM_eval" / "dataset_merge").mkdir(parents=True)
    (root / "LLM_eval" / "dataset_merge" / "all.json").write_text("{}", encoding="utf-8")
    (root / "result" / "gpt35").mkdir(parents=True)
    (root / "result" / "gpt35" / "eval_GeoEval_result.json").write_text("{}", encoding="utf-8")
    with pytest.raises(FileNotFoundError) as info:
        build(str(root), str(tmp_path / "out"))
    message = str(info.value)
    for expected in ("select.json", "backward_aug.json", "aug.json", "solid.json", "LLM_eval/dataset_merge"):
        assert expected in message
    assert "Found: JSON files LLM_eval/dataset_merge/all.json, result/gpt35/eval_GeoEval_result.json" in message
    assert "holds a model's outputs" in message
    with pytest.raises(FileNotFoundError, match=r"all\.json"):
        load(str(root), "geoeval_2000")  # --data names the same folder

    empty = tmp_path / "empty"
    (empty / "pictures").mkdir(parents=True)
    result = subprocess.run([sys.executable, "-m", "geomeval", "build", "geoeval", "--raw", str(empty), "--out",
                             str(tmp_path / "cli")], capture_output=True, text=True, timeout=300)
    assert result.returncode != 0
    assert "no JSON file; entries: pictures/" in result.stderr and "select.json" in result.stderr
    assert not (tmp_path / "cli").exists()

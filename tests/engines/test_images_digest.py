"""A figure is encoded once and carries its bytes' digest: the requests sent, their cache keys
and the prompt's hash are exactly what they were when each step encoded, decoded and hashed
the figure again (so caches and provenance from earlier runs still match)."""

from __future__ import annotations

import base64
import hashlib
import io
import json

import pytest
from PIL import Image

from geomeval.engines.cache import _decoded_digest, cache_key
from geomeval.engines.images import Digested, base64_image_part, base64_of, image_part
from geomeval.run.provenance import messages_sha256


def _png(colour: str, size: int = 64) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (size, size), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def _plain_url(data: bytes) -> str:  # what image_part sent before it knew digests
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def test_an_image_part_is_the_same_url_and_cache_key_as_before() -> None:
    data = _png("red", 300)
    part = image_part({"bytes": data, "path": None})
    url = part["image_url"]["url"]
    assert url == _plain_url(data) and isinstance(url, Digested)
    assert url.digest == _decoded_digest(url) == "sha256:" + hashlib.sha256(data).hexdigest()
    messages = [{"role": "user", "content": [{"type": "text", "text": "q"}, part]}]
    plain = [{"role": "user", "content": [{"type": "text", "text": "q"}, {"type": "image_url", "image_url": {"url": _plain_url(data)}}]}]
    assert cache_key("http://h/v1", "m", messages, {"temperature": 0}) == cache_key("http://h/v1", "m", plain, {"temperature": 0})
    assert json.dumps(messages) == json.dumps(plain)


def test_the_same_bytes_are_encoded_once_and_other_bytes_are_not_confused() -> None:
    red, blue = _png("red"), _png("blue")
    assert base64_of(red) is base64_of(red)  # the prompt's figure and the record's copy: one encoding
    assert base64_of(blue) == base64.b64encode(blue).decode() != base64_of(red)
    equal_copy = bytes(bytearray(red))  # equal bytes, another object: encoded again, the same text
    assert base64_of(equal_copy) == base64_of(red) and base64_of(equal_copy).digest == base64_of(red).digest


def test_a_saved_figure_is_sent_as_it_is_and_checked_when_read_back() -> None:
    data = _png("green")
    in_run = base64_of(data)  # the record's figure in the run that made it
    read_back = json.loads(json.dumps({"figure": in_run}))["figure"]  # the same figure from samples.jsonl
    assert not isinstance(read_back, Digested)
    for figure in (in_run, read_back):
        url = base64_image_part(figure)["image_url"]["url"]
        assert url == _plain_url(data) and url.digest == _decoded_digest(url)
    with pytest.raises(ValueError):
        base64_image_part("not base64 at all!")
    with pytest.raises(ValueError):
        base64_image_part(read_back[:-3])  # torn


def test_the_prompt_hash_is_the_json_dumps_hash_with_figures_and_escapes() -> None:
    figure = image_part(_png("white", 200))
    messages = [
        {"role": "system", "content": 'be "brief"\n'},
        {"role": "user", "content": [{"type": "text", "text": "é\u2028 \\ " * 2000}, figure,
                                     {"type": "text", "text": "x" * 5000}, figure]},
    ]
    canonical = json.dumps(messages, sort_keys=True, ensure_ascii=False, default=repr)
    assert messages_sha256(messages) == hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def test_a_corrupt_saved_figure_is_named_not_sent() -> None:
    from geomeval.benchmarks.geolaux.scoring import WITH_FIGURE, judge_figure
    from geomeval.core.records import SampleRecord
    from geomeval.engines.judges import Judge

    judge = Judge("openai:j", None, images=True)
    good = SampleRecord("1", "geolaux", "geolaux", {"figure": base64.b64encode(_png("black")).decode()}, {})
    part, note = judge_figure(good, judge)
    assert note == WITH_FIGURE and part is not None and part["image_url"]["url"] == _plain_url(_png("black"))
    bad = SampleRecord("2", "geolaux", "geolaux", {"figure": "%%% not a figure %%%"}, {})
    with pytest.raises(ValueError, match="saved figure is not valid base64"):
        judge_figure(bad, judge)

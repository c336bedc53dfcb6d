"""What a user types, a release holds or a server sends cannot destroy data, leak a key,
exhaust memory or hang a run."""

from __future__ import annotations

import asyncio
import io
import json
import os
import shutil
import stat
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from geomeval.benchmarks import get_benchmark
from geomeval.benchmarks.base import DataError
from geomeval.benchmarks.datasource import read_image
from geomeval.core.errors import EndpointFailure
from geomeval.engines.client import ChatClient, RetryPolicy
from geomeval.engines.hfdata import BUILD_MARKER, is_built_dataset, record_written
from geomeval.engines.judges import parse_judge_spec
from geomeval.engines.models import ModelOptions, parse_model_spec
from geomeval.testing.chat_server import ChatServer, Fault

MESSAGES = [{"role": "user", "content": "q"}]


def ask(client: Any) -> Any:
    async def go() -> Any:
        try:
            return await client.complete(MESSAGES)
        finally:
            await client.aclose()

    return asyncio.run(go())


def geolaux_sample() -> str:
    from geomeval.benchmarks.geolaux import data

    return str(data.sample_path())


# --------------------------------------------------------------------------- build --overwrite


def test_overwrite_refuses_a_folder_geomeval_did_not_build_and_leaves_it(tmp_path: Path) -> None:
    out = tmp_path / "thesis"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work", encoding="utf-8")
    (out / "README.md").write_text("my notes", encoding="utf-8")
    with pytest.raises(FileExistsError, match=r"did not write \(README\.md, thesis\.tex\)"):
        get_benchmark("geolaux").build(geolaux_sample(), str(out), overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "thesis.tex"]
    assert (out / "thesis.tex").read_text(encoding="utf-8") == "years of work"
    assert [p.name for p in tmp_path.iterdir()] == ["thesis"]  # no temporary left beside it


def test_overwrite_of_the_current_folder_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "notes.txt").write_text("keep", encoding="utf-8")
    (tmp_path / "code.py").write_text("print(1)\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileExistsError, match="did not write"):
        get_benchmark("geolaux").build(geolaux_sample(), ".", overwrite=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["code.py", "notes.txt"]


def test_overwrite_replaces_a_previous_build_and_leaves_no_leftovers(tmp_path: Path) -> None:
    out = tmp_path / "built"
    bench = get_benchmark("geolaux")
    bench.build(geolaux_sample(), str(out))
    assert (out / BUILD_MARKER).is_file() and is_built_dataset(out)
    assert stat.S_IMODE(out.stat().st_mode) & 0o055 == 0o055 & ~_umask()  # not mkdtemp's 0700
    with pytest.raises(FileExistsError, match="--overwrite"):
        bench.build(geolaux_sample(), str(out))
    (out / "build_report.json").write_text("{}", encoding="utf-8")
    record_written(out, "build_report.json")  # as `geomeval build` records the report it writes
    bench.build(geolaux_sample(), str(out), overwrite=True)
    assert is_built_dataset(out) and not (out / "build_report.json").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["built"]


def test_a_build_from_before_the_marker_is_still_replaceable(tmp_path: Path) -> None:
    out = tmp_path / "built"
    bench = get_benchmark("geolaux")
    bench.build(geolaux_sample(), str(out))
    (out / BUILD_MARKER).unlink()
    bench.build(geolaux_sample(), str(out), overwrite=True)
    assert (out / BUILD_MARKER).is_file()


def test_a_failed_replacement_keeps_the_previous_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import geomeval.engines.hfdata as hfdata

    out = tmp_path / "built"
    bench = get_benchmark("geolaux")
    bench.build(geolaux_sample(), str(out))
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    real_rename = Path.rename

    def killed(self: Path, target: Any) -> Any:  # dies between moving the old build aside and the new in
        if Path(target) == out:
            raise KeyboardInterrupt
        return real_rename(self, target)

    monkeypatch.setattr(hfdata.Path, "rename", killed)
    with pytest.raises(KeyboardInterrupt):
        bench.build(geolaux_sample(), str(out), overwrite=True)
    monkeypatch.undo()
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before
    assert [p.name for p in tmp_path.iterdir()] == ["built"]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# --------------------------------------------------------------------------- releases


def _png(size: tuple[int, int] = (8, 8)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, "white").save(buffer, format="PNG")
    return buffer.getvalue()


def test_an_image_symlink_leaving_the_release_is_refused(tmp_path: Path) -> None:
    release = tmp_path / "release"
    release.mkdir()
    secret = tmp_path / "secret.png"
    secret.write_bytes(_png())
    (release / "figure.png").symlink_to(secret)
    with pytest.raises(DataError, match=r"item '7', field 'image'.*outside the release"):
        read_image("7", "image", release / "figure.png", inside=release)
    (release / "own.png").write_bytes(_png())
    (release / "alias.png").symlink_to(release / "own.png")  # a link inside is fine
    assert read_image("7", "image", release / "alias.png", inside=release)["bytes"] == _png()


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
def test_a_decompression_bomb_is_refused_by_its_header(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.png"
    Image.new("1", (12000, 12000)).save(bomb, format="PNG")  # a few KB on disk
    assert bomb.stat().st_size < 100_000
    with pytest.raises(DataError, match=r"field 'image'.*12000×12000 pixels"):
        read_image("3", "image", bomb, inside=tmp_path)


def test_an_oversized_image_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.png"
    with big.open("wb") as handle:  # sparse: 2 GB claimed, nothing written
        handle.truncate(2 * 1024**3)

    def no_reading(self: Path) -> bytes:
        raise AssertionError("read a whole oversized file")

    monkeypatch.setattr(Path, "read_bytes", no_reading)
    with pytest.raises(DataError, match="larger than"):
        read_image("9", "image", big, inside=tmp_path)


def _geolaux_release(tmp_path: Path) -> Path:
    release = tmp_path / "geolaux"
    shutil.copytree(geolaux_sample(), release)
    return release


def test_a_duplicate_id_in_a_release_is_an_error_naming_it(tmp_path: Path) -> None:
    release = _geolaux_release(tmp_path)
    json_file = next(release.glob("*.json"))
    text = json_file.read_text(encoding="utf-8")
    data = json.loads(text)
    first_id = next(iter(data))
    record = json.dumps(data[first_id], ensure_ascii=False)
    duplicated = text.rstrip().rstrip("}") + f', "{first_id}": {record}}}'
    json_file.write_text(duplicated, encoding="utf-8")
    with pytest.raises(DataError, match=rf"item '{first_id}', field 'id'.*{json_file.name}.*twice"):
        get_benchmark("geolaux").build(str(release), str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("content", "says"),
    [(b"\xff\xfe{\"a\": 1}", "not UTF-8"), (b"[" * 100_000, "not valid JSON")],
)
def test_unreadable_release_json_names_the_file(tmp_path: Path, content: bytes, says: str) -> None:
    release = _geolaux_release(tmp_path)
    json_file = next(release.glob("*.json"))
    json_file.write_bytes(content)
    with pytest.raises(DataError, match=rf"field '{json_file.name}'.*{says}"):
        get_benchmark("geolaux").build(str(release), str(tmp_path / "out"))


# --------------------------------------------------------------------------- keys


KEY, JUDGE_KEY = "sk-model-SECRET", "sk-judge-SECRET"


def _auth(server: ChatServer) -> list[str | None]:
    return [headers.get("Authorization") for headers in server.headers]


def _judge_and_model(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], *, model_flag: str | None,
                     judge_flag: str | None) -> tuple[Any, Any]:
    for name in ("GEOMEVAL_API_KEY", "GEOMEVAL_JUDGE_API_KEY", "GEOMEVAL_BASE_URL", "GEOMEVAL_JUDGE_BASE_URL",
                 "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    model = parse_model_spec("openai:m", ModelOptions(base_url=model_flag))
    judge = parse_judge_spec("openai:j", base_url=judge_flag, model_base_url=model_flag)
    return model, judge


@pytest.mark.parametrize(
    ("how", "judge_gets_model_key"),
    [
        ("model flag, judge from GEOMEVAL_BASE_URL", False),
        ("model flag, judge flag elsewhere", False),
        ("both from GEOMEVAL_BASE_URL", True),
        ("model flag, judge flag on the same server", True),
        ("judge from GEOMEVAL_JUDGE_BASE_URL", False),
    ],
)
def test_each_key_goes_only_to_the_host_it_was_given_for(
    monkeypatch: pytest.MonkeyPatch, how: str, judge_gets_model_key: bool
) -> None:
    with ChatServer(lambda r: "ok") as model_server, ChatServer(lambda r: "ok") as judge_server:
        a, b = model_server.base_url, judge_server.base_url
        setups = {
            "model flag, judge from GEOMEVAL_BASE_URL": ({"GEOMEVAL_BASE_URL": b}, a, None, b),
            "model flag, judge flag elsewhere": ({}, a, b, b),
            "both from GEOMEVAL_BASE_URL": ({"GEOMEVAL_BASE_URL": a}, None, None, a),
            "model flag, judge flag on the same server": ({}, a, a + "/", a),
            "judge from GEOMEVAL_JUDGE_BASE_URL": ({"GEOMEVAL_JUDGE_BASE_URL": b}, a, None, b),
        }
        env, model_flag, judge_flag, judge_lands = setups[how]
        model, judge = _judge_and_model(
            monkeypatch, {"GEOMEVAL_API_KEY": KEY, **env}, model_flag=model_flag, judge_flag=judge_flag
        )
        assert ask(model.client).text == "ok" and ask(judge.client).text == "ok"
        seen = {a: _auth(model_server), b: _auth(judge_server)}
    assert seen[a][0] == f"Bearer {KEY}"  # the model's own request
    judge_header = seen[judge_lands][-1]
    assert judge_header == (f"Bearer {KEY}" if judge_gets_model_key else None)
    if judge_lands != a:
        assert all(header is None for header in seen[b])


def test_the_judge_key_goes_to_the_judge_only(monkeypatch: pytest.MonkeyPatch) -> None:
    with ChatServer(lambda r: "ok") as model_server, ChatServer(lambda r: "ok") as judge_server:
        model, judge = _judge_and_model(
            monkeypatch, {"GEOMEVAL_API_KEY": KEY, "GEOMEVAL_JUDGE_API_KEY": JUDGE_KEY},
            model_flag=model_server.base_url, judge_flag=judge_server.base_url,
        )
        ask(model.client)
        ask(judge.client)
        assert _auth(model_server) == [f"Bearer {KEY}"] and _auth(judge_server) == [f"Bearer {JUDGE_KEY}"]


def test_a_judge_left_on_the_default_host_never_gets_the_models_key(monkeypatch: pytest.MonkeyPatch) -> None:
    _, judge = _judge_and_model(monkeypatch, {"GEOMEVAL_API_KEY": KEY}, model_flag="http://127.0.0.1:1/v1",
                                judge_flag=None)
    assert judge.client.base_url == "https://api.openai.com/v1"
    assert judge.client._ChatClient__api_key is None


def test_openai_api_key_is_the_fallback_for_openais_server_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """OPENAI_API_KEY is given for OpenAI's server (or the one OPENAI_BASE_URL names): it is
    used there when no GEOMEVAL key is set, and never sent anywhere else."""
    openai_key = "sk-openai-SECRET"
    with ChatServer(lambda r: "ok") as openai_like, ChatServer(lambda r: "ok") as elsewhere:
        model, judge = _judge_and_model(
            monkeypatch, {"OPENAI_API_KEY": openai_key, "OPENAI_BASE_URL": openai_like.base_url},
            model_flag=openai_like.base_url, judge_flag=elsewhere.base_url,
        )
        ask(model.client)
        ask(judge.client)
        assert _auth(openai_like) == [f"Bearer {openai_key}"] and _auth(elsewhere) == [None]
        _, judge = _judge_and_model(
            monkeypatch, {"OPENAI_API_KEY": openai_key, "OPENAI_BASE_URL": openai_like.base_url,
                          "GEOMEVAL_JUDGE_API_KEY": JUDGE_KEY},
            model_flag=elsewhere.base_url, judge_flag=openai_like.base_url,
        )
        ask(judge.client)
        assert _auth(openai_like)[-1] == f"Bearer {JUDGE_KEY}"  # a geomeval key, where given, wins
    _, judge = _judge_and_model(monkeypatch, {"OPENAI_API_KEY": openai_key}, model_flag=None, judge_flag=None)
    assert judge.client._ChatClient__api_key == openai_key  # OpenAI's own server, by default


def test_a_captioner_elsewhere_never_gets_the_models_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOMEVAL_API_KEY", KEY)
    monkeypatch.delenv("GEOMEVAL_BASE_URL", raising=False)
    with ChatServer(lambda r: "ok") as captioner_server:
        captioner = parse_model_spec(
            "openai:c", ModelOptions(base_url=captioner_server.base_url, key_base_url="http://127.0.0.1:1/v1")
        )
        ask(captioner.client)
        assert _auth(captioner_server) == [None]


# --------------------------------------------------------------------------- hostile servers


def test_an_oversized_reply_is_refused_unread_and_not_retried() -> None:
    huge = "x" * (9 * 1024 * 1024)
    with ChatServer(lambda r: huge) as server:
        client = ChatClient("m", base_url=server.base_url, retry=RetryPolicy(base_delay_s=0.01))
        done = ask(client)
        assert done.text is None and "refused" in (done.error or "") and len(server.requests) == 1


def test_retry_after_is_capped_and_a_request_has_a_deadline() -> None:
    assert RetryPolicy().delay(1, 100_000.0, __import__("random").Random(0)) <= 60.0
    fault = Fault(rate=1.0, kind="hang", hang_s=30)
    with ChatServer(lambda r: "late", faults=[fault]) as server:
        client = ChatClient("m", base_url=server.base_url, timeout_s=0.4,
                            retry=RetryPolicy(base_delay_s=0.01, breaker_failures=100))
        done = ask(client)
        sent = len(server.requests)
    assert done.text is None and "deadline" in (done.error or "")
    # not six timeouts: the 2.5x deadline leaves room for two or three 0.4 s waits (counted, not timed)
    assert 1 <= sent <= 3 and done.attempts == sent


def test_a_silent_server_opens_the_circuit_after_a_few_requests() -> None:
    fault = Fault(rate=1.0, kind="hang", hang_s=30)
    with ChatServer(lambda r: "late", faults=[fault]) as server:
        client = ChatClient("m", base_url=server.base_url, timeout_s=0.2, retry=RetryPolicy(base_delay_s=0.01))

        async def many() -> list[Any]:
            try:
                return await asyncio.gather(*(client.complete([{"role": "user", "content": str(i)}])
                                              for i in range(10)), return_exceptions=True)
            finally:
                await client.aclose()

        outcomes = asyncio.run(many())
    assert any(isinstance(o, EndpointFailure) for o in outcomes)
    assert "requests in a row failed" in str(client.failure)


# --------------------------------------------------------------------------- model answers


def test_the_sandbox_kills_a_call_past_its_time_limit_and_carries_on() -> None:
    import math

    from geomeval.engines.sandbox import Sandbox, SandboxLimit, SandboxStalled

    sandbox = Sandbox(workers=1, timeout_s=0.5, wall_s=300.0)
    stalls = Sandbox(workers=1, timeout_s=0.5, wall_s=1.0)
    try:
        with pytest.raises(SandboxLimit, match=r"CPU time limit of 0\.5 s"):
            sandbox.call(math.factorial, 2_000_000)  # seconds of CPU in one C call
        assert sandbox.call(len, "four") == 4  # a fresh worker
        with pytest.raises(SandboxStalled, match="safety net"):  # sleeping costs no CPU: only the net stops it
            stalls.call(time.sleep, 30)
        with pytest.raises(ValueError, match="invalid literal"):  # other errors come back as they are
            sandbox.call(int, "x")
    finally:
        sandbox.close()
        stalls.close()


def test_the_sandbox_caps_memory() -> None:
    from geomeval.engines.sandbox import Sandbox, SandboxLimit

    sandbox = Sandbox(workers=1, memory_bytes=1024**3)
    try:
        with pytest.raises(SandboxLimit, match="memory"):
            sandbox.call(bytearray, 4 * 1024**3)
        assert sandbox.call(len, "ok") == 2
    finally:
        sandbox.close()


def test_a_runaway_text_or_list_in_one_line_is_that_lines_failure() -> None:
    from geomeval.geogebra import run_script

    doubling = 's0 = "ab"\n' + "\n".join(f"s{i} = s{i - 1} + s{i - 1}" for i in range(1, 41))
    nested = "L = Sequence(Sequence(k, k, 1, 10000), j, 1, 10000)\nt = \"\" + L"
    listed = "L = Sequence(k, k, 1, 10000)\nt = Text(Sequence(L, j, 1, 100))"
    for script, says in ((doubling, "a text of more than"), (nested, "list elements"), (listed, "a text of more than")):
        started = time.monotonic()
        construction = run_script(script)
        assert time.monotonic() - started < 2
        assert not construction.pass_at_1 and says in construction.errors[0].error


def _ggbench_record(answer: str) -> Any:
    bench = get_benchmark("ggbench")
    item = bench.load_items(None, "ggbench_code", 1)[0]
    record = bench.new_record(item, "ggbench_code")
    record.response = answer
    return bench, record


def _score(bench: Any, record: Any) -> dict[str, Any]:
    from geomeval.engines.judges import Judge

    return asyncio.run(bench.score(record, Judge("offline")))


def test_a_verifier_crash_costs_the_verifier_alone_at_its_floor() -> None:
    bench, record = _ggbench_record(
        "```geogebra\nA = (1e308, 1)\nB = (0, 0)\ns = Segment(A, B)\nc = Circle(A, B)\n```"
    )
    scores = _score(bench, record)
    assert scores["Pass@1"].value == 1.0  # every line ran
    assert scores["BLEU"].scored and scores["SSIM"].scored
    assert scores["verifier"].scored and scores["verifier"].value <= 1.0
    assert all(s.scored or s.needs_judge for s in scores.values())


def test_an_answer_past_the_sandbox_limits_scores_the_floor_not_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from geomeval.benchmarks.ggbench import scoring
    from geomeval.engines.sandbox import Sandbox

    quick = Sandbox(workers=1, timeout_s=0.01)
    monkeypatch.setattr(scoring, "shared_sandbox", lambda: quick)
    try:
        bench, record = _ggbench_record("Plan: a point.\n```geogebra\nA = (0, 0)\n```")
        scores = _score(bench, record)
    finally:
        quick.close()
    for name in ("Pass@1", "verifier", "PSNR", "SSIM"):
        assert scores[name].value == scoring.FLOOR[name] and "time limit" in scores[name].explanation
    assert scores["BLEU"].scored  # text only: still computed


def test_a_key_inside_the_base_url_is_refused_without_echoing_it() -> None:
    with pytest.raises(ValueError, match="GEOMEVAL_API_KEY") as refused:
        ChatClient("m", base_url="http://user:sk-IN-URL@127.0.0.1:8000/v1")
    assert "sk-IN-URL" not in str(refused.value)


def test_a_power_tower_is_answered_at_once() -> None:
    from geomeval.answers import check_answer

    started = time.monotonic()
    for prediction, gold in (("10^{10^{10}}", "1"), ("2^{3^{4^{5}}}", "2"), ("(10^10)^(10^10)", "3")):
        verdict = check_answer(prediction, gold)
        assert not verdict.equal and verdict.rule == "too-large"
    assert check_answer("10^{10^{10}}", "10^{10^{10}}").equal
    assert time.monotonic() - started < 1.0

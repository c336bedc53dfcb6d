"""geomeval.engines.imagemetrics on real images drawn here with PIL: PSNR, SSIM, input handling, LPIPS."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import math
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw

from geomeval.engines import imagemetrics as im
from geomeval.engines.imagemetrics import (
    ALEXNET_ENV,
    ALEXNET_FILENAME,
    LpipsUnavailable,
    LpipsUnavailableWarning,
    image_metrics,
    load_image,
    lpips_distance,
    lpips_status,
    psnr,
    ssim,
)


def drawing(size: int = 256, dx: float = 0, mode: str = "RGB") -> Image.Image:
    """A GGBench-like construction (triangle, circle, a cevian, vertex dots), drawn at any size
    in 256-pixel units, optionally shifted right by dx units."""
    scale = size / 256
    background = (255, 255, 255, 0) if mode == "RGBA" else "white"
    image = Image.new(mode, (size, size), background)
    draw = ImageDraw.Draw(image)
    width = round(2 * scale)

    def point(x: float, y: float) -> tuple[float, float]:
        return ((x + dx) * scale, y * scale)

    a, b, c = point(40, 200), point(216, 200), point(100, 50)
    draw.polygon([a, b, c], outline="black", width=width)
    draw.ellipse([point(70, 90), point(170, 190)], outline=(0, 0, 200), width=width)
    draw.line([c, point(158, 200)], fill=(200, 0, 0), width=width)
    r = 3 * scale
    for x, y in (a, b, c):
        draw.ellipse([x - r, y - r, x + r, y + r], fill="black")
    return image


def encoded(image: Image.Image, fmt: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


def white(size: tuple[int, int] = (256, 256)) -> Image.Image:
    return Image.new("RGB", size, "white")


def png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims width×height but which carries (almost) no pixel data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00"))
        + chunk(b"IEND", b"")
    )


# ---------------------------------------------------------------------------------------
# PSNR and SSIM


def test_identical_images_give_ssim_one_and_infinite_psnr() -> None:
    image = drawing()
    assert ssim(image, image) == pytest.approx(1.0, abs=1e-12)
    assert psnr(image, image) == math.inf
    assert psnr(encoded(image), drawing()) == math.inf  # equal pixels, whatever the form


def test_slightly_shifted_drawing_lowers_both_metrics() -> None:
    base, shifted = drawing(), drawing(dx=1)
    score = ssim(base, shifted)
    assert 0.0 < score < 1.0
    assert math.isfinite(psnr(base, shifted))
    assert psnr(base, shifted) < psnr(base, base)
    assert score == pytest.approx(ssim(shifted, base), abs=1e-12)  # symmetric


def test_blank_canvas_scores_lower_ssim_than_a_slight_shift() -> None:
    # Line drawings are mostly white paper, so SSIM stays high even for a blank canvas (about
    # 0.84 here); a 1-pixel shift keeps more structure (about 0.92). With this drawing a
    # 3-pixel shift already scores below the blank canvas: SSIM is a weak signal for sparse
    # line art, which is why GGBench also asks a judge model.
    base = drawing()
    assert ssim(base, white()) < ssim(base, drawing(dx=1))


def test_psnr_of_uniform_images_is_hand_checkable() -> None:
    black = Image.new("RGB", (256, 256), (0, 0, 0))
    grey = Image.new("RGB", (256, 256), (10, 10, 10))
    assert psnr(black, grey) == pytest.approx(20 * math.log10(255 / 10), abs=1e-9)
    # Other sizes stay uniform through the resize, so the value is the same.
    small_black = Image.new("RGB", (100, 60), (0, 0, 0))
    small_grey = Image.new("RGB", (300, 200), (10, 10, 10))
    assert psnr(small_black, small_grey) == pytest.approx(20 * math.log10(25.5), abs=1e-9)


def test_psnr_averages_over_the_three_channels() -> None:
    red = Image.new("RGB", (256, 256), (255, 0, 0))
    black = Image.new("RGB", (256, 256), (0, 0, 0))
    # MSE = 255² / 3, so PSNR = 10·log10(3).
    assert psnr(red, black) == pytest.approx(10 * math.log10(3), abs=1e-9)


def _ssim_brute_force(x: np.ndarray, y: np.ndarray) -> float:
    """Wang et al.'s SSIM written out window by window: the check on the separable code."""
    g = np.exp(-((np.arange(11) - 5.0) ** 2) / (2 * 1.5**2))
    window = np.outer(g, g) / np.outer(g, g).sum()
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    scores = []
    for i in range(x.shape[0] - 10):
        for j in range(x.shape[1] - 10):
            px, py = x[i : i + 11, j : j + 11], y[i : i + 11, j : j + 11]
            mx, my = (window * px).sum(), (window * py).sum()
            vx = (window * (px - mx) ** 2).sum()
            vy = (window * (py - my) ** 2).sum()
            cov = (window * (px - mx) * (py - my)).sum()
            scores.append(
                ((2 * mx * my + c1) * (2 * cov + c2)) / ((mx**2 + my**2 + c1) * (vx + vy + c2))
            )
    return float(np.mean(scores))


def test_ssim_matches_a_window_by_window_reference() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (30, 40)).astype(np.float64)
    y = np.clip(x + rng.normal(0, 25, x.shape), 0, 255).round()
    assert im._ssim(x, y) == pytest.approx(_ssim_brute_force(x, y), abs=1e-9)


def test_ssim_matches_scikit_image() -> None:
    from skimage import metrics  # the test extra installs scikit-image

    for candidate in (drawing(dx=1), white(), drawing(512), drawing(dx=7)):
        x = im._gray(load_image(drawing()))
        y = im._gray(load_image(candidate))
        expected = metrics.structural_similarity(
            x,
            y,
            gaussian_weights=True,
            sigma=1.5,
            use_sample_covariance=False,
            data_range=255,
        )
        assert ssim(drawing(), candidate) == pytest.approx(expected, abs=1e-3)


# ---------------------------------------------------------------------------------------
# Normalisation: transparency, size, input forms


def test_fully_transparent_image_equals_white() -> None:
    # Transparent black pixels: convert("RGB") alone would make this image black.
    clear = Image.new("RGBA", (256, 256), (0, 0, 0, 0))
    assert (load_image(clear) == 255).all()
    assert psnr(clear, white()) == math.inf
    assert ssim(encoded(clear), white()) == pytest.approx(1.0, abs=1e-12)


def test_transparent_drawing_matches_the_same_drawing_on_white() -> None:
    assert psnr(drawing(mode="RGBA"), drawing()) == math.inf


def test_half_transparent_black_composites_to_mid_grey() -> None:
    pixels = load_image(Image.new("RGBA", (256, 256), (0, 0, 0, 128)))
    assert np.abs(pixels.astype(int) - 127).max() <= 1


def test_palette_transparency_is_composited_over_white() -> None:
    image = Image.new("P", (64, 64), 0)
    image.putpalette([0, 0, 0, 255, 0, 0] + [0] * (254 * 3))
    image.info["transparency"] = 0
    ImageDraw.Draw(image).rectangle([20, 20, 40, 40], fill=1)
    pixels = load_image(encoded(image, "GIF"))
    assert tuple(pixels[0, 0]) == (255, 255, 255)
    assert tuple(pixels[128, 128]) == (255, 0, 0)


def test_renderings_at_other_sizes_compare_closely() -> None:
    base = drawing()
    shifted = ssim(base, drawing(dx=1))
    for size in (512, 1024):
        score = ssim(base, drawing(size))
        assert score > 0.9
        assert score > shifted
    assert load_image(drawing(512)).shape == (256, 256, 3)
    assert load_image(Image.new("L", (640, 480), 0)).shape == (256, 256, 3)


def test_every_input_form_gives_the_same_pixels(tmp_path: Path) -> None:
    image = drawing(300)
    data = encoded(image)
    path = tmp_path / "drawing.png"
    path.write_bytes(data)
    expected = load_image(image)
    assert expected.dtype == np.uint8
    forms = [
        data,
        bytearray(data),
        path,
        str(path),
        {"bytes": data, "path": None},
        {"bytes": None, "path": str(path)},
        expected,  # an already normalised array passes through unchanged
    ]
    for form in forms:
        np.testing.assert_array_equal(load_image(form), expected)


def test_jpeg_of_the_drawing_is_close_to_the_png() -> None:
    assert ssim(encoded(drawing(), "JPEG"), drawing()) > 0.9


def test_bad_bytes_raise_value_error() -> None:
    data = encoded(drawing())
    with pytest.raises(ValueError, match="cannot decode image"):
        load_image(b"definitely not an image")
    with pytest.raises(ValueError, match="cannot decode image"):
        psnr(data[: len(data) // 2], data)
    with pytest.raises(ValueError, match="empty"):
        ssim(b"", data)
    with pytest.raises(ValueError, match="cannot decode image"):
        load_image(Image.open(io.BytesIO(data[: len(data) // 2])))  # lazily opened, as datasets
    with pytest.raises(ValueError, match="neither 'bytes' nor 'path'"):
        load_image({"bytes": None, "path": None})
    with pytest.raises(ValueError, match="cannot decode image"):
        image_metrics(data, data[:100])


def test_other_bad_inputs() -> None:
    with pytest.raises(TypeError, match="not an image"):
        load_image(12345)
    with pytest.raises(FileNotFoundError):
        load_image("/nonexistent/image.png")
    with pytest.raises(ValueError, match="uint8"):
        load_image(np.zeros((8, 8, 3), dtype=np.float32))


def test_oversize_images_are_refused_from_the_header() -> None:
    # 8000×8000 = 64 megapixels, refused before decoding (the data would not even decode).
    with pytest.raises(ValueError, match="exceeds the limit of 50,000,000"):
        load_image(png_header_only(8000, 8000))
    # Far larger: PIL's own decompression-bomb guard fires first, reported the same way.
    with pytest.raises(ValueError, match="refusing image"):
        load_image(png_header_only(20000, 20000))


def test_pixel_limit_applies_to_every_input_form(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(im, "MAX_PIXELS", 10_000)
    for form in (drawing(101), encoded(drawing(101)), np.zeros((101, 101, 3), np.uint8)):
        with pytest.raises(ValueError, match="exceeds the limit"):
            load_image(form)
    assert load_image(drawing(100)).shape == (256, 256, 3)


def test_image_metrics_without_lpips() -> None:
    result = image_metrics(drawing(dx=1), drawing())
    assert set(result) == {"PSNR", "SSIM"}
    assert result["PSNR"] == pytest.approx(psnr(drawing(dx=1), drawing()))
    assert result["SSIM"] == pytest.approx(ssim(drawing(dx=1), drawing()))


# ---------------------------------------------------------------------------------------
# LPIPS


def _lpips_installed() -> bool:
    return importlib.util.find_spec("lpips") is not None


def test_missing_alexnet_weights_raise_a_helpful_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if not _lpips_installed():
        reason = lpips_status()
        assert reason is not None and "lpips is not installed" in reason
        with pytest.raises(LpipsUnavailable, match="lpips is not installed"):
            lpips_distance(drawing(), drawing())
        return
    missing = tmp_path / "nowhere" / ALEXNET_FILENAME
    monkeypatch.setenv(ALEXNET_ENV, str(missing))
    with pytest.raises(LpipsUnavailable) as caught:
        lpips_distance(drawing(), drawing())
    message = str(caught.value)
    assert str(missing) in message
    assert ALEXNET_FILENAME in message
    assert ALEXNET_ENV in message
    assert "torchvision.models.alexnet(weights='IMAGENET1K_V1')" in message
    assert "never downloads" in message
    assert lpips_status() == message


def test_missing_alexnet_weights_default_to_the_torch_hub_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(ALEXNET_ENV, raising=False)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch-home"))
    path, how = im.alexnet_weights_path()
    assert path == tmp_path / "torch-home" / "hub" / "checkpoints" / ALEXNET_FILENAME
    assert ALEXNET_ENV in how
    if _lpips_installed():
        with pytest.raises(LpipsUnavailable, match=str(path)):
            lpips_distance(drawing(), drawing())


def test_image_metrics_reports_unavailable_lpips_as_none_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(ALEXNET_ENV, str(tmp_path / "missing.pth"))
    with pytest.warns(LpipsUnavailableWarning, match="LPIPS unavailable"):
        result = image_metrics(drawing(dx=1), drawing(), lpips=True)
    assert result["LPIPS"] is None
    assert result["SSIM"] is not None and result["SSIM"] < 1
    assert lpips_status() is not None


NO_LPIPS = (
    "lpips is not installed: it needs a torchvision built for the CPU torch, which no package "
    "index reachable here provides (lmms-eval's CUDA torchvision cannot import beside it)"
)


def _importable_lpips() -> tuple[Any, Any]:
    """torch, torchvision.models, or a skip: lpips needs both, and a mismatched torchvision
    fails on import with RuntimeError rather than ImportError."""
    if not _lpips_installed():
        pytest.skip(NO_LPIPS)
    try:
        import lpips  # noqa: F401
        import torch
        from torchvision import models
    except Exception as exc:
        pytest.skip(f"lpips is installed but not importable: {type(exc).__name__}: {exc}")
    return torch, models


def _random_alexnet(torch: Any, models: Any, path: Path) -> str:
    """Save a randomly initialised torchvision AlexNet at path; return its sha256 prefix."""
    torch.manual_seed(0)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(models.alexnet(weights=None).state_dict(), path)
    return hashlib.sha256(path.read_bytes()).hexdigest()[:8]


def _forbid_downloads(monkeypatch: pytest.MonkeyPatch, torch: Any) -> None:
    def no_download(*args: object, **kwargs: object) -> None:
        raise AssertionError("LPIPS tried to download weights")

    monkeypatch.setattr(torch.hub, "download_url_to_file", no_download)


def test_lpips_loads_weights_from_the_env_path_without_downloading(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    torch, models = _importable_lpips()
    weights = tmp_path / "elsewhere" / "alexnet-random.pth"
    monkeypatch.setattr(im, "_ALEXNET_SHA256_PREFIX", _random_alexnet(torch, models, weights))
    _forbid_downloads(monkeypatch, torch)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "empty-torch-home"))
    monkeypatch.setenv(ALEXNET_ENV, str(weights))
    assert lpips_status() is None
    assert lpips_distance(drawing(), encoded(drawing())) == 0.0
    near = lpips_distance(drawing(), drawing(dx=1))
    assert near > 0.0
    assert lpips_distance(drawing(), white()) > 0.0
    result = image_metrics(drawing(dx=1), drawing(), lpips=True)
    assert result["LPIPS"] == pytest.approx(near, rel=1e-6)


@pytest.mark.filterwarnings("ignore::UserWarning")  # torchvision's 'pretrained' deprecation
def test_lpips_from_the_hub_cache_equals_lpips_own_loading(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The same (random) AlexNet file where torchvision itself looks: lpips.LPIPS(net="alex")
    # loads it through torchvision, geomeval through its own renaming; both must agree.
    torch, models = _importable_lpips()
    import lpips

    home = tmp_path / "torch-home"
    weights = home / "hub" / "checkpoints" / ALEXNET_FILENAME
    monkeypatch.setattr(im, "_ALEXNET_SHA256_PREFIX", _random_alexnet(torch, models, weights))
    _forbid_downloads(monkeypatch, torch)
    monkeypatch.setenv("TORCH_HOME", str(home))
    monkeypatch.delenv(ALEXNET_ENV, raising=False)
    reference = lpips.LPIPS(net="alex", version="0.1", verbose=False)

    def expected(a: Image.Image, b: Image.Image) -> float:
        def tensor(image: Image.Image) -> Any:
            pixels = torch.from_numpy(load_image(image).astype(np.float32) / 255.0)
            return pixels.permute(2, 0, 1).unsqueeze(0)

        with torch.no_grad():
            return float(reference(tensor(a), tensor(b), normalize=True).item())

    for other in (drawing(dx=1), white(), drawing(512)):
        assert lpips_distance(drawing(), other) == pytest.approx(
            expected(drawing(), other), rel=1e-5
        )


def test_lpips_refuses_a_file_that_is_not_torchvisions_alexnet(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    weights = tmp_path / ALEXNET_FILENAME
    weights.write_bytes(b"not the weights")
    monkeypatch.setenv(ALEXNET_ENV, str(weights))
    if not _lpips_installed():
        pytest.skip(NO_LPIPS)
    with pytest.raises(LpipsUnavailable, match="sha256"):
        lpips_distance(drawing(), drawing())


def test_lpips_refuses_weights_of_another_network(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    torch, _models = _importable_lpips()
    weights = tmp_path / "other.pth"
    torch.save({"features.0.weight": torch.zeros(3, 3)}, weights)
    monkeypatch.setattr(im, "_ALEXNET_SHA256_PREFIX", "")  # any file passes the hash check
    monkeypatch.setenv(ALEXNET_ENV, str(weights))
    with pytest.raises(LpipsUnavailable, match="does not hold torchvision AlexNet weights"):
        lpips_distance(drawing(), drawing())
    garbage = tmp_path / "garbage.pth"
    garbage.write_bytes(b"\x00" * 100)
    monkeypatch.setenv(ALEXNET_ENV, str(garbage))
    assert "cannot read AlexNet weights" in (lpips_status() or "")


def test_lpips_with_the_real_weights() -> None:
    reason = lpips_status()
    if reason is not None:
        pytest.skip(reason)
    assert lpips_distance(drawing(), drawing()) == pytest.approx(0.0, abs=1e-6)
    near = lpips_distance(drawing(), drawing(dx=1))
    assert 0.0 < near < lpips_distance(drawing(), white())


def test_a_truncated_image_is_refused_even_after_lmms_eval_allows_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """lmms-eval sets PIL's LOAD_TRUNCATED_IMAGES for the whole process when imported; a
    figure cut short must still be refused, not scored as the pixels PIL invents, and the
    process's setting is left as it was."""
    from PIL import ImageFile

    data = encoded(drawing())
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)
    with pytest.raises(ValueError, match="cannot decode image"):
        psnr(data[: len(data) // 2], data)
    with pytest.raises(ValueError, match="cannot decode image"):
        load_image(Image.open(io.BytesIO(data[: len(data) // 2])))
    assert ImageFile.LOAD_TRUNCATED_IMAGES is True

"""Image similarity for GGBench: a model's final construction image against the reference.

GGBench reports PSNR, SSIM and LPIPS between the two images after bringing both to
256×256. This module computes them deterministically and offline:

* Every input (PNG/JPEG bytes, a path, a PIL image, a datasets-style ``{"bytes", "path"}``
  dict, or a uint8 array) goes through :func:`load_image`: first frame only, transparency
  composited over white (a geometry drawing's background is white paper; GGBench's
  ``convert("RGB")`` would instead expose whatever colour the transparent pixels store,
  often black), then resized to 256×256 with PIL's LANCZOS filter (GGBench's filter), no
  aspect-ratio preservation (as GGBench). EXIF orientation is ignored, as GGBench does.
* :func:`psnr` is on RGB 0–255; identical images give ``math.inf`` (as GGBench), which
  callers may cap or drop when averaging.
* :func:`ssim` is Wang et al. (2004) on grayscale (PIL's ITU-R 601-2 luma, as GGBench's
  ``convert("L")``) with an 11×11 Gaussian window, σ = 1.5, K1 = 0.01, K2 = 0.03, L = 255,
  population statistics, averaged over the 'valid' region, computed by scikit-image's
  ``structural_similarity`` with those parameters. GGBench itself calls
  scikit-image's defaults (7×7 uniform window, sample covariance) on float input without
  ``data_range``, which recent scikit-image rejects; so the numbers here follow the paper,
  not that script.
* :func:`lpips_distance` is LPIPS v0.1 with the AlexNet trunk, from the optional ``lpips``
  package (extra ``image-metrics``), on CPU with inputs scaled to [-1, 1] as lpips expects
  (GGBench passes [0, 1] without ``normalize=True``). Nothing is ever downloaded: the
  torchvision AlexNet weights must already be on disk (see :func:`alexnet_weights_path`),
  and :func:`lpips_status` says why LPIPS is unusable when it is.

Decoding is bounded: an image of more than :data:`MAX_PIXELS` pixels is refused from its
header, before its pixels are decoded.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import math
import os
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageFile, UnidentifiedImageError

__all__ = [
    "ALEXNET_ENV",
    "ALEXNET_FILENAME",
    "MAX_PIXELS",
    "RESAMPLE",
    "SIZE",
    "LpipsUnavailable",
    "LpipsUnavailableWarning",
    "alexnet_weights_path",
    "image_metrics",
    "load_image",
    "lpips_distance",
    "lpips_status",
    "psnr",
    "ssim",
]

SIZE = 256
"""Side of the square both images are resized to (GGBench's metric size)."""

RESAMPLE = Image.Resampling.LANCZOS
"""Resize filter; LANCZOS is what GGBench's evaluate.py uses."""

MAX_PIXELS = 50_000_000
"""Largest decoded image accepted (width × height), checked from the header before decoding."""

WHITE = (255, 255, 255)

# SSIM constants (Wang et al. 2004).
SSIM_SIGMA = 1.5
SSIM_K1 = 0.01
SSIM_K2 = 0.03
DATA_RANGE = 255.0

ALEXNET_ENV = "GEOMEVAL_LPIPS_ALEXNET"
"""Environment variable naming the torchvision AlexNet weights file, if not in the hub cache."""

ALEXNET_FILENAME = "alexnet-owt-7be5be79.pth"
"""torchvision's file name for AlexNet IMAGENET1K_V1; its sha256 starts with the suffix."""

_ALEXNET_SHA256_PREFIX = "7be5be79"
_LPIPS_LIN_WEIGHTS = Path("weights") / "v0.1" / "alex.pth"
_ALEXNET_DOWNLOAD_HINT = (
    "python -c \"import torchvision; torchvision.models.alexnet(weights='IMAGENET1K_V1')\""
)
_ALPHA_MODES = frozenset({"RGBA", "RGBa", "LA", "La", "PA"})


class LpipsUnavailable(RuntimeError):
    """LPIPS cannot be computed here; the message says what is missing and how to fix it."""


class LpipsUnavailableWarning(RuntimeWarning):
    """Emitted by :func:`image_metrics` when LPIPS was asked for but is reported as None."""


# ---------------------------------------------------------------------------------------
# Loading and normalising images


def decode_image(image: Any) -> Image.Image:
    """Any supported input as a loaded PIL image: ValueError when it cannot be decoded (empty,
    corrupt, too many pixels), FileNotFoundError for a path to no file, TypeError for what is
    no image at all."""
    return _decode(image)


def load_image(image: Any) -> np.ndarray:
    """The image as a 256×256×3 uint8 RGB array, transparency composited over white.

    Every metric sees exactly this array, so two callers comparing the same files get the
    same numbers whatever form the images came in.
    """
    return _normalise(_decode(image))


# What PIL raises for corrupt, truncated or unknown data.
_DECODE_ERRORS = (UnidentifiedImageError, OSError, SyntaxError, EOFError, ValueError)


_STRICT = threading.Lock()


@contextlib.contextmanager
def _strict_decoding() -> Iterator[None]:
    """PIL's truncated-image switch off while geomeval decodes. lmms-eval turns it on for the
    whole process when imported (`ImageFile.LOAD_TRUNCATED_IMAGES = True` in its task module),
    and a figure cut short would then be scored as the pixels PIL made up for the missing
    part, not refused. The switch is PIL's global: set and restored under one lock."""
    with _STRICT:
        before = ImageFile.LOAD_TRUNCATED_IMAGES
        ImageFile.LOAD_TRUNCATED_IMAGES = False
        try:
            yield
        finally:
            ImageFile.LOAD_TRUNCATED_IMAGES = before


def _undecodable(what: str, exc: BaseException) -> ValueError:
    return ValueError(f"cannot decode image ({what}): {type(exc).__name__}: {exc}")


def _decode(image: Any) -> Image.Image:
    """A loaded PIL image from any supported input; ValueError for undecodable or huge ones."""
    if isinstance(image, Image.Image):
        _check_pixels(image.size, "the given PIL image")
        try:
            with _strict_decoding():
                image.load()  # a lazily opened image (as datasets hands out) decodes only now
        except _DECODE_ERRORS as exc:
            raise _undecodable("the given PIL image", exc) from exc
        return image
    if isinstance(image, np.ndarray):
        return _from_array(image)
    if isinstance(image, dict):
        return _decode(_dict_source(image))
    if isinstance(image, (bytes, bytearray, memoryview)):
        data = bytes(image)
        if not data:
            raise ValueError("cannot decode image: the bytes are empty")
        return _open(io.BytesIO(data), f"{len(data)} bytes")
    if isinstance(image, (str, os.PathLike)):
        path = Path(image)
        if not path.is_file():
            raise FileNotFoundError(f"image file not found: {path}")
        return _open(path, str(path))
    raise TypeError(f"not an image: {type(image).__name__}")


def _dict_source(image: dict[str, Any]) -> Any:
    """The bytes of a datasets Image feature value, else its path (the bytes win, as there)."""
    if image.get("bytes"):
        return image["bytes"]
    if image.get("path"):
        return image["path"]
    raise ValueError("image dict has neither 'bytes' nor 'path'")


def _from_array(array: np.ndarray) -> Image.Image:
    """A PIL image from an H×W, H×W×3 or H×W×4 uint8 array (e.g. :func:`load_image`'s output)."""
    if array.dtype != np.uint8 or array.ndim not in (2, 3):
        raise ValueError(f"image array must be uint8 H×W[×3|×4], got {array.dtype} {array.shape}")
    if array.ndim == 3 and array.shape[2] not in (3, 4):
        raise ValueError(f"image array must have 3 or 4 channels, got {array.shape[2]}")
    _check_pixels((array.shape[1], array.shape[0]), "the given array")
    return Image.fromarray(array)


def _open(source: io.BytesIO | Path, what: str) -> Image.Image:
    """Decode the first frame, refusing oversize images before their pixels are decoded."""
    try:
        opened = Image.open(source)
    except Image.DecompressionBombError as exc:
        raise ValueError(f"refusing image ({what}): {exc}") from exc
    except _DECODE_ERRORS as exc:
        raise _undecodable(what, exc) from exc
    with opened:
        _check_pixels(opened.size, what)
        try:
            with _strict_decoding():
                opened.load()
            return opened.copy()  # closing the file would drop the pixels of `opened`
        except _DECODE_ERRORS as exc:
            raise _undecodable(what, exc) from exc


def _check_pixels(size: tuple[int, int], what: str) -> None:
    """Bound the work: PIL's own guard only errors above ~179 megapixels."""
    width, height = size
    if width * height > MAX_PIXELS:
        raise ValueError(
            f"refusing image ({what}): {width}×{height} = {width * height:,} pixels "
            f"exceeds the limit of {MAX_PIXELS:,}"
        )


def _normalise(image: Image.Image) -> np.ndarray:
    """Composite over white, then resize: resizing straight alpha would bleed hidden colours."""
    rgb = _flatten_on_white(image)
    if rgb.size != (SIZE, SIZE):
        rgb = rgb.resize((SIZE, SIZE), RESAMPLE)
    return np.asarray(rgb, dtype=np.uint8)


def _flatten_on_white(image: Image.Image) -> Image.Image:
    """RGB with any transparency (alpha channel or tRNS colour) composited over white."""
    if image.mode in _ALPHA_MODES or "transparency" in image.info:
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (*WHITE, 255))
        return Image.alpha_composite(background, rgba).convert("RGB")
    return image.convert("RGB")


def _gray(rgb: np.ndarray) -> np.ndarray:
    """Luma as PIL's convert("L") computes it (ITU-R 601-2, rounded), like GGBench."""
    return np.asarray(Image.fromarray(rgb).convert("L"), dtype=np.float64)


# ---------------------------------------------------------------------------------------
# PSNR and SSIM


def psnr(a: Any, b: Any) -> float:
    """Peak signal-to-noise ratio in dB on RGB 0–255; ``math.inf`` for identical images."""
    return _psnr(load_image(a), load_image(b))


def _psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    if mse == 0.0:
        return math.inf
    return 10.0 * math.log10(DATA_RANGE**2 / mse)


def ssim(a: Any, b: Any) -> float:
    """Mean grayscale SSIM (Wang et al. 2004, Gaussian 11×11 σ=1.5); 1.0 for identical images."""
    return _ssim(_gray(load_image(a)), _gray(load_image(b)))


def _ssim(x: np.ndarray, y: np.ndarray) -> float:
    """scikit-image's SSIM with the paper's parameters: Gaussian weights σ = 1.5 (its default
    truncation gives the 11×11 window), population statistics, K1 0.01, K2 0.03, L = 255; the
    mean over the region where the window lies inside the image."""
    from skimage.metrics import structural_similarity

    return float(structural_similarity(
        x, y, gaussian_weights=True, sigma=SSIM_SIGMA, use_sample_covariance=False,
        data_range=DATA_RANGE, K1=SSIM_K1, K2=SSIM_K2,
    ))


# ---------------------------------------------------------------------------------------
# LPIPS (optional)

# One entry per (weights file as it is now, lpips package): the model, or the
# LpipsUnavailable it failed with, so a batch does not re-hash or re-import per image pair,
# while a file replaced on disk (new size or mtime) is tried afresh.
_MODELS: dict[tuple[str, int, int, str], Any] = {}
_MODELS_LOCK = threading.Lock()


def alexnet_weights_path() -> tuple[Path, str]:
    """Where the AlexNet weights are looked for, and how that place was chosen.

    ``$GEOMEVAL_LPIPS_ALEXNET`` when set (and then only there), else torch hub's cache,
    ``$TORCH_HOME/hub/checkpoints`` (``$TORCH_HOME`` defaulting as torch does, to
    ``$XDG_CACHE_HOME/torch`` or ``~/.cache/torch``), where torchvision itself would look.
    """
    explicit = os.environ.get(ALEXNET_ENV)
    if explicit:
        return Path(explicit).expanduser(), f"from ${ALEXNET_ENV}"
    return _hub_checkpoints() / ALEXNET_FILENAME, f"torch hub cache; ${ALEXNET_ENV} is not set"


def _hub_checkpoints() -> Path:
    """torch.hub.get_dir()/checkpoints, computed as torch does but without importing torch."""
    cache = os.getenv("XDG_CACHE_HOME", "~/.cache")
    torch_home = os.getenv("TORCH_HOME", os.path.join(cache, "torch"))
    return Path(os.path.expanduser(torch_home)) / "hub" / "checkpoints"


def _missing_alexnet_message(path: Path, how: str) -> str:
    return (
        f"LPIPS needs the torchvision AlexNet weights file {ALEXNET_FILENAME} (about 233 MB), "
        f"and none was found at {path} ({how}). geomeval never downloads it. Put the file at "
        f"{_hub_checkpoints() / ALEXNET_FILENAME}, or anywhere and set {ALEXNET_ENV} to its "
        f"path. To get it, on a machine with internet run {_ALEXNET_DOWNLOAD_HINT}, then copy "
        f"checkpoints/{ALEXNET_FILENAME} from that machine's torch hub folder (printed by "
        'python -c "import torch; print(torch.hub.get_dir())") to this machine.'
    )


def _lpips_package_dir() -> Path:
    """The installed lpips package folder, found without importing lpips (or torch)."""
    spec = importlib.util.find_spec("lpips")
    if spec is None or spec.origin is None:
        raise LpipsUnavailable(
            "lpips is not installed: pip install 'geomeval[image-metrics]' "
            "(with the CPU torch pinned in constraints.txt, and a torchvision built for it)"
        )
    return Path(spec.origin).parent


def _check_sha256(path: Path) -> None:
    """Refuse a file that is not torchvision's AlexNet: other weights give other LPIPS values."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    if not digest.hexdigest().startswith(_ALEXNET_SHA256_PREFIX):
        raise LpipsUnavailable(
            f"{path} is not torchvision's {ALEXNET_FILENAME}: its sha256 is "
            f"{digest.hexdigest()}, expected one starting with {_ALEXNET_SHA256_PREFIX} "
            f"(a partial or different file). Get it again with {_ALEXNET_DOWNLOAD_HINT}."
        )


def _lpips_model() -> Any:
    """The cached LPIPS(alex, v0.1) model, built from local files only; LpipsUnavailable else."""
    package = _lpips_package_dir()
    lin_weights = package / _LPIPS_LIN_WEIGHTS
    if not lin_weights.is_file():
        raise LpipsUnavailable(f"the lpips package lacks its linear-layer weights {lin_weights}")
    backbone, how = alexnet_weights_path()
    if not backbone.is_file():
        raise LpipsUnavailable(_missing_alexnet_message(backbone, how))
    stat = backbone.stat()
    key = (str(backbone.resolve()), stat.st_size, stat.st_mtime_ns, str(lin_weights))
    with _MODELS_LOCK:
        if key not in _MODELS:
            try:
                _check_sha256(backbone)
                _MODELS[key] = _build_lpips(lin_weights, backbone)
            except LpipsUnavailable as exc:
                _MODELS[key] = exc
        entry = _MODELS[key]
    if isinstance(entry, LpipsUnavailable):
        raise LpipsUnavailable(str(entry))
    return entry


def _import_lpips() -> tuple[Any, Any]:
    """torch and lpips, imported only now: they are heavy and optional."""
    try:
        import lpips
        import torch
    except Exception as exc:  # a mismatched torchvision raises RuntimeError, not ImportError
        raise LpipsUnavailable(
            f"lpips is installed but could not be imported ({type(exc).__name__}: {exc}); "
            "the usual cause is a torchvision not built for the installed torch "
            "(e.g. PyPI's CUDA torchvision beside a CPU torch)"
        ) from exc
    return torch, lpips


def _build_lpips(lin_weights: Path, backbone: Path) -> Any:
    """LPIPS with a randomly initialised trunk (so torchvision downloads nothing) then the
    local AlexNet weights loaded into it strictly; the linear layers come from lin_weights."""
    torch, lpips = _import_lpips()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torchvision's 'pretrained' deprecation
        model = lpips.LPIPS(
            pretrained=True,
            net="alex",
            version="0.1",
            pnet_rand=True,
            model_path=str(lin_weights),
            verbose=False,
        )
    try:
        state = torch.load(str(backbone), map_location="cpu", weights_only=True)
    except Exception as exc:
        raise LpipsUnavailable(f"cannot read AlexNet weights {backbone}: {exc}") from exc
    model.net.load_state_dict(_trunk_state(model.net.state_dict(), state, backbone), strict=True)
    model.eval()
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    return model


def _trunk_state(trunk: dict[str, Any], alexnet: dict[str, Any], path: Path) -> dict[str, Any]:
    """Rename torchvision's ``features.<i>.<p>`` to lpips' ``slice<k>.<i>.<p>``, checking shapes."""
    mapped = {}
    for name, tensor in trunk.items():
        _slice, index, param = name.split(".", 2)
        source = f"features.{index}.{param}"
        if source not in alexnet or tuple(alexnet[source].shape) != tuple(tensor.shape):
            raise LpipsUnavailable(
                f"{path} does not hold torchvision AlexNet weights ({source} missing or of "
                f"another shape)"
            )
        mapped[name] = alexnet[source]
    return mapped


def lpips_status() -> str | None:
    """None when :func:`lpips_distance` can run here, else the reason (what to install or put
    where). Loads and caches the model when everything is present, so a None is reliable."""
    try:
        _lpips_model()
    except LpipsUnavailable as exc:
        return str(exc)
    return None


def lpips_distance(a: Any, b: Any) -> float:
    """LPIPS (v0.1, AlexNet) between two images; 0 for identical ones, larger is more different.

    Raises LpipsUnavailable (never downloads) when lpips or its weights are missing.
    """
    return _lpips(load_image(a), load_image(b))


def _lpips(a: np.ndarray, b: np.ndarray) -> float:
    model = _lpips_model()
    import torch  # importable: _lpips_model() has imported it

    with torch.no_grad():
        distance = model(_to_tensor(torch, a), _to_tensor(torch, b))
    return float(distance.item())


def _to_tensor(torch: Any, rgb: np.ndarray) -> Any:
    """1×3×H×W float tensor in [-1, 1], the range lpips expects without normalize=True."""
    tensor = torch.from_numpy(rgb.astype(np.float32)).permute(2, 0, 1).unsqueeze(0)
    return tensor / 127.5 - 1.0


# ---------------------------------------------------------------------------------------
# All together


def image_metrics(
    candidate: Any, reference: Any, *, lpips: bool = False
) -> dict[str, float | None]:
    """{"PSNR", "SSIM"} and, when asked, "LPIPS" for a candidate image against the reference.

    Each image is decoded once. An unavailable LPIPS is reported as None with an
    LpipsUnavailableWarning carrying the reason (also given by :func:`lpips_status`), so a
    batch run keeps its PSNR/SSIM instead of failing; bad images still raise ValueError.
    """
    cand = load_image(candidate)
    ref = load_image(reference)
    result: dict[str, float | None] = {
        "PSNR": _psnr(cand, ref),
        "SSIM": _ssim(_gray(cand), _gray(ref)),
    }
    if lpips:
        try:
            result["LPIPS"] = _lpips(cand, ref)
        except LpipsUnavailable as exc:
            warnings.warn(f"LPIPS unavailable: {exc}", LpipsUnavailableWarning, stacklevel=2)
            result["LPIPS"] = None
    return result

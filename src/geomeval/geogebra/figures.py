"""Reference figures drawn once: the PNG of a script's final figure, found by what decides
its pixels.

Scoring a GGBench answer compares it with the reference script drawn in the same view, and
that figure is the same for every answer to the item, every task and every rescore. Drawing
it is most of a code-track item's cost, so it is kept, content-addressed: the key is a
digest of the script's command blocks (what the engine runs), the image size, the view,
and the code and libraries that turn them into pixels (this package's sources, matplotlib,
FreeType, Pillow, the font chain). A change to any of them is a new key, never a stale
figure. Kept in memory (a few hundred PNGs, ~20 KB each) and as files under
`<geomeval cache folder>/figures/`, so `geomeval score` and later runs draw nothing again;
a folder that cannot be written is only slower.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

MEMORY_FIGURES = 256  # PNGs kept in this process, most recently used


@lru_cache(maxsize=1)
def renderer_version() -> str:
    """A digest of everything besides the script that decides a figure's pixels."""
    import matplotlib
    import PIL
    from matplotlib import ft2font

    from geomeval.engines.fonts import font_family

    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(Path(__file__).parents[1].joinpath("engines", "fonts.py").read_bytes())
    versions = [matplotlib.__version__, ft2font.__freetype_version__, PIL.__version__, *font_family()]
    digest.update(json.dumps(versions).encode())
    return digest.hexdigest()


def figure_key(blocks: Sequence[str], size: tuple[int, int], window: Sequence[float] | None) -> str:
    """The key of the final figure of these command blocks drawn at `size` in `window`
    (None: the fitted view). Equal keys draw equal pixels."""
    view = None if window is None else [float(v).hex() for v in window]
    content = json.dumps([renderer_version(), list(blocks), list(size), view])
    return hashlib.sha256(content.encode()).hexdigest()


class FigureCache:
    """PNG bytes by figure key: memory first, then files in `folder` (None: memory only)."""

    def __init__(self, folder: Path | None, memory: int = MEMORY_FIGURES) -> None:
        self.folder = folder
        self.memory = memory
        self._kept: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self._lock:
            png = self._kept.get(key)
            if png is not None:
                self._kept.move_to_end(key)
                return png
        if self.folder is None:
            return None
        try:
            png = (self.folder / f"{key}.png").read_bytes()
        except OSError:
            return None
        self._keep(key, png)
        return png

    def put(self, key: str, png: bytes) -> None:
        self._keep(key, png)
        if self.folder is None:
            return
        try:  # written whole, then renamed: a reader never sees half a file
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(dir=self.folder, suffix=".part")
        except OSError:
            return
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(png)
            os.replace(name, self.folder / f"{key}.png")
        except OSError:
            Path(name).unlink(missing_ok=True)

    def drawn(self, key: str, draw: Callable[[], bytes]) -> bytes:
        """The figure under `key`, drawn by `draw` (and kept) only when not kept yet."""
        png = self.get(key)
        if png is None:
            png = draw()
            self.put(key, png)
        return png

    def _keep(self, key: str, png: bytes) -> None:
        with self._lock:
            self._kept[key] = png
            self._kept.move_to_end(key)
            while len(self._kept) > self.memory:
                self._kept.popitem(last=False)


_shared: FigureCache | None = None
_shared_lock = threading.Lock()


def shared_figures() -> FigureCache:
    """The process's figure cache, its files in geomeval's cache folder (GEOMEVAL_CACHE_DIR)."""
    global _shared
    from geomeval.engines.cache import cache_dir

    folder = cache_dir() / "figures"
    with _shared_lock:
        if _shared is None or _shared.folder != folder:
            _shared = FigureCache(folder)
        return _shared

"""The font chain every figure geomeval draws uses: one Latin font, then CJK fallbacks.

matplotlib draws each glyph with the first family in a list that has it (3.6+), so a
Chinese point label (GeoGebra's `Text("三角形ABC")`) or a run named in Chinese in a plot
legend is drawn instead of boxes, while Latin text keeps DejaVu Sans (the metrics the
renderer's layout was tuned on). The CJK fonts come from the system (Debian's
fonts-wqy-zenhei or fonts-noto-cjk, installed by scripts/test.sh and the Space's
packages.txt); nothing is downloaded. A font installed after matplotlib built its font
cache is registered here from its file, so a fresh install needs no cache rebuild.
"""

from __future__ import annotations

import glob
from functools import lru_cache

LATIN = "DejaVu Sans"  # ships with matplotlib
# (family, file patterns under the system font folders), most preferred first.
CJK_FONTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Noto Sans CJK SC", ("opentype/noto/NotoSansCJK-Regular.ttc",)),
    ("WenQuanYi Zen Hei", ("truetype/wqy/wqy-zenhei.ttc",)),
    ("WenQuanYi Micro Hei", ("truetype/wqy/wqy-microhei.ttc",)),
    ("Droid Sans Fallback", ("truetype/droid/DroidSansFallbackFull.ttf",)),
)
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts")


@lru_cache(maxsize=1)
def font_family() -> tuple[str, ...]:
    """DejaVu Sans, then every CJK family of CJK_FONTS found on this machine (as a tuple:
    pass `list(font_family())` as a matplotlib `fontfamily`)."""
    from matplotlib import font_manager

    known = {entry.name for entry in font_manager.fontManager.ttflist}
    chain = [LATIN]
    for family, patterns in CJK_FONTS:
        if family not in known:
            for folder in FONT_DIRS:
                for path in [p for pattern in patterns for p in sorted(glob.glob(f"{folder}/{pattern}"))[:1]]:
                    try:
                        font_manager.fontManager.addfont(path)
                    except (OSError, RuntimeError, ValueError):
                        continue
            known = {entry.name for entry in font_manager.fontManager.ttflist}
        if family in known:
            chain.append(family)
    return tuple(chain)


def has_cjk_font() -> bool:
    return len(font_family()) > 1

"""Where geomeval's public faces live on disk: the `evaluate` metric modules, and the card
faces (`cards/<name>/README.md`), written from each declaration by `python -m geomeval.faces`.

The modules sit once in the repository's top-level `metrics/` folder; the wheel ships
that folder as `geomeval/metrics/`, so `evaluate.load(metric_path("geolaux_process"))`
works from a checkout and from an installed package alike, offline.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
# Installed: geomeval/metrics/ inside the package; checkout (src layout): <repo>/metrics/.
METRIC_ROOTS = (_PACKAGE / "metrics", _PACKAGE.parents[1] / "metrics")


def metric_path(name: str) -> str:
    """The folder of the `evaluate` metric module `name`, ready for `evaluate.load`."""
    if not name.isidentifier():
        raise ValueError(f"metric name must be a module name like 'geolaux_process', got {name!r}")
    for root in METRIC_ROOTS:
        folder = root / name
        if (folder / f"{name}.py").is_file():
            return str(folder)
    raise FileNotFoundError(
        f"no evaluate module {name!r} in {' or '.join(str(root) for root in METRIC_ROOTS)}"
    )


def card_faces(root: Path) -> dict[Path, str]:
    """Every registered benchmark's card face, `cards/<name>/README.md` under `root` (a
    checkout), as its declaration's card part renders it."""
    from .benchmarks import REGISTRY

    return {root / "cards" / name / "README.md": bench.parts.card().render_card() for name, bench in REGISTRY.items()}


def main(argv: list[str] | None = None) -> int:
    """`python -m geomeval.faces [--check] [ROOT]`: write the card faces of a checkout (ROOT,
    default the one this module runs from), or with --check list the stale ones and exit 1."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    rest = [a for a in args if a != "--check"]
    root = Path(rest[0]) if rest else _PACKAGE.parents[1]
    stale = [path for path, text in card_faces(root).items()
             if not path.is_file() or path.read_text(encoding="utf-8") != text]
    if check:
        for path in stale:
            print(f"stale: {path} (write it with `python -m geomeval.faces`)", file=sys.stderr)
        return 1 if stale else 0
    for path, text in card_faces(root).items():
        if path in stale:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Where geomeval's public faces live on disk: the `evaluate` metric modules, and the card
faces (`cards/<name>/README.md`), written from each declaration by `python -m geomeval.publishing.faces`.

The modules sit once in the repository's top-level `metrics/` folder; the wheel ships
that folder as `geomeval/metrics/`, so `evaluate.load(metric_path("geolaux_process"))`
works from a checkout and from an installed package alike, offline.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]
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
    from ..benchmarks import REGISTRY

    return {root / "cards" / name / "README.md": bench.parts.card().render_card() for name, bench in REGISTRY.items()}


def main(argv: list[str] | None = None) -> int:
    """`python -m geomeval.publishing.faces [--check] [ROOT]`: write the card faces of a checkout (ROOT,
    default the one this module runs from), or with --check list the stale ones and exit 1.
    An option it does not know (`--help` included) is never taken for ROOT: a typo must not
    write a folder named after it."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m geomeval.publishing.faces",
                                     description="Write each registered benchmark's cards/<name>/README.md "
                                                 "from its declaration.")
    parser.add_argument("root", nargs="?", type=Path, default=_PACKAGE.parents[1],
                        help="the checkout to write into (default: the one this module runs from)")
    parser.add_argument("--check", action="store_true", help="list the stale faces and exit 1; write nothing")
    args = parser.parse_args(argv)
    root: Path = args.root
    stale = [path for path, text in card_faces(root).items()
             if not path.is_file() or path.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"stale: {path} (write it with `python -m geomeval.publishing.faces`)", file=sys.stderr)
        return 1 if stale else 0
    for path, text in card_faces(root).items():
        if path in stale:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

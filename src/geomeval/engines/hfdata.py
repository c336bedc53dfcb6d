"""Write and read typed datasets the way the Hub serves them, fully offline.

datasets 5.x runs no loading scripts, so a "Hub loader" is parquet shards plus the
card's YAML (`configs` + `dataset_info`, plus the Hub metadata of `hub_metadata`: license
per source, language, task and size categories, tags; `card_sections` adds the license terms
and citations to the prose), written through the public `huggingface_hub`/`datasets` card
APIs; a benchmark of several subsets writes one config per subset (`write_configs`,
`configs_card_header`). Image columns must carry their bytes in
the table (not paths) before `to_parquet`, or the shards would point at files that
do not travel with them. Builds are written to a temporary folder and renamed into
place, so a failed build never leaves a half-written dataset behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import disk_full_error, free_bytes, is_disk_full

if TYPE_CHECKING:
    from .hub_terms import HubMetadata

DEFAULT_CONFIG = "default"
ROWS_PER_SHARD = 500


def card_header(
    features: Any,
    splits: dict[str, tuple[int, int]] | None,
    config: str = DEFAULT_CONFIG,
    *,
    hub: HubMetadata | None = None,
) -> str:
    """The YAML front matter that lets `load_dataset(<dir>)` restore `features` exactly, plus,
    with `hub` (the benchmark's declared `Benchmark.hub`), the Hub metadata: license,
    language, pretty_name, task categories, size category and tags.

    Without `splits` (the card of the full release, before a build), sizes are left out and
    the size category is the release's.
    """
    return configs_card_header({config: (features, splits)}, hub=hub, single=True)


def configs_card_header(
    configs: Mapping[str, tuple[Any, dict[str, tuple[int, int]] | None]],
    *,
    hub: HubMetadata | None = None,
    single: bool = False,
) -> str:
    """The YAML front matter of a dataset of several configs (a benchmark's subsets), each
    config's shards in `data/<config>/`: `load_dataset(<dir>, <config>)` restores its features.

    `configs` maps each config to (features, splits); splits as in `card_header`. The first
    config is marked the default, so `load_dataset(<dir>, split=...)` still works unnamed.
    `single` (one config, shards straight in `data/`) is `card_header`'s layout.

    Written with the public APIs `push_to_hub` itself uses: `huggingface_hub.DatasetCardData`
    filled by `datasets`' `DatasetInfosDict.to_dataset_card_data` (features and split sizes)
    and `MetadataConfigs.to_dataset_card_data` (configs and their data files).
    """
    card_data = card_metadata(hub, _rows(configs)) if hub is not None else _card_data()
    infos, entries = _infos_and_configs(configs, single)
    infos.to_dataset_card_data(card_data)
    entries.to_dataset_card_data(card_data)
    # Both writers sort configs by name; keep the order given (a benchmark's own subset order).
    order = {name: index for index, name in enumerate(configs)}
    card_data["configs"] = sorted(card_data["configs"], key=lambda entry: order[entry["config_name"]])
    if isinstance(card_data["dataset_info"], list):
        card_data["dataset_info"] = sorted(card_data["dataset_info"], key=lambda info: order[info["config_name"]])
    return "---\n" + card_data.to_yaml() + "\n---\n"


def _card_data(**fields: Any) -> Any:
    from huggingface_hub import DatasetCardData

    return DatasetCardData(**fields)


def _rows(configs: Mapping[str, tuple[Any, dict[str, tuple[int, int]] | None]]) -> int | None:
    """Examples over every config and split, or None when the sizes are not known yet."""
    if any(splits is None for _, splits in configs.values()):
        return None
    return sum(count for _, splits in configs.values() for count, _ in (splits or {}).values())


def _infos_and_configs(
    configs: Mapping[str, tuple[Any, dict[str, tuple[int, int]] | None]], single: bool
) -> tuple[Any, Any]:
    from datasets.info import DatasetInfo, DatasetInfosDict
    from datasets.splits import SplitDict, SplitInfo
    from datasets.utils.metadata import MetadataConfigs

    infos, entries = DatasetInfosDict(), MetadataConfigs()
    for index, (name, (features, splits)) in enumerate(configs.items()):
        folder = "data" if single else f"data/{name}"
        split_names = list(splits) if splits else ["test"]
        entry: dict[str, Any] = {
            "data_files": [{"split": split, "path": f"{folder}/{split}-*.parquet"} for split in split_names]
        }
        if index == 0 and not single:
            entry["default"] = True
        entries[name] = entry
        split_dict = None
        if splits:
            split_dict = SplitDict()
            for split, (count, num_bytes) in splits.items():
                split_dict.add(SplitInfo(name=split, num_bytes=num_bytes, num_examples=count))
        infos[name] = DatasetInfo(features=features, splits=split_dict)
    return infos, entries


def card_metadata(meta: HubMetadata, rows: int | None = None) -> Any:
    """A dataset's Hub metadata (its benchmark's `hub`) as a `DatasetCardData`; `rows` (a
    build's examples) sets the size category, else the full release's count does."""
    from .hub_terms import size_category

    fields: dict[str, Any] = {
        "pretty_name": meta.pretty_name,
        "license": meta.license,
        "language": list(meta.language),
        "task_categories": list(meta.task_categories),
        "size_categories": [size_category(meta.release_rows if rows is None else rows)],
        "tags": meta.all_tags(),
    }
    if meta.license_name:
        fields["license_name"] = meta.license_name
        fields["license_link"] = meta.license_link
    return _card_data(**fields)


def authors_hub_lines(meta: HubMetadata) -> list[str]:
    """A card's lines for the authors' own Hub dataset (where they publish one): what it is,
    and the commands that turn it into geomeval's typed build through the benchmark's reader."""
    if not meta.authors_hub:
        return []
    note = f" ({meta.authors_hub_note})" if meta.authors_hub_note else ""
    return [f"From the authors' own Hub dataset [`{meta.authors_hub}`](https://huggingface.co/datasets/"
            f"{meta.authors_hub}), converted by geomeval's reader for its layout{note}:", "",
            "```bash", *meta.authors_hub_steps, "```", ""]


def hub_sources(meta: HubMetadata) -> str:
    """What a card's Loading section adds after its local-build example: the real line for
    each other source (the authors' Hub dataset, geomeval's Hub build where the release may be
    redistributed, and the embedded sample's id, which is never the benchmark's)."""
    lines = ["", *authors_hub_lines(meta)]
    if meta.redistributable:
        lines += ["geomeval's build of the release on the Hub (its terms allow it):", "", "```python",
                  f'ds = load_dataset("{meta.repo_id}", split="test")', "```", ""]
    lines += [f"geomeval's embedded sample (a few problems written for geomeval, not {meta.pretty_name}'s) is "
              f"published only as `{meta.repo_id}-sample`, never under {meta.pretty_name}'s own id.", ""]
    return "\n".join(lines)


def _with_sources(meta: HubMetadata, body: str) -> str:
    """`body` with `hub_sources` at the end of its `## Loading` section (GeoEval's: `## Configs`;
    none: as it is)."""
    heading = next((h for h in ("\n## Loading\n", "\n## Configs\n") if h in body), None)
    if heading is None:
        return body
    start = body.find(heading)
    end = body.find("\n## ", start + len(heading))
    end = len(body) if end < 0 else end
    return body[:end].rstrip("\n") + "\n" + hub_sources(meta).rstrip("\n") + "\n" + body[end:]


def card_sections(meta: HubMetadata, body: str) -> str:
    """`body` followed by the Hub sections every published card needs (from `meta`, the
    benchmark's `hub`): the license terms per source (with why, where a license is unknown)
    and, unless `body` has one, the citations; its Loading section gets the line for each
    Hub source (`hub_sources`)."""
    body = _with_sources(meta, body)
    lines = ["", "## License", "", f"`{meta.license}`: {meta.license_reason}", ""]
    lines += [f"- {s.name}: `{s.license}`, stated at <{s.where}>" + (f"; {s.note}." if s.note else ".")
              for s in meta.sources]
    lines += [
        "",
        "geomeval's embedded sample (what `geomeval publish` writes when given no `--data`) is "
        "written for geomeval and holds no item of the release; it is Apache-2.0, as geomeval. "
        + ("A build of the release may be published under the terms above."
           if meta.redistributable else
           "`geomeval publish` refuses to push a build of the release: its terms do not grant "
           "redistribution, or none are published."),
    ]
    if "```bibtex" not in body:
        lines += ["", "## Citation", ""]
        for entry in meta.citations:
            lines += ["```bibtex", entry, "```", ""]
    return body.rstrip("\n") + "\n" + "\n".join(lines).rstrip("\n") + "\n"


def write_dataset(
    splits: dict[str, Any],
    out_dir: str | os.PathLike[str],
    render_card: Any,
    *,
    overwrite: bool = False,
    rows_per_shard: int = ROWS_PER_SHARD,
) -> dict[str, Any]:
    """Write `{split: Dataset}` as parquet shards plus the card `render_card(sizes)`."""

    def fill(tmp: Path) -> dict[str, tuple[int, int]]:
        sizes = _write_splits(splits, tmp / "data", rows_per_shard)
        (tmp / "README.md").write_text(render_card(sizes), encoding="utf-8")
        return sizes

    sizes = _write_atomically(out_dir, fill, overwrite)
    return {"out": str(Path(out_dir)), "splits": {k: {"num_examples": v[0], "num_bytes": v[1]} for k, v in sizes.items()}}


def write_configs(
    configs: Mapping[str, Mapping[str, Any]],
    out_dir: str | os.PathLike[str],
    render_card: Any,
    *,
    overwrite: bool = False,
    rows_per_shard: int = ROWS_PER_SHARD,
) -> dict[str, Any]:
    """Write `{config: {split: Dataset}}` as `data/<config>/` shards plus the card
    `render_card({config: {split: (examples, bytes)}})` (see `configs_card_header`)."""

    def fill(tmp: Path) -> dict[str, dict[str, tuple[int, int]]]:
        sizes = {name: _write_splits(splits, tmp / "data" / name, rows_per_shard) for name, splits in configs.items()}
        (tmp / "README.md").write_text(render_card(sizes), encoding="utf-8")
        return sizes

    sizes = _write_atomically(out_dir, fill, overwrite)
    return {
        "out": str(Path(out_dir)),
        "configs": {
            name: {"splits": {k: {"num_examples": v[0], "num_bytes": v[1]} for k, v in splits.items()}}
            for name, splits in sizes.items()
        },
    }


class ShardWriter:
    """Rows written as parquet shards one at a time (`write`), `rows_per_shard` held at most:
    a build streams its release through this instead of holding every row and image. The
    shards are named `<split>-<i>-of-<n>` once `close` knows n, as `Dataset.to_parquet`'s
    are, with the features in the schema metadata as `datasets` writes them."""

    ROW_GROUP = 100  # rows per parquet row group, as `datasets` writes image datasets

    def __init__(self, features: Any, folder: Path, split: str, rows_per_shard: int = ROWS_PER_SHARD):
        import json

        import pyarrow as pa

        self.features, self.folder, self.split, self.rows_per_shard = features, folder, split, rows_per_shard
        info = json.dumps({"info": {"features": features.to_dict()}})
        self.schema = features.arrow_schema.with_metadata({"huggingface": info})
        self.pending: list[dict[str, Any]] = []
        self.written: list[Path] = []
        self.count = 0
        self._pa = pa
        folder.mkdir(parents=True, exist_ok=True)

    def write(self, row: dict[str, Any]) -> None:
        self.pending.append(self.features.encode_example(row))
        self.count += 1
        if len(self.pending) >= self.rows_per_shard:
            self._flush()

    def _flush(self) -> None:
        import pyarrow.parquet as pq

        path = self.folder / f".{self.split}-{len(self.written):05d}.partial"
        table = self._pa.Table.from_pylist(self.pending, schema=self.schema)
        pq.write_table(table, path, row_group_size=self.ROW_GROUP)
        self.written.append(path)
        self.pending = []

    def close(self) -> tuple[int, int]:
        """Name the shards; returns (examples, bytes)."""
        if self.pending or not self.written:
            self._flush()
        total = 0
        for index, path in enumerate(self.written):
            final = self.folder / f"{self.split}-{index:05d}-of-{len(self.written):05d}.parquet"
            path.rename(final)
            total += final.stat().st_size
        return self.count, total


def _write_splits(splits: Mapping[str, Any], folder: Path, rows_per_shard: int) -> dict[str, tuple[int, int]]:
    """Each split as parquet shards in `folder`; returns {split: (examples, bytes)}. A split
    may be a function `(folder, split, rows_per_shard) -> (examples, bytes)` that writes its
    own shards (a streamed build, through `ShardWriter`)."""
    folder.mkdir(parents=True, exist_ok=True)
    sizes: dict[str, tuple[int, int]] = {}
    for split, ds in splits.items():
        if callable(ds):
            sizes[split] = ds(folder, split, rows_per_shard)
            continue
        n_shards = max(1, -(-len(ds) // rows_per_shard))
        total = 0
        for index in range(n_shards):
            shard = ds.shard(num_shards=n_shards, index=index, contiguous=True)
            path = folder / f"{split}-{index:05d}-of-{n_shards:05d}.parquet"
            shard.to_parquet(str(path))
            total += path.stat().st_size
        sizes[split] = (len(ds), total)
    return sizes


BUILD_MARKER = ".geomeval-build"
"""Written into every folder `geomeval build` (or `publish`) makes, listing the files it wrote
there: `--overwrite` removes exactly those, and refuses a folder holding anything else."""
TEMPORARY_MARK = ".geomeval-temporary"
"""Written first into a build's temporary folder (`.<out>.geomeval-tmp-*`, or the previous build
moved aside as `.<out>.geomeval-old-*`), with the building process's id: a later build of the
same --out removes such a folder once that process is gone (a killed build's leftovers)."""
_MAX_SHOWN = 3


def written_files(folder: Path) -> list[str]:
    """Every file under `folder` (relative, `/`-separated, links not followed), sorted."""
    found = []
    for root, dirs, files in os.walk(folder):
        here = Path(root)
        found += [(here / name).relative_to(folder).as_posix() for name in files]
        found += [(here / name).relative_to(folder).as_posix() for name in dirs if (here / name).is_symlink()]
    return sorted(found)


def write_marker(folder: Path, files: list[str], by: str = "geomeval build") -> None:
    """The marker listing `files` (relative paths under `folder`) as written by geomeval."""
    import json

    listed = sorted(set(files) - {BUILD_MARKER, TEMPORARY_MARK})
    text = json.dumps({"written_by": by, "note": "--overwrite removes exactly these files, and refuses "
                       "a folder holding anything else", "files": listed}, indent=1, ensure_ascii=False)
    (folder / BUILD_MARKER).write_text(text + "\n", encoding="utf-8")


def record_written(folder: Path, *names: str) -> None:
    """Add `names` (files just written into `folder`) to its marker's list."""
    listed = marker_files(folder)
    if listed is not None:
        write_marker(folder, [*listed, *names], _marker_author(folder))


def _marker_author(folder: Path) -> str:
    import json

    try:
        data = json.loads((folder / BUILD_MARKER).read_text(encoding="utf-8"))
        return str(data.get("written_by") or "geomeval build")
    except (OSError, ValueError, AttributeError):
        return "geomeval build"


def marker_files(folder: Path) -> set[str] | None:
    """The files `folder`'s marker says geomeval wrote there (the marker included), or None
    without a marker. A marker from before the list (one line of text) stands for what a build
    then wrote: the card, the shards, build_report.json."""
    import json

    marker = folder / BUILD_MARKER
    if marker.is_symlink() or not marker.is_file():
        return None
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict) and isinstance(data.get("files"), list):
        return {name for name in data["files"] if isinstance(name, str)} | {BUILD_MARKER, TEMPORARY_MARK}
    return _build_layout(folder)


def _build_layout(folder: Path) -> set[str]:
    """The files a build wrote before its marker listed them, as they are in `folder` now."""
    shards = [*folder.glob("data/*.parquet"), *folder.glob("data/*/*.parquet")]
    return {BUILD_MARKER, TEMPORARY_MARK, "README.md", "build_report.json",
            *(p.relative_to(folder).as_posix() for p in shards)}


def foreign_files(folder: Path, listed: set[str]) -> list[str]:
    """What `folder` holds that geomeval did not write: files (and links) not in `listed`, and
    folders holding none of `listed` (an empty folder of the user's too)."""
    mine_dirs = {parent.as_posix() for name in listed for parent in Path(name).parents if parent != Path(".")}
    foreign = []
    for root, dirs, files in os.walk(folder):
        here = Path(root)
        for name in dirs:
            path = here / name
            relative = path.relative_to(folder).as_posix()
            if path.is_symlink() or relative not in mine_dirs:
                foreign.append(relative + ("" if path.is_symlink() else "/"))
        dirs[:] = [name for name in dirs if (here / name).relative_to(folder).as_posix() in mine_dirs
                   and not (here / name).is_symlink()]
        foreign += [(here / name).relative_to(folder).as_posix() for name in files
                    if (here / name).relative_to(folder).as_posix() not in listed]
    return sorted(foreign)


def remove_written(folder: Path, listed: set[str]) -> list[str]:
    """Remove the files of `listed` from `folder`, then the folders they leave empty, then
    `folder` itself if empty; what is left (files geomeval did not write), else []."""
    for name in listed:
        path = folder / name
        if path.is_symlink() or path.is_file():
            path.unlink()
    dirs = {parent for name in listed for parent in Path(name).parents if parent != Path(".")}
    for relative in sorted(dirs, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):  # not empty, or gone: left as it is
            (folder / relative).rmdir()
    left = written_files(folder) if folder.is_dir() else []
    if not left and folder.is_dir():
        with contextlib.suppress(OSError):
            folder.rmdir()
    return left if folder.exists() else []


def build_refusal(out: Path) -> str | None:
    """Why `out` must not be replaced by a build, or None when it may: it holds nothing but the
    files its marker lists (or, built before the marker, nothing but a card and shards)."""
    if not out.is_dir() or out.is_symlink():
        return f"{out} exists and is not a folder"
    listed = replaceable_files(out)
    if listed is None:
        foreign = sorted(entry.name for entry in out.iterdir())  # nothing says geomeval wrote any of it
    else:
        foreign = foreign_files(out, listed)
    return overwrite_refusal(out, foreign) if foreign else None


def overwrite_refusal(out: Path, foreign: list[str]) -> str:
    """The one line refusing to --overwrite `out`, naming what it holds that geomeval did not write."""
    shown = ", ".join(foreign[:_MAX_SHOWN]) + (f" and {len(foreign) - _MAX_SHOWN} more" if len(foreign) > _MAX_SHOWN else "")
    return (
        f"{out} holds files geomeval did not write ({shown}); --overwrite removes only the files a "
        "geomeval build or publish recorded there. Move those out, or choose a new or empty --out"
    )


def replaceable_files(out: Path) -> set[str] | None:
    """The files geomeval wrote in `out` (its marker's list; a build from before the marker:
    its card and shards), or None when nothing says geomeval wrote it."""
    listed = marker_files(out)
    if listed is None and is_built_dataset(out):
        listed = _build_layout(out)
    return listed


def refuse_input_inside(source: str | os.PathLike[str], out: str | os.PathLike[str], flag: str) -> None:
    """A FileExistsError when `source` (the release or folder read) is `out` or lies inside it:
    writing --out would replace its own input."""
    read, written = Path(source).expanduser().resolve(), Path(out).expanduser().resolve()
    if read == written or read.is_relative_to(written):
        where = "is" if read == written else "lies inside"
        raise FileExistsError(f"{flag} {source} {where} --out {out}: writing --out would replace its own input; "
                              "choose another --out")


def remove_stale_temporaries(out: Path) -> list[Path]:
    """Remove what killed builds of `out` left beside it: folders named as geomeval's
    temporaries (`.<name>.geomeval-tmp-*`, `.<name>.geomeval-old-*`) that hold geomeval's mark
    with the id of a process that is gone. A temporary is all geomeval's; a previous build moved
    aside loses only the files its marker lists. The folders removed."""
    removed: list[Path] = []
    parent = out.parent if out.parent.is_dir() else None
    if parent is None:
        return removed
    for kind in ("tmp", "old"):
        for folder in parent.glob(f".{glob_escape(out.name)}.geomeval-{kind}-*"):
            if folder.is_symlink() or not folder.is_dir() or _owner_alive(folder):
                continue
            if kind == "tmp":
                shutil.rmtree(folder, ignore_errors=True)
            else:
                listed = marker_files(folder) or set()
                remove_written(folder, listed | {TEMPORARY_MARK})
            if not folder.exists():
                removed.append(folder)
    return removed


def glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def _owner_alive(folder: Path) -> bool:
    """Whether the process that made temporary `folder` still runs (True when unsure: a folder
    without geomeval's mark, or an unreadable one, is never removed)."""
    try:
        pid = int((folder / TEMPORARY_MARK).read_text(encoding="utf-8").split()[0])
    except (OSError, ValueError, IndexError):
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _bytes_under(folder: Path) -> int:
    """The bytes of the files under `folder` (0 when it cannot be read)."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def _temporary(out: Path, kind: str) -> Path:
    """A fresh temporary folder beside `out`, marked as this process's."""
    folder = Path(tempfile.mkdtemp(prefix=f".{out.name}.geomeval-{kind}-", dir=out.parent))
    (folder / TEMPORARY_MARK).write_text(f"{os.getpid()}\n", encoding="utf-8")
    return folder


def _write_atomically(out_dir: str | os.PathLike[str], fill: Any, overwrite: bool) -> Any:
    """Run `fill(tmp)` in a temporary folder beside `out_dir`, then swap it into place.

    An existing non-empty `out_dir` is replaced only with `overwrite`, and only when it holds
    nothing but the files geomeval's marker lists there (a build from before the marker: its
    card and shards); anything else is refused, named, and left untouched (checked again just
    before the swap). The swap is two renames (old folder aside, new one in), so a kill at any
    moment leaves either the old build or the new one at `out_dir`, or, between the renames,
    the old one beside it as `.<name>.geomeval-old-*`, never a half-deleted folder; the old
    build then loses exactly its listed files. Temporaries of killed builds of the same
    `out_dir` are removed first (`remove_stale_temporaries`)."""
    out = Path(out_dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        if not overwrite:
            raise FileExistsError(f"{out} exists and is not empty; pass --overwrite to replace a previous build")
        refusal = build_refusal(out)
        if refusal:
            raise FileExistsError(refusal)
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(out)
    tmp = _temporary(out, "tmp")
    old: Path | None = None
    listed: set[str] = set()
    try:
        result = fill(tmp)
        write_marker(tmp, written_files(tmp))
        os.chmod(tmp, 0o777 & ~current_umask())  # mkdtemp makes it 0700; a build is an ordinary folder
        if out.exists():
            if any(out.iterdir()):
                refusal = build_refusal(out)  # again: a file may have been added while this built
                if refusal:
                    raise FileExistsError(refusal)
                listed = replaceable_files(out) or set()
                old = _temporary(out, "old")
                (old / TEMPORARY_MARK).unlink()
                os.replace(out, old)  # onto the empty placeholder: atomic
                (old / TEMPORARY_MARK).write_text(f"{os.getpid()}\n", encoding="utf-8")
            else:
                out.rmdir()
        tmp.rename(out)
        (out / TEMPORARY_MARK).unlink(missing_ok=True)  # a build now, no longer a temporary
    except BaseException as exc:
        if old is not None and not out.exists():
            (old / TEMPORARY_MARK).unlink(missing_ok=True)
            os.replace(old, out)  # put the previous build back
            old = None
        full = is_disk_full(exc)
        written = _bytes_under(tmp) if full else 0
        shutil.rmtree(tmp, ignore_errors=True)
        if full:  # one line naming the folder: the build needs more than all that is free there
            free = free_bytes(out.parent) or 0
            raise disk_full_error(exc, out.parent, max(written, free) + 4096) from exc
        raise
    if old is not None:
        left = remove_written(old, listed | {TEMPORARY_MARK})
        if left:
            import logging

            logging.getLogger("geomeval").warning(
                "kept %s: files added to the previous build while this one was written (%s)", old,
                ", ".join(left[:_MAX_SHOWN]))
    return result


def current_umask() -> int:
    """The process umask (reading it means setting it; set straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def is_built_dataset(path: Path) -> bool:
    """A card beside parquet shards, in `data/` or (several configs) in `data/<config>/`."""
    return (
        path.is_dir()
        and (path / "README.md").is_file()
        and (any(path.glob("data/*.parquet")) or any(path.glob("data/*/*.parquet")))
    )


def load_built(path: str | os.PathLike[str], split: str = "test", config: str | None = None) -> Any:
    """Load a built dataset folder (parquet shards + card) offline; `config` names one of
    several (None: the default one)."""
    from datasets import load_dataset

    return load_dataset(str(path), config, split=split)


def load_hub(repo_id: str, split: str = "test", config: str | None = None) -> Any:
    """Load a hub dataset id; offline this works only from the local cache, and says so."""
    from datasets import load_dataset

    try:
        return load_dataset(repo_id, config, split=split)
    except Exception as exc:
        raise FileNotFoundError(
            f"{repo_id!r} is not a local path, and loading it as a Hub dataset failed "
            f"({type(exc).__name__}: {exc}). Offline, build the dataset locally with "
            "`geomeval build` and pass its folder to --data."
        ) from None


def hub_filesystem() -> Any:
    """The Hub as a file system (`huggingface_hub.HfFileSystem`): files read by byte ranges."""
    from huggingface_hub import HfFileSystem

    return HfFileSystem()


def _hub_offline() -> bool:
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)


def hub_shards(repo_id: str, split: str = "test", config: str | None = None) -> tuple[list[Any], Any]:
    """The parquet shards of a Hub dataset in geomeval's layout (`data/<split>-*-of-*.parquet`,
    or `data/<config>/...`), and how to open one: read in place, never downloaded whole, so
    a run asks its first item once the shards' footers and id column are read. Offline, the
    local Hub cache's snapshot, if it holds them. ([], None): no such shards (another layout,
    or not reachable), for `load_hub` to handle."""
    pattern = f"data/{config + '/' if config else ''}{split}-*-of-*.parquet"
    if _hub_offline():
        try:
            from huggingface_hub import snapshot_download

            folder = Path(snapshot_download(repo_id, repo_type="dataset", local_files_only=True,
                                            allow_patterns=["README.md", pattern]))
        except Exception:  # not in the cache: load_hub says so
            return [], None
        return sorted(folder.glob(pattern)), None
    try:
        fs = hub_filesystem()
        found = sorted(fs.glob(f"datasets/{repo_id}/{pattern}"))
    except Exception:  # no such dataset, or the Hub unreachable: load_hub says which
        return [], None
    return found, (lambda path: fs.open(path, "rb"))

"""`geomeval publish`: write the exact repository folder the Hugging Face Hub would hold for
one of geomeval's faces, validate it offline, and push it only when given a repo id and a
token (a dry run is the default).

Faces:

- a dataset (every registered benchmark's `hub`, `hub_metadata.METADATA`):
  README.md (the card: Hub metadata, configs, features and sizes) and `data/` parquet shards,
  built from `--data` (a raw release or a built folder) or the embedded sample. Validated:
  the card through huggingface_hub's `DatasetCard` (license, language, task and size
  categories, citation, license section), its configs through `datasets`' own parser (every
  data-file pattern matches shards, every shard is declared), and `load_dataset` on the
  folder gives, per config and split, the same Features and the same rows as the source.
- the Space (`space`, spaces/geomeval): README front matter (`SpaceCard`), app.py,
  requirements.txt, packages.txt, and geomeval's own wheel under `wheels/`, which the
  requirements install from the Space repository itself (`SPACE_WHEEL_URL`): a Space builds
  its requirements before the rest of its files are in place, so a wheel *beside* them is
  invisible, while a URL on huggingface.co is reachable from the build.
- a metric Space (`metric:<name>` or the metric's folder name, metrics/<name>): README front
  matter, app.py, requirements.txt, the module, and the same wheel.

Without `--data` a dataset is geomeval's embedded sample, which goes only to an id that says
sample (`<repo_id>-sample` by default, `samplecard`), with a card that says it is not the release
and carries the sample's own license. A build of a release whose terms do not grant
redistribution (`HubMetadata.redistributable`) is pushed only with `redistribution_granted`.
"""

from __future__ import annotations

import gc
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import UsageError
from ..engines.hfdata import (
    BUILD_MARKER,
    TEMPORARY_MARK,
    build_refusal,
    current_umask,
    foreign_files,
    is_built_dataset,
    load_built,
    overwrite_refusal,
    refuse_input_inside,
    remove_stale_temporaries,
    remove_written,
    replaceable_files,
    write_marker,
    written_files,
)
from .faces import metric_path
from .hub_metadata import HUB_LICENSES, HUB_TASK_CATEGORIES, METADATA, metadata, size_category
from .samplecard import (
    SAMPLE_LICENSE,
    check_sample_target,
    published_card,
    sample_repo_id,
    says_sample,
)

if TYPE_CHECKING:
    from ..benchmarks.contract import DataPart


def repo_root() -> Path:
    """The geomeval checkout the Space and the metric Spaces are staged from: the one this
    module sits in (an editable install), else the working directory or one above it (an
    installed geomeval run from its checkout, as CI does). Datasets need none."""
    here = Path(__file__).resolve().parents[3]
    for candidate in (here, Path.cwd(), *Path.cwd().parents):
        pyproject = candidate / "pyproject.toml"
        if (candidate / "spaces" / "geomeval").is_dir() and pyproject.is_file() \
                and 'name = "geomeval"' in pyproject.read_text(encoding="utf-8"):
            return candidate
    raise PublishError("publishing the Space or a metric Space needs a geomeval checkout (its files and "
                       "wheel come from it): run from the checkout")
SPACE_REPO_ID = "geomeval/geomeval"
SPACE_FILES = ("README.md", "app.py", "requirements.txt", "packages.txt")
SPACE_RUNS = "runs"  # sample runs staged with the Space (`demo.sample_runs`)
METRIC_FILES = ("README.md", "app.py", "requirements.txt")
SHORT_DESCRIPTION_MAX = 60  # the Hub refuses a longer short_description
MAX_CARD_BYTES = 1_000_000


def wheel_name(version: str) -> str:
    return f"geomeval-{version}-py3-none-any.whl"


def space_wheel_url(repo_id: str, version: str, repo_type: str = "spaces") -> str:
    """Where a Space's requirements fetch geomeval: its own repository's copy of the wheel."""
    return f"https://huggingface.co/{repo_type}/{repo_id}/resolve/main/wheels/{wheel_name(version)}"


class PublishError(UsageError):
    """A staged folder the Hub would refuse, or that would not load back as it was built: the
    command line says it in one line and exits 2 (a UsageError, so still a ValueError)."""


@dataclass
class Staged:
    kind: str  # dataset, space, metric
    name: str
    folder: Path
    repo_id: str
    repo_type: str  # dataset or space
    from_sample: bool = True
    checks: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- datasets


def _data_module(name: str) -> DataPart:
    """The dataset's `data` module: its benchmark's declared part."""
    metadata(name)  # a clear error for an unknown name
    from ..benchmarks import get_benchmark

    return get_benchmark(name).parts.data()


def _configs(module: Any, raw: Path) -> list[str | None]:
    """The configs a release holds (GeoEval's subsets), or [None] for a single-config dataset."""
    source = module.SOURCE
    if not getattr(source, "configs", ()):
        return [None]
    return list(source.subsets(raw) if source.subsets else source.configs)


def expected_datasets(name: str, data: str | Path | None = None) -> dict[str | None, dict[str, Any]]:
    """{config: {split: Dataset}} that the published folder must load back as: the source
    read directly (raw release or embedded sample), or a built folder as `datasets` loads it."""
    module = _data_module(name)
    where = Path(data) if data is not None else module.sample_path()
    if is_built_dataset(where):
        from datasets import get_dataset_config_names, get_dataset_split_names

        configs = get_dataset_config_names(str(where))
        single = configs == ["default"]
        return {
            (None if single else config): {
                split: load_built(where, split, None if single else config)
                for split in get_dataset_split_names(str(where), None if single else config)
            }
            for config in configs
        }
    out: dict[str | None, dict[str, Any]] = {}
    for config in _configs(module, where):
        # a single-config release is read a row at a time, mapped from disk (as its build read
        # it): publishing a large release never holds it in memory (GeoEval's subsets are read
        # whole, their complexity rated against each subset)
        source: Any = module.SOURCE  # a config's reader is GeoEval's SubsetDataSource's
        dataset = source.raw_dataset(where) if config is None else source.from_raw(where, config=config)[0]
        out[config] = {"test": dataset}
    return out


def stage_dataset(name: str, out: str | Path, *, data: str | Path | None = None, overwrite: bool = False,
                  repo_id: str | None = None) -> Staged:
    """Write dataset `name`'s Hub folder (card + shards) under `out` and validate it, atomically
    (`_staged_atomically`). Without `data` it is the embedded sample, for an id that says
    sample (`samplecard.sample_repo_id` by default; any other id is refused), with the
    sample's card; the card's Loading section names the repo it is staged for."""
    module = _data_module(name)
    out = Path(out)
    where = Path(data) if data is not None else module.sample_path()
    sample = data is None
    target = repo_id or (sample_repo_id(name) if sample else metadata(name).repo_id)
    if sample:
        check_sample_target(name, target)  # before anything is written
    if data is not None:
        refuse_input_inside(where, out, "--data")  # before anything is removed

    def fill(folder: Path) -> Staged:
        if is_built_dataset(where):
            _copy_built(where, folder, False)
        else:
            module.build(str(where), str(folder), overwrite=False)
        # the marker (what an --overwrite may remove) stays beside the repo's files, never pushed
        staged = Staged("dataset", name, folder, target, "dataset", from_sample=sample)
        # each source as its files (`_SourceFiles`): its mapped Dataset, whose pages a process's
        # memory counts, is gone before the staged folder is loaded back beside it
        expected = {config: {split: _as_files(dataset) for split, dataset in splits.items()}
                    for config, splits in expected_datasets(name, data).items()}
        gc.collect()  # the mapped tables unmapped now, not at some later collection
        rows = sum(len(ds) for splits in expected.values() for ds in splits.values())
        card = folder / "README.md"
        card.write_text(published_card(name, card.read_text(encoding="utf-8"), target, sample=sample, rows=rows),
                        encoding="utf-8")
        staged.checks = validate_dataset(folder, name, expected, sample=sample)
        return staged

    return _staged_atomically(out, overwrite, None, fill)


def _staged_atomically(out: Path, overwrite: bool, ours: tuple[str, ...] | None,
                       fill: Callable[[Path], Staged]) -> Staged:
    """Stage and validate into a folder beside `out` (`fill`), then move it into place: a
    failure anywhere (a validation error, a wheel that does not build, a kill) leaves `out` as
    it was and no half-staged folder. A previous staging at `out` is replaced only with
    `overwrite` and only when it holds nothing but what geomeval wrote (`_replaceable`); it is
    moved aside with one rename before the new folder is renamed in, and put back if that fails.
    The holder folder carries geomeval's temporary mark with this process's id, so a killed
    publish's leftovers are removed by the next (`hfdata.remove_stale_temporaries`)."""
    _replaceable(out, overwrite, ours)
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(out)
    holder = Path(tempfile.mkdtemp(prefix=f".{out.name}.geomeval-tmp-", dir=out.parent))
    (holder / TEMPORARY_MARK).write_text(f"{os.getpid()}\n", encoding="utf-8")
    folder, previous = holder / (out.name or "staged"), holder / "previous"
    moved = False
    try:
        try:
            staged = fill(folder)
        except (PublishError, FileExistsError) as exc:  # said of the folder the user named, not the temporary one
            raise type(exc)(str(exc).replace(str(folder), str(out))) from None
        os.chmod(folder, 0o777 & ~current_umask())
        listed = _replaceable(out, overwrite, ours)  # again: a file may have been added meanwhile
        if out.exists():
            if listed is None:
                out.rmdir()  # empty
            else:
                os.replace(out, previous)
                moved = True
        os.replace(folder, out)
    except BaseException:
        if moved and not out.exists():
            os.replace(previous, out)  # the previous staging back as it was
            moved = False
        if not moved:
            shutil.rmtree(holder, ignore_errors=True)
        raise
    if moved:
        left = remove_written(previous, listed or set())
        if left:
            print(f"note: kept {previous}: files added to the previous staging meanwhile ({', '.join(left[:5])})",
                  file=sys.stderr)
            (holder / TEMPORARY_MARK).unlink(missing_ok=True)
            return _moved(staged, out)
    shutil.rmtree(holder, ignore_errors=True)
    return _moved(staged, out)


def _moved(staged: Staged, out: Path) -> Staged:
    staged.checks = [check.replace(str(staged.folder), str(out)) for check in staged.checks]
    staged.folder = out
    return staged


def _replaceable(out: Path, overwrite: bool, ours: tuple[str, ...] | None = None) -> set[str] | None:
    """What an --overwrite of `out` would remove (None: `out` is absent or empty); a
    FileExistsError, nothing touched, for a non-empty `out` without `overwrite` or holding
    anything geomeval did not write (see `_empty_out`)."""
    if not (out.exists() and (not out.is_dir() or any(out.iterdir()))):
        return None
    if not overwrite:
        raise FileExistsError(f"{out} exists and is not empty; pass --overwrite to replace it")
    if out.is_symlink() or not out.is_dir():
        raise FileExistsError(f"{out} exists and is not a folder")
    listed = replaceable_files(out)
    if listed is None and ours is not None:  # staged before the marker listed its files
        listed = {name for name in ours if (out / name).is_file()}
        listed |= {p.relative_to(out).as_posix() for p in out.glob("wheels/*.whl")}
    if listed is None:
        raise FileExistsError(build_refusal(out) or overwrite_refusal(out, written_files(out)))
    foreign = foreign_files(out, listed)
    if foreign:
        raise FileExistsError(overwrite_refusal(out, foreign))
    return listed


def _empty_out(out: Path, overwrite: bool, ours: tuple[str, ...] | None = None) -> None:
    """Make `out` an empty folder to stage into. A non-empty one is emptied only with
    `overwrite`, and then only of the files geomeval's marker lists there (a folder staged
    before the marker: `ours`, those top-level files and wheels/*.whl; None: a dataset folder's
    card and shards); a folder holding anything else is the user's and is refused, naming what
    it holds, untouched (`_replaceable` decides)."""
    listed = _replaceable(out, overwrite, ours)
    if listed is not None:
        remove_written(out, listed)
    out.mkdir(parents=True, exist_ok=True)


def _copy_built(src: Path, out: Path, overwrite: bool) -> None:
    _empty_out(out, overwrite)
    shutil.copy2(src / "README.md", out / "README.md")
    shutil.copytree(src / "data", out / "data")
    write_marker(out, written_files(out), "geomeval publish")


def validate_dataset_card(readme: Path, name: str, rows: int | None = None, *, sample: bool = False) -> list[str]:
    """Check a dataset card as the Hub reads it (huggingface_hub's `DatasetCard`), offline."""
    from huggingface_hub import DatasetCard

    if readme.stat().st_size > MAX_CARD_BYTES:
        raise PublishError(f"{readme}: card larger than {MAX_CARD_BYTES} bytes")
    card = DatasetCard.load(readme)
    data = card.data.to_dict()
    meta = metadata(name)
    problems = []
    if data.get("license") not in HUB_LICENSES:
        problems.append(f"license {data.get('license')!r} is not a Hub license id")
    if data.get("license") == "other" and not (data.get("license_name") and data.get("license_link")):
        problems.append("license 'other' needs license_name and license_link")
    license_id = SAMPLE_LICENSE if sample else meta.license  # a sample is geomeval's, Apache-2.0
    if data.get("license") != license_id:
        problems.append(f"license {data.get('license')!r} is not the declared {license_id!r}")
    if sample and (not says_sample(str(data.get("pretty_name", ""))) or "not the release" not in card.text):
        problems.append("a sample's card must say it is a sample, not the release")
    for key in ("pretty_name", "language", "task_categories", "size_categories", "tags"):
        if not data.get(key):
            problems.append(f"no {key}")
    unknown_tasks = set(data.get("task_categories") or ()) - HUB_TASK_CATEGORIES
    if unknown_tasks:
        problems.append(f"task categories not on the Hub: {sorted(unknown_tasks)}")
    want_size = size_category(meta.release_rows if rows is None else rows)
    if data.get("size_categories") != [want_size]:
        problems.append(f"size_categories {data.get('size_categories')} for {rows} rows (want {want_size})")
    if "## License" not in card.text or meta.license_reason not in card.text:
        problems.append("no license section stating the terms and their source")
    if "```bibtex" not in card.text:
        problems.append("no BibTeX citation")
    if problems:
        raise PublishError(f"{readme}: " + "; ".join(problems))
    return [f"card: license {license_id}, {want_size}, citation, license section"
            + (", says sample, not the release" if sample else "")]


def validate_dataset(folder: Path, name: str, expected: dict[str | None, dict[str, Any]], *,
                     sample: bool = False) -> list[str]:
    """The staged folder against the Hub's rules and its source: card, configs, shards, and
    `load_dataset(folder, config)` giving the same Features and rows."""
    from datasets import load_dataset
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    rows = sum(len(ds) for splits in expected.values() for ds in splits.values())
    checks = validate_dataset_card(folder / "README.md", name, rows, sample=sample)
    extra = sorted(p.relative_to(folder).as_posix() for p in folder.iterdir()
                   if p.name not in ("README.md", "data", BUILD_MARKER))  # the marker is never pushed
    if extra:
        raise PublishError(f"{folder}: files that are not part of the dataset repo: {extra}")
    card_data = DatasetCard.load(folder / "README.md").data
    configs = MetadataConfigs.from_dataset_card_data(card_data)
    infos = DatasetInfosDict.from_dataset_card_data(card_data)
    declared: set[str] = set()
    for config, entry in configs.items():
        for data_file in entry["data_files"]:
            matched = sorted(p.relative_to(folder).as_posix() for p in folder.glob(data_file["path"]))
            if not matched:
                raise PublishError(f"config {config} split {data_file['split']}: no file matches {data_file['path']}")
            declared.update(matched)
    shards = {p.relative_to(folder).as_posix() for p in folder.glob("data/**/*.parquet")}
    if shards - declared:
        raise PublishError(f"shards no config declares: {sorted(shards - declared)}")
    named = {(None if list(configs) == ["default"] else c) for c in configs}
    if named != set(expected):
        raise PublishError(f"card configs {sorted(map(str, named))} != source configs {sorted(map(str, expected))}")
    for config, splits in expected.items():
        info = infos[config or "default"]
        for split, source in splits.items():
            if info.features != source.features:
                raise PublishError(f"{config or 'default'}: the card's features differ from the source's")
            loaded = _as_files(load_dataset(str(folder), config, split=split))
            gc.collect()  # as the source's: the loaded Dataset's mapped pages released before reading
            if loaded.features != source.features:
                raise PublishError(f"{config or 'default'}/{split}: loaded Features differ from the source's")
            if len(loaded) != len(source) or not _same_rows(loaded, source):
                raise PublishError(f"{config or 'default'}/{split}: loaded rows differ from the source's "
                                   f"({len(loaded)} vs {len(source)})")
            checks.append(f"{config or 'default'}/{split}: {len(loaded)} rows, Features and rows load back identical")
            del loaded
    return checks


@dataclass
class _SourceFiles:
    """What validating needs of a Dataset whose rows are its Arrow files as they are: its
    Features, its length and the files (read a batch at a time by `_same_rows`), without the
    Dataset. A mapped Dataset keeps each batch's pages it touched on opening resident (64 KB a
    batch of 100 rows); holding the source's and the loaded one's at once made a 100k-item
    publish peak at 1.56x its 1k peak."""

    features: Any
    files: list[str]
    rows: int
    holds: Any = None  # what keeps the files' temporary folder (raw_dataset's) alive

    def __len__(self) -> int:
        return self.rows

    def table(self) -> Any:
        import pyarrow as pa

        return pa.Table.from_batches(list(_batches(self.files)), schema=_schema_of(self.files[0]))


def _as_files(dataset: Any) -> Any:
    """`dataset` as its files (`_SourceFiles`) where its rows are its files as they are; else
    the Dataset itself (in memory, or with indices: compared whole)."""
    if isinstance(dataset, _SourceFiles):
        return dataset
    names = _plain_files(dataset)
    if not names:
        return dataset
    return _SourceFiles(dataset.features, names, len(dataset), getattr(dataset, "temporary_folder", None))


def _plain_files(dataset: Any) -> list[str]:
    """The Arrow files a Dataset's rows are, in order, when they are those files as they are
    (no indices, no transform); else []."""
    if isinstance(dataset, _SourceFiles):
        return dataset.files
    names = [entry["filename"] for entry in dataset.cache_files]
    if not names or dataset._indices is not None or sum(_rows_in(name) for name in names) != len(dataset):
        return []
    if any(not _schema_of(name).equals(dataset.data.schema) for name in names):
        return []
    return names


def _batches(names: list[str]) -> Any:
    """The non-empty record batches of Arrow stream files, read (not mapped) one at a time."""
    import pyarrow as pa

    for name in names:
        with pa.OSFile(name) as handle:  # read, not mapped: each batch is freed once compared
            for batch in pa.ipc.open_stream(handle):
                if batch.num_rows:
                    yield batch


def _same_rows(loaded: Any, source: Any) -> bool:
    """Whether two Datasets hold the same rows: their Arrow files read a batch at a time and
    compared (comparing the mapped tables whole made every page of both files resident, which
    a process's memory counts: 45 KB more an item, 883 MB at 10k GeoLaux items against 323 at
    1k). A dataset that is not its files as they are (indices, a transform) is compared whole."""
    left, right = _plain_files(loaded), _plain_files(source)
    if not left or not right:
        return bool(_whole(loaded).equals(_whole(source)))
    ours, theirs = _batches(left), _batches(right)
    a, b = next(ours, None), next(theirs, None)
    while a is not None and b is not None:
        n = min(a.num_rows, b.num_rows)
        if not a.slice(0, n).equals(b.slice(0, n)):
            return False
        a = a.slice(n) if a.num_rows > n else next(ours, None)
        b = b.slice(n) if b.num_rows > n else next(theirs, None)
    return a is None and b is None


def _whole(dataset: Any) -> Any:
    """A Dataset's table, or that of a source read from its files."""
    return dataset.table() if isinstance(dataset, _SourceFiles) else dataset.data.table


def _rows_in(name: str) -> int:
    """The rows of an Arrow stream file, counted from its batches' headers' lengths (read
    one batch at a time)."""
    import pyarrow as pa

    with pa.OSFile(name) as handle:
        return sum(batch.num_rows for batch in pa.ipc.open_stream(handle))


def _schema_of(name: str) -> Any:
    import pyarrow as pa

    with pa.OSFile(name) as handle:
        return pa.ipc.open_stream(handle).schema


# --------------------------------------------------------------------------- Spaces


def _version() -> str:
    from .. import __version__

    return __version__


def build_wheel(dest: Path) -> Path:
    """geomeval's wheel, built from this checkout (pip wheel, no dependencies)."""
    dest.mkdir(parents=True, exist_ok=True)
    name = wheel_name(_version())
    repo = repo_root()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", tmp, str(repo)], check=True, timeout=600, capture_output=True, text=True)
        except subprocess.CalledProcessError as exc:
            last = (exc.stderr or exc.stdout or "").strip().splitlines()[-1:] or ["no output"]
            raise PublishError(f"building geomeval's wheel failed (pip wheel exit {exc.returncode}): {last[0]}") from None
        except subprocess.TimeoutExpired:
            raise PublishError("building geomeval's wheel took over 10 minutes; stopped") from None
        built = Path(tmp) / name
        if not built.is_file():
            raise PublishError(f"pip wheel did not write {name}")
        shutil.copy2(built, dest / name)
    return dest / name


def read_front_matter(readme: Path) -> dict[str, Any]:
    from huggingface_hub import RepoCard

    return RepoCard.load(readme).data.to_dict()


REQUIREMENT_LINE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9_,-]+\])?\s*(@\s*https://\S+|[<>=!~][^;#\s]*(,[<>=!~][^;#\s]*)*)?\s*$")


def check_requirements(path: Path, wheel_url: str | None = None) -> list[str]:
    """Every line a requirement pip can fetch from an index or an https URL: no local paths,
    no --find-links (a Space installs requirements before its other files exist)."""
    from packaging.requirements import Requirement

    reqs = []
    for raw in path.read_text(encoding="utf-8").splitlines()[:200]:
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("-") or not REQUIREMENT_LINE.match(line):
            raise PublishError(f"{path}: {line!r} is not a requirement a Space build can resolve")
        reqs.append(Requirement(line))
    geomeval = [r for r in reqs if r.name == "geomeval"]
    if wheel_url is not None and (len(geomeval) != 1 or geomeval[0].url != wheel_url):
        raise PublishError(f"{path}: geomeval must come from {wheel_url}")
    return [str(r) for r in reqs]


def validate_space_card(readme: Path, *, metric: bool = False) -> dict[str, Any]:
    """The front matter the Hub needs to build a Gradio Space (SpaceCard's fields)."""
    data = read_front_matter(readme)
    problems = []
    if data.get("sdk") != "gradio":
        problems.append("sdk must be gradio")
    if not str(data.get("sdk_version", "")).startswith("6."):
        problems.append("sdk_version must be a Gradio 6 release (the project's)")
    if data.get("app_file") != "app.py":
        problems.append("app_file must be app.py")
    short = data.get("short_description")
    if short is not None and len(short) > SHORT_DESCRIPTION_MAX:
        problems.append(f"short_description is {len(short)} characters (the Hub allows {SHORT_DESCRIPTION_MAX})")
    if data.get("license") not in HUB_LICENSES:
        problems.append(f"license {data.get('license')!r} is not a Hub license id")
    if metric and not {"evaluate", "metric"} <= set(data.get("tags") or ()):
        problems.append("a metric Space is tagged evaluate and metric")
    for key in ("title", "colorFrom", "colorTo"):
        if not data.get(key):
            problems.append(f"no {key}")
    if problems:
        raise PublishError(f"{readme}: " + "; ".join(problems))
    return data


def _stage_files(src: Path, out: Path, names: tuple[str, ...], overwrite: bool,
                 optional: tuple[str, ...] = ()) -> None:
    _empty_out(out, overwrite, (*names, *optional, "wheels"))  # wheels/: geomeval's wheel, `_finish_space`
    for name in names:
        if not (src / name).is_file():
            raise PublishError(f"{src / name} is missing")
        shutil.copy2(src / name, out / name)
    for name in optional:
        if (src / name).is_file():
            shutil.copy2(src / name, out / name)


def stage_space(out: str | Path, *, overwrite: bool = False, wheel: Path | None = None,
                repo_id: str = SPACE_REPO_ID) -> Staged:
    """The geomeval Space's repository folder (with geomeval's wheel), validated, atomically."""
    src = repo_root() / "spaces" / "geomeval"

    def fill(folder: Path) -> Staged:
        from ..demo.sample_runs import write_sample_runs

        _stage_files(src, folder, SPACE_FILES, False)
        staged = Staged("space", "geomeval", folder, repo_id, "space")
        staged.checks = _finish_space(folder, repo_id, wheel, metric=False)
        runs = write_sample_runs(folder / SPACE_RUNS)  # the app's default runs folder: its Runs tab
        staged.checks.append(f"{SPACE_RUNS}/: {len(runs)} sample runs (baseline:random on the embedded samples)")
        write_marker(folder, written_files(folder), "geomeval publish")
        packages = [line.strip() for line in (folder / "packages.txt").read_text(encoding="utf-8").splitlines()
                    if line.strip()]
        if not any(p.startswith(("fonts-wqy", "fonts-noto-cjk")) for p in packages):
            raise PublishError("packages.txt must install a CJK font (geomeval.engines.fonts.CJK_FONTS)")
        staged.checks.append(f"packages.txt: {', '.join(packages)}")
        return staged

    return _staged_atomically(Path(out), overwrite, (*SPACE_FILES, "wheels", SPACE_RUNS), fill)


def _metric_source(name: str) -> Path:
    """The metric's folder in the checkout (with its Space files), else the installed module's."""
    try:
        folder = repo_root() / "metrics" / name
    except PublishError:
        return Path(metric_path(name))
    return folder if folder.is_dir() else Path(metric_path(name))


def metric_names() -> list[str]:
    """The evaluate metric modules geomeval ships (from the checkout or the installed package)."""
    from .faces import METRIC_ROOTS

    return sorted({p.name for root in METRIC_ROOTS if root.is_dir() for p in root.iterdir()
                   if (p / f"{p.name}.py").is_file()})


def stage_metric(name: str, out: str | Path, *, overwrite: bool = False, wheel: Path | None = None,
                 repo_id: str | None = None) -> Staged:
    """A metric's Space folder (card, app.py, requirements, the module, the wheel), validated."""
    if name not in metric_names():
        raise UsageError(f"no metric {name!r}; metrics: {', '.join(metric_names())}")
    src, names, repo = _metric_source(name), (*METRIC_FILES, f"{name}.py"), repo_id or f"geomeval/{name}"

    def fill(folder: Path) -> Staged:
        # packages.txt: the Debian packages a metric needs beside its requirements (me2_explanation:
        # WordNet 3.0 for METEOR's synonyms, read offline by geomeval.engines.textmetrics)
        _stage_files(src, folder, names, False, optional=("packages.txt",))
        staged = Staged("metric", name, folder, repo, "space")
        staged.checks = _finish_space(folder, repo, wheel, metric=True)
        if (folder / "packages.txt").is_file():
            packages = [p.strip() for p in (folder / "packages.txt").read_text(encoding="utf-8").splitlines() if p.strip()]
            staged.checks.append(f"packages.txt: {', '.join(packages)}")
        write_marker(folder, written_files(folder), "geomeval publish")
        return staged

    return _staged_atomically(Path(out), overwrite, (*names, "packages.txt", "wheels"), fill)


def _finish_space(out: Path, repo_id: str, wheel: Path | None, *, metric: bool) -> list[str]:
    version = _version()
    wheels = out / "wheels"
    if wheel is not None:
        wheels.mkdir(exist_ok=True)
        shutil.copy2(wheel, wheels / wheel_name(version))
    else:
        build_wheel(wheels)
    data = validate_space_card(out / "README.md", metric=metric)
    url = space_wheel_url(repo_id, version)
    requirements = _requirements_for(out / "requirements.txt", repo_id, version)
    reqs = check_requirements(requirements, url)
    return [f"front matter: sdk gradio {data['sdk_version']}, app_file app.py",
            f"requirements: {'; '.join(reqs)}", f"wheels/{wheel_name(version)}"]


def _requirements_for(path: Path, repo_id: str, version: str) -> Path:
    """Point the staged requirements at this repo id's wheel (the checked-in file names the
    default id) and the current version."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"https://huggingface\.co/spaces/[^/\s]+/[^/\s]+/resolve/main/wheels/geomeval-[^\s]+\.whl",
                  space_wheel_url(repo_id, version), text)
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- push and entry point


def push(staged: Staged, repo_id: str, token: str, *, redistribution_granted: bool = False,
         private: bool = False) -> str:
    """Create the repo if needed and upload the staged folder in one commit; returns its URL."""
    from huggingface_hub import HfApi

    if staged.kind == "dataset":
        meta = metadata(staged.name)
        if staged.from_sample:
            check_sample_target(staged.name, repo_id)
        elif says_sample(repo_id) or repo_id != staged.repo_id:
            raise PublishError(f"{staged.folder} was staged for {staged.repo_id}, not {repo_id}: stage it again "
                               "with that --repo-id (its card's Loading section names the repo)")
        if not staged.from_sample and not meta.redistributable and not redistribution_granted:
            raise PublishError(
                f"{meta.pretty_name}'s terms ({meta.license}) do not grant redistribution: {meta.license_reason} "
                "Push only the embedded sample, or pass --redistribution-granted if you hold that right.")
    api = HfApi(token=token)
    sdk = "gradio" if staged.repo_type == "space" else None
    try:
        api.create_repo(repo_id, repo_type=staged.repo_type, exist_ok=True, private=private, space_sdk=sdk)
        info = api.upload_folder(folder_path=str(staged.folder), repo_id=repo_id, repo_type=staged.repo_type,
                                 commit_message=f"geomeval publish {staged.name}",
                                 ignore_patterns=[BUILD_MARKER])  # geomeval's record of what it wrote
    except Exception as exc:
        if not _hub_failure(exc):
            raise
        said = " ".join(str(exc).split())[:300]
        raise PublishError(f"pushing {staged.folder} to {staged.repo_type} repo {repo_id} failed "
                           f"({type(exc).__name__}: {said}); the staged folder is kept: fix the cause "
                           "(token, network, repo name) and run the same command again") from None
    return str(getattr(info, "commit_url", info))


def _hub_failure(exc: Exception) -> bool:
    """A refusal or network failure met talking to the Hub (huggingface_hub's, requests' or
    httpx's errors, an OSError), not a bug."""
    module = type(exc).__module__.split(".")[0]
    return module in ("huggingface_hub", "requests", "httpx", "urllib3") or isinstance(exc, OSError)


def hub_token(given: str | None) -> str | None:
    """The Hub token to push with: the one given (--token or HF_TOKEN), else the one
    `hf auth login` stored (huggingface_hub.get_token, which reads HF_TOKEN too)."""
    if given:
        return given
    try:
        from huggingface_hub import get_token
    except ImportError:
        return None
    return get_token() or None


def targets() -> list[str]:
    return [*METADATA, "space", *(f"metric:{name}" for name in metric_names())]


def stage(target: str, out: str | Path, *, data: str | Path | None = None, overwrite: bool = False,
          repo_id: str | None = None) -> Staged:
    """Stage and validate `target` (a dataset name, `space`, or `metric:<name>`/a metric name)."""
    if target in METADATA:
        if data is not None and repo_id and says_sample(repo_id):
            raise UsageError(f"refused: --data publishes a release, and {repo_id!r} says sample; leave "
                             "--data out to publish the embedded sample there")
        return stage_dataset(target, out, data=data, overwrite=overwrite, repo_id=repo_id)
    if data is not None:
        raise UsageError("--data applies to datasets only")
    if target == "space":
        return stage_space(out, overwrite=overwrite, repo_id=repo_id or SPACE_REPO_ID)
    name = target.removeprefix("metric:")
    if name in metric_names():
        return stage_metric(name, out, overwrite=overwrite, repo_id=repo_id)
    raise UsageError(f"nothing to publish named {target!r}; targets: {', '.join(targets())}")

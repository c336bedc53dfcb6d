"""ME2 as a geomeval benchmark: three tasks over one dataset.

    geomeval run me2 --task me2_solve --model openai:MODEL
    geomeval run me2 --task me2_keypoints --model openai:MODEL
    geomeval run me2 --task me2_explain --model openai:MODEL --judge openai:JUDGE
    geomeval run me2 --task me2_keypoints -T mode=without_summary --model openai:MODEL

`-T mode=without_summary` is the paper's Appendix C ablation of summary anchoring: keypoint
identification posed without the solution summary that anchors one line of solution, to be
set beside the anchored run of the same model (`geomeval me2 anchoring`).

Every record carries what its task's scorer needs (the gold answer, the five options and
their provenance, the reference explanation and keypoints), so `geomeval score` rescores a
run folder with another judge without the dataset.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ...errors import UsageError
from ...lazy import lazy_import
from ...records import SampleRecord, Score
from ..base import Benchmark, Item, NotPosable
from ..lmms import LmmsBenchmark
from ..options import about
from .features import ANCHORED, OPTION_LETTERS
from .hub import HUB
from .prompts import TEMPLATES, build_messages

data = lazy_import(f"{__package__}.data")
scoring = lazy_import(f"{__package__}.scoring")


TASKS = ("me2_solve", "me2_keypoints", "me2_explain")
# Keypoint identification with the solution summary (the paper's setup) or without it (the
# Appendix C ablation). Only me2_keypoints shows the summary, so only it takes the ablation.
Mode = Literal["with_summary", "without_summary"]
MODES: tuple[str, ...] = get_args(Mode)
SUMMARY_TASK = "me2_keypoints"
NO_OPTIONS = (
    "the item has no keypoint options; build them with `geomeval me2 make-options` "
    "(five candidate sets from the pool) and run on its output"
)


def named(row: dict[str, Any]) -> dict[str, Any]:
    """A dataset row with its class labels as names (`rows.named_row`)."""
    return data.SOURCE.named(row)


def question_answer_type(row: dict[str, Any]) -> str:
    """The release's own label (geometry_choice, graph_short, …), used by the paper's sub-scores."""
    return f"{row['domain']}_{'choice' if row['question_format'] == 'multiple-choice' else 'short'}"


# ME2's explanation metrics as lmms-eval reports them (`scoring.TASK_METRICS`, spelled out so
# that declaring the tasks imports no scorer; a test checks they agree). Which task reports
# which is `ME2.task_metrics`.
LMMS_EXPLAIN_METRICS = (
    "Correctness", "Fidelity", "Referencing",
    "Correctness (0-100)", "Fidelity (0-100)", "Referencing (0-100)",
    "BLEU-2", "BLEU-4", "ROUGE-L", "METEOR", "BERTScore-F1", "BERTScore-P", "BERTScore-R",
)


@dataclass(frozen=True)
class ME2Options:
    """ME2's run option (`-T mode=without_summary`)."""

    mode: Mode = field(default="with_summary", metadata=about(
        "me2_keypoints with the solution summary (the paper's setup) or without it (the Appendix C "
        "ablation)", named="--mode"))


class ME2(Benchmark):
    name = "me2"
    title = "ME2"
    hub = HUB
    tasks = TASKS
    # BERTScore is reported when its local model loads (else N/A, with the reason logged). Images
    # may sit beside the records file or in folders: the fingerprint stats every file under it.
    lmms = LmmsBenchmark(
        tasks=TASKS,
        metrics=("accuracy", *LMMS_EXPLAIN_METRICS),
        summary=("accuracy", "Correctness", "Fidelity", "Referencing", "ROUGE-L", "BERTScore-F1"),
        release_folders=("",),
        groups=("me2",),
    )
    headline = "accuracy"
    prompt_templates = TEMPLATES
    Options = ME2Options

    def __init__(self, mode: str = MODES[0]) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown ME2 --mode {mode!r}; modes: {', '.join(MODES)}")
        self.mode = mode

    @property
    def with_summary(self) -> bool:
        return self.mode == MODES[0]

    @property
    def metrics(self) -> tuple[str, ...]:  # type: ignore[override]
        return scoring.METRICS

    def task_metrics(self, task: str) -> tuple[str, ...]:
        """Accuracy for me2_solve and me2_keypoints, the judge's and text metrics for me2_explain."""
        return scoring.TASK_METRICS[task]

    @property
    def options(self) -> dict[str, Any]:
        """The BERTScore model the explanation scores come from (GEOMEVAL_BERTSCORE_MODEL and
        _LAYER; "default" for the offline default). A resumed run must score with the same
        one, so `geomeval run` refuses a change instead of averaging two models' scores;
        `geomeval score` rescores every item with the current one."""
        model, layer = scoring.bert_choice()
        options = {"bertscore_model": model or "default", "bertscore_layer": layer or "default"}
        # Recorded only for the ablation, so run folders made before it still resume.
        return options if self.with_summary else options | {"mode": self.mode}

    def data_status(self) -> str:
        return "embedded sample (15 original problems, geometry and graph)"

    def load_items(self, data_arg: str | None, task: str, limit: int | None) -> Sequence[Item]:
        self.check_task(task)
        if not self.with_summary and task != SUMMARY_TASK:
            raise UsageError(
                f"--mode {self.mode} is the summary-anchoring ablation of {SUMMARY_TASK}; "
                f"{task} shows no solution summary to withhold"
            )
        from ..datasource import LazyItems

        rows = data.SOURCE.rows(data_arg, limit=limit)  # made into items as the run reaches them
        if task == "me2_keypoints" and len(rows) and not any(rows["keypoint_options"]):
            raise UsageError(f"me2_keypoints: {NO_OPTIONS}")

        def item(row: dict[str, Any]) -> Item:
            fields = named(row)
            return Item(id=fields["id"], fields=fields, choices=self._choices(fields, task))

        return LazyItems(rows, item)

    @staticmethod
    def _choices(row: dict[str, Any], task: str) -> tuple[str, ...]:
        """What a guessing baseline picks among: the five keypoint sets, or a multiple-choice
        problem's options (written in its text, A–E as ME2 poses them)."""
        if task == "me2_keypoints":
            return tuple(row.get("keypoint_options") or ())
        if task == "me2_solve" and row["question_format"] == "multiple-choice":
            return OPTION_LETTERS
        return ()

    def messages(self, item: Item, task: str) -> list[dict[str, Any]]:
        if task == "me2_keypoints" and not item.fields.get("keypoint_options"):
            raise NotPosable(NO_OPTIONS)
        return build_messages(item.fields, task, summary=self.with_summary, prompts=self.prompts)

    def new_record(self, item: Item, task: str) -> SampleRecord:
        row = item.fields
        target: dict[str, Any] = {
            "problem": row["problem"],
            "answer": row["answer"],
            "question_format": row["question_format"],
        }
        if task == "me2_keypoints":
            target |= {
                "keypoint_answer": row.get("keypoint_answer"),
                "options": list(row.get("keypoint_options") or []),
                "option_sources": list(row.get("option_sources") or []),
            }
        if task == "me2_explain":
            target |= {"reference": row["solution"], "keypoints": list(row["visual_keypoints"])}
        return SampleRecord(
            id=item.id,
            benchmark=self.name,
            task=task,
            target=target,
            meta={
                "domain": row["domain"],
                "question_format": row["question_format"],
                "question_answer_type": question_answer_type(row),
                "chapter": row.get("chapter"),
                "section": row.get("section"),
            } | ({ANCHORED: self.with_summary} if task == SUMMARY_TASK else {}),
        )

    def model_failed(self, record: SampleRecord) -> dict[str, Score]:
        """The task's metrics only, BERTScore marked not computed where it cannot be."""
        return scoring.failed_scores(record)

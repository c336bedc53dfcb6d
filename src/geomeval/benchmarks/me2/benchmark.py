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

from ...core.errors import UsageError
from ...core.records import SampleRecord, Score
from ...engines.prompts import PromptSet
from ..base import Benchmark, Item, NotPosable
from ..contract import CardPart, DataPart, EvaluationPart, Parts, RawPart, ScoringPart
from ..lmms import LmmsBenchmark
from ..options import about
from .features import ANCHORED, OPTION_LETTERS
from .hub import HUB
from .prompts import (
    JUDGE_STYLES,
    PROMPT_STYLES,
    TEMPLATES,
    JudgeStyle,
    PromptStyle,
    build_messages,
    templates_for,
)

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
    return _data().SOURCE.named(row)


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


ExplanationText = Literal["raw", "extracted"]
EXPLANATION_TEXTS: tuple[str, ...] = get_args(ExplanationText)
# The official explanation judge samples at 0.01 (utils.py, get_gpt_score_solution); its
# short-answer judge at 0 (`ANSWER_JUDGE_TEMPERATURE`).
JUDGE_TEMPERATURE = 0.01
ANSWER_JUDGE_TEMPERATURE = 0.0


@dataclass(frozen=True)
class ME2Options:
    """ME2's run options (`-T mode=without_summary -T judge_prompt=geomeval …`)."""

    mode: Mode = field(default="with_summary", metadata=about(
        "me2_keypoints with the solution summary (the paper's setup) or without it (the Appendix C "
        "ablation)", named="mode"))
    prompt_style: PromptStyle = field(default="paper", metadata=about(
        "paper (the official task prompts: the solver gives only 'The final Answer is: ...', the explanation "
        "comes as a JSON solution_text) or geomeval (the answer's form spelled out, a prose explanation)",
        named="prompt style"))
    judge_prompt: JudgeStyle = field(default="paper", metadata=about(
        "paper (the official judges' inputs and replies: the two explanations and the answer, a rating list "
        "after thinking aloud) or geomeval (the problem and keypoints shown too, named ratings in JSON)",
        named="judge prompt"))
    explanation_text: ExplanationText = field(default="raw", metadata=about(
        "raw (the reply as it is, JSON and all, scored as the official code does) or extracted (the "
        "explanation inside a JSON reply's solution_text)", named="explanation text"))


# The folder's parts (benchmarks/contract.py), each imported when first asked for.
def _scoring() -> ScoringPart:
    from . import scoring

    return scoring


def _data() -> DataPart:
    from . import data

    return data


def _card() -> CardPart:
    from . import card

    return card


def _evaluation() -> EvaluationPart:
    from . import faces

    return faces


def _raw() -> RawPart:
    from . import raw

    return raw


class ME2(Benchmark):
    name = "me2"
    title = "ME2"
    hub = HUB
    parts = Parts(scoring=_scoring, data=_data, card=_card, evaluation=_evaluation, raw=_raw)
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
    prompt_templates: tuple[Any, ...] = TEMPLATES
    Options = ME2Options
    judge_temperature = JUDGE_TEMPERATURE
    generation_max_tokens = 1024  # the official task's generation limit (temperature 0, the default)

    def __init__(self, mode: str = MODES[0], prompt_style: str = PROMPT_STYLES[0],
                 judge_prompt: str = JUDGE_STYLES[0], explanation_text: str = EXPLANATION_TEXTS[0]) -> None:
        for name, value, allowed in (("mode", mode, MODES), ("prompt_style", prompt_style, PROMPT_STYLES),
                                     ("judge_prompt", judge_prompt, JUDGE_STYLES),
                                     ("explanation_text", explanation_text, EXPLANATION_TEXTS)):
            if value not in allowed:
                raise ValueError(f"unknown ME2 {name} {value!r} (-T {name}=...); choices: {', '.join(allowed)}")
        self.mode = mode
        self.prompt_style = prompt_style
        self.judge_prompt = judge_prompt
        self.explanation_text = explanation_text
        self.prompt_templates = templates_for(prompt_style, judge_prompt)

    def configured(self, options: Any) -> ME2:
        """Set up as `options` say: the style switches swap their templates' default texts (a
        prompt file's replacements stay over them)."""
        clone = super().configured(options)
        assert isinstance(clone, ME2)
        clone.prompt_templates = templates_for(clone.prompt_style, clone.judge_prompt)
        if self._prompt_set is not None:
            clone._prompt_set = PromptSet(self.name, {t.name: t for t in clone.prompt_templates},
                                          self._prompt_set.overrides, self._prompt_set.source)
        return clone

    @property
    def with_summary(self) -> bool:
        return self.mode == MODES[0]

    @property
    def metrics(self) -> tuple[str, ...]:  # type: ignore[override]
        return _scoring().METRICS

    def task_metrics(self, task: str) -> tuple[str, ...]:
        """Accuracy for me2_solve and me2_keypoints, the judge's and text metrics for me2_explain."""
        from .scoring import TASK_METRICS

        return TASK_METRICS[task]

    @property
    def options(self) -> dict[str, Any]:
        """The BERTScore model the explanation scores come from (GEOMEVAL_BERTSCORE_MODEL and
        _LAYER; "default" for the offline default). A resumed run must score with the same
        one, so `geomeval run` refuses a change instead of averaging two models' scores;
        `geomeval score` rescores every item with the current one."""
        from .scoring import bert_choice

        model, layer = bert_choice()
        options = {"bertscore_model": model or "default", "bertscore_layer": layer or "default",
                   "prompt_style": self.prompt_style, "judge_prompt": self.judge_prompt,
                   "explanation_text": self.explanation_text}
        # The mode is recorded only for the ablation, so run folders made before it still resume.
        return options if self.with_summary else options | {"mode": self.mode}

    def data_status(self) -> str:
        return "embedded sample (15 original problems, geometry and graph)"

    def load_items(self, data_arg: str | None, task: str, limit: int | None) -> Sequence[Item]:
        self.check_task(task)
        if not self.with_summary and task != SUMMARY_TASK:
            raise UsageError(
                f"-T mode={self.mode} is the summary-anchoring ablation of {SUMMARY_TASK}; "
                f"{task} shows no solution summary to withhold"
            )
        from ..datasource import LazyItems

        rows = _data().SOURCE.rows(data_arg, limit=limit)  # made into items as the run reaches them
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
        return build_messages(item.fields, task, summary=self.with_summary, prompts=self.prompts,
                              style=self.prompt_style)

    async def score(self, record: SampleRecord, judge: Any) -> dict[str, Score]:
        """`scoring.score_record` under this run's judge style and explanation text."""
        from .scoring import score_record

        return await score_record(
            record, judge, self.prompts, judge_style=self.judge_prompt, explanation_text=self.explanation_text
        )

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
        from .scoring import failed_scores

        return failed_scores(record)

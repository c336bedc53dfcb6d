"""ME2 scoring: the three tasks, per domain, with the official scripts' quirks fixed.

- `me2_solve`: accuracy. A multiple-choice answer is the option letter read from the
  response; a short answer goes through the shared answer checker, and, when the run has a
  judge, the judge decides what the rules call unequal (units, forms). A judge failure there
  leaves the item unscored with the error; it is never counted wrong.
- `me2_keypoints`: accuracy of the chosen keypoint set; each record also keeps which kind of
  option was chosen (the correct one, or a distractor nearest by problem, summary or
  keypoints, or the random one), so a run shows which distractors mislead.
- `me2_explain`: the judge's three Likert ratings (Correctness, Fidelity, Referencing; 1–5,
  kept as published and rescaled (s − 1) / 4) and reference-based text metrics (BLEU-2,
  BLEU-4, ROUGE-L, METEOR, BERTScore), computed offline by `geomeval.engines.textmetrics`.

Unlike the official lmms-eval utilities, per-domain scores divide by the domain's own items
(they gave other-domain items 0 and averaged over all), a failed judgment is unscored (they
scored it 0), and the option letter is read as `(B)`, `B.`, `{B}`, `option B` or
`The final answer is: B` alike (their normaliser kept only the first character).
"""

from __future__ import annotations

import asyncio
import os
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ...answers import check_answer, choose_option, extract_final_answer, parse_json_object
from ...core.records import KeptFields, SampleRecord, Score, judged
from ...engines.aggregate import Breakdown, summarize
from ...engines.judges import Judge
from ...engines.prompts import PromptSet
from ..base import DataError, model_failure
from . import prompts
from .features import (
    ANCHORED,
    CIRCLED_OPTIONS,
    DOMAINS,
    OPTION_LETTERS,
    OPTION_SOURCES,
    QUESTION_ANSWER_TYPES,
    QUESTION_FORMATS,
)
from .raw import split_options

ACCURACY = "accuracy"
ANSWER_JUDGE_TEMPERATURE = 0.0  # the official short-answer judge's (its explanation judge: ME2.judge_temperature)
LIKERT = ("Correctness", "Fidelity", "Referencing")
RESCALED_SUFFIX = " (0-100)"
JUDGE_METRICS = LIKERT + tuple(name + RESCALED_SUFFIX for name in LIKERT)
TEXT_METRICS = ("BLEU-2", "BLEU-4", "ROUGE-L", "METEOR")
BERT_METRICS = ("BERTScore-F1", "BERTScore-P", "BERTScore-R")
EXPLAIN_METRICS = JUDGE_METRICS + TEXT_METRICS + BERT_METRICS
TASK_METRICS: dict[str, tuple[str, ...]] = {
    "me2_solve": (ACCURACY,),
    "me2_keypoints": (ACCURACY,),
    "me2_explain": EXPLAIN_METRICS,
}
METRICS = (ACCURACY, *EXPLAIN_METRICS)
UNITS = {name: "raw" for name in LIKERT}  # a mean rating 1–5, as the paper reports it
NO_JUDGE = "needs an LLM judge (--judge openai:<model>)"
LETTERS = "".join(OPTION_LETTERS)
_CIRCLED_IN = re.compile(f"[{''.join(CIRCLED_OPTIONS)}]")
MAX_EXPLANATION_CHARS = 50_000
MAX_GIVEN_CHARS = 300  # a given final answer longer than this is a solution, not an answer
_TEXT_KEYS = {"bleu2": "BLEU-2", "bleu4": "BLEU-4", "rouge_l": "ROUGE-L", "meteor": "METEOR",
              "bertscore_f1": "BERTScore-F1", "bertscore_p": "BERTScore-P", "bertscore_r": "BERTScore-R"}


# --------------------------------------------------------------------------- reading answers


GIVEN = "given"  # how an answer the caller extracted already (target["answer_given"]) is found


def final_answer(response: str | None, target: dict[str, Any], letters: str | None = None) -> tuple[str | None, str]:
    """The final answer a response states and how it was found; a caller that extracted the
    answer itself (the `evaluate` face's `extracted=True`) marks the target `answer_given`,
    and the response is then the answer as it stands."""
    if target.get("answer_given"):
        answer = (response or "").strip()[:MAX_GIVEN_CHARS]
        return answer or None, GIVEN
    extracted = extract_final_answer(response, letters=letters)
    return extracted.answer, extracted.method


def read_choice(response: str | None, target: dict[str, Any] | None = None) -> tuple[str | None, str]:
    """The option letter a response settles on, and how it was found.

    The shared extractor finds the final answer ("The final answer is: {B}", "\\boxed{B}",
    a closing "(B)" line); the shared reader (`answers.choose_option`) reads the choice
    from it as every benchmark does: a letter in any usual form, or a value naming exactly one
    of the item's options ("9.6" for (D) 9.6). Several letters, an echo of the option list or
    a refusal choose nothing. A circled number ①–⑤ names options A–E, as Korean and Chinese
    problem sets write them.
    """
    answer, method = final_answer(response, target or {}, LETTERS)
    if answer is None:
        return None, "no final answer found"
    letter, how = choose_option(answer, item_options(target or {}))
    if letter is None and how == "no option letter or option value":
        circled = _CIRCLED_IN.findall(answer[:40])
        letter = CIRCLED_OPTIONS[circled[0]] if len(set(circled)) == 1 else None
    if letter is None:
        return None, f"no single option in the final answer {answer[:80]!r} ({method}; {how})"
    return letter, method if how == "letter" else f"{method}; {how}"


def item_options(target: dict[str, Any]) -> dict[str, str]:
    """The item's options by letter: the keypoint task's five option texts, or the options a
    multiple-choice problem writes in its text (none where the text cannot be split)."""
    if target.get("options"):
        return dict(zip(LETTERS, (str(o) for o in target["options"]), strict=False))
    if target.get("question_format") == "multiple-choice" and isinstance(target.get("problem"), str):
        try:
            return dict(zip(LETTERS, split_options("problem", target["problem"]), strict=False))
        except DataError:
            pass
    return dict.fromkeys(LETTERS, "")


def explanation_of(response: str, explanation_text: str = "extracted") -> str:
    """The explanation a response gives, bounded: with `explanation_text="raw"` (the
    default of a run, as the official code scores it) the reply as it is, a JSON wrapper
    and all; with "extracted" (`-T explanation_text=extracted`) a JSON reply's
    `solution_text` (or `explanation`), else the whole text."""
    text = response.strip()[:MAX_EXPLANATION_CHARS]
    if explanation_text == "raw":
        return text
    if text.startswith("{") or text.startswith("```"):
        data = parse_json_object(text)
        if data is not None:
            for key in ("solution_text", "explanation", "solution"):
                if isinstance(data.get(key), str) and data[key].strip():
                    return data[key].strip()
    return text


# --------------------------------------------------------------------------- per task


async def score_record(
    record: SampleRecord, judge: Judge, prompt_set: PromptSet, *, judge_style: str = "paper",
    explanation_text: str = "raw",
) -> dict[str, Score]:
    """One record's metrics; `prompt_set` is the run's (the judges' templates among them),
    `judge_style` and `explanation_text` its switches (`ME2Options`)."""
    record.judgment = None
    record.extracted = None
    if record.task == "me2_solve":
        return await _solve(record, judge, prompt_set, judge_style)
    if record.task == "me2_keypoints":
        return _keypoints(record)
    return await _explain(record, judge, prompt_set, judge_style, explanation_text)


def failed_scores(record: SampleRecord) -> dict[str, Score]:
    """A failed or missing response (`ME2.model_failed`): the task's metrics unscored with the
    reason, BERTScore still marked not computed where the run has no model for it."""
    reason = model_failure(record)
    scores = {name: Score.missing(reason) for name in TASK_METRICS[record.task]}
    if record.task == "me2_explain" and not bert_available():
        scores |= _bert_not_computed()
    return scores


async def _solve(record: SampleRecord, judge: Judge, prompt_set: PromptSet, judge_style: str = "paper") -> dict[str, Score]:
    target = record.target
    gold = target["answer"]
    if target["question_format"] == "multiple-choice":
        letter, method = read_choice(record.response, target)
        record.extracted = {"answer": letter, "method": method}
        if letter is None:
            return {ACCURACY: Score(0.0, explanation=f"{method}; gold {gold}")}
        return {ACCURACY: Score(float(letter == gold), explanation=f"chose {letter} ({method}); gold {gold}")}
    answer, method = final_answer(record.response, target)
    record.extracted = {"answer": answer, "method": method}
    verdict = check_answer(answer, gold)
    rules = f"extracted {answer!r} ({method}); gold {gold!r}; {verdict.rule}: {verdict.detail}"
    if not verdict.decided and judge.offline:  # the checker's budget ran out: no verdict, never wrong
        return {ACCURACY: Score.missing(f"the answer checker is undecided: {rules}")}
    if verdict.equal or judge.offline:
        return {ACCURACY: Score(float(verdict.equal), explanation=rules)}
    # The rules found the answers unequal (or found none): the judge decides, since units and
    # forms the checker does not know ("4000 mm" for "4 m") are its job here.
    assert record.response is not None  # the engine scores a record without one (Benchmark.model_failed)
    # The official short-answer judge sees the prediction after its final-answer marker (the
    # whole reply when it has none) and samples at 0; geomeval's sees the whole reply.
    shown = answer if judge_style == "paper" and answer else record.response
    judged = await judge.for_benchmark(ANSWER_JUDGE_TEMPERATURE).ask(
        prompts.answer_judge_messages(target["problem"], gold, shown, prompt_set, judge_style),
        prompts.parse_answer_verdict,
    )
    if judged.value is None:
        record.judgment = {"judge_error": judged.error}
        return {ACCURACY: Score.judge_failed(f"answer judge failed: {judged.error}")}
    record.judgment = {"answer": judged.value}
    equivalent = judged.value["equivalent"]
    explanation = f"{rules}; judge: {'equal' if equivalent else 'not equal'} (final answer {judged.value['final_answer']!r})"
    return {ACCURACY: Score(float(equivalent), explanation=explanation, judge="decided")}


def _keypoints(record: SampleRecord) -> dict[str, Score]:
    target = record.target
    gold = target.get("keypoint_answer")
    if gold is None:  # a model that never saw the prompt (replay, a baseline) still answers
        return {ACCURACY: Score.missing("the item has no keypoint options: nothing to identify")}
    letter, method = read_choice(record.response, target)
    sources = target.get("option_sources") or []
    chosen = sources[OPTION_LETTERS.index(letter)] if letter is not None and len(sources) == 5 else None
    record.extracted = {"answer": letter, "method": method, "chosen_source": chosen}
    if letter is None:
        return {ACCURACY: Score(0.0, explanation=f"{method}; gold {gold}")}
    kind = f", a {chosen.replace('_', ' ')} distractor" if chosen and chosen != "correct" else ""
    return {ACCURACY: Score(float(letter == gold), explanation=f"chose {letter}{kind} ({method}); gold {gold}")}


async def _explain(record: SampleRecord, judge: Judge, prompt_set: PromptSet, judge_style: str = "paper",
                   explanation_text: str = "raw") -> dict[str, Score]:
    candidate = explanation_of(record.response or "", explanation_text)
    record.extracted = {"explanation_chars": len(candidate)}
    if not candidate:
        scores = {name: Score(0.0, explanation="empty explanation") for name in TEXT_METRICS}
        scores |= (
            {name: Score(0.0, explanation="empty explanation") for name in BERT_METRICS}
            if bert_available()
            else _bert_not_computed()
        )
        if judge.offline:
            return scores | {name: Score.missing(NO_JUDGE, needs_judge=True) for name in JUDGE_METRICS}
        # Nothing to judge: the lowest rating, without asking.
        return scores | likert_scores({key: 1 for key in prompts.LIKERT_CRITERIA} | {"reason": "empty explanation"})
    text_task = asyncio.to_thread(text_scores, candidate, record.target["reference"])
    if judge.offline:
        scores = {name: Score.missing(NO_JUDGE, needs_judge=True) for name in JUDGE_METRICS}
        return scores | await text_task
    answer, text = await asyncio.gather(
        judge.ask(prompts.explanation_judge_messages(record.target, candidate, prompt_set, judge_style),
                  prompts.parse_explanation_verdict),
        text_task,
    )
    if answer.value is None:
        record.judgment = {"judge_error": answer.error}
        return {name: Score.judge_failed(f"explanation judge failed: {answer.error}") for name in JUDGE_METRICS} | text
    record.judgment = {"explanation": answer.value}
    return judged(likert_scores(answer.value)) | text


def likert_scores(verdict: dict[str, Any]) -> dict[str, Score]:
    """The judge's ratings as published (1–5) and rescaled to [0, 1] ((s − 1) / 4)."""
    scores: dict[str, Score] = {}
    for name, key in zip(LIKERT, prompts.LIKERT_CRITERIA, strict=True):
        value = verdict[key]
        scores[name] = Score(float(value), explanation=f"{value}/5: {verdict.get('reason', '')}"[:300])
        scores[name + RESCALED_SUFFIX] = Score((value - 1) / 4, explanation=f"{value}/5")
    return scores


# --------------------------------------------------------------------------- text metrics

_BERT: dict[tuple[str, str], tuple[Any, str | None]] = {}


def bert_choice() -> tuple[str, str]:
    return os.environ.get("GEOMEVAL_BERTSCORE_MODEL", ""), os.environ.get("GEOMEVAL_BERTSCORE_LAYER", "")


def bert_scorer() -> Any:
    """The BERTScore scorer GEOMEVAL_BERTSCORE_MODEL / _LAYER choose (the offline default
    when unset), loaded once per choice; None when it cannot load, the reason in
    `bert_unavailable()`."""
    key = bert_choice()
    if key not in _BERT:
        from ...engines.textmetrics import BertScorer, BertScoreUnavailable

        try:
            _BERT[key] = (BertScorer(), None)
        except (BertScoreUnavailable, ValueError) as exc:  # ValueError: a bad layer number
            _BERT[key] = (None, str(exc))
    return _BERT[key][0]


def bert_available() -> bool:
    return bert_scorer() is not None


def bert_unavailable() -> str | None:
    bert_scorer()
    return _BERT[bert_choice()][1]


def _bert_not_computed() -> dict[str, Score]:
    """BERTScore without a model: a setting of the run (like a judge-less run), so the item
    counts as finished and the report says why, rather than as a failure to retry."""
    reason = f"BERTScore not computed: {bert_unavailable()}"
    return {name: Score.inapplicable(reason) for name in BERT_METRICS}


def text_scores(candidate: str, reference: str) -> dict[str, Score]:
    """BLEU-2/4, ROUGE-L, METEOR and (when a model is available) BERTScore P/R/F1 against the
    teacher's explanation; each explanation names the variant that ran."""
    from ...engines.textmetrics import meteor_variant, text_metrics

    scorer = bert_scorer()
    values = text_metrics(candidate, reference, bert=scorer)
    notes = {"METEOR": f"METEOR {meteor_variant()}"}
    if scorer is not None:
        notes |= {name: f"BERTScore with {scorer.label}" for name in BERT_METRICS}
    scores = {
        name: Score(float(value), explanation=notes.get(name, ""))
        for key, name in _TEXT_KEYS.items()
        if (value := values.get(key)) is not None
    }
    return scores if scorer is not None else scores | _bert_not_computed()


# --------------------------------------------------------------------------- aggregate


BREAKDOWNS = (
    Breakdown("domain", order=tuple(DOMAINS)),
    Breakdown("question_format", order=tuple(QUESTION_FORMATS)),
    Breakdown("question_type", field="question_answer_type", order=tuple(QUESTION_ANSWER_TYPES)),
    Breakdown("chapter"),
)


# Read by the tables: the option kind chosen, and the explanations naming the METEOR variant
# and BERTScore model (the other explanations stay in samples.jsonl only).
KEPT = KeptFields(extracted=("chosen_source",), explanations=("METEOR", "BERTScore-F1"))


def aggregate(records: Sequence[SampleRecord]) -> dict[str, Any]:
    task = records[0].task if records else "me2_solve"
    names = list(TASK_METRICS[task])
    skipped: dict[str, str] = {}
    bert_scored = any(r.scores[n].scored for r in records for n in BERT_METRICS if n in r.scores)
    if task == "me2_explain" and not bert_scored:
        names = [n for n in names if n not in BERT_METRICS]
        reasons = (r.scores[n].unscored for r in records for n in BERT_METRICS if n in r.scores)
        skipped["BERTScore"] = next((why for why in reasons if why and why.startswith("BERTScore")),
                                    None) or bert_unavailable() or "not computed in this run"
    summary = summarize(
        records,
        names,
        breakdowns=BREAKDOWNS,
        units=UNITS,
    )
    summary["headline"] = _headline(task, summary["metrics"])
    anchored = not any(r.meta.get(ANCHORED) is False for r in records)
    tables: list[dict[str, Any] | None] = [
        paper_table(task, summary, anchored=anchored, bert_note=bert_caveat(records))
    ]
    if task == "me2_keypoints":
        tables.append(chosen_sources_table(records))
    if task == "me2_explain":
        tables.append(_variants_table(records))
    summary["tables"] = [t for t in tables if t]
    if skipped:
        summary["skipped_metrics"] = skipped
    return summary


PAPER_TABLES = {"me2_solve": "Table 2 (problem solving, accuracy)",
                "me2_keypoints": "Table 3 (visual keypoint identification, accuracy)",
                "me2_explain": "Table 5 (judge ratings) and Table A (text metrics)"}
WITHOUT_SUMMARY = ("keypoint identification WITHOUT the solution summary (the Appendix C ablation of "
                   "summary anchoring; the paper's Table 3 shows the summary)")
# A BERTScore computed with geomeval's offline default model: the label `textmetrics` gives
# it says so, and its numbers cannot be set beside the paper's.
DEFAULT_BERT_MARK = "offline default"
BERT_NOT_COMPARABLE = "default model: not comparable with the paper"


def paper_table(task: str, summary: dict[str, Any], *, anchored: bool = True,
                bert_note: str | None = None) -> dict[str, Any]:
    """This run in the layout of the paper's table for the task, to paste beside its rows:
    accuracy by Geometric and Graph and Overall (Tables 2 and 3; Overall is the mean over all
    items, so the domains weigh by their item counts: 763 × 0.430 and 237 × 0.300 give 0.399),
    or each explanation metric by the same columns (Tables 5 and A). A run without the summary
    (`anchored=False`) says so in the title; `bert_note` goes beside the BERTScore rows."""
    domains = summary["breakdowns"].get("domain", {})
    names = [ACCURACY] if task != "me2_explain" else [n for n in summary["metrics"] if not n.endswith(RESCALED_SUFFIX)]
    rows = []
    for name in names:
        cells = [domains[d][name]["value"] if d in domains and name in domains[d] else None for d in DOMAINS]
        label = f"{name} ({bert_note})" if bert_note and name in BERT_METRICS else name
        rows.append([label, *cells, summary["metrics"][name]["value"]])
    title = f"ME2 as in the paper's {PAPER_TABLES[task]}"
    if task == "me2_keypoints" and not anchored:
        title = f"ME2 {WITHOUT_SUMMARY}, in the layout of Table 3"
    return {"title": title, "columns": ["metric", "Geometric", "Graph", "Overall"], "rows": rows, "style": "fraction"}


def bert_caveat(records: Sequence[SampleRecord]) -> str | None:
    """The note beside BERTScore when a run scored it with the offline default model."""
    for record in records:
        score = record.scores.get("BERTScore-F1")
        if score is not None and score.scored and DEFAULT_BERT_MARK in score.explanation:
            return BERT_NOT_COMPARABLE
    return None


def _headline(task: str, metrics: dict[str, Any]) -> str:
    if task != "me2_explain":
        return ACCURACY
    return "Correctness" if metrics.get("Correctness", {}).get("value") is not None else "ROUGE-L"


def chosen_sources_table(records: Sequence[SampleRecord]) -> dict[str, Any] | None:
    """How often each kind of option was chosen, per domain: which distractors mislead."""
    counts: dict[str, Counter[str]] = {domain: Counter() for domain in DOMAINS}
    for record in records:
        chosen = (record.extracted or {}).get("chosen_source")
        if chosen and record.meta.get("domain") in counts:
            counts[record.meta["domain"]][chosen] += 1
    if not any(counts.values()):
        return None
    return {
        "title": "Keypoint options chosen, by where the option came from",
        "columns": ["domain", *OPTION_SOURCES, "no letter or no provenance"],
        "rows": [
            [domain, *(counts[domain][s] for s in OPTION_SOURCES),
             sum(1 for r in records if r.meta.get("domain") == domain and r.scores.get(ACCURACY)
                 and r.scores[ACCURACY].scored and not (r.extracted or {}).get("chosen_source"))]
            for domain in DOMAINS
            if any(r.meta.get("domain") == domain for r in records)
        ],
    }


def _variants_table(records: Sequence[SampleRecord]) -> dict[str, Any] | None:
    """Which METEOR variant and BERTScore model produced the text scores: they differ from the
    paper's when WordNet data or the paper's model is not available locally."""
    seen: dict[str, str] = {}
    for record in records:
        for name in ("METEOR", "BERTScore-F1"):
            score = record.scores.get(name)
            if score is not None and score.explanation.startswith(("METEOR ", "BERTScore with")) and name not in seen:
                seen[name] = score.explanation
    if not seen:
        return None

    def comparable(name: str, note: str) -> str:
        if name == "METEOR":
            return "yes (nltk's METEOR with WordNet)" if "+wordnet" in note else "no: no WordNet synonyms"
        return f"no: {BERT_NOT_COMPARABLE}" if DEFAULT_BERT_MARK in note else "only with the model the paper's numbers came from"

    return {"title": "Text metric variants", "columns": ["metric", "computed with", "comparable with the paper"],
            "rows": [[name, note, comparable(name, note)] for name, note in seen.items()]}

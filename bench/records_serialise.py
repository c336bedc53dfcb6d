"""Writing a sample line: `SampleRecord.to_json` against the `dataclasses.asdict` way it
replaced, side by side on the same records, same process.

    python bench/records_serialise.py [--rounds 200]

Records: every item of the embedded GeoLaux and GGBench samples as a run writes them
(targets with their base64 figures, a response, four scores with explanations, a judgment).
Checks that both ways write the same text, and prints µs per record and the ratio.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time


def asdict_json(record) -> str:
    data = dataclasses.asdict(record)
    data["scores"] = {k: dataclasses.asdict(v) for k, v in record.scores.items()}
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def main() -> None:
    from geomeval.benchmarks import get_benchmark
    from geomeval.core.records import Score

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    records = []
    for name, task in (("geolaux", "geolaux"), ("ggbench", "ggbench_code")):
        bench = get_benchmark(name)
        for item in bench.load_items(None, task, None):
            record = bench.new_record(item, task)
            record.response = "1. ∠B = ∠C since AB = AC.\n2. ∠B = (180° − 40°) / 2 = 70°.\nAnswer: 70°"
            record.judgment = {"steps": [{"step": 1, "correct": 1, "reason": "ok"}], "final_answer_correct": 1}
            record.scores = {m: Score(1.0, explanation="matched the gold answer", judge="decided") for m in
                             ("ACS", "PCS", "PQS", "X")}
            record.generation_info = {"finish_reason": "stop", "usage": {"prompt_tokens": 812, "completion_tokens": 96}}
            records.append(record)
    assert all(r.to_json() == asdict_json(r) for r in records), "the two ways differ"

    def per_record(fn) -> float:
        start = time.perf_counter()
        for _ in range(args.rounds):
            for record in records:
                fn(record)
        return 1e6 * (time.perf_counter() - start) / (args.rounds * len(records))

    old, new = per_record(asdict_json), per_record(lambda r: r.to_json())
    size = sum(len(r.to_json()) for r in records) / len(records)
    print(f"{len(records)} records (mean {size / 1000:.1f} kB a line), identical text: yes")
    print(f"dataclasses.asdict + json.dumps: {old:8.1f} µs/record")
    print(f"SampleRecord.to_json (plain dict): {new:6.1f} µs/record")
    print(f"ratio: {old / new:.2f}x faster")


if __name__ == "__main__":
    main()

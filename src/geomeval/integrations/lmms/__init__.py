"""geomeval's benchmarks inside lmms-eval, in parts: `registry` (the declarations), `settings`
(a task YAML's prompts and judge), `tasks` (the doc functions and process_results),
`scores` and `aggregations` (entries, background scoring, the YAMLs' aggregations),
`datasets` and `taskfiles` (what the tasks read), `wrapper` (`geomeval lmms-eval`).
`geomeval.integrations.lmms_eval` re-exports the names task files and users import."""

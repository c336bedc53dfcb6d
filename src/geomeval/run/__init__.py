"""The run layer (.importlinter). Runs and what is made of them: the runner, shards, reports, comparisons, agreement, suites, provenance."""

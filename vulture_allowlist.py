"""Names vulture (the dead-code finder .ci/run runs over src/geomeval and tests) cannot see
used: each is called by a framework, by name from outside the package, or kept on purpose. A
new entry says why; dead code is deleted, not listed here."""

# ruff: noqa
# Typer commands and callbacks (registered by decorator, called by the CLI).
_root, list_benchmarks, prompts_command, compare, publish, lmms_eval_command  # cli/commands.py
run_command, verify_command  # cli/ggb.py
anchoring  # cli/me2.py
# Called at exit (atexit.register as a decorator).
_flush_all  # cache.py
# evaluate faces: the metric modules under metrics/ call them (metrics/<name>/<name>.py).
evaluate_judgments, evaluate_code
# Run in the symbolic worker process by name (answers/_symbolic_worker.py).
symbolic_equal
# Protocol signatures: __exit__'s arguments, WordNet's synsets(lemma, ...) in the offline stub.
exc_type, tb, lemma
# Attributes read by callers outside the package or kept for the object's lifetime.
_.misses  # ResponseCache statistics (bench/ scripts read them)
NDArray  # painter.py: named inside a cast's string type
_.temporary_folder  # keeps the built dataset's folder alive as long as the Dataset (datasource.py)
# The file-object protocol stubs tests hand over (pytest fixtures and `pytestmark` are skipped
# by the command's --ignore-decorators and --ignore-names).
_.readable, _.seekable, _.readinto, _.unfinished_tasks
# Published numbers the keypoint tests pin in their docstrings and failure messages.
HELDOUT_FIRST_SCORE, FRESH_FIRST_SCORE
reordered  # test_codemetrics: a named variant, read through locals()
# tests/conftest.py: a pytest hook (called by name), and typer.testing's module attribute it
# replaces so that CliRunner builds the click command once.
pytest_collection_modifyitems
_._get_command

"""The engines layer (.importlinter). What the benchmarks score and talk with: the model and judge clients and their plumbing, caches, prompts, metrics, images, datasets on disk, the sandbox."""

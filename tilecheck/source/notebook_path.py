"""Whether a path names a Jupyter notebook, by its name alone: asked of every file a run meets,
without importing the notebook reader (`source.notebook`)."""

from __future__ import annotations

SUFFIX = ".ipynb"


def is_notebook(path: str) -> bool:
    return path.endswith(SUFFIX)
